"""The linter on crafted files: each vector lists every (id, line) it must report, no more."""

from __future__ import annotations

import re
import time
from itertools import product
from pathlib import Path

import pytest

import robotskit
from robotskit.errors import UnknownProfile
from robotskit.lint import CODES, lint, match_end

from .conftest import EXAMPLE, REPO

# (id, body, profile, content_type, expected {(code, line)})
VECTORS: list[tuple[str, bytes, str | None, str | None, set[tuple[str, int]]]] = [
    (
        "clean",
        b"User-agent: *\nDisallow: /private/\nAllow: /private/ok\nSitemap: https://e.com/s.xml\n",
        None,
        None,
        set(),
    ),
    ("bom", b"\xef\xbb\xbfUser-agent: *\nDisallow: /x\n", None, None, {("RK101", 1)}),
    ("partial-bom", b"\xef\xbbUser-agent: *\nDisallow: /x\n", None, None, {("RK101", 1)}),
    ("invalid-utf8", b"User-agent: *\nDisallow: /\xff\xfe\n", None, None, {("RK102", 2)}),
    ("line-too-long", b"User-agent: *\nDisallow: /" + b"a" * 17_000 + b"\n", None, None, {("RK103", 2)}),
    ("nul-byte", b"User-agent: *\nDisallow: /a\x00b\n", None, None, {("RK105", 2)}),
    ("missing-colon", b"User-agent *\nDisallow /x\n", None, None, {("RK110", 1), ("RK110", 2)}),
    ("typo", b"useragent: *\ndisalow: /x\n", None, None, {("RK111", 1), ("RK111", 2)}),
    ("not-key-value", b"User-agent: *\nthis is not a line\n", None, None, {("RK112", 2)}),
    (
        "unknown-directive",
        b"User-agent: *\nDisallow: /x\nNoindx: /y\nFoo: bar\n",
        None,
        None,
        {("RK201", 3), ("RK201", 4)},
    ),
    (
        "unsupported",
        b"User-agent: *\nNoindex: /x\nHost: example.com\nClean-param: ref /\nCrawl-delay: 5\n",
        None,
        None,
        {("RK202", 2), ("RK202", 3), ("RK202", 4)},
    ),
    ("crawl-delay-google", b"User-agent: *\nCrawl-delay: 5\nDisallow: /x\n", "google", None, {("RK202", 2)}),
    ("crawl-delay-rfc", b"User-agent: *\nCrawl-delay: 5\nDisallow: /x\n", "rfc9309", None, set()),
    ("rule-before-agent", b"Disallow: /x\nUser-agent: *\nDisallow: /y\n", None, None, {("RK120", 1)}),
    (
        "user-agents",
        b"User-agent: AB42bot\nDisallow: /a\n\nUser-agent: Googlebot*\nDisallow: /b\n\n"
        b"User-agent: Mozilla/5.0 (compatible; Foo/1.0)\nDisallow: /c\n\nUser-agent: 1234\nDisallow: /d\n\n"
        b"User-agent:\nDisallow: /e\n\nUser-agent: *bot\nDisallow: /f\n",
        None,
        None,
        {("RK203", 1), ("RK122", 4), ("RK204", 4), ("RK123", 7), ("RK203", 10), ("RK121", 13), ("RK121", 16)},
    ),
    (
        "non-ascii-token-read-as-the-matcher-reads-it",
        "User-agent: Bücherbot\nDisallow: /a\n".encode(),
        "rfc9309",
        None,
        {("RK203", 1)},
    ),
    (
        "lenient-crawl-delay-is-described-not-rejected",
        b"User-agent: *\nCrawl-delay: 10 seconds\nCrawl-delay: 0100-0800\nCrawl_delay: soon\n"
        b"Request-rate: 1/5s 0100-0800\nRequest-rate: often\n",
        None,
        None,
        {("RK133", 2), ("RK133", 3), ("RK111", 4), ("RK130", 4), ("RK131", 6)},
    ),
    (
        "absolute-url-rule",
        b"User-agent: *\nDisallow: https://example.com/private?a\n",
        None,
        None,
        {("RK210", 2)},
    ),
    (
        "patterns",
        b"User-agent: *\nDisallow: private\nDisallow: /a$b\nDisallow: /ok$\n",
        None,
        None,
        {("RK210", 2), ("RK211", 3)},
    ),
    (
        "rule-pairs",
        b"User-agent: *\nDisallow: /a\nDisallow: /a\nAllow: /b\nAllow: /b*\nDisallow: /c\nAllow: /c*\n"
        b"Allow: /d\nDisallow: /d\n",
        None,
        None,
        {("RK301", 3), ("RK302", 4), ("RK303", 6), ("RK304", 9)},
    ),
    ("wildcard-tie", b"User-agent: *\nDisallow: /shop*\nAllow: /shop$\n", None, None, {("RK304", 2)}),
    ("empty-disallow-is-no-rule", b"User-agent: *\nDisallow:\nAllow: /\n", None, None, set()),
    ("no-tie-on-contrived-paths", b"User-agent: *\nDisallow: /*.ps$\nAllow: /watl/\n", None, None, set()),
    ("no-tie-when-disjoint", b"User-agent: *\nDisallow: /ab\nAllow: /cd\n", None, None, set()),
    (
        "pairs-across-merged-groups",
        b"User-agent: a\nDisallow: /x\n\nUser-agent: a\nDisallow: /x\n",
        None,
        None,
        {("RK301", 5)},
    ),
    ("disallow-all", b"User-agent: *\nDisallow: /\n", None, None, {("RK305", 2)}),
    (
        "drops-star-rules",
        b"User-agent: *\nDisallow: /admin/\n\nUser-agent: FooBot\nDisallow: /tmp/\n",
        None,
        None,
        {("RK306", 4)},
    ),
    (
        "own-group-at-least-as-strict",
        b"User-agent: *\nDisallow: /admin/\n\nUser-agent: FooBot\nDisallow: /\n",
        None,
        None,
        set(),
    ),
    (
        "gemini-keeps-star-rules",
        b"User-agent: *\nDisallow: /admin/\n\nUser-agent: FooBot\nDisallow: /tmp/\n",
        "gemini",
        None,
        set(),
    ),
    ("sitemap-relative", b"Sitemap: /sitemap.xml\n", None, None, {("RK132", 1)}),
    (
        "html-body",
        b"<!DOCTYPE html>\n<html><head><title>x</title></head>\n<body>Not found</body></html>\n",
        None,
        None,
        {("RK230", 1)},
    ),
    ("html-content-type", b"User-agent: *\nDisallow: /x\n", None, "text/html; charset=utf-8", {("RK231", 1)}),
    (
        "content-signal",
        b"User-agent: *\nContent-Signal: search=yes, ai-train=maybe, foo=no\n"
        b"Content-Signal: search=yes, ai-input=no, ai-train=no\n"
        b"Content-Signal: /blog/ ai-train=no\nDisallow:\n",
        None,
        None,
        {("RK220", 2), ("RK222", 2)},
    ),
    (
        "content-usage",
        b"User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /blog train-ai=maybe\n"
        b"Content-Usage: Train-AI=n\nContent-Usage: foo-bar=y\nDisallow:\n",
        None,
        None,
        {("RK221", 3), ("RK221", 4), ("RK222", 5)},
    ),
    (
        "record-values",
        b"User-agent: *\nCrawl-delay: soon\nRequest-rate: 1/x\nDisallow: /a\n",
        None,
        None,
        {("RK130", 2), ("RK131", 3)},
    ),
]


def _found(body: bytes, profile: str | None, content_type: str | None) -> set[tuple[str, int]]:
    return {(d.code, d.line) for d in lint(robotskit.parse(body, profile), content_type=content_type)}


@pytest.mark.parametrize(
    ("body", "profile", "content_type", "expected"), [v[1:] for v in VECTORS], ids=[v[0] for v in VECTORS]
)
def test_vector(
    body: bytes, profile: str | None, content_type: str | None, expected: set[tuple[str, int]]
) -> None:
    """The linter reports exactly the listed ids on the listed lines."""
    assert _found(body, profile, content_type) == expected


@pytest.mark.slow
def test_oversized_file_says_what_is_ignored() -> None:
    """A file over 500 KiB gets one RK104 that names the size limit."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /p%d/\n" % i for i in range(60_000))
    found = [d for d in lint(robotskit.parse(body)) if d.code == "RK104"]
    assert len(found) == 1
    assert "512,000" in found[0].message + found[0].hint


@pytest.mark.parametrize(
    ("body", "profile", "content_type"), [v[1:4] for v in VECTORS], ids=[v[0] for v in VECTORS]
)
def test_every_diagnostic_is_complete(body: bytes, profile: str | None, content_type: str | None) -> None:
    """Every diagnostic has a documented id, that id's severity, a line, a message and a hint."""
    for diag in lint(robotskit.parse(body, profile), content_type=content_type):
        assert diag.code in CODES
        assert diag.line >= 1 and diag.column >= 0 and diag.message
        if diag.code >= "RK2":  # the linter's own ids carry a hint and the table's severity
            assert diag.hint
            assert diag.severity is CODES[diag.code][0] or diag.code == "RK202"


def test_results_are_sorted_by_line_then_column() -> None:
    """lint returns diagnostics ordered by (line, column)."""
    body = b"Disallow: /x\nUser-agent: AB1\nDisallow: nope\nDisallow: /a$b\nFoo: bar\n"
    found = lint(robotskit.parse(body))
    keys = [(d.line, d.column) for d in found]
    assert len(found) >= 4 and keys == sorted(keys)


def test_columns_point_at_the_problem() -> None:
    """The column of RK211 is the `$`, the column of RK210 the pattern."""
    found = {d.code: d for d in lint(robotskit.parse(b"User-agent: *\nDisallow: /a$b\nDisallow:   bad\n"))}
    assert found["RK211"].column == len("Disallow: /a") + 1
    assert found["RK210"].column == len("Disallow:   ") + 1


def test_user_agent_message_names_each_profile_token() -> None:
    """RK203 says which token each profile reads from `AB42bot`."""
    diag = next(d for d in lint(robotskit.parse(b"User-agent: AB42bot\nDisallow: /\n")) if d.code == "RK203")
    assert "google uses 'ab'" in diag.message and "rfc9309 uses 'ab42bot'" in diag.message


def test_dropped_rules_are_listed() -> None:
    """RK306 names the `*` rules the named agent no longer obeys, with their lines."""
    body = b"User-agent: *\nDisallow: /admin/\nDisallow: /tmp/\n\nUser-agent: FooBot\nDisallow: /tmp/\n"
    diag = next(d for d in lint(robotskit.parse(body)) if d.code == "RK306")
    assert "/admin/' (line 2)" in diag.message and "/tmp/" not in diag.message


def test_unknown_directive_suggests_a_close_key() -> None:
    """RK201 suggests the known key a misspelling is closest to."""
    diag = next(d for d in lint(robotskit.parse(b"User-agent: *\nNoindx: /y\n")) if d.code == "RK201")
    assert "noindex" in diag.hint


def test_unknown_profile_is_rejected() -> None:
    """lint refuses a profile name it does not know."""
    with pytest.raises(UnknownProfile):
        lint(robotskit.parse(b""), profile="bing")


def test_shipped_example_shows_its_deliberate_problems() -> None:
    """examples/robots.txt carries a typo (RK111) and a named group that drops `*` rules (RK306)."""
    codes = {d.code for d in lint(robotskit.parse(EXAMPLE.read_bytes()))}
    assert {"RK111", "RK306"} <= codes
    assert not {c for c in codes if CODES[c][0] is robotskit.Severity.ERROR}


def test_many_wildcard_rules_lint_quickly() -> None:
    """Thousands of wildcard rules in one group lint in well under two seconds (no all-pairs blowup)."""
    body = b"User-agent: *\n" + b"".join(
        b"Disallow: /*.part%d.html\nAllow: /*?v=%d\n" % (i, i) for i in range(3000)
    )
    robots = robotskit.parse(body)
    start = time.perf_counter()
    lint(robots)
    assert time.perf_counter() - start < 2.0


def _reference(pattern: str, path: str) -> bool:
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    regex = "".join(".*" if c == "*" else re.escape(c) for c in body) + ("$" if anchored else "")
    return re.match(regex, path, re.DOTALL) is not None


def test_match_end_agrees_with_a_regex_reference() -> None:
    """match_end matches exactly when a slow regex reference does, on every small pattern and path."""
    alphabet = "/a*$"
    patterns = ["".join(p) for n in range(1, 5) for p in product(alphabet, repeat=n)]
    paths = ["".join(p) for n in range(5) for p in product("/a$", repeat=n)]
    for pattern in patterns:
        for path in paths:
            assert (match_end(pattern, path) is not None) == _reference(pattern, path), (pattern, path)


def test_every_id_is_documented() -> None:
    """docs/lint.md has a section for every id lint can return, and no undocumented extras."""
    text = (REPO / "docs" / "lint.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^### (RK\d{3})", text, re.MULTILINE))
    assert documented == set(CODES)


def test_documented_examples_report_their_id() -> None:
    """Each id's example in docs/lint.md, linted, reports that id."""
    text = (REPO / "docs" / "lint.md").read_text(encoding="utf-8")
    sections = re.split(r"^### ", text, flags=re.MULTILINE)[1:]
    checked = 0
    for section in sections:
        code = section[:5]
        example = re.search(r"```robots\n(.*?)```", section, re.DOTALL)
        if example is None:
            continue
        body = example.group(1).encode("utf-8")
        options = re.search(r"<!-- lint: (.*?) -->", section)
        kwargs = dict(item.split("=", 1) for item in options.group(1).split()) if options else {}
        profile = kwargs.get("profile")
        found = {
            d.code
            for d in lint(
                robotskit.parse(body, profile), profile=profile, content_type=kwargs.get("content_type")
            )
        }
        assert code in found, (code, found)
        checked += 1
    assert checked >= 25


def test_corpus_sample_never_crashes() -> None:
    """lint runs on a sample of real files from ../shared/corpus without raising."""
    files = sorted((REPO / ".." / "shared" / "corpus" / "files").glob("*.txt"))[::50]
    if not files:
        pytest.skip("shared corpus not found")
    for path in files:
        for diag in lint(robotskit.parse(path.read_bytes())):
            assert diag.code in CODES


def test_example_file_exists() -> None:
    """The shipped example is where the README's first command expects it."""
    assert Path(EXAMPLE).is_file()
