/*
 * arrow_batch.c — Arrow buffers for decoded flat columns, and their export
 * as a record batch (a struct array) per the Arrow C Data Interface.
 *
 * Nested fields (struct, list, map) are assembled from their leaves'
 * levels (kernels/assemble.h) into a tree of such columns, top-down.
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

#include "kernels/assemble.h"
#include "kernels/bitcount.h"
#include "kernels/plain.h"
#include "kernels/primitives.h"
#include "pages/buffer_pool.h"
#include "metadata/error.h"
#include "reader/arrow_batch.h"

/* Arrow buffers are in the host's byte order; the conversions below write
 * little-endian values and load them with memcpy. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pqstep's Arrow output assumes a little-endian host"
#endif

/* Julian day of 1970-01-01 and nanoseconds per day, for INT96 timestamps. */
#define JULIAN_EPOCH_DAY 2440588
#define NANOS_PER_DAY 86400000000000ull

#define PQ_COLUMN_MAX_BUFFERS 5

struct pq_arrow_column {
    atomic_int refs;
    int64_t length;
    int64_t null_count;
    int64_t n_buffers;
    /* What ArrowArray.buffers points at: at most 5 (a string view array:
     * validity, views, its own data, the dictionary's, the data sizes). */
    const void *buffers[PQ_COLUMN_MAX_BUFFERS];
    void *owned[PQ_COLUMN_MAX_BUFFERS]; /* what to free */
    int64_t view_sizes[2];  /* LAYOUT_VIEW: the variadic buffers' sizes (the last buffer) */
    pq_arrow_column *base;  /* LAYOUT_VIEW taken from another: holds its data buffers */
    uint64_t nbytes;        /* bytes of this node's buffers (the children's not counted) */
    uint8_t layout;         /* column_layout: how the buffers are laid out */
    uint32_t width;         /* LAYOUT_FIXED: bytes per slot */
    /* A dictionary array (indices as LAYOUT_FIXED, width 4): one
     * reference to its dictionary, which takes share. */
    pq_arrow_column *dictionary;
    /* Nested arrays (struct, list, map): one reference to each child. */
    size_t n_children;
    pq_arrow_column **children;
    /* An adopted array (pq_arrow_column_adopt), e.g. in device memory:
     * held by a node of its own (no buffers, no children) that releases it
     * with its last reference; every node of the tree over it has its
     * node's buffers and holds that holder as `base` (not the root: a
     * child holding its parent would be a cycle). Such a column is only
     * exported, never read here. */
    struct ArrowArray adopted;
    bool foreign;
};

/* The Arrow layouts a column can have (for taking rows out of it). */
typedef enum column_layout {
    LAYOUT_NULL = 0,  /* no buffers */
    LAYOUT_BOOL,      /* validity, bits */
    LAYOUT_FIXED,     /* validity, width bytes per slot */
    LAYOUT_BINARY,    /* validity, int32 offsets, data */
    LAYOUT_LARGE_BINARY, /* validity, int64 offsets, data */
    LAYOUT_VIEW,      /* validity, 16-byte views, 1 or 2 data buffers, their int64 sizes */
    LAYOUT_STRUCT,    /* validity, children */
    LAYOUT_LIST       /* validity, int32 offsets, one child (lists and maps) */
} column_layout;

/* What one value slot of the output is made from. */
typedef enum conv_kind {
    CONV_COPY,     /* the same bytes (width ow) */
    CONV_INT,      /* integer narrowed or extended from a 4/8-byte integer */
    CONV_INT96,    /* INT96 -> int64 nanoseconds */
    CONV_DECIMAL   /* two's complement, sign-extended to ow bytes LE */
} conv_kind;

/* ---------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------- */

static inline void bit_set(uint8_t *bits, size_t i)
{
    bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

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

static inline int64_t int96_nanos(const uint8_t *p)
{
    uint64_t nanos = (uint64_t)load_le(p, 8, false);
    int64_t day = load_le(p + 8, 4, false); /* unsigned, as pyarrow reads it */
    /* Unsigned arithmetic wraps as pyarrow's int64 does. */
    return (int64_t)(nanos + (uint64_t)(day - JULIAN_EPOCH_DAY) * NANOS_PER_DAY);
}

static pq_arrow_column *column_new(int64_t length)
{
    pq_arrow_column *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    atomic_init(&c->refs, 1);
    c->length = length;
    return c;
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

uint64_t pq_arrow_column_bytes(const pq_arrow_column *c)
{
    if (!c) return 0;
    uint64_t n = c->nbytes + pq_arrow_column_bytes(c->dictionary);
    for (size_t i = 0; i < c->n_children; i++) n += pq_arrow_column_bytes(c->children[i]);
    return n;
}

/* Give buffer slot i the memory p (owned), or a 1-byte block when p is
 * NULL: Arrow wants value buffers present even when empty. */
static bool column_own(pq_arrow_column *c, int i, void *p, size_t size)
{
    if (!p) p = calloc(1, 8);
    if (!p) return false;
    c->owned[i] = p;
    c->buffers[i] = p;
    c->nbytes += size;
    return true;
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

static void spread_in_place(uint8_t *buf, size_t ow, const uint8_t *validity, size_t n, size_t n_values);

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
    if (validity) spread_in_place(views, 16, validity, n, m);
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

/* Spread n_values dense slots of width ow, at the start of buf, out to the
 * n slots the validity bitmap gives them, in place: walking backwards, a
 * value only ever moves to a later slot, so nothing is overwritten before
 * it is moved. Null slots are zeroed. Whole bytes of the bitmap (8 slots)
 * that are all valid or all null move or clear as one block. */
static void spread_in_place(uint8_t *buf, size_t ow, const uint8_t *validity, size_t n, size_t n_values)
{
    size_t j = n_values;
    size_t i = n;
    while (i > 0) {
        size_t start = (i - 1) & ~(size_t)7; /* first slot of this bitmap byte */
        uint8_t bits = validity[start >> 3];
        size_t count = i - start;
        if (count == 8 && bits == 0xff) {
            j -= 8;
            if (j != start) memmove(buf + start * ow, buf + j * ow, 8 * ow);
        } else if (count == 8 && bits == 0) {
            memset(buf + start * ow, 0, 8 * ow);
        } else {
            for (size_t k = i; k-- > start;) {
                uint8_t *dst = buf + k * ow;
                if ((bits >> (k & 7)) & 1) {
                    j--;
                    if (j != k) memmove(dst, buf + j * ow, ow);
                } else {
                    memset(dst, 0, ow);
                }
            }
        }
        i = start;
    }
}

/* Fixed-width output of ow bytes per slot, converted by `kind`: the values
 * are converted densely (in the decoder's buffer when the width stays the
 * same), then spread out to their slots when there are nulls. */
static pq_status build_fixed(pq_arrow_column *c, pq_column_values *v, const uint8_t *validity,
                             size_t ow, conv_kind kind, bool is_signed)
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
            for (size_t j = 0; j < m; j++) store_le(out + j * 8, 8, (uint64_t)int96_nanos(v->values + j * w));
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
    if (validity) spread_in_place(out, ow, validity, n, m);
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

pq_status pq_arrow_column_build(const pq_leaf *leaf, pq_column_values *v, pq_arrow_column **out,
                                pq_error *err)
{
    *out = NULL;
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
        st = ow ? build_fixed(c, v, validity, ow, kind, is_signed) : PQ_ERR_UNSUPPORTED;
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

/* ---------------------------------------------------------------------------
 * Export
 * ------------------------------------------------------------------------- */

/* An exported array: its column reference and, in one block, its
 * children and the pointers to them. */
static void release_node(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    for (int64_t i = 0; i < a->n_children; i++)
        if (a->children[i]->release) a->children[i]->release(a->children[i]);
    if (a->dictionary) {
        if (a->dictionary->release) a->dictionary->release(a->dictionary);
        free(a->dictionary);
    }
    pq_arrow_column *c = a->private_data;
    if (c) pq_arrow_column_release(c);
    free(a->children ? (void *)a->children[0] : NULL);
    a->private_data = NULL;
    a->release = NULL;
}

/* Export column c (and its children) into *out, taking a reference. The
 * block with the children structs is freed by the node's release; children
 * moved out keep working since each holds its own reference. */
static bool export_node(pq_arrow_column *c, struct ArrowArray *out)
{
    memset(out, 0, sizeof *out);
    size_t n = c->n_children;
    char *block = NULL;
    if (n) {
        block = calloc(1, n * (sizeof(struct ArrowArray) + sizeof(struct ArrowArray *)));
        if (!block) return false;
    }
    struct ArrowArray *kids = (struct ArrowArray *)block;
    struct ArrowArray **ptrs = n ? (struct ArrowArray **)(kids + n) : NULL;
    for (size_t i = 0; i < n; i++) {
        ptrs[i] = &kids[i];
        if (!export_node(c->children[i], &kids[i])) {
            for (size_t k = 0; k < i; k++) kids[k].release(&kids[k]);
            free(block);
            return false;
        }
    }
    struct ArrowArray *dict = NULL;
    if (c->dictionary && (!(dict = malloc(sizeof *dict)) || !export_node(c->dictionary, dict))) {
        free(dict);
        for (size_t k = 0; k < n; k++) kids[k].release(&kids[k]);
        free(block);
        return false;
    }
    out->dictionary = dict;
    atomic_fetch_add(&c->refs, 1);
    out->length = c->length;
    out->null_count = c->null_count;
    out->n_buffers = c->n_buffers;
    out->buffers = c->n_buffers ? c->buffers : NULL;
    out->n_children = (int64_t)n;
    out->children = ptrs;
    out->private_data = c;
    out->release = release_node;
    return true;
}

static void release_batch(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    for (int64_t i = 0; i < a->n_children; i++)
        if (a->children[i]->release) a->children[i]->release(a->children[i]);
    free(a->private_data);
    a->private_data = NULL;
    a->release = NULL;
}

pq_status pq_arrow_batch_export(pq_arrow_column *const *cols, const int64_t *offsets, size_t n,
                                int64_t length, struct ArrowArray *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        int64_t off = offsets ? offsets[i] : 0;
        if (length < 0 || off < 0 || off > cols[i]->length || length > cols[i]->length - off)
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                "rows [%lld, +%lld) of a %lld-row column are out of range",
                                (long long)off, (long long)length, (long long)cols[i]->length);
    }
    /* One block: the children, the pointers to them, the parent's buffer list. */
    size_t size = n * (sizeof(struct ArrowArray) + sizeof(struct ArrowArray *)) + sizeof(void *);
    char *block = calloc(1, size);
    if (!block) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting a record batch");
    struct ArrowArray *kids = (struct ArrowArray *)block;
    struct ArrowArray **ptrs = (struct ArrowArray **)(kids + n);
    const void **parent_buffers = (const void **)(ptrs + n);
    for (size_t i = 0; i < n; i++) {
        ptrs[i] = &kids[i];
        if (!export_node(cols[i], &kids[i])) {
            for (size_t k = 0; k < i; k++) kids[k].release(&kids[k]);
            free(block);
            return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting a record batch");
        }
        /* A slice: same buffers, an Arrow offset, and a null count the
         * consumer computes (-1) unless the column has none. */
        int64_t off = offsets ? offsets[i] : 0;
        if (off != 0 || length != cols[i]->length) {
            kids[i].offset = off;
            kids[i].length = length;
            if (kids[i].null_count != 0) kids[i].null_count = -1;
        }
    }
    parent_buffers[0] = NULL; /* a struct's validity: none, no nulls */
    out->length = length;
    out->null_count = 0;
    out->n_buffers = 1;
    out->buffers = parent_buffers;
    out->n_children = (int64_t)n;
    out->children = n ? ptrs : NULL;
    out->private_data = block;
    out->release = release_batch;
    return PQ_OK;
}

static void release_batch_schema(struct ArrowSchema *s)
{
    if (!s || !s->release) return;
    for (int64_t i = 0; i < s->n_children; i++)
        if (s->children[i]->release) s->children[i]->release(s->children[i]);
    free(s->private_data);
    s->private_data = NULL;
    s->release = NULL;
}

/* Leaf i's field of a one-column export, moved out of the structs above it
 * (a leaf under structs exports as its top-level field). */
static pq_status leaf_field_schema(const pq_metadata *md, uint32_t column, bool descend, struct ArrowSchema *out,
                                   pq_error *err)
{
    struct ArrowSchema one;
    pq_status st = pq_metadata_arrow_schema(md, &column, 1, &one, err);
    if (st == PQ_OK && one.n_children != 1) {
        one.release(&one);
        st = pq_error_set(err, PQ_ERR_SCHEMA, "column %u does not export as one field", column);
    }
    if (st != PQ_OK) return st;
    *out = *one.children[0];
    one.children[0]->release = NULL;
    one.release(&one);
    if (!descend) return PQ_OK;
    /* Down the structs to the leaf: at each level, the child the leaf's
     * path goes through (the export keeps the schema's child order). */
    const pq_schema *schema = pq_metadata_schema(md);
    int32_t chain[64];
    int depth = 0;
    for (int32_t j = schema->leaves[column].node; j > 0 && depth < 64; j = schema->nodes[j].parent)
        chain[depth++] = j;
    for (int d = depth - 2; d >= 0 && strcmp(out->format, "+s") == 0; d--) {
        const pq_schema_node *parent = &schema->nodes[chain[d + 1]];
        int64_t k = 0;
        while (k < parent->num_children && parent->children[k] != chain[d]) k++;
        if (k >= out->n_children) break;
        struct ArrowSchema up = *out;
        *out = *up.children[k];
        up.children[k]->release = NULL;
        up.release(&up);
    }
    return PQ_OK;
}

/* A "+s" schema of n fields, each from leaf_field_schema. */
static pq_status fields_schema(const pq_metadata *md, const uint32_t *columns, size_t n, bool descend,
                               struct ArrowSchema *out, pq_error *err);

pq_status pq_arrow_leaf_schema(const pq_metadata *md, const uint32_t *columns, size_t n, struct ArrowSchema *out,
                               pq_error *err)
{
    return fields_schema(md, columns, n, true, out, err);
}

pq_status pq_arrow_batch_schema(const pq_metadata *md, const uint32_t *columns, size_t n,
                                struct ArrowSchema *out, pq_error *err)
{
    return fields_schema(md, columns, n, false, out, err);
}

/* Flat leaves in file order, each once: the whole projection exports in one
 * call with the fields in that order (one walk of the schema, where a call
 * per column walks it n times). */
static bool flat_ascending(const pq_metadata *md, const uint32_t *columns, size_t n)
{
    const pq_schema *schema = pq_metadata_schema(md);
    for (size_t i = 0; i < n; i++) {
        if (i && columns[i] <= columns[i - 1]) return false;
        if (columns[i] >= schema->leaves_len) return false;
        const pq_leaf *leaf = &schema->leaves[columns[i]];
        if (leaf->max_rep != 0 || leaf->node <= 0 || schema->nodes[leaf->node].parent != 0) return false;
    }
    return true;
}

static pq_status fields_schema(const pq_metadata *md, const uint32_t *columns, size_t n, bool descend,
                               struct ArrowSchema *out, pq_error *err)
{
    if (n > 1 && flat_ascending(md, columns, n)) {
        pq_status st = pq_metadata_arrow_schema(md, columns, n, out, err);
        if (st != PQ_OK) return st;
        if (out->n_children == (int64_t)n) return PQ_OK;
        out->release(out); /* not one field per column: build it field by field */
    }
    memset(out, 0, sizeof *out);
    size_t size = n * (sizeof(struct ArrowSchema) + sizeof(struct ArrowSchema *)) + 1;
    char *block = calloc(1, size);
    if (!block) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting a schema");
    struct ArrowSchema *kids = (struct ArrowSchema *)block;
    struct ArrowSchema **ptrs = (struct ArrowSchema **)(kids + n);
    char *empty = (char *)(ptrs + n); /* "" for the format's name */
    out->format = "+s";
    out->name = empty;
    out->n_children = 0;
    out->children = n ? ptrs : NULL;
    out->private_data = block;
    out->release = release_batch_schema;
    /* Each field is exported alone and moved out of its wrapper (a move the
     * spec allows), so the order and repeats follow `columns`. */
    for (size_t i = 0; i < n; i++) {
        pq_status st = leaf_field_schema(md, columns[i], descend, &kids[i], err);
        if (st != PQ_OK) {
            release_batch_schema(out);
            return st;
        }
        ptrs[i] = &kids[i];
        out->n_children = (int64_t)i + 1;
    }
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Nested columns: one top-level field from the levels of its leaves
 * ------------------------------------------------------------------------- */

/* One leaf under assembly: its Arrow levels (outermost first), the schema
 * node each level stands for (node * 2, + 1 for the list level of a bare
 * repeated node) and the assembled validity / offsets of every level. */
typedef struct nest_leaf {
    const pq_leaf *leaf;
    pq_column_values *v;
    size_t n_levels;
    pq_asm_level levels[PQ_ASM_MAX_LEVELS];
    int64_t keys[PQ_ASM_MAX_LEVELS];
    pq_asm_out out[PQ_ASM_MAX_LEVELS];
} nest_leaf;

static void nest_leaf_free(nest_leaf *l)
{
    for (size_t k = 0; k < l->n_levels; k++) {
        free(l->out[k].validity);
        free(l->out[k].offsets);
    }
}

static int32_t node_repetition(const pq_schema_node *n)
{
    return n->element ? n->element->repetition : PQ_REQUIRED;
}

/* The repeated child of a LIST group that is only structure (schema.c). */
static bool node_structural(const pq_schema *s, const pq_schema_node *c)
{
    if (c->arrow.id != PQ_ARROW_LIST || c->num_children != 1) return false;
    int32_t k = c->children[0];
    return k > 0 && (uint32_t)k < s->nodes_len && node_repetition(&s->nodes[k]) != PQ_REPEATED;
}

/* Levels and keys of the path from top-level field node `field` to l->leaf. */
static pq_status nest_levels(const pq_schema *s, int32_t field, nest_leaf *l, pq_error *err)
{
    int32_t path[PQ_ASM_MAX_LEVELS / 2];
    pq_asm_node nodes[PQ_ASM_MAX_LEVELS / 2];
    size_t np = 0;
    for (int32_t j = l->leaf->node; ; j = s->nodes[j].parent) {
        if (j <= 0 || (uint32_t)j >= s->nodes_len || np == PQ_ASM_MAX_LEVELS / 2)
            return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': bad schema path", l->leaf->path);
        path[np++] = j;
        if (j == field) break;
    }
    for (size_t a = 0, b = np - 1; a < b; a++, b--) {
        int32_t t = path[a];
        path[a] = path[b];
        path[b] = t;
    }
    size_t nk = 0;
    for (size_t j = 0; j < np; j++) {
        const pq_schema_node *n = &s->nodes[path[j]];
        int32_t rep = node_repetition(n);
        bool under_list = j > 0 && nodes[j - 1].kind == PQ_ASM_LIST;
        nodes[j].repetition = rep;
        if (n->leaf_index >= 0) nodes[j].kind = PQ_ASM_LEAF;
        else if (rep == PQ_REPEATED && under_list && node_structural(s, n)) nodes[j].kind = PQ_ASM_WRAPPER;
        else if ((rep != PQ_REPEATED || under_list) &&
                 (n->arrow.id == PQ_ARROW_LIST || n->arrow.id == PQ_ARROW_MAP))
            nodes[j].kind = PQ_ASM_LIST; /* under a list: a legacy element that is a list */
        else nodes[j].kind = PQ_ASM_STRUCT;
        if (nodes[j].kind == PQ_ASM_WRAPPER) continue;
        if (rep == PQ_REPEATED && !under_list) l->keys[nk++] = (int64_t)path[j] * 2 + 1;
        l->keys[nk++] = (int64_t)path[j] * 2;
    }
    pq_status st = pq_asm_levels_from_path(nodes, np, l->levels, PQ_ASM_MAX_LEVELS, &l->n_levels, err);
    if (st != PQ_OK) return st;
    if (l->n_levels != nk)
        return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': %zu levels, expected %zu", l->leaf->path,
                            l->n_levels, nk);
    return PQ_OK;
}

/* Assemble the leaf's levels into every level's validity and offsets. */
static pq_status nest_assemble(nest_leaf *l, int64_t num_rows, pq_error *err)
{
    size_t n = l->v->n_levels;
    for (size_t k = 0; k < l->n_levels; k++) {
        l->out[k].cap = n;
        l->out[k].validity = calloc((n + 7) / 8 + 1, 1);
        if (l->levels[k].kind == PQ_ASM_LIST) l->out[k].offsets = malloc((n + 1) * sizeof(int32_t));
        if (!l->out[k].validity || (l->levels[k].kind == PQ_ASM_LIST && !l->out[k].offsets))
            return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", l->leaf->path);
    }
    pq_asm_result res;
    pq_status st = pq_assemble(l->levels, l->n_levels, l->v->def_levels, l->v->rep_levels, n, SIZE_MAX,
                               l->out, &res, err);
    if (st != PQ_OK) return st;
    if (res.levels_used != n || res.values != l->v->n_values || num_rows < 0 ||
        res.records != (uint64_t)num_rows)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "column '%s': %zu records and %zu values assembled, expected %lld and %zu",
                            l->leaf->path, res.records, res.values, (long long)num_rows,
                            l->v->n_values);
    return PQ_OK;
}

static inline bool bit_get(const uint8_t *bits, size_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

/* The leaf's values scattered into its slots, by the flat code. */
static pq_status nest_leaf_array(nest_leaf *l, size_t k, pq_arrow_column **out, pq_error *err)
{
    size_t count = l->out[k].count;
    int16_t *def = malloc((count ? count : 1) * sizeof *def);
    if (!def) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", l->leaf->path);
    for (size_t i = 0; i < count; i++) def[i] = bit_get(l->out[k].validity, i) ? l->leaf->max_def : 0;
    pq_column_values t = *l->v;
    t.n_levels = count;
    t.def_levels = def;
    t.rep_levels = NULL;
    pq_status st = pq_arrow_column_build(l->leaf, &t, out, err);
    l->v->values = t.values; /* what the build took is gone from v too */
    l->v->offsets = t.offsets;
    l->v->data = t.data;
    free(def);
    return st;
}

static pq_status nest_build(nest_leaf **ls, size_t nl, size_t k, pq_arrow_column **out, pq_error *err)
{
    *out = NULL;
    nest_leaf *f = ls[0];
    const pq_asm_level *lv = &f->levels[k];
    size_t count = f->out[k].count;
    for (size_t i = 0; i < nl; i++) {
        const pq_asm_out *o = &ls[i]->out[k];
        bool same = ls[i]->n_levels > k && ls[i]->keys[k] == f->keys[k] &&
                    ls[i]->levels[k].kind == lv->kind && o->count == count;
        for (size_t s = 0; same && s < count; s++)
            same = bit_get(o->validity, s) == bit_get(f->out[k].validity, s);
        if (same && lv->kind == PQ_ASM_LIST)
            same = memcmp(o->offsets, f->out[k].offsets, (count + 1) * sizeof(int32_t)) == 0;
        if (!same)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "columns '%s' and '%s' disagree on their nesting",
                                f->leaf->path, ls[i]->leaf->path);
    }
    if (lv->kind == PQ_ASM_LEAF) {
        if (nl != 1 || k + 1 != f->n_levels)
            return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': bad leaf level", f->leaf->path);
        return nest_leaf_array(f, k, out, err);
    }
    for (size_t i = 0; i < nl; i++)
        if (ls[i]->n_levels <= k + 1)
            return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': bad nesting", ls[i]->leaf->path);

    pq_arrow_column *c = column_new((int64_t)count);
    if (!c) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", f->leaf->path);
    c->null_count = (int64_t)f->out[k].nulls;
    if (f->out[k].nulls) {
        c->owned[0] = f->out[k].validity;
        c->buffers[0] = f->out[k].validity;
        c->nbytes += (count + 7) / 8;
        f->out[k].validity = NULL;
    }
    /* Children: runs of leaves that share the next level's node. */
    size_t runs = 0;
    for (size_t i = 0; i < nl; i++) runs += i == 0 || ls[i]->keys[k + 1] != ls[i - 1]->keys[k + 1];
    c->children = calloc(runs, sizeof *c->children);
    if (!c->children) {
        pq_arrow_column_release(c);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", f->leaf->path);
    }
    pq_status st = PQ_OK;
    if (lv->kind == PQ_ASM_LIST) {
        c->layout = LAYOUT_LIST;
        c->n_buffers = 2;
        c->owned[1] = f->out[k].offsets;
        c->buffers[1] = f->out[k].offsets;
        c->nbytes += (count + 1) * sizeof(int32_t);
        f->out[k].offsets = NULL;
        if (runs != 1)
            st = pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': a list with %zu elements", f->leaf->path,
                              runs);
        else if ((st = nest_build(ls, nl, k + 1, &c->children[0], err)) == PQ_OK) {
            c->n_children = 1;
            const int32_t *off = c->buffers[1];
            if (off[count] < 0 || off[count] != c->children[0]->length)
                st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': list offsets end at %d of %lld",
                                  f->leaf->path, off[count], (long long)c->children[0]->length);
        }
    } else {
        c->layout = LAYOUT_STRUCT;
        c->n_buffers = 1;
        for (size_t i = 0, start = 0; st == PQ_OK && i <= nl; i++) {
            if (i > start && (i == nl || ls[i]->keys[k + 1] != ls[start]->keys[k + 1])) {
                st = nest_build(ls + start, i - start, k + 1, &c->children[c->n_children], err);
                if (st == PQ_OK && c->children[c->n_children]->length != (int64_t)count)
                    st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': struct child of %lld slots, not %zu",
                                      ls[start]->leaf->path,
                                      (long long)c->children[c->n_children]->length, count);
                if (c->children[c->n_children]) c->n_children++;
                start = i;
            }
        }
    }
    if (st != PQ_OK) {
        pq_arrow_column_release(c);
        return st;
    }
    *out = c;
    return PQ_OK;
}

pq_status pq_arrow_leaf_levels(const pq_schema *schema, int32_t field, const pq_leaf *leaf, pq_asm_level *levels,
                               int64_t *keys, size_t *n_levels, pq_error *err)
{
    *n_levels = 0;
    nest_leaf *l = calloc(1, sizeof *l);
    if (!l) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", leaf->path);
    l->leaf = leaf;
    pq_status st = nest_levels(schema, field, l, err);
    if (st == PQ_OK) {
        memcpy(levels, l->levels, l->n_levels * sizeof *levels);
        if (keys) memcpy(keys, l->keys, l->n_levels * sizeof *keys);
        *n_levels = l->n_levels;
    }
    free(l);
    return st;
}

pq_status pq_arrow_nested_build(const pq_schema *schema, int32_t field, const pq_leaf *const *leaves,
                                pq_column_values *vals, size_t n, int64_t num_rows, pq_arrow_column **out,
                                pq_error *err)
{
    *out = NULL;
    if (n == 0) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "a field without columns");
    nest_leaf *ls = calloc(n, sizeof *ls);
    nest_leaf **ptrs = calloc(n, sizeof *ptrs);
    pq_status st = PQ_OK;
    if (!ls || !ptrs) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory assembling nested columns");
    for (size_t i = 0; st == PQ_OK && i < n; i++) {
        ls[i].leaf = leaves[i];
        ls[i].v = &vals[i];
        /* Assembly walks the levels: store them if the decoder left them out. */
        if (pq_column_values_definition_levels(&vals[i], leaves[i]->max_def) != PQ_OK) {
            st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory assembling nested columns");
            break;
        }
        ptrs[i] = &ls[i];
        st = nest_levels(schema, field, &ls[i], err);
        if (st == PQ_OK) st = nest_assemble(&ls[i], num_rows, err);
    }
    if (st == PQ_OK) st = nest_build(ptrs, n, 0, out, err);
    for (size_t i = 0; ls && i < n; i++) nest_leaf_free(&ls[i]);
    free(ls);
    free(ptrs);
    return st;
}

/* ---------------------------------------------------------------------------
 * Taking rows: the filter's output
 * ------------------------------------------------------------------------- */

static inline bool keep_bit(const uint8_t *keep, int64_t i)
{
    return (keep[i >> 3] >> (i & 7)) & 1;
}

/* Bits [w0, w0 + 64) of keep (w0 a multiple of 64), those at n and past it
 * zero: the loops below walk the kept rows a word at a time, a set bit at
 * a time (a selective filter keeps few). */
static inline uint64_t keep_word(const uint8_t *keep, int64_t w0, int64_t n)
{
    int64_t left = n - w0;
    uint64_t w = 0;
    if (left >= 64) {
        memcpy(&w, keep + w0 / 8, 8);
        return w;
    }
    memcpy(&w, keep + w0 / 8, (size_t)(left + 7) / 8);
    return w & ((1ull << left) - 1);
}

/* Kept row i of a word's bits b (w0 its first row). */
#define KEPT_ROW(w0, b) ((w0) + (int64_t)__builtin_ctzll(b))

/* Offset i of a binary layout's offsets (int32, or int64 when wide). */
static inline int64_t offset_at(const void *offsets, int64_t i, bool wide)
{
    return wide ? ((const int64_t *)offsets)[i] : ((const int32_t *)offsets)[i];
}

static inline void offset_set(void *offsets, int64_t i, bool wide, int64_t v)
{
    if (wide) ((int64_t *)offsets)[i] = v;
    else ((int32_t *)offsets)[i] = (int32_t)v;
}

/* take() of a string or binary column (LAYOUT_BINARY, LAYOUT_LARGE_BINARY):
 * new offsets and the kept values' bytes. */
static pq_status take_binary(const pq_arrow_column *c, int64_t at, int64_t n, const uint8_t *keep, int64_t kept,
                             pq_arrow_column *t)
{
    bool wide = c->layout == LAYOUT_LARGE_BINARY;
    size_t ow = wide ? 8 : 4;
    const uint8_t *off = (const uint8_t *)c->buffers[1] + (size_t)at * ow;
    const uint8_t *data = c->buffers[2];
    uint64_t bytes = 0;
    for (int64_t w0 = 0; w0 < n; w0 += 64)
        for (uint64_t b = keep_word(keep, w0, n); b; b &= b - 1) {
            int64_t i = KEPT_ROW(w0, b);
            bytes += (uint64_t)(offset_at(off, i + 1, wide) - offset_at(off, i, wide));
        }
    void *o = malloc((size_t)(kept + 1) * ow);
    uint8_t *d = malloc(bytes ? (size_t)bytes : 1);
    if (!o || !d || !column_own(t, 1, o, (size_t)(kept + 1) * ow)) {
        free(o);
        free(d);
        return PQ_ERR_NOMEM;
    }
    if (!column_own(t, 2, d, (size_t)bytes)) {
        free(d);
        return PQ_ERR_NOMEM;
    }
    offset_set(o, 0, wide, 0);
    int64_t j = 0, pos = 0;
    for (int64_t w0 = 0; w0 < n; w0 += 64)
        for (uint64_t b = keep_word(keep, w0, n); b; b &= b - 1) {
            int64_t i = KEPT_ROW(w0, b);
            int64_t a = offset_at(off, i, wide), len = offset_at(off, i + 1, wide) - a;
            memcpy(d + pos, data + a, (size_t)len);
            pos += len;
            offset_set(o, ++j, wide, pos);
        }
    return PQ_OK;
}

/* Rows [at, at + n) of c where `keep` (n bits) is set, `kept` of them, as a
 * new column (one reference). Validity is carried; a null slot stays null. */
static pq_status take(const pq_arrow_column *c, int64_t at, int64_t n, const uint8_t *keep, int64_t kept,
                      pq_arrow_column **out, int depth, pq_error *err)
{
    *out = NULL;
    if (depth > 64) return pq_error_set(err, PQ_ERR_UNSUPPORTED, "filter: arrays nested too deep");
    pq_arrow_column *t = column_new(kept);
    if (!t) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory filtering rows");
    t->layout = c->layout;
    t->width = c->width;
    t->n_buffers = c->n_buffers;
    pq_status st = PQ_OK;
    const uint8_t *valid = c->buffers[0];
    if (valid && c->layout != LAYOUT_NULL) {
        uint8_t *bits = calloc((size_t)(kept + 7) / 8 + 1, 1);
        if (!bits) st = PQ_ERR_NOMEM;
        int64_t j = 0, nulls = 0;
        for (int64_t w0 = 0; bits && w0 < n; w0 += 64)
            for (uint64_t b = keep_word(keep, w0, n); b; b &= b - 1, j++) {
                if (bit_get(valid, (size_t)(at + KEPT_ROW(w0, b)))) bit_set(bits, (size_t)j);
                else nulls++;
            }
        if (bits) {
            t->owned[0] = bits;
            t->buffers[0] = bits;
            t->nbytes += (uint64_t)(kept + 7) / 8;
            t->null_count = nulls;
        }
    } else if (c->layout == LAYOUT_NULL) {
        t->null_count = kept;
    }
    switch (st == PQ_OK ? c->layout : LAYOUT_NULL) {
    case LAYOUT_NULL:
        break;
    case LAYOUT_BOOL: {
        uint8_t *bits = calloc((size_t)(kept + 7) / 8 + 1, 1);
        const uint8_t *src = c->buffers[1];
        if (!bits || !column_own(t, 1, bits, (size_t)(kept + 7) / 8)) {
            free(bits);
            st = PQ_ERR_NOMEM;
            break;
        }
        int64_t j = 0;
        for (int64_t w0 = 0; w0 < n; w0 += 64)
            for (uint64_t b = keep_word(keep, w0, n); b; b &= b - 1, j++)
                if (bit_get(src, (size_t)(at + KEPT_ROW(w0, b)))) bit_set(bits, (size_t)j);
        break;
    }
    case LAYOUT_FIXED: {
        size_t w = c->width;
        uint8_t *dst = malloc((size_t)(kept ? kept : 1) * w);
        const uint8_t *src = (const uint8_t *)c->buffers[1] + (size_t)at * w;
        if (!dst || !column_own(t, 1, dst, (size_t)kept * w)) {
            free(dst);
            st = PQ_ERR_NOMEM;
            break;
        }
        size_t j = 0;
        for (int64_t w0 = 0; w0 < n; w0 += 64)
            for (uint64_t b = keep_word(keep, w0, n); b; b &= b - 1)
                memcpy(dst + j++ * w, src + (size_t)KEPT_ROW(w0, b) * w, w);
        if (c->dictionary) { /* indices: the dictionary is shared */
            atomic_fetch_add(&c->dictionary->refs, 1);
            t->dictionary = c->dictionary;
        }
        break;
    }
    case LAYOUT_VIEW: {
        /* The kept views; the data buffers stay the source's, held by a reference. */
        uint8_t *dst = malloc((size_t)(kept ? kept : 1) * 16);
        const uint8_t *src = (const uint8_t *)c->buffers[1] + (size_t)at * 16;
        if (!dst || !column_own(t, 1, dst, (size_t)kept * 16)) {
            free(dst);
            st = PQ_ERR_NOMEM;
            break;
        }
        size_t j = 0;
        for (int64_t w0 = 0; w0 < n; w0 += 64)
            for (uint64_t b = keep_word(keep, w0, n); b; b &= b - 1)
                memcpy(dst + j++ * 16, src + (size_t)KEPT_ROW(w0, b) * 16, 16);
        pq_arrow_column *base = (pq_arrow_column *)c;
        atomic_fetch_add(&base->refs, 1);
        t->base = base;
        for (int64_t b = 2; b < c->n_buffers; b++) t->buffers[b] = c->buffers[b];
        memcpy(t->view_sizes, c->view_sizes, sizeof t->view_sizes);
        t->buffers[c->n_buffers - 1] = t->view_sizes;
        break;
    }
    case LAYOUT_BINARY:
    case LAYOUT_LARGE_BINARY:
        st = take_binary(c, at, n, keep, kept, t);
        break;
    case LAYOUT_STRUCT:
        t->children = calloc(c->n_children ? c->n_children : 1, sizeof *t->children);
        if (!t->children) {
            st = PQ_ERR_NOMEM;
            break;
        }
        for (size_t k = 0; st == PQ_OK && k < c->n_children; k++) {
            st = take(c->children[k], at, n, keep, kept, &t->children[k], depth + 1, err);
            if (st == PQ_OK) t->n_children++;
        }
        break;
    case LAYOUT_LIST: {
        /* New offsets over the kept lists; the child keeps their elements. */
        const int32_t *off = (const int32_t *)c->buffers[1] + at;
        const pq_arrow_column *child = c->children[0];
        int64_t cbase = off[0], cn = off[n] - off[0], ckept = 0;
        int32_t *o = malloc((size_t)(kept + 1) * sizeof *o);
        uint8_t *ckeep = calloc((size_t)(cn + 7) / 8 + 1, 1);
        t->children = calloc(1, sizeof *t->children);
        if (!o || !ckeep || !t->children || !column_own(t, 1, o, (size_t)(kept + 1) * sizeof *o)) {
            if (!t->owned[1]) free(o);
            free(ckeep);
            st = PQ_ERR_NOMEM;
            break;
        }
        o[0] = 0;
        int64_t j = 0;
        for (int64_t i = 0; i < n; i++)
            if (keep_bit(keep, i)) {
                for (int32_t e = off[i]; e < off[i + 1]; e++) bit_set(ckeep, (size_t)(e - cbase));
                ckept += off[i + 1] - off[i];
                o[j + 1] = o[j] + (off[i + 1] - off[i]);
                j++;
            }
        st = take(child, cbase, cn, ckeep, ckept, &t->children[0], depth + 1, err);
        if (st == PQ_OK) t->n_children = 1;
        free(ckeep);
        break;
    }
    }
    if (st != PQ_OK) {
        pq_arrow_column_release(t);
        return st == PQ_ERR_NOMEM ? pq_error_set(err, st, "out of memory filtering rows") : st;
    }
    *out = t;
    return PQ_OK;
}

pq_status pq_arrow_column_take(const pq_arrow_column *c, int64_t offset, int64_t length, const uint8_t *keep,
                               pq_arrow_column **out, pq_error *err)
{
    *out = NULL;
    if (c && c->foreign) /* its buffers may be a device's */
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "filter: taking rows of an adopted (device) column");
    if (!c || offset < 0 || length < 0 || offset > c->length || length > c->length - offset)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "filter: rows [%lld, +%lld) out of the column",
                            (long long)offset, (long long)length);
    int64_t kept = (int64_t)pq_bits_set_fast(keep, (uint64_t)length);
    return take(c, offset, length, keep, kept, out, 0, err);
}
