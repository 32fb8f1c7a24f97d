/*
 * plain.h — the PLAIN encoding for every physical type.
 *
 * Fixed-width types (INT32 4, INT64 8, FLOAT 4, DOUBLE 8, INT96 12, FLBA its
 * type_length) are little-endian values back to back: pq_plain_fixed copies
 * them (pqstep's hosts are little-endian, as Arrow's memory format is).
 * BOOLEAN is bit-packed, LSB first. BYTE_ARRAY is, per value, a 4-byte
 * little-endian length and the bytes; it comes out Arrow-style as offsets
 * (offsets[0] = base, offsets[i+1] = offsets[i] + length i) and data.
 *
 * Each decoder reads exactly n values (the caller knows n: the page's
 * non-null count); fewer present is PQ_ERR_CORRUPT_DATA. *consumed gets the
 * bytes used, so trailing bytes are the caller's business.
 */
#ifndef PQ_KERNELS_PLAIN_H
#define PQ_KERNELS_PLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel_error.h"
#include "kernels/primitives.h"
#include "pq_error.h"

/* n values of width bytes each (width >= 1) into out (n * width bytes). */
pq_status pq_plain_fixed(const uint8_t *src, size_t len, size_t width, size_t n, void *out, size_t *consumed,
                         pq_error *err);

/* n INT32 (w 4) or INT64 (w 8) values at src, each sign-extended into a
 * slot of ow bytes (ow >= w) at dst: the little-endian two's complement
 * that Arrow's decimal128 (ow 16) and decimal256 (ow 32) hold. Written from
 * the last value back, so dst may be src itself (widened in place). */
void pq_ints_sign_extend(uint8_t *dst, size_t ow, const uint8_t *src, size_t w, size_t n);
/* The same a value at a time, on any CPU (tests compare the two; decimal128
 * takes eight values a step where the CPU has AVX-512). */
void pq_ints_sign_extend_portable(uint8_t *dst, size_t ow, const uint8_t *src, size_t w, size_t n);

/* The values of up to 64 rows of `width` bytes each at src whose bit is
 * set in `bits` (bit j for value j), copied back to back to dst; returns
 * the count. src holds a value for every row up to the highest set bit
 * (none past it is read), dst room for the count (nothing past it is
 * written). A selection of every other row or so copies runs of one or two
 * values; this picks them by the mask, four to sixteen a step for widths
 * 4, 8 and 16 (AVX-512 where the CPU has it), value by value otherwise. */
size_t pq_plain_select64(const uint8_t *src, size_t width, uint64_t bits, uint8_t *dst);
/* The same value by value, on any CPU (tests compare the two). */
size_t pq_plain_select64_portable(const uint8_t *src, size_t width, uint64_t bits, uint8_t *dst);

/* n booleans starting at bit first_bit of src, one byte (0 or 1) each into
 * out. A page decoded in several batches passes the bits already used as
 * first_bit. *consumed gets the bytes touched: ceil((first_bit + n) / 8). */
pq_status pq_plain_boolean(const uint8_t *src, size_t len, uint64_t first_bit, size_t n, uint8_t *out,
                           size_t *consumed, pq_error *err);

/* n byte arrays. offsets has room for n + 1 entries; offsets[1..n] are
 * written, offsets[0] is the caller's and must hold base (so that pages
 * decoded side by side into one array never write the same entry). The
 * data never exceeds
 * len - 4 * n bytes, so a buffer of len bytes always suffices; with data ==
 * NULL nothing is copied and *data_len still gets the size. A negative
 * length or one past the end is PQ_ERR_CORRUPT_DATA; an end offset above
 * INT32_MAX is PQ_ERR_UNSUPPORTED. */
pq_status pq_plain_byte_array(const uint8_t *src, size_t len, size_t n, int32_t *offsets, int32_t base,
                              uint8_t *data, size_t data_cap, size_t *data_len, size_t *consumed, pq_error *err);

/* One step of a PLAIN BYTE_ARRAY walk: value i of n, its 4-byte length at
 * *pos of [src, src + len). On success *l is its length and *pos its first
 * byte (the value lies inside src); a truncated length, a length above
 * INT32_MAX or a value past the end is PQ_ERR_CORRUPT_DATA, with the
 * message every PLAIN BYTE_ARRAY decoder gives. */
static inline pq_status pq_plain_value_length(const uint8_t *src, size_t len, size_t *pos, size_t i, size_t n,
                                              uint32_t *l, pq_error *err)
{
    if (len - *pos < 4)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "PLAIN BYTE_ARRAY: value %zu of %zu: length truncated at byte %zu",
                        i, n, *pos);
    *l = pq_load_le32(src + *pos);
    *pos += 4;
    if (*l > INT32_MAX)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "PLAIN BYTE_ARRAY: value %zu has negative length %d", i,
                        (int32_t)*l);
    if (*l > len - *pos)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA,
                        "PLAIN BYTE_ARRAY: value %zu of %u bytes at byte %zu runs past the %zu bytes present", i, *l,
                        *pos, len);
    return PQ_OK;
}

#endif
