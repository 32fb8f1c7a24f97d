#!/usr/bin/env python3
"""IS [NOT] NULL on structs, lists and maps (issue 10): a group's own
nullness, from its first leaf's definition levels, through every pruning
step and late materialization.

Files: DuckDB's (tests/fixtures/gen_duckdb.py: v1 and v2 pages, 3 row groups)
and one pyarrow writes here with small pages, a page index and 4 row groups.
Oracles: pyarrow's filter() with pc.is_null on the field (pc.struct_field for
a nested one, which is null where its parent is), and for DuckDB's files
DuckDB's own SQL over the same file. Row ranges, projections that leave the
filter's columns out, and prune=False give the same rows; what cannot be
tested per row (a repeated group, a field inside a list) fails binding with
an error that says why.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import SOURCE, pa, pq, pqstep, same  # noqa: E402

import duckdb  # noqa: E402
import pyarrow.compute as pc  # noqa: E402


def pyarrow_file(path):
    n = 6000
    ids = list(range(n))
    point = [None if i % 5 == 0 else {"x": None if i % 7 == 0 else i, "y": "p%d" % i} for i in ids]
    tags = [None if i % 4 == 0 else ([] if i % 6 == 0 else [i, i + 1]) for i in ids]
    m = [None if i % 3 == 0 else [("k%d" % (i % 10), i)] for i in ids]
    s = [None if i % 9 == 0 else {"inner": None if i % 4 == 0 else {"a": i}} for i in ids]
    t = pa.table({
        "id": pa.array(ids, pa.int32()),
        "point": pa.array(point, pa.struct([("x", pa.int32()), ("y", pa.string())])),
        "tags": pa.array(tags, pa.list_(pa.int32())),
        "m": pa.array(m, pa.map_(pa.string(), pa.int32())),
        "s": pa.array(s, pa.struct([("inner", pa.struct([("a", pa.int32())]))])),
        "rs": pa.array([{"k": i} for i in ids], pa.struct([pa.field("k", pa.int32())])),
    })
    schema = t.schema.set(t.schema.get_field_index("rs"), pa.field("rs", t.schema.field("rs").type,
                                                                   nullable=False))
    pq.write_table(t.cast(schema), path, row_group_size=1500, data_page_size=2048,
                   write_page_index=True, use_dictionary=False)


def field(t, path):
    """The column at a dotted struct path, null where any parent is."""
    parts = path.split(".")
    col = t.column(parts[0]).combine_chunks()
    for p in parts[1:]:
        col = pc.struct_field(col, p)
    return col


def truth(mask):
    return pc.fill_null(mask, False)


# filter text -> pyarrow mask over a table
CASES = {
    "point is null": lambda t: pc.is_null(field(t, "point")),
    "point is not null": lambda t: pc.is_valid(field(t, "point")),
    "tags is null": lambda t: pc.is_null(field(t, "tags")),
    "tags is not null": lambda t: pc.is_valid(field(t, "tags")),
    "m is null": lambda t: pc.is_null(field(t, "m")),
    "s is null": lambda t: pc.is_null(field(t, "s")),
    "s.inner is null": lambda t: pc.is_null(field(t, "s.inner")),
    "s.inner is not null": lambda t: pc.is_valid(field(t, "s.inner")),
    "s.inner is null and point.x > 100": lambda t: truth(pc.and_kleene(
        pc.is_null(field(t, "s.inner")), pc.greater(field(t, "point.x"), 100))),
    "point is null or point.x < 50": lambda t: truth(pc.or_kleene(
        pc.is_null(field(t, "point")), pc.less(field(t, "point.x"), 50))),
    "not tags is null and id >= 2500 and m is not null": lambda t: truth(pc.and_kleene(pc.and_kleene(
        pc.is_valid(field(t, "tags")), pc.greater_equal(t.column("id").combine_chunks(), 2500)),
        pc.is_valid(field(t, "m")))),
    "rs is null": lambda t: pc.is_null(field(t, "rs")),
    "rs is not null": lambda t: pc.is_valid(field(t, "rs")),
}

REFUSED = {
    "tags.list is null": "repeated group",
    "m.key_value is not null": "repeated group",
    "tags.list.element is null": "repeated",
    "m.key_value.value is null": "repeated",
    "point = 1": "only IS [NOT] NULL",
    "tags > 3": "only IS [NOT] NULL",
}


def check_file(path, use_duckdb):
    t = pq.read_table(path)
    con = duckdb.connect() if use_duckdb else None
    checked = 0
    for text, mask_of in CASES.items():
        mask = mask_of(t)
        want = t.filter(mask)
        assert want.num_rows not in (0, t.num_rows) or text.startswith("rs "), \
            "%s: a case that keeps all or nothing proves little (%d rows)" % (text, want.num_rows)
        got = pqstep.read_table(path, filter=text)
        same(got, want, "%s [%s]" % (os.path.basename(path), text))
        same(pqstep.read_table(path, filter=text, prune=False), want, "%s [%s] prune=False" % (path, text))
        # the row range counts rows before the filter
        lo, n = 1234, 2 * t.num_rows // 3
        part = t.slice(lo, n)
        same(pqstep.read_table(path, filter=text, row_offset=lo, row_limit=n), part.filter(mask_of(part)),
             "%s [%s] rows %d+%d" % (path, text, lo, n))
        # a projection without the filter's columns
        ids = pqstep.read_table(path, columns=["id"], filter=text)
        assert ids.column("id").to_pylist() == want.column("id").to_pylist(), "%s [%s] id only" % (path, text)
        if con is not None:
            sql = con.execute("SELECT id FROM read_parquet(?) WHERE %s ORDER BY id" % text, [path]).fetchall()
            assert [r[0] for r in sql] == want.column("id").to_pylist(), "%s [%s]: DuckDB disagrees" % (path, text)
        checked += 1
    for text, why in REFUSED.items():
        try:
            pqstep.read_table(path, filter=text)
        except pqstep.Error as e:
            assert why in str(e), "%s: %r does not say %r" % (text, str(e), why)
        else:
            raise AssertionError("%s: %s was accepted" % (path, text))
    return checked


def main():
    with tempfile.TemporaryDirectory(prefix="pqstep-nested-filter-") as tmp:
        subprocess.check_call([sys.executable, os.path.join(SOURCE, "tests", "fixtures", "gen_duckdb.py"), tmp])
        mine = os.path.join(tmp, "pyarrow_nested.parquet")
        pyarrow_file(mine)
        n = 0
        for name, use_duckdb in (("nested_v1.parquet", True), ("nested_v2.parquet", True),
                                 ("pyarrow_nested.parquet", True)):
            n += check_file(os.path.join(tmp, name), use_duckdb)
    print("%d filters on struct, list and map nullness equal pyarrow's and DuckDB's rows" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
