/* k_decode_stub.c — the decode kernels' CUDA launch in a build without
 * nvcc: it fails, saying so (the device executor never gets this far:
 * pq_cuda_device_count is 0). */
#include "kernels/k_decode.h"

static int no_cuda(const char **why)
{
    if (why) *why = "pqstep was built without CUDA (nvcc not found at configure time)";
    return -1;
}

int pq_kdecode_cuda(void *stream, pq_kernel k, const pq_kargs *a, uint32_t nthreads, const char **why)
{
    (void)stream, (void)k, (void)a, (void)nthreads;
    return no_cuda(why);
}
