/*
 * k_nest.h — the nesting kernels: a leaf's repetition and definition
 * levels into the validity bitmap and list offsets of every Arrow level on
 * its path (structs and lists, any depth), as kernels/assemble.c computes
 * them one entry at a time.
 *
 * Why it parallelises: in pq_assemble, entry k (levels d, r) opens a slot
 * at level i exactly when i is below the list r continues (r <= the lists
 * above level i) and the parent slot holds it (d >= exist[i], the def at
 * which a slot of level i exists). So a level's slots are the entries that
 * open one there, in order: slot s of level i is the s-th such entry, and a
 * list slot's offset is the number of next-level slots opened by the
 * entries before it. Both are counts, taken per block, summed across
 * blocks by the host and within a block by a block scan (k_block.h).
 *
 * The checks of pq_assemble need no running state either: for entries
 * that passed, the lists open after entry k-1 are those with list_def <=
 * d[k-1], so entry k may continue list r (r > 0) exactly when k > 0 and
 * list_def[r - 1] <= min(d[k-1], d[k]). The first entry that fails a check
 * is found with an atomic minimum, and the host words the error.
 *
 * Two kernels (phase lists in k_arrow_build.h), launched once per level,
 * block b over entries [b * tile, (b + 1) * tile):
 *   PQ_KN_COUNT  the slots the block opens at the level and how many are
 *                defined (counts[2b], counts[2b + 1]); with `check`, every
 *                entry checked;
 *   PQ_KN_FILL   the level's validity bits (atomic OR into 32-bit words:
 *                neighbouring slots belong to other threads and blocks)
 *                and, for a list, its offsets, the last one included.
 */
#ifndef PQ_KERNELS_K_NEST_H
#define PQ_KERNELS_K_NEST_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/k_block.h"
#include "kernels/k_types.h"

/* *p |= v (a CUDA atomic on the device; exact on the host, whose launcher
 * runs one thread at a time). */
PQ_HD static inline void pq_katomic_or_u32(unsigned int *p, unsigned int v)
{
#ifdef __CUDA_ARCH__
    atomicOr(p, v);
#else
    *p |= v;
#endif
}

typedef struct pq_knest_args {
    unsigned long long n;      /* level entries */
    uint32_t tile;             /* entries a block */
    int16_t max_def, max_rep;
    int16_t def_fill;          /* the definition level of every entry when def is NULL */
    uint16_t pad0;
    const int16_t *def, *rep;  /* NULL: every entry def_fill / 0 */
    /* The level of the launch: a slot exists when d >= exist, is opened
     * only by entries with r <= lists_above, is defined when d >= def_at. */
    int16_t exist, lists_above, def_at;
    uint8_t is_list;           /* FILL: offsets into the next level */
    uint8_t check;             /* COUNT: check every entry */
    int16_t next_exist, next_lists_above;
    uint16_t pad;
    const int16_t *list_def;   /* check: list_def[r - 1] of the list with list_rep r (max_rep entries) */
    unsigned long long *bad;   /* check: the first failing entry (stays PQ_KNONE when none) */
    unsigned long long *counts;                   /* COUNT: out, two a block */
    const unsigned long long *first, *next_first; /* FILL: slots opened before each block, here and below */
    unsigned long long count, next_count;         /* FILL: slots here and below */
    unsigned int *validity;    /* FILL: (count + 31) / 32 words, zeroed */
    int32_t *offsets;          /* FILL, lists: count + 1 entries */
} pq_knest_args;

PQ_HD static inline int pq_kn_def(const pq_knest_args *a, unsigned long long k)
{
    return a->def ? a->def[k] : a->def_fill;
}

PQ_HD static inline int pq_kn_rep(const pq_knest_args *a, unsigned long long k)
{
    return a->rep ? a->rep[k] : 0;
}

/* Whether an entry opens a slot at a level (exist, lists_above). */
PQ_HD static inline bool pq_kn_opens(int d, int r, int exist, int lists_above)
{
    return r <= lists_above && d >= exist;
}

/* Whether entry k breaks a rule of pq_assemble (see above). */
PQ_HD static inline bool pq_kn_bad(const pq_knest_args *a, unsigned long long k)
{
    int d = pq_kn_def(a, k), r = pq_kn_rep(a, k);
    if (d < 0 || d > a->max_def || r < 0 || r > a->max_rep) return true;
    if (r == 0) return false;
    if (k == 0) return true;
    int prev = pq_kn_def(a, k - 1), low = prev < d ? prev : d;
    return low < a->list_def[r - 1];
}

/* Thread t's entries of its block: [*lo, *hi). */
PQ_HD static inline void pq_kn_piece(const pq_knest_args *a, pq_kthread t, unsigned long long *lo,
                                     unsigned long long *hi)
{
    unsigned long long b0 = (unsigned long long)t.block * a->tile, left = a->n > b0 ? a->n - b0 : 0;
    uint32_t l, h;
    pq_k_piece(left < a->tile ? left : a->tile, t, &l, &h);
    *lo = b0 + l;
    *hi = b0 + h;
}

/* COUNT phase 1 (every thread): its entries' slots and defined slots into
 * its two shared slots; failing entries offered to the minimum. */
PQ_HD static inline void pq_kn_count_piece(const void *args, pq_kthread t)
{
    const pq_knest_args *a = (const pq_knest_args *)args;
    unsigned long long lo, hi, opened = 0, defined = 0;
    pq_kn_piece(a, t, &lo, &hi);
    for (unsigned long long k = lo; k < hi; k++) {
        if (a->check && pq_kn_bad(a, k)) {
            pq_katomic_min_u64(a->bad, k);
            break; /* later entries of the piece cannot come first */
        }
        int d = pq_kn_def(a, k);
        if (!pq_kn_opens(d, pq_kn_rep(a, k), a->exist, a->lists_above)) continue;
        opened++;
        defined += d >= a->def_at;
    }
    *pq_k_slot(t, t.thread, 0) = opened;
    *pq_k_slot(t, t.thread, 1) = defined;
}

/* COUNT phase 2 (thread 0): the block's totals. */
PQ_HD static inline void pq_kn_count_sum(const void *args, pq_kthread t)
{
    const pq_knest_args *a = (const pq_knest_args *)args;
    if (t.thread != 0) return;
    a->counts[2 * (unsigned long long)t.block] = pq_k_scan_slots(t, 0);
    a->counts[2 * (unsigned long long)t.block + 1] = pq_k_scan_slots(t, 1);
}

/* FILL phase 1 (every thread): its entries' slots here and, for a list,
 * at the next level. */
PQ_HD static inline void pq_kn_fill_count(const void *args, pq_kthread t)
{
    const pq_knest_args *a = (const pq_knest_args *)args;
    unsigned long long lo, hi, here = 0, below = 0;
    pq_kn_piece(a, t, &lo, &hi);
    for (unsigned long long k = lo; k < hi; k++) {
        int d = pq_kn_def(a, k), r = pq_kn_rep(a, k);
        here += pq_kn_opens(d, r, a->exist, a->lists_above);
        if (a->is_list) below += pq_kn_opens(d, r, a->next_exist, a->next_lists_above);
    }
    *pq_k_slot(t, t.thread, 0) = here;
    *pq_k_slot(t, t.thread, 1) = below;
}

/* FILL phase 2 (thread 0): both counts scanned into starts. */
PQ_HD static inline void pq_kn_fill_scan(const void *args, pq_kthread t)
{
    (void)args;
    if (t.thread != 0) return;
    (void)pq_k_scan_slots(t, 0);
    (void)pq_k_scan_slots(t, 1);
}

/* FILL phase 3 (every thread): its slots' bits and offsets. */
PQ_HD static inline void pq_kn_fill_write(const void *args, pq_kthread t)
{
    const pq_knest_args *a = (const pq_knest_args *)args;
    unsigned long long lo, hi;
    pq_kn_piece(a, t, &lo, &hi);
    unsigned long long s = a->first[t.block] + *pq_k_slot(t, t.thread, 0);
    unsigned long long below = a->is_list ? a->next_first[t.block] + *pq_k_slot(t, t.thread, 1) : 0;
    for (unsigned long long k = lo; k < hi; k++) {
        int d = pq_kn_def(a, k), r = pq_kn_rep(a, k);
        if (pq_kn_opens(d, r, a->exist, a->lists_above)) {
            if (d >= a->def_at) pq_katomic_or_u32(&a->validity[s / 32], 1u << (s % 32));
            if (a->is_list) a->offsets[s] = (int32_t)below;
            s++;
        }
        if (a->is_list) below += pq_kn_opens(d, r, a->next_exist, a->next_lists_above);
    }
    if (a->is_list && t.block + 1 == t.nblocks && t.thread == 0) a->offsets[a->count] = (int32_t)a->next_count;
}

#endif /* PQ_KERNELS_K_NEST_H */
