#!/usr/bin/env python3
"""Dask benchmark: pqstep.dask.read_parquet against dask.dataframe.read_parquet
on a distributed.LocalCluster of worker processes; the ratios printed.

    python3 bench/dask_read.py [PATH] [--workers 2] [--threads 1] [--repeat 3]
                               [--systems pqstep,dask]

PATH: a Parquet file (default: the TPC-H SF1 lineitem file of bench/tpch.py's
cache, ~/.cache/pqstep-bench/tpch-sf1-snappy/lineitem.parquet, 6,001,215
rows in 53 row groups). Cases, each computed into one pandas DataFrame on
the client:
  all       every column
  3 cols    l_orderkey, l_extendedprice, l_shipdate
  filter    the 3 columns, rows with l_orderkey < 600000 (the file is sorted
            by l_orderkey: row-group statistics prune ~90% of it)
    pqstep  pqstep.dask.read_parquet(PATH, columns=COLS, filter="l_orderkey < 600000").compute()
    dask    dask.dataframe.read_parquet(PATH, columns=COLS, filters=[("l_orderkey", "<", 600000)]).compute()
            (its default split_row_groups="infer" makes one partition of this file)
    dask-rg the same with split_row_groups=True: a partition per row group, as pqstep
    pqstep-1p  pqstep with min_rows_per_partition=2**62: a partition per file, as dask's default here
Each system gets its own cluster (--workers processes x --threads threads,
made once for all its cases), one warm-up run per case, then --repeat
timed runs; the figure is the minimum. read_parquet (footers, pruning,
the graph) is inside the timing for both. Before each run the scheduler
must have forgotten the previous run's tasks, so that no result is taken
from memory. Both systems must return the same number of rows, and
pqstep's workers must have read no footer from storage and parsed at most
one footer per file. Ratios: peer min / pqstep min (above 1: pqstep
faster), for dask/pqstep (the defaults), dask-rg/pqstep (a partition per
row group) and dask/pqstep-1p (a partition per file).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]

import argparse  # noqa: E402
import logging  # noqa: E402
import time  # noqa: E402

REPO = os.path.dirname(HERE)
DEFAULT = os.path.expanduser("~/.cache/pqstep-bench/tpch-sf1-snappy/lineitem.parquet")
COLS = ["l_orderkey", "l_extendedprice", "l_shipdate"]
KEY_LIMIT = 600000
CASES = [  # (name, columns, filter)
    ("all", None, False),
    ("3 cols", COLS, False),
    ("filter", COLS, True),
]


def read_pqstep(path, columns, filtered, **kw):
    import pqstep.dask
    return pqstep.dask.read_parquet(path, columns=columns, filter="l_orderkey < %d" % KEY_LIMIT if filtered else None,
                                    **kw)


def read_pqstep_1p(path, columns, filtered):
    return read_pqstep(path, columns, filtered, min_rows_per_partition=1 << 62)


def read_dask(path, columns, filtered, **kw):
    import dask.dataframe as dd
    return dd.read_parquet(path, columns=columns, filters=[("l_orderkey", "<", KEY_LIMIT)] if filtered else None, **kw)


def read_dask_rg(path, columns, filtered):
    return read_dask(path, columns, filtered, split_row_groups=True)


READERS = {"pqstep": read_pqstep, "pqstep-1p": read_pqstep_1p, "dask": read_dask, "dask-rg": read_dask_rg}
# (peer, pqstep variant) pairs whose ratio is printed: the defaults, then the same partitioning.
RATIOS = [("dask", "pqstep"), ("dask-rg", "pqstep"), ("dask", "pqstep-1p")]


def wait_forgotten(client, timeout=30.0):
    deadline = time.monotonic() + timeout
    while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)):
        if time.monotonic() > deadline:
            raise SystemExit("the scheduler still holds tasks after %.0f s" % timeout)
        time.sleep(0.02)


def run_system(system, path, args):
    """{case: (min seconds, rows, partitions)} for one system, on its own cluster."""
    import distributed
    out = {}
    with distributed.LocalCluster(n_workers=args.workers, threads_per_worker=args.threads, processes=True,
                                  dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster) as client:
        if system.startswith("pqstep"):
            import pqstep.dask
            client.run(pqstep.dask.reset_worker_counters, clear_cache=True)
        for name, columns, filtered in CASES:
            times = []
            for i in range(1 + args.repeat):  # the first is a warm-up
                wait_forgotten(client)
                t0 = time.perf_counter()
                ddf = READERS[system](path, columns, filtered)
                df = ddf.compute()
                dt = time.perf_counter() - t0
                if i:
                    times.append(dt)
                rows, parts = len(df), ddf.npartitions
                del df
            out[name] = (min(times), rows, parts)
            print("  %-7s %-7s %9.1f ms  %d rows, %d partitions" % (system, name, min(times) * 1e3, rows, parts),
                  file=sys.stderr)
        if system.startswith("pqstep"):
            import pqstep.dask
            for addr, c in client.run(pqstep.dask.worker_counters).items():
                if c["footer_bytes_read"] or c["footer_parses"] > c["files_touched"]:
                    raise SystemExit("pqstep worker %s: %s" % (addr, c))
            out["counters"] = client.run(pqstep.dask.worker_counters)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", nargs="?", default=DEFAULT)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="threads per worker")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--systems", default=",".join(READERS), help="of %s" % ",".join(READERS))
    args = ap.parse_args()
    if not os.path.exists(args.path):
        raise SystemExit("%s not found (bench/tpch.py makes it)" % args.path)
    # The workers are new processes: they import pqstep from this checkout too.
    sys.path.insert(0, os.path.join(REPO, "python"))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (os.path.join(REPO, "python"),
                                                           os.environ.get("PYTHONPATH")) if p)
    if not os.environ.get("PQSTEP_LIBRARY") and os.path.exists(os.path.join(REPO, "build", "libpqstep.so")):
        os.environ["PQSTEP_LIBRARY"] = os.path.join(REPO, "build", "libpqstep.so")
    import dask
    import distributed
    import pyarrow as pa
    import pyarrow.parquet as pq

    md = pq.ParquetFile(args.path).metadata
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [s for s in systems if s not in READERS]
    if unknown:
        raise SystemExit("unknown system(s) %s (of %s)" % (unknown, ", ".join(READERS)))
    results = {s: run_system(s, args.path, args) for s in systems}

    print("Dask read of %s: %d rows, %d row groups, %.0f MB" % (
        args.path, md.num_rows, md.num_row_groups, os.path.getsize(args.path) / 1e6))
    print("%d worker processes x %d thread(s), min of %d runs after a warm-up; pyarrow %s, dask %s, "
          "distributed %s; %d cores" % (args.workers, args.threads, args.repeat, pa.__version__, dask.__version__,
                                        distributed.__version__, os.cpu_count()))
    print("filter: l_orderkey < %d; 3 cols: %s" % (KEY_LIMIT, ", ".join(COLS)))
    pairs = [(a, b) for a, b in RATIOS if a in systems and b in systems]
    head = "%-8s" % "case" + "".join("%14s" % ("%s ms" % s) for s in systems)
    head += "".join("%16s" % ("%s/%s" % pair) for pair in pairs)
    head += "%10s  %s" % ("rows", "partitions")
    print(head)
    for name, _, _ in CASES:
        rows = {results[s][name][1] for s in systems}
        if len(rows) != 1:
            raise SystemExit("case %s: the systems return different row counts: %s" % (
                name, {s: results[s][name][1] for s in systems}))
        line = "%-8s" % name + "".join("%14.1f" % (results[s][name][0] * 1e3) for s in systems)
        line += "".join("%15.2fx" % (results[a][name][0] / results[b][name][0]) for a, b in pairs)
        line += "%10d  %s" % (rows.pop(), " / ".join("%s %d" % (s, results[s][name][2]) for s in systems))
        print(line)
    for s in systems:
        if s.startswith("pqstep"):
            per = results[s]["counters"]
            print("%s workers (all runs): footer bytes read %s, footer parses %s, files touched %s, tasks %s" % (
                s, [c["footer_bytes_read"] for c in per.values()], [c["footer_parses"] for c in per.values()],
                [c["files_touched"] for c in per.values()], [c["tasks"] for c in per.values()]))


if __name__ == "__main__":
    main()
