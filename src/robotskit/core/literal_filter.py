"""Which of many wildcard rules may match a long path, told by the literals the path must hold.

A pattern `s0*s1*...*sk` matches a path only if each of its literals occurs in the path (`s0` at
the start, each later one after the one before), so a rule one of whose literals is missing cannot
match, whatever the order. Each literal's first `q` bytes (UTF-8, `q` 3 or 4) are a q-gram that
must occur in the path's bytes: a rule with an absent gram is out. This is the literal pre-filter
of regex engines (RE2's, Hyperscan's) done with what CPython does in C:

- the path's q-grams are cut in one `bytes.split`: its bytes are laid out a window at a time, each
  followed by a byte UTF-8 never holds (strided copies), so no Python step per path position is
  made (a 5,000-character path: 5,000 four-byte `bytes`, hashed well, unlike small integers);
- the rules' last literals' grams (a last literal shorter than a gram: the literal before it,
  when longer, `_key_literals`) are indexed once per set (gram -> rules, a few `map`s over all
  the patterns): a check intersects the index's grams with the path's (C-level) and gathers the
  rules of the grams found, so a check costs the path's length and the rules left, not the set's
  size;
- the rules left are then tested on their literals before the last, a column at a time (the one
  before the last first), until few are left; a rule's keys for those are made the first time a
  check's survivors include it, and kept.

What is left is a superset of the rules that match (the filter only drops rules that cannot), so
walking the survivors with the exact matcher gives the exact answer. Hostile sets of random or
numbered literals (`/*ab*cd<i>`, random three-letter literals) leave a handful of rules; sets
whose literals all occur in the path (near misses built from the path) leave them all, and the
caller then falls back to its other tests (`wildcards.WildcardTrie` backs off).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain, compress, filterfalse, repeat, zip_longest
from operator import eq, getitem, itemgetter, lt, not_
from typing import cast

# The literals read per rule, from its end: the columns of the filter, a pass per column over the
# rules left (1,000 rules of 20 random three-letter literals: about 0.7 of them pass each column,
# so twelve leave a dozen).
COLUMNS = 12
# Passes stop once this few rules are left: walking them costs less than another pass.
FEW = 8
# Before any index is built, a path is tried against the last literals of this many rules (spread
# over the set): when more than SAMPLE_KEEP of them occur in it, the filter would not pay.
SAMPLE = 32
SAMPLE_KEEP = 0.9
# A check makes the rows of keys (the literals before the last) of this many rules at most: the
# cost is about 2 µs a rule (1,000 rules of 20 random literals: 0.7 of them on the first check).
ROWS = 1024
# The key of a literal shorter than the gram, or of a column a rule has no literal for: it tests
# nothing, and every path holds it.
ALWAYS = b""
# With 4-byte grams, rules whose last literal is one byte short are keyed by that literal instead
# of ALWAYS when at least this many are: the path's 3-byte grams are then cut too and intersected
# with those literals, where ALWAYS kept every such rule (3,000 groups of `/*c*ab*<i>x`: 90 of
# `<i>x` three bytes long, walked on every check). (Searching the path for each literal instead
# cost 5 µs a literal on a 5,000-character path.)
SHORT_RULES = 16
# Ends each window of the path: a byte no UTF-8 (surrogatepass included) holds.
_SEPARATOR = b"\xff"
_HEAD = (slice(0, 3), slice(0, 4))  # a literal's gram, by size
_SHORTEST_GRAM = 3
_NO_ROW = (ALWAYS,) * (COLUMNS - 1)  # the row of a rule whose row is not made yet


def path_grams(path: str, size: int) -> list[bytes]:
    """The `size`-byte (3 or 4) substrings of `path`'s UTF-8 bytes, by position."""
    return _grams(path.encode("utf-8", "surrogatepass"), size)


def _grams(data: bytes, size: int) -> list[bytes]:
    """The `size`-byte substrings of `data`, by position (see `path_grams`)."""
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
    return _heads(list(map(str.encode, literals, repeat("utf-8"), repeat("surrogatepass"))), size)


def _heads(literals: Sequence[bytes], size: int) -> list[bytes]:
    """Each literal's first `size` bytes; ALWAYS for a shorter one."""
    keys = cast(list[bytes], list(map(getitem, literals, repeat(_HEAD[size - 3]))))
    for short in compress(range(len(keys)), map(lt, map(len, keys), repeat(size))):
        keys[short] = ALWAYS
    return keys


class LiteralFilter:
    """The q-gram filter of a set of wildcard patterns (rule i is pattern i), built as checks need it:

    - nothing until a path makes a sample of the rules' last literals look selective
      (`worth_trying`): sets whose literals the paths hold (near misses) never pay for an index;
    - then the index of the last literals' grams, in a few C-level passes over the patterns;
    - and the keys of a rule's other literals the first time a check's survivors include it (a
      few C-level passes over those rules only), kept for the next checks.

    Safe with threads: the index (with its keys of short last literals, stored before it) and each
    row of keys are computed whole and stored once (racing threads compute equal ones); nothing
    stored is changed after, but the hint of whether the last check needed the columns, which
    changes how a check computes its survivors, not which.
    """

    __slots__ = (
        "_columns_used",
        "_first",
        "_first_keys",
        "_patterns",
        "_rows",
        "_sample",
        "_short",
        "_short_keys",
        "count",
        "size",
    )

    def __init__(self, patterns: Sequence[str]) -> None:
        self._patterns = patterns
        self.count = len(patterns)
        self.size = 0  # the gram size, 3 or 4: chosen by the first sample (0: not yet)
        self._first: dict[bytes, list[int]] | None = None
        # `_first`'s keys as a frozenset: its `intersection` with a check's 5,000 grams took 117 µs
        # against 210 µs for `_first.keys() & grams` (timeit, same data)
        self._first_keys: frozenset[bytes] = frozenset()
        # By rule index, the keys of its literals before the last (COLUMNS - 1, ALWAYS-padded).
        self._rows: dict[int, tuple[bytes, ...]] = {}
        # The rules whose last literal is one byte short of the gram, by that literal (SHORT_RULES).
        self._short: dict[bytes, list[int]] = {}
        self._short_keys: frozenset[bytes] = frozenset()
        # Whether the last check tested the columns (see `survivors`).
        self._columns_used = False
        # The sample `worth_trying` reads: its key literals, its last literals shorter than a
        # gram, and how many rules it holds (made with the gram size, on the first call).
        self._sample: tuple[list[str], list[str], int] = ([], [], 0)

    def worth_trying(self, path: str) -> bool:
        """Whether `path` lacks the grams of more than `1 - SAMPLE_KEEP` of a sample of the rules'
        key literals (always, once the index is built: `survivors` then judges). The first
        sample also chooses the gram size.

        Not when most of the sample's last literals are shorter than a gram and absent from the
        path: the bulk tail test rejects such rules at once (their last literal is searched once
        a check), where the filter, which cannot test them, would leave them to be walked (1,000
        `/*a*<i>*b` rules against a path without `b`: 25 µs against 1.2 ms a check)."""
        if not self.size:
            step = max(1, self.count // SAMPLE)
            sampled = self._patterns[::step]
            sample = _key_literals(sampled)
            # Grams of four bytes when most key literals are that long (numbered or long
            # literals), else of three (short random literals): a shorter gram occurs in more paths.
            long_enough = sum(map(lt, repeat(3), map(len, map(str.encode, sample))))
            self._sample = (sample, list(filter(_is_short, _last_literals(sampled))), len(sampled))
            self.size = 4 if long_enough * 2 >= len(sample) else 3  # (after `_sample`: racing threads)
        sample, short_lasts, sampled_count = self._sample
        if sum(map(not_, map(path.__contains__, short_lasts))) * 2 > sampled_count:
            return False
        if self._first is not None:
            return True
        keys = literal_keys(sample, self.size)
        held = keys.count(ALWAYS) + sum(map(path.encode("utf-8", "surrogatepass").__contains__, keys))
        return held <= len(sample) * SAMPLE_KEEP

    def _first_index(self) -> dict[bytes, list[int]]:
        """The rules by the key of their key literal (`_key_literals`; ascending lists)."""
        index = self._first
        if index is None:
            # (the literals joined and encoded once, then split: a line break is no literal's, and
            # its byte is in no other character's UTF-8; an `encode` per literal cost twice as much)
            lasts = "\n".join(_key_literals(self._patterns)).encode("utf-8", "surrogatepass").split(b"\n")
            index = {}
            for position, key in enumerate(_heads(lasts, self.size)):
                found = index.get(key)
                if found is None:
                    index[key] = [position]
                else:
                    found.append(position)
            always = index.get(ALWAYS)
            if always is not None and self.size == 4 and len(always) >= SHORT_RULES:
                self._index_short(index, always, lasts)
            self._first_keys = frozenset(index)
            self._first = index
        return index

    def _index_short(self, index: dict[bytes, list[int]], always: list[int], lasts: list[bytes]) -> None:
        """Take the rules of `always` whose last literal (of `lasts`) is 3 bytes out of it, into
        `_short` by that literal (see SHORT_RULES)."""
        short: dict[bytes, list[int]] = {}
        for position in compress(always, map(eq, map(len, map(lasts.__getitem__, always)), repeat(3))):
            short.setdefault(lasts[position], []).append(position)
        if sum(map(len, short.values())) < SHORT_RULES:
            return
        kept = list(filterfalse(set(chain.from_iterable(short.values())).__contains__, always))
        if kept:
            index[ALWAYS] = kept
        else:
            del index[ALWAYS]
        self._short = short
        self._short_keys = frozenset(short)

    def _rows_of(self, indexes: list[int]) -> dict[int, tuple[bytes, ...]]:
        """The rows of keys (see `_rows`), made for those of `indexes` that have none yet, ROWS
        at most (the others test nothing until a later check makes theirs)."""
        rows = self._rows
        missing = list(filterfalse(rows.__contains__, indexes))[:ROWS]
        if missing:
            # (each pattern encoded once, then split: its literals' bytes are those of the text)
            encoded = map(
                str.encode, map(self._patterns.__getitem__, missing), repeat("utf-8"), repeat("surrogatepass")
            )
            pieces = map(
                bytes.rsplit,
                map(bytes.removesuffix, encoded, repeat(b"$")),
                repeat(b"*"),
                repeat(COLUMNS - 1),
            )
            columns = list(zip_longest(*map(reversed, pieces), fillvalue=b""))[1:]  # (the last: indexed)
            if len(columns) == COLUMNS - 1:  # a rule of more `*` left the rest unsplit: its last literal
                columns[-1] = tuple(map(itemgetter(2), map(bytes.rpartition, columns[-1], repeat(b"*"))))
            keys = [_heads(column, self.size) for column in columns]
            keys += [[ALWAYS] * len(missing)] * (COLUMNS - 1 - len(keys))
            rows.update(zip(missing, zip(*keys, strict=True), strict=True))
        return rows

    def survivors(
        self, grams: list[bytes], limit: int, share: float, keep: float, data: bytes | None = None
    ) -> list[int] | None:
        """The indexes (ascending) of the rules whose every tested gram is among `grams` (the
        path's, `path_grams(path, self.size)`, after `worth_trying`), when at most `limit` and at
        most `share` of the rules are left; else None. None too when the last literals keep more
        than `keep` (a share) of the rules: the path holds them, and the filter does not pay.
        `data`: the path's UTF-8, in which the last literals one byte short of a gram are looked
        for (without it, those rules are all kept).

        The literals before the last are tested for the rules left only, one column at a time,
        until FEW are left, the columns run out, or a column keeps more than `keep` of them."""
        if not self.count:
            return []
        index = self._first_index()
        # The columns test the keys against the path's grams as a set. When the last check needed
        # them, that set is made first and the index's keys intersected with it (iterating the
        # smaller): intersecting the gram list, then making the set, hashed the path twice (230 +
        # 250 µs on 5,000 grams, 1,000 keys). Else the list is intersected, and the set made only
        # if the columns are needed after all. (A racy hint: either way is exact.)
        present: set[bytes] | None = None
        if self._columns_used:
            present = set(grams)
            found = self._first_keys & present
            present.add(ALWAYS)
        else:
            found = self._first_keys.intersection(grams)
        # (unordered until the end: the columns do not need the order, and few are left to sort)
        alive = list(chain(index.get(ALWAYS, ()), chain.from_iterable(map(index.__getitem__, found))))
        alive += self._short_in(data)
        if len(alive) > self.count * keep:
            return None
        used = False
        for column in range(COLUMNS - 1):
            left = len(alive)
            if left <= FEW:
                break
            rows = self._rows_of(alive) if column == 0 else self._rows
            keys = list(map(itemgetter(column), map(rows.get, alive, repeat(_NO_ROW))))
            if keys.count(ALWAYS) == left:
                continue  # (no literal of this column is long enough to test)
            if present is None:
                present = set(grams)
                present.add(ALWAYS)
            used = True
            alive = list(compress(alive, map(present.__contains__, keys)))
            if len(alive) > left * keep:
                break  # (the rules left share this column's literals with the path)
        self._columns_used = used
        return sorted(alive) if len(alive) <= min(limit, self.count * share) else None

    def _short_in(self, data: bytes | None) -> Iterable[int]:
        """The rules of `_short` whose last literal occurs in `data` (all of them without it)."""
        short = self._short
        if not short:
            return ()
        if data is None:
            return chain.from_iterable(short.values())
        return chain.from_iterable(map(short.__getitem__, self._short_keys.intersection(_grams(data, 3))))


def _last_literals(patterns: Sequence[str]) -> list[str]:
    """Each pattern's last literal (after its last `*`, without a final `$`; the whole pattern
    when it has no `*`). A `$` elsewhere is literal: only a final one anchors."""
    return list(
        map(str.removesuffix, map(itemgetter(2), map(str.rpartition, patterns, repeat("*"))), repeat("$"))
    )


def _is_short(literal: str) -> bool:
    """Is `literal` shorter than any gram (a key of it would test nothing)?"""
    return len(literal) < _SHORTEST_GRAM


def _key_literals(patterns: Sequence[str]) -> list[str]:
    """Each pattern's literal the index keys it by: its last literal (after its last `*`, without
    a final `$`; the whole pattern when it has no `*`), or, when that is shorter than a gram, the
    literal before it if longer. A `$` elsewhere is literal: only a final one anchors.

    Any literal of a pattern must occur in a path it matches, so any may key it; a last literal
    shorter than a gram tests nothing (ALWAYS), and rules whose last literal is short but whose
    literal before is not (`/*%41*abc%2F*de`) were all kept: 1,000 such rules against a random
    5,000-character path, 1.8 ms a check through the bulk tail test."""
    parts = list(map(str.rpartition, map(str.removesuffix, patterns, repeat("$")), repeat("*")))
    literals = list(map(itemgetter(2), parts))
    for at in compress(range(len(literals)), map(_SHORTEST_GRAM.__gt__, map(len, literals))):
        before = parts[at][0].rpartition("*")[2]
        if len(before) > len(literals[at]):
            literals[at] = before
    return literals
