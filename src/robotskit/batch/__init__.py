"""Research at scale: audit robots.txt collections (WARC, directories, host lists) into Parquet.

Needs the `batch` extra (dask[distributed], pyarrow, warcio, matplotlib). Entry points:
`run_batch` (Python), `robotskit batch ...` (CLI, see `robotskit.batch.cli`), and
`robotskit batch report results.parquet`. docs/batch.md documents the output schema.

The names below load on first use: `python -m robotskit.batch` imports this package before its
`__main__` can handle Ctrl-C, so a press while the package loaded (about 0.1 s, most of it the
analysis and the core it imports) ended in a traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from robotskit.batch._values import AgentSpec, BatchConfig, Capture
    from robotskit.batch.agentlist import default_agents, load_agents, load_paths
    from robotskit.batch.analysis import analyze

__all__ = [
    "AgentSpec",
    "BatchConfig",
    "Capture",
    "analyze",
    "default_agents",
    "load_agents",
    "load_paths",
]

_LAZY = {
    "AgentSpec": "robotskit.batch._values",
    "BatchConfig": "robotskit.batch._values",
    "Capture": "robotskit.batch._values",
    "analyze": "robotskit.batch.analysis",
    "default_agents": "robotskit.batch.agentlist",
    "load_agents": "robotskit.batch.agentlist",
    "load_paths": "robotskit.batch.agentlist",
}

if not TYPE_CHECKING:  # (hidden from type checkers: a misspelt name is then an error)
    from robotskit._lazy import lazy_names

    __getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
