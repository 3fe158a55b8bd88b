"""WARC captures, replayed through the library's own fetch policy.

Common Crawl publishes robots.txt captures as WARC `response` records whose block is the HTTP
response. Each record is judged the way a live crawler would have judged that response: the
sans-IO `robotskit.policy.fetch_flow` runs with a fetch function that serves the record in hand,
and serves redirect targets from the same file (RFC 9309 2.3.1.2: up to 5 hops, across hosts,
the rules applying to the original authority). So status mapping, redirects and the size limit
are the policy's, not a second copy of it.

Chunked transfer and `Content-Encoding` are undone here: a gzip body is judged by its decoded
bytes, cut at `max_bytes` after decompression. A body that cannot be decoded is a bad response
(unreachable, RFC 9309 2.3.1.4). A record that cannot tell what the server sent is damaged and
becomes a row with `error` and no outcome, never a verdict on a guess: an unreadable gzip member
(reading resumes at the next member or `WARC/1.` line), a block cut short by the end of the
file, a body shorter than its Content-Length or cut by the crawler (`WARC-Truncated`) before the
parse limit, a status line that is not HTTP, a response record with an empty block.

Memory: one record at a time, plus a URL -> offset index of the file being read (to find redirect
targets). Redirect captures whose target comes later in the file are replayed after the pass.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import warcio.bufferedreaders  # type: ignore[import-untyped]
from warcio.archiveiterator import ArchiveIterator  # type: ignore[import-untyped]
from warcio.bufferedreaders import ChunkedDataException, ChunkedDataReader
from warcio.exceptions import ArchiveLoadFailed  # type: ignore[import-untyped]
from warcio.limitreader import LimitReader  # type: ignore[import-untyped]
from warcio.statusandheaders import StatusAndHeadersParser  # type: ignore[import-untyped]

from robotskit.batch._values import Capture
from robotskit.errors import ProtocolViolation
from robotskit.policy.authority import authority_key
from robotskit.policy.flow import fetch_flow, run_flow

# The live client's bounds (a longer stack of codings, more gzip members: hostile), held alike here.
from robotskit.policy.messages import MAX_CODINGS, MAX_GZIP_MEMBERS, FetchRequest, FetchResponse

# warcio logs what it repairs in hostile records (spaces in a target URI): with no handler of its
# own, Python's last-resort handler would print each one on a batch run's stderr. An
# application that configures logging still sees them.
logging.getLogger("warcio").addHandler(logging.NullHandler())


class _Records(ArchiveIterator):  # type: ignore[misc]
    """warcio's ArchiveIterator, with `empty_record` meaning the record just read.

    warcio's loop sets its `empty_record` flag at the first empty gzip member of a stream and
    never clears it. After that, a member that holds more than a record (a second record, junk
    after the block) no longer raises "non-chunked gzip": the stream ends quietly there, and
    what follows in the file is lost without a row. A read that starts after the empty member
    (a byte range) raised for the same member (found by fuzzing: the two reads differed by a
    row). This is warcio's own `_iterate_records` (as of 1.8), the flag cleared for each record.
    """

    def _iterate_records(self) -> Iterator[Any]:
        raise_invalid_gzip = False
        while True:
            empty_record = False
            try:
                self.record = self._next_record(self.next_line)
                if raise_invalid_gzip:
                    self._raise_invalid_gzip_err()
                yield self.record
            except EOFError:
                empty_record = True
            self.read_to_end()
            if self.reader.decompressor:
                if self.reader.read_next_member():  # another gzip member: go on
                    continue
                if empty_record:  # the end of the stream
                    break
                raise_invalid_gzip = True  # more than one record in a member: the next read raises
            elif empty_record:  # uncompressed: the end of the stream
                break
        self.close()


class _NoStderr:
    """What warcio's reader module sees as `sys`: the real one, but a stderr that drops what it
    is given. The reader prints each zlib error of a damaged member there itself (thousands of
    lines for one bad file), and reads on as if the member had ended there: a record whose
    member fails after its block was read would be judged on what the damaged data made up. So
    an error met while a `_Pass` inflates its members is noted for that pass (`_DECODING`)."""

    class _Drop:
        def write(self, text: str) -> int:
            noted = getattr(_DECODING, "errors", None)
            if noted is not None:
                noted.append(text.strip())
            return len(text)

        def flush(self) -> None:
            return None

    stderr = _Drop()

    def __getattr__(self, name: str) -> Any:
        return getattr(sys, name)


warcio.bufferedreaders.sys = _NoStderr()
# Per thread, the list a `_Pass` collects its members' zlib errors in while warcio inflates them.
_DECODING = threading.local()

_READ = 65_536
_SIZE_CAP = 64 * 1024 * 1024  # decoded bytes counted for `size` before reading stops
GZIP_MAGIC = b"\x1f\x8b\x08"
WARC_MAGIC = b"WARC/1."
# An uncompressed record's header block, as `fails` checks a place to resume at: at most this
# long, each line after the first a field name and its colon, or a continuation line.
_MAX_HEADER = 65_536
_FIRST_HEADER = 4096  # read first: nearly every header block ends within it
_EMPTY_LOOK = 256  # bytes that hold an empty gzip member (20 as zlib writes it, a name or two more)
_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length[ \t]*:[ \t]*([0-9]{1,18})[ \t]*\r\n", re.IGNORECASE)
_BLANK_LINE = re.compile(rb"\n\r?\n")
_HEADER_LINE = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+[ \t]*:|[ \t]")


@dataclass(frozen=True, slots=True)
class Response:
    """One response record, decoded: what the fetch function hands the policy."""

    uri: str
    offset: int
    fetched_at: float | None
    status: int
    headers: dict[str, str]
    body: bytes  # at most max_bytes
    size: int  # every decoded byte
    truncated: bool
    error: str | None = None  # the body could not be decoded: a bad response
    damaged: str | None = None  # the record cannot tell what was served: no verdict


# A redirect target's capture, found by its `url_key`; None when the file holds none.
Targets = Callable[[str], "Response | None"]


class _NotCaptured(Exception):
    """A redirect leads to a URL this WARC file holds no capture of."""


def read_warc(path: str, max_bytes: int) -> Iterator[Capture]:
    """Every `response` record of one WARC file as a capture, in file order (deferred ones last).

    A file that gives no row at all (empty, or nothing in it is a response record: random bytes
    that warcio takes for an old ARC header, a WARC of request records only) gives one error row
    instead, so that no input vanishes from the results without a word.
    """
    rows = 0
    for capture in read_captures(path, max_bytes):
        rows += 1
        yield capture
    if not rows:
        yield unreadable(path)


def unreadable(path: str) -> Capture:
    """The one row of a WARC file that gives no other row."""
    try:
        empty = Path(path).stat().st_size == 0
    except OSError:
        empty = False
    reason = "empty file" if empty else "no WARC response record in this file"
    return Capture(source=path, record=0, error=f"unreadable input: {reason}")


def read_captures(
    path: str, max_bytes: int, *, start: int = 0, end: int | None = None, targets: Targets | None = None
) -> Iterator[Capture]:
    """The captures of the records that start in [start, end) (every row, damaged ones too).

    `targets` finds a redirect target's capture by `url_key`. By default it is this read's own
    index: the first capture of each URL read so far, and of the whole stretch for the
    redirects whose target comes later (replayed after the pass). Both give the first capture
    of the target URL in the file; a read of one byte range passes the whole file's index
    (robotskit.batch.warc_ranges) to give the same answer.
    """
    index: dict[str, int] = {}  # only for the default `targets`: first offset of each URL
    own_index = targets is None
    if targets is None:

        def targets(key: str) -> Response | None:
            offset = index.get(key)
            return None if offset is None else read_at(path, offset, max_bytes)

    deferred: list[Response] = []
    # The row of the last record read waits for the next item: `records` may yet report that
    # record's gzip member broken (BROKEN_MEMBER), and its row is then that error instead.
    held: Capture | None = None
    for offset, record, error in records(path, start, end=end):
        if record is None and error is not None and error.startswith(BROKEN_MEMBER):
            for key in [key for key, at in index.items() if at == offset]:
                del index[key]  # no redirect is followed to it
            deferred = [response for response in deferred if response.offset != offset]
            if held is not None and held.record != offset:
                yield held
            held = _broken(path, offset, error, held)
            continue
        if held is not None:
            yield held
            held = None
        if record is None:
            held = Capture(source=path, record=offset, error=error or "unreadable record")
            continue
        try:
            response = response_of(offset, record, max_bytes)
        except Exception as exc:  # warcio or header parsing on hostile bytes: one row
            held = Capture(
                source=path, record=offset, error=f"unreadable record: {type(exc).__name__}: {exc}"
            )
            continue
        if response is None:
            if getattr(record, "rec_type", None) is None:
                # A header block warcio could not read as WARC (a member opening with a blank
                # line, say): whatever it held is lost, which the row says rather than hide.
                held = Capture(source=path, record=offset, error="unreadable record: it names no WARC-Type")
            continue
        if response.damaged is not None:
            held = _damaged(path, response)
            continue
        if own_index:
            index.setdefault(url_key(response.uri), offset)
        try:
            held = _replay(path, response, targets, max_bytes)
        except _NotCaptured:
            deferred.append(response)
        except Exception as exc:  # the policy or a redirect target on hostile bytes: one row
            held = _replay_failed(path, response, exc)
    if held is not None:
        yield held
    yield from _replay_deferred(path, deferred, targets, max_bytes)


def _replay_deferred(
    path: str, deferred: list[Response], targets: Targets, max_bytes: int
) -> Iterator[Capture]:
    """The rows of the redirects whose target came later in the stretch (or never)."""
    for response in deferred:
        try:
            capture = _replay(path, response, targets, max_bytes)
        except _NotCaptured as missing:
            capture = _target_missing(path, response, str(missing))
        except Exception as exc:  # the policy or a redirect target on hostile bytes: one row
            capture = _replay_failed(path, response, exc)
        yield capture


def _replay_failed(path: str, response: Response, exc: Exception) -> Capture:
    """The row of a response whose replay raised (the policy or a redirect target on hostile bytes)."""
    return replace(_damaged(path, response), error=f"replay: {type(exc).__name__}: {_short(exc)}")


def _target_missing(path: str, response: Response, target: str) -> Capture:
    """The row of a redirect whose target the input does not hold."""
    return Capture(
        source=path,
        record=response.offset,
        url=response.uri,
        host=_host(response.uri),
        fetched_at=response.fetched_at,
        status=response.status,
        content_type=response.headers.get("content-type"),
        reason=f"redirect target not in input: {target}",
    )


def _broken(path: str, offset: int, error: str, held: Capture | None) -> Capture:
    """The row of the record at `offset` whose gzip member `records` found broken: `held`, its
    row as read, keeps what the WARC header said (URL, time) and loses what the body made up."""
    if held is None or held.record != offset:
        return Capture(source=path, record=offset, error=error)
    return Capture(
        source=path,
        record=offset,
        url=held.url,
        host=held.host,
        fetched_at=held.fetched_at,
        status=held.status,
        content_type=held.content_type,
        error=error,
    )


def _damaged(path: str, response: Response) -> Capture:
    return Capture(
        source=path,
        record=response.offset,
        url=response.uri or None,
        host=_host(response.uri),
        fetched_at=response.fetched_at,
        status=response.status or None,
        content_type=response.headers.get("content-type"),
        error=response.damaged,
    )


def url_key(url: str) -> str:
    """A URL as the index keys it: the authority as the policy keys it, then path and query.
    A URL that does not parse (a broken `[IPv6]` host) keys as its own text."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    try:
        authority = authority_key(url)
    except ValueError:
        authority = f"{parts.scheme.lower()}://{parts.netloc.lower()}"
    return authority + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _replay(path: str, first: Response, targets: Targets, max_bytes: int) -> Capture:
    """Run the fetch policy for `first`'s authority with this file as the network."""
    try:
        return _run_policy(path, first, targets, max_bytes, first.headers)
    except (_NotCaptured, _Damaged):
        raise
    except Exception as exc:
        # The outcome does not depend on caching headers (Retry-After, max-age): judge without
        # them and say so, rather than lose the capture.
        plain = {k: v for k, v in first.headers.items() if k not in _CACHING_HEADERS}
        capture = _run_policy(path, first, targets, max_bytes, plain)
        note = f"policy: {type(exc).__name__}: {exc} (judged without its caching headers)"
        return replace(capture, error=capture.error or note)


_CACHING_HEADERS = frozenset({"retry-after", "cache-control", "expires", "age", "date", "last-modified"})


class _Damaged(Exception):
    """A redirect target in this file is a damaged record: the chain's outcome is unknown."""


def _run_policy(
    path: str, first: Response, targets: Targets, max_bytes: int, first_headers: dict[str, str]
) -> Capture:
    last: list[Response] = []

    def fetch(request: FetchRequest) -> FetchResponse:
        # The first request is the capture in hand; redirect hops are looked up in the file.
        if not last:
            response = first
            headers = first_headers
        else:
            found = targets(url_key(request.url))
            if found is None:
                raise _NotCaptured(request.url)
            response = found
            headers = response.headers
        last.append(response)
        if response.damaged is not None:
            raise _Damaged(f"redirect target {request.url} is damaged: {response.damaged}")
        if response.error is not None:
            raise ProtocolViolation(response.error, url=request.url)
        return FetchResponse(
            url=request.url,
            protocol="http",
            status=response.status,
            body=response.body,
            headers=headers,
            truncated=response.truncated,
        )

    def clock() -> float:
        return first.fetched_at or 0.0  # the capture's own time: TTLs are then as of the crawl

    try:
        entry = run_flow(fetch_flow(first.uri, clock=clock, max_bytes=max_bytes), fetch)
    except _Damaged as damaged:
        return replace(_damaged(path, first), error=str(damaged))
    final = last[-1]
    return Capture(
        source=path,
        record=first.offset,
        url=first.uri,
        host=_host(first.uri),
        fetched_at=first.fetched_at,
        status=first.status,
        final_status=final.status,
        redirects=tuple(entry.redirects),
        outcome=str(entry.outcome.value),
        reason=entry.reason,
        content_type=final.headers.get("content-type"),
        body=final.body,
        size=final.size,
        truncated=final.truncated,
        error=final.error,
    )


def read_at(path: str, offset: int, max_bytes: int) -> Response:
    """The response record at `offset` (a redirect target), decoded."""
    for got, record, failure in records(path, offset, single=True):
        error = failure
        try:
            response = response_of(got, record, max_bytes) if record is not None else None
        except Exception as exc:  # hostile bytes: the target is damaged
            error = f"unreadable record: {type(exc).__name__}: {exc}"
            response = None
        if response is not None and response.damaged is None:
            with Path(path).open("rb") as fh:
                if os.pread(fh.fileno(), len(GZIP_MAGIC), got) == GZIP_MAGIC:
                    broken = _broken_member(fh, got)
                    if broken is not None:  # as a whole read finds it (see `records`)
                        return replace(response, damaged=f"{BROKEN_MEMBER}: {broken}")
        if response is not None:
            return response
        return Response("", got, None, 0, {}, b"", 0, False, damaged=error or "not an HTTP response record")
    return Response("", offset, None, 0, {}, b"", 0, False, damaged="record vanished")


def records(
    path: str, start: int = 0, *, end: int | None = None, single: bool = False
) -> Iterator[tuple[int, Any, str | None]]:
    """(offset, record, None) for each record; (offset, None, message) for a damaged stretch.

    Only records (and damaged stretches) that start before `end` (None: the end of the file).

    After damage, reading resumes at the next gzip member or `WARC/1.` line found by scanning;
    the error row carries the offset of the first member that failed, and consecutive failures
    collapse into one row so a bad stretch yields one row.

    Records may be stored either way in one file (one uncompressed record in a `.warc.gz`, say,
    or gzip members after uncompressed records, as files joined together hold): warcio reads a
    stream one way, so where the other begins its pass stops, and the next pass starts there.
    """
    with Path(path).open("rb") as fh:
        position: int | None = start
        while position is not None and (end is None or position < end):
            if _stray_line(fh, position):  # (a place to resume at is checked: the start is not)
                yield position, None, _STRAY
                if single:
                    return
                position = _whole_after(path, fh, position + 1)
                continue
            reading = _Pass(fh, position)
            for offset, record in reading:
                if record is None:  # the record just read: its member then failed to inflate
                    yield offset, None, f"{BROKEN_MEMBER}: {reading.decode_errors[-1]}"
                    continue
                if end is not None and offset >= end:
                    return
                yield offset, record, None
                if single:
                    return
            damage, position = _resume(path, fh, reading, single)
            last = reading.last
            if reading.gz and last is not None and not single:
                broken = reading.broken_last or _broken_member(fh, last)
                if broken is not None:
                    # The stream failed after the last record read, inside that record's own
                    # member (a checksum that fails, deflate data that runs past the record's
                    # block): what the record was judged on is not what was stored. Its row
                    # becomes this error (see `read_captures`), and the damage after it in the
                    # same stretch is that row's too.
                    yield last, None, f"{BROKEN_MEMBER}: {broken}"
                    continue
            if damage is not None and (end is None or damage[0] < end):
                yield damage[0], None, damage[1]
            if single:
                return


class _Pass:
    """One run of warcio from `position` until it fails or ends: its records, then how it ended."""

    def __init__(self, fh: IO[bytes], position: int) -> None:
        self.fh, self.position = fh, position
        # warcio reads gzip members from a member start, else uncompressed records
        self.gz = os.pread(fh.fileno(), len(GZIP_MAGIC), position) == GZIP_MAGIC
        self.last: int | None = None  # the offset of the last record read
        self.error: Exception | None = None  # what stopped it
        self.lost = False  # it stopped at a record that is not a gzip member start
        self.stray: int | None = None  # it stopped at a `WARC/1.` line without a header block
        self.failed_at: int | None = None
        self.decode_errors: list[str] = []  # zlib errors warcio met inflating this pass's members
        self.broken_last: str | None = None  # one met after the last record was yielded

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        """(offset, record) per record; (offset, None) after a record whose member then failed to
        inflate (warcio read on past the error: see `_NoStderr`)."""
        fh = self.fh
        fh.seek(self.position)
        iterator = _Records(fh)
        iterator.INC_RECORD = ""  # warcio writes this to stderr itself; the row says it
        parser = iterator.loader.http_parser
        iterator.loader.http_parser = _HeaderParser(parser.statuslist, parser.verify)
        errors = self.decode_errors
        reader = iterator.reader
        inflate = reader._decompress

        def noted(data: bytes) -> Any:  # warcio's own call, its errors noted for this pass
            outer = getattr(_DECODING, "errors", None)  # (warcio calls itself for raw deflate)
            _DECODING.errors = errors
            try:
                return inflate(data)
            finally:
                _DECODING.errors = outer

        reader._decompress = noted
        seen = 0
        try:
            for record in iterator:
                if len(errors) > seen and self.last is not None:
                    yield self.last, None  # its member failed after it was read
                seen = len(errors)
                offset = iterator.offset
                behind = offset < self.position or (self.last is not None and offset <= self.last)
                if behind or (self.gz and os.pread(fh.fileno(), 3, offset) != GZIP_MAGIC):
                    # A record inside another's gzip member (not the one record per member a
                    # .warc.gz holds), or an uncompressed one after the members: warcio's
                    # offsets are lost from here (they even go below 0, or back to an earlier
                    # member's start: resuming from there read the file round and round for
                    # ever). Offsets only ever move forward. (An uncompressed record after
                    # the members is read by a pass of its own: see `_resume`.)
                    self.lost = True
                    return
                if not self.gz and self.last is not None and _stray_line(fh, offset):
                    self.stray = offset  # (the pass's first record was checked before it)
                    return
                self.last = offset
                yield offset, record
        except Exception as exc:  # any decoding failure is data, not a bug
            self.error = exc
            self.failed_at = iterator.offset  # where warcio was when it failed
        if len(errors) > seen and self.last is not None:
            self.broken_last = errors[-1]

    @property
    def after(self) -> int:
        """Where damage after this pass's records can start: past the start of the last record's
        own member (warcio names a record after empty gzip members by the first one's offset:
        the record's member is further on, and resuming at it read the record twice)."""
        if self.last is None:
            return self.position
        return (past_empty_members(self.fh, self.last) if self.gz else self.last) + 1


def _resume(
    path: str, fh: IO[bytes], reading: _Pass, single: bool
) -> tuple[tuple[int, str] | None, int | None]:
    """After a pass: the damage row it calls for, if any, and where reading goes on (None: the end)."""
    if reading.stray is not None:
        return (reading.stray, _STRAY), _whole_after(path, fh, reading.stray + 1)
    if reading.lost:
        after = _whole_after(path, fh, reading.after)
        if (
            after is not None
            and reading.last is not None
            and os.pread(fh.fileno(), len(WARC_MAGIC), after) == WARC_MAGIC
            and _member_end(fh, reading.after - 1) == after
        ):
            return None, after  # an uncompressed record right after the last member: read from there
        return (reading.after, "corrupt record: not at the start of a gzip member"), after
    if reading.error is not None:
        # The failing record starts after the last good one (or where this pass began).
        broken = reading.position if reading.last is None else resync(fh, reading.after, reading.gz)
        junk = _junk_at(reading)
        if junk is not None and not single:
            # Not a record where one should start (bytes between records, a member of text): a
            # damaged stretch of its own, unless a record that reads starts before it (a record
            # before it ran over the next one's header: that record is read again from there),
            # or it is one that reads, stored the other way (a gzip member after uncompressed
            # records: a pass of its own reads it).
            after = _whole_after(path, fh, reading.after)
            if after is not None and (after < junk or reading.position < after == junk):
                return None, after
            return (junk, f"corrupt record: {_short(reading.error)}"), _whole_after(path, fh, junk + 1)
        if reading.last is not None and broken is not None and not single and not fails(path, broken):
            # The next member is whole and reads: the stream broke inside the member of the
            # record at `last` (cut short: its row says so), not at this one.
            return None, broken
        broken = reading.after if broken is None else broken
        message = f"corrupt record: {type(reading.error).__name__}: {_short(reading.error)}"
        return (broken, message), _whole_after(path, fh, broken + 1)  # a bad stretch: one row
    # warcio ends quietly when the stream stops inside a record: a record start past the last
    # one read is a record cut short, by the end of the file or, when whole members follow it
    # (files joined together), by the next member's start. (A start stored the pass's way: a
    # record stored the other way stops a pass with an error, and gzip bytes in an uncompressed
    # record's body are no record.)
    tail = resync(fh, reading.after, reading.gz)
    if not reading.gz:
        # An uncompressed record that ran to the end of the file over gzip members (its length
        # too long): the members that read as records are read, as a whole read of them alone
        # would (found by fuzzing: they were lost without a row).
        member = _whole_after(path, fh, reading.after)
        if member is not None and (tail is None or member < tail):
            return None, member
    if tail is None:
        return None, None
    if reading.last is not None and not fails(path, tail):
        # A whole member that reads: what the stream lost was inside the member of the record
        # at `last` (cut short: its row says so). Go on from here.
        return None, tail
    following = _whole_after(path, fh, tail + 1)
    inside = "the file ends inside it" if following is None else "the next record starts inside it"
    return (tail, f"record cut short: {inside}"), following


class _LastLine:
    """A stream that remembers the last line read from it (whether a header section ended)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.last: bytes | None = None

    def readline(self, *args: Any) -> Any:
        self.last = self._stream.readline(*args)
        return self.last

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _HeaderParser(StatusAndHeadersParser):  # type: ignore[misc]
    """warcio's HTTP header parser, noting whether the header section ended with its blank line
    (`ended`): a block that stops inside the headers would read as an empty body, allowed."""

    def parse(self, stream: Any, full_statusline: Any = None) -> Any:
        watched = _LastLine(stream)
        parsed = super().parse(watched, full_statusline)
        last = watched.last
        parsed.ended = last is not None and last != b"" and not last.strip(b"\r\n")  # b"": block ended
        return parsed


def _junk_at(reading: _Pass) -> int | None:
    """Where bytes that are not a record stand after the pass's last record, when that is what
    stopped it (warcio: "Invalid WARC record, first line: ..."), else None."""
    failed = reading.failed_at
    if not isinstance(reading.error, ArchiveLoadFailed) or failed is None:
        return None
    if reading.last is not None and failed <= reading.last:
        return None
    return failed


def _whole_after(path: str, fh: IO[bytes], start: int) -> int | None:
    """The first record start at or after `start` that reads (false starts skipped), or None."""
    found = resync(fh, start, None)
    while found is not None and fails(path, found):
        found = resync(fh, found + 1, None)
    return found


def fails(path: str, offset: int) -> bool:
    """Does the record at `offset` fail to load? (Resynchronising skips false starts.)

    At a gzip magic, the member must inflate to its end, checksum included, before warcio reads
    it: read alone, warcio takes a member it cannot inflate for an uncompressed record (a
    damaged member whose header survived then reads as a record of junk), where the same member
    met in the course of a file fails. A whole member is a record start in every reading.

    At a `WARC/1.` line, the header block must read as one (`_plausible_header`): warcio reads
    any bytes after such a line as header lines, so a stray `WARC/1.0` line before gzip members
    swallowed all of them into one record of junk (found by fuzzing).
    """
    with Path(path).open("rb") as fh:
        fh.seek(offset)
        head = fh.read(len(GZIP_MAGIC))
        if head == GZIP_MAGIC and _member_end(fh, offset) is None:
            return True
        if head != GZIP_MAGIC and _stray_line(fh, offset):
            return True
        fh.seek(offset)
        try:
            record = next(iter(_Records(fh)), None)
        except Exception:
            return True
    # warcio takes a stray fragment (the tail of a header block split over members) for an ARC
    # record when read alone, and then reads the real records after it as ARC too: a cut there
    # lost the next capture (found by fuzzing). A WARC file's record starts are WARC records.
    return record is not None and getattr(record, "format", "warc") != "warc"


_STRAY = "corrupt record: a WARC/1. line whose header block does not read"
# The error of a record read whole whose gzip member then failed to inflate (see `records`).
BROKEN_MEMBER = "corrupt record: its gzip member does not inflate"


def _stray_line(fh: IO[bytes], position: int) -> bool:
    """Is there a `WARC/1.` line at `position` without a header block after it? warcio would
    read whatever follows as its header lines (gzip members included: see `fails`)."""
    head = os.pread(fh.fileno(), _FIRST_HEADER, position)
    if not head.startswith(WARC_MAGIC):
        return False
    if _BLANK_LINE.search(head) is None:  # a longer header block than most (or none)
        head = os.pread(fh.fileno(), _MAX_HEADER, position)
    return not _plausible_header(head)


def _plausible_header(head: bytes) -> bool:
    """Do these bytes open with a WARC header block: its `WARC/1.` line, then lines each a field
    name and a colon (or a continuation), up to a blank line, within `_MAX_HEADER` bytes?"""
    blank = _BLANK_LINE.search(head)
    if blank is None:
        return False
    lines = head[: blank.start()].split(b"\n")
    return lines[0].startswith(WARC_MAGIC) and all(map(_HEADER_LINE.match, lines[1:]))


@dataclass(frozen=True, slots=True)
class Inflated:
    """A gzip member inflated from its start (`inflate_member`)."""

    head: bytes  # its first inflated bytes (as many as asked for)
    size: int  # the bytes it inflated to, up to where it ended or failed
    length: int | None  # its compressed length when it ends (CRC and size checked); else None
    error: str | None  # zlib's complaint, when it failed


def inflate_member(
    fh: IO[bytes], start: int, keep: int, first: int = _READ, then: int = _READ, out: int = _READ
) -> Inflated:
    """Inflate the gzip member at `start` to its end (or the end of the file, or zlib's error),
    keeping its first `keep` inflated bytes; `first`, then `then` compressed bytes are read at a
    time, and zlib gives at most `out` at a time (a bomb costs time, not memory)."""
    fh.seek(start)
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    head, size, fed, feed = b"", 0, 0, first
    try:
        while piece := fh.read(feed):
            data = inflater.decompress(piece, out)
            while True:
                size += len(data)
                if len(head) < keep:
                    head += data[: keep - len(head)]
                if inflater.eof or not inflater.unconsumed_tail:
                    break
                data = inflater.decompress(inflater.unconsumed_tail, out)
            if inflater.eof:
                return Inflated(head, size, fed + len(piece) - len(inflater.unused_data), None)
            fed += len(piece)
            feed = then
    except zlib.error as exc:
        return Inflated(head, size, None, str(exc))
    return Inflated(head, size, None, None)


def _broken_member(fh: IO[bytes], start: int) -> str | None:
    """Why the gzip member at `start` is broken, or None: zlib's complaint (bad deflate data, a
    checksum or size that fails), or, when the file ends inside it, that it inflates to more than
    its record (its WARC header block, the `Content-Length` it names, the closing blank lines):
    damaged deflate data that ran on over the member's end, its checksum never checked. None for
    a member that inflates whole, or one the end of the file cuts (it gives less than its record,
    and the record's own row says what is missing)."""
    member = inflate_member(fh, start, _MAX_HEADER)
    if member.length is not None or member.error is not None:
        return member.error
    head = member.head
    end = head.find(b"\r\n\r\n")
    length = _CONTENT_LENGTH.search(head, 0, end + 2) if end >= 0 else None  # (its line break too)
    if length is not None and member.size > end + 4 + int(length.group(1)) + 4:
        return "its deflate data runs past its record and the end of the file"
    return None


def past_empty_members(fh: IO[bytes], at: int) -> int:
    """`at`, moved on over the empty gzip members (whole, inflating to nothing) that start there:
    warcio names the record after them by the first one's offset. (One byte of output ends the
    look: a member that holds a record is not inflated.)"""
    while True:
        head = os.pread(fh.fileno(), _EMPTY_LOOK, at)
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            if inflater.decompress(head, 1) or not inflater.eof:
                return at
        except zlib.error:
            return at
        at += len(head) - len(inflater.unused_data)


def _member_end(fh: IO[bytes], start: int) -> int | None:
    """Where the gzip member at `start` ends, if one starts there and inflates to its end (CRC
    and size checked), else None."""
    length = inflate_member(fh, start, 0).length
    return None if length is None else start + length


def _short(exc: Exception) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) <= 120 else text[:117] + "..."


def resync(fh: IO[bytes], start: int, gz: bool | None) -> int | None:
    """The offset of the next plausible record start at or after `start`, or None at EOF: a gzip
    member (`gz` True), an uncompressed record's `WARC/1.` line (False), or either (None: a
    reader's records may be stored either way, see `records`)."""
    magics = (GZIP_MAGIC, WARC_MAGIC) if gz is None else (GZIP_MAGIC,) if gz else (WARC_MAGIC,)
    keep = max(map(len, magics)) - 1  # a magic split over two reads is found in the next
    fh.seek(start)
    carry = b""
    base = start
    while chunk := fh.read(_READ):
        data = carry + chunk
        found = [at for at in map(data.find, magics) if at >= 0]
        if found:
            return base + min(found)
        carry = data[-keep:]
        base += len(data) - len(carry)
    return None


def response_of(offset: int, record: Any, max_bytes: int) -> Response | None:
    """Decode a `response` record; None for any other record type.

    A response record that cannot tell what the server sent comes back with `damaged` set.
    """
    if record.rec_type != "response":
        return None
    uri = str(record.rec_headers.get_header("WARC-Target-URI") or "").strip("<>")
    fetched = _warc_date(record.rec_headers.get_header("WARC-Date"))
    http = record.http_headers
    if http is None:
        what = "empty response block" if not record.length else "response block holds no HTTP response"
        return Response(uri, offset, fetched, 0, {}, b"", 0, False, damaged=what)
    code = str(http.get_statuscode() or "")
    headers = {name.lower(): value for name, value in http.headers}
    if not (len(code) == 3 and code.isascii() and code.isdigit()):
        line = _short(ValueError(http.statusline))
        return Response(
            uri, offset, fetched, 0, headers, b"", 0, False, damaged=f"status line is not HTTP: {line!r}"
        )
    status = int(code)
    if not getattr(http, "ended", True):
        return Response(
            uri, offset, fetched, status, headers, b"", 0, False,
            damaged="record cut short: the block ends inside the HTTP headers",
        )  # fmt: skip
    block: Any = record.raw_stream  # warcio's LimitReader: `limit` is what the block still owes
    try:
        body, size, fed, complete = _read_body(record, max_bytes)
    except _BodyCut as cut:
        return Response(uri, offset, fetched, status, headers, b"", 0, False, damaged=str(cut))
    except Exception as exc:  # zlib and chunking errors all mean a bad body
        if _owed(block) > 0 and _ended(block):
            return Response(uri, offset, fetched, status, headers, b"", 0, False, damaged="record cut short")
        error = f"body: {type(exc).__name__}: {_short(exc)}"
        return Response(uri, offset, fetched, status, headers, b"", 0, False, error=error)
    damaged = _cut(
        block,
        headers,
        body,
        fed,
        size,
        complete,
        max_bytes,
        bool(record.rec_headers.get_header("WARC-Truncated")),
    )
    kept = body[:max_bytes]
    return Response(uri, offset, fetched, status, headers, kept, size, size > max_bytes, damaged=damaged)


def _owed(block: object) -> int:
    """Bytes the WARC block still owes after reading (its Content-Length minus what came)."""
    return int(block.limit) if isinstance(block, LimitReader) else 0


def _ended(block: Any) -> bool:
    """True when the stream under the block has nothing more (the file ended inside the record)."""
    try:
        return not block.read(1)
    except Exception:
        return True


def _cut(
    block: Any,
    headers: dict[str, str],
    body: bytes,
    fed: int,
    size: int,
    complete: bool,
    max_bytes: int,
    flagged: bool,
) -> str | None:
    """Why a body read in full is not the body the server sent, or None.

    A body cut before the parse limit would be judged on a part of the file (a missing
    `Disallow` reads as an allow), so it is damage, not a verdict. Cut after the limit, the
    parser would have stopped there anyway (RFC 9309 2.5): that is a verdict.
    """
    if not complete or size > max_bytes:
        return None
    if _owed(block) > 0:
        # (not how many bytes: a reader that starts inside a damaged stretch, as a byte range of
        # the file does, counts differently, and every scheduler must give the same row)
        return "record cut short: the block ends before its Content-Length"
    if flagged:
        return f"body cut by the crawler (WARC-Truncated) at {size} bytes, below the parse limit"
    length = headers.get("content-length", "").strip()
    chunked = "chunked" in headers.get("transfer-encoding", "").lower()
    if not chunked and length.isascii() and length.isdigit() and fed < int(length):
        return f"body cut short: {fed} of its Content-Length {int(length)} bytes"
    if not chunked and length.isascii() and length.isdigit() and WARC_MAGIC in body[int(length) :]:
        # The block runs on past the body into a WARC header: its record's length is wrong, and
        # what was judged would hold the next record's start.
        return "record runs into the next record: its WARC Content-Length is too long"
    return None


class _BodyCut(Exception):
    """The HTTP body in the record stops before its own framing says it ends: no verdict."""


class _BadBody(Exception):
    """The body's framing or coding is not one an HTTP client would accept: a bad response."""


def _read_body(record: Any, keep: int) -> tuple[bytes, int, int, bool]:
    """The first `keep` + 1 decoded bytes, the decoded size (counted up to `_SIZE_CAP`), the
    encoded bytes read, and whether the body was read to its end.

    Chunking and Content-Encoding are undone here, strictly (warcio would pass undecodable gzip
    or broken chunks through as they are): a body that does not decode is a bad response, as it
    is for the live HTTP client (`_BadBody`, or zlib's error); one whose chunks stop before the
    last chunk is cut short (`_BodyCut`). A coding robotskit cannot undo (`br`, `zstd`) is damage:
    its bytes judged as text would be a guess. Decompression is bounded per read, so a
    compression bomb costs time, not memory.
    """
    headers = record.http_headers
    length = (headers.get_header("content-length") or "").strip()
    if length and not (length.isascii() and length.isdigit()):
        raise _BadBody(f"Content-Length is not a number: {_short(ValueError(length))!r}")
    stream: Any = record.raw_stream
    chunked = (headers.get_header("transfer-encoding") or "").strip().lower() == "chunked"
    if chunked:
        stream = ChunkedDataReader(stream, raise_exceptions=True, decomp_type=None)
    decoder = _Codings((headers.get_header("content-encoding") or "").strip().lower())
    parts: list[bytes] = []
    kept = size = fed = 0
    complete = False
    while True:
        try:
            chunk = stream.read(_READ)
        except ChunkedDataException as exc:
            said = exc.args[0] if exc.args else b""
            if said == b"Couldn't decode length header ":  # no length line: the data ended
                raise _BodyCut("body cut short: the chunked body has no last chunk") from exc
            if "Ran out of data" in str(said):
                raise _BodyCut("body cut short: the chunked body ends inside a chunk") from exc
            raise _BadBody(f"chunked body: {_short(exc)}") from exc
        if not chunk:
            complete = True
            if decoder.finished:
                break
        fed += len(chunk)
        pieces = decoder.feed(chunk)
        if not chunk and not any(pieces):
            break
        for piece in pieces:
            size += len(piece)
            if kept <= keep:
                taken = piece[: keep + 1 - kept]
                parts.append(taken)
                kept += len(taken)
        if size >= _SIZE_CAP:
            complete = False
            break
    if chunked and complete and not stream.all_chunks_read:
        raise _BodyCut("body cut short: the chunked body has no last chunk")
    if fed and not decoder.finished and size < _SIZE_CAP:
        raise ValueError("compressed body ends early")
    return b"".join(parts), size, fed, complete


class _Codings:
    """Undoes a Content-Encoding list (`gzip`, `x-gzip`, `deflate`, stacked, gzip members)."""

    def __init__(self, encoding: str) -> None:
        names = [name.strip() for name in encoding.split(",") if name.strip() and name.strip() != "identity"]
        if len(names) > MAX_CODINGS:
            raise _BadBody(f"{len(names)} stacked content codings")
        unknown = [name for name in names if name not in _ZLIB_WBITS]
        if unknown:
            # Not a bad response: the crawler that made the capture may have asked for it.
            raise _BodyCut(f"body in Content-Encoding {unknown[0]!r}, which robotskit does not decode")
        # RFC 9110 8.4: codings are listed in the order applied, so undone in reverse.
        self._names = list(reversed(names))
        self._stages = [zlib.decompressobj(_ZLIB_WBITS[name]) for name in self._names]
        self._members = 0
        self._made = [0] * len(self._names)  # bytes each stage has put out

    @property
    def finished(self) -> bool:
        return all(stage.eof for stage in self._stages)

    def feed(self, chunk: bytes) -> list[bytes]:
        """Decode `chunk` through every stage in bounded steps (zlib.error: the body is bad)."""
        pieces = [chunk]
        for index, name in enumerate(self._names):
            pieces = [out for piece in pieces if piece for out in self._through(index, name, piece)]
        return pieces

    def _through(self, index: int, name: str, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        stage = self._stages[index]
        last = index == len(self._names) - 1
        while data:
            piece = stage.decompress(data, _READ)
            while True:
                out.append(piece)
                self._made[index] += len(piece)
                if self._made[index] > _SIZE_CAP:
                    # A bomb: the last stage stops here (the size cap ends the read), and a
                    # layer inside expanding this far is hostile (stacked bombs multiply).
                    if last:
                        return out
                    raise _BadBody(
                        f"content codings expand past {_SIZE_CAP // 1024 // 1024} MiB between layers"
                    )
                if not stage.unconsumed_tail:
                    break
                piece = stage.decompress(stage.unconsumed_tail, _READ)
            data = stage.unused_data if stage.eof else b""
            if data and name != "deflate":  # concatenated gzip members
                self._members += 1
                if self._members > MAX_GZIP_MEMBERS:
                    raise _BadBody(f"more than {MAX_GZIP_MEMBERS} gzip members")
                stage = self._stages[index] = zlib.decompressobj(_ZLIB_WBITS[name])
            elif data:
                break  # bytes after a deflate stream: ignored, as zlib does
        return out


_ZLIB_WBITS = {
    "gzip": 16 + zlib.MAX_WBITS,
    "x-gzip": 16 + zlib.MAX_WBITS,
    "deflate": 32 + zlib.MAX_WBITS,  # zlib-wrapped, as RFC 9110 8.4.1.2 says (or gzip, auto-detected)
}


def _warc_date(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _host(url: str | None) -> str | None:
    try:
        return urlsplit(url).hostname if url else None
    except ValueError:  # a broken [IPv6] host: the row keeps the URL, not a host
        return None
