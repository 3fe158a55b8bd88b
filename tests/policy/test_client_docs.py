"""docs/client.md: every Python example in the client guide runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import robotskit

DOC = Path(__file__).resolve().parents[2] / "docs" / "client.md"
BLOCKS = (
    re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    if DOC.exists()
    else []
)
RUNNABLE = [b for b in BLOCKS if not b.startswith("# needs network")]
EXPORTS = ("RobotsClient", "AsyncRobotsClient", "authority_key", "robots_txt_url")


@pytest.mark.parametrize("code", RUNNABLE, ids=[f"block{i}" for i in range(len(RUNNABLE))])
def test_client_guide_example_runs(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each offline example of docs/client.md executes without error (its asserts included)."""
    missing = [name for name in EXPORTS if not hasattr(robotskit, name)]
    if missing:
        pytest.skip(f"robotskit/__init__.py does not export {missing} yet")
    exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})


def test_client_guide_has_examples() -> None:
    """The guide exists and has several offline examples (so the test above cannot pass vacuously)."""
    assert len(RUNNABLE) >= 5
