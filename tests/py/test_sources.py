#!/usr/bin/env python3
"""Files that are not paths (python/pqstep/_sources.py): a file's bytes in
memory and Python file objects, through read_table, Reader and scan.

Oracle: pyarrow.parquet.read_table of the same file by path. Each source
kind (bytes, bytearray, memoryview, mmap.mmap, pyarrow.Buffer, BytesIO, a
file from open(), a file object with only read/seek/tell, pyarrow's
OSFile, BufferReader and memory_map) reads every file equal to pyarrow,
at 1 and 2 threads, with columns, row groups, a filter and a row range,
by batches and as a stream; the stream outlives every Python name of its
bytes; an encrypted file reads from bytes with its keys, and its external
key material, which has no folder to be found in, is refused by name.
pqstep.polars.scan_parquet over bytes and file objects equals polars' own
scan of the path. Errors: a file object that fails mid-read, one that shrinks, truncated
bytes, a strided memoryview, an unseekable object, a type that is none
of these, and a dataset given bytes each raise a clear exception, never
a crash; a bytearray cannot be resized while a reader reads it.
"""
import gc
import io
import mmap
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import CORPUS, pa, pq, pqstep, same  # noqa: E402

DATA = os.path.join(CORPUS, "data") if CORPUS else None


class ReadSeekOnly:
    """A file object with nothing but read, seek and tell (no fileno, no
    buffer): read through the callback source."""

    def __init__(self, data):
        self._f = io.BytesIO(data)

    def read(self, n=-1):
        return self._f.read(n)

    def seek(self, offset, whence=0):
        return self._f.seek(offset, whence)

    def tell(self):
        return self._f.tell()


class FailsAt(ReadSeekOnly):
    """Raises once a read starts before `at`."""

    def __init__(self, data, at):
        super().__init__(data)
        self.at = at

    def read(self, n=-1):
        if self._f.tell() < self.at:
            raise OSError("the disk went away")
        return super().read(n)


class Shrinks(ReadSeekOnly):
    """Returns fewer bytes than asked for below `at`, as a file cut short."""

    def __init__(self, data, at):
        super().__init__(data)
        self.at = at

    def read(self, n=-1):
        if self._f.tell() < self.at:
            return b""
        return super().read(n)


def sources(path, keep):
    """(name, source) of every kind for the file at `path`; `keep` gets what
    must be closed at the end."""
    data = open(path, "rb").read()
    f = open(path, "rb")
    f.seek(7)  # a position elsewhere: the file is read from its start
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    keep.extend([f, m])
    return [
        ("bytes", data),
        ("bytearray", bytearray(data)),
        ("memoryview", memoryview(data)),
        ("mmap", m),
        ("pyarrow.Buffer", pa.py_buffer(data)),
        ("BytesIO", io.BytesIO(data)),
        ("open()", f),
        ("read/seek only", ReadSeekOnly(data)),
        ("pyarrow.OSFile", pa.OSFile(path)),
        ("pyarrow.BufferReader", pa.BufferReader(data)),
        ("pyarrow.memory_map", pa.memory_map(path)),
    ]


def check_file(path, filter_text=None, columns=None):
    expect = pq.read_table(path)
    keep = []
    try:
        for name, src in sources(path, keep):
            what = "%s from %s" % (os.path.basename(path), name)
            for threads in (1, 2):
                same(pqstep.read_table(src, threads=threads), expect, "%s, %d threads" % (what, threads))
            with pqstep.Reader(src) as r:
                assert r.num_row_groups == pq.ParquetFile(path).num_row_groups, what
                groups = list(range(0, r.num_row_groups, 2))
                same(r.read(row_groups=groups), pq.ParquetFile(path).read_row_groups(groups), what + " row groups")
                batches = list(r.iter_batches(batch_size=700))
                same(pa.Table.from_batches(batches, expect.schema) if batches else expect.slice(0, 0), expect,
                     what + " batches")
            if columns:
                same(pqstep.read_table(src, columns=columns), pq.read_table(path, columns=columns),
                     what + " columns")
            if filter_text:
                got = pqstep.read_table(src, filter=filter_text[0])
                same(got, expect.filter(filter_text[1]), what + " filter")
            lo, n = expect.num_rows // 3, expect.num_rows // 4
            same(pqstep.read_table(src, row_offset=lo, row_limit=n), expect.slice(lo, n), what + " row range")
            same(pqstep.scan(src, batch_size=500).read(), expect, what + " scan")
    finally:
        for k in keep:
            k.close()


def check_written():
    """A file of several row groups with strings, nulls, nested lists and a
    page index, written by pyarrow; filters on it."""
    n = 5000
    t = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "name": pa.array([None if i % 9 == 0 else "n%d" % (i * 7 % 1013) for i in range(n)]),
        "tags": pa.array([[i % 5] * (i % 4) if i % 11 else None for i in range(n)], pa.list_(pa.int32())),
        "price": pa.array([i * 0.25 for i in range(n)]),
    })
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.parquet")
        pq.write_table(t, path, row_group_size=1200, data_page_size=2000, write_page_index=True,
                       compression="zstd")
        import pyarrow.compute as pc
        check_file(path, ("id >= 1000 and id < 1300 or name = 'n14'",
                          ((pc.field("id") >= 1000) & (pc.field("id") < 1300)) | (pc.field("name") == "n14")),
                   columns=["name", "price"])
        print("written: every source kind equal to pyarrow (threads, row groups, batches, filter, range, scan)")


def check_corpus():
    if not DATA:
        print("corpus: skipped, PQSTEP_TEST_CORPUS is not set")
        return
    names = ["alltypes_plain.parquet", "nested_lists.snappy.parquet", "delta_byte_array.parquet",
             "byte_stream_split_extended.gzip.parquet", "datapage_v2.snappy.parquet", "nullable.impala.parquet"]
    done = 0
    for name in names:
        path = os.path.join(DATA, name)
        if not os.path.exists(path):
            print("corpus: %s is not in this corpus, skipped" % name)
            continue
        check_file(path)
        done += 1
    assert done >= 4, "fewer than 4 corpus files found"
    print("corpus: %d files from every source kind equal to pyarrow" % done)


def check_lifetime():
    """Streams and scans outlive every name of their bytes."""
    path = os.path.join(DATA, "alltypes_plain.parquet") if DATA else None
    if not path:
        return
    expect = pq.read_table(path)
    s = pqstep.scan(bytearray(open(path, "rb").read()))
    gc.collect()
    same(s.read(), expect, "scan of a dropped bytearray")
    stream = pqstep.scan(bytearray(open(path, "rb").read()), batch_size=3).to_reader()
    gc.collect()
    same(stream.read_all(), expect, "stream of a dropped bytearray")
    stream = pqstep.scan(ReadSeekOnly(open(path, "rb").read()), batch_size=3).to_reader()
    gc.collect()
    same(stream.read_all(), expect, "stream of a dropped file object")
    # Held exactly as long as needed: a stream's bytes live while it does.
    import weakref

    class Held(bytearray):  # a bytearray that a weak reference can watch
        pass
    held = Held(open(path, "rb").read())
    gone = weakref.ref(held)
    stream = pqstep.scan(held, batch_size=3).to_reader()
    del held
    gc.collect()
    assert gone() is not None, "the bytes of a live stream were let go"
    first = stream.read_next_batch()
    assert first.num_rows == 3
    del stream, first
    gc.collect()
    assert gone() is None, "the bytes outlived their stream"
    with open(path, "rb") as f:
        with pqstep.Reader(f) as r:
            assert r.path == path, "a file object over a local file is not read by its path: %r" % (r.path,)
    import duckdb
    sc = pqstep.scan(open(path, "rb").read())
    assert duckdb.sql("select count(*), sum(id) from sc").fetchall() == [(8, sum(expect["id"].to_pylist()))]
    # A bytearray a reader reads cannot change size under it; closed, it can.
    ba = bytearray(open(path, "rb").read())
    r = pqstep.Reader(ba)
    try:
        ba.extend(b"x")
        raise AssertionError("a bytearray being read was resized")
    except BufferError:
        pass
    r.close()
    del r
    gc.collect()
    ba.extend(b"x")
    print("lifetime: scans and streams hold their bytes; a bytearray being read keeps its size")


def check_encrypted():
    if not DATA:
        return
    path = os.path.join(DATA, "uniform_encryption.parquet.encrypted")
    keys = pqstep.Decryption(footer_key=b"0123456789012345", aad_prefix=b"tester")
    kw = dict(decryption=keys, int96_unit="us")
    by_path = pqstep.read_table(path, **kw)
    data = open(path, "rb").read()
    same(pqstep.read_table(data, **kw), by_path, "encrypted from bytes")
    same(pqstep.read_table(ReadSeekOnly(data), threads=2, **kw), by_path, "encrypted from a file object")
    try:
        pqstep.read_table(data)
        raise AssertionError("an encrypted file read without keys")
    except pqstep.Error as e:
        assert "<bytes of %d bytes>" % len(data) in str(e) and "footer" in str(e), e
    ext = os.path.join(DATA, "external_key_material_java.parquet.encrypted")
    if os.path.exists(ext):
        retriever = pqstep.Decryption(kms_unwrap=lambda wrapped, kms_key_id: b"\0" * 16)
        try:
            pqstep.read_table(open(ext, "rb").read(), decryption=retriever)
            raise AssertionError("external key material found for bytes in memory")
        except pqstep.Error as e:  # the key material step's failure, named
            assert "footer" in str(e) and "asking for the key raised KeyMaterialError" in str(e), e
            assert "no file path is known" in str(e) and isinstance(e.__cause__, pqstep.KeyMaterialError), e
        print("encrypted: read from bytes and a file object; external key material refused by name")


def check_polars():
    """pqstep.polars.scan_parquet over bytes and file objects: the query's
    rows equal polars' own scan of the path, with pushdown, a limit and a
    row index."""
    import polars as pl
    import pqstep.polars as pp
    n = 4000
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "p.parquet")
        pq.write_table(pa.table({"k": pa.array(range(n), pa.int64()), "s": ["v%d" % (i % 37) for i in range(n)]}),
                       path, row_group_size=900)
        data = open(path, "rb").read()
        want = pl.scan_parquet(path).filter((pl.col("k") > 1234) & pl.col("s").is_in(["v1", "v2"])) \
            .select("s", "k").collect()
        with open(path, "rb") as f:
            for name, src in (("bytes", data), ("BytesIO", io.BytesIO(data)), ("read/seek only", ReadSeekOnly(data)),
                              ("open()", f)):
                lf = pp.scan_parquet(src)
                got = lf.filter((pl.col("k") > 1234) & pl.col("s").is_in(["v1", "v2"])).select("s", "k").collect()
                assert got.equals(want), "polars over %s: %s vs %s" % (name, got, want)
                assert lf.head(5).collect()["k"].to_list() == [0, 1, 2, 3, 4], name
                ri = pp.scan_parquet(src, row_index_name="ri").filter(pl.col("ri") >= n - 3).collect()
                assert ri["ri"].to_list() == [n - 3, n - 2, n - 1] and ri["k"].to_list() == ri["ri"].to_list(), name
        expect_raise(lambda: pp.scan_parquet(data, hive_partitioning=True), ValueError, "no directories")
    print("polars: scan_parquet over bytes and file objects equals polars' scan of the path")


def expect_raise(fn, kinds, *words):
    try:
        fn()
    except kinds as e:
        for w in words:
            assert w in str(e), "%r lacks %r" % (str(e), w)
        return
    raise AssertionError("no error; expected %s with %s" % (kinds, words))


def check_errors():
    n = 3000
    buf = io.BytesIO()
    pq.write_table(pa.table({"a": list(range(n)), "s": ["x%d" % i for i in range(n)]}), buf, row_group_size=700)
    data = buf.getvalue()
    expect_raise(lambda: pqstep.read_table(FailsAt(data, len(data) - 100)), pqstep.Error,
                 "reading the file object", "OSError: the disk went away")
    expect_raise(lambda: pqstep.read_table(FailsAt(data, 500), threads=2), pqstep.Error, "the disk went away")
    expect_raise(lambda: pqstep.read_table(Shrinks(data, 300)), pqstep.Error, "gave 0 bytes at offset")
    expect_raise(lambda: pqstep.read_table(data[:-3]), pqstep.Error, "not a Parquet file", "<bytes of")
    expect_raise(lambda: pqstep.read_table(data[:5]), pqstep.Error, "too small")
    expect_raise(lambda: pqstep.read_table(memoryview(data)[::2]), TypeError, "not one contiguous run of bytes")
    expect_raise(lambda: pqstep.read_table(12), TypeError, "a path, a URL, bytes", "not int")

    class NoSeek:
        def read(self, n=-1):
            return b""
    expect_raise(lambda: pqstep.read_table(NoSeek()), TypeError, "cannot be read at offsets")
    expect_raise(lambda: pqstep.read_table(io.StringIO("PAR1")), TypeError, "text mode")

    class TextRead(ReadSeekOnly):
        def read(self, n=-1):
            return super().read(n).decode("latin-1")
    expect_raise(lambda: pqstep.read_table(TextRead(data)), pqstep.Error, "returned text, not bytes")
    expect_raise(lambda: pqstep.dataset(data), TypeError, "paths or URLs, not bytes")
    expect_raise(lambda: pqstep.dataset(io.BytesIO(data)), TypeError, "paths or URLs, not BytesIO")
    expect_raise(lambda: pqstep.read_table(data, remote={"anonymous": True}), ValueError, "remote options")
    # A pipe by path is refused at open, without waiting for a writer.
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "pipe.parquet")
        os.mkfifo(fifo)
        expect_raise(lambda: pqstep.read_table(fifo), pqstep.Error, "not a regular file (a pipe)")
    print("errors: failing, shrinking and unseekable file objects, bad bytes, bad types and pipes refused")


def main():
    check_written()
    check_corpus()
    check_lifetime()
    check_encrypted()
    check_polars()
    check_errors()
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
