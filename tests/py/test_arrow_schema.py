#!/usr/bin/env python3
"""test_arrow_schema.py — pq_metadata_arrow_schema() against pyarrow.

For every corpus file under data/ whose schema pyarrow reads, the footer is
parsed with pq_metadata_parse() (ctypes over $PQSTEP_LIBRARY), exported with
pq_metadata_arrow_schema() into a ctypes-allocated ArrowSchema, imported
with pyarrow.Schema._import_from_c(), and compared field by field with
pyarrow's own reading of the Parquet schema: names at every level (list
elements, map entries, keys and values), types, nullability and field
metadata.

The oracle must read the Parquet schema alone: pyarrow applies a stored
ARROW:schema (a serialized Arrow schema some writers add) even in
ParquetFile.schema.to_arrow_schema(). So the oracle reads a copy of the
footer in which that key is renamed (same length, so the Thrift stays
valid); pqstep is given the original footer.

Accepted differences (everything else must be equal):
  - GEOMETRY / GEOGRAPHY columns: pqstep tags them as GeoArrow's
    geoarrow.wkb with their CRS and edges (tests/py/test_geospatial.py
    checks that metadata); pyarrow tags them only from a stored ARROW:schema,
    which the oracle hides. The storage (binary) is compared.
  - Schema-level metadata: pqstep exports none; pyarrow copies the file's
    key/value metadata. Only fields are compared.

Also checked: projection (one leaf column keeps exactly its top-level
field), and that the schema outlives the pq_metadata.

Exit 0 when every check passes, 1 otherwise, 77 when the library, pyarrow
or the corpus is missing.
"""
import ctypes
import glob
import io
import os
import struct
import sys

SKIP = 77

import pyarrow as pa
import pyarrow.parquet as pq

LIB_PATH = os.environ.get("PQSTEP_LIBRARY")
CORPUS = os.environ.get("PQSTEP_TEST_CORPUS") or os.environ.get("PQSTEP_DEFAULT_CORPUS")

if not LIB_PATH or not os.path.exists(LIB_PATH):
    print("SKIP: PQSTEP_LIBRARY is not set or missing: %r" % LIB_PATH)
    sys.exit(SKIP)
if not CORPUS or not os.path.isdir(os.path.join(CORPUS, "data")):
    print("SKIP: the parquet-testing corpus is missing: %r" % CORPUS)
    sys.exit(SKIP)

lib = ctypes.CDLL(LIB_PATH)
lib.pq_metadata_parse.restype = ctypes.c_void_p
lib.pq_metadata_parse.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
lib.pq_metadata_release.restype = None
lib.pq_metadata_release.argtypes = [ctypes.c_void_p]
lib.pq_metadata_arrow_schema.restype = ctypes.c_int
lib.pq_metadata_arrow_schema.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                         ctypes.c_void_p, ctypes.c_void_p]

ARROW_SCHEMA_SIZE = 72  # 9 pointer-sized fields on LP64
PQ_ERROR_SIZE = 4 + 256


def footer_of(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 12 or data[-4:] != b"PAR1":
        return None
    n = struct.unpack("<I", data[-8:-4])[0]
    if n > len(data) - 8:
        return None
    return data[-8 - n:-8]


def error_text(err):
    return err.raw[4:].split(b"\0", 1)[0].decode("utf-8", "replace")


def export(footer, columns=None, release_md_first=True):
    """Parse `footer` and export its Arrow schema; returns a pyarrow Schema."""
    err = ctypes.create_string_buffer(PQ_ERROR_SIZE)
    md = lib.pq_metadata_parse(footer, len(footer), None, err)
    if not md:
        raise AssertionError("pq_metadata_parse: %s" % error_text(err))
    c_schema = ctypes.create_string_buffer(ARROW_SCHEMA_SIZE)
    cols, ncols = None, 0
    if columns is not None:
        arr = (ctypes.c_uint32 * max(1, len(columns)))(*columns)
        cols, ncols = ctypes.cast(arr, ctypes.c_void_p), len(columns)
    st = lib.pq_metadata_arrow_schema(md, cols, ncols, ctypes.addressof(c_schema), err)
    if release_md_first:  # the exported schema must not point into md
        lib.pq_metadata_release(md)
    if st != 0:
        if not release_md_first:
            lib.pq_metadata_release(md)
        raise AssertionError("pq_metadata_arrow_schema: status %d: %s" % (st, error_text(err)))
    schema = pa.Schema._import_from_c(ctypes.addressof(c_schema))
    if not release_md_first:
        lib.pq_metadata_release(md)
    return schema


def oracle(footer):
    """pyarrow's reading of the Parquet schema alone (stored ARROW:schema hidden)."""
    hidden = footer.replace(b"ARROW:schema", b"ARROW:schemX")
    image = b"PAR1" + hidden + struct.pack("<I", len(hidden)) + b"PAR1"
    return pq.ParquetFile(io.BytesIO(image)).schema.to_arrow_schema()


def is_geo(field):
    md = field.metadata or {}
    return md.get(b"ARROW:extension:name", b"").startswith(b"geoarrow.")


def compare_field(ours, theirs, where, problems):
    """Recursive comparison of two pyarrow Fields: names, nullability, metadata, types."""
    where = "%s/%s" % (where, theirs.name)
    if ours.name != theirs.name:
        problems.append("%s: name %r, pyarrow %r" % (where, ours.name, theirs.name))
    if ours.nullable != theirs.nullable:
        problems.append("%s: nullable %s, pyarrow %s" % (where, ours.nullable, theirs.nullable))
    theirs_md = dict(theirs.metadata or {})
    ours_md = dict(ours.metadata or {})
    if is_geo(theirs) or is_geo(ours):  # accepted (see top): the storage is compared
        theirs_md = {k: v for k, v in theirs_md.items() if not k.startswith(b"ARROW:extension:")}
        ours_md = {k: v for k, v in ours_md.items() if not k.startswith(b"ARROW:extension:")}
    if ours_md != theirs_md:
        problems.append("%s: metadata %r, pyarrow %r" % (where, ours.metadata, theirs_md))
    compare_type(ours.type, theirs.type, where, problems)


def compare_type(ot, tt, where, problems):
    if type(ot) is not type(tt) or ot.id != tt.id:
        problems.append("%s: type %s, pyarrow %s" % (where, ot, tt))
        return
    if isinstance(tt, pa.BaseExtensionType):
        if ot.extension_name != tt.extension_name:
            problems.append("%s: extension %s, pyarrow %s" % (where, ot, tt))
        compare_type(ot.storage_type, tt.storage_type, where, problems)
        return
    if pa.types.is_map(tt):
        # pyarrow's importer renames the entries struct "entries": its
        # exported name is checked on the C structs (compare_c)
        compare_field(ot.key_field, tt.key_field, where + "/<key>", problems)
        compare_field(ot.item_field, tt.item_field, where + "/<item>", problems)
    elif pa.types.is_list(tt):
        compare_field(ot.value_field, tt.value_field, where + "/<list>", problems)
    elif pa.types.is_struct(tt):
        if ot.num_fields != tt.num_fields:
            problems.append("%s: %d fields, pyarrow %d" % (where, ot.num_fields, tt.num_fields))
            return
        for i in range(tt.num_fields):
            compare_field(ot.field(i), tt.field(i), where, problems)
    elif ot != tt:
        problems.append("%s: type %s, pyarrow %s" % (where, ot, tt))


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
    ("private_data", ctypes.c_void_p)]
assert ctypes.sizeof(ArrowSchema) == ARROW_SCHEMA_SIZE


def c_metadata(ptr):
    """Decode the C Data Interface's binary metadata into a dict."""
    if not ptr:
        return {}
    def i32(off):
        return struct.unpack("=i", ctypes.string_at(ptr + off, 4))[0]
    out, off = {}, 4
    for _ in range(i32(0)):
        kl = i32(off)
        key = ctypes.string_at(ptr + off + 4, kl)
        off += 4 + kl
        vl = i32(off)
        out[key] = ctypes.string_at(ptr + off + 4, vl)
        off += 4 + vl
    return out


def compare_c(ours, theirs, where, problems):
    """Walk two C ArrowSchema trees in parallel: format, name, flags, metadata."""
    name = (theirs.name or b"").decode("utf-8", "replace")
    where = "%s/%s" % (where, name)
    for attr in ("format", "name", "flags", "n_children"):
        a, b = getattr(ours, attr), getattr(theirs, attr)
        if attr == "name":
            a, b = a or b"", b or b""
        if a != b:
            problems.append("C %s: %s %r, pyarrow %r" % (where, attr, a, b))
    om, tm = c_metadata(ours.metadata), c_metadata(theirs.metadata)
    if where == "/":  # the schema itself: file metadata is not exported (see top)
        tm = {}
    if tm.get(b"ARROW:extension:name", b"").startswith(b"geoarrow.") or \
            om.get(b"ARROW:extension:name", b"").startswith(b"geoarrow."):  # accepted, see top
        tm = {k: v for k, v in tm.items() if not k.startswith(b"ARROW:extension:")}
        om = {k: v for k, v in om.items() if not k.startswith(b"ARROW:extension:")}
    if om != tm:
        problems.append("C %s: metadata %r, pyarrow %r" % (where, om, tm))
    if bool(ours.dictionary) != bool(theirs.dictionary):
        problems.append("C %s: dictionary differs" % where)
    if ours.n_children == theirs.n_children:
        for i in range(theirs.n_children):
            compare_c(ours.children[i].contents, theirs.children[i].contents, where, problems)


def export_c(footer):
    """Our export as a ctypes ArrowSchema (caller releases)."""
    err = ctypes.create_string_buffer(PQ_ERROR_SIZE)
    md = lib.pq_metadata_parse(footer, len(footer), None, err)
    if not md:
        raise AssertionError("pq_metadata_parse: %s" % error_text(err))
    out = ArrowSchema()
    st = lib.pq_metadata_arrow_schema(md, None, 0, ctypes.addressof(out), err)
    lib.pq_metadata_release(md)
    if st != 0:
        raise AssertionError("pq_metadata_arrow_schema: status %d: %s" % (st, error_text(err)))
    return out


def main():
    passed = failed = 0
    files = sorted(glob.glob(os.path.join(CORPUS, "data", "**", "*.parquet"), recursive=True))
    if not files:
        print("SKIP: no data/*.parquet files under %s" % CORPUS)
        return SKIP
    for path in files:
        rel = os.path.relpath(path, CORPUS)
        footer = footer_of(path)
        if footer is None:
            continue
        try:
            want = oracle(footer)
        except Exception as e:  # pyarrow refuses it: nothing to compare with
            print("note: %s: pyarrow cannot read the schema (%s)" % (rel, e))
            continue
        problems = []
        try:
            got = export(footer)
            if len(got) != len(want):
                problems.append("%d fields, pyarrow %d" % (len(got), len(want)))
            else:
                for i in range(len(want)):
                    compare_field(got.field(i), want.field(i), "", problems)
            # the raw C structs, against pyarrow's own export of its schema
            ours_c, theirs_c = export_c(footer), ArrowSchema()
            want._export_to_c(ctypes.addressof(theirs_c))
            compare_c(ours_c, theirs_c, "", problems)
            ours_c.release(ctypes.byref(ours_c))
            theirs_c.release(ctypes.byref(theirs_c))
            if ours_c.release or theirs_c.release:
                problems.append("release did not set release to NULL")
            # projection: the last leaf alone keeps exactly its top-level field
            nleaves = pq.ParquetFile(io.BytesIO(b"PAR1" + footer + struct.pack("<I", len(footer))
                                                + b"PAR1")).metadata.num_columns
            if nleaves and len(want):
                top = pq.ParquetFile(io.BytesIO(b"PAR1" + footer + struct.pack("<I", len(footer))
                                                + b"PAR1")).schema.column(nleaves - 1).path.split(".")[0]
                proj = export(footer, [nleaves - 1, nleaves - 1], release_md_first=False)
                if proj.names != [top]:
                    problems.append("projection on leaf %d: %s, want [%s]" % (nleaves - 1, proj.names, top))
                elif not proj.field(0).equals(got.field(top), check_metadata=True):
                    problems.append("projection changed field %s" % top)
        except AssertionError as e:
            problems.append(str(e))
        if problems:
            failed += 1
            print("FAIL %s" % rel)
            for p in problems[:20]:
                print("    " + p)
        else:
            passed += 1

    # An out-of-range column is refused, and leaves a released (NULL) struct.
    footer = footer_of(os.path.join(CORPUS, "data", "alltypes_plain.parquet"))
    if footer is not None:
        try:
            export(footer, [11])
            print("FAIL out-of-range projection accepted")
            failed += 1
        except AssertionError as e:
            if "out of range" in str(e):
                passed += 1
            else:
                print("FAIL out-of-range projection: %s" % e)
                failed += 1

    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
