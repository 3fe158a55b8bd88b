"""The lexer's all-ASCII path gives exactly the events of the general (decoding) path."""

from __future__ import annotations

from pathlib import Path

import pytest

from robotskit.core.lexer import lex

CORPUS = (Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "files").resolve()


def test_ascii_files_lex_as_the_general_path_does() -> None:
    """For every ASCII corpus file, `lex` equals the general path, forced by one non-ASCII line at
    the end (which leaves every earlier line's event unchanged)."""
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    checked = 0
    for path in sorted(CORPUS.glob("*.txt"))[::7]:
        body = path.read_bytes()
        if not body.isascii() or b"\r" in body[-2:] or len(body) > 200_000:
            continue
        separator = b"" if body.endswith((b"\n", b"\r")) or not body else b"\n"
        general = lex(body + separator + "# caf\u00e9\n".encode())
        assert lex(body) == general[:-1], path.name
        checked += 1
    assert checked > 500
