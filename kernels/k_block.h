/*
 * k_block.h — block-level helpers of the decode kernels: a thread's
 * contiguous piece of a page's values, the block's shared slots, and the
 * exclusive scan over them that turns per-thread sums into per-thread
 * starts.
 *
 * The pattern (used for byte-array lengths in k_values.h and for the
 * DELTA_BINARY_PACKED prefix sums of k_delta.h): in one phase every thread
 * adds up its piece into its slot; in the next thread 0 scans the slots
 * (pq_k_scan_slots); in the next every thread walks its piece again from
 * its slot's start. The result does not depend on the thread count or on
 * the order threads run in: sums are taken modulo 2^64, and each piece is
 * summed in order.
 *
 * Shared scratch (PQ_KSHARED_BYTES) holds two 8-byte slots a thread, so two
 * scans can run in the same phases (slot 0 and slot 1).
 */
#ifndef PQ_KERNELS_K_BLOCK_H
#define PQ_KERNELS_K_BLOCK_H

#include <stdint.h>

#include "kernels/k_launch.h"

/* Thread t's contiguous piece [*lo, *hi) of n values. */
PQ_HD static inline void pq_k_piece(unsigned long long n, pq_kthread t, uint32_t *lo, uint32_t *hi)
{
    unsigned long long per = (n + t.nthreads - 1) / t.nthreads;
    unsigned long long a = per * t.thread, b = a + per;
    *lo = (uint32_t)(a < n ? a : n);
    *hi = (uint32_t)(b < n ? b : n);
}

/* Slot s (0 or 1) of thread k in the block's shared scratch. */
PQ_HD static inline unsigned long long *pq_k_slot(pq_kthread t, uint32_t k, uint32_t s)
{
    return (unsigned long long *)t.shared + 2 * (size_t)k + s;
}

/* Thread 0 alone: slot s of every thread replaced by the sum of the slots
 * of the threads before it (an exclusive scan, modulo 2^64). Returns the
 * sum of them all. */
PQ_HD static inline unsigned long long pq_k_scan_slots(pq_kthread t, uint32_t s)
{
    unsigned long long run = 0;
    for (uint32_t k = 0; k < t.nthreads; k++) {
        unsigned long long *p = pq_k_slot(t, k, s), v = *p;
        *p = run;
        run += v;
    }
    return run;
}

#endif /* PQ_KERNELS_K_BLOCK_H */
