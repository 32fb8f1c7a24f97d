/*
 * k_bytes.h — the bytes kernel: one block per byte-array page copies the
 * page's values into the chunk's data at the page's string offset, once
 * the values kernel (k_values.h) has written each value's end relative to
 * the page into the offsets and the host has summed the pages' totals.
 *
 * Phases (PQ_K_BYTES_PHASES in k_decode.h):
 *   1. copy:   every thread copies values i = thread, thread + nthreads, ...:
 *              PLAIN from the page (value i's bytes follow i + 1 lengths and
 *              the earlier values, so its source is 4 (i + 1) + its start),
 *              DELTA_LENGTH_BYTE_ARRAY from the bytes after the lengths
 *              (its source is their start + its start), dictionary-encoded
 *              from the entry its kept index names; DELTA_BYTE_ARRAY pages
 *              are copied by thread 0 alone, value after value, as each
 *              value starts with a prefix of the one before (k_delta.h);
 *   2. rebase: every thread adds the page's string offset to the ends of
 *              its values (after phase 1, which reads them as they were);
 *   3. views:  with string views out (pq_kargs.views), every thread makes
 *              the views of its values from their ends, into the chunk's
 *              data (variadic buffer 0) where phase 1 put them; pages of
 *              dictionary indices made theirs in the values kernel.
 *
 * Nothing here is checked again: the lengths were checked against the page
 * by the values kernel and the indices against the dictionary, and the
 * host launches this kernel only when that found no error.
 */
#ifndef PQ_KERNELS_K_BYTES_H
#define PQ_KERNELS_K_BYTES_H

#include <string.h>

#include "kernels/k_delta.h"
#include "kernels/k_launch.h"
#include "kernels/k_types.h"

/* Whether a page's op puts byte arrays into offsets and data. */
PQ_HD static inline int pq_k_bytes_op(uint8_t op)
{
    return op == PQ_KOP_PLAIN_BYTES || op == PQ_KOP_DICT_BYTES || op == PQ_KOP_DELTA_LENGTH ||
           op == PQ_KOP_DELTA_BYTES;
}

/* Phase 1 (every thread): its values' bytes into place. */
PQ_HD static inline void pq_k_bytes_copy(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    const pq_kresult *r = &a->results[t.block];
    if (!pq_k_bytes_op(pg->op)) return;
    const int32_t *ends = a->offsets + pg->value_offset; /* ends[i + 1]: value i's, relative */
    const uint8_t *sec = a->bytes + pg->val_at;
    uint8_t *out = a->data + pg->string_offset;
    if (pg->op == PQ_KOP_DELTA_BYTES) { /* sequential: thread 0 alone */
        if (t.thread == 0)
            pq_k_dba_copy(pq_k_lengths(a, pg, 0), pq_k_lengths(a, pg, 1), pg->n_values, sec + r->data_at, out, ends,
                          0);
        return;
    }
    for (uint32_t i = t.thread; i < pg->n_values; i += t.nthreads) {
        int32_t start = i ? ends[i] : 0, len = ends[i + 1] - start;
        const uint8_t *src = pg->op == PQ_KOP_PLAIN_BYTES    ? sec + 4 * ((size_t)i + 1) + start
                             : pg->op == PQ_KOP_DELTA_LENGTH ? sec + r->data_at + start
                                                             : a->dict_data + a->dict_offsets[a->idx[pg->idx_at + i]];
        if (len > 0) memcpy(out + start, src, (size_t)len);
    }
}

/* Phase 2 (every thread): its values' ends moved by the page's string offset. */
PQ_HD static inline void pq_k_bytes_rebase(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    if (!pq_k_bytes_op(pg->op) || pg->string_offset == 0) return;
    int32_t *ends = a->offsets + pg->value_offset;
    int32_t base = (int32_t)pg->string_offset; /* the host checked the chunk's total fits int32 */
    for (uint32_t i = t.thread; i < pg->n_values; i += t.nthreads) ends[i + 1] += base;
}

/* Phase 3 (every thread): string views out: its values' views. */
PQ_HD static inline void pq_k_bytes_views(const void *args, pq_kthread t)
{
    const pq_kargs *a = (const pq_kargs *)args;
    const pq_kpage *pg = &a->pages[t.block];
    if (!a->views || !pq_k_bytes_op(pg->op)) return;
    const int32_t *ends = a->offsets + pg->value_offset; /* rebased: where each value ends in the data */
    uint8_t *out = a->views + (size_t)pg->value_offset * 16;
    for (uint32_t i = t.thread; i < pg->n_values; i += t.nthreads) {
        /* ends[0] is the page before's, which may have made views instead */
        int32_t start = i ? ends[i] : (int32_t)pg->string_offset, len = ends[i + 1] - start;
        pq_view_make(out + (size_t)i * 16, a->data + start, (size_t)len, 0, (uint32_t)start);
    }
}

#endif /* PQ_KERNELS_K_BYTES_H */
