"""fault_proxy.py — an HTTP/1.1 reverse proxy on loopback that injects faults.

    with NginxServer(root) as web, FaultProxy(web.url) as proxy:
        proxy.set_faults(fail_first_n=2, retry_after=1)
        ... point the client at proxy.url ...
        assert proxy.requests == 3 and proxy.faults_injected == 2

It listens on 127.0.0.1:<free port> and forwards every request to the
upstream (http://host:port; a path in upstream_url is ignored) byte for
byte: method, target, HTTP version and every header unchanged and in order,
Host and Authorization included.  Keeping Host matters for S3: a SigV4 client
signs the Host it sends (the proxy's 127.0.0.1:PORT) and moto checks the
signature against the Host it receives, which it otherwise ignores for
path-style requests on an IP address.  An absolute-form target
("GET http://h/p", as clients send to a forward proxy) is forwarded in origin
form ("/p").

Each request gets a fresh upstream connection (moto closes every connection
anyway); the whole upstream response is read (Content-Length, chunked or
until close) and re-sent to the client with a Content-Length, Connection
and Transfer-Encoding dropped and the client's keep-alive honoured.  So the
client side always has keep-alive, even in front of moto; responses are
buffered, not streamed (fine for test files).  An upstream that cannot be
reached gives 502.  "Expect: 100-continue" is answered by the proxy itself.

Faults (set_faults(...) replaces all of them and restarts the fail_every_n
count; attributes of the same names read or set one, e.g. proxy.delay_ms = 20;
clear_faults() removes them all):
    delay_ms=0        sleep this long before handling each request (every one)
    fail_first_n=0    the next N requests get fail_status without reaching upstream
    fail_every_n=0    every N-th request after set_faults gets fail_status
                      (requests N, 2N, ...; counted together with fail_first_n's)
    fail_status=503   503 (S3 "SlowDown" XML body) or 500 ("InternalError"),
                      or any other status
    retry_after=None  a Retry-After header value (e.g. 1) on those failures
    drop_mid_body=0   the next N responses that have a body (not HEAD, not
                      empty): status line and headers with the full
                      Content-Length, half the body, then the connection is
                      closed (the client sees a short body, IncompleteRead)
    reset=0           the next N requests: read the request, then close the
                      connection with an RST (SO_LINGER 0) without answering
    stall_ms=0        send the status line and headers, wait this long, then
                      the body (for client read timeouts) ...
    stall_n=None      ... on the next stall_n responses (None: every response
                      while stall_ms is set)
Precedence for one request: reset, then failure, then forwarding (delay
applies to all, before anything else); drop and stall both apply to a
forwarded response with a body, drop first.

Counters (read any time; thread-safe; reset_counters() zeroes them and the
log but keeps the faults): requests, by_method {method: n}, range_requests
(requests with a Range header), bytes_sent (body bytes of forwarded
upstream responses written to clients: half the body for a drop, none for an
injected failure), faults_injected, faults_by_kind {"fail", "drop", "reset",
"stall": n}, log: [LogEntry(method, path, range, status, fault)] in order of
answer, status None for a reset, fault None or one of the kinds above.  Every
counter and log entry is updated before the first byte of the answer is
written, so a client that has seen an answer sees it counted.
"""
import collections
import http.client
import socket
import struct
import threading
import traceback
from urllib.parse import urlsplit

__all__ = ["FaultProxy", "LogEntry"]

LogEntry = collections.namedtuple("LogEntry", "method path range status fault")

# Headers that describe one hop: not copied from the upstream response.
_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}
_MAX_LINE = 65536
_MAX_HEADERS = 200

_FAULT_DEFAULTS = {
    "delay_ms": 0, "fail_first_n": 0, "fail_every_n": 0, "fail_status": 503, "retry_after": None,
    "drop_mid_body": 0, "reset": 0, "stall_ms": 0, "stall_n": None,
}

_ERROR_BODIES = {
    503: ("SlowDown", "Please reduce your request rate."),
    500: ("InternalError", "We encountered an internal error. Please try again."),
    502: ("BadGateway", "The proxy could not reach the upstream server."),
}


class _BadRequest(Exception):
    pass


class _Request:
    __slots__ = ("method", "target", "version", "headers", "body", "keep_alive")

    def header(self, name):
        name = name.lower()
        for k, v in self.headers:
            if k.lower() == name:
                return v
        return None


class FaultProxy:
    """Reverse proxy to upstream_url with runtime fault injection (see the
    module docstring).  port=0: a free port.  upstream_timeout: seconds for
    connecting to and reading from upstream.  idle_timeout: a client
    connection with no request for this long is closed."""

    def __init__(self, upstream_url, port=0, upstream_timeout=30.0, idle_timeout=60.0):
        parts = urlsplit(upstream_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError("FaultProxy: upstream must be http://host[:port], not %r" % upstream_url)
        self.upstream = (parts.hostname, parts.port or 80)
        self.upstream_timeout = upstream_timeout
        self.idle_timeout = idle_timeout
        self._want_port = port
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._listener = None
        self._accept_thread = None
        self._conns = set()
        self._threads = set()
        self._faults = dict(_FAULT_DEFAULTS)
        self._seq = 0  # requests since the last set_faults, for fail_every_n
        self.reset_counters()

    # --- life cycle -------------------------------------------------------

    def start(self):
        if self._listener is not None:
            return self
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(("127.0.0.1", self._want_port))
        ls.listen(128)
        ls.settimeout(0.2)  # the accept loop checks for close() this often
        self._listener = ls
        self.port = ls.getsockname()[1]
        self._closing.clear()
        self._accept_thread = threading.Thread(target=self._accept_loop, name="fault-proxy-accept", daemon=True)
        self._accept_thread.start()
        return self

    def close(self):
        """Stop accepting, drop every client connection, join the threads."""
        self._closing.set()
        if self._accept_thread is not None:
            self._accept_thread.join(5)
            self._accept_thread = None
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        with self._lock:
            conns, threads = list(self._conns), list(self._threads)
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in threads:
            t.join(5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def url(self):
        """http://127.0.0.1:PORT (no trailing slash)."""
        if self._listener is None:
            raise RuntimeError("FaultProxy is not running")
        return "http://127.0.0.1:%d" % self.port

    # --- faults and counters ------------------------------------------------

    def set_faults(self, **faults):
        """Replace the fault settings (unnamed ones go back to their
        defaults) and restart the fail_every_n count."""
        unknown = set(faults) - set(_FAULT_DEFAULTS)
        if unknown:
            raise TypeError("unknown fault(s): %s" % ", ".join(sorted(unknown)))
        with self._lock:
            self._faults = dict(_FAULT_DEFAULTS, **faults)
            self._seq = 0

    def clear_faults(self):
        self.set_faults()

    def __getattr__(self, name):
        # proxy.delay_ms, proxy.reset, ... read the current fault settings
        # (what is left of the "next N" ones).
        if name in _FAULT_DEFAULTS:
            with self._lock:
                return self._faults[name]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        # proxy.delay_ms = 20 and the like change one fault setting (the
        # fail_every_n count is not restarted).
        if name in _FAULT_DEFAULTS:
            with self._lock:
                self._faults[name] = value
        else:
            object.__setattr__(self, name, value)

    def reset_counters(self):
        with self._lock:
            self._requests = 0
            self._by_method = collections.Counter()
            self._range_requests = 0
            self._bytes_sent = 0
            self._faults_by_kind = collections.Counter()
            self._log = []

    @property
    def requests(self):
        with self._lock:
            return self._requests

    @property
    def by_method(self):
        with self._lock:
            return dict(self._by_method)

    @property
    def range_requests(self):
        with self._lock:
            return self._range_requests

    @property
    def bytes_sent(self):
        with self._lock:
            return self._bytes_sent

    @property
    def faults_injected(self):
        with self._lock:
            return sum(self._faults_by_kind.values())

    @property
    def faults_by_kind(self):
        with self._lock:
            return dict(self._faults_by_kind)

    @property
    def log(self):
        with self._lock:
            return list(self._log)

    def stats(self):
        """All counters at one instant, as a dict."""
        with self._lock:
            return {"requests": self._requests, "by_method": dict(self._by_method),
                    "range_requests": self._range_requests, "bytes_sent": self._bytes_sent,
                    "faults_injected": sum(self._faults_by_kind.values()),
                    "faults_by_kind": dict(self._faults_by_kind), "log": list(self._log)}

    # --- connections --------------------------------------------------------

    def _accept_loop(self):
        while not self._closing.is_set():
            try:
                conn, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            t = threading.Thread(target=self._serve, args=(conn,), name="fault-proxy-conn", daemon=True)
            with self._lock:
                self._conns.add(conn)
                self._threads.add(t)
            t.start()

    def _serve(self, conn):
        rfile = conn.makefile("rb")
        try:
            conn.settimeout(self.idle_timeout)
            while not self._closing.is_set():
                try:
                    req = self._read_request(rfile, conn)
                except _BadRequest as e:
                    self._send_simple(conn, 400, "Bad Request", str(e).encode(), keep_alive=False)
                    break
                if req is None or not self._handle(conn, req):
                    break
        except (OSError, http.client.HTTPException):
            pass  # the client went away, timed out, or we dropped it on purpose
        except Exception:  # a bug here: say so, and drop only this connection
            traceback.print_exc()
        finally:
            try:
                rfile.close()
            except OSError:
                pass
            try:
                conn.close()
            except OSError:
                pass
            with self._lock:
                self._conns.discard(conn)
                self._threads.discard(threading.current_thread())

    def _read_request(self, rfile, conn):
        """One request from the client, or None at a clean end of stream."""
        line = rfile.readline(_MAX_LINE + 1)
        while line in (b"\r\n", b"\n"):  # tolerated empty lines between requests
            line = rfile.readline(_MAX_LINE + 1)
        if not line:
            return None
        if len(line) > _MAX_LINE:
            raise _BadRequest("request line too long")
        parts = line.decode("latin-1").rstrip("\r\n").split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            raise _BadRequest("bad request line %r" % line[:100])
        req = _Request()
        req.method, req.target, req.version = parts
        if req.target.startswith(("http://", "https://")):
            u = urlsplit(req.target)
            req.target = (u.path or "/") + ("?" + u.query if u.query else "")
        req.headers = []
        while True:
            h = rfile.readline(_MAX_LINE + 1)
            if not h:
                raise _BadRequest("end of stream inside the headers")
            if h in (b"\r\n", b"\n"):
                break
            if len(h) > _MAX_LINE or len(req.headers) >= _MAX_HEADERS:
                raise _BadRequest("headers too long")
            name, sep, value = h.decode("latin-1").rstrip("\r\n").partition(":")
            if not sep:
                raise _BadRequest("bad header line %r" % h[:100])
            req.headers.append((name, value.strip()))
        conn_hdr = (req.header("Connection") or "").lower()
        if req.version == "HTTP/1.0":
            req.keep_alive = "keep-alive" in conn_hdr
        else:
            req.keep_alive = "close" not in conn_hdr
        te = (req.header("Transfer-Encoding") or "").lower()
        length = req.header("Content-Length")
        has_body = "chunked" in te or (length is not None and length.strip() != "0")
        if has_body and (req.header("Expect") or "").lower() == "100-continue":
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        if "chunked" in te:
            req.body = self._read_chunked_raw(rfile)
        elif length is not None:
            try:
                n = int(length)
            except ValueError:
                raise _BadRequest("bad Content-Length %r" % length)
            req.body = rfile.read(n) if n > 0 else b""
            if len(req.body) != n:
                raise _BadRequest("end of stream inside the body")
        else:
            req.body = b""
        return req

    @staticmethod
    def _read_chunked_raw(rfile):
        """A chunked body as it arrived (framing kept: forwarded as is)."""
        out = []
        while True:
            line = rfile.readline(_MAX_LINE + 1)
            if not line:
                raise _BadRequest("end of stream inside a chunked body")
            out.append(line)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise _BadRequest("bad chunk size line %r" % line[:100])
            if size == 0:
                while True:  # trailers, up to the empty line
                    t = rfile.readline(_MAX_LINE + 1)
                    if not t:
                        raise _BadRequest("end of stream inside chunked trailers")
                    out.append(t)
                    if t in (b"\r\n", b"\n"):
                        return b"".join(out)
            data = rfile.read(size + 2)
            if len(data) != size + 2:
                raise _BadRequest("end of stream inside a chunk")
            out.append(data)

    # --- one request ----------------------------------------------------------

    def _handle(self, conn, req):
        """Answer one request; True to keep the connection for the next."""
        rng = req.header("Range")
        with self._lock:
            self._requests += 1
            self._by_method[req.method] += 1
            if rng is not None:
                self._range_requests += 1
            self._seq += 1
            f = self._faults
            delay = f["delay_ms"]
            fault = None
            if f["reset"] > 0:
                f["reset"] -= 1
                fault = "reset"
            elif f["fail_first_n"] > 0:
                f["fail_first_n"] -= 1
                fault = "fail"
            elif f["fail_every_n"] and self._seq % f["fail_every_n"] == 0:
                fault = "fail"
            fail_status, retry_after = f["fail_status"], f["retry_after"]
            if fault == "reset":
                self._faults_by_kind["reset"] += 1
                self._log.append(LogEntry(req.method, req.target, rng, None, "reset"))

        if delay:
            self._closing.wait(delay / 1000.0)

        if fault == "reset":
            # RST instead of FIN: the client's next read or write fails with
            # ECONNRESET (or it sees the connection closed with no answer).
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()
            return False

        if fault == "fail":
            code, msg = _ERROR_BODIES.get(fail_status, ("Error", "Injected failure"))
            body = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code><Message>%s</Message>'
                    '<RequestId>fault-proxy</RequestId></Error>' % (code, msg)).encode()
            extra = [("Content-Type", "application/xml")]
            if retry_after is not None:
                extra.append(("Retry-After", str(retry_after)))
            with self._lock:
                self._faults_by_kind["fail"] += 1
                self._log.append(LogEntry(req.method, req.target, rng, fail_status, "fail"))
            self._send_simple(conn, fail_status, http.client.responses.get(fail_status, "Error"), body,
                              keep_alive=req.keep_alive, extra=extra, head=req.method == "HEAD")
            return req.keep_alive

        try:
            status, reason, headers, body = self._forward(req)
        except (OSError, http.client.HTTPException) as e:
            with self._lock:
                self._log.append(LogEntry(req.method, req.target, rng, 502, None))
            self._send_simple(conn, 502, "Bad Gateway", ("upstream %s:%d: %s" % (self.upstream + (e,))).encode(),
                              keep_alive=req.keep_alive, head=req.method == "HEAD")
            return req.keep_alive

        body_allowed = req.method != "HEAD" and not (100 <= status < 200 or status in (204, 304))
        out = [(k, v) for k, v in headers if k.lower() not in _HOP_BY_HOP
               and not (body_allowed and k.lower() == "content-length")]
        if body_allowed:
            out.append(("Content-Length", str(len(body))))
        out.append(("Connection", "keep-alive" if req.keep_alive else "close"))
        head = ("HTTP/1.1 %d %s\r\n" % (status, reason) + "".join("%s: %s\r\n" % kv for kv in out)
                + "\r\n").encode("latin-1")

        with self._lock:
            f = self._faults
            kind = None
            if body_allowed and body and f["drop_mid_body"] > 0:
                f["drop_mid_body"] -= 1
                kind = "drop"
            elif body_allowed and body and f["stall_ms"] and (f["stall_n"] is None or f["stall_n"] > 0):
                if f["stall_n"] is not None:
                    f["stall_n"] -= 1
                kind = "stall"
            stall_ms = f["stall_ms"]
            if kind:
                self._faults_by_kind[kind] += 1
            sent = len(body) // 2 if kind == "drop" else len(body) if body_allowed else 0
            self._bytes_sent += sent
            self._log.append(LogEntry(req.method, req.target, rng, status, kind))

        if kind == "drop":
            conn.sendall(head + body[:sent])
            conn.shutdown(socket.SHUT_RDWR)  # a FIN mid-body: the client reads a short body
            return False
        if kind == "stall":
            conn.sendall(head)
            self._closing.wait(stall_ms / 1000.0)
            conn.sendall(body)
            return req.keep_alive
        conn.sendall(head + body if body_allowed else head)
        return req.keep_alive

    def _forward(self, req):
        """Send the request upstream unchanged on a new connection; return
        (status, reason, [(header, value)], body bytes)."""
        up = socket.create_connection(self.upstream, timeout=self.upstream_timeout)
        try:
            up.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            head = "%s %s %s\r\n" % (req.method, req.target, req.version)
            head += "".join("%s: %s\r\n" % kv for kv in req.headers) + "\r\n"
            up.sendall(head.encode("latin-1") + req.body)
            resp = http.client.HTTPResponse(up, method=req.method)
            try:
                resp.begin()  # skips interim 100 Continue answers
                body = resp.read()
                return resp.status, resp.reason, resp.getheaders(), body
            finally:
                resp.close()
        finally:
            up.close()

    @staticmethod
    def _send_simple(conn, status, reason, body, keep_alive, extra=(), head=False):
        lines = ["HTTP/1.1 %d %s" % (status, reason), "Content-Length: %d" % len(body)]
        lines += ["%s: %s" % kv for kv in extra]
        lines.append("Connection: %s" % ("keep-alive" if keep_alive else "close"))
        data = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        conn.sendall(data if head else data + body)
