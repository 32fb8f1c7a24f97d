/*
 * filter.c — a bound predicate compiled into the predicate kernel's
 * flat program (kernels/k_filter.h) and run on the host launcher or a CUDA
 * device. Argument checks and their messages are predicate_eval.c's, so a
 * caller sees the same errors whichever evaluates.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/k_decode.h"
#include "kernels/k_filter.h"
#include "metadata/error.h"
#include "device/filter.h"
#include "device/copies.h"
#include "device/cuda_runtime.h"
#include "predicate/predicate_eval.h"

/* Deepest expression the compiler recurses into. */
#define MAX_NESTING 512

/* A dictionary column's leaf, run over the entries before the program. */
typedef struct dict_job {
    pq_kfnode node;
    int64_t entries;
    uint8_t *entry_t, *entry_f; /* launch memory */
} dict_job;

typedef struct compiler {
    const pq_dfilter_exec *ex;
    const struct ArrowArray *const *columns;
    const struct ArrowSchema *const *schemas;
    const int16_t *const *row_defs;
    int64_t length;
    pq_kfnode *nodes;
    uint32_t nnodes, nodes_cap;
    dict_job *dicts;
    size_t ndicts, dicts_cap;
    uint8_t *pool; /* constants, 8-byte aligned entries */
    size_t pool_len, pool_cap;
    void **mem;    /* launch memory to free */
    size_t nmem, mem_cap;
    pq_error *err;
} compiler;

/* ---------------------------------------------------------------------------
 * Launch memory: device memory on CUDA, the heap on the host
 * ------------------------------------------------------------------------- */

static bool on_cuda(const compiler *c)
{
    return c->ex->where == PQ_DFILTER_CUDA;
}

static pq_status cuda_failed(compiler *c, const char *what, const char *why)
{
    return pq_error_set(c->err, PQ_ERR_UNSUPPORTED, "device filter: %s failed: %s", what, why ? why : "?");
}

/* n bytes (at least 1) of launch memory, freed with the compiler. */
static pq_status mem_alloc(compiler *c, size_t n, void **out)
{
    *out = NULL;
    if (c->nmem == c->mem_cap) {
        size_t cap = c->mem_cap ? 2 * c->mem_cap : 8;
        void **m = realloc(c->mem, cap * sizeof *m);
        if (!m) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
        c->mem = m;
        c->mem_cap = cap;
    }
    void *p = NULL;
    if (on_cuda(c)) {
        const char *why = NULL;
        if (pq_cuda_alloc(&p, n ? n : 1, &why)) return cuda_failed(c, "cudaMalloc", why);
    } else if (!(p = calloc(1, n ? n : 1))) {
        return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
    }
    c->mem[c->nmem++] = p;
    *out = p;
    return PQ_OK;
}

/* Host bytes into launch memory: a copy of its own. */
static pq_status mem_put(compiler *c, const void *src, size_t n, void **out)
{
    pq_status st = mem_alloc(c, n, out);
    if (st != PQ_OK || n == 0) return st;
    if (!on_cuda(c)) {
        memcpy(*out, src, n);
        return PQ_OK;
    }
    const char *why = NULL;
    if (pq_cuda_upload(c->ex->stream, *out, src, n, &why)) return cuda_failed(c, "upload", why);
    return PQ_OK;
}

static pq_status mem_get(compiler *c, void *dst, const void *src, size_t n)
{
    if (n == 0) return PQ_OK;
    if (!on_cuda(c)) {
        memcpy(dst, src, n);
        return PQ_OK;
    }
    const char *why = NULL;
    if (pq_cuda_download(c->ex->stream, dst, src, n, &why)) return cuda_failed(c, "download", why);
    return PQ_OK;
}

static void compiler_free(compiler *c)
{
    for (size_t k = 0; k < c->nmem; k++) {
        if (on_cuda(c)) pq_cuda_free(c->mem[k]);
        else free(c->mem[k]);
    }
    free(c->mem);
    free(c->nodes);
    free(c->dicts);
    free(c->pool);
}

/* ---------------------------------------------------------------------------
 * The constant pool
 * ------------------------------------------------------------------------- */

/* n bytes at an 8-byte aligned offset of the pool (*at), zeroed. */
static pq_status pool_reserve(compiler *c, size_t n, size_t *at)
{
    size_t start = (c->pool_len + 7) / 8 * 8;
    if (n > SIZE_MAX / 2 - start) return pq_error_set(c->err, PQ_ERR_NOMEM, "predicate constants too large");
    size_t end = start + n;
    if (end > c->pool_cap) {
        size_t cap = c->pool_cap ? c->pool_cap : 256;
        while (cap < end) cap *= 2;
        uint8_t *p = realloc(c->pool, cap);
        if (!p) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
        c->pool = p;
        c->pool_cap = cap;
    }
    memset(c->pool + c->pool_len, 0, end - c->pool_len);
    c->pool_len = end;
    *at = start;
    return PQ_OK;
}

/* Big-endian two's complement `be` (n bytes) as `w` bytes little-endian
 * into out; false when its value needs more than w bytes. */
static bool decimal_to_le(const uint8_t *be, size_t n, uint8_t *out, uint32_t w)
{
    uint8_t ext = n && (be[0] & 0x80) ? 0xff : 0x00;
    for (uint32_t k = 0; k < w; k++) out[k] = k < n ? be[n - 1 - k] : ext;
    for (size_t k = w; k < n; k++) /* bytes past w: only the sign, and the sign bit must agree */
        if (be[n - 1 - k] != ext) return false;
    return n <= w || (out[w - 1] & 0x80) == (ext & 0x80);
}

/* The node's literals in its slot representation. */
static pq_status put_constants(compiler *c, const pq_expr *e, pq_kfnode *nd)
{
    size_t n = e->nvalues, at = 0;
    pq_status st;
    nd->nconst = (uint32_t)n;
    switch (nd->value) {
    case PQ_KFV_INT:
    case PQ_KFV_BITS:
    case PQ_KFV_FLOAT:
        if ((st = pool_reserve(c, 8 * n, &at)) != PQ_OK) return st;
        for (size_t k = 0; k < n; k++) {
            if (nd->value == PQ_KFV_FLOAT) memcpy(c->pool + at + 8 * k, &e->values[k].d, 8);
            else memcpy(c->pool + at + 8 * k, &e->values[k].i, 8);
        }
        break;
    case PQ_KFV_WIDE:
        if ((st = pool_reserve(c, (size_t)nd->width * n, &at)) != PQ_OK) return st;
        for (size_t k = 0; k < n; k++) {
            uint8_t *out = c->pool + at + (size_t)nd->width * k;
            if (e->physical_type == PQ_INT32 || e->physical_type == PQ_INT64) {
                uint64_t x = (uint64_t)e->values[k].i;
                for (uint32_t b = 0; b < nd->width; b++) out[b] = b < 8 ? (uint8_t)(x >> (8 * b)) : (x >> 63 ? 0xff : 0);
            } else if (!decimal_to_le(e->values[k].bytes, e->values[k].len, out, nd->width)) {
                return pq_error_set(c->err, PQ_ERR_UNSUPPORTED,
                                    "device filter: column %.64s: a decimal literal wider than its %u-byte slots",
                                    e->column, nd->width);
            }
        }
        break;
    case PQ_KFV_NULL: break;
    default: { /* byte strings: (at, len) pairs, then the bytes */
        if ((st = pool_reserve(c, 16 * n, &at)) != PQ_OK) return st;
        for (size_t k = 0; k < n; k++) {
            size_t bat = 0;
            uint64_t len = e->values[k].len;
            if ((st = pool_reserve(c, e->values[k].len, &bat)) != PQ_OK) return st;
            if (len) memcpy(c->pool + bat, e->values[k].bytes, len);
            uint64_t pair[2] = {bat, len};
            memcpy(c->pool + at + 16 * k, pair, 16);
        }
        break;
    }
    }
    nd->const_at = at;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Leaves
 * ------------------------------------------------------------------------- */

/* The slot reading of an Arrow format (the formats predicate_eval.c
 * takes); false for others. */
static bool slot_kind(const char *f, pq_kfnode *nd, pq_slot_kind *kind_out, bool *is_signed, bool *is_decimal)
{
    pq_slot_kind kind;
    int width;
    *is_signed = *is_decimal = false;
    if (!pq_arrow_slot_kind(f, &kind, &width)) return false;
    *kind_out = kind;
    static const uint8_t value_of[] = {
        [PQ_SLOT_NULL] = PQ_KFV_NULL,        [PQ_SLOT_BOOL] = PQ_KFV_BITS,        [PQ_SLOT_INT] = PQ_KFV_INT,
        [PQ_SLOT_UINT] = PQ_KFV_INT,         [PQ_SLOT_F32] = PQ_KFV_FLOAT,        [PQ_SLOT_F64] = PQ_KFV_FLOAT,
        [PQ_SLOT_BIN32] = PQ_KFV_OFFSETS32,  [PQ_SLOT_BIN64] = PQ_KFV_OFFSETS64,  [PQ_SLOT_VIEW] = PQ_KFV_VIEW,
        [PQ_SLOT_FIXED] = PQ_KFV_FIXED,      [PQ_SLOT_DEC] = PQ_KFV_WIDE,
    };
    nd->value = value_of[kind];
    nd->width = (uint32_t)width;
    *is_signed = kind == PQ_SLOT_INT;
    *is_decimal = kind == PQ_SLOT_DEC;
    return true;
}

/* The compare flags of a comparison in the column's order; false when the
 * order does not fit the slots. */
static bool order_flags(const pq_expr *e, pq_kfnode *nd)
{
    bool int_backed = e->physical_type == PQ_INT32 || e->physical_type == PQ_INT64;
    switch (nd->value) {
    case PQ_KFV_NULL: return true;
    case PQ_KFV_INT:
    case PQ_KFV_BITS:
        if (e->order == PQ_ORDER_UNSIGNED) nd->flags |= PQ_KFF_UNSIGNED_ORDER;
        return e->order == PQ_ORDER_SIGNED || e->order == PQ_ORDER_UNSIGNED;
    case PQ_KFV_FLOAT: return e->order == PQ_ORDER_FLOAT;
    case PQ_KFV_WIDE:
        /* The CPU compares an INT32 / INT64 column's decimal slot by its
         * low word (its high bytes are the sign, as pqstep writes them). */
        if (int_backed && nd->width <= 16) nd->flags |= PQ_KFF_LOW64;
        return int_backed ? e->order == PQ_ORDER_SIGNED : e->order == PQ_ORDER_DECIMAL_BYTES;
    default:
        if (e->order == PQ_ORDER_DECIMAL_BYTES) nd->flags |= PQ_KFF_DECIMAL_BYTES;
        return e->order == PQ_ORDER_BYTES || e->order == PQ_ORDER_DECIMAL_BYTES;
    }
}

static uint8_t leaf_op(const pq_expr *e)
{
    if (e->kind == PQ_NODE_IS_NULL) return e->is_null ? PQ_KFOP_IS_NULL : PQ_KFOP_IS_NOT_NULL;
    if (e->kind == PQ_NODE_IN) return PQ_KFOP_IN;
    return (uint8_t)(PQ_KFOP_EQ + (int)e->op);
}

/* Array a / schema s of `length` rows as the slots of leaf e. */
static pq_status compile_slots(compiler *c, const pq_expr *e, const struct ArrowArray *a,
                               const struct ArrowSchema *s, int64_t length, pq_kfnode *nd)
{
    bool is_signed, is_decimal;
    pq_slot_kind kind;
    if (!a || !s || !s->format)
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: no array for column %d (%.64s)", e->leaf,
                            e->column);
    if (!slot_kind(s->format, nd, &kind, &is_signed, &is_decimal))
        return pq_error_set(c->err, PQ_ERR_UNSUPPORTED, "predicate: Arrow format '%.32s' of column %.64s", s->format,
                            e->column);
    if (!pq_slot_kind_fits(kind, s->format, e))
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT,
                            "predicate: Arrow format '%.32s' does not fit column %.64s", s->format, e->column);
    if (a->length < length || a->offset < 0)
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: column %.64s has %lld rows, %lld needed",
                            e->column, (long long)a->length, (long long)length);
    if (is_signed) nd->flags |= PQ_KFF_SIGNED_LOAD;
    if (e->kind == PQ_NODE_CMP && e->nvalues != 1)
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: a comparison without its value");
    if (e->kind != PQ_NODE_IS_NULL && !order_flags(e, nd))
        return pq_error_set(c->err, PQ_ERR_UNSUPPORTED,
                            "device filter: column %.64s: a comparison in value order %d on Arrow format '%.32s'",
                            e->column, (int)e->order, s->format);
    if (nd->value == PQ_KFV_NULL || length == 0) { /* nothing read */
        nd->value = PQ_KFV_NULL;
        return e->kind == PQ_NODE_IS_NULL ? PQ_OK : put_constants(c, e, nd);
    }
    bool strings = nd->value == PQ_KFV_OFFSETS32 || nd->value == PQ_KFV_OFFSETS64 || nd->value == PQ_KFV_VIEW;
    int64_t need = strings ? 3 : 2;
    if (a->n_buffers < need || !a->buffers || !a->buffers[1] || (need == 3 && !a->buffers[2]))
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: column %.64s lacks buffers", e->column);
    nd->offset = a->offset;
    nd->valid = a->null_count != 0 ? (const uint8_t *)a->buffers[0] : NULL;
    nd->data = (const uint8_t *)a->buffers[1];
    if (nd->value == PQ_KFV_VIEW) { /* validity, views, data buffers..., their sizes */
        nd->nview_bufs = a->n_buffers - 3;
        void *table;
        pq_status st = mem_put(c, a->buffers + 2, (size_t)nd->nview_bufs * sizeof(void *), &table);
        if (st != PQ_OK) return st;
        nd->view_bufs = (const uint8_t *const *)table;
    } else if (strings) {
        nd->bytes = (const uint8_t *)a->buffers[2];
    }
    return e->kind == PQ_NODE_IS_NULL ? PQ_OK : put_constants(c, e, nd);
}

/* A dictionary array's leaf: a job over its entries, and the node that
 * maps the rows' indices to their entries' results. */
static pq_status compile_dictionary(compiler *c, const pq_expr *e, const struct ArrowArray *a,
                                    const struct ArrowSchema *s, pq_kfnode *nd)
{
    if (strcmp(s->format, "i") != 0 || !a->dictionary || !s->dictionary)
        return pq_error_set(c->err, PQ_ERR_UNSUPPORTED,
                            "predicate: dictionary column %.64s: indices of format '%.16s' (int32 expected)",
                            e->column, s->format);
    if (a->length < c->length || a->offset < 0 || (c->length && (a->n_buffers < 2 || !a->buffers[1])))
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: column %.64s has %lld rows, %lld needed",
                            e->column, (long long)a->length, (long long)c->length);
    if (s->dictionary->dictionary)
        return pq_error_set(c->err, PQ_ERR_UNSUPPORTED, "device filter: column %.64s: a dictionary of dictionaries",
                            e->column);
    dict_job job = {.node = {.op = leaf_op(e)}, .entries = a->dictionary->length};
    if (job.entries < 0 || job.entries > INT32_MAX)
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: column %.64s: a dictionary of %lld entries",
                            e->column, (long long)job.entries);
    pq_status st = compile_slots(c, e, a->dictionary, s->dictionary, job.entries, &job.node);
    size_t bytes = (size_t)(job.entries + 7) / 8;
    if (st == PQ_OK) st = mem_alloc(c, bytes, (void **)&job.entry_t);
    if (st == PQ_OK) st = mem_alloc(c, bytes, (void **)&job.entry_f);
    if (st != PQ_OK) return st;
    if (c->ndicts == c->dicts_cap) {
        size_t cap = c->dicts_cap ? 2 * c->dicts_cap : 4;
        dict_job *d = realloc(c->dicts, cap * sizeof *d);
        if (!d) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
        c->dicts = d;
        c->dicts_cap = cap;
    }
    c->dicts[c->ndicts++] = job;
    nd->value = PQ_KFV_DICT;
    nd->offset = a->offset;
    nd->valid = a->null_count != 0 && a->n_buffers > 0 ? (const uint8_t *)a->buffers[0] : NULL;
    nd->data = c->length ? (const uint8_t *)a->buffers[1] : NULL;
    nd->entry_t = job.entry_t;
    nd->entry_f = job.entry_f;
    nd->nentries = job.entries;
    return PQ_OK;
}

static pq_status compile_leaf(compiler *c, const pq_expr *e, pq_kfnode *nd)
{
    nd->op = leaf_op(e);
    if (e->kind == PQ_NODE_IS_NULL && e->node_def > 0) { /* a group: its first leaf's levels */
        const int16_t *defs = c->row_defs ? c->row_defs[e->leaf] : NULL;
        if (!defs && c->length > 0)
            return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT,
                                "predicate: no definition levels for the group of column %d", (int)e->leaf);
        nd->value = PQ_KFV_DEFS;
        nd->defs = defs;
        nd->def_level = e->node_def;
        return PQ_OK;
    }
    const struct ArrowArray *a = c->columns ? c->columns[e->leaf] : NULL;
    const struct ArrowSchema *s = c->schemas ? c->schemas[e->leaf] : NULL;
    if (a && s && s->dictionary) return compile_dictionary(c, e, a, s, nd);
    return compile_slots(c, e, a, s, c->length, nd);
}

/* ---------------------------------------------------------------------------
 * The program
 * ------------------------------------------------------------------------- */

/* Stack depth the subtree needs with the deeper operand first; -1 when it
 * is malformed or nested past MAX_NESTING (emit says which). */
static int depth_of(const pq_expr *e, int nesting)
{
    if (!e || nesting > MAX_NESTING) return -1;
    if (e->kind == PQ_NODE_NOT) return depth_of(e->kids[0], nesting + 1);
    if (e->kind != PQ_NODE_AND && e->kind != PQ_NODE_OR) return 1;
    int a = depth_of(e->kids[0], nesting + 1), b = depth_of(e->kids[1], nesting + 1);
    if (a < 0 || b < 0) return -1;
    return a == b ? a + 1 : a > b ? a : b;
}

static pq_status push_node(compiler *c, const pq_kfnode *nd)
{
    if (c->nnodes >= PQ_DFILTER_MAX_NODES)
        return pq_error_set(c->err, PQ_ERR_UNSUPPORTED, "device filter: a predicate of more than %u nodes",
                            PQ_DFILTER_MAX_NODES);
    if (c->nnodes == c->nodes_cap) {
        uint32_t cap = c->nodes_cap ? 2 * c->nodes_cap : 16;
        pq_kfnode *n = realloc(c->nodes, cap * sizeof *n);
        if (!n) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
        c->nodes = n;
        c->nodes_cap = cap;
    }
    c->nodes[c->nnodes++] = *nd;
    return PQ_OK;
}

static pq_status emit(compiler *c, const pq_expr *e, int nesting)
{
    if (!e) return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: a node without operands");
    if (nesting > MAX_NESTING)
        return pq_error_set(c->err, PQ_ERR_UNSUPPORTED, "device filter: a predicate nested deeper than %d",
                            MAX_NESTING);
    pq_kfnode nd = {0};
    pq_status st;
    switch (e->kind) {
    case PQ_NODE_CONST: nd.op = e->truth ? PQ_KFOP_TRUE : PQ_KFOP_FALSE; break;
    case PQ_NODE_NOT:
        if ((st = emit(c, e->kids[0], nesting + 1)) != PQ_OK) return st;
        nd.op = PQ_KFOP_NOT;
        break;
    case PQ_NODE_AND:
    case PQ_NODE_OR: { /* Kleene AND / OR commute: the deeper side first keeps the stack shallow */
        int first = depth_of(e->kids[1], nesting + 1) > depth_of(e->kids[0], nesting + 1) ? 1 : 0;
        if ((st = emit(c, e->kids[first], nesting + 1)) != PQ_OK) return st;
        if ((st = emit(c, e->kids[1 - first], nesting + 1)) != PQ_OK) return st;
        nd.op = e->kind == PQ_NODE_AND ? PQ_KFOP_AND : PQ_KFOP_OR;
        break;
    }
    default:
        if (e->leaf < 0) return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "predicate: not bound");
        if (e->kind == PQ_NODE_BBOX) /* WKB envelopes: the CPU evaluator's */
            return pq_error_set(c->err, PQ_ERR_UNSUPPORTED, "device filter: bbox_intersects is not in the kernel");
        if (e->variant_depth) /* residual variant values decoded per row: the CPU evaluator's */
            return pq_error_set(c->err, PQ_ERR_UNSUPPORTED, "device filter: a path into a VARIANT is not in the kernel");
        if ((st = compile_leaf(c, e, &nd)) != PQ_OK) return st;
        break;
    }
    return push_node(c, &nd);
}

/* Runs `a` over `rows` rows where the exec says. */
static pq_status launch(compiler *c, const pq_kfilter_args *a, int64_t rows, uint32_t nthreads)
{
    int64_t per_block = (int64_t)nthreads * PQ_KF_ROWS_PER_THREAD;
    int64_t nblocks = (rows + per_block - 1) / per_block;
    if (nblocks > 0x7fffffff)
        return pq_error_set(c->err, PQ_ERR_UNSUPPORTED, "device filter: %lld rows are more than one launch holds",
                            (long long)rows);
    if (on_cuda(c)) {
        const char *why = NULL;
        if (pq_kfilter_cuda(c->ex->stream, a, (uint32_t)nblocks, nthreads, &why))
            return cuda_failed(c, "the predicate kernel", why);
        return PQ_OK;
    }
    if (pq_kfilter_host(a, (uint32_t)nblocks, nthreads, c->ex->launch_flags))
        return pq_error_set(c->err, PQ_ERR_NOMEM, "device filter: the host launcher could not start");
    return PQ_OK;
}

static pq_status run(compiler *c, uint8_t *keep_bits, int64_t *kept)
{
    uint32_t nthreads = c->ex->nthreads ? c->ex->nthreads : 256;
    if (nthreads > PQ_KMAX_THREADS)
        return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "device filter: %u threads a block (at most %u)",
                            nthreads, PQ_KMAX_THREADS);
    int64_t per_block = (int64_t)nthreads * PQ_KF_ROWS_PER_THREAD;
    size_t nbytes = (size_t)((c->length + 7) / 8);
    size_t nblocks = (size_t)((c->length + per_block - 1) / per_block);
    /* The dictionary jobs' nodes, then the program's, in one array. */
    size_t total = c->ndicts + c->nnodes;
    pq_kfnode *all = malloc((total ? total : 1) * sizeof *all);
    if (!all) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < c->ndicts; k++) all[k] = c->dicts[k].node;
    memcpy(all + c->ndicts, c->nodes, c->nnodes * sizeof *all);
    unsigned long long none = PQ_KF_NONE, bad = PQ_KF_NONE;
    void *nodes = NULL, *consts = NULL, *bad_row = NULL, *counts = NULL, *keep = NULL;
    pq_status st = mem_put(c, all, total * sizeof *all, &nodes);
    free(all);
    if (st == PQ_OK) st = mem_put(c, c->pool, c->pool_len, &consts);
    if (st == PQ_OK) st = mem_put(c, &none, sizeof none, &bad_row);
    if (st == PQ_OK) st = mem_alloc(c, nblocks * sizeof(unsigned long long), &counts);
    if (st == PQ_OK) st = on_cuda(c) ? mem_alloc(c, nbytes, &keep) : PQ_OK;
    for (size_t k = 0; st == PQ_OK && k < c->ndicts; k++) {
        pq_kfilter_args da = {(const pq_kfnode *)nodes + k, 1, consts, c->dicts[k].entries, c->dicts[k].entry_t,
                              c->dicts[k].entry_f, NULL, bad_row};
        st = launch(c, &da, c->dicts[k].entries, nthreads);
    }
    pq_kfilter_args ma = {(const pq_kfnode *)nodes + c->ndicts, c->nnodes, consts, c->length,
                          on_cuda(c) ? keep : keep_bits, NULL, counts, bad_row};
    if (st == PQ_OK) st = launch(c, &ma, c->length, nthreads);
    if (st == PQ_OK && on_cuda(c)) st = mem_get(c, keep_bits, keep, nbytes);
    if (st == PQ_OK) st = mem_get(c, &bad, bad_row, sizeof bad);
    if (st == PQ_OK && bad != PQ_KF_NONE)
        st = pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT,
                          "predicate: the dictionary index at row %llu is outside its dictionary", bad);
    unsigned long long *per = st == PQ_OK ? malloc((nblocks ? nblocks : 1) * sizeof *per) : NULL;
    if (st == PQ_OK && !per) st = pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
    if (st == PQ_OK) st = mem_get(c, per, counts, nblocks * sizeof *per);
    unsigned long long sum = 0;
    for (size_t k = 0; st == PQ_OK && k < nblocks; k++) sum += per[k];
    free(per);
    if (st == PQ_OK && kept) *kept = (int64_t)sum;
    return st;
}

pq_status pq_device_filter_eval(const pq_expr *e, const struct ArrowArray *const *columns,
                                const struct ArrowSchema *const *schemas, const int16_t *const *row_defs,
                                int64_t length, const pq_dfilter_exec *ex, uint8_t *keep_bits, int64_t *kept,
                                pq_error *err)
{
    static const pq_dfilter_exec host = {PQ_DFILTER_HOST, NULL, 256, 0};
    if (kept) *kept = 0;
    if (!e || (length > 0 && !keep_bits) || length < 0)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_device_filter_eval: NULL or negative argument");
    if (!e->bound) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_device_filter_eval: predicate not bound");
    if (ex && ex->where != PQ_DFILTER_HOST && ex->where != PQ_DFILTER_CUDA)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_device_filter_eval: unknown executor %u", ex->where);
    compiler c = {.ex = ex ? ex : &host, .columns = columns, .schemas = schemas, .row_defs = row_defs,
                  .length = length, .err = err};
    size_t nbytes = (size_t)((length + 7) / 8);
    int depth = depth_of(e, 0);
    pq_status st = emit(&c, e, 0);
    if (st == PQ_OK && (depth < 0 || depth > (int)PQ_KF_MAX_DEPTH))
        st = pq_error_set(err, PQ_ERR_UNSUPPORTED, "device filter: a predicate needing a stack deeper than %u",
                          PQ_KF_MAX_DEPTH);
    if (st == PQ_OK && length > 0) st = run(&c, keep_bits, kept);
    compiler_free(&c);
    if (st != PQ_OK && nbytes) memset(keep_bits, 0, nbytes);
    return st;
}

/* ---------------------------------------------------------------------------
 * Columns on the host, the kernel where the caller says
 * ------------------------------------------------------------------------- */

/* A zero-byte buffer gets no device copy (pq_arrow_array_copy leaves it
 * NULL) where the kernel takes a present buffer to be non-NULL: point it
 * at `stub`, which holds no byte the kernel reads. */
static void stub_empty_buffers(struct ArrowArray *dev, const struct ArrowArray *src, const void *stub)
{
    for (int64_t i = 0; i < dev->n_buffers && i < src->n_buffers; i++)
        if (src->buffers[i] && !dev->buffers[i]) dev->buffers[i] = stub;
    if (dev->dictionary && src->dictionary) stub_empty_buffers(dev->dictionary, src->dictionary, stub);
}

/* Back to NULL before the copy releases its buffers (the stub is freed once). */
static void unstub_buffers(struct ArrowArray *dev, const void *stub)
{
    for (int64_t i = 0; i < dev->n_buffers; i++)
        if (dev->buffers[i] == stub) dev->buffers[i] = NULL;
    if (dev->dictionary) unstub_buffers(dev->dictionary, stub);
}

/* The predicate kernel on the CUDA device: the filter's columns (leaves[0..nl),
 * schema->leaves_len entries by leaf) and definition levels copied to device
 * memory on a stream of this call's own (row groups run in parallel), the
 * keep bits brought back. A failed CUDA call is PQ_ERR_UNSUPPORTED, naming
 * it, so the caller evaluates on the CPU instead. */
static pq_status run_on_cuda(const pq_expr *filter, const struct ArrowArray *const *by_leaf,
                              const struct ArrowSchema *const *types, const int16_t *const *defs_by_leaf,
                              const uint32_t *leaves, size_t nl, size_t leaves_len, int64_t len, uint8_t *keep,
                              pq_error *err)
{
    void *stream = NULL;
    const char *why = NULL;
    if (pq_cuda_stream_create(&stream, &why) != 0)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device filter: creating a CUDA stream failed: %s",
                            why ? why : "?");
    pq_device_memory mem = pq_device_memory_to_cuda(stream);
    void *stub = NULL;
    if (pq_cuda_alloc(&stub, 8, &why) != 0) {
        pq_cuda_stream_destroy(stream);
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device filter: cudaMalloc failed: %s", why ? why : "?");
    }
    const struct ArrowArray **dev_cols = calloc(leaves_len ? leaves_len : 1, sizeof *dev_cols);
    const int16_t **dev_defs = calloc(leaves_len ? leaves_len : 1, sizeof *dev_defs);
    struct ArrowArray *copies = calloc(nl ? nl : 1, sizeof *copies);
    void **defs_mem = calloc(nl ? nl : 1, sizeof *defs_mem);
    pq_status st = dev_cols && dev_defs && copies && defs_mem ? PQ_OK
                                                               : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    for (size_t k = 0; st == PQ_OK && k < nl; k++) {
        uint32_t leaf = leaves[k];
        if (leaf >= leaves_len) continue; /* pq_expr_columns gives bound leaves */
        if (by_leaf[leaf] && !dev_cols[leaf]) {
            st = pq_arrow_array_copy(by_leaf[leaf], types[leaf], &mem, &copies[k], err);
            if (st != PQ_OK && st != PQ_ERR_NOMEM && st != PQ_ERR_UNSUPPORTED) { /* the CPU may still take it */
                char what[PQ_ERROR_MESSAGE_SIZE];
                snprintf(what, sizeof what, "%s", err ? err->message : "?");
                st = pq_error_set(err, PQ_ERR_UNSUPPORTED, "device filter: copying a column to the device: %.180s",
                                  what);
            }
            if (st == PQ_OK) {
                stub_empty_buffers(&copies[k], by_leaf[leaf], stub);
                dev_cols[leaf] = &copies[k];
            }
        }
        if (st == PQ_OK && defs_by_leaf[leaf] && !dev_defs[leaf] && len > 0) {
            if (mem.copy_in(stream, defs_by_leaf[leaf], (size_t)len * sizeof(int16_t), &defs_mem[k], &why) != 0)
                st = pq_error_set(err, PQ_ERR_UNSUPPORTED,
                                  "device filter: copying definition levels to the device failed: %s",
                                  why ? why : "?");
            else
                dev_defs[leaf] = defs_mem[k];
        }
    }
    pq_dfilter_exec ex = {.where = PQ_DFILTER_CUDA, .stream = stream};
    if (st == PQ_OK) st = pq_device_filter_eval(filter, dev_cols, types, dev_defs, len, &ex, keep, NULL, err);
    for (size_t k = 0; copies && k < nl; k++)
        if (copies[k].release) {
            unstub_buffers(&copies[k], stub);
            copies[k].release(&copies[k]);
        }
    pq_cuda_free(stub);
    for (size_t k = 0; defs_mem && k < nl; k++) pq_cuda_free(defs_mem[k]);
    free(copies);
    free(defs_mem);
    free(dev_cols);
    free(dev_defs);
    pq_cuda_stream_destroy(stream);
    return st;
}

pq_status pq_device_filter_run(const pq_expr *filter, const struct ArrowArray *const *by_leaf,
                               const struct ArrowSchema *const *types, const int16_t *const *defs_by_leaf,
                               const uint32_t *leaves, size_t nl, size_t leaves_len, int64_t len, bool cuda,
                               uint8_t *keep, pq_error *err)
{
    if (cuda) return run_on_cuda(filter, by_leaf, types, defs_by_leaf, leaves, nl, leaves_len, len, keep, err);
    static const pq_dfilter_exec host = {.where = PQ_DFILTER_HOST};
    return pq_device_filter_eval(filter, by_leaf, types, defs_by_leaf, len, &host, keep, NULL, err);
}
