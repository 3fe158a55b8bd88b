"""The hostile files alone: robotskit against its peers per check, and robotskit's first and later checks.

    .venv-bench/bin/python benchmarks/hostile.py [--only robotskit,Protego] [--cases "near miss"]

The same two measures as `bench.py` (d) and its stall table, for the hostile files only (issue 7's, and
issue 15's near-miss families, see `_workloads.near_miss_families`), so a change to wildcard matching
can be judged in a few minutes: each implementation's µs per check (after an untimed warm-up pass, in a
child process with a timeout), then for robotskit the first check after parse, the worst later check
and the median of 600 checks, each position the fastest of three fresh parses with Python's `re` cache
purged. Target (issue 15): every check, the first included, under 1 ms.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the helper modules sit beside this script

import _isolated
import _paths
import _peers
import _report
import _workloads
from _timing import Result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", metavar="NAMES", help="comma-separated implementations (default: all)")
    p.add_argument("--cases", metavar="TEXT", default="", help="only the hostile files whose name holds TEXT")
    p.add_argument("--timeout", type=float, default=5.0, help="per implementation and file, seconds")
    p.add_argument("--min-time", type=float, default=0.3, help="timed passes per cell, seconds")
    p.add_argument("--no-stalls", action="store_true", help="skip robotskit's first/later checks")
    args = p.parse_args(argv)
    names = args.only.split(",") if args.only else list(_peers.ORDER)
    started = time.time()
    load = os.getloadavg()[0]
    impls = [_peers.load(name) for name in names]
    live = [impl for impl in impls if impl.available]
    cases = {name: case for name, case in _workloads.hostile_cases().items() if args.cases in name}
    table: dict[str, dict[str, Result]] = {}
    for name in cases:
        print(f"per check: {name}", file=sys.stderr, flush=True)
        table[f"hostile:{name}"] = _isolated.for_all(
            f"hostile:{name}", live, args.timeout, args.min_time, lambda impl: ""
        )
        for impl in impls:
            table[f"hostile:{name}"].setdefault(impl.name, Result(None, "", note="not available"))
    stalls = []
    if "robotskit" in names and not args.no_stalls:
        for name, (body, urls) in cases.items():
            print(f"first and later checks: {name}", file=sys.stderr, flush=True)
            stalls.append(_paths.stall(name, body, urls, "hostile"))
    stamp = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    print(
        f"robotskit hostile files  {stamp}, {time.time() - started:.0f} s; "
        f"load {load:.1f} -> {os.getloadavg()[0]:.1f}; Python {platform.python_version()}"
    )
    print("versions: " + ", ".join(f"{i.name} {i.version}" for i in impls if i.available))
    print("cells: µs per check, median of timed passes; then peer/robotskit (5.0x = robotskit 5x faster)")
    print()
    print(_report.render(table, names, ""))
    if stalls:
        print()
        print(_paths.render(None, stalls))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
