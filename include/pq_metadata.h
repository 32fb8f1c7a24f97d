/*
 * pq_metadata.h — a parsed Parquet footer: immutable, reference counted,
 * shareable between threads and readers.
 *
 * A `pq_metadata` owns a private copy of the footer bytes (the Thrift
 * compact-encoded FileMetaData, without the trailing length and magic) and
 * one arena holding every decoded struct. Binary and string fields are
 * `pq_bytes` spans that point into the retained footer bytes: they are NOT
 * NUL-terminated and live exactly as long as the `pq_metadata`.
 *
 * Lifetime: pq_metadata_parse() returns an object with one reference.
 * pq_metadata_retain() adds one, pq_metadata_release() drops one and frees
 * the object with the last. Every pointer obtained from a `pq_metadata`
 * (structs, spans, schema, leaf paths) is valid while you hold a reference.
 * The object is never modified after parse, so any number of threads may
 * read it concurrently without locks; retain/release are atomic.
 *
 * The structs below mirror parquet-format's FileMetaData field for field.
 * Optional Thrift fields have a bit in the struct's `set` mask (PQ_*_HAS_*);
 * a field whose bit is clear holds 0 / an empty span / NULL.
 */
#ifndef PQ_METADATA_H
#define PQ_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Enumerations (values are the Parquet wire values)
 * ------------------------------------------------------------------------- */

typedef enum pq_physical_type {
    PQ_BOOLEAN = 0,
    PQ_INT32 = 1,
    PQ_INT64 = 2,
    PQ_INT96 = 3,
    PQ_FLOAT = 4,
    PQ_DOUBLE = 5,
    PQ_BYTE_ARRAY = 6,
    PQ_FIXED_LEN_BYTE_ARRAY = 7
} pq_physical_type;

typedef enum pq_converted_type {
    PQ_CT_NONE = -1, /* not set */
    PQ_CT_UTF8 = 0,
    PQ_CT_MAP = 1,
    PQ_CT_MAP_KEY_VALUE = 2,
    PQ_CT_LIST = 3,
    PQ_CT_ENUM = 4,
    PQ_CT_DECIMAL = 5,
    PQ_CT_DATE = 6,
    PQ_CT_TIME_MILLIS = 7,
    PQ_CT_TIME_MICROS = 8,
    PQ_CT_TIMESTAMP_MILLIS = 9,
    PQ_CT_TIMESTAMP_MICROS = 10,
    PQ_CT_UINT_8 = 11,
    PQ_CT_UINT_16 = 12,
    PQ_CT_UINT_32 = 13,
    PQ_CT_UINT_64 = 14,
    PQ_CT_INT_8 = 15,
    PQ_CT_INT_16 = 16,
    PQ_CT_INT_32 = 17,
    PQ_CT_INT_64 = 18,
    PQ_CT_JSON = 19,
    PQ_CT_BSON = 20,
    PQ_CT_INTERVAL = 21,
    /* Obsolete: not in parquet-format's enum, but old writers (parquet-cpp
     * 1.5 and its kin) stored it on all-null columns. Reads as an Arrow null
     * column, like the UNKNOWN logical type. */
    PQ_CT_NA = 24
} pq_converted_type;

/* A converted_type value outside this enum (22, 23, 25 and up, negative
 * ones) does not make a file unreadable: the footer keeps the raw value in
 * pq_schema_element.converted_type, the column reads by its physical type
 * as if unannotated, and the metadata carries a warning
 * (pq_metadata_warning()). */

typedef enum pq_repetition {
    PQ_REQUIRED = 0,
    PQ_OPTIONAL = 1,
    PQ_REPEATED = 2
} pq_repetition;

/* Encodings are kept as raw int32 values in the structs, so that files using
 * an encoding newer than this library still open; these are the known ones. */
typedef enum pq_encoding {
    PQ_ENC_PLAIN = 0,
    PQ_ENC_PLAIN_DICTIONARY = 2,
    PQ_ENC_RLE = 3,
    PQ_ENC_BIT_PACKED = 4,
    PQ_ENC_DELTA_BINARY_PACKED = 5,
    PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    PQ_ENC_DELTA_BYTE_ARRAY = 7,
    PQ_ENC_RLE_DICTIONARY = 8,
    PQ_ENC_BYTE_STREAM_SPLIT = 9
} pq_encoding;

typedef enum pq_codec {
    PQ_CODEC_UNCOMPRESSED = 0,
    PQ_CODEC_SNAPPY = 1,
    PQ_CODEC_GZIP = 2,
    PQ_CODEC_LZO = 3,
    PQ_CODEC_BROTLI = 4,
    PQ_CODEC_LZ4 = 5,
    PQ_CODEC_ZSTD = 6,
    PQ_CODEC_LZ4_RAW = 7
} pq_codec;

typedef enum pq_page_type {
    PQ_PAGE_DATA = 0,
    PQ_PAGE_INDEX = 1,
    PQ_PAGE_DICTIONARY = 2,
    PQ_PAGE_DATA_V2 = 3
} pq_page_type;

/* LogicalType union member; values are the Thrift field ids. */
typedef enum pq_logical_kind {
    PQ_LOGICAL_NONE = 0, /* no logicalType field */
    PQ_LOGICAL_STRING = 1,
    PQ_LOGICAL_MAP = 2,
    PQ_LOGICAL_LIST = 3,
    PQ_LOGICAL_ENUM = 4,
    PQ_LOGICAL_DECIMAL = 5,
    PQ_LOGICAL_DATE = 6,
    PQ_LOGICAL_TIME = 7,
    PQ_LOGICAL_TIMESTAMP = 8,
    PQ_LOGICAL_INTEGER = 10,
    PQ_LOGICAL_UNKNOWN = 11, /* the "NullType": always-null column */
    PQ_LOGICAL_JSON = 12,
    PQ_LOGICAL_BSON = 13,
    PQ_LOGICAL_UUID = 14,
    PQ_LOGICAL_FLOAT16 = 15,
    PQ_LOGICAL_VARIANT = 16,
    PQ_LOGICAL_GEOMETRY = 17,
    PQ_LOGICAL_GEOGRAPHY = 18,
    PQ_LOGICAL_FUTURE = 255 /* a union member newer than this library (skipped) */
} pq_logical_kind;

typedef enum pq_time_unit {
    PQ_UNIT_NONE = 0,
    PQ_UNIT_MILLIS = 1,
    PQ_UNIT_MICROS = 2,
    PQ_UNIT_NANOS = 3,
    PQ_UNIT_SECONDS = 4 /* Arrow only (a duration the writer's ARROW:schema names); never a Parquet unit */
} pq_time_unit;

/* ---------------------------------------------------------------------------
 * Structs
 * ------------------------------------------------------------------------- */

/* A span of bytes inside the retained footer. Not NUL-terminated. */
typedef struct pq_bytes {
    const uint8_t *ptr;
    uint32_t len;
} pq_bytes;

typedef struct pq_logical_type {
    uint8_t kind;               /* pq_logical_kind */
    uint8_t unit;               /* pq_time_unit: TIME, TIMESTAMP */
    bool is_adjusted_to_utc;    /* TIME, TIMESTAMP */
    int8_t bit_width;           /* INTEGER: 8, 16, 32, 64 */
    bool is_signed;             /* INTEGER */
    bool has_variant_version;   /* VARIANT: specification_version present */
    int8_t variant_version;     /* VARIANT */
    bool has_algorithm;         /* GEOGRAPHY: algorithm present */
    int32_t scale;              /* DECIMAL */
    int32_t precision;          /* DECIMAL */
    int32_t algorithm;          /* GEOGRAPHY: EdgeInterpolationAlgorithm */
    pq_bytes crs;               /* GEOMETRY, GEOGRAPHY: empty when absent */
    bool has_crs;
} pq_logical_type;

enum {
    PQ_SE_HAS_TYPE = 1u << 0,
    PQ_SE_HAS_TYPE_LENGTH = 1u << 1,
    PQ_SE_HAS_REPETITION = 1u << 2,
    PQ_SE_HAS_NUM_CHILDREN = 1u << 3,
    PQ_SE_HAS_CONVERTED_TYPE = 1u << 4,
    PQ_SE_HAS_SCALE = 1u << 5,
    PQ_SE_HAS_PRECISION = 1u << 6,
    PQ_SE_HAS_FIELD_ID = 1u << 7,
    PQ_SE_HAS_LOGICAL_TYPE = 1u << 8
};

typedef struct pq_schema_element {
    pq_bytes name;
    int32_t type;            /* pq_physical_type */
    int32_t type_length;
    int32_t repetition;      /* pq_repetition */
    int32_t num_children;
    int32_t converted_type;  /* pq_converted_type (raw: may be a value the enum lacks);
                              * PQ_CT_NONE when unset */
    int32_t scale;
    int32_t precision;
    int32_t field_id;
    pq_logical_type logical; /* kind PQ_LOGICAL_NONE when unset */
    uint32_t set;            /* PQ_SE_HAS_* */
} pq_schema_element;

enum {
    PQ_STATS_HAS_MAX = 1u << 0,
    PQ_STATS_HAS_MIN = 1u << 1,
    PQ_STATS_HAS_NULL_COUNT = 1u << 2,
    PQ_STATS_HAS_DISTINCT_COUNT = 1u << 3,
    PQ_STATS_HAS_MAX_VALUE = 1u << 4,
    PQ_STATS_HAS_MIN_VALUE = 1u << 5,
    PQ_STATS_HAS_IS_MAX_EXACT = 1u << 6,
    PQ_STATS_HAS_IS_MIN_EXACT = 1u << 7,
    PQ_STATS_HAS_NAN_COUNT = 1u << 8
};

/* Column-chunk statistics. max/min are the deprecated fields (signed sort
 * order, written by old writers); max_value/min_value follow the column order. */
typedef struct pq_statistics {
    pq_bytes max;
    pq_bytes min;
    int64_t null_count;
    int64_t distinct_count;
    pq_bytes max_value;
    pq_bytes min_value;
    bool is_max_value_exact;
    bool is_min_value_exact;
    uint32_t set; /* PQ_STATS_HAS_* */
    int64_t nan_count; /* NaNs among the values (FLOAT, DOUBLE, FLOAT16; parquet-format 2.13) */
} pq_statistics;

enum {
    PQ_SIZE_HAS_UNENCODED_BYTES = 1u << 0,
    PQ_SIZE_HAS_REP_HISTOGRAM = 1u << 1,
    PQ_SIZE_HAS_DEF_HISTOGRAM = 1u << 2
};

typedef struct pq_size_statistics {
    int64_t unencoded_byte_array_data_bytes;
    const int64_t *repetition_level_histogram;
    uint32_t repetition_level_histogram_len;
    const int64_t *definition_level_histogram;
    uint32_t definition_level_histogram_len;
    uint32_t set; /* PQ_SIZE_HAS_* */
} pq_size_statistics;

enum {
    PQ_BBOX_HAS_ZMIN = 1u << 0,
    PQ_BBOX_HAS_ZMAX = 1u << 1,
    PQ_BBOX_HAS_MMIN = 1u << 2,
    PQ_BBOX_HAS_MMAX = 1u << 3
};

typedef struct pq_bounding_box {
    double xmin, xmax, ymin, ymax;
    double zmin, zmax, mmin, mmax;
    uint32_t set; /* PQ_BBOX_HAS_* */
} pq_bounding_box;

enum {
    PQ_GEO_HAS_BBOX = 1u << 0,
    PQ_GEO_HAS_TYPES = 1u << 1
};

typedef struct pq_geospatial_statistics {
    pq_bounding_box bbox;
    const int32_t *geospatial_types;
    uint32_t geospatial_types_len;
    uint32_t set; /* PQ_GEO_HAS_* */
} pq_geospatial_statistics;

typedef struct pq_key_value {
    pq_bytes key;
    pq_bytes value;
    bool has_value;
} pq_key_value;

typedef struct pq_page_encoding_stats {
    int32_t page_type; /* pq_page_type */
    int32_t encoding;  /* pq_encoding */
    int32_t count;
} pq_page_encoding_stats;

typedef struct pq_sorting_column {
    int32_t column_idx;
    bool descending;
    bool nulls_first;
} pq_sorting_column;

enum {
    PQ_CMD_HAS_KEY_VALUE = 1u << 0,
    PQ_CMD_HAS_INDEX_PAGE_OFFSET = 1u << 1,
    PQ_CMD_HAS_DICTIONARY_PAGE_OFFSET = 1u << 2,
    PQ_CMD_HAS_STATISTICS = 1u << 3,
    PQ_CMD_HAS_ENCODING_STATS = 1u << 4,
    PQ_CMD_HAS_BLOOM_FILTER_OFFSET = 1u << 5,
    PQ_CMD_HAS_BLOOM_FILTER_LENGTH = 1u << 6,
    PQ_CMD_HAS_SIZE_STATISTICS = 1u << 7,
    PQ_CMD_HAS_GEOSPATIAL_STATISTICS = 1u << 8
};

typedef struct pq_column_meta {
    int32_t type;                 /* pq_physical_type */
    int32_t codec;                /* pq_codec */
    const int32_t *encodings;     /* raw pq_encoding values */
    uint32_t encodings_len;
    uint32_t path_in_schema_len;
    const pq_bytes *path_in_schema;
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    const pq_key_value *key_value_metadata;
    uint32_t key_value_metadata_len;
    uint32_t encoding_stats_len;
    int64_t data_page_offset;
    int64_t index_page_offset;
    int64_t dictionary_page_offset;
    pq_statistics statistics;
    const pq_page_encoding_stats *encoding_stats;
    int64_t bloom_filter_offset;
    int32_t bloom_filter_length;
    uint32_t set; /* PQ_CMD_HAS_* */
    const pq_size_statistics *size_statistics;             /* NULL when absent */
    const pq_geospatial_statistics *geospatial_statistics; /* NULL when absent */
} pq_column_meta;

enum {
    PQ_CC_HAS_FILE_PATH = 1u << 0,
    PQ_CC_HAS_META_DATA = 1u << 1,
    PQ_CC_HAS_OFFSET_INDEX_OFFSET = 1u << 2,
    PQ_CC_HAS_OFFSET_INDEX_LENGTH = 1u << 3,
    PQ_CC_HAS_COLUMN_INDEX_OFFSET = 1u << 4,
    PQ_CC_HAS_COLUMN_INDEX_LENGTH = 1u << 5,
    PQ_CC_HAS_CRYPTO_METADATA = 1u << 6,
    PQ_CC_HAS_ENCRYPTED_METADATA = 1u << 7,
    /* Not a Thrift field: meta_data was decrypted from
     * encrypted_column_metadata with the column's key at parse time. */
    PQ_CC_DECRYPTED_METADATA = 1u << 8
};
/* Not a Thrift field: the chunk was outside the projection given to
 * pq_metadata_parse(); its bytes were walked over, not decoded, and every
 * field is zero. (A macro: an enumerator must fit in an int.) */
#define PQ_CC_SKIPPED (1u << 31)

typedef enum pq_crypto_kind {
    PQ_CRYPTO_NONE = 0,
    PQ_CRYPTO_FOOTER_KEY = 1,
    PQ_CRYPTO_COLUMN_KEY = 2
} pq_crypto_kind;

/* EncryptionAlgorithm (FileMetaData.encryption_algorithm in a plaintext
 * footer, FileCryptoMetaData in an encrypted one). */
typedef enum pq_encryption_id {
    PQ_ENCRYPTION_NONE = 0,
    PQ_ENCRYPTION_AES_GCM_V1 = 1,     /* every module AES-GCM */
    PQ_ENCRYPTION_AES_GCM_CTR_V1 = 2, /* pages AES-CTR, every other module AES-GCM */
    PQ_ENCRYPTION_UNKNOWN = 99        /* a union member this library does not know */
} pq_encryption_id;

typedef struct pq_encryption_algorithm {
    int32_t id;                 /* pq_encryption_id */
    pq_bytes aad_prefix;        /* as stored; empty when the writer left it out */
    pq_bytes aad_file_unique;
    bool supply_aad_prefix;     /* the reader must supply the prefix */
} pq_encryption_algorithm;

typedef struct pq_column_chunk {
    pq_bytes file_path;
    int64_t file_offset;
    pq_column_meta meta_data;
    int64_t offset_index_offset;
    int64_t column_index_offset;
    int32_t offset_index_length;
    int32_t column_index_length;
    int32_t crypto_kind;          /* pq_crypto_kind */
    uint32_t set;                 /* PQ_CC_HAS_* and PQ_CC_SKIPPED */
    pq_bytes encrypted_column_metadata;
    /* ColumnCryptoMetaData's EncryptionWithColumnKey (crypto_kind
     * PQ_CRYPTO_COLUMN_KEY): the column's path and its key metadata. */
    const pq_bytes *column_key_path;
    uint32_t column_key_path_len;
    pq_bytes column_key_metadata;
} pq_column_chunk;

enum {
    PQ_RG_HAS_SORTING_COLUMNS = 1u << 0,
    PQ_RG_HAS_FILE_OFFSET = 1u << 1,
    PQ_RG_HAS_TOTAL_COMPRESSED_SIZE = 1u << 2,
    PQ_RG_HAS_ORDINAL = 1u << 3
};

typedef struct pq_row_group {
    /* columns_len pointers, in leaf order. In a projected parse the chunks
     * outside the projection all point to one shared, read-only chunk whose
     * `set` is PQ_CC_SKIPPED: they cost a pointer, nothing more. */
    const pq_column_chunk *const *columns;
    uint32_t columns_len;
    uint32_t sorting_columns_len;
    const pq_sorting_column *sorting_columns;
    int64_t total_byte_size;
    int64_t num_rows;
    int64_t file_offset;
    int64_t total_compressed_size;
    int16_t ordinal;
    uint32_t set; /* PQ_RG_HAS_* */
} pq_row_group;

enum {
    PQ_FMD_HAS_KEY_VALUE = 1u << 0,
    PQ_FMD_HAS_CREATED_BY = 1u << 1,
    PQ_FMD_HAS_COLUMN_ORDERS = 1u << 2,
    PQ_FMD_HAS_ENCRYPTION_ALGORITHM = 1u << 3,
    PQ_FMD_HAS_FOOTER_SIGNING_KEY = 1u << 4
};

/* ColumnOrder union member: 1 = TYPE_ORDER; 0 = a member unknown to us. */
#define PQ_COLUMN_ORDER_UNKNOWN 0
#define PQ_COLUMN_ORDER_TYPE_DEFINED 1
/* IEEE 754 total order (parquet-format 2.13, FLOAT, DOUBLE and FLOAT16):
 * min and max are the smallest and largest values that are not NaN (NaN
 * values only when every value is one), nan_count says how many NaNs. */
#define PQ_COLUMN_ORDER_IEEE754_TOTAL 2

typedef struct pq_file_metadata {
    int32_t version;
    uint32_t schema_len;
    const pq_schema_element *schema; /* flattened depth-first, schema[0] is the root */
    int64_t num_rows;
    const pq_row_group *row_groups;
    uint32_t row_groups_len;
    uint32_t key_value_metadata_len;
    const pq_key_value *key_value_metadata;
    pq_bytes created_by;
    const int32_t *column_orders; /* PQ_COLUMN_ORDER_* per leaf */
    uint32_t column_orders_len;
    int32_t encryption_algorithm; /* union member id when set (plaintext-footer files) */
    pq_bytes footer_signing_key_metadata;
    uint32_t set; /* PQ_FMD_HAS_* */
    pq_encryption_algorithm encryption; /* PQ_FMD_HAS_ENCRYPTION_ALGORITHM */
} pq_file_metadata;

/* ---------------------------------------------------------------------------
 * The schema tree, built from the flattened element list at parse time
 * ------------------------------------------------------------------------- */

/* The Arrow type a leaf (or group) decodes to, as pyarrow maps it by default. */
typedef enum pq_arrow_id {
    PQ_ARROW_NA = 0,
    PQ_ARROW_BOOL,
    PQ_ARROW_INT8, PQ_ARROW_INT16, PQ_ARROW_INT32, PQ_ARROW_INT64,
    PQ_ARROW_UINT8, PQ_ARROW_UINT16, PQ_ARROW_UINT32, PQ_ARROW_UINT64,
    PQ_ARROW_FLOAT16, PQ_ARROW_FLOAT32, PQ_ARROW_FLOAT64,
    PQ_ARROW_STRING, PQ_ARROW_BINARY, PQ_ARROW_FIXED_SIZE_BINARY,
    PQ_ARROW_DECIMAL128, PQ_ARROW_DECIMAL256,
    PQ_ARROW_DATE32,
    PQ_ARROW_TIME32, PQ_ARROW_TIME64,
    PQ_ARROW_TIMESTAMP,
    PQ_ARROW_STRUCT, PQ_ARROW_LIST, PQ_ARROW_MAP,
    PQ_ARROW_EXTENSION_UUID, /* fixed_size_binary(16) tagged arrow.uuid */
    PQ_ARROW_EXTENSION_JSON, /* string tagged arrow.json (pyarrow >= 19 reads JSON so) */
    PQ_ARROW_UNSUPPORTED,    /* e.g. INTERVAL: no default mapping */
    PQ_ARROW_DECIMAL64,      /* not a default mapping: what PQ_DECIMALS_64 makes of a decimal of
                              * at most 18 digits (pq_reader_options.decimal_type) */
    PQ_ARROW_LARGE_STRING,   /* not default mappings: what PQ_STRINGS_LARGE (or a stored */
    PQ_ARROW_LARGE_BINARY,   /* ARROW:schema) makes of string and binary columns */
    PQ_ARROW_DURATION        /* not a default mapping: an INT64 column the stored ARROW:schema
                              * names a duration (unit in pq_arrow_type.unit) */
} pq_arrow_id;

typedef struct pq_arrow_type {
    uint8_t id;          /* pq_arrow_id */
    uint8_t unit;        /* pq_time_unit: TIME32/64, TIMESTAMP */
    bool utc;            /* TIMESTAMP: tz "UTC" */
    int32_t byte_width;  /* FIXED_SIZE_BINARY */
    int32_t precision;   /* DECIMAL */
    int32_t scale;       /* DECIMAL */
} pq_arrow_type;

typedef struct pq_schema_node {
    const pq_schema_element *element;
    const char *name;       /* NUL-terminated copy of element->name */
    int32_t parent;         /* node index; -1 for the root */
    const int32_t *children;/* node indexes of the children, num_children entries */
    int32_t num_children;
    int32_t leaf_index;     /* index into leaves; -1 for groups */
    int16_t max_def;        /* definition level of this node (counting itself) */
    int16_t max_rep;
    int16_t depth;          /* root is 0 */
    pq_arrow_type arrow;
} pq_schema_node;

typedef struct pq_leaf {
    int32_t node;            /* index into pq_schema.nodes */
    const char *path;        /* dotted path, NUL-terminated: "a.list.element" */
    int16_t max_def;
    int16_t max_rep;
    int32_t physical_type;   /* pq_physical_type */
    int32_t type_length;
    /* The annotation in effect: the logicalType, or the equivalent of the
     * converted_type when there is none (PQ_CT_NA gives UNKNOWN). Kind
     * PQ_LOGICAL_NONE when the column has no annotation, and also when its
     * annotation cannot apply to its physical type (INT_8 or DATE on INT64,
     * STRING on INT32, a DECIMAL whose precision the storage cannot hold,
     * UUID on a FIXED_LEN_BYTE_ARRAY other than 16 bytes, an unknown
     * converted type, ...): such a column reads as if unannotated, by its
     * physical type, and the metadata carries a warning that says so. (A
     * logicalType newer than this library, PQ_LOGICAL_FUTURE, is no
     * warning: it stays, and the column reads by its physical type.) The
     * file's own annotation stays in the element (pq_schema_node.element). */
    pq_logical_type logical;
    pq_arrow_type arrow;
} pq_leaf;

typedef struct pq_schema {
    const pq_schema_node *nodes; /* nodes[i] describes file->schema[i] */
    uint32_t nodes_len;
    const pq_leaf *leaves;       /* in file column order */
    uint32_t leaves_len;
} pq_schema;

/* ---------------------------------------------------------------------------
 * Parsing and lifetime
 * ------------------------------------------------------------------------- */

typedef struct pq_parse_options {
    /* Projection: when columns != NULL, only these leaf indexes get their
     * column chunks (and statistics) decoded; the others are skipped over
     * without allocation and carry PQ_CC_SKIPPED. Out-of-range indexes are an
     * error. The schema is always complete. */
    const uint32_t *columns;
    size_t columns_len;
    /* Largest footer accepted, in bytes; 0 means the default of 256 MiB. */
    uint64_t max_footer_size;
    /* Cap on the memory the parsed metadata may take (footer copy, decoded
     * structs, schema tree, leaf paths). 0 means 64 x the footer size + 16 MiB:
     * real footers decode to about 4x their size, so only hostile ones (say,
     * thousands of leaves under hundreds of nested groups) reach it. Exceeding
     * it fails with PQ_ERR_MEMORY_LIMIT. */
    uint64_t memory_limit;
} pq_parse_options;

typedef struct pq_metadata pq_metadata;

/* Parse a footer: `footer` holds the Thrift compact FileMetaData (the bytes
 * before the 4-byte length and "PAR1"). The bytes are copied; the caller
 * keeps ownership of `footer`. `opts` may be NULL. Returns a new object with
 * one reference, or NULL and fills `err`. Malformed input of any kind yields
 * PQ_ERR_CORRUPT_FOOTER / PQ_ERR_SCHEMA / PQ_ERR_ENCRYPTED with a message that
 * names the struct and field, e.g. "RowGroup[3].columns[7].meta_data.codec:
 * invalid value 99". */
PQ_API pq_metadata *pq_metadata_parse(const void *footer, size_t len,
                               const pq_parse_options *opts, pq_error *err);

/* ---------------------------------------------------------------------------
 * Encrypted files (Parquet Modular Encryption)
 *
 * A file written with encryption has either an encrypted footer (the file
 * ends in "PARE"; nothing, not even the schema, reads without the footer
 * key) or a plaintext footer (ends in "PAR1"; the schema and the plaintext
 * columns read without any key, and the footer's signature is checked when
 * the footer key is known). Each column is plaintext, encrypted with the
 * footer key, or encrypted with its own key. pq_decryption gives the keys;
 * the library copies what it keeps and wipes its copies (OPENSSL_cleanse)
 * when the reader that holds them is closed. No key, and no decrypted byte,
 * ever appears in an error message.
 * ------------------------------------------------------------------------- */

/* A column's key: `path` is its dotted path as in the file's schema
 * ("a.b.c", path_in_schema joined by '.'), `key` 16, 24 or 32 bytes. */
typedef struct pq_column_key {
    const char *path;
    const uint8_t *key;
    size_t key_len;
} pq_column_key;

/* A key retriever (a KMS client, say): given the key metadata the writer
 * stored for a key (FileCryptoMetaData.key_metadata, footer_signing_key_
 * metadata, a column's key_metadata; possibly empty), write the key (16, 24
 * or 32 bytes) to `key` and its length to *key_len and return 0; return
 * nonzero when it has no key for that metadata (the column then counts as
 * keyless). May be called from any thread, more than once per key. */
typedef int (*pq_key_retriever_fn)(void *user, const uint8_t *key_metadata, size_t key_metadata_len,
                                   uint8_t key[32], size_t *key_len);

typedef struct pq_decryption {
    uint32_t struct_size;            /* sizeof(pq_decryption): set by pq_decryption_init */
    /* The footer key: decrypts an encrypted footer, verifies a plaintext
     * footer's signature, and decrypts the columns encrypted with it. */
    const uint8_t *footer_key;
    size_t footer_key_len;
    /* Keys of the columns encrypted with their own keys. */
    const pq_column_key *column_keys;
    size_t column_keys_len;
    /* The AAD prefix, for files whose writer did not store it (an error
     * names the need); when the file stores one, a given prefix must equal it. */
    const uint8_t *aad_prefix;
    size_t aad_prefix_len;
    /* Asked for every key not given above (NULL: none). */
    pq_key_retriever_fn key_retriever;
    void *key_retriever_user;
} pq_decryption;

/* Zero every field and set struct_size. */
PQ_API void pq_decryption_init(pq_decryption *d);

/* pq_metadata_parse with keys: `footer` is the footer as stored (the
 * FileCryptoMetaData and the encrypted FileMetaData of an encrypted footer,
 * recognized by its first field; or a plaintext FileMetaData, with its
 * signature when the file is encrypted). The column metadata encrypted
 * with a key at hand is decrypted (PQ_CC_DECRYPTED_METADATA); that of a
 * column whose key is missing stays as stored. pq_metadata_footer_bytes
 * returns the bytes as stored, so they stay encrypted. `keys` may be NULL
 * (pq_metadata_parse). Errors: PQ_ERR_ENCRYPTED (an encrypted footer and no
 * footer key; an AAD prefix the file needs and was not given),
 * PQ_ERR_DECRYPT (a wrong key or prefix, an altered footer or signature),
 * PQ_ERR_INVALID_ARGUMENT (a key of a wrong length, a prefix that differs
 * from the stored one). */
PQ_API pq_metadata *pq_metadata_parse_decrypt(const void *footer, size_t len, const pq_parse_options *opts,
                                              const pq_decryption *keys, pq_error *err);

/* AES-GCM decryption of a wrapped key as the Parquet key tools store one
 * (nonce (12 bytes), ciphertext, tag (16 bytes); `len` bytes in all) with
 * `aad`: for key-material helpers and KMS clients (a double-wrapped data
 * key is encrypted this way with its key-encryption key). `out` receives
 * len - 28 bytes (*out_len), at most `out_cap`. PQ_ERR_DECRYPT when the
 * tag does not match; PQ_ERR_INVALID_ARGUMENT for a key that is not 16, 24
 * or 32 bytes or a short input. */
PQ_API pq_status pq_aes_gcm_unwrap(const uint8_t *key, size_t key_len, const uint8_t *wrapped, size_t len,
                                   const uint8_t *aad, size_t aad_len, uint8_t *out, size_t out_cap,
                                   size_t *out_len, pq_error *err);

/* ---- Key material (parquet-java's and Arrow's key tools) ----
 *
 * Writers that take their keys from a KMS store, for each key, key material
 * (JSON of type "PKMT1"): the key wrapped by a KMS master key (single
 * wrapping), or wrapped by a key-encryption key that the KMS wraps (double
 * wrapping, the default of both tools). It sits in the key metadata itself
 * (internal storage) or, for external storage, in a file beside the data
 * file, "_KEY_MATERIAL_FOR_<file name>.json", a JSON object from key
 * reference to key material. pq_key_material reads both and asks the
 * caller's KMS for the unwrapping:
 *
 *     pq_key_material km;
 *     pq_key_material_init(&km);
 *     km.unwrap = my_kms_unwrap;  km.unwrap_user = my_kms;
 *     km.file_path = "data/part-0.parquet";   (only for external storage)
 *     dec.key_retriever = pq_key_material_retriever;  dec.key_retriever_user = &km;
 *
 * The struct must outlive the reader's footer stage (keys are resolved
 * there; pq_reader_open returns after it). One pq_key_material serves one
 * file when its key material is external (file_path names it), any number
 * of files when it is internal. */

/* The KMS: unwrap `wrapped_key` (the text the KMS returned when it wrapped
 * the key: base64 for parquet-java's and Arrow's KMS clients) with master
 * key `master_key_id`; write the key (16, 24 or 32 bytes) to `key` and its
 * length to *key_len and return 0, or return nonzero (no such master key,
 * not authorized, ...). May be called from any thread. */
typedef int (*pq_kms_unwrap_fn)(void *user, const char *wrapped_key, const char *master_key_id,
                                uint8_t key[32], size_t *key_len);

typedef struct pq_key_material {
    uint32_t struct_size;        /* sizeof(pq_key_material): set by pq_key_material_init */
    pq_kms_unwrap_fn unwrap;     /* required */
    void *unwrap_user;
    /* External storage: the data file's local path (the key material file
     * is looked for beside it), or the key material file's bytes fetched by
     * the caller (remote files; takes precedence over file_path). */
    const char *file_path;
    const void *external_material;
    size_t external_material_len;
} pq_key_material;

/* Zero every field and set struct_size. */
PQ_API void pq_key_material_init(pq_key_material *m);

/* The key that `key_metadata` (PKMT1 key material, or a reference into the
 * external key material) names, unwrapped through m->unwrap; for double
 * wrapping, the data key is then AES-GCM-decrypted with the unwrapped
 * key-encryption key (AAD: the key-encryption key's id). Writes the key
 * to `key` (*key_len bytes). Errors: PQ_ERR_INVALID_ARGUMENT (metadata
 * that is not PKMT1 key material, a missing field, a bad base64 string, no
 * file path for external material), PQ_ERR_IO (the key material file
 * cannot be read), PQ_ERR_ENCRYPTED (the KMS refused: the message names
 * the master key id), PQ_ERR_DECRYPT (a double-wrapped key that fails
 * authentication). Messages never hold key bytes. */
PQ_API pq_status pq_key_material_unwrap(const pq_key_material *m, const uint8_t *key_metadata,
                                        size_t key_metadata_len, uint8_t key[32], size_t *key_len,
                                        pq_error *err);

/* pq_key_material_unwrap as a pq_key_retriever_fn (`user`: the
 * pq_key_material): 0 with the key, nonzero when it cannot give one. */
PQ_API int pq_key_material_retriever(void *user, const uint8_t *key_metadata, size_t key_metadata_len,
                                     uint8_t key[32], size_t *key_len);

/* How a parsed file is encrypted. */
typedef struct pq_file_encryption {
    int32_t algorithm;          /* pq_encryption_id; PQ_ENCRYPTION_NONE for a plaintext file */
    bool footer_encrypted;      /* "PARE" */
    bool signature_verified;    /* a plaintext footer whose signature was checked */
    bool aad_prefix_stored;
    uint32_t encrypted_columns; /* leaves encrypted (in the first row group) */
    uint32_t keyless_columns;   /* ... of which no key was given */
    pq_bytes footer_key_metadata;
} pq_file_encryption;

/* Fill *out for `md` (zeros for a plaintext file). */
PQ_API void pq_metadata_encryption(const pq_metadata *md, pq_file_encryption *out);

/* Parse from a buffer that ends with the file's tail: "...footer, len, PAR1".
 * `tail` may be the whole file or any suffix holding the whole footer.
 * Checks the magic and the length. Returns NULL with PQ_ERR_NEED_DATA when the
 * suffix is too short; the needed suffix length is then in `*needed`
 * (which may be NULL). */
PQ_API pq_metadata *pq_metadata_parse_tail(const void *tail, size_t len,
                                    const pq_parse_options *opts,
                                    size_t *needed, pq_error *err);

/* Footer parses performed in this process so far: every successful or failed
 * pq_metadata_parse / pq_metadata_parse_tail call, including those readers
 * make (a process-wide atomic counter; demos and tests use it to show reuse). */
PQ_API uint64_t pq_footer_parse_count(void);

/* Add a reference. Returns `md`. Thread-safe. */
PQ_API pq_metadata *pq_metadata_retain(pq_metadata *md);

/* Drop a reference; frees with the last one. NULL is ignored. Thread-safe. */
PQ_API void pq_metadata_release(pq_metadata *md);

/* The decoded FileMetaData. Borrowed: valid while `md` is referenced. */
PQ_API const pq_file_metadata *pq_metadata_file(const pq_metadata *md);

/* The schema tree and leaf columns. Borrowed. */
PQ_API const pq_schema *pq_metadata_schema(const pq_metadata *md);

/* The raw footer bytes (Thrift FileMetaData) this object was parsed from:
 * hand them to pq_metadata_parse() in another process or thread to rebuild an
 * identical object without touching the file. Borrowed. */
PQ_API const uint8_t *pq_metadata_footer_bytes(const pq_metadata *md, size_t *len);

/* Bytes this object holds (footer copy + arena + schema); used by caches. */
PQ_API size_t pq_metadata_memory_size(const pq_metadata *md);

/* True when parsed with a projection (some column chunks are skipped). */
PQ_API bool pq_metadata_is_projected(const pq_metadata *md);

/* Find a leaf by dotted path ("a.b.c") or, failing that, by top-level name
 * when that name has exactly one leaf. Returns the leaf index or -1. */
PQ_API int32_t pq_metadata_find_leaf(const pq_metadata *md, const char *path);

/* The leaves `path` names: the leaf of that dotted path, or every leaf under
 * the group of that path (a struct, list or map, at any depth: "s", "s.c",
 * "m.key_value"), in file order, as pyarrow's `columns=` selects a group.
 * Writes at most `cap` leaf indexes to `out` (NULL with cap 0 to count) and
 * returns how many there are; 0 when `path` names no column. */
PQ_API size_t pq_metadata_find_leaves(const pq_metadata *md, const char *path, uint32_t *out, size_t cap);

/* Warnings: what the footer and schema hold that this library ignored to
 * read the file rather than refuse it (today: annotations that cannot apply
 * to their column's storage, unknown converted types). Each is one line of
 * text naming the column's path, what was ignored and how the column reads,
 * e.g. "column 'a.b': annotation INT_8 cannot apply to INT64 storage: read
 * as int64". They are made when the footer is parsed, in schema order, and
 * live (NUL-terminated) as long as `md`. At most PQ_METADATA_MAX_WARNINGS
 * are kept; when more arose, one more, last, says how many were left out.
 * pq_metadata_warning() returns NULL for i >= pq_metadata_warning_count(). */
#define PQ_METADATA_MAX_WARNINGS 64
PQ_API size_t pq_metadata_warning_count(const pq_metadata *md);
PQ_API const char *pq_metadata_warning(const pq_metadata *md, size_t i);

/* Which of the file's statistics pruning sets aside, as one line of text
 * (empty when none): bounds that follow a sort order the file does not name
 * ("min_value/max_value and page-index bounds unused: the file names no
 * column order"), null counts of writers known to miscount them (polars
 * 0.19 to 0.20.9; DuckDB up to 1.0, whose counts above 0 are not
 * believed). Such statistics prune nothing; what is read is the same.
 * Written to `buf` (at most cap bytes, NUL-terminated when cap > 0);
 * returns the length the whole text needs, as snprintf does. */
PQ_API size_t pq_metadata_statistics_note(const pq_metadata *md, char *buf, size_t cap);

/* Short names for enum values ("INT64", "ZSTD", "RLE_DICTIONARY", ...).
 * Unknown values give "UNKNOWN(<n>)" in a static per-thread buffer. */
PQ_API const char *pq_physical_type_name(int32_t type);
PQ_API const char *pq_converted_type_name(int32_t ct);
PQ_API const char *pq_repetition_name(int32_t rep);
PQ_API const char *pq_encoding_name(int32_t enc);
PQ_API const char *pq_codec_name(int32_t codec);
PQ_API const char *pq_page_type_name(int32_t page_type);

/* Render a logical type as text, e.g. "TIMESTAMP(MICROS,utc=true)",
 * "DECIMAL(10,2)", "INT(16,unsigned)"; "" when kind is NONE. Writes at most
 * `cap` bytes including the NUL; returns the length it needed. */
PQ_API size_t pq_logical_type_format(const pq_logical_type *lt, char *buf, size_t cap);

/* Render an Arrow type as pyarrow prints it: "int64", "timestamp[us, tz=UTC]",
 * "decimal128(10, 2)", "list<...>" is rendered as "list" for groups (use the
 * schema tree for children). Same buffer contract as above. */
PQ_API size_t pq_arrow_type_format(const pq_arrow_type *at, char *buf, size_t cap);

/* Render one statistics value (a min/max span) of a leaf as readable text
 * according to its physical and logical type: integers (signed/unsigned),
 * floats, dates as YYYY-MM-DD, times, timestamps in ISO 8601, decimals as
 * exact strings, UTF-8 strings quoted as-is, other binary as hex. Same buffer
 * contract as above. A span of the wrong width renders as hex prefixed "0x". */
PQ_API size_t pq_stat_value_format(const pq_leaf *leaf, pq_bytes value, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* PQ_METADATA_H */
