"""The README's offline Python examples run, and every `# value` comment in them is what they return."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
_ONLINE = ("RobotsClient", "async with")  # examples that would fetch from the network


def _offline_blocks() -> list[str]:
    return [
        block for block in _BLOCK.findall(README.read_text()) if not any(word in block for word in _ONLINE)
    ]


def test_readme_has_offline_examples() -> None:
    """The README keeps runnable examples of the core API."""
    assert len(_offline_blocks()) >= 2


@pytest.mark.parametrize("block", _offline_blocks())
def test_readme_block_runs_and_comments_hold(block: str) -> None:
    """Every line `expr  # literal` in a README example evaluates to that literal."""
    import robotskit

    namespace: dict[str, object] = {"robotskit": robotskit}
    checked = 0
    for statement in ast.parse(block).body:
        source = ast.get_source_segment(block, statement) or ""
        exec(compile(ast.Module([statement], []), "README.md", "exec"), namespace)
        end_line = block.splitlines()[statement.end_lineno - 1]
        comment = end_line.partition("  # ")[2].strip()
        if isinstance(statement, ast.Expr) and comment:
            try:
                expected = ast.literal_eval(comment)
            except (ValueError, SyntaxError):
                continue  # prose comment, not a value
            assert eval(source, namespace) == expected, source
            checked += 1
    assert checked or "robotskit" in block
