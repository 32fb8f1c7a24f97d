"""SizeStatistics size string output ahead: a BYTE_ARRAY chunk whose offset
index gives each page's value bytes (unencoded_byte_array_data_bytes) is
decoded as `string` / `large_string` with no size pass, dictionary-encoded
pages included (the `chunks_sized_by_statistics` counter says so), and its
values equal pyarrow's.

Files: pyarrow (write_page_index=True: required and optional columns,
dictionary-encoded and PLAIN, empty strings, nulls, small pages so that a
chunk holds many, two row groups) and tpchgen-cli's (parquet-rs) part of
TPC-H. Each read with the statistics at hand (a local file) against the
same read through pread instead of the map (no offset index read ahead:
the size pass), and against pyarrow's values. A file written without a page
index is read with the size pass (counter 0).
"""
import os
import shutil
import subprocess
import sys
import tempfile

from read_oracle import pq, pqstep  # noqa: F401

import pyarrow as pa


def pyarrow_file(path, page_index=True):
    n = 30000
    words = ["", "a", "bb", "ccc", "dddd" * 10, "é", "x" * 300]
    t = pa.table({
        "req": pa.array(["%s-%d" % (words[i % 7], i % 1000) for i in range(n)], pa.string()),
        "opt": pa.array([None if i % 5 == 0 else words[i % 7] for i in range(n)], pa.string()),
        "plain": pa.array([words[(i * 7) % 7] + str(i) for i in range(n)], pa.string()),
        "bin": pa.array([bytes([i % 256]) * (i % 9) for i in range(n)], pa.binary()),
    }, schema=pa.schema([pa.field("req", pa.string(), nullable=False), pa.field("opt", pa.string()),
                         pa.field("plain", pa.string()), pa.field("bin", pa.binary())]))
    pq.write_table(t, path, write_page_index=page_index, data_page_size=4096, row_group_size=17000,
                   use_dictionary=["req", "opt", "bin"])


def check(path, columns=None):
    want = pq.read_table(path, columns=columns)
    sized = 0
    for strings in ("string", "large_string"):
        r = pqstep.Reader(path, strings=strings, follow_arrow_schema=False)
        got = r.read(columns=columns)
        sized += r.stage_stats("decode")["chunks_sized_by_statistics"]
        for name in want.column_names:
            assert got.column(name).to_pylist() == want.column(name).to_pylist(), (path, name, strings)
        # read by pread, not mapped: no offset index read ahead, the size pass
        r = pqstep.Reader(path, strings=strings, follow_arrow_schema=False, mmap=False)
        unmapped = r.read(columns=columns)
        assert r.stage_stats("decode")["chunks_sized_by_statistics"] == 0, (path, strings)
        for name in want.column_names:
            assert unmapped.column(name).to_pylist() == got.column(name).to_pylist(), (path, name, strings, "pread")
    return sized


def main():
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, "strings.parquet")
        pyarrow_file(f)
        sized = check(f)
        assert sized > 0, "no chunk sized by SizeStatistics in pyarrow's file"
        bare = os.path.join(tmp, "bare.parquet")
        pyarrow_file(bare, page_index=False)
        assert check(bare) == 0
        note = ""
        tpchgen = shutil.which("tpchgen-cli")
        if tpchgen:
            subprocess.run([tpchgen, "parquet", "-s", "0.01", "--tables=customer,part", "--output-dir=" + tmp],
                           check=True, capture_output=True)
            tsized = 0
            for name in ("customer", "part"):
                tsized += check(os.path.join(tmp, name + ".parquet"))
            assert tsized > 0, "no chunk sized by SizeStatistics in tpchgen-cli's files"
            note = ", %d in tpchgen-cli's" % tsized
        else:
            print("test_sized_by_statistics: tpchgen-cli not installed: its files skipped")
    print("test_sized_by_statistics: %d string chunks of pyarrow's file sized by SizeStatistics%s, equal to pyarrow's "
          "values and to reads without them" % (sized, note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
