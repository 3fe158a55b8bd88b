"""A parsed file is freed by reference counting when dropped, whatever was asked of it.

A reference cycle inside a parse (a view holding judgements that hold the view back, a check
whose closure holds the check) leaves every rule, group and compiled regex of the file to the
cycle collector: a batch run or a crawler parsing thousands of files then spends its time in
collections and holds dead parses until one runs.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

import robotskit
from robotskit import Agent
from robotskit.core.checker import Check

SMALL = b"User-agent: *\nDisallow: /private/\nAllow: /private/ok\n\nUser-agent: GPTBot\nDisallow: /\n"
WILD = b"User-agent: *\n" + b"".join(b"Disallow: /*a*%d*b\n" % i for i in range(40)) + b"Disallow: /*.pdf$\n"
BIG = b"User-agent: *\n" + b"".join(b"Disallow: /section%d/item%d/\n" % (i % 97, i) for i in range(600))
DEEP = b"User-agent: *\n" + b"".join(
    b"Disallow: /" + b"*a" * (6 + i % 9) + b"*b" * (1 + i % 3) + b"*a\n" for i in range(300)
)
HOST = "https://example.com"


@contextmanager
def _collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _use(body: bytes, profile: str | None) -> None:
    robots = robotskit.parse(body, profile)
    paths = ["/", "/private/x", "/private/ok", "/a1b", "/doc.pdf", "/section5/item5/x", "/" + "a" * 300 + "b"]
    for round_ in range(700):  # past the index, the compiled check and the trie's growth
        robots.allowed(HOST + paths[round_ % len(paths)] + f"?r={round_}", "Googlebot")
    robots.allowed(HOST + "/", "GPTBot")
    robots.decide(HOST + "/private/x", "Googlebot", explain=True)
    robots.decide(HOST + "/private/x", Agent("Googlebot-Image", fallbacks=["googlebot"]))
    robots.allowed("gemini://example.com/private/", "archiver")
    del robots


def _checks_take_weak_references() -> bool:
    try:
        weakref.ref(Check(lambda url: True))
    except TypeError:  # the mypyc build's native classes take none
        return False
    return True


@pytest.mark.skipif(
    not _checks_take_weak_references(),
    reason="the mypyc build's native Check takes no weak reference: a dropped file is freed by the "
    "cycle collector there (docs/benchmarks.md, the compiled build)",
)
@pytest.mark.parametrize("body", [SMALL, WILD, BIG, DEEP], ids=["small", "wildcards", "big", "deep"])
@pytest.mark.parametrize("profile", [None, "google"])
def test_a_dropped_parse_leaves_no_cycle(body: bytes, profile: str | None) -> None:
    """After every kind of question, dropping the parse frees it without the cycle collector."""
    _use(body, profile)  # warm process-wide memos (token and regex caches), which stay by design
    with _collector_off():
        _use(body, profile)
        found = gc.collect()
    assert found == 0
