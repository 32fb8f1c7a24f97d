/*
 * variant_path.c — paths into VARIANT columns (variant_path.h) and the leaf
 * columns a path's projection reads (pq_variant_path_leaves).
 */
#include "metadata/variant_path.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "pq_variant.h"

int32_t pq_variant_path_column(const pq_schema *sc, const char *path, const char **rest)
{
    if (!sc || !sc->nodes_len || !path) return -1;
    const pq_schema_node *root = &sc->nodes[0];
    int32_t best = -1;
    size_t best_len = 0;
    for (int32_t k = 0; k < root->num_children; k++) {
        const pq_schema_node *n = &sc->nodes[root->children[k]];
        size_t len = strlen(n->name);
        if (n->leaf_index >= 0 || !n->element || n->element->logical.kind != PQ_LOGICAL_VARIANT) continue;
        if (strncmp(path, n->name, len) != 0 || (path[len] != '.' && path[len] != '[')) continue;
        if (best < 0 || len > best_len) {
            best = root->children[k];
            best_len = len;
        }
    }
    if (best >= 0 && rest) *rest = path + best_len;
    return best;
}

pq_status pq_variant_path_steps(const char *rest, pq_variant_step *steps, size_t cap, size_t *n, pq_error *err)
{
    size_t count = 0;
    const char *p = rest;
    while (*p) {
        if (count == cap)
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "variant path '%.64s': more than %zu steps", rest, cap);
        pq_variant_step s = {.index = -1};
        if (*p == '.') {
            p++;
            size_t len = strcspn(p, ".[");
            if (len == 0)
                return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "variant path '%.64s': an empty field name", rest);
            s.name = p;
            s.len = len;
            p += len;
        } else if (*p == '[') {
            p++;
            int64_t v = 0;
            size_t digits = 0;
            while (*p >= '0' && *p <= '9' && digits < 12) {
                v = v * 10 + (*p++ - '0');
                digits++;
            }
            if (!digits || *p != ']')
                return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                    "variant path '%.64s': an array index is [N], N a number of at most 12 digits",
                                    rest);
            p++;
            s.index = v;
        } else {
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                "variant path '%.64s': a step begins with '.' (a field) or '[' (an element)", rest);
        }
        steps[count++] = s;
    }
    *n = count;
    return PQ_OK;
}

int32_t pq_variant_schema_child(const pq_schema *sc, int32_t g, const char *name, size_t len)
{
    if (g < 0 || (uint32_t)g >= sc->nodes_len) return -1;
    const pq_schema_node *n = &sc->nodes[g];
    for (int32_t k = 0; k < n->num_children; k++) {
        const char *c = sc->nodes[n->children[k]].name;
        if (strlen(c) == len && memcmp(c, name, len) == 0) return n->children[k];
    }
    return -1;
}

/* Group node with exactly one child, which is a group: that child, or -1. */
static int32_t only_group_child(const pq_schema *sc, int32_t g)
{
    if (g < 0 || sc->nodes[g].leaf_index >= 0 || sc->nodes[g].num_children != 1) return -1;
    int32_t c = sc->nodes[g].children[0];
    return sc->nodes[c].leaf_index < 0 ? c : -1;
}

int32_t pq_variant_schema_step(const pq_schema *sc, int32_t g, const pq_variant_step *step)
{
    int32_t t = pq_variant_schema_child(sc, g, "typed_value", 11);
    if (t < 0 || sc->nodes[t].leaf_index >= 0) return -1;
    const pq_schema_node *tn = &sc->nodes[t];
    /* A LIST's three levels: typed_value (LIST) > repeated list > element. */
    bool list = tn->arrow.id == PQ_ARROW_LIST;
    int32_t next;
    if (step->index >= 0) {
        if (!list) return -1;
        int32_t rep = only_group_child(sc, t);
        if (rep < 0 || sc->nodes[rep].element->repetition != PQ_REPEATED) return -1;
        next = only_group_child(sc, rep);
    } else {
        if (list) return -1;
        next = pq_variant_schema_child(sc, t, step->name, step->len);
    }
    return next >= 0 && sc->nodes[next].leaf_index < 0 ? next : -1;
}

/* Whether node `node` is `g` or below it. */
static bool under(const pq_schema *sc, int32_t node, int32_t g)
{
    for (int hops = 0; node >= 0 && hops <= (int)sc->nodes_len; hops++) {
        if (node == g) return true;
        node = sc->nodes[node].parent;
    }
    return false;
}

static void add(bool *want, const pq_schema *sc, int32_t node)
{
    if (node >= 0 && sc->nodes[node].leaf_index >= 0) want[sc->nodes[node].leaf_index] = true;
}

pq_status pq_variant_path_leaves(const pq_metadata *md, const char *path, uint32_t *leaves, size_t cap, size_t *n,
                                 pq_error *err)
{
    *n = 0;
    const pq_schema *sc = md ? pq_metadata_schema(md) : NULL;
    if (!sc || !path) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "variant path: no metadata or path");
    const char *rest;
    int32_t v = pq_variant_path_column(sc, path, &rest);
    if (v < 0)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "'%.64s' is no path into a VARIANT column (a top-level VARIANT column's name, then .field "
                            "or [index] steps)", path);
    pq_variant_step steps[PQ_VARIANT_PATH_MAX_STEPS];
    size_t ns = 0;
    pq_status st = pq_variant_path_steps(rest, steps, PQ_VARIANT_PATH_MAX_STEPS, &ns, err);
    if (st != PQ_OK) return st;
    int32_t meta = pq_variant_schema_child(sc, v, "metadata", 8);
    if (meta < 0 || sc->nodes[meta].leaf_index < 0)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "VARIANT column '%.64s' has no metadata field",
                            sc->nodes[v].name);
    bool *want = calloc(sc->leaves_len ? sc->leaves_len : 1, sizeof *want);
    if (!want) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    add(want, sc, meta);
    /* The residual value of every group on the way (a step not shredded
     * further is found there), then the whole group the path ends at. */
    int32_t g = v;
    size_t k = 0;
    add(want, sc, pq_variant_schema_child(sc, g, "value", 5));
    for (; k < ns; k++) {
        int32_t next = pq_variant_schema_step(sc, g, &steps[k]);
        if (next < 0) break;
        g = next;
        add(want, sc, pq_variant_schema_child(sc, g, "value", 5));
    }
    if (k == ns)
        for (uint32_t l = 0; l < sc->leaves_len; l++)
            if (under(sc, sc->leaves[l].node, g)) want[l] = true;
    for (uint32_t l = 0; l < sc->leaves_len; l++) {
        if (!want[l]) continue;
        if (*n < cap && leaves) leaves[*n] = l;
        (*n)++;
    }
    free(want);
    return PQ_OK;
}
