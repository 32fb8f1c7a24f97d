/*
 * row_index.c — the row index field appended to batches and schemas (see
 * row_index.h).
 */
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "reader/row_index.h"

/* ---- the schema ---- */

typedef struct wrapped_schema {
    struct ArrowSchema inner;   /* the struct as it was */
    struct ArrowSchema index;   /* the appended field */
    struct ArrowSchema **children;
    char *name;
} wrapped_schema;

static void release_index_schema(struct ArrowSchema *s)
{
    s->release = NULL;
}

static void release_wrapped_schema(struct ArrowSchema *s)
{
    if (!s || !s->release) return;
    wrapped_schema *w = s->private_data;
    if (w->index.release) w->index.release(&w->index);
    if (w->inner.release) w->inner.release(&w->inner);
    free(w->children);
    free(w->name);
    free(w);
    s->release = NULL;
}

pq_status pq_row_index_schema(struct ArrowSchema *schema, const char *name, pq_error *err)
{
    wrapped_schema *w = calloc(1, sizeof *w);
    size_t n = schema->n_children < 0 ? 0 : (size_t)schema->n_children;
    if (w) w->children = malloc((n + 1) * sizeof *w->children);
    if (w) w->name = strdup(name);
    if (!w || !w->children || !w->name) {
        if (w) {
            free(w->children);
            free(w->name);
        }
        free(w);
        schema->release(schema);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    w->inner = *schema;
    for (size_t i = 0; i < n; i++) w->children[i] = w->inner.children[i];
    w->index = (struct ArrowSchema){.format = "l", .name = w->name, .flags = 0, .release = release_index_schema};
    w->children[n] = &w->index;
    *schema = w->inner;
    schema->n_children = (int64_t)n + 1;
    schema->children = w->children;
    schema->private_data = w;
    schema->release = release_wrapped_schema;
    return PQ_OK;
}

/* ---- the batch ---- */

typedef struct wrapped_array {
    struct ArrowArray inner;
    struct ArrowArray index;
    const void *index_buffers[2];
    int64_t *values;
    struct ArrowArray **children;
} wrapped_array;

static void release_index_array(struct ArrowArray *a)
{
    a->release = NULL;
}

static void release_wrapped_array(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    wrapped_array *w = a->private_data;
    if (w->index.release) w->index.release(&w->index);
    if (w->inner.release) w->inner.release(&w->inner);
    free(w->values);
    free(w->children);
    free(w);
    a->release = NULL;
}

pq_status pq_row_index_array(struct ArrowArray *batch, int64_t *values, pq_error *err)
{
    wrapped_array *w = calloc(1, sizeof *w);
    size_t n = batch->n_children < 0 ? 0 : (size_t)batch->n_children;
    if (w) w->children = malloc((n + 1) * sizeof *w->children);
    if (!w || !w->children) {
        if (w) free(w->children);
        free(w);
        free(values);
        batch->release(batch);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    w->inner = *batch;
    w->values = values;
    for (size_t i = 0; i < n; i++) w->children[i] = w->inner.children[i];
    w->index_buffers[0] = NULL;
    w->index_buffers[1] = values;
    w->index = (struct ArrowArray){.length = batch->offset + batch->length,
                                   .null_count = 0,
                                   .offset = 0,
                                   .n_buffers = 2,
                                   .buffers = w->index_buffers,
                                   .release = release_index_array};
    w->children[n] = &w->index;
    *batch = w->inner;
    batch->n_children = (int64_t)n + 1;
    batch->children = w->children;
    batch->private_data = w;
    batch->release = release_wrapped_array;
    return PQ_OK;
}
