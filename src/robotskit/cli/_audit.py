"""`robotskit audit`: which well-known crawlers a robots.txt blocks (docs/audit.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rich.text import Text

from robotskit.cli._origin import print_origins
from robotskit.cli._output import Output
from robotskit.cli._sources import OK, CliError, load_file

if TYPE_CHECKING:
    from robotskit.audit.report import AuditReport

__all__ = ["cmd_audit"]


_STATUS_STYLE = {"full": "bold red", "partial": "yellow", "none": "green"}


def _render_audit(out: Output, report: AuditReport) -> None:
    """A table of the audit (schema in docs/audit.md): one row per crawler, blocked ones first."""
    from rich.table import Table  # noqa: PLC0415 - only the human audit needs it

    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("crawler", "operator", "for", "blocked", "group", "notes"):
        table.add_column(column)
    order = {"full": 0, "partial": 1, "none": 2}
    for item in sorted(report.crawlers, key=lambda c: (order.get(c.status, 3), c.crawler.token.lower())):
        notes = list(item.notes)
        # One note per reason, so a near-miss token (`GPT-Bot`) is named in the table too.
        reasons: dict[str, int] = {}
        for rule in item.ignored_rules:
            reasons[rule.reason] = reasons.get(rule.reason, 0) + 1
        notes += [f"{n} rule(s) do nothing for it: {why}" for why, n in reasons.items()]
        table.add_row(
            item.crawler.token,
            item.crawler.operator,
            ", ".join(item.crawler.categories),
            Text(item.status, style=_STATUS_STYLE.get(item.status, "")),
            "own" if item.own_group else "*",
            "; ".join(notes),
        )
    out.out.print(table)
    summary = report.summary()
    out.print(
        f"blocked fully: {summary['full']}, partly: {summary['partial']}, not at all: {summary['none']}"
    )
    for unknown in report.unknown_agents:
        hint = f" (did you mean {unknown.suggestion}?)" if unknown.suggestion else ""
        out.print(f"line {unknown.line}: '{unknown.token}' is not a known crawler{hint}")


def cmd_audit(args: argparse.Namespace, out: Output) -> int:
    try:
        from robotskit.audit.report import audit  # noqa: PLC0415 - the crawler table loads on demand
    except ImportError as exc:
        raise CliError(f"robotskit audit is not available: {exc}") from exc
    loaded = load_file(args.robots, args)
    assert loaded.robots is not None  # load_file raises when a fetch gave no file
    report = audit(loaded.robots)
    if out.json:
        body = {"robots": args.robots, "source": loaded.origin.to_json(), "report": report.to_dict()}
        return out.document("audit", body, OK)
    _render_audit(out, report)
    print_origins(out, [loaded.origin])
    return OK
