/*
 * names.c — short text names for enum values, logical types and Arrow types.
 *
 * Enum names are the Parquet spec's spelling. Arrow types are spelled as
 * pyarrow's str() prints them, so that tools can compare with pyarrow.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "metadata/text_out.h"
#include "pqstep.h"

const char *pq_version(void)
{
    return PQSTEP_VERSION_STRING;
}

/* ---------------------------------------------------------------------------
 * Enum names
 * ------------------------------------------------------------------------- */

static _Thread_local char unknown_buf[32];

static const char *unknown_name(int32_t v)
{
    snprintf(unknown_buf, sizeof unknown_buf, "UNKNOWN(%" PRId32 ")", v);
    return unknown_buf;
}

/* Look `v` up in a table of names indexed by value; holes are NULL. */
static const char *table_name(const char *const *names, size_t n, int32_t v)
{
    if (v >= 0 && (size_t)v < n && names[v]) return names[v];
    return unknown_name(v);
}

#define TABLE_NAME(names, v) table_name(names, sizeof(names) / sizeof(names[0]), v)

const char *pq_physical_type_name(int32_t type)
{
    static const char *const names[] = {
        [PQ_BOOLEAN] = "BOOLEAN",
        [PQ_INT32] = "INT32",
        [PQ_INT64] = "INT64",
        [PQ_INT96] = "INT96",
        [PQ_FLOAT] = "FLOAT",
        [PQ_DOUBLE] = "DOUBLE",
        [PQ_BYTE_ARRAY] = "BYTE_ARRAY",
        [PQ_FIXED_LEN_BYTE_ARRAY] = "FIXED_LEN_BYTE_ARRAY",
    };
    return TABLE_NAME(names, type);
}

const char *pq_converted_type_name(int32_t ct)
{
    static const char *const names[] = {
        [PQ_CT_UTF8] = "UTF8",
        [PQ_CT_MAP] = "MAP",
        [PQ_CT_MAP_KEY_VALUE] = "MAP_KEY_VALUE",
        [PQ_CT_LIST] = "LIST",
        [PQ_CT_ENUM] = "ENUM",
        [PQ_CT_DECIMAL] = "DECIMAL",
        [PQ_CT_DATE] = "DATE",
        [PQ_CT_TIME_MILLIS] = "TIME_MILLIS",
        [PQ_CT_TIME_MICROS] = "TIME_MICROS",
        [PQ_CT_TIMESTAMP_MILLIS] = "TIMESTAMP_MILLIS",
        [PQ_CT_TIMESTAMP_MICROS] = "TIMESTAMP_MICROS",
        [PQ_CT_UINT_8] = "UINT_8",
        [PQ_CT_UINT_16] = "UINT_16",
        [PQ_CT_UINT_32] = "UINT_32",
        [PQ_CT_UINT_64] = "UINT_64",
        [PQ_CT_INT_8] = "INT_8",
        [PQ_CT_INT_16] = "INT_16",
        [PQ_CT_INT_32] = "INT_32",
        [PQ_CT_INT_64] = "INT_64",
        [PQ_CT_JSON] = "JSON",
        [PQ_CT_BSON] = "BSON",
        [PQ_CT_INTERVAL] = "INTERVAL",
        [PQ_CT_NA] = "NA",
    };
    if (ct == PQ_CT_NONE) return "NONE";
    return TABLE_NAME(names, ct);
}

const char *pq_repetition_name(int32_t rep)
{
    static const char *const names[] = {
        [PQ_REQUIRED] = "REQUIRED",
        [PQ_OPTIONAL] = "OPTIONAL",
        [PQ_REPEATED] = "REPEATED",
    };
    return TABLE_NAME(names, rep);
}

const char *pq_encoding_name(int32_t enc)
{
    static const char *const names[] = {
        [PQ_ENC_PLAIN] = "PLAIN",
        [PQ_ENC_PLAIN_DICTIONARY] = "PLAIN_DICTIONARY",
        [PQ_ENC_RLE] = "RLE",
        [PQ_ENC_BIT_PACKED] = "BIT_PACKED",
        [PQ_ENC_DELTA_BINARY_PACKED] = "DELTA_BINARY_PACKED",
        [PQ_ENC_DELTA_LENGTH_BYTE_ARRAY] = "DELTA_LENGTH_BYTE_ARRAY",
        [PQ_ENC_DELTA_BYTE_ARRAY] = "DELTA_BYTE_ARRAY",
        [PQ_ENC_RLE_DICTIONARY] = "RLE_DICTIONARY",
        [PQ_ENC_BYTE_STREAM_SPLIT] = "BYTE_STREAM_SPLIT",
    };
    return TABLE_NAME(names, enc); /* 1 (GROUP_VAR_INT) was never used */
}

const char *pq_codec_name(int32_t codec)
{
    static const char *const names[] = {
        [PQ_CODEC_UNCOMPRESSED] = "UNCOMPRESSED",
        [PQ_CODEC_SNAPPY] = "SNAPPY",
        [PQ_CODEC_GZIP] = "GZIP",
        [PQ_CODEC_LZO] = "LZO",
        [PQ_CODEC_BROTLI] = "BROTLI",
        [PQ_CODEC_LZ4] = "LZ4",
        [PQ_CODEC_ZSTD] = "ZSTD",
        [PQ_CODEC_LZ4_RAW] = "LZ4_RAW",
    };
    return TABLE_NAME(names, codec);
}

const char *pq_page_type_name(int32_t page_type)
{
    static const char *const names[] = {
        [PQ_PAGE_DATA] = "DATA_PAGE",
        [PQ_PAGE_INDEX] = "INDEX_PAGE",
        [PQ_PAGE_DICTIONARY] = "DICTIONARY_PAGE",
        [PQ_PAGE_DATA_V2] = "DATA_PAGE_V2",
    };
    return TABLE_NAME(names, page_type);
}

/* ---------------------------------------------------------------------------
 * snprintf-style output: write what fits, count everything
 * ------------------------------------------------------------------------- */

/* ---------------------------------------------------------------------------
 * Logical types, e.g. "TIMESTAMP(MICROS,utc=true)"
 * ------------------------------------------------------------------------- */

static const char *unit_name(uint8_t unit)
{
    switch (unit) {
    case PQ_UNIT_MILLIS: return "MILLIS";
    case PQ_UNIT_MICROS: return "MICROS";
    case PQ_UNIT_NANOS: return "NANOS";
    default: return "UNKNOWN";
    }
}

static const char *edge_algorithm_name(int32_t a)
{
    static const char *const names[] = {"SPHERICAL", "VINCENTY", "THOMAS", "ANDOYER", "KARNEY"};
    return TABLE_NAME(names, a);
}

size_t pq_logical_type_format(const pq_logical_type *lt, char *buf, size_t cap)
{
    out o = {buf, cap, 0};
    if (!lt) return finish(&o);
    switch (lt->kind) {
    case PQ_LOGICAL_NONE: break;
    case PQ_LOGICAL_STRING: put(&o, "STRING"); break;
    case PQ_LOGICAL_MAP: put(&o, "MAP"); break;
    case PQ_LOGICAL_LIST: put(&o, "LIST"); break;
    case PQ_LOGICAL_ENUM: put(&o, "ENUM"); break;
    case PQ_LOGICAL_DECIMAL:
        put(&o, "DECIMAL(");
        put_i64(&o, lt->precision);
        put(&o, ",");
        put_i64(&o, lt->scale);
        put(&o, ")");
        break;
    case PQ_LOGICAL_DATE: put(&o, "DATE"); break;
    case PQ_LOGICAL_TIME:
    case PQ_LOGICAL_TIMESTAMP:
        put(&o, lt->kind == PQ_LOGICAL_TIME ? "TIME(" : "TIMESTAMP(");
        put(&o, unit_name(lt->unit));
        put(&o, lt->is_adjusted_to_utc ? ",utc=true)" : ",utc=false)");
        break;
    case PQ_LOGICAL_INTEGER:
        put(&o, "INT(");
        put_i64(&o, lt->bit_width);
        put(&o, lt->is_signed ? ",signed)" : ",unsigned)");
        break;
    case PQ_LOGICAL_UNKNOWN: put(&o, "UNKNOWN"); break;
    case PQ_LOGICAL_JSON: put(&o, "JSON"); break;
    case PQ_LOGICAL_BSON: put(&o, "BSON"); break;
    case PQ_LOGICAL_UUID: put(&o, "UUID"); break;
    case PQ_LOGICAL_FLOAT16: put(&o, "FLOAT16"); break;
    case PQ_LOGICAL_VARIANT:
        put(&o, "VARIANT");
        if (lt->has_variant_version) {
            put(&o, "(specification_version=");
            put_i64(&o, lt->variant_version);
            put(&o, ")");
        }
        break;
    case PQ_LOGICAL_GEOMETRY:
    case PQ_LOGICAL_GEOGRAPHY: {
        bool geog = lt->kind == PQ_LOGICAL_GEOGRAPHY;
        bool alg = geog && lt->has_algorithm;
        put(&o, geog ? "GEOGRAPHY" : "GEOMETRY");
        if (lt->has_crs || alg) put(&o, "(");
        if (lt->has_crs) {
            put(&o, "crs=");
            if (lt->crs.ptr) put_mem(&o, lt->crs.ptr, lt->crs.len);
        }
        if (alg) {
            if (lt->has_crs) put(&o, ",");
            put(&o, "algorithm=");
            put(&o, edge_algorithm_name(lt->algorithm));
        }
        if (lt->has_crs || alg) put(&o, ")");
        break;
    }
    case PQ_LOGICAL_FUTURE: put(&o, "FUTURE"); break;
    default: put(&o, unknown_name(lt->kind)); break;
    }
    return finish(&o);
}

/* ---------------------------------------------------------------------------
 * Arrow types, as pyarrow's str() prints them
 * ------------------------------------------------------------------------- */

static const char *arrow_unit(uint8_t unit)
{
    switch (unit) {
    case PQ_UNIT_MILLIS: return "ms";
    case PQ_UNIT_MICROS: return "us";
    case PQ_UNIT_NANOS: return "ns";
    case PQ_UNIT_SECONDS: return "s";
    default: return "?";
    }
}

size_t pq_arrow_type_format(const pq_arrow_type *at, char *buf, size_t cap)
{
    static const char *const simple[] = {
        [PQ_ARROW_NA] = "null",
        [PQ_ARROW_BOOL] = "bool",
        [PQ_ARROW_INT8] = "int8",
        [PQ_ARROW_INT16] = "int16",
        [PQ_ARROW_INT32] = "int32",
        [PQ_ARROW_INT64] = "int64",
        [PQ_ARROW_UINT8] = "uint8",
        [PQ_ARROW_UINT16] = "uint16",
        [PQ_ARROW_UINT32] = "uint32",
        [PQ_ARROW_UINT64] = "uint64",
        [PQ_ARROW_FLOAT16] = "halffloat",
        [PQ_ARROW_FLOAT32] = "float",
        [PQ_ARROW_FLOAT64] = "double",
        [PQ_ARROW_STRING] = "string",
        [PQ_ARROW_BINARY] = "binary",
        [PQ_ARROW_DATE32] = "date32[day]",
        [PQ_ARROW_STRUCT] = "struct",
        [PQ_ARROW_LIST] = "list",
        [PQ_ARROW_MAP] = "map",
        [PQ_ARROW_EXTENSION_UUID] = "extension<arrow.uuid>",
        [PQ_ARROW_EXTENSION_JSON] = "extension<arrow.json>",
        [PQ_ARROW_UNSUPPORTED] = "unsupported",
        [PQ_ARROW_LARGE_STRING] = "large_string",
        [PQ_ARROW_LARGE_BINARY] = "large_binary",
    };
    out o = {buf, cap, 0};
    if (!at) return finish(&o);
    switch (at->id) {
    case PQ_ARROW_FIXED_SIZE_BINARY:
        put(&o, "fixed_size_binary[");
        put_i64(&o, at->byte_width);
        put(&o, "]");
        break;
    case PQ_ARROW_DECIMAL64:
    case PQ_ARROW_DECIMAL128:
    case PQ_ARROW_DECIMAL256:
        put(&o, at->id == PQ_ARROW_DECIMAL64 ? "decimal64(" : at->id == PQ_ARROW_DECIMAL128 ? "decimal128(" : "decimal256(");
        put_i64(&o, at->precision);
        put(&o, ", ");
        put_i64(&o, at->scale);
        put(&o, ")");
        break;
    case PQ_ARROW_TIME32:
    case PQ_ARROW_TIME64:
        put(&o, at->id == PQ_ARROW_TIME32 ? "time32[" : "time64[");
        put(&o, arrow_unit(at->unit));
        put(&o, "]");
        break;
    case PQ_ARROW_DURATION:
        put(&o, "duration[");
        put(&o, arrow_unit(at->unit));
        put(&o, "]");
        break;
    case PQ_ARROW_TIMESTAMP:
        put(&o, "timestamp[");
        put(&o, arrow_unit(at->unit));
        put(&o, at->utc ? ", tz=UTC]" : "]");
        break;
    default:
        if (at->id < sizeof simple / sizeof simple[0] && simple[at->id])
            put(&o, simple[at->id]);
        else
            put(&o, unknown_name(at->id));
        break;
    }
    return finish(&o);
}
