#!/usr/bin/env python3
"""Filters that keep many rows of columns with nulls. A flat optional
column is decoded for the filter's rows alone: each page's selected rows'
levels kept and its values selected by them (pages/page_values.c
defs_selected); a nested one decodes whole, its values spread to their
slots by the validity bitmap, and the filter's rows are then taken (values,
validity and boolean bits 64 rows a step). Files written here by pyarrow
(pages v1 and v2, small pages, several row groups, with and without
dictionaries): nullable int32, int64, double, boolean, strings, a decimal
stored as INT64, lists of nullable int64 and of nullable booleans (their
elements taken from an offset inside the child: unaligned bitmaps), a null
list now and then; filters keeping 3% to 97% of the rows spread evenly,
over the whole file and over a row range that starts inside a row group and
a page, at 1 and 2 threads, strings as string and as string_view; every
read equals pyarrow's Table.filter.
"""
import os
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import pa, pq, pqstep  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

N = 20000
FLAT = ["k", "b", "x", "d", "big", "s", "dec"]


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
        "s": pa.array([None if rng.random() < 0.2 else "v%d" % v * (1 + v % 7) for v in rng.integers(0, 500, N)]),
        "dec": pa.array([None if rng.random() < 0.15 else Decimal(int(v)).scaleb(-2)
                         for v in rng.integers(-10**12, 10**12, N)], pa.decimal128(15, 2)),
    })


def main():
    t = table()
    checks = failed = 0
    with tempfile.TemporaryDirectory(prefix="pqstep-take-") as tmp:
        path = os.path.join(tmp, "t.parquet")
        views = pa.schema([pa.field(f.name, pa.string_view()) if f.name == "s" else f for f in t.schema])
        for version in ("1.0", "2.0"):
            for dictionary in (True, False):
                pq.write_table(t, path, row_group_size=7000, data_page_size=4096, data_page_version=version,
                               use_dictionary=dictionary, store_decimal_as_integer=True)
                for threads in (1, 2):
                    for keep in (3, 30, 50, 70, 97):
                        for strings, schema in (("string", t.schema), ("string_view", views)):
                            what = "pages v%s, %s, %d thread(s), k < %d, %s" % (
                                version, "dictionary" if dictionary else "PLAIN", threads, keep, strings)
                            got = pqstep.read_table(path, filter="k < %d" % keep, threads=threads, strings=strings)
                            want = t.filter(pc.less(t["k"], keep)).cast(schema)
                            checks += 1
                            if not got.equals(want):
                                failed += 1
                                print("FAIL " + what)
                            # the flat columns alone: read by the flat
                            # passes, each decoded for the matching rows
                            got = pqstep.read_table(path, columns=FLAT, filter="k < %d" % keep, threads=threads,
                                                    strings=strings)
                            checks += 1
                            if not got.equals(want.select(FLAT)):
                                failed += 1
                                print("FAIL %s, flat columns" % what)
                            # a row range starting inside a row group and a
                            # page: a selection that starts mid-page
                            got = pqstep.read_table(path, filter="k < %d" % keep, threads=threads, row_offset=7003,
                                                    row_limit=9001, strings=strings)
                            part = t.slice(7003, 9001)
                            want = part.filter(pc.less(part["k"], keep)).cast(schema)
                            checks += 1
                            if not got.equals(want):
                                failed += 1
                                print("FAIL %s, rows 7003..16004" % what)
    print("dense takes of nullable and nested columns: %d reads, %d failed" % (checks, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
