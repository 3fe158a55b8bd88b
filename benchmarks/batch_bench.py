"""Batch throughput: files per second in process, on a 2-worker Dask LocalCluster, and per core.

    .venv/bin/python benchmarks/batch_bench.py [--files 600] [--warcs 6]

Builds WARC files from ../shared/corpus (200 OK, text/plain) in a temporary directory, then:
- `sync`: the whole batch (read WARC, replay the fetch policy, parse, lint, judge the default
  ~98 agents on `/`, plus the audit probes) in this process;
- `cluster`: the same on a LocalCluster(n_workers=2, processes=True), startup excluded;
- `parse+audit`: robotskit.parse + robotskit.audit.audit for 20 crawlers, per core.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

import robotskit
from robotskit.batch import BatchConfig, default_agents
from robotskit.batch.runner import run_batch

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "files"


def build(root: Path, files: list[Path], warcs: int) -> list[Path]:
    paths = [root / f"bench-{n}.warc.gz" for n in range(warcs)]
    for n, path in enumerate(paths):
        with path.open("wb") as fh:
            writer = WARCWriter(fh, gzip=True)
            for i, file in enumerate(files[n::warcs]):
                body = file.read_bytes()
                headers = [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))]
                http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
                record = writer.create_warc_record(
                    f"http://h{n}-{i}.example/robots.txt",
                    "response",
                    payload=io.BytesIO(body),
                    http_headers=http,
                )
                writer.write_record(record)
                record.raw_stream.close()
    return paths


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=600)
    parser.add_argument("--warcs", type=int, default=6)
    args = parser.parse_args()
    files = sorted(CORPUS.glob("*.txt"))[: args.files]
    config = BatchConfig(agents=default_agents())
    print(f"{len(files)} corpus files, {len(config.agents)} agents, {args.warcs} WARC files")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        warcs = build(root, files, args.warcs)
        start = time.perf_counter()
        summary = run_batch(warcs, root / "sync.parquet", config, scheduler="sync", progress=False)
        sync = time.perf_counter() - start
        print(f"{'sync (1 process)':<28} {summary.rows / sync:10.1f} files/s  ({sync:.2f} s)")

        import distributed  # noqa: PLC0415

        with (
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            client.run(lambda: __import__("robotskit.batch.runner"))  # warm imports, not timed
            start = time.perf_counter()
            summary = run_batch(warcs, root / "cluster.parquet", config, scheduler=client, progress=False)
            elapsed = time.perf_counter() - start
        print(f"{'LocalCluster 2 workers':<28} {summary.rows / elapsed:10.1f} files/s  ({elapsed:.2f} s)")

    from robotskit.audit import audit  # noqa: PLC0415
    from robotskit.crawlers import load_crawlers  # noqa: PLC0415

    crawlers = list(load_crawlers())[:20]
    bodies = [f.read_bytes() for f in files]
    start = time.perf_counter()
    for body in bodies:
        audit(robotskit.parse(body), crawlers)
    elapsed = time.perf_counter() - start
    print(f"{'parse + 20-agent audit':<28} {len(bodies) / elapsed:10.1f} files/s per core")
    return 0


if __name__ == "__main__":
    sys.exit(main())
