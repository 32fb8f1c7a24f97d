#!/usr/bin/env python3
"""follow_arrow_schema (pq_reader_options.follow_arrow_schema, issue 11): the
reader follows the Arrow schema the writer stored in the footer (the
ARROW:schema key) where it names large strings, string views,
dictionaries, a UTC timestamp's time zone or a duration.

The oracle is pyarrow itself: it follows its own stored schema when it
reads, so for every top-level column of such types pqstep's type must be
pyarrow's and the values equal, for files pyarrow wrote with and without
dictionary encoding, with nulls, over several row groups, whole, by row
group, in batches, empty, and filtered. Leaves inside structs, lists and
maps follow it too (large strings, time zones, durations): a nested table's
types are pyarrow's, large_list levels included, whole, in part, in
batches and filtered (a fixed_size_list keeps the Parquet mapping, list);
dictionary columns take the index type and order the writer named; the
file's key-value metadata and each field's custom metadata come as
pyarrow gives them (a pandas index comes back).
Without
the option the default
mapping holds; a stored key that cannot be decoded fails the read with a
message naming ARROW:schema only when the option is on; corpus files that
carry the key read with pyarrow's types.
"""
import glob
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import CORPUS, pa, pq, pqstep  # noqa: E402

import pyarrow.compute as pc  # noqa: E402

N = 5000


def table():
    words = ["AIR", "RAIL", "SHIP", None, "TRUCK", "MAIL", "a much longer string than twelve bytes"]
    s = [words[i % len(words)] for i in range(N)]
    return pa.table({
        "large": pa.array(s, pa.large_string()),
        "view": pa.array(s, pa.string_view()),
        "dict": pa.array(s, pa.string()).dictionary_encode(),
        "lbin": pa.array([None if x is None else x.encode() for x in s], pa.large_binary()),
        "plain": pa.array(s, pa.string()),
        "ts_ny": pa.array([None if i % 11 == 0 else 1_700_000_000_000_000 + i * 1_000_003 for i in range(N)],
                          pa.timestamp("us", tz="America/New_York")),
        "ts_utc": pa.array([1_700_000_000_000 + i for i in range(N)], pa.timestamp("ms", tz="UTC")),
        "ts_naive": pa.array([1_700_000_000_000_000_000 + i for i in range(N)], pa.timestamp("ns")),
        "dur_s": pa.array([None if i % 7 == 0 else i * 13 - 9000 for i in range(N)], pa.duration("s")),
        "dur_ns": pa.array([i * 1_000_001 for i in range(N)], pa.duration("ns")),
        "i": pa.array(range(N), pa.int64()),
        "st": pa.array([{"x": w, "y": i} for i, w in enumerate(s)],
                       pa.struct([("x", pa.large_string()), ("y", pa.int32())])),
    })


def same(got, want, what):
    """Types equal, values equal (dictionaries compared by their values)."""
    assert got.num_rows == want.num_rows, "%s: %d rows, want %d" % (what, got.num_rows, want.num_rows)
    for name in want.column_names:
        g, w = got.column(name), want.column(name)
        assert g.type == w.type, "%s: %s is %s, want %s" % (what, name, g.type, w.type)
        if pa.types.is_dictionary(w.type):  # dictionaries may differ; the values may not
            g, w = g.cast(w.type.value_type), w.cast(w.type.value_type)
        assert g.equals(w), "%s: column %s differs" % (what, name)


def filtered(t, expr):
    """t.filter(expr); pyarrow filters no string_view column: those go
    through string and back."""
    views = [n for n in t.column_names if t.schema.field(n).type == pa.string_view()]
    s = t
    for n in views:
        s = s.set_column(s.column_names.index(n), n, s.column(n).cast(pa.string()))
    s = s.filter(expr)
    for n in views:
        s = s.set_column(s.column_names.index(n), n, s.column(n).cast(pa.string_view()))
    return s


def nested(tmp):
    """Leaves inside structs, lists and maps take the stored types."""
    n = 3000
    st = pa.struct([("a", pa.int64()), ("s", pa.large_string()), ("ts", pa.timestamp("ms", tz="Asia/Tokyo")),
                    ("d", pa.duration("us")), ("b", pa.large_binary())])
    t = pa.table({
        "id": pa.array(range(n)),
        "st": pa.array([None if i % 13 == 0 else
                        {"a": i, "s": None if i % 5 == 0 else "s%d" % i, "ts": i * 1000, "d": i - 50,
                         "b": b"x" * (i % 3)} for i in range(n)], st),
        "ls": pa.array([["a%d" % i] * (i % 3) if i % 7 else None for i in range(n)], pa.list_(pa.large_string())),
        "m": pa.array([[("k%d" % i, "v%d" % i)] if i % 4 else [] for i in range(n)],
                      pa.map_(pa.large_string(), pa.large_string())),
        "lst": pa.array([[{"x": "q%d" % i, "y": i}, None] for i in range(n)],
                        pa.list_(pa.struct([("x", pa.large_string()), ("y", pa.int32())]))),
        "ll": pa.array([["b%d" % i] * (i % 4) if i % 6 else None for i in range(n)],
                       pa.large_list(pa.large_string())),
        "lll": pa.array([[{"x": [i] * (i % 3), "t": "t%d" % i}] * (i % 2) for i in range(n)],
                        pa.large_list(pa.struct([("x", pa.large_list(pa.int32())), ("t", pa.string())]))),
        "deep": pa.array([{"in": {"z": "z%d" % i, "ts": i}} for i in range(n)],
                         pa.struct([("in", pa.struct([("z", pa.large_string()),
                                                      ("ts", pa.timestamp("us", tz="Europe/Paris"))]))])),
    })
    path = os.path.join(tmp, "nested.parquet")
    pq.write_table(t, path, row_group_size=1000, data_page_size=2048)
    want = pq.read_table(path)
    assert want.schema == t.schema, want.schema  # pyarrow reads back what it wrote
    got = pqstep.read_table(path)
    got.validate(full=True)
    same(got, want, path)
    # read in part: each selected leaf has its stored type, in its place
    part = pqstep.read_table(path, columns=["st.ts", "st.b", "deep.in.ts", "id"])
    part.validate(full=True)
    assert part.schema.field("st").type == pa.struct([("ts", st.field("ts").type), ("b", pa.large_binary())]), \
        part.schema
    assert part.column("st").to_pylist() == [None if x is None else {"ts": x["ts"], "b": x["b"]}
                                             for x in want.column("st").to_pylist()]
    assert part.schema.field("deep").type.field("in").type.field("ts").type == \
        pa.timestamp("us", tz="Europe/Paris"), part.schema
    lists = pqstep.read_table(path, columns=["lll.list.element.x.list.element", "id"])
    lists.validate(full=True)
    assert lists.schema.field("lll").type == pa.large_list(pa.struct([("x", pa.large_list(pa.int32()))])), \
        lists.schema
    assert lists.column("lll").to_pylist() == [None if v is None else [None if e is None else {"x": e["x"]}
                                                                       for e in v]
                                               for v in want.column("lll").to_pylist()]
    only = pqstep.read_table(path, columns=["st.d"])
    assert only.schema.field("st").type == pa.struct([("d", pa.duration("us"))]), only.schema
    with pqstep.Reader(path) as r:
        batches = list(r.iter_batches(batch_size=700))
        assert all(b.schema == want.schema for b in batches), batches[0].schema
        same(pa.Table.from_batches(batches), want, path + " (batches)")
        assert r.read(row_limit=0).schema == want.schema
    f = pqstep.read_table(path, filter="st.s >= 's29' and id < 2500")
    f.validate(full=True)
    keep = [i for i, x in enumerate(want.column("st").to_pylist())
            if x is not None and x["s"] is not None and x["s"] >= "s29" and i < 2500]
    assert 0 < len(keep) < n
    same(f, want.take(keep), path + " (filtered)")
    plain = pqstep.read_table(path, follow_arrow_schema=False)
    assert plain.schema.field("st").type.field("s").type == pa.string(), plain.schema
    assert plain.schema.field("ls").type == pa.list_(pa.field("element", pa.string())), plain.schema
    assert plain.schema.field("ll").type == pa.list_(pa.field("element", pa.string())), plain.schema
    assert plain.column("ll").to_pylist() == want.column("ll").to_pylist()
    return 1


def dictionary_indices(tmp):
    """Dictionary columns take the index type and order the writer named
    (polars' Categorical is uint32, its Enum an ordered uint8), from
    dictionary pages and from plain ones (a fallback: its distinct values
    become the dictionary, so that they fit the narrow type)."""
    words = ["AIR", "RAIL", "SHIP", None, "TRUCK", "a string longer than twelve bytes"]
    kinds = [("i8", pa.int8(), False), ("u8", pa.uint8(), True), ("i16", pa.int16(), False),
             ("u16", pa.uint16(), True), ("u32", pa.uint32(), False), ("i64", pa.int64(), True),
             ("u64", pa.uint64(), False)]
    t = pa.table({name: pa.array([words[(i * 7 + k) % len(words)] for i in range(N)]).dictionary_encode()
                  .cast(pa.dictionary(it, pa.string(), ordered)) for k, (name, it, ordered) in enumerate(kinds)})
    n = 0
    for use_dictionary in (True, False):
        path = os.path.join(tmp, "dict_indices_%s.parquet" % use_dictionary)
        pq.write_table(t, path, row_group_size=1500, use_dictionary=use_dictionary)
        want = pq.read_table(path)
        assert want.schema == t.schema, want.schema  # pyarrow follows it: so must we
        got = pqstep.read_table(path)
        got.validate(full=True)
        same(got, want, path)
        with pqstep.Reader(path) as r:
            batches = list(r.iter_batches(batch_size=1000))
            assert all(b.schema == want.schema for b in batches), batches[0].schema
            same(pa.Table.from_batches(batches), want, path + " (batches)")
        f = pqstep.read_table(path, filter="u8 in ('AIR', 'TRUCK') or i64 is null")
        f.validate(full=True)
        plain = want.cast(pa.schema([(c, pa.string()) for c in want.column_names]))
        keep = [i for i, (a, b) in enumerate(zip(plain.column("u8").to_pylist(), plain.column("i64").to_pylist()))
                if a in ("AIR", "TRUCK") or b is None]
        assert 0 < len(keep) < N
        same(f, want.take(keep), path + " (filtered)")
        assert f.schema == want.schema, f.schema
        assert pqstep.read_table(path, follow_arrow_schema=False).schema.field("u8").type == pa.string()
        n += 1
    return n


def metadata(tmp):
    """The file's key-value metadata is the schema's (a pandas index comes
    back) and each field's custom metadata in the writer's schema the
    field's, as pyarrow gives them."""
    import pandas as pd
    df = pd.DataFrame({"a": [1, 2, 3], "s": ["x", None, "z"]}, index=pd.Index(["i", "j", "k"], name="idx"))
    path = os.path.join(tmp, "pandas.parquet")
    pq.write_table(pa.Table.from_pandas(df), path)
    want = pq.read_table(path)
    got = pqstep.read_table(path)
    assert got.schema.metadata == want.schema.metadata and b"pandas" in got.schema.metadata, got.schema.metadata
    assert got.to_pandas().equals(df) and got.to_pandas().index.name == "idx"
    schema = pa.schema([pa.field("k", pa.int64(), metadata={"unit": "m", "PARQUET:field_id": "7"}),
                        pa.field("d", pa.dictionary(pa.uint8(), pa.string(), True), metadata={"_PL_ENUM_VALUES2": "1;a1;b"}),
                        pa.field("st", pa.struct([("x", pa.large_string())]), metadata={"note": ""})],
                       metadata={"origin": "test", "empty": ""})
    t = pa.table({"k": [1, 2, 3], "d": pa.array(["a", "b", "a"]).dictionary_encode().cast(schema.field("d").type),
                  "st": [{"x": "p"}, None, {"x": "q"}]}, schema=schema)
    path = os.path.join(tmp, "field_metadata.parquet")
    pq.write_table(t, path)
    want = pq.read_table(path)
    for kw in ({}, {"columns": ["d", "k"]}):
        got = pqstep.read_table(path, **kw)
        got.validate(full=True)
        assert got.schema.metadata == want.schema.metadata, got.schema.metadata
        for f in got.schema:
            assert f.metadata == want.schema.field(f.name).metadata, (f.name, f.metadata, want.schema.field(f.name).metadata)
        assert got.equals(want.select(got.column_names)), got
    with pqstep.Reader(path) as r:
        b = next(r.iter_batches())
        assert b.schema.equals(want.schema, check_metadata=True), b.schema
    return 2


def main():
    tmp = tempfile.mkdtemp(prefix="pqstep-arrow-schema-")
    t = table()
    checked = 0
    for use_dictionary in (True, False):
        path = os.path.join(tmp, "types_%s.parquet" % use_dictionary)
        pq.write_table(t, path, row_group_size=1500, use_dictionary=use_dictionary, data_page_size=4096)
        want = pq.read_table(path)
        got = pqstep.read_table(path, follow_arrow_schema=True)
        got.validate(full=True)
        same(got, want, path)
        # followed by default: the same table
        assert pqstep.read_table(path).equals(got), path
        # without the option: the mapping from the Parquet schema alone
        dflt = pqstep.read_table(path, follow_arrow_schema=False)
        assert dflt.schema.field("large").type == pa.string(), dflt.schema
        assert dflt.schema.field("dict").type == pa.string(), dflt.schema
        assert dflt.schema.field("dur_s").type == pa.int64(), dflt.schema
        assert dflt.schema.field("ts_ny").type == pa.timestamp("us", tz="UTC"), dflt.schema
        # the option with another string type: stored types win, the rest follow strings=
        mixed = pqstep.read_table(path, follow_arrow_schema=True, strings="string_view")
        assert mixed.schema.field("plain").type == pa.string_view(), mixed.schema
        assert mixed.schema.field("large").type == pa.large_string(), mixed.schema
        with pqstep.Reader(path, follow_arrow_schema=True) as r:
            batches = list(r.iter_batches(batch_size=999))
            same(pa.Table.from_batches(batches), want, path + " (batches)")
            for g in range(r.metadata.num_row_groups):
                b = r.read_row_group(g)
                b.validate(full=True)
                same(pa.Table.from_batches([b]), want.slice(g * 1500, 1500), "%s row group %d" % (path, g))
            empty = r.read(row_limit=0)
            assert empty.num_rows == 0 and empty.schema.types == got.schema.types, empty.schema
        for text, expr in (("plain in ('AIR', 'RAIL')", pc.field("plain").isin(["AIR", "RAIL"])),
                           ("dict = 'SHIP' and i > 1000", (pc.field("dict") == "SHIP") & (pc.field("i") > 1000)),
                           ("large is null", pc.field("large").is_null())):
            f = pqstep.read_table(path, follow_arrow_schema=True, filter=text)
            f.validate(full=True)
            same(f, filtered(want, expr), "%s [%s]" % (path, text))
            assert 0 < f.num_rows < N, (text, f.num_rows)
        checked += 1

    checked += nested(tmp)
    checked += dictionary_indices(tmp)
    checked += metadata(tmp)

    # A key that cannot be decoded: an error naming it, only with the option.
    bad = os.path.join(tmp, "bad_key.parquet")
    pq.write_table(pa.table({"s": ["x", "y"]}), bad)
    with open(bad, "rb") as fh:
        raw = fh.read()
    key = pq.ParquetFile(bad).metadata.metadata[b"ARROW:schema"]
    assert raw.count(key) == 1
    with open(bad, "wb") as fh:  # the same length: the footer's Thrift stays well-formed
        fh.write(raw.replace(key, b"@" * len(key)))
    try:  # pyarrow itself refuses the file at open
        pq.ParquetFile(bad)
        raise AssertionError("pyarrow opened a file with a bad ARROW:schema")
    except pa.ArrowInvalid:
        pass
    # as pyarrow, refused by default (the key is followed), read without following it
    assert pqstep.read_table(bad, follow_arrow_schema=False).column(0).to_pylist() == ["x", "y"]
    for kw in ({}, {"follow_arrow_schema": True}):
        try:
            pqstep.read_table(bad, **kw)
        except pqstep.Error as e:
            assert "ARROW:schema" in str(e) and "follow_arrow_schema" in str(e), e
        else:
            raise AssertionError("a bad ARROW:schema was followed without an error")

    # Corpus files that carry the key: pyarrow's types for flat columns.
    corpus = 0
    for p in sorted(glob.glob(os.path.join(CORPUS, "data", "*.parquet"))):
        try:
            md = pq.ParquetFile(p).metadata
            want = pq.read_table(p)
        except Exception:
            continue
        if not md.metadata or b"ARROW:schema" not in md.metadata:
            continue
        try:
            got = pqstep.read_table(p, follow_arrow_schema=True)
        except pqstep.Error as e:
            try:
                pqstep.read_table(p)
            except pqstep.Error:
                continue  # fails without the option too: not this test's concern
            raise AssertionError("%s: %s" % (p, e))
        got.validate(full=True)
        for f in want.schema:
            if pa.types.is_nested(f.type) or f.name not in got.column_names:
                continue
            g = got.schema.field(f.name)
            interesting = (pa.types.is_large_string(f.type) or pa.types.is_large_binary(f.type) or
                           pa.types.is_dictionary(f.type) or pa.types.is_duration(f.type) or
                           pa.types.is_string_view(f.type) or
                           (pa.types.is_timestamp(f.type) and f.type.tz not in (None, "UTC") and f.type.unit != "s"))
            if interesting and not (pa.types.is_dictionary(f.type) and f.type.value_type not in
                                    (pa.string(), pa.binary())):
                assert g.type == f.type, "%s: %s is %s, want %s" % (p, f.name, g.type, f.type)
        corpus += 1
    print("%d written files and %d corpus files with ARROW:schema followed" % (checked, corpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
