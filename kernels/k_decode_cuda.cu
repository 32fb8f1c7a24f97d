/* k_decode_cuda.cu — the decode kernels on the GPU (k_decode.h): a
 * __global__ wrapper per kernel, made from the phase list the host launcher
 * runs, and their launch. */
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

extern "C" int pq_kdecode_cuda(void *stream, pq_kernel k, const pq_kargs *a, uint32_t nthreads, const char **why)
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
