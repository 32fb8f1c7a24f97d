#!/usr/bin/env python3
"""Whole-file reads of the other TPC-H tables, as each writer writes them:
pqstep against polars and DuckDB with the options a user gets by default
(issue 37: "speed that does not depend on who wrote the file").

    python3 bench/tpch_tables.py [--sf 1] [--tables orders,partsupp,customer,part]
                                 [--writers tpchgen,duckdb,polars,pyarrow,spark]
                                 [--threads 1,2] [--repeat 5] [--rounds 2] [--json FILE]

1. The tables from tpchgen-cli (bench/polars_tpch.py makes them once in
   $PQSTEP_BENCH_CACHE or ~/.cache/pqstep-bench/tpch-sf<SF>-tables), each
   written again by DuckDB, polars, pyarrow and Spark with their defaults
   (bench/tpch.py's rewrite(): DuckDB's COPY, polars' write_parquet,
   pyarrow's write_table, Spark's write), cached beside them in
   tpch-sf<SF>-tables-<writer>/. "tpchgen" is tpchgen-cli's own file.
2. Before timing, pqstep's table of each file is checked equal to
   pyarrow's (both follow the file's ARROW:schema) and polars' and DuckDB's
   row counts to the file's.
3. Each (system, file, threads) runs in its own process: a warm-up read,
   then R timed reads of the whole file into memory (pqstep.read_table,
   pl.read_parquet, DuckDB's SELECT * ... .to_arrow_table()), the minimum kept;
   the systems take turns, round by round; the minimum over rounds is
   printed with polars' and DuckDB's time over pqstep's.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import polars_tpch  # noqa: E402  (tables(): tpchgen-cli's tables, made once)
import tpch  # noqa: E402  (rewrite(): a file written again by a writer)

SYSTEMS = ("pqstep", "polars", "duckdb")

CHILD = r"""
import os, sys, time, json
sys.path.insert(0, %(python)r)
path, system, threads, repeat = %(path)r, %(system)r, %(threads)d, %(repeat)d
if system == "pqstep":
    import pqstep
    read = lambda: pqstep.read_table(path, threads=threads).num_rows
elif system == "polars":
    import polars as pl
    read = lambda: pl.read_parquet(path).height
else:
    import duckdb
    con = duckdb.connect()
    con.execute("SET threads TO %%d" %% threads)
    read = lambda: con.sql("SELECT * FROM read_parquet('%%s')" %% path.replace("'", "''")).to_arrow_table().num_rows
rows = read()
times = []
for _ in range(repeat):
    t = time.perf_counter(); read(); times.append(time.perf_counter() - t)
print(json.dumps({"rows": rows, "times": times}))
"""


def writer_file(d, table, writer):
    """The table as `writer` wrote it (tpchgen: tpchgen-cli's own file)."""
    src = os.path.join(d, table + ".parquet")
    if writer == "tpchgen":
        return src
    folder = d + "-" + writer
    path = os.path.join(folder, table + ".parquet")
    if not os.path.exists(path):
        os.makedirs(folder, exist_ok=True)
        print("writing %s with %s ..." % (path, writer), flush=True)
        tpch.rewrite(writer, src, path + ".tmp")
        os.replace(path + ".tmp", path)
    return path


def check(path):
    """pqstep's table equals pyarrow's; the file's row count."""
    code = ("import sys; sys.path.insert(0, %r)\n"
            "import pqstep, pyarrow.parquet as pq\n"
            "a, b = pqstep.read_table(%r), pq.read_table(%r)\n"
            "assert a.equals(b), (a.schema, b.schema)\n"
            "print(a.num_rows)\n" % (os.path.join(SOURCE, "python"), path, path))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("%s: pqstep's table differs from pyarrow's:\n%s" % (path, r.stderr[-3000:]))
    return int(r.stdout.split()[-1])


def run(system, path, threads, repeat):
    env = dict(os.environ, POLARS_MAX_THREADS=str(threads))
    code = CHILD % {"python": os.path.join(SOURCE, "python"), "path": path, "system": system,
                    "threads": threads, "repeat": repeat}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit("%s on %s, %d threads failed:\n%s" % (system, path, threads, r.stderr[-3000:]))
    return json.loads(r.stdout.splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", default="1")
    ap.add_argument("--tables", default="orders,partsupp,customer,part")
    ap.add_argument("--writers", default="tpchgen,duckdb,polars,pyarrow,spark")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json")
    a = ap.parse_args()
    d = polars_tpch.tables(a.sf)
    tables, writers = a.tables.split(","), a.writers.split(",")
    threads = [int(t) for t in a.threads.split(",")]
    results = {}
    print("min of %d reads x %d rounds, ms; ratio = peer / pqstep (above 1: pqstep faster)" % (a.repeat, a.rounds))
    print("%-9s %-8s %3s %9s %9s %9s %10s %10s" % ("table", "writer", "thr", "pqstep", "polars", "duckdb",
                                                   "polars/pq", "duckdb/pq"))
    for table in tables:
        for writer in writers:
            path = writer_file(d, table, writer)
            rows = check(path)
            for t in threads:
                best = {s: float("inf") for s in SYSTEMS}
                for _ in range(a.rounds):
                    for s in SYSTEMS:
                        r = run(s, path, t, a.repeat)
                        if r["rows"] != rows:
                            raise SystemExit("%s read %d rows of %s, not %d" % (s, r["rows"], path, rows))
                        best[s] = min(best[s], min(r["times"]))
                key = "%s/%s/%dt" % (table, writer, t)
                results[key] = {s + "_s": round(best[s], 5) for s in SYSTEMS}
                results[key].update({"polars_ratio": round(best["polars"] / best["pqstep"], 3),
                                     "duckdb_ratio": round(best["duckdb"] / best["pqstep"], 3)})
                print("%-9s %-8s %3d %9.1f %9.1f %9.1f %9.2fx %9.2fx"
                      % (table, writer, t, best["pqstep"] * 1e3, best["polars"] * 1e3, best["duckdb"] * 1e3,
                         best["polars"] / best["pqstep"], best["duckdb"] / best["pqstep"]), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"sf": a.sf, "repeat": a.repeat, "rounds": a.rounds,
                       "date": time.strftime("%Y-%m-%d %H:%M:%S"), "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
