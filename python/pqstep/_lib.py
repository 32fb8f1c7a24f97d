"""ctypes declarations for libpqstep.so: finding the library, the C structs
the binding reads, and the prototypes of the functions it calls.

Every Structure here mirrors its C struct field for field, in the same order
and with the same C types and the same field names, so ctypes lays it out as
the compiler does (tests/py/test_python_binding.py compiles a small C program
and compares sizeof/offsetof). Pointers the binding never follows are
declared c_void_p. Opaque handles (pq_metadata, pq_reader,
pq_metadata_cache) are c_void_p too.
"""
import ctypes
import ctypes.util
import os

# ---------------------------------------------------------------------------
# Finding the library
# ---------------------------------------------------------------------------

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_PYTHON_DIR = os.path.dirname(_PKG_DIR)


def _candidates():
    """(description, path or name) in lookup order."""
    out = []
    env = os.environ.get("PQSTEP_LIBRARY")
    if env:
        out.append(("$PQSTEP_LIBRARY", env))
    out.append(("next to the package", os.path.join(_PKG_DIR, "libpqstep.so")))
    out.append(("the repository's build/",
                os.path.normpath(os.path.join(_PYTHON_DIR, "..", "build", "libpqstep.so"))))
    found = ctypes.util.find_library("pqstep")
    out.append(('ctypes.util.find_library("pqstep")', found))
    return out


def _load():
    tried = []
    for what, path in _candidates():
        if not path:
            tried.append("%s: not found" % what)
            continue
        # $PQSTEP_LIBRARY is taken as given: a wrong value is an error, not a
        # reason to silently load some other copy.
        if what != '$PQSTEP_LIBRARY' and os.sep in path and not os.path.exists(path):
            tried.append("%s: %s does not exist" % (what, path))
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            if what == "$PQSTEP_LIBRARY":
                raise ImportError("pqstep: cannot load $PQSTEP_LIBRARY=%s: %s" % (path, e))
            tried.append("%s: %s: %s" % (what, path, e))
    raise ImportError("pqstep: libpqstep.so not found; tried:\n  " + "\n  ".join(tried) +
                      "\nBuild it (cmake --build build) or set PQSTEP_LIBRARY to its path.")


lib, LIBRARY_PATH = _load()

# ---------------------------------------------------------------------------
# Constants (values from the headers)
# ---------------------------------------------------------------------------

PQ_ERROR_MESSAGE_SIZE = 256

PQ_OK = 0
PQ_ERR_IO = 2
PQ_ERR_NOT_PARQUET = 3
PQ_ERR_UNSUPPORTED = 7
PQ_ERR_INVALID_ARGUMENT = 1
PQ_ERR_NEED_DATA = 10
PQ_ERR_ENCRYPTED = 6
PQ_ERR_DECRYPT = 13

# pruning steps (pq_reader_options.prune_disable)
PQ_PRUNE_ALL = 0xF

# pq_stage
PQ_STAGE_INIT = 0
PQ_STAGE_FOOTER = 1
PQ_STAGE_SELECT = 2
PQ_STAGE_PAGE_HEADERS = 3
PQ_STAGE_FILTER = 4
PQ_STAGE_DECODE = 5
PQ_STAGE_COUNT = 6

PQ_FMD_HAS_KEY_VALUE = 1 << 0
PQ_FMD_HAS_CREATED_BY = 1 << 1

# ---------------------------------------------------------------------------
# Structs
# ---------------------------------------------------------------------------

c_enum = ctypes.c_int  # every pq_* enum here has int-sized values


class pq_error(ctypes.Structure):
    _fields_ = [
        ("code", c_enum),
        ("message", ctypes.c_char * PQ_ERROR_MESSAGE_SIZE),
    ]


class pq_range(ctypes.Structure):
    _fields_ = [
        ("offset", ctypes.c_uint64),
        ("length", ctypes.c_uint64),
    ]

# pq_status (*)(void *user, uint64_t offset, size_t len, void *dst, pq_error *err)
READ_AT = ctypes.CFUNCTYPE(c_enum, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p,
                           ctypes.POINTER(pq_error))


class pq_source(ctypes.Structure):
    _fields_ = [
        ("read_at", READ_AT),
        ("user", ctypes.c_void_p),
        ("size", ctypes.c_uint64),
        ("read_ranges", ctypes.c_void_p),  # optional; not used from Python
    ]


class pq_io_stats(ctypes.Structure):
    _fields_ = [
        ("bytes_read", ctypes.c_uint64),
        ("reads", ctypes.c_uint64),
        ("nanoseconds", ctypes.c_uint64),
        ("requests", ctypes.c_uint64),
        ("retries", ctypes.c_uint64),
    ]


class pq_footer_stats(ctypes.Structure):
    _fields_ = [
        ("io", pq_io_stats),
        ("parses", ctypes.c_uint64),
        ("reused", ctypes.c_uint64),
    ]


class pq_select_stats(ctypes.Structure):
    _fields_ = [
        ("io", pq_io_stats),
        ("chunks", ctypes.c_uint64),
        ("pruned_statistics", ctypes.c_uint64),
        ("pruned_dictionary", ctypes.c_uint64),
        ("pruned_bloom_filter", ctypes.c_uint64),
        ("pruned_page_index", ctypes.c_uint64),
        ("prune_warnings", ctypes.c_uint64),
        ("pages_considered", ctypes.c_uint64),
        ("pages_pruned", ctypes.c_uint64),
        ("pruned_deleted", ctypes.c_uint64),
        ("rows_deleted", ctypes.c_uint64),
    ]


class pq_page_header_stats(ctypes.Structure):
    _fields_ = [
        ("io", pq_io_stats),
        ("chunks", ctypes.c_uint64),
        ("pages", ctypes.c_uint64),
        ("pages_skipped", ctypes.c_uint64),
        ("reused", ctypes.c_uint64),
    ]


class pq_filter_stats(ctypes.Structure):
    _fields_ = [
        ("io", pq_io_stats),
        ("rows_in", ctypes.c_uint64),
        ("rows", ctypes.c_uint64),
        ("rows_filtered", ctypes.c_uint64),
        ("groups", ctypes.c_uint64),
        ("groups_without_match", ctypes.c_uint64),
        ("chunks", ctypes.c_uint64),
        ("pages", ctypes.c_uint64),
        ("pages_skipped", ctypes.c_uint64),
        ("chunks_skipped", ctypes.c_uint64),
        ("bytes_skipped", ctypes.c_uint64),
        ("device_filtered_groups", ctypes.c_uint64),
        ("cpu_filtered_groups", ctypes.c_uint64),
    ]


class pq_decode_stats(ctypes.Structure):
    _fields_ = [
        ("io", pq_io_stats),
        ("chunks", ctypes.c_uint64),
        ("rows", ctypes.c_uint64),
        ("rows_filtered", ctypes.c_uint64),
        ("bytes_out", ctypes.c_uint64),
        ("device_chunks", ctypes.c_uint64),
        ("cpu_chunks", ctypes.c_uint64),
        ("dictionary_bytes_skipped", ctypes.c_uint64),
        ("chunks_sized_by_statistics", ctypes.c_uint64),
    ]


class pq_remote_options(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),  # set by the _init function
        ("endpoint", ctypes.c_char_p),
        ("region", ctypes.c_char_p),
        ("access_key_id", ctypes.c_char_p),
        ("secret_access_key", ctypes.c_char_p),
        ("session_token", ctypes.c_char_p),
        ("anonymous", ctypes.c_bool),
        ("addressing", ctypes.c_uint32),
        ("max_connections", ctypes.c_uint32),
        ("max_retries", ctypes.c_uint32),
        ("retry_base_ms", ctypes.c_uint32),
        ("request_timeout_ms", ctypes.c_uint32),
        ("connect_timeout_ms", ctypes.c_uint32),
        ("tail_bytes", ctypes.c_uint32),
        ("verify_tls", ctypes.c_bool),
        ("known_size", ctypes.c_uint64),
        ("known_version", ctypes.c_char_p),
        ("ca_file", ctypes.c_char_p),
    ]


class pq_remote_stats(ctypes.Structure):
    _fields_ = [
        ("requests", ctypes.c_uint64),
        ("bytes", ctypes.c_uint64),
        ("retries", ctypes.c_uint64),
        ("tail_hits", ctypes.c_uint64),
    ]


class pq_remote_object(ctypes.Structure):
    _fields_ = [
        ("url", ctypes.c_char_p),
        ("size", ctypes.c_uint64),
        ("version", ctypes.c_char_p),
    ]


class pq_metadata_cache_stats(ctypes.Structure):
    _fields_ = [
        ("hits", ctypes.c_uint64),
        ("misses", ctypes.c_uint64),
        ("loads", ctypes.c_uint64),
        ("evictions", ctypes.c_uint64),
        ("entries", ctypes.c_uint64),
        ("bytes", ctypes.c_uint64),
        ("max_bytes", ctypes.c_uint64),
    ]


class pq_reader_options(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),  # set by the _init function
        ("footer_read_size", ctypes.c_uint32),
        ("metadata", ctypes.c_void_p),
        ("footer_bytes", ctypes.c_void_p),
        ("footer_bytes_len", ctypes.c_size_t),
        ("cache", ctypes.c_void_p),
        ("cache_key", ctypes.c_void_p),
        ("cache_key_len", ctypes.c_size_t),
        ("columns", ctypes.POINTER(ctypes.c_uint32)),
        ("columns_len", ctypes.c_size_t),
        ("memory_limit", ctypes.c_uint64),
        ("row_groups", ctypes.POINTER(ctypes.c_uint32)),
        ("row_groups_len", ctypes.c_size_t),
        ("verify_checksums", ctypes.c_bool),
        ("row_offset", ctypes.c_uint64),
        ("row_limit", ctypes.c_uint64),
        ("threads", ctypes.c_uint32),
        ("validate_utf8", ctypes.c_bool),
        ("filter", ctypes.c_void_p),
        ("prune_disable", ctypes.c_uint32),
        ("prune_only", ctypes.c_bool),
        ("coalesce_gap", ctypes.c_uint32),
        ("coalesce_max", ctypes.c_uint64),
        ("no_coalescing", ctypes.c_bool),
        ("no_mmap", ctypes.c_bool),
        ("string_type", ctypes.c_uint32),
        ("decimal_type", ctypes.c_uint32),
        ("follow_arrow_schema", ctypes.c_bool),
        ("device", ctypes.c_uint32),
        ("device_output", ctypes.c_bool),
        ("device_file", ctypes.c_void_p),
        ("device_file_size", ctypes.c_uint64),
        ("int96_unit", ctypes.c_uint32),
        ("decryption", ctypes.c_void_p),  # const pq_decryption *
        ("deleted_rows", ctypes.c_void_p),  # const uint64_t *
        ("deleted_rows_len", ctypes.c_size_t),
        ("row_index_name", ctypes.c_char_p),
        ("variant_storage", ctypes.c_bool),
    ]


class pq_column_key(ctypes.Structure):
    _fields_ = [
        ("path", ctypes.c_char_p),
        ("key", ctypes.c_void_p),
        ("key_len", ctypes.c_size_t),
    ]


# int (*)(void *user, const uint8_t *key_metadata, size_t len, uint8_t key[32], size_t *key_len)
KEY_RETRIEVER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t,
                                 ctypes.POINTER(ctypes.c_uint8), ctypes.POINTER(ctypes.c_size_t))


class pq_decryption(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),  # set by pq_decryption_init
        ("footer_key", ctypes.c_void_p),
        ("footer_key_len", ctypes.c_size_t),
        ("column_keys", ctypes.POINTER(pq_column_key)),
        ("column_keys_len", ctypes.c_size_t),
        ("aad_prefix", ctypes.c_void_p),
        ("aad_prefix_len", ctypes.c_size_t),
        ("key_retriever", KEY_RETRIEVER),
        ("key_retriever_user", ctypes.c_void_p),
    ]


class pq_dataset_options(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),  # set by pq_dataset_options_init
        ("partitioning", ctypes.c_uint32),
        ("cache", ctypes.c_void_p),
        ("threads", ctypes.c_uint32),
        ("reader", ctypes.POINTER(pq_reader_options)),
        ("remote", ctypes.POINTER(pq_remote_options)),
    ]


class pq_dataset_scan(ctypes.Structure):
    _fields_ = [
        ("columns", ctypes.POINTER(ctypes.c_char_p)),
        ("columns_len", ctypes.c_size_t),
        ("filter", ctypes.c_void_p),
        ("batch_rows", ctypes.c_uint64),
    ]


class pq_dataset_scan_stats(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("files", "files_pruned_partition", "files_pruned_statistics",
                                               "row_groups", "row_groups_pruned")]


class pq_selection(ctypes.Structure):
    _fields_ = [
        ("row_groups", ctypes.POINTER(ctypes.c_uint32)),
        ("row_groups_len", ctypes.c_size_t),
        ("columns", ctypes.POINTER(ctypes.c_uint32)),
        ("columns_len", ctypes.c_size_t),
        ("row_offset", ctypes.c_uint64),
        ("row_limit", ctypes.c_uint64),
        ("filter", ctypes.c_void_p),
        ("prune_disable", ctypes.c_uint32),
    ]


class pq_bytes(ctypes.Structure):
    _fields_ = [
        ("ptr", ctypes.c_void_p),
        ("len", ctypes.c_uint32),
    ]

    def tobytes(self):
        if not self.ptr or not self.len:
            return b""
        return ctypes.string_at(self.ptr, self.len)


class pq_file_encryption(ctypes.Structure):
    _fields_ = [
        ("algorithm", ctypes.c_int32),
        ("footer_encrypted", ctypes.c_bool),
        ("signature_verified", ctypes.c_bool),
        ("aad_prefix_stored", ctypes.c_bool),
        ("encrypted_columns", ctypes.c_uint32),
        ("keyless_columns", ctypes.c_uint32),
        ("footer_key_metadata", pq_bytes),
    ]


class pq_logical_type(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_uint8),
        ("unit", ctypes.c_uint8),
        ("is_adjusted_to_utc", ctypes.c_bool),
        ("bit_width", ctypes.c_int8),
        ("is_signed", ctypes.c_bool),
        ("has_variant_version", ctypes.c_bool),
        ("variant_version", ctypes.c_int8),
        ("has_algorithm", ctypes.c_bool),
        ("scale", ctypes.c_int32),
        ("precision", ctypes.c_int32),
        ("algorithm", ctypes.c_int32),
        ("crs", pq_bytes),
        ("has_crs", ctypes.c_bool),
    ]


class pq_key_value(ctypes.Structure):
    _fields_ = [
        ("key", pq_bytes),
        ("value", pq_bytes),
        ("has_value", ctypes.c_bool),
    ]


class pq_row_group(ctypes.Structure):
    _fields_ = [
        ("columns", ctypes.c_void_p),
        ("columns_len", ctypes.c_uint32),
        ("sorting_columns_len", ctypes.c_uint32),
        ("sorting_columns", ctypes.c_void_p),
        ("total_byte_size", ctypes.c_int64),
        ("num_rows", ctypes.c_int64),
        ("file_offset", ctypes.c_int64),
        ("total_compressed_size", ctypes.c_int64),
        ("ordinal", ctypes.c_int16),
        ("set", ctypes.c_uint32),
    ]


class pq_encryption_algorithm(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_int32),
        ("aad_prefix", pq_bytes),
        ("aad_file_unique", pq_bytes),
        ("supply_aad_prefix", ctypes.c_bool),
    ]


class pq_file_metadata(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_int32),
        ("schema_len", ctypes.c_uint32),
        ("schema", ctypes.c_void_p),
        ("num_rows", ctypes.c_int64),
        ("row_groups", ctypes.POINTER(pq_row_group)),
        ("row_groups_len", ctypes.c_uint32),
        ("key_value_metadata_len", ctypes.c_uint32),
        ("key_value_metadata", ctypes.POINTER(pq_key_value)),
        ("created_by", pq_bytes),
        ("column_orders", ctypes.c_void_p),
        ("column_orders_len", ctypes.c_uint32),
        ("encryption_algorithm", ctypes.c_int32),
        ("footer_signing_key_metadata", pq_bytes),
        ("set", ctypes.c_uint32),
        ("encryption", pq_encryption_algorithm),
    ]


class pq_arrow_type(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_uint8),
        ("unit", ctypes.c_uint8),
        ("utc", ctypes.c_bool),
        ("byte_width", ctypes.c_int32),
        ("precision", ctypes.c_int32),
        ("scale", ctypes.c_int32),
    ]


class pq_leaf(ctypes.Structure):
    _fields_ = [
        ("node", ctypes.c_int32),
        ("path", ctypes.c_char_p),
        ("max_def", ctypes.c_int16),
        ("max_rep", ctypes.c_int16),
        ("physical_type", ctypes.c_int32),
        ("type_length", ctypes.c_int32),
        ("logical", pq_logical_type),
        ("arrow", pq_arrow_type),
    ]


class pq_schema(ctypes.Structure):
    _fields_ = [
        ("nodes", ctypes.c_void_p),
        ("nodes_len", ctypes.c_uint32),
        ("leaves", ctypes.POINTER(pq_leaf)),
        ("leaves_len", ctypes.c_uint32),
    ]


# Every mirrored struct and its C name (the layout test walks this).
STRUCTS = [
    (pq_error, "pq_error"),
    (pq_range, "pq_range"),
    (pq_source, "pq_source"),
    (pq_selection, "pq_selection"),
    (pq_io_stats, "pq_io_stats"),
    (pq_footer_stats, "pq_footer_stats"),
    (pq_select_stats, "pq_select_stats"),
    (pq_page_header_stats, "pq_page_header_stats"),
    (pq_filter_stats, "pq_filter_stats"),
    (pq_decode_stats, "pq_decode_stats"),
    (pq_remote_options, "pq_remote_options"),
    (pq_remote_stats, "pq_remote_stats"),
    (pq_remote_object, "pq_remote_object"),
    (pq_metadata_cache_stats, "pq_metadata_cache_stats"),
    (pq_reader_options, "pq_reader_options"),
    (pq_dataset_options, "pq_dataset_options"),
    (pq_bytes, "pq_bytes"),
    (pq_logical_type, "pq_logical_type"),
    (pq_key_value, "pq_key_value"),
    (pq_row_group, "pq_row_group"),
    (pq_file_metadata, "pq_file_metadata"),
    (pq_encryption_algorithm, "pq_encryption_algorithm"),
    (pq_file_encryption, "pq_file_encryption"),
    (pq_decryption, "pq_decryption"),
    (pq_column_key, "pq_column_key"),
    (pq_arrow_type, "pq_arrow_type"),
    (pq_leaf, "pq_leaf"),
    (pq_schema, "pq_schema"),
]

# ---------------------------------------------------------------------------
# Prototypes
# ---------------------------------------------------------------------------

_P = ctypes.POINTER
_vp = ctypes.c_void_p
_err = _P(pq_error)


def _proto(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


pq_version = _proto("pq_version", ctypes.c_char_p)
pq_default_memory_limit = _proto("pq_default_memory_limit", ctypes.c_uint64)
pq_file_maps_set_limit = _proto("pq_file_maps_set_limit", None, ctypes.c_uint)
pq_file_maps_idle = _proto("pq_file_maps_idle", ctypes.c_uint)
PQ_FILE_MAPS_DEFAULT = 8
pq_status_name = _proto("pq_status_name", ctypes.c_char_p, c_enum)
pq_stage_name = _proto("pq_stage_name", ctypes.c_char_p, c_enum)

# metadata
pq_metadata_parse = _proto("pq_metadata_parse", _vp, ctypes.c_char_p, ctypes.c_size_t, _vp, _err)
pq_decryption_init = _proto("pq_decryption_init", None, _P(pq_decryption))
pq_metadata_parse_decrypt = _proto("pq_metadata_parse_decrypt", _vp, ctypes.c_char_p, ctypes.c_size_t, _vp,
                                   _P(pq_decryption), _err)
pq_metadata_encryption = _proto("pq_metadata_encryption", None, _vp, _P(pq_file_encryption))
pq_aes_gcm_unwrap = _proto("pq_aes_gcm_unwrap", c_enum, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                           ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
                           _P(ctypes.c_size_t), _err)
pq_variant_to_json = _proto("pq_variant_to_json", c_enum, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                            ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, _P(ctypes.c_size_t), _err)
pq_variant_metadata_size = _proto("pq_variant_metadata_size", ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
                                  _err)
pq_variant_path_leaves = _proto("pq_variant_path_leaves", c_enum, _vp, ctypes.c_char_p, _P(ctypes.c_uint32),
                                ctypes.c_size_t, _P(ctypes.c_size_t), _err)
pq_variant_path_extract = _proto("pq_variant_path_extract", c_enum, _vp, _vp, ctypes.c_char_p, _vp, _vp, _err)
pq_footer_parse_count = _proto("pq_footer_parse_count", ctypes.c_uint64)
pq_metadata_retain = _proto("pq_metadata_retain", _vp, _vp)
pq_metadata_release = _proto("pq_metadata_release", None, _vp)
pq_metadata_file = _proto("pq_metadata_file", _P(pq_file_metadata), _vp)
pq_metadata_schema = _proto("pq_metadata_schema", _P(pq_schema), _vp)
pq_metadata_footer_bytes = _proto("pq_metadata_footer_bytes", _vp, _vp, _P(ctypes.c_size_t))
pq_metadata_memory_size = _proto("pq_metadata_memory_size", ctypes.c_size_t, _vp)
pq_metadata_is_projected = _proto("pq_metadata_is_projected", ctypes.c_bool, _vp)
pq_metadata_find_leaf = _proto("pq_metadata_find_leaf", ctypes.c_int32, _vp, ctypes.c_char_p)
pq_metadata_warning_count = _proto("pq_metadata_warning_count", ctypes.c_size_t, _vp)
pq_metadata_statistics_note = _proto("pq_metadata_statistics_note", ctypes.c_size_t, _vp, ctypes.c_char_p,
                                          ctypes.c_size_t)
pq_metadata_find_leaves = _proto("pq_metadata_find_leaves", ctypes.c_size_t, _vp, ctypes.c_char_p,
                                  _P(ctypes.c_uint32), ctypes.c_size_t)
pq_metadata_warning = _proto("pq_metadata_warning", ctypes.c_char_p, _vp, ctypes.c_size_t)
pq_physical_type_name = _proto("pq_physical_type_name", ctypes.c_char_p, ctypes.c_int32)
pq_converted_type_name = _proto("pq_converted_type_name", ctypes.c_char_p, ctypes.c_int32)
pq_logical_type_format = _proto("pq_logical_type_format", ctypes.c_size_t,
                                _P(pq_logical_type), ctypes.c_char_p, ctypes.c_size_t)
pq_arrow_type_format = _proto("pq_arrow_type_format", ctypes.c_size_t,
                              _P(pq_arrow_type), ctypes.c_char_p, ctypes.c_size_t)

# cache
pq_metadata_cache_create = _proto("pq_metadata_cache_create", _vp, ctypes.c_size_t, _err)
pq_metadata_cache_destroy = _proto("pq_metadata_cache_destroy", None, _vp)
pq_metadata_cache_get_stats = _proto("pq_metadata_cache_get_stats", None, _vp,
                                     _P(pq_metadata_cache_stats))

# reader
pq_reader_options_init = _proto("pq_reader_options_init", None, _P(pq_reader_options))
pq_reader_open_path = _proto("pq_reader_open_path", _vp, ctypes.c_char_p,
                             _P(pq_reader_options), _err)
pq_reader_open_url = _proto("pq_reader_open_url", _vp, ctypes.c_char_p, _P(pq_reader_options),
                            _P(pq_remote_options), _err)
pq_reader_device_note = _proto("pq_reader_device_note", ctypes.c_char_p, _vp)
pq_reader_source_version = _proto("pq_reader_source_version", ctypes.c_char_p, _vp)
pq_reader_close = _proto("pq_reader_close", None, _vp)

# remote
pq_remote_options_init = _proto("pq_remote_options_init", None, _P(pq_remote_options))
pq_is_url = _proto("pq_is_url", ctypes.c_int, ctypes.c_char_p)
pq_remote_list = _proto("pq_remote_list", c_enum, ctypes.c_char_p, _P(pq_remote_options),
                        _P(_P(pq_remote_object)), _P(ctypes.c_size_t), _err)
pq_remote_objects_free = _proto("pq_remote_objects_free", None, _P(pq_remote_object), ctypes.c_size_t)
pq_reader_stage = _proto("pq_reader_stage", c_enum, _vp)
pq_reader_advance_to = _proto("pq_reader_advance_to", c_enum, _vp, c_enum, _err)
pq_reader_metadata = _proto("pq_reader_metadata", _vp, _vp)
pq_reader_file_size = _proto("pq_reader_file_size", ctypes.c_uint64, _vp)
pq_reader_io_stats = _proto("pq_reader_io_stats", ctypes.c_size_t, _vp, c_enum, _P(pq_io_stats),
                            ctypes.c_size_t)
pq_reader_footer_stats = _proto("pq_reader_footer_stats", ctypes.c_size_t, _vp, _P(pq_footer_stats), ctypes.c_size_t)
pq_reader_select_stats = _proto("pq_reader_select_stats", ctypes.c_size_t, _vp, _P(pq_select_stats), ctypes.c_size_t)
pq_reader_page_header_stats = _proto("pq_reader_page_header_stats", ctypes.c_size_t, _vp, _P(pq_page_header_stats),
                                     ctypes.c_size_t)
pq_reader_filter_stats = _proto("pq_reader_filter_stats", ctypes.c_size_t, _vp, _P(pq_filter_stats), ctypes.c_size_t)
pq_reader_decode_stats = _proto("pq_reader_decode_stats", ctypes.c_size_t, _vp, _P(pq_decode_stats), ctypes.c_size_t)
# Each stage's counters: its getter and struct, by stage number.
STAGE_STATS = {
    PQ_STAGE_FOOTER: (pq_reader_footer_stats, pq_footer_stats),
    PQ_STAGE_SELECT: (pq_reader_select_stats, pq_select_stats),
    PQ_STAGE_PAGE_HEADERS: (pq_reader_page_header_stats, pq_page_header_stats),
    PQ_STAGE_FILTER: (pq_reader_filter_stats, pq_filter_stats),
    PQ_STAGE_DECODE: (pq_reader_decode_stats, pq_decode_stats),
}
pq_reader_export_row_group = _proto("pq_reader_export_row_group", c_enum, _vp, ctypes.c_uint32,
                                    _vp, _vp, _err)
pq_reader_export_rows = _proto("pq_reader_export_rows", c_enum, _vp, ctypes.c_uint32,
                               ctypes.c_uint64, ctypes.c_uint64, _vp, _vp, _err)
pq_reader_export_stream = _proto("pq_reader_export_stream", c_enum, _vp, ctypes.c_uint64, _vp, _err)
pq_reader_output_schema = _proto("pq_reader_output_schema", c_enum, _vp, _vp, _err)
pq_reader_next_device_batch = _proto("pq_reader_next_device_batch", c_enum, _vp, ctypes.c_uint64, _vp, _vp,
                                     _err)
pq_reader_next_batch = _proto("pq_reader_next_batch", c_enum, _vp, ctypes.c_uint64, _vp, _vp, _err)
pq_reader_row_group_range = _proto("pq_reader_row_group_range", c_enum, _vp, ctypes.c_uint32,
                                   _P(ctypes.c_uint64), _P(ctypes.c_uint64), _err)
class pq_row_run(ctypes.Structure):
    _fields_ = [("first_row", ctypes.c_uint64), ("num_rows", ctypes.c_uint64)]


pq_reader_row_group_runs = _proto("pq_reader_row_group_runs", c_enum, _vp, ctypes.c_uint32, _P(pq_row_run),
                                  ctypes.c_size_t, _P(ctypes.c_size_t), _err)
pq_reader_open_sans_io = _proto("pq_reader_open_sans_io", _vp, ctypes.c_uint64,
                                _P(pq_reader_options), _err)
pq_reader_open_memory = _proto("pq_reader_open_memory", _vp, _vp, ctypes.c_size_t, _P(pq_reader_options), _err)


pq_reader_open_source = _proto("pq_reader_open_source", _vp, _P(pq_source), _P(pq_reader_options), _err)
pq_reader_needed_ranges = _proto("pq_reader_needed_ranges", ctypes.c_size_t, _vp, _P(pq_range),
                                 ctypes.c_size_t)
pq_reader_supply = _proto("pq_reader_supply", c_enum, _vp, ctypes.c_uint64, ctypes.c_char_p,
                          ctypes.c_size_t, _err)
pq_reader_reselect = _proto("pq_reader_reselect", c_enum, _vp, _P(pq_selection), _err)
pq_expr_parse = _proto("pq_expr_parse", _vp, ctypes.c_char_p, _err)
pq_expr_free = _proto("pq_expr_free", None, _vp)
pq_expr_format = _proto("pq_expr_format", ctypes.c_size_t, _vp, ctypes.c_char_p, ctypes.c_size_t)
pq_metadata_arrow_schema = _proto("pq_metadata_arrow_schema", c_enum, _vp,
                                  _P(ctypes.c_uint32), ctypes.c_size_t, _vp, _err)

# The Arrow C Data Interface structs are allocated by the binding and only
# passed through (pyarrow reads them), so their size is what matters.
ARROW_SCHEMA_SIZE = 72
ARROW_ARRAY_SIZE = 80
ARROW_DEVICE_ARRAY_SIZE = 128  # ArrowArray, device_id, device_type, sync_event, reserved[3]
ARROW_ARRAY_STREAM_SIZE = 40

pq_dataset_options_init = _proto("pq_dataset_options_init", None, _P(pq_dataset_options))
pq_dataset_open = _proto("pq_dataset_open", _vp, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
                         _P(pq_dataset_options), _err)
pq_dataset_close = _proto("pq_dataset_close", None, _vp)
pq_dataset_file_count = _proto("pq_dataset_file_count", ctypes.c_size_t, _vp)
pq_dataset_file_path = _proto("pq_dataset_file_path", ctypes.c_char_p, _vp, ctypes.c_size_t)
pq_dataset_file_metadata = _proto("pq_dataset_file_metadata", _vp, _vp, ctypes.c_size_t)
pq_dataset_partition_count = _proto("pq_dataset_partition_count", ctypes.c_size_t, _vp)
pq_dataset_partition_name = _proto("pq_dataset_partition_name", ctypes.c_char_p, _vp, ctypes.c_size_t)
pq_dataset_partition_format = _proto("pq_dataset_partition_format", ctypes.c_char_p, _vp, ctypes.c_size_t)
pq_dataset_partition_value = _proto("pq_dataset_partition_value", ctypes.c_char_p, _vp, ctypes.c_size_t,
                                    ctypes.c_size_t)
pq_dataset_schema = _proto("pq_dataset_schema", c_enum, _vp, _vp, _err)
pq_dataset_export_stream = _proto("pq_dataset_export_stream", c_enum, _vp, _P(pq_dataset_scan), _vp,
                                  _P(pq_dataset_scan_stats), _err)
PQ_PARTITIONING_NONE = 0
PQ_PARTITIONING_HIVE = 1
