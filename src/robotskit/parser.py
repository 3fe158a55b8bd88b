"""The parser: lines to groups and records.

Kept for its import path; the code lives in `robotskit.core.parser`.
"""

from robotskit.core.parser import (
    GroupedFile,
    GroupLike,
    ParsedFile,
    RawGroup,
    RawRule,
    parse_file,
)

__all__ = [
    "GroupLike",
    "GroupedFile",
    "ParsedFile",
    "RawGroup",
    "RawRule",
    "parse_file",
]
