/* device.cu — the CUDA probe (built when nvcc is found). */
#include <cuda_runtime.h>

#include "kernels/device.h"

extern "C" int pq_cuda_device_count(const char **why)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        if (why) *why = cudaGetErrorString(e);
        return 0;
    }
    if (n == 0 && why) *why = "no CUDA device found";
    return n;
}
