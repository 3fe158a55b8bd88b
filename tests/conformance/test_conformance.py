"""Every conformance vector of ../shared/conformance, under the rfc9309 and google profiles.

The runner is tools/conformance.py (also a command). A vector a profile does not follow must be
listed in deviations.toml with the README point that explains it; an unlisted failure fails here,
and so does a listed vector that passes (the list stays honest). The google profile follows all
145 vectors of Google's own suite: none of them may be listed.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import robotskit
from robotskit.core.model import LineKind

ROOT = Path(__file__).resolve().parents[2]


def _load_runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "robotskit_conformance_tool", ROOT / "tools" / "conformance.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


conformance = _load_runner()

pytestmark = pytest.mark.skipif(not conformance.CONFORMANCE.is_dir(), reason="../shared/conformance missing")

SOURCES = conformance.sources() if conformance.CONFORMANCE.is_dir() else []
DEVIATIONS: dict[str, dict[str, str]] = conformance.load_deviations()
REASONS: dict[str, str] = conformance.load_reasons()


def _all_ids() -> set[str]:
    ids = {v["id"] for s in SOURCES for v in conformance.load_vectors(s)}
    return ids | {v["id"] for s in SOURCES for v in conformance.load_other(s)}


def test_google_profile_passes_google_suite() -> None:
    """SPEC 1: the google profile follows all 145 vectors of Google's robots_test.cc, none excused."""
    vectors = conformance.load_vectors("google_robotstxt")
    assert len(vectors) == 145
    failures = {}
    for vec in vectors:
        ok, detail = conformance.check(vec, "google")
        if not ok:
            failures[vec["id"]] = detail
    assert not failures, failures
    ids = {vec["id"] for vec in vectors}
    excused = [i for i in DEVIATIONS.get("google", {}) if i in ids]
    assert not excused, f"google_robotstxt vectors may not be listed as google deviations: {excused}"


@pytest.mark.parametrize("profile", conformance.GATED_PROFILES)
@pytest.mark.parametrize("source", SOURCES)
def test_source_failures_are_all_listed(source: str, profile: str) -> None:
    """SPEC 1: every vector the profile does not follow is listed with a reason, and no listed one passes."""
    result = conformance.run_source(source, profile, DEVIATIONS.get(profile, {}))
    print(
        f"{source} [{profile}]: {result.passed}/{result.total} passed, {len(result.listed)} listed deviations"
    )
    assert not result.unlisted, (
        f"failures without a listed reason (core bug or missing entry): {result.unlisted}"
    )
    assert not result.stale, f"listed as deviations but now pass (remove them): {result.stale}"


def test_deviation_entries_are_well_formed() -> None:
    """Every listed id exists in the vectors and every reason is a key of [reasons] with an explanation."""
    known = _all_ids()
    assert DEVIATIONS, "deviations.toml is missing or empty"
    for profile, entries in DEVIATIONS.items():
        assert profile in conformance.ALL_PROFILES, profile
        unknown_ids = sorted(set(entries) - known)
        assert not unknown_ids, f"[{profile}] ids not in any vector file: {unknown_ids[:10]}"
        unknown_reasons = sorted({r for r in entries.values() if r not in REASONS})
        assert not unknown_reasons, f"[{profile}] reasons without an explanation: {unknown_reasons}"
    assert all(len(text) > 40 for text in REASONS.values())


# --- parse-level facts (*.other.jsonl) --------------------------------------------------------

Fact = Mapping[str, Any]


def _agent_of(fact: Fact) -> str:
    return str(fact.get("user_agent") or fact.get("args", {}).get("user_agent") or "*")


def _expected_delay(fact: Fact) -> float | None:
    """The suite's expected crawl-delay in seconds, None for "unset/invalid" in each suite's convention."""
    if "expected_ms" in fact:
        ms = fact["expected_ms"]
        return None if ms is None else ms / 1000
    value = fact.get("expected_seconds", fact.get("expected"))
    if value is None or value == -1.0:  # rep-cpp: -1.0 means unset
        return None
    if isinstance(value, str) and value.startswith(">"):
        return value  # a bound ("> 3e38"), compared by _same
    return float(value)


def _check_crawl_delay(fact: Fact, profile: str) -> tuple[Any, Any]:
    robots = robotskit.parse(fact.get("robots_txt", ""), profile)
    return _expected_delay(fact), robots.crawl_delay(_agent_of(fact))


def _check_sitemaps(fact: Fact, profile: str) -> tuple[Any, Any]:
    kwargs = {"robots_url": fact["robots_url"]} if fact.get("robots_url") else {}
    robots = robotskit.parse(fact.get("robots_txt", ""), profile, **kwargs)
    return list(fact["expected"] or []), list(robots.sitemaps)


def _check_path_params_query(fact: Fact, profile: str) -> tuple[Any, Any]:
    # SPEC 3: the path matched is the URL's path, params and query; google matches it as given.
    return fact["expected"], robotskit.parse(b"", profile).decide(fact["url"], "bot").path


def _check_escape_pattern(fact: Fact, profile: str) -> tuple[Any, Any]:
    if fact["expected"] == "<dummy>":
        pytest.skip("the harvest did not record the expected value")
    robots = robotskit.parse(("user-agent: *\ndisallow: " + fact["pattern"] + "\n").encode(), profile)
    return fact["expected"], robots.groups[0].rules[0].pattern


def _check_valid_agent(fact: Fact, profile: str) -> tuple[Any, Any]:
    """Google obeys a user-agent only if it is non-empty [A-Za-z_-]: only then does the same string,
    written in a group, match a caller passing it verbatim (SPEC 1, google: compared as given)."""
    agent = str(fact["user_agent"] or "")
    if not agent:
        # No proxy for the empty name: Google's C++ matches an empty caller to an empty
        # `user-agent:` value (both compare equal), and robotskit's google profile does the same.
        pytest.skip("IsValidUserAgentToObey('') has no behavioural equivalent")
    robots = robotskit.parse(f"user-agent: {agent}\ndisallow: /\n".encode(), profile)
    return bool(fact["expected"]), not robots.allowed("/x", agent)


_TAG_KIND = {
    "UserAgent": LineKind.USER_AGENT,
    "Allow": LineKind.ALLOW,
    "Disallow": LineKind.DISALLOW,
    "Sitemap": LineKind.SITEMAP,
}


def _expected_line(fact: Fact) -> dict[str, Any]:
    exp = fact["expected"]
    meta = exp["metadata"]
    if meta["is_empty"]:
        kind = LineKind.EMPTY
    elif meta["is_comment"]:
        kind = LineKind.COMMENT
    elif exp["tag_name"] in _TAG_KIND:
        kind = _TAG_KIND[exp["tag_name"]]
    elif meta["has_directive"]:
        kind = LineKind.OTHER
    else:
        kind = LineKind.INVALID
    return {
        "kind": kind,
        "typo": meta["is_acceptable_typo"],
        "missing_colon": meta["is_missing_colon_separator"],
        "too_long": meta["is_line_too_long"],
        "has_comment": meta["has_comment"],
    }


def _check_line_metadata(fact: Fact, profile: str) -> tuple[Any, Any]:
    robots = robotskit.parse(conformance.body_of(fact), profile)
    number = int(fact["line_num"])
    expected = _expected_line(fact)
    if number > len(robots.lines):
        return expected, None
    line = robots.lines[number - 1]
    assert line.number == number
    return expected, {k: getattr(line, k) for k in expected}


# kind -> (profile the fact is checked under, checker)
CHECKERS: dict[str, tuple[str, Callable[[Fact, str], tuple[Any, Any]]]] = {
    "crawl_delay": ("rfc9309", _check_crawl_delay),
    "sitemaps": ("rfc9309", _check_sitemaps),
    "get_path_params_query": ("google", _check_path_params_query),
    "maybe_escape_pattern": ("google", _check_escape_pattern),
    "valid_user_agent_to_obey": ("google", _check_valid_agent),
    "line_metadata": ("google", _check_line_metadata),
}

FACTS = [f for s in SOURCES for f in conformance.load_other(s) if f["kind"] in CHECKERS]


def _same(expected: Any, got: Any) -> bool:
    if isinstance(expected, str) and expected.startswith(">"):
        return isinstance(got, float) and got > float(expected[1:])
    if isinstance(expected, float) and isinstance(got, float):
        return math.isclose(expected, got, rel_tol=1e-6)
    return bool(expected == got)


@pytest.mark.parametrize("fact", FACTS, ids=[f["id"] for f in FACTS])
def test_parse_level_fact(fact: Fact) -> None:
    """SPEC 2/3/5: parse-level facts (crawl-delay, sitemaps, paths, line metadata) hold or are listed."""
    profile, checker = CHECKERS[fact["kind"]]
    expected, got = checker(fact, profile)
    listed = DEVIATIONS.get(profile, {}).get(fact["id"])
    if listed is None:
        assert _same(expected, got), f"{fact['kind']}: expected {expected!r}, got {got!r}"
    else:
        assert not _same(expected, got), f"listed as {listed!r} but now holds: remove it from deviations.toml"


def test_conformance_command_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    """The conformance command prints the per-source table and exits 0 when every failure is listed."""
    code = conformance.main(["--source", "google_robotstxt", "--source", "cpython_robotparser"])
    out = capsys.readouterr().out
    assert "google_robotstxt" in out
    assert "cpython_robotparser" in out
    assert code == 0, out
