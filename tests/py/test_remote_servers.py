#!/usr/bin/env python3
"""test_remote_servers.py — self-test of the loopback servers the remote
tests use (tests/support/remote_servers.py, tests/support/fault_proxy.py),
with http.client and boto3 only (pqstep is not involved):

  nginx    HEAD: Content-Length, quoted ETag, Last-Modified; ranges (a-b,
           suffix, open-ended, past the end, If-Range) byte-equal to the
           file, on one keep-alive connection
  moto     signed raw requests: HEAD, 206 ranges with Content-Range, 416,
           If-Match; ListObjectsV2 with prefix, delimiter, max-keys and
           continuation-token; unsigned object reads refused
  moto with signature checking: the IAM key works (boto3 and raw), a wrong
           secret gets 403 SignatureDoesNotMatch, an unknown key 403
           InvalidAccessKeyId, a header changed after signing 403
  proxy    forwards bytes unchanged with Host kept, keep-alive; each fault
           (503/500 with Retry-After, every-N failures, short body, reset,
           delay, stall) seen by a raw client as expected; counters exact,
           under concurrency too; SigV4 through the proxy; 502 without upstream

The corpus files (PQSTEP_TEST_CORPUS / PQSTEP_DEFAULT_CORPUS) are served if
present, next to a generated 1 MiB file.  Exit 0 pass, 1 fail, 77 when
neither nginx nor moto is available (a missing one alone skips its tests
with a printed reason).
"""
import contextlib
import hashlib
import http.client
import os
import random
import shutil
import socket
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from urllib.parse import quote

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import remote_servers as rs  # noqa: E402
from fault_proxy import FaultProxy, LogEntry  # noqa: E402

S3NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"
CORPUS_PICKS = ("alltypes_plain.parquet", "alltypes_tiny_pages_plain.parquet")


class Env:
    """What the tests share: the served files and the running servers."""
    root = None         # directory nginx serves and S3 gets uploaded from
    files = {}          # name -> bytes
    big = None          # name of the largest file
    small = None        # name of the smallest
    nginx = None
    s3 = None           # moto, signatures not checked
    s3v = None          # moto, signatures checked
    missing = {}        # "nginx"/"s3"/"s3v" -> reason


def needs(*what):
    def mark(fn):
        fn.needs = what
        return fn
    return mark


def request(port, method, path, headers=None, conn=None, timeout=30, body=None):
    """One request; returns (status, {lowercased header: value}, body bytes)."""
    own = conn is None
    if own:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
    finally:
        if own:
            conn.close()


def eq(what, got, want):
    assert got == want, "%s: got %r, expected %r" % (what, got, want)


def ranges_for(n, rnd):
    """(first, last) byte ranges inside a file of n bytes."""
    out = [(0, 3), (n - 8, n - 1), (0, n - 1), (n // 2, n // 2)]
    for _ in range(4):
        a = rnd.randrange(n)
        out.append((a, min(n - 1, a + rnd.randrange(1, 70000))))
    return out


# ---------------------------------------------------------------------------
# nginx
# ---------------------------------------------------------------------------

@needs("nginx")
def test_nginx_head_and_ranges(env):
    port = env.nginx.port
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    rnd = random.Random(1)
    try:
        first_sock = None
        for name, data in sorted(env.files.items()):
            n, path = len(data), "/" + quote(name)
            st, h, body = request(port, "HEAD", path, conn=conn)
            if first_sock is None:
                first_sock = conn.sock
            eq("HEAD %s status" % name, st, 200)
            eq("HEAD %s Content-Length" % name, h.get("content-length"), str(n))
            etag = h.get("etag", "")
            assert len(etag) > 2 and etag.startswith('"') and etag.endswith('"'), "ETag %r not quoted" % etag
            assert h.get("last-modified"), "no Last-Modified"
            eq("Accept-Ranges", h.get("accept-ranges"), "bytes")
            for a, b in ranges_for(n, rnd):
                st, h2, body = request(port, "GET", path, {"Range": "bytes=%d-%d" % (a, b)}, conn=conn)
                eq("GET %s %d-%d status" % (name, a, b), st, 206)
                eq("Content-Range", h2.get("content-range"), "bytes %d-%d/%d" % (a, b, n))
                assert body == data[a:b + 1], "%s %d-%d: bytes differ" % (name, a, b)
            st, h2, body = request(port, "GET", path, {"Range": "bytes=-8"}, conn=conn)
            eq("suffix range", (st, body, h2.get("content-range")), (206, data[-8:], "bytes %d-%d/%d" % (n - 8, n - 1, n)))
            st, h2, body = request(port, "GET", path, {"Range": "bytes=%d-" % (n - 5)}, conn=conn)
            eq("open range", (st, body), (206, data[-5:]))
            st, h2, body = request(port, "GET", path, {"Range": "bytes=%d-%d" % (n - 2, n + 100)}, conn=conn)
            eq("range clipped at the end", (st, body, h2.get("content-range")), (206, data[-2:], "bytes %d-%d/%d" % (n - 2, n - 1, n)))
            st, h2, body = request(port, "GET", path, {"Range": "bytes=%d-" % n}, conn=conn)
            eq("range past the end", (st, h2.get("content-range")), (416, "bytes */%d" % n))
            st, h2, body = request(port, "GET", path, {"Range": "bytes=0-9", "If-Range": etag}, conn=conn)
            eq("If-Range current ETag", (st, body), (206, data[:10]))
            st, h2, body = request(port, "GET", path, {"Range": "bytes=0-9", "If-Range": '"0-0"'}, conn=conn)
            eq("If-Range stale ETag: whole file", (st, len(body)), (200, n))
            # nginx answers HEAD with a Range like the GET, without the body
            st, h2, body = request(port, "HEAD", path, {"Range": "bytes=0-9"}, conn=conn)
            eq("HEAD with Range", (st, h2.get("content-length"), h2.get("content-range")), (206, "10", "bytes 0-9/%d" % n))
            st, h2, body = request(port, "GET", path, {"Range": "bytes=0-1,4-5"}, conn=conn)
            assert st == 206 and h2.get("content-type", "").startswith("multipart/byteranges"), \
                "two ranges: %d %r" % (st, h2.get("content-type"))
        assert conn.sock is first_sock, "nginx did not keep the connection alive"
        st, _, _ = request(port, "GET", "/no-such-file", conn=conn)
        eq("missing file", st, 404)
    finally:
        conn.close()


# ---------------------------------------------------------------------------
# moto
# ---------------------------------------------------------------------------

def signed(s3, method, path, headers=None, port=None, secret_key=None, access_key=None, payload_hash=None):
    """A raw request to path, SigV4-signed for the server (or a proxy) on port."""
    port = port or s3.port
    h = s3.sign_request(method, "http://127.0.0.1:%d%s" % (port, path), headers,
                        access_key=access_key, secret_key=secret_key, payload_hash=payload_hash)
    return request(port, method, path, h)


def s3_error_code(body):
    try:
        return ET.fromstring(body).findtext("Code")
    except ET.ParseError:
        return None


def check_s3_object(s3, bucket, key, data, port=None):
    n, path = len(data), "/%s/%s" % (bucket, quote(key, safe="/~"))
    st, h, _ = signed(s3, "HEAD", path, port=port)
    eq("HEAD %s" % key, st, 200)
    eq("HEAD %s Content-Length" % key, h.get("content-length"), str(n))
    eq("HEAD %s ETag (quoted MD5)" % key, h.get("etag"), '"%s"' % hashlib.md5(data).hexdigest())
    assert h.get("last-modified"), "no Last-Modified"
    for a, b in ((0, 3), (n - 8, n - 1), (n // 3, min(n - 1, n // 3 + 5000))):
        st, h, body = signed(s3, "GET", path, {"Range": "bytes=%d-%d" % (a, b)}, port=port)
        eq("GET %s %d-%d" % (key, a, b), st, 206)
        eq("Content-Range", h.get("content-range"), "bytes %d-%d/%d" % (a, b, n))
        eq("Content-Length", h.get("content-length"), str(b - a + 1))
        assert body == data[a:b + 1], "%s %d-%d: bytes differ" % (key, a, b)
    st, h, body = signed(s3, "GET", path, {"Range": "bytes=-8"}, port=port)
    eq("suffix range", (st, body), (206, data[-8:]))
    st, h, body = signed(s3, "GET", path, port=port)
    eq("whole object", (st, body == data), (200, True))
    return path


@needs("s3")
def test_s3_objects(env):
    s3 = env.s3
    s3.create_bucket("pqstep-plain")
    s3.create_bucket("pqstep-plain")  # a second time is fine
    keys = s3.upload_dir("pqstep-plain", "data/", env.root)
    eq("uploaded keys", sorted(keys), sorted("data/" + k for k in env.files))
    for name, data in sorted(env.files.items()):
        path = check_s3_object(s3, "pqstep-plain", "data/" + name, data)
    n = len(data)
    # past the end: 416 InvalidRange (moto sends no Content-Range with it)
    st, h, body = signed(s3, "GET", path, {"Range": "bytes=%d-" % n})
    eq("range past the end", (st, s3_error_code(body)), (416, "InvalidRange"))
    # moto answers HEAD with a Range like the GET: 206, the range's length
    st, h, _ = signed(s3, "HEAD", path, {"Range": "bytes=0-9"})
    eq("HEAD with Range", (st, h.get("content-length"), h.get("content-range")), (206, "10", "bytes 0-9/%d" % n))
    # several ranges at once: moto (like S3) ignores the Range, whole object
    st, h, body = signed(s3, "GET", path, {"Range": "bytes=0-1,4-5"})
    eq("two ranges", (st, body == data), (200, True))
    st, h, body = signed(s3, "GET", path, {"Range": "bytes=0-9"}, payload_hash="UNSIGNED-PAYLOAD")
    eq("UNSIGNED-PAYLOAD", (st, body), (206, data[:10]))
    st, h, _ = signed(s3, "HEAD", path)
    etag = h["etag"]
    st, _, body = signed(s3, "GET", path, {"Range": "bytes=0-3", "If-Match": etag})
    eq("If-Match current ETag", (st, body), (206, data[:4]))
    st, _, _ = signed(s3, "GET", path, {"Range": "bytes=0-3", "If-Match": '"0123"'})
    eq("If-Match stale ETag", st, 412)
    st, _, body = signed(s3, "GET", "/pqstep-plain/data/no-such-key")
    eq("missing key", (st, s3_error_code(body)), (404, "NoSuchKey"))
    # a key with characters that need encoding, signed over the encoded path
    odd = "odd dir/a b+c=d&e.bin"
    s3.upload_bytes("pqstep-plain", odd, b"0123456789")
    check_s3_object(s3, "pqstep-plain", odd, b"0123456789")
    # no signature: refused even with checking off (objects are private)
    st, _, _ = request(s3.port, "GET", path)
    eq("unsigned GET", st, 403)


def list_v2(s3, bucket, port=None, **params):
    """One raw ListObjectsV2 call; params: prefix, delimiter, max_keys,
    continuation_token, start_after.  Returns the parsed root element."""
    q = {"list-type": "2"}
    for k, v in params.items():
        q[k.replace("_", "-")] = str(v)
    # the query exactly as signed and sent: sorted, every value encoded
    query = "&".join("%s=%s" % (quote(k, safe="-_.~"), quote(v, safe="-_.~")) for k, v in sorted(q.items()))
    st, h, body = signed(s3, "GET", "/%s?%s" % (bucket, query), port=port)
    assert st == 200, "ListObjectsV2 %s: %d %r" % (query, st, body[:300])
    return ET.fromstring(body)


@needs("s3")
def test_s3_list_objects_v2(env):
    s3 = env.s3
    s3.create_bucket("pqstep-list")
    want = ["tbl/part=%d/f%02d.parquet" % (i % 3, i) for i in range(11)]
    for k in want:
        s3.upload_bytes("pqstep-list", k, k.encode())
    s3.upload_bytes("pqstep-list", "other/x", b"x")
    got, token, pages = [], None, 0
    while True:
        extra = {"continuation_token": token} if token else {}
        root = list_v2(s3, "pqstep-list", prefix="tbl/", max_keys=4, **extra)
        pages += 1
        keys = [c.findtext(S3NS + "Key") for c in root.findall(S3NS + "Contents")]
        sizes = [int(c.findtext(S3NS + "Size")) for c in root.findall(S3NS + "Contents")]
        eq("sizes", sizes, [len(k) for k in keys])
        eq("KeyCount", root.findtext(S3NS + "KeyCount"), str(len(keys)))
        assert len(keys) <= 4, keys
        got += keys
        truncated = root.findtext(S3NS + "IsTruncated")
        if truncated == "false":
            assert root.find(S3NS + "NextContinuationToken") is None
            break
        eq("IsTruncated", truncated, "true")
        token = root.findtext(S3NS + "NextContinuationToken")
        assert token, "truncated listing without NextContinuationToken"
        assert pages < 10, "listing does not end"
    eq("listed keys", got, sorted(want))
    eq("pages", pages, 3)
    root = list_v2(s3, "pqstep-list", prefix="tbl/", delimiter="/")
    eq("common prefixes", [p.findtext(S3NS + "Prefix") for p in root.findall(S3NS + "CommonPrefixes")],
       ["tbl/part=0/", "tbl/part=1/", "tbl/part=2/"])
    root = list_v2(s3, "pqstep-list", prefix="nothing/")
    eq("empty listing", (root.findtext(S3NS + "KeyCount"), root.findall(S3NS + "Contents")), ("0", []))


@needs("s3v")
def test_s3_signature_verification(env):
    from botocore.exceptions import ClientError
    s3 = env.s3v
    assert s3.access_key.startswith("AKIA") and s3.access_key != s3.EXAMPLE_ACCESS_KEY, s3.access_key
    s3.create_bucket("pqstep-auth")
    data = env.files[env.big]
    s3.upload_bytes("pqstep-auth", "data/big.parquet", data)
    good = s3.client("s3")
    body = good.get_object(Bucket="pqstep-auth", Key="data/big.parquet", Range="bytes=0-99")["Body"].read()
    eq("boto3 range with the IAM key", body, data[:100])
    eq("boto3 list", [o["Key"] for o in good.list_objects_v2(Bucket="pqstep-auth")["Contents"]], ["data/big.parquet"])
    cases = [("wrong secret", s3.access_key, "not-the-secret", "SignatureDoesNotMatch"),
             ("unknown key", "AKIAIOSFODNN7EXAMPLE", s3.secret_key, "InvalidAccessKeyId")]
    for what, ak, sk, code in cases:
        bad = s3.client("s3", access_key=ak, secret_key=sk, retries={"max_attempts": 1})
        try:
            bad.get_object(Bucket="pqstep-auth", Key="data/big.parquet")
        except ClientError as e:
            eq(what, (e.response["ResponseMetadata"]["HTTPStatusCode"], e.response["Error"]["Code"]), (403, code))
        else:
            raise AssertionError("%s: GetObject succeeded" % what)
    path = check_s3_object(s3, "pqstep-auth", "data/big.parquet", data)
    st, _, body = signed(s3, "GET", path, {"Range": "bytes=0-9"}, secret_key="not-the-secret")
    eq("raw, wrong secret", (st, s3_error_code(body)), (403, "SignatureDoesNotMatch"))
    st, _, _ = signed(s3, "HEAD", path, secret_key="not-the-secret")
    eq("raw HEAD, wrong secret", st, 403)
    h = s3.sign_request("GET", s3.endpoint + path, {"Range": "bytes=0-9"})
    h["Range"] = "bytes=0-10"  # changed after signing: Range is a signed header
    st, _, body = request(s3.port, "GET", path, h)
    eq("raw, Range changed after signing", (st, s3_error_code(body)), (403, "SignatureDoesNotMatch"))
    st, _, _ = request(s3.port, "GET", path, {"Range": "bytes=0-9"})
    eq("raw, unsigned", st, 403)
    st, _, body = signed(s3, "GET", path, {"Range": "bytes=0-9"}, payload_hash="UNSIGNED-PAYLOAD")
    eq("raw, UNSIGNED-PAYLOAD", (st, body), (206, data[:10]))
    h = s3.sign_request("GET", "http://127.0.0.1:1%s" % path)  # signed for another Host ...
    h["Host"] = "127.0.0.1:%d" % s3.port  # ... sent with the right one
    st, _, body = request(s3.port, "GET", path, h)
    eq("raw, signed for another Host", (st, s3_error_code(body)), (403, "SignatureDoesNotMatch"))
    odd = "odd dir/a b+c=d&e.bin"
    s3.upload_bytes("pqstep-auth", odd, b"abcdefghij")
    check_s3_object(s3, "pqstep-auth", odd, b"abcdefghij")
    root = list_v2(s3, "pqstep-auth", prefix="odd dir/", max_keys=1)
    eq("list with an encoded prefix", [c.findtext(S3NS + "Key") for c in root.findall(S3NS + "Contents")], [odd])


# ---------------------------------------------------------------------------
# fault proxy
# ---------------------------------------------------------------------------

@contextlib.contextmanager
def proxy_to(url):
    with FaultProxy(url) as p:
        yield p


def big_path(env):
    return "/" + quote(env.big)


@needs("nginx")
def test_proxy_forwards(env):
    data = env.files[env.big]
    n = len(data)
    with proxy_to(env.nginx.url) as p:
        assert p.url == "http://127.0.0.1:%d" % p.port
        conn = http.client.HTTPConnection("127.0.0.1", p.port, timeout=30)
        try:
            st, h, _ = request(p.port, "HEAD", big_path(env), conn=conn)
            sock = conn.sock
            eq("HEAD via proxy", (st, h.get("content-length")), (200, str(n)))
            assert h.get("etag", "").startswith('"'), h
            st, h, body = request(p.port, "GET", big_path(env), conn=conn)
            eq("GET via proxy", (st, body == data, h.get("content-length")), (200, True, str(n)))
            sent, log = n, [LogEntry("HEAD", big_path(env), None, 200, None), LogEntry("GET", big_path(env), None, 200, None)]
            for a, b in ((0, 3), (n - 8, n - 1), (1000, 300999)):
                r = "bytes=%d-%d" % (a, b)
                st, h, body = request(p.port, "GET", big_path(env), {"Range": r}, conn=conn)
                eq("range via proxy", (st, h.get("content-range"), body == data[a:b + 1]),
                   (206, "bytes %d-%d/%d" % (a, b, n), True))
                sent += b - a + 1
                log.append(LogEntry("GET", big_path(env), r, 206, None))
            assert conn.sock is sock, "the proxy did not keep the client connection alive"
        finally:
            conn.close()
        st = p.stats()
        eq("requests", st["requests"], 5)
        eq("by_method", st["by_method"], {"HEAD": 1, "GET": 4})
        eq("range_requests", st["range_requests"], 3)
        eq("bytes_sent", st["bytes_sent"], sent)
        eq("faults_injected", st["faults_injected"], 0)
        eq("log", st["log"], log)
        # Host reached nginx unchanged (the proxy's own address)
        last = env.nginx.access_log()[-1]
        assert last.endswith('"127.0.0.1:%d"' % p.port), "Host not kept: %r" % last
        p.reset_counters()
        eq("after reset_counters", (p.requests, p.by_method, p.bytes_sent, p.log), (0, {}, 0, []))


@needs("nginx")
def test_proxy_counters_concurrent(env):
    data = env.files[env.big]
    with proxy_to(env.nginx.url) as p:
        errors = []

        def worker(i):
            conn = http.client.HTTPConnection("127.0.0.1", p.port, timeout=30)
            try:
                for j in range(10):
                    a = (i * 10 + j) * 1000
                    st, _, body = request(p.port, "GET", big_path(env), {"Range": "bytes=%d-%d" % (a, a + 999)}, conn=conn)
                    if st != 206 or body != data[a:a + 1000]:
                        errors.append((i, j, st))
            except Exception as e:  # reported below
                errors.append((i, repr(e)))
            finally:
                conn.close()
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        eq("errors", errors, [])
        eq("counters", (p.requests, p.range_requests, p.bytes_sent, len(p.log), p.by_method),
           (80, 80, 80000, 80, {"GET": 80}))


@needs("nginx")
def test_proxy_fail_first_n(env):
    with proxy_to(env.nginx.url) as p:
        p.set_faults(fail_first_n=2, retry_after=1)
        eq("fail_first_n read back", p.fail_first_n, 2)
        conn = http.client.HTTPConnection("127.0.0.1", p.port, timeout=30)
        try:
            got = []
            for _ in range(3):
                st, h, body = request(p.port, "GET", "/" + quote(env.small), {"Range": "bytes=0-3"}, conn=conn)
                got.append((st, h.get("retry-after"), s3_error_code(body) if st != 206 else body))
        finally:
            conn.close()
        first = env.files[env.small][:4]
        eq("statuses", got, [(503, "1", "SlowDown"), (503, "1", "SlowDown"), (206, None, first)])
        eq("faults", (p.requests, p.faults_injected, p.faults_by_kind, p.fail_first_n, p.bytes_sent),
           (3, 2, {"fail": 2}, 0, 4))
        eq("log statuses", [(e.status, e.fault) for e in p.log], [(503, "fail"), (503, "fail"), (206, None)])


@needs("nginx")
def test_proxy_fail_every_n(env):
    with proxy_to(env.nginx.url) as p:
        p.set_faults(fail_every_n=3, fail_status=500)
        conn = http.client.HTTPConnection("127.0.0.1", p.port, timeout=30)
        try:
            got = [request(p.port, "HEAD", big_path(env), conn=conn)[0] for _ in range(7)]
        finally:
            conn.close()
        eq("statuses", got, [200, 200, 500, 200, 200, 500, 200])
        eq("faults", (p.faults_injected, p.by_method), (2, {"HEAD": 7}))
        p.clear_faults()
        eq("after clear_faults", [request(p.port, "HEAD", big_path(env))[0] for _ in range(3)], [200] * 3)


@needs("nginx")
def test_proxy_drop_mid_body(env):
    data = env.files[env.big]
    n = len(data)
    with proxy_to(env.nginx.url) as p:
        p.set_faults(drop_mid_body=1)
        st, _, _ = request(p.port, "HEAD", big_path(env))  # no body: not dropped
        eq("HEAD before the drop", st, 200)
        conn = http.client.HTTPConnection("127.0.0.1", p.port, timeout=30)
        try:
            conn.request("GET", big_path(env))
            resp = conn.getresponse()
            eq("status of the dropped response", (resp.status, resp.getheader("Content-Length")), (200, str(n)))
            try:
                resp.read()
            except http.client.IncompleteRead as e:
                eq("bytes before the drop", (len(e.partial), e.partial == data[:n // 2], e.expected), (n // 2, True, n - n // 2))
            else:
                raise AssertionError("the body was not cut short")
        finally:
            conn.close()
        st, _, body = request(p.port, "GET", big_path(env))
        eq("next GET whole", (st, body == data), (200, True))
        eq("counters", (p.requests, p.faults_by_kind, p.bytes_sent, p.drop_mid_body), (3, {"drop": 1}, n // 2 + n, 0))
        eq("log faults", [e.fault for e in p.log], [None, "drop", None])


@needs("nginx")
def test_proxy_reset(env):
    with proxy_to(env.nginx.url) as p:
        p.set_faults(reset=2)
        for i in range(2):
            try:
                request(p.port, "GET", big_path(env), {"Range": "bytes=0-9"})
            except (ConnectionError, http.client.HTTPException) as e:  # RemoteDisconnected is a ConnectionResetError
                assert isinstance(e, (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine)), e
            else:
                raise AssertionError("request %d was answered despite reset" % i)
        st, _, body = request(p.port, "GET", big_path(env), {"Range": "bytes=0-9"})
        eq("after the resets", (st, body), (206, env.files[env.big][:10]))
        eq("counters", (p.requests, p.faults_injected, p.range_requests, p.bytes_sent), (3, 2, 3, 10))
        eq("log", [(e.status, e.fault) for e in p.log], [(None, "reset"), (None, "reset"), (206, None)])


@needs("nginx")
def test_proxy_delay(env):
    with proxy_to(env.nginx.url) as p:
        p.set_faults(delay_ms=50)
        conn = http.client.HTTPConnection("127.0.0.1", p.port, timeout=30)
        try:
            for _ in range(3):
                t = time.monotonic()
                st, _, _ = request(p.port, "GET", big_path(env), {"Range": "bytes=0-9"}, conn=conn)
                dt = time.monotonic() - t
                eq("status", st, 206)
                assert dt >= 0.05, "answered after %.3f s, delay 50 ms" % dt
            p.delay_ms = 120  # attribute form
            eq("delay_ms read back", p.delay_ms, 120)
            t = time.monotonic()
            request(p.port, "HEAD", big_path(env), conn=conn)
            assert time.monotonic() - t >= 0.12
        finally:
            conn.close()
        eq("delays are not counted as faults", p.faults_injected, 0)


@needs("nginx")
def test_proxy_stall(env):
    data = env.files[env.big]
    with proxy_to(env.nginx.url) as p:
        p.set_faults(stall_ms=8000, stall_n=1)
        conn = http.client.HTTPConnection("127.0.0.1", p.port, timeout=2)
        try:
            conn.request("GET", big_path(env))
            resp = conn.getresponse()  # the headers come at once
            eq("stalled status", resp.status, 200)
            try:
                resp.read()
            except socket.timeout:
                pass
            else:
                raise AssertionError("the body came without a stall")
        finally:
            conn.close()
        eq("stall counted", (p.faults_by_kind, p.stall_n), ({"stall": 1}, 0))
        st, _, body = request(p.port, "GET", big_path(env))  # stall_n used up
        eq("after the stall", (st, body == data), (200, True))
        p.set_faults(stall_ms=200)  # every response, and a patient client
        t = time.monotonic()
        st, _, body = request(p.port, "GET", big_path(env), {"Range": "bytes=0-99"})
        eq("patient client", (st, body), (206, data[:100]))
        assert time.monotonic() - t >= 0.2


def test_proxy_no_upstream(env):
    port = rs.free_port()  # nothing listens there
    with proxy_to("http://127.0.0.1:%d" % port) as p:
        st, _, body = request(p.port, "GET", "/x")
        eq("no upstream", st, 502)
        eq("log", p.log, [LogEntry("GET", "/x", None, 502, None)])


@needs("s3v")
def test_proxy_s3_sigv4(env):
    from botocore.exceptions import ClientError
    s3 = env.s3v
    s3.create_bucket("pqstep-proxy")
    data = env.files[env.big]
    s3.upload_bytes("pqstep-proxy", "data/big.parquet", data)
    with proxy_to(s3.endpoint) as p:
        # the client signs Host = the proxy's address; the proxy keeps it
        check_s3_object(s3, "pqstep-proxy", "data/big.parquet", data, port=p.port)
        root = list_v2(s3, "pqstep-proxy", port=p.port, prefix="data/", max_keys=1)
        eq("list via proxy", root.findtext(S3NS + "KeyCount"), "1")
        st, _, body = signed(s3, "GET", "/pqstep-proxy/data/big.parquet", {"Range": "bytes=0-9"},
                             port=p.port, secret_key="not-the-secret")
        eq("wrong secret via proxy", (st, s3_error_code(body)), (403, "SignatureDoesNotMatch"))
        via = s3.client("s3", endpoint_url=p.url)
        p.reset_counters()
        p.set_faults(fail_first_n=1)
        body = via.get_object(Bucket="pqstep-proxy", Key="data/big.parquet", Range="bytes=10-19")["Body"].read()
        eq("boto3 via proxy, retried after a 503", body, data[10:20])
        eq("proxy saw", [(e.method, e.range, e.status) for e in p.log],
           [("GET", "bytes=10-19", 503), ("GET", "bytes=10-19", 206)])
        bad = s3.client("s3", endpoint_url=p.url, secret_key="not-the-secret", retries={"max_attempts": 1})
        try:
            bad.head_object(Bucket="pqstep-proxy", Key="data/big.parquet")
        except ClientError as e:
            eq("boto3 HEAD, wrong secret, via proxy", e.response["ResponseMetadata"]["HTTPStatusCode"], 403)
        else:
            raise AssertionError("HEAD with a wrong secret succeeded")


# ---------------------------------------------------------------------------

def make_root(tmp):
    """The served directory: corpus picks (if the corpus is there) and a
    generated 1 MiB file.  Returns {name: bytes}."""
    corpus = os.environ.get("PQSTEP_TEST_CORPUS") or os.environ.get("PQSTEP_DEFAULT_CORPUS") or \
        os.path.join(HERE, "..", "..", "..", "shared", "parquet-testing")
    found = 0
    for name in CORPUS_PICKS:
        src = os.path.join(corpus, "data", name)
        if os.path.isfile(src):
            shutil.copyfile(src, os.path.join(tmp, name))
            found += 1
    if not found:
        print("note: corpus not found at %s; serving generated files only" % corpus)
    files = {}
    rnd = random.Random(7)
    with open(os.path.join(tmp, "random 1MiB.bin"), "wb") as f:
        f.write(rnd.randbytes(1 << 20))
    for name in os.listdir(tmp):
        with open(os.path.join(tmp, name), "rb") as f:
            files[name] = f.read()
    return files


def start(stack, env, key, factory):
    try:
        return stack.enter_context(factory())
    except rs.ServerUnavailable as e:
        env.missing[key] = str(e)
        return None


def main():
    tests = [(name, fn) for name, fn in sorted(globals().items()) if name.startswith("test_") and callable(fn)]
    env = Env()
    env.missing = {}
    passed = failed = skipped = 0
    with contextlib.ExitStack() as stack:
        env.root = stack.enter_context(tempfile.TemporaryDirectory(prefix="pqstep-remote-selftest-"))
        env.files = make_root(env.root)
        env.big = max(env.files, key=lambda k: len(env.files[k]))
        env.small = min(env.files, key=lambda k: len(env.files[k]))
        try:
            env.nginx = start(stack, env, "nginx", lambda: rs.NginxServer(env.root))
            env.s3 = start(stack, env, "s3", lambda: rs.S3Server())
            env.s3v = start(stack, env, "s3v", lambda: rs.S3Server(verify_signatures=True))
        except rs.ServerStartError as e:
            print("FAIL starting a server: %s" % e)
            return 1
        if "nginx" in env.missing and "s3" in env.missing:
            print("SKIP: %s; %s" % (env.missing["nginx"], env.missing["s3"]))
            return SKIP
        for name, fn in tests:
            lacking = [env.missing[w] for w in getattr(fn, "needs", ()) if w in env.missing]
            if lacking:
                print("SKIP %s: %s" % (name, lacking[0]))
                skipped += 1
                continue
            t = time.monotonic()
            try:
                fn(env)
            except Exception as e:  # AssertionError or anything unexpected
                failed += 1
                print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
            else:
                passed += 1
                print("ok %s (%.2f s)" % (name, time.monotonic() - t))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
