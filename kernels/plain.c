/* plain.c — PLAIN for every physical type. */
#include "kernels/plain.h"

#include <string.h>

#include "kernels/kernel_error.h"
#include "kernels/primitives.h"

pq_status pq_plain_fixed(const uint8_t *src, size_t len, size_t width, size_t n, void *out, size_t *consumed,
                         pq_error *err)
{
    if (width == 0) return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "PLAIN: value width 0");
    if (n > len / width)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "PLAIN: %zu values of %zu bytes, only %zu bytes present", n, width,
                        len);
    if (n) memcpy(out, src, n * width);
    *consumed = n * width;
    return PQ_OK;
}

void pq_ints_sign_extend_portable(uint8_t *dst, size_t ow, const uint8_t *src, size_t w, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        int64_t x;
        if (w == 4) {
            int32_t y;
            memcpy(&y, src + i * 4, 4);
            x = y;
        } else {
            memcpy(&x, src + i * 8, 8);
        }
        int64_t hi = x < 0 ? -1 : 0;
        uint8_t *d = dst + i * ow;
        /* two word stores a value (decimal128, the common case: no memset call) */
        memcpy(d, &x, 8);
        memcpy(d + 8, &hi, 8);
        if (ow > 16) memset(d + 16, x < 0 ? 0xff : 0, ow - 16);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Decimal128 from INT32 (w 4) or INT64 (w 8), eight values a step from the
 * last back (each step loads its values before it stores, so dst may be
 * src: a step's 128 output bytes start at or past the end of the input of
 * every step still to come). */
__attribute__((target("avx512f"))) static void sign_extend16_avx512(uint8_t *dst, const uint8_t *src, size_t w,
                                                                   size_t n)
{
    size_t i = n - n % 8;
    if (n % 8) pq_ints_sign_extend_portable(dst + i * 16, 16, src + i * w, w, n % 8);
    const __m512i first = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);  /* x0 h0 x1 h1 x2 h2 x3 h3 */
    const __m512i second = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4); /* x4 h4 ... x7 h7 */
    while (i) {
        i -= 8;
        __m512i x = w == 8 ? _mm512_loadu_si512(src + i * 8)
                           : _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(src + i * 4)));
        __m512i hi = _mm512_srai_epi64(x, 63);
        __m512i a = _mm512_permutex2var_epi64(x, first, hi), b = _mm512_permutex2var_epi64(x, second, hi);
        _mm512_storeu_si512(dst + i * 16, a);
        _mm512_storeu_si512(dst + i * 16 + 64, b);
    }
}
#endif

void pq_ints_sign_extend(uint8_t *dst, size_t ow, const uint8_t *src, size_t w, size_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (ow == 16 && (w == 4 || w == 8) && n >= 8 && __builtin_cpu_supports("avx512f")) {
        sign_extend16_avx512(dst, src, w, n);
        return;
    }
#endif
    pq_ints_sign_extend_portable(dst, ow, src, w, n);
}

pq_status pq_plain_boolean(const uint8_t *src, size_t len, uint64_t first_bit, size_t n, uint8_t *out,
                           size_t *consumed, pq_error *err)
{
    uint64_t bits = (uint64_t)len * 8;
    if (first_bit > bits || n > bits - first_bit)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "PLAIN BOOLEAN: bits %llu..+%zu past the %zu bytes present",
                        (unsigned long long)first_bit, n, len);
    for (size_t i = 0; i < n; i++) out[i] = pq_bit_at(src, first_bit + i);
    *consumed = (size_t)((first_bit + n + 7) / 8);
    return PQ_OK;
}

pq_status pq_plain_byte_array(const uint8_t *src, size_t len, size_t n, int32_t *offsets, int32_t base,
                              uint8_t *data, size_t data_cap, size_t *data_len, size_t *consumed, pq_error *err)
{
    size_t pos = 0;
    uint64_t out = 0;
    if (base < 0) return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "PLAIN BYTE_ARRAY: negative base offset");
    for (size_t i = 0; i < n; i++) {
        uint32_t l = 0; /* set on success; gcc cannot tell */
        pq_status st = pq_plain_value_length(src, len, &pos, i, n, &l, err);
        if (st != PQ_OK) return st;
        if (out + l > (uint64_t)(INT32_MAX - base))
            return pq_kfail(err, PQ_ERR_UNSUPPORTED, "PLAIN BYTE_ARRAY: offsets exceed int32");
        if (data) {
            if (out + l > data_cap)
                return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "PLAIN BYTE_ARRAY: output buffer of %zu bytes too small",
                                data_cap);
            memcpy(data + out, src + pos, l);
        }
        pos += l;
        out += l;
        offsets[i + 1] = base + (int32_t)out;
    }
    *data_len = (size_t)out;
    *consumed = pos;
    return PQ_OK;
}

size_t pq_plain_select64_portable(const uint8_t *src, size_t width, uint64_t bits, uint8_t *dst)
{
    size_t m = 0;
    for (uint64_t b = bits; b; b &= b - 1, m++)
        memcpy(dst + m * width, src + (size_t)__builtin_ctzll(b) * width, width);
    return m;
}

#if defined(__x86_64__) && defined(__GNUC__)

/* A lane group at a time: its mask bits load only the selected lanes (the
 * others are not read, so nothing past the last selected row is), compress
 * them to the front and store only as many lanes (nothing past dst's room
 * is written). */
__attribute__((target("avx512f,popcnt"))) static size_t select64_avx512(const uint8_t *src, size_t width,
                                                                       uint64_t bits, uint8_t *dst)
{
    size_t m = 0;
    if (width == 8) {
        for (unsigned g = 0; g < 64 && (bits >> g); g += 8) {
            __mmask8 k = (__mmask8)(bits >> g);
            if (!k) continue;
            __m512i v = _mm512_maskz_loadu_epi64(k, src + (size_t)g * 8);
            unsigned c = (unsigned)__builtin_popcount(k);
            _mm512_mask_storeu_epi64(dst + m * 8, (__mmask8)((1u << c) - 1), _mm512_maskz_compress_epi64(k, v));
            m += c;
        }
    } else if (width == 16) { /* a value is two 64-bit lanes: each row's bit doubled */
        for (unsigned g = 0; g < 64 && (bits >> g); g += 4) {
            unsigned r = (unsigned)(bits >> g) & 15;
            if (!r) continue;
            __mmask8 k = (__mmask8)((r & 1) * 3 | (r & 2) * 6 | (r & 4) * 12 | (r & 8) * 24);
            __m512i v = _mm512_maskz_loadu_epi64(k, src + (size_t)g * 16);
            unsigned c = (unsigned)__builtin_popcount(r);
            _mm512_mask_storeu_epi64(dst + m * 16, (__mmask8)((1u << (2 * c)) - 1), _mm512_maskz_compress_epi64(k, v));
            m += c;
        }
    } else {
        for (unsigned g = 0; g < 64 && (bits >> g); g += 16) {
            __mmask16 k = (__mmask16)(bits >> g);
            if (!k) continue;
            __m512i v = _mm512_maskz_loadu_epi32(k, src + (size_t)g * 4);
            unsigned c = (unsigned)__builtin_popcount(k);
            _mm512_mask_storeu_epi32(dst + m * 4, (__mmask16)((1u << c) - 1), _mm512_maskz_compress_epi32(k, v));
            m += c;
        }
    }
    return m;
}
#endif

size_t pq_plain_select64(const uint8_t *src, size_t width, uint64_t bits, uint8_t *dst)
{
    if (bits == ~0ull) {
        memcpy(dst, src, 64 * width);
        return 64;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if ((width == 4 || width == 8 || width == 16) && __builtin_cpu_supports("avx512f"))
        return select64_avx512(src, width, bits, dst);
#endif
    return pq_plain_select64_portable(src, width, bits, dst);
}
