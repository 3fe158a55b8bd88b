"""The JSON endpoints of `robotskit serve`: the /api/decide contract, limits, errors and CSRF refusals."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

import robotskit
from robotskit.core.crawlers import load_crawlers
from robotskit.web import create_app
from robotskit.web.inputs import MAX_AGENTS, MAX_BODY_BYTES, MAX_CELLS, MAX_FILE_BYTES, MAX_URLS

from .conftest import PAGE

ROBOTS = (
    "User-agent: *\n"  # 1
    "Disallow: /private/\n"  # 2
    "Allow: /private/press/\n"  # 3
    "\n"  # 4
    "User-agent: GPTBot\n"  # 5
    "Disallow: /\n"  # 6
    "Disalow /typo\n"  # 7
)
POST_ROUTES = ["/api/decide", "/api/explain", "/api/audit", "/api/diff", "/api/fetch"]


def decide(client: TestClient, **body: object) -> dict[str, object]:
    payload = {"robots_txt": ROBOTS, "urls": [], "agents": [], "profile": None, **body}
    response = client.post("/api/decide", json=payload)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def test_decide_answers_one_verdict_per_url_and_agent_echoing_both(client: TestClient) -> None:
    """Verdicts come URL-major, echo the request's url and agent as sent, and give the deciding line."""
    urls = ["https://example.com/private/x", "/private/press/launch", "https://example.com/"]
    agents = ["MyBot/1.0", "GPTBot"]
    answer = decide(client, urls=urls, agents=agents)
    got = [(v["url"], v["agent"], v["allowed"], v["line"]) for v in answer["verdicts"]]  # type: ignore[attr-defined]
    assert got == [
        ("https://example.com/private/x", "MyBot/1.0", False, 2),
        ("https://example.com/private/x", "GPTBot", False, 6),
        ("/private/press/launch", "MyBot/1.0", True, 3),
        ("/private/press/launch", "GPTBot", False, 6),
        ("https://example.com/", "MyBot/1.0", True, None),
        ("https://example.com/", "GPTBot", False, 6),
    ]


def test_decide_verdicts_equal_the_library_for_each_profile(client: TestClient) -> None:
    """Each verdict is what robotskit.parse(...).decide says under the same profile."""
    urls = ["https://example.com/private/press/", "gemini://example.com/typo", "/typo"]
    for profile in ("rfc9309", "google", "gemini", None):
        robots = robotskit.parse(ROBOTS, profile)
        answer = decide(client, urls=urls, agents=["a", "GPTBot"], profile=profile)
        for verdict in answer["verdicts"]:  # type: ignore[attr-defined]
            expected = robots.decide(verdict["url"], verdict["agent"])
            assert verdict["allowed"] is expected.allowed
            assert verdict["line"] == (expected.rule.line if expected.rule else None)
            assert verdict["verdict"] == ("allowed" if expected.allowed else "disallowed")


def test_null_profile_chooses_per_url_as_parse_does(client: TestClient) -> None:
    """With profile null a gemini:// URL gets the Gemini profile (rules before any user-agent apply)."""
    body = "Disallow: /x\n"
    urls = ["gemini://example.org/x", "https://example.org/x"]
    auto = decide(client, robots_txt=body, urls=urls, agents=["bot"], profile=None)["verdicts"]
    rfc = decide(client, robots_txt=body, urls=urls, agents=["bot"], profile="rfc9309")["verdicts"]
    assert [v["allowed"] for v in auto] == [False, True]  # type: ignore[index]
    assert [v["allowed"] for v in rfc] == [True, True]  # type: ignore[index]
    assert [v["profile"] for v in auto] == ["gemini", "rfc9309"]  # type: ignore[index]


def test_decide_lists_lint_findings_with_line_rule_and_message(client: TestClient) -> None:
    """Lint findings carry the 1-based line, the rule id, the message and the hint, as robotskit.lint."""
    lint = decide(client)["lint"]
    expected = robotskit.lint.lint(robotskit.parse(ROBOTS))
    assert [(f["line"], f["rule"], f["message"], f["hint"]) for f in lint] == [  # type: ignore[attr-defined]
        (d.line, d.code, d.message, d.hint) for d in expected
    ]
    assert {(f["line"], f["rule"]) for f in lint} >= {(7, "RK110"), (7, "RK111")}  # type: ignore[attr-defined]


def test_explain_lists_the_deciding_rule_first_and_the_rules_that_lost(client: TestClient) -> None:
    """/api/explain gives every rule that matched the path, the deciding one first and marked."""
    response = client.post(
        "/api/explain",
        json={"robots_txt": ROBOTS, "url": "https://e.com/private/press/a", "agent": "bot", "profile": None},
    )
    assert response.status_code == 200
    answer = response.json()
    assert (answer["allowed"], answer["line"]) == (True, 3)
    assert [(r["line"], r["kind"], r["deciding"]) for r in answer["matched"]] == [
        (3, "allow", True),
        (2, "disallow", False),
    ]


def test_audit_reports_the_bundled_crawlers(client: TestClient) -> None:
    """/api/audit is robotskit.audit's report: GPTBot, named with `Disallow: /`, is fully blocked."""
    response = client.post("/api/audit", json={"robots_txt": ROBOTS, "profile": None})
    report = response.json()
    assert report["schema"] == "robotskit.audit/1"
    status = {c["token"]: c["status"] for c in report["crawlers"]}
    assert status["GPTBot"] == "full"
    assert len(status) == len(load_crawlers())


def test_diff_lists_only_the_cells_whose_verdict_changes(client: TestClient) -> None:
    """/api/diff compares two files over the same grid and reports before and after per changed cell."""
    draft = ROBOTS.replace("Allow: /private/press/\n", "")
    urls, agents = ["/private/press/a", "/private/x", "/"], ["bot", "GPTBot"]
    body = {"old_robots_txt": ROBOTS, "robots_txt": draft, "urls": urls, "agents": agents, "profile": None}
    answer = client.post("/api/diff", json=body).json()
    assert answer["compared"] == 6
    [change] = answer["changes"]
    assert (change["url"], change["agent"]) == ("/private/press/a", "bot")
    assert (change["before"]["allowed"], change["before"]["line"]) == (True, 3)
    assert (change["after"]["allowed"], change["after"]["line"]) == (False, 2)


def test_diff_is_the_engine_of_robotskit_diff(client: TestClient) -> None:
    """The answer is robotskit.diff_verdicts(...).to_dict() (schema robotskit.diff/1), with lines added;
    without URLs and agents it compares the files' own paths and agents, as `robotskit diff` does."""
    draft = ROBOTS.replace("User-agent: GPTBot\n", "User-agent: CCBot\n")
    for urls, agents in ((["/", "/private/press/x"], ["GPTBot", "CCBot", "x"]), ([], [])):
        body = {
            "old_robots_txt": ROBOTS,
            "robots_txt": draft,
            "urls": urls,
            "agents": agents,
            "profile": "google",
        }
        answer = client.post("/api/diff", json=body).json()
        expected = robotskit.diff_verdicts(
            robotskit.parse(ROBOTS, "google"), robotskit.parse(draft, "google"), urls, agents
        ).to_dict()
        for change in answer["changes"]:
            for side in (change["before"], change["after"]):
                assert side.pop("line") == (side["rule"]["line"] if side["rule"] else None)
        assert answer.pop("compared") == expected["summary"]["compared"]
        assert answer == expected
        assert answer["schema"] == "robotskit.diff/1"
        assert answer["changes"]


def test_crawlers_endpoint_lists_the_bundled_table_by_category(client: TestClient) -> None:
    """GET /api/crawlers gives the categories and every crawler of robotskit.crawlers.load_crawlers()."""
    answer = client.get("/api/crawlers").json()
    assert "ai-training" in answer["categories"]
    assert [c["token"] for c in answer["crawlers"]] == [c.token for c in load_crawlers()]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"robots_txt": 3, "urls": [], "agents": []}, 400, "robots_txt"),
        ({"robots_txt": "", "urls": "/x", "agents": []}, 400, "list of strings"),
        ({"robots_txt": "", "urls": [1], "agents": []}, 400, "list of strings"),
        ({"robots_txt": "", "urls": [], "agents": [], "profile": "bing"}, 400, "unknown profile"),
        ([], 400, "JSON object"),
        ({"robots_txt": "x" * (MAX_FILE_BYTES + 1), "urls": [], "agents": []}, 413, "500 KiB"),
        ({"robots_txt": "", "urls": ["/"] * (MAX_URLS + 1), "agents": []}, 413, "10,000"),
        ({"robots_txt": "", "urls": [], "agents": ["a"] * (MAX_AGENTS + 1)}, 413, "200"),
        ({"robots_txt": "", "urls": ["/"] * MAX_URLS, "agents": ["a"] * 11}, 413, f"{MAX_CELLS:,}"),
    ],
)
def test_bad_or_oversized_input_is_a_4xx_with_a_clear_error(
    client: TestClient, body: object, status: int, words: str
) -> None:
    """Wrong types, unknown profiles and inputs over the limits answer 4xx JSON naming the problem."""
    response = client.post("/api/decide", json=body)
    assert response.status_code == status
    assert words in response.json()["error"]


def test_a_file_of_exactly_500_kib_is_accepted(client: TestClient) -> None:
    """The limit is inclusive: 512,000 bytes is served (multi-byte characters counted as bytes)."""
    body = "#" + "é" * ((MAX_FILE_BYTES - 1) // 2)
    assert len(body.encode()) <= MAX_FILE_BYTES
    assert decide(client, robots_txt=body)["size"] == len(body.encode())
    over = "é" * (MAX_FILE_BYTES // 2 + 1)  # fewer characters than the limit, more bytes
    assert client.post("/api/decide", json={"robots_txt": over, "urls": [], "agents": []}).status_code == 413


def test_non_json_and_oversized_bodies_are_refused_before_parsing(client: TestClient) -> None:
    """A body that is not JSON is a 400; one over the request bound is a 413 without being read whole."""
    response = client.post("/api/decide", content=b"{not json")
    assert response.status_code == 400
    assert "not JSON" in response.json()["error"]
    deep = b"[" * 100_000 + b"]" * 100_000
    assert client.post("/api/decide", content=deep).status_code == 400
    big = json.dumps({"robots_txt": "", "urls": ["/" + "x" * 8000] * 1000, "agents": []}).encode()
    assert len(big) > MAX_BODY_BYTES
    response = client.post("/api/decide", content=big)
    assert response.status_code == 413


@pytest.mark.parametrize("path", POST_ROUTES)
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "http://127.0.0.1:8010"},  # another port is another origin
        {"Origin": "https://127.0.0.1:8009"},  # another scheme too
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
    ],
)
def test_every_post_refuses_a_foreign_origin(client: TestClient, path: str, headers: dict[str, str]) -> None:
    """A POST whose Origin is not the page's own (or marked cross-site) is a 403 and is not processed."""
    response = client.post(
        path, json={"robots_txt": "", "urls": [], "agents": [], "url": "x"}, headers=headers
    )
    assert response.status_code == 403
    assert "refused" in response.json()["error"]


def test_the_route_table_has_no_unguarded_post(client: TestClient) -> None:
    """The CSRF test above covers every POST route the app has."""
    app = client.app
    posts = sorted(r.path for r in app.routes if "POST" in (getattr(r, "methods", None) or ()))  # type: ignore[attr-defined]
    assert posts == sorted(POST_ROUTES)


def test_same_origin_and_origin_less_posts_are_served(client: TestClient) -> None:
    """The page's own Origin, with or without the default port spelled out, and no Origin (curl) pass."""
    body = {"robots_txt": ROBOTS, "urls": ["/"], "agents": ["a"]}
    for headers in ({"Origin": PAGE}, {"Origin": PAGE, "Sec-Fetch-Site": "same-origin"}, {}):
        assert client.post("/api/decide", json=body, headers=headers).status_code == 200
    with TestClient(client.app, base_url="http://localhost") as other:
        response = other.post("/api/decide", json=body, headers={"Origin": "http://localhost:80"})
        assert response.status_code == 200


def test_foreign_host_names_are_refused_on_loopback(client: TestClient) -> None:
    """DNS rebinding: a request naming another host, even same-origin to itself, gets no answer."""
    with TestClient(client.app, base_url="http://rebound.example:8009") as other:
        assert other.get("/").status_code == 421
        response = other.post(
            "/api/decide", json={"robots_txt": ""}, headers={"Origin": "http://rebound.example:8009"}
        )
        assert response.status_code == 421


def test_the_page_and_its_assets_are_served_with_a_strict_policy(client: TestClient) -> None:
    """GET / is the page with the documented element ids; no inline script is allowed by the CSP."""
    response = client.get("/")
    assert response.status_code == 200
    for marker in ('id="robots"', 'id="urls"', 'id="agents"', 'id="profile"', 'value="gemini"'):
        assert marker in response.text
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/app.css").status_code == 200
    missing = client.get("/nope")
    assert missing.status_code == 404
    assert "error" in missing.json()


def test_lone_surrogates_are_echoed_exactly(client: TestClient) -> None:
    """JSON strings may hold lone surrogates; they come back as sent instead of breaking the answer."""
    body = json.dumps(
        {"robots_txt": "User-agent: *\nDisallow: /\ud800\n", "urls": ["/\ud800"], "agents": ["\udfff"]}
    )
    response = client.post("/api/decide", content=body)
    assert response.status_code == 200
    verdict = json.loads(response.content)["verdicts"][0]
    assert (verdict["url"], verdict["agent"], verdict["line"]) == ("/\ud800", "\udfff", 2)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_fields = st.fixed_dictionaries(
    {},
    optional={
        "robots_txt": st.text(max_size=200) | _json_values,
        "old_robots_txt": st.text(max_size=200) | _json_values,
        "urls": st.lists(st.text(max_size=40), max_size=5) | _json_values,
        "agents": st.lists(st.text(max_size=20), max_size=4) | _json_values,
        "profile": st.sampled_from([None, "", "rfc9309", "google", "gemini", "bing"]) | _json_values,
        "url": st.text(max_size=40) | _json_values,
        "agent": st.text(max_size=20) | _json_values,
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(["/api/decide", "/api/explain", "/api/audit", "/api/diff"]),
    body=_fields | _json_values,
)
def test_any_json_gets_an_answer_or_a_4xx_never_a_crash(client: TestClient, path: str, body: object) -> None:
    """Whatever JSON arrives, the answer is 200 or a 4xx with an error message: never a 500."""
    response = client.post(path, content=json.dumps(body))
    assert response.status_code in (200, 400, 413), response.text
    if response.status_code != 200:
        assert response.json()["error"]


def test_ipv6_loopback_is_a_page_origin_too(client: TestClient) -> None:
    """Served on [::1], the page's own Origin passes and another port's is refused."""
    with TestClient(client.app, base_url="http://[::1]:8009") as other:
        body = {"robots_txt": "", "urls": [], "agents": []}
        assert (
            other.post("/api/decide", json=body, headers={"Origin": "http://[::1]:8009"}).status_code == 200
        )
        assert other.post("/api/decide", json=body, headers={"Origin": "http://[::1]:9"}).status_code == 403


def test_beyond_loopback_any_host_is_answered_but_origins_still_checked() -> None:
    """With allowed_hosts=None (a --host beyond loopback) any Host is served; CSRF refusals still hold."""
    with TestClient(create_app(allowed_hosts=None), base_url="http://tester.lan:8009") as client:
        body = {"robots_txt": "", "urls": [], "agents": []}
        assert client.get("/").status_code == 200
        assert (
            client.post("/api/decide", json=body, headers={"Origin": "http://tester.lan:8009"}).status_code
            == 200
        )
        assert (
            client.post("/api/decide", json=body, headers={"Origin": "http://evil.example"}).status_code
            == 403
        )


def test_diff_with_its_default_grid_keeps_the_request_limits(client: TestClient) -> None:
    """With no urls and agents, 14,000 named agents made a 2.8-million-pair diff (8.5 s, 200)."""
    many = "".join(f"User-agent: bot{i}\nDisallow: /p{i}/\n" for i in range(MAX_AGENTS + 1))
    body = {"old_robots_txt": many, "robots_txt": ROBOTS, "urls": [], "agents": [], "profile": None}
    response = client.post("/api/diff", json=body)
    assert response.status_code == 413 and "give `urls` and `agents`" in response.json()["error"]
    small = {
        "old_robots_txt": ROBOTS,
        "robots_txt": ROBOTS.replace("Disallow: /\n", ""),
        "urls": [],
        "agents": [],
    }
    answer = client.post("/api/diff", json={**small, "profile": None}).json()
    assert answer["compared"] > 0 and answer["changes"]  # the default grid still works


def test_a_grid_past_its_work_budget_is_refused_whole(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cell cap bounds the answer's size, not its cost: a fuzzed grid within every limit took 173 s."""
    from robotskit.web import analysis

    monkeypatch.setattr(analysis, "WORK_SECONDS", 0.0)  # (every grid is over it: the refusal path)
    urls = [f"/x{i}" for i in range(40)]
    response = client.post(
        "/api/decide", json={"robots_txt": ROBOTS, "urls": urls, "agents": ["bot"], "profile": None}
    )
    assert response.status_code == 413 and "send fewer URLs or agents" in response.json()["error"]
    monkeypatch.setattr(analysis, "WORK_SECONDS", 10.0)
    assert len(decide(client, urls=urls, agents=["bot"])["verdicts"]) == 40  # type: ignore[arg-type]
