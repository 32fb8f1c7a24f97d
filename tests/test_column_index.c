/*
 * test_column_index.c — ColumnIndex decoding (metadata/column_index.c).
 *
 * Oracles:
 *  - hand-encoded Thrift compact bytes (field header = id delta << 4 | type;
 *    list header = size << 4 | element type; bools in lists one byte, 1
 *    true, 2 false), so each expected value is known;
 *  - every corpus column index (data/ and the bad_data/ files whose footer
 *    parses), checked against what the rest of the file says: the page count
 *    of the chunk's OffsetIndex, the chunk statistics (null_count = the sum
 *    of the pages' null counts; min_value/max_value = the least page min and
 *    the greatest page max), the rows of each page (a null page of a flat
 *    column has as many nulls as rows), min <= max on every non-null page,
 *    and the declared boundary_order. The field-by-field comparison with the
 *    Thrift c_glib decoder is in test_cglib_column_index.c.
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "metadata/column_index.h"
#include "metadata/page_index.h"
#include "pages/page_walk.h"
#include "pqstep.h"
#include "compact_writer.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------
 * Hand-encoded bytes
 * ------------------------------------------------------------------------- */


static void list_header(buf *o, size_t n, uint8_t et)
{
    if (n < 15) {
        put(o, (uint8_t)(n << 4 | et));
    } else {
        put(o, (uint8_t)(0xf0 | et));
        varint(o, n);
    }
}

static void str(buf *o, const char *s)
{
    size_t n = strlen(s);
    varint(o, n);
    for (size_t i = 0; i < n; i++) put(o, (uint8_t)s[i]);
}

/* ColumnIndex of 3 pages: page 1 all nulls; mins "a", "", "c"; maxes "b",
 * "", "d"; ASCENDING; null counts 0, 5, 1. Fields whose bit is clear in
 * `omit` are written (bit 0 null_pages ... bit 4 null_counts). */
static void column_index(buf *o, unsigned omit)
{
    o->n = 0;
    int last = 0;
#define FIELD(id, type)                                                                       \
    do {                                                                                      \
        put(o, (uint8_t)(((id) - last) << 4 | (type)));                                       \
        last = (id);                                                                          \
    } while (0)
    if (!(omit & 1)) {
        FIELD(1, 0x09);
        list_header(o, 3, 0x01);
        put(o, 2); put(o, 1); put(o, 2);
    }
    if (!(omit & 2)) {
        FIELD(2, 0x09);
        list_header(o, 3, 0x08);
        str(o, "a"); str(o, ""); str(o, "c");
    }
    if (!(omit & 4)) {
        FIELD(3, 0x09);
        list_header(o, 3, 0x08);
        str(o, "b"); str(o, ""); str(o, "d");
    }
    if (!(omit & 8)) {
        FIELD(4, 0x05);
        zigzag(o, 1);
    }
    if (!(omit & 16)) {
        FIELD(5, 0x09);
        list_header(o, 3, 0x06);
        zigzag(o, 0); zigzag(o, 5); zigzag(o, 1);
    }
#undef FIELD
    put(o, 0x00);
}

static int span_is(pq_bytes b, const char *s)
{
    return b.len == strlen(s) && memcmp(b.ptr, s, b.len) == 0;
}

START_TEST(decodes_fields)
{
    buf o;
    column_index(&o, 0);
    pq_column_index ci;
    pq_error err;
    ck_assert_msg(pq_column_index_decode(o.b, o.n, 3, &ci, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(ci.npages, 3);
    ck_assert(!ci.null_pages[0] && ci.null_pages[1] && !ci.null_pages[2]);
    ck_assert(span_is(ci.min_values[0], "a") && span_is(ci.min_values[1], "") &&
              span_is(ci.min_values[2], "c"));
    ck_assert(span_is(ci.max_values[0], "b") && span_is(ci.max_values[2], "d"));
    /* Spans point into the caller's bytes. */
    ck_assert(ci.min_values[0].ptr > o.b && ci.min_values[0].ptr < o.b + o.n);
    ck_assert_int_eq(ci.boundary_order, PQ_BOUNDARY_ASCENDING);
    ck_assert_ptr_nonnull(ci.null_counts);
    ck_assert_int_eq(ci.null_counts[0], 0);
    ck_assert_int_eq(ci.null_counts[1], 5);
    ck_assert_int_eq(ci.null_counts[2], 1);
    pq_column_index_free(&ci);
    ck_assert_ptr_null(ci.null_pages);

    /* Negative null counts (parquet-mr's -1 for "not counted") read as unknown. */
    o.b[o.n - 2] = 0x01; /* zigzag -1 */
    o.b[o.n - 4] = 0x05; /* zigzag -3 */
    ck_assert_int_eq(pq_column_index_decode(o.b, o.n, 3, &ci, &err), PQ_OK);
    ck_assert_int_eq(ci.null_counts[0], PQ_NULL_COUNT_UNKNOWN);
    ck_assert_int_eq(ci.null_counts[1], 5);
    ck_assert_int_eq(ci.null_counts[2], PQ_NULL_COUNT_UNKNOWN);
    pq_column_index_free(&ci);

    /* Without null_counts. */
    column_index(&o, 16);
    ck_assert_int_eq(pq_column_index_decode(o.b, o.n, 3, &ci, &err), PQ_OK);
    ck_assert_ptr_null(ci.null_counts);
    pq_column_index_free(&ci);
}
END_TEST

START_TEST(skips_histograms_and_unknown_fields)
{
    buf o;
    column_index(&o, 0);
    o.n--; /* drop the stop: add both histograms (6, 7) and an unknown field 12 */
    put(&o, 0x19);
    list_header(&o, 6, 0x06);
    for (int i = 0; i < 6; i++) zigzag(&o, i);
    put(&o, 0x19);
    list_header(&o, 6, 0x06);
    for (int i = 0; i < 6; i++) zigzag(&o, 100 + i);
    put(&o, 0x5c); /* field 12, struct { 1: binary } */
    put(&o, 0x18);
    str(&o, "later");
    put(&o, 0x00);
    put(&o, 0x00);
    pq_column_index ci;
    pq_error err;
    ck_assert_msg(pq_column_index_decode(o.b, o.n, 3, &ci, &err) == PQ_OK, "%s", err.message);
    ck_assert_int_eq(ci.null_counts[1], 5);
    pq_column_index_free(&ci);
    /* Boolean lists written with element type 2 and false as 0. */
    column_index(&o, 0);
    o.b[1] = 0x32;
    o.b[2] = 0;
    ck_assert_int_eq(pq_column_index_decode(o.b, o.n, 3, &ci, &err), PQ_OK);
    ck_assert(!ci.null_pages[0] && ci.null_pages[1]);
    pq_column_index_free(&ci);
    /* Long list headers (size in a varint). */
    o.n = 0;
    put(&o, 0x19);
    list_header(&o, 20, 0x01);
    for (int i = 0; i < 20; i++) put(&o, i == 19 ? 1 : 2);
    put(&o, 0x19);
    list_header(&o, 20, 0x08);
    for (int i = 0; i < 20; i++) str(&o, "m");
    put(&o, 0x19);
    list_header(&o, 20, 0x08);
    for (int i = 0; i < 20; i++) str(&o, "x");
    put(&o, 0x15);
    zigzag(&o, 2);
    put(&o, 0x00);
    ck_assert_msg(pq_column_index_decode(o.b, o.n, 20, &ci, &err) == PQ_OK, "%s", err.message);
    ck_assert(ci.null_pages[19] && !ci.null_pages[18]);
    ck_assert(span_is(ci.max_values[19], "x"));
    ck_assert_int_eq(ci.boundary_order, PQ_BOUNDARY_DESCENDING);
    pq_column_index_free(&ci);
}
END_TEST

static void expect_error(const buf *o, size_t npages, pq_status code, const char *message)
{
    pq_column_index ci;
    pq_error err;
    pq_status st = pq_column_index_decode(o->b, o->n, npages, &ci, &err);
    ck_assert_msg(st == code, "status %d, want %d (%s)", st, code, st ? err.message : "ok");
    ck_assert_msg(strstr(err.message, message), "'%s' lacks '%s'", err.message, message);
    ck_assert_ptr_null(ci.null_pages);
    ck_assert_ptr_null(ci.min_values);
    ck_assert_ptr_null(ci.max_values);
    ck_assert_ptr_null(ci.null_counts);
}

START_TEST(rejects_bad_indexes)
{
    buf o;
    column_index(&o, 0);
    expect_error(&o, 4, PQ_ERR_CORRUPT_DATA, "ColumnIndex.null_pages: 3 entries for 4 pages");
    expect_error(&o, 2, PQ_ERR_CORRUPT_DATA, "ColumnIndex.null_pages: 3 entries for 2 pages");
    expect_error(&o, 0, PQ_ERR_INVALID_ARGUMENT, "0 pages");
    /* One list of a different length. */
    column_index(&o, 0);
    o.b[6] = 0x48; /* min_values: 4 entries, the 4th taken from max_values' bytes */
    expect_error(&o, 3, PQ_ERR_CORRUPT_DATA, "ColumnIndex.min_values: 4 entries for 3 pages");
    column_index(&o, 0);
    size_t at = o.n - 5; /* null_counts list header: 0x36 then 3 varints and the stop */
    ck_assert_uint_eq(o.b[at], 0x36);
    o.b[at] = 0x26;
    expect_error(&o, 3, PQ_ERR_CORRUPT_DATA, "ColumnIndex.null_counts: 2 entries for 3 pages");
    /* An unknown boundary order. */
    column_index(&o, 16);
    o.b[o.n - 2] = 0x06; /* boundary_order 3 */
    expect_error(&o, 3, PQ_ERR_CORRUPT_DATA, "ColumnIndex.boundary_order: invalid value 3");
    o.b[o.n - 2] = 0x01; /* -1 */
    expect_error(&o, 3, PQ_ERR_CORRUPT_DATA, "ColumnIndex.boundary_order: invalid value -1");
    /* Wrong element types, bad bool bytes. */
    column_index(&o, 0);
    o.b[1] = 0x35; /* null_pages as list<i32> */
    expect_error(&o, 3, PQ_ERR_CORRUPT_DATA, "ColumnIndex.null_pages: list of wire type 5");
    column_index(&o, 0);
    o.b[3] = 7;
    expect_error(&o, 3, PQ_ERR_CORRUPT_DATA, "ColumnIndex.null_pages[1]: bool byte 7");
    /* Each required field missing. */
    const char *names[] = {"null_pages", "min_values", "max_values", "boundary_order"};
    for (unsigned i = 0; i < 4; i++) {
        column_index(&o, 1u << i);
        char want[64];
        snprintf(want, sizeof want, "ColumnIndex.%s: required field missing", names[i]);
        expect_error(&o, 3, PQ_ERR_CORRUPT_DATA, want);
    }
    /* A repeated field. */
    column_index(&o, 16);
    o.n--;
    put(&o, 0x05); /* field 4 again: delta 0, so the long form (zigzag i16 id) */
    zigzag(&o, 4);
    zigzag(&o, 0);
    put(&o, 0x00);
    expect_error(&o, 3, PQ_ERR_CORRUPT_DATA, "ColumnIndex.boundary_order: repeated");
    /* A known id with another wire type is skipped like an unknown field, so
     * the field counts as missing. */
    column_index(&o, 8);
    o.n--;
    put(&o, 0x16); /* field 4 as i64 */
    zigzag(&o, 1);
    put(&o, 0x00);
    expect_error(&o, 3, PQ_ERR_CORRUPT_DATA, "ColumnIndex.boundary_order: required field missing");
    /* Empty input. */
    o.n = 0;
    expect_error(&o, 3, PQ_ERR_CORRUPT_DATA, "ColumnIndex.field header: malformed");
    pq_column_index ci;
    pq_error err;
    ck_assert_int_eq(pq_column_index_decode(NULL, 0, 3, &ci, &err), PQ_ERR_CORRUPT_DATA);
}
END_TEST

START_TEST(every_truncation_fails_cleanly)
{
    buf o;
    column_index(&o, 0);
    for (size_t n = 0; n < o.n; n++) {
        pq_column_index ci;
        pq_error err;
        ck_assert_int_eq(pq_column_index_decode(o.b, n, 3, &ci, &err), PQ_ERR_CORRUPT_DATA);
        ck_assert_ptr_null(ci.null_pages);
        ck_assert_msg(strstr(err.message, "ColumnIndex."), "%s", err.message);
    }
}
END_TEST

START_TEST(every_byte_change_is_handled)
{
    buf o;
    column_index(&o, 0);
    for (size_t pos = 0; pos < o.n; pos++) {
        for (int v = 0; v < 256; v++) {
            buf m = o;
            m.b[pos] = (uint8_t)v;
            pq_column_index ci;
            pq_error err;
            pq_status st = pq_column_index_decode(m.b, m.n, 3, &ci, &err);
            if (st != PQ_OK) {
                ck_assert_int_eq(st, PQ_ERR_CORRUPT_DATA);
                continue;
            }
            ck_assert_uint_eq(ci.npages, 3);
            for (int i = 0; i < 3; i++) {
                ck_assert(ci.min_values[i].ptr >= m.b &&
                          ci.min_values[i].ptr + ci.min_values[i].len <= m.b + m.n);
                ck_assert(ci.max_values[i].ptr >= m.b &&
                          ci.max_values[i].ptr + ci.max_values[i].len <= m.b + m.n);
            }
            ck_assert(ci.boundary_order >= 0 && ci.boundary_order <= 2);
            pq_column_index_free(&ci);
        }
    }
}
END_TEST

/* ---------------------------------------------------------------------------
 * The corpus
 * ------------------------------------------------------------------------- */

static char **files;
static int nfiles;


static void collect_corpus(void)
{
    const char *dir = pq_test_corpus_dir();
    if (!dir || nfiles) return;
    nfiles = pq_test_corpus_files(&files);
}

/* How two PLAIN-encoded bounds of a leaf compare: <0, 0, >0, or 2 when the
 * order is not one this test knows (FLBA decimals, INT96, NaN, ...). */
enum { NO_ORDER = 2 };

static int cmp_bounds(const pq_leaf *leaf, pq_bytes a, pq_bytes b)
{
    const pq_logical_type *lt = &leaf->logical;
    switch (leaf->physical_type) {
    case PQ_INT32: {
        if (a.len != 4 || b.len != 4) return NO_ORDER;
        uint32_t x, y;
        memcpy(&x, a.ptr, 4);
        memcpy(&y, b.ptr, 4);
        if (lt->kind == PQ_LOGICAL_INTEGER && !lt->is_signed) return x < y ? -1 : x > y;
        return (int32_t)x < (int32_t)y ? -1 : (int32_t)x > (int32_t)y;
    }
    case PQ_INT64: {
        if (a.len != 8 || b.len != 8) return NO_ORDER;
        uint64_t x, y;
        memcpy(&x, a.ptr, 8);
        memcpy(&y, b.ptr, 8);
        if (lt->kind == PQ_LOGICAL_INTEGER && !lt->is_signed) return x < y ? -1 : x > y;
        return (int64_t)x < (int64_t)y ? -1 : (int64_t)x > (int64_t)y;
    }
    case PQ_FLOAT: {
        if (a.len != 4 || b.len != 4) return NO_ORDER;
        float x, y;
        memcpy(&x, a.ptr, 4);
        memcpy(&y, b.ptr, 4);
        if (isnan(x) || isnan(y)) return NO_ORDER;
        return x < y ? -1 : x > y;
    }
    case PQ_DOUBLE: {
        if (a.len != 8 || b.len != 8) return NO_ORDER;
        double x, y;
        memcpy(&x, a.ptr, 8);
        memcpy(&y, b.ptr, 8);
        if (isnan(x) || isnan(y)) return NO_ORDER;
        return x < y ? -1 : x > y;
    }
    case PQ_BYTE_ARRAY:
    case PQ_FIXED_LEN_BYTE_ARRAY: {
        /* Unsigned lexicographic, for the kinds that sort so. */
        if (lt->kind != PQ_LOGICAL_NONE && lt->kind != PQ_LOGICAL_STRING &&
            lt->kind != PQ_LOGICAL_ENUM && lt->kind != PQ_LOGICAL_JSON && lt->kind != PQ_LOGICAL_UUID)
            return NO_ORDER;
        if (leaf->physical_type == PQ_BYTE_ARRAY && lt->kind == PQ_LOGICAL_NONE &&
            leaf->arrow.id != PQ_ARROW_BINARY && leaf->arrow.id != PQ_ARROW_STRING)
            return NO_ORDER; /* a converted type such as DECIMAL */
        uint32_t n = a.len < b.len ? a.len : b.len;
        int c = n ? memcmp(a.ptr, b.ptr, n) : 0;
        if (c) return c < 0 ? -1 : 1;
        return a.len < b.len ? -1 : a.len > b.len;
    }
    default: return NO_ORDER;
    }
}

typedef struct totals {
    int files, chunks, pages, null_pages, ordered_pairs, stats_bounds, stats_nulls, flat_rows,
        unknown_counts;
} totals;

static void check_chunk(const char *file, const uint8_t *img, size_t flen, const pq_metadata *md,
                        uint32_t rgi, uint32_t col, totals *t)
{
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_row_group *rg = &fm->row_groups[rgi];
    const pq_column_chunk *cc = rg->columns[col];
    const pq_leaf *leaf = &pq_metadata_schema(md)->leaves[col];
    uint32_t need = PQ_CC_HAS_COLUMN_INDEX_OFFSET | PQ_CC_HAS_COLUMN_INDEX_LENGTH |
                    PQ_CC_HAS_OFFSET_INDEX_OFFSET | PQ_CC_HAS_OFFSET_INDEX_LENGTH;
    if ((cc->set & need) != need) return;
    char where[512];
    snprintf(where, sizeof where, "%s rg %u col %u (%s)", file, rgi, col, leaf->path);
    ck_assert_msg(cc->column_index_offset >= 0 && cc->column_index_length >= 0 &&
                      (uint64_t)cc->column_index_offset + (uint64_t)cc->column_index_length <= flen,
                  "%s: column index outside the file", where);
    ck_assert_msg(cc->offset_index_offset >= 0 && cc->offset_index_length >= 0 &&
                      (uint64_t)cc->offset_index_offset + (uint64_t)cc->offset_index_length <= flen,
                  "%s: offset index outside the file", where);
    uint64_t coff, clen;
    pq_error err;
    ck_assert_msg(pq_chunk_byte_range_for_writer(cc, fm->created_by, flen, &coff, &clen, &err) == PQ_OK,
                  "%s: %s", where, err.message);
    pq_offset_index oi;
    ck_assert_msg(pq_offset_index_decode(img + cc->offset_index_offset, (size_t)cc->offset_index_length,
                                         coff, clen, rg->num_rows, &oi, &err) == PQ_OK,
                  "%s: %s", where, err.message);
    const uint8_t *cib = img + cc->column_index_offset;
    size_t cil = (size_t)cc->column_index_length;
    pq_column_index ci;
    ck_assert_msg(pq_column_index_decode(cib, cil, oi.npages, &ci, &err) == PQ_OK, "%s: %s", where,
                  err.message);
    t->chunks++;
    t->pages += (int)ci.npages;

    /* Another page count is refused, naming the first list. */
    pq_column_index bad;
    ck_assert_int_eq(pq_column_index_decode(cib, cil, oi.npages + 1, &bad, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "entries for"), "%s: %s", where, err.message);

    for (size_t i = 0; i < ci.npages; i++) {
        ck_assert(ci.min_values[i].ptr >= cib && ci.min_values[i].ptr + ci.min_values[i].len <= cib + cil);
        ck_assert(ci.max_values[i].ptr >= cib && ci.max_values[i].ptr + ci.max_values[i].len <= cib + cil);
        int64_t rows = (i + 1 < oi.npages ? oi.pages[i + 1].first_row_index : rg->num_rows) -
                       oi.pages[i].first_row_index;
        if (ci.null_pages[i]) {
            t->null_pages++;
        } else {
            int c = cmp_bounds(leaf, ci.min_values[i], ci.max_values[i]);
            ck_assert_msg(c == NO_ORDER || c <= 0, "%s page %zu: min > max", where, i);
        }
        if (ci.null_counts && ci.null_counts[i] == PQ_NULL_COUNT_UNKNOWN) {
            t->unknown_counts++;
        } else if (ci.null_counts && leaf->max_rep == 0) {
            /* Flat: one value per row. */
            if (ci.null_pages[i])
                ck_assert_msg(ci.null_counts[i] == rows, "%s page %zu: null page, %lld nulls, %lld rows",
                              where, i, (long long)ci.null_counts[i], (long long)rows);
            else
                ck_assert_msg(ci.null_counts[i] < rows || rows == 0,
                              "%s page %zu: not a null page, %lld nulls, %lld rows", where, i,
                              (long long)ci.null_counts[i], (long long)rows);
            t->flat_rows++;
        }
    }

    /* The declared order, over non-null pages. */
    if (ci.boundary_order != PQ_BOUNDARY_UNORDERED) {
        int sign = ci.boundary_order == PQ_BOUNDARY_ASCENDING ? 1 : -1;
        size_t prev = SIZE_MAX;
        for (size_t i = 0; i < ci.npages; i++) {
            if (ci.null_pages[i]) continue;
            if (prev != SIZE_MAX) {
                int a = cmp_bounds(leaf, ci.min_values[prev], ci.min_values[i]);
                int b = cmp_bounds(leaf, ci.max_values[prev], ci.max_values[i]);
                if (a != NO_ORDER && b != NO_ORDER) {
                    ck_assert_msg(a * sign <= 0 && b * sign <= 0, "%s pages %zu, %zu: not %s", where,
                                  prev, i, sign > 0 ? "ascending" : "descending");
                    t->ordered_pairs++;
                }
            }
            prev = i;
        }
    }

    /* The chunk statistics. */
    const pq_statistics *s = &cc->meta_data.statistics;
    if ((cc->meta_data.set & PQ_CMD_HAS_STATISTICS) && (s->set & PQ_STATS_HAS_NULL_COUNT) && ci.null_counts) {
        int64_t sum = 0;
        bool known = true;
        for (size_t i = 0; i < ci.npages; i++) {
            known &= ci.null_counts[i] != PQ_NULL_COUNT_UNKNOWN;
            sum += ci.null_counts[i];
        }
        ck_assert_msg(!known || sum == s->null_count, "%s: pages hold %lld nulls, the chunk %lld", where,
                      (long long)sum, (long long)s->null_count);
        t->stats_nulls += known;
    }
    if ((cc->meta_data.set & PQ_CMD_HAS_STATISTICS) && (s->set & PQ_STATS_HAS_MIN_VALUE) &&
        (s->set & PQ_STATS_HAS_MAX_VALUE)) {
        pq_bytes lo = {0}, hi = {0};
        bool any = false, ordered = true;
        for (size_t i = 0; i < ci.npages && ordered; i++) {
            if (ci.null_pages[i]) continue;
            if (!any) {
                lo = ci.min_values[i];
                hi = ci.max_values[i];
                any = true;
                continue;
            }
            int a = cmp_bounds(leaf, ci.min_values[i], lo), b = cmp_bounds(leaf, ci.max_values[i], hi);
            if (a == NO_ORDER || b == NO_ORDER) ordered = false;
            if (a < 0) lo = ci.min_values[i];
            if (b > 0 && b != NO_ORDER) hi = ci.max_values[i];
        }
        if (any && ordered) {
            /* Exact bounds agree; a truncated chunk bound is only a bound. */
            bool min_exact = !(s->set & PQ_STATS_HAS_IS_MIN_EXACT) || s->is_min_value_exact;
            bool max_exact = !(s->set & PQ_STATS_HAS_IS_MAX_EXACT) || s->is_max_value_exact;
            int a = cmp_bounds(leaf, s->min_value, lo), b = cmp_bounds(leaf, s->max_value, hi);
            if (a != NO_ORDER && b != NO_ORDER) {
                ck_assert_msg(min_exact ? a == 0 : a <= 0, "%s: chunk min_value vs pages' least min: %d",
                              where, a);
                ck_assert_msg(max_exact ? b == 0 : b >= 0,
                              "%s: chunk max_value vs pages' greatest max: %d", where, b);
                t->stats_bounds++;
            }
        }
    }
    pq_column_index_free(&ci);
    pq_offset_index_free(&oi);
}

START_TEST(corpus_column_indexes)
{
    collect_corpus();
    if (!nfiles) {
        printf("SKIP corpus_column_indexes: corpus absent\n");
        return;
    }
    totals t = {0};
    for (int f = 0; f < nfiles; f++) {
        char *path = pq_test_corpus_path(files[f]);
        size_t flen = 0;
        uint8_t *img = pq_test_read_file(path, &flen);
        free(path);
        ck_assert_ptr_nonnull(img);
        pq_error err;
        pq_metadata *md = pq_metadata_parse_tail(img, flen, NULL, NULL, &err);
        if (!md) {
            ck_assert_msg(strncmp(files[f], "bad_data/", 9) == 0, "%s: %s", files[f], err.message);
            free(img);
            continue;
        }
        const pq_file_metadata *fm = pq_metadata_file(md);
        int before = t.chunks;
        for (uint32_t rg = 0; rg < fm->row_groups_len; rg++)
            for (uint32_t c = 0; c < fm->row_groups[rg].columns_len; c++)
                check_chunk(files[f], img, flen, md, rg, c, &t);
        if (t.chunks > before) t.files++;
        pq_metadata_release(md);
        free(img);
    }
    printf("column indexes: %d files, %d chunks, %d pages (%d null pages); %d page pairs in "
           "declared order; %d chunks' null counts and %d chunks' min/max agree with statistics; "
           "%d flat pages' null counts agree with their rows; %d pages' null counts unknown\n",
           t.files, t.chunks, t.pages, t.null_pages, t.ordered_pairs, t.stats_nulls, t.stats_bounds,
           t.flat_rows, t.unknown_counts);
    /* The catalog lists column indexes in 26 files (CATALOG.md). */
    ck_assert_int_ge(t.files, 20);
    ck_assert_int_ge(t.pages, 5000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("column index");
    TCase *tc = tcase_create("hand-encoded");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_test(tc, decodes_fields);
    tcase_add_test(tc, skips_histograms_and_unknown_fields);
    tcase_add_test(tc, rejects_bad_indexes);
    tcase_add_test(tc, every_truncation_fails_cleanly);
    tcase_add_test(tc, every_byte_change_is_handled);
    suite_add_tcase(s, tc);
    tc = tcase_create("corpus");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_test(tc, corpus_column_indexes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    pq_test_free_files(files, nfiles);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
