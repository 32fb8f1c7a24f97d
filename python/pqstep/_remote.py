"""Where a reader's bytes come from: a local path or an http://, https://
or s3:// URL with its remote options (the dict remote= takes, filled into
a C pq_remote_options here and nowhere else), bytes in memory or a file
object (_sources), and the C open of each."""
import ctypes
import os

from . import _lib as _c
from ._sources import FileObject, InMemory, non_path

URL_PREFIXES = ("http://", "https://", "s3://")


def fspath(path):
    """A local path as the bytes the C library takes."""
    return os.fsencode(os.fspath(path))


def is_url(path):
    return isinstance(path, str) and path.startswith(URL_PREFIXES)


class Url(str):
    """A URL with the remote options it is opened with (a dict), as the
    binding hands locations from a Reader to the readers it opens later."""
    remote = None


def url(path, remote):
    u = Url(path)
    u.remote = dict(remote or {})
    return u


def location(path, remote=None, footer_read_size=0):
    """A Reader's `path` as the binding keeps it: a URL as a Url carrying
    its remote options (those of a Url given, updated by `remote`;
    footer_read_size sets tail_bytes unless `remote` does), a local path as
    os.fspath gives it (remote options then raise ValueError), bytes in
    memory or a file object as _sources makes them."""
    other = non_path(path)
    if other is not None:
        if remote is not None:
            raise ValueError("remote options are for http://, https:// and s3:// URLs, not %r" % (other,))
        return other  # a file object over a local file gives its path
    if is_url(path):
        remote = dict(getattr(path, "remote", None) or {}, **(remote or {}))
        if footer_read_size and "tail_bytes" not in remote:
            remote["tail_bytes"] = max(footer_read_size, 8)
        return url(path, remote)
    if remote is not None:
        raise ValueError("remote options are for http://, https:// and s3:// URLs, not %r" % (path,))
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError("a file is a path, a URL, bytes (any buffer) or a binary file object, not %s"
                        % type(path).__name__)
    return os.fspath(path)


ADDRESSING = {"auto": 0, "path": 1, "virtual": 2}
REMOTE_FIELDS = {name: t for name, t in _c.pq_remote_options._fields_ if name != "struct_size"}


def remote_struct(remote):
    """remote= (a dict) as a pq_remote_options: keys are its fields
    (endpoint, region, access_key_id, secret_access_key, session_token,
    anonymous, addressing ("auto", "path", "virtual"), max_connections,
    max_retries, retry_base_ms, request_timeout_ms, connect_timeout_ms,
    tail_bytes, verify_tls, known_size, known_version, ca_file); what is left out
    takes the library's default. Returns (struct, buffers to keep alive)."""
    o = _c.pq_remote_options()
    _c.pq_remote_options_init(ctypes.byref(o))
    keep = []
    for k, v in (remote or {}).items():
        if k not in REMOTE_FIELDS:
            raise ValueError("unknown remote option %r (one of %s)" % (k, ", ".join(sorted(REMOTE_FIELDS))))
        if v is None:
            continue
        t = REMOTE_FIELDS[k]
        if k == "addressing":
            if v not in ADDRESSING:
                raise ValueError("addressing must be one of %s, not %r" % (", ".join(ADDRESSING), v))
            v = ADDRESSING[v]
        elif t is ctypes.c_char_p:
            v = str(v).encode("utf-8")
            keep.append(v)
        elif t is ctypes.c_bool:
            v = bool(v)
        elif not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError("remote option %s must be a non-negative int" % k)
        setattr(o, k, v)
    return o, keep


def open_handle(path, opts, err):
    """pq_reader_open_url for URLs (with path.remote when it is a Url),
    else pq_reader_open_path, with `opts` (a pq_reader_options). NULL + err
    on failure."""
    if is_url(path):
        ro, keep = remote_struct(getattr(path, "remote", None))
        h = _c.pq_reader_open_url(path.encode("utf-8"), ctypes.byref(opts), ctypes.byref(ro), ctypes.byref(err))
        del keep
        return h
    if isinstance(path, (InMemory, FileObject)):
        return path.open(opts, err)
    return _c.pq_reader_open_path(fspath(path), ctypes.byref(opts), ctypes.byref(err))
