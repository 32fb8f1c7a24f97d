/*
 * byte_stream_split.h — BYTE_STREAM_SPLIT (FLOAT, DOUBLE, INT32, INT64,
 * FLBA of any width).
 *
 * A page of n values of K bytes is K streams of n bytes: stream j holds byte
 * j of every value. Decoding transposes them back into n values of K bytes.
 * n is the page data length / K, which must divide evenly.
 */
#ifndef PQ_KERNELS_BYTE_STREAM_SPLIT_H
#define PQ_KERNELS_BYTE_STREAM_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

/* Values [first, first + count) of the page (len bytes, value width `width`
 * >= 1) into out (count * width bytes). *n_total, when not NULL, gets the
 * number of values in the page (len / width). Errors: width 0, len not a
 * multiple of width, a range past the end (PQ_ERR_CORRUPT_DATA). */
pq_status pq_byte_stream_split(const uint8_t *src, size_t len, size_t width, size_t first, size_t count,
                               uint8_t *out, size_t *n_total, pq_error *err);

#endif
