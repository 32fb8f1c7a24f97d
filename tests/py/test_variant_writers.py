"""VARIANT files written by other writers, read by pqstep, against each
writer's own rendering of the same values.

DuckDB (its VARIANT type, written to Parquet with its own shredding: it
types what the rows share, objects field by field, lists element by
element, and leaves the rest in `value`), at test time: rows of JSON made
here (objects of several shapes, nested objects and arrays, mixed scalars,
strings long and short, numbers integer and fractional, JSON null inside
and SQL NULL rows), in several row groups. Each row as pqstep reads it
(rebuilt from the shredded columns by the C reader, rendered by
pq_variant_to_json through pqstep.variant.to_json) equals DuckDB's
`v::JSON` of the same file, compared as JSON values; `pqstep cat --format
jsonl` prints the same; a second DuckDB file holds every primitive type
DuckDB shreds (dates, timestamps with and without a zone, decimals of the
three widths, UUIDs, binary, floats, integers of each width, booleans,
times), each field equal to DuckDB's rendering once both are in one form,
and filters on its date, decimal, integer, boolean and timestamp paths
equal DuckDB's own queries;
read as stored (variant_storage=True) and rebuilt
in Python (pqstep.variant.values) it is the same again; a scan in small
batches and a filter on the row id give the same rows.

parquet-java through Spark 4 (tests/fixtures/gen_variant_spark.py, committed
in tests/fixtures/variant_spark/ because pyspark needs a JDK): the same
checks against Spark's to_json(v) of its own read, for a file written
unshredded and one written with a shredding schema (rows that do not fit
it keep the rest in `value`).
"""
import decimal
import json
import os
import random
import subprocess
import sys
import tempfile

from read_oracle import pq, pqstep  # noqa: F401

import pqstep.variant as pv

CLI = os.environ.get("PQSTEP_CLI")
SPARK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "variant_spark")


def rows(n, seed):
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        k = i % 9
        if k in (0, 1, 2, 3):  # the shape most rows share: shredded
            out.append({"a": i, "b": "s%d" % (i % 17), "c": [i, i + 1, i * 2],
                        "d": {"e": i * 1.5, "f": None if i % 3 else "f%d" % i, "g": [{"h": i}, {"h": -i}]}})
        elif k == 4:  # the same fields with other types: left in value
            out.append({"a": "a%d" % i, "b": i, "c": {"x": i}, "d": [1, 2]})
        elif k == 5:
            out.append(rnd.choice([i, -i * 1000003, i / 7.0, "x" * (i % 90), True, False, None]))
        elif k == 6:
            out.append([i, "y%d" % i, None, {"z": [i, {"w": "deep"}]}])
        elif k == 7:
            out.append({"only": i, "a": None, "b": "b" * 70})
        else:
            out.append("NULL")  # an SQL NULL row
    return out


def duckdb_file(path, n, seed):
    import duckdb
    con = duckdb.connect()
    data = rows(n, seed)
    texts = [None if r == "NULL" else json.dumps(r) for r in data]
    con.execute("create table t as select * from unnest(?::VARCHAR[]) with ordinality as u(j, id)", [texts])
    con.execute("copy (select id, j::JSON::VARIANT as v from t order by id) to '%s' (format parquet, "
                "row_group_size 700)" % path)
    theirs = {i: (None if j is None else json.loads(j))
              for i, j in con.execute("select id, v::JSON from '%s'" % path).fetchall()}
    con.close()
    return theirs


def rendered(col):
    """Each row's variant as a Python JSON value (None for a null row)."""
    col = col.combine_chunks()
    out = []
    for i in range(len(col)):
        if not col[i].is_valid:
            out.append(None)
            continue
        m, v = col[i]["metadata"].as_py(), col[i]["value"].as_py()
        out.append(json.loads(pv.to_json(m, v)))
    return out


def check_spark():
    with open(os.path.join(SPARK, "manifest.json")) as f:
        manifest = json.load(f)
    n = 0
    kinds = set()
    for name, rendered_rows in sorted(manifest["files"].items()):
        theirs = {int(k): (None if v is None else json.loads(v)) for k, v in rendered_rows.items()}
        got, shredded = check_file(os.path.join(SPARK, name), theirs)
        kinds.add(shredded)
        n += got
    assert kinds == {True, False}, kinds
    return n, manifest["writer"]


def check_file(path, theirs):
    t = pqstep.read_table(path)
    field = t.schema.field("v")
    assert (field.metadata or {}).get(b"ARROW:extension:name") == b"arrow.parquet.variant", field
    stored = pqstep.read_table(path, variant_storage=True)
    shredded = "typed_value" in [f.name for f in stored.schema.field("v").type]
    ids = t.column("id").to_pylist()
    ours = rendered(t.column("v"))
    python = pv.values(stored.column("v"))
    for i, got in zip(ids, ours):
        assert got == theirs[i], (path, i, got, theirs[i])
    for k, got in enumerate(python):  # Python's rebuild from the stored columns
        want = ours[k]
        as_json = json.loads(json.dumps(got, default=lambda o: float(o) if isinstance(o, decimal.Decimal) else str(o)))
        assert as_json == want, (path, k, got, want)
    scanned = pqstep.scan(path, batch_size=97).to_reader().read_all()
    assert rendered(scanned.column("v")) == ours, path
    sub = pqstep.read_table(path, filter="id >= 500 and id < 800")
    assert rendered(sub.column("v")) == [theirs[i] for i in sub.column("id").to_pylist()], path
    assert sub.num_rows == sum(1 for i in ids if 500 <= i < 800) > 0, sub.num_rows
    if CLI:
        p = subprocess.run([CLI, "cat", "--format", "jsonl", path], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        for line in p.stdout.splitlines():
            row = json.loads(line)
            assert row["v"] == theirs[row["id"]], (path, row)
    return len(ids), shredded


TYPED = ("select i as id, {'d': DATE '2024-01-01' + i::INT, 'ts': TIMESTAMP '2024-01-01 00:00:00' + "
         "to_seconds(i * 3601), 'tz': TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(i * 7), "
         "'dec': (i * 1.25 - 20)::DECIMAL(9,2), 'dec2': (i * 1000.125)::DECIMAL(18,3), "
         "'dec3': (i * 3 - 7)::DECIMAL(30,5), 'u': uuid(), 'bl': ('b' || i)::BLOB, 'f': i::FLOAT / 3, "
         "'sm': (i * 40 - 9000)::SMALLINT, 'ti': (i % 100 - 50)::TINYINT, 'bo': i % 2 = 0, "
         "'t': TIME '01:02:03' + to_seconds(i), 'big': i::BIGINT * 100000000000, 'dbl': i / 7.0}::VARIANT as v "
         "from range(700) t(i)")


def normal(key, value, ours):
    """A field of DuckDB's or pqstep's JSON rendering of the typed variant, in
    one form: binary as bytes (DuckDB prints it as text, pqstep as base64),
    times and timestamps as Python values (the texts differ in form)."""
    import base64
    import datetime
    if value is None:
        return None
    if key == "bl":
        return base64.b64decode(value, validate=True) if ours else value.encode()
    if key == "t":
        return datetime.time.fromisoformat(value)
    if key in ("ts", "tz"):
        v = value.replace(" ", "T")
        if v.endswith("+00"):
            v += ":00"
        return datetime.datetime.fromisoformat(v)
    return value


def check_typed(con, tmp):
    """Every primitive type DuckDB shreds (date, timestamps with and without
    a zone, decimals of the three widths, UUID, binary, float, double,
    8/16/64-bit integers, boolean, time), each field equal to DuckDB's."""
    path = os.path.join(tmp, "duckdb-typed.parquet")
    con.execute("copy (%s) to '%s' (format parquet)" % (TYPED, path))
    theirs = {i: json.loads(j) for i, j in con.execute("select id, v::JSON from '%s'" % path).fetchall()}
    stored = pqstep.read_table(path, variant_storage=True)
    typed = stored.schema.field("v").type.field("typed_value").type
    assert len([f for f in typed]) == 15, typed
    t = pqstep.read_table(path)
    ours = rendered(t.column("v"))
    for i, got in zip(t.column("id").to_pylist(), ours):
        want = theirs[i]
        assert sorted(got) == sorted(want), (i, got, want)
        for k in want:
            assert normal(k, got[k], True) == normal(k, want[k], False), (i, k, got[k], want[k])
    # filters on the typed paths: DuckDB's own query is the oracle
    for ours_f, theirs_f in (("v.d >= '2025-06-01'", "v.d::DATE >= DATE '2025-06-01'"),
                             ("v.dec < 0", "v.dec::DECIMAL(9,2) < 0"),
                             ("v.dec3 in ('-7', '2')", "v.dec3::DECIMAL(30,5) in (-7, 2)"),
                             ("v.big > 50000000000000", "v.big::BIGINT > 50000000000000"),
                             ("v.bo = true", "v.bo::BOOLEAN"),
                             ("v.ts < '2024-01-02 00:00:00'", "v.ts::TIMESTAMP < TIMESTAMP '2024-01-02 00:00:00'")):
        want = sorted(r[0] for r in con.execute("select id from '%s' where %s" % (path, theirs_f)).fetchall())
        got = sorted(pqstep.read_table(path, filter=ours_f).column("id").to_pylist())
        assert got == want and want, (ours_f, len(got), len(want))
    return len(ours)


def main():
    try:
        import duckdb
    except ImportError:
        print("test_variant_writers: skipped: duckdb is not installed")
        return 77
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed, n in ((1, 2500), (2, 40)):
            path = os.path.join(tmp, "duckdb-%d.parquet" % seed)
            theirs = duckdb_file(path, n, seed)
            got, shredded = check_file(path, theirs) if n >= 800 else (None, None)
            if got is None:  # a small file: every row, no range to filter
                t = pqstep.read_table(path)
                assert rendered(t.column("v")) == [theirs[i] for i in t.column("id").to_pylist()]
                got = t.num_rows
            else:
                assert shredded, "DuckDB did not shred the variant: the test would not test the rebuild"
            total += got
        typed_rows = check_typed(duckdb.connect(), tmp)
    spark_rows, writer = check_spark()
    print("variant writers: %d rows DuckDB wrote (shredded; %d more of every primitive type it shreds) and %d rows "
          "%s wrote (unshredded and shredded) read equal to the writer's own JSON, through read_table, scan, a "
          "filter, the CLI and Python's rebuild of the stored columns" % (total, typed_rows, spark_rows, writer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
