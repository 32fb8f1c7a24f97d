/*
 * arrow_take.h — the rows of a column that a filter keeps, as a new column.
 */
#ifndef PQ_READER_ARROW_TAKE_H
#define PQ_READER_ARROW_TAKE_H

#include <stdint.h>

#include "pq_error.h"
#include "reader/arrow_column.h"

/* The rows [offset, offset + length) of c whose bit is set in `keep`
 * (`length` bits), copied into a new column (one reference in *out): the
 * filter's output. Nested columns keep their kept rows' children. Errors:
 * PQ_ERR_INVALID_ARGUMENT (rows out of the column), PQ_ERR_NOMEM. */
pq_status pq_arrow_column_take(const pq_arrow_column *c, int64_t offset, int64_t length, const uint8_t *keep,
                               pq_arrow_column **out, pq_error *err);

#endif
