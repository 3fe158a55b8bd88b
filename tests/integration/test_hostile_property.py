"""Property: whatever an HTTP server answers, the clients decide, and a second call costs nothing.

A loopback server plays responses drawn by Hypothesis: the status line, header names and
values (any bytes but CR and LF, UTF-8 and Latin-1 included), content codings, framing, bodies,
redirect targets (to other paths of the same server, to unusable URLs) and the pacing of every
chunk. Both clients are driven for each response. The only exceptions allowed are robotskit's
own, none is expected, and a second call within the TTL makes no request (counted at the server).
"""

from __future__ import annotations

import asyncio
import gzip
import threading
import zlib
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robotskit.client import AsyncRobotsClient, RobotsClient
from robotskit.errors import RobotskitError
from robotskit.policy.flow import RobotsEntry

from .servers.raw_server import Conn, RawServer, Step

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TIMEOUT = 0.5
PATHS = ["/robots.txt", "/a", "/b/c.txt", "/d?e=f"]


class Script:
    """The responses of the current example by request path, and the requests seen."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_path: dict[bytes, list[Step]] = {}
        self.requests = 0

    def play(self, conn: Conn) -> None:
        head = conn.read_until(b"\r\n\r\n")
        if not head:
            return
        parts = head.split(b" ", 2)
        path = parts[1] if len(parts) > 1 else b""
        with self.lock:
            self.requests += 1
            steps = self.by_path.get(path, [(0.0, b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")])
        conn.write(steps)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[RawServer, Script]]:
    script = Script()
    server = RawServer(script.play).start()
    yield server, script
    server.stop()


# --- strategies -------------------------------------------------------------------------------

STATUSES = [
    200,
    204,
    206,
    300,
    301,
    302,
    303,
    304,
    307,
    308,
    399,
    400,
    401,
    404,
    410,
    429,
    451,
    500,
    503,
    599,
]
# Field values a parser accepts (no controls), and, less often, any character but CR and LF.
_VALUE_CHARS = st.characters(blacklist_categories=("Cs", "Cc"))
_JUNK_CHARS = st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",))


def _status_line() -> st.SearchStrategy[bytes]:
    good = st.builds(
        lambda v, c, r: f"HTTP/{v} {c} {r}".encode(),
        st.sampled_from(["1.1", "1.0"]),
        st.one_of(st.sampled_from(STATUSES), st.sampled_from(STATUSES), st.integers(100, 999)),
        st.one_of(st.sampled_from(["OK", "Moved", "Busy", ""]), st.text(_VALUE_CHARS, max_size=10)),
    )
    bad = st.binary(max_size=30).filter(lambda b: b"\n" not in b and b"\r" not in b)
    # One status line in ten is junk; the rest must parse for the headers behind them to matter.
    return st.integers(0, 9).flatmap(lambda n: bad if n == 0 else good)


def _location(port: int) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(PATHS),
        st.sampled_from(PATHS).map(lambda p: f"http://127.0.0.1:{port}{p}"),
        st.sampled_from(PATHS).map(lambda p: f"http://bob:secret@127.0.0.1:{port}{p}"),
        st.sampled_from(
            [
                "data:text/plain,User-agent: *",
                "javascript:alert(1)",
                "mailto:a@b.c",
                "ftp://127.0.0.1:1/a%0d%0aDELE%20b",
                "gemini://127.0.0.1:1/" + "a" * 1100,
                "http://\u2603.invalid/robots.txt",
                "http://127.0.0.1:99999/",
                "http://[::1/",
                "https://127.0.0.1:1/robots.txt",
                "//127.0.0.1:1/x",
                "?q",
                "#frag",
                "",
            ]
        ),
        st.text(_VALUE_CHARS, max_size=40),
    )


CODINGS = ["gzip", "deflate", "x-gzip", "br", "identity", "zstd", "gzip, gzip", "gzip, deflate, gzip", "GZIP"]
NON_ASCII_NUMBERS = ["\u00b2", "\u0661\u0662", "\uff11\uff10", "1\u00b9", "\U0001d7d9"]
_ANY_VALUE = st.one_of(
    st.text(_VALUE_CHARS, max_size=30).map(lambda t: t.encode("utf-8")),
    st.text(_VALUE_CHARS, max_size=30).map(lambda t: t.encode("latin-1", "replace")),
    st.text(_JUNK_CHARS, max_size=10).map(lambda t: t.encode("utf-8")),
)


def _headers(port: int) -> st.SearchStrategy[list[tuple[bytes, bytes]]]:
    """Headers robotskit reads, each with values aimed at its parser, plus arbitrary ones."""
    number = st.one_of(
        st.integers(-5, 10**30).map(str),
        st.sampled_from(NON_ASCII_NUMBERS),
        st.just("Wed, 21 Oct 99999 07:28:00 GMT"),
        st.just("Wed, 21 Oct 2015 07:28:00 GMT"),
    )
    values: dict[bytes, st.SearchStrategy[bytes]] = {
        b"Location": _location(port).map(str.encode),
        b"Retry-After": st.one_of(number.map(str.encode), _ANY_VALUE),
        b"Cache-Control": st.one_of(number.map(lambda n: f"max-age={n}".encode()), _ANY_VALUE),
        b"Content-Encoding": st.one_of(
            st.sampled_from(CODINGS).map(str.encode),
            st.integers(1, 3000).map(lambda n: b", ".join([b"gzip"] * n)),
            _ANY_VALUE,
        ),
        b"Content-Type": _ANY_VALUE,
    }
    known = st.lists(st.sampled_from(sorted(values)), unique=True).flatmap(
        lambda names: st.tuples(*(st.tuples(st.just(n), values[n]) for n in names))
    )
    other = st.lists(
        st.tuples(st.from_regex(rb"\A[A-Za-z0-9!#$%&'*+.^_`|~-]{1,12}\Z"), _ANY_VALUE), max_size=2
    )
    return st.tuples(known, other).map(lambda pair: [*pair[0], *pair[1]])


def _body() -> st.SearchStrategy[bytes]:
    raw = st.binary(max_size=2000)
    return st.one_of(
        raw,
        raw.map(gzip.compress),
        raw.map(zlib.compress),
        st.just(b"User-agent: *\nDisallow: /private\n"),
    )


@st.composite
def responses(draw: st.DrawFn, port: int) -> list[Step]:
    """One response as paced byte chunks."""
    head = draw(_status_line()) + b"\r\n"
    for name, value in draw(_headers(port)):
        head += name + b": " + value + b"\r\n"
    body = draw(_body())
    framing = draw(st.sampled_from(["length", "length", "close", "chunked", "wrong length"]))
    if framing == "length":
        head += b"Content-Length: " + str(len(body)).encode() + b"\r\n"
    elif framing == "wrong length":
        head += b"Content-Length: " + str(len(body) + draw(st.integers(-3, 50))).encode() + b"\r\n"
    elif framing == "chunked":
        head += b"Transfer-Encoding: chunked\r\n"
        body = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in (body[:700], body[700:]) if c) + b"0\r\n\r\n"
    data = head + b"\r\n" + body
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=4)))
    pauses = draw(
        st.lists(st.sampled_from([0.0, 0.0, 0.01, 0.05, 0.2]), min_size=len(cuts) + 1, max_size=len(cuts) + 1)
    )
    bounds = [0, *cuts, len(data)]
    return [(pauses[i], data[bounds[i] : bounds[i + 1]]) for i in range(len(bounds) - 1)]


@st.composite
def scripts(draw: st.DrawFn, port: int) -> dict[bytes, list[Step]]:
    """A response for /robots.txt and for every path a redirect may lead to."""
    return {path.encode(): draw(responses(port)) for path in PATHS}


# --- the property ------------------------------------------------------------------------------


def _lookup_twice_sync(url: str, script: Script) -> tuple[RobotsEntry, int]:
    with RobotsClient("MyBot", timeout=TIMEOUT) as client:
        first = client.lookup(url)
        client.decide(url)
        before = script.requests
        second = client.lookup(url)
        client.decide(url)
        assert second == first
        return first, script.requests - before


def _lookup_twice_async(url: str, script: Script) -> tuple[RobotsEntry, int]:
    async def go() -> tuple[RobotsEntry, int]:
        async with AsyncRobotsClient("MyBot", timeout=TIMEOUT) as client:
            first = await client.lookup(url)
            await client.decide(url)
            before = script.requests
            second = await client.lookup(url)
            await client.decide(url)
            assert second == first
            return first, script.requests - before

    return asyncio.run(go())


@pytest.mark.parametrize("drive", [_lookup_twice_sync, _lookup_twice_async], ids=["sync", "async"])
def test_any_response_is_an_outcome_cached_for_its_ttl(
    served: tuple[RawServer, Script], drive: object
) -> None:
    """Any response: a Decision (never a foreign exception), and no request on the second call."""
    server, script = served

    @settings(
        max_examples=40,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(scripts(server.port))
    def check(by_path: dict[bytes, list[Step]]) -> None:
        with script.lock:
            script.by_path = by_path
        try:
            entry, extra = drive(server.url("/page"), script)  # type: ignore[operator]
        except RobotskitError as exc:  # allowed by the contract, though none is expected here
            pytest.fail(f"robotskit raised {exc!r} for a server's answer")
        assert extra == 0, entry
        assert entry.reason

    check()
