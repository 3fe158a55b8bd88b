"""Batch throughput against the bare loops, measured in the same run on the same captures.

    .venv/bin/python benchmarks/batch_bench.py [--set DIR] [--captures 20000] [--unique]
                                               [--local] [--dask] [--workers 2] [--rounds 3]
    .venv/bin/python benchmarks/batch_bench.py --set DIR --loop protego|robotskit   (one bare loop)
    .venv/bin/python benchmarks/batch_bench.py --set DIR --cold [--rounds 3]   (run_batch, cluster included)

Builds (or reuses) a Common-Crawl-like WARC set with benchmarks/warc_set.py, then prints captures
per second for:
- `robotskit batch --scheduler sync`: lint on, the 94 default agents, Parquet out (run_batch in
  this process: read WARCs, replay the fetch policy, parse, lint, judge, write, merge);
- the bare Protego loop: `Protego.parse` + `can_fetch("/")` for the 94 agents' tokens, on the body
  of every response record (decoded beforehand, not timed);
- the bare robotskit loop: `robotskit.parse` + `allowed("/")` for the 94 agents, same bodies;
- with `--local`: the same batch on the local pool of worker processes (`--workers`), the pool
  started before the clock, and each worker's peak RSS; with `--dask`, on a Dask LocalCluster
  (what `--scheduler dask` starts), its start excluded likewise.
Rounds alternate (batch, protego, robotskit, ...) so a burst of load on the shared machine hits
all alike; the median round is printed. `--loop` runs one bare loop alone (to time as a whole process).
`--cold` times only `run_batch` sync and local in turn, each local run starting and closing its own
pool inside the call, as a library caller meets it.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import robotskit
from robotskit.batch import BatchConfig, default_agents
from robotskit.batch.analysis import analyzer_for, forget
from robotskit.batch.inputs import discover
from robotskit.batch.pool import LocalPool
from robotskit.batch.runner import freeze_heap, local_cluster, process_unit, run_batch
from robotskit.batch.warc import records

HERE = Path(__file__).resolve().parent


def _warc_set() -> object:
    spec = importlib.util.spec_from_file_location("warc_set", HERE / "warc_set.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def bodies(warcs: list[Path]) -> list[bytes]:
    """The decoded body of every response record (b"" where the record cannot be read).

    Damaged gzip members are skipped the way the batch reader skips them (`records` resyncs).
    """
    found: list[bytes] = []
    for path in warcs:
        for _, record, _ in records(str(path)):
            if record is None or record.rec_type != "response":
                continue
            try:
                found.append(record.content_stream().read() if record.http_headers else b"")
            except Exception:  # a damaged body: an empty one for the loops
                found.append(b"")
    return found


# Each measure returns (wall seconds, CPU seconds of this process): on a shared machine the CPU
# time is the steadier of the two, and the table prints rates from both.
Times = tuple[float, float]


def _clock() -> Times:
    return time.perf_counter(), time.process_time()


def _since(start: Times) -> Times:
    now = _clock()
    return now[0] - start[0], now[1] - start[1]


def protego_loop(data: list[bytes], tokens: list[str]) -> Times:
    from protego import Protego  # noqa: PLC0415

    start = _clock()
    for body in data:
        parsed = Protego.parse(body.decode("utf-8", "replace"))
        for token in tokens:
            parsed.can_fetch("/", token)
    return _since(start)


def robotskit_loop(data: list[bytes], agents: list[robotskit.Agent]) -> Times:
    start = _clock()
    for body in data:
        parsed = robotskit.parse(body)
        for agent in agents:
            parsed.allowed("/", agent)
    return _since(start)


def batch_sync(warcs: list[Path], out: Path, config: BatchConfig) -> tuple[Times, int]:
    shutil.rmtree(out.with_name(out.name + ".parts"), ignore_errors=True)
    start = _clock()
    summary = run_batch(warcs, out, config, scheduler="sync", progress=False)
    return _since(start), summary.rows


def _peak_kb() -> int:
    """This process's peak RSS in KiB: VmHWM, which exec resets (a spawned worker starts as a
    fork of this process, and `ru_maxrss` keeps the fork's figure across the exec), else ru_maxrss."""
    try:
        with Path("/proc/self/status").open(encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _rusage_cpu() -> float:
    """User + system CPU seconds of the calling process (run in the driver and in each worker)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class LocalRun:
    """One run on worker processes: rate, memory, and where the CPU went (driver vs workers)."""

    wall: float
    rows: int
    peaks: list[int]  # MB, per worker
    driver_cpu: float  # this process: run_batch (and under Dask, the client and the scheduler)
    worker_cpu: list[float]  # per worker process
    tasks: int
    result_bytes: int  # Arrow bytes of the unit tables the workers sent back (0: they wrote parts)


def start_cluster(workers: int) -> tuple[Any, Any]:
    """The cluster `--scheduler dask` starts, and a client. Started before this process loads
    the set's bodies: on Linux its workers are forks, and the `robotskit batch` command they
    are forked from holds no bodies (a fork of this process would copy pages of them)."""
    import distributed  # noqa: PLC0415

    cluster = local_cluster(workers)
    return cluster, distributed.Client(cluster)


def start_pool(workers: int) -> LocalPool:
    """The pool `--scheduler local` starts, started before the bodies load (as the cluster)."""
    return LocalPool(workers).__enter__()


def _proc_cpu(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far (Linux: /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(") ", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _proc_peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def batch_pool(warcs: list[Path], out: Path, config: BatchConfig, pool: LocalPool) -> LocalRun:
    parts = out.with_name(out.name + ".parts")
    shutil.rmtree(parts, ignore_errors=True)
    try:  # (started by start_pool)
        pids = pool.pids()
        before, driver = {pid: _proc_cpu(pid) for pid in pids}, _rusage_cpu()
        start = time.perf_counter()
        summary = run_batch(warcs, out, config, scheduler=pool, progress=False)
        elapsed = time.perf_counter() - start
        driver = _rusage_cpu() - driver
        after = {pid: _proc_cpu(pid) for pid in pids}
        peaks = [_proc_peak_kb(pid) for pid in pids]
    finally:
        pool.__exit__(None, None, None)
    return LocalRun(
        elapsed,
        summary.rows,
        sorted(kb // 1024 for kb in peaks),
        driver,
        sorted(after[pid] - before[pid] for pid in pids),
        summary.units,
        summary.result_bytes,
    )


def batch_local(
    warcs: list[Path], out: Path, config: BatchConfig, workers: int, started: tuple[Any, Any] | None = None
) -> LocalRun:
    parts = out.with_name(out.name + ".parts")
    shutil.rmtree(parts, ignore_errors=True)
    cluster, client = started or start_cluster(workers)
    with cluster, client:
        client.run(lambda: __import__("robotskit.batch.runner"))  # warm imports, not timed
        before, driver = client.run(_rusage_cpu), _rusage_cpu()
        start = time.perf_counter()
        summary = run_batch(warcs, out, config, scheduler=client, progress=False)
        elapsed = time.perf_counter() - start
        driver = _rusage_cpu() - driver
        after = client.run(_rusage_cpu)
        peaks = client.run(_peak_kb)
    return LocalRun(
        elapsed,
        summary.rows,
        sorted(int(kb) // 1024 for kb in peaks.values()),
        driver,
        sorted(after[w] - before[w] for w in after),
        summary.units,
        summary.result_bytes,
    )


def _print_local(
    run: LocalRun, workers: int, sync_wall: float | None, sync_cpu: float | None, name: str = "local"
) -> None:
    rate = run.rows / run.wall
    versus = f" = {rate / (run.rows / sync_wall):.2f}x sync wall" if sync_wall else ""
    print(
        f"{f'robotskit batch {name}, {workers} workers':<36} {rate:9.0f} captures/s wall{versus}; "
        f"worker peak RSS {run.peaks} MB"
    )
    total = run.driver_cpu + sum(run.worker_cpu)
    shown = ", ".join(f"{c:.2f}" for c in run.worker_cpu)
    print(
        f"  CPU s: driver {run.driver_cpu:.2f}, workers [{shown}], total {total:.2f}"
        + (f" = {total / sync_cpu:.2f}x the sync run's {sync_cpu:.2f}" if sync_cpu else "")
    )
    if sync_cpu:
        # What the wall-clock ratio would be on `workers` otherwise idle cores, from CPU alone:
        # the busiest process bounds it (the driver shares a core with a worker).
        busiest = max(*run.worker_cpu, total / workers)
        print(
            f"  {run.tasks} tasks, {run.result_bytes / 1e6:.1f} MB of results sent to the driver, "
            f"{run.driver_cpu / run.tasks * 1000:.0f} ms driver CPU per task; "
            f"CPU-bound speed-up on {workers} idle cores: {sync_cpu / busiest:.2f}x sync"
        )


def _cold(warcs: list[Path], tmp: Path, config: BatchConfig, rounds: int, workers: int) -> None:
    """`run_batch` as a library caller meets it: the local run starts its pool inside the call
    and ends it before returning."""
    freeze_heap()  # as the `robotskit batch` command does at start-up
    seconds: dict[str, list[float]] = {"sync": [], "local": []}
    rows = 0
    for _ in range(rounds):
        for scheduler in ("sync", "local"):
            out = tmp / f"cold-{scheduler}.parquet"
            shutil.rmtree(out.with_name(out.name + ".parts"), ignore_errors=True)
            gc.collect()
            gc.freeze()  # what earlier runs left (distributed's modules, a closed cluster): never scanned
            started = time.perf_counter()
            rows = run_batch(warcs, out, config, scheduler=scheduler, workers=workers, progress=False).rows
            seconds[scheduler].append(time.perf_counter() - started)
    sync, local = _median(seconds["sync"]), _median(seconds["local"])
    print(
        f"run_batch from call to return, {rows} captures, medians of {rounds} rounds in turn: "
        f"sync {sync:.2f} s, local {local:.2f} s with its pool's start and end "
        f"({workers} workers): {sync / local:.2f}x"
    )


def _median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, help="a warc_set.py directory (built if missing)")
    parser.add_argument("--captures", type=int, default=20_000)
    parser.add_argument("--unique", action="store_true", help="no two captures share a body")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--local", action="store_true", help="also run on the local pool")
    parser.add_argument("--dask", action="store_true", help="also run on a Dask LocalCluster")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--loop", choices=("protego", "robotskit"), help="run one bare loop alone and exit")
    parser.add_argument(
        "--local-only", action="store_true", help="only the local pool's run (memory at scale)"
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="only run_batch sync and local in turn, each local run starting and ending its own pool",
    )
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rk-batch-bench-"))
    try:
        root = args.set or tmp / "set"
        if not (root / "truth.jsonl").is_file():
            _warc_set().build(root, args.captures, unique=args.unique)  # type: ignore[attr-defined]
        warcs = sorted(root.glob("*.warc.gz"))
        config = BatchConfig(agents=default_agents())
        tokens = [a.token for a in config.agents if a.token is not None]
        agents = [robotskit.Agent(a.token, purposes=a.purposes, aliases=a.aliases) for a in config.agents]
        if args.cold:
            _cold(warcs, tmp, config, args.rounds, args.workers)
            return 0
        if args.local_only:
            run = batch_pool(warcs, tmp / "local.parquet", config, start_pool(args.workers))
            _print_local(run, args.workers, None, None)
            return 0
        pool = start_pool(args.workers) if args.local else None
        started = start_cluster(args.workers) if args.dask else None
        data = bodies(warcs)
        # As `robotskit batch` does at start-up: the bodies held here (100+ MB) are never scanned
        # by the cycle collector again, so that the in-process sync run is not slowed by a heap
        # the command does not have (nor the bare loops).
        freeze_heap()
        if args.loop:
            wall, _ = protego_loop(data, tokens) if args.loop == "protego" else robotskit_loop(data, agents)
            print(f"{args.loop} loop: {len(data) / wall:.0f} captures/s ({len(data)} captures)")
            return 0
        print(
            f"{len(warcs)} WARC files, {len(data)} captures, {len(config.agents)} agents "
            f"({len(tokens)} with a token, for Protego), lint on, Parquet out"
        )
        runs: dict[str, list[Times]] = {"batch": [], "protego": [], "robotskit": []}
        rows = 0
        steps: list[tuple[str, Callable[[], Times]]] = [
            ("protego", lambda: protego_loop(data, tokens)),
            ("robotskit", lambda: robotskit_loop(data, agents)),
        ]
        for _ in range(args.rounds):
            gc.collect()
            times, rows = batch_sync(warcs, tmp / "sync.parquet", config)
            runs["batch"].append((rows / times[0], rows / times[1]))
            for name, step in steps:
                gc.collect()
                wall, cpu = step()
                runs[name].append((len(data) / wall, len(data) / cpu))
        analyzer = analyzer_for(config)  # one more pass, in process, to count the cache and lint
        for unit in discover(warcs).units:
            process_unit(unit, config)
        print(
            f"per-body cache: {analyzer.misses} bodies parsed, {analyzer.hits} duplicates; "
            f"lint {1000 * analyzer.lint_seconds / max(1, rows):.3f} ms CPU per capture"
        )
        forget()
        batch = tuple(_median([r[i] for r in runs["batch"]]) for i in (0, 1))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(f"{'captures/s (median of ' + str(args.rounds) + ')':<36} {'wall':>9} {'CPU':>9}   batch / it")
        print(f"{'robotskit batch --scheduler sync':<36} {batch[0]:9.0f} {batch[1]:9.0f}")
        for name in ("protego", "robotskit"):
            rate = tuple(_median([r[i] for r in runs[name]]) for i in (0, 1))
            label = f"bare {name} loop (parse + / x agents)"
            print(
                f"{label:<36} {rate[0]:9.0f} {rate[1]:9.0f}   "
                f"{batch[0] / rate[0]:.2f}x wall, {batch[1] / rate[1]:.2f}x CPU"
            )
        print(f"{'peak RSS of this process':<36} {peak:9d} MB")
        sync_cpu = _median([rows / r[1] for r in runs["batch"]])
        if pool is not None:
            run = batch_pool(warcs, tmp / "local.parquet", config, pool)
            _print_local(run, args.workers, rows / batch[0], sync_cpu)
        if started is not None:
            run = batch_local(warcs, tmp / "dask.parquet", config, args.workers, started)
            _print_local(run, args.workers, rows / batch[0], sync_cpu, name="dask")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
