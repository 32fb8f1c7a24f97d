#include "remote/http.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "metadata/error.h"
#include "remote/xml.h"

#define ERR_BODY_MAX 4096
#define BACKOFF_MAX_MS 5000u

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_code;

static void curl_init(void) { curl_init_code = curl_global_init(CURL_GLOBAL_DEFAULT); }

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---------------------------------------------------------------------------
 * The client
 * ------------------------------------------------------------------------- */

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *user)
{
    (void)h;
    (void)access;
    pq_http_client *c = user;
    if ((unsigned)data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&c->share_locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *user)
{
    (void)h;
    pq_http_client *c = user;
    if ((unsigned)data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&c->share_locks[data]);
}

pq_status pq_http_client_init(pq_http_client *c, const pq_remote_options *o, bool s3, const char *sigv4_region,
                              const char *key_id, const char *secret, const char *token, pq_error *err)
{
    memset(c, 0, sizeof *c);
    pthread_once(&curl_once, curl_init);
    if (curl_init_code != CURLE_OK)
        return pq_error_set(err, PQ_ERR_IO, "libcurl failed to start: %s", curl_easy_strerror(curl_init_code));
    c->s3 = s3;
    c->follow_redirects = !s3;
    c->verify_tls = o->verify_tls;
    c->max_connections = o->max_connections;
    c->max_retries = o->max_retries;
    c->retry_base_ms = o->retry_base_ms;
    c->request_timeout_ms = o->request_timeout_ms;
    c->connect_timeout_ms = o->connect_timeout_ms;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&c->share_locks[i], NULL);
    pthread_mutex_init(&c->pool_lock, NULL);
    if (o->ca_file && !(c->ca_file = strdup(o->ca_file))) {
        pq_http_client_free(c);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (sigv4_region) {
        c->sign = true;
        size_t n = strlen(sigv4_region) + 16;
        c->sigv4 = malloc(n);
        if (c->sigv4) snprintf(c->sigv4, n, "aws:amz:%s:s3", sigv4_region);
        n = strlen(key_id) + strlen(secret) + 2;
        c->userpwd = malloc(n);
        if (c->userpwd) snprintf(c->userpwd, n, "%s:%s", key_id, secret);
        if (token && *token) {
            n = strlen(token) + 32;
            c->token_header = malloc(n);
            if (c->token_header) snprintf(c->token_header, n, "x-amz-security-token: %s", token);
        }
        if (!c->sigv4 || !c->userpwd || (token && *token && !c->token_header)) {
            pq_http_client_free(c);
            return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        }
    }
    c->share = curl_share_init();
    if (!c->share) {
        pq_http_client_free(c);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a curl share handle");
    }
    curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
    /* Connections are not shared (libcurl does not support one connection
     * cache used by concurrent threads): each multi handle of the pool
     * keeps its own between batches. */
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    return PQ_OK;
}

void pq_http_client_free(pq_http_client *c)
{
    for (size_t i = 0; i < c->nmulti; i++) curl_multi_cleanup(c->multis[i]);
    c->nmulti = 0;
    for (size_t i = 0; i < c->npool; i++) curl_easy_cleanup(c->pool[i]);
    c->npool = 0;
    if (c->share) curl_share_cleanup(c->share);
    c->share = NULL;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&c->share_locks[i]);
    pthread_mutex_destroy(&c->pool_lock);
    free(c->sigv4);
    free(c->userpwd);
    free(c->token_header);
    free(c->ca_file);
    c->sigv4 = c->userpwd = c->token_header = c->ca_file = NULL;
}

static CURL *take_handle(pq_http_client *c)
{
    CURL *h = NULL;
    pthread_mutex_lock(&c->pool_lock);
    if (c->npool) h = c->pool[--c->npool];
    pthread_mutex_unlock(&c->pool_lock);
    if (h) {
        curl_easy_reset(h);
        return h;
    }
    return curl_easy_init();
}

/* A multi handle and the connections it kept from its last batch. */
static CURLM *take_multi(pq_http_client *c)
{
    CURLM *m = NULL;
    pthread_mutex_lock(&c->pool_lock);
    if (c->nmulti) m = c->multis[--c->nmulti];
    pthread_mutex_unlock(&c->pool_lock);
    if (!m && (m = curl_multi_init())) curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, (long)PQ_HTTP_MULTI_CONNECTS);
    return m;
}

static void give_multi(pq_http_client *c, CURLM *m)
{
    pthread_mutex_lock(&c->pool_lock);
    if (c->nmulti < PQ_HTTP_MULTIS) {
        c->multis[c->nmulti++] = m;
        m = NULL;
    }
    pthread_mutex_unlock(&c->pool_lock);
    if (m) curl_multi_cleanup(m);
}

static void give_handle(pq_http_client *c, CURL *h)
{
    if (!h) return;
    pthread_mutex_lock(&c->pool_lock);
    if (c->npool < PQ_HTTP_POOL) {
        c->pool[c->npool++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&c->pool_lock);
    if (h) curl_easy_cleanup(h);
}

/* ---------------------------------------------------------------------------
 * One try of one request
 * ------------------------------------------------------------------------- */

static bool header_is(const char *line, size_t n, const char *name, const char **value, size_t *vlen)
{
    size_t k = strlen(name);
    if (n <= k || line[k] != ':' || strncasecmp(line, name, k) != 0) return false;
    const char *v = line + k + 1;
    const char *end = line + n;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t')) end--;
    *value = v;
    *vlen = (size_t)(end - v);
    return true;
}

static void copy_header(char *dst, size_t cap, const char *v, size_t n)
{
    if (n >= cap) n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = 0;
}

static size_t on_header(char *line, size_t size, size_t nitems, void *user)
{
    pq_http_request *q = user;
    size_t n = size * nitems;
    const char *v;
    size_t vl;
    if (n >= 5 && memcmp(line, "HTTP/", 5) == 0) {
        /* A new answer (after a redirect or a 100): forget the last one's. */
        const char *sp = memchr(line, ' ', n);
        q->status = sp ? strtol(sp + 1, NULL, 10) : 0;
        q->etag[0] = q->last_modified[0] = q->content_range[0] = 0;
        q->has_content_length = false;
        q->in_body = false;
    } else if (header_is(line, n, "etag", &v, &vl)) {
        copy_header(q->etag, sizeof q->etag, v, vl);
    } else if (header_is(line, n, "last-modified", &v, &vl)) {
        copy_header(q->last_modified, sizeof q->last_modified, v, vl);
    } else if (header_is(line, n, "content-range", &v, &vl)) {
        copy_header(q->content_range, sizeof q->content_range, v, vl);
    } else if (header_is(line, n, "content-length", &v, &vl)) {
        char tmp[32];
        copy_header(tmp, sizeof tmp, v, vl);
        char *end;
        unsigned long long x = strtoull(tmp, &end, 10);
        if (end != tmp && *end == 0) {
            q->content_length = x;
            q->has_content_length = true;
        }
    }
    return n;
}

static size_t on_body(char *data, size_t size, size_t nitems, void *user)
{
    pq_http_request *q = user;
    size_t n = size * nitems;
    atomic_fetch_add(&q->client->bytes, n);
    if (q->status < 200 || q->status > 299) {
        /* An error answer: keep the start of its body for the message. */
        if (q->err_len < ERR_BODY_MAX) {
            size_t k = ERR_BODY_MAX - q->err_len < n ? ERR_BODY_MAX - q->err_len : n;
            char *b = realloc(q->err_body, q->err_len + k + 1);
            if (b) {
                memcpy(b + q->err_len, data, k);
                q->err_len += k;
                b[q->err_len] = 0;
                q->err_body = b;
            }
        }
        return n;
    }
    if (q->kind == PQ_HTTP_RANGE) {
        if (n > q->length - q->got) {
            q->overflow = true;
            return 0; /* aborts the transfer */
        }
        memcpy(q->dst + q->got, data, n);
        q->got += n;
        return n;
    }
    if (n > q->body_cap - q->body_len) {
        q->overflow = true;
        return 0;
    }
    if (!q->body || q->body_len + n > q->got) {
        size_t want = q->got ? q->got * 2 : 16384;
        while (want < q->body_len + n) want *= 2;
        if (want > q->body_cap) want = q->body_cap;
        uint8_t *b = realloc(q->body, want ? want : 1);
        if (!b) return 0;
        q->body = b;
        q->got = want; /* for bodies `got` is the buffer's capacity */
    }
    memcpy(q->body + q->body_len, data, n);
    q->body_len += n;
    return n;
}

static pq_status start_try(pq_http_client *c, pq_http_request *q, CURLM *m, pq_error *err)
{
    q->client = c;
    q->status = 0;
    q->overflow = false;
    q->etag[0] = q->last_modified[0] = q->content_range[0] = 0;
    q->has_content_length = false;
    q->errbuf[0] = 0;
    free(q->err_body);
    q->err_body = NULL;
    q->err_len = 0;
    free(q->body);
    q->body = NULL;
    q->body_len = 0;
    q->got = 0;
    curl_slist_free_all(q->headers);
    q->headers = NULL;

    CURL *h = take_handle(c);
    if (!h) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a curl handle");
    q->easy = h;
    curl_easy_setopt(h, CURLOPT_URL, q->url);
    curl_easy_setopt(h, CURLOPT_SHARE, c->share);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PRIVATE, q);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, q);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, q);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, q->errbuf);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)c->request_timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(c->connect_timeout_ms ? c->connect_timeout_ms : 300000));
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, c->verify_tls ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, c->verify_tls ? 2L : 0L);
    if (c->ca_file) curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "pqstep");
    if (c->follow_redirects) {
        curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
        curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    }
    char range[64];
    if (q->kind == PQ_HTTP_RANGE) {
        snprintf(range, sizeof range, "%" PRIu64 "-%" PRIu64, q->offset, q->offset + q->length - 1);
        curl_easy_setopt(h, CURLOPT_RANGE, range);
    } else if (q->kind == PQ_HTTP_SUFFIX) {
        snprintf(range, sizeof range, "-%" PRIu64, q->length);
        curl_easy_setopt(h, CURLOPT_RANGE, range);
    } else if (q->kind == PQ_HTTP_HEAD) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    }
    struct curl_slist *hs = NULL, *t;
    char im[300];
    bool ok = true;
    if (q->if_match && *q->if_match) {
        snprintf(im, sizeof im, "If-Match: %s", q->if_match);
        ok = ok && (t = curl_slist_append(hs, im)) && (hs = t);
    }
    if (c->s3) /* S3 wants the payload's hash: that of an empty body */
        ok = ok && (t = curl_slist_append(hs, "x-amz-content-sha256: "
                                              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")) &&
             (hs = t);
    if (c->token_header) ok = ok && (t = curl_slist_append(hs, c->token_header)) && (hs = t);
    if (!ok) {
        curl_slist_free_all(hs);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for request headers");
    }
    q->headers = hs;
    if (hs) curl_easy_setopt(h, CURLOPT_HTTPHEADER, hs);
    if (c->sign) {
        curl_easy_setopt(h, CURLOPT_AWS_SIGV4, c->sigv4);
        curl_easy_setopt(h, CURLOPT_USERPWD, c->userpwd);
    }
    atomic_fetch_add(&c->requests, 1);
    if (q->tries) atomic_fetch_add(&c->retries, 1);
    q->tries++;
    if (curl_multi_add_handle(m, h) != CURLM_OK) return pq_error_set(err, PQ_ERR_IO, "curl refused a request");
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Judging an answer
 * ------------------------------------------------------------------------- */

typedef enum verdict { DONE, RETRY, FAIL } verdict;

bool pq_http_parse_content_range(const char *s, uint64_t *first, uint64_t *last, uint64_t *total)
{
    if (strncasecmp(s, "bytes ", 6) != 0) return false;
    s += 6;
    char *end;
    if (*s == '*') {
        *first = 1;
        *last = 0;
        s++;
    } else {
        if (!isdigit((unsigned char)*s)) return false;
        *first = strtoull(s, &end, 10);
        if (*end != '-' || !isdigit((unsigned char)end[1])) return false;
        *last = strtoull(end + 1, &end, 10);
        if (*last < *first) return false;
        s = end;
    }
    if (*s != '/' || !isdigit((unsigned char)s[1])) return false;
    *total = strtoull(s + 1, &end, 10);
    return *end == 0;
}

static bool retryable_curl(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return true;
    default:
        return false;
    }
}

static bool retryable_status(long s) { return s == 408 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504; }

static const char *method_of(const pq_http_request *q) { return q->kind == PQ_HTTP_HEAD ? "HEAD" : "GET"; }

/* What went wrong, into why[]; the verdict says whether to try again. */
static verdict judge(pq_http_request *q, CURLcode rc, char *why, size_t cap)
{
    why[0] = 0;
    if (q->overflow) {
        snprintf(why, cap, "the server sent more bytes than were asked for");
        return FAIL;
    }
    if (rc != CURLE_OK) {
        snprintf(why, cap, "%.150s", q->errbuf[0] ? q->errbuf : curl_easy_strerror(rc));
        return retryable_curl(rc) ? RETRY : FAIL;
    }
    long s = q->status;
    if (q->kind == PQ_HTTP_SUFFIX && s == 416) return DONE; /* an empty object */
    if (s < 200 || s > 299) {
        char code[64] = "", msg[160] = "";
        if (q->err_body) {
            char *c = pq_xml_text(q->err_body, q->err_len, "Code");
            char *m = pq_xml_text(q->err_body, q->err_len, "Message");
            if (c) snprintf(code, sizeof code, "%s", c);
            if (m) snprintf(msg, sizeof msg, "%s", m);
            free(c);
            free(m);
        }
        if (s == 412)
            snprintf(why, cap, "HTTP 412: the object changed since it was opened (If-Match %s failed)",
                     q->if_match ? q->if_match : "");
        else if (code[0])
            snprintf(why, cap, "HTTP %ld (%s%s%s)", s, code, msg[0] ? ": " : "", msg);
        else
            snprintf(why, cap, "HTTP %ld", s);
        return retryable_status(s) ? RETRY : FAIL;
    }
    switch (q->kind) {
    case PQ_HTTP_RANGE: {
        uint64_t a = 0, b = 0, total = 0;
        if (s == 206) {
            if (!pq_http_parse_content_range(q->content_range, &a, &b, &total) || a != q->offset ||
                b != q->offset + q->length - 1) {
                snprintf(why, cap, "the server answered range '%s' for bytes %" PRIu64 "-%" PRIu64,
                         q->content_range, q->offset, q->offset + q->length - 1);
                return FAIL;
            }
        } else if (!(q->offset == 0 && q->has_content_length && q->content_length == q->length)) {
            snprintf(why, cap, "HTTP %ld: the server does not answer byte ranges", s);
            return FAIL;
        }
        if (q->got != q->length) {
            snprintf(why, cap, "the body ended after %zu of %" PRIu64 " bytes", q->got, q->length);
            return RETRY;
        }
        return DONE;
    }
    case PQ_HTTP_SUFFIX:
        if (s == 206) {
            uint64_t a = 0, b = 0, total = 0;
            if (!pq_http_parse_content_range(q->content_range, &a, &b, &total) || b + 1 != total) {
                snprintf(why, cap, "a suffix range got Content-Range '%s'", q->content_range);
                return FAIL;
            }
            if (b - a + 1 != q->body_len) {
                snprintf(why, cap, "a suffix range of %" PRIu64 " bytes got %zu", b - a + 1, q->body_len);
                return q->body_len < b - a + 1 ? RETRY : FAIL;
            }
        } else if (s != 200) {
            snprintf(why, cap, "HTTP %ld for a suffix range", s);
            return FAIL;
        }
        return DONE;
    default:
        return s == 200 ? DONE : (snprintf(why, cap, "HTTP %ld", s), FAIL);
    }
}

/* ---------------------------------------------------------------------------
 * Running a batch
 * ------------------------------------------------------------------------- */

static uint64_t backoff_ms(const pq_http_client *c, uint32_t tries, uint64_t *rng)
{
    uint64_t d = c->retry_base_ms;
    for (uint32_t i = 1; i < tries && d < BACKOFF_MAX_MS; i++) d *= 2;
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    d += d ? *rng % (d / 2 + 1) : 0;
    return d < BACKOFF_MAX_MS ? d : BACKOFF_MAX_MS;
}

static void finish_handle(pq_http_client *c, CURLM *m, pq_http_request *q)
{
    if (!q->easy) return;
    curl_multi_remove_handle(m, q->easy);
    give_handle(c, q->easy);
    q->easy = NULL;
    curl_slist_free_all(q->headers);
    q->headers = NULL;
}

static void describe(const pq_http_request *q, char *buf, size_t cap)
{
    if (q->kind == PQ_HTTP_RANGE)
        snprintf(buf, cap, "GET %.160s bytes %" PRIu64 "-%" PRIu64, q->url, q->offset, q->offset + q->length - 1);
    else if (q->kind == PQ_HTTP_SUFFIX)
        snprintf(buf, cap, "GET %.160s last %" PRIu64 " bytes", q->url, q->length);
    else
        snprintf(buf, cap, "%s %.160s", method_of(q), q->url);
}

pq_status pq_http_run(pq_http_client *c, pq_http_request *reqs, size_t n, pq_error *err)
{
    if (!n) return PQ_OK;
    CURLM *m = take_multi(c);
    if (!m) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a curl multi handle");
    enum { WAITING, ACTIVE, ENDED };
    unsigned char *state = calloc(n, 1);
    if (!state) {
        curl_multi_cleanup(m);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        reqs[i].tries = 0;
        reqs[i].not_before_ms = 0;
        reqs[i].easy = NULL;
        reqs[i].headers = NULL;
        reqs[i].err_body = NULL;
        reqs[i].body = NULL;
    }
    uint64_t rng = now_ms() ^ (uint64_t)(uintptr_t)reqs ^ 0x9E3779B97F4A7C15ull;
    size_t active = 0, ended = 0, next = 0;
    uint32_t limit = c->max_connections ? c->max_connections : 1;
    pq_status st = PQ_OK;
    while (st == PQ_OK && ended < n) {
        uint64_t now = now_ms();
        uint64_t wake = UINT64_MAX;
        /* Start what may start: retries whose wait is over first, then new ones. */
        for (size_t i = 0; i < next && active < limit && st == PQ_OK; i++)
            if (state[i] == WAITING) {
                if (reqs[i].not_before_ms <= now) {
                    st = start_try(c, &reqs[i], m, err);
                    state[i] = ACTIVE;
                    active++;
                } else if (reqs[i].not_before_ms < wake) {
                    wake = reqs[i].not_before_ms;
                }
            }
        while (st == PQ_OK && next < n && active < limit) {
            st = start_try(c, &reqs[next], m, err);
            state[next++] = ACTIVE;
            active++;
        }
        if (st != PQ_OK) break;
        int running = 0;
        curl_multi_perform(m, &running);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            pq_http_request *q = NULL;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&q);
            CURLcode rc = msg->data.result;
            size_t i = (size_t)(q - reqs);
            finish_handle(c, m, q);
            active--;
            char why[200];
            verdict v = judge(q, rc, why, sizeof why);
            if (v == RETRY && q->tries <= c->max_retries) {
                q->not_before_ms = now_ms() + backoff_ms(c, q->tries, &rng);
                if (q->not_before_ms < wake) wake = q->not_before_ms;
                state[i] = WAITING;
                continue;
            }
            state[i] = ENDED;
            ended++;
            if (v != DONE && st == PQ_OK) {
                char what[240];
                describe(q, what, sizeof what);
                st = pq_error_set(err, PQ_ERR_IO, "%s: %s%s", what, why,
                                  q->tries > 1 ? " (after retries)" : "");
            }
        }
        if (st != PQ_OK || ended == n) break;
        /* Room for a request not started yet: start it now, not after a poll. */
        if (next < n && active < limit) continue;
        /* Else wait for a transfer's activity, or until the next retry is due. */
        long timeout = 1000;
        if (wake != UINT64_MAX) {
            uint64_t t = now_ms();
            timeout = wake <= t ? 0 : wake - t < 1000 ? (long)(wake - t) : 1000;
        }
        if (timeout > 0) curl_multi_poll(m, NULL, 0, (int)timeout, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        finish_handle(c, m, &reqs[i]);
        free(reqs[i].err_body);
        reqs[i].err_body = NULL;
        if (st != PQ_OK) {
            free(reqs[i].body);
            reqs[i].body = NULL;
            reqs[i].body_len = 0;
        }
    }
    free(state);
    give_multi(c, m);
    return st;
}
