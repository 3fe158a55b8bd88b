"""The speed tricks equal their slow references: tokenizer, URL paths, rule index, checkers."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robotskit
from robotskit.core import checker as _checker
from robotskit.core.lexer import cap_line, lex_line, prepare, rows, split_lines
from robotskit.core.model import LineKind, Rule, RuleKind
from robotskit.core.pattern import RuleSet, pattern_matches
from robotskit.core.url import google_match_path, path_params_query, rfc_match_path, rfc_normalise_path
from tests.conftest import CORPUS, require_shared


def _rows_line_by_line(text: str) -> list[tuple[str, str, str]]:
    """The reference: lex_line on every physical line, as Google reads them."""
    found = []
    for physical in text.split("\n"):
        content = cap_line(physical)[0]
        lexed = lex_line(content)
        if lexed is None:
            found.append(("", "", ""))
        elif lexed[0] is LineKind.INVALID or lexed[7]:
            found.append(("", "", content.partition("#")[0].strip(" \t\n\v\f\r")))
        else:
            found.append((lexed[1], lexed[2], ""))
    return found


def _normalised_text(data: bytes) -> str:
    body, _, _ = prepare(data)
    return "\n".join(split_lines(body.decode("latin-1")))


@pytest.mark.slow
def test_tokenizer_equals_line_by_line_on_corpus() -> None:
    """The whole-text regex tokenizer gives the per-line lexer's rows on every corpus file."""
    require_shared()
    files = sorted((CORPUS / "files").glob("*.txt"))
    assert len(files) > 5000
    mismatched = [
        path.name
        for path in files
        if rows(text := _normalised_text(path.read_bytes())) != _rows_line_by_line(text)
    ]
    assert mismatched == []


_LINE_PIECES = st.sampled_from(
    [
        "User-agent",
        "Disallow",
        "allow",
        "user agent",
        " ",
        "\t",
        ":",
        "#",
        "\n",
        "/",
        "*",
        "$",
        "a",
        "x y",
        "é",
        "\x0b",
        "\x00",
        "::",
        "# c\n",
    ]
)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(st.lists(_LINE_PIECES, max_size=20).map("".join))
def test_tokenizer_equals_line_by_line_on_random_text(text: str) -> None:
    """Property: the fast tokenizer and the per-line lexer agree on any text."""
    assert rows(text) == _rows_line_by_line(text)


_URL_PIECES = st.sampled_from(
    ["/", "?", ";", "#", ":", "//", "://", "%", "%2f", "*", "$", "a", "é", " ", "<", "http"]
)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(
    st.lists(_URL_PIECES, max_size=12).map("".join),
    st.sampled_from(["", "http://h", "https://h:1", "gemini://g"]),
)
def test_url_fast_paths_equal_reference(tail: str, head: str) -> None:
    """Property: the one-regex URL paths equal Google's GetPathParamsQuery (+ rfc normalisation)."""
    url = head + tail
    assert google_match_path(url) == path_params_query(url)
    assert rfc_match_path(url) == rfc_normalise_path(path_params_query(url))


_PATTERN = st.lists(st.sampled_from(["/", "a", "b", "*", "$", "ab"]), min_size=1, max_size=6).map(
    lambda p: "/" + "".join(p)
)
_PATH = st.lists(st.sampled_from(["/", "a", "b", "$"]), max_size=10).map(lambda p: "/" + "".join(p))


def _star_group(patterns: list[tuple[str, bool]]) -> str:
    """A file with one `*` group of (pattern, allow?) rules."""
    return "User-agent: *\n" + "".join(f"{'Allow' if a else 'Disallow'}: {p}\n" for p, a in patterns)


def _reference_best(rules: list[Rule], path: str) -> bool:
    """Slow reference: scan every rule; longest pattern wins; allow wins ties (SPEC 3)."""
    best: tuple[int, bool] | None = None
    for rule in rules:
        if rule.pattern and pattern_matches(rule.pattern, path):
            key = (len(rule.pattern), rule.kind is RuleKind.ALLOW)
            best = key if best is None or key > best else best
    return best is None or best[1]


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(_PATTERN, st.booleans()), max_size=12), st.lists(_PATH, min_size=1, max_size=5))
def test_rule_index_equals_scan(patterns: list[tuple[str, bool]], paths: list[str]) -> None:
    """Property: the RuleSet (indexed, and before indexing) decides as a scan of every rule does."""
    from unittest import mock

    from robotskit.core import pattern as _pattern

    rules = [
        Rule(i + 1, RuleKind.ALLOW if allow else RuleKind.DISALLOW, p)
        for i, (p, allow) in enumerate(patterns)
    ]
    for index_after in (1, 10**9):  # the index from the first check, and the plain scan
        with mock.patch.object(_pattern, "INDEX_AFTER", index_after):
            index = RuleSet(rules)
            for path in paths:
                best = index.best(path)
                assert (best is None or best.kind is RuleKind.ALLOW) is _reference_best(rules, path)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_PATTERN, st.booleans()), max_size=8), _PATH)
def test_checker_equals_decide(patterns: list[tuple[str, bool]], path: str) -> None:
    """Property: the compiled fast check (`allowed`) equals `decide` in every profile."""
    body = _star_group(patterns)
    for profile in ("rfc9309", "google", "gemini"):
        robots = robotskit.parse(body, profile)
        assert robots.allowed(path, "Bot") is robots.decide(path, "Bot").allowed


def test_public_api_sorted_and_complete() -> None:
    """The public API is flat, explicit and sorted (STYLE.md)."""
    names = robotskit.__all__
    assert len(names) == len(set(names))
    for name in names:
        assert hasattr(robotskit, name), name


def test_core_imports_no_third_party() -> None:
    """`import robotskit` and a parse + check load no third-party package (httpx, rich, redis)."""
    code = (
        "import sys, robotskit; r = robotskit.parse(b'User-agent: *\\nDisallow: /x\\n'); r.allowed('/x', 'a');"
        "print(sorted(m for m in ('httpx', 'rich', 'redis', 'h11', 'anyio') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


_HEX = "0123456789ABCDEFabcdef"
_UNRESERVED_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _reference_normalise(text: str, *, escape_specials: bool, raw_bytes: bool) -> str:
    """Slow reference of SPEC 1's rfc9309 normalisation, one character at a time."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "%" and i + 2 < n and text[i + 1] in _HEX and text[i + 2] in _HEX:
            decoded = chr(int(text[i + 1 : i + 3], 16))
            out.append(decoded if decoded in _UNRESERVED_CHARS else "%" + text[i + 1 : i + 3].upper())
            i += 3
            continue
        code = ord(char)
        if code >= 0x80:
            octets = bytes([code]) if raw_bytes else char.encode("utf-8", "surrogatepass")
            out.extend(f"%{b:02X}" for b in octets)
        elif code <= 0x20 or code == 0x7F or char in '"<>\\^`{|}':
            out.append(f"%{code:02X}")
        elif char == "*":
            out.append("%2A" if escape_specials else "*")
        elif char == "$":
            out.append("%24" if escape_specials or i != n - 1 else "$")
        else:
            out.append(char)
        i += 1
    return "".join(out)


_NORM_PIECES = st.sampled_from(
    [
        "%",
        "%2f",
        "%7e",
        "%41",
        "%zz",
        "%C3%A9",
        "*",
        "$",
        "/",
        "a",
        "é",
        "\u2603",
        " ",
        "<",
        "\x01",
        "~",
        "%2",
        "\udc80",
        "\U0001d11e",
    ]
)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(st.lists(_NORM_PIECES, max_size=10).map("".join))
def test_rfc_normalisation_equals_reference(text: str) -> None:
    """Property: the table-driven rfc9309 normalisation equals the one-character-at-a-time reference."""
    from robotskit.core.url import rfc_normalise_path, rfc_normalise_pattern

    assert rfc_normalise_path(text) == _reference_normalise(text, escape_specials=True, raw_bytes=False)
    raw = text.encode("utf-8", "surrogatepass").decode("latin-1")
    assert rfc_normalise_pattern(raw) == _reference_normalise(raw, escape_specials=False, raw_bytes=True)


@pytest.mark.slow
@settings(max_examples=800, deadline=None)
@given(st.lists(st.tuples(_PATTERN, st.booleans()), max_size=12), st.lists(_PATH, min_size=1, max_size=5))
def test_rule_index_with_character_filter_equals_scan(
    patterns: list[tuple[str, bool]], paths: list[str]
) -> None:
    """Property: bucket dispatch and the long-path character prefilter never change a verdict.

    Both only switch on for large rule sets and long paths; here they are forced on for small ones.
    """
    from unittest import mock

    from robotskit.core import pattern as _pattern

    rules = [
        Rule(i + 1, RuleKind.ALLOW if allow else RuleKind.DISALLOW, p)
        for i, (p, allow) in enumerate(patterns)
    ]
    for long_path in (0, 10_000):
        with (
            mock.patch.object(_pattern, "LONG_PATH", long_path),
            mock.patch.object(_pattern, "MANY_WILDCARDS", 0),
            mock.patch.object(_pattern, "SMALL_RULE_SET", 0),
            mock.patch.object(_pattern, "INDEX_AFTER", 1),
        ):
            index = RuleSet(rules)
            for path in paths:
                best = index.best(path)
                assert (best is None or best.kind is RuleKind.ALLOW) is _reference_best(rules, path)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.lists(_NORM_PIECES, max_size=5).map("".join), min_size=1, max_size=4))
def test_batch_normalisation_check_never_misses(values: list[str]) -> None:
    """Property: when the one-search group test says "no pattern changes", none does (both families)."""
    from robotskit.core.url import google_escape_pattern, patterns_need_normalising, rfc_normalise_pattern

    raw = [value.encode("utf-8", "surrogatepass").decode("latin-1") for value in values]
    joined = "\n".join(raw)
    for google, normalise in ((False, rfc_normalise_pattern), (True, google_escape_pattern)):
        if not patterns_need_normalising(joined, google=google):
            assert all(normalise(value) == value for value in raw)


_URL_TAILS = st.lists(
    st.sampled_from(
        ["/", "a", "b", "$", "*", "#", "?", ";", "%41", "%2F", "%c3", "é", " ", "robots.txt", "ab"]
    ),
    max_size=8,
).map("".join)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.tuples(_PATTERN, st.booleans()), max_size=10),
    st.lists(
        st.tuples(st.sampled_from(["", "https://h", "http://h:8", "//h", "gemini://g"]), _URL_TAILS),
        max_size=6,
    ),
)
def test_compiled_url_check_equals_decide(
    patterns: list[tuple[str, bool]], urls: list[tuple[str, str]]
) -> None:
    """Property: wherever the one-regex compiled check answers, it answers as `decide` does."""
    from robotskit.core.url_check import compile_url_check
    from robotskit.profiles import PROFILES

    body = _star_group(patterns)
    for name, host in (("rfc9309", ""), ("rfc9309", "https://h"), ("google", "http://h:8"), ("gemini", "")):
        robots = robotskit.parse(body, name)
        compiled = compile_url_check(robots.groups[0].rules if robots.groups else (), PROFILES[name], host)
        assert compiled is not None
        for head, tail in urls:
            url = head + "/" + tail if head else "/" + tail
            expected = robots.decide(url, "Bot")
            for matcher in (compiled.url, compiled.url_escaped):
                hit = matcher(url)
                if hit is not None:
                    assert compiled.verdicts[hit.lastindex] is expected.allowed, (name, url)
            # the path matcher answers for every extracted and normalised path
            path_hit = compiled.path(expected.path)
            assert path_hit is not None, (name, url)
            assert compiled.verdicts[path_hit.lastindex] is expected.allowed, (name, url, expected.path)


def test_hot_rule_set_uses_the_compiled_check() -> None:
    """After enough checks the compiled URL regex answers, with the same verdicts as before."""

    robots = robotskit.parse(b"User-agent: *\nDisallow: /private/\nAllow: /private/ok\nDisallow: /*.pdf$\n")
    urls = [
        "https://h/private/x",
        "https://h/private/ok",
        "https://h/a.pdf",
        "https://h/a.pdf?x",
        "/robots.txt",
    ]
    expected = [robots.decide(url, "Bot").allowed for url in urls]
    for _ in range(_checker.COMPILE_AFTER + 1):
        assert [robots.allowed(url, "Bot") for url in urls] == expected
    check = robots._checkers[("rfc9309", "Bot")]
    assert check.verdicts, "the compiled check was never built"
    assert all(check.url_match(url) is not None for url in urls), "the compiled check does not answer"
    # past the compiled regex (a path to normalise, a long URL): the general path, same verdicts
    odd = ["https://h/priv%61te/x", "https://h/private/o%6B", "https://h/a%2epdf", "https://h/" + "x" * 3000]
    assert [robots.allowed(url, "Bot") for url in odd] == [robots.decide(url, "Bot").allowed for url in odd]
    assert all(check.url_match(url) is None for url in odd)


# Pieces chosen to meet at escape boundaries: hex digits a pattern could read inside `%HH`,
# characters the normalisation encodes, escapes of unreserved and of reserved bytes.
_RAW_PATTERN_PIECES = st.sampled_from(
    ["/", "a", "A", "C", "3", "9", "C3", "A9", "%", "%41", "%C3", "%c3", "é", "~", "*", "$", " ", '"', "x"]
)
# (Escapes to decode, like `%41`, always miss the URL regex: the other property covers them.)
_RAW_URL_PIECES = st.sampled_from(
    ["/", "a", "A", "C3", "A9", "3", "é", "%C3%A9", "%2A", "*", "$", " ", "<", "x", "#"]
)


# Without '%' and '$' (which make a set unsafe at once), so the hex-digit condition gets tested.
# Segments after a `*` that read the hex digits of the escapes of `é` (%C3%A9), ' ' (%20), '<' (%3C), '*' (%2A).
_HEXY_PATTERN_PIECES = st.sampled_from(
    ["/", "a", "x", "*", "*C3", "*A9", "*3", "*9", "*20", "*3C", "*2A", "C3"]
)


def _pattern_sets(pieces: st.SearchStrategy[str]) -> st.SearchStrategy[list[tuple[str, bool]]]:
    pattern = st.lists(pieces, max_size=4).map(lambda p: "/" + "".join(p))
    return st.lists(st.tuples(pattern, st.booleans()), max_size=6)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(
    st.one_of(_pattern_sets(_RAW_PATTERN_PIECES), _pattern_sets(_HEXY_PATTERN_PIECES)),
    st.lists(st.lists(_RAW_URL_PIECES, max_size=7).map(lambda p: "https://h/" + "".join(p)), max_size=6),
)
def test_compiled_check_with_raw_characters_equals_decide(
    patterns: list[tuple[str, bool]], urls: list[str]
) -> None:
    """Property: where a rule set lets raw `é`, `*`, space... through the URL regex, verdicts equal `decide`."""
    from robotskit.core.url_check import compile_url_check
    from robotskit.profiles import PROFILES

    body = _star_group(patterns)
    robots = robotskit.parse(body, "rfc9309")
    compiled = compile_url_check(
        robots.groups[0].rules if robots.groups else (), PROFILES["rfc9309"], "https://h"
    )
    assert compiled is not None
    for url in urls:
        for matcher in (compiled.url, compiled.url_escaped):
            hit = matcher(url)
            if hit is not None:
                assert compiled.verdicts[hit.lastindex] is robots.decide(url, "Bot").allowed, url


def test_raw_characters_reach_the_compiled_check_only_when_safe() -> None:
    """A raw `é` takes the one-regex path unless a pattern could read the hex digits of its escape."""
    from robotskit.core.url_check import compile_url_check
    from robotskit.profiles import PROFILES

    rfc = PROFILES["rfc9309"]
    safe = robotskit.parse("User-agent: *\nDisallow: /caf\nDisallow: /*.pdf$\n", "rfc9309")
    unsafe = robotskit.parse("User-agent: *\nDisallow: /*A9\n", "rfc9309")
    escaped = robotskit.parse("User-agent: *\nDisallow: /caf%C3%A9\n", "rfc9309")
    url = "https://h/café"
    for robots, answers in ((safe, True), (unsafe, False), (escaped, False)):
        compiled = compile_url_check(robots.groups[0].rules, rfc)
        assert compiled is not None
        assert (compiled.url(url) is not None) is answers
        assert (compiled.url_escaped(url) is not None) is answers
        assert robots.allowed(url, "Bot") is robots.decide(url, "Bot").allowed
    assert not unsafe.allowed(url, "Bot")  # /caf%C3%A9 contains A9: the raw path must not decide


_ESCAPE_URL_PIECES = st.sampled_from(
    [
        "/",
        "a",
        "A",
        "7",
        "f",
        "F",
        "%",
        "%%",
        "%4",
        "%41",
        "%61",
        "%7e",
        "%7E",
        "%37",
        "%2f",
        "%C3%A9",
        "é",
        " ",
        "*",
    ]
)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(
    st.one_of(_pattern_sets(_RAW_PATTERN_PIECES), _pattern_sets(_HEXY_PATTERN_PIECES)),
    st.lists(st.lists(_ESCAPE_URL_PIECES, max_size=8).map(lambda p: "https://h/" + "".join(p)), max_size=8),
)
def test_hot_check_after_escape_repair_equals_decide(
    patterns: list[tuple[str, bool]], urls: list[str]
) -> None:
    """Property: a compiled (hot) check answers every URL as `decide` does, escapes like `%%37f` included."""
    body = _star_group(patterns)
    robots = robotskit.parse(body)
    for _ in range(_checker.COMPILE_AFTER):
        robots.allowed("https://h/warm-up", "Bot")
    assert [robots.allowed(url, "Bot") for url in urls] == [robots.decide(url, "Bot").allowed for url in urls]


def test_a_rule_of_many_stars_keeps_its_set_uncompiled() -> None:
    """A set holding a rule of more than MAX_RULE_STARS `*` is never compiled into the URL regex
    (its compile would stall one check for about a millisecond and speed nothing up); a rule of
    that many is, and verdicts are the same either way."""
    from robotskit.core.url_check import MAX_RULE_STARS, compile_url_check
    from robotskit.profiles import PROFILES

    rfc = PROFILES["rfc9309"]
    for stars, compiled in ((MAX_RULE_STARS, True), (MAX_RULE_STARS + 1, False)):
        body = "User-agent: *\nDisallow: /" + "*a" * stars + "b\n"
        robots = robotskit.parse(body, "rfc9309")
        assert (compile_url_check(robots.groups[0].rules, rfc, "https://h") is not None) is compiled
        fresh = robotskit.parse(body, "rfc9309")
        for i in range(600):  # past COMPILE_AFTER
            path = "/" + "a" * (stars + i % 3) + ("b" if i % 2 else "")
            assert fresh.allowed(f"https://h{path}?{i}", "Bot") is robots.decide(path, "Bot").allowed
