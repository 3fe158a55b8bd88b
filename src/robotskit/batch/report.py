"""`robotskit batch report results.parquet`: tables and PNG plots of a results file.

Counts are per capture (one row per capture; deduplicate hosts upstream if a crawl captured a
host twice). Agent shares are over captures whose outcome is known (ok, unavailable or
unreachable), since those are the ones a crawler would have obeyed. Plots use matplotlib's Agg
backend, so no display is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.compute as pc  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

VERDICTS = ("disallowed", "partial", "allowed")
SIZE_QUANTILES = (0.5, 0.9, 0.99)


@dataclass(frozen=True, slots=True)
class AgentShare:
    """How many captures block an agent fully, partly or not at all."""

    agent: str
    disallowed: int
    partial: int
    allowed: int

    @property
    def total(self) -> int:
        return self.disallowed + self.partial + self.allowed

    def share(self, verdict: str) -> float:
        return getattr(self, verdict) / self.total if self.total else 0.0


def agent_table(table: pa.Table) -> pa.Table:
    """The long view: one row per (capture, agent), with the capture's `record`, `source` and `outcome`."""
    agents = table.column("agents").combine_chunks()
    parents = pc.list_parent_indices(agents)
    flat = pc.list_flatten(agents)
    columns = {name: pc.take(table.column(name), parents) for name in ("source", "record", "outcome")}
    for field in flat.type:
        columns[field.name] = flat.field(field.name)
    return pa.table(columns)


def agent_shares(table: pa.Table) -> list[AgentShare]:
    """Per agent verdict counts over captures with a known outcome, most blocked first."""
    long = agent_table(table)
    long = long.filter(pc.is_valid(long.column("outcome")))
    counts = long.group_by(["agent", "verdict"]).aggregate([([], "count_all")]).to_pylist()
    by_agent: dict[str, dict[str, int]] = {}
    for row in counts:
        by_agent.setdefault(str(row["agent"]), {})[str(row["verdict"])] = int(row["count_all"])
    shares = [
        AgentShare(agent, v.get("disallowed", 0), v.get("partial", 0), v.get("allowed", 0))
        for agent, v in by_agent.items()
    ]
    return sorted(shares, key=lambda s: (-s.share("disallowed"), -s.share("partial"), s.agent))


def outcome_counts(table: pa.Table) -> dict[str, int]:
    """Captures per outcome; `unknown` for damaged records and unfollowable redirects."""
    counts: dict[str, int] = {}
    for value in table.column("outcome").to_pylist():
        key = value if value is not None else "unknown"
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def size_stats(table: pa.Table) -> dict[str, float]:
    """Size quantiles (bytes) of bodies that were parsed (outcome ok)."""
    ok = table.filter(pc.equal(table.column("outcome"), "ok")).column("size").drop_null()
    if len(ok) == 0:
        return {}
    quantiles = pc.quantile(ok, q=list(SIZE_QUANTILES)).to_pylist()
    stats = {f"p{int(q * 100)}": float(v) for q, v in zip(SIZE_QUANTILES, quantiles, strict=True)}
    stats["max"] = float(pc.max(ok).as_py())
    stats["count"] = float(len(ok))
    return stats


def render_text(table: pa.Table, top: int = 30) -> str:
    """The report's tables as plain text (also written to report.md)."""
    lines = [f"captures: {table.num_rows}", "", "outcome       captures   share"]
    total = table.num_rows or 1
    for name, count in outcome_counts(table).items():
        lines.append(f"{name:<13} {count:>8}  {count / total:6.1%}")
    errors = table.num_rows - table.column("error").null_count
    html = pc.sum(table.column("html")).as_py() or 0
    lines += ["", f"rows with errors: {errors}; HTML served as robots.txt: {html}", ""]
    lines.append(
        f"{'agent':<28} {'blocked':>8} {'partial':>8} {'allowed':>8}   (share of captures, top {top})"
    )
    for share in agent_shares(table)[:top]:
        lines.append(
            f"{share.agent:<28} {share.share('disallowed'):8.1%} {share.share('partial'):8.1%} "
            f"{share.share('allowed'):8.1%}"
        )
    stats = size_stats(table)
    if stats:
        lines += [
            "",
            "size of parsed files (bytes): "
            + ", ".join(f"{k} {v:,.0f}" for k, v in stats.items() if k != "count"),
        ]
    return "\n".join(lines)


def write_report(results: str | Path, out_dir: str | Path | None = None, *, top: int = 30) -> str:
    """Write report.md and three PNGs next to `results` (or into `out_dir`); return the text."""
    import matplotlib  # noqa: PLC0415 - the batch extra; only the report draws

    matplotlib.use("Agg")
    results = Path(results)
    target = Path(out_dir) if out_dir else results.with_name(results.name + ".report")
    target.mkdir(parents=True, exist_ok=True)
    table = pq.read_table(results)
    text = render_text(table, top)
    _plot_agents(agent_shares(table)[:top], target / "blocking.png")
    _plot_outcomes(outcome_counts(table), target / "outcomes.png")
    _plot_sizes(table, target / "sizes.png")
    body = f"# robotskit batch report: {results.name}\n\n```\n{text}\n```\n\n"
    body += "![blocking](blocking.png)\n\n![outcomes](outcomes.png)\n\n![sizes](sizes.png)\n"
    (target / "report.md").write_text(body, encoding="utf-8")
    return text + f"\n\nreport written to {target}/ (report.md, blocking.png, outcomes.png, sizes.png)"


def _plot_agents(shares: list[AgentShare], path: Path) -> None:
    import matplotlib.pyplot as plt  # noqa: PLC0415

    shares = list(reversed(shares))
    fig, ax = plt.subplots(figsize=(8, max(2.5, 0.28 * len(shares) + 1)))
    names = [s.agent for s in shares]
    left = [0.0] * len(shares)
    colours = {"disallowed": "#c0392b", "partial": "#f39c12", "allowed": "#27ae60"}
    for verdict in VERDICTS:
        values = [100 * s.share(verdict) for s in shares]
        ax.barh(names, values, left=left, color=colours[verdict], label=verdict)
        left = [a + b for a, b in zip(left, values, strict=True)]
    ax.set_xlabel("% of captures")
    ax.set_xlim(0, 100)
    ax.set_title("Share of sites blocking each agent")
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _plot_outcomes(counts: dict[str, int], path: Path) -> None:
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(list(counts), list(counts.values()), color="#2c7fb8")
    ax.set_ylabel("captures")
    ax.set_title("robots.txt fetch outcomes (SPEC.md 6)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _plot_sizes(table: pa.Table, path: Path) -> None:
    import matplotlib.pyplot as plt  # noqa: PLC0415

    sizes = [s for s in table.column("size").to_pylist() if s is not None]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    if sizes:
        top = max(*sizes, 1)
        bins = [0, *[10 ** (i / 4) for i in range(int(4 * len(str(top))) + 1)]]
        ax.hist(sizes, bins=bins, color="#756bb1")
        ax.set_xscale("symlog")
    ax.set_xlabel("bytes")
    ax.set_ylabel("captures")
    ax.set_title("robots.txt file sizes")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
