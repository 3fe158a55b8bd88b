"""`lint --select/--ignore` and `lint(select=, ignore=)`: ids or prefixes, the most specific one decides."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import robotskit
from robotskit.lint import lint, wanted

from .conftest import Run

# Line 2: RK211 (warning, `$` inside), line 4: RK301 (info, duplicate of line 3), line 5: RK201 (warning).
BODY = "User-agent: *\nDisallow: /a$b\nDisallow: /c\nDisallow: /c\nNoidex: /x\n"
ALL = {("RK211", 2), ("RK301", 4), ("RK201", 5)}

# (id, select, ignore, code, reported?)
WANTED: list[tuple[str, tuple[str, ...], tuple[str, ...], str, bool]] = [
    ("nothing-given", (), (), "RK301", True),
    ("prefix-selects", ("RK3",), (), "RK301", True),
    ("prefix-leaves-out", ("RK3",), (), "RK211", False),
    ("exact-selects", ("RK211",), (), "RK211", True),
    ("ignore-prefix", (), ("RK2",), "RK211", False),
    ("ignore-other", (), ("RK2",), "RK301", True),
    ("longer-ignore-wins", ("RK3",), ("RK301",), "RK301", False),
    ("longer-select-wins", ("RK301",), ("RK3",), "RK301", True),
    ("tie-ignore-wins", ("RK3",), ("RK3",), "RK301", False),
    ("any-of-several", ("RK1", "RK2"), (), "RK211", True),
]


@pytest.mark.parametrize(
    ("select", "ignore", "code", "expected"), [w[1:] for w in WANTED], ids=[w[0] for w in WANTED]
)
def test_wanted(select: tuple[str, ...], ignore: tuple[str, ...], code: str, expected: bool) -> None:
    """The longest matching selector decides whether an id is reported; ignore wins a tie."""
    assert wanted(code, select, ignore) is expected


def _found(**options: tuple[str, ...]) -> set[tuple[str, int]]:
    return {(d.code, d.line) for d in lint(robotskit.parse(BODY), **options)}


def test_api_filters_after_linting() -> None:
    """lint(select=, ignore=) returns exactly the unfiltered findings the selectors keep."""
    assert _found() == ALL
    assert _found(select=("RK3",)) == {("RK301", 4)}
    assert _found(ignore=("RK211", "RK3")) == {("RK201", 5)}
    assert _found(select=(" rk2 ",), ignore=("rk201",)) == {("RK211", 2)}  # case and spaces do not matter


def test_api_rejects_unknown_selector() -> None:
    """A selector that is a prefix of no id is a mistake, not a silent no-op."""
    with pytest.raises(ValueError, match="RK9"):
        lint(robotskit.parse(BODY), ignore=("RK9",))


def test_cli_select_prefix(run: Run, robots_file: Callable[[str], Path]) -> None:
    """`--select RK3` reports only RK3xx ids; with only info left the exit status is 0."""
    result = run("lint", str(robots_file(BODY)), "--select", "RK3")
    assert result.code == 0
    assert "RK301" in result.out and "RK211" not in result.out and "RK201" not in result.out


def test_cli_ignore_list(run: Run, robots_file: Callable[[str], Path]) -> None:
    """`--ignore RK211,RK201` drops both warnings, so the file passes; the JSON summary counts what is left."""
    path = str(robots_file(BODY))
    assert run("lint", path).code == 1
    result = run("lint", path, "--ignore", "RK211, RK201", "--json")
    doc = json.loads(result.out)
    assert result.code == 0 and doc["exit_code"] == 0
    assert [d["code"] for d in doc["diagnostics"]] == ["RK301"]
    assert doc["summary"] == {"error": 0, "warning": 0, "info": 1}


def test_cli_select_and_ignore(run: Run, robots_file: Callable[[str], Path]) -> None:
    """`--select RK2 --ignore RK201`: the more specific ignore removes RK201 from the selected RK2xx."""
    result = run("lint", str(robots_file(BODY)), "--select", "RK2", "--ignore", "RK201")
    assert result.code == 1 and "RK211" in result.out and "RK201" not in result.out


def test_cli_unknown_selector_exits_2(run: Run, robots_file: Callable[[str], Path]) -> None:
    """An id no rule has (a typo) is a usage error: exit 2 with the offending selector named."""
    result = run("lint", str(robots_file(BODY)), "--select", "RK31O")
    assert result.code == 2 and "RK31O" in result.err


def test_cli_ignore_never_claims_clean(run: Run, robots_file: Callable[[str], Path]) -> None:
    """Ignoring every finding is not "clean": the summary says how many are hidden, and by what."""
    path = str(robots_file(BODY))
    result = run("lint", path, "--ignore", "RK2,RK3")
    assert result.code == 0
    assert "clean" not in result.out
    assert "nothing reported (3 findings hidden by --ignore)" in result.out
    doc = json.loads(run("lint", path, "--ignore", "RK2,RK3", "--json").out)
    assert doc["diagnostics"] == [] and doc["hidden"] == 3


def test_cli_select_counts_what_it_hides(run: Run, robots_file: Callable[[str], Path]) -> None:
    """--select hides the rest; the summary counts them too."""
    result = run("lint", str(robots_file(BODY)), "--select", "RK3")
    assert "(2 findings hidden by --select)" in result.out
