"""Reader (one file's C reader, advanced to the footer stage on open, and
the reads made with its parsed footer), and the functions that open one:
read_metadata, read_table, scan."""
import ctypes
import os
import weakref

from . import _filters
from . import _lib as _c
from ._arrow import device_batches as _device_batches, export_batches, output_schema
from ._decryption import explain_failure
from ._errors import error, invalid_argument, warn_file
from ._metadata import FileMetadata, MetadataCache
from ._options import ReadOptions, batch_rows
from ._remote import is_url, location, open_handle, url
from ._stream import Scan, decoded_batches
from ._variant_paths import resolve as resolve_columns

# Stage names as the library spells them ("init", "footer", ...), by value.
STAGE_NAMES = [_c.pq_stage_name(i).decode() for i in range(_c.PQ_STAGE_COUNT)]


def _stage_value(stage):
    if isinstance(stage, int):
        if 0 <= stage < _c.PQ_STAGE_COUNT:
            return stage
    elif stage in STAGE_NAMES:
        return STAGE_NAMES.index(stage)
    raise ValueError("unknown stage %r (one of %s)" % (stage, ", ".join(STAGE_NAMES)))


def _close_over(handle, location):
    """Close a reader handle; `location` (bytes in memory, a file object)
    is held until then, as the reader reads it."""
    _c.pq_reader_close(handle)
    del location


class Reader:
    """A reader over one file, advanced to the footer stage on open.

    path         a local path; an http://, https:// or s3:// URL (see
                 remote); the whole file's bytes (bytes, bytearray,
                 memoryview, mmap.mmap, pyarrow.Buffer: read where they
                 lie, held while a reader or stream over them lives, and
                 not to be changed meanwhile); or a binary file object
                 (io.BytesIO: its buffer; open(path, "rb"): by its path;
                 a pyarrow NativeFile or any seekable file object: read at
                 offsets, from its start, whatever its position). See
                 python/pqstep/_sources.py. Bytes are a file's contents,
                 never a path: give a path as str or os.PathLike.

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
                 column chunks) or dotted paths (of a leaf, of a group: all its
                 leaves, or into a VARIANT); kept for the later stages
    footer_read_size  bytes read from the end of the file to catch the
                 footer in one read (0: the library's 64 KiB; for a URL,
                 the remote option tail_bytes unless that is given)
    memory_limit bytes one step may hold, the footer's included (see
                 read_table)
    threads      decode threads of the reads (None: one per core)
    validate_utf8  fail on a string value that is not UTF-8 (see read_table)
    strings      "string", "string_view", "large_string" or "dictionary":
                 the type of string and binary columns in what the reader
                 returns (see read_table)
    decimals     "decimal128" or "decimal64" (see read_table)
    follow_arrow_schema  follow the Arrow types the writer stored (default
                 True; see read_table)
    int96_unit   "ns" (default), "us", "ms" or "s": the timestamp unit of
                 INT96 columns (see read_table)
    device       "cpu" (default), "cuda", "auto" or "host-kernels": where
                 the decode stage runs (see read_table); scans decode on
                 the CPU
    device_output  keep the decoded arrays in device memory (see
                 read_table): device_batches() then hands out slices of
                 them without a copy
    device_file  the whole file already in device memory, decoded from
                 there (see read_table); kept alive by the reader
    mmap         map a local file and decode its pages where they lie
                 (default True; see read_table)
    decryption   a pqstep.Decryption: the keys of an encrypted file (see
                 read_table)
    deleted_rows a deletion vector (see read_table)
    row_index    the name of a file row number column (see read_table)
    variant_storage  read shredded VARIANT columns as stored (see read_table)
    At most one of metadata and footer_bytes. Bad option values raise
    ValueError or TypeError naming the option.
    """

    def __init__(self, path, metadata=None, cache=None, footer_bytes=None, columns=None,
                 footer_read_size=0, memory_limit=None, threads=None, validate_utf8=False,
                 strings="string", decimals="decimal128", follow_arrow_schema=True, remote=None,
                 device="cpu", device_output=False, device_file=None, mmap=True, int96_unit="ns", decryption=None,
                 deleted_rows=None, row_index=None, variant_storage=False):
        options = ReadOptions(footer_read_size=footer_read_size, memory_limit=memory_limit, threads=threads,
                              validate_utf8=validate_utf8, strings=strings, decimals=decimals,
                              follow_arrow_schema=follow_arrow_schema, device=device, device_output=device_output,
                              device_file=device_file, mmap=mmap, int96_unit=int96_unit, decryption=decryption,
                              deleted_rows=deleted_rows, row_index=row_index, variant_storage=variant_storage)
        self._start(path, options, columns, metadata, cache, footer_bytes, remote)

    @classmethod
    def _with_options(cls, path, options, columns=None, metadata=None, cache=None, footer_bytes=None,
                      remote=None):
        """A Reader opened with `options` (a ReadOptions) rather than
        keyword arguments: what read_table, scan and pqstep.dask use. The
        reader keeps them without their selection (row groups, row range,
        filter, pruning), which each read gives."""
        self = cls.__new__(cls)
        self._start(path, options, columns, metadata, cache, footer_bytes, remote)
        return self

    def _start(self, path, options, columns, metadata, cache, footer_bytes, remote):
        self._handle = None
        self._md = None
        self.path = location(path, remote, options.footer_read_size)
        if metadata is not None and not isinstance(metadata, FileMetadata):
            raise TypeError("metadata must be a pqstep.FileMetadata")
        if cache is not None and not isinstance(cache, MetadataCache):
            raise TypeError("cache must be a pqstep.MetadataCache")
        self._cache = cache
        names = projection = None
        if columns is not None:
            columns = list(columns)
            if all(isinstance(c, int) and not isinstance(c, bool) for c in columns):
                projection = columns  # the footer parse decodes only their chunks
            else:
                names = columns
        options = options.without_selection()
        opts, keep = options.replace(columns=projection).to_c(
            self.path, metadata=metadata._live() if metadata is not None else None, footer_bytes=footer_bytes,
            cache=cache._live() if cache is not None else None)
        err = _c.pq_error()
        h = open_handle(self.path, opts, err)
        if not h:
            raise error(err, self.path)
        self._handle = h
        self._finalizer = weakref.finalize(self, _close_over, h, self.path)
        st = _c.pq_reader_advance_to(h, _c.PQ_STAGE_FOOTER, ctypes.byref(err))
        del keep  # the footer stage is done: the library holds what it needs
        if st != _c.PQ_OK:
            self.close()
            raise explain_failure(error(err, self.path), options.decryption)
        self.columns = projection if names is None else self._resolve(names)
        # What every later read starts from (ReadOptions.replace).
        self._options = options.replace(columns=self.columns)
        if is_url(self.path):
            # Readers opened later for this one (reads, scans) know the
            # object: no request to find its size again.
            self.path = url(self.path, dict(self.path.remote, known_size=self.file_size,
                                            known_version=self.version or ""))

    def _resolve(self, names):
        def missing(c):
            self.close()
            raise invalid_argument("no leaf column %r" % (c,), self.path)
        out = resolve_columns(self.metadata, names, missing)
        return out if out.projection else list(out)

    def _columns(self, columns):
        """columns= of a read: the reader's when None, else resolved."""
        return self.columns if columns is None else self._resolve(list(columns))

    def _live(self):
        if self._handle is None or not self._finalizer.alive:
            raise ValueError("Reader is closed")
        return self._handle

    @property
    def stage(self):
        """The last completed stage: "footer" once open."""
        return STAGE_NAMES[_c.pq_reader_stage(self._live())]

    @property
    def metadata(self):
        """The footer as a FileMetadata sharing the reader's reference."""
        h = self._live()
        if self._md is None:
            self._md = FileMetadata(_c.pq_metadata_retain(_c.pq_reader_metadata(h)))
        return self._md

    @property
    def schema(self):
        """The pyarrow.Schema of what read() returns with this reader's
        columns and options (strings=, decimals=, follow_arrow_schema=,
        row_index=...): the select stage's output schema, no data read."""
        return self.scan().schema

    @property
    def warnings(self):
        """The footer's warnings (FileMetadata.warnings): a list of str."""
        return self.metadata.warnings

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
        """Counters of one stage (a name from pq_stage_name or its number),
        as a dict: the I/O counters every stage keeps (bytes_read, reads,
        nanoseconds, requests, retries) and the stage's own, as its C
        struct names them (pq_footer_stats ... pq_decode_stats)."""
        value = _stage_value(stage)
        if value in _c.STAGE_STATS:
            getter, struct = _c.STAGE_STATS[value]
            st = struct()
            getter(self._live(), ctypes.byref(st), ctypes.sizeof(st))
            io = st.io
            own = {name: int(getattr(st, name)) for name, _ in st._fields_ if name != "io"}
        else:
            io = _c.pq_io_stats()
            _c.pq_reader_io_stats(self._live(), value, ctypes.byref(io), ctypes.sizeof(io))
            own = {}
        return dict({name: int(getattr(io, name)) for name, _ in io._fields_}, **own)

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
        options = self._options.replace(columns=self._columns(columns), row_groups=[i], device_output=False)
        return list(decoded_batches(self.path, self.metadata, options))[0]

    def _reselect(self, options):
        """Back to the select stage with the selection of `options`
        (pq_reader_reselect); returns the handle."""
        h = self._live()
        sel, keep = options.selection(self.path)
        err = _c.pq_error()
        if _c.pq_reader_reselect(h, ctypes.byref(sel), ctypes.byref(err)) != _c.PQ_OK:
            raise error(err, self.path)
        del keep  # the reader copied the selection
        return h

    def kept_rows(self, filter=None, row_groups=None, row_offset=0, row_limit=None, prune=True):
        """Run the select stage only (no data page is read) and return, for
        each row group kept, the runs of rows a read fetches, as
        {row_group: [(first_row, num_rows), ...]} in the row group's own
        numbering: the whole row group, the row range, or with the page
        index only the runs whose pages may match `filter`."""
        cols = self.columns if self.columns is not None else list(range(self.metadata.num_columns))
        h = self._reselect(self._options.replace(columns=cols, row_groups=row_groups, row_offset=row_offset,
                                                 row_limit=row_limit, filter=filter, prune=prune))
        err = _c.pq_error()
        if _c.pq_reader_advance_to(h, _c.PQ_STAGE_SELECT, ctypes.byref(err)) != _c.PQ_OK:
            raise error(err, self.path)
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
        cols = self._columns(columns)
        if cols is None:
            cols = list(range(self.metadata.num_columns))
        warn_file(self.path, self.metadata.warnings)
        options = self._options.replace(columns=cols, row_groups=row_groups, row_offset=row_offset,
                                        row_limit=row_limit, filter=filter, prune=prune)
        h = self._reselect(options)
        err = _c.pq_error()
        stage = _c.PQ_STAGE_SELECT if options.no_rows else _c.PQ_STAGE_DECODE
        if _c.pq_reader_advance_to(h, stage, ctypes.byref(err)) != _c.PQ_OK:
            raise error(err, self.path)
        batches = [] if options.no_rows else list(export_batches(h, 0, self.path))
        projection = getattr(options.columns, "projection", None)
        if projection:  # VARIANT paths cut from their columns
            batches = [projection.apply(b, self.path) for b in batches]
        if batches:
            return pa.Table.from_batches(batches)
        schema = output_schema(h, self.path)
        return (projection.apply_schema(schema, self.path) if projection else schema).empty_table()

    def iter_batches(self, batch_size=65536, columns=None, row_groups=None, threads=None):
        """Yield pyarrow.RecordBatch objects of at most `batch_size` rows,
        row group by row group (a batch never spans two), from the reader's
        stream (scan): it decodes a window of row groups at a time (as many
        as hold 64 MiB of the columns' uncompressed pages, at least one) on
        the decode threads, reusing this reader's parsed footer.
        `columns`, `row_groups`: as for read_row_group and read_table;
        `threads`: decode threads (None: the reader's). An empty row group
        gives no batch, as in pyarrow."""
        self._live()
        batch_rows(batch_size, none_ok=False)
        if row_groups is not None:
            row_groups = list(row_groups)
            if not row_groups:
                return
        reader = self.scan(columns=columns, row_groups=row_groups, batch_size=batch_size,
                           threads=threads).to_reader()
        with reader:
            for b in reader:
                if b.num_rows:
                    yield b

    def device_batches(self, batch_size=65536, columns=None, row_groups=None, filter=None):
        """Yield DeviceBatch objects (Arrow C device data interface arrays)
        of at most batch_size rows: on the CUDA device when this reader's
        device= put the decode there ("cuda", or "auto" with a device),
        else in host memory. Decodes with a reader of its own (the parsed
        footer reused)."""
        options = self._options.replace(columns=self._columns(columns), row_groups=row_groups, filter=filter)
        return decoded_batches(self.path, self.metadata, options, batch_size=batch_size, export=_device_batches)

    def scan(self, columns=None, row_groups=None, filter=None, row_offset=0, row_limit=None, batch_size=None,
             threads=None, validate_utf8=None, memory_limit=None, prune=True, strings=None, decimals=None,
             follow_arrow_schema=None):
        """A Scan (an Arrow C stream for DuckDB, polars, pyarrow) of this
        reader's file with its parsed footer: `columns` (None: the
        reader's), `row_groups`, `filter`, the row range and `prune` as for
        read; batch_size the most rows a batch has (None: a row group per
        batch); the output types, threads, validate_utf8 and memory_limit
        default to the reader's. The scan decodes on the CPU."""
        self._live()
        inherited = dict(threads=threads, validate_utf8=validate_utf8, memory_limit=memory_limit, strings=strings,
                         decimals=decimals, follow_arrow_schema=follow_arrow_schema)
        options = self._options.replace(
            columns=self._columns(columns), row_groups=row_groups, filter=filter, row_offset=row_offset,
            row_limit=row_limit, prune=prune, device="cpu", device_output=False, device_file=None,
            **{k: v for k, v in inherited.items() if v is not None})
        return Scan._with_options(self.path, self.metadata, options, batch_size)

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


def read_metadata(path, cache=None, remote=None, decryption=None):
    """Read and parse a file's footer; returns a FileMetadata. remote and
    decryption: as for Reader."""
    with Reader(path, cache=cache, remote=remote, decryption=decryption) as r:
        return r.metadata


def read_schema(path, columns=None, cache=None, remote=None, strings="string", decimals="decimal128",
                follow_arrow_schema=True, int96_unit="ns", decryption=None, row_index=None, variant_storage=False):
    """The pyarrow.Schema read_table returns for a file with these options
    (as pq.read_schema gives pyarrow's): the footer read and parsed, no
    data. The arguments as for Reader."""
    with Reader(path, columns=columns, cache=cache, remote=remote, strings=strings, decimals=decimals,
                follow_arrow_schema=follow_arrow_schema, int96_unit=int96_unit, decryption=decryption,
                row_index=row_index, variant_storage=variant_storage) as r:
        return r.schema


def read_table(path, columns=None, row_groups=None, filter=None, row_offset=0, row_limit=None,
               threads=None, validate_utf8=False, memory_limit=None, prune=True, metadata=None,
               cache=None, strings="string", decimals="decimal128", follow_arrow_schema=True, remote=None,
               device="cpu", device_output=False, device_file=None, mmap=True, int96_unit="ns",
               decryption=None, deleted_rows=None, row_index=None, variant_storage=False, filters=None):
    """Read a file (a path, an http://, https:// or s3:// URL, with
    `remote` options as for Reader, or the file's bytes or a binary file
    object, as for Reader) into a pyarrow.Table (a directory, as
    pyarrow reads one: its Parquet files as one table, key=value directories
    as columns, through pqstep.dataset; the options that name one file's
    parts, such as row_groups or row_offset, are refused there): `columns` (leaf indexes or paths)
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
    syntax ("l_shipdate >= '1995-01-01' and l_quantity < 24"), or in
    pyarrow's filters= form ([("l_quantity", "<", 24), ...], all of which
    hold, or a list of such lists, any of which holds; filters= is the same
    option under pyarrow's name): row groups
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
    follow_arrow_schema (default True, as pyarrow reads): follow the Arrow
    schema the writer stored in the footer (pyarrow, arrow-rs and polars
    store one) where it names large strings, string views, dictionaries, a
    timestamp's time zone or a duration; elsewhere `strings` and `decimals`
    apply. False: the Parquet schema alone gives the types. int96_unit: the unit of
    INT96 timestamps (the legacy Spark / Impala type): "ns" (the default,
    pa.timestamp("ns") as pyarrow reads them), "us", "ms" or "s"; a coarser
    unit drops the sub-unit part of the nanoseconds of the day (as
    pyarrow's coerce_int96_timestamp_unit, arrow-rs and DuckDB do) and
    holds every date of the years 1 to 9999. A value outside the chosen
    unit's int64 range (for "ns": before 1677-09-21 or after 2262-04-11) is
    a pqstep.Error naming the column, row group, row and date, never a
    wrapped value (pyarrow wraps it into a wrong date). It applies inside
    structs, lists and maps too.
    device: "cpu" (the
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
    the map it is a pqstep.Error. A mapped file of 1 GiB or more has its
    page headers read by pread and its pages dropped from the process'
    memory as each pass of row groups is decoded (they stay in the page
    cache), so it does not count in the RSS beside the output.
    decryption: a pqstep.Decryption with the keys of an encrypted file
    (Parquet Modular Encryption: AES_GCM_V1 or AES_GCM_CTR_V1, an encrypted
    or a plaintext footer, uniform or per-column keys, keys given or
    unwrapped from the key material through a KMS). Without a column's key
    the plaintext columns of a plaintext-footer file still read, and
    reading that column is a pqstep.Error ("encrypted, key not given")
    naming it; a wrong key or an altered byte is "decryption failed", naming
    the module. Keys never appear in a message. Every pruning step uses an
    encrypted column's statistics, dictionary, bloom filter and page index
    with its key.
    deleted_rows: a deletion vector (Iceberg / Delta deletes): the file
    row numbers (from 0, across all row groups) that are never returned,
    as ints, a numpy or pyarrow integer array, or a boolean bitmap (a
    numpy or pyarrow boolean array, True at each deleted row). Applied in
    the select stage: row groups wholly deleted are skipped, pages holding
    only deleted rows are neither read nor decoded; the row range counts
    rows before the deletions. Reader.stage_stats("select") counts them
    (pruned_deleted, rows_deleted).
    row_index: the name of an int64 column appended to the table holding
    each row's file row number (from 0, across all row groups): the
    numbers of the rows a filter, a row range or deletions left.
    variant_storage: shredded VARIANT columns are rebuilt by default into
    the variants they hold, as Arrow's arrow.parquet.variant extension
    (struct of binary metadata and value; pqstep.variant turns them into
    Python values or JSON); True reads them as stored (metadata, value,
    typed_value)."""
    import pyarrow as pa
    filter = _filters.either(filter, filters)
    if isinstance(path, (str, os.PathLike)) and not is_url(os.fspath(path)) and os.path.isdir(path):
        # a directory: its files as one table, key=value directories as columns, as pyarrow reads it
        one_file = {"row_groups": row_groups is None, "row_offset": row_offset == 0, "row_limit": row_limit is None,
                    "validate_utf8": not validate_utf8, "prune": prune is True, "metadata": metadata is None,
                    "device": device == "cpu", "device_output": not device_output, "device_file": device_file is None,
                    "mmap": mmap is True, "deleted_rows": deleted_rows is None}
        given = [name for name, default in one_file.items() if not default]
        if given:
            raise ValueError("%s: a directory is read as a dataset, where %s do%s not apply (they name one file's "
                             "parts or how it is read); read the files one by one, or use pqstep.dataset"
                             % (os.fspath(path), ", ".join(given), "es" if len(given) == 1 else ""))
        if columns is not None and any(not isinstance(c, str) for c in columns):
            raise ValueError("%s: a directory's columns are named, not numbered" % os.fspath(path))
        from ._dataset import Dataset
        with Dataset(path, partitioning="hive", threads=threads, cache=cache, memory_limit=memory_limit,
                     strings=strings, decimals=decimals, follow_arrow_schema=follow_arrow_schema, remote=remote,
                     int96_unit=int96_unit, decryption=decryption, row_index=row_index,
                     variant_storage=variant_storage) as ds:
            return ds.to_table(columns=columns, filter=filter)
    options = ReadOptions(row_groups=row_groups, filter=filter, row_offset=row_offset, row_limit=row_limit,
                          threads=threads, validate_utf8=validate_utf8, memory_limit=memory_limit, prune=prune,
                          strings=strings, decimals=decimals, follow_arrow_schema=follow_arrow_schema,
                          device=device, device_output=device_output, device_file=device_file, mmap=mmap,
                          int96_unit=int96_unit, decryption=decryption, deleted_rows=deleted_rows,
                          row_index=row_index, variant_storage=variant_storage)
    with Reader._with_options(path, options, columns=columns, metadata=metadata, cache=cache, remote=remote) as r:
        warn_file(r.path, r.metadata.warnings)
        schema = []
        batches = list(decoded_batches(r.path, r.metadata, options.replace(columns=r.columns), schema_out=schema))
    if batches:
        return pa.Table.from_batches(batches)
    return schema[0].empty_table()


def scan(path, columns=None, row_groups=None, filter=None, row_offset=0, row_limit=None, batch_size=None,
         threads=None, validate_utf8=False, memory_limit=None, prune=True, metadata=None, cache=None,
         strings="string", decimals="decimal128", follow_arrow_schema=True, remote=None, int96_unit="ns",
         decryption=None, deleted_rows=None, row_index=None, variant_storage=False):
    """A Scan of one file: the arguments as for read_table, batch_size the
    most rows a batch has (None: a row group per batch); it decodes on the
    CPU. Nothing is decoded until a consumer pulls from it."""
    options = ReadOptions(row_groups=row_groups, filter=filter, row_offset=row_offset, row_limit=row_limit,
                          threads=threads, validate_utf8=validate_utf8, memory_limit=memory_limit, prune=prune,
                          strings=strings, decimals=decimals, follow_arrow_schema=follow_arrow_schema,
                          int96_unit=int96_unit, decryption=decryption, deleted_rows=deleted_rows,
                          row_index=row_index, variant_storage=variant_storage)
    with Reader._with_options(path, options, columns=columns, metadata=metadata, cache=cache, remote=remote) as r:
        return Scan._with_options(r.path, r.metadata, options.replace(columns=r.columns), batch_size)
