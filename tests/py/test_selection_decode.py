#!/usr/bin/env python3
"""Selection-vector decode (issue 11): with a filter, the columns that are
not the filter's decode only the matching rows (pages without one are not
even decompressed) instead of a full decode and a take. It applies where a
value is a row: required top-level columns.

Files written here by pyarrow with required columns of every physical type
(int32, int64, float, double, bool, string, fixed-size binary, decimal as
INT64 and as INT32, date), in each encoding pyarrow writes for them (dictionary, PLAIN,
DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
BYTE_STREAM_SPLIT), page v1 and v2, uncompressed and snappy, small pages,
several row groups, with a page index. Filters from no row to all rows,
runs and scattered rows, on one column and on two; each read equals
pyarrow's Table.filter, with pruning and without, with strings as string
and as string_view (with decimals as decimal64), and with a row range. DuckDB's required columns are
covered by test_duckdb.

Late dictionaries: files whose row groups hold 30,000 distinct values in one
large dictionary page (zstd and snappy); a sparse filter (a few rows near
each row group's start) decompresses only the front of the payload columns'
dictionary pages (stage_stats("decode")["dictionary_bytes_skipped"] counts
the rest), a filter that reaches the last entry skips less, and every read
equals pyarrow's Table.filter.
"""
import decimal
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import pa, pq, pqstep, same  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

N = 9000


def table():
    rng = np.random.default_rng(11)
    key = np.arange(N, dtype=np.int64)
    cols = {
        "key": pa.array(key),
        "k32": pa.array((key * 7 % 1000).astype(np.int32)),
        "big": pa.array(rng.integers(-2**62, 2**62, N)),
        "f": pa.array(rng.standard_normal(N).astype(np.float32)),
        "d": pa.array(rng.standard_normal(N)),
        "flag": pa.array(key % 3 == 0),
        "cat": pa.array(np.array(["AIR", "MAIL", "RAIL", "SHIP", "TRUCK"])[key % 5]),
        "text": pa.array(["comment %d %s" % (i, "x" * (i % 23)) for i in key]),
        "fixed": pa.array([int(i).to_bytes(6, "little") for i in key], pa.binary(6)),
        "dec": pa.array([__import__("decimal").Decimal(int(i) * 7 - 30000).scaleb(-2) for i in key],
                        pa.decimal128(15, 2)),
        "day": pa.array((key // 10).astype(np.int32), pa.date32()),
        "dec9": pa.array([decimal.Decimal(int(i) * 13 - 50000).scaleb(-2) for i in key], pa.decimal128(9, 2)),
    }
    t = pa.table(cols)
    return t.cast(pa.schema([f.with_nullable(False) for f in t.schema]))


VARIANTS = [
    ("dict_v1_snappy", dict(use_dictionary=True, data_page_version="1.0", compression="snappy")),
    ("plain_v2_none", dict(use_dictionary=False, data_page_version="2.0", compression="none")),
    ("delta_v2_snappy", dict(use_dictionary=False, data_page_version="2.0", compression="snappy",
                             column_encoding={"key": "DELTA_BINARY_PACKED", "k32": "DELTA_BINARY_PACKED",
                                              "big": "DELTA_BINARY_PACKED", "text": "DELTA_LENGTH_BYTE_ARRAY",
                                              "cat": "DELTA_BYTE_ARRAY", "f": "BYTE_STREAM_SPLIT",
                                              "d": "BYTE_STREAM_SPLIT", "day": "DELTA_BINARY_PACKED"})),
]

f = pc.field
FILTERS = [
    ("key < 0", f("key") < 0),                                   # nothing
    ("key >= 0", f("key") >= 0),                                 # everything
    ("key >= 1000 and key < 1100", (f("key") >= 1000) & (f("key") < 1100)),   # a run inside a page range
    ("key in (5, 1999, 2000, 6001, 8999)", f("key").isin([5, 1999, 2000, 6001, 8999])),  # scattered
    ("k32 < 13", f("k32") < 13),                                 # every page, few rows
    ("cat = 'RAIL' and key > 4000", (f("cat") == "RAIL") & (f("key") > 4000)),
    ("flag = true or d > 1.5", (f("flag") == True) | (f("d") > 1.5)),  # noqa: E712
    ("day = '1970-10-28'", f("day") == pa.scalar(300, pa.date32())),  # day 300 after 1970-01-01
    ("k32 < 500", f("k32") < 500),                               # every other row or so: picked 64 rows a step
]


def late_dictionaries(tmp):
    """Sparse filters over large dictionary pages; returns (passed, failed)."""
    n = 60000
    key = np.arange(n, dtype=np.int64)
    t = pa.table({
        "key": pa.array(key),
        "v": pa.array(key * 7919 % 1000003),
        "s": pa.array(["value %d %s" % (i * 31 % 99991, "x" * (i % 20)) for i in range(n)]),
        "dec": pa.array([decimal.Decimal(i * 13 % 100003).scaleb(-2) for i in range(n)], pa.decimal128(12, 2)),
    })
    t = pa.table(t.columns, schema=pa.schema([f.with_nullable(False) for f in t.schema]))
    passed = failed = 0
    for codec in ("zstd", "snappy"):
        path = os.path.join(tmp, "late-%s.parquet" % codec)
        pq.write_table(t, path, row_group_size=30000, compression=codec, dictionary_pagesize_limit=8 << 20,
                       data_page_size=8192, write_page_index=True, store_decimal_as_integer=True)
        skipped = {}
        for text, expr in (("key < 40 or (key >= 30000 and key < 30005)",
                            (pc.field("key") < 40) | ((pc.field("key") >= 30000) & (pc.field("key") < 30005))),
                           ("key = 29999", pc.field("key") == 29999)):
            try:
                for strings in ("string_view", "string"):
                    with pqstep.Reader(path, strings=strings) as r:
                        got = r.read(filter=text)
                        skipped[text, strings] = r.stage_stats("decode")["dictionary_bytes_skipped"]
                    got = pa.table([c.cast(pa.string()) if c.type == pa.string_view() else c for c in got.columns],
                                   names=got.column_names)
                    same(got, t.filter(expr), "late %s [%s] %s" % (codec, text, strings))
                    passed += 1
            except (AssertionError, pqstep.Error) as e:
                failed += 1
                print("FAIL late %s [%s]: %s" % (codec, text, e))
        # v, s and dec: dictionaries of 30,000 entries, the rows' indices below 40
        # in both row groups; the last row of the first row group reaches its end
        front, last = skipped["key < 40 or (key >= 30000 and key < 30005)", "string_view"], \
            skipped["key = 29999", "string_view"]
        dict_bytes = sum(pq.ParquetFile(path).metadata.row_group(g).column(c).total_uncompressed_size
                         for g in range(2) for c in (1, 2, 3))
        print("late %s: %d of about %d dictionary bytes skipped for the front rows, %d for the last row" %
              (codec, front, dict_bytes, last))
        if not (front > dict_bytes // 2 and last < front // 2):
            failed += 1
            print("FAIL late %s: %d and %d dictionary bytes skipped" % (codec, front, last))
        else:
            passed += 1
    return passed, failed


def main():
    t = table()
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="pqstep-selection-") as tmp:
        passed, failed = late_dictionaries(tmp)
        for name, kw in VARIANTS:
            path = os.path.join(tmp, name + ".parquet")
            pq.write_table(t, path, row_group_size=3000, data_page_size=2048, write_page_index=True,
                           store_decimal_as_integer=True, **kw)
            md = pq.ParquetFile(path).metadata
            assert md.row_group(0).column(0).statistics is not None
            for text, expr in FILTERS:
                want = t.filter(expr)
                for prune in (True, False):
                    for strings in ("string", "string_view"):
                        try:
                            decimals = "decimal64" if strings == "string_view" else "decimal128"
                            got = pqstep.read_table(path, filter=text, prune=prune, strings=strings,
                                                    decimals=decimals)
                            got.validate(full=True)
                            got = pa.table([c.cast(pa.decimal128(c.type.precision, c.type.scale))
                                            if pa.types.is_decimal64(c.type) else c
                                            for c in got.columns], names=got.column_names)
                            if strings == "string_view":
                                got = pa.table([c.cast(pa.string()) if c.type == pa.string_view() else c
                                                for c in got.columns], names=got.column_names)
                            same(got, want, "%s [%s] prune=%s %s" % (name, text, prune, strings), float_bits=True)
                            passed += 1
                        except (AssertionError, pqstep.Error) as e:
                            failed += 1
                            print("FAIL %s [%s] prune=%s %s: %s" % (name, text, prune, strings, e))
                # a row range before the filter, and a projection without the filter's columns
                part = t.slice(1500, 5000)
                try:
                    same(pqstep.read_table(path, filter=text, row_offset=1500, row_limit=5000),
                         part.filter(expr), "%s [%s] rows 1500+5000" % (name, text), float_bits=True)
                    cols = ["text", "dec", "fixed"]
                    same(pqstep.read_table(path, filter=text, columns=cols), want.select(cols),
                         "%s [%s] projected" % (name, text))
                    passed += 2
                except (AssertionError, pqstep.Error) as e:
                    failed += 1
                    print("FAIL %s [%s]: %s" % (name, text, e))
            # the selection skipped pages: fewer rows decoded than a full read
            with pqstep.Reader(path) as r:
                r.read(filter="key >= 1000 and key < 1100")
                st = r.stage_stats("decode")
            assert st["rows"] == 100, st
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
