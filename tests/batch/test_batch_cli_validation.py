"""`robotskit batch` refuses option values that cannot work, and a robots.txt file given as a host
list, before anything runs: one line on stderr, exit 2, no results file (a fuzzing run found
`--chunk 0` writing no rows and `--timeout nan` or `--scheme gopher` making every row an error,
all with exit 0)."""

from __future__ import annotations

import socket
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from robotskit.batch import cli
from robotskit.batch.cli import main


@pytest.fixture
def hosts(tmp_path: Path) -> Path:
    """A host list naming a port on 127.0.0.1 nothing listens on: a fetch is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    path = tmp_path / "HOSTS.txt"
    path.write_text(f"# a host list\n127.0.0.1:{port}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--chunk", "0"),
        ("--chunk", "-5"),
        ("--workers", "0"),
        ("--max-bytes", "-1"),
        ("--max-bytes", "0"),
        ("--concurrency", "0"),
        ("--per-host", "0"),
        ("--timeout", "nan"),
        ("--timeout", "inf"),
        ("--timeout", "0"),
        ("--timeout", "-1"),
        ("--scheme", "gopher"),
        ("--cache", "bogus://x"),
        ("--cache", "results.db"),  # a path: batch's --cache is a URL
    ],
)
def test_bad_option_values_are_refused_before_the_run(
    hosts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    out = tmp_path / "o.parquet"
    code = main([str(hosts), "--out", str(out), "--scheduler", "sync", "--no-progress", option, value])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and option in err and "Traceback" not in err
    assert not out.exists()


def test_a_cache_file_that_is_not_a_database_is_refused(
    hosts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n" * 100, encoding="utf-8")
    out = tmp_path / "o.parquet"
    code = main([str(hosts), "--out", str(out), "--scheduler", "sync", "--cache", f"sqlite://{notes}"])
    assert code == 2 and "not a database" in capsys.readouterr().err and not out.exists()


def test_report_refuses_top_below_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "r.parquet"), "--top", "0"]) == 2
    assert "--top" in capsys.readouterr().err


@pytest.mark.parametrize(
    "body",
    [
        "User-agent: *\nDisallow: /private/\n",
        "\ufeff# robots\n\nSitemap: https://example.com/s.xml\nuser-agent:*\nallow: /\n",
        "Crawl-delay: 10\n",
    ],
)
def test_a_robots_txt_file_is_not_read_as_a_host_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str
) -> None:
    """Read as hosts, each of its lines was an error row (exit 0); now it is refused with a hint."""
    robots = tmp_path / "some-robots.txt"
    robots.write_text(body, encoding="utf-8")
    out = tmp_path / "b.parquet"
    assert main([str(robots), "--out", str(out), "--scheduler", "sync", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "is a robots.txt file, not a list of hosts" in err and "directory" in err
    assert err.count("\n") == 1 and not out.exists()


def test_a_host_list_still_runs(hosts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Good values pass (a scheme in capitals too)."""
    out = tmp_path / "o.parquet"
    argv = [str(hosts), "--out", str(out), "--scheduler", "sync", "--no-progress", "--timeout", "2"]
    assert main([*argv, "--scheme", "HTTP", "--chunk", "1", "--cache", "memory://"]) == 0
    assert "1 captures" in capsys.readouterr().out
    assert pq.read_table(out).num_rows == 1


def test_a_host_named_like_a_directive_stays_a_host(tmp_path: Path) -> None:
    """`allow:8080` is a host and its port, not a robots.txt line (checked without fetching it)."""
    listing = tmp_path / "hosts.txt"
    listing.write_text("allow:8080\nsitemap:443\n", encoding="utf-8")
    cli._check_host_lists([str(listing)])  # no error
