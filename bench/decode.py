#!/usr/bin/env python3
"""Decode benchmark: pqstep against pyarrow on a lineitem-like file.

    python3 bench/decode.py [--rows N] [--repeat R] [--threads 1,2]
                            [--build DIR] [--cache DIR] [--json FILE]

1. Generates (once; reused when present) a TPC-H lineitem-like table of 16
   columns (int64/int32 keys, four decimal(15,2), two 1-char strings, three
   date32, two short strings with few values, a 10-43 character comment)
   with a fixed seed, written by pyarrow with its default settings
   (dictionary encoding with fallback, data page v1, statistics) in several
   row groups, three times: uncompressed, snappy and zstd. The files live in
   $PQSTEP_BENCH_CACHE or ~/.cache/pqstep-bench, outside the repository.
2. Checks once per file that pqstep.read_table() equals
   pyarrow.parquet.read_table(): a benchmark of a wrong answer is worthless.
3. For each file x thread count: pyarrow.parquet.read_table(path,
   use_threads=threads > 1) with pa.set_cpu_count(threads) and
   pa.set_io_thread_count(threads), timed in this process, and
   BUILD/pqstep-bench-decode FILE --threads N --repeat R --json, which times
   whole reads (open -> decoded Arrow batches released) in its own process.
   Every read is its own measurement, after an untimed warm-up read; the
   two readers take turns (one read each per round), so that a busy spell
   on a shared machine hits both alike.
4. Prints min (and median) seconds, MB/s and rows/s at the minimum, and the
   ratio pyarrow time / pqstep time (> 1: pqstep is faster).

MB are 10^6 bytes of the chunks' total_uncompressed_size (the footer's
figure, the same for both readers).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CODECS = ("none", "snappy", "zstd")
GEN_VERSION = 1  # bump when the generator changes: new file names
SEED = 20240613

SHIPINSTRUCT = ["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"]
SHIPMODE = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"]
# Words in the spirit of TPC-H's comment grammar (not its text).
WORDS = (
    "furiously quickly carefully slyly blithely fluffily regular final express "
    "pending ironic special even bold silent unusual idle ruthless close "
    "packages requests accounts deposits foxes ideas theodolites pinto beans "
    "instructions dependencies excuses platelets asymptotes courts dolphins "
    "sleep wake are cajole haggle nag use boost affix detect integrate maintain "
    "nod was lose sublate solve thrash promise engage hinder print x-ray "
    "breach eat grow impress mold poach serve run dazzle snooze doze unwind "
    "kindle play hang believe doubt about above according across after against "
    "along alongside among around at atop before behind beneath beside besides "
    "between beyond by despite during except for from in inside instead of into "
    "near of on outside over past since through throughout to toward under "
    "until up upon without with within the fox"
).split()


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------

def _decimal(unscaled):
    """decimal128(15,2) array from non-negative int64 unscaled values."""
    n = len(unscaled)
    words = np.zeros((n, 2), dtype=np.int64)
    words[:, 0] = unscaled  # little-endian low word; high word 0 (values >= 0)
    return pa.Array.from_buffers(pa.decimal128(15, 2), n, [None, pa.py_buffer(words)])


def _date32(days):
    return pa.Array.from_buffers(pa.date32(), len(days), [None, pa.py_buffer(days.astype(np.int32))])


def _choice(rng, values, n):
    return pa.array(values, pa.string()).take(pa.array(rng.integers(0, len(values), n)))


def _comments(rng, n):
    """n strings of 10..43 characters cut from one stream of random words."""
    vocab = np.frombuffer(" ".join(WORDS).encode() + b" ", dtype=np.uint8)
    wlen = np.array([len(w) + 1 for w in WORDS], dtype=np.int64)  # with the space
    wstart = np.concatenate(([0], np.cumsum(wlen)[:-1]))
    lens = rng.integers(10, 44, n).astype(np.int64)
    total = int(lens.sum())
    # Pick words until the stream is long enough (a few words more on average).
    idx = rng.integers(0, len(WORDS), max(16, int(total / wlen.mean() * 1.2) + 16))
    while int(wlen[idx].sum()) < total:
        idx = np.concatenate((idx, rng.integers(0, len(WORDS), len(idx) // 4 + 16)))
    wl = wlen[idx]
    ostart = np.concatenate(([0], np.cumsum(wl)[:-1]))
    src = np.repeat(wstart[idx] - ostart, wl) + np.arange(int(wl.sum()), dtype=np.int64)
    stream = vocab[src[:total]]
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lens, out=offsets[1:])
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(stream))


def lineitem_chunk(first_order, n, seed):
    """n lineitem-like rows whose order keys start after first_order.
    Returns (table, next first_order)."""
    rng = np.random.default_rng(seed)
    # Orders of 1..7 lines; order keys sparse like TPC-H's (8 used of 32).
    lines = rng.integers(1, 8, n // 2 + 8)  # ~2n rows: enough
    ends = np.cumsum(lines)
    norders = int(np.searchsorted(ends, n)) + 1
    lines = lines[:norders]
    lines[-1] -= int(ends[norders - 1]) - n
    order_idx = np.repeat(np.arange(norders, dtype=np.int64), lines)
    first = np.concatenate(([0], np.cumsum(lines)[:-1]))
    linenumber = (np.arange(n, dtype=np.int64) - np.repeat(first, lines) + 1).astype(np.int32)
    okey = first_order + order_idx
    orderkey = (okey // 8) * 32 + okey % 8 + 1

    partkey = rng.integers(1, 200_001, n, dtype=np.int64)
    suppkey = rng.integers(1, 10_001, n, dtype=np.int64)
    quantity = rng.integers(1, 51, n, dtype=np.int64)
    retail = 90_000 + (partkey // 10) % 20_001 + 100 * (partkey % 1_000)  # cents
    extendedprice = quantity * retail
    discount = rng.integers(0, 11, n, dtype=np.int64)
    tax = rng.integers(0, 9, n, dtype=np.int64)
    orderdate = np.repeat(rng.integers(8036, 8036 + 2405, norders), lines)  # 1992-01-01 ..
    shipdate = orderdate + rng.integers(1, 122, n)
    commitdate = orderdate + rng.integers(30, 91, n)
    receiptdate = shipdate + rng.integers(1, 31, n)
    cutoff = 9298  # 1995-06-17
    returnflag = np.where(receiptdate <= cutoff, np.where(rng.integers(0, 2, n) == 0, 0, 1), 2)
    linestatus = (shipdate > cutoff).astype(np.int64)

    cols = {
        "l_orderkey": pa.array(orderkey, pa.int64()),
        "l_partkey": pa.array(partkey, pa.int64()),
        "l_suppkey": pa.array(suppkey, pa.int64()),
        "l_linenumber": pa.array(linenumber, pa.int32()),
        "l_quantity": _decimal(quantity * 100),
        "l_extendedprice": _decimal(extendedprice),
        "l_discount": _decimal(discount),
        "l_tax": _decimal(tax),
        "l_returnflag": pa.array(["R", "A", "N"], pa.string()).take(pa.array(returnflag)),
        "l_linestatus": pa.array(["O", "F"], pa.string()).take(pa.array(linestatus)),
        "l_shipdate": _date32(shipdate),
        "l_commitdate": _date32(commitdate),
        "l_receiptdate": _date32(receiptdate),
        "l_shipinstruct": _choice(rng, SHIPINSTRUCT, n),
        "l_shipmode": _choice(rng, SHIPMODE, n),
        "l_comment": _comments(rng, n),
    }
    return pa.table(cols), first_order + norders


def file_paths(cache, rows, rg_rows):
    base = "lineitem-v%d-%d-rg%d" % (GEN_VERSION, rows, rg_rows)
    return {c: os.path.join(cache, "%s.%s.parquet" % (base, c)) for c in CODECS}


def generate(cache, rows, rg_rows):
    """Write the three files unless they are all there; return their paths."""
    paths = file_paths(cache, rows, rg_rows)
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    os.makedirs(cache, exist_ok=True)
    t0 = time.perf_counter()
    print("generating %d rows (row groups of %d) into %s ..." % (rows, rg_rows, cache),
          file=sys.stderr, flush=True)
    tmp = {c: p + ".tmp" for c, p in paths.items()}
    writers = {}
    try:
        first_order, done, k = 0, 0, 0
        while done < rows:
            n = min(rg_rows, rows - done)
            table, first_order = lineitem_chunk(first_order, n, SEED + k)
            for c in CODECS:
                if c not in writers:
                    writers[c] = pq.ParquetWriter(tmp[c], table.schema, compression=c)
                writers[c].write_table(table, row_group_size=rg_rows)
            done += n
            k += 1
    finally:
        for w in writers.values():
            w.close()
    for c in CODECS:
        os.replace(tmp[c], paths[c])
    print("  done in %.1f s" % (time.perf_counter() - t0), file=sys.stderr, flush=True)
    return paths


# ---------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------

def footer_sizes(path):
    md = pq.ParquetFile(path).metadata
    unc = comp = 0
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        for c in range(rg.num_columns):
            col = rg.column(c)
            unc += col.total_uncompressed_size
            comp += col.total_compressed_size
    return md.num_rows, md.num_row_groups, unc, comp


def time_pyarrow_columns(path, threads, repeat, columns):
    pa.set_cpu_count(threads)
    pa.set_io_thread_count(threads)
    use = threads > 1
    pq.read_table(path, columns=columns, use_threads=use)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        t = pq.read_table(path, columns=columns, use_threads=use)
        times.append(time.perf_counter() - t0)
        del t
    return sorted(times)


def time_pqstep(driver, path, threads, repeat, columns=None):
    cmd = [driver, path, "--threads", str(threads), "--repeat", str(repeat), "--json"]
    if columns is not None:
        cmd += ["--columns", ",".join(str(c) for c in columns)]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def per_column(driver, path, repeat):
    """Each leaf column read alone, 1 thread: where the time goes."""
    pf = pq.ParquetFile(path)
    md, schema = pf.metadata, pf.schema
    print("per column, 1 thread: %s (min of %d reads)" % (os.path.basename(path), repeat))
    print("%-3s %-16s %-28s %8s %10s %10s %11s %12s %6s" % (
        "#", "column", "type", "MB", "pqstep s", "pyarrow s", "pqstep MB/s", "pyarrow MB/s",
        "ratio"))
    for i in range(md.num_columns):
        col = schema.column(i)
        unc = sum(md.row_group(g).column(i).total_uncompressed_size
                  for g in range(md.num_row_groups))
        enc = md.row_group(0).column(i).encodings
        kind = "%s%s%s" % (col.physical_type,
                           "(%d)" % col.length if col.physical_type == "FIXED_LEN_BYTE_ARRAY" else "",
                           " dict" if any("DICTIONARY" in e for e in enc) else "")
        ours = time_pqstep(driver, path, 1, repeat, [i])["min_s"]
        theirs = time_pyarrow_columns(path, 1, repeat, [col.name])[0]
        print("%-3d %-16s %-28s %8.1f %10.4f %10.4f %11.0f %12.0f %5.2fx" % (
            i, col.name, kind, unc / 1e6, ours, theirs, unc / 1e6 / ours, unc / 1e6 / theirs,
            theirs / ours), flush=True)


def time_interleaved(driver, path, threads, repeat):
    """R rounds of one pqstep read (a fresh driver process: one untimed
    warm-up read, then the timed one) and one pyarrow read, so that a busy
    spell on a shared machine hits both sides alike."""
    pa.set_cpu_count(threads)
    pa.set_io_thread_count(threads)
    use = threads > 1
    pq.read_table(path, use_threads=use)  # warm-up, untimed
    ours, theirs, info = [], [], None
    for _ in range(repeat):
        info = time_pqstep(driver, path, threads, 1)
        ours.append(info["min_s"])
        t0 = time.perf_counter()
        t = pq.read_table(path, use_threads=use)
        theirs.append(time.perf_counter() - t0)
        del t
    info["times_s"] = sorted(ours)
    return info, sorted(theirs)


def check_equal(path):
    import pqstep
    ours = pqstep.read_table(path)
    theirs = pq.read_table(path)
    if not ours.equals(theirs):
        for name in theirs.column_names:
            if not ours.column(name).equals(theirs.column(name)):
                raise SystemExit("%s: pqstep and pyarrow differ in column %s" % (path, name))
        raise SystemExit("%s: pqstep and pyarrow differ (schema: %s vs %s)"
                         % (path, ours.schema, theirs.schema))


def find_build(arg):
    cands = [arg] if arg else [os.environ.get("PQSTEP_BUILD"), os.path.join(REPO, "build")]
    for d in cands:
        if d and os.path.exists(os.path.join(d, "pqstep-bench-decode")):
            return d
    raise SystemExit("decode.py: pqstep-bench-decode not found in %s; build it "
                     "(cmake -DCMAKE_BUILD_TYPE=Release, target pqstep_bench_decode) and pass "
                     "--build DIR" % ", ".join(d for d in cands if d))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000, help="rows in the file (default 2000000)")
    ap.add_argument("--row-group-rows", type=int, default=250_000,
                    help="rows per row group (default 250000)")
    ap.add_argument("--repeat", type=int, default=5, help="timed reads per case (default 5, min 5)")
    ap.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    ap.add_argument("--codecs", default=",".join(CODECS), help="subset of none,snappy,zstd")
    ap.add_argument("--build", help="build dir holding pqstep-bench-decode and libpqstep.so "
                    "(default $PQSTEP_BUILD, else build/)")
    ap.add_argument("--cache", default=os.environ.get("PQSTEP_BENCH_CACHE")
                    or os.path.expanduser("~/.cache/pqstep-bench"),
                    help="where the generated files live (default $PQSTEP_BENCH_CACHE or "
                    "~/.cache/pqstep-bench)")
    ap.add_argument("--no-check", action="store_true", help="skip the pqstep == pyarrow check")
    ap.add_argument("--per-column", action="store_true",
                    help="instead: time each column alone (1 thread) in each file")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    a = ap.parse_args()
    if a.rows < 1 or a.row_group_rows < 1:
        ap.error("--rows and --row-group-rows must be positive")
    repeat = max(5, a.repeat)
    threads = [int(t) for t in a.threads.split(",") if t]
    codecs = [c for c in a.codecs.split(",") if c]
    for c in codecs:
        if c not in CODECS:
            ap.error("unknown codec %r" % c)

    build = find_build(a.build)
    driver = os.path.join(build, "pqstep-bench-decode")
    lib = os.path.join(build, "libpqstep.so")
    if os.path.exists(lib):
        os.environ.setdefault("PQSTEP_LIBRARY", lib)
    sys.path.insert(0, os.path.join(REPO, "python"))

    paths = generate(a.cache, a.rows, a.row_group_rows)
    if a.per_column:
        for c in codecs:
            per_column(driver, paths[c], repeat)
        return
    results = []
    load0 = os.getloadavg()[0]
    for c in codecs:
        path = paths[c]
        rows, groups, unc, comp = footer_sizes(path)
        if not a.no_check:
            print("checking %s: pqstep == pyarrow ..." % os.path.basename(path), file=sys.stderr,
                  flush=True)
            check_equal(path)
        for th in threads:
            print("timing %s, %d thread(s) ..." % (c, th), file=sys.stderr, flush=True)
            ours, theirs = time_interleaved(driver, path, th, repeat)
            if ours["rows"] != rows or ours["uncompressed_bytes"] != unc:
                raise SystemExit("%s: the driver read %d rows / %d bytes, the footer says %d / %d"
                                 % (path, ours["rows"], ours["uncompressed_bytes"], rows, unc))
            results.append({
                "case": "%s/%dt" % (c, th), "codec": c, "threads": th, "file": path,
                "rows": rows, "row_groups": groups, "uncompressed_bytes": unc,
                "compressed_bytes": comp, "repeat": repeat,
                "pqstep_min_s": ours["times_s"][0],
                "pqstep_median_s": statistics.median(ours["times_s"]),
                "pqstep_times_s": ours["times_s"],
                "pyarrow_min_s": theirs[0], "pyarrow_median_s": statistics.median(theirs),
                "pyarrow_times_s": theirs,
            })

    load = (load0, os.getloadavg()[0])
    print_table(results, a.rows, repeat, load)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"pyarrow": pa.__version__, "rows": a.rows, "cpus": os.cpu_count(),
                       "loadavg_before_after": load, "row_group_rows": a.row_group_rows,
                       "results": results}, f, indent=1)


def print_table(results, rows, repeat, load):
    if not results:
        return
    r0 = results[0]
    print("decode: %d rows x 16 columns, %d row groups, %.1f MB uncompressed; "
          "pyarrow %s; min of %d reads (median in brackets)"
          % (rows, r0["row_groups"], r0["uncompressed_bytes"] / 1e6, pa.__version__, repeat))
    hdr = ("case", "pqstep s", "pyarrow s", "pqstep MB/s", "pyarrow MB/s", "pqstep Mrow/s",
           "pyarrow Mrow/s", "ratio")
    print("%-10s %-17s %-17s %11s %12s %13s %14s %6s" % hdr)
    for r in results:
        mb = r["uncompressed_bytes"] / 1e6
        po, pm = r["pqstep_min_s"], r["pqstep_median_s"]
        ao, am = r["pyarrow_min_s"], r["pyarrow_median_s"]
        print("%-10s %-17s %-17s %11.0f %12.0f %13.2f %14.2f %5.2fx"
              % (r["case"], "%.3f [%.3f]" % (po, pm), "%.3f [%.3f]" % (ao, am), mb / po, mb / ao,
                 r["rows"] / po / 1e6, r["rows"] / ao / 1e6, ao / po))
    print("ratio = pyarrow time / pqstep time (min); > 1: pqstep is faster")
    print("%d CPUs; load average %.2f before, %.2f after (this run included)"
          % (os.cpu_count(), load[0], load[1]))


if __name__ == "__main__":
    main()
