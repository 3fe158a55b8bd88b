"""The linter: every problem robotskit can see in a robots.txt, with a stable id.

This module owns the entry point: it runs the lint rules (ids RK2xx: directives and values in
`_lint_values`, RK3xx: rules and groups in `_lint_rules`) and merges them with the parser's own
diagnostics (RK1xx), which `_lint_parse` re-derives from the lexer's per-line metadata so `lint`
stays complete if the parser omits one; those are dropped when the parser already reported the
same code on the same line. Rules are pure functions of a `_lint_context.Context`; nothing here
does I/O. Every id is documented in docs/lint.md.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from robotskit.core.model import Diagnostic
from robotskit.core.profiles import RFC9309, get_profile, profile_for_url
from robotskit.core.robots import ParsedRobots
from robotskit.errors import UnknownProfile
from robotskit.lint import parse_checks as _lint_parse
from robotskit.lint import rule_checks as _lint_rules
from robotskit.lint import value_checks as _lint_values
from robotskit.lint.context import CODES, PROFILES, Context, token_for
from robotskit.lint.patterns import match_end

__all__ = ["CODES", "check_selectors", "lint", "match_end", "token_for", "wanted"]

# The order rules run in: it breaks ties between diagnostics on the same line, column and id.
_CHECKS = (*_lint_parse.CHECKS, *_lint_values.CHECKS, *_lint_rules.CHECKS)
_FILE_CODES = frozenset({"RK101", "RK104"})  # about the whole file: one report is enough
_HTML_NOISE = frozenset({"RK110", "RK111", "RK112", "RK201"})


def lint(
    robots: ParsedRobots,
    *,
    profile: str | None = None,
    content_type: str | None = None,
    select: Collection[str] = (),
    ignore: Collection[str] = (),
) -> tuple[Diagnostic, ...]:
    """Every diagnostic for `robots`: the parser's own plus the lint rules', sorted by line and column.

    `profile` selects profile-specific checks (default: the file's profile, else the one its
    `robots_url` implies, gemini for gemini://, else `rfc9309`).
    `content_type` is the HTTP Content-Type the file was served with, if known.
    `select` and `ignore` are ids or id prefixes (`RK3`); see `wanted` for how they combine.
    Raises `ValueError` for a selector that names no id.
    """
    if not isinstance(robots, ParsedRobots):
        raise TypeError(
            f"robots must be a robotskit.RobotsTxt (from robotskit.parse), not {type(robots).__name__}"
        )
    if profile is not None and not isinstance(profile, str):
        raise TypeError(f"profile must be a str or None, not {type(profile).__name__}")
    # The profile comes from the caller, else the parse, else the URL the file came from (a
    # gemini:// robots.txt is linted as Gemini crawlers read it), else rfc9309.
    by_url = profile_for_url(robots.robots_url).name if robots.robots_url else RFC9309
    chosen = profile or robots.profile or by_url
    if chosen not in PROFILES:
        raise UnknownProfile(f"unknown profile {chosen!r}; expected one of {', '.join(PROFILES)}")
    select, ignore = check_selectors(select), check_selectors(ignore)
    ctx = Context(robots, chosen, content_type, {line.number: line for line in robots.lines})
    found = _merged(ctx)
    if any(d.code == "RK230" for d in found):
        # An HTML page makes its tag lines look like bad keys; the one RK230 says it better.
        tags = {n for n, line in ctx.lines.items() if line.raw.lstrip().startswith("<")}
        found = [d for d in found if not (d.code in _HTML_NOISE and d.line in tags)]
    # A full user-agent string (RK123) says more than the parser's "reduced to a token" (RK122).
    full_strings = {d.line for d in found if d.code == "RK123"}
    found = [d for d in found if not (d.code == "RK122" and d.line in full_strings)]
    found = [d for d in found if wanted(d.code, select, ignore)]
    return tuple(sorted(found, key=lambda d: (d.line, d.column, d.code)))


def _merged(ctx: Context) -> list[Diagnostic]:
    """The parser's diagnostics, then each rule's that says something new."""
    found: list[Diagnostic] = list(ctx.robots.diagnostics)
    if get_profile(ctx.profile).preamble_applies:
        # The parser reports rules before any user-agent as ignored; this profile applies them.
        found = [d for d in found if d.code != "RK120"]
    reported = {(d.code, d.line) for d in found} | {(d.code, 0) for d in found if d.code in _FILE_CODES}
    seen = {(d.code, d.line, d.column, d.message) for d in found}
    for check in _CHECKS:
        for diag in check(ctx):
            key = (diag.code, diag.line, diag.column, diag.message)
            # Re-derived parser codes give way to the parser's own report of the same line.
            parser_has = {(diag.code, diag.line), (diag.code, 0)} & reported
            if (diag.code < "RK2" and parser_has) or key in seen:
                continue
            seen.add(key)
            found.append(diag)
    return found


def check_selectors(selectors: Iterable[str]) -> tuple[str, ...]:
    """`selectors` upper-cased and stripped; raises ValueError for one that is a prefix of no id."""
    cleaned = tuple(s.strip().upper() for s in selectors if s.strip())
    unknown = [s for s in cleaned if not any(code.startswith(s) for code in CODES)]
    if unknown:
        raise ValueError(f"no lint id starts with {', '.join(map(repr, unknown))} (ids: docs/lint.md)")
    return cleaned


def wanted(code: str, select: Collection[str], ignore: Collection[str]) -> bool:
    """Whether `code` is reported: the most specific (longest) matching selector decides, as in ruff.

    No `select` selects everything; an id no `select` entry matches is dropped; on a tie between a
    select and an ignore entry of the same length, ignore wins.
    """
    chosen = max((len(s) for s in select if code.startswith(s)), default=-1 if select else 0)
    dropped = max((len(s) for s in ignore if code.startswith(s)), default=-1)
    return chosen > dropped
