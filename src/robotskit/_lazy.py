"""Names a package loads on first use (PEP 562), one import at a time.

`robotskit`, `robotskit.policy` and `robotskit.cli` re-export names whose modules are imported
only when a name is first read, so that importing the package costs nothing and a program loads
only the parts it touches. The imports are serialised by one lock: two threads reading two names
at once would otherwise import modules whose imports cross (`robotskit.policy.flow` imports
`robotskit.policy.authority`), and Python's per-module import locks then fail one thread with a
deadlock error or a half-initialised module (seen by a fuzzing run: 41 of 50 tries of two
threads reading `PolicyConfig` and `authority_key`).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from typing import Any

# Re-entrant: a lazy import may read another package's lazy name in the same thread.
_IMPORTING = threading.RLock()


def lazy_names(
    package: str, names: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level `__getattr__` and `__dir__` of `package` (its `globals()` is `namespace`)
    for `names`: name -> the module that defines it."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        with _IMPORTING:
            value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # the next read is an ordinary module attribute
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
