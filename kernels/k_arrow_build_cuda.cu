/* k_arrow_build.cu — the Arrow-building kernels on the GPU
 * (k_arrow_build.h): a __global__ wrapper per kernel, made from the phase
 * list the host launcher runs. */
#include <cuda_runtime.h>

#include "kernels/k_arrow_build.h"
#include "kernels/k_decode.h" /* PQ_KMAX_THREADS */

PQ_KGLOBAL(pq_ka_validity_global, pq_karrow_args, PQ_KA_VALIDITY_PHASES)
PQ_KGLOBAL(pq_ka_spread_global, pq_karrow_args, PQ_KA_SPREAD_PHASES)
PQ_KGLOBAL(pq_kn_count_global, pq_knest_args, PQ_KN_COUNT_PHASES)
PQ_KGLOBAL(pq_kn_fill_global, pq_knest_args, PQ_KN_FILL_PHASES)
PQ_KGLOBAL(pq_kc_count_global, pq_kcompact_args, PQ_KC_COUNT_PHASES)
PQ_KGLOBAL(pq_kc_write_global, pq_kcompact_args, PQ_KC_WRITE_PHASES)

extern "C" int pq_kbuild_cuda(void *stream, pq_kbuild_kernel k, const void *args, uint32_t nblocks,
                              uint32_t nthreads, const char **why)
{
    if (!args || nthreads == 0 || nthreads > PQ_KMAX_THREADS || nblocks > 0x7fffffffu) {
        if (why) *why = "bad launch arguments";
        return -1;
    }
    if (nblocks == 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    dim3 grid(nblocks), block(nthreads);
    size_t shared = (size_t)PQ_KSHARED_BYTES(nthreads);
    const pq_karrow_args *fa = (const pq_karrow_args *)args;
    const pq_knest_args *na = (const pq_knest_args *)args;
    const pq_kcompact_args *ca = (const pq_kcompact_args *)args;
    switch (k) {
    case PQ_KA_VALIDITY: pq_ka_validity_global<<<grid, block, shared, s>>>(*fa); break;
    case PQ_KA_SPREAD: pq_ka_spread_global<<<grid, block, shared, s>>>(*fa); break;
    case PQ_KN_COUNT: pq_kn_count_global<<<grid, block, shared, s>>>(*na); break;
    case PQ_KN_FILL: pq_kn_fill_global<<<grid, block, shared, s>>>(*na); break;
    case PQ_KC_COUNT: pq_kc_count_global<<<grid, block, shared, s>>>(*ca); break;
    case PQ_KC_WRITE: pq_kc_write_global<<<grid, block, shared, s>>>(*ca); break;
    default:
        if (why) *why = "unknown kernel";
        return -1;
    }
    cudaError_t e = cudaGetLastError(); /* the launch itself */
    if (e == cudaSuccess) e = cudaStreamSynchronize(s); /* and its execution */
    if (e == cudaSuccess) return 0;
    if (why) *why = cudaGetErrorString(e);
    return -1;
}
