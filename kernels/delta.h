/*
 * delta.h — DELTA_BINARY_PACKED (int32, int64), DELTA_LENGTH_BYTE_ARRAY and
 * DELTA_BYTE_ARRAY.
 *
 * DELTA_BINARY_PACKED: a header of ULEB128 varints <block size> <miniblocks
 * per block> <total value count> and a zigzag varint <first value>, then
 * blocks: <min delta, zigzag varint> <one bit-width byte per miniblock>
 * <miniblocks, LSB-first packed deltas>. Value i+1 = value i + min delta +
 * delta, wrapping in two's complement (int32 modulo 2^32, int64 modulo 2^64).
 * The block size is a multiple of 128 and the values per miniblock a
 * multiple of 32. The last needed miniblock is present in full (padding
 * included), as Arrow also requires; bit widths of miniblocks past the last
 * value are ignored, as the spec says readers must.
 *
 * Every decoder decodes all the values the encoded data holds, up to a
 * declared maximum `cap` (the page's value count): more is
 * PQ_ERR_CORRUPT_DATA. It returns the count in *n; the caller compares it
 * with the non-null count it expects. *consumed is the number of bytes the
 * encoding took (the next section starts there).
 *
 * Byte-array outputs are Arrow-style: offsets[0] = base and offsets[i+1] =
 * offsets[i] + length of value i, so pages can be appended to one array; an
 * end offset above INT32_MAX is PQ_ERR_UNSUPPORTED.
 */
#ifndef PQ_KERNELS_DELTA_H
#define PQ_KERNELS_DELTA_H

#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

typedef struct pq_delta_header {
    uint32_t block_size;      /* values per block: a multiple of 128 */
    uint32_t miniblocks;      /* per block; block_size / miniblocks is a multiple of 32 */
    uint64_t total;           /* values encoded */
    uint64_t first;           /* first value (two's complement bits) */
    size_t header_bytes;
} pq_delta_header;

/* Reads and checks the header only (e.g. to size an allocation by total). */
pq_status pq_delta_read_header(const uint8_t *src, size_t len, pq_delta_header *h, pq_error *err);

/* DELTA_BINARY_PACKED into int32 or int64, miniblock bit widths 0..64 for
 * both: int32 output keeps the low 32 bits of the modular sums (DuckDB 2.0
 * writes widths above 32 for 32-bit columns). out has room for cap values. */
pq_status pq_delta_decode_i32(const uint8_t *src, size_t len, int32_t *out, size_t cap, size_t *n,
                              size_t *consumed, pq_error *err);
pq_status pq_delta_decode_i64(const uint8_t *src, size_t len, int64_t *out, size_t cap, size_t *n,
                              size_t *consumed, pq_error *err);

/* DELTA_LENGTH_BYTE_ARRAY: lengths (DELTA_BINARY_PACKED int32), then the
 * values back to back. offsets has room for cap + 1 entries. The values stay
 * in the input: *data points at the first one and *data_len is their total
 * size (copy them or point at them). Negative lengths and lengths past the
 * end of the input are PQ_ERR_CORRUPT_DATA. */
pq_status pq_delta_length_byte_array(const uint8_t *src, size_t len, size_t cap, int32_t *offsets, int32_t base,
                                     size_t *n, const uint8_t **data, size_t *data_len, size_t *consumed,
                                     pq_error *err);

/* DELTA_BYTE_ARRAY: prefix lengths (DELTA_BINARY_PACKED int32), then the
 * suffixes (DELTA_LENGTH_BYTE_ARRAY); value i = the first prefix[i] bytes of
 * value i-1, then suffix i. A prefix longer than the previous value (or
 * nonzero for the first one), a negative length, or differing prefix and
 * suffix counts are PQ_ERR_CORRUPT_DATA.
 *
 * Values are written to data (data_cap bytes). Prefixes let a small page
 * expand a lot, so size first: with data == NULL nothing is copied and
 * *data_len gets the size needed; then call again with a buffer. scratch
 * holds cap int32 (the prefix lengths); offsets cap + 1 entries. */
pq_status pq_delta_byte_array(const uint8_t *src, size_t len, size_t cap, int32_t *scratch, int32_t *offsets,
                              int32_t base, uint8_t *data, size_t data_cap, size_t *n, size_t *data_len,
                              size_t *consumed, pq_error *err);

#endif
