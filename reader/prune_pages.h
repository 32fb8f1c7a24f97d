/*
 * prune_pages.h — the page-index step of the select stage: the column and
 * offset indexes of the filter's columns narrow a row group to the rows
 * whose pages may match.
 */
#ifndef PQ_READER_PRUNE_PAGES_H
#define PQ_READER_PRUNE_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "reader/context.h"

/* Narrow selected row group g (index into the selection) by the page
 * indexes: its rows (sel.rows[g]) keep only those whose pages may hold a
 * match (the rows of a page are known from the offset index), as runs, and
 * the function returns false when no row may match. In prune-only mode
 * (which delivers whole row groups) the rows are left as they are. Pages of the filter's
 * columns that hold none of the kept rows are counted in *pages_pruned, all
 * their pages in *pages_total. Columns without both indexes, or whose indexes cannot
 * be read or decoded (counted in prune_warnings), constrain nothing. */
bool pq_prune_by_page_index(pq_reader *r, size_t g, uint64_t *pages_pruned, uint64_t *pages_total);

#endif
