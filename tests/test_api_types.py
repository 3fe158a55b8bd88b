"""Public functions check argument types at the boundary: a TypeError naming the parameter.

Not an AttributeError from deep inside, nor a ValueError (InvalidArgument) for what is a type
mistake. Values of the right type but wrong meaning stay ValueErrors (unknown purpose, profile).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import robotskit
from robotskit.audit import audit
from robotskit.lint import lint

ROBOTS = robotskit.parse(b"User-agent: *\nDisallow: /x\n")


def _warm() -> robotskit.RobotsTxt:
    robots = robotskit.parse(b"User-agent: *\nDisallow: /x\n")
    robots.allowed("/x", "a")  # the fast path is armed: the next call with "a" skips the slow path
    return robots


CASES: list[tuple[str, Callable[[], object], str]] = [
    ("parse-data", lambda: robotskit.parse(3), "data"),  # type: ignore[arg-type]
    ("parse-profile", lambda: robotskit.parse(b"", 3), "profile"),  # type: ignore[arg-type]
    ("parse-max-bytes", lambda: robotskit.parse(b"", max_bytes="x"), "max_bytes"),  # type: ignore[arg-type]
    ("allowed-url-none", lambda: ROBOTS.allowed(None, "a"), "url"),  # type: ignore[arg-type]
    ("allowed-url-bytes-fast-path", lambda: _warm().allowed(b"/x", "a"), "url"),  # type: ignore[arg-type]
    ("allowed-agent-int", lambda: ROBOTS.allowed("/x", 3), "agent"),  # type: ignore[arg-type]
    ("allowed-agent-list", lambda: ROBOTS.allowed("/x", ["a"]), "agent"),  # type: ignore[arg-type]
    ("decide-url", lambda: ROBOTS.decide(None), "url"),  # type: ignore[arg-type]
    ("crawl-delay-agent", lambda: ROBOTS.crawl_delay(3), "agent"),  # type: ignore[arg-type]
    ("crawl-delay-agent-list", lambda: ROBOTS.crawl_delay(["a"]), "agent"),  # type: ignore[arg-type]
    ("groups-for-url", lambda: ROBOTS.groups_for("a", 5), "url"),  # type: ignore[arg-type]
    ("content-usage-url", lambda: ROBOTS.content_usage(5), "url"),  # type: ignore[arg-type]
    ("content-usage-agent", lambda: ROBOTS.content_usage("/x", ["a"]), "agent"),  # type: ignore[arg-type]
    ("content-signal-agent", lambda: ROBOTS.content_signal(b"a"), "agent"),  # type: ignore[arg-type]
    ("lint-robots", lambda: lint("User-agent: *"), "robots"),  # type: ignore[arg-type]
    ("audit-robots", lambda: audit("User-agent: *"), "robots"),  # type: ignore[arg-type]
    ("agent-token", lambda: robotskit.Agent(3), "token"),  # type: ignore[arg-type]
    ("agent-purposes", lambda: robotskit.Agent(None, purposes=[1]), "purposes"),  # type: ignore[list-item]
    ("agent-aliases", lambda: robotskit.Agent("a", aliases=3), "aliases"),  # type: ignore[arg-type]
    ("client-agent", lambda: robotskit.RobotsClient(3), "agent"),  # type: ignore[arg-type]
    ("client-timeout", lambda: robotskit.RobotsClient("a", timeout="5"), "timeout"),  # type: ignore[arg-type]
    ("client-cache", lambda: robotskit.RobotsClient("a", cache=3), "cache"),  # type: ignore[arg-type]
    ("authority-key", lambda: robotskit.authority_key(None), "url"),  # type: ignore[arg-type]
    ("robots-txt-url", lambda: robotskit.robots_txt_url(3), "url"),  # type: ignore[arg-type]
    ("product-token", lambda: robotskit.product_token(None), "user_agent"),  # type: ignore[arg-type]
    ("open-cache", lambda: robotskit.open_cache(3), "cache"),  # type: ignore[arg-type]
    ("path-params-query", lambda: robotskit.path_params_query(None), "url"),  # type: ignore[arg-type]
    ("lex", lambda: robotskit.lex(3), "data"),  # type: ignore[arg-type]
    ("diff", lambda: robotskit.diff_verdicts(ROBOTS, "x", [], []), "new"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("call", "name"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_wrong_type_is_a_type_error_naming_the_parameter(call: Callable[[], object], name: str) -> None:
    """Each public entry point names the parameter whose type is wrong."""
    with pytest.raises(TypeError, match=name) as info:
        call()
    assert not isinstance(info.value, ValueError)


def test_unknown_purpose_is_a_value_error_naming_it() -> None:
    """A purpose that is not a Gemini virtual agent is refused, by name (a typo would judge nothing)."""
    with pytest.raises(ValueError, match="'bogus'"):
        robotskit.Agent(None, purposes=["bogus"])
    assert robotskit.Agent(None, purposes=["Indexer"]).purposes == ("indexer",)


def test_agent_accepts_any_iterable_of_strings() -> None:
    """Lists and tuples both work for purposes and aliases (and type-check: see test_readme)."""
    assert robotskit.Agent("a", purposes=["archiver"], aliases=("b",)) == robotskit.Agent(
        "a", purposes=("archiver",), aliases=["b"]
    )
