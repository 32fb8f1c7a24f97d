#include "remote/s3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"

static const char *first_set(const char *given, const char *env1, const char *env2)
{
    if (given) return given;
    const char *v = env1 ? getenv(env1) : NULL;
    if (v && *v) return v;
    v = env2 ? getenv(env2) : NULL;
    return v && *v ? v : NULL;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

pq_status pq_s3_resolve(const pq_url *u, const pq_remote_options *o, pq_s3_target *t, pq_error *err)
{
    memset(t, 0, sizeof *t);
    const char *region = first_set(o->region, "AWS_REGION", "AWS_DEFAULT_REGION");
    if (!region) region = "us-east-1";
    const char *endpoint = first_set(o->endpoint, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
    bool explicit_endpoint = endpoint != NULL;
    char aws[160];
    if (!endpoint) {
        snprintf(aws, sizeof aws, "https://s3.%s.amazonaws.com", region);
        endpoint = aws;
    }
    size_t sl;
    if (pq_url_check_endpoint(endpoint, &sl, err) != PQ_OK) return PQ_ERR_INVALID_ARGUMENT;
    switch (o->addressing) {
    case PQ_S3_ADDRESSING_PATH: t->virtual_host = false; break;
    case PQ_S3_ADDRESSING_VIRTUAL: t->virtual_host = true; break;
    default: /* AWS: virtual host, except for dotted buckets, whose names break TLS host checks */
        t->virtual_host = !explicit_endpoint && !strchr(u->bucket, '.');
        break;
    }
    t->endpoint = strdup(endpoint);
    size_t el = strlen(t->endpoint ? t->endpoint : "");
    if (el && t->endpoint[el - 1] == '/') t->endpoint[el - 1] = 0;
    t->region = strdup(region);
    if (!o->anonymous) {
        const char *id = first_set(o->access_key_id, "AWS_ACCESS_KEY_ID", NULL);
        const char *secret = first_set(o->secret_access_key, "AWS_SECRET_ACCESS_KEY", NULL);
        if (id && secret) {
            t->key_id = strdup(id);
            t->secret = strdup(secret);
            t->token = dup_or_null(first_set(o->session_token, "AWS_SESSION_TOKEN", NULL));
            if (!t->key_id || !t->secret) goto oom;
        } else if (id || secret) {
            pq_s3_target_free(t);
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                "S3 credentials need both an access key id and a secret access key "
                                "(options or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY); only the %s is set",
                                id ? "key id" : "secret");
        }
    }
    if (!t->endpoint || !t->region) goto oom;
    return PQ_OK;
oom:
    pq_s3_target_free(t);
    return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
}

void pq_s3_target_free(pq_s3_target *t)
{
    free(t->endpoint);
    free(t->region);
    free(t->key_id);
    if (t->secret) memset(t->secret, 0, strlen(t->secret));
    free(t->secret);
    free(t->token);
    memset(t, 0, sizeof *t);
}

pq_status pq_s3_client(const pq_s3_target *t, const pq_remote_options *o, pq_http_client *c, pq_error *err)
{
    if (!t) return pq_http_client_init(c, o, false, NULL, NULL, NULL, NULL, err);
    return pq_http_client_init(c, o, true, t->key_id ? t->region : NULL, t->key_id, t->secret, t->token, err);
}
