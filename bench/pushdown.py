#!/usr/bin/env python3
"""Predicate pushdown benchmark: pqstep against pyarrow and DuckDB.

    python3 bench/pushdown.py [--rows N] [--rg-rows N] [--repeat R] [--threads 1,2]
                            [--queries q1,q2,q3,q4] [--systems pqstep,pyarrow,duckdb]
                            [--build DIR] [--cache DIR] [--json FILE]

1. Generates once (then reuses) a lineitem-like file with the column
   generator of bench/decode.py: sorted by l_orderkey, row groups of
   --rg-rows rows, zstd, pyarrow's defaults otherwise (dictionary encoding
   with fallback, pages of at most 20,000 rows), plus the page index
   (write_page_index=True) and split-block bloom filters on l_orderkey and
   l_comment. It lives in $PQSTEP_BENCH_CACHE or ~/.cache/pqstep-bench.
2. Four queries, each returning every column of the matching rows:
   q1  l_orderkey >= A and l_orderkey < B       about 0.1% of the rows
   q2  l_comment = 'V'                          one row (V occurs once)
   q3  l_orderkey >= C and l_orderkey < D       about 10% of the rows
   q4  (l_orderkey >= E and l_orderkey < F)     two ranges of about 0.05% each,
       or (l_orderkey >= G and l_orderkey < H)  near the start and the end of
                                                one row group (pages apart)
   The bounds and V are taken from the file (fixed positions), so any
   --rows gives the same shape of query.
3. Checks once per query that the three systems return the same number of
   rows and that pqstep's table equals pyarrow's (both sorted).
4. One worker process per system and thread count (imports, connections and
   the warm-up happen there, outside the measurements); the driver asks the
   workers in turn, one query run each per round, so that a busy spell on a
   shared machine hits every system alike. Each run measures, inside its
   worker, time.perf_counter() and the rchar/syscr counters of
   /proc/self/io (bytes the process asked read()/pread() for, page cache
   hits included, every thread counted) around the query.
   pqstep:  pqstep.Reader(path, threads=T).read(filter=TEXT), then its own
            counters (bytes_read of every stage);
   pyarrow: pq.read_table(path, filters=DNF) after pa.set_cpu_count(T),
            pa.set_io_thread_count(T), use_threads=T > 1 (pre_buffer default);
   DuckDB:  con.sql("SELECT * FROM read_parquet('path') WHERE ...")
            .to_arrow_table() with SET threads=T and
            SET enable_external_file_cache=false (otherwise DuckDB serves
            repeated queries from its own in-memory copy of the file and
            reads nothing).
5. Prints bytes read and min [median] time per query, thread count and
   system, and the ratios peer / pqstep (> 1: pqstep reads less or is
   faster), then the targets (not asserted): fewer bytes read than either
   peer, and faster.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

REPO = os.path.dirname(HERE)
GEN_VERSION = 1  # bump when the file's layout changes: new file name
SYSTEMS = ("pqstep", "pyarrow", "duckdb")
QUERIES = ("q1", "q2", "q3", "q4")
# Where each query's rows start, as a fraction of the file (chosen to fall
# inside row groups and pages, not on their boundaries), and its size.
Q1_AT, Q1_FRACTION = 0.4321, 0.001
Q2_AT = 0.6789
Q3_AT, Q3_FRACTION = 0.2345, 0.10
Q4_AT, Q4_FRACTION = (0.3515, 0.3955), 0.0005  # both in row group 7 of 20


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------

def file_path(cache, rows, rg_rows):
    return os.path.join(cache, "select-lineitem-v%d-%d-rg%d.zstd.parquet"
                        % (GEN_VERSION, rows, rg_rows))


def generate(cache, rows, rg_rows):
    """Write the file unless it is there; return its path."""
    import pyarrow.parquet as pq
    # The lineitem-like column generator of bench/decode.py.
    spec = importlib.util.spec_from_file_location("pqstep_bench_decode",
                                                  os.path.join(HERE, "decode.py"))
    decode = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(decode)
    path = file_path(cache, rows, rg_rows)
    if os.path.exists(path):
        return path
    os.makedirs(cache, exist_ok=True)
    t0 = time.perf_counter()
    print("generating %d rows (row groups of %d) into %s ..." % (rows, rg_rows, path),
          file=sys.stderr, flush=True)
    tmp = path + ".tmp"
    bloom = {"ndv": rg_rows, "fpp": 0.01}  # ndv per column chunk: at most its rows
    writer = None
    try:
        first_order, done, k = 0, 0, 0
        while done < rows:
            n = min(rg_rows, rows - done)
            # Every chunk starts a new order after the last one: sorted keys.
            table, first_order = decode.lineitem_chunk(first_order, n, decode.SEED + k)
            if writer is None:
                writer = pq.ParquetWriter(
                    tmp, table.schema, compression="zstd", write_page_index=True,
                    bloom_filter_options={"l_orderkey": bloom, "l_comment": bloom})
            writer.write_table(table, row_group_size=rg_rows)
            done += n
            k += 1
    finally:
        if writer is not None:
            writer.close()
    os.replace(tmp, path)
    print("  done in %.1f s" % (time.perf_counter() - t0), file=sys.stderr, flush=True)
    return path


def _sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def make_queries(path):
    """The four queries, with bounds and the string value read from the file."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    t = pq.read_table(path, columns=["l_orderkey", "l_comment"])
    n = t.num_rows
    keys = t.column("l_orderkey").to_numpy()
    qs = {}
    for name, at, frac in (("q1", Q1_AT, Q1_FRACTION), ("q3", Q3_AT, Q3_FRACTION)):
        i0 = int(n * at)
        i1 = min(n - 1, i0 + max(1, int(n * frac)))
        lo, hi = int(keys[i0]), int(keys[i1])
        qs[name] = {
            "what": "%.1f%% range on l_orderkey" % (frac * 100),
            "pqstep": "l_orderkey >= %d and l_orderkey < %d" % (lo, hi),
            "pyarrow": [("l_orderkey", ">=", lo), ("l_orderkey", "<", hi)],
            "sql": "l_orderkey >= %d AND l_orderkey < %d" % (lo, hi),
        }
    # q4: two small ranges of one row group, with pages between them that
    # hold no match (the page index keeps two runs of rows, not the span).
    bounds = []
    for at in Q4_AT:
        i0 = int(n * at)
        i1 = min(n - 1, i0 + max(1, int(n * Q4_FRACTION)))
        bounds.append((int(keys[i0]), int(keys[i1])))
    (a, b), (c, d) = bounds
    qs["q4"] = {
        "what": "two %.2f%% ranges on l_orderkey, pages apart" % (Q4_FRACTION * 100),
        "pqstep": "(l_orderkey >= %d and l_orderkey < %d) or (l_orderkey >= %d and l_orderkey < %d)" % (a, b, c, d),
        "pyarrow": [[("l_orderkey", ">=", a), ("l_orderkey", "<", b)],
                    [("l_orderkey", ">=", c), ("l_orderkey", "<", d)]],
        "sql": "(l_orderkey >= %d AND l_orderkey < %d) OR (l_orderkey >= %d AND l_orderkey < %d)" % (a, b, c, d),
    }
    # q2: the first long comment from Q2_AT on that occurs exactly once.
    comments = t.column("l_comment")
    value = None
    for i in range(int(n * Q2_AT), n):
        v = comments[i].as_py()
        if len(v) >= 30 and pc.sum(pc.equal(comments, v)).as_py() == 1:
            value = v
            break
    if value is None:
        raise SystemExit("select.py: no unique l_comment value found")
    qs["q2"] = {
        "what": "equality on l_comment (high-cardinality string)",
        "pqstep": "l_comment = %s" % _sql_str(value),
        "pyarrow": [("l_comment", "=", value)],
        "sql": "l_comment = %s" % _sql_str(value),
    }
    return qs


# ---------------------------------------------------------------------------
# Worker: one system, one thread count; commands on stdin, JSON on stdout
# ---------------------------------------------------------------------------

class ProcIO:
    """rchar and syscr of this process from /proc/self/io (every thread)."""

    def __init__(self):
        self.fd = os.open("/proc/self/io", os.O_RDONLY)
        a = self.read()
        b = self.read()
        # Reading the file is itself a read(): measured once, subtracted.
        self.overhead = (b[0] - a[0], b[1] - a[1])

    def read(self):
        text = os.pread(self.fd, 4096, 0).decode()
        f = dict(line.split(": ") for line in text.strip().splitlines())
        return int(f["rchar"]), int(f["syscr"])


class PqstepRunner:
    def __init__(self, path, threads):
        sys.path.insert(0, os.path.join(REPO, "python"))
        import pqstep
        self.pqstep, self.path, self.threads = pqstep, path, threads
        self.stats = {}

    def run(self, q):
        with self.pqstep.Reader(self.path, threads=self.threads) as r:
            t = r.read(filter=q["pqstep"])
            # Counters are read after the timer (see measure()); keep the reader.
            self.stats = {s: r.stage_stats(s) for s in ("footer", "select", "page headers",
                                                         "filter", "decode")}
        return t

    def extra(self):
        st = self.stats
        return {
            "own_bytes_read": sum(s["bytes_read"] for s in st.values()),
            "own_bytes_read_by_stage": {k: v["bytes_read"] for k, v in st.items()},
            "own_reads": sum(s["reads"] for s in st.values()),
            # Row groups (or pages) each pruning step dropped: every pruned_*
            # counter the library has (more come as steps are added).
            "pruned": {k[len("pruned_"):]: v for k, v in st["select"].items()
                       if k.startswith("pruned_")},
            "index_pages_pruned": "%d/%d" % (st["select"].get("pages_pruned", 0),
                                             st["select"].get("pages_considered", 0)),
            "prune_warnings": st["select"].get("prune_warnings", 0),
            "pages": st["page headers"]["pages"] + st["filter"]["pages"],
            "chunks": st["page headers"]["chunks"] + st["filter"]["chunks"],
            "rows_filtered": st["filter"].get("rows_filtered", 0),
        }


class PyarrowRunner:
    def __init__(self, path, threads):
        import pyarrow as pa
        import pyarrow.parquet as pq
        pa.set_cpu_count(threads)
        pa.set_io_thread_count(threads)
        self.pq, self.path, self.threads = pq, path, threads

    def run(self, q):
        return self.pq.read_table(self.path, filters=q["pyarrow"], use_threads=self.threads > 1)

    def extra(self):
        return {}


class DuckdbRunner:
    def __init__(self, path, threads):
        import pyarrow as pa
        import duckdb
        pa.set_cpu_count(threads)
        pa.set_io_thread_count(threads)
        self.con = duckdb.connect()
        self.con.execute("SET threads=%d" % threads)
        self.con.execute("SET enable_external_file_cache=false")
        self.con.execute("SET parquet_metadata_cache=false")
        self.version = duckdb.__version__
        self.path = path

    def run(self, q):
        return self.con.sql("SELECT * FROM read_parquet(%s) WHERE %s"
                            % (_sql_str(self.path), q["sql"])).to_arrow_table()

    def extra(self):
        return {}


RUNNERS = {"pqstep": PqstepRunner, "pyarrow": PyarrowRunner, "duckdb": DuckdbRunner}


def worker(system, path, threads, queries_json):
    queries = json.loads(queries_json)
    runner = RUNNERS[system](path, threads)
    io = ProcIO()
    out = sys.stdout
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        q = queries[cmd[1]]
        if cmd[0] == "dump":  # write the result for the equality check
            import pyarrow.parquet as pq
            pq.write_table(runner.run(q), cmd[2])
            out.write("{}\n")
            out.flush()
            continue
        r0, c0 = io.read()
        t0 = time.perf_counter()
        t = runner.run(q)
        t1 = time.perf_counter()
        r1, c1 = io.read()
        res = {"seconds": t1 - t0, "rows": t.num_rows,
               "bytes_read": r1 - r0 - io.overhead[0], "read_calls": c1 - c0 - io.overhead[1]}
        del t
        res.update(runner.extra())
        out.write(json.dumps(res) + "\n")
        out.flush()


class Worker:
    """The driver's handle on a worker process."""

    def __init__(self, system, path, threads, queries):
        env = dict(os.environ)
        self.p = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", system, "--file", path,
             "--worker-threads", str(threads), "--worker-queries",
             json.dumps(queries)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
            text=True)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        reply = self.p.stdout.readline()
        if not reply:
            raise SystemExit("select.py: a worker died (command %r)" % line)
        return json.loads(reply)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def check(workers, queries, tmpdir):
    """Same row counts everywhere; pqstep's table equals pyarrow's (sorted)."""
    import pyarrow.parquet as pq
    counts = {}
    for qn in queries:
        tables = {}
        for s, w in workers.items():
            out = os.path.join(tmpdir, "select-check-%s-%s.parquet" % (s, qn))
            w.ask("dump %s %s" % (qn, out))
            tables[s] = pq.read_table(out)
            os.unlink(out)
        n = {s: t.num_rows for s, t in tables.items()}
        if len(set(n.values())) != 1:
            raise SystemExit("select.py: %s: row counts differ: %s" % (qn, n))
        if "pqstep" in tables and "pyarrow" in tables:
            keys = [("l_orderkey", "ascending"), ("l_linenumber", "ascending")]
            a = tables["pqstep"].sort_by(keys)
            b = tables["pyarrow"].sort_by(keys)
            if a.schema != b.schema:
                b = b.cast(a.schema)
            if not a.equals(b):
                raise SystemExit("select.py: %s: pqstep's rows differ from pyarrow's" % qn)
        counts[qn] = next(iter(n.values()))
    return counts


def fmt_bytes(b):
    return "%.2f" % (b / 1e6)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--rg-rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per case (>= 5 advised)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--queries", default=",".join(QUERIES))
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--build", help="directory holding libpqstep.so "
                    "(default $PQSTEP_LIBRARY, else build/)")
    ap.add_argument("--cache", default=os.environ.get("PQSTEP_BENCH_CACHE")
                    or os.path.expanduser("~/.cache/pqstep-bench"))
    ap.add_argument("--json", help="write the results as JSON to FILE")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    ap.add_argument("--worker-threads", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--worker-queries", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker, a.file, a.worker_threads, a.worker_queries)

    if a.build:
        os.environ["PQSTEP_LIBRARY"] = os.path.join(os.path.abspath(a.build), "libpqstep.so")
    elif not os.environ.get("PQSTEP_LIBRARY"):
        os.environ["PQSTEP_LIBRARY"] = os.path.join(REPO, "build", "libpqstep.so")
    if not os.path.exists(os.environ["PQSTEP_LIBRARY"]):
        raise SystemExit("select.py: %s not found; build it (cmake --build BUILD --target "
                         "pqstep) and pass --build BUILD" % os.environ["PQSTEP_LIBRARY"])
    systems = [s for s in a.systems.split(",") if s]
    qnames = [q for q in a.queries.split(",") if q]
    threads = [int(t) for t in a.threads.split(",") if t]
    for s in systems:
        if s not in SYSTEMS:
            raise SystemExit("select.py: unknown system %r" % s)
    for q in qnames:
        if q not in QUERIES:
            raise SystemExit("select.py: unknown query %r" % q)

    import pyarrow as pa
    import pyarrow.parquet as pq
    path = generate(a.cache, a.rows, a.rg_rows)
    allq = make_queries(path)
    queries = {q: allq[q] for q in qnames}
    md = pq.ParquetFile(path).metadata
    fsize = os.path.getsize(path)
    versions = {"pyarrow": pa.__version__}
    if "duckdb" in systems:
        import duckdb
        versions["duckdb"] = duckdb.__version__
    sys.path.insert(0, os.path.join(REPO, "python"))
    import pqstep
    versions["pqstep"] = pqstep.library_version()
    load0 = os.getloadavg()

    results = []  # one dict per (query, threads, system)
    for T in threads:
        workers = {s: Worker(s, path, T, queries) for s in systems}
        try:
            counts = check(workers, queries, a.cache)  # also the warm-up runs
            for qn in qnames:
                runs = {s: [] for s in systems}
                for _ in range(a.repeat):
                    for s in systems:
                        r = workers[s].ask("run %s" % qn)
                        if r["rows"] != counts[qn]:
                            raise SystemExit("select.py: %s %s: %d rows, expected %d"
                                             % (s, qn, r["rows"], counts[qn]))
                        runs[s].append(r)
                for s in systems:
                    rs = runs[s]
                    secs = [r["seconds"] for r in rs]
                    bytes_ = [r["bytes_read"] for r in rs]
                    res = {"query": qn, "threads": T, "system": s, "rows": counts[qn],
                           "min_s": min(secs), "median_s": statistics.median(secs),
                           "seconds": secs, "bytes_read": int(statistics.median(bytes_)),
                           "bytes_read_all": bytes_,
                           "read_calls": int(statistics.median(r["read_calls"] for r in rs))}
                    for k, v in rs[-1].items():
                        if k not in ("seconds", "rows", "bytes_read", "read_calls"):
                            res[k] = v
                    results.append(res)
        finally:
            for w in workers.values():
                w.close()
    load1 = os.getloadavg()

    # Table
    print("select: %s" % path)
    print("  %d rows x %d columns, %d row groups, %.1f MB on disk; page index; bloom filters "
          "on l_orderkey, l_comment; zstd" % (md.num_rows, md.num_columns, md.num_row_groups,
                                             fsize / 1e6))
    print("  %s; min [median] of %d runs; bytes = rchar delta of /proc/self/io in the "
          "worker (MB = 10^6 B)" % (", ".join("%s %s" % kv for kv in versions.items()),
                                    a.repeat))
    for qn in qnames:
        q = queries[qn]
        print("  %s: %s: WHERE %s  (%d rows)" % (qn, q["what"], q["sql"] if len(q["sql"]) < 70
                                                  else q["sql"][:67] + "...",
                                                  next(r["rows"] for r in results
                                                       if r["query"] == qn)))
    peers = [s for s in systems if s != "pqstep"]
    hdr = "%-6s %-8s %12s %9s %16s %8s %8s" % ("case", "system", "MB read", "% file",
                                              "ms min [med]", "bytes x", "time x")
    print(hdr)
    by = {(r["query"], r["threads"], r["system"]): r for r in results}
    for qn in qnames:
        for T in threads:
            base = by.get((qn, T, "pqstep"))
            for s in systems:
                r = by[(qn, T, s)]
                bx = tx = ""
                if base and s != "pqstep":
                    bx = "%.1fx" % (r["bytes_read"] / max(base["bytes_read"], 1))
                    tx = "%.2fx" % (r["min_s"] / base["min_s"])
                    r["bytes_ratio"] = r["bytes_read"] / max(base["bytes_read"], 1)
                    r["time_ratio"] = r["min_s"] / base["min_s"]
                print("%-6s %-8s %12s %8.2f%% %16s %8s %8s" % (
                    "%s/%dt" % (qn, T), s, fmt_bytes(r["bytes_read"]),
                    100.0 * r["bytes_read"] / fsize,
                    "%.1f [%.1f]" % (r["min_s"] * 1e3, r["median_s"] * 1e3), bx, tx))
    print("bytes x, time x = peer / pqstep (bytes read; min time); > 1: pqstep reads less / "
          "is faster")
    if "pqstep" in systems:
        print("pqstep's own counters (bytes_read by stage, last run, %dt):" % threads[0])
        for qn in qnames:
            for T in threads[:1]:
                r = by[(qn, T, "pqstep")]
                st = r["own_bytes_read_by_stage"]
                print("  %s: %s MB in %d reads (%s)" % (
                    qn, fmt_bytes(r["own_bytes_read"]), r["own_reads"],
                    ", ".join("%s %s" % (k, fmt_bytes(v)) for k, v in st.items() if v)))
                print("      row groups pruned by %s; page index: %s filter-column pages "
                      "pruned; %d chunks, %d page headers walked; %d warnings" % (
                          ", ".join("%s %d" % kv for kv in r["pruned"].items()) or "-",
                          r["index_pages_pruned"], r["chunks"], r["pages"],
                          r["prune_warnings"]))
    print("targets (not asserted): pqstep reads fewer bytes than either peer, and is faster")
    if "pqstep" in systems and peers:
        miss = []
        for r in results:
            if r["system"] == "pqstep":
                continue
            if r["bytes_ratio"] <= 1:
                miss.append("%s/%dt bytes vs %s" % (r["query"], r["threads"], r["system"]))
            if r["time_ratio"] <= 1:
                miss.append("%s/%dt time vs %s" % (r["query"], r["threads"], r["system"]))
        print("  met in every case" if not miss else "  missed: " + ", ".join(miss))
    print("%d CPUs; load average %.2f before, %.2f after (this run included)"
          % (os.cpu_count(), load0[0], load1[0]))

    if a.json:
        with open(a.json, "w") as f:
            json.dump({"file": path, "file_size": fsize, "rows": md.num_rows,
                       "row_groups": md.num_row_groups, "versions": versions,
                       "repeat": a.repeat, "queries": queries, "results": results,
                       "load_average": [load0[0], load1[0]]}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
