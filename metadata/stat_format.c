/*
 * stat_format.c — render one statistics value (a PLAIN-encoded min or max)
 * as readable text, by the leaf's physical and logical type.
 *
 *   BOOLEAN                 true / false
 *   INT32, INT64            signed, or unsigned for INT(n,unsigned)
 *   FLOAT, DOUBLE, FLOAT16  shortest text that reads back to the same value;
 *                           nan, inf, -inf
 *   DATE                    YYYY-MM-DD, proleptic Gregorian (years outside
 *                           0000-9999 get a sign: -0001-12-31, +10000-01-01)
 *   TIME                    HH:MM:SS.fff / .ffffff / .fffffffff by unit
 *   TIMESTAMP               YYYY-MM-DDTHH:MM:SS.fff[fff[fff]], "Z" when UTC
 *   DECIMAL                 exact, e.g. "-1.23" (INT32, INT64, and big-endian
 *                           two's complement FLBA / BYTE_ARRAY up to 64 bytes)
 *   STRING, ENUM, JSON      the bytes as they are, when they are valid UTF-8
 *                           without NUL; hex otherwise (truncated statistics
 *                           may cut a character in two)
 *   UUID                    8-4-4-4-12 lowercase hex
 *   anything else           hex: "0x0a1b..." (INT96, plain binary, ...)
 *
 * A value whose width does not fit its fixed-width type renders as hex.
 * A logical type that does not apply to the physical type is ignored.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/text_out.h"
#include "pq_metadata.h"

static void put_hex(out *o, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    put(o, "0x");
    for (size_t i = 0; i < n; i++) {
        char h[2] = {digits[p[i] >> 4], digits[p[i] & 15]};
        put_mem(o, h, 2);
    }
}

static inline uint32_t load_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t load_u64le(const uint8_t *p)
{
    return (uint64_t)load_u32le(p) | (uint64_t)load_u32le(p + 4) << 32;
}

/* ---------------------------------------------------------------------------
 * Floating point
 * ------------------------------------------------------------------------- */

/* nan / inf / -inf, as Python prints them; false for finite values. */
static bool put_nonfinite(out *o, double v)
{
    if (isnan(v)) put(o, "nan");
    else if (isinf(v)) put(o, v < 0 ? "-inf" : "inf");
    else return false;
    return true;
}

/* Write `v` with `prec` significant digits, the shortest that read back to
 * it. Like Python's repr, plain notation is used for exponents -4..15:
 * "100" and "65504" rather than "1e+02" and "6.55e+04". */
static void put_digits(out *o, double v, int prec)
{
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%.*g", prec, v);
    const char *e = strchr(tmp, 'e');
    if (e) {
        int exp10 = atoi(e + 1);
        if (exp10 >= 0 && exp10 < 16) snprintf(tmp, sizeof tmp, "%.*g", exp10 + 1, v);
    }
    put(o, tmp);
}

static void put_double(out *o, double v)
{
    if (put_nonfinite(o, v)) return;
    char tmp[40];
    int prec = 1;
    for (; prec < 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v) break;
    }
    put_digits(o, v, prec);
}

static void put_float(out *o, float v)
{
    if (put_nonfinite(o, v)) return;
    char tmp[40];
    int prec = 1;
    for (; prec < 9; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, (double)v);
        if (strtof(tmp, NULL) == v) break;
    }
    put_digits(o, v, prec);
}

/* IEEE 754 binary16 to double (exact). */
static double half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    double v;
    if (exp == 0) v = ldexp(frac, -24);                         /* zero, subnormal */
    else if (exp == 31) v = frac ? NAN : INFINITY;
    else v = ldexp(frac | 0x400, exp - 25);
    return sign ? -v : v;
}

/* The shortest text that rounds back to half `h`: a candidate is good when it
 * is closer to h than to either neighbouring half (ties only for even h). */
static void put_half(out *o, uint16_t h)
{
    double x = half_to_double(h);
    if (put_nonfinite(o, x)) return;
    uint16_t mag = h & 0x7fff, sign = h & 0x8000;
    /* neighbours by magnitude; the one below zero is -smallest subnormal */
    double up = half_to_double((uint16_t)(sign | (mag + 1)));
    double down = mag ? half_to_double((uint16_t)(sign | (mag - 1)))
                      : -half_to_double((uint16_t)(sign | 1));
    char tmp[40];
    int prec = 1;
    for (; prec < 5; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, x);
        double d = strtod(tmp, NULL), e = fabs(d - x);
        double eu = isinf(up) ? INFINITY : fabs(d - up), ed = fabs(d - down);
        bool even = (h & 1) == 0;
        if ((e < eu || (e == eu && even)) && (e < ed || (e == ed && even))) break;
    }
    put_digits(o, x, prec);
}

/* ---------------------------------------------------------------------------
 * Dates and times
 * ------------------------------------------------------------------------- */

/* Floor division and its non-negative remainder. */
static inline int64_t floor_div(int64_t a, int64_t b, int64_t *rem)
{
    int64_t q = a / b, r = a % b;
    if (r < 0) {
        r += b;
        q--;
    }
    *rem = r;
    return q;
}

/* Days since 1970-01-01 to a proleptic Gregorian date, using 400-year eras
 * of 146097 days counted from 0000-03-01. */
static void civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
    int64_t doe;
    int64_t era = floor_div(days + 719468, 146097, &doe);
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static void put_date(out *o, int64_t days)
{
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    if (y < 0) {
        put_ch(o, '-');
        put_u64(o, (uint64_t)0 - (uint64_t)y, 4);
    } else {
        if (y > 9999) put_ch(o, '+');
        put_u64(o, (uint64_t)y, 4);
    }
    put_ch(o, '-');
    put_u64(o, m, 2);
    put_ch(o, '-');
    put_u64(o, d, 2);
}

/* Digits of the fraction and ticks per second of a time unit; 0 if unknown. */
static int unit_digits(uint8_t unit, int64_t *per_second)
{
    switch (unit) {
    case PQ_UNIT_MILLIS: *per_second = 1000; return 3;
    case PQ_UNIT_MICROS: *per_second = 1000000; return 6;
    case PQ_UNIT_NANOS: *per_second = 1000000000; return 9;
    default: return 0;
    }
}

/* HH:MM:SS.fff for `secs` seconds (>= 0) and `frac` ticks into the second. */
static void put_clock(out *o, uint64_t secs, uint64_t frac, int digits)
{
    put_u64(o, secs / 3600, 2);
    put_ch(o, ':');
    put_u64(o, secs / 60 % 60, 2);
    put_ch(o, ':');
    put_u64(o, secs % 60, 2);
    put_ch(o, '.');
    put_u64(o, frac, digits);
}

/* Time of day; a negative value (invalid, but possible) gets a '-' sign. */
static bool put_time(out *o, int64_t v, uint8_t unit)
{
    int64_t per_second;
    int digits = unit_digits(unit, &per_second);
    if (!digits) return false;
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (v < 0) put_ch(o, '-');
    put_clock(o, mag / (uint64_t)per_second, mag % (uint64_t)per_second, digits);
    return true;
}

static bool put_timestamp(out *o, int64_t v, uint8_t unit, bool utc)
{
    int64_t per_second, frac, secs_of_day;
    int digits = unit_digits(unit, &per_second);
    if (!digits) return false;
    int64_t secs = floor_div(v, per_second, &frac);
    int64_t days = floor_div(secs, 86400, &secs_of_day);
    put_date(o, days);
    put_ch(o, 'T');
    put_clock(o, (uint64_t)secs_of_day, (uint64_t)frac, digits);
    if (utc) put_ch(o, 'Z');
    return true;
}

/* ---------------------------------------------------------------------------
 * Decimals
 * ------------------------------------------------------------------------- */

/* Place the decimal point `scale` digits from the right of the magnitude
 * `digits` (no sign, no leading zeros, at least "0"). Scales outside
 * [0, 255] are written in exponent form: "123E-300", "5E+3". */
static void put_scaled(out *o, bool negative, const char *digits, int32_t scale)
{
    size_t n = strlen(digits);
    if (negative) put_ch(o, '-');
    if (scale < 0 || scale > 255) {
        put(o, digits);
        put(o, scale < 0 ? "E+" : "E-");
        put_u64(o, scale < 0 ? (uint64_t)0 - (uint64_t)(int64_t)scale : (uint64_t)scale, 1);
        return;
    }
    size_t s = (size_t)scale;
    if (s == 0) {
        put(o, digits);
        return;
    }
    if (n > s) {
        put_mem(o, digits, n - s);
    } else {
        put_ch(o, '0');
    }
    put_ch(o, '.');
    for (size_t i = n; i < s; i++) put_ch(o, '0');
    put(o, n > s ? digits + (n - s) : digits);
}

static void put_decimal_i64(out *o, int64_t v, int32_t scale)
{
    char tmp[24];
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    snprintf(tmp, sizeof tmp, "%" PRIu64, mag);
    put_scaled(o, v < 0, tmp, scale);
}

#define MAX_DECIMAL_BYTES 64

/* Big-endian two's complement of 1..64 bytes, exactly: negate when negative,
 * then divide the magnitude by 10 repeatedly. */
static bool put_decimal_be(out *o, const uint8_t *p, size_t n, int32_t scale)
{
    if (n == 0 || n > MAX_DECIMAL_BYTES) return false;
    uint8_t mag[MAX_DECIMAL_BYTES];
    bool negative = p[0] & 0x80;
    memcpy(mag, p, n);
    if (negative) {
        unsigned carry = 1;
        for (size_t i = n; i-- > 0;) {
            unsigned b = (uint8_t)~mag[i] + carry;
            mag[i] = (uint8_t)b;
            carry = b >> 8;
        }
    }
    char digits[MAX_DECIMAL_BYTES * 3 + 2]; /* 8 bits < 3 decimal digits */
    size_t nd = 0, start = 0;
    for (;;) {
        while (start < n && mag[start] == 0) start++;
        if (start == n) break;
        unsigned rem = 0;
        for (size_t i = start; i < n; i++) {
            unsigned cur = rem << 8 | mag[i];
            mag[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
        }
        digits[nd++] = (char)('0' + rem);
    }
    if (nd == 0) digits[nd++] = '0';
    for (size_t i = 0; i < nd / 2; i++) { /* least significant digit came first */
        char t = digits[i];
        digits[i] = digits[nd - 1 - i];
        digits[nd - 1 - i] = t;
    }
    digits[nd] = '\0';
    put_scaled(o, negative, digits, scale);
    return true;
}

/* ---------------------------------------------------------------------------
 * Text
 * ------------------------------------------------------------------------- */

/* Well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF) without NUL. */
static bool is_clean_utf8(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        if (c == 0) return false;
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint32_t cp, min;
        if ((c & 0xe0) == 0xc0) { len = 2; cp = c & 0x1f; min = 0x80; }
        else if ((c & 0xf0) == 0xe0) { len = 3; cp = c & 0x0f; min = 0x800; }
        else if ((c & 0xf8) == 0xf0) { len = 4; cp = c & 0x07; min = 0x10000; }
        else return false;
        if (n - i < len) return false;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xc0) != 0x80) return false;
            cp = cp << 6 | (p[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        i += len;
    }
    return true;
}

static void put_uuid(out *o, const uint8_t *p)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) put_ch(o, '-');
        char h[2] = {digits[p[i] >> 4], digits[p[i] & 15]};
        put_mem(o, h, 2);
    }
}

/* ---------------------------------------------------------------------------
 * Per physical type
 * ------------------------------------------------------------------------- */

static bool format_int32(out *o, const pq_logical_type *lt, int32_t v)
{
    switch (lt->kind) {
    case PQ_LOGICAL_INTEGER:
        if (!lt->is_signed) {
            put_u64(o, (uint32_t)v, 1);
            return true;
        }
        break;
    case PQ_LOGICAL_DATE:
        put_date(o, v);
        return true;
    case PQ_LOGICAL_TIME:
        if (lt->unit == PQ_UNIT_MILLIS) return put_time(o, v, lt->unit);
        break;
    case PQ_LOGICAL_DECIMAL:
        put_decimal_i64(o, v, lt->scale);
        return true;
    }
    put_i64(o, v);
    return true;
}

static bool format_int64(out *o, const pq_logical_type *lt, int64_t v)
{
    switch (lt->kind) {
    case PQ_LOGICAL_INTEGER:
        if (!lt->is_signed) {
            put_u64(o, (uint64_t)v, 1);
            return true;
        }
        break;
    case PQ_LOGICAL_TIME:
        if (lt->unit == PQ_UNIT_MICROS || lt->unit == PQ_UNIT_NANOS) return put_time(o, v, lt->unit);
        break;
    case PQ_LOGICAL_TIMESTAMP:
        if (put_timestamp(o, v, lt->unit, lt->is_adjusted_to_utc)) return true;
        break;
    case PQ_LOGICAL_DECIMAL:
        put_decimal_i64(o, v, lt->scale);
        return true;
    }
    put_i64(o, v);
    return true;
}

/* BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY values. */
static void format_bytes(out *o, const pq_leaf *leaf, const uint8_t *p, size_t n)
{
    const pq_logical_type *lt = &leaf->logical;
    bool flba = leaf->physical_type == PQ_FIXED_LEN_BYTE_ARRAY;
    switch (lt->kind) {
    case PQ_LOGICAL_DECIMAL:
        if (put_decimal_be(o, p, n, lt->scale)) return;
        break;
    case PQ_LOGICAL_STRING:
    case PQ_LOGICAL_ENUM:
    case PQ_LOGICAL_JSON:
        if (!flba && is_clean_utf8(p, n)) {
            put_mem(o, p, n);
            return;
        }
        break;
    case PQ_LOGICAL_FLOAT16:
        if (flba && n == 2) {
            put_half(o, (uint16_t)(p[0] | p[1] << 8));
            return;
        }
        break;
    case PQ_LOGICAL_UUID:
        if (flba && n == 16) {
            put_uuid(o, p);
            return;
        }
        break;
    }
    put_hex(o, p, n);
}

size_t pq_stat_value_format(const pq_leaf *leaf, pq_bytes value, char *buf, size_t cap)
{
    out o = {buf, cap, 0};
    const uint8_t *p = value.ptr;
    size_t n = p ? value.len : 0;
    if (!leaf) {
        put_hex(&o, p, n);
        return finish(&o);
    }
    static const uint8_t zero[1];
    if (!p) p = zero; /* an empty span may carry a NULL pointer */

    switch (leaf->physical_type) {
    case PQ_BOOLEAN:
        if (n == 1 && p[0] <= 1) put(&o, p[0] ? "true" : "false");
        else put_hex(&o, p, n);
        break;
    case PQ_INT32:
        if (n == 4) format_int32(&o, &leaf->logical, (int32_t)load_u32le(p));
        else put_hex(&o, p, n);
        break;
    case PQ_INT64:
        if (n == 8) format_int64(&o, &leaf->logical, (int64_t)load_u64le(p));
        else put_hex(&o, p, n);
        break;
    case PQ_FLOAT:
        if (n == 4) {
            uint32_t bits = load_u32le(p);
            float f;
            memcpy(&f, &bits, 4);
            put_float(&o, f);
        } else {
            put_hex(&o, p, n);
        }
        break;
    case PQ_DOUBLE:
        if (n == 8) {
            uint64_t bits = load_u64le(p);
            double d;
            memcpy(&d, &bits, 8);
            put_double(&o, d);
        } else {
            put_hex(&o, p, n);
        }
        break;
    case PQ_BYTE_ARRAY:
        format_bytes(&o, leaf, p, n);
        break;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (leaf->type_length > 0 && n != (size_t)leaf->type_length) put_hex(&o, p, n);
        else format_bytes(&o, leaf, p, n);
        break;
    default: /* INT96 and unknown types */
        put_hex(&o, p, n);
        break;
    }
    return finish(&o);
}
