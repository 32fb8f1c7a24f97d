/* k_filter_host.c — the predicate kernel run on the host (k_filter.h): the
 * phase functions the CUDA wrapper calls, in pq_klaunch_host_ex. */
#include "kernels/k_decode.h" /* PQ_KMAX_THREADS */
#include "kernels/k_filter.h"

PQ_KPHASE_TABLE(filter_phases, PQ_KF_PHASES);

int pq_kfilter_host(const pq_kfilter_args *a, uint32_t nblocks, uint32_t nthreads, unsigned flags)
{
    if (!a || nthreads == 0 || nthreads > PQ_KMAX_THREADS) return -1;
    return pq_klaunch_host_ex(nblocks, nthreads, filter_phases, PQ_KPHASE_COUNT(PQ_KF_PHASES), a,
                              PQ_KF_SHARED_BYTES(nthreads), flags);
}
