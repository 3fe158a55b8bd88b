"""The fetch policy: every decision about *fetching* robots.txt lives here (SPEC.md section 6).

Sans-IO, in the style of httpx's `Auth.auth_flow`: `fetch_flow()` is a generator that yields
`FetchRequest`s, receives `FetchResponse`s (or has a `FetchError` thrown in) and returns a
`RobotsEntry`. Redirects, status mapping, TTLs, backoff and the stale-copy rule are written
once here and driven by `run_flow` (sync) or `arun_flow` (async). Time comes from an injected
clock; nothing here touches a socket, a file or a logger. What a single response means
(status, Retry-After, Cache-Control, Content-Type) is read in robotskit._policy_classify.

    outcome                                   verdict                     cached for
    2xx / FTP file read / Gemini 2x           parse the body              max-age in [1 h, 24 h]; 24 h
    3xx with Location / Gemini 3x             follow, at most 5 hops      as the final outcome
    4xx but 429 / FTP 5yz / Gemini 1x 5x 6x   unavailable: allow all      24 h
    5xx, 429 / FTP 4yz / Gemini 4x / errors   unreachable: disallow all   1 min doubling to 1 h
    unreachable, good copy < 30 days old      the good copy, marked stale as unreachable
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from robotskit.core.model import Decision
from robotskit.core.profiles import get_profile, profile_for_url
from robotskit.document import RobotsTxt
from robotskit.errors import FetchError, InvalidURL
from robotskit.policy.authority import authority_key

# Outcome, parse_max_age and parse_retry_after are public names of this module (see __all__);
# they live with the response classification they belong to.
from robotskit.policy.classify import (
    Outcome,
    Verdict,
    classify,
    content_type_of,
    parse_max_age,
    parse_retry_after,
    protocol_of,
    redirect_target,
)
from robotskit.policy.messages import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, FetchRequest, FetchResponse
from robotskit.policy.parses import answers, full_parse

if TYPE_CHECKING:
    from robotskit.core.agents import Agent

__all__ = [
    "DEFAULT_POLICY",
    "MISSING_PAGE_PROBE",
    "Flow",
    "Outcome",
    "PolicyConfig",
    "RobotsEntry",
    "arun_flow",
    "decide",
    "downgraded",
    "fetch_flow",
    "format_time",
    "parse_max_age",
    "parse_retry_after",
    "resolve_profile",
    "run_flow",
]

HOUR = 3600.0
DAY = 24 * HOUR


@dataclass(frozen=True, slots=True)
class PolicyConfig:
    """The numbers of SPEC.md section 6, in seconds; change them only knowingly."""

    max_redirects: int = 5  # RFC 9309 2.3.1.2: follow at least five
    min_ttl: float = HOUR  # SPEC.md 6: max-age clamped to [1 h, 24 h]
    max_ttl: float = DAY  # RFC 9309 2.4: SHOULD NOT use a copy for more than 24 h
    default_ttl: float = DAY
    unavailable_ttl: float = DAY
    backoff_base: float = 60.0  # unreachable: 1 min, doubling ...
    backoff_cap: float = HOUR  # ... up to 1 h; Retry-After / Gemini 44 honoured up to this too
    stale_window: float = 30 * DAY  # RFC 9309 2.3.1.4: "for example, 30 days"
    # An https:// robots.txt that redirects to http:// would be read unauthenticated and could
    # be rewritten by anyone on the path. Refused by default (unreachable: disallow, retry
    # later); when followed, every decision from that file says so.
    follow_https_to_http: bool = False


DEFAULT_POLICY = PolicyConfig()


@dataclass(frozen=True, slots=True)
class RobotsEntry:
    """What is known about one authority's robots.txt: one cache entry, one fetch's result.

    `outcome`, `status`, `protocol`, `reason` ("HTTP 503", "Gemini 51", "timeout" ...),
    `redirects` and `fetched_at` describe the latest fetch. `body` is the file to apply: the
    one just read when `outcome` is ok, or the last good copy when `stale` (the latest fetch
    was unreachable and a copy fetched at `good_at`, under 30 days ago, stands in). `failures`
    counts consecutive unreachable fetches (the backoff exponent); `outage_since` is when the
    authority was last known good, or first failed; `notes` explain anything unusual.
    `content_type` is what `body` was served as: the HTTP Content-Type header or the Gemini
    2x META, whole (parameters kept); "" for FTP, without a body, or when the server sent none.
    """

    authority: str
    robots_url: str
    outcome: Outcome
    status: int | None
    protocol: str
    body: bytes
    fetched_at: float
    expires_at: float
    redirects: tuple[str, ...] = ()
    size: int = 0
    truncated: bool = False
    reason: str = ""
    stale: bool = False
    retry_after: float | None = None
    good_at: float | None = None
    outage_since: float | None = None
    failures: int = 0
    notes: tuple[str, ...] = field(default=())
    content_type: str = ""

    @property
    def final_url(self) -> str:
        """The URL the body came from (the last redirect target, else `robots_url`)."""
        return self.redirects[-1] if self.redirects else self.robots_url

    @property
    def has_rules(self) -> bool:
        """True when `body` is a robots.txt to apply (a fresh read or a stale copy)."""
        return self.outcome is Outcome.OK or self.stale

    def is_fresh(self, now: float) -> bool:
        """True until `expires_at`: the entry may answer without a new fetch."""
        return now < self.expires_at

    @property
    def robots(self) -> RobotsTxt | None:
        """The parsed file (profile chosen per URL at decision time), or None without rules."""
        return self.parsed(None)

    def parsed(self, profile: str | None) -> RobotsTxt | None:
        """The body parsed under `profile`; memoised (bounded), since equal bodies parse equally."""
        if not self.has_rules:
            return None
        return full_parse(self.body, self.truncated, profile, self.robots_url)

    def answers(self, profile: str | None, agent: str | Agent) -> RobotsTxt | None:
        """A parse that answers for `agent` exactly as `parsed(profile)` does (decisions,
        crawl-delay, request-rate, sitemaps) while keeping little of a large file
        (robotskit.policy.parses); None without rules."""
        if not self.has_rules:
            return None
        return answers(self.body, self.truncated, profile, self.robots_url, agent)


# --- building entries -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Context:
    authority: str
    robots_url: str
    previous: RobotsEntry | None
    config: PolicyConfig


@dataclass(frozen=True, slots=True)
class _Answer:
    """The last response of a chain (status None: no response, a FetchError)."""

    status: int | None
    protocol: str
    redirects: tuple[str, ...]


def _entry(
    ctx: _Context,
    answer: _Answer,
    outcome: Outcome,
    reason: str,
    now: float,
    ttl: float,
    notes: tuple[str, ...],
) -> RobotsEntry:
    """An entry without a body: the fields every outcome fills alike (callers `replace` the rest)."""
    return RobotsEntry(
        authority=ctx.authority,
        robots_url=ctx.robots_url,
        outcome=outcome,
        status=answer.status,
        protocol=answer.protocol,
        body=b"",
        fetched_at=now,
        expires_at=now + ttl,
        redirects=answer.redirects,
        reason=reason,
        notes=tuple(note for note in notes if note),
    )


def _ok_entry(
    ctx: _Context, answer: _Answer, response: FetchResponse, verdict: Verdict, now: float
) -> RobotsEntry:
    ttl = ctx.config.default_ttl  # SPEC.md 6: Gemini and FTP 24 h
    if response.protocol == "http":
        max_age = parse_max_age(response.headers.get("cache-control", ""))
        if max_age is not None:
            ttl = min(max(max_age, ctx.config.min_ttl), ctx.config.max_ttl)
    cut = f"body cut at the size limit ({len(response.body)} bytes read)" if response.truncated else ""
    return replace(
        _entry(ctx, answer, Outcome.OK, verdict.reason, now, ttl, (verdict.note, cut)),
        body=response.body,
        size=len(response.body),
        truncated=response.truncated,
        good_at=now,
        content_type=content_type_of(response),
    )


def _unavailable_entry(
    ctx: _Context, answer: _Answer, reason: str, now: float, note: str = ""
) -> RobotsEntry:
    return _entry(ctx, answer, Outcome.UNAVAILABLE, reason, now, ctx.config.unavailable_ttl, (note,))


def _unreachable_entry(ctx: _Context, answer: _Answer, verdict: Verdict, now: float) -> RobotsEntry:
    cfg, prev = ctx.config, ctx.previous
    failures = (prev.failures if prev is not None else 0) + 1
    delay = min(cfg.backoff_base * 2 ** min(failures - 1, 32), cfg.backoff_cap)
    # Retry-After / Gemini 44 are honoured within the cap, and recorded as honoured: a server's
    # number can be anything (400 digits read as inf), and a persistent cache refuses to store
    # a value that is not finite, losing the entry, its backoff and its stale copy with it.
    retry_after = None if verdict.retry_after is None else min(verdict.retry_after, cfg.backoff_cap)
    if retry_after is not None:
        delay = max(delay, retry_after)
    good = prev if prev is not None and prev.has_rules and prev.good_at is not None else None
    if prev is not None and prev.outage_since is not None:
        since = prev.outage_since
    else:
        since = good.good_at if good is not None and good.good_at is not None else now
    base = replace(
        # SPEC.md 6: cached for a short time (the backoff delay), never 24 h
        _entry(ctx, answer, Outcome.UNREACHABLE, verdict.reason, now, delay, (verdict.note,)),
        retry_after=retry_after,
        outage_since=since,
        failures=failures,
    )
    if now - since > cfg.stale_window:
        # SPEC.md 6 / RFC 9309 2.3.1.4: after 30 days without a usable copy, act as unavailable.
        note = f"no good copy since {format_time(since)} (over 30 days): treated as unavailable"
        return replace(base, outcome=Outcome.UNAVAILABLE, notes=(*base.notes, note))
    if good is not None:
        # SPEC.md 6: the last good copy stands in while it is younger than 30 days; the
        # body-describing fields travel with it.
        return replace(
            base,
            body=good.body,
            size=good.size,
            truncated=good.truncated,
            content_type=good.content_type,
            stale=True,
            good_at=good.good_at,
        )
    return base


Flow = Generator[FetchRequest, FetchResponse, RobotsEntry]

# probe_5xx: a path no site serves, asked to tell "answers 5xx for missing pages" from "down".
MISSING_PAGE_PROBE = "/.well-known/robotskit-probe-missing-page-5f0c1d"
_PROBE_MAX_BYTES = 1024  # only the probes' statuses matter


def _probe_status(status: int | None) -> str:
    return f"HTTP {status}" if status is not None else "no answer"


def _probe_5xx(
    ctx: _Context, user_agent: str, deadline: float, clock: Callable[[], float]
) -> Generator[FetchRequest, FetchResponse, tuple[bool, str]]:
    """Ask `/` and a page that cannot exist; True when `/` answers 2xx and the missing page 5xx.

    Google's earlier robots.txt specification reads a 5xx as "not found" when the site is
    seen to answer 5xx instead of 404 for missing pages; this is that test. The probes share
    the lookup's deadline: with no time left they are skipped and nothing is inferred.
    """
    statuses: list[int | None] = []
    for path in ("/", MISSING_PAGE_PROBE):
        left = deadline - clock()
        if left <= 0:
            return False, "no time left to probe / and a missing page"
        probe = FetchRequest(
            url=ctx.authority + path, user_agent=user_agent, timeout=left, max_bytes=_PROBE_MAX_BYTES
        )
        try:
            answer = yield probe
        except FetchError as exc:
            statuses.append(None)
            if path == "/":
                return False, f"probe: / failed ({exc.kind}): the site is down, not only robots.txt"
            continue
        statuses.append(answer.status)
        if path == "/" and not 200 <= answer.status < 300:
            return False, f"probe: / answered HTTP {answer.status}: no sign the site is up"
    home, missing = statuses
    seen = f"/ answered {_probe_status(home)}, a missing page {_probe_status(missing)}"
    if missing is not None and 500 <= missing < 600:
        return True, seen
    return False, f"probe: {seen}: the 5xx is not the site's answer for missing pages"


# FetchError.kind as a reason; the others ("timeout", "dns", "tls", "reset" ...) read well as they are.
_ERROR_REASONS = {
    "protocol": "bad response",
    "not-public": "address not public",
    "bad-redirect": "bad redirect target",
}
DOWNGRADE_NOTE = "robots.txt was reached through an HTTPS to HTTP redirect"


def fetch_flow(
    url: str,
    *,
    clock: Callable[[], float],
    previous: RobotsEntry | None = None,
    user_agent: str = "robotskit",
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    config: PolicyConfig = DEFAULT_POLICY,
    probe_5xx: bool = False,
) -> Flow:
    """Fetch the robots.txt governing `url`: yields requests, receives responses, returns the entry.

    `previous` is the cached entry for the authority (for the stale copy, the backoff count
    and the 30-day window). A `FetchError` thrown in makes the outcome unreachable.
    `probe_5xx` (opt-in): on an HTTP 5xx with no good copy to stand in, also request `/` and a
    page that cannot exist; when `/` answers 2xx and that page 5xx, the site answers 5xx for
    missing pages and the robots.txt 5xx is read as a 4xx (unavailable: everything allowed).
    The probes share `timeout` with the robots.txt request as one deadline.
    """
    deadline = clock() + timeout
    authority = authority_key(url)
    ctx = _Context(authority, authority + "/robots.txt", previous, config)
    target, redirects, seen = ctx.robots_url, list[str](), {ctx.robots_url}
    while True:
        request = FetchRequest(url=target, user_agent=user_agent, timeout=timeout, max_bytes=max_bytes)
        try:
            response = yield request
        except FetchError as exc:
            # SPEC.md 6: timeouts, DNS, TLS, resets and bad responses are all "unreachable".
            failed = Verdict(Outcome.UNREACHABLE, _ERROR_REASONS.get(exc.kind, exc.kind), note=str(exc))
            answer = _Answer(None, protocol_of(target), tuple(redirects))
            return _unreachable_entry(ctx, answer, failed, clock())
        now = clock()
        verdict = classify(response, now)
        answer = _Answer(response.status, response.protocol, tuple(redirects))
        if verdict.outcome is Outcome.OK:
            return _ok_entry(ctx, answer, response, verdict, now)
        if verdict.outcome is Outcome.UNAVAILABLE:
            return _unavailable_entry(ctx, answer, verdict.reason, now)
        if verdict.outcome is Outcome.UNREACHABLE:
            if probe_5xx and _worth_probing(ctx, response):
                missing, probed = yield from _probe_5xx(ctx, user_agent, deadline, clock)
                if missing:
                    inferred = "so the site answers 5xx for missing pages"
                    reason = f"{verdict.reason} read as not found: {probed}, {inferred}"
                    return _unavailable_entry(ctx, answer, reason, clock())
                verdict = replace(verdict, note="; ".join(n for n in (verdict.note, probed) if n))
            return _unreachable_entry(ctx, answer, verdict, now)
        location, problem = redirect_target(target, verdict.location or "")
        if location is None:
            bad = replace(verdict, outcome=Outcome.UNREACHABLE, note=problem)
            return _unreachable_entry(ctx, answer, bad, now)
        if _is_downgrade(target, location) and not config.follow_https_to_http:
            refused = f"{verdict.reason}: HTTPS to HTTP redirect refused"
            bad = replace(verdict, outcome=Outcome.UNREACHABLE, reason=refused, note=f"to {location}")
            return _unreachable_entry(ctx, answer, bad, now)
        if location in seen:
            # RFC 9309 2.3.1.2: a loop never reaches a file; as more than five redirects.
            note = f"redirect loop back to {location}"
            return _unavailable_entry(ctx, answer, verdict.reason, now, note)
        if len(redirects) >= config.max_redirects:
            # RFC 9309 2.3.1.2: more than five consecutive redirects MAY be taken as unavailable.
            note = f"more than {config.max_redirects} redirects"
            return _unavailable_entry(ctx, answer, verdict.reason, now, note)
        seen.add(location)
        redirects.append(location)
        target = location


def _worth_probing(ctx: _Context, response: FetchResponse) -> bool:
    """An HTTP 5xx (not 429) with no good copy to stand in: a stale copy says more than probes."""
    previous = ctx.previous
    has_copy = previous is not None and previous.has_rules and previous.good_at is not None
    return response.protocol == "http" and 500 <= response.status < 600 and not has_copy


def _is_downgrade(source: str, target: str) -> bool:
    return urlsplit(source).scheme.lower() == "https" and urlsplit(target).scheme.lower() == "http"


def downgraded(entry: RobotsEntry) -> bool:
    """True when the entry's file was reached through an HTTPS to HTTP redirect."""
    hops = (entry.robots_url, *entry.redirects)
    return any(_is_downgrade(a, b) for a, b in itertools.pairwise(hops))


def _throw_bad_target(flow: Flow, request: FetchRequest, exc: InvalidURL) -> FetchRequest:
    # An adapter refused a redirect target (a URL the server chose): a fetch outcome, not the
    # caller's error. The first request is the caller's own URL: that InvalidURL is theirs.
    return flow.throw(FetchError(f"redirect to {request.url!r}: {exc}", url=request.url, kind="bad-redirect"))


class _Steps:
    """A flow between its fetches: the request to fetch next, or the entry once it returned.

    The step logic lives here once; `run_flow` and `arun_flow` only perform the I/O and hand
    each outcome (a response, or the error the fetch raised) to `take`, as httpx's auth_flow
    drivers do.
    """

    def __init__(self, flow: Flow) -> None:
        self._flow = flow
        self.entry: RobotsEntry
        self.request: FetchRequest | None = self._step(lambda: next(flow))
        self._first = self.request

    def take(self, outcome: FetchResponse | FetchError | InvalidURL) -> None:
        """Send the response in, or throw the error in; the next request (or the entry) follows."""
        flow, request = self._flow, self.request
        assert request is not None
        if isinstance(outcome, FetchError):
            self.request = self._step(lambda: flow.throw(outcome))
        elif isinstance(outcome, InvalidURL):
            if request is self._first:
                raise outcome
            self.request = self._step(lambda: _throw_bad_target(flow, request, outcome))
        else:
            self.request = self._step(lambda: flow.send(outcome))

    def _step(self, advance: Callable[[], FetchRequest]) -> FetchRequest | None:
        try:
            return advance()
        except StopIteration as stop:
            self.entry = stop.value
            return None


def run_flow(flow: Flow, fetch: Callable[[FetchRequest], FetchResponse]) -> RobotsEntry:
    """Drive a flow with a synchronous fetch function (a `Fetcher.fetch`)."""
    steps = _Steps(flow)
    while (request := steps.request) is not None:
        try:
            outcome: FetchResponse | FetchError | InvalidURL = fetch(request)
        except (FetchError, InvalidURL) as exc:
            outcome = exc
        steps.take(outcome)
    return steps.entry


async def arun_flow(flow: Flow, fetch: Callable[[FetchRequest], Awaitable[FetchResponse]]) -> RobotsEntry:
    """Drive a flow with an asynchronous fetch function (an `AsyncFetcher.fetch`)."""
    steps = _Steps(flow)
    while (request := steps.request) is not None:
        try:
            outcome: FetchResponse | FetchError | InvalidURL = await fetch(request)
        except (FetchError, InvalidURL) as exc:
            outcome = exc
        steps.take(outcome)
    return steps.entry


# --- decisions ------------------------------------------------------------------------------


def format_time(epoch: float) -> str:
    """An epoch time as `2026-11-22T15:00:00Z`, the form used in reasons."""
    return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def resolve_profile(profile: str | None, url: str) -> str:
    """SPEC.md 1: no explicit profile means `gemini` for gemini:// URLs, `rfc9309` otherwise."""
    if profile is not None:
        return profile
    return profile_for_url(url).name


def decide(entry: RobotsEntry, url: str, agent: str | Agent, profile: str | None = None) -> Decision:
    """May `agent` fetch `url`, given the entry for its authority? `reason`/`source` name the fetch."""
    name = resolve_profile(profile, url)
    fetched = f"{entry.reason} fetched {format_time(entry.fetched_at)}"
    robots = entry.answers(profile, agent)
    # A file read over a followed HTTPS to HTTP redirect says so in every decision it makes.
    insecure = f" ({DOWNGRADE_NOTE})" if downgraded(entry) else ""
    if robots is not None and not entry.stale:
        decision = robots.decide(url, agent)
        return replace(decision, reason=decision.reason + insecure, source=f"robots.txt {fetched}")
    if robots is not None:
        good = format_time(entry.good_at if entry.good_at is not None else entry.fetched_at)
        decision = robots.decide(url, agent)
        return replace(
            decision,
            reason=f"stale copy from {good}: {decision.reason}{insecure}",
            source=f"robots.txt unreachable ({fetched}); stale copy from {good}",
        )
    if entry.outcome is Outcome.UNAVAILABLE:
        # RFC 9309 2.3.1.3: the crawler MAY access any resource. failures > 0: unreachable for
        # over 30 days, which RFC 9309 2.3.1.4 lets a crawler treat as unavailable.
        why = f"{entry.reason} for over 30 days" if entry.failures else entry.reason
        reason = f"robots.txt unavailable ({why}): everything allowed{insecure}"
        return Decision(allowed=True, rule=None, reason=reason, profile=name, source=f"robots.txt {fetched}")
    path = urlsplit(url).path
    if path == "/robots.txt" and get_profile(name).robots_txt_always_allowed:
        # RFC 9309 2.2.2: /robots.txt is implicitly allowed, or a crawler could never retry.
        reason = "implicitly allowed /robots.txt"
        return Decision(allowed=True, rule=None, reason=reason, profile=name, path=path, source=fetched)
    # RFC 9309 2.3.1.4: unreachable means complete disallow.
    reason = f"robots.txt unreachable ({entry.reason}){insecure}"
    return Decision(allowed=False, rule=None, reason=reason, profile=name, source=f"robots.txt {fetched}")
