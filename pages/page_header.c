/*
 * page_header.c — PageHeader from Thrift compact bytes (see page_header.h).
 *
 * One function per Thrift struct: an in-order fast path (writers emit fields
 * in id order with one-byte headers, so testing for the header the next field
 * would have is a well-predicted compare), then a generic loop over whatever
 * fields remain (absent, out of order, unknown). Errors are reported where
 * they happen, with the full path: page headers are shallow.
 */
#include "pages/page_header.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "metadata/compact.h"
#include "metadata/statistics_wire.h"
#include "metadata/error.h"

#define PH "PageHeader"
#define DPH PH ".data_page_header"
#define DICT PH ".dictionary_page_header"
#define DPH2 PH ".data_page_header_v2"
#define IDX PH ".index_page_header"

typedef struct ph_dec {
    pq_compact c;
    pq_error *err;
} ph_dec;

__attribute__((cold, format(printf, 2, 3)))
static int fail(ph_dec *d, const char *fmt, ...)
{
    if (d->err) {
        va_list ap;
        va_start(ap, fmt);
        d->err->code = PQ_ERR_CORRUPT_DATA;
        vsnprintf(d->err->message, sizeof d->err->message, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A read failed: say whether the span ran out (the common hostile case). */
__attribute__((cold))
static int malformed(ph_dec *d, const char *path, const char *field)
{
    const char *what = d->c.p >= d->c.end ? "truncated" : "malformed value";
    if (field) return fail(d, "%s.%s: %s", path, field, what);
    return fail(d, "%s: %s", path, what);
}

__attribute__((cold))
static int missing(ph_dec *d, const char *path, const char *field)
{
    return fail(d, "%s.%s: required field missing", path, field);
}

__attribute__((cold))
static int negative(ph_dec *d, const char *path, const char *field, int32_t v)
{
    return fail(d, "%s.%s: %d", path, field, (int)v);
}

static inline bool is_bool(int ft)
{
    return ft == PQ_WIRE_BOOL_TRUE || ft == PQ_WIRE_BOOL_FALSE;
}

/* Skip a field we do not decode (unknown id, or a known id with another
 * wire type, as Thrift's generated readers do). */
static int skip_field(ph_dec *d, int ft, int16_t id, const char *path, int depth)
{
    if (pq_compact_skip(&d->c, ft, false, depth + 1)) return 0;
    if (d->c.too_deep)
        return fail(d, "%s.field %d: nesting deeper than %d", path, (int)id, PQ_COMPACT_MAX_DEPTH);
    if (ft > PQ_WIRE_STRUCT) return fail(d, "%s.field %d: invalid wire type %d", path, (int)id, ft);
    return malformed(d, path, NULL);
}

/* The rest of a struct: usually just its STOP byte. */
#define REMAINING_FIELDS(FIELD, path)                                                         \
    if (c->p < c->end && *c->p == PQ_WIRE_STOP) {                                             \
        c->p++;                                                                               \
    } else {                                                                                  \
        for (;;) {                                                                            \
            int ft_ = pq_compact_field(c, &id);                                               \
            if (c->bad) return malformed(d, path, NULL);                                      \
            if (ft_ == PQ_WIRE_STOP) break;                                                   \
            if (FIELD(id, ft_)) return -1;                                                    \
        }                                                                                     \
    }

/* ---------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------- */

static int stats_field(ph_dec *d, pq_statistics *s, int16_t id, int ft, const char *path,
                       int depth)
{
    pq_compact *c = &d->c;
    if (!pq_statistics_field(c, s, id, ft)) return skip_field(d, ft, id, path, depth);
    if (c->bad) return malformed(d, path, pq_statistics_field_names[id]);
    return 0;
}

static int dec_statistics(ph_dec *d, pq_statistics *s, const char *path, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    memset(s, 0, sizeof *s);
#define F(fid, wt) stats_field(d, s, fid, wt, path, depth)
    PQ_IN_ORDER(F, 1, PQ_WIRE_BINARY)
    PQ_IN_ORDER(F, 2, PQ_WIRE_BINARY)
    PQ_IN_ORDER(F, 3, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 4, PQ_WIRE_I64)
    PQ_IN_ORDER(F, 5, PQ_WIRE_BINARY)
    PQ_IN_ORDER(F, 6, PQ_WIRE_BINARY)
    PQ_IN_ORDER_BOOL(F, 7)
    PQ_IN_ORDER_BOOL(F, 8)
    REMAINING_FIELDS(F, path)
#undef F
    return 0;
}

/* An i32 field: read it and mark it seen. */
static inline int read_i32(ph_dec *d, int32_t *out, uint32_t *seen, int16_t id, const char *path,
                           const char *name)
{
    *out = pq_compact_i32(&d->c);
    if (d->c.bad) return malformed(d, path, name);
    *seen |= 1u << id;
    return 0;
}

/* ---------------------------------------------------------------------------
 * DataPageHeader
 * ------------------------------------------------------------------------- */

static const char *const dph_names[5] = {"", "num_values", "encoding",
                                         "definition_level_encoding",
                                         "repetition_level_encoding"};

static int dph_field(ph_dec *d, pq_data_page_header *h, uint32_t *seen, int16_t id, int ft,
                     int depth)
{
    if (id >= 1 && id <= 4 && ft == PQ_WIRE_I32) {
        int32_t *dst[5] = {NULL, &h->num_values, &h->encoding, &h->definition_level_encoding,
                           &h->repetition_level_encoding};
        return read_i32(d, dst[id], seen, id, DPH, dph_names[id]);
    }
    if (id == 5 && ft == PQ_WIRE_STRUCT) {
        if (dec_statistics(d, &h->statistics, DPH ".statistics", depth + 1)) return -1;
        h->set |= PQ_DPH_HAS_STATISTICS;
        return 0;
    }
    return skip_field(d, ft, id, DPH, depth);
}

static int dec_data_page_header(ph_dec *d, pq_data_page_header *h, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    uint32_t seen = 0;
#define F(fid, wt) dph_field(d, h, &seen, fid, wt, depth)
    PQ_IN_ORDER(F, 1, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 2, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 3, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 4, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 5, PQ_WIRE_STRUCT)
    REMAINING_FIELDS(F, DPH)
#undef F
    for (int i = 1; i <= 4; i++)
        if (!(seen & 1u << i)) return missing(d, DPH, dph_names[i]);
    if (h->num_values < 0) return negative(d, DPH, "num_values", h->num_values);
    return 0;
}

/* ---------------------------------------------------------------------------
 * DictionaryPageHeader
 * ------------------------------------------------------------------------- */

static int dict_field(ph_dec *d, pq_dictionary_page_header *h, uint32_t *seen, int16_t id,
                      int ft, int depth)
{
    if (id == 1 && ft == PQ_WIRE_I32) return read_i32(d, &h->num_values, seen, id, DICT, "num_values");
    if (id == 2 && ft == PQ_WIRE_I32) return read_i32(d, &h->encoding, seen, id, DICT, "encoding");
    if (id == 3 && is_bool(ft)) {
        h->is_sorted = ft == PQ_WIRE_BOOL_TRUE;
        h->set |= PQ_DICT_HAS_IS_SORTED;
        return 0;
    }
    return skip_field(d, ft, id, DICT, depth);
}

static int dec_dictionary_page_header(ph_dec *d, pq_dictionary_page_header *h, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    uint32_t seen = 0;
#define F(fid, wt) dict_field(d, h, &seen, fid, wt, depth)
    PQ_IN_ORDER(F, 1, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 2, PQ_WIRE_I32)
    PQ_IN_ORDER_BOOL(F, 3)
    REMAINING_FIELDS(F, DICT)
#undef F
    if (!(seen & 1u << 1)) return missing(d, DICT, "num_values");
    if (!(seen & 1u << 2)) return missing(d, DICT, "encoding");
    if (h->num_values < 0) return negative(d, DICT, "num_values", h->num_values);
    return 0;
}

/* ---------------------------------------------------------------------------
 * DataPageHeaderV2
 * ------------------------------------------------------------------------- */

static const char *const dph2_names[7] = {"", "num_values", "num_nulls", "num_rows", "encoding",
                                          "definition_levels_byte_length",
                                          "repetition_levels_byte_length"};

static int dph2_field(ph_dec *d, pq_data_page_header_v2 *h, uint32_t *seen, int16_t id, int ft,
                      int depth)
{
    if (id >= 1 && id <= 6 && ft == PQ_WIRE_I32) {
        int32_t *dst[7] = {NULL, &h->num_values, &h->num_nulls, &h->num_rows, &h->encoding,
                           &h->definition_levels_byte_length, &h->repetition_levels_byte_length};
        return read_i32(d, dst[id], seen, id, DPH2, dph2_names[id]);
    }
    if (id == 7 && is_bool(ft)) {
        h->is_compressed = ft == PQ_WIRE_BOOL_TRUE;
        h->set |= PQ_DPH2_HAS_IS_COMPRESSED;
        return 0;
    }
    if (id == 8 && ft == PQ_WIRE_STRUCT) {
        if (dec_statistics(d, &h->statistics, DPH2 ".statistics", depth + 1)) return -1;
        h->set |= PQ_DPH2_HAS_STATISTICS;
        return 0;
    }
    return skip_field(d, ft, id, DPH2, depth);
}

static int dec_data_page_header_v2(ph_dec *d, pq_data_page_header_v2 *h, int depth)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    uint32_t seen = 0;
    h->is_compressed = true; /* the IDL default */
#define F(fid, wt) dph2_field(d, h, &seen, fid, wt, depth)
    PQ_IN_ORDER(F, 1, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 2, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 3, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 4, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 5, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 6, PQ_WIRE_I32)
    PQ_IN_ORDER_BOOL(F, 7)
    PQ_IN_ORDER(F, 8, PQ_WIRE_STRUCT)
    REMAINING_FIELDS(F, DPH2)
#undef F
    for (int i = 1; i <= 6; i++)
        if (!(seen & 1u << i)) return missing(d, DPH2, dph2_names[i]);
    /* Every count and length but the encoding is a size: none is negative. */
    const int32_t vals[7] = {0, h->num_values, h->num_nulls, h->num_rows, 0,
                             h->definition_levels_byte_length, h->repetition_levels_byte_length};
    for (int i = 1; i <= 6; i++)
        if (vals[i] < 0) return negative(d, DPH2, dph2_names[i], vals[i]);
    if (h->num_nulls > h->num_values)
        return fail(d, DPH2 ".num_nulls: %d exceeds num_values %d", (int)h->num_nulls,
                    (int)h->num_values);
    if (h->num_rows > h->num_values)
        return fail(d, DPH2 ".num_rows: %d exceeds num_values %d", (int)h->num_rows,
                    (int)h->num_values);
    return 0;
}

/* ---------------------------------------------------------------------------
 * PageHeader
 * ------------------------------------------------------------------------- */

static const char *const ph_names[5] = {"", "type", "uncompressed_page_size",
                                        "compressed_page_size", "crc"};

static int ph_field(ph_dec *d, pq_page_header *h, uint32_t *seen, int16_t id, int ft)
{
    switch (id) {
    case 1:
    case 2:
    case 3:
    case 4: {
        if (ft != PQ_WIRE_I32) break;
        int32_t v = 0;
        if (read_i32(d, &v, seen, id, PH, ph_names[id])) return -1;
        if (id == 1) h->type = v;
        else if (id == 2) h->uncompressed_page_size = v;
        else if (id == 3) h->compressed_page_size = v;
        else {
            h->crc = (uint32_t)v;
            h->has_crc = true;
        }
        return 0;
    }
    case 5:
        if (ft != PQ_WIRE_STRUCT) break;
        memset(&h->data_page_header, 0, sizeof h->data_page_header);
        if (dec_data_page_header(d, &h->data_page_header, 1)) return -1;
        h->set |= PQ_PH_HAS_DATA_PAGE_HEADER;
        return 0;
    case 6:
        /* IndexPageHeader has no fields (yet): skip whatever it holds. */
        if (ft != PQ_WIRE_STRUCT) break;
        if (!pq_compact_skip(&d->c, PQ_WIRE_STRUCT, false, 1)) return malformed(d, IDX, NULL);
        h->set |= PQ_PH_HAS_INDEX_PAGE_HEADER;
        return 0;
    case 7:
        if (ft != PQ_WIRE_STRUCT) break;
        memset(&h->dictionary_page_header, 0, sizeof h->dictionary_page_header);
        if (dec_dictionary_page_header(d, &h->dictionary_page_header, 1)) return -1;
        h->set |= PQ_PH_HAS_DICTIONARY_PAGE_HEADER;
        return 0;
    case 8:
        if (ft != PQ_WIRE_STRUCT) break;
        memset(&h->data_page_header_v2, 0, sizeof h->data_page_header_v2);
        if (dec_data_page_header_v2(d, &h->data_page_header_v2, 1)) return -1;
        h->set |= PQ_PH_HAS_DATA_PAGE_HEADER_V2;
        return 0;
    default:
        break;
    }
    return skip_field(d, ft, id, PH, 0);
}

static int validate(ph_dec *d, const pq_page_header *h, uint32_t seen)
{
    for (int i = 1; i <= 3; i++)
        if (!(seen & 1u << i)) return missing(d, PH, ph_names[i]);
    if (h->type < PQ_PAGE_DATA || h->type > PQ_PAGE_DATA_V2)
        return fail(d, PH ".type: invalid value %d", (int)h->type);
    if (h->uncompressed_page_size < 0)
        return negative(d, PH, "uncompressed_page_size", h->uncompressed_page_size);
    if (h->compressed_page_size < 0)
        return negative(d, PH, "compressed_page_size", h->compressed_page_size);
    static const uint32_t needs[4] = {PQ_PH_HAS_DATA_PAGE_HEADER, 0,
                                      PQ_PH_HAS_DICTIONARY_PAGE_HEADER,
                                      PQ_PH_HAS_DATA_PAGE_HEADER_V2};
    static const char *const needs_name[4] = {"data_page_header", "", "dictionary_page_header",
                                              "data_page_header_v2"};
    static const char *const type_name[4] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE",
                                             "DATA_PAGE_V2"};
    if (needs[h->type] && !(h->set & needs[h->type]))
        return fail(d, PH ".%s: missing, required for a %s", needs_name[h->type],
                    type_name[h->type]);
    if (h->type == PQ_PAGE_DATA_V2) {
        /* The levels are stored uncompressed at the start of the page data,
         * so they fit in both sizes. */
        const pq_data_page_header_v2 *v2 = &h->data_page_header_v2;
        int64_t levels = (int64_t)v2->definition_levels_byte_length +
                         v2->repetition_levels_byte_length;
        if (levels > h->compressed_page_size)
            return fail(d, DPH2 ": level bytes %lld exceed compressed_page_size %d",
                        (long long)levels, (int)h->compressed_page_size);
        if (levels > h->uncompressed_page_size)
            return fail(d, DPH2 ": level bytes %lld exceed uncompressed_page_size %d",
                        (long long)levels, (int)h->uncompressed_page_size);
    }
    return 0;
}

static int dec_page_header(ph_dec *d, pq_page_header *h)
{
    pq_compact *c = &d->c;
    int16_t id = 0;
    uint32_t seen = 0;
#define F(fid, wt) ph_field(d, h, &seen, fid, wt)
    PQ_IN_ORDER(F, 1, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 2, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 3, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 4, PQ_WIRE_I32)
    PQ_IN_ORDER(F, 5, PQ_WIRE_STRUCT)
    PQ_IN_ORDER(F, 7, PQ_WIRE_STRUCT)
    PQ_IN_ORDER(F, 8, PQ_WIRE_STRUCT)
    REMAINING_FIELDS(F, PH)
#undef F
    return validate(d, h, seen);
}

pq_status pq_page_header_decode(const uint8_t *buf, size_t len, pq_page_header *h,
                                size_t *header_len, pq_error *err)
{
    if (!buf || !h || !header_len)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_page_header_decode: NULL argument");
    ph_dec d = {.err = err};
    pq_compact_init(&d.c, buf, len);
    memset(h, 0, sizeof *h);
    if (dec_page_header(&d, h)) return PQ_ERR_CORRUPT_DATA;
    *header_len = (size_t)(d.c.p - buf);
    return PQ_OK;
}
