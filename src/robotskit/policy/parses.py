"""The parsed files behind cached entries: one shared memo, bounded by what it holds.

A client keeps, per authority, only its `RobotsEntry`: the body (at most the size limit) and a
few small fields. Parsing is deterministic, so the parse of a body is a cache, not state: it is
shared by every entry with the same bytes and kept in this memo, least recently used first
out, within `PARSE_MEMO_BUDGET` bytes. The size of a parse is estimated from its input: a used
parse of a dense file holds about 26 bytes of Python objects per byte (19,000 one-rule groups
in 460 KiB measure 12.5 MB with tracemalloc), so the estimate is 32 bytes per byte. A parse
larger than the whole budget (a size limit raised far above 500 KiB) is used and dropped.

A large file is not kept parsed whole for the client's answers (`answers`): for each agent
asked, the memo keeps the parse of a *reduced* file, the original with every line blanked but
those of the groups that agent's decisions read (under rfc9309 and gemini when the profile
follows the URL, else under the chosen profile: user-agent lines, rules and records of each
group, the Gemini preamble) and the sitemap lines. Lines keep their numbers, and a group that
follows another always starts after that group's rules, so the reduced file groups as the
original does and every decision, crawl-delay, request-rate and sitemap for that agent is the
original's (property-tested). 19,000 groups for other crawlers then cost nothing once read.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from robotskit.core.agents import Agent, as_agent
from robotskit.core.lexer import DEFAULT_MAX_BYTES, cap_line, lex_line, prepare, split_lines
from robotskit.core.model import LineKind
from robotskit.document import RobotsTxt, parse

__all__ = [
    "PARSE_MEMO_BUDGET",
    "REDUCE_FROM",
    "ParseMemo",
    "answers",
    "estimated_size",
    "full_parse",
    "reduced_body",
]

PARSE_MEMO_BUDGET = 32 * 1024 * 1024
# At most this many parses however small (each costs some bookkeeping of its own).
_MAX_PARSES = 1024
_BYTES_PER_BODY_BYTE = 32
_OVERHEAD = 4096  # an empty parse, its views and checkers

# Bodies from this size are answered from reduced files (their whole parse would hold over
# about 1 MiB); smaller ones are kept parsed whole.
REDUCE_FROM = 32 * 1024

Key = tuple[Hashable, ...]  # (body, truncated, profile, robots URL[, agent])


def estimated_size(body: bytes) -> int:
    """An upper estimate of the memory a parse of `body` holds once used (see the module doc)."""
    return _OVERHEAD + _BYTES_PER_BODY_BYTE * len(body)


class ParseMemo:
    """An LRU of parses keyed by (body, truncated, profile, robots URL), bounded in bytes."""

    def __init__(self, budget: int = PARSE_MEMO_BUDGET, max_parses: int = _MAX_PARSES) -> None:
        # (the body is always the key's first item: its length gives the size estimate)
        self.budget = budget
        self.max_parses = max_parses
        self._parses: OrderedDict[Key, tuple[RobotsTxt, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: Key, build: Callable[[], RobotsTxt]) -> RobotsTxt:
        with self._lock:
            found = self._parses.get(key)
            if found is not None:
                self._parses.move_to_end(key)
                return found[0]
        # Parsed outside the lock: two threads racing build equal parses; one is kept.
        robots = build()
        size = estimated_size(robots.body)
        if size > self.budget:
            return robots
        with self._lock:
            if key not in self._parses:
                self._parses[key] = (robots, size)
                self._size += size
            while self._size > self.budget or len(self._parses) > self.max_parses:
                _, (_, dropped) = self._parses.popitem(last=False)
                self._size -= dropped
        return robots

    @property
    def size(self) -> int:
        """The estimated bytes held now (at most `budget`)."""
        return self._size

    def __len__(self) -> int:
        return len(self._parses)

    def clear(self) -> None:
        with self._lock:
            self._parses.clear()
            self._size = 0


PARSES = ParseMemo()


def _cut_partial_line(body: bytes) -> bytes:
    """SPEC.md 2: a line cut by the size limit is dropped (the adapter cut, not the parser)."""
    end = max(body.rfind(b"\n"), body.rfind(b"\r"))
    return body[: end + 1]


def _parse_body(body: bytes, truncated: bool, profile: str | None, robots_url: str) -> RobotsTxt:
    data = _cut_partial_line(body) if truncated else body
    # The adapter already enforced the client's limit; never cut twice.
    return parse(data, profile, max_bytes=max(len(data), DEFAULT_MAX_BYTES), robots_url=robots_url)


def full_parse(body: bytes, truncated: bool, profile: str | None, robots_url: str) -> RobotsTxt:
    """The whole file parsed under `profile` (None: chosen per URL), memoised."""
    return PARSES.get(
        (body, truncated, profile, robots_url), lambda: _parse_body(body, truncated, profile, robots_url)
    )


# URLs whose profile a client's answers may use: rfc9309 for everything but gemini://.
_SCHEME_URLS = ("https://a.example/", "gemini://a.example/")


def reduced_body(robots: RobotsTxt, agent: str | Agent) -> bytes:
    """`robots`' input with every line blanked that no answer for `agent` reads (see the module doc)."""
    kept: set[int] = set()
    positions: set[int] = set()
    for url in _SCHEME_URLS[:1] if robots.profile is not None else _SCHEME_URLS:
        for group in robots.groups_for(agent, url):
            positions.add(group.index)
            kept.update(group.agent_lines)
            kept.update(rule.line for rule in group.rules)  # every raw rule: empty ones too
    kept.update(record.line for record in robots.records if record.group in positions)
    body, _, _ = prepare(robots.body, max(len(robots.body), DEFAULT_MAX_BYTES))
    lines = split_lines(body.decode("latin-1"))
    for number, line in enumerate(lines, 1):
        if number not in kept and "site" in line.lower():
            lexed = lex_line(cap_line(line)[0])
            if lexed is not None and lexed[0] is LineKind.SITEMAP:
                kept.add(number)
    return "\n".join(line if number in kept else "" for number, line in enumerate(lines, 1)).encode("latin-1")


def answers(
    body: bytes, truncated: bool, profile: str | None, robots_url: str, agent: str | Agent
) -> RobotsTxt:
    """A parse that answers exactly as the whole file does for `agent`: decisions, crawl-delay,
    request-rate and sitemaps. The whole parse for a small body, a reduced one for a large body."""
    if len(body) < REDUCE_FROM:
        return full_parse(body, truncated, profile, robots_url)
    if not isinstance(agent, str | Agent):
        as_agent(agent)  # InvalidArgument, as the whole parse would raise (not a TypeError of the key)

    def build() -> RobotsTxt:
        whole = _parse_body(body, truncated, profile, robots_url)  # transient
        data = reduced_body(whole, agent)
        return parse(data, profile, max_bytes=max(len(data), DEFAULT_MAX_BYTES), robots_url=robots_url)

    return PARSES.get((body, truncated, profile, robots_url, agent), build)
