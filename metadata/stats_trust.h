/*
 * stats_trust.h — which of a file's statistics may be believed.
 *
 * Pruning (row groups by Statistics, pages by the ColumnIndex) and the
 * decode's no-null shortcut read statistics that writers have got wrong.
 * These say, once for every user, what a file's bounds and null counts
 * are worth; a statistic not believed prunes nothing.
 */
#ifndef PQ_METADATA_STATS_TRUST_H
#define PQ_METADATA_STATS_TRUST_H

#include <stdbool.h>
#include <stdint.h>

#include "pq_metadata.h"

/* Whether leaf `leaf_index`'s bounds that follow its ColumnOrder
 * (Statistics min_value / max_value, ColumnIndex min_values / max_values)
 * may be used: the file names TYPE_DEFINED for it, or IEEE754_TOTAL for a
 * `floating` leaf. A file without column_orders leaves their meaning
 * undefined (parquet.thrift, FileMetaData.column_orders), and such files
 * were written with wrong ones (arrow2 and polars before 0.20.10: string
 * maxima shorter than the largest value); the deprecated min / max fields,
 * which do not depend on it, are judged apart (judge_stats.c). */
bool pq_ordered_bounds_usable(const pq_file_metadata *fm, uint32_t leaf_index, bool floating);

/* What the file's null counts (Statistics null_count, ColumnIndex
 * null_counts) are worth, by what its writer is known to have got wrong. */
typedef enum pq_null_trust {
    PQ_NULLS_EXACT,    /* counts as the spec says */
    PQ_NULLS_OVER,     /* a count may exceed the nulls (DuckDB 0.8 and 0.9,
                        * created_by "DuckDB" as up to 1.0: doubled, tripled):
                        * only a count of 0 is exact */
    PQ_NULLS_UNKNOWN   /* a count may be short (polars 0.19 to 0.20.9,
                        * created_by "Polars" with no column_orders:
                        * dictionary-encoded optional string columns
                        * counted no null): none is believed */
} pq_null_trust;

pq_null_trust pq_null_counts_trust(const pq_file_metadata *fm);

/* Whether `count` nulls of `values` values is a count to go by under
 * `trust`: a count of at most the values, exact or, for PQ_NULLS_OVER, 0. */
static inline bool pq_null_count_believed(pq_null_trust trust, int64_t count, int64_t values)
{
    if (count < 0 || (values >= 0 && count > values)) return false;
    return trust == PQ_NULLS_EXACT || (trust == PQ_NULLS_OVER && count == 0);
}

#endif
