#include "remote/url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"

static bool prefix(const char *s, const char *p, size_t *n)
{
    size_t k = strlen(p);
    if (strncmp(s, p, k) != 0) return false;
    *n = k;
    return true;
}

static bool printable_no_space(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s == 0x7f) return false;
    return true;
}

pq_status pq_url_parse(const char *text, pq_url *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "URL is NULL");
    size_t n;
    if (prefix(text, "http://", &n) || prefix(text, "https://", &n)) {
        out->scheme = n == 7 ? PQ_URL_HTTP : PQ_URL_HTTPS;
        const char *host = text + n;
        size_t hl = strcspn(host, "/?#");
        if (hl == 0 || host[0] == ':' || host[0] == '@' || host[hl - 1] == '@')
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "URL '%.120s' has no host", text);
        if (!printable_no_space(text))
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                "URL '%.120s' holds a space or control character (encode it as %%XX)", text);
        return PQ_OK;
    }
    if (!prefix(text, "s3://", &n))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "'%.120s' is not an http://, https:// or s3:// URL", text);
    const char *b = text + n;
    size_t bl = strcspn(b, "/");
    if (bl == 0) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "URL '%.120s' has no bucket", text);
    if (bl > 255)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "the bucket of '%.120s' is longer than 255 bytes", text);
    for (size_t i = 0; i < bl; i++) {
        char c = b[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                  c == '-' || c == '_';
        if (!ok)
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "bucket of '%.120s' holds '%c' (a bucket name is "
                                "letters, digits, '.', '-' and '_')", text, c);
    }
    const char *key = b[bl] == '/' ? b + bl + 1 : b + bl;
    for (const char *p = key; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "key of '%.120s' holds a control character", text);
    out->scheme = PQ_URL_S3;
    out->bucket = strndup(b, bl);
    out->key = strdup(key);
    if (!out->bucket || !out->key) {
        pq_url_free(out);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    return PQ_OK;
}

void pq_url_free(pq_url *u)
{
    free(u->bucket);
    free(u->key);
    u->bucket = u->key = NULL;
}

bool pq_url_encode(char *buf, size_t cap, size_t *len, const char *s, bool keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t at = *len;
    if (at >= cap) return false;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                     c == '.' || c == '_' || c == '~' || (keep_slash && c == '/');
        if (plain) {
            if (at + 1 >= cap) return false;
            buf[at++] = (char)c;
        } else {
            if (at + 3 >= cap) return false;
            buf[at++] = '%';
            buf[at++] = hex[c >> 4];
            buf[at++] = hex[c & 15];
        }
    }
    buf[at] = 0;
    *len = at;
    return true;
}

pq_status pq_url_check_endpoint(const char *endpoint, size_t *scheme_len, pq_error *err)
{
    size_t n;
    if (!prefix(endpoint, "http://", &n) && !prefix(endpoint, "https://", &n))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "S3 endpoint '%.120s' must start with http:// or https://", endpoint);
    const char *host = endpoint + n;
    size_t hl = strcspn(host, "/?#@");
    bool rest_ok = host[hl] == 0 || (host[hl] == '/' && host[hl + 1] == 0);
    if (hl == 0 || !rest_ok || !printable_no_space(endpoint))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "S3 endpoint '%.120s' must be scheme://host[:port], without a path", endpoint);
    *scheme_len = n;
    return PQ_OK;
}

char *pq_url_s3_http(const char *endpoint, bool virtual_host, const char *bucket, const char *key,
                     const char *query, pq_error *err)
{
    size_t sl;
    if (pq_url_check_endpoint(endpoint, &sl, err) != PQ_OK) return NULL;
    size_t hostlen = strcspn(endpoint + sl, "/");
    size_t cap = strlen(endpoint) + strlen(bucket) + 3 * strlen(key) + (query ? strlen(query) : 0) + 8;
    char *u = malloc(cap);
    if (!u) {
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        return NULL;
    }
    size_t len;
    if (virtual_host)
        len = (size_t)snprintf(u, cap, "%.*s%s.%.*s/", (int)sl, endpoint, bucket, (int)hostlen, endpoint + sl);
    else
        len = (size_t)snprintf(u, cap, "%.*s/%s/", (int)(sl + hostlen), endpoint, bucket);
    if (!pq_url_encode(u, cap, &len, key, true)) {
        free(u);
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "S3 key too long");
        return NULL;
    }
    if (query) {
        u[len++] = '?';
        memcpy(u + len, query, strlen(query) + 1);
    }
    return u;
}
