"""The floor under a hostile file: the greedy searches alone, issued by one C-level `map`.

    .venv-bench/bin/python benchmarks/search_floor.py ["near miss: past the tail test, distinct" ...]

For each rule of the file, the positions its greedy match asks `str.find` from are computed once;
then `list(map(path.find, segments, positions))` is timed (fastest of 20): the cost of those searches
with no Python step around them. An evaluation that has to make them cannot be cheaper in pure Python.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the helper modules sit beside this script

import _workloads


def floor(body: bytes, path: str) -> tuple[int, float]:
    """How many greedy searches the rules of `body` make on `path`, and their fastest time in ms."""
    segments: list[str] = []
    positions: list[int] = []
    for line in body.decode().splitlines()[1:]:
        pattern = line.split(": ", 1)[1]
        parts = pattern.removesuffix("$").split("*")
        position = len(parts[0])
        for segment in filter(None, parts[1:]):
            segments.append(segment)
            positions.append(position)
            found = path.find(segment, position)
            if found < 0:
                break
            position = found + len(segment)
    find = path.find
    best = float("inf")
    gc.disable()
    try:
        for _ in range(20):
            started = time.perf_counter()
            list(map(find, segments, positions))
            best = min(best, time.perf_counter() - started)
    finally:
        gc.enable()
    return len(segments), best * 1e3


def main(argv: list[str]) -> int:
    cases = _workloads.hostile_cases()
    for name in argv or [name for name in cases if name.startswith("near miss")]:
        body, urls = cases[name]
        count, ms = floor(body, urls[0].removeprefix(_workloads.HOST))
        print(f"{name}: {count:,} greedy searches, {ms:.2f} ms in one C-level map")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
