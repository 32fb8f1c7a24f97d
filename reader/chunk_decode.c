/*
 * chunk_decode.c — one walked column chunk decoded, as the filter and
 * decode stages both need it: its codec and decode flags, its pages
 * decoded by the CPU or by the device executor's kernels, the result
 * checked (errors named with the chunk, UTF-8, the value count), a chunk
 * added to a decode plan, and a decoded column reduced to some of its rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/exec.h"
#include "device/executor.h"
#include "pages/cpu_exec.h"
#include "kernels/utf8.h"
#include "metadata/error.h"
#include "reader/arrow_take.h"
#include "reader/chunk_decode.h"
#include "reader/keys.h"
#include "reader/output_type.h"

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

/* Chunk k's codec, as its column chunk's metadata says. */
int32_t pq_chunk_codec(const pq_reader *r, size_t k)
{
    const pq_reader_chunk *ch = &r->pages.chunks[k];
    return pq_metadata_file(r->md)->row_groups[ch->info.row_group].columns[ch->info.column]->meta_data.codec;
}

/* PQ_DECODE_INDICES when chunk k comes out as a dictionary array and every
 * data page is dictionary-encoded (its indices and dictionary are decoded),
 * else 0 (its values). */
unsigned pq_chunk_more(const pq_reader *r, size_t k)
{
    const pq_reader_chunk *ch = &r->pages.chunks[k];
    return pq_output_dictionary(r->sel.outputs, ch->info.column) && pq_pages_all_dictionary(ch->pages, ch->info.npages)
               ? PQ_DECODE_INDICES
               : 0;
}

/* The PQ_DECODE_* flags column `column` decodes with, extra flags `more`
 * given: indices when asked, else string views when its output is views. */
unsigned pq_chunk_decode_flags(const pq_reader *r, uint32_t column, unsigned more)
{
    return (more & PQ_DECODE_INDICES) ? PQ_DECODE_INDICES : uses_views(r, column) ? PQ_DECODE_STRING_VIEWS : 0;
}

/* The row (of its row group) of slot `slot` of chunk ch decoded for
 * `rows` (NULL: every row its pages hold): the slot-th row the chunk
 * decoded, counted along its kept rows. */
static uint64_t slot_row(const pq_reader_chunk *ch, const pq_decode_rows *rows, size_t slot)
{
    uint64_t pos = slot;
    if (rows) { /* the slot-th row whose bit is set */
        uint64_t i = 0;
        for (uint64_t seen = 0; i < rows->count; i++)
            if ((!rows->keep || ((rows->keep[i >> 3] >> (i & 7)) & 1)) && seen++ == slot) break;
        pos = rows->first + i;
    }
    const pq_row_span *sp = pq_row_set_spans(&ch->rows);
    for (size_t s = 0; s < ch->rows.n; s++) {
        if (pos < sp[s].count) return sp[s].first + pos;
        pos -= sp[s].count;
    }
    return pq_row_set_end(&ch->rows) + pos; /* past the kept rows: cannot happen */
}

/* A build's slots and the rows they are (slot_delivered). */
typedef struct slot_rows {
    const pq_reader *r;
    size_t g;                   /* the selected row group */
    const pq_reader_chunk *ch;
    const pq_decode_rows *rows; /* the selection decoded, or NULL */
    const uint8_t *keep;        /* the filter's bits over the group's rows, or NULL */
} slot_rows;

/* Whether the row of a slot is one the read delivers: in the selection's
 * rows of its group (a row range, the page index) and, under a filter
 * decoded whole before its take, one the filter kept. */
static bool slot_delivered(const void *user, size_t slot)
{
    const slot_rows *s = user;
    if (s->rows) return true; /* decoded for the kept rows alone */
    uint64_t row = slot_row(s->ch, NULL, slot), before = 0;
    const pq_row_set *want = &s->r->sel.rows[s->g];
    const pq_row_span *sp = pq_row_set_spans(want);
    for (size_t i = 0; i < want->n; i++) {
        if (row >= sp[i].first && row < sp[i].first + sp[i].count) {
            uint64_t pos = before + (row - sp[i].first);
            return !s->keep || ((s->keep[pos >> 3] >> (pos & 7)) & 1);
        }
        before += sp[i].count;
    }
    return false;
}

/* Build decoded chunk k (v) into its output column. */
pq_status pq_chunk_build_output(const pq_reader *r, size_t g, size_t k, const pq_decode_rows *rows,
                                const uint8_t *keep, pq_column_values *v, pq_arrow_column **out, pq_error *err)
{
    const pq_reader_chunk *ch = &r->pages.chunks[k];
    uint32_t leaf = ch->info.column;
    pq_leaf lf = output_leaf(r, leaf, false);
    if (pq_output_dictionary(r->sel.outputs, leaf)) {
        pq_status st = pq_arrow_column_build_dictionary(&lf, v, out, err);
        if (st == PQ_OK) st = pq_output_dictionary_indices(r->sel.outputs, pq_metadata_schema(r->md), leaf, *out, err);
        if (st != PQ_OK) {
            pq_arrow_column_release(*out);
            *out = NULL;
        }
        return st;
    }
    size_t bad;
    slot_rows sr = {r, g, ch, rows, keep};
    pq_status st = pq_arrow_column_build_at(&lf, v, slot_delivered, &sr, &bad, out, err);
    if (st != PQ_OK && bad != SIZE_MAX) {
        char what[PQ_ERROR_MESSAGE_SIZE];
        memcpy(what, err->message, sizeof what);
        pq_error_set(err, st, "column '%s' row group %u row %llu: %s", lf.path, ch->info.row_group,
                     (unsigned long long)slot_row(ch, rows, bad), what);
    }
    return st;
}

/* Decode one chunk's kept pages and check the value count against the rows
 * they hold (levels of a flat column; records of a nested one are checked
 * when assembled). */

/* Chunk i decoded for its output column: its dictionary indices when it
 * comes out as a dictionary array and every data page is
 * dictionary-encoded. */
pq_status pq_chunk_decode(const pq_reader *r, pq_codec_ctx *cctx, size_t i, pq_column_values *v,
                              pq_error *err)
{
    return pq_reader_decode_chunk_flags(r, cctx, i, NULL, pq_chunk_more(r, i), v, err);
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

/* A flat column's value count (v, chunk i, wherever its buffers are)
 * against the rows its pages hold; a selection (rows) is checked by the
 * decoder. */
pq_status pq_chunk_check_count(const pq_reader *r, size_t i, const pq_decode_rows *rows, const pq_column_values *v,
                             pq_error *err)
{
    const pq_reader_chunk *ch = &r->pages.chunks[i];
    const pq_leaf *leaf = &pq_metadata_schema(r->md)->leaves[ch->info.column];
    if (leaf->max_rep == 0 && !rows && v->n_levels != ch->rows.rows)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "row group %u, column '%s': %zu values for %llu rows",
                            ch->info.row_group, leaf->path, v->n_levels, (unsigned long long)ch->rows.rows);
    return PQ_OK;
}

/* Chunk i's decode result checked as the stage needs it: an error named
 * with the chunk, UTF-8 when asked for, and a flat column's value count
 * against the rows its pages hold. `v` is freed on failure. */
pq_status pq_chunk_check_decoded(const pq_reader *r, size_t i, const pq_decode_rows *rows, pq_status st,
                               pq_column_values *v, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    const pq_reader_chunk *ch = &r->pages.chunks[i];
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
    if ((st = pq_chunk_check_count(r, i, rows, v, err)) != PQ_OK) pq_column_values_free(v);
    return st;
}

/* decode_chunk of only the rows `rows` selects (NULL: all), with extra
 * PQ_DECODE_* flags. */
pq_status pq_reader_decode_chunk_flags(const pq_reader *r, pq_codec_ctx *cctx, size_t i, const pq_decode_rows *rows,
                                    unsigned more, pq_column_values *v, pq_error *err)
{
    memset(v, 0, sizeof *v);
    pq_decode_plan plan = {0};
    pq_status st = pq_chunk_plan_add(r, i, rows, more, false, &plan, err);
    if (st == PQ_OK) st = pq_decode_plan_execute_one(cctx, r->opts.memory_limit, &plan, v, err);
    pq_decode_plan_free(&plan);
    return pq_chunk_check_decoded(r, i, rows, st, v, err);
}

/* Add chunk k to `plan`: its leaf, codec, output flags (as
 * decode_flags says with `more`: dictionary indices, else string views
 * when asked for, and with `widen` INT32/INT64 decimals widened to
 * decimal128 by the CPU executor's gathers and copies; PQ_PLAN_NO_NULLS
 * where the statistics allow) and the selection-vector rows, or NULL. */
pq_status pq_chunk_plan_add(const pq_reader *r, size_t k, const pq_decode_rows *rows, unsigned more, bool widen,
                           pq_decode_plan *plan, pq_error *err)
{
    const pq_reader_chunk *ch = &r->pages.chunks[k];
    const pq_leaf *leaf = &pq_metadata_schema(r->md)->leaves[ch->info.column];
    unsigned d = pq_chunk_decode_flags(r, ch->info.column, more);
    unsigned flags = (d & PQ_DECODE_INDICES)        ? PQ_PLAN_INDICES
                     : (d & PQ_DECODE_STRING_VIEWS) ? PQ_PLAN_STRING_VIEWS
                                                    : 0;
    if (!(d & PQ_DECODE_INDICES) && widen && output_leaf(r, ch->info.column, false).arrow.id == PQ_ARROW_DECIMAL128)
        flags |= PQ_PLAN_DECIMAL128;
    /* An optional flat leaf whose statistics count no null (Spark, polars
     * and DuckDB write every column optional): its pages sized by their
     * headers and decoded in place, with no size pass. */
    if (leaf->max_def > 0 && pq_reader_rows_decodable(r, leaf, ch)) flags |= PQ_PLAN_NO_NULLS;
    if (!pq_executor_kernels(&r->sel.exec)) flags |= PQ_PLAN_EXACT_BYTES; /* the CPU checks each page's bytes */
    /* SizeStatistics size string pages the headers do not (the CPU checks them too) */
    const int64_t *page_strings = (flags & PQ_PLAN_EXACT_BYTES) ? ch->page_strings : NULL;
    pq_status st = pq_decode_plan_add_chunk_sized(plan, leaf, pq_chunk_codec(r, k), ch->data, ch->data_len,
                                                  ch->pages, ch->info.npages, flags, rows, page_strings, err);
    if (st == PQ_OK && ch->key) {
        plan->chunks[plan->nchunks - 1].cipher = &ch->key->cipher;
        plan->chunks[plan->nchunks - 1].modules = ch->modules;
    }
    return st;
}

/* Chunk k's kept bytes in opts.device_file, or NULL: only a chunk whose
 * kept bytes are laid as in the file (one part, or used in place) has
 * them there as one piece, at the same offsets. */
const uint8_t *pq_chunk_resident_bytes(const pq_reader *r, size_t k)
{
    const pq_reader_chunk *ch = &r->pages.chunks[k];
    if (ch->origin == UINT64_MAX || ch->origin > r->opts.device_file_size ||
        ch->data_len > r->opts.device_file_size - ch->origin)
        return NULL;
    return (const uint8_t *)r->opts.device_file + ch->origin;
}

pq_status pq_reader_decode_chunk_kernels(const pq_reader *r, pq_codec_ctx *cctx, size_t i, unsigned more,
                                         pq_kernel_decode *kd, pq_column_values *v, pq_error *err)
{
    kd->on_kernels = kd->kept = false;
    kd->resident = 0;
    kd->why[0] = '\0';
    pq_decode_plan plan = {0};
    pq_status st = pq_chunk_plan_add(r, i, NULL, more, false, &plan, err);
    bool planned = st == PQ_OK;
    if (planned) {
        const uint8_t *res[1] = {r->opts.device_file ? pq_chunk_resident_bytes(r, i) : NULL};
        pq_device_exec_stats dxs = {0};
        bool keep = kd->keep;
        pq_device_exec_options o = {.memory_limit = r->opts.memory_limit, .cctx = cctx,
                                    .outputs_on_device = &keep, .resident = res[0] ? res : NULL, .stats = &dxs};
        pq_executor_run_plan(kd->exec, &o, &plan, v, &st, err);
        kd->resident = dxs.resident_chunks;
    }
    pq_decode_plan_free(&plan);
    if (st == PQ_ERR_UNSUPPORTED || !planned) { /* not covered (or not planned): the CPU's, errors too */
        if (st == PQ_ERR_UNSUPPORTED) snprintf(kd->why, sizeof kd->why, "%s", err->message);
        return pq_reader_decode_chunk_flags(r, cctx, i, NULL, more, v, err);
    }
    kd->on_kernels = true;
    if (!kd->keep || st != PQ_OK) return pq_chunk_check_decoded(r, i, NULL, st, v, err); /* a failed v is zeroed */
    kd->kept = true; /* in device memory: counted, not read (no validate_utf8 here) */
    if ((st = pq_chunk_check_count(r, i, NULL, v, err)) != PQ_OK) {
        pq_executor_values_free(kd->exec, v);
        kd->kept = false;
    }
    return st;
}

/* Column `col`, decoded over the rows of `have` (a chunk's kept pages),
 * reduced to the rows of `want` whose bit in `keep` (one per row of want;
 * NULL: all) is set, `kept` of them: *out gets a new column. */
pq_status pq_reader_take_rows(const pq_reader_chunk *ch, pq_arrow_column *col, const pq_row_set *want,
                               const uint8_t *keep, int64_t kept, pq_arrow_column **out, pq_error *err)
{
    const pq_row_set *have = &ch->rows;
    if (pq_reader_lined_up(have, want) && keep) {
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
