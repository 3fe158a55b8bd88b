"""Timing primitives: a result value with spread, and in-process loops that keep the GC out of the timings.

Everything is ``time.perf_counter_ns``. Values are medians; the spread is half the range of the repeated
rounds relative to the median (``±4%`` = the rounds lay within 4% either side), or, for the child-process
measures with hundreds of passes, half the interquartile range. On a shared 2-core
machine the absolute numbers drift with the load; the ratios, measured side by side in one run with the
implementations interleaved round by round, are what to read.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

now = time.perf_counter_ns


@dataclass(slots=True)
class Result:
    """One cell of the table: a median value (in ``unit``) or a note saying why there is none."""

    value: float | None
    unit: str
    spread: float | None = None  # relative half-range, 0.04 = ±4%
    note: str = ""
    runs: list[float] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "unit": self.unit,
            "spread": self.spread,
            "note": self.note,
            "runs": self.runs,
        }


def summarize(values: Sequence[float], unit: str, note: str = "") -> Result:
    """Median of ``values`` with its relative half-range as the spread."""
    if not values:
        return Result(None, unit, note=note or "no data")
    med = statistics.median(values)
    spread = (max(values) - min(values)) / 2 / med if med > 0 and len(values) > 1 else None
    return Result(med, unit, spread, note, [round(v, 4) for v in values])


def percentile_spread(values: Sequence[float], unit: str) -> Result:
    """Median with the interquartile half-range as spread (for many repetitions, where one stall of the
    shared machine would otherwise blow up a min-max range)."""
    if len(values) < 5:
        return summarize(values, unit)
    q1, _, q3 = statistics.quantiles(values, n=4)
    med = statistics.median(values)
    spread = (q3 - q1) / 2 / med if med > 0 else None
    return Result(med, unit, spread, "", [round(v, 4) for v in values[:50]])


class NoGC:
    """Keep the cyclic GC out of a timed section, as ``timeit`` does; collect before it instead."""

    def __enter__(self) -> None:
        gc.collect()
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was:
            gc.enable()


def time_checks(
    bound: Callable[[str, str], Any], agent_first: bool, urls: Sequence[str], agent: str, reps: int
) -> float:
    """Median over ``reps`` passes of the mean ns per URL for one parsed file (library called directly)."""
    passes = []
    for _ in range(reps):
        if agent_first:
            t0 = now()
            for url in urls:
                bound(agent, url)
        else:
            t0 = now()
            for url in urls:
                bound(url, agent)
        passes.append((now() - t0) / len(urls))
    return statistics.median(passes)


def time_parse(
    parse: Callable[[bytes], Any],
    check: Callable[[Any, str, str], bool],
    body: bytes,
    url: str,
    agent: str,
    reps: int,
    full: Callable[[Any], Any] | None = None,
) -> tuple[float, float]:
    """Median ns of parse and of parse + first check (one parse per rep).

    ``full`` is for a library that reads lazily: the parse is then timed as ``parse`` followed by
    ``full`` (which forces the whole file to be read), and parse + first check is timed separately on
    a fresh parse, so each measure pays exactly what its name says. Without it both come from one
    sequence, parse then check.
    """
    parse_ns, first_ns = [], []
    parsed: Any = None
    for _ in range(reps):
        # The previous object is freed before the clock starts: freeing is no part of parsing, and
        # a fully read object (after `full`) would otherwise be freed inside the next timing.
        parsed = None
        t0 = now()
        parsed = parse(body)
        start = t0  # where parse + first check starts
        if full is not None:
            full(parsed)
            parsed = None
            start = now()
            parsed = parse(body)  # a fresh object, nothing read yet, for the first check
        t1 = now() if full is None else start
        if url:
            check(parsed, url, agent)
        t2 = now()
        parse_ns.append(t1 - t0)
        first_ns.append(t2 - start)
        if t2 - t0 > 5_000_000:  # a big file: one repetition per round is plenty
            break
    return statistics.median(parse_ns), statistics.median(first_ns)
