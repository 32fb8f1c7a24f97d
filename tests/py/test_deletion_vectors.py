"""Deletion vectors (pq_reader_options.deleted_rows; deleted_rows= in
Python and pqstep.polars.scan_parquet) against pyarrow reads of the same
files with the same rows removed (a boolean mask over pyarrow's whole read,
then pyarrow's own filter for the filtered cases):

- files: pyarrow's, flat, several row groups of small pages with a page
  index; pyarrow's nested (a list, a struct, a map); DuckDB's;
- deletion vectors: scattered rows, whole row groups, a run inside a row
  group, every row, none, rows past the end, unsorted with duplicates, as
  ints, a numpy array, a pyarrow int64 array and a boolean bitmap;
- with and without a filter, with a row range, with a projection, through
  read_table, Reader.read, scan (the Arrow stream) and the polars source;
- pages that hold only deleted rows are never read (the filter stage's
  pages_skipped and bytes_read) and wholly deleted row groups are dropped (select stage's
  pruned_deleted, rows_deleted).
"""
import os
import sys
import tempfile

from read_oracle import pa, pq, pqstep  # noqa: F401

import numpy as np
import pyarrow.compute as pc

N = 30_000


def write_files(tmp):
    rng = np.random.default_rng(35)
    ids = np.arange(N, dtype=np.int64)
    flat = pa.table({
        "id": ids,
        "k": pa.array(ids % 7, pa.int32()),
        "s": pa.array([None if i % 13 == 0 else "v%04d" % (i % 997) for i in range(N)]),
        "x": pa.array(rng.normal(size=N)),
    })
    files = {}
    files["flat"] = os.path.join(tmp, "flat.parquet")
    pq.write_table(flat, files["flat"], row_group_size=7000, data_page_size=2048, write_page_index=True,
                   write_statistics=True)
    nested = pa.table({
        "id": ids,
        "li": pa.array([[int(i), int(i) + 1][: i % 3] for i in range(N)], pa.list_(pa.int64())),
        "st": pa.array([{"a": int(i), "b": "b%d" % (i % 5)} for i in range(N)]),
        "m": pa.array([[("k%d" % (i % 4), int(i))] for i in range(N)], pa.map_(pa.string(), pa.int64())),
    })
    files["nested"] = os.path.join(tmp, "nested.parquet")
    pq.write_table(nested, files["nested"], row_group_size=9000, data_page_size=4096)
    try:
        import duckdb
        files["duckdb"] = os.path.join(tmp, "duckdb.parquet")
        con = duckdb.connect()
        con.register("flat_view", flat)
        con.execute("COPY (SELECT * FROM flat_view) TO '%s' (FORMAT parquet, ROW_GROUP_SIZE 5000)" % files["duckdb"])
    except ImportError:
        print("DuckDB's file skipped: duckdb is not installed")
    return files


def deletion_sets(n):
    rng = np.random.default_rng(7)
    scattered = np.unique(rng.integers(0, n, n // 10))
    return {
        "scattered": scattered,
        "row group": np.arange(7000, 14000),  # the flat file's second row group
        "run inside": np.arange(15000, 19000),
        "every row": np.arange(n),
        "none": np.array([], dtype=np.int64),
        "past the end": np.array([n - 1, n, n + 5, 10 ** 12]),
        "unsorted, duplicates": np.array([29999, 5, 5, 17, 4, 29999, 0]),
    }


def mask_for(n, dels):
    keep = np.ones(n, dtype=bool)
    d = np.asarray(dels, dtype=np.int64)
    keep[d[d < n]] = False
    return keep


def same(got, want, what):
    got = got.cast(want.schema) if got.schema != want.schema else got
    assert got.num_rows == want.num_rows, (what, got.num_rows, want.num_rows)
    assert got.to_pylist() == want.to_pylist(), what


def check_file(name, path):
    full = pq.read_table(path)
    n = full.num_rows
    checks = 0
    for dname, dels in deletion_sets(n).items():
        keep = mask_for(n, dels)
        want = full.filter(pa.array(keep))
        what = (name, dname)
        same(pqstep.read_table(path, deleted_rows=dels), want, what)
        # other forms of the same vector
        forms = [list(map(int, dels)), pa.array(np.asarray(dels, dtype=np.int64)), ~keep,
                 pa.array(~np.concatenate([keep, np.ones(3, bool)]))]
        for form in forms:
            same(pqstep.read_table(path, columns=["id"], deleted_rows=form), want.select(["id"]), what + ("form",))
        # a filter on top
        flt = "id >= 3000 and id < 26000" if name != "nested" else "id < 20000"
        lo, hi = (3000, 26000) if name != "nested" else (0, 20000)
        wf = want.filter(pc.and_(pc.greater_equal(want["id"], lo), pc.less(want["id"], hi)))
        same(pqstep.read_table(path, filter=flt, deleted_rows=dels), wf, what + ("filter",))
        # a row range counts rows before the deletions
        rr = np.zeros(n, dtype=bool)
        rr[1000:21000] = True
        same(pqstep.read_table(path, row_offset=1000, row_limit=20000, deleted_rows=dels),
             full.filter(pa.array(keep & rr)), what + ("row range",))
        # the stream and a Reader
        got = pqstep.scan(path, deleted_rows=dels, batch_size=4000).to_reader().read_all()
        same(got, want, what + ("scan",))
        with pqstep.Reader(path, deleted_rows=dels) as r:
            same(r.read(), want, what + ("Reader.read",))
            st = r.stage_stats("select")
            assert st["rows_deleted"] == int((~keep).sum()), (what, st)
        checks += 1
    return checks


def check_pruning(path):
    """Deleted pages are not read; deleted row groups are dropped. Rows
    15000..18999 cover several whole pages of column x (pyarrow cut it
    into 35 pages); the deferred column's pages are read in the filter
    stage (late materialization), only those with a row left."""
    with pqstep.Reader(path) as r:
        r.read(columns=["x"])
        whole = r.stage_stats("page headers")
    with pqstep.Reader(path, deleted_rows=np.arange(15000, 19000)) as r:
        t = r.read(columns=["x"])
        assert t.num_rows == N - 4000
        part = r.stage_stats("filter")
    assert part["pages_skipped"] >= 2 and part["pages"] + part["pages_skipped"] == whole["pages"], (part, whole)
    assert part["bytes_read"] < whole["bytes_read"], (part, whole)
    with pqstep.Reader(path, deleted_rows=np.arange(7000, 14000)) as r:
        r.read(columns=["id"])
        sel = r.stage_stats("select")
    assert sel["pruned_deleted"] == 1 and sel["rows_deleted"] == 7000, sel


def check_bad_input(path):
    for bad, exc in (([-1], ValueError), ([1.5], TypeError), ([[1, 2]], ValueError),
                     (pa.array([1, None], pa.int64()), ValueError)):
        try:
            pqstep.read_table(path, deleted_rows=bad)
        except exc:
            continue
        raise AssertionError("deleted_rows=%r was taken" % (bad,))


def check_polars(path):
    try:
        import polars as pl
        import pqstep.polars as pp
    except ImportError:
        print("polars source check skipped: polars is not installed")
        return
    dels = deletion_sets(N)["scattered"]
    keep = mask_for(N, dels)
    want = pl.read_parquet(path).filter(pl.Series(keep))
    got = pp.scan_parquet(path, deleted_rows=dels).collect()
    assert got.equals(want), (got.head(3), want.head(3))
    got = pp.scan_parquet(path, deleted_rows=dels).filter(pl.col("k") == 3).select("id").collect()
    assert got.equals(want.filter(pl.col("k") == 3).select("id"))
    # a limit counts the rows left after the deletions (not the file's first rows)
    got = pp.scan_parquet(path, deleted_rows=dels).head(1000).collect()
    assert got.equals(want.head(1000)), (got.head(3), want.head(3))


def main():
    with tempfile.TemporaryDirectory(prefix="pqstep-dv-") as tmp:
        files = write_files(tmp)
        checks = 0
        for name, path in files.items():
            checks += check_file(name, path)
        check_pruning(files["flat"])
        check_bad_input(files["flat"])
        check_polars(files["flat"])
    print("deletion vectors: %d (file, vector) cases equal pyarrow's reads with the rows removed, with and "
          "without a filter, a row range, the stream and Reader; deleted pages and row groups not read" % checks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
