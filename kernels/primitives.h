/*
 * primitives.h — per-value decoding primitives shared by the CPU decoders
 * (the .c files of kernels/) and the device kernels (kernels/k_*.h).
 *
 * Everything here is a small `PQ_HD static inline` function with no libc
 * call except memcpy and memset, so a __global__ kernel can call it as is. None of them
 * checks bounds: each states how many input bytes it reads, and the caller
 * (rle.c, delta.c, ...) checks those against the buffer first.
 *
 * Bit order: the RLE/bit-packed hybrid and DELTA_BINARY_PACKED pack values
 * LSB first (value 0 in the low bits of byte 0); the deprecated BIT_PACKED
 * level encoding packs MSB first. Multi-byte values are little-endian and are
 * assembled byte by byte, so any alignment and any host order works.
 */
#ifndef PQ_KERNELS_PRIMITIVES_H
#define PQ_KERNELS_PRIMITIVES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define PQ_HD __host__ __device__
#else
#define PQ_HD
#endif

/* ---- Bit counts ---------------------------------------------------------- */

/* Set bits of x, in a few arithmetic steps: __builtin_popcountll without
 * -mpopcnt is a call into libgcc, which measured 6% of a filtered read's
 * time (counting selection bits per column chunk). */
PQ_HD static inline unsigned pq_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* Set bits in the first n bits of `bits` (LSB first in each byte). */
PQ_HD static inline uint64_t pq_bits_set(const uint8_t *bits, uint64_t n)
{
    uint64_t set = 0, i = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t w;
        memcpy(&w, bits + i / 8, 8);
        set += pq_popcount64(w);
    }
    for (; i + 8 <= n; i += 8) set += pq_popcount64(bits[i / 8]);
    if (i < n) set += pq_popcount64(bits[i / 8] & ((1u << (n - i)) - 1u));
    return set;
}

/* ---- Little-endian loads ------------------------------------------------ */

PQ_HD static inline uint32_t pq_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Reads nbytes (0..8) bytes as a little-endian unsigned integer. */
PQ_HD static inline uint64_t pq_load_le_n(const uint8_t *p, int nbytes)
{
    uint64_t v = 0;
    for (int i = 0; i < nbytes; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* ---- Varints ------------------------------------------------------------ */

/* ULEB128 from at most `avail` bytes. Returns the bytes used, or 0 when the
 * varint is truncated or does not fit in 64 bits (over 10 bytes, or a 10th
 * byte above 1). */
PQ_HD static inline size_t pq_uleb128(const uint8_t *p, size_t avail, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < avail && i < 10; i++) {
        uint64_t b = p[i];
        if (i == 9 && b > 1) return 0;
        v |= (b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

/* Zigzag decode, returning the two's complement bits of the signed value. */
PQ_HD static inline uint64_t pq_unzigzag64(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

/* ---- Bit unpacking (LSB first) ------------------------------------------ */

PQ_HD static inline uint64_t pq_mask64(int bit_width)
{
    return bit_width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bit_width) - 1);
}

/* The bit_width-bit value (0..64) starting at bit `bitpos` of `in`. Reads
 * exactly the bytes that hold bits [bitpos, bitpos + bit_width). The slow,
 * general path: used for partial groups and single values. */
PQ_HD static inline uint64_t pq_bits_at(const uint8_t *in, uint64_t bitpos, int bit_width)
{
    if (bit_width == 0) return 0;
    const uint8_t *p = in + (bitpos >> 3);
    int shift = (int)(bitpos & 7);
    uint64_t v = (uint64_t)(*p++) >> shift;
    int got = 8 - shift;
    while (got < bit_width) {
        v |= (uint64_t)(*p++) << got;
        got += 8;
    }
    return v & pq_mask64(bit_width);
}

/* Unpacks one group of 8 values of bit_width 0..32 bits. Reads exactly
 * bit_width bytes (8 values * bit_width bits). */
PQ_HD static inline void pq_unpack8_u32(const uint8_t *in, int bit_width, uint32_t out[8])
{
    uint64_t acc = 0; /* holds at most bit_width + 7 <= 39 bits */
    int have = 0;
    uint64_t mask = pq_mask64(bit_width);
    for (int i = 0; i < 8; i++) {
        while (have < bit_width) {
            acc |= (uint64_t)(*in++) << have;
            have += 8;
        }
        out[i] = (uint32_t)(acc & mask);
        acc >>= bit_width;
        have -= bit_width;
    }
}

/* Bytes pq_unpack8_u32_wide may read from `in` for a group of width bw:
 * 8-byte loads at each value's first byte. */
#define PQ_UNPACK8_SLACK(bw) ((size_t)(7 * (bw)) / 8 + 8)

/* pq_unpack8_u32 on `groups` consecutive groups of 8 (bit_width bytes
 * each), with one 8-byte little-endian load per value and the width a
 * constant in each case (switched on once for the run), so every value is
 * a shift and a mask. Reads (groups - 1) * bit_width +
 * PQ_UNPACK8_SLACK(bit_width) bytes (more than the groups' bytes): callers
 * use it where the input has that many, the plain version near the end.
 * bit_width 1..32. */
#define PQ_UNPACKN_CASE(BW)                                                                        \
    case BW:                                                                                       \
        for (size_t g = 0; g < groups; g++, in += BW, out += 8)                                    \
            for (int i = 0; i < 8; i++) {                                                          \
                uint64_t w;                                                                        \
                memcpy(&w, in + (i * BW) / 8, 8);                                                  \
                out[i] = (uint32_t)((w >> ((i * BW) & 7)) & ((1ull << BW) - 1));                   \
            }                                                                                      \
        return

PQ_HD static inline void pq_unpack_groups_u32_wide(const uint8_t *in, int bit_width, uint32_t *out, size_t groups)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    switch (bit_width) {
        PQ_UNPACKN_CASE(1); PQ_UNPACKN_CASE(2); PQ_UNPACKN_CASE(3); PQ_UNPACKN_CASE(4);
        PQ_UNPACKN_CASE(5); PQ_UNPACKN_CASE(6); PQ_UNPACKN_CASE(7); PQ_UNPACKN_CASE(8);
        PQ_UNPACKN_CASE(9); PQ_UNPACKN_CASE(10); PQ_UNPACKN_CASE(11); PQ_UNPACKN_CASE(12);
        PQ_UNPACKN_CASE(13); PQ_UNPACKN_CASE(14); PQ_UNPACKN_CASE(15); PQ_UNPACKN_CASE(16);
        PQ_UNPACKN_CASE(17); PQ_UNPACKN_CASE(18); PQ_UNPACKN_CASE(19); PQ_UNPACKN_CASE(20);
        PQ_UNPACKN_CASE(21); PQ_UNPACKN_CASE(22); PQ_UNPACKN_CASE(23); PQ_UNPACKN_CASE(24);
        PQ_UNPACKN_CASE(25); PQ_UNPACKN_CASE(26); PQ_UNPACKN_CASE(27); PQ_UNPACKN_CASE(28);
        PQ_UNPACKN_CASE(29); PQ_UNPACKN_CASE(30); PQ_UNPACKN_CASE(31); PQ_UNPACKN_CASE(32);
    default: break;
    }
#endif
    for (size_t g = 0; g < groups; g++) pq_unpack8_u32(in + g * (size_t)bit_width, bit_width, out + 8 * g);
}
#undef PQ_UNPACKN_CASE

/* One group of pq_unpack_groups_u32_wide. */
PQ_HD static inline void pq_unpack8_u32_wide(const uint8_t *in, int bit_width, uint32_t out[8])
{
    pq_unpack_groups_u32_wide(in, bit_width, out, 1);
}

/* Same for bit_width 0..64 (DELTA_BINARY_PACKED). Reads bit_width bytes. */
PQ_HD static inline void pq_unpack8_u64(const uint8_t *in, int bit_width, uint64_t out[8])
{
    if (bit_width > 56) { /* the accumulator below would need > 64 bits */
        for (int i = 0; i < 8; i++) out[i] = pq_bits_at(in, (uint64_t)i * (uint64_t)bit_width, bit_width);
        return;
    }
    uint64_t acc = 0;
    int have = 0;
    uint64_t mask = pq_mask64(bit_width);
    for (int i = 0; i < 8; i++) {
        while (have < bit_width) {
            acc |= (uint64_t)(*in++) << have;
            have += 8;
        }
        out[i] = acc & mask;
        acc >>= bit_width; /* bit_width <= 56 here: a defined shift */
        have -= bit_width;
    }
}

/* ---- Deprecated BIT_PACKED levels (MSB first) ---------------------------- */

/* The bit_width-bit value (0..32) at bit `bitpos`, bits taken from the most
 * significant end of each byte. Reads the bytes holding those bits. */
PQ_HD static inline uint32_t pq_bits_at_msb(const uint8_t *in, uint64_t bitpos, int bit_width)
{
    uint32_t v = 0;
    for (int b = 0; b < bit_width; b++) {
        uint64_t bit = bitpos + (uint64_t)b;
        v = (v << 1) | (uint32_t)((in[bit >> 3] >> (7 - (bit & 7))) & 1);
    }
    return v;
}

/* ---- RLE runs ----------------------------------------------------------- */

/* Writes n copies of v: the body of an RLE run. */
PQ_HD static inline void pq_fill_u32(uint32_t *out, size_t n, uint32_t v)
{
    for (size_t i = 0; i < n; i++) out[i] = v;
}

/* ---- BOOLEAN (PLAIN: bit-packed, LSB first) ----------------------------- */

PQ_HD static inline uint8_t pq_bit_at(const uint8_t *bits, uint64_t i)
{
    return (uint8_t)((bits[i >> 3] >> (i & 7)) & 1);
}

/* ---- DELTA_BINARY_PACKED miniblocks ------------------------------------- */

/* Turns 8 unpacked deltas into 8 values: value = prev + min_delta + delta,
 * all modulo 2^64 (the spec's two's complement wraparound; int32 columns
 * take the low 32 bits, which is the same as wrapping modulo 2^32).
 * Returns the last value, the `prev` of the next group. */
PQ_HD static inline uint64_t pq_delta_apply8(const uint64_t delta[8], uint64_t min_delta, uint64_t prev,
                                             uint64_t out[8])
{
    for (int i = 0; i < 8; i++) {
        prev += min_delta + delta[i];
        out[i] = prev;
    }
    return prev;
}

/* ---- BYTE_STREAM_SPLIT -------------------------------------------------- */

/* Value i of n from `width` streams of n bytes each: byte j of the value is
 * byte i of stream j. Reads src[j * n + i] for j < width. */
PQ_HD static inline void pq_bss_gather(const uint8_t *src, size_t n, size_t width, size_t i, uint8_t *out)
{
    for (size_t j = 0; j < width; j++) out[j] = src[j * n + i];
}

/* ---- Dictionary gather -------------------------------------------------- */

/* Copies entry idx of a dictionary of dict_n fixed-width entries to out.
 * Returns 0 (and writes nothing) when idx is out of range. */
PQ_HD static inline int pq_dict_get_fixed(const uint8_t *dict, uint32_t dict_n, size_t width, uint32_t idx,
                                          uint8_t *out)
{
    if (idx >= dict_n) return 0;
    memcpy(out, dict + (size_t)idx * width, width);
    return 1;
}

/* ---- Arrow string views ------------------------------------------------ */

/* The 16-byte Arrow view (string_view / binary_view) of the len bytes at
 * p, which lie at `offset` in variadic buffer `buf`: the length, then the
 * bytes inline (zero-padded) up to 12 of them, else their first 4 bytes,
 * the buffer and the offset. Reads min(len, 12) bytes of p (4 when longer). */
PQ_HD static inline void pq_view_make(uint8_t *w, const uint8_t *p, size_t len, uint32_t buf, uint32_t offset)
{
    uint32_t l = (uint32_t)len;
    memcpy(w, &l, 4);
    if (len <= 12) {
        memset(w + 4, 0, 12);
        if (len) memcpy(w + 4, p, len);
        return;
    }
    memcpy(w + 4, p, 4);
    memcpy(w + 8, &buf, 4);
    memcpy(w + 12, &offset, 4);
}

#endif /* PQ_KERNELS_PRIMITIVES_H */
