"""`robotskit fetch`: fetch a site's robots.txt as a crawler would, and say what the outcome means."""

from __future__ import annotations

import argparse

from rich.text import Text

from robotskit.cli._output import Output, decision_json, entry_json, verdict_text
from robotskit.cli._sources import FOUND, OK, CliError, is_url, make_client

__all__ = ["cmd_fetch"]


def cmd_fetch(args: argparse.Namespace, out: Output) -> int:
    if not is_url(args.url):
        raise CliError(f"{args.url!r} is not a URL: fetch takes http(s)://, ftp:// or gemini://")
    with make_client(args) as client:
        entry = client.lookup(args.url)
        decision = client.decide(args.url) if args.agent else None
    code = OK if decision is None or decision.allowed else FOUND
    robots = entry.robots
    if out.json:
        body = {
            "url": args.url,
            "agent": args.agent[0] if args.agent else None,
            "fetch": entry_json(entry),
            "sitemaps": list(robots.sitemaps) if robots else [],
            "decision": decision_json(args.url, decision) if decision else None,
        }
        return out.document("fetch", body, code)
    data = entry_json(entry)
    outcome_style = {"ok": "bold green", "unavailable": "bold yellow"}.get(data["outcome"], "bold red")
    out.print(Text.assemble(("outcome   ", "bold"), (data["outcome"], outcome_style), f"  ({entry.reason})"))
    out.print(f"robots    {entry.robots_url}")
    for hop in entry.redirects:
        out.print(f"redirect  -> {hop}")
    out.print(f"status    {entry.status if entry.status is not None else '-'} ({entry.protocol})")
    out.print(f"size      {entry.size:,} bytes{' (truncated at the limit)' if entry.truncated else ''}")
    out.print(
        f"fetched   {data['fetched_at']}; cached until {data['expires_at']}"
        + (" (stale copy)" if entry.stale else "")
    )
    out.print(f"policy    {data['policy']}")
    if robots is not None and robots.sitemaps:
        out.print(f"sitemaps  {', '.join(robots.sitemaps)}")
    if decision is not None:
        out.print(
            Text.assemble(
                ("verdict   ", "bold"), verdict_text(decision.allowed), f"  {args.url} ({decision.reason})"
            )
        )
    return code
