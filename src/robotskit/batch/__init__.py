"""Research at scale: audit robots.txt collections (WARC, directories, host lists) into Parquet.

Needs the `batch` extra (dask[distributed], pyarrow, warcio, matplotlib). Entry points:
`run_batch` (Python), `robotskit batch ...` (CLI, see `robotskit.batch.cli`), and
`robotskit batch report results.parquet`. docs/batch.md documents the output schema.
"""

from __future__ import annotations

from robotskit.batch._values import AgentSpec, BatchConfig, Capture
from robotskit.batch.agentlist import default_agents, load_agents, load_paths
from robotskit.batch.analyze import analyze

__all__ = [
    "AgentSpec",
    "BatchConfig",
    "Capture",
    "analyze",
    "default_agents",
    "load_agents",
    "load_paths",
]
