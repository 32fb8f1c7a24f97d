"""Row ranges, batches and threads, against pyarrow.

- pqstep.read_table(f, row_offset=k, row_limit=n) equals
  pyarrow.parquet.read_table(f).slice(k, n), for ranges inside a page, across
  pages and across row groups, on generated files with tiny pages (with and
  without a page index) and on every corpus file pyarrow reads;
- Reader.iter_batches(b) concatenates to the whole table, no batch is longer
  than b or spans two row groups;
- any thread count gives the same table;
- with an offset index, a row range reads and walks only the pages it needs
  (page-header stage counters and pq_reader_chunk_pages), without one it reads
  whole chunks; a sans-IO reader is asked for offset indexes, then pages;
- pq_reader_export_rows refuses rows outside the range.
"""
import ctypes
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import (CORPUS, SKIP, all_batches, int96_beyond_ns, pa, pq, pqstep, same,  # noqa: E402,F401
                         sans_io_advance)

from pqstep import _lib as _c  # noqa: E402

ROWS_PER_GROUP = 1000
GROUPS = 3


def make_files(tmp):
    """Tiny pages (dozens per chunk), flat and nested columns, nulls; two
    dictionary-encoded columns (whose dictionary page a range must read)."""
    n = ROWS_PER_GROUP * GROUPS
    table = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "name": pa.array([None if i % 7 == 0 else "name-%d" % (i * 37 % 1000) for i in range(n)]),
        "score": pa.array([None if i % 5 == 0 else i * 0.5 for i in range(n)], pa.float64()),
        "flag": pa.array([i % 3 == 0 for i in range(n)]),
        "tags": pa.array([None if i % 11 == 0 else list(range(i % 4)) for i in range(n)],
                         pa.list_(pa.int32())),
        "point": pa.array([None if i % 13 == 0 else {"x": i, "label": "p%d" % (i % 9)}
                           for i in range(n)],
                          pa.struct([("x", pa.int32()), ("label", pa.string())])),
    })
    out = {}
    for name, index, version in (("indexed_v1", True, "1.0"), ("indexed_v2", True, "2.0"),
                                 ("plain", False, "1.0")):
        path = os.path.join(tmp, name + ".parquet")
        pq.write_table(table, path, row_group_size=ROWS_PER_GROUP, data_page_size=256,
                       write_batch_size=50, write_page_index=index, data_page_version=version,
                       compression="snappy", use_dictionary=["name", "point.label"])
        out[name] = path
    return out


def ranges_for(n, rg_rows):
    """Row ranges: inside one page, across pages, across row groups, the
    tail, past the end, and single rows."""
    rs = [(0, 1), (0, n), (1, 10), (n // 3, n // 3 + 1), (n - 1, 5), (n, 3), (n + 10, 1)]
    if rg_rows:
        rs += [(rg_rows - 3, 6), (rg_rows, rg_rows), (rg_rows + 123, 77), (5, 2 * rg_rows)]
    return [(k, m) for k, m in rs if k >= 0 and m > 0]


def check_ranges(path, what, rg_rows=0, threads=(None,)):
    full = pq.read_table(path)
    n = full.num_rows
    for k, m in ranges_for(n, rg_rows):
        expect = full.slice(k, m)
        for t in threads:
            ours = pqstep.read_table(path, row_offset=k, row_limit=m, threads=t)
            same(ours, expect, "%s rows [%d, +%d) threads=%s" % (what, k, m, t), float_bits=True,
                 validate=True)


def check_batches(path, what, sizes):
    full = pq.read_table(path)
    md = pq.ParquetFile(path).metadata
    bounds = set()
    at = 0
    for g in range(md.num_row_groups):
        at += md.row_group(g).num_rows
        bounds.add(at)
    for b in sizes:
        with pqstep.Reader(path) as r:
            batches = list(r.iter_batches(batch_size=b))
        at = 0
        for x in batches:
            assert x.num_rows <= b, "%s batch_size %d: a batch of %d rows" % (what, b, x.num_rows)
            # A batch never spans a row-group boundary.
            assert not any(at < e < at + x.num_rows for e in bounds), \
                "%s batch_size %d: batch [%d, +%d) spans a row group" % (what, b, at, x.num_rows)
            at += x.num_rows
        ours = pa.Table.from_batches(batches) if batches else full.schema.empty_table()
        same(ours, full, "%s iter_batches(%d)" % (what, b), float_bits=True, validate=True)


def check_threads(path, what):
    one = pqstep.read_table(path, threads=1)
    for t in (2, 5):
        same(pqstep.read_table(path, threads=t), one, "%s: threads=%d vs 1" % (what, t),
             float_bits=True)


# ---------------------------------------------------------------------------
# The reader's counters, through the C API
# ---------------------------------------------------------------------------

def open_reader(path, row_offset, row_limit, sans_io=False, columns=None, footer_read_size=0,
                no_coalescing=False):
    opts = _c.pq_reader_options()
    _c.pq_reader_options_init(ctypes.byref(opts))
    opts.no_coalescing = no_coalescing
    opts.row_offset = row_offset
    opts.row_limit = row_limit
    opts.footer_read_size = footer_read_size
    if columns is not None:
        arr = (ctypes.c_uint32 * len(columns))(*columns)
        opts.columns = ctypes.cast(arr, ctypes.POINTER(ctypes.c_uint32))
        opts.columns_len = len(columns)
    err = _c.pq_error()
    if sans_io:
        h = _c.pq_reader_open_sans_io(os.path.getsize(path), ctypes.byref(opts), ctypes.byref(err))
    else:
        h = _c.pq_reader_open_path(path.encode(), ctypes.byref(opts), ctypes.byref(err))
    assert h, err.message
    return h


def page_stage_bytes(path, row_offset, row_limit, columns):
    # Each kept range read alone: coalescing would read the small gaps of
    # skipped pages too (a trade it makes on purpose).
    h = open_reader(path, row_offset, row_limit, columns=columns, no_coalescing=True)
    err = _c.pq_error()
    try:
        st = _c.pq_reader_advance_to(h, _c.PQ_STAGE_DECODE, ctypes.byref(err))
        assert st == _c.PQ_OK, err.message
        s = _c.pq_page_header_stats()
        _c.pq_reader_page_header_stats(h, ctypes.byref(s), ctypes.sizeof(s))
        return int(s.io.bytes_read), int(s.pages)
    finally:
        _c.pq_reader_close(h)


def test_page_skipping(files):
    """Ten rows in the middle row group: with an offset index, only a few of
    the row group's pages are read (and walked); without one, every page of
    the row group's chunks. The struct's two leaves are always read whole (a
    nested field's leaves must cover the same rows) and are checked
    separately."""
    md = pq.ParquetFile(files["plain"]).metadata
    flat = [0, 1, 2, 3, 4]  # id, name, score, flag, tags (a list: one leaf)
    struct = [5, 6]
    lo = ROWS_PER_GROUP + 500
    for cols in (flat, struct):
        whole = sum(md.row_group(1).column(c).total_compressed_size for c in cols)
        plain_bytes, plain_pages = page_stage_bytes(files["plain"], lo, 10, cols)
        assert plain_bytes >= whole, (plain_bytes, whole)
        for name in ("indexed_v1", "indexed_v2"):
            b, p = page_stage_bytes(files[name], lo, 10, cols)
            if cols is struct:
                imd = pq.ParquetFile(files[name]).metadata
                chunks = sum(imd.row_group(1).column(c).total_compressed_size for c in cols)
                assert b == chunks and p == plain_pages, (name, b, chunks, p, plain_pages)
                continue
            assert b < plain_bytes / 3, "%s: %d bytes read for 10 rows, %d without page index" % (
                name, b, plain_bytes)
            assert p < plain_pages / 5, "%s: %d pages walked, %d without page index" % (
                name, p, plain_pages)
            print("10 rows of row group 1, 5 columns: %d bytes / %d pages read with the offset "
                  "index (%s), %d / %d without" % (b, p, name, plain_bytes, plain_pages))


def test_sans_io(path):
    """A sans-IO reader with a row range: the footer, then the offset
    indexes, then the page ranges; the rows equal pyarrow's."""
    data = open(path, "rb").read()
    lo, m = ROWS_PER_GROUP - 40, 90
    # A tail read that holds just the footer, so the page index (written
    # before it) and the pages must be asked for.
    footer_len = int.from_bytes(data[-8:-4], "little")
    h = open_reader(path, lo, m, sans_io=True, footer_read_size=footer_len + 8)
    md = pq.ParquetFile(path).metadata
    err = _c.pq_error()
    try:
        rounds = [(stage, len(ranges), ranges) for stage, ranges in sans_io_advance(h, data)]
        # The footer; then, with the select stage done, the offset indexes of
        # the chunks rows [lo, lo + m) cut (the flat ones and the list, in
        # row groups 0 and 1); then the pages.
        assert [r[0] for r in rounds] == [_c.PQ_STAGE_INIT, _c.PQ_STAGE_SELECT,
                                          _c.PQ_STAGE_SELECT], [r[:2] for r in rounds]
        # pyarrow writes the page index after the last column chunk.
        data_end = max(md.row_group(g).column(c).data_page_offset +
                       md.row_group(g).column(c).total_compressed_size
                       for g in range(md.num_row_groups) for c in range(md.num_columns))
        assert rounds[1][1] == 10 and all(o >= data_end for o, _ in rounds[1][2]), rounds[1]
        assert all(o < data_end for o, _ in rounds[2][2]), rounds[2]
        batches = all_batches(h)
        assert [b.num_rows for b in batches] == [40, 50], [b.num_rows for b in batches]
        same(pa.Table.from_batches(batches), pq.read_table(path).slice(lo, m), "sans-IO range",
             float_bits=True, validate=True)
        # Without a schema (the caller has it from an earlier batch): the
        # same rows; without an array: refused.
        abuf = ctypes.create_string_buffer(_c.ARROW_ARRAY_SIZE)
        assert _c.pq_reader_export_rows(h, 0, lo, 40, ctypes.addressof(abuf), None, ctypes.byref(err)) == 0, \
            err.message
        again = pa.RecordBatch._import_from_c(ctypes.addressof(abuf), batches[0].schema)
        assert again.equals(batches[0]), "export without a schema differs"
        st = _c.pq_reader_next_batch(h, 0, None, None, ctypes.byref(err))
        assert st == _c.PQ_ERR_INVALID_ARGUMENT and b"array is NULL" in err.message, err.message
        # Rows outside the delivered range of a row group are refused.
        abuf = ctypes.create_string_buffer(_c.ARROW_ARRAY_SIZE)
        sbuf = ctypes.create_string_buffer(_c.ARROW_SCHEMA_SIZE)
        st = _c.pq_reader_export_rows(h, 0, 0, 10, ctypes.addressof(abuf), ctypes.addressof(sbuf),
                                      ctypes.byref(err))
        assert st == _c.PQ_ERR_INVALID_ARGUMENT and b"outside its range" in err.message, err.message
        st = _c.pq_reader_export_rows(h, 2, 0, 1, ctypes.addressof(abuf), ctypes.addressof(sbuf),
                                      ctypes.byref(err))
        assert st == _c.PQ_ERR_INVALID_ARGUMENT and b"not selected" in err.message, err.message
        st = _c.pq_reader_export_rows(h, 1, 10, 30, ctypes.addressof(abuf), ctypes.addressof(sbuf),
                                      ctypes.byref(err))
        assert st == _c.PQ_OK, err.message
        b = pa.RecordBatch._import_from_c(ctypes.addressof(abuf), ctypes.addressof(sbuf))
        same(pa.Table.from_batches([b]), pq.read_table(path).slice(ROWS_PER_GROUP + 10, 30),
             "export_rows", float_bits=True, validate=True)
    finally:
        _c.pq_reader_close(h)


def test_utf8(tmp):
    """A string column holding bytes that are not UTF-8: by default the
    bytes come through as pyarrow gives them; validate_utf8 names the
    column and the value."""
    raw = pa.array([b"ok", None, b"caf\xc3\xa9", b"\xff\xfe", b"x"], pa.binary())
    s = pa.Array.from_buffers(pa.string(), len(raw), raw.buffers(), null_count=raw.null_count)
    for dictionary in (False, True):
        path = os.path.join(tmp, "bad_utf8_%d.parquet" % dictionary)
        pq.write_table(pa.table({"s": s}), path, use_dictionary=dictionary, row_group_size=3)
        ours = pqstep.read_table(path)
        theirs = pq.read_table(path)
        assert ours.column(0).cast(pa.binary()).equals(theirs.column(0).cast(pa.binary()))
        try:
            pqstep.read_table(path, validate_utf8=True)
        except pqstep.Error as e:
            assert "row group 1, column 's': non-null value 0 is not valid UTF-8 (byte 0 of 2)" \
                in str(e), e
        else:
            raise AssertionError("validate_utf8 accepted \\xff\\xfe")
        # Row group 0 alone is valid.
        good = pqstep.read_table(path, row_limit=3, validate_utf8=True)
        assert good.column(0).to_pylist() == ["ok", None, "caf\u00e9"], good


def test_reselect(files):
    """Reader.read() goes back to the select stage each time: chunks an
    earlier read walked are reused (no bytes, no walk) when their kept pages
    hold the new rows, and read again when not."""
    path = files["indexed_v1"]
    full = pq.read_table(path)
    leaves = pq.ParquetFile(path).metadata.num_columns  # 7
    g = ROWS_PER_GROUP
    with pqstep.Reader(path) as r:
        def step(what, expect, reused, new_bytes, **kw):
            before = r.stage_stats("page headers")
            ours = r.read(**kw)
            after = r.stage_stats("page headers")
            same(ours, expect, what, float_bits=True, validate=True)
            got = (after["reused"] - before["reused"], after["bytes_read"] > before["bytes_read"])
            assert got == (reused, new_bytes), "%s: reused %d, read more %s; want %d, %s" % (
                (what,) + got + (reused, new_bytes))
        step("rows 1500+10", full.slice(g + 500, 10), 0, True, row_offset=g + 500, row_limit=10)
        step("rows 1502+5 (same pages)", full.slice(g + 502, 5), leaves, False,
             row_offset=g + 502, row_limit=5)
        # The whole row group: the struct's leaves were read whole, and so
        # was the boolean (one page holds all its rows); the other four only
        # in part.
        step("row group 1", full.slice(g, g), 3, True, row_groups=[1])
        step("rows 900+50 of row group 1", full.slice(g + 900, 50), leaves, False,
             row_groups=[1], row_offset=900, row_limit=50)
        step("two columns of row group 1", full.select(["id", "flag"]).slice(g, g), 2, False,
             row_groups=[1], columns=["id", "flag"])
        try:
            r.read(row_groups=[7])
        except pqstep.Error as e:
            assert "row group 7 is out of range" in str(e), e
        else:
            raise AssertionError("row group 7 accepted")
        assert r.stage == "footer", r.stage
        step("all rows after an error", full, 0, True)


def test_memory_limit():
    """data/large_string_map.brotli.parquet is 4 KB and declares about
    1 GiB per string: a 256 MiB limit stops the read before it allocates."""
    path = os.path.join(CORPUS, "data", "large_string_map.brotli.parquet")
    if not os.path.exists(path):
        print("skip memory limit: %s is not in the corpus" % path)
        return
    try:
        pqstep.read_table(path, memory_limit=256 << 20)
    except pqstep.Error as e:
        assert e.code == "memory limit exceeded" and "exceed the memory limit" in str(e), e
    else:
        raise AssertionError("read past a 256 MiB memory limit")


def test_decode_counters(files):
    """The decode stage counts the rows it made and the bytes of the Arrow
    buffers, which pyarrow measures on the same arrays
    (Table.get_total_buffer_size)."""
    for name, path in sorted(files.items()):
        with pqstep.Reader(path) as r:
            t = r.read()
            st = r.stage_stats("decode")
        assert st["rows"] == t.num_rows, (name, st["rows"], t.num_rows)
        assert st["bytes_out"] == t.get_total_buffer_size(), (name, st["bytes_out"],
                                                              t.get_total_buffer_size())


def corpus_files():
    data = os.path.join(CORPUS, "data")
    for name in sorted(os.listdir(data)):
        if name.endswith(".parquet"):
            yield os.path.join(data, name)


def main():
    passed = failed = skipped = 0
    tests = []
    tmp = tempfile.mkdtemp(prefix="pqstep-ranges-")
    files = make_files(tmp)
    for name, path in sorted(files.items()):
        tests.append(("ranges " + name, lambda p=path, n=name: check_ranges(
            p, n, ROWS_PER_GROUP, threads=(1, 3))))
        tests.append(("batches " + name, lambda p=path, n=name: check_batches(
            p, n, (1000, 999, 64, 7, 5000))))
        tests.append(("threads " + name, lambda p=path, n=name: check_threads(p, n)))
    tests.append(("page skipping", lambda: test_page_skipping(files)))
    tests.append(("sans-IO", lambda: test_sans_io(files["indexed_v1"])))
    tests.append(("utf8", lambda: test_utf8(tmp)))
    tests.append(("reselect", lambda: test_reselect(files)))
    tests.append(("memory limit", test_memory_limit))
    tests.append(("decode counters", lambda: test_decode_counters(files)))
    for path in corpus_files():
        rel = os.path.relpath(path, CORPUS)
        try:
            md = pq.ParquetFile(path).metadata
            pq.read_table(path)
        except Exception as e:  # pyarrow rejects it: test_read_flat checks our error
            print("skip %s: pyarrow cannot read it (%s)" % (rel, str(e).splitlines()[0][:70]))
            skipped += 1
            continue
        if int96_beyond_ns(path):
            print("skip %s: INT96 timestamps pyarrow wraps, pqstep refuses (test_int96.py)" % rel)
            skipped += 1
            continue
        rg_rows = md.row_group(0).num_rows if md.num_row_groups else 0
        tests.append(("ranges " + rel, lambda p=path, r=rel, g=rg_rows: check_ranges(p, r, g)))
        tests.append(("batches " + rel, lambda p=path, r=rel: check_batches(p, r, (3, 1000))))
        tests.append(("threads " + rel, lambda p=path, r=rel: check_threads(p, r)))
    for name, fn in tests:
        try:
            fn()
            passed += 1
        except Exception as e:
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, str(e)[:400]))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
