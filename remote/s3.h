/*
 * s3.h — where an s3:// location is sent and how it is signed: endpoint,
 * region and credentials from the options or the AWS_* environment.
 * Internal.
 */
#ifndef PQ_REMOTE_S3_H
#define PQ_REMOTE_S3_H

#include "remote/http.h"
#include "remote/url.h"

typedef struct pq_s3_target {
    char *endpoint;      /* scheme://host[:port] */
    char *region;
    char *key_id, *secret, *token; /* NULL key_id: unsigned */
    bool virtual_host;
} pq_s3_target;

pq_status pq_s3_resolve(const pq_url *u, const pq_remote_options *o, pq_s3_target *t, pq_error *err);
void pq_s3_target_free(pq_s3_target *t);

/* A client for the location: plain for http(s), signed (unless anonymous
 * or without credentials) for S3. */
pq_status pq_s3_client(const pq_s3_target *t, const pq_remote_options *o, pq_http_client *c, pq_error *err);


#endif
