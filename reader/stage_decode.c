/*
 * stage_decode.c — the decode stage: every selected chunk's pages decoded
 * (pq_column_decode) into the Arrow buffers of its column, kept in the
 * reader; pq_reader_export_row_group(), pq_reader_export_rows() and
 * pq_reader_next_batch() hand rows out as record batches. Nested columns
 * (structs, lists, maps) are assembled from their leaves' levels into one
 * array per top-level field.
 *
 * A selection of flat columns is decoded in passes of row groups, each
 * from one decode plan whose pages run on pq_parallel_for's threads; with a
 * nested column the work is cut into units (the chunks of one field in one
 * row group, or a flat chunk) that run on those threads.
 * Each unit writes only its own output slot and its own error, and the
 * stage reports the error of the first failing unit in order, so the
 * result does not depend on the thread count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/utf8.h"
#include "metadata/arrow_schema.h"
#include "metadata/error.h"
#include "reader/output_type.h"
#include "reader/parallel.h"
#include "predicate/predicate_eval.h"
#include "reader/reader_internal.h"

void pq_reader_free_decoded(pq_reader *r)
{
    for (size_t i = 0; r->decoded && i < r->decoded_len; i++)
        pq_arrow_column_release(r->decoded[i]);
    free(r->decoded);
    free(r->decoded_first_row);
    free(r->decoded_chunk);
    free(r->decoded_filtered);
    r->decoded = NULL;
    r->decoded_first_row = NULL;
    r->decoded_chunk = NULL;
    r->decoded_filtered = NULL;
    r->decoded_len = 0;
    r->batch_group = 0;
    r->batch_row = 0;
    r->batch_started = false;
}

static bool selection_is_flat(const pq_reader *r, const pq_schema *schema)
{
    for (size_t c = 0; c < r->sel_columns_len; c++)
        if (!pq_reader_leaf_is_flat(schema, &schema->leaves[r->sel_columns[c]])) return false;
    return true;
}

/* Whether leaf `leaf` decodes into string views. */
static bool uses_views(const pq_reader *r, uint32_t leaf)
{
    return pq_output_views(r->outputs, leaf);
}

/* Leaf `leaf` as the decode stage builds it (output_type.h). */
static pq_leaf output_leaf(const pq_reader *r, uint32_t leaf, bool for_filter)
{
    return pq_output_leaf(r->outputs, pq_metadata_schema(r->md), leaf, for_filter);
}

/* Whether the filter's own column of leaf `leaf` is its output column
 * too (so late materialization may hand it over). */
static bool same_output(const pq_reader *r, uint32_t leaf)
{
    pq_leaf a = output_leaf(r, leaf, false), b = output_leaf(r, leaf, true);
    return a.arrow.id == b.arrow.id && !pq_output_dictionary(r->outputs, leaf);
}

/* Build decoded chunk v of leaf `leaf` into its output column. */
static pq_status build_output(const pq_reader *r, uint32_t leaf, pq_column_values *v, pq_arrow_column **out,
                              pq_error *err)
{
    pq_leaf lf = output_leaf(r, leaf, false);
    if (pq_output_dictionary(r->outputs, leaf)) return pq_arrow_column_build_dictionary(&lf, v, out, err);
    return pq_arrow_column_build(&lf, v, out, err);
}

/* Decode one chunk's kept pages and check the value count against the rows
 * they hold (levels of a flat column; records of a nested one are checked
 * when assembled). */
static pq_status decode_chunk_flags(const pq_reader *r, pq_codec_ctx *cctx, size_t i, const pq_decode_rows *rows,
                                    unsigned more, pq_column_values *v, pq_error *err);

/* Chunk i decoded for its output column: its dictionary indices when it
 * comes out as a dictionary array and every data page is
 * dictionary-encoded. */
static pq_status decode_chunk(const pq_reader *r, pq_codec_ctx *cctx, size_t i, pq_column_values *v,
                              pq_error *err)
{
    const pq_reader_chunk *ch = &r->chunks[i];
    bool indices = pq_output_dictionary(r->outputs, ch->info.column) &&
                   pq_pages_all_dictionary(ch->pages, ch->info.npages);
    return decode_chunk_flags(r, cctx, i, NULL, indices ? PQ_DECODE_INDICES : 0, v, err);
}

/* The first of v's n_values byte arrays that is not valid UTF-8: *k, and
 * the byte *bad of its *len; false when all are valid. */
static bool invalid_utf8(const pq_column_values *v, size_t *k, size_t *bad, size_t *len)
{
    for (*k = 0; *k < v->n_values; (*k)++) {
        const uint8_t *p;
        pq_column_values_bytes(v, *k, &p, len);
        *bad = pq_utf8_invalid_at(p, *len);
        if (*bad < *len) return true;
    }
    return false;
}

/* Chunk i's decode result checked as the stage needs it: an error named
 * with the chunk, UTF-8 when asked for, and a flat column's value count
 * against the rows its pages hold. `v` is freed on failure. */
static pq_status check_decoded(const pq_reader *r, size_t i, const pq_decode_rows *rows, pq_status st,
                               pq_column_values *v, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    const pq_reader_chunk *ch = &r->chunks[i];
    const pq_leaf *leaf = &schema->leaves[ch->info.column];
    if (st != PQ_OK) { /* name the chunk, as the page-header stage does */
        char what[PQ_ERROR_MESSAGE_SIZE];
        memcpy(what, err->message, sizeof what);
        return pq_error_set(err, st, "RowGroup[%u].columns[%u] '%s': %s", ch->info.row_group, ch->info.column,
                            leaf->path, what);
    }
    bool utf8 = leaf->arrow.id == PQ_ARROW_STRING || leaf->arrow.id == PQ_ARROW_EXTENSION_JSON;
    if (r->opts.validate_utf8 && utf8 && v->dictionary) { /* indices: the entries are the strings */
        size_t k, bad, len;
        if (invalid_utf8(v->dictionary, &k, &bad, &len)) {
            pq_column_values_free(v);
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "row group %u, column '%s': dictionary entry %zu is not valid UTF-8 (byte %zu of "
                                "%zu)",
                                ch->info.row_group, leaf->path, k, bad, len);
        }
    }
    if (r->opts.validate_utf8 && utf8 && (v->offsets || v->views)) {
        size_t k, bad, len;
        if (invalid_utf8(v, &k, &bad, &len)) {
            pq_column_values_free(v);
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "row group %u, column '%s': non-null value %zu is not valid UTF-8 (byte %zu of %zu)",
                                ch->info.row_group, leaf->path, k, bad, len);
        }
    }
    if (leaf->max_rep == 0 && !rows && v->n_levels != ch->rows.rows) {
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "row group %u, column '%s': %zu values for %llu rows",
                          ch->info.row_group, leaf->path, v->n_levels,
                          (unsigned long long)ch->rows.rows);
        pq_column_values_free(v);
    }
    return st;
}

/* The kept bytes of chunk i (its parts' lengths summed). */
static size_t chunk_kept(const pq_reader_chunk *ch)
{
    uint64_t kept = 0;
    for (size_t p = 0; p < ch->nparts; p++) kept += ch->parts[p].length;
    return (size_t)kept;
}

/* decode_chunk of only the rows `rows` selects (NULL: all), with extra
 * PQ_DECODE_* flags. */
static pq_status decode_chunk_flags(const pq_reader *r, pq_codec_ctx *cctx, size_t i, const pq_decode_rows *rows,
                                    unsigned more, pq_column_values *v, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_schema *schema = pq_metadata_schema(r->md);
    const pq_reader_chunk *ch = &r->chunks[i];
    const pq_row_group *rg = &fm->row_groups[ch->info.row_group];
    const pq_leaf *leaf = &schema->leaves[ch->info.column];
    int32_t codec = rg->columns[ch->info.column]->meta_data.codec;
    unsigned flags = (more & PQ_DECODE_INDICES)        ? PQ_DECODE_INDICES
                     : uses_views(r, ch->info.column) ? PQ_DECODE_STRING_VIEWS
                                                      : 0;
    pq_status st = pq_column_decode_flags(cctx, leaf, codec, ch->data, chunk_kept(ch), ch->pages, ch->info.npages,
                                          r->opts.memory_limit, flags, rows, v, err);
    return check_decoded(r, i, rows, st, v, err);
}

/* The threads to decode with: as asked, or with threads 0 (one per core)
 * only the calling thread when there is too little to decode to be worth
 * starting threads (PQ_PARALLEL_MIN_BYTES of kept chunk bytes). */
static unsigned threads_for(const pq_reader *r)
{
    if (r->opts.threads) return r->opts.threads;
    uint64_t total = 0;
    for (size_t k = 0; k < r->chunks_len; k++)
        for (size_t p = 0; p < r->chunks[k].nparts; p++) total += r->chunks[k].parts[p].length;
    return total < PQ_PARALLEL_MIN_BYTES ? 1 : 0;
}

/* One codec context per possible worker thread. */
static pq_codec_ctx *codecs_new(void)
{
    pq_codec_ctx *c = calloc(PQ_PARALLEL_MAX_THREADS, sizeof *c);
    for (unsigned t = 0; c && t < PQ_PARALLEL_MAX_THREADS; t++) pq_codec_ctx_init(&c[t]);
    return c;
}

static void codecs_free(pq_codec_ctx *c)
{
    for (unsigned t = 0; c && t < PQ_PARALLEL_MAX_THREADS; t++) pq_codec_ctx_free(&c[t]);
    free(c);
}

/* One top-level field's selected leaves: order[a..b) (see plan_fields). */
typedef struct field_span {
    size_t a, b;
} field_span;

typedef struct decode_job {
    pq_reader *r;
    bool flat;
    size_t *order;          /* nested: selection offsets of the leaves, in file order */
    field_span *fields;     /* nested: the fields, in file order */
    size_t nfields;
    pq_status *status;      /* nested: per unit */
    pq_error *errors;       /* nested: per unit */
    pq_codec_ctx *codecs;   /* per worker thread, reused from chunk to chunk */
} decode_job;

/* The chunk of selected row group g and walk column c. */
static inline size_t chunk_at(const pq_reader *r, size_t g, size_t c)
{
    return g * r->walk_columns_len + c;
}

/* Whether a column decoded over the rows of `have` lines up with the rows
 * of `want` by an offset alone: both one run (want's may be empty). */
static bool lined_up(const pq_row_set *have, const pq_row_set *want)
{
    return have->n == 1 && want->n <= 1;
}

/* ---------------------------------------------------------------------------
 * Flat row groups as decode plans
 *
 * The output slots of a pass of selected row groups whose columns are all
 * flat are decoded from one decode plan (pages/decode_plan.h): its pages,
 * not only its chunks, are the tasks on the pool's threads, so one row
 * group, or a selection of one wide column, keeps every thread busy. Each
 * column is checked and built into its Arrow array by the thread that
 * decoded its last page (the executor's chunk_done), while it is in cache.
 * ------------------------------------------------------------------------- */

typedef struct group_job {
    pq_reader *r;
    size_t first_slot;        /* the pass's slots: [first_slot, first_slot + slots) */
    size_t *slot_of;          /* per plan chunk: its output slot */
    pq_decode_rows *rows;     /* per slot of the pass: the selection-vector rows */
    uint8_t **owned_bits;     /* per slot of the pass: rows' bits made for it, or NULL */
    bool *selected;           /* per slot of the pass: decoded for the selected rows alone */
    pq_column_values *outs;   /* per plan chunk */
    pq_status *status;
    pq_error *errors;
} group_job;

/* Whether slot i (chunk k) decodes only the rows late materialization
 * kept, and which: selection-vector decode, where late materialization has
 * the matching rows and a value is a row (no full decode, then take). */
static bool selection_rows(const pq_reader *r, size_t i, size_t k, pq_decode_rows *rows, uint8_t **owned)
{
    size_t g = i / r->sel_columns_len;
    const pq_schema *schema = pq_metadata_schema(r->md);
    const pq_leaf *leaf = &schema->leaves[r->chunks[k].info.column];
    const pq_row_set *want = &r->sel_rows[g], *have = &r->chunks[k].rows;
    *owned = NULL;
    if (!(r->filter && !r->opts.prune_only && r->late_keep && r->late_keep[g] && pq_decode_rows_supported(leaf)))
        return false;
    if (lined_up(have, want) && (!want->rows || (pq_row_set_first(want) >= r->decoded_first_row[i] &&
                                                 pq_row_set_end(want) <= pq_row_set_end(have)))) {
        *rows = (pq_decode_rows){r->late_keep[g],
                                 want->rows ? pq_row_set_first(want) - r->decoded_first_row[i] : 0, want->rows};
        return true;
    }
    /* The pages kept hold runs of rows (late materialization kept those
     * with a match): the matching rows as bits over the kept ones. */
    uint8_t *bits = malloc((size_t)(have->rows + 7) / 8 + 1);
    if (!bits) return false;
    int64_t set = pq_row_set_map_bits(have, want, r->late_keep[g], bits);
    if (set < 0 || (uint64_t)set != pq_bits_count(r->late_keep[g], want->rows)) {
        free(bits); /* rows missing from the kept pages: the general path says so */
        return false;
    }
    *owned = bits;
    *rows = (pq_decode_rows){bits, 0, have->rows};
    return true;
}

/* The executor's chunk_done: chunk j checked and built into its Arrow
 * array while its values are still in the cache of the core that decoded
 * its last page (the status, output and error are the job's own arrays). */
static void chunk_built(void *user, size_t j, pq_status status, pq_column_values *out, pq_error *err)
{
    (void)status;
    (void)out;
    (void)err;
    group_job *job = user;
    pq_reader *r = job->r;
    size_t n = r->sel_columns_len, i = job->slot_of[j], s = i - job->first_slot;
    size_t k = chunk_at(r, i / n, i % n);
    pq_status st = check_decoded(r, k, job->selected[s] ? &job->rows[s] : NULL, job->status[j], &job->outs[j],
                                 &job->errors[j]);
    if (st == PQ_OK) {
        st = build_output(r, r->chunks[k].info.column, &job->outs[j], &r->decoded[i], &job->errors[j]);
    }
    if (st == PQ_OK && job->selected[s]) {
        r->decoded_filtered[i] = true;
        r->decoded_first_row[i] = 0;
    }
    pq_column_values_free(&job->outs[j]);
    job->status[j] = st;
}

/* Selected row groups [g0, g1) of a flat selection: one plan, one pass. */
static pq_status run_flat_pass(pq_reader *r, decode_job *djob, size_t g0, size_t g1, unsigned threads,
                               pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_schema *schema = pq_metadata_schema(r->md);
    size_t n = r->sel_columns_len, slots = (g1 - g0) * n, m = slots ? slots : 1;
    pq_decode_plan plan = {0};
    group_job job = {.r = r, .first_slot = g0 * n};
    job.slot_of = calloc(m, sizeof *job.slot_of);
    job.rows = calloc(m, sizeof *job.rows);
    job.owned_bits = calloc(m, sizeof *job.owned_bits);
    job.selected = calloc(m, sizeof *job.selected);
    job.outs = calloc(m, sizeof *job.outs);
    job.status = calloc(m, sizeof *job.status);
    job.errors = calloc(m, sizeof *job.errors);
    pq_status st = job.slot_of && job.rows && job.owned_bits && job.selected && job.outs && job.status && job.errors
                       ? PQ_OK
                       : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    for (size_t s = 0; st == PQ_OK && s < slots; s++) {
        size_t i = g0 * n + s, k = chunk_at(r, i / n, i % n);
        const pq_reader_chunk *ch = &r->chunks[k];
        r->decoded_first_row[i] = pq_row_set_first(&ch->rows);
        r->decoded_chunk[i] = k;
        if (r->late_cols && k < r->late_cols_len && r->late_cols[k]) { /* decoded by late materialization */
            r->decoded[i] = r->late_cols[k];
            r->late_cols[k] = NULL;
            continue;
        }
        job.selected[s] = selection_rows(r, i, k, &job.rows[s], &job.owned_bits[s]);
        const pq_leaf *leaf = &schema->leaves[ch->info.column];
        int32_t codec = fm->row_groups[ch->info.row_group].columns[ch->info.column]->meta_data.codec;
        unsigned flags = uses_views(r, ch->info.column) ? PQ_PLAN_STRING_VIEWS : 0;
        if (pq_output_dictionary(r->outputs, ch->info.column) && pq_pages_all_dictionary(ch->pages, ch->info.npages))
            flags = PQ_PLAN_INDICES;
        st = pq_decode_plan_add_chunk(&plan, leaf, codec, ch->data, chunk_kept(ch), ch->pages, ch->info.npages,
                                      flags, job.selected[s] ? &job.rows[s] : NULL, err);
        if (st != PQ_OK) st = check_decoded(r, k, NULL, st, NULL, err);
        else job.slot_of[plan.nchunks - 1] = i;
    }
    if (st == PQ_OK && plan.nchunks) {
        pq_cpu_executor ex = {.run = pq_parallel_for,
                              .threads = threads,
                              .cctx = djob->codecs,
                              .ncctx = PQ_PARALLEL_MAX_THREADS,
                              .memory_limit = r->opts.memory_limit,
                              .chunk_done = chunk_built,
                              .user = &job};
        pq_decode_plan_execute(&ex, &plan, job.outs, job.status, job.errors);
        /* The first failure in slot order, as the units report theirs. */
        for (size_t j = 0; j < plan.nchunks; j++)
            if (job.status[j] != PQ_OK) {
                *err = job.errors[j];
                st = job.status[j];
                break;
            }
    }
    pq_decode_plan_free(&plan);
    for (size_t s = 0; job.owned_bits && s < slots; s++) free(job.owned_bits[s]);
    free(job.owned_bits);
    free(job.slot_of);
    free(job.rows);
    free(job.selected);
    free(job.outs);
    free(job.status);
    free(job.errors);
    return st;
}

/* Kept chunk bytes a pass takes at most (one row group at least): enough
 * pages for every thread between the executor's phases (a pass of 8 MiB
 * left the second thread idle at each phase's end), and a bound on what a
 * pass holds at once; 64 MiB passes measured 1.2x slower on TPC-H lineitem
 * (then built after a barrier, out of cache). */
#define PASS_BYTES ((uint64_t)16 << 20)

/* A flat selection: row groups in passes. */
static pq_status run_flat(pq_reader *r, decode_job *djob, unsigned threads, pq_error *err)
{
    size_t n = r->sel_columns_len;
    for (size_t g0 = 0; g0 < r->sel_row_groups_len;) {
        size_t g1 = g0;
        uint64_t bytes = 0;
        while (g1 < r->sel_row_groups_len && (g1 == g0 || bytes < PASS_BYTES)) {
            for (size_t c = 0; c < n; c++) bytes += chunk_kept(&r->chunks[chunk_at(r, g1, c)]);
            g1++;
        }
        pq_status st = run_flat_pass(r, djob, g0, g1, threads, err);
        if (st != PQ_OK) return st;
        g0 = g1;
    }
    return PQ_OK;
}

/* A nested unit (a selection with a nested column): field j of selected
 * row group g, packed into slot g * n + j, as pq_metadata_arrow_schema
 * exports the selection. */
static pq_status run_nested(pq_reader *r, pq_codec_ctx *cctx, const decode_job *job, size_t g, size_t j,
                            pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    size_t n = r->sel_columns_len;
    size_t a = job->fields[j].a, m = job->fields[j].b - a;
    pq_column_values *vals = calloc(m, sizeof *vals);
    const pq_leaf **leaves = calloc(m, sizeof *leaves);
    pq_status st = vals && leaves ? PQ_OK : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    size_t done = 0;
    for (; st == PQ_OK && done < m; done++) {
        leaves[done] = &schema->leaves[r->sel_columns[job->order[a + done]]];
        st = decode_chunk(r, cctx, chunk_at(r, g, job->order[a + done]), &vals[done], err);
        if (st != PQ_OK) memset(&vals[done], 0, sizeof vals[done]);
    }
    /* All leaves of a field keep the same rows: whole chunks, or the pages
     * of a field's only leaf (stage_pages.c, pages_may_be_skipped). */
    size_t first_k = chunk_at(r, g, job->order[a]);
    const pq_reader_chunk *first = &r->chunks[first_k];
    size_t slot = g * n + j;
    if (st == PQ_OK) {
        if (m == 1 && pq_reader_leaf_is_flat(schema, leaves[0])) {
            st = build_output(r, r->sel_columns[job->order[a]], &vals[0], &r->decoded[slot], err);
        } else {
            int32_t field = pq_reader_leaf_field(schema, leaves[0]);
            st = pq_arrow_nested_build(schema, field, leaves, vals, m, (int64_t)first->rows.rows,
                                       &r->decoded[slot], err);
        }
    }
    r->decoded_first_row[slot] = pq_row_set_first(&first->rows);
    r->decoded_chunk[slot] = first_k;
    for (size_t k = 0; vals && k < m; k++) pq_column_values_free(&vals[k]);
    free(vals);
    free(leaves);
    return st;
}

static bool run_unit(void *ctx, size_t u, unsigned worker)
{
    decode_job *job = ctx;
    pq_codec_ctx *cctx = &job->codecs[worker];
    pq_status st = run_nested(job->r, cctx, job, u / job->nfields, u % job->nfields, &job->errors[u]);
    job->status[u] = st;
    return st == PQ_OK;
}

/* Nested selection: the selected leaves in file order (each once), grouped
 * by top-level field. */
static pq_status plan_fields(const pq_reader *r, decode_job *job, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    size_t n = r->sel_columns_len;
    job->order = calloc(n ? n : 1, sizeof *job->order);
    job->fields = calloc(n ? n : 1, sizeof *job->fields);
    if (!job->order || !job->fields) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    size_t m = 0;
    for (uint32_t leaf = 0; leaf < schema->leaves_len; leaf++) {
        for (size_t c = 0; c < n; c++)
            if (r->sel_columns[c] == leaf) {
                if (pq_reader_leaf_field(schema, &schema->leaves[leaf]) < 0)
                    return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': bad schema path",
                                        schema->leaves[leaf].path);
                job->order[m++] = c;
                break;
            }
    }
    job->nfields = 0;
    for (size_t a = 0; a < m;) {
        int32_t field = pq_reader_leaf_field(schema, &schema->leaves[r->sel_columns[job->order[a]]]);
        size_t b = a + 1;
        while (b < m && pq_reader_leaf_field(schema, &schema->leaves[r->sel_columns[job->order[b]]]) == field)
            b++;
        job->fields[job->nfields++] = (field_span){a, b};
        a = b;
    }
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * The filter on rows
 * ------------------------------------------------------------------------- */

typedef struct filter_job {
    pq_reader *r;
    pq_status *status;      /* per selected row group */
    pq_error *errors;
    uint64_t *removed;
    pq_codec_ctx *codecs;   /* per worker thread */
} filter_job;

/* Walk column of leaf `leaf`. */
static size_t walk_index(const pq_reader *r, uint32_t leaf)
{
    for (size_t c = 0; c < r->walk_columns_len; c++)
        if (r->walk_columns[c] == leaf) return c;
    return SIZE_MAX; /* bind_filter put every filter leaf there */
}


/* Column `col`, decoded over the rows of `have` (a chunk's kept pages),
 * reduced to the rows of `want` whose bit in `keep` (one per row of want;
 * NULL: all) is set, `kept` of them: *out gets a new column. */
static pq_status take_rows(const pq_reader_chunk *ch, pq_arrow_column *col, const pq_row_set *want,
                           const uint8_t *keep, int64_t kept, pq_arrow_column **out, pq_error *err)
{
    const pq_row_set *have = &ch->rows;
    if (lined_up(have, want) && keep) {
        uint64_t a = pq_row_set_first(have), b = pq_row_set_end(have);
        uint64_t x = want->rows ? pq_row_set_first(want) : a, y = x + want->rows;
        /* (A late column may lack rows that do not match: gathered below.) */
        if (x >= a && y <= b) return pq_arrow_column_take(col, (int64_t)(x - a), (int64_t)want->rows, keep, out, err);
    }
    uint8_t *bits = malloc((size_t)(have->rows + 7) / 8 + 1);
    if (!bits) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    int64_t set = pq_row_set_map_bits(have, want, keep, bits);
    pq_status st = PQ_OK;
    if (set == kept) st = pq_arrow_column_take(col, 0, (int64_t)have->rows, bits, out, err);
    free(bits);
    if (set == kept) return st;
    return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                        "RowGroup[%u].columns[%u]: the pages read hold rows [%llu, %llu) in %zu run%s, "
                        "not every row needed (the offset index is wrong)",
                        ch->info.row_group, ch->info.column, (unsigned long long)pq_row_set_first(have),
                        (unsigned long long)pq_row_set_end(have), have->n, have->n == 1 ? "" : "s");
}

/* How the filter reads leaf `leaf`: its values (a comparison, IN, or IS
 * [NOT] NULL on the leaf) and/or its definition levels per row (IS [NOT]
 * NULL on a group whose first leaf it is). */
static void filter_leaf_uses(const pq_expr *e, int32_t leaf, bool *values, bool *defs)
{
    if (!e) return;
    if (e->kind == PQ_NODE_AND || e->kind == PQ_NODE_OR || e->kind == PQ_NODE_NOT) {
        filter_leaf_uses(e->kids[0], leaf, values, defs);
        filter_leaf_uses(e->kids[1], leaf, values, defs);
        return;
    }
    if (e->kind == PQ_NODE_CONST || e->leaf != leaf) return;
    if (e->kind == PQ_NODE_IS_NULL && e->node_def > 0) *defs = true;
    else *values = true;
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

/* Evaluate the filter on selected row group g's rows (sel_rows[g]). The
 * filter's columns are decoded here as flat columns of their own, and
 * lined up with those rows; a leaf that stands for a group's nullness
 * gives its definition levels per row instead (or as well). */
pq_status pq_reader_filter_rows(pq_reader *r, pq_codec_ctx *cctx, size_t g, bool hand_over,
                                uint8_t **keep_out, int64_t *kept_out, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    *keep_out = NULL;
    *kept_out = 0;
    size_t nl = pq_expr_columns(r->filter, NULL, 0);
    const pq_row_set *rows = &r->sel_rows[g];
    int64_t len = (int64_t)rows->rows;
    uint32_t *leaves = malloc((nl ? nl : 1) * sizeof *leaves);
    pq_arrow_column **cols = calloc(nl ? nl : 1, sizeof *cols);
    bool *handed = calloc(nl ? nl : 1, sizeof *handed);
    int64_t *offsets = calloc(nl ? nl : 1, sizeof *offsets);
    const struct ArrowArray **by_leaf = calloc(schema->leaves_len ? schema->leaves_len : 1, sizeof *by_leaf);
    const struct ArrowSchema **types = calloc(schema->leaves_len ? schema->leaves_len : 1, sizeof *types);
    int16_t **defs = calloc(nl ? nl : 1, sizeof *defs);
    const int16_t **defs_by_leaf = calloc(schema->leaves_len ? schema->leaves_len : 1, sizeof *defs_by_leaf);
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
    uint8_t *keep = calloc((size_t)(len + 7) / 8 + 1, 1);
    struct ArrowArray batch = {0};
    struct ArrowSchema bschema = {0};
    pq_status st = leaves && cols && handed && offsets && by_leaf && types && keep && defs && defs_by_leaf &&
                           vleaves && vcols && voffsets && dict_cols && vdicts && wraps && wrap_types && dicts &&
                           dict_types
                       ? PQ_OK
                       : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    if (st == PQ_OK) pq_expr_columns(r->filter, leaves, nl);
    for (size_t k = 0; st == PQ_OK && k < nl; k++) {
        size_t c = walk_index(r, leaves[k]), ck = chunk_at(r, g, c);
        const pq_reader_chunk *ch = &r->chunks[ck];
        const pq_leaf *leaf = &schema->leaves[leaves[k]];
        bool want_values = false, want_defs = false;
        filter_leaf_uses(r->filter, (int32_t)leaves[k], &want_values, &want_defs);
        /* Filter at the dictionary: a chunk whose data pages are all
         * dictionary-encoded gives its indices and dictionary, and the
         * predicate is evaluated once per entry (predicate_eval.h). Not for
         * a projected column whose rows cannot be decoded alone later
         * (selection-vector decode): it is handed over decoded instead. */
        bool projected = c < r->sel_columns_len;
        bool by_dict = want_values && !r->opts.prune_only && pq_reader_leaf_is_flat(schema, leaf) &&
                       pq_pages_all_dictionary(ch->pages, ch->info.npages) &&
                       (!projected || pq_decode_rows_supported(leaf));
        pq_column_values v;
        st = decode_chunk_flags(r, cctx, ck, NULL, by_dict ? PQ_DECODE_INDICES : 0, &v, err);
        if (st != PQ_OK) break;
        if (by_dict) { /* the dictionary as a column of its own; the indices as int32 */
            pq_column_values *d = v.dictionary;
            v.dictionary = NULL;
            pq_leaf dl = output_leaf(r, leaves[k], true);
            dl.max_def = dl.max_rep = 0;
            st = pq_arrow_column_build(&dl, d, &dict_cols[k], err);
            pq_column_values_free(d);
            free(d);
        }
        if (st != PQ_OK) {
            pq_column_values_free(&v);
            break;
        }
        if (want_defs) {
            defs[k] = malloc((size_t)(len ? len : 1) * sizeof *defs[k]);
            st = defs[k] ? row_defs(leaf, &v, ch, rows, defs[k], err)
                         : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
            defs_by_leaf[leaves[k]] = defs[k];
        }
        pq_leaf lf = output_leaf(r, leaves[k], true);
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
        bool give = hand_over && projected && !by_dict && r->late_cols && !r->late_cols[ck] &&
                    same_output(r, leaves[k]);
        if (lined_up(&ch->rows, rows)) {
            offsets[k] = len ? (int64_t)(pq_row_set_first(rows) - pq_row_set_first(&ch->rows)) : 0;
            if (give) {
                r->late_cols[ck] = cols[k];
                handed[k] = true;
            }
        } else { /* runs of pages: gather the rows */
            pq_arrow_column *t;
            st = take_rows(ch, cols[k], rows, NULL, len, &t, err);
            if (st == PQ_OK && give) r->late_cols[ck] = cols[k];
            else pq_arrow_column_release(cols[k]);
            cols[k] = st == PQ_OK ? t : NULL;
        }
    }
    /* The columns whose values the filter reads, as one batch. */
    for (size_t k = 0; st == PQ_OK && k < nl; k++) {
        if (!cols[k]) continue;
        vleaves[nv] = leaves[k];
        vcols[nv] = cols[k];
        vdicts[nv] = dict_cols[k];
        voffsets[nv++] = offsets[k];
    }
    if (st == PQ_OK && nv) st = pq_arrow_batch_export(vcols, voffsets, nv, len, &batch, err);
    if (st == PQ_OK && nv) st = pq_arrow_leaf_schema(r->md, vleaves, nv, &bschema, err);
    if (st == PQ_OK && nv) st = pq_output_schema(r->outputs, schema, vleaves, nv, true, true, &bschema, err);
    for (size_t k = 0; st == PQ_OK && k < nv; k++) {
        by_leaf[vleaves[k]] = batch.children[k];
        types[vleaves[k]] = bschema.children[k];
        if (!vdicts[k]) continue;
        /* A dictionary column: its int32 indices with the dictionary (as an
         * Arrow dictionary array), shallow copies for the evaluator. */
        pq_arrow_column *dc = vdicts[k];
        st = pq_arrow_batch_export(&dc, NULL, 1, pq_arrow_column_length(dc), &dicts[k], err);
        if (st == PQ_OK) st = pq_arrow_leaf_schema(r->md, &vleaves[k], 1, &dict_types[k], err);
        if (st != PQ_OK) break;
        if (pq_output_types_leaf(r->outputs, vleaves[k])->decimal64) { /* as output_leaf built it */
            char fmt[40];
            pq_leaf dl = output_leaf(r, vleaves[k], true);
            st = pq_arrow_format(&dl.arrow, fmt, sizeof fmt);
            if (st == PQ_OK) st = pq_arrow_schema_retype(dict_types[k].children[0], fmt, NULL, err);
            if (st != PQ_OK) break;
        }
        wraps[k] = *batch.children[k];
        wraps[k].dictionary = dicts[k].children[0];
        wrap_types[k] = (struct ArrowSchema){.format = "i", .name = bschema.children[k]->name,
                                             .flags = bschema.children[k]->flags,
                                             .dictionary = dict_types[k].children[0]};
        by_leaf[vleaves[k]] = &wraps[k];
        types[vleaves[k]] = &wrap_types[k];
    }
    if (st == PQ_OK) st = pq_predicate_eval(r->filter, by_leaf, types, defs_by_leaf, len, keep, err);
    int64_t kept = st == PQ_OK ? (int64_t)pq_bits_count(keep, (uint64_t)len) : 0;
    if (batch.release) batch.release(&batch);
    if (bschema.release) bschema.release(&bschema);
    for (size_t k = 0; dicts && k < nv; k++) {
        if (dicts[k].release) dicts[k].release(&dicts[k]);
        if (dict_types[k].release) dict_types[k].release(&dict_types[k]);
    }
    for (size_t k = 0; dict_cols && k < nl; k++) pq_arrow_column_release(dict_cols[k]);
    free(dict_cols);
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

/* Selected row group g's output columns reduced to the matching rows of
 * sel_rows[g]. A column decoded from runs of pages is gathered; one that
 * lines up with the rows is left as it is (export slices it) unless the
 * filter drops rows. The row group's rows become [0, kept). */
static pq_status filter_group(pq_reader *r, pq_codec_ctx *cctx, size_t g, uint64_t *removed, pq_error *err)
{
    size_t n = r->sel_columns_len;
    pq_row_set *rows = &r->sel_rows[g];
    int64_t len = (int64_t)rows->rows, kept = 0;
    uint8_t *keep = NULL;
    pq_status st = PQ_OK;
    if (r->late_keep && r->late_keep[g]) { /* evaluated by late materialization */
        keep = r->late_keep[g];
        r->late_keep[g] = NULL;
        kept = (int64_t)pq_bits_count(keep, (uint64_t)len);
    } else {
        st = pq_reader_filter_rows(r, cctx, g, false, &keep, &kept, err);
    }
    bool aligned = true;
    for (size_t c = 0; c < n; c++)
        if (r->decoded[g * n + c]) aligned = aligned && lined_up(&r->chunks[r->decoded_chunk[g * n + c]].rows, rows);
    if (st == PQ_OK && kept == len && aligned) /* every row matched: the rows stay, a selected column holds them */
        for (size_t c = 0; c < n; c++)
            if (r->decoded_filtered[g * n + c]) r->decoded_first_row[g * n + c] = len ? pq_row_set_first(rows) : 0;
    if (st == PQ_OK && (kept < len || !aligned)) {
        /* Replace each output column by its delivered rows. */
        for (size_t c = 0; st == PQ_OK && c < n; c++) {
            size_t slot = g * n + c;
            if (!r->decoded[slot]) continue; /* nested: fields are packed first */
            if (r->decoded_filtered[slot]) { /* decoded for the matching rows alone */
                if (pq_arrow_column_length(r->decoded[slot]) != kept)
                    st = pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                      "RowGroup[%u].columns[%u]: %lld rows decoded for %lld matching rows",
                                      r->chunks[r->decoded_chunk[slot]].info.row_group,
                                      r->chunks[r->decoded_chunk[slot]].info.column,
                                      (long long)pq_arrow_column_length(r->decoded[slot]), (long long)kept);
                continue;
            }
            pq_arrow_column *t;
            st = take_rows(&r->chunks[r->decoded_chunk[slot]], r->decoded[slot], rows, keep, kept, &t, err);
            if (st == PQ_OK) {
                pq_arrow_column_release(r->decoded[slot]);
                r->decoded[slot] = t;
                r->decoded_first_row[slot] = 0;
            }
        }
        if (st == PQ_OK) {
            pq_row_set_free(rows);
            pq_row_set_init(rows, 0, (uint64_t)kept);
            *removed = (uint64_t)(len - kept);
        }
    }
    free(keep);
    return st;
}

static bool filter_unit(void *ctx, size_t g, unsigned worker)
{
    filter_job *job = ctx;
    job->status[g] = filter_group(job->r, &job->codecs[worker], g, &job->removed[g], &job->errors[g]);
    return job->status[g] == PQ_OK;
}

/* The filter on every selected row group, in parallel; the first failing
 * row group's error is the stage's. */
static pq_status filter_rows(pq_reader *r, pq_error *err)
{
    size_t groups = r->sel_row_groups_len;
    if (!groups) return PQ_OK;
    filter_job job = {.r = r};
    job.status = calloc(groups, sizeof *job.status);
    job.errors = calloc(groups, sizeof *job.errors);
    job.removed = calloc(groups, sizeof *job.removed);
    job.codecs = codecs_new();
    pq_status st = PQ_OK;
    if (!job.status || !job.errors || !job.removed || !job.codecs) {
        st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    } else {
        for (size_t g = 0; g < groups; g++) job.status[g] = PQ_ERR_STAGE; /* not run */
        pq_parallel_for(groups, threads_for(r), filter_unit, &job);
        for (size_t g = 0; g < groups && st == PQ_OK; g++) {
            if (job.status[g] != PQ_OK) {
                *err = job.errors[g];
                st = job.status[g];
            }
            r->stats[PQ_STAGE_DECODE].rows_filtered += job.removed[g];
        }
    }
    free(job.status);
    free(job.errors);
    free(job.removed);
    codecs_free(job.codecs);
    return st;
}

pq_status pq_reader_stage_decode(pq_reader *r, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    pq_reader_free_decoded(r);

    size_t n = r->sel_row_groups_len * r->sel_columns_len; /* output slots */
    r->decoded = calloc(n ? n : 1, sizeof *r->decoded);
    r->decoded_first_row = calloc(n ? n : 1, sizeof *r->decoded_first_row);
    r->decoded_chunk = calloc(n ? n : 1, sizeof *r->decoded_chunk);
    r->decoded_filtered = calloc(n ? n : 1, sizeof *r->decoded_filtered);
    if (!r->decoded || !r->decoded_first_row || !r->decoded_chunk || !r->decoded_filtered) {
        pq_reader_free_decoded(r);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    r->decoded_len = n;

    decode_job job = {.r = r, .flat = selection_is_flat(r, schema)};
    pq_status st = PQ_OK;
    size_t units = n;
    if (!job.flat) {
        st = plan_fields(r, &job, err);
        units = r->sel_row_groups_len * job.nfields;
    }
    if (st == PQ_OK && units) {
        job.codecs = codecs_new();
        if (!job.codecs) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (st == PQ_OK && units && job.flat) { /* plans of row groups, their pages in parallel */
        st = run_flat(r, &job, threads_for(r), err);
    } else if (st == PQ_OK && units) {
        job.status = calloc(units, sizeof *job.status);
        job.errors = calloc(units, sizeof *job.errors);
        if (!job.status || !job.errors) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (st == PQ_OK && units && !job.flat) {
        for (size_t u = 0; u < units; u++) job.status[u] = PQ_ERR_STAGE; /* not run */
        pq_parallel_for(units, threads_for(r), run_unit, &job);
        /* The first failure in unit order; units after it may not have run. */
        for (size_t u = 0; u < units; u++)
            if (job.status[u] != PQ_OK) {
                *err = job.errors[u];
                st = job.status[u];
                break;
            }
    }
    free(job.order);
    free(job.fields);
    free(job.status);
    free(job.errors);
    codecs_free(job.codecs);
    if (st != PQ_OK) {
        pq_reader_free_decoded(r);
        return st;
    }
    /* Prune-only mode delivers whole row groups: nothing to filter. */
    if (r->filter && !r->opts.prune_only && (st = filter_rows(r, err)) != PQ_OK) {
        pq_reader_free_decoded(r);
        return st;
    }
    pq_stage_stats *ds = &r->stats[PQ_STAGE_DECODE];
    ds->chunks = r->chunks_len;
    for (size_t i = 0; i < n; i++) ds->bytes_out += pq_arrow_column_bytes(r->decoded[i]);
    for (size_t g = 0; g < r->sel_row_groups_len; g++) ds->rows += r->sel_rows[g].rows;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Handing rows out
 * ------------------------------------------------------------------------- */

/* Index of file row group `row_group` in the selection, or SIZE_MAX. */
static size_t selected_index(const pq_reader *r, uint32_t row_group)
{
    for (size_t g = 0; g < r->sel_row_groups_len; g++)
        if (r->sel_row_groups[g] == row_group) return g;
    return SIZE_MAX;
}

pq_status pq_reader_row_group_range(const pq_reader *r, uint32_t row_group, uint64_t *first_row,
                                    uint64_t *num_rows, pq_error *err)
{
    if (!r || !first_row || !num_rows)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader or output is NULL");
    if (r->stage < PQ_STAGE_SELECT || !r->sel_rows)
        return pq_error_set(err, PQ_ERR_STAGE, "the row range needs the select stage; the reader is at '%s'",
                            pq_stage_name(r->stage));
    size_t g = selected_index(r, row_group);
    if (g == SIZE_MAX)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "row group %u was not selected", row_group);
    *first_row = pq_row_set_first(&r->sel_rows[g]);
    *num_rows = pq_row_set_end(&r->sel_rows[g]) - *first_row;
    return PQ_OK;
}

pq_status pq_reader_row_group_runs(const pq_reader *r, uint32_t row_group, pq_row_run *out, size_t cap,
                                   size_t *count, pq_error *err)
{
    if (!r || !count || (cap && !out))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader or output is NULL");
    *count = 0;
    if (r->stage < PQ_STAGE_SELECT || !r->sel_rows)
        return pq_error_set(err, PQ_ERR_STAGE, "the row runs need the select stage; the reader is at '%s'",
                            pq_stage_name(r->stage));
    size_t g = selected_index(r, row_group);
    if (g == SIZE_MAX)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "row group %u was not selected", row_group);
    const pq_row_set *s = &r->sel_rows[g];
    const pq_row_span *sp = pq_row_set_spans(s);
    for (size_t i = 0; i < s->n && i < cap; i++) out[i] = (pq_row_run){sp[i].first, sp[i].count};
    *count = s->n;
    return PQ_OK;
}

/* Export rows [first, first + count) of selected row group g. */
/* The schema of every batch of the selection: flat selections one field
 * per selected leaf, in order; nested ones one per top-level field. */
static pq_status selection_schema(const pq_reader *r, struct ArrowSchema *out, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    bool flat = selection_is_flat(r, schema);
    size_t n = r->sel_columns_len;
    pq_status st = flat ? pq_arrow_batch_schema(r->md, r->sel_columns, n, out, err)
                        : pq_metadata_arrow_schema(r->md, r->sel_columns, n, out, err);
    if (st == PQ_OK) st = pq_output_schema(r->outputs, schema, r->sel_columns, n, flat, false, out, err);
    if (st != PQ_OK && out->release) out->release(out);
    return st;
}

pq_status pq_reader_output_schema(const pq_reader *r, struct ArrowSchema *out, pq_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!r || !out) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader and schema must not be NULL");
    if (!r->outputs) return pq_error_set(err, PQ_ERR_STAGE, "the output schema is known after the select stage");
    return selection_schema(r, out, err);
}

static pq_status export_slice(pq_reader *r, size_t g, uint64_t first, uint64_t count,
                              struct ArrowArray *out_array, struct ArrowSchema *out_schema, pq_error *err)
{
    size_t n = r->sel_columns_len;
    pq_arrow_column **cols = r->decoded + g * n;
    const uint64_t *bases = r->decoded_first_row + g * n;
    size_t ncols = n;
    pq_status st = PQ_OK;
    bool flat = selection_is_flat(r, pq_metadata_schema(r->md));
    if (!flat) { /* one field per top-level field, as run_nested packed them */
        ncols = 0;
        while (ncols < n && cols[ncols]) ncols++;
    }
    if (out_schema) {
        st = selection_schema(r, out_schema, err);
        if (st == PQ_OK && out_schema->n_children != (int64_t)ncols) {
            st = pq_error_set(err, PQ_ERR_SCHEMA, "%zu arrays for %lld fields", ncols,
                              (long long)out_schema->n_children);
            out_schema->release(out_schema);
        }
    }
    if (st != PQ_OK) return st;
    int64_t *offsets = malloc((ncols ? ncols : 1) * sizeof *offsets);
    if (offsets) {
        for (size_t i = 0; i < ncols; i++) offsets[i] = count ? (int64_t)(first - bases[i]) : 0;
        st = pq_arrow_batch_export(cols, offsets, ncols, (int64_t)count, out_array, err);
        free(offsets);
    } else {
        st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (st != PQ_OK && out_schema) out_schema->release(out_schema);
    return st;
}

/* Common checks of the export calls; *g gets the selection index. */
static pq_status export_check(pq_reader *r, struct ArrowArray *out_array, struct ArrowSchema *out_schema,
                              pq_error *err)
{
    if (out_array) memset(out_array, 0, sizeof *out_array);
    if (out_schema) memset(out_schema, 0, sizeof *out_schema);
    if (!r || !out_array)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader or output array is NULL");
    if (r->stage < PQ_STAGE_DECODE || !r->decoded)
        return pq_error_set(err, PQ_ERR_STAGE, "export needs the decode stage; the reader is at '%s'",
                            pq_stage_name(r->stage));
    return PQ_OK;
}

pq_status pq_reader_export_rows(pq_reader *r, uint32_t row_group, uint64_t first_row, uint64_t num_rows,
                                struct ArrowArray *out_array, struct ArrowSchema *out_schema, pq_error *err)
{
    pq_status st = export_check(r, out_array, out_schema, err);
    if (st != PQ_OK) return st;
    size_t g = selected_index(r, row_group);
    if (g == SIZE_MAX)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "row group %u was not selected", row_group);
    uint64_t lo = pq_row_set_first(&r->sel_rows[g]), hi = pq_row_set_end(&r->sel_rows[g]);
    if (first_row < lo || first_row > hi || num_rows > hi - first_row)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "rows [%llu, +%llu) of row group %u are outside its range [%llu, %llu)",
                            (unsigned long long)first_row, (unsigned long long)num_rows, row_group,
                            (unsigned long long)lo, (unsigned long long)hi);
    return export_slice(r, g, first_row, num_rows, out_array, out_schema, err);
}

pq_status pq_reader_export_row_group(pq_reader *r, uint32_t row_group, struct ArrowArray *out_array,
                                     struct ArrowSchema *out_schema, pq_error *err)
{
    pq_status st = export_check(r, out_array, out_schema, err);
    if (st != PQ_OK) return st;
    size_t g = selected_index(r, row_group);
    if (g == SIZE_MAX)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "row group %u was not selected", row_group);
    return export_slice(r, g, pq_row_set_first(&r->sel_rows[g]), r->sel_rows[g].rows, out_array, out_schema,
                        err);
}

pq_status pq_reader_next_batch(pq_reader *r, uint64_t max_rows, struct ArrowArray *out_array,
                               struct ArrowSchema *out_schema, pq_error *err)
{
    pq_status st = export_check(r, out_array, out_schema, err);
    if (st != PQ_OK) return st;
    while (r->batch_group < r->sel_row_groups_len) {
        size_t g = r->batch_group;
        uint64_t lo = pq_row_set_first(&r->sel_rows[g]), hi = pq_row_set_end(&r->sel_rows[g]);
        if (!r->batch_started) {
            r->batch_started = true;
            r->batch_row = lo;
            if (hi == lo && r->filter && !r->opts.prune_only) { /* the filter left no row */
                r->batch_group++;
                r->batch_started = false;
                continue;
            }
            if (hi == lo) { /* a row group with no rows still gives one (empty) batch */
                r->batch_group++;
                r->batch_started = false;
                return export_slice(r, g, lo, 0, out_array, out_schema, err);
            }
        }
        if (r->batch_row >= hi) {
            r->batch_group++;
            r->batch_started = false;
            continue;
        }
        uint64_t count = hi - r->batch_row;
        if (max_rows && count > max_rows) count = max_rows;
        st = export_slice(r, g, r->batch_row, count, out_array, out_schema, err);
        if (st == PQ_OK) r->batch_row += count;
        return st;
    }
    return PQ_OK; /* end of data: both outputs released (zeroed) */
}
