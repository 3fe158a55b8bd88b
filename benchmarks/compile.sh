#!/usr/bin/env bash
# Compile robotskit.core with mypyc into build/mypyc-tree (a copy of src/ with the extension modules
# beside the sources), for `benchmarks/builds.py`. The same modules `ROBOTSKIT_MYPYC=1 pip wheel .`
# compiles (hatch_build.py); this skips the wheel so the benchmark can put both builds on sys.path.
#
#   bash benchmarks/compile.sh     # needs mypy (with mypyc), setuptools and a C compiler
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-$ROOT/.venv-bench/bin/python}"
TREE="$ROOT/build/mypyc-tree"
rm -rf "$TREE"
mkdir -p "$TREE"
cp -r "$ROOT/src/robotskit" "$TREE/robotskit"
"$PY" -m pip --disable-pip-version-check -q install "mypy==2.4.1" "setuptools>=69"
# the module list of hatch_build.py (read, not imported: hatchling need not be installed here)
modules=$("$PY" - "$ROOT/hatch_build.py" <<'PY'
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
names = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "COMPILED")
print(" ".join(f"robotskit/core/{name}.py" for name in names))
PY
)
cd "$TREE"
"$PY" -c "
import sys
from setuptools import setup
from mypyc.build import mypycify
MYPY_FLAGS = ('--follow-imports=silent', '--ignore-missing-imports')  # as hatch_build.py
setup(name='robotskit-core', ext_modules=mypycify([*MYPY_FLAGS, *sys.argv[1:]], opt_level='3'), script_args=['build_ext', '--inplace'])
" $modules
rm -rf "$TREE/build"
echo "compile: $(find "$TREE" -name '*.so' | wc -l) extension modules in $TREE"
