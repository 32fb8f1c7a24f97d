#!/usr/bin/env bash
# pip install of the repository into a fresh virtual environment, as a new
# user would do it (issue 12): `pip install <repo>` builds the C library with
# CMake through scikit-build-core and installs a wheel carrying libpqstep.so
# and the `pqstep` CLI. Then, from another directory and with none of the
# build tree's environment (no PQSTEP_LIBRARY, no PYTHONPATH):
#  - `import pqstep` loads the package and library from the venv;
#  - read_metadata of the bundled sample gives the values gen_sample.py
#    wrote (122000 rows, 61 row groups);
#  - the installed CLI prints the sample's first l_orderkey values, which
#    must equal pyarrow's reading of the file (pyarrow of the test suite's
#    own environment, the oracle: the fresh venv has nothing but pqstep).
# Offline: the build backend comes from WHEELS (pip download'ed by
# scripts/test's setup); without it the check is skipped, saying why.
# Usage: pip_check.sh SOURCE_DIR WHEELS_DIR
set -euo pipefail
src=$1 wheels=$2
if ! ls "$wheels"/scikit_build_core-*.whl >/dev/null 2>&1; then
    echo "SKIP: no scikit-build-core wheel in $wheels (scripts/test's setup downloads it)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sample="$src/data/sample/lineitem_61rg.parquet"
oracle_python=${PYTHON:-python3}
want=$("$oracle_python" -c "import pyarrow.parquet as pq, sys
t = pq.read_table(sys.argv[1], columns=['l_orderkey'])
print(' '.join(str(v) for v in t.column(0).to_pylist()[:5]))" "$sample")

python3 -m venv "$tmp/venv"
# pip copies nothing of the tree it does not need; the build goes to a temp dir
env -u PQSTEP_LIBRARY -u PYTHONPATH PIP_ROOT_USER_ACTION=ignore \
    "$tmp/venv/bin/pip" install -q --no-index --find-links "$wheels" "$src" >"$tmp/pip.log" 2>&1 ||
    { cat "$tmp/pip.log"; echo "pip install $src failed"; exit 1; }
cd "$tmp"
got=$(env -u PQSTEP_LIBRARY -u PYTHONPATH "$tmp/venv/bin/python" -c "import pqstep, os, sys
assert pqstep.__file__.startswith(sys.prefix), pqstep.__file__
md = pqstep.read_metadata(sys.argv[1])
print(md.num_rows, md.num_row_groups)" "$sample")
[[ "$got" == "122000 61" ]] || { echo "read_metadata: got '$got', want '122000 61'"; exit 1; }
test -x "$tmp/venv/bin/pqstep" || { echo "no pqstep CLI in the venv's bin/"; exit 1; }
cli=$(env -u PQSTEP_LIBRARY -u PYTHONPATH PATH="$tmp/venv/bin:/usr/bin:/bin" \
    pqstep cat --columns l_orderkey --limit 5 --format csv "$sample" | tail -n +2 | tr '\n' ' ' | sed 's/ $//')
[[ "$cli" == "$want" ]] || { echo "pqstep cat: got '$cli', want pyarrow's '$want'"; exit 1; }
echo "pip check: pip install of the repo imports pqstep from the venv, reads the sample's footer ($got)," \
     "and its CLI prints pyarrow's l_orderkey values ($want)"
echo "1 passed, 0 failed"
