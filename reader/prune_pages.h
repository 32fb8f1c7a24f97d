/*
 * prune_pages.h — the page-index step of the select stage: the column and
 * offset indexes of the filter's columns narrow a row group to the rows
 * whose pages may match.
 */
#ifndef PQ_READER_PRUNE_PAGES_H
#define PQ_READER_PRUNE_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "reader/prune.h"
#include "reader/row_set.h"

/* What the page index makes of a row group's rows. */
typedef enum pq_page_verdict {
    PQ_PAGES_NO_MATCH,      /* no row may match */
    PQ_PAGES_NARROWED,      /* the rows that may match are in *kept (the caller's to free) */
    PQ_PAGES_UNKNOWN        /* out of memory: every row may match */
} pq_page_verdict;

/* Narrow `rows` of file row group rg by the page indexes of in->filter's
 * columns to those whose pages may hold a match (the rows of a page are
 * known from the offset index), as runs. Pages of the filter's columns that
 * hold none of the kept rows are counted in counts->pages_pruned, all their
 * pages in counts->pages_considered. Columns without both indexes, or whose
 * indexes cannot be read or decoded (counted in counts->warnings),
 * constrain nothing. */
pq_page_verdict pq_prune_by_page_index(const pq_prune_input *in, uint32_t rg, const pq_row_set *rows,
                                       pq_row_set *kept, pq_prune_counts *counts);

#endif
