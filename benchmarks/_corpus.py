"""In-process measures on the corpus sample: (a) check, (b) parse and parse + first check, (e) bytes per file,
and the exactness cross-check against Google's C++ parser.

Implementations are interleaved round by round (the order rotates each round), so a burst of load from
another process on the shared machine hits every implementation alike instead of one of them.
"""

from __future__ import annotations

import signal
import statistics
import sys
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import _peers
import _workloads
from _timing import NoGC, Result, time_checks, time_parse


@dataclass(slots=True)
class Prepared:
    """Parsed objects per implementation and the (file, url) pairs every implementation can check."""

    parsed: dict[str, list[Any]] = field(default_factory=dict)
    urls: list[tuple[str, ...]] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    verdicts: dict[str, list[list[bool]]] = field(default_factory=dict)
    hung: dict[str, str] = field(default_factory=dict)  # implementation -> where it exceeded the budget


class Hung(BaseException):
    """Raised by the alarm when one file takes an implementation longer than the budget.

    A BaseException, so that the ``except Exception`` around a peer's check does not swallow it.
    """


def _alarm(signum: int, frame: object) -> None:
    raise Hung


def prepare(
    impls: list[_peers.Impl], sample: list[_workloads.Sample], agent: str, budget_s: float = 10.0
) -> Prepared:
    """Parse every file and check every URL once per implementation (the warm-up).

    URLs that make any peer raise are dropped for all. An implementation that spends more than
    ``budget_s`` on one file (parse + its 20 checks) is taken out of the in-process measures and
    listed in ``prep.hung`` with the file and URL, instead of stalling the whole suite.
    """
    prep = Prepared()
    bad: set[tuple[int, str]] = set()
    seen: dict[str, dict[tuple[int, str], bool]] = {}
    can_alarm = hasattr(signal, "setitimer")
    previous = signal.signal(signal.SIGALRM, _alarm) if can_alarm else None
    try:
        for impl in impls:
            assert impl.parse is not None and impl.check is not None
            objs, errors, verdicts = [], 0, {}
            where = ""
            try:
                for i, s in enumerate(sample):
                    where = f"{s.file} (parse)"
                    if can_alarm:
                        signal.setitimer(signal.ITIMER_REAL, budget_s)
                    obj = impl.parse(s.body)
                    objs.append(obj)
                    for url in s.urls:
                        where = f"{s.file} {url}"
                        try:
                            verdicts[(i, url)] = bool(impl.check(obj, url, agent))
                        except Exception:  # a peer that cannot check a URL is counted, not fatal
                            bad.add((i, url))
                            errors += 1
                    if can_alarm:
                        signal.setitimer(signal.ITIMER_REAL, 0)
            except Hung:
                prep.hung[impl.name] = f"hung: over {budget_s:g} s on {where}"
                continue
            prep.parsed[impl.name] = objs
            prep.errors[impl.name] = errors
            seen[impl.name] = verdicts
    finally:
        if can_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    prep.urls = [tuple(u for u in s.urls if (i, u) not in bad) for i, s in enumerate(sample)]
    for name, verdicts in seen.items():
        prep.verdicts[name] = [[verdicts[(i, u)] for u in urls] for i, urls in enumerate(prep.urls)]
    return prep


Matrix = list[list[float]]  # [round][file], ns


def _aggregate(matrix: Matrix, over_files: Callable[[list[float]], float], unit: str) -> Result:
    """Per file the median over rounds (so one stall of the machine cannot move a file), then
    ``over_files``; the spread comes from the same aggregate taken round by round."""
    if not matrix or not matrix[0]:
        return Result(None, unit, note="no data")
    per_file = [statistics.median(col) for col in zip(*matrix, strict=True)]
    value = over_files(per_file) / 1000
    per_round = [over_files(row) / 1000 for row in matrix]
    spread = (max(per_round) - min(per_round)) / 2 / value if value > 0 and len(per_round) > 1 else None
    return Result(value, unit, spread, "", [round(v, 4) for v in per_round])


# Passes over a file's 20 URLs before (a) is timed: 600 checks, past robotskit's compile point.
STEADY_PASSES = 30


def run_rounds(
    impls: list[_peers.Impl],
    sample: list[_workloads.Sample],
    prep: Prepared,
    agent: str,
    rounds: int,
    reps: int,
    progress: bool = True,
) -> dict[str, dict[str, Result]]:
    """Measures (a) and (b): per round, every implementation over every file, in a rotated order.

    (a) is the steady state of a crawler that keeps asking one parsed file: before the rounds,
    every file of every implementation that keeps a parsed object is asked ``STEADY_PASSES``
    times over its URLs (robotskit compiles a rule set once it has been asked 512 times, when
    compiling has paid for itself; the peers do not adapt, and the passes change nothing for
    them). The cold cost is what "parse + 1st check" measures.
    """
    for impl in impls:
        if impl.bind is not None and not impl.reparses:
            for obj, urls in zip(prep.parsed[impl.name], prep.urls, strict=True):
                bound = impl.bind(obj)
                for _ in range(STEADY_PASSES):
                    for url in urls:
                        if impl.agent_first:
                            bound(agent, url)
                        else:
                            bound(url, agent)
    checks: dict[str, Matrix] = {i.name: [] for i in impls}
    parses: dict[str, Matrix] = {i.name: [] for i in impls}
    firsts: dict[str, Matrix] = {i.name: [] for i in impls}
    for r in range(rounds):
        order = impls[r % len(impls) :] + impls[: r % len(impls)]
        for impl in order:
            assert impl.parse is not None and impl.check is not None and impl.bind is not None
            if progress:
                print(f"  round {r + 1}/{rounds}: {impl.name}", file=sys.stderr, flush=True)
            per_file_check, per_file_parse, per_file_first = [], [], []
            with NoGC():
                for obj, urls in zip(prep.parsed[impl.name], prep.urls, strict=True):
                    if urls:
                        bound = impl.bind(obj)
                        per_file_check.append(time_checks(bound, impl.agent_first, urls, agent, reps))
            with NoGC():
                for s, urls in zip(sample, prep.urls, strict=True):
                    p, f = time_parse(
                        impl.parse, impl.check, s.body, urls[0] if urls else "", agent, reps, impl.full
                    )
                    per_file_parse.append(p)
                    per_file_first.append(f)
            checks[impl.name].append(per_file_check)
            parses[impl.name].append(per_file_parse)
            firsts[impl.name].append(per_file_first)
    out: dict[str, dict[str, Result]] = {"check": {}, "parse": {}, "parse_median": {}, "parse_first": {}}
    for impl in impls:
        n = impl.name
        out["check"][n] = _aggregate(checks[n], statistics.median, "µs")
        if impl.reparses:
            note = "parses per check"
            out["parse"][n] = Result(None, "µs", note=note)
            out["parse_median"][n] = Result(None, "µs", note=note)
        else:
            out["parse"][n] = _aggregate(parses[n], statistics.fmean, "µs")
            out["parse_median"][n] = _aggregate(parses[n], statistics.median, "µs")
        out["parse_first"][n] = _aggregate(firsts[n], statistics.fmean, "µs")
    return out


def memory_per_file(impl: _peers.Impl, sample: list[_workloads.Sample], prep: Prepared, agent: str) -> Result:
    """Mean bytes kept alive per parsed file (after its first check), seen by tracemalloc."""
    if impl.kind != "python":
        return Result(None, "B", note="native: not traced")
    assert impl.parse is not None and impl.check is not None
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    kept = []
    for s, urls in zip(sample, prep.urls, strict=True):
        obj = impl.parse(s.body)
        if urls:
            impl.check(obj, urls[0], agent)
        kept.append(obj)
    total = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    del kept
    return Result(total / len(sample), "B")


def disagreements(prep: Prepared, name: str, reference: str) -> Result:
    """How many (file, URL) verdicts of ``name`` differ from ``reference`` on the sample."""
    if name not in prep.verdicts or reference not in prep.verdicts:
        return Result(None, "", note="n/a")
    total = diff = 0
    for mine, ref in zip(prep.verdicts[name], prep.verdicts[reference], strict=True):
        total += len(ref)
        diff += sum(a != b for a, b in zip(mine, ref, strict=True))
    return Result(float(diff), "of", note=f"{total}")


def crosscheck_google(
    sample: list[_workloads.Sample], agents: tuple[str, ...]
) -> tuple[int | None, int, list[dict[str, Any]], str]:
    """robotskit's google profile against jwm.robotstxt (Google's C++) on every sample file, URL and agent."""
    rk = _peers.load_robotskit_google()
    ref_check, ref_missing = _peers.load_google_reference()
    if not rk.available or ref_check is None:
        return None, 0, [], rk.missing or ref_missing
    assert rk.parse is not None and rk.check is not None
    total = 0
    examples: list[dict[str, Any]] = []
    diff = 0
    for s in sample:
        robots = rk.parse(s.body)
        for agent in agents:
            for url in s.urls:
                total += 1
                ref = bool(ref_check(s.body, url, agent))
                try:
                    mine: bool | str = bool(rk.check(robots, url, agent))
                except Exception as exc:  # a crash is a disagreement, reported with its type
                    mine = f"raised {type(exc).__name__}"
                if mine != ref:
                    diff += 1
                    if len(examples) < 20:
                        examples.append(
                            {"file": s.file, "url": url, "agent": agent, "robotskit": mine, "google": ref}
                        )
    return diff, total, examples, ""
