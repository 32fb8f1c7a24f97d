"""Many Parquet files read as one table: Dataset (a pq_dataset), its scans
(DatasetScan, an Arrow C stream) and dataset()."""
import ctypes
import os
import weakref

from . import _lib as _c
from ._arrow import SCHEMA_NAME, STREAM_NAME, capsule, capsule_pointer
from ._decryption import explain_failure
from ._errors import Error, error
from ._metadata import MetadataCache
from ._options import Filter, ReadOptions, batch_rows
from ._remote import remote_struct


def _dataset_path(p):
    """A dataset's path or URL as the C library takes it. Bytes in memory
    and file objects are one file's, read by read_table, Reader or scan:
    a dataset lists and reopens its files by name."""
    if isinstance(p, (str, os.PathLike)):
        return os.fsencode(p)
    raise TypeError("a dataset's files are paths or URLs, not %s: read one file's bytes or file object with "
                    "pqstep.read_table, Reader or scan" % type(p).__name__)


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
    dict, as for Reader) sets the endpoint, credentials and retries.
    decryption (a pqstep.Decryption) holds the keys of encrypted files, as
    for read_table; every file gets the same keys (external key material
    is not looked for beside each file: give kms_unwrap files whose key
    material is in their key metadata, or give the keys). row_index: the
    name of an int64 column of each row's row number in its own file,
    after the file's columns (and before the partition keys).
    variant_storage: as for read_table."""

    def __init__(self, paths, partitioning=None, threads=None, cache=None, memory_limit=None,
                 strings="string", decimals="decimal128", follow_arrow_schema=True, remote=None, int96_unit="ns",
                 decryption=None, row_index=None, variant_storage=False):
        options = ReadOptions(threads=threads, memory_limit=memory_limit, strings=strings, decimals=decimals,
                              follow_arrow_schema=follow_arrow_schema, int96_unit=int96_unit, decryption=decryption,
                              row_index=row_index, variant_storage=variant_storage)
        if isinstance(paths, (str, bytes, bytearray, memoryview, os.PathLike)) or hasattr(paths, "read") \
                or hasattr(paths, "read_at"):
            paths = [paths]  # one (a file's bytes or file object is refused below)
        paths = [_dataset_path(p) for p in paths]
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
        # Each file's reader options (pq_dataset_options.reader); the
        # threads are the dataset's: footers parsed in parallel, and each
        # file's decode.
        reader, keep = options.to_c()
        keep.append(reader)
        opts.reader = ctypes.pointer(reader)
        opts.threads = options.threads or 0
        if remote is not None:
            ro, remote_keep = remote_struct(remote)
            keep += remote_keep
            opts.remote = ctypes.pointer(ro)  # pq_dataset_open copies it
        arr = (ctypes.c_char_p * max(len(paths), 1))(*paths)
        err = _c.pq_error()
        h = _c.pq_dataset_open(arr, len(paths), ctypes.byref(opts), ctypes.byref(err))
        # pq_dataset_open copied the options and keys; a key retriever is
        # called back for as long as the dataset reads, so it stays alive.
        self._keep = keep if decryption is not None else None
        del keep
        if not h:
            raise explain_failure(error(err), decryption)
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
                raise error(err)
        return pa.Schema._import_from_c_capsule(capsule(SCHEMA_NAME, _c.ARROW_SCHEMA_SIZE, fill))

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
        self._batch_rows = batch_rows(batch_size)
        self._ds = ds
        # names may be paths into VARIANT columns ("v.a.b"): the C scan
        # reads their leaves and cuts their values from each batch
        self._columns = None if columns is None else [str(c) for c in columns]
        self._filter = Filter(filter) if filter is not None else None
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
                raise error(err)
        cap = capsule(STREAM_NAME, _c.ARROW_ARRAY_STREAM_SIZE, fill)
        self.stats = {n: int(getattr(st_out, n)) for n, _ in st_out._fields_}
        del keep
        return cap

    def __arrow_c_schema__(self):
        """The batches' schema, as a PyCapsule "arrow_schema" (from a stream
        made for it, whose get_schema it calls)."""
        stream = self.__arrow_c_stream__()
        p = capsule_pointer(id(stream), STREAM_NAME)  # CPython: id() is the object's address
        get_schema = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(
            ctypes.c_void_p.from_address(p).value)
        get_last_error = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p)(ctypes.c_void_p.from_address(p + 16).value)

        def fill(out):
            if get_schema(p, out) != 0:
                msg = get_last_error(p)
                raise Error("io error", (msg or b"no schema").decode("utf-8", "replace"), 0, None)
        try:
            return capsule(SCHEMA_NAME, _c.ARROW_SCHEMA_SIZE, fill)
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
            decimals="decimal128", follow_arrow_schema=True, remote=None, int96_unit="ns", decryption=None,
            row_index=None, variant_storage=False):
    """Open a Dataset (see there)."""
    return Dataset(paths, partitioning=partitioning, threads=threads, cache=cache, memory_limit=memory_limit,
                   strings=strings, decimals=decimals, follow_arrow_schema=follow_arrow_schema, remote=remote,
                   int96_unit=int96_unit, decryption=decryption, row_index=row_index,
                   variant_storage=variant_storage)
