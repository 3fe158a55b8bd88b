"""One capture in, one row out: the pure heart of the batch job (no I/O, no logging).

The row's keys are the Parquet columns documented in docs/batch.md and built in
`robotskit.batch.output`. Verdicts come from the library itself (`robotskit.parse` and
`RobotsTxt.decide`), so a batch row says exactly what a crawler using robotskit would do.

Outcomes follow SPEC.md section 6 and come from `robotskit.policy` (the readers replay each
capture through it): a 2xx body is parsed (`ok`); 4xx except 429 make the site `unavailable`
(everything allowed); 429, 5xx and bad responses make it `unreachable` (everything disallowed).
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from robotskit.batch._values import AgentSpec, BatchConfig, Capture

OK = "ok"
UNAVAILABLE = "unavailable"
UNREACHABLE = "unreachable"
ALLOWED = "allowed"
DISALLOWED = "disallowed"
PARTIAL = "partial"  # "partially restricted": some paths blocked for the agent, not all

_HTML_STARTS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<!--")


def status_outcome(status: int | None) -> str | None:
    """SPEC.md 6 for one final HTTP status, for captures no reader ran the policy on.

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


def analyze(capture: Capture, config: BatchConfig) -> dict[str, Any]:
    """The row for one capture. Never raises on content: failures land in the `error` column."""
    row = _base_row(capture)
    outcome = _outcome(capture)
    if outcome is None:
        return row  # a damaged input record, or a redirect the input cannot follow
    row["outcome"] = outcome
    row["reason"] = capture.reason or _reason(capture, outcome)
    if outcome == OK and capture.body is not None:
        try:
            _fill_parsed(row, capture, config)
        except Exception as exc:  # a library bug on one file must not end a job
            row["error"] = f"analyze: {type(exc).__name__}: {exc}"
            row["agents"] = []
        return row
    if outcome in (UNAVAILABLE, UNREACHABLE):
        # SPEC.md 6: unavailable allows everything, unreachable disallows everything.
        allowed = outcome == UNAVAILABLE
        row["agents"] = [_blanket(spec, allowed, len(config.paths)) for spec in config.agents]
    return row


def _base_row(capture: Capture) -> dict[str, Any]:
    return {
        "source": capture.source,
        "record": capture.record,
        "url": capture.url,
        "host": capture.host,
        "authority": _authority(capture.url),
        "fetched_at": capture.fetched_at,
        "status": capture.status,
        "final_status": capture.final_status,
        "redirects": list(capture.redirects),
        "outcome": None,
        "reason": capture.reason or None,
        "content_type": capture.content_type,
        "size": capture.size,
        "truncated": capture.truncated,
        "html": is_html(capture.body, capture.content_type),
        "groups": None,
        "rules": None,
        "sitemaps": None,
        "lint_ids": [],
        "error": capture.error,
        "agents": [],
    }


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
        from robotskit import authority_key  # noqa: PLC0415
    except ImportError:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc.lower()}" if parts.netloc else None
    try:
        return str(authority_key(url))
    except ValueError:
        return None


def _blanket(spec: AgentSpec, allowed: bool, paths: int) -> dict[str, Any]:
    return {
        "agent": spec.name,
        "verdict": ALLOWED if allowed else DISALLOWED,
        "root": allowed,
        "paths": [allowed] * paths,
        "crawl_delay": None,
        "content_signal": None,
    }


def _fill_parsed(row: dict[str, Any], capture: Capture, config: BatchConfig) -> None:
    assert capture.body is not None
    robots = parse_capture(capture.body, capture.truncated, config, capture.url)
    row["truncated"] = bool(capture.truncated or robots.truncated)
    if row["size"] is None:
        row["size"] = robots.size
    row["groups"] = len(robots.groups)
    row["rules"] = sum(len(group.rules) for group in robots.groups)
    row["sitemaps"] = len(robots.sitemaps)
    row["lint_ids"] = _lint_ids(robots, capture.content_type, config)
    if capture.truncated and "RK104" not in row["lint_ids"]:
        # The reader cut the body before the parser saw it: report the parser's RK104 anyway.
        row["lint_ids"] = sorted([*row["lint_ids"], "RK104"])
    origin = _origin(capture.url)
    probe = probe_paths(robots, config.paths)
    agents = _agents(config.agents)
    memo: dict[tuple[Any, ...], list[bool]] = {}
    row["agents"] = [
        _agent_row(robots, spec, agent, origin, probe, config.paths, memo)
        for spec, agent in zip(config.agents, agents, strict=True)
    ]


def probe_paths(robots: Any, paths: tuple[str, ...]) -> tuple[str, ...]:
    """`/`, the sample paths, then one path per rule pattern (robotskit.audit's choice).

    The site verdict is judged on all of them, the way `robotskit audit` judges: blocked on
    every probe is `disallowed`, on some is `partial`, on none is `allowed`.
    """
    try:
        from robotskit.audit.report import sample_paths  # noqa: PLC0415 - optional sibling module

        derived: tuple[str, ...] = tuple(sample_paths(robots))
    except ImportError:
        derived = ()
    return tuple(dict.fromkeys(("/", *paths, *derived)))


def parse_capture(body: bytes, truncated: bool, config: BatchConfig, url: str | None = None) -> Any:
    """Parse a body as the client does: a body cut at the limit loses its cut line (SPEC.md 2)."""
    import robotskit  # noqa: PLC0415

    data, limit = body, config.max_bytes
    if truncated:
        end = max(body.rfind(b"\n"), body.rfind(b"\r"))
        data = body[: end + 1]
        limit = max(len(data), limit)  # already cut once; never cut twice
    return robotskit.parse(data, config.profile, max_bytes=limit, robots_url=url or None)


def _origin(url: str | None) -> str:
    """`scheme://authority` of the capture, so decisions see the scheme (gemini:// picks its profile)."""
    if not url:
        return ""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def _lint_ids(robots: Any, content_type: str | None, config: BatchConfig) -> list[str]:
    diagnostics = robots.diagnostics
    if config.lint:
        try:
            lint_module = importlib.import_module("robotskit.lint.runner")
        except ImportError:
            lint_module = None
        if lint_module is not None:
            diagnostics = lint_module.lint(robots, profile=config.profile, content_type=content_type)
    return sorted({d.code for d in diagnostics})


@lru_cache(maxsize=16)
def _agents(specs: tuple[AgentSpec, ...]) -> tuple[Any, ...]:
    """robotskit.Agent values for a run's specs, built once per worker process."""
    from robotskit.core.agents import Agent  # noqa: PLC0415

    return tuple(Agent(spec.token, purposes=spec.purposes, aliases=spec.aliases) for spec in specs)


def _agent_row(
    robots: Any,
    spec: AgentSpec,
    agent: Any,
    origin: str,
    probe: tuple[str, ...],
    paths: tuple[str, ...],
    memo: dict[tuple[Any, ...], list[bool]],
) -> dict[str, Any]:
    # Agents judged by the same groups get the same verdicts (most fall back to `*`): judge once.
    key = (tuple(g.index for g in robots.groups_for(agent, origin + "/")), agent.purposes)
    verdicts = memo.get(key)
    if verdicts is None:
        verdicts = memo[key] = [robots.allowed(origin + path, agent) for path in probe]
    blocked = verdicts.count(False)
    return {
        "agent": spec.name,
        "verdict": DISALLOWED if blocked == len(verdicts) else PARTIAL if blocked else ALLOWED,
        "root": verdicts[0],
        "paths": [verdicts[probe.index(path)] for path in paths],
        "crawl_delay": robots.crawl_delay(agent),
        "content_signal": _content_signal(robots, agent),
    }


def _content_signal(robots: Any, agent: Any) -> dict[str, bool | None] | None:
    try:
        prefs = importlib.import_module("robotskit.ai_prefs.lookup")
    except ImportError:
        return None
    signal = prefs.content_signal(robots, agent)
    if signal is None:
        return None
    return {"search": signal.search, "ai_input": signal.ai_input, "ai_train": signal.ai_train}
