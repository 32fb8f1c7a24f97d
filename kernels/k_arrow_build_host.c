/* k_arrow_build_host.c — the Arrow-building kernels run on the host
 * (k_arrow_build.h): the phase functions the CUDA wrappers call, in
 * pq_klaunch_host_ex. */
#include "kernels/k_arrow_build.h"
#include "kernels/k_decode.h" /* PQ_KMAX_THREADS */

PQ_KPHASE_TABLE(validity_phases, PQ_KA_VALIDITY_PHASES);
PQ_KPHASE_TABLE(spread_phases, PQ_KA_SPREAD_PHASES);
PQ_KPHASE_TABLE(count_phases, PQ_KN_COUNT_PHASES);
PQ_KPHASE_TABLE(fill_phases, PQ_KN_FILL_PHASES);
PQ_KPHASE_TABLE(compact_count_phases, PQ_KC_COUNT_PHASES);
PQ_KPHASE_TABLE(compact_write_phases, PQ_KC_WRITE_PHASES);

int pq_kbuild_host(pq_kbuild_kernel k, const void *args, uint32_t nblocks, uint32_t nthreads, unsigned flags)
{
    static const struct {
        const pq_kphase *phases;
        size_t n;
    } kernels[PQ_KBUILD_KERNELS] = {
        [PQ_KA_VALIDITY] = {validity_phases, PQ_KPHASE_COUNT(PQ_KA_VALIDITY_PHASES)},
        [PQ_KA_SPREAD] = {spread_phases, PQ_KPHASE_COUNT(PQ_KA_SPREAD_PHASES)},
        [PQ_KN_COUNT] = {count_phases, PQ_KPHASE_COUNT(PQ_KN_COUNT_PHASES)},
        [PQ_KN_FILL] = {fill_phases, PQ_KPHASE_COUNT(PQ_KN_FILL_PHASES)},
        [PQ_KC_COUNT] = {compact_count_phases, PQ_KPHASE_COUNT(PQ_KC_COUNT_PHASES)},
        [PQ_KC_WRITE] = {compact_write_phases, PQ_KPHASE_COUNT(PQ_KC_WRITE_PHASES)},
    };
    if (!args || (unsigned)k >= PQ_KBUILD_KERNELS || nthreads == 0 || nthreads > PQ_KMAX_THREADS) return -1;
    return pq_klaunch_host_ex(nblocks, nthreads, kernels[k].phases, kernels[k].n, args,
                              (size_t)PQ_KSHARED_BYTES(nthreads), flags);
}
