/*
 * prune_bloom.h — the bloom-filter step of the select stage: for = and IN,
 * a row group whose chunk's split-block bloom filter holds none of the
 * literals holds no matching row.
 */
#ifndef PQ_READER_PRUNE_BLOOM_H
#define PQ_READER_PRUNE_BLOOM_H

#include "reader/prune_stats.h"
#include "reader/reader_internal.h"

/* The truth values r->filter may take over file row group `rg`, judging
 * each leaf by its statistics (unless disabled) and, for = and IN, by its
 * chunk's bloom filter, read through the reader (counted in the select
 * stage). A filter that cannot be read or is malformed is not used (counted
 * in prune_warnings), never trusted. */
pq_maybe pq_prune_by_bloom_filters(pq_reader *r, uint32_t rg, bool with_statistics);

#endif
