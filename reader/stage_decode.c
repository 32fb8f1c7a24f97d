/*
 * stage_decode.c — the decode stage: every selected chunk's pages decoded
 * (pq_column_decode) into the Arrow buffers of its column, kept in the
 * reader (pq_decoded) for export.c to hand out, and, with a filter, the
 * output reduced to the matching rows. Nested columns
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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/arrow.h"
#include "device/copies.h"
#include "device/exec.h"
#include "device/executor.h"
#include "kernels/utf8.h"
#include "metadata/error.h"
#include "pages/cpu_exec.h"
#include "reader/arrow_nested.h"
#include "reader/arrow_take.h"
#include "reader/chunk_decode.h"
#include "reader/variant_rebuild.h"
#include "reader/output_type.h"
#include "reader/parallel.h"
#include "reader/context.h"

void pq_reader_free_decoded(pq_reader *r)
{
    for (size_t i = 0; r->out.cols && i < r->out.len; i++)
        pq_arrow_column_release(r->out.cols[i]);
    free(r->out.cols);
    free(r->out.first_row);
    free(r->out.chunk);
    free(r->out.filtered);
    r->out.cols = NULL;
    r->out.first_row = NULL;
    r->out.chunk = NULL;
    r->out.filtered = NULL;
    r->out.len = 0;
    r->out.memory = OUTPUT_ON_HOST;
    r->out.device_built = r->out.copied_to_device = r->out.resident_chunks = 0;
    r->out.generation++; /* a batch cursor over the old arrays starts again */
    for (size_t g = 0; r->out.rows && g < r->out.groups; g++) pq_row_set_free(&r->out.rows[g]);
    for (size_t g = 0; r->out.row_numbers && g < r->out.groups; g++) free(r->out.row_numbers[g]);
    free(r->out.rows);
    free(r->out.row_numbers);
    r->out.rows = NULL;
    r->out.row_numbers = NULL;
    r->out.groups = 0;
}

/* Whether leaf `leaf` decodes into string views. */
static bool uses_views(const pq_reader *r, uint32_t leaf)
{
    return pq_output_views(r->sel.outputs, leaf);
}

/* Leaf `leaf` as the decode stage builds it (output_type.h). */
static pq_leaf output_leaf(const pq_reader *r, uint32_t leaf, bool for_filter)
{
    return pq_output_leaf(r->sel.outputs, pq_metadata_schema(r->md), leaf, for_filter);
}

/* The kept bytes of chunk i (its parts' lengths summed). */
static size_t chunk_kept(const pq_reader_chunk *ch)
{
    uint64_t kept = 0;
    for (size_t p = 0; p < ch->nparts; p++) kept += ch->parts[p].length;
    return (size_t)kept;
}

/* The threads to decode with: as asked, or with threads 0 (one per core)
 * only the calling thread when there is too little to decode to be worth
 * starting threads (PQ_PARALLEL_MIN_BYTES of kept chunk bytes). */
static unsigned threads_for(const pq_reader *r)
{
    if (r->opts.threads) return r->opts.threads;
    uint64_t total = 0;
    for (size_t k = 0; k < r->pages.chunks_len; k++)
        for (size_t p = 0; p < r->pages.chunks[k].nparts; p++) total += r->pages.chunks[k].parts[p].length;
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
    const pq_executor *exec; /* the select stage's (opts.device) */
    bool kernels;           /* chunks decoded by the device executor (exec runs the kernels) */
    bool build_on_device;   /* device_output: chunks the kernels decode are built there too */
    pq_darrow_ctx dx;       /* ... by the Arrow kernels of this context */
    char fallback[PQ_ERROR_MESSAGE_SIZE]; /* why the first chunk left to the CPU was */
    /* Nested selections, whose units run in parallel: where their chunks
     * were decoded, and whether `fallback` is taken. */
    atomic_ullong nested_device, nested_cpu, nested_resident, nested_built;
    atomic_int fallback_taken;
} decode_job;

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

/* The filter's bits over selected row group g's rows (NULL: no filter
 * evaluated, every row delivered). */
static const uint8_t *filter_keep(const pq_reader *r, size_t g)
{
    return r->sel.filter && !r->opts.prune_only ? pq_filter_keep(r, g) : NULL;
}

/* Whether slot i (chunk k) decodes only the rows late materialization
 * kept, and which: selection-vector decode, where late materialization has
 * the matching rows and a value is a row (no full decode, then take). */
static bool selection_rows(const pq_reader *r, size_t i, size_t k, pq_decode_rows *rows, uint8_t **owned)
{
    size_t g = i / r->sel.columns_len;
    const pq_schema *schema = pq_metadata_schema(r->md);
    const pq_leaf *leaf = &schema->leaves[r->pages.chunks[k].info.column];
    const pq_row_set *want = &r->sel.rows[g], *have = &r->pages.chunks[k].rows;
    *owned = NULL;
    const uint8_t *keep = pq_filter_keep(r, g);
    /* (an optional column with nulls read as a dictionary array is decoded
     * whole and taken: its dictionary then is the one the device
     * executor's decode and take give) */
    bool selectable = pq_reader_rows_decodable(r, leaf, &r->pages.chunks[k]) ||
                      (pq_reader_rows_selectable_with_nulls(r, leaf) &&
                       !pq_output_dictionary(r->sel.outputs, r->pages.chunks[k].info.column));
    if (!(r->sel.filter && !r->opts.prune_only && keep && selectable)) return false;
    if (pq_reader_lined_up(have, want) && (!want->rows || (pq_row_set_first(want) >= r->out.first_row[i] &&
                                                 pq_row_set_end(want) <= pq_row_set_end(have)))) {
        *rows = (pq_decode_rows){keep,
                                 want->rows ? pq_row_set_first(want) - r->out.first_row[i] : 0, want->rows};
        return true;
    }
    /* The pages kept hold runs of rows (late materialization kept those
     * with a match): the matching rows as bits over the kept ones. */
    uint8_t *bits = malloc((size_t)(have->rows + 7) / 8 + 1);
    if (!bits) return false;
    /* Every wanted row is either in a kept page (its bit copied) or not,
     * and then unmatched (map_bits checks): a selected row cannot be lost. */
    if (pq_row_set_map_bits(have, want, keep, bits) < 0) {
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
    size_t n = r->sel.columns_len, i = job->slot_of[j], s = i - job->first_slot;
    size_t k = pq_reader_chunk_at(r, i / n, i % n);
    pq_status st = pq_chunk_check_decoded(r, k, job->selected[s] ? &job->rows[s] : NULL, job->status[j], &job->outs[j],
                                 &job->errors[j]);
    if (st == PQ_OK) {
        st = pq_chunk_build_output(r, i / n, k, job->selected[s] ? &job->rows[s] : NULL, filter_keep(r, i / n),
                                   &job->outs[j], &r->out.cols[i], &job->errors[j]);
    }
    if (st == PQ_OK && job->selected[s]) {
        r->out.filtered[i] = true;
        r->out.first_row[i] = 0;
    }
    pq_column_values_free(&job->outs[j]);
    job->status[j] = st;
}

/* Whether the Arrow kernels lay out flat chunk k's output type as add_chunk
 * plans it decoded (string views, dictionary indices for a dictionary
 * array of a chunk dictionary-encoded throughout; a dictionary array of
 * another chunk from its values, an entry a slot). */
static bool flat_laid_out(const pq_reader *r, size_t k)
{
    uint32_t column = r->pages.chunks[k].info.column;
    pq_leaf lf = output_leaf(r, column, false);
    char index = pq_output_types_leaf(r->sel.outputs, column)->dict_index; /* the kernels make int32 indices */
    return (!index || index == 'i' || index == 'I') &&
           pq_darrow_covers(&lf, pq_chunk_decode_flags(r, column, pq_chunk_more(r, k)));
}

/* device_output: whether slot s's chunk (k) is built into its Arrow array
 * where the device executor leaves its values (the Arrow kernels lay out
 * its output type, string views and dictionary arrays included). Under a
 * filter only a chunk decoded for the matching rows alone
 * (selection-vector decode, compacted by the kernels) is: a chunk decoded
 * whole needs the filter's take, which is the host's. */
static bool built_in_place(const pq_reader *r, const decode_job *djob, const group_job *job, size_t s, size_t k)
{
    if (!djob->build_on_device || (r->sel.filter && !r->opts.prune_only && !job->selected[s])) return false;
    return flat_laid_out(r, k);
}

/* Chunk k's values that the device executor left in device memory (v,
 * freed here; st its decode's status): their count checked (for a
 * selection-vector decode, `rows`, the filter checks it), their Arrow
 * array built there by the Arrow kernels of dx (on x) and adopted as *out. */
static pq_status build_flat_on_device(const pq_reader *r, const pq_executor *x, pq_darrow_ctx *dx, size_t k,
                                      const pq_decode_rows *rows, pq_status st, pq_column_values *v,
                                      pq_arrow_column **out, pq_error *err)
{
    if (st == PQ_OK) st = pq_chunk_check_count(r, k, rows, v, err); /* check_decoded's, without freeing v */
    pq_darrow_array a;
    if (st == PQ_OK) {
        uint32_t column = r->pages.chunks[k].info.column;
        pq_leaf lf = output_leaf(r, column, false);
        st = pq_output_dictionary(r->sel.outputs, column) && !v->dictionary
                 ? pq_darrow_build_dictionary_slots(dx, &lf, v, &a, err) /* values: an entry a slot */
                 : pq_darrow_build_flat(dx, &lf, v, &a, err);
        if (st != PQ_OK) st = pq_chunk_check_decoded(r, k, NULL, st, NULL, err); /* names the chunk */
    }
    pq_executor_values_free(x, v);
    struct ArrowArray exported;
    uint64_t bytes = 0;
    if (st == PQ_OK) {
        bytes = pq_darrow_array_bytes(&a);
        st = pq_darrow_array_export(dx, &a, &exported, err);
    }
    if (st == PQ_OK) st = pq_arrow_column_adopt(&exported, bytes, out, err);
    return st;
}

/* chunk_built for a chunk whose values the device executor left in device
 * memory: built there and adopted as the slot's column. */
static void built_on_device(group_job *job, decode_job *djob, size_t j)
{
    pq_reader *r = job->r;
    size_t n = r->sel.columns_len, i = job->slot_of[j], s = i - job->first_slot;
    size_t k = pq_reader_chunk_at(r, i / n, i % n);
    const pq_decode_rows *rows = job->selected[s] ? &job->rows[s] : NULL;
    pq_status st = build_flat_on_device(r, djob->exec, &djob->dx, k, rows, job->status[j], &job->outs[j],
                                        &r->out.cols[i], &job->errors[j]);
    if (st == PQ_OK) r->out.device_built++;
    if (st == PQ_OK && rows) { /* as chunk_built marks a selected column */
        r->out.filtered[i] = true;
        r->out.first_row[i] = 0;
    }
    job->status[j] = st;
}

/* Add slot s's chunk (k) to `plan`: its leaf, codec, output flags and the
 * selection-vector rows of the job; `widen` as for add_chunk. */
static pq_status add_slot_chunk(const pq_reader *r, const group_job *job, size_t s, size_t k, bool widen,
                                pq_decode_plan *plan, pq_error *err)
{
    return pq_chunk_plan_add(r, k, job->selected[s] ? &job->rows[s] : NULL, pq_chunk_more(r, k), widen, plan, err);
}

/* The decode stage's counts of what the CPU executor did with `plan`:
 * dictionary bytes left undecompressed, chunks SizeStatistics sized. */
static void count_skipped_dictionaries(pq_reader *r, const pq_decode_plan *plan)
{
    for (size_t j = 0; j < plan->nchunks; j++) {
        r->stats[PQ_STAGE_DECODE].dictionary_bytes_skipped += plan->chunks[j].dictionary_skipped;
        r->stats[PQ_STAGE_DECODE].sized_by_statistics += (plan->chunks[j].flags & PQ_PLAN_CHUNK_SIZE_STATISTICS) != 0;
    }
}

/* Run `plan` with the device executor; the chunks it does not cover go to
 * the CPU executor in a plan of their own. Every chunk ends in chunk_built,
 * as with the CPU executor alone. */

static void run_on_device(pq_reader *r, decode_job *djob, pq_decode_plan *plan, group_job *job, unsigned threads)
{
    size_t n = plan->nchunks, left = 0;
    bool *in_place = djob->build_on_device ? calloc(n ? n : 1, sizeof *in_place) : NULL;
    for (size_t j = 0; in_place && j < n; j++) {
        size_t slot = job->slot_of[j];
        in_place[j] = built_in_place(r, djob, job, slot - job->first_slot,
                                     pq_reader_chunk_at(r, slot / r->sel.columns_len, slot % r->sel.columns_len));
    }
    const uint8_t **resident = r->opts.device_file ? calloc(n ? n : 1, sizeof *resident) : NULL;
    for (size_t j = 0; resident && j < n; j++) {
        size_t slot = job->slot_of[j];
        resident[j] = pq_chunk_resident_bytes(r, pq_reader_chunk_at(r, slot / r->sel.columns_len, slot % r->sel.columns_len));
    }
    pq_device_exec_stats dxs = {0};
    pq_device_exec_options o = {.memory_limit = r->opts.memory_limit, .cctx = djob->codecs,
                                .outputs_on_device = in_place, .resident = resident, .stats = &dxs};
    pq_executor_run_plan(djob->exec, &o, plan, job->outs, job->status, job->errors);
    r->out.resident_chunks += dxs.resident_chunks;
    free(resident);
    size_t *back = calloc(n ? n : 1, sizeof *back); /* CPU plan chunk -> device plan chunk */
    pq_decode_plan cpu = {0};
    pq_stage_counters *stats = &r->stats[PQ_STAGE_DECODE];
    for (size_t j = 0; j < n; j++) {
        if (job->status[j] != PQ_ERR_UNSUPPORTED) {
            stats->device_chunks++;
            if (in_place && in_place[j]) built_on_device(job, djob, j);
            else chunk_built(job, j, job->status[j], &job->outs[j], &job->errors[j]);
            continue;
        }
        stats->cpu_chunks++;
        if (!djob->fallback[0]) snprintf(djob->fallback, sizeof djob->fallback, "%s", job->errors[j].message);
        size_t slot = job->slot_of[j], s = slot - job->first_slot;
        size_t k = pq_reader_chunk_at(r, slot / r->sel.columns_len, slot % r->sel.columns_len);
        pq_status st = back ? add_slot_chunk(r, job, s, k, false, &cpu, &job->errors[j])
                            : pq_error_set(&job->errors[j], PQ_ERR_NOMEM, "out of memory");
        if (st == PQ_OK) back[left++] = j;
        else job->status[j] = st;
    }
    if (left) {
        group_job cj = *job;
        cj.slot_of = calloc(left, sizeof *cj.slot_of);
        cj.outs = calloc(left, sizeof *cj.outs);
        cj.status = calloc(left, sizeof *cj.status);
        cj.errors = calloc(left, sizeof *cj.errors);
        if (cj.slot_of && cj.outs && cj.status && cj.errors) {
            for (size_t b = 0; b < left; b++) cj.slot_of[b] = job->slot_of[back[b]];
            pq_cpu_executor ex = {.run = pq_parallel_for, .threads = threads, .cctx = djob->codecs,
                                  .ncctx = PQ_PARALLEL_MAX_THREADS, .memory_limit = r->opts.memory_limit,
                                  .chunk_done = chunk_built, .user = &cj};
            pq_decode_plan_execute(&ex, &cpu, cj.outs, cj.status, cj.errors);
            count_skipped_dictionaries(r, &cpu);
            for (size_t b = 0; b < left; b++) {
                job->status[back[b]] = cj.status[b];
                job->errors[back[b]] = cj.errors[b];
            }
        } else {
            for (size_t b = 0; b < left; b++)
                job->status[back[b]] = pq_error_set(&job->errors[back[b]], PQ_ERR_NOMEM, "out of memory");
        }
        free(cj.slot_of);
        free(cj.outs);
        free(cj.status);
        free(cj.errors);
    }
    pq_decode_plan_free(&cpu);
    free(back);
    free(in_place);
}

/* Selected row groups [g0, g1) of a flat selection: one plan, one pass. */
static pq_status run_flat_pass(pq_reader *r, decode_job *djob, size_t g0, size_t g1, unsigned threads,
                               pq_error *err)
{
    size_t n = r->sel.columns_len, slots = (g1 - g0) * n, m = slots ? slots : 1;
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
        size_t i = g0 * n + s, k = pq_reader_chunk_at(r, i / n, i % n);
        const pq_reader_chunk *ch = &r->pages.chunks[k];
        r->out.first_row[i] = pq_row_set_first(&ch->rows);
        r->out.chunk[i] = k;
        pq_arrow_column *evaluated = pq_filter_column(r, k);
        if (evaluated) { /* decoded by late materialization */
            r->out.cols[i] = pq_arrow_column_retain(evaluated);
            if (pq_filter_column_taken(r, k)) { /* its matching rows alone, as a selection's */
                r->out.filtered[i] = true;
                r->out.first_row[i] = 0;
            }
            continue;
        }
        job.selected[s] = selection_rows(r, i, k, &job.rows[s], &job.owned_bits[s]);
        /* No device: decimals widened as they are decoded (the kernels
         * widen theirs in the Arrow build). */
        st = add_slot_chunk(r, &job, s, k, !djob->kernels, &plan, err);
        if (st != PQ_OK) st = pq_chunk_check_decoded(r, k, NULL, st, NULL, err);
        else job.slot_of[plan.nchunks - 1] = i;
    }
    if (st == PQ_OK && plan.nchunks && djob->kernels) {
        run_on_device(r, djob, &plan, &job, threads);
        for (size_t j = 0; j < plan.nchunks; j++)
            if (job.status[j] != PQ_OK) {
                *err = job.errors[j];
                st = job.status[j];
                break;
            }
    } else if (st == PQ_OK && plan.nchunks) {
        pq_cpu_executor ex = {.run = pq_parallel_for,
                              .threads = threads,
                              .cctx = djob->codecs,
                              .ncctx = PQ_PARALLEL_MAX_THREADS,
                              .memory_limit = r->opts.memory_limit,
                              .chunk_done = chunk_built,
                              .user = &job};
        pq_decode_plan_execute(&ex, &plan, job.outs, job.status, job.errors);
        count_skipped_dictionaries(r, &plan);
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

/* The span of the map that row groups [g0, g1)'s chunks lie in (*lo NULL:
 * none of them is in the map). */
static void pass_span(const pq_reader *r, size_t g0, size_t g1, const uint8_t **lo, const uint8_t **hi)
{
    *lo = *hi = NULL;
    for (size_t g = g0; g < g1; g++)
        for (size_t c = 0; c < r->sel.walk_columns_len; c++) {
            const pq_reader_chunk *ch = &r->pages.chunks[pq_reader_chunk_at(r, g, c)];
            if (!ch->data || ch->bytes || ch->hold) continue; /* not in the map */
            if (!*lo || ch->data < *lo) *lo = ch->data;
            if (!*hi || ch->data + ch->data_len > *hi) *hi = ch->data + ch->data_len;
        }
}

/* The row groups of the next pass [g0, g1): in a large mapped file, read
 * into the page cache ahead while this pass is decoded (a file read cold
 * from disk was faulted in a page at a time). */
static void prefetch_pass(const pq_reader *r, size_t g0, size_t g1)
{
    const uint8_t *lo, *hi;
    pass_span(r, g0, g1, &lo, &hi);
    if (lo && r->io.kind == SOURCE_FILE) pq_file_source_will_need(&r->io.file, lo, (size_t)(hi - lo));
}

/* Row groups [g0, g1) are decoded: in a large mapped file, the pages
 * their chunks lie in leave this process' memory (the filter's chunks
 * with them), as one range: one call a pass, where a call a chunk split
 * the kernel's huge mappings of the file at every chunk's ends and made a
 * filtered read of lineitem SF10 10% slower. */
static void drop_pass_pages(const pq_reader *r, size_t g0, size_t g1)
{
    const uint8_t *lo, *hi;
    pass_span(r, g0, g1, &lo, &hi);
    if (lo && r->io.kind == SOURCE_FILE) pq_file_source_done_with(&r->io.file, lo, (size_t)(hi - lo));
}

/* The end of the pass that starts at row group g0. */
static size_t pass_end(const pq_reader *r, size_t g0)
{
    size_t g1 = g0, n = r->sel.columns_len;
    uint64_t bytes = 0;
    while (g1 < r->sel.row_groups_len && (g1 == g0 || bytes < PASS_BYTES)) {
        for (size_t c = 0; c < n; c++) bytes += chunk_kept(&r->pages.chunks[pq_reader_chunk_at(r, g1, c)]);
        g1++;
    }
    return g1;
}

/* A flat selection: row groups in passes, the next one read ahead. */
static pq_status run_flat(pq_reader *r, decode_job *djob, unsigned threads, pq_error *err)
{
    size_t g1 = pass_end(r, 0);
    prefetch_pass(r, 0, g1);
    for (size_t g0 = 0; g0 < r->sel.row_groups_len;) {
        size_t g2 = pass_end(r, g1);
        prefetch_pass(r, g1, g2);
        pq_status st = run_flat_pass(r, djob, g0, g1, threads, err);
        if (st != PQ_OK) return st;
        drop_pass_pages(r, g0, g1);
        g0 = g1;
        g1 = g2;
    }
    return PQ_OK;
}

/* A nested unit's chunk k: decoded by the device executor when the decode
 * runs there (the levels and values come back to host memory, where the
 * fields are assembled, or with `keep` stay in device memory: *kept says
 * they did), by the CPU where the kernels do not cover it, as decode_chunk
 * decodes it. */
static pq_status decode_unit_chunk(pq_reader *r, decode_job *job, pq_codec_ctx *cctx, size_t k, pq_column_values *v,
                                   bool keep, bool *kept, pq_error *err)
{
    *kept = false;
    if (!job->kernels) return pq_chunk_decode(r, cctx, k, v, err);
    pq_kernel_decode kd = {.exec = job->exec, .keep = keep};
    pq_status st = pq_reader_decode_chunk_kernels(r, cctx, k, pq_chunk_more(r, k), &kd, v, err);
    atomic_fetch_add(&job->nested_resident, kd.resident);
    if (kd.on_kernels) {
        atomic_fetch_add(&job->nested_device, 1);
    } else {
        atomic_fetch_add(&job->nested_cpu, 1);
        if (kd.why[0] && atomic_exchange(&job->fallback_taken, 1) == 0)
            snprintf(job->fallback, sizeof job->fallback, "%s", kd.why);
    }
    *kept = kd.kept;
    return st;
}

/* device_output: whether a nested field of the m leaves `leaves` is built
 * where the kernels leave its values: every leaf's values laid out by the
 * Arrow kernels (no string views or dictionary arrays, no type the output
 * changes; a filter's rows are the host's). */
static bool nested_built_in_place(const pq_reader *r, const decode_job *job, const pq_leaf *const *leaves, size_t m)
{
    const int64_t *large;
    size_t nlarge;
    if (!job->build_on_device || (r->sel.filter && !r->opts.prune_only) ||
        pq_output_large_lists(r->sel.outputs, &large, &nlarge)) /* the kernels build int32 list offsets */
        return false;
    for (size_t i = 0; i < m; i++) {
        uint32_t column = (uint32_t)(leaves[i] - pq_metadata_schema(r->md)->leaves);
        pq_leaf built = output_leaf(r, column, false); /* the kernels build the file's own types */
        if (uses_views(r, column) || pq_output_dictionary(r->sel.outputs, column) || !pq_darrow_covers(leaves[i], 0) ||
            built.arrow.id != leaves[i]->arrow.id || built.arrow.unit != leaves[i]->arrow.unit)
            return false;
    }
    return true;
}

/* Field `field` of the m leaves `leaves` from their values in device
 * memory (vals, freed here), num_rows records: each leaf's levels and
 * array built there by the Arrow kernels, joined into the field's tree
 * and adopted as *out. */
static pq_status build_nested_on_device(decode_job *job, const pq_schema *schema, int32_t field,
                                        const pq_leaf *const *leaves, pq_column_values *vals, size_t m,
                                        int64_t num_rows, pq_arrow_column **out, pq_error *err)
{
    pq_darrow_ctx dx = {0}; /* one a unit: units run in parallel */
    pq_darrow_field_leaf *fl = calloc(m, sizeof *fl);
    pq_status st = fl ? pq_executor_arrow_open(job->exec, &dx, err)
                      : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    bool open = st == PQ_OK;
    for (size_t i = 0; st == PQ_OK && i < m; i++) {
        pq_asm_level levels[PQ_ASM_MAX_LEVELS];
        size_t nl = 0;
        fl[i].path = leaves[i]->path;
        st = pq_arrow_leaf_levels(schema, field, leaves[i], levels, fl[i].keys, &nl, err);
        if (st == PQ_OK) st = pq_darrow_build_nested(&dx, leaves[i], levels, nl, &vals[i], num_rows, &fl[i].nest, err);
    }
    for (size_t i = 0; i < m; i++) pq_executor_values_free(job->exec, &vals[i]);
    struct ArrowArray a;
    uint64_t bytes = 0;
    if (st == PQ_OK) {
        st = pq_darrow_field_export(&dx, fl, m, &a, &bytes, err);
    } else {
        for (size_t i = 0; fl && i < m; i++) pq_darrow_nested_free(&dx, &fl[i].nest);
    }
    if (st == PQ_OK) st = pq_arrow_column_adopt(&a, bytes, out, err);
    if (st == PQ_OK) atomic_fetch_add(&job->nested_built, 1);
    free(fl);
    if (open) pq_darrow_close(&dx); /* the arrays it built free themselves */
    return st;
}

/* A flat field of a nested selection's unit from its values in device
 * memory (v, freed here), chunk k: built there, on a context of the
 * unit's own (units run in parallel), and adopted as *out. */
static pq_status build_flat_unit_on_device(const pq_reader *r, decode_job *job, size_t k, pq_column_values *v,
                                           pq_arrow_column **out, pq_error *err)
{
    pq_darrow_ctx dx = {0};
    pq_status st = pq_executor_arrow_open(job->exec, &dx, err);
    if (st != PQ_OK) {
        pq_executor_values_free(job->exec, v);
        return st;
    }
    st = build_flat_on_device(r, job->exec, &dx, k, NULL, PQ_OK, v, out, err);
    if (st == PQ_OK) atomic_fetch_add(&job->nested_built, 1);
    pq_darrow_close(&dx); /* the arrays it built free themselves */
    return st;
}

/* A nested unit (a selection with a nested column): field j of selected
 * row group g, packed into slot g * n + j, as pq_metadata_arrow_schema
 * exports the selection. */
static pq_status run_nested(pq_reader *r, pq_codec_ctx *cctx, decode_job *job, size_t g, size_t j, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    size_t n = r->sel.columns_len;
    size_t a = job->fields[j].a, m = job->fields[j].b - a;
    pq_column_values *vals = calloc(m, sizeof *vals);
    const pq_leaf **leaves = calloc(m, sizeof *leaves);
    pq_status st = vals && leaves ? PQ_OK : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    size_t done = 0;
    for (size_t i = 0; st == PQ_OK && i < m; i++) leaves[i] = &schema->leaves[r->sel.columns[job->order[a + i]]];
    /* device_output: a nested field built where its values are, when the
     * kernels decode every leaf (kept: the values of leaves [0, done) are
     * in device memory). */
    bool flat = st == PQ_OK && m == 1 && pq_reader_leaf_is_flat(schema, leaves[0]);
    bool keep = st == PQ_OK && (flat ? job->build_on_device && !(r->sel.filter && !r->opts.prune_only) &&
                                           flat_laid_out(r, pq_reader_chunk_at(r, g, job->order[a]))
                                     : nested_built_in_place(r, job, leaves, m));
    bool kept = keep;
    for (; st == PQ_OK && done < m; done++) {
        bool this_kept = false;
        st = decode_unit_chunk(r, job, cctx, pq_reader_chunk_at(r, g, job->order[a + done]), &vals[done], keep,
                               &this_kept, err);
        if (st != PQ_OK) memset(&vals[done], 0, sizeof vals[done]);
        if (st == PQ_OK && kept && !this_kept) {
            /* A leaf left to the CPU: the field is built on the host, the
             * leaves before it decoded there again. */
            for (size_t i = 0; st == PQ_OK && i < done; i++) {
                pq_executor_values_free(job->exec, &vals[i]);
                st = pq_chunk_decode(r, cctx, pq_reader_chunk_at(r, g, job->order[a + i]), &vals[i], err);
                if (st != PQ_OK) memset(&vals[i], 0, sizeof vals[i]);
            }
            kept = keep = false;
        }
    }
    kept = kept && st == PQ_OK;
    /* All leaves of a field keep the same rows: whole chunks, or the pages
     * of a field's only leaf (stage_pages.c, pages_may_be_skipped). */
    size_t first_k = pq_reader_chunk_at(r, g, job->order[a]);
    const pq_reader_chunk *first = &r->pages.chunks[first_k];
    size_t slot = g * n + j;
    if (st == PQ_OK) {
        if (flat && kept) {
            st = build_flat_unit_on_device(r, job, first_k, &vals[0], &r->out.cols[slot], err);
        } else if (flat) {
            st = pq_chunk_build_output(r, g, first_k, NULL, filter_keep(r, g), &vals[0], &r->out.cols[slot], err);
        } else if (kept) {
            st = build_nested_on_device(job, schema, pq_reader_leaf_field(schema, leaves[0]), leaves, vals, m,
                                        (int64_t)first->rows.rows, &r->out.cols[slot], err);
        } else { /* the leaves as the decode stage builds them (an INT96's unit) */
            int32_t field = pq_reader_leaf_field(schema, leaves[0]);
            pq_leaf *built = malloc(m * sizeof *built);
            const pq_leaf **bp = malloc(m * sizeof *bp);
            st = built && bp ? PQ_OK : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
            for (size_t i = 0; st == PQ_OK && i < m; i++) {
                built[i] = output_leaf(r, (uint32_t)(leaves[i] - schema->leaves), false);
                bp[i] = &built[i];
            }
            const int64_t *large = NULL; /* the writer's large_list levels */
            size_t nlarge = 0;
            pq_output_large_lists(r->sel.outputs, &large, &nlarge);
            if (st == PQ_OK)
                st = pq_arrow_nested_build_wide(schema, field, bp, vals, m, (int64_t)first->rows.rows, large, nlarge,
                                                &r->out.cols[slot], err);
            free(built);
            free(bp);
        }
    }
    r->out.first_row[slot] = pq_row_set_first(&first->rows);
    r->out.chunk[slot] = first_k;
    for (size_t k = 0; vals && k < m; k++) {
        if (keep && k < done) pq_executor_values_free(job->exec, &vals[k]); /* zeroed when built */
        else pq_column_values_free(&vals[k]);
        pq_reader_done_with_chunk(r, &r->pages.chunks[pq_reader_chunk_at(r, g, job->order[a + k])]);
    }
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
    size_t n = r->sel.columns_len;
    job->order = calloc(n ? n : 1, sizeof *job->order);
    job->fields = calloc(n ? n : 1, sizeof *job->fields);
    if (!job->order || !job->fields) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    size_t m = 0;
    for (uint32_t leaf = 0; leaf < schema->leaves_len; leaf++) {
        for (size_t c = 0; c < n; c++)
            if (r->sel.columns[c] == leaf) {
                if (pq_reader_leaf_field(schema, &schema->leaves[leaf]) < 0)
                    return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': bad schema path",
                                        schema->leaves[leaf].path);
                job->order[m++] = c;
                break;
            }
    }
    job->nfields = 0;
    for (size_t a = 0; a < m;) {
        int32_t field = pq_reader_leaf_field(schema, &schema->leaves[r->sel.columns[job->order[a]]]);
        size_t b = a + 1;
        while (b < m && pq_reader_leaf_field(schema, &schema->leaves[r->sel.columns[job->order[b]]]) == field)
            b++;
        job->fields[job->nfields++] = (field_span){a, b};
        a = b;
    }
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * The decode stage's arrays in device memory (opts.device_output)
 * ------------------------------------------------------------------------- */

/* Column c (rows of its whole length) copied through mem and adopted in its
 * place; `field` is its schema. */
static pq_status column_to_device(pq_arrow_column **c, const struct ArrowSchema *field, const pq_device_memory *mem,
                                  pq_error *err)
{
    struct ArrowArray batch, copy;
    pq_status st = pq_arrow_batch_export(c, NULL, 1, pq_arrow_column_length(*c), &batch, err);
    if (st != PQ_OK) return st;
    st = pq_arrow_array_copy(batch.children[0], field, mem, &copy, err);
    batch.release(&batch);
    if (st != PQ_OK) return st;
    uint64_t bytes = pq_arrow_column_bytes(*c);
    pq_arrow_column *adopted = NULL;
    if ((st = pq_arrow_column_adopt(&copy, bytes, &adopted, err)) != PQ_OK) return st;
    pq_arrow_column_release(*c);
    *c = adopted;
    return PQ_OK;
}

/* Shredded VARIANT fields (pq_output_rebuilds_variant) rebuilt as variants
 * in every selected row group's output, at the end of the stage; the row
 * groups in parallel. */
typedef struct variant_job {
    pq_reader *r;
    const struct ArrowSchema *storage; /* the selection's fields as decoded */
    const bool *rebuild;               /* per field of storage */
    pq_status *status;                 /* per selected row group */
    pq_error *errors;
} variant_job;

static bool variant_unit(void *ctx, size_t g, unsigned worker)
{
    (void)worker;
    variant_job *job = ctx;
    pq_reader *r = job->r;
    size_t n = r->sel.columns_len;
    pq_status st = PQ_OK;
    pq_error *err = &job->errors[g];
    for (int64_t j = 0; st == PQ_OK && j < job->storage->n_children; j++) {
        pq_arrow_column **c = &r->out.cols[g * n + (size_t)j];
        if (!job->rebuild[j] || !*c) continue;
        const struct ArrowSchema *field = job->storage->children[j];
        struct ArrowArray batch, rebuilt;
        st = pq_arrow_batch_export(c, NULL, 1, pq_arrow_column_length(*c), &batch, err);
        if (st != PQ_OK) break;
        st = pq_variant_rebuild(batch.children[0], field, &rebuilt, err);
        batch.release(&batch);
        pq_arrow_column *adopted = NULL;
        if (st == PQ_OK) st = pq_arrow_column_adopt(&rebuilt, pq_arrow_column_bytes(*c), &adopted, err);
        if (st != PQ_OK) {
            char what[PQ_ERROR_MESSAGE_SIZE];
            memcpy(what, err->message, sizeof what);
            st = pq_error_set(err, st, "row group %u, VARIANT column '%s': %s", r->sel.row_groups[g], field->name,
                              what);
            break;
        }
        pq_arrow_column_release(*c);
        *c = adopted;
    }
    job->status[g] = st;
    return st == PQ_OK;
}

static pq_status rebuild_variants(pq_reader *r, pq_error *err)
{
    size_t n = r->sel.columns_len, groups = r->sel.row_groups_len;
    const pq_schema *schema = pq_metadata_schema(r->md);
    bool any = false;
    const pq_schema_node *root = schema->nodes_len ? &schema->nodes[0] : NULL;
    for (int32_t k = 0; root && k < root->num_children && !any; k++) {
        const char *name = schema->nodes[root->children[k]].name;
        any = pq_output_rebuilds_variant(r->sel.outputs, schema, r->sel.columns, n, name);
    }
    if (!any || !groups) return PQ_OK;
    struct ArrowSchema storage;
    pq_status st = pq_output_storage_schema(r->sel.outputs, r->md, r->sel.columns, n, &storage, err);
    if (st != PQ_OK) return st;
    variant_job job = {.r = r, .storage = &storage};
    bool *rebuild = calloc(storage.n_children ? (size_t)storage.n_children : 1, sizeof *rebuild);
    job.rebuild = rebuild;
    job.status = calloc(groups, sizeof *job.status);
    job.errors = calloc(groups, sizeof *job.errors);
    if (!rebuild || !job.status || !job.errors) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    for (int64_t j = 0; st == PQ_OK && j < storage.n_children; j++)
        rebuild[j] = pq_output_rebuilds_variant(r->sel.outputs, schema, r->sel.columns, n, storage.children[j]->name);
    if (st == PQ_OK) {
        for (size_t g = 0; g < groups; g++) job.status[g] = PQ_ERR_STAGE; /* not run */
        pq_parallel_for(groups, threads_for(r), variant_unit, &job);
        for (size_t g = 0; g < groups && st == PQ_OK; g++)
            if (job.status[g] != PQ_OK) {
                *err = job.errors[g];
                st = job.status[g];
            }
    }
    free(rebuild);
    free(job.status);
    free(job.errors);
    storage.release(&storage);
    return st;
}

/* device_output, at the end of the stage: every array of r->out.cols not
 * yet in device memory (r->out.memory) copied there and adopted in its
 * place, counted in copied_to_device. */
static pq_status output_to_device(pq_reader *r, pq_error *err)
{
    if (r->out.memory == OUTPUT_ON_HOST) return PQ_OK;
    struct ArrowSchema schema;
    pq_status st = pq_output_selection_schema(r->sel.outputs, r->md, r->sel.columns, r->sel.columns_len, &schema, err);
    if (st != PQ_OK) return st;
    pq_device_memory mem = pq_executor_copy_memory(&r->out.exec);
    size_t n = r->sel.columns_len;
    for (size_t i = 0; st == PQ_OK && i < r->out.len; i++) {
        pq_arrow_column **c = &r->out.cols[i];
        if (!*c || pq_arrow_column_is_adopted(*c)) continue;
        size_t field = n ? i % n : 0; /* nested: the fields are packed first in a row group's slots */
        if ((int64_t)field >= schema.n_children) {
            st = pq_error_set(err, PQ_ERR_SCHEMA, "output slot %zu has no field in the batch schema", i);
            break;
        }
        if ((st = column_to_device(c, schema.children[field], &mem, err)) == PQ_OK) r->out.copied_to_device++;
    }
    schema.release(&schema);
    return st;
}

/* ---------------------------------------------------------------------------
 * The filter's rows taken from the output
 * ------------------------------------------------------------------------- */

typedef struct take_job {
    pq_reader *r;
    pq_status *status;      /* per selected row group */
    pq_error *errors;
    uint64_t *removed;
} take_job;

/* With a row index: the row-group row numbers of the `kept` rows of
 * `rows` whose bits are set in `keep`, before rows become [0, kept). */
static pq_status keep_row_numbers(pq_reader *r, size_t g, const pq_row_set *rows, const uint8_t *keep, int64_t kept,
                                  pq_error *err)
{
    uint64_t *nums = malloc((kept ? (size_t)kept : 1) * sizeof *nums);
    if (!nums) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    const pq_row_span *sp = pq_row_set_spans(rows);
    uint64_t bit = 0;
    size_t k = 0;
    for (size_t i = 0; i < rows->n; i++)
        for (uint64_t j = 0; j < sp[i].count; j++, bit++)
            if ((keep[bit >> 3] >> (bit & 7)) & 1 && k < (size_t)kept) nums[k++] = sp[i].first + j;
    free(r->out.row_numbers[g]);
    r->out.row_numbers[g] = nums;
    return PQ_OK;
}

/* Selected row group g's output columns reduced to the rows the filter
 * stage kept of its rows (out.rows[g], the select stage's until now). A
 * column decoded from runs of pages is gathered; one that lines up with
 * the rows is left as it is (export slices it) unless the filter drops
 * rows. The row group's rows become [0, kept). */
static pq_status take_group(pq_reader *r, size_t g, uint64_t *removed, pq_error *err)
{
    size_t n = r->sel.columns_len;
    pq_row_set *rows = &r->out.rows[g];
    int64_t len = (int64_t)rows->rows, kept = 0;
    const uint8_t *keep = pq_filter_keep(r, g);
    if (!keep) return pq_error_set(err, PQ_ERR_STAGE, "row group %u: the filter stage has not evaluated it",
                                   r->sel.row_groups[g]);
    kept = (int64_t)pq_bits_count(keep, (uint64_t)len);
    pq_status st = PQ_OK;
    bool aligned = true;
    for (size_t c = 0; c < n; c++)
        if (r->out.cols[g * n + c]) aligned = aligned && pq_reader_lined_up(&r->pages.chunks[r->out.chunk[g * n + c]].rows, rows);
    if (st == PQ_OK && kept == len && aligned) /* every row matched: the rows stay, a selected column holds them */
        for (size_t c = 0; c < n; c++)
            if (r->out.filtered[g * n + c]) r->out.first_row[g * n + c] = len ? pq_row_set_first(rows) : 0;
    if (st == PQ_OK && (kept < len || !aligned)) {
        /* Replace each output column by its delivered rows. */
        for (size_t c = 0; st == PQ_OK && c < n; c++) {
            size_t slot = g * n + c;
            if (!r->out.cols[slot]) continue; /* nested: fields are packed first */
            if (r->out.filtered[slot]) { /* decoded for the matching rows alone */
                if (pq_arrow_column_length(r->out.cols[slot]) != kept)
                    st = pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                      "RowGroup[%u].columns[%u]: %lld rows decoded for %lld matching rows",
                                      r->pages.chunks[r->out.chunk[slot]].info.row_group,
                                      r->pages.chunks[r->out.chunk[slot]].info.column,
                                      (long long)pq_arrow_column_length(r->out.cols[slot]), (long long)kept);
                continue;
            }
            pq_arrow_column *t;
            st = pq_reader_take_rows(&r->pages.chunks[r->out.chunk[slot]], r->out.cols[slot], rows, keep, kept, &t, err);
            if (st == PQ_OK) {
                pq_arrow_column_release(r->out.cols[slot]);
                r->out.cols[slot] = t;
                r->out.first_row[slot] = 0;
            }
        }
        if (st == PQ_OK && r->out.row_numbers) st = keep_row_numbers(r, g, rows, keep, kept, err);
        if (st == PQ_OK) {
            pq_row_set_free(rows);
            pq_row_set_init(rows, 0, (uint64_t)kept);
            *removed = (uint64_t)(len - kept);
        }
    }
    return st;
}

static bool take_unit(void *ctx, size_t g, unsigned worker)
{
    (void)worker;
    take_job *job = ctx;
    job->status[g] = take_group(job->r, g, &job->removed[g], &job->errors[g]);
    return job->status[g] == PQ_OK;
}

/* The filter stage's rows taken from every selected row group's output,
 * in parallel; the first failing row group's error is the stage's. */
static pq_status take_filtered(pq_reader *r, pq_error *err)
{
    size_t groups = r->sel.row_groups_len;
    if (!groups) return PQ_OK;
    take_job job = {.r = r};
    job.status = calloc(groups, sizeof *job.status);
    job.errors = calloc(groups, sizeof *job.errors);
    job.removed = calloc(groups, sizeof *job.removed);
    pq_status st = PQ_OK;
    if (!job.status || !job.errors || !job.removed) {
        st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    } else {
        for (size_t g = 0; g < groups; g++) job.status[g] = PQ_ERR_STAGE; /* not run */
        pq_parallel_for(groups, threads_for(r), take_unit, &job);
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
    return st;
}

/* The select stage's executor: whether flat plans go to the device
 * executor, and on what. */
static pq_status choose_device(pq_reader *r, decode_job *job, pq_error *err)
{
    pq_status st = pq_executor_usable(&r->sel.exec, err);
    if (st != PQ_OK) return st;
    job->exec = &r->sel.exec;
    job->kernels = pq_executor_kernels(job->exec);
    r->out.exec = r->sel.exec;
    snprintf(r->out.device_note, sizeof r->out.device_note, "%s", r->sel.device.note);
    return PQ_OK;
}

const char *pq_reader_device_note(const pq_reader *r)
{
    return r && r->stage >= PQ_STAGE_DECODE ? r->out.device_note : "";
}

pq_status pq_reader_stage_decode(pq_reader *r, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    pq_reader_free_decoded(r);

    size_t n = r->sel.row_groups_len * r->sel.columns_len; /* output slots */
    r->out.cols = calloc(n ? n : 1, sizeof *r->out.cols);
    r->out.first_row = calloc(n ? n : 1, sizeof *r->out.first_row);
    r->out.chunk = calloc(n ? n : 1, sizeof *r->out.chunk);
    r->out.filtered = calloc(n ? n : 1, sizeof *r->out.filtered);
    if (!r->out.cols || !r->out.first_row || !r->out.chunk || !r->out.filtered) {
        pq_reader_free_decoded(r);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    r->out.len = n;
    r->out.rows = calloc(r->sel.row_groups_len ? r->sel.row_groups_len : 1, sizeof *r->out.rows);
    for (size_t g = 0; r->out.rows && g < r->sel.row_groups_len; g++, r->out.groups++)
        if (!pq_row_set_copy(&r->out.rows[g], &r->sel.rows[g])) break;
    if (r->opts.row_index_name)
        r->out.row_numbers = calloc(r->sel.row_groups_len ? r->sel.row_groups_len : 1, sizeof *r->out.row_numbers);
    if (!r->out.rows || r->out.groups < r->sel.row_groups_len || (r->opts.row_index_name && !r->out.row_numbers)) {
        pq_reader_free_decoded(r);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (r->opts.row_index_name && r->opts.device_output) {
        pq_reader_free_decoded(r);
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "a row index (row_index_name) is not delivered with "
                                                     "device_output");
    }

    decode_job job = {.r = r, .flat = pq_reader_selection_is_flat(r, schema)};
    pq_status st = choose_device(r, &job, err);
    if (st == PQ_OK && r->opts.device_output && job.kernels) { /* the output stays on the device */
        r->out.memory = pq_executor_on_device(job.exec) ? OUTPUT_ON_DEVICE : OUTPUT_ON_HOST_DEVICE;
        pq_error derr;
        /* validate_utf8 reads the values on the host: built there, then
         * copied. Nested units open a context each (they run in parallel). */
        if (!r->opts.validate_utf8 && (!job.flat || pq_executor_arrow_open(job.exec, &job.dx, &derr) == PQ_OK))
            job.build_on_device = true;
    }
    size_t units = n;
    if (!job.flat) {
        st = plan_fields(r, &job, err);
        units = r->sel.row_groups_len * job.nfields;
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
    if (job.build_on_device && job.flat) pq_darrow_close(&job.dx); /* the arrays it built free themselves */
    r->out.device_built += atomic_load(&job.nested_built);
    if (st != PQ_OK) {
        pq_reader_free_decoded(r);
        return st;
    }
    /* Prune-only mode delivers whole row groups: nothing to filter. */
    if (r->sel.filter && !r->opts.prune_only && (st = take_filtered(r, err)) != PQ_OK) {
        pq_reader_free_decoded(r);
        return st;
    }
    if ((st = rebuild_variants(r, err)) != PQ_OK) {
        pq_reader_free_decoded(r);
        return st;
    }
    /* device_output: what was built on the host goes to the device once. */
    if ((st = output_to_device(r, err)) != PQ_OK) {
        pq_reader_free_decoded(r);
        return st;
    }
    pq_stage_counters *ds = &r->stats[PQ_STAGE_DECODE];
    ds->chunks = r->pages.chunks_len;
    for (size_t i = 0; i < n; i++) ds->bytes_out += pq_arrow_column_bytes(r->out.cols[i]);
    for (size_t g = 0; g < r->sel.row_groups_len; g++) ds->rows += r->out.rows[g].rows;
    if (job.kernels) {
        if (!job.flat) { /* the units' chunks, one plan each */
            ds->device_chunks += atomic_load(&job.nested_device);
            ds->cpu_chunks += atomic_load(&job.nested_cpu);
            r->out.resident_chunks += atomic_load(&job.nested_resident);
        }
        size_t at = strlen(r->out.device_note);
        snprintf(r->out.device_note + at, sizeof r->out.device_note - at, ": %llu chunks on the kernels, %llu on "
                 "the CPU%s%.120s%s", (unsigned long long)ds->device_chunks, (unsigned long long)ds->cpu_chunks,
                 job.fallback[0] ? " (first: " : "", job.fallback, job.fallback[0] ? ")" : "");
        if (r->out.memory != OUTPUT_ON_HOST) {
            at = strlen(r->out.device_note);
            snprintf(r->out.device_note + at, sizeof r->out.device_note - at,
                     "; output on the device: %llu arrays built there, %llu copied there",
                     (unsigned long long)r->out.device_built, (unsigned long long)r->out.copied_to_device);
        }
        if (r->opts.device_file) {
            at = strlen(r->out.device_note);
            snprintf(r->out.device_note + at, sizeof r->out.device_note - at,
                     "; %llu chunks decoded from device_file", (unsigned long long)r->out.resident_chunks);
        }
        if (r->filt.kernel_groups || r->filt.cpu_groups) { /* the filter stage's, as it ran */
            const char *why = r->filt.fallback;
            at = strlen(r->out.device_note);
            snprintf(r->out.device_note + at, sizeof r->out.device_note - at,
                     "; filter: %llu row groups on the kernels, %llu on the CPU%s%.120s%s; its columns: %llu "
                     "chunks decoded on the kernels, %llu on the CPU, %llu row groups evaluated where they were "
                     "decoded",
                     (unsigned long long)r->filt.kernel_groups, (unsigned long long)r->filt.cpu_groups,
                     why[0] ? " (first: " : "", why, why[0] ? ")" : "", (unsigned long long)r->filt.kernel_chunks,
                     (unsigned long long)r->filt.cpu_chunks, (unsigned long long)r->filt.kept_groups);
        }
    }
    return PQ_OK;
}
