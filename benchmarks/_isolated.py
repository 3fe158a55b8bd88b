"""Measures that may hang a peer (10k rules, hostile wildcards, 500 KiB files) run in a child process.

The parent starts ``bench.py --child MEASURE --impl NAME`` with a timeout. A peer that backtracks for
seconds is then reported as ``>N s`` instead of stalling the suite, and each memory measure starts from a
fresh interpreter so tracemalloc sees only what that one parse keeps alive.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _peers
import _workloads
from _timing import NoGC, Result, now, percentile_spread, summarize

BENCH = Path(__file__).resolve().parent / "bench.py"


def _checks_case(name: str) -> tuple[bytes, tuple[str, ...]]:
    if name == "rules10k":
        return _workloads.many_prefix_rules()
    return _workloads.hostile_cases()[name.removeprefix("hostile:")]


def _emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj), flush=True)


def _child_checks(impl: _peers.Impl, name: str, min_time_s: float) -> dict[str, Any]:
    """Per-check µs: one parse, one untimed warm-up pass (lazy indexes are parse cost), then timed passes.

    Every pass is also printed as it ends, so a parent that runs out of time still has what was measured.
    """
    assert impl.parse is not None and impl.check is not None
    body, urls = _checks_case(name)
    agent = _workloads.AGENT
    t0 = now()
    parsed = impl.parse(body)
    _emit({"stage": "parsed", "ns": now() - t0})

    assert impl.bind is not None
    bound, agent_first = impl.bind(parsed), impl.agent_first

    def one_pass() -> float:
        t = now()
        for url in urls:
            if agent_first:
                bound(agent, url)
            else:
                bound(url, agent)
        return (now() - t) / len(urls) / 1000

    with NoGC():
        warm = one_pass()
    _emit({"warm": warm})
    passes: list[float] = []
    wanted = 1 if warm * len(urls) > 500_000 else 3  # a peer at >0.5 s per pass: one timed pass is enough
    start = now()
    with NoGC():
        while len(passes) < wanted or (now() - start < min_time_s * 1e9 and len(passes) < 2000):
            passes.append(one_pass())
            if wanted == 1:
                _emit({"pass": passes[-1]})
    return percentile_spread(passes, "µs").as_json()


def _child_parse_first(impl: _peers.Impl, min_time_s: float, agents: bool = False) -> dict[str, Any]:
    """Parse + first check of a 500 KiB file (wildcard rules, or one group of many agents), in ms."""
    assert impl.parse is not None and impl.check is not None
    body = _workloads.big_agent_group() if agents else _workloads.big_wildcards()
    url = _workloads.HOST + ("/private/x" if agents else "/7a/b12/index.php")
    impl.check(impl.parse(b"User-agent: *\nDisallow: /*x\n"), url, _workloads.AGENT)  # warm imports
    runs: list[float] = []
    start = now()
    while not runs or (now() - start < min_time_s * 1e9 and len(runs) < 5):
        with NoGC():
            t = now()
            impl.check(impl.parse(body), url, _workloads.AGENT)
            runs.append((now() - t) / 1e6)
    return summarize(runs, "ms").as_json()


def _child_memory(impl: _peers.Impl) -> dict[str, Any]:
    """Bytes kept alive by one parsed ~500 KiB file (after its first check, so lazy indexes count)."""
    assert impl.parse is not None and impl.check is not None
    body = _workloads.big_realistic()
    url = _workloads.HOST + "/catalog/17/private/page-17.html"
    impl.check(impl.parse(b"User-agent: *\nDisallow: /x\n"), url, _workloads.AGENT)  # warm imports and caches
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    parsed = impl.parse(body)
    impl.check(parsed, url, _workloads.AGENT)
    kept = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return Result(float(kept), "B", note=f"input {len(body):,} B").as_json()


def child_main(measure: str, impl_name: str, min_time_s: float) -> int:
    """Entry point of the child process: print progress lines and one final JSON result line."""
    impl = _peers.load(impl_name)
    if not impl.available:
        _emit({"result": Result(None, "", note=impl.missing).as_json()})
        return 0
    if measure in ("rules10k",) or measure.startswith("hostile:"):
        out = _child_checks(impl, measure, min_time_s)
    elif measure in ("wild500k", "agents500k"):
        out = _child_parse_first(impl, min_time_s, agents=measure == "agents500k")
    elif measure == "mem500k":
        out = _child_memory(impl)
    else:
        raise SystemExit(f"unknown child measure {measure!r}")
    _emit({"result": out})
    return 0


def run_isolated(measure: str, impl_name: str, timeout_s: float, min_time_s: float) -> Result:
    """Run one measure for one implementation in a child process; a timeout becomes ``>N s``."""
    cmd = [sys.executable, str(BENCH), "--child", measure, "--impl", impl_name, "--min-time", str(min_time_s)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        passes = [e["pass"] for e in events if "pass" in e] or [e["warm"] for e in events if "warm" in e]
        if passes:  # slow but finished at least one pass: report it, and that the budget ran out
            return summarize(passes, "µs", note=f"budget {timeout_s:g} s ran out")
        stage = "check" if any("stage" in e for e in events) else "parse"
        return Result(None, "", note=f">{timeout_s:g} s ({stage})")
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    final = [line["result"] for line in lines if "result" in line]
    if proc.returncode != 0 or not final:
        err = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return Result(None, "", note=f"error: {err[:80]}")
    r = final[-1]
    return Result(r["value"], r["unit"], r["spread"], r["note"], r["runs"])


def for_all(
    measure: str,
    impls: list[_peers.Impl],
    timeout_s: float,
    min_time_s: float,
    skip: Callable[[_peers.Impl], str],
) -> dict[str, Result]:
    """Run ``measure`` for every implementation; ``skip`` returns a note for those it does not apply to."""
    results = {}
    for impl in impls:
        why = "not available" if impl.missing and not impl.missing.startswith("hung") else skip(impl)
        # tracemalloc slows a parse several times over: the memory measure gets a longer leash.
        limit = max(4 * timeout_s, 20.0) if measure == "mem500k" else timeout_s
        results[impl.name] = (
            Result(None, "", note=why) if why else run_isolated(measure, impl.name, limit, min_time_s)
        )
    return results
