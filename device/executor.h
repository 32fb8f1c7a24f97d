/*
 * executor.h — where the reader's filter and decode stages run the
 * kernels, as one small value made once from the select stage's device
 * choice (choice.h). The stages ask it whether the kernels run and whether
 * what they keep is in a device's own memory, and make every call whose
 * arguments depend on the device through it (a decode plan's run, an
 * Arrow kernels' context, the predicate kernel, freeing kept values, the
 * memory output is copied to), so the device is named here alone.
 */
#ifndef PQ_DEVICE_EXECUTOR_H
#define PQ_DEVICE_EXECUTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/arrow.h"
#include "device/choice.h"
#include "device/copies.h"
#include "device/exec.h"
#include "pq_arrow.h"
#include "pq_error.h"
#include "predicate/predicate.h"

/* Zeroed: the CPU executor. Read through the functions below. */
typedef struct pq_executor {
    pq_exec_where where;
    const char *missing; /* a device asked for and none usable: why (the choice's) */
} pq_executor;

/* The executor of choice c. */
void pq_executor_init(pq_executor *x, const pq_device_choice *c);

/* PQ_OK, or PQ_ERR_UNSUPPORTED naming why when the choice asked for a
 * device there is none of (the decode stage fails so). */
pq_status pq_executor_usable(const pq_executor *x, pq_error *err);

/* Whether it runs the kernels (on the host or a device), else the CPU
 * executor and evaluator. */
bool pq_executor_kernels(const pq_executor *x);

/* Whether the kernels run on a device, so that output they keep is in its
 * memory (not host memory standing for it): a host batch of that output
 * is a copy. */
bool pq_executor_on_device(const pq_executor *x);

/* pq_device_exec_run of `plan` with options o (its use_cuda ignored: the
 * kernels run where x says). */
pq_status pq_executor_run_plan(const pq_executor *x, const pq_device_exec_options *o, pq_decode_plan *plan,
                               pq_column_values *outs, pq_status *status, pq_error *errors);

/* pq_darrow_open of an Arrow kernels' context where x runs the kernels
 * (where the values it keeps are). */
pq_status pq_executor_arrow_open(const pq_executor *x, pq_darrow_ctx *dx, pq_error *err);

/* Frees values the kernels kept (outputs_on_device) and zeroes them. */
void pq_executor_values_free(const pq_executor *x, pq_column_values *v);

/* pq_device_filter_run where x runs the kernels: columns in host memory. */
pq_status pq_executor_filter_run(const pq_executor *x, const pq_expr *filter, const struct ArrowArray *const *by_leaf,
                                 const struct ArrowSchema *const *types, const int16_t *const *defs_by_leaf,
                                 const uint32_t *leaves, size_t nl, size_t leaves_len, int64_t len, uint8_t *keep,
                                 pq_error *err);

/* pq_device_filter_eval of columns that dx's Arrow kernels built, where
 * they are, on dx's stream. */
pq_status pq_executor_filter_eval(const pq_executor *x, const pq_darrow_ctx *dx, const pq_expr *e,
                                  const struct ArrowArray *const *columns, const struct ArrowSchema *const *schemas,
                                  const int16_t *const *row_defs, int64_t length, uint8_t *keep_bits, int64_t *kept,
                                  pq_error *err);

/* The memory that output built on the host is copied to, to sit with what
 * the kernels keep (the device's, or host memory standing for it). */
pq_device_memory pq_executor_copy_memory(const pq_executor *x);

/* How a batch goes out as a device array (pq_device_batch_export): as it
 * is, already there (in_place: in the device memory of x), or copied to
 * x's device; host memory without one. */
pq_batch_memory pq_executor_batch_memory(const pq_executor *x, bool in_place);

#endif
