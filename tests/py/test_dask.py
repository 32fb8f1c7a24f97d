#!/usr/bin/env python3
"""pqstep.dask.read_parquet on a distributed.LocalCluster of 2 worker
processes x 2 threads, against pyarrow.parquet.read_table as the oracle.

Data: 3 files x 8 row groups x 1,000 rows written here by pyarrow (a sorted
int64 key running across the files, so footer statistics prune row groups
and whole files; a float with nulls in every row group, strings, dates and
a struct), and corpus files (page index, NaNs and float16, binary columns,
two row groups).

For each read (directory, glob, list of files; columns, filters, grouping of
row groups):
- .compute() equals pyarrow.parquet.read_table(columns=, filters=the same
  predicate as a pyarrow.compute expression).to_pandas(), dtypes included,
  and the frame's meta has the computed dtypes;
- the partitions are the row groups kept after pruning: their number
  equals the row groups whose key statistics (read here with pyarrow)
  overlap the filter's key range, and Reader.kept_rows's count;
- the client parsed each footer once (pqstep.footer_parse_count());
- the graph holds each file's footer bytes once, as a key every read task
  of that file depends on, and no read task carries the bytes;
- counted on every worker (client.run(pqstep.dask.worker_counters)): no
  footer read from storage, footer parses (the module's and the library's)
  at most the files that worker touched, tasks and row groups read summing
  to the partitions, rows summing to the result's; a second compute parses
  nothing more.
URLs (tests/support's loopback servers; each check skips, saying why, when
its server cannot run): an s3:// prefix on moto's S3 server
(storage_options), and http:// URLs on nginx behind a logging proxy, where
every request the workers send must be a GET of a data range (no HEAD, no
byte of a footer), and an object changed after the graph was built must
fail its read (HTTP 412 from If-Match).
Errors raise from read_parquet, on the client, before any task runs: an
unknown column, a filter that does not parse, one naming an unknown column,
a literal of the wrong type, a missing path, files with different schemas.
A file changed after the graph was built makes its task raise.
"""
import datetime
import logging
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import CORPUS, SKIP, SOURCE, pa, pq, pqstep  # noqa: E402

try:
    import dask
    import dask.core  # noqa: F401  (get_dependencies)
    import dask.dataframe  # noqa: F401
    import distributed
    import pandas as pd
except ImportError as e:
    print("SKIP: dask[dataframe] and distributed are needed (pip install \"dask[dataframe]\" distributed): %s" % e)
    sys.exit(SKIP)

import cloudpickle  # noqa: E402  (a dependency of distributed)
from dask.dataframe.utils import pyarrow_strings_enabled  # noqa: E402  (Dask's "dataframe.convert-string")
import pyarrow.compute as pc  # noqa: E402

import pqstep.dask as pqdask  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
try:
    import fault_proxy  # noqa: E402  (loopback servers for the URL checks)
    import remote_servers  # noqa: E402
except ImportError as e:
    fault_proxy = remote_servers = None
    NO_SERVERS = "tests/support/remote_servers.py or fault_proxy.py does not import: %s" % e

f = pc.field
FILES, GROUPS, ROWS = 3, 8, 1000


def write_generated(root):
    """FILES files of GROUPS row groups; key runs 0 .. FILES*GROUPS*ROWS-1 across them."""
    os.makedirs(root)
    paths = []
    for i in range(FILES):
        key = list(range(i * GROUPS * ROWS, (i + 1) * GROUPS * ROWS))
        t = pa.table({
            "key": pa.array(key, pa.int64()),
            "val": pa.array([None if k % 7 == 0 else k * 0.5 for k in key], pa.float64()),
            "name": pa.array([None if k % 11 == 0 else "n%d" % (k % 13) for k in key], pa.string()),
            "day": pa.array([datetime.date(2000, 1, 1) + datetime.timedelta(days=k % 400) for k in key], pa.date32()),
            "pt": pa.array([{"x": k % 5, "tag": "t%d" % (k % 3)} for k in key],
                           pa.struct([("x", pa.int32()), ("tag", pa.string())])),
        })
        p = os.path.join(root, "part-%d.parquet" % i)
        pq.write_table(t, p, row_group_size=ROWS)
        paths.append(p)
    return paths


def key_overlaps(path, lo, hi):
    """Row groups of `path` whose key statistics overlap [lo, hi), from pyarrow's footer."""
    md = pq.ParquetFile(path).metadata
    k = md.schema.names.index("key")
    return [g for g in range(md.num_row_groups)
            if md.row_group(g).column(k).statistics.max >= lo and md.row_group(g).column(k).statistics.min < hi]


def kept_by_pqstep(paths, text):
    n = 0
    for p in paths:
        with pqstep.Reader(p) as r:
            n += len(r.kept_rows(filter=text)) if text else r.num_row_groups
    return n


def dask_types(t):
    """The pandas types dask.dataframe.read_parquet gives while Dask's
    "dataframe.convert-string" is on (pqstep.dask documents the same;
    check_generated compares with dask's own reader)."""
    if t == pa.string():
        return pd.StringDtype("pyarrow")
    if t in (pa.date32(), pa.date64()) or pa.types.is_decimal(t):
        return pd.ArrowDtype(t)
    return None


def oracle(paths, columns, expr):
    t = pq.read_table(paths, columns=columns, filters=expr)
    if pyarrow_strings_enabled():
        return t.to_pandas(types_mapper=dask_types)
    return t.to_pandas()


def frames_equal(got, want, what, sort_by=None):
    if sort_by:
        got = got.sort_values(sort_by, kind="stable")
        want = want.sort_values(sort_by, kind="stable")
    got = got.reset_index(drop=True)
    want = want.reset_index(drop=True)
    assert list(got.columns) == list(want.columns), "%s: columns %s, pyarrow %s" % (what, list(got.columns),
                                                                                   list(want.columns))
    assert len(got) == len(want), "%s: %d rows, pyarrow %d" % (what, len(got), len(want))
    pd.testing.assert_frame_equal(got, want, check_dtype=True, obj=what)


def footer_keys_shipped_once(ddf, files_with_parts, what):
    """Each file's footer bytes are one graph key; every read task depends on
    exactly one of them and does not carry footer bytes itself."""
    graph = dict(ddf.optimize().__dask_graph__())
    footer_keys = [k for k in graph if isinstance(k, str) and k.startswith("pqstep-footer-")]
    assert len(footer_keys) == files_with_parts, "%s: %d footer keys, want %d" % (what, len(footer_keys),
                                                                                  files_with_parts)
    footers = [bytes(dask.get(graph, k)) for k in footer_keys]
    reads = [k for k in graph if isinstance(k, tuple) and str(k[0]).startswith("pqstep-read-parquet-")]
    assert len(reads) == ddf.npartitions, (what, len(reads), ddf.npartitions)
    for k in reads:
        deps = getattr(graph[k], "dependencies", None)  # a dask Task; a tuple task in older dask
        deps = set(deps if deps is not None else dask.core.get_dependencies(graph, k))
        assert len(deps & set(footer_keys)) == 1, "%s: task %s depends on %s" % (what, k, deps)
        blob = cloudpickle.dumps(graph[k])
        assert not any(fb in blob for fb in footers), "%s: task %s carries footer bytes" % (what, k)


def wait_forgotten(client, timeout=10.0):
    """Until the scheduler holds no task: a compute of the same keys right
    after another may otherwise take the results still in memory."""
    import time
    deadline = time.monotonic() + timeout
    while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)):
        assert time.monotonic() < deadline, "the scheduler still holds tasks after %.0f s" % timeout
        time.sleep(0.02)


def worker_check(client, ddf, result, what):
    """Counters of every worker against what the read did."""
    per = client.run(pqdask.worker_counters)
    assert len(per) == 2, per
    for addr, c in per.items():
        assert c["footer_reads"] == 0 and c["footer_bytes_read"] == 0, "%s: %s read footers: %s" % (what, addr, c)
        assert c["footer_parses"] <= c["files_touched"], "%s: %s parsed %d footers for %d files" % (
            what, addr, c["footer_parses"], c["files_touched"])
        assert c["library_footer_parses"] <= c["files_touched"], "%s: %s: library parsed %d for %d files" % (
            what, addr, c["library_footer_parses"], c["files_touched"])
    tasks = sum(c["tasks"] for c in per.values())
    assert tasks == ddf.npartitions, "%s: %d tasks for %d partitions" % (what, tasks, ddf.npartitions)
    rows = sum(c["rows"] for c in per.values())
    assert rows == len(result), "%s: workers returned %d rows, result %d" % (what, rows, len(result))
    return per


def read_and_check(client, paths, columns, text, expr, what, sort_by=None, want_parts=None, oracle_paths=None,
                   **kw):
    """read_parquet, then every check of the module docstring; returns the dask frame."""
    wait_forgotten(client)
    client.run(pqdask.reset_worker_counters, clear_cache=True)
    before = pqstep.footer_parse_count()
    ddf = pqdask.read_parquet(paths, columns=columns, filter=text, **kw)
    files = oracle_paths or paths
    files = [files] if isinstance(files, str) else files
    parses = pqstep.footer_parse_count() - before
    assert parses == len(files), "%s: the client parsed %d footers for %d files" % (what, parses, len(files))
    if want_parts is not None:
        assert ddf.npartitions == want_parts, "%s: %d partitions, want %d" % (what, ddf.npartitions, want_parts)
    got = ddf.compute()
    want = oracle(files, columns, expr)
    frames_equal(got, want, what, sort_by)
    assert list(ddf.dtypes) == list(got.dtypes), "%s: meta %s, computed %s" % (what, list(ddf.dtypes),
                                                                                list(got.dtypes))
    per = worker_check(client, ddf, got, what)
    rgs = sum(c["row_groups_read"] for c in per.values())
    touched = sum(c["files_touched"] for c in per.values())
    print("%s: %d rows, %d partitions, %d row groups read; footer parses per worker %s for files touched %s; "
          "0 footer bytes read on workers" % (what, len(got), ddf.npartitions, rgs,
                                              [c["footer_parses"] for c in per.values()],
                                              [c["files_touched"] for c in per.values()]))
    assert touched >= 1 or ddf.npartitions == 0, (what, per)
    return ddf, got, rgs


def check_generated(client, tmp):
    root = os.path.join(tmp, "gen")
    paths = write_generated(root)
    lo, hi = 5500, 14200
    text = "key >= %d and key < %d and (val is null or val > 3000)" % (lo, hi)
    expr = (f("key") >= lo) & (f("key") < hi) & (f("val").is_null() | (f("val") > 3000))
    cols = ["name", "key", "val", "pt"]
    kept = {p: key_overlaps(p, lo, hi) for p in paths}  # val has nulls everywhere: only key prunes
    nkept = sum(len(v) for v in kept.values())
    assert nkept == kept_by_pqstep(paths, text), (nkept, kept_by_pqstep(paths, text))
    assert any(not v for v in kept.values()), "the filter should prune a whole file"

    # one partition per kept row group; a directory
    ddf, got, rgs = read_and_check(client, root, cols, text, expr, "directory, filter", sort_by="key",
                                   want_parts=nkept, oracle_paths=paths)
    assert rgs == nkept, (rgs, nkept)
    footer_keys_shipped_once(ddf, sum(1 for v in kept.values() if v), "directory, filter")
    # computed again (once the scheduler forgot the first results, so that every task runs again): the
    # workers' caches answer, nothing is parsed again
    wait_forgotten(client)
    again = ddf.compute()
    frames_equal(again, got, "second compute")
    per = client.run(pqdask.worker_counters)
    assert all(c["footer_parses"] <= c["files_touched"] and c["footer_bytes_read"] == 0 for c in per.values()), per
    assert sum(c["tasks"] for c in per.values()) == 2 * nkept, per
    print("second compute: footer parses per worker still %s (files touched %s)" % (
        [c["footer_parses"] for c in per.values()], [c["files_touched"] for c in per.values()]))

    # every column, no filter, a glob: one partition per row group, the types dask's own reader gives
    ddf, _, _ = read_and_check(client, os.path.join(root, "*.parquet"), None, None, None, "glob, all columns",
                               sort_by="key", want_parts=FILES * GROUPS, oracle_paths=paths)
    peer = dask.dataframe.read_parquet(paths)
    assert list(ddf.dtypes) == list(peer.dtypes), (list(ddf.dtypes), list(peer.dtypes))
    with dask.config.set({"dataframe.convert-string": False}):  # then pyarrow's to_pandas types
        read_and_check(client, paths, None, text, expr, "convert-string off", sort_by="key", want_parts=nkept)

    # a list of files, small row groups grouped: kept row groups of a file put together until >= 2,500 rows
    per_part = -(-2500 // ROWS)
    want = sum(-(-len(v) // per_part) for v in kept.values())
    ddf, _, rgs = read_and_check(client, paths, ["key", "day"], text, expr, "list, min_rows_per_partition=2500",
                                 sort_by="key", want_parts=want, min_rows_per_partition=2500)
    assert rgs == nkept, (rgs, nkept)

    # a leaf inside a struct, a filter on a column not read, output types
    t2 = "pt.tag = 't1' and key < 9000"
    e2 = (f("pt", "tag") == "t1") & (f("key") < 9000)
    read_and_check(client, paths, ["pt", "name"], t2, e2, "struct column, filter on a struct leaf",
                   want_parts=len(key_overlaps(paths[0], 0, 9000)) + len(key_overlaps(paths[1], 0, 9000)))
    ddf = pqdask.read_parquet(paths, columns=["key", "name"], filter="key < 3000", strings="large_string",
                              arrow_to_pandas={"types_mapper": pd.ArrowDtype})
    got = ddf.compute().reset_index(drop=True)
    want = pq.read_table(paths, columns=["key", "name"], filters=f("key") < 3000)
    want = want.cast(pa.schema([("key", pa.int64()), ("name", pa.large_string())])).to_pandas(
        types_mapper=pd.ArrowDtype)
    frames_equal(got, want, "strings=large_string, ArrowDtype")
    assert str(got["name"].dtype) == "large_string[pyarrow]", got.dtypes

    # nothing kept: one empty partition, no task reads
    client.run(pqdask.reset_worker_counters)
    ddf = pqdask.read_parquet(root, columns=["key", "val"], filter="key > 99999999")
    got = ddf.compute()
    assert ddf.npartitions == 1 and len(got) == 0 and list(got.columns) == ["key", "val"], (ddf.npartitions, got)
    assert list(got.dtypes) == list(oracle(paths, ["key", "val"], None).dtypes), got.dtypes
    assert sum(c["tasks"] for c in client.run(pqdask.worker_counters).values()) == 0
    print("nothing kept: 1 empty partition with the schema's dtypes, no task read anything")
    return paths


def check_corpus(client):
    data = os.path.join(CORPUS, "data")
    cases = [
        ("alltypes_tiny_pages.parquet", ["id", "bool_col", "string_col", "timestamp_col", "double_col"],
         "id >= 1000 and id < 1400 and bool_col = true",
         (f("id") >= 1000) & (f("id") < 1400) & (f("bool_col") == True)),  # noqa: E712  (a pyarrow expression)
        ("floating_orders_nan_count.parquet", None, None, None),
        ("alltypes_plain.parquet", None, "id > 2", f("id") > 2),
        ("sort_columns.parquet", ["b", "a"], "a > 1", f("a") > 1),
        ("data_index_bloom_encoding_stats.parquet", None, "String = 'Hello'", f("String") == "Hello"),
    ]
    for name, cols, text, expr in cases:
        path = os.path.join(data, name)
        if not os.path.exists(path):
            print("SKIP corpus file %s: not in %s" % (name, data))
            continue
        read_and_check(client, path, cols, text, expr, name, want_parts=kept_by_pqstep([path], text))
    # several corpus files of the same schema read as one frame
    same = [os.path.join(data, n) for n in ("alltypes_plain.parquet", "alltypes_plain.snappy.parquet",
                                            "alltypes_dictionary.parquet")]
    if all(os.path.exists(p) for p in same):
        read_and_check(client, same, ["id", "string_col", "timestamp_col"], "id < 6", f("id") < 6, "3 corpus files",
                       want_parts=kept_by_pqstep(same, "id < 6"))


def check_errors(client, tmp, paths):
    client.run(pqdask.reset_worker_counters)
    other = os.path.join(tmp, "other.parquet")
    pq.write_table(pa.table({"key": pa.array([1, 2], pa.int32())}), other)
    bad = [
        (dict(paths=paths, columns=["key", "missing"]), "'missing'"),
        (dict(paths=paths, filter="key >"), "expected a literal"),
        (dict(paths=paths, filter="nokey < 3"), "'nokey'"),
        (dict(paths=paths, filter="key < 'abc'"), "'abc'"),
        (dict(paths=os.path.join(tmp, "does-not-exist")), "does-not-exist"),
        (dict(paths=[paths[0], other]), "other.parquet"),
        (dict(paths=paths, filter=3), "filter"),
    ]
    for kw, needle in bad:
        try:
            pqdask.read_parquet(**kw)
        except (pqstep.Error, ValueError, TypeError) as e:
            assert needle in str(e), "%s: %r does not say %s" % (kw, str(e), needle)
        else:
            raise AssertionError("read_parquet(%s) accepted" % kw)
    assert sum(c["tasks"] for c in client.run(pqdask.worker_counters).values()) == 0
    # a file changed once the graph is built: its task refuses the stale footer
    p = os.path.join(tmp, "changing.parquet")
    shutil.copy(paths[0], p)
    ddf = pqdask.read_parquet(p, columns=["key"])
    st = os.stat(p)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 5 * 10**9))
    try:
        ddf.compute()
    except RuntimeError as e:
        assert "changed" in str(e) and "changing.parquet" in str(e), e
    else:
        raise AssertionError("a changed file was read with its old footer")
    print("errors: %d bad calls raised on the client before any task ran; a changed file refused" % len(bad))


def footer_start(path):
    """Where the file's footer (Thrift FileMetaData, length, magic) begins."""
    return os.path.getsize(path) - 8 - pq.ParquetFile(path).metadata.serialized_size


def check_http(client, root, paths):
    """URLs over HTTP (nginx, behind a proxy that logs every request): the
    values; the client alone reads footers; the workers' requests are GETs of
    data ranges only (no HEAD, nothing in a footer); an object changed after
    the graph was built fails its read (If-Match)."""
    if remote_servers is None:
        print("SKIP http checks: %s" % NO_SERVERS)
        return
    try:
        web = remote_servers.NginxServer(root)
    except remote_servers.ServerUnavailable as e:
        print("SKIP http checks: %s" % e)
        return
    with web, fault_proxy.FaultProxy(web.url) as proxy:
        urls = [proxy.url + "/" + os.path.basename(p) for p in paths]
        text, expr = "key >= 3000 and key < 17500", (f("key") >= 3000) & (f("key") < 17500)
        ddf, _, _ = read_and_check(client, urls, ["key", "name", "day"], text, expr, "http URLs", sort_by="key",
                                   want_parts=kept_by_pqstep(paths, text), oracle_paths=paths)
        wait_forgotten(client)
        client.run(pqdask.reset_worker_counters)
        proxy.reset_counters()
        got = ddf.compute()
        log = proxy.log
        assert len(got) > 0 and log, (len(got), log)
        starts = {"/" + os.path.basename(p): footer_start(p) for p in paths}
        for e in log:
            assert e.method == "GET" and e.range and e.range.startswith("bytes="), "a worker sent %s" % (e,)
            first, last = (int(x) for x in e.range[len("bytes="):].split("-"))
            assert last < starts[e.path], "a worker read %s of %s, whose footer starts at %d" % (
                e.range, e.path, starts[e.path])
        print("http URLs: the workers sent %d requests, all GETs of data ranges (no HEAD, no footer byte)" % len(log))
        # The object changes: nginx's ETag changes with the mtime, the workers' If-Match fails.
        st = os.stat(paths[0])
        os.utime(paths[0], ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
        wait_forgotten(client)
        try:
            ddf.compute()
        except pqstep.Error as e:
            assert "changed" in str(e) and "412" in str(e), e
        else:
            raise AssertionError("a changed object was read with its old footer")
        print("http URLs: an object changed after the graph was built fails its read (HTTP 412)")


def check_s3(client, root, paths):
    """An s3:// prefix (listed by pqstep.dataset) on moto's S3 server, with storage_options."""
    if remote_servers is None:
        print("SKIP s3 checks: %s" % NO_SERVERS)
        return
    try:
        s3 = remote_servers.S3Server()
    except remote_servers.ServerUnavailable as e:
        print("SKIP s3 checks: %s" % e)
        return
    with s3:
        s3.create_bucket("pqstep")
        for p in paths:
            s3.upload_file("pqstep", "data/" + os.path.basename(p), p)
        remote = dict(endpoint=s3.endpoint, region=s3.region, access_key_id=s3.access_key,
                      secret_access_key=s3.secret_key, addressing="path")
        text, expr = "key < 6000 or key >= 20000", (f("key") < 6000) | (f("key") >= 20000)
        read_and_check(client, "s3://pqstep/data/", ["key", "val", "pt"], text, expr, "s3 prefix", sort_by="key",
                       want_parts=kept_by_pqstep(paths, text), oracle_paths=paths, storage_options=remote)


def main():
    # The workers are new processes: they must import pqstep from the source tree too.
    python_dir = os.path.abspath(os.path.join(SOURCE, "python"))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (python_dir, os.environ.get("PYTHONPATH")) if p)
    tmp = tempfile.mkdtemp(prefix="pqstep-dask-")
    try:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None,
                                      silence_logs=logging.CRITICAL) as cluster, distributed.Client(cluster) as client:
            pids = client.run(os.getpid)
            paths = check_generated(client, tmp)
            check_corpus(client)
            check_s3(client, os.path.join(tmp, "gen"), paths)
            check_http(client, os.path.join(tmp, "gen"), paths)
            check_errors(client, tmp, paths)
            assert client.run(os.getpid) == pids, "a worker process died: %s, then %s" % (pids, client.run(os.getpid))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
