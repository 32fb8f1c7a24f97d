"""The filter stage (PQ_STAGE_FILTER) stepped through by a sans-IO caller.

pyarrow writes two row groups: keys 0..9999 in the first, 10000..19999 in
the second, with two payload columns. The filter `key < 500` keeps rows
of the first row group only; statistics and page-index pruning are off,
so both row groups reach the filter stage. Checked against pyarrow's
metadata (the column chunks' byte ranges) and its own filtered read:
- the page-header stage asks for the key column's chunks only (the payload
  columns wait for the filter);
- advance stops at PQ_STAGE_FILTER, whose counters say it evaluated 2 row
  groups, kept pyarrow's number of rows, found 1 without a match and
  skipped its 2 payload chunks (their bytes);
- the filter stage asks for payload bytes of the first row group only:
  no range it names overlaps a chunk of the second;
- the rows delivered equal pyarrow's.
"""
import ctypes
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import all_batches, open_sans_io, pa, pq, pqstep, same  # noqa: E402

from pqstep import _lib as _c  # noqa: E402

PQ_PRUNE_STATISTICS, PQ_PRUNE_DICTIONARY, PQ_PRUNE_BLOOM, PQ_PRUNE_PAGE_INDEX = 1, 2, 4, 8


def chunk_range(md, rg, col):
    c = md.row_group(rg).column(col)
    start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
    return start, start + c.total_compressed_size


def overlaps(a, b):
    return a[0] < b[1] and b[0] < a[1]


def main():
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "two_groups.parquet")
    n = 20000
    t = pa.table({"key": pa.array(range(n), pa.int64()),
                  "val": pa.array([i * 7 % 1000 for i in range(n)], pa.int64()),
                  "name": pa.array(["name-%06d" % i for i in range(n)])})
    pq.write_table(t, path, row_group_size=10000, data_page_size=4096, write_page_index=True)
    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups == 2
    data = open(path, "rb").read()
    text = "key < 500"
    want = pq.read_table(path, filters=[("key", "<", 500)])

    # the library's own first tail read (footer_read_size 0), not the footer alone
    h = open_sans_io(data, text, footer_read_size=0, no_coalescing=True,
                     prune_disable=PQ_PRUNE_STATISTICS | PQ_PRUNE_DICTIONARY | PQ_PRUNE_BLOOM | PQ_PRUNE_PAGE_INDEX)
    err = _c.pq_error()
    asked = {}  # stage the reader was at -> ranges it named
    try:
        def step_to(stage):
            while True:
                st = _c.pq_reader_advance_to(h, stage, ctypes.byref(err))
                if st == _c.PQ_OK:
                    return
                assert st == _c.PQ_ERR_NEED_DATA, err.message
                k = _c.pq_reader_needed_ranges(h, None, 0)
                assert k > 0, "NEED_DATA without ranges at stage %d" % _c.pq_reader_stage(h)
                arr = (_c.pq_range * k)()
                _c.pq_reader_needed_ranges(h, arr, k)
                at = _c.pq_reader_stage(h)
                for x in arr:
                    asked.setdefault(at, []).append((x.offset, x.offset + x.length))
                    chunk = data[x.offset:x.offset + x.length]
                    assert _c.pq_reader_supply(h, x.offset, chunk, len(chunk), ctypes.byref(err)) == 0, err.message

        step_to(_c.PQ_STAGE_FILTER)
        assert _c.pq_reader_stage(h) == _c.PQ_STAGE_FILTER
        assert _c.pq_stage_name(_c.PQ_STAGE_FILTER).decode() == "filter"
        fs = _c.pq_filter_stats()
        _c.pq_reader_filter_stats(h, ctypes.byref(fs), ctypes.sizeof(fs))
        step_to(_c.PQ_STAGE_DECODE)
        got = pa.Table.from_batches(all_batches(h))
    finally:
        _c.pq_reader_close(h)

    key0, key1 = chunk_range(md, 0, 0), chunk_range(md, 1, 0)
    payload0 = [chunk_range(md, 0, c) for c in (1, 2)]
    payload1 = [chunk_range(md, 1, c) for c in (1, 2)]
    pages_asked = asked.get(_c.PQ_STAGE_SELECT, [])
    # the page-header stage: the key column of both row groups, nothing of the payload
    assert any(overlaps(r, key0) for r in pages_asked) and any(overlaps(r, key1) for r in pages_asked), pages_asked
    assert not any(overlaps(r, p) for r in pages_asked for p in payload0 + payload1), pages_asked
    print("ok   the page-header stage asked for %d ranges, all of the key column" % len(pages_asked))
    # the filter stage: payload of row group 0 only
    filter_asked = asked.get(_c.PQ_STAGE_PAGE_HEADERS, [])
    assert filter_asked, asked
    # (offset indexes lie after every column chunk; pages only in row group 0's payload)
    data_end = max(chunk_range(md, g, c)[1] for g in range(2) for c in range(3))
    assert all(r[0] >= data_end or any(overlaps(r, p) for p in payload0) for r in filter_asked), (filter_asked,
                                                                                                   payload0)
    assert any(overlaps(r, p) for r in filter_asked for p in payload0), filter_asked
    # only the dictionary pages and the pages over the 500 kept rows: less than the two chunks
    assert sum(b - a for a, b in filter_asked if a < data_end) < sum(b - a for a, b in payload0), filter_asked
    assert not any(overlaps(r, p) for r in filter_asked for p in payload1), (filter_asked, payload1)
    print("ok   the filter stage asked for %d ranges (offset indexes, the kept rows' pages), none of row group 1" % len(filter_asked))
    assert fs.groups == 2 and fs.groups_without_match == 1, (fs.groups, fs.groups_without_match)
    assert fs.rows_in == n and fs.rows == want.num_rows == 500, (fs.rows_in, fs.rows)
    assert fs.rows_filtered == n - 500, fs.rows_filtered
    assert fs.chunks_skipped == 2, fs.chunks_skipped
    assert fs.bytes_skipped == sum(b - a for a, b in payload1), (fs.bytes_skipped, payload1)
    print("ok   filter stage counters: 2 row groups, %d of %d rows kept, 2 chunks (%d bytes) skipped"
          % (fs.rows, fs.rows_in, fs.bytes_skipped))
    same(got, want, text)
    print("ok   rows equal pyarrow's")
    # The same read through Python: the stage's counters under "filter".
    with pqstep.Reader(path) as r:
        ours = r.read(filter=text, prune=False)
        st = r.stage_stats("filter")
    same(ours, want, text + " (Reader)")
    assert st["groups"] == 2 and st["rows"] == 500 and st["groups_without_match"] == 1, st
    print("4 passed, 0 failed")


if __name__ == "__main__":
    main()
