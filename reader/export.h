/*
 * export.h — the decode stage's arrays handed out as record batches
 * (export.c; the public calls are pq_reader.h's), for the files above it.
 */
#ifndef PQ_READER_EXPORT_H
#define PQ_READER_EXPORT_H

#include "reader/context.h"

/* pq_reader_next_batch, with as_stored the arrays' slices where the decode
 * stage left them (device memory with device_output) instead of a host copy. */
pq_status pq_reader_next_batch_as(pq_reader *r, uint64_t max_rows, bool as_stored, struct ArrowArray *out_array,
                                  struct ArrowSchema *out_schema, pq_error *err);

#endif
