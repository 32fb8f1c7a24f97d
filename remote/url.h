/*
 * url.h — the locations remote/ reads: http(s) URLs and s3://bucket/key,
 * and how an S3 object becomes an HTTP URL. Internal.
 */
#ifndef PQ_REMOTE_URL_H
#define PQ_REMOTE_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "pq_error.h"

typedef enum pq_url_scheme { PQ_URL_HTTP = 1, PQ_URL_HTTPS, PQ_URL_S3 } pq_url_scheme;

typedef struct pq_url {
    pq_url_scheme scheme;
    char *bucket; /* S3: the bucket; else NULL */
    char *key;    /* S3: the key (may be ""); else NULL */
} pq_url;

/* Parse `text`. http(s) URLs need a host and no spaces or control
 * characters; s3 URLs a bucket of letters, digits, '.', '-' and '_'. */
pq_status pq_url_parse(const char *text, pq_url *out, pq_error *err);
void pq_url_free(pq_url *u);

/* Append `s` to `buf` (of `cap` bytes, at *len) with every byte outside
 * A-Z a-z 0-9 - . _ ~ written as %XX, '/' kept when `keep_slash`. Returns
 * false when it does not fit. */
bool pq_url_encode(char *buf, size_t cap, size_t *len, const char *s, bool keep_slash);

/* Check an endpoint ("http://host[:port]" or "https://host", no path,
 * query or user part) and split it: *scheme_len is the length of
 * "http://" or "https://", the host[:port] follows. */
pq_status pq_url_check_endpoint(const char *endpoint, size_t *scheme_len, pq_error *err);

/* The HTTP URL of bucket/key on `endpoint` (malloc'd), path style
 * (endpoint/bucket/key) or virtual-host style (bucket.host/key); `query`
 * (already encoded, may be NULL) is appended after '?'. */
char *pq_url_s3_http(const char *endpoint, bool virtual_host, const char *bucket, const char *key,
                     const char *query, pq_error *err);

#endif
