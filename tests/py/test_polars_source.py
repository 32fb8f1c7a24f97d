"""pqstep.polars.scan_parquet, the polars IO source, against polars' own
scan_parquet on the same files (the oracle), with pushdown on and off:

- a file polars writes (several row groups; ints, decimals, strings, dates,
  timestamps with and without a zone, booleans, floats, nulls) and the same
  rows written by DuckDB; every predicate form the source pushes down
  (comparisons either way round, is_in, is_null, is_not_null, is_between
  with each closure, str.starts_with, &, |, ~), forms it leaves to polars
  (arithmetic, float columns, casts, string functions), and mixes of both;
  each equal to polars' result, and pushdown_log() says what was pushed;
- projections and limits (head, with and without a filter);
- hive partitions (a directory polars wrote with partition_by), filters on
  the partition key;
- the streaming engine, collect_batches and sink_parquet;
- an encrypted file (decryption=);
- errors: a file cut short or removed after the scan was made reaches the
  caller as an exception under every engine (run in a child process, so
  that an abort would show as its exit status).
"""
import datetime
import decimal
import os
import subprocess
import sys
import tempfile

from read_oracle import CORPUS, SOURCE, pa, pq, pqstep  # noqa: F401

try:
    import polars as pl
except ImportError:
    print("SKIP: polars is not installed")
    sys.exit(77)
import pqstep.polars as pp  # noqa: E402

N = 20_000


def frame():
    rng = range(N)
    d0 = datetime.date(1992, 1, 1)
    t0 = datetime.datetime(2020, 1, 1)
    return pl.DataFrame({
        "id": list(rng),
        "k": [i % 7 for i in rng],
        "i32": pl.Series([None if i % 13 == 0 else (i * 37) % 1000 - 500 for i in rng], dtype=pl.Int32),
        "price": pl.Series([decimal.Decimal(i % 10_000) / 100 for i in rng], dtype=pl.Decimal(15, 2)),
        "s": [None if i % 11 == 0 else "s%03d" % ((i * 7) % 500) for i in rng],
        "mode": [["AIR", "MAIL", "SHIP", "TRUCK", "RAIL"][i % 5] for i in rng],
        "d": [d0 + datetime.timedelta(days=i // 8) for i in rng],
        "ts": pl.Series([t0 + datetime.timedelta(seconds=37 * i) for i in rng], dtype=pl.Datetime("us")),
        "tz": pl.Series([t0 + datetime.timedelta(minutes=i) for i in rng], dtype=pl.Datetime("ms", "UTC")),
        "flag": [i % 3 == 0 for i in rng],
        "x": [float("nan") if i % 97 == 0 else (i % 1000) / 8.0 for i in rng],
        "st": [None if i % 17 == 0 else {"a": None if i % 5 == 0 else i,
                                         "b": {"c": "c%d" % (i % 9), "d": d0 + datetime.timedelta(days=i)}}
               for i in rng],
        "tags": [[{"t": i % 4}] * (i % 3) for i in rng],
    })


D = datetime.date
T = datetime.datetime
col = pl.col

# (predicate, whether the source should push something)
PUSHED = [
    col("id") < 1234,
    col("id") >= 19_000,
    1234 > col("id"),
    col("id") == 77,
    col("id") != 77,
    (col("id") >= 500) & (col("id") < 900),
    col("k").is_in([1, 3]),
    ~col("k").is_in([1, 3]),
    col("k").is_in([]),
    col("i32").is_null(),
    col("i32").is_not_null() & (col("i32") > 400),
    col("i32") <= -490,
    col("price") >= decimal.Decimal("95.50"),
    col("price").is_between(decimal.Decimal("10"), decimal.Decimal("11")),
    col("s") == "s042",
    col("s").is_in(["s001", "s499", "nope"]),
    col("s") > "s480",
    col("s").is_null() | (col("s") < "s002"),
    col("mode").str.starts_with("TR"),
    col("d") >= D(1997, 6, 1),
    col("d").is_between(D(1993, 1, 1), D(1993, 2, 1), closed="left"),
    col("d").is_between(D(1993, 1, 1), D(1993, 2, 1), closed="right"),
    col("d").is_between(D(1993, 1, 1), D(1993, 2, 1), closed="none"),
    col("ts") < T(2020, 1, 2, 3, 4, 5, 678000),
    col("tz") >= T(2020, 1, 10, tzinfo=datetime.timezone.utc),
    col("flag") == True,  # noqa: E712
    ~((col("k") == 2) | (col("id") > 10_000)),
    (col("k") == 2) | col("i32").is_null(),
    # fields of structs, as paths (null where a parent is, in both)
    col("st").struct.field("a") > 12_500,
    col("st").struct.field("a").is_null(),
    col("st").struct.field("b").struct.field("c") == "c3",
    col("st").struct.field("b").struct.field("d") >= D(2010, 1, 1),
    col("st").struct.field("a").is_in([3, 4, 6, 7]),
    col("st").is_null(),
    (col("st").struct.field("a") < 100) | col("st").struct.field("b").struct.field("c").is_null(),
]
LEFT = [
    col("x") > 50.0,  # floats: polars orders NaN above every number
    (col("id") + 1) % 5 == 0,
    col("s").str.contains("4"),
    col("i32").cast(pl.Float64) > 1.5,
    col("tags").list.len() > 1,  # inside a list: not a path pqstep filters
]
MIXED = [
    (col("id") < 3000) & (col("x") > 10.0),
    (col("k") == 4) & col("s").str.ends_with("7"),
    (col("id") < 3000) | (col("x") > 120.0),
]


def assert_same(got, want, what):
    assert got.schema == want.schema, (what, got.schema, want.schema)
    assert got.equals(want), (what, got.head(3), want.head(3))


def check_predicates(path):
    pushed = 0
    for e in PUSHED + LEFT + MIXED:
        want = pl.scan_parquet(path).filter(e).collect()
        for pushdown in (True, False):
            got = pp.scan_parquet(path, pushdown=pushdown).filter(e).collect()
            assert_same(got, want, (str(e), pushdown))
            log = pp.pushdown_log()[-1]
            if not pushdown:
                assert log["pushed"] is None, log
                continue
            if any(e is p for p in PUSHED):
                assert log["pushed"] is not None, (str(e), log)
                pushed += 1
            elif any(e is p for p in LEFT):
                assert log["pushed"] is None and log["residual"] is not None, (str(e), log)
            else:  # MIXED: the pushable part, or nothing under an OR
                is_or = str(e).count("|") > 0
                assert (log["pushed"] is None) == is_or and log["residual"] is not None, (str(e), log)
    # the rows a pushed filter reads: fewer than the file's for a selective one
    pp.scan_parquet(path).filter(col("id") < 1000).collect()
    stats = pp.pushdown_log()[-1]["stats"]
    assert stats["row_groups_pruned"] > 0, stats
    return pushed


def check_projection_limit(path):
    want = pl.scan_parquet(path).select("s", "id").collect()
    assert_same(pp.scan_parquet(path).select("s", "id").collect(), want, "projection")
    assert pp.pushdown_log()[-1]["columns"] == ["id", "s"], pp.pushdown_log()[-1]
    for q in (lambda lf: lf.head(7), lambda lf: lf.filter(col("k") == 3).head(5),
              lambda lf: lf.filter(col("x") > 100.0).select("id").head(4), lambda lf: lf.head(0),
              lambda lf: lf.slice(100, 50), lambda lf: lf.head(5000), lambda lf: lf.select("s").head(4100)):
        assert_same(q(pp.scan_parquet(path)).collect(), q(pl.scan_parquet(path)).collect(), "limit")
    # the limit stops the scan: head(7) yields 7 rows
    pp.scan_parquet(path).head(7).collect()
    assert pp.pushdown_log()[-1]["rows"] == 7 and pp.pushdown_log()[-1]["n_rows"] == 7, pp.pushdown_log()[-1]
    # ... and with nothing to filter it is read as a row range (only the
    # first row groups decode); with a filter it cannot be
    assert pp.pushdown_log()[-1]["row_range"] == (0, 7), pp.pushdown_log()[-1]
    pp.scan_parquet(path).filter(col("k") == 3).head(5).collect()
    assert pp.pushdown_log()[-1]["row_range"] is None, pp.pushdown_log()[-1]


def check_engines(path):
    e = (col("id") < 5000) & (col("x") > 20.0)
    want = pl.scan_parquet(path).filter(e).collect()
    got = pp.scan_parquet(path, batch_size=1000).filter(e).collect(engine="streaming")
    assert_same(got, want, "streaming")
    rows = sum(b.height for b in pp.scan_parquet(path).filter(e).collect_batches())
    assert rows == want.height, (rows, want.height)
    with tempfile.TemporaryDirectory(prefix="pqstep-pl-") as tmp:
        out = os.path.join(tmp, "o.parquet")
        pp.scan_parquet(path).filter(e).sink_parquet(out)
        assert_same(pl.read_parquet(out), want, "sink")


def check_hive(tmp):
    df = frame()
    root = os.path.join(tmp, "hive")
    df.write_parquet(root, partition_by=["k"])
    lf_want = pl.scan_parquet(root, hive_partitioning=True)
    for e in (col("k") == 3, col("k").is_in([0, 6]) & (col("id") < 5000), col("id") > 19_990):
        want = lf_want.filter(e).sort("id").collect()
        got = pp.scan_parquet(root).filter(e).sort("id").collect()
        # pqstep infers hive keys as int32 (as pyarrow), polars as int64
        got = got.with_columns(col("k").cast(want.schema["k"]))
        assert_same(got.select(want.columns), want, ("hive", str(e)))
    pp.scan_parquet(root).filter(col("k") == 3).collect()
    stats = pp.pushdown_log()[-1]["stats"]
    # by the key in the path, or by the statistics of the key column that
    # polars also writes into each file
    assert stats["files_pruned_partition"] + stats["files_pruned_statistics"] == 6, stats


def check_decryption():
    path = os.path.join(CORPUS, "data", "uniform_encryption.parquet.encrypted")
    if not os.path.exists(path):
        print("decryption check skipped: %s is missing" % path)
        return
    dec = pqstep.Decryption(footer_key=b"0123456789012345")
    want = pl.from_arrow(pqstep.read_table(path, decryption=dec, strings="string_view", int96_unit="s"))
    want = want.filter(col("boolean_field"))
    got = pp.scan_parquet(path, decryption=dec, int96_unit="s").filter(col("boolean_field")).collect()
    assert pp.pushdown_log()[-1]["pushed"] == '"boolean_field" = true', pp.pushdown_log()[-1]
    assert_same(got, want, "encrypted")


CHILD = r"""
import sys, os
sys.path.insert(0, %(python)r)
import polars as pl, pqstep, pqstep.polars as pp
lf = pp.scan_parquet(%(path)r, batch_size=500)
%(break_it)s
for engine in ("in-memory", "streaming"):
    try:
        lf.filter(pl.col("id") > 10).collect(engine=engine)
        print("NO ERROR", engine)
    except pqstep.Error as e:
        print("pqstep.Error", engine, e)
    except Exception as e:
        print("other", engine, type(e).__name__, e)
"""


def check_errors(tmp, path):
    data = open(path, "rb").read()
    cases = {
        # the data pages overwritten after the footer was read: a decode error
        "garbled": "open(%r, 'r+b').write(b'\\xff' * %d)",
        # the file gone after the scan was made: the scan reopens it
        "removed": "os.remove(%r)",
    }
    for name, how in cases.items():
        p = os.path.join(tmp, name + ".parquet")
        open(p, "wb").write(data)
        break_it = how % ((p, len(data) // 2) if name == "garbled" else (p,))
        code = CHILD % {"python": os.path.join(SOURCE, "python"), "path": p, "break_it": break_it}
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, (name, r.returncode, r.stderr[-2000:])
        lines = r.stdout.splitlines()
        assert len(lines) == 2 and all(line.startswith("pqstep.Error") for line in lines), (name, r.stdout,
                                                                                            r.stderr[-1000:])


def main():
    print("polars", pl.__version__)
    with tempfile.TemporaryDirectory(prefix="pqstep-polars-") as tmp:
        df = frame()
        f_polars = os.path.join(tmp, "polars.parquet")
        df.write_parquet(f_polars, row_group_size=2000, statistics=True)
        files = [f_polars]
        try:
            import duckdb
            f_duck = os.path.join(tmp, "duckdb.parquet")
            con = duckdb.connect()
            con.register("df_view", df.to_arrow())
            con.execute("COPY (SELECT * FROM df_view) TO '%s' (FORMAT parquet, ROW_GROUP_SIZE 4096)" % f_duck)
            files.append(f_duck)
        except ImportError:
            print("DuckDB's file skipped: duckdb is not installed")
        pushed = 0
        for f in files:
            pushed += check_predicates(f)
            check_projection_limit(f)
        check_engines(f_polars)
        check_hive(tmp)
        check_decryption()
        check_errors(tmp, f_polars)
    print("polars source: %d pushed predicates, %d left to polars, %d mixed, on %d writers' files, equal to "
          "pl.scan_parquet with pushdown on and off" % (pushed, len(LEFT), len(MIXED), len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
