"""`robotskit batch INPUT... --out results.parquet` and `robotskit batch report results.parquet`.

`robotskit.cli` registers this lazily through `add_parser(subparsers)`; handlers take the
parsed arguments and return the exit status (0 done, 2 usage or input error).
`report` is recognised as the first positional word, so `batch` keeps plain positional
inputs (argparse cannot mix a default command with sub-commands).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from robotskit.batch._values import Interrupted, WorkerLost
from robotskit.core.profiles import PROFILES
from robotskit.errors import RobotskitError
from robotskit.policy.authority import SUPPORTED_SCHEMES

ERROR = 2


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the `batch` command (and its `report` form) on `subparsers`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "batch",
        help="audit many robots.txt captures (WARC, directories, host lists) into Parquet",
        description="Judge every capture for a list of agents and write one Parquet row per capture. "
        "`robotskit batch report RESULTS.parquet` renders tables and PNG plots of a results file.",
    )
    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="WARC files (.warc, .warc.gz), directories of robots.txt files, or files of host "
        "names (one per line); or `report RESULTS.parquet`",
    )
    parser.add_argument("--out", default="results.parquet", help="results file (default results.parquet)")
    parser.add_argument(
        "--agents",
        metavar="FILE",
        help="agents to judge (default: the bundled crawler table "
        "plus Gemini's virtual agents); format in docs/batch.md",
    )
    parser.add_argument("--paths", metavar="FILE", help="sample paths to judge besides `/`, one per line")
    parser.add_argument("--profile", choices=tuple(PROFILES), help="semantics (default: by URL scheme)")
    parser.add_argument(
        "--scheduler",
        default="local",
        help="`local` (default: one worker process per core), `sync` (this process), `dask` "
        "(a Dask LocalCluster of one worker process per core), or a Dask scheduler address "
        "such as tcp://host:8786",
    )
    parser.add_argument(
        "--workers", type=int, help="worker processes under local or dask (default: every core)"
    )
    parser.add_argument(
        "--chunk", type=int, default=200, help="files or hosts per unit of work (default 200)"
    )
    parser.add_argument(
        "--max-bytes", type=int, default=512_000, help="parse limit per file (default 512000)"
    )
    parser.add_argument("--no-lint", action="store_true", help="skip lint rules (parser diagnostics stay)")
    fetching = parser.add_argument_group("host lists (live fetches with robotskit.RobotsClient)")
    fetching.add_argument("--user-agent", default="robotskit-batch", help="User-Agent sent when fetching")
    fetching.add_argument(
        "--cache", help="cache URL shared by the fetches (memory://, sqlite:///x.db, redis://)"
    )
    fetching.add_argument("--timeout", type=float, default=10.0, help="seconds per request (default 10)")
    fetching.add_argument(
        "--concurrency", type=int, default=16, help="fetches in flight per unit (default 16)"
    )
    fetching.add_argument("--per-host", type=int, default=1, help="fetches in flight per host (default 1)")
    fetching.add_argument("--scheme", default="https", help="scheme for bare host names (default https)")
    report = parser.add_argument_group("report (robotskit batch report RESULTS.parquet)")
    report.add_argument("--report-dir", help="where report PNGs and tables go (default: RESULTS.report/)")
    report.add_argument("--top", type=int, default=30, help="agents shown in the blocking table (default 30)")
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: on a terminal)",
    )
    parser.set_defaults(handler=handle)
    _one_line_errors(parser)
    return parser


def _one_line_errors(parser: argparse.ArgumentParser) -> None:
    """Usage errors (a value of the wrong type, an unknown option) as one line on stderr and exit
    2, without argparse's usage block; `--help` is untouched. Unknown arguments are refused here
    too, not passed up to the parent parser (which would print its own usage)."""
    known = parser.parse_known_args
    words: list[str] = []  # what is being parsed, for the hint in _usage_message

    def error(message: str) -> NoReturn:
        _error(_usage_message(message, words))
        parser.exit(ERROR)

    def parse_known_args(
        args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        words[:] = sys.argv[1:] if args is None else args
        parsed, extras = known(args, namespace)
        if extras:
            error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras

    parser.error = error  # type: ignore[method-assign]
    parser.parse_known_args = parse_known_args  # type: ignore[method-assign,assignment]


_EXPECTED_VALUE = re.compile(r"argument (?P<option>--[\w-]+)(?:/\S+)?: expected one argument")


def _usage_message(message: str, words: Sequence[str]) -> str:
    """argparse's message, made clear where it misreads a value: in `--timeout -inf`, `-inf` is
    taken for an option (argparse reads only digits after '-' as a negative number)."""
    found = _EXPECTED_VALUE.fullmatch(message)
    if found is None:
        return message
    option = found["option"]
    after = [words[i + 1] for i, word in enumerate(words[:-1]) if word == option]
    value = next((word for word in after if word.startswith("-")), None)
    if value is None:
        return message
    return f"{message}: {value!r} reads as an option; write {option}={value}"


EXTRA_HINT = "robotskit batch needs the batch extra: pip install 'robotskit[batch]'"
INTERRUPTED = 130  # 128 + SIGINT, as shells report it
BROKEN_PIPE = 141  # 128 + SIGPIPE: the reader went away; nothing more to say


class _PipeClosed(Exception):
    """stdout's reader has gone (`robotskit batch ... | head -1`)."""


def handle(args: argparse.Namespace) -> int:
    """Run `batch` or `batch report`; failures print one line on stderr and return 2."""
    try:
        if args.inputs[0] == "report":
            return _report(args)
        return _run(args)
    except _PipeClosed:
        return BROKEN_PIPE
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in _EXTRA_MODULES:
            return _error(f"{EXTRA_HINT} (missing: {exc.name})")
        return _error(str(exc))
    except Interrupted as exc:
        _error(
            f"interrupted; {exc.done} of {exc.total} units are done and kept in {exc.parts}/; "
            "run the same command again to resume",
            prefix="",
        )
        return INTERRUPTED
    except KeyboardInterrupt:
        _error("interrupted; run the same command again to resume", prefix="")
        return INTERRUPTED
    except (ImportError, OSError, ValueError, WorkerLost) as exc:
        return _error(str(exc))


_EXTRA_MODULES = frozenset({"pyarrow", "warcio", "dask", "distributed", "matplotlib"})


def _error(message: str, prefix: str = "error: ") -> int:
    """One line on stderr, whatever the message (some library errors run over several lines)."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    line = lines[0] + (" ..." if len(lines) > 1 else "") if lines else "failed"
    with contextlib.suppress(OSError):
        print(f"robotskit batch: {prefix}{line}", file=sys.stderr, flush=True)
    return ERROR


def _say(text: str) -> None:
    """Print to stdout; a closed pipe ends the command quietly (no traceback, no Errno 32)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        # Point stdout at /dev/null so the interpreter's final flush does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        raise _PipeClosed from None


# Options that count something: 0 or less would run nothing (`--chunk 0` wrote no rows) or
# fail every row, and the run would still end with exit 0.
_COUNTS = ("chunk", "workers", "max_bytes", "concurrency", "per_host")
# A robots.txt line (RFC 9309 2.2, and the common extensions); `allow:8080` (a host `allow` and
# its port) stays a host-list line.
_DIRECTIVE = re.compile(r"\s*(user-agent|allow|disallow|sitemap|crawl-delay)\s*:(?!\d+\s*$)", re.I)
_SNIFF_LINES = 50  # meaningful lines of a host list looked at for robots.txt directives


def _check_options(args: argparse.Namespace) -> None:
    """Refuse option values that cannot work, before anything runs (ValueError: one line, exit 2)."""
    for name in _COUNTS:
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be a whole number above 0, not {value}")
    # NaN and infinity never time out; 0 or less fails every fetch.
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        raise ValueError(f"--timeout must be a positive number of seconds (finite), not {args.timeout}")
    if args.scheme.lower() not in SUPPORTED_SCHEMES:
        schemes = ", ".join(sorted(SUPPORTED_SCHEMES))
        raise ValueError(f"--scheme {args.scheme!r} is not a scheme robotskit fetches ({schemes})")
    if args.cache is not None:
        _check_cache(args.cache)


def _check_cache(spec: str) -> None:
    """Open the --cache once: each unit's client opens it, and a bad one made every row an error."""
    from robotskit.cache import open_cache  # noqa: PLC0415

    try:
        open_cache(spec).close()
    except (RobotskitError, ValueError) as exc:  # ValueError: urlsplit, a broken [IPv6] host
        raise ValueError(f"--cache: {exc}") from exc


def _check_host_lists(inputs: Sequence[str]) -> None:
    """Refuse a robots.txt file given where a host list goes: read as hosts, each of its lines
    would be an error row. (batch.inputs reads any file that is neither WARC nor a directory as a
    host list.)"""
    from robotskit.batch.inputs import kind_of  # noqa: PLC0415

    for name in inputs:
        path = Path(name)
        if not path.is_file() or kind_of(path) != "hosts":
            continue  # a missing input is reported by the run's own check
        try:
            with path.open("rb") as fh:
                head = fh.read(64 * 1024).decode("utf-8-sig", "replace")
        except OSError:
            continue
        lines = (line.split("#", 1)[0] for line in head.splitlines())
        meaningful = [line for line in lines if line.strip()][:_SNIFF_LINES]
        found = next((line.strip() for line in meaningful if _DIRECTIVE.match(line)), None)
        if found is not None:
            raise ValueError(
                f"{name} is a robots.txt file, not a list of hosts ({found!r}): give a directory "
                "holding it to judge it; a host list has one host or URL per line"
            )


def _check_out(out: str) -> None:
    """Refuse a results path that exists and is not a regular file: the run ends by renaming the
    results over it, which would replace a FIFO or a device (/dev/full) with a Parquet file, and
    would write `OUT.parts/` beside it."""
    try:
        mode = Path(out).stat().st_mode
    except FileNotFoundError:
        return
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ValueError(f"--out {out}: {detail}") from None
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise ValueError(f"--out {out} is {kind}: give the path of a results file (.parquet)")


def _run(args: argparse.Namespace) -> int:
    _check_options(args)
    _check_out(args.out)
    _check_host_lists(args.inputs)

    from robotskit.batch._values import BatchConfig  # noqa: PLC0415 - keep `--help` light
    from robotskit.batch.agentlist import load_agents, load_paths  # noqa: PLC0415
    from robotskit.batch.inputs import FetchOptions  # noqa: PLC0415
    from robotskit.batch.runner import freeze_heap, run_batch  # noqa: PLC0415

    freeze_heap()  # this process is the command's own: see freeze_heap
    config = BatchConfig(
        agents=load_agents(args.agents),
        paths=load_paths(args.paths),
        profile=args.profile,
        max_bytes=args.max_bytes,
        lint=not args.no_lint,
    )
    fetch = FetchOptions(
        user_agent=args.user_agent,
        cache=args.cache,
        timeout=args.timeout,
        concurrency=args.concurrency,
        per_host=args.per_host,
        scheme=args.scheme.lower(),
    )
    summary = run_batch(
        args.inputs,
        args.out,
        config,
        scheduler=args.scheduler,
        fetch=fetch,
        chunk=args.chunk,
        workers=args.workers,
        progress=args.progress,
    )
    outcomes = ", ".join(f"{name} {count}" for name, count in summary.outcomes.items()) or "none"
    skipped = (
        f"; {summary.skipped_files} files skipped (not robots.txt files)" if summary.skipped_files else ""
    )
    _say(
        f"{summary.rows} captures -> {summary.out} ({summary.units} units run, "
        f"{summary.skipped} already done, {summary.seconds:.1f} s){skipped}"
    )
    _say(f"outcomes: {outcomes}; rows with errors: {summary.errors}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from robotskit.batch.report import write_report  # noqa: PLC0415 - matplotlib loads on demand

    if len(args.inputs) != 2:
        raise ValueError("usage: robotskit batch report RESULTS.parquet [--report-dir DIR]")
    results = args.inputs[1]
    if args.top < 1:
        raise ValueError(f"--top must be a whole number above 0, not {args.top}")
    if not Path(results).is_file():
        raise ValueError(f"no such results file: {results}")
    text = write_report(results, args.report_dir, top=args.top)
    _say(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The batch command alone, in process (`argv` after `batch`). `python -m robotskit.batch`
    goes through `robotskit.cli.main` instead, whose Ctrl-C handling covers the imports."""
    parser = argparse.ArgumentParser(prog="robotskit")
    add_parser(parser.add_subparsers(dest="command", required=True))
    _one_line_errors(parser)
    args = parser.parse_args(["batch", *(sys.argv[1:] if argv is None else argv)])
    return int(args.handler(args))
