#!/usr/bin/env python3
"""Reading every row group of a file from S3, one task at a time, over a
loopback S3 server (moto) behind a proxy that adds latency to every request
(default 20 ms): requests, bytes and time per system, each in its own
process, the proxy counting what crosses it.

  pqstep, footer shipped   the client opens the object once (one request:
                           size, ETag and the footer); each task gets the
                           footer bytes and the identity (known_size /
                           known_version) and sends only its pages' requests
  pqstep, reopened         each task opens the URL afresh (the open's one
                           request fetches the footer) and reads its row group
  pyarrow, reopened        pyarrow.fs.S3FileSystem + ParquetFile per task
  pyarrow, metadata shipped the same with ParquetFile(metadata=...) handed
                           the client's parsed FileMetaData
  DuckDB httpfs            when its httpfs extension can be loaded here

    python3 bench/remote.py [--file lineitem.parquet] [--latency-ms 20]
                            [--columns a,b] [--json out.json]

Default file: TPC-H SF1 lineitem from tpchgen-cli (bench/tpch.py makes it),
~/.cache/pqstep-bench/tpch-sf1-snappy/lineitem.parquet.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
sys.path.insert(0, os.path.join(ROOT, "python"))

DEFAULT_FILE = os.path.expanduser("~/.cache/pqstep-bench/tpch-sf1-snappy/lineitem.parquet")
BUCKET, KEY = "bench", "lineitem.parquet"


# ---------------------------------------------------------------------------
# One system, in a process of its own: prints one JSON line.
# ---------------------------------------------------------------------------

def run_system(system, endpoint, columns):
    cols = columns.split(",") if columns else None
    access, secret, region = "testing", "testing", "us-east-1"
    url = "s3://%s/%s" % (BUCKET, KEY)
    t0 = time.perf_counter()
    rows = 0
    if system.startswith("pqstep"):
        import pqstep
        remote = dict(endpoint=endpoint, region=region, access_key_id=access, secret_access_key=secret)
        with pqstep.Reader(url, remote=remote, threads=1) as r:
            n = r.num_row_groups
            fb, size, version = r.footer_bytes(), r.file_size, r.version
        # What a worker does with the footer bytes it was sent: one parse, kept.
        md = pqstep.FileMetadata.from_footer_bytes(fb)
        for g in range(n):
            if system == "pqstep-shipped":
                task = pqstep.Reader(url, metadata=md, threads=1,
                                     remote=dict(remote, known_size=size, known_version=version))
            else:
                task = pqstep.Reader(url, remote=remote, threads=1)
            with task:
                rows += task.read_row_group(g, columns=cols).num_rows
    elif system.startswith("pyarrow"):
        import pyarrow.fs as pafs
        import pyarrow.parquet as pq
        host = endpoint.split("://", 1)[1]
        fs = pafs.S3FileSystem(access_key=access, secret_key=secret, region=region, endpoint_override=host,
                               scheme="http")
        path = "%s/%s" % (BUCKET, KEY)
        with fs.open_input_file(path) as f:
            md = pq.ParquetFile(f).metadata
        for g in range(md.num_row_groups):
            with fs.open_input_file(path) as f:
                pf = pq.ParquetFile(f, metadata=md if system == "pyarrow-shipped" else None)
                rows += pf.read_row_group(g, columns=cols).num_rows
    elif system == "duckdb":
        import duckdb
        con = duckdb.connect()
        con.execute("LOAD httpfs")
        host = endpoint.split("://", 1)[1]
        con.execute("SET s3_endpoint='%s'; SET s3_use_ssl=false; SET s3_url_style='path'; "
                    "SET s3_access_key_id='%s'; SET s3_secret_access_key='%s'; SET s3_region='%s'"
                    % (host, access, secret, region))
        groups = con.execute("select row_group_num_rows from parquet_metadata('%s') where column_id = 0 "
                             "order by row_group_id" % url).fetchall()
        sel = ", ".join(cols) if cols else "*"
        start = 0
        for (n,) in groups:
            # DuckDB takes no row group index; the group's file_row_number range stands in for one.
            rows += len(con.execute("select %s from read_parquet('%s', file_row_number=true) "
                                    "where file_row_number >= %d and file_row_number < %d"
                                    % (sel, url, start, start + n)).fetch_arrow_table())
            start += n
    else:
        raise SystemExit("unknown system %s" % system)
    print(json.dumps({"system": system, "seconds": time.perf_counter() - t0, "rows": rows}))


def duckdb_httpfs():
    """None when DuckDB's httpfs loads here, else why not."""
    code = "import duckdb; duckdb.connect().execute('LOAD httpfs')"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if p.returncode == 0:
        return None
    last = (p.stderr.strip().splitlines() or ["?"])[-1]
    return "its httpfs extension is not installed and cannot be downloaded here (%s)" % last[:120]


# ---------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file", default=DEFAULT_FILE)
    ap.add_argument("--latency-ms", type=int, default=20)
    ap.add_argument("--columns", default="", help="comma-separated columns (default: all)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--run", help=argparse.SUPPRESS)
    ap.add_argument("--endpoint", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.run:
        return run_system(a.run, a.endpoint, a.columns)
    if not os.path.exists(a.file):
        raise SystemExit("%s: not found (python3 bench/tpch.py makes it)" % a.file)
    import pyarrow.parquet as pq
    import remote_servers as rs
    from fault_proxy import FaultProxy
    md = pq.ParquetFile(a.file).metadata
    print("file: %s (%.1f MB, %d row groups, %d rows)" % (a.file, os.path.getsize(a.file) / 1e6,
                                                          md.num_row_groups, md.num_rows))
    results = []
    with rs.S3Server() as s3:
        s3.create_bucket(BUCKET)
        s3.upload_file(BUCKET, KEY, a.file)
        with FaultProxy(s3.endpoint) as px:
            px.set_faults(delay_ms=a.latency_ms)
            systems = ["pqstep-shipped", "pqstep-reopen", "pyarrow-shipped", "pyarrow-reopen"]
            why_not = duckdb_httpfs()
            if why_not is None:
                systems.append("duckdb")
            else:
                print("DuckDB: skipped, %s" % why_not)
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
            for system in systems:
                px.reset_counters()
                p = subprocess.run([sys.executable, __file__, "--run", system, "--endpoint", px.url,
                                    "--columns", a.columns], capture_output=True, text=True, env=env)
                if p.returncode != 0:
                    print("%s failed:\n%s" % (system, p.stderr[-2000:]))
                    continue
                r = json.loads(p.stdout.strip().splitlines()[-1])
                st = px.stats()
                r.update(requests=st["requests"], mbytes=st["bytes_sent"] / 1e6)
                assert r["rows"] == md.num_rows, r
                results.append(r)
    base = next((r for r in results if r["system"] == "pqstep-shipped"), None)
    print("\n%d row groups read one task at a time, %d ms added per request%s\n"
          % (md.num_row_groups, a.latency_ms, ", columns " + a.columns if a.columns else ", all columns"))
    print("| system | requests | MB | seconds | requests vs pqstep | time vs pqstep |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in results:
        print("| %s | %d | %.1f | %.2f | %.2fx | %.2fx |" % (
            r["system"], r["requests"], r["mbytes"], r["seconds"],
            r["requests"] / base["requests"] if base else 0, r["seconds"] / base["seconds"] if base else 0))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"file": a.file, "latency_ms": a.latency_ms, "columns": a.columns, "results": results}, f,
                      indent=1)


if __name__ == "__main__":
    main()
