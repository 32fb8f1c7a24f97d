/*
 * prune_stats.h — what a column chunk's statistics (row-group level) allow
 * a bound predicate to be over the chunk's rows.
 */
#ifndef PQ_READER_PRUNE_STATS_H
#define PQ_READER_PRUNE_STATS_H

#include <stdbool.h>

#include "metadata/predicate.h"
#include "pq_metadata.h"

/* Which truth values some row of the row group may give the predicate.
 * A row group with !can_true holds no matching row and may be skipped. */
typedef struct pq_maybe {
    bool can_true;
    bool can_false;
    bool can_null;
} pq_maybe;

/* Evaluate bound predicate `e` over row group `rg`'s statistics. Sound:
 * whatever the statistics do not rule out stays possible (no statistics,
 * statistics of an undefined sort order, NaN bounds, truncated bounds for
 * equality, deprecated min/max where their sort order is not the column's). */
pq_maybe pq_prune_by_statistics(const pq_expr *e, const pq_file_metadata *fm, const pq_schema *schema,
                                const pq_row_group *rg);

#endif
