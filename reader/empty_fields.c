/*
 * empty_fields.c — top-level fields with no leaf, read as all-null arrays
 * (see empty_fields.h).
 */
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "reader/empty_fields.h"

/* Deeper nesting than any schema the footer stage accepts: a guard, not a limit users meet. */
#define MAX_DEPTH 256

pq_status pq_empty_fields_find(const pq_schema *schema, uint32_t **out, size_t *n, pq_error *err)
{
    *out = NULL;
    *n = 0;
    if (!schema || !schema->nodes_len) return PQ_OK;
    const pq_schema_node *root = &schema->nodes[0];
    /* Nodes are in depth-first order: child k's subtree is the nodes from
     * it up to the next child (or the end). */
    for (int32_t k = 0; k < root->num_children; k++) {
        int32_t from = root->children[k];
        int32_t to = k + 1 < root->num_children ? root->children[k + 1] : (int32_t)schema->nodes_len;
        bool leaf = false;
        for (int32_t j = from; j < to && !leaf; j++) leaf = schema->nodes[j].leaf_index >= 0;
        if (leaf) continue;
        uint32_t *grown = realloc(*out, (*n + 1) * sizeof **out);
        if (!grown) {
            free(*out);
            *out = NULL;
            *n = 0;
            return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        }
        *out = grown;
        (*out)[(*n)++] = (uint32_t)k;
    }
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * The schema with the empty fields in place
 * ------------------------------------------------------------------------- */

static void release_merged(struct ArrowSchema *s)
{
    for (int64_t i = 0; i < s->n_children; i++) {
        struct ArrowSchema *c = s->children[i];
        if (c && c->release) c->release(c);
        free(c);
    }
    free(s->children);
    s->release = NULL;
}

/* A heap copy of *from, which is moved out (its release set to NULL, so
 * that its parent's release skips it). */
static struct ArrowSchema *move_out(struct ArrowSchema *from)
{
    struct ArrowSchema *c = malloc(sizeof *c);
    if (!c) return NULL;
    *c = *from;
    from->release = NULL;
    return c;
}

pq_status pq_empty_fields_schema(const pq_metadata *md, const uint32_t *pos, size_t n, struct ArrowSchema *sel,
                                 struct ArrowSchema *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    struct ArrowSchema all;
    pq_status st = pq_metadata_arrow_schema(md, NULL, 0, &all, err);
    if (st != PQ_OK) {
        sel->release(sel);
        return st;
    }
    int64_t total = sel->n_children + (int64_t)n;
    struct ArrowSchema **children = calloc(total ? (size_t)total : 1, sizeof *children);
    st = children ? PQ_OK : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    *out = (struct ArrowSchema){.format = "+s", .name = "", .n_children = total, .children = children,
                                .release = release_merged};
    int64_t from_sel = 0;
    size_t next = 0;
    for (int64_t i = 0; st == PQ_OK && i < total; i++) {
        if (next < n && (int64_t)pos[next] == i) {
            if ((int64_t)pos[next] >= all.n_children) {
                st = pq_error_set(err, PQ_ERR_SCHEMA, "field %u with no leaf is not in the file's schema", pos[next]);
                break;
            }
            children[i] = move_out(all.children[pos[next++]]);
        } else if (from_sel < sel->n_children) {
            children[i] = move_out(sel->children[from_sel++]);
        } else {
            st = pq_error_set(err, PQ_ERR_SCHEMA, "%lld decoded fields for %lld fields",
                              (long long)sel->n_children, (long long)total);
            break;
        }
        if (!children[i]) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    all.release(&all);
    sel->release(sel);
    if (st != PQ_OK && out->release) {
        if (!children) out->n_children = 0;
        out->release(out);
    }
    return st;
}

/* ---------------------------------------------------------------------------
 * All-null arrays
 * ------------------------------------------------------------------------- */

/* What one node of an all-null array owns. */
typedef struct null_node {
    const void *buffers[2];
    void *owned[2];
    struct ArrowArray **children;
} null_node;

static void release_null(struct ArrowArray *a)
{
    null_node *p = a->private_data;
    for (int64_t i = 0; i < a->n_children; i++) {
        struct ArrowArray *c = p->children[i];
        if (c && c->release) c->release(c);
        free(c);
    }
    free(p->children);
    free(p->owned[0]);
    free(p->owned[1]);
    free(p);
    a->release = NULL;
}

static pq_status null_array(const struct ArrowSchema *f, int64_t length, int depth, struct ArrowArray *out,
                            pq_error *err)
{
    memset(out, 0, sizeof *out);
    if (depth > MAX_DEPTH) return pq_error_set(err, PQ_ERR_SCHEMA, "a field with no leaf nests too deep");
    const char *fmt = f->format ? f->format : "";
    bool is_struct = strcmp(fmt, "+s") == 0, is_null = strcmp(fmt, "n") == 0;
    bool list32 = strcmp(fmt, "+l") == 0 || strcmp(fmt, "+m") == 0, list64 = strcmp(fmt, "+L") == 0;
    if (!is_struct && !is_null && !list32 && !list64)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "field '%.100s' has no leaf and type '%.40s': not read",
                            f->name ? f->name : "", fmt);
    if ((list32 || list64) && f->n_children != 1)
        return pq_error_set(err, PQ_ERR_SCHEMA, "list field '%.100s' without its element", f->name ? f->name : "");
    null_node *p = calloc(1, sizeof *p);
    if (!p) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    int64_t nchildren = is_null ? 0 : f->n_children;
    *out = (struct ArrowArray){.length = length, .null_count = length, .n_buffers = is_null ? 0 : list32 || list64 ? 2 : 1,
                               .n_children = nchildren, .buffers = p->buffers, .private_data = p,
                               .release = release_null};
    p->children = calloc(nchildren ? (size_t)nchildren : 1, sizeof *p->children);
    out->children = p->children;
    if (!is_null) p->owned[0] = calloc((size_t)length / 8 + 1, 1); /* validity: every bit 0 */
    if (list32 || list64) p->owned[1] = calloc((size_t)length + 1, list64 ? 8 : 4); /* offsets: all 0 */
    pq_status st = p->children && (is_null || p->owned[0]) && (!(list32 || list64) || p->owned[1])
                       ? PQ_OK
                       : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    p->buffers[0] = p->owned[0];
    p->buffers[1] = p->owned[1];
    /* A struct's children have its rows; a list's element has none. */
    int64_t child_length = is_struct ? length : 0;
    for (int64_t i = 0; st == PQ_OK && i < nchildren; i++) {
        if (!(p->children[i] = malloc(sizeof *p->children[i]))) {
            st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
            break;
        }
        st = null_array(f->children[i], child_length, depth + 1, p->children[i], err);
    }
    if (st != PQ_OK) out->release(out);
    return st;
}

pq_status pq_empty_field_array(const struct ArrowSchema *field, int64_t length, struct ArrowArray *out,
                               pq_error *err)
{
    if (length < 0) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "negative length");
    return null_array(field, length, 0, out, err);
}
