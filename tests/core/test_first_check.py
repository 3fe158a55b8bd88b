"""A file's first check (`core.first_check`) gives the verdict `decide` gives.

The first check reads only what judges the agent: the user-agent lines naming its token or `*`
(byte searches), their groups' extent, and among those groups' rule lines the ones whose pattern
can match the path (one regular-expression pass per region, `skeleton.region_rules`). These
tests hold it to `decide` (the plan and its rule sets, which read every line) on random files
built from every spelling Google accepts, on raw byte soup, on the corpus, and across line
endings; and check that it declines what it cannot read exactly.
"""

from __future__ import annotations

import contextlib
import json
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import robotskit
from robotskit.core import first_check
from robotskit.core import robots as _robots
from robotskit.core.lexer import DEFAULT_MAX_BYTES
from robotskit.core.matcher import View
from robotskit.core.parser import MAX_FIRST_CHECK_STARS, parse_file
from robotskit.core.profiles import PROFILES
from robotskit.core.skeleton import read_skeleton, region_rules
from tests.conftest import CORPUS, require_shared
from tests.core.test_skeleton import _PIECES, _robots_txt

_AGENTS = st.sampled_from(
    [
        "Googlebot",
        "googlebot",
        "Googlebot/2.1 (+http://www.google.com/bot.html)",
        "googlebot-image",
        "ExampleBot",
        "x",
        "a",
        "b",
        "*",
        None,
        "",
        "/bot",
        "agent",
        "user-agent",
        "Disallow",
        "kbot",
        "ibot",
        "Jävla-Foobot",
    ]
)
_URLS = st.sampled_from(
    [
        "/",
        "/x",
        "/private",
        "/private/x",
        "/a b",
        "/a%20b",
        "/agent",
        "/user-agent/x",
        "/allow",
        "/gallery",
        "/halo/",
        "/p?q=1&r=*$",
        "/p?q=1&r=",
        "/%7Ea",
        "/~a",
        "/%C3%A9",
        "/é",
        "/index.html",
        "/dir/",
        "/robots.txt",
        "http://example.com",
        "https://example.com/private?x#frag",
        "https://example.com/%70rivate",
        "/*",
        "/$",
    ]
)
_PROFILES = st.sampled_from(["rfc9309", "google"])


# Files written the common way (what the quick reading answers), with rule values that the URLs
# above do and do not match, in every shape: prefixes, wildcards, anchors, escapes, non-ASCII.
_TOKENS = st.sampled_from(
    [
        "*",
        "* x",
        "*x",
        "Googlebot",
        "googlebot",
        "Googlebot/2.1",
        "googlebot-image",
        "ExampleBot",
        "x",
        "a",
        "b",
    ]
)
_RULE_VALUES = st.sampled_from(
    [
        *("", "/", "/x", "/x/", "/x*", "*x", "/*x", "/x$", "/$", "/*", "*", "/%78", "/%2A", "/%7ea", "/~a"),
        *("/private", "/private/", "/pri*e", "/p?q=1", "/p?q=1&r=*$", "/a b", "/a%20b", "/index.html"),
        *("/dir/index.html", "/dir/index.htm", "/é", "/%C3%A9", "/\xe9", "x", "/agent", "/gallery*"),
        *("/x#x", "/#", "*#x"),  # a comment with no space before it
    ]
)
_OTHER_LINES = st.sampled_from(
    ["", "# c", "#User-agent: *", "Sitemap: /s.xml", "Crawl-delay: 3", "Noindex: /all"]
)


@st.composite
def _plain_robots_txt(draw: st.DrawFn) -> bytes:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        for _ in range(draw(st.integers(1, 3))):
            key = draw(st.sampled_from(["User-agent:", "user-agent:", "USER-AGENT:", "User-Agent:"]))
            lines.append(
                key
                + draw(st.sampled_from(["", " ", "\t"]))
                + draw(_TOKENS)
                + draw(st.sampled_from(["", " # c"]))
            )
        for _ in range(draw(st.integers(0, 6))):
            if draw(st.integers(0, 4)) == 0:
                lines.append(draw(_OTHER_LINES))
                continue
            key = draw(st.sampled_from(["Disallow", "Allow", "disallow", "ALLOW", "Disallow ", "  Disallow"]))
            lines.append(
                key
                + draw(st.sampled_from([":", ": ", ":\t"]))
                + draw(_RULE_VALUES)
                + draw(st.sampled_from(["", " ", " # x"]))
            )
    return (draw(st.sampled_from(["\n", "\r\n"])).join(lines) + "\n").encode("latin-1")


def _reference(data: bytes, profile: str, agent: str | None, url: str) -> bool:
    return robotskit.parse(data, profile).decide(url, agent).allowed


def _assert_first_checks(data: bytes, profile: str, agent: str | None, url: str) -> None:
    expected = _reference(data, profile, agent, url)
    quick = first_check.quick_verdict(data, DEFAULT_MAX_BYTES, PROFILES[profile], agent, url)
    assert not isinstance(quick, bool) or quick is expected, "quick_verdict"
    for source in (read_skeleton(data), parse_file(data)):
        view = View(source, PROFILES[profile])
        positions = view.group_set(PROFILES[profile], agent)
        assert positions is not None
        groups = [source.groups[position] for position in positions]
        found = first_check.first_verdict(groups, PROFILES[profile], url)
        assert found is None or found is expected, ("first_verdict", type(source).__name__)
    assert robotskit.parse(data, profile).allowed(url, agent) is expected, "allowed"


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(_robots_txt(), _PROFILES, _AGENTS, _URLS)
@example(b"user-agent FooBot\ndisallow /\n", "google", "FooBot", "http://foo.bar/x/y")
@example(b"User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n", "google", "x", "/allowed-slash/")
@example(b"User-agent: \xe2\x84\xaabot\nDisallow: /\n", "rfc9309", "kbot", "/x")  # KELVIN SIGN lowers to k
@example(b"User-agent: a\nUser-agent: *\nUser-agent: b\nDisallow: /x\n", "rfc9309", None, "/x")
@example(b"User-agent: *\nDisallow: /x\nUser-agent: *\nAllow: /x/y\n", "rfc9309", "z", "/x/y")
@example(b"  User-agent: *\nDisallow: /\n", "rfc9309", "z", "/x")  # indented: read exactly
@example(b"User-agent: *\nDisalow: /x\n", "rfc9309", "z", "/x")  # a misspelt key in the region
@example(b"User-agent: *\nDisallow: /%78\n", "rfc9309", "z", "/x")  # an escape spells the path
@example(b"User-agent: * # all agents\nDisallow: /\n", "rfc9309", "z", "/x")
@example(b"User-agent: a\nDisallow: /x\nUser-agent: a-agent\n", "rfc9309", "a", "/x")
def test_first_check_equals_decide(data: bytes, profile: str, agent: str | None, url: str) -> None:
    """Property: on files of every accepted spelling, the first checks' verdicts are `decide`'s."""
    _assert_first_checks(data, profile, agent, url)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(_plain_robots_txt(), _PROFILES, _AGENTS, _URLS)
def test_first_check_equals_decide_on_plain_files(
    data: bytes, profile: str, agent: str | None, url: str
) -> None:
    """Property: on files written the common way (the quick reading answers them), too."""
    _assert_first_checks(data, profile, agent, url)


@pytest.mark.slow
@settings(max_examples=800, deadline=None)
@given(st.lists(_PIECES, max_size=60).map(b"".join), _PROFILES, _AGENTS, _URLS)
def test_first_check_equals_decide_on_raw_pieces(
    data: bytes, profile: str, agent: str | None, url: str
) -> None:
    """Property: on byte soup of keys, separators, breaks and NULs, too."""
    _assert_first_checks(data, profile, agent, url)


@settings(max_examples=150, deadline=None)
@given(st.one_of(_robots_txt(), _plain_robots_txt()), _PROFILES, _AGENTS, _URLS)
def test_first_check_equals_decide_quick(data: bytes, profile: str, agent: str | None, url: str) -> None:
    """The property above, a few examples (the fast inner loop)."""
    _assert_first_checks(data, profile, agent, url)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_robots_txt(), _plain_robots_txt()), _PROFILES, _AGENTS, _URLS)
def test_first_check_of_a_long_file_equals_decide(
    data: bytes, profile: str, agent: str | None, url: str
) -> None:
    """Property: with every file taken as long, its user-agent lines searched for only between
    the first and the last "agent" (the line of the last included), the first checks are
    `decide`'s."""
    with mock.patch.object(first_check, "_LONG_FILE", 0):
        _assert_first_checks(data, profile, agent, url)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_robots_txt(), _plain_robots_txt()), _PROFILES, _AGENTS, _URLS)
def test_line_endings_do_not_change_the_first_check(
    data: bytes, profile: str, agent: str | None, url: str
) -> None:
    """Property: the same lines ended by LF, CRLF or CR get the same first verdict."""
    lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    answers = {
        robotskit.parse(lines.replace(b"\n", end), profile).allowed(url, agent)
        for end in (b"\n", b"\r\n", b"\r")
    }
    assert len(answers) == 1


@settings(max_examples=200, deadline=None)
@given(st.one_of(_robots_txt(), _plain_robots_txt()), _PROFILES, _AGENTS, _URLS)
def test_the_input_form_does_not_change_the_first_check(
    data: bytes, profile: str, agent: str | None, url: str
) -> None:
    """Property: bytes, bytearray, memoryview, the text whose UTF-8 is these bytes and a `max_bytes`
    below the 500 KiB floor all get the verdict `decide` gives the bytes; a BOM in front, the one
    `decide` gives those bytes."""
    expected = _reference(data, profile, agent, url)
    forms: list[bytes | bytearray | memoryview | str] = [data, bytearray(data), memoryview(data)]
    with contextlib.suppress(UnicodeDecodeError):  # text only where the bytes are UTF-8
        forms.append(data.decode("utf-8"))
    for form in forms:
        assert robotskit.parse(form, profile).allowed(url, agent) is expected, type(form).__name__
    assert robotskit.parse(data, profile, max_bytes=16).allowed(url, agent) is expected, "max_bytes"
    bom = b"\xef\xbb\xbf" + data
    assert robotskit.parse(bom, profile).allowed(url, agent) is _reference(bom, profile, agent, url), "BOM"


@settings(max_examples=300, deadline=None)
@given(_robots_txt(), st.sampled_from(["", "p", "a", "x", "*", "$", "?", "%", "é", "/"]))
def test_region_candidates_hold_every_rule_that_can_match(data: bytes, second: str) -> None:
    """Property: a group's candidate rules are a sub-list of its rules (same flags and values, in
    order) that keeps every rule whose raw value starts with '/' + `second`, '/%', '/*' or '*', or
    is '/'."""
    for group in read_skeleton(data).groups:
        allows, values = group.candidate_rules(second)
        rules = [(allow, value) for _, allow, value in group.rules]
        found = list(zip(allows, values, strict=True))
        it = iter(rules)
        assert all(pair in it for pair in found), "not a sub-list of the rules"
        heads = ("/" + second, "/%", "/*", "*") if second else ("/",)
        needed = [pair for pair in rules if pair[1].startswith(heads) or pair[1] == "/"]
        assert all(pair in found for pair in needed)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.tuples(_RULE_VALUES, st.sampled_from(["Disallow: ", "Allow: ", "disallow: ", "Noindex: "])),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["", "Disallow: ", "Allow: ", "disallow: ", "Disallow:"]),
    st.sampled_from(["", "p", "a", "x", "*", "%", "/"]),
    st.booleans(),
)
def test_a_long_list_of_one_kind_of_rule_reads_as_line_by_line(
    values: list[tuple[str, str]], key: str, second: str, trailing_break: bool
) -> None:
    """Property: a region over 4 KiB of `Disallow: ` and `Allow: ` lines (`key`: every line's, or
    each value's own), read whole in a few C-level passes (or, when a line reads otherwise, line
    by line), gives the parser's rules, and as candidates those whose raw value starts with
    '/' + `second`, '/%', '/*' or '*', or is '/', in order (every rule for a second character no
    candidate pass serves); the first check on it is `decide`'s."""
    lines = [
        f"{key or own}{value}{index}" if value[-1:] not in ("$", "#", " ") else f"{key or own}{value}"
        for index, (value, own) in enumerate((values * 600)[:600])
    ]
    body = "User-agent: *\n" + "\n".join(lines) + ("\n" if trailing_break else "")
    data = body.encode("latin-1")
    (group,) = read_skeleton(data).groups
    (parsed,) = parse_file(data).groups
    assert group.rules == parsed.rules
    allows, found = read_skeleton(data).groups[0].candidate_rules(second)
    heads = ("/" + second, "/%", "/*", "*")
    rules = [(allow, value) for _, allow, value in parsed.rules]
    every = second in ("", "%")  # (no candidate pass serves such a path: every rule is read)
    needed = [pair for pair in rules if every or pair[1].startswith(heads) or pair[1] == "/"]
    assert list(zip(allows, found, strict=True)) == needed
    for path in ("/", "/x1", "/private/x", "/p?q=1&r=*$", "/%C3%A9", "/a b"):
        _assert_first_checks(data, "rfc9309", "bot", path)


def test_quick_verdict_declines_what_it_does_not_read() -> None:
    """Indented or misspelt user-agent lines, cut lines, the gemini profile and Agent objects
    with more than a token are left to the general path; so are many wildcard rules that may match."""
    rfc = PROFILES["rfc9309"]
    url = "/x"
    assert (
        first_check.quick_verdict(b"  User-agent: *\nDisallow: /\n", DEFAULT_MAX_BYTES, rfc, "a", url) is None
    )
    assert first_check.quick_verdict(b"Useragent: *\nDisallow: /\n", DEFAULT_MAX_BYTES, rfc, "a", url) is None
    assert (
        first_check.quick_verdict(b"User-agent: *\nDisallow: /\x00\n", DEFAULT_MAX_BYTES, rfc, "a", url)
        is None
    )
    gemini = PROFILES["gemini"]
    assert (
        first_check.quick_verdict(b"User-agent: *\nDisallow: /\n", DEFAULT_MAX_BYTES, gemini, "a", url)
        is None
    )
    body = b"User-agent: *\nDisallow: /\n"
    for agent in (
        robotskit.Agent("a", aliases=["b"]),
        robotskit.Agent("a", fallbacks=["b"]),
        robotskit.Agent(None, purposes=["archiver"]),
    ):  # what more than one token decides is left to the plan
        assert first_check.quick_verdict(body, DEFAULT_MAX_BYTES, rfc, agent, url) is None
    # a plain Agent is read as its token is
    assert first_check.quick_verdict(body, DEFAULT_MAX_BYTES, rfc, robotskit.Agent("a"), url) is False
    many = b"User-agent: *\n" + b"".join(b"Disallow: /*x%d\n" % i for i in range(100))
    # (left to the rule set: reading the groups again for `first_verdict` would decline too)
    to_rule_set = first_check.Left.TO_RULE_SET
    assert (
        first_check.quick_verdict(many, DEFAULT_MAX_BYTES, rfc, "a", "/x1x2x3x4x5x6x7x8x9x0") is to_rule_set
    )
    stars = b"User-agent: *\n" + b"Disallow: /*a*b*c*d*e*f*g*h*i*j*k\n" * 500  # 5,000 '*': hostile
    assert first_check.quick_verdict(stars, DEFAULT_MAX_BYTES, rfc, "a", "/x") is to_rule_set
    assert robotskit.parse(stars).allowed("/a-b-c-d-e-f-g-h-i-j-k", "a") is False
    # ... and what it reads, it answers
    assert (
        first_check.quick_verdict(b"User-agent: *\nDisallow: /\n", DEFAULT_MAX_BYTES, rfc, "a", url) is False
    )
    assert (
        first_check.quick_verdict(
            b"# User-agent: x\nUser-agent: *\nDisallow: /x\n", DEFAULT_MAX_BYTES, rfc, "a", url
        )
        is False
    )


def test_many_wildcards_a_sample_shows_left_go_to_the_rule_set_unfiltered() -> None:
    """More than 256 candidates, of which a sample shows four times the wildcards a first check
    tries left by the character filter: the rule set answers, and the filter's pass over every
    candidate is spared. When the sample shows few left, the filter runs and the first check
    answers."""
    rfc = PROFILES["rfc9309"]
    path = "/" + "".join("abcdefghij"[i * 7 % 10] for i in range(300)) + "0123456789"
    held = b"User-agent: *\n" + b"".join(
        b"Disallow: /*%s*%d\n" % (b"ab"[i % 2 :][:1], i) for i in range(1000)
    )
    with mock.patch.object(
        first_check, "holding_every_character", wraps=first_check.holding_every_character
    ) as filtered:
        answer = first_check.quick_verdict(held, DEFAULT_MAX_BYTES, rfc, "a", path)
    assert answer is first_check.Left.TO_RULE_SET
    assert filtered.call_count == 1  # (the sample's pass only)
    assert robotskit.parse(held).allowed(path, "a") is False
    lacking = (
        b"User-agent: *\n" + b"".join(b"Disallow: /*zz*%d\n" % i for i in range(1000)) + b"Disallow: /*he\n"
    )
    with mock.patch.object(
        first_check, "holding_every_character", wraps=first_check.holding_every_character
    ) as filtered:
        assert first_check.quick_verdict(lacking, DEFAULT_MAX_BYTES, rfc, "a", path) is False
    assert filtered.call_count == 2  # the sample's, then every candidate's


def test_a_first_check_left_to_the_rule_set_reads_the_groups_once() -> None:
    """Past the wildcards a first check tries, the check is built at once: `first_verdict` is
    not asked to read the same groups again (it would decline too)."""
    many = b"User-agent: *\n" + b"".join(b"Disallow: /*x%d\n" % i for i in range(100))
    with mock.patch.object(_robots, "first_verdict", side_effect=AssertionError("groups read again")):
        assert robotskit.parse(many).allowed("/x1x2x3x4x5x6x7x8x9x0", "a") is False
    plain = b"  User-agent: *\nDisallow: /x\n"  # (left to the general path: read by the skeleton)
    with mock.patch.object(_robots, "first_verdict", wraps=first_check.first_verdict) as spied:
        assert robotskit.parse(plain).allowed("/x", "a") is False
    assert spied.called


def test_only_the_first_check_skips_building_a_check() -> None:
    """The first check builds no check; the next one builds and keeps its own."""
    robots = robotskit.parse(b"User-agent: *\nDisallow: /x\n")
    assert robots.allowed("/x", "a") is False
    assert not robots._checkers
    assert robots.allowed("/y", "a") is True
    assert robots._checkers


def test_a_big_file_builds_its_check_on_the_first_check() -> None:
    """A file whose check is costly to build (big, or many agents) builds it on the first check,
    as before, so that no later check stalls; a small one leaves it to the second."""
    from robotskit.core import robots as _robots

    many_agents = b"".join(b"User-agent: bot%d\n" % i for i in range(4000)) + b"Disallow: /x\n"
    assert _robots._QUICK_UP_TO < len(many_agents) <= _robots._QUICK_FEW_AGENTS_UP_TO
    big = b"User-agent: *\n" + b"".join(b"Disallow: /p%d/\n" % i for i in range(20000))
    assert len(big) > _robots._QUICK_FEW_AGENTS_UP_TO
    for body in (many_agents, big):
        robots = robotskit.parse(body)
        assert robots.allowed("/x", "bot7") is robots.decide("/x", "bot7").allowed
        assert robots._checkers, "the first check of a big file builds its check"
    # past _QUICK_UP_TO with more asterisks than a first check reads: built now, verdicts unchanged
    starry = b"User-agent: *\n" + b"".join(b"Disallow: /*a*%d*b\n" % i for i in range(2100))
    starry += b"User-agent: bot7\n" + b"".join(b"Disallow: /p%d/\n" % i for i in range(4000))
    assert _robots._QUICK_UP_TO < len(starry) <= _robots._QUICK_FEW_AGENTS_UP_TO
    assert starry.count(b"*") > MAX_FIRST_CHECK_STARS
    for agent, url in (("bot", "/xa1b"), ("bot", "/x"), ("bot7", "/p7/"), ("bot7", "/x")):
        robots = robotskit.parse(starry)
        assert robots.allowed(url, agent) is robots.decide(url, agent).allowed
        assert robots._checkers, "a file of many asterisks builds its check on the first check"
    few_agents = b"User-agent: *\n" + b"".join(b"Disallow: /p%d/\n" % i for i in range(6000))
    assert _robots._QUICK_UP_TO < len(few_agents) <= _robots._QUICK_FEW_AGENTS_UP_TO
    robots = robotskit.parse(few_agents)
    assert robots.allowed("/p7/x", "bot") is False
    assert not robots._checkers


def test_region_rules_reads_every_line_after_a_misspelt_key() -> None:
    """A region holding a misspelt rule key is read line by line, so the rule is not missed."""
    text = "\nUser-agent: *\nDisalow: /x\nDisallow: /y\n"
    start = text.index("Disalow")
    low = text.lower().encode("latin-1")
    assert region_rules(text, low, start, len(text), "x") == ([False, False], ["/x", "/y"])
    assert region_rules(text, low, start + len("Disalow: /x\n"), len(text), "x") == ([], [])


def _corpus() -> list[tuple[bytes, list[str]]]:
    require_shared()
    urls = {}
    for line in (CORPUS / "urls.jsonl").read_text(encoding="utf-8").split("\n"):
        if line:
            row = json.loads(line)
            urls[row["file"]] = [(row["base_url"] or "https://example.com") + p for p in row["paths"]]
    files = sorted((CORPUS / "files").glob("*.txt"))
    return [(path.read_bytes(), [*urls.get(path.name, [])[:5], "/", "/robots.txt"]) for path in files[::3]]


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["rfc9309", "google"])
def test_first_check_equals_decide_on_the_corpus(profile: str) -> None:
    """Every third corpus file, five of its URLs and four agents: the first check is `decide`'s
    verdict, and the quick reading answers nearly all of them (it is the point of it)."""
    answered = total = 0
    for data, urls in _corpus():
        for agent in ("Googlebot", "ExampleBot", "bingbot", None):
            for url in urls:
                expected = _reference(data, profile, agent, url)
                quick = first_check.quick_verdict(data, DEFAULT_MAX_BYTES, PROFILES[profile], agent, url)
                assert not isinstance(quick, bool) or quick is expected, (url, agent)
                assert robotskit.parse(data, profile).allowed(url, agent) is expected, (url, agent)
                total += 1
                answered += isinstance(quick, bool)
    assert answered > 0.9 * total


_AGENT_OBJECTS = st.one_of(
    st.builds(robotskit.Agent, _AGENTS.filter(lambda a: a is not None)),
    st.builds(
        lambda token, aliases, combine: robotskit.Agent(token, aliases=aliases, combine=combine),
        _AGENTS.filter(lambda a: a is not None),
        st.lists(st.sampled_from(["x", "a", "b", "googlebot", "nobody"]), max_size=2),
        st.sampled_from(["merge", "most_restrictive"]),
    ),
    st.builds(
        lambda token, fallbacks: robotskit.Agent(token, fallbacks=fallbacks),
        _AGENTS.filter(lambda a: a is not None),
        st.lists(st.sampled_from(["googlebot", "x", "b", "nobody"]), max_size=2),
    ),
    st.just(robotskit.Agent(None, purposes=["archiver"])),
)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(
    st.one_of(_robots_txt(), _plain_robots_txt()),
    _PROFILES,
    st.lists(st.tuples(_AGENT_OBJECTS, _URLS), min_size=1, max_size=8),
)
@example(
    b"User-agent: googlebot\nDisallow: /\n",
    "rfc9309",
    [(robotskit.Agent("x", fallbacks=["googlebot"]), "/a")],
)
@example(
    b"User-agent: a\nDisallow: /x\nUser-agent: b\nAllow: /x\n",
    "rfc9309",
    [(robotskit.Agent("a", aliases=["b"], combine="most_restrictive"), "/x"), (robotskit.Agent("b"), "/x")],
)
def test_agent_objects_on_one_parse_equal_decide(
    data: bytes, profile: str, asks: list[tuple[robotskit.Agent, str]]
) -> None:
    """Agent objects (plain, with aliases merged or judged alone, with fallbacks, purposes only)
    asking one parse in turn, its first check included, get `decide`'s verdicts; a plain Agent
    gets its token's. Agents that land in the same groups share one check, so the order of asking
    must not matter either."""
    robots = robotskit.parse(data, profile)
    for agent, url in asks:
        expected = robotskit.parse(data, profile).decide(url, agent).allowed
        assert robots.allowed(url, agent) is expected, (agent, url)
        if not agent.aliases and not agent.fallbacks and agent.token is not None:
            assert robotskit.parse(data, profile).allowed(url, agent.token) is expected
