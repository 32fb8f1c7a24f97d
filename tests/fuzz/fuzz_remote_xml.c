/*
 * fuzz_remote_xml.c — libFuzzer target for the parsers remote/ runs on what
 * a server sends: the bounded XML extraction of S3 answers (remote/xml.c:
 * ListObjectsV2 pages, error bodies), entity decoding, and the Content-Range
 * parser of the request engine (remote/http.c). No network: the functions
 * are pure.
 *
 * The input is walked as list.c walks a ListObjectsV2 page (every
 * <Contents>, its Key, Size and ETag, the Size parsed as list.c does; then
 * IsTruncated and NextContinuationToken) and as the engine reads an error
 * body (Code, Message). Checked, beyond "no crash" (ASan sees every read past
 * the input, which libFuzzer hands over in a buffer of its exact size):
 *
 *   - pq_xml_next's body lies inside the input at or after the start
 *     position, and the position moves forward and stays within the input,
 *     so every loop ends;
 *   - decoded text is never longer than what it was decoded from;
 *   - pq_http_parse_content_range, on a NUL-terminated copy, accepts only
 *     ranges with first <= last (or "*": first 1, last 0);
 *   - pq_url_encode never writes at or past its capacity, and what it
 *     writes is unreserved bytes and %XX only.
 *
 * A broken promise calls abort(), which libFuzzer reports as a crash with
 * the input saved. Build: see tests/fuzz/CMakeLists.txt.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/http.h"
#include "remote/url.h"
#include "remote/xml.h"

#define FUZZ_CHECK(cond, what)                                                          \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "fuzz_remote_xml: %s:%d: broken promise: %s\n", __FILE__,   \
                    __LINE__, what);                                                    \
            abort();                                                                    \
        }                                                                               \
    } while (0)

/* pq_xml_text of xml[0, len), checked; frees it. Returns whether found. */
static bool text_check(const char *xml, size_t len, const char *tag)
{
    char *t = pq_xml_text(xml, len, tag);
    if (!t) return false;
    FUZZ_CHECK(strlen(t) <= len, "decoded text no longer than its input");
    free(t);
    return true;
}

/* Every <tag> of xml[0, len) from `start`, as the callers loop over them. */
static size_t walk(const char *xml, size_t len, size_t start, const char *tag)
{
    size_t pos = start, last = start, n = 0;
    const char *body;
    size_t bl;
    while (pq_xml_next(xml, len, &pos, tag, &body, &bl)) {
        FUZZ_CHECK(body >= xml + start && body <= xml + len && bl <= (size_t)(xml + len - body),
                   "the body lies inside the input, after the start");
        FUZZ_CHECK(pos > last && pos <= len, "the position moves forward, inside the input");
        last = pos;
        n++;
    }
    return n;
}

/* A ListObjectsV2 page, as list.c's take_page reads it. */
static void list_page(const char *xml, size_t len)
{
    size_t pos = 0, last = 0;
    const char *body;
    size_t bl;
    while (pq_xml_next(xml, len, &pos, "Contents", &body, &bl)) {
        FUZZ_CHECK(body >= xml && bl <= (size_t)(xml + len - body), "Contents body inside the input");
        FUZZ_CHECK(pos > last && pos <= len, "Contents position moves forward");
        last = pos;
        char *key = pq_xml_text(body, bl, "Key");
        char *size = pq_xml_text(body, bl, "Size");
        char *etag = pq_xml_text(body, bl, "ETag");
        if (key) FUZZ_CHECK(strlen(key) <= bl, "Key no longer than its element");
        if (size) {
            FUZZ_CHECK(strlen(size) <= bl, "Size no longer than its element");
            char *end = NULL;
            unsigned long long sz = strtoull(size, &end, 10);
            (void)sz;
            FUZZ_CHECK(end >= size && end <= size + strlen(size), "strtoull stays in the string");
        }
        if (etag) FUZZ_CHECK(strlen(etag) <= bl, "ETag no longer than its element");
        free(key);
        free(size);
        free(etag);
        walk(body, bl, 0, "Key");
    }
    text_check(xml, len, "IsTruncated");
    text_check(xml, len, "NextContinuationToken");
}

static void content_range(const char *s)
{
    uint64_t first = 0, last = 0, total = 0;
    if (pq_http_parse_content_range(s, &first, &last, &total)) {
        bool star = strncmp(s + 6, "*", 1) == 0;
        if (star) FUZZ_CHECK(first == 1 && last == 0, "an unsatisfied range reads first 1, last 0");
        else FUZZ_CHECK(first <= last, "an accepted range has first <= last");
    }
}

static bool unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~';
}

static bool hexdigit(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); }

static void encode(const char *s, size_t n)
{
    /* The input (to its first NUL) at a few capacities, with a canary
     * region after cap. */
    size_t caps[4] = {1, n / 2 + 1, n + 1, 3 * n + 1};
    for (int k = 0; k < 4; k++) {
        size_t cap = caps[k];
        size_t room = cap + 16;
        char *buf = malloc(room);
        if (!buf) return;
        memset(buf, 0x5A, room);
        size_t len = 0;
        bool keep = k & 1;
        bool ok = pq_url_encode(buf, cap, &len, s, keep);
        for (size_t i = cap; i < room; i++) FUZZ_CHECK(buf[i] == 0x5A, "nothing written at or past cap");
        if (ok) {
            FUZZ_CHECK(len < cap && buf[len] == 0 && strlen(buf) == len, "a NUL-terminated result");
            for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)buf[i];
                if (c == '%') {
                    FUZZ_CHECK(i + 2 < len && hexdigit((unsigned char)buf[i + 1]) &&
                                   hexdigit((unsigned char)buf[i + 2]), "%XX");
                    i += 2;
                } else {
                    FUZZ_CHECK(unreserved(c) || (keep && c == '/'), "only unreserved bytes written plain");
                }
            }
        } else {
            FUZZ_CHECK(len == 0, "*len unchanged on failure");
        }
        free(buf);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20)) return 0;
    const char *xml = (const char *)data;
    list_page(xml, size);
    text_check(xml, size, "Code");
    text_check(xml, size, "Message");
    walk(xml, size, 0, "Size");
    walk(xml, size, size / 2, "Key");
    walk(xml, size, size, "Key");
    char *u = pq_xml_unescape(xml, size);
    FUZZ_CHECK(u != NULL, "unescape of a bounded input");
    FUZZ_CHECK(strlen(u) <= size, "decoded text no longer than its input");
    free(u);
    /* NUL-terminated copy for the string parsers. */
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = 0;
    content_range(s);
    if (size >= 6) content_range(s + size % 6);
    if (size <= 4096) encode(s, strlen(s));
    pq_url url;
    if (pq_url_parse(s, &url, NULL) == PQ_OK) pq_url_free(&url);
    free(s);
    return 0;
}
