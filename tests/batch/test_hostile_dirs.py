"""Hostile directories: every bad manifest line or directory file is one error row, the other
files are read, and the run completes (a fuzzing run found a NUL in a manifest `file` ending the
unit, a 100,000-character name or a deeply nested JSON line aborting the run, a FIFO hanging it,
a file name that is not UTF-8 (a directory's file, a host list) aborting it, and links to
/etc/passwd or /dev/zero being read)."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from robotskit.batch import BatchConfig, load_agents
from robotskit.batch.runner import run_batch
from tests.batch.conftest import build_warc, corpus_files

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and symlinks (POSIX)")

ROBOTS = b"User-agent: *\nDisallow: /\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "a.txt").write_bytes(ROBOTS)
    (folder / "b.txt").write_bytes(ROBOTS)
    return folder


def _run(root: Path, agents_file: Path) -> list[dict[str, Any]]:
    out = root.with_name("r.parquet")
    config = BatchConfig(agents=load_agents(agents_file))
    run_batch([root], out, config, scheduler="sync", progress=False)
    return sorted(pq.read_table(out).to_pylist(), key=lambda row: row["record"])


def _manifest(root: Path, *lines: str) -> None:
    (root / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _entry(file: str, host: str) -> str:
    return json.dumps({"file": file, "url": f"https://{host}/robots.txt"})


def _judged(row: dict[str, Any]) -> bool:
    return row["outcome"] == "ok" and row["error"] is None and row["size"] == len(ROBOTS)


def _refused(row: dict[str, Any], *words: str) -> bool:
    return row["outcome"] is None and not row["agents"] and all(w in (row["error"] or "") for w in words)


@contextlib.contextmanager
def _released(fifo: Path, after: float = 5.0) -> Iterator[None]:
    """Should the run open the FIFO to read (it must not), open its other end after `after`
    seconds, so that the read ends (with nothing) and the test fails instead of hanging."""
    stop = threading.Event()

    def release() -> None:
        if stop.wait(after):
            return
        while not stop.is_set():
            with contextlib.suppress(OSError):  # ENXIO: nobody is reading yet
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            stop.wait(0.05)

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def test_a_nul_in_a_manifest_file_is_one_row_and_the_lines_after_it_are_read(
    root: Path, agents_file: Path
) -> None:
    _manifest(
        root,
        _entry("a.txt", "a.example"),
        _entry("a.txt\u0000x", "nul.example"),
        _entry("b.txt", "b.example"),
        _entry("a.txt", "c.example"),
    )
    rows = _run(root, agents_file)
    assert [r["record"] for r in rows] == [0, 1, 2, 3]
    assert _refused(rows[1], "manifest.jsonl line 2", "NUL")
    assert all(_judged(rows[i]) for i in (0, 2, 3))
    assert rows[3]["url"] == "https://c.example/robots.txt"


def test_names_too_long_for_the_file_system_are_one_row_each(root: Path, agents_file: Path) -> None:
    """A 100,000-character `file` (past PATH_MAX) and a 300-character one (past NAME_MAX)."""
    _manifest(
        root,
        _entry("a" * 100_000, "long.example"),
        _entry("b" * 300 + ".txt", "name.example"),
        _entry("b.txt", "b.example"),
    )
    rows = _run(root, agents_file)
    assert len(rows) == 3
    assert _refused(rows[0], "manifest.jsonl line 1", "too long") and len(rows[0]["error"]) < 200
    assert _refused(rows[1], "read: File name too long")
    assert _judged(rows[2])


def test_a_deeply_nested_json_line_is_not_a_json_object(root: Path, agents_file: Path) -> None:
    _manifest(root, _entry("a.txt", "a.example"), "[" * 100_000 + "]" * 100_000, _entry("b.txt", "b.example"))
    rows = _run(root, agents_file)
    assert len(rows) == 3 and _judged(rows[0]) and _judged(rows[2])
    assert _refused(rows[1], "manifest.jsonl line 2: not a JSON object")


@pytest.mark.parametrize("manifest", [True, False], ids=["manifest", "no-manifest"])
def test_a_fifo_is_an_error_row_not_a_hang(root: Path, agents_file: Path, manifest: bool) -> None:
    fifo = root / "fifo.txt"
    os.mkfifo(fifo)
    if manifest:
        _manifest(root, _entry("a.txt", "a.example"), _entry("fifo.txt", "f.example"))
    with _released(fifo):
        rows = _run(root, agents_file)
    fifo_row = next(r for r in rows if r["source"] == str(fifo))
    assert _refused(fifo_row, "not a regular file (a FIFO)")
    assert sum(_judged(r) for r in rows) == (1 if manifest else 2)


def test_a_file_name_that_is_not_utf8_is_read_and_shown_with_escapes(root: Path, agents_file: Path) -> None:
    """Without a manifest the file is read, its name escaped in `source`; in a manifest, a `file`
    given with the surrogate escapes of such a name reads it too, and a URL that is not valid
    Unicode is an error row."""
    (root / os.fsdecode(b"bad\xffname.txt")).write_bytes(ROBOTS)  # the name's bytes, not UTF-8
    rows = _run(root, agents_file)
    assert len(rows) == 3 and all(_judged(r) for r in rows)
    assert f"{root}/bad\\xffname.txt" in [r["source"] for r in rows]
    lines = [
        json.dumps({"file": "bad\udcffname.txt", "url": "https://bad.example/robots.txt"}),
        json.dumps({"file": "a.txt", "url": "https://\udcff.example/robots.txt"}),
    ]
    _manifest(root, *lines)
    rows = _run(root, agents_file)
    assert _judged(rows[0]) and rows[0]["source"].endswith("bad\\xffname.txt")
    assert _refused(rows[1], "manifest.jsonl line 2", "not valid Unicode")


@pytest.mark.parametrize("manifest", [True, False], ids=["manifest", "no-manifest"])
def test_links_leading_outside_the_directory_are_refused(
    root: Path, agents_file: Path, manifest: bool
) -> None:
    """A link to a file outside (as `../secret.txt` in a manifest is), to /dev/zero, or through a
    linked folder is an error row, in manifest and plain directories alike; a link that stays
    inside is read."""
    secret = root.parent / "secret.txt"
    secret.write_bytes(b"User-agent: *\nAllow: /\n")
    (root / "pw.txt").symlink_to(secret)
    (root / "zero.txt").symlink_to("/dev/zero")
    (root / "outer").symlink_to(root.parent)
    (root / "sub").mkdir()
    (root / "sub" / "inside.txt").symlink_to("../a.txt")
    if manifest:
        names = ["pw.txt", "zero.txt", "outer/secret.txt", "sub/inside.txt", "../secret.txt"]
        _manifest(root, *(_entry(name, f"h{i}.example") for i, name in enumerate(names)))
    rows = {Path(r["source"]).relative_to(root).as_posix(): r for r in _run(root, agents_file)}
    for name in ("pw.txt", "zero.txt"):
        assert _refused(rows[name], "leads outside the directory")
    assert _judged(rows["sub/inside.txt"])
    if manifest:
        assert _refused(rows["outer/secret.txt"], "leads outside the directory")
        assert _refused(rows["manifest.jsonl line 5"], "must stay inside the directory")
        assert len(rows) == 5
    else:
        assert sorted(rows) == ["a.txt", "b.txt", "pw.txt", "sub/inside.txt", "zero.txt"]


def test_host_lists_and_warc_files_whose_names_are_not_utf8_are_read(
    tmp_path: Path, agents_file: Path
) -> None:
    """The same escapes for a host list's or a WARC file's own name (the host list's line needs
    no network)."""
    hosts = tmp_path / os.fsdecode(b"hosts\xff.lst")
    hosts.write_text("this is not a host\n", encoding="utf-8")
    warc = tmp_path / os.fsdecode(b"crawl\xff.warc.gz")
    build_warc(warc, corpus_files(2, start=600))
    out = tmp_path / "h.parquet"
    run_batch(
        [hosts, warc], out, BatchConfig(agents=load_agents(agents_file)), scheduler="sync", progress=False
    )
    rows = pq.read_table(out).to_pylist()
    by_source = {source: [r for r in rows if r["source"] == source] for source in {r["source"] for r in rows}}
    assert sorted(by_source) == [f"{tmp_path}/crawl\\xff.warc.gz", f"{tmp_path}/hosts\\xff.lst"]
    [line] = by_source[f"{tmp_path}/hosts\\xff.lst"]
    assert "not a host" in line["error"]
    assert sum(r["outcome"] == "ok" for r in by_source[f"{tmp_path}/crawl\\xff.warc.gz"]) >= 2


@pytest.mark.timeout(60)  # before the fix /dev/zero was read without end: fail, do not hang
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_pipe_or_device_given_as_input_is_refused_before_it_is_opened(
    tmp_path: Path, agents_file: Path, kind: str
) -> None:
    """A FIFO (what `<(...)` passes) or /dev/zero given as an input is one InputError naming it:
    before, the FIFO hung the run in its open and /dev/zero was read as a host list without end."""
    from robotskit.batch.inputs import InputError

    if kind == "fifo":
        given = tmp_path / "hosts.txt"
        os.mkfifo(given)
        expected = "a FIFO"
    else:
        given = Path("/dev/zero")
        if not given.exists():
            pytest.skip("no /dev/zero here")
        expected = "a character device"
    config = BatchConfig(agents=load_agents(agents_file))
    released = _released(given) if kind == "fifo" else contextlib.nullcontext()
    with released, pytest.raises(InputError, match=expected) as caught:
        run_batch([given], tmp_path / "r.parquet", config, scheduler="sync", progress=False)
    assert str(given) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_an_empty_input_path_is_refused_and_names_are_escaped(tmp_path: Path) -> None:
    """`robotskit batch ""` read the working directory (Path("") is "."); a missing input whose name
    holds a terminal escape was printed raw."""
    from robotskit.batch.inputs import InputError, discover

    with pytest.raises(InputError, match="empty"):
        discover([""])
    with pytest.raises(InputError) as caught:
        discover([str(tmp_path / "\x1b[31mred\nline")])
    assert "\x1b" not in str(caught.value) and "\n" not in str(caught.value)
    assert "\\x1b[31mred\\nline" in str(caught.value)
