"""remote_servers.py — loopback HTTP and S3 servers for the remote-reading tests.

Two context managers, each starting a real server as a child process on
127.0.0.1 and a free port, and stopping it (and everything it started) on
exit, even when the body raises:

    NginxServer(root_dir)          nginx serving root_dir: byte ranges,
                                   ETag, Last-Modified, keep-alive.  .url
    S3Server(verify_signatures=False)
                                   moto's standalone server (S3 and IAM on one
                                   port), path-style.  .endpoint, .region,
                                   .access_key, .secret_key; create_bucket,
                                   upload_file, upload_bytes, upload_dir,
                                   sign_request (SigV4 headers for a raw
                                   request), client (a boto3 client).

When a server cannot run here at all (no nginx binary, moto or boto3 not
importable) the constructor raises ServerUnavailable, whose message says
why, so that a test can print "SKIP: <message>" and exit 77.  A server that
is there but fails to start raises ServerStartError with the tail of its log.

Signature verification (S3Server(verify_signatures=True)): moto checks SigV4
signatures only once "IAM authentication" is on.  It is off while moto's
request counter is below settings.INITIAL_NO_AUTH_ACTION_COUNT (environment
variable of that name, default infinity; every S3/IAM action moto
authenticates counts one).  Rather than count requests, the server is started
with it off, an IAM user with an allow-everything inline policy and an access
key is created through the same server's IAM API, and then
POST /moto-api/reset-auth with body "0" turns checking on from the next
request.  From then on only that user's access key is accepted: a wrong
secret gives 403 SignatureDoesNotMatch, an unknown key id 403
InvalidAccessKeyId, an unsigned request 403.  moto recomputes the signature
with botocore over the request as it arrived: the raw (still percent-encoded)
path, the query string exactly as sent (its pairs sorted, not re-encoded),
the headers listed in SignedHeaders with the values received (Host
included), and X-Amz-Content-SHA256 if present (else the SHA-256 of the
body).  It needs an X-Amz-Date header (not Date) and does not check
presigned URLs this way.

Usable from any test script:

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
    import remote_servers
"""
import atexit
import contextlib
import http.client
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import weakref

__all__ = ["ServerUnavailable", "ServerStartError", "NginxServer", "S3Server", "free_port"]

LOOPBACK = "127.0.0.1"


class ServerUnavailable(Exception):
    """The server cannot run on this machine (a program or module is
    missing); str(e) says which.  Tests skip on it."""


class ServerStartError(RuntimeError):
    """The server is installed but did not start; the message carries the
    tail of its log.  Tests fail on it."""


# ---------------------------------------------------------------------------
# Helpers shared by the servers
# ---------------------------------------------------------------------------

def free_port(host=LOOPBACK):
    """A TCP port that was free a moment ago (bind to port 0, read it, close).
    Another process could take it before the server binds it; the servers
    retry with a new port when their log says the address is in use."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _tail(path, lines=30):
    """The last lines of a log file, or a note that there is none."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return "(no log at %s: %s)" % (path, e)
    text = data.decode("utf-8", "replace").rstrip("\n").splitlines()
    return "\n".join(text[-lines:]) if text else "(log %s is empty)" % path


def _http_answers(host, port, timeout=1.0):
    """True when something on host:port answers an HTTP request (any status)."""
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("GET", "/", headers={"Connection": "close"})
        conn.getresponse().read()
        return True
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


def _stop_process(proc, sig=signal.SIGTERM, grace=10.0):
    """Stop a child started with start_new_session=True: sig to its process
    group, then SIGKILL to the group if it is still there after grace
    seconds.  Safe to call twice or on a process that already exited."""
    # The group is signalled only while its leader is not yet reaped, so
    # its id cannot have been reused by an unrelated process.  (nginx's
    # master waits for its workers before it exits.)
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace)


# Servers still running when the interpreter exits (a script that called
# sys.exit inside a with block does stop them; this covers start() without
# stop()) are stopped then.
_running = weakref.WeakSet()


@atexit.register
def _stop_all():
    for server in list(_running):
        server.stop()


class _ChildServer:
    """Start/readiness/stop logic common to both servers.

    A subclass provides _command(port) -> argv, _log_path (where the child's
    output goes) and optionally _env(); start() picks a port, runs the
    command in its own session, and polls until the port answers HTTP,
    the child exits, or startup_timeout passes."""

    name = "server"
    port_attempts = 3

    def __init__(self, startup_timeout):
        self.startup_timeout = startup_timeout
        self.port = None
        self._proc = None
        self._tmp = None
        self._log_file = None

    # subclass hooks
    def _command(self, port):
        raise NotImplementedError

    def _env(self):
        return None

    def _before_start(self, port):
        pass

    def _after_ready(self):
        pass

    @property
    def host(self):
        return LOOPBACK

    @property
    def tmpdir(self):
        """The temporary directory holding the config and logs."""
        return self._tmp

    def log_tail(self, lines=30):
        return _tail(self._log_path, lines)

    def start(self):
        if self._proc is not None:
            return self
        try:
            self._tmp = tempfile.mkdtemp(prefix="pqstep-%s-" % self.name)
            last = None
            for _ in range(self.port_attempts):
                port = free_port()
                self._before_start(port)
                self._log_file = open(self._log_path, "ab")
                self._proc = subprocess.Popen(
                    self._command(port), stdin=subprocess.DEVNULL, stdout=self._log_file,
                    stderr=subprocess.STDOUT, env=self._env(), cwd=self._tmp,
                    start_new_session=True)
                state = self._wait_ready(port)
                if state == "ready":
                    self.port = port
                    _running.add(self)
                    self._after_ready()
                    return self
                last = state
                self._kill()
                if "address already in use" not in self.log_tail(200).lower():
                    break  # a real failure, not the port race: do not retry
            raise ServerStartError("%s did not start (%s); the end of its log:\n%s" % (
                self.name, last, self.log_tail()))
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, port):
        deadline = time.monotonic() + self.startup_timeout
        while True:
            rc = self._proc.poll()
            if rc is not None:
                return "it exited with status %d" % rc
            if _http_answers(LOOPBACK, port, timeout=5.0):
                return "ready"
            if time.monotonic() > deadline:
                return "no HTTP answer on %s:%d within %.0f s" % (LOOPBACK, port, self.startup_timeout)
            time.sleep(0.05)

    def _kill(self):
        _stop_process(self._proc)
        self._proc = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def stop(self):
        """Stop the server and remove its temporary directory (idempotent)."""
        _running.discard(self)
        self._kill()
        self.port = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    @property
    def running(self):
        return self._proc is not None and self._proc.poll() is None


# ---------------------------------------------------------------------------
# nginx
# ---------------------------------------------------------------------------

def find_nginx():
    """Path of the nginx binary, or None."""
    found = shutil.which("nginx")
    if found:
        return found
    for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"):
        if os.access(p, os.X_OK):
            return p
    return None


# The access log records the Range header so tests can see what reached nginx.
_NGINX_CONF = """\
# Written by tests/support/remote_servers.py; everything lives in {tmp}.
{user}
worker_processes 1;
daemon off;
master_process on;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log info;
events {{
    worker_connections 512;
}}
http {{
    log_format pqstep '$remote_addr "$request" $status $body_bytes_sent "$http_range" "$http_host"';
    access_log {tmp}/access.log pqstep;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    default_type application/octet-stream;
    sendfile on;
    keepalive_timeout 75s;
    keepalive_requests 100000;
    etag on;
{extra_http}
    server {{
        listen {host}:{port};
        server_name localhost;
        root {root};
        autoindex on;
{extra_server}
    }}
}}
"""


class NginxServer(_ChildServer):
    """nginx serving root_dir on http://127.0.0.1:PORT (static files: byte
    ranges, strong ETag "<mtime hex>-<size hex>", Last-Modified, If-Range,
    keep-alive, any Host header accepted).

        with NginxServer("/path/to/dir") as web:
            urllib.request.urlopen(web.url + "/file.parquet")

    nginx: the binary (default: PATH, then /usr/sbin/nginx).  extra_http /
    extra_server: lines added to the http {} / server {} blocks.
    Raises ServerUnavailable when there is no nginx binary."""

    name = "nginx"

    def __init__(self, root_dir, nginx=None, startup_timeout=15.0, extra_http="", extra_server=""):
        super().__init__(startup_timeout)
        self.nginx = nginx or find_nginx()
        if not self.nginx:
            raise ServerUnavailable("nginx not found (PATH, /usr/sbin/nginx); install it (Debian: apt-get install nginx)")
        self.root_dir = os.path.abspath(root_dir)
        if not os.path.isdir(self.root_dir):
            raise ValueError("NginxServer: %r is not a directory" % root_dir)
        self.extra_http = extra_http
        self.extra_server = extra_server

    @property
    def _log_path(self):
        return os.path.join(self._tmp, "nginx.out")

    @property
    def error_log_path(self):
        return os.path.join(self._tmp, "error.log")

    @property
    def access_log_path(self):
        return os.path.join(self._tmp, "access.log")

    def access_log(self):
        """The access log's lines so far: '<addr> "<request line>" <status>
        <body bytes> "<Range>" "<Host>"'."""
        try:
            with open(self.access_log_path, encoding="utf-8", errors="replace") as f:
                return f.read().splitlines()
        except OSError:
            return []

    def log_tail(self, lines=30):
        return "%s\n--- error.log ---\n%s" % (_tail(self._log_path, lines), _tail(self.error_log_path, lines))

    def _before_start(self, port):
        # Running as root, nginx would switch its workers to "nobody", who may
        # not read root_dir or the temp dir; keep them root.
        user = "user root;" if hasattr(os, "geteuid") and os.geteuid() == 0 else ""
        conf = _NGINX_CONF.format(tmp=self._tmp, user=user, host=LOOPBACK, port=port,
                                  root=self.root_dir, extra_http=self.extra_http,
                                  extra_server=self.extra_server)
        with open(os.path.join(self._tmp, "nginx.conf"), "w") as f:
            f.write(conf)

    def _command(self, port):
        # -e: the error log from the very start (else nginx first opens its
        # compiled-in /var/log/nginx/error.log).  -p: prefix for relative paths.
        return [self.nginx, "-p", self._tmp + "/", "-e", self.error_log_path,
                "-c", os.path.join(self._tmp, "nginx.conf")]

    @property
    def url(self):
        """http://127.0.0.1:PORT (no trailing slash)."""
        if self.port is None:
            raise RuntimeError("NginxServer is not running")
        return "http://%s:%d" % (LOOPBACK, self.port)


# ---------------------------------------------------------------------------
# moto (S3)
# ---------------------------------------------------------------------------

def _missing_modules(names):
    return [n for n in names if importlib.util.find_spec(n) is None]


class S3Server(_ChildServer):
    """moto's standalone server (python -m moto.server) on
    http://127.0.0.1:PORT, used path-style (http://127.0.0.1:PORT/bucket/key).

        with S3Server() as s3:
            s3.create_bucket("pqstep")
            s3.upload_file("pqstep", "data/x.parquet", path)
            headers = s3.sign_request("GET", s3.endpoint + "/pqstep/data/x.parquet",
                                      {"Range": "bytes=0-99"})

    verify_signatures=False: any access key/secret is accepted for signed
    requests (.access_key/.secret_key are AWS's documented example pair);
    unsigned requests may list buckets but get 403 on objects unless the
    object is public-read.
    verify_signatures=True: an IAM user is created and checking switched on
    (see the module docstring); .access_key/.secret_key are that user's key,
    and anything else is refused with 403.

    Requires moto (with its server extra: flask, werkzeug) and boto3 in this
    interpreter; raises ServerUnavailable otherwise."""

    name = "moto"
    IAM_USER = "pqstep-test"
    # AWS documentation's example key pair: accepted by moto while checking is off.
    EXAMPLE_ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
    EXAMPLE_SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

    def __init__(self, verify_signatures=False, region="us-east-1", startup_timeout=60.0):
        super().__init__(startup_timeout)
        missing = _missing_modules(["moto", "boto3", "botocore", "flask", "werkzeug"])
        if missing:
            raise ServerUnavailable("Python module(s) %s not importable by %s; pip install \"moto[s3,server]\" boto3"
                                    % (", ".join(missing), sys.executable))
        self.verify_signatures = verify_signatures
        self.region = region
        self.access_key = self.EXAMPLE_ACCESS_KEY
        self.secret_key = self.EXAMPLE_SECRET_KEY

    @property
    def _log_path(self):
        return os.path.join(self._tmp, "moto.log")

    def _command(self, port):
        return [sys.executable, "-m", "moto.server", "-H", LOOPBACK, "-p", str(port)]

    def _env(self):
        env = dict(os.environ)
        # Start with checking off whatever the caller's environment says;
        # _after_ready turns it on once the IAM user exists.
        env.pop("INITIAL_NO_AUTH_ACTION_COUNT", None)
        env.pop("MOTO_PORT", None)  # moto.server sets it from -p (it builds URLs with it)
        env.setdefault("AWS_DEFAULT_REGION", self.region)
        env["PYTHONUNBUFFERED"] = "1"
        return env

    @property
    def endpoint(self):
        """http://127.0.0.1:PORT (no trailing slash)."""
        if self.port is None:
            raise RuntimeError("S3Server is not running")
        return "http://%s:%d" % (LOOPBACK, self.port)

    def _after_ready(self):
        if not self.verify_signatures:
            return
        iam = self.client("iam")
        iam.create_user(UserName=self.IAM_USER)
        iam.put_user_policy(UserName=self.IAM_USER, PolicyName="allow-all", PolicyDocument=json.dumps({
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName=self.IAM_USER)["AccessKey"]
        self.access_key, self.secret_key = key["AccessKeyId"], key["SecretAccessKey"]
        self.set_signature_checking(True)

    def set_signature_checking(self, on):
        """Turn moto's IAM authentication (signature and policy checks) on or
        off for every later request.  Only useful with verify_signatures=True
        (otherwise no access key would pass)."""
        self._moto_api("POST", "/moto-api/reset-auth", b"0" if on else b"inf")

    def _moto_api(self, method, path, body=b""):
        conn = http.client.HTTPConnection(LOOPBACK, self.port, timeout=30)
        try:
            # text/plain: a form content type would make werkzeug eat the body.
            conn.request(method, path, body=body, headers={"Content-Type": "text/plain"})
            resp = conn.getresponse()
            data = resp.read()
            if resp.status != 200:
                raise ServerStartError("moto %s %s: %d %r" % (method, path, resp.status, data[:200]))
            return data
        finally:
            conn.close()

    # --- boto3 ------------------------------------------------------------

    def client(self, service="s3", endpoint_url=None, access_key=None, secret_key=None, **config):
        """A boto3 client for this server (or for endpoint_url, a proxy in
        front of it), path-style, this server's credentials unless given,
        at most 2 attempts.  config: extra botocore Config arguments."""
        import boto3
        from botocore.config import Config
        cfg = {"s3": {"addressing_style": "path"}, "retries": {"max_attempts": 2, "mode": "standard"},
               "connect_timeout": 10, "read_timeout": 60}
        cfg.update(config)
        return boto3.client(service, endpoint_url=endpoint_url or self.endpoint, region_name=self.region,
                            aws_access_key_id=access_key or self.access_key,
                            aws_secret_access_key=secret_key or self.secret_key,
                            config=Config(**cfg))

    def _s3(self):
        if getattr(self, "_s3_client", None) is None or self._s3_client_port != self.port:
            self._s3_client = self.client("s3")
            self._s3_client_port = self.port
        return self._s3_client

    def create_bucket(self, name):
        """Create the bucket (no error if this server already has it)."""
        from botocore.exceptions import ClientError
        try:
            self._s3().create_bucket(Bucket=name)
        except ClientError as e:
            if e.response.get("Error", {}).get("Code") not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
                raise
        return name

    def upload_bytes(self, bucket, key, data):
        """PutObject of data (bytes) as bucket/key; returns the ETag (quoted)."""
        return self._s3().put_object(Bucket=bucket, Key=key, Body=data)["ETag"]

    def upload_file(self, bucket, key, path):
        """PutObject of the file's bytes (one part, so the ETag is the
        quoted MD5 of the content); returns the ETag."""
        with open(path, "rb") as f:
            return self.upload_bytes(bucket, key, f.read())

    def upload_dir(self, bucket, prefix, directory):
        """Upload every regular file under directory as prefix + its relative
        path ('/' separated; prefix used as given, so pass "data/" for a
        folder).  Returns {key: local path}, sorted by key."""
        out = {}
        for dirpath, dirnames, filenames in os.walk(directory):
            dirnames.sort()
            for fn in sorted(filenames):
                path = os.path.join(dirpath, fn)
                if not os.path.isfile(path):
                    continue
                rel = os.path.relpath(path, directory).replace(os.sep, "/")
                self.upload_file(bucket, prefix + rel, path)
                out[prefix + rel] = path
        return dict(sorted(out.items()))

    # --- raw requests -----------------------------------------------------

    def sign_request(self, method, url, headers=None, body=b"", access_key=None, secret_key=None,
                     payload_hash=None):
        """Headers that SigV4-sign a raw request (botocore's S3 signer, as the
        AWS CLI signs): the given headers plus Host, X-Amz-Date,
        X-Amz-Content-SHA256 and Authorization; every given header is
        signed.  url: the full URL exactly as it will be sent (path
        percent-encoded, query in its final form); it may point at a proxy:
        Host is taken from it and signed.  payload_hash: the
        X-Amz-Content-SHA256 value to sign (e.g. "UNSIGNED-PAYLOAD"; default
        the SHA-256 of body).  Send the returned headers unchanged
        (http.client.HTTPConnection.request(..., headers=h))."""
        from botocore.auth import S3SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials
        from urllib.parse import urlsplit

        class Signer(S3SigV4Auth):
            def payload(self, request):
                return payload_hash if payload_hash is not None else super().payload(request)

        h = dict(headers or {})
        if not any(k.lower() == "host" for k in h):
            h["Host"] = urlsplit(url).netloc
        req = AWSRequest(method=method, url=url, headers=h, data=body)
        Signer(Credentials(access_key or self.access_key, secret_key or self.secret_key),
               "s3", self.region).add_auth(req)
        return dict(req.headers.items())


if __name__ == "__main__":
    # Manual use: python3 tests/support/remote_servers.py [nginx DIR | s3 [verify]]
    # starts the server and waits for Ctrl-C.
    what = sys.argv[1] if len(sys.argv) > 1 else "s3"
    if what == "nginx":
        server = NginxServer(sys.argv[2] if len(sys.argv) > 2 else ".")
    else:
        server = S3Server(verify_signatures=len(sys.argv) > 2 and sys.argv[2] == "verify")
    with server:
        print(getattr(server, "url", None) or server.endpoint, flush=True)
        if isinstance(server, S3Server):
            print("region %s access key %s secret key %s" % (server.region, server.access_key, server.secret_key))
        try:
            while server.running:
                time.sleep(1)
        except KeyboardInterrupt:
            pass
