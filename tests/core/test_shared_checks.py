"""Agents judged by the same groups share one check and one verdict per URL; it equals `decide`."""

from __future__ import annotations

import threading

from hypothesis import given, settings
from hypothesis import strategies as st

import robotskit
from robotskit.core.agents import Agent

_TOKENS = ["*", "a-bot", "B-Bot", "cbot", "a-bot/2.1", "*x", "Bot"]
_RULES = st.tuples(
    st.sampled_from(["Allow", "Disallow"]),
    st.lists(st.sampled_from(["/", "a", "b", "*", "$", "%61"]), max_size=4).map("".join),
)
_GROUP = st.tuples(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=2), st.lists(_RULES, max_size=3))
# What callers pass: tokens, full user-agent strings, None, Agent objects (which take the plan path).
_CALLERS = st.sampled_from(
    [
        None,
        "a-bot",
        "A-Bot/2.1 (+https://x)",
        "b-bot",
        "cbot",
        "Bot",
        "other",
        "",
        Agent("a-bot", aliases=("cbot",)),
        Agent("cbot", aliases=("b-bot",), combine="most_restrictive"),
    ]
)
_URLS = st.sampled_from(["/", "/a", "/ab", "/b$", "/a%62", "https://h/a", "gemini://g/a", "/robots.txt"])


def _file(groups: list[tuple[list[str], list[tuple[str, str]]]]) -> str:
    lines = []
    for agents, rules in groups:
        lines += [f"User-agent: {agent}" for agent in agents]
        lines += [f"{kind}: {value}" for kind, value in rules]
    return "\n".join(lines) + "\n"


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_GROUP, max_size=4),
    st.lists(st.tuples(_CALLERS, _URLS), min_size=1, max_size=12),
    st.sampled_from([None, "rfc9309", "google", "gemini"]),
)
def test_many_agents_on_one_object_equal_decide(
    groups: list[tuple[list[str], list[tuple[str, str]]]],
    calls: list[tuple[str | Agent | None, str]],
    profile: str | None,
) -> None:
    """Property: one parsed file asked by many agents in turn (shared checks, per-URL memo) answers
    every call as `decide` does on a fresh parse."""
    body = _file(groups)
    robots = robotskit.parse(body, profile)
    for agent, url in calls + calls:  # twice: the second pass hits the shared checks and memos
        expected = robotskit.parse(body, profile).decide(url, agent).allowed
        assert robots.allowed(url, agent) is expected, (agent, url)


def test_agents_of_one_group_set_share_a_check() -> None:
    """Agents that land in the same groups get the same check object; others get their own."""
    robots = robotskit.parse("User-agent: a-bot\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n")
    robots.allowed("/", "first")  # a file's first check is answered without a check (first_check)
    for agent in ("x", "y", "A-Bot/1.0", "a-bot", None):
        robots.allowed("/a", agent)
    checks = robots._checkers
    assert checks[("rfc9309", "x")] is checks[("rfc9309", "y")] is checks[("rfc9309", None)]
    assert checks[("rfc9309", "a-bot")] is checks[("rfc9309", "A-Bot/1.0")]
    assert checks[("rfc9309", "a-bot")] is not checks[("rfc9309", "x")]


def test_many_agents_from_threads_equal_decide() -> None:
    """Eight threads asking one object for different agents and URLs get `decide`'s verdicts."""
    body = "User-agent: a-bot\nDisallow: /a\nAllow: /a/b\n\nUser-agent: *\nDisallow: /b\n\nUser-agent: cbot\nAllow: /\n"
    agents = ["a-bot", "cbot", "zbot", None, "A-bot/3", "Cbot/1 (x)"]
    urls = [f"https://h/{head}/{i}" for i in range(60) for head in ("a", "a/b", "b", "c")]
    expected = {(a, u): robotskit.parse(body).decide(u, a).allowed for a in agents for u in urls}
    robots = robotskit.parse(body)
    wrong: list[tuple[str | None, str]] = []

    def run(offset: int) -> None:
        for i in range(len(urls)):
            agent = agents[(i + offset) % len(agents)]
            url = urls[(i * 7 + offset) % len(urls)]
            if robots.allowed(url, agent) is not expected[(agent, url)]:
                wrong.append((agent, url))

    threads = [threading.Thread(target=run, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
