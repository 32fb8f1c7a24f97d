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

#include "kernels/utf8.h"
#include "metadata/text_out.h"
#include "pq_text.h"
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

static void put_double(out *o, double v)
{
    char t[40];
    pq_format_double(v, t, sizeof t);
    put(o, t);
}

static void put_float(out *o, float v)
{
    char t[40];
    pq_format_float(v, t, sizeof t);
    put(o, t);
}

static void put_half(out *o, uint16_t h)
{
    char t[40];
    pq_format_float16(h, t, sizeof t);
    put(o, t);
}

/* ---------------------------------------------------------------------------
 * Dates and times
 * ------------------------------------------------------------------------- */

/* Time units' fraction digits; 0 if unknown. */
static int unit_digits(uint8_t unit)
{
    switch (unit) {
    case PQ_UNIT_MILLIS: return 3;
    case PQ_UNIT_MICROS: return 6;
    case PQ_UNIT_NANOS: return 9;
    default: return 0;
    }
}

static void put_date(out *o, int64_t days)
{
    char t[32];
    pq_format_date(days, t, sizeof t);
    put(o, t);
}

static bool put_time(out *o, int64_t v, uint8_t unit)
{
    int digits = unit_digits(unit);
    if (!digits) return false;
    char t[48];
    pq_format_time(v, digits, t, sizeof t);
    put(o, t);
    return true;
}

static bool put_timestamp(out *o, int64_t v, uint8_t unit, bool utc)
{
    int digits = unit_digits(unit);
    if (!digits) return false;
    char t[64];
    pq_format_timestamp(v, digits, utc, t, sizeof t);
    put(o, t);
    return true;
}

/* ---------------------------------------------------------------------------
 * Decimals
 * ------------------------------------------------------------------------- */

/* Big-endian two's complement of 1..64 bytes, exactly. */
static bool put_decimal_be(out *o, const uint8_t *p, size_t n, int32_t scale)
{
    if (n == 0 || n > 64) return false;
    char t[PQ_FORMAT_DECIMAL_MAX];
    pq_format_decimal(p, n, scale, t, sizeof t);
    put(o, t);
    return true;
}

static void put_decimal_i64(out *o, int64_t v, int32_t scale)
{
    uint8_t be[8];
    for (int k = 0; k < 8; k++) be[k] = (uint8_t)((uint64_t)v >> (56 - 8 * k));
    put_decimal_be(o, be, sizeof be, scale);
}

/* ---------------------------------------------------------------------------
 * Text
 * ------------------------------------------------------------------------- */

/* Well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF) without NUL. */
static bool is_clean_utf8(const uint8_t *p, size_t n)
{
    return !memchr(p, 0, n) && pq_utf8_invalid_at(p, n) == n;
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
