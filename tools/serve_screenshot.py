"""Take docs/serve.png: the tester page at laptop width, with an example file, URLs, agents and a diff.

Usage: PYTHONPATH=src python tools/serve_screenshot.py [OUT.png] [WIDTH] [HEIGHT]
Needs the web and test extras and Debian's chromium (as the browser tests do).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.web.browser import browser, chromium_path, served  # noqa: E402

ROBOTS = """# https://example.com/robots.txt
User-agent: *
Disallow: /private/
Allow: /private/press/
Disalow /tmp

User-agent: GPTBot
User-agent: CCBot
Disallow: /

User-agent: Googlebot
Allow: /
Crawl-delay: 5
Sitemap: /sitemap.xml
"""
URLS = [
    "https://example.com/",
    "https://example.com/private/report.pdf",
    "https://example.com/private/press/launch",
    "/tmp/cache",
]


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "serve.png"
    width = int(sys.argv[2]) if len(sys.argv) > 2 else 1366
    height = int(sys.argv[3]) if len(sys.argv) > 3 else 1240
    executable = chromium_path()
    if executable is None:
        print("no chromium found: apt-get install chromium", file=sys.stderr)
        return 2
    with served() as url, browser(executable) as chromium:
        page = chromium.new_page(viewport={"width": width, "height": height})
        page.goto(url)
        page.fill("#robots", ROBOTS)
        page.click("#set-baseline")
        page.fill("#robots", ROBOTS.replace("Allow: /private/press/\n", ""))
        page.fill("#urls", "\n".join(URLS))
        page.fill("#agents", "Googlebot\nGPTBot\nbingbot")
        target = '.cell[data-url="https://example.com/private/press/launch"][data-agent="bingbot"]'
        page.wait_for_selector(target)
        page.wait_for_selector(".change")
        page.click(target)
        page.wait_for_selector("#explain .matched")
        page.screenshot(path=str(out))
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
