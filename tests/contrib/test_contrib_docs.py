"""The copy-paste examples in the ecosystem guides run as written.

Every ```python block of each guide is executed in order in one namespace (blocks fenced as
```python no-run need the network and are only compiled). The JSON schema sample of
docs/audit.md must have exactly the keys `AuditReport.to_dict()` produces.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import robotskit
from robotskit.audit import audit

DOCS = Path(__file__).resolve().parents[2] / "docs"
GUIDES = ["scrapy.md", "robotparser.md", "ai-preferences.md", "audit.md", "httpx.md"]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```\s*$", re.DOTALL | re.MULTILINE)


def _blocks(name: str, language: str) -> list[tuple[str, str]]:
    text = (DOCS / name).read_text(encoding="utf-8")
    return [
        (info.strip(), body) for info, body in FENCE.findall(text) if info.strip().split(" ")[0] == language
    ]


@pytest.mark.parametrize("name", GUIDES)
def test_guide_python_examples_run(name: str) -> None:
    """Each guide's Python examples execute without error (their asserts hold)."""
    if name == "scrapy.md":
        pytest.importorskip("scrapy")
    blocks = _blocks(name, "python")
    assert blocks, f"{name} has no python examples"
    namespace: dict[str, object] = {"__name__": f"docs_{name}"}
    for info, body in blocks:
        code = compile(body, f"{name}:{info}", "exec")
        if "no-run" not in info.split():
            exec(code, namespace)


def test_audit_json_sample_matches_schema() -> None:
    """The JSON sample in docs/audit.md has the same keys, at every level, as to_dict()."""
    (sample_block,) = [body for _, body in _blocks("audit.md", "json")]
    sample = json.loads(sample_block)
    real = audit(
        robotskit.parse(b"User-agent: *\nDisallow: /private/\n\nUser-agent: GPT-Bot\nDisallow: /\n")
    ).to_dict()
    assert set(sample) == set(real)
    assert set(sample["crawlers"][0]) == set(real["crawlers"][0])
    assert set(sample["crawlers"][0]["ignored_rules"][0]) == {
        "line",
        "kind",
        "pattern",
        "group_line",
        "reason",
    }
    assert set(sample["unknown_agents"][0]) == set(real["unknown_agents"][0])
    assert sample["schema"] == real["schema"]
