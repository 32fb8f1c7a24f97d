#!/usr/bin/env python3
"""Data for the peer benchmark (bench/peers.py): written once, reused.

    python3 bench/gen_peers.py [--scale S] [--cache DIR] [--files lineitem,wide]

Files, in $PQSTEP_BENCH_CACHE or ~/.cache/pqstep-bench (outside the
repository); a file already there is reused. Both are deterministic (fixed
seeds; only the footer's created_by depends on the pyarrow version):

- lineitem: the TPC-H lineitem-like table of bench/decode.py (its column
  generator, imported), 61 row groups of 100,000 x S rows, zstd, pyarrow's
  defaults otherwise (dictionary encoding, statistics, data page v1). At
  S = 1 (the default): 6.1 million rows, about 1 GB as Arrow in memory
  (the size of TPC-H scale factor 1's lineitem, 6.0 million rows).
- wide: 2,000 columns x 61 row groups of 50 rows, zstd, statistics on every
  chunk: 122,000 column chunks described by a ~10 MB footer for ~3,000 rows,
  the case where metadata dominates. Columns cycle int64, double, string
  (8-16 characters) and int32; every fifth column has ~10% nulls.

Prints the paths; bench/peers.py calls ensure() itself.
"""
import argparse
import os
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.append(HERE)
import decode  # noqa: E402  (bench/decode.py: lineitem_chunk)

GEN_VERSION = 1          # bump when a generator changes: new file names
ROW_GROUPS = 61
LINEITEM_RG_ROWS = 100_000
WIDE_COLUMNS = 2000
WIDE_RG_ROWS = 50
SEED = 20240705


def cache_dir(cache=None):
    return cache or os.environ.get("PQSTEP_BENCH_CACHE") or os.path.expanduser("~/.cache/pqstep-bench")


def lineitem_rg_rows(scale):
    return max(1, int(round(LINEITEM_RG_ROWS * scale)))


def lineitem_path(cache, scale):
    return os.path.join(cache, "peers-lineitem-v%d-%dx%d.zstd.parquet"
                        % (GEN_VERSION, ROW_GROUPS, lineitem_rg_rows(scale)))


def wide_path(cache):
    return os.path.join(cache, "peers-wide-v%d-%dc-%dx%d.zstd.parquet"
                        % (GEN_VERSION, WIDE_COLUMNS, ROW_GROUPS, WIDE_RG_ROWS))


def _say(msg):
    print(msg, file=sys.stderr, flush=True)


def _write(path, make_group, what):
    """Write ROW_GROUPS tables from make_group(k) as one row group each,
    through a temporary name so a killed run leaves no half file."""
    t0 = time.perf_counter()
    _say("generating %s -> %s ..." % (what, path))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    writer = None
    try:
        for k in range(ROW_GROUPS):
            table = make_group(k)
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema, compression="zstd",
                                          write_statistics=True)
            writer.write_table(table, row_group_size=table.num_rows)
    finally:
        if writer is not None:
            writer.close()
    md = pq.read_metadata(tmp)
    assert md.num_row_groups == ROW_GROUPS, md.num_row_groups
    os.replace(tmp, path)
    secs = time.perf_counter() - t0
    _say("  done in %.1f s (%.1f MB on disk)" % (secs, os.path.getsize(path) / 1e6))
    return secs


def gen_lineitem(path, scale):
    n = lineitem_rg_rows(scale)
    state = {"first_order": 0}

    def group(k):
        table, state["first_order"] = decode.lineitem_chunk(state["first_order"], n, SEED + k)
        return table

    return _write(path, group, "lineitem, %d row groups x %d rows" % (ROW_GROUPS, n))


def _wide_column(rng, i, n):
    kind = i % 4
    mask = (rng.random(n) < 0.1) if i % 5 == 0 else None
    if kind == 0:
        return pa.array(rng.integers(-10**12, 10**12, n, dtype=np.int64), pa.int64(), mask=mask)
    if kind == 1:
        return pa.array(rng.standard_normal(n) * 1000.0, pa.float64(), mask=mask)
    if kind == 2:
        lens = rng.integers(8, 17, n)
        letters = rng.integers(97, 123, int(lens.sum()), dtype=np.uint8).tobytes().decode()
        ends = np.cumsum(lens)
        vals = [letters[e - l:e] for e, l in zip(ends, lens)]
        return pa.array(vals, pa.string(), mask=mask)
    return pa.array(rng.integers(0, 1000, n, dtype=np.int32), pa.int32(), mask=mask)


def gen_wide(path):
    names = ["c%04d" % i for i in range(WIDE_COLUMNS)]

    def group(k):
        rng = np.random.default_rng(SEED + 1000 + k)
        return pa.table([_wide_column(rng, i, WIDE_RG_ROWS) for i in range(WIDE_COLUMNS)],
                        names=names)

    return _write(path, group, "wide, %d columns x %d row groups x %d rows"
                  % (WIDE_COLUMNS, ROW_GROUPS, WIDE_RG_ROWS))


def ensure(names, scale=1.0, cache=None):
    """{name: path} for the generated files in `names` (lineitem, wide),
    writing the missing ones; also {name + "_gen_s": seconds} for those
    written now."""
    cache = cache_dir(cache)
    out = {}
    if "lineitem" in names:
        out["lineitem"] = lineitem_path(cache, scale)
        if not os.path.exists(out["lineitem"]):
            out["lineitem_gen_s"] = gen_lineitem(out["lineitem"], scale)
    if "wide" in names:
        out["wide"] = wide_path(cache)
        if not os.path.exists(out["wide"]):
            out["wide_gen_s"] = gen_wide(out["wide"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0,
                    help="lineitem rows per row group = 100000 x SCALE (default 1)")
    ap.add_argument("--cache", default=None, help="default $PQSTEP_BENCH_CACHE or ~/.cache/pqstep-bench")
    ap.add_argument("--files", default="lineitem,wide")
    args = ap.parse_args()
    if args.scale <= 0:
        ap.error("--scale must be positive")
    for name, value in ensure(args.files.split(","), args.scale, args.cache).items():
        print("%s\t%s" % (name, value))


if __name__ == "__main__":
    main()
