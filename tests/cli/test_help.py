"""Every subcommand's --help ends with examples and the exit codes."""

from __future__ import annotations

import pytest

from robotskit.cli._help import EXIT_CODES

from .conftest import Run

COMMANDS = [("check",), ("explain",), ("lint",), ("fetch",), ("audit",), ("diff",), ("cache",),
            ("cache", "info"), ("cache", "clear"), ()]  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "robotskit")
def test_help_ends_with_examples_and_exit_codes(run: Run, command: tuple[str, ...]) -> None:
    """`--help` exits 0; its text has an examples block naming the command, then the exit-code table."""
    result = run(*command, "--help")
    assert result.code == 0
    text = result.out.rstrip()
    assert text.endswith(EXIT_CODES.rstrip())
    examples = text[text.index("examples:") :]
    assert f"robotskit {command[0]}" in examples if command else "robotskit check" in examples
    for status in ("0 ", "1 ", "2 "):
        assert f"\n  {status}" in text[text.index("exit status:") :]


def test_batch_help_ends_with_examples_when_the_extra_is_installed(run: Run) -> None:
    """`robotskit batch --help` (the batch engineer's parser) also ends with examples and exit codes."""
    pytest.importorskip("robotskit.batch.cli")
    result = run("batch", "--help")
    assert result.code == 0 and result.out.rstrip().endswith(EXIT_CODES.rstrip())
    assert "robotskit batch report results.parquet" in result.out
