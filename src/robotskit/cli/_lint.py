"""`robotskit lint`: every problem in a robots.txt, with ids, carets and hints (docs/lint.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rich.text import Text

from robotskit.cli._origin import print_origins
from robotskit.cli._output import Output, source_line
from robotskit.cli._sources import FOUND, OK, CliError, load_file
from robotskit.core.model import Diagnostic, Severity
from robotskit.lint.runner import check_selectors, lint, wanted

if TYPE_CHECKING:
    from robotskit import RobotsTxt

__all__ = ["cmd_lint", "selectors"]

_SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.INFO: "bold cyan"}


def selectors(text: str | None) -> tuple[str, ...]:
    """`--select` / `--ignore`: comma-separated ids or prefixes (`RK301,RK2`); unknown ones exit 2."""
    try:
        return check_selectors((text or "").split(","))
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def cmd_lint(args: argparse.Namespace, out: Output) -> int:
    select, ignore = selectors(args.select), selectors(args.ignore)
    loaded = load_file(args.robots, args)
    assert loaded.robots is not None  # load_file raises when a fetch gave no file
    robots = loaded.robots
    # A fetched file is linted with the Content-Type it was served with (RK231), unless overridden.
    served_as = loaded.entry.content_type if loaded.entry is not None else ""
    everything = lint(
        robots,
        profile=args.profile,
        content_type=args.content_type or served_as or None,
    )
    # Selectors hide findings; the summary always says how many, so "clean" is never a lie.
    diagnostics = tuple(d for d in everything if wanted(d.code, select, ignore))
    hidden = len(everything) - len(diagnostics)
    code = FOUND if any(d.severity is not Severity.INFO for d in diagnostics) else OK
    counts = {str(s): sum(d.severity is s for d in diagnostics) for s in Severity}
    if out.json:
        items = [_diagnostic_json(robots, d) for d in diagnostics]
        body = {
            "robots": args.robots,
            "source": loaded.origin.to_json(),
            "diagnostics": items,
            "summary": counts,
            "hidden": hidden,
        }
        return out.document("lint", body, code)
    for diag in diagnostics:
        _render(out, args.robots, source_line(robots, diag.line), diag)
    summary = ", ".join(f"{n} {name}{'s' if n != 1 else ''}" for name, n in counts.items())
    text = f"{args.robots}: {summary}" if diagnostics else f"{args.robots}: clean"
    if hidden:
        which = "--select/--ignore" if select and ignore else ("--select" if select else "--ignore")
        shown = summary if diagnostics else "nothing reported"
        text = f"{args.robots}: {shown} ({hidden} finding{'s' if hidden != 1 else ''} hidden by {which})"
    out.print(Text(text, style="bold"))
    print_origins(out, [loaded.origin])
    return code


def _diagnostic_json(robots: RobotsTxt, diag: Diagnostic) -> dict[str, Any]:
    return {
        "code": diag.code,
        "severity": str(diag.severity),
        "line": diag.line,
        "column": diag.column,
        "length": diag.length,
        "message": diag.message,
        "hint": diag.hint,
        "text": source_line(robots, diag.line),
    }


def _caret(raw: str, diag: Diagnostic) -> str:
    if diag.column <= 0:
        return ""
    start = min(diag.column - 1, len(raw))
    width = diag.length or max(len(raw) - start, 1)
    return " " * start + "^" * width


def _render(out: Output, source: str, raw: str, diag: Diagnostic) -> None:
    """One diagnostic as compilers print them: location, id, message, the line, a caret, the hint."""
    style = _SEVERITY_STYLE[diag.severity]
    out.print(
        Text.assemble(
            (f"{source}:{diag.line}:{diag.column}: ", "bold"),
            (f"{diag.severity} {diag.code}", style),
            f" {diag.message}",
        )
    )
    if raw:
        out.print(Text(f"{diag.line:>5} | ", style="dim") + Text(raw))
    if caret := _caret(raw, diag):
        out.print(Text("      | ", style="dim") + Text(caret, style=style))
    if diag.hint:
        out.print(Text(f"      = hint: {diag.hint}", style="dim"))
