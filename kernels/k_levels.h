/*
 * k_levels.h — the levels kernel: one block per data page decodes the
 * page's repetition and definition levels into the chunk's int16 arrays at
 * the page's level offset, checks them against their maxima and counts the
 * page's non-null values (definition levels equal to max_def).
 *
 * Phases (PQ_K_LEVELS_PHASES in k_decode.h):
 *   1. scan:   thread 0 resets the page's results and scans each section's
 *              run headers into its run table (k_runs.h);
 *   2. expand: every thread decodes levels i = thread, thread + nthreads, ...
 *              of each section whose scan succeeded, stores them and
 *              records the first level above the maximum;
 *   3. count:  each thread counts the max_def levels among its slots into
 *              its shared slot, and the thread that decoded the first bad
 *              level (if any) records its value;
 *   4. sum:    thread 0 adds the counts up: the page's n_values.
 *
 * A section with PQ_KLEV_NONE is left alone: levels the leaf does not
 * have, or a page the host already found broken. Without definition levels
 * (max_def 0) every slot is a value.
 */
#ifndef PQ_KERNELS_K_LEVELS_H
#define PQ_KERNELS_K_LEVELS_H

#include "kernels/k_runs.h"

/* Bits needed for levels 0..max (as page_values.c). */
PQ_HD static inline int pq_k_level_bit_width(int16_t max)
{
    int bw = 0;
    while (bw < 16 && (max >> bw) != 0) bw++;
    return bw;
}

/* Scan of one level section: a run table for RLE; for BIT_PACKED only the
 * check that its n values are all present. Failures go to e. */
PQ_HD static inline void pq_k_levels_scan_section(const uint8_t *sec, uint32_t len, uint8_t enc, int16_t max,
                                                  uint32_t n, pq_krun *runs, uint32_t cap, uint32_t *nruns,
                                                  pq_kerror *e)
{
    int bw = pq_k_level_bit_width(max);
    *nruns = 0;
    if (enc == PQ_KLEV_RLE) {
        pq_k_scan_runs(sec, len, bw, n, runs, cap, nruns, e);
    } else if (enc == PQ_KLEV_BIT_PACKED) {
        unsigned long long need = ((unsigned long long)n * (unsigned long long)bw + 7) / 8;
        if (need > len) pq_k_fail(e, PQ_KF_PACKED_SHORT, 0, need, 0);
    }
}

/* Level i of a section whose scan succeeded. */
PQ_HD static inline uint32_t pq_k_level_at(const uint8_t *sec, uint8_t enc, int bw, const pq_krun *runs,
                                           uint32_t nruns, uint32_t i, uint32_t *hint)
{
    if (enc == PQ_KLEV_BIT_PACKED) return pq_bits_at_msb(sec, (uint64_t)i * (uint64_t)bw, bw);
    *hint = pq_k_run_find(runs, nruns, i, *hint);
    return pq_k_run_value(sec, &runs[*hint], i, bw);
}

/* Phase 2 for one section: levels into out (the page's slots). */
PQ_HD static inline void pq_k_levels_expand_section(const uint8_t *sec, uint8_t enc, int16_t max, uint32_t n,
                                                    const pq_krun *runs, uint32_t nruns, pq_kerror *e,
                                                    int16_t *out, pq_kthread t)
{
    if (enc == PQ_KLEV_NONE || e->fail != PQ_KF_NONE) return;
    int bw = pq_k_level_bit_width(max);
    uint32_t hint = 0;
    for (uint32_t i = t.thread; i < n; i += t.nthreads) {
        uint32_t v = pq_k_level_at(sec, enc, bw, runs, nruns, i, &hint);
        out[i] = (int16_t)v;
        if (v > (uint32_t)max) pq_katomic_min_u64(&e->bad_index, i);
    }
}

/* Phase 3 for one section: the first bad level's value, recorded by the
 * thread that decoded it. */
PQ_HD static inline void pq_k_levels_bad_value(const uint8_t *sec, uint8_t enc, int16_t max, const pq_krun *runs,
                                               uint32_t nruns, pq_kerror *e, pq_kthread t)
{
    if (e->bad_index == PQ_KNONE || e->bad_index % t.nthreads != t.thread) return;
    uint32_t hint = 0;
    e->bad_value = pq_k_level_at(sec, enc, pq_k_level_bit_width(max), runs, nruns, (uint32_t)e->bad_index, &hint);
}

/* Phase 1 (thread 0): the page's results reset, its level sections'
 * run headers scanned. */
PQ_HD static inline void pq_k_levels_scan(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    if (t.thread != 0) return;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    pq_k_error_reset(&r->rep);
    pq_k_error_reset(&r->def);
    r->n_values = 0;
    r->rep_runs = r->def_runs = 0;
    r->def_covered = 0;
    pq_krun *runs = a->runs + pg->runs_at;
    pq_k_levels_scan_section(a->bytes + pg->rep_at, pg->rep_len, pg->rep_enc, a->max_rep, pg->n_levels, runs,
                             pg->rep_cap, &r->rep_runs, &r->rep);
    pq_k_levels_scan_section(a->bytes + pg->def_at, pg->def_len, pg->def_enc, a->max_def, pg->n_levels,
                             runs + pg->rep_cap, pg->def_cap, &r->def_runs, &r->def);
    if (pg->def_enc == PQ_KLEV_RLE)
        r->def_covered = pq_k_leading_run_is(a->bytes + pg->def_at, pg->def_len, pq_k_level_bit_width(a->max_def),
                                             (uint32_t)a->max_def, pg->n_levels);
}

/* Phase 2 (every thread): levels decoded, stored and checked. */
PQ_HD static inline void pq_k_levels_expand(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    const pq_krun *runs = a->runs + pg->runs_at;
    if (pg->rep_enc != PQ_KLEV_NONE)
        pq_k_levels_expand_section(a->bytes + pg->rep_at, pg->rep_enc, a->max_rep, pg->n_levels, runs, r->rep_runs,
                                   &r->rep, a->rep_levels + pg->level_offset, t);
    if (pg->def_enc != PQ_KLEV_NONE)
        pq_k_levels_expand_section(a->bytes + pg->def_at, pg->def_enc, a->max_def, pg->n_levels, runs + pg->rep_cap,
                                   r->def_runs, &r->def, a->def_levels + pg->level_offset, t);
}

/* Phase 3 (every thread): its max_def levels counted into its shared
 * slot; the first bad level's value recorded. */
PQ_HD static inline void pq_k_levels_count(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    const pq_krun *runs = a->runs + pg->runs_at;
    unsigned long long *part = (unsigned long long *)t.shared;
    unsigned long long nn = 0;
    if (pg->def_enc != PQ_KLEV_NONE && r->def.fail == PQ_KF_NONE) {
        const int16_t *def = a->def_levels + pg->level_offset;
        for (uint32_t i = t.thread; i < pg->n_levels; i += t.nthreads) nn += def[i] == a->max_def;
    }
    part[t.thread] = nn;
    if (pg->rep_enc != PQ_KLEV_NONE)
        pq_k_levels_bad_value(a->bytes + pg->rep_at, pg->rep_enc, a->max_rep, runs, r->rep_runs, &r->rep, t);
    if (pg->def_enc != PQ_KLEV_NONE)
        pq_k_levels_bad_value(a->bytes + pg->def_at, pg->def_enc, a->max_def, runs + pg->rep_cap, r->def_runs,
                              &r->def, t);
}

/* Phase 4 (thread 0): the shared counts added up: the page's values. */
PQ_HD static inline void pq_k_levels_sum(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    if (t.thread != 0) return;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    if (a->max_def == 0) {
        r->n_values = pg->n_levels;
        return;
    }
    const unsigned long long *part = (const unsigned long long *)t.shared;
    unsigned long long nn = 0;
    for (uint32_t k = 0; k < t.nthreads; k++) nn += part[k];
    r->n_values = nn;
}

#endif /* PQ_KERNELS_K_LEVELS_H */
