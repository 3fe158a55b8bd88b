"""How a command writes: rich text for people, one JSON document for programs, and the shared JSON shapes.

Colour only on a terminal (rich turns it off otherwise and honours NO_COLOR); the JSON documents
are described in docs/cli.md and versioned by `JSON_VERSION`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any, TypeVar

from rich.console import Console
from rich.segment import Segment
from rich.text import Text

from robotskit.core.model import Decision, Rule

if TYPE_CHECKING:
    from robotskit import RobotsTxt
    from robotskit.policy.flow import RobotsEntry

__all__ = [
    "JSON_VERSION",
    "PROGRESS_MIN",
    "WARNINGS",
    "Output",
    "PipeClosed",
    "decision_json",
    "entry_json",
    "iso",
    "numbered",
    "printable",
    "rule_json",
    "rule_label",
    "source_line",
    "verdict_text",
    "warn",
]

JSON_VERSION = 2  # bumped only on incompatible changes to a --json document (2: "source" is an object)
PROGRESS_MIN = 20  # show a progress bar from this many URLs (on a terminal only)
_T = TypeVar("_T")

#: The warnings of the command running now (cleared for each command by the dispatcher).
WARNINGS: list[str] = []


def warn(message: str) -> None:
    """Say on stderr what was assumed about an input that could mean more than one thing."""
    WARNINGS.append(message)
    _StderrSink().write(f"robotskit: warning: {printable(message)}\n")


# What a command prints may come from a hostile file or server (a robots.txt line, a Gemini
# status line, an HTTP reason): its control characters are shown escaped, never sent to the
# terminal, where an ESC sequence could clear the screen or forge a line. C0 controls but tab
# and line feed, DEL, C1 controls (0x9B is a CSI on some terminals) and the bidirectional
# overrides that reorder what a line appears to say.
_CONTROLS = [*range(0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]
_CONTROLS += [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_ESCAPED = {code: (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}") for code in _CONTROLS}


def printable(text: str) -> str:
    """`text` with its control characters written as escapes (`\\x1b`)."""
    return text.translate(_ESCAPED)


class PipeClosed(Exception):
    """Standard output's reader went away (`robotskit ... | head -1`): the command ends quietly."""


class _StderrSink:
    """Standard error (as it is when made: rich's live display later swaps `sys.stderr` for a
    proxy that writes back into the console) that never fails a command: a closed or full
    stderr loses the message, not the verdict (the exit status still says it)."""

    def __init__(self) -> None:
        self._stream = sys.stderr

    def write(self, text: str) -> int:
        try:
            if self._stream is not None:
                self._stream.write(text)
                self._stream.flush()
        except (OSError, ValueError):
            pass
        return len(text)

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        try:
            return self._stream is not None and self._stream.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self._stream is None:
            raise OSError("no standard error")
        return self._stream.fileno()


class _Console(Console):
    """A rich console that escapes control characters in what it prints (see `printable`) and
    turns a closed standard output into PipeClosed (rich's own answer is exit status 1, which
    `check` uses for "disallowed")."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        # rich's own cursor and erase codes are `control` segments: only text is escaped.
        safe = (
            segment if segment.control else Segment(printable(segment.text), segment.style)
            for segment in buffer
        )
        return super()._render_buffer(safe)

    def on_broken_pipe(self) -> None:
        self.quiet = True
        if self.file is sys.stdout:
            raise PipeClosed
        # (a closed stderr: the message is lost, the command goes on)


def _environ() -> dict[str, str]:
    """The environment rich reads, without a COLUMNS or LINES that is not a positive number
    (COLUMNS=0 made rich print nothing at all)."""
    environ = dict(os.environ)
    for name in ("COLUMNS", "LINES"):
        value = environ.get(name)
        if value is not None and not (value.isdigit() and int(value) > 0):
            del environ[name]
    return environ


def _console(file: IO[str] | _StderrSink) -> _Console:
    # rich turns colour off when the stream is not a terminal and honours NO_COLOR.
    return _Console(file=file, highlight=False, soft_wrap=True, emoji=False, _environ=_environ())  # type: ignore[arg-type]


class Output:
    """Where a command writes: rich consoles for people, plain JSON for programs."""

    def __init__(self, as_json: bool) -> None:
        self.json = as_json
        self.out = _console(sys.stdout)
        self.err = _console(_StderrSink())

    def print(self, *parts: str | Text) -> None:
        self.out.print(*parts)

    def document(self, command: str, body: dict[str, Any], exit_code: int) -> int:
        doc = {"command": command, "version": JSON_VERSION, **body}
        if WARNINGS:  # what was assumed about the input (also said on stderr)
            doc["warnings"] = list(WARNINGS)
        doc["exit_code"] = exit_code
        # JSON escapes what an encoding other than UTF-8 (LANG=C, PYTHONIOENCODING=ascii) cannot
        # write; a UTF-8 stream gets the characters themselves.
        encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
        text = json.dumps(doc, indent=2, ensure_ascii=not encoding.startswith("utf"))
        try:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            raise PipeClosed from None
        return exit_code

    def progress(self, items: Sequence[_T], label: str) -> Iterator[_T]:
        """Yield `items`, with a progress bar on stderr for long runs on a terminal only."""
        if self.json or len(items) < PROGRESS_MIN or not self.err.is_terminal:
            yield from items
            return
        from rich.progress import track  # noqa: PLC0415 - only long terminal runs need it

        yield from track(items, description=label, console=self.err, transient=True)


def rule_json(rule: Rule | None) -> dict[str, Any] | None:
    if rule is None:
        return None
    return {
        "line": rule.line,
        "kind": str(rule.kind),
        "pattern": rule.pattern,
        "raw": rule.raw,
        "derived": rule.derived,
    }


def decision_json(url: str, decision: Decision) -> dict[str, Any]:
    return {
        "url": url,
        "allowed": decision.allowed,
        "reason": decision.reason,
        "profile": decision.profile,
        "path": decision.path,
        "tokens": list(decision.tokens),
        "groups": list(decision.groups),
        "rule": rule_json(decision.rule),
        "provenance": decision.source,
    }


def rule_label(rule: Rule) -> str:
    return f"{'Allow' if rule.allow else 'Disallow'}: {rule.raw or rule.pattern}"


def verdict_text(allowed: bool) -> Text:
    return Text("allowed   ", style="bold green") if allowed else Text("disallowed", style="bold red")


def iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, tz=UTC).isoformat(timespec="seconds")


# Unreachable now, but a good copy under 30 days old stands in (RFC 9309 2.4 lets a crawler
# keep using a cached copy): its rules are what a crawler applies, not "everything disallowed".
_STALE_POLICY = "robots.txt unreachable: the last good copy's rules apply until it can be read again"
_POLICY = {
    "ok": "the file's rules apply",
    "unavailable": "no usable robots.txt: everything is allowed (RFC 9309 2.3.1.3)",
    "unreachable": "robots.txt unreachable: everything is disallowed until it can be read (RFC 9309 2.3.1.4)",
}


def entry_json(entry: RobotsEntry) -> dict[str, Any]:
    return {
        "authority": entry.authority,
        "robots_url": entry.robots_url,
        "outcome": str(entry.outcome),
        "policy": _STALE_POLICY if entry.stale else _POLICY.get(str(entry.outcome), ""),
        "status": entry.status,
        "protocol": entry.protocol,
        "reason": entry.reason,
        "redirects": list(entry.redirects),
        "size": entry.size,
        "truncated": entry.truncated,
        "fetched_at": iso(entry.fetched_at),
        "expires_at": iso(entry.expires_at),
        "stale": entry.stale,
        "retry_after": entry.retry_after,
    }


def numbered(robots: RobotsTxt, number: int, highlight: str = "") -> Text:
    """Line `number` as `   12 | text`, with `highlight` (if found in it) in reverse video."""
    raw = source_line(robots, number)
    text = Text(f"{number:>5} | ", style="dim")
    line = Text(raw)
    if highlight and (start := raw.find(highlight)) >= 0:
        line.stylize("bold reverse", start, start + len(highlight))
    return text + line


def source_line(robots: RobotsTxt, number: int) -> str:
    """The text of line `number` (1-based) of the file, or "" for line 0 and lines past the end."""
    return robots.lines[number - 1].raw if 0 < number <= len(robots.lines) else ""
