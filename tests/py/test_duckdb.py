#!/usr/bin/env python3
"""Files DuckDB 2.x writes (tests/fixtures/gen_duckdb.py), read by pqstep and
compared with DuckDB's own reading of them, value for value.

delta_wide_v2.parquet holds 32-bit columns whose DELTA_BINARY_PACKED
miniblocks have bit widths of 33 (neighbours more than 2^31 apart), which
pyarrow refuses; pqstep decodes them modulo 2^32 (issue 10). Also checked:
every row group on its own, filters on those columns against DuckDB's SQL,
and the nested files whole.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import SOURCE, pq, pqstep  # noqa: E402

import duckdb  # noqa: E402


def rows_of(table):
    return [tuple(r.values()) for r in table.to_pylist()]


def main():
    with tempfile.TemporaryDirectory(prefix="pqstep-duckdb-") as tmp:
        subprocess.check_call([sys.executable, os.path.join(SOURCE, "tests", "fixtures", "gen_duckdb.py"), tmp])
        con = duckdb.connect()
        delta = os.path.join(tmp, "delta_wide_v2.parquet")
        md = pq.ParquetFile(delta).metadata
        assert all(md.row_group(0).column(c).encodings == ("DELTA_BINARY_PACKED",) for c in range(4)), \
            "the fixture no longer uses DELTA_BINARY_PACKED: %r" % (md.row_group(0).column(0).encodings,)
        try:
            pq.read_table(delta)
        except Exception as e:  # pyarrow refuses widths above 32; the point of the file
            print("pyarrow refuses the file as expected: %s" % str(e).splitlines()[0])
        else:
            print("note: this pyarrow reads delta_wide_v2.parquet too")
        checked = 0
        for name in ("delta_wide_v2.parquet", "nested_v1.parquet", "nested_v2.parquet"):
            path = os.path.join(tmp, name)
            want = con.sql("SELECT * FROM read_parquet('%s')" % path).to_arrow_table()
            got = pqstep.read_table(path)
            assert got.column_names == want.column_names, (name, got.column_names, want.column_names)
            assert got.num_rows == want.num_rows, (name, got.num_rows, want.num_rows)
            g, w = rows_of(got), rows_of(want)
            for i, (a, b) in enumerate(zip(g, w)):
                assert a == b, "%s row %d: pqstep %r, DuckDB %r" % (name, i, a, b)
            checked += got.num_rows
            # row groups one at a time, with one reader
            with pqstep.Reader(path) as r:
                start = 0
                for rg in range(r.metadata.num_row_groups):
                    part = rows_of(r.read(row_groups=[rg]))
                    assert part == w[start:start + len(part)], "%s row group %d" % (name, rg)
                    start += len(part)
                assert start == len(w)
        for text in ("u > 4000000000", "u < 1000", "s <= -1999990000", "s > 0 and nu is null",
                     "b > 8999999999999990000", "nu in (12, 4294967284)",
                     # integer-backed decimals and strings: the evaluator's typed loops
                     "d < -4.5", "d >= 4.99", "d in (1.25, -3.00, 0)", "d != 0 and d > 4.9",
                     "mode in ('AIR', 'RAIL')", "mode = 'REG AIR'", "mode > 'SHIP'", "mode <= 'FOB'",
                     "mode in ('FOB', 'MAIL', 'REG AIR', 'SHIP', 'TRUCK', 'AIR') and d < 0"):
            got = pqstep.read_table(delta, filter=text)
            want = con.sql("SELECT * FROM read_parquet('%s') WHERE %s" % (delta, text)).to_arrow_table()
            assert got.num_rows == want.num_rows and 0 < got.num_rows < md.num_rows, (text, got.num_rows,
                                                                                    want.num_rows)
            assert rows_of(got) == sorted(rows_of(want)), text  # id is the first column, ascending
    print("%d rows of DuckDB files equal DuckDB's reading; 15 filters equal its SQL" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
