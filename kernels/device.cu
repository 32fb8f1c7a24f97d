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

extern "C" int pq_cuda_copy_to_device(const void *host, size_t n, void **dev, const char **why)
{
    *dev = NULL;
    if (n == 0) return 0;
    cudaError_t e = cudaMalloc(dev, n);
    if (e == cudaSuccess) e = cudaMemcpy(*dev, host, n, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        if (*dev) cudaFree(*dev);
        *dev = NULL;
        if (why) *why = cudaGetErrorString(e);
        return -1;
    }
    return 0;
}

extern "C" int pq_cuda_current_device(void)
{
    int d = 0;
    if (cudaGetDevice(&d) != cudaSuccess) return 0;
    return d;
}

extern "C" void pq_cuda_free(void *dev)
{
    if (dev) cudaFree(dev);
}
