/*
 * footer_decode.c — FileMetaData from Thrift compact bytes into the plain
 * structs of pq_metadata.h.
 *
 * One hand-written function per Thrift struct, each a loop over field headers
 * with a switch on the field id. Structs and arrays come from the caller's
 * arena; binary fields are spans into the input buffer, so nothing is copied.
 * Unknown fields, and known fields sent with an unexpected wire type, are
 * skipped as Thrift's generated code does, so files from newer writers decode.
 *
 * Errors name where they happened. The path is collected while unwinding
 * (innermost segment first), so the success path pays nothing for it:
 *   "RowGroup[3].columns[7].meta_data.codec: invalid value 99"
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "metadata/arena.h"
#include "metadata/compact.h"
#include "metadata/error.h"
#include "metadata/footer_decode.h"
#include "metadata/metadata_internal.h"
#include "metadata/statistics_wire.h"

#define MAX_SEGMENTS 16
#define SEGMENT_SIZE 48

typedef struct footer_dec {
    pq_compact c;
    pq_arena *arena;
    const uint8_t *keep;    /* projection bitmap (one byte per leaf) or NULL */
    uint32_t keep_len;
    /* error report, filled on the way out */
    pq_status status;
    char what[160];
    int nseg;
    char seg[MAX_SEGMENTS][SEGMENT_SIZE];
} footer_dec;

/* ---------------------------------------------------------------------------
 * Error helpers (cold)
 * ------------------------------------------------------------------------- */

__attribute__((cold, format(printf, 3, 4)))
static int fail(footer_dec *d, pq_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->what, sizeof d->what, fmt, ap);
    va_end(ap);
    d->status = status;
    return -1;
}

/* Add a path segment while unwinding; always returns -1. */
__attribute__((cold, format(printf, 2, 3)))
static int at(footer_dec *d, const char *fmt, ...)
{
    if (d->nseg < MAX_SEGMENTS) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->seg[d->nseg++], SEGMENT_SIZE, fmt, ap);
        va_end(ap);
    }
    return -1;
}

__attribute__((cold))
static int malformed(footer_dec *d, const char *field)
{
    fail(d, PQ_ERR_CORRUPT_FOOTER, "truncated or malformed value");
    return at(d, "%s", field);
}

__attribute__((cold))
static int missing(footer_dec *d, const char *field)
{
    return fail(d, PQ_ERR_CORRUPT_FOOTER, "missing required field %s", field);
}

__attribute__((cold))
static int nomem(footer_dec *d)
{
    return fail(d, PQ_ERR_NOMEM, "out of memory decoding the footer");
}

__attribute__((cold))
static int invalid_enum(footer_dec *d, const char *field, int32_t v)
{
    fail(d, PQ_ERR_CORRUPT_FOOTER, "invalid value %d", (int)v);
    return at(d, "%s", field);
}

static const char *const wire_type_names[] = {
    "stop", "bool", "bool", "byte", "i16", "i32", "i64", "double",
    "binary", "list", "set", "map", "struct", "13", "14", "15"};

/* Forced inlining lets constant field ids fold each field switch away; it is
 * only worth it (and only cheap to compile) when optimizing: at -O0, as in
 * the sanitizer builds, nested forced inlining multiplies code size. */
#if defined(__OPTIMIZE__) && !defined(PQ_NO_FORCE_INLINE)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
#endif

/* Skip a field we do not want (unknown id, or a known id with another type).
 * The skip runs on a copy so that the caller's cursor, usually a local the
 * compiler keeps in registers, never has its address taken. */
HOT int skip_field(footer_dec *d, pq_compact *c, int ft, int16_t id, int depth)
{
    pq_compact tmp = *c;
    bool ok = pq_compact_skip(&tmp, ft, false, depth);
    *c = tmp;
    if (__builtin_expect(!ok, 0)) {
        if (c->too_deep)
            fail(d, PQ_ERR_CORRUPT_FOOTER, "nesting deeper than %d", PQ_COMPACT_MAX_DEPTH);
        else
            fail(d, PQ_ERR_CORRUPT_FOOTER, "malformed %s value", wire_type_names[ft & 15]);
        return at(d, "field %d", (int)id);
    }
    return 0;
}

static inline bool is_bool(int ft)
{
    return ft == PQ_WIRE_BOOL_TRUE || ft == PQ_WIRE_BOOL_FALSE;
}

/* Element types that share a wire encoding: Thrift's generated readers ignore
 * a list's declared element type, and some writers declare i16 for i32 enums
 * (bad_data/ARROW-GH-41317), so accept any varint integer for another. */
static inline bool same_encoding(int et, int want)
{
    bool et_varint = et == PQ_WIRE_I16 || et == PQ_WIRE_I32 || et == PQ_WIRE_I64;
    bool want_varint = want == PQ_WIRE_I16 || want == PQ_WIRE_I32 || want == PQ_WIRE_I64;
    return (et_varint && want_varint) || (is_bool(et) && is_bool(want));
}

/* Read a list header of elements of wire type `want`; 0 and *n, or -1. */
HOT int list_header(footer_dec *d, pq_compact *c, int want, uint32_t *n, const char *field)
{
    int et;
    *n = pq_compact_list(c, &et);
    if (__builtin_expect(c->bad, 0)) {
        fail(d, PQ_ERR_CORRUPT_FOOTER, "list size exceeds the footer or is malformed");
        return at(d, "%s", field);
    }
    if (__builtin_expect(et != want, 0) && *n && !same_encoding(et, want)) {
        fail(d, PQ_ERR_CORRUPT_FOOTER, "list of %s, expected %s", wire_type_names[et & 15],
             wire_type_names[want]);
        return at(d, "%s", field);
    }
    return 0;
}

/* Allocate n elements from the arena, zeroed. */
static inline void *alloc_array(footer_dec *d, uint32_t n, size_t elem)
{
    if (n == 0) return NULL;
    return pq_arena_calloc(d->arena, n, elem);
}

/* Allocate n elements that the caller fills completely: no zeroing. The list
 * header check bounds n by the bytes left, so n * elem cannot overflow. */
static inline void *alloc_filled(footer_dec *d, uint32_t n, size_t elem)
{
    if (n == 0) return NULL;
    return pq_arena_alloc(d->arena, (size_t)n * elem);
}

/* ---------------------------------------------------------------------------
 * Small lists
 * ------------------------------------------------------------------------- */

HOT int dec_i32_list(footer_dec *d, pq_compact *c, const int32_t **out, uint32_t *out_len, const char *field)
{
    uint32_t n;
    if (list_header(d, c, PQ_WIRE_I32, &n, field)) return -1;
    int32_t *v = alloc_filled(d, n, sizeof *v);
    if (n && !v) return nomem(d);
    for (uint32_t i = 0; i < n; i++) v[i] = pq_compact_i32(c);
    if (c->bad) return malformed(d, field);
    *out = v;
    *out_len = n;
    return 0;
}

HOT int dec_i64_list(footer_dec *d, pq_compact *c, const int64_t **out, uint32_t *out_len, const char *field)
{
    uint32_t n;
    if (list_header(d, c, PQ_WIRE_I64, &n, field)) return -1;
    int64_t *v = alloc_filled(d, n, sizeof *v);
    if (n && !v) return nomem(d);
    for (uint32_t i = 0; i < n; i++) v[i] = pq_compact_i64(c);
    if (c->bad) return malformed(d, field);
    *out = v;
    *out_len = n;
    return 0;
}

HOT int dec_string_list(footer_dec *d, pq_compact *c, const pq_bytes **out, uint32_t *out_len,
                           const char *field)
{
    uint32_t n;
    if (list_header(d, c, PQ_WIRE_BINARY, &n, field)) return -1;
    pq_bytes *v = alloc_filled(d, n, sizeof *v);
    if (n && !v) return nomem(d);
    for (uint32_t i = 0; i < n; i++) v[i].ptr = pq_compact_binary(c, &v[i].len);
    if (c->bad) return malformed(d, field);
    *out = v;
    *out_len = n;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Leaf structs
 * ------------------------------------------------------------------------- */

static int dec_key_value(footer_dec *d, pq_key_value *kv, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    bool has_key = false;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (id == 1 && ft == PQ_WIRE_BINARY) {
            kv->key.ptr = pq_compact_binary(c, &kv->key.len);
            has_key = true;
        } else if (id == 2 && ft == PQ_WIRE_BINARY) {
            kv->value.ptr = pq_compact_binary(c, &kv->value.len);
            kv->has_value = true;
        } else if (skip_field(d, c, ft, id, depth)) {
            return -1;
        }
        if (c->bad) return malformed(d, id == 1 ? "key" : "value");
    }
    if (c->bad) return malformed(d, "(struct end)");
    if (!has_key) return missing(d, "key");
    return 0;
}

static int dec_key_value_list(footer_dec *d, const pq_key_value **out, uint32_t *out_len,
                              const char *field, int depth)
{
    pq_compact *c = &d->c;
    uint32_t n;
    if (list_header(d, c, PQ_WIRE_STRUCT, &n, field)) return -1;
    pq_key_value *v = alloc_array(d, n, sizeof *v);
    if (n && !v) return nomem(d);
    for (uint32_t i = 0; i < n; i++)
        if (dec_key_value(d, &v[i], depth + 1)) return at(d, "%s[%u]", field, i);
    *out = v;
    *out_len = n;
    return 0;
}

/* The end of a struct: usually just its STOP byte; else the generic loop
 * over whatever fields remain. */
#define REMAINING_FIELDS(FIELD)                                                                 \
    if (__builtin_expect(c->p < c->end && *c->p == PQ_WIRE_STOP, 1)) {                         \
        c->p++;                                                                                \
    } else {                                                                                   \
        for (;;) {                                                                             \
            int ft_ = pq_compact_field(c, &id);                                                \
            if (ft_ == PQ_WIRE_STOP) break;                                                    \
            if (FIELD(id, ft_)) return -1;                                                     \
        }                                                                                      \
    }

HOT int stats_field(footer_dec *d, pq_compact *c, pq_statistics *s, int16_t id, int ft,
                    int depth)
{
    if (!pq_statistics_field(c, s, id, ft)) return skip_field(d, c, ft, id, depth);
    if (__builtin_expect(c->bad, 0))
        return malformed(d, id >= 1 && id <= 9 ? pq_statistics_field_names[id] : "field");
    return 0;
}

HOT int dec_statistics(footer_dec *d, pq_compact *c, pq_statistics *s, int depth)
{
    int16_t id = 0;
#define F(fid, wt) stats_field(d, c, s, fid, wt, depth)
    PQ_IN_ORDER(F, 1, PQ_WIRE_BINARY)
    PQ_IN_ORDER(F, 2, PQ_WIRE_BINARY)
    PQ_IN_ORDER(F, 3, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 4, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 5, PQ_WIRE_BINARY)
    PQ_IN_ORDER(F, 6, PQ_WIRE_BINARY)
    PQ_IN_ORDER_BOOL(F, 7)
    PQ_IN_ORDER_BOOL(F, 8)
    REMAINING_FIELDS(F)
#undef F
    if (c->bad) return malformed(d, "(struct end)");
    return 0;
}

HOT int size_stats_field(footer_dec *d, pq_compact *c, pq_size_statistics *s, int16_t id,
                        int ft, int depth)
{
    if (id == 1 && ft == PQ_WIRE_I64) {
        s->unencoded_byte_array_data_bytes = pq_compact_i64(c);
        s->set |= PQ_SIZE_HAS_UNENCODED_BYTES;
        if (c->bad) return malformed(d, "unencoded_byte_array_data_bytes");
    } else if (id == 2 && ft == PQ_WIRE_LIST) {
        if (dec_i64_list(d, c, &s->repetition_level_histogram, &s->repetition_level_histogram_len,
                         "repetition_level_histogram"))
            return -1;
        s->set |= PQ_SIZE_HAS_REP_HISTOGRAM;
    } else if (id == 3 && ft == PQ_WIRE_LIST) {
        if (dec_i64_list(d, c, &s->definition_level_histogram, &s->definition_level_histogram_len,
                         "definition_level_histogram"))
            return -1;
        s->set |= PQ_SIZE_HAS_DEF_HISTOGRAM;
    } else {
        return skip_field(d, c, ft, id, depth);
    }
    return 0;
}

HOT int dec_size_statistics(footer_dec *d, pq_compact *c, pq_size_statistics *s, int depth)
{
    int16_t id = 0;
#define F(fid, wt) size_stats_field(d, c, s, fid, wt, depth)
    PQ_IN_ORDER(F, 1, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 2, PQ_WIRE_LIST)
    PQ_IN_ORDER(F, 3, PQ_WIRE_LIST)
    REMAINING_FIELDS(F)
#undef F
    if (c->bad) return malformed(d, "(struct end)");
    return 0;
}


static const char *const bbox_fields[9] = {"", "xmin", "xmax", "ymin", "ymax",
                                           "zmin", "zmax", "mmin", "mmax"};

static int dec_bounding_box(footer_dec *d, pq_bounding_box *b, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    unsigned seen = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (id >= 1 && id <= 8 && ft == PQ_WIRE_DOUBLE) {
            double v = pq_compact_double(c);
            if (c->bad) return malformed(d, bbox_fields[id]);
            switch (id) {
            case 1: b->xmin = v; break;
            case 2: b->xmax = v; break;
            case 3: b->ymin = v; break;
            case 4: b->ymax = v; break;
            case 5: b->zmin = v; b->set |= PQ_BBOX_HAS_ZMIN; break;
            case 6: b->zmax = v; b->set |= PQ_BBOX_HAS_ZMAX; break;
            case 7: b->mmin = v; b->set |= PQ_BBOX_HAS_MMIN; break;
            default: b->mmax = v; b->set |= PQ_BBOX_HAS_MMAX; break;
            }
            seen |= 1u << id;
        } else if (skip_field(d, c, ft, id, depth)) {
            return -1;
        }
    }
    if (c->bad) return malformed(d, "(struct end)");
    for (int f = 1; f <= 4; f++)
        if (!(seen & (1u << f))) return missing(d, bbox_fields[f]);
    return 0;
}

static int dec_geospatial_statistics(footer_dec *d, pq_geospatial_statistics *g, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (id == 1 && ft == PQ_WIRE_STRUCT) {
            if (dec_bounding_box(d, &g->bbox, depth + 1)) return at(d, "bbox");
            g->set |= PQ_GEO_HAS_BBOX;
        } else if (id == 2 && ft == PQ_WIRE_LIST) {
            if (dec_i32_list(d, c, &g->geospatial_types, &g->geospatial_types_len,
                             "geospatial_types"))
                return -1;
            g->set |= PQ_GEO_HAS_TYPES;
        } else if (skip_field(d, c, ft, id, depth)) {
            return -1;
        }
    }
    if (c->bad) return malformed(d, "(struct end)");
    return 0;
}

HOT int dec_page_encoding_stats(footer_dec *d, pq_compact *c, pq_page_encoding_stats *e, int depth)
{
    int16_t id = 0;
    unsigned seen = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (id >= 1 && id <= 3 && ft == PQ_WIRE_I32) {
            int32_t v = pq_compact_i32(c);
            if (c->bad) return malformed(d, id == 1 ? "page_type" : id == 2 ? "encoding" : "count");
            if (id == 1) {
                if (v < 0 || v > PQ_PAGE_DATA_V2) return invalid_enum(d, "page_type", v);
                e->page_type = v;
            } else if (id == 2) {
                e->encoding = v;
            } else {
                e->count = v;
            }
            seen |= 1u << id;
        } else if (skip_field(d, c, ft, id, depth)) {
            return -1;
        }
    }
    if (c->bad) return malformed(d, "(struct end)");
    if (!(seen & 2)) return missing(d, "page_type");
    if (!(seen & 4)) return missing(d, "encoding");
    if (!(seen & 8)) return missing(d, "count");
    return 0;
}

static int dec_sorting_column(footer_dec *d, pq_sorting_column *s, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    unsigned seen = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (id == 1 && ft == PQ_WIRE_I32) {
            s->column_idx = pq_compact_i32(c);
            if (c->bad) return malformed(d, "column_idx");
            seen |= 2;
        } else if (id == 2 && is_bool(ft)) {
            s->descending = ft == PQ_WIRE_BOOL_TRUE;
            seen |= 4;
        } else if (id == 3 && is_bool(ft)) {
            s->nulls_first = ft == PQ_WIRE_BOOL_TRUE;
            seen |= 8;
        } else if (skip_field(d, c, ft, id, depth)) {
            return -1;
        }
    }
    if (c->bad) return malformed(d, "(struct end)");
    if (!(seen & 2)) return missing(d, "column_idx");
    if (!(seen & 4)) return missing(d, "descending");
    if (!(seen & 8)) return missing(d, "nulls_first");
    return 0;
}

/* A union whose members we only identify: returns the member's field id (the
 * last one present), skipping its contents. */
static int dec_union_member(footer_dec *d, int32_t *member, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    *member = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (skip_field(d, c, ft, id, depth)) return -1;
        if (ft == PQ_WIRE_STRUCT) *member = id;
    }
    if (c->bad) return malformed(d, "(struct end)");
    return 0;
}

/* ---------------------------------------------------------------------------
 * Encryption: EncryptionAlgorithm, ColumnCryptoMetaData, FileCryptoMetaData
 * ------------------------------------------------------------------------- */

/* AesGcmV1 / AesGcmCtrV1: {1: aad_prefix, 2: aad_file_unique, 3: supply_aad_prefix}. */
static int dec_aes_params(footer_dec *d, pq_encryption_algorithm *a, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (id == 1 && ft == PQ_WIRE_BINARY) {
            a->aad_prefix.ptr = pq_compact_binary(c, &a->aad_prefix.len);
        } else if (id == 2 && ft == PQ_WIRE_BINARY) {
            a->aad_file_unique.ptr = pq_compact_binary(c, &a->aad_file_unique.len);
        } else if (id == 3 && is_bool(ft)) {
            a->supply_aad_prefix = ft == PQ_WIRE_BOOL_TRUE;
        } else if (skip_field(d, c, ft, id, depth)) {
            return -1;
        }
        if (c->bad) return malformed(d, "(field)");
    }
    if (c->bad) return malformed(d, "(struct end)");
    return 0;
}

static int dec_encryption_algorithm(footer_dec *d, pq_encryption_algorithm *a, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    memset(a, 0, sizeof *a);
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if ((id == 1 || id == 2) && ft == PQ_WIRE_STRUCT) {
            memset(a, 0, sizeof *a);
            if (dec_aes_params(d, a, depth + 1)) return at(d, id == 1 ? "AES_GCM_V1" : "AES_GCM_CTR_V1");
            a->id = id;
        } else {
            if (skip_field(d, c, ft, id, depth)) return -1;
            if (ft == PQ_WIRE_STRUCT) a->id = PQ_ENCRYPTION_UNKNOWN;
        }
    }
    if (c->bad) return malformed(d, "(struct end)");
    return 0;
}

/* ColumnCryptoMetaData: 1 = EncryptionWithFooterKey {}, 2 =
 * EncryptionWithColumnKey {1: path_in_schema, 2: key_metadata}. */
static int dec_column_crypto(footer_dec *d, pq_column_chunk *cc, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    cc->crypto_kind = PQ_CRYPTO_NONE;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (id == 2 && ft == PQ_WIRE_STRUCT) {
            int16_t fid = 0;
            for (;;) {
                int t = pq_compact_field(c, &fid);
                if (t == PQ_WIRE_STOP) break;
                if (fid == 1 && t == PQ_WIRE_LIST) {
                    if (dec_string_list(d, c, &cc->column_key_path, &cc->column_key_path_len,
                                        "path_in_schema"))
                        return at(d, "ENCRYPTION_WITH_COLUMN_KEY");
                } else if (fid == 2 && t == PQ_WIRE_BINARY) {
                    cc->column_key_metadata.ptr = pq_compact_binary(c, &cc->column_key_metadata.len);
                    if (c->bad) return malformed(d, "key_metadata"), at(d, "ENCRYPTION_WITH_COLUMN_KEY");
                } else if (skip_field(d, c, t, fid, depth + 1)) {
                    return at(d, "ENCRYPTION_WITH_COLUMN_KEY");
                }
            }
            if (c->bad) return malformed(d, "ENCRYPTION_WITH_COLUMN_KEY");
            cc->crypto_kind = PQ_CRYPTO_COLUMN_KEY;
        } else {
            if (skip_field(d, c, ft, id, depth)) return -1;
            if (ft == PQ_WIRE_STRUCT) cc->crypto_kind = id == 1 ? PQ_CRYPTO_FOOTER_KEY : PQ_CRYPTO_NONE;
        }
    }
    if (c->bad) return malformed(d, "(struct end)");
    return 0;
}

/* ---------------------------------------------------------------------------
 * Logical types (SchemaElement.logicalType)
 * ------------------------------------------------------------------------- */

static int dec_time_unit(footer_dec *d, uint8_t *unit, int depth)
{
    int32_t member;
    if (dec_union_member(d, &member, depth)) return -1;
    /* An unknown unit leaves PQ_UNIT_NONE: the column is then unsupported,
     * which the decode stage reports, rather than a footer error. */
    *unit = (member >= PQ_UNIT_MILLIS && member <= PQ_UNIT_NANOS) ? (uint8_t)member : PQ_UNIT_NONE;
    return 0;
}

/* TIME and TIMESTAMP share a layout. */
static int dec_time_like(footer_dec *d, pq_logical_type *lt, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    unsigned seen = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (id == 1 && is_bool(ft)) {
            lt->is_adjusted_to_utc = ft == PQ_WIRE_BOOL_TRUE;
            seen |= 2;
        } else if (id == 2 && ft == PQ_WIRE_STRUCT) {
            if (dec_time_unit(d, &lt->unit, depth + 1)) return at(d, "unit");
            seen |= 4;
        } else if (skip_field(d, c, ft, id, depth)) {
            return -1;
        }
    }
    if (c->bad) return malformed(d, "(struct end)");
    if (!(seen & 2)) return missing(d, "isAdjustedToUTC");
    if (!(seen & 4)) return missing(d, "unit");
    return 0;
}

static int dec_decimal_type(footer_dec *d, pq_logical_type *lt, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    unsigned seen = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if ((id == 1 || id == 2) && ft == PQ_WIRE_I32) {
            int32_t v = pq_compact_i32(c);
            if (c->bad) return malformed(d, id == 1 ? "scale" : "precision");
            if (id == 1) lt->scale = v;
            else lt->precision = v;
            seen |= 1u << id;
        } else if (skip_field(d, c, ft, id, depth)) {
            return -1;
        }
    }
    if (c->bad) return malformed(d, "(struct end)");
    if (!(seen & 2)) return missing(d, "scale");
    if (!(seen & 4)) return missing(d, "precision");
    return 0;
}

static int dec_int_type(footer_dec *d, pq_logical_type *lt, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    unsigned seen = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (id == 1 && ft == PQ_WIRE_BYTE) {
            lt->bit_width = pq_compact_byte(c);
            if (c->bad) return malformed(d, "bitWidth");
            seen |= 2;
        } else if (id == 2 && is_bool(ft)) {
            lt->is_signed = ft == PQ_WIRE_BOOL_TRUE;
            seen |= 4;
        } else if (skip_field(d, c, ft, id, depth)) {
            return -1;
        }
    }
    if (c->bad) return malformed(d, "(struct end)");
    if (!(seen & 2)) return missing(d, "bitWidth");
    if (!(seen & 4)) return missing(d, "isSigned");
    return 0;
}

/* VARIANT, GEOMETRY and GEOGRAPHY: all fields optional. */
static int dec_variant_or_geo(footer_dec *d, pq_logical_type *lt, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (lt->kind == PQ_LOGICAL_VARIANT && id == 1 && ft == PQ_WIRE_BYTE) {
            lt->variant_version = pq_compact_byte(c);
            lt->has_variant_version = true;
            if (c->bad) return malformed(d, "specification_version");
        } else if (lt->kind != PQ_LOGICAL_VARIANT && id == 1 && ft == PQ_WIRE_BINARY) {
            lt->crs.ptr = pq_compact_binary(c, &lt->crs.len);
            lt->has_crs = true;
            if (c->bad) return malformed(d, "crs");
        } else if (lt->kind == PQ_LOGICAL_GEOGRAPHY && id == 2 && ft == PQ_WIRE_I32) {
            lt->algorithm = pq_compact_i32(c);
            lt->has_algorithm = true;
            if (c->bad) return malformed(d, "algorithm");
        } else if (skip_field(d, c, ft, id, depth)) {
            return -1;
        }
    }
    if (c->bad) return malformed(d, "(struct end)");
    return 0;
}

static const char *const logical_names[19] = {
    "", "STRING", "MAP", "LIST", "ENUM", "DECIMAL", "DATE", "TIME", "TIMESTAMP", "9",
    "INTEGER", "UNKNOWN", "JSON", "BSON", "UUID", "FLOAT16", "VARIANT", "GEOMETRY", "GEOGRAPHY"};

static int dec_logical_type(footer_dec *d, pq_logical_type *lt, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (ft != PQ_WIRE_STRUCT || id < 1 || id > 18 || id == 9) {
            if (skip_field(d, c, ft, id, depth)) return -1;
            if (ft == PQ_WIRE_STRUCT) {
                memset(lt, 0, sizeof *lt);
                lt->kind = PQ_LOGICAL_FUTURE;
            }
            continue;
        }
        memset(lt, 0, sizeof *lt);
        lt->kind = (uint8_t)id;
        int rc;
        switch (id) {
        case PQ_LOGICAL_DECIMAL: rc = dec_decimal_type(d, lt, depth + 1); break;
        case PQ_LOGICAL_TIME:
        case PQ_LOGICAL_TIMESTAMP: rc = dec_time_like(d, lt, depth + 1); break;
        case PQ_LOGICAL_INTEGER: rc = dec_int_type(d, lt, depth + 1); break;
        case PQ_LOGICAL_VARIANT:
        case PQ_LOGICAL_GEOMETRY:
        case PQ_LOGICAL_GEOGRAPHY: rc = dec_variant_or_geo(d, lt, depth + 1); break;
        default: /* empty structs; tolerate fields added later */
            rc = skip_field(d, c, ft, id, depth);
            break;
        }
        if (rc) return at(d, "%s", logical_names[id]);
    }
    if (c->bad) return malformed(d, "(struct end)");
    return 0;
}

/* ---------------------------------------------------------------------------
 * SchemaElement
 * ------------------------------------------------------------------------- */

static const char *const schema_fields[11] = {
    "", "type", "type_length", "repetition_type", "name", "num_children",
    "converted_type", "scale", "precision", "field_id", "logicalType"};

static int dec_schema_element(footer_dec *d, pq_schema_element *se, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    bool has_name = false;
    se->converted_type = PQ_CT_NONE;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (id == 4 && ft == PQ_WIRE_BINARY) {
            se->name.ptr = pq_compact_binary(c, &se->name.len);
            has_name = true;
        } else if (id == 10 && ft == PQ_WIRE_STRUCT) {
            if (dec_logical_type(d, &se->logical, depth + 1)) return at(d, "logicalType");
            se->set |= PQ_SE_HAS_LOGICAL_TYPE;
        } else if (id >= 1 && id <= 9 && ft == PQ_WIRE_I32) {
            int32_t v = pq_compact_i32(c);
            if (c->bad) return malformed(d, schema_fields[id]);
            switch (id) {
            case 1:
                if (v < PQ_BOOLEAN || v > PQ_FIXED_LEN_BYTE_ARRAY) return invalid_enum(d, "type", v);
                se->type = v;
                se->set |= PQ_SE_HAS_TYPE;
                break;
            case 2: se->type_length = v; se->set |= PQ_SE_HAS_TYPE_LENGTH; break;
            case 3:
                if (v < PQ_REQUIRED || v > PQ_REPEATED) return invalid_enum(d, "repetition_type", v);
                se->repetition = v;
                se->set |= PQ_SE_HAS_REPETITION;
                break;
            case 5: se->num_children = v; se->set |= PQ_SE_HAS_NUM_CHILDREN; break;
            case 6: /* kept raw: an unknown value is ignored (with a warning) by the schema */
                se->converted_type = v;
                se->set |= PQ_SE_HAS_CONVERTED_TYPE;
                break;
            case 7: se->scale = v; se->set |= PQ_SE_HAS_SCALE; break;
            case 8: se->precision = v; se->set |= PQ_SE_HAS_PRECISION; break;
            case 9: se->field_id = v; se->set |= PQ_SE_HAS_FIELD_ID; break;
            default: /* id 4 with the wrong type */
                break;
            }
        } else if (skip_field(d, c, ft, id, depth)) {
            return -1;
        }
        if (c->bad) return malformed(d, id >= 1 && id <= 10 ? schema_fields[id] : "field");
    }
    if (c->bad) return malformed(d, "(struct end)");
    if (!has_name) return missing(d, "name");
    return 0;
}

/* ---------------------------------------------------------------------------
 * ColumnMetaData and ColumnChunk: the hot path
 * ------------------------------------------------------------------------- */

static const char *const cmd_fields[18] = {
    "", "type", "encodings", "path_in_schema", "codec", "num_values",
    "total_uncompressed_size", "total_compressed_size", "key_value_metadata",
    "data_page_offset", "index_page_offset", "dictionary_page_offset", "statistics",
    "encoding_stats", "bloom_filter_offset", "bloom_filter_length", "size_statistics",
    "geospatial_statistics"};

HOT int cmd_field(footer_dec *d, pq_compact *c, pq_column_meta *m, int16_t id, int ft,
                 int depth, unsigned *seen)
{
    switch (id) {
        case 1:
            if (ft != PQ_WIRE_I32) goto skip;
            m->type = pq_compact_i32(c);
            if ((uint32_t)m->type > PQ_FIXED_LEN_BYTE_ARRAY && !c->bad)
                return invalid_enum(d, "type", m->type);
            break;
        case 2:
            if (ft != PQ_WIRE_LIST) goto skip;
            if (dec_i32_list(d, c, &m->encodings, &m->encodings_len, "encodings")) return -1;
            break;
        case 3:
            if (ft != PQ_WIRE_LIST) goto skip;
            if (dec_string_list(d, c, &m->path_in_schema, &m->path_in_schema_len, "path_in_schema"))
                return -1;
            break;
        case 4:
            if (ft != PQ_WIRE_I32) goto skip;
            m->codec = pq_compact_i32(c);
            if ((uint32_t)m->codec > PQ_CODEC_LZ4_RAW && !c->bad)
                return invalid_enum(d, "codec", m->codec);
            break;
        case 5:
            if (ft != PQ_WIRE_I64) goto skip;
            m->num_values = pq_compact_i64(c);
            break;
        case 6:
            if (ft != PQ_WIRE_I64) goto skip;
            m->total_uncompressed_size = pq_compact_i64(c);
            break;
        case 7:
            if (ft != PQ_WIRE_I64) goto skip;
            m->total_compressed_size = pq_compact_i64(c);
            break;
        case 8:
            if (ft != PQ_WIRE_LIST) goto skip;
            d->c = *c;
            if (dec_key_value_list(d, &m->key_value_metadata, &m->key_value_metadata_len,
                                   "key_value_metadata", depth))
                return -1;
            *c = d->c;
            m->set |= PQ_CMD_HAS_KEY_VALUE;
            break;
        case 9:
            if (ft != PQ_WIRE_I64) goto skip;
            m->data_page_offset = pq_compact_i64(c);
            break;
        case 10:
            if (ft != PQ_WIRE_I64) goto skip;
            m->index_page_offset = pq_compact_i64(c);
            m->set |= PQ_CMD_HAS_INDEX_PAGE_OFFSET;
            break;
        case 11:
            if (ft != PQ_WIRE_I64) goto skip;
            m->dictionary_page_offset = pq_compact_i64(c);
            m->set |= PQ_CMD_HAS_DICTIONARY_PAGE_OFFSET;
            break;
        case 12:
            if (ft != PQ_WIRE_STRUCT) goto skip;
            if (dec_statistics(d, c, &m->statistics, depth + 1)) return at(d, "statistics");
            m->set |= PQ_CMD_HAS_STATISTICS;
            break;
        case 13: {
            if (ft != PQ_WIRE_LIST) goto skip;
            uint32_t n;
            if (list_header(d, c, PQ_WIRE_STRUCT, &n, "encoding_stats")) return -1;
            pq_page_encoding_stats *v = alloc_filled(d, n, sizeof *v);
            if (n && !v) return nomem(d);
            for (uint32_t i = 0; i < n; i++)
                if (dec_page_encoding_stats(d, c, &v[i], depth + 1))
                    return at(d, "encoding_stats[%u]", i);
            m->encoding_stats = v;
            m->encoding_stats_len = n;
            m->set |= PQ_CMD_HAS_ENCODING_STATS;
            break;
        }
        case 14:
            if (ft != PQ_WIRE_I64) goto skip;
            m->bloom_filter_offset = pq_compact_i64(c);
            m->set |= PQ_CMD_HAS_BLOOM_FILTER_OFFSET;
            break;
        case 15:
            if (ft != PQ_WIRE_I32) goto skip;
            m->bloom_filter_length = pq_compact_i32(c);
            m->set |= PQ_CMD_HAS_BLOOM_FILTER_LENGTH;
            break;
        case 16: {
            if (ft != PQ_WIRE_STRUCT) goto skip;
            pq_size_statistics *s = pq_arena_calloc(d->arena, 1, sizeof *s);
            if (!s) return nomem(d);
            if (dec_size_statistics(d, c, s, depth + 1)) return at(d, "size_statistics");
            m->size_statistics = s;
            m->set |= PQ_CMD_HAS_SIZE_STATISTICS;
            break;
        }
        case 17: {
            if (ft != PQ_WIRE_STRUCT) goto skip;
            pq_geospatial_statistics *g = pq_arena_calloc(d->arena, 1, sizeof *g);
            if (!g) return nomem(d);
            d->c = *c;
            if (dec_geospatial_statistics(d, g, depth + 1)) return at(d, "geospatial_statistics");
            *c = d->c;
            m->geospatial_statistics = g;
            m->set |= PQ_CMD_HAS_GEOSPATIAL_STATISTICS;
            break;
        }
        default:
        skip:
            return skip_field(d, c, ft, id, depth);
        }
    if (__builtin_expect(c->bad, 0)) return malformed(d, cmd_fields[id]);
    *seen |= 1u << id;
    return 0;
}

HOT int dec_column_meta(footer_dec *d, pq_compact *c, pq_column_meta *m, int depth)
{
    int16_t id = 0;
    unsigned seen = 0;
#define F(fid, wt) cmd_field(d, c, m, fid, wt, depth, &seen)
    PQ_IN_ORDER(F, 1, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 2, PQ_WIRE_LIST)
    PQ_IN_ORDER(F, 3, PQ_WIRE_LIST)
    PQ_IN_ORDER(F, 4, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 5, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 6, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 7, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 8, PQ_WIRE_LIST)
    PQ_IN_ORDER(F, 9, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 10, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 11, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 12, PQ_WIRE_STRUCT)
    PQ_IN_ORDER(F, 13, PQ_WIRE_LIST)
    PQ_IN_ORDER(F, 14, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 15, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 16, PQ_WIRE_STRUCT)
    PQ_IN_ORDER(F, 17, PQ_WIRE_STRUCT)
    REMAINING_FIELDS(F)
#undef F
    if (c->bad) return malformed(d, "(struct end)");
    /* Required: type, encodings, path_in_schema, codec, num_values, both sizes,
     * data_page_offset (ids 1-7 and 9). */
    const unsigned required = 0x2feu;
    if (__builtin_expect((seen & required) != required, 0)) {
        for (int f = 1; f <= 9; f++)
            if ((required >> f & 1) && !(seen >> f & 1)) return missing(d, cmd_fields[f]);
    }
    return 0;
}

HOT int chunk_field(footer_dec *d, pq_compact *c, pq_column_chunk *cc, int16_t id, int ft,
                   int depth)
{
    switch (id) {
        case 1:
            if (ft != PQ_WIRE_BINARY) goto skip;
            cc->file_path.ptr = pq_compact_binary(c, &cc->file_path.len);
            cc->set |= PQ_CC_HAS_FILE_PATH;
            if (c->bad) return malformed(d, "file_path");
            break;
        case 2:
            if (ft != PQ_WIRE_I64) goto skip;
            cc->file_offset = pq_compact_i64(c);
            if (c->bad) return malformed(d, "file_offset");
            break;
        case 3:
            if (ft != PQ_WIRE_STRUCT) goto skip;
            if (dec_column_meta(d, c, &cc->meta_data, depth + 1)) return at(d, "meta_data");
            cc->set |= PQ_CC_HAS_META_DATA;
            break;
        case 4:
            if (ft != PQ_WIRE_I64) goto skip;
            cc->offset_index_offset = pq_compact_i64(c);
            cc->set |= PQ_CC_HAS_OFFSET_INDEX_OFFSET;
            if (c->bad) return malformed(d, "offset_index_offset");
            break;
        case 5:
            if (ft != PQ_WIRE_I32) goto skip;
            cc->offset_index_length = pq_compact_i32(c);
            cc->set |= PQ_CC_HAS_OFFSET_INDEX_LENGTH;
            if (c->bad) return malformed(d, "offset_index_length");
            break;
        case 6:
            if (ft != PQ_WIRE_I64) goto skip;
            cc->column_index_offset = pq_compact_i64(c);
            cc->set |= PQ_CC_HAS_COLUMN_INDEX_OFFSET;
            if (c->bad) return malformed(d, "column_index_offset");
            break;
        case 7:
            if (ft != PQ_WIRE_I32) goto skip;
            cc->column_index_length = pq_compact_i32(c);
            cc->set |= PQ_CC_HAS_COLUMN_INDEX_LENGTH;
            if (c->bad) return malformed(d, "column_index_length");
            break;
        case 8: {
            if (ft != PQ_WIRE_STRUCT) goto skip;
            d->c = *c;
            if (dec_column_crypto(d, cc, depth + 1)) return at(d, "crypto_metadata");
            *c = d->c;
            cc->set |= PQ_CC_HAS_CRYPTO_METADATA;
            break;
        }
        case 9:
            if (ft != PQ_WIRE_BINARY) goto skip;
            cc->encrypted_column_metadata.ptr =
                pq_compact_binary(c, &cc->encrypted_column_metadata.len);
            cc->set |= PQ_CC_HAS_ENCRYPTED_METADATA;
            if (c->bad) return malformed(d, "encrypted_column_metadata");
            break;
        default:
        skip:
            if (skip_field(d, c, ft, id, depth)) return -1;
        }
    return 0;
}

/* Not inlined into its two callers (full and projected row groups): one
 * copy keeps the hot loop tight; inlining it measured ~10% slower. */
static __attribute__((noinline)) int dec_column_chunk(footer_dec *d, pq_column_chunk *cc, int depth)
{
    /* A local cursor: stores into the output structs (some through byte-sized
     * types, which may alias anything) then cannot force it back to memory. */
    pq_compact cur = d->c;
    pq_compact *c = &cur;
    int16_t id = 0;
#define F(fid, wt) chunk_field(d, c, cc, fid, wt, depth)
    PQ_IN_ORDER(F, 1, PQ_WIRE_BINARY)
    PQ_IN_ORDER(F, 2, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 3, PQ_WIRE_STRUCT)
    PQ_IN_ORDER(F, 4, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 5, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 6, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 7, PQ_WIRE_I32)
    REMAINING_FIELDS(F)
#undef F
    if (c->bad) return malformed(d, "(struct end)");
    d->c = cur;
    return 0;
}

/* ---------------------------------------------------------------------------
 * RowGroup
 * ------------------------------------------------------------------------- */

/* What every chunk outside a projection points to. */
static const pq_column_chunk skipped_chunk = {.set = PQ_CC_SKIPPED};

static int dec_row_group_columns(footer_dec *d, pq_row_group *rg, int depth)
{
    pq_compact *c = &d->c;
    uint32_t n;
    if (list_header(d, c, PQ_WIRE_STRUCT, &n, "columns")) return -1;
    const pq_column_chunk **ptrs = alloc_filled(d, n, sizeof *ptrs);
    if (n && !ptrs) return nomem(d);
    if (!d->keep) {
        /* Full decode: one contiguous, zeroed block for the row group. */
        pq_column_chunk *cols = alloc_array(d, n, sizeof *cols);
        if (n && !cols) return nomem(d);
        for (uint32_t i = 0; i < n; i++) {
            if (dec_column_chunk(d, &cols[i], depth + 1)) return at(d, "columns[%u]", i);
            ptrs[i] = &cols[i];
        }
    } else {
        for (uint32_t i = 0; i < n; i++) {
            if (i >= d->keep_len || !d->keep[i]) {
                /* Outside the projection: keep nothing. Decoding into scratch
                 * and handing the arena bytes back is faster than a generic
                 * skip, whose per-field type switch mispredicts, and checks
                 * the chunk as strictly as a kept one. */
                pq_column_chunk scratch;
                memset(&scratch, 0, sizeof scratch);
                pq_arena_mark mark = pq_arena_get_mark(d->arena);
                if (dec_column_chunk(d, &scratch, depth + 1)) return at(d, "columns[%u]", i);
                pq_arena_rewind(d->arena, mark);
                ptrs[i] = &skipped_chunk;
                continue;
            }
            pq_column_chunk *cc = pq_arena_calloc(d->arena, 1, sizeof *cc);
            if (!cc) return nomem(d);
            if (dec_column_chunk(d, cc, depth + 1)) return at(d, "columns[%u]", i);
            ptrs[i] = cc;
        }
    }
    rg->columns = ptrs;
    rg->columns_len = n;
    return 0;
}

static int dec_row_group(footer_dec *d, pq_row_group *rg, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    unsigned seen = 0;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        switch (id) {
        case 1:
            if (ft != PQ_WIRE_LIST) goto skip;
            if (dec_row_group_columns(d, rg, depth)) return -1;
            break;
        case 2:
            if (ft != PQ_WIRE_I64) goto skip;
            rg->total_byte_size = pq_compact_i64(c);
            if (c->bad) return malformed(d, "total_byte_size");
            break;
        case 3:
            if (ft != PQ_WIRE_I64) goto skip;
            rg->num_rows = pq_compact_i64(c);
            if (c->bad) return malformed(d, "num_rows");
            if (rg->num_rows < 0) {
                fail(d, PQ_ERR_CORRUPT_FOOTER, "negative value %lld", (long long)rg->num_rows);
                return at(d, "num_rows");
            }
            break;
        case 4: {
            if (ft != PQ_WIRE_LIST) goto skip;
            uint32_t n;
            if (list_header(d, c, PQ_WIRE_STRUCT, &n, "sorting_columns")) return -1;
            pq_sorting_column *v = alloc_array(d, n, sizeof *v);
            if (n && !v) return nomem(d);
            for (uint32_t i = 0; i < n; i++)
                if (dec_sorting_column(d, &v[i], depth + 1)) return at(d, "sorting_columns[%u]", i);
            rg->sorting_columns = v;
            rg->sorting_columns_len = n;
            rg->set |= PQ_RG_HAS_SORTING_COLUMNS;
            break;
        }
        case 5:
            if (ft != PQ_WIRE_I64) goto skip;
            rg->file_offset = pq_compact_i64(c);
            rg->set |= PQ_RG_HAS_FILE_OFFSET;
            if (c->bad) return malformed(d, "file_offset");
            break;
        case 6:
            if (ft != PQ_WIRE_I64) goto skip;
            rg->total_compressed_size = pq_compact_i64(c);
            rg->set |= PQ_RG_HAS_TOTAL_COMPRESSED_SIZE;
            if (c->bad) return malformed(d, "total_compressed_size");
            break;
        case 7:
            if (ft != PQ_WIRE_I16) goto skip;
            rg->ordinal = pq_compact_i16(c);
            rg->set |= PQ_RG_HAS_ORDINAL;
            if (c->bad) return malformed(d, "ordinal");
            break;
        default:
        skip:
            if (skip_field(d, c, ft, id, depth)) return -1;
            continue;
        }
        seen |= 1u << id;
    }
    if (c->bad) return malformed(d, "(struct end)");
    if (!(seen & 2)) return missing(d, "columns");
    if (!(seen & 4)) return missing(d, "total_byte_size");
    if (!(seen & 8)) return missing(d, "num_rows");
    return 0;
}

/* ---------------------------------------------------------------------------
 * FileMetaData
 * ------------------------------------------------------------------------- */

static int dec_file_metadata(footer_dec *d, pq_file_metadata *fm)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    unsigned seen = 0;
    const int depth = 1;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        switch (id) {
        case 1:
            if (ft != PQ_WIRE_I32) goto skip;
            fm->version = pq_compact_i32(c);
            if (c->bad) return malformed(d, "version"), at(d, "FileMetaData");
            break;
        case 2: {
            if (ft != PQ_WIRE_LIST) goto skip;
            uint32_t n;
            if (list_header(d, c, PQ_WIRE_STRUCT, &n, "schema")) return at(d, "FileMetaData");
            pq_schema_element *v = alloc_array(d, n, sizeof *v);
            if (n && !v) return nomem(d);
            for (uint32_t i = 0; i < n; i++)
                if (dec_schema_element(d, &v[i], depth + 1)) return at(d, "SchemaElement[%u]", i);
            fm->schema = v;
            fm->schema_len = n;
            break;
        }
        case 3:
            if (ft != PQ_WIRE_I64) goto skip;
            fm->num_rows = pq_compact_i64(c);
            if (c->bad) return malformed(d, "num_rows"), at(d, "FileMetaData");
            if (fm->num_rows < 0) {
                fail(d, PQ_ERR_CORRUPT_FOOTER, "negative value %lld", (long long)fm->num_rows);
                return at(d, "num_rows"), at(d, "FileMetaData");
            }
            break;
        case 4: {
            if (ft != PQ_WIRE_LIST) goto skip;
            uint32_t n;
            if (list_header(d, c, PQ_WIRE_STRUCT, &n, "row_groups")) return at(d, "FileMetaData");
            pq_row_group *v = alloc_array(d, n, sizeof *v);
            if (n && !v) return nomem(d);
            for (uint32_t i = 0; i < n; i++)
                if (dec_row_group(d, &v[i], depth + 1)) return at(d, "RowGroup[%u]", i);
            fm->row_groups = v;
            fm->row_groups_len = n;
            break;
        }
        case 5:
            if (ft != PQ_WIRE_LIST) goto skip;
            if (dec_key_value_list(d, &fm->key_value_metadata, &fm->key_value_metadata_len,
                                   "key_value_metadata", depth))
                return at(d, "FileMetaData");
            fm->set |= PQ_FMD_HAS_KEY_VALUE;
            break;
        case 6:
            if (ft != PQ_WIRE_BINARY) goto skip;
            fm->created_by.ptr = pq_compact_binary(c, &fm->created_by.len);
            if (c->bad) return malformed(d, "created_by"), at(d, "FileMetaData");
            fm->set |= PQ_FMD_HAS_CREATED_BY;
            break;
        case 7: {
            if (ft != PQ_WIRE_LIST) goto skip;
            uint32_t n;
            if (list_header(d, c, PQ_WIRE_STRUCT, &n, "column_orders")) return at(d, "FileMetaData");
            int32_t *v = alloc_array(d, n, sizeof *v);
            if (n && !v) return nomem(d);
            for (uint32_t i = 0; i < n; i++) {
                int32_t member;
                if (dec_union_member(d, &member, depth + 1)) return at(d, "ColumnOrder[%u]", i);
                v[i] = member == 1   ? PQ_COLUMN_ORDER_TYPE_DEFINED
                       : member == 2 ? PQ_COLUMN_ORDER_IEEE754_TOTAL
                                     : PQ_COLUMN_ORDER_UNKNOWN;
            }
            fm->column_orders = v;
            fm->column_orders_len = n;
            fm->set |= PQ_FMD_HAS_COLUMN_ORDERS;
            break;
        }
        case 8:
            if (ft != PQ_WIRE_STRUCT) goto skip;
            if (dec_encryption_algorithm(d, &fm->encryption, depth + 1))
                return at(d, "encryption_algorithm"), at(d, "FileMetaData");
            fm->encryption_algorithm = fm->encryption.id;
            fm->set |= PQ_FMD_HAS_ENCRYPTION_ALGORITHM;
            break;
        case 9:
            if (ft != PQ_WIRE_BINARY) goto skip;
            fm->footer_signing_key_metadata.ptr =
                pq_compact_binary(c, &fm->footer_signing_key_metadata.len);
            if (c->bad) return malformed(d, "footer_signing_key_metadata"), at(d, "FileMetaData");
            fm->set |= PQ_FMD_HAS_FOOTER_SIGNING_KEY;
            break;
        default:
        skip:
            if (skip_field(d, c, ft, id, depth)) return at(d, "FileMetaData");
            continue;
        }
        seen |= 1u << id;
    }
    if (c->bad) return malformed(d, "(struct end)"), at(d, "FileMetaData");
    if (!(seen & 2)) return missing(d, "version"), at(d, "FileMetaData");
    if (!(seen & 4)) return missing(d, "schema"), at(d, "FileMetaData");
    if (!(seen & 8)) return missing(d, "num_rows"), at(d, "FileMetaData");
    if (!(seen & 16)) return missing(d, "row_groups"), at(d, "FileMetaData");
    return 0;
}

/* The error of a failed decode: the path joined outermost first
 * ("RowGroup[3].columns[7].meta_data.codec"), after `root` when
 * `root_always` (else `root` stands only for an empty path). */
static pq_status dec_error(const footer_dec *d, const char *root, bool root_always, pq_error *err)
{
    char path[MAX_SEGMENTS * SEGMENT_SIZE];
    size_t n = 0;
    path[0] = '\0';
    for (int i = d->nseg - 1; i >= 0 && n < sizeof path; i--)
        n += (size_t)snprintf(path + n, sizeof path - n, "%s%s", n ? "." : "", d->seg[i]);
    if (d->status == PQ_ERR_NOMEM) return pq_error_set(err, PQ_ERR_NOMEM, "%s", d->what);
    if (!root_always) return pq_error_set(err, d->status, "%s: %s", n ? path : root, d->what);
    return pq_error_set(err, d->status, "%s%s%s: %s", root, n ? "." : "", path, d->what);
}

pq_status pq_footer_decode(const uint8_t *buf, size_t len, pq_arena *arena,
                           const uint8_t *keep, uint32_t keep_len,
                           pq_file_metadata *out, pq_error *err)
{
    footer_dec d;
    pq_compact_init(&d.c, buf, len);
    d.arena = arena;
    d.keep = keep;
    d.keep_len = keep_len;
    d.status = PQ_OK;
    d.nseg = 0;
    d.what[0] = '\0';
    memset(out, 0, sizeof *out);

    if (dec_file_metadata(&d, out) == 0) return PQ_OK;

    return dec_error(&d, "FileMetaData", false, err);
}

static void dec_start(footer_dec *d, const uint8_t *buf, size_t len, pq_arena *arena)
{
    pq_compact_init(&d->c, buf, len);
    d->arena = arena;
    d->keep = NULL;
    d->keep_len = 0;
    d->status = PQ_OK;
    d->nseg = 0;
    d->what[0] = '\0';
}

pq_status pq_column_meta_decode(const uint8_t *buf, size_t len, pq_arena *arena, pq_column_meta *out,
                                pq_error *err)
{
    footer_dec d;
    dec_start(&d, buf, len, arena);
    memset(out, 0, sizeof *out);
    pq_compact cur = d.c;
    if (dec_column_meta(&d, &cur, out, 1) == 0) return PQ_OK;
    return dec_error(&d, "ColumnMetaData", true, err);
}

pq_status pq_file_crypto_decode(const uint8_t *buf, size_t len, pq_encryption_algorithm *alg,
                                pq_bytes *key_metadata, size_t *consumed, pq_error *err)
{
    footer_dec d;
    dec_start(&d, buf, len, NULL);
    memset(alg, 0, sizeof *alg);
    memset(key_metadata, 0, sizeof *key_metadata);
    pq_compact *c = &d.c;
    int16_t id = 0;
    bool have_alg = false;
    for (;;) {
        int ft = pq_compact_field(c, &id);
        if (ft == PQ_WIRE_STOP) break;
        if (id == 1 && ft == PQ_WIRE_STRUCT) {
            if (dec_encryption_algorithm(&d, alg, 1)) {
                at(&d, "encryption_algorithm");
                return dec_error(&d, "FileCryptoMetaData", true, err);
            }
            have_alg = true;
        } else if (id == 2 && ft == PQ_WIRE_BINARY) {
            key_metadata->ptr = pq_compact_binary(c, &key_metadata->len);
        } else if (skip_field(&d, c, ft, id, 0)) {
            return dec_error(&d, "FileCryptoMetaData", true, err);
        }
        if (c->bad) {
            malformed(&d, "(field)");
            return dec_error(&d, "FileCryptoMetaData", true, err);
        }
    }
    if (c->bad) {
        malformed(&d, "(struct end)");
        return dec_error(&d, "FileCryptoMetaData", true, err);
    }
    if (!have_alg) {
        missing(&d, "encryption_algorithm");
        return dec_error(&d, "FileCryptoMetaData", true, err);
    }
    *consumed = (size_t)(c->p - buf);
    return PQ_OK;
}
