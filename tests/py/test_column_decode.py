#!/usr/bin/env python3
"""test_column_decode.py — pq_column_decode() against pyarrow, chunk by chunk.

For every corpus file under data/ that pyarrow reads, for every row group
and leaf column, $PQSTEP_DUMP_COLUMN (tests/tools/dump_column.c) decodes the
column chunk into levels and non-null values and prints them as JSON. The
oracle is pyarrow's reading of the same row group and column, mapped back
from its logical (Arrow) values to the Parquet physical ones:

  integers       as stored (unsigned ones as the signed physical value)
  date32/64      days (int32); time32/64, timestamps: ints in the unit the
                 Parquet column stores (not the unit Arrow reports)
  decimals       the unscaled integer (compared as integers, whatever the
                 byte width the writer chose for BYTE_ARRAY decimals)
  INT96          pyarrow's timestamp[ns] turned back into nanos-of-day
                 (int64 LE) + Julian day (int32 LE)
  strings        UTF-8 bytes; binary, FLBA, float16, UUID: the stored bytes
  floats         NaN-aware, exact

Flat leaves (no repetition, a top-level field): the values in order, and the
null positions must be exactly where def < max_def. Nested leaves: the
Arrow column is walked down to the leaf (struct fields with parent validity
merged, lists and maps flattened, which drops null and empty lists) and the
non-null leaf values compared in order. A nested shape the walk does not
handle is counted as "skipped (nested shape)".

Listed exceptions (each checked another way):
  large_string_map.brotli.parquet: declares about 1 GiB of strings. Decoding
    it in full here would dump gigabytes of JSON; instead a 256 MiB memory
    limit must fail with a memory-limit error.

bad_data/: every chunk of every file must decode or fail with a one-line
error (exit 1), never crash; one pass per file.

Prints "N passed, M failed, K skipped"; exit 1 on any failure, 77 when the
corpus, pyarrow or the driver is missing.
"""
import decimal
import glob
import json
import math
import os
import subprocess
import sys

SKIP = 77

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

DRIVER = os.environ.get("PQSTEP_DUMP_COLUMN")
CORPUS = os.environ.get("PQSTEP_TEST_CORPUS") or os.environ.get("PQSTEP_DEFAULT_CORPUS")
if not DRIVER or not os.path.exists(DRIVER):
    print("SKIP: PQSTEP_DUMP_COLUMN is not set or missing: %r" % DRIVER)
    sys.exit(SKIP)
if not CORPUS or not os.path.isdir(os.path.join(CORPUS, "data")):
    print("SKIP: the parquet-testing corpus is missing: %r" % CORPUS)
    sys.exit(SKIP)

LARGE = {"large_string_map.brotli.parquet"}

passed = failed = skipped = 0


class Skip(Exception):
    pass


def run_driver(path, rg, leaf, limit=None):
    cmd = [DRIVER, path, str(rg), str(leaf)]
    if limit is not None:
        cmd.append(str(limit))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace").strip()


# ---------------------------------------------------------------------------
# Arrow values -> Parquet physical values
# ---------------------------------------------------------------------------

def logical_json(col):
    try:
        return json.loads(col.logical_type.to_json())
    except Exception:
        return {}


def stored_time_unit(col):
    """'ms' / 'us' / 'ns' for time and timestamp columns."""
    lt = logical_json(col)
    unit = lt.get("timeUnit") or lt.get("unit")
    names = {"milliseconds": "ms", "microseconds": "us", "nanoseconds": "ns"}
    if unit in names:
        return names[unit]
    ct = col.converted_type
    if ct in ("TIMESTAMP_MILLIS", "TIME_MILLIS"):
        return "ms"
    if ct in ("TIMESTAMP_MICROS", "TIME_MICROS"):
        return "us"
    return None


def to_signed(v, bits):
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def fixed_bytes(arr, width):
    """The raw value bytes of a fixed-width array (nulls dropped already)."""
    arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    buf = arr.buffers()[1]
    start = arr.offset * width
    raw = buf.to_pybytes()[start:start + len(arr) * width]
    return [raw[i * width:(i + 1) * width].hex() for i in range(len(arr))]


def float_key(v):
    if isinstance(v, str):
        return v
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return float(v)


def physical(arr, col):
    """pyarrow values (no nulls) -> comparable physical values."""
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.cast(t.value_type)
        t = arr.type
    if isinstance(t, pa.ExtensionType):
        arr = arr.storage if isinstance(arr, pa.ExtensionArray) else pa.chunked_array(
            [c.storage for c in arr.chunks], t.storage_type)
        t = arr.type
    pt = col.physical_type
    if pa.types.is_null(t):
        return [None] * len(arr)
    if pa.types.is_decimal(t):
        scale = t.scale
        return [int(v.scaleb(scale)) for v in arr.to_pylist()]
    if pt == "BOOLEAN":
        return arr.to_pylist()
    if pt == "INT96":
        # pyarrow computes the nanoseconds modulo 2^64 (dates far from 1970
        # wrap), so compare there: see driver_values.
        return [v % (1 << 64) for v in arr.cast(pa.timestamp("ns")).cast(pa.int64()).to_pylist()]
    if pt in ("INT32", "INT64"):
        bits = 32 if pt == "INT32" else 64
        if pa.types.is_timestamp(t):
            unit = stored_time_unit(col) or t.unit
            arr = arr.cast(pa.timestamp(unit, t.tz)).cast(pa.int64())
        elif pa.types.is_time(t):
            unit = stored_time_unit(col) or t.unit
            arr = arr.cast(pa.time32(unit) if unit in ("s", "ms") else pa.time64(unit))
            arr = arr.cast(pa.int32() if bits == 32 else pa.int64())
        elif pa.types.is_date(t):
            arr = arr.cast(pa.date32()).cast(pa.int32())
        elif pa.types.is_duration(t):
            arr = arr.cast(pa.int64())
        elif not pa.types.is_integer(t):
            raise Skip("arrow type %s for %s" % (t, pt))
        return [to_signed(v % (1 << bits), bits) for v in arr.to_pylist()]
    if pt in ("FLOAT", "DOUBLE"):
        return [float_key(v) for v in arr.to_pylist()]
    if pt == "FIXED_LEN_BYTE_ARRAY":
        if pa.types.is_fixed_size_binary(t):
            return [v.hex() for v in arr.to_pylist()]
        if pa.types.is_float16(t):
            return fixed_bytes(arr, 2)
        raise Skip("arrow type %s for FLBA" % t)
    if pt == "BYTE_ARRAY":
        out = []
        for v in arr.to_pylist():
            out.append((v.encode("utf-8") if isinstance(v, str) else v).hex())
        return out
    raise Skip("physical type %s" % pt)


def driver_values(values, col, arrow_type):
    """The driver's JSON values -> the same comparable form."""
    t = arrow_type
    while pa.types.is_dictionary(t) or isinstance(t, pa.ExtensionType):
        t = t.value_type if pa.types.is_dictionary(t) else t.storage_type
    pt = col.physical_type
    if pt == "INT96":
        out = []
        for v in values:
            b = bytes.fromhex(v)
            nod = int.from_bytes(b[:8], "little", signed=True)
            day = int.from_bytes(b[8:], "little")  # unsigned, as Arrow reads it
            out.append(((day - 2440588) * 86400 * 10**9 + nod) % (1 << 64))
        return out
    if pa.types.is_decimal(t) and pt in ("FIXED_LEN_BYTE_ARRAY", "BYTE_ARRAY"):
        return [int.from_bytes(bytes.fromhex(v), "big", signed=True) if v else 0 for v in values]
    if pt in ("FLOAT", "DOUBLE"):
        return [float_key(v) for v in values]
    return values


# ---------------------------------------------------------------------------
# Walking nested Arrow columns down to one leaf
# ---------------------------------------------------------------------------

def leaf_count(t):
    if pa.types.is_struct(t):
        return sum(leaf_count(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_map(t):
        return leaf_count(t.key_type) + leaf_count(t.item_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return leaf_count(t.value_type)
    return 1


def walk_to_leaf(arr, k):
    """The k-th leaf (DFS order) of a nested Array, with the validity of every
    level above merged in and null/empty lists dropped."""
    while True:
        t = arr.type
        if pa.types.is_map(t):
            # A map is a list of struct<key, value>: flatten it as one.
            lst = pa.ListArray.from_arrays(arr.offsets, arr.values, mask=arr.is_null())
            ent = lst.flatten()
            nk = leaf_count(t.key_type)
            if k < nk:
                arr = ent.field(0)
            else:
                arr, k = ent.field(1), k - nk
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            arr = arr.flatten()
        elif pa.types.is_fixed_size_list(t):
            raise Skip("fixed_size_list")
        elif pa.types.is_struct(t):
            kids = arr.flatten()  # parent validity merged into each child
            for i in range(t.num_fields):
                n = leaf_count(t.field(i).type)
                if k < n:
                    arr = kids[i]
                    break
                k -= n
        else:
            return arr


# ---------------------------------------------------------------------------
# One chunk
# ---------------------------------------------------------------------------

def leaf_ranges(schema_arrow):
    """Top-level field index -> (first leaf index, leaf count)."""
    out, first = [], 0
    for f in schema_arrow:
        n = leaf_count(f.type)
        out.append((first, n))
        first += n
    return out


def check_chunk(path, pf, g, i, top_index, k, table_cache):
    col = pf.metadata.schema.column(i)
    code, out, errtext = run_driver(path, g, i)
    if code != 0:
        raise AssertionError("driver failed: %s" % errtext)
    got = json.loads(out)
    max_def, max_rep = col.max_definition_level, col.max_repetition_level
    defs, reps = got["def"], got["rep"]
    if (defs is None) != (max_def == 0) or (reps is None) != (max_rep == 0):
        raise AssertionError("level arrays present %s/%s for max levels %d/%d" %
                             (defs is not None, reps is not None, max_def, max_rep))
    if defs is not None and len(defs) != got["n_levels"]:
        raise AssertionError("def has %d entries, n_levels %d" % (len(defs), got["n_levels"]))
    if reps is not None and len(reps) != got["n_levels"]:
        raise AssertionError("rep has %d entries, n_levels %d" % (len(reps), got["n_levels"]))
    expect_nn = got["n_levels"] if defs is None else sum(1 for d in defs if d == max_def)
    if expect_nn != len(got["values"]):
        raise AssertionError("%d values, %d def levels == max" % (len(got["values"]), expect_nn))
    if reps is not None and got["n_levels"] and reps[0] != 0:
        raise AssertionError("first repetition level is %d" % reps[0])

    key = (g, top_index)
    if key not in table_cache:
        table_cache.clear()
        table_cache[key] = pf.read_row_group(g).column(top_index)
    carr = table_cache[key]
    arr = carr.combine_chunks() if isinstance(carr, pa.ChunkedArray) else carr
    flat = max_rep == 0 and "." not in col.path
    if flat:
        if len(arr) != got["n_levels"]:
            raise AssertionError("%d levels, pyarrow has %d rows" % (got["n_levels"], len(arr)))
        nulls = [j for j, v in enumerate(arr.is_null().to_pylist()) if v]
        mine = [j for j, d in enumerate(defs)
                if d < max_def] if defs is not None else []
        if nulls != mine:
            raise AssertionError("null positions differ: pyarrow %s..., pqstep %s..." % (nulls[:5], mine[:5]))
        leaf_arr = arr
    else:
        try:
            leaf_arr = walk_to_leaf(arr, k)
        except Skip:
            raise
        except Exception as e:
            raise Skip("nested shape: %s" % e)
    leaf_arr = leaf_arr.drop_null() if leaf_arr.null_count else leaf_arr
    want = physical(leaf_arr, col)
    mine = driver_values(got["values"], col, leaf_arr.type)
    if len(want) != len(mine):
        raise AssertionError("%d values, pyarrow has %d" % (len(mine), len(want)))
    for j, (a, b) in enumerate(zip(mine, want)):
        if a != b:
            raise AssertionError("value %d: pqstep %r, pyarrow %r" % (j, a, b))


def check_large(path):
    code, out, errtext = run_driver(path, 0, 0, 256 << 20)
    if code != 1 or "memory limit" not in errtext:
        raise AssertionError("256 MiB limit: exit %d, %s" % (code, errtext))


def check_bad_data():
    """bad_data/: every chunk gives values or a clean one-line error."""
    global passed, failed
    for path in sorted(glob.glob(os.path.join(CORPUS, "bad_data", "*.parquet"))):
        name = "bad_data/" + os.path.basename(path)
        try:
            md = pq.ParquetFile(path).metadata
            chunks = [(g, i) for g in range(md.num_row_groups) for i in range(md.num_columns)]
        except Exception:
            chunks = [(0, 0)]  # the footer is bad: the driver must say so
        ok = True
        for g, i in chunks:
            code, out, errtext = run_driver(path, g, i)
            lines = errtext.splitlines()
            if code == 0:
                try:
                    json.loads(out)
                except ValueError as e:
                    ok = False
                    print("FAIL %s rg %d leaf %d: bad JSON: %s" % (name, g, i, e))
            elif code != 1 or len(lines) != 1 or not lines[0].startswith("error: "):
                ok = False
                print("FAIL %s rg %d leaf %d: exit %d, stderr %r" % (name, g, i, code, errtext[:300]))
        if ok:
            passed += 1
        else:
            failed += 1


def main():
    global passed, failed, skipped
    check_bad_data()
    files = sorted(glob.glob(os.path.join(CORPUS, "data", "**", "*.parquet"), recursive=True))
    for path in files:
        name = os.path.relpath(path, os.path.join(CORPUS, "data"))
        try:
            pf = pq.ParquetFile(path)
            pf.schema_arrow
        except Exception as e:
            print("skipped %s: pyarrow cannot open it (%s)" % (name, str(e).splitlines()[0][:100]))
            skipped += 1
            continue
        if os.path.basename(path) in LARGE:
            try:
                check_large(path)
                passed += 1
            except AssertionError as e:
                print("FAIL %s: %s" % (name, e))
                failed += 1
            continue
        md = pf.metadata
        ranges = leaf_ranges(pf.schema_arrow)
        if sum(n for _, n in ranges) != md.num_columns:
            print("skipped %s: arrow leaves %d != parquet leaves %d" %
                  (name, sum(n for _, n in ranges), md.num_columns))
            skipped += 1
            continue
        readable = True
        try:
            for g in range(md.num_row_groups):
                pf.read_row_group(g)
        except Exception as e:
            print("skipped %s: pyarrow cannot read it (%s)" % (name, str(e).splitlines()[0][:100]))
            skipped += 1
            readable = False
        if not readable:
            continue
        cache = {}
        for g in range(md.num_row_groups):
            for top, (first, n) in enumerate(ranges):
                for k in range(n):
                    i = first + k
                    what = "%s rg %d leaf %d (%s)" % (name, g, i, md.schema.column(i).path)
                    try:
                        check_chunk(path, pf, g, i, top, k, cache)
                        passed += 1
                    except Skip as e:
                        print("skipped (nested shape) %s: %s" % (what, e))
                        skipped += 1
                    except AssertionError as e:
                        print("FAIL %s: %s" % (what, e))
                        failed += 1
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
