/*
 * k_launch.h — a portable kernel framework: one kernel source that runs on
 * a CUDA device and, phase by phase, on the host.
 *
 * A kernel is a sequence of phases. A phase is a PQ_HD function
 *
 *     void phase(const void *args, pq_kthread t);
 *
 * that every thread of every block calls once; consecutive phases are
 * separated by a block barrier. On CUDA the phases are called in turn by a
 * __global__ wrapper (PQ_KGLOBAL) with __syncthreads() between them; on the
 * host pq_klaunch_host runs, for each block, each phase for each thread in
 * turn, so that a phase has finished in every thread of the block before
 * the next one starts: the same barrier semantics, executed sequentially.
 *
 * Rules phase code must keep (CUDA needs them, and the host launcher would
 * hide a violation only by luck):
 *  - No reliance on the order of threads within a phase: on the GPU they
 *    run concurrently, on the host in any order (pq_klaunch_host_ex can run
 *    them last to first, which the tests do). Threads of one phase write
 *    disjoint locations, or combine through pq_katomic_* only.
 *  - Communication between threads goes through the block's shared scratch
 *    (pq_kthread.shared) or global memory, and is read only in a later
 *    phase. No local variable survives from one phase to the next.
 *  - Blocks are independent: no block reads what another block writes in
 *    the same launch.
 *  - Shared scratch starts with undefined contents (the host launcher fills
 *    it with garbage to catch a phase that reads it before writing).
 *  - A phase returns normally (an early return leaves only that phase);
 *    every thread reaches every barrier.
 *
 * The phase list of a kernel is an X-macro, PHASES(X) expanding to
 * X(phase_a) X(phase_b) ..., written once (kernels/k_decode.h) and turned
 * into a host table by PQ_KPHASE_TABLE and into a __global__ function by
 * PQ_KGLOBAL, so the two executions cannot drift apart.
 */
#ifndef PQ_KERNELS_K_LAUNCH_H
#define PQ_KERNELS_K_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a thread is: blockIdx.x / threadIdx.x / blockDim.x / gridDim.x on
 * CUDA, and the block's shared scratch (dynamic __shared__ memory on CUDA,
 * a host buffer reused block after block on the host). */
typedef struct pq_kthread {
    uint32_t block;
    uint32_t thread;
    uint32_t nthreads;
    uint32_t nblocks;
    void *shared;
} pq_kthread;

/* One phase of a kernel (see the rules above). */
typedef void (*pq_kphase)(const void *args, pq_kthread t);

/* pq_klaunch_host_ex flags */
enum {
    /* Run the threads of each phase last to first: a phase that depends on
     * thread order shows up as a different result. */
    PQ_KLAUNCH_REVERSE = 1u << 0
};

/* Runs a kernel on the host: for each block in order, for each phase, for
 * each thread 0..nthreads-1 (one at a time, on the calling thread), with
 * scratch_bytes of shared scratch per block. Returns 0, or -1 when the
 * scratch cannot be allocated (nothing ran). nblocks 0 runs nothing. */
int pq_klaunch_host(uint32_t nblocks, uint32_t nthreads, const pq_kphase *phases, size_t nphases, const void *args,
                    size_t scratch_bytes);

/* pq_klaunch_host with PQ_KLAUNCH_* flags. */
int pq_klaunch_host_ex(uint32_t nblocks, uint32_t nthreads, const pq_kphase *phases, size_t nphases,
                       const void *args, size_t scratch_bytes, unsigned flags);

#ifdef __cplusplus
}
#endif

/* ---- Atomics --------------------------------------------------------------
 * On the device these are CUDA atomics; on the host plain operations, which
 * is exact because the host launcher never runs two threads at once. */

/* *p = min(*p, v). */
PQ_HD static inline void pq_katomic_min_u64(unsigned long long *p, unsigned long long v)
{
#ifdef __CUDA_ARCH__
    atomicMin(p, v);
#else
    if (v < *p) *p = v;
#endif
}

/* ---- Phase lists ------------------------------------------------------- */

/* The host table of a phase list: static const pq_kphase name[]. */
#define PQ_KPHASE_PTR(f) f,
#define PQ_KPHASE_TABLE(name, PHASES) static const pq_kphase name[] = {PHASES(PQ_KPHASE_PTR)}

/* Phases in a list. */
#define PQ_KPHASE_ONE(f) +1
#define PQ_KPHASE_COUNT(PHASES) (0 PHASES(PQ_KPHASE_ONE))

#ifdef __CUDACC__
/* The __global__ wrapper of a phase list: the arguments by value (kernel
 * parameter space), the phases in order with a barrier after each, and the
 * launch's dynamic shared memory as the scratch. */
#define PQ_KPHASE_CALL(f)                                                                          \
    f(args, t);                                                                                    \
    __syncthreads();
#define PQ_KGLOBAL(name, ARGS_T, PHASES)                                                           \
    __global__ void name(ARGS_T a)                                                                 \
    {                                                                                              \
        extern __shared__ __align__(16) unsigned char pq_kshared[];                               \
        const void *args = &a;                                                                     \
        pq_kthread t;                                                                              \
        t.block = blockIdx.x;                                                                      \
        t.thread = threadIdx.x;                                                                    \
        t.nthreads = blockDim.x;                                                                   \
        t.nblocks = gridDim.x;                                                                     \
        t.shared = pq_kshared;                                                                     \
        PHASES(PQ_KPHASE_CALL)                                                                     \
    }
#endif

#endif /* PQ_KERNELS_K_LAUNCH_H */
