/* rle.c — the RLE/bit-packed hybrid decoder and deprecated BIT_PACKED levels. */
#include "kernels/rle.h"

#include <stdbool.h>
#include <string.h>

#include "kernels/kernel_error.h"
#include "kernels/primitives.h"

/* Longest run accepted: counts are int32 in every other reader. */
#define RLE_MAX_RUN 0x7fffffffu

/* Bit-packed groups of width 1..25 with AVX2 where the CPU has it (checked
 * at run time; the build targets plain x86-64): a byte shuffle puts each
 * value's bytes in its own 32-bit lane of a 256-bit register, a shift per
 * lane and a mask finish it. A group of 8 values of width up to 16 is at
 * most 16 bytes: one 16-byte load, copied to both halves, holds it; a
 * wider one (17..25 bytes: dictionary indices of 65,536 to 33 million
 * entries) takes a second load for the half of values 4..7, from the byte
 * value 4 starts in. Reads avx2_slack(bw) bytes from the last group's
 * start. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define UNPACK_AVX2 1
#define UNPACK_AVX2_MAX_WIDTH 25 /* a value and its bit offset in one 32-bit lane */

/* The half of a group of 8 values of width bw that values 4..7 are read
 * from: from the byte value 4 starts in (bw > 16; the group is then more
 * than 16 bytes), else the group's first 16 bytes for both halves. */
#define AVX2_HIGH_BYTE(bw) ((bw) > 16 ? 4 * (bw) / 8 : 0)
static inline int avx2_high_byte(int bw)
{
    return AVX2_HIGH_BYTE(bw);
}

/* Bytes a group's loads read from its first byte. */
static inline size_t avx2_slack(int bw)
{
    return (size_t)avx2_high_byte(bw) + 16;
}

/* The shuffle that puts value i's bytes in lane i % 4 of half i / 4 (a
 * byte past the half's 16 is zero: its bits are masked off), and each
 * value's bit offset in its first byte, for every width up to
 * UNPACK_AVX2_MAX_WIDTH: constants, so that a short run (a group or two,
 * as low-cardinality columns have between their repeated runs) costs no
 * setup. */
#define AVX2_BYTE(bw, i, b) ((i) * (bw) / 8 - ((i) < 4 ? 0 : AVX2_HIGH_BYTE(bw)) + (b))
#define AVX2_SB(bw, i, b) (uint8_t)(AVX2_BYTE(bw, i, b) < 16 ? AVX2_BYTE(bw, i, b) : 0x80)
#define AVX2_LANE(bw, i) AVX2_SB(bw, i, 0), AVX2_SB(bw, i, 1), AVX2_SB(bw, i, 2), AVX2_SB(bw, i, 3)
#define AVX2_SHUF(bw)                                                                                      \
    {AVX2_LANE(bw, 0), AVX2_LANE(bw, 1), AVX2_LANE(bw, 2), AVX2_LANE(bw, 3),                               \
     AVX2_LANE(bw, 4), AVX2_LANE(bw, 5), AVX2_LANE(bw, 6), AVX2_LANE(bw, 7)}
#define AVX2_SHIFT(bw)                                                                                     \
    {0, (bw) & 7, (2 * (bw)) & 7, (3 * (bw)) & 7, (4 * (bw)) & 7, (5 * (bw)) & 7, (6 * (bw)) & 7, (7 * (bw)) & 7}
#define AVX2_ROWS(m)                                                                                       \
    m(0), m(1), m(2), m(3), m(4), m(5), m(6), m(7), m(8), m(9), m(10), m(11), m(12), m(13), m(14), m(15),  \
        m(16), m(17), m(18), m(19), m(20), m(21), m(22), m(23), m(24), m(25)
static const uint8_t avx2_shuffle[UNPACK_AVX2_MAX_WIDTH + 1][32] = {AVX2_ROWS(AVX2_SHUF)};
static const uint32_t avx2_shift[UNPACK_AVX2_MAX_WIDTH + 1][8] = {AVX2_ROWS(AVX2_SHIFT)};

/* Returns the largest value unpacked (a lane-wise max as it goes: the
 * dictionary range check then needs no pass of its own). */
__attribute__((target("avx2"))) static uint32_t unpack_groups_avx2(const uint8_t *in, int bw, uint32_t *out,
                                                                    size_t groups)
{
    const int hb = avx2_high_byte(bw);
    const __m256i shuf = _mm256_loadu_si256((const __m256i *)avx2_shuffle[bw]);
    const __m256i sh = _mm256_loadu_si256((const __m256i *)avx2_shift[bw]);
    const __m256i mask = _mm256_set1_epi32((int)((1u << bw) - 1));
    __m256i top = _mm256_setzero_si256();
    if (hb == 0) {
        for (size_t g = 0; g < groups; g++, in += bw, out += 8) {
            __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)in));
            v = _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(v, shuf), sh), mask);
            _mm256_storeu_si256((__m256i *)out, v);
            top = _mm256_max_epu32(top, v);
        }
    } else {
        for (size_t g = 0; g < groups; g++, in += bw, out += 8) {
            __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)in)),
                                                _mm_loadu_si128((const __m128i *)(in + hb)), 1);
            v = _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(v, shuf), sh), mask);
            _mm256_storeu_si256((__m256i *)out, v);
            top = _mm256_max_epu32(top, v);
        }
    }
    __m128i m = _mm_max_epu32(_mm256_castsi256_si128(top), _mm256_extracti128_si256(top, 1));
    m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0x4e));
    m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0xb1));
    return (uint32_t)_mm_cvtsi128_si32(m);
}
#endif

pq_status pq_rle_init(pq_rle_decoder *d, const uint8_t *src, size_t len, int bit_width, pq_error *err)
{
    memset(d, 0, sizeof *d);
    if (bit_width < 0 || bit_width > 32)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "RLE: bit width %d is not in 0..32", bit_width);
    if (!src && len)
        return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "RLE: NULL input");
    d->src = src;
    d->len = len;
    d->bit_width = bit_width;
    return PQ_OK;
}

pq_status pq_rle_init_prefixed(pq_rle_decoder *d, const uint8_t *src, size_t len, int bit_width,
                               size_t *consumed, pq_error *err)
{
    memset(d, 0, sizeof *d);
    if (len < 4)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "RLE: %zu bytes, too short for the 4-byte length", len);
    uint32_t n = pq_load_le32(src);
    if (n > len - 4)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "RLE: length %u exceeds the %zu bytes left", n, len - 4);
    *consumed = 4 + (size_t)n;
    return pq_rle_init(d, src + 4, n, bit_width, err);
}

pq_status pq_rle_init_levels_v2(pq_rle_decoder *d, const uint8_t *src, size_t len, int bit_width,
                                pq_error *err)
{
    return pq_rle_init(d, src, len, bit_width, err);
}

pq_status pq_rle_init_dict_indices(pq_rle_decoder *d, const uint8_t *src, size_t len, pq_error *err)
{
    memset(d, 0, sizeof *d);
    if (len < 1) return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "dictionary indices: empty page data");
    return pq_rle_init(d, src + 1, len - 1, src[0], err);
}

bool pq_rle_leading_run(const pq_rle_decoder *d, uint32_t *value, uint64_t *count)
{
    if (d->repeat_left || d->lit_index < d->lit_count || d->pos >= d->len) return false;
    uint64_t h;
    size_t used = pq_uleb128(d->src + d->pos, d->len - d->pos, &h);
    int nbytes = (d->bit_width + 7) / 8;
    if (!used || (h & 1) || (size_t)nbytes > d->len - d->pos - used) return false;
    *count = h >> 1;
    *value = d->bit_width ? (uint32_t)pq_load_le_n(d->src + d->pos + used, nbytes) : 0;
    return true;
}

/* Reads the next run header. Returns 1 for a run, 0 at the end of the
 * input, -1 on a malformed run (err filled). */
static int next_run(pq_rle_decoder *d, pq_error *err)
{
    if (d->pos >= d->len) return 0;
    size_t at = d->pos;
    uint64_t h;
    size_t used = pq_uleb128(d->src + at, d->len - at, &h);
    if (!used) {
        pq_kfail(err, PQ_ERR_CORRUPT_DATA, "RLE: truncated or overlong run header at byte %zu", at);
        return -1;
    }
    d->pos += used;
    size_t avail = d->len - d->pos;
    uint64_t count = h >> 1;
    if (h & 1) {
        if (count == 0 || count > RLE_MAX_RUN / 8) {
            pq_kfail(err, PQ_ERR_CORRUPT_DATA, "RLE: bit-packed run of %llu groups at byte %zu",
                     (unsigned long long)count, at);
            return -1;
        }
        uint64_t bytes = count * (uint64_t)d->bit_width;
        uint64_t values = count * 8;
        if (bytes > avail) { /* a cut-short last run: keep the whole values present */
            bytes = avail;
            values = (uint64_t)avail * 8 / (uint64_t)d->bit_width;
            if (values == 0) {
                pq_kfail(err, PQ_ERR_CORRUPT_DATA, "RLE: bit-packed run at byte %zu has no data", at);
                return -1;
            }
        }
        d->lit = d->src + d->pos;
        d->lit_index = 0;
        d->lit_count = (uint32_t)values;
        d->pos += (size_t)bytes;
    } else {
        int nbytes = (d->bit_width + 7) / 8;
        if (count == 0 || count > RLE_MAX_RUN) {
            pq_kfail(err, PQ_ERR_CORRUPT_DATA, "RLE: run of %llu values at byte %zu",
                     (unsigned long long)count, at);
            return -1;
        }
        if ((size_t)nbytes > avail) {
            pq_kfail(err, PQ_ERR_CORRUPT_DATA, "RLE: run value at byte %zu is truncated", d->pos);
            return -1;
        }
        d->repeat_value = (uint32_t)pq_load_le_n(d->src + d->pos, nbytes);
        d->repeat_left = (uint32_t)count;
        d->pos += (size_t)nbytes;
    }
    return 1;
}

/* The shared loop of next and skip: out == NULL discards. */
static pq_status rle_read(pq_rle_decoder *d, uint32_t *out, size_t n, size_t *got, pq_error *err)
{
    size_t done = 0;
    *got = 0;
    if (d->bit_width == 0) { /* all zeros, no input needed */
        if (out) memset(out, 0, n * sizeof *out);
        *got = n;
        return PQ_OK;
    }
    int bw = d->bit_width;
    while (done < n) {
        if (d->repeat_left) {
            size_t k = n - done < d->repeat_left ? n - done : d->repeat_left;
            if (out) {
                pq_fill_u32(out + done, k, d->repeat_value);
                if (d->repeat_value > d->max_out) d->max_out = d->repeat_value;
            }
            d->repeat_left -= (uint32_t)k;
            done += k;
            continue;
        }
        if (d->lit_index < d->lit_count) {
            size_t k = d->lit_count - d->lit_index;
            if (k > n - done) k = n - done;
            if (out) {
                size_t i = 0, unchecked = 0; /* values [unchecked, k) still to count in max_out */
                /* whole groups straight into the output; wide loads while
                 * the input has room for them */
                const uint8_t *end = d->src + d->len;
                if (k >= 8 && (d->lit_index & 7) == 0) {
                    /* as many whole groups as the input has slack for, in one call */
                    const uint8_t *g = d->lit + (size_t)(d->lit_index / 8) * (size_t)bw;
                    size_t groups = k / 8, room = (size_t)(end - g), slack = PQ_UNPACK8_SLACK(bw);
#ifdef UNPACK_AVX2
                    bool avx2 = bw <= UNPACK_AVX2_MAX_WIDTH && __builtin_cpu_supports("avx2");
                    if (avx2 && slack < avx2_slack(bw)) slack = avx2_slack(bw);
#endif
                    size_t fit = room >= slack ? (room - slack) / (size_t)bw + 1 : 0;
                    if (fit < groups) groups = fit;
                    if (groups) {
#ifdef UNPACK_AVX2
                        if (avx2) {
                            uint32_t top = unpack_groups_avx2(g, bw, out + done, groups);
                            if (top > d->max_out) d->max_out = top;
                            unchecked = 8 * groups;
                        } else
#endif
                            pq_unpack_groups_u32_wide(g, bw, out + done, groups);
                        d->lit_index += (uint32_t)(8 * groups);
                        i = 8 * groups;
                    }
                }
                while (k - i >= 8 && (d->lit_index & 7) == 0) {
                    const uint8_t *g = d->lit + (size_t)(d->lit_index / 8) * (size_t)bw;
                    if ((size_t)(end - g) >= PQ_UNPACK8_SLACK(bw)) pq_unpack8_u32_wide(g, bw, out + done + i);
                    else pq_unpack8_u32(g, bw, out + done + i);
                    d->lit_index += 8;
                    i += 8;
                }
                for (; i < k; i++, d->lit_index++)
                    out[done + i] = (uint32_t)pq_bits_at(d->lit, (uint64_t)d->lit_index * (uint64_t)bw, bw);
                for (i = unchecked; i < k; i++)
                    if (out[done + i] > d->max_out) d->max_out = out[done + i];
            } else {
                d->lit_index += (uint32_t)k;
            }
            done += k;
            continue;
        }
        int r = next_run(d, err);
        if (r < 0) {
            *got = done;
            return err ? err->code : PQ_ERR_CORRUPT_DATA;
        }
        if (r == 0) break;
    }
    *got = done;
    return PQ_OK;
}

pq_status pq_rle_next(pq_rle_decoder *d, uint32_t *out, size_t n, size_t *got, pq_error *err)
{
    if (!out && n) {
        *got = 0;
        return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "RLE: NULL output");
    }
    return rle_read(d, out, n, got, err);
}

pq_status pq_rle_skip(pq_rle_decoder *d, size_t n, size_t *skipped, pq_error *err)
{
    return rle_read(d, NULL, n, skipped, err);
}

/* The value at index i of the current bit-packed run: one unaligned 8-byte
 * load where the input has room for it (bit width <= 32 and a shift <= 7
 * fit in 64 bits), bytewise at the input's end. */
static inline uint32_t lit_value(const pq_rle_decoder *d, uint64_t i)
{
    uint64_t bit = i * (uint64_t)d->bit_width;
    const uint8_t *p = d->lit + (bit >> 3);
    if ((size_t)(d->src + d->len - p) < 8) return (uint32_t)pq_bits_at(d->lit, bit, d->bit_width);
    uint64_t v;
    memcpy(&v, p, 8);
    return (uint32_t)((v >> (bit & 7)) & pq_mask64(d->bit_width));
}

/* Word w of the selection, masked to its bits in [a, b). */
static inline uint64_t sel_word(const uint64_t *bits, size_t w, size_t a, size_t b)
{
    uint64_t m = bits[w];
    size_t lo = w * 64;
    if (lo < a) m &= ~0ull << (a - lo);
    if (b - lo < 64) m &= (1ull << (b - lo)) - 1;
    return m;
}

/* body runs once per set bit j of the selection in [a, b), in order. */
#define FOR_SELECTED(bits, a, b, j, body)                                                                     \
    for (size_t w_ = (a) / 64; w_ * 64 < (b); w_++)                                                           \
        for (uint64_t m_ = sel_word(bits, w_, a, b); m_; m_ &= m_ - 1) {                                      \
            size_t j = w_ * 64 + (size_t)__builtin_ctzll(m_);                                                 \
            body;                                                                                             \
        }

pq_status pq_rle_pick(pq_rle_decoder *d, const uint64_t *bits, size_t n, uint32_t *out, size_t *consumed,
                      size_t *picked, pq_error *err)
{
    size_t done = 0, m = 0;
    *consumed = *picked = 0;
    if (!bits || (!out && n)) return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "RLE: NULL selection or output");
    if (d->bit_width == 0) { /* all zeros, no input needed */
        FOR_SELECTED(bits, 0, n, j, (void)j; out[m++] = 0);
        *consumed = n;
        *picked = m;
        return PQ_OK;
    }
    while (done < n) {
        if (d->repeat_left) {
            size_t k = n - done < d->repeat_left ? n - done : d->repeat_left;
            uint32_t v = d->repeat_value;
            FOR_SELECTED(bits, done, done + k, j, (void)j; out[m++] = v);
            d->repeat_left -= (uint32_t)k;
            done += k;
            continue;
        }
        if (d->lit_index < d->lit_count) {
            size_t k = d->lit_count - d->lit_index;
            if (k > n - done) k = n - done;
            uint64_t at = d->lit_index;
            FOR_SELECTED(bits, done, done + k, j, out[m++] = lit_value(d, at + (j - done)));
            d->lit_index += (uint32_t)k;
            done += k;
            continue;
        }
        int r = next_run(d, err);
        if (r < 0) {
            *consumed = done;
            *picked = m;
            return err ? err->code : PQ_ERR_CORRUPT_DATA;
        }
        if (r == 0) break;
    }
    *consumed = done;
    *picked = m;
    return PQ_OK;
}

pq_status pq_bit_packed_levels(const uint8_t *src, size_t len, int bit_width, size_t n, uint32_t *out,
                               size_t *consumed, pq_error *err)
{
    if (bit_width < 0 || bit_width > 32)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "BIT_PACKED: bit width %d is not in 0..32", bit_width);
    /* n * bit_width bits, without overflow: n <= SIZE_MAX / 32 is checked first */
    if (n > SIZE_MAX / 32)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "BIT_PACKED: %zu values is too many", n);
    size_t bytes = (n * (size_t)bit_width + 7) / 8;
    if (bytes > len)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "BIT_PACKED: %zu values need %zu bytes, %zu present", n,
                        bytes, len);
    for (size_t i = 0; i < n; i++) out[i] = pq_bits_at_msb(src, (uint64_t)i * (uint64_t)bit_width, bit_width);
    *consumed = bytes;
    return PQ_OK;
}
