#!/usr/bin/env python3
"""TPC-H queries through polars: pl.scan_parquet against
pqstep.polars.scan_parquet (issue 35).

    python3 bench/polars_tpch.py [--sf 1] [--repeat 3] [--threads 1,2]
                                 [--queries 1,3,5,6,10,12,14,19] [--json FILE]
                                 [--join-runtime-filters on|off]

1. The 8 tables from tpchgen-cli (`tpchgen-cli parquet --scale-factor SF`,
   its defaults: snappy, one file per table), made once in
   $PQSTEP_BENCH_CACHE or ~/.cache/pqstep-bench/tpch-sf<SF>-tables.
2. Each (system, threads) is its own process (POLARS_MAX_THREADS and
   pqstep's threads= set to the count): per query a warm-up collect, then
   R timed collects of the query built anew (scans included), median kept.
   The two systems take turns, round by round.
3. Prints the medians and pqstep's speed-up (polars seconds / pqstep
   seconds) per query and thread count.

--join-runtime-filters off runs both processes with
POLARS_JOIN_RUNTIME_FILTERS=0. polars 2.1 builds a filter from a hash
join's build-side keys (their range and a bloom filter) and hands it to its
own Parquet scan on the probe side, which then skips the rows (and their
other columns) that cannot join; an IO-plugin source such as pqstep's is
not given it. Off compares the scans alone (docs/polars.md).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
CACHE = os.environ.get("PQSTEP_BENCH_CACHE", os.path.expanduser("~/.cache/pqstep-bench"))

CHILD = r"""
import os, sys, time, json
sys.path.insert(0, %(python)r); sys.path.insert(0, %(bench)r)
import polars as pl
import tpch_polars_queries as Q
d, system, threads, repeat = %(dir)r, %(system)r, %(threads)d, %(repeat)d
if system == "pqstep":
    import pqstep.polars as pp
    scan = lambda t: pp.scan_parquet(os.path.join(d, t + ".parquet"), threads=threads)
else:
    scan = lambda t: pl.scan_parquet(os.path.join(d, t + ".parquet"))
out = {}
for n in %(queries)r:
    q = Q.QUERIES[n]
    q(scan).collect()
    times = []
    for _ in range(repeat):
        t = time.perf_counter(); q(scan).collect(); times.append(time.perf_counter() - t)
    out[n] = times
print(json.dumps(out))
"""


def tables(sf):
    d = os.path.join(CACHE, "tpch-sf%s-tables" % sf)
    if all(os.path.exists(os.path.join(d, t + ".parquet")) for t in
           ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier")):
        return d
    exe = shutil.which("tpchgen-cli") or os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
    os.makedirs(d, exist_ok=True)
    subprocess.check_call([exe, "parquet", "--scale-factor", str(sf), "--output-dir", d])
    return d


def run(system, threads, d, queries, repeat, runtime_filters=True):
    env = dict(os.environ, POLARS_MAX_THREADS=str(threads))
    if not runtime_filters:
        env["POLARS_JOIN_RUNTIME_FILTERS"] = "0"
    code = CHILD % {"python": os.path.join(SOURCE, "python"), "bench": HERE, "dir": d, "system": system,
                    "threads": threads, "repeat": repeat, "queries": queries}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit("%s, %d threads failed:\n%s" % (system, threads, r.stderr[-3000:]))
    return {int(k): v for k, v in json.loads(r.stdout.splitlines()[-1]).items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", default="1")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--queries", default="1,3,5,6,10,12,14,19")
    ap.add_argument("--json")
    ap.add_argument("--join-runtime-filters", choices=("on", "off"), default="on")
    a = ap.parse_args()
    rf = a.join_runtime_filters == "on"
    d = tables(a.sf)
    queries = [int(q) for q in a.queries.split(",")]
    results = {}
    for threads in [int(t) for t in a.threads.split(",")]:
        times = {"polars": {q: [] for q in queries}, "pqstep": {q: [] for q in queries}}
        for _ in range(a.rounds):
            for system in ("polars", "pqstep"):
                for q, ts in run(system, threads, d, queries, a.repeat, rf).items():
                    times[system][q] += ts
        for q in queries:
            p, s = statistics.median(times["polars"][q]), statistics.median(times["pqstep"][q])
            results["q%d/%dt" % (q, threads)] = {"polars_s": round(p, 4), "pqstep_s": round(s, 4),
                                                  "speedup": round(p / s, 3)}
            print("q%-2d %d thread(s): polars %.3f s  pqstep %.3f s  polars/pqstep %.2fx" % (q, threads, p, s, p / s))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"sf": a.sf, "repeat": a.repeat, "rounds": a.rounds,
                       "join_runtime_filters": a.join_runtime_filters, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
