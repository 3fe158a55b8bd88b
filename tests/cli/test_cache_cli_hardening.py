"""`cache info`, `cache clear`, `$ROBOTSKIT_CACHE` and `serve --cache/--timeout`: what a fuzzing run
found. Another cache never touches the default cache's Gemini pins; the environment variable reads
as `--cache` does; `info` creates nothing and reports a Redis server that does not answer; `serve`
checks its options before it starts; `clear HOST` refuses whatever is not a host."""

from __future__ import annotations

import argparse
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from robotskit.cli._sources import pins_path
from robotskit.fetch.gemini import TofuStore

from .conftest import Run

SHA = "ab" * 32


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released): connection refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def default_pins(tmp_path: Path) -> Path:
    """The default cache's pins file (the `run` fixture points XDG_CACHE_HOME at tmp_path/cache)."""
    path = tmp_path / "cache" / "robotskit" / "gemini-pins.json"
    path.parent.mkdir(parents=True)
    TofuStore(path).pin("example.org", 1965, SHA)
    return path


def _pinned(path: Path) -> list[str]:
    return sorted(json.loads(path.read_text(encoding="utf-8"))["pins"])


# --- 1. pins belong to a SQLite cache file, never to a memory:// or Redis cache -----------------


def test_clearing_a_memory_cache_keeps_the_default_caches_pins(run: Run, default_pins: Path) -> None:
    """`cache clear --cache memory://` (all, or one host) leaves gemini-pins.json of the default cache."""
    assert run("cache", "clear", "--cache", "memory://").code == 0
    assert run("cache", "clear", "example.org", "--cache", "memory://").code == 0
    assert _pinned(default_pins) == ["example.org:1965"]
    info = json.loads(run("cache", "info", "--cache", "memory://", "--json").out)
    assert info["pins"] is None and info["pinned_hosts"] == []


def test_a_redis_cache_has_no_pins_file(run: Run, default_pins: Path, closed_port: int) -> None:
    """A Redis cache keeps pins in memory only: clearing it never reads nor wipes the default pins."""
    for url in ("redis://127.0.0.1:6379/0", "rediss://cache.example/1", "memory://"):
        assert pins_path(argparse.Namespace(no_cache=False, cache=url)) is None
    pytest.importorskip("redis")
    result = run("cache", "clear", "--cache", f"redis://127.0.0.1:{closed_port}/0")
    assert result.code == 2 and "Traceback" not in result.err
    assert _pinned(default_pins) == ["example.org:1965"]


def test_pins_sit_beside_the_sqlite_file_a_url_or_path_names(
    run: Run, tmp_path: Path, default_pins: Path
) -> None:
    """sqlite:///dir/x.db and a plain path keep their pins in dir/; the default cache keeps its own."""
    url = json.loads(run("cache", "info", "--cache", f"sqlite://{tmp_path}/u/x.db", "--json").out)
    assert url["pins"] == str(tmp_path / "u" / "gemini-pins.json")
    plain = json.loads(run("cache", "info", "--cache", str(tmp_path / "p" / "x.db"), "--json").out)
    assert plain["pins"] == str(tmp_path / "p" / "gemini-pins.json")
    default = json.loads(run("cache", "info", "--json").out)
    assert default["pins"] == str(default_pins) and default["pinned_hosts"] == ["example.org:1965"]


def test_a_gemini_url_forgets_the_pin_of_its_own_port_only(run: Run, tmp_path: Path) -> None:
    """`clear gemini://host/` is one authority (port 1965); `clear host` forgets every port."""
    cache = str(tmp_path / "robots.db")
    store = TofuStore(tmp_path / "gemini-pins.json")
    store.pin("example.org", 1965, SHA)
    store.pin("example.org", 1966, SHA)
    assert run("cache", "clear", "gemini://example.org/", "--cache", cache).code == 0
    assert _pinned(tmp_path / "gemini-pins.json") == ["example.org:1966"]
    assert run("cache", "clear", "http://example.org/", "--cache", cache).code == 0  # no pins
    assert _pinned(tmp_path / "gemini-pins.json") == ["example.org:1966"]
    assert run("cache", "clear", "example.org", "--cache", cache).code == 0
    assert _pinned(tmp_path / "gemini-pins.json") == []


# --- 2. $ROBOTSKIT_CACHE reads as --cache does -----------------------------------------------------


def test_the_environment_variable_takes_cache_urls(
    run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, closed_port: int
) -> None:
    """memory:// and redis:// in $ROBOTSKIT_CACHE are caches, not file names (no `./memory:` file,
    no `./redis:/...` directories); sqlite:// names the file."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("ROBOTSKIT_CACHE", "memory://")
    info = json.loads(run("cache", "info", "--json").out)
    assert info["cache"] == "memory://" and info["pins"] is None
    pytest.importorskip("redis")
    monkeypatch.setenv("ROBOTSKIT_CACHE", f"redis://127.0.0.1:{closed_port}/0")
    assert run("cache", "info").code == 2
    assert list(work.iterdir()) == []
    monkeypatch.setenv("ROBOTSKIT_CACHE", f"sqlite://{tmp_path}/env/x.db")
    info = json.loads(run("cache", "info", "--json").out)
    assert info["cache"] == f"sqlite://{tmp_path}/env/x.db"
    assert info["pins"] == str(tmp_path / "env" / "gemini-pins.json")


@pytest.mark.parametrize("value", ["bogus://x", "   "])
def test_the_environment_variable_refuses_what_is_no_cache(
    run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str
) -> None:
    """An unknown scheme or a blank value: one line naming $ROBOTSKIT_CACHE, exit 2, nothing made."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("ROBOTSKIT_CACHE", value)
    result = run("cache", "info")
    assert result.code == 2 and "ROBOTSKIT_CACHE" in result.err and result.err.count("\n") == 1
    assert list(work.iterdir()) == []


# --- 3. info creates nothing, and reports a Redis server that does not answer ----------------------


@pytest.mark.parametrize("form", ["url", "path"])
def test_info_of_a_missing_sqlite_file_creates_nothing(run: Run, tmp_path: Path, form: str) -> None:
    """`cache info` is a query: no directory, no database; it says there is no cache file there."""
    file = tmp_path / "nodir" / "x.db"
    cache = f"sqlite://{file}" if form == "url" else str(file)
    result = run("cache", "info", "--cache", cache)
    assert result.code == 0 and "no cache file there" in result.out
    doc = json.loads(run("cache", "info", "--cache", cache, "--json").out)
    assert doc["exists"] is False and doc["entries"] == 0 and doc["authorities"] == []
    assert run("cache", "clear", "--cache", cache).code == 0
    assert not (tmp_path / "nodir").exists()


def test_info_of_an_existing_sqlite_cache_says_it_exists(run: Run, tmp_path: Path) -> None:
    """A cache file that is there is read as before."""
    from robotskit.cache import SQLiteCache

    SQLiteCache(tmp_path / "c.db").close()
    doc = json.loads(run("cache", "info", "--cache", str(tmp_path / "c.db"), "--json").out)
    assert doc["exists"] is True and doc["entries"] == 0


def test_info_reports_a_redis_server_that_does_not_answer(run: Run, closed_port: int) -> None:
    """As `clear` does: exit 2, one line, not "entries not counted by this backend"."""
    pytest.importorskip("redis")
    url = f"redis://127.0.0.1:{closed_port}/0"
    result = run("cache", "info", "--cache", url)
    assert result.code == 2 and "not counted" not in result.out
    assert "Redis cache info failed" in result.err and result.err.count("\n") == 1
    assert run("cache", "clear", "--cache", url).code == 2


# --- 4. serve checks --cache and --timeout before it starts ----------------------------------------


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Replace the web server by a recorder: a test never binds, and never hangs if serve starts."""
    server = pytest.importorskip("robotskit.web.server")
    calls: list[dict[str, Any]] = []

    def fake_serve(host: str, port: int, **kwargs: Any) -> None:
        calls.append({"host": host, "port": port, **kwargs})

    monkeypatch.setattr(server, "serve", fake_serve)
    return calls


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--cache", "bogus://x"], "not a cache URL"),
        (["--cache", "NOT-A-DB"], "not a database"),
        (["--timeout", "inf"], "positive number of seconds"),
        (["--timeout", "nan"], "positive number of seconds"),
        (["--timeout", "0"], "positive number of seconds"),
        (["--timeout", "-1"], "positive number of seconds"),
    ],
)
def test_serve_refuses_bad_options_at_startup(
    run: Run, served: list[dict[str, Any]], tmp_path: Path, argv: list[str], words: str
) -> None:
    """One line, exit 2, and the server never starts (before, every request failed instead)."""
    text = tmp_path / "notes.txt"
    text.write_text("these are notes, not a SQLite database\n" * 50, encoding="utf-8")
    argv = [str(text) if a == "NOT-A-DB" else a for a in argv]
    result = run("serve", "--port", "0", *argv)
    assert result.code == 2 and words in result.err and result.err.count("\n") == 1
    assert served == []


def test_serve_starts_with_a_good_cache(run: Run, served: list[dict[str, Any]], tmp_path: Path) -> None:
    """A SQLite file is opened (and made) at startup and passed on as its URL."""
    result = run("serve", "--port", "0", "--cache", str(tmp_path / "s" / "c.db"), "--timeout", "2.5")
    assert result.code == 0, result.err
    assert served == [
        {
            "host": "127.0.0.1",
            "port": 0,
            "cache": f"sqlite://{(tmp_path / 's' / 'c.db').resolve()}",
            "timeout": 2.5,
        }
    ]


# --- 6. clear HOST refuses what is not a host, consistently ----------------------------------------


@pytest.mark.parametrize(
    "host",
    ["a\nb", "a\tb", "a\x00b", "*", "-", "a b c", "", "a/b", "user@host", "host?x", "host:", "http://*/"],
)
def test_clear_refuses_what_is_not_a_host(run: Run, host: str) -> None:
    """Whitespace and control characters (which urlsplit would delete), `*`, `-`, user info or a
    query: one line on stderr, exit 2, never a quiet clear of another host."""
    result = run("cache", "clear", host, "--cache", "memory://")
    assert result.code == 2 and result.out == ""
    assert "not a host name or a URL" in result.err and result.err.count("\n") == 1


@pytest.mark.parametrize(
    "host",
    ["example.com", "example.com:8080", "bücher.example", "127.1", "[::1]:1965", "https://example.com/x"],
)
def test_clear_accepts_hosts_and_urls(run: Run, host: str) -> None:
    result = run("cache", "clear", host, "--cache", "memory://")
    assert result.code == 0 and "nothing cached" in result.out
