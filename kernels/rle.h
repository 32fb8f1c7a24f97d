/*
 * rle.h — the RLE/bit-packed hybrid decoder (levels, dictionary indices,
 * RLE booleans) and the deprecated BIT_PACKED level decoder.
 *
 * The hybrid stream is a sequence of runs, each starting with a ULEB128
 * header h: h & 1 == 0 is an RLE run of h >> 1 copies of one value stored in
 * ceil(bit_width / 8) little-endian bytes; h & 1 == 1 is a bit-packed run of
 * (h >> 1) groups of 8 values, bit_width bytes per group, LSB first.
 *
 * A decoder is a small value struct over (src, len) with no allocation: init
 * it, then call pq_rle_next as often as you like with any batch size; a run
 * that crosses a batch boundary resumes where it stopped.
 *
 * Leniency, as other readers do it: a bit-packed run cut short by the end of
 * the buffer yields the whole values that are present (writers may omit the
 * padding of the last group). Values are returned as stored (an RLE value is
 * not masked to bit_width); callers check them against the maximum level or
 * the dictionary size. Bit width 0 means every value is 0: such a decoder
 * returns zeros without reading its input, for any count.
 */
#ifndef PQ_KERNELS_RLE_H
#define PQ_KERNELS_RLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

typedef struct pq_rle_decoder {
    const uint8_t *src;
    size_t len;
    size_t pos;            /* next run header */
    int bit_width;         /* 0..32 */
    uint32_t repeat_left;  /* values left in the current RLE run */
    uint32_t repeat_value;
    const uint8_t *lit;    /* data of the current bit-packed run */
    uint32_t lit_index;    /* values of it already returned */
    uint32_t lit_count;    /* values it holds (present in the buffer) */
    uint32_t max_out;      /* the largest value pq_rle_next has returned (0 before any):
                            * below a dictionary's size, no value so far needs checking */
} pq_rle_decoder;

/* Peek at the run the decoder is about to read (nothing consumed): true,
 * with its value and length, when it is a repeated-value run; false for a
 * bit-packed run, a run already started, or the end. Lets a caller see that
 * a page's levels are all one value without expanding them. */
bool pq_rle_leading_run(const pq_rle_decoder *d, uint32_t *value, uint64_t *count);

/* A decoder over len bytes of runs. bit_width must be 0..32
 * (PQ_ERR_CORRUPT_DATA otherwise). */
pq_status pq_rle_init(pq_rle_decoder *d, const uint8_t *src, size_t len, int bit_width, pq_error *err);

/* Data page v1 levels (and RLE-encoded BOOLEAN data): a 4-byte little-endian
 * length, then that many bytes of runs. *consumed gets 4 + length: where the
 * next section of the page starts. */
pq_status pq_rle_init_prefixed(pq_rle_decoder *d, const uint8_t *src, size_t len, int bit_width,
                               size_t *consumed, pq_error *err);

/* Data page v2 levels: the length comes from the page header, so this is
 * pq_rle_init over exactly those bytes. */
pq_status pq_rle_init_levels_v2(pq_rle_decoder *d, const uint8_t *src, size_t len, int bit_width,
                                pq_error *err);

/* RLE_DICTIONARY / PLAIN_DICTIONARY data pages: one byte of bit width
 * (0..32), then runs to the end of the page. */
pq_status pq_rle_init_dict_indices(pq_rle_decoder *d, const uint8_t *src, size_t len, pq_error *err);

/* Decodes up to n values into out. *got < n only when the runs are used up
 * (the caller decides whether that is an error: it knows how many values the
 * page holds). A malformed run (zero or overlong count, truncated header or
 * RLE value) is PQ_ERR_CORRUPT_DATA; *got then counts the values written. */
pq_status pq_rle_next(pq_rle_decoder *d, uint32_t *out, size_t n, size_t *got, pq_error *err);

/* Like pq_rle_next but discards the values (skipping rows). */
pq_status pq_rle_skip(pq_rle_decoder *d, size_t n, size_t *skipped, pq_error *err);

/* Reads the next n values (n <= 64 * the words of `bits`) and keeps only
 * those whose bit is set in `bits` (bit j of word j / 64 for value j),
 * packed in order into out (room for as many as bits has set). A selected
 * value costs one extraction from its bit-packed run, an unselected one
 * nothing: a sparse selection reads far less than pq_rle_next. *consumed
 * counts the values read (< n only when the runs are used up), *picked those
 * written. Errors as pq_rle_next. */
pq_status pq_rle_pick(pq_rle_decoder *d, const uint64_t *bits, size_t n, uint32_t *out, size_t *consumed,
                      size_t *picked, pq_error *err);

/* Deprecated BIT_PACKED levels: n values of bit_width (0..32) bits packed MSB
 * first, no header, ceil(n * bit_width / 8) bytes, all of which must be
 * present. *consumed gets that byte count. */
pq_status pq_bit_packed_levels(const uint8_t *src, size_t len, int bit_width, size_t n, uint32_t *out,
                               size_t *consumed, pq_error *err);

#endif
