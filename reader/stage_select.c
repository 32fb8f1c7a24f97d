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
#include "reader/empty_fields.h"
#include "reader/output_type.h"
#include "reader/prune_bloom.h"
#include "reader/prune_dict.h"
#include "reader/prune_pages.h"
#include "predicate/judge_stats.h"
#include "reader/context.h"

void pq_reader_free_selection(pq_reader *r)
{
    free(r->sel.row_groups);
    free(r->sel.columns);
    for (size_t g = 0; r->sel.rows && g < r->sel.rows_alloc; g++) pq_row_set_free(&r->sel.rows[g]);
    free(r->sel.rows);
    r->sel.rows = NULL;
    r->sel.rows_alloc = 0;
    free(r->sel.walk_columns);
    free(r->sel.empty_fields);
    r->sel.empty_fields = NULL;
    r->sel.empty_fields_len = 0;
    pq_expr_free(r->sel.filter);
    free(r->sel.pruned_by);
    r->sel.pruned_by = NULL;
    r->sel.step = SELECT_START;
    pq_output_types_free(r->sel.outputs);
    r->sel.outputs = NULL;
    r->sel.filter = NULL;
    r->sel.walk_columns = NULL;
    r->sel.walk_columns_len = 0;
    r->sel.row_groups = r->sel.columns = NULL;
    r->sel.row_groups_len = r->sel.columns_len = 0;
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
    size_t n = r->sel.row_groups_len;
    r->sel.rows = calloc(n ? n : 1, sizeof *r->sel.rows);
    if (!r->sel.rows) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    r->sel.rows_alloc = n;
    r->sel.row_range = r->opts.row_offset || r->opts.row_limit;
    uint64_t lo = r->opts.row_offset;
    uint64_t hi = r->opts.row_limit && r->opts.row_limit <= UINT64_MAX - lo ? lo + r->opts.row_limit
                                                                              : UINT64_MAX;
    uint64_t start = 0; /* first row of row group g in the selection's numbering */
    size_t kept = 0;
    for (size_t g = 0; g < n; g++) {
        int64_t rows = fm->row_groups[r->sel.row_groups[g]].num_rows;
        if (rows < 0)
            return pq_error_set(err, PQ_ERR_CORRUPT_FOOTER, "RowGroup[%u].num_rows: negative (%lld)",
                                r->sel.row_groups[g], (long long)rows);
        uint64_t end = start + (uint64_t)rows;
        uint64_t a = lo > start ? lo : start;
        uint64_t b = hi < end ? hi : end;
        if (!r->sel.row_range || a < b) {
            r->sel.row_groups[kept] = r->sel.row_groups[g];
            if (r->sel.row_range) pq_row_set_init(&r->sel.rows[kept], a - start, b - a);
            else pq_row_set_init(&r->sel.rows[kept], 0, (uint64_t)rows);
            kept++;
        }
        start = end;
    }
    r->sel.row_groups_len = kept;
    return PQ_OK;
}

/* Bind a copy of the options' filter to this file, and list the columns
 * the later stages walk: the projection, then the filter's leaves that are
 * not in it (decoded to evaluate the filter, not delivered). */
static pq_status bind_filter(pq_reader *r, pq_error *err)
{
    size_t n = r->sel.columns_len, extra = 0;
    uint32_t *pred = NULL;
    size_t npred = 0;
    if (r->opts.filter) {
        r->sel.filter = pq_expr_clone(r->opts.filter, err);
        if (!r->sel.filter) return err->code;
        /* INT96 leaves compared in the unit they are delivered in */
        uint32_t u96 = r->opts.int96_unit != PQ_UNIT_NONE ? r->opts.int96_unit : PQ_UNIT_NANOS;
        pq_status st = pq_expr_bind_int96(r->sel.filter, r->md, u96, err);
        if (st != PQ_OK) return st;
        /* Prune only: the rows are not evaluated, their columns not needed. */
        npred = r->opts.prune_only ? 0 : pq_expr_columns(r->sel.filter, NULL, 0);
        pred = malloc((npred ? npred : 1) * sizeof *pred);
        if (!pred) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        pq_expr_columns(r->sel.filter, pred, npred);
    }
    r->sel.walk_columns = malloc((n + npred ? n + npred : 1) * sizeof *r->sel.walk_columns);
    if (!r->sel.walk_columns) {
        free(pred);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (n) memcpy(r->sel.walk_columns, r->sel.columns, n * sizeof *r->sel.walk_columns);
    for (size_t k = 0; k < npred; k++) {
        bool projected = false;
        for (size_t c = 0; c < n && !projected; c++) projected = r->sel.columns[c] == pred[k];
        if (!projected) r->sel.walk_columns[n + extra++] = pred[k];
    }
    r->sel.walk_columns_len = n + extra;
    free(pred);
    return PQ_OK;
}

/* Selected row group `from` becomes entry `to` (to <= from) as the
 * selection shrinks; its row set moves with it. */
static void keep_group(pq_reader *r, size_t from, size_t to)
{
    if (from == to) return;
    r->sel.row_groups[to] = r->sel.row_groups[from];
    pq_row_set_free(&r->sel.rows[to]);
    r->sel.rows[to] = r->sel.rows[from];
    memset(&r->sel.rows[from], 0, sizeof r->sel.rows[from]);
}

/* The first deleted row at or after `row` (binary search). */
static size_t deleted_from(const uint64_t *del, size_t n, uint64_t row)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (del[mid] < row) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The deletion vector: take the deleted rows out of each selected row
 * group's rows, and drop the row groups left with none. The rows left are
 * a set of runs, which the filter stage evaluates (a constant-true filter
 * when the read has none) and the later stages read pages for, as they do
 * for the page index's runs. */
static pq_status apply_deletions(pq_reader *r, pq_error *err)
{
    const uint64_t *del = r->opts.deleted_rows;
    size_t ndel = r->opts.deleted_rows_len;
    if (!del || !ndel) return PQ_OK;
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    uint64_t *base = malloc((fm->row_groups_len ? fm->row_groups_len : 1) * sizeof *base);
    if (!base) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    uint64_t at = 0;
    for (size_t g = 0; g < fm->row_groups_len; g++) { /* num_rows >= 0: apply_row_range checked */
        base[g] = at;
        at += (uint64_t)fm->row_groups[g].num_rows;
    }
    pq_stage_counters *sel_stats = &r->stats[PQ_STAGE_SELECT];
    pq_status st = PQ_OK;
    size_t kept = 0;
    for (size_t g = 0; st == PQ_OK && g < r->sel.row_groups_len; g++) {
        uint32_t rg = r->sel.row_groups[g];
        const pq_row_set *rows = &r->sel.rows[g];
        const pq_row_span *sp = pq_row_set_spans(rows);
        uint64_t b = base[rg];
        pq_row_set left;
        pq_row_set_init(&left, 0, 0);
        uint64_t removed = 0;
        for (size_t i = 0; i < rows->n && st == PQ_OK; i++) {
            uint64_t row = sp[i].first, end = sp[i].first + sp[i].count;
            size_t d = deleted_from(del, ndel, b + row);
            for (; row < end; d++) {
                uint64_t stop = d < ndel && del[d] < b + end ? del[d] - b : end;
                if (stop > row && !pq_row_set_add(&left, row, stop - row)) st = PQ_ERR_NOMEM;
                if (stop < end) removed++;
                row = stop + 1;
                if (stop >= end) break;
            }
        }
        if (st != PQ_OK) {
            pq_row_set_free(&left);
            break;
        }
        sel_stats->rows_deleted += removed;
        if (left.rows == 0 && rows->rows > 0) {
            sel_stats->pruned_deleted++;
            pq_row_set_free(&left);
            continue;
        }
        if (removed) {
            pq_row_set_free(&r->sel.rows[g]);
            r->sel.rows[g] = left;
        } else {
            pq_row_set_free(&left);
        }
        keep_group(r, g, kept++);
    }
    free(base);
    if (st != PQ_OK) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    r->sel.row_groups_len = kept;
    /* Only the filter stage delivers runs of rows: give it a filter. */
    if (!r->sel.filter && !r->opts.prune_only) {
        r->sel.filter = pq_expr_const(true, err);
        if (!r->sel.filter) return err ? err->code : PQ_ERR_NOMEM;
        return pq_expr_bind(r->sel.filter, r->md, err);
    }
    return PQ_OK;
}

/* Drop the row groups the filter rules out by their statistics (no I/O). */
static void prune_by_statistics_only(pq_reader *r)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    if (r->sel.filter) r->sel.pruned_by = calloc(fm->row_groups_len ? fm->row_groups_len : 1, 1);
    if (!r->sel.filter || (r->opts.prune_disable & PQ_PRUNE_STATISTICS)) return;
    const pq_schema *schema = pq_metadata_schema(r->md);
    size_t kept = 0;
    for (size_t g = 0; g < r->sel.row_groups_len; g++) {
        uint32_t rg = r->sel.row_groups[g];
        if (!pq_prune_by_statistics(r->sel.filter, fm, schema, &fm->row_groups[rg]).can_true) {
            r->stats[PQ_STAGE_SELECT].pruned_statistics++;
            if (r->sel.pruned_by) r->sel.pruned_by[rg] = PQ_PRUNE_STATISTICS;
            continue;
        }
        keep_group(r, g, kept++);
    }
    r->sel.row_groups_len = kept;
}

/* The pruning steps' reads, counted against the select stage. */
static pq_status read_for_select(void *user, uint64_t offset, size_t len, void *dst, pq_error *err)
{
    return pq_reader_read_range(user, PQ_STAGE_SELECT, offset, len, dst, err);
}

/* The steps that read: dictionaries, then bloom filters (each judged with
 * the statistics), then the page index, which narrows the survivors' rows
 * (a row group is counted for the first step that drops it). */
static pq_status prune_by_indexes(pq_reader *r, pq_error *err)
{
    bool stats = !(r->opts.prune_disable & PQ_PRUNE_STATISTICS);
    bool dict = !(r->opts.prune_disable & PQ_PRUNE_DICTIONARY);
    bool bloom = !(r->opts.prune_disable & PQ_PRUNE_BLOOM_FILTER);
    bool pages = !(r->opts.prune_disable & PQ_PRUNE_PAGE_INDEX);
    if (!r->sel.filter || (!dict && !bloom && !pages)) return PQ_OK;
    const pq_prune_input in = {r->sel.filter, r->md, r->footer.data_end, r->opts.memory_limit, &r->io.supplied,
                               read_for_select, r, r->opts.decryption};
    pq_prune_counts counts = {.tampered = PQ_OK};
    pq_stage_counters *sel_stats = &r->stats[PQ_STAGE_SELECT];
    size_t kept = 0;
    for (size_t g = 0; g < r->sel.row_groups_len; g++) {
        uint32_t rg = r->sel.row_groups[g];
        uint32_t step = 0;
        if (dict && !pq_prune_by_dictionaries(&in, rg, stats, &counts).can_true)
            step = PQ_PRUNE_DICTIONARY;
        else if (bloom && !pq_prune_by_bloom_filters(&in, rg, stats, &counts).can_true)
            step = PQ_PRUNE_BLOOM_FILTER;
        if (step) {
            if (step == PQ_PRUNE_DICTIONARY) sel_stats->pruned_dictionary++;
            else sel_stats->pruned_bloom_filter++;
            if (r->sel.pruned_by) r->sel.pruned_by[rg] = (uint8_t)step;
            continue;
        }
        keep_group(r, g, kept);
        /* Page indexes narrow the rows, or drop the row group after all. */
        pq_row_set narrowed;
        pq_page_verdict v = pages ? pq_prune_by_page_index(&in, rg, &r->sel.rows[kept], &narrowed, &counts)
                                  : PQ_PAGES_UNKNOWN;
        if (v == PQ_PAGES_NO_MATCH) {
            sel_stats->pruned_page_index++;
            if (r->sel.pruned_by) r->sel.pruned_by[rg] = PQ_PRUNE_PAGE_INDEX;
            continue;
        }
        if (v == PQ_PAGES_NARROWED) {
            if (r->opts.prune_only) { /* it delivers whole row groups: the runs only decide */
                pq_row_set_free(&narrowed);
            } else {
                pq_row_set_free(&r->sel.rows[kept]);
                r->sel.rows[kept] = narrowed;
            }
        }
        kept++;
    }
    r->sel.row_groups_len = kept;
    sel_stats->prune_warnings += counts.warnings;
    sel_stats->pages_considered += counts.pages_considered;
    sel_stats->pages_pruned += counts.pages_pruned;
    if (counts.tampered != PQ_OK) {
        if (err) *err = counts.tampered_err;
        return counts.tampered;
    }
    return PQ_OK;
}

/* Leaves that = or IN nodes compare (the dictionary and bloom steps'). */
static void eq_leaves(const pq_expr *e, uint8_t *mark, uint32_t nleaves, int depth)
{
    if (!e || depth > 128) return;
    if ((e->kind == PQ_NODE_CMP && e->op == PQ_CMP_EQ) || e->kind == PQ_NODE_IN) {
        if (e->leaf >= 0 && (uint32_t)e->leaf < nleaves && !e->variant_untyped) mark[e->leaf] = 1;
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
    if (r->sel.step != SELECT_NEED_INDEXES || !r->sel.filter) return 0;
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_schema *schema = pq_metadata_schema(r->md);
    bool dict = !(r->opts.prune_disable & PQ_PRUNE_DICTIONARY);
    bool bloom = !(r->opts.prune_disable & PQ_PRUNE_BLOOM_FILTER);
    bool pages = !(r->opts.prune_disable & PQ_PRUNE_PAGE_INDEX);
    size_t nl = pq_expr_index_columns(r->sel.filter, NULL, 0), count = 0; /* a covering's page indexes too */
    uint32_t *leaves = malloc((nl ? nl : 1) * sizeof *leaves);
    uint8_t *eq = calloc(schema->leaves_len ? schema->leaves_len : 1, 1);
    if (!leaves || !eq) {
        free(leaves);
        free(eq);
        return 0;
    }
    pq_expr_index_columns(r->sel.filter, leaves, nl);
    eq_leaves(r->sel.filter, eq, schema->leaves_len, 0);
    for (size_t g = 0; g < r->sel.row_groups_len; g++) {
        const pq_row_group *rg = &fm->row_groups[r->sel.row_groups[g]];
        for (size_t k = 0; k < nl; k++) {
            const pq_column_chunk *cc = rg->columns[leaves[k]];
            const pq_column_meta *m = &cc->meta_data;
            if (cc->set & PQ_CC_SKIPPED) continue;
            uint64_t off, len;
            if (dict && eq[leaves[k]] && pq_dictionary_prunable(m) &&
                pq_dictionary_page_range(m, r->footer.data_end, &off, &len))
                add_range(out, cap, &count, &r->io.supplied, off, len);
            if (bloom && eq[leaves[k]] && pq_bloom_filter_range(m, r->footer.data_end, &r->io.supplied, &off, &len))
                add_range(out, cap, &count, &r->io.supplied, off, len);
            unsigned both = PQ_CC_HAS_OFFSET_INDEX_OFFSET | PQ_CC_HAS_OFFSET_INDEX_LENGTH |
                            PQ_CC_HAS_COLUMN_INDEX_OFFSET | PQ_CC_HAS_COLUMN_INDEX_LENGTH;
            if (pages && (cc->set & both) == both && cc->offset_index_offset >= 4 && cc->column_index_offset >= 4 &&
                cc->offset_index_length > 0 && cc->column_index_length > 0) {
                add_range(out, cap, &count, &r->io.supplied, (uint64_t)cc->offset_index_offset,
                          (uint64_t)cc->offset_index_length);
                add_range(out, cap, &count, &r->io.supplied, (uint64_t)cc->column_index_offset,
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
    if (r->sel.step == SELECT_NEED_INDEXES) { /* sans-IO: statistics done, waiting for the indexes' bytes */
        size_t missing = pq_reader_select_needed(r, NULL, 0);
        if (missing)
            return pq_error_set(err, PQ_ERR_NEED_DATA,
                                "the select stage needs %zu more range%s for dictionaries, bloom filters and "
                                "page indexes (see pq_reader_needed_ranges)", missing, missing == 1 ? "" : "s");
        r->sel.step = SELECT_START;
        pq_status pst = prune_by_indexes(r, err);
        if (pst != PQ_OK) return pst;
        r->stats[PQ_STAGE_SELECT].chunks = (uint64_t)r->sel.row_groups_len * r->sel.walk_columns_len;
        return PQ_OK;
    }
    pq_reader_free_selection(r);
    pq_status st = pick(r->opts.row_groups, r->opts.row_groups_len, fm->row_groups_len,
                        "row group", &r->sel.row_groups, &r->sel.row_groups_len, err);
    if (st == PQ_OK)
        st = pick(r->opts.columns, r->opts.columns_len, schema->leaves_len, "column",
                  &r->sel.columns, &r->sel.columns_len, err);
    /* Fields with no leaf are no column's: a read of every column has them. */
    if (st == PQ_OK && !r->opts.columns)
        st = pq_empty_fields_find(schema, &r->sel.empty_fields, &r->sel.empty_fields_len, err);
    if (st == PQ_OK && r->opts.device > PQ_DEVICE_HOST_KERNELS)
        st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "device %u is not a pq_device", r->opts.device);
    if (st == PQ_OK) { /* once, for the later stages */
        pq_device_choose(r->opts.device, &r->sel.device);
        pq_executor_init(&r->sel.exec, &r->sel.device);
    }
    if (st == PQ_OK && r->opts.device_file && r->opts.device_file_size != r->io.file_size)
        st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                          "device_file_size %llu is not the file's size %llu: the device copy must be the whole file",
                          (unsigned long long)r->opts.device_file_size, (unsigned long long)r->io.file_size);
    if (st == PQ_OK) st = pq_output_types_make(&r->opts, r->md, &r->sel.outputs, err);
    /* Metadata parsed with another projection may lack a selected chunk. */
    for (size_t g = 0; st == PQ_OK && g < r->sel.row_groups_len; g++) {
        const pq_row_group *rg = &fm->row_groups[r->sel.row_groups[g]];
        for (size_t c = 0; c < r->sel.columns_len; c++) {
            if (rg->columns[r->sel.columns[c]]->set & PQ_CC_SKIPPED) {
                st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                  "column %u was left out when the footer was parsed "
                                  "(projected metadata); select within its projection",
                                  r->sel.columns[c]);
                break;
            }
        }
    }
    if (st == PQ_OK) st = apply_row_range(r, err);
    if (st == PQ_OK) st = bind_filter(r, err);
    if (st == PQ_OK) st = apply_deletions(r, err);
    if (st == PQ_OK) prune_by_statistics_only(r);
    /* The filter's own columns must be in a projected footer too. */
    for (size_t g = 0; st == PQ_OK && g < r->sel.row_groups_len; g++) {
        const pq_row_group *rg = &fm->row_groups[r->sel.row_groups[g]];
        for (size_t c = r->sel.columns_len; st == PQ_OK && c < r->sel.walk_columns_len; c++)
            if (rg->columns[r->sel.walk_columns[c]]->set & PQ_CC_SKIPPED)
                st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                  "the filter reads column %u, which was left out when the footer was "
                                  "parsed (projected metadata)", r->sel.walk_columns[c]);
    }
    if (st != PQ_OK) {
        pq_reader_free_selection(r);
        return st;
    }
    /* A sans-IO reader asks for the indexes' bytes before reading them. */
    if (pq_reader_sans_io(r) && r->sel.filter && pq_reader_select_needed_set(r)) {
        size_t missing = pq_reader_select_needed(r, NULL, 0);
        if (missing)
            return pq_error_set(err, PQ_ERR_NEED_DATA,
                                "the select stage needs %zu range%s for dictionaries, bloom filters and page "
                                "indexes (see pq_reader_needed_ranges)", missing, missing == 1 ? "" : "s");
        r->sel.step = SELECT_START;
    }
    pq_status pst = prune_by_indexes(r, err);
    if (pst != PQ_OK) return pst;
    r->stats[PQ_STAGE_SELECT].chunks = (uint64_t)r->sel.row_groups_len * r->sel.walk_columns_len;
    return PQ_OK;
}

/* Mark the select stage as waiting for bytes (sans-IO); true when some
 * index step is on. */
static bool pq_reader_select_needed_set(pq_reader *r)
{
    uint32_t io_steps = PQ_PRUNE_DICTIONARY | PQ_PRUNE_BLOOM_FILTER | PQ_PRUNE_PAGE_INDEX;
    if ((r->opts.prune_disable & io_steps) == io_steps) return false;
    r->sel.step = SELECT_NEED_INDEXES;
    return true;
}

uint32_t pq_reader_pruned_by(const pq_reader *r, uint32_t row_group)
{
    if (!r || r->stage < PQ_STAGE_SELECT || !r->sel.pruned_by) return 0;
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    return row_group < fm->row_groups_len ? r->sel.pruned_by[row_group] : 0;
}

size_t pq_reader_filter_text(const pq_reader *r, char *buf, size_t cap)
{
    if (r && r->stage >= PQ_STAGE_SELECT && r->sel.filter) return pq_expr_format(r->sel.filter, buf, cap);
    if (cap) buf[0] = '\0';
    return 0;
}
