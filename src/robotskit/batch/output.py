"""The Parquet layout of batch results: one row per capture, agents as a list of structs.

Why one table with a nested `agents` column rather than a long table: a capture's facts and its
verdicts stay together (no join to get them back), row groups stay per capture, and a long
"one row per capture x agent" view is one `explode` away (`robotskit.batch.report.agent_table`).
Sample paths are the same for every row, so they live once in the file's metadata
(`robotskit.sample_paths`, JSON) and `agents[].paths` holds booleans in that order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

SCHEMA_VERSION = "1"

CONTENT_SIGNAL = pa.struct([("search", pa.bool_()), ("ai_input", pa.bool_()), ("ai_train", pa.bool_())])
AGENT = pa.struct(
    [
        ("agent", pa.string()),  # the agent's name in the run's list
        ("verdict", pa.string()),  # allowed | partial | disallowed, for the whole site
        ("root", pa.bool_()),  # may it fetch `/`?
        ("paths", pa.list_(pa.bool_())),  # may it fetch each sample path? (metadata order)
        ("crawl_delay", pa.float64()),  # seconds, from its groups
        ("content_signal", CONTENT_SIGNAL),  # Cloudflare Content-Signal speaking to it
    ]
)
SCHEMA = pa.schema(
    [
        ("source", pa.string()),  # the input: WARC file, robots.txt file, or host list
        ("record", pa.int64()),  # WARC record offset, file index in its chunk, host line number
        ("url", pa.string()),  # the captured robots.txt URL
        ("host", pa.string()),
        ("authority", pa.string()),  # scheme://host[:port] as robotskit keys caches
        ("fetched_at", pa.timestamp("us", tz="UTC")),
        ("status", pa.int32()),  # the captured status (first response)
        ("final_status", pa.int32()),  # after redirects
        ("redirects", pa.list_(pa.string())),  # the hop targets
        ("outcome", pa.string()),  # ok | unavailable | unreachable (SPEC.md 6); null: unknown
        ("reason", pa.string()),  # "HTTP 200", "redirect target not in input: ...", ...
        ("content_type", pa.string()),
        ("size", pa.int64()),  # decoded body bytes as served
        ("truncated", pa.bool_()),  # cut at the size limit (by robotskit or by the crawler)
        ("html", pa.bool_()),  # an HTML page was served as robots.txt
        ("groups", pa.int32()),
        ("rules", pa.int32()),
        ("sitemaps", pa.int32()),
        ("lint_ids", pa.list_(pa.string())),  # parser and lint diagnostic codes found (sorted)
        ("error", pa.string()),  # why the capture or its body could not be read
        ("agents", pa.list_(AGENT)),
    ]
)


def metadata(paths: Sequence[str], agents: Sequence[str]) -> dict[bytes, bytes]:
    """File-level metadata: the sample paths (the order of `agents[].paths`) and agent names."""
    return {
        b"robotskit.schema": SCHEMA_VERSION.encode(),
        b"robotskit.sample_paths": json.dumps(list(paths)).encode(),
        b"robotskit.agents": json.dumps(list(agents)).encode(),
    }


def _timestamp(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, tz=UTC)


def to_table(rows: Iterable[Mapping[str, Any]], meta: Mapping[bytes, bytes] | None = None) -> pa.Table:
    """Rows (as `analyze` makes them) to an Arrow table with the fixed schema."""
    columns: dict[str, list[Any]] = {name: [] for name in SCHEMA.names}
    for row in rows:
        for name in SCHEMA.names:
            value = row.get(name)
            if name == "fetched_at":
                value = _timestamp(value)
            columns[name].append(value)
    schema = SCHEMA.with_metadata(dict(meta)) if meta else SCHEMA
    return pa.table(columns, schema=schema)


def write_part(table: pa.Table, path: Path) -> None:
    """Write one unit's rows atomically (a rename), so a crash never leaves half a part."""
    tmp = path.with_suffix(".tmp")
    pq.write_table(table, tmp)
    tmp.replace(path)


def merge(parts: Sequence[Path], out: Path, meta: Mapping[bytes, bytes]) -> int:
    """Concatenate part files into `out` one row group at a time (memory: one part). Rows written."""
    schema = SCHEMA.with_metadata(dict(meta))
    tmp = out.with_name(out.name + ".tmp")
    total = 0
    with pq.ParquetWriter(tmp, schema) as writer:
        for part in parts:
            table = pq.read_table(part).replace_schema_metadata(dict(meta))
            if table.num_rows:
                writer.write_table(table.cast(schema))
                total += table.num_rows
    tmp.replace(out)
    return total


def sample_paths(table_or_schema: pa.Table | pa.Schema) -> list[str]:
    """The sample paths of a results file, in `agents[].paths` order."""
    schema = table_or_schema.schema if isinstance(table_or_schema, pa.Table) else table_or_schema
    raw = (schema.metadata or {}).get(b"robotskit.sample_paths", b"[]")
    return [str(p) for p in json.loads(raw)]
