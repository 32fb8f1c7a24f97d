/*
 * test_bloom_filter.c — split-block bloom filters (metadata/bloom_filter.c).
 *
 * Oracles:
 *  - xxHash64: published test vectors (below), so our calls into libxxhash
 *    (seed 0, the 64-bit function) are checked against values that do not
 *    come from it. The typed-value hashes were computed with an independent
 *    Python transcription of the XXH64 algorithm, which also reproduces every
 *    published vector here.
 *  - the filter layout: the two corpus files with bloom filters, written by
 *    parquet-mr 1.13 (no bloom_filter_length) and parquet-rs 49 (with it).
 *    Their 14 strings (read with pyarrow; the same in both files) must all
 *    be "might contain": with filters of 1024 and 2048 bytes holding 14
 *    values, a wrong block choice, mask or hash input would miss almost
 *    every value. Header sizes and numBytes come from the bytes (xxd).
 *  - false positives: measured over probes known to be absent, compared with
 *    the rate the bitset itself implies (the mean over blocks of the product
 *    of the eight words' fill ratios: exact for uniform hashes) and with the
 *    design rate of the spec's sizing formula.
 *  - headers: hand-encoded Thrift compact bytes.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/bloom_filter.h"
#include "pqstep.h"
#include "compact_writer.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------
 * Hashing
 * ------------------------------------------------------------------------- */

/* The buffer of xxHash's sanity test: byte i is the top byte of
 * PRIME32 * PRIME64^i (mod 2^64). */
static void sanity_buffer(uint8_t *b, size_t n)
{
    uint64_t g = 2654435761u;
    for (size_t i = 0; i < n; i++) {
        b[i] = (uint8_t)(g >> 56);
        g *= 11400714785074694797ull;
    }
}

START_TEST(xxhash64_test_vectors)
{
    /* Published XXH64 values, seed 0: "" -> EF46DB3751D8E999 (the xxHash
     * README / spec), "a" -> D24EC4F1A98C6E5B, "abc" -> 44BC2CF5AD770999, and
     * the sanity-test buffer of 1, 14 and 222 bytes -> E934A84ADB052768,
     * 8282DCC4994E35C8, B641AE8CB691C174 (xxHash's sanity check table). */
    ck_assert_uint_eq(pq_bloom_hash_bytes("", 0), 0xEF46DB3751D8E999ull);
    ck_assert_uint_eq(pq_bloom_hash_bytes(NULL, 0), 0xEF46DB3751D8E999ull);
    ck_assert_uint_eq(pq_bloom_hash_bytes("a", 1), 0xD24EC4F1A98C6E5Bull);
    ck_assert_uint_eq(pq_bloom_hash_bytes("abc", 3), 0x44BC2CF5AD770999ull);
    uint8_t b[222];
    sanity_buffer(b, sizeof b);
    ck_assert_uint_eq(pq_bloom_hash_bytes(b, 1), 0xE934A84ADB052768ull);
    ck_assert_uint_eq(pq_bloom_hash_bytes(b, 14), 0x8282DCC4994E35C8ull);
    ck_assert_uint_eq(pq_bloom_hash_bytes(b, 222), 0xB641AE8CB691C174ull);
}
END_TEST

START_TEST(plain_encodings_are_hashed)
{
    /* Independent values (Python XXH64 of struct.pack('<i', 1), ...). */
    ck_assert_uint_eq(pq_bloom_hash_i32(1), 0xf42f94001fcb5351ull);
    ck_assert_uint_eq(pq_bloom_hash_i32(-1), 0x7f78e4bda3addf93ull);
    ck_assert_uint_eq(pq_bloom_hash_i64(1), 0x9f29cb17a2a49995ull);
    ck_assert_uint_eq(pq_bloom_hash_float(1.5f), 0x4f2d82595c483a0dull);
    ck_assert_uint_eq(pq_bloom_hash_double(1.5), 0x49f7b96b6b5ccaf9ull);
    /* Bit patterns: the two zeros differ. */
    ck_assert_uint_ne(pq_bloom_hash_double(0.0), pq_bloom_hash_double(-0.0));

    uint64_t h = 0;
    const uint8_t le1[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    ck_assert(pq_bloom_hash_plain(PQ_INT32, 0, le1, 4, &h));
    ck_assert_uint_eq(h, 0xf42f94001fcb5351ull);
    ck_assert(pq_bloom_hash_plain(PQ_INT64, 0, le1, 8, &h));
    ck_assert_uint_eq(h, 0x9f29cb17a2a49995ull);
    ck_assert(pq_bloom_hash_plain(PQ_BYTE_ARRAY, 0, "Hello", 5, &h));
    ck_assert_uint_eq(h, 0x0a75a91375b27d44ull);
    ck_assert(pq_bloom_hash_plain(PQ_BYTE_ARRAY, 0, NULL, 0, &h));
    ck_assert_uint_eq(h, 0xEF46DB3751D8E999ull);
    uint8_t twelve[12];
    for (int i = 0; i < 12; i++) twelve[i] = (uint8_t)i;
    ck_assert(pq_bloom_hash_plain(PQ_INT96, 0, twelve, 12, &h));
    ck_assert_uint_eq(h, 0x424af23f1f08dca5ull);
    ck_assert(pq_bloom_hash_plain(PQ_FIXED_LEN_BYTE_ARRAY, 12, twelve, 12, &h));
    ck_assert_uint_eq(h, 0x424af23f1f08dca5ull);

    /* Lengths that do not fit the type, BOOLEAN, unknown types: no hash. */
    h = 7;
    ck_assert(!pq_bloom_hash_plain(PQ_INT32, 0, le1, 8, &h));
    ck_assert(!pq_bloom_hash_plain(PQ_DOUBLE, 0, le1, 4, &h));
    ck_assert(!pq_bloom_hash_plain(PQ_INT96, 0, le1, 8, &h));
    ck_assert(!pq_bloom_hash_plain(PQ_FIXED_LEN_BYTE_ARRAY, 4, twelve, 12, &h));
    ck_assert(!pq_bloom_hash_plain(PQ_FIXED_LEN_BYTE_ARRAY, -1, twelve, 12, &h));
    ck_assert(!pq_bloom_hash_plain(PQ_BOOLEAN, 0, le1, 1, &h));
    ck_assert(!pq_bloom_hash_plain(8, 0, le1, 1, &h));
    ck_assert(!pq_bloom_hash_plain(-1, 0, le1, 1, &h));
    ck_assert_uint_eq(h, 7);
    ck_assert(!pq_bloom_type_hashable(PQ_BOOLEAN));
    for (int t = PQ_INT32; t <= PQ_FIXED_LEN_BYTE_ARRAY; t++) ck_assert(pq_bloom_type_hashable(t));
    ck_assert(!pq_bloom_type_hashable(8));
}
END_TEST

/* ---------------------------------------------------------------------------
 * Hand-built filters
 * ------------------------------------------------------------------------- */

static int popcount(uint32_t w) { return __builtin_popcount(w); }

START_TEST(block_and_bits_are_chosen_per_spec)
{
    pq_bloom_filter f;
    pq_error err;
    ck_assert_int_eq(pq_bloom_filter_init(&f, 128, &err), PQ_OK); /* 4 blocks */
    ck_assert_uint_eq(f.nblocks, 4);
    /* Key 0: every product with a salt is 0, so bit 0 of each word. Upper
     * half 0x80000000 of 4 blocks: block (0x80000000 * 4) >> 32 = 2. */
    pq_bloom_filter_insert(&f, 0x8000000000000000ull);
    for (int i = 0; i < 32; i++) ck_assert_uint_eq(f.words[i], i / 8 == 2 ? 1u : 0u);
    /* Key 1: word i gets bit SALT[i] >> 27; SALT[0] = 0x47b6137b gives 8,
     * SALT[2] = 0x8824ad5b gives 17, SALT[7] = 0x5c6bfb31 gives 11.
     * Upper half 0xffffffff: block 3; 0x3fffffff: block 0. */
    pq_bloom_filter_insert(&f, 0xffffffff00000001ull);
    ck_assert_uint_eq(f.words[24], 1u << 8);
    ck_assert_uint_eq(f.words[26], 1u << 17);
    ck_assert_uint_eq(f.words[31], 1u << 11);
    pq_bloom_filter_insert(&f, 0x3fffffff00000001ull);
    ck_assert_uint_eq(f.words[0], 1u << 8);
    for (int i = 0; i < 32; i++) ck_assert_int_eq(popcount(f.words[i]), i / 8 == 1 ? 0 : 1);
    ck_assert(pq_bloom_filter_might_contain(&f, 0x8000000000000000ull));
    ck_assert(pq_bloom_filter_might_contain(&f, 0xffffffff00000001ull));
    /* Block 3 with key 0 needs bit 0 of each word: none is set there. */
    ck_assert(!pq_bloom_filter_might_contain(&f, 0xc000000000000000ull));
    ck_assert(!pq_bloom_filter_might_contain(&f, 0x4000000000000000ull)); /* block 1: empty */
    pq_bloom_filter_free(&f);
    ck_assert_ptr_null(f.words);
}
END_TEST

START_TEST(insert_then_check)
{
    pq_bloom_filter f;
    pq_error err;
    ck_assert_int_eq(pq_bloom_filter_init(&f, 4096, &err), PQ_OK);
    for (int64_t i = 0; i < 500; i++) ck_assert(!pq_bloom_filter_might_contain(&f, pq_bloom_hash_i64(i)));
    for (int64_t i = 0; i < 500; i++) pq_bloom_filter_insert(&f, pq_bloom_hash_i64(i * 7));
    for (int64_t i = 0; i < 500; i++) ck_assert(pq_bloom_filter_might_contain(&f, pq_bloom_hash_i64(i * 7)));
    /* Each insert sets at most 8 bits, one per word of one block. */
    int bits = 0;
    for (uint32_t i = 0; i < f.nblocks * 8; i++) bits += popcount(f.words[i]);
    ck_assert_int_le(bits, 500 * 8);
    ck_assert_int_gt(bits, 500 * 8 * 3 / 4);
    pq_bloom_filter_free(&f);

    ck_assert_int_eq(pq_bloom_filter_init(&f, 48, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_bloom_filter_init(&f, 16, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_bloom_filter_init(&f, PQ_BLOOM_MAX_BYTES * 2, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(f.words);
    /* A zeroed filter cannot rule anything out. */
    ck_assert(pq_bloom_filter_might_contain(&f, 42));
}
END_TEST

/* Fraction of uniformly random hashes a filter accepts: the mean over
 * blocks of the product of each word's fill ratio. */
static double implied_fpp(const pq_bloom_filter *f)
{
    double sum = 0;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        double p = 1;
        for (int i = 0; i < 8; i++) p *= popcount(f->words[8 * b + i]) / 32.0;
        sum += p;
    }
    return sum / f->nblocks;
}

START_TEST(false_positive_rate_near_design)
{
    /* Size a filter with the spec's formula for 1% and fill it to that
     * load: 13,500 values * 9.68 bits = 16,338 bytes -> 16 KiB. */
    const double design = 0.01;
    const int64_t n = 13500, probes = 100000;
    uint32_t bytes = pq_bloom_filter_optimal_bytes((uint64_t)n, design);
    ck_assert_uint_eq(bytes, 16384);
    ck_assert_uint_eq(pq_bloom_filter_optimal_bytes(13600, design), 32768);
    ck_assert_uint_eq(pq_bloom_filter_optimal_bytes(1, design), PQ_BLOOM_MIN_BYTES);
    ck_assert_uint_eq(pq_bloom_filter_optimal_bytes(1000000000000ull, design), PQ_BLOOM_MAX_BYTES);
    pq_bloom_filter f;
    pq_error err;
    ck_assert_int_eq(pq_bloom_filter_init(&f, bytes, &err), PQ_OK);
    for (int64_t i = 0; i < n; i++) pq_bloom_filter_insert(&f, pq_bloom_hash_i64(i));
    for (int64_t i = 0; i < n; i++) ck_assert(pq_bloom_filter_might_contain(&f, pq_bloom_hash_i64(i)));
    int64_t fp = 0;
    for (int64_t i = n; i < n + probes; i++) fp += pq_bloom_filter_might_contain(&f, pq_bloom_hash_i64(i));
    double measured = (double)fp / (double)probes;
    double implied = implied_fpp(&f);
    /* The same with a Poisson load per block (the spec's formula assumes an
     * even load, so it is optimistic). */
    double lambda = (double)n / f.nblocks, model = 0, pj = exp(-lambda);
    for (int j = 0; j < 200; j++) {
        model += pj * pow(1 - pow(31.0 / 32.0, j), 8);
        pj *= lambda / (j + 1);
    }
    printf("bloom fpp: design %.4f, Poisson-load model %.4f, implied by bitset %.4f, "
           "measured %.4f (%lld of %lld absent values)\n",
           design, model, implied, measured, (long long)fp, (long long)probes);
    double sigma = sqrt(implied * (1 - implied) / (double)probes);
    ck_assert_msg(fabs(measured - implied) < 5 * sigma, "measured %f, implied %f", measured, implied);
    ck_assert_msg(fabs(implied - model) < 0.2 * model, "implied %f, model %f", implied, model);
    ck_assert(measured > 0.5 * design && measured < 2 * design);
    pq_bloom_filter_free(&f);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Headers
 * ------------------------------------------------------------------------- */


/* A union field `fid` (struct, delta from `prev`) whose member `member` is
 * an empty struct; member 0: no member. */
static void union_field(buf *o, int delta, int member)
{
    put(o, (uint8_t)(delta << 4 | 0x0c));
    if (member) {
        put(o, (uint8_t)(member << 4 | 0x0c));
        put(o, 0x00); /* the empty member struct */
    }
    put(o, 0x00);     /* end of union */
}

/* BloomFilterHeader{numBytes, algorithm, hash, compression}, then numBytes
 * bytes of bitset filled with `fill`. */
static void filter_bytes(buf *o, int32_t nb, int alg, int hash, int comp, size_t bitset, uint8_t fill)
{
    o->n = 0;
    put(o, 0x15); /* field 1, i32 */
    zigzag(o, nb);
    union_field(o, 1, alg);
    union_field(o, 1, hash);
    union_field(o, 1, comp);
    put(o, 0x00);
    for (size_t i = 0; i < bitset; i++) put(o, fill);
}

static void expect_error(const buf *o, pq_status code, const char *needle)
{
    pq_bloom_filter f;
    pq_error err;
    pq_status st = pq_bloom_filter_parse(o->b, o->n, &f, &err);
    ck_assert_msg(st == code, "status %d (want %d): %s", st, code, st ? err.message : "ok");
    ck_assert_msg(strstr(err.message, needle), "'%s' lacks '%s'", err.message, needle);
    ck_assert_ptr_null(f.words);
    /* needed() gives the same answer, except that malformed Thrift in fewer
     * than PQ_BLOOM_HEADER_MAX bytes may be a cut header: it asks for more. */
    size_t needed;
    pq_error err2;
    st = pq_bloom_filter_needed(o->b, o->n, &needed, &err2);
    if (st == PQ_ERR_NEED_DATA) {
        ck_assert_int_eq(code, PQ_ERR_CORRUPT_DATA);
        ck_assert(strstr(err.message, "malformed"));
        ck_assert_uint_lt(o->n, PQ_BLOOM_HEADER_MAX);
        ck_assert_uint_eq(needed, PQ_BLOOM_HEADER_MAX);
    } else {
        ck_assert_int_eq(st, code);
        ck_assert_str_eq(err2.message, err.message);
    }
}

START_TEST(parses_hand_built_filter)
{
    buf o;
    filter_bytes(&o, 64, 1, 1, 1, 64, 0);
    ck_assert_uint_eq(o.n, 16 + 64); /* a 16-byte header, like the corpus files' */
    /* Word 9 (block 1, word 1) = 0x04030201 little endian. */
    o.b[16 + 36] = 1;
    o.b[16 + 37] = 2;
    o.b[16 + 38] = 3;
    o.b[16 + 39] = 4;
    pq_bloom_filter f;
    pq_error err;
    ck_assert_msg(pq_bloom_filter_parse(o.b, o.n, &f, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(f.num_bytes, 64);
    ck_assert_uint_eq(f.nblocks, 2);
    ck_assert_uint_eq(f.header_len, 16);
    ck_assert_uint_eq(f.words[9], 0x04030201u);
    pq_bloom_filter_free(&f);
    size_t needed = 0;
    ck_assert_int_eq(pq_bloom_filter_needed(o.b, o.n, &needed, &err), PQ_OK);
    ck_assert_uint_eq(needed, 80);
    ck_assert_int_eq(pq_bloom_filter_needed(o.b, 16, &needed, &err), PQ_OK);
    ck_assert_uint_eq(needed, 80);
    /* Bytes after the bitset are ignored. */
    put(&o, 0xee);
    ck_assert_int_eq(pq_bloom_filter_parse(o.b, o.n, &f, &err), PQ_OK);
    pq_bloom_filter_free(&f);

    /* Unknown fields, in the header and in the member structs, are skipped. */
    o.n = 0;
    put(&o, 0x15);
    zigzag(&o, 32);
    put(&o, 0x1c); /* algorithm */
    put(&o, 0x1c); /* BLOCK { 1: i32 5 } */
    put(&o, 0x15);
    zigzag(&o, 5);
    put(&o, 0x00);
    put(&o, 0x00);
    union_field(&o, 1, 1);
    union_field(&o, 1, 1);
    put(&o, 0x58); /* field 9 (delta 5), binary "xyz" */
    varint(&o, 3);
    put(&o, 'x'); put(&o, 'y'); put(&o, 'z');
    put(&o, 0x00);
    size_t hl = o.n;
    for (int i = 0; i < 32; i++) put(&o, 0xff);
    ck_assert_msg(pq_bloom_filter_parse(o.b, o.n, &f, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(f.header_len, hl);
    ck_assert(pq_bloom_filter_might_contain(&f, 12345)); /* all bits set */
    pq_bloom_filter_free(&f);
}
END_TEST

START_TEST(rejects_bad_headers)
{
    buf o;
    filter_bytes(&o, 0, 1, 1, 1, 0, 0);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "numBytes: 0 is not a power of two in [32, 134217728]");
    filter_bytes(&o, 16, 1, 1, 1, 16, 0);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "numBytes: 16 is not");
    filter_bytes(&o, 96, 1, 1, 1, 96, 0);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "numBytes: 96 is not");
    filter_bytes(&o, -64, 1, 1, 1, 0, 0);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "numBytes: -64");
    filter_bytes(&o, 256 << 20, 1, 1, 1, 0, 0);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "numBytes: 268435456");
    filter_bytes(&o, 2, 1, 1, 1, 0, 0);
    o.b[1] = 0x80; /* numBytes varint running on into the unions */
    o.b[2] = 0x80;
    o.b[3] = 0x80;
    o.b[4] = 0x80;
    o.b[5] = 0x80;
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "BloomFilterHeader: malformed");

    /* Unions: other members are valid Thrift we do not implement. */
    filter_bytes(&o, 32, 2, 1, 1, 32, 0);
    expect_error(&o, PQ_ERR_UNSUPPORTED, "algorithm: member 2 is not supported (only BLOCK)");
    filter_bytes(&o, 32, 1, 3, 1, 32, 0);
    expect_error(&o, PQ_ERR_UNSUPPORTED, "hash: member 3 is not supported (only XXHASH)");
    filter_bytes(&o, 32, 1, 1, 2, 32, 0);
    expect_error(&o, PQ_ERR_UNSUPPORTED, "compression: member 2 is not supported (only UNCOMPRESSED)");
    filter_bytes(&o, 32, 1, 0, 1, 32, 0);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "hash: no member set");
    /* Two members in one union. */
    o.n = 0;
    put(&o, 0x15);
    zigzag(&o, 32);
    put(&o, 0x1c);
    put(&o, 0x1c); put(&o, 0x00);
    put(&o, 0x1c); put(&o, 0x00);
    put(&o, 0x00);
    union_field(&o, 1, 1);
    union_field(&o, 1, 1);
    put(&o, 0x00);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "algorithm: several members set");
    /* A member that is not a struct. */
    o.n = 0;
    put(&o, 0x15);
    zigzag(&o, 32);
    union_field(&o, 1, 1);
    put(&o, 0x1c);
    put(&o, 0x15); zigzag(&o, 1); /* XXHASH as an i32 */
    put(&o, 0x00);
    union_field(&o, 1, 1);
    put(&o, 0x00);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "hash: member is not a struct");

    /* Required fields missing. */
    o.n = 0;
    put(&o, 0x2c); /* algorithm as field 2, numBytes absent */
    put(&o, 0x1c); put(&o, 0x00); put(&o, 0x00);
    union_field(&o, 1, 1);
    union_field(&o, 1, 1);
    put(&o, 0x00);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "numBytes: required field missing");
    o.n = 0;
    put(&o, 0x15);
    zigzag(&o, 32);
    union_field(&o, 1, 1);
    union_field(&o, 2, 1); /* compression (field 4), hash absent */
    put(&o, 0x00);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "hash: required field missing");
    o.n = 0;
    put(&o, 0x00);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "numBytes: required field missing");

    /* Bitset shorter than numBytes. */
    filter_bytes(&o, 64, 1, 1, 1, 63, 0);
    pq_bloom_filter f;
    pq_error err;
    ck_assert_int_eq(pq_bloom_filter_parse(o.b, o.n, &f, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "bloom filter bitset: 64 bytes declared, 63 present");
    size_t needed;
    ck_assert_int_eq(pq_bloom_filter_needed(o.b, o.n, &needed, &err), PQ_OK);
    ck_assert_uint_eq(needed, 80);

    /* A header longer than PQ_BLOOM_HEADER_MAX (an unknown 2000-byte field). */
    o.n = 0;
    put(&o, 0x98); /* field 9, binary */
    varint(&o, 2000);
    for (int i = 0; i < 2000; i++) put(&o, 'x');
    put(&o, 0x00);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "longer than 1024 bytes");
    /* Deep nesting inside an unknown field. */
    o.n = 0;
    put(&o, 0x9c); /* field 9, struct */
    for (int i = 0; i < 100; i++) put(&o, 0x1c);
    for (int i = 0; i < 102; i++) put(&o, 0x00);
    expect_error(&o, PQ_ERR_CORRUPT_DATA, "nested too deep");
}
END_TEST

START_TEST(every_truncation_fails_cleanly)
{
    buf o;
    filter_bytes(&o, 64, 1, 1, 1, 64, 0x5a);
    for (size_t n = 0; n < o.n; n++) {
        pq_bloom_filter f;
        pq_error err;
        ck_assert_int_eq(pq_bloom_filter_parse(o.b, n, &f, &err), PQ_ERR_CORRUPT_DATA);
        ck_assert_ptr_null(f.words);
        size_t needed = 0;
        pq_status st = pq_bloom_filter_needed(o.b, n, &needed, &err);
        if (n < 16) {
            /* The header is cut: ask for more. */
            ck_assert_msg(st == PQ_ERR_NEED_DATA, "cut %zu: %s", n, err.message);
            ck_assert_uint_eq(needed, PQ_BLOOM_HEADER_MAX);
        } else {
            ck_assert_int_eq(st, PQ_OK);
            ck_assert_uint_eq(needed, 80);
        }
    }
    /* NULL with no bytes. */
    pq_bloom_filter f;
    pq_error err;
    ck_assert_int_eq(pq_bloom_filter_parse(NULL, 0, &f, &err), PQ_ERR_CORRUPT_DATA);
}
END_TEST

START_TEST(every_byte_change_is_handled)
{
    /* No crash, and whatever is accepted is consistent. */
    buf o;
    filter_bytes(&o, 32, 1, 1, 1, 32, 0);
    for (size_t pos = 0; pos < 16; pos++) {
        for (int v = 0; v < 256; v++) {
            buf m = o;
            m.b[pos] = (uint8_t)v;
            pq_bloom_filter f;
            pq_error err;
            pq_status st = pq_bloom_filter_parse(m.b, m.n, &f, &err);
            if (st == PQ_OK) {
                ck_assert_uint_ge(f.num_bytes, 32);
                ck_assert_uint_le(f.header_len + f.num_bytes, m.n);
                pq_bloom_filter_free(&f);
            } else {
                ck_assert(st == PQ_ERR_CORRUPT_DATA || st == PQ_ERR_UNSUPPORTED);
                ck_assert(err.message[0]);
            }
        }
    }
}
END_TEST

/* ---------------------------------------------------------------------------
 * Corpus files
 * ------------------------------------------------------------------------- */

/* The 14 values of column "String" in both files (pyarrow 22 read_table). */
static const char *const STRINGS[] = {"Hello", "This is", "a",        "test",      "How",
                                      "are you", "doing ", "today",  "the quick", "brown fox",
                                      "jumps",   "over",   "the lazy", "dog"};

typedef struct corpus_case {
    const char *file;
    uint32_t num_bytes;   /* numBytes in the header (xxd) */
    uint32_t header_len;
    bool has_length;      /* ColumnMetaData.bloom_filter_length present */
} corpus_case;

static const corpus_case CASES[] = {
    {"data/data_index_bloom_encoding_stats.parquet", 1024, 16, false},       /* parquet-mr */
    {"data/data_index_bloom_encoding_with_length.parquet", 2048, 16, true}, /* parquet-rs */
};

START_TEST(corpus_filters)
{
    if (!pq_test_corpus_dir()) {
        printf("SKIP corpus_filters: corpus absent\n");
        return;
    }
    const corpus_case *cc = &CASES[_i];
    char *path = pq_test_corpus_path(cc->file);
    size_t flen = 0;
    uint8_t *file = pq_test_read_file(path, &flen);
    ck_assert_msg(file != NULL, "cannot read %s", path);
    pq_error err;
    pq_metadata *md = pq_metadata_parse_tail(file, flen, NULL, NULL, &err);
    ck_assert_msg(md != NULL, "%s", err.message);
    const pq_file_metadata *fm = pq_metadata_file(md);
    ck_assert_uint_eq(fm->row_groups_len, 1);
    const pq_column_meta *cm = &fm->row_groups[0].columns[0]->meta_data;
    ck_assert(cm->set & PQ_CMD_HAS_BLOOM_FILTER_OFFSET);
    ck_assert_int_eq(!!(cm->set & PQ_CMD_HAS_BLOOM_FILTER_LENGTH), cc->has_length);
    ck_assert(cm->bloom_filter_offset > 0 && (uint64_t)cm->bloom_filter_offset < flen);
    const uint8_t *at = file + cm->bloom_filter_offset;
    size_t avail = flen - (size_t)cm->bloom_filter_offset;
    size_t total = cc->header_len + cc->num_bytes;

    /* Without the length: a speculative read, then exactly what is needed. */
    size_t spec = avail < PQ_BLOOM_SPECULATIVE_READ ? avail : PQ_BLOOM_SPECULATIVE_READ;
    size_t needed = 0;
    ck_assert_msg(pq_bloom_filter_needed(at, spec, &needed, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(needed, total);
    /* A short first read: 8 bytes cut the header, 20 do not. */
    ck_assert_int_eq(pq_bloom_filter_needed(at, 8, &needed, &err), PQ_ERR_NEED_DATA);
    ck_assert_uint_eq(needed, PQ_BLOOM_HEADER_MAX);
    ck_assert_int_eq(pq_bloom_filter_needed(at, 20, &needed, &err), PQ_OK);
    ck_assert_uint_eq(needed, total);
    pq_bloom_filter f;
    ck_assert_msg(pq_bloom_filter_parse(at, needed, &f, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(f.num_bytes, cc->num_bytes);
    ck_assert_uint_eq(f.header_len, cc->header_len);
    pq_bloom_filter g;
    ck_assert_int_eq(pq_bloom_filter_parse(at, spec, &g, &err), PQ_OK);
    ck_assert_int_eq(memcmp(f.words, g.words, f.num_bytes), 0);
    pq_bloom_filter_free(&g);
    ck_assert_int_eq(pq_bloom_filter_parse(at, needed - 1, &g, &err), PQ_ERR_CORRUPT_DATA);

    /* With the length: exactly those bytes. */
    if (cc->has_length) {
        ck_assert_uint_eq((size_t)cm->bloom_filter_length, total);
        ck_assert_int_eq(pq_bloom_filter_parse(at, (size_t)cm->bloom_filter_length, &g, &err), PQ_OK);
        ck_assert_int_eq(memcmp(f.words, g.words, f.num_bytes), 0);
        pq_bloom_filter_free(&g);
    }

    /* No false negatives: every value of the column. */
    for (size_t i = 0; i < sizeof STRINGS / sizeof *STRINGS; i++) {
        uint64_t h;
        ck_assert(pq_bloom_hash_plain(PQ_BYTE_ARRAY, 0, STRINGS[i], strlen(STRINGS[i]), &h));
        ck_assert_msg(pq_bloom_filter_might_contain(&f, h), "%s: '%s' missing", cc->file, STRINGS[i]);
    }
    /* False positives over 10,000 absent values. */
    int fp = 0;
    for (int i = 0; i < 10000; i++) {
        char s[32];
        int n = snprintf(s, sizeof s, "absent-%d", i);
        fp += pq_bloom_filter_might_contain(&f, pq_bloom_hash_bytes(s, (size_t)n));
    }
    double implied = implied_fpp(&f);
    printf("%s: %u-byte filter, 14 values; false positives %d / 10000 (rate implied by the "
           "bitset %.2g)\n", cc->file, f.num_bytes, fp, implied);
    ck_assert_double_lt(implied, 1e-4);
    ck_assert_int_le(fp, 3);
    pq_bloom_filter_free(&f);
    pq_metadata_release(md);
    free(file);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bloom filter");
    TCase *tc = tcase_create("hash");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_test(tc, xxhash64_test_vectors);
    tcase_add_test(tc, plain_encodings_are_hashed);
    suite_add_tcase(s, tc);
    tc = tcase_create("filter");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_test(tc, block_and_bits_are_chosen_per_spec);
    tcase_add_test(tc, insert_then_check);
    tcase_add_test(tc, false_positive_rate_near_design);
    suite_add_tcase(s, tc);
    tc = tcase_create("header");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_test(tc, parses_hand_built_filter);
    tcase_add_test(tc, rejects_bad_headers);
    tcase_add_test(tc, every_truncation_fails_cleanly);
    tcase_add_test(tc, every_byte_change_is_handled);
    suite_add_tcase(s, tc);
    tc = tcase_create("corpus");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_loop_test(tc, corpus_filters, 0, (int)(sizeof CASES / sizeof *CASES));
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
