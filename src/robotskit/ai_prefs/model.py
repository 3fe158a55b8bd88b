"""The typed values `robotskit.ai_prefs` returns: Content-Signal and Content-Usage preferences.

Owns: the frozen value classes and the one restrictiveness order both vocabularies share
(no beats yes beats unknown). Which records become these values is `ai_prefs`' job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SIGNAL_KEYS = ("search", "ai-input", "ai-train")  # Cloudflare's three signals
USAGE_LABELS = ("train-ai", "ai-use", "search")  # draft-ietf-aipref-vocab section 6.1


def _yes_no(value: str) -> bool | None:
    lowered = value.strip().lower()
    if lowered == "yes":
        return True
    if lowered == "no":
        return False
    return None


@dataclass(frozen=True, slots=True)
class Signal:
    """One `key=value` of a Content-Signal line. `allowed` is True for yes, False for no, else None."""

    key: str
    value: str
    line: int
    path: str = ""

    @property
    def allowed(self) -> bool | None:
        return _yes_no(self.value)


@dataclass(frozen=True, slots=True)
class ContentSignal:
    """The Content-Signal preferences that speak to one agent (and URL, if one was given).

    `signals` holds one entry per key (file order of first appearance), each with its line and
    path. `scope` is "group" (from a group naming the agent) or "global" (the `*` group, or
    lines outside any group). `lines` are the contributing line numbers. `scoped_paths` lists
    the paths of path-scoped lines that were skipped because no URL was given.
    """

    signals: tuple[Signal, ...]
    scope: str
    lines: tuple[int, ...]
    scoped_paths: tuple[str, ...] = ()

    def get(self, key: str) -> Signal | None:
        wanted = key.lower()
        return next((s for s in self.signals if s.key == wanted), None)

    def _flag(self, key: str) -> bool | None:
        signal = self.get(key)
        return None if signal is None else signal.allowed

    @property
    def search(self) -> bool | None:
        return self._flag("search")

    @property
    def ai_input(self) -> bool | None:
        return self._flag("ai-input")

    @property
    def ai_train(self) -> bool | None:
        return self._flag("ai-train")

    @property
    def extra(self) -> tuple[Signal, ...]:
        """Keys other than Cloudflare's three (e.g. `use=reference`), kept as written."""
        return tuple(s for s in self.signals if s.key not in SIGNAL_KEYS)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "lines": list(self.lines),
            "signals": {
                s.key: {"value": s.value, "allowed": s.allowed, "line": s.line, "path": s.path}
                for s in self.signals
            },
            "scoped_paths": list(self.scoped_paths),
        }


@dataclass(frozen=True, slots=True)
class UsagePreference:
    """One category of a Content-Usage rule: `value` is the Token (`y`/`n`) or the raw member text."""

    label: str
    value: str
    line: int

    @property
    def allowed(self) -> bool | None:
        """vocab section 6.5: Token `y` allows, Token `n` disallows, anything else is unknown."""
        return {"y": True, "n": False}.get(self.value)


@dataclass(frozen=True, slots=True)
class ContentUsage:
    """The Content-Usage preferences for one URL and agent: the winning rule(s) and their values.

    `path` is the winning rule's path as written ("" for a rule without a path, which covers
    every URL). `preferences` holds one entry per label; when several rules share the winning
    path, a label disallowed by any of them is disallowed (vocab section 7.1). `valid` is False
    when a winning value failed to parse as an RFC 9651 Dictionary (all its preferences unknown).
    """

    path: str
    preferences: tuple[UsagePreference, ...]
    lines: tuple[int, ...]
    raw: tuple[str, ...]
    valid: bool = True

    def get(self, label: str) -> UsagePreference | None:
        return next((p for p in self.preferences if p.label == label), None)

    def _flag(self, label: str) -> bool | None:
        pref = self.get(label)
        return None if pref is None else pref.allowed

    @property
    def train_ai(self) -> bool | None:
        return self._flag("train-ai")

    @property
    def ai_use(self) -> bool | None:
        return self._flag("ai-use")

    @property
    def search(self) -> bool | None:
        return self._flag("search")

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "lines": list(self.lines),
            "raw": list(self.raw),
            "valid": self.valid,
            "preferences": {
                p.label: {"value": p.value, "allowed": p.allowed, "line": p.line} for p in self.preferences
            },
        }


def restrictiveness(allowed: bool | None) -> int:
    """Rank an answer for most-restrictive combining (vocab section 7.1): no > yes > unknown."""
    return {False: 2, True: 1, None: 0}[allowed]
