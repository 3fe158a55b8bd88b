"""robotskit.audit: per-crawler block status, rules that do nothing, and the to_dict schema."""

from __future__ import annotations

import json

import robotskit
from robotskit.audit import audit, sample_paths
from robotskit.crawlers import Crawler

BODY = b"""User-agent: *
Disallow: /private/
Disallow: /*.pdf$

User-agent: GPTBot
Disallow: /

User-agent: Googlebot
Allow: /

User-agent: Google-Extended
Disallow: /

User-agent: CCbot
Disallow: /archive/

User-agent: GPT-Bot
Disallow: /

User-agent: MyOwnBot
Disallow: /
"""


def _report() -> dict[str, dict[str, object]]:
    report = audit(robotskit.parse(BODY)).to_dict()
    return {item["token"]: item for item in report["crawlers"]}


def test_sample_paths_from_rules() -> None:
    """Sample paths are `/` plus one concrete path per rule pattern (`*` filled, `$` dropped)."""
    paths = sample_paths(robotskit.parse(BODY))
    assert paths[0] == "/"
    assert "/private/" in paths and "/x.pdf" in paths and "/archive/" in paths


def test_status_full_partial_none() -> None:
    """GPTBot is blocked fully, CCBot and star-only crawlers partly, Googlebot not at all."""
    by_token = _report()
    assert by_token["GPTBot"]["status"] == "full"
    assert by_token["CCBot"]["status"] == "partial"
    assert by_token["CCBot"]["blocked"] == ["/archive/"]
    assert by_token["Bingbot"]["status"] == "partial"
    assert set(by_token["Bingbot"]["blocked"]) == {"/private/", "/x.pdf"}
    assert by_token["Googlebot"]["status"] == "none"


def test_star_rules_do_nothing_for_crawler_with_own_group() -> None:
    """Googlebot has its own group, so every `*` rule is reported as doing nothing for it."""
    ignored = _report()["Googlebot"]["ignored_rules"]
    assert {(r["line"], r["kind"]) for r in ignored} == {(2, "disallow"), (3, "disallow")}
    assert all("own group" in r["reason"] for r in ignored)


def test_near_miss_group_reported() -> None:
    """A `GPT-Bot` group is reported as not matching GPTBot, and as an unknown agent with a suggestion."""
    report = audit(robotskit.parse(BODY)).to_dict()
    gpt = next(c for c in report["crawlers"] if c["token"] == "GPTBot")
    assert any(r["group_line"] == 17 and "GPT-Bot" in r["reason"] for r in gpt["ignored_rules"])
    unknown = {u["token"]: u for u in report["unknown_agents"]}
    assert unknown["GPT-Bot"]["suggestion"] == "GPTBot"
    assert unknown["MyOwnBot"]["suggestion"] is None
    assert "CCbot" not in unknown  # case-insensitive match with CCBot


def test_control_only_note() -> None:
    """Google-Extended is flagged control-only with an explanatory note, and is fully blocked here."""
    item = _report()["Google-Extended"]
    assert item["control_only"] is True
    assert item["status"] == "full"
    assert any("control-only" in note for note in item["notes"])


def test_ignores_star_crawler() -> None:
    """AdsBot-Google ignores `*`: not blocked, with the `*` rules listed as doing nothing."""
    item = _report()["AdsBot-Google"]
    assert item["status"] == "none"
    assert item["groups"] == []
    assert {r["line"] for r in item["ignored_rules"]} == {2, 3}
    named = audit(robotskit.parse(b"User-agent: AdsBot-Google\nDisallow: /\n"), ["AdsBot-Google"])
    assert named.crawlers[0].status == "full"


def test_custom_crawlers_and_paths() -> None:
    """Plain tokens and Crawler values can be audited on caller-chosen paths."""
    report = audit(
        robotskit.parse(BODY), ["MyOwnBot", Crawler("Other", "Me", ("seo",))], paths=["/a", "/private/b"]
    )
    assert [c.crawler.token for c in report.crawlers] == ["MyOwnBot", "Other"]
    assert report.crawlers[0].status == "full"
    assert report.crawlers[1].blocked == ("/private/b",)
    assert report.sample_paths == ("/a", "/private/b")


def test_to_dict_schema_is_json() -> None:
    """to_dict() is JSON-serialisable and carries the schema id, table version and summary counts."""
    report = audit(robotskit.parse(BODY))
    data = json.loads(json.dumps(report.to_dict()))
    assert data["schema"] == "robotskit.audit/1"
    assert data["table"]["version"]
    assert sum(data["summary"].values()) == len(data["crawlers"])
    keys = {
        "token",
        "operator",
        "categories",
        "control_only",
        "ignores_star",
        "notes",
        "fallbacks",
        "fallbacks_source",
        "fallbacks_read",
        "status",
        "groups",
        "own_group",
        "obeys",
        "blocked",
        "allowed",
        "ignored_rules",
    }
    assert all(set(item) == keys for item in data["crawlers"])


def test_empty_file_blocks_nobody() -> None:
    """An empty robots.txt leaves every crawler unblocked."""
    report = audit(robotskit.parse(b""))
    assert report.summary() == {"full": 0, "partial": 0, "none": len(report.crawlers)}
