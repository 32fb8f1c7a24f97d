/*
 * remote.c — one opened object (pq_remote): the open request, the bytes
 * it kept, ranged reads, and the pq_source over it.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "remote/http.h"
#include "remote/options.h"
#include "remote/s3.h"
#include "remote/url.h"

#define MAX_BATCH 65536 /* ranges in one read_ranges call */

struct pq_remote {
    atomic_uint refs;
    pq_http_client client;
    char *url;        /* as opened */
    char *http_url;   /* what is requested */
    uint64_t size;
    char *version;    /* ETag, else Last-Modified, else "" */
    char *if_match;   /* a strong ETag, sent with every read; NULL without one */
    bool version_is_etag; /* answers must carry the same ETag */
    uint8_t *tail;    /* the object's last tail_len bytes, from the open */
    size_t tail_len;
    _Atomic uint64_t tail_hits;
    bool have_client; /* client set up (its locks exist) */
};

int pq_is_url(const char *s)
{
    return s && (strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0 || strncmp(s, "s3://", 5) == 0);
}

static void remote_free(pq_remote *rm)
{
    if (rm->have_client) pq_http_client_free(&rm->client);
    free(rm->url);
    free(rm->http_url);
    free(rm->version);
    free(rm->if_match);
    free(rm->tail);
    free(rm);
}

static pq_status set_version(pq_remote *rm, const char *v, bool is_etag, pq_error *err)
{
    rm->version = strdup(v);
    rm->version_is_etag = is_etag && *v;
    /* If-Match compares strongly: a weak ETag (W/"...") would never match. */
    if (rm->version_is_etag && v[0] == '"') rm->if_match = strdup(v);
    if (!rm->version || (rm->version_is_etag && v[0] == '"' && !rm->if_match))
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    return PQ_OK;
}

/* The open: a suffix range (or HEAD) that gives size, version and tail. */
static pq_status open_request(pq_remote *rm, const pq_remote_options *o, pq_error *err)
{
    pq_http_request q;
    memset(&q, 0, sizeof q);
    q.url = rm->http_url;
    if (o->tail_bytes) {
        q.kind = PQ_HTTP_SUFFIX;
        q.length = o->tail_bytes;
        /* A server that ignores ranges sends the whole object (200): take it when small. */
        q.body_cap = o->tail_bytes > (16u << 20) ? o->tail_bytes : (16u << 20);
    } else {
        q.kind = PQ_HTTP_HEAD;
    }
    pq_status st = pq_http_run(&rm->client, &q, 1, err);
    if (st != PQ_OK) return st;
    if (q.kind == PQ_HTTP_HEAD) {
        if (!q.has_content_length) return pq_error_set(err, PQ_ERR_IO, "HEAD %.160s gave no Content-Length", q.url);
        rm->size = q.content_length;
    } else if (q.status == 416) {
        rm->size = 0; /* "bytes * /0": an empty object */
        uint64_t a, b, total;
        if (q.content_range[0] && pq_http_parse_content_range(q.content_range, &a, &b, &total)) rm->size = total;
        if (rm->size)
            return pq_error_set(err, PQ_ERR_IO, "GET %.160s: HTTP 416 for the last %u bytes of %" PRIu64,
                                q.url, o->tail_bytes, rm->size);
        free(q.body);
        q.body = NULL;
    } else if (q.status == 206) {
        uint64_t a, b, total;
        pq_http_parse_content_range(q.content_range, &a, &b, &total); /* checked by the engine */
        rm->size = total;
        rm->tail = q.body;
        rm->tail_len = q.body_len;
        q.body = NULL;
    } else { /* 200: the whole object */
        if (q.body_len > o->tail_bytes) {
            free(q.body);
            return pq_error_set(err, PQ_ERR_IO,
                                "GET %.160s: the server ignores byte ranges (HTTP 200 for a range); "
                                "pqstep reads remote files by ranges", q.url);
        }
        rm->size = q.body_len;
        rm->tail = q.body;
        rm->tail_len = q.body_len;
        q.body = NULL;
    }
    free(q.body);
    return set_version(rm, q.etag[0] ? q.etag : q.last_modified, q.etag[0] != 0, err);
}

pq_remote *pq_remote_open(const char *url, const pq_remote_options *opts, pq_error *err)
{
    pq_remote_options o;
    if (pq_remote_options_take(&o, opts, err) != PQ_OK) return NULL;
    pq_url u;
    if (pq_url_parse(url, &u, err) != PQ_OK) return NULL;
    pq_remote *rm = calloc(1, sizeof *rm);
    if (!rm) {
        pq_url_free(&u);
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        return NULL;
    }
    atomic_init(&rm->refs, 1);
    pq_status st = PQ_OK;
    rm->url = strdup(url);
    if (u.scheme == PQ_URL_S3) {
        if (!u.key[0] || u.key[strlen(u.key) - 1] == '/') {
            st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "'%.160s' names no object (a key is needed; "
                              "a prefix is listed by a dataset)", url);
        } else {
            pq_s3_target t;
            st = pq_s3_resolve(&u, &o, &t, err);
            if (st == PQ_OK) {
                rm->http_url = pq_url_s3_http(t.endpoint, t.virtual_host, u.bucket, u.key, NULL, err);
                st = rm->http_url ? pq_s3_client(&t, &o, &rm->client, err) : PQ_ERR_INVALID_ARGUMENT;
                rm->have_client = st == PQ_OK;
                pq_s3_target_free(&t);
            }
        }
    } else {
        rm->http_url = strdup(url);
        st = rm->http_url ? pq_s3_client(NULL, &o, &rm->client, err) : PQ_ERR_NOMEM;
        rm->have_client = st == PQ_OK;
    }
    pq_url_free(&u);
    if (st == PQ_OK && !rm->url) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    if (st == PQ_OK && o.known_size) {
        rm->size = o.known_size;
        const char *v = o.known_version ? o.known_version : "";
        st = set_version(rm, v, v[0] == '"' || strncmp(v, "W/", 2) == 0, err);
    } else if (st == PQ_OK) {
        st = open_request(rm, &o, err);
    }
    if (st != PQ_OK) {
        remote_free(rm);
        return NULL;
    }
    return rm;
}

pq_remote *pq_remote_retain(pq_remote *rm)
{
    if (rm) atomic_fetch_add(&rm->refs, 1);
    return rm;
}

void pq_remote_close(pq_remote *rm)
{
    if (rm && atomic_fetch_sub(&rm->refs, 1) == 1) remote_free(rm);
}

const char *pq_remote_url(const pq_remote *rm) { return rm->url; }
uint64_t pq_remote_size(const pq_remote *rm) { return rm->size; }
const char *pq_remote_version(const pq_remote *rm) { return rm->version; }

size_t pq_remote_cache_key(const pq_remote *rm, void *buf, size_t cap)
{
    char size[24];
    int sn = snprintf(size, sizeof size, "%" PRIu64, rm->size);
    size_t ul = strlen(rm->url), vl = strlen(rm->version);
    size_t n = ul + 1 + (size_t)sn + 1 + vl;
    if (buf && cap >= n) {
        char *p = buf;
        memcpy(p, rm->url, ul + 1);
        memcpy(p + ul + 1, size, (size_t)sn + 1);
        memcpy(p + ul + 2 + sn, rm->version, vl);
    }
    return n;
}

void pq_remote_get_stats(const pq_remote *rm, pq_remote_stats *out)
{
    pq_remote *m = (pq_remote *)rm; /* atomics are read, not changed */
    out->requests = atomic_load(&m->client.requests);
    out->bytes = atomic_load(&m->client.bytes);
    out->retries = atomic_load(&m->client.retries);
    out->tail_hits = atomic_load(&m->tail_hits);
}

pq_status pq_remote_read_ranges(pq_remote *rm, const pq_range *ranges, size_t n, void *const *dsts,
                                pq_error *err)
{
    if (!rm || (n && (!ranges || !dsts))) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "NULL argument");
    if (n > MAX_BATCH) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "%zu ranges in one call; at most %d",
                                           n, MAX_BATCH);
    uint64_t tail_start = rm->size - rm->tail_len;
    size_t need = 0;
    for (size_t i = 0; i < n; i++) {
        const pq_range *r = &ranges[i];
        if (r->offset > rm->size || r->length > rm->size - r->offset)
            return pq_error_set(err, PQ_ERR_IO, "read of %" PRIu64 " bytes at %" PRIu64 " is past the end of "
                                "%.160s (%" PRIu64 " bytes)", r->length, r->offset, rm->url, rm->size);
        if (r->length > SIZE_MAX / 2) return pq_error_set(err, PQ_ERR_MEMORY_LIMIT, "range too long");
        if (r->length && !(rm->tail_len && r->offset >= tail_start)) need++;
    }
    pq_http_request *qs = need ? calloc(need, sizeof *qs) : NULL;
    if (need && !qs) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for %zu requests", need);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const pq_range *r = &ranges[i];
        if (!r->length) continue;
        if (rm->tail_len && r->offset >= tail_start) {
            memcpy(dsts[i], rm->tail + (r->offset - tail_start), (size_t)r->length);
            atomic_fetch_add(&rm->tail_hits, 1);
            continue;
        }
        pq_http_request *q = &qs[k++];
        q->url = rm->http_url;
        q->kind = PQ_HTTP_RANGE;
        q->offset = r->offset;
        q->length = r->length;
        q->dst = dsts[i];
        q->if_match = rm->if_match;
    }
    pq_status st = pq_http_run(&rm->client, qs, need, err);
    /* The answers must come from the version opened (a server that ignores If-Match). */
    for (size_t i = 0; st == PQ_OK && i < need; i++)
        if (rm->version_is_etag && qs[i].etag[0] && strcmp(qs[i].etag, rm->version) != 0)
            st = pq_error_set(err, PQ_ERR_IO, "%.160s changed since it was opened (ETag %.60s, now %.60s)",
                              rm->url, rm->version, qs[i].etag);
    free(qs);
    return st;
}

pq_status pq_remote_read(pq_remote *rm, uint64_t offset, size_t len, void *dst, pq_error *err)
{
    pq_range r = {offset, len};
    void *d[1] = {dst};
    return pq_remote_read_ranges(rm, &r, 1, d, err);
}

/* ---------------------------------------------------------------------------
 * As a pq_source
 * ------------------------------------------------------------------------- */

static pq_status source_read_at(void *user, uint64_t offset, size_t len, void *dst, pq_error *err)
{
    return pq_remote_read(user, offset, len, dst, err);
}

static pq_status source_read_ranges(void *user, const pq_range *ranges, size_t n, void *const *dsts, pq_error *err)
{
    return pq_remote_read_ranges(user, ranges, n, dsts, err);
}

pq_status pq_source_open_url(const char *url, const pq_remote_options *opts, pq_source *out, pq_error *err)
{
    if (!out) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "source is NULL");
    memset(out, 0, sizeof *out);
    pq_remote *rm = pq_remote_open(url, opts, err);
    if (!rm) return err && err->code != PQ_OK ? err->code : PQ_ERR_IO;
    pq_remote_source(rm, out);
    return PQ_OK;
}

void pq_remote_source(pq_remote *rm, pq_source *out)
{
    memset(out, 0, sizeof *out);
    out->read_at = source_read_at;
    out->read_ranges = source_read_ranges;
    out->user = rm;
    out->size = rm ? rm->size : 0;
}

void pq_source_close_url(pq_source *src)
{
    if (!src || src->read_at != source_read_at) return;
    pq_remote_close(src->user);
    memset(src, 0, sizeof *src);
}
