"""The `local` scheduler's pool of worker processes (robotskit.batch.pool): it ends its workers at
once on Ctrl-C or a failure, says so when a worker dies, and its range units read the scans the
pool's tasks stored (or scan for themselves what is missing)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from robotskit.batch import cli, pool
from robotskit.batch._values import WorkerLost
from robotskit.batch.pool import LocalPool
from robotskit.batch.warc_ranges import StoredScans, save_scan, scan, split_points

from .conftest import build_warc, corpus_files


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie not yet reaped still answers signal 0: it has ended all the same
        with Path(f"/proc/{pid}/stat").open() as fh:
            return fh.read().split(") ", 1)[1].startswith("Z")
    except OSError:
        return True


def _wait_gone(pids: list[int], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if all(_gone(pid) for pid in pids):
            return True
        time.sleep(0.02)
    return False


def test_ctrl_c_ends_the_pool_workers_at_once() -> None:
    """A unit in flight does not hold up the exit: the workers are killed, not waited for."""
    with pytest.raises(KeyboardInterrupt), LocalPool(2) as workers:
        pids = workers.pids()
        assert len(pids) == 2 and os.getpid() not in pids
        busy = workers.submit(time.sleep, 60)
        deadline = time.monotonic() + 30
        while not busy.running() and time.monotonic() < deadline:
            time.sleep(0.01)
        started = time.monotonic()
        raise KeyboardInterrupt
    assert time.monotonic() - started < 3.0
    assert _wait_gone(pids)


def test_the_workers_are_deaf_to_ctrl_c_and_the_pool_ends_them_when_done() -> None:
    """SIGINT reaches the whole process group on a terminal: a worker ignores it (the command
    answers it) and goes on working; a pool that ends well waits for its workers to exit."""
    with LocalPool(1) as workers:
        (pid,) = workers.pids()
        os.kill(pid, signal.SIGINT)
        assert workers.result(workers.submit(sum, [1, 2, 3])) == 6
    assert _wait_gone([pid])


def test_a_worker_that_dies_stops_the_run_with_worker_lost() -> None:
    with LocalPool(1) as workers:
        doomed = workers.submit(os._exit, 3)  # as the kernel's OOM killer would end it
        with pytest.raises(WorkerLost, match="run the same command again to resume"):
            workers.result(doomed)
        raise_next = None
        try:
            workers.result(workers.submit(sum, [1]))
        except WorkerLost as exc:
            raise_next = exc
        assert raise_next is not None  # the pool is broken: every later unit says so too


@pytest.mark.skipif(sys.platform != "linux", reason="forked workers only (elsewhere they are spawned)")
def test_ctrl_c_while_the_workers_start_stops_after_ending_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A press while the pool forks is noted, not raised in the middle of a fork: the start
    completes, the workers are ended, and then the press is raised."""
    pids: list[int] = []

    class PressedDuringStart(pool.ProcessPoolExecutor):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            signal.raise_signal(signal.SIGINT)
            super().__init__(*args, **kwargs)

        def submit(self, *args: Any, **kwargs: Any) -> Any:
            started = super().submit(*args, **kwargs)
            pids.extend(self._processes or ())
            return started

    monkeypatch.setattr(pool, "ProcessPoolExecutor", PressedDuringStart)
    with pytest.raises(KeyboardInterrupt), LocalPool(2):
        pytest.fail("the run must not start")
    assert len(pids) == 2 and _wait_gone(pids)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is back


def test_worker_lost_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    def dies(args: argparse.Namespace) -> int:
        raise WorkerLost("a worker process ended in the middle of the run (killed, or out of memory)")

    monkeypatch.setattr(cli, "_run", dies)
    code = cli.handle(argparse.Namespace(inputs=["in.warc.gz"]))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "worker process ended" in err, err


def test_stored_scans_read_what_the_tasks_stored_and_scan_what_is_missing(tmp_path: Path) -> None:
    warc = tmp_path / "in.warc.gz"
    build_warc(warc, corpus_files(40, start=700))
    cuts = split_points(str(warc), warc.stat().st_size, every=2_000)
    spans = [(start, end) for start, end in zip(cuts, [*cuts[1:], None], strict=True)]
    assert len(spans) >= 3
    files = [str(tmp_path / f"scan-{i}") for i in range(len(spans))]
    save_scan(str(warc), *spans[0], files[0])  # stored
    Path(files[1]).write_bytes(b"cut sho")  # a scan cut short: unreadable
    # files[2:]: never stored (their tasks still running elsewhere)
    stored = StoredScans(str(warc), spans, files)
    assert len(stored) == len(spans)
    assert list(stored) == [scan(str(warc), start, end) for start, end in spans]
    assert not list(tmp_path.glob("*.tmp")), "a stored scan is renamed into place whole"


def test_a_pool_the_caller_passes_runs_several_batches_and_stays_open(tmp_path: Path) -> None:
    """`run_batch(..., scheduler=LocalPool(n))` (entered by the caller) is the caller's: two runs
    on it equal the in-process run, and it still takes work after them."""
    import pyarrow.parquet as pq

    from robotskit.batch import BatchConfig, default_agents
    from robotskit.batch.runner import run_batch

    warc = tmp_path / "in.warc.gz"
    build_warc(warc, corpus_files(12, start=760))
    config = BatchConfig(agents=default_agents()[:5])
    sync = tmp_path / "sync.parquet"
    run_batch([warc], sync, config, scheduler="sync")
    with LocalPool(2) as workers:
        for n in range(2):
            out = tmp_path / f"pool-{n}.parquet"
            assert run_batch([warc], out, config, scheduler=workers).result_bytes == 0
            assert pq.read_table(out).to_pylist() == pq.read_table(sync).to_pylist()
        assert workers.result(workers.submit(sum, [2, 3])) == 5


def test_no_worker_processes_here_is_an_error_that_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where processes cannot be made (no /dev/shm for the pool's locks in some containers),
    the run fails with an OSError (one line and exit 2 from the CLI) that names `sync`."""

    def no_semaphores(*args: Any, **kwargs: Any) -> Any:
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(pool, "ProcessPoolExecutor", no_semaphores)
    with pytest.raises(OSError, match=r"cannot start worker processes here .*--scheduler sync"), LocalPool(2):
        pytest.fail("the run must not start")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_stored_scan_of_another_shape_is_scanned_again(tmp_path: Path) -> None:
    """The stored scans are JSON read with their shape checked (never pickle: the folder is the
    user's): a file of another shape counts as missing."""
    warc = tmp_path / "in.warc.gz"
    build_warc(warc, corpus_files(10, start=820))
    stored = tmp_path / "scan-0"
    save_scan(str(warc), 0, None, str(stored))
    assert json.loads(stored.read_text(encoding="utf-8"))[2] is True
    stored.write_text(json.dumps([{"u": ["1"]}, [], True]), encoding="utf-8")
    assert list(StoredScans(str(warc), [(0, None)], [str(stored)])) == [scan(str(warc))]
