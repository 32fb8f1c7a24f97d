"""pqstep — Python binding (ctypes) of libpqstep, a staged Parquet reader.

The library reads a Parquet file in stages: footer -> select -> page
headers -> filter -> decode. The binding reads footers: file metadata, the schema's
leaf columns, row groups, the raw footer bytes, and reuse of parsed footers
(hand metadata or footer bytes to a Reader, or share a MetadataCache between
readers). It decodes files (flat and nested columns: structs, lists, maps)
into pyarrow through the Arrow C Data Interface, without copies:
read_table(), Reader.read() / select() / read_row_group() /
iter_batches(), with a row range, a filter (pruning row groups and pages
first: Reader.kept_rows() shows what is kept) and a choice of output types
(strings=, decimals=, follow_arrow_schema=, int96_unit=). scan() and Reader.scan() are
Arrow C streams (the PyCapsule interface) that DuckDB, polars and pyarrow
pull; dataset() reads many files (hive partitions, URLs) as one table;
Reader.device_batches() hands out Arrow C device arrays of a decode on a
CUDA device (device=, device_output=); pqstep.dask reads into a
dask.dataframe. Paths may be http://, https:// or s3:// URLs (remote=).

    import pqstep

    md = pqstep.read_metadata("data/alltypes_plain.parquet")
    schema = pqstep.read_schema("data/alltypes_plain.parquet")  # pyarrow.Schema of read_table's result
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
    for batch in r.iter_batches(batch_size=1000):               # <= 1000 rows each
        ...

libpqstep.so is found through $PQSTEP_LIBRARY, next to this package, in the
repository's build/ directory, or by ctypes.util.find_library("pqstep").

Errors from the library raise pqstep.Error, whose .code is the status name
("I/O error", "not a Parquet file", "corrupt footer", ...) and .message the
library's one-line message. A file read despite something in its footer
the library had to set aside (an annotation that cannot apply to its
column's storage, an unknown converted type) carries warnings:
FileMetadata.warnings and Reader.warnings list them, and read_table() and
Reader.read() issue them as pqstep.ParquetWarning (a UserWarning). A bad option value raises ValueError or
TypeError naming the option (a row group or column index outside 0 ..
2**32-1: pqstep.Error "invalid argument", as the library reports indexes).

Threads: FileMetadata and MetadataCache may be used from any thread; a Reader
by one thread at a time.
"""
# The modules, one job each (python/README.md, "Package layout"): _lib (the
# ctypes declarations), _errors, _decryption (keys and key material), _options (ReadOptions: the one filler of a C
# pq_reader_options), _remote, _metadata, _arrow, _stream, _reader, _dataset,
# _library; this file only re-exports.
from . import _lib as _c
from ._arrow import DeviceBatch
from ._dataset import Dataset, DatasetScan, dataset
from ._decryption import Decryption, KeyMaterialError, aes_gcm_unwrap
from ._errors import Error, ParquetWarning
from ._library import (default_memory_limit, file_maps_idle, footer_parse_count, library_version,
                       set_file_map_limit)
from ._metadata import Column, FileMetadata, MetadataCache, RowGroup
from ._reader import STAGE_NAMES as _STAGE_NAMES  # noqa: F401 (tests read it)
from ._reader import Reader, read_metadata, read_schema, read_table, scan
from ._stream import Scan

__all__ = [
    "Error", "ParquetWarning", "FileMetadata", "Column", "RowGroup", "MetadataCache", "Reader", "Scan", "scan", "DeviceBatch",
    "Dataset", "DatasetScan", "dataset", "Decryption", "KeyMaterialError", "aes_gcm_unwrap",
    "read_metadata", "read_schema", "read_table", "footer_parse_count", "library_version",
    "default_memory_limit", "set_file_map_limit", "file_maps_idle", "LIBRARY_PATH",
]

LIBRARY_PATH = _c.LIBRARY_PATH

__version__ = library_version()

# The public classes and functions say they are pqstep's (reprs, tracebacks,
# pickles name pqstep.Error, not pqstep._errors.Error).
for _name in __all__:
    _obj = globals()[_name]
    if getattr(_obj, "__module__", "").startswith(__name__ + "._"):
        _obj.__module__ = __name__
del _name, _obj
