"""Directories and host lists: what is read, skipped or an error row; the CLI's manners."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from robotskit.batch import BatchConfig, Capture, load_agents
from robotskit.batch.cli import main
from robotskit.batch.runner import run_batch
from tests.batch.conftest import CORPUS, build_warc, corpus_files

ROOT = Path(__file__).resolve().parents[2]


def _batch_command(warc: Path, out: Path) -> list[str]:
    """`robotskit batch WARC --out OUT` as a child process runs it."""
    return [sys.executable, "-m", "robotskit.cli", "batch", str(warc), "--out", str(out)]


def _env(**extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([*extra.pop("front", "").split(), str(ROOT / "src")]),
        **extra,
    }


def test_corpus_style_manifest_gives_scheme_and_profile_and_skips_other_files(
    tmp_path: Path, agents_file: Path
) -> None:
    """`site` + `kind` make gemini:// and https:// URLs (files under files/); README, urls.jsonl
    and an image are not read but counted as skipped; a bad manifest line is an error row."""
    root = tmp_path / "corpus"
    (root / "files").mkdir(parents=True)
    entries = []
    with (CORPUS / "manifest.jsonl").open(encoding="utf-8") as fh:
        for entry in map(json.loads, fh):
            if entry["file"] in ("0001.txt", "0002.txt", "0050.txt"):
                shutil.copy(CORPUS / "files" / entry["file"], root / "files" / entry["file"])
                entries.append(
                    json.dumps({"file": entry["file"], "site": entry["site"], "kind": entry["kind"]})
                )
    (root / "manifest.jsonl").write_text("\n".join([*entries, "{not json", ""]), encoding="utf-8")
    (root / "README.md").write_text("# readme\n", encoding="utf-8")
    (root / "urls.jsonl").write_text("{}\n", encoding="utf-8")
    (root / "files" / "logo.png").write_bytes(b"\x89PNG\r\n")
    out = tmp_path / "r.parquet"
    summary = run_batch([root], out, BatchConfig(agents=load_agents(agents_file)), scheduler="sync")
    rows = {Path(r["source"]).name: r for r in pq.read_table(out).to_pylist()}
    assert summary.skipped_files == 3 and summary.rows == 4
    assert rows["0001.txt"]["url"].startswith("gemini://") and rows["0001.txt"]["profile"] == "gemini"
    assert rows["0050.txt"]["url"].startswith("https://") and rows["0050.txt"]["profile"] == "rfc9309"
    bad = [r for r in rows.values() if r["error"]]
    assert len(bad) == 1 and "manifest.jsonl line 4" in bad[0]["error"] and bad[0]["outcome"] is None


def test_manifest_url_entries_and_no_manifest(tmp_path: Path, agents_file: Path) -> None:
    """`{"file", "url"}` gives the URL as is; without a manifest only robots.txt and *.txt are read."""
    root = tmp_path / "d"
    (root / "a").mkdir(parents=True)
    (root / "a" / "robots.txt").write_bytes(b"User-agent: *\nDisallow: /x\n")
    (root / "b.txt").write_bytes(b"User-agent: GPTBot\nDisallow: /\n")
    (root / "notes.md").write_text("hi", encoding="utf-8")
    out = tmp_path / "r.parquet"
    config = BatchConfig(agents=load_agents(agents_file))
    summary = run_batch([root], out, config, scheduler="sync")
    assert (summary.rows, summary.skipped_files) == (2, 1)
    (root / "manifest.jsonl").write_text(
        json.dumps({"file": "b.txt", "url": "gemini://cap.example/robots.txt"}) + "\n", encoding="utf-8"
    )
    summary = run_batch([root], tmp_path / "m.parquet", config, scheduler="sync")
    rows = pq.read_table(tmp_path / "m.parquet").to_pylist()
    assert (summary.rows, summary.skipped_files) == (1, 2)
    assert rows[0]["url"] == "gemini://cap.example/robots.txt" and rows[0]["profile"] == "gemini"


def test_bad_host_list_lines_are_rows_and_the_run_completes(tmp_path: Path, agents_file: Path) -> None:
    """An undecodable line and a line that is no host are error rows; the run does not stop."""
    hosts = tmp_path / "hosts.txt"
    hosts.write_bytes(b"# hosts\n\xff\xfe not utf-8\nthis is not a host\n")
    out = tmp_path / "h.parquet"
    summary = run_batch([hosts], out, BatchConfig(agents=load_agents(agents_file)), scheduler="sync")
    rows = pq.read_table(out).to_pylist()
    assert summary.rows == 2 and [r["record"] for r in rows] == [2, 3]
    assert "not UTF-8" in rows[0]["error"] and "not a host" in rows[1]["error"]
    assert all(r["outcome"] is None for r in rows)


def test_missing_input_is_one_line_and_exit_2_under_the_default_scheduler(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No traceback, no cluster started: one line on stderr naming the input, exit status 2."""
    missing = tmp_path / "nope.warc.gz"
    assert main([str(missing), "--out", str(tmp_path / "r.parquet")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(missing) in err and "Traceback" not in err
    assert main(["report", str(tmp_path / "missing.parquet")]) == 2
    assert "no such results file" in capsys.readouterr().err


def test_output_into_a_closed_pipe_ends_quietly(tmp_path: Path, agents_file: Path) -> None:
    """`robotskit batch ... | (reader gone)`: no Errno 32, no traceback, exit 141 (128 + SIGPIPE)."""
    warc = tmp_path / "in.warc.gz"
    build_warc(warc, corpus_files(3, start=400))
    command = _batch_command(warc, tmp_path / "r.parquet")
    process = subprocess.Popen(
        [*command, "--agents", str(agents_file), "--scheduler", "sync"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader goes away before anything is printed
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=120) == 141
    assert "Errno 32" not in err and "Traceback" not in err and "Exception ignored" not in err


def test_without_the_batch_extra_the_command_names_the_extra(tmp_path: Path) -> None:
    """When pyarrow (or any batch dependency) is missing, `robotskit batch` says what to install."""
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "pyarrow.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'pyarrow'\", name='pyarrow')\n", encoding="utf-8"
    )
    result = subprocess.run(
        [sys.executable, "-m", "robotskit.cli", "batch", str(tmp_path), "--scheduler", "sync"],
        capture_output=True,
        text=True,
        env=_env(front=str(fake)),
        check=False,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert "pip install 'robotskit[batch]'" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("scheduler", ["sync", "local", "dask"])
def test_ctrl_c_stops_cleanly_and_a_rerun_resumes(tmp_path: Path, agents_file: Path, scheduler: str) -> None:
    """Ctrl-C (SIGINT to the whole process group, workers included) mid-run: one line saying how
    to resume, exit 130, no traceback; the rerun skips finished units and equals a whole run."""
    warcs = []
    for n in range(12):  # enough units that the signal lands mid-run on a quick machine
        warc = tmp_path / f"in-{n}.warc.gz"
        build_warc(warc, corpus_files(60, start=100 + 60 * n), prefix=f"{n}-")
        warcs.append(str(warc))
    out = tmp_path / "r.parquet"
    command = [sys.executable, "-m", "robotskit.cli", "batch", *warcs, "--out", str(out)]
    command += ["--agents", str(agents_file), "--scheduler", scheduler, "--workers", "2"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), text=True, start_new_session=True
    )
    done = out.with_name(out.name + ".parts") / "done.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (done.is_file() and done.read_text(encoding="utf-8")):
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C does
    _, err = process.communicate(timeout=120)
    if process.returncode == 0:
        pytest.skip("the run finished before the signal arrived")
    assert process.returncode == 130, err
    assert "run the same command again to resume" in err and "Traceback" not in err, err
    assert err.count("\n") == 1, err
    again = subprocess.run(command, capture_output=True, text=True, env=_env(), check=True, timeout=300)
    assert "already done" in again.stdout and " 0 already done" not in again.stdout
    whole = tmp_path / "whole.parquet"
    run_batch(warcs, whole, BatchConfig(agents=load_agents(agents_file)), scheduler="sync")
    assert pq.read_table(out).to_pylist() == pq.read_table(whole).to_pylist()


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux: /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text(encoding="ascii").rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="finds the workers through /proc")
def test_a_local_worker_killed_mid_run_is_one_line_and_a_rerun_resumes(
    tmp_path: Path, agents_file: Path
) -> None:
    """A worker of the local pool killed mid-run (as the kernel's OOM killer does): the run ends
    with one line saying so and exit 2, keeps the units done, and the same command resumes and
    gives a whole run's rows."""
    warcs = []
    for n in range(12):
        warc = tmp_path / f"in-{n}.warc.gz"
        build_warc(warc, corpus_files(60, start=100 + 60 * n), prefix=f"{n}-")
        warcs.append(str(warc))
    out = tmp_path / "r.parquet"
    command = [sys.executable, "-m", "robotskit.cli", "batch", *warcs, "--out", str(out)]
    command += ["--agents", str(agents_file), "--scheduler", "local", "--workers", "2"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), text=True)
    done = out.with_name(out.name + ".parts") / "done.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (done.is_file() and done.read_text(encoding="utf-8")):
        time.sleep(0.05)
    workers = _children(process.pid)
    if workers:
        os.kill(workers[0], signal.SIGKILL)
    _, err = process.communicate(timeout=120)
    if process.returncode == 0:
        pytest.skip("the run finished before the worker was killed")
    assert process.returncode == 2, err
    assert "worker process ended" in err and "run the same command again" in err, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert not out.exists()
    again = subprocess.run(command, capture_output=True, text=True, env=_env(), check=True, timeout=300)
    assert "already done" in again.stdout and " 0 already done" not in again.stdout
    whole = tmp_path / "whole.parquet"
    run_batch(warcs, whole, BatchConfig(agents=load_agents(agents_file)), scheduler="sync")
    assert pq.read_table(out).to_pylist() == pq.read_table(whole).to_pylist()


def test_an_input_failing_under_the_reader_is_one_row_and_other_units_run(
    tmp_path: Path, agents_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader that raises mid-unit (an I/O error) gives one `read:` row; the run completes."""
    good, bad = tmp_path / "good.warc.gz", tmp_path / "bad.warc.gz"
    build_warc(good, corpus_files(3, start=500))
    build_warc(bad, corpus_files(3, start=510))
    inputs = sys.modules["robotskit.batch.inputs"]
    real = inputs.read_warc

    def flaky(path: str, max_bytes: int) -> Iterator[Capture]:
        for number, capture in enumerate(real(path, max_bytes)):
            if path == str(bad) and number == 2:
                raise OSError("disk went away")
            yield capture

    monkeypatch.setattr(inputs, "read_warc", flaky)
    out = tmp_path / "r.parquet"
    summary = run_batch([good, bad], out, BatchConfig(agents=load_agents(agents_file)), scheduler="sync")
    rows = pq.read_table(out).to_pylist()
    failed = [r for r in rows if r["record"] == -1]
    assert len(failed) == 1 and failed[0]["error"] == "read: OSError: disk went away"
    assert summary.units == 2 and sum(r["source"] == str(good) for r in rows) > 3


@pytest.mark.slow
def test_a_dask_run_says_nothing_when_port_8787_is_taken(tmp_path: Path, agents_file: Path) -> None:
    """The scheduler served its HTTP routes on Dask's default port: with 8787 held (another run, a
    user's dashboard) it printed a UserWarning and picked another port. It now binds a free port
    on loopback, and the run prints its summary alone."""
    import socket

    warc = tmp_path / "in.warc.gz"
    build_warc(warc, corpus_files(3, start=420))
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 8787))
        holder.listen()
    except OSError:
        pass  # held by something else already: the case under test all the same
    try:
        command = _batch_command(warc, tmp_path / "r.parquet")
        done = subprocess.run(
            [*command, "--agents", str(agents_file), "--scheduler", "dask", "--workers", "1"],
            check=False,
            capture_output=True,
            text=True,
            env=_env(),
            timeout=300,
        )
    finally:
        holder.close()
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    assert "captures ->" in done.stdout


@pytest.mark.slow
def test_ctrl_c_ends_the_dask_workers_at_once() -> None:
    """Closed gracefully after Ctrl-C, a worker busy with a unit kept the close waiting until it
    gave up on a timeout (4 s; 0.7-4 s from Ctrl-C to exit on whole runs); the run's own worker
    processes are now ended at once, and the close is quick."""
    import distributed

    from robotskit.batch.runner import _engine

    started = 0.0
    pids: list[int] = []
    with pytest.raises(KeyboardInterrupt), _engine("dask", 1) as client:
        assert isinstance(client, distributed.Client)
        pids = list(client.run(os.getpid).values())
        busy = client.submit(time.sleep, 60, pure=False)
        deadline = time.monotonic() + 60
        while not any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.05)  # until the worker runs it: a unit in flight
        assert busy.status == "pending" and any(client.processing().values())
        started = time.monotonic()
        raise KeyboardInterrupt
    assert time.monotonic() - started < 3.0  # no graceful wait for the 60 s task
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
