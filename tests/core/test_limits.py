"""Reading limits and hostile input: size cap, BOMs, line endings, NUL bytes, huge files, ReDoS shapes.

Each test proves a rule of SPEC.md section 2 (reading a file) or 3 (linear matching).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import robotskit

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
CORPUS_FILES = SHARED / "corpus" / "files"
LIMIT = 512_000
PROFILES = ("rfc9309", "google", "gemini")
URL = "https://example.com"

needs_corpus = pytest.mark.skipif(not CORPUS_FILES.is_dir(), reason="../shared/corpus missing")


def _padded(tail: bytes, total: int) -> bytes:
    """`User-agent: *` then comment lines, then `tail`, exactly `total` bytes long."""
    head = b"User-agent: *\nDisallow: /first\n"
    filler = total - len(head) - len(tail)
    assert filler >= 2
    lines = b""
    while filler > 0:
        chunk = min(filler, 1000)
        lines += b"#" + b"c" * (chunk - 2) + b"\n" if chunk >= 2 else b"\n"
        filler -= chunk if chunk >= 2 else 1
    body = head + lines + tail
    assert len(body) == total, len(body)
    return body


@pytest.mark.parametrize("profile", PROFILES)
def test_file_of_exactly_the_limit_is_read_whole(profile: str) -> None:
    """SPEC 2: a body of exactly 512,000 bytes is read whole; its last line (no newline) counts."""
    body = _padded(b"Disallow: /last", LIMIT)
    robots = robotskit.parse(body, profile)
    assert robots.size == LIMIT
    assert not robots.truncated
    assert not robots.allowed(URL + "/last", "bot")
    assert not robots.allowed(URL + "/first", "bot")


@pytest.mark.parametrize("profile", PROFILES)
def test_line_cut_by_the_limit_is_dropped(profile: str) -> None:
    """SPEC 2: over the limit, the line the 512,000th byte cuts is dropped and `truncated` is set."""
    # "Disallow: /" + "cut..." straddles the limit: a partial line would read `Disallow: /` (all!).
    body = _padded(b"Disallow: /", LIMIT) + b"cut-here\nDisallow: /after\n"
    robots = robotskit.parse(body, profile)
    assert robots.truncated
    assert robots.size == len(body)
    assert robots.allowed(URL + "/other", "bot"), "the cut line `Disallow: /` must be dropped, not read"
    assert robots.allowed(URL + "/after", "bot"), "lines after the limit are not read"
    assert not robots.allowed(URL + "/first", "bot")


@pytest.mark.parametrize("profile", PROFILES)
def test_line_ending_exactly_at_the_limit_is_kept(profile: str) -> None:
    """SPEC 2: a line whose newline is the 512,000th byte is whole and kept; what follows is dropped."""
    body = _padded(b"Disallow: /last\n", LIMIT) + b"Disallow: /after\n"
    robots = robotskit.parse(body, profile)
    assert robots.truncated
    assert not robots.allowed(URL + "/last", "bot")
    assert robots.allowed(URL + "/after", "bot")


def test_limit_can_be_raised() -> None:
    """SPEC 2: the limit is configurable upwards; a larger max_bytes reads past 500 KiB."""
    body = _padded(b"Disallow: /", LIMIT) + b"cut-here\nDisallow: /after\n"
    robots = robotskit.parse(body, max_bytes=2 * LIMIT)
    assert not robots.truncated
    assert not robots.allowed(URL + "/after", "bot")


def test_limit_never_goes_below_500_kib() -> None:
    """SPEC 2: a max_bytes below 512,000 is refused or raised to 512,000, never applied."""
    body = b"User-agent: *\n" + b"#" * 600 + b"\nDisallow: /x\n"
    try:
        robots = robotskit.parse(body, max_bytes=100)
    except ValueError:
        return
    assert not robots.truncated
    assert not robots.allowed(URL + "/x", "bot")


@pytest.mark.parametrize("bom", [b"\xef\xbb\xbf", b"\xef\xbb", b"\xef"], ids=["full", "EF-BB", "EF"])
@pytest.mark.parametrize("profile", PROFILES)
def test_partial_bom_is_skipped(bom: bytes, profile: str) -> None:
    """SPEC 2: a leading UTF-8 BOM, or its first one or two bytes alone, is skipped as Google does."""
    robots = robotskit.parse(bom + b"User-agent: *\nDisallow: /x\n", profile)
    assert not robots.allowed(URL + "/x", "bot")
    assert robots.allowed(URL + "/y", "bot")


def test_bom_tail_alone_is_not_a_bom() -> None:
    """SPEC 2: only a BOM prefix is skipped; `BB BF` without `EF` spoils the first line, as in Google."""
    robots = robotskit.parse(b"\xbb\xbfUser-agent: *\nDisallow: /x\n", "google")
    assert robots.allowed(URL + "/x", "bot")


@pytest.mark.parametrize("profile", PROFILES)
def test_cr_only_file(profile: str) -> None:
    """SPEC 2: lines end at a lone CR too; a CR-only file has one line per CR."""
    robots = robotskit.parse(b"User-agent: *\rDisallow: /x\rAllow: /x/y\r", profile)
    assert not robots.allowed(URL + "/x/z", "bot")
    assert robots.allowed(URL + "/x/y", "bot")
    assert len([ln for ln in robots.lines if ln.raw.strip()]) == 3


@pytest.mark.parametrize("profile", PROFILES)
def test_mixed_line_endings(profile: str) -> None:
    """SPEC 2: CR, LF and CRLF may be mixed; CRLF is one line end, not two."""
    robots = robotskit.parse(b"User-agent: a\r\nDisallow: /a\rUser-agent: b\nDisallow: /b\r\n", profile)
    assert not robots.allowed(URL + "/a", "a")
    assert robots.allowed(URL + "/b", "a")
    assert not robots.allowed(URL + "/b", "b")
    assert len(robots.lines) in (4, 5)  # a trailing empty line may or may not be reported


@pytest.mark.parametrize("profile", PROFILES)
def test_nul_byte_cuts_the_line(profile: str) -> None:
    """SPEC 2: a NUL ends the line's content (Google reads lines as C strings); the next line still counts."""
    robots = robotskit.parse(b"User-agent: *\nDisallow: /ab\x00cd\nDisallow: /zz\n", profile)
    assert not robots.allowed(URL + "/abxx", "bot"), "pattern is /ab, cut at the NUL"
    assert not robots.allowed(URL + "/zz", "bot")
    assert robots.allowed(URL + "/a", "bot")


def test_nul_in_user_agent_line_matches_google() -> None:
    """SPEC 2: `User-agent: *<NUL>junk` is the global agent in the google profile, as in Google's C++."""
    robots = robotskit.parse(b"User-agent: *\x00junk\nDisallow: /ab\n", "google")
    assert not robots.allowed(URL + "/ab", "bot")


@pytest.mark.parametrize("profile", PROFILES)
def test_any_nul_padding_never_raises(profile: str) -> None:
    """SPEC 2: NUL-padded junk bodies (seen in the corpus) parse and allow everything."""
    robots = robotskit.parse(b"\x00" * 10_000, profile)
    assert robots.allowed(URL + "/", "bot")


def _biggest_corpus_file() -> Path:
    return max(CORPUS_FILES.iterdir(), key=lambda p: p.stat().st_size)


@needs_corpus
@pytest.mark.parametrize("profile", PROFILES)
def test_biggest_corpus_file(profile: str) -> None:
    """SPEC 2: the 3.7 MB corpus file parses, is truncated at 500 KiB and still answers quickly."""
    path = _biggest_corpus_file()
    body = path.read_bytes()
    assert len(body) > 3_000_000
    started = time.perf_counter()
    robots = robotskit.parse(body, profile)
    parsed = time.perf_counter() - started
    assert robots.truncated
    assert robots.size == len(body)
    for p in ("/", "/index.html", "/a/b/c?d=e"):
        robots.allowed(URL + p, "Googlebot")
    elapsed = time.perf_counter() - started
    print(
        f"{path.name}: {len(body)} bytes, parse {parsed * 1000:.0f} ms, "
        f"parse+3 checks {elapsed * 1000:.0f} ms"
    )
    assert elapsed < 10


@pytest.mark.slow
@needs_corpus
def test_every_corpus_file_parses() -> None:
    """SPEC 2: parsing never raises on content: all 5,002 corpus files parse in every profile."""
    started = time.perf_counter()
    files = sorted(CORPUS_FILES.iterdir())
    assert len(files) >= 5000
    failures: list[str] = []
    for path in files:
        body = path.read_bytes()
        for profile in PROFILES:
            try:
                robots = robotskit.parse(body, profile)
                robots.allowed(URL + "/", "Googlebot")
            except Exception as exc:
                failures.append(f"{path.name} [{profile}]: {type(exc).__name__}: {exc}")
    print(f"parsed {len(files)} files x {len(PROFILES)} profiles in {time.perf_counter() - started:.1f}s")
    assert not failures, "\n".join(failures[:20])


def _timed_decisions(body: str, path: str, repeat: int = 3) -> float:
    robots = robotskit.parse(body, "rfc9309")
    started = time.perf_counter()
    for _ in range(repeat):
        robots.allowed(URL + path, "bot")
    return time.perf_counter() - started


def test_thousand_wildcard_rules_stay_fast() -> None:
    """SPEC 3: 1,000 rules `Disallow: /*a*<i>*b` against a 10,000-char path decide in milliseconds."""
    body = "User-agent: *\n" + "".join(f"Disallow: /*a*{i}*b\n" for i in range(1000))
    path = "/" + "a" * 9_999  # every rule scans the whole path and fails at the end: no `b`
    elapsed = _timed_decisions(body, path)
    print(f"1,000 wildcard rules x 10,000-char path x 3 checks: {elapsed * 1000:.1f} ms")
    assert elapsed < 0.5


def test_fifty_stars_stay_fast() -> None:
    """SPEC 3: one rule with 50 `*` against a 10,000-char path decides in milliseconds (no backtracking)."""
    body = "User-agent: *\nDisallow: /" + "a*" * 50 + "b\n"
    elapsed = _timed_decisions(body, "/" + "a" * 9_999)
    print(f"50-star rule x 10,000-char path x 3 checks: {elapsed * 1000:.1f} ms")
    assert elapsed < 0.5


def test_adversarial_verdicts_are_right() -> None:
    """SPEC 3: the fast paths still decide correctly: the 50-star rule matches when a `b` ends the path."""
    robots = robotskit.parse("User-agent: *\nDisallow: /" + "a*" * 50 + "b\n", "rfc9309")
    assert robots.allowed(URL + "/" + "a" * 9_999, "bot")
    assert not robots.allowed(URL + "/" + "a" * 9_999 + "b", "bot")
    assert robots.allowed(URL + "/" + "a" * 49 + "b", "bot")  # 50 `a`s are required
