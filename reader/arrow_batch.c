/*
 * arrow_batch.c — Arrow buffers for decoded flat columns, and their export
 * as a record batch (a struct array) per the Arrow C Data Interface.
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

#include "metadata/error.h"
#include "reader/arrow_batch.h"

/* Julian day of 1970-01-01 and nanoseconds per day, for INT96 timestamps. */
#define JULIAN_EPOCH_DAY 2440588
#define NANOS_PER_DAY 86400000000000ull

struct pq_arrow_column {
    atomic_int refs;
    int64_t length;
    int64_t null_count;
    int64_t n_buffers;
    const void *buffers[3]; /* what ArrowArray.buffers points at */
    void *owned[3];         /* what to free */
};

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
    for (int i = 0; i < 3; i++) free(c->owned[i]);
    free(c);
}

int64_t pq_arrow_column_length(const pq_arrow_column *c)
{
    return c ? c->length : 0;
}

/* Give buffer slot i the memory p (owned), or a 1-byte block when p is
 * NULL: Arrow wants value buffers present even when empty. */
static bool column_own(pq_arrow_column *c, int i, void *p)
{
    if (!p) p = calloc(1, 8);
    if (!p) return false;
    c->owned[i] = p;
    c->buffers[i] = p;
    return true;
}

/* ---------------------------------------------------------------------------
 * Building one column
 * ------------------------------------------------------------------------- */

/* Validity from the definition levels: NULL (and *nulls 0) when every slot
 * is defined. Checks that the defined slots match the value count. */
static pq_status build_validity(const pq_leaf *leaf, const pq_column_values *v, uint8_t **out,
                                int64_t *nulls, pq_error *err)
{
    size_t n = v->n_levels, defined = n;
    *out = NULL;
    *nulls = 0;
    if (leaf->max_def > 0 && v->def_levels) {
        defined = 0;
        for (size_t i = 0; i < n; i++) defined += v->def_levels[i] == leaf->max_def;
    }
    if (defined != v->n_values)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "column '%s': %zu defined slots but %zu values", leaf->path, defined,
                            v->n_values);
    if (defined == n) return PQ_OK;
    uint8_t *bits = calloc((n + 7) / 8, 1);
    if (!bits) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", leaf->path);
    for (size_t i = 0; i < n; i++)
        if (v->def_levels[i] == leaf->max_def) bit_set(bits, i);
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
    return column_own(c, 1, bits) ? PQ_OK : PQ_ERR_NOMEM;
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
        offsets = malloc((n + 1) * sizeof *offsets);
        if (!offsets) return PQ_ERR_NOMEM;
        offsets[0] = 0;
        for (size_t i = 0, j = 0; i < n; i++) {
            if (slot_valid(validity, i)) j++;
            offsets[i + 1] = v->offsets ? v->offsets[j] : 0;
        }
    }
    if (!column_own(c, 1, offsets)) {
        free(offsets);
        return PQ_ERR_NOMEM;
    }
    uint8_t *data = v->data;
    v->data = NULL;
    return column_own(c, 2, data) ? PQ_OK : PQ_ERR_NOMEM;
}

/* Fixed-width output of ow bytes per slot, converted by `kind`. */
static pq_status build_fixed(pq_arrow_column *c, pq_column_values *v, const uint8_t *validity,
                             size_t ow, conv_kind kind, bool is_signed)
{
    size_t n = v->n_levels, w = v->width;
    if (kind == CONV_COPY && w == ow && !validity && v->values) {
        void *p = v->values; /* already laid out: take it */
        v->values = NULL;
        return column_own(c, 1, p) ? PQ_OK : PQ_ERR_NOMEM;
    }
    if (n > SIZE_MAX / (ow ? ow : 1) - 1) return PQ_ERR_NOMEM;
    uint8_t *out = calloc(n ? n : 1, ow);
    if (!out) return PQ_ERR_NOMEM;
    for (size_t i = 0, j = 0; i < n; i++) {
        if (!slot_valid(validity, i)) continue;
        uint8_t *dst = out + i * ow;
        if (v->offsets) { /* BYTE_ARRAY decimals */
            size_t len = (size_t)(v->offsets[j + 1] - v->offsets[j]);
            if (len) conv_be_decimal(dst, ow, v->data + v->offsets[j], len);
            j++;
            continue;
        }
        const uint8_t *src = v->values + j++ * w;
        switch (kind) {
        case CONV_COPY: memcpy(dst, src, ow); break;
        case CONV_INT: conv_int(dst, ow, src, w, is_signed); break;
        case CONV_INT96: store_le(dst, 8, (uint64_t)int96_nanos(src)); break;
        case CONV_DECIMAL:
            if (v->physical_type == PQ_FIXED_LEN_BYTE_ARRAY) conv_be_decimal(dst, ow, src, w);
            else conv_int(dst, ow, src, w, true);
            break;
        }
    }
    return column_own(c, 1, out) ? PQ_OK : (free(out), PQ_ERR_NOMEM);
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
        *kind = CONV_INT;
        return width[leaf->arrow.id];
    }
    case PQ_ARROW_DATE32: return int32 ? 4 : 0;
    case PQ_ARROW_TIME32: return int32 ? 4 : 0;
    case PQ_ARROW_TIME64: return int64 ? 8 : 0;
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
    case PQ_ARROW_DECIMAL128:
    case PQ_ARROW_DECIMAL256:
        if (!int32 && !int64 && !(pt == PQ_FIXED_LEN_BYTE_ARRAY && v->width > 0) &&
            !(pt == PQ_BYTE_ARRAY && (v->offsets || v->n_values == 0)))
            return 0;
        *kind = CONV_DECIMAL;
        return leaf->arrow.id == PQ_ARROW_DECIMAL128 ? 16 : 32;
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
    c->n_buffers = 2;

    conv_kind kind;
    bool is_signed;
    size_t ow;
    switch (leaf->arrow.id) {
    case PQ_ARROW_BOOL:
        st = leaf->physical_type == PQ_BOOLEAN ? build_bool(c, v, validity) : PQ_ERR_UNSUPPORTED;
        break;
    case PQ_ARROW_STRING:
    case PQ_ARROW_BINARY:
    case PQ_ARROW_EXTENSION_JSON:
        c->n_buffers = 3;
        st = leaf->physical_type == PQ_BYTE_ARRAY ? build_binary(c, v, validity) : PQ_ERR_UNSUPPORTED;
        break;
    default:
        ow = fixed_plan(leaf, v, &kind, &is_signed);
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

/* ---------------------------------------------------------------------------
 * Export
 * ------------------------------------------------------------------------- */

static void release_child(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    pq_arrow_column_release(a->private_data);
    a->private_data = NULL;
    a->release = NULL;
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

pq_status pq_arrow_batch_export(pq_arrow_column *const *cols, size_t n, int64_t length,
                                struct ArrowArray *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    /* One block: the children, the pointers to them, the parent's buffer list. */
    size_t size = n * (sizeof(struct ArrowArray) + sizeof(struct ArrowArray *)) + sizeof(void *);
    char *block = calloc(1, size);
    if (!block) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting a record batch");
    struct ArrowArray *kids = (struct ArrowArray *)block;
    struct ArrowArray **ptrs = (struct ArrowArray **)(kids + n);
    const void **parent_buffers = (const void **)(ptrs + n);
    for (size_t i = 0; i < n; i++) {
        pq_arrow_column *c = cols[i];
        atomic_fetch_add(&c->refs, 1);
        kids[i].length = c->length;
        kids[i].null_count = c->null_count;
        kids[i].n_buffers = c->n_buffers;
        kids[i].buffers = c->n_buffers ? c->buffers : NULL;
        kids[i].private_data = c;
        kids[i].release = release_child;
        ptrs[i] = &kids[i];
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

pq_status pq_arrow_batch_schema(const pq_metadata *md, const uint32_t *columns, size_t n,
                                struct ArrowSchema *out, pq_error *err)
{
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
        struct ArrowSchema one;
        pq_status st = pq_metadata_arrow_schema(md, &columns[i], 1, &one, err);
        if (st == PQ_OK && one.n_children != 1) {
            one.release(&one);
            st = pq_error_set(err, PQ_ERR_SCHEMA, "column %u does not export as one field",
                              columns[i]);
        }
        if (st != PQ_OK) {
            release_batch_schema(out);
            return st;
        }
        kids[i] = *one.children[0];
        one.children[0]->release = NULL;
        one.release(&one);
        ptrs[i] = &kids[i];
        out->n_children = (int64_t)i + 1;
    }
    return PQ_OK;
}
