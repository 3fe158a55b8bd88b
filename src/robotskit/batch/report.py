"""`robotskit batch report RESULTS --report-dir DIR`: what a results file says, in tables and figures.

What is counted, in both units and always side by side:
- captures: every row of the results file;
- sites: distinct authorities (`scheme://host:port`), each counted once by its latest capture
  (latest `fetched_at`, then the last record); a row without a URL is a site of its own.
Each capture falls in one category: `robots.txt` (a 2xx response that is not an HTML page),
`HTML page` (a soft-404 or error page served with 2xx: not a robots.txt file; RFC 9309 2.3.1.1
parses it, and it almost never blocks anything), `unavailable` (4xx except 429: everything
allowed, RFC 9309 2.3.1.3), `unreachable` (5xx, 429, bad or failed responses: complete disallow,
RFC 9309 2.3.1.4) and `unknown` (damaged record, redirect target not captured).
Per agent: "fully blocked" is a robots.txt whose rules disallow `/` for the agent, "partly
blocked" one that allows `/` but blocks some probed path; "unreachable" is its own column.
Shares name their denominator: "of robots.txt files" or "of known" (every category but unknown).

Writes agents.csv and agents.md (one row per agent), outcomes.csv, and each figure as SVG and
300-dpi PNG with its numbers beside it as a CSV of the same name. Reads the results file one
batch of rows at a time, so a report of millions of captures stays within a few hundred MB.
"""

from __future__ import annotations

import csv
import itertools
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.compute as pc  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from robotskit.batch.output import SCHEMA, SCHEMA_VERSION

ROBOTS, HTML, UNAVAILABLE, UNREACHABLE, UNKNOWN = (
    "robots.txt",
    "HTML page",
    "unavailable",
    "unreachable",
    "unknown",
)
CATEGORIES = (ROBOTS, HTML, UNAVAILABLE, UNREACHABLE, UNKNOWN)
UNITS = ("sites", "captures")
OF_ROBOTS = "(% of robots.txt files)"
_BATCH = 16_384
_SCALARS = ["authority", "url", "fetched_at", "outcome", "html", "size", "error"]


@dataclass(slots=True)
class AgentCounts:
    """One agent's counts, per unit (sites, captures)."""

    agent: str
    fully_blocked: Counter[str] = field(default_factory=Counter)
    partly_blocked: Counter[str] = field(default_factory=Counter)


@dataclass(slots=True)
class Summary:
    """Everything the report shows, counted in one pass over the results."""

    categories: dict[str, Counter[str]]  # unit -> category -> count
    agents: list[AgentCounts]
    sizes: list[int]  # sizes of robots.txt files, sites only
    errors: Counter[str]  # unit -> rows with an error

    def total(self, unit: str) -> int:
        return sum(self.categories[unit].values())

    def known(self, unit: str) -> int:
        return self.total(unit) - self.categories[unit][UNKNOWN]

    def row(self, counts: AgentCounts) -> dict[str, object]:
        """The agent table row: counts and shares, sites then captures."""
        out: dict[str, object] = {"agent": counts.agent}
        for unit in UNITS:
            robots, known = self.categories[unit][ROBOTS], self.known(unit)
            unreachable = self.categories[unit][UNREACHABLE]
            blocked = counts.fully_blocked[unit]
            out |= {
                f"{unit}_known": known,
                f"{unit}_robots_txt": robots,
                f"{unit}_fully_blocked": blocked,
                f"{unit}_fully_blocked_pct_of_robots_txt": _pct(blocked, robots),
                f"{unit}_fully_blocked_pct_of_known": _pct(blocked, known),
                f"{unit}_partly_blocked": counts.partly_blocked[unit],
                f"{unit}_unreachable": unreachable,
                f"{unit}_unreachable_pct_of_known": _pct(unreachable, known),
            }
        return out


def _pct(part: int, whole: int) -> float:
    return round(100 * part / whole, 2) if whole else 0.0


def _categories(batch: pa.RecordBatch, judged: pa.Array) -> pa.Array:
    """Each row's category (see the module docstring); a 2xx row without verdicts is unknown."""
    outcome = batch.column("outcome")
    html = pc.fill_null(batch.column("html"), False)
    ok = pc.and_(pc.fill_null(pc.equal(outcome, "ok"), False), judged)
    return pc.case_when(
        pc.make_struct(
            pc.and_(ok, pc.invert(html)),
            pc.and_(ok, html),
            pc.fill_null(pc.equal(outcome, "unavailable"), False),
            pc.fill_null(pc.equal(outcome, "unreachable"), False),
        ),
        ROBOTS,
        HTML,
        UNAVAILABLE,
        UNREACHABLE,
        UNKNOWN,
    )


class NotResults(ValueError):
    """A file `batch report` cannot read: not Parquet, or not a robotskit batch results file."""


def check_results(results: str | Path) -> None:
    """Raise NotResults (one line) unless `results` is a robotskit batch results file of the
    schema this version writes (robotskit.batch.output.SCHEMA): every column, of its type, and
    the `robotskit.schema` metadata. Reads the file's footer only."""
    not_results = f"{results} is not a robotskit batch results file"
    try:
        schema = pq.read_schema(results)
    except (OSError, pa.ArrowException) as exc:
        reason = next(iter(str(exc).splitlines()), type(exc).__name__)
        raise NotResults(f"{not_results} (not a Parquet file: {reason})") from None
    missing = [f.name for f in SCHEMA if not schema.get_all_field_indices(f.name)]
    if missing:
        raise NotResults(f"{not_results} (missing columns: {', '.join(missing)})")
    meta = schema.metadata or {}
    if b"robotskit.schema" not in meta:
        raise NotResults(f"{not_results} (no robotskit.schema metadata)")
    version = meta[b"robotskit.schema"].decode("utf-8", "replace")
    if version != SCHEMA_VERSION:
        raise NotResults(
            f"{results} has results schema version {version!r}; this robotskit reads version {SCHEMA_VERSION}"
        )
    odd = [
        f.name
        for f in SCHEMA
        if len(schema.get_all_field_indices(f.name)) != 1 or not schema.field(f.name).type.equals(f.type)
    ]
    if odd:
        raise NotResults(f"{not_results} (columns of another type, or repeated: {', '.join(odd)})")
    try:
        agents = json.loads(meta.get(b"robotskit.agents", b"[]"))
    except (ValueError, RecursionError):
        agents = None
    if not isinstance(agents, list) or not all(isinstance(name, str) for name in agents):
        raise NotResults(f"{not_results} (its robotskit.agents metadata is not a JSON list of names)")


def latest_rows(results: str | Path) -> pa.Array:
    """A boolean per row: is it its site's latest capture? (see the module docstring)."""
    table = pq.read_table(results, columns=["authority", "fetched_at"])
    n = table.num_rows
    keys = table.column("authority").to_pylist()
    stamps = table.column("fetched_at").cast(pa.int64()).to_pylist()
    latest: dict[str, tuple[int, int]] = {}
    mask = [False] * n
    for index, (key, stamp) in enumerate(zip(keys, stamps, strict=True)):
        if key is None:
            mask[index] = True
            continue
        rank = (stamp if stamp is not None else -(2**62), index)
        if key not in latest or rank >= latest[key]:
            latest[key] = rank
    for _, index in latest.values():
        mask[index] = True
    return pa.array(mask, pa.bool_())


def summarise(results: str | Path) -> Summary:
    """Count categories, per-agent blocking and sizes, for sites and for captures.

    Raises NotResults for a file that is not a robotskit batch results file."""
    check_results(results)
    file = pq.ParquetFile(results)
    names = _agent_names(file.schema_arrow)
    site_mask = latest_rows(results)
    categories = {unit: Counter[str]() for unit in UNITS}
    errors: Counter[str] = Counter()
    agents = {name: AgentCounts(name) for name in names}
    sizes: list[int] = []
    start = 0
    for batch in file.iter_batches(batch_size=_BATCH, columns=[*_SCALARS, "agents"]):
        sites = site_mask.slice(start, batch.num_rows)
        start += batch.num_rows
        lists = batch.column("agents")
        judged = pc.greater(pc.list_value_length(lists), 0)
        category = _categories(batch, judged)
        has_error = pc.is_valid(batch.column("error"))
        for unit, mask in (("captures", None), ("sites", sites)):
            chosen = category if mask is None else category.filter(mask)
            categories[unit].update(_value_counts(chosen))
            errored = has_error if mask is None else has_error.filter(mask)
            errors[unit] += pc.sum(errored).as_py() or 0
        robots = pc.equal(category, ROBOTS)
        site_robots = pc.and_(robots, sites)
        sizes.extend(v for v in batch.column("size").filter(site_robots).to_pylist() if v is not None)
        _count_agents(lists, robots, site_robots, agents)
    return Summary(categories, list(agents.values()), sizes, errors)


def _value_counts(values: pa.Array) -> dict[str, int]:
    return {str(item["values"]): int(item["counts"]) for item in pc.value_counts(values).to_pylist()}


def _count_agents(lists: pa.Array, robots: pa.Array, sites: pa.Array, agents: dict[str, AgentCounts]) -> None:
    """Add the agent verdicts of robots.txt rows: fully blocked (`/` disallowed), partly blocked."""
    parents = pc.list_parent_indices(lists)
    flat = pc.list_flatten(lists)
    in_robots = pc.take(robots, parents)
    in_sites = pc.take(sites, parents)
    name = flat.field("agent")
    root = pc.fill_null(flat.field("root"), True)
    full = pc.and_(in_robots, pc.invert(root))
    partly = pc.and_(pc.and_(in_robots, root), pc.equal(flat.field("verdict"), "partial"))
    for mask, attribute in ((full, "fully"), (partly, "partly")):
        for unit, chosen in (("captures", mask), ("sites", pc.and_(mask, in_sites))):
            for agent, count in _value_counts(name.filter(chosen)).items():
                counts = agents.setdefault(agent, AgentCounts(agent))
                target = counts.fully_blocked if attribute == "fully" else counts.partly_blocked
                target[unit] += count


def _agent_names(schema: pa.Schema) -> list[str]:
    raw = (schema.metadata or {}).get(b"robotskit.agents", b"[]")
    return [str(name) for name in json.loads(raw)]


# --------------------------------------------------------------------------- text and tables


def ranked(summary: Summary) -> list[AgentCounts]:
    """Agents, most often fully blocked (by sites) first; ties by name."""
    return sorted(
        summary.agents, key=lambda a: (-a.fully_blocked["sites"], -a.fully_blocked["captures"], a.agent)
    )


def render_text(summary: Summary, top: int = 30) -> str:
    """The report's headline tables as plain text."""
    lines = [
        f"sites: {summary.total('sites')} (distinct authorities, latest capture of each); "
        f"captures: {summary.total('captures')}",
        "",
        f"{'category':<14} {'sites':>9} {'share':>7} {'captures':>10} {'share':>7}",
    ]
    for category in CATEGORIES:
        s, c = summary.categories["sites"][category], summary.categories["captures"][category]
        lines.append(
            f"{category:<14} {s:>9} {_pct(s, summary.total('sites')):6.1f}% "
            f"{c:>10} {_pct(c, summary.total('captures')):6.1f}%"
        )
    lines += [
        "",
        f"rows with errors: {summary.errors['captures']} captures, {summary.errors['sites']} sites",
        "",
        "fully blocked: a robots.txt (2xx, not HTML) that disallows / for the agent;",
        "unreachable: 5xx, 429, failed fetches: complete disallow per RFC 9309 2.3.1.4",
        "",
        f"{'agent':<28} {'sites fully blocked':>24} {'captures fully blocked':>24} {'unreachable':>20}",
        f"{'':<28} {OF_ROBOTS:>24} {OF_ROBOTS:>24} {'(% of known sites)':>20}",
    ]
    for counts in ranked(summary)[:top]:
        row = summary.row(counts)
        sites = f"{row['sites_fully_blocked']} ({row['sites_fully_blocked_pct_of_robots_txt']:.1f}%)"
        captures = f"{row['captures_fully_blocked']} ({row['captures_fully_blocked_pct_of_robots_txt']:.1f}%)"
        unreachable = f"{row['sites_unreachable']} ({row['sites_unreachable_pct_of_known']:.1f}%)"
        lines.append(f"{counts.agent:<28} {sites:>24} {captures:>24} {unreachable:>20}")
    if len(summary.agents) > top:
        lines.append(f"... {len(summary.agents) - top} more agents in agents.csv / agents.md")
    if summary.sizes:
        ordered = sorted(summary.sizes)
        marks = {f"p{q}": ordered[min(len(ordered) - 1, len(ordered) * q // 100)] for q in (50, 90, 99)}
        lines += ["", "robots.txt sizes (sites, bytes): " + ", ".join(f"{k} {v:,}" for k, v in marks.items())]
    return "\n".join(lines)


def _write_csv(path: Path, rows: Sequence[dict[str, object]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["empty"])
        writer.writeheader()
        writer.writerows(rows)


def _markdown_table(rows: Sequence[dict[str, object]]) -> Iterator[str]:
    if not rows:
        return
    heads = list(rows[0])
    yield "| " + " | ".join(heads) + " |"
    yield "|" + "|".join("---" if h == "agent" else "---:" for h in heads) + "|"
    for row in rows:
        yield "| " + " | ".join(str(row[h]) for h in heads) + " |"


def write_report(results: str | Path, out_dir: str | Path | None = None, *, top: int = 30) -> str:
    """Write the tables and figures into `out_dir` (default RESULTS.report/); return the text.

    Raises NotResults, before anything is written, for a file that is not a robotskit batch
    results file."""
    check_results(results)
    import matplotlib  # noqa: PLC0415 - the batch extra; only the report draws

    matplotlib.use("Agg")
    results = Path(results)
    target = Path(out_dir) if out_dir else results.with_name(results.name + ".report")
    target.mkdir(parents=True, exist_ok=True)
    summary = summarise(results)
    text = render_text(summary, top)
    rows = [summary.row(counts) for counts in ranked(summary)]
    _write_csv(target / "agents.csv", rows)
    outcome_rows = [
        {
            "category": c,
            "sites": summary.categories["sites"][c],
            "captures": summary.categories["captures"][c],
        }
        for c in CATEGORIES
    ]
    _write_csv(target / "outcomes.csv", outcome_rows)
    agents_md = [
        f"# Agents: {results.name}",
        "",
        f"{summary.total('sites')} sites (distinct authorities, latest capture of each), "
        f"{summary.total('captures')} captures. Fully blocked: a robots.txt (2xx, not an HTML page) "
        "whose rules disallow `/` for the agent. Unreachable (5xx, 429, failed fetches): complete "
        "disallow per RFC 9309 2.3.1.4. Shares in % of robots.txt files, or of known (every capture "
        "but damaged ones).",
        "",
        *_markdown_table(rows),
    ]
    (target / "agents.md").write_text("\n".join(agents_md) + "\n", encoding="utf-8")
    figures = [
        _plot_blocking(summary, top, target / "blocking"),
        _plot_outcomes(summary, target / "outcomes_chart"),
        _plot_sizes(summary, target / "sizes"),
    ]
    body = f"# robotskit batch report: {results.name}\n\n```\n{text}\n```\n\n"
    body += "Every agent: [agents.md](agents.md) ([agents.csv](agents.csv)).\n\n"
    body += "".join(
        f"![{name}]({name}.svg) ([PNG]({name}.png), [numbers]({name}.csv))\n\n" for name in figures
    )
    (target / "report.md").write_text(body, encoding="utf-8")
    files = ", ".join(
        ["report.md", "agents.csv", "agents.md", "outcomes.csv", *(f"{f}.svg/.png/.csv" for f in figures)]
    )
    return text + f"\n\nreport written to {target}/ ({files})"


# --------------------------------------------------------------------------- figures


def _save(fig: object, base: Path) -> str:
    import matplotlib.pyplot as plt  # noqa: PLC0415

    for suffix, dpi in ((".svg", None), (".png", 300)):
        fig.savefig(base.with_suffix(suffix), dpi=dpi, bbox_inches="tight")  # type: ignore[attr-defined]
    plt.close(fig)  # type: ignore[arg-type]
    return base.name


def _plot_blocking(summary: Summary, top: int, base: Path) -> str:
    import matplotlib.pyplot as plt  # noqa: PLC0415

    shown = list(reversed(ranked(summary)[:top]))
    known = summary.known("sites")
    unreachable = _pct(summary.categories["sites"][UNREACHABLE], known)
    series = {
        "fully blocked (robots.txt disallows /)": [_pct(a.fully_blocked["sites"], known) for a in shown],
        "partly blocked": [_pct(a.partly_blocked["sites"], known) for a in shown],
        "unreachable (complete disallow, RFC 9309)": [unreachable for _ in shown],
    }
    _write_csv(
        base.with_suffix(".csv"),
        [{"agent": a.agent, **{k: v[i] for k, v in series.items()}} for i, a in enumerate(shown)],
    )
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.3 * len(shown) + 1.5)))
    names = [a.agent for a in shown]
    left = [0.0] * len(shown)
    for (label, values), colour in zip(series.items(), ("#c0392b", "#f39c12", "#7f8c8d"), strict=True):
        ax.barh(names, values, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, values, strict=True)]
    ax.set_xlabel(f"% of sites with a known outcome (n = {known})")
    ax.set_xlim(0, max(5.0, min(100.0, max(left, default=0) * 1.1)))
    ax.set_title("Sites blocking each agent (latest capture per site)")
    # Legend above the plot, outside the axes: it can never cover a bar.
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.06), ncol=1, fontsize="small", frameon=False)
    return _save(fig, base)


def _plot_outcomes(summary: Summary, base: Path) -> str:
    import matplotlib.pyplot as plt  # noqa: PLC0415

    rows = [{"category": c, **{u: summary.categories[u][c] for u in UNITS}} for c in CATEGORIES]
    _write_csv(base.with_suffix(".csv"), rows)
    fig, ax = plt.subplots(figsize=(7, 3.8))
    width = 0.4
    for offset, (unit, colour) in zip(
        (-width / 2, width / 2), zip(UNITS, ("#2c7fb8", "#a6bddb"), strict=True), strict=True
    ):
        ax.bar(
            [i + offset for i in range(len(CATEGORIES))],
            [int(str(r[unit])) for r in rows],
            width,
            color=colour,
            label=unit,
        )
    ax.set_xticks(range(len(CATEGORIES)), list(CATEGORIES))
    ax.set_ylabel("count")
    ax.set_title("robots.txt fetch outcomes")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _save(fig, base)


def _plot_sizes(summary: Summary, base: Path) -> str:
    import matplotlib.pyplot as plt  # noqa: PLC0415

    edges = [0, *(10 ** (i / 4) for i in range(4 * 8 + 1))]
    counts = [0] * (len(edges) - 1)
    for size in summary.sizes:
        for i in range(len(edges) - 1):
            if edges[i] <= size < edges[i + 1] or (i == len(edges) - 2 and size >= edges[i + 1]):
                counts[i] += 1
                break
    _write_csv(
        base.with_suffix(".csv"),
        [
            {"from_bytes": round(edges[i]), "to_bytes": round(edges[i + 1]), "sites": counts[i]}
            for i in range(len(counts))
        ],
    )
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.bar(
        edges[:-1],
        counts,
        width=[b - a for a, b in itertools.pairwise(edges)],
        align="edge",
        color="#756bb1",
        label="robots.txt files (sites)",
    )
    ax.set_xscale("symlog")
    ax.set_xlabel("bytes")
    ax.set_ylabel("sites")
    ax.set_title("robots.txt file sizes")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _save(fig, base)


def agent_table(table: pa.Table) -> pa.Table:
    """The long view: one row per (capture, agent), with the capture's `source`, `record` and `outcome`."""
    agents = table.column("agents").combine_chunks()
    parents = pc.list_parent_indices(agents)
    flat = pc.list_flatten(agents)
    columns = {name: pc.take(table.column(name), parents) for name in ("source", "record", "outcome")}
    for position, item in enumerate(flat.type):
        columns[item.name] = flat.field(position)
    return pa.table(columns)
