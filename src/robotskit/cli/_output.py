"""How a command writes: rich text for people, one JSON document for programs, and the shared JSON shapes.

Colour only on a terminal (rich turns it off otherwise and honours NO_COLOR); the JSON documents
are described in docs/cli.md and versioned by `JSON_VERSION`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from rich.console import Console
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
    "decision_json",
    "entry_json",
    "iso",
    "numbered",
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
    sys.stderr.write(f"robotskit: warning: {message}\n")


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
        doc = {"command": command, "version": JSON_VERSION, **body}
        if WARNINGS:  # what was assumed about the input (also said on stderr)
            doc["warnings"] = list(WARNINGS)
        doc["exit_code"] = exit_code
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
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
        "policy": _POLICY.get(str(entry.outcome), ""),
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
