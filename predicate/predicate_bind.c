/*
 * predicate_bind.c — pq_expr_bind: resolve each column to a flat leaf and
 * type each literal in the leaf's physical domain (metadata/predicate.h).
 *
 * Integer-like columns (integers, DATE, TIME, TIMESTAMP, DECIMAL) take the
 * literal exactly: it is read as a decimal number (or date/time text)
 * scaled to the column's unit, giving floor(value) plus a flag for a
 * dropped fraction, or "below/above the column's range". The comparison is
 * then rewritten so that it means the same on every value the column can
 * hold (see rewrite_cmp).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "metadata/error.h"
#include "metadata/variant_path.h"
#include "predicate/predicate.h"
#include "pq_text.h"

/* Magnitudes up to 18 * 32 = 576 bits: every 64-byte two's complement
 * value, with room to tell "too big" apart. */
#define LIMBS 18
#define MAX_DECIMAL_BYTES 64

/* A literal typed for its column. */
typedef struct typed {
    int out;       /* -1 below the column's range, +1 above, 0 inside */
    bool frac;     /* inside, but v is floor(literal): a fraction was dropped */
    pq_value v;
} typed;

/* An exact number: (neg ? -1 : 1) * mag, rounded toward -inf to an integer;
 * frac when it was not one. */
typedef struct exact {
    bool neg, frac, huge;
    uint32_t mag[LIMBS]; /* little-endian limbs */
} exact;

typedef struct bind_ctx {
    const pq_metadata *md;
    const pq_leaf *leaf;
    const pq_expr *node;
    pq_error *err;
} bind_ctx;

/* ---------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------- */

static pq_status bind_fail(pq_error *err, pq_status code, size_t pos, const char *fmt, const char *a,
                           const char *b)
{
    char msg[PQ_ERROR_MESSAGE_SIZE];
    snprintf(msg, sizeof msg, fmt, a, b);
    if (pos == SIZE_MAX) return pq_error_set(err, code, "%s", msg);
    return pq_error_set(err, code, "at %zu: %s", pos, msg);
}

/* A literal as short text for messages. */
static const char *lit_text(const pq_literal *l, char *buf, size_t cap)
{
    switch (l->kind) {
    case PQ_LIT_BOOL: snprintf(buf, cap, "%s", l->b ? "true" : "false"); break;
    case PQ_LIT_INT: snprintf(buf, cap, "%" PRId64, l->i); break;
    case PQ_LIT_DOUBLE:
        if (l->text) snprintf(buf, cap, "%.*s", (int)(l->text_len > 48 ? 48 : l->text_len), l->text);
        else snprintf(buf, cap, "%.17g", l->d);
        break;
    default:
        snprintf(buf, cap, "'%.*s%s'", (int)(l->text_len > 48 ? 48 : l->text_len), l->text,
                 l->text_len > 48 ? "..." : "");
        break;
    }
    return buf;
}

/* "at 18: '1995-13-01' is not a date (column l_shipdate)" */
static pq_status lit_fail(bind_ctx *c, size_t k, const char *what)
{
    char t[80], msg[PQ_ERROR_MESSAGE_SIZE];
    snprintf(msg, sizeof msg, "%s is not %s (column %.64s)", lit_text(&c->node->lits[k], t, sizeof t), what,
             c->leaf->path);
    return bind_fail(c->err, PQ_ERR_INVALID_ARGUMENT, c->node->lit_pos[k], "%s%s", msg, "");
}

/* ---------------------------------------------------------------------------
 * Exact numbers
 * ------------------------------------------------------------------------- */

static void mag_mul_add(exact *x, uint32_t m, uint32_t a)
{
    uint64_t carry = a;
    for (int k = 0; k < LIMBS; k++) {
        uint64_t t = (uint64_t)x->mag[k] * m + carry;
        x->mag[k] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry) x->huge = true;
}

static bool mag_zero(const exact *x)
{
    for (int k = 0; k < LIMBS; k++)
        if (x->mag[k]) return false;
    return true;
}

/* Read s[0..n) (all of it: [+-]digits[.digits][e[+-]digits]) times
 * 10^scale. False when it is not a number. */
static bool exact_parse(const char *s, size_t n, int32_t scale, exact *x)
{
    memset(x, 0, sizeof *x);
    if (!n || pq_scan_number(s, n, NULL) != n) return false;
    size_t i = 0, end = n;
    if (s[i] == '-' || s[i] == '+') x->neg = s[i++] == '-';
    long exp10 = scale;
    for (size_t k = i; k < n; k++) {
        if (s[k] != 'e' && s[k] != 'E') continue;
        long e = 0;
        size_t j = k + 1;
        bool eneg = j < n && s[j] == '-';
        if (j < n && (s[j] == '-' || s[j] == '+')) j++;
        for (; j < n; j++) e = e < 1000000 ? e * 10 + (s[j] - '0') : e;
        exp10 += eneg ? -e : e;
        end = k;
        break;
    }
    /* Digits: count those after the point. */
    size_t ndig = 0, nfrac = 0;
    bool after = false;
    for (size_t k = i; k < end; k++) {
        if (s[k] == '.') after = true;
        else ndig++, nfrac += after;
    }
    exp10 -= (long)nfrac;
    /* Digits [0, keep) form the integer; the rest is a fraction. */
    long keep = exp10 >= 0 ? (long)ndig : (long)ndig + exp10;
    long d = 0;
    for (size_t k = i; k < end; k++) {
        if (s[k] == '.') continue;
        uint32_t digit = (uint32_t)(s[k] - '0');
        if (d++ < keep) {
            if (!x->huge) mag_mul_add(x, 10, digit);
        } else if (digit) {
            x->frac = true;
        }
    }
    for (long e = 0; e < exp10 && !x->huge && !mag_zero(x); e++) mag_mul_add(x, 10, 0);
    /* Floor: a negative value with a fraction rounds away from zero. */
    if (x->neg && x->frac && !x->huge) mag_mul_add(x, 1, 1);
    if (mag_zero(x)) x->neg = false;
    return true;
}

/* The value as n bytes of big-endian two's complement: 0 when it fits,
 * -1 / +1 when it is below / above the range. */
static int exact_twos(const exact *x, size_t n, uint8_t *be)
{
    if (x->huge || n > LIMBS * 4) return x->neg ? -1 : 1;
    for (size_t k = n; k < LIMBS * 4; k++)
        if ((x->mag[k / 4] >> (8 * (k % 4))) & 0xff) return x->neg ? -1 : 1;
    for (size_t k = 0; k < n; k++) be[n - 1 - k] = (uint8_t)(x->mag[k / 4] >> (8 * (k % 4)));
    if (!x->neg) return (be[0] & 0x80) ? 1 : 0;
    unsigned carry = 1;
    for (size_t k = n; k-- > 0;) {
        unsigned t = (uint8_t)~be[k] + carry;
        be[k] = (uint8_t)t;
        carry = t >> 8;
    }
    /* -0 stays 0; any other negative must keep the sign bit. */
    return (be[0] & 0x80) || mag_zero(x) ? 0 : -1;
}

static int64_t load_be(const uint8_t *be, size_t n)
{
    uint64_t v = (be[0] & 0x80) ? ~0ull : 0;
    for (size_t k = 0; k < n; k++) v = (v << 8) | be[k];
    return (int64_t)v;
}

/* Into a signed range [lo, hi]. */
static void exact_to_int(const exact *x, int64_t lo, int64_t hi, typed *t)
{
    uint8_t be[8];
    t->frac = x->frac;
    t->out = exact_twos(x, 8, be);
    if (t->out) return;
    t->v.i = load_be(be, 8);
    if (t->v.i < lo) t->out = -1;
    else if (t->v.i > hi) t->out = 1;
    /* floor == hi with a fraction is above hi */
    else if (t->v.i == hi && x->frac) t->out = 1;
}

/* Into an unsigned range [0, max]. */
static void exact_to_uint(const exact *x, uint64_t max, typed *t)
{
    uint8_t be[9];
    t->frac = x->frac;
    if (x->neg) {
        t->out = -1;
        return;
    }
    t->out = exact_twos(x, 9, be);
    if (t->out) return;
    if (be[0]) {
        t->out = 1;
        return;
    }
    uint64_t v = 0;
    for (int k = 1; k < 9; k++) v = (v << 8) | be[k];
    if (v > max || (v == max && x->frac)) t->out = 1;
    t->v.i = (int64_t)v;
}

/* The shortest big-endian two's complement form (at least 1 byte). */
static size_t shortest_twos(const uint8_t *be, size_t n)
{
    size_t k = 0;
    while (k + 1 < n && ((be[k] == 0x00 && !(be[k + 1] & 0x80)) || (be[k] == 0xff && (be[k + 1] & 0x80))))
        k++;
    return k;
}

/* ---------------------------------------------------------------------------
 * Dates and times
 * ------------------------------------------------------------------------- */

/* Days since 1970-01-01 of a proleptic Gregorian date (month 1..12). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool digits_at(const char *s, size_t n, size_t at, int count, int *out)
{
    int v = 0;
    if (at + (size_t)count > n) return false;
    for (int k = 0; k < count; k++) {
        char c = s[at + (size_t)k];
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
}

bool pq_parse_date(const char *s, size_t n, int64_t *days)
{
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, m, d;
    if (!digits_at(s, n, 0, 4, &y) || n < 10 || s[4] != '-' || !digits_at(s, n, 5, 2, &m) ||
        s[7] != '-' || !digits_at(s, n, 8, 2, &d))
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] || (m == 2 && d == 29 && !leap)) return false;
    *days = days_from_civil(y, m, d);
    return true;
}

/* 'HH:MM:SS[.f{1,9}]' at s[0..n) up to *end; seconds of the day and nanos. */
static bool parse_clock(const char *s, size_t n, size_t *end, int64_t *secs, int64_t *nanos)
{
    int h, m, sec;
    if (!digits_at(s, n, 0, 2, &h) || n < 8 || s[2] != ':' || !digits_at(s, n, 3, 2, &m) ||
        s[5] != ':' || !digits_at(s, n, 6, 2, &sec) || h > 23 || m > 59 || sec > 59)
        return false;
    size_t i = 8;
    int64_t ns = 0;
    if (i < n && s[i] == '.') {
        int k = 0;
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, k++) {
            if (k >= 9) return false;
            ns = ns * 10 + (s[i] - '0');
        }
        if (k == 0) return false;
        for (; k < 9; k++) ns *= 10;
    }
    *end = i;
    *secs = h * 3600 + m * 60 + sec;
    *nanos = ns;
    return true;
}

/* An offset from UTC, all of s[0..n): '+HH:MM', '-HH:MM', '+HHMM' or '+HH'
 * (at most 18 hours, as ISO 8601 and Python allow), in seconds east. */
static bool parse_offset(const char *s, size_t n, int64_t *secs)
{
    int h, m = 0;
    if (n < 3 || (s[0] != '+' && s[0] != '-') || !digits_at(s, n, 1, 2, &h)) return false;
    if (n == 6 && s[3] == ':') {
        if (!digits_at(s, n, 4, 2, &m)) return false;
    } else if (n == 5) {
        if (!digits_at(s, n, 3, 2, &m)) return false;
    } else if (n != 3) {
        return false;
    }
    if (h > 18 || m > 59 || (h == 18 && m)) return false;
    *secs = (s[0] == '-' ? -1 : 1) * (int64_t)(h * 3600 + m * 60);
    return true;
}

static int unit_digits(int unit)
{
    return unit == PQ_UNIT_SECONDS ? 0 : unit == PQ_UNIT_MILLIS ? 3 : unit == PQ_UNIT_MICROS ? 6 : 9;
}

/* secs * 10^digits + floor(nanos / 10^(9-digits)) into t, with range and fraction. */
static void ticks_of(int64_t secs, int64_t nanos, int unit, int64_t lo, int64_t hi, typed *t)
{
    int digits = unit_digits(unit);
    int64_t per = 1, div = 1;
    for (int k = 0; k < digits; k++) per *= 10;
    for (int k = digits; k < 9; k++) div *= 10;
    int64_t ticks;
    t->frac = nanos % div != 0;
    if (__builtin_mul_overflow(secs, per, &ticks) || __builtin_add_overflow(ticks, nanos / div, &ticks)) {
        t->out = secs < 0 ? -1 : 1;
        return;
    }
    t->v.i = ticks;
    if (ticks > hi || (ticks == hi && t->frac)) t->out = 1;
    else if (ticks < lo) t->out = -1;
}

/* ---------------------------------------------------------------------------
 * Typing one literal
 * ------------------------------------------------------------------------- */

/* The literal as number text (TEXT only when it reads as a number). */
static bool lit_number_text(const pq_literal *l, char *tmp, size_t cap, const char **s, size_t *n)
{
    switch (l->kind) {
    case PQ_LIT_INT:
        *n = (size_t)snprintf(tmp, cap, "%" PRId64, l->i);
        *s = tmp;
        return true;
    case PQ_LIT_DOUBLE:
        if (l->text) {
            *s = l->text;
            *n = l->text_len;
        } else if (isinf(l->d)) {
            *n = (size_t)snprintf(tmp, cap, "%s", l->d < 0 ? "-1e999999" : "1e999999");
            *s = tmp;
        } else {
            *n = pq_format_double(l->d, tmp, cap);
            *s = tmp;
        }
        return true;
    case PQ_LIT_TEXT:
        *s = l->text;
        *n = l->text_len;
        return pq_scan_number(l->text, l->text_len, NULL) == l->text_len && l->text_len > 0;
    default: return false;
    }
}

static pq_status type_float(bind_ctx *c, size_t k, bool is_float, typed *t)
{
    char tmp[64], *buf;
    const char *s;
    size_t n;
    if (!lit_number_text(&c->node->lits[k], tmp, sizeof tmp, &s, &n)) return lit_fail(c, k, "a number");
    if (!(buf = malloc(n + 1))) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory binding a predicate");
    memcpy(buf, s, n);
    buf[n] = '\0';
    /* Correctly rounded from the decimal text, straight to the column's width. */
    t->v.d = is_float ? (double)strtof(buf, NULL) : strtod(buf, NULL);
    free(buf);
    return PQ_OK;
}

static pq_status type_exact(bind_ctx *c, size_t k, int32_t scale, exact *x)
{
    char tmp[64];
    const char *s;
    size_t n;
    if (!lit_number_text(&c->node->lits[k], tmp, sizeof tmp, &s, &n) || !exact_parse(s, n, scale, x))
        return lit_fail(c, k, "a number");
    return PQ_OK;
}

static pq_status type_time_text(bind_ctx *c, size_t k, typed *t, int64_t lo, int64_t hi)
{
    const pq_literal *l = &c->node->lits[k];
    const pq_logical_type *lt = &c->leaf->logical;
    const char *s = l->text;
    size_t n = l->text_len, end = 0;
    int64_t days = 0, secs = 0, nanos = 0;
    if (lt->kind == PQ_LOGICAL_DATE) {
        if (l->kind != PQ_LIT_TEXT || n != 10 || !pq_parse_date(s, n, &days))
            return lit_fail(c, k, "a date");
        t->v.i = days;
        return PQ_OK;
    }
    if (lt->kind == PQ_LOGICAL_TIME) {
        if (l->kind != PQ_LIT_TEXT || !parse_clock(s, n, &end, &secs, &nanos) || end != n)
            return lit_fail(c, k, "a time 'HH:MM:SS[.fraction]'");
        ticks_of(secs, nanos, lt->unit, lo, hi, t);
        return PQ_OK;
    }
    /* TIMESTAMP: a date, then optionally ' ' or 'T' and a clock, then 'Z'
     * or an offset from UTC (as ISO 8601 and Python's isoformat() write). */
    int64_t offset = 0;
    bool ok = l->kind == PQ_LIT_TEXT && n >= 10 && pq_parse_date(s, n, &days);
    if (ok && n > 10 && n != 11) {
        ok = (s[10] == ' ' || s[10] == 'T') && parse_clock(s + 11, n - 11, &end, &secs, &nanos);
        end += 11;
        if (ok && end < n && s[end] == 'Z') {
            end++;
        } else if (ok && end < n) { /* the rest is the offset, or the literal is no timestamp */
            ok = parse_offset(s + end, n - end, &offset);
            end = n;
        }
        ok = ok && end == n;
    } else if (ok && n == 11) {
        ok = s[10] == 'Z';
    }
    if (!ok) return lit_fail(c, k, "a timestamp 'YYYY-MM-DD[ HH:MM:SS[.fraction]][Z|+HH:MM|-HH:MM]'");
    if (offset && !lt->is_adjusted_to_utc) {
        char t[80];
        return bind_fail(c->err, PQ_ERR_INVALID_ARGUMENT, c->node->lit_pos[k],
                         "%s names an offset from UTC, but column '%.64s' holds timestamps of no time zone "
                         "(local times): give the time without one",
                         lit_text(l, t, sizeof t), c->leaf->path);
    }
    ticks_of(days * 86400 + secs - offset, nanos, lt->unit, lo, hi, t);
    return PQ_OK;
}

/* Bytes of a string, binary or FLBA column (not DECIMAL). */
static pq_status type_bytes(bind_ctx *c, size_t k, typed *t)
{
    const pq_literal *l = &c->node->lits[k];
    if (l->kind != PQ_LIT_TEXT) return lit_fail(c, k, "a string");
    if (c->leaf->physical_type == PQ_FIXED_LEN_BYTE_ARRAY && l->text_len != (size_t)c->leaf->type_length) {
        char what[64];
        snprintf(what, sizeof what, "%" PRId32 " bytes long", c->leaf->type_length);
        return lit_fail(c, k, what);
    }
    t->v.len = l->text_len;
    t->v.bytes = malloc(l->text_len ? l->text_len : 1);
    if (!t->v.bytes) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory binding a predicate");
    if (l->text_len) memcpy(t->v.bytes, l->text, l->text_len);
    return PQ_OK;
}

static pq_status type_decimal_bytes(bind_ctx *c, size_t k, typed *t)
{
    exact x;
    uint8_t be[MAX_DECIMAL_BYTES];
    pq_status st = type_exact(c, k, c->leaf->logical.scale, &x);
    if (st != PQ_OK) return st;
    size_t width = MAX_DECIMAL_BYTES, skip = 0;
    if (c->leaf->physical_type == PQ_FIXED_LEN_BYTE_ARRAY) width = (size_t)c->leaf->type_length;
    t->frac = x.frac;
    t->out = exact_twos(&x, width, be);
    if (t->out && c->leaf->physical_type == PQ_BYTE_ARRAY) return lit_fail(c, k, "a decimal of at most 64 bytes");
    if (t->out) return PQ_OK;
    if (c->leaf->physical_type == PQ_BYTE_ARRAY) skip = shortest_twos(be, width);
    t->v.len = width - skip;
    if (!(t->v.bytes = malloc(t->v.len))) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory binding a predicate");
    memcpy(t->v.bytes, be + skip, t->v.len);
    return PQ_OK;
}

/* Range of an INT32/INT64 column by its integer annotation. */
static void int_range(const pq_leaf *lf, bool *is_unsigned, int64_t *lo, int64_t *hi, uint64_t *umax)
{
    int w = lf->physical_type == PQ_INT32 ? 32 : 64;
    bool sgn = true;
    const pq_logical_type *lt = &lf->logical;
    if (lt->kind == PQ_LOGICAL_INTEGER) { /* widths checked by usable_logical */
        w = lt->bit_width;
        sgn = lt->is_signed;
    }
    *is_unsigned = !sgn;
    *umax = w == 64 ? UINT64_MAX : (1ull << w) - 1;
    *hi = w == 64 ? INT64_MAX : (int64_t)((1ull << (w - 1)) - 1);
    *lo = -*hi - 1;
}

static pq_status type_literal(bind_ctx *c, size_t k, typed *t)
{
    const pq_leaf *lf = c->leaf;
    const pq_literal *l = &c->node->lits[k];
    memset(t, 0, sizeof *t);
    switch (lf->physical_type) {
    case PQ_BOOLEAN:
        if (l->kind != PQ_LIT_BOOL) return lit_fail(c, k, "true or false");
        t->v.i = l->b;
        return PQ_OK;
    case PQ_FLOAT:
    case PQ_DOUBLE: return type_float(c, k, lf->physical_type == PQ_FLOAT, t);
    case PQ_INT32:
    case PQ_INT64: break;
    default:
        if (lf->logical.kind == PQ_LOGICAL_DECIMAL) return type_decimal_bytes(c, k, t);
        return type_bytes(c, k, t);
    }
    bool is_unsigned;
    int64_t lo, hi;
    uint64_t umax;
    int_range(lf, &is_unsigned, &lo, &hi, &umax);
    int kind = lf->logical.kind;
    if (kind == PQ_LOGICAL_DATE || kind == PQ_LOGICAL_TIME || kind == PQ_LOGICAL_TIMESTAMP)
        return type_time_text(c, k, t, lo, hi);
    exact x;
    pq_status st = type_exact(c, k, kind == PQ_LOGICAL_DECIMAL ? lf->logical.scale : 0, &x);
    if (st != PQ_OK) return st;
    if (is_unsigned) exact_to_uint(&x, umax, t);
    else exact_to_int(&x, lo, hi, t);
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Leaves
 * ------------------------------------------------------------------------- */

/* Whether the leaf's logical type applies to its physical type (else the
 * leaf is read as its plain physical type). */
static pq_logical_type usable_logical(const pq_leaf *lf)
{
    pq_logical_type lt = lf->logical, none;
    memset(&none, 0, sizeof none);
    int t = lf->physical_type;
    switch (lt.kind) {
    case PQ_LOGICAL_DATE: return t == PQ_INT32 ? lt : none;
    case PQ_LOGICAL_TIME:
        if (t == PQ_INT32 && lt.unit == PQ_UNIT_MILLIS) return lt;
        return t == PQ_INT64 && (lt.unit == PQ_UNIT_MICROS || lt.unit == PQ_UNIT_NANOS) ? lt : none;
    case PQ_LOGICAL_TIMESTAMP:
        return t == PQ_INT64 && lt.unit >= PQ_UNIT_MILLIS && lt.unit <= PQ_UNIT_NANOS ? lt : none;
    case PQ_LOGICAL_DECIMAL:
        if (lt.scale < -1000 || lt.scale > 1000) return none;
        if (t == PQ_FIXED_LEN_BYTE_ARRAY)
            return lf->type_length >= 1 && lf->type_length <= MAX_DECIMAL_BYTES ? lt : none;
        return t == PQ_INT32 || t == PQ_INT64 || t == PQ_BYTE_ARRAY ? lt : none;
    case PQ_LOGICAL_INTEGER:
        if (t == PQ_INT32) return lt.bit_width == 8 || lt.bit_width == 16 || lt.bit_width == 32 ? lt : none;
        return t == PQ_INT64 && lt.bit_width == 64 ? lt : none;
    default: return lt;
    }
}

static uint8_t value_order(const pq_leaf *lf, const pq_logical_type *lt)
{
    switch (lf->physical_type) {
    case PQ_FLOAT:
    case PQ_DOUBLE: return PQ_ORDER_FLOAT;
    case PQ_BYTE_ARRAY:
    case PQ_FIXED_LEN_BYTE_ARRAY: return lt->kind == PQ_LOGICAL_DECIMAL ? PQ_ORDER_DECIMAL_BYTES : PQ_ORDER_BYTES;
    default: break;
    }
    if (lt->kind == PQ_LOGICAL_INTEGER && !lt->is_signed) return PQ_ORDER_UNSIGNED;
    return PQ_ORDER_SIGNED;
}

static void become_const(pq_expr *e, bool truth)
{
    e->kind = PQ_NODE_CONST;
    e->truth = truth;
}

static void become_not_null(pq_expr *e)
{
    e->kind = PQ_NODE_IS_NULL;
    e->is_null = false;
}

/* `x op lit` where lit did not fit exactly (see the file comment). */
static void rewrite_cmp(pq_expr *e, const typed *t)
{
    bool lower = e->op == PQ_CMP_LT || e->op == PQ_CMP_LE; /* x below the literal */
    if (e->op == PQ_CMP_EQ) return become_const(e, false);
    if (e->op == PQ_CMP_NE) return become_not_null(e);
    if (t->out > 0) return lower ? become_not_null(e) : become_const(e, false);
    if (t->out < 0) return lower ? become_const(e, false) : become_not_null(e);
    /* floor k < literal < k + 1: x < lit and x <= lit are x <= k; x > lit and x >= lit are x > k */
    e->op = lower ? PQ_CMP_LE : PQ_CMP_GT;
}

/* Insertion sort: qsort has no context argument for the column's order,
 * and IN lists are short. */
static void sort_values(const pq_expr *e, pq_value *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        pq_value x = v[i];
        size_t j = i;
        while (j > 0 && pq_value_compare(e, &v[j - 1], &x) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* A comparison rewritten into a constant or IS NOT NULL keeps no value. */
static bool lits_equal(const pq_literal *a, const pq_literal *b)
{
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case PQ_LIT_BOOL: return a->b == b->b;
    case PQ_LIT_INT: return a->i == b->i;
    case PQ_LIT_DOUBLE: return a->d == b->d;
    case PQ_LIT_TEXT: return a->text_len == b->text_len && !memcmp(a->text, b->text, a->text_len);
    }
    return false;
}

static void drop_values(pq_expr *e)
{
    for (size_t k = 0; k < e->nvalues; k++) free(e->values[k].bytes);
    free(e->values);
    e->values = NULL;
    e->nvalues = 0;
}

static pq_status bind_values(bind_ctx *c, pq_expr *e)
{
    typed t;
    if (!e->nlits) return PQ_OK;
    e->values = calloc(e->nlits, sizeof *e->values);
    if (!e->values) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory binding a predicate");
    for (size_t k = 0; k < e->nlits; k++) {
        pq_status st = type_literal(c, k, &t);
        if (st != PQ_OK) return st;
        if (e->kind == PQ_NODE_CMP) {
            e->values[e->nvalues++] = t.v;
            if (t.out || t.frac) rewrite_cmp(e, &t);
            if (e->kind != PQ_NODE_CMP) drop_values(e);
            return PQ_OK;
        }
        if (t.out || t.frac) { /* IN: a value the column cannot hold matches nothing */
            free(t.v.bytes);
            continue;
        }
        e->values[e->nvalues++] = t.v;
    }
    sort_values(e, e->values, e->nvalues);
    size_t n = 0;
    for (size_t k = 0; k < e->nvalues; k++) {
        if (n && pq_value_compare(e, &e->values[n - 1], &e->values[k]) == 0) {
            free(e->values[k].bytes);
            continue;
        }
        e->values[n++] = e->values[k];
    }
    e->nvalues = n;
    if (!n) become_const(e, false);
    return PQ_OK;
}

/* Whether node `i`'s dotted path (the root's name left out) is `path`. */
static bool node_path_is(const pq_schema *sc, int32_t i, const char *path)
{
    size_t end = strlen(path);
    for (uint32_t hops = 0; i > 0 && hops < sc->nodes_len; hops++) {
        const pq_schema_node *n = &sc->nodes[i];
        size_t len = strlen(n->name);
        if (len > end || memcmp(path + end - len, n->name, len) != 0) return false;
        end -= len;
        i = n->parent;
        if (i <= 0) return end == 0; /* a top-level field: the whole path matched */
        if (end == 0 || path[end - 1] != '.') return false;
        end--;
    }
    return false;
}

/* The group node (struct, list, map) whose dotted path is `path`; -1 if none. */
static int32_t find_group(const pq_schema *sc, const char *path)
{
    for (uint32_t i = 1; i < sc->nodes_len; i++)
        if (sc->nodes[i].leaf_index < 0 && sc->nodes[i].parent >= 0 && node_path_is(sc, (int32_t)i, path))
            return (int32_t)i;
    return -1;
}

/* IS [NOT] NULL on group `g`: bound to its first leaf and its definition
 * level. Only a group with one value per row can be tested: not one inside
 * a list or map, nor a repeated group itself. A required group under
 * required ones is never null: the test becomes a constant. */
static pq_status bind_group_null(const pq_metadata *md, pq_expr *e, int32_t g, pq_error *err)
{
    const pq_schema *sc = pq_metadata_schema(md);
    const pq_schema_node *node = &sc->nodes[g];
    if (node->element->repetition == PQ_REPEATED)
        return bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos,
                         "'%.64s' is a repeated group: it has no single value per row to test for null%s",
                         e->column, "");
    if (node->max_rep > 0)
        return bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos,
                         "'%.64s' is inside a list or map: it has no single value per row to test for null%s",
                         e->column, "");
    int32_t i = g;
    for (int hops = 0; sc->nodes[i].leaf_index < 0 && hops < (int)sc->nodes_len; hops++) {
        if (sc->nodes[i].num_children <= 0) break;
        i = sc->nodes[i].children[0];
    }
    int32_t leaf = sc->nodes[i].leaf_index;
    if (leaf < 0 || (uint32_t)leaf >= sc->leaves_len)
        return bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos, "group '%.64s' has no leaf column%s", e->column, "");
    const pq_leaf *lf = &sc->leaves[leaf];
    e->leaf = leaf;
    e->physical_type = lf->physical_type;
    e->type_length = lf->type_length;
    e->logical = lf->logical;
    e->order = value_order(lf, &e->logical);
    e->node_def = node->max_def;
    if (node->max_def == 0) become_const(e, !e->is_null);
    e->bound = true;
    return PQ_OK;
}

static int32_t child_leaf(const pq_schema *sc, int32_t g, const char *name)
{
    int32_t c = pq_variant_schema_child(sc, g, name, strlen(name));
    return c >= 0 ? sc->nodes[c].leaf_index : -1;
}

/* `v.a.b`, `v.l[2].x`: a path into top-level VARIANT `v`. Followed down
 * the shredded groups while the writer shredded its steps; the typed_value
 * leaf where it ends is returned, or, when the path leaves the shredding
 * first (or `v` is not shredded), the metadata leaf with the node marked
 * variant_untyped (predicate.h). -1: the column is no such path, or an
 * error that says why (*st). */
static int32_t variant_path(const pq_schema *sc, pq_expr *e, pq_error *err, pq_status *st)
{
    *st = PQ_OK;
    const char *rest;
    int32_t v = pq_variant_path_column(sc, e->column, &rest);
    if (v < 0) return -1;
    pq_variant_step steps[PQ_VARIANT_PATH_MAX + 1];
    size_t ns = 0;
    if ((*st = pq_variant_path_steps(rest, steps, PQ_VARIANT_PATH_MAX + 1, &ns, err)) != PQ_OK) return -1;
    if (ns == 0 || ns > PQ_VARIANT_PATH_MAX) {
        *st = bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos, "'%.64s': a path into VARIANT column %.64s takes 1 "
                        "to 16 steps", e->column, sc->nodes[v].name);
        return -1;
    }
    int32_t meta = child_leaf(sc, v, "metadata");
    if (meta < 0) {
        *st = bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos, "'%.64s': VARIANT column %.64s has no metadata "
                        "column", e->column, sc->nodes[v].name);
        return -1;
    }
    if (e->kind != PQ_NODE_CMP && e->kind != PQ_NODE_IN && e->kind != PQ_NODE_IS_NULL) {
        *st = bind_fail(err, PQ_ERR_UNSUPPORTED, e->pos,
                        "'%.64s' is a path into VARIANT column %.64s: only comparisons, IN and IS [NOT] NULL apply "
                        "to it", e->column, sc->nodes[v].name);
        return -1;
    }
    /* Down the shredded groups. An array the writer shredded holds its
     * elements in repeated columns: the filter reads the element at the
     * step's index of each row's list (one such array on a path). */
    int32_t g = v;
    size_t typed = 0;
    e->variant_residual[0] = child_leaf(sc, v, "value");
    for (; typed < ns; typed++) {
        int32_t next = pq_variant_schema_step(sc, g, &steps[typed]);
        if (next >= 0 && steps[typed].index >= 0) {
            if (e->variant_pick >= 0) {
                *st = bind_fail(err, PQ_ERR_UNSUPPORTED, e->pos, "'%.64s' goes through more than one array the "
                                "writer shredded in VARIANT column %.64s: not filterable (project the path instead)",
                                e->column, sc->nodes[v].name);
                return -1;
            }
            int32_t list = pq_variant_schema_child(sc, g, "typed_value", 11);
            e->variant_pick = steps[typed].index;
            e->variant_pick_level = (uint8_t)(typed + 1);
            e->variant_pick_def = sc->nodes[sc->nodes[list].children[0]].max_def; /* the repeated group's */
        }
        if (next < 0) break;
        g = next;
        e->variant_residual[typed + 1] = child_leaf(sc, g, "value");
    }
    for (size_t k = typed + 1; k <= ns; k++) e->variant_residual[k] = -1;
    for (size_t k = 0; k <= typed; k++) {
        int32_t r = e->variant_residual[k];
        if (r >= 0 && sc->leaves[r].max_rep > (e->variant_pick >= 0 && k >= e->variant_pick_level)) {
            *st = bind_fail(err, PQ_ERR_UNSUPPORTED, e->pos, "'%.64s' goes into arrays nested in an array the writer "
                            "shredded in VARIANT column %.64s: not filterable", e->column, sc->nodes[v].name);
            return -1;
        }
    }
    e->variant_depth = (uint8_t)ns;
    e->variant_path_at = (size_t)(rest - e->column);
    e->variant_meta = meta;
    if (typed < ns) { /* the rest of the path lies in residual values */
        e->variant_untyped = true;
        return meta;
    }
    int32_t tv = pq_variant_schema_child(sc, g, "typed_value", 11);
    if (tv < 0) { /* a group with no typed_value: its values are all residual */
        e->variant_untyped = true;
        return meta;
    }
    int32_t leaf = sc->nodes[tv].leaf_index;
    if (leaf >= 0) {
        if ((uint32_t)leaf >= sc->leaves_len || sc->leaves[leaf].max_rep > (e->variant_pick >= 0)) {
            *st = bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos, "'%.64s': a repeated typed_value in VARIANT "
                            "column %.64s", e->column, sc->nodes[v].name);
            return -1;
        }
        return leaf;
    }
    /* An object or array the writer shredded: compared by value (never
     * equal to a literal); IS [NOT] NULL sees it present where its group
     * is, by the definition levels of its first leaf, or in a residual. */
    if (e->kind != PQ_NODE_IS_NULL) {
        e->variant_untyped = true;
        return meta;
    }
    if (e->variant_pick >= 0) {
        *st = bind_fail(err, PQ_ERR_UNSUPPORTED, e->pos, "'%.64s': IS [NOT] NULL on an object or array inside an "
                        "array the writer shredded in VARIANT column %.64s is not filterable", e->column,
                        sc->nodes[v].name);
        return -1;
    }
    int32_t i = tv;
    for (int hops = 0; sc->nodes[i].leaf_index < 0 && hops < (int)sc->nodes_len; hops++) {
        if (sc->nodes[i].num_children <= 0) break;
        i = sc->nodes[i].children[0];
    }
    leaf = sc->nodes[i].leaf_index;
    if (leaf < 0 || (uint32_t)leaf >= sc->leaves_len) {
        *st = bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos, "'%.64s': a typed_value group without a leaf in "
                        "VARIANT column %.64s", e->column, sc->nodes[v].name);
        return -1;
    }
    e->node_def = sc->nodes[tv].max_def;
    return leaf;
}

/* Whether a path into a VARIANT bound to its typed leaf lost what a
 * residual value could hold: a literal the leaf's type refused, or one it
 * cannot hold exactly (the node rewritten, an IN value dropped). */
static bool variant_not_exact(const pq_expr *e, pq_status st)
{
    if (st != PQ_OK) return true;
    if (e->kind != e->written_kind) return true;
    if (e->kind == PQ_NODE_CMP) return e->op != e->written_op;
    if (e->kind != PQ_NODE_IN) return false;
    /* duplicates dropped are harmless; values the leaf cannot hold are not */
    size_t distinct = 0;
    for (size_t k = 0; k < e->nlits; k++) {
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++) seen = lits_equal(&e->lits[j], &e->lits[k]);
        distinct += !seen;
    }
    return e->nvalues < distinct;
}

/* The GeoParquet "geo" metadata of the file (JSON), or NULL. */
static json_t *geo_metadata(const pq_metadata *md)
{
    const pq_file_metadata *fm = pq_metadata_file(md);
    for (uint32_t i = 0; fm && i < fm->key_value_metadata_len; i++) {
        const pq_key_value *kv = &fm->key_value_metadata[i];
        if (kv->has_value && kv->key.len == 3 && memcmp(kv->key.ptr, "geo", 3) == 0)
            return json_loadb((const char *)kv->value.ptr, kv->value.len, JSON_REJECT_DUPLICATES, NULL);
    }
    return NULL;
}

/* The leaf a covering names as a path of field names (["bbox", "xmin"]):
 * one FLOAT or DOUBLE value a row, else -1. */
static int32_t covering_leaf(const pq_metadata *md, json_t *path)
{
    char buf[512];
    size_t n = 0;
    if (!json_is_array(path) || json_array_size(path) == 0) return -1;
    for (size_t k = 0; k < json_array_size(path); k++) {
        const char *name = json_string_value(json_array_get(path, k));
        size_t len = name ? strlen(name) : 0;
        if (!len || n + len + 2 > sizeof buf) return -1;
        if (k) buf[n++] = '.';
        memcpy(buf + n, name, len);
        n += len;
    }
    buf[n] = '\0';
    int32_t leaf = pq_metadata_find_leaf(md, buf);
    const pq_schema *sc = pq_metadata_schema(md);
    if (leaf < 0 || !sc || (uint32_t)leaf >= sc->leaves_len) return -1;
    const pq_leaf *lf = &sc->leaves[leaf];
    return (lf->physical_type == PQ_FLOAT || lf->physical_type == PQ_DOUBLE) && lf->max_rep == 0 ? leaf : -1;
}

/* bbox_intersects on a GeoParquet geometry column: the leaves of its bbox
 * covering, when the file's "geo" metadata names one (else none; metadata
 * that does not parse or name such leaves is no covering, never an error:
 * the rows are still decided by each value's WKB). */
static void geo_covering(const pq_metadata *md, const pq_leaf *lf, pq_expr *e)
{
    for (int k = 0; k < 4; k++) e->bbox_cover[k] = -1;
    e->bbox_cover_x = false;
    if (lf->max_rep > 0 || lf->max_def > 1) return; /* a top-level column, one value a row */
    json_t *geo = geo_metadata(md);
    json_t *col = json_object_get(json_object_get(geo, "columns"), lf->path);
    json_t *bbox = json_object_get(json_object_get(col, "covering"), "bbox");
    static const char *const names[4] = {"xmin", "ymin", "xmax", "ymax"};
    int32_t leaves[4];
    bool all = json_is_object(bbox);
    for (int k = 0; k < 4 && all; k++) all = (leaves[k] = covering_leaf(md, json_object_get(bbox, names[k]))) >= 0;
    if (all) {
        const char *edges = json_string_value(json_object_get(col, "edges"));
        for (int k = 0; k < 4; k++) e->bbox_cover[k] = leaves[k];
        e->bbox_cover_x = !edges || strcmp(edges, "planar") == 0;
    }
    json_decref(geo);
}

static pq_status bind_leaf(const pq_metadata *md, uint32_t int96_unit, pq_expr *e, pq_error *err)
{
    const pq_schema *sc = pq_metadata_schema(md);
    /* A group's own nullness: `point is null`, `tags is not null`. */
    int32_t group = sc ? find_group(sc, e->column) : -1;
    if (group >= 0 && e->kind == PQ_NODE_IS_NULL) return bind_group_null(md, e, group, err);
    int32_t leaf = pq_metadata_find_leaf(md, e->column);
    if (leaf < 0 && group < 0 && sc && sc->nodes_len) { /* a path into a shredded VARIANT */
        pq_status vst;
        leaf = variant_path(sc, e, err, &vst);
        if (vst != PQ_OK) return vst;
        if (leaf >= 0 && (e->variant_untyped || e->node_def > 0)) {
            /* compared per row by each value's variant type, or the
             * presence of a shredded object or array */
            e->leaf = leaf;
            e->physical_type = e->variant_untyped ? PQ_BYTE_ARRAY : sc->leaves[leaf].physical_type;
            e->type_length = 0;
            memset(&e->logical, 0, sizeof e->logical);
            e->order = PQ_ORDER_BYTES;
            e->bound = true;
            return PQ_OK;
        }
    }
    if (group >= 0 && (leaf < 0 || sc->leaves[leaf].max_rep > 0))
        return bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos,
                         "'%.64s' is a struct, list or map: only IS [NOT] NULL applies to it%s", e->column, "");
    if (leaf < 0 || !sc || (uint32_t)leaf >= sc->leaves_len)
        return bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos, "no column '%.64s'%s", e->column, "");
    const pq_leaf *lf = &sc->leaves[leaf];
    if (lf->max_rep > (e->variant_pick >= 0)) /* an element picked from a shredded array is a value a row */
        return bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos,
                         "column '%.64s' is repeated (lists are not filterable)%s", lf->path, "");
    if (e->kind == PQ_NODE_BBOX) { /* the box stays as written: no value to type */
        if (lf->physical_type != PQ_BYTE_ARRAY)
            return bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos,
                             "bbox_intersects needs a GEOMETRY, GEOGRAPHY or binary (WKB) column; '%.64s' is "
                             "not one%s", lf->path, "");
        e->leaf = leaf;
        e->physical_type = lf->physical_type;
        e->logical = lf->logical;
        e->order = PQ_ORDER_BYTES;
        geo_covering(md, lf, e);
        e->bound = true;
        return PQ_OK;
    }
    pq_logical_type lt = usable_logical(lf);
    pq_leaf view = *lf;
    if (lf->physical_type == PQ_INT96) {
        /* A legacy timestamp: compared as the reader delivers it, a
         * timestamp of int96_unit (nothing about the chunk prunes it:
         * INT96 has no defined order, and its statistics go unused) */
        memset(&lt, 0, sizeof lt);
        lt.kind = PQ_LOGICAL_TIMESTAMP;
        lt.unit = (uint8_t)int96_unit;
        view.physical_type = PQ_INT64;
    }
    if (e->kind == PQ_NODE_CMP && e->pos != SIZE_MAX && e->nlits == 1 && e->lit_pos[0] == e->pos &&
        lf->physical_type != PQ_BOOLEAN) /* the parser's `col` alone: col = true */
        return bind_fail(err, PQ_ERR_INVALID_ARGUMENT, e->pos,
                         "column '%.64s' alone is a condition only if it is boolean%s", lf->path, "");
    if (lt.kind == PQ_LOGICAL_FLOAT16 && e->nlits)
        return bind_fail(err, PQ_ERR_UNSUPPORTED, e->pos,
                         "column '%.64s' is FLOAT16: only IS [NOT] NULL is supported%s", lf->path, "");
    view.logical = lt;
    e->leaf = leaf;
    e->physical_type = lf->physical_type;
    e->type_length = lf->type_length;
    e->logical = lt;
    e->order = value_order(&view, &lt);
    bind_ctx c = {md, &view, e, err};
    pq_status st = bind_values(&c, e);
    if (e->variant_depth && st != PQ_ERR_NOMEM && variant_not_exact(e, st)) {
        /* a residual value may hold what the typed leaf cannot: by value */
        drop_values(e);
        e->kind = e->written_kind;
        e->op = e->written_op;
        e->variant_by_value = true;
        st = PQ_OK;
    }
    if (st == PQ_OK) e->bound = true;
    return st;
}

static pq_status bind_node(const pq_metadata *md, uint32_t int96_unit, pq_expr *e, pq_error *err)
{
    pq_expr_unbind_node(e);
    pq_status st = PQ_OK;
    switch (e->kind) {
    case PQ_NODE_CONST: break;
    case PQ_NODE_AND:
    case PQ_NODE_OR:
    case PQ_NODE_NOT:
        if (!e->kids[0] || (e->kind != PQ_NODE_NOT && !e->kids[1]))
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "predicate: a node without operands");
        st = bind_node(md, int96_unit, e->kids[0], err);
        if (st == PQ_OK && e->kids[1]) st = bind_node(md, int96_unit, e->kids[1], err);
        break;
    default: return bind_leaf(md, int96_unit, e, err);
    }
    if (st == PQ_OK) e->bound = true;
    return st;
}

static void unbind_all(pq_expr *e)
{
    if (!e) return;
    unbind_all(e->kids[0]);
    unbind_all(e->kids[1]);
    pq_expr_unbind_node(e);
}

/* Number the tree's distinct pick indexes from 1 (predicate.h). */
static void number_picks(pq_expr *e, int64_t *seen, uint32_t *n, size_t leaves)
{
    if (!e) return;
    number_picks(e->kids[0], seen, n, leaves);
    number_picks(e->kids[1], seen, n, leaves);
    if (!pq_node_is_leaf(e) || e->variant_pick < 0) return;
    uint32_t j = 0;
    while (j < *n && seen[j] != e->variant_pick) j++;
    if (j == *n) seen[(*n)++] = e->variant_pick;
    e->variant_pick_slot = j + 1;
    e->variant_pick_base = (size_t)(j + 1) * leaves;
}

static size_t count_leaf_nodes(const pq_expr *e)
{
    return e ? pq_node_is_leaf(e) + count_leaf_nodes(e->kids[0]) + count_leaf_nodes(e->kids[1]) : 0;
}

pq_status pq_expr_bind(pq_expr *e, const pq_metadata *md, pq_error *err)
{
    return pq_expr_bind_int96(e, md, PQ_UNIT_NANOS, err);
}

pq_status pq_expr_bind_int96(pq_expr *e, const pq_metadata *md, uint32_t int96_unit, pq_error *err)
{
    if (!e || !md) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_expr_bind: NULL argument");
    if (int96_unit != PQ_UNIT_NANOS && int96_unit != PQ_UNIT_MICROS && int96_unit != PQ_UNIT_MILLIS &&
        int96_unit != PQ_UNIT_SECONDS)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_expr_bind: INT96 unit %u is not a time unit",
                            (unsigned)int96_unit);
    pq_status st = bind_node(md, int96_unit, e, err);
    if (st == PQ_OK) {
        size_t nodes = count_leaf_nodes(e);
        int64_t *seen = malloc((nodes ? nodes : 1) * sizeof *seen);
        uint32_t n = 0;
        const pq_schema *sc = pq_metadata_schema(md);
        if (seen) number_picks(e, seen, &n, sc ? sc->leaves_len : 0);
        else st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory binding a predicate");
        free(seen);
    }
    if (st != PQ_OK) unbind_all(e);
    return st;
}
