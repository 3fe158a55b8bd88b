#!/usr/bin/env bash
# One command for the benchmark suite: set up .venv-bench if needed, then run bench.py and print one table.
#
#   bash benchmarks/run.sh                 # full run (~5-10 minutes on 2 shared cores)
#   bash benchmarks/run.sh --quick         # smoke run (~1 minute)
#   bash benchmarks/run.sh --json out.json # also write machine-readable results
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ ! -f "$ROOT/.venv-bench/.bench-ready" ]; then
  bash "$ROOT/benchmarks/setup.sh"
fi
exec "$ROOT/.venv-bench/bin/python" "$ROOT/benchmarks/bench.py" "$@"
