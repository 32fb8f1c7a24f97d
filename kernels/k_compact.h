/*
 * k_compact.h — the compaction kernels of selection-vector decode on the
 * device: a chunk of a required flat column decoded whole (every value of
 * each page that holds a selected row), then its selected rows kept, in
 * order, at the output offsets the plan gives them (pages/device_rows.c).
 *
 * One block per page, as the decode kernels: block b reads pages[b] and
 * writes results[b] and the page's slice of the output. A page's values
 * are rows row0, row0 + 1, ... of the chunk; row r is selected when
 * first <= r < first + count and bit r - first of `keep` is set (LSB
 * first), pq_decode_rows' rule.
 *
 * Two kernels (phase lists in k_arrow_build.h):
 *   PQ_KC_COUNT  each page's selected values and, for byte arrays, their
 *                bytes, into results[b] (the host checks the count against
 *                the plan and sums the bytes into string offsets);
 *   PQ_KC_WRITE  the selected values written: thread pieces counted, the
 *                block scan turns the counts (and bytes) into each piece's
 *                first output value (and byte), then every thread copies its
 *                selected values: `width` bytes each, or a byte array's bytes
 *                and its end in the output offsets (absolute: the page's
 *                string offset plus the bytes before).
 */
#ifndef PQ_KERNELS_K_COMPACT_H
#define PQ_KERNELS_K_COMPACT_H

#include <stdint.h>
#include <string.h>

#include "kernels/k_block.h"
#include "kernels/k_launch.h"

/* A page of the compaction. */
typedef struct pq_kcpage {
    unsigned long long full_at;   /* its first value in the whole decode */
    unsigned long long n;         /* its values there (its rows) */
    unsigned long long row0;      /* the chunk row of its first value */
    unsigned long long out_at;    /* its first selected value in the output */
    unsigned long long string_at; /* byte arrays: its first selected byte in the output data */
} pq_kcpage;

/* What PQ_KC_COUNT found in a page. */
typedef struct pq_kcresult {
    unsigned long long selected, bytes;
} pq_kcresult;

/* A launch's arguments (passed by value to a __global__ function). */
typedef struct pq_kcompact_args {
    const pq_kcpage *pages;
    pq_kcresult *results;
    uint32_t npages;
    uint32_t width;              /* fixed width: bytes a value; 0: byte arrays */
    const uint8_t *keep;         /* the selection's bits */
    unsigned long long first, count;
    const uint8_t *in_values;    /* fixed width: the whole decode's values */
    const int32_t *in_offsets;   /* byte arrays: its offsets and data */
    const uint8_t *in_data;
    uint8_t *out_values;
    int32_t *out_offsets;        /* byte arrays: entry out_at + j + 1 is value j's end */
    uint8_t *out_data;
} pq_kcompact_args;

/* Whether chunk row r is selected. */
PQ_HD static inline int pq_kc_selected(const pq_kcompact_args *a, unsigned long long r)
{
    if (r < a->first || r - a->first >= a->count) return 0;
    unsigned long long i = r - a->first;
    return (a->keep[i >> 3] >> (i & 7)) & 1;
}

/* Bytes of value i (of the whole decode) of a byte-array chunk. */
PQ_HD static inline unsigned long long pq_kc_len(const pq_kcompact_args *a, unsigned long long i)
{
    return (unsigned long long)(a->in_offsets[i + 1] - a->in_offsets[i]);
}

/* Thread t's selected values of its piece into slot 0, their bytes into slot 1. */
PQ_HD static inline void pq_kc_piece_count(const void *args, pq_kthread t)
{
    const pq_kcompact_args *a = (const pq_kcompact_args *)args;
    const pq_kcpage *pg = &a->pages[t.block];
    uint32_t lo, hi;
    pq_k_piece(pg->n, t, &lo, &hi);
    unsigned long long sel = 0, bytes = 0;
    for (uint32_t k = lo; k < hi; k++) {
        if (!pq_kc_selected(a, pg->row0 + k)) continue;
        sel++;
        if (a->width == 0) bytes += pq_kc_len(a, pg->full_at + k);
    }
    *pq_k_slot(t, t.thread, 0) = sel;
    *pq_k_slot(t, t.thread, 1) = bytes;
}

/* COUNT phase 2 (thread 0): the page's totals. */
PQ_HD static inline void pq_kc_count_sum(const void *args, pq_kthread t)
{
    const pq_kcompact_args *a = (const pq_kcompact_args *)args;
    if (t.thread != 0) return;
    pq_kcresult *r = &a->results[t.block];
    r->selected = pq_k_scan_slots(t, 0);
    r->bytes = pq_k_scan_slots(t, 1);
}

/* WRITE phase 2 (thread 0): the pieces' counts and bytes into their starts. */
PQ_HD static inline void pq_kc_write_scan(const void *args, pq_kthread t)
{
    (void)args;
    if (t.thread != 0) return;
    (void)pq_k_scan_slots(t, 0);
    (void)pq_k_scan_slots(t, 1);
}

/* WRITE phase 3 (every thread): its selected values into place. */
PQ_HD static inline void pq_kc_write(const void *args, pq_kthread t)
{
    const pq_kcompact_args *a = (const pq_kcompact_args *)args;
    const pq_kcpage *pg = &a->pages[t.block];
    uint32_t lo, hi;
    pq_k_piece(pg->n, t, &lo, &hi);
    unsigned long long j = pg->out_at + *pq_k_slot(t, t.thread, 0);
    unsigned long long at = pg->string_at + *pq_k_slot(t, t.thread, 1);
    size_t w = a->width;
    for (uint32_t k = lo; k < hi; k++) {
        if (!pq_kc_selected(a, pg->row0 + k)) continue;
        unsigned long long i = pg->full_at + k;
        if (w) {
            memcpy(a->out_values + j * w, a->in_values + i * w, w);
        } else {
            unsigned long long len = pq_kc_len(a, i);
            if (len) memcpy(a->out_data + at, a->in_data + a->in_offsets[i], (size_t)len);
            at += len;
            a->out_offsets[j + 1] = (int32_t)at; /* the host checked the total fits int32 */
        }
        j++;
    }
}

#endif /* PQ_KERNELS_K_COMPACT_H */
