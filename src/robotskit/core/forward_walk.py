"""Many wildcard patterns matched against one path at once, a literal of every pattern per pass.

A pattern `head*s1*s2*...*sk` (a final `$` anchoring `sk` to the path's end) matches a path when
the path starts with `head` and the literals occur in order after it: taking each literal's first
occurrence after the previous one (a greedy walk) finds a match whenever there is one. `glob`
walks one pattern at a time, a Python step per literal; `ForwardWalk` walks all of them together,
one literal deep per pass, each pass a few C-level `map`s over the patterns still in.

Where a pass asks for many literals of one short length, their occurrences come from a table of
the path's substrings of that length (substring -> ascending start positions, made once per walk)
by `bisect`, not from a `str.find` that scans the path from the position on: random literals of
two letters occur some 700 characters apart in a random path, so a scan costs about a microsecond
and a bisect a tenth of that (1,000 rules of 50 random two-letter literals against a random
5,000-character path, where each rule is walked 7 to 17 literals deep before it fails: a Python
walk per rule 9.5 ms a check, these passes with finds 8.3 ms, with tables 3.3 ms).

Pure functions of their inputs; the patterns' pieces are split once and kept (`ForwardWalk`),
read only after.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from itertools import compress, repeat, zip_longest
from operator import add, ge, getitem, is_, itemgetter, not_
from time import perf_counter_ns
from typing import cast

__all__ = ["ForwardWalk", "substrings"]

# A pass that asks for at least this many literals, all of one length up to TABLE_LENGTH, reads
# them from a table of the path's substrings of that length (made once per walk: about 1 ms for
# 5,000 characters, a Python step per position) rather than scanning the path for each.
TABLE_LITERALS = 256
TABLE_LENGTH = 4

_AFTER_HEAD = itemgetter(slice(1, None))


class ForwardWalk:
    """The patterns split for `matching`: each one's head, its literals after the head by depth
    (None past its last), and for a `$`-anchored one, its final literal (tested at the path's
    end, not walked; a `$` pattern without `*` is the whole path)."""

    __slots__ = ("_columns", "_exact", "_finals", "_heads", "_lengths")

    def __init__(self, patterns: Sequence[str]) -> None:
        anchored = list(map(str.endswith, patterns, repeat("$")))
        bodies = list(patterns)
        for at in compress(range(len(bodies)), anchored):
            bodies[at] = bodies[at][:-1]
        parts = list(map(str.split, bodies, repeat("*")))
        self._heads = list(map(itemgetter(0), parts))
        # A `$`-anchored pattern's last literal ends the path: it is the pattern's final, and its
        # literals walked are those before it (None: a pattern without one).
        finals: list[str | None] = [None] * len(parts)
        exact: set[int] = set()
        for at in compress(range(len(parts)), anchored):
            pieces = parts[at]
            if len(pieces) > 1:
                finals[at] = pieces.pop()
            else:
                finals[at] = ""
                exact.add(at)
        self._finals = finals
        self._exact = exact
        self._columns = list(zip_longest(*map(_AFTER_HEAD, parts)))
        # Per depth, the one length of its literals up to TABLE_LENGTH, else 0 (no table serves
        # it): found the first time a pass at that depth has enough literals for a table.
        self._lengths: dict[int, int] = {}

    def matching(self, path: str, indexes: Iterable[int], deadline: int = 0) -> list[int] | None:
        """The indexes among `indexes` of the patterns that match `path` (in no set order); None
        when a pass starts after `deadline` (`perf_counter_ns`; 0: none)."""
        heads = self._heads
        live = list(indexes)
        live = list(compress(live, map(path.startswith, map(heads.__getitem__, live))))
        positions = list(map(len, map(heads.__getitem__, live)))
        matched: list[int] = []
        tables: dict[int, dict[str, list[int]]] = {}
        size = len(path)
        lengths = self._lengths
        for depth, column in enumerate(self._columns):
            if not live:
                return matched
            if deadline and perf_counter_ns() > deadline:
                return None
            literals = list(map(column.__getitem__, live))
            if None in literals:  # these patterns' literals ran out: each matches but for its final
                ended = list(map(is_, literals, repeat(None)))
                matched += self._ends(path, compress(live, ended), compress(positions, ended))
                going = list(map(not_, ended))
                live = list(compress(live, going))
                positions = list(compress(positions, going))
                literals = list(compress(literals, going))
            length = 0
            if len(literals) >= TABLE_LITERALS:
                length = lengths.get(depth, -1)
                if length < 0:  # (racing threads store equal values)
                    length = lengths[depth] = _one_length(column)
            if length:
                # (occurrences from the table: a literal the path lacks, or lacks from there on,
                # lands on the entry past the path's end)
                table = tables.get(length)
                if table is None:
                    table = tables[length] = _substring_table(path, length)
                beyond = [size + 1]
                starts = list(map(table.get, literals, repeat(beyond)))
                found = list(map(getitem, starts, map(bisect_left, starts, positions)))
                fits = list(map(ge, repeat(size), found))
            else:
                found = list(map(path.find, literals, positions))
                fits = list(map(ge, found, repeat(0)))
            live = list(compress(live, fits))
            positions = list(map(add, compress(found, fits), map(len, compress(literals, fits))))
        matched += self._ends(path, live, positions)
        return matched

    def _ends(self, path: str, indexes: Iterable[int], positions: Iterable[int]) -> list[int]:
        """Of the patterns at `indexes` whose literals were all found (the last ending at the
        matching position), those that match: all but the `$`-anchored ones whose final does not
        end the path at or after that position."""
        finals, exact = self._finals, self._exact
        out: list[int] = []
        size = len(path)
        for index, position in zip(indexes, positions, strict=True):
            final = finals[index]
            if final is None or (
                path.endswith(final)
                and size - len(final) >= position
                and (size == position or index not in exact)
            ):
                out.append(index)
        return out


def _one_length(column: Sequence[str | None]) -> int:
    """The length of every literal of `column` (None: no literal) when one, from 1 to TABLE_LENGTH; else 0."""
    if "" in column:  # (an empty literal: found where the walk stands, never in a table)
        return 0
    lengths = set(map(len, cast(Iterable[str], filter(None, column))))
    if len(lengths) == 1:
        length = lengths.pop()
        if length <= TABLE_LENGTH:
            return length
    return 0


def substrings(path: str, length: int) -> list[str]:
    """The path's substrings of `length` (> 0), by start: one C-level pass (a `zip` of shifted
    copies). (Also the bulk tail test's tables, `wildcards.Tails`.)"""
    return list(map("".join, zip(*(path[shift:] for shift in range(length)), strict=False)))  # (shortest)


def _substring_table(path: str, size: int) -> dict[str, list[int]]:
    """Each substring of `path` of `size` characters -> where it starts, ascending, then a last
    entry past the path's end (so that a bisect past the last occurrence lands on it)."""
    table: dict[str, list[int]] = {}
    get = table.get
    for position, gram in enumerate(substrings(path, size)):
        found = get(gram)
        if found is None:
            table[gram] = [position]
        else:
            found.append(position)
    beyond = len(path) + 1
    for starts in table.values():
        starts.append(beyond)
    return table
