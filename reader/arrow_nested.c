/*
 * arrow_nested.c — nested fields (struct, list, map) assembled from their
 * leaves' levels (kernels/assemble.h) into a tree of columns, top-down (see
 * arrow_nested.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/assemble.h"
#include "metadata/error.h"
#include "reader/arrow_column_internal.h"
#include "reader/arrow_nested.h"

/* ---------------------------------------------------------------------------
 * Nested columns: one top-level field from the levels of its leaves
 * ------------------------------------------------------------------------- */

/* One leaf under assembly: its Arrow levels (outermost first), the schema
 * node each level stands for (node * 2, + 1 for the list level of a bare
 * repeated node) and the assembled validity / offsets of every level. */
typedef struct nest_leaf {
    const pq_leaf *leaf;
    pq_column_values *v;
    size_t n_levels;
    pq_asm_level levels[PQ_ASM_MAX_LEVELS];
    int64_t keys[PQ_ASM_MAX_LEVELS];
    pq_asm_out out[PQ_ASM_MAX_LEVELS];
} nest_leaf;

static void nest_leaf_free(nest_leaf *l)
{
    for (size_t k = 0; k < l->n_levels; k++) {
        free(l->out[k].validity);
        free(l->out[k].offsets);
    }
}

static int32_t node_repetition(const pq_schema_node *n)
{
    return n->element ? n->element->repetition : PQ_REQUIRED;
}

/* The repeated child of a LIST group that is only structure (schema.c). */
static bool node_structural(const pq_schema *s, const pq_schema_node *c)
{
    if (c->arrow.id != PQ_ARROW_LIST || c->num_children != 1) return false;
    int32_t k = c->children[0];
    return k > 0 && (uint32_t)k < s->nodes_len && node_repetition(&s->nodes[k]) != PQ_REPEATED;
}

/* Levels and keys of the path from top-level field node `field` to l->leaf. */
static pq_status nest_levels(const pq_schema *s, int32_t field, nest_leaf *l, pq_error *err)
{
    int32_t path[PQ_ASM_MAX_LEVELS / 2];
    pq_asm_node nodes[PQ_ASM_MAX_LEVELS / 2];
    size_t np = 0;
    for (int32_t j = l->leaf->node; ; j = s->nodes[j].parent) {
        if (j <= 0 || (uint32_t)j >= s->nodes_len || np == PQ_ASM_MAX_LEVELS / 2)
            return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': bad schema path", l->leaf->path);
        path[np++] = j;
        if (j == field) break;
    }
    for (size_t a = 0, b = np - 1; a < b; a++, b--) {
        int32_t t = path[a];
        path[a] = path[b];
        path[b] = t;
    }
    size_t nk = 0;
    for (size_t j = 0; j < np; j++) {
        const pq_schema_node *n = &s->nodes[path[j]];
        int32_t rep = node_repetition(n);
        bool under_list = j > 0 && nodes[j - 1].kind == PQ_ASM_LIST;
        nodes[j].repetition = rep;
        if (n->leaf_index >= 0) nodes[j].kind = PQ_ASM_LEAF;
        else if (rep == PQ_REPEATED && under_list && node_structural(s, n)) nodes[j].kind = PQ_ASM_WRAPPER;
        else if ((rep != PQ_REPEATED || under_list) &&
                 (n->arrow.id == PQ_ARROW_LIST || n->arrow.id == PQ_ARROW_MAP))
            nodes[j].kind = PQ_ASM_LIST; /* under a list: a legacy element that is a list */
        else nodes[j].kind = PQ_ASM_STRUCT;
        if (nodes[j].kind == PQ_ASM_WRAPPER) continue;
        if (rep == PQ_REPEATED && !under_list) l->keys[nk++] = (int64_t)path[j] * 2 + 1;
        l->keys[nk++] = (int64_t)path[j] * 2;
    }
    pq_status st = pq_asm_levels_from_path(nodes, np, l->levels, PQ_ASM_MAX_LEVELS, &l->n_levels, err);
    if (st != PQ_OK) return st;
    if (l->n_levels != nk)
        return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': %zu levels, expected %zu", l->leaf->path,
                            l->n_levels, nk);
    return PQ_OK;
}

/* Assemble the leaf's levels into every level's validity and offsets. */
static pq_status nest_assemble(nest_leaf *l, int64_t num_rows, pq_error *err)
{
    size_t n = l->v->n_levels;
    for (size_t k = 0; k < l->n_levels; k++) {
        l->out[k].cap = n;
        l->out[k].validity = calloc((n + 7) / 8 + 1, 1);
        if (l->levels[k].kind == PQ_ASM_LIST) l->out[k].offsets = malloc((n + 1) * sizeof(int32_t));
        if (!l->out[k].validity || (l->levels[k].kind == PQ_ASM_LIST && !l->out[k].offsets))
            return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", l->leaf->path);
    }
    pq_asm_result res;
    pq_status st = pq_assemble(l->levels, l->n_levels, l->v->def_levels, l->v->rep_levels, n, SIZE_MAX,
                               l->out, &res, err);
    if (st != PQ_OK) return st;
    if (res.levels_used != n || res.values != l->v->n_values || num_rows < 0 ||
        res.records != (uint64_t)num_rows)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "column '%s': %zu records and %zu values assembled, expected %lld and %zu",
                            l->leaf->path, res.records, res.values, (long long)num_rows,
                            l->v->n_values);
    return PQ_OK;
}

/* The leaf's values scattered into its slots, by the flat code. */
static pq_status nest_leaf_array(nest_leaf *l, size_t k, pq_arrow_column **out, pq_error *err)
{
    size_t count = l->out[k].count;
    int16_t *def = malloc((count ? count : 1) * sizeof *def);
    if (!def) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", l->leaf->path);
    for (size_t i = 0; i < count; i++) def[i] = bit_get(l->out[k].validity, i) ? l->leaf->max_def : 0;
    pq_column_values t = *l->v;
    t.n_levels = count;
    t.def_levels = def;
    t.rep_levels = NULL;
    pq_status st = pq_arrow_column_build(l->leaf, &t, out, err);
    l->v->values = t.values; /* what the build took is gone from v too */
    l->v->offsets = t.offsets;
    l->v->data = t.data;
    free(def);
    return st;
}

/* The list levels whose keys are in wide[0..nwide) get 64-bit offsets
 * (large_list). */
typedef struct nest_wide {
    const int64_t *keys;
    size_t n;
} nest_wide;

static bool is_wide(const nest_wide *w, int64_t key)
{
    for (size_t i = 0; w && i < w->n; i++)
        if (w->keys[i] == key) return true;
    return false;
}

/* A list column's int32 offsets (count + 1, checked non-decreasing from 0
 * by the assembly) replaced by int64 ones: a large_list. */
static bool widen_offsets(pq_arrow_column *c, size_t count)
{
    const int32_t *o = c->buffers[1];
    int64_t *w = malloc((count + 1) * sizeof *w);
    if (!w) return false;
    for (size_t i = 0; i <= count; i++) w[i] = o[i];
    free(c->owned[1]);
    c->owned[1] = w;
    c->buffers[1] = w;
    c->nbytes += (count + 1) * sizeof(int32_t);
    c->layout = LAYOUT_LARGE_LIST;
    return true;
}

static pq_status nest_build(nest_leaf **ls, size_t nl, size_t k, const nest_wide *wide, pq_arrow_column **out,
                            pq_error *err)
{
    *out = NULL;
    nest_leaf *f = ls[0];
    const pq_asm_level *lv = &f->levels[k];
    size_t count = f->out[k].count;
    for (size_t i = 0; i < nl; i++) {
        const pq_asm_out *o = &ls[i]->out[k];
        bool same = ls[i]->n_levels > k && ls[i]->keys[k] == f->keys[k] &&
                    ls[i]->levels[k].kind == lv->kind && o->count == count;
        for (size_t s = 0; same && s < count; s++)
            same = bit_get(o->validity, s) == bit_get(f->out[k].validity, s);
        if (same && lv->kind == PQ_ASM_LIST)
            same = memcmp(o->offsets, f->out[k].offsets, (count + 1) * sizeof(int32_t)) == 0;
        if (!same)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "columns '%s' and '%s' disagree on their nesting",
                                f->leaf->path, ls[i]->leaf->path);
    }
    if (lv->kind == PQ_ASM_LEAF) {
        if (nl != 1 || k + 1 != f->n_levels)
            return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': bad leaf level", f->leaf->path);
        return nest_leaf_array(f, k, out, err);
    }
    for (size_t i = 0; i < nl; i++)
        if (ls[i]->n_levels <= k + 1)
            return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': bad nesting", ls[i]->leaf->path);

    pq_arrow_column *c = column_new((int64_t)count);
    if (!c) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", f->leaf->path);
    c->null_count = (int64_t)f->out[k].nulls;
    if (f->out[k].nulls) {
        c->owned[0] = f->out[k].validity;
        c->buffers[0] = f->out[k].validity;
        c->nbytes += (count + 7) / 8;
        f->out[k].validity = NULL;
    }
    /* Children: runs of leaves that share the next level's node. */
    size_t runs = 0;
    for (size_t i = 0; i < nl; i++) runs += i == 0 || ls[i]->keys[k + 1] != ls[i - 1]->keys[k + 1];
    c->children = calloc(runs, sizeof *c->children);
    if (!c->children) {
        pq_arrow_column_release(c);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", f->leaf->path);
    }
    pq_status st = PQ_OK;
    if (lv->kind == PQ_ASM_LIST) {
        c->layout = LAYOUT_LIST;
        c->n_buffers = 2;
        c->owned[1] = f->out[k].offsets;
        c->buffers[1] = f->out[k].offsets;
        c->nbytes += (count + 1) * sizeof(int32_t);
        f->out[k].offsets = NULL;
        if (runs != 1)
            st = pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': a list with %zu elements", f->leaf->path,
                              runs);
        else if ((st = nest_build(ls, nl, k + 1, wide, &c->children[0], err)) == PQ_OK) {
            c->n_children = 1;
            const int32_t *off = c->buffers[1];
            if (off[count] < 0 || off[count] != c->children[0]->length)
                st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': list offsets end at %d of %lld",
                                  f->leaf->path, off[count], (long long)c->children[0]->length);
            else if (is_wide(wide, f->keys[k]) && !widen_offsets(c, count))
                st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", f->leaf->path);
        }
    } else {
        c->layout = LAYOUT_STRUCT;
        c->n_buffers = 1;
        for (size_t i = 0, start = 0; st == PQ_OK && i <= nl; i++) {
            if (i > start && (i == nl || ls[i]->keys[k + 1] != ls[start]->keys[k + 1])) {
                st = nest_build(ls + start, i - start, k + 1, wide, &c->children[c->n_children], err);
                if (st == PQ_OK && c->children[c->n_children]->length != (int64_t)count)
                    st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "column '%s': struct child of %lld slots, not %zu",
                                      ls[start]->leaf->path,
                                      (long long)c->children[c->n_children]->length, count);
                if (c->children[c->n_children]) c->n_children++;
                start = i;
            }
        }
    }
    if (st != PQ_OK) {
        pq_arrow_column_release(c);
        return st;
    }
    *out = c;
    return PQ_OK;
}

pq_status pq_arrow_leaf_levels(const pq_schema *schema, int32_t field, const pq_leaf *leaf, pq_asm_level *levels,
                               int64_t *keys, size_t *n_levels, pq_error *err)
{
    *n_levels = 0;
    nest_leaf *l = calloc(1, sizeof *l);
    if (!l) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column '%s'", leaf->path);
    l->leaf = leaf;
    pq_status st = nest_levels(schema, field, l, err);
    if (st == PQ_OK) {
        memcpy(levels, l->levels, l->n_levels * sizeof *levels);
        if (keys) memcpy(keys, l->keys, l->n_levels * sizeof *keys);
        *n_levels = l->n_levels;
    }
    free(l);
    return st;
}

pq_status pq_arrow_nested_build(const pq_schema *schema, int32_t field, const pq_leaf *const *leaves,
                                pq_column_values *vals, size_t n, int64_t num_rows, pq_arrow_column **out,
                                pq_error *err)
{
    return pq_arrow_nested_build_wide(schema, field, leaves, vals, n, num_rows, NULL, 0, out, err);
}

pq_status pq_arrow_nested_build_wide(const pq_schema *schema, int32_t field, const pq_leaf *const *leaves,
                                     pq_column_values *vals, size_t n, int64_t num_rows, const int64_t *large_lists,
                                     size_t n_large_lists, pq_arrow_column **out, pq_error *err)
{
    nest_wide wide = {large_lists, n_large_lists};
    *out = NULL;
    if (n == 0) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "a field without columns");
    nest_leaf *ls = calloc(n, sizeof *ls);
    nest_leaf **ptrs = calloc(n, sizeof *ptrs);
    pq_status st = PQ_OK;
    if (!ls || !ptrs) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory assembling nested columns");
    for (size_t i = 0; st == PQ_OK && i < n; i++) {
        ls[i].leaf = leaves[i];
        ls[i].v = &vals[i];
        /* Assembly walks the levels: store them if the decoder left them out. */
        if (pq_column_values_definition_levels(&vals[i], leaves[i]->max_def) != PQ_OK) {
            st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory assembling nested columns");
            break;
        }
        ptrs[i] = &ls[i];
        st = nest_levels(schema, field, &ls[i], err);
        if (st == PQ_OK) st = nest_assemble(&ls[i], num_rows, err);
    }
    if (st == PQ_OK) st = nest_build(ptrs, n, 0, &wide, out, err);
    for (size_t i = 0; ls && i < n; i++) nest_leaf_free(&ls[i]);
    free(ls);
    free(ptrs);
    return st;
}
