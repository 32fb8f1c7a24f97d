"""Parsed footers: FileMetadata (a pq_metadata reference), its Column and
RowGroup summaries, and MetadataCache (a pq_metadata_cache)."""
import ctypes
import weakref

from . import _lib as _c
from ._errors import error


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
        # What the library set aside to read the file (pq_metadata_warning):
        # "column 'a': annotation INT_8 cannot apply to INT64 storage: read as int64"
        self.warnings = [_text(_c.pq_metadata_warning(handle, i))
                         for i in range(_c.pq_metadata_warning_count(handle))]
        self.memory_size = int(_c.pq_metadata_memory_size(handle))

    @property
    def statistics_note(self):
        """What pruning sets aside of the file's statistics
        (pq_metadata_statistics_note): None, or e.g. "min_value/max_value
        and page-index bounds unused: the file names no column order"."""
        note = ctypes.create_string_buffer(256)
        return _text(note.value) if _c.pq_metadata_statistics_note(self._live(), note, 256) else None

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
    def from_footer_bytes(cls, data, decryption=None, path=None):
        """Parse footer bytes (the Thrift FileMetaData, as footer_bytes()
        returns) without any file: one parse, no I/O. An encrypted file's
        footer bytes stay encrypted: `decryption` (a pqstep.Decryption)
        gives its keys; `path`, the file's, is where external key material
        is looked for (beside it)."""
        data = bytes(data)
        err = _c.pq_error()
        if decryption is not None:
            from ._decryption import check
            d, keep = check("decryption", decryption).to_c(path)
            h = _c.pq_metadata_parse_decrypt(data, len(data), None, ctypes.byref(d), ctypes.byref(err))
            del keep
        else:
            h = _c.pq_metadata_parse(data, len(data), None, ctypes.byref(err))
        if not h:
            raise error(err)
        return cls(h)

    def _live(self):
        if not self._finalizer.alive:
            raise ValueError("FileMetadata is closed")
        return self._handle

    @property
    def encryption(self):
        """How the file is encrypted: None for a plaintext file, else a dict
        (algorithm "AES_GCM_V1" or "AES_GCM_CTR_V1", footer_encrypted,
        signature_verified, aad_prefix_stored, encrypted_columns,
        keyless_columns: of those, the ones whose key was not given)."""
        e = _c.pq_file_encryption()
        _c.pq_metadata_encryption(self._live(), ctypes.byref(e))
        if not e.algorithm:
            return None
        return {"algorithm": {1: "AES_GCM_V1", 2: "AES_GCM_CTR_V1"}.get(e.algorithm, "unknown"),
                "footer_encrypted": bool(e.footer_encrypted), "signature_verified": bool(e.signature_verified),
                "aad_prefix_stored": bool(e.aad_prefix_stored), "encrypted_columns": int(e.encrypted_columns),
                "keyless_columns": int(e.keyless_columns)}

    def footer_bytes(self):
        """The raw footer (Thrift FileMetaData, without length and magic)."""
        n = ctypes.c_size_t(0)
        p = _c.pq_metadata_footer_bytes(self._live(), ctypes.byref(n))
        return ctypes.string_at(p, n.value) if p and n.value else b""

    def find_leaves(self, path):
        """Leaf indexes `path` names: its leaf, or every leaf under the group
        of that path (pq_metadata_find_leaves); [] when none."""
        h, b = self._live(), path.encode("utf-8")
        n = int(_c.pq_metadata_find_leaves(h, b, None, 0))
        out = (ctypes.c_uint32 * max(n, 1))()
        _c.pq_metadata_find_leaves(h, b, out, n)
        return [int(out[k]) for k in range(n)]

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
            raise error(err)
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
