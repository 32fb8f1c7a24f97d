/*
 * pq_remote.h — files in object storage: http:// and https:// URLs read with
 * ranged GETs, and s3://bucket/key objects read from S3 or an S3-compatible
 * server, signed with AWS Signature Version 4. Built on libcurl.
 *
 * A `pq_remote` is one opened object. Opening costs one request: a GET of
 * the object's last `tail_bytes` bytes (a suffix range), which answers the
 * object's size, its ETag or Last-Modified, and, kept by the handle, the
 * bytes a reader's footer stage asks for first; so a footer usually costs
 * no request beyond the open.
 *
 * Every later read names the ETag it opened (If-Match, and the answer's
 * ETag is checked): an object replaced after the open fails with PQ_ERR_IO
 * ("changed since it was opened"), never with bytes of two versions. A read
 * that fails midway (a dropped connection, a short body, a 5xx) is retried
 * with exponential backoff; when retries run out, the read fails, and the
 * destination's contents are undefined (the caller gets an error, never
 * partial data as if whole). pq_remote_read_ranges() fetches many ranges at
 * once over at most `max_connections` connections (curl multi), which
 * stay open for the next batch.
 *
 * Threads: a pq_remote is thread-safe (every read may come from any thread;
 * connections are shared under a lock). It is reference-counted: readers
 * that share it (a reader and its Arrow stream) each hold a reference.
 *
 * Readers: pq_reader_open_url() (pq_reader.h) opens a reader over a URL;
 * such a reader fetches all the ranges a stage needs at once, and its
 * stage stats count the requests (pq_io_stats.requests, .retries). The
 * metadata cache key of an object is its URL, size and ETag (or
 * Last-Modified when the server gives no ETag), so a replaced object never
 * gets a stale footer.
 */
#ifndef PQ_REMOTE_H
#define PQ_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an s3:// URL becomes an HTTP request. */
typedef enum pq_s3_addressing {
    PQ_S3_ADDRESSING_AUTO = 0,   /* path style with an explicit endpoint (MinIO, moto, Ceph,
                                  * on-premises servers), virtual-host style on AWS */
    PQ_S3_ADDRESSING_PATH = 1,   /* <endpoint>/<bucket>/<key> */
    PQ_S3_ADDRESSING_VIRTUAL = 2 /* <scheme>://<bucket>.<endpoint host>/<key> */
} pq_s3_addressing;

typedef struct pq_remote_options {
    /* sizeof(pq_remote_options) as the caller was compiled, set by
     * pq_remote_options_init: the struct grows by appending fields, as
     * pq_reader_options does (pq_reader.h). 0 fails with
     * PQ_ERR_INVALID_ARGUMENT. */
    uint32_t struct_size;
    /* S3 only. The endpoint, as "http://host:port" or "https://host"; NULL:
     * $AWS_ENDPOINT_URL_S3, then $AWS_ENDPOINT_URL, then
     * https://s3.<region>.amazonaws.com. */
    const char *endpoint;
    /* S3 only. NULL: $AWS_REGION, then $AWS_DEFAULT_REGION, then "us-east-1". */
    const char *region;
    /* S3 only. Credentials; NULL: $AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY
     * and $AWS_SESSION_TOKEN. Without a key id and secret (or with
     * `anonymous`), requests go unsigned: public buckets. */
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token;
    bool anonymous;
    uint32_t addressing;          /* pq_s3_addressing */
    /* Requests in flight at once in pq_remote_read_ranges (1 to 64). */
    uint32_t max_connections;
    /* Tries after the first for a request that failed in a way worth
     * trying again: a connection refused, reset or timed out, a body cut
     * short, HTTP 408, 429, 500, 502, 503 or 504. Other answers (403, 404, 412,
     * 416, ...) fail at once. */
    uint32_t max_retries;
    /* Backoff before try k (k = 1, 2, ...): retry_base_ms * 2^(k-1), with
     * up to half of it added at random, at most 5 s. */
    uint32_t retry_base_ms;
    /* One request's whole time (connect, send, body), and the connect
     * alone; 0: no limit. */
    uint32_t request_timeout_ms;
    uint32_t connect_timeout_ms;
    /* Bytes of the object's tail fetched by the open (0: a HEAD request
     * instead, which fetches none). At most 16 MiB. */
    uint32_t tail_bytes;
    /* Verify the server's TLS certificate and host name (https). */
    bool verify_tls;
    /* When not 0, the open sends no request: the object is taken to have
     * this size and `known_version` (an ETag, quotes included, sent with
     * every read as If-Match; NULL or "": none), as an earlier open of the
     * same object found them (pq_remote_size, pq_remote_version). A
     * process that was handed an object's footer bytes and identity reads
     * its pages without touching its footer or asking for its size. */
    uint64_t known_size;
    const char *known_version;
    /* https: a PEM file of the certificate authorities to trust instead of
     * the system's (a private CA, a test server's own certificate); NULL:
     * the system's. */
    const char *ca_file;
} pq_remote_options;

/* Defaults: struct_size, every string NULL (from the environment), addressing AUTO,
 * max_connections 8, max_retries 4, retry_base_ms 50,
 * request_timeout_ms 30000, connect_timeout_ms 5000, tail_bytes 65536,
 * verify_tls true, known_size 0. */
PQ_API void pq_remote_options_init(pq_remote_options *opts);

/* 1 when `location` starts with http://, https:// or s3:// (what
 * pq_remote_open takes), else 0. */
PQ_API int pq_is_url(const char *location);

typedef struct pq_remote pq_remote;

/* Open the object at `url` (one request; see above). `opts` may be NULL
 * (defaults). Errors: PQ_ERR_INVALID_ARGUMENT for a URL that cannot be
 * parsed or a bad option, PQ_ERR_IO for a request that failed (the
 * message names the URL, the HTTP status and, for S3, the error code and
 * message the server sent), PQ_ERR_NOMEM. Returns a handle with one
 * reference. */
PQ_API pq_remote *pq_remote_open(const char *url, const pq_remote_options *opts, pq_error *err);

/* Take another reference / drop one (the last frees the handle and its
 * connections). NULL is ignored. */
PQ_API pq_remote *pq_remote_retain(pq_remote *rm);
PQ_API void pq_remote_close(pq_remote *rm);

/* The object's URL as opened, its size, and its version tag: the ETag as
 * the server sent it (quotes included), else its Last-Modified, else "". */
PQ_API const char *pq_remote_url(const pq_remote *rm);
PQ_API uint64_t pq_remote_size(const pq_remote *rm);
PQ_API const char *pq_remote_version(const pq_remote *rm);

/* The object's identity for a pq_metadata_cache: "url \0 size \0 version".
 * Writes at most `cap` bytes and returns the key's length (call with cap 0
 * to size it). */
PQ_API size_t pq_remote_cache_key(const pq_remote *rm, void *buf, size_t cap);

/* Read [offset, offset+len) into dst. Bytes held from the open are copied
 * without a request. */
PQ_API pq_status pq_remote_read(pq_remote *rm, uint64_t offset, size_t len, void *dst, pq_error *err);

/* Read n ranges at once, ranges[i] into dsts[i] (each of ranges[i].length
 * bytes), over at most max_connections connections. Fails as a whole:
 * when one range fails after its retries, the others are cancelled. */
PQ_API pq_status pq_remote_read_ranges(pq_remote *rm, const pq_range *ranges, size_t n, void *const *dsts,
                                       pq_error *err);

/* What a handle has done so far, all threads together. */
typedef struct pq_remote_stats {
    uint64_t requests;   /* HTTP requests sent, retries and the open included */
    uint64_t bytes;      /* body bytes received */
    uint64_t retries;    /* requests that were tries after a failure */
    uint64_t tail_hits;  /* reads served from the bytes held from the open */
} pq_remote_stats;

PQ_API void pq_remote_get_stats(const pq_remote *rm, pq_remote_stats *out);

/* A pq_source over the object (read_at and read_ranges), for
 * pq_reader_open_source. `out->user` holds a reference of its own: release
 * it with pq_source_close_url(out). */
PQ_API pq_status pq_source_open_url(const char *url, const pq_remote_options *opts, pq_source *out,
                                    pq_error *err);
PQ_API void pq_source_close_url(pq_source *src);

/* A pq_source over `rm` that borrows it (no reference taken: keep `rm`
 * open while the source is used). */
PQ_API void pq_remote_source(pq_remote *rm, pq_source *out);

/* ---------------------------------------------------------------------------
 * Listing (S3)
 * ------------------------------------------------------------------------- */

typedef struct pq_remote_object {
    char *url;        /* s3://bucket/key */
    uint64_t size;
    char *version;    /* ETag */
} pq_remote_object;

/* The objects whose keys start with `prefix` in s3://bucket/prefix
 * (ListObjectsV2, every page), in key order. *out is malloc'd (free with
 * pq_remote_objects_free). http:// URLs cannot be listed
 * (PQ_ERR_UNSUPPORTED). At most 1,000,000 objects (PQ_ERR_MEMORY_LIMIT
 * beyond). */
PQ_API pq_status pq_remote_list(const char *url, const pq_remote_options *opts, pq_remote_object **out,
                                size_t *count, pq_error *err);
PQ_API void pq_remote_objects_free(pq_remote_object *objects, size_t count);

#ifdef __cplusplus
}
#endif
#endif /* PQ_REMOTE_H */
