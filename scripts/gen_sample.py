#!/usr/bin/env python3
"""Generate a TPC-H lineitem-like Parquet file for pqstep's demo and benchmarks.

The committed sample, data/sample/lineitem_61rg.parquet, is this script's
default output: 61 row groups x 2,000 rows, sorted by l_orderkey, zstd,
statistics and page index on. The same script makes bigger files for the
benchmarks, e.g. about 1 GB:

    scripts/gen_sample.py --rows-per-group 600000 --out /tmp/lineitem_1g.parquet

Values follow the shape of TPC-H lineitem (sparse order keys, 1-7 lines per
order, dates derived from an order date, flags derived from the dates), drawn
from Python's `random` with a fixed seed. The rows depend only on --seed,
--rows-per-group and --row-groups, never on the Python or pyarrow version
(only the created_by string in the footer changes). Needs pyarrow, not numpy.
"""

import argparse
import datetime
import random
import sys
from array import array

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA = pa.schema([
    ("l_orderkey", pa.int64()),
    ("l_partkey", pa.int64()),
    ("l_suppkey", pa.int64()),
    ("l_linenumber", pa.int32()),
    ("l_quantity", pa.decimal128(15, 2)),
    ("l_extendedprice", pa.decimal128(15, 2)),
    ("l_discount", pa.decimal128(15, 2)),
    ("l_tax", pa.decimal128(15, 2)),
    ("l_returnflag", pa.string()),
    ("l_linestatus", pa.string()),
    ("l_shipdate", pa.date32()),
    ("l_commitdate", pa.date32()),
    ("l_receiptdate", pa.date32()),
    ("l_shipinstruct", pa.string()),
    ("l_shipmode", pa.string()),
    ("l_comment", pa.string()),
])

SHIP_INSTRUCT = ["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"]
SHIP_MODE = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"]
# Our own small vocabulary for the free-text comments.
WORDS = ("quick slow bold final pending silent ironic careful regular even express "
         "special furious blithe fluffy ruthless daring idle sly packages deposits "
         "requests accounts foxes theodolites pinto beans instructions asymptotes "
         "dependencies platelets ideas sleep wake nag haggle boost cajole detect "
         "integrate use print across above along among around beside").split()

EPOCH = datetime.date(1970, 1, 1)
START = (datetime.date(1992, 1, 1) - EPOCH).days
# Orders are placed up to 151 days before the end of the period (1998-12-31),
# so that every derived date stays inside it.
LAST_ORDER = (datetime.date(1998, 8, 2) - EPOCH).days
CURRENT = (datetime.date(1995, 6, 17) - EPOCH).days
NUM_PARTS = 200_000
NUM_SUPPLIERS = 10_000


def retail_cents(partkey):
    """A part's retail price in cents: deterministic in the key, 900.00-2099.99."""
    return 90000 + ((partkey // 10) % 20001) + 100 * (partkey % 1000)


def comment(rng):
    """Free text of 10 to 43 characters."""
    target = rng.randint(10, 43)
    text = ""
    while len(text) < target:
        text += rng.choice(WORDS) + " "
    text = text[:target]
    # A trailing blank would look like a truncated word; end on a full stop.
    return text[:-1] + "." if text.endswith(" ") else text


def lines(rng):
    """Yield lineitem rows as tuples, in increasing l_orderkey order, forever."""
    order_index = 0
    while True:
        # TPC-H order keys are sparse: 8 used keys in every block of 32.
        orderkey = (order_index // 8) * 32 + (order_index % 8) + 1
        order_index += 1
        orderdate = rng.randint(START, LAST_ORDER)
        for linenumber in range(1, rng.randint(1, 7) + 1):
            partkey = rng.randint(1, NUM_PARTS)
            suppkey = (partkey + rng.randint(0, 3) * (NUM_SUPPLIERS // 4)) % NUM_SUPPLIERS + 1
            quantity = rng.randint(1, 50)
            shipdate = orderdate + rng.randint(1, 121)
            commitdate = orderdate + rng.randint(30, 90)
            receiptdate = shipdate + rng.randint(1, 30)
            if receiptdate <= CURRENT:
                returnflag = "R" if rng.random() < 0.5 else "A"
            else:
                returnflag = "N"
            yield (orderkey, partkey, suppkey, linenumber,
                   quantity * 100,                      # cents
                   quantity * retail_cents(partkey),    # cents
                   rng.randint(0, 10),                  # cents: 0.00-0.10
                   rng.randint(0, 8),                   # cents: 0.00-0.08
                   returnflag,
                   "O" if shipdate > CURRENT else "F",
                   shipdate, commitdate, receiptdate,
                   rng.choice(SHIP_INSTRUCT), rng.choice(SHIP_MODE), comment(rng))


def decimal_array(cents, type_):
    """decimal128 array from non-negative integer cents, built from the raw
    16-byte little-endian values (much faster than decimal.Decimal objects)."""
    words = array("q", bytes(16 * len(cents)))
    words[0::2] = array("q", cents)  # low word; the high word stays 0
    if sys.byteorder != "little":
        words.byteswap()
    return pa.Array.from_buffers(type_, len(cents), [None, pa.py_buffer(words.tobytes())])


def make_table(rows):
    cols = list(zip(*rows))
    arrays = []
    for i, field in enumerate(SCHEMA):
        if pa.types.is_decimal(field.type):
            arrays.append(decimal_array(cols[i], field.type))
        elif pa.types.is_date32(field.type):
            arrays.append(pa.array(cols[i], pa.int32()).cast(pa.date32()))
        else:
            arrays.append(pa.array(cols[i], field.type))
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows-per-group", type=int, default=2000)
    ap.add_argument("--row-groups", type=int, default=61)
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--out", default="data/sample/lineitem_61rg.parquet")
    ap.add_argument("--compression", default="zstd")
    args = ap.parse_args()
    if args.rows_per_group < 1 or args.row_groups < 1:
        ap.error("--rows-per-group and --row-groups must be at least 1")

    writer_opts = dict(compression=args.compression, write_statistics=True,
                       write_page_index=True, use_dictionary=True)
    if hasattr(pq, "SortingColumn"):  # pyarrow >= 13 records the sort order
        writer_opts["sorting_columns"] = [pq.SortingColumn(0)]

    rng = random.Random(args.seed)
    source = lines(rng)
    with pq.ParquetWriter(args.out, SCHEMA, **writer_opts) as writer:
        for _ in range(args.row_groups):
            rows = [next(source) for _ in range(args.rows_per_group)]
            # One write_table call per group, with a group size equal to it,
            # gives exactly --row-groups row groups.
            writer.write_table(make_table(rows), row_group_size=args.rows_per_group)

    md = pq.ParquetFile(args.out).metadata
    assert md.num_row_groups == args.row_groups, md.num_row_groups
    assert md.num_rows == args.rows_per_group * args.row_groups, md.num_rows
    print(f"wrote {args.out}: {md.num_rows} rows, {md.num_row_groups} row groups, "
          f"{md.num_columns} columns, footer {md.serialized_size} bytes")


if __name__ == "__main__":
    main()
