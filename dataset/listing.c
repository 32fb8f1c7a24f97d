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
#include "pq_remote.h"

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
    f->v[f->n++] = (pq_ds_file){p, root_len, 0, NULL};
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

/* Does the key part `rel` (below the listed prefix) hold a segment that
 * starts with '.' or '_' (hidden, _SUCCESS, _metadata)? */
static bool hidden_segment(const char *rel)
{
    for (const char *p = rel; *p;) {
        if (*p == '.' || *p == '_') return true;
        const char *slash = strchr(p, '/');
        if (!slash) break;
        p = slash + 1;
    }
    return false;
}

/* An s3:// location: an object, a prefix ("dir/" or a key that names no
 * object but has objects below it), or a pattern as for paths, matched
 * against the keys below the pattern's directory. */
static pq_status list_s3(pq_ds_files *f, const char *url, const pq_remote_options *remote, pq_error *err)
{
    const char *bucket_end = strchr(url + 5, '/');
    size_t key_at = bucket_end ? (size_t)(bucket_end - url) + 1 : strlen(url);
    const char *key = url + key_at;
    const char *slash = strrchr(key, '/');
    const char *base = slash ? slash + 1 : key;
    size_t dir_len = slash ? (size_t)(slash - key) : 0;
    const char *pattern = NULL;
    bool deep = true;
    size_t prefix_len; /* of url: what is listed, and the root of the partition segments */
    if (has_wildcard(key, dir_len)) {
        const char *star2 = dir_len >= 2 ? key + dir_len - 2 : NULL;
        deep = star2 && star2[0] == '*' && star2[1] == '*' && (star2 == key || star2[-1] == '/');
        if (!deep || has_wildcard(key, dir_len - 2))
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                "%s: wildcards only in the last segment, or a whole \"**\" segment before it", url);
        prefix_len = key_at + (size_t)(star2 - key);
        pattern = base;
    } else if (has_wildcard(base, strlen(base))) {
        deep = false;
        prefix_len = key_at + (slash ? dir_len + 1 : 0);
        pattern = base;
    } else {
        prefix_len = strlen(url);
    }
    char *prefix = strndup(url, prefix_len);
    if (!prefix) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    pq_remote_object *objs = NULL;
    size_t n = 0;
    pq_status st = pq_remote_list(prefix, remote, &objs, &n, err);
    if (st != PQ_OK) {
        free(prefix);
        return st;
    }
    size_t first = f->n;
    if (!pattern) {
        /* The object itself, if there is one; else the objects below it as a directory. */
        for (size_t i = 0; i < n; i++)
            if (strcmp(objs[i].url, prefix) == 0) {
                size_t root = key_at + (slash ? dir_len + 1 : 0);
                st = add_file(f, objs[i].url, root, err);
                if (st == PQ_OK) {
                    f->v[f->n - 1].size = objs[i].size;
                    f->v[f->n - 1].version = objs[i].version;
                    objs[i].version = NULL;
                }
                break;
            }
    }
    if (st == PQ_OK && f->n == first) {
        size_t root = prefix_len;
        bool as_dir = !pattern && prefix_len > key_at && url[prefix_len - 1] != '/';
        if (as_dir) root++; /* "s3://b/dir" lists "dir/..." */
        for (size_t i = 0; st == PQ_OK && i < n; i++) {
            const char *u = objs[i].url;
            if (strlen(u) <= root || (as_dir && u[prefix_len] != '/')) continue;
            const char *rel = u + root;
            if (hidden_segment(rel)) continue;
            const char *last = strrchr(rel, '/');
            if (pattern && !deep && last) continue;
            if (pattern && fnmatch(pattern, last ? last + 1 : rel, 0) != 0) continue;
            st = add_file(f, u, root, err);
            if (st == PQ_OK) {
                f->v[f->n - 1].size = objs[i].size;
                f->v[f->n - 1].version = objs[i].version;
                objs[i].version = NULL;
            }
        }
    }
    pq_remote_objects_free(objs, n);
    free(prefix);
    return st;
}

static pq_status list_one(pq_ds_files *f, const char *path, const pq_remote_options *remote, pq_error *err)
{
    if (strncmp(path, "s3://", 5) == 0) return list_s3(f, path, remote, err);
    if (pq_is_url(path)) {
        /* http(s) cannot be listed: a URL names one file, with no partition segments. */
        const char *q = strchr(path, '?');
        size_t end = q ? (size_t)(q - path) : strlen(path);
        size_t root = end;
        while (root && path[root - 1] != '/') root--;
        return add_file(f, path, root, err);
    }
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

pq_status pq_ds_list(const char *const *paths, size_t n, const pq_remote_options *remote, pq_ds_files *out,
                     pq_error *err)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        if (!paths[i]) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "path %zu is NULL", i);
        size_t before = out->n;
        pq_status st = list_one(out, paths[i], remote, err);
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
    for (size_t i = 0; f->v && i < f->n; i++) {
        free(f->v[i].path);
        free(f->v[i].version);
    }
    free(f->v);
    memset(f, 0, sizeof *f);
}
