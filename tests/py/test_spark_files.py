#!/usr/bin/env python3
"""Files parquet-java writes through Spark 4, each way it writes them
(tests/fixtures/gen_spark.py, committed in tests/fixtures/spark/): data
page v1 with dictionaries and INT96 timestamps; DATA_PAGE_V2 whose
dictionaries fall back to DELTA_BINARY_PACKED and DELTA_BYTE_ARRAY; v2
without dictionaries, with bloom filters.

Oracles: Spark's own reading (manifest.json: its row count, the rows each
filter keeps, to_json of every 250th row), pyarrow's reading (every value),
and each filter evaluated in Python on pyarrow's rows (which rows). Checked
whole, by row group, in batches, filtered with pruning on and off and with
the device executor's kernels on the host, and the bloom filters pruning.
"""
import base64
import datetime as dt
import decimal
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import SOURCE, pa, pq, pqstep, same  # noqa: E402

HERE = os.path.join(SOURCE, "tests", "fixtures", "spark")
UTC = dt.timezone.utc
D = decimal.Decimal


def at(text):
    return dt.datetime.fromisoformat(text)


# Each filter of gen_spark.FILTERS on a row of pyarrow's values (SQL: a
# comparison with null is unknown, kept only when the whole is true).
def lt(a, b):
    return None if a is None else a < b


def ge(a, b):
    return None if a is None else a >= b


def and_(*xs):
    return False if any(x is False for x in xs) else (None if any(x is None for x in xs) else True)


def or_(*xs):
    return True if any(x is True for x in xs) else (None if any(x is None for x in xs) else False)


def ts_of(r):
    v = r["ts"]
    return None if v is None else (v if v.tzinfo else v.replace(tzinfo=UTC))


ROW_FILTERS = {
    "s_hi >= 's3' and s_hi < 's4'": lambda r: and_(ge(r["s_hi"], "s3"), lt(r["s_hi"], "s4")),
    "l < -40000 or s_lo = 'cat3'": lambda r: or_(lt(r["l"], -40000), None if r["s_lo"] is None else r["s_lo"] == "cat3"),
    "dec18 > 500000.5 and b": lambda r: and_(None if r["dec18"] is None else r["dec18"] > D("500000.5"), r["b"]),
    "dec30 between 1000000 and 2000000": lambda r: and_(ge(r["dec30"], D(1000000)),
                                                        None if r["dec30"] is None else r["dec30"] <= D(2000000)),
    "dt >= '2010-01-01' and i < 100": lambda r: and_(ge(r["dt"], dt.date(2010, 1, 1)), lt(r["i"], 100)),
    "ts >= '2020-09-14 00:00:00' and ts < '2020-09-15 12:30:00.5'":
        lambda r: and_(ge(ts_of(r), at("2020-09-14T00:00:00+00:00")), lt(ts_of(r), at("2020-09-15T12:30:00.5+00:00"))),
    "tsntz < '2020-09-13 20:00:00'": lambda r: lt(r["tsntz"], at("2020-09-13T20:00:00")),
    "i8 = 5 or i16 > 5990": lambda r: or_(None if r["i8"] is None else r["i8"] == 5,
                                          None if r["i16"] is None else r["i16"] > 5990),
    "s_hi in ('s31', 's62', 'nope') or s_lo is null":
        lambda r: or_(None if r["s_hi"] is None else r["s_hi"] in ("s31", "s62", "nope"), r["s_lo"] is None),
    "f > 10 and d < 1000": lambda r: and_(None if r["f"] is None else r["f"] > 10, lt(r["d"], 1000)),
    "st.b is null": lambda r: r["st"] is None or r["st"]["b"] is None,
    "arr is null": lambda r: r["arr"] is None,
}


def spark_json(name, value, got):
    """Whether pqstep's value `got` is the value Spark rendered as JSON."""
    if value is None:
        return got is None
    if name in ("dec9", "dec18", "dec30"):
        return D(repr(value)) == got
    if name in ("d", "f"):
        return abs(value - got) <= abs(got) * 1e-6
    if name == "dt":
        return value == got.isoformat()
    if name == "ts":
        g = got if got.tzinfo else got.replace(tzinfo=UTC)
        return at(value.replace("Z", "+00:00")) == g
    if name == "tsntz":
        return at(value) == got
    if name == "bin":
        return base64.b64decode(value) == got
    if name == "m":
        return value == dict(got)
    if name == "st":  # Spark's JSON leaves null fields out
        return value == {k: v for k, v in got.items() if v is not None}
    return value == got


def check_file(name, spec):
    path = os.path.join(HERE, name)
    want = pq.read_table(path)
    got = pqstep.read_table(path)
    same(got, want, name)
    assert got.num_rows == spec["rows"], (name, got.num_rows, spec["rows"])
    rows = got.to_pylist()
    # Spark's own reading of the sampled rows
    for rid, values in spec["rows_json"].items():
        row = rows[int(rid)]
        assert row["id"] == int(rid)
        for col, value in values.items():
            assert spark_json(col, value, row[col]), "%s row %s %s: Spark %r, pqstep %r" % (name, rid, col, value,
                                                                                         row[col])
        for col in row:  # Spark's JSON leaves nulls out
            if col not in values:
                assert row[col] is None, (name, rid, col, row[col])
    with pqstep.Reader(path) as r:
        parts = [r.read(row_groups=[g]) for g in range(r.num_row_groups)]
        same(pa.concat_tables(parts), want, name + " by row group")
        same(pa.Table.from_batches(list(r.iter_batches(batch_size=1000))), want, name + " batches")
    # filters: Spark's counts, the rows Python's evaluation keeps
    for text, count in spec["filter_counts"].items():
        keep = [ROW_FILTERS[text](r) is True for r in rows]
        assert sum(keep) == count, "%s where %s: Python keeps %d, Spark %d" % (name, text, sum(keep), count)
        expect = want.filter(pa.array(keep))
        for kw in ({}, {"prune": False}, {"device": "host-kernels"}):
            same(pqstep.read_table(path, filter=text, **kw), expect, "%s where %s %r" % (name, text, kw))
    return len(spec["filter_counts"])


def check_bloom(path):
    """Bloom filters on s_hi and l: a value no row holds prunes every row
    group; one that a row holds keeps it."""
    t = pq.read_table(path, columns=["s_hi", "l"])
    present = t.column("s_hi")[1].as_py()
    held = set(t.column("l").to_pylist())
    absent = next(v for v in range(-100, 100) if v not in held)  # inside every row group's min and max
    with pqstep.Reader(path) as r:
        assert r.read(filter="s_hi = 's5x' or l = %d" % absent).num_rows == 0
        st = r.stage_stats("select")
        assert st["pruned_bloom_filter"] == r.num_row_groups, st
    with pqstep.Reader(path) as r:
        n = r.read(filter="s_hi = '%s'" % present).num_rows
        assert n == t.column("s_hi").to_pylist().count(present), n
        assert r.stage_stats("select")["pruned_bloom_filter"] < r.num_row_groups


def main():
    with open(os.path.join(HERE, "manifest.json")) as f:
        manifest = json.load(f)
    encodings = set()
    filters = 0
    for name, spec in sorted(manifest["files"].items()):
        md = pq.ParquetFile(os.path.join(HERE, name)).metadata
        for g in range(md.num_row_groups):
            for c in range(md.num_columns):
                encodings |= set(md.row_group(g).column(c).encodings)
        filters += check_file(name, spec)
    for needed in ("DELTA_BYTE_ARRAY", "DELTA_BINARY_PACKED", "PLAIN_DICTIONARY", "RLE_DICTIONARY"):
        assert needed in encodings, (needed, encodings)
    check_bloom(os.path.join(HERE, "v2_gzip_nodict.parquet"))
    print("%s: %d files equal to Spark's and pyarrow's readings; %d filters (%s) with Spark's counts and "
          "Python's rows; bloom filters prune" % (manifest["writer"], len(manifest["files"]), filters,
                                                 ", ".join(sorted(encodings))))


if __name__ == "__main__":
    main()
