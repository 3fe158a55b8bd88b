"""The path a rule is matched against, and the percent-normalisation both sides go through.

Owns: extracting path + params + query from a URL (Google's GetPathParamsQuery, which every
profile uses), and the two normalisations of SPEC.md section 1: the `google` escaping
(upper-case `%xx`, percent-encode bytes >= 0x80, decode nothing) and the `rfc9309` one (also
decode `%xx` of unreserved characters, so `%7E` and `~` meet). Pure functions, no I/O.

Pattern values arrive from the lexer as latin-1 text, one character per byte of the file, so a
character >= U+0080 here stands for one raw byte. URLs arrive as ordinary text and are encoded
as UTF-8 before escaping.
"""

from __future__ import annotations

import codecs
import re

_HEX = "0123456789ABCDEFabcdef"
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PCT_ESCAPES = tuple(f"%{i:02X}" for i in range(256))

# Anything the rfc9309 normalisation could change in a path: '%', non-ASCII, controls, space,
# and the two characters that are special in patterns ('*', '$'), which a path must carry
# escaped so that a pattern can only match them when it spells them `%2A` / `%24` (RFC 9309 2.2.3).
_PATH_NEEDS_WORK = re.compile(r'[^!-~]|[%*$"<>\\^`{|}]')
# The same for patterns, where '*' is a wildcard and '$' is looked at separately.
_PATTERN_NEEDS_WORK = re.compile(r'[^!-~]|[%$"<>\\^`{|}]')
# ASCII characters RFC 3986 never allows raw in a URI: any client sends them percent-encoded,
# so both sides encode them (a rule `/a<b` and a URL `/a%3Cb` name the same resource).
_NEVER_RAW = frozenset('"<>\\^`{|}')
_GOOGLE_PATTERN_NEEDS_WORK = re.compile(r"[^\x00-\x7f]|%[0-9A-Fa-f]{2}")
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")  # led by a literal: the engine scans for '%' in C
# The characters the rfc9309 pattern normalisation never changes: printable ASCII less
# `"$%<>\\^`{|}`, and the "\\n" that joins values. (A '$' that ends its value is kept too.)
_UNCHANGED_IN_PATTERNS = bytes(re.sub(rb"[^!#&-;=?-\[\]_a-z~\n]", b"", bytes(range(0x80))))
_INNER_DOLLAR_SIGN = re.compile(r"\$(?!\n|\Z)")


def patterns_need_normalising(joined: str, *, google: bool) -> bool:
    """Whether any of the pattern values joined by "\\n" would change under the profile's
    normalisation (C-level: deleting what never changes, where a regex would test each character)."""
    if not joined.isascii():
        return True
    if google:
        return "%" in joined and _ESCAPE.search(joined) is not None
    left = joined.encode("ascii").translate(None, _UNCHANGED_IN_PATTERNS)
    if not left:
        return False
    return left.strip(b"$") != b"" or _INNER_DOLLAR_SIGN.search(joined) is not None


# Fast paths for the common URL shapes, exactly equivalent to `path_params_query` where they
# match: an absolute URL whose scheme contains no '/', '?' or ';' (so its '://' is the first one
# and marks the scheme, as in Google's test), or a bare path starting with a single '/'. The
# runs are possessive: the scheme run stops at ':' and the authority run at '/', '?', ';', '#' or
# the end, so a shorter run could only leave a character no continuation accepts.
SCHEME_AUTHORITY = r"(?:[A-Za-z][A-Za-z0-9+.\-]*+://[^/?;#]*+|(?=/(?!/)))"
FAST_GOOGLE_PATH = re.compile(SCHEME_AUTHORITY + r"([/?;][^#]*)?")
# For rfc9309 the path must also need no normalisation; otherwise the match fails and the
# caller takes the slow path.
# Path characters no normalisation touches: printable ASCII less `"#$%*<>\\^`{|}` (and space).
FAST_PATH_CHARACTERS = r"!&-)+-;=?-\[\]_a-z~"
# An escape the normalisation leaves alone: upper-case hex of a byte that is not unreserved.
KEPT_ESCAPE = r"%(?:[01][0-9A-F]|2[0-9A-CF]|3[A-F]|[46]0|5[B-E]|7[B-DF]|[89A-F][0-9A-F])"
FAST_RFC_PATH = re.compile(
    # Possessive quantifiers: the path either is clean to its end or the match fails at once
    # (a nested `(?:[..]+|..)*` would backtrack exponentially on a hostile URL).
    SCHEME_AUTHORITY + r"([/?;](?:[" + FAST_PATH_CHARACTERS + r"]++|" + KEPT_ESCAPE + r")*+)?(?:#|\Z)"
)


def google_match_path(url: str) -> str:
    """The path Google matches for `url` (no normalisation): `path_params_query` with a fast path."""
    match = FAST_GOOGLE_PATH.match(url)
    if match is None:
        return path_params_query(url)
    path = match.group(1)
    if path is None:
        return "/"
    return path if path[0] == "/" else "/" + path


def rfc_match_path(url: str) -> str:
    """The normalised path rfc9309 matches for `url`: extraction plus normalisation, fast path first."""
    match = FAST_RFC_PATH.match(url)
    if match is None:
        return rfc_normalise_path(google_match_path(url))
    path = match.group(1)
    if path is None:
        return "/"
    return path if path[0] == "/" else "/" + path


def path_params_query(url: str) -> str:
    """Return the path, params and query of `url`, without the fragment.

    A port of Google's GetPathParamsQuery: a leading `//` is skipped; `://` marks the end of
    the scheme only if no `/`, `?` or `;` comes before it; the result always starts with `/`
    (an empty path, or one starting at `?` or `;`, gets a `/` in front).
    """
    if not isinstance(url, str):
        raise TypeError(f"url must be a str, not {type(url).__name__}")
    search_start = 2 if url.startswith("//") else 0
    early_path = _find_first_of(url, "/?;", search_start)
    protocol_end = url.find("://", search_start)
    if protocol_end == -1 or (early_path != -1 and early_path < protocol_end):
        protocol_end = search_start
    else:
        protocol_end += 3
    path_start = _find_first_of(url, "/?;", protocol_end)
    if path_start == -1:
        return "/"
    hash_pos = url.find("#", search_start)
    if hash_pos != -1 and hash_pos < path_start:
        return "/"
    path_end = len(url) if hash_pos == -1 else hash_pos
    if url[path_start] != "/":
        return "/" + url[path_start:path_end]
    return url[path_start:path_end]


def _find_first_of(text: str, chars: str, start: int) -> int:
    best = -1
    for char in chars:
        index = text.find(char, start)
        if index != -1 and (best == -1 or index < best):
            best = index
    return best


def google_escape_pattern(value: str) -> str:
    """Google's MaybeEscapePattern on a latin-1 value: `%xx` upper-cased, bytes >= 0x80 escaped."""
    if _GOOGLE_PATTERN_NEEDS_WORK.search(value) is None:
        return value
    out: list[str] = []
    i = 0
    n = len(value)
    while i < n:
        char = value[i]
        if char == "%" and i + 2 < n and value[i + 1] in _HEX and value[i + 2] in _HEX:
            out.append("%" + value[i + 1 : i + 3].upper())
            i += 3
            continue
        code = ord(char)
        out.append(_PCT_ESCAPES[code] if code >= 0x80 else char)
        i += 1
    return "".join(out)


_PERCENT_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
# Characters that are always percent-encoded: bytes >= 0x80 (as latin-1 characters), controls,
# space, DEL and the characters RFC 3986 never allows raw. Paths also escape '*' and '$'.
_ALWAYS_ENCODED = {code: _PCT_ESCAPES[code] for code in (*range(0x21), 0x7F, *range(0x80, 0x100))}
_ALWAYS_ENCODED.update({ord(char): _PCT_ESCAPES[ord(char)] for char in _NEVER_RAW})


def _translation(changes: dict[int, str]) -> list[str]:
    """`changes` as a `str.translate` table indexed by code (0-255; a higher one raises the
    IndexError that leaves it as it is, as a dict's KeyError does). A list is looked up faster
    than a dict, and no lookup of an unchanged character raises: 62,000 characters, half of
    them non-ASCII, took 2.5 against 4.3 ms."""
    return [changes.get(code, chr(code)) for code in range(0x100)]


_PATH_CHANGES = {**_ALWAYS_ENCODED, ord("*"): "%2A", ord("$"): "%24"}
_PATTERN_CHANGES = {**_ALWAYS_ENCODED, ord("$"): "%24"}
_PATH_TABLE = _translation(_PATH_CHANGES)
_PATTERN_TABLE = _translation(_PATTERN_CHANGES)


def _unescape_unreserved(match: re.Match[str]) -> str:
    """`%7e` -> `~` (unreserved characters are equal to their escapes), else upper-case hex."""
    decoded = chr(int(match.group(1), 16))
    return decoded if decoded in _UNRESERVED else "%" + match.group(1).upper()


def _rfc_normalise(text: str, *, escape_specials: bool, raw_bytes: bool) -> str:
    """The rfc9309 normalisation of SPEC.md 1, shared by paths and patterns.

    `raw_bytes`: characters >= U+0080 stand for single bytes (pattern values from the file);
    otherwise they are code points to encode as UTF-8 (URLs from callers).
    `escape_specials`: encode '*' and '$' (paths); in patterns '*' is a wildcard and only a
    final '$' is an anchor, so a '$' elsewhere is escaped to stay literal.
    """
    if not raw_bytes and not text.isascii():
        text = text.encode("utf-8", "surrogatepass").decode("latin-1")
    if "%" in text:
        text = _PERCENT_ESCAPE.sub(_unescape_unreserved, text)
    if escape_specials:
        return text.translate(_PATH_TABLE)
    if text.endswith("$"):
        return text[:-1].translate(_PATTERN_TABLE) + "$"
    return text.translate(_PATTERN_TABLE)


def rfc_normalise_path(path: str) -> str:
    """Normalise a URL path for the rfc9309 and gemini profiles (SPEC.md 1).

    One left-to-right pass of `_PATH_TOKEN` does what `_rfc_normalise` does in two (escapes,
    then `translate`), calling back only for the characters that change; a string that needs
    nothing comes back as the same object. It also normalises a whole URL correctly: it never
    creates or removes the characters that delimit scheme, authority, path and fragment.

    A path that is not ASCII changes at every byte of each non-ASCII character, a call back
    each: it takes the two passes instead, both in C (a 5,000-character path of non-ASCII
    text: 1.4-1.8 ms -> 0.3 ms).
    """
    if not path.isascii():
        return _rfc_normalise(path, escape_specials=True, raw_bytes=False)
    return _PATH_TOKEN.sub(_normalised_token, path)


# Any character the path table encodes, or '%' with the two hex digits of an escape when they
# follow: one character class first, so the regex engine scans for it in a tight loop. A '%'
# that starts no escape comes back unchanged, as `_PERCENT_ESCAPE.sub` leaves it.
_PATH_TOKEN = re.compile(r'[\x00-\x20\x7f-\xff"<>\\^`{|}*$%](?:(?<=%)[0-9A-Fa-f]{2})?')
# Every `%xx` spelling -> its rfc9309 form: the unreserved character, or the escape in upper case.
_ESCAPE_FORMS = {
    "%" + high + low: (
        chr(int(high + low, 16)) if chr(int(high + low, 16)) in _UNRESERVED else "%" + (high + low).upper()
    )
    for high in _HEX
    for low in _HEX
}
_PATH_REPLACEMENTS: dict[str, str] = {chr(code): escape for code, escape in _PATH_CHANGES.items()}
_PATH_REPLACEMENTS["%"] = "%"
_PATH_REPLACEMENTS.update(_ESCAPE_FORMS)


def _normalised_token(match: re.Match[str]) -> str:
    return _PATH_REPLACEMENTS[match[0]]


def rfc_decode_escapes(text: str) -> str:
    """The escape step of the rfc9309 normalisation alone: `%7e` -> `~`, `%c3` -> `%C3`.

    The full normalisation of t is this followed by encoding the characters the path table
    encodes (the two steps commute with encoding non-ASCII text as UTF-8). Only the escapes that
    change are matched, which cannot shift the others: an escape's hex digits never start one.
    Text with nothing to change comes back as the same object after one scan for '%'. This is
    the cheap repair for URLs that spell letters as escapes, before `_url_check` judges them
    (which accepts only upper-case kept escapes, and raw characters only where the rule set
    cannot tell them from their escapes).
    """
    return _CHANGING_ESCAPE.sub(_normalised_token, text)


# An escape the normalisation changes: of an unreserved byte (2D 2E 30-39 41-5A 5F 61-7A 7E),
# or written with a lower-case hex digit. `re.sub` finds the same escapes a left-to-right scan
# would: an escape holds no '%', so escapes never overlap.
_CHANGING_ESCAPE = re.compile(
    r"%(?:[0-9A-Fa-f][a-f]|[a-f][0-9A-F]|2[DE]|3[0-9]|[46][1-9A-F]|5[0-9AF]|7[0-9AE])"
)


def rfc_slow_match_path(url: str) -> str:
    """`rfc_match_path` for a URL known to miss its fast shapes: skips the fast attempt."""
    return rfc_normalise_path(google_match_path(url))


def rfc_normalise_pattern(value: str) -> str:
    """Normalise a pattern (latin-1 value from the file) for the rfc9309 and gemini profiles."""
    if _PATTERN_NEEDS_WORK.search(value) is None:
        return value
    return _rfc_normalise(value, escape_specials=False, raw_bytes=True)


# Normalising a whole group's pattern values at once, joined by "\n" (values never hold one):
# a few C-level passes over one string instead of a few Python calls per value. Equal to the
# per-value functions above, value by value (tests/core/test_first_check_equivalence.py).
#
# "\n" is no hex digit, so no escape spans two values. Only the escapes a normalisation changes
# are matched (`_CHANGING_ESCAPE`): most files spell theirs in upper case already.
_LOWER_CASE_ESCAPE = re.compile(r"(%(?:[0-9A-Fa-f][a-f]|[a-f][0-9A-F]))")
# The same as `_CHANGING_ESCAPE`, captured: `re.split` puts each escape at an odd index, where
# C-level `map`s rewrite them all (a `re.sub` callback would be a Python call per escape).
_CHANGING_ESCAPES = re.compile("(" + _CHANGING_ESCAPE.pattern + ")")
# Runs of non-ASCII characters (bytes >= 0x80) are percent-encoded by the ASCII codec with this
# error handler: the codec scans in C and calls it once per run, where `str.translate` would
# look each character up in a dict (and a regex split would scan slower than the codec).
_PERCENT_ENCODE = "robotskit.percent-encode"


def _percent_encode_run(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    run = error.object[error.start : error.end].encode("latin-1")  # latin-1 text: one char per byte
    return "%" + run.hex("%").upper(), error.end


codecs.register_error(_PERCENT_ENCODE, _percent_encode_run)
# Text with more non-ASCII bytes than this is encoded by one `str.translate` instead: the codec
# calls back once per run, and a hostile file's short runs between ASCII characters made that a
# Python call per byte or two (1,000 rules of mixed non-ASCII: 13,000 calls, 7 ms a first check).
_MANY_HIGH_BYTES = 1024
_HIGH_BYTE_ESCAPES = _translation({code: f"%{code:02X}" for code in range(0x80, 0x100)})
# The ASCII characters the rfc9309 pattern table leaves as they are, and the "\n" joins: deleting
# them from the text in C leaves the characters still to encode.
_PATTERN_KEEPS = bytes(code for code in range(0x80) if code not in _PATTERN_CHANGES) + b"\n"
# A '$' that does not end its value is literal.
_INNER_DOLLAR = re.compile(r"\$(?!\n|\Z)")


def rfc_normalise_patterns(joined: str) -> str:
    """`rfc_normalise_pattern` of each of the "\\n"-joined values, joined again.

    The passes may run one after the other: each one's output (unreserved characters, `%XX`)
    holds nothing a later pass changes, as in the single `translate` of the per-value function.
    """
    if "%" in joined:
        pieces = _CHANGING_ESCAPES.split(joined)
        if len(pieces) > 1:
            pieces[1::2] = map(_PATH_REPLACEMENTS.__getitem__, pieces[1::2])
            joined = "".join(pieces)
    if not joined.isascii():
        encoded = _percent_encoded(joined)
        if encoded is None:  # a character beyond latin-1: no byte, left as it is
            return "\n".join(map(rfc_normalise_pattern, joined.split("\n")))
        joined = encoded
    left = joined.encode("ascii").translate(None, _PATTERN_KEEPS)
    if left:
        for code in set(left):
            if code != 0x24:  # '$'
                joined = joined.replace(chr(code), _PCT_ESCAPES[code])
        if 0x24 in left:
            joined = _INNER_DOLLAR.sub("%24", joined)
    return joined


def google_escape_patterns(joined: str) -> str:
    """`google_escape_pattern` of each of the "\\n"-joined values, joined again."""
    if "%" in joined:
        pieces = _LOWER_CASE_ESCAPE.split(joined)
        if len(pieces) > 1:
            pieces[1::2] = map(str.upper, pieces[1::2])
            joined = "".join(pieces)
    if not joined.isascii():
        encoded = _percent_encoded(joined)
        if encoded is None:  # a character beyond latin-1: no byte, left as it is
            return "\n".join(map(google_escape_pattern, joined.split("\n")))
        joined = encoded
    return joined


def _percent_encoded(joined: str) -> str | None:
    """Latin-1 text (not ASCII) with each character >= U+0080 as the `%XX` escape of its byte, or
    None when a character is beyond latin-1 (no byte). Few such bytes: the ASCII codec with
    `_PERCENT_ENCODE`, which scans in C and calls back once per run; many: one `translate`
    (the runs of a hostile file are a byte or two between ASCII characters: a call each)."""
    # (counted only in a text long enough to hold that many: most groups are short, and two more
    # passes over each cost the corpus's parse + first check 1.6 µs a file on average)
    if (
        len(joined) > 4 * _MANY_HIGH_BYTES
        and len(joined) - len(joined.encode("ascii", "ignore")) > _MANY_HIGH_BYTES
    ):
        # (a character beyond latin-1 is left as it is, so the result is not ASCII: tested in
        # C, where `max` over the text took 1.8 ms for 62,000 characters)
        encoded = joined.translate(_HIGH_BYTE_ESCAPES)
        return encoded if encoded.isascii() else None
    try:
        return joined.encode("ascii", _PERCENT_ENCODE).decode("ascii")
    except UnicodeEncodeError:
        return None


def scheme_of(url: str) -> str:
    """The lower-cased scheme of an absolute URL, or "" for a bare path."""
    colon = url.find("://")
    if colon <= 0:
        return ""
    scheme = url[:colon]
    if not scheme.isascii() or not scheme.replace("+", "").replace("-", "").replace(".", "").isalnum():
        return ""
    return scheme.lower()
