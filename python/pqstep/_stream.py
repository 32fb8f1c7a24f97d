"""One read of one file through a C reader of its own, opened over the
footer a Reader parsed (no footer I/O): the batches it decodes
(read_table, Reader.read_row_group, iter_batches, device_batches) and
Scan, the Arrow C stream DuckDB, polars and pyarrow pull."""
import ctypes

from . import _lib as _c
from ._arrow import STREAM_NAME, SCHEMA_NAME, capsule, export_batches, output_schema
from ._decryption import explain_failure
from ._errors import error
from ._options import ReadOptions, batch_rows
from ._remote import open_handle
from ._sources import FileObject, InMemory


def open_reader(path, metadata, options):
    """A C reader over `path` with the parsed `metadata` (a FileMetadata)
    and `options` (a ReadOptions), at the footer stage: (handle, objects to
    keep alive while it is used). row_limit 0 reads no rows: the caller
    stops at the select stage (options.no_rows)."""
    opts, keep = options.to_c(path, metadata=metadata._live())
    err = _c.pq_error()
    h = open_handle(path, opts, err)
    if not h:
        raise error(err, path)
    if _c.pq_reader_advance_to(h, _c.PQ_STAGE_FOOTER, ctypes.byref(err)) != _c.PQ_OK:
        _c.pq_reader_close(h)
        raise explain_failure(error(err, path), options.decryption)
    return h, keep


def decoded_batches(path, metadata, options, batch_size=0, schema_out=None, export=None):
    """Decode the selection `options` makes (its row groups, columns, row
    range and filter) with one reader over `metadata` and yield
    pyarrow.RecordBatch objects of at most `batch_size` rows (0: one per
    row group), or what `export` (default _arrow.export_batches) makes of
    the reader. schema_out (a list) gets the batches' schema appended."""
    h, keep = open_reader(path, metadata, options)
    err = _c.pq_error()
    try:
        stage = _c.PQ_STAGE_SELECT if options.no_rows else _c.PQ_STAGE_DECODE
        st = _c.pq_reader_advance_to(h, stage, ctypes.byref(err))
        if st != _c.PQ_OK:
            raise error(err, path)
        projection = getattr(options.columns, "projection", None)
        if schema_out is not None:
            schema = output_schema(h, path)
            schema_out.append(projection.apply_schema(schema, path) if projection else schema)
        if options.no_rows:
            return
        for b in (export or export_batches)(h, batch_size, path):
            yield projection.apply(b, path) if projection else b
    finally:
        _c.pq_reader_close(h)
        del keep


def _holding(batches, location):
    """`batches` passed through by a generator that holds `location`."""
    for b in batches:
        yield b
    del location


class Scan:
    """A read of one file that Arrow consumers pull: an Arrow C stream
    (the PyCapsule interface: __arrow_c_stream__, __arrow_c_schema__), so
    DuckDB (`duckdb.sql("select ... from scan")`), polars
    (`pl.DataFrame(scan)`), pyarrow (`pa.RecordBatchReader.from_stream(scan)`)
    and DataFusion scan pqstep directly. The choice (columns, row groups,
    row range, filter) is pqstep's: pruning, late materialization and the
    filter run inside pqstep, not in the consumer. Each stream decodes one
    row group at a time as the consumer asks (pq_reader_export_stream), on
    the CPU, reusing the parsed footer; a Scan may be streamed any number
    of times. Made by Reader.scan() or pqstep.scan()."""

    def __init__(self, path, metadata, columns, row_groups=None, filter=None, row_offset=0, row_limit=None,
                 batch_size=None, threads=None, validate_utf8=False, memory_limit=None, prune=True,
                 strings="string", decimals="decimal128", follow_arrow_schema=True, mmap=True):
        self._start(path, metadata, ReadOptions(
            columns=columns, row_groups=row_groups, filter=filter, row_offset=row_offset, row_limit=row_limit,
            threads=threads, validate_utf8=validate_utf8, memory_limit=memory_limit, prune=prune, strings=strings,
            decimals=decimals, follow_arrow_schema=follow_arrow_schema, mmap=mmap), batch_size)

    @classmethod
    def _with_options(cls, path, metadata, options, batch_size=None):
        """A Scan of `path` over the parsed `metadata` with `options` (a
        ReadOptions: what Reader.scan and pqstep.scan make)."""
        self = cls.__new__(cls)
        self._start(path, metadata, options, batch_size)
        return self

    def _start(self, path, metadata, options, batch_size):
        self._batch_rows = batch_rows(batch_size)
        if options.no_rows:
            raise ValueError("row_limit must be positive (None: no limit)")
        self._path = path
        self._metadata = metadata
        self._options = options
        options.parse_filter(path)  # a syntax error now, not at the first pull

    def __arrow_c_schema__(self):
        """The schema of the stream's batches, as a PyCapsule "arrow_schema"."""
        h, keep = open_reader(self._path, self._metadata, self._options)
        try:
            err = _c.pq_error()
            if _c.pq_reader_advance_to(h, _c.PQ_STAGE_SELECT, ctypes.byref(err)) != _c.PQ_OK:
                raise error(err, self._path)

            def fill(p):
                if _c.pq_reader_output_schema(h, p, ctypes.byref(err)) != _c.PQ_OK:
                    raise error(err, self._path)
            projection = getattr(self._options.columns, "projection", None)
            if projection:  # VARIANT paths: the schema with their columns
                import pyarrow as pa
                schema = pa.Schema._import_from_c_capsule(capsule(SCHEMA_NAME, _c.ARROW_SCHEMA_SIZE, fill))
                return projection.apply_schema(schema, self._path).__arrow_c_schema__()
            return capsule(SCHEMA_NAME, _c.ARROW_SCHEMA_SIZE, fill)
        finally:
            _c.pq_reader_close(h)
            del keep

    def __arrow_c_stream__(self, requested_schema=None):
        """A new stream over the scan, as a PyCapsule "arrow_array_stream".
        requested_schema is not followed (the protocol lets a producer
        ignore it): pick the types with strings=, decimals= and
        follow_arrow_schema=."""
        h, keep = open_reader(self._path, self._metadata, self._options)
        try:
            err = _c.pq_error()

            def fill(p):
                if _c.pq_reader_export_stream(h, self._batch_rows, p, ctypes.byref(err)) != _c.PQ_OK:
                    raise error(err, self._path)
            stream = capsule(STREAM_NAME, _c.ARROW_ARRAY_STREAM_SIZE, fill)
        finally:
            _c.pq_reader_close(h)  # the stream holds its own reader
            del keep
        projection = getattr(self._options.columns, "projection", None)
        in_python = isinstance(self._path, (InMemory, FileObject))
        if not projection and not in_python:
            return stream
        # VARIANT paths: each batch's paths cut from it as it passes. Bytes
        # in memory or a file object: the stream's reader reads them, so
        # they live as long as the stream (its batches own their bytes).
        import pyarrow as pa
        source = pa.RecordBatchReader._import_from_c_capsule(stream)
        path = self._path
        if not projection:
            out = pa.RecordBatchReader.from_batches(source.schema, _holding(source, path))
        else:
            out = pa.RecordBatchReader.from_batches(projection.apply_schema(source.schema, path),
                                                    (projection.apply(b, path) for b in _holding(source, path)))
        return out.__arrow_c_stream__()

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
        opts = repr(self._options)[len("ReadOptions("):-1]
        extra = ", batch_size=%d" % self._batch_rows if self._batch_rows else ""
        return "Scan(%r%s%s)" % (self._path, ", " + opts if opts else "", extra)
