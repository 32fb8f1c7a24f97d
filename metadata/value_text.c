/*
 * value_text.c — dates, times, timestamps and decimals as text (pq_text.h),
 * shared by the statistics formatter and the CLI.
 */
#include "pq_text.h"

#include <math.h>
#include <stdlib.h>

#include "metadata/text_out.h"

/* Floor division and its non-negative remainder (b > 0). */
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

/* HH:MM:SS[.fraction] for `secs` seconds (>= 0) and `frac` ticks into it. */
static void put_clock(out *o, uint64_t secs, uint64_t frac, int digits)
{
    put_u64(o, secs / 3600, 2);
    put_ch(o, ':');
    put_u64(o, secs / 60 % 60, 2);
    put_ch(o, ':');
    put_u64(o, secs % 60, 2);
    if (digits) {
        put_ch(o, '.');
        put_u64(o, frac, digits);
    }
}

/* Ticks per second for 0, 3, 6 or 9 fraction digits; 0 otherwise. */
static int64_t per_second(int digits)
{
    switch (digits) {
    case 0: return 1;
    case 3: return 1000;
    case 6: return 1000000;
    case 9: return 1000000000;
    default: return 0;
    }
}

static inline out out_init(char *buf, size_t cap)
{
    out o = {buf, cap, 0};
    return o;
}

size_t pq_format_date(int64_t days, char *buf, size_t cap)
{
    out o = out_init(buf, cap);
    put_date(&o, days);
    return finish(&o);
}

size_t pq_format_time(int64_t ticks, int digits, char *buf, size_t cap)
{
    out o = out_init(buf, cap);
    int64_t per = per_second(digits);
    if (per) {
        uint64_t mag = ticks < 0 ? (uint64_t)0 - (uint64_t)ticks : (uint64_t)ticks;
        if (ticks < 0) put_ch(&o, '-');
        put_clock(&o, mag / (uint64_t)per, mag % (uint64_t)per, digits);
    }
    return finish(&o);
}

size_t pq_format_timestamp(int64_t ticks, int digits, bool utc, char *buf, size_t cap)
{
    out o = out_init(buf, cap);
    int64_t per = per_second(digits);
    if (per) {
        int64_t frac, secs_of_day;
        int64_t secs = floor_div(ticks, per, &frac);
        int64_t days = floor_div(secs, 86400, &secs_of_day);
        put_date(&o, days);
        put_ch(&o, 'T');
        put_clock(&o, (uint64_t)secs_of_day, (uint64_t)frac, digits);
        if (utc) put_ch(&o, 'Z');
    }
    return finish(&o);
}

#define MAX_DECIMAL_BYTES 64

/* Place the decimal point `scale` digits from the right of the magnitude
 * `digits` (no sign, no leading zeros, at least "0"). */
static void put_scaled(out *o, bool negative, const char *digits, int32_t scale)
{
    size_t n = strlen(digits);
    if (negative) put_ch(o, '-');
    if (scale > 255 || scale < -255) {
        put(o, digits);
        put(o, scale < 0 ? "E+" : "E-");
        put_u64(o, scale < 0 ? (uint64_t)0 - (uint64_t)(int64_t)scale : (uint64_t)scale, 1);
        return;
    }
    if (scale <= 0) {
        put(o, digits);
        if (strcmp(digits, "0") != 0)
            for (int32_t k = 0; k < -scale; k++) put_ch(o, '0');
        return;
    }
    size_t s = (size_t)scale;
    if (n > s) {
        put_mem(o, digits, n - s);
    } else {
        put_ch(o, '0');
    }
    put_ch(o, '.');
    for (size_t i = n; i < s; i++) put_ch(o, '0');
    put(o, n > s ? digits + (n - s) : digits);
}

size_t pq_format_decimal(const uint8_t *be, size_t n, int32_t scale, char *buf, size_t cap)
{
    out o = out_init(buf, cap);
    if (!be || n == 0 || n > MAX_DECIMAL_BYTES) return finish(&o);
    /* Negate when negative, then divide the magnitude by 10 repeatedly. */
    uint8_t mag[MAX_DECIMAL_BYTES];
    bool negative = be[0] & 0x80;
    memcpy(mag, be, n);
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
    put_scaled(&o, negative, digits, scale);
    return finish(&o);
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
 * it. Like Python's repr, plain notation is used for exponents 0..15:
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

size_t pq_format_double(double v, char *buf, size_t cap)
{
    out o = out_init(buf, cap);
    if (!put_nonfinite(&o, v)) {
        char tmp[40];
        int prec = 1;
        for (; prec < 17; prec++) {
            snprintf(tmp, sizeof tmp, "%.*g", prec, v);
            if (strtod(tmp, NULL) == v) break;
        }
        put_digits(&o, v, prec);
    }
    return finish(&o);
}

size_t pq_format_float(float v, char *buf, size_t cap)
{
    out o = out_init(buf, cap);
    if (!put_nonfinite(&o, v)) {
        char tmp[40];
        int prec = 1;
        for (; prec < 9; prec++) {
            snprintf(tmp, sizeof tmp, "%.*g", prec, (double)v);
            if (strtof(tmp, NULL) == v) break;
        }
        put_digits(&o, v, prec);
    }
    return finish(&o);
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
size_t pq_format_float16(uint16_t h, char *buf, size_t cap)
{
    out o = out_init(buf, cap);
    double x = half_to_double(h);
    if (!put_nonfinite(&o, x)) {
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
        put_digits(&o, x, prec);
    }
    return finish(&o);
}
