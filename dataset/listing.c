/*
 * listing.c — the files of a dataset: paths given as files, directories
 * (walked below, in sorted order) or patterns (fnmatch on the last segment,
 * "**" before it for every level), each with the root its partition
 * segments are read under.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dataset/dataset_internal.h"
#include "metadata/error.h"

/* Directory levels walked at most (a deeper tree, or a symlink loop, fails). */
#define WALK_MAX_DEPTH 64

static pq_status add_file(pq_ds_files *f, const char *path, size_t root_len, pq_error *err)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        pq_ds_file *v = realloc(f->v, cap * sizeof *v);
        if (!v) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory listing files");
        f->v = v;
        f->cap = cap;
    }
    char *p = strdup(path);
    if (!p) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory listing files");
    f->v[f->n++] = (pq_ds_file){p, root_len};
    return PQ_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file below `dir` (names starting '.' or '_' skipped), in sorted
 * order, whose name matches `pattern` (NULL: all); below subdirectories
 * too when `deep`. */
static pq_status walk(pq_ds_files *f, const char *dir, size_t root_len, const char *pattern, bool deep, int depth,
                      pq_error *err)
{
    if (depth > WALK_MAX_DEPTH)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "%s: directories nested more than %d deep",
                            dir, WALK_MAX_DEPTH);
    DIR *d = opendir(dir);
    if (!d) return pq_error_set(err, PQ_ERR_IO, "%s: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    pq_status st = PQ_OK;
    for (struct dirent *e; st == PQ_OK && (e = readdir(d));) {
        if (e->d_name[0] == '.' || e->d_name[0] == '_') continue; /* hidden, or _SUCCESS / _metadata */
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **v = realloc(names, cap * sizeof *v);
            if (!v) {
                st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory listing %s", dir);
                break;
            }
            names = v;
        }
        if (!(names[n] = strdup(e->d_name))) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory listing %s", dir);
        else n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    size_t dl = strlen(dir);
    for (size_t i = 0; st == PQ_OK && i < n; i++) {
        size_t len = dl + 1 + strlen(names[i]) + 1;
        char *path = malloc(len);
        if (!path) {
            st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory listing %s", dir);
            break;
        }
        snprintf(path, len, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", names[i]);
        struct stat sb;
        if (stat(path, &sb) != 0) {
            st = pq_error_set(err, PQ_ERR_IO, "%s: %s", path, strerror(errno));
        } else if (S_ISDIR(sb.st_mode)) {
            if (deep) st = walk(f, path, root_len, pattern, deep, depth + 1, err);
        } else if (S_ISREG(sb.st_mode) && (!pattern || fnmatch(pattern, names[i], 0) == 0)) {
            st = add_file(f, path, root_len, err);
        }
        free(path);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return st;
}

static bool has_wildcard(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '*' || s[i] == '?' || s[i] == '[') return true;
    return false;
}

/* The root of `dir` for partition segments: its length with a '/'. */
static size_t root_length(const char *dir)
{
    size_t n = strlen(dir);
    return n && dir[n - 1] == '/' ? n : n + 1;
}

static pq_status list_one(pq_ds_files *f, const char *path, pq_error *err)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dir_len = slash ? (size_t)(slash - path) : 0;
    if (has_wildcard(path, dir_len)) {
        /* Only "**" may stand in the directory part, as its last segment. */
        const char *star2 = dir_len >= 2 ? path + dir_len - 2 : NULL;
        bool deep = star2 && star2[0] == '*' && star2[1] == '*' && (star2 == path || star2[-1] == '/');
        if (!deep || has_wildcard(path, dir_len - 2))
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                "%s: wildcards only in the last segment, or a whole \"**\" segment before it", path);
        size_t top_len = star2 == path ? 0 : (size_t)(star2 - 1 - path);
        char *top = strndup(path, top_len);
        if (!top) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        const char *dir = top_len ? top : ".";
        pq_status st = walk(f, dir, top_len ? root_length(top) : 2, base, true, 0, err);
        free(top);
        return st;
    }
    if (has_wildcard(base, strlen(base))) {
        char *dir = slash ? strndup(path, dir_len ? dir_len : 1) : strdup(".");
        if (!dir) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        pq_status st = walk(f, dir, slash ? root_length(dir) : 2, base, false, 0, err);
        free(dir);
        return st;
    }
    struct stat sb;
    if (stat(path, &sb) != 0) return pq_error_set(err, PQ_ERR_IO, "%s: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode)) return walk(f, path, root_length(path), NULL, true, 0, err);
    /* A file given by name: no partition segments of its own. */
    return add_file(f, path, strlen(path) - strlen(base), err);
}

pq_status pq_ds_list(const char *const *paths, size_t n, pq_ds_files *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        if (!paths[i]) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "path %zu is NULL", i);
        size_t before = out->n;
        pq_status st = list_one(out, paths[i], err);
        if (st == PQ_OK && out->n == before)
            st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "%s: no file", paths[i]);
        if (st != PQ_OK) {
            pq_ds_files_free(out);
            return st;
        }
    }
    if (!out->n) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "a dataset needs at least one path");
    return PQ_OK;
}

void pq_ds_files_free(pq_ds_files *f)
{
    for (size_t i = 0; f->v && i < f->n; i++) free(f->v[i].path);
    free(f->v);
    memset(f, 0, sizeof *f);
}
