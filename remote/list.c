/*
 * list.c — the objects under an S3 prefix (ListObjectsV2, page by page).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "remote/http.h"
#include "remote/options.h"
#include "remote/s3.h"
#include "remote/url.h"
#include "remote/xml.h"

#define MAX_OBJECTS 1000000
#define PAGE_BODY_MAX (64u << 20)
#define MAX_PAGES 100000

static int by_url(const void *a, const void *b)
{
    return strcmp(((const pq_remote_object *)a)->url, ((const pq_remote_object *)b)->url);
}

void pq_remote_objects_free(pq_remote_object *objects, size_t count)
{
    for (size_t i = 0; objects && i < count; i++) {
        free(objects[i].url);
        free(objects[i].version);
    }
    free(objects);
}

/* Add the <Contents> of one page. */
static pq_status take_page(const char *xml, size_t len, const char *bucket, pq_remote_object **out, size_t *n,
                           size_t *cap, pq_error *err)
{
    size_t pos = 0;
    const char *body;
    size_t bl;
    while (pq_xml_next(xml, len, &pos, "Contents", &body, &bl)) {
        char *key = pq_xml_text(body, bl, "Key");
        char *size = pq_xml_text(body, bl, "Size");
        char *etag = pq_xml_text(body, bl, "ETag");
        char *end = NULL;
        unsigned long long sz = size ? strtoull(size, &end, 10) : 0;
        pq_status st = PQ_OK;
        if (!key || !size || !end || *end || end == size) {
            st = pq_error_set(err, PQ_ERR_IO, "a ListObjectsV2 answer from bucket %s has an entry without a "
                              "Key or a Size", bucket);
        } else if (*n == MAX_OBJECTS) {
            st = pq_error_set(err, PQ_ERR_MEMORY_LIMIT, "more than %d objects under the prefix", MAX_OBJECTS);
        } else if (key[0] && (key[strlen(key) - 1] != '/' || sz)) { /* "dir/" markers hold nothing */
            if (*n == *cap) {
                size_t nc = *cap ? *cap * 2 : 64;
                pq_remote_object *o = realloc(*out, nc * sizeof *o);
                if (!o) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
                else {
                    *out = o;
                    *cap = nc;
                }
            }
            if (st == PQ_OK) {
                size_t ul = strlen(bucket) + strlen(key) + 7;
                pq_remote_object *o = &(*out)[*n];
                o->url = malloc(ul);
                o->version = etag ? etag : strdup("");
                etag = NULL;
                o->size = sz;
                if (o->url) snprintf(o->url, ul, "s3://%s/%s", bucket, key);
                if (!o->url || !o->version) {
                    free(o->url);
                    free(o->version);
                    st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
                } else {
                    (*n)++;
                }
            }
        }
        free(key);
        free(size);
        free(etag);
        if (st != PQ_OK) return st;
    }
    return PQ_OK;
}

pq_status pq_remote_list(const char *url, const pq_remote_options *opts, pq_remote_object **out, size_t *count,
                         pq_error *err)
{
    if (!out || !count) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "NULL argument");
    *out = NULL;
    *count = 0;
    pq_remote_options o;
    pq_status st = pq_remote_options_take(&o, opts, err);
    if (st != PQ_OK) return st;
    pq_url u;
    st = pq_url_parse(url, &u, err);
    if (st != PQ_OK) return st;
    if (u.scheme != PQ_URL_S3) {
        pq_url_free(&u);
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "'%.160s' cannot be listed: an http(s) URL names one file "
                            "(only s3:// prefixes are listed)", url);
    }
    pq_s3_target t;
    st = pq_s3_resolve(&u, &o, &t, err);
    if (st != PQ_OK) {
        pq_url_free(&u);
        return st;
    }
    pq_http_client c;
    st = pq_s3_client(&t, &o, &c, err);
    if (st != PQ_OK) {
        pq_s3_target_free(&t);
        pq_url_free(&u);
        return st;
    }
    size_t cap = 0, n = 0;
    pq_remote_object *objs = NULL;
    char *token = NULL;
    for (int page = 0; st == PQ_OK && page < MAX_PAGES; page++) {
        /* Query parameters in the order SigV4's canonical request sorts them. */
        size_t qcap = 3 * (strlen(u.key) + (token ? strlen(token) : 0)) + 96;
        char *query = malloc(qcap);
        if (!query) {
            st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
            break;
        }
        size_t ql = 0;
        query[0] = 0;
        if (token) {
            ql = (size_t)snprintf(query, qcap, "continuation-token=");
            pq_url_encode(query, qcap, &ql, token, false);
            query[ql++] = '&';
            query[ql] = 0;
        }
        ql += (size_t)snprintf(query + ql, qcap - ql, "list-type=2&prefix=");
        pq_url_encode(query, qcap, &ql, u.key, false);
        char *http_url = pq_url_s3_http(t.endpoint, t.virtual_host, u.bucket, "", query, err);
        free(query);
        if (!http_url) {
            st = err ? err->code : PQ_ERR_NOMEM;
            break;
        }
        pq_http_request q;
        memset(&q, 0, sizeof q);
        q.url = http_url;
        q.kind = PQ_HTTP_BODY;
        q.body_cap = PAGE_BODY_MAX;
        st = pq_http_run(&c, &q, 1, err);
        free(http_url);
        if (st != PQ_OK) break;
        const char *xml = (const char *)q.body;
        size_t len = q.body_len;
        st = take_page(xml ? xml : "", len, u.bucket, &objs, &n, &cap, err);
        char *trunc = xml ? pq_xml_text(xml, len, "IsTruncated") : NULL;
        free(token);
        token = NULL;
        bool more = trunc && strcmp(trunc, "true") == 0;
        free(trunc);
        if (st == PQ_OK && more) {
            token = pq_xml_text(xml, len, "NextContinuationToken");
            if (!token || !*token)
                st = pq_error_set(err, PQ_ERR_IO, "a truncated ListObjectsV2 answer gave no continuation token");
        }
        free(q.body);
        if (!more) break;
    }
    free(token);
    pq_http_client_free(&c);
    pq_s3_target_free(&t);
    pq_url_free(&u);
    if (st != PQ_OK) {
        pq_remote_objects_free(objs, n);
        return st;
    }
    if (n) qsort(objs, n, sizeof *objs, by_url);
    *out = objs;
    *count = n;
    return PQ_OK;
}
