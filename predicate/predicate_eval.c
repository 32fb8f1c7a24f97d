/*
 * predicate_eval.c — row evaluation of a bound predicate over Arrow arrays.
 *
 * Each node yields two bitmaps over the rows: `t` (certainly true) and `f`
 * (certainly false); a row in neither is unknown (null). AND, OR and NOT
 * combine them per Kleene logic; the selection is `t` of the root.
 *
 * A row's value is mapped back to the column's physical domain (a pq_value:
 * int8 widened, uint64 as bits, decimal slots to the unscaled value or its
 * big-endian bytes, strings as bytes) and ordered with pq_value_compare,
 * the order the binder sorted IN lists by.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "predicate/predicate_eval.h"
#include "predicate/geo.h"
#include "kernels/dictionary.h"
#include "metadata/variant_access.h"
#include "metadata/variant_path.h"
#include "pq_variant.h"

typedef pq_slot_kind col_kind; /* the slot kinds of pq_arrow_slot_kind (predicate_eval.h) */

typedef struct col_view {
    col_kind kind;
    int width;
    int64_t off;           /* the array's offset */
    const uint8_t *valid;  /* NULL: no nulls */
    const uint8_t *data;   /* values, or the offsets of BIN32/BIN64 */
    const uint8_t *bytes;  /* BIN32/BIN64 data */
    const void *const *bufs; /* VIEW: the array's buffers (data buffers from index 2) */
    int64_t nbufs;
} col_view;

typedef struct eval_ctx {
    const struct ArrowArray *const *columns;
    const struct ArrowSchema *const *schemas;
    const int16_t *const *row_defs;
    int64_t length;
    size_t nbytes;
    pq_error *err;
    /* Rows still to decide, a bit per row (NULL: all): the second operand
     * of AND skips the rows the first made false, of OR those it made true;
     * whole bytes of 8 undecided-free rows are skipped, and what is
     * computed for the others does not change the result. */
    const uint8_t *mask;
} eval_ctx;

static inline bool bit_get(const uint8_t *bits, int64_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

static inline void bit_set(uint8_t *bits, int64_t i)
{
    bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* ---------------------------------------------------------------------------
 * Formats
 * ------------------------------------------------------------------------- */

bool pq_arrow_slot_kind(const char *f, pq_slot_kind *kind, int *width)
{
    static const struct { const char *fmt; pq_slot_kind kind; int width; } fixed[] = {
        {"n", PQ_SLOT_NULL, 0},   {"b", PQ_SLOT_BOOL, 0},   {"c", PQ_SLOT_INT, 1},    {"C", PQ_SLOT_UINT, 1},   {"s", PQ_SLOT_INT, 2},
        {"S", PQ_SLOT_UINT, 2},   {"i", PQ_SLOT_INT, 4},    {"I", PQ_SLOT_UINT, 4},   {"l", PQ_SLOT_INT, 8},    {"L", PQ_SLOT_UINT, 8},
        {"f", PQ_SLOT_F32, 4},    {"g", PQ_SLOT_F64, 8},    {"u", PQ_SLOT_BIN32, 0},  {"z", PQ_SLOT_BIN32, 0},  {"U", PQ_SLOT_BIN64, 0},
        {"Z", PQ_SLOT_BIN64, 0},  {"vu", PQ_SLOT_VIEW, 16}, {"vz", PQ_SLOT_VIEW, 16}, {"tdD", PQ_SLOT_INT, 4},  {"tts", PQ_SLOT_INT, 4},  {"ttm", PQ_SLOT_INT, 4},  {"ttu", PQ_SLOT_INT, 8},
        {"ttn", PQ_SLOT_INT, 8},  {"e", PQ_SLOT_FIXED, 2} /* float16: IS [NOT] NULL only (the binder) */};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
        if (strcmp(f, fixed[k].fmt) == 0) {
            *kind = fixed[k].kind;
            *width = fixed[k].width;
            return true;
        }
    }
    if (f[0] == 't' && f[1] == 's' && f[2] && strchr("smun", f[2]) && f[3] == ':') {
        *kind = PQ_SLOT_INT;
        *width = 8;
        return true;
    }
    if (f[0] == 'w' && f[1] == ':') {
        char *end;
        long w = strtol(f + 2, &end, 10);
        if (*end || w < 1 || w > (1 << 30)) return false;
        *kind = PQ_SLOT_FIXED;
        *width = (int)w;
        return true;
    }
    if (f[0] == 'd' && f[1] == ':') {
        const char *c1 = strchr(f, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (!c1) return false;
        *kind = PQ_SLOT_DEC;
        *width = 16;
        if (c2 && strcmp(c2, ",256") == 0) *width = 32;
        else if (c2 && strcmp(c2, ",64") == 0) *width = 8;
        else if (c2 && strcmp(c2, ",128") != 0) return false;
        return true;
    }
    return false;
}

static bool parse_format(const char *f, col_view *v)
{
    return pq_arrow_slot_kind(f, &v->kind, &v->width);
}

/* Whether Arrow kind `k` can carry the bound column's values. */
static bool kind_fits(col_kind k, const pq_expr *e)
{
    int t = e->physical_type;
    switch (k) {
    case PQ_SLOT_NULL: return true;
    case PQ_SLOT_BOOL: return t == PQ_BOOLEAN;
    case PQ_SLOT_INT:
    case PQ_SLOT_UINT: return t == PQ_INT32 || t == PQ_INT64;
    case PQ_SLOT_F32:
    case PQ_SLOT_F64: return t == PQ_FLOAT || t == PQ_DOUBLE;
    case PQ_SLOT_BIN32:
    case PQ_SLOT_BIN64:
    case PQ_SLOT_VIEW:
    case PQ_SLOT_FIXED: return t == PQ_BYTE_ARRAY || t == PQ_FIXED_LEN_BYTE_ARRAY;
    case PQ_SLOT_DEC:
        return e->logical.kind == PQ_LOGICAL_DECIMAL &&
               (t == PQ_INT32 || t == PQ_INT64 || t == PQ_BYTE_ARRAY || t == PQ_FIXED_LEN_BYTE_ARRAY);
    }
    return false;
}

/* Whether Arrow format f is a timestamp of pq_time_unit `unit`. */
static bool timestamp_of_unit(const char *f, int unit)
{
    char u = unit == PQ_UNIT_SECONDS ? 's' : unit == PQ_UNIT_MILLIS ? 'm' : unit == PQ_UNIT_MICROS ? 'u'
             : unit == PQ_UNIT_NANOS ? 'n' : 0;
    return f[0] == 't' && f[1] == 's' && u && f[2] == u && f[3] == ':';
}

bool pq_slot_kind_fits(pq_slot_kind kind, const char *f, const pq_expr *e)
{
    if (e->physical_type == PQ_INT96) /* a legacy timestamp, as the reader delivers it */
        return kind == PQ_SLOT_NULL || (kind == PQ_SLOT_INT && timestamp_of_unit(f, e->logical.unit));
    return kind_fits(kind, e);
}

static pq_status view_column(eval_ctx *c, const pq_expr *e, col_view *v)
{
    int32_t leaf = e->leaf;
    const struct ArrowArray *a = c->columns ? c->columns[leaf] : NULL;
    const struct ArrowSchema *s = c->schemas ? c->schemas[leaf] : NULL;
    memset(v, 0, sizeof *v);
    if (!a || !s || !s->format)
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: no array for column %d (%.64s)",
                            leaf, e->column);
    if (!parse_format(s->format, v))
        return pq_error_set(c->err, PQ_ERR_UNSUPPORTED, "predicate: Arrow format '%.32s' of column %.64s",
                            s->format, e->column);
    if (!pq_slot_kind_fits(v->kind, s->format, e))
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT,
                            "predicate: Arrow format '%.32s' does not fit column %.64s", s->format, e->column);
    if (a->length < c->length || a->offset < 0)
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT,
                            "predicate: column %.64s has %lld rows, %lld needed", e->column,
                            (long long)a->length, (long long)c->length);
    if (v->kind == PQ_SLOT_NULL || c->length == 0) return PQ_OK;
    int64_t need = v->kind == PQ_SLOT_BIN32 || v->kind == PQ_SLOT_BIN64 ? 3 : v->kind == PQ_SLOT_VIEW ? 3 : 2;
    if (a->n_buffers < need || !a->buffers || !a->buffers[1] || (need == 3 && !a->buffers[2]))
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: column %.64s lacks buffers",
                            e->column);
    v->off = a->offset;
    v->valid = a->null_count != 0 ? a->buffers[0] : NULL;
    v->data = a->buffers[1];
    if (v->kind == PQ_SLOT_VIEW) { /* validity, views, data buffers..., their sizes */
        v->bufs = a->buffers;
        v->nbufs = a->n_buffers - 3;
        return PQ_OK;
    }
    if (need == 3) v->bytes = a->buffers[2];
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * One row's value
 * ------------------------------------------------------------------------- */

static int64_t load_le(const uint8_t *p, int w, bool is_signed)
{
    uint64_t x = 0;
    for (int k = 0; k < w; k++) x |= (uint64_t)p[k] << (8 * k);
    if (is_signed && w < 8 && ((x >> (8 * w - 1)) & 1)) x |= ~0ull << (8 * w);
    return (int64_t)x;
}

/* Decimal slot `p` (w bytes LE) for a column of `e`: the unscaled int64 for
 * INT32/INT64 columns (a slot beyond int64 gives *beyond = -1/+1), else
 * big-endian bytes into `be`. */
static void decimal_value(const pq_expr *e, const uint8_t *p, int w, pq_value *rv, uint8_t *be, int *beyond)
{
    if (e->physical_type == PQ_INT32 || e->physical_type == PQ_INT64) {
        uint8_t ext = (p[7] & 0x80) ? 0xff : 0x00;
        for (int k = 8; k < w; k++)
            if (p[k] != ext) *beyond = (p[w - 1] & 0x80) ? -1 : 1;
        rv->i = load_le(p, 8, true);
        return;
    }
    for (int k = 0; k < w; k++) be[k] = p[w - 1 - k];
    rv->bytes = be;
    rv->len = (size_t)w;
}

/* The bytes of row j of a view column (j counts the Arrow offset in). A view
 * naming a buffer the array lacks reads as empty. */
static inline void view_at(const col_view *v, int64_t j, const uint8_t **p, size_t *len)
{
    const uint8_t *w = v->data + j * 16;
    int32_t l, b, o;
    memcpy(&l, w, 4);
    if (l <= 12) {
        *p = w + 4;
        *len = l > 0 ? (size_t)l : 0;
        return;
    }
    memcpy(&b, w + 8, 4);
    memcpy(&o, w + 12, 4);
    if (b < 0 || b >= v->nbufs || o < 0) {
        *p = w;
        *len = 0;
        return;
    }
    *p = (const uint8_t *)v->bufs[2 + b] + o;
    *len = (size_t)l;
}

/* Compare row i with `val`: <0, 0, >0, or 2 when unordered (NaN). */
/* Row i's bytes in a BIN32, BIN64 or VIEW column. */
static pq_value row_value(const col_view *v, int64_t i)
{
    pq_value rv = {0, 0, NULL, 0};
    int64_t j = v->off + i;
    if (v->kind == PQ_SLOT_BIN32) {
        int32_t o[2];
        memcpy(o, v->data + j * 4, 8);
        rv.bytes = (uint8_t *)(v->bytes + o[0]);
        rv.len = o[1] > o[0] ? (size_t)(o[1] - o[0]) : 0;
    } else if (v->kind == PQ_SLOT_BIN64) {
        int64_t o[2];
        memcpy(o, v->data + j * 8, 16);
        rv.bytes = (uint8_t *)(v->bytes + o[0]);
        rv.len = o[1] > o[0] ? (size_t)(o[1] - o[0]) : 0;
    } else if (v->kind == PQ_SLOT_VIEW) {
        const uint8_t *p;
        view_at(v, j, &p, &rv.len);
        rv.bytes = (uint8_t *)p;
    }
    return rv;
}

static int row_cmp(const col_view *v, const pq_expr *e, int64_t i, const pq_value *val)
{
    pq_value rv = {0, 0, NULL, 0};
    uint8_t be[32];
    int beyond = 0;
    int64_t j = v->off + i;
    switch (v->kind) {
    case PQ_SLOT_BOOL: rv.i = bit_get(v->data, j); break;
    case PQ_SLOT_INT:
    case PQ_SLOT_UINT: rv.i = load_le(v->data + j * v->width, v->width, v->kind == PQ_SLOT_INT); break;
    case PQ_SLOT_F32: {
        float x;
        memcpy(&x, v->data + j * 4, 4);
        rv.d = x;
        break;
    }
    case PQ_SLOT_F64: memcpy(&rv.d, v->data + j * 8, 8); break;
    case PQ_SLOT_BIN32:
    case PQ_SLOT_BIN64:
    case PQ_SLOT_VIEW: rv = row_value(v, i); break;
    case PQ_SLOT_FIXED:
        rv.bytes = (uint8_t *)(v->data + j * v->width);
        rv.len = (size_t)v->width;
        break;
    case PQ_SLOT_DEC: decimal_value(e, v->data + j * v->width, v->width, &rv, be, &beyond); break;
    case PQ_SLOT_NULL: break;
    }
    if (beyond) return beyond;
    if (e->order == PQ_ORDER_FLOAT && isnan(rv.d)) return 2;
    return pq_value_compare(e, &rv, val);
}

static bool op_holds(pq_cmp_op op, int c)
{
    switch (op) {
    case PQ_CMP_EQ: return c == 0;
    case PQ_CMP_NE: return c != 0;
    case PQ_CMP_LT: return c < 0;
    case PQ_CMP_LE: return c <= 0;
    case PQ_CMP_GT: return c > 0 && c != 2;
    case PQ_CMP_GE: return c >= 0 && c != 2;
    }
    return false;
}

/* Row i IN the sorted values of e. */
static bool row_in(const col_view *v, const pq_expr *e, int64_t i)
{
    size_t lo = 0, hi = e->nvalues;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = row_cmp(v, e, i, &e->values[mid]);
        if (c == 2) return false;
        if (c == 0) return true;
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return false;
}

/* ---------------------------------------------------------------------------
 * Nodes
 * ------------------------------------------------------------------------- */

/* A comparison of a fixed-width number column with its literal, 8 rows to
 * a byte of t and f: the common range filters, without building a
 * pq_value per row. The literal's type matches the column's order (bound). */
#define CMP_BYTES(T, LOAD, HOLDS)                                                                           \
    for (int64_t i0 = 0; i0 < n; i0 += 8) {                                                                 \
        if (mask && !mask[i0 >> 3]) continue;                                                               \
        unsigned tb = 0, fb = 0;                                                                            \
        int64_t m = n - i0 < 8 ? n - i0 : 8;                                                                \
        for (int64_t k = 0; k < m; k++) {                                                                   \
            int64_t j = v->off + i0 + k;                                                                    \
            if (v->valid && !bit_get(v->valid, j)) continue;                                                \
            T x;                                                                                            \
            LOAD;                                                                                           \
            if (HOLDS) tb |= 1u << k;                                                                       \
            else fb |= 1u << k;                                                                             \
        }                                                                                                   \
        t[i0 >> 3] |= (uint8_t)tb;                                                                          \
        f[i0 >> 3] |= (uint8_t)fb;                                                                          \
    }

/* Whether the 64 rows from i (a multiple of 64) are all masked out. */
static inline bool mask_word_clear(const uint8_t *mask, int64_t i, int64_t n)
{
    if ((i & 63) || n - i < 64) return false;
    uint64_t w;
    memcpy(&w, mask + (i >> 3), 8);
    return w == 0;
}

/* CMP_BYTES for a column without nulls, the comparison TEST written out
 * (no call, no branch a row): eight rows a byte, a row false when not true. */
#define CMP_NO_NULLS(T, LOAD, TEST)                                                                       \
    for (int64_t i0 = 0; i0 < n; i0 += 8) {                                                               \
        if (mask && mask_word_clear(mask, i0, n)) { i0 += 56; continue; } /* 64 rows decided before */    \
        if (mask && !mask[i0 >> 3]) continue;                                                             \
        unsigned tb = 0;                                                                                  \
        if (n - i0 >= 8) { /* a whole byte: a fixed count the compiler unrolls */                         \
            for (int k = 0; k < 8; k++) {                                                                 \
                int64_t j = v->off + i0 + k;                                                              \
                T x;                                                                                      \
                LOAD;                                                                                     \
                tb |= (unsigned)(TEST) << k;                                                              \
            }                                                                                             \
            t[i0 >> 3] |= (uint8_t)tb;                                                                    \
            f[i0 >> 3] |= (uint8_t)~tb;                                                                   \
            continue;                                                                                     \
        }                                                                                                 \
        int64_t m = n - i0;                                                                               \
        for (int64_t k = 0; k < m; k++) {                                                                 \
            int64_t j = v->off + i0 + k;                                                                  \
            T x;                                                                                          \
            LOAD;                                                                                         \
            tb |= (unsigned)(TEST) << k;                                                                  \
        }                                                                                                 \
        t[i0 >> 3] |= (uint8_t)tb;                                                                        \
        f[i0 >> 3] |= (uint8_t)(~tb & ((1u << m) - 1u));                                                  \
    }

/* A numeric comparison of each row's x (LOAD) with y: without nulls one
 * loop per operator, C's own comparisons (a NaN x is false for all but !=,
 * as op_holds has it); with nulls, CMP_BYTES. */
#define CMP_NUMBERS(T, LOAD, CMP)                                                                         \
    if (!v->valid) {                                                                                      \
        switch (op) {                                                                                     \
        case PQ_CMP_EQ: CMP_NO_NULLS(T, LOAD, x == y) break;                                              \
        case PQ_CMP_NE: CMP_NO_NULLS(T, LOAD, x != y) break;                                              \
        case PQ_CMP_LT: CMP_NO_NULLS(T, LOAD, x < y) break;                                               \
        case PQ_CMP_LE: CMP_NO_NULLS(T, LOAD, x <= y) break;                                              \
        case PQ_CMP_GT: CMP_NO_NULLS(T, LOAD, x > y) break;                                               \
        case PQ_CMP_GE: CMP_NO_NULLS(T, LOAD, x >= y) break;                                              \
        default: CMP_BYTES(T, LOAD, op_holds(op, CMP(x, y))) break;                                       \
        }                                                                                                 \
    } else {                                                                                              \
        CMP_BYTES(T, LOAD, op_holds(op, CMP(x, y)))                                                       \
    }

/* row_cmp's result for numbers: NaN is 2 (true only for !=, op_holds). */
static inline int cmp_i64(int64_t x, int64_t y)
{
    return (x > y) - (x < y);
}
static inline int cmp_f64(double x, double y)
{
    return isnan(x) ? 2 : (x > y) - (x < y);
}

/* A decimal128 slot that holds an INT32/INT64 column's value: the low word
 * is the unscaled value and the high word its sign extension (pqstep's
 * own conversion wrote it), so it compares as an int64. */
static inline bool int_decimal(const col_view *v, const pq_expr *e)
{
    return v->kind == PQ_SLOT_DEC && (v->width == 16 || v->width == 8) && e->order == PQ_ORDER_SIGNED &&
           (e->physical_type == PQ_INT32 || e->physical_type == PQ_INT64);
}

static inline int64_t load_i64(const uint8_t *p)
{
    int64_t x;
    memcpy(&x, p, 8);
    return x;
}

static inline int32_t load_i32(const uint8_t *p)
{
    int32_t x;
    memcpy(&x, p, 4);
    return x;
}

/* The bytes of row j of a string column (offsets or views). */
static inline void str_at(const col_view *v, int64_t j, const uint8_t **p, size_t *len)
{
    if (v->kind == PQ_SLOT_VIEW) {
        view_at(v, j, p, len);
        return;
    }
    if (v->kind == PQ_SLOT_BIN64) {
        int64_t o[2];
        memcpy(o, v->data + j * 8, 16);
        *len = o[1] > o[0] ? (size_t)(o[1] - o[0]) : 0;
        *p = v->bytes + o[0];
        return;
    }
    int32_t o[2];
    memcpy(o, v->data + j * 4, 8);
    *len = o[1] > o[0] ? (size_t)(o[1] - o[0]) : 0;
    *p = v->bytes + o[0];
}

/* Row j of a string column against `lit` in unsigned byte order. The
 * first bytes decide most rows of a range test (l_comment >= 'y') without
 * a memcmp call, which cost more than the comparison. */
static inline int bin_cmp(const col_view *v, int64_t j, const pq_value *lit)
{
    const uint8_t *p;
    size_t len;
    str_at(v, j, &p, &len);
    size_t m = len < lit->len ? len : lit->len;
    if (m && p[0] != lit->bytes[0]) return p[0] < lit->bytes[0] ? -1 : 1;
    int c = m > 1 ? memcmp(p + 1, lit->bytes + 1, m - 1) : 0;
    if (c) return c < 0 ? -1 : 1;
    return (len > lit->len) - (len < lit->len);
}

/* The first min(4, len) bytes of lit as a big-endian word (zeros after):
 * what a string view's prefix is compared against. */
static inline uint32_t lit_prefix(const pq_value *lit)
{
    uint32_t w = 0;
    for (size_t k = 0; k < 4 && k < lit->len; k++) w |= (uint32_t)lit->bytes[k] << (24 - 8 * k);
    return w;
}

/* Row j of a view column against `lit` (lp: lit_prefix) in unsigned byte
 * order. The view holds the string's first 4 bytes whatever its length,
 * so the first min(4, len, lit->len) bytes are compared there, as one
 * word: most rows differ in them and are decided without a look at their
 * bytes; equal, a string shorter than 4 bytes on either side is decided by
 * the lengths (it is a prefix of the other), and the rest by bin_cmp. */
static inline int view_cmp(const col_view *v, int64_t j, const pq_value *lit, uint32_t lp)
{
    const uint8_t *w = v->data + j * 16;
    int32_t l;
    memcpy(&l, w, 4);
    size_t len = l > 0 ? (size_t)l : 0, m = len < lit->len ? len : lit->len;
    if (m > 4) m = 4;
    if (m) {
        uint32_t mask = m == 4 ? 0xffffffffu : ~(0xffffffffu >> (8 * m));
        uint32_t a = ((uint32_t)w[4] << 24 | (uint32_t)w[5] << 16 | (uint32_t)w[6] << 8 | w[7]) & mask;
        uint32_t b = lp & mask;
        if (a != b) return a < b ? -1 : 1;
    }
    if (m < 4) return (len > lit->len) - (len < lit->len);
    return bin_cmp(v, j, lit);
}

static inline bool in_sorted_i64(const pq_value *vals, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (vals[mid].i == x) return true;
        if (vals[mid].i < x) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

/* Row j of a string column among n values (distinct): equal length first. */
static inline bool in_bin(const col_view *v, int64_t j, const pq_value *vals, size_t n)
{
    const uint8_t *p;
    size_t len;
    str_at(v, j, &p, &len);
    for (size_t k = 0; k < n; k++)
        if (vals[k].len == len && (len == 0 || memcmp(vals[k].bytes, p, len) == 0)) return true;
    return false;
}

/* true when done here; false for the generic loop. */
static bool eval_cmp_fast(const col_view *v, const pq_expr *e, int64_t n, const uint8_t *mask, uint8_t *t,
                          uint8_t *f)
{
    const pq_value *lit = &e->values[0];
    pq_cmp_op op = e->op;
    if (v->kind == PQ_SLOT_INT && e->order == PQ_ORDER_SIGNED && v->width == 8) {
        int64_t y = lit->i;
        CMP_NUMBERS(int64_t, memcpy(&x, v->data + j * 8, 8), cmp_i64)
    } else if (v->kind == PQ_SLOT_INT && e->order == PQ_ORDER_SIGNED && v->width == 4) {
        int64_t y = lit->i;
        CMP_NUMBERS(int64_t, int32_t x32; memcpy(&x32, v->data + j * 4, 4); x = x32, cmp_i64)
    } else if (v->kind == PQ_SLOT_F64 && e->order == PQ_ORDER_FLOAT && !isnan(lit->d)) {
        double y = lit->d;
        CMP_NUMBERS(double, memcpy(&x, v->data + j * 8, 8), cmp_f64)
    } else if (int_decimal(v, e)) {
        int64_t y = lit->i;
        size_t w = (size_t)v->width;
        CMP_NUMBERS(int64_t, memcpy(&x, v->data + j * w, 8), cmp_i64)
    } else if (v->kind == PQ_SLOT_VIEW && e->order == PQ_ORDER_BYTES) {
        uint32_t lp = lit_prefix(lit);
        CMP_BYTES(int, x = view_cmp(v, j, lit, lp), op_holds(op, x))
    } else if ((v->kind == PQ_SLOT_BIN32 || v->kind == PQ_SLOT_BIN64) && e->order == PQ_ORDER_BYTES) {
        CMP_BYTES(int, x = bin_cmp(v, j, lit), op_holds(op, x))
    } else {
        return false;
    }
    return true;
}

/* IN over the sorted, distinct values: integers (and integer-backed
 * decimals) by binary search on int64, strings by length and bytes. */
static bool eval_in_fast(const col_view *v, const pq_expr *e, int64_t n, const uint8_t *mask, uint8_t *t,
                         uint8_t *f)
{
    const pq_value *vals = e->values;
    size_t nv = e->nvalues;
    if ((v->kind == PQ_SLOT_INT && e->order == PQ_ORDER_SIGNED && (v->width == 4 || v->width == 8)) || int_decimal(v, e)) {
        int w = v->width;
        CMP_BYTES(int64_t, x = w == 4 ? (int64_t)load_i32(v->data + j * 4) : load_i64(v->data + j * w),
                  in_sorted_i64(vals, nv, x))
    } else if ((v->kind == PQ_SLOT_BIN32 || v->kind == PQ_SLOT_BIN64 || v->kind == PQ_SLOT_VIEW) &&
               e->order == PQ_ORDER_BYTES && nv <= 16) { /* longer lists: binary search */
        CMP_BYTES(bool, x = in_bin(v, j, vals, nv), x)
    } else {
        return false;
    }
    return true;
}

/* IS [NOT] NULL on a group: null where its first leaf's definition level
 * at the row is below the group's. */
static pq_status eval_group_null(eval_ctx *c, const pq_expr *e, uint8_t *t, uint8_t *f)
{
    const int16_t *defs = c->row_defs ? c->row_defs[e->leaf] : NULL;
    if (!defs && c->length > 0)
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT,
                            "predicate: no definition levels for the group of column %d", (int)e->leaf);
    for (int64_t i = 0; i < c->length; i++) bit_set((defs[i] < e->node_def) == e->is_null ? t : f, i);
    return PQ_OK;
}

static pq_status eval_leaf(eval_ctx *c, const pq_expr *e, uint8_t *t, uint8_t *f);

/* A dictionary-encoded column (an Arrow dictionary array with int32
 * indices) of leaf node ln: e (ln itself, or a subtree whose every leaf
 * reads that column) is evaluated once per dictionary entry, then each
 * row takes its entry's result; a null index is a null row. */
static pq_status eval_leaf_typed(eval_ctx *c, const pq_expr *e, uint8_t *t, uint8_t *f);
static pq_status eval_node(eval_ctx *c, const pq_expr *e, uint8_t *t, uint8_t *f);

/* f[b] = ~t[b] for the n bytes whose mask byte is not 0 (every byte
 * without a mask), the others left: eight bytes a step, the mask's
 * nonzero bytes found by a carry-free add (a branch a byte mispredicted on
 * a filter's scattered undecided rows). */
static void complement_where_masked(uint8_t *f, const uint8_t *t, const uint8_t *mask, size_t n)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full, high = 0x8080808080808080ull;
    size_t b = 0;
    for (; b + 8 <= n; b += 8) {
        uint64_t tw, fw, mw = ~0ull;
        memcpy(&tw, t + b, 8);
        memcpy(&fw, f + b, 8);
        if (mask) memcpy(&mw, mask + b, 8);
        uint64_t nonzero = (((mw & low7) + low7) | mw) & high; /* a byte's top bit: it is not 0 */
        uint64_t sel = (nonzero >> 7) * 0xff;
        fw = (~tw & sel) | (fw & ~sel);
        memcpy(f + b, &fw, 8);
    }
    for (; b < n; b++)
        if (!mask || mask[b]) f[b] = (uint8_t)~t[b];
}

static pq_status eval_on_dictionary(eval_ctx *c, const pq_expr *e, const pq_expr *ln, uint8_t *t, uint8_t *f)
{
    const struct ArrowArray *a = c->columns[ln->leaf];
    const struct ArrowSchema *s = c->schemas[ln->leaf];
    if (strcmp(s->format, "i") != 0 || !a->dictionary || !s->dictionary)
        return pq_error_set(c->err, PQ_ERR_UNSUPPORTED,
                            "predicate: dictionary column %.64s: indices of format '%.16s' (int32 expected)",
                            ln->column, s->format);
    if (a->length < c->length || a->offset < 0 || (c->length && (a->n_buffers < 2 || !a->buffers[1])))
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: column %.64s has %lld rows, %lld needed",
                            ln->column, (long long)a->length, (long long)c->length);
    int64_t dn = a->dictionary->length;
    const struct ArrowArray **cols = calloc((size_t)ln->leaf + 1, sizeof *cols);
    const struct ArrowSchema **schs = calloc((size_t)ln->leaf + 1, sizeof *schs);
    uint8_t *td = calloc(2, (size_t)(dn + 7) / 8 + 1), *fd = td ? td + (dn + 7) / 8 + 1 : NULL;
    pq_status st = cols && schs && td ? PQ_OK : pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
    if (st == PQ_OK) {
        cols[ln->leaf] = a->dictionary;
        schs[ln->leaf] = s->dictionary;
        eval_ctx dc = {cols, schs, NULL, dn, (size_t)((dn + 7) / 8), c->err, NULL}; /* entries, not rows */
        /* the entries (a variant path's rest is per row: the leaf alone) */
        st = e == ln ? eval_leaf_typed(&dc, e, td, fd) : eval_node(&dc, e, td, fd);
    }
    if (st == PQ_OK) {
        const uint8_t *valid = a->null_count != 0 && a->n_buffers > 0 ? a->buffers[0] : NULL;
        const int32_t *idx = (const int32_t *)a->buffers[1] + a->offset;
        int64_t i = 0;
        /* No null rows: eight rows a byte, no branch on the entries'
         * results, each entry's result a byte (one load a row). When every
         * entry is decided (true or false: no null or unknown entry), a
         * row's false is the complement of its true. */
        uint8_t *t8 = !valid ? malloc((size_t)(dn ? dn : 1) * 2) : NULL, *f8 = t8 ? t8 + (dn ? dn : 1) : NULL;
        if (t8) {
            bool decided = true;
            for (int64_t j = 0; j < dn; j++) {
                t8[j] = (uint8_t)bit_get(td, j);
                f8[j] = (uint8_t)bit_get(fd, j);
                decided &= (t8[j] | f8[j]) != 0;
            }
            if (dn == 0) t8[0] = f8[0] = 0; /* every index is bad then: found below */
            /* A small dictionary: eight rows a step where the CPU has AVX2
             * (the kernel stops at a bad index, which the loop below then
             * names). */
            if (dn > 0 && dn <= PQ_DICT_BITS_MAX) {
                uint32_t tbits[8] = {0}, fbits[8] = {0};
                for (int64_t j = 0; j < dn; j++) {
                    tbits[j >> 5] |= (uint32_t)t8[j] << (j & 31);
                    fbits[j >> 5] |= (uint32_t)f8[j] << (j & 31);
                }
                i = (int64_t)pq_dict_bits((const uint32_t *)idx, (size_t)c->length, tbits, fbits, (size_t)dn, c->mask,
                                          t, decided ? NULL : f);
                if (decided) complement_where_masked(f, t, c->mask, (size_t)(i / 8));
            }
            uint32_t bad = 0;
            for (; i + 8 <= c->length; i += 8) {
                if (c->mask && mask_word_clear(c->mask, i, c->length)) {
                    i += 56; /* 64 rows decided before */
                    continue;
                }
                if (c->mask && !c->mask[i >> 3]) continue;
                uint8_t tb = 0, fb = 0;
                const int32_t *q = idx + i;
                uint32_t j0 = (uint32_t)q[0], j1 = (uint32_t)q[1], j2 = (uint32_t)q[2], j3 = (uint32_t)q[3];
                uint32_t j4 = (uint32_t)q[4], j5 = (uint32_t)q[5], j6 = (uint32_t)q[6], j7 = (uint32_t)q[7];
                uint32_t hi = j0 | j1 | j2 | j3 | j4 | j5 | j6 | j7;
                if (hi < (uint64_t)dn || (j0 < (uint64_t)dn && j1 < (uint64_t)dn && j2 < (uint64_t)dn &&
                                          j3 < (uint64_t)dn && j4 < (uint64_t)dn && j5 < (uint64_t)dn &&
                                          j6 < (uint64_t)dn && j7 < (uint64_t)dn)) {
                    /* every index in range (the or of them bounds them all, mostly) */
                    tb = (uint8_t)(t8[j0] | t8[j1] << 1 | t8[j2] << 2 | t8[j3] << 3 | t8[j4] << 4 | t8[j5] << 5 |
                                   t8[j6] << 6 | t8[j7] << 7);
                } else {
                    for (int k = 0; k < 8; k++) {
                        uint32_t j = (uint32_t)q[k];
                        bad |= j >= (uint64_t)dn;
                        tb |= (uint8_t)(t8[j < (uint64_t)dn ? j : 0] << k);
                    }
                }
                if (decided) {
                    fb = (uint8_t)~tb;
                } else {
                    for (int k = 0; k < 8; k++) {
                        uint32_t j = (uint32_t)q[k];
                        fb |= (uint8_t)(f8[j < (uint64_t)dn ? j : 0] << k);
                    }
                }
                t[i >> 3] = tb;
                f[i >> 3] = fb;
            }
            if (bad) i = 0; /* find the bad index below, for the message */
            free(t8);
        }
        for (; i < c->length; i++) {
            if (valid && !bit_get(valid, a->offset + i)) {
                if (e->kind == PQ_NODE_IS_NULL) bit_set(e->is_null ? t : f, i);
                continue; /* a comparison with null: unknown */
            }
            int32_t j = idx[i];
            if (j < 0 || j >= dn) {
                st = pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT,
                                  "predicate: column %.64s: index %d at row %lld outside the dictionary of %lld",
                                  ln->column, j, (long long)i, (long long)dn);
                break;
            }
            if (bit_get(td, j)) bit_set(t, i);
            else if (bit_get(fd, j)) bit_set(f, i);
        }
    }
    free(cols);
    free(schs);
    free(td);
    return st;
}

/* bbox_intersects on row i's WKB: whether its envelope meets the box. */
static pq_status eval_bbox(eval_ctx *c, const col_view *v, const pq_expr *e, uint8_t *t, uint8_t *f)
{
    if (v->kind != PQ_SLOT_BIN32 && v->kind != PQ_SLOT_BIN64 && v->kind != PQ_SLOT_VIEW && v->kind != PQ_SLOT_NULL)
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: bbox_intersects on column %.64s, which is "
                            "not binary", e->column);
    double box[4] = {e->lits[0].d, e->lits[1].d, e->lits[2].d, e->lits[3].d};
    bool geography = e->logical.kind == PQ_LOGICAL_GEOGRAPHY;
    for (int64_t i = 0; i < c->length; i++) {
        if (c->mask && !bit_get(c->mask, i)) continue;
        if (v->kind == PQ_SLOT_NULL || (v->valid && !bit_get(v->valid, v->off + i))) continue; /* unknown */
        pq_value rv = row_value(v, i);
        pq_envelope env;
        pq_error werr;
        pq_status st = pq_wkb_envelope(rv.bytes, rv.len, geography, &env, &werr);
        if (st != PQ_OK)
            return pq_error_set(c->err, st, "bbox_intersects: column %.64s, row %lld: %s", e->column, (long long)i,
                                werr.message);
        double got[4] = {env.xmin, env.ymin, env.xmax, env.ymax};
        bit_set(!env.empty && pq_boxes_meet(got, box) ? t : f, i);
    }
    return PQ_OK;
}

/* A variant scalar as a value of e's bound column (its physical domain),
 * when the types agree (an integer for an integer column, a number for a
 * float column, a string for a string column, a date, a timestamp of the
 * column's unit, a decimal of its scale); false otherwise: the comparison
 * is then unknown, as SQL's cast of a variant to another type is null. */
static bool variant_as_value(const pq_expr *e, const pq_variant_scalar *sc, pq_value *out)
{
    memset(out, 0, sizeof *out);
    const pq_logical_type *lt = &e->logical;
    switch (e->physical_type) {
    case PQ_BOOLEAN:
        if (sc->kind != PQ_VK_BOOL) return false;
        out->i = sc->i;
        return true;
    case PQ_INT32:
    case PQ_INT64:
        if (lt->kind == PQ_LOGICAL_DATE) {
            if (sc->kind != PQ_VK_DATE) return false;
            out->i = sc->i;
            return true;
        }
        if (lt->kind == PQ_LOGICAL_TIMESTAMP) {
            if (sc->kind != PQ_VK_TIMESTAMP || sc->utc != lt->is_adjusted_to_utc) return false;
            int64_t t = sc->i;
            if (lt->unit == PQ_UNIT_NANOS) {
                if (!sc->unit_nanos) {
                    if (t > INT64_MAX / 1000 || t < INT64_MIN / 1000) return false;
                    t *= 1000;
                }
            } else if (lt->unit == PQ_UNIT_MICROS) {
                if (sc->unit_nanos) return false;
            } else {
                return false;
            }
            out->i = t;
            return true;
        }
        if (lt->kind == PQ_LOGICAL_DECIMAL) {
            if (sc->kind == PQ_VK_INT) { /* the integer at the column's scale */
                int64_t x = sc->i;
                for (int k = 0; k < lt->scale; k++) {
                    if (x > INT64_MAX / 10 || x < INT64_MIN / 10) return false;
                    x *= 10;
                }
                out->i = x;
                return true;
            }
            if (sc->kind != PQ_VK_DECIMAL || sc->scale != lt->scale) return false;
            for (int k = 8; k < 16; k++) /* must fit 64 bits */
                if (sc->unscaled[k] != ((sc->unscaled[7] & 0x80) ? 0xff : 0)) return false;
            uint64_t u = 0;
            for (int k = 0; k < 8; k++) u |= (uint64_t)sc->unscaled[k] << (8 * k);
            out->i = (int64_t)u;
            return true;
        }
        if (lt->kind != PQ_LOGICAL_NONE && lt->kind != PQ_LOGICAL_INTEGER) return false;
        if (sc->kind != PQ_VK_INT) return false;
        out->i = sc->i;
        return true;
    case PQ_FLOAT:
    case PQ_DOUBLE:
        if (sc->kind == PQ_VK_DOUBLE) {
            out->d = sc->d;
        } else if (sc->kind == PQ_VK_INT) {
            out->d = (double)sc->i;
        } else if (sc->kind == PQ_VK_DECIMAL) { /* the nearest double, as a cast to double gives */
            uint64_t lo = 0, hi = 0;
            for (int k = 0; k < 8; k++) {
                lo |= (uint64_t)sc->unscaled[k] << (8 * k);
                hi |= (uint64_t)sc->unscaled[8 + k] << (8 * k);
            }
            long double x = (long double)(int64_t)hi * 18446744073709551616.0L + (long double)lo;
            for (int k = 0; k < sc->scale; k++) x /= 10;
            out->d = (double)x;
        } else {
            return false;
        }
        if (e->physical_type == PQ_FLOAT) out->d = (float)out->d; /* as the column's values compare */
        return true;
    case PQ_BYTE_ARRAY:
        if (sc->kind != PQ_VK_STRING && sc->kind != PQ_VK_BINARY) return false;
        out->bytes = (uint8_t *)(uintptr_t)sc->bytes;
        out->len = sc->len;
        return e->order == PQ_ORDER_BYTES;
    default:
        return false;
    }
}

/* Row i's bytes of a VARIANT path's binary column (its metadata or a
 * residual value), or false when it is null. Such leaves sit below the
 * variant's group, so the filter never hands them over as dictionary
 * indices (it does that for top-level leaves). */
static bool variant_row(const col_view *v, int64_t i, pq_value *out)
{
    if (v->valid && !bit_get(v->valid, v->off + i)) return false;
    *out = row_value(v, i);
    return true;
}

/* A binary column's view, or false when absent. */
static bool variant_col(eval_ctx *c, int32_t leaf, col_view *v)
{
    if (leaf < 0 || !c->columns || !c->columns[leaf] || !c->schemas || !c->schemas[leaf]) return false;
    pq_expr probe = {0};
    probe.leaf = leaf;
    probe.physical_type = PQ_BYTE_ARRAY;
    probe.column = (char *)"variant";
    pq_error keep = *c->err;
    bool ok = view_column(c, &probe, v) == PQ_OK &&
              (v->kind == PQ_SLOT_BIN32 || v->kind == PQ_SLOT_BIN64 || v->kind == PQ_SLOT_VIEW);
    *c->err = keep;
    return ok;
}

/* The typed leaf's view (any format), for its validity; false when absent. */
static bool variant_col_any(eval_ctx *c, int32_t leaf, col_view *v)
{
    if (leaf < 0 || !c->columns || !c->columns[leaf] || !c->schemas || !c->schemas[leaf]) return false;
    const struct ArrowArray *a = c->columns[leaf];
    memset(v, 0, sizeof *v);
    v->kind = PQ_SLOT_BOOL; /* any kind but NULL: only the validity is read */
    v->off = a->offset;
    v->valid = a->null_count != 0 && a->n_buffers > 0 ? a->buffers[0] : NULL;
    if (c->schemas[leaf]->format && !strcmp(c->schemas[leaf]->format, "n")) v->kind = PQ_SLOT_NULL;
    return true;
}

/* A VARIANT path's residual columns, its metadata and its steps. */
typedef struct variant_cols {
    col_view meta, res[PQ_VARIANT_PATH_MAX + 1];
    bool have[PQ_VARIANT_PATH_MAX + 1];
    pq_variant_step steps[PQ_VARIANT_PATH_MAX + 1];
} variant_cols;

/* Row i's value at e's path from the deepest residual at level `from` or
 * above that holds the rest of the path: *at and *len its bytes (*at NULL
 * when none does), *level where it was found. A value found in the last
 * level's residual is checked whole when `check` (one found deeper down is
 * checked by pq_variant_field or _element on the way). */
static pq_status residual_value(eval_ctx *c, const pq_expr *e, const variant_cols *vc, pq_value mv, int64_t i,
                                int from, bool check, const uint8_t **at, size_t *len, int *level)
{
    *at = NULL;
    for (int k = from; k >= 0; k--) {
        pq_value rv;
        if (!vc->have[k] || !variant_row(&vc->res[k], i, &rv)) continue;
        const uint8_t *p = rv.bytes;
        size_t n = rv.len;
        pq_error verr;
        pq_status st = PQ_OK;
        for (size_t j = (size_t)k; p && j < e->variant_depth && st == PQ_OK; j++) {
            const pq_variant_step *s = &vc->steps[j];
            st = s->index < 0 ? pq_variant_field(mv.bytes, mv.len, p, n, s->name, s->len, &p, &n, &verr)
                              : pq_variant_element(mv.bytes, mv.len, p, n, (uint64_t)s->index, &p, &n, &verr);
        }
        if (st == PQ_OK && p && check && (size_t)k == e->variant_depth)
            st = pq_variant_validate(mv.bytes, mv.len, p, n, &verr);
        if (st != PQ_OK)
            return pq_error_set(c->err, st, "predicate: column %.64s, row %lld: %s", e->column, (long long)i,
                                verr.message);
        if (!p) continue; /* not there: a shallower residual may hold it */
        *at = p;
        *len = n;
        *level = k;
        return PQ_OK;
    }
    return PQ_OK;
}

static int cmp_ld(long double a, long double b)
{
    return a < b ? -1 : a > b;
}

/* A variant number as a long double (false: not a number). */
static bool variant_number(const pq_variant_scalar *sc, long double *x)
{
    if (sc->kind == PQ_VK_INT) {
        *x = (long double)sc->i;
    } else if (sc->kind == PQ_VK_DOUBLE) {
        *x = sc->d;
    } else if (sc->kind == PQ_VK_DECIMAL) {
        uint64_t lo = 0, hi = 0;
        for (int k = 0; k < 8; k++) {
            lo |= (uint64_t)sc->unscaled[k] << (8 * k);
            hi |= (uint64_t)sc->unscaled[8 + k] << (8 * k);
        }
        *x = (long double)(int64_t)hi * 18446744073709551616.0L + (long double)lo;
        for (int k = 0; k < sc->scale; k++) *x /= 10;
    } else {
        return false;
    }
    return true;
}

/* A variant value against literal k as written, by value (predicate.h):
 * numbers whatever their width (NaN above all: 2), strings by their
 * bytes, booleans, a date against a 'YYYY-MM-DD' literal; 3 when the
 * types do not compare (the comparison is then unknown, as a failed cast). */
static int by_value_compare(const pq_expr *e, const pq_variant_scalar *sc, size_t k)
{
    const pq_literal *l = &e->lits[k];
    long double x;
    int64_t days;
    switch (l->kind) {
    case PQ_LIT_BOOL: return sc->kind == PQ_VK_BOOL ? cmp_ld((long double)sc->i, (long double)l->b) : 3;
    case PQ_LIT_INT:
        if (sc->kind == PQ_VK_INT) return sc->i < l->i ? -1 : sc->i > l->i;
        if (!variant_number(sc, &x)) return 3;
        return isnan(x) ? 2 : cmp_ld(x, (long double)l->i);
    case PQ_LIT_DOUBLE:
        if (!variant_number(sc, &x)) return 3;
        return isnan(x) ? 2 : cmp_ld(x, (long double)l->d);
    case PQ_LIT_TEXT:
        if (sc->kind == PQ_VK_STRING) {
            pq_value a = {0, 0, (uint8_t *)(uintptr_t)sc->bytes, sc->len};
            pq_value b = {0, 0, (uint8_t *)(uintptr_t)l->text, l->text_len};
            pq_expr bytes_order = {0};
            bytes_order.order = PQ_ORDER_BYTES;
            return pq_value_compare(&bytes_order, &a, &b);
        }
        if (sc->kind == PQ_VK_DATE && l->text_len == 10 && pq_parse_date(l->text, l->text_len, &days))
            return sc->i < days ? -1 : sc->i > days;
        return 3;
    }
    return 3;
}

/* Whether variant value sc at e's path satisfies e's comparison or IN:
 * as the typed leaf's values when it is of the leaf's type and the
 * literals were bound exactly, else by value; *known false when the
 * comparison is unknown. */
static bool path_holds(const pq_expr *e, const pq_variant_scalar *sc, bool *known)
{
    *known = true;
    pq_value v;
    if (!e->variant_untyped && !e->variant_by_value && variant_as_value(e, sc, &v)) {
        if (e->kind == PQ_NODE_CMP) {
            int cmp = (e->order == PQ_ORDER_FLOAT && isnan(v.d)) ? 2 : pq_value_compare(e, &v, &e->values[0]);
            return op_holds(e->op, cmp);
        }
        for (size_t n = 0; n < e->nvalues; n++)
            if (!(e->order == PQ_ORDER_FLOAT && isnan(v.d)) && pq_value_compare(e, &v, &e->values[n]) == 0)
                return true;
        return false;
    }
    if (e->kind == PQ_NODE_CMP) {
        int cmp = by_value_compare(e, sc, 0);
        *known = cmp != 3;
        return *known && op_holds(e->op, cmp);
    }
    bool any_known = false;
    for (size_t n = 0; n < e->nlits; n++) {
        int cmp = by_value_compare(e, sc, n);
        if (cmp == 0) return true;
        any_known |= cmp != 3;
    }
    *known = any_known;
    return false;
}

/* Row i of a typed leaf as a variant scalar; false when null or of a
 * type not compared by value. */
static bool typed_scalar(const pq_expr *e, const col_view *v, int64_t i, pq_variant_scalar *sc)
{
    int64_t j = v->off + i;
    if (v->kind == PQ_SLOT_NULL || (v->valid && !bit_get(v->valid, j))) return false;
    memset(sc, 0, sizeof *sc);
    const uint8_t *p = v->data + j * (int64_t)v->width;
    const pq_logical_type *lt = &e->logical;
    switch (v->kind) {
    case PQ_SLOT_BOOL:
        sc->kind = PQ_VK_BOOL;
        sc->i = bit_get(v->data, j);
        return true;
    case PQ_SLOT_INT:
        sc->i = load_le(p, v->width, true);
        if (lt->kind == PQ_LOGICAL_DATE) sc->kind = PQ_VK_DATE;
        else if (lt->kind == PQ_LOGICAL_NONE || lt->kind == PQ_LOGICAL_INTEGER) sc->kind = PQ_VK_INT;
        else return false;
        return true;
    case PQ_SLOT_UINT: {
        uint64_t u = (uint64_t)load_le(p, v->width, false);
        sc->kind = u > INT64_MAX ? PQ_VK_DOUBLE : PQ_VK_INT;
        sc->d = (double)u;
        sc->i = (int64_t)u;
        return true;
    }
    case PQ_SLOT_F32: {
        float x;
        memcpy(&x, p, 4);
        sc->kind = PQ_VK_DOUBLE;
        sc->d = x;
        return true;
    }
    case PQ_SLOT_F64:
        sc->kind = PQ_VK_DOUBLE;
        memcpy(&sc->d, p, 8);
        return true;
    case PQ_SLOT_DEC:
        if (v->width != 8 && v->width != 16) return false;
        sc->kind = PQ_VK_DECIMAL;
        sc->scale = lt->scale;
        memcpy(sc->unscaled, p, (size_t)v->width);
        if (v->width == 8) memset(sc->unscaled + 8, (p[7] & 0x80) ? 0xff : 0, 8);
        return true;
    case PQ_SLOT_BIN32:
    case PQ_SLOT_BIN64:
    case PQ_SLOT_VIEW: {
        if (lt->kind != PQ_LOGICAL_STRING) return false;
        pq_value rv = row_value(v, i);
        sc->kind = PQ_VK_STRING;
        sc->bytes = rv.bytes;
        sc->len = rv.len;
        return true;
    }
    default: return false;
    }
}

/* variant_by_value: the typed leaf's rows compared by value (a null one
 * is left to the residuals). */
static pq_status eval_typed_by_value(eval_ctx *c, const pq_expr *e, uint8_t *t, uint8_t *f)
{
    if (c->schemas && c->schemas[e->leaf] && c->schemas[e->leaf]->dictionary)
        return pq_error_set(c->err, PQ_ERR_UNSUPPORTED, "predicate: %.64s: a shredded VARIANT leaf as a dictionary "
                            "array", e->column);
    col_view v;
    pq_status st = view_column(c, e, &v);
    if (st != PQ_OK) return st;
    for (int64_t i = 0; i < c->length; i++) {
        if (c->mask && !bit_get(c->mask, i)) continue;
        pq_variant_scalar sc;
        if (!typed_scalar(e, &v, i, &sc)) continue;
        bool known, truth = path_holds(e, &sc, &known);
        if (known) bit_set(truth ? t : f, i);
    }
    return PQ_OK;
}

/* A path into a VARIANT, for the rows its typed leaf left undecided (every
 * row when the path left the shredding): the value from the deepest
 * residual `value` on the way that holds the rest of the path, compared
 * as the typed leaf would be, or by its own type. */
static pq_status eval_variant_rest(eval_ctx *c, const pq_expr *e, uint8_t *t, uint8_t *f)
{
    variant_cols vc;
    bool any = false;
    memset(vc.have, 0, sizeof vc.have);
    bool untyped = e->variant_untyped;
    if (!variant_col(c, e->variant_meta, &vc.meta)) {
        if (!untyped) return PQ_OK; /* not read here: the typed leaf alone */
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: no metadata column for %.64s", e->column);
    }
    for (size_t k = 0; k <= e->variant_depth; k++) { /* below a shredded array: the picked columns */
        size_t base = e->variant_pick >= 0 && k >= e->variant_pick_level ? e->variant_pick_base : 0;
        int32_t slot = e->variant_residual[k] < 0 ? -1 : (int32_t)((size_t)e->variant_residual[k] + base);
        any |= vc.have[k] = variant_col(c, slot, &vc.res[k]);
    }
    if (!any && !untyped) return PQ_OK;
    size_t ns = 0;
    pq_status st = pq_variant_path_steps(e->column + e->variant_path_at, vc.steps, PQ_VARIANT_PATH_MAX + 1, &ns,
                                         c->err);
    if (st != PQ_OK) return st;
    if (ns != e->variant_depth)
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: path %.64s changed since binding", e->column);
    /* IS [NOT] NULL: the typed leaf decided its non-null rows; its null
     * rows are decided here, by whether a residual holds a non-null value. */
    col_view typed = {0};
    bool is_null = e->kind == PQ_NODE_IS_NULL;
    const int16_t *defs = NULL; /* a shredded object or array: present where its group is */
    if (is_null && e->node_def > 0) {
        defs = c->row_defs ? c->row_defs[e->leaf] : NULL;
        if (!defs) return PQ_OK; /* not read here: the group alone */
    } else if (is_null && !untyped &&
               !variant_col_any(c, (int32_t)((size_t)e->leaf + (e->variant_pick >= 0 ? e->variant_pick_base : 0)),
                                &typed)) {
        return PQ_OK;
    }
    for (int64_t i = 0; i < c->length; i++) {
        if (c->mask && !bit_get(c->mask, i)) continue;
        if (is_null && defs) {
            if (defs[i] >= e->node_def) continue;
        } else if (is_null && !untyped) {
            if (typed.kind != PQ_SLOT_NULL && (!typed.valid || bit_get(typed.valid, typed.off + i))) continue;
        } else if (bit_get(t, i) || bit_get(f, i)) {
            continue; /* the typed leaf decided */
        }
        pq_value mv;
        if (!variant_row(&vc.meta, i, &mv)) { /* a null row: its path is null */
            if (is_null && untyped) bit_set(e->is_null ? t : f, i);
            continue;
        }
        const uint8_t *at;
        size_t len = 0;
        int level = (int)e->variant_depth;
        if (is_null) { /* null unless some residual holds the path, not as the variant null */
            bool present = false;
            for (int from = level; from >= 0 && !present; from = level - 1) {
                if ((st = residual_value(c, e, &vc, mv, i, from, false, &at, &len, &level)) != PQ_OK) return st;
                if (!at) break;
                present = len && at[0] != 0; /* 0: the variant null */
            }
            t[i >> 3] &= (uint8_t)~(1u << (i & 7));
            f[i >> 3] &= (uint8_t)~(1u << (i & 7));
            bit_set(present != e->is_null ? t : f, i);
            continue;
        }
        if ((st = residual_value(c, e, &vc, mv, i, level, true, &at, &len, &level)) != PQ_OK) return st;
        if (!at) continue;
        pq_variant_scalar sc;
        pq_variant_scalar_of(at, len, &sc);
        bool known;
        bool truth = path_holds(e, &sc, &known);
        if (known) bit_set(truth ? t : f, i);
    }
    return PQ_OK;
}

static pq_status eval_leaf(eval_ctx *c, const pq_expr *e, uint8_t *t, uint8_t *f)
{
    if (e->variant_untyped) return eval_variant_rest(c, e, t, f);
    pq_expr picked; /* a path through a shredded array: its typed leaf's picked column */
    const pq_expr *typed = e;
    if (e->variant_pick >= 0) {
        picked = *e;
        picked.leaf = (int32_t)((size_t)e->leaf + e->variant_pick_base);
        typed = &picked;
    }
    pq_status st = e->variant_by_value ? eval_typed_by_value(c, typed, t, f) : eval_leaf_typed(c, typed, t, f);
    if (st == PQ_OK && e->variant_depth) st = eval_variant_rest(c, e, t, f);
    return st;
}

static pq_status eval_leaf_typed(eval_ctx *c, const pq_expr *e, uint8_t *t, uint8_t *f)
{
    if (e->kind == PQ_NODE_IS_NULL && e->node_def > 0) return eval_group_null(c, e, t, f);
    if (c->schemas && c->schemas[e->leaf] && c->schemas[e->leaf]->dictionary && c->columns &&
        c->columns[e->leaf])
        return eval_on_dictionary(c, e, e, t, f);
    col_view v;
    pq_status st = view_column(c, e, &v);
    if (st != PQ_OK) return st;
    if (e->kind == PQ_NODE_BBOX) return eval_bbox(c, &v, e, t, f);
    if (e->kind == PQ_NODE_CMP && e->nvalues != 1)
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: a comparison without its value");
    if (e->kind == PQ_NODE_CMP && eval_cmp_fast(&v, e, c->length, c->mask, t, f)) return PQ_OK;
    if (e->kind == PQ_NODE_IN && eval_in_fast(&v, e, c->length, c->mask, t, f)) return PQ_OK;
    for (int64_t i = 0; i < c->length; i++) {
        if (c->mask && !bit_get(c->mask, i)) continue;
        bool valid = v.kind != PQ_SLOT_NULL && (!v.valid || bit_get(v.valid, v.off + i));
        bool truth;
        if (e->kind == PQ_NODE_IS_NULL) truth = valid != e->is_null;
        else if (!valid) continue; /* unknown */
        else if (e->kind == PQ_NODE_CMP) truth = op_holds(e->op, row_cmp(&v, e, i, &e->values[0]));
        else truth = row_in(&v, e, i);
        bit_set(truth ? t : f, i);
    }
    return PQ_OK;
}

static pq_status eval_node(eval_ctx *c, const pq_expr *e, uint8_t *t, uint8_t *f);

/* What an operand costs per row, roughly, for choosing which side of AND
 * and OR goes first: a leaf on a dictionary array (decided once per entry),
 * then fixed-width comparisons (equality first: it is the most selective),
 * then strings; a composite costs its dearest operand. */
static int eval_cost(const eval_ctx *c, const pq_expr *e)
{
    if (!e) return 0;
    switch (e->kind) {
    case PQ_NODE_CONST: return 0;
    case PQ_NODE_NOT: return eval_cost(c, e->kids[0]);
    case PQ_NODE_AND:
    case PQ_NODE_OR: {
        int a = eval_cost(c, e->kids[0]), b = eval_cost(c, e->kids[1]);
        return a > b ? a : b;
    }
    default: break;
    }
    if (e->leaf < 0 || !c->schemas || !c->schemas[e->leaf] || e->variant_untyped || e->variant_by_value) return 6;
    if (c->schemas[e->leaf]->dictionary) return 1;
    if (e->kind == PQ_NODE_IS_NULL) return 1;
    bool bytes = e->order == PQ_ORDER_BYTES;
    bool eq = e->kind == PQ_NODE_IN || (e->kind == PQ_NODE_CMP && e->op == PQ_CMP_EQ);
    return bytes ? (eq ? 4 : 5) : (eq ? 2 : 3);
}

/* AND / OR: the cheaper operand first; the other is evaluated only on the
 * rows it left undecided (not false for AND, not true for OR). */
static pq_status eval_binary(eval_ctx *c, const pq_expr *e, uint8_t *t, uint8_t *f)
{
    bool and_ = e->kind == PQ_NODE_AND;
    const pq_expr *first = e->kids[0], *second = e->kids[1];
    if (eval_cost(c, second) < eval_cost(c, first)) {
        first = e->kids[1];
        second = e->kids[0];
    }
    size_t nb = c->nbytes ? c->nbytes : 1;
    uint8_t *t2 = calloc(3, nb), *f2 = t2 ? t2 + nb : NULL, *mask = t2 ? t2 + 2 * nb : NULL;
    if (!t2) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory evaluating a predicate");
    pq_status st = eval_node(c, first, t, f);
    uint8_t any = 0;
    const uint8_t *decided = and_ ? f : t; /* the rows the first operand settled */
    if (st == PQ_OK && c->mask) {
        for (size_t k = 0; k < c->nbytes; k++) any |= mask[k] = (uint8_t)(~decided[k] & c->mask[k]);
    } else if (st == PQ_OK) {
        for (size_t k = 0; k < c->nbytes; k++) any |= mask[k] = (uint8_t)~decided[k];
    }
    if (st == PQ_OK && any) {
        eval_ctx c2 = *c;
        c2.mask = mask;
        st = eval_node(&c2, second, t2, f2);
    }
    if (st == PQ_OK && and_) {
        for (size_t k = 0; k < c->nbytes; k++) {
            t[k] &= t2[k];
            f[k] |= f2[k];
        }
    } else if (st == PQ_OK) {
        for (size_t k = 0; k < c->nbytes; k++) {
            t[k] |= t2[k];
            f[k] &= f2[k];
        }
    }
    free(t2);
    return st;
}

/* The leaf every leaf node of subtree e reads (a leaf node of it), or NULL:
 * plain comparisons, IN and IS [NOT] NULL of the leaf itself (no group,
 * no VARIANT path, no box); constants go with any. */
static const pq_expr *single_leaf(const pq_expr *e, int depth)
{
    if (!e || depth > 64) return NULL;
    if (e->kind == PQ_NODE_CONST) return e;
    if (pq_node_is_leaf(e))
        return e->kind != PQ_NODE_BBOX && !e->variant_depth && !(e->kind == PQ_NODE_IS_NULL && e->node_def > 0) &&
                       e->leaf >= 0
                   ? e
                   : NULL;
    const pq_expr *a = single_leaf(e->kids[0], depth + 1);
    if (!a || e->kind == PQ_NODE_NOT) return a;
    const pq_expr *b = single_leaf(e->kids[1], depth + 1);
    if (!b) return NULL;
    if (a->kind == PQ_NODE_CONST) return b;
    if (b->kind == PQ_NODE_CONST) return a;
    return a->leaf == b->leaf ? a : NULL;
}

/* Subtree e's single leaf (single_leaf) when its column is a dictionary
 * array without null rows, else NULL. */
static const pq_expr *one_dictionary_leaf(const eval_ctx *c, const pq_expr *e)
{
    const pq_expr *ln = single_leaf(e, 0);
    if (!ln || ln->kind == PQ_NODE_CONST || !c->columns || !c->schemas) return NULL;
    const struct ArrowArray *a = c->columns[ln->leaf];
    const struct ArrowSchema *s = c->schemas[ln->leaf];
    if (!a || !s || !s->dictionary || !a->dictionary) return NULL;
    return a->null_count == 0 || a->n_buffers < 1 || !a->buffers[0] ? ln : NULL;
}

/* t and f arrive zeroed. */
static pq_status eval_node(eval_ctx *c, const pq_expr *e, uint8_t *t, uint8_t *f)
{
    if (!e) return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: a node without operands");
    switch (e->kind) {
    case PQ_NODE_CONST: { /* whole bytes at once: a row group may claim millions of rows */
        uint8_t *dst = e->truth ? t : f;
        int64_t full = c->length / 8;
        memset(dst, 0xff, (size_t)full);
        for (int64_t i = full * 8; i < c->length; i++) bit_set(dst, i);
        return PQ_OK;
    }
    case PQ_NODE_NOT:
    case PQ_NODE_AND:
    case PQ_NODE_OR: {
        /* `(q >= 1 and q <= 11) or (q >= 10 and q <= 20)` on one
         * dictionary column with no null row: the whole subtree once per
         * entry, the rows mapped once (not once per comparison) */
        const pq_expr *ln = one_dictionary_leaf(c, e);
        if (ln) return eval_on_dictionary(c, e, ln, t, f);
        if (e->kind == PQ_NODE_NOT) return eval_node(c, e->kids[0], f, t);
        return eval_binary(c, e, t, f);
    }
    default:
        if (e->leaf < 0) return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: not bound");
        return eval_leaf(c, e, t, f);
    }
}

pq_status pq_predicate_eval(const pq_expr *e, const struct ArrowArray *const *columns,
                            const struct ArrowSchema *const *schemas, const int16_t *const *row_defs,
                            int64_t length, uint8_t *keep_bits, pq_error *err)
{
    if (!e || (length > 0 && !keep_bits) || length < 0)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_predicate_eval: NULL or negative argument");
    if (!e->bound) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_predicate_eval: predicate not bound");
    eval_ctx c = {columns, schemas, row_defs, length, (size_t)((length + 7) / 8), err, NULL};
    uint8_t *f = calloc(c.nbytes ? c.nbytes : 1, 1);
    if (!f) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory evaluating a predicate");
    if (c.nbytes) memset(keep_bits, 0, c.nbytes);
    pq_status st = eval_node(&c, e, keep_bits, f);
    free(f);
    if (st != PQ_OK && c.nbytes) memset(keep_bits, 0, c.nbytes);
    return st;
}
