"""Profile robotskit on the benchmark workloads and print the hotspots (cProfile, sorted by own time).

    .venv-bench/bin/python benchmarks/profile_robotskit.py [--files 300] [--top 15] [--only check,parse]

Workloads: ``check`` = every URL of the corpus sample on already parsed files (x20 passes), ``parse`` = every
sample file parsed (x3), ``first`` = parse + first check, ``rules10k`` = checks on 10,000 prefix rules,
``hostile`` = the 1,000-wildcard-rule file against a 5,000-character path.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _workloads

import robotskit


def _workloads_for(files: int) -> dict[str, Callable[[], object]]:
    sample = _workloads.load_sample(files)
    agent = _workloads.AGENT
    parsed = [robotskit.parse(s.body) for s in sample]
    rules_body, rules_urls = _workloads.many_prefix_rules()
    rules = robotskit.parse(rules_body)
    hostile_body, hostile_urls = _workloads.hostile_cases()["1,000 rules /*a*<i>*b"]
    hostile = robotskit.parse(hostile_body)

    def check() -> None:
        for _ in range(20):
            for robots, s in zip(parsed, sample, strict=True):
                for url in s.urls:
                    robots.allowed(url, agent)

    def parse() -> None:
        for _ in range(3):
            for s in sample:
                robotskit.parse(s.body)

    def first() -> None:
        for s in sample:
            if s.urls:
                robotskit.parse(s.body).allowed(s.urls[0], agent)

    def rules10k() -> None:
        for _ in range(5):
            for url in rules_urls:
                rules.allowed(url, agent)

    def hostile_check() -> None:
        for _ in range(50):  # enough checks to reach the indexed path, as the benchmark's passes do
            hostile.allowed(hostile_urls[0], agent)

    return {"check": check, "parse": parse, "first": first, "rules10k": rules10k, "hostile": hostile_check}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--files", type=int, default=300)
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--only", help="comma-separated workloads (default: all)")
    args = p.parse_args(argv)
    loads = _workloads_for(args.files)
    for name in args.only.split(",") if args.only else loads:
        prof = cProfile.Profile()
        prof.runcall(loads[name])
        buf = io.StringIO()
        stats = pstats.Stats(prof, stream=buf)
        stats.strip_dirs().sort_stats("tottime").print_stats(args.top)
        lines = [ln for ln in buf.getvalue().splitlines() if ln.strip()]
        print(f"== {name} ==")
        print("\n".join(lines[2:]))  # drop the blank pstats preamble
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
