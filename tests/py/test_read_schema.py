#!/usr/bin/env python3
"""pqstep.read_schema and Reader.schema: the pyarrow.Schema that read_table
returns, from the footer alone.

Oracles: pqstep.read_table's own result (the schema promised is the one
delivered, metadata included), and pyarrow.parquet.read_schema for the
field names and, where pqstep's defaults match pyarrow's reading, the
types. Over every corpus file pyarrow reads, and a written file with
each option that changes types (columns, strings=, decimals=,
follow_arrow_schema=, row_index=); read_schema reads no data page (a file
whose pages are overwritten gives the same schema).
"""
import glob
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import CORPUS, pa, pq, pqstep  # noqa: E402


def check_corpus():
    if not CORPUS:
        print("corpus: skipped, PQSTEP_TEST_CORPUS is not set")
        return 0
    compared = 0
    for path in sorted(glob.glob(os.path.join(CORPUS, "data", "*.parquet"))):
        try:
            theirs = pq.read_schema(path)
        except Exception:
            continue  # a file pyarrow cannot read is no oracle here
        try:
            ours = pqstep.read_schema(path)
        except pqstep.Error:
            # read_table must refuse such a file too (an encrypted footer, ...)
            try:
                pqstep.read_table(path)
            except pqstep.Error:
                continue
            raise AssertionError("%s: read_schema failed, read_table did not" % path)
        assert ours.names == theirs.names, "%s: names %s, pyarrow %s" % (path, ours.names, theirs.names)
        try:
            table = pqstep.read_table(path, int96_unit="us")
            ours_us = pqstep.read_schema(path, int96_unit="us")
        except pqstep.Error:
            continue  # data pqstep refuses (named by other tests); the schema stood
        assert ours_us.equals(table.schema, check_metadata=True), "%s:\n%s\nread_table:\n%s" % (
            path, ours_us, table.schema)
        compared += 1
    assert compared >= 50, "only %d corpus files compared" % compared
    print("corpus: read_schema equals read_table's schema on %d files, names equal pyarrow's" % compared)
    return compared


def check_options():
    n = 300
    t = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "s": pa.array(["v%d" % (i % 7) for i in range(n)], pa.large_string()),
        "d": pa.array([i for i in range(n)], pa.decimal128(9, 2)),
        "nested": pa.array([{"a": i, "b": [str(i)]} for i in range(n)]),
        "ts": pa.array(range(n), pa.timestamp("ms", tz="UTC")),
    })
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.parquet")
        pq.write_table(t, path, row_group_size=100)
        assert pqstep.read_schema(path).equals(pq.read_schema(path).remove_metadata().with_metadata(
            pqstep.read_table(path).schema.metadata)), (pqstep.read_schema(path), pq.read_schema(path))
        cases = [dict(), dict(columns=["s", "nested.b"]), dict(strings="string_view"), dict(decimals="decimal64"),
                 dict(follow_arrow_schema=False), dict(row_index="rn"), dict(columns=[0, 2], strings="dictionary")]
        for kw in cases:
            read_kw = dict(kw)
            got = pqstep.read_schema(path, **kw)
            want = pqstep.read_table(path, **read_kw).schema
            assert got.equals(want, check_metadata=True), "%s:\n%s\nread_table:\n%s" % (kw, got, want)
            with pqstep.Reader(path, **kw) as r:
                assert r.schema.equals(want, check_metadata=True), kw
        assert pqstep.read_schema(path, follow_arrow_schema=False).field("s").type == pa.string()
        assert pqstep.read_schema(path).field("s").type == pa.large_string()
        assert pqstep.read_schema(path, row_index="rn").names[-1] == "rn"
        # No data page is read: with every page's bytes overwritten, the
        # schema is the same and a read fails.
        data = bytearray(open(path, "rb").read())
        first_chunk = pq.ParquetFile(path).metadata.row_group(0).column(0)
        start = first_chunk.dictionary_page_offset or first_chunk.data_page_offset
        footer_len = int.from_bytes(data[-8:-4], "little")
        data[start:len(data) - 8 - footer_len] = b"\xff" * (len(data) - 8 - footer_len - start)
        broken = os.path.join(tmp, "broken.parquet")
        open(broken, "wb").write(bytes(data))
        assert pqstep.read_schema(broken).equals(pqstep.read_schema(path), check_metadata=True)
        try:
            pqstep.read_table(broken)
            raise AssertionError("pages of 0xff read")
        except pqstep.Error:
            pass
    print("options: read_schema and Reader.schema equal read_table's schema for %d option sets" % len(cases))


def main():
    check_corpus()
    check_options()
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
