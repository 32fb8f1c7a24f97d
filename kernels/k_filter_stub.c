/* k_filter_stub.c — pq_kfilter_cuda in a build without nvcc: it fails,
 * saying so. */
#include "kernels/k_filter.h"

int pq_kfilter_cuda(void *stream, const pq_kfilter_args *a, uint32_t nblocks, uint32_t nthreads,
                    const char **why)
{
    (void)stream, (void)a, (void)nblocks, (void)nthreads;
    if (why) *why = "pqstep was built without CUDA (nvcc not found at configure time)";
    return -1;
}
