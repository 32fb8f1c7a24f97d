#!/usr/bin/env python3
"""test_lenient.py — annotations no current writer makes (issue 36, cases 1
and 3), in files tests/fixtures/gen_lenient.py crafts from pyarrow's.

Case 1, the obsolete converted type NA (24) on an all-null column with no
logicalType (as parquet-cpp 1.5 wrote): read_table and the CLI (meta,
schema, cat) read the file, the column is all null with pyarrow's row
count, the read equals pyarrow's, and nothing is warned.

Case 3, the whole matrix: every converted type (known, obsolete, unknown)
and every logicalType kind (with its parameters) on every storage (BOOLEAN,
INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY of 2,
12 and 16 bytes), dictionary-encoded and PLAIN:
  - where it cannot apply: the read (CPU, one thread, the device executor's
    host kernels) equals pyarrow's read of the file before crafting (the
    stored values, by physical type), and so do a filter on the column and
    `pqstep meta`'s statistics; every annotated column has a warning
    in FileMetadata.warnings and Reader.warnings, read_table and
    Reader.read issue them as pqstep.ParquetWarning, the CLI prints them
    ("pqstep: warning: FILE: column 'c': ...") for meta, schema, pages and
    cat, all exiting 0;
  - where it applies: the read equals pyarrow's read of the crafted file
    (the current behaviour), and nothing is warned;
  - always: `pqstep schema --json` gives each column the Arrow type the
    read returns.
Among the annotations, a LogicalType union member no specification defines
(id 30) "applies" everywhere: every column reads as its storage, equal to
pyarrow's read, with no warning. And files whose footer holds fields no
parquet-format version defines (id 99 in FileMetaData, every
SchemaElement, RowGroup, ColumnChunk, ColumnMetaData and Statistics) read
as pyarrow reads them, with no warning (issue 33: future fields skipped).
And the cap: a file with more annotations set aside than the library keeps
warnings for ends its list with one that counts the rest.

Exit 1 on any failure, 77 when pyarrow or the library is missing.
"""
import json
import os
import subprocess
import sys
import tempfile
import warnings

SKIP = 77
try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:
    print("SKIP: pyarrow is not installed")
    sys.exit(SKIP)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("PQSTEP_SOURCE_DIR") or os.path.join(HERE, "..", "..")
LIB = os.environ.get("PQSTEP_LIBRARY")
if not LIB or not os.path.exists(LIB):
    print("SKIP: PQSTEP_LIBRARY is not set to an existing library")
    sys.exit(SKIP)
CLI = os.environ.get("PQSTEP_CLI") or os.path.join(os.path.dirname(LIB), "pqstep")
sys.path.insert(0, os.path.join(SOURCE, "python"))
sys.path.insert(0, os.path.join(SOURCE, "tests", "fixtures"))
import pqstep  # noqa: E402
from thrift_compact import I32, read_footer, write_with_footer  # noqa: E402

GEN = os.path.join(SOURCE, "tests", "fixtures", "gen_lenient.py")
DEVICES = ["cpu", "host-kernels"]

failures = []
checked = {"fit": 0, "misfit": 0, "fit_pairs": 0, "misfit_pairs": 0}


def fail(what, why):
    failures.append("%s: %s" % (what, why))
    print("FAIL %s: %s" % (what, why))


def read(path, **kw):
    """pqstep.read_table, with the ParquetWarnings it issued."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        t = pqstep.read_table(path, **kw)
    return t, [str(w.message) for w in got if issubclass(w.category, pqstep.ParquetWarning)]


def cli(*args):
    return subprocess.run([CLI] + list(args), capture_output=True, text=True)


def warned_columns(lines, prefix):
    """Columns named by warnings "<prefix>column 'c': ..."."""
    out = []
    for line in lines:
        if line.startswith(prefix + "column '"):
            out.append(line[len(prefix) + len("column '"):].split("'", 1)[0])
    return out


def same_table(ours, theirs):
    """None when equal (types and values), else what differs."""
    if ours.schema.names != theirs.schema.names:
        return "columns %s, expected %s" % (ours.schema.names, theirs.schema.names)
    if ours.num_rows != theirs.num_rows:
        return "%d rows, expected %d" % (ours.num_rows, theirs.num_rows)
    for name in ours.schema.names:
        a, b = ours.column(name).combine_chunks(), theirs.column(name).combine_chunks()
        if a.type != b.type:
            return "column %s: type %s, expected %s" % (name, a.type, b.type)
        if not a.equals(b):
            return "column %s: %s, expected %s" % (name, a.to_pylist(), b.to_pylist())
    return None


def check_schema_cli(what, path, table):
    """`pqstep schema --json` names, for every column, the type read."""
    r = cli("schema", "--json", path)
    if r.returncode != 0:
        fail(what, "pqstep schema exit %d: %s" % (r.returncode, r.stderr.strip()))
        return None
    types = {f["name"]: f["arrow_type"] for f in json.loads(r.stdout)["fields"]}
    for name in table.schema.names:
        t = table.schema.field(name).type
        expect = str(t.storage_type if isinstance(t, pa.ExtensionType) and
                     t.extension_name == "arrow.json" else t)
        if isinstance(t, pa.ExtensionType) and t.extension_name == "arrow.uuid":
            expect = "extension<arrow.uuid>"
        if types.get(name) != expect and not (isinstance(t, pa.ExtensionType) and t.extension_name in types.get(name, "")):
            fail(what, "pqstep schema says %s is %s, the read gives %s" % (name, types.get(name), t))
    return r.stderr


def check_case(case, base_tables, pyarrow_of):
    path, cols, fits = case["file"], case["columns"], case["fits"]
    what = "%s %s on %s (%s)" % ("fit" if fits else "misfit", case["annotation"], ",".join(cols), case["base"])
    if fits:
        expect = pyarrow_of(path)
        if isinstance(expect, Exception):
            fail(what, "pyarrow cannot read a file whose annotations apply: %s" % expect)
            return
    else:
        expect = base_tables[case["base"]]

    # the library: read, warnings, for both executors and one thread
    for kw in [dict(device=d) for d in DEVICES] + [dict(threads=1)]:
        try:
            t, warned = read(path, **kw)
        except pqstep.Error as e:
            fail(what, "read_table(%s) failed: %s" % (kw, e))
            continue
        diff = same_table(t, expect)
        if diff:
            fail(what, "read_table(%s): %s" % (kw, diff))
        got = warned_columns(warned, path + ": ")
        if got != ([] if fits else cols):
            fail(what, "read_table(%s) warned about %s: %s" % (kw, got, warned))

    md_warnings = []
    try:
        with pqstep.Reader(path) as r:
            md_warnings = r.metadata.warnings
            if r.warnings != md_warnings:
                fail(what, "Reader.warnings %s, FileMetadata.warnings %s" % (r.warnings, md_warnings))
            with warnings.catch_warnings(record=True) as got:
                warnings.simplefilter("always")
                t = r.read()
            if same_table(t, expect):
                fail(what, "Reader.read: %s" % same_table(t, expect))
            issued = [str(w.message) for w in got if issubclass(w.category, pqstep.ParquetWarning)]
            if issued != ["%s: %s" % (path, m) for m in md_warnings]:
                fail(what, "Reader.read issued %s" % issued)
    except pqstep.Error as e:
        fail(what, "Reader: %s" % e)
    if warned_columns(md_warnings, "") != ([] if fits else cols):
        fail(what, "FileMetadata.warnings: %s" % md_warnings)
    for m in md_warnings:
        if ": read as " not in m:
            fail(what, "a warning that does not say how the column reads: %s" % m)

    # a filter compares the values read (the stored integers where set aside)
    if not fits:
        for c in cols:
            if c in ("i32", "i64"):
                try:
                    t, _ = read(path, filter="%s = 1" % c, columns=[c])
                except pqstep.Error as e:
                    fail(what, "filter %s = 1: %s" % (c, e))
                    continue
                if t.column(c).to_pylist() != [1, 1]:
                    fail(what, "filter %s = 1 gave %s" % (c, t.column(c).to_pylist()))

    # statistics are shown as the values read (stored 1 and 3, not 0.01 or dates)
    if not fits:
        r = cli("meta", "--json", path)
        if r.returncode == 0:
            for c in json.loads(r.stdout)["row_groups"][0]["columns"]:
                st = c.get("stats") or {}
                if c["path"] in cols and c["path"] in ("i32", "i64") and (st.get("min"), st.get("max")) != ("1", "3"):
                    fail(what, "pqstep meta: %s statistics %s" % (c["path"], st))

    # the CLI: exit 0, the warnings on stderr, the schema's types are the read's
    stderr = check_schema_cli(what, path, expect)
    outs = {"schema": stderr}
    for cmd in ("meta", "pages", "cat"):
        r = cli(cmd, path)
        if r.returncode != 0:
            fail(what, "pqstep %s exit %d: %s" % (cmd, r.returncode, r.stderr.strip()))
        outs[cmd] = r.stderr
    for cmd, err in outs.items():
        if err is None:
            continue
        lines = err.splitlines()
        got = warned_columns(lines, "pqstep: warning: %s: " % path)
        if got != ([] if fits else cols) or len(got) != len(lines):
            fail(what, "pqstep %s printed %s" % (cmd, lines))
    checked["fit" if fits else "misfit"] += 1
    checked["fit_pairs" if fits else "misfit_pairs"] += len(cols)


def check_na(m):
    """Case 1: converted_type 24 on an all-null column."""
    path, what = m["na"], "NA (24) on an all-null column"
    expect = pq.read_table(path)
    base = pq.read_table(m["na_base"])
    for kw in [dict(device=d) for d in DEVICES]:
        try:
            t, warned = read(path, **kw)
        except pqstep.Error as e:
            fail(what, "read_table(%s) failed: %s" % (kw, e))
            continue
        if t.num_rows != base.num_rows or t.column("n").null_count != base.num_rows:
            fail(what, "column n: %s, expected %d nulls" % (t.column("n"), base.num_rows))
        if t.schema.field("n").type != pa.null():
            fail(what, "column n is %s" % t.schema.field("n").type)
        diff = same_table(t, expect)
        if diff:
            fail(what, "read_table(%s): %s" % (kw, diff))
        if warned:
            fail(what, "warned: %s" % warned)
    for cmd in ("meta", "schema", "cat", "pages"):
        r = cli(cmd, path)
        if r.returncode != 0 or r.stderr:
            fail(what, "pqstep %s exit %d: %s" % (cmd, r.returncode, r.stderr.strip()))
    r = cli("schema", "--json", path)
    if r.returncode == 0:
        n = [f for f in json.loads(r.stdout)["fields"] if f["name"] == "n"][0]
        if n["arrow_type"] != "null" or n["converted_type"] != "NA":
            fail(what, "pqstep schema: %s" % n)
    r = cli("cat", path)
    if r.returncode == 0 and [ln.split()[-1] for ln in r.stdout.splitlines()[1:]] != ["null"] * 3:
        fail(what, "pqstep cat: %s" % r.stdout)


def check_cap(tmp):
    """More warnings than the library keeps: the last one counts the rest."""
    n = 70
    base = os.path.join(tmp, "wide.parquet")
    pq.write_table(pa.table({"c%d" % i: pa.array([i], pa.int64()) for i in range(n)}), base,
                   store_schema=False)
    md, head = read_footer(base)
    for se in md.get(2).values[1:]:
        se.set(6, I32, 15)  # INT_8 on INT64
    path = os.path.join(tmp, "wide-int8.parquet")
    write_with_footer(path, head, md)
    what = "%d columns INT_8 on INT64" % n
    ws = pqstep.read_metadata(path).warnings
    if len(ws) != 65 or warned_columns(ws[:64], "") != ["c%d" % i for i in range(64)]:
        fail(what, "%d warnings: %s" % (len(ws), ws[:2] + ws[-2:]))
    elif not ws[64].startswith("6 more warnings"):
        fail(what, "the last warning: %s" % ws[64])
    t, warned = read(path)
    if same_table(t, pq.read_table(base)) or len(warned) != 65:
        fail(what, "read_table: %s, %d warnings" % (same_table(t, pq.read_table(base)), len(warned)))
    r = cli("schema", path)
    if r.returncode != 0 or len(r.stderr.splitlines()) != 65:
        fail(what, "pqstep schema exit %d, %d lines on stderr" % (r.returncode, len(r.stderr.splitlines())))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, GEN, tmp], check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(tmp, "lenient.json")) as fp:
            m = json.load(fp)
        base_tables = {k: pq.read_table(p) for k, p in m["bases"].items()}
        cache = {}

        def pyarrow_of(path):
            if path not in cache:
                try:
                    cache[path] = pq.read_table(path)
                except Exception as e:  # noqa: BLE001 (pyarrow's refusals vary)
                    cache[path] = e
            return cache[path]

        check_na(m)
        for case in m["cases"]:
            check_case(case, base_tables, pyarrow_of)
        check_cap(tmp)
    print("matrix: %d files where the annotation applies (%d columns), %d where it cannot (%d columns)"
          % (checked["fit"], checked["fit_pairs"], checked["misfit"], checked["misfit_pairs"]))
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
