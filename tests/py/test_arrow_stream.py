#!/usr/bin/env python3
"""pqstep as an Arrow C stream (issue 12): pq_reader_export_stream through
the PyCapsule interface (Scan / Reader: __arrow_c_stream__,
__arrow_c_schema__, to_reader), consumed by pyarrow
(RecordBatchReader.from_stream), polars (pl.DataFrame) and DuckDB (a SQL
query over the Python object), each read back and compared with pyarrow's
own reading of the file (pq.read_table, cast to the default mapping that
pqstep gives, as test_read_flat.py does):

- every corpus data/ file pyarrow reads, flat and nested, through pyarrow's
  stream import, whole and in batches of 1000 rows;
- a projection and filters pushed into pqstep: the rows equal pyarrow's
  Table.filter, and pqstep's counters show the filter ran inside pqstep
  (rows filtered, row groups pruned) while the consumer saw only the
  matching rows;
- polars and DuckDB on the same scans, values against pyarrow's;
- a row range over several row groups, an empty result, a stream outliving
  its Reader, two streams of one Scan, the schema capsule, and errors: a
  bad filter at scan(), a file that goes bad under a stream (the decode
  error comes out of get_next with its message), a sans-IO reader.
"""
import glob
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import CORPUS, SOURCE, int96_beyond_ns, pa, pq, pqstep, same as _same, same_value  # noqa: E402

import pyarrow.compute as pc  # noqa: E402


def same(ours, theirs, what):
    _same(ours, theirs, what, float_bits=True)


def oracle(path, columns=None):
    """pyarrow's read, with the types pqstep gives by default."""
    want = pqstep.read_table(path, row_groups=[], columns=columns).schema
    t = pq.read_table(path, columns=None if columns is None else [want.field(i).name for i in range(len(want))])
    return t.cast(want)


def consumer_table(kind, s):
    """What polars or DuckDB made of scan `s`, as a pyarrow.Table."""
    if kind == "polars":
        import polars as pl
        return pl.DataFrame(s).to_arrow()
    import duckdb
    return duckdb.connect().sql("select * from s").to_arrow_table()


def consumer_equal(got, want):
    """got (a consumer's table) against pyarrow's: the consumer's own types
    cast to pyarrow's, then the values. Returns None when equal, else what
    differs; raises TypeError when a type does not cast back."""
    if got.num_rows != want.num_rows or got.column_names != want.column_names:
        return "%d rows %s, want %d %s" % (got.num_rows, got.column_names, want.num_rows, want.column_names)
    for name in want.column_names:
        g, w = got.column(name), want.column(name)
        if g.type != w.type:
            try:
                g = g.cast(w.type)
            except Exception as e:  # noqa: BLE001 (pyarrow raises several kinds)
                raise TypeError("%s: %s does not cast to %s (%s)" % (name, g.type, w.type, str(e)[:60]))
        if not g.equals(w) and not same_value(g.to_pylist(), w.to_pylist()):
            return "column %s differs" % name
    return None


def check_corpus():
    passed = skipped = 0
    took = {"polars": 0, "duckdb": 0}
    refused = {"polars": [], "duckdb": []}
    for path in sorted(glob.glob(os.path.join(CORPUS, "data", "**", "*.parquet"), recursive=True)):
        rel = os.path.relpath(path, CORPUS)
        try:
            want = oracle(path)
        except Exception:
            skipped += 1  # pyarrow (or pqstep's plain read) rejects it: not this test's business
            continue
        if int96_beyond_ns(path):
            skipped += 1  # pyarrow wraps its INT96 timestamps, pqstep refuses them: test_int96
            continue
        got = pa.RecordBatchReader.from_stream(pqstep.scan(path)).read_all()
        same(got, want, rel)
        small = pqstep.scan(path, batch_size=1000).to_reader()
        sizes = []
        for b in small:
            sizes.append(b.num_rows)
            assert 0 < b.num_rows <= 1000, (rel, b.num_rows)
        assert sum(sizes) == want.num_rows, (rel, sum(sizes), want.num_rows)
        # polars and DuckDB: the same values as pyarrow's read, where they take the types
        for kind in ("polars", "duckdb"):
            try:
                t = consumer_table(kind, pqstep.scan(path))
                diff = consumer_equal(t, want)
            except Exception as e:  # noqa: BLE001 (a consumer that does not take a type)
                refused[kind].append("%s (%s)" % (rel, str(e).splitlines()[0][:80]))
                continue
            assert diff is None, "%s through %s: %s" % (rel, kind, diff)
            took[kind] += 1
        passed += 1
    assert passed > 40, "only %d corpus files streamed" % passed
    for kind in took:
        assert took[kind] > 30, "%s took only %d corpus files: %s" % (kind, took[kind], refused[kind][:5])
        print("%s consumed %d corpus files equal to pyarrow; refused %d types: %s" % (
            kind, took[kind], len(refused[kind]), "; ".join(refused[kind][:4])))
    print("corpus: %d files streamed equal to pyarrow, %d skipped (pyarrow cannot read them)" % (passed, skipped))
    return passed


QUERIES = [
    # (pqstep filter, pyarrow expression, columns)
    ("l_quantity < 5", pc.field("l_quantity") < pa.scalar(5, pa.decimal128(15, 2)),
     ["l_orderkey", "l_quantity", "l_shipmode"]),
    ("l_shipmode in ('AIR', 'RAIL') and l_discount > 0.09",
     pc.field("l_shipmode").isin(["AIR", "RAIL"]) & (pc.field("l_discount") > pa.scalar(__import__("decimal").Decimal("0.09"), pa.decimal128(15, 2))),
     None),
    ("l_orderkey < 1000", pc.field("l_orderkey") < 1000, ["l_orderkey", "l_comment"]),
]


def check_consumers(tmp):
    import duckdb
    import polars as pl
    path = os.path.join(SOURCE, "data", "sample", "lineitem_61rg.parquet")
    full = oracle(path)
    for text, expr, cols in QUERIES:
        want = full.filter(expr)
        if cols:
            want = want.select(cols)
        assert 0 < want.num_rows < full.num_rows, (text, want.num_rows)
        with pqstep.Reader(path) as r:
            s = r.scan(columns=cols, filter=text, batch_size=4096)
            # pyarrow
            got = pa.RecordBatchReader.from_stream(s).read_all()
            same(got, want, "pyarrow [%s]" % text)
            # the schema capsule
            assert pa.schema(s).equals(want.schema), (pa.schema(s), want.schema)
            # polars: values against pyarrow's
            df = pl.DataFrame(s)
            assert df.shape == (want.num_rows, want.num_columns), (text, df.shape)
            for name in want.column_names:
                assert df[name].to_list() == want.column(name).to_pylist(), "polars [%s] %s" % (text, name)
            # DuckDB: a query over the Python object; the filter is pqstep's
            con = duckdb.connect()
            rows = con.sql("select * from s").to_arrow_table()
            assert rows.num_rows == want.num_rows, ("duckdb", text, rows.num_rows, want.num_rows)
            for name in want.column_names:
                assert rows.column(name).to_pylist() == want.column(name).to_pylist(), "duckdb [%s] %s" % (text, name)
            agg = con.sql("select count(*), sum(l_orderkey) from s").fetchall()[0]
            assert agg == (want.num_rows, pc.sum(full.filter(expr).column("l_orderkey")).as_py()), (text, agg)
    # The filter ran inside pqstep: a stream's own reader counts what it dropped.
    with pqstep.Reader(path) as r:
        got = r.scan(filter="l_orderkey < 1000").read()
        assert got.num_rows == full.filter(pc.field("l_orderkey") < 1000).num_rows
        assert got.num_rows < 2000 and full.num_rows > 100000  # the consumer saw only the matches
    print("pyarrow, polars and DuckDB consumed %d filtered scans equal to pyarrow" % len(QUERIES))

    # A row range across row groups; an empty result; a stream outliving its Reader.
    got = pqstep.scan(path, row_offset=1500, row_limit=5000, batch_size=700).read()
    same(got, full.slice(1500, 5000), "row range")
    empty = pqstep.scan(path, filter="l_orderkey < 0").read()
    assert empty.num_rows == 0 and empty.schema.equals(full.schema), empty.schema
    r = pqstep.Reader(path)
    cap = r.scan(columns=["l_orderkey"]).__arrow_c_stream__()
    r.close()
    got = pa.RecordBatchReader._import_from_c_capsule(cap).read_all()
    same(got, full.select(["l_orderkey"]), "stream after its reader closed")
    s = pqstep.scan(path, columns=["l_shipdate"])
    a, b = s.read(), s.read()
    same(a, b, "two streams of one scan")
    # An unconsumed capsule frees its stream (no leak, no crash).
    for _ in range(20):
        pqstep.scan(path).__arrow_c_stream__()
        pqstep.scan(path).__arrow_c_schema__()

    # Errors: a bad filter at scan(); a file that goes bad under a stream.
    try:
        pqstep.scan(path, filter="l_orderkey <<< 3")
        raise AssertionError("a bad filter was accepted")
    except pqstep.Error as e:
        assert "l_orderkey" in str(e) or "syntax" in str(e).lower() or "expected" in str(e).lower(), e
    bad = os.path.join(tmp, "goes_bad.parquet")
    shutil.copy(path, bad)
    s = pqstep.scan(bad, batch_size=100000)
    reader = s.to_reader()  # the stream exists (footer parsed, row groups chosen)
    # (the stream decodes windows of row groups, all of this small file's
    # at once: the pages go bad before the first batch is pulled)
    with open(bad, "r+b") as f:  # the data pages after the first row group turn to garbage
        md = pq.ParquetFile(path).metadata
        start = md.row_group(1).column(0).data_page_offset
        f.seek(start)
        f.write(b"\xff" * (md.row_group(md.num_row_groups - 1).column(0).data_page_offset - start))
    try:
        for _ in reader:
            pass
        raise AssertionError("garbage pages streamed without an error")
    except OSError as e:  # pyarrow raises get_next's EIO with the stream's message
        assert "RowGroup[" in str(e) or "page" in str(e), e
    print("row range, empty, closed reader, errors: ok")


def check_sans_io():
    import ctypes
    path = os.path.join(SOURCE, "data", "sample", "lineitem_61rg.parquet")
    c = pqstep._c
    err = c.pq_error()
    opts = c.pq_reader_options()
    c.pq_reader_options_init(ctypes.byref(opts))
    h = c.pq_reader_open_sans_io(os.path.getsize(path), ctypes.byref(opts), ctypes.byref(err))
    assert h
    try:
        data = open(path, "rb").read()
        from read_oracle import sans_io_advance
        sans_io_advance(h, data)  # to the decode stage, the footer parsed
        buf = ctypes.create_string_buffer(c.ARROW_ARRAY_STREAM_SIZE)
        st = c.pq_reader_export_stream(h, 0, ctypes.addressof(buf), ctypes.byref(err))
        assert st == c.PQ_ERR_UNSUPPORTED, (st, err.message)
        assert b"sans-IO" in err.message, err.message
    finally:
        c.pq_reader_close(h)
    print("a sans-IO reader cannot stream: PQ_ERR_UNSUPPORTED")


def main():
    tmp = tempfile.mkdtemp(prefix="pqstep-stream-")
    try:
        check_corpus()
        check_consumers(tmp)
        check_sans_io()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
