"""The `local` scheduler: a pool of worker processes on this machine (the standard library's
`ProcessPoolExecutor`), one per core, forked from the command on Linux.

A batch unit is seconds of pure-Python work with no data to move between workers (each writes
its own part file and shares per-body verdicts through the run's SQLite store), so one machine
needs no task graph, no scheduler process and no event loop. Dask's LocalCluster did the same job
before (it is still `scheduler="dask"`, and `tcp://` joins a Dask cluster). Against it, whole
`robotskit batch` commands on the 21,848-capture WARC set on 2 cores took 0.955x the wall time
(`farm-bench -n 8`, local and dask in turn; 0.973x in a run of 4 pairs) for the same CPU: the
pool does not wait for `import distributed` and the cluster's start while one core idles.

What a pool does not do that a Dask cluster did: a worker that dies (killed, out of memory) is not
replaced with its unit retried elsewhere. The run stops with `WorkerLost`, the parts written so
far are kept, and running the same command again resumes from them.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import process as _process_pools
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from robotskit.batch._values import WorkerLost


def _deaf_to_ctrl_c() -> None:
    """In each worker: Ctrl-C reaches the whole process group, and only the command answers it
    (it ends the workers itself); a worker would print a traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalPool:
    """Worker processes for one run, started on entry and ended on exit: waited for when the run
    ends well, killed at once when it ends by an exception (Ctrl-C included: a worker's unit in
    flight is redone by the rerun, nothing it holds needs its end)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._executor: ProcessPoolExecutor | None = None

    def __enter__(self) -> LocalPool:
        # Forked workers start from this process's imports (pyarrow, warcio, robotskit): a
        # spawned one imports them again (about 0.6 s of CPU each). Elsewhere (macOS, Windows)
        # fork is unsafe or missing, and the platform's default start method stays.
        context = multiprocessing.get_context("fork" if sys.platform == "linux" else None)
        pressed: list[int] = []
        on_main = threading.current_thread() is threading.main_thread()
        # While the workers start, a Ctrl-C is noted rather than raised: raised in the middle of a
        # fork it would leave a half-made pool. A forked worker inherits this handler until its
        # initializer makes it deaf (spawned workers start with Python's own).
        previous = signal.signal(signal.SIGINT, lambda signum, _: pressed.append(signum)) if on_main else None
        try:
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_deaf_to_ctrl_c
            )
            # Forked workers start at the first task, all of them: now, and no later (before the
            # run starts a thread of its own, such as the progress bar's).
            self._executor.submit(os.getpid).result()
        except (OSError, BrokenProcessPool) as exc:
            # No worker processes here: no /dev/shm for the pool's locks (some containers and
            # serverless sandboxes), a process limit, no memory for a fork.
            self._stop()
            raise OSError(
                f"cannot start worker processes here ({exc}); use the sync scheduler (--scheduler sync)"
            ) from exc
        finally:
            if on_main:
                signal.signal(signal.SIGINT, previous)
        if pressed:
            self._stop()
            raise KeyboardInterrupt
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is None:
            if self._executor is not None:
                self._executor.shutdown(wait=True)
        else:
            self._stop()

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        if self._executor is None:
            raise RuntimeError("the pool is not started (use it as a context manager)")
        try:
            return self._executor.submit(fn, *args)
        except BrokenProcessPool as exc:
            raise WorkerLost(_LOST) from exc

    @staticmethod
    def result(future: Future[Any]) -> Any:
        try:
            return future.result()
        except BrokenProcessPool as exc:
            raise WorkerLost(_LOST) from exc

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and diagnostics)."""
        processes = getattr(self._executor, "_processes", None) or {}
        return [int(pid) for pid in processes]

    def _stop(self) -> None:
        """End the workers now, without waiting for their units (reached through the executor's
        process table, which is not public API: anything missing leaves the plain shutdown)."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        for process in list((getattr(executor, "_processes", None) or {}).values()):
            with contextlib.suppress(Exception):
                process.kill()
        with contextlib.suppress(Exception):
            executor.shutdown(wait=False, cancel_futures=True)
        # Wait (bounded) for the executor's manager thread, which closes the pool's wake-up pipe
        # when it sees the workers gone: at interpreter exit, `concurrent.futures` wakes every
        # pool's manager through that pipe, and a pipe being closed at that moment made CPython
        # 3.11 print an ignored OSError with its traceback after the one-line Ctrl-C message.
        manager = getattr(executor, "_executor_manager_thread", None)
        if manager is not None:
            with contextlib.suppress(Exception):
                manager.join(timeout=_MANAGER_JOIN_S)
                if not manager.is_alive():
                    # Its wake-up pipe is closed: the exit hook must not write to it (the join
                    # alone still lost that race in a CI run). A live manager keeps its entry,
                    # so that the hook can still wake it and the interpreter can exit.
                    _process_pools._threads_wakeups.pop(manager, None)


_MANAGER_JOIN_S = 5.0  # seconds: a killed pool's manager thread ends in milliseconds

_LOST = (
    "a worker process ended in the middle of the run (killed, or out of memory); "
    "the units done are kept: run the same command again to resume"
)
