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
names the pruned row groups. A path that is not shredded down to a
primitive, and IS NULL on a path, are refused with a message.
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


def check_spark():
    path = os.path.join(SPARK, "spark_shredded.parquet")
    with open(os.path.join(SPARK, "manifest.json")) as f:
        rows = {int(k): (None if v is None else json.loads(v))
                for k, v in json.load(f)["files"]["spark_shredded.parquet"].items()}
    n = 0
    for ours, test in (("v.a >= 300", lambda r: isinstance(r.get("a"), int) and r["a"] >= 300),
                       ("v.b = 's5'", lambda r: r.get("b") == "s5"),
                       ("v.d.e < 20", lambda r: isinstance(r.get("d"), dict) and
                        isinstance(r["d"].get("e"), (int, float)) and r["d"]["e"] < 20)):
        want = sorted(i for i, r in rows.items() if isinstance(r, dict) and test(r))
        for prune in (True, False):
            got = sorted(pqstep.read_table(path, filter=ours, prune=prune).column("id").to_pylist())
            assert got == want, (ours, prune, len(got), len(want))
        n += 1
    return n


def check_errors(path):
    for text, says in (("v.nope > 1", "not shredded"), ("v.d > 1", "not shredded down to a primitive"),
                       ("bbox_intersects(v.a, 0, 0, 1, 1)", "only comparisons, IN and IS [NOT] NULL")):
        try:
            pqstep.read_table(path, filter=text)
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
        check_errors(typed)
    s = check_spark()
    print("variant filters: %d filters on shredded paths equal DuckDB's rows on a typed and a mixed file (%d row "
          "groups pruned on the typed one, none where residual values could match), %d on Spark's file equal its "
          "rows; pruning on and off agree" % (len(FILTERS) * 2, pruned, s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
