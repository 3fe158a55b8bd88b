"""One `.warc.gz` file read in byte ranges, by several workers, with the rows a whole read gives.

A run with one big WARC file (or a few) would otherwise keep one worker busy and the others
idle: `discover` cuts such a file at gzip member starts into ranges of about `RANGE_BYTES`
(`split_points`), and each range is a unit of its own.

The one thing a range cannot see by itself is a redirect's target: a whole-file read follows a
redirect to the first capture of the target URL in the file (robotskit.batch.warc), which may lie
in another range. So a range unit looks targets up in an index of the whole file: for each URL,
the offsets of the gzip members whose WARC header block names a `response` for it, in file order.
Each range is scanned apart (`scan`, a task per range, so the scans run in parallel: a Dask task
whose result goes to the range units, or under the local pool a task that stores it in the run's
parts folder for them, `save_scan` and `StoredScans`) and a range unit merges the scans of its
file once per process (`whole_index`). A scan inflates each
member with zlib, at C speed (about 0.9 s of CPU for a 46 MB file, against about 12 s for the
analysis), and reads only the header block.

The index may over-report, never miss: a candidate is checked when it is used (the record is read
and decoded as the whole-file read does, and one that is damaged or names another URL is passed
over), and a member whose header block the scan cannot read for certain (not ASCII, folded
lines, no end in sight) is a candidate for every URL. A file where that is common, or where one
gzip member holds more than one record, is indexed by reading its records the whole-file way
instead: slower, the same answer.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import IO

from robotskit.batch._values import Capture
from robotskit.batch.warc import (
    BROKEN_MEMBER,
    GZIP_MAGIC,
    WARC_MAGIC,
    Response,
    Targets,
    fails,
    inflate_member,
    past_empty_members,
    read_at,
    read_captures,
    records,
    response_of,
    resync,
    unreadable,
    url_key,
)

RANGE_BYTES = 8 * 1024 * 1024  # a range unit's compressed size: a few thousand captures
_GZIP_HEADER = b"\x1f\x8b\x08\x00"  # magic, deflate, no flags
_FEED = 16_384  # compressed bytes handed to zlib at a time
_INFLATE = 262_144  # decompressed bytes taken from zlib at a time (a bomb costs time, not memory)
_HEAD = 65_536  # a WARC header block longer than this is not read by the scan
_MAX_ANYWHERE = 64  # members that are candidates for every URL, before the slow index is used
_TYPE = re.compile(rb"\r\nWARC-Type[ \t]*:([^\r\n]*)", re.IGNORECASE)
_URI = re.compile(rb"\r\nWARC-Target-URI[ \t]*:([^\r\n]*)", re.IGNORECASE)
_LENGTH = re.compile(rb"\r\nContent-Length[ \t]*:([^\r\n]*)", re.IGNORECASE)


def split_points(path: str, size: int, every: int = RANGE_BYTES) -> list[int]:
    """Where the ranges of a `.warc.gz` file of `size` bytes start: 0, then a record start (a
    gzip member that reads as a record) at or after each of ceil(size / every) - 1 even steps.
    [0] for a file of at most `every` bytes, or one where no later record start is found."""
    count = -(-size // max(1, every))  # ranges: ceil(size / every)
    if count < 2:
        return [0]
    step = size // count
    points = [0]
    with Path(path).open("rb") as fh:
        for k in range(1, count):
            found = resync(fh, max(k * step, points[-1] + 1), True)
            while found is not None and (fails(path, found) or _empty_before_other(fh, found)):
                found = resync(fh, found + 1, True)
            if found is None:
                break
            found = _before_empty_members(fh, found)
            if found > points[-1]:
                points.append(found)
    return points


# An empty gzip member as zlib writes it (`gzip.compress(b"")`): a 10-byte header without
# options, the empty final block, a zero CRC and size.
_EMPTY_MEMBER = 20
_EMPTY_TAIL = b"\x03\x00" + bytes(8)


def _is_empty_member(member: bytes) -> bool:
    """Are these `_EMPTY_MEMBER` bytes an empty gzip member as zlib writes it?"""
    return member[:4] == _GZIP_HEADER and member[-10:] == _EMPTY_TAIL


def _empty_before_other(fh: IO[bytes], at: int) -> bool:
    """Do empty gzip members start at `at`, followed by something else than a gzip member (an
    uncompressed record, bytes between records)? warcio reads that as a record named at the empty
    member's offset when a range starts there, where a whole read names it at its own: no cut
    there (found by fuzzing: the range lost the record after them)."""
    after = past_empty_members(fh, at)
    return after > at and os.pread(fh.fileno(), len(GZIP_MAGIC), after) != GZIP_MAGIC


def _before_empty_members(fh: IO[bytes], cut: int) -> int:
    """`cut`, moved back over the empty gzip members right before it: warcio reports the record
    after an empty member at that member's offset, so a whole read names the record there, and a
    cut between them would give the record twice (once from each side; found by fuzzing)."""
    while cut >= _EMPTY_MEMBER and _is_empty_member(
        os.pread(fh.fileno(), _EMPTY_MEMBER, cut - _EMPTY_MEMBER)
    ):
        cut -= _EMPTY_MEMBER
    return cut


def read_warc_range(
    path: str, start: int, end: int | None, max_bytes: int, scans: Sequence[MemberIndex] | None = None
) -> Iterator[Capture]:
    """The captures of the records of `path` that start in [start, end): the rows a whole read
    of the file gives for them, redirects followed across the whole file. `scans`: the `scan`
    of every range of the file, in file order; None scans the whole file here."""
    targets, empty = _targets(path, whole_index(path, scans), max_bytes)
    rows = 0
    for capture in read_captures(path, max_bytes, start=start, end=end, targets=targets):
        rows += 1
        yield capture
    if not rows and start == 0 and empty:
        yield unreadable(path)  # the file's one row, as a whole read gives it


_MERGED: dict[tuple[str, int, int], MemberIndex] = {}  # the last file's index, in this process


def whole_index(path: str, scans: Sequence[MemberIndex] | None) -> MemberIndex:
    """The index of the whole file, merged from its ranges' scans once per file version in a
    process (a worker runs many ranges of one file in a row)."""
    stat = Path(path).stat()
    key = (path, stat.st_size, stat.st_mtime_ns)
    index = _MERGED.get(key)
    if index is None:
        index = scan(path) if scans is None else merge(scans)
        _MERGED.clear()
        _MERGED[key] = index
    return index


def forget_indexes() -> None:
    """Drop the file indexes this process keeps (a sync run leaves none behind in its caller)."""
    _MERGED.clear()
    _exact_targets.cache_clear()


@dataclass(frozen=True, slots=True)
class MemberIndex:
    """Candidate offsets by `url_key`, in file order; members that are candidates for any URL;
    and whether the scan could index the file (False: a member holds two records)."""

    by_url: dict[str, list[int]]
    anywhere: list[int]
    regular: bool = True


def save_scan(path: str, start: int, end: int | None, dest: str) -> None:
    """`scan` a range and store it at `dest` as JSON, whole or not at all (the local scheduler's
    workers read their file's scans from there: `StoredScans`). JSON, not pickle: the file lies in
    the user's output folder, and reading it must not be able to run code."""
    index = scan(path, start, end)
    partial = Path(f"{dest}.{os.getpid()}.tmp")
    partial.write_text(json.dumps([index.by_url, index.anywhere, index.regular]), encoding="utf-8")
    partial.replace(dest)


def _stored_index(file: str) -> MemberIndex | None:
    """The index `save_scan` stored in `file`, or None when it is missing or not of that shape."""
    try:
        by_url, anywhere, regular = json.loads(Path(file).read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return None
    if not (isinstance(by_url, dict) and _offsets(anywhere) and isinstance(regular, bool)):
        return None
    if not all(map(_offsets, by_url.values())):
        return None
    return MemberIndex(by_url, anywhere, regular)


def _offsets(value: object) -> bool:
    return isinstance(value, list) and all(type(offset) is int for offset in value)


class StoredScans(Sequence[MemberIndex]):
    """The scans of a file's ranges, each read from the file `save_scan` stored it in, in the
    order of `spans`. A scan that is not stored (its task is still running on another worker,
    or failed) or does not read is made here: the same index, at the cost of one range's scan.
    Files the run itself writes and deletes (in its parts folder, named after the run's token)."""

    def __init__(self, path: str, spans: Sequence[tuple[int, int | None]], files: Sequence[str]) -> None:
        self.path, self.spans, self.files = path, list(spans), list(files)

    def __len__(self) -> int:
        return len(self.spans)

    def __iter__(self) -> Iterator[MemberIndex]:
        return (self[i] for i in range(len(self.spans)))

    def __getitem__(self, i: int) -> MemberIndex:  # type: ignore[override]  # (no slices: not needed)
        stored = _stored_index(self.files[i])
        if stored is not None:
            return stored
        start, end = self.spans[i]  # not there yet, or cut: scanned here
        return scan(self.path, start, end)


def merge(parts: Sequence[MemberIndex]) -> MemberIndex:
    """The index of a whole file from its ranges' indexes, given in file order."""
    by_url: dict[str, list[int]] = {}
    anywhere: list[int] = []
    for part in parts:
        for key, offsets in part.by_url.items():
            known = by_url.get(key)
            by_url[key] = offsets if known is None else known + offsets
        anywhere += part.anywhere
    return MemberIndex(by_url, anywhere, all(part.regular for part in parts))


def _targets(path: str, index: MemberIndex, max_bytes: int) -> tuple[Targets, bool]:
    """How a range finds redirect targets, and whether the file has no response record."""
    if not index.regular or len(index.anywhere) > _MAX_ANYWHERE:
        stat = Path(path).stat()
        return _exact_targets(path, stat.st_size, stat.st_mtime_ns, max_bytes)
    by_url, anywhere = index.by_url, index.anywhere

    def find(key: str) -> Response | None:
        offsets = by_url.get(key, [])
        if anywhere:
            offsets = sorted({*offsets, *anywhere})
        for offset in offsets:
            response = read_at(path, offset, max_bytes)
            # the test a whole read applies before indexing a capture
            if response.damaged is None and url_key(response.uri) == key:
                return response
        return None

    return find, not by_url and not anywhere


@lru_cache(maxsize=2)
def _exact_targets(path: str, size: int, mtime_ns: int, max_bytes: int) -> tuple[Targets, bool]:
    """The whole-file read's own index, built by reading every record (for irregular files).
    Built once per file version in a process (the last two files are kept)."""
    del size, mtime_ns  # the cache key: a changed file is indexed again
    first: dict[str, int] = {}
    for offset, record, error in records(path):
        if record is None:
            if error is not None and error.startswith(BROKEN_MEMBER):  # the record just read
                for key in [key for key, at in first.items() if at == offset]:
                    del first[key]
            continue
        try:
            response = response_of(offset, record, max_bytes)
        except Exception:  # an unreadable record: a whole read does not index it either
            continue
        if response is not None and response.damaged is None:
            first.setdefault(url_key(response.uri), offset)

    def find(key: str) -> Response | None:
        offset = first.get(key)
        return None if offset is None else read_at(path, offset, max_bytes)

    return find, not first


def scan(path: str, start: int = 0, end: int | None = None) -> MemberIndex:
    """Index the response records of the gzip members of `path` that start in [start, end)
    by their WARC headers alone."""
    by_url: dict[str, list[int]] = {}
    anywhere: list[int] = []
    for offset, data, size, complete in _members(path, start, end):
        if size < 0:  # an uncompressed record among the members: indexed the whole-file way
            return MemberIndex({}, [], regular=False)
        head_end = data.find(b"\r\n\r\n")
        head = data[: head_end + 2] if head_end >= 0 else b""
        if not _plain(head):
            if complete:
                anywhere.append(offset)
            # (a member that does not inflate to its end and whose head does not read: no whole
            # read reads a record there either)
            continue
        # A member cut short of its end (its trailer lost, say) whose header block reads: a whole
        # read still reads its record, so it is a candidate as any other (found by fuzzing: a
        # redirect's target there was "not in input" to the ranges alone).
        kind = _first(_TYPE, head)
        if kind != "response":
            if kind is None:
                anywhere.append(offset)
            continue
        length = _first(_LENGTH, head)
        if length is None or not length.isdigit():
            anywhere.append(offset)
            continue
        if head_end + 4 + int(length) + 4 < size:  # more in this member: another record
            return MemberIndex({}, [], regular=False)
        uri = _first(_URI, head)
        if uri is None:
            anywhere.append(offset)
            continue
        by_url.setdefault(url_key(uri.strip("<>")), []).append(offset)
    return MemberIndex(by_url, anywhere)


def _plain(head: bytes) -> bool:
    """A header block the regular expressions read exactly as warcio does: a WARC status line,
    ASCII, lines ended by CRLF only, no folded lines."""
    return (
        head.startswith(b"WARC/")
        and head.isascii()
        and head.count(b"\n") == head.count(b"\r\n") == head.count(b"\r")
        and b"\n " not in head
        and b"\n\t" not in head
    )


def _first(pattern: re.Pattern[bytes], head: bytes) -> str | None:
    """The value of the first header the pattern names, as warcio reads it (stripped)."""
    match = pattern.search(head)
    return None if match is None else match.group(1).decode("ascii").strip()


def _members(path: str, start: int, end: int | None) -> Iterator[tuple[int, bytes, int, bool]]:
    """(offset, its first inflated bytes, its inflated size, whether it is a whole member) for
    each gzip member of the file that starts in [start, end); after one that fails, the scan
    goes on at the next gzip magic. An uncompressed record (a `WARC/1.` line where a member
    should start, or where the scan goes on) is (offset, b"", -1, False), and the scan ends
    there: a whole read reads it (robotskit.batch.warc), and so must the index. Memory: a few
    pieces, whatever the member's size."""
    with Path(path).open("rb") as fh:
        length = os.fstat(fh.fileno()).st_size
        stop = length if end is None else min(end, length)
        offset = start
        while offset < stop:
            if os.pread(fh.fileno(), len(WARC_MAGIC), offset) == WARC_MAGIC:
                yield offset, b"", -1, False
                return
            member = inflate_member(fh, offset, _HEAD, 2048, _FEED, _INFLATE)  # most are about 1 KiB
            if member.length is not None:
                yield offset, member.head, member.size, True
                offset += member.length
                continue
            yield offset, member.head, member.size, False
            following = resync(fh, offset + 1, None)
            if following is None:
                return
            offset = following
