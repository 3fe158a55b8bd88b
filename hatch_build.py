"""The optional compiled build: `ROBOTSKIT_MYPYC=1 pip wheel .` compiles `robotskit.core` with mypyc.

Without the variable the wheel is pure Python (the default, and what the tests run against). With
it, the core modules (parse and match, standard library only, typed under mypy --strict) are
compiled to C extension modules, as black and charset-normalizer ship theirs; the `.py` sources
stay in the wheel beside them (Python imports the extension first). The compiled build behaves
the same: it is the same code, and `bash benchmarks/run.sh` can measure both side by side.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# The modules of robotskit.core that are compiled. Left out, and why:
# - the package's __init__: it only re-exports;
# - `robots`: its ParsedRobots is subclassed by the interpreted RobotsTxt (robotskit.document),
#   which mypyc refuses for a compiled class unless it is marked with mypy_extensions.mypyc_attr,
#   a third-party import the standard-library-only core does not make;
# - `agents`: `Agent(purposes=[...])` takes any iterable and makes it a tuple in __post_init__,
#   which a compiled dataclass refuses before that runs (its fields are type-checked on
#   assignment); it is not on the hot path (agents are cached per string);
# - `crawlers`: it loads the bundled crawler table once per process (nothing to gain);
# - `memo`: its `LastAt` subclasses dict with class-level defaults, which a compiled (native)
#   class does not give its instances; one is made per check, and an `__init__` setting them
#   instead cost the pure-Python build 0.45 µs a check against 0.06;
# - `literal_filter`: a few C-level `map`s and one `memoryview` cast per check, no Python step
#   per rule or per path position for a compiler to speed up.
COMPILED = (
    "checker",
    "extensions",
    "first_check",
    "forward_walk",
    "glob",
    "lexer",
    "matcher",
    "model",
    "parser",
    "pattern",
    "profiles",
    "skeleton",
    "url",
    "url_check",
    "wildcards",
)
ENV = "ROBOTSKIT_MYPYC"
# The rest of the package is read for its types but not checked here (its third-party imports,
# httpx, idna, rich, redis, need not be installed where the core is compiled); mypy --strict
# checks it in the test suite.
MYPY_FLAGS = ("--follow-imports=silent", "--ignore-missing-imports")


def _enabled() -> bool:
    return os.environ.get(ENV, "") not in ("", "0")


class MypycBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Compiles the core when ROBOTSKIT_MYPYC=1; does nothing otherwise."""

    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        return ["mypy==2.4.1", "setuptools>=69"] if _enabled() else []

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if not _enabled() or self.target_name != "wheel" or version == "editable":
            return
        root = Path(self.root)
        work = Path(tempfile.mkdtemp(prefix="robotskit-mypyc-"))
        try:
            shutil.copytree(root / "src" / "robotskit", work / "robotskit")
            modules = [f"robotskit/core/{name}.py" for name in COMPILED]
            script = (
                "import sys\n"
                "from setuptools import setup\n"
                "from mypyc.build import mypycify\n"
                f"MYPY_FLAGS = {MYPY_FLAGS!r}\n"
                "extensions = mypycify([*MYPY_FLAGS, *sys.argv[1:]], opt_level='3')\n"
                "setup(name='robotskit-core', ext_modules=extensions,"
                " script_args=['build_ext', '--inplace'])\n"
            )
            subprocess.run([sys.executable, "-c", script, *modules], cwd=work, check=True)
            # the modules in place beside their sources, and mypyc's shared runtime at the top
            # (not the copies setuptools leaves in build/)
            built = [
                p for p in [*work.glob("*"), *(work / "robotskit").rglob("*")] if p.suffix in (".so", ".pyd")
            ]
            if not built:
                raise RuntimeError("mypyc produced no extension modules")
            out = root / "build" / "mypyc"
            shutil.rmtree(out, ignore_errors=True)
            for path in built:
                relative = path.relative_to(work)
                target = out / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
                build_data["force_include"][str(target)] = str(relative)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
