"""The `robotskit` command line: check, explain, lint, fetch, audit and batch.

Owns argument parsing, reading ROBOTS (a file, `-` for stdin, or a robots.txt URL fetched
with `RobotsClient`), and rendering: a readable default (colour only on a terminal, NO_COLOR
respected, via rich) and one stable JSON document per command with `--json` (docs/cli.md).
Exit codes follow Google's robots_main: 0 allowed / clean, 1 disallowed / findings, 2 usage
or I/O error. It uses only the public API; `audit` and `batch` are imported on demand.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urljoin, urlsplit

from rich.console import Console
from rich.text import Text

import robotskit
from robotskit._authority import authority_key
from robotskit._model import Decision, Diagnostic, Rule, Severity
from robotskit.errors import RobotskitError
from robotskit.lint import lint, match_end

if TYPE_CHECKING:
    from robotskit import RobotsTxt
    from robotskit.client import RobotsClient
    from robotskit.policy import RobotsEntry

__all__ = ["build_parser", "default_cache_path", "main"]

OK, FOUND, ERROR = 0, 1, 2  # Google's robots_main convention
JSON_VERSION = 1  # bumped only on incompatible changes to a --json document
URL_SCHEMES = ("http", "https", "ftp", "gemini")
PROGRESS_MIN = 20  # show a progress bar from this many URLs (on a terminal only)
_T = TypeVar("_T")


class CliError(Exception):
    """A usage or I/O problem: reported on stderr (or as JSON) with exit code 2."""


# --------------------------------------------------------------------------- sources


def default_cache_path() -> Path:
    """The SQLite cache file: $ROBOTSKIT_CACHE, else the user's cache dir (XDG on Unix)."""
    if override := os.environ.get("ROBOTSKIT_CACHE"):
        return Path(override)
    if base := os.environ.get("XDG_CACHE_HOME"):
        root = Path(base)
    elif sys.platform == "win32":
        root = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        root = Path.home() / "Library" / "Caches"
    else:
        root = Path.home() / ".cache"
    return root / "robotskit" / "robots.db"


def _cache_spec(args: argparse.Namespace) -> str:
    if args.no_cache:
        return "memory://"
    if args.cache and "://" in args.cache:
        return str(args.cache)
    path = Path(args.cache) if args.cache else default_cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite://{path.resolve()}"  # sqlite:///abs/path.db


def _is_url(text: str) -> bool:
    return urlsplit(text).scheme.lower() in URL_SCHEMES and "://" in text


def _is_robots_url(text: str) -> bool:
    """A URL naming a robots.txt itself: robots.txt lives only at `/robots.txt` (SPEC.md 6)."""
    return _is_url(text) and urlsplit(text).path == "/robots.txt"


def split_targets(targets: Sequence[str], robots: str | None) -> tuple[str | None, list[str]]:
    """Tell ROBOTS from the URLs to check.

    With `--robots`, every positional is a URL. Otherwise the first positional is ROBOTS when
    it is `-`, anything that is not a URL (a file path), or a URL whose path is `/robots.txt`;
    if it is any other URL, there is no ROBOTS and each URL's own robots.txt is fetched.
    """
    if robots is not None or not targets:
        return robots, list(targets)
    first = targets[0]
    if first == "-" or not _is_url(first) or _is_robots_url(first):
        return first, list(targets[1:])
    return None, list(targets)


def _read_local(source: str) -> bytes:
    if source == "-":
        stream = sys.stdin
        buffer = getattr(stream, "buffer", None)
        return buffer.read() if buffer is not None else stream.read().encode("utf-8")
    try:
        return Path(source).read_bytes()
    except OSError as exc:
        raise CliError(f"cannot read {source}: {exc.strerror or exc}") from exc


@dataclass(frozen=True, slots=True)
class Loaded:
    """A ROBOTS argument, read: the parsed file (None if the fetch gave no file) and where it came from."""

    source: str
    robots: RobotsTxt | None
    entry: RobotsEntry | None = None


def _client(args: argparse.Namespace, agent: str | robotskit.Agent | None = None) -> RobotsClient:
    from robotskit.client import RobotsClient  # noqa: PLC0415 - only commands that fetch need it

    return RobotsClient(
        agent if agent is not None else _agent(args),
        user_agent=getattr(args, "user_agent", None),
        cache=_cache_spec(args),
        profile=getattr(args, "profile", None),
        timeout=args.timeout,
    )


def load(source: str, args: argparse.Namespace, client: RobotsClient | None = None) -> Loaded:
    """Read ROBOTS: a file or stdin is parsed; a robots.txt URL is fetched through the client."""
    profile = getattr(args, "profile", None)
    if _is_url(source):
        own = client is None
        active = client or _client(args, "robotskit")
        try:
            entry = active.lookup(source)
        finally:
            if own:
                active.close()
        return Loaded(source, entry.parsed(profile), entry)
    if "://" in source:
        raise CliError(f"unsupported URL scheme in {source!r}: use one of {', '.join(URL_SCHEMES)}")
    return Loaded(source, robotskit.parse(_read_local(source), profile))


def _agent(args: argparse.Namespace) -> str | robotskit.Agent:
    purposes = tuple(getattr(args, "purpose", None) or ())
    aliases = tuple(getattr(args, "alias", None) or ())
    token = getattr(args, "agent", None) or "robotskit"
    if not purposes and not aliases:
        return str(token)
    return robotskit.Agent(token, purposes=purposes, aliases=aliases, combine=args.combine)


# --------------------------------------------------------------------------- output


class Output:
    """Where a command writes: rich consoles for people, plain JSON for programs."""

    def __init__(self, as_json: bool) -> None:
        self.json = as_json
        # rich turns colour off when the stream is not a terminal and honours NO_COLOR.
        self.out = Console(file=sys.stdout, highlight=False, soft_wrap=True, emoji=False)
        self.err = Console(file=sys.stderr, highlight=False, soft_wrap=True, emoji=False)

    def print(self, *parts: str | Text) -> None:
        self.out.print(*parts)

    def document(self, command: str, body: dict[str, Any], exit_code: int) -> int:
        doc = {"command": command, "version": JSON_VERSION, **body, "exit_code": exit_code}
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        return exit_code

    def progress(self, items: Sequence[_T], label: str) -> Iterator[_T]:
        """Yield `items`, with a progress bar on stderr for long runs on a terminal only."""
        if self.json or len(items) < PROGRESS_MIN or not self.err.is_terminal:
            yield from items
            return
        from rich.progress import track  # noqa: PLC0415 - only long terminal runs need it

        yield from track(items, description=label, console=self.err, transient=True)


def _rule_json(rule: Rule | None) -> dict[str, Any] | None:
    if rule is None:
        return None
    return {
        "line": rule.line,
        "kind": str(rule.kind),
        "pattern": rule.pattern,
        "raw": rule.raw,
        "derived": rule.derived,
    }


def _decision_json(url: str, decision: Decision) -> dict[str, Any]:
    return {
        "url": url,
        "allowed": decision.allowed,
        "reason": decision.reason,
        "profile": decision.profile,
        "path": decision.path,
        "tokens": list(decision.tokens),
        "groups": list(decision.groups),
        "rule": _rule_json(decision.rule),
        "source": decision.source,
    }


def _rule_label(rule: Rule) -> str:
    return f"{'Allow' if rule.allow else 'Disallow'}: {rule.raw or rule.pattern}"


def _verdict(allowed: bool) -> Text:
    return Text("allowed   ", style="bold green") if allowed else Text("disallowed", style="bold red")


def _iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, tz=UTC).isoformat(timespec="seconds")


# --------------------------------------------------------------------------- check


def _read_url_file(path: str) -> list[str]:
    text = _read_local(path).decode("utf-8", "replace")
    return [s for s in (line.strip() for line in text.splitlines()) if s and not s.startswith("#")]


def _decide_all(
    args: argparse.Namespace, out: Output, source: str | None, urls: list[str]
) -> list[tuple[str, Decision]]:
    agent = _agent(args)
    results: list[tuple[str, Decision]] = []
    if source is not None and not _is_url(source):
        robots = robotskit.parse(_read_local(source), args.profile)
        return [(url, robots.decide(url, agent)) for url in out.progress(urls, "checking")]
    with _client(args, agent) as client:
        for url in out.progress(urls, "checking"):
            results.append((url, client.decide(_on_authority(source, url))))
    return results


def _on_authority(source: str | None, url: str) -> str:
    """The absolute URL to decide when ROBOTS is a URL (or absent): bare paths join its authority."""
    if source is None:
        if not _is_url(url):
            raise CliError(f"{url!r} is not an absolute URL: give ROBOTS, or URLs with a scheme and host")
        return url
    target = urljoin(source, url) if url.startswith("/") else url
    # Rules cover only their own scheme, host and port (SPEC.md 6).
    if not _is_url(target) or authority_key(target) != authority_key(source):
        raise CliError(f"{url} is not covered by {source}: a robots.txt rules only its own host")
    return target


def cmd_check(args: argparse.Namespace, out: Output) -> int:
    source, urls = split_targets(args.targets, args.robots)
    if args.urls:
        urls += _read_url_file(args.urls)
    if not urls:
        raise CliError("no URL to check: robotskit check [ROBOTS] URL... --agent NAME")
    results = _decide_all(args, out, source, urls)
    code = OK if all(d.allowed for _, d in results) else FOUND
    if out.json:
        allowed = sum(d.allowed for _, d in results)
        body = {
            "robots": source,
            "agent": args.agent,
            "purposes": list(args.purpose or ()),
            "results": [_decision_json(url, d) for url, d in results],
            "summary": {"total": len(results), "allowed": allowed, "disallowed": len(results) - allowed},
        }
        return out.document("check", body, code)
    for url, decision in results:
        line = Text.assemble(_verdict(decision.allowed), "  ", url, "  ")
        detail = (
            f"line {decision.rule.line}: {_rule_label(decision.rule)}" if decision.rule else decision.reason
        )
        line.append(f"({detail})", style="dim")
        out.print(line)
    return code


# --------------------------------------------------------------------------- explain


def _numbered(robots: RobotsTxt, number: int, highlight: str = "") -> Text:
    raw = robots.lines[number - 1].raw if 0 < number <= len(robots.lines) else ""
    text = Text(f"{number:>5} | ", style="dim")
    line = Text(raw)
    if highlight and (start := raw.find(highlight)) >= 0:
        line.stylize("bold reverse", start, start + len(highlight))
    return text + line


def _group_reason(robots: RobotsTxt, line: int, token: str) -> str:
    group = next((g for g in robots.groups if line in g.agent_lines or g.line == line), None)
    if group is None:
        return ""
    if line == 0 or not group.agent_lines:
        return "rules before any user-agent (the Gemini profile applies them to every agent)"
    if token in group.agents:
        return f"names '{token}'" if token != "*" else "the '*' group"
    return f"the '*' group: no group names '{token}'"


def _explain_json(robots: RobotsTxt, decision: Decision) -> list[dict[str, Any]]:
    verdicts = []
    for verdict in decision.verdicts:
        deciding = verdict.matched[0] if verdict.matched else verdict.rule
        end = match_end(deciding.pattern, decision.path) if deciding else None
        verdicts.append(
            {
                "token": verdict.token,
                "allowed": verdict.allowed,
                "groups": [
                    {"line": g, "why": _group_reason(robots, g, verdict.token)} for g in verdict.groups
                ],
                "rule": _rule_json(deciding),
                "matched_path": decision.path[:end] if end is not None else None,
                "lost": [_rule_json(r) for r in verdict.matched[1:]],
            }
        )
    return verdicts


def _render_verdict(out: Output, robots: RobotsTxt, decision: Decision, index: int) -> None:
    verdict = decision.verdicts[index]
    out.print(Text.assemble("token ", (repr(verdict.token), "bold"), ": ", _verdict(verdict.allowed)))
    if not verdict.groups:
        out.print("  no group applies to it, so nothing is disallowed")
    for line in verdict.groups:
        out.print(
            Text.assemble("  group at line ", str(line), ": ", _group_reason(robots, line, verdict.token))
        )
    deciding = verdict.matched[0] if verdict.matched else verdict.rule
    if deciding is None:
        out.print("  no rule matched: allowed (RFC 9309 2.2.2)")
        return
    out.print("  deciding rule (the longest match; allow wins ties):")
    out.print(Text("  ") + _numbered(robots, deciding.line, deciding.raw or deciding.pattern))
    end = match_end(deciding.pattern, decision.path)
    if end is not None:
        path = Text(decision.path)
        path.stylize("bold reverse", 0, end)
        out.print(Text("  path  ") + path)
        out.print(Text("        " + "^" * max(end, 1), style="bold"))
    lost = verdict.matched[1:]
    if lost:
        out.print("  also matched, but lost:")
    for rule in lost:
        out.print(Text("  ") + _numbered(robots, rule.line, rule.raw or rule.pattern))


def cmd_explain(args: argparse.Namespace, out: Output) -> int:
    source, urls = split_targets(args.targets, args.robots)
    if len(urls) != 1:
        raise CliError("explain takes one URL: robotskit explain [ROBOTS] URL --agent NAME")
    url, agent = urls[0], _agent(args)
    entry = None
    if source is None or _is_url(source):
        target = _on_authority(source, url)
        with _client(args, agent) as client:
            loaded = load(source or target, args, client)
            entry = loaded.entry
            policy = client.decide(target)
        robots = loaded.robots
        # The client's decision carries the fetch outcome; the file, when there is one, explains it.
        decision = robots.decide(target, agent, explain=True) if robots is not None else policy
    else:
        robots = robotskit.parse(_read_local(source), args.profile)
        decision = robots.decide(url, agent, explain=True)
    code = OK if decision.allowed else FOUND
    if out.json:
        body = {
            "robots": source,
            "url": url,
            "agent": args.agent,
            **_decision_json(url, decision),
            "fetch": _entry_json(entry) if entry else None,
            "verdicts": _explain_json(robots, decision) if robots else [],
        }
        body.pop("url")
        return out.document("explain", {"url": url, **body}, code)
    out.print(Text.assemble(_verdict(decision.allowed), "  ", url))
    out.print(f"profile {decision.profile}; path {decision.path or '/'}; reason: {decision.reason}")
    if entry is not None:
        out.print(f"robots.txt {entry.robots_url}: {entry.outcome} ({entry.reason})")
    if robots is not None:
        for index in range(len(decision.verdicts)):
            _render_verdict(out, robots, decision, index)
    return code


# --------------------------------------------------------------------------- lint


def _caret(raw: str, diag: Diagnostic) -> str:
    if diag.column <= 0:
        return ""
    start = min(diag.column - 1, len(raw))
    width = diag.length or max(len(raw) - start, 1)
    return " " * start + "^" * width


_SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.INFO: "bold cyan"}


def cmd_lint(args: argparse.Namespace, out: Output) -> int:
    loaded = load(args.robots, args)
    if loaded.robots is None:
        reason = loaded.entry.reason if loaded.entry else "no file"
        raise CliError(f"cannot read {args.robots}: {reason}")
    robots = loaded.robots
    diagnostics = lint(robots, profile=args.profile, content_type=args.content_type)
    code = FOUND if any(d.severity is not Severity.INFO for d in diagnostics) else OK
    counts = {str(s): sum(d.severity is s for d in diagnostics) for s in Severity}
    if out.json:
        items = [
            {
                "code": d.code,
                "severity": str(d.severity),
                "line": d.line,
                "column": d.column,
                "length": d.length,
                "message": d.message,
                "hint": d.hint,
                "text": robots.lines[d.line - 1].raw if 0 < d.line <= len(robots.lines) else "",
            }
            for d in diagnostics
        ]
        return out.document("lint", {"robots": args.robots, "diagnostics": items, "summary": counts}, code)
    for diag in diagnostics:
        out.print(
            Text.assemble(
                (f"{args.robots}:{diag.line}:{diag.column}: ", "bold"),
                (f"{diag.severity} {diag.code}", _SEVERITY_STYLE[diag.severity]),
                f" {diag.message}",
            )
        )
        raw = robots.lines[diag.line - 1].raw if 0 < diag.line <= len(robots.lines) else ""
        if raw:
            out.print(Text(f"{diag.line:>5} | ", style="dim") + Text(raw))
        if caret := _caret(raw, diag):
            out.print(Text("      | ", style="dim") + Text(caret, style=_SEVERITY_STYLE[diag.severity]))
        if diag.hint:
            out.print(Text(f"      = hint: {diag.hint}", style="dim"))
    summary = ", ".join(f"{n} {name}{'s' if n != 1 else ''}" for name, n in counts.items())
    out.print(Text(f"{args.robots}: {summary}" if diagnostics else f"{args.robots}: clean", style="bold"))
    return code


# --------------------------------------------------------------------------- fetch


_POLICY = {
    "ok": "the file's rules apply",
    "unavailable": "no usable robots.txt: everything is allowed (RFC 9309 2.3.1.3)",
    "unreachable": "robots.txt unreachable: everything is disallowed until it can be read (RFC 9309 2.3.1.4)",
}


def _entry_json(entry: RobotsEntry) -> dict[str, Any]:
    return {
        "authority": entry.authority,
        "robots_url": entry.robots_url,
        "outcome": str(entry.outcome),
        "policy": _POLICY.get(str(entry.outcome), ""),
        "status": entry.status,
        "protocol": entry.protocol,
        "reason": entry.reason,
        "redirects": list(entry.redirects),
        "size": entry.size,
        "truncated": entry.truncated,
        "fetched_at": _iso(entry.fetched_at),
        "expires_at": _iso(entry.expires_at),
        "stale": entry.stale,
        "retry_after": entry.retry_after,
    }


def cmd_fetch(args: argparse.Namespace, out: Output) -> int:
    if not _is_url(args.url):
        raise CliError(f"{args.url!r} is not a URL: fetch takes http(s)://, ftp:// or gemini://")
    with _client(args) as client:
        entry = client.lookup(args.url)
        decision = client.decide(args.url) if args.agent else None
    code = OK if decision is None or decision.allowed else FOUND
    robots = entry.robots
    if out.json:
        body = {
            "url": args.url,
            "agent": args.agent,
            "fetch": _entry_json(entry),
            "sitemaps": list(robots.sitemaps) if robots else [],
            "decision": _decision_json(args.url, decision) if decision else None,
        }
        return out.document("fetch", body, code)
    data = _entry_json(entry)
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
                ("verdict   ", "bold"), _verdict(decision.allowed), f"  {args.url} ({decision.reason})"
            )
        )
    return code


# --------------------------------------------------------------------------- audit and batch


_STATUS_STYLE = {"full": "bold red", "partial": "yellow", "none": "green"}


def _render_audit(out: Output, report: dict[str, Any]) -> None:
    """A table of the audit (schema in docs/audit.md): one row per crawler, blocked ones first."""
    from rich.table import Table  # noqa: PLC0415 - only the human audit needs it

    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("crawler", "operator", "for", "blocked", "group", "notes"):
        table.add_column(column)
    order = {"full": 0, "partial": 1, "none": 2}
    for item in sorted(report["crawlers"], key=lambda c: (order.get(c["status"], 3), c["token"].lower())):
        notes = [*item.get("notes", ())]
        if item.get("ignored_rules"):
            notes.append(f"{len(item['ignored_rules'])} rule(s) do nothing for it")
        table.add_row(
            item["token"],
            item.get("operator", ""),
            ", ".join(item.get("categories", ())),
            Text(item["status"], style=_STATUS_STYLE.get(item["status"], "")),
            "own" if item.get("own_group") else "*",
            "; ".join(notes),
        )
    out.out.print(table)
    summary = report.get("summary", {})
    out.print(
        f"blocked fully: {summary.get('full', 0)}, partly: {summary.get('partial', 0)}, "
        f"not at all: {summary.get('none', 0)}"
    )
    for unknown in report.get("unknown_agents", ()):
        hint = f" (did you mean {unknown['suggestion']}?)" if unknown.get("suggestion") else ""
        out.print(f"line {unknown['line']}: '{unknown['token']}' is not a known crawler{hint}")


def cmd_audit(args: argparse.Namespace, out: Output) -> int:
    try:
        from robotskit.audit import audit  # noqa: PLC0415 - the crawler table loads on demand
    except ImportError as exc:
        raise CliError(f"robotskit audit is not available: {exc}") from exc
    loaded = load(args.robots, args)
    if loaded.robots is None:
        raise CliError(f"cannot read {args.robots}: {loaded.entry.reason if loaded.entry else 'no file'}")
    report = audit(loaded.robots)
    if out.json:
        return out.document("audit", {"robots": args.robots, "report": report.to_dict()}, OK)
    _render_audit(out, report.to_dict())
    return OK


def _batch_unavailable(args: argparse.Namespace, out: Output) -> int:
    raise CliError(
        "robotskit batch needs the batch extra (dask, pyarrow, warcio, matplotlib): "
        f"pip install 'robotskit[batch]' ({args.batch_error})"
    )


def _add_batch(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], real: bool) -> None:
    """Register `batch`: the batch engineer's parser when asked for and importable, else a stub."""
    error = "not loaded"
    if real:
        try:
            from robotskit.batch.cli import add_parser  # noqa: PLC0415 - heavy optional extra
        except ImportError as exc:
            error = str(exc)
        else:
            add_parser(subparsers)
            return
    stub = subparsers.add_parser(
        "batch", help="audit many robots.txt files (needs robotskit[batch])", add_help=False
    )
    stub.add_argument("rest", nargs=argparse.REMAINDER)
    stub.set_defaults(handler=_batch_unavailable, batch_error=error)


def _run_batch(argv: list[str]) -> int:
    """`robotskit batch ...`: parse with the real batch parser, or explain the missing extra."""
    parser = argparse.ArgumentParser(prog="robotskit")
    subparsers = parser.add_subparsers(dest="command")
    _add_batch(subparsers, real=True)
    return _dispatch(parser, argv)


# --------------------------------------------------------------------------- parser


def _options() -> dict[str, argparse.ArgumentParser]:
    output = argparse.ArgumentParser(add_help=False)
    output.add_argument("--json", action="store_true", help="print one JSON document (docs/cli.md)")
    profile = argparse.ArgumentParser(add_help=False)
    profile.add_argument(
        "--profile",
        choices=("rfc9309", "google", "gemini"),
        help="semantics (default: by URL scheme, gemini for gemini://, else rfc9309)",
    )
    fetching = argparse.ArgumentParser(add_help=False)
    fetching.add_argument(
        "--cache", metavar="PATH|URL", help=f"SQLite file or cache URL (default: {default_cache_path()})"
    )
    fetching.add_argument("--no-cache", action="store_true", help="keep fetched files in memory only")
    fetching.add_argument("--timeout", type=float, default=10.0, help="seconds per request (default 10)")
    fetching.add_argument("--user-agent", help="User-Agent header sent when fetching")
    agent = argparse.ArgumentParser(add_help=False)
    agent.add_argument(
        "--purpose",
        action="append",
        metavar="P",
        help="a purpose (Gemini virtual agent: archiver, indexer, researcher, webproxy); repeatable",
    )
    agent.add_argument("--alias", action="append", metavar="TOKEN", help="another token of the same crawler")
    agent.add_argument(
        "--combine",
        choices=("merge", "most_restrictive"),
        default="merge",
        help="how alias tokens combine (default merge, as Google does)",
    )
    return {"output": output, "profile": profile, "fetching": fetching, "agent": agent}


def build_parser(*, with_batch: bool = True) -> argparse.ArgumentParser:
    """The whole command line. `with_batch=False` registers a light stub for `batch` instead."""
    parser = argparse.ArgumentParser(
        prog="robotskit",
        description="Check, explain, lint and fetch robots.txt files exactly.",
        epilog="exit status: 0 allowed/clean, 1 disallowed/findings, 2 usage or I/O error",
    )
    parser.add_argument("--version", action="version", version=f"robotskit {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    opts = _options()
    common = [opts["output"], opts["profile"], opts["fetching"]]

    check = sub.add_parser(
        "check",
        parents=[*common, opts["agent"]],
        help="may AGENT fetch these URLs?",
        description="ROBOTS is a file, - (stdin), or a URL ending in /robots.txt; without "
        "ROBOTS each URL's own robots.txt is fetched.",
    )
    check.add_argument("targets", nargs="*", metavar="[ROBOTS] URL")
    check.add_argument("--agent", required=True, help="the crawler's product token, e.g. MyBot")
    check.add_argument("--robots", help="ROBOTS given explicitly (then every positional is a URL)")
    check.add_argument("--urls", metavar="FILE", help="read more URLs from FILE (one per line, - for stdin)")
    check.set_defaults(handler=cmd_check)

    explain = sub.add_parser("explain", parents=[*common, opts["agent"]], help="why is a URL allowed or not?")
    explain.add_argument("targets", nargs="+", metavar="[ROBOTS] URL")
    explain.add_argument("--agent", required=True)
    explain.add_argument("--robots", help="ROBOTS given explicitly")
    explain.set_defaults(handler=cmd_explain)

    lint_p = sub.add_parser("lint", parents=common, help="find problems in a robots.txt")
    lint_p.add_argument("robots", metavar="ROBOTS")
    lint_p.add_argument("--content-type", help="the Content-Type the file is served with")
    lint_p.set_defaults(handler=cmd_lint)

    fetch = sub.add_parser("fetch", parents=common, help="fetch a site's robots.txt as a crawler would")
    fetch.add_argument("url", metavar="URL")
    fetch.add_argument("--agent", help="also decide URL for this agent")
    fetch.set_defaults(handler=cmd_fetch)

    audit = sub.add_parser("audit", parents=common, help="which well-known crawlers does a file block?")
    audit.add_argument("robots", metavar="ROBOTS")
    audit.set_defaults(handler=cmd_audit)

    _add_batch(sub, real=with_batch)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("robotskit")
    except PackageNotFoundError:
        return "unknown"


def _dispatch(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help / --version
        return exc.code if isinstance(exc.code, int) else ERROR
    handler: Callable[..., int] | None = getattr(args, "handler", None) or getattr(args, "func", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return ERROR
    out = Output(bool(getattr(args, "json", False)))
    try:
        if handler in _COMMANDS or handler is _batch_unavailable:
            return int(handler(args, out))
        return int(handler(args))  # a handler registered by the batch engineer: func(args) -> int
    except (CliError, RobotskitError, OSError) as exc:
        return _fail(out, args, str(exc))
    except KeyboardInterrupt:
        return 130


def _fail(out: Output, args: argparse.Namespace, message: str) -> int:
    if out.json:
        return out.document(str(args.command), {"error": message}, ERROR)
    out.err.print(Text(f"robotskit: error: {message}", style="bold red"))
    return ERROR


_COMMANDS: frozenset[Callable[..., int]] = frozenset({cmd_check, cmd_explain, cmd_lint, cmd_fetch, cmd_audit})


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (the console script exits with it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["batch"]:
        return _run_batch(args)
    return _dispatch(build_parser(with_batch=False), args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
