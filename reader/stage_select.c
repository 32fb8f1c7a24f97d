/*
 * stage_select.c — the select stage: which row groups, leaf columns and rows
 * the later stages read. The caller chooses (options row_groups, columns,
 * row_offset and row_limit); the filter narrows the choice: row groups
 * whose statistics (predicate/judge_stats.c), dictionaries (prune_dict.c) or bloom
 * filters (prune_bloom.c) rule it out are dropped, and the page index
 * (prune_pages.c) keeps only the runs of rows that may match.
 */
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "reader/output_type.h"
#include "reader/prune_bloom.h"
#include "reader/prune_dict.h"
#include "reader/prune_pages.h"
#include "predicate/judge_stats.h"
#include "reader/reader_internal.h"

void pq_reader_free_selection(pq_reader *r)
{
    free(r->sel_row_groups);
    free(r->sel_columns);
    for (size_t g = 0; r->sel_rows && g < r->sel_rows_alloc; g++) pq_row_set_free(&r->sel_rows[g]);
    free(r->sel_rows);
    r->sel_rows = NULL;
    r->sel_rows_alloc = 0;
    free(r->walk_columns);
    pq_expr_free(r->filter);
    free(r->pruned_by);
    r->pruned_by = NULL;
    r->select_pending = false;
    pq_output_types_free(r->outputs);
    r->outputs = NULL;
    pq_reader_free_filter(r);
    r->filter = NULL;
    r->walk_columns = NULL;
    r->walk_columns_len = 0;
    r->sel_row_groups = r->sel_columns = NULL;
    r->sel_row_groups_len = r->sel_columns_len = 0;
}

/* Copy `want` (or 0..n-1 when NULL), checking each index against n. */
static pq_status pick(const uint32_t *want, size_t want_len, uint32_t n, const char *what,
                      uint32_t **out, size_t *out_len, pq_error *err)
{
    size_t len = want ? want_len : n;
    uint32_t *v = malloc((len ? len : 1) * sizeof *v);
    if (!v) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < len; i++) {
        uint32_t idx = want ? want[i] : (uint32_t)i;
        if (idx >= n) {
            free(v);
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                "selected %s %u is out of range (the file has %u)", what, idx, n);
        }
        v[i] = idx;
    }
    *out = v;
    *out_len = len;
    return PQ_OK;
}

/* The rows each selected row group delivers. With a row range, rows are
 * counted across the selected row groups in order, and row groups it does
 * not reach are dropped from the selection. */
static pq_status apply_row_range(pq_reader *r, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    size_t n = r->sel_row_groups_len;
    r->sel_rows = calloc(n ? n : 1, sizeof *r->sel_rows);
    if (!r->sel_rows) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    r->sel_rows_alloc = n;
    r->row_range = r->opts.row_offset || r->opts.row_limit;
    uint64_t lo = r->opts.row_offset;
    uint64_t hi = r->opts.row_limit && r->opts.row_limit <= UINT64_MAX - lo ? lo + r->opts.row_limit
                                                                              : UINT64_MAX;
    uint64_t start = 0; /* first row of row group g in the selection's numbering */
    size_t kept = 0;
    for (size_t g = 0; g < n; g++) {
        int64_t rows = fm->row_groups[r->sel_row_groups[g]].num_rows;
        if (rows < 0)
            return pq_error_set(err, PQ_ERR_CORRUPT_FOOTER, "RowGroup[%u].num_rows: negative (%lld)",
                                r->sel_row_groups[g], (long long)rows);
        uint64_t end = start + (uint64_t)rows;
        uint64_t a = lo > start ? lo : start;
        uint64_t b = hi < end ? hi : end;
        if (!r->row_range || a < b) {
            r->sel_row_groups[kept] = r->sel_row_groups[g];
            if (r->row_range) pq_row_set_init(&r->sel_rows[kept], a - start, b - a);
            else pq_row_set_init(&r->sel_rows[kept], 0, (uint64_t)rows);
            kept++;
        }
        start = end;
    }
    r->sel_row_groups_len = kept;
    return PQ_OK;
}

/* Bind a copy of the options' filter to this file, and list the columns
 * the later stages walk: the projection, then the filter's leaves that are
 * not in it (decoded to evaluate the filter, not delivered). */
static pq_status bind_filter(pq_reader *r, pq_error *err)
{
    size_t n = r->sel_columns_len, extra = 0;
    uint32_t *pred = NULL;
    size_t npred = 0;
    if (r->opts.filter) {
        r->filter = pq_expr_clone(r->opts.filter, err);
        if (!r->filter) return err->code;
        pq_status st = pq_expr_bind(r->filter, r->md, err);
        if (st != PQ_OK) return st;
        /* Prune only: the rows are not evaluated, their columns not needed. */
        npred = r->opts.prune_only ? 0 : pq_expr_columns(r->filter, NULL, 0);
        pred = malloc((npred ? npred : 1) * sizeof *pred);
        if (!pred) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        pq_expr_columns(r->filter, pred, npred);
    }
    r->walk_columns = malloc((n + npred ? n + npred : 1) * sizeof *r->walk_columns);
    if (!r->walk_columns) {
        free(pred);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (n) memcpy(r->walk_columns, r->sel_columns, n * sizeof *r->walk_columns);
    for (size_t k = 0; k < npred; k++) {
        bool projected = false;
        for (size_t c = 0; c < n && !projected; c++) projected = r->sel_columns[c] == pred[k];
        if (!projected) r->walk_columns[n + extra++] = pred[k];
    }
    r->walk_columns_len = n + extra;
    free(pred);
    return PQ_OK;
}

/* Selected row group `from` becomes entry `to` (to <= from) as the
 * selection shrinks; its row set moves with it. */
static void keep_group(pq_reader *r, size_t from, size_t to)
{
    if (from == to) return;
    r->sel_row_groups[to] = r->sel_row_groups[from];
    pq_row_set_free(&r->sel_rows[to]);
    r->sel_rows[to] = r->sel_rows[from];
    memset(&r->sel_rows[from], 0, sizeof r->sel_rows[from]);
}

/* Drop the row groups the filter rules out by their statistics (no I/O). */
static void prune_by_statistics_only(pq_reader *r)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    if (r->filter) r->pruned_by = calloc(fm->row_groups_len ? fm->row_groups_len : 1, 1);
    if (!r->filter || (r->opts.prune_disable & PQ_PRUNE_STATISTICS)) return;
    const pq_schema *schema = pq_metadata_schema(r->md);
    size_t kept = 0;
    for (size_t g = 0; g < r->sel_row_groups_len; g++) {
        uint32_t rg = r->sel_row_groups[g];
        if (!pq_prune_by_statistics(r->filter, fm, schema, &fm->row_groups[rg]).can_true) {
            r->stats[PQ_STAGE_SELECT].pruned_statistics++;
            if (r->pruned_by) r->pruned_by[rg] = PQ_PRUNE_STATISTICS;
            continue;
        }
        keep_group(r, g, kept++);
    }
    r->sel_row_groups_len = kept;
}

/* The steps that read: dictionaries, then bloom filters (each judged with
 * the statistics), then the page index, which narrows the survivors' rows
 * (a row group is counted for the first step that drops it). */
static void prune_by_indexes(pq_reader *r)
{
    bool stats = !(r->opts.prune_disable & PQ_PRUNE_STATISTICS);
    bool dict = !(r->opts.prune_disable & PQ_PRUNE_DICTIONARY);
    bool bloom = !(r->opts.prune_disable & PQ_PRUNE_BLOOM_FILTER);
    bool pages = !(r->opts.prune_disable & PQ_PRUNE_PAGE_INDEX);
    if (!r->filter || (!dict && !bloom && !pages)) return;
    size_t kept = 0;
    for (size_t g = 0; g < r->sel_row_groups_len; g++) {
        uint32_t rg = r->sel_row_groups[g];
        uint32_t step = 0;
        if (dict && !pq_prune_by_dictionaries(r, rg, stats).can_true)
            step = PQ_PRUNE_DICTIONARY;
        else if (bloom && !pq_prune_by_bloom_filters(r, rg, stats).can_true)
            step = PQ_PRUNE_BLOOM_FILTER;
        if (step) {
            if (step == PQ_PRUNE_DICTIONARY) r->stats[PQ_STAGE_SELECT].pruned_dictionary++;
            else r->stats[PQ_STAGE_SELECT].pruned_bloom_filter++;
            if (r->pruned_by) r->pruned_by[rg] = (uint8_t)step;
            continue;
        }
        keep_group(r, g, kept);
        /* Page indexes narrow the rows, or drop the row group after all. */
        if (pages && !pq_prune_by_page_index(r, kept, &r->stats[PQ_STAGE_SELECT].pages_pruned,
                                             &r->stats[PQ_STAGE_SELECT].pages_considered)) {
            r->stats[PQ_STAGE_SELECT].pruned_page_index++;
            if (r->pruned_by) r->pruned_by[rg] = PQ_PRUNE_PAGE_INDEX;
            continue;
        }
        kept++;
    }
    r->sel_row_groups_len = kept;
}

/* Leaves that = or IN nodes compare (the dictionary and bloom steps'). */
static void eq_leaves(const pq_expr *e, uint8_t *mark, uint32_t nleaves, int depth)
{
    if (!e || depth > 128) return;
    if ((e->kind == PQ_NODE_CMP && e->op == PQ_CMP_EQ) || e->kind == PQ_NODE_IN) {
        if (e->leaf >= 0 && (uint32_t)e->leaf < nleaves) mark[e->leaf] = 1;
        return;
    }
    for (int k = 0; k < 2; k++) eq_leaves(e->kids[k], mark, nleaves, depth + 1);
}

static void add_range(pq_range *out, size_t cap, size_t *count, const pq_supplied *sup, uint64_t off, uint64_t len)
{
    if (!len || pq_supplied_covers(sup, off, len)) return;
    if (*count < cap) out[*count] = (pq_range){off, len};
    (*count)++;
}

size_t pq_reader_select_needed(const pq_reader *r, pq_range *out, size_t cap)
{
    if (!r->select_pending || !r->filter) return 0;
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_schema *schema = pq_metadata_schema(r->md);
    bool dict = !(r->opts.prune_disable & PQ_PRUNE_DICTIONARY);
    bool bloom = !(r->opts.prune_disable & PQ_PRUNE_BLOOM_FILTER);
    bool pages = !(r->opts.prune_disable & PQ_PRUNE_PAGE_INDEX);
    size_t nl = pq_expr_columns(r->filter, NULL, 0), count = 0;
    uint32_t *leaves = malloc((nl ? nl : 1) * sizeof *leaves);
    uint8_t *eq = calloc(schema->leaves_len ? schema->leaves_len : 1, 1);
    if (!leaves || !eq) {
        free(leaves);
        free(eq);
        return 0;
    }
    pq_expr_columns(r->filter, leaves, nl);
    eq_leaves(r->filter, eq, schema->leaves_len, 0);
    for (size_t g = 0; g < r->sel_row_groups_len; g++) {
        const pq_row_group *rg = &fm->row_groups[r->sel_row_groups[g]];
        for (size_t k = 0; k < nl; k++) {
            const pq_column_chunk *cc = rg->columns[leaves[k]];
            const pq_column_meta *m = &cc->meta_data;
            if (cc->set & PQ_CC_SKIPPED) continue;
            uint64_t off, len;
            if (dict && eq[leaves[k]] && pq_dictionary_prunable(m) &&
                pq_dictionary_page_range(m, r->data_end, &off, &len))
                add_range(out, cap, &count, &r->supplied, off, len);
            if (bloom && eq[leaves[k]] && pq_bloom_filter_range(m, r->data_end, &r->supplied, &off, &len))
                add_range(out, cap, &count, &r->supplied, off, len);
            unsigned both = PQ_CC_HAS_OFFSET_INDEX_OFFSET | PQ_CC_HAS_OFFSET_INDEX_LENGTH |
                            PQ_CC_HAS_COLUMN_INDEX_OFFSET | PQ_CC_HAS_COLUMN_INDEX_LENGTH;
            if (pages && (cc->set & both) == both && cc->offset_index_offset >= 4 && cc->column_index_offset >= 4 &&
                cc->offset_index_length > 0 && cc->column_index_length > 0) {
                add_range(out, cap, &count, &r->supplied, (uint64_t)cc->offset_index_offset,
                          (uint64_t)cc->offset_index_length);
                add_range(out, cap, &count, &r->supplied, (uint64_t)cc->column_index_offset,
                          (uint64_t)cc->column_index_length);
            }
        }
    }
    free(leaves);
    free(eq);
    return count;
}

static bool pq_reader_select_needed_set(pq_reader *r);

pq_status pq_reader_stage_select(pq_reader *r, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_schema *schema = pq_metadata_schema(r->md);
    if (r->select_pending) { /* sans-IO: statistics done, waiting for the indexes' bytes */
        size_t missing = pq_reader_select_needed(r, NULL, 0);
        if (missing)
            return pq_error_set(err, PQ_ERR_NEED_DATA,
                                "the select stage needs %zu more range%s for dictionaries, bloom filters and "
                                "page indexes (see pq_reader_needed_ranges)", missing, missing == 1 ? "" : "s");
        r->select_pending = false;
        prune_by_indexes(r);
        r->stats[PQ_STAGE_SELECT].chunks = (uint64_t)r->sel_row_groups_len * r->walk_columns_len;
        return PQ_OK;
    }
    pq_reader_free_selection(r);
    pq_status st = pick(r->opts.row_groups, r->opts.row_groups_len, fm->row_groups_len,
                        "row group", &r->sel_row_groups, &r->sel_row_groups_len, err);
    if (st == PQ_OK)
        st = pick(r->opts.columns, r->opts.columns_len, schema->leaves_len, "column",
                  &r->sel_columns, &r->sel_columns_len, err);
    if (st == PQ_OK) st = pq_output_types_make(&r->opts, r->md, &r->outputs, err);
    /* Metadata parsed with another projection may lack a selected chunk. */
    for (size_t g = 0; st == PQ_OK && g < r->sel_row_groups_len; g++) {
        const pq_row_group *rg = &fm->row_groups[r->sel_row_groups[g]];
        for (size_t c = 0; c < r->sel_columns_len; c++) {
            if (rg->columns[r->sel_columns[c]]->set & PQ_CC_SKIPPED) {
                st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                  "column %u was left out when the footer was parsed "
                                  "(projected metadata); select within its projection",
                                  r->sel_columns[c]);
                break;
            }
        }
    }
    if (st == PQ_OK) st = apply_row_range(r, err);
    if (st == PQ_OK) st = bind_filter(r, err);
    if (st == PQ_OK) prune_by_statistics_only(r);
    /* The filter's own columns must be in a projected footer too. */
    for (size_t g = 0; st == PQ_OK && g < r->sel_row_groups_len; g++) {
        const pq_row_group *rg = &fm->row_groups[r->sel_row_groups[g]];
        for (size_t c = r->sel_columns_len; st == PQ_OK && c < r->walk_columns_len; c++)
            if (rg->columns[r->walk_columns[c]]->set & PQ_CC_SKIPPED)
                st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                  "the filter reads column %u, which was left out when the footer was "
                                  "parsed (projected metadata)", r->walk_columns[c]);
    }
    if (st != PQ_OK) {
        pq_reader_free_selection(r);
        return st;
    }
    /* A sans-IO reader asks for the indexes' bytes before reading them. */
    if (r->kind == SOURCE_NONE && r->filter && pq_reader_select_needed_set(r)) {
        size_t missing = pq_reader_select_needed(r, NULL, 0);
        if (missing)
            return pq_error_set(err, PQ_ERR_NEED_DATA,
                                "the select stage needs %zu range%s for dictionaries, bloom filters and page "
                                "indexes (see pq_reader_needed_ranges)", missing, missing == 1 ? "" : "s");
        r->select_pending = false;
    }
    prune_by_indexes(r);
    r->stats[PQ_STAGE_SELECT].chunks = (uint64_t)r->sel_row_groups_len * r->walk_columns_len;
    return PQ_OK;
}

/* Mark the select stage as waiting for bytes (sans-IO); true when some
 * index step is on. */
static bool pq_reader_select_needed_set(pq_reader *r)
{
    uint32_t io_steps = PQ_PRUNE_DICTIONARY | PQ_PRUNE_BLOOM_FILTER | PQ_PRUNE_PAGE_INDEX;
    if ((r->opts.prune_disable & io_steps) == io_steps) return false;
    r->select_pending = true;
    return true;
}

uint32_t pq_reader_pruned_by(const pq_reader *r, uint32_t row_group)
{
    if (!r || r->stage < PQ_STAGE_SELECT || !r->pruned_by) return 0;
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    return row_group < fm->row_groups_len ? r->pruned_by[row_group] : 0;
}

size_t pq_reader_filter_text(const pq_reader *r, char *buf, size_t cap)
{
    if (r && r->stage >= PQ_STAGE_SELECT && r->filter) return pq_expr_format(r->filter, buf, cap);
    if (cap) buf[0] = '\0';
    return 0;
}
