"""The layers hold: import-linter's contracts in pyproject.toml pass, and the tree shows the layers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "robotskit"


def test_import_contracts_are_kept() -> None:
    """Every import-linter contract (layers, a standard-library core, no shim imports) is kept."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_at_most_a_dozen_modules_stay_at_the_top() -> None:
    """The top of the package holds the facade, errors, document and the shims kept for their path."""
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 12, top


def test_shims_re_export_the_real_modules() -> None:
    """Each module kept for its import path exposes exactly the names of the module it stands for."""
    import importlib

    for shim, real in [
        ("agents", "core.agents"),
        ("profiles", "core.profiles"),
        ("parser", "core.parser"),
        ("matcher", "core.matcher"),
        ("crawlers", "core.crawlers"),
        ("testing", "fetch.testing"),
    ]:
        module = importlib.import_module(f"robotskit.{shim}")
        target = importlib.import_module(f"robotskit.{real}")
        for name in module.__all__:
            assert getattr(module, name) is getattr(target, name), (shim, name)


def test_no_caller_compares_profile_names() -> None:
    """Profiles are data: only core/profiles.py knows what each profile changes (no `profile == "gemini"`)."""
    import re

    compare = re.compile(
        r"""(profile|\.name|chosen|name)\s*(==|!=|\bis\b)\s*["'](rfc9309|google|gemini)["']"""
        r"""|["'](rfc9309|google|gemini)["']\s*(==|!=)\s*\w*profile"""
    )
    offenders = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in PACKAGE.rglob("*.py")
        if path != PACKAGE / "core" / "profiles.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if compare.search(line)
    ]
    assert not offenders, offenders


def _modules_after(statement: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running `statement`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    code = f"{statement}\nimport sys\nprint('\\n'.join(sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return set(result.stdout.split())


def test_parsing_and_the_batch_reader_do_not_load_httpx() -> None:
    """`import robotskit` (parse and check) and a batch of WARC files never need the HTTP stack."""
    for statement in ("import robotskit", "import robotskit.batch.runner"):
        loaded = _modules_after(statement)
        assert "httpx" not in loaded, statement
        assert "robotskit.client.clients" not in loaded, statement
    assert "robotskit.cache.sqlite" not in _modules_after("import robotskit")


def test_the_console_entry_loads_nothing_before_its_ctrl_c_handling() -> None:
    """The `robotskit` script imports `robotskit.cli.main` alone: the commands, rich and the core
    load inside `main`, where Ctrl-C ends the command with 130 instead of a traceback."""
    loaded = {
        name for name in _modules_after("from robotskit.cli import main") if name.startswith("robotskit")
    }
    assert loaded == {"robotskit", "robotskit._lazy", "robotskit.cli"}


def test_python_m_robotskit_batch_loads_nothing_before_its_ctrl_c_handling() -> None:
    """`python -m robotskit.batch` imports the package `robotskit.batch` before its `__main__`
    runs: the package loads no module of its own (it loaded the analysis and the core, about
    0.1 s, where a Ctrl-C ended in a traceback), and `__main__` goes through `robotskit.cli.main`."""
    loaded = {name for name in _modules_after("import robotskit.batch") if name.startswith("robotskit")}
    assert loaded == {"robotskit", "robotskit._lazy", "robotskit.batch"}
    main = (ROOT / "src" / "robotskit" / "batch" / "__main__.py").read_text(encoding="utf-8")
    assert "from robotskit.cli import main" in main


def test_batch_facade_names_resolve_to_their_modules() -> None:
    """Every name of `robotskit.batch.__all__` resolves on first use; `analyze` is the function
    (its module is `robotskit.batch.analysis`, so importing it never shadows the name)."""
    import importlib

    import robotskit.batch

    importlib.import_module("robotskit.batch.runner")  # imports the analysis module first
    for name in robotskit.batch.__all__:
        assert getattr(robotskit.batch, name) is not None, name
    assert callable(robotskit.batch.analyze)
    assert robotskit.batch.analyze is importlib.import_module("robotskit.batch.analysis").analyze


def test_lazy_facade_names_resolve_to_their_modules() -> None:
    """Every name of `robotskit.__all__` resolves (lazily loaded ones on first use), and dir() lists it."""
    import importlib

    import robotskit

    for name in robotskit.__all__:
        assert getattr(robotskit, name) is not None, name
    assert set(robotskit.__all__) <= set(dir(robotskit))
    from robotskit import RobotsClient  # the `from` form goes through the same hook

    assert RobotsClient is importlib.import_module("robotskit.client.clients").RobotsClient
    try:
        robotskit.NoSuchName  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchName" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


_RACE = """
import sys, threading, random
import robotskit
rng = random.Random(int(sys.argv[1]))
names = [n for n in robotskit.__all__ if n != "__version__"]
rng.shuffle(names)
groups = [names[i::8] for i in range(8)] + [["PolicyConfig"], ["authority_key"]]
bar = threading.Barrier(len(groups))
errors = []
def read(group):
    bar.wait()
    for name in group:
        try:
            getattr(robotskit, name)
        except Exception as exc:
            errors.append(f"{name}: {type(exc).__name__}: {exc}")
threads = [threading.Thread(target=read, args=(g,)) for g in groups]
[t.start() for t in threads]
[t.join() for t in threads]
print("\\n".join(errors))
"""


def test_threads_reading_lazy_names_at_once_all_get_them() -> None:
    """Ten threads reading the facade's names at the same moment, in a fresh interpreter each time:
    before the lazy imports were serialised, two threads reading `PolicyConfig` and `authority_key`
    failed 41 times in 50 (a deadlock error, or a name missing from a half-initialised module)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for seed in range(8):
        result = subprocess.run(
            [sys.executable, "-c", _RACE, str(seed)], env=env, capture_output=True, text=True, check=True
        )
        assert result.stdout.strip() == "", result.stdout


def test_a_ctrl_c_wrapped_by_a_class_body_is_still_exit_130(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C landing in a class body's `__set_name__` while a module loads reaches the command as
    RuntimeError (Python wraps it): `robotskit.cli.main` still ends with 130, and any other
    RuntimeError still propagates."""
    from robotskit import cli
    from robotskit.cli import _main

    def wrapped(argv: object = None) -> int:
        raise RuntimeError("Error calling __set_name__ on 'Field' instance") from KeyboardInterrupt()

    def broken(argv: object = None) -> int:
        raise RuntimeError("a defect")

    monkeypatch.setattr(_main, "main", wrapped)
    assert cli.main(["check"]) == 130
    monkeypatch.setattr(_main, "main", broken)
    with pytest.raises(RuntimeError, match="a defect"):
        cli.main(["check"])
