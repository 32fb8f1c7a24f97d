/*
 * variant_project.c — paths into VARIANT columns projected over a batch or
 * its schema (pq_variant_project_batch, pq_variant_project_schema): each
 * VARIANT column a path steps into replaced by the paths' values, cut by
 * pq_variant_path_extract. The result takes the input over and borrows
 * its children; what it makes it owns.
 */
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "pq_variant.h"

/* Whether `path` steps into top-level field `field` ("v.a", "v[0]"). */
static bool path_into(const char *path, const char *field)
{
    size_t n = strlen(field);
    return strncmp(path, field, n) == 0 && (path[n] == '.' || path[n] == '[');
}

static bool named(const char *const *names, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (names[k] && strcmp(names[k], name) == 0) return true;
    return false;
}

/* What a projected batch or schema holds: the input it took over, the
 * children it shows (borrowed from the input, or made), the made ones. */
typedef struct projected {
    struct ArrowArray inner;
    struct ArrowSchema inner_schema;
    struct ArrowArray **kids;
    struct ArrowSchema **kid_schemas;
    struct ArrowArray *made;
    struct ArrowSchema *made_schemas;
    size_t nmade;
} projected;

static void projected_free(projected *p)
{
    if (!p) return;
    for (size_t k = 0; k < p->nmade; k++) {
        if (p->made && p->made[k].release) p->made[k].release(&p->made[k]);
        if (p->made_schemas && p->made_schemas[k].release) p->made_schemas[k].release(&p->made_schemas[k]);
    }
    if (p->inner.release) p->inner.release(&p->inner);
    if (p->inner_schema.release) p->inner_schema.release(&p->inner_schema);
    free(p->made);
    free(p->made_schemas);
    free(p->kids);
    free(p->kid_schemas);
    free(p);
}

static void release_projected_array(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    projected_free(a->private_data);
    a->release = NULL;
}

static void release_projected_schema(struct ArrowSchema *s)
{
    if (!s || !s->release) return;
    projected_free(s->private_data);
    s->release = NULL;
}

/* The projection of `schema` (and, when batch is not NULL, of its rows)
 * into p: kids and kid_schemas in order, their count returned in *n. */
static pq_status project(projected *p, const struct ArrowArray *batch, const struct ArrowSchema *schema,
                         const char *const *paths, size_t npaths, const char *const *keep, size_t nkeep, size_t *n,
                         pq_error *err)
{
    size_t cap = (size_t)schema->n_children + npaths;
    p->kids = calloc(cap ? cap : 1, sizeof *p->kids);
    p->kid_schemas = calloc(cap ? cap : 1, sizeof *p->kid_schemas);
    p->made = calloc(npaths ? npaths : 1, sizeof *p->made);
    p->made_schemas = calloc(npaths ? npaths : 1, sizeof *p->made_schemas);
    if (!p->kids || !p->kid_schemas || !p->made || !p->made_schemas)
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory projecting VARIANT paths");
    *n = 0;
    for (int64_t k = 0; k < schema->n_children; k++) {
        const struct ArrowSchema *field = schema->children[k];
        const char *name = field && field->name ? field->name : "";
        bool has_paths = false;
        for (size_t q = 0; q < npaths; q++) has_paths |= path_into(paths[q], name);
        if (!has_paths || named(keep, nkeep, name)) {
            p->kids[*n] = batch ? batch->children[k] : NULL;
            p->kid_schemas[(*n)++] = schema->children[k];
        }
        for (size_t q = 0; q < npaths; q++) {
            if (!path_into(paths[q], name)) continue;
            struct ArrowArray none = {0}; /* the schema alone: the path's field over no rows */
            const struct ArrowArray *from = batch ? batch->children[k] : &none;
            pq_status st = pq_variant_path_extract(from, field, paths[q], &p->made[p->nmade],
                                                   &p->made_schemas[p->nmade], err);
            if (st != PQ_OK) return st;
            p->kids[*n] = &p->made[p->nmade];
            p->kid_schemas[(*n)++] = &p->made_schemas[p->nmade++];
        }
    }
    for (size_t q = 0; q < npaths; q++) {
        bool found = false;
        for (int64_t k = 0; k < schema->n_children && !found; k++)
            found = schema->children[k] && schema->children[k]->name && path_into(paths[q], schema->children[k]->name);
        if (!found)
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "VARIANT path '%.128s': no such column in the batch",
                                paths[q]);
    }
    return PQ_OK;
}

static pq_status check_args(const struct ArrowSchema *schema, const char *const *paths, size_t npaths, pq_error *err)
{
    if (!schema || !schema->format || strcmp(schema->format, "+s") != 0 ||
        (schema->n_children && !schema->children))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "VARIANT paths: the schema is no struct of fields");
    if (npaths && !paths) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "VARIANT paths: NULL paths");
    for (size_t q = 0; q < npaths; q++)
        if (!paths[q]) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "VARIANT paths: a NULL path");
    return PQ_OK;
}

/* The checks both projections make (`fits`: their input is as required,
 * `unfit` says how not), and a projection to fill; NULL with *st set
 * when one fails. */
static projected *project_begin(const struct ArrowSchema *schema, const char *const *paths, size_t npaths, bool out,
                                bool fits, const char *unfit, pq_status *st, pq_error *err)
{
    *st = out ? check_args(schema, paths, npaths, err)
              : pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "VARIANT paths: NULL output");
    if (*st == PQ_OK && !fits) *st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "VARIANT paths: %s", unfit);
    projected *p = *st == PQ_OK ? calloc(1, sizeof *p) : NULL;
    if (*st == PQ_OK && !p) *st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory projecting VARIANT paths");
    return p;
}

pq_status pq_variant_project_schema(struct ArrowSchema *schema, const char *const *paths, size_t npaths,
                                    const char *const *keep, size_t nkeep, struct ArrowSchema *out, pq_error *err)
{
    pq_error local;
    if (!err) err = &local;
    if (out) memset(out, 0, sizeof *out);
    pq_status st;
    projected *p = project_begin(schema, paths, npaths, out != NULL, schema && schema->release, "a released schema",
                                 &st, err);
    if (!p) { /* taken over, released */
        if (schema && schema->release) schema->release(schema);
        return st;
    }
    p->inner_schema = *schema;
    schema->release = NULL;
    size_t n = 0;
    if ((st = project(p, NULL, &p->inner_schema, paths, npaths, keep, nkeep, &n, err)) != PQ_OK) {
        projected_free(p);
        return st;
    }
    *out = p->inner_schema;
    out->n_children = (int64_t)n;
    out->children = p->kid_schemas;
    out->private_data = p;
    out->release = release_projected_schema;
    return PQ_OK;
}

pq_status pq_variant_project_batch(struct ArrowArray *batch, const struct ArrowSchema *schema,
                                   const char *const *paths, size_t npaths, const char *const *keep, size_t nkeep,
                                   struct ArrowArray *out, pq_error *err)
{
    pq_error local;
    if (!err) err = &local;
    if (out) memset(out, 0, sizeof *out);
    bool fits = batch && batch->release && schema && batch->n_children == schema->n_children &&
                (!batch->n_children || batch->children);
    pq_status st;
    projected *p = project_begin(schema, paths, npaths, out != NULL, fits, "the batch does not match its schema",
                                 &st, err);
    if (!p) { /* taken over, released */
        if (batch && batch->release) batch->release(batch);
        return st;
    }
    p->inner = *batch;
    batch->release = NULL;
    size_t n = 0;
    if ((st = project(p, &p->inner, schema, paths, npaths, keep, nkeep, &n, err)) != PQ_OK) {
        projected_free(p);
        return st;
    }
    *out = p->inner;
    out->n_children = (int64_t)n;
    out->children = p->kids;
    out->private_data = p;
    out->release = release_projected_array;
    return PQ_OK;
}
