#!/usr/bin/env python3
"""Files whose writers got their statistics wrong (tests/fixtures/
old_writers/, from tests/fixtures/gen_old_writers.py): arrow2 (polars
0.18.15) and polars 0.19.19 wrote no column_orders, string maxima shorter
than the largest value, and (polars 0.19) no null counted in dictionary-
encoded string columns that hold nulls; polars 0.20.10, with column_orders
and right statistics, is the control. DuckDB 0.9.2 counted nulls over
(doubled, tripled: a column half null counted all null); 1.1.3, which
writes its version and counts right, is its control.

Oracle: pyarrow's values (read_table, which prunes nothing), each filter
applied to them by pyarrow.compute. For every file, every filter (on the
wrong maxima, on the miscounted nulls, IS NULL, ranges on every column)
keeps exactly pyarrow's rows through pqstep with pruning on, with each
pruning step alone, through a Reader's kept rows and through the polars
source; and the statistics judged are those stats_trust.h allows: the
old files prune no row group by min_value / max_value nor by their null
counts, while the control file still prunes by both (pruning must not be
turned off where it is sound).
"""
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import SOURCE, pa, pq, pqstep, same  # noqa: E402

import pyarrow.compute as pc  # noqa: E402

DIR = os.path.join(SOURCE, "tests", "fixtures", "old_writers")
OLD = ["polars-0.18.15.parquet", "polars-0.19.19.parquet"]
CONTROL = "polars-0.20.10.parquet"

LONG = "x" * 250  # beyond every wrong maximum the old writers stored
FILTERS = [
    ("long = '%s'" % LONG, lambda t: pc.equal(t["long"], LONG)),
    ("long >= '%s'" % LONG, lambda t: pc.greater_equal(t["long"], LONG)),
    ("long > '%s'" % ("x" * 105), lambda t: pc.greater(t["long"], "x" * 105)),
    ("s is null", lambda t: pc.is_null(t["s"])),
    ("s is null and i64 > 0", lambda t: pc.and_(pc.is_null(t["s"]), pc.greater(t["i64"], 0))),
    ("s = 'str99' or s is null", lambda t: pc.or_kleene(pc.equal(t["s"], "str99"), pc.is_null(t["s"]))),
    ("s >= 'str98'", lambda t: pc.greater_equal(t["s"], "str98")),
    ("u >= '19000'", lambda t: pc.greater_equal(t["u"], "19000")),
    ("i64 between 100 and 2000", lambda t: pc.and_(pc.greater_equal(t["i64"], 100), pc.less_equal(t["i64"], 2000))),
    ("f < 10 or f is null", lambda t: pc.or_kleene(pc.less(t["f"], 10), pc.is_null(t["f"]))),
    ("d >= '2013-01-01'", lambda t: pc.greater_equal(t["d"], pa.scalar(datetime.date(2013, 1, 1)))),
]


def pruned_by_statistics(path, text):
    with pqstep.Reader(path) as r:
        kept = r.kept_rows(filter=text, prune={"statistics"})
        return r.num_row_groups - len(kept)


def check_file(name):
    path = os.path.join(DIR, name)
    want_all = pq.read_table(path)
    same(pqstep.read_table(path), want_all, name)
    for text, keep in FILTERS:
        want = want_all.filter(keep(want_all))
        for prune in (True, {"statistics"}, {"dictionary"}, {"page_index"}, False):
            got = pqstep.read_table(path, filter=text, prune=prune)
            same(got, want, "%s where %s (prune=%s)" % (name, text, prune))
    return want_all


def check_polars(name, want_all):
    import polars as pl
    import pqstep.polars as pp
    path = os.path.join(DIR, name)
    exprs = [(pl.col("long") == LONG, pc.equal(want_all["long"], LONG)),
             (pl.col("s").is_null(), pc.is_null(want_all["s"])),
             (pl.col("long") >= LONG, pc.greater_equal(want_all["long"], LONG))]
    for expr, mask in exprs:
        got = pp.scan_parquet(path).filter(expr).select("i64").collect()
        assert got["i64"].to_list() == want_all.filter(mask)["i64"].to_pylist(), (name, expr)


DUCK_OLD, DUCK_CONTROL = "duckdb-0.9.2.parquet", "duckdb-1.1.3.parquet"
DUCK_FILTERS = [
    ("half > 0", lambda t: pc.greater(t["half"], 0)),
    ("half is not null", lambda t: pc.is_valid(t["half"])),
    ("third = 'v1'", lambda t: pc.equal(t["third"], "v1")),
    ("third is null or r < 10", lambda t: pc.or_kleene(pc.is_null(t["third"]), pc.less(t["r"], 10))),
    ("head_null > 0", lambda t: pc.greater(t["head_null"], 0)),
    ("head_null is null", lambda t: pc.is_null(t["head_null"])),
    ("head_null is not null and half is null", lambda t: pc.and_(pc.is_valid(t["head_null"]), pc.is_null(t["half"]))),
]


def check_duckdb():
    """DuckDB 0.9 counted nulls over (a column half null counted as all
    null): its counts above 0 are not believed, so no row group is pruned
    as all null; the rows equal pyarrow's. The control (1.1.3, which writes
    its version) still prunes the row groups that are all null."""
    for name in (DUCK_OLD, DUCK_CONTROL):
        path = os.path.join(DIR, name)
        want_all = pq.read_table(path)
        for text, keep in DUCK_FILTERS:
            want = want_all.filter(keep(want_all))
            for prune in (True, {"statistics"}, False):
                same(pqstep.read_table(path, filter=text, prune=prune), want, "%s where %s" % (name, text))
    old = os.path.join(DIR, DUCK_OLD)
    assert pqstep.read_metadata(old).created_by == "DuckDB"
    for text in ("half > 0", "head_null > 0", "half is not null"):
        assert pruned_by_statistics(old, text) == 0, text
    control = os.path.join(DIR, DUCK_CONTROL)
    f = pq.ParquetFile(control)
    all_null = sum(1 for g in range(f.num_row_groups)
                   if f.read_row_group(g, columns=["head_null"])["head_null"].null_count
                   == f.metadata.row_group(g).num_rows)
    assert all_null >= 1
    assert pruned_by_statistics(control, "head_null > 0") == all_null
    print("duckdb: 0.9's overcounted nulls prune nothing; 1.1.3 prunes its %d all-null row groups" % all_null)


def check_lying_null_count():
    """A footer that counts no null in a column whose DATA_PAGE_V2 pages
    hold nulls (crafted from a pyarrow file; the writer is not one known to
    miscount): the page headers outweigh the statistics, so a filter on
    another column reads that column's kept rows right instead of refusing
    its pages. With v1 pages, which count no nulls, such a page is refused
    as corrupt, by name."""
    import tempfile
    sys.path.insert(0, os.path.join(SOURCE, "tests", "fixtures"))
    from thrift_compact import I64, read_footer, write_with_footer
    n = 4000
    t = pa.table({"k": pa.array(range(n), pa.int64()),
                  "s": pa.array([None if i % 7 == 0 else "v%d" % (i % 50) for i in range(n)])})
    with tempfile.TemporaryDirectory() as tmp:
        for version in ("2.0", "1.0"):
            base = os.path.join(tmp, "base%s.parquet" % version)
            pq.write_table(t, base, row_group_size=1000, data_page_version=version)
            md, head = read_footer(base)
            for rg in md.get(4).values:  # row_groups
                stats = rg.get(1).values[1].get(3).get(12)  # columns[1].meta_data.statistics
                stats.set(3, I64, 0)  # null_count
            path = os.path.join(tmp, "lying%s.parquet" % version)
            write_with_footer(path, head, md)
            text = "k in (3, 10, 500, 1001, 1701, 2500, 3999)"
            want = t.filter(pc.is_in(t["k"], pa.array([3, 10, 500, 1001, 1701, 2500, 3999])))
            if version == "2.0":
                same(pqstep.read_table(path, filter=text), want, "v2 pages under a lying null count")
            else:
                try:
                    got = pqstep.read_table(path, filter=text)
                    same(got, want, "v1 pages under a lying null count")  # read right is fine too
                except pqstep.Error as e:
                    assert "count none (null_count 0)" in str(e) or "statistics count no null" in str(e), e
    print("a lying null count: v2 page headers outweigh it; v1 pages refused by name, never read wrong")


def main():
    if not os.path.isdir(DIR):
        print("SKIP: %s is missing" % DIR)
        sys.exit(77)
    for name in OLD + [CONTROL]:
        want_all = check_file(name)
        check_polars(name, want_all)
    print("filters: %d on %d files equal pyarrow's rows, every pruning step alone and none, and the polars source"
          % (len(FILTERS), len(OLD) + 1))
    # What the statistics are worth: nothing of the old files' string bounds
    # or null counts, all of the control's.
    for name in OLD:
        path = os.path.join(DIR, name)
        assert pqstep.read_metadata(path).created_by in ("Polars", "Arrow2 - Native Rust implementation of Arrow")
        for text in ("long > '%s'" % ("x" * 299), "s is null", "u > '99999'"):
            assert pruned_by_statistics(path, text) == 0, (name, text)
    control = os.path.join(DIR, CONTROL)
    assert pruned_by_statistics(control, "long > '%s'" % ("x" * 299)) == 6
    assert pruned_by_statistics(control, "u > '99999'") == 6
    assert pruned_by_statistics(control, "i64 < -100000") == 6
    no_null = pqstep.read_table(control, filter="s is null and i64 is null")  # rows 13 * 11 * k
    assert no_null.num_rows == sum(1 for i in range(6000) if i % 13 == 0 and i % 11 == 0)
    # what is set aside is said: FileMetadata, `pqstep meta` and `pqstep prune`
    notes = {name: pqstep.read_metadata(os.path.join(DIR, name)).statistics_note
             for name in OLD + [CONTROL, DUCK_OLD, DUCK_CONTROL]}
    assert notes[CONTROL] is None, notes
    # DuckDB 1.1 writes no column order either (its counts are believed)
    assert notes[DUCK_CONTROL] == "min_value/max_value and page-index bounds unused: the file names no column order"
    assert notes["polars-0.18.15.parquet"] == ("min_value/max_value and page-index bounds unused: the file names no "
                                               "column order"), notes
    assert "the file names no column order" in notes["polars-0.19.19.parquet"] and \
        "null counts unused: its writer (polars 0.19 to 0.20.9)" in notes["polars-0.19.19.parquet"], notes
    assert "null counts above 0 unused: its writer (DuckDB up to 1.0)" in notes[DUCK_OLD], notes
    cli = os.environ.get("PQSTEP_CLI")
    if cli:
        import json
        import subprocess
        old19 = os.path.join(DIR, "polars-0.19.19.parquet")
        out = subprocess.run([cli, "prune", "--where", "s is null", old19], capture_output=True, text=True, check=True)
        assert "statistics: " + notes["polars-0.19.19.parquet"] in out.stdout, out.stdout
        meta = json.loads(subprocess.run([cli, "meta", "--json", old19], capture_output=True, text=True,
                                         check=True).stdout)
        assert meta["statistics_note"] == notes["polars-0.19.19.parquet"], meta["statistics_note"]
        meta = json.loads(subprocess.run([cli, "meta", "--json", control], capture_output=True, text=True,
                                         check=True).stdout)
        assert meta["statistics_note"] is None
    else:
        print("cli: skipped, PQSTEP_CLI is not set")
    print("statistics: the old files' bounds and null counts prune nothing, and say so; the control's prune every "
          "row group")
    check_lying_null_count()
    check_duckdb()
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
