/*
 * judge_stats.h — what a column chunk's statistics (row-group level) allow
 * a bound predicate to be over the chunk's rows.
 */
#ifndef PQ_PREDICATE_JUDGE_STATS_H
#define PQ_PREDICATE_JUDGE_STATS_H

#include <stdbool.h>

#include "predicate/predicate.h"
#include "pq_metadata.h"

/* Which truth values some row of the row group may give the predicate.
 * A row group with !can_true holds no matching row and may be skipped. */
typedef struct pq_maybe {
    bool can_true;
    bool can_false;
    bool can_null;
} pq_maybe;

/* What is known of a leaf's values over some rows (a chunk, a page). */
typedef struct pq_bounds {
    bool have;            /* min and max usable */
    bool exact;           /* both exact (not truncated) */
    pq_value min, max;
    bool nulls_known;
    int64_t nulls;
    int64_t values;       /* values (rows, for a leaf without repetition); -1 unknown */
    bool nans_known;      /* FLOAT/DOUBLE: the NaN values are counted (nan_count) */
    int64_t nans;
    bool all_nan;         /* FLOAT/DOUBLE: every non-null value is NaN (known) */
} pq_bounds;

/* A PLAIN-encoded min or max (statistics, column index) as the binder
 * types literals; false when it does not fit the type or is NaN. Byte
 * arrays point into `b`. */
bool pq_decode_bound(const pq_leaf *leaf, pq_bytes b, pq_value *v);

/* What leaf node n may be over values with bounds b. */
pq_maybe pq_judge_bounds(const pq_expr *n, const pq_bounds *b);

/* Whether BBOX node n's GeoParquet covering (bbox_cover) rules out every
 * row whose covering columns have the bounds `cover` (xmin, ymin, xmax,
 * ymax; a chunk's statistics or a page's column index): the box they
 * bound (the least xmin and ymin, the greatest xmax and ymax) misses the
 * query's; y alone where the boxes may wrap the antimeridian (spherical
 * edges). A row's covering holds its geometry's box, so a row without a
 * value there has no geometry to match. False when any bound is unknown. */
bool pq_bbox_covering_misses(const pq_expr *n, const pq_bounds cover[4]);

/* What one leaf node (CMP, IN, IS_NULL) may be over a row group, from one
 * source of knowledge; `ctx` is the judge's. */
typedef pq_maybe (*pq_leaf_judge)(const pq_expr *leaf, void *ctx);

/* The truth values `e` may take when its leaves may take what `judge`
 * says, combined by SQL's three-valued AND, OR and NOT (sound, not tight:
 * the two sides of a connective may combine any way). */
pq_maybe pq_prune_tree(const pq_expr *e, pq_leaf_judge judge, void *ctx);

/* Whether every residual `value` leaf on a VARIANT path node's way is all
 * null in row group rg (their statistics say so): only then do the typed
 * leaf's statistics, page index, dictionary and bloom filter speak for
 * every row. True for a node that is no variant path; false for one
 * compared by value (variant_untyped, variant_by_value: no typed leaf
 * speaks for it) or through a shredded array (variant_pick: the leaf's
 * statistics are every element's). False where the file's null counts are
 * not exact (metadata/stats_trust.h). */
bool pq_variant_residual_empty(const pq_expr *n, const pq_file_metadata *fm, const pq_row_group *rg);

/* The statistics judge: ctx is a pq_stats_ctx. */
typedef struct pq_stats_ctx {
    const pq_file_metadata *fm;
    const pq_schema *schema;
    const pq_row_group *rg;
} pq_stats_ctx;
pq_maybe pq_judge_statistics(const pq_expr *leaf, void *ctx);

/* Evaluate bound predicate `e` over row group `rg`'s statistics. Sound:
 * whatever the statistics do not rule out stays possible (no statistics,
 * statistics of an undefined sort order, NaN bounds, truncated bounds for
 * equality, deprecated min/max where their sort order is not the column's). */
pq_maybe pq_prune_by_statistics(const pq_expr *e, const pq_file_metadata *fm, const pq_schema *schema,
                                const pq_row_group *rg);

#endif
