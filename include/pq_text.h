/*
 * pq_text.h — values as text, the way pqstep prints them (`pqstep meta`
 * statistics, `pqstep cat`): dates, times, timestamps and decimals, exactly.
 *
 * Every function follows snprintf's contract: it writes at most `cap` bytes
 * into `buf`, always NUL-terminated when cap > 0, and returns the length the
 * whole text needs (without the NUL), so a caller can size a second try.
 * `buf` may be NULL when cap is 0. None allocates; all are thread-safe.
 */
#ifndef PQ_TEXT_H
#define PQ_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Days since 1970-01-01 as a proleptic Gregorian date, YYYY-MM-DD; years
 * outside 0000..9999 get a sign ("-0001-12-31", "+10000-01-01"). */
PQ_API size_t pq_format_date(int64_t days, char *buf, size_t cap);

/* A time of day of `ticks` units of 10^-digits seconds (digits 0, 3, 6 or 9):
 * HH:MM:SS, then "." and `digits` digits when digits > 0. Values past a day
 * keep counting hours; a negative value gets a '-' in front of its
 * magnitude. Other digit counts write nothing and return 0. */
PQ_API size_t pq_format_time(int64_t ticks, int digits, char *buf, size_t cap);

/* A timestamp of `ticks` units of 10^-digits seconds since the epoch:
 * YYYY-MM-DDTHH:MM:SS[.fraction], with a trailing 'Z' when `utc`. Before
 * 1970 the date counts back and the clock stays positive
 * (-1 s = 1969-12-31T23:59:59). Other digit counts write nothing, return 0. */
PQ_API size_t pq_format_timestamp(int64_t ticks, int digits, bool utc, char *buf, size_t cap);

/* Floating-point values as the shortest text that reads back to the same
 * value (with strtod / strtof / to the nearest binary16), in plain notation
 * when the decimal exponent is 0..15 ("100", "65504", "0.1", "1e-05",
 * "1e+16"), as Python's repr writes them; "nan", "inf", "-inf". float16
 * takes the IEEE 754 binary16 bits. At most 32 bytes. */
PQ_API size_t pq_format_double(double v, char *buf, size_t cap);
PQ_API size_t pq_format_float(float v, char *buf, size_t cap);
PQ_API size_t pq_format_float16(uint16_t bits, char *buf, size_t cap);

/* A decimal held as `n` bytes (1..64) of big-endian two's complement (the
 * Parquet form), exactly: the decimal point `scale` digits from the right
 * ("-1.05", "0.001", "12"); a negative scale appends zeros ("1200" for 12
 * with scale -2); a scale beyond +-255 is written with an exponent
 * ("5E-300", "5E+300"). At most 420 bytes. n outside 1..64 writes nothing
 * and returns 0. */
#define PQ_FORMAT_DECIMAL_MAX 424 /* bytes that always hold pq_format_decimal's text and NUL */
PQ_API size_t pq_format_decimal(const uint8_t *be, size_t n, int32_t scale, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* PQ_TEXT_H */
