"""One capture in, one row out: the pure heart of the batch job (no I/O, no logging, no Arrow).

The row's fields are the Parquet columns documented in docs/batch.md (built by
`robotskit.batch.output`). Verdicts come from the library itself (`robotskit.parse`,
`RobotsTxt.allowed`, `crawl_delay`, `robotskit.ai_prefs.content_signal`), so a batch row says
exactly what a crawler using robotskit would do.

Outcomes follow RFC 9309 2.3.1.3-2.3.1.4 and come from `robotskit.policy` (the readers replay each
capture through it): a 2xx body is parsed (`ok`); 4xx except 429 make the site `unavailable`
(everything allowed); 429, 5xx and bad responses make it `unreachable` (everything disallowed).

Why it is fast (a row costs less than parsing the file and checking `/` for every agent):
- What a body says does not depend on who served it: the parse, the lint ids and every agent's
  verdicts are a pure function of (bytes, profile, cut or not, media type). `Analyzer` keeps
  them per SHA-256 of the body in a bounded LRU, so duplicate captures (most of a crawl) cost a
  hash and a lookup.
- Agents are keyed by the groups they resolve to (RFC 9309 2.2.1: the groups naming one of their
  tokens, else the `*` groups); each distinct key is judged once, with one of its agents, by the
  library. On a typical file the 94 default agents make two or three keys.
- Content-Signal is read once per key, and only when the file has a Content-Signal line.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from robotskit import PROFILES, Agent, Group, RobotsTxt, RuleKind, authority_key, parse, product_token
from robotskit.ai_prefs import CONTENT_SIGNAL, content_signal
from robotskit.audit.report import sample_paths
from robotskit.batch._values import AgentSpec, BatchConfig, Capture
from robotskit.core.profiles import Profile
from robotskit.lint import lint

OK = "ok"
UNAVAILABLE = "unavailable"
UNREACHABLE = "unreachable"
ALLOWED = "allowed"
DISALLOWED = "disallowed"
PARTIAL = "partial"  # "partially restricted": some paths blocked for the agent, not all

_HTML_STARTS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<!--", b"<?xml")
_FACTS_CACHE = 8192  # distinct bodies remembered per worker (a few MB)
_RFC9309 = "rfc9309"
_GEMINI = "gemini"


@dataclass(frozen=True, slots=True)
class Verdicts:
    """What one agent key gets from a file: the site verdict, `/`, sample paths, delay, signal."""

    verdict: str
    root: bool
    paths: tuple[bool, ...]
    crawl_delay: float | None = None
    content_signal: tuple[bool | None, bool | None, bool | None] | None = None  # search, ai_input, ai_train


@dataclass(frozen=True, slots=True)
class AgentVerdicts:
    """Every agent's verdicts, stored once per distinct key: agent i gets `keys[of_agent[i]]`."""

    keys: tuple[Verdicts, ...]
    of_agent: tuple[int, ...]


NO_AGENTS = AgentVerdicts((), ())


@dataclass(frozen=True, slots=True)
class Facts:
    """What a body says, whoever served it (cached by content)."""

    groups: int
    rules: int
    sitemaps: int
    lint_ids: tuple[str, ...]
    truncated: bool
    size: int
    agents: AgentVerdicts
    lint_error: str | None = None  # lint failed on this file (a library bug): verdicts still stand


class FactsStore(Protocol):
    """Where workers of one run share what bodies say (robotskit.batch.shared.SharedFacts)."""

    def get(self, key: bytes) -> Facts | None: ...

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, Facts]: ...

    def put(self, key: bytes, facts: Facts) -> None: ...

    def flush(self) -> None: ...

    def claim(self, key: bytes) -> bool: ...

    def claim_many(self, keys: Sequence[bytes]) -> set[bytes]: ...


class _Deferred(Exception):
    """Another worker is judging this body now: the capture waits for the end of the unit."""


@dataclass(slots=True)
class Row:
    """One output row (docs/batch.md lists the columns)."""

    source: str
    record: int
    url: str | None = None
    host: str | None = None
    authority: str | None = None
    fetched_at: float | None = None
    status: int | None = None
    final_status: int | None = None
    redirects: tuple[str, ...] = ()
    outcome: str | None = None
    reason: str | None = None
    content_type: str | None = None
    size: int | None = None
    truncated: bool = False
    html: bool = False
    profile: str | None = None
    sha256: str | None = None
    groups: int | None = None
    rules: int | None = None
    sitemaps: int | None = None
    lint_ids: tuple[str, ...] = ()
    error: str | None = None
    agents: AgentVerdicts = field(default=NO_AGENTS)


def status_outcome(status: int | None) -> str | None:
    """RFC 9309 2.3.1 for one final HTTP status, for captures no reader ran the policy on.

    WARC captures and live fetches carry the outcome `robotskit.policy` gave them; this is the
    same table for callers who build captures themselves. None for a redirect left unfollowed.
    """
    if status is None:
        return None
    if 200 <= status < 300:
        return OK
    if 300 <= status < 400:
        return None
    if 400 <= status < 500 and status != 429:
        return UNAVAILABLE
    # 429, 5xx and anything that is not an HTTP status at all: unreachable (a bad response).
    return UNREACHABLE


def is_html(body: bytes | None, content_type: str | None) -> bool:
    """True when the server sent an HTML page (an error page served as robots.txt)."""
    if content_type and "html" in content_type.lower():
        return True
    if not body:
        return False
    head = body[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith(_HTML_STARTS)


def profile_name(config: BatchConfig, url: str | None) -> str:
    """The profile a capture is judged with: the run's, else by scheme (gemini:// is gemini)."""
    if config.profile is not None:
        return config.profile
    return _GEMINI if url is not None and url[:9].lower() == "gemini://" else _RFC9309


class Analyzer:
    """Turns captures into rows for one configuration; keeps the per-body cache (see module doc)."""

    def __init__(self, config: BatchConfig) -> None:
        self.config = config
        self._agents = tuple(Agent(s.token, purposes=s.purposes, aliases=s.aliases) for s in config.agents)
        self._labels: dict[str, tuple[tuple[str, ...], ...]] = {}
        self._facts: OrderedDict[tuple[bytes, str, bool, str], Facts] = OrderedDict()
        blanket = len(config.paths)
        self._blanket = {
            UNAVAILABLE: _blanket(len(config.agents), allowed=True, paths=blanket),
            UNREACHABLE: _blanket(len(config.agents), allowed=False, paths=blanket),
        }
        self.hits = self.misses = self.shared_hits = 0  # per-body cache use (for benchmarks)
        self.lint_seconds = 0.0  # CPU time spent linting (for benchmarks)
        # The run's store shared with other worker processes (robotskit.batch.shared), if any.
        self.shared: FactsStore | None = None
        # Bodies of the batch `prepare` last saw that this worker claimed (it judges them
        # without asking the store again), and those another worker had claimed first.
        self._mine: set[bytes] = set()
        self._theirs: set[bytes] = set()
        # The keys `prepare` computed for the batch's captures, by id (the capture is kept with
        # them, so its id cannot be reused while here): each body is hashed once, not twice.
        self._prepared: dict[int, tuple[Capture, tuple[tuple[bytes, str, bool, str], bytes]]] = {}

    def prepare(self, captures: Sequence[Capture]) -> None:
        """Ask the shared store about a batch of captures at once, before analyzing them one by
        one: the facts of bodies other workers judged come back in one query, and the bodies
        nobody has claimed are claimed in one statement. Per body, a get and a claim cost a
        worker about 50 µs of SQLite; per batch of 64 captures, two statements. Without a store,
        or for bodies this worker already knows, nothing is asked. Only an accelerator: if it
        fails on a capture, each capture is asked about alone (and a failure becomes its row's)."""
        self._mine, self._theirs, self._prepared = set(), set(), {}
        if self.shared is None:
            return
        try:
            self._ask_about(captures, self.shared)
        except Exception:
            self._mine, self._theirs, self._prepared = set(), set(), {}

    def _ask_about(self, captures: Sequence[Capture], shared: FactsStore) -> None:
        wanted: dict[bytes, tuple[bytes, str, bool, str]] = {}
        for capture in captures:
            if capture.body is None or _outcome(capture) != OK:
                continue
            keys = _body_keys(capture, profile_name(self.config, capture.url))
            self._prepared[id(capture)] = (capture, keys)
            key, stored = keys
            if key not in self._facts:
                wanted[stored] = key
        if not wanted:
            return
        found = shared.get_many(list(wanted))
        for stored, facts in found.items():
            self._remember(wanted[stored], facts)
            self.shared_hits += 1
        unknown = [stored for stored in wanted if stored not in found]
        self._mine = shared.claim_many(unknown)
        self._theirs = set(unknown) - self._mine

    def analyze(self, capture: Capture) -> Row:
        """The row for one capture. Never raises on content: failures land in `error`."""
        row = self._row(capture, may_defer=False)
        assert row is not None
        return row

    def analyze_or_defer(self, capture: Capture) -> Row | None:
        """`analyze`, or None when another worker of the run has claimed the capture's body and
        is judging it now (`FactsStore.claim`): ask again later (the unit's end), when its facts
        are likely in the store, rather than judge the same body twice at once."""
        return self._row(capture, may_defer=True)

    def _row(self, capture: Capture, *, may_defer: bool) -> Row | None:
        try:
            return self._analyze(capture, may_defer)
        except _Deferred:
            return None
        except Exception as exc:  # a library bug on one capture must not end a job
            return Row(
                source=capture.source, record=capture.record, url=capture.url, error=f"analyze: {exc!r}"
            )

    def _analyze(self, capture: Capture, may_defer: bool = False) -> Row:
        row = _base_row(capture)
        outcome = _outcome(capture)
        if outcome is None:
            return row  # a damaged input record, or a redirect the input cannot follow
        row.outcome = outcome
        row.reason = capture.reason or _reason(capture, outcome)
        if outcome == OK and capture.body is not None:
            row.profile = profile_name(self.config, capture.url)
            try:
                self._fill(row, capture, may_defer)
            except _Deferred:
                raise
            except Exception as exc:  # a library bug on one file must not end a job
                row.error = f"analyze: {type(exc).__name__}: {exc}"
                row.agents = NO_AGENTS
        elif outcome in self._blanket:
            # RFC 9309 2.3.1.3: unavailable allows everything; 2.3.1.4: unreachable disallows everything.
            row.agents = self._blanket[outcome]
        return row

    # -- a parsed body -------------------------------------------------------------------------

    def _fill(self, row: Row, capture: Capture, may_defer: bool = False) -> None:
        assert capture.body is not None and row.profile is not None
        prepared = self._prepared.get(id(capture))
        if prepared is not None and prepared[0] is capture:
            key, stored = prepared[1]
        else:
            key, stored = _body_keys(capture, row.profile)
        row.sha256 = key[0].hex()
        facts = self._facts.get(key)
        if facts is None:
            facts = self._stored_or_judged(capture, key, stored, may_defer)
            self._remember(key, facts)
        else:
            self.hits += 1
            self._facts.move_to_end(key)
        row.groups, row.rules, row.sitemaps = facts.groups, facts.rules, facts.sitemaps
        row.lint_ids = facts.lint_ids
        row.truncated = capture.truncated or facts.truncated
        if row.size is None:
            row.size = facts.size
        row.agents = facts.agents
        if facts.lint_error is not None:
            row.error = row.error or facts.lint_error

    def _stored_or_judged(
        self, capture: Capture, key: tuple[bytes, str, bool, str], stored: bytes, may_defer: bool
    ) -> Facts:
        """The facts of a body this worker does not know yet: from the shared store, or judged
        here (and then shared). Raises _Deferred when another worker is judging it now."""
        assert capture.body is not None
        shared = self.shared
        if shared is not None and stored in self._mine:
            self._mine.discard(stored)  # claimed by `prepare`: nobody else judges it
        elif shared is not None:
            if may_defer and stored in self._theirs:
                raise _Deferred  # `prepare` found it claimed by another worker
            facts = shared.get(stored)
            if facts is not None:
                self.shared_hits += 1
                return facts
            if may_defer and not shared.claim(stored):
                raise _Deferred  # another worker is judging this body now
        self.misses += 1
        facts = self._facts_of(capture.body, capture.truncated, key[1], key[3])
        if shared is not None:
            shared.put(stored, facts)
        return facts

    def _remember(self, key: tuple[bytes, str, bool, str], facts: Facts) -> None:
        self._facts[key] = facts
        if len(self._facts) > _FACTS_CACHE:
            self._facts.popitem(last=False)

    def _facts_of(self, body: bytes, truncated: bool, profile: str, media: str) -> Facts:
        robots = parse_capture(body, truncated, self.config, profile)
        groups = robots.groups
        lint_ids: set[str] = {d.code for d in robots.diagnostics}
        lint_error = None
        if self.config.lint:
            started = time.process_time()  # CPU time: the shared machine's load does not count
            try:
                lint_ids.update(d.code for d in lint(robots, profile=profile, content_type=media or None))
            except Exception as exc:
                lint_error = f"lint: {type(exc).__name__}: {exc}"
            self.lint_seconds += time.process_time() - started
        if truncated:
            lint_ids.add("RK104")  # the reader cut the body before the parser saw it
        return Facts(
            groups=len(groups),
            rules=sum(len(group.rules) for group in groups),
            sitemaps=len(robots.sitemaps),
            lint_ids=tuple(sorted(lint_ids)),
            truncated=robots.truncated,
            size=robots.size,
            agents=self._judge(robots, PROFILES[profile]),
            lint_error=lint_error,
        )

    def _judge(self, robots: RobotsTxt, profile: Profile) -> AgentVerdicts:
        """Every agent's verdicts, judging each distinct group key once (see module doc)."""
        groups = robots.groups
        named: dict[str, tuple[int, ...]] = {}
        for group in groups:
            for token in group.agents:
                if token != "*":
                    named[token] = (*named.get(token, ()), group.index)
        star = tuple(group.index for group in groups if group.is_global)
        probe = probe_paths(robots, self.config.paths)
        signals = any(record.key == CONTENT_SIGNAL for record in robots.records)
        labels = self._agent_labels(profile)
        every_token = profile.judge_every_token
        fixed = 1 + len(self.config.paths)
        index: dict[object, int] = {}
        keys: list[Verdicts] = []
        of_agent: list[int] = []
        for agent, agent_labels in zip(self._agents, labels, strict=True):
            key = _group_key(agent_labels, named, every_token=every_token)
            position = index.get(key)
            if position is None:
                position = index[key] = len(keys)
                # Web profiles judge one pool of groups: its Disallow rules' paths come first,
                # since they are the probes most likely to be blocked (see _verdicts).
                own = None if every_token else _own_probes(groups, star if key is None else key, probe, fixed)
                keys.append(self._verdicts(robots, agent, own if own is not None else probe, signals))
            of_agent.append(position)
        return AgentVerdicts(tuple(keys), tuple(of_agent))

    def _agent_labels(self, profile: Profile) -> tuple[tuple[str, ...], ...]:
        """Per agent, the labels the profile judges it by, as group tokens are written (lower case)."""
        labels = self._labels.get(profile.name)
        if labels is None:
            labels = self._labels[profile.name] = tuple(_labels(spec, profile) for spec in self.config.agents)
        return labels

    def _verdicts(self, robots: RobotsTxt, agent: Agent, probe: tuple[str, ...], signals: bool) -> Verdicts:
        """The agent's verdicts on `probe` (`/` and the sample paths first, always all judged).

        The site verdict needs only whether some probe is allowed and some blocked, so judging
        stops once both are seen; a pool without Disallow rules blocks nothing (`probe` is then
        just the fixed paths, see `_own_probes`).
        """
        fixed = 1 + len(self.config.paths)
        verdicts = [robots.allowed(path, agent) for path in probe[:fixed]]
        allowed, blocked = any(verdicts), not all(verdicts)
        for path in probe[fixed:]:
            if allowed and blocked:
                break  # partial already: the other probes cannot change the verdict
            if robots.allowed(path, agent):
                allowed = True
            else:
                blocked = True
        signal = content_signal(robots, agent) if signals else None
        return Verdicts(
            verdict=PARTIAL if allowed and blocked else ALLOWED if allowed else DISALLOWED,
            root=verdicts[0],
            paths=tuple(verdicts[1:]),
            crawl_delay=_delay(robots.crawl_delay(agent)),
            content_signal=None if signal is None else (signal.search, signal.ai_input, signal.ai_train),
        )


def _delay(seconds: float | None) -> float | None:
    """A crawl delay as a row shows it: `Crawl-delay: -0` is 0 seconds, shown as 0.0 (equal
    verdicts share one Arrow block, robotskit.batch.output, and -0.0 == 0.0 would mix them)."""
    return None if seconds is None else seconds + 0.0


def _own_probes(
    groups: tuple[Group, ...], positions: object, probe: tuple[str, ...], fixed: int
) -> tuple[str, ...] | None:
    """`probe` reordered for one pool of groups: the `fixed` paths, its Disallow paths, the rest.

    Without a Disallow rule in the pool no path can be blocked (RFC 9309 2.2.2: only a matching
    disallow rule blocks), so only the fixed paths are returned. None: `positions` is not a pool.
    """
    if not isinstance(positions, tuple):
        return None
    disallows = [
        rule.pattern
        for position in positions
        for rule in groups[position].rules
        if rule.kind is RuleKind.DISALLOW and rule.pattern
    ]
    if not disallows:
        return probe[:fixed]
    own = dict.fromkeys(_path_of(pattern) for pattern in disallows)
    rest = probe[fixed:]
    return (*probe[:fixed], *(p for p in rest if p in own), *(p for p in rest if p not in own))


def _path_of(pattern: str) -> str:
    """The probe path `robotskit.audit` derives from a pattern (see `sample_paths`)."""
    path = (pattern[:-1] if pattern.endswith("$") else pattern).replace("*", "x")
    return path if path.startswith("/") else "/" + path


def _labels(spec: AgentSpec, profile: Profile) -> tuple[str, ...]:
    # RFC 9309 2.2.1: the caller's product token, compared case-insensitively (google: as given).
    names = [n for n in (spec.token, *spec.aliases) if n is not None]
    tokens = [(product_token(n) if profile.reduce_caller_agent else n).lower() for n in names]
    if profile.judge_every_token:  # Gemini: every purpose is a virtual agent judged alone
        tokens = [p.lower() for p in spec.purposes] + tokens
    return tuple(tokens)


def _group_key(labels: tuple[str, ...], named: dict[str, tuple[int, ...]], *, every_token: bool) -> object:
    """What decides an agent's verdicts: the groups it resolves to (None: the `*` groups).

    Merged tokens (web profiles): the union of the groups naming any token, else `*`'s.
    Every token alone (gemini): the set of per-token group tuples (`*` is judged for all alike).
    """
    if every_token:
        return frozenset(named[label] for label in labels if label in named)
    found = [named[label] for label in labels if label in named]
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    return tuple(sorted({position for positions in found for position in positions}))


def _blanket(agents: int, *, allowed: bool, paths: int) -> AgentVerdicts:
    verdict = Verdicts(ALLOWED if allowed else DISALLOWED, allowed, (allowed,) * paths)
    return AgentVerdicts((verdict,), (0,) * agents)


def _base_row(capture: Capture) -> Row:
    return Row(
        source=capture.source,
        record=capture.record,
        url=capture.url,
        host=capture.host,
        authority=_authority(capture.url),
        fetched_at=capture.fetched_at,
        status=capture.status,
        final_status=capture.final_status,
        redirects=capture.redirects,
        reason=capture.reason or None,
        content_type=capture.content_type,
        size=capture.size,
        truncated=capture.truncated,
        html=is_html(capture.body, capture.content_type),
        error=capture.error,
    )


def _body_keys(capture: Capture, profile: str) -> tuple[tuple[bytes, str, bool, str], bytes]:
    """What a body's facts are cached under: in this process, and in the run's shared store
    (the same fields as bytes). Facts depend on the body, the profile judging it, whether the
    reader cut it, and its media type (lint looks at it)."""
    assert capture.body is not None
    digest = hashlib.sha256(capture.body).digest()
    media = (capture.content_type or "").split(";", 1)[0].strip().lower()
    stored = b"\0".join((digest, profile.encode(), b"%d" % capture.truncated, media.encode()))
    return (digest, profile, capture.truncated, media), stored


def _outcome(capture: Capture) -> str | None:
    if capture.outcome is not None:
        return capture.outcome
    if capture.error is not None:
        return None
    if capture.status is None and capture.final_status is None:
        return OK if capture.body is not None else None  # a file on disk: its body is the robots.txt
    return status_outcome(capture.final_status)


def _reason(capture: Capture, outcome: str | None) -> str | None:
    if capture.final_status is not None:
        return f"HTTP {capture.final_status}"
    if outcome == OK:
        return "file"
    return None


def _authority(url: str | None) -> str | None:
    if not url:
        return None
    try:
        return str(authority_key(url))
    except ValueError:
        return None


def probe_paths(robots: RobotsTxt, paths: tuple[str, ...]) -> tuple[str, ...]:
    """`/`, the sample paths, then one path per rule pattern (robotskit.audit's choice).

    The site verdict is judged on all of them, the way `robotskit audit` judges: blocked on
    every probe is `disallowed`, on some is `partial`, on none is `allowed`. `/` and the sample
    paths keep their places even when a rule's path repeats one of them.
    """
    fixed = ("/", *paths)
    derived = [p for p in sample_paths(robots) if p not in fixed]
    return (*fixed, *derived)


def parse_capture(body: bytes, truncated: bool, config: BatchConfig, profile: str | None = None) -> RobotsTxt:
    """Parse a body as the client does: a body cut at the limit loses its cut line (RFC 9309 2.5)."""
    data, limit = body, config.max_bytes
    if truncated:
        end = max(body.rfind(b"\n"), body.rfind(b"\r"))
        data = body[: end + 1]
        limit = max(len(data), limit)  # already cut once; never cut twice
    return parse(data, profile or config.profile, max_bytes=limit)


_ANALYZERS: dict[int, tuple[BatchConfig, Analyzer]] = {}


def analyzer_for(config: BatchConfig) -> Analyzer:
    """The process's analyzer for `config` (its cache survives across units of the same run)."""
    found = _ANALYZERS.get(id(config))
    if found is not None and found[0] is config:
        return found[1]
    for kept, analyzer in _ANALYZERS.values():
        if kept == config:
            _ANALYZERS[id(config)] = (config, analyzer)
            return analyzer
    if len(_ANALYZERS) >= 4:
        _ANALYZERS.clear()
    analyzer = Analyzer(config)
    _ANALYZERS[id(config)] = (config, analyzer)
    return analyzer


def forget() -> None:
    """Drop this process's analyzers and their per-body caches (a run's end frees their memory)."""
    _ANALYZERS.clear()


def analyze(capture: Capture, config: BatchConfig) -> Row:
    """The row for one capture (see `Analyzer.analyze`)."""
    return analyzer_for(config).analyze(capture)
