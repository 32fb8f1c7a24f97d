/*
 * fuzz_arrow_ipc_schema.c — libFuzzer target for pq_arrow_hints_decode(),
 * the ARROW:schema footer key.
 *
 * Each input is decoded twice over: as base64 text as it comes, and as the
 * raw IPC message, base64-encoded here first (random bytes are seldom valid
 * base64, so the second way is where the flatbuffer walk gets explored; the
 * seeds in regressions/fuzz_arrow_ipc_schema/ are mostly raw messages). The
 * target checks the contracts of metadata/arrow_ipc_schema.h:
 *
 *   - a failure has a status the header lists, a terminated message that
 *     starts with "ARROW:schema", and leaves *out zeroed;
 *   - a success can be walked: names and time zones are NUL-terminated and
 *     readable after the input text is freed, types and units are in range
 *     (a unit or a time zone only where the type has one, an index width of
 *     8, 16, 32 or 64 bits exactly on dictionary fields), children arrays
 *     exist exactly when counted, nesting is at most 64 deep and the fields
 *     at most 1 << 20 in all;
 *   - decoding is deterministic: the same text gives the same hints again.
 *
 * A broken contract calls abort(), which libFuzzer reports as a crash with
 * the input saved. Build: see tests/fuzz/CMakeLists.txt.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/arrow_ipc_schema.h"

static volatile uint8_t pq_fuzz_sink;

#define FUZZ_CHECK(cond, ...)                                                               \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "fuzz_arrow_ipc_schema: %s:%d: check failed: %s: ", __FILE__,  \
                    __LINE__, #cond);                                                       \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fputc('\n', stderr);                                                            \
            abort();                                                                        \
        }                                                                                   \
    } while (0)

static void touch_cstr(const char *s)
{
    uint8_t acc = 0;
    for (; *s; s++) acc ^= (uint8_t)*s;
    pq_fuzz_sink ^= acc;
}

/* Walks every hint below `h`; returns how many there are. */
static size_t walk(const pq_arrow_hint *h, size_t n, int depth)
{
    FUZZ_CHECK(depth <= PQ_ARROW_HINTS_MAX_DEPTH, "hints %d deep", depth);
    size_t total = n;
    for (size_t i = 0; i < n; i++) {
        const pq_arrow_hint *f = &h[i];
        FUZZ_CHECK(f->name != NULL, "field %zu at depth %d has a NULL name", i, depth);
        touch_cstr(f->name);
        FUZZ_CHECK(f->type <= PQ_HINT_LARGE_LIST, "type %u", f->type);
        FUZZ_CHECK(f->dictionary ? (f->index_bits == 8 || f->index_bits == 16 || f->index_bits == 32 ||
                                    f->index_bits == 64)
                                 : (f->index_bits == 0 && !f->ordered && !f->index_signed),
                   "index of %u bits on a %sdictionary field", f->index_bits, f->dictionary ? "" : "non-");
        bool timed = f->type == PQ_HINT_TIMESTAMP || f->type == PQ_HINT_DURATION;
        FUZZ_CHECK(f->unit <= PQ_HINT_NANO && (timed || f->unit == 0), "unit %u for type %u",
                   f->unit, f->type);
        FUZZ_CHECK(f->timezone == NULL || f->type == PQ_HINT_TIMESTAMP,
                   "time zone on type %u", f->type);
        if (f->timezone) touch_cstr(f->timezone);
        FUZZ_CHECK((f->n_children == 0) == (f->children == NULL), "%zu children at %p",
                   f->n_children, (void *)f->children);
        total += walk(f->children, f->n_children, depth + 1);
    }
    return total;
}

static void same(const pq_arrow_hint *a, const pq_arrow_hint *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(strcmp(a[i].name, b[i].name) == 0 && a[i].type == b[i].type &&
                       a[i].unit == b[i].unit && a[i].dictionary == b[i].dictionary &&
                       a[i].nullable == b[i].nullable && a[i].n_children == b[i].n_children &&
                       a[i].index_bits == b[i].index_bits && a[i].index_signed == b[i].index_signed &&
                       a[i].ordered == b[i].ordered &&
                       (a[i].timezone == NULL) == (b[i].timezone == NULL) &&
                       (!a[i].timezone || strcmp(a[i].timezone, b[i].timezone) == 0),
                   "a second decode differs at field '%s'", a[i].name);
        same(a[i].children, b[i].children, a[i].n_children);
    }
}

static void check_one(const char *text, size_t len)
{
    /* Decode from a copy that dies first: the hints must not point into it. */
    char *copy = malloc(len ? len : 1);
    FUZZ_CHECK(copy != NULL, "out of memory");
    if (len) memcpy(copy, text, len);
    pq_arrow_hints h;
    pq_error err = {0};
    pq_status st = pq_arrow_hints_decode(copy, len, &h, &err);
    free(copy);

    if (st != PQ_OK) {
        FUZZ_CHECK(st == PQ_ERR_CORRUPT_DATA || st == PQ_ERR_MEMORY_LIMIT || st == PQ_ERR_NOMEM,
                   "status %d", (int)st);
        FUZZ_CHECK(err.code == st, "err.code %d for status %d", (int)err.code, (int)st);
        FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message) != NULL,
                   "message not terminated");
        FUZZ_CHECK(strncmp(err.message, "ARROW:schema: ", 14) == 0, "message \"%s\"",
                   err.message);
        FUZZ_CHECK(h.n_fields == 0 && h.fields == NULL && h.block == NULL,
                   "failure left hints behind");
        return;
    }
    FUZZ_CHECK(h.block != NULL, "success without a block");
    FUZZ_CHECK((h.n_fields == 0) == (h.fields == NULL), "%zu fields at %p", h.n_fields,
               (void *)h.fields);
    size_t total = walk(h.fields, h.n_fields, 1);
    FUZZ_CHECK(total <= PQ_ARROW_HINTS_MAX_FIELDS, "%zu fields", total);

    pq_arrow_hints again;
    st = pq_arrow_hints_decode(text, len, &again, &err);
    FUZZ_CHECK(st == PQ_OK && again.n_fields == h.n_fields, "second decode: %s", err.message);
    same(h.fields, again.fields, h.n_fields);
    pq_arrow_hints_free(&again);
    pq_arrow_hints_free(&h);
    FUZZ_CHECK(h.block == NULL && h.fields == NULL, "free did not zero the hints");
}

/* Standard base64 with padding; malloc'd, *out_len its length. */
static char *encode(const uint8_t *p, size_t n, size_t *out_len)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((n + 2) / 3 * 4 + 1);
    FUZZ_CHECK(out != NULL, "out of memory");
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        out[o++] = abc[v >> 18 & 63];
        out[o++] = abc[v >> 12 & 63];
        out[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? abc[v & 63] : '=';
    }
    *out_len = o;
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_one((const char *)data, size);
    size_t len;
    char *text = encode(data, size, &len);
    check_one(text, len);
    free(text);
    return 0;
}
