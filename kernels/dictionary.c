/* dictionary.c — gather dictionary entries by index, bounds-checked. */
#include "kernels/dictionary.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/kernel_error.h"
#include "kernels/primitives.h"

static pq_status bad_index(pq_error *err, size_t i, uint32_t idx, size_t dict_n)
{
    return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "dictionary index %u at value %zu: the dictionary has %zu entries", idx,
                    i, dict_n);
}

/* Width is a constant at each call site below, so the copy inlines. */
static inline size_t gather_fixed(const uint8_t *dict, uint32_t dict_n, size_t width, const uint32_t *idx, size_t n,
                                  uint8_t *out)
{
    for (size_t i = 0; i < n; i++)
        if (!pq_dict_get_fixed(dict, dict_n, width, idx[i], out + i * width)) return i;
    return n;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Eight indices a step: each lane's word of the table (a permute by the
 * index's upper bits), shifted by its lower five, the bit moved to the
 * sign and the signs gathered. */
__attribute__((target("avx2"))) static inline uint8_t bits_of(__m256i table, __m256i v)
{
    __m256i word = _mm256_permutevar8x32_epi32(table, _mm256_srli_epi32(v, 5));
    __m256i bit = _mm256_srlv_epi32(word, _mm256_and_si256(v, _mm256_set1_epi32(31)));
    return (uint8_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(bit, 31)));
}

__attribute__((target("avx2"))) static size_t dict_bits_avx2(const uint32_t *idx, size_t n, const uint32_t *tbits,
                                                              const uint32_t *fbits, uint32_t last,
                                                              const uint8_t *mask, uint8_t *t, uint8_t *f)
{
    const __m256i top = _mm256_set1_epi32((int32_t)last);
    const __m256i tt = _mm256_loadu_si256((const __m256i *)(const void *)tbits);
    const __m256i ft = fbits ? _mm256_loadu_si256((const __m256i *)(const void *)fbits) : tt;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        if (mask && !mask[i >> 3]) continue;
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(idx + i));
        if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_min_epu32(v, top), v)) != -1) break; /* v > last */
        t[i >> 3] = bits_of(tt, v);
        if (f) f[i >> 3] = bits_of(ft, v);
    }
    return i;
}
#endif

size_t pq_dict_bits(const uint32_t *idx, size_t n, const uint32_t *tbits, const uint32_t *fbits, size_t dict_n,
                    const uint8_t *mask, uint8_t *t, uint8_t *f)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (dict_n > 0 && dict_n <= PQ_DICT_BITS_MAX && __builtin_cpu_supports("avx2"))
        return dict_bits_avx2(idx, n, tbits, f ? fbits : NULL, (uint32_t)(dict_n - 1), mask, t, f);
#else
    (void)idx, (void)n, (void)tbits, (void)fbits, (void)dict_n, (void)mask, (void)t, (void)f;
#endif
    return 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Sixteen indices a step: the step's mask bits compress its lanes to the
 * front of a register (vpcompressd to a register: to memory it is slow on
 * some cores), stored at the kept count. The store's 64 bytes end at or
 * before the step's own, already loaded, so in place is safe. */
__attribute__((target("avx512f,popcnt"))) static size_t select_avx512(uint32_t *idx, const uint64_t *bits, size_t w)
{
    size_t m = 0, j = 0;
    for (; j + 16 <= w; j += 16) {
        __mmask16 k = (__mmask16)(bits[j / 64] >> (j % 64));
        __m512i v = _mm512_loadu_si512((const void *)(idx + j));
        _mm512_storeu_si512((void *)(idx + m), _mm512_maskz_compress_epi32(k, v));
        m += (size_t)__builtin_popcount(k);
    }
    for (; j < w; j++)
        if (bits[j / 64] >> (j % 64) & 1) idx[m++] = idx[j];
    return m;
}
#endif

size_t pq_dict_indices_select_portable(uint32_t *idx, const uint64_t *bits, size_t w)
{
    size_t m = 0; /* in place: m never passes j */
    for (size_t j = 0; j < w; j += 64) {
        uint64_t b = bits[j / 64];
        if (w - j < 64) b &= (1ull << (w - j)) - 1;
        for (; b; b &= b - 1) idx[m++] = idx[j + (size_t)__builtin_ctzll(b)];
    }
    return m;
}

size_t pq_dict_indices_select(uint32_t *idx, const uint64_t *bits, size_t w)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx512f")) return select_avx512(idx, bits, w);
#endif
    return pq_dict_indices_select_portable(idx, bits, w);
}

size_t pq_dict_first_out_of_range(const uint32_t *idx, size_t n, size_t dict_n)
{
    if (dict_n > UINT32_MAX) return n; /* every uint32 index fits */
    if (dict_n == 0) return 0;
    size_t i = 0;
#if defined(__SSE2__)
    /* Unsigned idx > dict_n - 1 as a signed compare of both with the sign
     * bit flipped; a step that finds one leaves it to the loop below. */
    const __m128i flip = _mm_set1_epi32(INT32_MIN);
    const __m128i last = _mm_set1_epi32((int32_t)(((uint32_t)dict_n - 1) ^ 0x80000000u));
    for (; i + 16 <= n; i += 16) {
        const __m128i *p = (const __m128i *)(const void *)(idx + i);
        __m128i a = _mm_cmpgt_epi32(_mm_xor_si128(_mm_loadu_si128(p), flip), last);
        __m128i b = _mm_cmpgt_epi32(_mm_xor_si128(_mm_loadu_si128(p + 1), flip), last);
        __m128i c = _mm_cmpgt_epi32(_mm_xor_si128(_mm_loadu_si128(p + 2), flip), last);
        __m128i d = _mm_cmpgt_epi32(_mm_xor_si128(_mm_loadu_si128(p + 3), flip), last);
        if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)))) break;
    }
#endif
    for (; i < n; i++)
        if (idx[i] >= dict_n) return i;
    return n;
}

uint64_t pq_dict_bytes_checked_portable(const int32_t *offsets, const uint32_t *idx, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += (uint64_t)(uint32_t)(offsets[idx[i] + 1] - offsets[idx[i]]);
    return sum;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Each step's 16 lengths (below 2^31 each) widened to 64 bits before they
 * are added: no lane can overflow. */
__attribute__((target("avx512f"))) static uint64_t dict_bytes_avx512(const int32_t *offsets, const uint32_t *idx,
                                                                    size_t n)
{
    __m512i acc = _mm512_setzero_si512();
    const __m512i one = _mm512_set1_epi32(1);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i k = _mm512_loadu_si512(idx + i);
        __m512i s = _mm512_i32gather_epi32(k, offsets, 4);
        __m512i e = _mm512_i32gather_epi32(_mm512_add_epi32(k, one), offsets, 4);
        __m512i l = _mm512_sub_epi32(e, s);
        acc = _mm512_add_epi64(acc, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(l)));
        acc = _mm512_add_epi64(acc, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(l, 1)));
    }
    return (uint64_t)_mm512_reduce_add_epi64(acc) + pq_dict_bytes_checked_portable(offsets, idx + i, n - i);
}
#endif

uint64_t pq_dict_bytes_checked(const int32_t *offsets, const uint32_t *idx, size_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    /* The gathers' indices are signed: an index checked below a
     * dictionary's count (an int32 num_values) leaves idx + 1 in range. */
    if (n >= 16 && __builtin_cpu_supports("avx512f")) return dict_bytes_avx512(offsets, idx, n);
#endif
    return pq_dict_bytes_checked_portable(offsets, idx, n);
}

/* Width a constant at each call site below: each copy is a move or two. */
static inline void gather_checked(const uint8_t *dict, size_t width, const uint32_t *idx, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) memcpy(out + i * width, dict + (size_t)idx[i] * width, width);
}

void pq_dict_gather_fixed_checked(const uint8_t *dict, size_t width, const uint32_t *idx, size_t n, uint8_t *out)
{
#define GATHER_CASE(W)                                                                             \
    case W: gather_checked(dict, W, idx, n, out); return
    switch (width) {
        GATHER_CASE(1); GATHER_CASE(2); GATHER_CASE(4); GATHER_CASE(8); GATHER_CASE(12);
        GATHER_CASE(16);
    default: gather_checked(dict, width, idx, n, out); return;
    }
#undef GATHER_CASE
}

/* Entry idx of width W (4 or 8), sign-extended into 16 bytes at out. */
#define DECIMAL128_GATHER(T)                                                                       \
    for (size_t i = 0; i < n; i++) {                                                               \
        T y;                                                                                       \
        memcpy(&y, dict + (size_t)idx[i] * sizeof(T), sizeof(T));                                  \
        int64_t x = y, hi = x >> 63;                                                               \
        memcpy(out + 16 * i, &x, 8);                                                               \
        memcpy(out + 16 * i + 8, &hi, 8);                                                          \
    }

void pq_dict_gather_decimal128_checked(const uint8_t *dict, size_t width, const uint32_t *idx, size_t n,
                                       uint8_t *out)
{
    if (width == 4) {
        DECIMAL128_GATHER(int32_t)
    } else {
        DECIMAL128_GATHER(int64_t)
    }
}
#undef DECIMAL128_GATHER

pq_status pq_dict_gather_fixed(const uint8_t *dict, size_t dict_n, size_t width, const uint32_t *idx, size_t n,
                               uint8_t *out, pq_error *err)
{
    /* indices are uint32: a larger dictionary is as good as UINT32_MAX entries */
    uint32_t dn = dict_n > UINT32_MAX ? UINT32_MAX : (uint32_t)dict_n;
    size_t done;
    /* Constant widths for the common types (ints, floats, FLBA decimals of
     * up to 16 bytes, INT96): each copy becomes a move or two. */
#define GATHER_CASE(W)                                                                             \
    case W: done = gather_fixed(dict, dn, W, idx, n, out); break
    switch (width) {
        GATHER_CASE(1); GATHER_CASE(2); GATHER_CASE(3); GATHER_CASE(4); GATHER_CASE(5);
        GATHER_CASE(6); GATHER_CASE(7); GATHER_CASE(8); GATHER_CASE(9); GATHER_CASE(10);
        GATHER_CASE(11); GATHER_CASE(12); GATHER_CASE(13); GATHER_CASE(14); GATHER_CASE(15);
        GATHER_CASE(16);
    default: done = gather_fixed(dict, dn, width, idx, n, out); break;
    }
#undef GATHER_CASE
    if (done < n) return bad_index(err, done, idx[done], dict_n);
    return PQ_OK;
}

pq_status pq_dict_gather_binary(const int32_t *dict_offsets, const uint8_t *dict_data, size_t dict_n,
                                const uint32_t *idx, size_t n, int32_t *offsets, int32_t base, uint8_t *data,
                                size_t data_cap, size_t *data_len, pq_error *err)
{
    uint64_t out = 0;
    if (base < 0) return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "dictionary gather: negative base offset");
    for (size_t i = 0; i < n; i++) {
        if (idx[i] >= dict_n) return bad_index(err, i, idx[i], dict_n);
        int32_t s = dict_offsets[idx[i]], e = dict_offsets[idx[i] + 1];
        uint64_t l = (uint64_t)(e - s);
        if (out + l > (uint64_t)(INT32_MAX - base))
            return pq_kfail(err, PQ_ERR_UNSUPPORTED, "dictionary gather: values exceed int32 offsets");
        if (data) {
            if (out + l > data_cap)
                return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "dictionary gather: output buffer of %zu bytes too small",
                                data_cap);
            memcpy(data + out, dict_data + (s - dict_offsets[0]), (size_t)l);
        }
        out += l;
        offsets[i + 1] = base + (int32_t)out;
    }
    *data_len = (size_t)out;
    return PQ_OK;
}

/* One entry copied as `pad` bytes (a constant at each call: two or four
 * 8-byte moves become one or two vector moves). */
#define GATHER_PADDED(pad)                                                                      \
    for (; i < n && out + (pad) <= lim; i++) {                                                  \
        int32_t s = dict_offsets[idx[i]], e = dict_offsets[idx[i] + 1];                         \
        memcpy(data + out, d0 + s, (pad));                                                      \
        out += (uint64_t)(e - s);                                                               \
        offsets[i + 1] = base + (int32_t)out;                                                   \
    }

int64_t pq_dict_gather_binary_padded(const int32_t *dict_offsets, const uint8_t *dict_data, size_t max_len,
                                     const uint32_t *idx, size_t n, int32_t *offsets, int32_t base,
                                     uint8_t *data, size_t room)
{
    const uint8_t *d0 = dict_data - dict_offsets[0];
    /* Staying below lim keeps every end offset within int32 as well. */
    uint64_t int32_room = (uint64_t)INT32_MAX - (uint64_t)(base > 0 ? base : 0);
    uint64_t lim = room < int32_room ? room : int32_room, out = 0;
    size_t i = 0;
    /* out + pad <= lim before each copy and the entry is at most pad
     * bytes: out stays <= lim. */
    if (max_len <= 16) GATHER_PADDED(16)
    else if (max_len <= 32) GATHER_PADDED(32)
    for (; i < n; i++) { /* the last entries near the room's end, or long ones */
        int32_t s = dict_offsets[idx[i]], e = dict_offsets[idx[i] + 1];
        uint64_t l = (uint64_t)(e - s);
        if (l > lim - out) return out + l > room ? -2 : -1;
        if (l <= PQ_DICT_COPY_SLACK && out + PQ_DICT_COPY_SLACK <= lim) memcpy(data + out, d0 + s, PQ_DICT_COPY_SLACK);
        else if (l) memcpy(data + out, d0 + s, (size_t)l);
        out += l;
        offsets[i + 1] = base + (int32_t)out;
    }
    return (int64_t)out;
}
