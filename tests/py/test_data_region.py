#!/usr/bin/env python3
"""Byte ranges must lie in the data region (issue 10): after the leading
"PAR1" and before the footer. A truncated file whose footer was kept names
chunks, indexes and bloom filters that now run into (or past) the footer.

- A chunk cut short: reading it fails naming RowGroup[g].columns[c] (pyarrow
  decodes the footer's bytes as page data there); the row groups before it
  still read, equal to pyarrow's reading of the intact file.
- Page indexes and bloom filters cut off: the pruning steps skip them with
  a warning (prune_warnings) and the rows stay right; a row range or a late
  materialization that needs an offset index fails naming the chunk.
Offsets come from `pqstep meta --json`, checked against pyarrow's metadata.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import pa, pq, pqstep, same  # noqa: E402

import pyarrow.compute as pc  # noqa: E402

CLI = os.environ.get("PQSTEP_CLI")


def write(path):
    n = 4000
    t = pa.table({"key": pa.array(range(n), pa.int64()),
                  "name": pa.array(["n%05d" % (i * 7 % n) for i in range(n)]),
                  "val": pa.array([i * 0.5 for i in range(n)])})
    pq.write_table(t, path, row_group_size=2000, data_page_size=4096, write_page_index=True,
                   bloom_filter_options={"key": {"ndv": 2000, "fpp": 0.01}})
    return t


def footer_start(data):
    (flen,) = struct.unpack("<I", data[-8:-4])
    return len(data) - 8 - flen


def chunk_span(c):
    start = c["dictionary_page_offset"] or c["data_page_offset"]
    return start, start + c["compressed_size"]


def expect_error(fn, *needles):
    try:
        fn()
    except pqstep.Error as e:
        for s in needles:
            assert s in str(e), "%r does not say %r" % (str(e), s)
        return str(e)
    raise AssertionError("no error; expected one saying %r" % (needles,))


def main():
    with tempfile.TemporaryDirectory(prefix="pqstep-region-") as tmp:
        path = os.path.join(tmp, "intact.parquet")
        t = write(path)
        data = open(path, "rb").read()
        meta = json.loads(subprocess.check_output([CLI, "meta", "--json", path]))
        fs = footer_start(data)
        spans = [[chunk_span(c) for c in rg["columns"]] for rg in meta["row_groups"]]
        md = pq.ParquetFile(path).metadata
        for g, rg in enumerate(spans):
            for c, (a, b) in enumerate(rg):
                assert b - a == md.row_group(g).column(c).total_compressed_size
        last_chunk_end = max(b for rg in spans for _, b in rg)
        extras = [c[k] for rg in meta["row_groups"] for c in rg["columns"]
                  for k in ("column_index_offset", "offset_index_offset", "bloom_filter_offset") if c.get(k)]
        assert extras and min(extras) >= last_chunk_end, "pyarrow wrote indexes before the chunks?"

        # 1. The last row group's last chunk cut in the middle, footer kept.
        a, b = spans[1][2]
        cut = (a + b) // 2
        bad = os.path.join(tmp, "chunk_into_footer.parquet")
        open(bad, "wb").write(data[:cut] + data[fs:])
        msg = expect_error(lambda: pqstep.read_table(bad), "RowGroup[1].columns[2]", "runs past the data region")
        expect_error(lambda: pqstep.read_table(bad, columns=["val"], row_groups=[1]), "RowGroup[1].columns[2]")
        same(pqstep.read_table(bad, row_groups=[0]), t.slice(0, 2000), "row group 0 of the cut file")
        same(pqstep.read_table(bad, columns=["key", "name"]), t.select(["key", "name"]), "intact columns")
        r = subprocess.run([CLI, "cat", bad], capture_output=True, text=True)
        assert r.returncode != 0 and "RowGroup[1].columns[2]" in r.stderr, (r.returncode, r.stderr)

        # 2. Everything after the chunks (bloom filters, page indexes) cut off.
        bad = os.path.join(tmp, "indexes_cut.parquet")
        open(bad, "wb").write(data[:last_chunk_end] + data[fs:])
        same(pqstep.read_table(bad), t, "whole read without its indexes")
        want = t.filter(pc.equal(t.column("key"), 1234))
        with pqstep.Reader(bad, columns=["key"]) as rd:
            got = rd.read(filter="key = 1234", prune={"bloom_filter", "page_index"})
            st = rd.stage_stats("select")
        same(got, want.select(["key"]), "key = 1234 without its indexes")
        assert st["prune_warnings"] >= 2 and st["pruned_bloom_filter"] == 0, st
        # late materialization reads the other columns through their offset indexes
        expect_error(lambda: pqstep.read_table(bad, filter="key = 1234"), "RowGroup[", "offset index",
                     "data region")
        with pqstep.Reader(path) as rd:  # the intact file prunes with them, warning-free
            same(rd.read(filter="key = 1234", prune={"bloom_filter", "page_index"}),
                 t.filter(pc.equal(t.column("key"), 1234)), "key = 1234")
            st = rd.stage_stats("select")
        assert st["prune_warnings"] == 0 and st["pruned_bloom_filter"] == 1, st
        expect_error(lambda: pqstep.read_table(bad, row_offset=100, row_limit=10), "RowGroup[0].columns[",
                     "offset index", "data region")
        same(pqstep.read_table(path, row_offset=100, row_limit=10), t.slice(100, 10), "row range, intact")
    print("chunks, offset indexes and bloom filters past the data region: clean errors or skipped (%s)" %
          msg.split(": ", 1)[-1][:60])
    return 0


if __name__ == "__main__":
    sys.exit(main())
