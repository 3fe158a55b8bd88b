"""request_rate() with its window and visit_time(), as Protego offers them, on both drop-ins.

Each value is compared with what Protego itself returns for the same file, so code written
against Protego's API reads the same answers from robotskit's Scrapy parser and urllib drop-in.
"""

from __future__ import annotations

from datetime import time
from urllib.robotparser import RequestRate as UrllibRate

import pytest

protego = pytest.importorskip("protego")
pytest.importorskip("scrapy")

from robotskit.contrib.robotparser import RobotFileParser  # noqa: E402
from robotskit.contrib.scrapy import RobotParser  # noqa: E402

FILES = [
    "User-agent: *\nDisallow: /x\nRequest-rate: 1/5s 0600-0845\nVisit-time: 0400-0845\n",
    "User-agent: *\nDisallow: /x\nRequest-rate: 3/1m\nVisit-time: 0400 0845\n",
    "User-agent: *\nDisallow: /x\nRequest-rate: 10/1h 900-1730\n",
    "User-agent: *\nDisallow: /x\n",
    "User-agent: bot\nDisallow: /x\nRequest-rate: 2/30\nVisit-time: 2200-0300\n\nUser-agent: *\nDisallow: /\n",
]


@pytest.mark.parametrize("text", FILES)
@pytest.mark.parametrize("agent", ["bot", "other"])
def test_scrapy_parser_matches_protego(text: str, agent: str) -> None:
    """RobotParser.request_rate / visit_time equal Protego's named tuples field by field."""
    theirs = protego.Protego.parse(text)
    ours = RobotParser(text.encode())
    assert ours.request_rate(agent) == theirs.request_rate(agent)
    assert ours.visit_time(agent) == theirs.visit_time(agent)


@pytest.mark.parametrize("text", FILES)
def test_urllib_drop_in_adds_the_window_and_visit_time(text: str) -> None:
    """The urllib drop-in's request_rate stays urllib's 2-tuple, with Protego's window as attributes."""
    theirs = protego.Protego.parse(text)
    parser = RobotFileParser()
    parser.parse(text)
    rate, expected = parser.request_rate("bot"), theirs.request_rate("bot")
    if expected is None:
        assert rate is None
    else:
        assert rate is not None
        assert rate == UrllibRate(expected.requests, expected.seconds)
        assert (rate.start_time, rate.end_time) == (expected.start_time, expected.end_time)
    assert parser.visit_time("bot") == theirs.visit_time("bot")


def test_window_values_are_times() -> None:
    """The window is datetime.time values (UTC, as the Visit-time extension defines)."""
    ours = RobotParser(FILES[0].encode())
    rate = ours.request_rate("bot")
    assert rate is not None and (rate.start_time, rate.end_time) == (time(6, 0), time(8, 45))
    window = ours.visit_time("bot")
    assert window is not None and window.start_time == time(4, 0)


def test_malformed_windows_are_ignored() -> None:
    """Out-of-range or half windows yield no value, never an exception."""
    ours = RobotParser(b"User-agent: *\nDisallow: /x\nVisit-time: 2500-0100\nRequest-rate: 1/5s 0600-\n")
    assert ours.visit_time("bot") is None
    assert ours.request_rate("bot") is None
