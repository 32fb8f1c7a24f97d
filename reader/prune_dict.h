/*
 * prune_dict.h — the dictionary step of the select stage: for = and IN on a
 * column chunk whose data pages are all dictionary-encoded, the chunk holds
 * only its dictionary's values; a row group whose dictionary has none of
 * the literals holds no matching row.
 */
#ifndef PQ_READER_PRUNE_DICT_H
#define PQ_READER_PRUNE_DICT_H

#include "predicate/judge_stats.h"
#include "reader/prune.h"

/* The truth values in->filter may take over file row group `rg`, judging
 * each leaf by its statistics (unless disabled) and, for = and IN on a fully
 * dictionary-encoded chunk (known from the chunk's encoding stats), by its
 * dictionary page, read through in->read and decoded. A dictionary that
 * cannot be read or decoded is not used (counted in counts->warnings). */
pq_maybe pq_prune_by_dictionaries(const pq_prune_input *in, uint32_t rg, bool with_statistics,
                                  pq_prune_counts *counts);

/* The dictionary step reads [dictionary_page_offset, data_page_offset):
 * that range, when the chunk has a dictionary page there. */
bool pq_dictionary_page_range(const pq_column_meta *m, uint64_t data_end, uint64_t *off, uint64_t *len);

/* Whether the chunk's encoding stats allow the dictionary step. */
bool pq_dictionary_prunable(const pq_column_meta *m);

#endif
