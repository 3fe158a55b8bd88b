"""Run every conformance vector of ../shared/conformance under each robotskit profile.

Usage: python tools/conformance.py [--profile P ...] [--source S ...] [--json] [--verbose]

Each `<source>.jsonl` vector is one allow/disallow check harvested from a public suite. The
suites contradict each other on purpose (conformance/README.md, "Where the sources disagree"),
so no profile can pass them all: every vector a profile does not follow must be listed in
tests/conformance/deviations.toml with the semantic point that explains it. This script prints,
per source and profile, passed / failed / listed, and exits 1 when a failure has no listed reason
or a listed vector now passes (so the list stays honest).

The module is also imported by tests/conformance/test_conformance.py; keep it free of globals
that do work at import time.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]

import robotskit

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared"
CONFORMANCE = SHARED / "conformance"
DEVIATIONS = ROOT / "tests" / "conformance" / "deviations.toml"

# Profiles whose deviations are gated. `gemini` is run on request only: the web suites know
# nothing of the companion spec, so its results are informational (see --profile gemini).
GATED_PROFILES = ("rfc9309", "google")
ALL_PROFILES = ("rfc9309", "google", "gemini")

# temoto asserts its placeholder vectors "for any agent" (testing/quick with random UAs):
# check the verdict holds for more than the one stand-in name the harvest recorded.
PLACEHOLDER_AGENTS = ("AnyBot", "QuuxCrawler")

Vector = Mapping[str, Any]


def sources(directory: Path = CONFORMANCE) -> list[str]:
    """Source names of the allow/disallow vector files (`<source>.jsonl`, not `.other.jsonl`)."""
    return sorted(p.stem for p in directory.glob("*.jsonl") if not p.name.endswith(".other.jsonl"))


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every JSON object of a .jsonl file, in file order."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_vectors(source: str, directory: Path = CONFORMANCE) -> list[dict[str, Any]]:
    """The allow/disallow vectors of one source."""
    return load_jsonl(directory / f"{source}.jsonl")


def load_other(source: str, directory: Path = CONFORMANCE) -> list[dict[str, Any]]:
    """The parse-level facts (`kind` = crawl_delay, sitemaps, ...) of one source."""
    path = directory / f"{source}.other.jsonl"
    return load_jsonl(path) if path.exists() else []


def body_of(vec: Vector) -> bytes:
    """The robots.txt body: the exact bytes when the harvest recorded them, else the text as UTF-8."""
    if vec.get("robots_txt_b64") is not None:
        return base64.b64decode(vec["robots_txt_b64"])
    return str(vec.get("robots_txt", "")).encode("utf-8")


def agents_of(vec: Vector) -> list[str | robotskit.Agent]:
    """The agent(s) to check; the vector passes only if every one gives the expected verdict.

    `multi_agent` vectors pass several tokens at once; Google's AllowedByRobots and
    crawler-commons both pool the groups of all of them, which is Agent(combine="merge").
    """
    if vec.get("multi_agent"):
        tokens = list(vec.get("user_agents") or vec.get("cc_effective_agent_tokens") or [])
        if not tokens:
            return [robotskit.Agent(None)]
        return [robotskit.Agent(tokens[0], aliases=tuple(tokens[1:]))]
    if vec.get("ua_is_placeholder"):
        return list(PLACEHOLDER_AGENTS)
    return [str(vec.get("user_agent", ""))]


def parse_vector(vec: Vector, profile: str) -> robotskit.RobotsTxt:
    """Parse a vector's body under a profile (with its robots.txt URL when the test depends on it)."""
    robots_url = vec.get("robots_url")
    if robots_url:
        return robotskit.parse(body_of(vec), profile, robots_url=str(robots_url))
    return robotskit.parse(body_of(vec), profile)


def check(vec: Vector, profile: str) -> tuple[bool, str]:
    """Run one vector: (passed, detail). An exception counts as a failure and is reported."""
    expected = bool(vec["expected_allowed"])
    try:
        robots = parse_vector(vec, profile)
        got = [robots.allowed(str(vec.get("url", "")), agent) for agent in agents_of(vec)]
    except Exception as exc:  # a vector must never crash the run: report it as a failure
        return False, f"raised {type(exc).__name__}: {exc}"
    if all(g == expected for g in got):
        return True, ""
    return False, f"expected {expected}, got {got}"


@dataclass
class SourceResult:
    """The outcome of one source under one profile."""

    source: str
    profile: str
    total: int = 0
    passed: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # id -> detail
    listed: dict[str, str] = field(default_factory=dict)  # failing ids with a listed reason
    unlisted: dict[str, str] = field(default_factory=dict)  # failing ids without a reason
    stale: list[str] = field(default_factory=list)  # listed ids that now pass

    @property
    def ok(self) -> bool:
        return not self.unlisted and not self.stale


def load_deviations(path: Path = DEVIATIONS) -> dict[str, dict[str, str]]:
    """profile -> {vector id -> reason key}, from deviations.toml (`[profiles.<p>]` tables)."""
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    profiles = data.get("profiles", {})
    return {p: {str(k): str(v) for k, v in ids.items()} for p, ids in profiles.items()}


def load_reasons(path: Path = DEVIATIONS) -> dict[str, str]:
    """reason key -> explanation (the `[reasons]` table of deviations.toml)."""
    if not path.exists():
        return {}
    return {
        str(k): str(v) for k, v in tomllib.loads(path.read_text(encoding="utf-8")).get("reasons", {}).items()
    }


def run_source(source: str, profile: str, deviations: Mapping[str, str]) -> SourceResult:
    """Run every vector of one source under one profile and sort the failures."""
    result = SourceResult(source, profile)
    for vec in load_vectors(source):
        result.total += 1
        ok, detail = check(vec, profile)
        vid = vec["id"]
        if ok:
            result.passed += 1
            if vid in deviations:
                result.stale.append(vid)
            continue
        result.failed[vid] = detail
        if vid in deviations:
            result.listed[vid] = deviations[vid]
        else:
            result.unlisted[vid] = detail
    return result


def run(profiles: Sequence[str], only: Sequence[str] = ()) -> Iterator[SourceResult]:
    """Every (source, profile) result, sources in name order."""
    deviations = load_deviations()
    for source in sources():
        if only and source not in only:
            continue
        for profile in profiles:
            yield run_source(source, profile, deviations.get(profile, {}))


def _print_table(results: Sequence[SourceResult], verbose: bool) -> None:
    header = (
        f"{'source':<20} {'profile':<8} {'total':>5} {'passed':>6} {'failed':>6} "
        f"{'listed':>6} {'unlisted':>8} {'stale':>5}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r.source:<20} {r.profile:<8} {r.total:>5} {r.passed:>6} {len(r.failed):>6} "
            f"{len(r.listed):>6} {len(r.unlisted):>8} {len(r.stale):>5}"
        )
    for r in results:
        gated = r.profile in GATED_PROFILES
        for vid, detail in r.unlisted.items():
            print(f"{'UNLISTED' if gated else 'failed'} [{r.profile}] {vid}: {detail}")
        for vid in r.stale:
            print(f"STALE [{r.profile}] {vid}: listed as {r.listed.get(vid) or 'a deviation'} but passes")
        if verbose:
            for vid, reason in r.listed.items():
                print(f"listed [{r.profile}] {vid}: {reason}")


def main(argv: Sequence[str] | None = None) -> int:
    """Print the per-source table; exit 1 if a gated profile has an unlisted failure or a stale listing."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", action="append", choices=ALL_PROFILES, help="default: rfc9309 and google")
    ap.add_argument("--source", action="append", default=[], help="only this source (repeatable)")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    ap.add_argument("--verbose", "-v", action="store_true", help="also print listed deviations")
    args = ap.parse_args(argv)
    profiles = tuple(args.profile or GATED_PROFILES)
    results = list(run(profiles, args.source))
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "source": r.source,
                        "profile": r.profile,
                        "total": r.total,
                        "passed": r.passed,
                        "failed": sorted(r.failed),
                        "listed": r.listed,
                        "unlisted": r.unlisted,
                        "stale": r.stale,
                    }
                    for r in results
                ],
                indent=2,
            )
        )
    else:
        _print_table(results, args.verbose)
    bad = [r for r in results if r.profile in GATED_PROFILES and not r.ok]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
