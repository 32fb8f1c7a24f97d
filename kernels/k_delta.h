/*
 * k_delta.h — DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and
 * DELTA_BYTE_ARRAY as block-level steps of the values kernel (k_values.h)
 * and the bytes kernel (k_bytes.h), one block per page.
 *
 * A page holds one DELTA_BINARY_PACKED stream (PQ_KOP_DELTA: the values;
 * PQ_KOP_DELTA_LENGTH: the value lengths, then the values' bytes) or two
 * (PQ_KOP_DELTA_BYTES / _FLBA: the prefix lengths, then a
 * DELTA_LENGTH_BYTE_ARRAY of the suffixes). A stream is decoded in three
 * steps:
 *
 *   1. walk   (thread 0, the values kernel's scan phase): the header and
 *             the block and miniblock headers of the values the header
 *             declares, each checked against the section's length, into a
 *             miniblock table (pq_kmini: min delta, bit width, where its
 *             bits start); the second stream starts where the first ended;
 *   2. unpack (every thread, expand phase): value j of the stream is the
 *             header's first value (j = 0) or its miniblock's min delta
 *             plus its bits, stored as is (the deltas);
 *   3. scan   (partial, prefix and ends phases, k_block.h): each thread
 *             sums a contiguous piece of the deltas, thread 0 scans the
 *             per-thread sums, each thread adds its start back over its
 *             piece: value j = first + the deltas up to j, modulo 2^64 as
 *             delta.c computes it (an INT32 stream keeps the low 32 bits of
 *             each value, which is the same sum modulo 2^32).
 *
 * The lengths of DELTA_LENGTH_BYTE_ARRAY (and of DELTA_BYTE_ARRAY's values,
 * prefix plus suffix) then go through one more block scan (the lpartial,
 * lprefix and lends phases): checked in parallel (the first negative
 * length, the first prefix longer than the value before, the first running
 * total past the bytes present or past int32, each the first by position
 * through pq_katomic_min_u64), their running totals the values' ends; the
 * finish phase (thread 0) reports the first failure in delta.c's order.
 * The bytes are copied by the bytes kernel: DELTA_LENGTH_BYTE_ARRAY's
 * values in parallel, as PLAIN ones; DELTA_BYTE_ARRAY's by thread 0 alone,
 * value after value (pq_k_dba_copy), as each starts with a prefix of the
 * one before: the one inherently sequential step (FLBA values are copied
 * so in the finish phase).
 *
 * Every rule is delta.c's (the CPU executor's decoder): the header limits,
 * bit widths up to 64 for INT32 as well, miniblocks past the last value
 * neither checked nor counted in the bytes the stream takes, at most the
 * page's non-null values, and the same checks in the same order.
 */
#ifndef PQ_KERNELS_K_DELTA_H
#define PQ_KERNELS_K_DELTA_H

#include <stdint.h>
#include <string.h>

#include "kernels/k_block.h"
#include "kernels/k_runs.h"

/* Largest block size accepted (delta.c's DELTA_MAX_BLOCK). */
#define PQ_KDELTA_MAX_BLOCK 0x7fffff80u

/* The varints of a stream (pq_kerror.index of PQ_KF_DELTA_VARINT). */
enum {
    PQ_KDELTA_FIELD_BLOCK,     /* block size */
    PQ_KDELTA_FIELD_MINIS,     /* miniblock count */
    PQ_KDELTA_FIELD_TOTAL,     /* value count */
    PQ_KDELTA_FIELD_FIRST,     /* first value */
    PQ_KDELTA_FIELD_MIN_DELTA  /* a block's min delta */
};

/* Streams of a page with this op (0: not a delta op). */
PQ_HD static inline uint32_t pq_k_delta_streams(uint8_t op)
{
    if (op == PQ_KOP_DELTA || op == PQ_KOP_DELTA_LENGTH) return 1;
    if (op == PQ_KOP_DELTA_BYTES || op == PQ_KOP_DELTA_FLBA) return 2;
    return 0;
}

/* Whether the op checks lengths (the lpartial ... finish phases). */
PQ_HD static inline int pq_k_delta_lengths(uint8_t op)
{
    return op == PQ_KOP_DELTA_LENGTH || op == PQ_KOP_DELTA_BYTES || op == PQ_KOP_DELTA_FLBA;
}

/* Element i of an array of w-byte (4 or 8) unsigned integers. */
PQ_HD static inline unsigned long long pq_k_get(const uint8_t *p, uint32_t w, unsigned long long i)
{
    if (w == 8) return ((const unsigned long long *)(const void *)p)[i];
    return ((const uint32_t *)(const void *)p)[i];
}

PQ_HD static inline void pq_k_put(uint8_t *p, uint32_t w, unsigned long long i, unsigned long long v)
{
    if (w == 8) ((unsigned long long *)(void *)p)[i] = v;
    else ((uint32_t *)(void *)p)[i] = (uint32_t)v;
}

/* Lengths stream s (0: DELTA_LENGTH's lengths or the prefix lengths, 1:
 * the suffix lengths) of a page, in the length scratch. */
PQ_HD static inline int32_t *pq_k_lengths(const pq_kargs *a, const pq_kpage *pg, uint32_t s)
{
    return (int32_t *)(void *)(a->idx + pg->idx_at + (size_t)s * pg->n_values);
}

/* Where stream s's values go, w bytes each: the values of PQ_KOP_DELTA,
 * otherwise the length scratch. */
PQ_HD static inline uint8_t *pq_k_delta_out(const pq_kargs *a, const pq_kpage *pg, uint32_t s, uint32_t *w)
{
    if (pg->op == PQ_KOP_DELTA) {
        *w = a->width;
        return a->values + (size_t)pg->value_offset * a->width;
    }
    *w = 4;
    return (uint8_t *)(void *)pq_k_lengths(a, pg, s);
}

/* Step 1 for one stream sec[0, len) of at most cap values: its header and
 * the block and miniblock headers of its values into d and minis[0, mcap).
 * Returns 0, or -1 after a failure recorded in e (delta_decode's order). */
PQ_HD static inline int pq_k_delta_walk(const uint8_t *sec, uint32_t len, uint32_t cap, pq_kmini *minis,
                                        uint32_t mcap, pq_kdelta *d, pq_kerror *e)
{
    unsigned long long v[4];
    size_t pos = 0;
    for (uint32_t f = 0; f < 4; f++) {
        uint64_t x;
        size_t used = pq_uleb128(sec + pos, len - pos, &x);
        if (!used) {
            pq_k_fail(e, PQ_KF_DELTA_VARINT, pos, 0, f);
            return -1;
        }
        v[f] = x;
        pos += used;
    }
    if (v[0] == 0 || v[0] % 128 != 0 || v[0] > PQ_KDELTA_MAX_BLOCK) {
        pq_k_fail(e, PQ_KF_DELTA_BLOCK, 0, v[0], 0);
        return -1;
    }
    if (v[1] == 0 || v[1] > v[0] || v[0] % v[1] != 0 || (v[0] / v[1]) % 32 != 0) {
        pq_k_fail(e, PQ_KF_DELTA_MINIS, 0, v[1], v[0]);
        return -1;
    }
    if (v[2] > cap) {
        pq_k_fail(e, PQ_KF_DELTA_TOTAL, 0, v[2], 0);
        return -1;
    }
    uint32_t miniblocks = (uint32_t)v[1], per_mini = (uint32_t)(v[0] / v[1]), nm = 0;
    unsigned long long total = v[2], done = total ? 1 : 0; /* value 0 is the header's */
    d->first = pq_unzigzag64(v[3]);
    d->total = total;
    d->per_mini = per_mini;
    while (done < total) {
        uint64_t zz;
        size_t used = pq_uleb128(sec + pos, len - pos, &zz);
        if (!used) {
            pq_k_fail(e, PQ_KF_DELTA_VARINT, pos, 0, PQ_KDELTA_FIELD_MIN_DELTA);
            return -1;
        }
        pos += used;
        unsigned long long min_delta = pq_unzigzag64(zz);
        if (len - pos < miniblocks) {
            pq_k_fail(e, PQ_KF_DELTA_WIDTHS, pos, 0, 0);
            return -1;
        }
        const uint8_t *widths = sec + pos;
        pos += miniblocks;
        for (uint32_t m = 0; m < miniblocks && done < total; m++) {
            uint32_t bw = widths[m];
            if (bw > 64) {
                pq_k_fail(e, PQ_KF_DELTA_WIDTH, pos, bw, 0);
                return -1;
            }
            unsigned long long bytes = (unsigned long long)(per_mini / 8) * bw;
            if (bytes > len - pos) {
                pq_k_fail(e, PQ_KF_DELTA_DATA, pos, bytes, len - pos);
                return -1;
            }
            if (nm == mcap) { /* cannot happen: the host sizes the table from the values and bytes */
                pq_k_fail(e, PQ_KF_TABLE, pos, nm, 0);
                return -1;
            }
            minis[nm].min_delta = min_delta;
            minis[nm].data = (uint32_t)pos;
            minis[nm].bw = bw;
            nm++;
            done += total - done < per_mini ? total - done : per_mini;
            pos += (size_t)bytes;
        }
    }
    d->nminis = nm;
    d->consumed = (uint32_t)pos;
    return 0;
}

/* Value j of a walked stream (sec: its first byte), before the scan: the
 * first value, or a delta. Reads only its miniblock's bytes. */
PQ_HD static inline unsigned long long pq_k_delta_raw(const uint8_t *sec, const pq_kdelta *d, const pq_kmini *minis,
                                                      unsigned long long j)
{
    if (j == 0) return d->first;
    unsigned long long k = j - 1, m = k / d->per_mini;
    const pq_kmini *mb = &minis[m];
    return mb->min_delta + pq_bits_at(sec + mb->data, (k - m * d->per_mini) * mb->bw, (int)mb->bw);
}

/* Step 1 (thread 0, from the scan phase): the page's streams walked, the
 * second from where the first ends; PQ_KOP_DELTA's value count checked
 * (values_delta_binary's last check). */
PQ_HD static inline void pq_k_delta_scan(const pq_kargs *a, const pq_kpage *pg, pq_kresult *r)
{
    const uint8_t *sec = a->bytes + pg->val_at;
    uint32_t at = 0;
    for (uint32_t s = 0; s < pq_k_delta_streams(pg->op); s++) {
        pq_kdelta *d = &r->delta[s];
        pq_kmini *minis = a->minis + pg->mini_at + (size_t)s * pg->mini_cap;
        if (pq_k_delta_walk(sec + at, pg->val_len - at, pg->n_values, minis, pg->mini_cap, d, &r->val)) return;
        d->at = at;
        at += d->consumed;
    }
    if (pg->op == PQ_KOP_DELTA && r->delta[0].total != pg->n_values)
        pq_k_fail(&r->val, PQ_KF_DELTA_COUNT, 0, r->delta[0].total, 0);
}

/* Step 2 (every thread, from the expand phase): the streams' values
 * i = thread, thread + nthreads, ... unpacked. */
PQ_HD static inline void pq_k_delta_unpack(const pq_kargs *a, const pq_kpage *pg, const pq_kresult *r,
                                           pq_kthread t)
{
    for (uint32_t s = 0; s < pq_k_delta_streams(pg->op); s++) {
        const pq_kdelta *d = &r->delta[s];
        const uint8_t *sec = a->bytes + pg->val_at + d->at;
        const pq_kmini *minis = a->minis + pg->mini_at + (size_t)s * pg->mini_cap;
        uint32_t w;
        uint8_t *out = pq_k_delta_out(a, pg, s, &w);
        for (unsigned long long j = t.thread; j < d->total; j += t.nthreads)
            pq_k_put(out, w, j, pq_k_delta_raw(sec, d, minis, j));
    }
}

/* Step 3a (every thread, from the partial phase): the sum of its piece of
 * each stream into its slot. */
PQ_HD static inline void pq_k_delta_partial(const pq_kargs *a, const pq_kpage *pg, const pq_kresult *r,
                                            pq_kthread t)
{
    for (uint32_t s = 0; s < pq_k_delta_streams(pg->op); s++) {
        uint32_t w, lo, hi;
        const uint8_t *out = pq_k_delta_out(a, pg, s, &w);
        pq_k_piece(r->delta[s].total, t, &lo, &hi);
        unsigned long long sum = 0;
        for (uint32_t j = lo; j < hi; j++) sum += pq_k_get(out, w, j);
        *pq_k_slot(t, t.thread, s) = sum;
    }
}

/* Step 3b (thread 0, from the prefix phase): the slots scanned. */
PQ_HD static inline void pq_k_delta_prefix(const pq_kpage *pg, pq_kthread t)
{
    for (uint32_t s = 0; s < pq_k_delta_streams(pg->op); s++) (void)pq_k_scan_slots(t, s);
}

/* Step 3c (every thread, from the ends phase): its piece's running sums
 * from its slot's start: the values. */
PQ_HD static inline void pq_k_delta_apply(const pq_kargs *a, const pq_kpage *pg, const pq_kresult *r,
                                          pq_kthread t)
{
    for (uint32_t s = 0; s < pq_k_delta_streams(pg->op); s++) {
        uint32_t w, lo, hi;
        uint8_t *out = pq_k_delta_out(a, pg, s, &w);
        pq_k_piece(r->delta[s].total, t, &lo, &hi);
        unsigned long long run = *pq_k_slot(t, t.thread, s);
        for (uint32_t j = lo; j < hi; j++) {
            run += pq_k_get(out, w, j);
            pq_k_put(out, w, j, run);
        }
    }
}

/* ---- Lengths (DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY) ----------------
 * Slot 0 sums the (suffix) lengths, slot 1 the values' lengths (prefix plus
 * suffix, DELTA_BYTE_ARRAY). The suffix lengths are stream 1 of a
 * DELTA_BYTE_ARRAY page, DELTA_LENGTH's own lengths stream 0. */

/* The stream of a page's (suffix) lengths, and the bytes present for
 * their values (after the stream). */
PQ_HD static inline uint32_t pq_k_suffix_stream(const pq_kpage *pg)
{
    return pg->op == PQ_KOP_DELTA_LENGTH ? 0 : 1;
}

PQ_HD static inline unsigned long long pq_k_suffix_avail(const pq_kpage *pg, const pq_kresult *r)
{
    const pq_kdelta *d = &r->delta[pq_k_suffix_stream(pg)];
    return (unsigned long long)pg->val_len - d->at - d->consumed;
}

/* The length of DELTA_BYTE_ARRAY value i (prefix plus suffix). */
PQ_HD static inline long long pq_k_dba_len(const int32_t *pre, const int32_t *suf, uint32_t i)
{
    return (long long)pre[i] + (long long)suf[i];
}

/* lpartial (every thread): its piece's lengths checked (a negative suffix
 * length; a prefix negative or longer than the value before; an FLBA
 * value of another length) and summed into its slots. */
PQ_HD static inline void pq_k_lengths_partial(const pq_kargs *a, const pq_kpage *pg, pq_kresult *r, pq_kthread t)
{
    unsigned long long s0 = 0, s1 = 0;
    uint32_t lo, hi, ss = pq_k_suffix_stream(pg);
    const int32_t *suf = pq_k_lengths(a, pg, ss), *pre = pq_k_lengths(a, pg, 0);
    unsigned long long ns = r->delta[ss].total, np = r->delta[0].total;
    pq_k_piece(ns, t, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) {
        if (suf[i] < 0) pq_katomic_min_u64(&r->first_negative, i);
        s0 += (uint32_t)suf[i];
    }
    if (ss == 1 && np == ns) {
        pq_k_piece(np, t, &lo, &hi);
        for (uint32_t i = lo; i < hi; i++) {
            long long p = pre[i], prev = i ? pq_k_dba_len(pre, suf, i - 1) : 0, v = pq_k_dba_len(pre, suf, i);
            if (p < 0 || p > prev) pq_katomic_min_u64(&r->first_prefix, i);
            if (pg->op == PQ_KOP_DELTA_FLBA && v != (long long)a->width) pq_katomic_min_u64(&r->first_width, i);
            s1 += (unsigned long long)v;
        }
    }
    *pq_k_slot(t, t.thread, 0) = s0;
    *pq_k_slot(t, t.thread, 1) = s1;
}

/* lprefix (thread 0): the slots scanned; the page's data bytes kept (the
 * finish phase clears them on a failure). */
PQ_HD static inline void pq_k_lengths_prefix(const pq_kpage *pg, pq_kresult *r, pq_kthread t)
{
    unsigned long long s0 = pq_k_scan_slots(t, 0), s1 = pq_k_scan_slots(t, 1);
    r->string_bytes = pg->op == PQ_KOP_DELTA_LENGTH ? s0 : s1;
}

/* lends (every thread): the running totals of its piece: the (suffix)
 * values' ends, checked against the bytes present (before the first
 * negative length), and DELTA_BYTE_ARRAY's values' ends, checked against
 * int32 (before the first bad prefix); BYTE_ARRAY ends into the offsets,
 * relative to the page. */
PQ_HD static inline void pq_k_lengths_ends(const pq_kargs *a, const pq_kpage *pg, pq_kresult *r, pq_kthread t)
{
    uint32_t lo, hi, ss = pq_k_suffix_stream(pg);
    const int32_t *suf = pq_k_lengths(a, pg, ss), *pre = pq_k_lengths(a, pg, 0);
    int32_t *ends = a->offsets + pg->value_offset; /* ends[i + 1]: value i's */
    unsigned long long ns = r->delta[ss].total, np = r->delta[0].total, avail = pq_k_suffix_avail(pg, r);
    unsigned long long run = *pq_k_slot(t, t.thread, 0);
    pq_k_piece(ns, t, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) {
        run += (uint32_t)suf[i];
        if (pg->op == PQ_KOP_DELTA_LENGTH) ends[i + 1] = (int32_t)run;
        if (run > avail && i < r->first_negative) {
            pq_katomic_min_u64(&r->first_beyond, i);
            break;
        }
    }
    if (ss == 1 && np == ns) {
        run = *pq_k_slot(t, t.thread, 1);
        pq_k_piece(np, t, &lo, &hi);
        for (uint32_t i = lo; i < hi; i++) {
            run += (unsigned long long)pq_k_dba_len(pre, suf, i);
            if (pg->op == PQ_KOP_DELTA_BYTES) ends[i + 1] = (int32_t)run;
            if (run > 0x7fffffffull && i < r->first_prefix) {
                pq_katomic_min_u64(&r->first_overflow, i);
                break;
            }
        }
    }
}

/* DELTA_BYTE_ARRAY's n values into out: value i is the first pre[i] bytes
 * of value i - 1, then the suf[i] bytes of its suffix (the suffixes lie
 * back to back at sdata). Value i starts at ends[i] (ends[0] taken as 0:
 * the previous page's), or at i * width without ends (FLBA). Each value
 * needs the one before it, so one thread runs this, value after value: the
 * block's thread 0. The lengths were checked (the prefix against the value
 * before, the suffixes against the bytes present). */
PQ_HD static inline void pq_k_dba_copy(const int32_t *pre, const int32_t *suf, unsigned long long n,
                                       const uint8_t *sdata, uint8_t *out, const int32_t *ends, uint32_t width)
{
    size_t prev = 0, s = 0;
    for (unsigned long long i = 0; i < n; i++) {
        size_t start = ends ? (i ? (size_t)ends[i] : 0) : (size_t)i * width;
        size_t p = (size_t)pre[i], l = (size_t)suf[i];
        if (p) memcpy(out + start, out + prev, p); /* disjoint: the previous value ends at start */
        if (l) memcpy(out + start + p, sdata + s, l);
        s += l;
        prev = start;
    }
}

/* finish (thread 0): the first failure in delta.c's order (the suffix
 * lengths' checks, the stream counts, the prefix checks, the page's value
 * count, FLBA widths); where the bytes start; FLBA values copied. */
PQ_HD static inline void pq_k_lengths_finish(const pq_kargs *a, const pq_kpage *pg, pq_kresult *r)
{
    pq_kerror *e = &r->val;
    uint32_t ss = pq_k_suffix_stream(pg);
    const int32_t *suf = pq_k_lengths(a, pg, ss), *pre = pq_k_lengths(a, pg, 0);
    unsigned long long ns = r->delta[ss].total, np = r->delta[0].total;
    /* first_beyond is only looked for before first_negative: when set, it
     * is the first failure (delta.c checks the sign first, at each value) */
    if (r->first_beyond != PQ_KNONE) {
        unsigned long long need = 0;
        for (unsigned long long i = 0; i <= r->first_beyond; i++) need += (uint32_t)suf[i];
        pq_k_fail(e, PQ_KF_LEN_BEYOND, pq_k_suffix_avail(pg, r), need, r->first_beyond);
    } else if (r->first_negative != PQ_KNONE) {
        pq_k_fail(e, PQ_KF_LEN_NEGATIVE, 0, (unsigned long long)(long long)suf[r->first_negative],
                  r->first_negative);
    } else if (ss == 1 && np != ns) {
        pq_k_fail(e, PQ_KF_PREFIX_COUNTS, 0, np, ns);
    } else if (ss == 1 && r->first_overflow != PQ_KNONE) { /* before first_prefix, likewise */
        pq_k_fail(e, PQ_KF_DBA_OVERFLOW, 0, 0, r->first_overflow);
    } else if (ss == 1 && r->first_prefix != PQ_KNONE) {
        unsigned long long i = r->first_prefix;
        pq_k_fail(e, PQ_KF_PREFIX_BAD, i ? (unsigned long long)pq_k_dba_len(pre, suf, (uint32_t)i - 1) : 0,
                  (unsigned long long)(long long)pre[i], i);
    } else if (np != pg->n_values) {
        pq_k_fail(e, PQ_KF_DELTA_COUNT, 0, np, 0);
    } else if (r->first_width != PQ_KNONE) {
        unsigned long long i = r->first_width;
        pq_k_fail(e, PQ_KF_FLBA_WIDTH, 0, (unsigned long long)pq_k_dba_len(pre, suf, (uint32_t)i), i);
    }
    if (e->fail != PQ_KF_NONE) {
        r->string_bytes = 0;
        return;
    }
    const pq_kdelta *d = &r->delta[ss];
    r->data_at = d->at + d->consumed;
    if (pg->op == PQ_KOP_DELTA_FLBA) {
        r->string_bytes = 0;
        pq_k_dba_copy(pre, suf, np, a->bytes + pg->val_at + r->data_at,
                      a->values + (size_t)pg->value_offset * a->width, NULL, a->width);
    }
}

#endif /* PQ_KERNELS_K_DELTA_H */
