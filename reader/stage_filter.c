/*
 * stage_filter.c — late materialization, the step between the page-header
 * stage and the decode stage: the filter's columns are decoded and the
 * filter evaluated on each selected row group's rows, so the page-header
 * stage reads the other projected columns only for the pages that hold a
 * matching row, and the decode stage decodes only the matching rows.
 *
 * The step's state (pq_filter_state: the bits of the matching rows per row
 * group, and the filter's projected columns as decoded here, which the
 * decode stage may take instead of decoding them again) is made, written
 * and freed here alone; the other stages read it.
 *
 * Where opts.device puts the kernels (host kernels, or a usable device:
 * the select stage's executor, device/executor.h), the predicate kernel
 * evaluates the filter; a row group it does not cover is evaluated by the
 * CPU evaluator, which gives the same bits, and counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/arrow.h"
#include "device/exec.h"
#include "device/executor.h"
#include "metadata/arrow_schema.h"
#include "metadata/error.h"
#include "predicate/predicate_eval.h"
#include "pages/buffer_pool.h"
#include "reader/chunk_decode.h"
#include "reader/output_type.h"
#include "reader/parallel.h"
#include "reader/context.h"

void pq_reader_free_filter(pq_reader *r)
{
    pq_filter_state *f = &r->filt;
    for (size_t g = 0; f->keep && g < f->groups; g++) free(f->keep[g]);
    free(f->keep);
    for (size_t k = 0; f->cols && k < f->cols_len; k++) pq_arrow_column_release(f->cols[k]);
    free(f->cols);
    free(f->taken);
    memset(f, 0, sizeof *f);
}

static pq_status filter_begin(pq_reader *r, pq_error *err)
{
    pq_filter_state *f = &r->filt;
    size_t n = r->sel.row_groups_len;
    pq_reader_free_filter(r);
    f->keep = calloc(n ? n : 1, sizeof *f->keep);
    /* Without room for the columns, the decode stage decodes them again. */
    f->cols = calloc(r->pages.chunks_len ? r->pages.chunks_len : 1, sizeof *f->cols);
    f->taken = calloc(r->pages.chunks_len ? r->pages.chunks_len : 1, sizeof *f->taken);
    if (!f->taken) {
        free(f->cols);
        f->cols = NULL;
    }
    f->cols_len = f->cols ? r->pages.chunks_len : 0;
    if (!f->keep) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    f->groups = n;
    return PQ_OK;
}

static pq_status filter_rows(pq_reader *r, pq_codec_ctx *cctx, size_t g, uint8_t **keep_out, int64_t *kept_out,
                             pq_filter_outcome *outcome, pq_error *err);

/* The filter on selected row group g, its bits kept in r->filt (and the
 * filter's projected columns as decoded, for the decode stage); *kept the
 * matches. */
static pq_status evaluate_group(pq_reader *r, pq_codec_ctx *cctx, size_t g, int64_t *kept,
                                pq_filter_outcome *outcome, pq_error *err)
{
    pq_filter_state *f = &r->filt;
    uint8_t *keep;
    pq_status st = filter_rows(r, cctx, g, &keep, kept, outcome, err);
    if (st != PQ_OK) return st;
    f->keep[g] = keep;
    if (*kept == 0 && f->cols) /* no match: none of the row group's columns is delivered */
        for (size_t c = 0; c < r->sel.walk_columns_len; c++) {
            pq_arrow_column_release(f->cols[g * r->sel.walk_columns_len + c]);
            f->cols[g * r->sel.walk_columns_len + c] = NULL;
        }
    /* The columns handed to the decode stage keep the matching rows alone
     * from now on: a filter on a wide column (l_comment of lineitem SF10)
     * held every row group's whole column until the decode stage took its
     * rows, 2.4 GB for 3.5% of the rows. Host columns only. */
    uint64_t len = r->sel.rows[g].rows;
    if (!f->cols || *kept == 0 || (uint64_t)*kept == len || pq_executor_kernels(&r->sel.exec)) return PQ_OK;
    for (size_t c = 0; c < r->sel.walk_columns_len; c++) {
        size_t k = pq_reader_chunk_at(r, g, c);
        if (!f->cols[k]) continue;
        pq_arrow_column *t;
        st = pq_reader_take_rows(&r->pages.chunks[k], f->cols[k], &r->sel.rows[g], keep, *kept, &t, err);
        if (st != PQ_OK) return st;
        pq_arrow_column_release(f->cols[k]);
        f->cols[k] = t;
        f->taken[k] = true;
    }
    return PQ_OK;
}

static void filter_count(pq_reader *r, const pq_filter_outcome *outcomes, size_t n)
{
    pq_filter_state *f = &r->filt;
    for (size_t g = 0; outcomes && g < n; g++) {
        f->kernel_chunks += outcomes[g].kernel_chunks;
        f->kept_groups += outcomes[g].kept_there;
        f->cpu_chunks += outcomes[g].cpu_chunks;
        if (outcomes[g].on_kernels) f->kernel_groups++;
        if (!outcomes[g].fell_back) continue;
        f->cpu_groups++;
        if (!r->filt.fallback[0]) snprintf(r->filt.fallback, sizeof r->filt.fallback, "%s", outcomes[g].why);
    }
}

const uint8_t *pq_filter_keep(const pq_reader *r, size_t g)
{
    const pq_filter_state *f = &r->filt;
    return f->step == FILTER_EVALUATED && f->keep && g < f->groups ? f->keep[g] : NULL;
}

pq_arrow_column *pq_filter_column(const pq_reader *r, size_t k)
{
    const pq_filter_state *f = &r->filt;
    return f->step == FILTER_EVALUATED && f->cols && k < f->cols_len ? f->cols[k] : NULL;
}

bool pq_filter_column_taken(const pq_reader *r, size_t k)
{
    return pq_filter_column(r, k) && r->filt.taken[k];
}

/* Walk column of leaf `leaf`. */
static size_t walk_index(const pq_reader *r, uint32_t leaf)
{
    for (size_t c = 0; c < r->sel.walk_columns_len; c++)
        if (r->sel.walk_columns[c] == leaf) return c;
    return SIZE_MAX; /* bind_filter put every filter leaf there */
}


/* How the filter reads leaf `leaf`: its values (a comparison, IN, or IS
 * [NOT] NULL on the leaf, or the residual values and metadata of a path
 * into a VARIANT) and/or its definition levels per row (IS [NOT] NULL on
 * a group whose first leaf it is). */
static void filter_leaf_uses(const pq_expr *e, int32_t leaf, bool *values, bool *defs)
{
    if (!e) return;
    if (e->kind == PQ_NODE_AND || e->kind == PQ_NODE_OR || e->kind == PQ_NODE_NOT) {
        filter_leaf_uses(e->kids[0], leaf, values, defs);
        filter_leaf_uses(e->kids[1], leaf, values, defs);
        return;
    }
    if (e->kind == PQ_NODE_CONST) return;
    if (e->variant_depth && e->leaf != leaf) { /* a VARIANT path's residual values and metadata */
        *values |= e->variant_meta == leaf;
        for (size_t k = 0; k <= e->variant_depth; k++) *values |= e->variant_residual[k] == leaf;
        return;
    }
    if (e->leaf != leaf) return;
    if (e->kind == PQ_NODE_IS_NULL && e->node_def > 0) *defs = true;
    else *values = true;
}

/* How the filter reads leaf `leaf`, per pick slot j (0: as it is; j >= 1:
 * as the element at index[j] of each row's list, elem_def[j] the level at
 * which an element is present: a VARIANT path through an array the writer
 * shredded, predicate.h): used[j] set for each. */
static void leaf_slots(const pq_expr *e, int32_t leaf, bool *used, int64_t *index, int16_t *elem_def)
{
    if (!e) return;
    if (e->kind == PQ_NODE_AND || e->kind == PQ_NODE_OR || e->kind == PQ_NODE_NOT) {
        leaf_slots(e->kids[0], leaf, used, index, elem_def);
        leaf_slots(e->kids[1], leaf, used, index, elem_def);
        return;
    }
    if (e->kind == PQ_NODE_CONST) return;
    bool picked = e->variant_pick >= 0 && !e->variant_untyped && e->leaf == leaf, flat = !picked && e->leaf == leaf;
    flat |= e->variant_depth && e->variant_meta == leaf;
    for (size_t k = 0; e->variant_depth && k <= e->variant_depth; k++) {
        if (e->variant_residual[k] != leaf) continue;
        if (e->variant_pick >= 0 && k >= e->variant_pick_level) picked = true;
        else flat = true;
    }
    used[0] |= flat;
    if (!picked) return;
    used[e->variant_pick_slot] = true;
    index[e->variant_pick_slot] = e->variant_pick;
    elem_def[e->variant_pick_slot] = e->variant_pick_def;
}

/* Bytes of non-null value `k` of a decoded byte-array chunk. */
static bool value_bytes(const pq_column_values *v, size_t k, const uint8_t **p, size_t *len)
{
    if (!v->offsets || k >= v->n_values) return false;
    int32_t a = v->offsets[k], b = v->offsets[k + 1];
    if (a < 0 || b < a || (size_t)b > v->data_len) return false;
    *p = v->data + a;
    *len = (size_t)(b - a);
    return true;
}

/* Leaf `leaf` (under one list: max_rep 1) decoded as `v`, as the flat
 * chunk of each row's element `index`: a slot a row, null where the
 * row's list is null, empty or shorter, or the element's value is null.
 * elem_def: the level at which an element is present. */
static pq_status pick_elements(const pq_leaf *leaf, const pq_column_values *v, int64_t index, int16_t elem_def,
                               pq_column_values *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    if (leaf->max_rep != 1 || !v->rep_levels || v->views || v->dictionary)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "column '%s': an element of its lists cannot be picked here",
                            leaf->path);
    if (v->n_levels && v->rep_levels[0] != 0)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': its first level starts no row", leaf->path);
    size_t rows = 0;
    for (size_t i = 0; i < v->n_levels; i++) rows += v->rep_levels[i] == 0;
    int64_t *src = malloc((rows ? rows : 1) * sizeof *src);
    out->def_levels = pq_pool_alloc((rows ? rows : 1) * sizeof *out->def_levels);
    pq_status st = src && out->def_levels ? PQ_OK : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    size_t picked = 0, bytes = 0, vi = 0, row = 0;
    int64_t elem = 0;
    for (size_t i = 0; st == PQ_OK && i < v->n_levels; i++) {
        int16_t d = v->def_levels ? v->def_levels[i] : leaf->max_def;
        if (v->rep_levels[i] == 0) {
            if (i > 0) row++;
            elem = 0;
            src[row] = -1;
        } else {
            elem++;
        }
        if (d >= elem_def && elem == index && d == leaf->max_def) {
            if (vi >= v->n_values) {
                st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': fewer values than its levels say",
                                  leaf->path);
                break;
            }
            src[row] = (int64_t)vi;
            picked++;
            const uint8_t *p;
            size_t len = 0;
            if (!v->width && !value_bytes(v, vi, &p, &len))
                st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': a value outside its data", leaf->path);
            bytes += len;
        }
        if (d == leaf->max_def) vi++;
    }
    out->physical_type = v->physical_type;
    out->width = v->width;
    out->decimal128 = v->decimal128;
    out->n_levels = rows;
    out->n_values = picked;
    if (st == PQ_OK && v->width) {
        out->values = pq_pool_alloc((picked ? picked : 1) * v->width);
        if (!out->values) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    } else if (st == PQ_OK) {
        if (bytes > INT32_MAX) st = pq_error_set(err, PQ_ERR_UNSUPPORTED, "column '%s': picked values too long",
                                                 leaf->path);
        out->offsets = st == PQ_OK ? pq_pool_alloc((picked + 1) * sizeof *out->offsets) : NULL;
        out->data = st == PQ_OK ? pq_pool_alloc(bytes ? bytes : 1) : NULL;
        if (st == PQ_OK && (!out->offsets || !out->data)) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        if (st == PQ_OK) out->offsets[0] = 0;
    }
    size_t o = 0;
    for (size_t r = 0; st == PQ_OK && r < rows; r++) {
        out->def_levels[r] = src[r] >= 0 ? 1 : 0;
        if (src[r] < 0) continue;
        if (v->width) {
            memcpy(out->values + o * v->width, v->values + (size_t)src[r] * v->width, v->width);
        } else {
            const uint8_t *p = NULL;
            size_t len = 0;
            value_bytes(v, (size_t)src[r], &p, &len);
            if (len) memcpy(out->data + out->data_len, p, len);
            out->data_len += len;
            out->offsets[o + 1] = (int32_t)out->data_len;
        }
        o++;
    }
    free(src);
    if (st != PQ_OK) pq_column_values_free(out);
    return st;
}

static void release_placeholder(struct ArrowSchema *s)
{
    s->release = NULL;
}

/* Field *f of the filter's batch, typed as leaf `leaf` under a list (a
 * list node), retyped as the leaf itself: its column is the element picked
 * from each row's list (pick_elements). */
static pq_status flat_field(const pq_reader *r, const pq_schema *schema, uint32_t leaf, struct ArrowSchema *f,
                            pq_error *err)
{
    pq_leaf lf = pq_output_leaf(r->sel.outputs, schema, leaf, true);
    char fmt[16];
    pq_status st = pq_arrow_format(&lf.arrow, fmt, sizeof fmt);
    if (st != PQ_OK) return pq_error_set(err, st, "column '%s': no Arrow format", lf.path);
    if (f->release) f->release(f);
    *f = (struct ArrowSchema){.format = "n", .name = "", .flags = ARROW_FLAG_NULLABLE, .release = release_placeholder};
    return pq_arrow_schema_retype(f, fmt, NULL, err);
}

/* The definition level of each row's first entry of a decoded chunk (one
 * per row of ch->rows), lined up with the rows of `want`: out gets
 * want->rows entries. */
static pq_status row_defs(const pq_leaf *leaf, const pq_column_values *v, const pq_reader_chunk *ch,
                          const pq_row_set *want, int16_t *out, pq_error *err)
{
    const pq_row_set *have = &ch->rows;
    int16_t *per_row = malloc((size_t)(have->rows ? have->rows : 1) * sizeof *per_row);
    uint8_t *bits = malloc((size_t)(have->rows + 7) / 8 + 1);
    if (!per_row || !bits) {
        free(per_row);
        free(bits);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    uint64_t row = 0;
    for (size_t i = 0; i < v->n_levels; i++) {
        if (leaf->max_rep > 0 && v->rep_levels[i] != 0) continue; /* not a record's first entry */
        if (row == have->rows) break;
        per_row[row++] = v->def_levels ? v->def_levels[i] : leaf->max_def;
    }
    pq_status st = PQ_OK;
    int64_t set = row == have->rows ? pq_row_set_map_bits(have, want, NULL, bits) : -1;
    if (set != (int64_t)want->rows) {
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                          "RowGroup[%u].columns[%u]: the pages read hold %llu records, not the %llu rows "
                          "needed",
                          ch->info.row_group, ch->info.column, (unsigned long long)row,
                          (unsigned long long)want->rows);
    } else {
        size_t j = 0;
        for (uint64_t i = 0; i < have->rows; i++)
            if ((bits[i >> 3] >> (i & 7)) & 1) out[j++] = per_row[i];
    }
    free(per_row);
    free(bits);
    return st;
}

/* ---------------------------------------------------------------------------
 * Where the filter is evaluated
 * ------------------------------------------------------------------------- */

/* The filter on a row group's `len` rows where the select stage's device choice says: the
 * predicate kernel, or the CPU evaluator for what the kernel does not
 * cover (PQ_ERR_UNSUPPORTED; *outcome says which ran). *kept: the rows
 * selected, counted from the bits the stages go by. */
static pq_status evaluate(const pq_reader *r, const struct ArrowArray *const *by_leaf,
                          const struct ArrowSchema *const *types, const int16_t *const *defs_by_leaf,
                          const uint32_t *leaves, size_t nl, int64_t len, uint8_t *keep, int64_t *kept,
                          pq_filter_outcome *outcome, pq_error *err)
{
    *kept = 0;
    if (pq_executor_kernels(&r->sel.exec)) {
        pq_status st = pq_executor_filter_run(&r->sel.exec, r->sel.filter, by_leaf, types, defs_by_leaf, leaves, nl,
                                              pq_metadata_schema(r->md)->leaves_len, len, keep, err);
        if (st != PQ_ERR_UNSUPPORTED) {
            if (st == PQ_OK) *kept = (int64_t)pq_bits_count(keep, (uint64_t)len);
            if (outcome) outcome->on_kernels = st == PQ_OK;
            return st;
        }
        if (outcome) {
            outcome->fell_back = true;
            snprintf(outcome->why, sizeof outcome->why, "%s", err ? err->message : "not covered");
        }
    }
    pq_status st = pq_predicate_eval(r->sel.filter, by_leaf, types, defs_by_leaf, len, keep, err);
    if (st == PQ_OK) *kept = (int64_t)pq_bits_count(keep, (uint64_t)len);
    return st;
}

/* ---------------------------------------------------------------------------
 * The filter where the kernels decode: columns built and evaluated there
 * ------------------------------------------------------------------------- */

/* The evaluator's type of filter leaf `leaf` evaluated at the dictionary
 * (field: its type in the filter's batch schema): *wrap, int32 indices
 * named as the field, whose dictionary is the leaf's type as output_leaf
 * builds it (decimal64 when asked), held by *dict_type, which the caller
 * releases (*wrap borrows from both). */
static pq_status dictionary_type(const pq_reader *r, uint32_t leaf, const struct ArrowSchema *field,
                                 struct ArrowSchema *dict_type, struct ArrowSchema *wrap, pq_error *err)
{
    pq_status st = pq_arrow_leaf_schema(r->md, &leaf, 1, dict_type, err);
    if (st == PQ_OK && pq_output_types_leaf(r->sel.outputs, leaf)->decimal64) {
        char fmt[40];
        pq_leaf dl = pq_output_leaf(r->sel.outputs, pq_metadata_schema(r->md), leaf, true);
        st = pq_arrow_format(&dl.arrow, fmt, sizeof fmt);
        if (st == PQ_OK) st = pq_arrow_schema_retype(dict_type->children[0], fmt, NULL, err);
    }
    if (st == PQ_OK)
        *wrap = (struct ArrowSchema){.format = "i", .name = field->name, .flags = field->flags,
                                     .dictionary = dict_type->children[0]};
    return st;
}

/* Whether the filter's leaves `leaves` (nl) of row group g can be
 * evaluated where the kernels leave them: each a flat leaf whose values
 * the filter reads (no group's IS NULL), its chunk's pages holding the
 * row group's rows as one run, and its Arrow array laid out by the Arrow
 * kernels; *by_dict per leaf: evaluated at the dictionary. */
static bool device_filter_applies(const pq_reader *r, size_t g, const uint32_t *leaves, size_t nl, bool *by_dict)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    for (size_t k = 0; k < nl; k++) {
        size_t c = walk_index(r, leaves[k]), ck = pq_reader_chunk_at(r, g, c);
        const pq_reader_chunk *ch = &r->pages.chunks[ck];
        const pq_leaf *leaf = &schema->leaves[leaves[k]];
        bool want_values = false, want_defs = false;
        filter_leaf_uses(r->sel.filter, (int32_t)leaves[k], &want_values, &want_defs);
        if (!want_values || want_defs || !pq_reader_leaf_is_flat(schema, leaf) ||
            !pq_reader_lined_up(&ch->rows, &r->sel.rows[g]))
            return false;
        by_dict[k] = !r->opts.prune_only && pq_pages_all_dictionary(ch->pages, ch->info.npages);
        pq_leaf lf = pq_output_leaf(r->sel.outputs, schema, leaves[k], true);
        unsigned flags = by_dict[k]                                    ? PQ_DECODE_INDICES
                         : pq_output_views(r->sel.outputs, leaves[k]) ? PQ_DECODE_STRING_VIEWS
                                                                       : 0;
        if (!pq_darrow_covers(&lf, flags)) return false;
    }
    return true;
}

/* The filter on selected row group g with its columns decoded by the
 * kernels and left where they are (a device's memory when they run on one), built
 * into their Arrow arrays there by the Arrow kernels, and evaluated there
 * by the predicate kernel: only the keep bits come back. Nothing is handed
 * to the decode stage (a projected filter column is decoded again there,
 * for its matching rows where it can be). PQ_ERR_UNSUPPORTED, with
 * nothing kept, where this does not apply (device_filter_applies, a chunk
 * the kernels leave to the CPU, a predicate the kernel does not cover):
 * the caller evaluates the row group its own way. */
static pq_status filter_on_device(pq_reader *r, pq_codec_ctx *cctx, size_t g, const uint32_t *leaves, size_t nl,
                                  uint8_t *keep, int64_t *kept, pq_filter_outcome *outcome, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    const pq_row_set *rows = &r->sel.rows[g];
    int64_t len = (int64_t)rows->rows;
    bool *by_dict = calloc(nl ? nl : 1, sizeof *by_dict);
    struct ArrowArray *arrays = calloc(nl ? nl : 1, sizeof *arrays);
    struct ArrowSchema *dict_types = calloc(nl ? nl : 1, sizeof *dict_types);
    struct ArrowSchema *wrap_types = calloc(nl ? nl : 1, sizeof *wrap_types);
    const struct ArrowArray **by_leaf = calloc(schema->leaves_len ? schema->leaves_len : 1, sizeof *by_leaf);
    const struct ArrowSchema **types = calloc(schema->leaves_len ? schema->leaves_len : 1, sizeof *types);
    const int16_t **defs_by_leaf = calloc(schema->leaves_len ? schema->leaves_len : 1, sizeof *defs_by_leaf);
    struct ArrowSchema bschema = {0};
    pq_darrow_ctx dx = {0};
    bool open = false;
    uint32_t chunks = 0;
    pq_status st = by_dict && arrays && dict_types && wrap_types && by_leaf && types && defs_by_leaf
                       ? PQ_OK
                       : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    if (st == PQ_OK && !device_filter_applies(r, g, leaves, nl, by_dict))
        st = pq_error_set(err, PQ_ERR_UNSUPPORTED, "device filter: a column the kernels do not keep");
    if (st == PQ_OK) {
        st = pq_executor_arrow_open(&r->sel.exec, &dx, err); /* a context a row group: row groups run in parallel */
        open = st == PQ_OK;
    }
    if (st == PQ_OK) st = pq_arrow_leaf_schema(r->md, leaves, nl, &bschema, err);
    if (st == PQ_OK) st = pq_output_schema(r->sel.outputs, schema, leaves, nl, true, true, &bschema, err);
    for (size_t k = 0; st == PQ_OK && k < nl; k++) {
        size_t ck = pq_reader_chunk_at(r, g, walk_index(r, leaves[k]));
        const pq_reader_chunk *ch = &r->pages.chunks[ck];
        pq_column_values v;
        pq_kernel_decode kd = {.exec = &r->sel.exec, .keep = true};
        st = pq_reader_decode_chunk_kernels(r, cctx, ck, by_dict[k] ? PQ_DECODE_INDICES : 0, &kd, &v, err);
        if (st == PQ_OK && !kd.kept) { /* the CPU decoded it: the host way takes the row group */
            pq_column_values_free(&v);
            st = pq_error_set(err, PQ_ERR_UNSUPPORTED, "device filter: %.200s", kd.why);
            break;
        }
        if (st != PQ_OK) break;
        chunks++;
        pq_leaf lf = pq_output_leaf(r->sel.outputs, schema, leaves[k], true);
        pq_darrow_array a;
        st = pq_darrow_build_flat(&dx, &lf, &v, &a, err);
        pq_executor_values_free(&r->sel.exec, &v);
        if (st == PQ_OK) st = pq_darrow_array_export(&dx, &a, &arrays[k], err);
        if (st != PQ_OK) break;
        /* The row group's rows: the chunk's from their first. */
        arrays[k].offset = len ? (int64_t)(pq_row_set_first(rows) - pq_row_set_first(&ch->rows)) : 0;
        by_leaf[leaves[k]] = &arrays[k];
        types[leaves[k]] = bschema.children[k];
        if (!by_dict[k]) continue;
        st = dictionary_type(r, leaves[k], bschema.children[k], &dict_types[k], &wrap_types[k], err);
        if (st != PQ_OK) break;
        types[leaves[k]] = &wrap_types[k];
    }
    if (st == PQ_OK) {
        st = pq_executor_filter_eval(&r->sel.exec, &dx, r->sel.filter, by_leaf, types, defs_by_leaf, len, keep, NULL,
                                     err);
    }
    if (st == PQ_OK) {
        *kept = (int64_t)pq_bits_count(keep, (uint64_t)len);
        if (outcome) {
            outcome->on_kernels = outcome->kept_there = true;
            outcome->kernel_chunks += chunks;
        }
    }
    for (size_t k = 0; arrays && k < nl; k++)
        if (arrays[k].release) arrays[k].release(&arrays[k]);
    for (size_t k = 0; dict_types && k < nl; k++)
        if (dict_types[k].release) dict_types[k].release(&dict_types[k]);
    if (bschema.release) bschema.release(&bschema);
    if (open) pq_darrow_close(&dx);
    free(by_dict);
    free(arrays);
    free(dict_types);
    free(wrap_types);
    free(by_leaf);
    free(types);
    free(defs_by_leaf);
    return st;
}

/* Evaluate the filter on selected row group g's rows (sel.rows[g]) on the
 * host: the filter's columns are decoded as flat columns of their own
 * (by the kernels where they are in use), built into host arrays and
 * lined up with those rows; a leaf that stands for a group's nullness
 * gives its definition levels per row instead (or as well). */
static pq_status filter_rows_on_host(pq_reader *r, pq_codec_ctx *cctx, size_t g, uint8_t **keep_out, int64_t *kept_out, pq_filter_outcome *outcome,
                                     pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    *keep_out = NULL;
    *kept_out = 0;
    if (outcome) {
        outcome->on_kernels = outcome->fell_back = false;
        outcome->why[0] = '\0';
        outcome->kernel_chunks = outcome->cpu_chunks = 0;
    }
    /* The filter's columns: each leaf it reads, once more for each index
     * a path through a shredded array picks from it (leaf_slots). */
    size_t nreal = pq_expr_columns(r->sel.filter, NULL, 0), nslots = pq_expr_pick_slots(r->sel.filter);
    size_t nl = nreal * (1 + nslots), nby = (size_t)schema->leaves_len * (1 + nslots);
    const pq_row_set *rows = &r->sel.rows[g];
    int64_t len = (int64_t)rows->rows;
    uint32_t *leaves = malloc((nl ? nl : 1) * sizeof *leaves);
    size_t *slot_of = malloc((nl ? nl : 1) * sizeof *slot_of);      /* its place in by_leaf */
    int64_t *pick_of = malloc((nl ? nl : 1) * sizeof *pick_of);     /* -1, or the element picked */
    int16_t *pick_def = malloc((nl ? nl : 1) * sizeof *pick_def);
    bool *used = calloc(1 + nslots, sizeof *used);
    int64_t *slot_index = calloc(1 + nslots, sizeof *slot_index);
    int16_t *slot_def = calloc(1 + nslots, sizeof *slot_def);
    pq_arrow_column **cols = calloc(nl ? nl : 1, sizeof *cols);
    bool *handed = calloc(nl ? nl : 1, sizeof *handed);
    int64_t *offsets = calloc(nl ? nl : 1, sizeof *offsets);
    const struct ArrowArray **by_leaf = calloc(nby ? nby : 1, sizeof *by_leaf);
    const struct ArrowSchema **types = calloc(nby ? nby : 1, sizeof *types);
    int16_t **defs = calloc(nl ? nl : 1, sizeof *defs);
    const int16_t **defs_by_leaf = calloc(nby ? nby : 1, sizeof *defs_by_leaf);
    uint32_t *vleaves = malloc((nl ? nl : 1) * sizeof *vleaves);
    pq_arrow_column **vcols = calloc(nl ? nl : 1, sizeof *vcols);
    int64_t *voffsets = calloc(nl ? nl : 1, sizeof *voffsets);
    size_t nv = 0;
    pq_arrow_column **dict_cols = calloc(nl ? nl : 1, sizeof *dict_cols); /* per filter leaf: its dictionary */
    pq_arrow_column **vdicts = calloc(nl ? nl : 1, sizeof *vdicts);
    struct ArrowArray *wraps = calloc(nl ? nl : 1, sizeof *wraps);       /* dictionary columns as the */
    struct ArrowSchema *wrap_types = calloc(nl ? nl : 1, sizeof *wrap_types); /* evaluator takes them */
    struct ArrowArray *dicts = calloc(nl ? nl : 1, sizeof *dicts);
    struct ArrowSchema *dict_types = calloc(nl ? nl : 1, sizeof *dict_types);
    bool *as_output = calloc(nl ? nl : 1, sizeof *as_output); /* built as the output type (large strings) */
    uint8_t *keep = calloc((size_t)(len + 7) / 8 + 1, 1);
    struct ArrowArray batch = {0};
    struct ArrowSchema bschema = {0};
    pq_status st = leaves && cols && handed && offsets && by_leaf && types && keep && defs && defs_by_leaf &&
                           vleaves && vcols && voffsets && dict_cols && vdicts && wraps && wrap_types && dicts &&
                           dict_types && as_output && slot_of && pick_of && pick_def && used &&
                           slot_index && slot_def
                       ? PQ_OK
                       : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    if (st == PQ_OK) {
        pq_expr_columns(r->sel.filter, leaves + (nl - nreal), nreal); /* at the end: read from there */
        size_t n = 0;
        for (size_t q = nl - nreal; q < nl; q++) {
            uint32_t leaf = leaves[q];
            memset(used, 0, (1 + nslots) * sizeof *used);
            leaf_slots(r->sel.filter, (int32_t)leaf, used, slot_index, slot_def);
            for (size_t j = 0; j <= nslots; j++) {
                if (!used[j]) continue;
                leaves[n] = leaf; /* n <= q: the entry is already read */
                slot_of[n] = leaf + j * (size_t)schema->leaves_len;
                pick_of[n] = j ? slot_index[j] : -1;
                pick_def[n++] = j ? slot_def[j] : 0;
            }
        }
        nl = n;
    }
    for (size_t k = 0; st == PQ_OK && k < nl; k++) {
        size_t c = walk_index(r, leaves[k]), ck = pq_reader_chunk_at(r, g, c);
        const pq_reader_chunk *ch = &r->pages.chunks[ck];
        const pq_leaf *leaf = &schema->leaves[leaves[k]];
        bool want_values = false, want_defs = false;
        filter_leaf_uses(r->sel.filter, (int32_t)leaves[k], &want_values, &want_defs);
        int64_t pick = pick_of[k]; /* read as each row's element `pick` of its list */
        /* Filter at the dictionary: a chunk whose data pages are all
         * dictionary-encoded gives its indices and dictionary, and the
         * predicate is evaluated once per entry (predicate_eval.h). Not for
         * a projected column whose rows cannot be decoded alone later
         * (selection-vector decode): it is handed over decoded instead. */
        bool projected = c < r->sel.columns_len && pick < 0; /* a picked column is the filter's own */
        bool by_dict = want_values && !r->opts.prune_only && pq_reader_leaf_is_flat(schema, leaf) &&
                       pq_pages_all_dictionary(ch->pages, ch->info.npages) &&
                       (!projected || pq_reader_rows_decodable(r, leaf, ch));
        pq_column_values v;
        unsigned more = by_dict ? PQ_DECODE_INDICES : 0;
        if (pq_executor_kernels(&r->sel.exec)) { /* decoded by the kernels where the predicate kernel runs */
            pq_kernel_decode kd = {.exec = &r->sel.exec};
            st = pq_reader_decode_chunk_kernels(r, cctx, ck, more, &kd, &v, err);
            if (outcome && kd.on_kernels) outcome->kernel_chunks++;
            else if (outcome) outcome->cpu_chunks++;
        } else {
            st = pq_reader_decode_chunk_flags(r, cctx, ck, NULL, more, &v, err);
        }
        if (st != PQ_OK) break;
        if (by_dict) { /* the dictionary as a column of its own; the indices as int32 */
            pq_column_values *d = v.dictionary;
            v.dictionary = NULL;
            pq_leaf dl = pq_output_leaf(r->sel.outputs, schema, leaves[k], true);
            dl.max_def = dl.max_rep = 0;
            st = pq_arrow_column_build(&dl, d, &dict_cols[k], err);
            pq_column_values_free(d);
            free(d);
        }
        if (st == PQ_OK && pick >= 0) {
            pq_column_values flat;
            st = pick_elements(leaf, &v, pick, pick_def[k], &flat, err);
            pq_column_values_free(&v);
            v = flat;
        }
        if (st != PQ_OK) {
            pq_column_values_free(&v);
            break;
        }
        if (want_defs) {
            defs[k] = malloc((size_t)(len ? len : 1) * sizeof *defs[k]);
            st = defs[k] ? row_defs(leaf, &v, ch, rows, defs[k], err)
                         : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
            defs_by_leaf[slot_of[k]] = defs[k];
        }
        pq_leaf lf = pq_output_leaf(r->sel.outputs, schema, leaves[k], true);
        if (pick >= 0) { /* a slot a row */
            lf.max_rep = 0;
            lf.max_def = 1;
        }
        /* A projected column read as large strings is built as such (the
         * evaluator takes 64-bit offsets too), so that the decode stage
         * takes it instead of decompressing its pages a second time. */
        pq_leaf out_lf = pq_output_leaf(r->sel.outputs, schema, leaves[k], false);
        as_output[k] = projected && !by_dict && !pq_output_dictionary(r->sel.outputs, leaves[k]) &&
                       (out_lf.arrow.id == PQ_ARROW_LARGE_STRING || out_lf.arrow.id == PQ_ARROW_LARGE_BINARY);
        if (as_output[k]) lf = out_lf;
        if (by_dict) {
            lf.physical_type = PQ_INT32;
            lf.arrow = (pq_arrow_type){.id = PQ_ARROW_INT32};
            v.physical_type = PQ_INT32;
            v.width = 4;
        }
        if (st == PQ_OK && want_values) st = pq_arrow_column_build(&lf, &v, &cols[k], err);
        pq_column_values_free(&v);
        if (st != PQ_OK) break;
        if (!want_values) continue;
        /* A projected column: the decode stage takes it as decoded here
         * instead of decoding the chunk again. */
        bool give = projected && !by_dict && r->filt.cols && ck < r->filt.cols_len && !r->filt.cols[ck] &&
                    (as_output[k] || pq_output_same_for_filter(r->sel.outputs, schema, leaves[k]));
        if (pq_reader_lined_up(&ch->rows, rows)) {
            offsets[k] = len ? (int64_t)(pq_row_set_first(rows) - pq_row_set_first(&ch->rows)) : 0;
            if (give) {
                r->filt.cols[ck] = cols[k];
                handed[k] = true;
            }
        } else { /* runs of pages: gather the rows */
            pq_arrow_column *t;
            st = pq_reader_take_rows(ch, cols[k], rows, NULL, len, &t, err);
            if (st == PQ_OK && give) r->filt.cols[ck] = cols[k];
            else pq_arrow_column_release(cols[k]);
            cols[k] = st == PQ_OK ? t : NULL;
        }
    }
    /* The columns whose values the filter reads, as one batch. */
    for (size_t k = 0; st == PQ_OK && k < nl; k++) {
        if (!cols[k]) continue;
        vleaves[nv] = leaves[k];
        slot_of[nv] = slot_of[k];
        as_output[nv] = as_output[k]; /* nv <= k: a slot already read */
        pick_of[nv] = pick_of[k]; /* elements picked from lists: a value a row */
        vcols[nv] = cols[k];
        vdicts[nv] = dict_cols[k];
        voffsets[nv++] = offsets[k];
    }
    if (st == PQ_OK && nv) st = pq_arrow_batch_export(vcols, voffsets, nv, len, &batch, err);
    if (st == PQ_OK && nv) st = pq_arrow_leaf_schema(r->md, vleaves, nv, &bschema, err);
    if (st == PQ_OK && nv) st = pq_output_schema(r->sel.outputs, schema, vleaves, nv, true, true, &bschema, err);
    for (size_t k = 0; st == PQ_OK && k < nv; k++) {
        if (as_output[k]) { /* its field typed as it was built */
            pq_leaf ol = pq_output_leaf(r->sel.outputs, schema, vleaves[k], false);
            char fmt[16];
            st = pq_arrow_format(&ol.arrow, fmt, sizeof fmt);
            if (st == PQ_OK) st = pq_arrow_schema_retype(bschema.children[k], fmt, NULL, err);
            else pq_error_set(err, st, "column '%s': no Arrow format", ol.path);
            if (st != PQ_OK) break;
        }
        if (pick_of[k] >= 0) st = flat_field(r, schema, vleaves[k], bschema.children[k], err);
        if (st != PQ_OK) break;
        by_leaf[slot_of[k]] = batch.children[k];
        types[slot_of[k]] = bschema.children[k];
        if (!vdicts[k]) continue;
        /* A dictionary column: its int32 indices with the dictionary (as an
         * Arrow dictionary array), shallow copies for the evaluator. */
        pq_arrow_column *dc = vdicts[k];
        st = pq_arrow_batch_export(&dc, NULL, 1, pq_arrow_column_length(dc), &dicts[k], err);
        if (st == PQ_OK) st = dictionary_type(r, vleaves[k], bschema.children[k], &dict_types[k], &wrap_types[k], err);
        if (st != PQ_OK) break;
        wraps[k] = *batch.children[k];
        wraps[k].dictionary = dicts[k].children[0];
        by_leaf[slot_of[k]] = &wraps[k];
        types[slot_of[k]] = &wrap_types[k];
    }
    int64_t kept = 0;
    if (st == PQ_OK)
        st = evaluate(r, by_leaf, types, defs_by_leaf, leaves, nl, len, keep, &kept, outcome, err);
    if (batch.release) batch.release(&batch);
    if (bschema.release) bschema.release(&bschema);
    for (size_t k = 0; dicts && k < nv; k++) {
        if (dicts[k].release) dicts[k].release(&dicts[k]);
        if (dict_types[k].release) dict_types[k].release(&dict_types[k]);
    }
    for (size_t k = 0; dict_cols && k < nl; k++) pq_arrow_column_release(dict_cols[k]);
    free(dict_cols);
    free(as_output);
    free(slot_of);
    free(pick_of);
    free(pick_def);
    free(used);
    free(slot_index);
    free(slot_def);
    free(vdicts);
    free(wraps);
    free(wrap_types);
    free(dicts);
    free(dict_types);
    for (size_t k = 0; cols && handed && k < nl; k++)
        if (!handed[k]) pq_arrow_column_release(cols[k]);
    for (size_t k = 0; defs && k < nl; k++) free(defs[k]);
    free(defs);
    free(defs_by_leaf);
    free(vleaves);
    free(vcols);
    free(voffsets);
    free(handed);
    free(leaves);
    free(cols);
    free(offsets);
    free(by_leaf);
    free(types);
    if (st != PQ_OK) {
        free(keep);
        return st;
    }
    *keep_out = keep;
    *kept_out = kept;
    return PQ_OK;
}

static pq_status filter_rows(pq_reader *r, pq_codec_ctx *cctx, size_t g, uint8_t **keep_out, int64_t *kept_out,
                             pq_filter_outcome *outcome, pq_error *err)
{
    *keep_out = NULL;
    *kept_out = 0;
    /* A bit a row: a footer's row count sizes it, so it answers to the
     * memory limit like every other size a file declares. */
    uint64_t bitmap = (r->sel.rows[g].rows + 7) / 8 + 1;
    if ((r->opts.memory_limit && bitmap > r->opts.memory_limit) || bitmap > SIZE_MAX / 2)
        return pq_error_set(err, PQ_ERR_MEMORY_LIMIT,
                            "row group %u: a filter's bitmap of its %llu rows takes %llu bytes, over the memory "
                            "limit (%llu bytes)",
                            r->sel.row_groups[g], (unsigned long long)r->sel.rows[g].rows,
                            (unsigned long long)bitmap, (unsigned long long)r->opts.memory_limit);
    if (pq_executor_kernels(&r->sel.exec)) { /* where the kernels decode, the columns stay there if they can */
        if (outcome) memset(outcome, 0, sizeof *outcome);
        size_t nl = pq_expr_columns(r->sel.filter, NULL, 0);
        uint64_t len = r->sel.rows[g].rows;
        uint32_t *leaves = malloc((nl ? nl : 1) * sizeof *leaves);
        uint8_t *keep = calloc((size_t)(len + 7) / 8 + 1, 1);
        if (leaves && keep) {
            pq_expr_columns(r->sel.filter, leaves, nl);
            pq_error derr = {0};
            int64_t kept = 0;
            pq_status st = filter_on_device(r, cctx, g, leaves, nl, keep, &kept, outcome, &derr);
            if (st != PQ_ERR_UNSUPPORTED) {
                free(leaves);
                if (st == PQ_OK) {
                    *keep_out = keep;
                    *kept_out = kept;
                    return PQ_OK;
                }
                free(keep);
                if (err) *err = derr;
                return st;
            }
        }
        free(leaves);
        free(keep);
    }
    return filter_rows_on_host(r, cctx, g, keep_out, kept_out, outcome, err);
}

/* ---------------------------------------------------------------------------
 * The stage
 * ------------------------------------------------------------------------- */

typedef struct filter_job {
    pq_reader *r;
    pq_codec_ctx codecs[PQ_PARALLEL_MAX_THREADS];
    pq_status *status;           /* per selected row group */
    pq_error *errors;
    int64_t *kept;
    pq_filter_outcome *outcomes; /* where its filter was evaluated */
} filter_job;

static bool filter_task(void *ctx, size_t g, unsigned worker)
{
    filter_job *job = ctx;
    job->status[g] = evaluate_group(job->r, &job->codecs[worker], g, &job->kept[g], &job->outcomes[g],
                                    &job->errors[g]);
    return job->status[g] == PQ_OK;
}

/* The filter on every selected row group (in parallel), then the deferred
 * chunks of each planned for its kept rows. The first failing row group's
 * error is the stage's. */
static pq_status evaluate_all(pq_reader *r, pq_error *err)
{
    size_t n = r->sel.row_groups_len;
    pq_stage_counters *fs = &r->stats[PQ_STAGE_FILTER];
    pq_status st = filter_begin(r, err);
    filter_job *job = st == PQ_OK ? calloc(1, sizeof *job) : NULL;
    if (job) {
        job->status = calloc(n ? n : 1, sizeof *job->status);
        job->errors = calloc(n ? n : 1, sizeof *job->errors);
        job->kept = calloc(n ? n : 1, sizeof *job->kept);
        job->outcomes = calloc(n ? n : 1, sizeof *job->outcomes);
    }
    if (st == PQ_OK && (!job || !job->status || !job->errors || !job->kept || !job->outcomes))
        st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    if (st == PQ_OK) {
        job->r = r;
        for (unsigned t = 0; t < PQ_PARALLEL_MAX_THREADS; t++) pq_codec_ctx_init(&job->codecs[t]);
        for (size_t g = 0; g < n; g++) job->status[g] = PQ_ERR_STAGE; /* not run */
        uint64_t walked = 0; /* the filter's chunks, decoded here */
        for (size_t k = 0; k < r->pages.chunks_len; k++)
            for (size_t p = 0; r->pages.chunks[k].step == CHUNK_WALKED && p < r->pages.chunks[k].nparts; p++)
                walked += r->pages.chunks[k].parts[p].length;
        unsigned threads = r->opts.threads ? r->opts.threads : (walked >= PQ_PARALLEL_MIN_BYTES ? 0 : 1);
        pq_parallel_for(n, threads, filter_task, job);
        filter_count(r, job->outcomes, n);
        for (size_t g = 0; g < n && st == PQ_OK; g++)
            if (job->status[g] != PQ_OK) {
                *err = job->errors[g];
                st = job->status[g];
            }
        for (unsigned t = 0; t < PQ_PARALLEL_MAX_THREADS; t++) pq_codec_ctx_free(&job->codecs[t]);
    }
    pq_late_plan late = {0};
    for (size_t g = 0; st == PQ_OK && g < n; g++) {
        fs->rows_in += r->sel.rows[g].rows;
        fs->rows += (uint64_t)job->kept[g];
        fs->groups_without_match += job->kept[g] == 0;
        st = pq_reader_pages_plan_late(r, g, job->kept[g], &late, err);
    }
    if (st == PQ_OK) {
        fs->groups += n;
        fs->rows_filtered = fs->rows_in - fs->rows;
        fs->chunks_skipped += late.chunks_skipped;
        fs->bytes_skipped += late.bytes_skipped;
        fs->device_filtered_groups = r->filt.kernel_groups;
        fs->cpu_filtered_groups = r->filt.cpu_groups;
        r->filt.step = FILTER_EVALUATED;
    }
    if (job) {
        free(job->status);
        free(job->errors);
        free(job->kept);
        free(job->outcomes);
        free(job);
    }
    return st;
}

pq_status pq_reader_stage_filter(pq_reader *r, pq_error *err)
{
    if (!r->sel.filter || r->opts.prune_only) { /* nothing to evaluate: the stage passes the rows on */
        pq_reader_free_filter(r);
        return PQ_OK;
    }
    /* On failure the driver (reader.c) frees this stage's and the page
     * stage's state and goes back to the select stage. */
    if (r->filt.step != FILTER_EVALUATED) {
        pq_status st = evaluate_all(r, err);
        if (st != PQ_OK) return st;
    }
    /* The other projected columns' offset indexes and kept pages; a sans-IO
     * caller is asked for them only now. */
    return pq_reader_pages_walk_late(r, (const uint8_t *const *)r->filt.keep, err);
}
