#!/usr/bin/env python3
"""A filter on a shredded VARIANT path (issue 33): pushed into the shredded
leaf against decoding every variant and filtering afterwards.

    python3 bench/variant_filter.py [--rows N] [--repeat R] [--json FILE]

The file (written once by DuckDB 2.x into $PQSTEP_BENCH_CACHE or
~/.cache/pqstep-bench/variant/): N rows (default 1,000,000) in 16 row
groups, id and v = {'a': id (BIGINT), 'b': 's' || id % 97, 'c': id / 3.0}
cast to VARIANT, which DuckDB shreds into typed_value columns. The query
keeps 1% of the rows: v.a >= 0.99 N.

Cases (each its own process, taking turns, median of R after a warm-up):
  pqstep pushdown  pqstep.read_table(path, filter="v.a >= X"): the filter on
                   the shredded leaf v.typed_value.a.typed_value, row groups
                   pruned by its statistics (the residual value columns are
                   all null there), the variants of the kept rows rebuilt
  pqstep no prune  the same with prune=False: every row group decoded and
                   filtered on the leaf
  rebuild all      pqstep.read_table(path) alone: every variant rebuilt (in
                   C), no filter yet: the least any decode-then-filter costs
  decode all       pqstep.read_table(path) (every variant rebuilt), then each
                   row's variant decoded (pqstep.variant.to_python) and the
                   rows with v.a >= X kept
  duckdb           DuckDB's own query: select * where v.a::BIGINT >= X
All give the same number of rows (checked; "rebuild all" stops before the
filter).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
CACHE = os.environ.get("PQSTEP_BENCH_CACHE", os.path.expanduser("~/.cache/pqstep-bench"))

CASES = {
    "pqstep pushdown": "import pqstep\nrun = lambda: pqstep.read_table(P, filter='v.a >= %(x)d').num_rows\n",
    "pqstep no prune": "import pqstep\nrun = lambda: pqstep.read_table(P, filter='v.a >= %(x)d', prune=False).num_rows\n",
    "rebuild all": "import pqstep\nrun = lambda: pqstep.read_table(P).num_rows * 0 + %(kept)d\n",
    "decode all": "import pqstep, pqstep.variant as pv\n"
                  "def run():\n"
                  "    t = pqstep.read_table(P)\n"
                  "    col = t.column('v').combine_chunks()\n"
                  "    ms, vs = col.field('metadata').to_pylist(), col.field('value').to_pylist()\n"
                  "    keep = [i for i, (m, v) in enumerate(zip(ms, vs)) if v is not None and\n"
                  "            isinstance(pv.to_python(m, v), dict) and (pv.to_python(m, v).get('a') or -1) >= %(x)d]\n"
                  "    return len(keep)\n",
    "duckdb": "import duckdb\ncon = duckdb.connect()\n"
              "run = lambda: len(con.execute(\"select * from read_parquet('%%s') where v.a::BIGINT >= %(x)d\" %% P)"
              ".to_arrow_table())\n",
}
TIMED = "import time\nP = %(path)r\nn = run()\nts = []\nfor _ in range(%(repeat)d):\n" \
        "    t0 = time.perf_counter(); run(); ts.append(time.perf_counter() - t0)\nprint(n, ' '.join(map(repr, ts)))\n"


def make_file(rows):
    out = os.path.join(CACHE, "variant")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "shredded-%d.parquet" % rows)
    if not os.path.exists(path):
        import duckdb
        con = duckdb.connect()
        con.execute("copy (select i as id, {'a': i::BIGINT, 'b': 's' || (i %% 97), 'c': i / 3.0}::VARIANT as v "
                    "from range(%d) t(i)) to '%s' (format parquet, row_group_size %d)"
                    % (rows, path + ".tmp", (rows + 15) // 16))
        os.replace(path + ".tmp", path)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    path = make_file(args.rows)
    x = args.rows * 99 // 100
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(SOURCE, "python"), env.get("PYTHONPATH", "")])
    times = {k: [] for k in CASES}
    counts = {}
    for _ in range(args.repeat):
        for name, body in CASES.items():
            code = (body % {"x": x, "kept": args.rows - x}) + TIMED % {"path": path, "repeat": 1}
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
            if p.returncode:
                raise SystemExit("%s failed: %s" % (name, p.stderr[-2000:]))
            n, t = p.stdout.split(None, 1)
            counts[name] = int(n)
            times[name] += [float(v) for v in t.split()]
    if len(set(counts.values())) != 1:
        raise SystemExit("the cases disagree: %s" % counts)
    med = {k: statistics.median(v) for k, v in times.items()}
    print("%d rows, %d kept (median of %d, seconds): %s" % (args.rows, counts["decode all"], args.repeat,
                                                            ", ".join("%s %.4f" % kv for kv in med.items())))
    print("decode all / pushdown: %.1fx   rebuild all / pushdown: %.1fx   no prune / pushdown: %.1fx   "
          "duckdb / pushdown: %.2fx"
          % (med["decode all"] / med["pqstep pushdown"], med["rebuild all"] / med["pqstep pushdown"],
             med["pqstep no prune"] / med["pqstep pushdown"], med["duckdb"] / med["pqstep pushdown"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": args.rows, "kept": counts["decode all"], "repeat": args.repeat, "median_s": med}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
