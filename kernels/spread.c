/* spread.c — see spread.h. */
#include "kernels/spread.h"

#include <string.h>

void pq_spread_in_place_portable(uint8_t *buf, size_t ow, const uint8_t *validity, size_t n, size_t n_values)
{
    size_t j = n_values;
    size_t i = n;
    while (i > 0) {
        size_t start = (i - 1) & ~(size_t)7; /* first slot of this bitmap byte */
        uint8_t bits = validity[start >> 3];
        size_t count = i - start;
        if (count == 8 && bits == 0xff) {
            j -= 8;
            if (j != start) memmove(buf + start * ow, buf + j * ow, 8 * ow);
        } else if (count == 8 && bits == 0) {
            memset(buf + start * ow, 0, 8 * ow);
        } else {
            for (size_t k = i; k-- > start;) {
                uint8_t *dst = buf + k * ow;
                if ((bits >> (k & 7)) & 1) {
                    j--;
                    if (j != k) memmove(dst, buf + j * ow, ow);
                } else {
                    memset(dst, 0, ow);
                }
            }
        }
        i = start;
    }
}

uint64_t pq_bits_select64_portable(uint64_t src, uint64_t keep)
{
    uint64_t out = 0;
    unsigned k = 0;
    for (uint64_t b = keep; b; b &= b - 1, k++) out |= ((src >> __builtin_ctzll(b)) & 1) << k;
    return out;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* From the last bitmap byte back, as the portable loop: a byte's values are
 * the pop values before those already placed; a masked load reads just them
 * (all below the slots not yet written, so in place is safe), an expand
 * puts them at the byte's set bits and zeroes the rest, and a masked store
 * writes the byte's slots alone. 16-byte values take 4 slots a step, each
 * slot two 64-bit lanes. */
__attribute__((target("avx512f,avx512vl,popcnt"))) static void spread_avx512(uint8_t *buf, size_t ow,
                                                                           const uint8_t *validity, size_t n,
                                                                           size_t n_values)
{
    size_t j = n_values, i = n;
    while (i > 0) {
        size_t start = (i - 1) & ~(size_t)7, count = i - start;
        unsigned bits = validity[start >> 3] & ((1u << count) - 1);
        if (ow == 8) {
            unsigned pop = (unsigned)__builtin_popcount(bits);
            j -= pop;
            __m512i v = _mm512_maskz_loadu_epi64((__mmask8)((1u << pop) - 1), buf + j * 8);
            _mm512_mask_storeu_epi64(buf + start * 8, (__mmask8)((1u << count) - 1),
                                     _mm512_maskz_expand_epi64((__mmask8)bits, v));
        } else if (ow == 4) {
            unsigned pop = (unsigned)__builtin_popcount(bits);
            j -= pop;
            __m256i v = _mm256_maskz_loadu_epi32((__mmask8)((1u << pop) - 1), buf + j * 4);
            _mm256_mask_storeu_epi32(buf + start * 4, (__mmask8)((1u << count) - 1),
                                     _mm256_maskz_expand_epi32((__mmask8)bits, v));
        } else { /* 16: the byte's upper four slots, then its lower four */
            for (int half = 1; half >= 0; half--) {
                size_t s0 = start + 4 * (size_t)half;
                if (s0 >= i) continue;
                size_t c = i - s0 < 4 ? i - s0 : 4;
                unsigned r = (bits >> (4 * half)) & 15, pop = (unsigned)__builtin_popcount(r);
                unsigned lanes = (r & 1) * 3 | (r & 2) * 6 | (r & 4) * 12 | (r & 8) * 24;
                j -= pop;
                __m512i v = _mm512_maskz_loadu_epi64((__mmask8)((1u << (2 * pop)) - 1), buf + j * 16);
                _mm512_mask_storeu_epi64(buf + s0 * 16, (__mmask8)((1u << (2 * c)) - 1),
                                         _mm512_maskz_expand_epi64((__mmask8)lanes, v));
            }
        }
        i = start;
    }
}

/* Each src bit a byte (0 or 0xff), the kept bytes compressed to the front,
 * their top bits gathered: lanes past the kept count are zero. */
__attribute__((target("avx512f,avx512bw,avx512vbmi2"))) static uint64_t bits_select_vbmi2(uint64_t src, uint64_t keep)
{
    __m512i bytes = _mm512_movm_epi8((__mmask64)src);
    return (uint64_t)_mm512_movepi8_mask(_mm512_maskz_compress_epi8((__mmask64)keep, bytes));
}

/* Sixteen levels a compare: equal to max, and above it. */
__attribute__((target("avx512f"))) static uint64_t levels_equal_avx512(const uint32_t *levels, size_t n, uint32_t max,
                                                                     bool *over)
{
    __m512i m = _mm512_set1_epi32((int)max);
    uint64_t eq = 0, gt = 0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i l = _mm512_loadu_si512(levels + i);
        eq |= (uint64_t)_mm512_cmpeq_epu32_mask(l, m) << i;
        gt |= (uint64_t)_mm512_cmpgt_epu32_mask(l, m) << i;
    }
    if (i < n) {
        __mmask16 tail = (__mmask16)((1u << (n - i)) - 1);
        __m512i l = _mm512_maskz_loadu_epi32(tail, levels + i);
        eq |= (uint64_t)_mm512_mask_cmpeq_epu32_mask(tail, l, m) << i;
        gt |= (uint64_t)_mm512_mask_cmpgt_epu32_mask(tail, l, m) << i;
    }
    *over = gt != 0;
    return eq;
}
#endif

uint64_t pq_levels_equal64_portable(const uint32_t *levels, size_t n, uint32_t max, bool *over)
{
    uint64_t eq = 0;
    uint32_t gt = 0;
    for (size_t j = 0; j < n; j++) {
        eq |= (uint64_t)(levels[j] == max) << j;
        gt |= levels[j] > max;
    }
    *over = gt != 0;
    return eq;
}

uint64_t pq_levels_equal64(const uint32_t *levels, size_t n, uint32_t max, bool *over)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx512f")) return levels_equal_avx512(levels, n, max, over);
#endif
    return pq_levels_equal64_portable(levels, n, max, over);
}

void pq_spread_in_place(uint8_t *buf, size_t ow, const uint8_t *validity, size_t n, size_t n_values)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if ((ow == 4 || ow == 8 || ow == 16) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) {
        spread_avx512(buf, ow, validity, n, n_values);
        return;
    }
#endif
    pq_spread_in_place_portable(buf, ow, validity, n, n_values);
}

uint64_t pq_bits_select64(uint64_t src, uint64_t keep)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi2"))
        return bits_select_vbmi2(src, keep);
#endif
    return pq_bits_select64_portable(src, keep);
}
