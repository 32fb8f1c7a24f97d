#!/usr/bin/env python3
"""Datasets (issue 12): pqstep.dataset / pq_dataset over many files, against
pyarrow.dataset as the oracle.

Datasets written here by pyarrow from the bundled sample (122,000 rows):
- hive-partitioned by year of l_shipdate (int32) and l_shipmode (string),
  with a null partition (`__HIVE_DEFAULT_PARTITION__`, rows whose year was
  set to null);
- a flat directory of files each holding a range of l_orderkey (so footer
  statistics prune whole files), also read through glob patterns;
For each filter (partition keys alone, file columns alone, both, IS NULL on
a key, IN on a key) and projection, the rows equal pyarrow.dataset's
`to_table(filter=...)` (both sorted the same way), the types equal
pyarrow's, and the scan's counters say how many files were pruned by
partition values and by statistics, checked against the files' values
computed here. DuckDB and polars consume a scan. Errors: schemas that
differ (both files named), a term mixing a key and a column, an unknown
column, a literal of the wrong type for a key, a file missing a key, a path
that does not exist.
"""
import decimal
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import SOURCE, pa, pq, pqstep  # noqa: E402

import pyarrow.compute as pc  # noqa: E402
import pyarrow.dataset as pds  # noqa: E402

SAMPLE = os.path.join(SOURCE, "data", "sample", "lineitem_61rg.parquet")
D = lambda x: pa.scalar(decimal.Decimal(x), pa.decimal128(15, 2))  # noqa: E731


def sort(t):
    """Rows in one order: by the key columns there are, else by every column."""
    keys = [n for n in ("l_orderkey", "l_linenumber") if n in t.column_names] or t.column_names
    return t.sort_by([(n, "ascending") for n in keys])


def same(got, want, what):
    """Equal as tables; pqstep's batches hold the files' columns in file order, then the keys (pq_dataset.h)."""
    assert sorted(got.schema.names) == sorted(want.schema.names), "%s: columns %s, want %s" % (
        what, got.schema.names, want.schema.names)
    want = want.select(got.schema.names)
    for f, g in zip(got.schema, want.schema):
        assert f.type == g.type, "%s: %s is %s, want %s" % (what, f.name, f.type, g.type)
    got, want = sort(got), sort(want)
    assert got.num_rows == want.num_rows, "%s: %d rows, want %d" % (what, got.num_rows, want.num_rows)
    for name in want.column_names:
        assert got.column(name).equals(want.column(name)), "%s: column %s differs" % (what, name)


def write_hive(root):
    t = pq.read_table(SAMPLE)
    year = pc.year(t["l_shipdate"]).cast(pa.int32())
    year = pc.if_else(pc.equal(t["l_linenumber"], 7), pa.scalar(None, pa.int32()), year)  # a null partition
    t = t.append_column("year", year).append_column("mode", t["l_shipmode"])
    pq.write_to_dataset(t, root, partition_cols=["year", "mode"], row_group_size=3000)
    return t


def write_ranges(root, n=8):
    t = pq.read_table(SAMPLE).sort_by("l_orderkey")
    os.makedirs(root)
    step = (t.num_rows + n - 1) // n
    for i in range(n):
        pq.write_table(t.slice(i * step, step), os.path.join(root, "part-%02d.parquet" % i), row_group_size=4000)
    return t


def check_hive(tmp):
    root = os.path.join(tmp, "hive")
    write_hive(root)
    ref = pds.dataset(root, partitioning="hive")
    ds = pqstep.dataset(root, partitioning="hive", threads=2)
    assert ds.partitions == {"year": "int32", "mode": "string"}, ds.partitions
    assert len(ds.files) == len(ref.files), (len(ds.files), len(ref.files))
    assert ds.schema.equals(ref.schema.remove_metadata()) or ds.schema.names == ref.schema.names, ds.schema
    files = ref.files
    years = {}
    for f in files:  # the partition values, from the paths, for the pruning counts
        y = [s.split("=", 1)[1] for s in f.split("/") if s.startswith("year=")][0]
        years[f] = None if y == "__HIVE_DEFAULT_PARTITION__" else int(y)
    cases = [
        (None, None, None),
        ("year = 1995", pc.field("year") == 1995, ["l_orderkey", "l_linenumber", "l_quantity", "year", "mode"]),
        ("year = 1995 and l_quantity < 5", (pc.field("year") == 1995) & (pc.field("l_quantity") < D("5")), None),
        ("mode in ('AIR', 'RAIL') and year >= 1997", pc.field("mode").isin(["AIR", "RAIL"]) & (pc.field("year") >= 1997),
         ["l_orderkey", "l_linenumber", "mode", "year"]),
        ("year is null", pc.field("year").is_null(), ["l_orderkey", "l_linenumber", "year"]),
        ("l_discount > 0.09", pc.field("l_discount") > D("0.09"), ["l_orderkey", "l_linenumber", "l_discount"]),
        ("not (year < 1994 or year > 1994)", ~((pc.field("year") < 1994) | (pc.field("year") > 1994)),
         ["l_orderkey", "l_linenumber", "year"]),
        (None, None, ["year", "mode"]),  # partition keys only
    ]
    for text, expr, cols in cases:
        want = ref.to_table(filter=expr, columns=cols)
        s = ds.scan(columns=cols, filter=text, batch_size=2500)
        got = s.read()
        same(got, want, "hive [%s] %s" % (text, cols))
        assert pa.schema(s).equals(got.schema), (pa.schema(s), got.schema)  # __arrow_c_schema__
        if text and text.startswith("year = 1995"):
            expect = sum(1 for f in files if years[f] != 1995)
            assert s.stats["files_pruned_partition"] == expect, (s.stats, expect)
        if text == "year is null":
            assert s.stats["files_pruned_partition"] == sum(1 for f in files if years[f] is not None), s.stats
    # consumers
    import duckdb
    import polars as pl
    s = ds.scan(columns=["l_orderkey", "year"], filter="year = 1996")
    n = duckdb.sql("select count(*) from s").fetchall()[0][0]
    assert n == ref.count_rows(filter=pc.field("year") == 1996), n
    assert pl.DataFrame(ds.scan(columns=["year"], filter="year = 1996")).shape[0] == n
    # their values, against pyarrow.dataset's
    cols = ["l_orderkey", "l_linenumber", "l_shipmode", "l_quantity", "year", "mode"]
    text, expr = "mode = 'MAIL' and l_quantity >= 49", (pc.field("mode") == "MAIL") & (pc.field("l_quantity") >= D("49"))
    want = sort(ref.to_table(filter=expr, columns=cols))
    s = ds.scan(columns=cols, filter=text)
    for got in (duckdb.sql("select * from s").to_arrow_table(), pl.DataFrame(ds.scan(columns=cols, filter=text)).to_arrow()):
        got = sort(got.select(cols))
        assert got.num_rows == want.num_rows and want.num_rows > 0, (got.num_rows, want.num_rows)
        for name in cols:
            assert got.column(name).to_pylist() == want.column(name).to_pylist(), name
    # a stream outlives its dataset
    cap = ds.scan(columns=["l_orderkey"]).__arrow_c_stream__()
    ds.close()
    assert pa.RecordBatchReader._import_from_c_capsule(cap).read_all().num_rows == 122000
    print("hive: %d files, %d filters equal to pyarrow.dataset" % (len(files), len(cases)))


def check_ranges(tmp):
    root = os.path.join(tmp, "ranges")
    t = write_ranges(root)
    ref = pds.dataset(root)
    for paths in (root, os.path.join(root, "*.parquet"), [os.path.join(root, "part-0%d.parquet" % i) for i in range(8)],
                  os.path.join(tmp, "**", "part-*.parquet")):
        ds = pqstep.dataset(paths, threads=1 if isinstance(paths, list) else None)  # 1: a row group per pull
        assert len(ds.files) == 8, (paths, ds.files)
        want = ref.to_table(filter=pc.field("l_orderkey") < 20000)
        s = ds.scan(filter="l_orderkey < 20000")
        same(s.read(), want, "ranges %s" % paths)
        keys = [pq.ParquetFile(os.path.join(root, "part-%02d.parquet" % i)).metadata.row_group(0).column(0)
                .statistics.min for i in range(8)]
        assert s.stats["files_pruned_statistics"] == sum(1 for k in keys if k >= 20000), (s.stats, keys)
        assert s.stats["files_pruned_statistics"] > 0
    print("ranges: directory, glob, list and ** give pyarrow's rows; statistics pruned files")
    return t


def check_errors(tmp):
    hive = os.path.join(tmp, "hive")
    ds = pqstep.dataset(hive, partitioning="hive")
    for text, want in (("year = 1995 or l_quantity < 5", "partition key and a file column"),
                       ("year = 'x'", "int32"),
                       ("nosuch = 1", "nosuch")):
        try:
            ds.scan(filter=text).read()
            raise AssertionError("accepted: %s" % text)
        except pqstep.Error as e:
            assert want in str(e), (text, str(e))
    try:
        ds.scan(columns=["nosuch"]).read()
        raise AssertionError("accepted an unknown column")
    except pqstep.Error as e:
        assert "nosuch" in str(e), e
    # two files whose schemas differ
    bad = os.path.join(tmp, "mixed")
    os.makedirs(bad)
    pq.write_table(pa.table({"a": pa.array([1, 2], pa.int64())}), os.path.join(bad, "x.parquet"))
    pq.write_table(pa.table({"a": pa.array(["1", "2"])}), os.path.join(bad, "y.parquet"))
    try:
        pqstep.dataset(bad)
        raise AssertionError("different schemas accepted")
    except pqstep.Error as e:
        assert "x.parquet" in str(e) and "y.parquet" in str(e) and "'a'" in str(e), e
    # a file missing a partition key
    part = os.path.join(tmp, "keys")
    os.makedirs(os.path.join(part, "k=1"))
    os.makedirs(os.path.join(part, "j=2"))
    pq.write_table(pa.table({"a": [1]}), os.path.join(part, "k=1", "a.parquet"))
    pq.write_table(pa.table({"a": [2]}), os.path.join(part, "j=2", "b.parquet"))
    try:
        pqstep.dataset(part, partitioning="hive")
        raise AssertionError("different keys accepted")
    except pqstep.Error as e:
        assert "'j'" in str(e) and "'k'" in str(e), e
    try:
        pqstep.dataset(os.path.join(tmp, "does-not-exist"))
        raise AssertionError("a missing path accepted")
    except pqstep.Error as e:
        assert "does-not-exist" in str(e), e
    print("errors: schema, keys, terms, columns, literals and paths named")


def check_cli(tmp):
    """The CLI over a dataset: cat (csv) and prune (--json) against
    pyarrow.dataset, meta over a pattern."""
    import csv
    import io
    import json
    import subprocess
    cli = os.environ.get("PQSTEP_CLI")
    if not cli:
        print("SKIP cli checks: PQSTEP_CLI is not set")
        return
    hive = os.path.join(tmp, "hive")
    ref = pds.dataset(hive, partitioning="hive")
    out = subprocess.run([cli, "cat", "--hive", "--where", "year = 1996 and l_quantity < 3", "--columns",
                          "l_orderkey,l_linenumber,l_quantity,year,mode", "--format", "csv", hive],
                         capture_output=True, text=True, check=True).stdout
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["l_orderkey", "l_linenumber", "l_quantity", "year", "mode"], rows[0]
    want = ref.to_table(filter=(pc.field("year") == 1996) & (pc.field("l_quantity") < D("3")),
                        columns=["l_orderkey", "l_linenumber", "l_quantity", "year", "mode"])
    got = sorted((int(r[0]), int(r[1]), r[2], int(r[3]), r[4]) for r in rows[1:])
    exp = sorted((r["l_orderkey"], r["l_linenumber"], "%.2f" % r["l_quantity"], r["year"], r["mode"])
                 for r in want.to_pylist())
    assert got == exp, (len(got), len(exp))
    doc = json.loads(subprocess.run([cli, "prune", "--json", "--hive", "--where", "year = 1996", hive],
                                    capture_output=True, text=True, check=True).stdout)
    n1996 = sum(1 for f in ref.files if "/year=1996/" in f)
    assert doc["files"] == len(ref.files) and doc["files_read"] == n1996, (doc, n1996)
    assert doc["partition_keys"] == [{"name": "year", "type": "int32"}, {"name": "mode", "type": "string"}], doc
    metas = json.loads(subprocess.run([cli, "meta", "--json", os.path.join(tmp, "ranges", "*.parquet")],
                                      capture_output=True, text=True, check=True).stdout)
    assert len(metas) == 8 and sum(m["num_rows"] for m in metas) == 122000, [m["num_rows"] for m in metas]
    print("cli: cat, prune and meta over datasets agree with pyarrow.dataset")


def main():
    tmp = tempfile.mkdtemp(prefix="pqstep-dataset-")
    try:
        check_hive(tmp)
        check_ranges(tmp)
        check_errors(tmp)
        check_cli(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
