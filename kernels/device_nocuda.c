/* device_nocuda.c — the CUDA probe of a build without nvcc. */
#include "kernels/device.h"

int pq_cuda_device_count(const char **why)
{
    if (why) *why = "pqstep was built without CUDA (nvcc not found at configure time)";
    return 0;
}
