"""`robotskit diff OLD NEW`: which URL and agent verdicts change between two versions of a robots.txt."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rich.text import Text

from robotskit.audit.diff import diff_verdicts
from robotskit.cli._check import check_url
from robotskit.cli._output import Output, numbered, rule_label, verdict_text
from robotskit.cli._sources import FOUND, OK, CliError, agents_of, load_file, read_url_file
from robotskit.core.model import Decision

if TYPE_CHECKING:
    from robotskit import RobotsTxt

__all__ = ["cmd_diff"]


def _deciding(out: Output, label: str, robots: RobotsTxt, decision: Decision) -> None:
    rule = decision.rule
    if rule is None:
        out.print(Text(f"  {label} ", style="dim") + Text(f"no rule matched ({decision.reason})"))
        return
    out.print(Text(f"  {label} ", style="dim") + numbered(robots, rule.line, rule.raw or rule.pattern))
    if not rule.raw:
        out.print(Text(f"         ({rule_label(rule)})", style="dim"))


def cmd_diff(args: argparse.Namespace, out: Output) -> int:
    if [args.old, args.new, args.urls].count("-") > 1:
        raise CliError("only one of OLD, NEW and --urls can be - (stdin can be read once)")
    old_loaded, new_loaded = load_file(args.old, args), load_file(args.new, args)
    old, new = old_loaded.robots, new_loaded.robots
    assert old is not None and new is not None  # load_file raises when a fetch gave no file
    urls = read_url_file(args.urls) if args.urls else []
    if args.urls and not urls:
        raise CliError(f"no URL in {args.urls}")
    for url in urls:
        check_url(url)
    result = diff_verdicts(old, new, urls, agents_of(args, required=False), profile=args.profile)
    code = FOUND if result.changes else OK
    if out.json:
        body = {
            "old": args.old,
            "new": args.new,
            "sources": {"old": old_loaded.origin.to_json(), "new": new_loaded.origin.to_json()},
            "diff": result.to_dict(),
        }
        return out.document("diff", body, code)
    for change in result.changes:
        out.print(
            Text.assemble(
                verdict_text(change.before.allowed).plain.strip(),
                " -> ",
                verdict_text(change.after.allowed),
                "  ",
                (change.url, "bold"),
                f"  for {change.agent}",
            )
        )
        _deciding(out, "before", old, change.before)
        _deciding(out, "after ", new, change.after)
    compared = len(result.changes) + result.unchanged
    summary = (
        f"{len(result.changes)} of {compared} verdicts change"
        if result.changes
        else f"no verdict changes ({compared} compared)"
    )
    out.print(
        Text(
            f"{summary}: {len(result.urls)} URL(s) x {len(result.agents)} agent(s)"
            + ("" if args.urls else " (URLs sampled from both files' rules)"),
            style="bold",
        )
    )
    out.print(Text(f"old: {old_loaded.origin.describe()}", style="dim"))
    out.print(Text(f"new: {new_loaded.origin.describe()}", style="dim"))
    return code
