#!/usr/bin/env python3
"""TPC-H benchmark: pqstep against pyarrow, polars and DuckDB on lineitem
files that parquet-rs wrote (tpchgen-cli), not files written here.

    python3 bench/tpch.py [--scale S] [--codecs snappy,zstd] [--threads 1,2]
                          [--repeat N] [--rounds R] [--cases LIST] [--systems LIST]
                          [--json FILE] [--build DIR] [--baseline DIR] [--cache DIR]
                          [--memory]

Options:
  --scale S      TPC-H scale factor (default 1: 6,001,215 rows)
  --codecs LIST  snappy (tpchgen-cli's default, --compression=SNAPPY) and/or
                 zstd (--compression='ZSTD(1)'); default both. Also the
                 writers duckdb, polars, pyarrow, spark, fastparquet: the
                 snappy file written again by that system with its defaults
                 (rewrite(): DuckDB's COPY, polars' write_parquet, pyarrow's
                 write_table, Spark's local write, one part file, pandas'
                 to_parquet(engine="fastparquet") with decimals as float64
                 and dates as datetime64[ns]), kept in
                 CACHE/tpch-sf<S>-<writer>/
  --threads LIST thread counts, each measured on its own (default 1,2)
  --repeat N     timed runs per measurement (default 5)
  --rounds R     split each measurement into R rounds (default 3, at most
                 N): in every round each system runs ceil(N / R) timed runs
                 in a worker process of its own, the systems taking turns
                 (their order rotates by round), so that the machine's
                 drift over minutes falls on every system alike
  --cases LIST   whole,cols3,iter,q1,q2,q3,stream (default all but stream)
  --systems LIST pqstep,pyarrow,polars,duckdb (default all; pqstep always
                 runs, it is the base of the ratios)
  --json FILE    write every figure (each run's time, min, median), the
                 files, the filters and the versions to FILE
  --strings T    pqstep's string type: default (no option passed: what a
                 user gets, the stored ARROW:schema followed, which gives
                 string_view for tpchgen-cli's files, as pyarrow and polars
                 give), string_view or string
  --decimals T   pqstep's decimal type: decimal128 (default, as every peer)
                 or decimal64 (INT64 values taken as stored)
  --build DIR    directory holding libpqstep.so (default $PQSTEP_LIBRARY,
                 else build/); the pqstep workers get it as PQSTEP_LIBRARY
  --baseline DIR another pqstep checkout (a git worktree of an earlier
                 commit, say) with its library built in DIR/build: run as
                 one more system, "base" (its Python package from
                 DIR/python), so that a change is timed before and after in
                 the same run; base/pq above 1 means the change is faster
  --cache DIR    where the files go (default $PQSTEP_BENCH_CACHE, else
                 ~/.cache/pqstep-bench)
  --memory       each case in a worker process of its own, which records
                 its peak RSS (the kernel's VmHWM: anonymous memory and the
                 pages of mapped files together) and its peak anonymous
                 memory (RssAnon, sampled every 5 ms) beside the
                 anonymous memory it held before the first run (the
                 interpreter and the imported modules); printed as a
                 table after the times

Files: for each codec, `tpchgen-cli parquet --scale-factor S --tables
lineitem --compression C --output-dir TMP` writes one file (no --parts: a
single file, row groups of about 7 MiB uncompressed, tpchgen-cli's default),
moved to CACHE/tpch-sf<S>-<codec>/lineitem.parquet, with the command and
tpchgen-cli's version next to it in generated.json. A file that exists is
reused. tpchgen-cli is looked up on PATH, then next to this python. The
file holds an ARROW:schema that makes pyarrow read its strings as
string_view; decimals are decimal128(15, 2) stored as INT64, dates date32.

Cases (every system materializes the same rows in memory: pqstep and
pyarrow a pyarrow.Table, polars a DataFrame, DuckDB an Arrow table; the
strings are string_view in pqstep's tables (--strings), string in DuckDB's,
string_view in pyarrow's for whole, cols3 and iter, its default for this
file, and string for q1-q3, see there; pqstep's calls below also pass
strings= and decimals= as --strings and --decimals say):
  whole  the whole file
           pqstep   pqstep.read_table(path, threads=T)
           pyarrow  pq.read_table(path, use_threads=T > 1)
           polars   pl.read_parquet(path)
           duckdb   SELECT * FROM read_parquet('path')
  cols3  l_orderkey, l_extendedprice, l_shipdate, every row
           pqstep   pqstep.read_table(path, columns=[...], threads=T)
           pyarrow  pq.read_table(path, columns=[...])
           polars   pl.read_parquet(path, columns=[...])
           duckdb   SELECT l_orderkey, l_extendedprice, l_shipdate FROM ...
  iter   every row group by its own call, the footer read and parsed once
         (inside the timing)
           pqstep   with pqstep.Reader(path, threads=T) as r:
                        r.read(row_groups=[i]) for each i
           pyarrow  with pq.ParquetFile(path) as pf: pf.read_row_group(i)
           polars   closest equivalent (no row-group API): one
                    pl.scan_parquet(path) LazyFrame, .slice(start, rows)
                    .collect() per row group; the LazyFrame keeps what it
                    resolved of the file on its first collect
           duckdb   closest equivalent (no row-group API): per row group
                    SELECT * EXCLUDE (file_row_number) FROM
                    read_parquet('path', file_row_number=true) WHERE
                    file_row_number >= start AND file_row_number < end,
                    which DuckDB prunes to that row group, on a connection
                    made for the run (before the timer) with
                    parquet_metadata_cache=true, so the footer is parsed
                    once per run
  stream every row in batches, each dropped before the next is taken
           pqstep   pqstep.Reader(path, threads=T).iter_batches() (65,536
                    rows a batch)
           pyarrow  pq.ParquetFile(path).iter_batches(use_threads=T > 1)
                    (65,536 rows a batch)
           polars   pl.scan_parquet(path).collect_batches() (its streaming
                    engine's batches)
           duckdb   con.sql("SELECT * FROM read_parquet('path')")
                    .to_arrow_reader() (DuckDB's record batches)
  q1     l_shipdate = '1995-03-15' and l_quantity < 10, every column
  q2     l_shipmode in ('AIR', 'RAIL') and l_discount > 0.09, every column
  q3     l_comment >= 'y', every column (about 3.5% of the rows: comments
         starting with y or z)
         for q1-q3:
           pqstep   pqstep.read_table(path, filter=TEXT, threads=T), TEXT as
                    above
           pyarrow  pq.read_table(path, filters=EXPR, schema=S), EXPR a
                    pyarrow.compute expression, S the file's schema with
                    string_view as string: pyarrow 26 has no compute
                    kernels for string_view ("array_filter has no kernel
                    matching input types (string_view, bool)",
                    apache/arrow#49368). When the filter itself reads a
                    string column (q2, q3), the pushed-down filter fails
                    too, even with S ("greater_equal ... (string,
                    string_view)": the row-group statistics stay
                    string_view), so pyarrow runs its closest equivalent:
                    pq.read_table(path, schema=S).filter(EXPR), marked *
                    in the table. No row group of these files can be
                    pruned by statistics for q1-q3 (the rows are in
                    l_orderkey order), so a pushed-down read would decode
                    every row group as well.
           polars   pl.scan_parquet(path).filter(EXPR).collect()
           duckdb   SELECT * FROM read_parquet('path') WHERE TEXT
The filters are written once (QUERIES) as column, operator, literal text and
rendered for each system from the column's type in the file: for pyarrow
and polars the literal is cast to that type (date32 -> datetime.date,
decimal -> Decimal, ...); for pqstep and DuckDB, string and date literals
are quoted and numbers are bare.

Every system x thread count runs in its own worker process (`tpch.py
--worker ...`, JSON on stdout), so that POLARS_MAX_THREADS=T is set before
polars is imported; pyarrow gets pa.set_cpu_count(T) and
pa.set_io_thread_count(T), DuckDB SET threads=T (with
enable_external_file_cache=false, so that it rereads the file like the
others instead of serving its own copy, and parquet_metadata_cache=false
outside iter), pqstep threads=T.

Checks, before anything is timed, for each file: pyarrow's filtered reads
(as timed, * included) give the expected rows of q1-q3 (every row for
whole, cols3 and iter); pqstep's tables for cols3 and q1-q3 equal pyarrow's (pyarrow's strings cast
to string); then every system runs every case once (a worker per system)
and must return the expected number of rows. Any difference stops the
benchmark. The timed workers check the row count of every run again.

Each measurement: R rounds (--rounds), each a worker process with one
untimed warm-up and then ceil(N / R) timed runs, the rounds of the systems
interleaved; min and median over all the timed runs. Printed per codec: a table of min times in ms, rows case x threads,
columns pqstep, pyarrow, polars, duckdb, then the ratios peer min / pqstep
min (above 1: pqstep is faster); then the medians.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Python puts this script's folder first on sys.path; a module there named
# like a stdlib one would shadow it in every worker.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]

import argparse  # noqa: E402
import json  # noqa: E402
import operator  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

REPO = os.path.dirname(HERE)
SYSTEMS = ("pqstep", "pyarrow", "polars", "duckdb")
CASES = ("whole", "cols3", "iter", "q1", "q2", "q3", "stream")
DEFAULT_CASES = CASES[:-1]
CODECS = {"snappy": "SNAPPY", "zstd": "ZSTD(1)"}  # tpchgen-cli --compression values
WRITERS = ("duckdb", "polars", "pyarrow", "spark", "fastparquet")  # --codecs may name these: the snappy file rewritten
COLS3 = ["l_orderkey", "l_extendedprice", "l_shipdate"]
# Each filter: a conjunction of (column, operator, literal as text) or
# (column, "in", [literals]).
QUERIES = {
    "q1": [("l_shipdate", "=", "1995-03-15"), ("l_quantity", "<", "10")],
    "q2": [("l_shipmode", "in", ["AIR", "RAIL"]), ("l_discount", ">", "0.09")],
    "q3": [("l_comment", ">=", "y")],
}
OPS = {"=": operator.eq, "<": operator.lt, "<=": operator.le,
       ">": operator.gt, ">=": operator.ge}


# ---------------------------------------------------------------------------
# Filters, rendered for each system from the file's Arrow schema
# ---------------------------------------------------------------------------

def _sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def _is_text(t):
    """Literals for this type are written quoted (strings, dates, times)."""
    import pyarrow as pa
    return (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)
            or pa.types.is_date(t) or pa.types.is_timestamp(t) or pa.types.is_time(t))


def plain_schema(schema):
    """The schema with string_view (how pyarrow reads this file) as string."""
    import pyarrow as pa
    return pa.schema([f.with_type(pa.string()) if pa.types.is_string_view(f.type) else f
                      for f in schema], metadata=schema.metadata)


def filter_text(query, schema):
    """pqstep's predicate syntax, which DuckDB reads as SQL as it is."""
    def lit(col, v):
        return _sql_str(v) if _is_text(schema.field(col).type) else v
    parts = []
    for col, op, value in query:
        if op == "in":
            parts.append("%s in (%s)" % (col, ", ".join(lit(col, v) for v in value)))
        else:
            parts.append("%s %s %s" % (col, op, lit(col, value)))
    return " and ".join(parts)


def pyarrow_filter(query, schema):
    """A pyarrow.compute expression over `schema` (read with plain_schema)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    expr = None
    for col, op, value in query:
        t = schema.field(col).type
        if op == "in":
            e = pc.field(col).isin(pa.array(value).cast(t))
        else:
            e = OPS[op](pc.field(col), pa.scalar(value).cast(t))
        expr = e if expr is None else expr & e
    return expr


def pyarrow_pushdown(query, schema):
    """Whether pyarrow can push `query` into its read of a file with
    `schema`: not when a filter column is string_view (see above)."""
    import pyarrow as pa
    return not any(pa.types.is_string_view(schema.field(col).type) for col, _, _ in query)


def pyarrow_read_filtered(path, query, schema, use_threads):
    """pyarrow's filtered read of `query` (schema: the file's)."""
    import pyarrow.parquet as pq
    plain = plain_schema(schema)
    expr = pyarrow_filter(query, plain)
    if pyarrow_pushdown(query, schema):
        return pq.read_table(path, filters=expr, schema=plain, use_threads=use_threads)
    return pq.read_table(path, schema=plain, use_threads=use_threads).filter(expr)


def polars_filter(query, schema, pl_schema):
    """A polars expression; literals typed through pyarrow's cast."""
    import pyarrow as pa
    import polars as pl
    expr = None
    for col, op, value in query:
        t = schema.field(col).type
        if op == "in":
            e = pl.col(col).is_in([pa.scalar(v).cast(t).as_py() for v in value])
        else:
            lit = pl.lit(pa.scalar(value).cast(t).as_py(), dtype=pl_schema[col])
            e = OPS[op](pl.col(col), lit)
        expr = e if expr is None else expr & e
    return expr


# ---------------------------------------------------------------------------
# Worker: one system, one thread count, one file; JSON on stdout
# ---------------------------------------------------------------------------

def _pqstep_cases(path, threads, rg_rows, schema):
    import pqstep
    # output types (--strings / --decimals), passed to the worker by environment
    kw = dict(strings=os.environ.get("PQSTEP_BENCH_STRINGS", "default"),
              decimals=os.environ.get("PQSTEP_BENCH_DECIMALS", "decimal128"))
    if kw["strings"] == "default":  # the options a user gets without asking
        kw = {} if kw["decimals"] == "decimal128" else dict(decimals=kw["decimals"])

    def iter_():
        with pqstep.Reader(path, threads=threads, **kw) as r:
            return sum(r.read(row_groups=[i]).num_rows for i in range(len(rg_rows)))

    def stream():
        with pqstep.Reader(path, threads=threads, **kw) as r:
            return sum(b.num_rows for b in r.iter_batches())

    cases = dict(whole=lambda: pqstep.read_table(path, threads=threads, **kw).num_rows,
                 cols3=lambda: pqstep.read_table(path, columns=COLS3, threads=threads, **kw).num_rows,
                 iter=iter_, stream=stream)
    for q, query in QUERIES.items():
        text = filter_text(query, schema)
        cases[q] = lambda text=text: pqstep.read_table(path, filter=text, threads=threads, **kw).num_rows
    return cases


def _pyarrow_cases(path, threads, rg_rows, schema):
    import pyarrow.parquet as pq
    use = threads > 1

    def iter_():
        with pq.ParquetFile(path) as pf:
            return sum(pf.read_row_group(i, use_threads=use).num_rows
                       for i in range(len(rg_rows)))

    def stream():
        with pq.ParquetFile(path) as pf:
            return sum(b.num_rows for b in pf.iter_batches(use_threads=use))

    cases = dict(whole=lambda: pq.read_table(path, use_threads=use).num_rows,
                 cols3=lambda: pq.read_table(path, columns=COLS3, use_threads=use).num_rows,
                 iter=iter_, stream=stream)
    for q, query in QUERIES.items():
        cases[q] = lambda query=query: pyarrow_read_filtered(path, query, schema, use).num_rows
    return cases


def _polars_cases(path, threads, rg_rows, schema):
    import polars as pl
    pl_schema = pl.scan_parquet(path).collect_schema()
    starts = [sum(rg_rows[:i]) for i in range(len(rg_rows))]

    def iter_():
        lf = pl.scan_parquet(path)
        return sum(lf.slice(s, n).collect().height for s, n in zip(starts, rg_rows))

    cases = dict(whole=lambda: pl.read_parquet(path).height,
                 cols3=lambda: pl.read_parquet(path, columns=COLS3).height,
                 iter=iter_,
                 stream=lambda: sum(df.height for df in pl.scan_parquet(path).collect_batches()))
    for q, query in QUERIES.items():
        expr = polars_filter(query, schema, pl_schema)
        cases[q] = lambda expr=expr: pl.scan_parquet(path).filter(expr).collect().height
    return cases


def _duckdb_cases(path, threads, rg_rows, schema):
    import duckdb
    p = _sql_str(path)
    starts = [sum(rg_rows[:i]) for i in range(len(rg_rows))]
    rg_query = [("SELECT * EXCLUDE (file_row_number) FROM read_parquet(%s, file_row_number=true)"
                 " WHERE file_row_number >= %d AND file_row_number < %d")
                % (p, s, s + n) for s, n in zip(starts, rg_rows)]

    def connect(metadata_cache):
        con = duckdb.connect()
        con.execute("SET threads=%d" % threads)
        con.execute("SET enable_external_file_cache=false")
        con.execute("SET parquet_metadata_cache=%s" % ("true" if metadata_cache else "false"))
        return con

    con = connect(False)

    def rows(sql, c=None):
        return (c or con).sql(sql).to_arrow_table().num_rows

    def iter_(con2):
        return sum(rows(q, con2) for q in rg_query)

    # A fresh database per run (made before the timer starts): its metadata
    # cache starts empty and the first query parses the footer.
    iter_.setup = lambda: connect(True)
    cases = dict(whole=lambda: rows("SELECT * FROM read_parquet(%s)" % p),
                 cols3=lambda: rows("SELECT %s FROM read_parquet(%s)" % (", ".join(COLS3), p)),
                 iter=iter_,
                 stream=lambda: sum(b.num_rows for b in con.sql("SELECT * FROM read_parquet(%s)" % p)
                                    .to_arrow_reader()))
    for q, query in QUERIES.items():
        sql = "SELECT * FROM read_parquet(%s) WHERE %s" % (p, filter_text(query, schema))
        cases[q] = lambda sql=sql: rows(sql)
    return cases


def proc_status_bytes(*keys):
    """The named fields of /proc/self/status (kB there) in bytes."""
    got = {}
    with open("/proc/self/status") as fp:
        for line in fp:
            k, _, v = line.partition(":")
            if k in keys:
                got[k] = int(v.split()[0]) * 1024
    return got


class MemorySampler:
    """--memory: the worker's anonymous memory sampled every 5 ms from its
    start (after the imports and the setup) until stop(), which returns
    the peaks; the worker runs one case."""

    def __init__(self):
        import threading
        self.base_anon = proc_status_bytes("RssAnon")["RssAnon"]
        self.peak_anon = self.base_anon
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.done.wait(0.005):
            self.peak_anon = max(self.peak_anon, proc_status_bytes("RssAnon")["RssAnon"])

    def stop(self):
        self.done.set()
        self.thread.join()
        st = proc_status_bytes("RssAnon", "VmHWM")
        return {"peak_rss": st["VmHWM"], "peak_anon": max(self.peak_anon, st["RssAnon"]),
                "base_anon": self.base_anon}


def worker(args):
    threads = args.threads_one
    import pyarrow as pa
    import pyarrow.parquet as pq
    pa.set_cpu_count(threads)
    pa.set_io_thread_count(threads)
    md = pq.read_metadata(args.file)
    rg_rows = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
    del md
    schema = pq.read_schema(args.file)
    expect = json.loads(args.expect) if args.expect else {}
    make = {"pqstep": _pqstep_cases, "base": _pqstep_cases, "pyarrow": _pyarrow_cases,
            "polars": _polars_cases, "duckdb": _duckdb_cases}[args.system]
    funcs = make(args.file, threads, rg_rows, schema)
    out = {"system": args.system, "threads": threads, "file": args.file, "cases": {}}
    if args.system in ("pqstep", "base"):
        import pqstep
        out["version"] = pqstep.library_version()
        out["package"] = os.path.dirname(pqstep.__file__)
    elif args.system == "pyarrow":
        out["version"] = pa.__version__
    elif args.system == "duckdb":
        import duckdb
        out["version"] = duckdb.__version__
    else:
        import polars as pl
        out["version"] = pl.__version__
        out["polars_threads"] = pl.thread_pool_size()
    sampler = MemorySampler() if args.memory else None
    for case in args.cases.split(","):
        fn = funcs[case]
        setup = getattr(fn, "setup", None)
        times = []
        for k in range(args.repeat + 1):  # the first run is the warm-up
            arg = (setup(),) if setup else ()
            t0 = time.perf_counter()
            rows = fn(*arg)
            dt = time.perf_counter() - t0
            del arg
            if case in expect and rows != expect[case]:
                raise SystemExit("ROW COUNT MISMATCH: %s %s, %d threads: %d rows, expected %d"
                                 % (args.system, case, threads, rows, expect[case]))
            if k:
                times.append(dt)
        rec = {"rows": rows}
        if times:
            rec.update(times=times, min=min(times), median=statistics.median(times))
        if sampler:
            rec.update(sampler.stop())
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


def tpchgen_exe():
    exe = shutil.which("tpchgen-cli")
    if exe is None:
        near = os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
        if os.access(near, os.X_OK):
            exe = near
    if exe is None:
        raise SystemExit("tpchgen-cli not found (pip install tpchgen-cli, or scripts/bench-tpch)")
    return exe


def scale_name(scale):
    return "%g" % scale


def rewrite(writer, src, dst):
    """src (tpchgen-cli's snappy file) written again by `writer` with its
    defaults, as a user of that system would: DuckDB's COPY, polars'
    write_parquet, pyarrow's write_table, Spark's (parquet-java) write."""
    if writer == "duckdb":
        import duckdb
        duckdb.connect().sql("copy (select * from read_parquet('%s')) to '%s' (format parquet)" % (src, dst))
    elif writer == "polars":
        import polars as pl
        pl.read_parquet(src).write_parquet(dst)
    elif writer == "pyarrow":
        import pyarrow.parquet as pq
        pq.write_table(pq.read_table(src), dst)
    elif writer == "fastparquet":
        # as a pandas user writes it: DataFrame.to_parquet(engine="fastparquet")
        # (snappy, one row group); fastparquet takes no Decimal or date
        # objects, so decimals become float64 and dates datetime64[ns]
        import pyarrow as pa
        import pyarrow.parquet as pq
        t = pq.read_table(src)
        cols = []
        for f in t.schema:
            c = t[f.name]
            if pa.types.is_decimal(f.type):
                c = c.cast(pa.float64())
            elif pa.types.is_date(f.type):
                c = c.cast(pa.timestamp("ns"))
            elif pa.types.is_string_view(f.type) or pa.types.is_large_string(f.type):
                c = c.cast(pa.string())
            cols.append(c)
        pa.table(cols, names=t.schema.names).to_pandas().to_parquet(dst, engine="fastparquet")
    elif writer == "spark":
        code = ("import sys, glob, shutil\n"
                "from pyspark.sql import SparkSession\n"
                "s = SparkSession.builder.master('local[2]').config('spark.driver.memory', '4g')"
                ".config('spark.ui.enabled', 'false').getOrCreate()\n"
                "s.read.parquet(sys.argv[1]).coalesce(1).write.mode('overwrite').parquet(sys.argv[2] + '.dir')\n"
                "shutil.move(glob.glob(sys.argv[2] + '.dir/part-*.parquet')[0], sys.argv[2])\n"
                "shutil.rmtree(sys.argv[2] + '.dir')\n")
        p = subprocess.run([sys.executable, "-c", code, src, dst], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        if p.returncode != 0:
            raise SystemExit("spark failed to write %s: %s" % (dst, p.stderr[-2000:]))
    else:
        raise SystemExit("unknown writer %s" % writer)


def ensure_file(cache, scale, codec):
    """CACHE/tpch-sf<S>-<codec>/lineitem.parquet, written by tpchgen-cli
    unless it exists (a writer's name instead of a codec: tpchgen-cli's
    snappy file written again by that writer, rewrite()); returns (path,
    seconds spent generating or None)."""
    folder = os.path.join(cache, "tpch-sf%s-%s" % (scale_name(scale), codec))
    if codec in WRITERS:
        path = os.path.join(folder, "lineitem.parquet")
        if os.path.exists(path):
            return path, None
        src, _ = ensure_file(cache, scale, "snappy")
        os.makedirs(folder, exist_ok=True)
        say("writing %s with %s ..." % (path, codec))
        t0 = time.perf_counter()
        rewrite(codec, src, path + ".tmp")
        os.replace(path + ".tmp", path)
        secs = time.perf_counter() - t0
        with open(os.path.join(folder, "generated.json"), "w") as fp:
            json.dump({"command": "bench/tpch.py rewrite(%r) of %s" % (codec, src), "seconds": secs,
                       "date": time.strftime("%Y-%m-%d %H:%M:%S")}, fp, indent=1)
        return path, secs
    path = os.path.join(folder, "lineitem.parquet")
    if os.path.exists(path):
        return path, None
    exe = tpchgen_exe()
    tmp = folder + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    cmd = [exe, "parquet", "--scale-factor", scale_name(scale), "--tables", "lineitem",
           "--compression", CODECS[codec], "--output-dir", tmp, "--no-progress", "--quiet"]
    say("generating %s ..." % path)
    say("  " + " ".join(cmd))
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit("tpchgen-cli failed (exit %d): %s" % (p.returncode, p.stderr.strip()))
    written = os.path.join(tmp, "lineitem.parquet")
    if not os.path.isfile(written):
        raise SystemExit("tpchgen-cli wrote no single lineitem.parquet in %s: %s"
                         % (tmp, sorted(os.listdir(tmp))))
    version = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "generated.json"), "w") as fp:
        json.dump({"command": cmd[1:], "tpchgen_cli": version, "seconds": secs,
                   "date": time.strftime("%Y-%m-%d %H:%M:%S")}, fp, indent=1)
    os.replace(written, path)
    shutil.rmtree(tmp)
    say("  done in %.1f s" % secs)
    return path, secs


def file_info(path):
    import pyarrow.parquet as pq
    md = pq.read_metadata(path)
    schema = pq.read_schema(path)
    codecs = sorted({md.row_group(g).column(c).compression
                     for g in range(md.num_row_groups) for c in range(md.num_columns)})
    info = {"path": path, "rows": md.num_rows, "row_groups": md.num_row_groups,
            "columns": md.num_columns, "created_by": md.created_by,
            "compression": ",".join(codecs), "file_bytes": os.path.getsize(path),
            "types": {f.name: str(f.type) for f in schema}}
    gen = os.path.join(os.path.dirname(path), "generated.json")
    if os.path.exists(gen):
        with open(gen) as fp:
            info["generated"] = json.load(fp)
    return info


def expected_rows(path, cases):
    """Rows each case must return, from pyarrow's own reads; also checks
    that pqstep's tables equal pyarrow's for cols3 and the filters."""
    import pyarrow.parquet as pq
    import pqstep
    schema = pq.read_schema(path)
    total = pq.read_metadata(path).num_rows
    expect = {}
    for case in cases:
        if case in ("whole", "iter", "stream"):
            expect[case] = total
            continue
        if case == "cols3":
            theirs = pq.read_table(path, columns=COLS3)
            ours = pqstep.read_table(path, columns=COLS3)
        else:
            theirs = pyarrow_read_filtered(path, QUERIES[case], schema, True)
            ours = pqstep.read_table(path, filter=filter_text(QUERIES[case], schema))
        theirs = theirs.cast(ours.schema)
        if not ours.equals(theirs):
            raise SystemExit("%s %s: pqstep's table (%d rows) differs from pyarrow's (%d rows)"
                             % (path, case, ours.num_rows, theirs.num_rows))
        expect[case] = theirs.num_rows
    return expect


def run_worker(system, threads, path, cases, repeat, expect, env, memory=False):
    env = dict(env)
    if system == "polars":
        env["POLARS_MAX_THREADS"] = str(threads)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--system", system,
           "--threads", str(threads), "--file", path, "--cases", ",".join(cases),
           "--repeat", str(repeat), "--expect", json.dumps(expect)] + (["--memory"] if memory else [])
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        if err.startswith("ROW COUNT MISMATCH"):
            raise SystemExit("%s: %s" % (path, err))
        say("  %s/%dt failed: %s" % (system, threads, err))
        return {"system": system, "threads": threads, "error": err, "wall_s": secs}
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out["wall_s"] = secs
    return out


def merge_round(res, key, out):
    """Add one round's worker output to res[key]: the timed runs of every
    round together, their min and median; an error in any round stays."""
    have = res.get(key)
    if have is None or "error" in out:
        if have is None or "error" not in have:
            res[key] = out
        return
    if "error" in have:
        return
    have["wall_s"] = have.get("wall_s", 0) + out.get("wall_s", 0)
    for case, rec in out["cases"].items():
        mine = have["cases"].setdefault(case, {"rows": rec["rows"], "times": []})
        mine["times"] = mine.get("times", []) + rec.get("times", [])
        for key in ("peak_rss", "peak_anon"):
            if key in rec:
                mine[key] = max(mine.get(key, 0), rec[key])
        if "base_anon" in rec:
            mine["base_anon"] = min(mine.get("base_anon", rec["base_anon"]), rec["base_anon"])
        if mine["times"]:
            mine["min"] = min(mine["times"])
            mine["median"] = statistics.median(mine["times"])


def check_systems(path, systems, threads, cases, expect, envs):
    """Every system runs every case once; all must return `expect`."""
    bad = []
    for s in systems:
        out = run_worker(s, threads, path, cases, 0, {}, envs[s])
        if "error" in out:
            bad.append("%s: %s" % (s, out["error"]))
            continue
        for case in cases:
            got = out["cases"][case]["rows"]
            if got != expect[case]:
                bad.append("%s %s: %d rows, expected %d" % (s, case, got, expect[case]))
    if bad:
        raise SystemExit("%s: row counts differ:\n  %s" % (path, "\n  ".join(bad)))


def get(res, system, threads, case, key):
    r = res.get("%s/%d" % (system, threads))
    if not r or "error" in r:
        return None
    return r["cases"].get(case, {}).get(key)


def print_tables(report, systems, threads_list, cases):
    for codec, f in report["files"].items():
        res = report["results"][codec]
        t = f["types"]
        print()
        print("lineitem sf%s %s: %s rows, %d row groups, %s, %.1f MB on disk; %s" % (
            scale_name(report["scale"]), codec, format(f["rows"], ","), f["row_groups"],
            f["compression"], f["file_bytes"] / 1e6, f["created_by"]))
        print("  l_shipdate %s, l_quantity %s, l_discount %s, l_comment %s" % (
            t["l_shipdate"], t["l_quantity"], t["l_discount"], t["l_comment"]))
        print("  rows kept: " + ", ".join("%s %s (%.2f%%)" % (
            q, format(f["expected_rows"][q], ","), 100.0 * f["expected_rows"][q] / f["rows"])
            for q in QUERIES if q in f["expected_rows"]))
        peers = [s for s in systems if s != "pqstep"]
        no_pushdown = [q for q, r in report["queries"].items() if not r["pyarrow_pushdown"]]
        for key, title in (("min", "min"), ("median", "median")):
            print()
            head = "%-6s %3s" % ("case", "thr") + "".join("%10s" % s for s in systems)
            if key == "min":
                head += "   " + "".join("%10s" % ("%s/pq" % s[:7]) for s in peers)
            print("%s of %d runs, ms" % (title, report["repeat"]))
            print(head)
            for case in cases:
                for th in threads_list:
                    vals = {s: get(res, s, th, case, key) for s in systems}
                    line = "%-6s %3d" % (case, th)
                    for s, v in vals.items():
                        star = "*" if s == "pyarrow" and case in no_pushdown else ""
                        line += "%10s" % ("err" if v is None else "%.1f%s" % (v * 1e3, star))
                    if key == "min":
                        base = vals["pqstep"]
                        line += "   " + "".join(
                            "%10s" % ("-" if vals[s] is None or not base
                                      else "%.2fx" % (vals[s] / base)) for s in peers)
                    print(line)
        if report.get("memory"):
            print()
            print("peak RSS / peak anonymous memory above the worker's own before the first run, GiB")
            print("%-6s %3s" % ("case", "thr") + "".join("%16s" % s for s in systems))
            for case in cases:
                for th in threads_list:
                    line = "%-6s %3d" % (case, th)
                    for s in systems:
                        rss, anon, base = (get(res, s, th, case, k) for k in ("peak_rss", "peak_anon", "base_anon"))
                        line += "%16s" % ("-" if rss is None else "%.2f / %.2f" % (rss / 2**30, (anon - base) / 2**30))
                    print(line)
    print()
    print("ratio = peer min / pqstep min: above 1, pqstep is faster")
    if any(not r["pyarrow_pushdown"] for r in report["queries"].values()):
        print("pyarrow *: read, then Table.filter (pyarrow cannot push a filter on a "
              "string_view column into the read)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    ap.add_argument("--codecs", default=",".join(CODECS))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per case (default 5)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds each measurement is split into, systems taking turns (default 3)")
    ap.add_argument("--cases", default=",".join(DEFAULT_CASES))
    ap.add_argument("--memory", action="store_true",
                    help="a worker per case, its peak RSS and anonymous memory recorded")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--strings", default="default", choices=("default", "string", "string_view"),
                    help="pqstep's string type (default: no option passed, the user's default)")
    ap.add_argument("--decimals", default="decimal128", choices=("decimal128", "decimal64"),
                    help="pqstep's decimal type (default decimal128, as every peer gives)")
    ap.add_argument("--build", metavar="DIR",
                    help="directory holding libpqstep.so (default $PQSTEP_LIBRARY, else build/)")
    ap.add_argument("--baseline", metavar="DIR",
                    help="another pqstep checkout with DIR/build/libpqstep.so, run as system 'base'")
    ap.add_argument("--cache", default=None,
                    help="default $PQSTEP_BENCH_CACHE, else ~/.cache/pqstep-bench")
    # worker mode
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--system", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    ap.add_argument("--expect", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.system != "base":  # the baseline's package comes first on its PYTHONPATH
        sys.path.insert(0, os.path.join(REPO, "python"))
    if args.worker:
        args.threads_one = int(args.threads)
        worker(args)
        return

    codecs = [c for c in args.codecs.split(",") if c]
    cases = [c for c in args.cases.split(",") if c]
    systems = [s for s in args.systems.split(",") if s]
    threads_list = [int(t) for t in args.threads.split(",") if t]
    for what, got, known in (("codec", codecs, tuple(CODECS) + WRITERS), ("case", cases, CASES),
                             ("system", systems, SYSTEMS)):
        bad = [x for x in got if x not in known]
        if bad:
            ap.error("unknown %s %s (known: %s)" % (what, ", ".join(bad), ", ".join(known)))
    if args.repeat < 1 or args.scale <= 0 or not threads_list or min(threads_list) < 1 or args.rounds < 1:
        ap.error("--repeat, --rounds and --threads must be >= 1 and --scale positive")
    rounds = min(args.rounds, args.repeat)
    per_round = -(-args.repeat // rounds)
    systems = [s for s in SYSTEMS if s in systems or s == "pqstep"]
    lib = library_path(args.build)
    if not os.path.exists(lib):
        raise SystemExit("no libpqstep.so at %s (build it, or give --build DIR)" % lib)
    os.environ["PQSTEP_LIBRARY"] = lib
    os.environ["PQSTEP_BENCH_STRINGS"] = args.strings
    os.environ["PQSTEP_BENCH_DECIMALS"] = args.decimals
    envs = {s: os.environ for s in systems}
    if args.baseline:
        base = os.path.abspath(args.baseline)
        base_lib = os.path.join(base, "build", "libpqstep.so")
        if not os.path.exists(base_lib):
            raise SystemExit("no libpqstep.so at %s (build the baseline checkout first)" % base_lib)
        systems.insert(1, "base")
        envs["base"] = dict(os.environ, PQSTEP_LIBRARY=base_lib,
                            PYTHONPATH=os.pathsep.join([os.path.join(base, "python")] +
                                                       [p for p in [os.environ.get("PYTHONPATH")] if p]))
    cache = args.cache or os.environ.get("PQSTEP_BENCH_CACHE") or os.path.expanduser(
        "~/.cache/pqstep-bench")

    t0 = time.perf_counter()
    report = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": {
        "cpus": os.cpu_count(), "platform": platform.platform(),
        "python": platform.python_version(), "load_before": os.getloadavg()},
        "library": lib, "baseline": args.baseline, "pqstep_types": {"strings": args.strings, "decimals": args.decimals},
        "repeat": per_round * rounds, "rounds": rounds, "scale": args.scale, "threads": threads_list,
        "cases": cases, "systems": systems, "memory": args.memory, "queries": {}, "files": {}, "results": {},
        "versions": {}}
    paths = {}
    for codec in codecs:
        paths[codec], gen_s = ensure_file(cache, args.scale, codec)
        info = file_info(paths[codec])
        info["generation_s"] = gen_s
        report["files"][codec] = info
    import pyarrow.parquet as pq
    schema = pq.read_schema(paths[codecs[0]])
    for q, query in QUERIES.items():
        report["queries"][q] = {"pqstep": filter_text(query, schema),
                                "duckdb": filter_text(query, schema),
                                "pyarrow": str(pyarrow_filter(query, plain_schema(schema))),
                                "pyarrow_pushdown": pyarrow_pushdown(query, schema)}
    for codec in codecs:
        info = report["files"][codec]
        say("%s: checking pqstep against pyarrow's reads ..." % codec)
        info["expected_rows"] = expected_rows(paths[codec], cases)
        say("%s: checking every system's row counts (%s) ..." % (codec, ", ".join(systems)))
        check_systems(paths[codec], systems, threads_list[-1], cases, info["expected_rows"], envs)
    for codec in codecs:
        res = report["results"].setdefault(codec, {})
        for t in threads_list:
            for r in range(rounds):
                turn = systems[r % len(systems):] + systems[:r % len(systems)]
                say("%s, %d thread%s, round %d of %d: %s ..." % (codec, t, "s" if t > 1 else "", r + 1, rounds,
                                                                ", ".join(turn)))
                for s in turn:
                    for part in ([[c] for c in cases] if args.memory else [cases]):
                        out = run_worker(s, t, paths[codec], part, per_round,
                                         report["files"][codec]["expected_rows"], envs[s], args.memory)
                        merge_round(res, "%s/%d" % (s, t), out)
                        if "version" in out:
                            report["versions"][s] = out["version"]
    report["machine"]["load_after"] = os.getloadavg()
    report["wall_s"] = time.perf_counter() - t0

    print("tpch: %s; %d CPUs; %s" % (", ".join("%s %s" % (s, report["versions"].get(s, "?"))
                                               for s in systems),
                                     os.cpu_count(), report["date"]))
    for q, r in report["queries"].items():
        print("  %s: %s" % (q, r["pqstep"]))
    print_tables(report, systems, threads_list, cases)
    print("load average %.2f before, %.2f after; wall %.0f s" % (
        report["machine"]["load_before"][0], report["machine"]["load_after"][0],
        report["wall_s"]))
    if args.json:
        with open(args.json, "w") as fp:
            json.dump(report, fp, indent=1)
        print("JSON: %s" % args.json)


if __name__ == "__main__":
    main()
