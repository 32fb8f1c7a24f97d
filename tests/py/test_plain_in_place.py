#!/usr/bin/env python3
"""Required PLAIN pages of fixed-width values are decompressed straight
into their place in the output (pages/page_values.c
pq_page_plain_in_place): no copy out of a page buffer. Files written here by
pyarrow with non-nullable columns and no dictionary (int32, int64, float,
double, date32, timestamp, a 16-byte fixed_size_binary, and a decimal
stored as INT64 read as decimal128, which is widened and so not placed),
pages v1 and v2, every codec pqstep reads, several row groups of several
pages each; read whole, by columns, over a row range and filtered, at 1 and
2 threads, each equal to pyarrow's read. A snappy page whose stream declares
other bytes than its header is refused with a SNAPPY message, not read.
"""
import os
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import Checks, pa, pq, pqstep  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

N = 30000
CODECS = ("snappy", "zstd", "gzip", "lz4", "brotli", "none")


def table():
    rng = np.random.default_rng(11)
    fields = [
        pa.field("i32", pa.int32(), nullable=False),
        pa.field("i64", pa.int64(), nullable=False),
        pa.field("f", pa.float32(), nullable=False),
        pa.field("d", pa.float64(), nullable=False),
        pa.field("day", pa.date32(), nullable=False),
        pa.field("ts", pa.timestamp("us"), nullable=False),
        pa.field("fsb", pa.binary(16), nullable=False),
        pa.field("dec", pa.decimal128(15, 2), nullable=False),
    ]
    i64 = np.repeat(rng.integers(-2**40, 2**40, N // 4), 4)  # runs, as sorted keys give
    return pa.table([
        pa.array(rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)),
        pa.array(i64),
        pa.array(rng.random(N).astype(np.float32)),
        pa.array(rng.random(N)),
        pa.array(rng.integers(0, 20000, N, dtype=np.int32), pa.int32()).cast(pa.date32()),
        pa.array(rng.integers(0, 2**50, N), pa.int64()).cast(pa.timestamp("us")),
        pa.array([bytes(rng.integers(0, 256, 16, dtype=np.uint8)) for _ in range(N)], pa.binary(16)),
        pa.array([Decimal(int(v)).scaleb(-2) for v in rng.integers(-10**12, 10**12, N)], pa.decimal128(15, 2)),
    ], schema=pa.schema(fields))


def corrupt_preamble(path, n_values):
    """The first data page's snappy preamble (a varint of its bytes) made 8
    bytes short: the stream then declares other bytes than the header."""
    data = bytearray(open(path, "rb").read())
    start = pq.ParquetFile(path).metadata.row_group(0).column(0).data_page_offset
    want = n_values * 8
    varint = bytes([want & 0x7F | 0x80, want >> 7]) if want < 1 << 14 else None
    at = data.find(varint, start)
    assert varint and 0 <= at < start + 512, "preamble not found"
    short = want - 8
    data[at:at + 2] = bytes([short & 0x7F | 0x80, short >> 7])
    open(path, "wb").write(bytes(data))


def main():
    t = table()
    check = Checks()

    with tempfile.TemporaryDirectory(prefix="pqstep-in-place-") as tmp:
        path = os.path.join(tmp, "t.parquet")
        for version in ("1.0", "2.0"):
            for codec in CODECS:
                pq.write_table(t, path, row_group_size=12000, data_page_size=16384, data_page_version=version,
                               use_dictionary=False, compression=codec, store_decimal_as_integer=True)
                want = pq.read_table(path)
                what = "pages v%s, %s" % (version, codec)
                for threads in (1, 2):
                    check(pqstep.read_table(path, threads=threads).equals(want), "%s, whole, %d thread(s)" % (what, threads))
                got = pqstep.read_table(path, columns=["i64", "d"], threads=2)
                check(got.equals(want.select(["i64", "d"])), what + ", two columns")
                got = pqstep.read_table(path, row_offset=5001, row_limit=13000, threads=2)
                check(got.equals(want.slice(5001, 13000)), what + ", rows 5001..18001")
                got = pqstep.read_table(path, filter="i32 > 0", threads=2)
                check(got.equals(want.filter(pc.greater(want["i32"], 0))), what + ", filtered")
        # a page whose snappy stream declares 8 bytes fewer than its header
        one = pa.table({"x": pa.array(np.arange(1000, dtype=np.int64))},
                       schema=pa.schema([pa.field("x", pa.int64(), nullable=False)]))
        pq.write_table(one, path, use_dictionary=False, compression="snappy", data_page_version="1.0")
        check(pqstep.read_table(path).equals(one), "the snappy page before its corruption")
        corrupt_preamble(path, 1000)
        try:
            pqstep.read_table(path)
            check(False, "a snappy stream declaring 7992 bytes for a page of 8000 was read")
        except pqstep.Error as e:
            check("SNAPPY" in str(e) and "7992" in str(e), "the refusal names SNAPPY and the bytes: %s" % e)
    print("required PLAIN pages decompressed in place: %d checks, %d failed" % (check.n, check.failed))
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
