"""Projection of paths into VARIANT columns (`columns=["v.a.b", "v.l[0]"]`,
pq_variant_path_leaves / pq_variant_path_extract):

- shredded_variant/ (parquet-testing): for every valid case, every path
  its expected rows hold (object fields and array elements, three steps
  deep), the fields the writer shredded, and paths that lead nowhere, read
  together in one projection; each row equal to the value at that path in
  the expected .variant.bin (decoded here in Python), None where the path
  leads nowhere; the same through a stream in small batches, and through
  `pqstep cat --columns` (each path's JSON);
- the leaves a path reads, against the file's schema: a shredded path
  reads the column's metadata, the residual values on the way and its own
  group, none of the other shredded fields;
- files DuckDB writes (typed: shredded; mixed: values left in residual
  columns), each path equal to DuckDB's own extraction
  (variant_extract, whose element numbers start at 1) rendered as JSON;
- the same paths over a dataset (hive directories) equal the file's, on one
  thread and more, the VARIANT column itself kept beside a path when named;
- a VARIANT column named too is kept beside its paths; a bad path is a
  pqstep.Error.
"""
import json
import os
import subprocess
import sys
import tempfile

from read_oracle import CORPUS, pqstep  # noqa: F401

import pqstep.variant as pv
from pqstep._variant_paths import path_leaves

SHREDDED = os.path.join(CORPUS, "shredded_variant")
CLI = os.environ.get("PQSTEP_CLI")
MISSING = object()


def at(value, steps):
    """The value at `steps` of a decoded variant, or MISSING."""
    for s in steps:
        if isinstance(s, int):
            if not isinstance(value, list) or s >= len(value):
                return MISSING
            value = value[s]
        else:
            if not isinstance(value, dict) or s not in value:
                return MISSING
            value = value[s]
    return value


def text(name, steps):
    return name + "".join("[%d]" % s if isinstance(s, int) else "." + s for s in steps)


def paths_in(value, prefix=(), depth=3):
    """Every path a decoded variant holds, `depth` steps deep."""
    if depth == 0:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if "." in k or "[" in k or not k:
                continue  # not nameable in a path
            yield prefix + (k,)
            yield from paths_in(v, prefix + (k,), depth - 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield prefix + (i,)
            yield from paths_in(v, prefix + (i,), depth - 1)


def shredded_fields(t, prefix=()):
    """Paths of the fields a storage type shreds (typed_value objects)."""
    names = [f.name for f in t]
    if "typed_value" not in names:
        return
    tv = t.field("typed_value").type
    import pyarrow as pa
    if pa.types.is_struct(tv):
        for f in tv:
            yield prefix + (f.name,)
            yield from shredded_fields(f.type, prefix + (f.name,))
    elif pa.types.is_list(tv) or pa.types.is_large_list(tv):
        yield from shredded_fields(tv.value_type, prefix + (0,))


def variant_column(table):
    return [n for n in table.schema.names if n != "id"][0]


def check_corpus():
    cases = json.load(open(os.path.join(SHREDDED, "cases.json")))
    files = checked = 0
    for c in cases:
        if "parquet_file" not in c or "error_message" in c or "INVALID" in c["parquet_file"]:
            continue
        path = os.path.join(SHREDDED, c["parquet_file"])
        stored = pqstep.read_table(path, variant_storage=True)
        name = variant_column(stored)
        rows = []
        for f in c.get("variant_files") or [c.get("variant_file")]:
            if f is None:
                rows.append(None)
                continue
            m, v = pv.split(open(os.path.join(SHREDDED, f), "rb").read())
            rows.append(pv.to_python(m, v))
        paths = {()} if False else set()
        for r in rows:
            if r is not None:
                paths.update(paths_in(r))
        paths.update(shredded_fields(stored.schema.field(name).type))
        paths.update({("zz_missing",), (0,), (99,), ("zz_missing", "a")})
        paths = sorted(paths, key=lambda p: [str(s) for s in p])
        names = [text(name, p) for p in paths]
        t = pqstep.read_table(path, columns=names)
        assert t.schema.names == names, (c["case_number"], t.schema.names)
        cli_rows = None
        if CLI:  # pqstep cat --columns: each path's values as JSON
            p = subprocess.run([CLI, "cat", "--format", "jsonl", "--columns", ",".join(names), path],
                               capture_output=True, text=True)
            assert p.returncode == 0, (c["case_number"], p.stderr)
            cli_rows = [json.loads(line) for line in p.stdout.splitlines()]
            assert len(cli_rows) == len(rows), (c["case_number"], len(cli_rows))
        streamed = pqstep.scan(path, columns=names, batch_size=1).read()
        for p, n in zip(paths, names):
            field = t.schema.field(n)
            assert (field.metadata or {}).get(b"ARROW:extension:name") == b"arrow.parquet.variant", field
            got = pv.values(t.column(n))
            assert pv.values(streamed.column(n)) == got, (c["case_number"], n)
            for i, r in enumerate(rows):
                want = None if r is None else at(r, p)
                want = None if want is MISSING else want
                assert got[i] == want, (c["case_number"], n, i, got[i], want)
                if cli_rows is not None:
                    col = t.column(n).combine_chunks()
                    w = None if not col[i].is_valid else json.loads(
                        pv.to_json(col.field("metadata")[i].as_py(), col.field("value")[i].as_py()))
                    assert cli_rows[i][n] == w, (c["case_number"], n, i, cli_rows[i][n], w)
                checked += 1
        files += 1
    return files, checked


def check_leaves():
    """case-044: var{metadata, value, typed_value{c{value, typed_value{a{..},
    b{..}}}, d{..}}}: a path reads its own branch and the residual values
    on the way."""
    path = os.path.join(SHREDDED, "case-044.parquet")
    r = pqstep.Reader(path)
    md = r.metadata
    leaf = {col.path: col.index for col in md.columns}

    def want(*names):
        return sorted(leaf[n] for n in names)
    h = md._live()
    assert path_leaves(h, "var.c.a") == want(
        "var.metadata", "var.value", "var.typed_value.c.value", "var.typed_value.c.typed_value.a.value",
        "var.typed_value.c.typed_value.a.typed_value"), path_leaves(h, "var.c.a")
    assert path_leaves(h, "var.d") == want(
        "var.metadata", "var.value", "var.typed_value.d.value", "var.typed_value.d.typed_value")
    # not shredded: the residual values alone
    assert path_leaves(h, "var.zz.y") == want("var.metadata", "var.value")
    assert path_leaves(h, "var.c.zz") == want("var.metadata", "var.value", "var.typed_value.c.value")
    assert path_leaves(h, "id.x") is None and path_leaves(h, "nope.a") is None
    # a path's read holds only those leaves: what stage_stats report as read
    t = r.read(columns=["var.c.a"])
    assert t.column_names == ["var.c.a"] and pv.values(t.column(0)) == [34]
    return 5


def check_duckdb():
    try:
        import duckdb
    except ImportError:
        print("test_variant_paths: DuckDB part skipped: duckdb is not installed")
        return 0
    con = duckdb.connect()
    queries = {
        "typed": "select i as id, {'a': i::BIGINT, 'b': 's' || (i % 7), 'd': {'e': i / 4.0}, 'l': [i, i * 2]}"
                 "::VARIANT as v from range(3000) t(i)",
        "mixed": "select i as id, case when i % 10 = 3 then ('{\"a\": \"x' || i || '\", \"d\": {\"e\": ' || i || "
                 "', \"f\": true}, \"l\": [' || i || ']}')::JSON::VARIANT when i % 10 = 5 then NULL::VARIANT "
                 "when i % 10 = 7 then (i * 3)::VARIANT "
                 "else {'a': i::BIGINT, 'b': 's' || (i % 7), 'd': {'e': i / 4.0}, 'l': [i, i * 2]}::VARIANT end as v "
                 "from range(3000) t(i)",
    }
    # (pqstep path, DuckDB extraction of v)
    paths = [("v.a", "variant_extract(v, 'a')"), ("v.b", "variant_extract(v, 'b')"),
             ("v.d", "variant_extract(v, 'd')"), ("v.d.e", "variant_extract(variant_extract(v, 'd'), 'e')"),
             ("v.d.f", "variant_extract(variant_extract(v, 'd'), 'f')"),
             ("v.l[0]", "variant_extract(variant_extract(v, 'l'), 1)"),
             ("v.l[1]", "variant_extract(variant_extract(v, 'l'), 2)"), ("v.zz", "variant_extract(v, 'zz')")]
    checked = 0
    with tempfile.TemporaryDirectory() as d:
        for kind, q in queries.items():
            f = os.path.join(d, kind + ".parquet")
            con.sql("copy (%s) to '%s' (format parquet, row_group_size 1000)" % (q, f))
            want = con.sql("select %s from '%s' order by id" % (", ".join("(%s)::JSON" % e for _, e in paths), f)
                           ).fetchall()
            t = pqstep.read_table(f, columns=["id"] + [p for p, _ in paths])
            assert t.column("id").to_pylist() == list(range(3000))
            # over a dataset (hive directories of the same file): the same values, each file's
            import shutil
            for part in ("1", "2"):
                os.makedirs(os.path.join(d, kind, "k=" + part))
                shutil.copy(f, os.path.join(d, kind, "k=" + part, "f.parquet"))
            ds = pqstep.dataset(os.path.join(d, kind), partitioning="hive").to_table(
                columns=["id"] + [p for p, _ in paths] + ["k"])
            assert ds.column_names == ["id"] + [p for p, _ in paths] + ["k"], ds.column_names
            for p, _ in paths:
                assert pv.values(ds.column(p)) == pv.values(t.column(p)) * 2, (kind, p)
            # one thread (a file's stream at a time), the column itself kept beside a path
            one = pqstep.dataset(os.path.join(d, kind), partitioning="hive", threads=1).scan(
                columns=["v", paths[0][0], "id"], batch_size=700)
            assert one.schema.names == ["id", "v", paths[0][0]], one.schema.names
            one = one.read()
            assert one.column_names == ["id", "v", paths[0][0]], one.column_names
            whole = pqstep.read_table(f)
            assert pv.values(one.column("v")) == pv.values(whole.column("v")) * 2, kind
            assert pv.values(one.column(paths[0][0])) == pv.values(t.column(paths[0][0])) * 2, kind
            for k, (p, _) in enumerate(paths):
                col = t.column(p).combine_chunks()
                m, v = col.field("metadata"), col.field("value")
                for i in range(3000):
                    w = want[i][k]
                    if not col[i].is_valid:
                        assert w is None, (kind, p, i, w)
                        continue
                    got = json.loads(pv.to_json(m[i].as_py(), v[i].as_py()))
                    assert w is not None, (kind, p, i, got)
                    assert got == json.loads(w), (kind, p, i, got, w)
                    checked += 1
    return checked


def check_mixed_and_errors():
    path = os.path.join(SHREDDED, "case-044.parquet")
    t = pqstep.read_table(path, columns=["id", "var.c.b", "var.metadata"])
    assert t.schema.names == ["id", "var", "var.c.b"], t.schema.names
    assert pv.values(t.column("var.c.b")) == ["iceberg"]
    for bad in ("var.", "var.c..a", "var[x]", "var[1", "nope.a"):
        try:
            pqstep.read_table(path, columns=[bad])
        except pqstep.Error:
            continue
        raise AssertionError("%r read without an error" % bad)
    return 6


def main():
    files, checked = check_corpus()
    leaves = check_leaves()
    duck = check_duckdb()
    other = check_mixed_and_errors()
    print("test_variant_paths: %d shredded_variant files, %d row paths equal to the expected variants; %d leaf "
          "selections; %d DuckDB values; %d mixed/error cases" % (files, checked, leaves, duck, other))
    return 0


if __name__ == "__main__":
    sys.exit(main())
