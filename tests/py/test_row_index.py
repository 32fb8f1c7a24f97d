"""The row index (pq_reader_options.row_index_name; row_index= in Python,
`pqstep cat --row-index`, row_index_name= in pqstep.polars.scan_parquet):
each delivered row's file row number, checked against the positions of
the rows pyarrow reads (the oracle: pyarrow's whole read, with the filter
evaluated by pyarrow.compute, the row range and the deletions applied by
position), and every other column equal to pyarrow's value at that
position:

- files: pyarrow's flat file (several row groups, small pages, a page
  index), pyarrow's nested file (list, struct, map), DuckDB's;
- alone, with a filter, a row range, a deletion vector and all three;
- through read_table, Reader.read, scan (small batches), a dataset of two
  files (each file's own numbers), the CLI and the polars source.
"""
import json
import os
import subprocess
import sys
import tempfile

from read_oracle import pa, pq, pqstep  # noqa: F401

import numpy as np
import pyarrow.compute as pc

from test_deletion_vectors import N, write_files

CLI = os.environ.get("PQSTEP_CLI")


def expect(full, positions, what):
    """pyarrow's rows at `positions`, with the row index column."""
    t = full.take(pa.array(positions, pa.int64()))
    return t.append_column(pa.field("rn", pa.int64(), nullable=False), pa.array(positions, pa.int64())), what


def same(got, want_what):
    want, what = want_what
    assert got.column_names == want.column_names, (what, got.column_names)
    assert got.column("rn").to_pylist() == want.column("rn").to_pylist(), what
    assert got.cast(want.schema).to_pylist() == want.to_pylist(), what


def check_file(name, path):
    full = pq.read_table(path)
    n = full.num_rows
    ids = full.column("id").to_numpy()
    flt = "id >= 2500 and id < 27000"
    fmask = (ids >= 2500) & (ids < 27000)
    dels = np.unique(np.random.default_rng(3).integers(0, n, 3000))
    dmask = np.ones(n, bool)
    dmask[dels] = False
    rmask = np.zeros(n, bool)
    rmask[1234:1234 + 20000] = True
    cases = [
        ({}, np.ones(n, bool)),
        ({"filter": flt}, fmask),
        ({"row_offset": 1234, "row_limit": 20000}, rmask),
        ({"deleted_rows": dels}, dmask),
        ({"filter": flt, "row_offset": 1234, "row_limit": 20000, "deleted_rows": dels}, fmask & rmask & dmask),
    ]
    for kw, mask in cases:
        pos = np.flatnonzero(mask)
        what = (name, sorted(kw))
        same(pqstep.read_table(path, row_index="rn", **kw), expect(full, pos, what))
        got = pqstep.scan(path, row_index="rn", batch_size=3001, **kw).to_reader().read_all()
        same(got, expect(full, pos, what + ("scan",)))
        with pqstep.Reader(path, row_index="rn", deleted_rows=kw.get("deleted_rows")) as r:
            got = r.read(filter=kw.get("filter"), row_offset=kw.get("row_offset", 0), row_limit=kw.get("row_limit"))
            same(got, expect(full, pos, what + ("Reader",)))
    return len(cases)


def check_dataset(path):
    ds = pqstep.dataset([path, path], row_index="rn")
    t = ds.scan(columns=["id", "rn"], filter="id < 100").read()
    assert t.column("rn").to_pylist() == list(range(100)) * 2, t.column("rn").to_pylist()[:5]
    assert t.column("id").to_pylist() == list(range(100)) * 2


def check_cli(path):
    if not CLI:
        print("CLI check skipped: PQSTEP_CLI is not set")
        return
    p = subprocess.run([CLI, "cat", "--format", "jsonl", "--columns", "id", "--where", "k = 3", "--row-index", "pos",
                        path], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    ids = pq.read_table(path, columns=["id", "k"])
    want = [{"id": i, "pos": i} for i, k in zip(ids["id"].to_pylist(), ids["k"].to_pylist()) if k == 3]
    assert rows == want, (rows[:3], want[:3])
    p = subprocess.run([CLI, "cat", "--row-index", path], capture_output=True, text=True)
    assert p.returncode == 2, p.stderr


def check_polars(path):
    try:
        import polars as pl
        import pqstep.polars as pp
    except ImportError:
        print("polars source check skipped: polars is not installed")
        return
    want = pl.read_parquet(path).with_row_index("rn").filter(pl.col("k") == 2).select("rn", "id")
    got = pp.scan_parquet(path, row_index_name="rn").filter(pl.col("k") == 2).select("rn", "id").collect()
    assert got.with_columns(pl.col("rn").cast(pl.UInt32)).equals(want), (got.head(3), want.head(3))
    # a range on the row index is read as a row range (only those rows);
    # polars applies the filter too, and what no range expresses is its alone
    full = pl.read_parquet(path).with_row_index("rn")
    rn = pl.col("rn")
    for e, rows in ((rn.is_between(7000, 7004), (7000, 7005)), (rn >= 29990, (29990, None)),
                    ((rn > 100) & (rn <= 200) & (pl.col("k") == 1), (101, 201)), (rn == 5, (5, 6)),
                    (rn < 0, (0, 0)), (rn.is_between(10, 20, closed="none"), (11, 20)),
                    ((rn < 10) | (rn > 29995), None)):
        got = pp.scan_parquet(path, row_index_name="rn").filter(e).collect()
        want = full.filter(e)
        assert got.with_columns(rn.cast(pl.UInt32)).equals(want.select(got.columns)), (str(e), got.height)
        assert pp.pushdown_log()[-1]["row_range"] == rows, (str(e), pp.pushdown_log()[-1])


def main():
    with tempfile.TemporaryDirectory(prefix="pqstep-ri-") as tmp:
        files = write_files(tmp)
        cases = 0
        for name, path in files.items():
            cases += check_file(name, path)
        check_dataset(files["flat"])
        check_cli(files["flat"])
        check_polars(files["flat"])
        bad = False
        try:
            pqstep.read_table(files["flat"], row_index="")
        except TypeError:
            bad = True
        assert bad, "row_index='' was taken"
        assert pc is not None and N > 0
    print("row index: %d (file, selection) cases equal the positions of pyarrow's rows, through read_table, "
          "scan and Reader; datasets, the CLI and the polars source" % cases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
