#!/usr/bin/env python3
"""Filtered reads that keep few rows of string_view columns: the kept rows'
long strings are copied out of the decoded pages (arrow_take.c,
compact_views), so that the result no longer holds every page of the
column, and the filter stage's own columns keep only the matching rows
once their row group is evaluated (stage_filter.c).

Files written here by pyarrow: strings of 1 to 40 characters (inline views
and long ones) in a dictionary-encoded column and in a PLAIN one, optional
with nulls (these take the full decode and a take, not selection decode)
and required, several row groups and small pages. Filters on the string
column itself and on another column, keeping under a quarter of the rows
(copied out) and over it (shared buffers); every read equals pyarrow's
Table.filter (strings compared as string), at 1 and 2 threads. For the
sparse filters the result's buffers must be smaller than the column's
decoded data: at most the kept rows' views and bytes, with slack.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import pa, pq, pqstep  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

N = 40000


def table():
    rng = np.random.default_rng(5)
    words = ["w%02d-" % i + "x" * int(rng.integers(0, 36)) for i in range(60)]
    dict_col = [words[i] for i in rng.integers(0, 60, N)]
    plain_col = ["%06d-" % i + "y" * int(rng.integers(0, 34)) for i in range(N)]
    nulls = rng.random(N) < 0.1
    opt_plain = [None if nulls[i] else plain_col[(i * 7) % N] for i in range(N)]
    return pa.table({
        "key": pa.array(np.arange(N, dtype=np.int64)),
        "d": pa.array(dict_col, pa.string()),
        "p": pa.array(plain_col, pa.string()),
        "o": pa.array(opt_plain, pa.string()),
    }, schema=pa.schema([pa.field("key", pa.int64(), False), pa.field("d", pa.string(), False),
                         pa.field("p", pa.string(), False), pa.field("o", pa.string(), True)]))


FILTERS = [
    # (text, pyarrow expression, sparse)
    ("p >= '039000'", pc.field("p") >= "039000", True),
    ("o >= '035000'", pc.field("o") >= "035000", True),
    ("d = 'w07-" + "'", pc.field("d") == "w07-", True),
    ("key < 500 or key >= 39000", (pc.field("key") < 500) | (pc.field("key") >= 39000), True),
    ("p >= '010000'", pc.field("p") >= "010000", False),
    ("o < '030000'", pc.field("o") < "030000", False),
]


def as_string(t):
    return pa.table([c.cast(pa.string()) if c.type == pa.string_view() else c for c in t.columns],
                    names=t.column_names)


def main():
    t = table()
    checked = 0
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "views.parquet")
        pq.write_table(t, path, row_group_size=9000, data_page_size=4096,
                       use_dictionary=["d"], compression="snappy")
        whole = pqstep.read_table(path, strings="string_view")
        for text, expr, sparse in FILTERS:
            want = t.filter(expr)
            for threads in (1, 2):
                got = pqstep.read_table(path, filter=text, strings="string_view", threads=threads)
                assert got.schema.field("p").type == pa.string_view(), got.schema
                mine = as_string(got)
                if got.column_names != want.column_names or not all(
                        mine.column(n).equals(want.column(n)) for n in want.column_names):
                    raise SystemExit("%s, %d threads: %d rows differ from pyarrow's %d"
                                     % (text, threads, got.num_rows, want.num_rows))
                checked += 1
                if not sparse:
                    continue
                assert want.num_rows * 4 <= N, (text, want.num_rows)
                for name in ("p", "o"):
                    col = got.column(name)
                    room = want.num_rows * (16 + 64) + 4096 * col.num_chunks
                    size = col.get_total_buffer_size()
                    full = whole.column(name).get_total_buffer_size()
                    if size > room:
                        raise SystemExit("%s: column %s holds %d bytes for %d rows (at most %d; the whole "
                                         "column holds %d): the pages were not let go"
                                         % (text, name, size, got.num_rows, room, full))
    print("test_sparse_view_take: %d filtered string_view reads equal to pyarrow's" % checked)


if __name__ == "__main__":
    main()
