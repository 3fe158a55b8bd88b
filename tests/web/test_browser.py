"""The tester page in a real headless Chromium: load, type, read the grid, explain, lint, keyboard, diff, XSS.

Each test drives `robotskit serve` (started by the suite on 127.0.0.1, port 0) through Debian's
Chromium with Playwright. They skip, saying why, when Chromium or Playwright is absent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import robotskit
from tests.integration.servers.http_server import HttpScenarioServer, Scenario

from .browser import browser, chromium_path, served

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROBOTS = (
    "User-agent: *\n"  # 1
    "Disallow: /private/\n"  # 2
    "Allow: /private/press/\n"  # 3
    "\n"  # 4
    "User-agent: GPTBot\n"  # 5
    "Disallow: /\n"  # 6
    "Disalow /typo\n"  # 7
)
URLS = ["https://example.com/", "https://example.com/private/a", "https://example.com/private/press/b"]
AGENTS = ["MyBot", "GPTBot"]


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served() as url:
        yield url


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    executable = chromium_path()
    if executable is None:
        pytest.skip("no system Chromium (apt-get install chromium, or set ROBOTSKIT_CHROMIUM)")
    with browser(executable) as launched:
        yield launched


@pytest.fixture
def page(chromium: Browser, base_url: str) -> Iterator[Page]:
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    opened.goto(base_url)
    yield opened
    context.close()


def cell(url: str, agent: str) -> str:
    return f'.cell[data-url="{url}"][data-agent="{agent}"]'


def fill_grid(page: Page, robots_txt: str = ROBOTS) -> None:
    page.fill("#robots", robots_txt)
    page.fill("#urls", "\n".join(URLS))
    page.fill("#agents", "\n".join(AGENTS))
    page.wait_for_selector(cell(URLS[-1], AGENTS[-1]))


def test_load_a_file_type_urls_and_read_the_grid(page: Page, base_url: str, tmp_path: Path) -> None:
    """A file loaded through the file input and URLs typed key by key give the library's verdicts,
    and no request leaves the page's own origin."""
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    local = tmp_path / "robots.txt"
    local.write_text(ROBOTS, encoding="utf-8")
    page.set_input_files("#file", str(local))
    page.wait_for_function("document.querySelector('#robots').value.includes('GPTBot')")
    assert page.input_value("#robots") == ROBOTS
    page.click("#urls")
    page.keyboard.type("\n".join(URLS))
    page.click("#agents")
    page.keyboard.type("\n".join(AGENTS))
    page.wait_for_selector(cell(URLS[-1], AGENTS[-1]))
    robots = robotskit.parse(ROBOTS)
    cells = page.eval_on_selector_all(
        ".cell", "cs => cs.map(c => [c.dataset.url, c.dataset.agent, c.dataset.verdict])"
    )
    expected = [
        [url, agent, "allowed" if robots.allowed(url, agent) else "disallowed"]
        for url in URLS
        for agent in AGENTS
    ]
    assert cells == expected
    assert requests and all(url.startswith(base_url) for url in requests), requests


def test_clicking_a_cell_highlights_its_deciding_line_and_lists_the_rules(page: Page) -> None:
    """A click marks the deciding line in the editor and lists the rule that decided and the one that lost."""
    fill_grid(page)
    page.click(cell(URLS[2], "MyBot"))
    highlighted = page.wait_for_selector("[data-deciding-line]")
    assert highlighted.get_attribute("data-deciding-line") == "3"
    page.wait_for_selector("#explain .matched")
    rules = page.eval_on_selector_all("#explain .matched li", "ls => ls.map(l => l.textContent)")
    assert rules[0].startswith("decides") and "Allow: /private/press/" in rules[0]
    assert rules[1].startswith("lost") and "Disallow: /private/" in rules[1]
    page.click(cell(URLS[0], "GPTBot"))
    page.wait_for_selector('[data-deciding-line="6"]')
    assert page.locator("[data-deciding-line]").count() == 1


def test_lint_findings_are_markers_on_their_lines(page: Page) -> None:
    """The misspelt, colon-less line 7 carries a marker with the rule ids and the hint."""
    fill_grid(page)
    marker = page.wait_for_selector('[data-lint-line="7"]')
    title = marker.get_attribute("title") or ""
    assert "RK110" in title and "RK111" in title
    assert "write `Disallow:`" in title
    listed = page.locator("#lint li").all_text_contents()
    assert any("RK111" in item and "Disallow:" in item for item in listed)


def test_keyboard_only_reaches_cells_and_marks_lines(page: Page) -> None:
    """Tab reaches the grid from the agents box; Enter marks the line; arrow keys move between cells."""
    fill_grid(page)
    page.focus("#agents")
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('cell')"):
            break
    focused = page.evaluate("[document.activeElement.dataset.url, document.activeElement.dataset.agent]")
    assert focused == [URLS[0], AGENTS[0]]
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_selector('[data-deciding-line="2"]')  # MyBot on /private/a: Disallow: /private/
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.wait_for_selector('[data-deciding-line="6"]')  # GPTBot: Disallow: /


def test_editing_the_file_updates_the_grid_without_a_reload(page: Page) -> None:
    """Typing in the editor changes the verdicts in place: the page (and a flag set on it) stays."""
    fill_grid(page)
    page.wait_for_selector(cell(URLS[0], "MyBot") + '[data-verdict="allowed"]')
    page.evaluate("window.__same_page = true")
    page.click("#robots")
    page.keyboard.press("Control+End")
    page.keyboard.type("\nUser-agent: MyBot\nDisallow: /\n")
    page.wait_for_selector(cell(URLS[0], "MyBot") + '[data-verdict="disallowed"]')
    assert page.evaluate("window.__same_page") is True


def test_a_lint_entry_selects_its_line_in_the_editor(page: Page) -> None:
    """The "line N" button of a finding selects that line and marks it (not as a deciding line)."""
    fill_grid(page)
    page.click('#lint button[data-goto-line="7"]')
    page.wait_for_selector('[data-focus-line="7"]')
    assert page.locator("[data-deciding-line]").count() == 0
    selected = page.evaluate(
        "(t => t.value.slice(t.selectionStart, t.selectionEnd))(document.querySelector('#robots'))"
    )
    assert selected == "Disalow /typo"


def test_profile_choice_changes_the_verdicts(page: Page) -> None:
    """Rules before any user-agent line bind every agent under the gemini profile only."""
    fill_grid(page, "Disallow: /private/\n")
    page.wait_for_selector(cell(URLS[1], "MyBot") + '[data-verdict="allowed"]')
    page.select_option("#profile", "gemini")
    page.wait_for_selector(cell(URLS[1], "MyBot") + '[data-verdict="disallowed"]')


def test_fetch_from_site_then_diff_the_draft(page: Page) -> None:
    """Fetch shows the policy outcome (503: complete disallow); a fetched file is the diff's baseline."""
    down, up = HttpScenarioServer().start(), HttpScenarioServer().start()
    try:
        down.route("/robots.txt", Scenario(503, b"busy"))
        up.route("/robots.txt", Scenario(200, ROBOTS.encode()))
        page.fill("#site", down.url("/"))
        page.click("#fetch")
        page.wait_for_selector("#fetch-outcome:has-text('HTTP 503: complete disallow')")
        page.fill("#site", up.url("/"))
        page.press("#site", "Enter")
        page.wait_for_selector("#fetch-outcome:has-text('HTTP 200')")
        assert page.input_value("#robots") == ROBOTS
    finally:
        down.stop()
        up.stop()
    page.fill("#urls", "\n".join(URLS))
    page.fill("#agents", "\n".join(AGENTS))
    page.fill("#robots", ROBOTS.replace("Allow: /private/press/\n", ""))
    page.click("#run-diff")
    change = page.wait_for_selector(f'.change[data-url="{URLS[2]}"][data-agent="MyBot"]')
    assert (change.get_attribute("data-before"), change.get_attribute("data-after")) == (
        "allowed",
        "disallowed",
    )
    assert page.locator(".change").count() == 1


def test_markup_in_the_file_urls_and_agents_stays_text(page: Page) -> None:
    """Script and onerror payloads in the file, a URL and an agent render as text: no element is
    created from them and the flag they would set stays unset (checked beside the CSP, not through it)."""
    payload_line = "Disallow: /<script>window.__pwned=1</script>"
    robots_txt = f'User-agent: *\n{payload_line}\n"><img src=x onerror="window.__pwned=2">\n'
    url = "/<script>window.__pwned=1</script>"
    agent = "<img src=x onerror=window.__pwned=4>"
    page.fill("#robots", robots_txt)
    page.fill("#urls", f'{url}\n/"><img src=x onerror="window.__pwned=3">')
    page.fill("#agents", agent)
    page.wait_for_selector("#lint li")
    target = page.wait_for_selector(f".cell[data-agent='{agent}']")
    target.click()
    page.wait_for_selector("#explain .matched")
    assert page.evaluate("window.__pwned") is None
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    assert page.evaluate("document.querySelectorAll('script').length") == 1  # the page's own app.js
    assert payload_line in page.locator("#explain .matched").text_content()  # type: ignore[operator]
    assert page.locator("th.url").first.text_content() == url
    assert page.locator("thead th").nth(1).text_content() == agent


def test_phone_width_has_no_sideways_scroll(chromium: Browser, base_url: str) -> None:
    """At 390 px the page stacks into one column: nothing is wider than the screen but scrolling tables."""
    context = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        phone = context.new_page()
        phone.goto(base_url)
        fill_grid(phone)
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
