"""The Parquet layout of batch results: one row per capture, agents as a list of structs.

Why one table with a nested `agents` column rather than a long table: a capture's facts and its
verdicts stay together (no join to get them back), row groups stay per capture, and a long
"one row per capture x agent" view is one `explode` away (`robotskit.batch.report.agent_table`).
Sample paths are the same for every row, so they live once in the file's metadata
(`robotskit.sample_paths`, JSON) and `agents[].paths` holds booleans in that order.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import pyarrow as pa  # type: ignore[import-untyped]

# `Array.take` imports pyarrow.compute on first use: imported here, before the cluster forks its
# workers, it is imported once per run, not once more in each worker.
import pyarrow.compute  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from robotskit.batch.analysis import AgentVerdicts, Row

SCHEMA_VERSION = "2"

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
        ("outcome", pa.string()),  # ok | unavailable | unreachable (RFC 9309 2.3.1); null: unknown
        ("reason", pa.string()),  # "HTTP 200", "redirect target not in input: ...", ...
        ("content_type", pa.string()),
        ("size", pa.int64()),  # decoded body bytes as served
        ("truncated", pa.bool_()),  # cut at the size limit by robotskit
        ("html", pa.bool_()),  # an HTML page was served as robots.txt
        ("profile", pa.string()),  # rfc9309 | google | gemini: the semantics the body was judged with
        ("sha256", pa.string()),  # of the decoded body that was judged
        ("groups", pa.int32()),
        ("rules", pa.int32()),
        ("sitemaps", pa.int32()),
        ("lint_ids", pa.list_(pa.string())),  # parser and lint diagnostic codes found (sorted)
        ("error", pa.string()),  # why the capture or its body could not be read or judged
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


def _timestamps(values: list[float | None]) -> pa.Array:
    micros = [None if v is None else round(v * 1_000_000) for v in values]
    return pa.array(micros, pa.timestamp("us", tz="UTC"))  # no cast: that imports pyarrow.compute


def to_table(
    rows: Sequence[Row], agents: Sequence[str], meta: Mapping[bytes, bytes] | None = None
) -> pa.Table:
    """Rows (as `analyze` makes them) to an Arrow table with the fixed schema.

    Rows of duplicate bodies share one `AgentVerdicts`: each distinct one becomes a struct
    array once, and the `agents` column is their concatenation (no Python object per agent).
    """
    columns = [
        pa.array([r.source for r in rows], pa.string()),
        pa.array([r.record for r in rows], pa.int64()),
        pa.array([r.url for r in rows], pa.string()),
        pa.array([r.host for r in rows], pa.string()),
        pa.array([r.authority for r in rows], pa.string()),
        _timestamps([r.fetched_at for r in rows]),
        pa.array([r.status for r in rows], pa.int32()),
        pa.array([r.final_status for r in rows], pa.int32()),
        pa.array([list(r.redirects) for r in rows], pa.list_(pa.string())),
        pa.array([r.outcome for r in rows], pa.string()),
        pa.array([r.reason for r in rows], pa.string()),
        pa.array([r.content_type for r in rows], pa.string()),
        pa.array([r.size for r in rows], pa.int64()),
        pa.array([r.truncated for r in rows], pa.bool_()),
        pa.array([r.html for r in rows], pa.bool_()),
        pa.array([r.profile for r in rows], pa.string()),
        pa.array([r.sha256 for r in rows], pa.string()),
        pa.array([r.groups for r in rows], pa.int32()),
        pa.array([r.rules for r in rows], pa.int32()),
        pa.array([r.sitemaps for r in rows], pa.int32()),
        pa.array([list(r.lint_ids) for r in rows], pa.list_(pa.string())),
        pa.array([r.error for r in rows], pa.string()),
        _agents_column(rows, agents),
    ]
    schema = SCHEMA.with_metadata(dict(meta)) if meta else SCHEMA
    return pa.Table.from_arrays(columns, schema=schema)


# The struct arrays built for distinct verdicts, by value, across the units of a process: a unit
# meets a few hundred distinct verdict sets among thousands of bodies, mostly the ones the units
# before it met (everything allowed, everything blocked, ...). Built per body and per unit, they
# were 0.8 s of CPU (of 13) on the 21,848-capture set, 3x that with its one file cut in ranges.
_BUILT: dict[tuple[tuple[str, ...], AgentVerdicts], pa.Array] = {}
_MAX_BUILT = 1024  # about 4 KiB each for the 94 default agents: 4 MiB at most


def _agents_column(rows: Sequence[Row], agents: Sequence[str]) -> pa.Array:
    names: pa.Array | None = None
    run = tuple(agents)
    built: dict[int, pa.Array] = {}  # id(AgentVerdicts) -> its struct array (rows keep them alive)
    pieces: list[pa.Array] = []
    offsets = [0]
    for row in rows:
        block = built.get(id(row.agents))
        if block is None:
            key = (run, row.agents)
            block = _BUILT.get(key)
            if block is None:
                if names is None:
                    names = pa.array(list(agents), pa.string())
                block = _struct(row.agents, names)
                if len(_BUILT) >= _MAX_BUILT:
                    _BUILT.clear()
                _BUILT[key] = block
            built[id(row.agents)] = block
        pieces.append(block)
        offsets.append(offsets[-1] + len(block))
    values = pa.concat_arrays(pieces) if pieces else pa.array([], AGENT)
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values, type=pa.list_(AGENT))


def _struct(verdicts: AgentVerdicts, names: pa.Array) -> pa.Array:
    count = len(verdicts.of_agent)
    if not count:
        return pa.array([], AGENT)
    take = pa.array(verdicts.of_agent, pa.int32())
    keys = verdicts.keys
    signals = [
        None
        if k.content_signal is None
        else dict(zip(("search", "ai_input", "ai_train"), k.content_signal, strict=True))
        for k in keys
    ]
    fields = [
        names.slice(0, count),
        pa.array([k.verdict for k in keys], pa.string()).take(take),
        pa.array([k.root for k in keys], pa.bool_()).take(take),
        pa.array([list(k.paths) for k in keys], pa.list_(pa.bool_())).take(take),
        pa.array([k.crawl_delay for k in keys], pa.float64()).take(take),
        pa.array(signals, CONTENT_SIGNAL).take(take),
    ]
    return pa.StructArray.from_arrays(fields, fields=list(AGENT))


# A unit's part file is Arrow IPC, not Parquet: the driver reads it back without decoding it.
# A Parquet part cost as much to read as to write (about 24 ms each for 2,000 rows of 94 agents'
# nested verdicts): for 200,000 captures, 5 s of the driver's CPU, on the cores the workers need.
PART_SUFFIX = ".arrow"


def part_name(unit_id: str) -> str:
    """The file name of a unit's part in the run's parts folder."""
    return f"part-{unit_id}{PART_SUFFIX}"


def write_part(table: pa.Table, path: Path) -> None:
    """Write one unit's rows atomically (a rename), so a crash never leaves half a part."""
    tmp = path.with_suffix(".tmp")
    with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    tmp.replace(path)


def read_part(path: Path) -> pa.Table:
    """A part file's rows (read into memory: nothing refers to the file afterwards)."""
    with pa.OSFile(str(path), "rb") as source:
        return pa.ipc.open_file(source).read_all()


# Min/max statistics for the flat columns only. A row group is one unit's captures, so the
# statistics of the agents' nested verdicts span every value and let a reader skip nothing;
# writing them was 12% of the merge (20,000 rows: 0.210 -> 0.184 s), on the driver's core.
STATISTICS = [
    f"{field.name}.list.element" if pa.types.is_list(field.type) else field.name
    for field in SCHEMA
    if field.name != "agents"
]


class Merger:
    """Writes `out` from part files in a fixed order while the run goes on (memory: one part).

    `ready(path)` says a part exists; every part whose predecessors all exist is appended at
    once, so the merge overlaps the work and little is left for the end. `close()` finishes
    (all parts must exist) and renames the result into place; `abort()` drops it. The rows'
    outcomes and errors are counted on the way (the run's summary), so the written file need
    not be read back.
    """

    def __init__(self, parts: Sequence[Path], out: Path, meta: Mapping[bytes, bytes]) -> None:
        self._order, self._out, self._meta = list(parts), out, dict(meta)
        self._schema = SCHEMA.with_metadata(self._meta)
        self._tmp = out.with_name(out.name + ".tmp")
        self._writer = pq.ParquetWriter(self._tmp, self._schema, write_statistics=STATISTICS)
        self._ready: set[Path] = set()
        self._next = 0
        self.rows = 0
        self.outcomes: Counter[str] = Counter()  # "unknown" for a row with no outcome
        self.errors = 0  # rows with an error

    def ready(self, part: Path) -> None:
        self._ready.add(part)
        while self._next < len(self._order) and self._order[self._next] in self._ready:
            table = read_part(self._order[self._next]).replace_schema_metadata(self._meta)
            if table.num_rows:
                if not table.schema.equals(self._schema):  # a part of an older layout
                    table = table.cast(self._schema)
                self._writer.write_table(table)
                self.rows += table.num_rows
                outcomes = table.column("outcome").to_pylist()
                self.outcomes.update("unknown" if value is None else str(value) for value in outcomes)
                self.errors += table.num_rows - table.column("error").null_count
            self._ready.discard(self._order[self._next])
            self._next += 1

    def close(self) -> int:
        for part in self._order[self._next :]:
            self.ready(part)
        self._writer.close()
        self._tmp.replace(self._out)
        return self.rows

    def abort(self) -> None:
        self._writer.close()
        self._tmp.unlink(missing_ok=True)


def sample_paths(table_or_schema: pa.Table | pa.Schema) -> list[str]:
    """The sample paths of a results file, in `agents[].paths` order."""
    schema = table_or_schema.schema if isinstance(table_or_schema, pa.Table) else table_or_schema
    raw = (schema.metadata or {}).get(b"robotskit.sample_paths", b"[]")
    return [str(p) for p in json.loads(raw)]
