"""RobotsEntry.content_type: what the file was served as, set by the policy and kept by every cache."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from robotskit.cache import MemoryCache, RedisCache, SQLiteCache, entry_from_dict, entry_to_dict
from robotskit.client import RobotsClient
from robotskit.errors import FetchError
from robotskit.fetch import FetchResponse
from robotskit.policy import Outcome, RobotsEntry
from robotskit.testing import FrozenClock, MockFetcher, ftp_response, gemini_response, http_response

from .test_cache_backends import make_entry

if TYPE_CHECKING:
    from .conftest import Drive

ROBOTS = "https://example.com/robots.txt"
GEMINI = "gemini://gem.example/robots.txt"
FTP = "ftp://ftp.example.org/robots.txt"
BODY = b"User-agent: *\nDisallow: /private/\n"
HTML = "text/html; charset=utf-8"

CT, GEM, PLAIN = "Content-Type", "text/gemini; lang=en", "text/plain"
# (id, url, the one response, expected outcome, expected content_type)
VECTORS: list[tuple[str, str, FetchResponse, Outcome, str]] = [
    ("http-kept-whole", ROBOTS, http_response(200, BODY, headers={CT: HTML}), Outcome.OK, HTML),
    ("http-stripped", ROBOTS, http_response(200, BODY, headers={CT: f" {PLAIN} "}), Outcome.OK, PLAIN),
    ("http-no-header", ROBOTS, http_response(200, BODY), Outcome.OK, ""),
    ("http-404-no-body", ROBOTS, http_response(404, "<p>", headers={CT: HTML}), Outcome.UNAVAILABLE, ""),
    ("http-503-no-body", ROBOTS, http_response(503, "<p>", headers={CT: HTML}), Outcome.UNREACHABLE, ""),
    ("gemini-20-meta", GEMINI, gemini_response(20, GEM, BODY), Outcome.OK, GEM),
    ("gemini-20-html", GEMINI, gemini_response(20, "text/html", BODY), Outcome.OK, "text/html"),
    ("gemini-51-meta-not-a-type", GEMINI, gemini_response(51, "not found"), Outcome.UNAVAILABLE, ""),
    ("gemini-44-meta-not-a-type", GEMINI, gemini_response(44, "30"), Outcome.UNREACHABLE, ""),
    ("ftp-has-no-type", FTP, ftp_response(226, BODY, meta="Transfer complete"), Outcome.OK, ""),
]


@pytest.mark.parametrize(
    ("url", "response", "outcome", "expected"), [v[1:] for v in VECTORS], ids=[v[0] for v in VECTORS]
)
def test_content_type_by_protocol(
    drive: Drive, url: str, response: FetchResponse, outcome: Outcome, expected: str
) -> None:
    """HTTP Content-Type or Gemini 2x META for a read file; "" for FTP and for outcomes without a body."""
    entry, _ = drive(url, {url: response})
    assert entry.outcome is outcome
    assert entry.content_type == expected


def test_content_type_is_the_final_redirect_target(drive: Drive) -> None:
    """SPEC.md 6 row 2: after redirects the type is the one the file itself was served with."""
    script = {
        ROBOTS: http_response(301, "<html>moved</html>", headers={"Location": "/r.txt", CT: HTML}),
        "https://example.com/r.txt": http_response(200, BODY, headers={CT: "text/plain"}),
    }
    entry, _ = drive("https://example.com/", script)
    assert entry.redirects == ("https://example.com/r.txt",)
    assert entry.content_type == "text/plain"


def test_stale_copy_keeps_its_content_type(drive: Drive) -> None:
    """SPEC.md 6 row 5: a last good copy standing in carries the type it was served with."""
    good, _ = drive(ROBOTS, {ROBOTS: http_response(200, BODY, headers={CT: HTML})})
    stale, _ = drive(ROBOTS, {ROBOTS: FetchError("down", url=ROBOTS, kind="timeout")}, previous=good)
    assert stale.stale and stale.outcome is Outcome.UNREACHABLE
    assert stale.content_type == HTML
    gone, _ = drive(ROBOTS, {ROBOTS: http_response(404)}, previous=good)
    assert gone.content_type == ""


def test_client_lookup_reports_content_type() -> None:
    """The client's entry (what `robotskit lint URL` reads) names the type the file was served as."""
    fetcher = MockFetcher({ROBOTS: http_response(200, BODY, headers={CT: HTML})})
    with RobotsClient("bot", fetchers={"https": fetcher}, clock=FrozenClock()) as client:
        assert client.lookup("https://example.com/x").content_type == HTML


def test_every_entry_field_is_serialised() -> None:
    """entry_to_dict names every RobotsEntry field, so a new field cannot be silently dropped by a cache."""
    assert {f.name for f in fields(RobotsEntry)} <= set(entry_to_dict(make_entry()))


def test_dict_without_content_type_reads_as_empty() -> None:
    """A cached dict written before content_type existed still loads, with content_type ""."""
    data = entry_to_dict(make_entry())
    del data["content_type"]
    assert entry_from_dict(data) == make_entry(content_type="")


@pytest.mark.parametrize("content_type", ["text/plain; charset=utf-8", "", "text/html"])
def test_memory_and_sqlite_keep_content_type(tmp_path: Path, content_type: str) -> None:
    """Memory and SQLite (across a reopen) give back the content_type they were given."""
    entry = make_entry(content_type=content_type)
    memory = MemoryCache()
    memory.put(entry)
    assert memory.get(entry.authority) == entry
    with closing(SQLiteCache(tmp_path / "c.db")) as writer:
        writer.put(entry)
    reopened = SQLiteCache(tmp_path / "c.db")
    got = reopened.get(entry.authority)
    reopened.close()
    assert got is not None and got.content_type == content_type
    assert got == entry


def test_sqlite_row_from_before_content_type(tmp_path: Path) -> None:
    """An SQLite row written before content_type existed (meta without it) reads as "" and can be replaced."""
    path = tmp_path / "old.db"
    cache = SQLiteCache(path)
    cache.put(make_entry())
    with closing(sqlite3.connect(path)) as conn, conn:
        (meta,) = conn.execute("SELECT meta FROM robots_entries").fetchone()
        old = {k: v for k, v in json.loads(meta).items() if k != "content_type"}
        conn.execute("UPDATE robots_entries SET meta = ?", (json.dumps(old),))
    assert cache.get("https://example.com") == make_entry(content_type="")
    cache.put(make_entry(content_type="text/plain"))
    got = cache.get("https://example.com")
    cache.close()
    assert got is not None and got.content_type == "text/plain"


class _FakeRedis:
    """The four redis.Redis calls RedisCache makes, over a dict (the JSON path needs no server)."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}

    def get(self, key: str) -> bytes | None:
        return self.data.get(key)

    def set(self, key: str, value: str, ex: int) -> None:
        assert ex > 0
        self.data[key] = value.encode()

    def delete(self, *keys: str) -> None:
        for key in keys:
            self.data.pop(key, None)

    def scan_iter(self, match: str, count: int) -> Iterator[str]:
        return iter([k for k in self.data if k.startswith(match.rstrip("*"))])

    def close(self) -> None:
        pass


def test_redis_json_keeps_content_type_and_reads_old_json() -> None:
    """RedisCache stores content_type in its JSON, and JSON written before the field reads as ""."""
    fake = _FakeRedis()
    cache = RedisCache(prefix="t:", client=fake)  # type: ignore[arg-type]
    entry = make_entry(content_type=HTML)
    cache.put(entry)
    assert json.loads(fake.data["t:https://example.com"])["content_type"] == HTML
    assert cache.get("https://example.com") == entry
    old = {k: v for k, v in entry_to_dict(entry).items() if k != "content_type"}
    fake.data["t:https://example.com"] = json.dumps(old).encode()
    assert cache.get("https://example.com") == replace(entry, content_type="")
