/*
 * int96.h — INT96 timestamps (the legacy Impala / Spark layout: 8 bytes of
 * nanoseconds of the day, then 4 bytes of the Julian day, little-endian)
 * into Arrow int64 timestamps of a unit, with the range check that keeps a
 * value that does not fit from wrapping into a wrong date.
 *
 * A value is (day - 2440588) days since 1970-01-01 plus the nanoseconds of
 * the day (read as a signed int64, the day as unsigned, as Arrow reads
 * them). In a unit coarser than nanoseconds the value is the start of the
 * unit the instant falls in (the nanoseconds divided toward negative
 * infinity): for a well-formed value (nanoseconds of the day in [0,
 * 86400e9)) what Arrow's int96 unit coercion, arrow-rs and DuckDB give
 * (they truncate toward zero, which differs only for negative nanoseconds
 * of the day, and Arrow reads those unsigned).
 */
#ifndef PQ_READER_INT96_H
#define PQ_READER_INT96_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Convert the n 12-byte INT96 values at src into n int64 (little-endian) at
 * dst, in `unit` (pq_time_unit: PQ_UNIT_SECONDS, _MILLIS, _MICROS or
 * _NANOS). Returns n when every value fits an int64 in that unit, else the
 * index of the first that does not (what dst holds is then unspecified). */
size_t pq_int96_convert(uint8_t *dst, const uint8_t *src, size_t n, int unit);

/* Value p (12 bytes) in `unit` into *out: false when it does not fit. */
bool pq_int96_value(const uint8_t *p, int unit, int64_t *out);

/* The message for INT96 value p (12 bytes) that does not fit `unit`:
 * "INT96 timestamp 1500-01-01 00:00:00 is outside the range of
 * timestamp[ns] (1677-09-21 .. 2262-04-11); read it with int96_unit=us". */
void pq_int96_range_message(char *buf, size_t cap, const uint8_t *p, int unit);

#endif
