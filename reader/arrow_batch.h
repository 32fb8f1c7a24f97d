/*
 * arrow_batch.h — decoded columns (arrow_column.h) exported as a record
 * batch per the Arrow C Data Interface, and the batch's schema. Each
 * exported child holds a reference to its column.
 */
#ifndef PQ_READER_ARROW_BATCH_H
#define PQ_READER_ARROW_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "pq_arrow.h"
#include "pq_error.h"
#include "pq_metadata.h"
#include "reader/arrow_column.h"

/* Export `n` columns as a struct array ("+s", no nulls) of `length` rows:
 * child i is rows [offsets[i], offsets[i] + length) of column i (offsets
 * NULL: all from row 0), a slice that shares the buffers through the Arrow
 * offset. Each child holds its own reference, so any child may be moved out
 * and released on its own. The caller owns *out and calls out->release.
 * PQ_ERR_INVALID_ARGUMENT when a slice is out of a column's rows. On
 * failure *out has release == NULL. */
pq_status pq_arrow_batch_export(pq_arrow_column *const *cols, const int64_t *offsets, size_t n,
                                int64_t length, struct ArrowArray *out, pq_error *err);

/* The schema for such a batch: "+s" with one field per leaf in `columns`,
 * in that order (duplicates repeat), each as pq_metadata_arrow_schema types
 * it. The caller owns *out. On failure *out has release == NULL. */
pq_status pq_arrow_batch_schema(const pq_metadata *md, const uint32_t *columns, size_t n,
                                struct ArrowSchema *out, pq_error *err);

/* The same with each field the leaf's own (a leaf under structs is not
 * wrapped in them): the schema of flat columns built from nested leaves,
 * as the filter evaluates them. */
pq_status pq_arrow_leaf_schema(const pq_metadata *md, const uint32_t *columns, size_t n, struct ArrowSchema *out,
                               pq_error *err);

#endif
