#!/usr/bin/env python3
"""Remote reads (pq_remote.h, pq_reader_open_url): files read over HTTP from
nginx and over S3 from moto (signatures checked), both on loopback and
started here, against pqstep's local read of the same file (which the other
tests hold against pyarrow) and pyarrow itself.

- every corpus file over HTTP equals the local read (or fails with the same
  error code), with the default 64 KiB tail and with a 1 KiB tail (so the
  footer and the pages take ranged requests of their own);
- every corpus file over S3, signed and checked by the server;
- encrypted files over HTTP with their keys, equal to the local read;
- a generated file of 16 row groups: columns, row groups and a filter equal
  pyarrow; requests counted per stage (the open fetches the footer: one
  request for the footer stage; the pages of a stage are fetched together,
  coalesced);
- faults through a proxy: 503s, bodies cut short and reset connections are
  retried (counted in the stage stats and by the proxy) and the table is
  whole; when retries run out, or a request times out, the read fails with a
  clear error and no table;
- https from nginx with a certificate made here: verify_tls off, ca_file
  trusting it, and refused by default;
- an object replaced after the open fails with "changed since it was opened"
  (If-Match), and the metadata cache keys the new object apart (URL, size,
  ETag): no stale footer;
- a dataset over an S3 prefix, hive-partitioned, with a filter, equals
  pyarrow.dataset on the local copy; globs over S3 keys;
- known_size / known_version reopen an object with no request;
- errors: 404, a wrong secret (403 SignatureDoesNotMatch), an unsigned
  request, a bad URL, an unknown option, an http:// URL given as a prefix;
- the CLI reads URLs (meta, cat), S3 settings from AWS_* variables.
Exit 0 pass, 1 fail, 77 when nginx or moto is not there (the reason printed).
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from read_oracle import CORPUS, SKIP, pa, pq, pqstep, same  # noqa: E402

import pyarrow.dataset as pds  # noqa: E402
import remote_servers as rs  # noqa: E402
from fault_proxy import FaultProxy  # noqa: E402


def corpus_files():
    root = os.path.join(CORPUS, "data")
    return sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "**", "*.parquet"),
                                                               recursive=True))


def local_read(path, **kw):
    try:
        return pqstep.read_table(path, **kw), None
    except pqstep.Error as e:
        return None, e.code


def check_same_as_local(name, local_path, url, remote):
    want, want_err = local_read(local_path)
    try:
        got, got_err = pqstep.read_table(url, remote=remote), None
    except pqstep.Error as e:
        got, got_err = None, e.code
    assert got_err == want_err, "%s: remote %r, local %r" % (name, got_err, want_err)
    if want is not None:
        same(got, want, name, float_bits=True)
    return want is not None


def check_encrypted_http(ng):
    """Encrypted files over HTTP with their keys (issue 34): equal to the
    local read with the same keys; without keys, the same error."""
    dec = pqstep.Decryption(footer_key=b"0123456789012345", aad_prefix=b"tester",
                            column_keys={"double_field": b"1234567890123450", "float_field": b"1234567890123451"})
    for name in ("encrypt_columns_and_footer", "encrypt_columns_plaintext_footer", "encrypt_columns_and_footer_ctr"):
        f = name + ".parquet.encrypted"
        want = pqstep.read_table(os.path.join(CORPUS, "data", f), decryption=dec, int96_unit="s")
        got = pqstep.read_table(ng.url + "/" + f, decryption=dec, int96_unit="s")
        same(got, want, "http " + f)
    try:
        pqstep.read_table(ng.url + "/encrypt_columns_and_footer.parquet.encrypted")
        raise AssertionError("an encrypted footer read over HTTP without keys")
    except pqstep.Error as e:
        assert e.code == "encrypted, key not given", str(e)


def check_corpus_http(ng):
    root = os.path.join(CORPUS, "data")
    read = 0
    for tail in (None, 1024):
        remote = {"tail_bytes": tail} if tail else None
        for rel in corpus_files():
            read += check_same_as_local(rel, os.path.join(root, rel), ng.url + "/" + rel, remote)
    print("http: %d corpus files (x2 tail sizes) equal the local read; %d read" % (len(corpus_files()), read))


def s3_remote(s3, **more):
    d = dict(endpoint=s3.endpoint, region=s3.region, access_key_id=s3.access_key,
             secret_access_key=s3.secret_key)
    d.update(more)
    return d


def check_corpus_s3(s3):
    root = os.path.join(CORPUS, "data")
    s3.create_bucket("corpus")
    files = corpus_files()
    for rel in files:
        s3.upload_file("corpus", rel, os.path.join(root, rel))
    for rel in files:
        check_same_as_local(rel, os.path.join(root, rel), "s3://corpus/" + rel, s3_remote(s3, tail_bytes=2048))
    print("s3: %d corpus files equal the local read, every request signed and checked" % len(files))


def make_file(tmp):
    """16 row groups of 5,000 rows, an int, a float, a string and a
    dictionary-encoded string column, with a page index."""
    import numpy as np
    n = 80000
    rng = np.random.default_rng(7)
    t = pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "x": pa.array(rng.random(n)),
        "s": pa.array(["row-%07d-%s" % (i, "z" * (i % 13)) for i in range(n)]),
        "cat": pa.array(["cat-%d" % (i % 7) for i in range(n)]),
    })
    path = os.path.join(tmp, "groups.parquet")
    pq.write_table(t, path, row_group_size=5000, write_page_index=True, compression="snappy",
                   data_page_size=8192)
    return path, t


def check_generated(ng_url, path, table):
    url = ng_url + "/" + os.path.basename(path)
    with pqstep.Reader(url) as r:
        assert r.file_size == os.path.getsize(path)
        assert r.version and r.version.startswith('"'), r.version
        fs = r.stage_stats("footer")
        assert fs["requests"] == 1 and fs["parses"] == 1, fs
        got = r.read(columns=["id", "s"], row_groups=[1, 5, 9])
        want = pq.ParquetFile(path).read_row_groups([1, 5, 9], columns=["id", "s"])
        same(got, want, "3 row groups over http")
    with pqstep.Reader(url) as r:
        got = r.read(filter="cat = 'cat-3' and id < 40000", columns=["id", "x", "cat"])
        want = table.filter(pa.compute.and_(pa.compute.equal(table["cat"], "cat-3"),
                                            pa.compute.less(table["id"], 40000))).select(["id", "x", "cat"])
        same(got, want, "filter over http")
    # Whole file through a 1 KiB tail, no coalescing: each chunk is a request of its own,
    # all of a stage's fetched together.
    with pqstep.Reader(url, footer_read_size=1024) as r:
        got = r.read()
        same(got, table, "whole file over http")
    print("generated file: projections, row groups and a filter over http equal pyarrow; "
          "the footer stage costs the open's one request")


def check_stage_requests(ng, path):
    """Requests per stage, counted by the server's log too."""
    url = ng.url + "/" + os.path.basename(path)
    with FaultProxy(ng.url) as px:
        purl = px.url + "/" + os.path.basename(path)
        px.reset_counters()
        t = pqstep.read_table(purl, columns=["id"])
        # read_table opens a Reader (the open: 1 request), then a reader for the read that
        # knows the object (no request), whose page stage fetches the id chunks.
        assert t.num_rows == 80000
        n_proxy = px.requests
        with pqstep.Reader(purl) as r:
            px.reset_counters()
            r.read(columns=["id"])
        md = pq.ParquetFile(path).metadata
        chunks = md.num_row_groups
        assert n_proxy >= 2, n_proxy
        # Each row group's id chunk is a range; those close together are coalesced.
        assert 1 <= px.requests <= chunks, (px.requests, chunks)
        assert all(e.method == "GET" and e.range for e in px.log), px.log
    print("requests: %d for the whole read_table (open + %d page fetches for %d chunks)"
          % (n_proxy, n_proxy - 1, chunks))
    del url


def check_faults(ng, path, table):
    name = os.path.basename(path)
    with FaultProxy(ng.url) as px:
        url = px.url + "/" + name
        fast = {"retry_base_ms": 1, "tail_bytes": 1024}
        for kind, faults in (("503", dict(fail_first_n=3)),
                             ("short body", dict(drop_mid_body=2)),
                             ("reset", dict(reset=2))):
            px.reset_counters()
            px.set_faults(**faults)
            with pqstep.Reader(url, remote=fast) as r:
                got = r.read()
                retries = sum(r.stage_stats(s)["retries"] for s in ("footer", "select", "page headers", "filter"))
            px.clear_faults()
            same(got, table, "read through %s faults" % kind)
            assert px.faults_injected >= 2, (kind, px.faults_injected)
            assert retries == px.faults_injected, (kind, retries, px.faults_injected)
            print("faults: %s x%d retried, table whole" % (kind, px.faults_injected))
        # Retries run out: a clear error, never a table.
        px.reset_counters()
        px.set_faults(fail_every_n=1)
        try:
            pqstep.read_table(url, remote=dict(fast, max_retries=2))
            raise AssertionError("a read through nothing but 503s returned a table")
        except pqstep.Error as e:
            assert "HTTP 503" in e.message and "after retries" in e.message, e.message
            assert px.requests == 3, px.requests  # the open, tried 3 times
        px.clear_faults()
        # Pages cut short on every try: the page stage fails, nothing partial.
        with pqstep.Reader(url, remote=dict(fast, max_retries=1)) as r:
            px.set_faults(drop_mid_body=1000)
            try:
                r.read()
                raise AssertionError("a read whose every body was cut short returned a table")
            except pqstep.Error as e:
                assert e.code == "I/O error" and "after retries" in e.message, e.message
            px.clear_faults()
        # A stalled answer past the request timeout.
        px.set_faults(stall_ms=1500, stall_n=10)
        try:
            pqstep.read_table(url, remote=dict(fast, request_timeout_ms=300, max_retries=1))
            raise AssertionError("a stalled read returned a table")
        except pqstep.Error as e:
            assert "timed out" in e.message.lower() or "timeout" in e.message.lower(), e.message
        px.clear_faults()
    print("faults: retries exhausted, bodies always cut short, and timeouts give clear errors")


def check_replaced(ng_root, ng_url, path):
    victim = os.path.join(ng_root, "victim.parquet")
    shutil.copy(path, victim)
    url = ng_url + "/victim.parquet"
    cache = pqstep.MetadataCache(64 << 20)
    with pqstep.Reader(url, cache=cache) as r:
        v1 = r.version
    with pqstep.Reader(url, cache=cache) as r:
        assert r.stage_stats("footer")["reused"] == 1
    r = pqstep.Reader(url, remote={"tail_bytes": 1024})
    # Replace the object under the open reader: a different size and mtime, so a new ETag.
    pq.write_table(pa.table({"other": [1, 2, 3]}), victim + ".tmp")
    os.replace(victim + ".tmp", victim)
    try:
        r.read()
        raise AssertionError("a read of a replaced object returned a table")
    except pqstep.Error as e:
        assert "changed since it was opened" in e.message, e.message
    finally:
        r.close()
    with pqstep.Reader(url, cache=cache) as r2:
        assert r2.version != v1
        assert r2.stage_stats("footer")["reused"] == 0 and r2.stage_stats("footer")["parses"] == 1
        assert r2.read().column_names == ["other"]
    print("replaced object: an open reader fails with 'changed since it was opened'; the cache "
          "parses the new footer (key URL + size + ETag)")


def check_known_identity(ng_url, path):
    url = ng_url + "/" + os.path.basename(path)
    with FaultProxy(ng_url) as px:
        purl = px.url + "/" + os.path.basename(path)
        with pqstep.Reader(purl) as r:
            fb, size, version = r.footer_bytes(), r.file_size, r.version
        px.reset_counters()
        with pqstep.Reader(purl, footer_bytes=fb, remote={"known_size": size, "known_version": version}) as r:
            assert px.requests == 0, px.log
            assert r.stage_stats("footer")["bytes_read"] == 0
            got = r.read_row_group(3, columns=["id"])
        assert px.requests == 1, px.log  # the chunk only
        assert got.column(0).to_pylist() == list(range(15000, 20000))
    del url
    print("known_size/known_version: a reader handed footer bytes sends only its page request")


def check_dataset(s3, tmp):
    src = os.path.join(tmp, "hive")
    t = pa.table({"id": list(range(600)), "v": [float(i) / 3 for i in range(600)],
                  "year": [1990 + i % 3 for i in range(600)], "mode": ["AIR", "RAIL"] * 300})
    pds.write_dataset(t, src, format="parquet", partitioning=pds.partitioning(
        pa.schema([("year", pa.int32()), ("mode", pa.string())]), flavor="hive"),
        max_rows_per_file=100, max_rows_per_group=50)
    s3.create_bucket("lake")
    s3.upload_dir("lake", "t/", src)
    s3.upload_bytes("lake", "t/_SUCCESS", b"")
    remote = s3_remote(s3)
    ref = pds.dataset(src, partitioning="hive")
    ds = pqstep.dataset("s3://lake/t/", partitioning="hive", remote=remote)
    assert len(ds.files) == len(ref.files), (ds.files, ref.files)
    for flt, expr in (("year = 1991", pds.field("year") == 1991),
                      ("mode = 'RAIL' and id < 300", (pds.field("mode") == "RAIL") & (pds.field("id") < 300)),
                      (None, None)):
        got = ds.to_table(filter=flt).sort_by("id")
        want = ref.to_table(filter=expr).sort_by("id")
        assert got.column_names == want.column_names, (got.column_names, want.column_names)
        for c in ("id", "v", "year", "mode"):
            assert got[c].to_pylist() == want[c].to_pylist(), (flt, c)
    g = pqstep.dataset("s3://lake/t/**/*.parquet", partitioning="hive", remote=remote)
    assert len(g.files) == len(ref.files)
    one = pqstep.dataset("s3://lake/t/year=1990/mode=AIR/*.parquet", remote=remote)
    assert all("/year=1990/mode=AIR/" in f for f in one.files) and one.files
    print("dataset: an S3 prefix (%d objects, _SUCCESS skipped), hive keys and filters equal "
          "pyarrow.dataset; ** and * patterns over keys" % len(ds.files))


def start_https(root, tmp):
    """nginx serving `root` over TLS with a self-signed certificate made
    here: (server, https base URL), or None with the reason printed."""
    key, cert = os.path.join(tmp, "key.pem"), os.path.join(tmp, "cert.pem")
    p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1", "-days", "2", "-keyout", key, "-out", cert],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print("SKIP https checks: openssl could not make a certificate: %s" % p.stderr.strip()[-200:])
        return None
    port = rs.free_port()
    block = ("server { listen 127.0.0.1:%d ssl; ssl_certificate %s; ssl_certificate_key %s; root %s; }"
             % (port, cert, key, root))
    ng = rs.NginxServer(root, extra_http=block).start()
    return ng, "https://127.0.0.1:%d" % port


def check_https(root, tmp, path, table):
    started = start_https(root, tmp)
    if not started:
        return
    ng, base = started
    try:
        url = base + "/" + os.path.basename(path)
        same(pqstep.read_table(url, remote={"verify_tls": False, "tail_bytes": 4096}), table, "https read")
        try:
            pqstep.read_table(url)
            raise AssertionError("a self-signed certificate was accepted with verify_tls on")
        except pqstep.Error as e:
            assert e.code == "I/O error" and "certificate" in e.message.lower(), e.message
        same(pqstep.read_table(url, remote={"ca_file": os.path.join(tmp, "cert.pem")}), table,
             "https read, the certificate trusted through ca_file")
    finally:
        ng.stop()
    print("https: TLS reads equal pyarrow (verify_tls off; the certificate trusted through ca_file); "
          "the self-signed certificate is refused by default")


def check_errors(ng_url, s3):
    def fails(fn, code, *words):
        try:
            fn()
        except (pqstep.Error, ValueError) as e:
            msg = str(e)
            if code:
                assert isinstance(e, pqstep.Error) and e.code == code, (code, msg)
            for w in words:
                assert w in msg, (w, msg)
            return
        raise AssertionError("no error; expected %s %s" % (code, words))
    fails(lambda: pqstep.Reader(ng_url + "/no/such.parquet"), "I/O error", "HTTP 404")
    fails(lambda: pqstep.Reader("s3://corpus/alltypes_plain.parquet",
                                remote=s3_remote(s3, secret_access_key="wrong")),
          "I/O error", "HTTP 403", "SignatureDoesNotMatch")
    fails(lambda: pqstep.Reader("s3://corpus/alltypes_plain.parquet", remote=s3_remote(s3, anonymous=True)),
          "I/O error", "HTTP 403")
    fails(lambda: pqstep.Reader("s3://corpus/nope.parquet", remote=s3_remote(s3)), "I/O error", "NoSuchKey")
    fails(lambda: pqstep.Reader("s3://corpus/", remote=s3_remote(s3)), "invalid argument", "names no object")
    fails(lambda: pqstep.Reader("s3://bad bucket/x", remote=s3_remote(s3)), "invalid argument", "bucket")
    fails(lambda: pqstep.Reader("http:///x.parquet"), "invalid argument", "no host")
    fails(lambda: pqstep.Reader(ng_url + "/x.parquet", remote={"max_connections": 0}), "invalid argument",
          "max_connections")
    fails(lambda: pqstep.Reader(ng_url + "/x.parquet", remote={"bogus": 1}), None, "unknown remote option")
    fails(lambda: pqstep.Reader("s3://corpus/alltypes_plain.parquet", remote=dict(s3_remote(s3),
                                                                                  endpoint="ftp://x")),
          "invalid argument", "endpoint")
    fails(lambda: pqstep.dataset([ng_url + "/"]), None, "")
    fails(lambda: pqstep.Reader("http://127.0.0.1:1/x.parquet", remote={"max_retries": 1, "retry_base_ms": 1}),
          "I/O error", "127.0.0.1:1")
    print("errors: 404, 403 (wrong secret, unsigned), NoSuchKey, a prefix as a file, bad URLs and options, "
          "refused connections")


def check_cli(ng_url, s3):
    cli = os.environ.get("PQSTEP_CLI")
    if not cli:
        print("SKIP cli checks: PQSTEP_CLI is not set")
        return
    env = dict(os.environ, AWS_ENDPOINT_URL=s3.endpoint, AWS_ACCESS_KEY_ID=s3.access_key,
               AWS_SECRET_ACCESS_KEY=s3.secret_key, AWS_REGION=s3.region)
    root = os.path.join(CORPUS, "data")
    want = pq.read_table(os.path.join(root, "alltypes_plain.parquet"))
    for url in (ng_url + "/alltypes_plain.parquet", "s3://corpus/alltypes_plain.parquet"):
        meta = json.loads(subprocess.run([cli, "meta", "--json", url], env=env, capture_output=True, text=True,
                                         check=True).stdout)
        assert meta["num_rows"] == want.num_rows, meta
        out = subprocess.run([cli, "cat", "--format", "jsonl", "--columns", "id", url], env=env, capture_output=True, text=True,
                             check=True).stdout
        ids = [json.loads(line)["id"] for line in out.splitlines() if line.strip()]
        assert ids == want["id"].to_pylist(), (url, ids)
    p = subprocess.run([cli, "meta", ng_url + "/missing.parquet"], env=env, capture_output=True, text=True)
    assert p.returncode != 0 and "HTTP 404" in p.stderr, p.stderr
    print("cli: meta and cat over http and s3 (AWS_* settings) equal pyarrow")


def main():
    if not CORPUS or not os.path.isdir(os.path.join(CORPUS, "data")):
        print("SKIP: no corpus (PQSTEP_TEST_CORPUS)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="pqstep-remote-")
    try:
        served = os.path.join(tmp, "served")
        shutil.copytree(os.path.join(CORPUS, "data"), served)
        path, table = make_file(served)
        try:
            ng = rs.NginxServer(served).start()
        except rs.ServerUnavailable as e:
            print("SKIP: %s" % e)
            return SKIP
        try:
            try:
                s3 = rs.S3Server(verify_signatures=True).start()
            except rs.ServerUnavailable as e:
                print("SKIP: %s" % e)
                return SKIP
            try:
                check_corpus_http(ng)
                check_encrypted_http(ng)
                check_generated(ng.url, path, table)
                check_stage_requests(ng, path)
                check_known_identity(ng.url, path)
                check_faults(ng, path, table)
                check_replaced(served, ng.url, path)
                check_https(served, tmp, path, table)
                check_corpus_s3(s3)
                check_dataset(s3, tmp)
                check_errors(ng.url, s3)
                check_cli(ng.url, s3)
            finally:
                s3.stop()
        finally:
            ng.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
