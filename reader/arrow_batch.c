/*
 * arrow_batch.c — decoded columns exported as a record batch (a struct
 * array) per the Arrow C Data Interface, and the schemas of such batches
 * (see arrow_batch.h).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "reader/arrow_batch.h"
#include "reader/arrow_column_internal.h"

/* ---------------------------------------------------------------------------
 * Export
 * ------------------------------------------------------------------------- */

/* An exported array: its column reference and, in one block, its
 * children and the pointers to them. */
static void release_node(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    for (int64_t i = 0; i < a->n_children; i++)
        if (a->children[i]->release) a->children[i]->release(a->children[i]);
    if (a->dictionary) {
        if (a->dictionary->release) a->dictionary->release(a->dictionary);
        free(a->dictionary);
    }
    pq_arrow_column *c = a->private_data;
    if (c) pq_arrow_column_release(c);
    free(a->children ? (void *)a->children[0] : NULL);
    a->private_data = NULL;
    a->release = NULL;
}

/* Export column c (and its children) into *out, taking a reference. The
 * block with the children structs is freed by the node's release; children
 * moved out keep working since each holds its own reference. */
static bool export_node(pq_arrow_column *c, struct ArrowArray *out)
{
    memset(out, 0, sizeof *out);
    size_t n = c->n_children;
    char *block = NULL;
    if (n) {
        block = calloc(1, n * (sizeof(struct ArrowArray) + sizeof(struct ArrowArray *)));
        if (!block) return false;
    }
    struct ArrowArray *kids = (struct ArrowArray *)block;
    struct ArrowArray **ptrs = n ? (struct ArrowArray **)(kids + n) : NULL;
    for (size_t i = 0; i < n; i++) {
        ptrs[i] = &kids[i];
        if (!export_node(c->children[i], &kids[i])) {
            for (size_t k = 0; k < i; k++) kids[k].release(&kids[k]);
            free(block);
            return false;
        }
    }
    struct ArrowArray *dict = NULL;
    if (c->dictionary && (!(dict = malloc(sizeof *dict)) || !export_node(c->dictionary, dict))) {
        free(dict);
        for (size_t k = 0; k < n; k++) kids[k].release(&kids[k]);
        free(block);
        return false;
    }
    out->dictionary = dict;
    atomic_fetch_add(&c->refs, 1);
    out->length = c->length;
    out->null_count = c->null_count;
    out->n_buffers = c->n_buffers;
    out->buffers = c->n_buffers ? c->buffers : NULL;
    out->n_children = (int64_t)n;
    out->children = ptrs;
    out->private_data = c;
    out->release = release_node;
    return true;
}

static void release_batch(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    for (int64_t i = 0; i < a->n_children; i++)
        if (a->children[i]->release) a->children[i]->release(a->children[i]);
    free(a->private_data);
    a->private_data = NULL;
    a->release = NULL;
}

pq_status pq_arrow_batch_export(pq_arrow_column *const *cols, const int64_t *offsets, size_t n,
                                int64_t length, struct ArrowArray *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        int64_t off = offsets ? offsets[i] : 0;
        if (length < 0 || off < 0 || off > cols[i]->length || length > cols[i]->length - off)
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                "rows [%lld, +%lld) of a %lld-row column are out of range",
                                (long long)off, (long long)length, (long long)cols[i]->length);
    }
    /* One block: the children, the pointers to them, the parent's buffer list. */
    size_t size = n * (sizeof(struct ArrowArray) + sizeof(struct ArrowArray *)) + sizeof(void *);
    char *block = calloc(1, size);
    if (!block) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting a record batch");
    struct ArrowArray *kids = (struct ArrowArray *)block;
    struct ArrowArray **ptrs = (struct ArrowArray **)(kids + n);
    const void **parent_buffers = (const void **)(ptrs + n);
    for (size_t i = 0; i < n; i++) {
        ptrs[i] = &kids[i];
        if (!export_node(cols[i], &kids[i])) {
            for (size_t k = 0; k < i; k++) kids[k].release(&kids[k]);
            free(block);
            return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting a record batch");
        }
        /* A slice: same buffers, an Arrow offset, and a null count the
         * consumer computes (-1) unless the column has none. */
        int64_t off = offsets ? offsets[i] : 0;
        if (off != 0 || length != cols[i]->length) {
            kids[i].offset = off;
            kids[i].length = length;
            if (kids[i].null_count != 0) kids[i].null_count = -1;
        }
    }
    parent_buffers[0] = NULL; /* a struct's validity: none, no nulls */
    out->length = length;
    out->null_count = 0;
    out->n_buffers = 1;
    out->buffers = parent_buffers;
    out->n_children = (int64_t)n;
    out->children = n ? ptrs : NULL;
    out->private_data = block;
    out->release = release_batch;
    return PQ_OK;
}

static void release_batch_schema(struct ArrowSchema *s)
{
    if (!s || !s->release) return;
    for (int64_t i = 0; i < s->n_children; i++)
        if (s->children[i]->release) s->children[i]->release(s->children[i]);
    free(s->private_data);
    s->private_data = NULL;
    s->release = NULL;
}

/* Leaf i's field of a one-column export, moved out of the structs above it
 * (a leaf under structs exports as its top-level field). */
static pq_status leaf_field_schema(const pq_metadata *md, uint32_t column, bool descend, struct ArrowSchema *out,
                                   pq_error *err)
{
    struct ArrowSchema one;
    pq_status st = pq_metadata_arrow_schema(md, &column, 1, &one, err);
    if (st == PQ_OK && one.n_children != 1) {
        one.release(&one);
        st = pq_error_set(err, PQ_ERR_SCHEMA, "column %u does not export as one field", column);
    }
    if (st != PQ_OK) return st;
    *out = *one.children[0];
    one.children[0]->release = NULL;
    one.release(&one);
    if (!descend) return PQ_OK;
    /* Down the structs to the leaf: at each level, the child the leaf's
     * path goes through (the export keeps the schema's child order). */
    const pq_schema *schema = pq_metadata_schema(md);
    int32_t chain[64];
    int depth = 0;
    for (int32_t j = schema->leaves[column].node; j > 0 && depth < 64; j = schema->nodes[j].parent)
        chain[depth++] = j;
    for (int d = depth - 2; d >= 0 && strcmp(out->format, "+s") == 0; d--) {
        const pq_schema_node *parent = &schema->nodes[chain[d + 1]];
        int64_t k = 0;
        while (k < parent->num_children && parent->children[k] != chain[d]) k++;
        if (k >= out->n_children) break;
        struct ArrowSchema up = *out;
        *out = *up.children[k];
        up.children[k]->release = NULL;
        up.release(&up);
    }
    return PQ_OK;
}

/* A "+s" schema of n fields, each from leaf_field_schema. */
static pq_status fields_schema(const pq_metadata *md, const uint32_t *columns, size_t n, bool descend,
                               struct ArrowSchema *out, pq_error *err);

pq_status pq_arrow_leaf_schema(const pq_metadata *md, const uint32_t *columns, size_t n, struct ArrowSchema *out,
                               pq_error *err)
{
    return fields_schema(md, columns, n, true, out, err);
}

pq_status pq_arrow_batch_schema(const pq_metadata *md, const uint32_t *columns, size_t n,
                                struct ArrowSchema *out, pq_error *err)
{
    return fields_schema(md, columns, n, false, out, err);
}

/* Flat leaves in file order, each once: the whole projection exports in one
 * call with the fields in that order (one walk of the schema, where a call
 * per column walks it n times). */
static bool flat_ascending(const pq_metadata *md, const uint32_t *columns, size_t n)
{
    const pq_schema *schema = pq_metadata_schema(md);
    for (size_t i = 0; i < n; i++) {
        if (i && columns[i] <= columns[i - 1]) return false;
        if (columns[i] >= schema->leaves_len) return false;
        const pq_leaf *leaf = &schema->leaves[columns[i]];
        if (leaf->max_rep != 0 || leaf->node <= 0 || schema->nodes[leaf->node].parent != 0) return false;
    }
    return true;
}

static pq_status fields_schema(const pq_metadata *md, const uint32_t *columns, size_t n, bool descend,
                               struct ArrowSchema *out, pq_error *err)
{
    if (n > 1 && flat_ascending(md, columns, n)) {
        pq_status st = pq_metadata_arrow_schema(md, columns, n, out, err);
        if (st != PQ_OK) return st;
        if (out->n_children == (int64_t)n) return PQ_OK;
        out->release(out); /* not one field per column: build it field by field */
    }
    memset(out, 0, sizeof *out);
    size_t size = n * (sizeof(struct ArrowSchema) + sizeof(struct ArrowSchema *)) + 1;
    char *block = calloc(1, size);
    if (!block) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting a schema");
    struct ArrowSchema *kids = (struct ArrowSchema *)block;
    struct ArrowSchema **ptrs = (struct ArrowSchema **)(kids + n);
    char *empty = (char *)(ptrs + n); /* "" for the format's name */
    out->format = "+s";
    out->name = empty;
    out->n_children = 0;
    out->children = n ? ptrs : NULL;
    out->private_data = block;
    out->release = release_batch_schema;
    /* Each field is exported alone and moved out of its wrapper (a move the
     * spec allows), so the order and repeats follow `columns`. */
    for (size_t i = 0; i < n; i++) {
        pq_status st = leaf_field_schema(md, columns[i], descend, &kids[i], err);
        if (st != PQ_OK) {
            release_batch_schema(out);
            return st;
        }
        ptrs[i] = &kids[i];
        out->n_children = (int64_t)i + 1;
    }
    return PQ_OK;
}
