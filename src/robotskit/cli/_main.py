"""The argument parser and the dispatcher: which handler runs, and how failures become exit status 2.

`batch` is the batch engineer's command (robotskit.batch.cli): it is imported only when asked
for, and replaced by a stub that explains the missing extra when it cannot be imported.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.text import Text

from robotskit.cli import interrupted
from robotskit.cli._audit import cmd_audit
from robotskit.cli._cache import add_cache_command, cmd_cache
from robotskit.cli._check import cmd_check, cmd_explain
from robotskit.cli._diff import cmd_diff
from robotskit.cli._fetch import cmd_fetch
from robotskit.cli._help import epilog
from robotskit.cli._lint import cmd_lint
from robotskit.cli._output import WARNINGS, Output, PipeClosed
from robotskit.cli._serve import add_serve
from robotskit.cli._sources import ERROR, CliError, default_cache_path
from robotskit.core.profiles import PROFILES
from robotskit.errors import RobotskitError

__all__ = ["build_parser", "main"]

BROKEN_PIPE = 141  # 128 + SIGPIPE: the reader of standard output went away


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
            batch = add_parser(subparsers)
            # Like every subcommand, its --help ends with examples and the exit codes.
            batch.epilog = epilog("batch")
            batch.formatter_class = argparse.RawDescriptionHelpFormatter
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


class _Once(argparse.Action):
    """An option that takes one value: given twice (`--robots A --robots B`), which one was
    meant is a guess, so the command refuses (argparse would keep the last silently)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[object] | None,
        option_string: str | None = None,
    ) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} given twice: give it once")
        setattr(namespace, self.dest, values)


def _seconds(text: str) -> float:
    """A timeout: a finite number of seconds above zero (NaN and infinity would never expire)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, got {text!r}")
    return value


_Opts = dict[str, argparse.ArgumentParser]


def _options() -> _Opts:
    output = argparse.ArgumentParser(add_help=False)
    output.add_argument("--json", action="store_true", help="print one JSON document (docs/cli.md)")
    profile = argparse.ArgumentParser(add_help=False)
    profile.add_argument(
        "--profile",
        choices=tuple(PROFILES),
        help="semantics (default: by URL scheme, gemini for gemini://, else rfc9309)",
    )
    fetching = argparse.ArgumentParser(add_help=False)
    fetching.add_argument(
        "--cache", metavar="PATH|URL", help=f"SQLite file or cache URL (default: {default_cache_path()})"
    )
    fetching.add_argument("--no-cache", action="store_true", help="keep fetched files in memory only")
    fetching.add_argument(
        "--refresh", action="store_true", help="fetch robots.txt again even if the cached copy is fresh"
    )
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


def _command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    parents: list[argparse.ArgumentParser],
    help_text: str,
    description: str | None = None,
) -> argparse.ArgumentParser:
    """A subcommand whose --help ends with its examples and the exit codes."""
    return sub.add_parser(
        name,
        parents=parents,
        help=help_text,
        description=description or help_text,
        epilog=epilog(name),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def build_parser(*, with_batch: bool = True) -> argparse.ArgumentParser:
    """The whole command line. `with_batch=False` registers a light stub for `batch` instead.

    Every subcommand is registered here, in help order: add a new one to this list.
    """
    parser = argparse.ArgumentParser(
        prog="robotskit",
        description="Check, explain, lint, diff and fetch robots.txt files exactly.",
        epilog=epilog("robotskit"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"robotskit {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    opts = _options()
    _add_check(sub, opts)
    _add_explain(sub, opts)
    _add_lint(sub, opts)
    _add_fetch(sub, opts)
    _add_audit(sub, opts)
    _add_diff(sub, opts)
    add_cache_command(sub, epilog("cache"))
    add_serve(sub)
    _add_batch(sub, real=with_batch)
    return parser


_AGENT_HELP = (
    "the crawler's product token, e.g. MyBot; repeat for several agents, each judged separately "
    "(a full user-agent string is reduced to its product token, with a warning)"
)
_ROBOTS_HELP = (
    "ROBOTS is a file, - (stdin), or a URL ending in /robots.txt (http, https, ftp, gemini); a "
    "bare path URL (/x) is joined to ROBOTS' host. Without ROBOTS each URL's own robots.txt is "
    "fetched. The profile follows the URL (gemini for gemini://) unless --profile says otherwise."
)


def _common(opts: dict[str, argparse.ArgumentParser]) -> list[argparse.ArgumentParser]:
    return [opts["output"], opts["profile"], opts["fetching"]]


def _add_check(sub: argparse._SubParsersAction[argparse.ArgumentParser], opts: _Opts) -> None:
    check = _command(
        sub, "check", [*_common(opts), opts["agent"]], "may AGENT fetch these URLs?", _ROBOTS_HELP
    )
    check.add_argument("targets", nargs="*", metavar="[ROBOTS] URL")
    check.add_argument("--agent", action="append", required=True, metavar="NAME", help=_AGENT_HELP)
    check.add_argument(
        "--robots", action=_Once, help="ROBOTS given explicitly (then every positional is a URL)"
    )
    check.add_argument("--urls", metavar="FILE", help="read more URLs from FILE (one per line, - for stdin)")
    check.set_defaults(handler=cmd_check)


def _add_explain(sub: argparse._SubParsersAction[argparse.ArgumentParser], opts: _Opts) -> None:
    explain = _command(
        sub, "explain", [*_common(opts), opts["agent"]], "why is a URL allowed or not?", _ROBOTS_HELP
    )
    explain.add_argument("targets", nargs="+", metavar="[ROBOTS] URL")
    explain.add_argument("--agent", action="append", required=True, metavar="NAME", help=_AGENT_HELP)
    explain.add_argument("--robots", action=_Once, help="ROBOTS given explicitly")
    explain.set_defaults(handler=cmd_explain)


def _add_lint(sub: argparse._SubParsersAction[argparse.ArgumentParser], opts: _Opts) -> None:
    lint_p = _command(sub, "lint", _common(opts), "find problems in a robots.txt (ids in docs/lint.md)")
    lint_p.add_argument("robots", metavar="ROBOTS")
    lint_p.add_argument("--content-type", help="the Content-Type the file is served with")
    lint_p.add_argument(
        "--select", metavar="IDS", help="report only these ids or prefixes, comma-separated (RK3,RK201)"
    )
    lint_p.add_argument("--ignore", metavar="IDS", help="never report these ids or prefixes, comma-separated")
    lint_p.set_defaults(handler=cmd_lint)


def _add_fetch(sub: argparse._SubParsersAction[argparse.ArgumentParser], opts: _Opts) -> None:
    fetch = _command(
        sub,
        "fetch",
        _common(opts),
        "fetch a site's robots.txt as a crawler would",
        "Fetch URL's robots.txt through the cache (--refresh skips it) and say what the outcome "
        "means; Gemini certificates are pinned on first use beside the cache.",
    )
    fetch.add_argument("url", metavar="URL")
    fetch.add_argument("--agent", action="append", metavar="NAME", help="also decide URL for this agent")
    fetch.set_defaults(handler=cmd_fetch)


def _add_audit(sub: argparse._SubParsersAction[argparse.ArgumentParser], opts: _Opts) -> None:
    audit = _command(sub, "audit", _common(opts), "which well-known crawlers does a file block?")
    audit.add_argument("robots", metavar="ROBOTS")
    audit.set_defaults(handler=cmd_audit)


def _add_diff(sub: argparse._SubParsersAction[argparse.ArgumentParser], opts: _Opts) -> None:
    diff = _command(
        sub,
        "diff",
        [*_common(opts), opts["agent"]],
        "which verdicts change between two versions of a robots.txt?",
        "OLD and NEW are each a file, - (stdin, for one of them), or a robots.txt URL. Every URL is "
        "decided for every agent under both files; the verdicts that change are shown with the "
        "deciding lines before and after. Exit 0: nothing changes, 1: something does, 2: trouble.",
    )
    diff.add_argument("old", metavar="OLD")
    diff.add_argument("new", metavar="NEW")
    diff.add_argument(
        "--urls",
        metavar="FILE",
        help="the URLs or paths to compare, one per line (default: / and a path per rule of either file)",
    )
    diff.add_argument(
        "--agent",
        action="append",
        metavar="NAME",
        help="a product token; repeat for several agents, each judged separately "
        "(default: every token either file names, and *)",
    )
    diff.set_defaults(handler=cmd_diff)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("robotskit")
    except PackageNotFoundError:
        return "unknown"


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """parse_args, except that URLs may follow options: `check robots.txt --agent A /x`.

    argparse fills a `nargs="*"` positional once, so positionals after an option come back as
    unrecognized; for commands with [ROBOTS] URL... they are appended in order. Anything else
    unrecognized (an unknown option) is still a usage error.
    """
    args, extras = parser.parse_known_args(argv)
    targets = vars(args).get("targets")
    if extras and isinstance(targets, list) and not any(e.startswith("-") and e != "-" for e in extras):
        targets.extend(extras)
    elif extras:
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    return args


def _dispatch(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    WARNINGS.clear()
    try:
        args = _parse(parser, argv)
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
    except PipeClosed:
        return _pipe_closed()
    except (CliError, RobotskitError, OSError) as exc:
        return _fail(out, args, str(exc))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a defect of robotskit: one line and exit 2, never a traceback
        if interrupted(exc):  # a Ctrl-C while a module loaded, wrapped (robotskit.cli.main)
            return 130
        return _fail(out, args, f"internal error, please report it: {type(exc).__name__}: {exc}")


def _fail(out: Output, args: argparse.Namespace, message: str) -> int:
    """One line on stderr, always; with --json also the error document on stdout (unless
    standard output is what failed: then the line alone)."""
    out.err.print(Text(f"robotskit: error: {message}", style="bold red"))
    if out.json:
        try:
            return out.document(str(args.command), {"error": message}, ERROR)
        except (PipeClosed, OSError, ValueError):
            return ERROR
    return ERROR


def _pipe_closed() -> int:
    """Standard output's reader went away: exit quietly with 128 + SIGPIPE, as a shell tool
    killed by the signal would. Standard output now points at /dev/null, so the interpreter's
    last flush at exit has nowhere to fail."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return BROKEN_PIPE


def _prepare_streams() -> None:
    """Standard streams a command can always write to: a closed one (`>&-`) becomes /dev/null
    (the exit status still gives the verdict), and characters an encoding other than UTF-8
    cannot write (LANG=C, PYTHONIOENCODING=ascii) are written as escapes, not raised."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            setattr(sys, name, Path(os.devnull).open("w", encoding="utf-8"))  # noqa: SIM115 - the process keeps it
        elif isinstance(stream, io.TextIOWrapper):
            with contextlib.suppress(OSError, ValueError):
                stream.reconfigure(errors="backslashreplace")


def _finish(code: int) -> int:
    """Flush standard output now, where a failure can still change the exit status."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return _pipe_closed()
    except (OSError, ValueError) as exc:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"robotskit: error: cannot write standard output: {exc}\n")
        _pipe_closed()  # (the same /dev/null: the interpreter's own flush would fail again)
        return ERROR
    return code


_COMMANDS: frozenset[Callable[..., int]] = frozenset(
    {cmd_check, cmd_explain, cmd_lint, cmd_fetch, cmd_audit, cmd_diff, cmd_cache}
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (the console script exits with it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    _prepare_streams()
    if args[:1] == ["batch"]:
        return _run_batch(args)
    return _finish(_dispatch(build_parser(with_batch=False), args))
