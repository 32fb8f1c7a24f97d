/* k_launch_host.c — kernels run on the host, phase by phase (k_launch.h). */
#include "kernels/k_launch.h"

#include <stdlib.h>
#include <string.h>

int pq_klaunch_host(uint32_t nblocks, uint32_t nthreads, const pq_kphase *phases, size_t nphases, const void *args,
                    size_t scratch_bytes)
{
    return pq_klaunch_host_ex(nblocks, nthreads, phases, nphases, args, scratch_bytes, 0);
}

int pq_klaunch_host_ex(uint32_t nblocks, uint32_t nthreads, const pq_kphase *phases, size_t nphases,
                       const void *args, size_t scratch_bytes, unsigned flags)
{
    if (nblocks == 0 || nthreads == 0) return 0;
    /* 16-byte aligned like CUDA's dynamic shared memory. */
    size_t cap = (scratch_bytes + 15) / 16 * 16;
    void *shared = aligned_alloc(16, cap ? cap : 16);
    if (!shared) return -1;
    for (uint32_t b = 0; b < nblocks; b++) {
        /* Shared memory is not initialised on a GPU: garbage here makes a
         * phase that reads before writing fail its tests. */
        memset(shared, 0xA5, cap ? cap : 16);
        for (size_t p = 0; p < nphases; p++) {
            for (uint32_t k = 0; k < nthreads; k++) {
                pq_kthread t = {
                    .block = b,
                    .thread = (flags & PQ_KLAUNCH_REVERSE) ? nthreads - 1 - k : k,
                    .nthreads = nthreads,
                    .nblocks = nblocks,
                    .shared = shared,
                };
                phases[p](args, t);
            }
        }
    }
    free(shared);
    return 0;
}
