/*
 * filter.h — a bound predicate evaluated by the predicate kernel
 * (kernels/k_filter.h), on a CUDA device or, phase by phase, on the host:
 * the same inputs and the same keep bits as pq_predicate_eval
 * (predicate_eval.h), which stays the reference.
 *
 * The bound pq_expr is compiled into a flat program (nodes in postfix
 * order, the deeper operand of AND / OR first so the row stack stays
 * shallow; every literal converted to the column slot's representation:
 * int64 for integers, booleans and dates / times / timestamps, double for
 * floats, the slot's width for decimals, bytes for strings and binary).
 * A dictionary column's leaves run first over the dictionary's entries,
 * then the program maps each row through its index.
 *
 * Not covered, each refused with PQ_ERR_UNSUPPORTED and a message saying
 * what (a caller then evaluates on the CPU): Arrow formats the CPU
 * evaluator refuses too, a comparison whose column order does not fit the
 * Arrow type (the CPU evaluator has no exact meaning for it either), a
 * dictionary of a dictionary, a decimal literal wider than the column's
 * slots, a program deeper than PQ_KF_MAX_DEPTH, more than
 * PQ_DFILTER_MAX_NODES nodes, and more rows than one launch's grid holds.
 */
#ifndef PQ_PREDICATE_DEVICE_FILTER_H
#define PQ_PREDICATE_DEVICE_FILTER_H

#include <stdint.h>

#include "pq_arrow.h"
#include "predicate/predicate.h"

/* Most nodes a program may have. */
#define PQ_DFILTER_MAX_NODES 4096u

/* Where the kernel runs (pq_dfilter_exec.where). */
typedef enum pq_dfilter_where {
    PQ_DFILTER_HOST = 0, /* the host launcher (k_launch.h): what CI runs */
    PQ_DFILTER_CUDA = 1  /* a CUDA device: every buffer of the columns (and row_defs) in its memory */
} pq_dfilter_where;

typedef struct pq_dfilter_exec {
    uint32_t where;        /* pq_dfilter_where */
    void *stream;          /* CUDA: the cudaStream_t to run on (NULL: the default stream) */
    uint32_t nthreads;     /* threads a block, 1..1024; 0: 256 */
    unsigned launch_flags; /* host: PQ_KLAUNCH_* (k_launch.h) */
} pq_dfilter_exec;

/* pq_predicate_eval's contract (same arguments, same keep bits in host
 * memory, bits past `length` zero), run by the kernel where `ex` says
 * (NULL: on the host, 256 threads). *kept (when not NULL) gets the rows
 * selected. Errors: those of pq_predicate_eval, PQ_ERR_UNSUPPORTED for
 * what the kernel does not cover (above) and for a CUDA call that fails
 * (naming it and CUDA's reason). keep_bits is zeroed on error. */
pq_status pq_device_filter_eval(const pq_expr *e, const struct ArrowArray *const *columns,
                                const struct ArrowSchema *const *schemas, const int16_t *const *row_defs,
                                int64_t length, const pq_dfilter_exec *ex, uint8_t *keep_bits, int64_t *kept,
                                pq_error *err);

/* The predicate kernel over a row group's `len` rows whose filter columns
 * are in host memory (by_leaf, types and defs_by_leaf indexed by leaf,
 * leaves_len entries; leaves[0..nl) the filter's leaves): on the host
 * launcher over the columns as they are, or with `cuda` on the CUDA device,
 * each column and its levels copied there first on a stream of this call's
 * own (row groups run in parallel), the keep bits brought back. A failed
 * CUDA call is PQ_ERR_UNSUPPORTED naming it, as is a predicate the kernel
 * does not cover: the caller evaluates on the CPU instead. */
pq_status pq_device_filter_run(const pq_expr *filter, const struct ArrowArray *const *by_leaf,
                               const struct ArrowSchema *const *types, const int16_t *const *defs_by_leaf,
                               const uint32_t *leaves, size_t nl, size_t leaves_len, int64_t len, bool cuda,
                               uint8_t *keep, pq_error *err);

#endif
