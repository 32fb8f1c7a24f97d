/*
 * arrow.c — Arrow buffers built by the kernels of
 * kernels/k_arrow_build.h (see arrow.h).
 *
 * The host does what needs the whole column between launches: the scan of
 * the blocks' counts into each block's first value or slot, the checks of
 * the totals, allocation at the exact size, and the wording of errors.
 * Everything the kernels read or write is the context's device memory;
 * the host reaches it only through upload and download.
 */
#include "device/arrow.h"

#include <stdlib.h>
#include <string.h>

#include "device/cuda_runtime.h"
#include "kernels/k_arrow_build.h"
#include "kernels/k_decode.h"
#include "metadata/error.h"
#include "pages/buffer_pool.h"
#include "pages/decode_plan.h"

#define DEFAULT_THREADS 256u
/* Slots (or level entries) a thread of a block: tile = threads * this. */
#define SLOTS_PER_THREAD 32u
/* CUDA's grid limit in x. */
#define MAX_BLOCKS 0x7fffffffull

/* ---------------------------------------------------------------------------
 * The context and its memory
 * ------------------------------------------------------------------------- */

static pq_status cuda_error(pq_error *err, const char *call, const char *why)
{
    return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device arrow: CUDA %s failed: %s", call, why ? why : "?");
}

pq_status pq_darrow_open(pq_darrow_ctx *x, const pq_darrow_options *o, pq_error *err)
{
    memset(x, 0, sizeof *x);
    pq_darrow_options none = {0};
    if (!o) o = &none;
    x->threads = o->threads ? o->threads : DEFAULT_THREADS;
    x->host_flags = o->host_flags;
    if (x->threads > PQ_KMAX_THREADS)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "device arrow: %u threads a block (at most %u)", x->threads,
                            PQ_KMAX_THREADS);
    if (o->use_cuda) {
        const char *why = NULL;
        if (pq_cuda_device_count(&why) <= 0)
            return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device arrow: no CUDA device: %s", why ? why : "none found");
        if (pq_cuda_stream_create(&x->stream, &why)) return cuda_error(err, "stream creation", why);
        x->cuda = true;
    }
    x->apart = x->cuda || o->host_apart;
    return PQ_OK;
}

void pq_darrow_close(pq_darrow_ctx *x)
{
    if (x->stream) pq_cuda_stream_destroy(x->stream);
    memset(x, 0, sizeof *x);
}

pq_status pq_darrow_alloc(pq_darrow_ctx *x, size_t n, void **p, pq_error *err)
{
    *p = NULL;
    if (x->cuda) {
        const char *why = NULL;
        return pq_cuda_alloc(p, n, &why) ? cuda_error(err, "cudaMalloc", why) : PQ_OK;
    }
    *p = malloc(n ? n : 1);
    if (!*p) return pq_error_set(err, PQ_ERR_NOMEM, "device arrow: cannot allocate %zu bytes", n);
    /* Standing in for cudaMalloc, whose memory holds garbage: a buffer read
     * before it is written shows. */
    if (x->apart) memset(*p, 0xA5, n ? n : 1);
    return PQ_OK;
}

/* A buffer freed as a context on a device (cuda) or on the host made it. */
static void free_buffer(bool cuda, void *p)
{
    if (!p) return;
    if (cuda) pq_cuda_free(p);
    else pq_pool_give(p); /* host buffers may be the decoder's pool blocks */
}

void pq_darrow_free(pq_darrow_ctx *x, void *p)
{
    free_buffer(x->cuda, p);
}

pq_status pq_darrow_upload(pq_darrow_ctx *x, void *dev, const void *host, size_t n, pq_error *err)
{
    if (n == 0) return PQ_OK;
    if (!x->cuda) {
        if (dev != host) memcpy(dev, host, n);
        return PQ_OK;
    }
    const char *why = NULL;
    return pq_cuda_upload(x->stream, dev, host, n, &why) ? cuda_error(err, "upload", why) : PQ_OK;
}

pq_status pq_darrow_download(pq_darrow_ctx *x, void *host, const void *dev, size_t n, pq_error *err)
{
    if (n == 0) return PQ_OK;
    if (!x->cuda) {
        if (dev != host) memcpy(host, dev, n);
        return PQ_OK;
    }
    const char *why = NULL;
    return pq_cuda_download(x->stream, host, dev, n, &why) ? cuda_error(err, "download", why) : PQ_OK;
}

static pq_status dev_zero(pq_darrow_ctx *x, void *dev, size_t n, pq_error *err)
{
    if (n == 0) return PQ_OK;
    if (!x->cuda) {
        memset(dev, 0, n);
        return PQ_OK;
    }
    const char *why = NULL;
    return pq_cuda_memset(x->stream, dev, 0, n, &why) ? cuda_error(err, "memset", why) : PQ_OK;
}

/* Zeroed device memory. */
static pq_status dev_calloc(pq_darrow_ctx *x, size_t n, void **p, pq_error *err)
{
    pq_status st = pq_darrow_alloc(x, n, p, err);
    if (st == PQ_OK && (st = dev_zero(x, *p, n ? n : 1, err)) != PQ_OK) {
        pq_darrow_free(x, *p);
        *p = NULL;
    }
    return st;
}

/* Device memory holding a copy of n host bytes. */
static pq_status dev_copy(pq_darrow_ctx *x, const void *host, size_t n, void **p, pq_error *err)
{
    pq_status st = pq_darrow_alloc(x, n, p, err);
    if (st == PQ_OK && (st = pq_darrow_upload(x, *p, host, n, err)) != PQ_OK) {
        pq_darrow_free(x, *p);
        *p = NULL;
    }
    return st;
}

void pq_darrow_array_free(pq_darrow_ctx *x, pq_darrow_array *a)
{
    pq_darrow_free(x, a->validity);
    pq_darrow_free(x, a->values);
    pq_darrow_free(x, a->data);
    for (size_t i = 0; i < a->n_view_bufs && i < 2; i++) pq_darrow_free(x, a->view_bufs[i]);
    pq_darrow_free(x, a->view_sizes);
    if (a->dictionary) {
        pq_darrow_array_free(x, a->dictionary);
        free(a->dictionary);
    }
    memset(a, 0, sizeof *a);
}

uint64_t pq_darrow_array_bytes(const pq_darrow_array *a)
{
    uint64_t n = (uint64_t)a->values_bytes + a->data_len + (a->validity ? ((uint64_t)a->length + 7) / 8 : 0);
    for (size_t i = 0; i < a->n_view_bufs && i < 2; i++) n += a->view_buf_lens[i];
    return n + (a->dictionary ? pq_darrow_array_bytes(a->dictionary) : 0);
}

void pq_darrow_nested_free(pq_darrow_ctx *x, pq_darrow_nested *n)
{
    for (size_t i = 0; i + 1 < n->n_levels && i < PQ_ASM_MAX_LEVELS; i++) {
        pq_darrow_free(x, n->levels[i].validity);
        pq_darrow_free(x, n->levels[i].offsets);
    }
    pq_darrow_array_free(x, &n->leaf);
    n->n_levels = 0;
}

/* ---------------------------------------------------------------------------
 * Launches
 * ------------------------------------------------------------------------- */

static uint32_t tile_of(const pq_darrow_ctx *x)
{
    return x->threads * SLOTS_PER_THREAD; /* a multiple of 8 */
}

/* Blocks over n slots or entries; PQ_ERR_UNSUPPORTED past CUDA's grid. */
static pq_status blocks_for(const pq_darrow_ctx *x, unsigned long long n, uint32_t *nblocks, pq_error *err)
{
    unsigned long long b = (n + tile_of(x) - 1) / tile_of(x);
    if (b > MAX_BLOCKS)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device arrow: %llu slots need more than %llu blocks", n,
                            MAX_BLOCKS);
    *nblocks = (uint32_t)b;
    return PQ_OK;
}

static pq_status launch(pq_darrow_ctx *x, pq_kbuild_kernel k, const void *args, uint32_t nblocks, pq_error *err)
{
    if (nblocks == 0) return PQ_OK;
    x->launches++;
    if (x->cuda) {
        const char *why = NULL;
        return pq_kbuild_cuda(x->stream, k, args, nblocks, x->threads, &why) ? cuda_error(err, "kernel launch", why)
                                                                               : PQ_OK;
    }
    if (pq_kbuild_host(k, args, nblocks, x->threads, x->host_flags))
        return pq_error_set(err, PQ_ERR_NOMEM, "device arrow: cannot start a host launch");
    return PQ_OK;
}

/* In place: each of n counts (every `stride`-th from `at`) replaced by the
 * sum of those before it; returns the sum of all. */
static unsigned long long exclusive_scan(unsigned long long *v, size_t n, size_t stride, size_t at)
{
    unsigned long long run = 0;
    for (size_t b = 0; b < n; b++) {
        unsigned long long c = v[b * stride + at];
        v[b * stride + at] = run;
        run += c;
    }
    return run;
}

/* ---------------------------------------------------------------------------
 * Flat arrays
 * ------------------------------------------------------------------------- */

/* How a leaf's slots are made (the layouts of arrow_batch.c). */
typedef struct slot_plan {
    uint8_t layout; /* pq_darrow_layout */
    uint8_t conv;   /* PQ_KCONV_* */
    uint8_t is_signed;
    uint32_t out_width;
} slot_plan;

/* Bytes of an integer Arrow type, 0 for the others. */
static uint32_t int_width(int32_t id, bool *is_signed)
{
    *is_signed = id >= PQ_ARROW_INT8 && id <= PQ_ARROW_INT64;
    switch (id) {
    case PQ_ARROW_INT8: case PQ_ARROW_UINT8: return 1;
    case PQ_ARROW_INT16: case PQ_ARROW_UINT16: return 2;
    case PQ_ARROW_INT32: case PQ_ARROW_UINT32: return 4;
    case PQ_ARROW_INT64: case PQ_ARROW_UINT64: return 8;
    default: return 0;
    }
}

/* The plan for `leaf` from values of width w, or false: no layout here. */
static bool plan_slots(const pq_leaf *leaf, const pq_column_values *v, slot_plan *p)
{
    int32_t pt = leaf->physical_type, id = leaf->arrow.id;
    size_t w = v->width;
    bool i32 = pt == PQ_INT32 && w == 4, i64 = pt == PQ_INT64 && w == 8, flba = pt == PQ_FIXED_LEN_BYTE_ARRAY;
    bool is_signed;
    uint32_t iw = int_width(id, &is_signed);
    *p = (slot_plan){.layout = PQ_DARROW_FIXED, .conv = PQ_KCONV_COPY, .is_signed = 1, .out_width = (uint32_t)w};
    if (v->views) { /* the 16-byte views are the slots of strings and binary, as in the host build */
        p->layout = PQ_DARROW_VIEW;
        p->out_width = 16;
        return pt == PQ_BYTE_ARRAY && (id == PQ_ARROW_STRING || id == PQ_ARROW_BINARY);
    }
    if (iw) { /* integers: the same bits when the width is the same */
        p->out_width = iw;
        p->is_signed = is_signed;
        p->conv = iw == w ? PQ_KCONV_COPY : PQ_KCONV_INT;
        return i32 || i64;
    }
    switch (id) {
    case PQ_ARROW_BOOL:
        p->layout = PQ_DARROW_BOOL;
        p->conv = PQ_KCONV_BOOL;
        return pt == PQ_BOOLEAN;
    case PQ_ARROW_STRING: case PQ_ARROW_BINARY: case PQ_ARROW_EXTENSION_JSON:
        p->layout = PQ_DARROW_BINARY;
        p->conv = PQ_KCONV_OFFSETS32;
        return pt == PQ_BYTE_ARRAY;
    case PQ_ARROW_LARGE_STRING: case PQ_ARROW_LARGE_BINARY:
        p->layout = PQ_DARROW_LARGE_BINARY;
        p->conv = PQ_KCONV_OFFSETS64;
        return pt == PQ_BYTE_ARRAY;
    case PQ_ARROW_DATE32: case PQ_ARROW_TIME32: return i32;
    case PQ_ARROW_TIME64: case PQ_ARROW_DURATION: return i64;
    case PQ_ARROW_TIMESTAMP:
        /* INT96 timestamps are built on the host, where a value outside the
         * range of its unit fails the build (reader/int96.h) instead of
         * wrapping: the kernels have no way to report it. */
        return i64;
    case PQ_ARROW_FLOAT32: return pt == PQ_FLOAT && w == 4;
    case PQ_ARROW_FLOAT64: return pt == PQ_DOUBLE && w == 8;
    case PQ_ARROW_FLOAT16: return flba && w == 2;
    case PQ_ARROW_FIXED_SIZE_BINARY: case PQ_ARROW_EXTENSION_UUID:
        return flba && leaf->arrow.byte_width > 0 && w == (size_t)leaf->arrow.byte_width;
    case PQ_ARROW_DECIMAL64: case PQ_ARROW_DECIMAL128: case PQ_ARROW_DECIMAL256:
        p->out_width = id == PQ_ARROW_DECIMAL64 ? 8 : id == PQ_ARROW_DECIMAL128 ? 16 : 32;
        if (i32 || i64) { /* the unscaled integer, sign-extended */
            p->conv = w == p->out_width ? PQ_KCONV_COPY : PQ_KCONV_INT;
            return true;
        }
        if (flba && w > 0) {
            p->conv = PQ_KCONV_BE_DECIMAL;
            return true;
        }
        p->conv = PQ_KCONV_BA_DECIMAL;
        return pt == PQ_BYTE_ARRAY && (v->offsets || v->n_values == 0);
    default:
        return false;
    }
}

bool pq_darrow_covers(const pq_leaf *leaf, unsigned flags)
{
    pq_column_values v;
    memset(&v, 0, sizeof v);
    v.width = pq_plan_value_width(leaf);
    int32_t any;
    if (leaf->physical_type == PQ_BYTE_ARRAY) v.offsets = &any; /* present, never read */
    if (flags & PQ_DECODE_INDICES) /* int32 indices over the entries, which are built as values */
        return leaf->max_rep == 0 && pq_darrow_covers(leaf, 0);
    if ((flags & PQ_DECODE_STRING_VIEWS) && leaf->physical_type == PQ_BYTE_ARRAY) v.views = (uint8_t *)&any;
    slot_plan p;
    return leaf->arrow.id == PQ_ARROW_NA || plan_slots(leaf, &v, &p);
}

static pq_status unsupported_type(const pq_leaf *leaf, pq_error *err)
{
    char at[64];
    pq_arrow_type_format(&leaf->arrow, at, sizeof at);
    return pq_error_set(err, PQ_ERR_UNSUPPORTED, "column '%s': decoding %s to %s is not supported", leaf->path,
                        pq_physical_type_name(leaf->physical_type), at);
}

/* The validity of n slots, from the levels `def` (validity allocated
 * here) or from the bitmap *validity: *defined gets the valid slots and
 * *first (device, nblocks entries; NULL when every slot is valid) each
 * block's first value. */
static pq_status count_valid(pq_darrow_ctx *x, pq_karrow_args *a, uint32_t nblocks, void **validity,
                             unsigned long long *defined, pq_error *err)
{
    pq_status st;
    unsigned long long *host = NULL;
    a->block_valid = NULL;
    if (!a->def && !*validity) {
        *defined = a->n;
        return PQ_OK;
    }
    if (a->def && (st = pq_darrow_alloc(x, (size_t)(a->n + 7) / 8, validity, err)) != PQ_OK) return st;
    a->validity = *validity;
    if ((st = pq_darrow_alloc(x, (size_t)nblocks * 8, (void **)&a->block_valid, err)) != PQ_OK) return st;
    if (!(host = malloc((size_t)nblocks * 8 + 8)))
        return pq_error_set(err, PQ_ERR_NOMEM, "device arrow: out of memory for %u block counts", nblocks);
    if ((st = launch(x, PQ_KA_VALIDITY, a, nblocks, err)) == PQ_OK &&
        (st = pq_darrow_download(x, host, a->block_valid, (size_t)nblocks * 8, err)) == PQ_OK) {
        *defined = exclusive_scan(host, nblocks, 1, 0);
        st = pq_darrow_upload(x, a->block_valid, host, (size_t)nblocks * 8, err);
    }
    free(host);
    return st;
}

/* The Arrow array of n slots of `leaf` from v's values, the validity from
 * v's definition levels `def` (NULL: none) or the bitmap `bits` (taken).
 * pq_arrow_column_build's steps: the validity and its count, then the
 * slots by type. */
static pq_status build_slots(pq_darrow_ctx *x, const pq_leaf *leaf, pq_column_values *v, size_t n,
                             const int16_t *def, void *bits, pq_darrow_array *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    out->length = (int64_t)n;
    if (leaf->arrow.id == PQ_ARROW_NA) { /* no buffers; every slot null */
        pq_darrow_free(x, bits);
        out->null_count = out->length;
        return PQ_OK;
    }
    pq_karrow_args a;
    memset(&a, 0, sizeof a);
    a.n = n;
    a.n_values = v->n_values;
    a.tile = tile_of(x);
    a.max_def = leaf->max_def;
    a.def = def;
    uint32_t nblocks = 0;
    unsigned long long defined = 0;
    void *validity = bits;
    pq_status st = blocks_for(x, n, &nblocks, err);
    if (st == PQ_OK) st = count_valid(x, &a, nblocks, &validity, &defined, err);
    if (st == PQ_OK && defined != v->n_values)
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': %llu defined slots but %zu values", leaf->path,
                          defined, v->n_values);
    slot_plan p;
    if (st == PQ_OK && !plan_slots(leaf, v, &p)) st = unsupported_type(leaf, err);
    if (st != PQ_OK) {
        pq_darrow_free(x, validity);
        pq_darrow_free(x, a.block_valid);
        return st;
    }
    if (defined == n) { /* no nulls: no bitmap, value i in slot i */
        pq_darrow_free(x, validity);
        validity = NULL;
    }
    out->validity = validity;
    out->null_count = (int64_t)(n - defined);
    out->layout = p.layout;
    a.def = NULL;
    a.validity = validity;
    a.conv = p.conv;
    a.is_signed = p.is_signed;
    bool views = p.layout == PQ_DARROW_VIEW;
    a.width = views ? 16 : (uint32_t)v->width;
    a.out_width = p.out_width;
    a.values = views ? v->views : v->values;
    a.offsets = v->offsets;
    a.data = v->data;
    a.data_len = v->data_len;

    bool binary = p.layout == PQ_DARROW_BINARY || p.layout == PQ_DARROW_LARGE_BINARY;
    bool take_values = !validity && ((p.conv == PQ_KCONV_COPY && a.values && a.width == p.out_width) ||
                                     (p.conv == PQ_KCONV_OFFSETS32 && v->offsets));
    if (binary) out->values_bytes = (n + 1) * (p.layout == PQ_DARROW_LARGE_BINARY ? 8 : 4);
    else if (p.layout == PQ_DARROW_BOOL) out->values_bytes = (n + 7) / 8;
    else out->values_bytes = n * p.out_width;
    if (p.layout == PQ_DARROW_FIXED) out->width = p.out_width;
    if (take_values) { /* already laid out: take it */
        out->values = binary ? (void *)v->offsets : views ? (void *)v->views : (void *)v->values;
        if (binary) v->offsets = NULL;
        else if (views) v->views = NULL;
        else v->values = NULL;
    } else if ((st = pq_darrow_alloc(x, out->values_bytes, &out->values, err)) == PQ_OK) {
        a.out = out->values;
        if (n == 0) st = dev_zero(x, out->values, out->values_bytes, err); /* offsets[0] = 0 */
        else st = launch(x, PQ_KA_SPREAD, &a, nblocks, err);
    }
    if (st == PQ_OK && views) { /* the data buffers as they are, and their sizes */
        int64_t sizes[2] = {0, 0};
        out->n_view_bufs = v->n_view_bufs < 2 ? v->n_view_bufs : 2;
        for (size_t i = 0; i < out->n_view_bufs; i++) {
            out->view_bufs[i] = v->view_bufs[i];
            out->view_buf_lens[i] = v->view_buf_lens[i];
            sizes[i] = (int64_t)v->view_buf_lens[i];
            v->view_bufs[i] = NULL;
        }
        v->n_view_bufs = 0;
        st = dev_copy(x, sizes, out->n_view_bufs ? out->n_view_bufs * 8 : 8, (void **)&out->view_sizes, err);
    }
    if (st == PQ_OK && binary) { /* the data as it is: nulls are empty */
        out->data_len = v->data_len;
        if (v->data) {
            out->data = v->data;
            v->data = NULL;
        } else {
            st = dev_calloc(x, 8, &out->data, err); /* Arrow wants it present */
        }
    }
    pq_darrow_free(x, a.block_valid);
    if (st != PQ_OK) pq_darrow_array_free(x, out);
    return st;
}

/* What the host build refuses to lay out. */
static pq_status check_flat_input(const pq_leaf *leaf, const pq_column_values *v, pq_error *err)
{
    if (v->n_levels > INT64_MAX / 2)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': too many values", leaf->path);
    return PQ_OK;
}

/* Dictionary indices out (v->dictionary): the int32 indices with the
 * leaf's validity, the entries as a leaf without levels of their own
 * (pq_arrow_column_build_dictionary's steps). */
static pq_status build_dictionary(pq_darrow_ctx *x, const pq_leaf *leaf, pq_column_values *v, pq_darrow_array *out,
                                  pq_error *err)
{
    pq_column_values *d = v->dictionary;
    if (d->n_values > INT32_MAX)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "column '%s': %zu dictionary entries exceed int32 indices",
                            leaf->path, d->n_values);
    pq_leaf dl = *leaf; /* the entries */
    dl.max_def = dl.max_rep = 0;
    pq_darrow_array *entries = calloc(1, sizeof *entries);
    if (!entries) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", leaf->path);
    pq_status st = build_slots(x, &dl, d, d->n_levels, NULL, NULL, entries, err);
    if (st != PQ_OK) {
        free(entries);
        return st;
    }
    pq_leaf il = *leaf; /* the indices: below dictionary size, so int32 as they are */
    il.physical_type = PQ_INT32;
    il.arrow = (pq_arrow_type){.id = PQ_ARROW_INT32};
    v->physical_type = PQ_INT32;
    v->width = 4;
    st = build_slots(x, &il, v, v->n_levels, leaf->max_def > 0 ? v->def_levels : NULL, NULL, out, err);
    if (st != PQ_OK) {
        pq_darrow_array_free(x, entries);
        free(entries);
        return st;
    }
    out->dictionary = entries;
    return PQ_OK;
}

pq_status pq_darrow_build_dictionary_slots(pq_darrow_ctx *x, const pq_leaf *leaf, pq_column_values *v,
                                           pq_darrow_array *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    if (v->dictionary)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "column '%s': indices, not values", leaf->path);
    if (v->n_levels > INT32_MAX)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "column '%s': %zu values exceed int32 dictionary indices",
                            leaf->path, v->n_levels);
    pq_darrow_array *entries = calloc(1, sizeof *entries);
    if (!entries) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", leaf->path);
    pq_status st = pq_darrow_build_flat(x, leaf, v, entries, err);
    size_t n = (size_t)entries->length;
    int32_t *idx = st == PQ_OK ? malloc(n ? n * 4 : 4) : NULL;
    if (st == PQ_OK && !idx) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", leaf->path);
    for (size_t i = 0; st == PQ_OK && i < n; i++) idx[i] = (int32_t)i;
    if (st == PQ_OK) st = pq_darrow_alloc(x, n * 4, &out->values, err);
    if (st == PQ_OK) st = pq_darrow_upload(x, out->values, idx, n * 4, err);
    free(idx);
    if (st != PQ_OK) {
        pq_darrow_array_free(x, out);
        pq_darrow_array_free(x, entries);
        free(entries);
        return st;
    }
    /* The slots' validity moves to the indices; a null's entry is empty. */
    out->length = entries->length;
    out->layout = PQ_DARROW_FIXED;
    out->width = 4;
    out->values_bytes = n * 4;
    out->validity = entries->validity;
    out->null_count = entries->null_count;
    entries->validity = NULL;
    entries->null_count = 0;
    out->dictionary = entries;
    return PQ_OK;
}

pq_status pq_darrow_build_flat(pq_darrow_ctx *x, const pq_leaf *leaf, pq_column_values *v, pq_darrow_array *out,
                               pq_error *err)
{
    memset(out, 0, sizeof *out);
    pq_status st = check_flat_input(leaf, v, err);
    if (st != PQ_OK) return st;
    if (v->dictionary) return build_dictionary(x, leaf, v, out, err);
    return build_slots(x, leaf, v, v->n_levels, leaf->max_def > 0 ? v->def_levels : NULL, NULL, out, err);
}

/* ---------------------------------------------------------------------------
 * Nested leaves
 * ------------------------------------------------------------------------- */

/* What each level needs from the path (assemble.c's plan): a slot of level
 * i exists when d >= exist[i] and is opened by entries with r <=
 * lists_above[i]; list_def[r - 1] is the list_def of the list with
 * list_rep r. */
typedef struct nest_plan {
    int16_t exist[PQ_ASM_MAX_LEVELS];
    int16_t lists_above[PQ_ASM_MAX_LEVELS];
    int16_t list_def[PQ_ASM_MAX_LEVELS];
    int16_t max_def, max_rep;
} nest_plan;

static void plan_nest(const pq_asm_level *levels, size_t nl, nest_plan *p)
{
    int16_t exist = 0, lists = 0;
    for (size_t i = 0; i < nl; i++) {
        p->exist[i] = exist;
        p->lists_above[i] = lists;
        if (levels[i].kind == PQ_ASM_LIST) {
            p->list_def[lists++] = levels[i].list_def;
            exist = levels[i].list_def;
        }
    }
}

/* The error of the first failing entry k, as pq_assemble words it. */
static pq_status entry_error(pq_darrow_ctx *x, const pq_knest_args *a, unsigned long long k, pq_error *err)
{
    int16_t d = a->def_fill, r = 0;
    pq_status st = PQ_OK;
    if (a->def) st = pq_darrow_download(x, &d, a->def + k, sizeof d, err);
    if (st == PQ_OK && a->rep) st = pq_darrow_download(x, &r, a->rep + k, sizeof r, err);
    if (st != PQ_OK) return st;
    const char *why = d < 0 || d > a->max_def   ? "definition level out of range"
                      : r < 0 || r > a->max_rep ? "repetition level out of range"
                      : k == 0                  ? "the first entry must start a record (rep 0)"
                                                : "continues a list that is null, empty or absent";
    return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "levels: entry %llu (def %d, rep %d): %s", k, (int)d, (int)r, why);
}

/* Per-level state of a nested build on the host. */
typedef struct nest_run {
    pq_darrow_ctx *x;
    const pq_asm_level *levels;
    size_t nl;
    nest_plan plan;
    pq_knest_args a;            /* the template: levels, tables */
    uint32_t nblocks;
    unsigned long long *counts; /* host: per level, per block: opened, defined */
    unsigned long long *d_counts, *d_first;
    unsigned long long *d_bad;
    int16_t *d_list_def;
    unsigned long long count[PQ_ASM_MAX_LEVELS], defined[PQ_ASM_MAX_LEVELS];
    void *validity[PQ_ASM_MAX_LEVELS];
    int32_t *offsets[PQ_ASM_MAX_LEVELS];
} nest_run;

/* Level i's launch arguments. */
static pq_knest_args level_args(const nest_run *r, size_t i)
{
    pq_knest_args a = r->a;
    a.exist = r->plan.exist[i];
    a.lists_above = r->plan.lists_above[i];
    a.def_at = r->levels[i].def;
    a.is_list = r->levels[i].kind == PQ_ASM_LIST;
    if (a.is_list) {
        a.next_exist = r->plan.exist[i + 1];
        a.next_lists_above = r->plan.lists_above[i + 1];
    }
    a.counts = r->d_counts + i * (size_t)r->nblocks * 2;
    return a;
}

/* Every level counted (the entries checked with the first), the counts
 * scanned into each block's first slot per level. */
static pq_status nest_count(nest_run *r, pq_error *err)
{
    pq_darrow_ctx *x = r->x;
    size_t per = (size_t)r->nblocks * 2, all = per * r->nl;
    pq_status st;
    unsigned long long none = PQ_KNONE, bad = PQ_KNONE;
    if (!(r->counts = malloc(all * sizeof *r->counts + 8)))
        return pq_error_set(err, PQ_ERR_NOMEM, "device arrow: out of memory for level counts");
    if ((st = pq_darrow_alloc(x, all * 8, (void **)&r->d_counts, err)) != PQ_OK ||
        (st = dev_copy(x, &none, sizeof none, (void **)&r->d_bad, err)) != PQ_OK ||
        (st = dev_copy(x, r->plan.list_def, (size_t)r->plan.max_rep * 2, (void **)&r->d_list_def, err)) != PQ_OK)
        return st;
    r->a.bad = r->d_bad;
    r->a.list_def = r->d_list_def;
    for (size_t i = 0; i < r->nl; i++) {
        pq_knest_args a = level_args(r, i);
        a.check = i == 0;
        if ((st = launch(x, PQ_KN_COUNT, &a, r->nblocks, err)) != PQ_OK) return st;
        if (i == 0) {
            if ((st = pq_darrow_download(x, &bad, r->d_bad, sizeof bad, err)) != PQ_OK) return st;
            if (bad != PQ_KNONE) return entry_error(x, &r->a, bad, err);
        }
    }
    if ((st = pq_darrow_download(x, r->counts, r->d_counts, all * 8, err)) != PQ_OK) return st;
    /* In place: counts[level][block] = {first slot, first defined slot}. */
    for (size_t i = 0; i < r->nl; i++) {
        r->count[i] = exclusive_scan(r->counts + i * per, r->nblocks, 2, 0);
        r->defined[i] = exclusive_scan(r->counts + i * per, r->nblocks, 2, 1);
    }
    /* The first slots alone, level after level, for the fill. */
    for (size_t i = 0; i < r->nl; i++)
        for (size_t b = 0; b < r->nblocks; b++) r->counts[i * r->nblocks + b] = r->counts[i * per + 2 * b];
    if ((st = pq_darrow_alloc(x, (size_t)r->nblocks * r->nl * 8, (void **)&r->d_first, err)) != PQ_OK) return st;
    return pq_darrow_upload(x, r->d_first, r->counts, (size_t)r->nblocks * r->nl * 8, err);
}

/* Every level's validity and offsets. */
static pq_status nest_fill(nest_run *r, pq_error *err)
{
    pq_darrow_ctx *x = r->x;
    pq_status st;
    for (size_t i = 0; i < r->nl; i++) {
        bool list = r->levels[i].kind == PQ_ASM_LIST;
        if ((st = dev_calloc(x, (size_t)(r->count[i] + 31) / 32 * 4, &r->validity[i], err)) != PQ_OK) return st;
        if (list && (st = pq_darrow_alloc(x, (size_t)(r->count[i] + 1) * 4, (void **)&r->offsets[i], err)) != PQ_OK)
            return st;
        pq_knest_args a = level_args(r, i);
        a.first = r->d_first + i * (size_t)r->nblocks;
        a.validity = r->validity[i];
        a.offsets = r->offsets[i];
        a.count = r->count[i];
        if (list) {
            a.next_first = r->d_first + (i + 1) * (size_t)r->nblocks;
            a.next_count = r->count[i + 1];
        }
        if (r->nblocks == 0) { /* no entries: a list's one offset is 0 */
            if (list && (st = dev_zero(x, r->offsets[i], 4, err)) != PQ_OK) return st;
            continue;
        }
        if ((st = launch(x, PQ_KN_FILL, &a, r->nblocks, err)) != PQ_OK) return st;
    }
    return PQ_OK;
}

static void nest_run_free(nest_run *r)
{
    for (size_t i = 0; i < r->nl; i++) {
        pq_darrow_free(r->x, r->validity[i]);
        pq_darrow_free(r->x, r->offsets[i]);
    }
    pq_darrow_free(r->x, r->d_counts);
    pq_darrow_free(r->x, r->d_first);
    pq_darrow_free(r->x, r->d_bad);
    pq_darrow_free(r->x, r->d_list_def);
    free(r->counts);
}

/* Levels pq_assemble would refuse as missing (the host build stores a
 * leaf's left-out definition levels first, all max_def, when it has any),
 * and counts past its int32 slots. */
static pq_status check_nest_input(const pq_leaf *leaf, const pq_column_values *v, const nest_plan *p,
                                  pq_error *err)
{
    if (v->n_levels == 0) return PQ_OK;
    if ((!v->def_levels && leaf->max_def <= 0 && p->max_def > 0) || (!v->rep_levels && p->max_rep > 0))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "assemble: NULL levels or outputs");
    if (v->n_levels >= INT32_MAX)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "assemble: level 0 has more than INT32_MAX slots");
    return PQ_OK;
}

pq_status pq_darrow_build_nested(pq_darrow_ctx *x, const pq_leaf *leaf, const pq_asm_level *levels, size_t n_levels,
                                 pq_column_values *v, int64_t num_rows, pq_darrow_nested *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    pq_status st = check_flat_input(leaf, v, err);
    if (st != PQ_OK) return st;
    if (v->dictionary || v->views)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device arrow: column '%s': %s of a nested leaf are not covered",
                            leaf->path, v->views ? "string views" : "dictionary indices");
    nest_run *r = calloc(1, sizeof *r);
    if (!r) return pq_error_set(err, PQ_ERR_NOMEM, "device arrow: out of memory assembling '%s'", leaf->path);
    r->x = x;
    r->levels = levels;
    r->nl = n_levels;
    if ((st = pq_asm_check_levels(levels, n_levels, &r->plan.max_def, &r->plan.max_rep, err)) != PQ_OK) goto done;
    plan_nest(levels, n_levels, &r->plan);
    if ((st = check_nest_input(leaf, v, &r->plan, err)) != PQ_OK ||
        (st = blocks_for(x, v->n_levels, &r->nblocks, err)) != PQ_OK)
        goto done;
    r->a.n = v->n_levels;
    r->a.tile = tile_of(x);
    r->a.max_def = r->plan.max_def;
    r->a.max_rep = r->plan.max_rep;
    r->a.def_fill = leaf->max_def > 0 ? leaf->max_def : 0;
    r->a.def = v->def_levels;
    r->a.rep = v->rep_levels;
    if ((st = nest_count(r, err)) != PQ_OK) goto done;
    size_t leaf_level = n_levels - 1;
    unsigned long long records = r->count[0], values = r->defined[leaf_level];
    if (num_rows < 0 || records != (unsigned long long)num_rows || values != v->n_values) {
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                          "column '%s': %llu records and %llu values assembled, expected %lld and %zu", leaf->path,
                          records, values, (long long)num_rows, v->n_values);
        goto done;
    }
    if ((st = nest_fill(r, err)) != PQ_OK) goto done;
    out->n_levels = n_levels;
    for (size_t i = 0; i < leaf_level; i++) {
        pq_darrow_level *l = &out->levels[i];
        l->kind = levels[i].kind;
        l->length = (int64_t)r->count[i];
        l->null_count = (int64_t)(r->count[i] - r->defined[i]);
        if (l->null_count) l->validity = r->validity[i];
        else pq_darrow_free(x, r->validity[i]);
        l->offsets = r->offsets[i];
        r->validity[i] = NULL;
        r->offsets[i] = NULL;
    }
    /* The leaf's slots: its values spread by the leaf level's bitmap. */
    void *bits = r->validity[leaf_level];
    r->validity[leaf_level] = NULL;
    st = build_slots(x, leaf, v, (size_t)r->count[leaf_level], NULL, bits, &out->leaf, err);
    if (st != PQ_OK) pq_darrow_nested_free(x, out);
done:
    nest_run_free(r);
    free(r);
    return st;
}

/* ---------------------------------------------------------------------------
 * Export
 * ------------------------------------------------------------------------- */

/* An exported array's private data: its buffers, its dictionary's array,
 * a nested node's children and where they live. */
typedef struct exported {
    const void *buffers[5];
    struct ArrowArray *dictionary;
    struct ArrowArray **children; /* a nested node's (each malloc'd), or NULL */
    int64_t n_children;
    bool cuda;
} exported;

static void release_exported(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    exported *e = a->private_data;
    for (int i = 0; i < 5; i++) free_buffer(e->cuda, (void *)e->buffers[i]);
    if (e->dictionary) {
        if (e->dictionary->release) e->dictionary->release(e->dictionary);
        free(e->dictionary);
    }
    for (int64_t i = 0; i < e->n_children; i++) {
        if (e->children[i]->release) e->children[i]->release(e->children[i]);
        free(e->children[i]);
    }
    free(e->children);
    free(e);
    a->private_data = NULL;
    a->release = NULL;
}

pq_status pq_darrow_array_export(pq_darrow_ctx *x, pq_darrow_array *a, struct ArrowArray *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    exported *e = calloc(1, sizeof *e);
    struct ArrowArray *dict = a->dictionary ? calloc(1, sizeof *dict) : NULL;
    if (!e || (a->dictionary && !dict)) {
        free(e);
        free(dict);
        pq_darrow_array_free(x, a);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (dict) {
        pq_darrow_array *entries = a->dictionary;
        a->dictionary = NULL;
        pq_status st = pq_darrow_array_export(x, entries, dict, err);
        free(entries);
        if (st != PQ_OK) {
            free(e);
            free(dict);
            pq_darrow_array_free(x, a);
            return st;
        }
    }
    e->cuda = x->cuda;
    e->dictionary = dict;
    int64_t nb = 0;
    switch (a->layout) {
    case PQ_DARROW_NULL: nb = 0; break;
    case PQ_DARROW_BOOL:
    case PQ_DARROW_FIXED: nb = 2; break;
    case PQ_DARROW_VIEW: nb = 3 + (int64_t)a->n_view_bufs; break;
    default: nb = 3; break;
    }
    if (nb > 0) e->buffers[0] = a->validity;
    if (nb > 1) e->buffers[1] = a->values;
    if (a->layout == PQ_DARROW_VIEW) {
        for (size_t i = 0; i < a->n_view_bufs; i++) e->buffers[2 + i] = a->view_bufs[i];
        e->buffers[2 + a->n_view_bufs] = a->view_sizes;
        pq_darrow_free(x, a->data);
    } else {
        if (nb > 2) e->buffers[2] = a->data;
        /* A buffer the layout has no place for (none is made) is freed now. */
        if (nb < 1) pq_darrow_free(x, a->validity);
        if (nb < 2) pq_darrow_free(x, a->values);
        if (nb < 3) pq_darrow_free(x, a->data);
    }
    out->length = a->length;
    out->null_count = a->null_count;
    out->n_buffers = nb;
    out->buffers = nb ? e->buffers : NULL;
    out->dictionary = dict;
    out->private_data = e;
    out->release = release_exported;
    memset(a, 0, sizeof *a);
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * A nested field's tree (pq_darrow_field_export)
 * ------------------------------------------------------------------------- */

/* Level k of a leaf's nest (its array at the last level). */
typedef struct level_view {
    int32_t kind;
    int64_t length, null_count;
    const void *validity;
    const int32_t *offsets;
} level_view;

static level_view level_at(const pq_darrow_field_leaf *l, size_t k)
{
    const pq_darrow_nested *n = &l->nest;
    if (k + 1 < n->n_levels) {
        const pq_darrow_level *v = &n->levels[k];
        return (level_view){v->kind, v->length, v->null_count, v->validity, v->offsets};
    }
    return (level_view){PQ_ASM_LEAF, n->leaf.length, n->leaf.null_count, n->leaf.validity, NULL};
}

/* Level k of a node's first leaf, the one the node takes: its validity and
 * offsets brought to the host once, the first time another leaf's level is
 * compared with it. */
typedef struct level_ref {
    level_view v;
    bool fetched;
    uint8_t *validity; /* (length + 7) / 8 bytes, when a slot is null */
    int32_t *offsets;  /* a list's length + 1 */
} level_ref;

static void level_ref_free(level_ref *r)
{
    free(r->validity);
    free(r->offsets);
}

/* *same: whether n bytes of device memory at dev equal `host` (the last
 * byte's bits under `last_mask` only). */
static pq_status same_as_host(pq_darrow_ctx *x, const void *host, const void *dev, size_t n, uint8_t last_mask,
                              bool *same, pq_error *err)
{
    *same = n == 0;
    if (*same || !dev) return PQ_OK;
    uint8_t *h = malloc(n);
    pq_status st = h ? pq_darrow_download(x, h, dev, n, err) : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    const uint8_t *want = host;
    if (st == PQ_OK) *same = memcmp(want, h, n - 1) == 0 && ((want[n - 1] ^ h[n - 1]) & last_mask) == 0;
    free(h);
    return st;
}

/* *same: whether another leaf's level b agrees with the reference level, as
 * the host build compares them: the kind, the slots, each slot's validity
 * (NULL exactly when no slot is null) and a list's offsets. */
static pq_status same_level(pq_darrow_ctx *x, level_ref *ref, const level_view *b, bool *same, pq_error *err)
{
    const level_view *a = &ref->v;
    *same = a->kind == b->kind && a->length == b->length && a->null_count == b->null_count;
    bool list = a->kind == PQ_ASM_LIST;
    if (!*same || (!a->null_count && !list)) return PQ_OK;
    size_t count = (size_t)a->length, vbytes = (count + 7) / 8, obytes = (count + 1) * sizeof(int32_t);
    pq_status st = PQ_OK;
    if (!ref->fetched) {
        ref->fetched = true;
        if (a->null_count && !(ref->validity = malloc(vbytes ? vbytes : 1)))
            return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        if (list && !(ref->offsets = malloc(obytes))) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        if (a->null_count) st = pq_darrow_download(x, ref->validity, a->validity, vbytes, err);
        if (st == PQ_OK && list) st = pq_darrow_download(x, ref->offsets, a->offsets, obytes, err);
        if (st != PQ_OK) return st;
    }
    if (a->null_count)
        st = same_as_host(x, ref->validity, b->validity, vbytes, count % 8 ? (uint8_t)((1u << (count % 8)) - 1) : 0xff,
                          same, err);
    if (st == PQ_OK && *same && list) st = same_as_host(x, ref->offsets, b->offsets, obytes, 0xff, same, err);
    return st;
}

typedef struct field_tree {
    pq_darrow_ctx *x;
    pq_darrow_field_leaf *ls;
    uint64_t bytes;
} field_tree;

/* A node of the tree, for the nl leaves idx[] at level k (the host build's
 * nest_build, check for check and message for message); *out is released
 * on error. */
static pq_status tree_node(field_tree *t, const size_t *idx, size_t nl, size_t k, struct ArrowArray *out,
                           pq_error *err)
{
    memset(out, 0, sizeof *out);
    pq_darrow_field_leaf *f = &t->ls[idx[0]];
    level_ref ref = {.v = f->nest.n_levels > k ? level_at(f, k) : (level_view){0}};
    const level_view lv = ref.v;
    for (size_t i = 0; i < nl; i++) {
        const pq_darrow_field_leaf *l = &t->ls[idx[i]];
        bool same = l->nest.n_levels > k && f->nest.n_levels > k && l->keys[k] == f->keys[k];
        pq_status st = PQ_OK;
        if (same && i > 0) {
            level_view o = level_at(l, k);
            st = same_level(t->x, &ref, &o, &same, err);
        }
        if (st == PQ_OK && !same)
            st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "columns '%s' and '%s' disagree on their nesting", f->path,
                              l->path);
        if (st != PQ_OK) {
            level_ref_free(&ref);
            return st;
        }
    }
    level_ref_free(&ref);
    if (lv.kind == PQ_ASM_LEAF) {
        if (nl != 1 || k + 1 != f->nest.n_levels)
            return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': bad leaf level", f->path);
        t->bytes += pq_darrow_array_bytes(&f->nest.leaf);
        return pq_darrow_array_export(t->x, &f->nest.leaf, out, err);
    }
    for (size_t i = 0; i < nl; i++)
        if (t->ls[idx[i]].nest.n_levels <= k + 1)
            return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': bad nesting", t->ls[idx[i]].path);

    /* Children: runs of leaves that share the next level's node. */
    size_t runs = 0, count = (size_t)lv.length;
    for (size_t i = 0; i < nl; i++) runs += i == 0 || t->ls[idx[i]].keys[k + 1] != t->ls[idx[i - 1]].keys[k + 1];
    exported *e = calloc(1, sizeof *e);
    struct ArrowArray **kids = calloc(runs, sizeof *kids);
    if (!e || !kids) {
        free(e);
        free(kids);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    /* The node takes f's buffers of the level; the other leaves' copies go
     * with their nests. */
    pq_darrow_level *fl = &f->nest.levels[k];
    bool list = lv.kind == PQ_ASM_LIST;
    e->cuda = t->x->cuda;
    e->buffers[0] = fl->validity;
    if (list) e->buffers[1] = fl->offsets;
    e->children = kids;
    t->bytes += (fl->validity ? ((uint64_t)count + 7) / 8 : 0) + (list ? ((uint64_t)count + 1) * 4 : 0);
    fl->validity = NULL;
    fl->offsets = NULL;
    out->length = (int64_t)count;
    out->null_count = lv.null_count;
    out->n_buffers = list ? 2 : 1;
    out->buffers = e->buffers;
    out->children = kids;
    out->private_data = e;
    out->release = release_exported;

    pq_status st = PQ_OK;
    if (list && runs != 1)
        return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': a list with %zu elements", f->path, runs);
    for (size_t i = 0, start = 0; st == PQ_OK && i <= nl; i++) {
        if (!(i > start && (i == nl || t->ls[idx[i]].keys[k + 1] != t->ls[idx[start]].keys[k + 1]))) continue;
        struct ArrowArray *c = malloc(sizeof *c);
        if (!c) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        st = tree_node(t, idx + start, i - start, k + 1, c, err);
        kids[e->n_children++] = c; /* released with the node, built or not */
        out->n_children = e->n_children;
        if (st != PQ_OK) break;
        if (list) {
            int32_t end = 0;
            st = pq_darrow_download(t->x, &end, (const int32_t *)e->buffers[1] + count, sizeof end, err);
            if (st == PQ_OK && (end < 0 || end != c->length))
                st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': list offsets end at %d of %lld", f->path,
                                  end, (long long)c->length);
        } else if (c->length != (int64_t)count) {
            st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': struct child of %lld slots, not %zu",
                              t->ls[idx[start]].path, (long long)c->length, count);
        }
        start = i;
    }
    return st;
}

pq_status pq_darrow_field_export(pq_darrow_ctx *x, pq_darrow_field_leaf *leaves, size_t n, struct ArrowArray *out,
                                 uint64_t *bytes, pq_error *err)
{
    memset(out, 0, sizeof *out);
    if (bytes) *bytes = 0;
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    field_tree t = {x, leaves, 0};
    pq_status st = PQ_OK;
    if (n == 0) st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "a field without columns");
    else if (!idx) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == PQ_OK && i < n; i++) idx[i] = i;
    if (st == PQ_OK) st = tree_node(&t, idx, n, 0, out, err);
    if (st != PQ_OK && out->release) out->release(out);
    for (size_t i = 0; i < n; i++) pq_darrow_nested_free(x, &leaves[i].nest); /* what the tree did not take */
    free(idx);
    if (st == PQ_OK && bytes) *bytes = t.bytes;
    return st;
}
