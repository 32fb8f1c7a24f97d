/*
 * dictionary.h — dictionary gather: indices (from pq_rle_next over a
 * dictionary-encoded page) to values.
 *
 * The dictionary is what PLAIN decoding of the dictionary page produced:
 * dict_n fixed-width entries, or Arrow-style offsets (dict_n + 1, as
 * pq_plain_byte_array writes them, trusted; dict_data holds the byte at
 * offset dict_offsets[0]) and data. An index >= dict_n is
 * PQ_ERR_CORRUPT_DATA naming the position and the index; what was gathered
 * before it is left in the output.
 */
#ifndef PQ_KERNELS_DICTIONARY_H
#define PQ_KERNELS_DICTIONARY_H

#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

/* Keep the indices of idx[0, w) whose bit is set in `bits` (bit j of
 * bits[j / 64] for idx[j]), moved to the front in order, in place; returns
 * the count kept. Bits past w are ignored. Sixteen indices a step (AVX-512
 * where the CPU has it) rather than one set bit at a time: for dense
 * selections, where the set bits are many. */
size_t pq_dict_indices_select(uint32_t *idx, const uint64_t *bits, size_t w);
/* The same one set bit at a time, on any CPU (tests compare the two). */
size_t pq_dict_indices_select_portable(uint32_t *idx, const uint64_t *bits, size_t w);

/* The first i < n with idx[i] >= dict_n, or n when every index is in
 * range: 16 indices a step (SSE2) where the host has it. */
size_t pq_dict_first_out_of_range(const uint32_t *idx, size_t n, size_t dict_n);

/* The bytes of the entries idx[0, n) name, each counted as often as it is
 * named: offsets[idx[i] + 1] - offsets[idx[i]] added up, for indices
 * already checked against the dictionary (pq_dict_first_out_of_range gave
 * n) whose offsets ascend. Sixteen indices a step (AVX-512 gathers) where
 * the CPU has them: a string column's size pass adds up millions. */
uint64_t pq_dict_bytes_checked(const int32_t *offsets, const uint32_t *idx, size_t n);
/* The same one index at a time, on any CPU (tests compare the two). */
uint64_t pq_dict_bytes_checked_portable(const int32_t *offsets, const uint32_t *idx, size_t n);

/* Most entries of a small dictionary a truth table maps (PQ_DICT_BITS_MAX:
 * its bits fit one 256-bit register). */
#define PQ_DICT_BITS_MAX 256

/* Each index's bit of a per-entry bit table, eight indices a byte: bit k
 * of t[i / 8] is bit idx[i + k] of `tbits` (and of f[i / 8], when f is not
 * NULL, that bit of `fbits`), for whole bytes from the start while every
 * index is below dict_n (at most PQ_DICT_BITS_MAX); a byte whose mask
 * byte is 0 (mask not NULL) is skipped, left as it was. tbits and fbits:
 * 8 words, bit j of word j / 32 for entry j. Returns the indices done (a
 * multiple of 8; fewer than n at an index out of range or at the tail,
 * left to the caller): AVX2 where the CPU has it, else 0. */
size_t pq_dict_bits(const uint32_t *idx, size_t n, const uint32_t *tbits, const uint32_t *fbits, size_t dict_n,
                    const uint8_t *mask, uint8_t *t, uint8_t *f);

/* pq_dict_gather_fixed for indices already checked against the dictionary
 * (pq_dict_first_out_of_range gave n): out gets n * width bytes. */
void pq_dict_gather_fixed_checked(const uint8_t *dict, size_t width, const uint32_t *idx, size_t n, uint8_t *out);

/* The same for INT32 (width 4) or INT64 (width 8) entries, each written
 * sign-extended to 16 bytes (decimal128, as pq_ints_sign_extend lays it
 * out): out gets n * 16 bytes. The dictionary stays at its own width, half
 * or a quarter of the cache a widened copy would take. */
void pq_dict_gather_decimal128_checked(const uint8_t *dict, size_t width, const uint32_t *idx, size_t n,
                                       uint8_t *out);

/* out gets n * width bytes: entry idx[i] for each i. */
pq_status pq_dict_gather_fixed(const uint8_t *dict, size_t dict_n, size_t width, const uint32_t *idx, size_t n,
                               uint8_t *out, pq_error *err);

/* Byte arrays: offsets (n + 1 entries; offsets[1..n] written, offsets[0]
 * is the caller's and must hold base, as for pq_plain_byte_array) and data
 * (data_cap bytes). With data == NULL nothing is copied and *data_len gets
 * the size needed (repeated entries can make it large). An end offset above
 * INT32_MAX is PQ_ERR_UNSUPPORTED. */
pq_status pq_dict_gather_binary(const int32_t *dict_offsets, const uint8_t *dict_data, size_t dict_n,
                                const uint32_t *idx, size_t n, int32_t *offsets, int32_t base, uint8_t *data,
                                size_t data_cap, size_t *data_len, pq_error *err);

/* Slack pq_dict_gather_binary_padded needs after the dictionary's data:
 * it copies entries of up to 32 bytes as 32 bytes. */
#define PQ_DICT_COPY_SLACK 32

/* pq_dict_gather_binary for the hot path, when the caller has checked every
 * index against the dictionary: entries are copied 16 or 32 bytes at a time
 * (by the longest entry, max_len: one or two vector moves, no call, no
 * branch on the length) while `room` has that many bytes past the current
 * end, exactly after that. The dictionary data must be readable
 * PQ_DICT_COPY_SLACK bytes past its end; the bytes past each entry in
 * `data` are scratch until the next entry, and nothing is written at or
 * past data + room. Returns the bytes written, -1 when an end offset would
 * pass INT32_MAX, -2 when the entries do not fit in `room` (nothing to
 * trust in offsets after either). */
int64_t pq_dict_gather_binary_padded(const int32_t *dict_offsets, const uint8_t *dict_data, size_t max_len,
                                     const uint32_t *idx, size_t n, int32_t *offsets, int32_t base,
                                     uint8_t *data, size_t room);

#endif
