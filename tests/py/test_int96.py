#!/usr/bin/env python3
"""INT96 timestamps outside the nanosecond range (issue 36, case 4): files
pyarrow writes (tests/fixtures/gen_int96.py).

- By default (timestamp[ns]) a value before 1677-09-21 or after 2262-04-11
  fails the read naming column, row group, row and date, in Python and in
  the CLI alike, on the CPU and with the device executor's kernels
  ("host-kernels") alike; pyarrow wraps such values into wrong dates.
  A value in a row the read does not deliver (a row range, a filter) does
  not fail it.
- int96_unit "us", "ms", "s" give the true values: the oracles are the
  Python datetimes written (truncated to the unit) and DuckDB's read of the
  same file (microseconds); pyarrow's coerce_int96_timestamp_unit="us"
  checks what the file holds.
- Files whose values all fit nanoseconds read as pyarrow reads them, and
  so do the corpus's INT96 files.
- Filters compare INT96 columns as delivered, in int96_unit (on the CPU and
  with the predicate kernel on the host), against exact integer comparisons
  of pyarrow's read in that unit; the CLI's --where too.
"""
import datetime as dt
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import CORPUS, SOURCE, pa, pq, pqstep, same  # noqa: E402

import duckdb  # noqa: E402

sys.path.insert(0, os.path.join(SOURCE, "tests", "fixtures"))
import gen_int96  # noqa: E402

CLI = os.environ.get("PQSTEP_CLI")
UNITS = {"us": 1, "ms": 1000, "s": 1000000}  # microseconds a unit
RANGE_NS = "(1677-09-21 .. 2262-04-11)"


def truncated(v, unit):
    """Datetime v cut to `unit` (the start of the unit it falls in)."""
    if v is None:
        return None
    return v.replace(microsecond=v.microsecond - v.microsecond % UNITS[unit])


def expect_error(fn, needle):
    try:
        fn()
    except pqstep.Error as e:
        assert needle in str(e), "%r does not say %r" % (str(e), needle)
        assert e.code == "unsupported", e.code
        return str(e)
    raise AssertionError("no error (%s expected)" % needle)


def cli(*args):
    p = subprocess.run([CLI, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check_range_file(path):
    values = gen_int96.RANGE_VALUES
    # What the file holds: the true dates (pyarrow converts each one directly).
    raw = pq.read_table(path, coerce_int96_timestamp_unit="us").column("ts").to_pylist()
    assert raw == values, raw
    # pyarrow's default read wraps: 1500-01-01 comes out as another date.
    wrapped = pq.read_table(path).column("ts").cast(pa.int64()).to_pylist()
    assert wrapped[3] is not None and wrapped[3] != (values[3] - dt.datetime(1970, 1, 1)) // dt.timedelta(
        microseconds=1) * 1000, "pyarrow no longer wraps: %r" % wrapped[3]

    # Default: the first value outside the range, named (one thread: the
    # first row group's chunk is the one that fails).
    first = ("column 'ts' row group 0 row 3: INT96 timestamp 1500-01-01 00:00:00 is outside the range of "
             "timestamp[ns] %s; read it with int96_unit=us" % RANGE_NS)
    for device in ("cpu", "host-kernels"):
        expect_error(lambda: pqstep.read_table(path, threads=1, device=device), first)
        expect_error(lambda: pqstep.read_table(path, device=device), "outside the range of timestamp[ns]")
        with pqstep.Reader(path, device=device) as r:
            expect_error(lambda: r.read(row_groups=[1]), "column 'ts' row group 1 row 0: INT96 timestamp "
                         "1677-09-20 23:59:59.999999000 is outside")
            expect_error(lambda: r.read(row_groups=[1], row_offset=1), "column 'ts' row group 1 row 1: INT96 "
                         "timestamp 2262-04-12 00:00:00 is outside")
    expect_error(lambda: pqstep.read_table(path, row_groups=[3], filter="id = 12"),
                 "column 'ts' row group 3 row 0: INT96 timestamp 0001-12-31 23:59:59.000999000")
    rc, out, err = cli("cat", path)
    assert rc == 1 and first in err, (rc, err)
    rc, out, err = cli("cat", "--int96-unit", "ns", path)
    assert rc == 1 and first in err, (rc, err)

    # Rows the read does not deliver do not fail it; the edges of the range read.
    got = pqstep.read_table(path, row_limit=3)
    same(got, pq.read_table(path).slice(0, 3), "row_limit 3")
    got = pqstep.read_table(path, row_groups=[2], row_offset=1, row_limit=2)
    assert got.column("ts").type == pa.timestamp("ns")
    assert got.column("ts").to_pylist() == [pa.scalar(v, pa.timestamp("us")).cast(pa.timestamp("ns")).as_py()
                                            for v in values[9:11]]
    got = pqstep.read_table(path, filter="id < 3 or id = 10")
    assert got.column("id").to_pylist() == [0, 1, 2, 10]
    rc, out, err = cli("cat", "--limit", "3", path)
    assert rc == 0, err

    # Coarser units: the true values, in Python, with the kernels, and in the CLI.
    con = duckdb.connect()
    duck = con.sql("SELECT ts FROM read_parquet('%s') ORDER BY id" % path).to_arrow_table().column("ts")
    assert duck.type == pa.timestamp("us") and duck.to_pylist() == values, duck
    for unit in UNITS:
        want = [truncated(v, unit) for v in values]
        for device in ("cpu", "host-kernels"):
            for threads in (1, None):
                t = pqstep.read_table(path, int96_unit=unit, device=device, threads=threads)
                assert t.schema.field("ts").type == pa.timestamp(unit), t.schema
                assert t.column("ts").to_pylist() == want, (unit, device, t.column("ts").to_pylist())
        with pqstep.Reader(path, int96_unit=unit) as r:
            assert r.read(row_groups=[3]).column("ts").to_pylist() == want[12:]
            assert r.read_schema().field("ts").type == pa.timestamp(unit) if hasattr(r, "read_schema") else True
        if unit == "us":  # DuckDB reads microseconds: equal as arrays
            got = pqstep.read_table(path, int96_unit="us").column("ts").combine_chunks()
            assert got.equals(duck.combine_chunks()), "int96_unit=us differs from DuckDB"
        rc, out, err = cli("cat", "--int96-unit", unit, "--format", "csv", path)
        assert rc == 0, err
        lines = out.splitlines()[1:]
        assert len(lines) == len(values), out
        for line, v in zip(lines, want):
            text = line.split(",", 1)[1]
            if v is None:
                assert text == "", line
                continue
            digits = {"us": 6, "ms": 3, "s": 0}[unit]
            iso = "%04d-%s" % (v.year, v.strftime("%m-%dT%H:%M:%S"))
            if digits:
                iso += ".%s" % ("%06d" % v.microsecond)[:digits]
            assert text == iso, (unit, line, iso)
    # An unknown unit
    for bad in ("ps", "US", 2):
        try:
            pqstep.read_table(path, int96_unit=bad)
        except ValueError as e:
            assert "int96_unit" in str(e), e
        else:
            raise AssertionError("int96_unit=%r accepted" % (bad,))
    rc, out, err = cli("cat", "--int96-unit", "ps", path)
    assert rc == 2 and "--int96-unit is ns, us, ms or s, not 'ps'" in err, (rc, err)


def check_nested_file(path):
    values = gen_int96.NESTED_VALUES
    expect_error(lambda: pqstep.read_table(path), "column 'tss.list.element' value 3: INT96 timestamp "
                 "1400-07-01 00:00:00 is outside the range of timestamp[ns]")
    for unit in UNITS:
        t = pqstep.read_table(path, int96_unit=unit)
        assert t.schema.field("tss").type == pa.list_(pa.field("element", pa.timestamp(unit))), t.schema
        want = [None if row is None else [truncated(v, unit) for v in row] for row in values]
        assert t.column("tss").to_pylist() == want, (unit, t.column("tss").to_pylist())
        same(t, pq.read_table(path, coerce_int96_timestamp_unit=unit), "nested int96_unit=%s" % unit)
    rc, out, err = cli("cat", "--int96-unit", "us", "--format", "jsonl", path)
    assert rc == 0 and '"1400-07-01T00:00:00.000000"' in out, (rc, out, err)


def check_in_range_file(path):
    want = pq.read_table(path)
    for device in ("cpu", "host-kernels"):
        for threads in (1, None):
            same(pqstep.read_table(path, device=device, threads=threads), want, "in range, %s" % device)
        same(pqstep.read_table(path, device=device, device_output=True), want, "in range, device_output")
    same(pqstep.read_table(path, row_offset=1234, row_limit=2000), want.slice(1234, 2000), "in range, row range")
    same(pqstep.read_table(path, filter="id >= 4990"), want.slice(4990), "in range, filter")
    for unit in UNITS:
        same(pqstep.read_table(path, int96_unit=unit), pq.read_table(path, coerce_int96_timestamp_unit=unit),
             "in range, int96_unit=%s" % unit)


def check_spark_file(path):
    """int96_from_spark.parquet (Spark 3): four 2024 instants, 9999-12-31
    03:00 (row 2), a null and a Julian day of 4,294,967,xxx (row 5: read
    unsigned, as pyarrow and DuckDB read it, year 11464668), which only
    milliseconds and seconds hold."""
    expect_error(lambda: pqstep.read_table(path), "column 'a' row group 0 row 2: INT96 timestamp 9999-12-31 "
                 "03:00:00 is outside the range of timestamp[ns] %s; read it with int96_unit=us" % RANGE_NS)
    expect_error(lambda: pqstep.read_table(path, int96_unit="us"), "column 'a' row group 0 row 5: INT96 "
                 "timestamp 11464668-01-02 14:58:10.448384000 is outside the range of timestamp[us] "
                 "(-290308-12-21 .. 294247-01-10); read it with int96_unit=ms")
    rc, out, err = cli("cat", "--int96-unit", "us", path)
    assert rc == 1 and "row group 0 row 5: INT96 timestamp 11464668-01-02" in err, (rc, err)
    # The in-range rows as pyarrow reads them; rows 0..4 in microseconds as
    # pyarrow (whose microseconds wrap row 5; DuckDB refuses it) reads them.
    same(pqstep.read_table(path, row_limit=2), pq.read_table(path).slice(0, 2), "spark ns rows 0..1")
    us = pqstep.read_table(path, int96_unit="us", row_limit=5)
    same(us, pq.read_table(path, coerce_int96_timestamp_unit="us").slice(0, 5), "spark us rows 0..4")
    # Row 5's nanoseconds of the day are negative as an int64: read signed,
    # as DuckDB reads them (pyarrow's coercion reads them unsigned, 2**64 ns
    # later), and cut toward negative infinity, so that seconds are the
    # milliseconds' floor; well-formed values do not differ.
    for unit in ("ms", "s"):
        same(pqstep.read_table(path, int96_unit=unit, row_limit=5),
             pq.read_table(path, coerce_int96_timestamp_unit=unit).slice(0, 5), "spark " + unit)
    ms, s = (pqstep.read_table(path, int96_unit=u).column("a").cast(pa.int64())[5].as_py() for u in ("ms", "s"))
    assert ms > 0 and s == ms // 1000, (ms, s)
    # Filters in those units: the rows of the values read (checked above)
    for unit in ("ms", "s"):
        whole = pqstep.read_table(path, int96_unit=unit)
        at = ns_of("2024-01-15 12:00:00.5") // NS[unit] + 1  # the first tick after the literal
        for text, keep in (("a > '2024-01-15 12:00:00.5'", lambda v: v is not None and v >= at),
                           ("a <= '9999-12-31 03:00:00' or a is null", lambda v: v is None or v <= ns_of(
                               "9999-12-31 03:00:00") // NS[unit])):
            mask = [keep(v) for v in whole.column("a").cast(pa.int64()).to_pylist()]
            same(pqstep.read_table(path, int96_unit=unit, filter=text), whole.filter(pa.array(mask)),
                 "spark %s where %s" % (unit, text))


NS = {"ns": 1, "us": 1000, "ms": 1000000, "s": 1000000000}  # nanoseconds a unit
EPOCH = dt.datetime(1970, 1, 1)


def ns_of(text):
    """A filter literal 'YYYY-MM-DD[ HH:MM:SS[.fraction]]' as nanoseconds since 1970 (exact)."""
    day, _, clock = text.partition(" ")
    whole, _, frac = clock.partition(".")
    d = dt.datetime.strptime(day + " " + (whole or "00:00:00"), "%Y-%m-%d %H:%M:%S")
    return (d - EPOCH) // dt.timedelta(microseconds=1) * 1000 + int((frac + "000000000")[:9])


def holds(op, a, b):
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "=": a == b, "!=": a != b}[op]


def check_filters(path, units, column="ts", also=()):
    """Filters on an INT96 column: its values compared as the reader
    delivers them (a timestamp of int96_unit: in a coarser unit the start of
    the unit), against pyarrow's read in that unit filtered by exact integer
    comparisons; pruning on and off; nothing about the chunk prunes INT96,
    so the same row groups are read either way."""
    cases = [(op, lit) for op in ("<", "<=", ">", ">=", "=", "!=")
             for lit in ("2000-02-29 12:34:56.789012", "1800-06-01 12:00:00.123456789", "2262-04-11")]
    cases += [(op, lit) for op, lit in also]
    checked = 0
    for unit in units:
        want = pq.read_table(path, coerce_int96_timestamp_unit=unit)
        ticks = want.column(column).cast(pa.int64()).to_pylist()
        cols = {column: [None if t is None else t * NS[unit] for t in ticks]}
        for op, lit in cases:
            mask = [v is not None and holds(op, v, ns_of(lit)) for v in cols[column]]
            text = "%s %s '%s'" % (column, op, lit)
            for prune in (True, False):
                got = pqstep.read_table(path, filter=text, int96_unit=unit, prune=prune)
                same(got, want.filter(pa.array(mask)), "%s, int96_unit=%s, prune=%s" % (text, unit, prune))
            # the device executor's predicate kernel, run on the host
            got = pqstep.read_table(path, filter=text, int96_unit=unit, device="host-kernels")
            same(got, want.filter(pa.array(mask)), "%s, int96_unit=%s, kernels" % (text, unit))
            checked += 1
        # between, in, is null, not, combined with another column
        a, b = "1900-01-01", "2100-12-31 23:59:59.999999999"
        lo, hi = ns_of(a), ns_of(b)
        forms = [("%s between '%s' and '%s'" % (column, a, b), lambda v, i: v is not None and lo <= v <= hi),
                 ("%s is null or id < 3" % column, lambda v, i: v is None or i < 3),
                 ("not (%s > '%s')" % (column, a), lambda v, i: v is not None and not v > lo),
                 ("%s in ('%s', '1970-01-01')" % (column, a), lambda v, i: v in (lo, 0))]
        ids = want.column("id").to_pylist()
        for text, keep in forms:
            mask = [bool(keep(v, i)) for v, i in zip(cols[column], ids)]
            same(pqstep.read_table(path, filter=text, int96_unit=unit), want.filter(pa.array(mask)),
                 "%s, int96_unit=%s" % (text, unit))
            checked += 1
    return checked


def check_corpus():
    """The corpus's other INT96 files read as pyarrow reads them (their
    values fit nanoseconds), by default and in microseconds."""
    checked = 0
    for name in sorted(os.listdir(os.path.join(CORPUS, "data"))):
        path = os.path.join(CORPUS, "data", name)
        if not name.endswith(".parquet"):
            continue
        if name == "int96_from_spark.parquet":
            check_spark_file(path)
            checked += 1
            continue
        try:
            schema = pq.ParquetFile(path).schema
        except Exception:
            continue
        if not any(schema.column(i).physical_type == "INT96" for i in range(len(schema))):
            continue
        try:
            want = pq.read_table(path)
        except Exception:
            continue
        same(pqstep.read_table(path), want, name)
        same(pqstep.read_table(path, int96_unit="us"), pq.read_table(path, coerce_int96_timestamp_unit="us"),
             name + " us")
        checked += 1
    assert checked >= 1, "no INT96 file in the corpus"
    return checked


def main():
    with tempfile.TemporaryDirectory(prefix="pqstep-int96-") as tmp:
        subprocess.check_call([sys.executable, os.path.join(SOURCE, "tests", "fixtures", "gen_int96.py"), tmp])
        check_range_file(os.path.join(tmp, "int96_range.parquet"))
        check_nested_file(os.path.join(tmp, "int96_nested.parquet"))
        check_in_range_file(os.path.join(tmp, "int96_in_range.parquet"))
        filters = check_filters(os.path.join(tmp, "int96_range.parquet"), ("us", "ms", "s"))
        filters += check_filters(os.path.join(tmp, "int96_in_range.parquet"), ("ns", "us", "s"))
        filters += check_filters(os.path.join(tmp, "int96_in_range.parquet"), ("ns", "ms"), column="day",
                                 also=[("=", "1975-01-01"), ("!=", "2001-12-31")])
        # the CLI takes the unit for its filter too
        rc, out, err = cli("cat", "--int96-unit", "us", "--where", "ts >= '2262-04-11'", "--format", "csv",
                           os.path.join(tmp, "int96_range.parquet"))
        assert rc == 0, err
        assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["5", "7", "10"], out
    n = check_corpus()
    print("INT96: out-of-range values fail by default (Python, CLI, kernels), int96_unit us/ms/s give the true "
          "values (DuckDB, the datetimes written), in-range files and %d corpus files equal pyarrow; %d filters "
          "on INT96 columns equal pyarrow's rows" % (n, filters))
    return 0


if __name__ == "__main__":
    sys.exit(main())
