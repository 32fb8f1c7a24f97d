/*
 * k_arrow_build.h — the Arrow-building kernels (k_arrow.h: a flat
 * column's validity and slots; k_nest.h: a nested leaf's levels into
 * validity and list offsets; k_compact.h: a whole decode's selected rows
 * kept, for selection-vector decode) and the two ways to launch them, as
 * k_decode.h does for the decode kernels: pq_kbuild_host runs the phases
 * on the host (k_arrow_build_host.c, through pq_klaunch_host_ex),
 * pq_kbuild_cuda on the GPU (k_arrow_build_cuda.cu, __global__ wrappers made
 * from the same phase lists; k_arrow_build_stub.c without CUDA). The
 * CUDA memory calls are k_decode.h's (pq_cuda_alloc, ...).
 *
 * Every kernel is launched over `nblocks` blocks of `nthreads` threads
 * with PQ_KSHARED_BYTES(nthreads) of shared scratch; `args` points at a
 * pq_karrow_args (PQ_KA_*), a pq_knest_args (PQ_KN_*) or a
 * pq_kcompact_args (PQ_KC_*, one block a page), whose pointers are device
 * memory for a CUDA launch.
 */
#ifndef PQ_KERNELS_K_ARROW_BUILD_H
#define PQ_KERNELS_K_ARROW_BUILD_H

#include <stdint.h>

#include "kernels/k_arrow.h"
#include "kernels/k_compact.h"
#include "kernels/k_launch.h"
#include "kernels/k_nest.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The phase lists: the one definition of each kernel. */
#define PQ_KA_VALIDITY_PHASES(X) X(pq_ka_validity_bits) X(pq_ka_validity_sum)
#define PQ_KA_SPREAD_PHASES(X) X(pq_ka_spread_count) X(pq_ka_spread_scan) X(pq_ka_spread_write)
#define PQ_KN_COUNT_PHASES(X) X(pq_kn_count_piece) X(pq_kn_count_sum)
#define PQ_KN_FILL_PHASES(X) X(pq_kn_fill_count) X(pq_kn_fill_scan) X(pq_kn_fill_write)
#define PQ_KC_COUNT_PHASES(X) X(pq_kc_piece_count) X(pq_kc_count_sum)
#define PQ_KC_WRITE_PHASES(X) X(pq_kc_piece_count) X(pq_kc_write_scan) X(pq_kc_write)

typedef enum pq_kbuild_kernel {
    PQ_KA_VALIDITY, /* pq_karrow_args */
    PQ_KA_SPREAD,   /* pq_karrow_args */
    PQ_KN_COUNT,    /* pq_knest_args */
    PQ_KN_FILL,     /* pq_knest_args */
    PQ_KC_COUNT,    /* pq_kcompact_args */
    PQ_KC_WRITE,    /* pq_kcompact_args */
    PQ_KBUILD_KERNELS
} pq_kbuild_kernel;

/* Runs kernel k on the host, PQ_KLAUNCH_* flags. 0, or -1 when it could
 * not start (bad arguments, no memory for the scratch). */
int pq_kbuild_host(pq_kbuild_kernel k, const void *args, uint32_t nblocks, uint32_t nthreads, unsigned flags);

/* Runs kernel k on the stream (a cudaStream_t) and waits for it. 0, or -1
 * with *why (when not NULL) a constant string saying why. */
int pq_kbuild_cuda(void *stream, pq_kbuild_kernel k, const void *args, uint32_t nblocks, uint32_t nthreads,
                   const char **why);

#ifdef __cplusplus
}
#endif
#endif /* PQ_KERNELS_K_ARROW_BUILD_H */
