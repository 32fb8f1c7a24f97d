/* cuda_runtime_cuda.cu — the CUDA runtime calls of the GPU path
 * (cuda_runtime.h), built when nvcc is found. Every call is checked. */
#include <cuda_runtime.h>

#include "device/cuda_runtime.h"

/* 0, or -1 with the error's string. */
static int cuda_check(cudaError_t e, const char **why)
{
    if (e == cudaSuccess) return 0;
    if (why) *why = cudaGetErrorString(e);
    return -1;
}

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

extern "C" int pq_cuda_stream_create(void **stream, const char **why)
{
    cudaStream_t s = NULL;
    *stream = NULL;
    if (cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), why)) return -1;
    *stream = (void *)s;
    return 0;
}

extern "C" void pq_cuda_stream_destroy(void *stream)
{
    if (stream) (void)cudaStreamDestroy((cudaStream_t)stream);
}

extern "C" int pq_cuda_alloc(void **p, size_t n, const char **why)
{
    *p = NULL;
    return cuda_check(cudaMalloc(p, n ? n : 1), why);
}

extern "C" void pq_cuda_free(void *p)
{
    if (p) (void)cudaFree(p);
}

extern "C" int pq_cuda_upload(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    if (n == 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    if (cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s), why)) return -1;
    return cuda_check(cudaStreamSynchronize(s), why);
}

extern "C" int pq_cuda_download(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    if (n == 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    if (cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s), why)) return -1;
    return cuda_check(cudaStreamSynchronize(s), why);
}

extern "C" int pq_cuda_memset(void *stream, void *dst, int value, size_t n, const char **why)
{
    if (n == 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    if (cuda_check(cudaMemsetAsync(dst, value, n, s), why)) return -1;
    return cuda_check(cudaStreamSynchronize(s), why);
}

extern "C" int pq_cuda_host_alloc(void **p, size_t n, const char **why)
{
    *p = NULL;
    return cuda_check(cudaHostAlloc(p, n ? n : 1, cudaHostAllocDefault), why);
}

extern "C" void pq_cuda_host_free(void *p)
{
    if (p) (void)cudaFreeHost(p);
}

extern "C" int pq_cuda_upload_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    if (n == 0) return 0;
    return cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, (cudaStream_t)stream), why);
}

extern "C" int pq_cuda_download_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    if (n == 0) return 0;
    return cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, (cudaStream_t)stream), why);
}

extern "C" int pq_cuda_copy_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    if (n == 0) return 0;
    return cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, (cudaStream_t)stream), why);
}

extern "C" int pq_cuda_stream_sync(void *stream, const char **why)
{
    return cuda_check(cudaStreamSynchronize((cudaStream_t)stream), why);
}

extern "C" int pq_cuda_event_create(void **event, const char **why)
{
    cudaEvent_t e = NULL;
    *event = NULL;
    if (cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), why)) return -1;
    *event = (void *)e;
    return 0;
}

extern "C" void pq_cuda_event_destroy(void *event)
{
    if (event) (void)cudaEventDestroy((cudaEvent_t)event);
}

extern "C" int pq_cuda_event_record(void *event, void *stream, const char **why)
{
    return cuda_check(cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream), why);
}

extern "C" int pq_cuda_stream_wait(void *stream, void *event, const char **why)
{
    return cuda_check(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0), why);
}

extern "C" int pq_cuda_event_sync(void *event, const char **why)
{
    return cuda_check(cudaEventSynchronize((cudaEvent_t)event), why);
}
