/*
 * variant.c — VARIANT metadata and values checked and rendered as JSON
 * (see pq_variant.h; the encoding is parquet-format's VariantEncoding.md).
 *
 * One recursive walk does both: with a text buffer it writes JSON while it
 * checks, without one it only checks. Every read goes through need(), which
 * fails instead of reading past the value.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "kernels/utf8.h"
#include "metadata/error.h"
#include "metadata/variant_access.h"
#include "pq_text.h"
#include "pq_variant.h"

/* The metadata, parsed: its dictionary's offsets and strings. */
typedef struct vmeta {
    const uint8_t *offsets; /* dict_size + 1 offsets of `osize` bytes */
    const uint8_t *bytes;   /* the strings */
    size_t osize;
    uint32_t dict_size;
    size_t bytes_len;
    size_t total;           /* bytes the metadata occupies */
} vmeta;

/* JSON text being written (or not: out NULL, cap 0). */
typedef struct vtext {
    char *out;
    size_t cap, len;
} vtext;

static uint32_t le_n(const uint8_t *p, size_t n)
{
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static void put(vtext *t, const char *s, size_t n)
{
    if (t->len < t->cap) {
        size_t room = t->cap - t->len;
        memcpy(t->out + t->len, s, n < room ? n : room);
    }
    t->len += n;
}

static void puts_(vtext *t, const char *s)
{
    put(t, s, strlen(s));
}

static void putf(vtext *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(vtext *t, const char *fmt, ...)
{
    char buf[96];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) put(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* A JSON string of `n` bytes (UTF-8 passed through, control characters,
 * quotes and backslashes escaped). */
static void put_string(vtext *t, const uint8_t *s, size_t n)
{
    put(t, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        put(t, (const char *)s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': put(t, "\\\"", 2); break;
        case '\\': put(t, "\\\\", 2); break;
        case '\n': put(t, "\\n", 2); break;
        case '\r': put(t, "\\r", 2); break;
        case '\t': put(t, "\\t", 2); break;
        default: putf(t, "\\u%04x", c); break;
        }
    }
    put(t, (const char *)s + run, n - run);
    put(t, "\"", 1);
}

/* Binary as a base64 JSON string (OpenSSL's encoder). */
static void put_base64(vtext *t, const uint8_t *s, size_t n)
{
    put(t, "\"", 1);
    for (size_t i = 0; i < n; i += 48) { /* 48 bytes a step: 64 characters */
        unsigned char q[65];
        int k = EVP_EncodeBlock(q, s + i, (int)(n - i < 48 ? n - i : 48));
        put(t, (const char *)q, (size_t)k);
    }
    put(t, "\"", 1);
}

/* A double as pq_format_double writes it (the shortest text that reads
 * back the same), or NaN and the infinities as JSON strings. */
static void put_double(vtext *t, double d)
{
    if (isnan(d) || isinf(d)) {
        puts_(t, isnan(d) ? "\"NaN\"" : d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        return;
    }
    char buf[40];
    put(t, buf, pq_format_double(d, buf, sizeof buf));
}

/* An unscaled little-endian two's complement decimal of `width` bytes. */
static void put_decimal(vtext *t, const uint8_t *p, size_t width, unsigned scale)
{
    uint8_t be[16];
    for (size_t i = 0; i < width; i++) be[i] = p[width - 1 - i];
    char buf[PQ_FORMAT_DECIMAL_MAX];
    put(t, buf, pq_format_decimal(be, width, (int32_t)scale, buf, sizeof buf));
}

static void put_quoted_date(vtext *t, int64_t days)
{
    char buf[32];
    put(t, "\"", 1);
    put(t, buf, pq_format_date(days, buf, sizeof buf));
    put(t, "\"", 1);
}

/* A timestamp of 10^-digits second ticks; UTC-adjusted ones end "+00:00". */
static void put_timestamp(vtext *t, int64_t ticks, int digits, bool utc)
{
    char buf[64];
    put(t, "\"", 1);
    put(t, buf, pq_format_timestamp(ticks, digits, false, buf, sizeof buf));
    if (utc) put(t, "+00:00", 6);
    put(t, "\"", 1);
}

static int64_t le64s(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return (int64_t)v;
}

/* ---- the walk ---- */

typedef struct vwalk {
    const vmeta *m;
    const uint8_t *base; /* the top value, for byte positions in messages */
    vtext *t;            /* NULL: check only */
    pq_error *err;
} vwalk;

static pq_status bad(const vwalk *w, const uint8_t *at, const char *what)
{
    return pq_error_set(w->err, PQ_ERR_CORRUPT_DATA, "variant value byte %zu: %s", (size_t)(at - w->base), what);
}

/* Bytes of `len` at `p` lie inside [p, end)? */
#define NEED(p, n, end, what)                                                                                   \
    do {                                                                                                        \
        if ((size_t)((end) - (p)) < (size_t)(n)) return bad(w, (p), what);                                    \
    } while (0)

/* Dictionary string `id`. */
static pq_status field_name(const vwalk *w, const uint8_t *at, uint32_t id, const uint8_t **s, size_t *n)
{
    if (id >= w->m->dict_size) return bad(w, at, "a field id outside the metadata dictionary");
    uint32_t a = le_n(w->m->offsets + (size_t)id * w->m->osize, w->m->osize);
    uint32_t b = le_n(w->m->offsets + ((size_t)id + 1) * w->m->osize, w->m->osize);
    *s = w->m->bytes + a;
    *n = b - a; /* the offsets were checked at parse: rising, within the strings */
    return PQ_OK;
}

static int name_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

static pq_status walk_value(const vwalk *w, const uint8_t *p, const uint8_t *end, int depth, size_t *used);

static pq_status walk_primitive(const vwalk *w, const uint8_t *p, const uint8_t *end, unsigned type, size_t *used)
{
    vtext *t = w->t;
    const uint8_t *d = p + 1;
    static const uint8_t fixed[] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4, 8, 8, 4, 0, 0, 8, 8, 8, 16};
    if (type >= sizeof fixed) return bad(w, p, "an unknown primitive type");
    size_t n = fixed[type];
    if (type == 15 || type == 16) { /* binary, string: a 4-byte length first */
        NEED(d, 4, end, "a binary or string length past the end of the value");
        uint32_t len = le_n(d, 4);
        NEED(d + 4, len, end, "a binary or string past the end of the value");
        if (type == 16 && pq_utf8_invalid_at(d + 4, len) != len) return bad(w, p, "a string that is not UTF-8");
        if (t && type == 15) put_base64(t, d + 4, len);
        if (t && type == 16) put_string(t, d + 4, len);
        *used = 1 + 4 + (size_t)len;
        return PQ_OK;
    }
    NEED(d, n, end, "a primitive value past the end of the value");
    *used = 1 + n;
    if (type >= 8 && type <= 10 && d[0] > 38) return bad(w, p, "a decimal scale over 38");
    if (type == 17 && (le64s(d) < 0 || le64s(d) >= 86400LL * 1000000))
        return bad(w, p, "a time of day outside 00:00..24:00");
    if (!t) return PQ_OK;
    switch (type) {
    case 0: puts_(t, "null"); break;
    case 1: puts_(t, "true"); break;
    case 2: puts_(t, "false"); break;
    case 3: putf(t, "%d", (int8_t)d[0]); break;
    case 4: putf(t, "%d", (int16_t)(uint16_t)le_n(d, 2)); break;
    case 5: putf(t, "%" PRId32, (int32_t)le_n(d, 4)); break;
    case 6: putf(t, "%" PRId64, le64s(d)); break;
    case 7: {
        double x;
        memcpy(&x, d, 8);
        put_double(t, x);
        break;
    }
    case 8: case 9: case 10: put_decimal(t, d + 1, n - 1, d[0]); break;
    case 11: put_quoted_date(t, (int32_t)le_n(d, 4)); break;
    case 12: put_timestamp(t, le64s(d), 6, true); break;
    case 13: put_timestamp(t, le64s(d), 6, false); break;
    case 14: {
        float f;
        memcpy(&f, d, 4);
        put_double(t, (double)f); /* the float's exact value, as a double reads it */
        break;
    }
    case 17: { /* within the day: checked above */
        char buf[32];
        put(t, "\"", 1);
        put(t, buf, pq_format_time(le64s(d), 6, buf, sizeof buf));
        put(t, "\"", 1);
        break;
    }
    case 18: put_timestamp(t, le64s(d), 9, true); break;
    case 19: put_timestamp(t, le64s(d), 9, false); break;
    case 20:
        putf(t, "\"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\"", d[0], d[1], d[2], d[3], d[4],
             d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15]);
        break;
    }
    return PQ_OK;
}

/* An object or array: its header sizes, element count and the offsets. */
static pq_status walk_container(const vwalk *w, const uint8_t *p, const uint8_t *end, bool object, int depth,
                                size_t *used)
{
    unsigned h = p[0] >> 2;
    size_t osize = (h & 3) + 1, idsize = object ? ((h >> 2) & 3) + 1 : 0;
    bool large = object ? (h >> 4) & 1 : (h >> 2) & 1;
    const uint8_t *q = p + 1;
    size_t nsize = large ? 4 : 1;
    NEED(q, nsize, end, "an element count past the end of the value");
    uint32_t n = le_n(q, nsize);
    q += nsize;
    const uint8_t *ids = q;
    if ((uint64_t)n * idsize > (size_t)(end - q)) return bad(w, q, "field ids past the end of the value");
    q += (size_t)n * idsize;
    const uint8_t *offs = q;
    if (((uint64_t)n + 1) * osize > (size_t)(end - q)) return bad(w, q, "field offsets past the end of the value");
    q += ((size_t)n + 1) * osize;
    const uint8_t *vals = q;
    uint32_t total = le_n(offs + (size_t)n * osize, osize);
    NEED(vals, total, end, "elements past the end of the value");
    vtext *t = w->t;
    if (t) put(t, object ? "{" : "[", 1);
    const uint8_t *prev_name = NULL;
    size_t prev_len = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t off = le_n(offs + (size_t)i * osize, osize);
        if (off >= total) return bad(w, offs + (size_t)i * osize, "an element offset outside the elements");
        if (t && i) put(t, ",", 1);
        if (object) {
            const uint8_t *name = NULL;
            size_t nlen = 0;
            pq_status st = field_name(w, ids + (size_t)i * idsize, le_n(ids + (size_t)i * idsize, idsize), &name, &nlen);
            if (st != PQ_OK) return st;
            if (prev_name && name_cmp(prev_name, prev_len, name, nlen) >= 0)
                return bad(w, ids + (size_t)i * idsize, "object fields not in ascending order of their names, or repeated");
            prev_name = name;
            prev_len = nlen;
            if (t) {
                put_string(t, name, nlen);
                put(t, ":", 1);
            }
        }
        size_t elem = 0;
        pq_status st = walk_value(w, vals + off, vals + total, depth + 1, &elem);
        if (st != PQ_OK) return st;
    }
    if (t) put(t, object ? "}" : "]", 1);
    *used = (size_t)(vals - p) + total;
    return PQ_OK;
}

static pq_status walk_value(const vwalk *w, const uint8_t *p, const uint8_t *end, int depth, size_t *used)
{
    if (depth > PQ_VARIANT_MAX_DEPTH) return bad(w, p, "nested deeper than " "128");
    NEED(p, 1, end, "a value with no bytes");
    unsigned basic = p[0] & 3, h = p[0] >> 2;
    switch (basic) {
    case 0: return walk_primitive(w, p, end, h, used);
    case 1:
        NEED(p + 1, h, end, "a short string past the end of the value");
        if (pq_utf8_invalid_at(p + 1, h) != h) return bad(w, p, "a short string that is not UTF-8");
        if (w->t) put_string(w->t, p + 1, h);
        *used = 1 + (size_t)h;
        return PQ_OK;
    case 2: return walk_container(w, p, end, true, depth, used);
    default: return walk_container(w, p, end, false, depth, used);
    }
}

static pq_status parse_meta(const uint8_t *m, size_t len, vmeta *out, pq_error *err)
{
    if (!m || len < 1) return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "variant metadata: empty");
    if ((m[0] & 15) != 1)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "variant metadata: version %u (only 1 is known)", m[0] & 15);
    size_t osize = (size_t)(m[0] >> 6) + 1;
    if (len < 1 + osize) return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "variant metadata: no dictionary size");
    uint32_t n = le_n(m + 1, osize);
    if (((uint64_t)n + 1) * osize > len - 1 - osize)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "variant metadata: %u offsets past its %zu bytes", n + 1, len);
    const uint8_t *offs = m + 1 + osize;
    const uint8_t *bytes = offs + ((size_t)n + 1) * osize;
    size_t avail = len - (size_t)(bytes - m);
    uint32_t prev = 0;
    for (uint32_t i = 0; i <= n; i++) {
        uint32_t o = le_n(offs + (size_t)i * osize, osize);
        if ((i == 0 && o != 0) || o < prev || o > avail)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "variant metadata: string offset %u is %u (of %zu bytes)", i, o,
                                avail);
        if (i > 0 && pq_utf8_invalid_at(bytes + prev, o - prev) != o - prev)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "variant metadata: string %u is not UTF-8", i - 1);
        prev = o;
    }
    *out = (vmeta){offs, bytes, osize, n, prev, (size_t)(bytes - m) + prev};
    return PQ_OK;
}

size_t pq_variant_metadata_size(const uint8_t *m, size_t len, pq_error *err)
{
    vmeta meta;
    return parse_meta(m, len, &meta, err) == PQ_OK ? meta.total : 0;
}

static pq_status walk_all(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen, vtext *t, pq_error *err)
{
    vmeta meta;
    pq_status st = parse_meta(m, mlen, &meta, err);
    if (st != PQ_OK) return st;
    if (!v || vlen == 0) return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "variant value: empty");
    vwalk w = {&meta, v, t, err};
    size_t used = 0;
    st = walk_value(&w, v, v + vlen, 0, &used);
    if (st == PQ_OK && used != vlen)
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "variant value: %zu bytes after the value's %zu", vlen - used, used);
    return st;
}

pq_status pq_variant_validate(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen, pq_error *err)
{
    return walk_all(m, mlen, v, vlen, NULL, err);
}

pq_status pq_variant_to_json(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen, char *out, size_t cap,
                             size_t *len, pq_error *err)
{
    vtext t = {out, cap ? cap - 1 : 0, 0};
    pq_status st = walk_all(m, mlen, v, vlen, &t, err);
    if (cap) out[t.len < t.cap ? t.len : t.cap] = '\0';
    if (len) *len = st == PQ_OK ? t.len : 0;
    return st;
}

/* ---- access (variant_access.h) ---- */

/* The variant (m, v) checked whole; *is_basic when its basic type is
 * `basic` (2: an object, 3: an array), then its metadata opened. */
static pq_status open_container(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen, unsigned basic,
                                vmeta *meta, bool *is_basic, pq_error *err)
{
    pq_status st = walk_all(m, mlen, v, vlen, NULL, err);
    if (st != PQ_OK || (v[0] & 3) != basic) return st;
    if ((st = parse_meta(m, mlen, meta, err)) == PQ_OK) *is_basic = true;
    return st;
}

pq_status pq_variant_field(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen, const char *name, size_t nlen,
                           const uint8_t **field, size_t *flen, pq_error *err)
{
    *field = NULL;
    *flen = 0;
    vmeta meta;
    bool is_object = false;
    pq_status st = open_container(m, mlen, v, vlen, 2, &meta, &is_object, err);
    if (st != PQ_OK || !is_object) return st;
    vwalk w = {&meta, v, NULL, err};
    unsigned h = v[0] >> 2;
    size_t osize = (h & 3) + 1, idsize = ((h >> 2) & 3) + 1, nsize = (h >> 4) & 1 ? 4 : 1;
    uint32_t n = le_n(v + 1, nsize);
    const uint8_t *ids = v + 1 + nsize, *offs = ids + (size_t)n * idsize;
    const uint8_t *vals = offs + ((size_t)n + 1) * osize;
    uint32_t total = le_n(offs + (size_t)n * osize, osize);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *s;
        size_t sl;
        if ((st = field_name(&w, ids, le_n(ids + (size_t)i * idsize, idsize), &s, &sl)) != PQ_OK) return st;
        if (sl != nlen || memcmp(s, name, nlen) != 0) continue;
        uint32_t off = le_n(offs + (size_t)i * osize, osize);
        size_t used = 0;
        if ((st = walk_value(&w, vals + off, vals + total, 1, &used)) != PQ_OK) return st;
        *field = vals + off;
        *flen = used;
        return PQ_OK;
    }
    return PQ_OK;
}

pq_status pq_variant_element(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen, uint64_t index,
                             const uint8_t **elem, size_t *elen, pq_error *err)
{
    *elem = NULL;
    *elen = 0;
    vmeta meta;
    bool is_array = false;
    pq_status st = open_container(m, mlen, v, vlen, 3, &meta, &is_array, err);
    if (st != PQ_OK || !is_array) return st;
    vwalk w = {&meta, v, NULL, err};
    unsigned h = v[0] >> 2;
    size_t osize = (h & 3) + 1, nsize = (h >> 2) & 1 ? 4 : 1;
    uint32_t n = le_n(v + 1, nsize);
    if (index >= n) return PQ_OK;
    const uint8_t *offs = v + 1 + nsize, *vals = offs + ((size_t)n + 1) * osize;
    uint32_t total = le_n(offs + (size_t)n * osize, osize), off = le_n(offs + (size_t)index * osize, osize);
    size_t used = 0;
    if ((st = walk_value(&w, vals + off, vals + total, 1, &used)) != PQ_OK) return st;
    *elem = vals + off;
    *elen = used;
    return PQ_OK;
}

void pq_variant_scalar_of(const uint8_t *v, size_t vlen, pq_variant_scalar *out)
{
    memset(out, 0, sizeof *out);
    out->kind = PQ_VK_OTHER;
    if (vlen < 1) return;
    unsigned basic = v[0] & 3, t = v[0] >> 2;
    const uint8_t *d = v + 1;
    if (basic == 1) {
        out->kind = PQ_VK_STRING;
        out->bytes = d;
        out->len = t;
        return;
    }
    if (basic != 0) return;
    switch (t) {
    case 0: out->kind = PQ_VK_NULL; break;
    case 1: case 2: out->kind = PQ_VK_BOOL; out->i = t == 1; break;
    case 3: out->kind = PQ_VK_INT; out->i = (int8_t)d[0]; break;
    case 4: out->kind = PQ_VK_INT; out->i = (int16_t)(uint16_t)le_n(d, 2); break;
    case 5: out->kind = PQ_VK_INT; out->i = (int32_t)le_n(d, 4); break;
    case 6: out->kind = PQ_VK_INT; out->i = le64s(d); break;
    case 7: out->kind = PQ_VK_DOUBLE; memcpy(&out->d, d, 8); break;
    case 14: {
        float f;
        memcpy(&f, d, 4);
        out->kind = PQ_VK_DOUBLE;
        out->d = f;
        break;
    }
    case 8: case 9: case 10: {
        size_t w = t == 8 ? 4 : t == 9 ? 8 : 16;
        out->kind = PQ_VK_DECIMAL;
        out->scale = d[0];
        memcpy(out->unscaled, d + 1, w);
        memset(out->unscaled + w, (d[w] & 0x80) ? 0xff : 0, 16 - w); /* sign-extended */
        break;
    }
    case 11: out->kind = PQ_VK_DATE; out->i = (int32_t)le_n(d, 4); break;
    case 12: case 13: case 18: case 19:
        out->kind = PQ_VK_TIMESTAMP;
        out->i = le64s(d);
        out->utc = t == 12 || t == 18;
        out->unit_nanos = t >= 18;
        break;
    case 15: case 16:
        out->kind = t == 15 ? PQ_VK_BINARY : PQ_VK_STRING;
        out->len = le_n(d, 4);
        out->bytes = d + 4;
        break;
    case 17: out->kind = PQ_VK_TIME; out->i = le64s(d); break;
    case 20: out->kind = PQ_VK_UUID; out->bytes = d; out->len = 16; break;
    default: break;
    }
}
