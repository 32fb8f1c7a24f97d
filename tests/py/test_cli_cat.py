#!/usr/bin/env python3
"""test_cli_cat.py — `pqstep cat` against pyarrow.

The oracle: pyarrow.parquet reads the same file, and the value formatting
rules of docs/cli.md (section `cat`) are implemented here again, in Python,
over pyarrow scalars (shortest %g floats, exact decimals from the unscaled
integer, dates through datetime, timestamps with floor divmod, hex binary,
nested values as compact JSON). Every output format is compared text for
text with what the rules give, and read back: csv with the csv module,
jsonl with json.

Files: small files written here with pyarrow (every type the reader
produces, nulls, nested lists/structs/maps, several row groups), written
without the ARROW:schema so pyarrow types them from the Parquet schema as
pqstep does; and the corpus data/ files pyarrow reads (its table cast to
the types the Parquet schema alone gives). Also --columns, --row-groups,
--limit, and the exit statuses of bad command lines and unreadable files.

Environment (set by ctest): PQSTEP_CLI, PQSTEP_TEST_CORPUS or
PQSTEP_DEFAULT_CORPUS. Exit 0 pass, 1 fail, 77 skip.
"""
import csv
import datetime
import decimal
import glob
import io
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

SKIP = 77
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

CLI = os.environ.get("PQSTEP_CLI")
CORPUS = os.environ.get("PQSTEP_TEST_CORPUS") or os.environ.get("PQSTEP_DEFAULT_CORPUS")
TABLE_BLOCK_ROWS = 1000
CORPUS_MAX_ROWS = 20000  # keep the run short on a shared machine


def run(*args):
    p = subprocess.run([CLI, "cat"] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


# ---------------------------------------------------------------------------
# The rules of docs/cli.md, written again from the text
# ---------------------------------------------------------------------------

def f32(x):
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def f16(x):
    with np.errstate(over="ignore"):
        return np.float16(x).view(np.uint16)


def shortest(v, maxp, back):
    """Fewest digits p whose %.{p}g reads back; plain notation for
    exponents 0..15."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    for p in range(1, maxp + 1):
        s = "%.*g" % (p, v)
        if back(float(s)) == back(v):
            break
    m = re.search(r"e([+-]\d+)$", s)
    if m and 0 <= int(m.group(1)) < 16:
        s = "%.*g" % (int(m.group(1)) + 1, v)
    return s


def float_text(t, v):
    if pa.types.is_float16(t):
        return shortest(v, 5, f16)
    if pa.types.is_float32(t):
        return shortest(v, 9, f32)
    return shortest(v, 17, lambda x: x)


def decimal_text(t, d):
    sign, digits, exp = d.as_tuple()
    u = int("".join(map(str, digits)) or "0")
    shift = exp + t.scale
    u = u * 10 ** shift if shift >= 0 else u // 10 ** (-shift)
    s = str(u)
    if t.scale > 0:
        s = s.rjust(t.scale + 1, "0")
        s = s[:-t.scale] + "." + s[-t.scale:]
    return ("-" if sign and u else "") + s


def unit_of(t):
    return {"s": (1, 0), "ms": (1000, 3), "us": (10 ** 6, 6), "ns": (10 ** 9, 9)}[t.unit]


def clock(secs, frac, digits):
    s = "%02d:%02d:%02d" % (secs // 3600, secs // 60 % 60, secs % 60)
    return s + ("." + str(frac).rjust(digits, "0") if digits else "")


def date_text(days):
    return (datetime.date(1970, 1, 1) + datetime.timedelta(days=days)).isoformat()


def json_str(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif o < 0x20 or o == 0x7F:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def scalar_text(t, sc):
    """Plain text of a valid scalar that is not nested."""
    if pa.types.is_boolean(t):
        return "true" if sc.as_py() else "false"
    if pa.types.is_integer(t):
        return str(sc.as_py())
    if pa.types.is_floating(t):
        return float_text(t, sc.as_py())
    if pa.types.is_decimal(t):
        return decimal_text(t, sc.as_py())
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return sc.as_py()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return sc.as_py().hex()
    if pa.types.is_date32(t):
        return date_text(sc.value)
    if pa.types.is_date64(t):
        return date_text(sc.value // 86400000)
    if pa.types.is_time(t):
        per, digits = unit_of(t)
        return clock(sc.value // per, sc.value % per, digits)
    if pa.types.is_timestamp(t):
        per, digits = unit_of(t)
        secs, frac = divmod(sc.value, per)
        days, sod = divmod(secs, 86400)
        return date_text(days) + "T" + clock(sod, frac, digits) + ("Z" if t.tz else "")
    raise TypeError("no rule for %s" % t)


def is_nested(t):
    return pa.types.is_struct(t) or pa.types.is_list(t) or pa.types.is_large_list(t) or \
        pa.types.is_fixed_size_list(t) or pa.types.is_map(t)


def json_text(t, sc):
    if sc is None or not sc.is_valid or pa.types.is_null(t):
        return "null"
    if pa.types.is_struct(t):
        return "{" + ",".join(json_str(t.field(k).name) + ":" + json_text(t.field(k).type, sc[k])
                              for k in range(t.num_fields)) + "}"
    if pa.types.is_map(t):
        items = sc.values
        return "[" + ",".join(
            "null" if not e.is_valid else
            '{"key":' + json_text(t.key_type, e[0]) + ',"value":' + json_text(t.item_type, e[1]) + "}"
            for e in items) + "]"
    if is_nested(t):
        return "[" + ",".join(json_text(t.value_type, e) for e in sc.values) + "]"
    text = scalar_text(t, sc)
    if pa.types.is_boolean(t) or pa.types.is_integer(t):
        return text
    if pa.types.is_floating(t):
        return text if text not in ("nan", "inf", "-inf") else '"%s"' % text
    return json_str(text)


def plain_text(t, sc):
    """None for null; nested values as JSON."""
    if not sc.is_valid or pa.types.is_null(t):
        return None
    if is_nested(t):
        return json_text(t, sc)
    return scalar_text(t, sc)


def is_numeric(t):
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)


def human(s):
    """docs/cli.md "Untrusted bytes", text output (valid UTF-8 in)."""
    return "".join("\\x%02x" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7F else c for c in s)


def expected_outputs(table):
    """(table text, csv text, jsonl text, rows of plain values) for a pyarrow table."""
    fields = list(table.schema)
    cols = [c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for c in table.columns]
    rows = []
    for i in range(table.num_rows):
        rows.append([(f.type, cols[k][i]) for k, f in enumerate(fields)])

    plain_rows = [[plain_text(t, sc) for t, sc in r] for r in rows]

    # table
    names = [human(f.name) for f in fields]
    align = ["r" if is_numeric(f.type) else "l" for f in fields]
    lines = []
    blocks = [plain_rows[i:i + TABLE_BLOCK_ROWS] for i in range(0, len(plain_rows), TABLE_BLOCK_ROWS)]
    if not blocks:
        blocks = [[]]
    for b, block in enumerate(blocks):
        cells = [[human("null" if v is None else v) for v in r] for r in block]
        if b == 0:
            cells.insert(0, names)
        if not fields:
            continue
        width = [max(len(r[k]) for r in cells) for k in range(len(fields))]
        for r in cells:
            parts = []
            for k, c in enumerate(r):
                if align[k] == "r":
                    parts.append(c.rjust(width[k]))
                elif k + 1 < len(r):
                    parts.append(c.ljust(width[k]))
                else:
                    parts.append(c)
            lines.append("  ".join(parts).rstrip())
    table_text = "".join(line + "\n" for line in lines)

    # csv
    def q(v):
        if v is None:
            return ""
        if v == "" or any(ch in v for ch in ',"\r\n'):
            return '"' + v.replace('"', '""') + '"'
        return v
    csv_text = ",".join(q(f.name) for f in fields) + "\n"
    csv_text += "".join(",".join(q(v) for v in r) + "\n" for r in plain_rows)

    # jsonl
    jsonl_text = "".join(
        "{" + ",".join(json_str(f.name) + ":" + json_text(t, sc) for f, (t, sc) in zip(fields, r)) + "}\n"
        for r in rows)
    return table_text, csv_text, jsonl_text, plain_rows


def check_output(path, table, extra=(), what=None):
    what = what or "%s %s" % (os.path.basename(path), " ".join(map(str, extra)))
    table_text, csv_text, jsonl_text, plain_rows = expected_outputs(table)
    fields = [f.name for f in table.schema]

    rc, out, err = run(path, *extra)
    assert rc == 0, "%s: exit %d: %s" % (what, rc, err)
    got = "".join(line.rstrip() + "\n" for line in out.decode("utf-8").splitlines())
    if got != table_text:
        diff_lines(what + " --format table", got, table_text)

    rc, out, err = run(path, "--format", "csv", *extra)
    assert rc == 0, "%s csv: exit %d: %s" % (what, rc, err)
    text = out.decode("utf-8")
    if text != csv_text:
        diff_lines(what + " --format csv", text, csv_text)
    parsed = list(csv.reader(io.StringIO(text, newline="")))
    assert parsed[0] == fields, (what, parsed[0], fields)
    want = [["" if v is None else v for v in r] for r in plain_rows]
    # One column: a null row is an empty line, which the csv module reads as [].
    got_rows = [r if r or len(fields) != 1 else [""] for r in parsed[1:]]
    assert got_rows == want, "%s: csv reads back differently" % what

    rc, out, err = run(path, "--format", "jsonl", *extra)
    assert rc == 0, "%s jsonl: exit %d: %s" % (what, rc, err)
    text = out.decode("utf-8")
    if text != jsonl_text:
        diff_lines(what + " --format jsonl", text, jsonl_text)
    objs = [json.loads(line) for line in text.splitlines()]
    assert len(objs) == table.num_rows, (what, len(objs), table.num_rows)
    for o in objs:
        assert list(o.keys()) == fields or len(set(fields)) != len(fields), (what, list(o.keys()))


def diff_lines(what, got, want):
    g, w = got.splitlines(), want.splitlines()
    for i in range(max(len(g), len(w))):
        a = g[i] if i < len(g) else "<missing>"
        b = w[i] if i < len(w) else "<missing>"
        if a != b:
            raise AssertionError("%s: line %d:\n  pqstep: %r\n  oracle: %r" % (what, i + 1, a, b))
    raise AssertionError("%s: output differs" % what)


# ---------------------------------------------------------------------------
# Generated files
# ---------------------------------------------------------------------------

def write(table, path, **kw):
    # No ARROW:schema: pyarrow then types the columns from the Parquet schema, as pqstep does.
    pq.write_table(table, path, store_schema=False, **kw)
    return path


def types_table():
    D = decimal.Decimal
    n = 9
    def col(vals, t):
        vals = list(vals) + [None] * (n - len(vals))
        return pa.array(vals[:n], t)
    utc = datetime.timezone.utc
    return pa.table({
        "b": col([True, False, None, True], pa.bool_()),
        "i8": col([-128, 127, 0, None, -1], pa.int8()),
        "i16": col([-32768, 32767, 0, None], pa.int16()),
        "i32": col([-2 ** 31, 2 ** 31 - 1, 0, None, 42], pa.int32()),
        "i64": col([-2 ** 63, 2 ** 63 - 1, 0, None, 2 ** 53 + 1], pa.int64()),
        "u8": col([255, 0, None], pa.uint8()),
        "u16": col([65535, 0, None], pa.uint16()),
        "u32": col([2 ** 32 - 1, 0, None], pa.uint32()),
        "u64": col([2 ** 64 - 1, 0, None, 2 ** 63], pa.uint64()),
        "f16": col([np.float16(0.1), np.float16(65504), np.float16(-0.0), np.float16("nan"),
                    np.float16("inf"), np.float16(6e-8), None, np.float16(1000), np.float16(-2.5)],
                   pa.float16()),
        "f32": col([0.1, 3.4028234663852886e38, 1e-45, float("nan"), float("-inf"), 16777216.0, None,
                    1e16, 123.456], pa.float32()),
        "f64": col([0.1, 1e16, 1e15, 123456789.125, 5e-324, -0.0, float("nan"), None, 1.5e-5],
                   pa.float64()),
        "f64b": col([0.0001, 1.7976931348623157e308, float("inf"), 2.0 / 3, -1e-300, 100.0,
                     9007199254740993.0, 1e22, None], pa.float64()),
        "dec": col([D("-0.05"), D("12345678.90"), D("0.00"), D("-99999999.99"), None, D("1.00")],
                   pa.decimal128(10, 2)),
        "dec0": col([D("-12345"), D("0"), None, D("99999")], pa.decimal128(5, 0)),
        "dec18": col([D("-1.234567890123456789"), D("0.000000000000000001"), None],
                     pa.decimal128(19, 18)),
        "dec38": col([D("-" + "9" * 28 + "." + "9" * 10), D("1" + "0" * 27 + ".5"), None],
                     pa.decimal128(38, 10)),
        "dec256": col([D("-" + "1234567890" * 5 + ".0123456789"), D("0.0000000001"),
                       D("9" * 66 + "." + "9" * 10), None, D("-0.5")], pa.decimal256(76, 10)),
        "d32": col([0, -1, -719162, 2932896, 19000, None, 11016], pa.date32()),
        "t32s": col([0, 86399, None, 3661], pa.time32("s")),
        "t32ms": col([0, 86399999, None, 1], pa.time32("ms")),
        "t64us": col([0, 86399999999, None, 1], pa.time64("us")),
        "t64ns": col([0, 86399999999999, None, 1], pa.time64("ns")),
        "ts_ms": col([0, -1, -86400001, 1609459200123, None, 253402300799999], pa.timestamp("ms")),
        "ts_us": col([0, -1, 1609459200000000, None, -62135596800000000], pa.timestamp("us", utc)),
        "ts_ns": col([0, -1, 1, None, 1609459200123456789, -999999999], pa.timestamp("ns", "UTC")),
        "ts_ny": col([0, 1609459200000], pa.timestamp("ms", "America/New_York")),
        "s": col(["plain", "", None, "comma, here", 'quote " here', "new\nline", "tab\there",
                  "ünïcødé ☃ 𝄞", "back\\slash"], pa.string()),
        "bin": col([b"\x00\xff\x10", b"", None, b"abc"], pa.binary()),
        "fsb": col([b"\x00\x01\x02", None, b"\xff\xfe\xfd"], pa.binary(3)),
    })


def nested_table():
    struct_t = pa.struct([("x", pa.int32()), ("y", pa.string()),
                          ("z", pa.struct([("w", pa.float64())]))])
    elem_t = pa.struct([("a", pa.int32()), ("b", pa.list_(pa.int16()))])
    return pa.table({
        "id": pa.array(range(7), pa.int64()),
        "l": pa.array([[1, None, 3], [], None, [4], [2 ** 31 - 1], [-1, -2], None], pa.list_(pa.int32())),
        "ls": pa.array([["a", "b,c"], None, [], ['q"uote'], [None], ["x"], ["é"]], pa.list_(pa.string())),
        "st": pa.array([{"x": 1, "y": "one", "z": {"w": 0.5}}, None, {"x": None, "y": None, "z": None},
                        {"x": 2, "y": "", "z": {"w": None}}, {"x": -3, "y": "t", "z": {"w": 1e300}},
                        None, {"x": 0, "y": "z", "z": {"w": float("nan")}}], struct_t),
        "m": pa.array([[("a", 1), ("b", None)], [], None, [("k", 2 ** 40)], [("x", -1)], None,
                       [("y", 0), ("y", 1)]], pa.map_(pa.string(), pa.int64())),
        "lst": pa.array([[{"a": 1, "b": [1, 2]}, None], [], None, [{"a": None, "b": None}],
                         [{"a": 5, "b": []}], [{"a": 6, "b": [None]}], None], pa.list_(elem_t)),
        "ll": pa.array([[[1, 2], [], None], None, [], [[3]], [[None]], [[-4, 5]], [None]],
                       pa.list_(pa.list_(pa.int64()))),
        "mts": pa.array([[(1, datetime.date(2020, 1, 2))], None, [], [(2, None)], [(3, datetime.date(1960, 5, 6))],
                         [(4, datetime.date(1970, 1, 1))], []], pa.map_(pa.int32(), pa.date32())),
    })


def parquet_typed(path, table):
    """pyarrow's table as typed from the Parquet schema alone."""
    return table.cast(pq.ParquetFile(path).schema.to_arrow_schema())


def check_generated(tmp):
    types_path = write(types_table(), os.path.join(tmp, "types.parquet"), row_group_size=4)
    nested_path = write(nested_table(), os.path.join(tmp, "nested.parquet"), row_group_size=3)
    dict_path = write(types_table().select(["s", "i32", "dec"]), os.path.join(tmp, "dict.parquet"),
                      use_dictionary=True)
    v2_path = write(nested_table(), os.path.join(tmp, "v2.parquet"), data_page_version="2.0",
                    compression="zstd", row_group_size=2)
    # One row group of 70000 rows: two exported batches (65536 rows each at
    # most), 70 table blocks of different widths.
    n = 70000
    big = pa.table({"id": pa.array(range(n), pa.int64()),
                    "s": pa.array([None if i % 13 == 0 else "x" * (i // 1000 % 7) + str(i * 7919 % 100003)
                                   for i in range(n)], pa.string())})
    big_path = write(big, os.path.join(tmp, "big.parquet"), row_group_size=n)
    for path in (types_path, nested_path, dict_path, v2_path, big_path):
        check_output(path, parquet_typed(path, pq.read_table(path)))
    check_output(big_path, big.slice(0, 65537), ["--limit", "65537"])

    # Spot checks that do not go through the oracle above.
    rc, out, err = run(types_path, "--format", "csv", "--columns", "s,f64,ts_ns,dec256,d32,u64,f16,t32s")
    rows = out.decode("utf-8").split("\n")  # (Parquet has no seconds times: t32s reads as ms)
    assert rows[0] == "u64,f16,f64,dec256,d32,t32s,ts_ns,s", rows[0]
    assert rows[1] == "18446744073709551615,0.1,0.1,-12345678901234567890123456789012345678901234567890.0123456789," \
        "1970-01-01,00:00:00.000,1970-01-01T00:00:00.000000000Z,plain", rows[1]
    assert rows[2] == '0,65504,1e+16,0.0000000001,1969-12-31,23:59:59.000,1969-12-31T23:59:59.999999999Z,""', rows[2]
    assert rows[3] == ",-0,1000000000000000," + "9" * 66 + "." + "9" * 10 + \
        ",0001-01-01,,1970-01-01T00:00:00.000000001Z,", rows[3]  # nulls are empty fields
    rc, out, err = run(nested_path, "--format", "jsonl", "--limit", "1", "--columns", "m,st")
    assert out == b'{"st":{"x":1,"y":"one","z":{"w":0.5}},"m":[{"key":"a","value":1},{"key":"b","value":null}]}\n', out

    check_selection(types_path, nested_path)
    return types_path


def check_selection(types_path, nested_path):
    full = parquet_typed(types_path, pq.read_table(types_path))
    # --columns: leaf names, any order, duplicates; output in file order.
    check_output(types_path, full.select(["i32", "ts_us", "s"]), ["--columns", "ts_us,s,i32,s"])
    nfull = parquet_typed(nested_path, pq.read_table(nested_path))
    # A group name selects the whole field; a leaf path too.
    check_output(nested_path, nfull.select(["st", "m"]), ["--columns", "m,st"])
    check_output(nested_path, nfull.select(["l", "ll"]), ["--columns", "ll,l.list.element"])
    # --row-groups in the order given (types: 4 rows a group -> 3 groups).
    pf = pq.ParquetFile(types_path)
    assert pf.num_row_groups == 3, pf.num_row_groups
    want = pa.concat_tables([pf.read_row_group(2), pf.read_row_group(0)])
    check_output(types_path, parquet_typed(types_path, want), ["--row-groups", "2,0"])
    # --limit across row groups, 0, and beyond the end.
    check_output(types_path, full.slice(0, 6), ["--limit", "6"])
    check_output(types_path, full.slice(0, 0), ["--limit", "0"])
    check_output(types_path, full, ["--limit", "1000"])
    check_output(nested_path, nfull.select(["lst"]).slice(0, 4), ["--limit", "4", "--columns", "lst"])
    check_output(types_path, parquet_typed(types_path, pf.read_row_group(1)).slice(0, 3),
                 ["--row-groups", "1", "--limit", "3"])


def check_errors(tmp, good):
    def expect(code, args, what):
        rc, out, err = run(*args)
        assert rc == code, "%s: exit %d, want %d (%s)" % (what, rc, code, err)
        if code == 1:
            lines = err.splitlines()
            assert len(lines) == 1 and lines[0].startswith("pqstep: "), (what, err)
        if code == 2:
            assert "usage: pqstep cat" in err, (what, err)
        return err
    expect(2, [], "no FILE")
    expect(2, [good, good, "--row-groups", "0"], "--row-groups over two FILEs (a dataset)")
    # Two FILEs are a dataset: the rows of both, in order.
    rc, out, err = run(good, good, "--format", "csv")
    one = run(good, "--format", "csv")[1].decode().splitlines()
    assert rc == 0 and out.decode().splitlines() == one + one[1:], (rc, err)
    expect(2, [good, "--format", "xml"], "bad format")
    expect(2, [good, "--format"], "format without value")
    expect(2, [good, "--limit", "-1"], "negative limit")
    expect(2, [good, "--limit", "12x"], "bad limit")
    expect(2, [good, "--limit", "99999999999999999999999"], "limit overflow")
    expect(2, [good, "--columns", "nope"], "unknown column")
    expect(2, [good, "--columns", "s,,b"], "empty column item")
    expect(2, [good, "--row-groups", "3"], "row group out of range")
    expect(2, [good, "--row-groups", "0,x"], "bad row group")
    expect(2, [good, "--bogus"], "unknown option")
    rc, out, _ = run("--help")
    assert rc == 0 and b"--format" in out
    missing = os.path.join(tmp, "missing.parquet")
    err = expect(1, [missing], "missing file")
    assert err.startswith("pqstep: %s: " % missing), err
    junk = os.path.join(tmp, "junk.parquet")
    with open(junk, "wb") as f:
        f.write(b"not parquet at all" * 10)
    expect(1, [junk], "not parquet")
    data = open(good, "rb").read()
    trunc = os.path.join(tmp, "trunc.parquet")
    with open(trunc, "wb") as f:
        f.write(data[: len(data) // 2])
    expect(1, [trunc], "truncated")
    # Page bytes overwritten (footer intact): a clean error or output, never a crash.
    broken = os.path.join(tmp, "broken.parquet")
    with open(broken, "wb") as f:
        f.write(data[:4] + bytes((b * 7 + 3) & 0xFF for b in data[4:len(data) // 3]) + data[len(data) // 3:])
    rc, out, err = run(broken, "--format", "jsonl")
    assert rc in (0, 1), "broken pages: exit %d: %s" % (rc, err)


# ---------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------

def check_corpus():
    if not CORPUS or not os.path.isdir(os.path.join(CORPUS, "data")):
        print("note: corpus not found; corpus files skipped")
        return 0, 0
    passed = skipped = 0
    for f in sorted(glob.glob(os.path.join(CORPUS, "data", "**", "*.parquet"), recursive=True)):
        name = os.path.relpath(f, CORPUS)
        try:
            pf = pq.ParquetFile(f)
            if pf.metadata.num_rows > CORPUS_MAX_ROWS:
                skipped += 1
                continue
            table = parquet_typed(f, pq.read_table(f))
            expected_outputs(table)  # every value has a rule here
        except Exception as e:  # pyarrow cannot read or cast it: no oracle
            print("skip %s: %s" % (name, str(e).splitlines()[0] if str(e) else type(e).__name__))
            skipped += 1
            continue
        rc, _, err = run(f, "--format", "jsonl")
        if rc != 0:
            # The readers' own tests list the files pqstep does not read; cat must fail cleanly.
            assert rc == 1 and len(err.splitlines()) == 1, "%s: exit %d: %s" % (name, rc, err)
            print("skip %s: pqstep: %s" % (name, err.strip()))
            skipped += 1
            continue
        check_output(f, table)
        passed += 1
    return passed, skipped


def main():
    if not CLI or not os.path.exists(CLI):
        print("SKIP: PQSTEP_CLI not set or missing")
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        good = check_generated(tmp)
        check_errors(tmp, good)
    passed, skipped = check_corpus()
    assert passed >= 10 or not CORPUS, "only %d corpus files compared" % passed
    print("ok: generated files, selections, errors; %d corpus files compared, %d skipped" % (passed, skipped))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print("FAIL: %s" % e)
        sys.exit(1)
