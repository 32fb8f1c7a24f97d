/*
 * prune_bloom.h — the bloom-filter step of the select stage: for = and IN,
 * a row group whose chunk's split-block bloom filter holds none of the
 * literals holds no matching row.
 */
#ifndef PQ_READER_PRUNE_BLOOM_H
#define PQ_READER_PRUNE_BLOOM_H

#include "predicate/judge_stats.h"
#include "reader/prune.h"
#include "reader/supplied.h"

/* The truth values in->filter may take over file row group `rg`, judging
 * each leaf by its statistics (unless disabled) and, for = and IN, by its
 * chunk's bloom filter, read through in->read. A filter that cannot be read
 * or is malformed is not used (counted in counts->warnings), never trusted. */
pq_maybe pq_prune_by_bloom_filters(const pq_prune_input *in, uint32_t rg, bool with_statistics,
                                   pq_prune_counts *counts);

/* The byte range the bloom-filter step reads for chunk metadata m, given
 * what the reader has been supplied (may be NULL):
 * [bloom_filter_offset, +bloom_filter_length) when the length is known;
 * otherwise the speculative guess (PQ_BLOOM_SPECULATIVE_READ) and, once the
 * guess's header is supplied and says the filter is longer, header + bitset
 * whole (a sans-IO caller's second round). Clamped to the data region
 * (before the footer, data_end). False when
 * the chunk has no usable filter offset. */
bool pq_bloom_filter_range(const pq_column_meta *m, uint64_t data_end, const pq_supplied *supplied,
                           uint64_t *off, uint64_t *len);

#endif
