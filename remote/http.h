/*
 * http.h — the request engine under remote/: batches of HTTP requests run
 * over libcurl's multi interface, at most a given number at once, each
 * retried with backoff while its failure is worth another try. Internal.
 */
#ifndef PQ_REMOTE_HTTP_H
#define PQ_REMOTE_HTTP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <curl/curl.h>

#include "pq_remote.h"

#define PQ_HTTP_POOL 64          /* idle easy handles kept for reuse */
#define PQ_HTTP_MULTIS 8         /* idle multi handles (each with its connections) kept */
#define PQ_HTTP_MULTI_CONNECTS 64 /* connections one multi handle keeps open */

/* How requests are sent, and what they cost: shared by every request of
 * one object (or one listing); thread-safe. */
typedef struct pq_http_client {
    bool sign;               /* S3: Signature V4 through libcurl (CURLOPT_AWS_SIGV4) */
    bool s3;                 /* S3 headers (x-amz-content-sha256) and S3 error bodies */
    bool follow_redirects;   /* plain http(s) only: a signed request is never redirected */
    bool verify_tls;
    char *sigv4;             /* "aws:amz:<region>:s3" */
    char *userpwd;           /* "<key id>:<secret>" */
    char *token_header;      /* "x-amz-security-token: ..." or NULL */
    char *ca_file;           /* CURLOPT_CAINFO, or NULL */
    uint32_t max_connections, max_retries, retry_base_ms, request_timeout_ms, connect_timeout_ms;
    CURLSH *share;           /* DNS and TLS sessions shared by all handles */
    pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
    pthread_mutex_t pool_lock;
    CURL *pool[PQ_HTTP_POOL];
    size_t npool;
    CURLM *multis[PQ_HTTP_MULTIS];
    size_t nmulti;
    _Atomic uint64_t requests, bytes, retries;
} pq_http_client;

/* `sigv4_region` not NULL makes the client sign with these credentials. */
pq_status pq_http_client_init(pq_http_client *c, const pq_remote_options *o, bool s3, const char *sigv4_region,
                              const char *key_id, const char *secret, const char *token, pq_error *err);
void pq_http_client_free(pq_http_client *c);

typedef enum pq_http_kind {
    PQ_HTTP_RANGE,  /* GET bytes [offset, offset+length) into dst: 206 (or 200 for the whole object) */
    PQ_HTTP_SUFFIX, /* GET the last `length` bytes into body: 206, 200 (whole object) or 416 (empty) */
    PQ_HTTP_BODY,   /* GET the whole body into body: 200 */
    PQ_HTTP_HEAD    /* HEAD: 200 */
} pq_http_kind;

typedef struct pq_http_request {
    /* In. */
    const char *url;
    pq_http_kind kind;
    uint64_t offset, length;
    uint8_t *dst;            /* RANGE: `length` bytes */
    size_t body_cap;         /* SUFFIX, BODY: most body bytes taken (more fails the request) */
    const char *if_match;    /* sent as If-Match when not NULL */
    /* Out, from the final answer. */
    long status;
    uint8_t *body;           /* SUFFIX, BODY: malloc'd, the caller frees */
    size_t body_len;
    char etag[256];
    char last_modified[128];
    char content_range[128];
    uint64_t content_length;
    bool has_content_length;
    /* The engine's own. */
    size_t got;
    bool overflow, in_body;
    uint32_t tries;
    uint64_t not_before_ms;
    char *err_body;
    size_t err_len;
    CURL *easy;
    struct curl_slist *headers;
    char errbuf[CURL_ERROR_SIZE];
    pq_http_client *client;
} pq_http_request;

/* Run `n` requests. PQ_OK when each ended with an answer that fits its
 * kind; else the first failure, after its retries, with a message naming
 * the request, what went wrong and, for S3, the server's error code and
 * message (the other requests are cancelled). Bodies of failed requests
 * are freed. */
pq_status pq_http_run(pq_http_client *c, pq_http_request *reqs, size_t n, pq_error *err);

/* For SUFFIX answers: "bytes a-b/total" or "bytes * /total" (no space):
 * the first byte and the total; false when it does not parse. */
bool pq_http_parse_content_range(const char *s, uint64_t *first, uint64_t *last, uint64_t *total);

#endif
