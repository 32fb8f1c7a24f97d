"""Filtered reads of optional columns that hold no null: Spark, polars and
DuckDB write every column optional, and a filter's other columns are then
decoded for the matching rows alone (selection-vector decode) where the
chunk's statistics count no nulls; with nulls, or without a null count, the
chunk is decoded whole and the rows taken, as before.

Oracle: pyarrow's read of the same file, filtered by pyarrow's compute
(Table.filter with the same predicate). Files: pyarrow's (v1 and v2 pages,
dictionary and PLAIN, statistics on and off, small pages so that late
materialization keeps runs of pages), polars' and DuckDB's where installed;
columns of every common type, with and without nulls.
"""
import datetime
import decimal
import os
import sys
import tempfile

from read_oracle import pa, pq, pqstep  # noqa: F401
import pyarrow.compute as pc

ROWS = 30000


def table():
    n = ROWS
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "k": pa.array([(i * 7919) % 1000 for i in range(n)], pa.int32()),
        "price": pa.array([decimal.Decimal(i % 5000) / 100 for i in range(n)], pa.decimal128(12, 2)),
        "mode": pa.array([("AIR", "RAIL", "SHIP", "TRUCK", "MAIL")[i % 5] for i in range(n)], pa.string()),
        "comment": pa.array(["c%d-%s" % (i, "x" * (i % 23)) for i in range(n)], pa.string()),
        "day": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 900) for i in range(n)],
                        pa.date32()),
        "f": pa.array([i / 3.0 for i in range(n)], pa.float64()),
        "flag": pa.array([i % 3 == 0 for i in range(n)], pa.bool_()),
        # nulls: decoded whole and taken, beside the null-free columns
        "maybe": pa.array([None if i % 11 == 0 else i for i in range(n)], pa.int64()),
        "note": pa.array([None if i % 13 == 0 else "n%d" % (i % 97) for i in range(n)], pa.string()),
    })


# pqstep's filter text, and pyarrow's expression for the same rows
FILTERS = [
    ("k < 3", pc.field("k") < 3),
    ("mode in ('AIR', 'SHIP') and k > 990", pc.field("mode").isin(["AIR", "SHIP"]) & (pc.field("k") > 990)),
    ("id >= 12000 and id < 12500", (pc.field("id") >= 12000) & (pc.field("id") < 12500)),
    ("price > 49.90", pc.field("price") > pa.scalar(decimal.Decimal("49.90"), pa.decimal128(12, 2))),
    ("comment >= 'c2999'", pc.field("comment") >= "c2999"),
    ("maybe < 40", pc.field("maybe") < 40),
    ("flag = true and k < 50", (pc.field("flag") == True) & (pc.field("k") < 50)),  # noqa: E712
]


def check(path, label):
    whole = pq.read_table(path)
    assert whole.num_rows == ROWS, (label, whole.num_rows)
    checked = 0
    for text, expr in FILTERS:
        want = whole.filter(expr)
        for threads in (1, 2):
            got = pqstep.read_table(path, filter=text, threads=threads)
            assert got.num_rows == want.num_rows, (label, text, got.num_rows, want.num_rows)
            for name in want.column_names:
                g, w = got.column(name).to_pylist(), want.column(name).to_pylist()
                assert g == w, (label, text, name, g[:3], w[:3])
            checked += 1
        # a projection without the filter's columns, and a stream
        cols = ["comment", "price", "note"]
        got = pqstep.read_table(path, filter=text, columns=cols)
        assert got.to_pylist() == want.select(cols).to_pylist(), (label, text, "projected")
        streamed = pqstep.scan(path, filter=text, batch_size=1000).read()
        assert streamed.num_rows == want.num_rows, (label, text, "stream")
        assert streamed.column("comment").to_pylist() == want.column("comment").to_pylist(), (label, text)
        checked += 2
    return checked


def write_polars(t, path):
    import polars as pl
    pl.from_arrow(t).write_parquet(path, row_group_size=8000, data_page_size=4096, statistics=True)


def write_duckdb(t, path):
    import duckdb
    con = duckdb.connect()
    con.register("t", t)
    con.sql("copy (select * from t order by id) to '%s' (format parquet, row_group_size 8000)" % path)


def main():
    t = table()
    checked = files = 0
    with tempfile.TemporaryDirectory() as d:
        variants = [
            ("pyarrow v1 pages", dict(data_page_version="1.0")),
            ("pyarrow v2 pages", dict(data_page_version="2.0")),
            ("pyarrow PLAIN", dict(use_dictionary=False)),
            ("pyarrow without statistics", dict(write_statistics=False)),
            ("pyarrow page index", dict(write_page_index=True)),
        ]
        # strings as large_string (the stored Arrow schema says so): the filter
        # evaluates 64-bit offsets and hands its column to the decode stage
        large = t.set_column(4, "comment", t.column("comment").cast(pa.large_string()))
        variants.append(("pyarrow large_string", dict(table=large)))
        for label, opts in variants:
            path = os.path.join(d, "%d.parquet" % files)
            pq.write_table(opts.pop("table", t), path, row_group_size=8000, data_page_size=4096, **opts)
            md = pq.ParquetFile(path).metadata
            assert md.schema.column(1).max_definition_level == 1, label  # optional
            checked += check(path, label)
            files += 1
        for label, write in (("polars", write_polars), ("duckdb", write_duckdb)):
            path = os.path.join(d, label + ".parquet")
            try:
                write(t, path)
            except ImportError:
                print("test_optional_selection: %s file skipped: %s is not installed" % (label, label))
                continue
            checked += check(path, label)
            files += 1
    print("test_optional_selection: %d filtered reads of %d files equal to pyarrow's" % (checked, files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
