/*
 * k_decode.h — the decode kernels and the two ways to launch them.
 *
 * Three kernels, each a phase list (k_launch.h) over the page descriptors
 * of k_types.h, one block per page:
 *   PQ_K_LEVELS  levels into the level arrays, non-null counts (k_levels.h)
 *   PQ_K_VALUES  values, or byte-array value lengths (k_values.h; the
 *                DELTA_* steps in k_delta.h)
 *   PQ_K_BYTES   byte-array bytes into place (k_bytes.h)
 *
 * pq_kdecode_host runs one on the host (k_decode_host.c, through
 * pq_klaunch_host); pq_kdecode_cuda runs the same phases on the GPU
 * (k_decode_cuda.cu, __global__ wrappers made from the same phase lists), with
 * the small set of CUDA memory calls the device executor needs. Builds
 * without CUDA link k_decode_stub.c instead, whose calls fail with a
 * reason. Every pointer in a pq_kargs given to pq_kdecode_cuda must be
 * device memory (pq_cuda_alloc).
 */
#ifndef PQ_KERNELS_K_DECODE_H
#define PQ_KERNELS_K_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/k_block.h"
#include "kernels/k_bytes.h"
#include "kernels/k_delta.h"
#include "kernels/k_launch.h"
#include "kernels/k_levels.h"
#include "kernels/k_types.h"
#include "kernels/k_values.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The phase lists: the one definition of each kernel. */
#define PQ_K_LEVELS_PHASES(X) X(pq_k_levels_scan) X(pq_k_levels_expand) X(pq_k_levels_count) X(pq_k_levels_sum)
#define PQ_K_VALUES_PHASES(X)                                                                      \
    X(pq_k_values_scan) X(pq_k_values_expand) X(pq_k_values_partial) X(pq_k_values_prefix) X(pq_k_values_ends) \
    X(pq_k_values_lpartial) X(pq_k_values_lprefix) X(pq_k_values_lends) X(pq_k_values_finish)
#define PQ_K_BYTES_PHASES(X) X(pq_k_bytes_copy) X(pq_k_bytes_rebase) X(pq_k_bytes_views)

typedef enum pq_kernel {
    PQ_K_LEVELS,
    PQ_K_VALUES,
    PQ_K_BYTES,
    PQ_K_KERNELS
} pq_kernel;

/* Most threads a block may have (CUDA's limit). */
#define PQ_KMAX_THREADS 1024u

/* Runs kernel k on the host over a->npages blocks of nthreads threads
 * (1..PQ_KMAX_THREADS), PQ_KLAUNCH_* flags. Returns 0, or -1 when it
 * could not start (bad arguments, no memory for the shared scratch). */
int pq_kdecode_host(pq_kernel k, const pq_kargs *a, uint32_t nthreads, unsigned flags);

/* ---- CUDA (k_decode_cuda.cu; k_decode_stub.c without CUDA) ---------------
 * Launches kernel k over a->npages blocks of nthreads threads on the
 * stream (a cudaStream_t, device/cuda_runtime.h) and waits for it; a launch
 * or execution error is returned: 0, or -1 with *why (when not NULL) a
 * constant string saying why. */
int pq_kdecode_cuda(void *stream, pq_kernel k, const pq_kargs *a, uint32_t nthreads, const char **why);

#ifdef __cplusplus
}
#endif
#endif /* PQ_KERNELS_K_DECODE_H */
