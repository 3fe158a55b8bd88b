"""The first check's shortcuts equal their references.

A first check after `parse` normalises a group's patterns as one joined string, builds its
`Rule`s by column, reads user-agent tokens through a cache, and answers from a deferred rule
set (`RuleSet.deferred`) that builds no `Rule` until the index needs them. Each shortcut is
held here to the per-value / per-rule path it replaces.
"""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robotskit
from robotskit.core import url as _url
from robotskit.core.lexer import to_text
from robotskit.core.matcher import decide
from robotskit.core.model import Rule, RuleKind
from robotskit.core.pattern import INDEX_AFTER, RuleSet
from robotskit.core.url import (
    google_escape_pattern,
    google_escape_patterns,
    rfc_normalise_pattern,
    rfc_normalise_patterns,
)
from robotskit.profiles import PROFILES, cached_group_token, group_token, group_token_cache

# Pattern values as the lexer hands them over: latin-1 text (one character per byte), no "\n".
# Weighted towards what the normalisations touch: escapes (any case, unreserved or not, cut
# short), '$' anywhere, '*', controls, the never-raw ASCII characters and bytes >= 0x80.
_PIECES = st.sampled_from(
    [
        *("/", "/a", "*", "$", "%", "%4", "%41", "%7e", "%7E", "%2f", "%2F", "%C3%A9", "%c3%a9", "%zz"),
        *("%%41", "%2", "é", "\xc3\xa9", "\xff", "\x80", " ", "\t", "\x01", "\x7f", '"', "<", "\\"),
        *("^", "`", "{", "|", "}", "~", "-", "_", ".", "x", "Z", "?q=1", "index.html", "\r"),
    ]
)
_VALUE = st.lists(_PIECES, max_size=8).map("".join)
_LATIN1 = st.text(st.characters(max_codepoint=0xFF, exclude_characters="\n"), max_size=12)
_VALUES = st.lists(st.one_of(_VALUE, _LATIN1), min_size=1, max_size=8)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(_VALUES, st.sampled_from([1024, 0]))
def test_joined_rfc_normalisation_equals_per_value(values: list[str], many: int) -> None:
    """`many`: how many non-ASCII bytes make the joined form encode them with one `translate`
    (0: any), not through the codec's error handler."""
    with mock.patch.object(_url, "_MANY_HIGH_BYTES", many):
        joined = rfc_normalise_patterns("\n".join(values))
    assert joined.split("\n") == [rfc_normalise_pattern(value) for value in values]


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(_VALUES, st.sampled_from([1024, 0]))
def test_joined_google_escaping_equals_per_value(values: list[str], many: int) -> None:
    with mock.patch.object(_url, "_MANY_HIGH_BYTES", many):
        joined = google_escape_patterns("\n".join(values))
    assert joined.split("\n") == [google_escape_pattern(value) for value in values]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(max_size=6).filter(lambda v: "\n" not in v), min_size=1, max_size=5),
    st.sampled_from([1024, 0]),
)
def test_joined_rfc_normalisation_beyond_latin1_equals_per_value(values: list[str], many: int) -> None:
    """Characters past U+00FF never come from the lexer; the joined form still leaves them alone
    (`many` 0: the one `translate`, which must then notice them, takes the non-ASCII bytes)."""
    with mock.patch.object(_url, "_MANY_HIGH_BYTES", many):
        joined = rfc_normalise_patterns("\n".join(values))
    assert joined.split("\n") == list(map(rfc_normalise_pattern, values))


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(_VALUES)
def test_joined_to_text_equals_per_value(values: list[str]) -> None:
    """`raw` of every rule: decoding the joined bytes once splits into the per-value texts."""
    assert to_text("\n".join(values)).split("\n") == [to_text(value) for value in values]


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(st.sampled_from(sorted(PROFILES)), st.lists(st.one_of(_VALUE, _LATIN1, st.just("*")), max_size=6))
def test_cached_group_tokens_equal_group_token(name: str, values: list[str]) -> None:
    profile = PROFILES[name]
    cache = group_token_cache(profile)
    for value in values + values:  # the second round reads the cache
        cached = cache[value] if value in cache else cached_group_token(profile, cache, value)
        assert cached == group_token(profile, value)


_PATHS = st.lists(
    st.sampled_from(["/", "a", "b", "%41", "é", "*", "$", "index.html", "?x", "/a"]), max_size=6
).map(lambda parts: "/" + "".join(parts))


def _rules_of(patterns: list[str], allows: list[bool]) -> list[Rule]:
    return [
        Rule(line, RuleKind.ALLOW if allow else RuleKind.DISALLOW, pattern, pattern)
        for line, (pattern, allow) in enumerate(zip(patterns, allows, strict=False), start=1)
    ]


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(
    st.lists(
        st.one_of(_VALUE, st.sampled_from(["", "/", "/$", "*", "/*", "a", "/a*b$"])), min_size=1, max_size=12
    ),
    st.lists(st.booleans(), min_size=12, max_size=12),
    st.lists(_PATHS, min_size=1, max_size=INDEX_AFTER + 2),
)
def test_deferred_rule_set_equals_built_one(
    patterns: list[str], allows: list[bool], paths: list[str]
) -> None:
    """A deferred set answers as the set built from its rules, before and after its index."""
    rules = _rules_of(patterns, allows)
    built: list[int] = []

    def build() -> list[Rule]:
        built.append(1)
        return rules

    deferred = RuleSet.deferred("\n".join(patterns), build, lambda index, pattern: rules[index])
    eager = RuleSet(rules)
    assert deferred.empty is (not eager.rules)
    for path in paths:
        assert deferred.best(path) == eager.best(path), path
    assert len(paths) >= INDEX_AFTER or not built  # the first checks build no rule
    assert deferred.rules == eager.rules


# Whole files: a few groups for a few agents, rules from the value strategy above.
_AGENTS = st.sampled_from(["*", "Googlebot", "googlebot/2.1", "Bingbot", "* x", "Other-Bot"])
_RULE_LINE = st.tuples(
    st.sampled_from(["Allow", "Disallow"]), st.one_of(_VALUE, st.sampled_from(["/", "/index.html"]))
)
_GROUP = st.tuples(st.lists(_AGENTS, min_size=1, max_size=3), st.lists(_RULE_LINE, max_size=6))


def _file(groups: list[tuple[list[str], list[tuple[str, str]]]]) -> bytes:
    lines = []
    for agents, rules in groups:
        lines += [f"User-agent: {agent}" for agent in agents]
        lines += [f"{key}: {value}" for key, value in rules]
    return "\n".join(lines).encode("latin-1")


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(
    st.lists(_GROUP, max_size=4),
    st.sampled_from([None, "rfc9309", "google", "gemini"]),
    st.sampled_from(["Googlebot", "Bingbot", "*", "NoSuchBot"]),
    st.lists(_PATHS, min_size=1, max_size=INDEX_AFTER + 2),
)
def test_first_checks_equal_the_built_groups(
    groups: list[tuple[list[str], list[tuple[str, str]]]], profile: str | None, agent: str, paths: list[str]
) -> None:
    """Checks and decisions from a fresh parse (deferred rule sets) equal the ones read from
    the groups' built rules (`RuleSet` over `Judgement.groups`)."""
    body = _file(groups)
    for path in paths:
        url = "https://example.com" + path
        fresh = robotskit.parse(body, profile)
        first = fresh.decide(url, agent)
        assert fresh.allowed(url, agent) is first.allowed
        assert robotskit.parse(body, profile).allowed(url, agent) is first.allowed
        view, chosen = fresh._resolve(url)
        plan = view.plan(chosen, agent)
        for judgement, verdict in zip(plan.judgements, first.verdicts, strict=True):
            reference = RuleSet(rule for group in judgement.groups for rule in group.rules)
            assert verdict.rule == reference.best(first.path)
        again = decide(view, chosen, url, agent, explain=True)
        assert again.rule == first.rule and again.allowed is first.allowed
