"""WARC captures, replayed through the library's own fetch policy.

Common Crawl publishes robots.txt captures as WARC `response` records whose block is the HTTP
response. Each record is judged the way a live crawler would have judged that response: the
sans-IO `robotskit.policy.fetch_flow` runs with a fetch function that serves the record in hand,
and serves redirect targets from the same file (SPEC.md section 6: up to 5 hops, across hosts,
the rules applying to the original authority). So status mapping, redirects and the size limit
are the policy's, not a second copy of it.

warcio undoes chunked transfer and `Content-Encoding`: a gzip body is judged by its decoded
bytes, cut at `max_bytes` after decompression. A body that cannot be decoded is a bad response
(unreachable). A damaged record becomes an error capture, and reading resumes at the next gzip
member or `WARC/1.` line found, so one bad record never stops the job.

Memory: one record at a time, plus a URL -> offset index of the file being read (to find redirect
targets). Redirect captures whose target comes later in the file are replayed after the pass.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from robotskit.batch._values import Capture

_READ = 65_536
_SIZE_CAP = 64 * 1024 * 1024  # decoded bytes counted for `size` before reading stops
_GZIP_MAGIC = b"\x1f\x8b\x08"
_WARC_MAGIC = b"WARC/1."


@dataclass(frozen=True, slots=True)
class _Response:
    """One response record, decoded: what the fetch function hands the policy."""

    uri: str
    offset: int
    fetched_at: float | None
    status: int
    headers: dict[str, str]
    body: bytes  # at most max_bytes
    size: int  # every decoded byte
    truncated: bool
    error: str | None = None  # the body could not be decoded


class _NotCaptured(Exception):
    """A redirect leads to a URL this WARC file holds no capture of."""


def read_warc(path: str, max_bytes: int) -> Iterator[Capture]:
    """Every `response` record of one WARC file as a capture, in file order (deferred ones last)."""
    index: dict[str, int] = {}
    deferred: list[_Response] = []
    for offset, record, error in records(path):
        if record is None:
            yield Capture(source=path, record=offset, error=error or "unreadable record")
            continue
        response = _response(offset, record, max_bytes)
        if response is None:
            continue
        index.setdefault(url_key(response.uri), offset)
        try:
            yield _replay(path, response, index, max_bytes)
        except _NotCaptured:
            deferred.append(response)
    for response in deferred:
        try:
            yield _replay(path, response, index, max_bytes)
        except _NotCaptured as missing:
            yield Capture(
                source=path,
                record=response.offset,
                url=response.uri,
                host=_host(response.uri),
                fetched_at=response.fetched_at,
                status=response.status,
                content_type=response.headers.get("content-type"),
                reason=f"redirect target not in input: {missing}",
            )


def url_key(url: str) -> str:
    """A URL as the index keys it: the authority as the policy keys it, then path and query."""
    try:
        from robotskit.policy.authority import authority_key  # noqa: PLC0415

        authority = authority_key(url)
    except (ImportError, ValueError):
        parts = urlsplit(url)
        authority = f"{parts.scheme.lower()}://{parts.netloc.lower()}"
    parts = urlsplit(url)
    return authority + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _replay(path: str, first: _Response, index: dict[str, int], max_bytes: int) -> Capture:
    """Run the fetch policy for `first`'s authority with this file as the network."""
    from robotskit.errors import ProtocolViolation  # noqa: PLC0415
    from robotskit.policy.flow import fetch_flow, run_flow  # noqa: PLC0415
    from robotskit.policy.messages import FetchRequest, FetchResponse  # noqa: PLC0415

    last: list[_Response] = []

    def fetch(request: FetchRequest) -> FetchResponse:
        # The first request is the capture in hand; redirect hops are looked up in the file.
        if not last:
            response = first
        else:
            offset = index.get(url_key(request.url))
            if offset is None:
                raise _NotCaptured(request.url)
            response = read_at(path, offset, max_bytes)
        last.append(response)
        if response.error is not None:
            raise ProtocolViolation(response.error, url=request.url)
        return FetchResponse(
            url=request.url,
            protocol="http",
            status=response.status,
            body=response.body,
            headers=response.headers,
            truncated=response.truncated,
        )

    def clock() -> float:
        return first.fetched_at or 0.0  # the capture's own time: TTLs are then as of the crawl

    entry = run_flow(fetch_flow(first.uri, clock=clock, max_bytes=max_bytes), fetch)
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


def read_at(path: str, offset: int, max_bytes: int) -> _Response:
    """The response record at `offset` (a redirect target), decoded."""
    for got, record, error in records(path, offset, single=True):
        response = _response(got, record, max_bytes) if record is not None else None
        if response is not None:
            return response
        message = error or "not an HTTP response record"
        return _Response("", got, None, 0, {}, b"", 0, False, error=message)
    return _Response("", offset, None, 0, {}, b"", 0, False, error="record vanished")


def records(path: str, start: int = 0, *, single: bool = False) -> Iterator[tuple[int, Any, str | None]]:
    """(offset, record, None) for each record; (offset, None, message) for a damaged stretch.

    After damage, reading resumes at the next gzip member (or `WARC/1.` line) found by scanning;
    consecutive failures collapse into one error so a bad stretch yields one row.
    """
    from warcio.archiveiterator import ArchiveIterator  # type: ignore[import-untyped]  # noqa: PLC0415 - optional dependency

    with Path(path).open("rb") as fh:
        gz = fh.read(3) == _GZIP_MAGIC
        position = start
        failing = False
        while True:
            fh.seek(position)
            iterator = ArchiveIterator(fh)
            try:
                for record in iterator:
                    offset = iterator.offset
                    failing = False
                    yield offset, record, None
                    if single:
                        return
            except Exception as exc:  # any decoding failure is data, not a bug
                broken = max(iterator.offset, position)
                if not failing:
                    yield broken, None, f"corrupt record: {type(exc).__name__}: {exc}"
                    if single:
                        return
                failing = True
                found = _resync(fh, broken + 1, gz)
                if found is None:
                    return
                position = found
            else:
                return


def _resync(fh: IO[bytes], start: int, gz: bool) -> int | None:
    """The offset of the next plausible record start at or after `start`, or None at EOF."""
    magic = _GZIP_MAGIC if gz else _WARC_MAGIC
    fh.seek(start)
    carry = b""
    base = start
    while chunk := fh.read(_READ):
        data = carry + chunk
        at = data.find(magic)
        if at >= 0:
            return base + at
        carry = data[-(len(magic) - 1) :]
        base += len(data) - len(carry)
    return None


def _response(offset: int, record: Any, max_bytes: int) -> _Response | None:
    """Decode a `response` record with HTTP headers; None for any other record."""
    if record.rec_type != "response" or record.http_headers is None:
        return None
    uri = str(record.rec_headers.get_header("WARC-Target-URI") or "").strip("<>")
    fetched = _warc_date(record.rec_headers.get_header("WARC-Date"))
    try:
        status = int(record.http_headers.get_statuscode())
    except (TypeError, ValueError):
        status = 0  # not an HTTP status: the policy calls it a bad response
    headers = {name.lower(): value for name, value in record.http_headers.headers}
    cut = bool(record.rec_headers.get_header("WARC-Truncated"))  # the crawler cut the body
    try:
        body, size = _read_body(record, max_bytes)
    except Exception as exc:  # zlib, brotli and chunking errors all mean a bad body
        return _Response(
            uri, offset, fetched, status, headers, b"", 0, False, error=f"body: {type(exc).__name__}: {exc}"
        )
    return _Response(uri, offset, fetched, status, headers, body[:max_bytes], size, cut or size > max_bytes)


def _read_body(record: Any, keep: int) -> tuple[bytes, int]:
    """The first `keep` + 1 decoded bytes and the decoded size (counted up to `_SIZE_CAP`).

    Content-Encoding is undone here, strictly (warcio would pass undecodable gzip through as
    is): a body that does not decode is a bad response, as it is for the live HTTP client.
    Decompression is bounded per read, so a compression bomb costs time, not memory.
    """
    headers = record.http_headers
    stream: Any = record.raw_stream
    if (headers.get_header("transfer-encoding") or "").lower() == "chunked":
        from warcio.bufferedreaders import ChunkedDataReader  # type: ignore[import-untyped]  # noqa: PLC0415

        stream = ChunkedDataReader(stream, decomp_type=None)
    decoder = _decoder((headers.get_header("content-encoding") or "").strip().lower())
    parts: list[bytes] = []
    kept = size = fed = 0
    while (chunk := stream.read(_READ)) or (decoder is not None and not decoder.eof and size < _SIZE_CAP):
        fed += len(chunk)
        pieces = _decode(decoder, chunk) if decoder is not None else [chunk]
        if not chunk and not any(pieces):
            break
        for piece in pieces:
            size += len(piece)
            if kept <= keep:
                taken = piece[: keep + 1 - kept]
                parts.append(taken)
                kept += len(taken)
        if size >= _SIZE_CAP:
            break
    if decoder is not None and fed and not decoder.eof and size < _SIZE_CAP:
        raise ValueError("compressed body ends early")
    return b"".join(parts), size


def _decoder(encoding: str) -> Any:
    """A zlib decompressor for gzip / deflate bodies; None for identity or unknown codings."""
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj(32 + zlib.MAX_WBITS)  # zlib-wrapped, as RFC 9110 8.4.1.2 says
    return None


def _decode(decoder: Any, chunk: bytes) -> list[bytes]:
    """Decompress `chunk` in bounded steps (zlib.error propagates: the body is bad)."""
    out = [decoder.decompress(chunk, _READ)]
    while decoder.unconsumed_tail:
        out.append(decoder.decompress(decoder.unconsumed_tail, _READ))
    return out


def _warc_date(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _host(url: str | None) -> str | None:
    return urlsplit(url).hostname if url else None
