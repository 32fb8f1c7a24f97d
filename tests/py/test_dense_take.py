#!/usr/bin/env python3
"""Filters that keep many rows of columns with nulls: such columns decode
whole, their values are spread to their slots by the validity bitmap, and
the filter's rows are then taken (values, validity and boolean bits 64 rows
a step). Files written here by pyarrow (pages v1 and v2, small pages,
several row groups): nullable int32, int64, double, boolean, lists of
nullable int64 and of nullable booleans (their elements taken from an
offset inside the child: unaligned bitmaps), a null list now and then;
filters keeping 3% to 97% of the rows spread evenly, over the whole file
and over a row range that starts inside a row group and a page, at 1 and 2
threads; every read equals pyarrow's Table.filter.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import pa, pq, pqstep  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

N = 20000


def table():
    rng = np.random.default_rng(5)
    lists = []
    for _ in range(N):
        n = int(rng.integers(0, 6))
        values = rng.integers(0, 1000, n)
        lists.append(None if rng.random() < 0.05 else [None if rng.random() < 0.2 else int(x) for x in values])
    return pa.table({
        "k": pa.array(rng.integers(0, 100, N, dtype=np.int32)),
        "l": pa.array(lists, pa.list_(pa.int64())),
        "lb": pa.array([None if x is None else [None if v is None else v % 2 == 1 for v in x] for x in lists],
                       pa.list_(pa.bool_())),
        "b": pa.array([None if rng.random() < 0.1 else bool(x) for x in rng.integers(0, 2, N)]),
        "x": pa.array([None if rng.random() < 0.3 else float(v) for v in rng.random(N)]),
        "d": pa.array([None if rng.random() < 0.3 else int(v) for v in rng.integers(0, 10**9, N)], pa.int32()),
        "big": pa.array([None if rng.random() < 0.1 else int(v) for v in rng.integers(-2**62, 2**62, N)]),
    })


def main():
    t = table()
    checks = failed = 0
    with tempfile.TemporaryDirectory(prefix="pqstep-take-") as tmp:
        path = os.path.join(tmp, "t.parquet")
        for version in ("1.0", "2.0"):
            pq.write_table(t, path, row_group_size=7000, data_page_size=4096, data_page_version=version)
            for threads in (1, 2):
                for keep in (3, 30, 50, 70, 97):
                    got = pqstep.read_table(path, filter="k < %d" % keep, threads=threads)
                    want = t.filter(pc.less(t["k"], keep))
                    checks += 1
                    if not got.equals(want):
                        failed += 1
                        print("FAIL pages v%s, %d thread(s), k < %d" % (version, threads, keep))
                    # a row range starting inside a row group and a page:
                    # rows taken from an offset into the decoded column
                    got = pqstep.read_table(path, filter="k < %d" % keep, threads=threads, row_offset=7003,
                                            row_limit=9001)
                    part = t.slice(7003, 9001)
                    want = part.filter(pc.less(part["k"], keep))
                    checks += 1
                    if not got.equals(want):
                        failed += 1
                        print("FAIL pages v%s, %d thread(s), k < %d, rows 7003..16004" % (version, threads, keep))
    print("dense takes of nullable and nested columns: %d reads, %d failed" % (checks, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
