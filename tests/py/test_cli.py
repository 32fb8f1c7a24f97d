#!/usr/bin/env python3
"""test_cli.py — the pqstep command-line tool against pyarrow.

For every corpus file under data/ that pyarrow opens, `pqstep meta --json`
and `pqstep schema --json` must agree with pyarrow's reading of the same
footer (pyarrow.parquet.ParquetFile(f).metadata): counts, writer, row-group
and column-chunk fields, statistics, leaf paths, levels, types. Then the
error behaviour: exit 1 with one `pqstep: FILE: ...` line for unreadable
files (missing, not Parquet, truncated), exit 2 for bad usage, never a
signal; and output details (JSON string escaping, write errors, --version).

Environment (set by ctest): PQSTEP_CLI (the binary), PQSTEP_LIBRARY (the
shared library, for pq_version), PQSTEP_TEST_CORPUS or PQSTEP_DEFAULT_CORPUS.
Exit 0 when every test passes, 1 otherwise, 77 when something needed is
missing.
"""
import ctypes
import glob
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

SKIP = 77

import pyarrow as pa
import pyarrow.parquet as pq

CLI = os.environ.get("PQSTEP_CLI")


def corpus_dir():
    d = os.environ.get("PQSTEP_TEST_CORPUS") or os.environ.get("PQSTEP_DEFAULT_CORPUS")
    return d


# ---------------------------------------------------------------------------
# Running the CLI
# ---------------------------------------------------------------------------

def run(*args, stdout=subprocess.PIPE):
    """Run the CLI; returns (returncode, stdout text, stderr text)."""
    p = subprocess.run([CLI] + [str(a) for a in args], stdout=stdout,
                       stderr=subprocess.PIPE)
    out = p.stdout.decode("utf-8", "replace") if p.stdout is not None else ""
    return p.returncode, out, p.stderr.decode("utf-8", "replace")


def run_json(*args):
    rc, out, err = run(*args)
    if rc != 0:
        raise AssertionError("pqstep %s: exit %d, stderr %r" % (" ".join(map(str, args)), rc, err))
    if err:
        raise AssertionError("pqstep %s: unexpected stderr %r" % (" ".join(map(str, args)), err))
    return json.loads(out)


class Mismatches:
    """Collects every difference of one test, so one run shows them all."""

    def __init__(self, where):
        self.where = where
        self.items = []

    def eq(self, what, ours, expected):
        if ours != expected:
            self.items.append("%s: pqstep %r, expected %r" % (what, ours, expected))

    def true(self, what, cond):
        if not cond:
            self.items.append(what)

    def done(self):
        if self.items:
            shown = self.items[:25]
            more = len(self.items) - len(shown)
            msg = "%s:\n    " % self.where + "\n    ".join(shown)
            if more:
                msg += "\n    ... and %d more" % more
            raise AssertionError(msg)


# ---------------------------------------------------------------------------
# pyarrow -> pqstep naming
# ---------------------------------------------------------------------------

# pyarrow names Parquet codec 5 (Hadoop-framed LZ4) "UNKNOWN" and codec 7
# (LZ4_RAW) "LZ4"; pqstep uses the Thrift names.
PA_CODEC = {"UNKNOWN": "LZ4", "LZ4": "LZ4_RAW"}

PA_UNIT = {"milliseconds": "MILLIS", "microseconds": "MICROS", "nanoseconds": "NANOS"}

PA_SIMPLE_LOGICAL = {
    "String": "STRING", "Date": "DATE", "List": "LIST", "Map": "MAP", "Enum": "ENUM",
    "JSON": "JSON", "BSON": "BSON", "UUID": "UUID", "Float16": "FLOAT16",
    "Null": "UNKNOWN", "Undefined": "FUTURE",
}


def expected_logical(lt):
    """pyarrow's str(LogicalType) in pqstep's spelling; (text, exact)."""
    s = str(lt)
    if s == "None":
        return None, True
    kind = s.split("(", 1)[0]
    params = dict(re.findall(r"(\w+)=([^,)]*)", s))
    if kind in PA_SIMPLE_LOGICAL:
        return PA_SIMPLE_LOGICAL[kind], True
    if kind == "Decimal":
        return "DECIMAL(%s,%s)" % (params["precision"], params["scale"]), True
    if kind == "Int":
        return "INT(%s,%s)" % (params["bitWidth"],
                               "signed" if params["isSigned"] == "true" else "unsigned"), True
    if kind in ("Timestamp", "Time"):
        return "%s(%s,utc=%s)" % (kind.upper(), PA_UNIT[params["timeUnit"]],
                                  params["isAdjustedToUTC"]), True
    # Geometry, Geography, Variant, Interval: the kind only.
    return kind.upper(), False


def logical_matches(ours, lt):
    exp, exact = expected_logical(lt)
    if exp is None or ours is None:
        # pqstep has no INTERVAL logical kind (it is a converted type only).
        return exp == ours or (ours is None and exp == "INTERVAL")
    return ours == exp if exact else ours.split("(", 1)[0] == exp


# ---------------------------------------------------------------------------
# Statistics values
# ---------------------------------------------------------------------------

def value_kind(col):
    """Which leaves get their min/max compared: plain ints, floats, dates,
    strings, plain binary (hex) and booleans."""
    phys = col.physical_type
    lt = str(col.logical_type)
    if phys == "BOOLEAN" and lt == "None":
        return "bool"
    if phys in ("INT32", "INT64") and (lt == "None" or lt.startswith("Int(")):
        return "int"
    if phys == "INT32" and lt == "Date":
        return "date"
    if phys == "FLOAT" and lt == "None":
        return "float32"
    if phys == "DOUBLE" and lt == "None":
        return "float64"
    if phys == "BYTE_ARRAY" and lt == "String":
        return "string"
    if phys == "BYTE_ARRAY" and lt == "None" and col.converted_type == "NONE":
        return "binary"
    return None


def value_matches(kind, text, v):
    if kind == "bool":
        return text == ("true" if v else "false")
    if kind == "int":
        return text == str(int(v))
    if kind == "date":
        return text == v.isoformat()
    if kind in ("float32", "float64"):
        try:
            ours = float(text)
        except ValueError:
            return False
        if math.isnan(v):
            return math.isnan(ours)
        if kind == "float32":
            return struct.pack("<f", ours) == struct.pack("<f", v)
        return ours == v and math.copysign(1, ours) == math.copysign(1, v)
    if kind == "string":
        raw = v.encode("utf-8") if isinstance(v, str) else bytes(v)
        try:
            plain = raw.decode("utf-8")
        except UnicodeDecodeError:
            plain = None
        if plain is not None and "\0" not in plain:
            return text == plain
        return text == "0x" + raw.hex()
    if kind == "binary":
        return text == "0x" + bytes(v).hex()
    raise ValueError(kind)


# ---------------------------------------------------------------------------
# meta --json against pyarrow
# ---------------------------------------------------------------------------

META_KEYS = {"file", "file_size", "version", "created_by", "num_rows", "num_row_groups",
             "num_columns", "footer_bytes", "key_value_keys", "column_orders", "statistics_note", "columns",
             "row_groups"}
LEAF_KEYS = {"path", "physical_type", "type_length", "logical_type", "converted_type",
             "max_def", "max_rep", "arrow_type"}
RG_KEYS = {"num_rows", "total_byte_size", "total_compressed_size", "file_offset", "columns"}
CHUNK_KEYS = {"path", "file_path", "codec", "encodings", "num_values", "compressed_size",
              "uncompressed_size", "data_page_offset", "dictionary_page_offset", "stats", "size_stats",
              "has_column_index", "has_offset_index", "has_bloom_filter",
              "column_index_offset", "column_index_length", "offset_index_offset",
              "offset_index_length", "bloom_filter_offset", "bloom_filter_length"}
STATS_KEYS = {"min", "max", "null_count", "distinct_count", "nan_count", "is_min_exact", "is_max_exact"}

# How many min/max pairs were compared (reported at the end, so that a run
# that silently compared nothing is visible).
counters = {"minmax_compared": 0, "arrow_compared": 0, "chunks_compared": 0}


def check_meta(path):
    m = Mismatches(os.path.relpath(path, corpus_dir() or "."))
    pf = pq.ParquetFile(path)
    md = pf.metadata
    schema = md.schema
    ours = run_json("meta", "--json", path)

    m.eq("top-level keys", set(ours), META_KEYS)
    m.eq("file", ours["file"], str(path))
    m.eq("file_size", ours["file_size"], os.path.getsize(path))
    m.eq("num_rows", ours["num_rows"], md.num_rows)
    m.eq("num_row_groups", ours["num_row_groups"], md.num_row_groups)
    m.eq("num_columns", ours["num_columns"], md.num_columns)
    m.eq("footer_bytes", ours["footer_bytes"], md.serialized_size)
    # pyarrow says "" when created_by is absent.
    m.eq("created_by", ours["created_by"] or "", md.created_by or "")
    kv = md.metadata or {}
    m.eq("key_value_keys", sorted(set(ours["key_value_keys"])),
         sorted(k.decode("utf-8", "replace") for k in kv))
    # Column orders: one per leaf where the file has them (pyarrow does not
    # show them; tests/py/test_float_orders.py checks the IEEE 754 ones).
    if ours["column_orders"] is not None:
        m.eq("len(column_orders)", len(ours["column_orders"]), md.num_columns)
        m.true("column_orders %r" % ours["column_orders"],
               set(ours["column_orders"]) <= {"type", "ieee754_total", "unknown"})
    # What pruning sets aside (test_old_writers checks the notes of files
    # that need one): the column order is missing only where none is named.
    note = ours["statistics_note"]
    m.true("statistics_note %r" % (note,), note is None or (isinstance(note, str) and note))
    if ours["column_orders"] is not None:
        m.true("statistics_note %r with column orders" % (note,), not note or "column order" not in note)

    # Leaves.
    m.eq("len(columns)", len(ours["columns"]), md.num_columns)
    for i, leaf in enumerate(ours["columns"][:md.num_columns]):
        col = schema.column(i)
        w = "columns[%d]" % i
        m.eq(w + " keys", set(leaf), LEAF_KEYS)
        m.eq(w + ".path", leaf["path"], col.path)
        m.eq(w + ".max_def", leaf["max_def"], col.max_definition_level)
        m.eq(w + ".max_rep", leaf["max_rep"], col.max_repetition_level)
        m.eq(w + ".physical_type", leaf["physical_type"], col.physical_type)
        if col.physical_type == "FIXED_LEN_BYTE_ARRAY":
            m.eq(w + ".type_length", leaf["type_length"], col.length)
        m.true("%s.logical_type %r does not match pyarrow %r" % (w, leaf["logical_type"],
                                                                str(col.logical_type)),
               logical_matches(leaf["logical_type"], col.logical_type))
        # parquet-cpp derives a converted type from the logical type when
        # the file has none; pqstep shows the file's own.
        if leaf["converted_type"] is not None:
            m.eq(w + ".converted_type", leaf["converted_type"], col.converted_type)
        elif col.converted_type != "NONE":
            m.true(w + ".converted_type null but pyarrow has %s and there is no logical type"
                   % col.converted_type, leaf["logical_type"] is not None)

    # Arrow types of leaves that are whole top-level fields. A leaf's
    # arrow_type is the type of its values: a repeated top-level leaf (no
    # LIST annotation) reads as a list of them.
    arrow = schema.to_arrow_schema()
    by_path = {leaf["path"]: leaf for leaf in ours["columns"]}
    for field in arrow:
        leaf = by_path.get(field.name)
        if leaf is None or "." in field.name:
            continue
        counters["arrow_compared"] += 1
        t = field.type
        if leaf["max_rep"] > 0:
            m.true("top-level repeated leaf %s is %s, not a list" % (field.name, t),
                   pa.types.is_list(t))
            t = t.value_type if pa.types.is_list(t) else t
        m.eq("arrow_type of %s" % field.name, leaf["arrow_type"], str(t))

    # Row groups and column chunks.
    m.eq("len(row_groups)", len(ours["row_groups"]), md.num_row_groups)
    for r, org in enumerate(ours["row_groups"][:md.num_row_groups]):
        rg = md.row_group(r)
        w = "row_groups[%d]" % r
        m.eq(w + " keys", set(org), RG_KEYS)
        m.eq(w + ".num_rows", org["num_rows"], rg.num_rows)
        m.eq(w + ".total_byte_size", org["total_byte_size"], rg.total_byte_size)
        m.eq("len(%s.columns)" % w, len(org["columns"]), rg.num_columns)
        for c, och in enumerate(org["columns"][:rg.num_columns]):
            cc = rg.column(c)
            wc = "%s.columns[%d]" % (w, c)
            counters["chunks_compared"] += 1
            m.eq(wc + " keys", set(och), CHUNK_KEYS)
            m.eq(wc + ".path", och["path"], schema.column(c).path)
            m.eq(wc + ".codec", och["codec"], PA_CODEC.get(cc.compression, cc.compression))
            m.eq(wc + ".encodings", sorted(och["encodings"]), sorted(cc.encodings))
            m.eq(wc + ".num_values", och["num_values"], cc.num_values)
            m.eq(wc + ".compressed_size", och["compressed_size"], cc.total_compressed_size)
            m.eq(wc + ".uncompressed_size", och["uncompressed_size"], cc.total_uncompressed_size)
            m.eq(wc + ".data_page_offset", och["data_page_offset"], cc.data_page_offset)
            m.eq(wc + ".dictionary_page_offset", och["dictionary_page_offset"],
                 cc.dictionary_page_offset)
            m.eq(wc + ".has_column_index", och["has_column_index"], cc.has_column_index)
            m.eq(wc + ".has_offset_index", och["has_offset_index"], cc.has_offset_index)
            m.eq(wc + ".bloom_filter_offset", och["bloom_filter_offset"], cc.bloom_filter_offset)
            m.eq(wc + ".bloom_filter_length", och["bloom_filter_length"], cc.bloom_filter_length)
            m.eq(wc + ".has_bloom_filter", och["has_bloom_filter"],
                 cc.bloom_filter_offset is not None)
            check_stats(m, wc, och["stats"], cc, schema.column(c))
    m.done()


def check_stats(m, w, ostats, cc, col):
    if ostats is not None:
        m.eq(w + ".stats keys", set(ostats), STATS_KEYS)
    st = cc.statistics  # None when pyarrow distrusts or lacks them
    if st is None:
        return
    if ostats is None:
        m.true(w + ".stats is null but pyarrow has statistics", False)
        return
    if st.has_null_count:
        m.eq(w + ".stats.null_count", ostats["null_count"], st.null_count)
    if st.has_distinct_count:
        m.eq(w + ".stats.distinct_count", ostats["distinct_count"], st.distinct_count)
    kind = value_kind(col)
    if kind is None or not st.has_min_max:
        return
    if ostats["min"] is None and ostats["max"] is None and col.physical_type == "BYTE_ARRAY":
        # Only deprecated min/max, which pqstep does not trust for byte
        # arrays (their old order was signed bytes); pyarrow takes them
        # from writers it believes fixed.
        return
    counters["minmax_compared"] += 1
    for name, text, v in (("min", ostats["min"], st.min), ("max", ostats["max"], st.max)):
        if text is None or not value_matches(kind, text, v):
            m.true("%s.stats.%s: pqstep %r, pyarrow %r (%s)" % (w, name, text, v, kind), False)


# ---------------------------------------------------------------------------
# schema --json: the tree, consistent with meta and pyarrow
# ---------------------------------------------------------------------------

NODE_KEYS = {"name", "path", "repetition", "physical_type", "type_length", "logical_type",
             "converted_type", "max_def", "max_rep", "arrow_type", "field_id", "leaf_index",
             "children"}


def walk(nodes, depth=0):
    for n in nodes:
        yield n, depth
        yield from walk(n["children"], depth + 1)


def check_schema(path):
    m = Mismatches(os.path.relpath(path, corpus_dir() or ".") + " (schema)")
    md = pq.ParquetFile(path).metadata
    schema = md.schema
    ours = run_json("schema", "--json", path)
    meta = run_json("meta", "--json", path)
    m.eq("top-level keys", set(ours), {"file", "name", "num_columns", "fields"})
    m.eq("num_columns", ours["num_columns"], md.num_columns)
    leaves = []
    for node, depth in walk(ours["fields"]):
        m.eq("keys of %s" % node.get("path"), set(node), NODE_KEYS)
        if node["leaf_index"] is None:
            m.eq("%s.physical_type (group)" % node["path"], node["physical_type"], None)
            m.true("%s: group arrow type %r" % (node["path"], node["arrow_type"]),
                   node["arrow_type"] in ("struct", "list", "map", "unsupported"))
        else:
            m.eq("%s has children" % node["path"], node["children"], [])
            leaves.append(node)
        if depth == 0:
            m.eq("%s.path (top level)" % node["name"], node["path"], node["name"])
        for child in node["children"]:
            m.eq("path of child %s" % child["name"], child["path"],
                 node["path"] + "." + child["name"])
    m.eq("number of leaves", len(leaves), md.num_columns)
    for i, node in enumerate(leaves[:md.num_columns]):
        col = schema.column(i)
        w = "leaf %d" % i
        m.eq(w + ".leaf_index", node["leaf_index"], i)
        m.eq(w + ".path", node["path"], col.path)
        m.eq(w + ".name", node["name"], col.name)
        m.eq(w + ".max_def", node["max_def"], col.max_definition_level)
        m.eq(w + ".max_rep", node["max_rep"], col.max_repetition_level)
        m.eq(w + ".physical_type", node["physical_type"], col.physical_type)
        mc = meta["columns"][i] if i < len(meta["columns"]) else {}
        for k in ("logical_type", "converted_type", "type_length"):
            m.eq("%s.%s vs meta" % (w, k), node[k], mc.get(k))
        # A node's Arrow type is that of the field; a repeated leaf's field
        # is a list of the leaf's values (its arrow_type in meta).
        if node["repetition"] != "REPEATED":
            m.eq("%s.arrow_type vs meta" % w, node["arrow_type"], mc.get("arrow_type"))
    # Top-level names and group kinds against pyarrow's Arrow schema.
    arrow = schema.to_arrow_schema()
    m.eq("top-level names", [n["name"] for n in ours["fields"]], arrow.names)
    for node, field in zip(ours["fields"], arrow):
        if node["leaf_index"] is not None:
            continue
        t = field.type
        exp = ("map" if pa.types.is_map(t) else
               "list" if pa.types.is_list(t) or pa.types.is_large_list(t) else
               "struct" if pa.types.is_struct(t) else str(t))
        m.eq("arrow kind of group %s" % node["name"], node["arrow_type"], exp)
    m.done()


def check_text(path):
    """The text outputs run, are non-empty and show the same numbers."""
    m = Mismatches(os.path.relpath(path, corpus_dir() or ".") + " (text)")
    md = pq.ParquetFile(path).metadata
    rc, out, err = run("meta", path)
    m.eq("meta exit", rc, 0)
    m.eq("meta stderr", err, "")
    mo = re.search(r"^num_rows\s+(-?\d+)$", out, re.M)
    m.eq("meta num_rows line", int(mo.group(1)) if mo else None, md.num_rows)
    mo = re.search(r"^footer_bytes\s+(\d+)$", out, re.M)
    m.eq("meta footer_bytes line", int(mo.group(1)) if mo else None, md.serialized_size)
    m.eq("row group headers", len(re.findall(r"^row group \d+:", out, re.M)), md.num_row_groups)
    rc, out, err = run("schema", path)
    m.eq("schema exit", rc, 0)
    m.eq("schema stderr", err, "")
    lines = out.splitlines()
    nodes = list(walk(run_json("schema", "--json", path)["fields"]))
    # A header row, the root, then one row per node in the same order,
    # indented two spaces per level up to 64 levels.
    m.eq("schema text rows", len(lines), len(nodes) + 2)
    for line, (node, depth) in zip(lines[2:], nodes):
        if any(ord(ch) < 0x20 or ord(ch) == 0x7f for ch in node["name"]):
            continue
        m.true("schema row %r is not %r at depth %d" % (line, node["name"], depth + 1),
               line.startswith("  " * min(depth + 1, 64) + node["name"] + " "))
    m.done()


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

def expect_file_error(m, args, path):
    rc, out, err = run(*args)
    m.true("%s: exit %d, expected 1 (stderr %r)" % (" ".join(map(str, args)), rc, err), rc == 1)
    lines = err.splitlines()
    m.true("%s: stderr %r is not exactly one line" % (args, err),
           len(lines) == 1 and err.endswith("\n"))
    prefix = "pqstep: %s: " % path
    m.true("%s: stderr %r does not start with %r" % (args, err, prefix),
           err.startswith(prefix) and len(err) > len(prefix) + 1)
    m.eq("%s: stdout" % (args,), out, "")


def test_missing_file():
    m = Mismatches("missing file")
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "no-such-file.parquet")
        for cmd in ("meta", "schema"):
            expect_file_error(m, (cmd, p), p)
            expect_file_error(m, (cmd, "--json", p), p)
    m.done()


def test_not_parquet():
    m = Mismatches("not parquet")
    with tempfile.TemporaryDirectory() as d:
        cases = {
            "empty.parquet": b"",
            "text.parquet": b"hello, this is not a parquet file\n" * 10,
            "magic-only.parquet": b"PAR1",
            "two-magics.parquet": b"PAR1PAR1",
            "zero-footer.parquet": b"PAR1" + struct.pack("<I", 0) + b"PAR1",
            "huge-footer-len.parquet": b"PAR1" + b"x" * 16 + struct.pack("<I", 0xFFFFFFF0) + b"PAR1",
            "garbage-footer.parquet": b"PAR1" + b"\xff" * 64 + struct.pack("<I", 64) + b"PAR1",
            "encrypted.parquet": b"PARE" + b"\0" * 16 + struct.pack("<I", 8) + b"PARE",
        }
        for name, data in cases.items():
            p = os.path.join(d, name)
            with open(p, "wb") as f:
                f.write(data)
            for cmd in ("meta", "schema"):
                expect_file_error(m, (cmd, "--json", p), p)
        # A directory.
        expect_file_error(m, ("meta", d), d)
    m.done()


def test_truncated_copies():
    m = Mismatches("truncated copies")
    files = corpus_files()
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "truncated.parquet")
        for src in files:
            with open(src, "rb") as f:
                data = f.read()
            for cut in sorted({len(data) - 1, len(data) - 4, len(data) - 9, len(data) // 2, 12}):
                if cut <= 0 or cut >= len(data):
                    continue
                with open(p, "wb") as f:
                    f.write(data[:cut])
                rc, out, err = run("meta", "--json", p)
                where = "%s cut at %d" % (os.path.basename(src), cut)
                m.true("%s: exit %d, expected 1 (stderr %r)" % (where, rc, err), rc == 1)
                m.true("%s: stderr %r is not one pqstep line" % (where, err),
                       err.startswith("pqstep: %s: " % p) and err.count("\n") == 1)
    m.done()


def test_corrupted_footers_never_crash():
    """Bytes of real footers overwritten: any verdict but a signal."""
    m = Mismatches("corrupted footers")
    files = corpus_files()[:12]
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "mutated.parquet")
        for src in files:
            with open(src, "rb") as f:
                data = bytearray(f.read())
            flen = struct.unpack("<I", data[-8:-4])[0]
            start = len(data) - 8 - flen
            for k in range(24):
                mutated = bytearray(data)
                pos = start + (k * 7919) % flen
                mutated[pos] ^= (0xFF, 0x80, 0x01, 0x7F)[k % 4]
                with open(p, "wb") as f:
                    f.write(mutated)
                for cmd in ("meta", "schema"):
                    rc, out, err = run(cmd, "--json", p)
                    where = "%s byte %d (%s)" % (os.path.basename(src), pos, cmd)
                    m.true("%s: exit %d (stderr %r)" % (where, rc, err), rc in (0, 1))
                    if rc == 0:
                        try:
                            json.loads(out)
                        except ValueError as e:
                            m.true("%s: invalid JSON: %s" % (where, e), False)
                    else:
                        m.true("%s: stderr %r" % (where, err), err.count("\n") == 1)
    m.done()


def test_bad_data_never_crash():
    m = Mismatches("bad_data")
    root = corpus_dir()
    for p in sorted(glob.glob(os.path.join(root, "bad_data", "*.parquet"))):
        for cmd in ("meta", "schema"):
            for extra in ((), ("--json",)):
                rc, out, err = run(cmd, *extra, p)
                m.true("%s %s: exit %d (stderr %r)" % (cmd, os.path.basename(p), rc, err),
                       rc in (0, 1))
                if rc == 0 and extra:
                    json.loads(out)
    m.done()


def test_usage_errors():
    m = Mismatches("usage")
    some = corpus_files()[0]
    cases = [
        (),
        ("frobnicate", some),
        ("--bogus",),
        ("meta",),
        ("schema",),
        ("meta", "--bogus", some),
        ("meta", "-j", some),
        ("schema", "--jsn", some),
        ("schema", some, some),
        ("schema", "--json", some, "extra"),
    ]
    for args in cases:
        rc, out, err = run(*args)
        m.true("%r: exit %d, expected 2" % (args, rc), rc == 2)
        m.true("%r: no usage line in %r" % (args, err), "usage:" in err)
        m.true("%r: stderr does not start with 'pqstep: ': %r" % (args, err),
               err.startswith("pqstep: "))
        m.eq("%r stdout" % (args,), out, "")
    # "--" ends the options: a file called "--json" is then just missing.
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        try:
            rc, out, err = run("meta", "--", "--json")
            m.eq("meta -- --json exit", rc, 1)
            m.true("meta -- --json: %r" % err, err.startswith("pqstep: --json: "))
        finally:
            os.chdir("/")
    m.done()


def test_help_and_version():
    m = Mismatches("help/version")
    for args in (("--help",), ("-h",), ("help",)):
        rc, out, err = run(*args)
        m.eq("%r exit" % (args,), rc, 0)
        for cmd in ("meta", "schema"):
            m.true("%r: command %s not listed" % (args, cmd),
                   re.search(r"^\s+%s\s" % cmd, out, re.M) is not None)
    for cmd in ("meta", "schema"):
        for h in ("--help", "-h"):
            rc, out, err = run(cmd, h)
            m.eq("%s %s exit" % (cmd, h), rc, 0)
            m.true("%s %s: %r" % (cmd, h, out), out.startswith("usage: pqstep %s" % cmd))
            m.true("%s %s documents --json" % (cmd, h), "--json" in out)
    lib = os.environ.get("PQSTEP_LIBRARY")
    rc, out, err = run("--version")
    m.eq("--version exit", rc, 0)
    if lib and os.path.exists(lib):
        so = ctypes.CDLL(lib)
        so.pq_version.restype = ctypes.c_char_p
        m.eq("--version", out, "pqstep %s\n" % so.pq_version().decode())
    else:
        m.true("--version output %r" % out, re.fullmatch(r"pqstep \d+\.\d+\.\d+\n", out))
    m.done()


def test_write_errors():
    m = Mismatches("write errors")
    some = biggest_corpus_file()
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            rc, out, err = run("meta", some, stdout=full)
        m.eq("stdout /dev/full exit", rc, 1)
        m.true("stdout /dev/full: stderr %r" % err,
               err.startswith("pqstep: ") and err.count("\n") == 1)
    # A reader that goes away: EPIPE, not SIGPIPE.
    for args in (("meta", some), ("meta", "--json", some), ("schema", "--json", some)):
        p = subprocess.Popen([CLI] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdout.read(1)
        p.stdout.close()
        err = p.stderr.read().decode("utf-8", "replace")
        rc = p.wait()
        p.stderr.close()
        m.true("%r with closed pipe: exit %d (a negative code is a signal)" % (args, rc),
               rc in (0, 1))
        m.eq("%r with closed pipe: stderr" % (args,), err, "")
    m.done()


# ---------------------------------------------------------------------------
# Files written here: escaping, extreme values
# ---------------------------------------------------------------------------

ODD_NAME = 'q"b\\s\n\t\x01\x7f é€😀'


def test_json_escaping():
    m = Mismatches("json escaping")
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "odd.parquet")
        t = pa.table({ODD_NAME: pa.array([1, 2], pa.int32()),
                      "zzzz": pa.array(["a", "b"])})
        t = t.replace_schema_metadata({ODD_NAME: "v", "plain": "w"})
        pq.write_table(t, p)
        ours = run_json("meta", "--json", p)
        m.eq("key_value_keys", sorted(ours["key_value_keys"]),
             sorted(["ARROW:schema", ODD_NAME, "plain"]))
        m.eq("leaf path", ours["columns"][0]["path"], ODD_NAME)
        sch = run_json("schema", "--json", p)
        m.eq("schema name", sch["fields"][0]["name"], ODD_NAME)

        # Bytes that are not UTF-8: patch the name "zzzz" in place (same
        # length, so the Thrift footer stays valid).
        with open(p, "rb") as f:
            data = f.read()
        m.true("name zzzz found in the footer", data.count(b"zzzz") >= 1)
        bad = data.replace(b"zzzz", b"\xff\xc3z\xed")
        q = os.path.join(d, "bad-utf8.parquet")
        with open(q, "wb") as f:
            f.write(bad)
        rc, out, err = run("schema", "--json", q)
        m.eq("bad utf8 schema exit", rc, 0)
        # The raw output must itself be valid UTF-8 and valid JSON.
        raw = subprocess.run([CLI, "schema", "--json", q], stdout=subprocess.PIPE).stdout
        try:
            doc = json.loads(raw.decode("utf-8"))
            m.eq("bad utf8 name", doc["fields"][1]["name"], "\ufffd\ufffdz\ufffd")
        except (UnicodeDecodeError, ValueError) as e:
            m.true("output is not UTF-8 JSON: %s" % e, False)
        m.true("escapes are lowercase \\ufffd", b"\\ufffd" in raw)
        # Text output escapes instead of passing the bytes through.
        rc, out, err = run("schema", q)
        m.true("text shows \\xff: %r" % out, "\\xff\\xc3z\\xed" in out)
        rc, out, err = run("schema", p)
        m.true("text shows control chars escaped", "\\x0a\\x09\\x01\\x7f" in out)
    m.done()


def test_extreme_values():
    """Synthetic file: int64/uint64 extremes, floats, dates, strings, bools;
    the same comparison as for the corpus."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "extremes.parquet")
        t = pa.table({
            "i64": pa.array([-2**63, 2**63 - 1, None], pa.int64()),
            "u64": pa.array([0, 2**64 - 1, 5], pa.uint64()),
            "u32": pa.array([2**32 - 1, 1, 7], pa.uint32()),
            "i8": pa.array([-128, 127, 0], pa.int8()),
            "f32": pa.array([-1.5e-45, 3.4028234663852886e38, 0.1], pa.float32()),
            "f64": pa.array([-2.2250738585072014e-308, 1.7976931348623157e308, 0.1], pa.float64()),
            "d": pa.array([-719162, 2932896, 0], pa.date32()),
            "s": pa.array(["", "\U0010ffff end", "mid"], pa.string()),
            "b": pa.array([True, False, None], pa.bool_()),
            "ts": pa.array([0, 1, 2], pa.timestamp("us", tz="UTC")),
        })
        pq.write_table(t, p, row_group_size=2, write_page_index=True)
        before = counters["minmax_compared"]
        check_meta(p)
        check_schema(p)
        if counters["minmax_compared"] - before < 8:
            raise AssertionError("only %d min/max pairs compared"
                                 % (counters["minmax_compared"] - before))
        ours = run_json("meta", "--json", p)
        st = ours["row_groups"][0]["columns"][0]["stats"]
        if (st["min"], st["max"]) != ("-9223372036854775808", "9223372036854775807"):
            raise AssertionError("i64 bounds %r" % ((st["min"], st["max"]),))
        st = ours["row_groups"][0]["columns"][1]["stats"]
        if st["max"] != "18446744073709551615":
            raise AssertionError("u64 max %r" % st["max"])


def test_deep_nesting():
    """90 nested structs (pyarrow reads up to 100 levels): the tree walk
    without recursion gets every path and level right."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "deep.parquet")
        t = pa.int32()
        for i in range(90):
            t = pa.struct([("s%d" % i, t), ("x%d" % i, pa.int8())])
        pq.write_table(pa.table({"deep": pa.array([None, {"s89": None, "x89": 1}], t)}), p)
        check_meta(p)
        check_schema(p)
        check_text(p)
        md = pq.ParquetFile(p).metadata
        if md.schema.column(0).max_definition_level != 91:
            raise AssertionError("the file is not as deep as intended")


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

_corpus_files = None


def corpus_files():
    """Corpus files under data/ (recursively) that pyarrow opens."""
    global _corpus_files
    if _corpus_files is None:
        out = []
        for p in sorted(glob.glob(os.path.join(corpus_dir(), "data", "**", "*.parquet"),
                                  recursive=True)):
            try:
                pq.ParquetFile(p).metadata
            except Exception:  # pyarrow refuses it: no oracle
                continue
            out.append(p)
        _corpus_files = out
    return _corpus_files


def biggest_corpus_file():
    return max(corpus_files(), key=lambda p: pq.ParquetFile(p).metadata.num_columns *
               pq.ParquetFile(p).metadata.num_row_groups)


def main():
    if not CLI or not os.access(CLI, os.X_OK):
        print("SKIP: PQSTEP_CLI is not set to an executable (%r)" % CLI)
        return SKIP
    root = corpus_dir()
    if not root or not os.path.isdir(os.path.join(root, "data")):
        print("SKIP: corpus not found (PQSTEP_TEST_CORPUS / PQSTEP_DEFAULT_CORPUS = %r)" % root)
        return SKIP
    files = corpus_files()
    if not files:
        print("SKIP: no Parquet file under %s/data that pyarrow opens" % root)
        return SKIP

    tests = []
    for p in files:
        rel = os.path.relpath(p, root)
        tests.append(("meta " + rel, lambda p=p: check_meta(p)))
        tests.append(("schema " + rel, lambda p=p: check_schema(p)))
        tests.append(("text " + rel, lambda p=p: check_text(p)))
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and callable(fn):
            tests.append((name, fn))

    passed = failed = 0
    for name, fn in tests:
        try:
            fn()
        except Exception as e:  # AssertionError or anything unexpected
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
        else:
            passed += 1
    print("compared: %d column chunks, %d min/max pairs, %d Arrow types of top-level leaves"
          % (counters["chunks_compared"], counters["minmax_compared"],
             counters["arrow_compared"]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
