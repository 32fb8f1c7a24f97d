/*
 * test_device_arrow.c — Arrow buffers built by the kernels
 * (device/arrow.h, kernels/k_arrow_build.h) run on the host, phase
 * by phase, against the host build of reader/arrow_column.c and arrow_nested.c.
 *
 * Oracle: pq_arrow_column_build (flat leaves) and pq_arrow_nested_build
 * (a nested field of one leaf: its levels assembled by kernels/assemble.c)
 * on the same decoded chunk, exported as Arrow C arrays: every buffer byte
 * for byte (validity and boolean bits up to the array's length), the
 * lengths, the null counts, which buffers are absent, and the status and
 * message when the host build fails. Over every column chunk of every
 * corpus file and of the generated matrix in PQSTEP_MATRIX_DIR (written
 * and set by ctest's gen_matrix setup test), each chunk five ways: 256 threads a block, 7 threads
 * with each phase's threads last to first, 1 thread, and 32 and 5 (the
 * latter reversed) threads with device memory apart from the host's (the
 * inputs uploaded, the outputs downloaded, as on a GPU); with a CUDA
 * device, on it too. Hand-made columns cover every conversion (integer
 * widths signed and unsigned, decimals from every physical type and
 * FLBA length 1..20, float16, dates, times, fixed-size binary, booleans,
 * strings and large strings), with random nulls, and the errors.
 *
 * Nested fields of several leaves (structs, maps, lists of structs): every
 * such field of every row group of the corpus and the matrix, each leaf
 * built by the kernels and the leaves joined by pq_darrow_field_export,
 * against pq_arrow_nested_build of the same leaves (the values compared
 * at every depth, pq_test_arrays_differ, and the bytes held), the host
 * ways; then again with the second leaf's definition levels changed at
 * one entry, where both must fail with the same status and message (among
 * them leaves that disagree on a level they share).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/assemble.h"
#include "device/cuda_runtime.h"
#include "kernels/k_launch.h"
#include "pages/cpu_exec.h"
#include "device/arrow.h"
#include "pages/page_walk.h"
#include "pqstep.h"
#include "reader/arrow_batch.h"
#include "reader/arrow_nested.h"
#include "test_util.h"

static const struct {
    unsigned threads, flags;
    bool apart;
} host_ways[] = {{256, 0, false}, {7, PQ_KLAUNCH_REVERSE, false}, {1, 0, false}, {32, 0, true},
                 {5, PQ_KLAUNCH_REVERSE, true}};
#define NHOST (sizeof host_ways / sizeof host_ways[0])

/* ---------------------------------------------------------------------------
 * Copies of decoded values: the host build and each device way take theirs
 * ------------------------------------------------------------------------- */

static void *dup_bytes(const void *p, size_t n)
{
    if (!p) return NULL;
    void *q = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(q);
    if (n) memcpy(q, p, n);
    return q;
}

static size_t offsets_bytes(const pq_column_values *v)
{
    return v->offsets ? (v->n_values + 1) * sizeof(int32_t) : 0;
}

/* Every buffer of v (views, their data and a dictionary's included)
 * through copy(ctx, p, n). */
static pq_column_values clone_with(void *(*copy)(void *, const void *, size_t), void *ctx, const pq_column_values *v)
{
    pq_column_values c = *v;
    c.def_levels = copy(ctx, v->def_levels, v->n_levels * 2);
    c.rep_levels = copy(ctx, v->rep_levels, v->n_levels * 2);
    c.values = copy(ctx, v->values, v->n_values * v->width);
    c.offsets = copy(ctx, v->offsets, offsets_bytes(v));
    c.data = copy(ctx, v->data, v->data_len);
    c.views = copy(ctx, v->views, v->n_values * 16);
    for (size_t i = 0; i < v->n_view_bufs; i++) c.view_bufs[i] = copy(ctx, v->view_bufs[i], v->view_buf_lens[i]);
    if (v->dictionary) {
        c.dictionary = malloc(sizeof *c.dictionary);
        ck_assert_ptr_nonnull(c.dictionary);
        *c.dictionary = clone_with(copy, ctx, v->dictionary);
    }
    return c;
}

static void *host_copy(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    return dup_bytes(p, n);
}

static pq_column_values host_clone(const pq_column_values *v)
{
    return clone_with(host_copy, NULL, v);
}

/* One buffer into the context's device memory (NULL stays NULL). */
static void *to_device(pq_darrow_ctx *x, const void *p, size_t n)
{
    if (!p) return NULL;
    void *d = NULL;
    pq_error err = {0};
    ck_assert_int_eq(pq_darrow_alloc(x, n, &d, &err), PQ_OK);
    ck_assert_int_eq(pq_darrow_upload(x, d, p, n, &err), PQ_OK);
    return d;
}

static void *device_copy(void *ctx, const void *p, size_t n)
{
    return to_device(ctx, p, n);
}

/* The values as the kernels see them on this context. */
static pq_column_values device_clone(pq_darrow_ctx *x, const pq_column_values *v)
{
    if (!x->apart) return host_clone(v);
    return clone_with(device_copy, x, v);
}

static void device_values_free(pq_darrow_ctx *x, pq_column_values *v)
{
    void *bufs[] = {v->def_levels, v->rep_levels, v->values, v->offsets, v->data, v->views};
    for (size_t i = 0; i < 6; i++) pq_darrow_free(x, bufs[i]);
    for (size_t i = 0; i < v->n_view_bufs; i++) pq_darrow_free(x, v->view_bufs[i]);
    if (v->dictionary) {
        device_values_free(x, v->dictionary);
        free(v->dictionary);
    }
    memset(v, 0, sizeof *v);
}

/* n bytes of device memory, on the host (malloc'd, NULL for NULL). */
static uint8_t *fetch(pq_darrow_ctx *x, const void *dev, size_t n)
{
    if (!dev) return NULL;
    uint8_t *h = malloc(n + 1);
    pq_error err = {0};
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(pq_darrow_download(x, h, dev, n, &err), PQ_OK);
    return h;
}

/* ---------------------------------------------------------------------------
 * Comparing with the exported host build
 * ------------------------------------------------------------------------- */

/* The first n bits of a and b agree (both NULL counts as agreeing). */
static bool same_bits(const uint8_t *a, const uint8_t *b, int64_t n)
{
    if (!a || !b) return a == b;
    for (int64_t i = 0; i < n; i++)
        if (((a[i >> 3] >> (i & 7)) & 1) != ((b[i >> 3] >> (i & 7)) & 1)) return false;
    return true;
}

static bool same_bytes(const void *a, const void *b, size_t n)
{
    if (!a || !b) return a == b && n == 0;
    return n == 0 || memcmp(a, b, n) == 0;
}

/* NULL when validity, length and nulls agree, else what differs. */
static const char *diff_validity(pq_darrow_ctx *x, const struct ArrowArray *o, int64_t length, int64_t nulls,
                                 const void *validity)
{
    if (o->length != length) return "length";
    if (o->null_count != nulls) return "null_count";
    if (o->n_buffers == 0) return validity ? "validity of the null type" : NULL;
    uint8_t *v = fetch(x, validity, (size_t)(length + 7) / 8);
    bool same = same_bits(o->buffers[0], v, length);
    free(v);
    return same ? NULL : "validity";
}

/* Bytes a slot of fixed-width format f (decimal64 too: "d:p,s,64"). */
static size_t fixed_width(const char *f)
{
    size_t l = strlen(f);
    if (f[0] == 'd' && l > 3 && strcmp(f + l - 3, ",64") == 0) return 8;
    return pq_test_arrow_fixed_width(f);
}

/* NULL when array a equals the host build's node o (format f), else what differs. */
static const char *diff_array(pq_darrow_ctx *x, const struct ArrowArray *o, const char *f, const pq_darrow_array *a)
{
    const char *bad = diff_validity(x, o, a->length, a->null_count, a->validity);
    if (bad) return bad;
    int64_t n = a->length;
    uint8_t *values = fetch(x, a->values, a->values_bytes), *data = fetch(x, a->data, a->data_len);
    switch (a->layout) {
    case PQ_DARROW_NULL:
        if (strcmp(f, "n") != 0 || o->n_buffers != 0) bad = "layout (null)";
        break;
    case PQ_DARROW_BOOL:
        if (strcmp(f, "b") != 0) bad = "layout (bool)";
        else if (!same_bits(o->buffers[1], values, n)) bad = "bits";
        break;
    case PQ_DARROW_FIXED:
        if (fixed_width(f) != a->width) bad = "width";
        else if (a->values_bytes != (size_t)n * a->width || !same_bytes(o->buffers[1], values, a->values_bytes))
            bad = "values";
        break;
    case PQ_DARROW_BINARY:
    case PQ_DARROW_LARGE_BINARY: {
        bool large = a->layout == PQ_DARROW_LARGE_BINARY;
        if ((large ? strchr("UZ", f[0]) : strchr("uz", f[0])) == NULL || f[1]) bad = "layout (binary)";
        else if (a->values_bytes != (size_t)(n + 1) * (large ? 8 : 4) ||
                 !same_bytes(o->buffers[1], values, a->values_bytes))
            bad = "offsets";
        else if (!same_bytes(o->buffers[2], data, a->data_len)) bad = "data";
        break;
    }
    case PQ_DARROW_VIEW: {
        /* validity, views, the data buffers, their sizes (host) */
        int64_t nvar = o->n_buffers - 3;
        const int64_t *sizes = nvar >= 0 ? o->buffers[o->n_buffers - 1] : NULL;
        int64_t *dsizes = (int64_t *)fetch(x, a->view_sizes, a->n_view_bufs * 8);
        if (f[0] != 'v' || nvar != (int64_t)a->n_view_bufs) bad = "layout (views)";
        else if (a->values_bytes != (size_t)n * 16 || !same_bytes(o->buffers[1], values, a->values_bytes))
            bad = "views";
        for (int64_t i = 0; !bad && i < nvar; i++) {
            uint8_t *buf = fetch(x, a->view_bufs[i], a->view_buf_lens[i]);
            if (sizes[i] != (int64_t)a->view_buf_lens[i] || dsizes[i] != sizes[i]) bad = "view buffer sizes";
            else if (!same_bytes(o->buffers[2 + i], buf, a->view_buf_lens[i])) bad = "view buffer";
            free(buf);
        }
        free(dsizes);
        break;
    }
    default: bad = "layout";
    }
    free(values);
    free(data);
    if (!bad && (a->dictionary != NULL) != (o->dictionary != NULL)) bad = "dictionary present";
    return bad;
}

/* NULL when a nested leaf's levels and array equal the host build's chain. */
static const char *diff_nested(pq_darrow_ctx *x, const struct ArrowArray *o, const char *leaf_format,
                               const pq_darrow_nested *d)
{
    for (size_t k = 0; k + 1 < d->n_levels; k++) {
        const pq_darrow_level *l = &d->levels[k];
        bool list = l->kind == PQ_ASM_LIST;
        /* A list has validity and offsets, a struct validity alone; a field
         * of one leaf has one child at every level. */
        if (o->n_buffers != (list ? 2 : 1)) return "level kind";
        if (o->n_children != 1) return "level children";
        const char *bad = diff_validity(x, o, l->length, l->null_count, l->validity);
        if (bad) return bad;
        if (list) {
            uint8_t *off = fetch(x, l->offsets, (size_t)(l->length + 1) * 4);
            bool same = same_bytes(o->buffers[1], off, (size_t)(l->length + 1) * 4);
            free(off);
            if (!same) return "list offsets";
        }
        o = o->children[0];
    }
    return diff_array(x, o, leaf_format, &d->leaf);
}

/* ---------------------------------------------------------------------------
 * One chunk, every way
 * ------------------------------------------------------------------------- */

#define MAX_REASONS 16

typedef struct tally {
    long chunks, flat, nested;  /* chunks compared */
    long equal;                 /* every way equal */
    long both_failed;           /* the same status and message both ways */
    long unsupported;           /* left to the host build */
    long mismatches;
    long not_decoded;           /* the CPU decoder refused the chunk: nothing to build */
    long views, indices;        /* of the chunks: decoded as string views, as dictionary indices */
    long slot_dictionaries;     /* ... built as dictionary arrays of an entry a slot */
    struct {
        char what[96];
        long n;
    } reasons[MAX_REASONS];
    int nreasons;
    uint64_t launches;
} tally;

static void count_reason(tally *t, const char *message)
{
    char what[96];
    const char *s = strstr(message, "device arrow: ");
    s = s ? s + strlen("device arrow: ") : message;
    const char *col = strstr(s, "': ");
    if (col) s = col + 3; /* the reason, not the column */
    snprintf(what, sizeof what, "%s", s);
    for (int i = 0; i < t->nreasons; i++)
        if (strcmp(t->reasons[i].what, what) == 0) {
            t->reasons[i].n++;
            return;
        }
    if (t->nreasons < MAX_REASONS) {
        snprintf(t->reasons[t->nreasons].what, sizeof t->reasons[0].what, "%s", what);
        t->reasons[t->nreasons++].n = 1;
    }
}

/* What a chunk is built as: a flat leaf, or a nested field of one leaf. */
typedef struct shape {
    const pq_schema *schema;
    const pq_metadata *md;  /* NULL: hand-made (nesting checked against pq_assemble) */
    uint32_t column;
    char format[64];        /* the leaf's Arrow format */
    bool nested;
    int32_t field;
    pq_asm_level levels[PQ_ASM_MAX_LEVELS];
    size_t n_levels;
    int64_t num_rows;
    unsigned flags;         /* how the chunk was decoded (PQ_DECODE_*) */
    bool slot_dictionary;   /* built as a dictionary array of its decoded values, an entry a slot */
} shape;

/* The host build of v: status, message, and on success the exported array
 * and schema (one field). */
typedef struct oracle {
    pq_status st;
    pq_error err;
    struct ArrowArray batch;
    /* hand-made nesting: pq_assemble's levels, and the records it found */
    pq_asm_out *out;
    int64_t records;
} oracle;

/* Hand-made nesting: every level by pq_assemble, the leaf's array by
 * pq_arrow_column_build from the leaf level's bits (as the host build
 * does for a nested leaf). */
static void oracle_assemble(const shape *sh, const pq_leaf *leaf, const pq_column_values *v, oracle *o)
{
    size_t n = v->n_levels, nl = sh->n_levels;
    o->out = calloc(nl, sizeof *o->out);
    ck_assert_ptr_nonnull(o->out);
    for (size_t k = 0; k < nl; k++) {
        o->out[k].cap = n;
        o->out[k].validity = calloc((n + 7) / 8 + 1, 1);
        if (sh->levels[k].kind == PQ_ASM_LIST) o->out[k].offsets = malloc((n + 1) * sizeof(int32_t));
    }
    pq_asm_result res;
    o->st = pq_assemble(sh->levels, nl, v->def_levels, v->rep_levels, n, SIZE_MAX, o->out, &res, &o->err);
    if (o->st != PQ_OK) return;
    o->records = (int64_t)res.records;
    const pq_asm_out *lo = &o->out[nl - 1];
    pq_column_values c = host_clone(v);
    free(c.rep_levels);
    c.rep_levels = NULL;
    c.n_levels = lo->count;
    for (size_t i = 0; i < lo->count; i++)
        c.def_levels[i] = (lo->validity[i >> 3] >> (i & 7)) & 1 ? leaf->max_def : 0;
    pq_arrow_column *col = NULL;
    o->st = pq_arrow_column_build(leaf, &c, &col, &o->err);
    pq_column_values_free(&c);
    if (o->st != PQ_OK) return;
    pq_error err = {0};
    ck_assert_int_eq(pq_arrow_batch_export(&col, NULL, 1, pq_arrow_column_length(col), &o->batch, &err), PQ_OK);
    pq_arrow_column_release(col);
}

/* NULL when a nested leaf's levels equal pq_assemble's and its array the
 * host build's. */
static const char *diff_assembled(pq_darrow_ctx *x, const shape *sh, const oracle *o, const pq_darrow_nested *d)
{
    if (d->n_levels != sh->n_levels) return "levels";
    for (size_t k = 0; k + 1 < d->n_levels; k++) {
        const pq_darrow_level *l = &d->levels[k];
        const pq_asm_out *a = &o->out[k];
        if (l->kind != sh->levels[k].kind) return "level kind";
        if ((size_t)l->length != a->count || (size_t)l->null_count != a->nulls) return "level slots or nulls";
        if ((l->validity != NULL) != (a->nulls > 0)) return "level validity present";
        uint8_t *bits = fetch(x, l->validity, (size_t)(l->length + 7) / 8);
        bool same = !bits || same_bits(a->validity, bits, l->length);
        free(bits);
        if (!same) return "level validity";
        if (l->kind == PQ_ASM_LIST) {
            uint8_t *off = fetch(x, l->offsets, (size_t)(l->length + 1) * 4);
            same = same_bytes(a->offsets, off, (size_t)(l->length + 1) * 4);
            free(off);
            if (!same) return "level offsets";
        }
    }
    return diff_array(x, o->batch.children[0], sh->format, &d->leaf);
}

static void oracle_build(const shape *sh, const pq_leaf *leaf, const pq_column_values *v, oracle *o)
{
    memset(o, 0, sizeof *o);
    o->records = sh->num_rows;
    if (sh->nested && !sh->md) {
        oracle_assemble(sh, leaf, v, o);
        return;
    }
    pq_column_values c = host_clone(v);
    pq_arrow_column *col = NULL;
    o->st = sh->nested                         ? pq_arrow_nested_build(sh->schema, sh->field, &leaf, &c, 1, sh->num_rows,
                                                                     &col, &o->err)
            : (sh->flags & PQ_DECODE_INDICES) || sh->slot_dictionary ? pq_arrow_column_build_dictionary(leaf, &c, &col, &o->err)
                                               : pq_arrow_column_build(leaf, &c, &col, &o->err);
    pq_column_values_free(&c);
    if (o->st != PQ_OK) return;
    pq_error err = {0};
    ck_assert_int_eq(pq_arrow_batch_export(&col, NULL, 1, pq_arrow_column_length(col), &o->batch, &err), PQ_OK);
    pq_arrow_column_release(col);
}

static void oracle_free(const shape *sh, oracle *o)
{
    if (o->batch.release) o->batch.release(&o->batch);
    for (size_t k = 0; o->out && k < sh->n_levels; k++) {
        free(o->out[k].validity);
        free(o->out[k].offsets);
    }
    free(o->out);
}

/* The device build of v on x, compared with o: NULL, or what differs.
 * *unsupported_msg gets the message of a chunk left to the host. */
static const char *device_way(pq_darrow_ctx *x, const shape *sh, const pq_leaf *leaf, const pq_column_values *v,
                              const oracle *o, char *unsupported_msg, size_t cap)
{
    pq_column_values dv = device_clone(x, v);
    pq_error err = {0};
    pq_darrow_nested *nest = calloc(1, sizeof *nest);
    pq_darrow_array flat;
    ck_assert_ptr_nonnull(nest);
    pq_status st = sh->nested            ? pq_darrow_build_nested(x, leaf, sh->levels, sh->n_levels, &dv, o->records, nest, &err)
                   : sh->slot_dictionary ? pq_darrow_build_dictionary_slots(x, leaf, &dv, &flat, &err)
                                         : pq_darrow_build_flat(x, leaf, &dv, &flat, &err);
    const char *bad = NULL;
    unsupported_msg[0] = 0;
    if (st == PQ_ERR_UNSUPPORTED && strstr(err.message, "device arrow: ")) {
        snprintf(unsupported_msg, cap, "%s", err.message);
    } else if (st != o->st) {
        bad = "status";
    } else if (st != PQ_OK) {
        if (strcmp(err.message, o->err.message) != 0) bad = "message";
    } else {
        const struct ArrowArray *oa = o->batch.children[0];
        if (sh->nested && !sh->md) bad = diff_assembled(x, sh, o, nest);
        else if (sh->nested) bad = diff_nested(x, oa, sh->format, nest);
        else if (flat.dictionary) { /* the int32 indices, then the entries */
            bad = diff_array(x, oa, "i", &flat);
            if (!bad) bad = diff_array(x, oa->dictionary, sh->format, flat.dictionary);
        } else {
            bad = diff_array(x, oa, sh->format, &flat);
        }
    }
    if (bad)
        fprintf(stderr, "  host build %s \"%s\"; device %s \"%s\"\n", pq_status_name(o->st), o->err.message,
                pq_status_name(st), err.message);
    if (st == PQ_OK) {
        if (sh->nested) pq_darrow_nested_free(x, nest);
        else pq_darrow_array_free(x, &flat);
    }
    free(nest);
    if (x->apart) device_values_free(x, &dv);
    else pq_column_values_free(&dv);
    return bad;
}

static void check_values(tally *t, const char *what, shape *sh, const pq_leaf *leaf, const pq_column_values *v,
                         bool big, bool cuda)
{
    /* The leaf's Arrow format, for its layout and width ("vu" / "vz" for views). */
    if (pq_arrow_format(&leaf->arrow, sh->format, sizeof sh->format) != PQ_OK) snprintf(sh->format, 8, "?");
    if (v->views && strlen(sh->format) == 1 && strchr("uz", sh->format[0]))
        snprintf(sh->format, sizeof sh->format, "v%c", leaf->arrow.id == PQ_ARROW_BINARY ? 'z' : 'u');
    if (v->views) t->views++;
    if (v->dictionary) t->indices++;
    if (sh->slot_dictionary) t->slot_dictionaries++;
    oracle o;
    oracle_build(sh, leaf, v, &o);
    t->chunks++;
    if (sh->nested) t->nested++;
    else t->flat++;
    size_t nways = (big ? 1 : NHOST) + (cuda ? 1 : 0);
    bool all_equal = true;
    for (size_t w = 0; w < nways; w++) {
        bool on_cuda = cuda && w == nways - 1;
        pq_darrow_options opt = {.use_cuda = on_cuda};
        if (!on_cuda) {
            opt.threads = host_ways[w].threads;
            opt.host_flags = host_ways[w].flags;
            opt.host_apart = host_ways[w].apart;
        }
        pq_darrow_ctx x;
        pq_error err = {0};
        ck_assert_msg(pq_darrow_open(&x, &opt, &err) == PQ_OK, "%s", err.message);
        char unsupported[256];
        const char *bad = device_way(&x, sh, leaf, v, &o, unsupported, sizeof unsupported);
        t->launches += x.launches;
        pq_darrow_close(&x);
        if (bad) {
            t->mismatches++;
            all_equal = false;
            fprintf(stderr, "MISMATCH %s (%s) way %zu: %s\n", what, leaf->path, w, bad);
        } else if (unsupported[0]) {
            all_equal = false;
            if (w == 0) {
                t->unsupported++;
                count_reason(t, unsupported);
            }
        }
    }
    if (all_equal) {
        if (o.st == PQ_OK) t->equal++;
        else t->both_failed++;
    }
    oracle_free(sh, &o);
}

/* The top-level field above leaf node j (the root's child). */
static int32_t top_field(const pq_schema *s, int32_t j)
{
    while (j > 0 && s->nodes[j].parent > 0) j = s->nodes[j].parent;
    return j;
}

static void check_file(tally *t, const char *path, const char *name, bool cuda)
{
    size_t len = 0;
    uint8_t *file = NULL;
    pq_error err = {0};
    pq_metadata *md = pq_test_read_parsed(path, &file, &len, &err);
    if (!md) return;
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_schema *schema = pq_metadata_schema(md);
    shape *sh = calloc(1, sizeof *sh);
    ck_assert_ptr_nonnull(sh);
    for (uint32_t rg = 0; rg < fm->row_groups_len; rg++) {
        const pq_row_group *g = &fm->row_groups[rg];
        for (uint32_t col = 0; col < g->columns_len && col < schema->leaves_len; col++) {
            const pq_column_chunk *cc = g->columns[col];
            const pq_leaf *leaf = &schema->leaves[col];
            if (leaf->physical_type == PQ_INT96) { /* built on the host alone (range-checked there) */
                ck_assert(!pq_darrow_covers(leaf, 0));
                continue;
            }
            uint64_t off = 0, clen = 0;
            pq_page_info *pages = NULL;
            size_t n = 0;
            pq_error e = {0};
            if (pq_chunk_byte_range_for_writer(cc, fm->created_by, len, &off, &clen, &e) != PQ_OK ||
                pq_page_walk(file + off, clen, cc->meta_data.num_values, 0, &pages, &n, NULL, &e) != PQ_OK) {
                t->not_decoded++;
                free(pages);
                continue;
            }
            uint64_t unpacked = 0;
            for (size_t i = 0; i < n; i++)
                if (pages[i].uncompressed_size > 0) unpacked += (uint64_t)pages[i].uncompressed_size;
            bool big = unpacked > ((uint64_t)64 << 20);
            /* As values; then as string views and as dictionary indices
             * where the chunk can be (not the big ones: the decode's time). */
            /* As values, string views, dictionary indices, and values built
             * as a dictionary array of an entry a slot. */
            unsigned ways[4] = {0, PQ_DECODE_STRING_VIEWS, PQ_DECODE_INDICES, 0};
            for (int k = 0; k < 4; k++) {
                if (k > 0 && big) break;
                bool flat = leaf->max_rep == 0 && top_field(schema, leaf->node) == leaf->node;
                if (k > 0 && !flat) break; /* views and indices of flat leaves (nested: the host's) */
                if (k == 1 && leaf->physical_type != PQ_BYTE_ARRAY) continue;
                if (k == 2 && !pq_pages_all_dictionary(pages, n)) continue;
                pq_column_values v = {0};
                if (pq_column_decode_flags(NULL, leaf, cc->meta_data.codec, file + off, (size_t)clen, pages, n, 0,
                                           ways[k], NULL, &v, &e) != PQ_OK) {
                    if (k == 0) t->not_decoded++;
                    continue;
                }
                memset(sh, 0, sizeof *sh);
                sh->schema = schema;
                sh->md = md;
                sh->column = col;
                sh->num_rows = g->num_rows;
                sh->flags = ways[k];
                sh->slot_dictionary = k == 3;
                sh->field = top_field(schema, leaf->node);
                sh->nested = leaf->max_rep > 0 || sh->field != leaf->node;
                if (sh->nested &&
                    pq_arrow_leaf_levels(schema, sh->field, leaf, sh->levels, NULL, &sh->n_levels, &e) != PQ_OK) {
                    t->not_decoded++;
                    pq_column_values_free(&v);
                    break;
                }
                char what[512];
                snprintf(what, sizeof what, "%s rg %u col %u%s", name, rg, col,
                         k == 1 ? " (views)" : k == 2 ? " (indices)" : k == 3 ? " (a dictionary of its slots)" : "");
                check_values(t, what, sh, leaf, &v, big, cuda);
                pq_column_values_free(&v);
            }
            free(pages);
        }
    }
    free(sh);
    pq_metadata_release(md);
    free(file);
}

static void print_tally(const char *what, const tally *t)
{
    printf("%s: %ld chunks (%ld flat, %ld nested; %ld as string views, %ld as dictionary indices, %ld as dictionary "
           "arrays of an entry a slot): %ld equal every way, %ld failed the same way, %ld unsupported, %ld "
           "mismatches (%ld not decoded); %llu kernel launches\n",
           what, t->chunks, t->flat, t->nested, t->views, t->indices, t->slot_dictionaries, t->equal, t->both_failed,
           t->unsupported,
           t->mismatches, t->not_decoded, (unsigned long long)t->launches);
    for (int i = 0; i < t->nreasons; i++) printf("  unsupported: %ld x %s\n", t->reasons[i].n, t->reasons[i].what);
}

/* ---------------------------------------------------------------------------
 * Nested fields of several leaves: each leaf built by the kernels, the
 * leaves joined into one tree (pq_darrow_field_export), against
 * pq_arrow_nested_build of the same leaves
 * ------------------------------------------------------------------------- */

typedef struct field_tally {
    long fields;      /* fields of several leaves compared */
    long equal;       /* equal every way */
    long both_failed; /* the same status and message every way */
    long disagree;    /* of those: leaves that disagree on a shared level */
    long mutated;     /* fields also compared with one leaf's levels changed */
    long mismatches;
    long skipped;     /* a leaf the CPU does not decode, or that the kernels do not lay out */
} field_tally;

/* One way (host_ways[w]) of field `field` (leaves cols[0..m), values vals)
 * against the host build; false on a mismatch (printed). */
static bool field_way(field_tally *t, const char *what, const pq_metadata *md, int32_t field, const uint32_t *cols,
                      size_t m, const pq_column_values *vals, int64_t num_rows, size_t w, pq_status *status,
                      char *message)
{
    const pq_schema *schema = pq_metadata_schema(md);
    const pq_leaf **leaves = calloc(m, sizeof *leaves);
    pq_column_values *hv = calloc(m, sizeof *hv);
    pq_darrow_field_leaf *fl = calloc(m, sizeof *fl);
    ck_assert(leaves && hv && fl);
    for (size_t i = 0; i < m; i++) {
        leaves[i] = &schema->leaves[cols[i]];
        hv[i] = host_clone(&vals[i]);
    }
    pq_arrow_column *col = NULL;
    pq_error herr = {0}, derr = {0};
    pq_status hst = pq_arrow_nested_build(schema, field, leaves, hv, m, num_rows, &col, &herr);
    for (size_t i = 0; i < m; i++) pq_column_values_free(&hv[i]);

    pq_darrow_options opt = {.threads = host_ways[w].threads, .host_flags = host_ways[w].flags,
                             .host_apart = host_ways[w].apart};
    pq_darrow_ctx x;
    ck_assert_int_eq(pq_darrow_open(&x, &opt, &derr), PQ_OK);
    pq_status dst = PQ_OK;
    for (size_t i = 0; dst == PQ_OK && i < m; i++) {
        pq_asm_level levels[PQ_ASM_MAX_LEVELS];
        size_t nl = 0;
        fl[i].path = leaves[i]->path;
        ck_assert_int_eq(pq_arrow_leaf_levels(schema, field, leaves[i], levels, fl[i].keys, &nl, &derr), PQ_OK);
        pq_column_values dv = device_clone(&x, &vals[i]);
        dst = pq_darrow_build_nested(&x, leaves[i], levels, nl, &dv, num_rows, &fl[i].nest, &derr);
        device_values_free(&x, &dv);
    }
    struct ArrowArray darr = {0};
    uint64_t bytes = 0;
    if (dst == PQ_OK) dst = pq_darrow_field_export(&x, fl, m, &darr, &bytes, &derr);
    else
        for (size_t i = 0; i < m; i++) pq_darrow_nested_free(&x, &fl[i].nest);

    char why[2 * PQ_ERROR_MESSAGE_SIZE + 64] = "";
    if (hst != dst || (hst != PQ_OK && strcmp(herr.message, derr.message) != 0)) {
        snprintf(why, sizeof why, "host %s \"%s\", device %s \"%s\"", pq_status_name(hst), herr.message,
                 pq_status_name(dst), derr.message);
    } else if (hst == PQ_OK) {
        struct ArrowArray batch;
        struct ArrowSchema sch;
        pq_error e = {0};
        ck_assert_int_eq(pq_arrow_batch_export(&col, NULL, 1, pq_arrow_column_length(col), &batch, &e), PQ_OK);
        ck_assert_int_eq(pq_metadata_arrow_schema(md, cols, m, &sch, &e), PQ_OK);
        ck_assert_int_eq(sch.n_children, 1);
        char d[400];
        const char *bad = pq_test_arrays_differ(batch.children[0], &darr, sch.children[0], d, sizeof d);
        if (bad) snprintf(why, sizeof why, "%s", bad);
        else if (bytes != pq_arrow_column_bytes(col))
            snprintf(why, sizeof why, "%llu device bytes, %llu host bytes", (unsigned long long)bytes,
                     (unsigned long long)pq_arrow_column_bytes(col));
        batch.release(&batch);
        sch.release(&sch);
    }
    if (darr.release) darr.release(&darr);
    pq_arrow_column_release(col);
    pq_darrow_close(&x);
    free(leaves);
    free(hv);
    free(fl);
    *status = hst;
    snprintf(message, PQ_ERROR_MESSAGE_SIZE, "%s", herr.message);
    if (!why[0]) return true;
    t->mismatches++;
    fprintf(stderr, "MISMATCH %s way %zu: %s\n", what, w, why);
    return false;
}

/* Every way of one field; counted. */
static void check_field(field_tally *t, const char *what, const pq_metadata *md, int32_t field, const uint32_t *cols,
                        size_t m, const pq_column_values *vals, int64_t num_rows)
{
    pq_status st = PQ_OK;
    char message[PQ_ERROR_MESSAGE_SIZE];
    bool ok = true;
    for (size_t w = 0; w < NHOST; w++)
        ok = field_way(t, what, md, field, cols, m, vals, num_rows, w, &st, message) && ok;
    if (!ok) return;
    if (st == PQ_OK) t->equal++;
    else t->both_failed++;
    if (st != PQ_OK && strstr(message, "disagree on their nesting")) t->disagree++;
}

/* The second leaf's definition levels changed at its first entry below
 * the leaf's maximum (a null at some level made a null or empty one at
 * another, so its values stay as many): the leaves then disagree on a
 * shared level, or the change breaks the leaf's own assembly; both builds
 * must say the same. False when no entry can be changed. */
static bool mutate_second_leaf(pq_column_values *v, int16_t max_def)
{
    if (pq_column_values_definition_levels(v, max_def) != PQ_OK || !v->def_levels) return false;
    for (size_t i = 0; i < v->n_levels; i++) {
        int16_t d = v->def_levels[i];
        if (d > 0 && d < max_def) {
            v->def_levels[i] = (int16_t)(d - 1);
            return true;
        }
        if (d == 0 && max_def > 1) {
            v->def_levels[i] = 1;
            return true;
        }
    }
    return false;
}

/* Every top-level field of several leaves in every row group of a file. */
static void check_fields_of_file(field_tally *t, const char *path, const char *name)
{
    size_t len = 0;
    uint8_t *file = NULL;
    pq_error err = {0};
    pq_metadata *md = pq_test_read_parsed(path, &file, &len, &err);
    if (!md) return;
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_schema *schema = pq_metadata_schema(md);
    uint32_t *cols = calloc(schema->leaves_len + 1, sizeof *cols);
    pq_column_values *vals = calloc(schema->leaves_len + 1, sizeof *vals);
    ck_assert(cols && vals);
    for (uint32_t rg = 0; rg < fm->row_groups_len; rg++) {
        const pq_row_group *g = &fm->row_groups[rg];
        for (uint32_t a = 0; a < schema->leaves_len && a < g->columns_len;) {
            int32_t field = top_field(schema, schema->leaves[a].node);
            uint32_t b = a + 1;
            while (b < schema->leaves_len && b < g->columns_len && top_field(schema, schema->leaves[b].node) == field)
                b++;
            size_t m = b - a, got = 0;
            bool usable = m >= 2;
            for (uint32_t c = a; usable && c < b; c++, got++) {
                const pq_column_chunk *cc = g->columns[c];
                const pq_leaf *leaf = &schema->leaves[c];
                uint64_t off = 0, clen = 0;
                pq_page_info *pages = NULL;
                size_t n = 0;
                pq_error e = {0};
                usable = pq_darrow_covers(leaf, 0) &&
                         pq_chunk_byte_range_for_writer(cc, fm->created_by, len, &off, &clen, &e) == PQ_OK &&
                         pq_page_walk(file + off, clen, cc->meta_data.num_values, 0, &pages, &n, NULL, &e) == PQ_OK;
                uint64_t unpacked = 0;
                for (size_t i = 0; usable && i < n; i++)
                    if (pages[i].uncompressed_size > 0) unpacked += (uint64_t)pages[i].uncompressed_size;
                usable = usable && unpacked <= ((uint64_t)16 << 20) &&
                         pq_column_decode_flags(NULL, leaf, cc->meta_data.codec, file + off, (size_t)clen, pages, n,
                                                0, 0, NULL, &vals[got], &e) == PQ_OK;
                if (!usable) memset(&vals[got], 0, sizeof vals[got]);
                cols[got] = c;
                free(pages);
            }
            if (m >= 2 && !usable) t->skipped++;
            if (usable) {
                char what[512];
                snprintf(what, sizeof what, "%s rg %u field '%s' (%zu leaves)", name, rg, schema->nodes[field].name,
                         m);
                t->fields++;
                check_field(t, what, md, field, cols, m, vals, g->num_rows);
                if (mutate_second_leaf(&vals[1], schema->leaves[cols[1]].max_def)) {
                    t->mutated++;
                    strncat(what, ", second leaf's levels changed", sizeof what - strlen(what) - 1);
                    check_field(t, what, md, field, cols, m, vals, g->num_rows);
                }
            }
            for (size_t i = 0; i < got; i++) pq_column_values_free(&vals[i]);
            a = b;
        }
    }
    free(cols);
    free(vals);
    pq_metadata_release(md);
    free(file);
}

/* Every file of a set, named by `names`, at `dir`/name (dir NULL: in the
 * corpus); the tally printed under `what` and checked. */
static void check_set(const char *what, const char *dir, char **names, int n, bool need_nested)
{
    bool cuda = pq_cuda_device_count(NULL) > 0;
    tally t;
    memset(&t, 0, sizeof t);
    field_tally ft;
    memset(&ft, 0, sizeof ft);
    for (int i = 0; i < n; i++) {
        char *path = dir ? malloc(strlen(dir) + strlen(names[i]) + 2) : pq_test_corpus_path(names[i]);
        ck_assert_ptr_nonnull(path);
        if (dir) sprintf(path, "%s/%s", dir, names[i]);
        check_file(&t, path, names[i], cuda);
        check_fields_of_file(&ft, path, names[i]);
        free(path);
    }
    char title[128];
    snprintf(title, sizeof title, "%s (host launches%s)", what, cuda ? " and CUDA" : "; no CUDA device");
    print_tally(title, &t);
    printf("%s, fields of several leaves (host launches): %ld fields (%ld also with a leaf's levels changed): %ld "
           "equal every way, %ld failed the same way (%ld as leaves that disagree on their nesting), %ld "
           "mismatches; %ld not compared (a leaf not decoded or not laid out by the kernels)\n",
           what, ft.fields, ft.mutated, ft.equal, ft.both_failed, ft.disagree, ft.mismatches, ft.skipped);
    ck_assert_int_eq(ft.mismatches, 0);
    if (need_nested) { /* the corpus has structs, maps and lists of structs */
        ck_assert_int_gt(ft.equal, 0);
        ck_assert_int_gt(ft.disagree, 0);
    }
    ck_assert_int_eq(t.mismatches, 0);
    /* Every type, nesting and output (values, string views, dictionary
     * indices of flat leaves) is covered. */
    ck_assert_int_eq(t.unsupported, 0);
    ck_assert_int_gt(t.equal, 0);
    if (need_nested) { /* the corpus has strings and dictionaries of every kind */
        ck_assert_int_gt(t.views, 0);
        ck_assert_int_gt(t.indices, 0);
    }
    if (need_nested) ck_assert_int_gt(t.nested, 0);
}

START_TEST(corpus_equals_the_host_build)
{
    char **files = NULL;
    int nfiles = pq_test_corpus_files(&files);
    if (nfiles == 0) pq_test_skip("no corpus (PQSTEP_TEST_CORPUS or ../shared/parquet-testing)");
    check_set("corpus", NULL, files, nfiles, true);
    pq_test_free_files(files, nfiles);
}
END_TEST

/* The generated matrix, when PQSTEP_MATRIX_DIR holds it. */
START_TEST(matrix_equals_the_host_build)
{
    const char *dir = getenv("PQSTEP_MATRIX_DIR");
    if (!dir || !*dir) {
        printf("matrix: PQSTEP_MATRIX_DIR not set (tests/fixtures/gen_matrix.py writes it): not run\n");
        return;
    }
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "PQSTEP_MATRIX_DIR %s: cannot open", dir);
    char **names = NULL;
    int n = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t l = strlen(de->d_name);
        if (l < 8 || strcmp(de->d_name + l - 8, ".parquet") != 0) continue;
        names = realloc(names, (size_t)(n + 1) * sizeof *names);
        ck_assert_ptr_nonnull(names);
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    check_set("matrix", dir, names, n, false);
    pq_test_free_files(names, n);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Hand-made columns: every conversion, random nulls
 * ------------------------------------------------------------------------- */

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* n slots with random definition levels (max_def 1, about `null_pct`
 * percent null; none when max_def is 0) and random values of the type. */
static pq_column_values random_values(int32_t type, size_t width, size_t n, int null_pct, int16_t max_def,
                                      size_t max_len)
{
    pq_column_values v = {0};
    v.physical_type = type;
    v.n_levels = n;
    v.width = type == PQ_BYTE_ARRAY ? 0 : width;
    if (max_def > 0) {
        v.def_levels = malloc(n * 2 + 2);
        for (size_t i = 0; i < n; i++) {
            v.def_levels[i] = (int)(rnd() % 100) < null_pct ? 0 : max_def;
            v.n_values += v.def_levels[i] == max_def;
        }
    } else {
        v.n_values = n;
    }
    if (type == PQ_BYTE_ARRAY) {
        v.offsets = malloc((v.n_values + 1) * 4);
        v.offsets[0] = 0;
        for (size_t j = 0; j < v.n_values; j++) v.offsets[j + 1] = v.offsets[j] + (int32_t)(rnd() % (max_len + 1));
        v.data_len = (size_t)v.offsets[v.n_values];
        v.data = malloc(v.data_len + 1);
        for (size_t k = 0; k < v.data_len; k++) v.data[k] = (uint8_t)rnd();
    } else {
        v.values = malloc(v.n_values * width + 1);
        for (size_t k = 0; k < v.n_values * width; k++) v.values[k] = (uint8_t)rnd();
        if (type == PQ_BOOLEAN)
            for (size_t k = 0; k < v.n_values; k++) v.values[k] &= 1;
    }
    return v;
}

static pq_leaf hand_leaf(int32_t type, int32_t width, uint8_t arrow_id, int16_t max_def)
{
    pq_leaf leaf;
    memset(&leaf, 0, sizeof leaf);
    leaf.path = "x";
    leaf.max_def = max_def;
    leaf.physical_type = type;
    leaf.type_length = width;
    leaf.arrow.id = arrow_id;
    leaf.arrow.byte_width = arrow_id == PQ_ARROW_FIXED_SIZE_BINARY || arrow_id == PQ_ARROW_EXTENSION_UUID ? width : 0;
    /* Units that fit the width: time32 in ms, the 8-byte ones in ns. */
    leaf.arrow.unit = arrow_id == PQ_ARROW_TIME32 ? PQ_UNIT_MILLIS : PQ_UNIT_NANOS;
    return leaf;
}

START_TEST(every_conversion_equals_the_host_build)
{
    static const struct {
        int32_t type, width;
        uint8_t id;
        const char *format;
    } cases[] = {
        {PQ_INT32, 4, PQ_ARROW_INT8, "c"},       {PQ_INT32, 4, PQ_ARROW_INT16, "s"},
        {PQ_INT32, 4, PQ_ARROW_INT32, "i"},      {PQ_INT32, 4, PQ_ARROW_INT64, "l"},
        {PQ_INT32, 4, PQ_ARROW_UINT8, "C"},      {PQ_INT32, 4, PQ_ARROW_UINT16, "S"},
        {PQ_INT32, 4, PQ_ARROW_UINT32, "I"},     {PQ_INT32, 4, PQ_ARROW_UINT64, "L"},
        {PQ_INT64, 8, PQ_ARROW_INT8, "c"},       {PQ_INT64, 8, PQ_ARROW_INT32, "i"},
        {PQ_INT64, 8, PQ_ARROW_UINT32, "I"},     {PQ_INT64, 8, PQ_ARROW_UINT64, "L"},
        {PQ_INT32, 4, PQ_ARROW_DATE32, "tdD"},   {PQ_INT32, 4, PQ_ARROW_TIME32, "tts"},
        {PQ_INT64, 8, PQ_ARROW_TIME64, "ttu"},   {PQ_INT64, 8, PQ_ARROW_DURATION, "tDu"},
        {PQ_INT64, 8, PQ_ARROW_TIMESTAMP, "tsu:"},
        {PQ_FLOAT, 4, PQ_ARROW_FLOAT32, "f"},    {PQ_DOUBLE, 8, PQ_ARROW_FLOAT64, "g"},
        {PQ_FIXED_LEN_BYTE_ARRAY, 2, PQ_ARROW_FLOAT16, "e"},
        {PQ_FIXED_LEN_BYTE_ARRAY, 7, PQ_ARROW_FIXED_SIZE_BINARY, "w:7"},
        {PQ_FIXED_LEN_BYTE_ARRAY, 16, PQ_ARROW_EXTENSION_UUID, "w:16"},
        {PQ_INT32, 4, PQ_ARROW_DECIMAL64, "d:9,2,64"},  {PQ_INT64, 8, PQ_ARROW_DECIMAL64, "d:18,2,64"},
        {PQ_INT32, 4, PQ_ARROW_DECIMAL128, "d:9,2"},    {PQ_INT64, 8, PQ_ARROW_DECIMAL128, "d:18,2"},
        {PQ_INT64, 8, PQ_ARROW_DECIMAL256, "d:18,2,256"},
        {PQ_BYTE_ARRAY, 0, PQ_ARROW_DECIMAL128, "d:30,2"}, {PQ_BYTE_ARRAY, 0, PQ_ARROW_DECIMAL64, "d:10,2,64"},
        {PQ_BYTE_ARRAY, 0, PQ_ARROW_STRING, "u"},  {PQ_BYTE_ARRAY, 0, PQ_ARROW_BINARY, "z"},
        {PQ_BYTE_ARRAY, 0, PQ_ARROW_LARGE_STRING, "U"}, {PQ_BYTE_ARRAY, 0, PQ_ARROW_LARGE_BINARY, "Z"},
        {PQ_BOOLEAN, 1, PQ_ARROW_BOOL, "b"},     {PQ_INT32, 4, PQ_ARROW_NA, "n"},
        {PQ_FLOAT, 4, PQ_ARROW_INT32, "i"}, /* no such layout: both refuse, word for word */
    };
    static const size_t sizes[] = {0, 1, 7, 8, 9, 63, 200, 1000, 4099};
    static const int null_pcts[] = {0, 30, 100};
    /* INT96 timestamps are the host's (a value outside its unit's range
     * fails there; the kernels could only wrap it): not covered, flat or
     * nested, in any unit. */
    for (uint8_t u = PQ_UNIT_MILLIS; u <= PQ_UNIT_SECONDS; u++)
        for (int16_t max_def = 0; max_def <= 1; max_def++) {
            pq_leaf leaf = hand_leaf(PQ_INT96, 12, PQ_ARROW_TIMESTAMP, max_def);
            leaf.arrow.unit = u;
            ck_assert(!pq_darrow_covers(&leaf, 0));
        }
    tally t;
    memset(&t, 0, sizeof t);
    shape sh;
    memset(&sh, 0, sizeof sh);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (size_t p = 0; p < sizeof null_pcts / sizeof null_pcts[0]; p++)
                for (int16_t max_def = 0; max_def <= 1; max_def++) {
                    pq_leaf leaf = hand_leaf(cases[c].type, cases[c].width, cases[c].id, max_def);
                    pq_column_values v = random_values(cases[c].type, (size_t)cases[c].width, sizes[z], null_pcts[p],
                                                       max_def, 20);
                    check_values(&t, cases[c].format, &sh, &leaf, &v, false, false);
                    pq_column_values_free(&v);
                }
    /* Decimals from FLBA of every length: sign-extended, or cut past 16 bytes. */
    for (int32_t w = 1; w <= 20; w++)
        for (int k = 0; k < 3; k++) {
            static const uint8_t ids[] = {PQ_ARROW_DECIMAL64, PQ_ARROW_DECIMAL128, PQ_ARROW_DECIMAL256};
            static const char *const formats[] = {"d:5,1,64", "d:5,1", "d:5,1,256"};
            pq_leaf leaf = hand_leaf(PQ_FIXED_LEN_BYTE_ARRAY, w, ids[k], 1);
            pq_column_values v = random_values(PQ_FIXED_LEN_BYTE_ARRAY, (size_t)w, 333, 25, 1, 0);
            check_values(&t, formats[k], &sh, &leaf, &v, false, false);
            pq_column_values_free(&v);
        }
    /* Values that do not match the levels: both say so, word for word. */
    pq_leaf leaf = hand_leaf(PQ_INT32, 4, PQ_ARROW_INT64, 1);
    pq_column_values v = random_values(PQ_INT32, 4, 100, 50, 1, 0);
    v.n_values--;
    check_values(&t, "short values", &sh, &leaf, &v, false, false);
    pq_column_values_free(&v);
    print_tally("hand-made columns", &t);
    ck_assert_int_eq(t.mismatches, 0);
    ck_assert_int_eq(t.unsupported, 0);
    ck_assert_int_ge(t.both_failed, 2);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Hand-made nesting: random levels of deep paths, and broken ones
 * ------------------------------------------------------------------------- */

/* Random valid levels for `levels` (a record of up to 4 entries a list),
 * as a writer would shred random records; rows records. */
static size_t shred(const pq_asm_level *levels, size_t nl, size_t level, int16_t rep, int16_t *def, int16_t *reps,
                    size_t at, size_t cap)
{
    const pq_asm_level *l = &levels[level];
    if (at >= cap) return at;
    if (l->nullable && rnd() % 5 == 0) { /* null here */
        def[at] = (int16_t)(l->def - 1);
        reps[at] = rep;
        return at + 1;
    }
    if (l->kind == PQ_ASM_LEAF) {
        def[at] = l->def;
        reps[at] = rep;
        return at + 1;
    }
    if (l->kind == PQ_ASM_STRUCT) return shred(levels, nl, level + 1, rep, def, reps, at, cap);
    size_t items = rnd() % 4;
    if (items == 0) { /* empty list */
        def[at] = l->def;
        reps[at] = rep;
        return at + 1;
    }
    for (size_t i = 0; i < items && at < cap; i++)
        at = shred(levels, nl, level + 1, i == 0 ? rep : l->list_rep, def, reps, at, cap);
    return at;
}

START_TEST(nested_levels_equal_the_host_build)
{
    /* Paths as assemble.h builds them: optional list of optional structs of
     * a list of optional leaves; a map-like required list of structs;
     * bare repeated fields three deep. */
    static const pq_asm_node paths[][8] = {
        {{1, PQ_ASM_LIST}, {2, PQ_ASM_WRAPPER}, {1, PQ_ASM_STRUCT}, {1, PQ_ASM_LIST}, {2, PQ_ASM_WRAPPER},
         {1, PQ_ASM_LEAF}},
        {{0, PQ_ASM_LIST}, {2, PQ_ASM_STRUCT}, {1, PQ_ASM_LEAF}},
        {{2, PQ_ASM_STRUCT}, {2, PQ_ASM_STRUCT}, {2, PQ_ASM_LEAF}},
        {{1, PQ_ASM_STRUCT}, {0, PQ_ASM_STRUCT}, {1, PQ_ASM_LEAF}},
    };
    static const size_t path_len[] = {6, 3, 3, 3};
    tally t;
    memset(&t, 0, sizeof t);
    shape *sh = calloc(1, sizeof *sh);
    ck_assert_ptr_nonnull(sh);
    sh->nested = true;
    for (size_t p = 0; p < sizeof path_len / sizeof path_len[0]; p++)
        for (int round = 0; round < 12; round++) {
            pq_error err = {0};
            ck_assert_int_eq(pq_asm_levels_from_path(paths[p], path_len[p], sh->levels, PQ_ASM_MAX_LEVELS,
                                                     &sh->n_levels, &err), PQ_OK);
            int16_t max_def, max_rep;
            ck_assert_int_eq(pq_asm_check_levels(sh->levels, sh->n_levels, &max_def, &max_rep, &err), PQ_OK);
            size_t cap = round < 2 ? (size_t)round * 3 : 50 + (size_t)round * 400;
            int16_t *def = malloc(cap * 2 + 2), *rep = malloc(cap * 2 + 2);
            size_t n = 0, rows = 0;
            while (n < cap) {
                size_t m = shred(sh->levels, sh->n_levels, 0, 0, def, rep, n, cap);
                if (m == n) break;
                /* a record cut off at the cap is dropped whole */
                if (m == cap && n + 1 < m && round % 2 == 0) break;
                n = m;
                rows++;
            }
            if (round >= 8) { /* broken levels: one entry changed */
                size_t k = rnd() % (n ? n : 1);
                if (n) {
                    if (round == 8) def[k] = (int16_t)(max_def + 1);
                    else if (round == 9) rep[k] = (int16_t)(max_rep + 1);
                    else if (round == 10) rep[0] = 1;
                    else rep[k] = max_rep; /* may continue a list that is not open */
                }
            }
            pq_leaf leaf = hand_leaf(PQ_INT32, 4, PQ_ARROW_INT32, max_def);
            leaf.max_rep = max_rep;
            pq_column_values v = {0};
            v.physical_type = PQ_INT32;
            v.width = 4;
            v.n_levels = n;
            v.def_levels = def;
            v.rep_levels = max_rep ? rep : NULL;
            if (!max_rep) free(rep);
            for (size_t i = 0; i < n; i++) v.n_values += def[i] == max_def;
            v.values = malloc(v.n_values * 4 + 1);
            for (size_t i = 0; i < v.n_values * 4; i++) v.values[i] = (uint8_t)rnd();
            sh->num_rows = (int64_t)rows; /* the oracle's count is what the device is told */
            check_values(&t, "hand-made nesting", sh, &leaf, &v, false, false);
            pq_column_values_free(&v);
        }
    free(sh);
    print_tally("hand-made nesting", &t);
    ck_assert_int_eq(t.mismatches, 0);
    ck_assert_int_gt(t.equal, 0);
    ck_assert_int_gt(t.both_failed, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("device arrow");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, every_conversion_equals_the_host_build);
    tcase_add_test(tc, nested_levels_equal_the_host_build);
    tcase_add_test(tc, corpus_equals_the_host_build);
    tcase_add_test(tc, matrix_equals_the_host_build);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
