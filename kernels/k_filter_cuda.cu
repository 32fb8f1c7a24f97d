/* k_filter.cu — the predicate kernel on the GPU (k_filter.h): a __global__
 * wrapper made from the phase list the host launcher runs. */
#include <cuda_runtime.h>

#include "kernels/k_decode.h" /* PQ_KMAX_THREADS */
#include "kernels/k_filter.h"

PQ_KGLOBAL(pq_kf_global, pq_kfilter_args, PQ_KF_PHASES)

extern "C" int pq_kfilter_cuda(void *stream, const pq_kfilter_args *a, uint32_t nblocks, uint32_t nthreads,
                               const char **why)
{
    if (!a || nthreads == 0 || nthreads > PQ_KMAX_THREADS || nblocks > 0x7fffffffu) {
        if (why) *why = "bad launch arguments";
        return -1;
    }
    if (nblocks == 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    pq_kf_global<<<dim3(nblocks), dim3(nthreads), PQ_KF_SHARED_BYTES(nthreads), s>>>(*a);
    cudaError_t e = cudaGetLastError();                 /* the launch itself */
    if (e == cudaSuccess) e = cudaStreamSynchronize(s); /* and its execution */
    if (e == cudaSuccess) return 0;
    if (why) *why = cudaGetErrorString(e);
    return -1;
}
