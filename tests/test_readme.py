"""The README's Python examples: the offline ones run and every `# value` comment in them is what
they return; all of them (the fetching ones too) type-check under `mypy --strict`."""

from __future__ import annotations

import ast
import re
import textwrap
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


def _typed_module(block: str) -> str:
    """A README block as a module mypy can check: `robotskit` imported, top-level awaits in a coroutine."""
    if "await " in block or "async with" in block:
        block = "async def _example() -> None:\n" + textwrap.indent(block, "    ")
    return "import robotskit\n\n" + block


@pytest.mark.slow
def test_readme_blocks_type_check_strict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every README python block passes `mypy --strict` (a reader copying it gets no type errors)."""
    from mypy import api

    blocks = _BLOCK.findall(README.read_text())
    assert blocks
    files = []
    for number, block in enumerate(blocks):
        path = tmp_path / f"readme_block_{number}.py"
        path.write_text(_typed_module(block), encoding="utf-8")
        files.append(str(path))
    monkeypatch.setenv("MYPYPATH", str(README.parent / "src"))  # this checkout's robotskit
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\npython_version = 3.11\n", encoding="utf-8")
    out, err, status = api.run(
        ["--config-file", str(config), "--no-incremental", "--cache-dir", str(tmp_path / "cache"), *files]
    )
    assert status == 0, out + err
