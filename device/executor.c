/* executor.c — the reader's stages' calls made where the device choice
 * runs the kernels (executor.h). */
#include "device/executor.h"

#include "device/filter.h"
#include "metadata/error.h"

void pq_executor_init(pq_executor *x, const pq_device_choice *c)
{
    x->where = c->where;
    x->missing = c->missing ? c->why : NULL;
}

pq_status pq_executor_usable(const pq_executor *x, pq_error *err)
{
    if (!x->missing) return PQ_OK;
    return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device cuda: no usable CUDA device (%s)", x->missing);
}

bool pq_executor_kernels(const pq_executor *x)
{
    return x->where != PQ_EXEC_CPU;
}

bool pq_executor_on_device(const pq_executor *x)
{
    return x->where == PQ_EXEC_CUDA;
}

pq_status pq_executor_run_plan(const pq_executor *x, const pq_device_exec_options *o, pq_decode_plan *plan,
                               pq_column_values *outs, pq_status *status, pq_error *errors)
{
    pq_device_exec_options own = *o;
    own.use_cuda = pq_executor_on_device(x);
    return pq_device_exec_run(&own, plan, outs, status, errors);
}

pq_status pq_executor_arrow_open(const pq_executor *x, pq_darrow_ctx *dx, pq_error *err)
{
    pq_darrow_options o = {.use_cuda = pq_executor_on_device(x)};
    return pq_darrow_open(dx, &o, err);
}

void pq_executor_values_free(const pq_executor *x, pq_column_values *v)
{
    pq_device_values_free(pq_executor_on_device(x), v);
}

pq_status pq_executor_filter_run(const pq_executor *x, const pq_expr *filter, const struct ArrowArray *const *by_leaf,
                                 const struct ArrowSchema *const *types, const int16_t *const *defs_by_leaf,
                                 const uint32_t *leaves, size_t nl, size_t leaves_len, int64_t len, uint8_t *keep,
                                 pq_error *err)
{
    return pq_device_filter_run(filter, by_leaf, types, defs_by_leaf, leaves, nl, leaves_len, len,
                                pq_executor_on_device(x), keep, err);
}

pq_status pq_executor_filter_eval(const pq_executor *x, const pq_darrow_ctx *dx, const pq_expr *e,
                                  const struct ArrowArray *const *columns, const struct ArrowSchema *const *schemas,
                                  const int16_t *const *row_defs, int64_t length, uint8_t *keep_bits, int64_t *kept,
                                  pq_error *err)
{
    pq_dfilter_exec ex = {.where = pq_executor_on_device(x) ? PQ_DFILTER_CUDA : PQ_DFILTER_HOST, .stream = dx->stream};
    return pq_device_filter_eval(e, columns, schemas, row_defs, length, &ex, keep_bits, kept, err);
}

pq_device_memory pq_executor_copy_memory(const pq_executor *x)
{
    return pq_executor_on_device(x) ? pq_device_memory_to_cuda(NULL) : pq_device_memory_host_copy();
}

pq_batch_memory pq_executor_batch_memory(const pq_executor *x, bool in_place)
{
    if (!pq_executor_on_device(x)) return PQ_BATCH_ON_HOST;
    return in_place ? PQ_BATCH_ON_CUDA : PQ_BATCH_COPY_TO_CUDA;
}
