"""Hostile and ambiguous input to the command line: one line on stderr and exit 2, never a
traceback, never a confident verdict on input that is not what it seems, never raw control
characters on the terminal; closed, full or non-UTF-8 standard streams do not change the verdict."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from robotskit.cli._output import printable

from .conftest import Run

RULES = "User-agent: *\nDisallow: /private/\nAllow: /private/press/\n"


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://[::1", "Invalid IPv6 URL"),  # urlsplit raised ValueError: a traceback, exit 1
        ("http://[zz]/x", "IPv4 or IPv6"),
        ("http://h:99999/private/x", "Port out of range"),  # was judged "disallowed"
        ("http://h:abc/private/x", "Port"),
        ("http://ex ample.com/private/x", "not a valid host name"),
        ("http://%zz/private/x", "not a valid host name"),
        ("//example.com/private/x", "has no scheme"),  # was judged as the path //example.com/...
        ("/x\ndisallowed  /private/evil", "control character"),  # forged a second verdict line
        ("/x\x1b[2J", "control character"),
        ("javascript:alert(1)", "is a javascript: URL"),  # suggested "write https://javascript:alert(1)"
        ("?q", "has no path"),  # suggested "https://?q"
        ("localhost:8080/x", "write https://localhost:8080/x"),
    ],
)
def test_a_malformed_or_ambiguous_url_is_refused(
    run: Run, robots_file: Callable[[str | bytes], Path], url: str, said: str
) -> None:
    path = str(robots_file(RULES))
    for command in (["check", path, url], ["explain", path, url]):
        result = run(*command, "--agent", "A")
        assert result.code == 2, result
        assert said in result.err and "Traceback" not in result.err
        assert result.out == ""


def test_a_bad_host_in_robots_or_a_url_list_is_refused(
    run: Run, robots_file: Callable[[str | bytes], Path], tmp_path: Path
) -> None:
    assert run("check", "http://[::1", "/x", "--agent", "A").code == 2
    urls = tmp_path / "urls.txt"
    urls.write_text("/private/x\nhttp://[::1\n", encoding="utf-8")
    result = run("check", str(robots_file(RULES)), "--urls", str(urls), "--agent", "A")
    assert result.code == 2 and "Invalid IPv6 URL" in result.err


def test_well_formed_urls_are_still_judged(run: Run, robots_file: Callable[[str | bytes], Path]) -> None:
    path = str(robots_file(RULES))
    assert run("check", path, "http://[::1]:8080/private/x", "--agent", "A").code == 1
    assert run("check", path, "/private/press/x", "--agent", "A").code == 0
    assert run("check", path, "https://example.com/a%20b", "--agent", "A").code == 0


def test_an_empty_path_is_refused(run: Run) -> None:
    result = run("check", "", "/x", "--agent", "A")
    assert result.code == 2 and "empty path" in result.err


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (RULES.encode("utf-16"), "NUL bytes"),  # was "allowed (no group applies)", no word of why
        (b"<html><body>Not found</body></html>\n", "HTML page"),
        (b"#" + b"c" * 600_000 + b"\nUser-agent: *\nDisallow: /\n", "only the first 512,000"),
        (b"this is not\na robots file\n", "no group that could be read"),
    ],
)
def test_a_verdict_on_a_doubtful_file_comes_with_a_warning(
    run: Run, robots_file: Callable[[str | bytes], Path], body: bytes, said: str
) -> None:
    path = str(robots_file(body))
    for command in ("check", "explain"):
        result = run(command, path, "/private/x", "--agent", "A")
        assert result.code in (0, 1)
        assert "robotskit: warning:" in result.err and said in result.err


def test_a_plain_file_gets_no_doubt(run: Run, robots_file: Callable[[str | bytes], Path]) -> None:
    result = run("check", str(robots_file(RULES)), "/private/x", "--agent", "A")
    assert result.code == 1 and result.err == ""


def test_control_characters_from_a_file_are_printed_escaped(
    run: Run, robots_file: Callable[[str | bytes], Path]
) -> None:
    """A robots.txt line holding ESC [2J (clear screen) is shown as text, not sent to the terminal."""
    path = str(robots_file("User-agent: *\nDisalow: /x\x1b[2J\u009b\n"))
    result = run("lint", path)
    assert "\x1b" not in result.out and "\x9b" not in result.out
    assert "/x\\x1b[2J\\x9b" in result.out


def test_printable_keeps_text_and_escapes_controls() -> None:
    assert printable("Disallow: /ü\tx") == "Disallow: /ü\tx"
    assert printable("a\x00b\x07c\x1bd\x7fe\u202ef") == "a\\x00b\\x07c\\x1bd\\x7fe\\u202ef"


def test_zero_columns_still_prints(
    run: Run, robots_file: Callable[[str | bytes], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "0")  # rich printed nothing at all
    result = run("check", str(robots_file(RULES)), "/private/x", "--agent", "A")
    assert result.code == 1 and "disallowed" in result.out


# --- the standard streams, in a real process ------------------------------------------------------


def _cli(
    tmp_path: Path, *argv: str, env: dict[str, str] | None = None, **streams: object
) -> subprocess.CompletedProcess[bytes]:
    environ = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1", **(env or {})}
    return subprocess.run(  # noqa: PLW1510 - the status is the point of each test
        [sys.executable, "-m", "robotskit.cli", *argv], env=environ, timeout=60, **streams
    )


@pytest.mark.slow
def test_a_closed_or_full_stderr_does_not_change_the_verdict(tmp_path: Path) -> None:
    """A warning that cannot be written is lost, not the verdict (was exit 1 and no output)."""
    path = tmp_path / "robots.txt"
    path.write_text(RULES, encoding="utf-8")
    argv = ("check", str(path), "/x", "--agent", "MyBot/1.0")  # the agent string draws a warning
    closed = _cli(tmp_path, *argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, pass_fds=())
    assert closed.returncode == 0 and b"allowed" in closed.stdout
    with Path("/dev/full").open("wb") as full:
        done = _cli(tmp_path, *argv, stdout=subprocess.PIPE, stderr=full)
    assert done.returncode == 0 and b"allowed" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize(("fd", "argv", "code", "said"), [
    (1, ["check", "{path}", "/private/x"], 1, b""),  # `>&-`: the verdict is the exit status
    (0, ["check", "-", "/x"], 2, b"standard input is closed"),  # `<&-`: was an AttributeError
])  # fmt: skip
def test_closed_standard_streams(tmp_path: Path, fd: int, argv: list[str], code: int, said: bytes) -> None:
    path = tmp_path / "robots.txt"
    path.write_text(RULES, encoding="utf-8")
    args = [arg.format(path=path) for arg in argv]
    done = _cli(
        tmp_path, *args, "--agent", "A", preexec_fn=lambda: os.close(fd), stdout=None if fd == 1 else subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert done.returncode == code and b"Traceback" not in done.stderr
    assert said in done.stderr


@pytest.mark.slow
def test_a_full_stdout_with_json_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    path.write_text(RULES, encoding="utf-8")
    with Path("/dev/full").open("wb") as full:
        done = _cli(tmp_path, "lint", str(path), "--json", stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert b"Traceback" not in done.stderr and done.stderr.count(b"robotskit: error:") == 1


@pytest.mark.slow
def test_a_closed_pipe_ends_quietly_with_141(tmp_path: Path) -> None:
    """`check ... | head -c 1` exited 1, the "disallowed" status, though every URL was allowed."""
    path = tmp_path / "robots.txt"
    path.write_text(RULES, encoding="utf-8")
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(f"/p{i}/x\n" for i in range(50_000)), encoding="utf-8")
    environ = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    with subprocess.Popen(
        [sys.executable, "-m", "robotskit.cli", "check", str(path), "--urls", str(urls), "--agent", "A"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environ,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.read(1)
        process.stdout.close()  # the reader goes away
        err = process.stderr.read()
        code = process.wait(timeout=60)
    assert code == 141 and b"Traceback" not in err and b"Exception ignored" not in err


@pytest.mark.slow
def test_an_ascii_only_output_encoding_escapes_what_it_cannot_write(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    path.write_text("User-agent: 日本語\nDisallow: /\n", encoding="utf-8")
    env = {"PYTHONIOENCODING": "ascii"}
    done = _cli(tmp_path, "check", str(path), "/ü", "--agent", "日本語", env=env, capture_output=True)
    assert done.returncode == 1 and b"Traceback" not in done.stderr and b"disallowed" in done.stdout
    done = _cli(
        tmp_path, "check", str(path), "/ü", "--agent", "日本語", "--json", env=env, capture_output=True
    )
    assert done.returncode == 1 and b"\\u65e5" in done.stdout  # JSON's own escape: still valid JSON


@pytest.mark.slow
def test_an_endless_input_is_read_to_a_bound(tmp_path: Path) -> None:
    """`check /dev/zero` read until memory ran out (a MemoryError traceback under a ulimit)."""
    done = _cli(tmp_path, "check", "/dev/zero", "/x", "--agent", "A", capture_output=True)
    assert done.returncode in (0, 1) and b"Traceback" not in done.stderr
    assert b"larger than 16 MiB" in done.stderr and b"NUL bytes" in done.stderr


def test_robots_given_twice_is_refused(run: Run, robots_file: Callable[[str | bytes], Path]) -> None:
    """`--robots A --robots B` silently used B."""
    first, second = str(robots_file(RULES)), str(robots_file("User-agent: *\nAllow: /\n"))
    for command in ("check", "explain"):
        result = run(command, "--robots", first, "--robots", second, "/private/x", "--agent", "A")
        assert result.code == 2 and "--robots given twice" in result.err


def test_a_file_in_the_way_of_the_cache_folder_is_said_plainly(run: Run, tmp_path: Path) -> None:
    """It said only `[Errno 17] File exists: ...`."""
    blocker = tmp_path / "afile"
    blocker.write_text("x", encoding="utf-8")
    result = run("fetch", "http://127.0.0.1:9/robots.txt", "--cache", str(blocker / "x.db"), "--timeout", "1")
    assert result.code == 2 and "a file, not a folder, is in the way" in result.err
