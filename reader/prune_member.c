/*
 * prune_member.c — see prune_member.h.
 */
#include <stdlib.h>

#include "reader/prune_member.h"

enum { NOT_TRIED = 0, LOADED, NONE };

typedef struct member_ctx {
    const pq_prune_input *in;
    pq_prune_counts *counts;
    uint32_t rg;
    bool with_statistics;
    pq_stats_ctx stats;
    const pq_member_index *kind;
    uint8_t *slots;    /* per leaf, kind->slot_size bytes each */
    uint8_t *state;    /* per leaf: NOT_TRIED, LOADED or NONE */
} member_ctx;

static void *slot_of(const member_ctx *c, int32_t leaf)
{
    return c->slots + (size_t)leaf * c->kind->slot_size;
}

static pq_maybe judge(const pq_expr *n, void *ctx)
{
    member_ctx *c = ctx;
    pq_maybe m = {true, true, true};
    if (c->with_statistics) m = pq_judge_statistics(n, &c->stats);
    if (!m.can_true || n->leaf < 0 || !c->kind->applies(n)) return m;
    if (n->variant_depth && !pq_variant_residual_empty(n, pq_metadata_file(c->in->md),
                                                       &pq_metadata_file(c->in->md)->row_groups[c->rg]))
        return m; /* rows left in a residual value are not in the typed leaf's dictionary or filter */
    bool eq = (n->kind == PQ_NODE_CMP && n->op == PQ_CMP_EQ) || n->kind == PQ_NODE_IN;
    if (!eq || n->nvalues == 0) return m;
    if (c->state[n->leaf] == NOT_TRIED)
        c->state[n->leaf] = c->kind->load(c->in, c->rg, n->leaf, slot_of(c, n->leaf), c->counts) ? LOADED : NONE;
    if (c->state[n->leaf] != LOADED) return m;
    for (size_t k = 0; k < n->nvalues; k++)
        if (c->kind->may_hold(slot_of(c, n->leaf), n, &n->values[k])) return m;
    m.can_true = false; /* the chunk holds none of the literals */
    return m;
}

pq_maybe pq_prune_by_members(const pq_prune_input *in, uint32_t rg, bool with_statistics,
                             const pq_member_index *kind, pq_prune_counts *counts)
{
    const pq_file_metadata *fm = pq_metadata_file(in->md);
    const pq_schema *schema = pq_metadata_schema(in->md);
    size_t leaves = schema->leaves_len ? schema->leaves_len : 1;
    member_ctx c = {.in = in, .counts = counts, .rg = rg, .with_statistics = with_statistics, .kind = kind};
    c.stats = (pq_stats_ctx){fm, schema, &fm->row_groups[rg]};
    c.slots = calloc(leaves, kind->slot_size);
    c.state = calloc(leaves, 1);
    pq_maybe m = {true, true, true};
    if (c.slots && c.state) m = pq_prune_tree(in->filter, judge, &c);
    for (uint32_t i = 0; c.slots && c.state && i < schema->leaves_len; i++)
        if (c.state[i] == LOADED) kind->release(slot_of(&c, (int32_t)i));
    free(c.slots);
    free(c.state);
    return m;
}
