/*
 * stage_select.c — the select stage: which row groups, leaf columns and rows
 * the later stages read. For now the choice is the caller's (options
 * row_groups, columns, row_offset and row_limit), narrowed by the filter:
 * row groups whose statistics rule it out are dropped (prune_stats.c).
 * Dictionaries, bloom filters and the page index will narrow it further.
 */
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "reader/prune_bloom.h"
#include "reader/prune_dict.h"
#include "reader/prune_pages.h"
#include "reader/prune_stats.h"
#include "reader/reader_internal.h"

void pq_reader_free_selection(pq_reader *r)
{
    free(r->sel_row_groups);
    free(r->sel_columns);
    free(r->sel_first_row);
    free(r->sel_num_rows);
    free(r->walk_columns);
    pq_expr_free(r->filter);
    free(r->pruned_by);
    r->pruned_by = NULL;
    for (size_t g = 0; r->late_keep && g < r->sel_row_groups_len; g++) free(r->late_keep[g]);
    free(r->late_keep);
    r->late_keep = NULL;
    r->filter = NULL;
    r->walk_columns = NULL;
    r->walk_columns_len = 0;
    r->sel_first_row = r->sel_num_rows = NULL;
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
    r->sel_first_row = malloc((n ? n : 1) * sizeof *r->sel_first_row);
    r->sel_num_rows = malloc((n ? n : 1) * sizeof *r->sel_num_rows);
    if (!r->sel_first_row || !r->sel_num_rows) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
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
            r->sel_first_row[kept] = r->row_range ? a - start : 0;
            r->sel_num_rows[kept] = r->row_range ? b - a : (uint64_t)rows;
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

/* Drop the row groups the filter rules out: by statistics, then by
 * statistics with dictionaries, then with bloom filters, then narrow the survivors' rows by
 * their page indexes (a row group is counted for the first step that drops
 * it). */
static void prune_row_groups(pq_reader *r)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    if (r->filter) r->pruned_by = calloc(fm->row_groups_len ? fm->row_groups_len : 1, 1);
    bool stats = !(r->opts.prune_disable & PQ_PRUNE_STATISTICS);
    bool dict = !(r->opts.prune_disable & PQ_PRUNE_DICTIONARY);
    bool bloom = !(r->opts.prune_disable & PQ_PRUNE_BLOOM_FILTER);
    bool pages = !(r->opts.prune_disable & PQ_PRUNE_PAGE_INDEX);
    if (!r->filter || (!stats && !dict && !bloom && !pages)) return;
    const pq_schema *schema = pq_metadata_schema(r->md);
    size_t kept = 0;
    for (size_t g = 0; g < r->sel_row_groups_len; g++) {
        uint32_t rg = r->sel_row_groups[g];
        uint32_t step = 0;
        if (stats && !pq_prune_by_statistics(r->filter, fm, schema, &fm->row_groups[rg]).can_true)
            step = PQ_PRUNE_STATISTICS;
        else if (dict && !pq_prune_by_dictionaries(r, rg, stats).can_true)
            step = PQ_PRUNE_DICTIONARY;
        else if (bloom && !pq_prune_by_bloom_filters(r, rg, stats).can_true)
            step = PQ_PRUNE_BLOOM_FILTER;
        if (step) {
            if (step == PQ_PRUNE_STATISTICS) r->stats[PQ_STAGE_SELECT].pruned_statistics++;
            else if (step == PQ_PRUNE_DICTIONARY) r->stats[PQ_STAGE_SELECT].pruned_dictionary++;
            else r->stats[PQ_STAGE_SELECT].pruned_bloom_filter++;
            if (r->pruned_by) r->pruned_by[rg] = (uint8_t)step;
            continue;
        }
        r->sel_row_groups[kept] = r->sel_row_groups[g];
        r->sel_first_row[kept] = r->sel_first_row[g];
        r->sel_num_rows[kept] = r->sel_num_rows[g];
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

pq_status pq_reader_stage_select(pq_reader *r, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_schema *schema = pq_metadata_schema(r->md);
    pq_reader_free_selection(r);
    pq_status st = pick(r->opts.row_groups, r->opts.row_groups_len, fm->row_groups_len,
                        "row group", &r->sel_row_groups, &r->sel_row_groups_len, err);
    if (st == PQ_OK)
        st = pick(r->opts.columns, r->opts.columns_len, schema->leaves_len, "column",
                  &r->sel_columns, &r->sel_columns_len, err);
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
    if (st == PQ_OK) prune_row_groups(r);
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
    r->stats[PQ_STAGE_SELECT].chunks = (uint64_t)r->sel_row_groups_len * r->walk_columns_len;
    return PQ_OK;
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
