"""The bundled crawler table: versioned, loadable from the package, internally consistent."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

import robotskit
from robotskit.crawlers import CATEGORIES, Crawler, load_crawlers, table_from_json


def test_table_is_versioned_and_sized() -> None:
    """The table has a version, an ISO date and between 60 and 100 crawlers."""
    table = load_crawlers()
    assert re.fullmatch(r"\d{4}\.\d+", table.version)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", table.date)
    assert 60 <= len(table) <= 100


def test_loaded_through_importlib_resources() -> None:
    """The JSON ships inside the package (robotskit/data/crawlers.json) and matches the loaded table."""
    raw = json.loads(resources.files("robotskit").joinpath("data/crawlers.json").read_text("utf-8"))
    assert [item["token"] for item in raw["crawlers"]] == [c.token for c in load_crawlers()]


def test_tokens_unique_case_insensitively() -> None:
    """No token appears twice (robots.txt matching is case-insensitive)."""
    tokens = [c.token.lower() for c in load_crawlers()]
    assert len(tokens) == len(set(tokens))


def test_every_category_is_populated() -> None:
    """Each documented category has at least one crawler, and no entry uses another category."""
    table = load_crawlers()
    for category in CATEGORIES:
        assert table.by_category(category), category
    assert all(set(c.categories) <= set(CATEGORIES) for c in table)


@pytest.mark.parametrize(
    ("token", "control_only", "ignores_star"),
    [
        ("Google-Extended", True, False),
        ("Applebot-Extended", True, False),
        ("AdsBot-Google", False, True),
        ("AdsBot-Google-Mobile", False, True),
        ("GPTBot", False, False),
    ],
)
def test_flags(token: str, control_only: bool, ignores_star: bool) -> None:
    """control_only and ignores_star are set on the documented tokens only."""
    crawler = load_crawlers().get(token.upper())
    assert crawler is not None
    assert (crawler.control_only, crawler.ignores_star) == (control_only, ignores_star)


def test_gemini_virtual_agents_present() -> None:
    """The four Gemini virtual agents are in the table under the gemini category."""
    tokens = {c.token for c in load_crawlers().by_category("gemini")}
    assert tokens == set(robotskit.GEMINI_PURPOSES)


def test_tokens_survive_product_token_reduction() -> None:
    """Each token reduces to a non-empty product token; ones that get cut say so in their notes."""
    for crawler in load_crawlers():
        reduced = robotskit.product_token(crawler.token)
        assert reduced, crawler.token
        if reduced != crawler.token:
            assert f"`{reduced}`" in crawler.notes, crawler.token


def test_custom_table_and_bad_category() -> None:
    """table_from_json builds custom tables and rejects unknown categories."""
    good = table_from_json(
        '{"version": "1", "date": "2026-01-01", "crawlers": '
        '[{"token": "X", "operator": "Y", "categories": ["seo"]}]}'
    )
    assert good.crawlers == (Crawler("X", "Y", ("seo",)),)
    with pytest.raises(ValueError, match="bad categories"):
        table_from_json(
            '{"version": "1", "date": "d", "crawlers": '
            '[{"token": "X", "operator": "Y", "categories": ["x"]}]}'
        )
    with pytest.raises(ValueError, match="unknown crawler category"):
        good.by_category("nope")
