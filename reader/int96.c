/*
 * int96.c — INT96 timestamps into int64 timestamps of a unit, checked
 * (see int96.h).
 *
 * The conversion is one loop per unit with the unit's constants written
 * in, so that the compiler turns the division into a multiplication (none
 * for nanoseconds). The range check is two compares a value or-ed into a
 * flag, looked at once after the loop (see convert); only a chunk with a
 * flagged value takes the exact path.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "pq_metadata.h"
#include "reader/int96.h"

/* Julian day of 1970-01-01. */
#define JULIAN_EPOCH_DAY 2440588
#define NANOS_PER_DAY 86400000000000ll

static inline uint64_t load_u64(const uint8_t *p)
{
    uint64_t x = 0;
    for (int k = 0; k < 8; k++) x |= (uint64_t)p[k] << (8 * k);
    return x;
}

static inline uint32_t load_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void store_u64(uint8_t *p, uint64_t x)
{
    for (int k = 0; k < 8; k++) p[k] = (uint8_t)(x >> (8 * k));
}

/* Value p in units of which `per_day` make a day and `div` nanoseconds
 * make one: false when it does not fit an int64. */
static inline bool one(const uint8_t *p, int64_t per_day, int64_t div, int64_t *out)
{
    int64_t nanos = (int64_t)load_u64(p);
    int64_t days = (int64_t)load_u32(p + 8) - JULIAN_EPOCH_DAY;
    /* In 128 bits (one multiply): the day's start may lie below int64
     * while the instant does not (1677-09-21 00:12:43.145224192 is the
     * least nanosecond). */
    int64_t units = nanos / div - (nanos % div < 0); /* floor: toward negative infinity */
    __int128 x = (__int128)days * per_day + units;
    *out = (int64_t)x;
    return x == (__int128)*out;
}

/* The fast loop converts in 64-bit arithmetic, as the unchecked
 * conversion did, and flags without a branch every value that is not
 * plainly in range: nanoseconds of the day outside [0, a day), or a day
 * outside [lo, hi], the days every instant of which fits (1677-09-22 ..
 * 2262-04-10 in nanoseconds). A chunk with a flagged value is converted
 * again by the exact path, value by value (the last nanoseconds of
 * 1677-09-21 and the first of 2262-04-11 fit). */
static inline size_t convert(uint8_t *dst, const uint8_t *src, size_t n, int64_t per_day, int64_t div)
{
    const int64_t lo = INT64_MIN / per_day;                   /* rounded up: lo * per_day fits */
    const int64_t hi = (INT64_MAX - (per_day - 1)) / per_day; /* hi's last unit fits */
    uint64_t flagged = 0;
    for (size_t j = 0; j < n; j++) {
        const uint8_t *p = src + 12 * j;
        uint64_t nanos = load_u64(p);
        int64_t days = (int64_t)load_u32(p + 8) - JULIAN_EPOCH_DAY;
        flagged |= ((uint64_t)(days - lo) > (uint64_t)(hi - lo)) | (nanos >= (uint64_t)NANOS_PER_DAY);
        store_u64(dst + 8 * j, (uint64_t)days * (uint64_t)per_day + nanos / (uint64_t)div);
    }
    if (!flagged) return n;
    for (size_t j = 0; j < n; j++) {
        int64_t x;
        if (!one(src + 12 * j, per_day, div, &x)) return j;
        store_u64(dst + 8 * j, (uint64_t)x);
    }
    return n;
}

size_t pq_int96_convert(uint8_t *dst, const uint8_t *src, size_t n, int unit)
{
    switch (unit) {
    case PQ_UNIT_SECONDS: return convert(dst, src, n, 86400, 1000000000);
    case PQ_UNIT_MILLIS: return convert(dst, src, n, 86400000, 1000000);
    case PQ_UNIT_MICROS: return convert(dst, src, n, 86400000000ll, 1000);
    default: return convert(dst, src, n, NANOS_PER_DAY, 1);
    }
}

bool pq_int96_value(const uint8_t *p, int unit, int64_t *out)
{
    switch (unit) {
    case PQ_UNIT_SECONDS: return one(p, 86400, 1000000000, out);
    case PQ_UNIT_MILLIS: return one(p, 86400000, 1000000, out);
    case PQ_UNIT_MICROS: return one(p, 86400000000ll, 1000, out);
    default: return one(p, NANOS_PER_DAY, 1, out);
    }
}

/* The proleptic Gregorian date of `days` since 1970-01-01: the days are
 * counted from 0000-03-01 in 400-year eras of 146097 days, the year taken
 * to start in March so that the leap day ends it. */
static void civil_date(int64_t days, int64_t *year, int *month, int *day)
{
    int64_t z = days + 719468; /* days from 0000-03-01 */
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;                                       /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  /* [0, 399] */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                /* [0, 365], from March 1 */
    int64_t mp = (5 * doy + 2) / 153;                                     /* [0, 11], March = 0 */
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (*month <= 2);
}

static int put_date(char *buf, size_t cap, int64_t days)
{
    int64_t y;
    int m, d;
    civil_date(days, &y, &m, &d);
    return snprintf(buf, cap, "%04" PRId64 "-%02d-%02d", y, m, d);
}

/* Floor division and its non-negative remainder. */
static int64_t floor_div(int64_t a, int64_t b, int64_t *rem)
{
    int64_t q = a / b, r = a % b;
    if (r < 0) {
        q--;
        r += b;
    }
    *rem = r;
    return q;
}

void pq_int96_range_message(char *buf, size_t cap, const uint8_t *p, int unit)
{
    static const struct {
        int64_t per_day;
        const char *name, *coarser;
    } units[] = {
        [PQ_UNIT_SECONDS] = {86400, "s", NULL},
        [PQ_UNIT_MILLIS] = {86400000, "ms", "s"},
        [PQ_UNIT_MICROS] = {86400000000ll, "us", "ms"},
        [PQ_UNIT_NANOS] = {NANOS_PER_DAY, "ns", "us"},
    };
    if (unit != PQ_UNIT_SECONDS && unit != PQ_UNIT_MILLIS && unit != PQ_UNIT_MICROS) unit = PQ_UNIT_NANOS;
    /* The value: its day, moved by whole days of nanoseconds outside [0, a day). */
    int64_t nanos = (int64_t)load_u64(p), rem;
    int64_t days = (int64_t)load_u32(p + 8) - JULIAN_EPOCH_DAY + floor_div(nanos, NANOS_PER_DAY, &rem);
    char value[96], lo[32], hi[32];
    int n = put_date(value, sizeof value, days);
    int64_t secs = rem / 1000000000, frac = rem % 1000000000;
    if (n > 0 && (size_t)n < sizeof value) {
        n += snprintf(value + n, sizeof value - (size_t)n, " %02d:%02d:%02d", (int)(secs / 3600),
                      (int)(secs / 60 % 60), (int)(secs % 60));
        if (frac && (size_t)n < sizeof value)
            snprintf(value + n, sizeof value - (size_t)n, ".%09" PRId64, frac);
    }
    /* The unit's range: the days of int64's least and greatest values. */
    int64_t r;
    put_date(lo, sizeof lo, floor_div(INT64_MIN, units[unit].per_day, &r));
    put_date(hi, sizeof hi, floor_div(INT64_MAX, units[unit].per_day, &r));
    n = snprintf(buf, cap, "INT96 timestamp %s is outside the range of timestamp[%s] (%s .. %s)", value,
                 units[unit].name, lo, hi);
    if (units[unit].coarser && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "; read it with int96_unit=%s", units[unit].coarser);
}
