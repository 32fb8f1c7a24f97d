"""ReadOptions: every option of a read of one file, checked once, and the
one place that fills a C pq_reader_options (and the pq_selection a Reader
goes back to the select stage with).

Every entry point (read_table, Reader, scan, dataset, pqstep.dask through
Reader) turns its keyword arguments into one ReadOptions and hands that
object down; a Reader keeps its own and derives each read's from it with
replace(). Where the footer comes from (a parsed FileMetadata, footer
bytes, a MetadataCache) is not an option of the read but of the open:
to_c() takes it as arguments.
"""
import ctypes
import operator
import os
import weakref

from . import _lib as _c
from . import _decryption
from . import _filters
from ._errors import error, invalid_argument

STRING_TYPES = {"string": 0, "string_view": 1, "large_string": 2, "dictionary": 3}
DECIMAL_TYPES = {"decimal128": 0, "decimal64": 1}
INT96_UNITS = {"ns": 3, "us": 2, "ms": 1, "s": 4}  # pq_time_unit: PQ_UNIT_NANOS, _MICROS, _MILLIS, _SECONDS
DEVICES = {"cpu": 0, "cuda": 1, "auto": 2, "host-kernels": 3}  # 3: test-only, device/choice.h
PRUNE_STEPS = {"statistics": 1, "dictionary": 2, "bloom_filter": 4, "page_index": 8}

_U32 = 0xFFFFFFFF
_U64 = 0xFFFFFFFFFFFFFFFF


class Filter:
    """A predicate parsed by the library (pq_expr_parse), freed with the
    object. A reader copies it when it opens, so one Filter may serve many."""

    def __init__(self, text, path=None):
        text = _filters.to_text(text)
        err = _c.pq_error()
        self.handle = _c.pq_expr_parse(text.encode("utf-8"), ctypes.byref(err))
        if not self.handle:
            raise error(err, path)
        self._finalizer = weakref.finalize(self, _c.pq_expr_free, self.handle)


# ---------------------------------------------------------------------------
# Checks: each takes the option's name and the value given, and returns the
# value as ReadOptions keeps it or raises naming the option.
# ---------------------------------------------------------------------------

def count(name, value, none_ok=True, limit=_U64):
    """A non-negative int of at most `limit` (None where none_ok)."""
    if value is None and none_ok:
        return None
    try:
        n = -1 if isinstance(value, bool) else operator.index(value)
    except TypeError:
        n = -1
    if n < 0 or n > limit:
        raise ValueError("%s must be a non-negative int%s, not %r"
                         % (name, " below 2**32" if limit == _U32 else "", value))
    return n


def batch_rows(batch_size, none_ok=True):
    """batch_size= (None where none_ok: a row group per batch) as the row
    count the C export functions take (0 for None)."""
    if batch_size is None and none_ok:
        return 0
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
        raise ValueError("batch_size must be a positive int")
    return batch_size


def _flag(name, value):
    return bool(value)


def _choice(table):
    def check(name, value):
        if value not in table:
            # strings and decimals list their choices sorted, device in order
            # (the messages these options always gave)
            names = table if table is DEVICES else sorted(table)
            raise ValueError("%s must be one of %s, not %r" % (name, ", ".join(names), value))
        return value
    return check


class LeafTuple(tuple):
    """Leaf indexes with the Projection of the VARIANT paths they serve."""

    def __new__(cls, leaves, projection):
        self = super().__new__(cls, leaves)
        self.projection = projection
        return self


def _indexes(what):
    def check(name, value):
        if value is None:
            return None
        try:
            if isinstance(value, (str, bytes)):
                raise TypeError
            values = list(value)
        except TypeError:
            raise TypeError("%s must be a list of %s indexes, not %r" % (name, what, value)) from None
        out = []
        for v in values:
            try:
                i = -1 if isinstance(v, bool) else operator.index(v)
            except TypeError:
                i = -1
            if i < 0 or i > _U32:
                raise invalid_argument("%s index out of range" % what)
            out.append(i)
        if getattr(value, "projection", None) is not None:  # VARIANT paths among the names
            return LeafTuple(out, value.projection)
        return tuple(out)
    return check


def _filter(name, value):
    """A string in pqstep's syntax, or pyarrow's filters= form written as one."""
    return _filters.to_text(value)


def _prune(name, value):
    """True (every step), False or None (none), or the names of the steps
    to use ("statistics", "dictionary", "bloom_filter", "page_index")."""
    if value is True:
        return True
    if value is False or value is None:
        return False
    try:
        steps = frozenset(value)
    except TypeError:
        raise TypeError("prune must be True, False or a set of step names (%s), not %r"
                        % (", ".join(PRUNE_STEPS), value)) from None
    unknown = steps - set(PRUNE_STEPS)
    if unknown:
        raise ValueError("unknown pruning step(s) %s (one of %s)" % (sorted(unknown), sorted(PRUNE_STEPS)))
    return steps


def device_file(obj):
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


def _row_index(value):
    if not isinstance(value, str) or not value:
        raise TypeError("row_index: the row index column's name (a non-empty str), not %r" % (value,))
    return value


def deleted_rows(value):
    """A deletion vector as a read-only numpy uint64 array of file row
    numbers: from row numbers (a sequence, a numpy or pyarrow integer
    array or chunked array) or a bitmap (a numpy or pyarrow boolean array:
    True at each deleted row's number)."""
    import numpy as np
    if value is None:
        return None
    try:
        import pyarrow as pa
        if isinstance(value, (pa.Array, pa.ChunkedArray)):
            if value.null_count:
                raise ValueError("deleted_rows: a null row number")
            value = value.to_numpy(zero_copy_only=False)
    except ImportError:
        pass
    arr = np.asarray(value)
    if arr.dtype == np.bool_:
        arr = np.flatnonzero(arr)
    elif arr.size == 0:
        arr = arr.astype(np.uint64)
    elif not np.issubdtype(arr.dtype, np.integer):
        raise TypeError("deleted_rows: row numbers (integers) or a boolean bitmap, not %s" % arr.dtype)
    if arr.ndim != 1:
        raise ValueError("deleted_rows: a one-dimensional array")
    if arr.size and arr.min() < 0:
        raise ValueError("deleted_rows: a negative row number")
    out = np.ascontiguousarray(arr, dtype=np.uint64)
    out.setflags(write=False)
    return out


# option: (default, check, the pq_reader_options fields it sets). The
# defaults are the public functions' and pq_reader_options_init's; to_c()
# below sets each field.
OPTIONS = {
    "columns": (None, _indexes("column"), ("columns", "columns_len")),
    "row_groups": (None, _indexes("row group"), ("row_groups", "row_groups_len")),
    "filter": (None, _filter, ("filter",)),
    "row_offset": (0, lambda n, v: count(n, v) or 0, ("row_offset",)),
    "row_limit": (None, count, ("row_limit",)),
    "threads": (None, lambda n, v: count(n, v, limit=_U32), ("threads",)),
    "validate_utf8": (False, _flag, ("validate_utf8",)),
    "memory_limit": (None, count, ("memory_limit",)),
    "prune": (True, _prune, ("prune_disable",)),
    "prune_only": (False, _flag, ("prune_only",)),
    "strings": ("string", _choice(STRING_TYPES), ("string_type",)),
    "decimals": ("decimal128", _choice(DECIMAL_TYPES), ("decimal_type",)),
    "follow_arrow_schema": (True, _flag, ("follow_arrow_schema",)),
    "int96_unit": ("ns", _choice(INT96_UNITS), ("int96_unit",)),
    "decryption": (None, _decryption.check, ("decryption",)),
    "deleted_rows": (None, lambda n, v: deleted_rows(v), ("deleted_rows", "deleted_rows_len")),
    "row_index": (None, lambda n, v: _row_index(v), ("row_index_name",)),
    "variant_storage": (False, _flag, ("variant_storage",)),
    "device": ("cpu", _choice(DEVICES), ("device",)),
    "device_output": (False, _flag, ("device_output",)),
    "device_file": (None, lambda n, v: device_file(v), ("device_file", "device_file_size")),
    "mmap": (True, _flag, ("no_mmap",)),
    "coalescing": (True, _flag, ("no_coalescing",)),
    "coalesce_gap": (0, lambda n, v: count(n, v, none_ok=False, limit=_U32), ("coalesce_gap",)),
    "coalesce_max": (0, lambda n, v: count(n, v, none_ok=False), ("coalesce_max",)),
    "verify_checksums": (False, _flag, ("verify_checksums",)),
    "footer_read_size": (0, lambda n, v: count(n, v, none_ok=False, limit=_U32) if v else 0,
                         ("footer_read_size",)),
}

# The pq_reader_options fields that say where the footer comes from: set by
# to_c() from its arguments, not from options.
FOOTER_SOURCE_FIELDS = ("metadata", "footer_bytes", "footer_bytes_len", "cache", "cache_key", "cache_key_len")


class ReadOptions:
    """Every option of a read of one file, checked when given; immutable
    (replace() makes a changed copy), so readers and scans share one.

    columns        leaf indexes (None: all); a Reader resolves paths to them
    row_groups     row group indexes (None: all)
    filter         a predicate in pqstep's syntax (None: every row)
    row_offset, row_limit
                   rows [row_offset, row_offset + row_limit) of the selected
                   row groups (row_limit None: no limit; 0: no rows)
    threads        decode threads (None: one per core)
    validate_utf8  fail on a string value that is not UTF-8
    memory_limit   bytes one step may hold (None: pqstep.default_memory_limit())
    prune          True, False or the pruning steps to use
    prune_only     deliver every row of the row groups pruning keeps
    strings, decimals, follow_arrow_schema, int96_unit
                   the output types
    decryption     a pqstep.Decryption: the keys of an encrypted file
    deleted_rows   a deletion vector: file row numbers never delivered
                   (ints, an integer array, or a boolean bitmap)
    row_index      the name of an int64 column of file row numbers added
                   after the others (None: none)
    device, device_output, device_file
                   where the decode runs and its output stays
    mmap           map a local file (False: pread alone)
    coalescing, coalesce_gap, coalesce_max
                   joining of nearby byte ranges (0: the library's 8 KiB and
                   32 MiB)
    verify_checksums  check the pages' CRC-32
    footer_read_size  bytes read from the end for the footer (0: 64 KiB)

    as read_table documents them. A bad value raises ValueError or
    TypeError naming the option (an index outside 0..2**32-1: pqstep.Error
    "invalid argument", as the library reports indexes). Values are kept
    as checked: indexes as tuples, prune as True, False or a frozenset,
    device_file as (address, size, owner).
    """

    __slots__ = tuple(OPTIONS)

    def __init__(self, **options):
        for name, (default, check, _) in OPTIONS.items():
            value = options.pop(name, default)
            object.__setattr__(self, name, value if value is default else check(name, value))
        if options:
            raise TypeError("unknown read option(s) %s (one of %s)"
                            % (", ".join(sorted(options)), ", ".join(OPTIONS)))

    def replace(self, **changes):
        """A copy with `changes` (checked as in the constructor; a value that
        is already this object's is kept as it is)."""
        new = object.__new__(ReadOptions)
        for name in OPTIONS:
            object.__setattr__(new, name, getattr(self, name))
        for name, value in changes.items():
            if name not in OPTIONS:
                raise TypeError("unknown read option %r (one of %s)" % (name, ", ".join(OPTIONS)))
            if value is not getattr(self, name):
                value = OPTIONS[name][1](name, value)
            object.__setattr__(new, name, value)
        return new

    def without_selection(self):
        """These options with the selection (row groups, row range, filter,
        pruning) at their defaults: what a Reader keeps, each read giving
        its own."""
        return self.replace(row_groups=None, filter=None, row_offset=0, row_limit=None, prune=True)

    def items(self):
        """(name, value) of every option, in a fixed order."""
        return tuple((name, getattr(self, name)) for name in OPTIONS)

    def __setattr__(self, name, value):
        raise AttributeError("ReadOptions is immutable: use replace(%s=...)" % name)

    def __eq__(self, other):
        # device_file compares by (address, size): its owner may be an array
        # whose == is elementwise
        def key(o):
            return tuple((n, v[:2] if n == "device_file" and v is not None else
                          v.tobytes() if n == "deleted_rows" and v is not None else v) for n, v in o.items())
        return isinstance(other, ReadOptions) and key(self) == key(other)

    __hash__ = None

    def __reduce__(self):
        # pickled as its checked values (pqstep.dask ships one to workers)
        return (_restore, (self.items(),))

    def __repr__(self):
        changed = ["%s=<%d rows>" % (n, len(v)) if n == "deleted_rows" else "%s=%r" % (n, v)
                   for n, v in self.items() if v is not OPTIONS[n][0] and (n == "deleted_rows" or v != OPTIONS[n][0])]
        return "ReadOptions(%s)" % ", ".join(changed)

    @property
    def no_rows(self):
        """row_limit 0: a read of no rows (the select stage only)."""
        return self.row_limit == 0

    @property
    def prune_disable(self):
        """prune as the PQ_PRUNE_* bits of the steps to skip."""
        if self.prune is True:
            return 0
        if self.prune is False:
            return _c.PQ_PRUNE_ALL
        return sum(bit for name, bit in PRUNE_STEPS.items() if name not in self.prune)

    def parse_filter(self, path=None):
        """The filter parsed (a Filter; None without one): a syntax error is
        a pqstep.Error about `path`."""
        return None if self.filter is None else Filter(self.filter, path)

    def to_c(self, path=None, metadata=None, footer_bytes=None, cache=None, into=None):
        """A pq_reader_options with every option set (`into`, a
        pq_reader_options, is filled instead of a new one): (struct, objects
        to keep alive while the library reads the struct). The footer
        source: metadata (a pq_metadata handle), footer_bytes (bytes), cache
        (a pq_metadata_cache handle). `path` is named in the error of a
        filter that does not parse."""
        o = _c.pq_reader_options() if into is None else into
        _c.pq_reader_options_init(ctypes.byref(o))
        keep = []

        def u32s(values):
            arr = (ctypes.c_uint32 * max(len(values), 1))(*values)
            keep.append(arr)
            return ctypes.cast(arr, ctypes.POINTER(ctypes.c_uint32)), len(values)

        if metadata is not None:
            o.metadata = metadata
        if footer_bytes is not None:
            data = bytes(footer_bytes)
            buf = ctypes.create_string_buffer(data, len(data))
            keep.append(buf)
            o.footer_bytes = ctypes.cast(buf, ctypes.c_void_p)
            o.footer_bytes_len = len(data)
        if cache is not None:
            o.cache = cache
        o.footer_read_size = self.footer_read_size
        if self.columns is not None:
            o.columns, o.columns_len = u32s(self.columns)
        if self.memory_limit is not None:
            o.memory_limit = self.memory_limit
        if self.row_groups is not None:
            o.row_groups, o.row_groups_len = u32s(self.row_groups)
        o.verify_checksums = self.verify_checksums
        o.row_offset = self.row_offset
        o.row_limit = self.row_limit or 0  # 0 there is "no limit"; no_rows readers stop at the select stage
        o.threads = self.threads or 0
        o.validate_utf8 = self.validate_utf8
        flt = self.parse_filter(path)
        if flt is not None:
            keep.append(flt)
            o.filter = flt.handle
        o.prune_disable = self.prune_disable
        o.prune_only = self.prune_only
        o.coalesce_gap = self.coalesce_gap
        o.coalesce_max = self.coalesce_max
        o.no_coalescing = not self.coalescing
        o.no_mmap = not self.mmap
        o.string_type = STRING_TYPES[self.strings]
        o.decimal_type = DECIMAL_TYPES[self.decimals]
        o.follow_arrow_schema = self.follow_arrow_schema
        o.variant_storage = self.variant_storage
        o.int96_unit = INT96_UNITS[self.int96_unit]
        if self.decryption is not None:  # the keys; external key material is looked for beside `path`
            d, dkeep = self.decryption.to_c(path if isinstance(path, (str, bytes, os.PathLike)) else None)
            keep.extend(dkeep)
            keep.append(d)
            o.decryption = ctypes.cast(ctypes.pointer(d), ctypes.c_void_p)
        if self.deleted_rows is not None and len(self.deleted_rows):
            keep.append(self.deleted_rows)
            o.deleted_rows = self.deleted_rows.ctypes.data
            o.deleted_rows_len = len(self.deleted_rows)
        if self.row_index is not None:
            name = ctypes.create_string_buffer(self.row_index.encode())
            keep.append(name)
            o.row_index_name = ctypes.cast(name, ctypes.c_char_p)
        o.device = DEVICES[self.device]
        o.device_output = self.device_output
        if self.device_file is not None:  # (address, size, owner): the owner stays alive with the reader
            o.device_file, o.device_file_size = self.device_file[0], self.device_file[1]
            keep.append(self.device_file)
        return o, keep

    def selection(self, path=None):
        """The pq_selection a Reader goes back to the select stage with
        (pq_reader_reselect): row groups, columns, row range, filter,
        pruning. (struct, objects to keep alive while it is used)."""
        sel = _c.pq_selection()
        keep = []
        if self.row_groups is not None:
            arr = (ctypes.c_uint32 * max(len(self.row_groups), 1))(*self.row_groups)
            keep.append(arr)
            sel.row_groups = ctypes.cast(arr, ctypes.POINTER(ctypes.c_uint32))
            sel.row_groups_len = len(self.row_groups)
        if self.columns is not None:
            arr = (ctypes.c_uint32 * max(len(self.columns), 1))(*self.columns)
            keep.append(arr)
            sel.columns = ctypes.cast(arr, ctypes.POINTER(ctypes.c_uint32))
            sel.columns_len = len(self.columns)
        sel.row_offset = self.row_offset
        sel.row_limit = self.row_limit or 0
        flt = self.parse_filter(path)
        if flt is not None:
            keep.append(flt)
            sel.filter = flt.handle
        sel.prune_disable = self.prune_disable
        return sel, keep


def _restore(items):
    """A ReadOptions from items() (unpickling): the values were checked."""
    new = object.__new__(ReadOptions)
    for name, value in items:
        object.__setattr__(new, name, value)
    return new
