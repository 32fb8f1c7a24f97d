/*
 * row_index.h — the row index column (pq_reader_options.row_index_name):
 * each delivered row's file row number, as an int64 field appended to a
 * batch and its schema. The batch and schema are wrapped, not rebuilt: the
 * new struct's children are the old ones' plus the index, and releasing it
 * releases the old struct.
 */
#ifndef PQ_READER_ROW_INDEX_H
#define PQ_READER_ROW_INDEX_H

#include <stdint.h>

#include "pq_arrow.h"
#include "pq_error.h"

/* Append to *schema (a struct, "+s") a non-nullable int64 field `name`. On
 * failure *schema is released. */
pq_status pq_row_index_schema(struct ArrowSchema *schema, const char *name, pq_error *err);

/* Append to *batch (a struct array) the int64 column of `values`
 * (batch->offset + batch->length entries, malloc'd; taken over, also on
 * failure). On failure *batch is released. */
pq_status pq_row_index_array(struct ArrowArray *batch, int64_t *values, pq_error *err);

#endif
