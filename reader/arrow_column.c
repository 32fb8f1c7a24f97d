/*
 * arrow_column.c — Arrow buffers for decoded flat columns: the
 * reference-counted column (see arrow_column.h), built from one chunk's
 * levels and values, or adopted from an array made elsewhere.
 *
 * Layouts (the Arrow columnar format): a validity bitmap when the column
 * has nulls (bit i set where def == max_def), then the values, one slot per
 * row, nulls zeroed: bit-packed booleans; fixed-width values (converted from
 * the physical type where Arrow's type is narrower, wider or reordered);
 * int32 offsets + data for strings and binary. The null type has no buffers.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "kernels/plain.h"
#include "kernels/primitives.h"
#include "kernels/spread.h"
#include "pages/buffer_pool.h"
#include "metadata/error.h"
#include "reader/arrow_column.h"
#include "reader/arrow_column_internal.h"
#include "reader/int96.h"

/* What one value slot of the output is made from. */
typedef enum conv_kind {
    CONV_COPY,     /* the same bytes (width ow) */
    CONV_INT,      /* integer narrowed or extended from a 4/8-byte integer */
    CONV_INT96,    /* INT96 -> int64 timestamp of the leaf's unit, range-checked (int96.h) */
    CONV_DECIMAL   /* two's complement, sign-extended to ow bytes LE */
} conv_kind;

/* ---------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------- */

static inline int64_t load_le(const uint8_t *p, size_t w, bool is_signed)
{
    uint64_t x = 0;
    for (size_t k = 0; k < w; k++) x |= (uint64_t)p[k] << (8 * k);
    if (is_signed && w < 8 && (x >> (8 * w - 1)) & 1) x |= ~0ull << (8 * w);
    return (int64_t)x;
}

static inline void store_le(uint8_t *p, size_t w, uint64_t x)
{
    for (size_t k = 0; k < w; k++) p[k] = (uint8_t)(x >> (8 * k));
}

/* Integer `src` (w bytes LE) into ow bytes, sign- or zero-extended. */
static inline void conv_int(uint8_t *dst, size_t ow, const uint8_t *src, size_t w, bool is_signed)
{
    int64_t x = load_le(src, w, is_signed);
    if (ow <= 8) {
        store_le(dst, ow, (uint64_t)x);
        return;
    }
    store_le(dst, 8, (uint64_t)x);
    memset(dst + 8, x < 0 ? 0xff : 0, ow - 8);
}

/* Big-endian two's complement (len bytes) into ow bytes LE, sign-extended;
 * more bytes than ow keep the low ones (Arrow could not hold them anyway). */
static inline void conv_be_decimal(uint8_t *dst, size_t ow, const uint8_t *src, size_t len)
{
    uint8_t fill = len && (src[0] & 0x80) ? 0xff : 0;
    for (size_t k = 0; k < ow; k++) dst[k] = k < len ? src[len - 1 - k] : fill;
}

void pq_arrow_column_release(pq_arrow_column *c)
{
    if (!c || atomic_fetch_sub(&c->refs, 1) != 1) return;
    for (int i = 0; i < PQ_COLUMN_MAX_BUFFERS; i++) pq_pool_give(c->owned[i]);
    if (c->adopted.release) c->adopted.release(&c->adopted);
    pq_arrow_column_release(c->base);
    pq_arrow_column_release(c->dictionary);
    for (size_t i = 0; i < c->n_children; i++) pq_arrow_column_release(c->children[i]);
    free(c->children);
    free(c);
}

pq_arrow_column *pq_arrow_column_retain(pq_arrow_column *c)
{
    if (c) atomic_fetch_add(&c->refs, 1);
    return c;
}

/* A node over adopted array node `a` (depth levels below the root),
 * holding `holder` (which keeps the array) as its base. */
static pq_arrow_column *adopt_node(const struct ArrowArray *a, pq_arrow_column *holder, int depth, pq_error *err)
{
    if (depth > 64) {
        pq_error_set(err, PQ_ERR_UNSUPPORTED, "an adopted array nested deeper than 64 levels");
        return NULL;
    }
    if (a->n_buffers < 0 || a->n_buffers > PQ_COLUMN_MAX_BUFFERS || a->n_children < 0 || a->offset != 0 ||
        (a->n_buffers && !a->buffers) || (a->n_children && !a->children)) {
        pq_error_set(err, PQ_ERR_UNSUPPORTED, "an adopted array node with %lld buffers, %lld children, offset %lld",
                     (long long)a->n_buffers, (long long)a->n_children, (long long)a->offset);
        return NULL;
    }
    pq_arrow_column *c = column_new(a->length);
    if (!c) {
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->foreign = true;
    c->null_count = a->null_count;
    c->n_buffers = a->n_buffers;
    for (int64_t i = 0; i < a->n_buffers; i++) c->buffers[i] = a->buffers[i];
    c->base = pq_arrow_column_retain(holder);
    if (a->n_children && !(c->children = calloc((size_t)a->n_children, sizeof *c->children))) {
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        pq_arrow_column_release(c);
        return NULL;
    }
    for (int64_t i = 0; i < a->n_children; i++) {
        if (!(c->children[i] = adopt_node(a->children[i], holder, depth + 1, err))) {
            pq_arrow_column_release(c);
            return NULL;
        }
        c->n_children = (size_t)i + 1;
    }
    if (a->dictionary && !(c->dictionary = adopt_node(a->dictionary, holder, depth + 1, err))) {
        pq_arrow_column_release(c);
        return NULL;
    }
    return c;
}

pq_status pq_arrow_column_adopt(struct ArrowArray *a, uint64_t nbytes, pq_arrow_column **out, pq_error *err)
{
    *out = NULL;
    if (!a || !a->release) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "no array to adopt");
    pq_error local;
    pq_error *e = err ? err : &local;
    pq_arrow_column *holder = column_new(0);
    if (!holder) {
        a->release(a);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    holder->foreign = true;
    pq_arrow_column *c = adopt_node(a, holder, 0, e);
    if (!c) {
        pq_arrow_column_release(holder);
        a->release(a);
        return e->code;
    }
    holder->adopted = *a; /* moved, not copied: the nodes' buffer pointers stay valid */
    memset(a, 0, sizeof *a);
    pq_arrow_column_release(holder); /* the nodes hold it now */
    c->nbytes = nbytes;
    *out = c;
    return PQ_OK;
}

bool pq_arrow_column_is_adopted(const pq_arrow_column *c)
{
    return c && c->foreign;
}

int64_t pq_arrow_column_length(const pq_arrow_column *c)
{
    return c ? c->length : 0;
}

int64_t pq_arrow_column_dictionary_length(const pq_arrow_column *c)
{
    return c && c->dictionary ? c->dictionary->length : -1;
}

pq_status pq_arrow_column_dictionary_unique(pq_arrow_column *c, pq_error *err)
{
    pq_arrow_column *d = c ? c->dictionary : NULL;
    if (!d || d->layout != LAYOUT_BINARY || c->layout != LAYOUT_FIXED || c->width != 4 || d->null_count ||
        c->owned[1] != c->buffers[1]) /* indices of its own, to rewrite */
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "no dictionary array of strings with int32 indices");
    size_t n = (size_t)d->length, cap = 16;
    while (cap < 2 * n) cap *= 2;
    const int32_t *off = d->buffers[1];
    const uint8_t *bytes = d->buffers[2];
    int32_t *slot = malloc(cap * sizeof *slot), *remap = malloc((n ? n : 1) * sizeof *remap);
    int32_t *noff = pq_pool_alloc((n + 1) * sizeof *noff);
    uint8_t *nbytes = pq_pool_alloc(off[n] > off[0] ? (size_t)(off[n] - off[0]) : 1);
    if (!slot || !remap || !noff || !nbytes) {
        free(slot);
        free(remap);
        pq_pool_give(noff);
        pq_pool_give(nbytes);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a dictionary");
    }
    memset(slot, 0xff, cap * sizeof *slot); /* -1: empty */
    size_t m = 0;
    noff[0] = 0;
    for (size_t e = 0; e < n; e++) { /* open addressing on the entries' bytes */
        const uint8_t *p = bytes + off[e];
        size_t len = (size_t)(off[e + 1] - off[e]);
        size_t at = (size_t)XXH3_64bits(p, len) & (cap - 1);
        for (;; at = (at + 1) & (cap - 1)) {
            int32_t u = slot[at];
            if (u < 0) {
                slot[at] = (int32_t)m;
                memcpy(nbytes + noff[m], p, len);
                noff[m + 1] = noff[m] + (int32_t)len;
                remap[e] = (int32_t)m++;
                break;
            }
            if ((size_t)(noff[u + 1] - noff[u]) == len && memcmp(nbytes + noff[u], p, len) == 0) {
                remap[e] = u;
                break;
            }
        }
    }
    free(slot);
    int32_t *idx = c->owned[1];
    for (int64_t i = 0; i < c->length; i++) /* an index out of the entries is a null's: 0 */
        idx[i] = idx[i] >= 0 && (size_t)idx[i] < n ? remap[idx[i]] : 0;
    free(remap);
    pq_arrow_column *u = column_new((int64_t)m);
    if (!u || !column_own(u, 1, noff, (m + 1) * sizeof *noff) || !column_own(u, 2, nbytes, (size_t)noff[m])) {
        if (!u || !u->owned[1]) pq_pool_give(noff);
        if (!u || !u->owned[2]) pq_pool_give(nbytes);
        pq_arrow_column_release(u);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a dictionary");
    }
    u->layout = LAYOUT_BINARY;
    u->n_buffers = 3;
    pq_arrow_column_release(d);
    c->dictionary = u;
    return PQ_OK;
}

pq_status pq_arrow_column_index_width(pq_arrow_column *c, size_t width, pq_error *err)
{
    if (!c || !c->dictionary || c->layout != LAYOUT_FIXED || c->width != 4 ||
        (width != 1 && width != 2 && width != 8))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "index width %zu for a column that is no "
                            "dictionary array of int32 indices", width);
    size_t n = (size_t)c->length;
    const int32_t *from = c->buffers[1];
    uint8_t *to = malloc(n ? n * width : 1);
    if (!to) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for dictionary indices");
    for (size_t i = 0; i < n; i++) { /* a null slot's index is 0 or another entry's: in range */
        int64_t x = from[i];
        if (width == 1) to[i] = (uint8_t)x;
        else if (width == 2) {
            uint16_t y = (uint16_t)x;
            memcpy(to + 2 * i, &y, 2);
        } else {
            memcpy(to + 8 * i, &x, 8);
        }
    }
    pq_pool_give(c->owned[1]);
    c->nbytes = c->nbytes - n * 4 + n * width;
    c->owned[1] = to;
    c->buffers[1] = to;
    c->width = (uint32_t)width;
    return PQ_OK;
}

uint64_t pq_arrow_column_bytes(const pq_arrow_column *c)
{
    if (!c) return 0;
    uint64_t n = c->nbytes + pq_arrow_column_bytes(c->dictionary);
    for (size_t i = 0; i < c->n_children; i++) n += pq_arrow_column_bytes(c->children[i]);
    return n;
}
/* ---------------------------------------------------------------------------
 * Building one column
 * ------------------------------------------------------------------------- */

/* Validity from the definition levels: NULL (and *nulls 0) when every slot
 * is defined. Checks that the defined slots match the value count. */
/* Set bits per byte value (no popcount instruction is assumed). */
static const uint8_t popcount8[256] = {
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
    B6(0), B6(1), B6(1), B6(2)
#undef B2
#undef B4
#undef B6
};

static pq_status build_validity(const pq_leaf *leaf, const pq_column_values *v, uint8_t **out,
                                int64_t *nulls, pq_error *err)
{
    size_t n = v->n_levels, defined = n;
    *out = NULL;
    *nulls = 0;
    uint8_t *bits = NULL;
    if (leaf->max_def > 0 && v->def_levels) {
        /* One pass: a bitmap byte per 8 levels, counted as it is built. */
        bits = malloc((n + 7) / 8 + 1);
        if (!bits) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", leaf->path);
        const int16_t *def = v->def_levels;
        int16_t max = leaf->max_def;
        defined = 0;
        size_t full = n / 8;
        for (size_t b = 0; b < full; b++) {
            const int16_t *d = def + 8 * b;
            uint8_t byte = (uint8_t)((d[0] == max) | (d[1] == max) << 1 | (d[2] == max) << 2 |
                                     (d[3] == max) << 3 | (d[4] == max) << 4 | (d[5] == max) << 5 |
                                     (d[6] == max) << 6 | (d[7] == max) << 7);
            bits[b] = byte;
            defined += popcount8[byte];
        }
        uint8_t last = 0;
        for (size_t i = 8 * full; i < n; i++)
            if (def[i] == max) {
                last |= (uint8_t)(1u << (i & 7));
                defined++;
            }
        bits[full] = last;
    }
    if (defined != v->n_values) {
        free(bits);
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "column '%s': %zu defined slots but %zu values", leaf->path, defined,
                            v->n_values);
    }
    if (defined == n) {
        free(bits);
        return PQ_OK;
    }
    *out = bits;
    *nulls = (int64_t)(n - defined);
    return PQ_OK;
}

static inline bool slot_valid(const uint8_t *validity, size_t i)
{
    return !validity || (validity[i >> 3] >> (i & 7)) & 1;
}

static pq_status build_bool(pq_arrow_column *c, const pq_column_values *v, const uint8_t *validity)
{
    size_t n = v->n_levels;
    uint8_t *bits = calloc((n + 7) / 8 + 1, 1);
    if (!bits) return PQ_ERR_NOMEM;
    for (size_t i = 0, j = 0; i < n; i++)
        if (slot_valid(validity, i) && v->values[j++]) bit_set(bits, i);
    return column_own(c, 1, bits, (n + 7) / 8) ? PQ_OK : PQ_ERR_NOMEM;
}

/* An output buffer of `bytes`: a block the pool kept (pages/buffer_pool.h)
 * when one fits, else a fresh one. */
static void *buffer_new(size_t bytes)
{
    return pq_pool_alloc(bytes);
}

/* Strings and binary: int32 offsets over the values' data, which is taken
 * as is (nulls are empty slots, so the data does not change). */
static pq_status build_binary(pq_arrow_column *c, pq_column_values *v, const uint8_t *validity)
{
    size_t n = v->n_levels;
    int32_t *offsets = NULL;
    if (!validity && v->offsets) {
        offsets = v->offsets;
        v->offsets = NULL;
    } else {
        offsets = buffer_new((n + 1) * sizeof *offsets);
        if (!offsets) return PQ_ERR_NOMEM;
        offsets[0] = 0;
        for (size_t i = 0, j = 0; i < n; i++) {
            if (slot_valid(validity, i)) j++;
            offsets[i + 1] = v->offsets ? v->offsets[j] : 0;
        }
    }
    if (!column_own(c, 1, offsets, (n + 1) * sizeof *offsets)) {
        free(offsets);
        return PQ_ERR_NOMEM;
    }
    uint8_t *data = v->data;
    size_t data_len = v->data_len;
    v->data = NULL;
    return column_own(c, 2, data, data_len) ? PQ_OK : PQ_ERR_NOMEM;
}

/* Large strings and binary: the int32 offsets widened to int64 (and
 * spread over the null slots); the data taken as is. */
static pq_status build_large_binary(pq_arrow_column *c, pq_column_values *v, const uint8_t *validity)
{
    size_t n = v->n_levels;
    int64_t *offsets = buffer_new((n + 1) * sizeof *offsets);
    if (!offsets) return PQ_ERR_NOMEM;
    offsets[0] = 0;
    const int32_t *src = v->offsets;
    if (!src) {
        memset(offsets, 0, (n + 1) * sizeof *offsets);
    } else if (!validity) {
        for (size_t i = 0; i < n; i++) offsets[i + 1] = src[i + 1];
    } else {
        for (size_t i = 0, j = 0; i < n; i++) {
            j += slot_valid(validity, i);
            offsets[i + 1] = src[j];
        }
    }
    if (!column_own(c, 1, offsets, (n + 1) * sizeof *offsets)) {
        pq_pool_give(offsets);
        return PQ_ERR_NOMEM;
    }
    uint8_t *data = v->data;
    v->data = NULL;
    return column_own(c, 2, data, v->data_len) ? PQ_OK : PQ_ERR_NOMEM;
}

/* String views: the 16-byte views spread to their slots (a null slot is an
 * empty inline view), then the data buffers and their sizes, taken as is. */
static pq_status build_views(pq_arrow_column *c, pq_column_values *v, const uint8_t *validity)
{
    size_t n = v->n_levels, m = v->n_values;
    uint8_t *views = v->views;
    if (n > SIZE_MAX / 16 - 1) return PQ_ERR_NOMEM;
    if (validity && n > m) {
        uint8_t *q = realloc(views, n * 16);
        if (!q) return PQ_ERR_NOMEM;
        views = q;
    }
    v->views = NULL;
    if (!column_own(c, 1, views, n * 16)) {
        free(views);
        return PQ_ERR_NOMEM;
    }
    if (validity) pq_spread_in_place(views, 16, validity, n, m);
    size_t nb = v->n_view_bufs;
    for (size_t i = 0; i < nb; i++) {
        c->owned[2 + i] = v->view_bufs[i];
        c->buffers[2 + i] = v->view_bufs[i];
        c->view_sizes[i] = (int64_t)v->view_buf_lens[i];
        c->nbytes += v->view_buf_lens[i];
        v->view_bufs[i] = NULL;
    }
    v->n_view_bufs = 0;
    c->buffers[2 + nb] = c->view_sizes;
    c->n_buffers = (int64_t)(3 + nb);
    return PQ_OK;
}

/* Dense conversion loops: n values of width w into n slots of width ow.
 * Each (w, ow) pair the types produce is a loop with constant widths, which
 * the compiler unrolls and vectorizes; the generic helpers take the rest. */
static void conv_ints(uint8_t *dst, size_t ow, const uint8_t *src, size_t w, size_t n, bool is_signed)
{
#define CONV_LOOP(IN, OUT)                                                                         \
    for (size_t i = 0; i < n; i++) {                                                               \
        IN x;                                                                                      \
        memcpy(&x, src + i * sizeof(IN), sizeof x);                                                \
        OUT y = (OUT)x;                                                                            \
        memcpy(dst + i * sizeof(OUT), &y, sizeof y);                                               \
    }                                                                                              \
    return
    if (w == 4 && ow == 1) { if (is_signed) { CONV_LOOP(int32_t, int8_t); } CONV_LOOP(uint32_t, uint8_t); }
    if (w == 4 && ow == 2) { if (is_signed) { CONV_LOOP(int32_t, int16_t); } CONV_LOOP(uint32_t, uint16_t); }
    if (w == 4 && ow == 8) { if (is_signed) { CONV_LOOP(int32_t, int64_t); } CONV_LOOP(uint32_t, uint64_t); }
    if (w == 8 && ow == 4) { CONV_LOOP(uint64_t, uint32_t); }
#undef CONV_LOOP
    for (size_t i = 0; i < n; i++) conv_int(dst + i * ow, ow, src + i * w, w, is_signed);
}

/* Big-endian two's complement values of LEN bytes (a constant at each use)
 * into 16 little-endian bytes each: one 8-byte load whose byte swap holds
 * the value in its top LEN bytes, sign-extended by an arithmetic shift. The
 * load reads 8 - LEN bytes past a short value, so the last values (whose
 * load would leave the buffer) are assembled byte-wise; assembling every
 * value that way stalled on store forwarding, at 6.5 ns a value. */
#define BE_DECIMAL_STORE                                                                           \
    uint8_t *d = dst + i * ow;                                                                     \
    memcpy(d, &lo, 8);                                                                             \
    memcpy(d + 8, &hi, 8);                                                                         \
    if (ow > 16) memset(d + 16, hi < 0 ? 0xff : 0, ow - 16)

#define BE_DECIMAL_SMALL(LEN) /* LEN 1..8 */                                                       \
    {                                                                                              \
        size_t i = 0, fast = n * (LEN) >= 8 ? (n * (LEN) - 8) / (LEN) + 1 : 0;                     \
        for (; i < fast; i++) {                                                                    \
            uint64_t x;                                                                            \
            memcpy(&x, src + i * (LEN), 8);                                                        \
            int64_t lo = (int64_t)__builtin_bswap64(x) >> (64 - 8 * (LEN));                        \
            int64_t hi = lo >> 63;                                                                 \
            BE_DECIMAL_STORE;                                                                      \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            uint64_t x = 0;                                                                        \
            memcpy((uint8_t *)&x + 8 - (LEN), src + i * (LEN), (LEN));                             \
            int64_t lo = (int64_t)(__builtin_bswap64(x) << (64 - 8 * (LEN))) >> (64 - 8 * (LEN));  \
            int64_t hi = lo >> 63;                                                                 \
            BE_DECIMAL_STORE;                                                                      \
        }                                                                                          \
    }                                                                                              \
    return

/* LEN 9..16: the top 8 bytes give the high word (its top LEN - 8 bytes,
 * sign-extended), the last 8 the low word; both loads stay in the value. */
#define BE_DECIMAL_BIG(LEN)                                                                        \
    for (size_t i = 0; i < n; i++) {                                                               \
        const uint8_t *p = src + i * (LEN);                                                        \
        uint64_t h, l;                                                                             \
        memcpy(&h, p, 8);                                                                          \
        memcpy(&l, p + (LEN) - 8, 8);                                                              \
        int64_t lo = (int64_t)__builtin_bswap64(l);                                                \
        int64_t hi = (int64_t)__builtin_bswap64(h) >> (128 - 8 * (LEN));                           \
        BE_DECIMAL_STORE;                                                                          \
    }                                                                                              \
    return

/* Big-endian two's complement values of len bytes (FLBA decimals) into
 * 16- or 32-byte little-endian slots. */
static void conv_be_decimals(uint8_t *dst, size_t ow, const uint8_t *src, size_t len, size_t n)
{
    switch (len) {
    case 1: BE_DECIMAL_SMALL(1); case 2: BE_DECIMAL_SMALL(2); case 3: BE_DECIMAL_SMALL(3);
    case 4: BE_DECIMAL_SMALL(4); case 5: BE_DECIMAL_SMALL(5); case 6: BE_DECIMAL_SMALL(6);
    case 7: BE_DECIMAL_SMALL(7); case 8: BE_DECIMAL_SMALL(8); case 9: BE_DECIMAL_BIG(9);
    case 10: BE_DECIMAL_BIG(10); case 11: BE_DECIMAL_BIG(11); case 12: BE_DECIMAL_BIG(12);
    case 13: BE_DECIMAL_BIG(13); case 14: BE_DECIMAL_BIG(14); case 15: BE_DECIMAL_BIG(15);
    case 16: BE_DECIMAL_BIG(16);
    default:
        for (size_t i = 0; i < n; i++) conv_be_decimal(dst + i * ow, ow, src + i * len, len);
    }
}
#undef BE_DECIMAL_SMALL
#undef BE_DECIMAL_BIG
#undef BE_DECIMAL_STORE

/* The slot of value j: the j-th valid one. */
static size_t slot_of_value(const uint8_t *validity, size_t n, size_t j)
{
    if (!validity) return j;
    for (size_t i = 0; i < n; i++)
        if (slot_valid(validity, i) && j-- == 0) return i;
    return n;
}

/* Which slots a build is checked in (pq_arrow_column_build_at). */
typedef struct slot_check {
    pq_slot_filter wanted;
    const void *user;
} slot_check;

/* The m INT96 values of v into out in `unit`: the first that does not fit
 * in a wanted slot is *bad (and false); one in a slot not wanted is 0. */
static bool int96_values(uint8_t *out, const pq_column_values *v, const uint8_t *validity, size_t m, int unit,
                         const slot_check *check, size_t *bad)
{
    size_t j = pq_int96_convert(out, v->values, m, unit);
    size_t slot = j < m ? slot_of_value(validity, v->n_levels, j) : 0;
    for (; j < m; j++, slot++) { /* the slow path, once a value did not fit: slot is value j's */
        while (validity && slot < v->n_levels && !slot_valid(validity, slot)) slot++;
        int64_t x;
        if (!pq_int96_value(v->values + j * v->width, unit, &x)) {
            if (!check->wanted || check->wanted(check->user, slot)) {
                *bad = j;
                return false;
            }
            x = 0;
        }
        store_le(out + j * 8, 8, (uint64_t)x);
    }
    return true;
}

/* Fixed-width output of ow bytes per slot, converted by `kind`: the values
 * are converted densely (in the decoder's buffer when the width stays the
 * same), then spread out to their slots when there are nulls. An INT96
 * value outside the range of `unit` in a slot `check` wants fails the
 * build: PQ_ERR_UNSUPPORTED with *bad its index among the values
 * (SIZE_MAX otherwise). */
static pq_status build_fixed(pq_arrow_column *c, pq_column_values *v, const uint8_t *validity,
                             size_t ow, conv_kind kind, bool is_signed, int unit, const slot_check *check,
                             size_t *bad)
{
    size_t n = v->n_levels, w = v->width, m = v->n_values;
    if (n > SIZE_MAX / (ow ? ow : 1) - 1) return PQ_ERR_NOMEM;
    uint8_t *out;
    if (kind == CONV_COPY && w == ow && v->values) {
        out = v->values; /* already laid out: take it */
        v->values = NULL;
        if (validity && n > m) {
            uint8_t *q = realloc(out, n * ow);
            if (!q) {
                free(out);
                return PQ_ERR_NOMEM;
            }
            out = q;
        }
    } else {
        out = buffer_new(n * ow);
        if (!out) return PQ_ERR_NOMEM;
        switch (kind) {
        case CONV_COPY:
            if (m) memcpy(out, v->values, m * ow);
            break;
        case CONV_INT: conv_ints(out, ow, v->values, w, m, is_signed); break;
        case CONV_INT96:
            if (!int96_values(out, v, validity, m, unit, check, bad)) {
                pq_pool_give(out);
                return PQ_ERR_UNSUPPORTED;
            }
            break;
        case CONV_DECIMAL:
            if (v->offsets) { /* BYTE_ARRAY decimals */
                for (size_t j = 0; j < m; j++) {
                    size_t len = (size_t)(v->offsets[j + 1] - v->offsets[j]);
                    if (len) conv_be_decimal(out + j * ow, ow, v->data + v->offsets[j], len);
                    else memset(out + j * ow, 0, ow);
                }
            } else if (v->physical_type == PQ_FIXED_LEN_BYTE_ARRAY && ow == 8) { /* decimal64 */
                for (size_t j = 0; j < m; j++) conv_be_decimal(out + j * 8, 8, v->values + j * w, w);
            } else if (v->physical_type == PQ_FIXED_LEN_BYTE_ARRAY) {
                conv_be_decimals(out, ow, v->values, w, m);
            } else {
                pq_ints_sign_extend(out, ow, v->values, w, m);
            }
            break;
        }
    }
    if (validity) pq_spread_in_place(out, ow, validity, n, m);
    return column_own(c, 1, out, n * ow) ? PQ_OK : (free(out), PQ_ERR_NOMEM);
}

/* The output width and conversion for the leaf, or 0 when unsupported. */
static size_t fixed_plan(const pq_leaf *leaf, const pq_column_values *v, conv_kind *kind,
                         bool *is_signed)
{
    int32_t pt = leaf->physical_type;
    bool int32 = pt == PQ_INT32 && v->width == 4, int64 = pt == PQ_INT64 && v->width == 8;
    *kind = CONV_COPY;
    *is_signed = true;
    switch (leaf->arrow.id) {
    case PQ_ARROW_UINT8: case PQ_ARROW_UINT16: case PQ_ARROW_UINT32: case PQ_ARROW_UINT64:
        *is_signed = false;
        /* fall through */
    case PQ_ARROW_INT8: case PQ_ARROW_INT16: case PQ_ARROW_INT32: case PQ_ARROW_INT64: {
        static const size_t width[] = {
            [PQ_ARROW_INT8] = 1, [PQ_ARROW_INT16] = 2, [PQ_ARROW_INT32] = 4, [PQ_ARROW_INT64] = 8,
            [PQ_ARROW_UINT8] = 1, [PQ_ARROW_UINT16] = 2, [PQ_ARROW_UINT32] = 4, [PQ_ARROW_UINT64] = 8};
        if (!int32 && !int64) return 0;
        /* Same width: the bits are the value, signed or not. */
        *kind = width[leaf->arrow.id] == v->width ? CONV_COPY : CONV_INT;
        return width[leaf->arrow.id];
    }
    case PQ_ARROW_DATE32: return int32 ? 4 : 0;
    case PQ_ARROW_TIME32: return int32 ? 4 : 0;
    case PQ_ARROW_TIME64: return int64 ? 8 : 0;
    case PQ_ARROW_DURATION: return int64 ? 8 : 0;
    case PQ_ARROW_TIMESTAMP:
        if (pt == PQ_INT96 && v->width == 12) {
            *kind = CONV_INT96;
            return 8;
        }
        return int64 ? 8 : 0;
    case PQ_ARROW_FLOAT32: return pt == PQ_FLOAT && v->width == 4 ? 4 : 0;
    case PQ_ARROW_FLOAT64: return pt == PQ_DOUBLE && v->width == 8 ? 8 : 0;
    case PQ_ARROW_FLOAT16: return pt == PQ_FIXED_LEN_BYTE_ARRAY && v->width == 2 ? 2 : 0;
    case PQ_ARROW_FIXED_SIZE_BINARY:
    case PQ_ARROW_EXTENSION_UUID:
        return pt == PQ_FIXED_LEN_BYTE_ARRAY && leaf->arrow.byte_width > 0 &&
                       v->width == (size_t)leaf->arrow.byte_width ? v->width : 0;
    case PQ_ARROW_DECIMAL64:
        if (int64) return 8; /* the stored value is the unscaled value: copied, or taken as is */
        if (int32) {
            *kind = CONV_INT;
            return 8;
        }
        /* (FIXED_LEN_)BYTE_ARRAY decimals, sign-extended to 8 bytes: */
        /* fall through */
    case PQ_ARROW_DECIMAL128:
    case PQ_ARROW_DECIMAL256:
        if (v->decimal128) /* widened by the decoder: laid out already */
            return leaf->arrow.id == PQ_ARROW_DECIMAL128 && v->width == 16 ? 16 : 0;
        if (!int32 && !int64 && !(pt == PQ_FIXED_LEN_BYTE_ARRAY && v->width > 0) &&
            !(pt == PQ_BYTE_ARRAY && (v->offsets || v->n_values == 0)))
            return 0;
        *kind = CONV_DECIMAL;
        return leaf->arrow.id == PQ_ARROW_DECIMAL64 ? 8 : leaf->arrow.id == PQ_ARROW_DECIMAL128 ? 16 : 32;
    default: return 0;
    }
}

pq_status pq_arrow_column_build_at(const pq_leaf *leaf, pq_column_values *v, pq_slot_filter wanted, const void *user,
                                   size_t *bad_slot, pq_arrow_column **out, pq_error *err)
{
    *out = NULL;
    *bad_slot = SIZE_MAX;
    if (v->n_levels > INT64_MAX / 2)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': too many values", leaf->path);
    pq_arrow_column *c = column_new((int64_t)v->n_levels);
    if (!c) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", leaf->path);

    if (leaf->arrow.id == PQ_ARROW_NA) { /* no buffers; every slot null */
        c->null_count = c->length;
        *out = c;
        return PQ_OK;
    }
    uint8_t *validity = NULL;
    pq_status st = build_validity(leaf, v, &validity, &c->null_count, err);
    if (st != PQ_OK) {
        pq_arrow_column_release(c);
        return st;
    }
    c->owned[0] = validity;
    c->buffers[0] = validity;
    c->nbytes = validity ? (v->n_levels + 7) / 8 : 0;
    c->n_buffers = 2;

    conv_kind kind;
    bool is_signed;
    size_t ow;
    switch (leaf->arrow.id) {
    case PQ_ARROW_BOOL:
        c->layout = LAYOUT_BOOL;
        st = leaf->physical_type == PQ_BOOLEAN ? build_bool(c, v, validity) : PQ_ERR_UNSUPPORTED;
        break;
    case PQ_ARROW_STRING:
    case PQ_ARROW_BINARY:
    case PQ_ARROW_EXTENSION_JSON:
        if (v->views) {
            c->layout = LAYOUT_VIEW;
            c->width = 16;
            st = leaf->arrow.id != PQ_ARROW_EXTENSION_JSON ? build_views(c, v, validity) : PQ_ERR_UNSUPPORTED;
            break;
        }
        c->n_buffers = 3;
        c->layout = LAYOUT_BINARY;
        st = leaf->physical_type == PQ_BYTE_ARRAY ? build_binary(c, v, validity) : PQ_ERR_UNSUPPORTED;
        break;
    case PQ_ARROW_LARGE_STRING:
    case PQ_ARROW_LARGE_BINARY:
        c->n_buffers = 3;
        c->layout = LAYOUT_LARGE_BINARY;
        st = leaf->physical_type == PQ_BYTE_ARRAY ? build_large_binary(c, v, validity) : PQ_ERR_UNSUPPORTED;
        break;
    default:
        ow = fixed_plan(leaf, v, &kind, &is_signed);
        c->layout = LAYOUT_FIXED;
        c->width = (uint32_t)ow;
        size_t bad = SIZE_MAX;
        slot_check check = {wanted, user};
        st = ow ? build_fixed(c, v, validity, ow, kind, is_signed, leaf->arrow.unit, &check, &bad)
                : PQ_ERR_UNSUPPORTED;
        if (bad != SIZE_MAX) { /* a value the unit cannot hold */
            *bad_slot = slot_of_value(validity, v->n_levels, bad); /* before the bitmap goes with c */
            pq_arrow_column_release(c);
            char what[PQ_ERROR_MESSAGE_SIZE];
            pq_int96_range_message(what, sizeof what, v->values + bad * v->width, leaf->arrow.unit);
            return pq_error_set(err, PQ_ERR_UNSUPPORTED, "%s", what);
        }
        break;
    }
    if (st != PQ_OK) {
        pq_arrow_column_release(c);
        if (st == PQ_ERR_UNSUPPORTED) {
            char at[64];
            pq_arrow_type_format(&leaf->arrow, at, sizeof at);
            return pq_error_set(err, st, "column '%s': decoding %s to %s is not supported",
                                leaf->path, pq_physical_type_name(leaf->physical_type), at);
        }
        return pq_error_set(err, st, "out of memory for column '%s'", leaf->path);
    }
    *out = c;
    return PQ_OK;
}

pq_status pq_arrow_column_build(const pq_leaf *leaf, pq_column_values *v, pq_arrow_column **out,
                                pq_error *err)
{
    size_t bad;
    pq_status st = pq_arrow_column_build_at(leaf, v, NULL, NULL, &bad, out, err);
    if (st != PQ_OK && bad != SIZE_MAX && err) {
        char what[PQ_ERROR_MESSAGE_SIZE];
        memcpy(what, err->message, sizeof what);
        pq_error_set(err, st, "column '%s' value %zu: %s", leaf->path, bad, what);
    }
    return st;
}

pq_status pq_arrow_column_build_dictionary(const pq_leaf *leaf, pq_column_values *v, pq_arrow_column **out,
                                           pq_error *err)
{
    *out = NULL;
    pq_leaf il = *leaf; /* the indices */
    il.physical_type = PQ_INT32;
    il.arrow = (pq_arrow_type){.id = PQ_ARROW_INT32};
    pq_leaf dl = *leaf; /* the entries: no levels of their own */
    dl.max_def = dl.max_rep = 0;
    pq_arrow_column *ic = NULL, *dc = NULL;
    pq_status st;
    if (v->dictionary) { /* indices decoded: the chunk's dictionary is the array's */
        pq_column_values *d = v->dictionary;
        v->dictionary = NULL;
        st = d->n_values > INT32_MAX ? pq_error_set(err, PQ_ERR_UNSUPPORTED, "column '%s': %zu dictionary entries "
                                                    "exceed int32 indices", leaf->path, d->n_values)
                                     : pq_arrow_column_build(&dl, d, &dc, err);
        pq_column_values_free(d);
        free(d);
        v->physical_type = PQ_INT32;
        v->width = 4;
        if (st == PQ_OK) st = pq_arrow_column_build(&il, v, &ic, err);
    } else { /* values decoded (pages not all dictionary-encoded): an entry per slot */
        st = v->n_levels > INT32_MAX ? pq_error_set(err, PQ_ERR_UNSUPPORTED, "column '%s': %zu values exceed int32 "
                                                    "dictionary indices", leaf->path, v->n_levels)
                                     : pq_arrow_column_build(leaf, v, &dc, err);
        if (st == PQ_OK && !(ic = column_new(dc->length))) st = PQ_ERR_NOMEM;
        int32_t *idx = st == PQ_OK ? buffer_new((size_t)dc->length * 4 + 4) : NULL;
        if (st == PQ_OK && (!idx || !column_own(ic, 1, idx, (size_t)dc->length * 4))) {
            pq_pool_give(idx);
            st = PQ_ERR_NOMEM;
        }
        if (st == PQ_OK) {
            for (int64_t i = 0; i < dc->length; i++) idx[i] = (int32_t)i;
            /* The slots' validity moves to the indices; a null's entry is empty. */
            ic->owned[0] = dc->owned[0];
            ic->buffers[0] = dc->buffers[0];
            ic->null_count = dc->null_count;
            ic->nbytes += dc->owned[0] ? (uint64_t)(dc->length + 7) / 8 : 0;
            dc->nbytes -= dc->owned[0] ? (uint64_t)(dc->length + 7) / 8 : 0;
            dc->owned[0] = NULL;
            dc->buffers[0] = NULL;
            dc->null_count = 0;
            ic->n_buffers = 2;
            ic->layout = LAYOUT_FIXED;
            ic->width = 4;
        } else if (st == PQ_ERR_NOMEM) {
            st = pq_error_set(err, st, "out of memory for column '%s'", leaf->path);
        }
    }
    if (st != PQ_OK) {
        pq_arrow_column_release(ic);
        pq_arrow_column_release(dc);
        return st;
    }
    ic->dictionary = dc;
    *out = ic;
    return PQ_OK;
}
