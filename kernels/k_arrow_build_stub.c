/* k_arrow_build_stub.c — pq_kbuild_cuda in a build without nvcc: it
 * fails, saying so (callers check for a device before they get here). */
#include "kernels/k_arrow_build.h"

int pq_kbuild_cuda(void *stream, pq_kbuild_kernel k, const void *args, uint32_t nblocks, uint32_t nthreads,
                   const char **why)
{
    (void)stream, (void)k, (void)args, (void)nblocks, (void)nthreads;
    if (why) *why = "pqstep was built without CUDA (nvcc not found at configure time)";
    return -1;
}
