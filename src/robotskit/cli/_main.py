"""The argument parser and the dispatcher: which handler runs, and how failures become exit status 2.

`batch` is the batch engineer's command (robotskit.batch.cli): it is imported only when asked
for, and replaced by a stub that explains the missing extra when it cannot be imported.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence

from rich.text import Text

from robotskit.cli._audit import cmd_audit
from robotskit.cli._check import cmd_check, cmd_explain
from robotskit.cli._fetch import cmd_fetch
from robotskit.cli._lint import cmd_lint
from robotskit.cli._output import Output
from robotskit.cli._sources import ERROR, CliError, default_cache_path
from robotskit.errors import RobotskitError

__all__ = ["build_parser", "main"]


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


def _seconds(text: str) -> float:
    """A timeout: a finite number of seconds above zero (NaN and infinity would never expire)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, got {text!r}")
    return value


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
    fetching.add_argument(
        "--timeout", type=_seconds, default=10.0, help="total seconds per request (default 10)"
    )
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
    _add_file_commands(sub, common)
    _add_batch(sub, real=with_batch)
    return parser


def _add_file_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: list[argparse.ArgumentParser]
) -> None:
    """Register the commands about one file or site: lint, fetch and audit."""
    lint_p = sub.add_parser("lint", parents=common, help="find problems in a robots.txt")
    lint_p.add_argument("robots", metavar="ROBOTS")
    lint_p.add_argument("--content-type", help="the Content-Type the file is served with")
    lint_p.add_argument(
        "--select", metavar="IDS", help="report only these ids or prefixes, comma-separated (RK3,RK201)"
    )
    lint_p.add_argument("--ignore", metavar="IDS", help="never report these ids or prefixes, comma-separated")
    lint_p.set_defaults(handler=cmd_lint)

    fetch = sub.add_parser("fetch", parents=common, help="fetch a site's robots.txt as a crawler would")
    fetch.add_argument("url", metavar="URL")
    fetch.add_argument("--agent", help="also decide URL for this agent")
    fetch.set_defaults(handler=cmd_fetch)

    audit = sub.add_parser("audit", parents=common, help="which well-known crawlers does a file block?")
    audit.add_argument("robots", metavar="ROBOTS")
    audit.set_defaults(handler=cmd_audit)


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
