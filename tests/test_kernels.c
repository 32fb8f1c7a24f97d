/*
 * test_kernels.c — the value-decoding primitives of kernels/ on hand-computed
 * vectors (each with the arithmetic in a comment), plus round trips through
 * tiny bit-by-bit encoders written here as a second oracle, and corrupt or
 * truncated inputs that must give a clean error (this suite also runs under
 * ASan + UBSan).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/byte_stream_split.h"
#include "kernels/delta.h"
#include "kernels/dictionary.h"
#include "kernels/plain.h"
#include "kernels/spread.h"
#include "kernels/primitives.h"
#include "kernels/bitcount.h"
#include "kernels/rle.h"
#include "kernels/utf8.h"

/* ---- Tiny encoders (test oracles, bit by bit, independent of kernels/) ---- */

typedef struct enc {
    uint8_t buf[1 << 16];
    size_t len;
} enc;

static void put_byte(enc *e, uint8_t b)
{
    ck_assert_uint_lt(e->len, sizeof e->buf);
    e->buf[e->len++] = b;
}

static void put_uleb(enc *e, uint64_t v)
{
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        put_byte(e, (uint8_t)(b | (v ? 0x80 : 0)));
    } while (v);
}

/* n values of bw bits, LSB first, one bit at a time; pads to whole bytes. */
static void put_bits(enc *e, const uint64_t *v, size_t n, int bw)
{
    size_t bytes = (n * (size_t)bw + 7) / 8, start = e->len;
    for (size_t i = 0; i < bytes; i++) put_byte(e, 0);
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < bw; b++)
            if ((v[i] >> b) & 1) {
                size_t bit = i * (size_t)bw + (size_t)b;
                e->buf[start + bit / 8] |= (uint8_t)(1u << (bit % 8));
            }
}

static void put_rle_run(enc *e, int bw, uint32_t value, uint32_t count)
{
    put_uleb(e, (uint64_t)count << 1);
    for (int b = 0; b < (bw + 7) / 8; b++) put_byte(e, (uint8_t)(value >> (8 * b)));
}

/* A bit-packed run of ceil(n / 8) groups, the last one zero-padded. */
static void put_packed_run(enc *e, int bw, const uint32_t *v, size_t n)
{
    size_t groups = (n + 7) / 8;
    uint64_t tmp[4096];
    ck_assert_uint_le(groups * 8, 4096);
    memset(tmp, 0, sizeof tmp);
    for (size_t i = 0; i < n; i++) tmp[i] = v[i];
    put_uleb(e, (uint64_t)groups << 1 | 1);
    put_bits(e, tmp, groups * 8, bw);
}

static uint64_t zigzag(int64_t x)
{
    return x < 0 ? ~((uint64_t)x << 1) : (uint64_t)x << 1;
}

static int bits_needed(uint64_t x)
{
    int b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
}

/* DELTA_BINARY_PACKED the straightforward way. bits32: deltas wrap modulo
 * 2^32, as int32 writers compute them. */
static void put_dbp(enc *e, const int64_t *v, size_t n, uint32_t block, uint32_t minis, int bits32)
{
    uint32_t per = block / minis;
    put_uleb(e, block);
    put_uleb(e, minis);
    put_uleb(e, n);
    put_uleb(e, zigzag(n ? v[0] : 0));
    for (size_t i = 1; i < n; i += block) {
        size_t cnt = n - i < block ? n - i : block;
        int64_t d[4096];
        ck_assert_uint_le(block, 4096);
        int64_t mn = INT64_MAX;
        for (size_t j = 0; j < cnt; j++) {
            uint64_t diff = (uint64_t)v[i + j] - (uint64_t)v[i + j - 1];
            d[j] = bits32 ? (int64_t)(int32_t)(uint32_t)diff : (int64_t)diff;
            if (d[j] < mn) mn = d[j];
        }
        put_uleb(e, zigzag(mn));
        uint64_t rel[4096];
        memset(rel, 0, sizeof rel);
        for (size_t j = 0; j < cnt; j++) {
            uint64_t r = (uint64_t)d[j] - (uint64_t)mn;
            rel[j] = bits32 ? (uint32_t)r : r;
        }
        int widths[256];
        for (uint32_t m = 0; m < minis; m++) {
            uint64_t mx = 0;
            for (uint32_t j = m * per; j < (m + 1) * per && j < cnt; j++)
                if (rel[j] > mx) mx = rel[j];
            widths[m] = m * per < cnt ? bits_needed(mx) : 0;
            put_byte(e, (uint8_t)widths[m]);
        }
        for (uint32_t m = 0; m < minis && m * per < cnt; m++) put_bits(e, rel + m * per, per, widths[m]);
    }
}

/* ---- Bit unpacking -------------------------------------------------------- */

START_TEST(unpack_spec_example)
{
    /* Parquet spec, RLE/bit-packed hybrid: 0..7 at width 3, LSB first:
     * bits (value 0 lowest) 000 100 010 110 001 101 011 111 read right to left
     * per byte -> 10001000 11000110 11111010 = 0x88 0xC6 0xFA. */
    const uint8_t in[3] = {0x88, 0xC6, 0xFA};
    uint32_t out[8];
    pq_unpack8_u32(in, 3, out);
    for (uint32_t i = 0; i < 8; i++) ck_assert_uint_eq(out[i], i);
    for (uint32_t i = 0; i < 8; i++) ck_assert_uint_eq(pq_bits_at(in, i * 3, 3), i);
    uint64_t out64[8];
    pq_unpack8_u64(in, 3, out64);
    for (uint32_t i = 0; i < 8; i++) ck_assert_uint_eq(out64[i], i);

    /* Deprecated BIT_PACKED, same values, MSB first:
     * 000 001 010 011 100 101 110 111 -> 00000101 00111001 01110111. */
    const uint8_t msb[3] = {0x05, 0x39, 0x77};
    uint32_t lv[8];
    size_t used = 0;
    ck_assert_int_eq(pq_bit_packed_levels(msb, 3, 3, 8, lv, &used, NULL), PQ_OK);
    ck_assert_uint_eq(used, 3);
    for (uint32_t i = 0; i < 8; i++) ck_assert_uint_eq(lv[i], i);
    pq_error err;
    ck_assert_int_eq(pq_bit_packed_levels(msb, 2, 3, 8, lv, &used, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_bit_packed_levels(msb, 3, 33, 1, lv, &used, &err), PQ_ERR_CORRUPT_DATA);
}
END_TEST

/* The wide unpacker (8-byte loads) against the bit-by-bit definition,
 * pq_bits_at, for every width and pseudo-random bytes. */
START_TEST(unpack_wide_matches_bits_at)
{
    uint8_t in[32 + 16];
    uint32_t x = 12345;
    for (int round = 0; round < 64; round++) {
        for (size_t i = 0; i < sizeof in; i++) {
            x = x * 1103515245u + 12345u;
            in[i] = (uint8_t)(x >> 16);
        }
        for (int bw = 1; bw <= 32; bw++) {
            ck_assert_uint_le(PQ_UNPACK8_SLACK(bw), sizeof in);
            uint32_t out[8];
            pq_unpack8_u32_wide(in, bw, out);
            for (int i = 0; i < 8; i++)
                ck_assert_msg(out[i] == (uint32_t)pq_bits_at(in, (uint64_t)i * (uint64_t)bw, bw),
                              "width %d value %d", bw, i);
        }
    }
}
END_TEST

/* pq_rle_leading_run: a repeated run is seen without being consumed; a
 * bit-packed run, a started run and the end are not. Hand-encoded runs:
 * header = count << 1 (repeat) or groups << 1 | 1 (bit-packed). */
START_TEST(rle_leading_run)
{
    /* width 1: 300 ones (header varint 600 = 0xd8 0x04, value byte 1) */
    const uint8_t rep[] = {0xd8, 0x04, 0x01, 0x03, 0x55};
    pq_rle_decoder d;
    uint32_t v = 99;
    uint64_t count = 0;
    ck_assert_int_eq(pq_rle_init(&d, rep, sizeof rep, 1, NULL), PQ_OK);
    ck_assert(pq_rle_leading_run(&d, &v, &count));
    ck_assert_uint_eq(v, 1);
    ck_assert_uint_eq(count, 300);
    uint32_t out[4];
    size_t got = 0;
    ck_assert_int_eq(pq_rle_next(&d, out, 4, &got, NULL), PQ_OK); /* nothing was consumed */
    ck_assert_uint_eq(got, 4);
    ck_assert_uint_eq(out[0], 1);
    ck_assert(!pq_rle_leading_run(&d, &v, &count)); /* inside a run */
    /* width 2, value 3 in one byte */
    const uint8_t rep2[] = {0x10, 0x03};
    ck_assert_int_eq(pq_rle_init(&d, rep2, sizeof rep2, 2, NULL), PQ_OK);
    ck_assert(pq_rle_leading_run(&d, &v, &count));
    ck_assert_uint_eq(v, 3);
    ck_assert_uint_eq(count, 8);
    /* a bit-packed run first; a truncated value; no input */
    const uint8_t packed[] = {0x03, 0xff}, cut[] = {0x10};
    ck_assert_int_eq(pq_rle_init(&d, packed, sizeof packed, 1, NULL), PQ_OK);
    ck_assert(!pq_rle_leading_run(&d, &v, &count));
    ck_assert_int_eq(pq_rle_init(&d, cut, sizeof cut, 2, NULL), PQ_OK);
    ck_assert(!pq_rle_leading_run(&d, &v, &count));
    ck_assert_int_eq(pq_rle_init(&d, NULL, 0, 1, NULL), PQ_OK);
    ck_assert(!pq_rle_leading_run(&d, &v, &count));
}
END_TEST

START_TEST(unpack_fixed_widths)
{
    /* width 1: 1,0,1,1,0,0,0,1 -> bit i = value i -> 0b10001101 = 0x8D */
    const uint8_t w1[1] = {0x8D};
    const uint32_t e1[8] = {1, 0, 1, 1, 0, 0, 0, 1};
    uint32_t out[8];
    pq_unpack8_u32(w1, 1, out);
    ck_assert_mem_eq(out, e1, sizeof e1);

    /* width 32: each value is its 4 little-endian bytes */
    uint8_t w32[32];
    for (int i = 0; i < 32; i++) w32[i] = (uint8_t)(i * 37 + 1);
    pq_unpack8_u32(w32, 32, out);
    for (int i = 0; i < 8; i++) ck_assert_uint_eq(out[i], pq_load_le32(w32 + 4 * i));
    ck_assert_uint_eq(pq_load_le32((const uint8_t[]){0xEF, 0xBE, 0xAD, 0xDE}), 0xDEADBEEFu);

    /* width 64: 0xFFFFFFFFFFFFFFFF then 1 then zeros */
    uint8_t w64[64];
    memset(w64, 0, sizeof w64);
    memset(w64, 0xFF, 8);
    w64[8] = 1;
    uint64_t o64[8];
    pq_unpack8_u64(w64, 64, o64);
    ck_assert_uint_eq(o64[0], UINT64_MAX);
    ck_assert_uint_eq(o64[1], 1);
    for (int i = 2; i < 8; i++) ck_assert_uint_eq(o64[i], 0);

    /* width 0: nothing read, all zeros */
    pq_unpack8_u32(NULL, 0, out);
    for (int i = 0; i < 8; i++) ck_assert_uint_eq(out[i], 0);

    /* varints: 300 = 0b10_0101100 -> 0xAC 0x02; 11 bytes is overlong; cut short is 0 */
    uint64_t v;
    ck_assert_uint_eq(pq_uleb128((const uint8_t[]){0xAC, 0x02}, 2, &v), 2);
    ck_assert_uint_eq(v, 300);
    ck_assert_uint_eq(pq_uleb128((const uint8_t[]){0xAC}, 1, &v), 0);
    const uint8_t over[11] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00};
    ck_assert_uint_eq(pq_uleb128(over, 11, &v), 0);
    const uint8_t max[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    ck_assert_uint_eq(pq_uleb128(max, 10, &v), 10);
    ck_assert_uint_eq(v, UINT64_MAX);
    ck_assert_uint_eq(pq_unzigzag64(3), (uint64_t)-2);
    ck_assert_uint_eq(pq_unzigzag64(4), 2);
}
END_TEST

/* ---- RLE / bit-packed hybrid --------------------------------------------- */

/* Decodes everything in batches of `batch` and returns the count; after
 * each batch the decoder's max_out is the largest value returned so far. */
static size_t rle_all(const uint8_t *src, size_t len, int bw, size_t batch, uint32_t *out, size_t cap)
{
    pq_rle_decoder d;
    pq_error err;
    ck_assert_int_eq(pq_rle_init(&d, src, len, bw, &err), PQ_OK);
    size_t total = 0, got;
    uint32_t top = 0;
    for (;;) {
        size_t want = cap - total < batch ? cap - total : batch;
        pq_status st = pq_rle_next(&d, out + total, want, &got, &err);
        ck_assert_msg(st == PQ_OK, "%s", err.message);
        for (size_t i = total; i < total + got; i++) top = out[i] > top ? out[i] : top;
        ck_assert_msg(d.max_out == top, "width %d, batch %zu: max_out %u after %zu values, the largest is %u", bw,
                      batch, d.max_out, total + got, top);
        total += got;
        if (got < want || total == cap) break;
    }
    return total;
}

START_TEST(rle_spec_vectors)
{
    /* bit-packed run of 1 group (header (1 << 1) | 1 = 0x03) holding 0..7 at width 3 */
    const uint8_t packed[4] = {0x03, 0x88, 0xC6, 0xFA};
    uint32_t out[64];
    ck_assert_uint_eq(rle_all(packed, 4, 3, 100, out, 64), 8);
    for (uint32_t i = 0; i < 8; i++) ck_assert_uint_eq(out[i], i);

    /* RLE run: 5 copies of 1 at width 1: header 5 << 1 = 0x0A, value in 1 byte */
    const uint8_t run[2] = {0x0A, 0x01};
    ck_assert_uint_eq(rle_all(run, 2, 1, 100, out, 64), 5);
    for (int i = 0; i < 5; i++) ck_assert_uint_eq(out[i], 1);

    /* width 32: 3 copies of 0xDEADBEEF (header 0x06, value EF BE AD DE),
     * width 9: 2 copies of 0x1FF (header 0x04, value FF 01) */
    const uint8_t r32[5] = {0x06, 0xEF, 0xBE, 0xAD, 0xDE};
    ck_assert_uint_eq(rle_all(r32, 5, 32, 2, out, 64), 3);
    for (int i = 0; i < 3; i++) ck_assert_uint_eq(out[i], 0xDEADBEEFu);
    const uint8_t r9[3] = {0x04, 0xFF, 0x01};
    ck_assert_uint_eq(rle_all(r9, 3, 9, 1, out, 64), 2);
    ck_assert_uint_eq(out[0], 0x1FF);
    ck_assert_uint_eq(out[1], 0x1FF);

    /* a run of 300 (header 600 = 0xD8 0x04) of 2 at width 2 */
    const uint8_t r300[3] = {0xD8, 0x04, 0x02};
    uint32_t big[400];
    ck_assert_uint_eq(rle_all(r300, 3, 2, 7, big, 400), 300);
    for (int i = 0; i < 300; i++) ck_assert_uint_eq(big[i], 2);

    /* v1 levels: length 2 (02 00 00 00), then the run above; trailing bytes are the values */
    const uint8_t v1[8] = {0x02, 0x00, 0x00, 0x00, 0x0A, 0x01, 0xEE, 0xEE};
    pq_rle_decoder d;
    size_t used = 0, got;
    ck_assert_int_eq(pq_rle_init_prefixed(&d, v1, 8, 1, &used, NULL), PQ_OK);
    ck_assert_uint_eq(used, 6);
    ck_assert_int_eq(pq_rle_next(&d, out, 10, &got, NULL), PQ_OK);
    ck_assert_uint_eq(got, 5);
    /* v2 levels: no prefix */
    ck_assert_int_eq(pq_rle_init_levels_v2(&d, v1 + 4, 2, 1, NULL), PQ_OK);
    ck_assert_int_eq(pq_rle_next(&d, out, 10, &got, NULL), PQ_OK);
    ck_assert_uint_eq(got, 5);
    ck_assert_uint_eq(out[4], 1);

    /* dictionary indices: bit width byte 3, then the packed run 0..7 */
    const uint8_t di[5] = {0x03, 0x03, 0x88, 0xC6, 0xFA};
    ck_assert_int_eq(pq_rle_init_dict_indices(&d, di, 5, NULL), PQ_OK);
    ck_assert_int_eq(pq_rle_next(&d, out, 3, &got, NULL), PQ_OK);
    ck_assert_uint_eq(got, 3);
    ck_assert_uint_eq(out[2], 2);
    ck_assert_int_eq(pq_rle_skip(&d, 2, &got, NULL), PQ_OK); /* skips 3, 4 */
    ck_assert_int_eq(pq_rle_next(&d, out, 8, &got, NULL), PQ_OK);
    ck_assert_uint_eq(got, 3);
    ck_assert_uint_eq(out[0], 5);
    ck_assert_uint_eq(out[2], 7);
}
END_TEST

START_TEST(rle_bit_width_0)
{
    /* width 0: every value is 0, for any count, whatever the input */
    pq_rle_decoder d;
    uint32_t out[50];
    size_t got;
    memset(out, 0xAB, sizeof out);
    ck_assert_int_eq(pq_rle_init(&d, NULL, 0, 0, NULL), PQ_OK);
    ck_assert_int_eq(pq_rle_next(&d, out, 50, &got, NULL), PQ_OK);
    ck_assert_uint_eq(got, 50);
    for (int i = 0; i < 50; i++) ck_assert_uint_eq(out[i], 0);
    const uint8_t di[1] = {0x00}; /* a one-entry dictionary */
    ck_assert_int_eq(pq_rle_init_dict_indices(&d, di, 1, NULL), PQ_OK);
    ck_assert_int_eq(pq_rle_next(&d, out, 7, &got, NULL), PQ_OK);
    ck_assert_uint_eq(got, 7);
}
END_TEST

/* Every width 0..32: RLE and bit-packed runs mixed, values that use the top
 * bit, decoded in batches of 1, 3, 7 and 100 (runs cross batch ends). */
/* Long bit-packed runs (the bulk path, AVX2 for widths up to 16 where the
 * CPU has it): 2..500 groups of random values at every width, the run
 * ending exactly at the end of an exact-size heap copy of the stream (so
 * ASan sees any read past it), each value checked against the encoder's. */
/* pq_bits_set_fast (POPCNT where the CPU has it) against a bit-by-bit
 * count, on random bitmaps of 0..1100 bits in exact-size heap copies. */
START_TEST(bits_set_fast_counts)
{
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    for (uint64_t n = 0; n <= 1100; n += (n < 200 ? 1 : 37)) {
        size_t bytes = (size_t)(n + 7) / 8;
        uint8_t *b = malloc(bytes ? bytes : 1);
        ck_assert_ptr_nonnull(b);
        for (size_t i = 0; i < bytes; i++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            b[i] = (uint8_t)rng;
        }
        uint64_t want = 0;
        for (uint64_t i = 0; i < n; i++) want += (b[i / 8] >> (i % 8)) & 1;
        uint64_t got = pq_bits_set_fast(n ? b : NULL, n);
        if (got != want || pq_bits_set(b, n) != want)
            ck_abort_msg("%llu bits: fast %llu, plain %llu, expected %llu", (unsigned long long)n,
                         (unsigned long long)got, (unsigned long long)pq_bits_set(b, n), (unsigned long long)want);
        free(b);
    }
}
END_TEST

START_TEST(rle_long_packed_runs)
{
    int bw = _i;
    uint32_t mask = bw == 32 ? 0xFFFFFFFFu : (uint32_t)((1ull << bw) - 1);
    static enc e;
    static uint32_t v[4000], out[4000];
    static const size_t lens[] = {16, 17, 24, 100, 1000, 4000};
    uint64_t rng = 0x2545F4914F6CDD1Dull ^ (uint64_t)bw;
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        size_t n = lens[t];
        for (size_t i = 0; i < n; i++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            v[i] = (uint32_t)rng & mask;
        }
        e.len = 0;
        put_packed_run(&e, bw, v, n);
        uint8_t *copy = malloc(e.len);
        ck_assert_ptr_nonnull(copy);
        memcpy(copy, e.buf, e.len);
        for (int batch = 0; batch < 2; batch++) {
            memset(out, 0xCD, sizeof out);
            size_t got = rle_all(copy, e.len, bw, batch ? 8 * 37 : 4000, out, n);
            ck_assert_uint_eq(got, n);
            for (size_t i = 0; i < n; i++)
                if (out[i] != v[i])
                    ck_abort_msg("width %d, run of %zu, batch %d: value %zu is %u, expected %u", bw, n, batch, i,
                                 out[i], v[i]);
        }
        free(copy);
    }
}
END_TEST

START_TEST(rle_every_width)
{
    int bw = _i;
    uint32_t mask = bw == 32 ? 0xFFFFFFFFu : (uint32_t)((1ull << bw) - 1);
    static enc e;
    static uint32_t expect[2000], out[2000];
    size_t n = 0;
    e.len = 0;

    put_rle_run(&e, bw, mask, 13); /* the largest value */
    for (int i = 0; i < 13; i++) expect[n++] = mask;
    uint32_t lit[29];
    for (int i = 0; i < 29; i++) lit[i] = (uint32_t)(i * 2654435761u) & mask;
    put_packed_run(&e, bw, lit, 24); /* 3 whole groups */
    for (int i = 0; i < 24; i++) expect[n++] = lit[i];
    put_rle_run(&e, bw, 1 & mask, 1);
    expect[n++] = 1 & mask;
    put_packed_run(&e, bw, lit + 3, 8);
    for (int i = 0; i < 8; i++) expect[n++] = lit[3 + i];
    put_rle_run(&e, bw, 0x55555555u & mask, 300);
    for (int i = 0; i < 300; i++) expect[n++] = 0x55555555u & mask;
    put_packed_run(&e, bw, lit, 29); /* 4 groups, 3 padding values at the end */
    for (int i = 0; i < 29; i++) expect[n++] = lit[i];
    size_t padded = n + 3;

    static const size_t batches[4] = {1, 3, 7, 100};
    for (int b = 0; b < 4; b++) {
        memset(out, 0xCD, sizeof out);
        size_t got = rle_all(e.buf, e.len, bw, batches[b], out, 2000);
        if (bw == 0) { /* width 0 ignores the input: as many zeros as asked */
            ck_assert_uint_eq(got, 2000);
            for (size_t i = 0; i < got; i++) ck_assert_uint_eq(out[i], 0);
            continue;
        }
        ck_assert_uint_eq(got, padded); /* the padding values of the last group come too */
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(out[i] == expect[i], "width %d batch %zu: value %zu is %u, expected %u", bw, batches[b], i,
                          out[i], expect[i]);
    }

    /* pick: windows of 1, 64, 100 and 377 values (crossing runs), each
     * with selections from none to all, give exactly the selected values */
    static const size_t windows[4] = {1, 64, 100, 377};
    for (int wi = 0; wi < 4; wi++)
        for (unsigned density = 0; density <= 8; density++) {
            pq_rle_decoder d;
            ck_assert_int_eq(pq_rle_init(&d, e.buf, e.len, bw, NULL), PQ_OK);
            uint64_t rng = 0x9E3779B97F4A7C15ull * (density + 1) + (uint64_t)wi;
            for (size_t pos = 0; pos < n;) {
                size_t w = n - pos < windows[wi] ? n - pos : windows[wi], want = 0, consumed = 0, picked = 0;
                uint64_t bits[6] = {0};
                uint32_t expected[384];
                for (size_t j = 0; j < w; j++) {
                    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                    if ((rng & 7) < density) { /* density 8: every value */
                        bits[j / 64] |= 1ull << (j % 64);
                        expected[want++] = bw == 0 ? 0 : expect[pos + j];
                    }
                }
                memset(out, 0xCD, sizeof out);
                ck_assert_int_eq(pq_rle_pick(&d, bits, w, out, &consumed, &picked, NULL), PQ_OK);
                if (consumed != w || picked != want || memcmp(out, expected, want * sizeof *out) != 0)
                    ck_abort_msg("width %d window %zu density %u at %zu: consumed %zu picked %zu of %zu, or a value "
                                 "differs",
                                 bw, w, density, pos, consumed, picked, want);
                pos += w;
            }
        }

    /* skip then read gives the tail */
    if (bw > 0) {
        pq_rle_decoder d;
        size_t got;
        ck_assert_int_eq(pq_rle_init(&d, e.buf, e.len, bw, NULL), PQ_OK);
        ck_assert_int_eq(pq_rle_skip(&d, 20, &got, NULL), PQ_OK);
        ck_assert_uint_eq(got, 20);
        ck_assert_int_eq(pq_rle_next(&d, out, 30, &got, NULL), PQ_OK);
        ck_assert_uint_eq(got, 30);
        ck_assert_mem_eq(out, expect + 20, 30 * sizeof *out);
    }
}
END_TEST

START_TEST(rle_corrupt)
{
    pq_rle_decoder d;
    pq_error err;
    uint32_t out[64];
    size_t got, used;

    ck_assert_int_eq(pq_rle_init(&d, (const uint8_t *)"xxxx", 4, 33, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_rle_init(&d, (const uint8_t *)"xxxx", 4, -1, &err), PQ_ERR_CORRUPT_DATA);

    /* each: a bad stream at width 8 -> error on the first read */
    static const struct {
        uint8_t b[12];
        size_t len;
    } bad[] = {
        {{0x80}, 1},                                   /* header cut short */
        {{0x00}, 1},                                   /* RLE run of 0 */
        {{0x01}, 1},                                   /* bit-packed run of 0 groups */
        {{0x02}, 1},                                   /* RLE value missing */
        {{0x03}, 1},                                   /* bit-packed run with no data */
        {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 11}, /* 11-byte varint */
        {{0x80, 0x80, 0x80, 0x80, 0x20, 0x05}, 6},     /* run of 2^32 values: too long */
        {{0x81, 0x80, 0x80, 0x80, 0x02}, 5},           /* 2^28 groups: 2^31 values, too many */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(pq_rle_init(&d, bad[i].b, bad[i].len, 8, &err), PQ_OK);
        err.code = PQ_OK;
        ck_assert_msg(pq_rle_next(&d, out, 64, &got, &err) == PQ_ERR_CORRUPT_DATA, "case %zu", i);
        ck_assert_int_eq(err.code, PQ_ERR_CORRUPT_DATA);
        ck_assert_uint_eq(got, 0);
        ck_assert(strlen(err.message) > 0);
    }

    /* a good run, then garbage: the good values come out, then the error */
    const uint8_t tail[3] = {0x04, 0x07, 0x00};
    ck_assert_int_eq(pq_rle_init(&d, tail, 3, 8, &err), PQ_OK);
    ck_assert_int_eq(pq_rle_next(&d, out, 64, &got, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_uint_eq(got, 2);
    ck_assert_uint_eq(out[1], 7);

    /* a bit-packed run cut short: 1 group at width 3 with 2 of its 3 bytes:
     * 16 bits hold 5 whole values (0..4), which come out; then the end */
    const uint8_t cut[3] = {0x03, 0x88, 0xC6};
    ck_assert_int_eq(pq_rle_init(&d, cut, 3, 3, &err), PQ_OK);
    ck_assert_int_eq(pq_rle_next(&d, out, 8, &got, &err), PQ_OK);
    ck_assert_uint_eq(got, 5);
    for (uint32_t i = 0; i < 5; i++) ck_assert_uint_eq(out[i], i);

    /* v1 prefix: too short, and a length past the end */
    const uint8_t p1[3] = {1, 0, 0};
    ck_assert_int_eq(pq_rle_init_prefixed(&d, p1, 3, 1, &used, &err), PQ_ERR_CORRUPT_DATA);
    const uint8_t p2[6] = {0x03, 0, 0, 0, 0x0A, 0x01};
    ck_assert_int_eq(pq_rle_init_prefixed(&d, p2, 6, 1, &used, &err), PQ_ERR_CORRUPT_DATA);
    const uint8_t p3[5] = {0xff, 0xff, 0xff, 0xff, 0};
    ck_assert_int_eq(pq_rle_init_prefixed(&d, p3, 5, 1, &used, &err), PQ_ERR_CORRUPT_DATA);

    /* dictionary indices: empty page, bit width 33 */
    ck_assert_int_eq(pq_rle_init_dict_indices(&d, p1, 0, &err), PQ_ERR_CORRUPT_DATA);
    const uint8_t w33[2] = {33, 0};
    ck_assert_int_eq(pq_rle_init_dict_indices(&d, w33, 2, &err), PQ_ERR_CORRUPT_DATA);
}
END_TEST

/* ---- DELTA_BINARY_PACKED ---------------------------------------------------- */

START_TEST(delta_spec_examples)
{
    int64_t out[64];
    int32_t out32[64];
    size_t n, used;
    pq_error err;

    /* Spec example 1: 1 2 3 4 5. Header: block 128 (0x80 0x01), 4 miniblocks,
     * 5 values, first zigzag(1) = 2. One block: min delta zigzag(1) = 2, all
     * deltas - min = 0 -> width 0, so no miniblock bytes. Also a block with
     * fewer values than the block size, and zero-width miniblocks. */
    const uint8_t ex1[10] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
    ck_assert_int_eq(pq_delta_decode_i64(ex1, 10, out, 64, &n, &used, &err), PQ_OK);
    ck_assert_uint_eq(n, 5);
    ck_assert_uint_eq(used, 10);
    for (int i = 0; i < 5; i++) ck_assert_int_eq(out[i], i + 1);
    /* trailing bytes are not ours; widths of unneeded miniblocks are ignored */
    const uint8_t ex1b[11] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0xFF, 0xFF, 0xFF, 0x77};
    ck_assert_int_eq(pq_delta_decode_i32(ex1b, 11, out32, 5, &n, &used, &err), PQ_OK);
    ck_assert_uint_eq(used, 10);
    ck_assert_int_eq(out32[4], 5);

    /* Spec example 2: 7 5 3 1 2 3 4 5: deltas -2 -2 -2 1 1 1 1, min -2
     * (zigzag 3), deltas - min = 0 0 0 3 3 3 3 -> width 2. First zigzag(7) =
     * 14. Miniblock 0: 32 values * 2 bits = 8 bytes; LSB first:
     * byte 0 = 0,0,0,3 -> 11 00 00 00 = 0xC0, byte 1 = 3,3,3,0 -> 0x3F. */
    const uint8_t ex2[18] = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00,
                             0x00, 0xC0, 0x3F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    const int64_t e2[8] = {7, 5, 3, 1, 2, 3, 4, 5};
    ck_assert_int_eq(pq_delta_decode_i64(ex2, 18, out, 8, &n, &used, &err), PQ_OK);
    ck_assert_uint_eq(n, 8);
    ck_assert_uint_eq(used, 18);
    ck_assert_mem_eq(out, e2, sizeof e2);
    ck_assert_int_eq(pq_delta_decode_i32(ex2, 18, out32, 8, &n, &used, &err), PQ_OK);
    for (int i = 0; i < 8; i++) ck_assert_int_eq(out32[i], e2[i]);

    /* every truncation of example 2 is a clean error */
    for (size_t l = 0; l < 18; l++)
        ck_assert_msg(pq_delta_decode_i64(ex2, l, out, 8, &n, &used, &err) == PQ_ERR_CORRUPT_DATA, "len %zu", l);
    /* more values than declared */
    ck_assert_int_eq(pq_delta_decode_i64(ex2, 18, out, 7, &n, &used, &err), PQ_ERR_CORRUPT_DATA);

    /* one value: no block at all; zero values: header only */
    const uint8_t one[5] = {0x80, 0x01, 0x04, 0x01, 0x03}; /* zigzag 3 = -2 */
    ck_assert_int_eq(pq_delta_decode_i64(one, 5, out, 1, &n, &used, &err), PQ_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(used, 5);
    ck_assert_int_eq(out[0], -2);
    const uint8_t zero[5] = {0x80, 0x01, 0x04, 0x00, 0x00};
    ck_assert_int_eq(pq_delta_decode_i64(zero, 5, NULL, 0, &n, &used, &err), PQ_OK);
    ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(delta_wraparound)
{
    int64_t out[8];
    int32_t out32[8];
    size_t n, used;
    pq_error err;

    /* INT64_MAX, INT64_MIN, INT64_MAX: first zigzag(MAX) = 2^64 - 2 =
     * FE FF FF FF FF FF FF FF FF 01; deltas wrap to +1 and -1, min -1
     * (zigzag 1), deltas - min = 2, 0 -> width 2, byte 0 = 0x02. */
    const uint8_t a[27] = {0x80, 0x01, 0x04, 0x03, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
                           0x01, 0x02, 0x00, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0};
    ck_assert_int_eq(pq_delta_decode_i64(a, sizeof a, out, 8, &n, &used, &err), PQ_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(out[0], INT64_MAX);
    ck_assert_int_eq(out[1], INT64_MIN);
    ck_assert_int_eq(out[2], INT64_MAX);

    /* min delta INT64_MIN (zigzag 2^64 - 1 = FF*9 01) with 64-bit deltas
     * 0 and 2^64 - 1 from first value 0: 0 + MIN + 0 = INT64_MIN; then
     * MIN + (MIN + 2^64 - 1) = MIN + MAX = -1, all modulo 2^64. */
    static uint8_t b[5 + 10 + 4 + 256];
    size_t p = 0;
    memset(b, 0, sizeof b);
    const uint8_t hb[5] = {0x80, 0x01, 0x04, 0x03, 0x00};
    memcpy(b, hb, 5);
    p = 5;
    for (int i = 0; i < 9; i++) b[p++] = 0xFF;
    b[p++] = 0x01;
    b[p++] = 64; /* miniblock 0 width 64; the other three 0 */
    p += 3;
    memset(b + p + 8, 0xFF, 8); /* delta 1 = 2^64 - 1, delta 0 = 0 */
    ck_assert_int_eq(pq_delta_decode_i64(b, sizeof b, out, 8, &n, &used, &err), PQ_OK);
    ck_assert_uint_eq(used, sizeof b);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], INT64_MIN);
    ck_assert_int_eq(out[2], -1);
    /* the same stream into int32 keeps the low 32 bits: 0, 0, -1 */
    ck_assert_int_eq(pq_delta_decode_i32(b, sizeof b, out32, 8, &n, &used, &err), PQ_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(out32[0], 0);
    ck_assert_int_eq(out32[1], 0);
    ck_assert_int_eq(out32[2], -1);
    b[15] = 65; /* width 65 is refused for int64 too */
    ck_assert_int_eq(pq_delta_decode_i64(b, sizeof b, out, 8, &n, &used, &err), PQ_ERR_CORRUPT_DATA);

    /* int32: INT32_MAX, INT32_MIN. First zigzag(2^31 - 1) = 2^32 - 2 =
     * FE FF FF FF 0F. A 32-bit writer's delta wraps to +1 (zigzag 2); a
     * 64-bit one writes -(2^32 - 1) (zigzag 2^33 - 3 = FD FF FF FF 1F). Both
     * give INT32_MIN modulo 2^32. Width 0. */
    const uint8_t c1[14] = {0x80, 0x01, 0x04, 0x02, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 0x02, 0, 0, 0, 0};
    ck_assert_int_eq(pq_delta_decode_i32(c1, sizeof c1, out32, 8, &n, &used, &err), PQ_OK);
    ck_assert_int_eq(out32[0], INT32_MAX);
    ck_assert_int_eq(out32[1], INT32_MIN);
    const uint8_t c2[18] = {0x80, 0x01, 0x04, 0x02, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F,
                            0xFD, 0xFF, 0xFF, 0xFF, 0x1F, 0, 0, 0, 0};
    ck_assert_int_eq(pq_delta_decode_i32(c2, sizeof c2, out32, 8, &n, &used, &err), PQ_OK);
    ck_assert_int_eq(out32[0], INT32_MAX);
    ck_assert_int_eq(out32[1], INT32_MIN);
}
END_TEST

START_TEST(delta_bad_headers)
{
    int64_t out[8];
    size_t n, used;
    pq_error err;
    static const uint8_t bad[][5] = {
        {0x64, 0x04, 0x01, 0x00, 0x00}, /* block size 100: not a multiple of 128 */
        {0x00, 0x04, 0x01, 0x00, 0x00}, /* block size 0 */
        {0x80, 0x01, 0x03, 0x01, 0x00}, /* 3 miniblocks: 128 / 3 not whole */
        {0x80, 0x01, 0x08, 0x01, 0x00}, /* 8 miniblocks of 16: not a multiple of 32 */
        {0x80, 0x01, 0x00, 0x01, 0x00}, /* 0 miniblocks */
        {0x80, 0x01, 0x04, 0x01, 0x80}, /* first value cut short */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(pq_delta_decode_i64(bad[i], 5, out, 8, &n, &used, &err) == PQ_ERR_CORRUPT_DATA, "case %zu", i);
    /* width 33 for int32, as DuckDB 2.0 writes a UINTEGER column alternating
     * 0 and 4294967295: values 0, 2^32 - 1, 0; deltas +(2^32 - 1), -(2^32 - 1);
     * min delta -(2^32 - 1), zigzag 2^33 - 3 = FD FF FF FF 1F; the deltas less
     * the min are 2^33 - 2 and 0, packed in 33 bits: FE FF FF FF 01 then zeros
     * (32 values x 33 bits = 132 bytes). Modulo 2^32: 0, -1, 0. */
    uint8_t w33[16 + 132] = {0x80, 0x01, 0x04, 0x03, 0x00, 0xFD, 0xFF, 0xFF, 0xFF, 0x1F, 33, 0, 0, 0};
    w33[14] = 0xFE;
    w33[15] = w33[16] = w33[17] = 0xFF;
    w33[18] = 0x01;
    int32_t o32[8];
    ck_assert_int_eq(pq_delta_decode_i32(w33, 14 + 132, o32, 8, &n, &used, &err), PQ_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(used, 14 + 132);
    ck_assert_int_eq(o32[0], 0);
    ck_assert_int_eq(o32[1], -1);
    ck_assert_int_eq(o32[2], 0);
    /* one byte short of the 33-bit miniblock: a clean error */
    ck_assert_int_eq(pq_delta_decode_i32(w33, 14 + 131, o32, 8, &n, &used, &err), PQ_ERR_CORRUPT_DATA);
    /* width 65 is refused for int32 as for int64 */
    w33[10] = 65;
    ck_assert_int_eq(pq_delta_decode_i32(w33, sizeof w33, o32, 8, &n, &used, &err), PQ_ERR_CORRUPT_DATA);
}
END_TEST

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Round trips through put_dbp: many counts, block shapes, value ranges. */
START_TEST(delta_round_trip)
{
    static const size_t counts[] = {1, 2, 8, 33, 128, 129, 300, 1000};
    static const uint32_t shapes[][2] = {{128, 4}, {128, 1}, {256, 8}, {256, 2}, {1024, 32}};
    static int64_t v[1000], out[1000];
    static int32_t out32[1000];
    static enc e;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int kind = 0; kind < 4; kind++) {
                size_t n = counts[c], got, used;
                for (size_t i = 0; i < n; i++) {
                    uint64_t r = rng();
                    switch (kind) {
                    case 0: v[i] = (int64_t)r; break;                          /* full 64-bit range */
                    case 1: v[i] = (int64_t)(i * 3) - (int64_t)(r % 5); break;  /* small deltas */
                    case 2: v[i] = (int32_t)(uint32_t)r; break;                /* int32 range */
                    default: v[i] = 42; break;                                 /* constant: width 0 */
                    }
                }
                int bits32 = kind >= 2;
                e.len = 0;
                put_dbp(&e, v, n, shapes[s][0], shapes[s][1], bits32);
                pq_error err;
                ck_assert_msg(pq_delta_decode_i64(e.buf, e.len, out, n, &got, &used, &err) == PQ_OK || bits32, "%s",
                              err.message);
                if (!bits32) {
                    ck_assert_uint_eq(got, n);
                    ck_assert_uint_eq(used, e.len);
                    ck_assert_mem_eq(out, v, n * sizeof *v);
                } else {
                    ck_assert_msg(pq_delta_decode_i32(e.buf, e.len, out32, n, &got, &used, &err) == PQ_OK, "%s",
                                  err.message);
                    ck_assert_uint_eq(got, n);
                    ck_assert_uint_eq(used, e.len);
                    for (size_t i = 0; i < n; i++) ck_assert_int_eq(out32[i], v[i]);
                }
                /* cutting the last byte (of the last miniblock, or of the
                 * bit widths when it has width 0) is an error */
                if (n > 1)
                    ck_assert_int_eq(pq_delta_decode_i64(e.buf, e.len - 1, out, n, &got, &used, &err),
                                     PQ_ERR_CORRUPT_DATA);
            }
}
END_TEST

/* ---- DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY --------------------------- */

START_TEST(delta_length_byte_array)
{
    /* Spec example: Hello World Foobar ABCDEF -> lengths 5 5 6 6: first
     * zigzag(5) = 0x0A, deltas 0 1 0, min 0, width 1, bits 0 1 0 -> 0x02,
     * 32 values * 1 bit = 4 bytes. Then the values back to back. */
    static const uint8_t src[] = {0x80, 0x01, 0x04, 0x04, 0x0A, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00,
                                  0x00, 0x00, 'H',  'e',  'l',  'l',  'o',  'W',  'o',  'r',  'l',  'd',
                                  'F',  'o',  'o',  'b',  'a',  'r',  'A',  'B',  'C',  'D',  'E',  'F'};
    int32_t off[5];
    size_t n, dlen, used;
    const uint8_t *data;
    pq_error err;
    ck_assert_int_eq(pq_delta_length_byte_array(src, sizeof src, 4, off, 100, &n, &data, &dlen, &used, &err), PQ_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(dlen, 22);
    ck_assert_uint_eq(used, sizeof src);
    ck_assert_ptr_eq(data, src + 14);
    const int32_t eo[5] = {100, 105, 110, 116, 122};
    ck_assert_mem_eq(off, eo, sizeof eo);
    /* a value cut short; more values than declared */
    ck_assert_int_eq(pq_delta_length_byte_array(src, sizeof src - 1, 4, off, 0, &n, &data, &dlen, &used, &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_delta_length_byte_array(src, sizeof src, 3, off, 0, &n, &data, &dlen, &used, &err),
                     PQ_ERR_CORRUPT_DATA);
    /* offsets past INT32_MAX */
    ck_assert_int_eq(pq_delta_length_byte_array(src, sizeof src, 4, off, INT32_MAX - 10, &n, &data, &dlen, &used, &err),
                     PQ_ERR_UNSUPPORTED);

    /* lengths 5, -1: first 0x0A, delta -6 (zigzag 11), width 0 */
    const uint8_t neg[15] = {0x80, 0x01, 0x04, 0x02, 0x0A, 0x0B, 0, 0, 0, 0, 'a', 'b', 'c', 'd', 'e'};
    ck_assert_int_eq(pq_delta_length_byte_array(neg, sizeof neg, 4, off, 0, &n, &data, &dlen, &used, &err),
                     PQ_ERR_CORRUPT_DATA);
}
END_TEST

START_TEST(delta_byte_array_spec)
{
    /* Spec example: axis axle babble babyhood -> prefix lengths 0 2 0 3,
     * suffixes axis le babble yhood.
     * Prefixes: first 0; deltas 2 -2 3, min -2 (zigzag 3), minus min 4 0 5
     * -> width 3: bits 0-2 = 4 (b2), 3-5 = 0, 6-8 = 5 (b6, b8) -> 0x44 0x01,
     * 12 bytes per miniblock (32 * 3 bits).
     * Suffix lengths 4 2 6 5: first zigzag(4) = 8; deltas -2 4 -1, min -2,
     * minus min 0 6 1 -> width 3: bits 3-5 = 6 (b4, b5), 6-8 = 1 (b6) -> 0x70. */
    static const uint8_t src[] = {
        0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00, 0x44, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0x80, 0x01, 0x04, 0x04, 0x08, 0x03, 0x03, 0x00, 0x00, 0x00, 0x70, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        'a',  'x',  'i',  's',  'l',  'e',  'b',  'a',  'b',  'b',  'l',  'e',  'y', 'h', 'o', 'o', 'd'};
    int32_t scratch[4], off[5];
    uint8_t data[64];
    size_t n, dlen, used;
    pq_error err;
    /* size first, then decode */
    ck_assert_int_eq(pq_delta_byte_array(src, sizeof src, 4, scratch, off, 0, NULL, 0, &n, &dlen, &used, &err), PQ_OK);
    ck_assert_uint_eq(dlen, 22);
    ck_assert_uint_eq(used, sizeof src);
    ck_assert_int_eq(pq_delta_byte_array(src, sizeof src, 4, scratch, off, 10, data, dlen, &n, &dlen, &used, &err),
                     PQ_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert_mem_eq(data, "axisaxlebabblebabyhood", 22);
    const int32_t eo[5] = {10, 14, 18, 24, 32};
    ck_assert_mem_eq(off, eo, sizeof eo);
    /* too small a buffer; truncated */
    ck_assert_int_eq(pq_delta_byte_array(src, sizeof src, 4, scratch, off, 0, data, 21, &n, &dlen, &used, &err),
                     PQ_ERR_INVALID_ARGUMENT);
    for (size_t l = 0; l < sizeof src; l++)
        ck_assert_int_eq(pq_delta_byte_array(src, l, 4, scratch, off, 0, data, 64, &n, &dlen, &used, &err),
                         PQ_ERR_CORRUPT_DATA);

    /* "a" then prefix 2 of it: prefixes 0 2 (delta 2, zigzag 4, width 0),
     * suffix lengths 1 1 (first zigzag 2, min 0, width 0), data "ab". */
    const uint8_t longp[22] = {0x80, 0x01, 0x04, 0x02, 0x00, 0x04, 0, 0, 0, 0,
                               0x80, 0x01, 0x04, 0x02, 0x02, 0x00, 0, 0, 0, 0, 'a', 'b'};
    ck_assert_int_eq(pq_delta_byte_array(longp, 22, 4, scratch, off, 0, data, 64, &n, &dlen, &used, &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert(strstr(err.message, "prefix") != NULL);
    /* first prefix 1 with no previous value (first zigzag(1) = 2, delta 0) */
    uint8_t first[22];
    memcpy(first, longp, 22);
    first[4] = 0x02;
    first[5] = 0x00;
    ck_assert_int_eq(pq_delta_byte_array(first, 22, 4, scratch, off, 0, data, 64, &n, &dlen, &used, &err),
                     PQ_ERR_CORRUPT_DATA);
    /* three suffixes for two prefixes: suffix count 3 needs 3 values of data */
    uint8_t counts[23];
    memcpy(counts, longp, 22);
    counts[13] = 0x03;
    counts[22] = 'c';
    ck_assert_int_eq(pq_delta_byte_array(counts, 23, 4, scratch, off, 0, data, 64, &n, &dlen, &used, &err),
                     PQ_ERR_CORRUPT_DATA);
}
END_TEST

/* A long prefix chain through the test encoders: value i keeps a prefix of
 * value i-1 (up to all of it) and adds a suffix. */
START_TEST(delta_byte_array_chain)
{
    enum { N = 300 };
    static char vals[N][64];
    static int64_t pre[N], suf_len[N];
    static enc e, sfx;
    size_t lens[N];
    size_t total = 0;
    e.len = 0;
    sfx.len = 0;
    for (int i = 0; i < N; i++) {
        size_t prev = i ? lens[i - 1] : 0;
        size_t p = i ? (size_t)(rng() % (prev + 1)) : 0;
        if (p > 40) p = 40;
        size_t s = (size_t)(rng() % 6);
        if (i % 50 == 7) p = prev < 40 ? prev : 40; /* the whole previous value */
        if (i % 50 == 8) s = 0;                     /* nothing new: repeat a prefix */
        memcpy(vals[i], i ? vals[i - 1] : "", p);
        for (size_t k = 0; k < s; k++) {
            vals[i][p + k] = (char)('a' + rng() % 26);
            put_byte(&sfx, (uint8_t)vals[i][p + k]);
        }
        lens[i] = p + s;
        pre[i] = (int64_t)p;
        suf_len[i] = (int64_t)s;
        total += lens[i];
    }
    put_dbp(&e, pre, N, 128, 4, 1);
    put_dbp(&e, suf_len, N, 128, 4, 1);
    memcpy(e.buf + e.len, sfx.buf, sfx.len);
    e.len += sfx.len;

    static int32_t scratch[N], off[N + 1];
    static uint8_t data[N * 64];
    size_t n, dlen, used;
    pq_error err;
    ck_assert_msg(pq_delta_byte_array(e.buf, e.len, N, scratch, off, 0, data, sizeof data, &n, &dlen, &used, &err) ==
                      PQ_OK,
                  "%s", err.message);
    ck_assert_uint_eq(n, N);
    ck_assert_uint_eq(dlen, total);
    ck_assert_uint_eq(used, e.len);
    for (int i = 0; i < N; i++) {
        ck_assert_uint_eq((size_t)(off[i + 1] - off[i]), lens[i]);
        ck_assert_mem_eq(data + off[i], vals[i], lens[i]);
    }
}
END_TEST

/* ---- PLAIN ------------------------------------------------------------------ */

START_TEST(plain_values)
{
    pq_error err;
    size_t used, dlen;

    /* BOOLEAN, LSB first: 0x8D = 1000 1101 -> 1 0 1 1 0 0 0 1; 0x02 -> 0 1 */
    const uint8_t bits[2] = {0x8D, 0x02};
    const uint8_t eb[10] = {1, 0, 1, 1, 0, 0, 0, 1, 0, 1};
    uint8_t b[16];
    ck_assert_int_eq(pq_plain_boolean(bits, 2, 0, 10, b, &used, &err), PQ_OK);
    ck_assert_mem_eq(b, eb, 10);
    ck_assert_uint_eq(used, 2);
    ck_assert_int_eq(pq_plain_boolean(bits, 2, 3, 5, b, &used, &err), PQ_OK); /* resume at bit 3 */
    ck_assert_mem_eq(b, eb + 3, 5);
    ck_assert_uint_eq(used, 1);
    ck_assert_int_eq(pq_plain_boolean(bits, 2, 10, 7, b, &used, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_plain_boolean(bits, 2, 99, 0, b, &used, &err), PQ_ERR_CORRUPT_DATA);

    /* INT32 1 and -1; INT96 is 12 bytes a value; FLBA(3) */
    const uint8_t i32[8] = {0x01, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF};
    int32_t o32[2];
    ck_assert_int_eq(pq_plain_fixed(i32, 8, 4, 2, o32, &used, &err), PQ_OK);
    ck_assert_int_eq(o32[0], 1);
    ck_assert_int_eq(o32[1], -1);
    ck_assert_int_eq(pq_plain_fixed(i32, 7, 4, 2, o32, &used, &err), PQ_ERR_CORRUPT_DATA);
    uint8_t i96[25], o96[24];
    for (int i = 0; i < 25; i++) i96[i] = (uint8_t)i;
    ck_assert_int_eq(pq_plain_fixed(i96, 25, 12, 2, o96, &used, &err), PQ_OK);
    ck_assert_uint_eq(used, 24);
    ck_assert_mem_eq(o96, i96, 24);
    ck_assert_int_eq(pq_plain_fixed(i96, 23, 12, 2, o96, &used, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_plain_fixed(i96, 23, 0, 2, o96, &used, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_plain_fixed(i96, 23, 4, SIZE_MAX, o96, &used, &err), PQ_ERR_CORRUPT_DATA);

    /* BYTE_ARRAY: len 5 "Hello", len 0, len 3 "abc" (+1 trailing byte) */
    const uint8_t ba[] = {5, 0, 0, 0, 'H', 'e', 'l', 'l', 'o', 0, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c', 0x99};
    int32_t off[4] = {7, -1, -1, -1}; /* off[0] is the caller's: base */
    uint8_t data[32];
    ck_assert_int_eq(pq_plain_byte_array(ba, sizeof ba, 3, off, 7, data, sizeof data, &dlen, &used, &err), PQ_OK);
    const int32_t eo[4] = {7, 12, 12, 15};
    ck_assert_mem_eq(off, eo, sizeof eo);
    ck_assert_uint_eq(dlen, 8);
    ck_assert_uint_eq(used, 20);
    ck_assert_mem_eq(data, "Helloabc", 8);
    ck_assert_int_eq(pq_plain_byte_array(ba, sizeof ba, 3, off, 0, NULL, 0, &dlen, &used, &err), PQ_OK);
    ck_assert_uint_eq(dlen, 8);
    ck_assert_int_eq(pq_plain_byte_array(ba, sizeof ba, 4, off, 0, data, 32, &dlen, &used, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_plain_byte_array(ba, 19, 3, off, 0, data, 32, &dlen, &used, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_plain_byte_array(ba, sizeof ba, 3, off, 0, data, 7, &dlen, &used, &err),
                     PQ_ERR_INVALID_ARGUMENT);
    const uint8_t negl[6] = {0xFF, 0xFF, 0xFF, 0xFF, 'x', 'y'};
    ck_assert_int_eq(pq_plain_byte_array(negl, 6, 1, off, 0, data, 32, &dlen, &used, &err), PQ_ERR_CORRUPT_DATA);
    const uint8_t cutl[3] = {1, 0, 0};
    ck_assert_int_eq(pq_plain_byte_array(cutl, 3, 1, off, 0, data, 32, &dlen, &used, &err), PQ_ERR_CORRUPT_DATA);
}
END_TEST

/* ---- BYTE_STREAM_SPLIT -------------------------------------------------------- */

START_TEST(byte_stream_split)
{
    pq_error err;
    size_t n;

    /* width 2: 0x1234, 0xABCD -> LE 34 12, CD AB -> streams 34 CD | 12 AB */
    const uint8_t s2[4] = {0x34, 0xCD, 0x12, 0xAB};
    uint8_t o[64];
    ck_assert_int_eq(pq_byte_stream_split(s2, 4, 2, 0, 2, o, &n, &err), PQ_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_mem_eq(o, ((const uint8_t[]){0x34, 0x12, 0xCD, 0xAB}), 4);

    /* width 4: 1.0f = 0x3F800000, 2.0f = 0x40000000, -1.5f = 0xBFC00000:
     * stream j = byte j of each: 00 00 00 | 00 00 00 | 80 00 C0 | 3F 40 BF */
    const uint8_t s4[12] = {0, 0, 0, 0, 0, 0, 0x80, 0x00, 0xC0, 0x3F, 0x40, 0xBF};
    float f[3];
    ck_assert_int_eq(pq_byte_stream_split(s4, 12, 4, 0, 3, (uint8_t *)f, &n, &err), PQ_OK);
    ck_assert(f[0] == 1.0f && f[1] == 2.0f && f[2] == -1.5f);

    /* width 8: 1.0 = 0x3FF0000000000000, -2.0 = 0xC000000000000000:
     * streams 0-5 are 00 00, stream 6 F0 00, stream 7 3F C0 */
    uint8_t s8[16];
    memset(s8, 0, sizeof s8);
    s8[12] = 0xF0;
    s8[14] = 0x3F;
    s8[15] = 0xC0;
    double d[2];
    ck_assert_int_eq(pq_byte_stream_split(s8, 16, 8, 0, 2, (uint8_t *)d, &n, &err), PQ_OK);
    ck_assert(d[0] == 1.0 && d[1] == -2.0);
    /* only the second value */
    ck_assert_int_eq(pq_byte_stream_split(s8, 16, 8, 1, 1, (uint8_t *)d, &n, &err), PQ_OK);
    ck_assert(d[0] == -2.0);

    /* FLBA(5): ABCDE abcde 12345 -> streams Aa1 Bb2 Cc3 Dd4 Ee5 */
    const char *s5 = "Aa1Bb2Cc3Dd4Ee5";
    ck_assert_int_eq(pq_byte_stream_split((const uint8_t *)s5, 15, 5, 0, 3, o, &n, &err), PQ_OK);
    ck_assert_mem_eq(o, "ABCDEabcde12345", 15);
    ck_assert_int_eq(pq_byte_stream_split((const uint8_t *)s5, 15, 5, 1, 2, o, &n, &err), PQ_OK);
    ck_assert_mem_eq(o, "abcde12345", 10);

    /* errors: length not a multiple of the width, width 0, range past the end */
    ck_assert_int_eq(pq_byte_stream_split(s2, 3, 2, 0, 1, o, &n, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_byte_stream_split(s2, 4, 0, 0, 1, o, &n, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_byte_stream_split(s2, 4, 2, 1, 2, o, &n, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_byte_stream_split(s2, 4, 2, 3, 0, o, &n, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_byte_stream_split(s2, 4, 2, 1, SIZE_MAX, o, &n, &err), PQ_ERR_CORRUPT_DATA);
}
END_TEST

/* ---- Dictionary gather ---------------------------------------------------------- */

START_TEST(dictionary_gather)
{
    pq_error err;
    const int32_t dict[3] = {10, 20, 30};
    const uint32_t idx[4] = {2, 0, 1, 2};
    int32_t out[4];
    ck_assert_int_eq(pq_dict_gather_fixed((const uint8_t *)dict, 3, 4, idx, 4, (uint8_t *)out, &err), PQ_OK);
    const int32_t e[4] = {30, 10, 20, 30};
    ck_assert_mem_eq(out, e, sizeof e);
    const int64_t dict64[2] = {-1, INT64_MAX};
    const uint32_t idx64[3] = {1, 1, 0};
    int64_t o64[3];
    ck_assert_int_eq(pq_dict_gather_fixed((const uint8_t *)dict64, 2, 8, idx64, 3, (uint8_t *)o64, &err), PQ_OK);
    ck_assert(o64[0] == INT64_MAX && o64[1] == INT64_MAX && o64[2] == -1);
    const uint8_t d3[6] = {'a', 'b', 'c', 'x', 'y', 'z'};
    uint8_t o3[9];
    ck_assert_int_eq(pq_dict_gather_fixed(d3, 2, 3, idx64, 3, o3, &err), PQ_OK);
    ck_assert_mem_eq(o3, "xyzxyzabc", 9);

    /* index 3 of 3 entries, at position 2 */
    const uint32_t badidx[4] = {0, 1, 3, 0};
    ck_assert_int_eq(pq_dict_gather_fixed((const uint8_t *)dict, 3, 4, badidx, 4, (uint8_t *)out, &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert(strstr(err.message, "index 3") != NULL);
    const uint32_t huge[1] = {UINT32_MAX};
    ck_assert_int_eq(pq_dict_gather_fixed((const uint8_t *)dict, 3, 4, huge, 1, (uint8_t *)out, &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_dict_gather_fixed((const uint8_t *)dict, 0, 4, idx, 1, (uint8_t *)out, &err),
                     PQ_ERR_CORRUPT_DATA);

    /* binary: a dictionary from PLAIN ("Hello", "", "abc" at base 7) */
    const uint8_t ba[] = {5, 0, 0, 0, 'H', 'e', 'l', 'l', 'o', 0, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'};
    int32_t doff[4] = {7}, off[5] = {1}; /* entry 0 is the caller's: base */
    uint8_t ddata[8], data[32];
    size_t dlen, used;
    ck_assert_int_eq(pq_plain_byte_array(ba, sizeof ba, 3, doff, 7, ddata, 8, &dlen, &used, &err), PQ_OK);
    const uint32_t bi[4] = {2, 1, 0, 2};
    ck_assert_int_eq(pq_dict_gather_binary(doff, ddata, 3, bi, 4, off, 0, NULL, 0, &dlen, &err), PQ_OK);
    ck_assert_uint_eq(dlen, 11);
    ck_assert_int_eq(pq_dict_gather_binary(doff, ddata, 3, bi, 4, off, 1, data, 32, &dlen, &err), PQ_OK);
    ck_assert_mem_eq(data, "abcHelloabc", 11);
    const int32_t eo[5] = {1, 4, 4, 9, 12};
    ck_assert_mem_eq(off, eo, sizeof eo);
    ck_assert_int_eq(pq_dict_gather_binary(doff, ddata, 3, badidx, 4, off, 0, data, 32, &dlen, &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_dict_gather_binary(doff, ddata, 3, bi, 4, off, 0, data, 10, &dlen, &err),
                     PQ_ERR_INVALID_ARGUMENT);
}
END_TEST

/* The padded gather against a byte-by-byte one: dictionaries whose longest
 * entry takes the 16-byte, the 32-byte and the exact copies, each into a
 * room of exactly the entries' bytes (the padded copies must stop short of
 * its end: the bytes past it are a canary), one byte short of it (-2), and
 * offsets that would pass INT32_MAX (-1). */
START_TEST(dictionary_gather_padded)
{
    const size_t longest[] = {0, 1, 15, 16, 17, 31, 32, 33, 70};
    unsigned seed = 12345;
    for (size_t t = 0; t < sizeof longest / sizeof *longest; t++) {
        enum { ENTRIES = 23, N = 500 };
        int32_t doff[ENTRIES + 1];
        uint8_t ddata[ENTRIES * 70 + PQ_DICT_COPY_SLACK];
        doff[0] = 0;
        for (size_t e = 0; e < ENTRIES; e++) {
            size_t l = e == 0 ? longest[t] : (seed = seed * 1103515245u + 12345u) % (longest[t] + 1);
            for (size_t b = 0; b < l; b++) ddata[doff[e] + b] = (uint8_t)('a' + (e * 7 + b) % 26);
            doff[e + 1] = doff[e] + (int32_t)l;
        }
        memset(ddata + doff[ENTRIES], 0, PQ_DICT_COPY_SLACK);
        uint32_t idx[N];
        size_t total = 0;
        for (size_t i = 0; i < N; i++) {
            idx[i] = (seed = seed * 1103515245u + 12345u) % ENTRIES;
            total += (size_t)(doff[idx[i] + 1] - doff[idx[i]]);
        }
        uint8_t *want = malloc(total + 1), *got = malloc(total + 64);
        int32_t woff[N + 1], goff[N + 1];
        woff[0] = goff[0] = 5;
        size_t w = 0;
        for (size_t i = 0; i < N; i++) {
            size_t l = (size_t)(doff[idx[i] + 1] - doff[idx[i]]);
            memcpy(want + w, ddata + doff[idx[i]], l);
            w += l;
            woff[i + 1] = 5 + (int32_t)w;
        }
        memset(got, 0xEE, total + 64);
        int64_t wrote = pq_dict_gather_binary_padded(doff, ddata, longest[t], idx, N, goff, 5, got, total);
        ck_assert_int_eq(wrote, (int64_t)total);
        ck_assert(memcmp(got, want, total) == 0);
        ck_assert_mem_eq(goff, woff, sizeof woff);
        for (size_t b = total; b < total + 64; b++) ck_assert_uint_eq(got[b], 0xEE);
        if (total) {
            ck_assert_int_eq(pq_dict_gather_binary_padded(doff, ddata, longest[t], idx, N, goff, 5, got, total - 1),
                             -2);
            for (size_t b = total; b < total + 64; b++) ck_assert_uint_eq(got[b], 0xEE);
            ck_assert_int_eq(pq_dict_gather_binary_padded(doff, ddata, longest[t], idx, N, goff,
                                                          INT32_MAX - (int32_t)total + 1, got, total + 64),
                             -1);
        }
        free(want);
        free(got);
    }
}
END_TEST

/* The range check finds the first bad index wherever it lies (inside a
 * 16-index step, in the tail, at the sign bit), against a plain scan. */
START_TEST(dict_range_check)
{
    uint32_t idx[100];
    const size_t sizes[] = {1, 2, 7, 100, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xffffffffu};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t dn = sizes[s];
        for (size_t n = 0; n <= 100; n += (n < 40 ? 1 : 13)) {
            for (size_t bad = 0; bad <= n; bad++) {
                for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)((i * 2654435761u) % dn);
                if (bad < n) idx[bad] = (uint32_t)(bad % 2 ? dn : (dn > 0x7fffffffu ? 0xffffffffu : 0x80000000u));
                if (bad < n && idx[bad] < dn) continue; /* dn 0xffffffff: only 0xffffffff is out */
                size_t want = n;
                for (size_t i = 0; i < n; i++)
                    if (idx[i] >= dn) {
                        want = i;
                        break;
                    }
                ck_assert_uint_eq(pq_dict_first_out_of_range(idx, n, dn), want);
            }
        }
    }
    ck_assert_uint_eq(pq_dict_first_out_of_range(idx, 5, 0), 0);
    ck_assert_uint_eq(pq_dict_first_out_of_range(idx, 0, 0), 0);
    ck_assert_uint_eq(pq_dict_first_out_of_range(idx, 5, (size_t)UINT32_MAX + 1), 5);

    /* The bytes the indices name: entries of 0 to 2^31 - 2 bytes, each
     * length added as often as it is named (a 16-index step, the tail),
     * against the sum by hand; the dispatched kernel equals the portable. */
    int32_t offs[6] = {0, 3, 3, 10, INT32_MAX - 1, INT32_MAX - 1}; /* lengths 3, 0, 7, 2^31 - 11, 0 */
    const uint64_t lens[5] = {3, 0, 7, (uint64_t)INT32_MAX - 11, 0};
    for (size_t n = 0; n <= 100; n += (n < 40 ? 1 : 13)) {
        uint64_t want = 0;
        for (size_t i = 0; i < n; i++) {
            idx[i] = (uint32_t)((i * 2654435761u) % 5);
            want += lens[idx[i]];
        }
        ck_assert_uint_eq(pq_dict_bytes_checked(offs, idx, n), want);
        ck_assert_uint_eq(pq_dict_bytes_checked_portable(offs, idx, n), want);
    }
    for (size_t i = 0; i < 32; i++) idx[i] = 3; /* 32 of the largest: past 2^32 bytes in all */
    ck_assert_uint_eq(pq_dict_bytes_checked(offs, idx, 32), 32 * lens[3]);

    /* The checked gather: every width, against the entries themselves. */
    uint8_t dict[7 * 20], out[20 * 100];
    for (size_t i = 0; i < sizeof dict; i++) dict[i] = (uint8_t)(i * 7 + 1);
    for (size_t w = 1; w <= 20; w++) {
        size_t dn = sizeof dict / w < 7 ? sizeof dict / w : 7;
        for (size_t i = 0; i < 100; i++) idx[i] = (uint32_t)((i * 5 + w) % dn);
        pq_dict_gather_fixed_checked(dict, w, idx, 100, out);
        for (size_t i = 0; i < 100; i++) ck_assert_mem_eq(out + i * w, dict + idx[i] * w, w);
    }
}
END_TEST

/* Both routes of a kernel (its dispatch and its portable loop) gave `want`. */
static void routes_equal(const void *fast, const void *portable, const void *want, size_t bytes)
{
    if (!bytes) return;
    ck_assert_mem_eq(fast, want, bytes);
    ck_assert_mem_eq(portable, want, bytes);
}

/* routes_equal, then the three buffers freed. */
static void routes_equal_free(void *fast, void *portable, void *want, size_t bytes)
{
    routes_equal(fast, portable, want, bytes);
    free(fast);
    free(portable);
    free(want);
}

/* Selecting indices by a bitmap, in place: every length to 1024 across
 * densities from none to all (set bits past the length must be ignored),
 * both routes, against the kept indices listed one by one. */
START_TEST(dict_indices_select)
{
    static uint32_t a[1024], b[1024], want[1024];
    uint64_t bits[16];
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    const unsigned dens[] = {0, 1, 8, 50, 128, 230, 255, 256}; /* of 256 */
    for (size_t w = 0; w <= 1024; w += (w < 70 ? 1 : 37)) {
        for (size_t d = 0; d < sizeof dens / sizeof *dens; d++) {
            size_t nw = 0;
            for (size_t k = 0; k < 16; k++) {
                uint64_t word = 0;
                for (int j = 0; j < 64; j++) {
                    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                    if ((seed >> 56) < dens[d]) word |= 1ull << j;
                }
                bits[k] = word;
            }
            for (size_t i = 0; i < w; i++) {
                a[i] = b[i] = (uint32_t)(i * 2654435761u);
                if (bits[i / 64] >> (i % 64) & 1) want[nw++] = a[i];
            }
            size_t ma = pq_dict_indices_select(a, bits, w), mb = pq_dict_indices_select_portable(b, bits, w);
            ck_assert_uint_eq(ma, nw);
            ck_assert_uint_eq(mb, nw);
            routes_equal(a, b, want, nw * 4);
        }
    }
}
END_TEST

/* Values of 64 rows picked by a mask, widths 4, 8, 16 (and 12, 2: value
 * by value): both routes
 * against the values copied one by one, at densities from none to all;
 * the source ends at the highest set bit (ASan: nothing past it is read)
 * and the output room is exactly the count (nothing past it written). */
START_TEST(plain_select64)
{
    uint64_t seed = 0x2545f4914f6cdd1dull;
    const unsigned dens[] = {0, 1, 9, 77, 128, 200, 255, 256};
    const size_t widths[] = {4, 8, 16, 12, 2};
    for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++) {
        size_t width = widths[wi];
        for (size_t d = 0; d < sizeof dens / sizeof *dens; d++) {
            for (int rep = 0; rep < 50; rep++) {
                uint64_t bits = 0;
                for (int j = 0; j < 64; j++) {
                    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                    if ((seed >> 56) < dens[d]) bits |= 1ull << j;
                }
                size_t top = bits ? 64 - (size_t)__builtin_clzll(bits) : 0, n = (size_t)__builtin_popcountll(bits);
                uint8_t *src = malloc(top * width + 1), *a = malloc(n * width + 1), *b = malloc(n * width + 1);
                uint8_t want[64 * 16];
                ck_assert_ptr_nonnull(src);
                for (size_t i = 0; i < top * width; i++) src[i] = (uint8_t)(i * 31 + rep);
                for (size_t i = 0, m = 0; i < top; i++)
                    if (bits >> i & 1) memcpy(want + width * m++, src + i * width, width);
                ck_assert_uint_eq(pq_plain_select64(src, width, bits, a), n);
                ck_assert_uint_eq(pq_plain_select64_portable(src, width, bits, b), n);
                routes_equal(a, b, want, n * width);
                free(src);
                free(a);
                free(b);
            }
        }
    }
}
END_TEST

/* Spreading values to their slots by a validity bitmap, in place: widths
 * 4, 8, 16 (and 2, value by value), counts that end inside a bitmap byte,
 * densities from no valid slot to all; both routes against each slot set
 * by hand (a valid slot its next value, a null one zero). Gathering a
 * bitmap's kept bits: both routes against bit-by-bit. */
/* INT32 and INT64 sign-extended into decimal128 and decimal256 slots, out
 * of place and in place (dst the input's own buffer), every length to 100
 * (the eight-value steps and their tails), both routes, against each value
 * written out by hand: its bytes, then 0x00 or 0xff to the slot's end. */
START_TEST(ints_sign_extend)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (size_t w = 4; w <= 8; w += 4)
        for (size_t ow = 16; ow <= 32; ow += 16)
            for (size_t n = 0; n <= 100; n++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    uint8_t *src = malloc(n * w + 1), *a = malloc(n * ow + 1), *b = malloc(n * ow + 1);
                    uint8_t *want = malloc(n * ow + 1);
                    ck_assert_ptr_nonnull(src);
                    ck_assert_ptr_nonnull(a);
                    ck_assert_ptr_nonnull(b);
                    ck_assert_ptr_nonnull(want);
                    for (size_t i = 0; i < n; i++) {
                        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                        uint64_t v = i % 5 == 0 ? 0 : i % 5 == 1 ? ~0ull : seed >> (i % 3 * 20);
                        memcpy(src + i * w, &v, w);
                        bool negative = (src[i * w + w - 1] & 0x80) != 0;
                        memcpy(want + i * ow, src + i * w, w);
                        memset(want + i * ow + w, negative ? 0xff : 0, ow - w);
                    }
                    if (in_place) { /* the input at the start of the output buffer */
                        memcpy(a, src, n * w);
                        memcpy(b, src, n * w);
                        pq_ints_sign_extend(a, ow, a, w, n);
                        pq_ints_sign_extend_portable(b, ow, b, w, n);
                    } else {
                        pq_ints_sign_extend(a, ow, src, w, n);
                        pq_ints_sign_extend_portable(b, ow, src, w, n);
                    }
                    routes_equal_free(a, b, want, n * ow);
                    free(src);
                }
}
END_TEST

/* Definition levels to non-null bits: every count to 64 (the sixteen-lane
 * compares and their masked tail), levels 0..3 against maxima 1 and 2
 * (above it: *over), both routes, against the bits set one by one. */
START_TEST(levels_equal64)
{
    uint64_t seed = 0x243f6a8885a308d3ull;
    uint32_t levels[64];
    for (uint32_t max = 1; max <= 2; max++)
        for (size_t n = 0; n <= 64; n++)
            for (int rep = 0; rep < 8; rep++) {
                uint64_t want = 0;
                bool want_over = false;
                for (size_t j = 0; j < 64; j++) {
                    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                    /* past n: levels that would be set or over, to be ignored */
                    levels[j] = j >= n ? max + (uint32_t)(rep & 1) : rep < 6 ? (uint32_t)(seed >> 62) % (max + 1)
                                                                             : (uint32_t)(seed >> 62);
                    if (j < n && levels[j] == max) want |= 1ull << j;
                    if (j < n && levels[j] > max) want_over = true;
                }
                bool over = !want_over, over_p = !want_over;
                ck_assert_uint_eq(pq_levels_equal64(levels, n, max, &over), want);
                ck_assert_uint_eq(pq_levels_equal64_portable(levels, n, max, &over_p), want);
                ck_assert(over == want_over && over_p == want_over);
            }
}
END_TEST

START_TEST(spread_and_bit_select)
{
    uint64_t seed = 0x853c49e6748fea9bull;
    const unsigned dens[] = {0, 1, 30, 128, 230, 255, 256};
    const size_t widths[] = {4, 8, 16, 2};
    for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++) {
        size_t ow = widths[wi];
        for (size_t n = 0; n <= 200; n += (n < 40 ? 1 : 23)) {
            for (size_t d = 0; d < sizeof dens / sizeof *dens; d++) {
                uint8_t validity[32] = {0};
                size_t m = 0;
                for (size_t i = 0; i < n; i++) {
                    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                    if ((seed >> 56) < dens[d]) {
                        validity[i / 8] |= (uint8_t)(1u << (i % 8));
                        m++;
                    }
                }
                /* bits past n set too: they must be ignored */
                if (n % 8) validity[n / 8] |= (uint8_t)(0xff << (n % 8));
                uint8_t *a = malloc(n * ow + 1), *b = malloc(n * ow + 1), *want = calloc(n * ow + 1, 1);
                ck_assert_ptr_nonnull(a);
                for (size_t i = 0; i < n * ow; i++) a[i] = b[i] = (uint8_t)(i * 7 + 3);
                for (size_t i = 0, v = 0; i < n; i++)
                    if (validity[i / 8] >> (i % 8) & 1) memcpy(want + i * ow, a + v++ * ow, ow);
                pq_spread_in_place(a, ow, validity, n, m);
                pq_spread_in_place_portable(b, ow, validity, n, m);
                routes_equal_free(a, b, want, n * ow);
            }
        }
    }
    for (int rep = 0; rep < 2000; rep++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t src = seed;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t keep = rep % 4 == 0 ? seed : rep % 4 == 1 ? seed & (seed >> 7) : rep % 4 == 2 ? ~0ull : seed | (seed << 3);
        if (rep == 5) keep = 0;
        uint64_t want = 0;
        for (int i = 0, k = 0; i < 64; i++)
            if (keep >> i & 1) want |= (src >> i & 1) << k++;
        ck_assert_uint_eq(pq_bits_select64(src, keep), want);
        ck_assert_uint_eq(pq_bits_select64_portable(src, keep), want);
    }
}
END_TEST

/* UTF-8: hand-picked valid and invalid sequences (RFC 3629 table 3.7 of
 * the Unicode standard: the well-formed byte ranges). */
START_TEST(utf8_validation)
{
    static const struct {
        const char *s;
        size_t len, bad; /* bad: offset of the first invalid byte, or len */
    } v[] = {
        {"", 0, 0},
        {"plain ascii, longer than eight bytes", 36, 36},
        {"\x7f", 1, 1},
        {"caf\xc3\xa9", 5, 5},                 /* U+00E9 */
        {"\xe2\x82\xac", 3, 3},               /* U+20AC */
        {"\xf0\x9f\x98\x80", 4, 4},          /* U+1F600 */
        {"\xf4\x8f\xbf\xbf", 4, 4},          /* U+10FFFF, the last */
        {"\xed\x9f\xbf", 3, 3},               /* U+D7FF, before the surrogates */
        {"\xee\x80\x80", 3, 3},               /* U+E000, after them */
        {"ab\x80", 3, 2},                      /* lone continuation */
        {"\xc0\xaf", 2, 0},                    /* overlong '/' */
        {"\xc1\xbf", 2, 0},
        {"\xe0\x9f\xbf", 3, 0},               /* overlong 3-byte */
        {"\xf0\x8f\xbf\xbf", 4, 0},          /* overlong 4-byte */
        {"\xed\xa0\x80", 3, 0},               /* U+D800, a surrogate */
        {"\xf4\x90\x80\x80", 4, 0},          /* U+110000 */
        {"\xf5\x80\x80\x80", 4, 0},
        {"\xff", 1, 0},
        {"x\xc3", 2, 1},                       /* truncated */
        {"12345678\xe2\x82", 10, 8},          /* truncated after an ASCII word */
        {"\xe2\x28\xa1", 3, 0},               /* bad continuation */
        {"\xf0\x9f\x98\x28", 4, 0},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        ck_assert_msg(pq_utf8_invalid_at((const uint8_t *)v[i].s, v[i].len) == v[i].bad,
                      "case %zu: %zu, want %zu", i,
                      pq_utf8_invalid_at((const uint8_t *)v[i].s, v[i].len), v[i].bad);
    /* Every code point encodes to bytes the validator accepts. */
    for (uint32_t cp = 0; cp <= 0x10ffff; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        uint8_t b[8] = {0}; /* 8: the validator's word path may be inlined here */
        size_t n;
        if (cp < 0x80) { b[0] = (uint8_t)cp; n = 1; }
        else if (cp < 0x800) { b[0] = (uint8_t)(0xc0 | cp >> 6); b[1] = (uint8_t)(0x80 | (cp & 63)); n = 2; }
        else if (cp < 0x10000) {
            b[0] = (uint8_t)(0xe0 | cp >> 12); b[1] = (uint8_t)(0x80 | (cp >> 6 & 63));
            b[2] = (uint8_t)(0x80 | (cp & 63)); n = 3;
        } else {
            b[0] = (uint8_t)(0xf0 | cp >> 18); b[1] = (uint8_t)(0x80 | (cp >> 12 & 63));
            b[2] = (uint8_t)(0x80 | (cp >> 6 & 63)); b[3] = (uint8_t)(0x80 | (cp & 63)); n = 4;
        }
        ck_assert_msg(pq_utf8_invalid_at(b, n) == n, "U+%04X rejected", cp);
    }
}
END_TEST

static Suite *kernels_suite(void)
{
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("unpack");
    tcase_add_test(tc, unpack_spec_example);
    tcase_add_test(tc, dict_range_check);
    tcase_add_test(tc, dict_indices_select);
    tcase_add_test(tc, plain_select64);
    tcase_add_test(tc, spread_and_bit_select);
    tcase_add_test(tc, ints_sign_extend);
    tcase_add_test(tc, levels_equal64);
    tcase_add_test(tc, unpack_fixed_widths);
    suite_add_tcase(s, tc);
    tc = tcase_create("rle");
    tcase_add_test(tc, rle_spec_vectors);
    tcase_add_test(tc, rle_bit_width_0);
    tcase_add_loop_test(tc, rle_every_width, 0, 33);
    tcase_add_loop_test(tc, rle_long_packed_runs, 1, 33);
    tcase_add_test(tc, bits_set_fast_counts);
    tcase_add_test(tc, rle_corrupt);
    suite_add_tcase(s, tc);
    tc = tcase_create("delta");
    tcase_add_test(tc, delta_spec_examples);
    tcase_add_test(tc, delta_wraparound);
    tcase_add_test(tc, delta_bad_headers);
    tcase_add_test(tc, delta_round_trip);
    tcase_add_test(tc, delta_length_byte_array);
    tcase_add_test(tc, delta_byte_array_spec);
    tcase_add_test(tc, delta_byte_array_chain);
    suite_add_tcase(s, tc);
    tc = tcase_create("plain");
    tcase_add_test(tc, plain_values);
    suite_add_tcase(s, tc);
    tc = tcase_create("byte_stream_split");
    tcase_add_test(tc, byte_stream_split);
    suite_add_tcase(s, tc);
    tc = tcase_create("dictionary");
    tcase_add_test(tc, dictionary_gather);
    tcase_add_test(tc, dictionary_gather_padded);
    tcase_add_test(tc, utf8_validation);
    tcase_add_test(tc, unpack_wide_matches_bits_at);
    tcase_add_test(tc, rle_leading_run);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(kernels_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
