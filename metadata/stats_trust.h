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

/* Whether the file's null counts (Statistics null_count, ColumnIndex
 * null_counts) may be believed: not those of a writer known to have
 * miscounted (polars 0.19 to 0.20.9, created_by "Polars" with no
 * column_orders: dictionary-encoded optional string columns counted no
 * null). */
bool pq_null_counts_usable(const pq_file_metadata *fm);

#endif
