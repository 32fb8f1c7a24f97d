/*
 * partition.c — hive partitions: `key=value` path segments read, typed as
 * pyarrow infers them (int32 when every value is a 32-bit integer, else
 * string; `__HIVE_DEFAULT_PARTITION__` a null), and a filter's terms on
 * them decided per file.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset/dataset_internal.h"
#include "metadata/error.h"
#include "predicate/predicate.h"

#define HIVE_NULL "__HIVE_DEFAULT_PARTITION__"

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* s[0..n) URL-decoded into a new string, or NULL (bad escape: *bad). */
static char *url_decode(const char *s, size_t n, bool *bad)
{
    char *out = malloc(n + 1);
    if (!out) return NULL;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '%') {
            out[j++] = s[i];
            continue;
        }
        int hi = i + 1 < n ? hex_digit(s[i + 1]) : -1, lo = i + 2 < n ? hex_digit(s[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
            free(out);
            *bad = true;
            return NULL;
        }
        out[j++] = (char)(hi * 16 + lo);
        i += 2;
    }
    out[j] = '\0';
    return out;
}

/* A 32-bit integer as pyarrow's inference takes it: [-]digits. */
static bool parse_int32(const char *s, int32_t *out)
{
    if (!*s) return false;
    const char *p = s + (*s == '-');
    if (!*p) return false;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9') return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < INT32_MIN || v > INT32_MAX) return false;
    *out = (int32_t)v;
    return true;
}

void pq_ds_partitions_free(pq_ds_partitions *p)
{
    for (size_t k = 0; p->names && k < p->nkeys; k++) free(p->names[k]);
    for (size_t i = 0; p->values && i < p->nfiles * p->nkeys; i++) free(p->values[i]);
    free(p->names);
    free(p->is_int);
    free(p->values);
    free(p->ints);
    memset(p, 0, sizeof *p);
}

/* File f's `key=value` segments. With `define` (the first file, first
 * pass): their names become the keys. Otherwise the names are checked
 * against the keys and the values go to row i of the table. */
static pq_status read_file(const pq_ds_file *f, size_t i, pq_ds_partitions *p, const pq_ds_file *first, bool define,
                           pq_error *err)
{
    const char *rel = f->path + f->root_len, *end = strrchr(rel, '/');
    size_t k = 0;
    for (const char *seg = rel; end && seg < end;) {
        const char *next = memchr(seg, '/', (size_t)(end - seg));
        size_t len = next ? (size_t)(next - seg) : (size_t)(end - seg);
        const char *eq = memchr(seg, '=', len);
        if (eq && eq > seg) {
            size_t nl = (size_t)(eq - seg), vl = len - nl - 1;
            if (define) {
                char **names = realloc(p->names, (k + 1) * sizeof *names);
                if (!names) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
                p->names = names;
                if (!(p->names[k] = strndup(seg, nl))) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
                p->nkeys = k + 1;
            } else {
                if (k >= p->nkeys || strlen(p->names[k]) != nl || memcmp(p->names[k], seg, nl) != 0)
                    return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                        "%s: partition key '%.*s' where %s has %s%s%s (every file needs the same "
                                        "keys in the same order)",
                                        f->path, (int)nl, seg, first->path, k < p->nkeys ? "'" : "",
                                        k < p->nkeys ? p->names[k] : "no more keys", k < p->nkeys ? "'" : "");
                if (!(vl == strlen(HIVE_NULL) && memcmp(eq + 1, HIVE_NULL, vl) == 0)) {
                    bool bad = false;
                    char *v = url_decode(eq + 1, vl, &bad);
                    if (!v)
                        return bad ? pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "%s: a bad %%-escape in '%.*s'",
                                                  f->path, (int)len, seg)
                                   : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
                    p->values[i * p->nkeys + k] = v;
                }
            }
            k++;
        }
        seg += len + 1;
    }
    if (!define && k != p->nkeys)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "%s: %zu partition key%s where %s has %zu (every file needs the same keys)", f->path, k,
                            k == 1 ? "" : "s", first->path, p->nkeys);
    return PQ_OK;
}

pq_status pq_ds_partitions_read(const pq_ds_files *files, pq_ds_partitions *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    if (!files->n) return PQ_OK;
    pq_status st = read_file(&files->v[0], 0, out, &files->v[0], true, err);
    size_t nk = out->nkeys;
    if (st == PQ_OK && nk) {
        out->values = calloc(files->n * nk, sizeof *out->values);
        out->is_int = calloc(nk, sizeof *out->is_int);
        out->ints = calloc(files->n * nk, sizeof *out->ints);
        if (!out->values || !out->is_int || !out->ints) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        else out->nfiles = files->n;
    }
    for (size_t i = 0; st == PQ_OK && nk && i < files->n; i++)
        st = read_file(&files->v[i], i, out, &files->v[0], false, err);
    for (size_t k = 0; st == PQ_OK && k < nk; k++) {
        bool all = true, any = false;
        for (size_t i = 0; all && i < files->n; i++) {
            const char *v = out->values[i * nk + k];
            if (v) {
                any = true;
                all = parse_int32(v, &out->ints[i * nk + k]);
            }
        }
        out->is_int[k] = all && any;
    }
    if (st != PQ_OK) pq_ds_partitions_free(out);
    return st;
}

int pq_ds_partition_key(const pq_ds_partitions *p, const char *name)
{
    for (size_t k = 0; name && k < p->nkeys; k++)
        if (strcmp(p->names[k], name) == 0) return (int)k;
    return -1;
}

/* What expression e names: bit 0 a partition key, bit 1 anything else. */
static int names_of(const pq_expr *e, const pq_ds_partitions *p, int depth)
{
    if (!e || depth > 256) return 2;
    switch (e->written_kind) {
    case PQ_NODE_AND:
    case PQ_NODE_OR: return names_of(e->kids[0], p, depth + 1) | names_of(e->kids[1], p, depth + 1);
    case PQ_NODE_NOT: return names_of(e->kids[0], p, depth + 1);
    case PQ_NODE_CONST: return 0;
    case PQ_NODE_BBOX: return 2; /* a file's column: a key is no geometry */
    default: return pq_ds_partition_key(p, e->column) >= 0 ? 1 : 2;
    }
}

/* acc AND (a clone of) term. */
static pq_status and_term(pq_expr **acc, const pq_expr *term, pq_error *err)
{
    pq_expr *c = pq_expr_clone(term, err);
    if (!c) return err ? err->code : PQ_ERR_NOMEM;
    if (!*acc) {
        *acc = c;
        return PQ_OK;
    }
    pq_expr *both = pq_expr_and(*acc, c, err);
    if (!both) {
        pq_expr_free(c);
        return err ? err->code : PQ_ERR_NOMEM;
    }
    *acc = both;
    return PQ_OK;
}

static pq_status split(const pq_expr *e, const pq_ds_partitions *p, pq_expr **keys, pq_expr **rest, int depth,
                       pq_error *err)
{
    if (depth > 256) return pq_error_set(err, PQ_ERR_UNSUPPORTED, "filter: AND nested too deep");
    if (e->written_kind == PQ_NODE_AND) {
        pq_status st = split(e->kids[0], p, keys, rest, depth + 1, err);
        return st == PQ_OK ? split(e->kids[1], p, keys, rest, depth + 1, err) : st;
    }
    int n = names_of(e, p, 0);
    if (n == 3) {
        char text[160];
        pq_expr_format(e, text, sizeof text);
        return pq_error_set(err, PQ_ERR_UNSUPPORTED,
                            "filter: '%s' names a partition key and a file column in one term (put the key's "
                            "condition in a term of its own, joined by AND)",
                            text);
    }
    return and_term(n == 1 ? keys : rest, e, err);
}

pq_status pq_ds_split_filter(const pq_expr *filter, const pq_ds_partitions *p, pq_expr **keys, pq_expr **rest,
                             pq_error *err)
{
    *keys = *rest = NULL;
    if (!filter) return PQ_OK;
    pq_status st = split(filter, p, keys, rest, 0, err);
    if (st != PQ_OK) {
        pq_expr_free(*keys);
        pq_expr_free(*rest);
        *keys = *rest = NULL;
    }
    return st;
}

/* Order of key value (int or text) against literal l; -2 when the literal
 * does not fit the key's type. */
static int compare(const pq_ds_partitions *p, size_t k, size_t file, const pq_literal *l)
{
    size_t at = file * p->nkeys + k;
    if (p->is_int[k]) {
        int64_t x = p->ints[at];
        if (l->kind == PQ_LIT_INT) return (x > l->i) - (x < l->i);
        if (l->kind == PQ_LIT_DOUBLE) return ((double)x > l->d) - ((double)x < l->d);
        return -2;
    }
    if (l->kind != PQ_LIT_TEXT) return -2;
    const char *v = p->values[at];
    size_t vl = strlen(v), n = vl < l->text_len ? vl : l->text_len;
    int c = memcmp(v, l->text, n);
    if (c == 0) c = (vl > l->text_len) - (vl < l->text_len);
    return (c > 0) - (c < 0);
}

static int holds(pq_cmp_op op, int c)
{
    switch (op) {
    case PQ_CMP_EQ: return c == 0;
    case PQ_CMP_NE: return c != 0;
    case PQ_CMP_LT: return c < 0;
    case PQ_CMP_LE: return c <= 0;
    case PQ_CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

static int truth(const pq_expr *e, const pq_ds_partitions *p, size_t file, int depth, pq_error *err)
{
    if (!e || depth > 256) {
        pq_error_set(err, PQ_ERR_UNSUPPORTED, "filter: nested too deep");
        return -1;
    }
    int a, b;
    switch (e->written_kind) {
    case PQ_NODE_CONST: return e->truth;
    case PQ_NODE_NOT:
        a = truth(e->kids[0], p, file, depth + 1, err);
        return a < 0 ? a : a == 2 ? 2 : !a;
    case PQ_NODE_AND:
    case PQ_NODE_OR:
        if ((a = truth(e->kids[0], p, file, depth + 1, err)) < 0) return a;
        if ((b = truth(e->kids[1], p, file, depth + 1, err)) < 0) return b;
        if (e->written_kind == PQ_NODE_AND) return a == 0 || b == 0 ? 0 : a == 1 && b == 1 ? 1 : 2;
        return a == 1 || b == 1 ? 1 : a == 0 && b == 0 ? 0 : 2;
    default: break;
    }
    int k = pq_ds_partition_key(p, e->column);
    if (k < 0) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "filter: '%s' is not a partition key", e->column);
        return -1;
    }
    bool null = p->values[file * p->nkeys + (size_t)k] == NULL;
    if (e->written_kind == PQ_NODE_IS_NULL) return null == e->is_null;
    if (null) return 2;
    bool any = false;
    for (size_t i = 0; i < e->nlits; i++) {
        int c = compare(p, (size_t)k, file, &e->lits[i]);
        if (c == -2) {
            pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                         "filter: partition key '%s' is %s: compare it with %s", e->column,
                         p->is_int[k] ? "int32" : "a string", p->is_int[k] ? "a number" : "a quoted string");
            return -1;
        }
        if (e->written_kind == PQ_NODE_CMP) return holds(e->written_op, c);
        any |= c == 0;
    }
    return any;
}

int pq_ds_partition_truth(const pq_expr *e, const pq_ds_partitions *p, size_t file, pq_error *err)
{
    return truth(e, p, file, 0, err);
}
