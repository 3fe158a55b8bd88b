"""Which of many wildcard rules may match a long path, told by the literals the path must hold.

A pattern `s0*s1*...*sk` matches a path only if each of its literals occurs in the path (`s0` at
the start, each later one after the one before), so a rule one of whose literals is missing cannot
match, whatever the order. Each literal's first `q` bytes (UTF-8, `q` 3 or 4) are a q-gram that
must occur in the path's bytes: a rule with an absent gram is out. This is the literal pre-filter
of regex engines (RE2's, Hyperscan's) done with what CPython does in C:

- the path's q-grams are read as integers through one `memoryview` cast of its bytes laid out a
  window per four bytes (strided copies and a `tolist`, all C-level, not one slice per position:
  a 5,000-character path costs a set of 5,000 small integers);
- each rule's grams are integers computed once per set, a column per literal (the last literal
  first, the one before it next, ...), in a few `map`s over all the rules;
- a check keeps the rules whose gram of the first column is in the path's set (one C-level pass
  over the rules), then tests the survivors' next column, and so on, until few are left.

What is left is a superset of the rules that match (the filter only drops rules that cannot), so
walking the survivors with the exact matcher gives the exact answer. Hostile sets of random or
numbered literals (`/*ab*cd<i>`, random three-letter literals) leave a handful of rules in a few
passes; sets whose literals all occur in the path (near misses built from the path) leave them
all, and the caller then falls back to its other tests (`wildcards.WildcardTrie` backs off).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from itertools import compress, repeat, zip_longest
from operator import getitem, itemgetter, lt
from typing import cast

# The literals read per rule, from its end: the columns of the filter, a pass per column over the
# rules left (1,000 rules of 20 random three-letter literals: about 0.7 of them pass each column,
# so twelve leave a dozen).
COLUMNS = 12
# Passes stop once this few rules are left: walking them costs less than another pass.
FEW = 8
# A literal shorter than the gram (or a column a rule has no literal for) tests nothing: its key.
ALWAYS = -1
_ORDER = sys.byteorder  # what `memoryview.cast("I")` reads integers in (`"little"` on x86, ARM)
_FIRST = (slice(0, 3), slice(0, 4))


def path_grams(path: str, size: int) -> set[int]:
    """The `size`-byte (3 or 4) substrings of `path`'s UTF-8 bytes as `literal_keys` reads them
    (four bytes in native order, a 3-byte one padded with a zero byte), and ALWAYS."""
    data = path.encode("utf-8", "surrogatepass")
    windows = len(data) - size + 1
    if windows <= 0:
        return {ALWAYS}
    # Window i's bytes at 4i, 4i + 1, ...: three or four strided copies (C-level), then one cast.
    spread = bytearray(4 * windows)
    for offset in range(size):
        spread[offset::4] = data[offset : offset + windows]
    grams = set(memoryview(spread).cast("I").tolist())
    grams.add(ALWAYS)
    return grams


def literal_keys(literals: Sequence[str], size: int) -> list[int]:
    """Each literal's first `size` bytes (UTF-8) as `path_grams` reads them; ALWAYS for a shorter one."""
    encoded = map(str.encode, literals, repeat("utf-8"), repeat("surrogatepass"))
    heads = cast(list[bytes], list(map(getitem, encoded, repeat(_FIRST[size - 3]))))
    keys = list(map(int.from_bytes, map(bytes.ljust, heads, repeat(4), repeat(b"\0")), repeat(_ORDER)))
    for short in compress(range(len(heads)), map(lt, map(len, heads), repeat(size))):
        keys[short] = ALWAYS
    return keys


class LiteralFilter:
    """The q-gram filter of a set of wildcard patterns (rule i is pattern i); built lazily, a
    column on first need, so a set that never needs the third column never pays for it.

    Safe with threads: a column is computed whole and stored once (racing threads compute equal
    lists); the rows are read only.
    """

    __slots__ = ("_columns", "_keys", "count", "size")

    def __init__(self, patterns: Sequence[str]) -> None:
        self.count = len(patterns)
        # Each rule's literals from its last (without a final `$`), COLUMNS at most; "" past its
        # first (a `*` at the start, or a rule of fewer literals). The first piece of a rule of
        # fewer `*` is its head, which the path must start with: a literal like any other here.
        pieces = map(
            str.rsplit, map(str.removesuffix, patterns, repeat("$")), repeat("*"), repeat(COLUMNS - 1)
        )
        self._columns: list[tuple[str, ...]] = list(zip_longest(*map(reversed, pieces), fillvalue=""))
        if len(self._columns) == COLUMNS:  # a rule of more `*` left the rest unsplit: its last literal
            rest = self._columns[-1]
            self._columns[-1] = tuple(map(itemgetter(2), map(str.rpartition, rest, repeat("*"))))
        # (a `$` inside the last literal stays: only a final `$` anchors, and the rest is literal)
        last = self._columns[0] if self._columns else ()
        # Grams of four bytes when most last literals are that long (numbered or long literals),
        # else of three (short random literals): a shorter gram occurs in more paths.
        long_enough = sum(map(lt, repeat(3), map(len, last)))
        self.size = 4 if long_enough * 2 >= len(last) else 3
        self._keys: list[list[int] | None] = [None] * len(self._columns)

    def keys(self, column: int) -> list[int]:
        """The rules' keys of `column` (built on first use)."""
        found = self._keys[column]
        if found is None:
            found = self._keys[column] = literal_keys(self._columns[column], self.size)
        return found

    @property
    def depth(self) -> int:
        """How many columns the filter has."""
        return len(self._columns)

    def survivors(self, grams: set[int], limit: int, share: float, keep: float) -> list[int] | None:
        """The indexes (ascending) of the rules whose every tested gram is in `grams` (the path's,
        `path_grams(path, self.size)`), when at most `limit` and at most `share` of the rules are
        left; else None. None too when the first pass keeps more than `keep` (a share) of the
        rules: the path holds their literals, and the filter does not pay.

        Each later pass tests the next column of the rules left (cheap: few are left), until
        FEW are left, the columns run out, or a pass keeps more than `keep` of them."""
        contains = grams.__contains__
        alive = list(compress(range(self.count), map(contains, self.keys(0))))
        if len(alive) > self.count * keep:
            return None
        for column in range(1, self.depth):
            left = len(alive)
            if left <= FEW:
                break
            alive = list(compress(alive, map(contains, map(self.keys(column).__getitem__, alive))))
            if len(alive) > left * keep:
                break  # (the rules left share this column's literals with the path)
        return alive if len(alive) <= min(limit, self.count * share) else None
