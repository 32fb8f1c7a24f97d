/*
 * bitcount.h — set bits of a selection counted on the host, with the CPU's
 * POPCNT instruction where it has one (checked at run time: the build
 * targets plain x86-64, whose __builtin_popcountll is a call into libgcc and
 * pq_popcount64 a dozen instructions). Row selections are counted page by
 * page several times in a filtered read; this was 3% of one.
 */
#ifndef PQ_KERNELS_BITCOUNT_H
#define PQ_KERNELS_BITCOUNT_H

#include <stdint.h>

/* Set bits in the first n bits of `bits` (LSB first in each byte), as
 * pq_bits_set (kernels/primitives.h) counts them. bits may be NULL when n
 * is 0. Thread-safe. */
uint64_t pq_bits_set_fast(const uint8_t *bits, uint64_t n);

#endif
