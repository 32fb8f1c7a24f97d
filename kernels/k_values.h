/*
 * k_values.h — the values kernel: one block per page decodes the page's
 * n_values non-null values (pq_kpage.op says how) into the chunk's arrays
 * at the page's value offset; for byte arrays it finds the page's value
 * lengths (the offsets, relative to the page's first byte) and its total,
 * and the bytes kernel (k_bytes.h) copies the bytes once the host has
 * summed the pages' totals into string offsets.
 *
 * Phases (PQ_K_VALUES_PHASES in k_decode.h):
 *   1. scan:    thread 0 resets the results and does the sequential part:
 *               size checks (PLAIN), the index run headers (dictionary
 *               pages), the walk over the 4-byte lengths (PLAIN BYTE_ARRAY:
 *               each value's end, relative to the page, into the offsets);
 *   2. expand:  every thread decodes values i = thread, thread + nthreads, ...:
 *               PLAIN copies, booleans unpacked, dictionary indices decoded,
 *               checked and gathered (fixed width) or kept (byte arrays);
 *   3. partial: byte-array dictionary pages: each thread adds up the entry
 *               lengths of its contiguous piece of the values into its
 *               shared slot; the first bad index's value is recorded;
 *   4. prefix:  thread 0 turns the pieces' sums into their starts (the
 *               block's exclusive scan) and the page's total;
 *   5. ends:    each thread writes the value ends of its piece.
 *
 * The dictionary page itself goes through the same kernel (PLAIN ops into
 * the dictionary's arrays) before the data pages use it.
 */
#ifndef PQ_KERNELS_K_VALUES_H
#define PQ_KERNELS_K_VALUES_H

#include <stdbool.h>
#include <string.h>

#include "kernels/k_runs.h"

/* Thread t's contiguous piece [*lo, *hi) of n values. */
PQ_HD static inline void pq_k_piece(uint32_t n, pq_kthread t, uint32_t *lo, uint32_t *hi)
{
    unsigned long long per = ((unsigned long long)n + t.nthreads - 1) / t.nthreads;
    unsigned long long a = per * t.thread, b = a + per;
    *lo = (uint32_t)(a < n ? a : n);
    *hi = (uint32_t)(b < n ? b : n);
}

/* Dictionary index i of a page whose index runs were scanned. */
PQ_HD static inline uint32_t pq_k_index_at(const pq_kargs *a, const pq_kpage *pg, const pq_kresult *r, uint32_t i,
                                           uint32_t *hint)
{
    const uint8_t *sec = a->bytes + pg->val_at;
    const pq_krun *runs = a->runs + pg->runs_at + pg->rep_cap + pg->def_cap;
    *hint = pq_k_run_find(runs, r->val_runs, i, *hint);
    return pq_k_run_value(sec + 1, &runs[*hint], i, sec[0]);
}

/* PLAIN BYTE_ARRAY: walks the n lengths of sec[0, len), each checked
 * against the bytes left, writing each value's end (relative to the page's
 * first value byte) to ends[1..n]. Returns the page's data bytes. */
PQ_HD static inline unsigned long long pq_k_plain_lengths(const uint8_t *sec, uint32_t len, uint32_t n,
                                                         int32_t *ends, pq_kerror *e)
{
    size_t pos = 0;
    unsigned long long total = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (len - pos < 4) {
            pq_k_fail(e, PQ_KF_LEN_TRUNCATED, pos, 0, i);
            return 0;
        }
        uint32_t l = pq_load_le32(sec + pos);
        pos += 4;
        if (l > len - pos) {
            pq_k_fail(e, PQ_KF_LEN_PAST_END, pos, l, i);
            return 0;
        }
        pos += l;
        total += l; /* at most len < 2^31: an int32 */
        ends[i + 1] = (int32_t)total;
    }
    return total;
}

/* Phase 1 (thread 0): results reset; size checks, index run headers, or
 * the walk over the PLAIN lengths. */
PQ_HD static inline void pq_k_values_scan(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    if (t.thread != 0) return;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    pq_k_error_reset(&r->val);
    r->string_bytes = 0;
    r->val_runs = 0;
    const uint8_t *sec = a->bytes + pg->val_at;
    uint32_t len = pg->val_len, n = pg->n_values;
    switch (pg->op) {
    case PQ_KOP_PLAIN_FIXED:
        if (a->width == 0 || n > len / a->width) pq_k_fail(&r->val, PQ_KF_FIXED_SHORT, 0, len, 0);
        break;
    case PQ_KOP_PLAIN_BOOL:
        if (n > (unsigned long long)len * 8) pq_k_fail(&r->val, PQ_KF_FIXED_SHORT, 0, len, 0);
        break;
    case PQ_KOP_DICT_FIXED:
    case PQ_KOP_DICT_BYTES:
        if (len < 1) {
            pq_k_fail(&r->val, PQ_KF_EMPTY, 0, 0, 0);
        } else if (sec[0] > 32) {
            pq_k_fail(&r->val, PQ_KF_BIT_WIDTH, 0, sec[0], 0);
        } else {
            pq_krun *runs = a->runs + pg->runs_at + pg->rep_cap + pg->def_cap;
            pq_k_scan_runs(sec + 1, len - 1, sec[0], n, runs, pg->val_cap, &r->val_runs, &r->val);
        }
        break;
    case PQ_KOP_PLAIN_BYTES:
        r->string_bytes = pq_k_plain_lengths(sec, len, n, a->offsets + pg->value_offset, &r->val);
        break;
    default:
        break;
    }
}

/* Phase 2 (every thread): values copied, unpacked or gathered; indices
 * checked (and kept, for byte arrays). */
PQ_HD static inline void pq_k_values_expand(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    if (r->val.fail != PQ_KF_NONE) return;
    const uint8_t *sec = a->bytes + pg->val_at;
    size_t w = a->width;
    uint32_t hint = 0;
    switch (pg->op) {
    case PQ_KOP_PLAIN_FIXED: {
        uint8_t *out = a->values + (size_t)pg->value_offset * w;
        for (uint32_t i = t.thread; i < pg->n_values; i += t.nthreads) memcpy(out + i * w, sec + i * w, w);
        break;
    }
    case PQ_KOP_PLAIN_BOOL: {
        uint8_t *out = a->values + pg->value_offset;
        for (uint32_t i = t.thread; i < pg->n_values; i += t.nthreads) out[i] = pq_bit_at(sec, i);
        break;
    }
    case PQ_KOP_DICT_FIXED: {
        uint8_t *out = a->values + (size_t)pg->value_offset * w;
        for (uint32_t i = t.thread; i < pg->n_values; i += t.nthreads) {
            uint32_t idx = pq_k_index_at(a, pg, r, i, &hint);
            if (!pq_dict_get_fixed(a->dict_values, a->dict_n, w, idx, out + i * w))
                pq_katomic_min_u64(&r->val.bad_index, i);
        }
        break;
    }
    case PQ_KOP_DICT_BYTES: {
        uint32_t *keep = a->idx + pg->idx_at;
        for (uint32_t i = t.thread; i < pg->n_values; i += t.nthreads) {
            uint32_t idx = pq_k_index_at(a, pg, r, i, &hint);
            if (idx >= a->dict_n) pq_katomic_min_u64(&r->val.bad_index, i);
            keep[i] = idx;
        }
        break;
    }
    default:
        break;
    }
}

/* Phase 3 (every thread): the bad index's value; byte-array dictionary
 * pages: the entry lengths of the thread's piece into its shared slot. */
PQ_HD static inline void pq_k_values_partial(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    unsigned long long *part = (unsigned long long *)t.shared;
    unsigned long long sum = 0;
    bool dict = pg->op == PQ_KOP_DICT_FIXED || pg->op == PQ_KOP_DICT_BYTES;
    if (dict && r->val.bad_index != PQ_KNONE && r->val.bad_index % t.nthreads == t.thread) {
        uint32_t hint = 0;
        r->val.bad_value = pq_k_index_at(a, pg, r, (uint32_t)r->val.bad_index, &hint);
    }
    if (pg->op == PQ_KOP_DICT_BYTES && r->val.fail == PQ_KF_NONE && r->val.bad_index == PQ_KNONE) {
        const uint32_t *keep = a->idx + pg->idx_at;
        uint32_t lo, hi;
        pq_k_piece(pg->n_values, t, &lo, &hi);
        for (uint32_t i = lo; i < hi; i++)
            sum += (unsigned long long)(a->dict_offsets[keep[i] + 1] - a->dict_offsets[keep[i]]);
    }
    part[t.thread] = sum;
}

/* Phase 4 (thread 0): the pieces' sums into their starts, and the
 * page's total (over int32: PQ_KF_OVERFLOW). */
PQ_HD static inline void pq_k_values_prefix(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    if (t.thread != 0) return;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    if (pg->op != PQ_KOP_DICT_BYTES || r->val.fail != PQ_KF_NONE || r->val.bad_index != PQ_KNONE) return;
    unsigned long long *part = (unsigned long long *)t.shared, run = 0;
    for (uint32_t k = 0; k < t.nthreads; k++) {
        unsigned long long s = part[k];
        part[k] = run;
        run += s;
    }
    if (run > 0x7fffffffull) pq_k_fail(&r->val, PQ_KF_OVERFLOW, 0, run, 0);
    else r->string_bytes = run;
}

/* Phase 5 (every thread): the value ends of the thread's piece. */
PQ_HD static inline void pq_k_values_ends(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    const pq_kresult *r = &a->results[t.block];
    if (pg->op != PQ_KOP_DICT_BYTES || r->val.fail != PQ_KF_NONE || r->val.bad_index != PQ_KNONE) return;
    const uint32_t *keep = a->idx + pg->idx_at;
    int32_t *ends = a->offsets + pg->value_offset;
    unsigned long long run = ((const unsigned long long *)t.shared)[t.thread];
    uint32_t lo, hi;
    pq_k_piece(pg->n_values, t, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) {
        run += (unsigned long long)(a->dict_offsets[keep[i] + 1] - a->dict_offsets[keep[i]]);
        ends[i + 1] = (int32_t)run;
    }
}

#endif /* PQ_KERNELS_K_VALUES_H */
