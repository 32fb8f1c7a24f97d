/*
 * arrow_nested.h — the Arrow array of a nested top-level field (struct,
 * list, map) assembled from its leaves' levels.
 */
#ifndef PQ_READER_ARROW_NESTED_H
#define PQ_READER_ARROW_NESTED_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/assemble.h"
#include "pages/page_values.h"
#include "pq_metadata.h"
#include "reader/arrow_column.h"

/* Build the Arrow array of top-level field node `field` (a child of the
 * schema root) from its selected leaves `leaves` (n of them, in file order,
 * no repeats) and their decoded chunks `vals` (same order): structs, lists
 * and maps as pq_metadata_arrow_schema types them, num_rows slots. Takes
 * buffers out of `vals` as pq_arrow_column_build does; the caller still
 * frees them. Errors: PQ_ERR_CORRUPT_DATA (levels that do not assemble,
 * leaves that disagree on a shared struct or list), PQ_ERR_SCHEMA,
 * PQ_ERR_UNSUPPORTED, PQ_ERR_NOMEM. */
pq_status pq_arrow_nested_build(const pq_schema *schema, int32_t field, const pq_leaf *const *leaves,
                                pq_column_values *vals, size_t n, int64_t num_rows, pq_arrow_column **out,
                                pq_error *err);

/* pq_arrow_nested_build with the list levels whose keys (as
 * pq_arrow_leaf_levels gives them) are large_lists[0..n_large_lists) built
 * with 64-bit offsets, as large_list. */
pq_status pq_arrow_nested_build_wide(const pq_schema *schema, int32_t field, const pq_leaf *const *leaves,
                                     pq_column_values *vals, size_t n, int64_t num_rows, const int64_t *large_lists,
                                     size_t n_large_lists, pq_arrow_column **out, pq_error *err);

/* The Arrow levels (kernels/assemble.h) of leaf `leaf` under top-level
 * field node `field`, outermost first, the leaf's last: those
 * pq_arrow_nested_build assembles the leaf by. `levels` (and `keys`,
 * which may be NULL) have room for PQ_ASM_MAX_LEVELS; *n_levels gets the
 * count, keys[k] the schema node level k stands for (leaves of a field
 * share the levels whose keys are equal). PQ_ERR_SCHEMA for a path that
 * does not assemble. */
pq_status pq_arrow_leaf_levels(const pq_schema *schema, int32_t field, const pq_leaf *leaf, pq_asm_level *levels,
                               int64_t *keys, size_t *n_levels, pq_error *err);

#endif
