"""Lint robots.txt files: stable rule ids (RK1xx parse, RK2xx values, RK3xx rules).

The checks read the parser's Line events and values only (`context` builds what they share);
`runner` merges and filters their findings.
"""

from robotskit.lint.runner import (
    CODES,
    check_selectors,
    lint,
    match_end,
    token_for,
    wanted,
)

__all__ = [
    "CODES",
    "check_selectors",
    "lint",
    "match_end",
    "token_for",
    "wanted",
]
