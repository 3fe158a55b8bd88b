"""The pure-Python build against the mypyc-compiled one (issue 15), side by side in one run.

    bash benchmarks/compile.sh                  # compiles src/robotskit/core into build/mypyc-tree
    .venv-bench/bin/python benchmarks/builds.py [--files 300] [--rounds 5]

Both builds are the same sources; each round measures one, then the other, in fresh child processes
(the two cannot share an interpreter: same package name). Cells: median over rounds ±half-range, and
compiled/pure. Measures: the steady check (µs/URL, median file), parse + first check (mean µs over the
sample), the client's allowed on a cached host (µs/call), many agents (µs/file, 94 agents), and the
hostile files' first and steady checks (µs, summed over the files: the wildcard modules' measure).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TREES = {"pure": ROOT / "src", "compiled": ROOT / "build" / "mypyc-tree"}


def _child(files: int) -> dict[str, float]:
    # robotskit comes from the tree on PYTHONPATH (chosen by the parent), so it is imported here
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _paths  # noqa: PLC0415
    import _workloads  # noqa: PLC0415
    from _timing import NoGC, now  # noqa: PLC0415

    import robotskit  # noqa: PLC0415

    sample = [s for s in _workloads.load_sample(files) if s.urls]
    agent = _workloads.AGENT
    first = []
    checks = []
    # One untimed file first: its first check loads the modules `parse` leaves to first use, a
    # cost of the process, not of any file.
    robotskit.parse(sample[0].body).allowed(sample[0].urls[0], agent)
    for s in sample:
        with NoGC():
            t0 = now()
            robots = robotskit.parse(s.body)
            robots.allowed(s.urls[0], agent)
            first.append((now() - t0) / 1000)
        for url in s.urls * 30:  # past the compile threshold: the steady state
            robots.allowed(url, agent)
        with NoGC():
            t0 = now()
            for url in s.urls:
                robots.allowed(url, agent)
            checks.append((now() - t0) / len(s.urls) / 1000)
    tokens = _paths.crawler_tokens()
    with NoGC():
        t0 = now()
        for s in sample:
            robots = robotskit.parse(s.body)
            for token in tokens:
                robots.allowed(s.urls[0], token)
        many = (now() - t0) / len(sample) / 1000
    client = _paths.client(sample[::5], 3)
    hostile_first, hostile_steady = _hostile(robotskit, agent, _workloads.hostile_cases(), now)
    compiled = robotskit.core.pattern.__file__.endswith((".so", ".pyd"))
    return {
        "check": statistics.median(checks),
        "parse_first": statistics.fmean(first),
        "client": client.sync_us,
        "many_agents": many,
        "hostile_first": hostile_first,
        "hostile_steady": hostile_steady,
        "compiled": float(compiled),
    }


def _hostile(
    robotskit: Any, agent: str, cases: dict[str, tuple[bytes, tuple[str, ...]]], now: Callable[[], int]
) -> tuple[float, float]:
    """Over the hostile files, the sum of each one's first check after parse (Python's `re` cache
    purged; the fastest of three) and the sum of its steady check (mean of 20 after 20 untimed),
    µs: the wildcard modules' own measure (`benchmarks/hostile.py` has each file's)."""
    from _timing import NoGC  # noqa: PLC0415 - beside this script, on the child's path

    firsts, steadies = [], []
    for body, urls in cases.values():
        tries = []
        for _ in range(3):  # the fastest of three fresh parses (one timing is a noisy machine's)
            re.purge()
            robots = robotskit.parse(body)
            with NoGC():
                t0 = now()
                robots.allowed(urls[0], agent)
                tries.append((now() - t0) / 1000)
        firsts.append(min(tries))
        later = [urls[i % len(urls)] for i in range(20)]
        for url in later:
            robots.allowed(url, agent)
        with NoGC():
            t0 = now()
            for url in later:
                robots.allowed(url, agent)
            steadies.append((now() - t0) / len(later) / 1000)
    return sum(firsts), sum(steadies)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--files", type=int, default=300)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(_child(args.files)))
        return 0
    if not (TREES["compiled"] / "robotskit").exists():
        raise SystemExit("no compiled tree: run `bash benchmarks/compile.sh` first")
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in TREES}
    for _ in range(args.rounds):
        for name, tree in TREES.items():
            out = subprocess.run(
                [sys.executable, __file__, "--child", "--files", str(args.files)],
                env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
                capture_output=True,
                text=True,
                check=True,
            )
            runs[name].append(json.loads(out.stdout))
    if not all(r["compiled"] for r in runs["compiled"]) or any(r["compiled"] for r in runs["pure"]):
        raise SystemExit("the compiled tree did not load compiled modules")
    rows = [
        ("check, median file  µs/URL", "check"),
        ("parse + 1st check, mean  µs", "parse_first"),
        ("client allowed, cached host  µs/call", "client"),
        ("94 agents x 1 URL, parse incl.  µs/file", "many_agents"),
        ("hostile files, first checks summed  µs", "hostile_first"),
        ("hostile files, steady checks summed  µs", "hostile_steady"),
    ]
    print(
        f"pure Python against mypyc-compiled robotskit.core: {args.files} corpus files, {args.rounds} rounds"
    )
    print(f"{'measure':42}{'pure':>16}{'compiled':>16}{'compiled/pure':>15}")
    for label, key in rows:
        cells = []
        for name in TREES:
            values = [r[key] for r in runs[name]]
            med = statistics.median(values)
            spread = (max(values) - min(values)) / 2 / med * 100 if med else 0.0
            cells.append((med, spread))
        ratio = cells[1][0] / cells[0][0]
        print(f"{label:42}" + "".join(f"{m:>10.2f} ±{s:3.0f}%" for m, s in cells) + f"{ratio:>14.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
