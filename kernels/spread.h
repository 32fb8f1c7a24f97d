/*
 * spread.h — values and bits moved by a validity or selection bitmap.
 *
 * A column with nulls decodes its n_values non-null values back to back;
 * Arrow wants them in their n slots, a null slot zeroed: spreading. A
 * filter's take keeps the rows whose bit is set: for a validity bitmap that
 * is gathering the kept rows' bits; a page's definition levels give its
 * non-null rows as such bits. Each runs a bitmap byte or word at a time
 * with AVX-512 where the CPU has it (expand; byte compress; compare), and
 * one slot or bit at a time otherwise; the _portable functions are the
 * latter on every CPU (tests compare the two).
 */
#ifndef PQ_KERNELS_SPREAD_H
#define PQ_KERNELS_SPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* buf holds n_values values of ow bytes each, back to back; they move to
 * the n slots whose bit is set in validity (bit i of byte i / 8, LSB
 * first), in order, and every other slot is zeroed. buf has room for n
 * slots; n_values is the count of set bits among the first n. */
void pq_spread_in_place(uint8_t *buf, size_t ow, const uint8_t *validity, size_t n, size_t n_values);
void pq_spread_in_place_portable(uint8_t *buf, size_t ow, const uint8_t *validity, size_t n, size_t n_values);

/* The bits of src whose bit is set in keep, packed from bit 0 in order (a
 * parallel bit extract). */
uint64_t pq_bits_select64(uint64_t src, uint64_t keep);
uint64_t pq_bits_select64_portable(uint64_t src, uint64_t keep);

/* OR the 64 bits of v into bitmap bm from bit j on: the word holding bit
 * j, and the next one when j is not a multiple of 64 (bm has room for it
 * then, even where v's bits end before it). Appends selected bits to a
 * bitmap that starts zeroed. */
static inline void pq_bits_or64(uint8_t *bm, uint64_t j, uint64_t v)
{
    uint64_t lo, hi;
    uint8_t *p = bm + j / 64 * 8;
    unsigned sh = (unsigned)(j % 64);
    memcpy(&lo, p, 8);
    lo |= v << sh;
    memcpy(p, &lo, 8);
    if (sh) {
        memcpy(&hi, p + 8, 8);
        hi |= v >> (64 - sh);
        memcpy(p + 8, &hi, 8);
    }
}

/* Bit j set for each of levels[0, n) (n <= 64) equal to max: a page's
 * non-null rows from its definition levels; *over says whether any level
 * is above max (a corrupt page). */
uint64_t pq_levels_equal64(const uint32_t *levels, size_t n, uint32_t max, bool *over);
uint64_t pq_levels_equal64_portable(const uint32_t *levels, size_t n, uint32_t max, bool *over);

#endif
