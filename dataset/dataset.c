/*
 * dataset.c — a dataset (pq_dataset.h): its files listed (listing.c), their
 * footers parsed once and in parallel through one metadata cache, their
 * schemas checked against the first file's, the partition keys typed
 * (partition.c); scans pruned by partition values and footer statistics
 * and streamed file by file, each file through a reader's Arrow C stream
 * (pq_reader_export_stream), its batches given the partition columns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset/dataset_internal.h"
#include "pq_remote.h"
#include "pq_variant.h"
#include "metadata/error.h"
#include "metadata/options_size.h"
#include "reader/keys.h"
#include "reader/options.h"
#include "reader/parallel.h"
#include "remote/options.h"

/* The first versioned layout of pq_dataset_options (pqstep 0.1). */
#define DATASET_OPTIONS_OLDEST_SIZE sizeof(pq_dataset_options)

/* A dataset's own metadata cache, when the options give none. */
#define DATASET_CACHE_BYTES ((size_t)256 << 20)

/* The dataset's own copy of the remote options, strings included. */
typedef struct remote_copy {
    pq_remote_options o;
    char *strings[7];
} remote_copy;

struct pq_dataset {
    pq_dataset_options opts;   /* the caller's, taken in; opts.reader is NULL: see reader */
    pq_decryption *keys;       /* reader.decryption's copy (reader/keys.c), wiped at close */
    char *row_index_name;      /* reader.row_index_name's copy */
    pq_reader_options reader;  /* each file's reader options (file_options) */
    remote_copy *remote;       /* NULL: defaults */
    pq_metadata_cache *own_cache;
    pq_ds_files files;
    pq_metadata **md;          /* per file, one reference each */
    pq_ds_partitions parts;
};

void pq_dataset_options_init(pq_dataset_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->struct_size = sizeof *opts;
}

/* ---------------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------------- */

static void remote_free(remote_copy *c)
{
    if (!c) return;
    for (size_t i = 0; i < sizeof c->strings / sizeof *c->strings; i++) free(c->strings[i]);
    free(c);
}

/* A copy of the caller's remote options `src` that owns its strings. */
static remote_copy *remote_dup(const pq_remote_options *src, pq_error *err)
{
    remote_copy *c = calloc(1, sizeof *c);
    if (!c) {
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (pq_remote_options_take(&c->o, src, err) != PQ_OK) {
        free(c);
        return NULL;
    }
    const char **fields[] = {&c->o.endpoint, &c->o.region, &c->o.access_key_id, &c->o.secret_access_key,
                             &c->o.session_token, &c->o.known_version, &c->o.ca_file};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        if (!*fields[i]) continue;
        if (!(c->strings[i] = strdup(*fields[i]))) {
            remote_free(c);
            pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
            return NULL;
        }
        *fields[i] = c->strings[i];
    }
    c->o.known_size = 0; /* per file, not per dataset */
    c->o.known_version = NULL;
    return c;
}

/* A reader over file i: by path, or by URL with what is known of the
 * object (no request to open it when its size is known). */
static pq_reader *open_file(const pq_dataset *ds, size_t i, const pq_reader_options *o, pq_error *err)
{
    const pq_ds_file *f = &ds->files.v[i];
    if (!pq_is_url(f->path)) return pq_reader_open_path(f->path, o, err);
    pq_remote_options ro;
    if (ds->remote) ro = ds->remote->o;
    else pq_remote_options_init(&ro);
    if (f->size) {
        ro.known_size = f->size;
        ro.known_version = f->version;
    }
    return pq_reader_open_url(f->path, o, &ro, err);
}

typedef struct footer_job {
    pq_dataset *ds;
    pq_status *status;
    pq_error *errors;
} footer_job;

/* File i's reader options: the dataset's template, its footer reuse. */
static pq_reader_options file_options(const pq_dataset *ds, size_t i)
{
    pq_reader_options o = ds->reader;
    o.threads = ds->opts.threads;
    o.metadata = ds->md ? ds->md[i] : NULL;
    o.cache = o.metadata ? NULL : ds->opts.cache;
    o.footer_bytes = NULL;
    o.footer_bytes_len = 0;
    o.cache_key = NULL;
    o.cache_key_len = 0;
    o.columns = NULL;
    o.columns_len = 0;
    o.row_groups = NULL;
    o.row_groups_len = 0;
    o.row_offset = o.row_limit = 0;
    o.filter = NULL;
    return o;
}

static bool footer_task(void *ctx, size_t i, unsigned worker)
{
    (void)worker;
    footer_job *job = ctx;
    pq_dataset *ds = job->ds;
    pq_reader_options o = file_options(ds, i);
    o.metadata = NULL;
    o.cache = ds->opts.cache;
    o.threads = 1;
    pq_error *err = &job->errors[i];
    pq_reader *r = open_file(ds, i, &o, err);
    pq_status st = r ? pq_reader_advance_to(r, PQ_STAGE_FOOTER, err) : err->code;
    if (st == PQ_OK) ds->md[i] = pq_metadata_retain(pq_reader_metadata(r));
    pq_ds_file *f = &ds->files.v[i]; /* this task's own entry */
    if (st == PQ_OK && pq_is_url(f->path) && !f->size) {
        const char *v = pq_reader_source_version(r);
        f->version = strdup(v ? v : "");
        f->size = f->version ? pq_reader_file_size(r) : 0;
    }
    pq_reader_close(r);
    if (st != PQ_OK) {
        char what[PQ_ERROR_MESSAGE_SIZE];
        memcpy(what, err->message, sizeof what);
        pq_error_set(err, st, "%s: %s", ds->files.v[i].path, what);
    }
    job->status[i] = st;
    return st == PQ_OK;
}

/* The first difference between two ArrowSchema trees: a path into *where. */
static bool same_schema(const struct ArrowSchema *a, const struct ArrowSchema *b, char *where, size_t cap, int depth)
{
    if (depth > 64) return false;
    if (strcmp(a->format, b->format) != 0 || strcmp(a->name ? a->name : "", b->name ? b->name : "") != 0 ||
        a->n_children != b->n_children || (a->flags & ARROW_FLAG_NULLABLE) != (b->flags & ARROW_FLAG_NULLABLE)) {
        snprintf(where, cap, "'%s' (%s%s against %s%s)", a->name ? a->name : "", a->format,
                 a->flags & ARROW_FLAG_NULLABLE ? "" : ", not null", b->format,
                 b->flags & ARROW_FLAG_NULLABLE ? "" : ", not null");
        return false;
    }
    for (int64_t i = 0; i < a->n_children; i++)
        if (!same_schema(a->children[i], b->children[i], where, cap, depth + 1)) return false;
    return true;
}

static pq_status check_schemas(pq_dataset *ds, pq_error *err)
{
    struct ArrowSchema first;
    pq_status st = pq_metadata_arrow_schema(ds->md[0], NULL, 0, &first, err);
    for (size_t i = 1; st == PQ_OK && i < ds->files.n; i++) {
        struct ArrowSchema s;
        st = pq_metadata_arrow_schema(ds->md[i], NULL, 0, &s, err);
        if (st != PQ_OK) break;
        char where[256] = "";
        bool same = s.n_children == first.n_children;
        for (int64_t k = 0; same && k < s.n_children; k++)
            same = same_schema(s.children[k], first.children[k], where, sizeof where, 0);
        if (!same)
            st = pq_error_set(err, PQ_ERR_SCHEMA, "%s and %s have different schemas: %s", ds->files.v[i].path,
                              ds->files.v[0].path,
                              where[0] ? where : "a different number of top-level columns");
        s.release(&s);
    }
    if (first.release) first.release(&first);
    return st;
}

pq_dataset *pq_dataset_open(const char *const *paths, size_t n, const pq_dataset_options *opts, pq_error *err)
{
    pq_error local; /* err may be NULL: the steps below read the code back */
    if (!err) err = &local;
    pq_dataset *ds = calloc(1, sizeof *ds);
    if (!ds) {
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        return NULL;
    }
    pq_dataset_options_init(&ds->opts);
    pq_status st = opts ? pq_options_take(&ds->opts, sizeof ds->opts, opts, DATASET_OPTIONS_OLDEST_SIZE,
                                          "pq_dataset_options", err)
                        : PQ_OK;
    if (st == PQ_OK) st = pq_reader_options_take(&ds->reader, ds->opts.reader, err);
    ds->opts.reader = NULL; /* not the caller's memory after the open */
    if (st == PQ_OK) st = pq_keys_copy(ds->reader.decryption, &ds->keys, err);
    ds->reader.decryption = ds->keys; /* each file's reader copies them again */
    if (st == PQ_OK && ds->reader.deleted_rows)
        st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "deleted_rows: a deletion vector is one file's; a dataset "
                                                        "does not take one");
    if (st == PQ_OK && ds->reader.row_index_name &&
        !(ds->row_index_name = strdup(ds->reader.row_index_name)))
        st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    ds->reader.row_index_name = ds->row_index_name;
    if (st == PQ_OK && ds->opts.partitioning > PQ_PARTITIONING_HIVE)
        st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "partitioning %u is not a pq_partitioning",
                          ds->opts.partitioning);
    if (st == PQ_OK && !ds->opts.cache) {
        ds->own_cache = pq_metadata_cache_create(DATASET_CACHE_BYTES, err);
        ds->opts.cache = ds->own_cache;
        if (!ds->own_cache) st = err->code;
    }
    if (st == PQ_OK && ds->opts.remote) {
        ds->remote = remote_dup(ds->opts.remote, err);
        ds->opts.remote = ds->remote ? &ds->remote->o : NULL;
        if (!ds->remote) st = err->code;
    }
    if (st == PQ_OK) st = paths || !n ? pq_ds_list(paths, n, ds->opts.remote, &ds->files, err)
                                      : pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "paths is NULL");
    if (st == PQ_OK && ds->opts.partitioning == PQ_PARTITIONING_HIVE)
        st = pq_ds_partitions_read(&ds->files, &ds->parts, err);
    footer_job job = {.ds = ds};
    if (st == PQ_OK) {
        ds->md = calloc(ds->files.n, sizeof *ds->md);
        job.status = calloc(ds->files.n, sizeof *job.status);
        job.errors = calloc(ds->files.n, sizeof *job.errors);
        if (!ds->md || !job.status || !job.errors) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (st == PQ_OK) {
        for (size_t i = 0; i < ds->files.n; i++) job.status[i] = PQ_ERR_STAGE;
        pq_parallel_for(ds->files.n, ds->opts.threads ? ds->opts.threads : 0, footer_task, &job);
        for (size_t i = 0; st == PQ_OK && i < ds->files.n; i++)
            if (job.status[i] != PQ_OK) {
                if (err) *err = job.errors[i];
                st = job.status[i];
            }
    }
    free(job.status);
    free(job.errors);
    if (st == PQ_OK) st = check_schemas(ds, err);
    if (st != PQ_OK) {
        pq_dataset_close(ds);
        return NULL;
    }
    return ds;
}

void pq_dataset_close(pq_dataset *ds)
{
    if (!ds) return;
    for (size_t i = 0; ds->md && i < ds->files.n; i++) pq_metadata_release(ds->md[i]);
    free(ds->md);
    pq_ds_partitions_free(&ds->parts);
    pq_ds_files_free(&ds->files);
    pq_metadata_cache_destroy(ds->own_cache);
    remote_free(ds->remote);
    pq_keys_free(ds->keys);
    free(ds->row_index_name);
    free(ds);
}

size_t pq_dataset_file_count(const pq_dataset *ds)
{
    return ds ? ds->files.n : 0;
}

const char *pq_dataset_file_path(const pq_dataset *ds, size_t i)
{
    return ds && i < ds->files.n ? ds->files.v[i].path : NULL;
}

const pq_metadata *pq_dataset_file_metadata(const pq_dataset *ds, size_t i)
{
    return ds && i < ds->files.n ? ds->md[i] : NULL;
}

size_t pq_dataset_partition_count(const pq_dataset *ds)
{
    return ds ? ds->parts.nkeys : 0;
}

const char *pq_dataset_partition_name(const pq_dataset *ds, size_t k)
{
    return ds && k < ds->parts.nkeys ? ds->parts.names[k] : NULL;
}

const char *pq_dataset_partition_format(const pq_dataset *ds, size_t k)
{
    return ds && k < ds->parts.nkeys ? (ds->parts.is_int[k] ? "i" : "u") : NULL;
}

const char *pq_dataset_partition_value(const pq_dataset *ds, size_t i, size_t k)
{
    return ds && k < ds->parts.nkeys && i < ds->parts.nfiles ? ds->parts.values[i * ds->parts.nkeys + k] : NULL;
}

/* ---------------------------------------------------------------------------
 * Schemas with partition fields
 * ------------------------------------------------------------------------- */

/* A "+s" schema of `inner`'s fields (moved) then one field per key of
 * `keys` (n); the block holds everything. */
typedef struct schema_block {
    struct ArrowSchema inner;
    struct ArrowSchema **children;
    struct ArrowSchema *parts;
    char **names;                  /* the partition fields' names (copies: the schema outlives
                                    * the dataset and the stream) */
    size_t nparts;
} schema_block;

static void release_part_schema(struct ArrowSchema *s)
{
    s->release = NULL;
}

static void release_schema_block(struct ArrowSchema *s)
{
    if (!s || !s->release) return;
    schema_block *b = s->private_data;
    for (int64_t i = 0; i < s->n_children; i++)
        if (s->children[i]->release) s->children[i]->release(s->children[i]);
    /* inner's children were released above (their release is NULL now) */
    if (b->inner.release) b->inner.release(&b->inner);
    for (size_t k = 0; b->names && k < b->nparts; k++) free(b->names[k]);
    free(b->names);
    free(b->children);
    free(b->parts);
    free(b);
    s->release = NULL;
}

static pq_status with_partitions(const pq_ds_partitions *p, const bool *keys, bool drop_inner,
                                 struct ArrowSchema *inner, struct ArrowSchema *out, pq_error *err)
{
    size_t nk = 0;
    for (size_t k = 0; k < p->nkeys; k++) nk += keys[k];
    schema_block *b = calloc(1, sizeof *b);
    int64_t ni = drop_inner ? 0 : inner->n_children;
    size_t nc = (size_t)ni + nk;
    if (b) b->children = calloc(nc ? nc : 1, sizeof *b->children);
    if (b) b->parts = calloc(nk ? nk : 1, sizeof *b->parts);
    if (b) b->names = calloc(nk ? nk : 1, sizeof *b->names);
    bool ok = b && b->children && b->parts && b->names;
    for (size_t k = 0, j = 0; ok && k < p->nkeys; k++)
        if (keys[k]) ok = (b->names[j++] = strdup(p->names[k])) != NULL;
    if (!ok) {
        if (b) {
            for (size_t k = 0; b->names && k < nk; k++) free(b->names[k]);
            free(b->names);
            free(b->children);
            free(b->parts);
            free(b);
        }
        inner->release(inner);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    b->inner = *inner;
    inner->release = NULL;
    for (int64_t i = 0; i < ni; i++) b->children[i] = b->inner.children[i];
    size_t j = 0;
    for (size_t k = 0; k < p->nkeys; k++) {
        if (!keys[k]) continue;
        b->parts[j] = (struct ArrowSchema){.format = p->is_int[k] ? "i" : "u", .name = b->names[j],
                                           .flags = ARROW_FLAG_NULLABLE, .release = release_part_schema};
        b->children[ni + (int64_t)j] = &b->parts[j];
        j++;
    }
    b->nparts = nk;
    *out = (struct ArrowSchema){.format = "+s", .name = "", .n_children = (int64_t)nc, .children = b->children,
                                .private_data = b, .release = release_schema_block};
    return PQ_OK;
}

/* The output schema of reader r (NULL: opening it failed, err says why)
 * after its select stage, with the partition fields `keys` after its own
 * (or alone, with drop_inner). Closes r. */
/* Paths into VARIANT columns among a scan's columns (pq_dataset_scan):
 * cut from each file's batches (pq_variant_project_batch). */
typedef struct path_list {
    char **paths;  /* as named */
    size_t n;
    char **keep;   /* VARIANT columns some of whose own leaves were named too */
    size_t nkeep;
} path_list;

static void path_list_free(path_list *l)
{
    for (size_t k = 0; k < l->n; k++) free(l->paths[k]);
    for (size_t k = 0; k < l->nkeep; k++) free(l->keep[k]);
    free(l->paths);
    free(l->keep);
    memset(l, 0, sizeof *l);
}

static bool push_name(char ***v, size_t *n, const char *name, size_t len)
{
    char **grown = realloc(*v, (*n + 1) * sizeof **v);
    if (!grown) return false;
    *v = grown;
    if (!(grown[*n] = strndup(name, len))) return false;
    (*n)++;
    return true;
}

static pq_status reader_schema(pq_reader *r, const pq_ds_partitions *p, const bool *keys, bool drop_inner,
                               const path_list *paths, struct ArrowSchema *out, pq_error *err)
{
    struct ArrowSchema inner;
    pq_status st = r ? pq_reader_advance_to(r, PQ_STAGE_SELECT, err) : err->code;
    if (st == PQ_OK) st = pq_reader_output_schema(r, &inner, err);
    pq_reader_close(r);
    if (st == PQ_OK && paths && paths->n) {
        struct ArrowSchema projected;
        st = pq_variant_project_schema(&inner, (const char *const *)paths->paths, paths->n,
                                       (const char *const *)paths->keep, paths->nkeep, &projected, err);
        inner = projected;
    }
    return st == PQ_OK ? with_partitions(p, keys, drop_inner, &inner, out, err) : st;
}

pq_status pq_dataset_schema(const pq_dataset *ds, struct ArrowSchema *out, pq_error *err)
{
    pq_error local;
    if (!err) err = &local;
    if (out) memset(out, 0, sizeof *out);
    if (!ds || !out) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "dataset and schema must not be NULL");
    bool *all = calloc(ds->parts.nkeys ? ds->parts.nkeys : 1, sizeof *all);
    if (!all) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < ds->parts.nkeys; k++) all[k] = true;
    pq_reader_options o = file_options(ds, 0);
    pq_status st = reader_schema(open_file(ds, 0, &o, err), &ds->parts, all, false, NULL, out, err);
    free(all);
    return st;
}

/* ---------------------------------------------------------------------------
 * Scans
 * ------------------------------------------------------------------------- */

/* A file a window task decoded whole (scans on more than one thread). */
typedef struct file_out {
    size_t file;
    struct ArrowArray *batches;
    size_t n, cap, pos;
    int rc;                    /* 0, or the errno value of a failure (msg says what) */
    char msg[PQ_ERROR_MESSAGE_SIZE];
} file_out;

typedef struct scan_state {
    pq_dataset *ds;            /* the stream's own: files, footers and partitions */
    size_t *files;             /* the files to read (after pruning), in order */
    size_t nfiles, next;
    uint32_t *columns;         /* the files' leaves to read (NULL: all) */
    size_t ncolumns;
    path_list paths;           /* VARIANT paths cut from the batches */
    bool *keys;                /* per partition key: delivered */
    size_t nkeys;
    bool keys_only;            /* only partition keys asked for: the file column read for the
                                * row counts is dropped from the batches */
    pq_expr *filter;           /* the terms each file's reader evaluates, or NULL */
    uint64_t batch_rows;
    struct ArrowArrayStream cur; /* the current file's stream (release NULL: none) */
    struct ArrowSchema cur_schema; /* its schema, when paths are cut from its batches */
    size_t cur_file;
    unsigned window;           /* files decoded at once (1: one row group at a time) */
    file_out *outs;            /* the window's files, in order */
    size_t outs_n, outs_at;
    bool failed;
    int error_code;
    char error[PQ_ERROR_MESSAGE_SIZE];
} scan_state;

static void window_free(scan_state *s)
{
    for (size_t j = 0; s->outs && j < s->outs_n; j++) {
        file_out *f = &s->outs[j];
        for (size_t b = f->pos; b < f->n; b++)
            if (f->batches[b].release) f->batches[b].release(&f->batches[b]);
        free(f->batches);
    }
    free(s->outs);
    s->outs = NULL;
    s->outs_n = s->outs_at = 0;
}

static void scan_free(scan_state *s)
{
    if (!s) return;
    window_free(s);
    if (s->cur.release) s->cur.release(&s->cur);
    if (s->cur_schema.release) s->cur_schema.release(&s->cur_schema);
    path_list_free(&s->paths);
    pq_dataset_close(s->ds);
    free(s->files);
    free(s->columns);
    free(s->keys);
    pq_expr_free(s->filter);
    free(s);
}

/* A reader over file i for the scan, at the footer stage (threads: its
 * decode threads, 0 for the dataset's). */
static pq_reader *scan_reader(const scan_state *s, size_t i, uint32_t prune_more, unsigned threads, pq_error *err)
{
    pq_reader_options o = file_options(s->ds, i);
    if (threads) o.threads = threads;
    o.columns = s->columns;
    o.columns_len = s->columns ? s->ncolumns : 0;
    o.filter = s->filter;
    o.prune_disable |= prune_more;
    pq_reader *r = open_file(s->ds, i, &o, err);
    if (r && pq_reader_advance_to(r, PQ_STAGE_FOOTER, err) != PQ_OK) {
        pq_reader_close(r);
        return NULL;
    }
    return r;
}

/* Constant column of `n` rows: partition key k's value in file i. */
typedef struct const_block {
    const void *buffers[3];
    uint8_t *validity;
    void *data;
    int32_t *offsets;
} const_block;

static void release_const(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    const_block *b = a->private_data;
    free(b->validity);
    free(b->data);
    free(b->offsets);
    free(b);
    a->release = NULL;
}

static bool make_const(const pq_ds_partitions *p, size_t i, size_t k, int64_t n, struct ArrowArray *out)
{
    memset(out, 0, sizeof *out);
    const_block *b = calloc(1, sizeof *b);
    if (!b) return false;
    const char *v = p->values[i * p->nkeys + k];
    size_t len = v && !p->is_int[k] ? strlen(v) : 0;
    bool ok = true;
    if (!v) ok = (b->validity = calloc((size_t)(n + 7) / 8 + 1, 1)) != NULL; /* all null */
    if (p->is_int[k]) {
        int32_t *d = ok ? malloc((size_t)(n ? n : 1) * sizeof *d) : NULL;
        for (int64_t r = 0; d && r < n; r++) d[r] = v ? p->ints[i * p->nkeys + k] : 0;
        b->data = d;
        ok = ok && d;
    } else {
        if ((uint64_t)len * (uint64_t)n > INT32_MAX) ok = false;
        b->offsets = ok ? malloc((size_t)(n + 1) * sizeof *b->offsets) : NULL;
        b->data = ok ? malloc(len * (size_t)n + 1) : NULL;
        ok = ok && b->offsets && b->data;
        for (int64_t r = 0; ok && r <= n; r++) b->offsets[r] = (int32_t)(len * (size_t)r);
        for (int64_t r = 0; ok && r < n; r++) memcpy((char *)b->data + len * (size_t)r, v, len);
    }
    if (!ok) {
        free(b->validity);
        free(b->data);
        free(b->offsets);
        free(b);
        return false;
    }
    b->buffers[0] = b->validity;
    b->buffers[1] = p->is_int[k] ? b->data : (const void *)b->offsets;
    b->buffers[2] = b->data;
    *out = (struct ArrowArray){.length = n, .null_count = v ? 0 : n, .n_buffers = p->is_int[k] ? 2 : 3,
                               .buffers = b->buffers, .private_data = b, .release = release_const};
    return true;
}

/* A batch of the file's columns with the partition columns after them. */
typedef struct batch_block {
    struct ArrowArray inner;
    struct ArrowArray **children;
    struct ArrowArray *parts;
    const void *buffers[1];
} batch_block;

static void release_batch_block(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    batch_block *b = a->private_data;
    for (int64_t i = 0; i < a->n_children; i++)
        if (a->children[i]->release) a->children[i]->release(a->children[i]);
    if (b->inner.release) b->inner.release(&b->inner);
    free(b->children);
    free(b->parts);
    free(b);
    a->release = NULL;
}

static bool add_partitions(const scan_state *s, size_t file, struct ArrowArray *batch, struct ArrowArray *out)
{
    size_t nk = 0;
    for (size_t k = 0; k < s->nkeys; k++) nk += s->keys[k];
    if (!nk) {
        *out = *batch;
        batch->release = NULL;
        return true;
    }
    batch_block *b = calloc(1, sizeof *b);
    int64_t ni = s->keys_only ? 0 : batch->n_children;
    size_t nc = (size_t)ni + nk;
    if (b) b->children = calloc(nc, sizeof *b->children);
    if (b) b->parts = calloc(nk, sizeof *b->parts);
    bool ok = b && b->children && b->parts;
    size_t j = 0;
    for (size_t k = 0; ok && k < s->nkeys; k++)
        if (s->keys[k]) ok = make_const(&s->ds->parts, file, k, batch->length, &b->parts[j++]);
    if (!ok) {
        for (size_t q = 0; b && b->parts && q < j; q++)
            if (b->parts[q].release) b->parts[q].release(&b->parts[q]);
        if (b) {
            free(b->children);
            free(b->parts);
            free(b);
        }
        return false;
    }
    b->inner = *batch;
    batch->release = NULL;
    for (int64_t i = 0; i < ni; i++) b->children[i] = b->inner.children[i];
    for (size_t q = 0; q < nk; q++) b->children[ni + (int64_t)q] = &b->parts[q];
    *out = (struct ArrowArray){.length = b->inner.length, .null_count = 0, .n_buffers = 1, .buffers = b->buffers,
                               .n_children = (int64_t)nc, .children = b->children, .private_data = b,
                               .release = release_batch_block};
    return true;
}

static int scan_fail(scan_state *s, int code, const char *msg)
{
    snprintf(s->error, sizeof s->error, "%s", msg);
    s->error_code = code;
    s->failed = true;
    return code;
}

/* Batch *b of file stream fs with the scan's VARIANT paths cut from it
 * (*fschema: the stream's schema, fetched on the first call); 0 or an
 * errno value with msg set (the batch released). */
static int cut_paths(const scan_state *s, struct ArrowArrayStream *fs, struct ArrowSchema *fschema,
                     struct ArrowArray *b, char *msg, size_t cap, const char *path)
{
    if (!s->paths.n) return 0;
    int rc = fschema->release ? 0 : fs->get_schema(fs, fschema);
    if (rc != 0) {
        const char *m = fs->get_last_error(fs);
        snprintf(msg, cap, "%.96s: %.150s", path, m ? m : "no schema");
        b->release(b);
        return rc;
    }
    pq_error err;
    struct ArrowArray out;
    if (pq_variant_project_batch(b, fschema, (const char *const *)s->paths.paths, s->paths.n,
                                 (const char *const *)s->paths.keep, s->paths.nkeep, &out, &err) != PQ_OK) {
        snprintf(msg, cap, "%.96s: %.150s", path, err.message);
        return err.code == PQ_ERR_NOMEM ? ENOMEM : EIO;
    }
    *b = out;
    return 0;
}

/* Window task j: its file decoded whole on its share of the threads (one
 * when the window has as many files as threads), every batch kept. */
static bool window_task(void *ctx, size_t j, unsigned worker)
{
    (void)worker;
    scan_state *s = ctx;
    file_out *f = &s->outs[j];
    pq_error err;
    struct ArrowArrayStream fs = {0};
    struct ArrowSchema fschema = {0};
    /* fewer files than threads: the threads shared among them */
    unsigned threads = s->outs_n && s->window / s->outs_n > 1 ? (unsigned)(s->window / s->outs_n) : 1;
    pq_reader *r = scan_reader(s, f->file, 0, threads, &err);
    pq_status st = r ? pq_reader_export_stream(r, s->batch_rows, &fs, &err) : err.code;
    pq_reader_close(r);
    const char *path = s->ds->files.v[f->file].path;
    if (st != PQ_OK) {
        snprintf(f->msg, sizeof f->msg, "%.96s: %.150s", path, err.message);
        f->rc = st == PQ_ERR_NOMEM ? ENOMEM : EIO;
        return false;
    }
    for (;;) {
        if (f->n == f->cap) {
            size_t cap = f->cap ? 2 * f->cap : 8;
            struct ArrowArray *v = realloc(f->batches, cap * sizeof *v);
            if (!v) {
                snprintf(f->msg, sizeof f->msg, "%.96s: out of memory", path);
                f->rc = ENOMEM;
                break;
            }
            f->batches = v;
            f->cap = cap;
        }
        int rc = fs.get_next(&fs, &f->batches[f->n]);
        if (rc != 0) {
            const char *m = fs.get_last_error(&fs);
            snprintf(f->msg, sizeof f->msg, "%.96s: %.150s", path, m ? m : "read failed");
            f->rc = rc;
            break;
        }
        if (!f->batches[f->n].release) break;
        if ((rc = cut_paths(s, &fs, &fschema, &f->batches[f->n], f->msg, sizeof f->msg, path)) != 0) {
            f->rc = rc;
            break;
        }
        f->n++;
    }
    if (fschema.release) fschema.release(&fschema);
    fs.release(&fs);
    return f->rc == 0;
}

/* The next batch from the window, refilled with the next files (decoded
 * at once, one per thread) when it is done; 0 with out->release NULL at
 * the end. */
static int window_next(scan_state *s, struct ArrowArray *out)
{
    for (;;) {
        if (s->outs_at < s->outs_n) {
            file_out *f = &s->outs[s->outs_at];
            if (f->rc) return scan_fail(s, f->rc, f->msg);
            if (f->pos == f->n) {
                s->outs_at++;
                continue;
            }
            struct ArrowArray batch = f->batches[f->pos++];
            if (!add_partitions(s, f->file, &batch, out)) {
                batch.release(&batch);
                return scan_fail(s, ENOMEM, "out of memory adding partition columns");
            }
            return 0;
        }
        window_free(s);
        if (s->next == s->nfiles) return 0;
        size_t k = s->nfiles - s->next < s->window ? s->nfiles - s->next : s->window;
        if (!(s->outs = calloc(k, sizeof *s->outs))) return scan_fail(s, ENOMEM, "out of memory");
        for (size_t j = 0; j < k; j++) s->outs[j].file = s->files[s->next + j];
        s->next += k;
        s->outs_n = k;
        pq_parallel_for(k, (unsigned)k, window_task, s);
    }
}

static int scan_get_next(struct ArrowArrayStream *stream, struct ArrowArray *out)
{
    scan_state *s = stream->private_data;
    memset(out, 0, sizeof *out);
    if (s->failed) return s->error_code;
    /* Many files: a window of them decoded at once, one per thread; one
     * file: its own stream, on every thread, a window of row groups at a time. */
    if (s->window > 1 && s->nfiles > 1) return window_next(s, out);
    pq_error err;
    for (;;) {
        if (!s->cur.release) {
            if (s->next == s->nfiles) return 0; /* the end */
            s->cur_file = s->files[s->next++];
            pq_reader *r = scan_reader(s, s->cur_file, 0, 0, &err);
            pq_status st = r ? pq_reader_export_stream(r, s->batch_rows, &s->cur, &err) : err.code;
            pq_reader_close(r);
            if (st != PQ_OK) {
                char msg[PQ_ERROR_MESSAGE_SIZE];
                snprintf(msg, sizeof msg, "%.96s: %.150s", s->ds->files.v[s->cur_file].path, err.message);
                return scan_fail(s, st == PQ_ERR_NOMEM ? ENOMEM : EIO, msg);
            }
        }
        struct ArrowArray batch;
        int rc = s->cur.get_next(&s->cur, &batch);
        if (rc != 0) {
            const char *m = s->cur.get_last_error(&s->cur);
            char msg[PQ_ERROR_MESSAGE_SIZE];
            snprintf(msg, sizeof msg, "%.96s: %.150s", s->ds->files.v[s->cur_file].path, m ? m : "read failed");
            return scan_fail(s, rc, msg);
        }
        if (!batch.release) { /* this file is done */
            s->cur.release(&s->cur);
            if (s->cur_schema.release) s->cur_schema.release(&s->cur_schema);
            continue;
        }
        char msg[PQ_ERROR_MESSAGE_SIZE];
        if ((rc = cut_paths(s, &s->cur, &s->cur_schema, &batch, msg, sizeof msg,
                            s->ds->files.v[s->cur_file].path)) != 0)
            return scan_fail(s, rc, msg);
        if (!add_partitions(s, s->cur_file, &batch, out)) {
            batch.release(&batch);
            return scan_fail(s, ENOMEM, "out of memory adding partition columns");
        }
        return 0;
    }
}

static int scan_get_schema(struct ArrowArrayStream *stream, struct ArrowSchema *out)
{
    scan_state *s = stream->private_data;
    pq_error err;
    pq_status st = reader_schema(scan_reader(s, s->nfiles ? s->files[0] : 0, 0, 0, &err), &s->ds->parts, s->keys,
                                 s->keys_only, &s->paths, out, &err);
    if (st != PQ_OK) {
        snprintf(s->error, sizeof s->error, "%s", err.message);
        return st == PQ_ERR_NOMEM ? ENOMEM : EIO;
    }
    return 0;
}

static const char *scan_get_last_error(struct ArrowArrayStream *stream)
{
    scan_state *s = stream->private_data;
    return s->error[0] ? s->error : NULL;
}

static void scan_release(struct ArrowArrayStream *stream)
{
    if (!stream || !stream->release) return;
    scan_free(stream->private_data);
    stream->release = NULL;
    stream->private_data = NULL;
}

/* The leaves of column name `name` in `schema` (a top-level field: all its
 * leaves; a leaf path: that leaf) appended to s->columns. */
static bool resolve_column(scan_state *s, const pq_schema *schema, const char *name)
{
    bool found = false;
    for (uint32_t l = 0; l < schema->leaves_len; l++) {
        const pq_leaf *lf = &schema->leaves[l];
        size_t nl = strlen(name);
        bool hit = strcmp(lf->path, name) == 0 || (strncmp(lf->path, name, nl) == 0 && lf->path[nl] == '.');
        if (!hit) continue;
        found = true;
        bool dup = false;
        for (size_t c = 0; c < s->ncolumns; c++) dup |= s->columns[c] == l;
        if (!dup) s->columns[s->ncolumns++] = l;
    }
    return found;
}

/* Column `name` resolved by resolve_column: when it names leaves of a
 * VARIANT column that paths are cut from too, that column is kept. */
static pq_status keep_variant(scan_state *s, const char *name, pq_error *err)
{
    const char *dot = strchr(name, '.');
    size_t len = dot ? (size_t)(dot - name) : strlen(name);
    for (size_t k = 0; k < s->paths.nkeep; k++)
        if (strlen(s->paths.keep[k]) == len && !strncmp(s->paths.keep[k], name, len)) return PQ_OK;
    return push_name(&s->paths.keep, &s->paths.nkeep, name, len) ? PQ_OK
                                                                   : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
}

/* A path into a VARIANT column of the first file (whose schema the files
 * share): the leaves it reads appended to s->columns, the path kept;
 * false when `name` is no such path. */
static bool resolve_path(scan_state *s, const pq_metadata *md, const char *name, pq_status *st, pq_error *err)
{
    size_t n = 0;
    pq_error perr;
    if (pq_variant_path_leaves(md, name, NULL, 0, &n, &perr) != PQ_OK) return false;
    uint32_t *leaves = malloc((n ? n : 1) * sizeof *leaves);
    if (!leaves || !push_name(&s->paths.paths, &s->paths.n, name, strlen(name))) {
        free(leaves);
        *st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        return true;
    }
    pq_variant_path_leaves(md, name, leaves, n, &n, &perr);
    for (size_t j = 0; j < n; j++) {
        bool dup = false;
        for (size_t c = 0; c < s->ncolumns; c++) dup |= s->columns[c] == leaves[j];
        if (!dup) s->columns[s->ncolumns++] = leaves[j];
    }
    free(leaves);
    *st = PQ_OK;
    return true;
}

static int by_leaf(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Whether file i's footer statistics leave a row group for the filter. */
typedef struct prune_job {
    scan_state *s;
    size_t *cand;
    uint8_t *keep;
    uint64_t *groups, *kept;
    pq_status *status;
    pq_error *errors;
} prune_job;

static bool prune_task(void *ctx, size_t j, unsigned worker)
{
    (void)worker;
    prune_job *job = ctx;
    size_t i = job->cand[j];
    pq_error *err = &job->errors[j];
    pq_reader *r = scan_reader(job->s, i, PQ_PRUNE_DICTIONARY | PQ_PRUNE_BLOOM_FILTER | PQ_PRUNE_PAGE_INDEX, 1, err);
    pq_status st = r ? pq_reader_advance_to(r, PQ_STAGE_SELECT, err) : err->code;
    size_t n = 0;
    if (st == PQ_OK) pq_reader_selected_row_groups(r, &n);
    job->groups[j] = r ? pq_metadata_file(pq_reader_metadata(r))->row_groups_len : 0;
    job->kept[j] = n;
    job->keep[j] = st == PQ_OK && n > 0;
    pq_reader_close(r);
    if (st != PQ_OK) {
        char what[PQ_ERROR_MESSAGE_SIZE];
        memcpy(what, err->message, sizeof what);
        pq_error_set(err, st, "%s: %s", job->s->ds->files.v[i].path, what);
    }
    job->status[j] = st;
    return st == PQ_OK;
}

/* Files that survive partition pruning, then statistics pruning. */
static pq_status prune_files(scan_state *s, const pq_expr *key_terms, pq_dataset_scan_stats *stats, pq_error *err)
{
    pq_dataset *ds = s->ds;
    size_t n = ds->files.n, nc = 0;
    size_t *cand = malloc((n ? n : 1) * sizeof *cand);
    if (!cand) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int t = key_terms ? pq_ds_partition_truth(key_terms, &ds->parts, i, err) : 1;
        if (t < 0) {
            free(cand);
            return err ? err->code : PQ_ERR_INVALID_ARGUMENT;
        }
        if (t == 1) cand[nc++] = i;
        else stats->files_pruned_partition++;
    }
    prune_job job = {.s = s, .cand = cand};
    job.keep = calloc(nc ? nc : 1, 1);
    job.groups = calloc(nc ? nc : 1, sizeof *job.groups);
    job.kept = calloc(nc ? nc : 1, sizeof *job.kept);
    job.status = calloc(nc ? nc : 1, sizeof *job.status);
    job.errors = calloc(nc ? nc : 1, sizeof *job.errors);
    s->files = malloc((nc ? nc : 1) * sizeof *s->files);
    pq_status st = job.keep && job.groups && job.kept && job.status && job.errors && s->files
                       ? PQ_OK
                       : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    if (st == PQ_OK && nc) {
        for (size_t j = 0; j < nc; j++) job.status[j] = PQ_ERR_STAGE;
        pq_parallel_for(nc, ds->opts.threads, prune_task, &job);
        for (size_t j = 0; st == PQ_OK && j < nc; j++)
            if (job.status[j] != PQ_OK) {
                if (err) *err = job.errors[j];
                st = job.status[j];
            }
    }
    for (size_t j = 0; st == PQ_OK && j < nc; j++) {
        stats->row_groups += job.groups[j];
        stats->row_groups_pruned += job.groups[j] - job.kept[j];
        if (job.keep[j]) s->files[s->nfiles++] = cand[j];
        else stats->files_pruned_statistics++;
    }
    free(cand);
    free(job.keep);
    free(job.groups);
    free(job.kept);
    free(job.status);
    free(job.errors);
    return st;
}

/* A dataset sharing ds's files, footers and partitions, for a stream to
 * own: the stream outlives pq_dataset_close(ds). */
static pq_dataset *share(const pq_dataset *ds, pq_error *err)
{
    pq_dataset *t = calloc(1, sizeof *t);
    if (!t) goto nomem;
    t->opts = ds->opts;
    t->reader = ds->reader;
    t->opts.cache = NULL; /* the footers are passed as metadata: no cache needed */
    if (pq_keys_copy(ds->keys, &t->keys, err) != PQ_OK) goto fail;
    t->reader.decryption = t->keys;
    if (ds->row_index_name && !(t->row_index_name = strdup(ds->row_index_name))) goto nomem;
    t->reader.row_index_name = t->row_index_name;
    if (ds->remote && !(t->remote = remote_dup(&ds->remote->o, err))) goto fail;
    t->opts.remote = t->remote ? &t->remote->o : NULL;
    t->files.v = calloc(ds->files.n, sizeof *t->files.v);
    t->md = calloc(ds->files.n, sizeof *t->md);
    if (!t->files.v || !t->md) goto nomem;
    for (size_t i = 0; i < ds->files.n; i++) {
        if (!(t->files.v[i].path = strdup(ds->files.v[i].path))) goto nomem;
        t->files.v[i].root_len = ds->files.v[i].root_len;
        t->files.v[i].size = ds->files.v[i].size;
        t->files.n = t->files.cap = i + 1;
        if (ds->files.v[i].version && !(t->files.v[i].version = strdup(ds->files.v[i].version))) goto nomem;
        t->md[i] = pq_metadata_retain(ds->md[i]);
    }
    const pq_ds_partitions *p = &ds->parts;
    size_t nk = p->nkeys, cells = p->nfiles * nk;
    if (nk) {
        t->parts.names = calloc(nk, sizeof *t->parts.names);
        t->parts.is_int = calloc(nk, sizeof *t->parts.is_int);
        t->parts.values = calloc(cells, sizeof *t->parts.values);
        t->parts.ints = calloc(cells, sizeof *t->parts.ints);
        if (!t->parts.names || !t->parts.is_int || !t->parts.values || !t->parts.ints) goto nomem;
        t->parts.nkeys = nk;
        t->parts.nfiles = p->nfiles;
        for (size_t k = 0; k < nk; k++)
            if (!(t->parts.names[k] = strdup(p->names[k]))) goto nomem;
        memcpy(t->parts.is_int, p->is_int, nk * sizeof *p->is_int);
        memcpy(t->parts.ints, p->ints, cells * sizeof *p->ints);
        for (size_t c = 0; c < cells; c++)
            if (p->values[c] && !(t->parts.values[c] = strdup(p->values[c]))) goto nomem;
    }
    return t;
fail: /* err set */
    pq_dataset_close(t);
    return NULL;
nomem:
    pq_dataset_close(t);
    pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    return NULL;
}

pq_status pq_dataset_export_stream(pq_dataset *ds, const pq_dataset_scan *scan, struct ArrowArrayStream *out,
                                   pq_dataset_scan_stats *stats, pq_error *err)
{
    pq_error local;
    if (!err) err = &local;
    pq_dataset_scan_stats sink;
    if (!stats) stats = &sink;
    memset(stats, 0, sizeof *stats);
    if (out) memset(out, 0, sizeof *out);
    if (!ds || !out) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "dataset and stream must not be NULL");
    pq_dataset_scan none = {0};
    if (!scan) scan = &none;
    scan_state *s = calloc(1, sizeof *s);
    if (!s) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    s->batch_rows = scan->batch_rows;
    s->window = ds->opts.threads ? ds->opts.threads : pq_parallel_cores();
    if (s->window > PQ_PARALLEL_MAX_THREADS) s->window = PQ_PARALLEL_MAX_THREADS;
    s->ds = share(ds, err);
    const pq_schema *schema = pq_metadata_schema(ds->md[0]);
    s->nkeys = ds->parts.nkeys;
    s->keys = calloc(s->nkeys ? s->nkeys : 1, sizeof *s->keys);
    pq_status st = s->ds && s->keys ? PQ_OK : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    if (st == PQ_OK && scan->columns) {
        s->columns = malloc((schema->leaves_len ? schema->leaves_len : 1) * sizeof *s->columns);
        if (!s->columns) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        for (size_t c = 0; st == PQ_OK && c < scan->columns_len; c++) {
            const char *name = scan->columns[c];
            int k = name ? pq_ds_partition_key(&ds->parts, name) : -1;
            if (name && ds->row_index_name && strcmp(name, ds->row_index_name) == 0)
                continue; /* the row index comes with every batch */
            if (k >= 0) s->keys[k] = true;
            else if (name && resolve_column(s, schema, name))
                st = keep_variant(s, name, err);
            else if (!name || !resolve_path(s, ds->md[0], name, &st, err))
                st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "no column or partition key '%s' in the dataset",
                                  name ? name : "(null)");
        }
        if (st == PQ_OK) qsort(s->columns, s->ncolumns, sizeof *s->columns, by_leaf); /* file order */
        if (st == PQ_OK && s->ncolumns == 0) { /* only partition keys: a leaf read for the row counts */
            s->columns[0] = 0;
            s->ncolumns = 1;
            s->keys_only = true;
        }
    } else if (st == PQ_OK) {
        for (size_t k = 0; k < s->nkeys; k++) s->keys[k] = true;
    }
    pq_expr *key_terms = NULL;
    if (st == PQ_OK) st = pq_ds_split_filter(scan->filter, &ds->parts, &key_terms, &s->filter, err);
    if (st == PQ_OK) {
        stats->files = ds->files.n;
        st = prune_files(s, key_terms, stats, err);
    }
    pq_expr_free(key_terms);
    if (st != PQ_OK) {
        scan_free(s);
        return st;
    }
    out->get_schema = scan_get_schema;
    out->get_next = scan_get_next;
    out->get_last_error = scan_get_last_error;
    out->release = scan_release;
    out->private_data = s;
    return PQ_OK;
}
