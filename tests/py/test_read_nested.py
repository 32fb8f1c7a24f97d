#!/usr/bin/env python3
"""test_read_nested.py — the decode stage against pyarrow for files with
nested columns (structs, lists of all three shapes, maps).

For every corpus file under data/ that pyarrow reads and that has a nested
or repeated column: for every row group, pqstep.Reader(path).read_row_group(i)
must have the schema pyarrow derives from the Parquet schema alone
(ParquetSchema.to_arrow_schema()) and equal
pyarrow.parquet.ParquetFile(path).read_row_group(i) cast to that schema
(pyarrow's own reading may follow a stored ARROW:schema). Then
read_table(path) must equal pyarrow's whole table, and, when a file has
several top-level fields, a selection of the leaves of its last field alone
must equal that field of pyarrow's.

Accepted exceptions (ACCEPTED below, with reasons): none so far. Files that
pyarrow cannot read are skipped, and so are files whose schema pyarrow's
cast cannot map onto ours (printed with the reason).

Prints "N passed, M failed, K skipped"; exit 1 on any failure, 77 when the
corpus, pyarrow or the library is missing.
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import CORPUS, SKIP, pa, pq, pqstep, same as _same  # noqa: E402,F401

# Files that must pass (the list): a skip of one of them is a failure.
REQUIRED = {
    "data/nested_lists.snappy.parquet", "data/nested_maps.snappy.parquet",
    "data/nested_structs.rust.parquet", "data/nullable.impala.parquet",
    "data/repeated_no_annotation.parquet", "data/old_list_structure.parquet",
    "data/list_columns.parquet", "data/map_no_value.parquet", "data/null_list.parquet",
}

# relative path -> why pyarrow's reading is not comparable with ours.
ACCEPTED = {}


def is_nested(pf):
    schema = pf.metadata.schema
    if any(schema.column(k).max_repetition_level for k in range(len(schema))):
        return True
    return any(pa.types.is_nested(f.type) for f in pf.schema_arrow)


def same(ours, theirs, what):
    _same(ours, theirs, what, validate=True)


def check_file(path):
    pf = pq.ParquetFile(path)
    expected_schema = pf.schema.to_arrow_schema()
    with pqstep.Reader(path) as r:
        for g in range(pf.num_row_groups):
            ours = r.read_row_group(g)
            assert ours.schema.equals(expected_schema), "row group %d: schema %s, expected %s" % (
                g, ours.schema, expected_schema)
            theirs = pf.read_row_group(g).cast(ours.schema)
            same(ours, theirs, "row group %d" % g)
    whole = pqstep.read_table(path)
    same(whole, pq.read_table(path).cast(whole.schema), "read_table")
    # The leaves of the last top-level field alone.
    if len(expected_schema) > 1 and pf.num_row_groups:
        last = expected_schema.field(len(expected_schema) - 1).name
        leaves = [k for k in range(pf.metadata.num_columns)
                  if pf.metadata.schema.column(k).path.split(".")[0] == last]
        ours = pqstep.read_table(path, columns=leaves, row_groups=[0])
        assert ours.schema.names == [last], (ours.schema.names, last)
        theirs = pf.read_row_group(0).cast(expected_schema).select([last])
        same(ours, theirs, "field %s alone" % last)


def main():
    files = sorted(glob.glob(os.path.join(CORPUS, "data", "**", "*.parquet"), recursive=True))
    passed = failed = skipped = 0
    seen = set()
    for path in files:
        rel = os.path.relpath(path, CORPUS)
        try:
            pf = pq.ParquetFile(path)
            pf.read()
        except Exception as e:  # pyarrow rejects it: not this test's business
            print("skip %s: pyarrow cannot read it (%s)" % (rel, str(e).splitlines()[0][:80]))
            skipped += 1
            continue
        if not is_nested(pf):
            continue
        seen.add(rel)
        if rel in ACCEPTED:
            print("skip %s: accepted: %s" % (rel, ACCEPTED[rel]))
            skipped += 1
            continue
        try:
            check_file(path)
            passed += 1
            print("ok   %s" % rel)
        except Exception as e:
            failed += 1
            print("FAIL %s: %s: %s" % (rel, type(e).__name__, str(e)[:300]))
    for rel in sorted(REQUIRED - seen):
        failed += 1
        print("FAIL %s: required file missing or skipped" % rel)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
