"""robotskit against its peers, measured side by side in one run; prints one table (issue 7).

    bash benchmarks/run.sh                       # sets up .venv-bench, then runs this
    .venv-bench/bin/python benchmarks/bench.py [--quick] [--json out.json] [--only robotskit,Protego]

Measures (see docs/benchmarks.md): (a) one allowed() check on a parsed real file, (b) parsing real files,
(c) 10,000 prefix rules, (d) hostile wildcards with a per-call timeout, (e) memory, (f) a 500 KiB file of
wildcards. Every cell is a median over repeated runs with its spread; ratios are peer / robotskit.
"""

from __future__ import annotations

import argparse
import datetime as dt
import faulthandler
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the helper modules sit beside this script

import _corpus
import _isolated
import _paths
import _peers
import _report
import _workloads
from _timing import Result


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--quick", action="store_true", help="smoke run: 60 files, 2 rounds, short timeouts (~1 min)"
    )
    p.add_argument("--json", metavar="PATH", help="also write machine-readable results here")
    p.add_argument("--only", metavar="NAMES", help="comma-separated implementations (default: all)")
    p.add_argument("--files", type=int, help="corpus files in the sample (default 300, quick 60)")
    p.add_argument("--rounds", type=int, help="interleaved rounds (default 5, quick 2)")
    p.add_argument("--timeout", type=float, help="per child-process case, seconds (default 5, quick 2)")
    p.add_argument("--no-isolated", action="store_true", help="skip (c), (d), (e) 500 KiB and (f)")
    p.add_argument("--no-paths", action="store_true", help="skip (g) many agents, the client and the stalls")
    p.add_argument(
        "--paths-only", action="store_true", help="only (g) many agents, the client and the stalls"
    )
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--impl", help=argparse.SUPPRESS)
    p.add_argument("--min-time", type=float, default=0.3, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    if args.child:
        return _isolated.child_main(args.child, args.impl, args.min_time)
    quick = args.quick
    n_files = args.files or (60 if quick else 300)
    rounds = args.rounds or (2 if quick else 5)
    reps = 2 if quick else 5
    timeout = args.timeout or (2.0 if quick else 5.0)
    min_time = 0.05 if quick else 0.3
    names = args.only.split(",") if args.only else list(_peers.ORDER)
    unknown = [n for n in names if n not in _peers.FACTORIES]
    if unknown:
        raise SystemExit(f"unknown implementation(s) {unknown}; choose from {sorted(_peers.FACTORIES)}")
    started = time.time()
    # Last resort against a hang outside the per-file and per-child budgets: dump every stack and exit.
    faulthandler.dump_traceback_later(300 if quick else 1800, exit=True)
    load_before = os.getloadavg()

    impls = [_peers.load(n) for n in names]
    for impl in impls:
        _say(f"{impl.name}: {impl.missing or impl.version}")
    live = [i for i in impls if i.available]
    loaded = list(live)  # the isolated measures run these in children, with their own timeouts
    agent = _workloads.AGENT

    _say(f"corpus sample: {n_files} files stratified by size (seed {_workloads.SEED})")
    sample = _workloads.load_sample(n_files)
    _say("warm-up: parsing the sample once per implementation")
    prep = _corpus.prepare(live, sample, agent, budget_s=timeout * 2)
    for impl in live:
        if impl.name in prep.hung:  # a hang is a finding: it becomes the column's note, the run goes on
            impl.missing = prep.hung[impl.name]
            _say(f"{impl.name}: {impl.missing}")
    live = [i for i in live if i.available]
    table: dict[str, dict[str, Result]] = {}
    if not args.paths_only:
        table = _corpus.run_rounds(live, sample, prep, agent, rounds, reps)
        _say("memory per parsed file (tracemalloc)")
        table["mem_file"] = {i.name: _corpus.memory_per_file(i, sample, prep, agent) for i in live}
        if "jwm.robotstxt" in prep.verdicts:
            table["disagree"] = {i.name: _corpus.disagreements(prep, i.name, "jwm.robotstxt") for i in live}

    paths_text = ""
    if not args.no_paths:
        _say("(g) many agents: every crawler-table token, one URL each, per file")
        table["many_agents"] = _paths.many_agents(live, sample, rounds)
        objects = _paths.many_agent_objects(sample, rounds) if "robotskit" in names else None
        _say("client on a cached host against RobotsTxt.allowed")
        client = _paths.client(sample[:: 3 if quick else 1], reps) if "robotskit" in names else None
        _say("stalls: worst single check of the first 2,000 (robotskit)")
        stalls = [_paths.stall(*case) for case in _paths.stall_cases(quick)] if "robotskit" in names else []
        paths_text = _paths.render(client, stalls, objects)

    if not args.no_isolated and not args.paths_only:
        isolated = [
            "rules10k",
            *(f"hostile:{k}" for k in _workloads.hostile_cases()),
            "mem500k",
            "wild500k",
            "agents500k",
        ]
        for measure in isolated:
            _say(f"isolated: {measure}")

            def skip(impl: _peers.Impl, measure: str = measure) -> str:
                return "native: not traced" if measure == "mem500k" and impl.kind != "python" else ""

            table[measure] = _isolated.for_all(measure, loaded, timeout, min_time, skip)

    _say("cross-check: robotskit profile='google' against jwm.robotstxt")
    diff, total, examples, why = (
        _corpus.crosscheck_google(sample, _workloads.CROSSCHECK_AGENTS)
        if not args.paths_only
        else (None, 0, [], "skipped")
    )
    crosscheck = f"robotskit[google] {diff}/{total} differ" if diff is not None else f"cross-check {why}"

    for impl in impls:  # unavailable implementations still get a column that says why
        for row in table.values():
            note = "hung" if impl.name in prep.hung else "not available"  # the reason is below the table
            row.setdefault(impl.name, Result(None, "", note=note))

    elapsed = time.time() - started
    head = [
        f"robotskit benchmarks  {dt.datetime.now().strftime('%Y-%m-%d %H:%M')}  "
        f"{'quick' if quick else 'full'} run, {elapsed:.0f} s",
        f"machine: {_cpu()}, {os.cpu_count()} cores, load {load_before[0]:.1f} -> {os.getloadavg()[0]:.1f}; "
        f"Python {platform.python_version()} {platform.system()}",
        "versions: " + ", ".join(f"{i.name} {i.version}" for i in impls if i.available),
        f"sample: {len(sample)} corpus files stratified by size (seed {_workloads.SEED}), "
        f"{sum(len(u) for u in prep.urls)} URLs, agent {agent!r}; bodies cut at 500 KiB for everyone; "
        f"{rounds} interleaved rounds",
        "cells: median ±half-range over rounds, then peer/robotskit (5.0x = robotskit 5x faster/smaller); "
        "Google C++ bindings re-parse the file on every check",
    ]
    missing = [f"{i.name}: {i.missing}" for i in impls if not i.available]
    if missing and Path(sys.prefix).name != ".venv-bench":
        missing.append("(bash benchmarks/run.sh installs every peer into .venv-bench and runs there)")
    errors = [f"{n}: {c} checks raised (URLs dropped for all)" for n, c in prep.errors.items() if c]
    text = _report.render(table, [i.name for i in impls], crosscheck)
    print("\n".join([*head, "", text, "", *missing, *errors, "", paths_text]).rstrip())

    if args.json:
        out: dict[str, Any] = {
            "date": dt.datetime.now().isoformat(timespec="seconds"),
            "mode": "quick" if quick else "full",
            "machine": {"cpu": _cpu(), "cores": os.cpu_count(), "load": [load_before, os.getloadavg()]},
            "python": platform.python_version(),
            "implementations": {i.name: i.missing or i.version for i in impls},
            "sample": {"files": [s.file for s in sample], "seed": _workloads.SEED, "agent": agent},
            "rounds": rounds,
            "results": {k: {n: r.as_json() for n, r in row.items()} for k, row in table.items()},
            "crosscheck_google": {"differ": diff, "total": total, "examples": examples, "note": why},
            "peer_check_errors": prep.errors,
            "elapsed_s": round(elapsed, 1),
            "table": text,
            "paths": paths_text,
        }
        Path(args.json).write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
        _say(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
