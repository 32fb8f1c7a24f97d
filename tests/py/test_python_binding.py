#!/usr/bin/env python3
"""test_python_binding.py — the ctypes binding (python/pqstep) against pyarrow.

For every corpus file under data/ that pyarrow opens, pqstep.read_metadata()
must agree with pyarrow.parquet.ParquetFile(f).metadata (counts, writer, row
groups, leaf paths, levels, physical types, Arrow types of top-level leaves)
and footer_bytes() must be the file's own footer bytes. Then reuse, counted
by hand: a Reader given footer bytes parses them once and reads nothing; one
given metadata parses nothing; five readers through a MetadataCache parse
once (four hits). Errors carry the library's status name; decoding calls
raise NotImplementedError until the decode stage lands. Last, the ctypes
structs are compared field by field with the C compiler's layout
(sizeof/offsetof/_Alignof), skipped with a message when no C compiler exists.

Environment (set by ctest): PQSTEP_LIBRARY (the shared library),
PQSTEP_SOURCE_DIR (the repository), PQSTEP_TEST_CORPUS or
PQSTEP_DEFAULT_CORPUS. Exit 0 when every test passes, 1 otherwise, 77 when
something needed is missing.
"""
import ctypes
import glob
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77

SOURCE_DIR = os.environ.get("PQSTEP_SOURCE_DIR") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PYTHON_DIR = os.path.join(SOURCE_DIR, "python")

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, PYTHON_DIR)
try:
    import pqstep
    from pqstep import _lib
except ImportError as e:
    print("SKIP: the pqstep package or libpqstep.so cannot be loaded: %s" % e)
    sys.exit(SKIP)


def corpus_dir():
    """As tests/common/test_util.c: $PQSTEP_TEST_CORPUS, else the default
    (../shared/parquet-testing beside the repository)."""
    return (os.environ.get("PQSTEP_TEST_CORPUS") or os.environ.get("PQSTEP_DEFAULT_CORPUS")
            or os.path.join(SOURCE_DIR, "..", "shared", "parquet-testing"))


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
            msg = "%s:\n    " % self.where + "\n    ".join(shown)
            if len(self.items) > len(shown):
                msg += "\n    ... and %d more" % (len(self.items) - len(shown))
            raise AssertionError(msg)


def expect_error(fn, code):
    try:
        fn()
    except pqstep.Error as e:
        if e.code != code:
            raise AssertionError("expected code %r, got %r (%s)" % (code, e.code, e))
        return e
    raise AssertionError("expected pqstep.Error %r, nothing raised" % code)


def expect_raise(exc, fn, needle=None):
    try:
        fn()
    except exc as e:
        if needle is not None and needle not in str(e):
            raise AssertionError("%s message %r lacks %r" % (exc.__name__, str(e), needle))
        return e
    raise AssertionError("expected %s, nothing raised" % exc.__name__)


def file_footer(path):
    """The footer bytes as the file holds them: before the 4-byte length and
    "PAR1" at the end."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[-4:] == b"PAR1", "%s does not end with PAR1" % path
    (n,) = struct.unpack("<I", data[-8:-4])
    return data[-8 - n:-8]


# ---------------------------------------------------------------------------
# read_metadata against pyarrow
# ---------------------------------------------------------------------------

counters = {"leaves": 0, "row_groups": 0, "arrow_types": 0}


def check_metadata(path):
    m = Mismatches(os.path.relpath(path, corpus_dir()))
    pmd = pq.ParquetFile(path).metadata
    md = pqstep.read_metadata(path)

    m.eq("num_rows", md.num_rows, pmd.num_rows)
    m.eq("num_row_groups", md.num_row_groups, pmd.num_row_groups)
    m.eq("num_columns", md.num_columns, pmd.num_columns)
    m.eq("len(columns)", len(md.columns), pmd.num_columns)
    # pyarrow shows FileMetaData.version 1 as "1.0" and any other as "2.x".
    m.eq("version is 1", md.version == 1, pmd.format_version == "1.0")
    # pyarrow says "" when created_by is absent; we say None.
    m.true("created_by is '' (absent must be None)", md.created_by != "")
    m.eq("created_by", md.created_by or "", pmd.created_by or "")
    m.eq("key_value_metadata keys", sorted(md.key_value_metadata), sorted(pmd.metadata or {}))
    m.eq("is_projected", md.is_projected, False)

    for i, rg in enumerate(md.row_groups[:pmd.num_row_groups]):
        prg = pmd.row_group(i)
        counters["row_groups"] += 1
        m.eq("row_groups[%d].index" % i, rg.index, i)
        m.eq("row_groups[%d].num_rows" % i, rg.num_rows, prg.num_rows)
        m.eq("row_groups[%d].total_byte_size" % i, rg.total_byte_size, prg.total_byte_size)
        m.eq("row_groups[%d].num_columns" % i, rg.num_columns, prg.num_columns)

    schema = pmd.schema
    for i, col in enumerate(md.columns[:pmd.num_columns]):
        pcol = schema.column(i)
        w = "columns[%d]" % i
        counters["leaves"] += 1
        m.eq(w + ".index", col.index, i)
        m.eq(w + ".path", col.path, pcol.path)
        m.eq(w + ".max_def", col.max_def, pcol.max_definition_level)
        m.eq(w + ".max_rep", col.max_rep, pcol.max_repetition_level)
        m.eq(w + ".physical_type", col.physical_type, pcol.physical_type)
        if pcol.physical_type == "FIXED_LEN_BYTE_ARRAY":
            m.eq(w + ".type_length", col.type_length, pcol.length)
        if str(pcol.logical_type) == "None" and pcol.converted_type == "NONE":
            m.eq(w + ".logical_type (none in the file)", col.logical_type, None)
        m.eq(w + ".find_column", md.find_column(pcol.path), i)

    # Arrow types of leaves that are whole top-level fields (a repeated
    # top-level leaf reads as a list of its values).
    by_path = {c.path: c for c in md.columns}
    for field in schema.to_arrow_schema():
        col = by_path.get(field.name)
        if col is None or "." in field.name:
            continue
        t = field.type
        if col.max_rep > 0:
            t = t.value_type if pa.types.is_list(t) else t
        counters["arrow_types"] += 1
        m.eq("arrow_type of %s" % field.name, col.arrow_type, str(t))

    fb = md.footer_bytes()
    m.eq("len(footer_bytes())", len(fb), pmd.serialized_size)
    m.true("footer_bytes() differs from the file's footer", fb == file_footer(path))

    # The same through a Reader, and rebuilt from the bytes.
    with pqstep.Reader(path) as r:
        m.eq("Reader.stage", r.stage, "footer")
        m.eq("Reader.num_row_groups", r.num_row_groups, pmd.num_row_groups)
        m.eq("Reader.file_size", r.file_size, os.path.getsize(path))
        m.true("Reader.footer_bytes() differs", r.footer_bytes() == fb)
        m.eq("Reader.metadata.columns", r.metadata.columns, md.columns)
        st = r.stage_stats("footer")
        m.eq("stage_stats parses", st["parses"], 1)
        m.eq("stage_stats reused", st["reused"], 0)
        m.true("stage_stats reads %d < 1" % st["reads"], st["reads"] >= 1)
        m.true("stage_stats bytes_read %d < footer + 8" % st["bytes_read"],
               st["bytes_read"] >= len(fb) + 8)
    again = pqstep.FileMetadata.from_footer_bytes(fb)
    m.eq("from_footer_bytes columns", again.columns, md.columns)
    m.eq("from_footer_bytes num_rows", again.num_rows, md.num_rows)
    md.close()
    again.close()
    m.done()


def check_footer_bytes_reuse(path):
    """Reader(path, footer_bytes=b): one parse of the bytes, no file read."""
    m = Mismatches(os.path.relpath(path, corpus_dir()))
    md = pqstep.read_metadata(path)
    fb = md.footer_bytes()
    before = pqstep.footer_parse_count()
    with pqstep.Reader(path, footer_bytes=fb) as r:
        m.eq("footer parses", pqstep.footer_parse_count() - before, 1)
        st = r.stage_stats("footer")
        m.eq("reads", st["reads"], 0)
        m.eq("bytes_read", st["bytes_read"], 0)
        m.eq("parses", st["parses"], 1)
        m.eq("reused", st["reused"], 1)
        m.eq("stage", r.stage, "footer")
        m.eq("columns", r.metadata.columns, md.columns)
        m.eq("num_rows", r.metadata.num_rows, md.num_rows)
    m.done()


# ---------------------------------------------------------------------------
# Reuse: metadata, cache
# ---------------------------------------------------------------------------

def test_metadata_reuse(path):
    md = pqstep.read_metadata(path)
    before = pqstep.footer_parse_count()
    r = pqstep.Reader(path, metadata=md)
    assert pqstep.footer_parse_count() == before, "a parse happened"
    st = r.stage_stats("footer")
    assert (st["reads"], st["bytes_read"], st["parses"], st["reused"]) == (0, 0, 0, 1), st
    # The reader holds its own reference: dropping ours leaves its metadata usable.
    expected = md.columns
    fb = md.footer_bytes()
    md.close()
    expect_raise(ValueError, md.footer_bytes, "closed")
    assert r.metadata.columns == expected
    assert r.footer_bytes() == fb
    # And the metadata taken from a reader outlives the reader.
    shared = r.metadata
    r.close()
    assert shared.footer_bytes() == fb
    expect_raise(ValueError, lambda: r.stage, "closed")
    assert pqstep.footer_parse_count() == before


def test_cache(path):
    with pqstep.MetadataCache(64 << 20) as cache:
        before = pqstep.footer_parse_count()
        stats = []
        for _ in range(5):
            with pqstep.Reader(path, cache=cache) as r:
                assert r.stage == "footer"
                stats.append(r.stage_stats("footer"))
                md_bytes = r.metadata.memory_size
        assert pqstep.footer_parse_count() - before == 1, pqstep.footer_parse_count() - before
        s = cache.stats()
        want = {"hits": 4, "misses": 1, "loads": 1, "evictions": 0, "entries": 1,
                "bytes": md_bytes, "max_bytes": 64 << 20}
        assert s == want, "cache stats %r, expected %r" % (s, want)
        assert [x["parses"] for x in stats] == [1, 0, 0, 0, 0], stats
        assert [x["reused"] for x in stats] == [0, 1, 1, 1, 1], stats
        assert all(x["reads"] == 0 for x in stats[1:]), stats
    expect_raise(ValueError, cache.stats, "closed")


def test_cache_too_small(path):
    """A cache of 0 bytes keeps nothing: every open parses."""
    with pqstep.MetadataCache(0) as cache:
        before = pqstep.footer_parse_count()
        for _ in range(2):
            pqstep.Reader(path, cache=cache).close()
        assert pqstep.footer_parse_count() - before == 2
        s = cache.stats()
        assert (s["hits"], s["misses"], s["loads"], s["entries"], s["bytes"]) == (0, 2, 2, 0, 0), s


def test_projection(path):
    md = pqstep.read_metadata(path)
    assert md.num_columns >= 2, "needs a file with two leaves"
    with pqstep.Reader(path, columns=[1]) as r:
        assert r.columns == [1]
        assert r.metadata.is_projected
        assert r.metadata.columns == md.columns  # the schema stays complete
    names = [md.columns[1].path, 0]
    with pqstep.Reader(path, columns=names) as r:
        assert r.columns == [1, 0], r.columns
        assert not r.metadata.is_projected
    expect_error(lambda: pqstep.Reader(path, columns=["no such column"]), "invalid argument")
    expect_error(lambda: pqstep.Reader(path, columns=[md.num_columns]), "invalid argument")


# ---------------------------------------------------------------------------
# Errors and the API still to come
# ---------------------------------------------------------------------------

def test_errors(path):
    tmp = tempfile.mkdtemp(prefix="pqstep-py-")
    try:
        missing = os.path.join(tmp, "missing.parquet")
        e = expect_error(lambda: pqstep.read_metadata(missing), "I/O error")
        assert e.path == missing and missing in str(e), str(e)
        expect_error(lambda: pqstep.Reader(missing), "I/O error")

        text = os.path.join(tmp, "text.parquet")
        with open(text, "w") as f:
            f.write("this is not a parquet file, just some text\n" * 10)
        e = expect_error(lambda: pqstep.read_metadata(text), "not a Parquet file")
        assert e.status == _lib.PQ_ERR_NOT_PARQUET, e.status
        tiny = os.path.join(tmp, "tiny.parquet")
        with open(tiny, "wb") as f:
            f.write(b"PAR1")
        expect_error(lambda: pqstep.read_metadata(tiny), "not a Parquet file")

        md = pqstep.read_metadata(path)
        expect_error(lambda: pqstep.Reader(path, metadata=md, footer_bytes=md.footer_bytes()),
                     "invalid argument")
        # 0xFF opens a field of compact type 15, which does not exist.
        expect_error(lambda: pqstep.FileMetadata.from_footer_bytes(b"\xff\xff\xff\xff"),
                     "corrupt footer")
        expect_raise(TypeError, lambda: pqstep.Reader(path, metadata="x"))
        expect_raise(ValueError, lambda: pqstep.Reader(path).stage_stats("nope"), "unknown stage")
    finally:
        shutil.rmtree(tmp)


def test_not_implemented(path):
    # Everything the binding declares is implemented now: filters are
    # tested in tests/py/test_filter.py. A filter that does not parse is a
    # pqstep.Error, not a crash.
    with pqstep.Reader(path) as r:
        expect_raise(pqstep.Error, lambda: r.select(filter="x <"), "at 3")
    expect_raise(pqstep.Error, lambda: pqstep.read_table(path, filter="x = 1 and"), "at 9")


def test_read_table_reuse(path):
    """read_table with a cache parses the footer once over many calls, with
    metadata= not at all; the tables are the same."""
    with pqstep.MetadataCache(64 << 20) as cache:
        before = pqstep.footer_parse_count()
        first = pqstep.read_table(path, cache=cache)
        for _ in range(3):
            assert pqstep.read_table(path, cache=cache).equals(first)
        assert pqstep.footer_parse_count() - before == 1, pqstep.footer_parse_count() - before
    md = pqstep.read_metadata(path)
    before = pqstep.footer_parse_count()
    assert pqstep.read_table(path, metadata=md).equals(first)
    assert pqstep.footer_parse_count() == before
    assert len(md.columns) == md.num_columns  # built when asked for


def test_stage_names():
    names = [pqstep._STAGE_NAMES[i] for i in range(_lib.PQ_STAGE_COUNT)]
    assert names == ["init", "footer", "select", "page headers", "filter", "decode"], names


def test_library_lookup():
    """A wrong $PQSTEP_LIBRARY is an ImportError naming it, not a silent fallback."""
    env = dict(os.environ, PQSTEP_LIBRARY="/nonexistent/libpqstep.so")
    p = subprocess.run([sys.executable, "-c", "import pqstep"], cwd=PYTHON_DIR, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode != 0, "import succeeded with a bogus PQSTEP_LIBRARY"
    assert "ImportError" in err and "/nonexistent/libpqstep.so" in err, err
    assert pqstep.__version__ and pqstep.__version__[0].isdigit(), pqstep.__version__


# ---------------------------------------------------------------------------
# ctypes layouts against the C compiler
# ---------------------------------------------------------------------------

def test_struct_layout():
    """sizeof, _Alignof, and offsetof + size of every field of every mirrored
    struct, from a C program compiled against include/, equal ctypes'."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        print("NOTE: no C compiler (cc/gcc/$CC): struct layout check skipped")
        return "skipped"
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "pq_error.h"',
             '#include "pq_metadata.h"', '#include "pq_cache.h"', '#include "pq_reader.h"',
             '#include "pq_remote.h"', '#include "pq_dataset.h"',
             'int main(void) {']
    expected = []
    for cls, cname in _lib.STRUCTS:
        lines.append('printf("%%s %%zu %%zu\\n", "%s", sizeof(%s), _Alignof(%s));'
                     % (cname, cname, cname))
        expected.append("%s %d %d" % (cname, ctypes.sizeof(cls), ctypes.alignment(cls)))
        for fname, _ in cls._fields_:
            lines.append('printf("%%s %%zu %%zu\\n", "%s.%s", offsetof(%s, %s), '
                         'sizeof(((%s *)0)->%s));' % (cname, fname, cname, fname, cname, fname))
            f = getattr(cls, fname)
            expected.append("%s.%s %d %d" % (cname, fname, f.offset, f.size))
    lines += ['return 0;', '}']
    tmp = tempfile.mkdtemp(prefix="pqstep-layout-")
    try:
        src = os.path.join(tmp, "layout.c")
        exe = os.path.join(tmp, "layout")
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        p = subprocess.run([cc, "-std=c11", "-I", os.path.join(SOURCE_DIR, "include"),
                            "-o", exe, src], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            raise AssertionError("compiling the layout program failed:\n" +
                                 p.stdout.decode("utf-8", "replace"))
        got = subprocess.run([exe], stdout=subprocess.PIPE, check=True).stdout.decode().split("\n")
    finally:
        shutil.rmtree(tmp)
    got = [g for g in got if g]
    diffs = ["C %r vs ctypes %r" % (g, e) for g, e in zip(got, expected) if g != e]
    assert len(got) == len(expected), "C printed %d lines, expected %d" % (len(got), len(expected))
    assert not diffs, "layout differs:\n    " + "\n    ".join(diffs)
    print("layout: %d structs, %d fields compared with %s"
          % (len(_lib.STRUCTS), len(expected) - len(_lib.STRUCTS), cc))


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


def main():
    root = corpus_dir()
    if not root or not os.path.isdir(os.path.join(root, "data")):
        print("SKIP: corpus not found (PQSTEP_TEST_CORPUS / PQSTEP_DEFAULT_CORPUS = %r)" % root)
        return SKIP
    files = corpus_files()
    if not files:
        print("SKIP: no Parquet file under %s/data that pyarrow opens" % root)
        return SKIP
    print("library: %s (version %s)" % (pqstep.LIBRARY_PATH, pqstep.__version__))

    # A small plain file with several leaves for the API tests.
    plain = os.path.join(root, "data", "alltypes_plain.parquet")
    if plain not in files:
        plain = next(p for p in files if pq.ParquetFile(p).metadata.num_columns >= 2)

    tests = [("struct layout", test_struct_layout),
             ("stage names", test_stage_names),
             ("library lookup", test_library_lookup),
             ("metadata reuse", lambda: test_metadata_reuse(plain)),
             ("cache", lambda: test_cache(plain)),
             ("cache too small", lambda: test_cache_too_small(plain)),
             ("projection", lambda: test_projection(plain)),
             ("errors", lambda: test_errors(plain)),
             ("not implemented", lambda: test_not_implemented(plain)),
             ("read_table reuse", lambda: test_read_table_reuse(plain))]
    for p in files:
        rel = os.path.relpath(p, root)
        tests.append(("metadata " + rel, lambda p=p: check_metadata(p)))
        tests.append(("footer_bytes reuse " + rel, lambda p=p: check_footer_bytes_reuse(p)))

    passed = failed = skipped = 0
    for name, fn in tests:
        try:
            result = fn()
        except Exception as e:  # AssertionError or anything unexpected
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
        else:
            if result == "skipped":
                skipped += 1
            else:
                passed += 1
    print("compared: %d files, %d leaves, %d row groups, %d Arrow types of top-level leaves"
          % (len(files), counters["leaves"], counters["row_groups"], counters["arrow_types"]))
    print("%d passed, %d failed%s" % (passed, failed,
                                       ", %d skipped" % skipped if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
