"""Hosts spelled once, against a real loopback server (issue 14).

Every numeric spelling of 127.0.0.1, with or without a trailing dot, is one authority: one
cache entry, one robots.txt request, and the request goes to the host the key names (the
server sees `Host: 127.0.0.1:<port>` whatever the caller wrote).
"""

from __future__ import annotations

import pytest

from robotskit import authority_key
from robotskit.client import RobotsClient

from .servers.http_server import HttpScenarioServer, Scenario

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROBOTS = b"User-agent: *\nDisallow: /private/\n"


def test_ipv4_spellings_share_one_entry_and_one_request(http_server: HttpScenarioServer) -> None:
    """2130706433, 127.1, 0177.0.0.1, 0x7f.0.0.1 and 127.0.0.1. are 127.0.0.1: fetched once, Host canonical."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS))
    port = http_server.port
    spellings = ["127.0.0.1", "2130706433", "127.1", "0177.0.0.1", "0x7f.0.0.1", "127.0.0.1.", "127.0.1"]
    with RobotsClient("MyBot") as client:
        for host in spellings:
            assert not client.allowed(f"http://{host}:{port}/private/x"), host
            assert client.allowed(f"http://{host}:{port}/public"), host
        assert len({authority_key(f"http://{h}:{port}/") for h in spellings}) == 1
    assert http_server.hits["/robots.txt"] == 1
    (_, _, headers), *_ = http_server.requests
    assert headers["host"] == f"127.0.0.1:{port}"


def test_redirect_to_another_spelling_is_requested_canonically(
    http_server: HttpScenarioServer,
) -> None:
    """A redirect whose Location spells the host numerically is requested under the canonical host."""
    port = http_server.port
    http_server.redirect("/robots.txt", f"http://2130706433:{port}/real-robots.txt")
    http_server.route("/real-robots.txt", Scenario(200, ROBOTS))
    with RobotsClient("MyBot") as client:
        entry = client.lookup(f"http://127.0.0.1:{port}/")
        assert entry.redirects == (f"http://127.0.0.1:{port}/real-robots.txt",)
        assert not client.allowed(f"http://127.0.0.1:{port}/private/x")
    hosts = [headers["host"] for _, path, headers in http_server.requests if path == "/real-robots.txt"]
    assert hosts == [f"127.0.0.1:{port}"]


def test_ipv6_compressions_share_one_entry() -> None:
    """[::0:1], [0:0:0:0:0:0:0:1] and [::1] give one key (no server needed: the key is the claim)."""
    keys = {authority_key(f"http://{h}:8080/") for h in ("[::1]", "[::0:1]", "[0:0:0:0:0:0:0:1]", "[0::1]")}
    assert keys == {"http://[::1]:8080"}
