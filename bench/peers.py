#!/usr/bin/env python3
"""Peer benchmark: pqstep against pyarrow, DuckDB and polars, same files.

    python3 bench/peers.py [--files lineitem,wide,sample] [--threads 1,2]
                           [--repeat N] [--scale S] [--cases LIST]
                           [--json FILE] [--build DIR] [--quick]

Files (bench/gen_peers.py writes the first two once into
$PQSTEP_BENCH_CACHE or ~/.cache/pqstep-bench and reuses them):
  lineitem  TPC-H lineitem-like, 61 row groups x 100,000 x S rows, zstd
            (S = 1: 6.1 M rows, ~1 GB as Arrow)
  wide      2,000 columns x 61 row groups x 50 rows, statistics: footer-heavy
  sample    data/sample/lineitem_61rg.parquet (bundled, 61 x 2,000 rows)

Cases (each system materializes the same thing: every row, as a
pyarrow.Table / RecordBatch, or a polars DataFrame; row counts are checked):
  footer        read and parse the footer alone
  bulk          the whole file in one call
  iter_noreuse  every row group by its own call on a fresh open, which
                re-reads and re-parses the footer
  iter_reuse    every row group by its own call, one parsed footer reused
                (the one footer read is inside the timing)
  iter_cache    pqstep only: a fresh Reader per row group sharing a
                MetadataCache (1 parse)
  projected     one column, all row groups, one call
What each system runs for each case is in bench/README.md ("Peer
benchmark"). Every system x thread count runs in its own worker process
(`peers.py --worker ...`, JSON on stdout), so that POLARS_MAX_THREADS is set
before polars is imported; pyarrow gets pa.set_cpu_count /
set_io_thread_count, DuckDB SET threads, pqstep threads=.

Each case: one untimed warm-up, then --repeat timed runs (default 5; min
and median). Before timing, pqstep.read_table() must equal
pyarrow.parquet.read_table() on each file. Ratios are peer time / pqstep
time (min): above 1, pqstep is faster.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Python puts this script's folder first on sys.path; a module there named
# like a stdlib one (e.g. select.py) would shadow it in every worker.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

REPO = os.path.dirname(HERE)
SYSTEMS = ("pqstep", "pyarrow", "duckdb", "polars")
CASES = ("footer", "bulk", "iter_noreuse", "iter_reuse", "iter_cache", "projected")
FILES = ("lineitem", "wide", "sample")
SAMPLE = os.path.join(REPO, "data", "sample", "lineitem_61rg.parquet")
PROJECTED = {"lineitem": "l_orderkey", "sample": "l_orderkey", "wide": "c1000"}


# ---------------------------------------------------------------------------
# Worker: one system, one thread count, one file; JSON on stdout
# ---------------------------------------------------------------------------

def _sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def _pqstep_cases(path, threads, rg_rows, column):
    import pqstep

    def footer():
        pqstep.Reader(path).close()  # C parse; no Python objects built

    def bulk():
        return pqstep.read_table(path, threads=threads).num_rows

    def iter_noreuse():
        # read_table opens a fresh Reader: footer read and parsed each call.
        return sum(pqstep.read_table(path, row_groups=[i], threads=threads).num_rows
                   for i in range(len(rg_rows)))

    def iter_reuse():
        with pqstep.Reader(path, threads=threads) as r:
            return sum(r.read(row_groups=[i]).num_rows for i in range(len(rg_rows)))

    def iter_cache():
        n = 0
        with pqstep.MetadataCache(1 << 30) as cache:
            for i in range(len(rg_rows)):
                with pqstep.Reader(path, cache=cache, threads=threads) as r:
                    n += r.read(row_groups=[i]).num_rows
        return n

    def projected():
        t = pqstep.read_table(path, columns=[column], threads=threads)
        assert t.num_columns == 1
        return t.num_rows

    return dict(footer=footer, bulk=bulk, iter_noreuse=iter_noreuse, iter_reuse=iter_reuse,
                iter_cache=iter_cache, projected=projected), pqstep.footer_parse_count


def _pyarrow_cases(path, threads, rg_rows, column):
    import pyarrow.parquet as pq
    use = threads > 1

    def iter_noreuse():
        n = 0
        for i in range(len(rg_rows)):
            with pq.ParquetFile(path) as pf:
                n += pf.read_row_group(i, use_threads=use).num_rows
        return n

    def iter_reuse():
        md = pq.read_metadata(path)
        n = 0
        for i in range(len(rg_rows)):
            with pq.ParquetFile(path, metadata=md) as pf:
                n += pf.read_row_group(i, use_threads=use).num_rows
        return n

    def projected():
        t = pq.read_table(path, columns=[column], use_threads=use)
        assert t.num_columns == 1
        return t.num_rows

    return dict(footer=lambda: pq.read_metadata(path),
                bulk=lambda: pq.read_table(path, use_threads=use).num_rows,
                iter_noreuse=iter_noreuse, iter_reuse=iter_reuse, projected=projected), None


def _duckdb_cases(path, threads, rg_rows, column):
    import duckdb
    p = _sql_str(path)
    starts = [sum(rg_rows[:i]) for i in range(len(rg_rows))]
    # No row-group API: a range filter on the virtual file_row_number column,
    # which DuckDB prunes to exactly one row group (EXPLAIN ANALYZE: "Row
    # Groups Scanned: 1 / 61").
    rg_query = [("SELECT * EXCLUDE (file_row_number) FROM read_parquet(%s, file_row_number=true)"
                 " WHERE file_row_number >= %d AND file_row_number < %d")
                % (p, s, s + n) for s, n in zip(starts, rg_rows)]

    def connect(cache):
        con = duckdb.connect()
        con.execute("SET threads=%d" % threads)
        con.execute("SET parquet_metadata_cache=%s" % ("true" if cache else "false"))
        return con

    con = connect(False)

    def footer():
        con.sql("SELECT * FROM parquet_file_metadata(%s)" % p).fetchall()

    def bulk():
        return con.sql("SELECT * FROM read_parquet(%s)" % p).to_arrow_table().num_rows

    def iter_noreuse():
        return sum(con.sql(q).to_arrow_table().num_rows for q in rg_query)

    def iter_reuse(con2):
        return sum(con2.sql(q).to_arrow_table().num_rows for q in rg_query)

    def projected():
        t = con.sql("SELECT %s FROM read_parquet(%s)" % (column, p)).to_arrow_table()
        assert t.num_columns == 1
        return t.num_rows

    # iter_reuse: a fresh database per run (made before the timer starts), so
    # its metadata cache starts empty and the first query parses the footer.
    iter_reuse.setup = lambda: connect(True)
    return dict(footer=footer, bulk=bulk, iter_noreuse=iter_noreuse, iter_reuse=iter_reuse,
                projected=projected), None


def _polars_cases(path, threads, rg_rows, column):
    import polars as pl
    starts = [sum(rg_rows[:i]) for i in range(len(rg_rows))]

    def iter_noreuse():
        return sum(pl.scan_parquet(path).slice(s, n).collect().height
                   for s, n in zip(starts, rg_rows))

    def iter_reuse():
        # No way to hand polars parsed metadata; one LazyFrame reused keeps
        # the file information it resolved on its first collect.
        lf = pl.scan_parquet(path)
        return sum(lf.slice(s, n).collect().height for s, n in zip(starts, rg_rows))

    def projected():
        df = pl.read_parquet(path, columns=[column])
        assert df.width == 1
        return df.height

    return dict(footer=lambda: pl.read_parquet_schema(path),
                bulk=lambda: pl.read_parquet(path).height,
                iter_noreuse=iter_noreuse, iter_reuse=iter_reuse, projected=projected), None


def worker(args):
    threads = args.threads_one
    import pyarrow as pa
    import pyarrow.parquet as pq
    pa.set_cpu_count(threads)
    pa.set_io_thread_count(threads)
    md = pq.read_metadata(args.file)
    rg_rows = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
    total = md.num_rows
    del md
    make = {"pqstep": _pqstep_cases, "pyarrow": _pyarrow_cases,
            "duckdb": _duckdb_cases, "polars": _polars_cases}[args.system]
    funcs, parse_count = make(args.file, threads, rg_rows, args.column)
    out = {"system": args.system, "threads": threads, "file": args.file, "cases": {}}
    if args.system == "pqstep":
        import pqstep
        out["version"] = pqstep.library_version()
    elif args.system == "pyarrow":
        out["version"] = pa.__version__
    elif args.system == "duckdb":
        import duckdb
        out["version"] = duckdb.__version__
    else:
        import polars as pl
        out["version"] = pl.__version__
        out["polars_threads"] = pl.thread_pool_size()
    for case in args.cases.split(","):
        fn = funcs.get(case)
        if fn is None:
            out["cases"][case] = {"na": "no equivalent"}
            continue
        setup = getattr(fn, "setup", None)
        times, parses = [], []
        for k in range(args.repeat + 1):  # the first run is the warm-up
            arg = (setup(),) if setup else ()
            before = parse_count() if parse_count else 0
            t0 = time.perf_counter()
            rows = fn(*arg)
            dt = time.perf_counter() - t0
            if parse_count:
                parses.append(parse_count() - before)
            del arg
            if case != "footer" and rows != total:
                raise SystemExit("%s %s: %d rows, expected %d" % (args.system, case, rows, total))
            if k:
                times.append(dt)
        rec = {"times": times, "min": min(times), "median": statistics.median(times)}
        if parse_count:
            rec["footer_parses"] = parses[-1]
        out["cases"][case] = rec
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def say(msg):
    print(msg, file=sys.stderr, flush=True)


def library_path(build):
    if build:
        return os.path.join(os.path.abspath(build), "libpqstep.so")
    return os.environ.get("PQSTEP_LIBRARY") or os.path.join(REPO, "build", "libpqstep.so")


def file_info(path):
    import pyarrow.parquet as pq
    md = pq.read_metadata(path)
    unc = sum(md.row_group(g).column(c).total_uncompressed_size
              for g in range(md.num_row_groups) for c in range(md.num_columns))
    return {"path": path, "rows": md.num_rows, "row_groups": md.num_row_groups,
            "columns": md.num_columns, "footer_bytes": md.serialized_size,
            "parquet_uncompressed_bytes": unc, "file_bytes": os.path.getsize(path)}


def check_same(path):
    """pqstep.read_table(path) must equal pyarrow's table; returns the
    Arrow size in bytes."""
    import pyarrow.parquet as pq
    import pqstep
    ours = pqstep.read_table(path)
    theirs = pq.read_table(path)
    if ours.schema != theirs.schema:
        say("  note: schemas differ (%s); comparing after a cast to pqstep's" % path)
        theirs = theirs.cast(ours.schema)
    if not ours.equals(theirs):
        for i, name in enumerate(ours.column_names):
            if not ours.column(i).equals(theirs.column(i)):
                raise SystemExit("%s: pqstep and pyarrow differ in column %s" % (path, name))
        raise SystemExit("%s: pqstep and pyarrow differ" % path)
    return ours.nbytes


def run_worker(system, threads, path, column, cases, repeat, env):
    env = dict(env)
    if system == "polars":
        env["POLARS_MAX_THREADS"] = str(threads)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--system", system,
           "--threads", str(threads), "--file", path, "--column", column,
           "--cases", ",".join(cases), "--repeat", str(repeat)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        say("  %s/%dt failed: %s" % (system, threads, err))
        return {"system": system, "threads": threads, "error": err, "wall_s": secs}
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out["wall_s"] = secs
    return out


def fmt_time(s):
    if s is None:
        return "n/a"
    if s < 1e-3:
        return "%.0f us" % (s * 1e6)
    if s < 1:
        return "%.3g ms" % (s * 1e3)
    return "%.3g s" % s


def fmt_med(s):
    if s < 1e-3:
        return "%.0f" % (s * 1e6)
    if s < 1:
        return "%.3g" % (s * 1e3)
    return "%.3g" % s


def cell(rec):
    if rec is None:
        return "-"
    if "na" in rec:
        return "n/a"
    return "%s [%s]" % (fmt_time(rec["min"]), fmt_med(rec["median"]))


def get(results, fname, system, threads, case):
    r = results.get(fname, {}).get("%s/%d" % (system, threads))
    if not r:
        return None
    if "error" in r:
        return {"na": "error"}
    return r["cases"].get(case)


def print_table(report, systems, threads_list, cases):
    results = report["results"]
    for fname, info in report["files"].items():
        print()
        print("%s: %s rows x %d columns, %d row groups; %.1f MB as Arrow, %.1f MB Parquet "
              "uncompressed, %.1f MB on disk, footer %.2f MB" % (
                  fname, format(info["rows"], ","), info["columns"], info["row_groups"],
                  info.get("arrow_bytes", 0) / 1e6, info["parquet_uncompressed_bytes"] / 1e6,
                  info["file_bytes"] / 1e6, info["footer_bytes"] / 1e6))
        head = "%-13s %3s  %-18s" % ("case", "thr", "pqstep")
        for s in systems:
            if s != "pqstep":
                head += "  %-25s" % s
        print(head)
        for case in cases:
            for t in threads_list:
                base = get(results, fname, "pqstep", t, case)
                line = "%-13s %3d  %-18s" % (case, t, cell(base))
                for s in systems:
                    if s == "pqstep":
                        continue
                    rec = get(results, fname, s, t, case)
                    txt = "%-18s" % cell(rec)
                    if rec and "min" in rec and base and "min" in base:
                        txt += " %6.2fx" % (rec["min"] / base["min"])
                    line += "  %-25s" % txt
                print(line.rstrip())
    print()
    print("times: min of %d runs [median], ms or s as marked (medians in the same unit as "
          "written); ratio = peer min / pqstep min: > 1 means pqstep is faster"
          % report["repeat"])


def footer_parses(report, threads_list):
    lines = []
    for fname in report["files"]:
        for t in threads_list:
            bits = []
            for case in ("iter_noreuse", "iter_reuse", "iter_cache"):
                rec = get(report["results"], fname, "pqstep", t, case)
                if rec and "footer_parses" in rec:
                    bits.append("%s %d" % (case, rec["footer_parses"]))
            if bits:
                lines.append("  %s/%dt: %s (row groups: %d)" % (
                    fname, t, ", ".join(bits), report["files"][fname]["row_groups"]))
    return lines


def targets(report, systems, threads_list):
    res = report["results"]
    out = []
    for fname in report["files"]:
        for t in threads_list:
            bulk = get(res, fname, "pqstep", t, "bulk")
            reuse = get(res, fname, "pqstep", t, "iter_reuse")
            if bulk and reuse and "min" in bulk and "min" in reuse:
                r = reuse["min"] / bulk["min"]
                out.append("  [%s] %s/%dt: pqstep iter_reuse / bulk = %.2fx (target <= 1.10x)"
                           % ("met" if r <= 1.1 else "MISSED", fname, t, r))
    if "wide" in report["files"]:
        for t in threads_list:
            ours = get(res, "wide", "pqstep", t, "footer")
            if not ours or "min" not in ours:
                continue
            peers = {s: get(res, "wide", s, t, "footer") for s in systems if s != "pqstep"}
            peers = {s: r["min"] for s, r in peers.items() if r and "min" in r}
            slower = [s for s, v in peers.items() if v <= ours["min"]]
            out.append("  [%s] wide/%dt: pqstep footer %s, fastest of all: %s" % (
                "met" if not slower else "MISSED", t, fmt_time(ours["min"]),
                ", ".join("%s %s (%.2fx)" % (s, fmt_time(v), v / ours["min"])
                          for s, v in sorted(peers.items()))))
    for fname in report["files"]:
        for t in threads_list:
            ours = get(res, fname, "pqstep", t, "iter_reuse")
            if not ours or "min" not in ours:
                continue
            bits, ok = [], True
            for s in systems:
                if s == "pqstep":
                    continue
                best = None
                for case in ("iter_noreuse", "iter_reuse"):
                    r = get(res, fname, s, t, case)
                    if r and "min" in r and (best is None or r["min"] < best[1]):
                        best = (case, r["min"])
                if best:
                    ok = ok and best[1] > ours["min"]
                    bits.append("%s %s %s (%.2fx)" % (s, best[0], fmt_time(best[1]),
                                                     best[1] / ours["min"]))
            out.append("  [%s] %s/%dt: pqstep iter_reuse %s beats every peer's best iteration: %s"
                       % ("met" if ok else "MISSED", fname, t, fmt_time(ours["min"]),
                          ", ".join(bits)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=None, help="timed runs per case (default 5)")
    ap.add_argument("--scale", type=float, default=None,
                    help="lineitem rows per row group = 100000 x SCALE (default 1: ~1 GB)")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--build", metavar="DIR",
                    help="directory holding libpqstep.so (default $PQSTEP_LIBRARY, else build/)")
    ap.add_argument("--cache", default=None)
    ap.add_argument("--quick", action="store_true", help="lineitem at scale 0.1, 3 runs per case")
    # worker mode
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--system", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    ap.add_argument("--column", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(REPO, "python"))
    if args.worker:
        args.threads_one = int(args.threads)
        args.repeat = args.repeat or 5
        worker(args)
        return

    repeat = args.repeat or (3 if args.quick else 5)
    scale = args.scale if args.scale is not None else (0.1 if args.quick else 1.0)
    if repeat < 1 or scale <= 0:
        ap.error("--repeat must be >= 1 and --scale positive")
    files = [f for f in args.files.split(",") if f]
    cases = [c for c in args.cases.split(",") if c]
    systems = [s for s in args.systems.split(",") if s]
    threads_list = [int(t) for t in args.threads.split(",") if t]
    for what, got, known in (("file", files, FILES), ("case", cases, CASES),
                             ("system", systems, SYSTEMS)):
        bad = [x for x in got if x not in known]
        if bad:
            ap.error("unknown %s %s (known: %s)" % (what, ", ".join(bad), ", ".join(known)))
    if "pqstep" not in systems:
        systems.insert(0, "pqstep")
    lib = library_path(args.build)
    if not os.path.exists(lib):
        raise SystemExit("no libpqstep.so at %s (build it, or give --build DIR)" % lib)
    os.environ["PQSTEP_LIBRARY"] = lib

    sys.path.append(HERE)
    import gen_peers
    t0 = time.perf_counter()
    gen = gen_peers.ensure([f for f in files if f != "sample"], scale, args.cache)
    gen_s = {k[:-6]: v for k, v in gen.items() if k.endswith("_gen_s")}
    paths = {f: (SAMPLE if f == "sample" else gen[f]) for f in files}

    report = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": {
        "cpus": os.cpu_count(), "platform": platform.platform(),
        "python": platform.python_version(), "load_before": os.getloadavg()},
        "library": lib, "repeat": repeat, "scale": scale, "threads": threads_list,
        "cases": cases, "systems": systems, "generation_s": gen_s,
        "files": {}, "results": {}, "versions": {}}
    for f in files:
        info = file_info(paths[f])
        say("checking %s: pqstep.read_table == pyarrow.parquet.read_table ..." % f)
        info["arrow_bytes"] = check_same(paths[f])
        report["files"][f] = info
    for f in files:
        col = PROJECTED[f]
        report["files"][f]["projected_column"] = col
        res = report["results"].setdefault(f, {})
        for t in threads_list:
            for s in systems:
                say("%s: %s, %d thread%s ..." % (f, s, t, "s" if t > 1 else ""))
                out = run_worker(s, t, paths[f], col, cases, repeat, os.environ)
                res["%s/%d" % (s, t)] = out
                if "version" in out:
                    report["versions"][s] = out["version"]
    report["machine"]["load_after"] = os.getloadavg()
    report["wall_s"] = time.perf_counter() - t0

    print("peers: %s; %d CPUs; %s" % (", ".join("%s %s" % (s, report["versions"].get(s, "?"))
                                                 for s in systems),
                                       os.cpu_count(), report["date"]))
    print_table(report, systems, threads_list, cases)
    lines = footer_parses(report, threads_list)
    if lines:
        print("pqstep footer parses per iteration, counted by the library (pqstep.footer_parse_count()):")
        print("\n".join(lines))
    lines = targets(report, systems, threads_list)
    if lines:
        print("targets (printed, not asserted):")
        print("\n".join(lines))
    print("load average %.2f before, %.2f after; generation: %s; wall %.0f s" % (
        report["machine"]["load_before"][0], report["machine"]["load_after"][0],
        ", ".join("%s %.1f s" % kv for kv in gen_s.items()) or "files reused",
        report["wall_s"]))
    if args.json:
        with open(args.json, "w") as fp:
            json.dump(report, fp, indent=1)
        print("JSON: %s" % args.json)


if __name__ == "__main__":
    main()
