/*
 * k_values.h — the values kernel: one block per page decodes the page's
 * n_values non-null values (pq_kpage.op says how) into the chunk's arrays
 * at the page's value offset; for byte arrays it finds the page's value
 * lengths (the offsets, relative to the page's first byte) and its total,
 * and the bytes kernel (k_bytes.h) copies the bytes once the host has
 * summed the pages' totals into string offsets.
 *
 * Phases (PQ_K_VALUES_PHASES in k_decode.h):
 *   1. scan:     thread 0 resets the results and does the sequential part:
 *                size checks (PLAIN, BYTE_STREAM_SPLIT), the run headers
 *                (dictionary indices, RLE booleans), the walk over the
 *                4-byte lengths (PLAIN BYTE_ARRAY: each value's end,
 *                relative to the page, into the offsets), the walk over a
 *                DELTA_BINARY_PACKED stream's headers into its miniblock
 *                table (k_delta.h);
 *   2. expand:   every thread decodes values i = thread, thread + nthreads, ...:
 *                PLAIN copies, booleans unpacked, dictionary indices decoded,
 *                checked and gathered (fixed width), kept (byte arrays),
 *                written as the values (indices out) or turned into their
 *                entries' string views (views out),
 *                RLE booleans decoded and checked, BYTE_STREAM_SPLIT values
 *                gathered from their streams, delta streams unpacked (as
 *                deltas);
 *   3. partial:  each thread adds up its contiguous piece (k_block.h): the
 *                entry lengths of byte-array dictionary pages, the deltas
 *                of a delta stream; the first bad index's or boolean's
 *                value is recorded;
 *   4. prefix:   thread 0 turns the pieces' sums into their starts (the
 *                block's exclusive scan) and the page's total;
 *   5. ends:     each thread writes the value ends of its piece, or a delta
 *                stream's values (the running sums);
 *   6. lpartial, 7. lprefix, 8. lends: the same three steps over the
 *                lengths of DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY
 *                pages (decoded by 1-5), checked in parallel, into value
 *                ends (k_delta.h);
 *   9. finish:   thread 0 reports those pages' first failure, and copies
 *                DELTA_BYTE_ARRAY FLBA values (one after the other).
 *
 * The dictionary page itself goes through the same kernel (PLAIN ops into
 * the dictionary's arrays) before the data pages use it.
 */
#ifndef PQ_KERNELS_K_VALUES_H
#define PQ_KERNELS_K_VALUES_H

#include <stdbool.h>
#include <string.h>

#include "kernels/k_block.h"
#include "kernels/k_delta.h"
#include "kernels/k_runs.h"

/* The run table of a page's values (dictionary indices, RLE booleans). */
PQ_HD static inline pq_krun *pq_k_val_runs(const pq_kargs *a, const pq_kpage *pg)
{
    return a->runs + pg->runs_at + pg->rep_cap + pg->def_cap;
}

/* Whether a page's op reads dictionary indices. */
PQ_HD static inline int pq_k_dict_op(uint8_t op)
{
    return op == PQ_KOP_DICT_FIXED || op == PQ_KOP_DICT_BYTES || op == PQ_KOP_DICT_INDEX || op == PQ_KOP_DICT_VIEWS;
}

/* Dictionary index i of a page whose index runs were scanned. */
PQ_HD static inline uint32_t pq_k_index_at(const pq_kargs *a, const pq_kpage *pg, const pq_kresult *r, uint32_t i,
                                           uint32_t *hint)
{
    const uint8_t *sec = a->bytes + pg->val_at;
    const pq_krun *runs = pq_k_val_runs(a, pg);
    *hint = pq_k_run_find(runs, r->val_runs, i, *hint);
    return pq_k_run_value(sec + 1, &runs[*hint], i, sec[0]);
}

/* RLE boolean i of a page whose runs cover it (after the 4-byte length). */
PQ_HD static inline uint32_t pq_k_rle_bool_at(const pq_kargs *a, const pq_kpage *pg, const pq_kresult *r,
                                              uint32_t i, uint32_t *hint)
{
    const pq_krun *runs = pq_k_val_runs(a, pg);
    *hint = pq_k_run_find(runs, r->val_runs, i, *hint);
    return pq_k_run_value(a->bytes + pg->val_at + 4, &runs[*hint], i, 1);
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
    r->val_covered = 0;
    r->data_at = 0;
    r->pad = r->pad2 = 0;
    memset(r->delta, 0, sizeof r->delta);
    r->first_negative = r->first_beyond = r->first_prefix = r->first_overflow = r->first_width = PQ_KNONE;
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
    case PQ_KOP_DICT_INDEX:
    case PQ_KOP_DICT_VIEWS:
        if (len < 1) {
            pq_k_fail(&r->val, PQ_KF_EMPTY, 0, 0, 0);
        } else if (sec[0] > 32) {
            pq_k_fail(&r->val, PQ_KF_BIT_WIDTH, 0, sec[0], 0);
        } else {
            pq_k_scan_runs(sec + 1, len - 1, sec[0], n, pq_k_val_runs(a, pg), pg->val_cap, &r->val_runs, &r->val);
        }
        break;
    case PQ_KOP_PLAIN_BYTES:
        r->string_bytes = pq_k_plain_lengths(sec, len, n, a->offsets + pg->value_offset, &r->val);
        break;
    case PQ_KOP_RLE_BOOL: /* as pq_rle_init_prefixed, then the runs at bit width 1 */
        if (len < 4) {
            pq_k_fail(&r->val, PQ_KF_PREFIX_SHORT, 0, len, 0);
        } else if (pq_load_le32(sec) > len - 4) {
            pq_k_fail(&r->val, PQ_KF_PREFIX_LENGTH, 0, pq_load_le32(sec), len - 4);
        } else {
            r->val_covered = pq_k_scan_runs(sec + 4, pq_load_le32(sec), 1, n, pq_k_val_runs(a, pg), pg->val_cap,
                                            &r->val_runs, &r->val);
        }
        break;
    case PQ_KOP_BSS:
        if (a->width == 0 || len % a->width != 0 || len / a->width != n)
            pq_k_fail(&r->val, PQ_KF_BSS_SIZE, 0, len, 0);
        break;
    case PQ_KOP_DELTA:
    case PQ_KOP_DELTA_LENGTH:
    case PQ_KOP_DELTA_BYTES:
    case PQ_KOP_DELTA_FLBA:
        pq_k_delta_scan(a, pg, r);
        break;
    default:
        break;
    }
}

/* Phase 2 (every thread): values copied, unpacked or gathered; indices
 * checked (and kept, for byte arrays). RLE booleans are decoded as far as
 * the runs go even after a run failure: the host reports a bad value
 * before a failure later in the page as the CPU's batches do. */
PQ_HD static inline void pq_k_values_expand(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    if (r->val.fail != PQ_KF_NONE && pg->op != PQ_KOP_RLE_BOOL) return;
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
    case PQ_KOP_DICT_INDEX: {
        uint8_t *out = a->values + (size_t)pg->value_offset * 4;
        for (uint32_t i = t.thread; i < pg->n_values; i += t.nthreads) {
            uint32_t idx = pq_k_index_at(a, pg, r, i, &hint);
            if (idx >= a->dict_n) pq_katomic_min_u64(&r->val.bad_index, i);
            memcpy(out + (size_t)i * 4, &idx, 4);
        }
        break;
    }
    case PQ_KOP_DICT_VIEWS: { /* the entry's view, as the CPU executor makes it once per entry */
        uint8_t *out = a->views + (size_t)pg->value_offset * 16;
        for (uint32_t i = t.thread; i < pg->n_values; i += t.nthreads) {
            uint32_t idx = pq_k_index_at(a, pg, r, i, &hint);
            if (idx >= a->dict_n) {
                pq_katomic_min_u64(&r->val.bad_index, i);
                continue;
            }
            int32_t s = a->dict_offsets[idx], e = a->dict_offsets[idx + 1];
            pq_view_make(out + (size_t)i * 16, a->dict_data + s, (size_t)(e - s), 1, (uint32_t)s);
        }
        break;
    }
    case PQ_KOP_RLE_BOOL: {
        uint8_t *out = a->values + pg->value_offset;
        for (uint32_t i = t.thread; i < r->val_covered; i += t.nthreads) {
            uint32_t v = pq_k_rle_bool_at(a, pg, r, i, &hint);
            out[i] = (uint8_t)v;
            if (v > 1) pq_katomic_min_u64(&r->val.bad_index, i);
        }
        break;
    }
    case PQ_KOP_BSS: {
        uint8_t *out = a->values + (size_t)pg->value_offset * w;
        for (uint32_t i = t.thread; i < pg->n_values; i += t.nthreads)
            pq_bss_gather(sec, pg->n_values, w, i, out + i * w);
        break;
    }
    case PQ_KOP_DELTA:
    case PQ_KOP_DELTA_LENGTH:
    case PQ_KOP_DELTA_BYTES:
    case PQ_KOP_DELTA_FLBA:
        pq_k_delta_unpack(a, pg, r, t);
        break;
    default:
        break;
    }
}

/* Phase 3 (every thread): the bad index's or boolean's value; its piece's
 * sum into its slots: byte-array dictionary pages' entry lengths (slot 0),
 * the deltas of a page's delta streams (slot = stream). */
PQ_HD static inline void pq_k_values_partial(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    *pq_k_slot(t, t.thread, 0) = 0;
    *pq_k_slot(t, t.thread, 1) = 0;
    bool dict = pq_k_dict_op(pg->op);
    if (r->val.bad_index != PQ_KNONE && r->val.bad_index % t.nthreads == t.thread) { /* the thread that decoded it */
        uint32_t hint = 0;
        if (dict) r->val.bad_value = pq_k_index_at(a, pg, r, (uint32_t)r->val.bad_index, &hint);
        else if (pg->op == PQ_KOP_RLE_BOOL)
            r->val.bad_value = pq_k_rle_bool_at(a, pg, r, (uint32_t)r->val.bad_index, &hint);
    }
    if (r->val.fail != PQ_KF_NONE) return;
    if (pg->op == PQ_KOP_DICT_BYTES && r->val.bad_index == PQ_KNONE) {
        const uint32_t *keep = a->idx + pg->idx_at;
        unsigned long long sum = 0;
        uint32_t lo, hi;
        pq_k_piece(pg->n_values, t, &lo, &hi);
        for (uint32_t i = lo; i < hi; i++)
            sum += (unsigned long long)(a->dict_offsets[keep[i] + 1] - a->dict_offsets[keep[i]]);
        *pq_k_slot(t, t.thread, 0) = sum;
    }
    if (pq_k_delta_streams(pg->op)) pq_k_delta_partial(a, pg, r, t);
}

/* Phase 4 (thread 0): the pieces' sums into their starts, and the page's
 * total (byte-array dictionary pages; over int32: PQ_KF_OVERFLOW). */
PQ_HD static inline void pq_k_values_prefix(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    if (t.thread != 0) return;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    if (r->val.fail != PQ_KF_NONE) return;
    if (pq_k_delta_streams(pg->op)) {
        pq_k_delta_prefix(pg, t);
        return;
    }
    if (pg->op != PQ_KOP_DICT_BYTES || r->val.bad_index != PQ_KNONE) return;
    unsigned long long run = pq_k_scan_slots(t, 0);
    if (run > 0x7fffffffull) pq_k_fail(&r->val, PQ_KF_OVERFLOW, 0, run, 0);
    else r->string_bytes = run;
}

/* Phase 5 (every thread): the value ends of its piece (byte-array
 * dictionary pages), or its piece of the delta streams' values. */
PQ_HD static inline void pq_k_values_ends(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    const pq_kresult *r = &a->results[t.block];
    if (r->val.fail != PQ_KF_NONE) return;
    if (pq_k_delta_streams(pg->op)) {
        pq_k_delta_apply(a, pg, r, t);
        return;
    }
    if (pg->op != PQ_KOP_DICT_BYTES || r->val.bad_index != PQ_KNONE) return;
    const uint32_t *keep = a->idx + pg->idx_at;
    int32_t *ends = a->offsets + pg->value_offset;
    unsigned long long run = *pq_k_slot(t, t.thread, 0);
    uint32_t lo, hi;
    pq_k_piece(pg->n_values, t, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) {
        run += (unsigned long long)(a->dict_offsets[keep[i] + 1] - a->dict_offsets[keep[i]]);
        ends[i + 1] = (int32_t)run;
    }
}

/* Phase 6 (every thread): DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY
 * lengths of its piece checked and summed (k_delta.h). */
PQ_HD static inline void pq_k_values_lpartial(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    if (!pq_k_delta_lengths(pg->op) || r->val.fail != PQ_KF_NONE) return;
    pq_k_lengths_partial(a, pg, r, t);
}

/* Phase 7 (thread 0): those sums scanned. */
PQ_HD static inline void pq_k_values_lprefix(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    if (t.thread != 0) return;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    if (!pq_k_delta_lengths(pg->op) || r->val.fail != PQ_KF_NONE) return;
    pq_k_lengths_prefix(pg, r, t);
}

/* Phase 8 (every thread): the value ends of its piece, checked. */
PQ_HD static inline void pq_k_values_lends(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    if (!pq_k_delta_lengths(pg->op) || r->val.fail != PQ_KF_NONE) return;
    pq_k_lengths_ends(a, pg, r, t);
}

/* Phase 9 (thread 0): the first failure of those pages; FLBA values of
 * DELTA_BYTE_ARRAY copied (sequentially: k_delta.h). */
PQ_HD static inline void pq_k_values_finish(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    if (t.thread != 0) return;
    const pq_kpage *pg = &a->pages[t.block];
    pq_kresult *r = &a->results[t.block];
    if (!pq_k_delta_lengths(pg->op) || r->val.fail != PQ_KF_NONE) return;
    pq_k_lengths_finish(a, pg, r);
}

#endif /* PQ_KERNELS_K_VALUES_H */
