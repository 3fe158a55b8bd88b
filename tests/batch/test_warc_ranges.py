"""A WARC file read in byte ranges gives exactly the rows a whole read gives (redirects included)."""

from __future__ import annotations

import gzip
import io
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from robotskit.batch import BatchConfig, load_agents
from robotskit.batch.inputs import InputUnit, discover
from robotskit.batch.runner import process_unit, run_batch
from robotskit.batch.warc import records, response_of, url_key
from robotskit.batch.warc_ranges import MemberIndex, scan, split_points, whole_index
from tests.batch.conftest import PATHS, corpus_files

TINY = 3_000  # bytes per range: about one record per range in these files


@pytest.fixture(scope="module")
def config(agents_file: Path) -> BatchConfig:
    return BatchConfig(agents=load_agents(agents_file), paths=PATHS)


def _member(
    uri: str, status: str, body: bytes, headers: list[tuple[str, str]] | None = None, *, salt: int = 0
) -> bytes:
    """One gzipped response record, as a WARC writer would write it. Its record id comes from
    the URL and `salt`, so a file is the same in every run, and each salt lays it out anew."""
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True)
    http = StatusAndHeaders(
        status, [*(headers or []), ("Content-Length", str(len(body)))], protocol="HTTP/1.1"
    )
    record_id = f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{salt}:{uri}:{len(body)}')}>"
    record = writer.create_warc_record(
        uri,
        "response",
        payload=io.BytesIO(body),
        http_headers=http,
        warc_headers_dict={"WARC-Date": "2025-01-02T03:04:05Z", "WARC-Record-ID": record_id},
    )
    writer.write_record(record)
    record.raw_stream.close()  # warcio spools the payload to a temp file to measure it
    return out.getvalue()


def _redirect(uri: str, target: str, *, salt: int = 0) -> bytes:
    return _member(uri, "301 Moved Permanently", b"", [("Location", target)], salt=salt)


def _tricky(path: Path, salt: int) -> Path:
    """Redirects to targets before and after them, in other ranges; a URL captured twice with
    different bodies (the first capture counts); a damaged capture of a target before a good one;
    a damaged member in the middle (its gzip header intact); a redirect to a URL not captured."""
    bodies = [f.read_bytes() for f in corpus_files(12, start=400)]
    members = [
        _member("http://a.example/robots.txt", "200 OK", b"User-agent: *\nDisallow: /a\n", salt=salt),
        _redirect("http://r1.example/robots.txt", "http://a.example/robots.txt", salt=salt),
        _redirect("http://r2.example/robots.txt", "http://b.example/robots.txt", salt=salt),
        _redirect("http://r4.example/robots.txt", "http://c.example/robots.txt", salt=salt),
    ]
    members += [
        _member(f"http://f{i}.example/robots.txt", "200 OK", body, salt=salt) for i, body in enumerate(bodies)
    ]
    damaged = _member(
        "http://c.example/robots.txt", "200 OK", b"User-agent: *\nDisallow: /damaged\n", salt=salt
    )
    damaged = damaged.replace(b"HTTP/1.1 200 OK", b"XTTP/1.1 200 OK")  # not an HTTP status line
    members += [
        _member("http://b.example/robots.txt", "200 OK", b"User-agent: *\nDisallow: /b\n", salt=salt),
        _member("http://a.example/robots.txt", "200 OK", b"User-agent: *\nDisallow: /second\n", salt=salt),
        damaged,
        _redirect("http://r3.example/robots.txt", "http://b.example/robots.txt", salt=salt),
    ]
    junk = bytearray(_member("http://junk.example/robots.txt", "200 OK", b"x" * 2000, salt=salt))
    junk[20:-10] = b"\x00" * (len(junk) - 30)  # a member whose inside is overwritten
    members += [
        bytes(junk),
        _member("http://c.example/robots.txt", "200 OK", b"User-agent: *\nDisallow: /c\n", salt=salt),
        _redirect("http://r5.example/robots.txt", "http://nowhere.example/robots.txt", salt=salt),
    ]
    path.write_bytes(b"".join(members))
    return path


@pytest.fixture(scope="module")
def tricky(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tricky(tmp_path_factory.mktemp("ranges") / "tricky.warc.gz", 0)


def _whole_rows(path: Path, config: BatchConfig) -> list[dict[str, Any]]:
    return process_unit(InputUnit("warc", str(path)), config).to_pylist()


def _range_rows(path: Path, config: BatchConfig, *, with_scans: bool) -> list[dict[str, Any]]:
    units = discover([path], split=TINY).units
    assert len(units) > 2 and all(u.span is not None for u in units)
    scans = [scan(str(path), *u.span) for u in units if u.span] if with_scans else None
    rows: list[dict[str, Any]] = []
    for unit in units:
        rows += process_unit(unit, config, index=scans).to_pylist()
    return rows


@pytest.mark.parametrize("with_scans", [True, False], ids=["range-scans", "whole-scan"])
def test_ranges_give_the_rows_of_a_whole_read(tricky: Path, config: BatchConfig, with_scans: bool) -> None:
    whole = _whole_rows(tricky, config)
    assert _range_rows(tricky, config, with_scans=with_scans) == whole
    by_url: dict[str, dict[str, Any]] = {}
    for row in whole:
        by_url.setdefault(row["url"], row)  # a URL captured twice: its first capture
    # the first capture of a.example is the target, not the later one
    assert by_url["http://r1.example/robots.txt"]["sha256"] == by_url["http://a.example/robots.txt"]["sha256"]
    assert by_url["http://r2.example/robots.txt"]["sha256"] == by_url["http://b.example/robots.txt"]["sha256"]
    assert by_url["http://r3.example/robots.txt"]["sha256"] == by_url["http://b.example/robots.txt"]["sha256"]
    assert by_url["http://r4.example/robots.txt"]["outcome"] == "ok"  # the damaged capture is passed over
    assert "not in input" in (by_url["http://r5.example/robots.txt"]["reason"] or "")
    assert any("corrupt record" in (row["error"] or "") for row in whole)


# (warcio reads the damaged member alone as an old ARC record under salts 46, 168, 284 and 295)
@pytest.mark.parametrize("salt", [1, 2, 3, 46, 168, 284, 295])
def test_ranges_give_the_rows_of_a_whole_read_whatever_the_layout(
    tmp_path: Path, config: BatchConfig, salt: int
) -> None:
    """The same file laid out anew (other record ids: other compressed bytes). Depending on the
    bytes, warcio reads the damaged member alone as a record of junk while a whole read fails on
    it: a cut there used to give a row the whole read does not give."""
    path = _tricky(tmp_path / "tricky.warc.gz", salt)
    assert _range_rows(path, config, with_scans=True) == _whole_rows(path, config)


def test_ranges_give_the_rows_of_a_whole_read_on_the_generated_set(
    tmp_path: Path, small_set: tuple[list[Path], list[dict[str, Any]]], config: BatchConfig
) -> None:
    """Every record kind of the generated set (cut last members, junk members, empty blocks,
    redirect chains across hosts), its four files joined into one."""
    joined = tmp_path / "joined.warc.gz"
    joined.write_bytes(b"".join(p.read_bytes() for p in small_set[0]))
    units = discover([joined], split=20_000).units
    assert len(units) > 4
    rows: list[dict[str, Any]] = []
    for unit in units:
        rows += process_unit(unit, config).to_pylist()
    assert rows == _whole_rows(joined, config)


def test_scan_finds_the_first_good_capture_of_every_url(tricky: Path) -> None:
    """Against the whole read's own index: the first capture of each URL that is neither
    unreadable nor damaged."""
    first: dict[str, int] = {}
    good: set[int] = set()
    for offset, record, _ in records(str(tricky)):
        if record is None:
            continue
        response = response_of(offset, record, 500_000)
        if response is not None and response.damaged is None:
            first.setdefault(url_key(response.uri), offset)
            good.add(offset)
    index = scan(str(tricky))
    assert index.regular and not index.anywhere
    assert set(index.by_url) == set(first)
    for key, offset in first.items():
        candidates = index.by_url[key]
        assert offset in candidates
        assert not good & {c for c in candidates if c < offset}  # earlier ones are passed over


def test_a_member_holding_two_records_uses_the_whole_read_index(tmp_path: Path, config: BatchConfig) -> None:
    """A .warc.gz member must hold one record. The second record of a member holding two is a
    damaged-record row (warcio's offsets are lost after it; reading goes on at the next member,
    nothing after it is lost), the scan says the file is irregular, and ranges then index it by
    reading it whole (same rows)."""
    plain = io.BytesIO()
    writer = WARCWriter(plain, gzip=False)
    for uri, body in [
        ("http://t.example/robots.txt", b"User-agent: *\nDisallow: /t\n"),
        ("http://u.example/robots.txt", b""),
    ]:
        http = StatusAndHeaders("200 OK", [("Content-Length", str(len(body)))], protocol="HTTP/1.1")
        record = writer.create_warc_record(uri, "response", payload=io.BytesIO(body), http_headers=http)
        writer.write_record(record)
        record.raw_stream.close()
    double = gzip.compress(plain.getvalue())
    fillers = [
        _member(f"http://g{i}.example/robots.txt", "200 OK", f.read_bytes())
        for i, f in enumerate(corpus_files(6, start=500))
    ]
    path = tmp_path / "double.warc.gz"
    path.write_bytes(
        b"".join(
            [
                *fillers[:3],
                double,
                _redirect("http://v.example/robots.txt", "http://u.example/robots.txt"),
                *fillers[3:],
            ]
        )
    )
    assert not scan(str(path)).regular
    whole = _whole_rows(path, config)
    assert _range_rows(path, config, with_scans=True) == whole
    urls = [row["url"] for row in whole]
    assert len(urls) == len(set(urls)) == len(fillers) + 3  # t, v and the damage row (no URL)
    assert [row["error"] for row in whole if row["url"] is None] == [
        "corrupt record: not at the start of a gzip member"
    ]
    assert all(row["record"] >= 0 for row in whole)


def test_split_points_are_record_starts(tricky: Path) -> None:
    size = tricky.stat().st_size
    points = split_points(str(tricky), size, TINY)
    assert points[0] == 0 and points == sorted(set(points)) and len(points) > 8
    starts = {offset for offset, record, _ in records(str(tricky)) if record is not None}
    assert set(points) <= starts
    assert split_points(str(tricky), size, size) == [0]  # not bigger than a range: whole


def test_whole_index_is_merged_once_per_file_version(tricky: Path) -> None:
    scans = [scan(str(tricky))]
    first = whole_index(str(tricky), scans)
    assert whole_index(str(tricky), [MemberIndex({}, [])]) is first  # cached by path, size, mtime
    assert first.by_url == scans[0].by_url


def test_sync_splits_big_files_too_and_its_rows_equal_a_whole_read(
    tricky: Path, tmp_path: Path, config: BatchConfig
) -> None:
    """Every scheduler cuts a big file into ranges (memory stays flat whatever the file's size),
    with the rows of a whole read; `range_bytes=None` reads it whole."""
    ranged, whole = tmp_path / "ranged.parquet", tmp_path / "whole.parquet"
    summary = run_batch([tricky], ranged, config, scheduler="sync", range_bytes=TINY)
    assert summary.units > 8
    assert run_batch([tricky], whole, config, scheduler="sync", range_bytes=None).units == 1
    assert pq.read_table(ranged).to_pylist() == pq.read_table(whole).to_pylist()
    from robotskit.batch import warc_ranges

    assert not warc_ranges._MERGED  # the run leaves no file index behind in its caller


@pytest.mark.slow
@pytest.mark.parametrize("scheduler", ["local", "dask"])
def test_local_scheduler_runs_ranges_and_equals_sync(
    tricky: Path, tmp_path: Path, config: BatchConfig, scheduler: str
) -> None:
    sync, local = tmp_path / "sync.parquet", tmp_path / "local.parquet"
    run_batch([tricky], sync, config, scheduler="sync", range_bytes=None)  # the whole read
    summary = run_batch([tricky], local, config, scheduler=scheduler, workers=2, range_bytes=TINY)
    assert summary.units > 8
    assert pq.read_table(local).to_pylist() == pq.read_table(sync).to_pylist()


# Random files: members drawn from a pool of every kind a reader meets, cut at random sizes.
_HOSTS = [f"h{i}.example" for i in range(5)]


@pytest.fixture(scope="module")
def pool() -> list[bytes]:
    bodies = [b"User-agent: *\nDisallow: /x\n", b"User-agent: GPTBot\nDisallow: /\n", b""]
    members: list[bytes] = []
    for salt, host in enumerate(_HOSTS):
        url = f"http://{host}/robots.txt"
        for n, body in enumerate(bodies):
            members.append(_member(url, "200 OK", body, salt=salt * 10 + n))
        for other in _HOSTS[:3]:
            members.append(_redirect(url, f"http://{other}/robots.txt", salt=salt))
        members.append(_member(url, "503 Service Unavailable", b"", salt=salt))
        bad = _member(url, "200 OK", b"User-agent: *\nDisallow: /bad\n", salt=salt + 100)
        members.append(bad.replace(b"HTTP/1.1 200 OK", b"XTTP/1.1 200 OK"))
    for salt in (0, 46, 168):  # damaged members, their gzip header intact (46, 168: read alone as ARC)
        junk = bytearray(_member("http://junk.example/robots.txt", "200 OK", b"x" * 2000, salt=salt))
        junk[20:-10] = b"\x00" * (len(junk) - 30)
        members.append(bytes(junk))
    whole = _member("http://h0.example/robots.txt", "200 OK", b"User-agent: *\nDisallow: /cut\n" * 20)
    members.append(whole[: len(whole) // 2])  # a member cut in half
    members.append(b"\x1f\x8b\x08" + bytes(range(256)) * 2)  # junk behind a gzip magic
    # Stored uncompressed among the members: a capture, a redirect, and a stray `WARC/1.0` line.
    plain = _member("http://h1.example/robots.txt", "200 OK", b"User-agent: *\nDisallow: /plain\n", salt=7)
    members.append(gzip.decompress(plain))
    members.append(gzip.decompress(_redirect("http://h2.example/robots.txt", "http://h1.example/robots.txt")))
    members.append(b"WARC/1.0\r\n")
    # An empty gzip member (warcio names the record after it by the empty member's offset), and
    # a member that holds two records (after an empty one, warcio no longer checked for that).
    members.append(gzip.compress(b"", mtime=0))
    second = _member("http://h3.example/robots.txt", "200 OK", b"User-agent: *\nDisallow: /two\n", salt=9)
    members.append(gzip.compress(gzip.decompress(plain) + gzip.decompress(second), mtime=0))
    return members


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_ranges_equal_a_whole_read_on_random_files(
    pool: list[bytes], config: BatchConfig, data: st.DataObject
) -> None:
    """Property: however a file mixes good, redirecting, damaged, cut and junk members, and
    wherever it is cut into ranges, the ranges' rows are the whole read's rows."""
    picks = data.draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=24))
    every = data.draw(st.integers(100, 3000))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "random.warc.gz"
        path.write_bytes(b"".join(pool[i] for i in picks))
        units = discover([path], split=every).units
        event(f"units: {min(len(units), 4)}{'+' if len(units) >= 4 else ''}")
        scans = [scan(str(path), *u.span) for u in units if u.span is not None]
        rows: list[dict[str, Any]] = []
        for unit in units:
            rows += process_unit(unit, config, index=scans or None).to_pylist()
        assert rows == _whole_rows(path, config)


# Files the random search found (pool indexes, range size): a member cut in half in the middle
# of a file (warcio then ended quietly or failed on the whole member after it, and the whole read
# lost or misreported the records after the cut one), and a cut member first in the file.
FOUND = [
    ([10, 37, 28, 37, 9, 38, 16, 29, 33, 10, 8, 8, 28, 23, 19, 25, 15, 7, 13, 43, 19], 379),
    ([43, 8, 25, 27, 23, 28, 22, 18, 30, 11], 1201),
    ([21, 7, 35, 18, 17, 36, 31, 14, 29, 30, 22, 25, 15, 36, 5, 1, 35, 1, 37, 43, 36, 39, 44, 13], 829),
]


@pytest.mark.parametrize(("picks", "every"), FOUND)
def test_found_files(
    pool: list[bytes], config: BatchConfig, tmp_path: Path, picks: list[int], every: int
) -> None:
    path = tmp_path / "found.warc.gz"
    path.write_bytes(b"".join(pool[i] for i in picks))
    whole = _whole_rows(path, config)
    good = [i for i in picks if i != 43 and i < 40 and pool[i].count(b"XTTP") == 0]
    assert sum(1 for row in whole if row["url"] and not row["error"]) == len(good)  # none lost
    units = discover([path], split=every).units
    scans = [scan(str(path), *u.span) for u in units if u.span is not None]
    rows: list[dict[str, Any]] = []
    for unit in units:
        rows += process_unit(unit, config, index=scans).to_pylist()
    assert rows == whole


# Damaged files a fuzzing run found read differently in ranges and whole (2026-11-27).
def _record_bytes(
    uri: bytes, status: bytes, body: bytes = b"", *extra: tuple[bytes, bytes], kind: bytes = b"response"
) -> bytes:
    headers = b"".join(key + b": " + value + b"\r\n" for key, value in extra)
    http = b"HTTP/1.1 %s\r\nContent-Type: text/plain\r\n%sContent-Length: %d\r\n\r\n%s" % (
        status,
        headers,
        len(body),
        body,
    )
    head = (
        b"WARC/1.0\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>\r\n"
        b"WARC-Date: 2025-03-01T00:00:00Z\r\nWARC-Target-URI: %s\r\n"
        b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
    ) % (kind, len(uri), uri, len(http))
    return head + http + b"\r\n\r\n"


def _both(path: Path, tmp_path: Path, config: BatchConfig, cut: int) -> tuple[list[tuple[object, ...]], ...]:
    def rows(range_bytes: int | None) -> list[tuple[object, ...]]:
        out = tmp_path / f"r-{range_bytes}.parquet"
        run_batch([path], out, config, scheduler="sync", range_bytes=range_bytes, progress=False)
        table = pq.read_table(out).to_pylist()
        return sorted((r["record"], r["url"], r["outcome"], r["final_status"], r["error"]) for r in table)

    return rows(None), rows(cut)


def test_a_redirect_target_in_a_member_without_its_trailer_is_found_by_ranges(
    tmp_path: Path, config: BatchConfig
) -> None:
    """The target's member lacks its 8-byte trailer: a whole read still reads it; the scan skipped it."""
    redirect = gzip.compress(
        _record_bytes(
            b"http://r.example/robots.txt", b"301 Moved", b"", (b"Location", b"http://t.example/robots.txt")
        ),
        mtime=0,
    )
    filler = gzip.compress(
        _record_bytes(b"http://f.example/robots.txt", b"200 OK", b"User-agent: *\nAllow: /\n"), mtime=0
    )
    target = gzip.compress(
        _record_bytes(b"http://t.example/robots.txt", b"200 OK", b"User-agent: *\nDisallow: /t\n"), mtime=0
    )
    path = tmp_path / "cut-trailer.warc.gz"
    path.write_bytes(redirect + filler + target[:-8])
    whole, ranged = _both(path, tmp_path, config, 200)
    assert ranged == whole
    assert whole[0][2:4] == ("ok", 200)  # the redirect was followed to its target


def test_an_empty_member_before_a_cut_does_not_give_its_record_twice(
    tmp_path: Path, config: BatchConfig
) -> None:
    """warcio names the record after an empty member at that member's offset: a cut between them
    gave the record from both sides."""
    a = gzip.compress(_record_bytes(b"http://a.example/robots.txt", b"200 OK", b"User-agent: *\n"), mtime=0)
    b = gzip.compress(_record_bytes(b"http://b.example/robots.txt", b"200 OK", b"User-agent: *\n"), mtime=0)
    c = gzip.compress(_record_bytes(b"http://c.example/robots.txt", b"200 OK", b"User-agent: *\n"), mtime=0)
    path = tmp_path / "empty-member.warc.gz"
    path.write_bytes(a + gzip.compress(b"", mtime=0) + b + c)
    whole, ranged = _both(path, tmp_path, config, 300)
    assert ranged == whole
    assert [row[1] for row in whole] == [f"http://{h}.example/robots.txt" for h in "abc"]


def test_a_record_that_names_no_warc_type_is_a_row_in_both_reads(tmp_path: Path, config: BatchConfig) -> None:
    """A member opening with a blank line reads as a record without a WARC-Type: it was dropped
    without a word, and the ranges then lost the file's only row."""
    odd = gzip.compress(
        b"\r\n" + _record_bytes(b"http://a.example/robots.txt", b"200 OK", b"User-agent: *\n"), mtime=0
    )
    meta = gzip.compress(_record_bytes(b"http://a.example/robots.txt", b"200 OK", kind=b"metadata"), mtime=0)
    path = tmp_path / "no-type.warc.gz"
    path.write_bytes(odd + meta)
    whole, ranged = _both(path, tmp_path, config, 200)
    assert ranged == whole
    assert [row[4] for row in whole] == ["unreadable record: it names no WARC-Type"]


def test_a_stray_fragment_read_as_arc_is_never_a_cut(tmp_path: Path, config: BatchConfig) -> None:
    """A member of stray header text reads alone as an ARC record: cut there, a fresh warcio read
    the good record after it as ARC too, and lost it."""

    def member(host: bytes) -> bytes:
        uri = b"http://" + host + b".example/robots.txt"
        return gzip.compress(
            _record_bytes(uri, b"200 OK", b"User-agent: *\nDisallow: /" + host + b"\n"), mtime=0
        )

    stray = gzip.compress(b" Oct 2015 07:28:00 GMT\r\nContent-Length: 0\r\n\r\n\r\n\r\n", mtime=0)
    path = tmp_path / "arc-latch.warc.gz"
    path.write_bytes(member(b"a") + stray + member(b"b") + member(b"c"))
    whole, ranged = _both(path, tmp_path, config, 250)
    assert ranged == whole
    assert [row[1] for row in whole if row[2] == "ok"] == [f"http://{h}.example/robots.txt" for h in "abc"]


def test_a_redirect_target_stored_uncompressed_is_found_by_ranges(
    tmp_path: Path, config: BatchConfig
) -> None:
    """The scan indexed gzip members only: a range followed the redirect past the uncompressed
    target a whole read finds first, to a later capture of the same URL (found by fuzzing)."""
    redirect = gzip.compress(
        _record_bytes(
            b"http://r.example/robots.txt", b"301 Moved", b"", (b"Location", b"http://t.example/robots.txt")
        ),
        mtime=0,
    )
    first = _record_bytes(b"http://t.example/robots.txt", b"200 OK", b"User-agent: *\nDisallow: /t\n")
    later = gzip.compress(_record_bytes(b"http://t.example/robots.txt", b"410 Gone"), mtime=0)
    path = tmp_path / "plain-target.warc.gz"
    path.write_bytes(redirect + first + later)
    whole, ranged = _both(path, tmp_path, config, 200)
    assert ranged == whole
    assert whole[0][2:4] == ("ok", 200)  # followed to the first capture of the target


def test_a_stray_warc_line_does_not_swallow_the_members_after_it(tmp_path: Path, config: BatchConfig) -> None:
    """warcio reads whatever follows a `WARC/1.0` line as its header lines: resuming there read
    the gzip members after it as one record of junk, and lost them without a row (found by
    fuzzing). The line is one damaged stretch; every member after it is read."""

    def member(host: bytes) -> bytes:
        uri = b"http://" + host + b".example/robots.txt"
        return gzip.compress(
            _record_bytes(uri, b"200 OK", b"User-agent: *\nDisallow: /" + host + b"\n"), mtime=0
        )

    path = tmp_path / "stray-line.warc.gz"
    path.write_bytes(member(b"a") + b"WARC/1.0\r\n" + b"".join(map(member, [b"b", b"c", b"d"])))
    whole, ranged = _both(path, tmp_path, config, 250)
    assert ranged == whole
    assert [row[1] for row in whole if row[2] == "ok"] == [f"http://{h}.example/robots.txt" for h in "abcd"]
    assert len(whole) == 5  # and one row for the stray line


def test_no_cut_at_an_empty_gzip_body_of_an_uncompressed_record(tmp_path: Path, config: BatchConfig) -> None:
    """An uncompressed record whose HTTP body is an empty gzip member (`Content-Encoding: gzip`):
    a cut was placed at that member, which reads as a record from there (warcio takes the member,
    the record's closing blank lines and the next record for one record), and the range gave the
    next record a different row than a whole read (found by fuzzing)."""
    empty_body = _record_bytes(
        b"http://e.example/robots.txt", b"200 OK", gzip.compress(b"", mtime=0), (b"Content-Encoding", b"gzip")
    )
    after = _record_bytes(b"http://b.example/robots.txt", b"200 OK", b"User-agent: *\nDisallow: /b\n")
    last = gzip.compress(
        _record_bytes(b"http://c.example/robots.txt", b"200 OK", b"User-agent: *\n"), mtime=0
    )
    path = tmp_path / "empty-gzip-body.warc.gz"
    path.write_bytes(empty_body + after + last)
    whole, ranged = _both(path, tmp_path, config, 150)
    assert ranged == whole
    assert [row[1] for row in whole if row[2] == "ok"] == [f"http://{h}.example/robots.txt" for h in "ebc"]
