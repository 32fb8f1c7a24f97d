#!/usr/bin/env python3
"""test_matrix.py — the generated fixture matrix (tests/fixtures/gen_matrix.py)
read by pqstep and by pyarrow.

gen_matrix.py writes its files into $PQSTEP_MATRIX_DIR when set (kept, and
rewritten each run), else into a temporary directory removed at the end.
For every file:
  - whole table: pqstep.read_table(f) (which follows the stored
    ARROW:schema by default) equals pyarrow's own reading of the file,
    schema included; with follow_arrow_schema=False, and so with
    threads=1, it equals the oracle below;
  - row ranges: pqstep.read_table(f, row_offset=k, row_limit=n) equals the
    whole table's slice(k, n), for (k, n) that start and end on row-group
    boundaries, straddle them, cross many tiny pages, run past the end, or
    start at the end;
  - batches: Reader(f).iter_batches(batch_size=b) yields batches of at most b
    rows that never span two row groups and concatenate to the whole table.

The oracle is pyarrow reading the Parquet schema alone: gen_matrix.py's
files carry pyarrow's ARROW:schema, which pyarrow's reader follows (large
strings, dictionary types, the original time zone, extension types), as
pqstep does by default; the checks below (but the first) turn that off to
test the mapping from the Parquet schema alone. The oracle reads an image of the file whose
footer has that key renamed (same length, the Thrift stays valid), so its
table has the types pqstep derives, and values are compared without casts.
Floats are compared bit for bit (NaN payloads, -0.0) at every nesting level;
pqstep's arrays are validated (Array.validate(full=True)).

The row-range and batch checks need the row-range API of
pqstep.read_table/Reader.iter_batches; when it is missing they fail with a
message saying so. PQSTEP_MATRIX_NO_RANGES=1 turns them off (a local switch
while that API is being written; it prints that they were not run).

Accepted exceptions (ACCEPTED below, with reasons): none so far.

Prints one line per file and "N passed, M failed"; exit 1 on any failure,
77 when pyarrow or the library is missing.
"""
import io
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import SKIP, SOURCE, pa, pq, pqstep, same  # noqa: E402,F401

GEN = os.path.join(SOURCE, "tests", "fixtures", "gen_matrix.py")
BATCH_SIZES = [7, 64, 100000]

# file name -> why its reading by pqstep may differ from pyarrow's
ACCEPTED = {}

# (physical type, encoding) pairs the matrix must hold, as pyarrow reports
# them in the column chunks' encodings; and every codec with both page versions.
ENCODINGS = {
    "BOOLEAN": ["PLAIN", "RLE"],
    "INT32": ["PLAIN", "RLE_DICTIONARY", "PLAIN_DICTIONARY", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"],
    "INT64": ["PLAIN", "RLE_DICTIONARY", "PLAIN_DICTIONARY", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"],
    "INT96": ["PLAIN", "RLE_DICTIONARY"],
    "FLOAT": ["PLAIN", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"],
    "DOUBLE": ["PLAIN", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"],
    "BYTE_ARRAY": ["PLAIN", "RLE_DICTIONARY", "PLAIN_DICTIONARY", "DELTA_LENGTH_BYTE_ARRAY",
                   "DELTA_BYTE_ARRAY"],
    "FIXED_LEN_BYTE_ARRAY": ["PLAIN", "RLE_DICTIONARY", "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT"],
}
CODECS = ["none", "snappy", "gzip", "brotli", "lz4", "zstd"]


def coverage(manifest):
    """What the matrix lacks (pyarrow wrote something else than asked), as strings."""
    have, cv, fam = set(), set(), {}
    for spec in manifest:
        for col in spec["columns"].values():
            have.update((col["physical"], e) for e in col["encodings"])
        cv.add((spec["codec"], spec["version"]))
        fam.setdefault(spec["family"], set()).add((spec["version"], spec["pages"]))
    lack = ["%s %s" % (p, e) for p, encs in ENCODINGS.items() for e in encs if (p, e) not in have]
    lack += ["codec %s with data page v%s" % (c, v) for c in CODECS for v in ("1.0", "2.0")
             if (c, v) not in cv]
    for f, vp in sorted(fam.items()):
        lack += ["%s with v%s %s pages" % (f, v, p) for v in ("1.0", "2.0") for p in ("tiny", "rows", "large")
                 if (v, p) not in vp]
    return lack


# --- the oracle --------------------------------------------------------------

def oracle_table(path):
    """pyarrow's reading of the file with its stored ARROW:schema hidden."""
    with open(path, "rb") as fh:
        data = fh.read()
    flen = struct.unpack("<I", data[-8:-4])[0]
    start = len(data) - 8 - flen
    footer = data[start:len(data) - 8].replace(b"ARROW:schema", b"ARROW:schemX")
    image = data[:start] + footer + data[len(data) - 8:]
    return pq.read_table(io.BytesIO(image))


def has_float(t):
    if pa.types.is_floating(t):
        return True
    if pa.types.is_struct(t):
        return any(has_float(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_map(t):
        return has_float(t.key_type) or has_float(t.item_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return has_float(t.value_type)
    return False


def norm(v):
    """A Python value with floats replaced by their bits (NaN == NaN, -0.0 != 0.0)."""
    if isinstance(v, float):
        return ("f", struct.pack("<d", v)) if not math.isnan(v) else ("nan", struct.pack("<d", v))
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [norm(x) for x in v]
    return v


def undict(t):
    """t with its dictionary columns decoded."""
    cols = [c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in t.columns]
    return pa.table(cols, schema=pa.schema([pa.field(f.name, f.type.value_type, f.nullable, f.metadata)
                                            if pa.types.is_dictionary(f.type) else f for f in t.schema],
                                           metadata=t.schema.metadata))


def compare(ours, theirs, what):
    """Tables or batches equal: schema, then every column (floats by bits at any depth)."""
    if not ours.schema.equals(theirs.schema):
        diffs = []
        for k in range(max(len(ours.schema), len(theirs.schema))):
            a = ours.schema.field(k) if k < len(ours.schema) else None
            b = theirs.schema.field(k) if k < len(theirs.schema) else None
            if a is None or b is None or not a.equals(b):
                diffs.append("%s vs pyarrow %s" % (a, b))
        raise AssertionError("%s: schema differs: %s" % (what, "; ".join(diffs[:4])))
    names = ours.schema.names
    types = [ours.schema.field(k).type for k in range(len(names))]
    nested_float = [k for k, t in enumerate(types) if has_float(t) and not pa.types.is_floating(t)]
    rest = [k for k in range(len(names)) if k not in nested_float]
    same(ours.select(rest), theirs.select(rest), what, float_bits=True, validate=True)
    for k in nested_float:
        a, b = ours.column(k), theirs.column(k)
        if isinstance(a, pa.ChunkedArray):
            a = a.combine_chunks()
        if isinstance(b, pa.ChunkedArray):
            b = b.combine_chunks()
        a.validate(full=True)
        assert len(a) == len(b), "%s column %s: %d rows, pyarrow %d" % (what, names[k], len(a), len(b))
        assert a.null_count == b.null_count, "%s column %s: %d nulls, pyarrow %d" % (
            what, names[k], a.null_count, b.null_count)
        la, lb = a.to_pylist(), b.to_pylist()
        for i in range(len(la)):
            if norm(la[i]) != norm(lb[i]):
                raise AssertionError("%s column %s row %d: %r, pyarrow %r" % (
                    what, names[k], i, la[i], lb[i]))


# --- the row-range API -------------------------------------------------------

def range_api_missing():
    """Why the row-range API cannot be used, or None."""
    import inspect
    params = inspect.signature(pqstep.read_table).parameters
    if "row_offset" not in params or "row_limit" not in params or "threads" not in params:
        return "pqstep.read_table has no row_offset/row_limit/threads parameters"
    if not hasattr(pqstep.Reader, "iter_batches"):
        return "pqstep.Reader has no iter_batches"
    return None


def ranges(num_rows, rg_rows):
    """(offset, limit) pairs; limit None: to the end."""
    n = num_rows
    starts, s = [], 0
    for r in rg_rows:
        starts.append(s)
        s += r
    out = [(0, None), (0, 1), (max(n - 1, 0), 1), (n, 5), (n // 2, 10 * n + 10), (max(n - 5, 0), None)]
    out += [(7, 61), (n // 3, n // 3 + 17), (1, max(n - 2, 1))]
    for b in starts[1:3]:  # row-group boundaries: start on one, straddle one
        out += [(b, rg_rows[starts.index(b)]), (b - 3, 7), (b - 1, 1), (max(b - 40, 0), 80)]
    seen, res = set(), []
    for k, lim in out:
        if 0 <= k <= n and (k, lim) not in seen:
            seen.add((k, lim))
            res.append((k, lim))
    return res


def check_ranges(path, whole, rg_rows, fails):
    n = whole.num_rows
    for k, lim in ranges(n, rg_rows):
        what = "rows [%d, %s)" % (k, "end" if lim is None else k + lim)
        try:
            kw = dict(row_offset=k) if lim is None else dict(row_offset=k, row_limit=lim)
            ours = pqstep.read_table(path, follow_arrow_schema=False, **kw)
            theirs = whole.slice(k) if lim is None else whole.slice(k, lim)
            compare(ours, theirs, what)
        except Exception as e:
            fails.append("%s: %s: %s" % (what, type(e).__name__, str(e)[:400]))
            return


def check_batches(path, whole, rg_rows, fails):
    bounds, s = set(), 0
    for r in rg_rows:
        s += r
        bounds.add(s)
    for b in BATCH_SIZES:
        what = "iter_batches(%d)" % b
        try:
            with pqstep.Reader(path, follow_arrow_schema=False) as r:
                batches = list(r.iter_batches(batch_size=b))
            pos = 0
            for i, x in enumerate(batches):
                assert isinstance(x, pa.RecordBatch), "batch %d is a %s" % (i, type(x).__name__)
                assert 0 < x.num_rows <= b, "batch %d has %d rows" % (i, x.num_rows)
                end = pos + x.num_rows
                crossed = [c for c in bounds if pos < c < end]
                assert not crossed, "batch %d (rows %d..%d) spans the row-group boundary at row %d" % (
                    i, pos, end, crossed[0])
                pos = end
            ours = (pa.Table.from_batches(batches, schema=whole.schema) if batches
                    else whole.schema.empty_table())
            compare(ours, whole, what)
        except Exception as e:
            fails.append("%s: %s: %s" % (what, type(e).__name__, str(e)[:400]))


def check_file(path, do_ranges):
    fails = []
    theirs = oracle_table(path)
    md = pq.ParquetFile(path).metadata
    rg_rows = [md.row_group(g).num_rows for g in range(md.num_row_groups)]
    try:
        compare(pqstep.read_table(path, follow_arrow_schema=False), theirs, "read_table")
    except Exception as e:
        fails.append("read_table: %s: %s" % (type(e).__name__, str(e)[:400]))
    try:  # by default pqstep follows the stored ARROW:schema, as pyarrow does: its own reading
        ours, pyarrow_own = pqstep.read_table(path), pq.read_table(path)
        if not ours.schema.equals(pyarrow_own.schema):
            compare(ours, pyarrow_own, "read_table (default: ARROW:schema followed)")  # says where
        # dictionaries are each chunk's own: compared by their values
        compare(undict(ours), undict(pyarrow_own), "read_table (default: ARROW:schema followed)")
    except Exception as e:
        fails.append("read_table (default): %s: %s" % (type(e).__name__, str(e)[:400]))
    if do_ranges:  # the same API round added `threads`: one thread must give the same table
        try:
            compare(pqstep.read_table(path, threads=1, follow_arrow_schema=False), theirs, "read_table(threads=1)")
        except Exception as e:
            fails.append("read_table(threads=1): %s: %s" % (type(e).__name__, str(e)[:400]))
    if do_ranges:
        check_ranges(path, theirs, rg_rows, fails)
        check_batches(path, theirs, rg_rows, fails)
    return fails


def main():
    keep = os.environ.get("PQSTEP_MATRIX_DIR")
    out = os.path.abspath(keep) if keep else tempfile.mkdtemp(prefix="pqstep-matrix-")
    try:
        gen = subprocess.run([sys.executable, GEN, out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True)
        print(gen.stdout.strip())
        if gen.returncode != 0:
            print("FAIL gen_matrix.py exited %d" % gen.returncode)
            return 1
        with open(os.path.join(out, "matrix.json")) as fh:
            manifest = json.load(fh)

        failed = passed = 0
        lack = coverage(manifest)
        if lack:
            print("FAIL the matrix lacks: %s" % "; ".join(lack))
            failed += 1
        missing = range_api_missing()
        do_ranges = missing is None
        if os.environ.get("PQSTEP_MATRIX_NO_RANGES") == "1":
            print("NOTE: PQSTEP_MATRIX_NO_RANGES=1: row-range and batch checks NOT run")
            do_ranges = False
        elif missing:
            print("FAIL row-range API missing: %s; row ranges and iter_batches are not checked "
                  "(PQSTEP_MATRIX_NO_RANGES=1 to run the rest alone)" % missing)
            failed += 1

        for spec in manifest:
            name = spec["name"]
            if name in ACCEPTED:
                print("skip %s: accepted: %s" % (name, ACCEPTED[name]))
                continue
            fails = check_file(os.path.join(out, name), do_ranges)
            if fails:
                failed += 1
                print("FAIL %s" % name)
                for x in fails:
                    print("     %s" % x)
            else:
                passed += 1
                print("ok   %s (%d rows, %d row groups, %d leaves)" % (
                    name, spec["num_rows"], spec["num_row_groups"], len(spec["columns"])))
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    finally:
        if not keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
