/*
 * arrow_text.c — values of exported Arrow arrays as text (see arrow_text.h;
 * the rules are in docs/cli.md, section `cat`).
 */
#include "arrow_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_writer.h"

/* Deeper nesting than any real schema; keeps the recursion bounded. */
#define MAX_DEPTH 256

/* Decimal widths up to 256 bits; scales beyond this are refused. */
#define MAX_SCALE 4096

/* ---------------------------------------------------------------------------
 * Buffer
 * ------------------------------------------------------------------------- */

void at_buf_put(at_buf *b, const void *s, size_t n)
{
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->len < n) cap *= 2;
        b->p = cli_xrealloc(b->p, cap);
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, s, n);
    b->len += n;
}

void at_buf_free(at_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static inline void put_str(at_buf *b, const char *s)
{
    at_buf_put(b, s, strlen(s));
}

static inline void put_ch(at_buf *b, char c)
{
    at_buf_put(b, &c, 1);
}

/* `v` in decimal, zero-padded to at least `width` digits. */
static void put_u64(at_buf *b, uint64_t v, int width)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%0*" PRIu64, width, v);
    at_buf_put(b, tmp, (size_t)n);
}

static void put_i64(at_buf *b, int64_t v)
{
    if (v < 0) put_ch(b, '-');
    put_u64(b, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 1);
}

/* ---------------------------------------------------------------------------
 * Parsing schemas
 * ------------------------------------------------------------------------- */

static void set_err(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || !cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

/* A decimal number at *s, advancing it; -1 when there is none or it is
 * out of [0, INT32_MAX]. Allows a leading '-' when `neg_ok`. */
static int64_t parse_int(const char **s, bool neg_ok)
{
    const char *p = *s;
    bool neg = false;
    if (neg_ok && *p == '-') {
        neg = true;
        p++;
    }
    if (*p < '0' || *p > '9') return neg_ok ? INT64_MIN : -1;
    int64_t v = 0;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p++ - '0');
        if (v > INT32_MAX) return neg_ok ? INT64_MIN : -1;
    }
    *s = p;
    return neg ? -v : v;
}

/* Time units: fraction digits and ticks per second. */
static bool time_unit(char u, int *digits, int64_t *per_second)
{
    switch (u) {
    case 's': *digits = 0; *per_second = 1; return true;
    case 'm': *digits = 3; *per_second = 1000; return true;
    case 'u': *digits = 6; *per_second = 1000000; return true;
    case 'n': *digits = 9; *per_second = 1000000000; return true;
    default: return false;
    }
}

/* Fill the scalar or nested kind of `t` from format `f`; false if unknown. */
static bool parse_format(arrow_text_type *t, const char *f)
{
    static const struct {
        char c;
        at_kind kind;
        int width;
    } simple[] = {
        {'n', AT_NA, 0},    {'b', AT_BOOL, 0},   {'c', AT_INT, 1},    {'C', AT_UINT, 1},
        {'s', AT_INT, 2},   {'S', AT_UINT, 2},   {'i', AT_INT, 4},    {'I', AT_UINT, 4},
        {'l', AT_INT, 8},   {'L', AT_UINT, 8},   {'e', AT_HALF, 2},   {'f', AT_FLOAT, 4},
        {'g', AT_DOUBLE, 8},{'u', AT_STRING, 4}, {'U', AT_STRING, 8}, {'z', AT_BINARY, 4},
        {'Z', AT_BINARY, 8},
    };
    if (f[0] && !f[1]) {
        for (size_t k = 0; k < sizeof simple / sizeof simple[0]; k++) {
            if (simple[k].c == f[0]) {
                t->kind = simple[k].kind;
                t->width = simple[k].width;
                return true;
            }
        }
        return false;
    }
    const char *p;
    int64_t v;
    if (strncmp(f, "w:", 2) == 0 || strncmp(f, "+w:", 3) == 0) {
        p = f + (f[0] == '+' ? 3 : 2);
        v = parse_int(&p, false);
        if (v <= 0 || *p) return false;
        t->kind = f[0] == '+' ? AT_FIXED_LIST : AT_FIXED_BINARY;
        t->width = (int)v;
        return true;
    }
    if (strncmp(f, "d:", 2) == 0) {
        p = f + 2;
        if (parse_int(&p, false) < 0 || *p++ != ',') return false;
        int64_t scale = parse_int(&p, true);
        if (scale == INT64_MIN || scale < -MAX_SCALE || scale > MAX_SCALE) return false;
        int64_t bits = 128;
        if (*p == ',') {
            p++;
            bits = parse_int(&p, false);
        }
        if (*p || (bits != 32 && bits != 64 && bits != 128 && bits != 256)) return false;
        t->kind = AT_DECIMAL;
        t->width = (int)(bits / 8);
        t->scale = (int32_t)scale;
        return true;
    }
    if (strcmp(f, "tdD") == 0) {
        t->kind = AT_DATE32;
        t->width = 4;
        return true;
    }
    if (strcmp(f, "tdm") == 0) {
        t->kind = AT_DATE64;
        t->width = 8;
        return true;
    }
    if (f[0] == 't' && f[1] == 't' && f[2] && !f[3]) {
        if (!time_unit(f[2], &t->digits, &t->per_second)) return false;
        t->kind = AT_TIME;
        t->width = (f[2] == 's' || f[2] == 'm') ? 4 : 8;
        return true;
    }
    if (f[0] == 't' && f[1] == 's' && f[2] && f[3] == ':') {
        if (!time_unit(f[2], &t->digits, &t->per_second)) return false;
        t->kind = AT_TIMESTAMP;
        t->width = 8;
        t->tz = f[4] != '\0';
        return true;
    }
    if (strcmp(f, "+s") == 0) t->kind = AT_STRUCT;
    else if (strcmp(f, "+l") == 0) t->kind = AT_LIST, t->width = 4;
    else if (strcmp(f, "+L") == 0) t->kind = AT_LIST, t->width = 8;
    else if (strcmp(f, "+m") == 0) t->kind = AT_MAP, t->width = 4;
    else return false;
    return true;
}

/* The value of metadata key `key` of schema `s` (C Data Interface
 * encoding), or NULL. */
static const char *meta_value(const struct ArrowSchema *s, const char *key, int32_t *len)
{
    const char *m = s->metadata;
    if (!m) return NULL;
    int32_t n;
    memcpy(&n, m, 4);
    m += 4;
    for (int32_t k = 0; k < n && k < 64; k++) {
        int32_t kl, vl;
        memcpy(&kl, m, 4);
        m += 4;
        const char *kp = m;
        m += kl;
        memcpy(&vl, m, 4);
        m += 4;
        if (kl == (int32_t)strlen(key) && memcmp(kp, key, (size_t)kl) == 0) {
            *len = vl;
            return m;
        }
        m += vl;
    }
    return NULL;
}

/* A struct with the extension arrow.parquet.variant and binary children
 * metadata and value: t->metadata_child and t->value_child set. */
static bool is_variant(const struct ArrowSchema *s, arrow_text_type *t)
{
    int32_t len = 0;
    const char *name = meta_value(s, "ARROW:extension:name", &len);
    static const char want[] = "arrow.parquet.variant";
    if (!name || len != (int32_t)sizeof want - 1 || memcmp(name, want, sizeof want - 1) != 0) return false;
    t->metadata_child = t->value_child = -1;
    for (size_t k = 0; k < t->nchildren; k++) {
        if (t->children[k]->kind != AT_BINARY || t->children[k]->dict) continue;
        if (strcmp(t->children[k]->name, "metadata") == 0) t->metadata_child = (int)k;
        if (strcmp(t->children[k]->name, "value") == 0) t->value_child = (int)k;
    }
    return t->metadata_child >= 0 && t->value_child >= 0;
}

static arrow_text_type *parse(const struct ArrowSchema *s, int depth, char *err, size_t cap)
{
    if (!s || !s->format) {
        set_err(err, cap, "schema without a format");
        return NULL;
    }
    if (depth > MAX_DEPTH) {
        set_err(err, cap, "schema nested more than %d levels deep", MAX_DEPTH);
        return NULL;
    }
    arrow_text_type *t = cli_xrealloc(NULL, sizeof *t);
    memset(t, 0, sizeof *t);
    const char *name = s->name ? s->name : "";
    t->name = cli_xrealloc(NULL, strlen(name) + 1);
    strcpy(t->name, name);
    if (!parse_format(t, s->format)) {
        char *shown = cli_text_dup(s->format, strnlen(s->format, 64));
        set_err(err, cap, "field '%s': Arrow format '%s' is not supported", name, shown);
        free(shown);
        goto fail;
    }
    if (s->dictionary) {
        if (t->kind != AT_INT && t->kind != AT_UINT) {
            set_err(err, cap, "field '%s': dictionary index is not an integer", name);
            goto fail;
        }
        t->dict = parse(s->dictionary, depth + 1, err, cap);
        if (!t->dict) goto fail;
    }
    size_t want;
    switch (t->kind) {
    case AT_STRUCT: want = s->n_children >= 0 ? (size_t)s->n_children : 0; break;
    case AT_LIST: case AT_FIXED_LIST: case AT_MAP: want = 1; break;
    default: want = 0; break;
    }
    if (s->n_children != (int64_t)want || (want && !s->children)) {
        set_err(err, cap, "field '%s': %" PRId64 " children for format '%s'", name, s->n_children,
                s->format);
        goto fail;
    }
    t->children = cli_xrealloc(NULL, (want ? want : 1) * sizeof *t->children);
    for (size_t k = 0; k < want; k++) {
        t->children[k] = parse(s->children[k], depth + 1, err, cap);
        if (!t->children[k]) goto fail;
        t->nchildren++;
    }
    if (t->kind == AT_STRUCT && is_variant(s, t)) t->variant = true;
    if (t->kind == AT_MAP && (t->children[0]->kind != AT_STRUCT || t->children[0]->nchildren != 2 ||
                              t->children[0]->dict)) {
        set_err(err, cap, "field '%s': map entries are not a struct of key and value", name);
        goto fail;
    }
    return t;
fail:
    arrow_text_type_free(t);
    return NULL;
}

arrow_text_type *arrow_text_type_new(const struct ArrowSchema *s, char *err, size_t cap)
{
    return parse(s, 0, err, cap);
}

void arrow_text_type_free(arrow_text_type *t)
{
    if (!t) return;
    for (size_t k = 0; k < t->nchildren; k++) arrow_text_type_free(t->children[k]);
    free(t->children);
    arrow_text_type_free(t->dict);
    free(t->name);
    free(t);
}

bool arrow_text_is_numeric(const arrow_text_type *t)
{
    if (t->dict) return arrow_text_is_numeric(t->dict);
    switch (t->kind) {
    case AT_INT: case AT_UINT: case AT_HALF: case AT_FLOAT: case AT_DOUBLE: case AT_DECIMAL:
        return true;
    default:
        return false;
    }
}

/* ---------------------------------------------------------------------------
 * Checking arrays
 * ------------------------------------------------------------------------- */

/* Buffers the layout has (validity first) per the C Data Interface. */
static int64_t buffer_count(const arrow_text_type *t)
{
    switch (t->kind) {
    case AT_NA: return 0;
    case AT_STRING: case AT_BINARY: return 3;
    case AT_STRUCT: case AT_FIXED_LIST: return 1;
    default: return 2;
    }
}

static bool check(const arrow_text_type *t, const struct ArrowArray *a, int depth, char *err,
                  size_t cap)
{
    const char *name = t->name;
    if (!a || !a->release) {
        set_err(err, cap, "field '%s': missing or released array", name);
        return false;
    }
    if (depth > MAX_DEPTH) {
        set_err(err, cap, "array nested more than %d levels deep", MAX_DEPTH);
        return false;
    }
    if (a->length < 0 || a->offset < 0 || a->length > INT64_MAX - a->offset) {
        set_err(err, cap, "field '%s': bad length %" PRId64 " or offset %" PRId64, name,
                a->length, a->offset);
        return false;
    }
    int64_t nb = buffer_count(t);
    if (a->n_buffers != nb || (nb && !a->buffers)) {
        set_err(err, cap, "field '%s': %" PRId64 " buffers, expected %" PRId64, name, a->n_buffers,
                nb);
        return false;
    }
    /* Value buffers must be there when there are values to read (the
     * character data of strings may be absent when all are empty). */
    int64_t need = t->kind == AT_STRING || t->kind == AT_BINARY ? 2 : nb;
    for (int64_t k = 1; a->length > 0 && k < need; k++) {
        if (!a->buffers[k]) {
            set_err(err, cap, "field '%s': buffer %" PRId64 " is missing", name, k);
            return false;
        }
    }
    if (t->dict) {
        if (!check(t->dict, a->dictionary, depth + 1, err, cap)) return false;
    } else if (a->dictionary) {
        set_err(err, cap, "field '%s': unexpected dictionary", name);
        return false;
    }
    if (a->n_children != (int64_t)t->nchildren || (t->nchildren && !a->children)) {
        set_err(err, cap, "field '%s': %" PRId64 " children, expected %zu", name, a->n_children,
                t->nchildren);
        return false;
    }
    int64_t end = a->offset + a->length;
    for (size_t k = 0; k < t->nchildren; k++) {
        const struct ArrowArray *c = a->children[k];
        if (!check(t->children[k], c, depth + 1, err, cap)) return false;
        if (t->kind == AT_STRUCT && c->length < end) {
            set_err(err, cap, "field '%s': child '%s' has %" PRId64 " values, need %" PRId64, name,
                    t->children[k]->name, c->length, end);
            return false;
        }
        if (t->kind == AT_FIXED_LIST && (end > INT64_MAX / t->width || c->length < end * t->width)) {
            set_err(err, cap, "field '%s': fixed-size list child too short", name);
            return false;
        }
    }
    return true;
}

bool arrow_text_check(const arrow_text_type *t, const struct ArrowArray *a, char *err, size_t cap)
{
    return check(t, a, 0, err, cap);
}

/* ---------------------------------------------------------------------------
 * Reading values
 * ------------------------------------------------------------------------- */

static inline bool bit(const void *buf, int64_t p)
{
    return (((const uint8_t *)buf)[p >> 3] >> (p & 7)) & 1;
}

/* Element at physical position `p` (offset applied). */
static bool valid_at(const arrow_text_type *t, const struct ArrowArray *a, int64_t p)
{
    if (t->kind == AT_NA) return false;
    if (!a->buffers[0]) return true;
    return bit(a->buffers[0], p);
}

bool arrow_text_is_null(const arrow_text_type *t, const struct ArrowArray *a, int64_t i)
{
    return !valid_at(t, a, a->offset + i);
}

static int64_t load_int(const void *buf, int64_t p, int width, bool is_signed)
{
    const uint8_t *b = (const uint8_t *)buf + p * width;
    switch (width) {
    case 1: return is_signed ? (int64_t)(int8_t)b[0] : (int64_t)b[0];
    case 2: {
        uint16_t v;
        memcpy(&v, b, 2);
        return is_signed ? (int64_t)(int16_t)v : (int64_t)v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, b, 4);
        return is_signed ? (int64_t)(int32_t)v : (int64_t)v;
    }
    default: {
        int64_t v;
        memcpy(&v, b, 8);
        return v;
    }
    }
}

static uint64_t load_u64(const void *buf, int64_t p)
{
    uint64_t v;
    memcpy(&v, (const uint8_t *)buf + p * 8, 8);
    return v;
}

/* Offsets [start, end) of element p of a string, binary or list array. */
static bool load_span(const void *buf, int64_t p, int width, int64_t *start, int64_t *end)
{
    *start = load_int(buf, p, width, true);
    *end = load_int(buf, p + 1, width, true);
    return *start >= 0 && *start <= *end;
}

/* ---------------------------------------------------------------------------
 * Numbers
 * ------------------------------------------------------------------------- */

/* Floats by pq_text.h; nan / inf / -inf are quoted in JSON, which has no
 * such numbers. */
static void put_number_text(at_buf *b, const char *t, bool json)
{
    bool quote = json && (t[0] == 'n' || t[0] == 'i' || (t[0] == '-' && t[1] == 'i'));
    if (quote) put_ch(b, '"');
    put_str(b, t);
    if (quote) put_ch(b, '"');
}

static void put_double(at_buf *b, double v, bool json)
{
    char t[40];
    pq_format_double(v, t, sizeof t);
    put_number_text(b, t, json);
}

static void put_float(at_buf *b, float v, bool json)
{
    char t[40];
    pq_format_float(v, t, sizeof t);
    put_number_text(b, t, json);
}

static void put_half(at_buf *b, uint16_t h, bool json)
{
    char t[40];
    pq_format_float16(h, t, sizeof t);
    put_number_text(b, t, json);
}

/* Little-endian two's complement of `n` bytes (n <= 32), exactly, with the
 * decimal point `scale` digits from the right (negative: append zeros). */
static void put_decimal(at_buf *b, const uint8_t *le, int n, int32_t scale)
{
    uint8_t be[32];
    for (int i = 0; i < n; i++) be[i] = le[n - 1 - i];
    char t[PQ_FORMAT_DECIMAL_MAX];
    put_str(b, pq_format_decimal(be, (size_t)n, scale, t, sizeof t) ? t : "?");
}

/* ---------------------------------------------------------------------------
 * Dates and times (pq_text.h)
 * ------------------------------------------------------------------------- */

static void put_date(at_buf *b, int64_t days)
{
    char t[32];
    pq_format_date(days, t, sizeof t);
    put_str(b, t);
}

static void put_time(at_buf *b, const arrow_text_type *t, int64_t v)
{
    char s[48];
    pq_format_time(v, t->digits, s, sizeof s);
    put_str(b, s);
}

static void put_timestamp(at_buf *b, const arrow_text_type *t, int64_t v)
{
    char s[64];
    pq_format_timestamp(v, t->digits, t->tz, s, sizeof s);
    put_str(b, s);
}

/* ---------------------------------------------------------------------------
 * Strings
 * ------------------------------------------------------------------------- */

void arrow_text_json_string(at_buf *out, const void *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *p = s;
    put_ch(out, '"');
    size_t i = 0;
    while (i < len) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            at_buf_put(out, e, 2);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            const char *e = NULL;
            switch (c) {
            case '\b': e = "\\b"; break;
            case '\f': e = "\\f"; break;
            case '\n': e = "\\n"; break;
            case '\r': e = "\\r"; break;
            case '\t': e = "\\t"; break;
            }
            if (e) {
                put_str(out, e);
            } else {
                char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                at_buf_put(out, u, 6);
            }
            i++;
        } else {
            size_t n = cli_utf8_seq_len(p + i, len - i);
            if (n == 0) {
                put_str(out, "\\ufffd"); /* one per stray byte */
                i++;
            } else {
                at_buf_put(out, p + i, n);
                i += n;
            }
        }
    }
    put_ch(out, '"');
}

static void put_hex(at_buf *b, const uint8_t *p, size_t n, bool json)
{
    static const char hex[] = "0123456789abcdef";
    if (json) put_ch(b, '"');
    for (size_t i = 0; i < n; i++) {
        char two[2] = {hex[p[i] >> 4], hex[p[i] & 15]};
        at_buf_put(b, two, 2);
    }
    if (json) put_ch(b, '"');
}

/* ---------------------------------------------------------------------------
 * Formatting
 * ------------------------------------------------------------------------- */

static bool format(const arrow_text_type *t, const struct ArrowArray *a, int64_t i, bool json,
                   at_buf *b);

/* Scalars that JSON shows as strings are quoted around their plain text. */
static inline void open_quote(at_buf *b, bool json)
{
    if (json) put_ch(b, '"');
}

static bool format_list(const arrow_text_type *t, const struct ArrowArray *a, int64_t p, at_buf *b)
{
    const struct ArrowArray *c = a->children[0];
    int64_t start, end;
    if (t->kind == AT_FIXED_LIST) {
        start = p * t->width;
        end = start + t->width;
    } else if (!load_span(a->buffers[1], p, t->width, &start, &end) || end > c->length) {
        return false;
    }
    const arrow_text_type *ct = t->children[0];
    put_ch(b, '[');
    for (int64_t j = start; j < end; j++) {
        if (j > start) put_ch(b, ',');
        if (t->kind == AT_MAP) {
            /* Entries as {"key": k, "value": v}: keys of any type, kept in order. */
            if (arrow_text_is_null(ct, c, j)) {
                put_str(b, "null");
                continue;
            }
            int64_t q = c->offset + j;
            put_str(b, "{\"key\":");
            if (!format(ct->children[0], c->children[0], q, true, b)) return false;
            put_str(b, ",\"value\":");
            if (!format(ct->children[1], c->children[1], q, true, b)) return false;
            put_ch(b, '}');
        } else if (!format(ct, c, j, true, b)) {
            return false;
        }
    }
    put_ch(b, ']');
    return true;
}

/* Binary value p of array `a` (type t: binary, 32- or 64-bit offsets). */
static bool binary_at(const arrow_text_type *t, const struct ArrowArray *a, int64_t p, const uint8_t **s, size_t *n)
{
    int64_t start, end;
    if (t->kind != AT_BINARY || a->n_buffers < 3 || !load_span(a->buffers[1], a->offset + p, t->width, &start, &end))
        return false;
    const uint8_t *data = a->buffers[2];
    if (end > start && !data) return false;
    *s = data ? data + start : (const uint8_t *)"";
    *n = (size_t)(end - start);
    return true;
}

/* A variant row as JSON (pq_variant_to_json); one that does not decode is
 * shown as an error text (JSON: a string), never as bytes. */
static bool format_variant(const arrow_text_type *t, const struct ArrowArray *a, int64_t p, bool json, at_buf *b)
{
    const arrow_text_type *mt = t->children[t->metadata_child], *vt = t->children[t->value_child];
    const struct ArrowArray *ma = a->children[t->metadata_child], *va = a->children[t->value_child];
    const uint8_t *m, *v;
    size_t mn, vn, len = 0;
    if (!valid_at(vt, va, va->offset + p)) { /* a value missing: the variant null */
        put_str(b, "null");
        return true;
    }
    if (!binary_at(mt, ma, p, &m, &mn) || !binary_at(vt, va, p, &v, &vn)) return false;
    pq_error err;
    char small[256];
    if (pq_variant_to_json(m, mn, v, vn, small, sizeof small, &len, &err) != PQ_OK) {
        char msg[PQ_ERROR_MESSAGE_SIZE + 16];
        snprintf(msg, sizeof msg, "<%s>", err.message);
        if (json) arrow_text_json_string(b, (const uint8_t *)msg, strlen(msg));
        else put_str(b, msg);
        return true;
    }
    if (len < sizeof small) {
        at_buf_put(b, (const uint8_t *)small, len);
        return true;
    }
    char *big = cli_xrealloc(NULL, len + 1);
    pq_variant_to_json(m, mn, v, vn, big, len + 1, &len, &err);
    at_buf_put(b, (const uint8_t *)big, len);
    free(big);
    return true;
}

static bool format(const arrow_text_type *t, const struct ArrowArray *a, int64_t i, bool json,
                   at_buf *b)
{
    int64_t p = a->offset + i;
    if (!valid_at(t, a, p)) {
        put_str(b, "null");
        return true;
    }
    if (t->variant) return format_variant(t, a, p, json, b);
    if (t->dict) {
        int64_t k = load_int(a->buffers[1], p, t->width, t->kind == AT_INT);
        if (k < 0 || k >= a->dictionary->length) return false;
        return format(t->dict, a->dictionary, k, json, b);
    }
    const void *data = a->n_buffers > 1 ? a->buffers[1] : NULL;
    switch (t->kind) {
    case AT_NA:
        put_str(b, "null");
        return true;
    case AT_BOOL:
        put_str(b, bit(data, p) ? "true" : "false");
        return true;
    case AT_INT:
        put_i64(b, load_int(data, p, t->width, true));
        return true;
    case AT_UINT:
        put_u64(b, t->width == 8 ? load_u64(data, p) : (uint64_t)load_int(data, p, t->width, false), 1);
        return true;
    case AT_HALF:
        put_half(b, (uint16_t)load_int(data, p, 2, false), json);
        return true;
    case AT_FLOAT: {
        float v;
        memcpy(&v, (const uint8_t *)data + p * 4, 4);
        put_float(b, v, json);
        return true;
    }
    case AT_DOUBLE: {
        double v;
        memcpy(&v, (const uint8_t *)data + p * 8, 8);
        put_double(b, v, json);
        return true;
    }
    case AT_STRING:
    case AT_BINARY: {
        int64_t start, end;
        if (!load_span(data, p, t->width, &start, &end)) return false;
        const uint8_t *s = a->buffers[2];
        if (end > start && !s) return false;
        s = s ? s + start : (const uint8_t *)"";
        if (t->kind == AT_BINARY) put_hex(b, s, (size_t)(end - start), json);
        else if (json) arrow_text_json_string(b, s, (size_t)(end - start));
        else at_buf_put(b, s, (size_t)(end - start));
        return true;
    }
    case AT_FIXED_BINARY:
        put_hex(b, (const uint8_t *)data + p * t->width, (size_t)t->width, json);
        return true;
    case AT_DECIMAL:
        open_quote(b, json);
        put_decimal(b, (const uint8_t *)data + p * t->width, t->width, t->scale);
        open_quote(b, json);
        return true;
    case AT_DATE32:
    case AT_DATE64: {
        int64_t v = load_int(data, p, t->width, true);
        open_quote(b, json);
        /* date64 counts milliseconds; a remainder within the day is dropped */
        if (t->kind == AT_DATE64) v = v / 86400000 - (v % 86400000 < 0);
        put_date(b, v);
        open_quote(b, json);
        return true;
    }
    case AT_TIME:
        open_quote(b, json);
        put_time(b, t, load_int(data, p, t->width, true));
        open_quote(b, json);
        return true;
    case AT_TIMESTAMP:
        open_quote(b, json);
        put_timestamp(b, t, load_int(data, p, 8, true));
        open_quote(b, json);
        return true;
    case AT_STRUCT:
        put_ch(b, '{');
        for (size_t k = 0; k < t->nchildren; k++) {
            if (k) put_ch(b, ',');
            arrow_text_json_string(b, t->children[k]->name, strlen(t->children[k]->name));
            put_ch(b, ':');
            /* A struct's child is indexed by the parent's physical position. */
            if (!format(t->children[k], a->children[k], p, true, b)) return false;
        }
        put_ch(b, '}');
        return true;
    case AT_LIST:
    case AT_FIXED_LIST:
    case AT_MAP:
        return format_list(t, a, p, b);
    }
    return false;
}

bool arrow_text_format(const arrow_text_type *t, const struct ArrowArray *a, int64_t i,
                       arrow_text_mode mode, at_buf *out)
{
    return format(t, a, i, mode == ARROW_TEXT_JSON, out);
}
