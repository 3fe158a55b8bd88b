"""Hypothesis properties of parsing and matching (SPEC.md sections 2 and 3).

Examples are kept modest so the folder runs in well under a minute.
"""

from __future__ import annotations

import pickle
import random
from concurrent.futures import ThreadPoolExecutor
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robotskit

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PROFILES = ("rfc9309", "google", "gemini")
WEB_PROFILES = ("rfc9309", "google")
URL = "https://example.com"

# --- random robots.txt files built from whole groups ----------------------------------------

AGENT_NAMES = ["*", "alpha", "beta", "Gamma-bot"]
CALLERS = ["alpha", "BETA", "Gamma-bot", "delta"]
patterns = st.text(alphabet="/ab*$", min_size=1, max_size=6).map(lambda s: "/" + s)
rules = st.tuples(st.sampled_from(["Allow", "Disallow"]), patterns)
# Every group has at least one non-empty rule, so permuting groups never fuses two of them
# (consecutive user-agent lines share a group: SPEC 2).
groups = st.tuples(
    st.lists(st.sampled_from(AGENT_NAMES), min_size=1, max_size=2, unique=True),
    st.lists(rules, min_size=1, max_size=4),
)
files = st.lists(groups, min_size=0, max_size=4)
paths = st.lists(st.text(alphabet="/ab$", max_size=6).map(lambda s: "/" + s), min_size=1, max_size=5)


def render(
    file: list[tuple[list[str], list[tuple[str, str]]]], eol: str = "\n", comments: bool = False
) -> str:
    """The file as text with the given line ending, optionally with comments on and between lines."""
    lines: list[str] = []
    for agents, group_rules in file:
        lines += [f"User-agent: {a}" for a in agents]
        lines += [f"{kind}: {pattern}" for kind, pattern in group_rules]
        if comments:
            lines.append("# a comment line")
    if comments:
        lines = [line + "   # trailing comment" for line in lines]
    return eol.join(lines) + eol


def verdicts(text: str | bytes, profile: str, check_paths: list[str]) -> list[bool]:
    robots = robotskit.parse(text, profile)
    return [robots.allowed(URL + p, c) for p in check_paths for c in CALLERS]


@SETTINGS
@given(st.binary(max_size=2000), st.sampled_from(PROFILES))
def test_parse_never_raises_on_bytes(data: bytes, profile: str) -> None:
    """SPEC 2: any byte sequence parses, and the result answers a check."""
    robots = robotskit.parse(data, profile)
    robots.allowed(URL + "/x", "bot")
    assert robots.size == len(data)


@SETTINGS
@given(st.text(max_size=1000), st.sampled_from(PROFILES))
def test_parse_never_raises_on_text(data: str, profile: str) -> None:
    """SPEC 2: any text (including lone surrogates and control characters) parses."""
    robots = robotskit.parse(data, profile)
    robots.allowed(URL + "/x", "bot")


@SETTINGS
@given(st.binary(max_size=300), st.text(max_size=40), st.text(max_size=30))
def test_checks_never_raise(data: bytes, path: str, agent: str) -> None:
    """SPEC 2/3: any URL text and any agent string give a verdict, never an exception."""
    robots = robotskit.parse(b"User-agent: *\nDisallow: /a*b$\n" + data)
    assert isinstance(robots.allowed(path, agent), bool)


@pytest.mark.slow
@SETTINGS
@given(files, paths, st.sampled_from(PROFILES))
def test_line_endings_bom_and_comments_do_not_change_verdicts(file, check_paths, profile) -> None:  # type: ignore[no-untyped-def]
    """SPEC 2: LF, CRLF or CR endings, a UTF-8 BOM and added comments leave every verdict unchanged."""
    want = verdicts(render(file), profile, check_paths)
    variants = [
        render(file, "\r\n").encode(),
        render(file, "\r").encode(),
        b"\xef\xbb\xbf" + render(file).encode(),
        render(file, comments=True).encode(),
        render(file, "\r\n", comments=True),
    ]
    for variant in variants:
        assert verdicts(variant, profile, check_paths) == want, variant


@SETTINGS
@given(files, paths, st.sampled_from(WEB_PROFILES), st.randoms(use_true_random=False))
def test_group_order_is_irrelevant(file, check_paths, profile, rnd: random.Random) -> None:  # type: ignore[no-untyped-def]
    """SPEC 1/3: permuting whole groups changes no verdict (matching groups merge, longest match wins)."""
    want = verdicts(render(file), profile, check_paths)
    shuffled = list(file)
    rnd.shuffle(shuffled)
    assert verdicts(render(shuffled), profile, check_paths) == want


# --- the matcher against a slow reference ---------------------------------------------------


def _upper_escapes(text: str) -> str:
    """Upper-case the hex digits of every `%xx` (SPEC 1: both profiles normalise patterns so)."""
    out, i = [], 0
    hexdigits = "0123456789abcdefABCDEF"
    while i < len(text):
        if text[i] == "%" and i + 2 < len(text) and text[i + 1] in hexdigits and text[i + 2] in hexdigits:
            out.append("%" + text[i + 1 : i + 3].upper())
            i += 3
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def reference_match(pattern: str, path: str) -> bool:
    """SPEC 3, by brute force: `*` matches any run, a final `$` anchors, everything else is literal."""
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern

    @cache
    def match(i: int, j: int) -> bool:
        if i == len(body):
            return j == len(path) if anchored else True
        if body[i] == "*":
            return match(i + 1, j) or (j < len(path) and match(i, j + 1))
        return j < len(path) and path[j] == body[i] and match(i + 1, j + 1)

    return match(0, 0)


def reference_allowed(rule_list: list[tuple[str, str]], path: str) -> bool:
    """SPEC 3: the longest matching pattern wins, allow wins ties, no match allows."""
    best_len, best_allow = -1, True
    for kind, pattern in rule_list:
        if not pattern or not reference_match(pattern, path):
            continue
        allow = kind == "Allow"
        if len(pattern) > best_len or (len(pattern) == best_len and allow):
            best_len, best_allow = len(pattern), allow
    return best_allow


small_patterns = st.text(alphabet="/ab*$%", min_size=1, max_size=7)
small_rules = st.lists(
    st.tuples(st.sampled_from(["Allow", "Disallow"]), small_patterns), min_size=1, max_size=5
)
small_paths = st.text(alphabet="/ab$%", max_size=8).map(lambda s: "/" + s)


@settings(max_examples=400, deadline=None)
@given(small_rules, small_paths)
def test_fast_matcher_equals_slow_reference_google(rule_list, path) -> None:  # type: ignore[no-untyped-def]
    """SPEC 3: the google matcher equals a brute-force glob reference on a small alphabet."""
    body = "User-agent: *\n" + "".join(f"{k}: {p}\n" for k, p in rule_list)
    robots = robotskit.parse(body, "google")
    normalised = [(k, _upper_escapes(p)) for k, p in rule_list]  # SPEC 1: google upper-cases %xx in patterns
    assert robots.allowed(URL + path, "bot") == reference_allowed(normalised, path), (body, path)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["Allow", "Disallow"]), st.text(alphabet="/ab*$", min_size=1, max_size=7)),
        min_size=1,
        max_size=5,
    ),
    st.text(alphabet="/ab", max_size=8).map(lambda s: "/" + s),
)
def test_fast_matcher_equals_slow_reference_rfc9309(rule_list, path) -> None:  # type: ignore[no-untyped-def]
    """SPEC 3: the rfc9309 matcher equals the brute-force reference where no normalisation applies."""
    body = "User-agent: *\n" + "".join(f"{k}: {p}\n" for k, p in rule_list)
    robots = robotskit.parse(body, "rfc9309")
    assert robots.allowed(URL + path, "bot") == reference_allowed(rule_list, path), (body, path)


def test_reference_matcher_sanity() -> None:
    """The reference itself follows SPEC 3 on hand-checked cases (so the comparison can fail)."""
    assert reference_match("/a*b", "/axxb/c")
    assert not reference_match("/a*b$", "/axxb/c")
    assert reference_match("/a$b", "/a$b")
    assert reference_match("/a$$", "/a$")
    assert reference_allowed([("Disallow", "/a"), ("Allow", "/a*")], "/ab") is True
    assert reference_allowed([("Disallow", "/a*"), ("Allow", "/a*")], "/ab") is True
    assert reference_allowed([("Disallow", "/ab"), ("Allow", "/a")], "/ab") is False


# --- immutability: pickling and threads ----------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(files, paths, st.sampled_from(PROFILES))
def test_pickle_round_trip_keeps_verdicts(file, check_paths, profile) -> None:  # type: ignore[no-untyped-def]
    """STYLE: parsed objects are picklable; a round trip gives equal verdicts and equal groups."""
    robots = robotskit.parse(render(file), profile)
    clone = pickle.loads(pickle.dumps(robots))
    assert clone.groups == robots.groups
    assert verdicts(render(file), profile, check_paths) == [
        clone.allowed(URL + p, c) for p in check_paths for c in CALLERS
    ]


def test_parsed_object_is_shared_across_threads() -> None:
    """STYLE: one parsed object answers from 8 threads exactly as it does from one."""
    body = "User-agent: *\nDisallow: /a*b\nAllow: /a*b$\nUser-agent: alpha\nDisallow: /\nAllow: /ab\n"
    robots = robotskit.parse(body)
    work = [
        (URL + "/" + "ab"[i % 2] * (i % 7) + "b" * (i % 3), CALLERS[i % len(CALLERS)]) for i in range(2000)
    ]
    want = [robots.allowed(u, a) for u, a in work]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda job: robots.allowed(*job), work))
    assert got == want
    assert any(want) and not all(want)


@pytest.mark.slow
def test_fresh_objects_race_to_compile_and_read_lazily() -> None:
    """STYLE: threads racing on a fresh object (skeleton read, rule sets compiled mid-run) get exact verdicts."""
    groups = "".join(
        f"User-agent: bot{i}\n" + "".join(f"Disallow: /g{i}/p{j}/\nAllow: /g{i}/p{j}/ok\n" for j in range(12))
        for i in range(300)
    )
    body = ("User-agent: *\nDisallow: /private/\nAllow: /private/o%6B\n" + groups).encode()
    assert len(body) > 32_768
    paths = [
        "/g7/p3/x",
        "/g7/p3/ok",
        "/g7/p3/%6Fk",
        "/private/ok",
        "/private/x",
        "/caf%C3%A9",
        "/",
        "/g299/p11/",
    ]
    work = [(URL + paths[i % len(paths)], ("bot7", "bot299", "other")[i % 3]) for i in range(3000)]
    reference = robotskit.parse(body)
    want = [reference.decide(u, a).allowed for u, a in work]
    for _ in range(3):
        fresh = robotskit.parse(body)
        with ThreadPoolExecutor(max_workers=8) as pool:
            got = list(pool.map(lambda job, robots=fresh: robots.allowed(*job), work))
        assert got == want
    assert any(want) and not all(want)
