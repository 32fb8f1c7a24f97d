/*
 * judge_stats.c — what column statistics allow a predicate (row-group pruning by statistics, and the tree walk every pruning step shares).
 *
 * Each leaf node (column op literal) is judged from the chunk's min, max
 * and null count into the set of truth values its rows may take; AND, OR
 * and NOT combine those sets as SQL's three-valued logic does. Whatever the
 * statistics cannot vouch for stays possible, so a pruned row group never
 * holds a matching row.
 *
 * Which bounds are trusted:
 *  - min_value / max_value (Statistics fields 5, 6) where the file's
 *    ColumnOrder for the leaf is known (pq_ordered_bounds_usable: a file
 *    without column_orders leaves them undefined);
 *  - the deprecated min / max (fields 1, 2) only for types whose order is
 *    the signed order they were written with: BOOLEAN, FLOAT, DOUBLE, and
 *    INT32 / INT64 that are not unsigned. Never for byte arrays (old writers
 *    compared bytes as signed) or INT96;
 *  - a bound that is NaN makes the pair unusable; for floats "can be false"
 *    always stays possible (a NaN value compares false and statistics do not
 *    say whether there is one), and != can always be true;
 *  - truncated bounds (is_*_value_exact false) still bound the values, but
 *    cannot prove that every value equals the literal;
 *  - null counts as far as their writer counted them right
 *    (pq_null_counts_trust).
 */
#include <math.h>
#include <string.h>

#include "predicate/judge_stats.h"
#include "predicate/geo.h"
#include "metadata/stats_trust.h"

static const pq_maybe MAYBE_ALL = {true, true, true};

typedef pq_bounds bounds;

static bool is_unsigned(const pq_leaf *leaf)
{
    return leaf->logical.kind == PQ_LOGICAL_INTEGER && !leaf->logical.is_signed;
}

/* A PLAIN-encoded statistics value into `v`, as the binder types literals
 * (predicate.h). Spans point into the footer copy, which outlives this. */
bool pq_decode_bound(const pq_leaf *leaf, pq_bytes b, pq_value *v)
{
    memset(v, 0, sizeof *v);
    const uint8_t *p = b.ptr;
    switch (leaf->physical_type) {
    case PQ_BOOLEAN:
        if (b.len < 1) return false;
        v->i = p[0] != 0;
        return true;
    case PQ_INT32: {
        if (b.len != 4) return false;
        uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        v->i = is_unsigned(leaf) ? (int64_t)u : (int64_t)(int32_t)u;
        return true;
    }
    case PQ_INT64: {
        if (b.len != 8) return false;
        uint64_t u = 0;
        for (int k = 0; k < 8; k++) u |= (uint64_t)p[k] << (8 * k);
        v->i = (int64_t)u;
        return true;
    }
    case PQ_FLOAT: {
        if (b.len != 4) return false;
        float f;
        memcpy(&f, p, 4);
        v->d = f;
        return !isnan(v->d);
    }
    case PQ_DOUBLE: {
        if (b.len != 8) return false;
        memcpy(&v->d, p, 8);
        return !isnan(v->d);
    }
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (leaf->type_length < 0 || b.len != (uint32_t)leaf->type_length) return false;
        /* fall through */
    case PQ_BYTE_ARRAY:
        v->bytes = (uint8_t *)(uintptr_t)p; /* read-only use */
        v->len = b.len;
        return true;
    default:
        return false; /* INT96: no order */
    }
}

/* Deprecated min/max were written in signed order: usable only where that
 * is the column's order. */
static bool deprecated_ok(const pq_leaf *leaf)
{
    switch (leaf->physical_type) {
    case PQ_BOOLEAN: case PQ_FLOAT: case PQ_DOUBLE: return true;
    case PQ_INT32: case PQ_INT64: return !is_unsigned(leaf);
    default: return false;
    }
}

static bounds chunk_bounds(const pq_file_metadata *fm, const pq_schema *schema, const pq_row_group *rg,
                           int32_t leaf_index)
{
    bounds b;
    memset(&b, 0, sizeof b);
    b.values = -1;
    if (leaf_index < 0 || (uint32_t)leaf_index >= rg->columns_len) return b;
    const pq_column_chunk *cc = rg->columns[leaf_index];
    if (cc->set & PQ_CC_SKIPPED || !(cc->set & PQ_CC_HAS_META_DATA)) return b;
    const pq_column_meta *m = &cc->meta_data;
    b.values = m->num_values;
    if (!(m->set & PQ_CMD_HAS_STATISTICS)) return b;
    const pq_statistics *s = &m->statistics;
    const pq_leaf *leaf = &schema->leaves[leaf_index];
    b.nulls_known = (s->set & PQ_STATS_HAS_NULL_COUNT) &&
                    pq_null_count_believed(pq_null_counts_trust(fm), s->null_count, m->num_values);
    b.nulls = s->null_count;
    if (leaf->max_def == 0) { /* required: no null, whatever a writer says */
        b.nulls_known = true;
        b.nulls = 0;
    }
    bool floating = leaf->physical_type == PQ_FLOAT || leaf->physical_type == PQ_DOUBLE;
    /* IEEE 754 total order: min and max are the extreme non-NaN values (or
     * NaNs, when every value is one, which pq_decode_bound refuses); as
     * bounds by value they are sound (-0.0 and +0.0 compare equal here). */
    bool order_known = pq_ordered_bounds_usable(fm, (uint32_t)leaf_index, floating);
    if (floating && (s->set & PQ_STATS_HAS_NAN_COUNT) && s->nan_count >= 0) {
        b.nans_known = true;
        b.nans = s->nan_count;
        b.all_nan = b.nans > 0 && b.nulls_known && b.values >= 0 && b.nans + b.nulls == b.values;
    }
    if ((s->set & PQ_STATS_HAS_MIN_VALUE) && (s->set & PQ_STATS_HAS_MAX_VALUE) && order_known) {
        b.have = pq_decode_bound(leaf, s->min_value, &b.min) && pq_decode_bound(leaf, s->max_value, &b.max);
        b.exact = (!(s->set & PQ_STATS_HAS_IS_MIN_EXACT) || s->is_min_value_exact) &&
                  (!(s->set & PQ_STATS_HAS_IS_MAX_EXACT) || s->is_max_value_exact);
    } else if ((s->set & PQ_STATS_HAS_MIN) && (s->set & PQ_STATS_HAS_MAX) && deprecated_ok(leaf)) {
        b.have = pq_decode_bound(leaf, s->min, &b.min) && pq_decode_bound(leaf, s->max, &b.max);
        b.exact = true;
    }
    return b;
}

static bool is_float(const pq_expr *n)
{
    return n->physical_type == PQ_FLOAT || n->physical_type == PQ_DOUBLE;
}

/* Whether a NaN value may be among the values bounded by b. */
static bool may_nan(const pq_expr *n, const bounds *b)
{
    return is_float(n) && !(b->nans_known && b->nans == 0);
}

/* One comparison against [min, max] (not all null, bounds usable). */
static pq_maybe judge_cmp(const pq_expr *n, const bounds *b, const pq_value *v)
{
    int lo = pq_value_compare(n, v, &b->min); /* v vs min */
    int hi = pq_value_compare(n, v, &b->max); /* v vs max */
    bool inside = lo >= 0 && hi <= 0;
    bool all_equal = b->exact && lo == 0 && hi == 0; /* every value is v */
    pq_maybe r = {true, true, true};
    switch (n->op) {
    case PQ_CMP_EQ: r.can_true = inside; r.can_false = !all_equal; break;
    case PQ_CMP_NE: r.can_true = !all_equal; r.can_false = inside; break;
    case PQ_CMP_LT: r.can_true = lo > 0; r.can_false = hi <= 0; break;  /* some x < v iff min < v */
    case PQ_CMP_LE: r.can_true = lo >= 0; r.can_false = hi < 0; break;
    case PQ_CMP_GT: r.can_true = hi < 0; r.can_false = lo >= 0; break;
    case PQ_CMP_GE: r.can_true = hi <= 0; r.can_false = lo > 0; break;
    }
    if (may_nan(n, b)) { /* a NaN value is false for everything but != */
        r.can_false = true;
        if (n->op == PQ_CMP_NE) r.can_true = true;
    }
    return r;
}

bool pq_bbox_covering_misses(const pq_expr *n, const pq_bounds cover[4])
{
    if (n->bbox_cover[0] < 0 || n->nlits != 4) return false;
    double stats[4];
    for (int k = 0; k < 4; k++) {
        if (!cover[k].have) return false;
        stats[k] = k < 2 ? cover[k].min.d : cover[k].max.d;
        if (!isfinite(stats[k])) return false;
    }
    double box[4] = {n->lits[0].d, n->lits[1].d, n->lits[2].d, n->lits[3].d};
    if (!n->bbox_cover_x) { /* y alone: the x range of every longitude */
        stats[0] = box[0];
        stats[2] = box[2];
    }
    return !pq_boxes_meet(stats, box);
}

/* bbox_intersects over a chunk of a GeoParquet column with a bbox
 * covering, by its covering columns' statistics. */
static void judge_bbox_covering(const pq_expr *n, const pq_file_metadata *fm, const pq_schema *schema,
                                const pq_row_group *rg, pq_maybe *r)
{
    if (n->bbox_cover[0] < 0) return;
    pq_bounds cover[4];
    for (int k = 0; k < 4; k++) cover[k] = chunk_bounds(fm, schema, rg, n->bbox_cover[k]);
    if (pq_bbox_covering_misses(n, cover)) r->can_true = false;
}

/* bbox_intersects over a chunk: none of its rows can match when its
 * geospatial statistics' box (or its GeoParquet covering's) misses the
 * query's. */
static void judge_bbox(const pq_expr *n, const pq_file_metadata *fm, const pq_schema *schema, const pq_row_group *rg,
                       pq_maybe *r)
{
    if (n->leaf < 0 || (uint32_t)n->leaf >= rg->columns_len || n->nlits != 4) return;
    judge_bbox_covering(n, fm, schema, rg, r);
    if (!r->can_true) return;
    const pq_column_chunk *cc = rg->columns[n->leaf];
    if (cc->set & PQ_CC_SKIPPED || !(cc->set & PQ_CC_HAS_META_DATA)) return;
    const pq_column_meta *m = &cc->meta_data;
    const pq_geospatial_statistics *g = (m->set & PQ_CMD_HAS_GEOSPATIAL_STATISTICS) ? m->geospatial_statistics : NULL;
    if (!g || !(g->set & PQ_GEO_HAS_BBOX)) return;
    double stats[4] = {g->bbox.xmin, g->bbox.ymin, g->bbox.xmax, g->bbox.ymax};
    double box[4] = {n->lits[0].d, n->lits[1].d, n->lits[2].d, n->lits[3].d};
    /* A box with an infinite bound is what some writers leave for a chunk
     * without coordinates: trusted only when every bound is finite. */
    for (int k = 0; k < 4; k++)
        if (!isfinite(stats[k])) return;
    if (!pq_boxes_meet(stats, box)) r->can_true = false;
}

bool pq_variant_residual_empty(const pq_expr *n, const pq_file_metadata *fm, const pq_row_group *rg)
{
    if (pq_null_counts_trust(fm) != PQ_NULLS_EXACT) return false; /* "all null" needs an exact count */
    if (n->variant_untyped || n->variant_by_value || n->variant_pick >= 0) return false;
    for (size_t k = 0; k <= n->variant_depth && n->variant_depth; k++) {
        int32_t leaf = n->variant_residual[k];
        if (leaf < 0) continue;
        if ((uint32_t)leaf >= rg->columns_len) return false;
        const pq_column_chunk *cc = rg->columns[leaf];
        if (cc->set & PQ_CC_SKIPPED || !(cc->set & PQ_CC_HAS_META_DATA)) return false;
        const pq_column_meta *m = &cc->meta_data;
        const pq_statistics *s = &m->statistics;
        if (!(m->set & PQ_CMD_HAS_STATISTICS) || !(s->set & PQ_STATS_HAS_NULL_COUNT) || s->null_count != m->num_values)
            return false;
    }
    return true;
}

static pq_maybe judge_leaf(const pq_expr *n, const pq_file_metadata *fm, const pq_schema *schema,
                           const pq_row_group *rg)
{
    /* A path into a VARIANT: its typed leaf's statistics say nothing of the
     * rows whose value was left in a residual `value` on the way. */
    if (n->variant_depth && !pq_variant_residual_empty(n, fm, rg)) return MAYBE_ALL;
    bounds b = chunk_bounds(fm, schema, rg, n->leaf);
    pq_maybe r = pq_judge_bounds(n, &b);
    if (n->kind == PQ_NODE_BBOX && r.can_true) judge_bbox(n, fm, schema, rg, &r);
    return r;
}

pq_maybe pq_judge_bounds(const pq_expr *n, const pq_bounds *bp)
{
    bounds b = *bp;
    bool all_null = b.nulls_known && b.values >= 0 && b.nulls == b.values;
    bool no_null = b.nulls_known && b.nulls == 0;
    if (n->kind == PQ_NODE_IS_NULL && n->node_def > 0) {
        /* A group's nullness: its first leaf's null counts include the
         * leaf's own nulls (and empty lists), so they decide nothing. */
        return (pq_maybe){true, true, false};
    }
    if (n->kind == PQ_NODE_IS_NULL) {
        pq_maybe r;
        bool can_null_value = !no_null, can_value = !all_null;
        r.can_true = n->is_null ? can_null_value : can_value;
        r.can_false = n->is_null ? can_value : can_null_value;
        r.can_null = false; /* IS [NOT] NULL is never unknown */
        return r;
    }
    if (all_null) return (pq_maybe){false, false, true};
    pq_maybe r = MAYBE_ALL;
    r.can_null = !no_null;
    if (b.all_nan && is_float(n) && (n->kind == PQ_NODE_CMP || n->kind == PQ_NODE_IN)) {
        /* every value NaN (or null): false for every comparison but != */
        r.can_true = n->kind == PQ_NODE_CMP && n->op == PQ_CMP_NE;
        r.can_false = !r.can_true;
        return r;
    }
    if (!b.have) return r;
    if (n->kind == PQ_NODE_CMP && n->nvalues == 1) {
        pq_maybe c = judge_cmp(n, &b, &n->values[0]);
        r.can_true = c.can_true;
        r.can_false = c.can_false;
        return r;
    }
    if (n->kind == PQ_NODE_IN) { /* x IN (a, b, ...) is x = a OR x = b ... */
        pq_expr eq = *n;
        eq.op = PQ_CMP_EQ;
        bool any_inside = false, pinned = false;
        for (size_t k = 0; k < n->nvalues; k++) {
            pq_maybe c = judge_cmp(&eq, &b, &n->values[k]);
            any_inside |= c.can_true;
            pinned |= !c.can_false; /* every value equals this literal */
        }
        r.can_true = any_inside;
        r.can_false = !pinned || may_nan(n, &b);
        return r;
    }
    return r;
}

pq_maybe pq_judge_statistics(const pq_expr *leaf, void *ctx)
{
    const pq_stats_ctx *c = ctx;
    return judge_leaf(leaf, c->fm, c->schema, c->rg);
}

pq_maybe pq_prune_tree(const pq_expr *e, pq_leaf_judge judge, void *ctx)
{
    if (!e || !e->bound) return MAYBE_ALL;
    switch (e->kind) {
    case PQ_NODE_CONST:
        return (pq_maybe){e->truth, !e->truth, false};
    case PQ_NODE_CMP:
    case PQ_NODE_IN:
    case PQ_NODE_IS_NULL:
    case PQ_NODE_BBOX:
        return judge(e, ctx);
    case PQ_NODE_NOT: {
        pq_maybe a = pq_prune_tree(e->kids[0], judge, ctx);
        return (pq_maybe){a.can_false, a.can_true, a.can_null};
    }
    case PQ_NODE_AND: {
        pq_maybe a = pq_prune_tree(e->kids[0], judge, ctx);
        pq_maybe b = pq_prune_tree(e->kids[1], judge, ctx);
        return (pq_maybe){a.can_true && b.can_true, a.can_false || b.can_false,
                          (a.can_null && (b.can_true || b.can_null)) || (b.can_null && a.can_true)};
    }
    case PQ_NODE_OR: {
        pq_maybe a = pq_prune_tree(e->kids[0], judge, ctx);
        pq_maybe b = pq_prune_tree(e->kids[1], judge, ctx);
        return (pq_maybe){a.can_true || b.can_true, a.can_false && b.can_false,
                          (a.can_null && (b.can_false || b.can_null)) || (b.can_null && a.can_false)};
    }
    }
    return MAYBE_ALL;
}

pq_maybe pq_prune_by_statistics(const pq_expr *e, const pq_file_metadata *fm, const pq_schema *schema,
                                const pq_row_group *rg)
{
    pq_stats_ctx c = {fm, schema, rg};
    return pq_prune_tree(e, pq_judge_statistics, &c);
}
