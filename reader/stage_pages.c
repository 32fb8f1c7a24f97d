/*
 * stage_pages.c — the page-header stage: read every selected column chunk
 * and walk its page headers, keeping both: the decode stage then reads no
 * byte twice and walks no chunk twice.
 *
 * When the select stage keeps only some rows of a row group (a row range,
 * the page index), a chunk with an offset index is read in part: its head
 * (the dictionary page) and the runs of data pages that hold a kept row.
 * That takes two steps per chunk (the offset index, then the pages), and a
 * sans-IO reader asks for all offset indexes first, then for all page
 * ranges. With a filter, the projected columns it does not read wait until
 * it has been evaluated, and then read only the pages that hold a matching
 * row (late materialization).
 */
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "pages/buffer_pool.h"
#include "metadata/page_index.h"
#include "predicate/predicate.h"
#include "reader/parallel.h"
#include "reader/context.h"
#include "reader/keys.h"

/* Free what one chunk owns and zero it. */
static void chunk_clear(pq_reader_chunk *ch)
{
    free(ch->pages);
    free(ch->page_strings);
    free(ch->modules);
    pq_chunk_key_free(ch->key);
    pq_pool_give(ch->bytes);
    pq_shared_bytes_release(ch->hold);
    free(ch->parts);
    pq_row_set_free(&ch->rows);
    memset(ch, 0, sizeof *ch);
}

static void free_chunk_array(pq_reader_chunk *chunks, size_t n)
{
    for (size_t i = 0; chunks && i < n; i++) chunk_clear(&chunks[i]);
    free(chunks);
}

void pq_reader_free_chunks(pq_reader *r)
{
    free(r->pages.walk_flags);
    r->pages.walk_flags = NULL;
    free_chunk_array(r->pages.chunks, r->pages.chunks_len);
    r->pages.chunks = NULL;
    r->pages.chunks_len = r->pages.chunks_walked = 0;
    free_chunk_array(r->pages.prev_chunks, r->pages.prev_chunks_len);
    r->pages.prev_chunks = NULL;
    r->pages.prev_chunks_len = 0;
}

void pq_reader_keep_chunks_for_reuse(pq_reader *r)
{
    pq_reader_chunk *chunks = r->pages.chunks;
    size_t n = r->pages.chunks_len;
    r->pages.chunks = NULL;
    r->pages.chunks_len = r->pages.chunks_walked = 0;
    pq_reader_free_chunks(r); /* an older generation, if any */
    for (size_t i = 0; chunks && i < n; i++)
        if (chunks[i].step != CHUNK_WALKED) chunk_clear(&chunks[i]); /* not walked: never reused */
    r->pages.prev_chunks = chunks;
    r->pages.prev_chunks_len = n;
    r->pages.prev_hint = 0;
}

/* Take over a walked chunk of the previous selection for (rg, col) whose
 * kept pages hold every row of `need`. The previous plan's chunks of row
 * group rg lie in prev_chunks[lo, hi) (a plan is row-group-major). */
static bool reuse_walked(pq_reader *r, pq_reader_chunk *ch, const pq_row_set *need, size_t lo, size_t hi)
{
    /* Both plans run column by column too: start where the last match was,
     * so a like-for-like plan finds each chunk at once. */
    size_t len = hi > lo ? hi - lo : 0;
    size_t hint = r->pages.prev_hint >= lo && r->pages.prev_hint < hi ? r->pages.prev_hint - lo : 0;
    for (size_t step = 0; step < len; step++) {
        size_t i = lo + (hint + step) % len;
        pq_reader_chunk *old = &r->pages.prev_chunks[i];
        if (old->step != CHUNK_WALKED || old->info.row_group != ch->info.row_group ||
            old->info.column != ch->info.column)
            continue;
        if (!pq_row_set_contains(&old->rows, need)) return false;
        *ch = *old;
        memset(old, 0, sizeof *old); /* emptied: no longer CHUNK_WALKED */
        r->pages.prev_hint = i + 1;
        r->stats[PQ_STAGE_PAGE_HEADERS].reused++;
        return true;
    }
    return false;
}

/* Prefix an error with the chunk it concerns. */
static pq_status chunk_error(pq_error *err, pq_status st, const pq_reader_chunk *ch)
{
    char what[PQ_ERROR_MESSAGE_SIZE];
    memcpy(what, err->message, sizeof what);
    return pq_error_set(err, st, "RowGroup[%u].columns[%u]: %s", ch->info.row_group, ch->info.column,
                        what);
}

/* May the row range skip pages of leaf `col`? Only when its array is made
 * from it alone: the leaves of one nested field are assembled together and
 * must cover the same rows, but their pages end at different rows. */
static bool pages_may_be_skipped(const pq_reader *r, uint32_t col)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    const pq_leaf *leaf = &schema->leaves[col];
    if (pq_reader_leaf_is_flat(schema, leaf)) return true;
    int32_t field = pq_reader_leaf_field(schema, leaf);
    for (size_t c = 0; c < r->sel.columns_len; c++) {
        uint32_t other = r->sel.columns[c];
        if (other != col && pq_reader_leaf_field(schema, &schema->leaves[other]) == field) return false;
    }
    return true;
}

static bool has_offset_index(const pq_column_chunk *cc)
{
    unsigned both = PQ_CC_HAS_OFFSET_INDEX_OFFSET | PQ_CC_HAS_OFFSET_INDEX_LENGTH;
    /* An encrypted chunk's offset index is an encrypted module: the walk takes the whole chunk. */
    return (cc->set & both) == both && cc->offset_index_offset > 0 && cc->offset_index_length > 0 &&
           !pq_chunk_is_encrypted(cc);
}

/* Whether the filter reads leaf `leaf`. */
static bool filter_reads(const pq_reader *r, uint32_t leaf)
{
    size_t n = pq_expr_columns(r->sel.filter, NULL, 0);
    uint32_t stack[64];
    uint32_t *cols = n <= 64 ? stack : malloc(n * sizeof *cols);
    if (!cols) return true; /* out of memory: do not defer */
    pq_expr_columns(r->sel.filter, cols, n);
    bool found = false;
    for (size_t k = 0; k < n && !found; k++) found = cols[k] == leaf;
    if (cols != stack) free(cols);
    return found;
}

enum {
    WALK_SKIPPABLE = 1, /* pages_may_be_skipped: a row range may read part of the chunk */
    WALK_DEFERRED = 2   /* late materialization: a projected column the filter does not read,
                         * alone in its field, waits until the filter has narrowed the rows */
};

/* What plan_chunks and pq_reader_pages_plan_late need to know of each walk column,
 * the same in every row group: worked out once (the checks walk the
 * selection). */
static pq_status plan_columns(pq_reader *r, pq_error *err)
{
    size_t w = r->sel.walk_columns_len;
    free(r->pages.walk_flags);
    r->pages.walk_flags = calloc(w ? w : 1, 1);
    if (!r->pages.walk_flags) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    bool late = r->sel.filter && !r->opts.prune_only;
    for (size_t c = 0; c < w; c++) {
        uint32_t leaf = r->sel.walk_columns[c];
        if (pages_may_be_skipped(r, leaf)) r->pages.walk_flags[c] |= WALK_SKIPPABLE;
        if (late && c < r->sel.columns_len && (r->pages.walk_flags[c] & WALK_SKIPPABLE) && !filter_reads(r, leaf))
            r->pages.walk_flags[c] |= WALK_DEFERRED;
    }
    return PQ_OK;
}

/* Whether row set `rows` is every row of a row group of `rg_rows` rows. */
static bool whole_group(const pq_row_set *rows, int64_t rg_rows)
{
    return rows->rows == (uint64_t)rg_rows;
}

/* The whole chunk, all the row group's rows: one part. */
static pq_status plan_whole(pq_reader_chunk *ch, int64_t rg_rows, pq_error *err)
{
    free(ch->parts);
    ch->parts = malloc(sizeof *ch->parts);
    if (!ch->parts) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    ch->parts[0] = (pq_range){ch->info.offset, ch->info.length};
    ch->nparts = 1;
    ch->data_pages = 0;
    pq_row_set_free(&ch->rows);
    pq_row_set_init(&ch->rows, 0, (uint64_t)rg_rows);
    ch->step = CHUNK_NEED_PAGES;
    return PQ_OK;
}

/* Nothing to read: no rows. */
static void plan_empty(pq_reader_chunk *ch)
{
    free(ch->parts);
    ch->parts = NULL;
    ch->nparts = 0;
    ch->data_pages = 0;
    pq_row_set_free(&ch->rows);
    ch->step = CHUNK_WALKED;
}

/* Where the previous plan's chunks of each selected row group lie:
 * prev_chunks[lo[g], hi[g]) (empty when it had none). Searching only there
 * keeps a plan over new row groups (a reader iterating row groups) from
 * scanning every previous chunk for each new one. */
static pq_status prev_bounds(const pq_reader *r, size_t **lo_out, size_t **hi_out, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    size_t n = r->sel.row_groups_len ? r->sel.row_groups_len : 1;
    size_t *lo = calloc(n, sizeof *lo), *hi = calloc(n, sizeof *hi);
    uint32_t *sel_of = malloc((fm->row_groups_len ? fm->row_groups_len : 1) * sizeof *sel_of);
    if (!lo || !hi || !sel_of) {
        free(lo);
        free(hi);
        free(sel_of);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    for (uint32_t rg = 0; rg < fm->row_groups_len; rg++) sel_of[rg] = UINT32_MAX;
    for (size_t g = 0; g < r->sel.row_groups_len; g++) sel_of[r->sel.row_groups[g]] = (uint32_t)g;
    for (size_t i = 0; i < r->pages.prev_chunks_len; i++) {
        const pq_reader_chunk *old = &r->pages.prev_chunks[i];
        if (old->step != CHUNK_WALKED || old->info.row_group >= fm->row_groups_len) continue;
        uint32_t g = sel_of[old->info.row_group];
        if (g == UINT32_MAX) continue;
        if (hi[g] == lo[g]) lo[g] = i; /* first one */
        hi[g] = i + 1;
    }
    free(sel_of);
    *lo_out = lo;
    *hi_out = hi;
    return PQ_OK;
}

/* Lay out one entry per selected chunk with its byte range. */
static pq_status plan_chunks(pq_reader *r, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    size_t n = r->sel.row_groups_len * r->sel.walk_columns_len;
    pq_status pst = plan_columns(r, err);
    if (pst != PQ_OK) return pst;
    size_t *prev_lo = NULL, *prev_hi = NULL;
    if ((pst = prev_bounds(r, &prev_lo, &prev_hi, err)) != PQ_OK) return pst;
    r->pages.chunks = calloc(n ? n : 1, sizeof *r->pages.chunks);
    if (!r->pages.chunks) {
        free(prev_lo);
        free(prev_hi);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    r->pages.chunks_len = n;
    size_t k = 0;
    pq_status st = PQ_OK;
    for (size_t g = 0; st == PQ_OK && g < r->sel.row_groups_len; g++) {
        uint32_t rg = r->sel.row_groups[g];
        int64_t rows = fm->row_groups[rg].num_rows;
        bool cut = !whole_group(&r->sel.rows[g], rows);
        for (size_t c = 0; st == PQ_OK && c < r->sel.walk_columns_len; c++, k++) {
            uint32_t col = r->sel.walk_columns[c];
            const pq_column_chunk *cc = fm->row_groups[rg].columns[col];
            pq_reader_chunk *ch = &r->pages.chunks[k];
            ch->info.row_group = rg;
            ch->info.column = col;
            if (reuse_walked(r, ch, &r->sel.rows[g], prev_lo[g], prev_hi[g])) continue;
            if (pq_chunk_is_encrypted(cc)) {
                /* No key: say so now, naming the column, before any read. */
                uint8_t key[PQ_CRYPTO_MAX_KEY];
                pq_chunk_cipher cipher;
                st = pq_chunk_cipher_for(r->md, r->opts.decryption, rg, col, &cipher, key, err);
                pq_crypto_wipe(key, sizeof key);
                if (st != PQ_OK) {
                    st = chunk_error(err, st, ch);
                    break;
                }
            }
            st = pq_chunk_byte_range_for_writer(cc, fm->created_by, r->footer.data_end, &ch->info.offset,
                                                &ch->info.length, err);
            if (st != PQ_OK) {
                st = chunk_error(err, st, ch);
            } else if (r->opts.memory_limit && ch->info.length > r->opts.memory_limit) {
                st = pq_error_set(err, PQ_ERR_MEMORY_LIMIT,
                                  "RowGroup[%u].columns[%u]: chunk of %llu bytes exceeds the memory limit", rg,
                                  col, (unsigned long long)ch->info.length);
            } else if (r->pages.walk_flags[c] & WALK_DEFERRED) {
                ch->step = CHUNK_DEFERRED; /* planned by the filter stage (pq_reader_pages_plan_late) */
            } else if (cut && has_offset_index(cc) && (r->pages.walk_flags[c] & WALK_SKIPPABLE)) {
                ch->step = CHUNK_NEED_OFFSET_INDEX;
            } else {
                st = plan_whole(ch, rows, err);
            }
        }
    }
    free(prev_lo);
    free(prev_hi);
    return st;
}

/* From the offset index, the parts of the chunk to read: its head (the
 * dictionary page) and each run of data pages that hold a row of `need`
 * whose bit in `keep` is set (keep NULL: any row of it). */
static pq_status plan_parts(pq_reader_chunk *ch, const pq_offset_index *oi, const pq_row_set *need,
                            const uint8_t *keep, int64_t rg_rows, pq_error *err)
{
    free(ch->parts);
    ch->parts = malloc((oi->npages + 1) * sizeof *ch->parts);
    if (!ch->parts) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    pq_row_set_free(&ch->rows);
    ch->nparts = 0;
    ch->data_pages = 0;
    uint64_t head_end = (uint64_t)oi->pages[0].offset;
    pq_row_cursor cur = {0, 0};
    for (size_t p = 0; p < oi->npages;) {
        uint64_t a = (uint64_t)oi->pages[p].first_row_index;
        uint64_t b = p + 1 < oi->npages ? (uint64_t)oi->pages[p + 1].first_row_index : (uint64_t)rg_rows;
        if (!pq_row_set_hits(need, keep, a, b, &cur)) {
            p++;
            continue;
        }
        size_t q = p + 1; /* the run of pages [p, q) */
        for (; q < oi->npages; q++) {
            uint64_t qa = (uint64_t)oi->pages[q].first_row_index;
            uint64_t qb = q + 1 < oi->npages ? (uint64_t)oi->pages[q + 1].first_row_index : (uint64_t)rg_rows;
            if (!pq_row_set_hits(need, keep, qa, qb, &cur)) break;
        }
        uint64_t start = (uint64_t)oi->pages[p].offset;
        uint64_t end = (uint64_t)oi->pages[q - 1].offset + (uint64_t)oi->pages[q - 1].compressed_page_size;
        if (ch->nparts == 0 && head_end > ch->info.offset) { /* the head, joined to a run that follows it */
            if (p == 0) start = ch->info.offset;
            else ch->parts[ch->nparts++] = (pq_range){ch->info.offset, head_end - ch->info.offset};
        }
        ch->parts[ch->nparts++] = (pq_range){start, end - start};
        ch->data_pages += q - p;
        uint64_t last = q < oi->npages ? (uint64_t)oi->pages[q].first_row_index : (uint64_t)rg_rows;
        if (!pq_row_set_add(&ch->rows, a, last - a)) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        p = q;
    }
    if (ch->data_pages == 0) plan_empty(ch); /* no page holds a row asked for */
    else ch->step = CHUNK_NEED_PAGES;
    return PQ_OK;
}

/* Selected row group index g of the chunk at entry k. */
static size_t chunk_group(const pq_reader *r, size_t k)
{
    return r->sel.walk_columns_len ? k / r->sel.walk_columns_len : 0;
}

/* Read and decode the offset index of entry k; plan its parts (a deferred
 * column's for the rows whose bit in late_keep[g] is set). */
static pq_status read_offset_index(pq_reader *r, size_t k, const uint8_t *const *late_keep, pq_error *err)
{
    pq_reader_chunk *ch = &r->pages.chunks[k];
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_row_group *rg = &fm->row_groups[ch->info.row_group];
    const pq_column_chunk *cc = rg->columns[ch->info.column];
    uint64_t off = (uint64_t)cc->offset_index_offset;
    size_t len = (size_t)cc->offset_index_length;
    if (off < 4 || off > r->footer.data_end || len > r->footer.data_end - off)
        return chunk_error(err, pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                             "offset index [%llu, +%zu) is outside the data region (before the footer)",
                                             (unsigned long long)off, len), ch);
    uint8_t *buf = malloc(len);
    if (!buf) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for an offset index");
    pq_status st = pq_reader_read_range(r, r->pages.walk_stage, off, len, buf, err);
    if (st == PQ_OK) {
        pq_offset_index oi;
        st = pq_offset_index_decode(buf, len, ch->info.offset, ch->info.length, rg->num_rows, &oi, err);
        if (st == PQ_OK) {
            /* A deferred column needs only the pages that hold a matching row. */
            size_t g = chunk_group(r, k);
            const uint8_t *keep =
                late_keep && (r->pages.walk_flags[k % r->sel.walk_columns_len] & WALK_DEFERRED) ? late_keep[g] : NULL;
            st = plan_parts(ch, &oi, &r->sel.rows[g], keep, rg->num_rows, err);
            if (st == PQ_OK) r->stats[r->pages.walk_stage].pages_skipped += oi.npages - ch->data_pages;
            pq_offset_index_free(&oi);
        } else {
            st = chunk_error(err, st, ch);
        }
    }
    free(buf);
    return st;
}

/* ---------------------------------------------------------------------------
 * Coalescing nearby ranges
 * ------------------------------------------------------------------------- */

#define DEFAULT_COALESCE_GAP (8u << 10)
#define DEFAULT_COALESCE_MAX (32ull << 20)

static int cmp_range(const void *a, const void *b)
{
    const pq_range *x = a, *y = b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* The parts still to read of chunks waiting for their pages, not already
 * supplied, sorted and joined where they lie at most the gap apart (up to
 * the maximum size). *out is malloc'd (NULL when none); with `joined` not
 * NULL, *joined (malloc'd too) gets how many parts each range holds. */
static size_t coalesced_parts(const pq_reader *r, pq_range **out, size_t **joined)
{
    size_t n = 0;
    *out = NULL;
    if (joined) *joined = NULL;
    for (size_t k = 0; k < r->pages.chunks_len; k++)
        if (r->pages.chunks[k].step == CHUNK_NEED_PAGES) n += r->pages.chunks[k].nparts;
    if (!n) return 0;
    pq_range *v = malloc(n * sizeof *v);
    size_t *parts = joined ? malloc(n * sizeof *parts) : NULL;
    if (!v || (joined && !parts)) {
        free(v);
        free(parts);
        return 0;
    }
    size_t m = 0;
    for (size_t k = 0; k < r->pages.chunks_len; k++) {
        const pq_reader_chunk *ch = &r->pages.chunks[k];
        if (ch->step != CHUNK_NEED_PAGES) continue;
        for (size_t p = 0; p < ch->nparts; p++)
            if (!pq_supplied_covers(&r->io.supplied, ch->parts[p].offset, ch->parts[p].length))
                v[m++] = ch->parts[p];
    }
    qsort(v, m, sizeof *v, cmp_range);
    uint64_t gap = r->opts.coalesce_gap ? r->opts.coalesce_gap : DEFAULT_COALESCE_GAP;
    uint64_t max = r->opts.coalesce_max ? r->opts.coalesce_max : DEFAULT_COALESCE_MAX;
    size_t out_n = 0;
    for (size_t i = 0; i < m; i++) {
        pq_range *last = out_n ? &v[out_n - 1] : NULL;
        uint64_t end = last ? last->offset + last->length : 0;
        uint64_t new_end = v[i].offset + v[i].length;
        if (last && !r->opts.no_coalescing && v[i].offset <= end + gap &&
            (new_end > end ? new_end : end) - last->offset <= max) {
            if (new_end > end) last->length = new_end - last->offset;
            if (parts) parts[out_n - 1]++;
        } else {
            if (parts) parts[out_n] = 1;
            v[out_n++] = v[i];
        }
    }
    *out = v;
    if (joined) *joined = parts;
    return out_n;
}

/* Whether `tasks` reads or walks of a source the reader owns go to the
 * decode threads: more than one of them, and threads set above 1, or left
 * to the library (0) with at least PQ_PARALLEL_MIN_BYTES to read. */
static bool on_threads(const pq_reader *r, size_t tasks, uint64_t bytes)
{
    return r->opts.threads != 1 && tasks > 1 && (r->opts.threads > 1 || bytes >= PQ_PARALLEL_MIN_BYTES);
}

/* One prefetch read of a parallel prefetch. */
typedef struct fetch_job {
    pq_reader *r;
    const pq_range *ranges;
    uint8_t **bufs;
    pq_status *status;
    pq_error *errors;
} fetch_job;

static bool fetch_task(void *ctx, size_t i, unsigned worker)
{
    (void)worker;
    fetch_job *job = ctx;
    if (!job->bufs[i]) return true;
    const pq_range *g = &job->ranges[i];
    job->status[i] = job->r->io.src.read_at(job->r->io.src.user, g->offset, (size_t)g->length, job->bufs[i],
                                         &job->errors[i]);
    return job->status[i] == PQ_OK;
}

/* Read the joined ranges that span more than one part through the source,
 * keeping them for the walk (supplied store): many small chunks cost one
 * read instead of one each. A file read with more than one thread reads
 * them on the decode threads (its reads are thread-safe), so that the copy
 * out of the page cache is not one thread's alone. */
static pq_status prefetch(pq_reader *r, pq_error *err)
{
    if (r->opts.no_coalescing || (r->io.kind != SOURCE_FILE && r->io.kind != SOURCE_CALLER)) return PQ_OK;
    if (r->io.kind == SOURCE_FILE && r->io.file.map) return PQ_OK; /* nothing to join: pages are read where they lie */
    pq_range *ranges;
    size_t *joined;
    size_t n = coalesced_parts(r, &ranges, &joined);
    uint8_t **bufs = n ? calloc(n, sizeof *bufs) : NULL;
    pq_status *status = n ? calloc(n, sizeof *status) : NULL;
    pq_error *errors = n ? calloc(n, sizeof *errors) : NULL;
    pq_status st = n && (!bufs || !status || !errors) ? pq_error_set(err, PQ_ERR_NOMEM, "out of memory") : PQ_OK;
    size_t reads = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; st == PQ_OK && i < n; i++) {
        if (joined[i] < 2) continue; /* one part: the walk reads it itself */
        if (r->opts.memory_limit && ranges[i].length > r->opts.memory_limit) continue; /* read part by part */
        if (!(bufs[i] = pq_pool_alloc((size_t)ranges[i].length)))
            st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a %llu-byte read",
                              (unsigned long long)ranges[i].length);
        reads++;
        bytes += ranges[i].length;
    }
    if (st == PQ_OK && r->io.kind == SOURCE_FILE && on_threads(r, reads, bytes)) {
        fetch_job job = {.r = r, .ranges = ranges, .bufs = bufs, .status = status, .errors = errors};
        pq_parallel_for(n, r->opts.threads, fetch_task, &job);
        for (size_t i = 0; st == PQ_OK && i < n; i++) {
            if (!bufs[i]) continue;
            if (status[i] != PQ_OK) {
                *err = errors[i];
                st = status[i];
                break;
            }
            r->stats[r->pages.walk_stage].bytes_read += ranges[i].length;
            r->stats[r->pages.walk_stage].reads++;
        }
    } else {
        for (size_t i = 0; st == PQ_OK && i < n; i++)
            if (bufs[i])
                st = pq_reader_read_range(r, r->pages.walk_stage, ranges[i].offset, (size_t)ranges[i].length,
                                          bufs[i], err);
    }
    for (size_t i = 0; i < n; i++) {
        if (!bufs || !bufs[i]) continue;
        if (st == PQ_OK) st = pq_supplied_adopt(&r->io.supplied, ranges[i].offset, bufs[i], (size_t)ranges[i].length, err);
        else pq_pool_give(bufs[i]); /* adopt takes the buffer, failing or not */
    }
    free(bufs);
    free(status);
    free(errors);
    free(ranges);
    free(joined);
    return st;
}

size_t pq_reader_pages_needed(const pq_reader *r, pq_range *out, size_t cap)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    size_t count = 0;
    /* Offset indexes first: the page ranges depend on them. */
    bool any_index = false;
    for (size_t i = 0; i < r->pages.chunks_len; i++) {
        const pq_reader_chunk *ch = &r->pages.chunks[i];
        if (ch->step != CHUNK_NEED_OFFSET_INDEX) continue;
        any_index = true;
        const pq_column_chunk *cc = fm->row_groups[ch->info.row_group].columns[ch->info.column];
        pq_range want = {(uint64_t)cc->offset_index_offset, (uint64_t)cc->offset_index_length};
        if (pq_supplied_covers(&r->io.supplied, want.offset, want.length)) continue;
        if (count < cap) out[count] = want;
        count++;
    }
    if (any_index) return count;
    /* The pages' ranges, joined where they lie close (coalescing options). */
    pq_range *ranges;
    size_t n = coalesced_parts(r, &ranges, NULL);
    for (size_t i = 0; i < n; i++) {
        if (count < cap) out[count] = ranges[i];
        count++;
    }
    free(ranges);
    return count;
}

/* What a walk adds to the stage's counters. Parallel walks each fill their
 * own, summed after the join. */
typedef struct walk_acc {
    uint64_t bytes, reads, chunks;
    pq_page_walk_counters wc;
} walk_acc;

static void acc_merge(pq_reader *r, const walk_acc *a)
{
    pq_stage_counters *st = &r->stats[r->pages.walk_stage];
    st->bytes_read += a->bytes;
    st->reads += a->reads;
    st->chunks += a->chunks;
    st->pages += a->wc.pages;
    pq_page_walk_counters *w = &r->pages.walk_counters;
    w->walks += a->wc.walks;
    w->pages += a->wc.pages;
    w->data_pages += a->wc.data_pages;
    w->dictionary_pages += a->wc.dictionary_pages;
    w->index_pages += a->wc.index_pages;
    w->header_bytes += a->wc.header_bytes;
    w->crc_checked += a->wc.crc_checked;
}

/* Bytes of the file: from the source directly on a parallel walk (file and
 * memory sources, whose reads are thread-safe), else through
 * pq_reader_read_range (supplied ranges, caller sources; it counts). */
static pq_status read_part(pq_reader *r, bool direct, uint64_t off, size_t len, uint8_t *dst, walk_acc *acc,
                           pq_error *err)
{
    if (!direct) return pq_reader_read_range(r, r->pages.walk_stage, off, len, dst, err);
    if (pq_supplied_copy(&r->io.supplied, off, len, dst)) return PQ_OK; /* prefetched, counted there */
    pq_status st = r->io.src.read_at(r->io.src.user, off, len, dst, err);
    if (st == PQ_OK) {
        acc->bytes += len;
        acc->reads++;
    }
    return st;
}

/* Walk `len` bytes holding whole pages, appending them to *pages; their
 * offsets are shifted by `base` (where these bytes start in the chunk's
 * kept bytes). */
/* The pages of `len` bytes at `bytes`, or with bytes NULL of the file's
 * bytes at file offset `at` read a header at a time (walked_by_reads);
 * `base` is their chunk offset. */
static pq_status walk_part(const pq_reader *r, const uint8_t *bytes, uint64_t at, uint64_t len, int64_t num_values,
                           uint64_t base, pq_page_info **pages, size_t *npages, walk_acc *acc, pq_error *err)
{
    unsigned flags = r->opts.verify_checksums ? PQ_WALK_VERIFY_CRC : 0;
    pq_page_info *got = NULL;
    size_t ngot = 0;
    pq_status st = bytes ? pq_page_walk(bytes, len, num_values, flags, &got, &ngot, &acc->wc, err)
                         : pq_page_walk_read(pq_file_source_pread, (void *)&r->io.file, at, len, num_values, flags,
                                             &got, &ngot, &acc->wc, err);
    if (st == PQ_OK && ngot) {
        pq_page_info *all = realloc(*pages, (*npages + ngot) * sizeof *all);
        if (!all) {
            st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory for page headers");
        } else {
            for (size_t i = 0; i < ngot; i++) {
                got[i].header_offset += base;
                got[i].data_offset += base;
                all[*npages + i] = got[i];
            }
            *pages = all;
            *npages += ngot;
        }
    }
    free(got);
    return st;
}

/* An encrypted chunk (always read whole: its offset index is not used):
 * its headers decrypted, its pages left for the decode to decrypt. */
static pq_status walk_encrypted(const pq_reader *r, pq_reader_chunk *ch, const uint8_t *bytes, size_t len,
                                pq_page_info **pages, size_t *npages, walk_acc *acc, pq_error *err)
{
    const pq_column_chunk *cc = pq_metadata_file(r->md)->row_groups[ch->info.row_group].columns[ch->info.column];
    if (ch->data_pages) return pq_error_set(err, PQ_ERR_UNSUPPORTED, "an encrypted chunk read in parts");
    pq_chunk_key *key = pq_chunk_key_new(r->md, r->opts.decryption, ch->info.row_group, ch->info.column, err);
    if (!key) return err->code;
    pq_page_module *modules = NULL;
    pq_status st = pq_page_walk_encrypted_headers(bytes, len, cc->meta_data.num_values, &key->cipher, pages,
                                                  &modules, npages, &acc->wc, err);
    if (st != PQ_OK) {
        pq_chunk_key_free(key);
        free(modules);
        return st;
    }
    ch->key = key;
    ch->modules = modules;
    return PQ_OK;
}

static size_t count_data_pages(const pq_page_info *pages, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += pages[i].type == PQ_PAGE_DATA || pages[i].type == PQ_PAGE_DATA_V2;
    return k;
}

/* The file's bytes where they lie, when the whole file is addressable
 * (a memory source, a mapped file); else NULL. */
static const uint8_t *file_in_place(const pq_reader *r)
{
    if (r->io.kind == SOURCE_MEMORY) return (const uint8_t *)r->io.memory.data;
    if (r->io.kind == SOURCE_FILE) return r->io.file.map;
    return NULL;
}

/* A whole BYTE_ARRAY chunk's string bytes per data page from its offset
 * index's SizeStatistics (unencoded_byte_array_data_bytes), so that its
 * output is sized ahead without a size pass; NULL when the writer left
 * them out, the index does not fit the walked pages, or the file is not
 * at hand (a caller's or remote source: a round trip costs more than the
 * size pass). */
static int64_t *page_strings(const pq_reader *r, const pq_column_chunk *cc, const pq_reader_chunk *ch)
{
    const uint8_t *whole = file_in_place(r);
    const pq_schema *schema = pq_metadata_schema(r->md);
    if (!whole || !has_offset_index(cc) || ch->info.column >= schema->leaves_len ||
        schema->leaves[ch->info.column].physical_type != PQ_BYTE_ARRAY)
        return NULL;
    uint64_t off = (uint64_t)cc->offset_index_offset;
    size_t len = (size_t)cc->offset_index_length;
    if (off < 4 || off > r->footer.data_end || len > r->footer.data_end - off) return NULL;
    pq_offset_index oi;
    pq_error err;
    const pq_row_group *rg = &pq_metadata_file(r->md)->row_groups[ch->info.row_group];
    if (pq_offset_index_decode(whole + off, len, ch->info.offset, ch->info.length, rg->num_rows, &oi, &err) != PQ_OK)
        return NULL; /* a bad index is reported where it is needed (row ranges) */
    int64_t *sizes = NULL;
    if (oi.unencoded_bytes && oi.npages == count_data_pages(ch->pages, ch->info.npages)) {
        sizes = oi.unencoded_bytes;
        oi.unencoded_bytes = NULL;
    }
    pq_offset_index_free(&oi);
    return sizes;
}

/* Whether a chunk used where it lies in the map has its headers read
 * through pread, not the map: in a file whose pages are dropped as they
 * are decoded, a walk through the map would map every page header (the
 * kernel maps the page cache's large folios whole), 2.3 GB of lineitem
 * SF10 beside what the process holds. */
static bool walked_by_reads(const pq_reader *r, bool encrypted)
{
    return r->io.kind == SOURCE_FILE && !encrypted && !r->opts.verify_checksums &&
           pq_file_source_drops_pages(&r->io.file);
}

/* Whether the parts are in file order, apart, and inside the chunk: then
 * the span from the chunk's first byte to the last part's end holds them
 * at their own places. */
static bool parts_in_chunk(const pq_reader_chunk *ch)
{
    uint64_t at = ch->info.offset, end = ch->info.offset + ch->info.length;
    for (size_t p = 0; p < ch->nparts; p++) {
        if (ch->parts[p].offset < at || ch->parts[p].length > end - ch->parts[p].offset) return false;
        at = ch->parts[p].offset + ch->parts[p].length;
    }
    return true;
}

/* Read a chunk's kept parts and walk their pages. In a memory source or a
 * mapped file the parts are used where they lie, without a copy, and the
 * pages' offsets are from the chunk's first byte; copied parts are laid
 * end to end and the offsets are into that copy. */
static pq_status walk_chunk(pq_reader *r, pq_reader_chunk *ch, bool direct, walk_acc *acc, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_column_chunk *cc = fm->row_groups[ch->info.row_group].columns[ch->info.column];
    uint64_t total = 0;
    for (size_t p = 0; p < ch->nparts; p++) total += ch->parts[p].length;
    size_t len = (size_t)total;
    pq_status st = PQ_OK;
    uint8_t *owned = NULL;
    const uint8_t *bytes, *whole = file_in_place(r);
    pq_shared_bytes *hold = NULL;
    uint64_t origin = ch->nparts ? ch->parts[0].offset : ch->info.offset; /* file offset of bytes[0] */
    bool encrypted = pq_chunk_is_encrypted(cc), in_place = false;
    if (whole && ch->nparts && parts_in_chunk(ch)) {
        in_place = true;
        /* bounds: plan_chunks keeps the chunk inside the file; no read_at call */
        origin = ch->info.offset;
        bytes = whole + origin;
        acc->bytes += len;
        if (r->io.kind == SOURCE_MEMORY) acc->reads++;
    } else if (ch->nparts == 1 &&
               (bytes = pq_supplied_borrow(&r->io.supplied, ch->parts[0].offset, len, &hold)) != NULL) {
        /* Fetched ahead with its neighbours (prefetch, batched reads):
         * used where it lies, counted when fetched. */
    } else {
        owned = pq_pool_alloc(len);
        if (!owned) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a %zu-byte chunk", len);
        uint64_t at = 0;
        for (size_t p = 0; st == PQ_OK && p < ch->nparts; p++) {
            st = read_part(r, direct, ch->parts[p].offset, (size_t)ch->parts[p].length, owned + at, acc, err);
            at += ch->parts[p].length;
        }
        if (st != PQ_OK) {
            free(owned);
            return st;
        }
        bytes = owned;
    }
    pq_page_info *pages = NULL;
    size_t npages = 0;
    const uint8_t *walked = in_place && walked_by_reads(r, encrypted) ? NULL : bytes; /* NULL: by pread */
    if (encrypted) {
        st = walk_encrypted(r, ch, bytes, len, &pages, &npages, acc, err);
    } else if (ch->data_pages == 0) {
        /* The whole chunk: its value count says where the pages end. */
        st = walk_part(r, walked, origin, len, cc->meta_data.num_values, 0, &pages, &npages, acc, err);
    } else {
        uint64_t at = 0;
        for (size_t p = 0; st == PQ_OK && p < ch->nparts; p++) {
            if (!owned && !hold) at = ch->parts[p].offset - origin; /* in place: the part's own position */
            st = walk_part(r, walked ? walked + at : NULL, origin + at, ch->parts[p].length, -1, at, &pages, &npages,
                           acc, err);
            at += ch->parts[p].length;
        }
        if (st == PQ_OK && count_data_pages(pages, npages) != ch->data_pages)
            st = pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                              "the offset index lists %zu data pages for rows [%llu, %llu) but the "
                              "page headers there hold %zu",
                              ch->data_pages, (unsigned long long)pq_row_set_first(&ch->rows),
                              (unsigned long long)pq_row_set_end(&ch->rows),
                              count_data_pages(pages, npages));
    }
    if (st != PQ_OK) {
        free(pages);
        free(owned);
        pq_shared_bytes_release(hold);
        return chunk_error(err, st, ch);
    }
    ch->bytes = owned;
    ch->hold = hold;
    ch->data = bytes;
    ch->data_len = owned || hold || !ch->nparts
                       ? len
                       : (size_t)(ch->parts[ch->nparts - 1].offset + ch->parts[ch->nparts - 1].length - origin);
    /* (an encrypted chunk's stored bytes are of no use to the device as they lie) */
    ch->origin = encrypted || ((owned || hold) && ch->nparts > 1) ? UINT64_MAX : origin;
    ch->pages = pages;
    ch->info.pages = pages;
    ch->info.npages = npages;
    ch->step = CHUNK_WALKED;
    acc->chunks++;
    if (ch->data_pages == 0 && !encrypted) ch->page_strings = page_strings(r, cc, ch);
    return PQ_OK;
}

/* Parallel walks: one task per chunk, each with its own counters and error;
 * the first failure in chunk order is the stage's, as on one thread. */
typedef struct walk_job {
    pq_reader *r;
    size_t first;
    walk_acc *acc;
    pq_status *status;
    pq_error *errors;
} walk_job;

static bool walk_task(void *ctx, size_t i, unsigned worker)
{
    (void)worker;
    walk_job *job = ctx;
    pq_reader_chunk *ch = &job->r->pages.chunks[job->first + i];
    if (ch->step == CHUNK_WALKED || ch->step == CHUNK_DEFERRED) {
        job->status[i] = PQ_OK;
        return true;
    }
    job->status[i] = walk_chunk(job->r, ch, true, &job->acc[i], &job->errors[i]);
    return job->status[i] == PQ_OK;
}

static pq_status walk_parallel(pq_reader *r, pq_error *err)
{
    size_t first = 0, n = r->pages.chunks_len;
    walk_job job = {.r = r, .first = first};
    job.acc = calloc(n, sizeof *job.acc);
    job.status = calloc(n, sizeof *job.status);
    job.errors = calloc(n, sizeof *job.errors);
    pq_status st = PQ_OK;
    if (!job.acc || !job.status || !job.errors) {
        st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    } else {
        for (size_t i = 0; i < n; i++) job.status[i] = PQ_ERR_STAGE; /* not run */
        pq_parallel_for(n, r->opts.threads, walk_task, &job);
        for (size_t i = 0; i < n; i++) acc_merge(r, &job.acc[i]);
        for (size_t i = 0; i < n && st == PQ_OK; i++)
            if (job.status[i] != PQ_OK) {
                *err = job.errors[i];
                st = job.status[i];
            }
        if (st == PQ_OK) r->pages.chunks_walked = r->pages.chunks_len;
    }
    free(job.acc);
    free(job.status);
    free(job.errors);
    return st;
}

static pq_status need_more(const pq_reader *r, pq_error *err)
{
    size_t missing = pq_reader_pages_needed(r, NULL, 0);
    return pq_error_set(err, PQ_ERR_NEED_DATA,
                        "the page-header stage needs %zu more range%s (see pq_reader_needed_ranges)",
                        missing, missing == 1 ? "" : "s");
}

/* Bytes the chunks still to walk will read. */
static uint64_t pending_bytes(const pq_reader *r)
{
    uint64_t total = 0;
    for (size_t k = 0; k < r->pages.chunks_len; k++) {
        const pq_reader_chunk *ch = &r->pages.chunks[k];
        if (ch->step == CHUNK_WALKED || ch->step == CHUNK_DEFERRED) continue;
        for (size_t p = 0; p < ch->nparts; p++) total += ch->parts[p].length;
    }
    return total;
}

/* Offset indexes, then pages, of every chunk that waits for them. */
static pq_status walk_pending(pq_reader *r, const uint8_t *const *late_keep, pq_error *err)
{
    /* Every offset index the row range needs, before any page. */
    bool missing = false;
    for (size_t k = 0; k < r->pages.chunks_len; k++) {
        if (r->pages.chunks[k].step != CHUNK_NEED_OFFSET_INDEX) continue;
        pq_status st = read_offset_index(r, k, late_keep, err);
        if (st == PQ_ERR_NEED_DATA) {
            missing = true;
            continue;
        }
        if (st != PQ_OK) return st;
    }
    if (missing) return need_more(r, err);
    pq_status pst = prefetch(r, err);
    if (pst != PQ_OK) return pst;
    /* Sources the reader owns (a file, memory) are read and walked on the
     * decode threads; a caller's source only from this thread. */
    if ((r->io.kind == SOURCE_FILE || r->io.kind == SOURCE_MEMORY) && on_threads(r, r->pages.chunks_len, pending_bytes(r)))
        return walk_parallel(r, err);
    /* A sans-IO reader may stop at a chunk it lacks and resume later. */
    for (size_t k = 0; k < r->pages.chunks_len; k++) {
        pq_reader_chunk *ch = &r->pages.chunks[k];
        if (ch->step == CHUNK_WALKED || ch->step == CHUNK_DEFERRED) continue;
        walk_acc acc;
        memset(&acc, 0, sizeof acc);
        pq_status st = walk_chunk(r, ch, false, &acc, err);
        acc_merge(r, &acc);
        if (st == PQ_ERR_NEED_DATA) return need_more(r, err);
        if (st != PQ_OK) return st;
    }
    return PQ_OK;
}

/* An emptied chunk: nothing of it is read or decoded any more. */
static void chunk_drop(pq_reader_chunk *ch)
{
    free(ch->pages);
    free(ch->page_strings);
    ch->page_strings = NULL;
    free(ch->modules);
    pq_chunk_key_free(ch->key);
    pq_pool_give(ch->bytes);
    pq_shared_bytes_release(ch->hold);
    ch->modules = NULL;
    ch->key = NULL;
    ch->pages = NULL;
    ch->bytes = NULL;
    ch->hold = NULL;
    ch->data = NULL;
    ch->data_len = 0;
    ch->origin = UINT64_MAX;
    ch->info.pages = NULL;
    ch->info.npages = 0;
    plan_empty(ch);
}

pq_status pq_reader_pages_plan_late(pq_reader *r, size_t g, int64_t kept, pq_late_plan *out, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_row_group *rg = &fm->row_groups[r->sel.row_groups[g]];
    for (size_t c = 0; c < r->sel.walk_columns_len; c++) {
        pq_reader_chunk *ch = &r->pages.chunks[pq_reader_chunk_at(r, g, c)];
        if (kept == 0) {
            if (ch->step == CHUNK_DEFERRED) {
                out->chunks_skipped++;
                out->bytes_skipped += ch->info.length;
            }
            chunk_drop(ch);
            continue;
        }
        if (ch->step != CHUNK_DEFERRED) continue;
        pq_status st = PQ_OK;
        if ((uint64_t)kept < (uint64_t)rg->num_rows && has_offset_index(rg->columns[ch->info.column]) &&
            (r->pages.walk_flags[c] & WALK_SKIPPABLE))
            ch->step = CHUNK_NEED_OFFSET_INDEX; /* then plan_parts with the filter's bits */
        else
            st = plan_whole(ch, rg->num_rows, err);
        if (st != PQ_OK) return st;
    }
    return PQ_OK;
}

/* Walk what is pending, counted against `stage`; in the page-header stage
 * the deferred chunks wait. */
static pq_status walk_for(pq_reader *r, pq_stage stage, const uint8_t *const *late_keep, pq_error *err)
{
    /* Mapped before any walk, on this thread (a failed map reads by pread). */
    if (r->io.kind == SOURCE_FILE && !r->opts.no_mmap && !pq_reader_sans_io(r)) pq_file_source_map(&r->io.file);
    r->pages.walk_stage = stage;
    pq_status st = walk_pending(r, late_keep, err);
    if (st == PQ_ERR_NEED_DATA) return st;
    if (st != PQ_OK) {
        pq_reader_free_chunks(r);
        return st;
    }
    r->pages.chunks_walked = r->pages.chunks_len;
    return PQ_OK;
}

pq_status pq_reader_pages_walk_late(pq_reader *r, const uint8_t *const *keep, pq_error *err)
{
    return walk_for(r, PQ_STAGE_FILTER, keep, err);
}

pq_status pq_reader_stage_pages(pq_reader *r, pq_error *err)
{
    if (!r->pages.chunks) {
        pq_status st = plan_chunks(r, err);
        /* What the new plan did not take over is not needed any more. */
        free_chunk_array(r->pages.prev_chunks, r->pages.prev_chunks_len);
        r->pages.prev_chunks = NULL;
        r->pages.prev_chunks_len = 0;
        if (st != PQ_OK) {
            pq_reader_free_chunks(r);
            return st;
        }
    }
    return walk_for(r, PQ_STAGE_PAGE_HEADERS, NULL, err);
}

pq_status pq_reader_plan_chunk(pq_reader *r, uint32_t row_group, uint32_t column, pq_chunk_plan *out,
                               pq_error *err)
{
    if (!r || !out) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader or output is NULL");
    memset(out, 0, sizeof *out);
    if (r->stage < PQ_STAGE_SELECT || !r->sel.rows)
        return pq_error_set(err, PQ_ERR_STAGE, "a plan needs the select stage; the reader is at '%s'",
                            pq_stage_name(r->stage));
    size_t g = 0;
    while (g < r->sel.row_groups_len && r->sel.row_groups[g] != row_group) g++;
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    if (g == r->sel.row_groups_len || column >= fm->row_groups[row_group].columns_len)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "row group %u or column %u was not selected", row_group,
                            column);
    const pq_row_group *rg = &fm->row_groups[row_group];
    const pq_column_chunk *cc = rg->columns[column];
    uint64_t off, len;
    pq_status st = pq_chunk_byte_range_for_writer(cc, fm->created_by, r->footer.data_end, &off, &len, err);
    if (st != PQ_OK) return st;
    out->chunk_bytes = len;
    out->bytes = len;
    if (!has_offset_index(cc)) return PQ_OK;
    size_t n = (size_t)cc->offset_index_length;
    uint64_t oi_off = (uint64_t)cc->offset_index_offset;
    if (oi_off < 4 || oi_off > r->footer.data_end || n > r->footer.data_end - oi_off)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "offset index of column %u is outside the data region (before the footer)", column);
    uint8_t *buf = malloc(n);
    if (!buf) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    st = pq_reader_read_range(r, PQ_STAGE_SELECT, oi_off, n, buf, err);
    pq_offset_index oi;
    if (st == PQ_OK) st = pq_offset_index_decode(buf, n, off, len, rg->num_rows, &oi, err);
    free(buf);
    if (st != PQ_OK) return st;
    const pq_row_set *rows = &r->sel.rows[g];
    pq_row_cursor cur = {0, 0};
    out->pages_total = (uint32_t)oi.npages;
    out->bytes = (uint64_t)oi.pages[0].offset - off; /* the dictionary page, if any */
    for (size_t i = 0; i < oi.npages; i++) {
        uint64_t a = (uint64_t)oi.pages[i].first_row_index;
        uint64_t b = i + 1 < oi.npages ? (uint64_t)oi.pages[i + 1].first_row_index : (uint64_t)rg->num_rows;
        if (pq_row_set_hits(rows, NULL, a, b, &cur)) {
            out->pages_kept++;
            out->bytes += (uint64_t)oi.pages[i].compressed_page_size;
        }
    }
    if (rows->rows == 0) out->bytes = 0;
    /* A nested field's leaves are read whole (they must hold the same rows). */
    if (rows->rows && !pages_may_be_skipped(r, column)) {
        out->pages_kept = out->pages_total;
        out->bytes = len;
    }
    pq_offset_index_free(&oi);
    return PQ_OK;
}
