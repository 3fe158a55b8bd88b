"""Run a batch: units out to worker processes (or in process), part files back, one Parquet file.

- Scale: `scheduler="local"` runs a pool of worker processes on this machine, one per core
  (robotskit.batch.pool); `"dask"` starts a Dask LocalCluster of one single-threaded worker
  process per core instead; `"tcp://host:8786"` joins an existing Dask cluster; a
  `distributed.Client` may be passed as is; `"sync"` runs in this process (no workers; the
  reference the others must equal).
- Flat memory: at most `window` units are in flight (2 per worker thread by default); each
  finished unit's table is written to its part file and dropped.
- Resume: every finished unit is recorded in `<out>.parts/done.jsonl` with its part file. A
  unit's id hashes its input (path, size, mtime, items) and the run's configuration, so a rerun
  skips what is done and redoes what changed. The results file is re-merged from all parts.
- Driver nearly idle: a worker that sees the parts folder (a probe file there holds the run's
  token: same machine or a shared file system) writes its unit's part file itself and returns
  only the row count; one that does not (a remote cluster needs only to read the inputs)
  returns the Arrow table for the driver to write. The driver records and merges.
Workers that can open `<out>.parts/facts-RUN.sqlite` share what they judged per body through
it (robotskit.batch.shared); it is deleted at the end, with the probe (and, under `local`, the
scans of the files read in byte ranges).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import logging
import os
import secrets
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]

from robotskit.batch import output, shared
from robotskit.batch._values import BatchConfig, Capture, Interrupted
from robotskit.batch.analysis import Row, analyzer_for, forget
from robotskit.batch.inputs import (
    DEFAULT_CHUNK,
    FetchOptions,
    InputError,
    InputUnit,
    discover,
    read_unit,
    shown,
    unit_fingerprint,
)
from robotskit.batch.pool import LocalPool
from robotskit.batch.shared import shared_facts
from robotskit.batch.warc_ranges import (
    RANGE_BYTES,
    MemberIndex,
    StoredScans,
    forget_indexes,
    save_scan,
    scan,
)

DONE = "done.jsonl"
# A unit keeps at most this many captures (their bodies) waiting for another worker's verdict.
MAX_WAITING = 512
# A unit reads this many captures (or bodies of this many bytes) at a time and asks the shared
# store about them in one go (Analyzer.prepare): memory stays bounded by the batch's bodies.
BATCH_CAPTURES = 64
BATCH_BYTES = 4 * 1024 * 1024
# Per run, named by the run's token, both deleted at its end: a worker still connected to an
# earlier run's store (a long-lived cluster) must never read that run's facts, which may have
# been judged for other agents or paths.
STORE = "facts-{token}.sqlite"  # shared by the worker processes of one run
PROBE = "probe-{token}"  # holds the token: a worker that reads it writes its own part files
SCANS = "scan-{token}-"  # under `local`: SCANS + "<file hash>-<range>", a range's header scan
# Dask settings for a LocalCluster this run starts and owns (never for a cluster it joins).
# Each one serves only a dashboard or a diagnosis nobody reads here, and each costs CPU on the
# two cores the batch itself needs: measured with benchmarks/batch_bench.py --local-only on the
# 21,848-capture set, worker CPU fell from 7.18 to 6.91 s each and the driver's from 0.84 to
# 0.69 s. Work stealing only moves units of even size between two equal workers.
QUIET_CLUSTER: dict[str, object] = {
    "distributed.worker.profile.enabled": False,  # a stack sample of every thread each 10 ms
    "distributed.admin.tick.interval": "1s",  # event-loop blockage probe, 20 ms by default
    "distributed.admin.system-monitor.interval": "2s",  # psutil host metrics, 500 ms
    "distributed.worker.memory.monitor-interval": "1s",  # the nanny's RSS poll, 100 ms
    "distributed.scheduler.work-stealing": False,
}
# How the cluster's worker processes start. Dask spawns them by default: each new interpreter
# then imports distributed, pyarrow, warcio and robotskit again (about 0.6 s of CPU apiece)
# before its first unit. On Linux a forked worker starts from this process's imports: measured
# with whole `robotskit batch --scheduler local` commands on the 21,848-capture set, 16.7 -> 15.1 s
# of CPU and 9.0 -> 8.0 s of wall time. The fork happens on Dask's event-loop thread while this
# one waits for the cluster, before the run has opened a file or started a thread of its own.
# Elsewhere (macOS, Windows) fork is unsafe or missing, and Dask's default stays.
if sys.platform == "linux":
    QUIET_CLUSTER["distributed.worker.multiprocessing-method"] = "fork"


@dataclass(frozen=True, slots=True)
class BatchSummary:
    """What a run did: rows written, units run and skipped, outcomes, errors, time."""

    out: str
    rows: int
    units: int
    skipped: int
    seconds: float
    outcomes: dict[str, int] = field(default_factory=dict)
    errors: int = 0
    skipped_files: int = 0  # directory files that are not robots.txt files (not read)
    result_bytes: int = 0  # Arrow bytes of unit tables workers sent back (0: they wrote their parts)


def process_unit(
    unit: InputUnit,
    config: BatchConfig,
    fetch: FetchOptions | None = None,
    store: str | None = None,
    index: Sequence[MemberIndex] | None = None,
) -> pa.Table:
    """Read and analyze one unit (runs on a worker). Rows are sorted by (source, record).

    `store`: the run's shared per-body store (robotskit.batch.shared), when workers are processes.
    `index`: for a byte range of a WARC file, the scans of all its ranges (robotskit.batch.warc_ranges).
    """
    names = [a.name for a in config.agents]
    meta = output.metadata(config.paths, names)
    analyzer = analyzer_for(config)
    analyzer.shared = shared_facts(store)
    rows: list[Row] = []
    waiting: list[Capture] = []  # bodies another worker was judging when this unit met them
    captures = read_unit(unit, config.max_bytes, fetch, index)
    failed: Capture | None = None
    while failed is None:
        batch, failed = _next_batch(captures, shown(unit.path))
        if not batch:
            break
        analyzer.prepare(batch)  # one store lookup for the batch (with a store)
        for capture in batch:
            if len(waiting) >= MAX_WAITING:
                rows.append(analyzer.analyze(capture))
                continue
            row = analyzer.analyze_or_defer(capture)
            if row is None:
                waiting.append(capture)
            else:
                rows.append(row)
    if failed is not None:
        rows.append(analyzer.analyze(failed))
    if analyzer.shared is not None:
        analyzer.shared.flush()  # what this unit judged, for the other workers' next units
    # By now the other worker has mostly written what it judged: these are store hits, and a body
    # it has not finished is judged here (the rows are the same either way).
    rows.extend(analyzer.analyze(capture) for capture in waiting)
    analyzer.prepare(())  # the analyzer outlives the unit: it lets go of the last batch's captures
    rows.sort(key=lambda row: (row.source, row.record))
    return output.to_table(rows, names, meta)


def _next_batch(captures: Iterator[Capture], source: str) -> tuple[list[Capture], Capture | None]:
    """Up to BATCH_CAPTURES captures (or BATCH_BYTES of bodies) from the reader, and the row
    for its failure if it failed under them (the input vanished, an I/O error): that ends the
    unit, after the captures read before it."""
    batch: list[Capture] = []
    size = 0
    while len(batch) < BATCH_CAPTURES and size < BATCH_BYTES:
        try:
            capture = next(captures)
        except StopIteration:
            break
        except Exception as exc:  # the input failed under the reader: one row
            return batch, Capture(source=source, record=-1, error=f"read: {type(exc).__name__}: {exc}")
        batch.append(capture)
        size += len(capture.body or b"")
    return batch, None


def unit_part(
    unit: InputUnit,
    config: BatchConfig,
    fetch: FetchOptions | None,
    store: str | None,
    part: str,
    probe: tuple[str, str],
    index: Sequence[MemberIndex] | None = None,
) -> pa.Table | int:
    """`process_unit` on a worker: it writes the unit's part file itself and returns the row
    count when it sees the run's parts folder (the `probe` file there holds this run's token),
    else it returns the table for the driver to write (a remote worker with its own disk)."""
    freeze_heap()
    table = process_unit(unit, config, fetch, store, index)
    if _sees(probe):
        output.write_part(table, Path(part))
        return int(table.num_rows)
    return table


_FROZEN: set[int] = set()  # the processes that froze their heap (a forked worker inherits this)


def freeze_heap() -> None:
    """Once per process (a Dask worker, or the `robotskit batch` command): move the objects
    alive now out of the cycle collector's sight. Not for a library caller's process.

    A parsed file is freed by the cycle collector (its views and compiled checks refer to each
    other), so a batch makes the collector run often, and each full collection scanned a Dask
    worker's whole heap (distributed, tornado, pyarrow: far more than the batch's own data).
    Frozen, that heap is never scanned again: measured, worker CPU fell by about 7%, to the sync
    run's (the sync command's by 3-5%). The cost is that an object alive now and later part of
    a garbage cycle is never freed: bounded by the heap at this moment, and such a process
    lives for one run or one cluster. Once per process id: a worker forked from the command
    inherits the command's record of having frozen, not the heap Dask built after the fork
    (while it still read that record, whole `--scheduler local` commands spent 14.7 s of CPU on
    the 21,848-capture set, and 14.3 s once each fork froze its own).
    """
    if os.getpid() not in _FROZEN:
        gc.freeze()
        _FROZEN.add(os.getpid())


def _sees(probe: tuple[str, str]) -> bool:
    path, token = probe
    try:
        return Path(path).read_text(encoding="ascii") == token
    except (OSError, ValueError):
        return False


def unit_id(unit: InputUnit, config: BatchConfig, fetch: FetchOptions | None) -> str:
    """A stable id for a unit's results: its input and everything that shapes its rows."""
    blob = json.dumps([unit_fingerprint(unit), repr(config), repr(fetch), output.SCHEMA_VERSION])
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _done(parts: Path) -> dict[str, dict[str, object]]:
    manifest = parts / DONE
    done: dict[str, dict[str, object]] = {}
    if manifest.is_file():
        for line in manifest.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut by a crash: that unit simply runs again
            if not isinstance(entry, dict):
                continue
            part = str(entry.get("part", ""))
            # (a part another version wrote in another format is not this run's: redone)
            if part == output.part_name(str(entry.get("id"))) and (parts / part).is_file():
                done[str(entry["id"])] = entry
    return done


def run_batch(
    inputs: Sequence[str | Path],
    out: str | Path,
    config: BatchConfig,
    *,
    scheduler: Any = "local",
    fetch: FetchOptions | None = None,
    chunk: int = DEFAULT_CHUNK,
    workers: int | None = None,
    window: int | None = None,
    progress: bool | None = None,
    range_bytes: int | None = RANGE_BYTES,
) -> BatchSummary:
    """Analyze every capture of `inputs` into the Parquet file `out`; see the module docstring.

    `range_bytes`: a `.warc.gz` file bigger than this is cut into byte ranges of about this size,
    each a unit (None: never). Under every scheduler, `sync` included: a unit's rows are held until
    it ends (about 4 KiB of Arrow data per capture for the 94 default agents, and again while
    written), so a whole 137 MB file read as one unit peaked at 888 MB, and ranges keep memory
    flat whatever the file's size (and a rerun after Ctrl-C resumes per range).
    """
    started = time.monotonic()
    out = Path(out)
    if out.exists() and not out.is_file():  # a FIFO or a device: the final rename would replace it
        raise InputError(f"the output {shown(str(out))} exists and is not a regular file")
    plan = discover(inputs, chunk, range_bytes)  # raises InputError before anything starts
    parts = out.with_name(out.name + ".parts")
    parts.mkdir(parents=True, exist_ok=True)
    units = plan.units
    ids = [unit_id(u, config, fetch) for u in units]
    done = _done(parts)
    todo = [(i, u) for i, u in zip(ids, units, strict=True) if i not in done]
    show = sys.stderr.isatty() if progress is None else progress
    finished = 0
    meta = output.metadata(config.paths, [a.name for a in config.agents])
    merger = output.Merger([parts / output.part_name(uid) for uid in ids], out, meta)
    sent = 0  # bytes of results the workers sent back (tables they could not write themselves)
    token = secrets.token_hex(16)
    try:
        for uid in ids:
            if uid in done:
                merger.ready(parts / output.part_name(uid))
        # The cluster starts before the progress bar: its thread must not be alive when Dask
        # forks the worker processes (see QUIET_CLUSTER's start method).
        with (
            _engine(scheduler if todo else None, workers) as client,
            (parts / DONE).open("a", encoding="utf-8") as manifest,
            _Progress(len(todo), show) as bar,
        ):
            for uid, unit, result in _execute(todo, units, config, fetch, client, window, parts, token):
                name = output.part_name(uid)
                if isinstance(result, int):
                    written = result  # the worker wrote the part
                else:
                    output.write_part(result, parts / name)
                    written = result.num_rows
                    sent += result.nbytes if client is not None else 0
                entry = {"id": uid, "part": name, "input": unit.label, "rows": written}
                manifest.write(json.dumps(entry) + "\n")
                manifest.flush()
                finished += 1
                merger.ready(parts / name)  # the merge keeps pace with the run
                bar.advance()
        rows = merger.close()
    except KeyboardInterrupt:
        merger.abort()
        raise Interrupted(str(parts), len(units) - len(todo) + finished, len(units)) from None
    except BaseException:
        merger.abort()
        raise
    finally:
        shared.remove(str(parts / STORE.format(token=token)))
        (parts / PROBE.format(token=token)).unlink(missing_ok=True)
        for stored in parts.glob(SCANS.format(token=token) + "*"):
            stored.unlink(missing_ok=True)
    return BatchSummary(
        str(out),
        rows,
        len(todo),
        len(units) - len(todo),
        time.monotonic() - started,
        dict(sorted(merger.outcomes.items())),
        merger.errors,
        plan.skipped_files,
        sent,
    )


@contextlib.contextmanager
def _engine(scheduler: Any, workers: int | None) -> Iterator[Any]:
    """The local pool or Dask client a run submits to, or None for the in-process run (`"sync"`
    or nothing to do). A pool, client or cluster made here is closed here; a `LocalPool` or a
    `distributed.Client` passed in is the caller's and stays open."""
    if scheduler in (None, "sync"):
        yield None
        return
    if isinstance(scheduler, LocalPool):  # the caller's, started and ended by the caller
        yield scheduler
        return
    if scheduler == "local":
        with LocalPool(workers) as pool:
            yield pool
        return
    import distributed  # noqa: PLC0415 - the batch extra

    dask: Any = distributed  # distributed ships no type hints

    owned: list[Any] = []  # closed last made first: the client before its cluster
    try:
        if isinstance(scheduler, dask.Client):
            client = scheduler
        elif scheduler == "dask":
            owned.append(local_cluster(workers))
            client = dask.Client(owned[0])
            owned.append(client)
        else:
            client = dask.Client(str(scheduler))
            owned.append(client)
        yield client
    except KeyboardInterrupt:
        if scheduler == "dask" and owned:
            _stop_workers(owned[0])
        raise
    finally:
        with _quiet():
            for thing in reversed(owned):
                with contextlib.suppress(Exception):
                    thing.close()


def _stop_workers(cluster: Any) -> None:
    """After Ctrl-C, end the worker processes of a cluster this run owns at once. Closed gracefully,
    each worker first waits for its running unit (seconds: a unit is thousands of captures) and
    the close then gives up on a timeout; nothing a worker holds needs its end: a part file is
    renamed into place whole or not at all, the run's store is a cache, and only the driver
    records a unit as done (a rerun redoes the units in flight). Reached through the nannies'
    processes (not public API: anything missing leaves the graceful close alone)."""
    for nanny in list(getattr(cluster, "workers", {}).values()):
        pid = getattr(getattr(getattr(nanny, "process", None), "process", None), "pid", None)
        if isinstance(pid, int) and pid > 0 and pid != os.getpid():
            with contextlib.suppress(OSError):
                os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))  # (Windows: TerminateProcess)


def _execute(
    todo: list[tuple[str, InputUnit]],
    units: list[InputUnit],
    config: BatchConfig,
    fetch: FetchOptions | None,
    client: Any,
    window: int | None,
    parts: Path,
    token: str,
) -> Iterator[tuple[str, InputUnit, pa.Table | int]]:
    """Yield (id, unit, table or rows written) as units finish, never more than `window` in flight.

    `units`: all the run's units, done ones too (a range needs the index of its whole file)."""
    if not todo:
        return
    if client is None:
        forget()  # a run starts with an empty per-body cache and leaves none behind
        try:
            for uid, unit in todo:
                yield uid, unit, process_unit(unit, config, fetch)
        finally:
            forget()
            forget_indexes()  # nor the URL index of the last file it read in ranges
        return
    probe = parts / PROBE.format(token=token)
    probe.write_text(token, encoding="ascii")
    store = str(parts / STORE.format(token=token))
    how = _How(config, fetch, store, str(parts), (str(probe), token), token[:12])
    if isinstance(client, LocalPool):
        yield from _execute_on_pool(todo, units, client, window, how, token)
        return
    import distributed  # noqa: PLC0415 - the batch extra

    dask: Any = distributed  # distributed ships no type hints

    # Workers that see the probe (same machine or a shared file system) write their own
    # parts: the driver then neither receives the tables nor encodes them.
    slots = window or 2 * max(1, sum(client.nthreads().values()))
    pending = iter(largest_first(todo))
    running: dict[Any, tuple[str, InputUnit]] = {}
    futures = dask.as_completed()
    indexes = _Indexes(client, units, todo, how.run)
    for uid, unit in _take(pending, slots):
        _submit(client, futures, running, uid, unit, how, indexes.of(unit))
    for future in futures:
        uid, unit = running.pop(future)
        result = future.result()
        future.release()
        indexes.done(unit)
        for nxt_uid, nxt_unit in _take(pending, 1):
            _submit(client, futures, running, nxt_uid, nxt_unit, how, indexes.of(nxt_unit))
        yield uid, unit, result


def _execute_on_pool(
    todo: list[tuple[str, InputUnit]],
    units: list[InputUnit],
    pool: LocalPool,
    window: int | None,
    how: _How,
    token: str,
) -> Iterator[tuple[str, InputUnit, pa.Table | int]]:
    """`_execute` on the local pool: units out largest first, at most `window` in flight.

    A file read in byte ranges is scanned range by range, each scan a task that stores its index
    in the parts folder, submitted just before the file's first range unit (the pool takes tasks
    in order, so the scans start first); a range unit reads them from there (`StoredScans`)."""
    spans: dict[str, list[tuple[int, int | None]]] = {}
    for unit in units:
        if unit.span is not None:
            spans.setdefault(unit.path, []).append(unit.span)
    scans: dict[str, StoredScans] = {}

    def index_of(unit: InputUnit) -> StoredScans | None:
        if unit.span is None:
            return None
        stored = scans.get(unit.path)
        if stored is None:
            name = hashlib.sha256(unit.path.encode()).hexdigest()[:16]
            files = [
                str(Path(how.parts) / f"{SCANS.format(token=token)}{name}-{i}")
                for i in range(len(spans[unit.path]))
            ]
            for (start, end), dest in zip(spans[unit.path], files, strict=True):
                pool.submit(save_scan, unit.path, start, end, dest)  # (a failed scan is redone by its reader)
            stored = scans[unit.path] = StoredScans(unit.path, spans[unit.path], files)
        return stored

    running: dict[Future[Any], tuple[str, InputUnit]] = {}

    def submit(uid: str, unit: InputUnit) -> None:
        part = str(Path(how.parts) / output.part_name(uid))
        task = pool.submit(unit_part, unit, how.config, how.fetch, how.store, part, how.probe, index_of(unit))
        running[task] = (uid, unit)

    pending = iter(largest_first(todo))
    for uid, unit in _take(pending, window or 2 * pool.workers):
        submit(uid, unit)
    while running:
        finished, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in finished:
            uid, unit = running.pop(future)
            result = pool.result(future)
            for nxt_uid, nxt_unit in _take(pending, 1):
                submit(nxt_uid, nxt_unit)
            yield uid, unit, result


class _Indexes:
    """The index of each WARC file run in byte ranges: every range of the file is scanned as a
    task of its own (in parallel, spread over the workers), and each range unit of the file
    takes all the scans as its input (merged on its worker once per file). A task goes to a
    worker that holds its inputs: one merged index would draw all of a file's ranges to the
    worker that made it, while scans spread over the workers leave Dask free to balance.
    Released when the file's last range is done."""

    def __init__(
        self, client: Any, units: list[InputUnit], todo: list[tuple[str, InputUnit]], run: str
    ) -> None:
        self._client, self._run = client, run
        self._spans: dict[str, list[tuple[int, int | None]]] = {}
        for unit in units:
            if unit.span is not None:
                self._spans.setdefault(unit.path, []).append(unit.span)
        self._left = Counter(unit.path for _, unit in todo if unit.span is not None)
        self._scans: dict[str, list[Any]] = {}

    def of(self, unit: InputUnit) -> list[Any] | None:
        if unit.span is None:
            return None
        scans = self._scans.get(unit.path)
        if scans is None:
            name = hashlib.sha256(unit.path.encode()).hexdigest()[:16]
            scans = [
                self._client.submit(scan, unit.path, start, end, key=f"robotskit-scan-{name}-{i}-{self._run}")
                for i, (start, end) in enumerate(self._spans[unit.path])
            ]
            self._scans[unit.path] = scans
        return scans

    def done(self, unit: InputUnit) -> None:
        if unit.span is None:
            return
        self._left[unit.path] -= 1
        if self._left[unit.path] <= 0:
            for future in self._scans.pop(unit.path, []):
                future.release()


def local_cluster(workers: int | None = None) -> Any:
    """The Dask LocalCluster `scheduler="dask"` starts: one single-threaded worker process per
    core (or `workers`), no dashboard, QUIET_CLUSTER settings, workers deaf to Ctrl-C."""
    import dask  # noqa: PLC0415 - the batch extra
    import distributed  # noqa: PLC0415

    engine: Any = distributed  # distributed ships no type hints
    # The cluster is ours and has no dashboard: its workers need not sample their own stacks or
    # poll the machine as often (the Nanny hands this config to each worker process).
    with _workers_ignore_ctrl_c() as pressed, dask.config.set(QUIET_CLUSTER):
        cluster = engine.LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # No dashboard, but the scheduler still serves its other HTTP routes: on Dask's
            # default port 8787 it printed "UserWarning: Port 8787 is already in use" whenever
            # another run or a user's cluster held it. A free port, on loopback only.
            scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
            silence_logs=logging.CRITICAL,  # the summary says what happened; no worker chatter
        )
    if pressed:  # Ctrl-C while the cluster started: stop now, as at any other moment
        with _quiet(), contextlib.suppress(Exception):
            cluster.close()
        raise KeyboardInterrupt
    return cluster


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[list[int]]:
    """Start worker processes deaf to SIGINT: Ctrl-C reaches the whole process group, and only
    this process should answer it (by closing the cluster), not every worker with a traceback.

    Forked workers (Linux) inherit a handler that only notes the signal. SIG_IGN would do for
    them, but in this process it threw away a Ctrl-C pressed while the cluster started (the run
    went on to the end and exited 0): the caller gets the list of what was noted, to act on it.
    Spawned workers (elsewhere) start a new interpreter, which resets a Python handler but keeps
    SIG_IGN: there the old way stays, and a press during the start is lost."""
    pressed: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield pressed
        return
    forked = QUIET_CLUSTER.get("distributed.worker.multiprocessing-method") == "fork"
    noted = signal.SIG_IGN if not forked else (lambda signum, frame: pressed.append(signum))
    previous = signal.signal(signal.SIGINT, noted)
    try:
        yield pressed
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Shutting a cluster down after Ctrl-C logs pages of cancelled tasks: keep them out."""
    logger = logging.getLogger("distributed")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def largest_first(todo: list[tuple[str, InputUnit]]) -> list[tuple[str, InputUnit]]:
    """The units, biggest first (a WARC file by its size, a chunk by its items), so that the run
    does not end on one worker finishing a big unit while the others wait (longest processing
    time first). The byte ranges of one file stay together, in file order, weighed by the whole
    file: its index is then needed once, and each worker reads the file front to back. Only
    the order of submission changes: the results file keeps the input order."""

    def weight(entry: tuple[str, InputUnit]) -> int:
        unit = entry[1]
        if unit.kind != "warc":
            return len(unit.items)
        try:
            return Path(unit.path).stat().st_size
        except OSError:
            return 0  # it will become an error row, fast

    return sorted(todo, key=weight, reverse=True)  # stable: equal units keep their order


def _take(items: Iterator[tuple[str, InputUnit]], count: int) -> list[tuple[str, InputUnit]]:
    taken: list[tuple[str, InputUnit]] = []
    for item in items:
        taken.append(item)
        if len(taken) >= count:
            break
    return taken


@dataclass(frozen=True, slots=True)
class _How:
    """What every task of a run shares besides its unit."""

    config: BatchConfig
    fetch: FetchOptions | None
    store: str
    parts: str
    probe: tuple[str, str]
    run: str  # a short id of the run, for task keys


def _submit(
    client: Any,
    futures: Any,
    running: dict[Any, tuple[str, InputUnit]],
    uid: str,
    unit: InputUnit,
    how: _How,
    index: Any,
) -> None:
    # key=uid and run: Dask never confuses two units, resubmitting a unit reuses its result, and
    # a result an earlier run left on a long-lived cluster (a row count: its part may be gone)
    # is never taken for this run's.
    part = str(Path(how.parts) / output.part_name(uid))
    future = client.submit(
        unit_part,
        unit,
        how.config,
        how.fetch,
        how.store,
        part,
        how.probe,
        index,
        key=f"robotskit-batch-{uid}-{how.run}",
        pure=False,
    )
    running[future] = (uid, unit)
    futures.add(future)


class _Progress:
    """A progress bar on a terminal (rich), nothing otherwise."""

    def __init__(self, total: int, show: bool) -> None:
        self._total, self._show = total, show
        self._bar: Any = None
        self._task: Any = None
        self.advance: Callable[[], None] = lambda: None

    def __enter__(self) -> _Progress:
        if self._show and self._total:
            from rich.progress import Progress  # noqa: PLC0415 - rich is a core dependency

            self._bar = Progress(transient=True)
            self._bar.start()
            self._task = self._bar.add_task("robots.txt units", total=self._total)
            self.advance = lambda: self._bar.advance(self._task)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
