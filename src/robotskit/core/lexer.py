"""bytes -> lines -> `key: value` events: the one reading of a robots.txt every consumer shares.

Owns SPEC.md section 2 up to the key: the size limit, the (partial) UTF-8 BOM, CR / LF / CRLF
line ends, Google's per-line cap of 16,663 bytes (its 2083 * 8 buffer less the terminating
NUL), a NUL ending the line's content (Google reads lines as C strings), `#` comments,
whitespace, the colon (or, as Google accepts, a single run of whitespace between exactly two
words) and the key, including the misspellings Google accepts.

    line  = *WS [ key *WS ":" *WS value *WS ] [ "#" comment ]
    key   = starts with "user-agent" / "useragent" / "user agent" / "allow" / "disallow" /
            "dissallow" / "dissalow" / "disalow" / "diasllow" / "disallaw" / "sitemap" /
            "site-map" (case-insensitive, as Google's StartsWithIgnoreCase), or any other text

The parser splits the common lines itself (`FAST_KEYS`) and hands every other line to
`lex_line`; `lex` builds public `Line` values for the linter and explain. Bytes are handled as
latin-1 text here so that every byte stays one character and pattern lengths stay octet counts.
"""

from __future__ import annotations

from robotskit.core.model import Line, LineKind

DEFAULT_MAX_BYTES = 512_000  # SPEC 2 / RFC 9309 2.5: parse at least the first 500 KiB
MAX_LINE_BYTES = 2083 * 8 - 1  # Google's kMaxLineLen buffer keeps this many bytes of a line
WHITESPACE = " \t\n\v\f\r"  # C's isspace(): what Google's StripWhitespaceSlowly removes
_BOM = b"\xef\xbb\xbf"

# Exact (lower-cased) keys first: the common case costs one dict lookup.
_EXACT_KEYS = {
    "user-agent": LineKind.USER_AGENT,
    "allow": LineKind.ALLOW,
    "disallow": LineKind.DISALLOW,
    "sitemap": LineKind.SITEMAP,
}
# Google's key test is StartsWithIgnoreCase, in this order; typos flagged as such.
_PREFIX_KEYS: tuple[tuple[str, LineKind, bool], ...] = (
    ("user-agent", LineKind.USER_AGENT, False),
    ("useragent", LineKind.USER_AGENT, True),
    ("user agent", LineKind.USER_AGENT, True),
    ("allow", LineKind.ALLOW, False),
    ("disallow", LineKind.DISALLOW, False),
    ("dissallow", LineKind.DISALLOW, True),
    ("dissalow", LineKind.DISALLOW, True),
    ("disalow", LineKind.DISALLOW, True),
    ("diasllow", LineKind.DISALLOW, True),
    ("disallaw", LineKind.DISALLOW, True),
    ("sitemap", LineKind.SITEMAP, False),
    ("site-map", LineKind.SITEMAP, True),
)
_PREFIX_INITIALS = frozenset(prefix[0] for prefix, _, _ in _PREFIX_KEYS)

# (kind, key, value, key_offset, value_offset, has_comment, typo, missing_colon)
LexedLine = tuple[LineKind, str, str, int, int, bool, bool, bool]


def prepare(data: bytes | str, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[bytes, bool, int]:
    """Apply the size limit and skip the BOM: returns (bytes to read, truncated, BOM bytes skipped).

    SPEC 2: only the first `max_bytes` are read and a line cut by the limit is dropped, so the
    kept bytes end at the last line break inside the limit.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    truncated = len(raw) > max_bytes
    if truncated:
        raw = raw[:max_bytes]
        last_break = max(raw.rfind(b"\n"), raw.rfind(b"\r"))
        raw = raw[: last_break + 1]
    # Google skips any prefix of the BOM (EF, EF BB, EF BB BF), not only the whole mark.
    skipped = 0
    while skipped < 3 and skipped < len(raw) and raw[skipped] == _BOM[skipped]:
        skipped += 1
    return raw[skipped:], truncated, skipped


def split_lines(text: str) -> list[str]:
    """Split at CR, LF and CRLF (one break), as Google does; the final line may be empty."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def cap_line(line: str) -> tuple[str, bool, bool]:
    """Cut a line at a NUL and at the length cap: (content, too_long, had_nul)."""
    too_long = len(line) > MAX_LINE_BYTES
    if too_long:
        line = line[:MAX_LINE_BYTES]
    nul = line.find("\x00")
    if nul >= 0:
        line = line[:nul]
    return line, too_long, nul >= 0


def classify_key(key: str) -> tuple[LineKind, bool]:
    """Map a field name to its kind and whether it was an accepted misspelling."""
    lowered = key.lower()
    kind = _EXACT_KEYS.get(lowered)
    if kind is not None:
        return kind, False
    if lowered[:1] in _PREFIX_INITIALS:  # most unknown keys (and HTML junk) fail at once
        for prefix, prefix_kind, typo in _PREFIX_KEYS:
            if lowered.startswith(prefix):
                return prefix_kind, typo
    return LineKind.OTHER, False


def lex_line(line: str) -> LexedLine | None:
    """Split one (capped) line into key and value; None for an empty or comment-only line.

    Mirrors Google's GetKeyAndValueFrom: the comment is cut first, then whitespace; the colon
    separates key and value; without a colon, whitespace does, but only between exactly two words.
    A line that has content but no key comes back with kind INVALID.
    """
    comment = line.find("#")
    has_comment = comment >= 0
    content = line[:comment] if has_comment else line
    stripped = content.strip(WHITESPACE)
    if not stripped:
        return None
    lead = len(content) - len(content.lstrip(WHITESPACE))
    missing_colon = False
    separator = stripped.find(":")
    if separator < 0:
        space = _first_whitespace(stripped)
        if space < 0:
            return (LineKind.INVALID, "", stripped, lead, 0, has_comment, False, False)
        rest = stripped[space:].lstrip(" \t")
        if _first_whitespace(rest) >= 0:
            # More than two words: Google only accepts whitespace as the separator of exactly two.
            return (LineKind.INVALID, "", stripped, lead, 0, has_comment, False, False)
        separator = space
        missing_colon = True
    key = stripped[:separator].rstrip(WHITESPACE)
    if not key:
        return (LineKind.INVALID, "", stripped, lead, 0, has_comment, False, False)
    after = stripped[separator + 1 :]
    value = after.lstrip(WHITESPACE)
    value_offset = lead + separator + 1 + (len(after) - len(value))
    kind, typo = classify_key(key)
    return (kind, key, value, lead, value_offset, has_comment, typo, missing_colon)


def _first_whitespace(text: str) -> int:
    space = text.find(" ")
    tab = text.find("\t")
    if space < 0:
        return tab
    if tab < 0:
        return space
    return min(space, tab)


# The fast path of the parser and of `rows`: the text before a line's first colon, exactly as
# written, for the spellings nearly every file uses (corpus: 99.9 % of its user-agent / allow /
# disallow / sitemap lines). For such a line `lex_line` returns this kind, no typo, no missing
# colon, the key stripped of whitespace, and as value the rest after the colon cut at `#` and
# stripped of whitespace: so the parser splits it with one `str.partition` and one dict lookup,
# and hands every other line to `lex_line` itself. Built through `classify_key`, so an entry can
# never disagree with the key rules above (and a test checks each against `lex_line`).
_FAST_SPELLINGS = (
    "Disallow",
    "User-agent",
    "Allow",
    "Sitemap",
    "User-Agent",
    "disallow",
    "sitemap",
    "allow",
    "user-agent",
    "SITEMAP",
    "DISALLOW",
    "ALLOW",
    "USER-AGENT",
    "SiteMap",
    "DisAllow",
    # Frequent other keys (records), same split: kind OTHER, key = the raw key stripped.
    "Noindex",
    "Crawl-delay",
    "Crawl-Delay",
    "Host",
    "Nofollow",
    "Clean-param",
    "Request-rate",
)
FAST_KEYS: dict[str, LineKind] = {
    raw: kind
    for spelling in _FAST_SPELLINGS
    for raw in (spelling, spelling + " ", "  " + spelling, "    " + spelling)
    for kind, typo in (classify_key(spelling),)
    if not typo
}

Row = tuple[str, str, str]


def fast_value(rest: str) -> str:
    """The value of a FAST_KEYS line from the text after its first colon (see FAST_KEYS)."""
    if "#" in rest:
        rest = rest.partition("#")[0]
    return rest.strip(WHITESPACE)


def rows(text: str) -> list[Row]:
    """One (key, value, other) row per line of `text` (line breaks already LF), index = line - 1.

    `key` and `value` are set for a `key: value` line exactly as `lex_line` splits it; `other`
    holds the content of a line `lex_line` must look at (no colon: a missing colon or junk).
    Lines whose key is in FAST_KEYS are split as the parser splits them; a test checks the
    result equals `lex_line` on every line, on the corpus and on random text.
    """
    found: list[Row] = []
    for physical in text.split("\n"):
        content = cap_line(physical)[0]
        key, colon, rest = content.partition(":")
        if colon and key in FAST_KEYS:
            found.append((key.strip(WHITESPACE), fast_value(rest), ""))
            continue
        lexed = lex_line(content)
        if lexed is None:
            found.append(("", "", ""))
        elif lexed[0] is LineKind.INVALID or lexed[7]:
            found.append(("", "", content.partition("#")[0].strip(WHITESPACE)))
        else:
            found.append((lexed[1], lexed[2], ""))
    return found


def to_text(latin1: str) -> str:
    """Turn a latin-1 slice of the file back into text, decoding its bytes as UTF-8 (with U+FFFD)."""
    if latin1.isascii():
        return latin1
    return latin1.encode("latin-1").decode("utf-8", "replace")


def is_valid_utf8(latin1: str) -> bool:
    if latin1.isascii():
        return True
    try:
        latin1.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def lex(data: bytes | str, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[Line, ...]:
    """Every physical line of `data` as a `Line` event (for the linter, explain and reports).

    Line numbers are 1-based and count every line, empty ones included, as Google reports them.
    """
    if not isinstance(data, (bytes, bytearray, memoryview, str)):
        raise TypeError(f"data must be bytes or str, not {type(data).__name__}")
    body, _, _ = prepare(data, max_bytes)
    text = body.decode("latin-1")
    lines = split_lines(text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # the empty remainder after a final line break is not a line of the file
    if text.isascii():
        return _lex_ascii(lines)
    events: list[Line] = []
    for number, physical in enumerate(lines, 1):
        content, too_long, had_nul = cap_line(physical)
        raw = to_text(content)
        invalid_utf8 = not is_valid_utf8(content)
        lexed = lex_line(content)
        if lexed is None:
            kind = LineKind.COMMENT if "#" in content else LineKind.EMPTY
            events.append(
                Line(
                    number,
                    kind,
                    raw,
                    too_long=too_long,
                    had_nul=had_nul,
                    has_comment=kind is LineKind.COMMENT,
                    invalid_utf8=invalid_utf8,
                )
            )
            continue
        kind, key, value, key_offset, value_offset, has_comment, typo, missing_colon = lexed
        events.append(
            Line(
                number,
                kind,
                raw,
                key=to_text(key),
                value=to_text(value),
                key_column=len(to_text(content[:key_offset])) + 1,
                value_column=len(to_text(content[:value_offset])) + 1 if kind is not LineKind.INVALID else 0,
                has_comment=has_comment,
                typo=typo,
                missing_colon=missing_colon,
                too_long=too_long,
                had_nul=had_nul,
                invalid_utf8=invalid_utf8,
            )
        )
    return tuple(events)


# FAST_KEYS lines as `lex` reports them: raw key -> (kind, key as reported, its offset).
_FAST_LEX: dict[str, tuple[LineKind, str, int]] = {
    raw: (kind, raw.strip(WHITESPACE), len(raw) - len(raw.lstrip(WHITESPACE)))
    for raw, kind in FAST_KEYS.items()
}


def _lex_ascii(lines: list[str]) -> tuple[Line, ...]:
    """`lex` for an all-ASCII file (nearly every file): text is its own UTF-8 decoding and columns
    are offsets, so no per-line decoding is needed. Same events as the general loop (tested).

    A line whose key is in FAST_KEYS is split with one `partition` as the parser splits it
    (see FAST_KEYS): `lex_line` would find the same key, value and columns.
    """
    events: list[Line] = []
    append = events.append
    comment, empty, invalid = LineKind.COMMENT, LineKind.EMPTY, LineKind.INVALID
    fast_lex = _FAST_LEX
    for number, physical in enumerate(lines, 1):
        if len(physical) > MAX_LINE_BYTES or "\x00" in physical:
            content, too_long, had_nul = cap_line(physical)
        else:
            content, too_long, had_nul = physical, False, False
        raw_key, colon, rest = content.partition(":")
        fast = fast_lex.get(raw_key) if colon else None
        if fast is not None:
            cut = rest.find("#")
            if cut >= 0:
                rest = rest[:cut]
            value = rest.strip(WHITESPACE)
            # lex_line's value offset: after the colon and the blanks before the value
            value_offset = len(raw_key) + 1 + (len(rest) - len(rest.lstrip(WHITESPACE)) if value else 0)
            append(
                Line(
                    number,
                    fast[0],
                    content,
                    fast[1],
                    value,
                    fast[2] + 1,
                    value_offset + 1,
                    cut >= 0,
                    False,
                    False,
                    too_long,
                    had_nul,
                )
            )
            continue
        lexed = lex_line(content)
        if lexed is None:
            kind = comment if "#" in content else empty
            append(
                Line(number, kind, content, "", "", 0, 0, kind is comment, False, False, too_long, had_nul)
            )
            continue
        kind, key, value, key_offset, value_offset, has_comment, typo, missing_colon = lexed
        value_column = value_offset + 1 if kind is not invalid else 0
        append(
            Line(
                number,
                kind,
                content,
                key,
                value,
                key_offset + 1,
                value_column,
                has_comment,
                typo,
                missing_colon,
                too_long,
                had_nul,
            )
        )
    return tuple(events)
