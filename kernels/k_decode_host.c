/* k_decode_host.c — the decode kernels run on the host (k_decode.h): the
 * same phase functions the CUDA wrappers call, in pq_klaunch_host. */
#include "kernels/k_decode.h"

PQ_KPHASE_TABLE(levels_phases, PQ_K_LEVELS_PHASES);
PQ_KPHASE_TABLE(values_phases, PQ_K_VALUES_PHASES);
PQ_KPHASE_TABLE(bytes_phases, PQ_K_BYTES_PHASES);

int pq_kdecode_host(pq_kernel k, const pq_kargs *a, uint32_t nthreads, unsigned flags)
{
    if (!a || nthreads == 0 || nthreads > PQ_KMAX_THREADS) return -1;
    const pq_kphase *phases;
    size_t n;
    switch (k) {
    case PQ_K_LEVELS:
        phases = levels_phases;
        n = PQ_KPHASE_COUNT(PQ_K_LEVELS_PHASES);
        break;
    case PQ_K_VALUES:
        phases = values_phases;
        n = PQ_KPHASE_COUNT(PQ_K_VALUES_PHASES);
        break;
    case PQ_K_BYTES:
        phases = bytes_phases;
        n = PQ_KPHASE_COUNT(PQ_K_BYTES_PHASES);
        break;
    default:
        return -1;
    }
    return pq_klaunch_host_ex(a->npages, nthreads, phases, n, a, (size_t)PQ_KSHARED_BYTES(nthreads), flags);
}
