#!/usr/bin/env python3
"""Filters that keep many rows: pqstep against polars and pyarrow on PLAIN
columns, each system in a process of its own, taking turns.

    python3 bench/dense_filter.py [--rows 6000000] [--threads 1] [--repeat 7]
                                  [--keep 10,50,90] [--nulls]

1. A file written once by pyarrow (seed 1) into $PQSTEP_BENCH_CACHE or
   ~/.cache/pqstep-bench/dense-filter-<rows>.parquet: `k` int32 0..99
   (dictionary-encoded), `a` int64, `b` int32 and `c` double, PLAIN
   (no dictionary), snappy, row groups of 2^20 rows. --nulls: a, b and c
   hold 10% nulls (dense-filter-nulls-<rows>.parquet).
2. Per keep share P: `k < P` keeping P% of the rows spread evenly, the
   columns a, b, c read; min of R reads after a warm-up, in a process per
   system (pqstep.read_table with filter=, polars scan_parquet().filter(),
   pyarrow.parquet.read_table with filters=), threads set to the count.
3. Prints each time, the row counts (which must agree) and peer / pqstep.

A selection keeping every other row or so used to cost pqstep a copy per
run of kept rows (runs of one or two values); the values are now picked by
the selection's bits, 64 rows a step (kernels/plain.c pq_plain_select64).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CACHE = os.environ.get("PQSTEP_BENCH_CACHE", os.path.expanduser("~/.cache/pqstep-bench"))

CHILD = r"""
import json, os, sys, time
sys.path.insert(0, %(python)r)
system, path, keep, threads, repeat = %(system)r, %(path)r, %(keep)r, %(threads)d, %(repeat)d
cols = ["a", "b", "c"]
if system == "pqstep":
    import pqstep
    run = lambda p: pqstep.read_table(path, columns=cols, filter="k < %%d" %% p, threads=threads).num_rows
elif system == "polars":
    import polars as pl
    run = lambda p: pl.scan_parquet(path).filter(pl.col("k") < p).select(cols).collect().height
else:
    import pyarrow, pyarrow.parquet as pq
    pyarrow.set_cpu_count(threads)
    run = lambda p: pq.read_table(path, columns=cols, filters=[("k", "<", p)]).num_rows
out = {}
for p in keep:
    rows = run(p)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter(); run(p); best = min(best, time.perf_counter() - t)
    out[p] = [best, rows]
print(json.dumps(out))
"""


def make_file(rows, nulls):
    path = os.path.join(CACHE, "dense-filter-%s%d.parquet" % ("nulls-" if nulls else "", rows))
    if os.path.exists(path):
        return path
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    rng = np.random.default_rng(1)
    mask = (lambda: rng.random(rows) < 0.1) if nulls else (lambda: None)
    t = pa.table({"k": rng.integers(0, 100, rows, dtype=np.int32),
                  "a": pa.array(rng.integers(0, 1 << 60, rows), mask=mask()),
                  "b": pa.array(rng.integers(0, 1 << 30, rows, dtype=np.int32), mask=mask()),
                  "c": pa.array(rng.random(rows), mask=mask())})
    os.makedirs(CACHE, exist_ok=True)
    pq.write_table(t, path + ".tmp", use_dictionary=["k"], compression="snappy", row_group_size=1 << 20)
    os.replace(path + ".tmp", path)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=6_000_000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--keep", default="10,50,90")
    ap.add_argument("--nulls", action="store_true")
    a = ap.parse_args()
    path = make_file(a.rows, a.nulls)
    keep = [int(p) for p in a.keep.split(",")]
    env = dict(os.environ, POLARS_MAX_THREADS=str(a.threads))
    res = {}
    for system in ("pqstep", "polars", "pyarrow"):
        code = CHILD % {"python": os.path.join(ROOT, "python"), "system": system, "path": path, "keep": keep,
                        "threads": a.threads, "repeat": a.repeat}
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise SystemExit("%s failed:\n%s" % (system, r.stderr[-2000:]))
        res[system] = {int(k): v for k, v in json.loads(r.stdout.splitlines()[-1]).items()}
    print("%s, %d rows, %d thread(s), min of %d" % (os.path.basename(path), a.rows, a.threads, a.repeat))
    status = 0
    for p in keep:
        rows = {s: res[s][p][1] for s in res}
        if len(set(rows.values())) != 1:
            print("k < %d: row counts differ: %r" % (p, rows))
            status = 1
        t = {s: res[s][p][0] * 1e3 for s in res}
        print("k < %-3d (%9d rows): pqstep %7.1f ms  polars %7.1f ms (%.2fx)  pyarrow %7.1f ms (%.2fx)" % (
            p, rows["pqstep"], t["pqstep"], t["polars"], t["polars"] / t["pqstep"], t["pyarrow"],
            t["pyarrow"] / t["pqstep"]))
    return status


if __name__ == "__main__":
    sys.exit(main())
