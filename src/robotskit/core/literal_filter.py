"""Which of many wildcard rules may match a long path, told by the literals the path must hold.

A pattern `s0*s1*...*sk` matches a path only if each of its literals occurs in the path (`s0` at
the start, each later one after the one before), so a rule one of whose literals is missing cannot
match, whatever the order. Each literal's first `q` bytes (UTF-8, `q` 3 or 4) are a q-gram that
must occur in the path's bytes: a rule with an absent gram is out. This is the literal pre-filter
of regex engines (RE2's, Hyperscan's) done with what CPython does in C:

- the path's q-grams are cut in one `bytes.split`: its bytes are laid out a window at a time, each
  followed by a byte UTF-8 never holds (strided copies), so no Python step per path position is
  made (a 5,000-character path: 5,000 four-byte `bytes`, hashed well, unlike small integers);
- each rule's grams are computed once per set, a column per literal (the last literal first, the
  one before it next, ...), in a few `map`s over all the rules;
- the first column is an index from gram to rules: a check intersects its grams with the path's
  (C-level) and gathers the rules of the grams found, so a check costs the path's length and the
  rules left, not the set's size; the next columns test only the rules left, until few are.

What is left is a superset of the rules that match (the filter only drops rules that cannot), so
walking the survivors with the exact matcher gives the exact answer. Hostile sets of random or
numbered literals (`/*ab*cd<i>`, random three-letter literals) leave a handful of rules; sets
whose literals all occur in the path (near misses built from the path) leave them all, and the
caller then falls back to its other tests (`wildcards.WildcardTrie` backs off).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, compress, repeat, zip_longest
from operator import getitem, itemgetter, lt
from typing import cast

# The literals read per rule, from its end: the columns of the filter, a pass per column over the
# rules left (1,000 rules of 20 random three-letter literals: about 0.7 of them pass each column,
# so twelve leave a dozen).
COLUMNS = 12
# Passes stop once this few rules are left: walking them costs less than another pass.
FEW = 8
# The key of a literal shorter than the gram, or of a column a rule has no literal for: it tests
# nothing, and every path holds it.
ALWAYS = b""
# Ends each window of the path: a byte no UTF-8 (surrogatepass included) holds.
_SEPARATOR = b"\xff"
_HEAD = (slice(0, 3), slice(0, 4))  # a literal's gram, by size


def path_grams(path: str, size: int) -> list[bytes]:
    """The `size`-byte (3 or 4) substrings of `path`'s UTF-8 bytes, by position."""
    data = path.encode("utf-8", "surrogatepass")
    windows = len(data) - size + 1
    if windows <= 0:
        return []
    stride = size + 1
    spread = bytearray(stride * windows)  # window i at stride * i, then the separator
    for offset in range(size):
        spread[offset::stride] = data[offset : offset + windows]
    spread[size::stride] = _SEPARATOR * windows
    grams = bytes(spread).split(_SEPARATOR)
    grams.pop()  # (the empty piece after the last separator)
    return grams


def literal_keys(literals: Sequence[str], size: int) -> list[bytes]:
    """Each literal's first `size` bytes (UTF-8), as `path_grams` cuts them; ALWAYS for a shorter one."""
    encoded = map(str.encode, literals, repeat("utf-8"), repeat("surrogatepass"))
    keys = cast(list[bytes], list(map(getitem, encoded, repeat(_HEAD[size - 3]))))
    for short in compress(range(len(keys)), map(lt, map(len, keys), repeat(size))):
        keys[short] = ALWAYS
    return keys


class LiteralFilter:
    """The q-gram filter of a set of wildcard patterns (rule i is pattern i); built lazily, a
    column on first need, so a set that never needs the third column never pays for it.

    Safe with threads: an index or a column is computed whole and stored once (racing threads
    compute equal ones); nothing is changed after.
    """

    __slots__ = ("_columns", "_first", "_first_keys", "_keys", "count", "size")

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
        self._keys: list[list[bytes] | None] = [None] * len(self._columns)
        self._first: dict[bytes, list[int]] | None = None
        self._first_keys: frozenset[bytes] = frozenset()

    def keys(self, column: int) -> list[bytes]:
        """The rules' keys of `column` (built on first use)."""
        found = self._keys[column]
        if found is None:
            found = self._keys[column] = literal_keys(self._columns[column], self.size)
        return found

    @property
    def depth(self) -> int:
        """How many columns the filter has."""
        return len(self._columns)

    def _first_index(self) -> dict[bytes, list[int]]:
        """The rules by their first column's key (ascending lists)."""
        index = self._first
        if index is None:
            index = {}
            for position, key in enumerate(self.keys(0)):
                found = index.get(key)
                if found is None:
                    index[key] = [position]
                else:
                    found.append(position)
            self._first_keys = frozenset(index)
            self._first = index
        return index

    def survivors(self, grams: list[bytes], limit: int, share: float, keep: float) -> list[int] | None:
        """The indexes (ascending) of the rules whose every tested gram is among `grams` (the
        path's, `path_grams(path, self.size)`), when at most `limit` and at most `share` of the
        rules are left; else None. None too when the first column keeps more than `keep` (a share)
        of the rules: the path holds their literals, and the filter does not pay.

        The later columns test only the rules left, until FEW are left, the columns run out, or a
        column keeps more than `keep` of them."""
        if not self.count:
            return []
        index = self._first_index()
        found = self._first_keys.intersection(grams)
        alive = sorted(chain(index.get(ALWAYS, ()), chain.from_iterable(map(index.__getitem__, found))))
        if len(alive) > self.count * keep:
            return None
        present: set[bytes] | None = None
        for column in range(1, self.depth):
            left = len(alive)
            if left <= FEW:
                break
            keys = list(map(self.keys(column).__getitem__, alive))
            if keys.count(ALWAYS) == left:
                continue  # (no literal of this column is long enough to test)
            if present is None:
                present = set(grams)
                present.add(ALWAYS)
            alive = list(compress(alive, map(present.__contains__, keys)))
            if len(alive) > left * keep:
                break  # (the rules left share this column's literals with the path)
        return alive if len(alive) <= min(limit, self.count * share) else None
