/*
 * bloom_filter.h — the split-block bloom filter (SBBF) of a column chunk:
 * its BloomFilterHeader and bitset, read from the bytes at
 * ColumnMetaData.bloom_filter_offset, the membership check, and the hashing
 * of values (xxHash64, seed 0, of the value's PLAIN encoding).
 *
 * Reading, with or without ColumnMetaData.bloom_filter_length:
 *   - with the length: fetch exactly those bytes and call
 *     pq_bloom_filter_parse() on them.
 *   - without: fetch a guess (PQ_BLOOM_SPECULATIVE_READ bytes, clamped to the
 *     file), ask pq_bloom_filter_needed() how many bytes header + bitset take,
 *     fetch the rest when the guess was short, then parse.
 *
 * Layout facts (Parquet BloomFilter.md): the bitset is numBytes bytes, a run
 * of 32-byte blocks of eight little-endian 32-bit words. A hash picks block
 * ((hash >> 32) * nblocks) >> 32 and, from its low 32 bits, one bit in each
 * word: bit (low32 * SALT[i]) >> 27 of word i.
 */
#ifndef PQ_METADATA_BLOOM_FILTER_H
#define PQ_METADATA_BLOOM_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

/* Bitset sizes accepted: a power of two in [32 bytes, 128 MiB] (one block;
 * the largest writers produce). */
#define PQ_BLOOM_MIN_BYTES 32u
#define PQ_BLOOM_MAX_BYTES (128u << 20)

/* A BloomFilterHeader longer than this is rejected as corrupt (real ones
 * take 15-20 bytes; the cap bounds what a caller may be asked to fetch). */
#define PQ_BLOOM_HEADER_MAX 1024u

/* A first read that holds the header and a filter of up to 64 KiB. */
#define PQ_BLOOM_SPECULATIVE_READ (64u * 1024u + PQ_BLOOM_HEADER_MAX)

typedef struct pq_bloom_filter {
    uint32_t *words;      /* 8 * nblocks words in host order, malloc'd */
    uint32_t nblocks;     /* num_bytes / 32 */
    uint32_t num_bytes;   /* BloomFilterHeader.numBytes: the bitset's size */
    uint32_t header_len;  /* bytes of the BloomFilterHeader (0 for pq_bloom_filter_init) */
} pq_bloom_filter;

/* How many bytes from bloom_filter_offset hold the header and the bitset.
 * `buf`/`len` are the bytes the caller has from that offset (any amount).
 * PQ_OK: *needed = header_len + numBytes, which may exceed `len` (fetch that
 *   many, then call pq_bloom_filter_parse).
 * PQ_ERR_NEED_DATA: the header itself is cut short; *needed is how many bytes
 *   to fetch before asking again (PQ_BLOOM_HEADER_MAX). A caller that cannot
 *   give more (end of file, or bloom_filter_length reached) calls
 *   pq_bloom_filter_parse, which reports the truncation.
 * PQ_ERR_CORRUPT_DATA / PQ_ERR_UNSUPPORTED: as for pq_bloom_filter_parse. */
pq_status pq_bloom_filter_needed(const uint8_t *buf, size_t len, size_t *needed, pq_error *err);

/* Decode the header and copy the bitset from `buf` (bytes past header +
 * bitset are ignored, so a speculative read can be given whole; compare
 * header_len + num_bytes with bloom_filter_length to check that too).
 * Errors (the message names the field):
 *   PQ_ERR_CORRUPT_DATA  malformed or truncated Thrift, a required field
 *                        missing, a union with no or several members, a
 *                        numBytes that is not a power of two in
 *                        [PQ_BLOOM_MIN_BYTES, PQ_BLOOM_MAX_BYTES], a bitset
 *                        shorter than numBytes, a header over
 *                        PQ_BLOOM_HEADER_MAX bytes;
 *   PQ_ERR_UNSUPPORTED   an algorithm, hash or compression other than
 *                        BLOCK, XXHASH, UNCOMPRESSED;
 *   PQ_ERR_NOMEM.
 * On success free with pq_bloom_filter_free(); on failure *out is zeroed. */
pq_status pq_bloom_filter_parse(const uint8_t *buf, size_t len, pq_bloom_filter *out, pq_error *err);

/* An empty filter of `num_bytes` (a power of two in the accepted range), for
 * building filters (tests, writers). Errors: PQ_ERR_INVALID_ARGUMENT,
 * PQ_ERR_NOMEM. */
pq_status pq_bloom_filter_init(pq_bloom_filter *f, uint32_t num_bytes, pq_error *err);

/* Bitset size the spec's formula gives for `ndv` distinct values at false
 * positive rate `fpp` (bits per value = -8 / ln(1 - fpp^(1/8))), rounded up
 * to a power of two and clamped to the accepted range. */
uint32_t pq_bloom_filter_optimal_bytes(uint64_t ndv, double fpp);

void pq_bloom_filter_free(pq_bloom_filter *f);

/* False: the value whose hash this is was certainly not inserted. */
bool pq_bloom_filter_might_contain(const pq_bloom_filter *f, uint64_t hash);

void pq_bloom_filter_insert(pq_bloom_filter *f, uint64_t hash);

/* ---------------------------------------------------------------------------
 * Hashing: XXH64 with seed 0 of the PLAIN encoding of one value.
 * ------------------------------------------------------------------------- */

uint64_t pq_bloom_hash_bytes(const void *data, size_t len);

/* The PLAIN encodings of the numeric types: little-endian bytes. Floats hash
 * their bit pattern, as writers do: -0.0 and 0.0 (and NaNs with different
 * payloads) hash differently, so a predicate `x = 0.0` must test both zeros,
 * and one on NaN cannot use the filter. */
uint64_t pq_bloom_hash_i32(int32_t v);
uint64_t pq_bloom_hash_i64(int64_t v);
uint64_t pq_bloom_hash_float(float v);
uint64_t pq_bloom_hash_double(double v);

/* Does the spec define bloom hashing for this physical type? Every type but
 * BOOLEAN (whose PLAIN encoding is bit-packed, not per value; writers do not
 * build filters for it, so a reader must not rely on one). */
bool pq_bloom_type_hashable(int32_t physical_type);

/* Hash one value given as its PLAIN bytes without length prefix: INT32 and
 * FLOAT 4 bytes, INT64 and DOUBLE 8, INT96 12, FIXED_LEN_BYTE_ARRAY
 * `type_length` bytes, BYTE_ARRAY any length. Returns false (and leaves *hash
 * alone) for BOOLEAN, an unknown type, or a length that does not fit the
 * type. */
bool pq_bloom_hash_plain(int32_t physical_type, int32_t type_length, const void *value,
                         size_t len, uint64_t *hash);

#endif
