#!/usr/bin/env python3
"""Files fastparquet writes (tests/fixtures/gen_fastparquet.py), read by
pqstep and compared with pyarrow's reading and fastparquet's own.

fastparquet writes every column optional, v1 pages with definition levels,
pandas metadata, and after the last value of a PLAIN string page two empty
values its levels do not count: pqstep refused every such file ("the page's
values take N bytes, its values section less a 4-byte length a value is
N + 8") until the executor learnt to ignore bytes after a page's last value
as pyarrow does. Checked: every file whole (types, schema metadata and all)
against pyarrow, as pandas against fastparquet, row groups and batches,
a row range, other string types, filters with pruning on and off against
pyarrow's, and the hive dataset with its _metadata files against
fastparquet's reading (and read_table on its directory against pyarrow's).
"""
import datetime
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import SOURCE, pa, pq, pqstep  # noqa: E402

import pandas as pd  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

import fastparquet  # noqa: E402


def trailing_bytes(path, column):
    """Bytes after the last value of the first data page of `column`
    (uncompressed file: the page read as stored)."""
    out = subprocess.run([os.environ.get("PQSTEP_CLI", os.path.join(SOURCE, "build", "pqstep")), "pages", path,
                          "--column", column, "--row-group", "0", "--json"],
                         check=True, capture_output=True, text=True).stdout
    page = json.loads(out)["chunks"][0]["pages"][0]
    assert not page["is_compressed"] or page["compressed_size"] == page["uncompressed_size"], page
    with open(path, "rb") as f:
        f.seek(page["offset"] + page["header_size"])
        raw = f.read(page["compressed_size"])
    levels = struct.unpack("<I", raw[:4])[0]
    defined = pq.read_table(path, columns=[column]).column(column)[:page["num_values"]]
    values = sum(4 + len(v.as_py()) for v in defined if v.is_valid)
    return len(raw) - 4 - levels - values


def plain(series):
    """A pandas column as a list, every kind of missing value as None."""
    return [None if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v) else v
            for v in series.astype(object).tolist()]


def same(label, got, want):
    assert got.schema.equals(want.schema, check_metadata=True), \
        "%s: schema\n%s\npyarrow:\n%s" % (label, got.schema, want.schema)
    for name in want.column_names:
        assert got[name].equals(want[name]), "%s: column %s differs" % (label, name)


def filters(t):
    """Filter texts on the types files, each with pyarrow's mask."""
    out = [("i32 > 0", pc.greater(t["i32"], 0)),
           ("u64 >= 9000000000000000000", pc.greater_equal(t["u64"], pa.scalar(9000000000000000000, pa.uint64()))),
           ("s >= 'str2' and s < 'str3'", pc.and_(pc.greater_equal(t["s"], "str2"), pc.less(t["s"], "str3"))),
           ("s is null or i8 < -90", pc.or_(pc.is_null(t["s"]), pc.less(t["i8"], -90))),
           ("f64 < 0.5 and u16 < 30000", pc.and_(pc.less(t["f64"], 0.5), pc.less(t["u16"], 30000))),
           ("nI64 is null", pc.is_null(t["nI64"])),
           ("nI64 between 100 and 200", pc.and_(pc.greater_equal(t["nI64"], 100), pc.less_equal(t["nI64"], 200))),
           ("cat = 'bb'", pc.equal(t["cat"].cast(pa.string()), "bb")),
           ("nbool = true", pc.equal(t["nbool"], True)),
           ("bytes in ('', 'aa')", pc.is_in(t["bytes"], pa.array([b"", b"\x61\x61"], pa.binary())))]
    out.append(("ts >= '2020-06-01' and ts < '2020-07-01 12:00:00.5'",  # INT96 in the *_int96 files
                pc.and_(pc.greater_equal(t["ts"], pa.scalar(datetime.datetime(2020, 6, 1)).cast(t["ts"].type)),
                        pc.less(t["ts"], pa.scalar(datetime.datetime(2020, 7, 1, 12, 0, 0, 500000)).cast(
                            t["ts"].type)))))
    return out


def main():
    with tempfile.TemporaryDirectory(prefix="pqstep-fastparquet-") as tmp:
        subprocess.check_call([sys.executable, os.path.join(SOURCE, "tests", "fixtures", "gen_fastparquet.py"), tmp])
        stored = os.path.join(tmp, "types_none_int64.parquet")
        extra = trailing_bytes(stored, "s")
        if extra:
            print("fastparquet %s leaves %d bytes after a string page's last value"
                  % (fastparquet.__version__, extra))
        else:
            print("note: fastparquet %s no longer writes bytes after a string page's last value"
                  % fastparquet.__version__)
        files = sorted(glob.glob(os.path.join(tmp, "*.parquet")))
        assert len(files) == 15, files
        filtered = 0
        for path in files:
            name = os.path.basename(path)
            want = pq.read_table(path)
            got = pqstep.read_table(path)
            same(name, got, want)
            if name.startswith("types_SNAPPY"):  # the device executor's kernels, run on the host
                same(name + " (kernels)", pqstep.read_table(path, device="host-kernels"), want)
            # as pandas, against fastparquet's own reading
            mine, theirs = got.to_pandas(), fastparquet.ParquetFile(path).to_pandas()
            if "td" in theirs:  # stored as TIME_MICROS: a time of day to pyarrow, a timedelta to fastparquet
                theirs["td"] = (pd.Timestamp(0) + theirs["td"]).dt.time
            if "j" in theirs:  # JSON: text to pyarrow, parsed by fastparquet
                mine["j"] = [None if v is None else json.loads(v) for v in mine["j"]]
            assert list(mine.columns) == list(theirs.columns), (name, list(mine.columns), list(theirs.columns))
            assert mine.index.equals(theirs.index), name
            for c in theirs.columns:
                assert plain(mine[c]) == plain(theirs[c]), "%s: column %s differs from fastparquet's" % (name, c)
            # row groups one at a time, batches, a row range
            with pqstep.Reader(path) as r:
                parts = [r.read(row_groups=[g]) for g in range(r.num_row_groups)]
                same(name + " by row group", pa.concat_tables(parts), want)
                batches = pa.Table.from_batches(list(r.iter_batches(batch_size=1000)))
                assert batches.num_rows == want.num_rows
                for c in want.column_names:
                    assert batches[c].cast(want[c].type).equals(want[c]), "%s batches: %s" % (name, c)
            same(name + " rows 3000..12000", pqstep.read_table(path, row_offset=3000, row_limit=9000),
                 want.slice(3000, 9000))
            for strings in ("string_view", "large_string"):
                other = pqstep.read_table(path, strings=strings, follow_arrow_schema=False)
                for c in want.column_names:
                    assert other[c].cast(want[c].type).equals(want[c]), "%s %s: %s" % (name, strings, c)
            if "i32" not in want.column_names:
                continue
            for text, mask in filters(want):
                expect = want.filter(mask)
                for prune in (True, False):
                    same("%s where %s (prune %s)" % (name, text, prune),
                         pqstep.read_table(path, filter=text, prune=prune), expect)
                filtered += 1
        # the dataset: fastparquet's _metadata and _common_metadata beside the parts
        hive = os.path.join(tmp, "hive")
        assert os.path.exists(os.path.join(hive, "_metadata"))
        theirs = fastparquet.ParquetFile(hive).to_pandas().sort_values("v").reset_index(drop=True)
        t = pqstep.dataset(hive, partitioning="hive").to_table().sort_by("v")
        assert t.num_rows == 5000
        assert t.column("v").to_pylist() == theirs["v"].tolist()
        assert t.column("s").to_pylist() == theirs["s"].tolist()
        assert t.column("k").to_pylist() == [int(k) for k in theirs["k"]]
        assert t.column("y").to_pylist() == [str(y) for y in theirs["y"]]
        part = pqstep.dataset(hive, partitioning="hive").to_table(filter="k = 1 and y = 'y0' and v < 400")
        assert sorted(part.column("v").to_pylist()) == [v for v in range(400) if v % 3 == 1 and v % 2 == 0]
        # read_table on the directory, as pyarrow's (whose partition columns are dictionaries)
        mine = pqstep.read_table(hive, filters=[("k", "in", [0, 2]), ("s", ">=", "s2")]).sort_by("v")
        theirs = pq.read_table(hive, filters=[("k", "in", [0, 2]), ("s", ">=", "s2")]).sort_by("v")
        assert mine.column_names == theirs.column_names, (mine.column_names, theirs.column_names)
        for c in theirs.column_names:
            assert mine.column(c).to_pylist() == theirs.column(c).to_pylist(), c
        try:
            pqstep.read_table(hive, row_offset=10)
        except ValueError as e:
            assert "row_offset does not apply" in str(e), e
        else:
            raise AssertionError("row_offset accepted for a directory")
        print("fastparquet %s: %d files equal to pyarrow's and fastparquet's readings, %d filters; the hive "
              "dataset equal to fastparquet's" % (fastparquet.__version__, len(files), filtered))


if __name__ == "__main__":
    main()
