"""Predicate pushdown against pyarrow (issue 4).

Files from tests/fixtures/gen_filter.py (sorted keys with page index and
bloom filters, the same rows shuffled, and without indexes). For every
expression below, in the text syntax:
- the rows pqstep.read_table(f, filter=text) returns equal
  pyarrow.parquet.read_table(f).filter(the same predicate as a
  pyarrow.compute expression) (SQL semantics: null is not true);
- soundness: the same read with every pruning step disabled returns the
  same rows;
- effectiveness, where the answer is known: on the sorted file, the row
  groups statistics must prune (by key range).
Binding errors (unknown column, a literal the column cannot take) give a
pqstep.Error naming the column and position.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import (CORPUS, SOURCE, all_batches, int96_beyond_ns, open_sans_io, pa, pq, pqstep,  # noqa: E402
                         same, sans_io_advance)

import pyarrow.compute as pc  # noqa: E402
import datetime  # noqa: E402
import decimal  # noqa: E402

f = pc.field
D = decimal.Decimal

# (text, pyarrow expression, row groups the sorted file's statistics leave (None: not checked))
CASES = [
    ("key < 100", f("key") < 100, 1),
    ("key >= 3990", f("key") >= 3990, 1),
    ("key = 1234", f("key") == 1234, 1),
    ("key != 5", f("key") != 5, 8),
    ("key <= 499 or key > 3500", (f("key") <= 499) | (f("key") > 3500), 2),
    ("key in (1, 501, 2001, 9999)", f("key").isin([1, 501, 2001, 9999]), 3),
    ("not key < 3500", ~(f("key") < 3500), 1),
    ("key between 1000 and 1499", (f("key") >= 1000) & (f("key") <= 1499), 1),
    ("key not between 500 and 3499", ~((f("key") >= 500) & (f("key") <= 3499)), 2),
    ("name between 'customer#000001000' and 'customer#000001099'",
     (f("name") >= "customer#000001000") & (f("name") <= "customer#000001099"), 1),
    ("day between '1994-01-01' and '1994-12-31' and key < 2000",
     (f("day") >= datetime.date(1994, 1, 1)) & (f("day") <= datetime.date(1994, 12, 31)) & (f("key") < 2000), None),
    ("k32 < -1990", f("k32") < -1990, 1),
    ("k32 < 1.5", f("k32") < 1.5, None),
    ("k32 = 1.5", f("k32") == 1.5, 0),
    ("k32 != 1.5", f("k32") != 1.5, None),
    ("u16 > 65000", f("u16") > 65000, None),
    ("u16 < 70000", f("u16") < 70000, None),
    ("name = 'customer#000001234'", f("name") == "customer#000001234", 1),
    ("name >= 'customer#000003999'", f("name") >= "customer#000003999", 1),
    ("name < 'customer#0000005'", f("name") < "customer#0000005", 1),
    ("cat in ('AIR', 'SHIP')", f("cat").isin(["AIR", "SHIP"]), None),
    ("cat = 'BOAT'", f("cat") == "BOAT", 8),  # inside [AIR, TRUCK]: statistics cannot prune
    ("score > 0", f("score") > 0, None),
    ("score = 0", f("score") == 0, None),
    ("score != 10", f("score") != 10, None),
    ("score < -200", f("score") < -200, None),
    ("flag = true", f("flag") == True, None),  # noqa: E712
    ("day >= '1995-01-01'", f("day") >= datetime.date(1995, 1, 1), None),
    ("day = '1994-08-23'", f("day") == datetime.date(1994, 8, 23), 1),
    ("ts < '1995-05-01 00:00:00Z'", f("ts") < pa.scalar(datetime.datetime(1995, 5, 1, tzinfo=datetime.timezone.utc), pa.timestamp("us", tz="UTC")), None),
    # an offset from UTC names the same instant (ISO 8601, isoformat())
    ("ts < '1995-05-01T02:30:00+02:30'", f("ts") < pa.scalar(datetime.datetime(1995, 5, 1, tzinfo=datetime.timezone.utc), pa.timestamp("us", tz="UTC")), None),
    ("ts >= '1995-04-30 19:00:00-0500'", f("ts") >= pa.scalar(datetime.datetime(1995, 5, 1, tzinfo=datetime.timezone.utc), pa.timestamp("us", tz="UTC")), None),
    ("amount >= 900.5", f("amount") >= pa.scalar(D("900.5"), pa.decimal128(12, 2)), None),
    ("amount = '12.345'", f("key") < 0, 0),  # not representable at scale 2: no row
    ("big < -1000", f("big") < pa.scalar(D("-1000"), pa.decimal128(30, 4)), None),
    ("opt is null", f("opt").is_null(), None),
    ("opt is not null and opt < 10", f("opt").is_valid() & (f("opt") < 10), None),
    ("opt = 5 or key < 3", (f("opt") == 5) | (f("key") < 3), None),
    ("not (opt = 5)", ~(f("opt") == 5), None),
    ("long = '" + "x" * 80 + "001234'", f("long") == "x" * 80 + "001234", 1),
    ("long >= '" + "x" * 80 + "003990'", f("long") >= "x" * 80 + "003990", 1),
    ("long < '" + "x" * 64 + "'", f("long") < "x" * 64, 0),
    ("s.x = 7", f("s", "x") == 7, None),
    ("s.tag in ('t1', 't3') and key < 1000", f("s", "tag").isin(["t1", "t3"]) & (f("key") < 1000), 2),
]



def walked(r):
    """What the page-header stage and the filter stage read together (the
    filter's columns, then the other columns' pages that hold a kept row):
    their counters summed."""
    ph, fs = r.stage_stats("page headers"), r.stage_stats("filter")
    return {k: ph[k] + fs.get(k, 0) for k in ph}

def generate(out):
    subprocess.check_call([sys.executable, os.path.join(SOURCE, "tests", "fixtures", "gen_filter.py"), out],
                          stdout=subprocess.DEVNULL)
    return {n: os.path.join(out, n + ".parquet") for n in ("sorted", "unsorted", "plain")}


def expected(table, expr):
    # pyarrow's filter keeps rows where expr is true; null counts as false.
    return table.filter(expr)


def check_case(files, text, expr, kept_groups):
    for name, path in files.items():
        theirs = expected(pq.read_table(path), expr)
        ours = pqstep.read_table(path, filter=text)
        same(ours, theirs, "%s: %s" % (name, text), float_bits=True, validate=True)
        unpruned = pqstep.read_table(path, filter=text, prune=False)
        same(unpruned, theirs, "%s: %s (no pruning)" % (name, text), float_bits=True)
        if name == "sorted" and kept_groups is not None:
            with pqstep.Reader(path) as r:
                r.read(filter=text)
                st = r.stage_stats("select")
            pruned = st["pruned_statistics"]
            assert 8 - pruned == kept_groups, "%s: %d row groups kept by statistics, want %d" % (
                text, 8 - pruned, kept_groups)


# (text, row groups the unsorted file keeps after statistics and bloom
# filters): statistics cannot prune shuffled keys, the bloom filters can.
BLOOM_CASES = [
    ("key = 1234", 1),
    ("key in (5, 17, 3333)", None),
    ("name = 'customer#000002718'", 1),
    ("name = 'customer#000009999'", 0),   # inside no filter; beyond the max: statistics
    ("score = 0", None),                  # +0 and -0 are both looked up
    ("key = 1234 or name = 'customer#000000042'", 2),
    ("key = 1234 and key > 5000", 0),
]


def check_bloom(path):
    for text, kept in BLOOM_CASES:
        theirs_all = pq.read_table(path)
        with pqstep.Reader(path) as r:
            # the dictionaries would prune these too: leave them out here
            ours = r.read(filter=text, prune={"statistics", "bloom_filter", "page_index"})
            st = r.stage_stats("select")
        # the rows are right whatever was pruned
        expr = {"key = 1234": f("key") == 1234,
                "key in (5, 17, 3333)": f("key").isin([5, 17, 3333]),
                "name = 'customer#000002718'": f("name") == "customer#000002718",
                "name = 'customer#000009999'": f("name") == "customer#000009999",
                "score = 0": f("score") == 0,
                "key = 1234 or name = 'customer#000000042'":
                    (f("key") == 1234) | (f("name") == "customer#000000042"),
                "key = 1234 and key > 5000": (f("key") == 1234) & (f("key") > 5000)}[text]
        same(ours, expected(theirs_all, expr), "unsorted: %s" % text, float_bits=True)
        assert st["prune_warnings"] == 0, (text, st)
        got = 8 - st["pruned_statistics"] - st["pruned_bloom_filter"]
        # every row group holding a match is kept (soundness) ...
        holding = len({g for g in range(8)
                       if expected(pq.ParquetFile(path).read_row_group(g), expr).num_rows})
        assert got >= holding, (text, got, holding)
        if kept is not None:
            assert got == kept, "%s: %d row groups kept, want %d (%s)" % (text, got, kept, st)
        if text == "key = 1234":
            assert st["pruned_bloom_filter"] == 7 and st["bytes_read"] > 0, st


def check_page_index(files):
    """On the sorted file, a narrow key range keeps one row group and, by its
    page index, only the rows of the page holding the keys: the page-header
    stage walks the dictionary page and the data pages over those rows of
    each column, not every page of the row group. The rows are pyarrow's."""
    text, expr = "key >= 1234 and key < 1240", (f("key") >= 1234) & (f("key") < 1240)
    path = files["sorted"]
    md = pq.ParquetFile(path).metadata
    cols = ["key", "score", "ts", "day"]  # flat, plain-encoded: no dictionary page to read
    idx = [md.schema.names.index(c) for c in cols]
    whole = sum(md.row_group(2).column(c).total_compressed_size for c in idx)
    read = {}
    for prune_pages in (True, False):
        with pqstep.Reader(path) as r:
            ours = r.read(filter=text, columns=cols) if prune_pages else None
            if not prune_pages:  # the whole row group for comparison
                ours = r.read(filter="key >= 1000 and key < 1500", columns=cols)
            sel = r.stage_stats("select")
            read[prune_pages] = walked(r)["pages"]
        if prune_pages:
            same(ours, expected(pq.read_table(path, columns=cols), expr), text, float_bits=True)
            assert sel["pages_pruned"] > 0 and sel["pruned_page_index"] == 0, sel
            assert sel["pages_considered"] == sel["pages_pruned"] + 1, sel
    # pages walked: each column's dictionary page and the data pages over
    # the kept rows, against every page of the row group
    assert read[True] * 2 < read[False], read
    del whole
    # No integer between 1234 and 1235: the binder makes it key >= 1235 and
    # key <= 1234, which one page's bounds cannot rule out (it holds both
    # keys); the rows are then filtered to none.
    # keys are read and evaluated first (late materialization): no row
    # matches, so the other columns' chunks of row group 2 are not read.
    with pqstep.Reader(path) as r:
        t = r.read(filter="key > 1234 and key < 1235")
        sel = r.stage_stats("select")
        fs = r.stage_stats("filter")
    assert t.num_rows == 0 and sel["pruned_statistics"] == 7, sel
    assert fs["chunks_skipped"] == md.num_columns - 2 - 1, fs  # all but key and the struct's two leaves
    assert fs["groups"] == 1 and fs["groups_without_match"] == 1 and fs["rows"] == 0, fs
    assert fs["rows_in"] == fs["rows_filtered"] > 0 and fs["bytes_skipped"] > 0, fs


def check_late_materialization(files):
    """One matching row: the filter's column is read and evaluated first,
    then the other projected columns only for that row's pages (the offset
    index), so far fewer pages are walked than the row group holds."""
    path = files["unsorted"]
    text = "name = 'customer#000002718'"
    with pqstep.Reader(path) as r:
        ours = r.read(filter=text, columns=["key", "name", "score", "ts", "day"])
        pages = walked(r)
    theirs = pq.read_table(path, columns=["key", "name", "score", "ts", "day"])
    same(ours, expected(theirs, f("name") == "customer#000002718"), text, float_bits=True)
    with pqstep.Reader(path) as r:
        r.read(row_groups=[g for g in range(8)
                           if expected(pq.ParquetFile(path).read_row_group(g), f("name") == "customer#000002718").num_rows],
               columns=["key", "name", "score", "ts", "day"])
        whole = r.stage_stats("page headers")
    assert pages["pages"] * 2 < whole["pages"], (pages, whole)


def page_rows(path, col, g):
    """Per page of column `col` in row group g of pages.parquet (64 rows
    each, by construction): (first row, last row + 1, min, max)."""
    t = pq.ParquetFile(path).read_row_group(g, columns=[col])[col].to_numpy()
    return [(a, min(a + 64, len(t)), int(t[a:a + 64].min()), int(t[a:a + 64].max())) for a in range(0, len(t), 64)]


def runs_of(pages):
    """Adjacent (first, end) pages joined into (first, count) runs."""
    out = []
    for a, b in pages:
        if out and out[-1][0] + out[-1][1] == a:
            out[-1] = (out[-1][0], b - out[-1][0])
        else:
            out.append((a, b - a))
    return out


def check_page_runs(path):
    """pages.parquet: every page holds 64 rows, so which pages hold a row,
    and each page's bounds, are known by hand. The page index keeps only
    the runs of rows whose pages may match (not the span from the first to
    the last); the filter's columns are read only over those runs; late
    materialization reads, of every other column, only the pages that hold
    a matching row; prune-only mode delivers whole row groups."""
    import ctypes
    from pqstep import _lib as _c
    t = pq.read_table(path)
    # Sorted keys in three stretches of row group 0 and one of row group 1.
    text = "key = 5 or (key >= 300 and key < 330) or (key >= 1020 and key < 1030)"
    expr = (f("key") == 5) | ((f("key") >= 300) & (f("key") < 330)) | ((f("key") >= 1020) & (f("key") < 1030))
    with pqstep.Reader(path) as r:  # (a reader's counters add up over its reads)
        ours = r.read(filter=text, columns=["key", "val"])
        sel, ph = r.stage_stats("select"), walked(r)
        fs, own = r.stage_stats("filter"), r.stage_stats("page headers")
        runs = r.kept_rows(filter=text)
    # keys 300..329 lie on pages [256, 320) and [320, 384)
    assert runs == {0: [(0, 64), (256, 128), (960, 64)], 1: [(0, 64)]}, runs
    same(ours, expected(t.select(["key", "val"]), expr), text)
    assert sel["pages_considered"] == 32 and sel["pages_pruned"] == 27, sel
    assert ph["pages"] == 2 * 5, ph  # key and val: 5 pages each (the spans would hold 16 + 1)
    assert ph["pages_skipped"] == 2 * (32 - 5), ph
    # the page-header stage walked key (the filter's column); the filter
    # stage val, only its pages with a kept row
    assert own["pages"] == 5 and fs["pages"] == 5, (own, fs)
    assert fs["rows"] == 1 + 30 + 10 and fs["rows_in"] == 64 + 128 + 64 + 64, fs

    # Shuffled values: the page index keeps the pages whose [min, max] holds
    # a literal (computed here from the data); late materialization then
    # reads key and val only on the pages of the three matching rows.
    rnd = t["rnd"].to_numpy()
    rows = [10, 900, 1024 + 500]
    lits = [int(rnd[i]) for i in rows]
    text = "rnd in (%d, %d, %d)" % tuple(lits)
    want_runs, rnd_pages = {}, 0
    for g in range(2):
        hit = [(a, b) for a, b, lo, hi in page_rows(path, "rnd", g) if any(lo <= v <= hi for v in lits)]
        rnd_pages += len(hit)
        if hit:
            want_runs[g] = runs_of(hit)
    with pqstep.Reader(path) as r:
        ours = r.read(filter=text, columns=["key", "val"])
        ph = walked(r)
        runs = r.kept_rows(filter=text)
    assert runs == want_runs, (runs, want_runs)
    same(ours, expected(t.select(["key", "val", "rnd"]), f("rnd").isin(lits)).select(["key", "val"]), text)
    matching_pages = len({(i // 1024, (i % 1024) // 64) for i in rows})
    assert ph["pages"] == rnd_pages + 2 * matching_pages, (ph["pages"], rnd_pages, matching_pages)
    if rnd_pages == 32:  # rnd read whole; key and val read in part
        assert ph["pages_skipped"] == 2 * (32 - matching_pages), ph
    print("  page runs: %d rnd pages kept of 32; key/val read on %d pages each" % (rnd_pages, matching_pages))

    # Prune only: whole surviving row groups, without the row filter (the
    # page index decides which survive; its runs do not narrow them).
    text = "key = 5 or (key >= 300 and key < 330)"
    flt = _c.pq_expr_parse(text.encode(), ctypes.byref(_c.pq_error()))
    opts = _c.pq_reader_options()
    _c.pq_reader_options_init(ctypes.byref(opts))
    opts.filter = flt
    opts.prune_only = True
    err = _c.pq_error()
    h = _c.pq_reader_open_path(path.encode(), ctypes.byref(opts), ctypes.byref(err))
    _c.pq_expr_free(flt)
    try:
        assert _c.pq_reader_advance_to(h, _c.PQ_STAGE_DECODE, ctypes.byref(err)) == _c.PQ_OK, err.message
        abuf = ctypes.create_string_buffer(_c.ARROW_ARRAY_SIZE)
        sbuf = ctypes.create_string_buffer(_c.ARROW_SCHEMA_SIZE)
        assert _c.pq_reader_export_row_group(h, 0, ctypes.addressof(abuf), ctypes.addressof(sbuf),
                                             ctypes.byref(err)) == 0, err.message
        got = pa.Table.from_batches([pa.RecordBatch._import_from_c(ctypes.addressof(abuf), ctypes.addressof(sbuf))])
    finally:
        _c.pq_reader_close(h)
    want = t.slice(0, 1024)
    same(got, want, "prune only: " + text)


def check_dictionary(files):
    """A string absent from every row group but inside their min/max: the
    statistics keep them all, the dictionary pages (every data page of
    `cat` is dictionary-encoded) prune them all; present values keep them."""
    for name in ("sorted", "unsorted", "plain"):
        path = files[name]
        for text, kept in (("cat = 'BOAT'", 0), ("cat in ('BUS', 'CAR')", 0), ("cat in ('BOAT', 'AIR')", 8),
                           ("cat = 'BOAT' or key < 0", 0), ("cat != 'BOAT'", 8)):
            with pqstep.Reader(path) as r:
                t = r.read(filter=text)
                st = r.stage_stats("select")
            assert st["pruned_statistics"] == 0 or text.endswith("key < 0"), (name, text, st)
            assert 8 - st["pruned_statistics"] - st["pruned_dictionary"] - st["pruned_bloom_filter"] == kept, \
                (name, text, st)
            assert st["prune_warnings"] == 0, st
            assert (t.num_rows == 0) == (kept == 0), (name, text, t.num_rows)


def check_sans_io(files):
    """A sans-IO reader with a filter: after the footer, the select stage asks
    for the dictionaries, bloom filters and page indexes it will use, then
    the page-header stage for the pages; every step prunes as with a file
    source, with no warning, and the rows equal pyarrow's."""
    import ctypes
    from pqstep import _lib as _c
    for name, text, expr in (("unsorted", "name = 'customer#000002718'", f("name") == "customer#000002718"),
                             ("sorted", "key >= 1234 and key < 1240", (f("key") >= 1234) & (f("key") < 1240)),
                             ("sorted", "cat = 'BOAT'", f("cat") == "BOAT")):
        path = files[name]
        data = open(path, "rb").read()
        h = open_sans_io(data, text)
        try:
            stages = [stage for stage, _ in sans_io_advance(h, data)]
            assert _c.PQ_STAGE_FOOTER in stages, (text, stages)  # the select stage's indexes
            sel = _c.pq_select_stats()
            _c.pq_reader_select_stats(h, ctypes.byref(sel), ctypes.sizeof(sel))
            assert sel.prune_warnings == 0, text
            assert sel.pruned_statistics + sel.pruned_dictionary + sel.pruned_bloom_filter >= 7, text
            batches = all_batches(h)
            theirs = expected(pq.read_table(path), expr)
            ours = pa.Table.from_batches(batches) if batches else theirs.schema.empty_table()
            assert ours.num_rows == theirs.num_rows, (text, ours.num_rows, theirs.num_rows)
            if ours.num_rows:
                same(ours, theirs, "sans-IO " + text, float_bits=True)
        finally:
            _c.pq_reader_close(h)


def check_bad_indexes(files, tmp):
    """Broken bloom filters, page indexes and dictionary pages: the step is
    skipped for that chunk and counted (prune_warnings), never trusted; the
    rows stay right, or the read fails with a clean error that names the
    chunk where the data itself is broken."""
    import shutil
    path = files["unsorted"]
    md = pq.ParquetFile(path).metadata
    bad = os.path.join(tmp, "bad_indexes.parquet")
    shutil.copy(path, bad)
    data = bytearray(open(bad, "rb").read())
    key = md.schema.names.index("key")
    for g in range(md.num_row_groups):
        off = md.row_group(g).column(key).to_dict()["bloom_filter_offset"]
        data[off:off + 6] = b"\xff" * 6  # the BloomFilterHeader: garbage
    open(bad, "wb").write(bytes(data))
    text, expr = "key = 1234", f("key") == 1234
    with pqstep.Reader(bad) as r:
        ours = r.read(filter=text, prune={"statistics", "bloom_filter", "page_index"})
        st = r.stage_stats("select")
    same(ours, expected(pq.read_table(path), expr), "broken bloom filters", float_bits=True)
    assert st["prune_warnings"] == md.num_row_groups and st["pruned_bloom_filter"] == 0, st

    # Page indexes: the key column's column index, then its offset index,
    # overwritten in every row group of the sorted file. Statistics keep one
    # row group; its page-index step is skipped with one warning.
    path = files["sorted"]
    meta = json.loads(subprocess.check_output([os.environ["PQSTEP_CLI"], "meta", "--json", path]))
    text, expr = "key >= 1234 and key < 1240", (f("key") >= 1234) & (f("key") < 1240)
    for index in ("column_index", "offset_index"):
        data = bytearray(open(path, "rb").read())
        for rg in meta["row_groups"]:
            c = rg["columns"][key]
            off, n = c[index + "_offset"], c[index + "_length"]
            data[off:off + n] = b"\xff" * n
        bad = os.path.join(tmp, "bad_%s.parquet" % index)
        open(bad, "wb").write(bytes(data))
        with pqstep.Reader(bad) as r:
            ours = r.read(filter=text, prune={"statistics", "page_index"})
            st = r.stage_stats("select")
        same(ours, expected(pq.read_table(path), expr), "broken " + index, float_bits=True)
        assert st["prune_warnings"] == 1 and st["pages_pruned"] == 0 and st["pruned_statistics"] == 7, (index, st)
    # Dictionary pages: the `cat` chunks' dictionary page headers overwritten.
    # The dictionary step is skipped (a warning per row group), then the
    # page-header stage, which walks every page, fails with a clean error.
    data = bytearray(open(path, "rb").read())
    cat = md.schema.names.index("cat")
    for rg in meta["row_groups"]:
        off = rg["columns"][cat]["dictionary_page_offset"]
        data[off:off + 4] = b"\xff" * 4
    bad = os.path.join(tmp, "bad_dictionary.parquet")
    open(bad, "wb").write(bytes(data))
    with pqstep.Reader(bad) as r:
        try:
            r.read(filter="cat = 'BOAT'", prune={"dictionary"})
        except pqstep.Error as e:
            assert "RowGroup[0].columns[%d]" % cat in str(e), str(e)
        else:
            raise AssertionError("a broken dictionary page was read without an error")
        st = r.stage_stats("select")
    assert st["prune_warnings"] == md.num_row_groups and st["pruned_dictionary"] == 0, st


def corpus_sweep():
    """Every flat column of every corpus file pyarrow reads, with filters
    whose rows pyarrow computes: IS [NOT] NULL, and = < >= != against a
    value from the column (integers, floats, strings). Real writers' page
    indexes and statistics, pruned or not, must never lose a row
    (data/datapage_v1-*-checksum.parquet marks the pages of required columns
    null: not believed). FLOAT16 comparisons are refused, as documented."""
    import glob
    import math
    checks = 0
    for path in sorted(glob.glob(os.path.join(CORPUS, "data", "*.parquet"))):
        try:
            t = pq.read_table(path)
            md = pq.ParquetFile(path).metadata
        except Exception:  # noqa: BLE001 (pyarrow cannot read it: test_read_flat's business)
            continue
        if int96_beyond_ns(path):  # pyarrow wraps its dates, pqstep refuses them (test_int96 filters it)
            continue
        for i in range(md.num_columns):
            col = md.schema.column(i)
            if col.max_repetition_level > 0:
                continue
            parts = col.path.split(".")
            arr = t.column(parts[0])
            for p in parts[1:]:
                arr = pc.struct_field(arr, p)
            fld = f(*parts)
            cases = [('"%s" is not null' % col.path, fld.is_valid()),
                     ('"%s" is null' % col.path, fld.is_null())]
            values = pc.drop_null(arr)
            ty = values.type
            if len(values) and (pa.types.is_integer(ty) or pa.types.is_floating(ty) or pa.types.is_string(ty)) \
                    and not pa.types.is_float16(ty):
                v = values[len(values) // 2].as_py()
                if not (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
                    lit = "'" + v.replace("'", "''") + "'" if isinstance(v, str) else repr(v)
                    sv = v if isinstance(v, str) else pa.scalar(v, ty)
                    cases += [('"%s" = %s' % (col.path, lit), fld == sv), ('"%s" < %s' % (col.path, lit), fld < sv),
                              ('"%s" >= %s' % (col.path, lit), fld >= sv), ('"%s" != %s' % (col.path, lit), fld != sv)]
            for text, expr in cases:
                ours = pqstep.read_table(path, filter=text)
                theirs = t.filter(expr)
                assert ours.num_rows == theirs.num_rows, "%s: %s: %d rows, pyarrow %d" % (
                    os.path.basename(path), text, ours.num_rows, theirs.num_rows)
                checks += 1
    assert checks > 1000, checks
    print("corpus sweep: %d filtered reads equal pyarrow's row counts" % checks)


def check_errors(path):
    for text, needle in (("nokey < 3", "no column 'nokey'"),
                         ("key < 'abc'", "'abc'"),
                         ("day = '1995-13-01'", "not a date"),
                         ("key <", "at 5"),
                         ("(key < 3", "expected ')'")):
        try:
            pqstep.read_table(path, filter=text)
        except pqstep.Error as e:
            assert needle in str(e), "%s: %s" % (text, e)
        else:
            raise AssertionError("%s: accepted" % text)


def main():
    passed = failed = 0
    tmp = tempfile.mkdtemp(prefix="pqstep-filter-")
    files = generate(tmp)
    tests = [(t, (lambda t=t, e=e, k=k: check_case(files, t, e, k))) for t, e, k in CASES if e is not None]
    tests.append(("binding and syntax errors", lambda: check_errors(files["sorted"])))
    tests.append(("bloom filters (unsorted file)", lambda: check_bloom(files["unsorted"])))
    tests.append(("page index (sorted file)", lambda: check_page_index(files)))
    tests.append(("late materialization", lambda: check_late_materialization(files)))
    tests.append(("page runs (pages file)", lambda: check_page_runs(os.path.join(tmp, "pages.parquet"))))
    tests.append(("dictionary pages", lambda: check_dictionary(files)))
    tests.append(("sans-IO with a filter", lambda: check_sans_io(files)))
    tests.append(("broken bloom filters, page indexes, dictionaries", lambda: check_bad_indexes(files, tmp)))
    tests.append(("corpus sweep", corpus_sweep))
    for name, fn in tests:
        try:
            fn()
            passed += 1
            print("ok   %s" % name)
        except Exception as e:  # noqa: BLE001
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, str(e)[:400]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
