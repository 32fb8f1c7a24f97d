/*
 * prune_member.h — the shape shared by the dictionary and bloom-filter
 * steps of the select stage: for = and IN, a per-chunk index that says
 * whether the chunk may hold a value (its dictionary page, its bloom
 * filter). A row group whose index holds none of a node's literals holds
 * no row where that node is true; each node is judged together with the
 * statistics (unless they are disabled), and pq_prune_tree combines them.
 */
#ifndef PQ_READER_PRUNE_MEMBER_H
#define PQ_READER_PRUNE_MEMBER_H

#include "predicate/judge_stats.h"
#include "reader/prune.h"

/* One kind of index. Each is loaded at most once per row group and leaf,
 * when a node first asks, into a zeroed slot of `slot_size` bytes. */
typedef struct pq_member_index {
    size_t slot_size;
    /* Whether the index can answer for node n (its type, its encoding). */
    bool (*applies)(const pq_expr *n);
    /* Read and decode leaf `leaf`'s index in file row group `rg` into slot;
     * false when there is none or it is unusable (the loader counts a
     * warning in *counts for one that cannot be read or is malformed). */
    bool (*load)(const pq_prune_input *in, uint32_t rg, int32_t leaf, void *slot, pq_prune_counts *counts);
    /* Whether the chunk may hold literal `v` of node n. */
    bool (*may_hold)(const void *slot, const pq_expr *n, const pq_value *v);
    /* Free what load() put in the slot. */
    void (*release)(void *slot);
} pq_member_index;

/* The truth values in->filter may take over file row group `rg`, judging
 * each = and IN node by its chunk's index of kind `kind` (and every node by
 * the statistics unless with_statistics is false). */
pq_maybe pq_prune_by_members(const pq_prune_input *in, uint32_t rg, bool with_statistics,
                             const pq_member_index *kind, pq_prune_counts *counts);

#endif
