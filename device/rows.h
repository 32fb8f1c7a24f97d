/*
 * rows.h — selection-vector decode on the device executor
 * (device/exec.h): a chunk with a row selection (pq_decode_rows: a
 * required flat column, pq_decode_rows_supported) is decoded whole by the
 * kernels, every data page that holds a selected row in full and the others
 * not at all, as in its plan; then the compaction kernels
 * (kernels/k_compact.h) keep its selected rows, in order, in output arrays
 * of their exact size. The result is the CPU executor's for the same plan
 * chunk, buffer for buffer: n_levels = n_values = the selected rows, the
 * values (fixed width, booleans, dictionary indices with their dictionary)
 * or int32 offsets and data, or string views (the selected views, still
 * pointing into their pages' whole bytes and the dictionary's, as the CPU
 * executor keeps them), and the plan's page counts and offsets
 * (n_values, value_offset, string_bytes, string_offset) filled in the same
 * way.
 *
 * The device executor compacts each such chunk on its stream as soon as the
 * chunk's whole decode ends, so the whole decode's buffers are freed before
 * the next chunk's (device memory holds one chunk's whole decode at a time,
 * besides the outputs).
 *
 * A chunk whose whole decode fails is left to the CPU executor (which
 * decodes the selected rows alone, and may not read the part that failed):
 * the device executor reports it PQ_ERR_UNSUPPORTED then.
 */
#ifndef PQ_PAGES_DEVICE_ROWS_H
#define PQ_PAGES_DEVICE_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include "pages/page_values.h"
#include "pages/decode_plan.h"
#include "device/arrow.h"
#include "pq_error.h"

/* Whether plan chunk pc is decoded whole, then compacted: a row selection
 * (of a required flat column, the only ones selections are made of). */
bool pq_dx_rows_compacted(const pq_plan_chunk *pc);

/* *whole (zeroed first, freed with pq_decode_plan_free) gets plan's chunks
 * as they are, but those pq_dx_rows_compacted covers without their row
 * selection: each data page with a selected row is decoded in full (its
 * num_values), those without one stay skipped. PQ_ERR_NOMEM,
 * PQ_ERR_MEMORY_LIMIT (counts that overflow). */
pq_status pq_dx_rows_whole_plan(const pq_decode_plan *plan, pq_decode_plan *whole, pq_error *err);

/* Chunk k of `plan` (one pq_dx_rows_compacted covers) from *whole_out,
 * on x (the device executor's memory and stream, lent as an Arrow kernels'
 * context: not opened or closed here),
 * the decode of chunk k of `whole` (buffers in x's device memory, freed
 * here: *whole_out is zeroed): its selected rows into *out (zeroed first;
 * device memory of x, or host memory when !on_device and the memory is
 * apart), and plan's page counts and offsets filled in. Errors:
 * PQ_ERR_UNSUPPORTED ("device executor: ...": more bytes than int32
 * offsets, left to the CPU executor), PQ_ERR_CORRUPT_DATA (counts that
 * do not add up), PQ_ERR_NOMEM, a failed CUDA call (PQ_ERR_UNSUPPORTED,
 * "device arrow: CUDA ... failed", or for a launch "device executor: ..."). */
pq_status pq_dx_rows_compact(pq_darrow_ctx *x, const pq_decode_plan *whole, pq_decode_plan *plan, size_t k,
                             pq_column_values *whole_out, bool on_device, pq_column_values *out, pq_error *err);

#endif /* PQ_PAGES_DEVICE_ROWS_H */
