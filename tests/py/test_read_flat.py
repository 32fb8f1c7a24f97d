#!/usr/bin/env python3
"""test_read_flat.py — the decode stage against pyarrow, row group by row
group, for files whose columns are all flat.

For every corpus file under data/ that pyarrow reads and whose leaves are
all flat (top-level, no repetition): for every row group,
pqstep.Reader(path).read_row_group(i) (the decode stage, exported through
the Arrow C Data Interface and imported by pyarrow) must equal
pyarrow.parquet.ParquetFile(path).read_row_group(i). pyarrow's reading
follows the stored ARROW:schema where there is one (large_string,
dictionary, a "+00:00" time zone, ...); ours follows the Parquet schema
alone, so pyarrow's table is cast to our schema before comparing, and our
schema's types must be the ones pyarrow derives from the Parquet schema
alone (ParquetSchema.to_arrow_schema()). Floating-point columns are
compared bit for bit (NaN equals NaN).

Also: read_table of a flat file equals the concatenated row groups, and
equals them read by pread (mmap=False) instead of the map; a selection of
columns in another order comes back in that order; a file's kept mapping
serves the next read, and a file replaced under its path reads as its new
bytes.

Accepted exceptions: files holding INT96 timestamps outside the
nanosecond range, which pyarrow wraps and pqstep refuses (test_int96.py). Files skipped are listed with the reason
(pyarrow cannot read them, or a nested column: test_read_nested.py).

Prints "N passed, M failed, K skipped"; exit 1 on any failure, 77 when the
corpus, pyarrow or the library is missing.
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import CORPUS, SKIP, int96_beyond_ns, pa, pq, pqstep, same as _same  # noqa: E402,F401


def all_flat(pf):
    schema = pf.metadata.schema
    arrow = pf.schema_arrow
    if len(schema) != len(arrow):
        return False
    for k in range(len(schema)):
        if schema.column(k).max_repetition_level != 0:
            return False
        t = arrow.field(k).type
        if pa.types.is_nested(t):
            return False
    return True


def same(ours, theirs, what):
    _same(ours, theirs, what, float_bits=True)


def check_file(path):
    pf = pq.ParquetFile(path)
    # pyarrow's types from the Parquet schema alone (no stored ARROW:schema).
    expected_schema = pf.schema.to_arrow_schema()
    empty = pqstep.read_table(path, row_groups=[])
    assert empty.num_rows == 0 and empty.schema.equals(expected_schema), (empty.schema, expected_schema)
    r = pqstep.Reader(path)
    try:
        for g in range(pf.num_row_groups):
            ours = r.read_row_group(g)
            assert ours.schema.equals(expected_schema), "row group %d: schema %s, expected %s" % (
                g, ours.schema, expected_schema)
            theirs = pf.read_row_group(g).cast(ours.schema)
            same(ours, theirs, "row group %d" % g)
        # A selection in reverse order, with the row group read through read_table.
        n = pf.metadata.num_columns
        if n > 1 and pf.num_row_groups:
            cols = list(range(n))[::-1]
            ours = pqstep.read_table(path, columns=cols, row_groups=[0])
            names = [expected_schema.field(k).name for k in cols]
            assert ours.schema.names == names, (ours.schema.names, names)
            theirs = pf.read_row_group(0).cast(expected_schema).select(cols)
            same(ours, theirs, "reversed columns")
    finally:
        r.close()
    whole = pqstep.read_table(path)
    theirs = pq.read_table(path).cast(whole.schema)
    same(whole, theirs, "read_table")
    # By pread instead of the map: the same values.
    same(pqstep.read_table(path, mmap=False), theirs, "read_table(mmap=False)")


def check_kept_maps():
    """A path reader's mapping is kept for the next reader of the file
    (file_maps_idle counts it), and a file replaced under its path reads as
    its new bytes, not through the old mapping (pyarrow the oracle)."""
    import shutil
    import tempfile
    a = os.path.join(CORPUS, "data", "alltypes_plain.parquet")
    b = os.path.join(CORPUS, "data", "alltypes_tiny_pages.parquet")
    d = tempfile.mkdtemp(prefix="pqstep-maps")
    try:
        path = os.path.join(d, "f.parquet")
        pqstep.set_file_map_limit(0)
        pqstep.set_file_map_limit()
        shutil.copyfile(a, path)
        for k in range(2):
            t = pqstep.read_table(path)
            same(t, pq.read_table(a).cast(t.schema), "kept map, read %d" % k)
            assert pqstep.file_maps_idle() == 1, pqstep.file_maps_idle()
        shutil.copyfile(b, path + ".new")
        os.replace(path + ".new", path)
        t = pqstep.read_table(path)
        same(t, pq.read_table(b).cast(t.schema), "replaced file")
        pqstep.set_file_map_limit(0)
        assert pqstep.file_maps_idle() == 0, pqstep.file_maps_idle()
        t = pqstep.read_table(path)
        same(t, pq.read_table(b).cast(t.schema), "no map kept")
        assert pqstep.file_maps_idle() == 0, pqstep.file_maps_idle()
    finally:
        pqstep.set_file_map_limit()
        shutil.rmtree(d)


def main():
    files = sorted(glob.glob(os.path.join(CORPUS, "data", "**", "*.parquet"), recursive=True))
    passed = failed = skipped = 0
    for path in files:
        rel = os.path.relpath(path, CORPUS)
        try:
            pf = pq.ParquetFile(path)
            pf.read()
        except Exception as e:  # pyarrow rejects it: not this test's business
            print("skip %s: pyarrow cannot read it (%s)" % (rel, str(e).splitlines()[0][:80]))
            skipped += 1
            continue
        if not all_flat(pf):
            print("skip %s: nested columns (test_read_nested.py)" % rel)
            skipped += 1
            continue
        if int96_beyond_ns(path):
            print("skip %s: INT96 timestamps pyarrow wraps, pqstep refuses (test_int96.py)" % rel)
            skipped += 1
            continue
        try:
            check_file(path)
            passed += 1
            print("ok   %s" % rel)
        except Exception as e:
            failed += 1
            print("FAIL %s: %s: %s" % (rel, type(e).__name__, e))
    try:
        check_kept_maps()
        passed += 1
        print("ok   kept mappings")
    except Exception as e:
        failed += 1
        print("FAIL kept mappings: %s: %s" % (type(e).__name__, e))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
