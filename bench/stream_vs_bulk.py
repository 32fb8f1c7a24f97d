#!/usr/bin/env python3
"""A file read three ways in one process, min of N each: read_table (bulk),
Reader.iter_batches() and a scan() stream, and the two streams' cost as a
ratio of the bulk read's (issue 37: at most 1.1x at 2 threads).

    python3 bench/stream_vs_bulk.py [FILE] [--threads 2] [--repeat 15]

FILE defaults to data/sample/lineitem_61rg.parquet (61 row groups of 2,000
rows), where small row groups read one after another used to leave the
second thread idle.
"""
import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import pqstep  # noqa: E402


def best(fn, repeat):
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        rows = fn()
        out = min(out, time.perf_counter() - t)
    return out * 1e3, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=os.path.join(ROOT, "data", "sample", "lineitem_61rg.parquet"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    p, t = args.file, args.threads
    bulk, n0 = best(lambda: pqstep.read_table(p, threads=t).num_rows, args.repeat)
    it, n1 = best(lambda: sum(b.num_rows for b in pqstep.Reader(p, threads=t).iter_batches()), args.repeat)
    st, n2 = best(lambda: pqstep.scan(p, threads=t).read().num_rows, args.repeat)
    if not n0 == n1 == n2:
        print("row counts differ: %d, %d, %d" % (n0, n1, n2))
        return 1
    print("%s, %d rows, %d threads, min of %d: read_table %.1f ms, iter_batches %.1f ms (%.2fx), "
          "scan stream %.1f ms (%.2fx)" % (os.path.basename(p), n0, t, args.repeat, bulk, it, it / bulk, st, st / bulk))
    return 0


if __name__ == "__main__":
    sys.exit(main())
