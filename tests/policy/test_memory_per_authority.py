"""Memory kept per cached authority is bounded (issue 14), measured with tracemalloc.

A hostile 500 KiB file of 19,000 groups parses into about 12 MB of Python objects. A client
keeps per authority its entry (the body and a few fields) and, in one memo bounded in bytes,
for each agent asked a parse of the file reduced to the lines that agent's answers read
(robotskit.policy.parses). Measured: entries are built through the real policy path (a client
driving fetch_flow with MockFetcher), and each authority is used the way a crawler uses it
(allowed, decide, crawl_delay, sitemaps, another agent).
"""

from __future__ import annotations

import gc
import re
import tracemalloc

import pytest

from robotskit.client import RobotsClient
from robotskit.core.profiles import _TOKEN_CACHES
from robotskit.policy.parses import PARSE_MEMO_BUDGET, PARSES, ParseMemo, estimated_size, full_parse
from robotskit.testing import FrozenClock, MockFetcher, http_response

pytestmark = pytest.mark.slow

MB = 1_000_000
LIMIT = 500 * 1024


def hostile_body(seed: int) -> bytes:
    """19,000 groups in at most 500 KiB, each naming its own agent (no two files alike)."""
    letter = b"abcdefghijklmnopqrstuvwxyz"[seed % 26 : seed % 26 + 1]
    body = b"".join(b"user-agent:%x\nallow:/%s\n" % (i + seed, letter) for i in range(19_000))
    assert body.count(b"user-agent") == 19_000 and len(body) <= LIMIT, len(body)
    return body


def _use(client: RobotsClient, host: str) -> None:
    base = f"https://{host}"
    client.allowed(base + "/p1/x")
    client.decide(base + "/p1/x")
    client.allowed(base + "/p1/x", "1f")
    client.crawl_delay(base + "/")
    client.sitemaps(base + "/")


def _fresh_client() -> tuple[MockFetcher, RobotsClient]:
    """A client on an empty MockFetcher, with the shared parse memo emptied (nothing kept yet)."""
    fetcher = MockFetcher({})
    client = RobotsClient("MyBot", fetchers={"https": fetcher}, clock=FrozenClock())
    PARSES.clear()
    return fetcher, client


def _retained() -> int:
    """Memory traced now, without the process-wide memos bounded by count rather than by
    authority (user-agent tokens, compiled regexes): how full they happen to be depends on what
    ran before in the process, not on what a client keeps per host."""
    _TOKEN_CACHES.clear()
    re.purge()
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_memory_per_cached_authority_is_bounded() -> None:
    """Each further hostile authority a client caches and uses keeps at most 2 MB (measured: ~0.6 MB)."""
    hosts = [f"h{i}.example" for i in range(10)]
    fetcher, client = _fresh_client()
    tracemalloc.start()
    try:
        start = _retained()
        marks = []
        for i, host in enumerate(hosts):
            if i == 4:
                marks.append(_retained())
            # the body is allocated under tracemalloc: what the client keeps of it is counted
            fetcher.add(f"https://{host}/robots.txt", http_response(200, hostile_body(i + 1)))
            _use(client, host)
        after_all = _retained()
    finally:
        tracemalloc.stop()
    after_four = marks[0]
    per_authority = (after_all - after_four) / (len(hosts) - 4)
    total = after_all - start
    print(f"per authority {per_authority / MB:.2f} MB, total {total / MB:.1f} MB for {len(hosts)}")
    assert per_authority <= 2 * MB
    # everything else is the shared memo, bounded by its budget (its estimate is an upper one)
    assert total <= len(hosts) * 2 * MB + PARSE_MEMO_BUDGET
    assert PARSES.size <= PARSE_MEMO_BUDGET
    assert fetcher.count() == len(hosts)  # and the client answers from cache: one fetch each
    for host in hosts:  # evicted parses are rebuilt, answers unchanged
        assert client.allowed(f"https://{host}/x", "1f")


def test_one_hostile_authority_keeps_at_most_2_mb() -> None:
    """Everything a client keeps after using one hostile authority, its body included, is under 2 MB."""
    # Warm up what every process fills once (lazy imports, regex and token memos), so that only
    # what this authority adds is counted, whatever ran before in this process.
    warm = MockFetcher({"https://warm.example/robots.txt": http_response(200, hostile_body(97))})
    _use(RobotsClient("MyBot", fetchers={"https": warm}, clock=FrozenClock()), "warm.example")
    fetcher, client = _fresh_client()
    tracemalloc.start()
    try:
        start = _retained()
        fetcher.add("https://one.example/robots.txt", http_response(200, hostile_body(99)))
        _use(client, "one.example")
        kept = _retained() - start
    finally:
        tracemalloc.stop()
    print(f"one hostile authority keeps {kept / MB:.2f} MB")
    assert kept <= 2 * MB


def test_estimate_is_an_upper_bound_for_a_whole_parse() -> None:
    """The memo's size estimate is not below what tracemalloc measures for a used whole parse."""
    body = hostile_body(98)
    PARSES.clear()
    tracemalloc.start()
    try:
        start = _retained()
        whole = full_parse(body, False, None, "https://one.example/robots.txt")
        whole.allowed("https://one.example/x", "MyBot")
        whole.decide("https://one.example/x", "1f")
        whole.crawl_delay("MyBot")
        used = _retained() - start
    finally:
        tracemalloc.stop()
    print(
        f"whole parse of {len(body)} bytes holds {used / MB:.1f} MB; estimate {estimated_size(body) / MB:.1f} MB"
    )
    assert used <= estimated_size(body)


def test_memo_evicts_least_recently_used_within_budget() -> None:
    """The memo drops the least recently used parses to stay within its budget, and never keeps one larger."""
    from robotskit import parse

    memo = ParseMemo(budget=estimated_size(b"x" * 1000) * 2)
    keys = [
        (b"User-agent: *\nDisallow: /%d\n" % i + b"#" * 960, False, None, "https://a/robots.txt")
        for i in range(3)
    ]
    for key in keys:
        memo.get(key, lambda key=key: parse(key[0]))  # type: ignore[misc]
    assert len(memo) == 2 and memo.size <= memo.budget
    huge = (b"#" * 5000, False, None, "https://b/robots.txt")
    assert memo.get(huge, lambda: parse(huge[0])) is not None
    assert len(memo) == 2  # too big to keep: used and dropped
