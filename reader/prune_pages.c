/*
 * prune_pages.c — see prune_pages.h.
 *
 * The row group's rows are cut at every page boundary of every column the
 * filter reads. Over each piece, each column has one page, whose column
 * index entry (min, max, null page, null count) bounds the column's values
 * there; the filter is judged over the piece with those bounds exactly as
 * over a row group with its statistics (predicate/judge_stats.c). Pieces that cannot
 * be true are dropped; the row group keeps the rest, as runs of rows, and
 * the page-header stage then reads only the pages of each column that hold
 * one of them (through the offset index).
 */
#include <stdlib.h>
#include <string.h>

#include "metadata/column_index.h"
#include "metadata/page_index.h"
#include "metadata/stats_trust.h"
#include "pages/page_walk.h"
#include "reader/keys.h"
#include "reader/prune_pages.h"
#include "predicate/judge_stats.h"

typedef struct leaf_pages {
    bool usable;
    pq_offset_index oi;
    pq_column_index ci;
    uint8_t *ci_bytes;     /* the column index's spans point here */
    size_t page;           /* the page over the current piece */
} leaf_pages;

typedef struct pages_ctx {
    const pq_schema *schema;
    leaf_pages *leaves;    /* per leaf index */
    int64_t rg_rows;
    const pq_row_group *rg;
    const pq_file_metadata *fm; /* which of its statistics are believed (metadata/stats_trust.h) */
} pages_ctx;

static bool read_bytes(const pq_prune_input *in, int64_t off, int32_t len, uint8_t **out)
{
    *out = NULL;
    if (off < 4 || len <= 0 || (uint64_t)off >= in->data_end || (uint64_t)len > in->data_end - (uint64_t)off)
        return false;
    uint8_t *b = malloc((size_t)len);
    pq_error err;
    if (!b || in->read(in->read_user, (uint64_t)off, (size_t)len, b, &err) != PQ_OK) {
        free(b);
        return false;
    }
    *out = b;
    return true;
}

/* An encrypted chunk's index: *bytes (an encrypted module) replaced by its
 * plaintext. False (the index not used) without the column's key or when
 * the module does not authenticate. */
static bool decrypt_index(const pq_prune_input *in, uint32_t rg, uint32_t leaf, pq_module_type type, uint8_t **bytes,
                          size_t *len, pq_prune_counts *counts)
{
    uint8_t *plain = NULL;
    size_t plain_len = 0;
    pq_error err;
    pq_status st = pq_module_decrypt(in->md, in->keys, rg, leaf, type, *bytes, *len, &plain, &plain_len, NULL, &err);
    if (st != PQ_OK) {
        pq_prune_tampered(counts, st, &err);
        return false;
    }
    free(*bytes);
    *bytes = plain;
    *len = plain_len;
    return true;
}

/* Read and decode both indexes of `leaf` in row group `rg`. */
static bool load(const pq_prune_input *in, uint32_t rg, uint32_t leaf, leaf_pages *lp, pq_prune_counts *counts)
{
    const pq_file_metadata *fm = pq_metadata_file(in->md);
    const pq_row_group *g = &fm->row_groups[rg];
    const pq_column_chunk *cc = g->columns[leaf];
    unsigned oi_bits = PQ_CC_HAS_OFFSET_INDEX_OFFSET | PQ_CC_HAS_OFFSET_INDEX_LENGTH;
    unsigned ci_bits = PQ_CC_HAS_COLUMN_INDEX_OFFSET | PQ_CC_HAS_COLUMN_INDEX_LENGTH;
    if ((cc->set & PQ_CC_SKIPPED) || (cc->set & oi_bits) != oi_bits || (cc->set & ci_bits) != ci_bits)
        return false; /* nothing to use: not a warning */
    bool encrypted = pq_chunk_is_encrypted(cc);
    uint64_t chunk_off, chunk_len;
    pq_error err;
    uint8_t *oi_bytes = NULL;
    size_t oi_len = (size_t)cc->offset_index_length, ci_len = (size_t)cc->column_index_length;
    bool ok = pq_chunk_byte_range_for_writer(cc, fm->created_by, in->data_end, &chunk_off, &chunk_len, &err) ==
                  PQ_OK &&
              read_bytes(in, cc->offset_index_offset, cc->offset_index_length, &oi_bytes) &&
              (!encrypted || decrypt_index(in, rg, leaf, PQ_MODULE_OFFSET_INDEX, &oi_bytes, &oi_len, counts)) &&
              pq_offset_index_decode(oi_bytes, oi_len, chunk_off, chunk_len, g->num_rows, &lp->oi, &err) == PQ_OK;
    free(oi_bytes);
    if (ok) {
        ok = read_bytes(in, cc->column_index_offset, cc->column_index_length, &lp->ci_bytes) &&
             (!encrypted || decrypt_index(in, rg, leaf, PQ_MODULE_COLUMN_INDEX, &lp->ci_bytes, &ci_len, counts)) &&
             pq_column_index_decode(lp->ci_bytes, ci_len, lp->oi.npages, &lp->ci, &err) == PQ_OK;
        if (!ok) pq_offset_index_free(&lp->oi);
    }
    if (!ok) {
        free(lp->ci_bytes);
        lp->ci_bytes = NULL;
        counts->warnings++;
        return false;
    }
    lp->usable = true;
    return true;
}

/* Leaf `leaf_index` over the current piece: its page's column index entry
 * as bounds; false when its page index is not in hand. */
static bool page_bounds(const pages_ctx *c, int32_t leaf_index, pq_bounds *out)
{
    const leaf_pages *lp = &c->leaves[leaf_index];
    if (!lp->usable) return false;
    size_t p = lp->page;
    const pq_leaf *leaf = &c->schema->leaves[leaf_index];
    pq_bounds b;
    memset(&b, 0, sizeof b);
    int64_t start = lp->oi.pages[p].first_row_index;
    int64_t end = p + 1 < lp->oi.npages ? lp->oi.pages[p + 1].first_row_index : c->rg_rows;
    b.values = end - start;
    bool floating = leaf->physical_type == PQ_FLOAT || leaf->physical_type == PQ_DOUBLE;
    bool ordered = pq_ordered_bounds_usable(c->fm, (uint32_t)leaf_index, floating);
    pq_null_trust trust = pq_null_counts_trust(c->fm);
    if (leaf->max_def == 0) {
        /* A required column has no null: a writer that marks its pages
         * null (parquet-mr 1.13 does, with empty bounds, in
         * data/datapage_v1-*-checksum.parquet) is not believed, and its
         * bounds are not used either. */
        b.nulls_known = true;
        b.nulls = 0;
        if (!lp->ci.null_pages[p] && ordered) {
            b.have = pq_decode_bound(leaf, lp->ci.min_values[p], &b.min) &&
                     pq_decode_bound(leaf, lp->ci.max_values[p], &b.max);
            b.exact = leaf->physical_type != PQ_BYTE_ARRAY && leaf->physical_type != PQ_FIXED_LEN_BYTE_ARRAY;
        }
    } else if (trust != PQ_NULLS_EXACT) {
        /* a writer that miscounts nulls: its null pages and counts are not
         * believed (a count of 0 at most), nor the bounds it took over
         * values it miscounted */
        if (lp->ci.null_counts && pq_null_count_believed(trust, lp->ci.null_counts[p], b.values)) {
            b.nulls_known = true;
            b.nulls = lp->ci.null_counts[p];
        }
    } else if (lp->ci.null_pages[p] && !(lp->ci.null_counts && lp->ci.null_counts[p] >= 0 &&
                                         lp->ci.null_counts[p] < b.values)) {
        /* A null page (unless its own null count says otherwise). */
        b.nulls_known = true;
        b.nulls = b.values;
    } else if (lp->ci.null_pages[p]) {
        b.nulls_known = true; /* contradictory: trust only the count, no bounds */
        b.nulls = lp->ci.null_counts[p];
    } else {
        if (lp->ci.null_counts && pq_null_count_believed(trust, lp->ci.null_counts[p], b.values)) {
            b.nulls_known = true;
            b.nulls = lp->ci.null_counts[p];
        }
        b.have = ordered && pq_decode_bound(leaf, lp->ci.min_values[p], &b.min) &&
                 pq_decode_bound(leaf, lp->ci.max_values[p], &b.max);
        /* Column indexes may truncate byte arrays without saying so. */
        b.exact = leaf->physical_type != PQ_BYTE_ARRAY && leaf->physical_type != PQ_FIXED_LEN_BYTE_ARRAY;
    }
    if ((leaf->physical_type == PQ_FLOAT || leaf->physical_type == PQ_DOUBLE) && lp->ci.nan_counts &&
        lp->ci.nan_counts[p] >= 0) { /* parquet-format 2.13: the page's NaNs counted */
        b.nans_known = true;
        b.nans = lp->ci.nan_counts[p];
        b.all_nan = b.nans > 0 && b.nulls_known && b.nans + b.nulls == b.values;
    }
    *out = b;
    return true;
}

/* bbox_intersects over the current piece of a GeoParquet column with a bbox
 * covering, by its covering columns' pages (judge_stats.c judges row
 * groups so, by their statistics). */
static bool covering_misses(const pq_expr *n, const pages_ctx *c)
{
    if (n->bbox_cover[0] < 0) return false;
    pq_bounds cover[4];
    for (int k = 0; k < 4; k++)
        if (!page_bounds(c, n->bbox_cover[k], &cover[k])) return false;
    return pq_bbox_covering_misses(n, cover);
}

/* A leaf over the current piece: its page's column index entry. */
static pq_maybe judge(const pq_expr *n, void *ctx)
{
    pages_ctx *c = ctx;
    const pq_maybe all = {true, true, true};
    if (n->leaf < 0) return all;
    if (n->variant_depth && !pq_variant_residual_empty(n, c->fm, c->rg)) return all; /* see judge_stats.h */
    if (n->kind == PQ_NODE_BBOX && covering_misses(n, c)) return (pq_maybe){false, true, true};
    pq_bounds b;
    if (!page_bounds(c, n->leaf, &b)) return all;
    return pq_judge_bounds(n, &b);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

pq_page_verdict pq_prune_by_page_index(const pq_prune_input *in, uint32_t rg, const pq_row_set *rows,
                                       pq_row_set *kept, pq_prune_counts *counts)
{
    const pq_file_metadata *fm = pq_metadata_file(in->md);
    const pq_schema *schema = pq_metadata_schema(in->md);
    int64_t rg_rows = fm->row_groups[rg].num_rows;
    size_t nl = pq_expr_index_columns(in->filter, NULL, 0); /* a GeoParquet covering's columns too */
    uint32_t *leaves = malloc((nl ? nl : 1) * sizeof *leaves);
    pages_ctx c = {schema, calloc(schema->leaves_len ? schema->leaves_len : 1, sizeof *c.leaves), rg_rows,
                   &fm->row_groups[rg], fm};
    int64_t *cuts = NULL;
    pq_page_verdict verdict = PQ_PAGES_UNKNOWN;
    pq_row_set_init(kept, 0, 0);
    if (!leaves || !c.leaves) goto done;
    pq_expr_index_columns(in->filter, leaves, nl);
    size_t ncuts = 2;
    for (size_t k = 0; k < nl; k++)
        if (load(in, rg, leaves[k], &c.leaves[leaves[k]], counts)) ncuts += c.leaves[leaves[k]].oi.npages;
    cuts = malloc(ncuts * sizeof *cuts);
    if (!cuts) goto done;
    size_t m = 0;
    cuts[m++] = 0;
    cuts[m++] = rg_rows;
    for (size_t k = 0; k < nl; k++) {
        leaf_pages *lp = &c.leaves[leaves[k]];
        for (size_t p = 0; lp->usable && p < lp->oi.npages; p++) cuts[m++] = lp->oi.pages[p].first_row_index;
    }
    qsort(cuts, m, sizeof *cuts, cmp_i64);
    /* The pieces [cuts[i], cuts[i + 1]) inside the row group's rows. */
    pq_row_cursor cur = {0, 0};
    bool ok = true;
    for (size_t i = 0; ok && i + 1 < m; i++) {
        int64_t a = cuts[i], b = cuts[i + 1];
        if (a == b || (uint64_t)b <= pq_row_set_first(rows) || (uint64_t)a >= pq_row_set_end(rows)) continue;
        for (size_t k = 0; k < nl; k++) { /* each column's page over [a, b) */
            leaf_pages *lp = &c.leaves[leaves[k]];
            if (!lp->usable) continue;
            while (lp->page + 1 < lp->oi.npages && lp->oi.pages[lp->page + 1].first_row_index <= a) lp->page++;
        }
        if (!pq_prune_tree(in->filter, judge, &c).can_true) continue;
        ok = pq_row_set_add_overlap(kept, rows, (uint64_t)a, (uint64_t)b, &cur);
    }
    if (!ok) { /* out of memory: keep every row */
        pq_row_set_free(kept);
        goto done;
    }
    verdict = kept->rows > 0 ? PQ_PAGES_NARROWED : PQ_PAGES_NO_MATCH;
    /* Pages of the filter's columns that hold none of the kept rows. */
    for (size_t k = 0; k < nl; k++) {
        leaf_pages *lp = &c.leaves[leaves[k]];
        pq_row_cursor pc = {0, 0};
        for (size_t p = 0; lp->usable && p < lp->oi.npages; p++) {
            int64_t a = lp->oi.pages[p].first_row_index;
            int64_t b = p + 1 < lp->oi.npages ? lp->oi.pages[p + 1].first_row_index : rg_rows;
            counts->pages_considered++;
            if (!pq_row_set_hits(kept, NULL, (uint64_t)a, (uint64_t)b, &pc)) counts->pages_pruned++;
        }
    }
    if (verdict == PQ_PAGES_NO_MATCH) pq_row_set_free(kept);
done:
    for (size_t k = 0; c.leaves && leaves && k < nl; k++) {
        leaf_pages *lp = &c.leaves[leaves[k]];
        if (lp->usable) {
            pq_offset_index_free(&lp->oi);
            pq_column_index_free(&lp->ci);
        }
        free(lp->ci_bytes);
    }
    free(c.leaves);
    free(leaves);
    free(cuts);
    return verdict;
}
