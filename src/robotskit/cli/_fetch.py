"""`robotskit fetch`: fetch a site's robots.txt as a crawler would, and say what the outcome means.

Exit status: 0 when the fetch gave an answer (a file, or a 4xx meaning "no robots.txt"), 1 when
`--agent` is disallowed the URL, 2 when the fetch failed (unreachable: 5xx, timeout, TLS, a
changed Gemini certificate...), even if a stale copy stands in.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from urllib.parse import urlsplit

from rich.text import Text

from robotskit.audit.diff import agent_label
from robotskit.cli._output import Output, decision_json, entry_json, iso, verdict_text
from robotskit.cli._sources import ERROR, FOUND, OK, CliClient, CliError, agents_of, is_url, make_client
from robotskit.policy.flow import Outcome

__all__ = ["cmd_fetch"]


@dataclass(frozen=True, slots=True)
class Certificate:
    """A Gemini host's pinned certificate (trust on first use), and the new one if it changed."""

    sha256: str | None
    first_seen: float | None
    presented_sha256: str | None  # set only when the server presented another certificate

    @property
    def changed(self) -> bool:
        return self.presented_sha256 is not None

    def to_json(self) -> dict[str, object]:
        return {
            "sha256": self.sha256,
            "first_seen": iso(self.first_seen),
            "changed": self.changed,
            "presented_sha256": self.presented_sha256,
        }


def _certificate(client: CliClient, url: str) -> Certificate | None:
    """The Gemini certificate pin of `url`'s host (TOFU), and whether the server's certificate changed."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "gemini" or not parts.hostname:
        return None
    host, port = parts.hostname, parts.port or 1965
    pin = client.tofu.get(host, port)
    changed = client.tofu.changed.get(client.tofu.key(host, port))
    return Certificate(
        pin.sha256 if pin else None, pin.first_seen if pin else None, changed[1] if changed else None
    )


def cmd_fetch(args: argparse.Namespace, out: Output) -> int:
    if not is_url(args.url):
        raise CliError(f"{args.url!r} is not a URL: fetch takes http(s)://, ftp:// or gemini://")
    with make_client(args) as client:
        entry, origin = client.lookup(args.url)
        # every --agent, judged separately (none: only fetch)
        decisions = [(agent_label(a), client.decide(args.url, a)[0]) for a in agents_of(args, required=False)]
        certificate = _certificate(client, args.url)
    if entry.outcome is Outcome.UNREACHABLE:
        code = ERROR  # the fetch failed, whatever stands in for it
    else:
        code = OK if all(d.allowed for _, d in decisions) else FOUND
    robots = entry.robots
    if out.json:
        body = {
            "url": args.url,
            "agent": decisions[0][0] if decisions else None,
            "source": origin.to_json(),
            "fetch": entry_json(entry),
            "certificate": certificate.to_json() if certificate else None,
            "sitemaps": list(robots.sitemaps) if robots else [],
            "decision": decision_json(args.url, decisions[0][1]) if decisions else None,
            "decisions": [{"agent": label, **decision_json(args.url, d)} for label, d in decisions],
        }
        return out.document("fetch", body, code)
    data = entry_json(entry)
    outcome_style = {"ok": "bold green", "unavailable": "bold yellow"}.get(data["outcome"], "bold red")
    out.print(Text.assemble(("outcome   ", "bold"), (data["outcome"], outcome_style), f"  ({entry.reason})"))
    out.print(f"robots    {entry.robots_url}")
    for hop in entry.redirects:
        out.print(f"redirect  -> {hop}")
    out.print(f"status    {entry.status if entry.status is not None else '-'} ({entry.protocol})")
    if certificate is not None:
        _print_certificate(out, certificate)
    out.print(f"size      {entry.size:,} bytes{' (truncated at the limit)' if entry.truncated else ''}")
    out.print(f"source    {origin.describe()}")
    out.print(f"expires   {data['expires_at']}")
    out.print(f"policy    {data['policy']}")
    if robots is not None and robots.sitemaps:
        out.print(f"sitemaps  {', '.join(robots.sitemaps)}")
    for label, decision in decisions:
        out.print(
            Text.assemble(
                ("verdict   ", "bold"),
                verdict_text(decision.allowed),
                f"  {args.url} for {label} ({decision.reason})",
            )
        )
    return code


def _print_certificate(out: Output, certificate: Certificate) -> None:
    if certificate.changed:
        out.print(
            Text(
                f"cert      CHANGED: pinned SHA-256 {certificate.sha256}, the server presented "
                f"{certificate.presented_sha256}; refused (trust on first use). If the change is "
                "legitimate: robotskit cache clear HOST forgets the pin",
                style="bold red",
            )
        )
    elif certificate.sha256:
        out.print(f"cert      SHA-256 {certificate.sha256} (pinned {iso(certificate.first_seen)})")
