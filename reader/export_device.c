/*
 * export_device.c — pq_reader_next_device_batch: export.c's batches handed
 * out as Arrow C device arrays, where the decode stage left them or copied
 * to the device its executor ran on (device/executor.h).
 */
#include <stdlib.h>
#include <string.h>

#include "device/copies.h"
#include "device/executor.h"
#include "metadata/error.h"
#include "reader/context.h"
#include "reader/export.h"

pq_status pq_reader_next_device_batch(pq_reader *r, uint64_t max_rows, struct ArrowDeviceArray *out,
                                      struct ArrowSchema *out_schema, pq_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (out_schema) memset(out_schema, 0, sizeof *out_schema);
    if (!r || !out) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader and array must not be NULL");
    struct ArrowArray a;
    struct ArrowSchema s;
    /* The arrays where they are: slices of the device's with device_output. */
    pq_status st = pq_reader_next_batch_as(r, max_rows, true, &a, &s, err); /* the schema sizes copies */
    if (st != PQ_OK || !a.release) return st;                              /* an error, or the end of data */
    pq_batch_memory where = pq_executor_batch_memory(&r->out.exec, r->out.memory == OUTPUT_ON_DEVICE);
    if ((st = pq_device_batch_export(&a, &s, where, out, err)) != PQ_OK) {
        s.release(&s);
        return st;
    }
    if (out_schema) *out_schema = s;
    else s.release(&s);
    return PQ_OK;
}
