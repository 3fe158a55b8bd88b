"""The memo one check shares across every wildcard rule it tries (`LastAt`).

A module of its own so that the optional compiled build (`hatch_build.py`) can leave it
interpreted while it compiles the matching around it: mypyc makes a `dict` subclass a native
class whose instances do not see class-level defaults, and setting them in an `__init__` instead
made each check's memo seven times dearer in the pure-Python build.
"""

from __future__ import annotations


class LastAt(dict[str, int]):
    """What one check has learnt about its path, shared by every rule the check tries.

    As a dict: the last position of each final literal in the path (`str.rfind`). A near miss
    fails on its final literal, and a failing search scans the whole rest of the path; rules that
    end on the same literal share that one scan. "An occurrence at `position` or later" is exactly
    "the last occurrence is at `position` or later", so the memo is exact whatever position asks.

    `after`: for the literals of the tail test, the last search made (see `glob.find_after`).
    `budget`: how many rules the check may still sort into wildcard tries (`wildcards`), shared
    by every trie it consults (a unit costs about 1 µs on long near-miss rules: at most a few
    tenths of a millisecond per check).
    `grams_first`, `grams_last`: tables of the path's substrings of `gram_lengths` (`wildcards`).
    `grams_of_path`: the path's q-grams for the literal filter, read once per check.
    """

    # Class-level defaults: an instance is made per check, and an `__init__` setting them cost
    # 0.45 µs against 0.06.
    after: dict[str, tuple[int, int]] | None = None  # made on first use: most checks never need it
    # 600 until 2026-11-27: measured with `benchmarks/hostile.py`, a check that sorted 600 rules
    # or split 150 patterns spent 0.4-0.8 ms doing it, and the checks that grew a trie took
    # 1.4-1.7 ms; at 250, 1.1 ms at most, with the same median check.
    budget: int = 250
    # Where each substring of the path of some lengths occurs first and last (the bulk tail test
    # builds them for many distinct literals; `Tails.deeper` reads them), and those lengths.
    grams_first: dict[str, int] | None = None
    grams_last: dict[str, int] | None = None
    gram_lengths: frozenset[int] = frozenset()
    # The path's q-grams as the literal filter reads them (`literal_filter.path_grams`), with q.
    grams_of_path: tuple[int, list[bytes]] | None = None
