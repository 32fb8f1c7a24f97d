/* k_decode.cu — the decode kernels on the GPU (k_decode.h): a __global__
 * wrapper per kernel, made from the phase list the host launcher runs, and
 * the CUDA calls the device executor needs. Every CUDA call is checked. */
#include <cuda_runtime.h>

#include "kernels/k_decode.h"

PQ_KGLOBAL(pq_k_levels_global, pq_kargs, PQ_K_LEVELS_PHASES)
PQ_KGLOBAL(pq_k_values_global, pq_kargs, PQ_K_VALUES_PHASES)
PQ_KGLOBAL(pq_k_bytes_global, pq_kargs, PQ_K_BYTES_PHASES)

/* 0, or -1 with the error's string. */
static int cuda_check(cudaError_t e, const char **why)
{
    if (e == cudaSuccess) return 0;
    if (why) *why = cudaGetErrorString(e);
    return -1;
}

extern "C" int pq_kcuda_stream_create(void **stream, const char **why)
{
    cudaStream_t s = NULL;
    *stream = NULL;
    if (cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), why)) return -1;
    *stream = (void *)s;
    return 0;
}

extern "C" void pq_kcuda_stream_destroy(void *stream)
{
    if (stream) (void)cudaStreamDestroy((cudaStream_t)stream);
}

extern "C" int pq_kcuda_alloc(void **p, size_t n, const char **why)
{
    *p = NULL;
    return cuda_check(cudaMalloc(p, n ? n : 1), why);
}

extern "C" void pq_kcuda_free(void *p)
{
    if (p) (void)cudaFree(p);
}

extern "C" int pq_kcuda_upload(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    if (n == 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    if (cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s), why)) return -1;
    return cuda_check(cudaStreamSynchronize(s), why);
}

extern "C" int pq_kcuda_download(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    if (n == 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    if (cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s), why)) return -1;
    return cuda_check(cudaStreamSynchronize(s), why);
}

extern "C" int pq_kcuda_memset(void *stream, void *dst, int value, size_t n, const char **why)
{
    if (n == 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    if (cuda_check(cudaMemsetAsync(dst, value, n, s), why)) return -1;
    return cuda_check(cudaStreamSynchronize(s), why);
}

extern "C" int pq_kcuda_launch(void *stream, pq_kernel k, const pq_kargs *a, uint32_t nthreads, const char **why)
{
    if (!a || nthreads == 0 || nthreads > PQ_KMAX_THREADS) {
        if (why) *why = "bad launch arguments";
        return -1;
    }
    if (a->npages == 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    dim3 grid(a->npages), block(nthreads);
    size_t shared = (size_t)PQ_KSHARED_BYTES(nthreads);
    switch (k) {
    case PQ_K_LEVELS: pq_k_levels_global<<<grid, block, shared, s>>>(*a); break;
    case PQ_K_VALUES: pq_k_values_global<<<grid, block, shared, s>>>(*a); break;
    case PQ_K_BYTES: pq_k_bytes_global<<<grid, block, shared, s>>>(*a); break;
    default:
        if (why) *why = "unknown kernel";
        return -1;
    }
    if (cuda_check(cudaGetLastError(), why)) return -1; /* the launch itself */
    return cuda_check(cudaStreamSynchronize(s), why);  /* and its execution */
}

/* ---- Asynchronous transfers ------------------------------------------------ */

extern "C" int pq_kcuda_host_alloc(void **p, size_t n, const char **why)
{
    *p = NULL;
    return cuda_check(cudaHostAlloc(p, n ? n : 1, cudaHostAllocDefault), why);
}

extern "C" void pq_kcuda_host_free(void *p)
{
    if (p) (void)cudaFreeHost(p);
}

extern "C" int pq_kcuda_upload_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    if (n == 0) return 0;
    return cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, (cudaStream_t)stream), why);
}

extern "C" int pq_kcuda_download_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    if (n == 0) return 0;
    return cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, (cudaStream_t)stream), why);
}

extern "C" int pq_kcuda_copy_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    if (n == 0) return 0;
    return cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, (cudaStream_t)stream), why);
}

extern "C" int pq_kcuda_stream_sync(void *stream, const char **why)
{
    return cuda_check(cudaStreamSynchronize((cudaStream_t)stream), why);
}

extern "C" int pq_kcuda_event_create(void **event, const char **why)
{
    cudaEvent_t e = NULL;
    *event = NULL;
    if (cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), why)) return -1;
    *event = (void *)e;
    return 0;
}

extern "C" void pq_kcuda_event_destroy(void *event)
{
    if (event) (void)cudaEventDestroy((cudaEvent_t)event);
}

extern "C" int pq_kcuda_event_record(void *event, void *stream, const char **why)
{
    return cuda_check(cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream), why);
}

extern "C" int pq_kcuda_stream_wait(void *stream, void *event, const char **why)
{
    return cuda_check(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0), why);
}

extern "C" int pq_kcuda_event_sync(void *event, const char **why)
{
    return cuda_check(cudaEventSynchronize((cudaEvent_t)event), why);
}
