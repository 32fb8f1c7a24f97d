/* device_nocuda.c — the CUDA probe of a build without nvcc. */
#include "kernels/device.h"

int pq_cuda_device_count(const char **why)
{
    if (why) *why = "pqstep was built without CUDA (nvcc not found at configure time)";
    return 0;
}

int pq_cuda_copy_to_device(const void *host, size_t n, void **dev, const char **why)
{
    (void)host;
    (void)n;
    *dev = NULL;
    if (why) *why = "pqstep was built without CUDA (nvcc not found at configure time)";
    return -1;
}

int pq_cuda_current_device(void)
{
    return 0;
}

void pq_cuda_free(void *dev)
{
    (void)dev;
}
