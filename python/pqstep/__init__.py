"""pqstep — Python binding (ctypes) of libpqstep, a staged Parquet reader.

The library reads a Parquet file in stages: footer -> select -> page
headers -> decode. The binding reads footers: file metadata, the schema's
leaf columns, row groups, the raw footer bytes, and reuse of parsed footers
(hand metadata or footer bytes to a Reader, or share a MetadataCache between
readers). It decodes files (flat and nested columns: structs, lists, maps)
into pyarrow through the Arrow C Data Interface, without copies:
read_table() and Reader.read_row_group(). Reader.iter_batches and
Reader.select raise NotImplementedError for now.

    import pqstep

    md = pqstep.read_metadata("data/alltypes_plain.parquet")
    print(md.num_rows, md.num_row_groups, md.created_by)
    for col in md.columns:
        print(col.path, col.physical_type, col.logical_type, col.arrow_type)

    with pqstep.MetadataCache(64 << 20) as cache:
        for _ in range(5):
            with pqstep.Reader("data/alltypes_plain.parquet", cache=cache) as r:
                print(r.stage, r.num_row_groups)      # "footer", 1
        print(cache.stats()["hits"])                   # 4: one parse, four reuses

    # No file I/O for the footer, one parse of the bytes:
    r = pqstep.Reader(path, footer_bytes=md.footer_bytes())

    table = pqstep.read_table("data/alltypes_plain.parquet")    # pyarrow.Table
    batch = r.read_row_group(0, columns=["id", "bool_col"])    # pyarrow.RecordBatch

libpqstep.so is found through $PQSTEP_LIBRARY, next to this package, in the
repository's build/ directory, or by ctypes.util.find_library("pqstep").

Errors from the library raise pqstep.Error, whose .code is the status name
("I/O error", "not a Parquet file", "corrupt footer", ...) and .message the
library's one-line message.

Threads: FileMetadata and MetadataCache may be used from any thread; a Reader
by one thread at a time.
"""
import ctypes
import os
import weakref

from . import _lib as _c

__all__ = [
    "Error", "FileMetadata", "Column", "RowGroup", "MetadataCache", "Reader", "Scan", "scan", "DeviceBatch",
    "Dataset", "DatasetScan", "dataset",
    "read_metadata", "read_table", "footer_parse_count", "library_version",
    "default_memory_limit", "set_file_map_limit", "file_maps_idle", "LIBRARY_PATH",
]

LIBRARY_PATH = _c.LIBRARY_PATH


# Stage names as the library spells them ("init", "footer", ...), by value.
_STAGE_NAMES = [_c.pq_stage_name(i).decode() for i in range(_c.PQ_STAGE_COUNT)]


def library_version():
    """The version string of the loaded libpqstep, e.g. "0.1.0"."""
    return _c.pq_version().decode()


__version__ = library_version()


def default_memory_limit():
    """The memory limit readers get unless told otherwise: a quarter of
    physical memory, at least 256 MiB and at most 1 GiB
    (pq_default_memory_limit)."""
    return _c.pq_default_memory_limit()


def set_file_map_limit(count=None):
    """How many mappings of files no reader holds are kept for the next
    reader of the same file (pq_file_maps_set_limit; None: the default, 8).
    A path reader maps its file (mmap=True); at close the mapping is kept,
    so that a read of the file that follows finds its pages mapped (the
    kernel maps them in fault by fault, and unmapping takes them down: 25 ms
    of a 230 MB file's read). Keyed by the file's identity (device, inode,
    size, modification time): a file rewritten or replaced gets a fresh
    map. An idle mapping goes at the next open or close of a mapped reader
    2 s or more after its last reader closed; meanwhile it holds the file
    open (a deleted file keeps its disk space). 0 unmaps every idle
    mapping now and keeps none."""
    _c.pq_file_maps_set_limit(_c.PQ_FILE_MAPS_DEFAULT if count is None else int(count))


def file_maps_idle():
    """Mappings kept now that no reader holds (pq_file_maps_idle)."""
    return _c.pq_file_maps_idle()


def footer_parse_count():
    """Footer parses done in this process so far (every successful or failed
    parse, including those readers make); shows reuse at work."""
    return int(_c.pq_footer_parse_count())


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

class Error(Exception):
    """An error reported by libpqstep.

    .code    the status name, e.g. "I/O error", "not a Parquet file"
    .status  the numeric pq_status
    .message the library's message
    .path    the file, when the error concerns one
    """

    def __init__(self, code, message, status=None, path=None):
        text = message if message.startswith(code) else "%s: %s" % (code, message)
        if path is not None:
            text = "%s: %s" % (os.fsdecode(path), text)
        super().__init__(text)
        self.code = code
        self.message = message
        self.status = status
        self.path = path


def _status_name(status):
    return _c.pq_status_name(status).decode()


def _error(err, path=None):
    status = int(err.code)
    msg = err.message.decode("utf-8", "replace")
    return Error(_status_name(status), msg, status, path)


def _fspath(path):
    return os.fsencode(os.fspath(path))


_URL_PREFIXES = ("http://", "https://", "s3://")


def _is_url(path):
    return isinstance(path, str) and path.startswith(_URL_PREFIXES)


class _Url(str):
    """A URL with the remote options it is opened with (a dict), as the
    binding hands locations from a Reader to the readers it opens later."""
    remote = None


def _url(path, remote):
    u = _Url(path)
    u.remote = dict(remote or {})
    return u


_ADDRESSING = {"auto": 0, "path": 1, "virtual": 2}
_REMOTE_FIELDS = {name: t for name, t in _c.pq_remote_options._fields_}


def _remote_struct(remote):
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
        if k not in _REMOTE_FIELDS:
            raise ValueError("unknown remote option %r (one of %s)" % (k, ", ".join(sorted(_REMOTE_FIELDS))))
        if v is None:
            continue
        t = _REMOTE_FIELDS[k]
        if k == "addressing":
            if v not in _ADDRESSING:
                raise ValueError("addressing must be one of %s, not %r" % (", ".join(_ADDRESSING), v))
            v = _ADDRESSING[v]
        elif t is ctypes.c_char_p:
            v = str(v).encode("utf-8")
            keep.append(v)
        elif t is ctypes.c_bool:
            v = bool(v)
        elif not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError("remote option %s must be a non-negative int" % k)
        setattr(o, k, v)
    return o, keep


def _open_handle(path, opts, err):
    """pq_reader_open_url for URLs (with path.remote when it is a _Url),
    else pq_reader_open_path. NULL + err on failure."""
    if _is_url(path):
        ro, keep = _remote_struct(getattr(path, "remote", None))
        h = _c.pq_reader_open_url(path.encode("utf-8"), ctypes.byref(opts), ctypes.byref(ro), ctypes.byref(err))
        del keep
        return h
    return _c.pq_reader_open_path(_fspath(path), ctypes.byref(opts), ctypes.byref(err))


def _text(b):
    return b.decode("utf-8", "replace")


def _format(fn, value):
    """Run a pq_*_format function (snprintf-like contract) into a str."""
    buf = ctypes.create_string_buffer(128)
    need = fn(ctypes.byref(value), buf, len(buf))
    if need >= len(buf):
        buf = ctypes.create_string_buffer(need + 1)
        fn(ctypes.byref(value), buf, len(buf))
    return _text(buf.value)


# ---------------------------------------------------------------------------
# Metadata
# ---------------------------------------------------------------------------

class Column:
    """One leaf column of the schema (copied out of the C structs)."""

    __slots__ = ("index", "path", "physical_type", "type_length", "logical_type",
                 "max_def", "max_rep", "arrow_type")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw[k])

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __eq__(self, other):
        return isinstance(other, Column) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return "Column(%s)" % ", ".join("%s=%r" % kv for kv in self.as_dict().items())


class RowGroup:
    """One row group's summary."""

    __slots__ = ("index", "num_rows", "total_byte_size", "num_columns")

    def __init__(self, index, num_rows, total_byte_size, num_columns):
        self.index = index
        self.num_rows = num_rows
        self.total_byte_size = total_byte_size
        self.num_columns = num_columns

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __repr__(self):
        return "RowGroup(%s)" % ", ".join("%s=%r" % kv for kv in self.as_dict().items())


class FileMetadata:
    """A parsed footer. Holds one reference to the C pq_metadata, dropped by
    close() (or when the object is collected). Immutable; shareable between
    threads and readers."""

    def __init__(self, handle):
        """Takes ownership of one reference to `handle` (a pq_metadata *).
        Use read_metadata(), FileMetadata.from_footer_bytes() or
        Reader.metadata rather than calling this."""
        if not handle:
            raise ValueError("FileMetadata needs a pq_metadata handle")
        self._handle = handle
        self._finalizer = weakref.finalize(self, _c.pq_metadata_release, handle)
        f = _c.pq_metadata_file(handle).contents
        self.version = int(f.version)
        self.num_rows = int(f.num_rows)
        self.num_row_groups = int(f.row_groups_len)
        self.created_by = (_text(f.created_by.tobytes())
                           if f.set & _c.PQ_FMD_HAS_CREATED_BY else None)
        self.key_value_metadata = {}
        for i in range(f.key_value_metadata_len):
            kv = f.key_value_metadata[i]
            self.key_value_metadata[kv.key.tobytes()] = (kv.value.tobytes()
                                                         if kv.has_value else None)
        self.row_groups = []
        for i in range(self.num_row_groups):
            rg = f.row_groups[i]
            self.row_groups.append(RowGroup(i, int(rg.num_rows), int(rg.total_byte_size),
                                            int(rg.columns_len)))
        s = _c.pq_metadata_schema(handle).contents
        self.num_columns = int(s.leaves_len)
        self._columns = None  # built when first asked for: a wide footer has thousands
        self.is_projected = bool(_c.pq_metadata_is_projected(handle))
        self.memory_size = int(_c.pq_metadata_memory_size(handle))

    @property
    def columns(self):
        """The leaf columns (pqstep.Column), in file order."""
        if self._columns is None:
            s = _c.pq_metadata_schema(self._live()).contents
            self._columns = [self._leaf(i, s.leaves[i]) for i in range(s.leaves_len)]
        return self._columns

    @staticmethod
    def _leaf(i, leaf):
        logical = _format(_c.pq_logical_type_format, leaf.logical)
        return Column(index=i, path=_text(leaf.path or b""),
                      physical_type=_text(_c.pq_physical_type_name(leaf.physical_type)),
                      type_length=int(leaf.type_length), logical_type=logical or None,
                      max_def=int(leaf.max_def), max_rep=int(leaf.max_rep),
                      arrow_type=_format(_c.pq_arrow_type_format, leaf.arrow))

    @classmethod
    def from_footer_bytes(cls, data):
        """Parse footer bytes (the Thrift FileMetaData, as footer_bytes()
        returns) without any file: one parse, no I/O."""
        data = bytes(data)
        err = _c.pq_error()
        h = _c.pq_metadata_parse(data, len(data), None, ctypes.byref(err))
        if not h:
            raise _error(err)
        return cls(h)

    def _live(self):
        if not self._finalizer.alive:
            raise ValueError("FileMetadata is closed")
        return self._handle

    def footer_bytes(self):
        """The raw footer (Thrift FileMetaData, without length and magic)."""
        n = ctypes.c_size_t(0)
        p = _c.pq_metadata_footer_bytes(self._live(), ctypes.byref(n))
        return ctypes.string_at(p, n.value) if p and n.value else b""

    def find_column(self, path):
        """Leaf index of a dotted path (or a top-level name with one leaf), or
        None."""
        i = _c.pq_metadata_find_leaf(self._live(), path.encode("utf-8"))
        return None if i < 0 else int(i)

    def close(self):
        """Drop this object's reference. Values already read stay usable."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return ("FileMetadata(num_rows=%d, num_row_groups=%d, num_columns=%d, created_by=%r)"
                % (self.num_rows, self.num_row_groups, self.num_columns, self.created_by))


class MetadataCache:
    """A thread-safe, byte-bounded LRU cache of parsed footers, shared by the
    Readers given it (keyed by path, size and modification time)."""

    def __init__(self, max_bytes):
        if max_bytes < 0:
            raise ValueError("max_bytes must be >= 0")
        err = _c.pq_error()
        h = _c.pq_metadata_cache_create(max_bytes, ctypes.byref(err))
        if not h:
            raise _error(err)
        self._handle = h
        self._finalizer = weakref.finalize(self, _c.pq_metadata_cache_destroy, h)

    def _live(self):
        if not self._finalizer.alive:
            raise ValueError("MetadataCache is closed")
        return self._handle

    def stats(self):
        """dict: hits, misses, loads, evictions, entries, bytes, max_bytes."""
        st = _c.pq_metadata_cache_stats()
        _c.pq_metadata_cache_get_stats(self._live(), ctypes.byref(st))
        return {name: int(getattr(st, name)) for name, _ in st._fields_}

    def close(self):
        """Destroy the cache. Metadata handed out earlier stays valid. Must
        not race other use of this cache."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---------------------------------------------------------------------------
# Reader
# ---------------------------------------------------------------------------

def _stage_value(stage):
    if isinstance(stage, int):
        if 0 <= stage < _c.PQ_STAGE_COUNT:
            return stage
    elif stage in _STAGE_NAMES:
        return _STAGE_NAMES.index(stage)
    raise ValueError("unknown stage %r (one of %s)" % (stage, ", ".join(_STAGE_NAMES)))


class Reader:
    """A reader over one file, advanced to the footer stage on open.

    metadata     a FileMetadata to adopt (no I/O, no parse for the footer)
    footer_bytes footer bytes to parse instead of reading the file's footer
    cache        a MetadataCache to look the footer up in (and store it)
    remote       for http://, https:// and s3:// URLs: a dict of remote
                 options (endpoint, region, access_key_id, secret_access_key,
                 session_token, anonymous, addressing, max_connections,
                 max_retries, retry_base_ms, request_timeout_ms,
                 connect_timeout_ms, tail_bytes, verify_tls, known_size,
                 known_version, ca_file; see pq_remote.h); S3 settings not given come
                 from the AWS_* environment variables
    columns      leaf indexes (ints: the footer parse decodes only their
                 column chunks) or dotted paths; kept for the later stages
    strings      "string", "string_view", "large_string" or "dictionary":
                 the type of string and binary columns in what the reader
                 returns (see read_table)
    decimals     "decimal128" or "decimal64" (see read_table)
    follow_arrow_schema  follow the Arrow types the writer stored (see
                 read_table)
    device       "cpu" (default), "cuda", "auto" or "host-kernels": where
                 the decode stage runs (see read_table)
    device_output  keep the decoded arrays in device memory (see
                 read_table): device_batches() then hands out slices of
                 them without a copy
    device_file  the whole file already in device memory, decoded from
                 there (see read_table); kept alive by the reader
    mmap         map a local file and decode its pages where they lie
                 (default True; see read_table)
    At most one of metadata and footer_bytes.
    """

    def __init__(self, path, metadata=None, cache=None, footer_bytes=None, columns=None,
                 footer_read_size=0, memory_limit=None, threads=None, validate_utf8=False,
                 strings="string", decimals="decimal128", follow_arrow_schema=False, remote=None,
                 device="cpu", device_output=False, device_file=None, mmap=True):
        if _is_url(path):
            remote = dict(getattr(path, "remote", None) or {}, **(remote or {}))
            if footer_read_size and "tail_bytes" not in remote:
                remote["tail_bytes"] = max(footer_read_size, 8)
            self.path = _url(path, remote)
        else:
            if remote is not None:
                raise ValueError("remote options are for http://, https:// and s3:// URLs, not %r" % (path,))
            self.path = os.fspath(path)
        self._handle = None
        self._md = None
        opts = _c.pq_reader_options()
        _c.pq_reader_options_init(ctypes.byref(opts))
        opts.footer_read_size = footer_read_size
        if memory_limit is not None:
            opts.memory_limit = memory_limit
        opts.string_type = _string_type(strings)
        opts.decimal_type = _decimal_type(decimals)
        opts.follow_arrow_schema = bool(follow_arrow_schema)
        self._strings = strings
        self._decimals = decimals
        self._follow = bool(follow_arrow_schema)
        opts.device = _device(device)
        opts.device_output = bool(device_output)
        self._device = device
        self._device_output = bool(device_output)
        self._device_file = _device_file(device_file)
        if self._device_file is not None:
            opts.device_file, opts.device_file_size = self._device_file[0], self._device_file[1]
        opts.threads = threads or 0
        opts.validate_utf8 = bool(validate_utf8)
        opts.no_mmap = not mmap
        self._mmap = bool(mmap)
        self._threads = threads
        self._validate_utf8 = bool(validate_utf8)
        self._memory_limit = memory_limit
        keep = []  # buffers the options point to, alive until the footer stage is done
        if metadata is not None:
            if not isinstance(metadata, FileMetadata):
                raise TypeError("metadata must be a pqstep.FileMetadata")
            opts.metadata = metadata._live()
        if footer_bytes is not None:
            data = bytes(footer_bytes)
            buf = ctypes.create_string_buffer(data, len(data))
            keep.append(buf)
            opts.footer_bytes = ctypes.cast(buf, ctypes.c_void_p)
            opts.footer_bytes_len = len(data)
        if cache is not None:
            if not isinstance(cache, MetadataCache):
                raise TypeError("cache must be a pqstep.MetadataCache")
            opts.cache = cache._live()
        self._cache = cache
        names = None
        if columns is not None:
            columns = list(columns)
            if all(isinstance(c, int) and not isinstance(c, bool) for c in columns):
                if any(c < 0 or c > 0xFFFFFFFF for c in columns):
                    raise Error(_status_name(1), "column index out of range", 1)
                arr = (ctypes.c_uint32 * max(len(columns), 1))(*columns)
                keep.append(arr)
                opts.columns = ctypes.cast(arr, ctypes.POINTER(ctypes.c_uint32))
                opts.columns_len = len(columns)
            else:
                names = columns

        err = _c.pq_error()
        h = _open_handle(self.path, opts, err)
        if not h:
            raise _error(err, self.path)
        self._handle = h
        self._finalizer = weakref.finalize(self, _c.pq_reader_close, h)
        st = _c.pq_reader_advance_to(h, _c.PQ_STAGE_FOOTER, ctypes.byref(err))
        del keep
        if st != _c.PQ_OK:
            self.close()
            raise _error(err, self.path)
        self.columns = columns if names is None else self._resolve(names)
        if _is_url(self.path):
            # Readers opened later for this one (reads, scans) know the
            # object: no request to find its size again.
            self.path = _url(self.path, dict(self.path.remote, known_size=self.file_size,
                                             known_version=self.version or ""))

    def _resolve(self, names):
        md = self.metadata
        out = []
        for c in names:
            if isinstance(c, int) and not isinstance(c, bool):
                i = c if 0 <= c < md.num_columns else None
            elif isinstance(c, str):
                i = md.find_column(c)
            else:
                raise TypeError("columns holds leaf indexes or paths, not %r" % (c,))
            if i is None:
                self.close()
                raise Error(_status_name(1), "no leaf column %r" % (c,), 1, self.path)
            out.append(i)
        return out

    def _live(self):
        if self._handle is None or not self._finalizer.alive:
            raise ValueError("Reader is closed")
        return self._handle

    @property
    def stage(self):
        """The last completed stage: "footer" once open."""
        return _STAGE_NAMES[_c.pq_reader_stage(self._live())]

    @property
    def metadata(self):
        """The footer as a FileMetadata sharing the reader's reference."""
        h = self._live()
        if self._md is None:
            self._md = FileMetadata(_c.pq_metadata_retain(_c.pq_reader_metadata(h)))
        return self._md

    @property
    def num_row_groups(self):
        return self.metadata.num_row_groups

    @property
    def file_size(self):
        return int(_c.pq_reader_file_size(self._live()))

    def footer_bytes(self):
        return self.metadata.footer_bytes()

    @property
    def device_note(self):
        """After a decode: where it ran and why ("cpu", "host kernels: 12
        chunks on the kernels, 1 on the CPU (first: ...)")."""
        return _c.pq_reader_device_note(self._live()).decode("utf-8", "replace")

    @property
    def version(self):
        """For a URL: the object's ETag (else its Last-Modified) as the open
        found it; None for files."""
        v = _c.pq_reader_source_version(self._live())
        return None if v is None else v.decode("utf-8", "replace")

    def stage_stats(self, stage="footer"):
        """Counters of one stage (a name from pq_stage_name or its number):
        bytes_read, reads, nanoseconds, parses, reused, chunks, pages."""
        st = _c.pq_stage_stats()
        _c.pq_reader_stage_stats(self._live(), _stage_value(stage), ctypes.byref(st))
        return {name: int(getattr(st, name)) for name, _ in st._fields_}

    def select(self, columns=None, row_groups=None, filter=None):
        """The rows of `row_groups` (None: all) for which `filter` is true,
        as a pyarrow.Table of `columns`: Reader.read with a filter."""
        return self.read(row_groups=row_groups, columns=columns, filter=filter)

    def read_row_group(self, i, columns=None):
        """Row group `i` as a pyarrow.RecordBatch. `columns`: leaf indexes or
        paths, default the reader's columns (all when none were given). With
        a nested column selected, the batch has one field per top-level
        field holding selected leaves, in file order."""
        self._live()
        cols = self.columns if columns is None else self._resolve(list(columns))
        return list(_decoded_batches(self.path, self.metadata, cols, [i], threads=self._threads,
                                     validate_utf8=self._validate_utf8,
                                     memory_limit=self._memory_limit, strings=self._strings,
                                     decimals=self._decimals, follow_arrow_schema=self._follow,
                                     device=self._device, device_file=self._device_file, mmap=self._mmap))[0]

    def _reselect(self, row_groups, row_offset, row_limit, cols, filter, prune):
        """Back to the select stage with a new choice (pq_reader_reselect)."""
        h = self._live()
        sel = _c.pq_selection()
        keep = []
        if row_groups is not None:
            rgs = list(row_groups)
            if any(not isinstance(g, int) or g < 0 or g > 0xFFFFFFFF for g in rgs):
                raise Error(_status_name(1), "row group index out of range", 1, self.path)
            garr = (ctypes.c_uint32 * max(len(rgs), 1))(*rgs)
            keep.append(garr)
            sel.row_groups = ctypes.cast(garr, ctypes.POINTER(ctypes.c_uint32))
            sel.row_groups_len = len(rgs)
        if cols is not None:
            carr = (ctypes.c_uint32 * max(len(cols), 1))(*cols)
            keep.append(carr)
            sel.columns = ctypes.cast(carr, ctypes.POINTER(ctypes.c_uint32))
            sel.columns_len = len(cols)
        for name, v in (("row_offset", row_offset), ("row_limit", row_limit)):
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                raise ValueError("%s must be a non-negative int" % name)
        sel.row_offset = row_offset or 0
        sel.row_limit = row_limit or 0
        flt = _Filter(filter, self.path) if filter is not None else None
        sel.filter = flt.handle if flt else None
        sel.prune_disable = _prune_disable(prune)
        err = _c.pq_error()
        if _c.pq_reader_reselect(h, ctypes.byref(sel), ctypes.byref(err)) != _c.PQ_OK:
            raise _error(err, self.path)
        return h, cols

    def kept_rows(self, filter=None, row_groups=None, row_offset=0, row_limit=None, prune=True):
        """Run the select stage only (no data page is read) and return, for
        each row group kept, the runs of rows a read fetches, as
        {row_group: [(first_row, num_rows), ...]} in the row group's own
        numbering: the whole row group, the row range, or with the page
        index only the runs whose pages may match `filter`."""
        cols = self.columns if self.columns is not None else list(range(self.metadata.num_columns))
        h, _ = self._reselect(row_groups, row_offset, row_limit, cols, filter, prune)
        err = _c.pq_error()
        if _c.pq_reader_advance_to(h, _c.PQ_STAGE_SELECT, ctypes.byref(err)) != _c.PQ_OK:
            raise _error(err, self.path)
        out = {}
        for g in range(self.metadata.num_row_groups):
            n = ctypes.c_size_t()
            if _c.pq_reader_row_group_runs(h, g, None, 0, ctypes.byref(n), ctypes.byref(err)) != _c.PQ_OK:
                continue  # pruned or not selected
            runs = (_c.pq_row_run * max(n.value, 1))()
            _c.pq_reader_row_group_runs(h, g, runs, n.value, ctypes.byref(n), ctypes.byref(err))
            out[g] = [(int(x.first_row), int(x.num_rows)) for x in runs[:n.value]]
        return out

    def read(self, row_groups=None, row_offset=0, row_limit=None, columns=None, filter=None,
             prune=True):
        """Decode with this reader's own stages and return a pyarrow.Table:
        `row_groups` (None: all), rows [row_offset, row_offset + row_limit)
        of them, `columns` (None: the reader's). Each call goes back to the
        select stage (pq_reader_reselect), so a later read of chunks an
        earlier one walked neither reads nor walks them again when they hold
        the rows: see stage_stats("page headers")["reused"]. filter, prune:
        as for read_table; stage_stats("select")["pruned_statistics"] and
        stage_stats("decode")["rows_filtered"] count what they did."""
        import pyarrow as pa
        cols = self.columns if columns is None else self._resolve(list(columns))
        if cols is None:
            cols = list(range(self.metadata.num_columns))
        h, cols = self._reselect(row_groups, row_offset, row_limit, cols, filter, prune)
        err = _c.pq_error()
        stage = _c.PQ_STAGE_SELECT if row_limit == 0 else _c.PQ_STAGE_DECODE
        if _c.pq_reader_advance_to(h, stage, ctypes.byref(err)) != _c.PQ_OK:
            raise _error(err, self.path)
        batches = [] if row_limit == 0 else list(_export_batches(h, 0, self.path))
        if batches:
            return pa.Table.from_batches(batches)
        return _output_schema(h, self.path).empty_table()

    def iter_batches(self, batch_size=65536, columns=None, row_groups=None, threads=None):
        """Yield pyarrow.RecordBatch objects of at most `batch_size` rows,
        row group by row group (a batch never spans two). Only one row group
        is decoded at a time, and every row group reuses this reader's
        parsed footer. `columns`, `row_groups`: as for read_row_group and
        read_table; `threads`: decode threads (None: one per core)."""
        self._live()
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size must be a positive int")
        cols = self.columns if columns is None else self._resolve(list(columns))
        md = self.metadata
        groups = range(md.num_row_groups) if row_groups is None else list(row_groups)
        for g in groups:
            for b in _decoded_batches(self.path, md, cols, [g], batch_size=batch_size,
                                      threads=self._threads if threads is None else threads,
                                      validate_utf8=self._validate_utf8,
                                      memory_limit=self._memory_limit, strings=self._strings,
                                      decimals=self._decimals, follow_arrow_schema=self._follow,
                                      device=self._device, device_file=self._device_file, mmap=self._mmap):
                if b.num_rows:  # an empty row group gives no batch, as in pyarrow
                    yield b

    def device_batches(self, batch_size=65536, columns=None, row_groups=None, filter=None):
        """Yield DeviceBatch objects (Arrow C device data interface arrays)
        of at most batch_size rows: on the CUDA device when this reader's
        device= put the decode there ("cuda", or "auto" with a device),
        else in host memory. Decodes with a reader of its own (the parsed
        footer reused)."""
        cols = self.columns if columns is None else self._resolve(list(columns))
        return _decoded_batches(self.path, self.metadata, cols, row_groups, batch_size=batch_size,
                                threads=self._threads, validate_utf8=self._validate_utf8,
                                memory_limit=self._memory_limit, filter=filter, strings=self._strings,
                                decimals=self._decimals, follow_arrow_schema=self._follow, device=self._device,
                                device_output=self._device_output, export=_device_batches,
                                device_file=self._device_file, mmap=self._mmap)

    def scan(self, columns=None, row_groups=None, filter=None, row_offset=0, row_limit=None, batch_size=None,
             threads=None, validate_utf8=None, memory_limit=None, prune=True, strings=None, decimals=None,
             follow_arrow_schema=None):
        """A Scan (an Arrow C stream for DuckDB, polars, pyarrow) of this
        reader's file with its parsed footer: `columns` (None: the
        reader's), `row_groups`, `filter`, the row range and `prune` as for
        read; batch_size the most rows a batch has (None: a row group per
        batch); the output types and threads default to the reader's."""
        self._live()
        cols = self.columns if columns is None else self._resolve(list(columns))
        return Scan(self.path, self.metadata, cols, row_groups=row_groups, filter=filter, row_offset=row_offset,
                    row_limit=row_limit, batch_size=batch_size,
                    threads=self._threads if threads is None else threads,
                    validate_utf8=self._validate_utf8 if validate_utf8 is None else validate_utf8,
                    memory_limit=self._memory_limit if memory_limit is None else memory_limit, prune=prune,
                    strings=self._strings if strings is None else strings,
                    decimals=self._decimals if decimals is None else decimals,
                    follow_arrow_schema=self._follow if follow_arrow_schema is None else follow_arrow_schema,
                    mmap=self._mmap)

    def __arrow_c_stream__(self, requested_schema=None):
        """The Arrow PyCapsule stream of the reader's columns, every row
        group: self.scan().__arrow_c_stream__()."""
        return self.scan().__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self):
        return self.scan().__arrow_c_schema__()

    def to_reader(self, **scan_args):
        """A pyarrow.RecordBatchReader: self.scan(**scan_args).to_reader()."""
        return self.scan(**scan_args).to_reader()

    def close(self):
        """Close the file. self.metadata, once taken, stays usable."""
        if self._handle is not None:
            self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self._handle is None or not self._finalizer.alive else self.stage
        return "Reader(%r, stage=%s)" % (self.path, state)


def read_metadata(path, cache=None, remote=None):
    """Read and parse a file's footer; returns a FileMetadata. remote: as
    for Reader."""
    with Reader(path, cache=cache, remote=remote) as r:
        return r.metadata


_STRING_TYPES = {"string": 0, "string_view": 1, "large_string": 2, "dictionary": 3}


def _string_type(strings):
    """strings= as pq_string_type: "string" (Arrow string / binary),
    "string_view" (string_view / binary_view), "large_string" (large_string
    / large_binary) or "dictionary" (dictionary<int32, string / binary>)."""
    if strings not in _STRING_TYPES:
        raise ValueError("strings must be one of %s, not %r" % (", ".join(sorted(_STRING_TYPES)), strings))
    return _STRING_TYPES[strings]


_DEVICES = {"cpu": 0, "cuda": 1, "auto": 2, "host-kernels": 3}


def _device(device):
    """device= as pq_device: "cpu" (the CPU executor), "cuda" (the device
    executor's kernels on a CUDA device; an error without one), "auto"
    (CUDA when usable, else the CPU) or "host-kernels" (the same kernels run
    on the host: what CI checks; slow)."""
    if device not in _DEVICES:
        raise ValueError("device must be one of %s, not %r" % (", ".join(_DEVICES), device))
    return _DEVICES[device]


_DECIMAL_TYPES = {"decimal128": 0, "decimal64": 1}


def _decimal_type(decimals):
    """decimals= as pq_decimal_type: "decimal128" (as pyarrow reads them) or
    "decimal64" (decimals of at most 18 digits in 8 bytes)."""
    if decimals not in _DECIMAL_TYPES:
        raise ValueError("decimals must be one of %s, not %r" % (", ".join(sorted(_DECIMAL_TYPES)), decimals))
    return _DECIMAL_TYPES[decimals]


def _output_schema(h, path):
    """The schema of every batch of reader h's selection
    (pq_reader_output_schema, after the select stage), output types applied."""
    import pyarrow as pa
    sbuf = ctypes.create_string_buffer(_c.ARROW_SCHEMA_SIZE)
    err = _c.pq_error()
    if _c.pq_reader_output_schema(h, ctypes.addressof(sbuf), ctypes.byref(err)) != _c.PQ_OK:
        raise _error(err, path)
    return pa.Schema._import_from_c(ctypes.addressof(sbuf))


_PRUNE_STEPS = {"statistics": 1, "dictionary": 2, "bloom_filter": 4, "page_index": 8}


def _prune_disable(prune):
    """prune: True (every step), False (none), or the names of the steps to
    use ("statistics", "dictionary", "bloom_filter", "page_index")."""
    if prune is True:
        return 0
    if prune is False or prune is None:
        return _c.PQ_PRUNE_ALL
    steps = set(prune)
    unknown = steps - set(_PRUNE_STEPS)
    if unknown:
        raise ValueError("unknown pruning step(s) %s (one of %s)" % (sorted(unknown), sorted(_PRUNE_STEPS)))
    return sum(bit for name, bit in _PRUNE_STEPS.items() if name not in steps)


class _Filter:
    """A predicate parsed by the library (pq_expr_parse), freed with the object."""

    def __init__(self, text, path=None):
        if not isinstance(text, str):
            raise TypeError("filter must be a string in pqstep's predicate syntax")
        err = _c.pq_error()
        self.handle = _c.pq_expr_parse(text.encode("utf-8"), ctypes.byref(err))
        if not self.handle:
            raise _error(err, path)
        self._finalizer = weakref.finalize(self, _c.pq_expr_free, self.handle)


def _device_file(obj):
    """device_file= as (address, size, owner), or None: an object with
    __cuda_array_interface__ (contiguous), an (address, size) tuple, or a
    buffer (host memory)."""
    if obj is None:
        return None
    if isinstance(obj, tuple) and len(obj) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                          for v in obj):
        addr, size = obj
        if addr <= 0 or size < 0:
            raise ValueError("device_file (address, size): address must be positive and size non-negative")
        return (addr, size, None)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        n, item = 1, int(cai["typestr"][2:])
        want, step = [], item
        for d in reversed(cai["shape"]):
            want.insert(0, step)
            step *= d
            n *= d
        if cai.get("strides") is not None and tuple(cai["strides"]) != tuple(want):
            raise ValueError("device_file: a __cuda_array_interface__ object must be C-contiguous")
        return (cai["data"][0], n * item, obj)
    import pyarrow as pa
    try:
        buf = pa.py_buffer(obj)
    except TypeError:
        raise TypeError("device_file must be an object with __cuda_array_interface__, a buffer, or an "
                        "(address, size) tuple, not %s" % type(obj).__name__) from None
    return (buf.address, buf.size, (buf, obj))


def _open_reader(path, metadata, columns, row_groups, row_offset=0, row_limit=None, threads=None,
                 validate_utf8=False, memory_limit=None, filter=None, prune=True, strings="string",
                 decimals="decimal128", follow_arrow_schema=False, device="cpu", device_output=False,
                 device_file=None, mmap=True):
    """A C reader over `path` with the parsed `metadata` (no footer I/O) and
    this choice of `row_groups` (file indexes, None: all), `columns` (leaf
    indexes, None: all), rows [row_offset, row_offset + row_limit) and
    filter, at the footer stage: (handle, objects to keep alive while it
    is used). row_limit 0 is "no limit" here; the caller handles "none"."""
    opts = _c.pq_reader_options()
    _c.pq_reader_options_init(ctypes.byref(opts))
    opts.metadata = metadata._live()
    keep = []
    if columns is not None:
        arr = (ctypes.c_uint32 * max(len(columns), 1))(*columns)
        keep.append(arr)
        opts.columns = ctypes.cast(arr, ctypes.POINTER(ctypes.c_uint32))
        opts.columns_len = len(columns)
    if row_groups is not None:
        rgs = list(row_groups)
        if any(not isinstance(g, int) or g < 0 or g > 0xFFFFFFFF for g in rgs):
            raise Error(_status_name(1), "row group index out of range", 1, path)
        garr = (ctypes.c_uint32 * max(len(rgs), 1))(*rgs)
        keep.append(garr)
        opts.row_groups = ctypes.cast(garr, ctypes.POINTER(ctypes.c_uint32))
        opts.row_groups_len = len(rgs)
    for name, v in (("row_offset", row_offset), ("row_limit", row_limit), ("threads", threads)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
            raise ValueError("%s must be a non-negative int" % name)
    opts.row_offset = row_offset or 0
    if row_limit:
        opts.row_limit = row_limit
    opts.threads = threads or 0
    opts.validate_utf8 = bool(validate_utf8)
    if memory_limit is not None:
        opts.memory_limit = memory_limit
    opts.string_type = _string_type(strings)
    opts.decimal_type = _decimal_type(decimals)
    opts.follow_arrow_schema = bool(follow_arrow_schema)
    opts.no_mmap = not mmap
    opts.device = _device(device)
    opts.device_output = bool(device_output)
    if device_file is not None:  # (address, size, owner): the owner stays alive with the reader
        opts.device_file, opts.device_file_size = device_file[0], device_file[1]
        keep.append(device_file)
    if filter is not None:
        flt = _Filter(filter, path)
        keep.append(flt)
        opts.filter = flt.handle
    opts.prune_disable = _prune_disable(prune)
    err = _c.pq_error()
    h = _open_handle(path, opts, err)
    if not h:
        raise _error(err, path)
    if _c.pq_reader_advance_to(h, _c.PQ_STAGE_FOOTER, ctypes.byref(err)) != _c.PQ_OK:
        _c.pq_reader_close(h)
        raise _error(err, path)
    return h, keep


def _decoded_batches(path, metadata, columns, row_groups, batch_size=0, row_offset=0,
                     row_limit=None, threads=None, validate_utf8=False, memory_limit=None,
                     filter=None, prune=True, strings="string", decimals="decimal128",
                     follow_arrow_schema=False, schema_out=None, device="cpu", device_output=False, export=None,
                     device_file=None, mmap=True):
    """Decode `row_groups` (file indexes, None: all) of `columns` (leaf
    indexes, None: all) with one reader over `metadata` and yield
    pyarrow.RecordBatch objects of at most `batch_size` rows (0: one per row
    group), for the rows [row_offset, row_offset + row_limit) of the
    selection. schema_out (a list) gets the batches' schema appended."""
    h, keep = _open_reader(path, metadata, columns, row_groups, row_offset=row_offset, row_limit=row_limit,
                           threads=threads, validate_utf8=validate_utf8, memory_limit=memory_limit,
                           filter=filter, prune=prune, strings=strings, decimals=decimals,
                           follow_arrow_schema=follow_arrow_schema, device=device, device_output=device_output,
                           device_file=device_file, mmap=mmap)
    err = _c.pq_error()
    try:
        stage = _c.PQ_STAGE_SELECT if row_limit == 0 else _c.PQ_STAGE_DECODE
        st = _c.pq_reader_advance_to(h, stage, ctypes.byref(err))
        if st != _c.PQ_OK:
            raise _error(err, path)
        if schema_out is not None:
            schema_out.append(_output_schema(h, path))
        if row_limit == 0:
            return
        for b in (export or _export_batches)(h, batch_size, path):
            yield b
    finally:
        _c.pq_reader_close(h)
        del keep


# ---------------------------------------------------------------------------
# Arrow PyCapsules (the Arrow PyCapsule interface): structs malloc'd here,
# each capsule's destructor releases what the consumer did not take and
# frees the struct.
# ---------------------------------------------------------------------------

_libc = ctypes.CDLL(None)
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]
_libc.free.argtypes = [ctypes.c_void_p]
_SCHEMA_NAME = b"arrow_schema"
_STREAM_NAME = b"arrow_array_stream"
_DEVICE_ARRAY_NAME = b"arrow_device_array"
# where each struct keeps `release` (an ArrowDeviceArray starts with its ArrowArray)
_RELEASE_OFFSET = {_SCHEMA_NAME: 56, _STREAM_NAME: 24, _DEVICE_ARRAY_NAME: 64}
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi))
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_release_fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _capsule_destructor(name):
    @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def destroy(capsule):  # the raw PyObject *: no reference taken while it dies
        try:
            p = _capsule_pointer(capsule, name)
            if p:
                release = ctypes.c_void_p.from_address(p + _RELEASE_OFFSET[name]).value
                if release:
                    _release_fn(release)(p)
                _libc.free(p)
        except Exception:  # noqa: BLE001 (at interpreter exit the module may be gone)
            pass
    return destroy


_DESTROY = {n: _capsule_destructor(n) for n in (_SCHEMA_NAME, _STREAM_NAME, _DEVICE_ARRAY_NAME)}


def _capsule(name, size, fill):
    """A PyCapsule `name` over a zeroed struct of `size` bytes that
    fill(address) exports into (it raises on failure; the struct is freed)."""
    p = _libc.malloc(size)
    if not p:
        raise MemoryError("out of memory for an Arrow struct")
    ctypes.memset(p, 0, size)
    try:
        fill(p)
    except BaseException:
        _libc.free(p)
        raise
    return _wrap(p, name)


def _wrap(p, name):
    """A PyCapsule `name` owning the malloc'd struct at p (released and
    freed when the capsule dies unexported)."""
    return _capsule_new(p, name, ctypes.cast(_DESTROY[name], ctypes.c_void_p))


_DEVICE_TYPES = {1: "cpu", 2: "cuda", 3: "cuda_host"}


class DeviceBatch:
    """One record batch as an Arrow C device data interface array (the
    Arrow PyCapsule device protocol: __arrow_c_device_array__), from
    Reader.device_batches(). Where the decode ran on a CUDA device its
    buffers are in that device's memory (device_type "cuda"), else in host
    memory ("cpu"); consumers (pyarrow, cuDF, CuPy-based tools) import it
    without a copy. It can be exported once; unexported, its buffers are
    freed with it."""

    def __init__(self, schema_capsule, array_capsule, num_rows, device_type, device_id):
        self._schema = schema_capsule
        self._array = array_capsule
        self.num_rows = num_rows
        self.device_type = device_type
        self.device_id = device_id

    def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
        if self._array is None:
            raise ValueError("this DeviceBatch was exported already")
        out = (self._schema, self._array)
        self._schema = self._array = None
        return out

    def __repr__(self):
        return "DeviceBatch(%d rows, %s)" % (self.num_rows, self.device_type)


def _device_batches(h, batch_size, path):
    """pq_reader_next_device_batch until the end: DeviceBatch objects."""
    err = _c.pq_error()
    while True:
        pa_ = _libc.malloc(_c.ARROW_DEVICE_ARRAY_SIZE)
        ps = _libc.malloc(_c.ARROW_SCHEMA_SIZE)
        if not pa_ or not ps:
            _libc.free(pa_)
            _libc.free(ps)
            raise MemoryError("out of memory for an Arrow struct")
        st = _c.pq_reader_next_device_batch(h, batch_size, pa_, ps, ctypes.byref(err))
        if st != _c.PQ_OK or not ctypes.c_void_p.from_address(pa_ + _RELEASE_OFFSET[_DEVICE_ARRAY_NAME]).value:
            _libc.free(pa_)
            _libc.free(ps)
            if st != _c.PQ_OK:
                raise _error(err, path)
            return
        rows = ctypes.c_int64.from_address(pa_).value
        device_id = ctypes.c_int64.from_address(pa_ + 80).value
        device_type = ctypes.c_int32.from_address(pa_ + 88).value
        yield DeviceBatch(_wrap(ps, _SCHEMA_NAME), _wrap(pa_, _DEVICE_ARRAY_NAME), rows, _DEVICE_TYPES.get(device_type, str(device_type)), device_id)


class Scan:
    """A read of one file that Arrow consumers pull: an Arrow C stream
    (the PyCapsule interface: __arrow_c_stream__, __arrow_c_schema__), so
    DuckDB (`duckdb.sql("select ... from scan")`), polars
    (`pl.DataFrame(scan)`), pyarrow (`pa.RecordBatchReader.from_stream(scan)`)
    and DataFusion scan pqstep directly. The choice (columns, row groups,
    row range, filter) is pqstep's: pruning, late materialization and the
    filter run inside pqstep, not in the consumer. Each stream decodes one
    row group at a time as the consumer asks (pq_reader_export_stream),
    reusing the parsed footer; a Scan may be streamed any number of times.
    Made by Reader.scan() or pqstep.scan()."""

    def __init__(self, path, metadata, columns, row_groups=None, filter=None, row_offset=0, row_limit=None,
                 batch_size=None, threads=None, validate_utf8=False, memory_limit=None, prune=True,
                 strings="string", decimals="decimal128", follow_arrow_schema=False, mmap=True):
        if batch_size is not None and (not isinstance(batch_size, int) or isinstance(batch_size, bool) or
                                       batch_size <= 0):
            raise ValueError("batch_size must be a positive int")
        if row_limit == 0:
            raise ValueError("row_limit must be positive (None: no limit)")
        self._path = path
        self._metadata = metadata
        self._args = dict(columns=columns, row_groups=row_groups, filter=filter, row_offset=row_offset,
                          row_limit=row_limit, threads=threads, validate_utf8=validate_utf8,
                          memory_limit=memory_limit, prune=prune, strings=strings, decimals=decimals,
                          follow_arrow_schema=follow_arrow_schema, mmap=mmap)
        self._batch_rows = batch_size or 0
        if filter is not None:
            _Filter(filter, path)  # a syntax error now, not at the first pull

    def _reader(self):
        a = self._args
        return _open_reader(self._path, self._metadata, a["columns"], a["row_groups"], row_offset=a["row_offset"],
                            row_limit=a["row_limit"], threads=a["threads"], validate_utf8=a["validate_utf8"],
                            memory_limit=a["memory_limit"], filter=a["filter"], prune=a["prune"],
                            strings=a["strings"], decimals=a["decimals"],
                            follow_arrow_schema=a["follow_arrow_schema"], mmap=a["mmap"])

    def __arrow_c_schema__(self):
        """The schema of the stream's batches, as a PyCapsule "arrow_schema"."""
        h, keep = self._reader()
        try:
            err = _c.pq_error()
            if _c.pq_reader_advance_to(h, _c.PQ_STAGE_SELECT, ctypes.byref(err)) != _c.PQ_OK:
                raise _error(err, self._path)

            def fill(p):
                if _c.pq_reader_output_schema(h, p, ctypes.byref(err)) != _c.PQ_OK:
                    raise _error(err, self._path)
            return _capsule(_SCHEMA_NAME, _c.ARROW_SCHEMA_SIZE, fill)
        finally:
            _c.pq_reader_close(h)
            del keep

    def __arrow_c_stream__(self, requested_schema=None):
        """A new stream over the scan, as a PyCapsule "arrow_array_stream".
        requested_schema is not followed (the protocol lets a producer
        ignore it): pick the types with strings=, decimals= and
        follow_arrow_schema=."""
        h, keep = self._reader()
        try:
            err = _c.pq_error()

            def fill(p):
                if _c.pq_reader_export_stream(h, self._batch_rows, p, ctypes.byref(err)) != _c.PQ_OK:
                    raise _error(err, self._path)
            return _capsule(_STREAM_NAME, _c.ARROW_ARRAY_STREAM_SIZE, fill)
        finally:
            _c.pq_reader_close(h)  # the stream holds its own reader
            del keep

    def to_reader(self):
        """A pyarrow.RecordBatchReader over a new stream."""
        import pyarrow as pa
        return pa.RecordBatchReader._import_from_c_capsule(self.__arrow_c_stream__())

    def read(self):
        """Everything the scan yields, as a pyarrow.Table."""
        return self.to_reader().read_all()

    @property
    def schema(self):
        """The batches' pyarrow.Schema."""
        import pyarrow as pa
        return pa.Schema._import_from_c_capsule(self.__arrow_c_schema__())

    def __repr__(self):
        return "Scan(%r, %s)" % (self._path, ", ".join("%s=%r" % kv for kv in self._args.items() if kv[1]))


class Dataset:
    """Many Parquet files read as one table (pq_dataset.h): `paths` a file,
    a directory, a glob pattern ("data/*.parquet", "data/**/*.parquet") or a
    list of them; partitioning="hive" reads `key=value` directories as
    columns (int32 when every value is an integer, else string, as
    pyarrow infers them). Every footer is parsed once, in parallel, through
    one metadata cache (`cache`, a MetadataCache; default the dataset's
    own), and the files must share their schema. Output types as for
    read_table. Paths may be URLs: an http(s):// URL is one file; an
    s3:// URL an object, a prefix ("s3://bucket/data/") whose objects are
    listed, or a pattern ("s3://bucket/data/**/*.parquet"); `remote` (a
    dict, as for Reader) sets the endpoint, credentials and retries."""

    def __init__(self, paths, partitioning=None, threads=None, cache=None, memory_limit=None,
                 strings="string", decimals="decimal128", follow_arrow_schema=False, remote=None):
        if isinstance(paths, (str, bytes, os.PathLike)):
            paths = [paths]
        paths = [os.fsencode(p) for p in paths]
        if partitioning not in (None, "hive"):
            raise ValueError("partitioning must be None or 'hive', not %r" % (partitioning,))
        opts = _c.pq_dataset_options()
        _c.pq_dataset_options_init(ctypes.byref(opts))
        opts.partitioning = _c.PQ_PARTITIONING_HIVE if partitioning == "hive" else _c.PQ_PARTITIONING_NONE
        if cache is not None:
            if not isinstance(cache, MetadataCache):
                raise TypeError("cache must be a pqstep.MetadataCache")
            opts.cache = cache._live()
        self._cache = cache
        opts.threads = threads or 0
        if memory_limit is not None:
            opts.reader.memory_limit = memory_limit
        opts.reader.string_type = _string_type(strings)
        opts.reader.decimal_type = _decimal_type(decimals)
        opts.reader.follow_arrow_schema = bool(follow_arrow_schema)
        if remote is not None:
            ro, keep = _remote_struct(remote)
            opts.remote = ctypes.pointer(ro)  # pq_dataset_open copies it
        arr = (ctypes.c_char_p * max(len(paths), 1))(*paths)
        err = _c.pq_error()
        h = _c.pq_dataset_open(arr, len(paths), ctypes.byref(opts), ctypes.byref(err))
        if not h:
            raise _error(err)
        self._handle = h
        self._finalizer = weakref.finalize(self, _c.pq_dataset_close, h)

    def _live(self):
        if not self._finalizer.alive:
            raise ValueError("the dataset is closed")
        return self._handle

    @property
    def files(self):
        """The files, in the dataset's order."""
        h = self._live()
        return [os.fsdecode(_c.pq_dataset_file_path(h, i)) for i in range(_c.pq_dataset_file_count(h))]

    @property
    def partitions(self):
        """{key: "int32" or "string"} in path order."""
        h = self._live()
        return {_c.pq_dataset_partition_name(h, k).decode(): ("int32" if _c.pq_dataset_partition_format(h, k) == b"i"
                                                              else "string")
                for k in range(_c.pq_dataset_partition_count(h))}

    @property
    def schema(self):
        """The files' columns, then the partition keys, as a pyarrow.Schema."""
        import pyarrow as pa
        err = _c.pq_error()
        h = self._live()

        def fill(p):
            if _c.pq_dataset_schema(h, p, ctypes.byref(err)) != _c.PQ_OK:
                raise _error(err)
        return pa.Schema._import_from_c_capsule(_capsule(_SCHEMA_NAME, _c.ARROW_SCHEMA_SIZE, fill))

    def scan(self, columns=None, filter=None, batch_size=None):
        """A DatasetScan: `columns` names (top-level fields, leaf paths,
        partition keys; None: all), `filter` in pqstep's syntax over both
        (its AND terms on partition keys prune whole files), at most
        `batch_size` rows a batch (None: a row group)."""
        return DatasetScan(self, columns, filter, batch_size)

    def to_table(self, columns=None, filter=None):
        """Everything the scan yields, as a pyarrow.Table."""
        return self.scan(columns, filter).read()

    def close(self):
        if self._finalizer.alive:
            self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if not self._finalizer.alive:
            return "Dataset(closed)"
        return "Dataset(%d files, partitions=%r)" % (_c.pq_dataset_file_count(self._handle), self.partitions)


class DatasetScan:
    """A scan of a Dataset as an Arrow C stream (__arrow_c_stream__): files
    pruned by partition values and footer statistics, then read one after
    another, row group by row group. `stats` holds the last stream's
    pruning counts (files, files_pruned_partition, files_pruned_statistics,
    row_groups, row_groups_pruned)."""

    def __init__(self, ds, columns, filter, batch_size):
        if batch_size is not None and (not isinstance(batch_size, int) or isinstance(batch_size, bool) or
                                       batch_size <= 0):
            raise ValueError("batch_size must be a positive int")
        self._ds = ds
        self._columns = None if columns is None else [str(c) for c in columns]
        self._filter = _Filter(filter) if filter is not None else None
        self._batch_rows = batch_size or 0
        self.stats = None

    def __arrow_c_stream__(self, requested_schema=None):
        sc = _c.pq_dataset_scan()
        keep = []
        if self._columns is not None:
            names = [c.encode() for c in self._columns]
            arr = (ctypes.c_char_p * max(len(names), 1))(*names)
            keep.append(arr)
            sc.columns = arr
            sc.columns_len = len(names)
        sc.filter = self._filter.handle if self._filter else None
        sc.batch_rows = self._batch_rows
        st_out = _c.pq_dataset_scan_stats()
        err = _c.pq_error()
        h = self._ds._live()

        def fill(p):
            if _c.pq_dataset_export_stream(h, ctypes.byref(sc), p, ctypes.byref(st_out), ctypes.byref(err)) != _c.PQ_OK:
                raise _error(err)
        cap = _capsule(_STREAM_NAME, _c.ARROW_ARRAY_STREAM_SIZE, fill)
        self.stats = {n: int(getattr(st_out, n)) for n, _ in st_out._fields_}
        del keep
        return cap

    def __arrow_c_schema__(self):
        """The batches' schema, as a PyCapsule "arrow_schema" (from a stream
        made for it, whose get_schema it calls)."""
        stream = self.__arrow_c_stream__()
        p = _capsule_pointer(id(stream), _STREAM_NAME)  # CPython: id() is the object's address
        get_schema = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(
            ctypes.c_void_p.from_address(p).value)
        get_last_error = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p)(ctypes.c_void_p.from_address(p + 16).value)

        def fill(out):
            if get_schema(p, out) != 0:
                msg = get_last_error(p)
                raise Error("io error", (msg or b"no schema").decode("utf-8", "replace"), 0, None)
        try:
            return _capsule(_SCHEMA_NAME, _c.ARROW_SCHEMA_SIZE, fill)
        finally:
            del stream  # the capsule's destructor releases the stream

    @property
    def schema(self):
        """The batches' pyarrow.Schema."""
        import pyarrow as pa
        return pa.Schema._import_from_c_capsule(self.__arrow_c_schema__())

    def to_reader(self):
        import pyarrow as pa
        return pa.RecordBatchReader._import_from_c_capsule(self.__arrow_c_stream__())

    def read(self):
        return self.to_reader().read_all()


def dataset(paths, partitioning=None, threads=None, cache=None, memory_limit=None, strings="string",
            decimals="decimal128", follow_arrow_schema=False, remote=None):
    """Open a Dataset (see there)."""
    return Dataset(paths, partitioning=partitioning, threads=threads, cache=cache, memory_limit=memory_limit,
                   strings=strings, decimals=decimals, follow_arrow_schema=follow_arrow_schema, remote=remote)


def scan(path, columns=None, row_groups=None, filter=None, row_offset=0, row_limit=None, batch_size=None,
         threads=None, validate_utf8=False, memory_limit=None, prune=True, metadata=None, cache=None,
         strings="string", decimals="decimal128", follow_arrow_schema=False, remote=None):
    """A Scan of one file: the arguments as for read_table, batch_size the
    most rows a batch has (None: a row group per batch). Nothing is decoded
    until a consumer pulls from it."""
    with Reader(path, columns=columns, metadata=metadata, cache=cache, remote=remote) as r:
        return r.scan(row_groups=row_groups, filter=filter, row_offset=row_offset, row_limit=row_limit,
                      batch_size=batch_size, threads=threads, validate_utf8=validate_utf8,
                      memory_limit=memory_limit, prune=prune, strings=strings, decimals=decimals,
                      follow_arrow_schema=follow_arrow_schema)


def _export_batches(h, batch_size, path):
    """pq_reader_next_batch until the end: pyarrow.RecordBatch objects."""
    import pyarrow as pa
    err = _c.pq_error()
    schema = None  # every batch of a selection has the same: imported once
    while True:
        abuf = ctypes.create_string_buffer(_c.ARROW_ARRAY_SIZE)
        sbuf = ctypes.create_string_buffer(_c.ARROW_SCHEMA_SIZE) if schema is None else None
        st = _c.pq_reader_next_batch(h, batch_size, ctypes.addressof(abuf),
                                     ctypes.addressof(sbuf) if sbuf is not None else None, ctypes.byref(err))
        if st != _c.PQ_OK:
            raise _error(err, path)
        if not ctypes.c_void_p.from_buffer(abuf, _c.ARROW_ARRAY_SIZE - 16).value:
            return  # release == NULL: end of data
        # pyarrow takes ownership of the structs (it calls release).
        if schema is None:
            batch = pa.RecordBatch._import_from_c(ctypes.addressof(abuf), ctypes.addressof(sbuf))
            schema = batch.schema
            yield batch
        else:
            yield pa.RecordBatch._import_from_c(ctypes.addressof(abuf), schema)


def read_table(path, columns=None, row_groups=None, filter=None, row_offset=0, row_limit=None,
               threads=None, validate_utf8=False, memory_limit=None, prune=True, metadata=None,
               cache=None, strings="string", decimals="decimal128", follow_arrow_schema=False, remote=None,
               device="cpu", device_output=False, device_file=None, mmap=True):
    """Read a file (a path, or an http://, https:// or s3:// URL, with
    `remote` options as for Reader) into a pyarrow.Table: `columns` (leaf indexes or paths)
    of `row_groups` (indexes; default all), rows [row_offset, row_offset +
    row_limit) of those (counted across them in order; pages outside the
    range are skipped through the offset index where the file has one),
    decoded on `threads` threads (None: one per core). validate_utf8: fail
    on a string value that is not UTF-8 (pyarrow passes such bytes on).
    memory_limit: bytes that file contents may make one step hold (a footer,
    a chunk, one chunk's decode; None: pqstep.default_memory_limit(), a
    quarter of physical memory, at most 1 GiB; 0: only what the file's declared sizes
    allow); more is a pqstep.Error with code "memory limit exceeded",
    raised before the allocation. filter: a predicate in pqstep's
    syntax ("l_shipdate >= '1995-01-01' and l_quantity < 24"): row groups
    its statistics rule out are skipped, and only the rows where it is true
    are returned (the row range counts rows before the filter); prune=False
    turns the pruning steps off (the rows are the same), and a set of step
    names ("statistics", "dictionary", "bloom_filter", "page_index") uses
    only those. metadata (a
    FileMetadata) or cache (a MetadataCache): reuse a parsed footer, as for
    Reader. strings: "string" (the default: pa.string() / pa.binary(),
    every value copied) or "string_view" (pa.string_view() /
    pa.binary_view() for top-level columns: a dictionary-encoded value is
    its dictionary entry's view, no bytes copied; what DuckDB, polars and
    DataFusion use), "large_string" (pa.large_string() / pa.large_binary():
    int64 offsets) or "dictionary" (pa.dictionary(pa.int32(), pa.string()):
    a dictionary-encoded column chunk keeps the file's dictionary, no
    string copied). Strings inside structs, lists and maps stay
    pa.string(). decimals: "decimal128" (the default, as pyarrow) or
    "decimal64" (pa.decimal64 for top-level decimals of at most 18 digits:
    8 bytes a value, INT64-stored ones taken without conversion).
    follow_arrow_schema: follow the Arrow schema the writer stored in the
    footer (pyarrow and arrow-rs store one) where it names large strings,
    string views, dictionaries, a timestamp's time zone or a duration;
    elsewhere `strings` and `decimals` apply. device: "cpu" (the
    default: the CPU executor), "cuda" (the device executor's kernels on
    a CUDA device; pqstep.Error without one), "auto" (CUDA when a device is
    usable, else the CPU) or "host-kernels" (the same kernels run on the
    host, as CI checks them); chunks the kernels do not cover are decoded
    on the CPU (Reader.stage_stats("decode"): device_chunks, cpu_chunks;
    Reader.device_note says where and why). With a filter, the kernels
    decode the filter's columns too and the predicate kernel evaluates it
    there, row group by row group (where the columns hold the row group's
    rows as one run, without their leaving the device), and the CPU
    evaluator what the kernel does not cover (device_filtered_groups,
    cpu_filtered_groups). device_output: with the decode on a CUDA device
    (or "host-kernels", standing in for one), the decoded arrays stay in
    device memory, built there by the Arrow kernels where they cover the
    type (Reader.device_batches() hands them out without a copy); the
    table read_table returns is then a host copy. device_file: the whole
    file already in the device's memory (host memory with "host-kernels"),
    so that the kernels decompress and decode its pages from there instead
    of copying them from host memory: an object with
    __cuda_array_interface__ (a CuPy array, say), any buffer (bytes, a
    numpy array: host memory, for "host-kernels"), or an (address, size)
    tuple; its bytes must be the file's (a size that is not the file's is a
    pqstep.Error) and must not change during the read. The footer and page
    headers are still read from `path`; the CPU executor ignores it.
    mmap: a local file is mapped and its pages decoded where they lie in
    the page cache, without pread's copy (the default; the mapping is kept
    for the next reader of the same file, see set_file_map_limit);
    mmap=False reads by pread alone. A file another process truncates while it is mapped
    raises SIGBUS (as with pyarrow's memory_map=True and polars); without
    the map it is a pqstep.Error."""
    import pyarrow as pa
    with Reader(path, columns=columns, metadata=metadata, cache=cache, remote=remote, mmap=mmap) as r:
        md = r.metadata
        cols = r.columns
        schema = []
        batches = list(_decoded_batches(r.path, md, cols, row_groups, row_offset=row_offset,
                                        row_limit=row_limit, threads=threads,
                                        validate_utf8=validate_utf8, memory_limit=memory_limit,
                                        filter=filter, prune=prune, strings=strings,
                                        decimals=decimals, follow_arrow_schema=follow_arrow_schema,
                                        schema_out=schema, device=device, device_output=device_output,
                                        device_file=_device_file(device_file), mmap=mmap))
    if batches:
        return pa.Table.from_batches(batches)
    return schema[0].empty_table()
