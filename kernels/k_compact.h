/*
 * k_compact.h — the compaction kernels of selection-vector decode on the
 * device: a chunk of a required flat column decoded whole (every value of
 * each page that holds a selected row), then its selected rows kept, in
 * order, at the output offsets the plan gives them (device/rows.c).
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
 * String views (`views`) follow the CPU executor's layout of buffer 0, a
 * page's bytes at its string offset: a PLAIN page's selected strings are
 * copied there and their views made anew (what it selects is all it
 * keeps); a page of another encoding keeps its whole bytes, each thread
 * moving a slice, and its selected views' offsets move with them; views of
 * a dictionary-encoded page point into the dictionary (buffer 1) and are
 * copied as they are.
 */
#ifndef PQ_KERNELS_K_COMPACT_H
#define PQ_KERNELS_K_COMPACT_H

#include <stdint.h>
#include <string.h>

#include "kernels/k_block.h"
#include "kernels/k_launch.h"
#include "kernels/primitives.h"

/* What happens to the string bytes of a page of string views (as the CPU
 * executor does it, pages/page_values.c): */
typedef enum pq_kc_views_mode {
    PQ_KC_VIEWS_KEEP = 0, /* dictionary-encoded: views into the dictionary, kept as they are */
    PQ_KC_VIEWS_COPY = 1, /* PLAIN: the selected strings copied out, the views made anew */
    PQ_KC_VIEWS_MOVE = 2  /* other encodings: the page's whole bytes moved to string_at, the
                           * selected views' offsets moved with them */
} pq_kc_views_mode;

/* A page of the compaction. */
typedef struct pq_kcpage {
    unsigned long long full_at;   /* its first value in the whole decode */
    unsigned long long n;         /* its values there (its rows) */
    unsigned long long row0;      /* the chunk row of its first value */
    unsigned long long out_at;    /* its first selected value in the output */
    unsigned long long string_at; /* byte arrays, views: its first byte in the output data */
    unsigned long long src_at;    /* views, MOVE: its bytes in the whole decode's buffer 0 ... */
    unsigned long long src_bytes; /* ... and how many */
    uint32_t views_mode;          /* views: a pq_kc_views_mode */
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
    uint32_t views;              /* 1: string views (width 16), their bytes as views_mode says */
    const uint8_t *in_values;    /* fixed width: the whole decode's values (views: its views) */
    const int32_t *in_offsets;   /* byte arrays: its offsets and data (views: buffer 0) */
    const uint8_t *in_data;
    const uint8_t *in_dict;      /* views: the whole decode's buffer 1 (the dictionary's bytes) */
    uint8_t *out_values;
    int32_t *out_offsets;        /* byte arrays: entry out_at + j + 1 is value j's end */
    uint8_t *out_data;           /* byte arrays: the data; views: buffer 0 */
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

/* The length of string view v, and where its bytes are. */
PQ_HD static inline const uint8_t *pq_kc_view_bytes(const pq_kcompact_args *a, const uint8_t *v, uint32_t *len)
{
    uint32_t buf, off;
    memcpy(len, v, 4);
    if (*len <= 12) return v + 4;
    memcpy(&buf, v + 8, 4);
    memcpy(&off, v + 12, 4);
    return (buf ? a->in_dict : a->in_data) + off;
}

/* Bytes a selected value of page pg puts in the output data. */
PQ_HD static inline unsigned long long pq_kc_value_bytes(const pq_kcompact_args *a, const pq_kcpage *pg,
                                                         unsigned long long i)
{
    if (a->width == 0) return pq_kc_len(a, i);
    if (a->views && pg->views_mode == PQ_KC_VIEWS_COPY) {
        uint32_t len;
        (void)pq_kc_view_bytes(a, a->in_values + i * 16, &len);
        return len;
    }
    return 0;
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
        bytes += pq_kc_value_bytes(a, pg, pg->full_at + k);
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
        if (a->views) {
            const uint8_t *v = a->in_values + i * 16;
            uint8_t *o = a->out_values + j * 16;
            uint32_t len, buf, off;
            const uint8_t *bytes = pq_kc_view_bytes(a, v, &len);
            if (pg->views_mode == PQ_KC_VIEWS_COPY) {
                if (len) memcpy(a->out_data + at, bytes, len);
                pq_view_make(o, a->out_data + at, len, 0, (uint32_t)at);
                at += len;
            } else {
                memcpy(o, v, 16);
                memcpy(&buf, v + 8, 4);
                if (pg->views_mode == PQ_KC_VIEWS_MOVE && len > 12 && buf == 0) { /* into the page's bytes */
                    memcpy(&off, v + 12, 4);
                    off += (uint32_t)(pg->string_at - pg->src_at);
                    memcpy(o + 12, &off, 4);
                }
            }
        } else if (w) {
            memcpy(a->out_values + j * w, a->in_values + i * w, w);
        } else {
            unsigned long long len = pq_kc_len(a, i);
            if (len) memcpy(a->out_data + at, a->in_data + a->in_offsets[i], (size_t)len);
            at += len;
            a->out_offsets[j + 1] = (int32_t)at; /* the host checked the total fits int32 */
        }
        j++;
    }
    if (a->views && pg->views_mode == PQ_KC_VIEWS_MOVE) { /* the page's whole bytes, a slice a thread */
        pq_k_piece(pg->src_bytes, t, &lo, &hi);
        if (hi > lo) memcpy(a->out_data + pg->string_at + lo, a->in_data + pg->src_at + lo, hi - lo);
    }
}

#endif /* PQ_KERNELS_K_COMPACT_H */
