#!/usr/bin/env python3
"""Dataset benchmark: a hive-partitioned dataset of about 100 files read by
pqstep.dataset against pyarrow.dataset, DuckDB and polars, each system in
its own process, at 1 and 2 threads; the ratios printed.

    python3 bench/dataset.py [--scale S] [--threads 1,2] [--repeat N] [--files N]
                             [--systems LIST] [--build DIR] [--cache DIR]

The dataset: TPC-H lineitem at scale S (default 1) from tpchgen-cli
(parquet-rs, snappy; made by bench/tpch.py's file cache if missing), written
by pyarrow.dataset.write_dataset partitioned by year of l_shipdate (hive,
`year=1992/` ... `year=1998/`, int32), at most rows/N rows a file so that it
makes about N files (default 100), into CACHE/tpch-sf<S>-hive<N>/. Made once.

Cases (every row that matches, every column, materialized: pqstep and
pyarrow a pyarrow.Table, polars a DataFrame, DuckDB an Arrow table):
  all     no filter
  key     year = 1995                (a partition key: files pruned)
  column  l_quantity < 5             (a column: every file read)
  both    year = 1995 and l_quantity < 5
    pqstep   pqstep.dataset(DIR, partitioning="hive", threads=T).to_table(filter=TEXT)
    pyarrow  pyarrow.dataset.dataset(DIR, partitioning="hive").to_table(filter=EXPR, use_threads=T>1)
    polars   pl.scan_parquet(DIR/**/*.parquet, hive_partitioning=True).filter(EXPR).collect()
    duckdb   SELECT * FROM read_parquet('DIR/**/*.parquet', hive_partitioning=true) WHERE TEXT
Opening the dataset (listing, footers) is inside the timing for every
system. Before timing, each system's row count for each case must equal
pyarrow's. One warm-up, then --repeat runs; min and median; ratios are
peer min / pqstep min (above 1: pqstep faster).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

REPO = os.path.dirname(HERE)
SYSTEMS = ("pqstep", "pyarrow", "polars", "duckdb")
CASES = {
    "all": None,
    "key": "year = 1995",
    "column": "l_quantity < 5",
    "both": "year = 1995 and l_quantity < 5",
}


def pyarrow_expr(case):
    import decimal
    import pyarrow as pa
    import pyarrow.compute as pc
    key = pc.field("year") == 1995
    col = pc.field("l_quantity") < pa.scalar(decimal.Decimal(5), pa.decimal128(15, 2))
    return {"all": None, "key": key, "column": col, "both": key & col}[case]


def polars_expr(case):
    import decimal
    import polars as pl
    key = pl.col("year") == 1995
    col = pl.col("l_quantity") < decimal.Decimal(5)
    return {"all": None, "key": key, "column": col, "both": key & col}[case]


def runner(system, root, threads):
    """A function of a case name that reads it and returns the row count."""
    if system == "pqstep":
        sys.path.insert(0, os.path.join(REPO, "python"))
        import pqstep

        def run(case):
            ds = pqstep.dataset(root, partitioning="hive", threads=threads)
            t = ds.to_table(filter=CASES[case])
            ds.close()
            return t.num_rows
    elif system == "pyarrow":
        import pyarrow as pa
        import pyarrow.dataset as pds
        pa.set_cpu_count(threads)
        pa.set_io_thread_count(threads)

        def run(case):
            return pds.dataset(root, partitioning="hive").to_table(filter=pyarrow_expr(case),
                                                                   use_threads=threads > 1).num_rows
    elif system == "polars":
        import polars as pl

        def run(case):
            lf = pl.scan_parquet(os.path.join(root, "**", "*.parquet"), hive_partitioning=True)
            e = polars_expr(case)
            return (lf.filter(e) if e is not None else lf).collect().height
    else:
        import duckdb
        con = duckdb.connect()
        con.execute("SET threads=%d" % threads)
        con.execute("SET enable_external_file_cache=false")

        def run(case):
            where = " WHERE " + CASES[case] if CASES[case] else ""
            return con.sql("SELECT * FROM read_parquet('%s/**/*.parquet', hive_partitioning=true)%s"
                           % (root, where)).to_arrow_table().num_rows
    return run


def worker(args):
    if args.system == "polars":
        os.environ["POLARS_MAX_THREADS"] = str(args.threads)
    run = runner(args.system, args.root, args.threads)
    out = {}
    for case in args.cases.split(","):
        rows = run(case)  # warm-up
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            n = run(case)
            times.append(time.perf_counter() - t0)
            if n != rows:
                raise SystemExit("%s %s: %d rows, then %d" % (args.system, case, rows, n))
        out[case] = {"rows": rows, "min": min(times), "median": statistics.median(times), "runs": times}
    print(json.dumps(out))


def ensure_dataset(cache, scale, files):
    root = os.path.join(cache, "tpch-sf%s-hive%d" % (scale, files))
    if os.path.isdir(root):
        return root
    src = os.path.join(cache, "tpch-sf%s-snappy" % scale, "lineitem.parquet")
    if not os.path.exists(src):
        subprocess.check_call([sys.executable, os.path.join(HERE, "tpch.py"), "--scale", str(scale),
                               "--codecs", "snappy", "--systems", "pqstep", "--cases", "cols3", "--repeat", "1",
                               "--cache", cache])
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as pds
    import pyarrow.parquet as pq
    t = pq.read_table(src, schema=None)
    t = t.cast(pa.schema([f.with_type(pa.string()) if pa.types.is_string_view(f.type) else f for f in t.schema]))
    t = t.append_column("year", pc.year(t["l_shipdate"]).cast(pa.int32()))
    per_file = max(1, t.num_rows // files)
    tmp = root + ".tmp"
    pds.write_dataset(t, tmp, format="parquet", partitioning=pds.partitioning(pa.schema([("year", pa.int32())]),
                                                                              flavor="hive"),
                      max_rows_per_file=per_file, max_rows_per_group=min(per_file, 122880),
                      existing_data_behavior="delete_matching")
    os.rename(tmp, root)
    with open(os.path.join(cache, "tpch-sf%s-hive%d.json" % (scale, files)), "w") as f:
        json.dump({"source": src, "rows_per_file": per_file, "writer": "pyarrow %s" % pa.__version__}, f)
    return root


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", default="1")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--build", default=os.environ.get("PQSTEP_LIBRARY") and os.path.dirname(os.environ["PQSTEP_LIBRARY"])
                    or os.path.join(REPO, "build"))
    ap.add_argument("--cache", default=os.environ.get("PQSTEP_BENCH_CACHE") or
                    os.path.expanduser("~/.cache/pqstep-bench"))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--system", help=argparse.SUPPRESS)
    ap.add_argument("--root", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        args.threads = int(args.threads)
        return worker(args)
    root = ensure_dataset(args.cache, args.scale, args.files)
    nfiles = sum(len(fs) for _, _, fs in os.walk(root))
    systems = [s for s in args.systems.split(",") if s]
    if "pqstep" not in systems:
        systems.insert(0, "pqstep")
    env = dict(os.environ, PQSTEP_LIBRARY=os.path.join(args.build, "libpqstep.so"))
    print("dataset: %s, %d files, partitioned by year (hive); load %.2f" % (root, nfiles, os.getloadavg()[0]))
    results = {}
    for threads in [int(x) for x in args.threads.split(",")]:
        for system in systems:
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", "--system", system,
                                  "--root", root, "--threads", str(threads), "--repeat", str(args.repeat),
                                  "--cases", args.cases], env=env, capture_output=True, text=True)
            if out.returncode != 0:
                raise SystemExit("%s at %d threads failed:\n%s" % (system, threads, out.stderr[-2000:]))
            results[(system, threads)] = json.loads(out.stdout.strip().splitlines()[-1])
    cases = args.cases.split(",")
    for case in cases:  # every system, the same rows
        rows = {s: results[(s, t)][case]["rows"] for (s, t) in results}
        if len(set(rows.values())) != 1:
            raise SystemExit("case %s: rows differ: %s" % (case, rows))
    peers = [s for s in systems if s != "pqstep"]
    print("\nmin of %d runs, ms (rows: %s)" % (args.repeat, ", ".join(
        "%s %d" % (c, results[("pqstep", int(args.threads.split(",")[0]))][c]["rows"]) for c in cases)))
    print("case    thr " + "".join("%10s" % s for s in systems) + "".join("%12s" % ("%s/pq" % p) for p in peers))
    for case in cases:
        for threads in [int(x) for x in args.threads.split(",")]:
            mins = {s: results[(s, threads)][case]["min"] * 1000 for s in systems}
            print("%-7s %3d " % (case, threads) + "".join("%10.1f" % mins[s] for s in systems) +
                  "".join("%11.2fx" % (mins[p] / mins["pqstep"]) for p in peers))
    print("\nratio = peer min / pqstep min: above 1, pqstep is faster; load %.2f after" % os.getloadavg()[0])


if __name__ == "__main__":
    main()
