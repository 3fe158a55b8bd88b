"""`allowed` on a cached host answers from the check kept per authority, exactly as `decide` does.

The lean path (RobotsClient.allowed, AsyncRobotsClient.allowed) must never answer from an entry
the cache no longer holds (deleted, cleared, replaced) or that has expired, and must fetch exactly
as often as the full path.
"""

from __future__ import annotations

import asyncio
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

import robotskit
from robotskit.agents import Agent
from robotskit.client import AsyncRobotsClient, RobotsClient
from robotskit.testing import AsyncMockFetcher, FrozenClock, MockFetcher, http_response

# a.examplex is unscripted (404: everything allowed) and starts with a.example's spelling; d.example
# answers 503 (unreachable: everything disallowed but /robots.txt)
HOSTS = (
    "https://d.example",
    "https://a.example",
    "http://b.example:8080",
    "https://A.EXAMPLE:443",
    "https://c.example",
    "https://a.examplex",
)
BODIES = (
    b"User-agent: *\nDisallow: /p\nAllow: /p/ok\n\nUser-agent: mybot\nDisallow: /q\n",
    b"User-agent: *\nDisallow: /\n",
    b"User-agent: otherbot\nDisallow: /\n\nUser-agent: *\nDisallow: /q%61\n",
)
PATHS = ("/", "/p", "/p/ok", "/q", "/qa", "/q%61", "/robots.txt", "", "?x=1", "/p?y")
AGENTS = (None, "MyBot", "OtherBot", "mybot/2.0 (+x)", Agent("zed", aliases=("mybot",)))


def _script() -> dict[str, list[object]]:
    """Each host serves the bodies in turn, one per fetch (the last repeats)."""
    robots = {host.lower().replace(":443", "") + "/robots.txt" for host in HOSTS[1:5]}
    script: dict[str, list[object]] = {url: [http_response(200, body) for body in BODIES] for url in robots}
    script["https://d.example/robots.txt"] = [http_response(503, b"")]
    return script


_OPS = st.one_of(
    st.tuples(  # mostly the client's own agent (None): the inlined path
        st.just("ask"), st.sampled_from(HOSTS), st.sampled_from(PATHS), st.sampled_from([0, 0, 0, 1, 2, 3, 4])
    ),
    st.tuples(st.just("advance"), st.sampled_from([1.0, 3_600.0, 86_400.0])),
    st.tuples(st.just("delete"), st.sampled_from(HOSTS[:2])),
    st.tuples(st.just("clear")),
)


def _key(host: str) -> str:
    return host.lower().replace(":443", "")


@settings(max_examples=150, deadline=None)
@given(st.lists(_OPS, min_size=1, max_size=30))
def test_lean_allowed_equals_decide_through_cache_changes(ops: list[tuple[object, ...]]) -> None:
    """Property: a client answering `allowed` and one answering `decide(...).allowed`, given the same
    calls, clock moves and cache deletions, agree on every answer and fetch the same number of times."""
    clocks = FrozenClock(), FrozenClock()
    fetchers = MockFetcher(_script()), MockFetcher(_script())  # type: ignore[arg-type]
    lean, full = (
        RobotsClient("MyBot", fetchers={"https": f, "http": f}, clock=c)
        for f, c in zip(fetchers, clocks, strict=True)
    )
    for op in ops:
        if op[0] == "ask":
            _, host, path, agent_index = op
            url, agent = f"{host}{path}", AGENTS[agent_index]  # type: ignore[call-overload]
            assert lean.allowed(url, agent) is full.decide(url, agent).allowed, (url, agent)
        elif op[0] == "advance":
            for clock in clocks:
                clock.advance(op[1])  # type: ignore[arg-type]
        elif op[0] == "delete":
            for client in (lean, full):
                client.cache.delete(_key(op[1]))  # type: ignore[arg-type]
        else:
            for client in (lean, full):
                client.cache.clear()
    assert fetchers[0].count() == fetchers[1].count()


def test_repeated_allowed_takes_the_ready_check(clock: FrozenClock) -> None:
    """After the first call for a host, `allowed` answers without the Decision path."""
    fetcher = MockFetcher({"https://a.example/robots.txt": http_response(200, BODIES[0])})
    client = RobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock)
    assert client.allowed("https://a.example/p/ok")

    def no_decide(*args: object) -> None:
        raise AssertionError("decide was called")

    client._core.decide = no_decide  # type: ignore[method-assign]
    assert not client.allowed("https://a.example/q/1")  # MyBot's own group
    assert client.allowed("https://a.example/p/1")
    assert not client.allowed("https://a.example/p/1", "OtherBot")  # another agent: the `*` group


def test_expired_or_deleted_entry_is_never_answered_from(clock: FrozenClock) -> None:
    """A deleted entry and an expired one are fetched again before the next answer."""
    fetcher = MockFetcher(
        {"https://a.example/robots.txt": [http_response(200, BODIES[0]), http_response(200, BODIES[1])]}
    )
    client = RobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock)
    assert client.allowed("https://a.example/x")
    assert client.allowed("https://a.example/y")
    client.cache.delete("https://a.example")
    assert not client.allowed("https://a.example/x")  # the second body disallows everything
    assert fetcher.count() == 2
    fetcher2 = MockFetcher(
        {"https://a.example/robots.txt": [http_response(200, BODIES[1]), http_response(200, BODIES[0])]}
    )
    client2 = RobotsClient("MyBot", fetchers={"https": fetcher2}, clock=clock)
    assert not client2.allowed("https://a.example/x")
    assert not client2.allowed("https://a.example/y")  # answered by the ready check
    clock.advance(86_400)  # the default TTL
    assert client2.allowed("https://a.example/x")
    assert fetcher2.count() == 2


def test_async_lean_allowed_equals_decide() -> None:
    """The async client's `allowed` equals its `decide` across hosts, agents and a cache deletion."""

    async def run() -> list[tuple[str, object]]:
        wrong: list[tuple[str, object]] = []
        clock = FrozenClock()
        fetcher = AsyncMockFetcher(_script())  # type: ignore[arg-type]
        async with AsyncRobotsClient("MyBot", fetchers={"https": fetcher, "http": fetcher}, clock=clock) as c:
            for round_ in range(3):
                for host in HOSTS:
                    for path in PATHS:
                        for agent in AGENTS:
                            url = host + path
                            if await c.allowed(url, agent) is not (await c.decide(url, agent)).allowed:
                                wrong.append((url, agent))
                c.cache.delete(_key(HOSTS[round_ % 2]))
        return wrong

    assert asyncio.run(run()) == []


def test_threads_with_deletions_get_decide_answers(clock: FrozenClock) -> None:
    """Eight threads asking while another deletes entries get the answers `decide` gives."""
    script = {_key(host) + "/robots.txt": http_response(200, BODIES[0]) for host in HOSTS}
    client = RobotsClient(
        "MyBot", fetchers={"https": MockFetcher(script), "http": MockFetcher(script)}, clock=clock
    )
    urls = [host + path for host in HOSTS for path in PATHS]
    expected = {url: client.decide(url).allowed for url in urls}
    wrong: list[str] = []
    stop = threading.Event()

    def ask(offset: int) -> None:
        for i in range(600):
            url = urls[(i * 7 + offset) % len(urls)]
            if client.allowed(url) is not expected[url]:
                wrong.append(url)

    def delete() -> None:
        i = 0
        while not stop.is_set():
            client.cache.delete(_key(HOSTS[i % len(HOSTS)]))
            i += 1
            stop.wait(0.001)

    deleter = threading.Thread(target=delete)
    deleter.start()
    askers = [threading.Thread(target=ask, args=(n,)) for n in range(8)]
    for thread in askers:
        thread.start()
    for thread in askers:
        thread.join()
    stop.set()
    deleter.join()
    assert wrong == []


def test_ready_host_never_answers_for_a_longer_host_name(clock: FrozenClock) -> None:
    """`https://a.examplex` is not `https://a.example`: its own (missing) robots.txt decides."""
    fetcher = MockFetcher({"https://a.example/robots.txt": http_response(200, BODIES[1])})
    client = RobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock)
    assert not client.allowed("https://a.example/q")
    assert not client.allowed("https://a.example/q")
    assert client.allowed("https://a.examplex/q")  # 404 there: everything allowed
    assert client.allowed("https://a.example.com/q")
    assert not client.allowed("https://a.example?q")
    assert fetcher.urls == [
        "https://a.example/robots.txt",
        "https://a.examplex/robots.txt",
        "https://a.example.com/robots.txt",
    ]


def test_closed_client_never_answers_from_a_ready_host(clock: FrozenClock) -> None:
    """After `close()`, `allowed` raises ClientClosed even for a host it answered a moment ago."""
    import pytest

    from robotskit.errors import ClientClosed

    fetcher = MockFetcher({"https://a.example/robots.txt": http_response(200, BODIES[0])})
    client = RobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock)
    assert client.allowed("https://a.example/x")
    assert client.allowed("https://a.example/y")
    client.close()
    with pytest.raises(ClientClosed):
        client.allowed("https://a.example/x")


def test_a_large_file_answers_other_agents_exactly(clock: FrozenClock) -> None:
    """A large file's ready parse is reduced to the client's agent: other agents still get the whole file's answer."""
    filler = b"".join(b"User-agent: filler%d\nDisallow: /f%d\n" % (i, i) for i in range(2_000))
    body = (
        filler
        + b"User-agent: MyBot\nAllow: /\n\nUser-agent: OtherBot\nDisallow: /o/\n\nUser-agent: *\nDisallow: /\n"
    )
    assert len(body) >= 32 * 1024
    fetcher = MockFetcher({"https://big.example/robots.txt": http_response(200, body)})
    client = RobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock)
    whole = robotskit.parse(body)
    for url, agent in [
        ("https://big.example/o/1", None),
        ("https://big.example/o/1", "OtherBot"),
        ("https://big.example/p", "OtherBot"),
        ("https://big.example/f7", "filler7"),
        ("https://big.example/x", "NobodyBot"),
        ("https://big.example/o/2", None),
    ]:
        expected = whole.allowed(url, "MyBot" if agent is None else agent)
        assert client.allowed(url, agent) is expected, (url, agent)
    assert fetcher.count() == 1
