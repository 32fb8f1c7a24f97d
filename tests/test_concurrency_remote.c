/*
 * test_concurrency_remote.c — pq_remote (remote/remote.c, remote/http.c)
 * against an HTTP/1.1 server in this process: 127.0.0.1, an ephemeral port,
 * an accept thread and one thread per connection, keep-alive. It serves
 * objects from memory: GET with "Range: bytes=a-b", "bytes=a-" and the
 * suffix "bytes=-N" (206 + Content-Range), a whole GET (200), HEAD, 416
 * past the end, 404 for an unknown path, and If-Match against the ETag
 * "vN" of the object's current version (412 on a mismatch). Faults are
 * switched on by counters the tests set (atomics): the next N requests
 * answered 503, the next N bodies cut in the middle (the full
 * Content-Length, half the bytes, then the connection closed), the next N
 * connections closed at once without an answer; and a delay before each
 * answer.
 *
 * Covered: the open (size, version, the tail kept: tail reads need no
 * request), HEAD opens, tiny and empty objects, ranged reads against the
 * served bytes, read_ranges over 200 ranges with max_connections 4 (exact
 * request counts, never more than 4 requests in flight at the server),
 * retries of every fault kind (retries == faults injected), retries running
 * out (PQ_ERR_IO naming HTTP 503), an object replaced after the open (412
 * from If-Match, and a server that ignores If-Match), known_size opens (no
 * request), 8 threads reading through one handle, and pq_reader_open_url
 * over a corpus file served this way (decoded like the local file; request
 * counts per stage).
 *
 * The name puts it under the "concurrency" label, so scripts/test runs it in
 * the Release build, under ASan + UBSan and under TSan. The server is shut
 * down cleanly by every test (threads joined, sockets closed). No test
 * asserts on time.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pq_remote.h"
#include "pqstep.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------
 * The server
 * ------------------------------------------------------------------------- */

#define MAX_OBJECTS 8
#define REQ_MAX 16384

typedef struct object {
    char path[128];
    const uint8_t *data;
    size_t len;
} object;

typedef struct conn {
    struct server *s;
    int fd;
    pthread_t thread;
} conn;

typedef struct server {
    int lfd;
    unsigned port;
    pthread_t accept_thread;
    atomic_bool stop;
    object objects[MAX_OBJECTS];
    size_t nobjects;
    /* Connections: every one is joined and closed by server_stop. */
    pthread_mutex_t lock;
    conn **conns;
    size_t nconns, cap;
    /* The objects' version: the ETag is "\"v<version>\"". */
    atomic_int version;
    atomic_bool ignore_if_match; /* answer as if If-Match were not sent */
    /* Faults: each counter is taken down by one per fault made. */
    atomic_int fail_503, cut_body, drop_conn;
    atomic_int delay_ms;
    atomic_uint faults;          /* faults made so far */
    atomic_uint requests;        /* requests parsed */
    atomic_uint connections;     /* connections accepted (dropped ones included) */
    atomic_uint if_match_seen;   /* requests that carried If-Match */
    atomic_int inflight, max_inflight;
} server;

/* Take one from *n when it is above 0. */
static bool take(atomic_int *n)
{
    int v = atomic_load(n);
    while (v > 0)
        if (atomic_compare_exchange_weak(n, &v, v - 1)) return true;
    return false;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static bool send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

static const char *find_bytes(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(hay + i, needle, m) == 0) return hay + i;
    return NULL;
}

/* The value of header `name` in the request head (NUL-terminated), copied
 * into out; false when absent. */
static bool header_value(const char *head, const char *name, char *out, size_t cap)
{
    size_t k = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line; line = strstr(line, "\r\n")) {
        line += 2;
        if (strncasecmp(line, name, k) == 0 && line[k] == ':') {
            const char *v = line + k + 1;
            while (*v == ' ' || *v == '\t') v++;
            size_t n = strcspn(v, "\r\n");
            while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
            if (n >= cap) n = cap - 1;
            memcpy(out, v, n);
            out[n] = 0;
            return true;
        }
    }
    return false;
}

static bool respond(int fd, int status, const char *reason, const char *extra, const void *body, size_t body_len,
                    size_t content_length)
{
    char head[512];
    int n = snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\n%s\r\n", status, reason,
                     content_length, extra ? extra : "");
    return send_all(fd, head, (size_t)n) && (!body_len || send_all(fd, body, body_len));
}

/* Answer one request (its head NUL-terminated); false: close the connection. */
static bool handle(server *s, int fd, char *head)
{
    char method[16], path[256];
    if (sscanf(head, "%15s %255s", method, path) != 2) return false;
    bool is_head = strcmp(method, "HEAD") == 0;
    if (!is_head && strcmp(method, "GET") != 0) return respond(fd, 405, "Method Not Allowed", NULL, NULL, 0, 0);
    /* In flight: from the request read to just before the answer's first
     * byte, a window inside the client's own for the request (counting up
     * to the last byte sent would overlap the client's next request). */
    int now = atomic_fetch_add(&s->inflight, 1) + 1;
    int max = atomic_load(&s->max_inflight);
    while (now > max && !atomic_compare_exchange_weak(&s->max_inflight, &max, now)) {}
    int d = atomic_load(&s->delay_ms);
    if (d > 0) sleep_ms(d);
    atomic_fetch_sub(&s->inflight, 1);
    if (take(&s->fail_503)) {
        atomic_fetch_add(&s->faults, 1);
        static const char busy[] = "busy, try again";
        return respond(fd, 503, "Service Unavailable", NULL, busy, sizeof busy - 1, sizeof busy - 1);
    }
    const object *o = NULL;
    for (size_t i = 0; i < s->nobjects; i++)
        if (strcmp(s->objects[i].path, path) == 0) o = &s->objects[i];
    if (!o) {
        static const char nf[] = "<Error><Code>NoSuchKey</Code><Message>no such object</Message></Error>";
        return respond(fd, 404, "Not Found", NULL, nf, sizeof nf - 1, sizeof nf - 1);
    }
    char etag[32];
    snprintf(etag, sizeof etag, "\"v%d\"", atomic_load(&s->version));
    char extra[256];
    char im[128];
    if (header_value(head, "If-Match", im, sizeof im)) {
        atomic_fetch_add(&s->if_match_seen, 1);
        if (!atomic_load(&s->ignore_if_match) && strcmp(im, "*") != 0 && strcmp(im, etag) != 0) {
            static const char pf[] = "<Error><Code>PreconditionFailed</Code><Message>At least one of the "
                                     "pre-conditions you specified did not hold</Message></Error>";
            snprintf(extra, sizeof extra, "ETag: %s\r\n", etag);
            return respond(fd, 412, "Precondition Failed", extra, pf, sizeof pf - 1, sizeof pf - 1);
        }
    }
    uint64_t len = o->len, first = 0, last = len ? len - 1 : 0;
    bool ranged = false;
    char range[128];
    if (header_value(head, "Range", range, sizeof range) && strncmp(range, "bytes=", 6) == 0) {
        const char *r = range + 6;
        char *end;
        ranged = true;
        if (*r == '-') {
            uint64_t n = strtoull(r + 1, &end, 10);
            if (n == 0 || len == 0) goto unsatisfiable;
            first = n >= len ? 0 : len - n;
            last = len - 1;
        } else {
            first = strtoull(r, &end, 10);
            if (*end != '-') return respond(fd, 400, "Bad Request", NULL, NULL, 0, 0);
            if (first >= len) goto unsatisfiable;
            last = end[1] ? strtoull(end + 1, NULL, 10) : len - 1;
            if (last >= len) last = len - 1;
            if (last < first) return respond(fd, 400, "Bad Request", NULL, NULL, 0, 0);
        }
    }
    {
        size_t n = len ? (size_t)(last - first + 1) : 0;
        if (ranged)
            snprintf(extra, sizeof extra,
                     "ETag: %s\r\nAccept-Ranges: bytes\r\nContent-Range: bytes %llu-%llu/%llu\r\n"
                     "Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT\r\n",
                     etag, (unsigned long long)first, (unsigned long long)last, (unsigned long long)len);
        else
            snprintf(extra, sizeof extra, "ETag: %s\r\nAccept-Ranges: bytes\r\n", etag);
        int status = ranged ? 206 : 200;
        const char *reason = ranged ? "Partial Content" : "OK";
        if (is_head) return respond(fd, status, reason, extra, NULL, 0, n);
        if (n >= 2 && take(&s->cut_body)) {
            atomic_fetch_add(&s->faults, 1);
            respond(fd, status, reason, extra, o->data + first, n / 2, n);
            return false;
        }
        return respond(fd, status, reason, extra, o->data + first, n, n);
    }
unsatisfiable:
    snprintf(extra, sizeof extra, "ETag: %s\r\nContent-Range: bytes */%llu\r\n", etag, (unsigned long long)len);
    return respond(fd, 416, "Range Not Satisfiable", extra, NULL, 0, 0);
}

static void *conn_main(void *arg)
{
    conn *c = arg;
    server *s = c->s;
    char *buf = malloc(REQ_MAX + 1);
    size_t have = 0;
    while (buf && !atomic_load(&s->stop)) {
        const char *end;
        while (!(end = find_bytes(buf, have, "\r\n\r\n"))) {
            if (have == REQ_MAX) goto out;
            ssize_t r = recv(c->fd, buf + have, REQ_MAX - have, 0);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) goto out;
            have += (size_t)r;
        }
        size_t hl = (size_t)(end - buf) + 4;
        char saved = buf[hl];
        buf[hl] = 0;
        atomic_fetch_add(&s->requests, 1);
        bool keep = handle(s, c->fd, buf);
        buf[hl] = saved;
        memmove(buf, buf + hl, have - hl);
        have -= hl;
        if (!keep) break;
    }
out:
    /* FIN to the client; the descriptor is closed by server_stop, so that
     * its number cannot be reused while the server still knows it. */
    shutdown(c->fd, SHUT_RDWR);
    free(buf);
    return NULL;
}

static void *accept_main(void *arg)
{
    server *s = arg;
    for (;;) {
        int fd = accept(s->lfd, NULL, NULL);
        if (atomic_load(&s->stop)) {
            if (fd >= 0) close(fd);
            break;
        }
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            break;
        }
        atomic_fetch_add(&s->connections, 1);
        if (take(&s->drop_conn)) {
            atomic_fetch_add(&s->faults, 1);
            close(fd);
            continue;
        }
        int one = 1; /* head and body go in two sends: no Nagle wait between them */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn *c = calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->s = s;
        c->fd = fd;
        pthread_mutex_lock(&s->lock);
        if (s->nconns == s->cap) {
            size_t nc = s->cap ? 2 * s->cap : 16;
            conn **g = realloc(s->conns, nc * sizeof *g);
            if (!g) {
                pthread_mutex_unlock(&s->lock);
                close(fd);
                free(c);
                continue;
            }
            s->conns = g;
            s->cap = nc;
        }
        if (pthread_create(&c->thread, NULL, conn_main, c) != 0) {
            pthread_mutex_unlock(&s->lock);
            close(fd);
            free(c);
            continue;
        }
        s->conns[s->nconns++] = c;
        pthread_mutex_unlock(&s->lock);
    }
    return NULL;
}

static server *server_start(void)
{
    server *s = calloc(1, sizeof *s);
    ck_assert_ptr_nonnull(s);
    pthread_mutex_init(&s->lock, NULL);
    atomic_init(&s->version, 1);
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(s->lfd, 0);
    int one = 1;
    setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    ck_assert_int_eq(bind(s->lfd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(s->lfd, 128), 0);
    socklen_t al = sizeof a;
    ck_assert_int_eq(getsockname(s->lfd, (struct sockaddr *)&a, &al), 0);
    s->port = ntohs(a.sin_port);
    ck_assert_int_eq(pthread_create(&s->accept_thread, NULL, accept_main, s), 0);
    return s;
}

/* Serve data[0, len) (kept by the caller) at `path`. */
static void server_add(server *s, const char *path, const uint8_t *data, size_t len)
{
    ck_assert_uint_lt(s->nobjects, MAX_OBJECTS);
    object *o = &s->objects[s->nobjects++];
    snprintf(o->path, sizeof o->path, "%s", path);
    o->data = data;
    o->len = len;
}

static void server_stop(server *s)
{
    atomic_store(&s->stop, true);
    shutdown(s->lfd, SHUT_RDWR); /* wakes accept() */
    pthread_join(s->accept_thread, NULL);
    close(s->lfd);
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nconns; i++) shutdown(s->conns[i]->fd, SHUT_RDWR); /* wakes recv() */
    pthread_mutex_unlock(&s->lock);
    for (size_t i = 0; i < s->nconns; i++) {
        pthread_join(s->conns[i]->thread, NULL);
        close(s->conns[i]->fd);
        free(s->conns[i]);
    }
    free(s->conns);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static char *url_of(const server *s, const char *path)
{
    char *u = malloc(64 + strlen(path));
    ck_assert_ptr_nonnull(u);
    sprintf(u, "http://127.0.0.1:%u%s", s->port, path);
    return u;
}

/* ---------------------------------------------------------------------------
 * Fixtures
 * ------------------------------------------------------------------------- */

#define OBJ_SIZE (1u << 20)
#define TAIL 65536u

static uint8_t *g_obj;         /* 1 MiB of xorshift bytes, served at /obj */
static uint8_t g_small[100];   /* served at /small */

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void make_objects(void)
{
    if (g_obj) return;
    g_obj = malloc(OBJ_SIZE);
    ck_assert_ptr_nonnull(g_obj);
    uint64_t x = 0x243F6A8885A308D3ull;
    for (size_t i = 0; i < OBJ_SIZE; i += 8) {
        uint64_t v = xorshift(&x);
        memcpy(g_obj + i, &v, 8);
    }
    for (size_t i = 0; i < sizeof g_small; i++) g_small[i] = (uint8_t)(i * 7 + 3);
}

static server *start_with_objects(void)
{
    make_objects();
    server *s = server_start();
    server_add(s, "/obj", g_obj, OBJ_SIZE);
    server_add(s, "/small", g_small, sizeof g_small);
    server_add(s, "/empty", g_small, 0);
    return s;
}

static void fast_retries(pq_remote_options *o)
{
    pq_remote_options_init(o);
    o->retry_base_ms = 1;
    o->max_retries = 20;
}

static pq_remote *open_ok(server *s, const char *path, const pq_remote_options *o)
{
    char *u = url_of(s, path);
    pq_error err = {0};
    pq_remote *rm = pq_remote_open(u, o, &err);
    ck_assert_msg(rm != NULL, "open %s: %s", u, err.message);
    free(u);
    return rm;
}

static void stats(const pq_remote *rm, pq_remote_stats *st) { pq_remote_get_stats(rm, st); }

static void read_check(pq_remote *rm, uint64_t off, size_t len)
{
    uint8_t *buf = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(buf);
    pq_error err = {0};
    pq_status st = pq_remote_read(rm, off, len, buf, &err);
    ck_assert_msg(st == PQ_OK, "read %zu at %llu: %s", len, (unsigned long long)off, err.message);
    ck_assert_msg(len == 0 || memcmp(buf, g_obj + off, len) == 0, "bytes of %zu at %llu differ", len,
                  (unsigned long long)off);
    free(buf);
}

/* ---------------------------------------------------------------------------
 * Opens
 * ------------------------------------------------------------------------- */

START_TEST(open_size_version_tail)
{
    server *s = start_with_objects();
    pq_remote *rm = open_ok(s, "/obj", NULL);
    ck_assert_uint_eq(pq_remote_size(rm), OBJ_SIZE);
    ck_assert_str_eq(pq_remote_version(rm), "\"v1\"");
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 1);
    ck_assert_uint_eq(st.retries, 0);
    ck_assert_uint_eq(st.bytes, TAIL);
    ck_assert_uint_eq(atomic_load(&s->requests), 1);
    /* Reads inside the tail are copied from it: no request. */
    read_check(rm, OBJ_SIZE - TAIL, TAIL);
    read_check(rm, OBJ_SIZE - 1, 1);
    read_check(rm, OBJ_SIZE - 100, 100);
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 1);
    ck_assert_uint_eq(st.tail_hits, 3);
    ck_assert_uint_eq(atomic_load(&s->requests), 1);
    /* One byte before the tail is a request (with If-Match). */
    read_check(rm, OBJ_SIZE - TAIL - 1, 2);
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 2);
    ck_assert_uint_eq(st.bytes, TAIL + 2);
    ck_assert_uint_eq(atomic_load(&s->requests), 2);
    ck_assert_uint_eq(atomic_load(&s->if_match_seen), 1);
    /* The cache key: URL, size, ETag. */
    char *u = url_of(s, "/obj");
    char want[128];
    int wl = snprintf(want, sizeof want, "%s%c%u%c\"v1\"", u, 0, OBJ_SIZE, 0);
    char key[128];
    ck_assert_uint_eq(pq_remote_cache_key(rm, key, sizeof key), (size_t)wl);
    ck_assert_int_eq(memcmp(key, want, (size_t)wl), 0);
    ck_assert_str_eq(pq_remote_url(rm), u);
    free(u);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

START_TEST(open_head_small_empty_missing)
{
    server *s = start_with_objects();
    /* tail_bytes 0: a HEAD; nothing kept, so every read is a request. */
    pq_remote_options o;
    pq_remote_options_init(&o);
    o.tail_bytes = 0;
    pq_remote *rm = open_ok(s, "/obj", &o);
    ck_assert_uint_eq(pq_remote_size(rm), OBJ_SIZE);
    ck_assert_str_eq(pq_remote_version(rm), "\"v1\"");
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 1);
    ck_assert_uint_eq(st.bytes, 0);
    read_check(rm, OBJ_SIZE - 10, 10);
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 2);
    ck_assert_uint_eq(st.tail_hits, 0);
    pq_remote_close(rm);
    /* An object shorter than the tail: all of it is kept. */
    rm = open_ok(s, "/small", NULL);
    ck_assert_uint_eq(pq_remote_size(rm), sizeof g_small);
    uint8_t buf[100];
    pq_error err = {0};
    ck_assert_int_eq(pq_remote_read(rm, 0, sizeof buf, buf, &err), PQ_OK);
    ck_assert_int_eq(memcmp(buf, g_small, sizeof buf), 0);
    ck_assert_int_eq(pq_remote_read(rm, 37, 5, buf, &err), PQ_OK);
    ck_assert_int_eq(memcmp(buf, g_small + 37, 5), 0);
    ck_assert_int_eq(pq_remote_read(rm, 99, 2, buf, &err), PQ_ERR_IO);
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 1);
    ck_assert_uint_eq(st.tail_hits, 2);
    pq_remote_close(rm);
    /* An empty object: the suffix range is answered 416 "bytes * /0". */
    rm = open_ok(s, "/empty", NULL);
    ck_assert_uint_eq(pq_remote_size(rm), 0);
    ck_assert_str_eq(pq_remote_version(rm), "\"v1\"");
    ck_assert_int_eq(pq_remote_read(rm, 0, 0, buf, &err), PQ_OK);
    ck_assert_int_eq(pq_remote_read(rm, 0, 1, buf, &err), PQ_ERR_IO);
    pq_remote_close(rm);
    /* A missing object: PQ_ERR_IO naming the status, no retry. */
    char *u = url_of(s, "/missing");
    unsigned before = atomic_load(&s->requests);
    ck_assert_ptr_null(pq_remote_open(u, NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_IO);
    ck_assert_msg(strstr(err.message, "HTTP 404") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "NoSuchKey") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, u) != NULL, "%s", err.message);
    ck_assert_uint_eq(atomic_load(&s->requests), before + 1);
    free(u);
    server_stop(s);
}
END_TEST

/* known_size: the open sends nothing; reads carry the given version. */
START_TEST(known_size_no_request)
{
    server *s = start_with_objects();
    pq_remote_options o;
    pq_remote_options_init(&o);
    o.known_size = OBJ_SIZE;
    o.known_version = "\"v1\"";
    pq_remote *rm = open_ok(s, "/obj", &o);
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 0);
    ck_assert_uint_eq(atomic_load(&s->requests), 0);
    ck_assert_uint_eq(atomic_load(&s->connections), 0);
    ck_assert_uint_eq(pq_remote_size(rm), OBJ_SIZE);
    ck_assert_str_eq(pq_remote_version(rm), "\"v1\"");
    /* No tail: the last byte is a request. */
    read_check(rm, OBJ_SIZE - 1, 1);
    read_check(rm, 0, 4096);
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 2);
    ck_assert_uint_eq(st.tail_hits, 0);
    ck_assert_uint_eq(atomic_load(&s->requests), 2);
    ck_assert_uint_eq(atomic_load(&s->if_match_seen), 2);
    pq_remote_close(rm);
    /* A version the server no longer has: the read fails (412). */
    o.known_version = "\"v0\"";
    rm = open_ok(s, "/obj", &o);
    uint8_t b[16];
    pq_error err = {0};
    ck_assert_int_eq(pq_remote_read(rm, 0, sizeof b, b, &err), PQ_ERR_IO);
    ck_assert_msg(strstr(err.message, "changed since it was opened") != NULL, "%s", err.message);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Reads
 * ------------------------------------------------------------------------- */

START_TEST(read_many_ranges)
{
    server *s = start_with_objects();
    pq_remote *rm = open_ok(s, "/obj", NULL);
    uint64_t x = 12345;
    size_t net = 0, hits = 0;
    static const size_t lens[] = {1, 2, 7, 100, 4096, 65537, 300000};
    for (int i = 0; i < 120; i++) {
        size_t len = lens[xorshift(&x) % 7];
        uint64_t off = xorshift(&x) % (OBJ_SIZE - len + 1);
        read_check(rm, off, len);
        if (off >= OBJ_SIZE - TAIL) hits++;
        else net++;
    }
    /* Edges: the first byte, the whole object, across the tail's start. */
    read_check(rm, 0, 1);
    read_check(rm, 0, OBJ_SIZE);
    read_check(rm, OBJ_SIZE - TAIL - 10, 20);
    read_check(rm, 5, 0); /* empty: nothing sent */
    net += 3;
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 1 + net);
    ck_assert_uint_eq(st.tail_hits, hits);
    ck_assert_uint_eq(st.retries, 0);
    ck_assert_uint_eq(atomic_load(&s->requests), 1 + net);
    /* Past the end: refused without a request. */
    uint8_t b[2];
    pq_error err = {0};
    ck_assert_int_eq(pq_remote_read(rm, OBJ_SIZE - 1, 2, b, &err), PQ_ERR_IO);
    ck_assert_int_eq(pq_remote_read(rm, OBJ_SIZE + 1, 0, b, &err), PQ_ERR_IO);
    ck_assert_uint_eq(atomic_load(&s->requests), 1 + net);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

/* Fill ranges/dsts with n random ranges (some empty, some in the tail);
 * returns how many need a request. */
static size_t random_ranges(uint64_t seed, pq_range *ranges, void **dsts, size_t n, size_t *tail_hits)
{
    uint64_t x = seed;
    size_t net = 0;
    *tail_hits = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t len = xorshift(&x) % 5 == 0 ? xorshift(&x) % 70000 : xorshift(&x) % 3000;
        if (i % 37 == 5) len = 0;
        uint64_t off = xorshift(&x) % (OBJ_SIZE - len + 1);
        ranges[i].offset = off;
        ranges[i].length = len;
        dsts[i] = malloc(len ? len : 1);
        ck_assert_ptr_nonnull(dsts[i]);
        if (!len) continue;
        if (off >= OBJ_SIZE - TAIL) (*tail_hits)++;
        else net++;
    }
    return net;
}

static void check_ranges(const pq_range *ranges, void **dsts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(memcmp(dsts[i], g_obj + ranges[i].offset, ranges[i].length) == 0, "range %zu differs", i);
        free(dsts[i]);
    }
}

START_TEST(read_ranges_200)
{
    server *s = start_with_objects();
    pq_remote_options o;
    pq_remote_options_init(&o);
    o.max_connections = 4;
    pq_remote *rm = open_ok(s, "/obj", &o);
    atomic_store(&s->delay_ms, 1); /* so that requests overlap */
    enum { N = 200 };
    pq_range ranges[N];
    void *dsts[N];
    size_t hits;
    size_t net = random_ranges(99, ranges, dsts, N, &hits);
    ck_assert_uint_gt(net, 100);
    pq_error err = {0};
    ck_assert_msg(pq_remote_read_ranges(rm, ranges, N, (void *const *)dsts, &err) == PQ_OK, "%s", err.message);
    check_ranges(ranges, dsts, N);
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 1 + net);
    ck_assert_uint_eq(st.tail_hits, hits);
    ck_assert_uint_eq(st.retries, 0);
    ck_assert_uint_eq(atomic_load(&s->requests), 1 + net);
    ck_assert_int_le(atomic_load(&s->max_inflight), 4);
    /* Again, on the warm connections. */
    net = random_ranges(7, ranges, dsts, N, &hits);
    ck_assert_int_eq(pq_remote_read_ranges(rm, ranges, N, (void *const *)dsts, &err), PQ_OK);
    check_ranges(ranges, dsts, N);
    pq_remote_stats st2;
    stats(rm, &st2);
    ck_assert_uint_eq(st2.requests, st.requests + net);
    ck_assert_int_le(atomic_load(&s->max_inflight), 4);
    /* One connection: one request at a time. */
    pq_remote_close(rm);
    o.max_connections = 1;
    atomic_store(&s->max_inflight, 0);
    rm = open_ok(s, "/obj", &o);
    net = random_ranges(8, ranges, dsts, 50, &hits);
    ck_assert_int_eq(pq_remote_read_ranges(rm, ranges, 50, (void *const *)dsts, &err), PQ_OK);
    check_ranges(ranges, dsts, 50);
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 1 + net);
    ck_assert_int_eq(atomic_load(&s->max_inflight), 1);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Faults
 * ------------------------------------------------------------------------- */

START_TEST(retry_503)
{
    server *s = start_with_objects();
    pq_remote_options o;
    fast_retries(&o);
    atomic_store(&s->fail_503, 2); /* the open's request too */
    pq_remote *rm = open_ok(s, "/obj", &o);
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(st.retries, 2);
    ck_assert_uint_eq(st.requests, 3);
    ck_assert_uint_eq(pq_remote_size(rm), OBJ_SIZE);
    atomic_store(&s->fail_503, 3);
    read_check(rm, 1000, 5000);
    stats(rm, &st);
    ck_assert_uint_eq(st.retries, 5);
    ck_assert_uint_eq(st.requests, 7);
    ck_assert_uint_eq(atomic_load(&s->faults), 5);
    ck_assert_uint_eq(atomic_load(&s->requests), 7);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

START_TEST(retry_cut_body)
{
    server *s = start_with_objects();
    pq_remote_options o;
    fast_retries(&o);
    atomic_store(&s->cut_body, 1); /* the open's tail */
    pq_remote *rm = open_ok(s, "/obj", &o);
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(st.retries, 1);
    ck_assert_uint_eq(st.requests, 2);
    read_check(rm, OBJ_SIZE - 10, 10); /* the tail kept is the whole one */
    atomic_store(&s->cut_body, 3);
    read_check(rm, 12345, 100000);
    stats(rm, &st);
    ck_assert_uint_eq(st.retries, 4);
    ck_assert_uint_eq(st.requests, 6); /* 2 for the open, 4 for the read */
    ck_assert_uint_eq(atomic_load(&s->faults), 4);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

START_TEST(retry_dropped_connections)
{
    server *s = start_with_objects();
    pq_remote_options o;
    fast_retries(&o);
    /* A new handle has no connection yet: the open's tries connect anew. */
    atomic_store(&s->drop_conn, 3);
    pq_remote *rm = open_ok(s, "/obj", &o);
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(st.retries, 3);
    ck_assert_uint_eq(st.requests, 4);
    ck_assert_uint_eq(atomic_load(&s->connections), 4);
    ck_assert_uint_eq(atomic_load(&s->requests), 1);
    /* A cut body closes the connection; the next connections are dropped. */
    atomic_store(&s->cut_body, 1);
    atomic_store(&s->drop_conn, 2);
    read_check(rm, 0, 300000);
    stats(rm, &st);
    ck_assert_uint_eq(st.retries, 6);
    ck_assert_uint_eq(st.requests, 8);
    ck_assert_uint_eq(atomic_load(&s->faults), 6);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

/* Faults spread over a batch: each one costs exactly one retry. */
START_TEST(retry_in_batch)
{
    server *s = start_with_objects();
    pq_remote_options o;
    fast_retries(&o);
    o.max_connections = 4;
    pq_remote *rm = open_ok(s, "/obj", &o);
    enum { N = 60 };
    pq_range ranges[N];
    void *dsts[N];
    size_t hits;
    size_t net = random_ranges(2024, ranges, dsts, N, &hits);
    atomic_store(&s->fail_503, 6);
    atomic_store(&s->cut_body, 4);
    pq_error err = {0};
    ck_assert_msg(pq_remote_read_ranges(rm, ranges, N, (void *const *)dsts, &err) == PQ_OK, "%s", err.message);
    check_ranges(ranges, dsts, N);
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(atomic_load(&s->faults), 10);
    ck_assert_uint_eq(st.retries, 10);
    ck_assert_uint_eq(st.requests, 1 + net + 10);
    ck_assert_uint_eq(st.tail_hits, hits);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

START_TEST(retries_exhausted)
{
    server *s = start_with_objects();
    pq_remote_options o;
    fast_retries(&o);
    o.max_retries = 2;
    pq_remote *rm = open_ok(s, "/obj", &o);
    atomic_store(&s->fail_503, 1000);
    uint8_t *buf = malloc(1000);
    pq_error err = {0};
    ck_assert_int_eq(pq_remote_read(rm, 10, 1000, buf, &err), PQ_ERR_IO);
    ck_assert_int_eq(err.code, PQ_ERR_IO);
    ck_assert_msg(strstr(err.message, "HTTP 503") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "bytes 10-1009") != NULL, "%s", err.message);
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 1 + 3);
    ck_assert_uint_eq(st.retries, 2);
    ck_assert_uint_eq(atomic_load(&s->faults), 3);
    /* A batch fails as a whole. */
    pq_range r[3] = {{0, 10}, {100, 10}, {OBJ_SIZE - 5, 5}};
    void *d[3] = {buf, buf + 10, buf + 20};
    ck_assert_int_eq(pq_remote_read_ranges(rm, r, 3, d, &err), PQ_ERR_IO);
    ck_assert_msg(strstr(err.message, "HTTP 503") != NULL, "%s", err.message);
    /* max_retries 0: one try only. A fresh server: the failed batch's other
     * requests may still reach the old one after the close, and would take
     * the fault meant for the next read. */
    pq_remote_close(rm);
    server_stop(s);
    s = start_with_objects();
    o.max_retries = 0;
    rm = open_ok(s, "/obj", &o);
    atomic_store(&s->fail_503, 1);
    ck_assert_int_eq(pq_remote_read(rm, 10, 1000, buf, &err), PQ_ERR_IO);
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 2);
    ck_assert_uint_eq(st.retries, 0);
    /* The server is fine again: so is the handle. */
    read_check(rm, 10, 1000);
    free(buf);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

START_TEST(object_changed)
{
    server *s = start_with_objects();
    pq_remote_options o;
    fast_retries(&o);
    pq_remote *rm = open_ok(s, "/obj", &o);
    read_check(rm, 0, 10);
    atomic_store(&s->version, 2);
    /* If-Match "v1" fails: 412, not retried. */
    uint8_t buf[64];
    pq_error err = {0};
    ck_assert_int_eq(pq_remote_read(rm, 0, sizeof buf, buf, &err), PQ_ERR_IO);
    ck_assert_msg(strstr(err.message, "changed since it was opened") != NULL, "%s", err.message);
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 3);
    ck_assert_uint_eq(st.retries, 0);
    /* Bytes kept from the open are of the version opened: still served. */
    ck_assert_int_eq(pq_remote_read(rm, OBJ_SIZE - 64, 64, buf, &err), PQ_OK);
    /* A server that ignores If-Match: the answer's ETag gives it away. */
    atomic_store(&s->ignore_if_match, true);
    ck_assert_int_eq(pq_remote_read(rm, 0, sizeof buf, buf, &err), PQ_ERR_IO);
    ck_assert_msg(strstr(err.message, "changed since it was opened") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "\"v2\"") != NULL, "%s", err.message);
    pq_range r[2] = {{0, 10}, {5000, 10}};
    void *d[2] = {buf, buf + 10};
    ck_assert_int_eq(pq_remote_read_ranges(rm, r, 2, d, &err), PQ_ERR_IO);
    ck_assert_msg(strstr(err.message, "changed since it was opened") != NULL, "%s", err.message);
    pq_remote_close(rm);
    /* Opened again, the new version reads. */
    rm = open_ok(s, "/obj", &o);
    ck_assert_str_eq(pq_remote_version(rm), "\"v2\"");
    read_check(rm, 0, 10);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Threads
 * ------------------------------------------------------------------------- */

#define THREADS 8
#define READS_PER_THREAD 40

typedef struct worker {
    pq_remote *rm;
    uint64_t seed;
    size_t net;      /* requests it caused */
    size_t hits;
    int bad;         /* reads that failed or differed */
    char msg[256];
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    uint64_t x = w->seed;
    uint8_t *buf = malloc(70000);
    if (!buf) {
        w->bad++;
        return NULL;
    }
    for (int i = 0; i < READS_PER_THREAD; i++) {
        size_t len = 1 + (size_t)(xorshift(&x) % 69999);
        uint64_t off = xorshift(&x) % (OBJ_SIZE - len + 1);
        pq_error err = {0};
        if (i % 5 == 4) { /* now and then a batch of three */
            pq_range r[3];
            void *d[3];
            uint8_t *b3 = malloc(3 * 1000);
            for (int k = 0; k < 3; k++) {
                r[k].offset = xorshift(&x) % (OBJ_SIZE - 1000);
                r[k].length = 1000;
                d[k] = b3 + k * 1000;
            }
            if (pq_remote_read_ranges(w->rm, r, 3, d, &err) != PQ_OK) {
                w->bad++;
                snprintf(w->msg, sizeof w->msg, "%s", err.message);
            }
            for (int k = 0; k < 3; k++) {
                if (memcmp(d[k], g_obj + r[k].offset, 1000) != 0) w->bad++;
                if (r[k].offset >= OBJ_SIZE - TAIL) w->hits++;
                else w->net++;
            }
            free(b3);
            continue;
        }
        if (pq_remote_read(w->rm, off, len, buf, &err) != PQ_OK) {
            w->bad++;
            snprintf(w->msg, sizeof w->msg, "%s", err.message);
        } else if (memcmp(buf, g_obj + off, len) != 0) {
            w->bad++;
        }
        if (off >= OBJ_SIZE - TAIL) w->hits++;
        else w->net++;
    }
    free(buf);
    return NULL;
}

START_TEST(threads_share_a_handle)
{
    server *s = start_with_objects();
    pq_remote_options o;
    pq_remote_options_init(&o);
    o.max_connections = 2;
    pq_remote *rm = open_ok(s, "/obj", &o);
    pthread_t t[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].rm = pq_remote_retain(rm); /* each thread holds a reference */
        w[i].seed = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    }
    size_t net = 0, hits = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        ck_assert_msg(w[i].bad == 0, "thread %d: %d bad reads (%s)", i, w[i].bad, w[i].msg);
        net += w[i].net;
        hits += w[i].hits;
        pq_remote_close(w[i].rm);
    }
    pq_remote_stats st;
    stats(rm, &st);
    ck_assert_uint_eq(st.requests, 1 + net);
    ck_assert_uint_eq(st.tail_hits, hits);
    ck_assert_uint_eq(st.retries, 0);
    ck_assert_uint_eq(atomic_load(&s->requests), 1 + net);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

/* Threads with faults: every fault costs one retry, whoever meets it. */
START_TEST(threads_with_faults)
{
    server *s = start_with_objects();
    pq_remote_options o;
    fast_retries(&o);
    o.max_retries = 100;
    pq_remote *rm = open_ok(s, "/obj", &o);
    atomic_store(&s->fail_503, 12);
    atomic_store(&s->cut_body, 12);
    pthread_t t[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].rm = rm;
        w[i].seed = 77 + (uint64_t)i;
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    }
    size_t net = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        ck_assert_msg(w[i].bad == 0, "thread %d: %d bad reads (%s)", i, w[i].bad, w[i].msg);
        net += w[i].net;
    }
    pq_remote_stats st;
    stats(rm, &st);
    unsigned faults = atomic_load(&s->faults);
    ck_assert_uint_eq(st.retries, faults);
    ck_assert_uint_eq(st.requests, 1 + net + faults);
    pq_remote_close(rm);
    server_stop(s);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Readers over a URL
 * ------------------------------------------------------------------------- */

#define CORPUS_FILE "data/alltypes_plain.parquet"

static uint8_t *load_corpus_file(size_t *len)
{
    char *path = pq_test_corpus_path(CORPUS_FILE);
    if (!path) return NULL;
    uint8_t *data = pq_test_read_file(path, len);
    free(path);
    return data;
}

/* Rows and Arrow bytes decoded from the local copy, for comparison. */
static void local_decode(const uint8_t *data, size_t len, pq_decode_stats *dec)
{
    pq_error err = {0};
    pq_reader *r = pq_reader_open_memory(data, len, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    ck_assert_msg(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s", err.message);
    pq_reader_decode_stats(r, dec, sizeof *dec);
    pq_reader_close(r);
}

START_TEST(reader_over_url)
{
    size_t len = 0;
    uint8_t *data = load_corpus_file(&len);
    if (!data) {
        fprintf(stderr, "SKIP reader_over_url: no corpus\n");
        return;
    }
    pq_decode_stats want;
    local_decode(data, len, &want);
    ck_assert_uint_eq(want.rows, 8);
    server *s = server_start();
    server_add(s, "/alltypes_plain.parquet", data, len);
    char *u = url_of(s, "/alltypes_plain.parquet");
    pq_error err = {0};
    pq_reader *r = pq_reader_open_url(u, NULL, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    ck_assert_msg(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s", err.message);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_DECODE);
    pq_footer_stats f;
    pq_page_header_stats ph;
    pq_decode_stats dec;
    pq_reader_footer_stats(r, &f, sizeof f);
    pq_reader_page_header_stats(r, &ph, sizeof ph);
    pq_reader_decode_stats(r, &dec, sizeof dec);
    /* The whole file fits in the open's tail: one request in all. */
    ck_assert_uint_eq(f.io.requests, 1);
    ck_assert_uint_eq(f.io.retries, 0);
    ck_assert_uint_eq(ph.io.requests, 0);
    ck_assert_uint_eq(dec.rows, want.rows);
    ck_assert_uint_eq(dec.bytes_out, want.bytes_out);
    ck_assert_uint_eq(atomic_load(&s->requests), 1);
    pq_reader_close(r);
    free(u);
    server_stop(s);
    free(data);
}
END_TEST

START_TEST(reader_small_tail)
{
    size_t len = 0;
    uint8_t *data = load_corpus_file(&len);
    if (!data) {
        fprintf(stderr, "SKIP reader_small_tail: no corpus\n");
        return;
    }
    pq_decode_stats want;
    local_decode(data, len, &want);
    server *s = server_start();
    server_add(s, "/alltypes_plain.parquet", data, len);
    char *u = url_of(s, "/alltypes_plain.parquet");
    pq_reader_options ro;
    pq_reader_options_init(&ro);
    ro.footer_read_size = 64; /* the open fetches 64 bytes: the footer needs more */
    pq_error err = {0};
    pq_reader *r = pq_reader_open_url(u, &ro, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    ck_assert_msg(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s", err.message);
    pq_footer_stats f;
    pq_page_header_stats ph;
    pq_decode_stats dec;
    pq_reader_footer_stats(r, &f, sizeof f);
    pq_reader_page_header_stats(r, &ph, sizeof ph);
    pq_reader_decode_stats(r, &dec, sizeof dec);
    ck_assert_uint_eq(f.io.requests, 2); /* the open, then the rest of the footer */
    ck_assert_uint_gt(ph.io.requests, 0);
    ck_assert_uint_eq(dec.rows, want.rows);
    ck_assert_uint_eq(dec.bytes_out, want.bytes_out);
    /* Every request is in some stage's count. */
    uint64_t total = 0;
    for (int st = PQ_STAGE_INIT; st < PQ_STAGE_COUNT; st++) {
        pq_io_stats x;
        pq_reader_io_stats(r, (pq_stage)st, &x, sizeof x);
        total += x.requests;
    }
    ck_assert_uint_eq(total, atomic_load(&s->requests));
    pq_reader_close(r);
    /* With faults: the stages count the retries. */
    pq_remote_options o;
    fast_retries(&o);
    o.tail_bytes = 64;
    atomic_store(&s->fail_503, 1);
    r = pq_reader_open_url(u, &ro, &o, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    atomic_store(&s->cut_body, 1);
    ck_assert_msg(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s", err.message);
    pq_reader_footer_stats(r, &f, sizeof f);
    pq_reader_decode_stats(r, &dec, sizeof dec);
    ck_assert_uint_eq(f.io.retries, 2); /* the open's 503 and the footer's cut body */
    ck_assert_uint_eq(f.io.requests, 4);
    ck_assert_uint_eq(dec.rows, want.rows);
    pq_reader_close(r);
    /* A missing object fails the open. */
    char *missing = url_of(s, "/nope.parquet");
    ck_assert_ptr_null(pq_reader_open_url(missing, NULL, NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_IO);
    free(missing);
    free(u);
    server_stop(s);
    free(data);
}
END_TEST

static Suite *remote_suite(void)
{
    Suite *s = suite_create("remote_http");
    TCase *tc = tcase_create("open");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_test(tc, open_size_version_tail);
    tcase_add_test(tc, open_head_small_empty_missing);
    tcase_add_test(tc, known_size_no_request);
    suite_add_tcase(s, tc);
    tc = tcase_create("read");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, read_many_ranges);
    tcase_add_test(tc, read_ranges_200);
    suite_add_tcase(s, tc);
    tc = tcase_create("faults");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, retry_503);
    tcase_add_test(tc, retry_cut_body);
    tcase_add_test(tc, retry_dropped_connections);
    tcase_add_test(tc, retry_in_batch);
    tcase_add_test(tc, retries_exhausted);
    tcase_add_test(tc, object_changed);
    suite_add_tcase(s, tc);
    tc = tcase_create("threads");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, threads_share_a_handle);
    tcase_add_test(tc, threads_with_faults);
    suite_add_tcase(s, tc);
    tc = tcase_create("reader");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, reader_over_url);
    tcase_add_test(tc, reader_small_tail);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(remote_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    free(g_obj);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
