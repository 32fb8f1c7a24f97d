/*
 * k_runs.h — the RLE/bit-packed hybrid as two block-level steps, shared by
 * the levels kernel (k_levels.h) and the dictionary-index kernels
 * (k_values.h):
 *
 *   1. one thread scans the run headers of a section into a run table
 *      (pq_k_scan_runs): where each run's values go and what they are;
 *   2. every thread then decodes any value of the section on its own from
 *      the table (pq_k_run_find + pq_k_run_value): an RLE value is the
 *      run's, a bit-packed one is unpacked from the run's bytes with the
 *      primitives (pq_bits_at).
 *
 * The scan follows rle.c's rules exactly (the CPU executor's decoder): the
 * same run-length limits, a cut-short last bit-packed run keeps the whole
 * values present, an RLE value is not masked to the bit width, a bit width
 * of 0 is all zeros without reading input, and no run header past the one
 * that covers the n-th value is read (so bytes after the values a page
 * needs are never looked at, as on the CPU). Every header and value is
 * checked against the section's length before it is read.
 */
#ifndef PQ_KERNELS_K_RUNS_H
#define PQ_KERNELS_K_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/k_launch.h"
#include "kernels/k_types.h"
#include "kernels/primitives.h"

/* An error record with nothing in it. */
PQ_HD static inline void pq_k_error_reset(pq_kerror *e)
{
    e->fail = PQ_KF_NONE;
    e->pad = 0;
    e->at = 0;
    e->count = 0;
    e->index = 0;
    e->bad_index = PQ_KNONE;
    e->bad_value = 0;
}

/* Records a structural failure (the first one only). */
PQ_HD static inline void pq_k_fail(pq_kerror *e, uint32_t fail, unsigned long long at, unsigned long long count,
                                   unsigned long long index)
{
    if (e->fail != PQ_KF_NONE) return;
    e->fail = fail;
    e->at = at;
    e->count = count;
    e->index = index;
}

/* Scans the runs of sec[0, len) at bit width bw (0..32) until n values are
 * covered, into runs[0, *nruns) (cap entries at most). Returns the values
 * covered: n, or fewer after a failure recorded in e. */
PQ_HD static inline uint32_t pq_k_scan_runs(const uint8_t *sec, uint32_t len, int bw, uint32_t n, pq_krun *runs,
                                            uint32_t cap, uint32_t *nruns, pq_kerror *e)
{
    uint32_t covered = 0, r = 0;
    size_t pos = 0;
    *nruns = 0;
    if (n == 0) return 0;
    if (bw == 0) { /* every value is 0, and nothing is read */
        if (cap < 1) {
            pq_k_fail(e, PQ_KF_TABLE, 0, 0, 0);
            return 0;
        }
        runs[0].first = 0;
        runs[0].count = n;
        runs[0].data = 0;
        runs[0].literal = 0;
        *nruns = 1;
        return n;
    }
    while (covered < n) {
        if (pos >= len) {
            pq_k_fail(e, PQ_KF_SHORT, pos, covered, 0);
            break;
        }
        uint64_t h;
        size_t at = pos, used = pq_uleb128(sec + pos, len - pos, &h);
        if (!used) {
            pq_k_fail(e, PQ_KF_RUN_HEADER, at, 0, 0);
            break;
        }
        pos += used;
        uint64_t avail = len - pos, count = h >> 1, values;
        pq_krun run;
        if (h & 1) {
            if (count == 0 || count > PQ_KMAX_RUN / 8) {
                pq_k_fail(e, PQ_KF_LITERAL_COUNT, at, count, 0);
                break;
            }
            uint64_t bytes = count * (uint64_t)bw;
            values = count * 8;
            if (bytes > avail) { /* a cut-short last run: the whole values present */
                bytes = avail;
                values = avail * 8 / (uint64_t)bw;
                if (values == 0) {
                    pq_k_fail(e, PQ_KF_LITERAL_EMPTY, at, 0, 0);
                    break;
                }
            }
            run.literal = 1;
            run.data = (uint32_t)pos;
            pos += (size_t)bytes;
        } else {
            uint64_t nbytes = (uint64_t)(bw + 7) / 8;
            if (count == 0 || count > PQ_KMAX_RUN) {
                pq_k_fail(e, PQ_KF_RUN_COUNT, at, count, 0);
                break;
            }
            if (nbytes > avail) {
                pq_k_fail(e, PQ_KF_RUN_VALUE, pos, 0, 0);
                break;
            }
            run.literal = 0;
            run.data = (uint32_t)pq_load_le_n(sec + pos, (int)nbytes);
            pos += (size_t)nbytes;
            values = count;
        }
        if (r == cap) {
            pq_k_fail(e, PQ_KF_TABLE, at, r, 0);
            break;
        }
        run.first = covered;
        run.count = values < (uint64_t)(n - covered) ? (uint32_t)values : n - covered;
        runs[r++] = run;
        covered += run.count;
    }
    *nruns = r;
    return covered;
}

/* The run holding value i (i below the values covered; nruns > 0): `hint`
 * first (the run of a thread's previous value, or the next one), then a
 * binary search over the table. */
PQ_HD static inline uint32_t pq_k_run_find(const pq_krun *runs, uint32_t nruns, uint32_t i, uint32_t hint)
{
    for (uint32_t h = hint; h < nruns && h < hint + 2; h++)
        if (runs[h].first <= i && i - runs[h].first < runs[h].count) return h;
    uint32_t lo = 0, hi = nruns - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (runs[mid].first <= i) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Value i of the section, which lies in run `run`. A bit-packed value
 * reads only the bytes holding its bits, all inside the run's bytes (the
 * scan kept only whole values present). */
PQ_HD static inline uint32_t pq_k_run_value(const uint8_t *sec, const pq_krun *run, uint32_t i, int bw)
{
    if (!run->literal) return run->data;
    return (uint32_t)pq_bits_at(sec + run->data, (uint64_t)(i - run->first) * (uint64_t)bw, bw);
}

/* Whether the section's first run is an RLE run of `value` covering at
 * least n values: as pq_rle_leading_run, the CPU's test for a page whose
 * definition levels need not be stored. */
PQ_HD static inline uint32_t pq_k_leading_run_is(const uint8_t *sec, uint32_t len, int bw, uint32_t value,
                                                 uint32_t n)
{
    if (len == 0) return 0;
    uint64_t h;
    size_t used = pq_uleb128(sec, len, &h);
    size_t nbytes = (size_t)(bw + 7) / 8;
    if (!used || (h & 1) || nbytes > len - used) return 0;
    uint32_t v = bw ? (uint32_t)pq_load_le_n(sec + used, (int)nbytes) : 0;
    return v == value && (h >> 1) >= n;
}

#endif /* PQ_KERNELS_K_RUNS_H */
