"""Filters on paths inside a shredded VARIANT (`v.a`, `v.d.e`): comparisons
and IN judged and evaluated on the shredded leaf, with the rows whose value
was left in a residual `value` column decoded instead.

Oracles: DuckDB's own query of the same file (its VARIANT extraction
casts), and Spark's rendering of its own file (tests/fixtures/variant_spark/
manifest.json) filtered here in Python. Files (DuckDB, at test time):
- typed: {'a': BIGINT, 'b': VARCHAR, 'd': {'e': DOUBLE}} structs cast to
  VARIANT, which DuckDB shreds into typed columns: a selective filter
  prunes row groups by the shredded leaf's statistics (counted) and gives
  DuckDB's rows;
- mixed: the same rows, and in every row group also rows from JSON, whose
  integers DuckDB keeps in the residual `value` (other widths) and whose
  `a` is sometimes a string: the typed leaf's statistics would rule the row
  groups out, the residual values must not be lost: no row group pruned,
  DuckDB's rows exactly.
- nulls: a field missing, JSON null, a string or typed, and SQL NULL rows:
  IS NULL and IS NOT NULL on its path give DuckDB's rows.
Each filter with pruning on and off, and over a dataset of the file
twice, gives the same rows. `pqstep prune`
names the pruned row groups.

Paths the writer did not shred (DuckDB's file written unshredded, and
shredded only down to `a`; Spark's unshredded file), and through arrays it
shredded (DuckDB's file with `l` and `d.g` shredded as lists, some
elements and some lists left in residual values): fields, array
elements (`v.l[1]`, `v.d.g[1].h`) and paths that lead nowhere, each row's
value compared by its own variant type (numbers across widths and with
float literals, strings, dates); nothing pruned; equal to DuckDB's rows
and Spark's rendering. A path through nested arrays the writer shredded
is refused with a message. Paths through arrays Spark shredded (`v.c[0]`,
`v.d.g[1].h`, two elements of one array in one filter) read the element
at the index of each row's list, against Spark's rendering.
"""
import json
import os
import subprocess
import sys
import tempfile

from read_oracle import pq, pqstep  # noqa: F401

import pqstep.variant as pv

CLI = os.environ.get("PQSTEP_CLI")
SPARK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "variant_spark")

TYPED = ("select i as id, {'a': i::BIGINT, 'b': 's' || (i % 7), 'd': {'e': i / 4.0}}::VARIANT as v "
         "from range(4000) t(i)")
MIXED = ("select i as id, case when i % 10 = 3 then ('{\"a\": ' || (i + 100000) || ', \"b\": \"r' || (i % 3) || "
         "'\", \"d\": {\"e\": ' || (i * 2) || '.5}}')::JSON::VARIANT "
         "when i % 10 = 7 then '{\"a\": \"text\", \"b\": 5}'::JSON::VARIANT "
         "else {'a': i::BIGINT, 'b': 's' || (i % 7), 'd': {'e': i / 4.0}}::VARIANT end as v from range(4000) t(i)")

# pqstep filter -> DuckDB condition on the same file
FILTERS = [
    ("v.a >= 3900", "try_cast(v.a as BIGINT) >= 3900"),
    ("v.a < 10", "try_cast(v.a as BIGINT) < 10"),
    ("v.a >= 100000", "try_cast(v.a as BIGINT) >= 100000"),
    ("v.a = 100013", "try_cast(v.a as BIGINT) = 100013"),
    ("v.a in (5, 100023, 3999)", "try_cast(v.a as BIGINT) in (5, 100023, 3999)"),
    ("v.b = 's3'", "try_cast(v.b as VARCHAR) = 's3'"),
    ("v.b in ('r1', 's0')", "try_cast(v.b as VARCHAR) in ('r1', 's0')"),
    ("v.d.e > 990", "try_cast(v.d.e as DOUBLE) > 990"),
    ("v.a >= 3900 or v.b = 'r2'", "try_cast(v.a as BIGINT) >= 3900 or try_cast(v.b as VARCHAR) = 'r2'"),
    ("not (v.a < 3990)", "not (try_cast(v.a as BIGINT) < 3990)"),
    ("v.a is null", "v.a is null"),
    ("v.d.e is not null and v.a < 100", "v.d.e is not null and try_cast(v.a as BIGINT) < 100"),
    # literals the typed leaf cannot hold: every row compared by value
    ("v.a = 'text'", "try_cast(v.a as VARCHAR) = 'text'"),
    ("v.a in (5, 7.5, 3999)", "try_cast(v.a as DOUBLE) in (5, 7.5, 3999)"),
    # a shredded object: present or not, never equal to a number
    ("v.d is not null", "v.d is not null"),
    ("v.d is null or v.d > 1", "v.d is null"),
]

# A field that is missing, JSON null, a string, or typed, and SQL NULL rows:
# IS [NOT] NULL on its path as DuckDB answers it.
NULLS = ("select i as id, case when i % 10 = 3 then '{\"a\": null, \"b\": 1}'::JSON::VARIANT "
         "when i % 10 = 4 then '{\"b\": 2}'::JSON::VARIANT when i % 10 = 5 then '{\"a\": \"s\"}'::JSON::VARIANT "
         "when i % 10 = 6 then NULL else {'a': i::BIGINT, 'b': i}::VARIANT end as v from range(3000) t(i)")


def duckdb_file(con, path, query):
    con.execute("copy (%s) to '%s' (format parquet, row_group_size 2048)" % (query, path))


def check_file(con, path, expect_pruning):
    pruned = 0
    for ours, theirs in FILTERS:
        want = sorted(r[0] for r in con.execute("select id from '%s' where %s" % (path, theirs)).fetchall())
        r = pqstep.Reader(path)
        got = r.read(filter=ours)
        ids = sorted(got.column("id").to_pylist())
        assert ids == want, (path, ours, len(ids), len(want), sorted(set(ids) ^ set(want))[:10])
        pruned += r.stage_stats("select")["pruned_statistics"]
        off = pqstep.read_table(path, filter=ours, prune=False)
        assert sorted(off.column("id").to_pylist()) == want, (path, ours, "prune=False")
        # a dataset of the file twice: each file's rows, through its own reader
        ds = pqstep.dataset([path, path]).to_table(filter=ours)
        assert sorted(ds.column("id").to_pylist()) == sorted(want * 2), (path, ours, "dataset")
        # the rows come out as their variants, equal to the unfiltered read's
        if ids:
            allv = pqstep.read_table(path)
            by_id = dict(zip(allv.column("id").to_pylist(), pv.values(allv.column("v"))))
            assert pv.values(got.column("v")) == [by_id[i] for i in got.column("id").to_pylist()], (path, ours)
    if expect_pruning:
        assert pruned > 0, (path, "no row group pruned")
    else:
        assert pruned == 0, (path, "row groups pruned though their values were in residual columns", pruned)
    return pruned


def at(r, *steps):
    """Spark's rendering of a row followed down `steps` (None: nowhere)."""
    for s in steps:
        if isinstance(s, int):
            if not isinstance(r, list) or s >= len(r):
                return None
        elif not isinstance(r, dict):
            return None
        r = r[s] if isinstance(s, int) else r.get(s)
    return r


def num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_spark():
    path = os.path.join(SPARK, "spark_shredded.parquet")
    with open(os.path.join(SPARK, "manifest.json")) as f:
        rows = {int(k): (None if v is None else json.loads(v))
                for k, v in json.load(f)["files"]["spark_shredded.parquet"].items()}
    n = 0
    for ours, test in (("v.a >= 300", lambda r: isinstance(r.get("a"), int) and r["a"] >= 300),
                       ("v.b = 's5'", lambda r: r.get("b") == "s5"),
                       ("v.d.e < 20", lambda r: isinstance(r.get("d"), dict) and
                        isinstance(r["d"].get("e"), (int, float)) and r["d"]["e"] < 20),
                       # through arrays Spark shredded: the element at the index of each row's list
                       ("v.c[0] > 100", lambda r: num(at(r, "c", 0)) and at(r, "c", 0) > 100),
                       ("v.c[1] < 40", lambda r: num(at(r, "c", 1)) and at(r, "c", 1) < 40),
                       ("v.d.g[1].h > -20", lambda r: num(at(r, "d", "g", 1, "h")) and at(r, "d", "g", 1, "h") > -20),
                       ("v.d.g[1].x = 'extra'", lambda r: at(r, "d", "g", 1, "x") == "extra"),
                       ("v.d.g[0].h is not null", lambda r: at(r, "d", "g", 0, "h") is not None),
                       ("v.c[0] > 290 and v.a < 295", lambda r: num(at(r, "c", 0)) and at(r, "c", 0) > 290 and
                        num(at(r, "a")) and at(r, "a") < 295),
                       # two elements of one array, and of two arrays, in one filter
                       ("v.c[0] > 295 or v.c[1] < 3", lambda r: (num(at(r, "c", 0)) and at(r, "c", 0) > 295) or
                        (num(at(r, "c", 1)) and at(r, "c", 1) < 3)),
                       ("v.c[1] = 9 or v.d.g[0].h = 10", lambda r: at(r, "c", 1) == 9 or at(r, "d", "g", 0, "h") == 10)):
        want = sorted(i for i, r in rows.items() if isinstance(r, dict) and test(r))
        assert want, ours
        for prune in (True, False):
            got = sorted(pqstep.read_table(path, filter=ours, prune=prune).column("id").to_pylist())
            assert got == want, (ours, prune, len(got), len(want))
        n += 1
    return n


# Rows for the unshredded files: objects, arrays, nested arrays of
# objects, other types at the same path, missing fields, JSON null, dates.
LOOSE = ("select i as id, case "
         "when i % 10 = 3 then ('{\"a\": ' || (i + 100000) || '.5, \"b\": \"r' || (i % 3) || "
         "'\", \"l\": [' || i || ', \"x\"], \"d\": {\"e\": ' || (i * 2) || '}}')::JSON::VARIANT "
         "when i % 10 = 7 then '{\"a\": \"text\", \"b\": 5, \"l\": {\"k\": 1}, \"d\": null}'::JSON::VARIANT "
         "when i % 10 = 8 then NULL "
         "when i % 10 = 9 then {'a': i::BIGINT, 'day': DATE '2020-01-01' + (i::INTEGER)}::VARIANT "
         "else {'a': i::BIGINT, 'b': 's' || (i % 7), 'l': [i, i + 1, i * 3], "
         "'d': {'e': i / 4.0, 'g': [{'h': i}, {'h': -i, 'x': 'extra'}]}}::VARIANT end as v "
         "from range(4000) t(i)")

# pqstep filter -> DuckDB condition (its list index counts from 1)
LOOSE_FILTERS = [
    ("v.a >= 3900", "try_cast(v.a as DOUBLE) >= 3900"),
    ("v.a > 100100", "try_cast(v.a as DOUBLE) > 100100"),
    ("v.a = 100013.5", "try_cast(v.a as DOUBLE) = 100013.5"),
    ("v.a in (5, 100023.5, 3999)", "try_cast(v.a as DOUBLE) in (5, 100023.5, 3999)"),
    ("v.b = 's3'", "try_cast(v.b as VARCHAR) = 's3' and v.b::VARCHAR not like '%\"%'"),
    ("v.b in ('r1', 's0')", "try_cast(v.b as VARCHAR) in ('r1', 's0')"),
    ("v.b = 5", "try_cast(v.b as BIGINT) = 5 and v.b::VARCHAR = '5'"),
    ("v.l[0] < 30", "try_cast(v.l[1] as DOUBLE) < 30"),
    ("v.l[2] >= 11000", "try_cast(v.l[3] as DOUBLE) >= 11000"),
    ("v.l[1] = 'x'", "try_cast(v.l[2] as VARCHAR) = 'x'"),
    ("v.d.e > 7000", "try_cast(v.d.e as DOUBLE) > 7000"),
    ("v.d.g[1].h <= -3990", "try_cast(v.d.g[2].h as DOUBLE) <= -3990"),
    ("v.day >= '2020-10-01'", "try_cast(v.day as DATE) >= DATE '2020-10-01'"),
    ("v.nope.deeper = 1", "false"),
    ("v.a is null", "v.a is null"),
    ("v.l[2] is not null", "v.l[3] is not null"),
    ("v.d is null", "v.d is null"),
    ("v.a >= 3990 or v.l[0] = 'x'", "try_cast(v.a as DOUBLE) >= 3990 or try_cast(v.l[1] as VARCHAR) = 'x'"),
    ("not (v.d.e < 999) and id < 2000", "not (try_cast(v.d.e as DOUBLE) < 999) and id < 2000"),
    ("v.l[0] < 30 or v.l[2] >= 11000 or v.d.g[0].h = 77",
     "try_cast(v.l[1] as DOUBLE) < 30 or try_cast(v.l[3] as DOUBLE) >= 11000 or try_cast(v.d.g[1].h as DOUBLE) = 77"),
]


def check_loose(con, path):
    """Paths the writer left in residual values: DuckDB's rows, never pruned."""
    for ours, theirs in LOOSE_FILTERS:
        want = sorted(r[0] for r in con.execute("select id from '%s' where %s" % (path, theirs)).fetchall())
        for prune in (True, False):
            for columns in (None, ["id"]):
                r = pqstep.Reader(path)
                got = sorted(r.read(columns=columns, filter=ours, prune=prune).column("id").to_pylist())
                assert got == want, (path, ours, prune, columns, len(got), len(want), sorted(set(got) ^ set(want))[:8])
                if "id <" not in ours:  # only `id` prunes
                    assert r.stage_stats("select")["pruned_statistics"] == 0, (path, ours)
        ds = pqstep.dataset([path, path]).to_table(filter=ours)
        assert sorted(ds.column("id").to_pylist()) == sorted(want * 2), (path, ours, "dataset")
    return len(LOOSE_FILTERS)


def check_spark_plain():
    """Spark's unshredded file: paths through objects and arrays, against
    Spark's own rendering of each row."""
    path = os.path.join(SPARK, "spark_plain.parquet")
    with open(os.path.join(SPARK, "manifest.json")) as f:
        rows = {int(k): (None if v is None else json.loads(v))
                for k, v in json.load(f)["files"]["spark_plain.parquet"].items()}

    cases = (("v.a >= 300", lambda r: num(at(r, "a")) and at(r, "a") >= 300),
             ("v.c[1] < 40", lambda r: num(at(r, "c", 1)) and at(r, "c", 1) < 40),
             ("v.d.g[1].h > -20", lambda r: num(at(r, "d", "g", 1, "h")) and at(r, "d", "g", 1, "h") > -20),
             ("v.d.g[1].x = 'extra'", lambda r: at(r, "d", "g", 1, "x") == "extra"),
             ("v.d.g[0].x is null", lambda r: at(r, "d", "g", 0, "x") is None))
    for ours, test in cases:
        want = sorted(i for i, r in rows.items() if test(r))
        assert want, ours
        for prune in (True, False):
            got = sorted(pqstep.read_table(path, filter=ours, prune=prune).column("id").to_pylist())
            assert got == want, (ours, prune, len(got), len(want))
    return len(cases)


def check_errors(con, path, tmp):
    nested = os.path.join(tmp, "nested.parquet")
    con.execute("copy (select {'m': [[i, i + 1], [i * 2]]}::VARIANT as v from range(100) t(i)) to '%s' "
                "(format parquet, shredding {'v': 'STRUCT(m BIGINT[][])'})" % nested)
    for text, says, where in (("bbox_intersects(v.a, 0, 0, 1, 1)", "only comparisons, IN and IS [NOT] NULL", path),
                              ("v.m[0][1] > 1", "more than one array the writer shredded", nested)):
        try:
            pqstep.read_table(where, filter=text)
        except pqstep.Error as e:
            assert says in str(e), (text, str(e))
        else:
            raise AssertionError("no error for %s" % text)


def main():
    try:
        import duckdb
    except ImportError:
        print("test_variant_filter: skipped: duckdb is not installed")
        return 77
    con = duckdb.connect()
    with tempfile.TemporaryDirectory() as tmp:
        typed = os.path.join(tmp, "typed.parquet")
        mixed = os.path.join(tmp, "mixed.parquet")
        duckdb_file(con, typed, TYPED)
        duckdb_file(con, mixed, MIXED)
        pruned = check_file(con, typed, True)
        check_file(con, mixed, False)
        nulls = os.path.join(tmp, "nulls.parquet")
        duckdb_file(con, nulls, NULLS)
        for ours, theirs in (("v.a is null", "v.a is null"), ("v.a is not null", "v.a is not null"),
                             ("v.a is null or v.a > 2900", "v.a is null or try_cast(v.a as BIGINT) > 2900")):
            want = sorted(r[0] for r in con.execute("select id from '%s' where %s" % (nulls, theirs)).fetchall())
            for prune in (True, False):
                got = sorted(pqstep.read_table(nulls, filter=ours, prune=prune).column("id").to_pylist())
                assert got == want and want, (ours, prune, len(got), len(want))
        if CLI:
            p = subprocess.run([CLI, "prune", "--where", "v.a >= 3900", typed], capture_output=True, text=True)
            assert p.returncode == 0 and "pruned by statistics 1" in p.stdout, p.stdout
        check_errors(con, typed, tmp)
        loose = 0
        for name, shredding in (("plain", "{'v': 'VARIANT'}"), ("part", "{'v': 'STRUCT(a BIGINT, d STRUCT(e DOUBLE))'}"),
                                ("arrays", "{'v': 'STRUCT(a BIGINT, l BIGINT[], d STRUCT(e DOUBLE, g STRUCT(h BIGINT)[]))'}")):
            f = os.path.join(tmp, name + ".parquet")
            con.execute("copy (%s) to '%s' (format parquet, row_group_size 1024, shredding %s)" % (LOOSE, f, shredding))
            loose += check_loose(con, f)
    s = check_spark()
    sp = check_spark_plain()
    print("variant filters: %d filters on shredded paths equal DuckDB's rows on a typed and a mixed file (%d row "
          "groups pruned on the typed one, none where residual values could match), %d on Spark's file equal its "
          "rows; %d on paths DuckDB left unshredded and %d on Spark's unshredded file (fields and array elements) "
          "equal theirs; pruning on and off agree" % (len(FILTERS) * 2, pruned, s, loose, sp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
