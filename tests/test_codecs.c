/*
 * test_codecs.c — pq_decompress for every codec.
 *
 * Oracles: the codec libraries' own compressors (snappy, libdeflate, LZ4,
 * zstd) run here on generated data; pyarrow's compressors through committed
 * fixtures (tests/fixtures/make_codec_fixtures.py; the only source of brotli
 * streams, since the test does not link the brotli encoder); hand-built
 * Hadoop LZ4 framing and gzip member chains; and the pages of the corpus
 * files written with GZIP members, Hadoop LZ4, bare-block LZ4 and LZ4_RAW.
 *
 * Every buffer handed to pq_decompress is malloc'd at its exact size so that
 * ASan reports any read or write past it.
 */
#include <check.h>
#include <libdeflate.h>
#include <lz4.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "metadata/compact.h"
#include "pages/codec.h"
#include "pages/snappy.h"
#include "pqstep.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------
 * Data: mirrors gen_bytes() of tests/fixtures/make_codec_fixtures.py
 * ------------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t x)
{
    uint64_t z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* "rand": incompressible; "text": a repeated phrase with 8 random bytes at
 * the start of one 64-byte group in 64. malloc'd, at least 1 byte. */
static uint8_t *gen_bytes(const char *kind, size_t n)
{
    static const char pattern[] = "Parquet page data ";
    const size_t plen = sizeof pattern - 1;
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    if (strcmp(kind, "rand") == 0) {
        for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(splitmix64(i) >> 56);
        return p;
    }
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)pattern[i % plen];
    for (size_t g = 0; g < n; g += 64)
        if ((splitmix64((g >> 6) | 1ull << 40) & 63) == 0)
            for (size_t i = g; i < g + 8 && i < n; i++) p[i] = (uint8_t)(splitmix64(i) >> 56);
    return p;
}

static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
    if (n == 0) return NULL;
    uint8_t *q = malloc(n);
    ck_assert_ptr_nonnull(q);
    memcpy(q, p, n);
    return q;
}

/* ---------------------------------------------------------------------------
 * Compressors (the libraries' own), each returning a malloc'd blob
 * ------------------------------------------------------------------------- */

typedef struct blob {
    uint8_t *p;
    size_t n;
} blob;

static blob blob_alloc(size_t cap)
{
    blob b = {malloc(cap ? cap : 1), 0};
    ck_assert_ptr_nonnull(b.p);
    return b;
}

static void blob_append(blob *b, const uint8_t *p, size_t n)
{
    b->p = realloc(b->p, b->n + n + 1);
    ck_assert_ptr_nonnull(b->p);
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
}

static blob c_snappy(const uint8_t *d, size_t n)
{
    blob b = blob_alloc(snappy_max_compressed_length(n));
    b.n = snappy_max_compressed_length(n);
    ck_assert_int_eq(snappy_compress((const char *)d, n, (char *)b.p, &b.n), SNAPPY_OK);
    return b;
}

static blob c_gzip(const uint8_t *d, size_t n)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    ck_assert_ptr_nonnull(c);
    blob b = blob_alloc(libdeflate_gzip_compress_bound(c, n));
    b.n = libdeflate_gzip_compress(c, d, n, b.p, libdeflate_gzip_compress_bound(c, n));
    ck_assert_uint_gt(b.n, 0);
    libdeflate_free_compressor(c);
    return b;
}

static blob c_zlib(const uint8_t *d, size_t n)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    ck_assert_ptr_nonnull(c);
    blob b = blob_alloc(libdeflate_zlib_compress_bound(c, n));
    b.n = libdeflate_zlib_compress(c, d, n, b.p, libdeflate_zlib_compress_bound(c, n));
    ck_assert_uint_gt(b.n, 0);
    libdeflate_free_compressor(c);
    return b;
}

static blob c_zstd(const uint8_t *d, size_t n)
{
    blob b = blob_alloc(ZSTD_compressBound(n));
    b.n = ZSTD_compress(b.p, ZSTD_compressBound(n), d, n, 3);
    ck_assert(!ZSTD_isError(b.n));
    return b;
}

static blob c_lz4_block(const uint8_t *d, size_t n)
{
    blob b = blob_alloc((size_t)LZ4_compressBound((int)n));
    int r = LZ4_compress_default((const char *)d, (char *)b.p, (int)n, LZ4_compressBound((int)n));
    ck_assert_int_gt(r, 0);
    b.n = (size_t)r;
    return b;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Hadoop framing: blocks of `block` input bytes (at least one block), each
 * [BE32 raw size] then `chunks` [BE32 compressed size][LZ4 block] pieces. */
static blob c_lz4_hadoop_chunks(const uint8_t *d, size_t n, size_t block, int chunks)
{
    blob out = {NULL, 0};
    size_t off = 0;
    do {
        size_t len = n - off < block ? n - off : block;
        uint8_t hdr[4];
        put_be32(hdr, (uint32_t)len);
        blob_append(&out, hdr, 4);
        size_t done = 0;
        for (int k = 0; k < chunks; k++) {
            size_t piece = k == chunks - 1 ? len - done : len / (size_t)chunks;
            blob c = c_lz4_block(d + off + done, piece);
            put_be32(hdr, (uint32_t)c.n);
            blob_append(&out, hdr, 4);
            blob_append(&out, c.p, c.n);
            free(c.p);
            done += piece;
        }
        off += len;
    } while (off < n);
    return out;
}

static blob c_lz4_hadoop(const uint8_t *d, size_t n)
{
    return c_lz4_hadoop_chunks(d, n, 256 * 1024, 1);
}

static blob c_lz4_frame(const uint8_t *d, size_t n)
{
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.contentSize = n;
    prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
    size_t cap = LZ4F_compressFrameBound(n, &prefs);
    blob b = blob_alloc(cap);
    b.n = LZ4F_compressFrame(b.p, cap, d, n, &prefs);
    ck_assert(!LZ4F_isError(b.n));
    return b;
}

static blob c_copy(const uint8_t *d, size_t n)
{
    blob b = blob_alloc(n);
    if (n) memcpy(b.p, d, n);
    b.n = n;
    return b;
}

/* ---------------------------------------------------------------------------
 * Checks
 * ------------------------------------------------------------------------- */

/* Decompress into an exact-size buffer; returns the status, and on success
 * checks the bytes against `want` (when not NULL). */
static pq_status run(int32_t codec, const uint8_t *src, size_t src_len, size_t dst_len, const uint8_t *want,
                     pq_error *err)
{
    uint8_t *s = dup_exact(src, src_len);
    uint8_t *d = dst_len ? malloc(dst_len) : NULL;
    if (dst_len) ck_assert_ptr_nonnull(d);
    memset(err, 0, sizeof *err);
    pq_status st = pq_decompress(codec, s, src_len, d, dst_len, err);
    if (st == PQ_OK && want && dst_len)
        ck_assert_msg(memcmp(d, want, dst_len) == 0, "codec %d: wrong bytes out", codec);
    if (st != PQ_OK) {
        ck_assert_int_eq(err->code, st);
        ck_assert_msg(err->message[0], "codec %d: empty error message", codec);
    }
    free(s);
    free(d);
    return st;
}

static void expect_ok(int32_t codec, const uint8_t *src, size_t src_len, const uint8_t *want, size_t n)
{
    pq_error err;
    pq_status st = run(codec, src, src_len, n, want, &err);
    ck_assert_msg(st == PQ_OK, "codec %d, %zu -> %zu bytes: %s", codec, src_len, n, err.message);
}

static void expect_corrupt(int32_t codec, const uint8_t *src, size_t src_len, size_t dst_len,
                           const char *what)
{
    pq_error err;
    pq_status st = run(codec, src, src_len, dst_len, NULL, &err);
    ck_assert_msg(st == PQ_ERR_CORRUPT_DATA, "codec %d, %s (%zu -> %zu bytes): status %d (%s)", codec,
                  what, src_len, dst_len, (int)st, st ? err.message : "ok");
}

/* The whole battery for one stream of `data`: exact size; one byte less and
 * one more; truncations; flipped bytes (no crash; checksummed codecs must
 * notice). */
static void battery(int32_t codec, const blob *c, const uint8_t *data, size_t n, bool checksummed)
{
    expect_ok(codec, c->p, c->n, data, n);
    if (n > 0) expect_corrupt(codec, c->p, c->n, n - 1, "dst one byte short");
    expect_corrupt(codec, c->p, c->n, n + 1, "dst one byte long");
    if (codec == PQ_CODEC_UNCOMPRESSED) return;
    if (n > 0 || c->n > 1) {
        expect_corrupt(codec, c->p, c->n - 1, n, "truncated by one byte");
        expect_corrupt(codec, c->p, c->n / 2, n, "truncated to half");
    }
    if (n > 0) expect_corrupt(codec, c->p, 0, n, "empty input");
    /* Flip bytes at a few places: must never crash or overrun. */
    uint8_t *m = dup_exact(c->p, c->n);
    size_t spots[] = {0, c->n / 3, c->n / 2, c->n - 1};
    for (size_t k = 0; k < sizeof spots / sizeof spots[0] && c->n; k++) {
        m[spots[k]] ^= 0x5a;
        pq_error err;
        pq_status st = run(codec, m, c->n, n, NULL, &err);
        if (checksummed && k >= 2 && n > 0)
            ck_assert_msg(st != PQ_OK, "codec %d: a flipped byte at %zu went unnoticed", codec, spots[k]);
        m[spots[k]] ^= 0x5a;
    }
    free(m);
}

typedef blob (*compress_fn)(const uint8_t *, size_t);

static void round_trips(int32_t codec, compress_fn fn, bool checksummed)
{
    static const size_t sizes[] = {0, 1, 1000, 1u << 20};
    static const char *const kinds[] = {"rand", "text"};
    for (size_t k = 0; k < 2; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            uint8_t *data = gen_bytes(kinds[k], n);
            blob c = fn(data, n);
            battery(codec, &c, data, n, checksummed);
            free(c.p);
            free(data);
        }
}

/* ---------------------------------------------------------------------------
 * Round trips through the libraries' own compressors
 * ------------------------------------------------------------------------- */

/* n bytes of xorshift noise (incompressible, the same every run). */
static void random_bytes(uint8_t *d, size_t n)
{
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        d[i] = (uint8_t)(x >> 24);
    }
}

/* zstd's frame of src (n bytes) with the given parameters: a checksum, the
 * content size left out (a frame with a window descriptor). */
static blob c_zstd_with(const uint8_t *d, size_t n, int checksum, int size_known)
{
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ck_assert_ptr_nonnull(cc);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksum);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, size_known);
    blob b = blob_alloc(ZSTD_compressBound(n) + 64);
    ZSTD_outBuffer out = {b.p, ZSTD_compressBound(n) + 64, 0};
    ZSTD_inBuffer in = {d, n, 0};
    size_t left = ZSTD_compressStream2(cc, &out, &in, ZSTD_e_end); /* streamed: no size pledged */
    ck_assert(!ZSTD_isError(left) && left == 0);
    b.n = out.pos;
    ZSTD_freeCCtx(cc);
    return b;
}

/* A zstd frame of one raw block is found in place: libzstd's frames for
 * random bytes up to 128 KiB (one-shot with the size, streamed without),
 * and NULL for compressible data, two blocks, a checksum, a wrong size, a
 * missing or trailing byte. Every value of every header byte of such a
 * frame: whenever it is taken, libzstd decodes the frame to exactly the
 * bytes found. */
START_TEST(zstd_stored_raw)
{
    static const size_t sizes[] = {1, 255, 256, 257, 4097, 37721, 65536, 131072};
    uint8_t *d = malloc(140000), *out = malloc(140000);
    ck_assert_ptr_nonnull(d);
    random_bytes(d, 140000);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        for (int streamed = 0; streamed < 2; streamed++) {
            size_t n = sizes[k];
            blob b = streamed ? c_zstd_with(d, n, 0, 0) : c_zstd(d, n);
            const uint8_t *raw = pq_zstd_stored_raw(b.p, b.n, n);
            ck_assert_msg(raw == b.p + b.n - n, "%zu random bytes (streamed %d): no raw block", n, streamed);
            ck_assert_mem_eq(raw, d, n);
            ck_assert_ptr_null(pq_zstd_stored_raw(b.p, b.n, n + 1));
            ck_assert_ptr_null(pq_zstd_stored_raw(b.p, b.n - 1, n));
            ck_assert_ptr_null(pq_zstd_stored_raw(b.p, b.n - 1, n - 1));
            /* each header byte set to every value: taken only as libzstd decodes it */
            size_t head = b.n - n;
            uint8_t *m = malloc(b.n + 1);
            for (size_t at = 0; at < head; at++) {
                for (int v = 0; v < 256; v++) {
                    memcpy(m, b.p, b.n);
                    m[at] = (uint8_t)v;
                    const uint8_t *got = pq_zstd_stored_raw(m, b.n, n);
                    if (!got) continue;
                    size_t r = ZSTD_decompress(out, n, m, b.n);
                    if (ZSTD_isError(r) || r != n || memcmp(out, got, n) != 0)
                        ck_abort_msg("%zu bytes, header byte %zu = 0x%02x: taken, but libzstd says %s", n, at, v,
                                     ZSTD_isError(r) ? ZSTD_getErrorName(r) : "other bytes");
                }
            }
            free(m);
            free(b.p);
        }
    }
    blob two = c_zstd(d, 140000); /* two blocks */
    ck_assert_ptr_null(pq_zstd_stored_raw(two.p, two.n, 140000));
    free(two.p);
    blob sum = c_zstd_with(d, 1000, 1, 1); /* a checksum after the block */
    ck_assert_ptr_null(pq_zstd_stored_raw(sum.p, sum.n, 1000));
    ck_assert_int_eq(ZSTD_decompress(out, 1000, sum.p, sum.n), 1000);
    free(sum.p);
    memset(d, 'x', 1000);
    blob same = c_zstd(d, 1000);
    ck_assert_ptr_null(pq_zstd_stored_raw(same.p, same.n, 1000));
    free(same.p);
    ck_assert_ptr_null(pq_zstd_stored_raw(NULL, 0, 0));
    free(out);
    free(d);
}
END_TEST

/* A snappy stream that is one literal is found in place: hand-built
 * streams (short and long length forms), libsnappy's output for random
 * bytes up to one 64 KiB block, and NULL for everything else: compressible
 * data, two blocks, a wrong preamble, a trailing or a missing byte. */
START_TEST(snappy_stored_literal)
{
    static const uint8_t hello[] = {0x05, 0x10, 'h', 'e', 'l', 'l', 'o'};
    ck_assert_ptr_eq(pq_snappy_stored_literal(hello, sizeof hello, 5), hello + 2);
    ck_assert_ptr_null(pq_snappy_stored_literal(hello, sizeof hello, 4));
    ck_assert_ptr_null(pq_snappy_stored_literal(hello, sizeof hello - 1, 5));
    uint8_t longer[3 + 100];
    longer[0] = 100, longer[1] = 60 << 2, longer[2] = 99; /* length - 1 in one extra byte */
    for (int i = 0; i < 100; i++) longer[3 + i] = (uint8_t)(i * 7);
    ck_assert_ptr_eq(pq_snappy_stored_literal(longer, sizeof longer, 100), longer + 3);
    uint8_t copy[] = {0x08, 0x0c, 'a', 'b', 'c', 'd', 0x01 | (0 << 2), 0x04}; /* literal abcd, then a copy */
    ck_assert_ptr_null(pq_snappy_stored_literal(copy, sizeof copy, 8));
    ck_assert_ptr_null(pq_snappy_stored_literal(NULL, 0, 0));

    static const size_t sizes[] = {1, 59, 60, 61, 255, 256, 4097, 37721, 65536};
    uint8_t *d = malloc(70000);
    ck_assert_ptr_nonnull(d);
    random_bytes(d, 70000);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        blob b = c_snappy(d, sizes[k]);
        const uint8_t *lit = pq_snappy_stored_literal(b.p, b.n, sizes[k]);
        ck_assert_msg(lit != NULL, "%zu random bytes: no stored literal", sizes[k]);
        ck_assert_mem_eq(lit, d, sizes[k]);
        ck_assert_ptr_null(pq_snappy_stored_literal(b.p, b.n, sizes[k] + 1));
        ck_assert_ptr_null(pq_snappy_stored_literal(b.p, b.n - 1, sizes[k]));
        free(b.p);
    }
    blob two = c_snappy(d, 70000); /* two blocks: two literals */
    ck_assert_ptr_null(pq_snappy_stored_literal(two.p, two.n, 70000));
    free(two.p);
    memset(d, 'x', 1000);
    blob same = c_snappy(d, 1000);
    ck_assert_ptr_null(pq_snappy_stored_literal(same.p, same.n, 1000));
    free(same.p);
    free(d);
}
END_TEST

/* pq_snappy_decompress against libsnappy, the oracle: data of many shapes
 * (sizes 0..300 and larger; random, text, byte runs, short periods, int64
 * sequences as dictionary pages hold) compressed by libsnappy decode to the
 * data; hand-built copies of every period 1..20 and length 1..64, near the
 * output's end and away from it, decode as the format says; and 3,000
 * mutated streams are taken or refused exactly as libsnappy takes or refuses
 * them, with the same bytes when taken. pq_snappy_decompress_two does the
 * same with each stream beside valid streams of other lengths, first and
 * second (snappy_pair_check). */
static uint8_t *shaped(unsigned shape, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix64(i * 7 + shape);
        switch (shape % 5) {
        case 0: p[i] = (uint8_t)(r >> 56); break;                        /* random */
        case 1: p[i] = (uint8_t)"Parquet page data "[i % 18]; break;      /* text */
        case 2: p[i] = (uint8_t)(i / 97); break;                          /* byte runs */
        case 3: p[i] = (uint8_t)(i % (shape / 5 % 15 + 1)); break;        /* short periods */
        default: p[i] = (uint8_t)(((i / 8) * 2654435761u) >> (8 * (i % 8)) & (i % 8 < 3 ? 0xff : 0)); /* int64s */
        }
    }
    return p;
}

/* pq_snappy_decompress_two with stream (in, n) in either place beside a
 * valid stream of another shape and length: taken when `want` (its bytes)
 * is given, with both outputs right, else refused with a SNAPPY message. */
static void snappy_pair_check(const uint8_t *in, size_t n, size_t declared, const uint8_t *want)
{
    static const size_t partner_sizes[] = {37, 5000, 70001};
    for (size_t p = 0; p < sizeof partner_sizes / sizeof partner_sizes[0]; p++) {
        size_t pn = partner_sizes[p];
        uint8_t *pd = shaped(4 + (unsigned)p, pn);
        blob pc = c_snappy(pd, pn);
        uint8_t *out = malloc(declared ? declared : 1), *pout = malloc(pn);
        ck_assert_ptr_nonnull(out);
        ck_assert_ptr_nonnull(pout);
        for (int first = 0; first < 2; first++) {
            const uint8_t *src[2] = {in, pc.p};
            size_t src_len[2] = {n, pc.n}, dst_len[2] = {declared, pn};
            uint8_t *dst[2] = {out, pout};
            if (first) { /* the stream second */
                src[0] = pc.p, src[1] = in, src_len[0] = pc.n, src_len[1] = n;
                dst_len[0] = pn, dst_len[1] = declared, dst[0] = pout, dst[1] = out;
            }
            pq_error err = {0};
            pq_status st = pq_snappy_decompress_two(src, src_len, dst, dst_len, &err);
            if ((st == PQ_OK) != (want != NULL))
                ck_abort_msg("snappy pair (stream of %zu bytes %s, beside %zu bytes): %s where one alone is %s", n,
                             first ? "second" : "first", pn, st == PQ_OK ? "taken" : err.message,
                             want ? "taken" : "refused");
            if (st != PQ_OK && (err.code != PQ_ERR_CORRUPT_DATA || strncmp(err.message, "SNAPPY: ", 8) != 0))
                ck_abort_msg("snappy pair refusal without a SNAPPY message: %s", err.message);
            if (st == PQ_OK && ((declared && memcmp(out, want, declared) != 0) || memcmp(pout, pd, pn) != 0))
                ck_abort_msg("snappy pair (stream of %zu bytes %s, beside %zu bytes): wrong bytes", n,
                             first ? "second" : "first", pn);
        }
        free(out);
        free(pout);
        free(pc.p);
        free(pd);
    }
}

static void snappy_both(const uint8_t *in, size_t n, size_t declared, unsigned *taken, unsigned *refused)
{
    uint8_t *ours = malloc(declared ? declared : 1), *theirs = malloc(declared ? declared : 1);
    ck_assert_ptr_nonnull(ours);
    ck_assert_ptr_nonnull(theirs);
    pq_error err = {0};
    pq_status st = pq_snappy_decompress(in, n, ours, declared, &err);
    size_t got = declared;
    bool ok = snappy_uncompress((const char *)in, n, (char *)theirs, &got) == SNAPPY_OK && got == declared;
    if ((st == PQ_OK) != ok)
        ck_abort_msg("snappy stream of %zu bytes: pqstep %s, libsnappy %s", n, st == PQ_OK ? "ok" : err.message,
                     ok ? "ok" : "refused");
    if (ok && declared && memcmp(ours, theirs, declared) != 0)
        ck_abort_msg("snappy stream of %zu bytes: pqstep and libsnappy decode different bytes", n);
    if (!ok && (err.code != PQ_ERR_CORRUPT_DATA || strncmp(err.message, "SNAPPY: ", 8) != 0))
        ck_abort_msg("snappy refusal without a SNAPPY message: %s", err.message);
    snappy_pair_check(in, n, declared, ok ? theirs : NULL);
    (ok ? (*taken)++ : (*refused)++);
    free(ours);
    free(theirs);
}

/* A stream: the preamble, a literal of `lit` bytes, then one copy (len,
 * off) with a 1- or 2-byte offset (`offset_bytes`; 1: len 4..11, off below
 * 2048), then a literal of `tail` bytes. */
static size_t hand_stream_with(uint8_t *s, size_t lit, size_t len, size_t off, size_t tail, int offset_bytes)
{
    size_t n = 0, total = lit + len + tail;
    for (size_t v = total; ; v >>= 7) {
        s[n++] = (uint8_t)(v & 0x7f) | (v >= 0x80 ? 0x80 : 0);
        if (v < 0x80) break;
    }
    size_t parts[2] = {lit, tail};
    for (int k = 0; k < 2; k++) {
        size_t l = parts[k];
        if (l) {
            if (l <= 60) {
                s[n++] = (uint8_t)((l - 1) << 2);
            } else {
                s[n++] = 61 << 2; /* 2 length bytes */
                s[n++] = (uint8_t)(l - 1);
                s[n++] = (uint8_t)((l - 1) >> 8);
            }
            for (size_t i = 0; i < l; i++) s[n++] = (uint8_t)(splitmix64(i + 31 * k) >> 56);
        }
        if (k == 0 && len && offset_bytes == 1) {
            s[n++] = (uint8_t)((off >> 8) << 5 | (len - 4) << 2 | 1);
            s[n++] = (uint8_t)off;
        } else if (k == 0 && len) {
            s[n++] = (uint8_t)((len - 1) << 2 | 2);
            s[n++] = (uint8_t)off;
            s[n++] = (uint8_t)(off >> 8);
        }
    }
    return n;
}

static size_t hand_stream(uint8_t *s, size_t lit, size_t len, size_t off, size_t tail)
{
    return hand_stream_with(s, lit, len, off, tail, 2);
}

START_TEST(snappy_matches_libsnappy)
{
    unsigned taken = 0, refused = 0;
    /* libsnappy's streams of many shapes decode to their data. */
    for (unsigned shape = 0; shape < 80; shape++) {
        size_t sizes[] = {shape, 17 + shape * 3, 300, 4093 + shape, 70001, shape % 10 == 0 ? (1u << 20) : 999};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            uint8_t *d = shaped(shape, sizes[k]);
            blob c = c_snappy(d, sizes[k]);
            uint8_t *out = malloc(sizes[k] ? sizes[k] : 1);
            ck_assert_ptr_nonnull(out);
            pq_error err;
            if (pq_snappy_decompress(c.p, c.n, out, sizes[k], &err) != PQ_OK)
                ck_abort_msg("shape %u, %zu bytes: %s", shape, sizes[k], err.message);
            if (sizes[k] && memcmp(out, d, sizes[k]) != 0)
                ck_abort_msg("shape %u, %zu bytes: wrong bytes", shape, sizes[k]);
            if (shape % 4 == 0 || sizes[k] >= 4093) snappy_pair_check(c.p, c.n, sizes[k], d); /* two at once */
            /* In steps (pq_snappy_read_to): each stops at or past its
             * point, no more than one element (a literal: to its end)
             * later, with the data's prefix out; the last step ends it. */
            const size_t n = sizes[k], points[] = {0, 1, 100, n / 3, n / 2, n ? n - 1 : 0};
            pq_snappy_reader r;
            memset(out, 0, n ? n : 1);
            if (pq_snappy_open(&r, c.p, c.n, out, n, &err) != PQ_OK) ck_abort_msg("open: %s", err.message);
            for (size_t q = 0; q < sizeof points / sizeof points[0]; q++) {
                if (pq_snappy_read_to(&r, points[q], &err) != PQ_OK)
                    ck_abort_msg("shape %u, %zu bytes, to %zu: %s", shape, n, points[q], err.message);
                size_t got = (size_t)(r.op - r.dst);
                if (got < (points[q] < n ? points[q] : n) || got > n || memcmp(out, d, got) != 0)
                    ck_abort_msg("shape %u, %zu bytes, to %zu: %zu out, or not the data's prefix", shape, n,
                                 points[q], got);
            }
            if (pq_snappy_read_to(&r, n, &err) != PQ_OK || r.op != r.oe || r.ip != r.ie || (n && memcmp(out, d, n)))
                ck_abort_msg("shape %u, %zu bytes: the last step did not end the stream", shape, n);
            free(out);
            free(c.p);
            free(d);
        }
    }
    /* Copies of every period and length, the word moves and the exact ones
     * (a long tail keeps the output room large; no tail puts the copy at
     * the end), each checked against the format's own definition. */
    uint8_t s[512], want[512], out[512];
    for (size_t off = 1; off <= 20; off++)
        for (size_t len = 1; len <= 64; len++)
            for (size_t tail = 0; tail <= 200; tail += 100) {
                size_t lit = off + 3;
                size_t n = hand_stream(s, lit, len, off, tail);
                size_t total = lit + len + tail;
                for (size_t i = 0; i < lit; i++) want[i] = (uint8_t)(splitmix64(i) >> 56);
                for (size_t i = 0; i < len; i++) want[lit + i] = want[lit + i - off];
                for (size_t i = 0; i < tail; i++) want[lit + len + i] = (uint8_t)(splitmix64(i + 31) >> 56);
                pq_error err;
                if (pq_snappy_decompress(s, n, out, total, &err) != PQ_OK)
                    ck_abort_msg("copy off %zu len %zu tail %zu: %s", off, len, tail, err.message);
                if (memcmp(out, want, total) != 0)
                    ck_abort_msg("copy off %zu len %zu tail %zu: wrong bytes", off, len, tail);
                snappy_both(s, n, total, &taken, &refused);
            }
    /* The fast loop's copy checks at their edges (16 or more bytes
     * written, room left): offsets 0, 1, 3, 8 and 15 and len - 1
     * (overlapping its own output), len, the bytes written (reaching the
     * first byte) and one more (refused), for both offset sizes and every
     * length (2-byte offsets: up to 64, longer than the bytes written too);
     * libsnappy the oracle, the format's definition for the bytes. */
    for (size_t lit = 16; lit <= 100; lit += lit == 16 ? 24 : 60)
        for (int ob = 1; ob <= 2; ob++)
            for (size_t len = ob == 1 ? 4 : 1; len <= (ob == 1 ? 11u : 64u); len++) {
                size_t offs[] = {0, 1, 3, 8, 15, len - 1, len, lit, lit + 1};
                for (size_t q = 0; q < sizeof offs / sizeof offs[0]; q++) {
                    size_t off = offs[q], total = lit + len + 100;
                    size_t n = hand_stream_with(s, lit, len, off, 100, ob);
                    unsigned refused_before = refused;
                    snappy_both(s, n, total, &taken, &refused);
                    bool valid = off > 0 && off <= lit;
                    if ((refused == refused_before) != valid)
                        ck_abort_msg("copy (%d-byte offset) off %zu len %zu after %zu: %s", ob, off, len, lit,
                                     valid ? "refused" : "taken");
                    if (!valid) continue;
                    for (size_t i = 0; i < lit; i++) want[i] = (uint8_t)(splitmix64(i) >> 56);
                    for (size_t i = 0; i < len; i++) want[lit + i] = want[lit + i - off];
                    for (size_t i = 0; i < 100; i++) want[lit + len + i] = (uint8_t)(splitmix64(i + 31) >> 56);
                    pq_error err;
                    if (pq_snappy_decompress(s, n, out, total, &err) != PQ_OK || memcmp(out, want, total) != 0)
                        ck_abort_msg("copy (%d-byte offset) off %zu len %zu after %zu: wrong bytes", ob, off, len,
                                     lit);
                }
            }
    /* A copy reaching one byte before the start, and offset 0: refused. */
    size_t n = hand_stream(s, 10, 8, 11, 100);
    snappy_both(s, n, 118, &taken, &refused);
    n = hand_stream(s, 10, 8, 0, 0);
    snappy_both(s, n, 18, &taken, &refused);
    ck_assert_uint_ge(refused, 2);
    /* Mutations: one to three bytes replaced, anywhere after the preamble. */
    for (unsigned m = 0; m < 3000; m++) {
        unsigned shape = m % 80;
        size_t size = m % 3 == 0 ? 5000 : 40 + m % 200;
        uint8_t *d = shaped(shape, size);
        blob c = c_snappy(d, size);
        size_t pre = size < 128 ? 1 : size < 16384 ? 2 : 3;
        unsigned edits = 1 + m % 3;
        for (unsigned e = 0; e < edits && c.n > pre; e++) {
            uint64_t r = splitmix64(m * 4 + e + 1000003);
            c.p[pre + r % (c.n - pre)] = (uint8_t)(r >> 40);
        }
        snappy_both(c.p, c.n, size, &taken, &refused);
        free(c.p);
        free(d);
    }
    ck_assert_uint_gt(taken, 500);
    ck_assert_uint_gt(refused, 500);
}
END_TEST

START_TEST(uncompressed_round_trip) { round_trips(PQ_CODEC_UNCOMPRESSED, c_copy, false); }
END_TEST

START_TEST(snappy_round_trip) { round_trips(PQ_CODEC_SNAPPY, c_snappy, false); }
END_TEST

START_TEST(gzip_round_trip) { round_trips(PQ_CODEC_GZIP, c_gzip, true); }
END_TEST

START_TEST(gzip_zlib_fallback) { round_trips(PQ_CODEC_GZIP, c_zlib, true); }
END_TEST

START_TEST(zstd_round_trip) { round_trips(PQ_CODEC_ZSTD, c_zstd, false); }
END_TEST

START_TEST(lz4_raw_round_trip) { round_trips(PQ_CODEC_LZ4_RAW, c_lz4_block, false); }
END_TEST

START_TEST(lz4_hadoop_round_trip) { round_trips(PQ_CODEC_LZ4, c_lz4_hadoop, false); }
END_TEST

START_TEST(lz4_frame_round_trip) { round_trips(PQ_CODEC_LZ4, c_lz4_frame, true); }
END_TEST

START_TEST(lz4_bare_block_fallback) { round_trips(PQ_CODEC_LZ4, c_lz4_block, false); }
END_TEST

/* ---------------------------------------------------------------------------
 * Fixtures from pyarrow's compressors
 * ------------------------------------------------------------------------- */

static blob read_fixture(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/codec/%s", PQ_SOURCE_DIR, name);
    blob b = {NULL, 0};
    b.p = pq_test_read_file(path, &b.n);
    ck_assert_msg(b.p != NULL, "cannot read %s (run tests/fixtures/make_codec_fixtures.py)", path);
    return b;
}

START_TEST(pyarrow_fixtures)
{
    static const struct {
        const char *prefix;
        int32_t codec;
        bool checksummed;
    } codecs[] = {
        {"brotli", PQ_CODEC_BROTLI, false}, {"gzip", PQ_CODEC_GZIP, true},
        {"lz4frame", PQ_CODEC_LZ4, false},  {"lz4raw", PQ_CODEC_LZ4_RAW, false},
        {"lz4raw", PQ_CODEC_LZ4, false},    {"snappy", PQ_CODEC_SNAPPY, false},
        {"zstd", PQ_CODEC_ZSTD, false},
    };
    static const struct {
        const char *kind;
        size_t n;
    } cases[] = {{"rand", 0}, {"rand", 1}, {"rand", 1000}, {"text", 1000}, {"rand", 4096}, {"text", 1u << 20}};
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++) {
            char name[128];
            snprintf(name, sizeof name, "%s-%s-%zu.bin", codecs[i].prefix, cases[j].kind, cases[j].n);
            blob c = read_fixture(name);
            uint8_t *data = gen_bytes(cases[j].kind, cases[j].n);
            battery(codecs[i].codec, &c, data, cases[j].n, codecs[i].checksummed);
            free(data);
            free(c.p);
        }
}
END_TEST

/* ---------------------------------------------------------------------------
 * Multi-part streams built by hand
 * ------------------------------------------------------------------------- */

START_TEST(gzip_multi_member)
{
    size_t n = 300000;
    uint8_t *data = gen_bytes("text", n);
    /* three members, the middle one empty, then a fourth */
    size_t cut[] = {0, 1000, 1000, 123456, n};
    blob all = {NULL, 0};
    for (int k = 0; k < 4; k++) {
        blob m = c_gzip(data + cut[k], cut[k + 1] - cut[k]);
        blob_append(&all, m.p, m.n);
        free(m.p);
    }
    expect_ok(PQ_CODEC_GZIP, all.p, all.n, data, n);
    expect_corrupt(PQ_CODEC_GZIP, all.p, all.n, n - 1, "one byte short");
    expect_corrupt(PQ_CODEC_GZIP, all.p, all.n, n + 1, "one byte long");
    expect_corrupt(PQ_CODEC_GZIP, all.p, all.n - 3, n, "last member truncated");

    /* garbage after the last member */
    uint8_t junk[] = {0, 0, 0};
    blob_append(&all, junk, sizeof junk);
    expect_corrupt(PQ_CODEC_GZIP, all.p, all.n, n, "trailing zero bytes");
    free(all.p);
    free(data);
}
END_TEST

START_TEST(lz4_hadoop_two_blocks)
{
    size_t n = 100000;
    uint8_t *data = gen_bytes("text", n);
    /* two blocks: 65536 + 34464 bytes */
    blob c = c_lz4_hadoop_chunks(data, n, 65536, 1);
    ck_assert_uint_eq(get_be32(c.p), 65536);
    uint32_t first = get_be32(c.p + 4);
    ck_assert_uint_eq(get_be32(c.p + 8 + first), n - 65536);
    battery(PQ_CODEC_LZ4, &c, data, n, false);

    /* the second block's raw size off by one: the blocks no longer fill the page */
    put_be32(c.p + 8 + first, (uint32_t)(n - 65536 + 1));
    expect_corrupt(PQ_CODEC_LZ4, c.p, c.n, n, "block size too large");
    put_be32(c.p + 8 + first, (uint32_t)(n - 65536 - 1));
    expect_corrupt(PQ_CODEC_LZ4, c.p, c.n, n, "block size too small");
    /* a compressed size past the end */
    put_be32(c.p + 8 + first, (uint32_t)(n - 65536));
    put_be32(c.p + 12 + first, 0xfffffff0u);
    expect_corrupt(PQ_CODEC_LZ4, c.p, c.n, n, "compressed size past the end");
    free(c.p);

    /* several chunks inside one block (Hadoop's general form) */
    c = c_lz4_hadoop_chunks(data, n, 65536, 3);
    battery(PQ_CODEC_LZ4, &c, data, n, false);
    free(c.p);
    free(data);
}
END_TEST

START_TEST(lz4_frames_concatenated)
{
    size_t n = 200000;
    uint8_t *data = gen_bytes("text", n);
    blob a = c_lz4_frame(data, 70000);
    blob b = c_lz4_frame(data + 70000, n - 70000);
    blob_append(&a, b.p, b.n);
    battery(PQ_CODEC_LZ4, &a, data, n, false);
    free(a.p);
    free(b.p);
    free(data);
}
END_TEST

START_TEST(zstd_frames_concatenated)
{
    size_t n = 200000;
    uint8_t *data = gen_bytes("text", n);
    blob a = c_zstd(data, 1);
    blob b = c_zstd(data + 1, n - 1);
    blob_append(&a, b.p, b.n);
    battery(PQ_CODEC_ZSTD, &a, data, n, false);
    free(a.p);
    free(b.p);
    free(data);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Errors and the API contract
 * ------------------------------------------------------------------------- */

START_TEST(error_messages)
{
    uint8_t *data = gen_bytes("text", 100);
    pq_error err;
    blob c = c_zstd(data, 100);
    /* the frame declares 100 bytes: up front, more than 90 is too many */
    ck_assert_int_eq(run(PQ_CODEC_ZSTD, c.p, c.n, 90, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "ZSTD: frame declares 100 bytes, page header says 90");
    ck_assert_int_eq(run(PQ_CODEC_ZSTD, c.p, c.n, 120, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "ZSTD: decompressed 100 bytes, page header says 120");
    free(c.p);

    c = c_snappy(data, 100);
    ck_assert_int_eq(run(PQ_CODEC_SNAPPY, c.p, c.n, 101, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "SNAPPY: stream declares 100 bytes, page header says 101");
    free(c.p);

    c = c_gzip(data, 100);
    ck_assert_int_eq(run(PQ_CODEC_GZIP, c.p, c.n, 101, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "GZIP: decompressed 100 bytes, page header says 101");
    ck_assert_int_eq(run(PQ_CODEC_GZIP, c.p, c.n, 99, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "GZIP: decompresses to more than the 99 bytes the page header says");
    free(c.p);

    c = c_lz4_block(data, 100);
    ck_assert_int_eq(run(PQ_CODEC_LZ4_RAW, c.p, c.n, 120, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "LZ4_RAW: decompressed 100 bytes, page header says 120");
    free(c.p);

    ck_assert_int_eq(run(PQ_CODEC_UNCOMPRESSED, data, 100, 99, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "UNCOMPRESSED: page holds 100 bytes, page header says 99");
    free(data);
}
END_TEST

START_TEST(trailing_bytes)
{
    /* a byte after the end of a complete stream is corrupt data, never ignored */
    size_t n = 5000;
    uint8_t *data = gen_bytes("text", n);
    static const struct {
        int32_t codec;
        compress_fn fn;
    } cases[] = {
        {PQ_CODEC_UNCOMPRESSED, c_copy}, {PQ_CODEC_SNAPPY, c_snappy}, {PQ_CODEC_GZIP, c_gzip},
        {PQ_CODEC_GZIP, c_zlib},         {PQ_CODEC_ZSTD, c_zstd},     {PQ_CODEC_LZ4_RAW, c_lz4_block},
        {PQ_CODEC_LZ4, c_lz4_hadoop},    {PQ_CODEC_LZ4, c_lz4_frame}, {PQ_CODEC_LZ4, c_lz4_block},
    };
    static const uint8_t extra[] = {0x00, 0x1f, 0xff};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t k = 0; k < sizeof extra; k++) {
            blob c = cases[i].fn(data, n);
            blob_append(&c, &extra[k], 1);
            expect_corrupt(cases[i].codec, c.p, c.n, n, "one byte after the stream");
            free(c.p);
        }
    blob b = read_fixture("brotli-text-1000.bin");
    blob_append(&b, extra, 1);
    expect_corrupt(PQ_CODEC_BROTLI, b.p, b.n, 1000, "one byte after the stream");
    free(b.p);
    free(data);
}
END_TEST

START_TEST(unsupported_codecs)
{
    uint8_t src[4] = {1, 2, 3, 4}, dst[4];
    pq_error err;
    ck_assert_int_eq(pq_decompress(PQ_CODEC_LZO, src, 4, dst, 4, &err), PQ_ERR_UNSUPPORTED);
    ck_assert_int_eq(err.code, PQ_ERR_UNSUPPORTED);
    ck_assert_str_eq(err.message, "LZO compression is not supported");
    ck_assert_int_eq(pq_decompress(99, src, 4, dst, 4, &err), PQ_ERR_UNSUPPORTED);
    ck_assert_str_eq(err.message, "unknown compression codec 99");
    ck_assert_int_eq(pq_decompress(-1, src, 4, dst, 4, &err), PQ_ERR_UNSUPPORTED);
    ck_assert_int_eq(pq_decompress(8, NULL, 0, NULL, 0, NULL), PQ_ERR_UNSUPPORTED);

    ck_assert(!pq_codec_supported(PQ_CODEC_LZO));
    ck_assert(!pq_codec_supported(8));
    ck_assert(!pq_codec_supported(-1));
    static const int32_t yes[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP, PQ_CODEC_BROTLI,
                                  PQ_CODEC_LZ4,          PQ_CODEC_ZSTD,   PQ_CODEC_LZ4_RAW};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) ck_assert(pq_codec_supported(yes[i]));
}
END_TEST

START_TEST(empty_and_null)
{
    pq_error err;
    for (int32_t codec = 0; codec <= 7; codec++) {
        if (codec == PQ_CODEC_LZO) continue;
        /* nothing to nothing is fine under every codec */
        ck_assert_int_eq(pq_decompress(codec, NULL, 0, NULL, 0, &err), PQ_OK);
        /* NULL with a size is a caller error */
        uint8_t b[2] = {0, 0};
        ck_assert_int_eq(pq_decompress(codec, NULL, 2, b, 2, &err), PQ_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(pq_decompress(codec, b, 2, NULL, 2, &err), PQ_ERR_INVALID_ARGUMENT);
        /* input but no room: an error unless it decodes to nothing */
        uint8_t one = 0x5a;
        ck_assert_int_eq(pq_decompress(codec, &one, 1, NULL, 0, NULL), PQ_ERR_CORRUPT_DATA);
    }
}
END_TEST

START_TEST(context_reuse)
{
    /* one context across codecs, pages and errors */
    pq_codec_ctx ctx;
    pq_codec_ctx_init(&ctx);
    pq_error err;
    size_t n = 50000;
    uint8_t *data = gen_bytes("text", n);
    uint8_t *out = malloc(n);
    blob z = c_zstd(data, n), g = c_gzip(data, n);
    for (int round = 0; round < 3; round++) {
        memset(out, 0, n);
        ck_assert_int_eq(pq_decompress_ctx(&ctx, PQ_CODEC_ZSTD, z.p, z.n, out, n, &err), PQ_OK);
        ck_assert_mem_eq(out, data, n);
        ck_assert_int_eq(pq_decompress_ctx(&ctx, PQ_CODEC_ZSTD, z.p, z.n / 2, out, n, &err), PQ_ERR_CORRUPT_DATA);
        memset(out, 0, n);
        ck_assert_int_eq(pq_decompress_ctx(&ctx, PQ_CODEC_GZIP, g.p, g.n, out, n, &err), PQ_OK);
        ck_assert_mem_eq(out, data, n);
        ck_assert_int_eq(pq_decompress_ctx(&ctx, PQ_CODEC_GZIP, g.p, g.n - 1, out, n, &err), PQ_ERR_CORRUPT_DATA);
    }
    ck_assert_ptr_nonnull(ctx.zstd);
    ck_assert_ptr_nonnull(ctx.deflate);
    pq_codec_ctx_free(&ctx);
    ck_assert_ptr_null(ctx.zstd);
    pq_codec_ctx_free(&ctx); /* twice is fine */
    pq_codec_ctx_free(NULL);
    free(z.p);
    free(g.p);
    free(out);
    free(data);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Corpus pages: the PageHeader fields read by hand with the compact primitives
 * ------------------------------------------------------------------------- */

typedef struct page_hdr {
    int32_t type, uncompressed, compressed;
    int32_t def_len, rep_len; /* data page v2 */
    bool is_compressed;
} page_hdr;

static bool read_page_header(pq_compact *c, page_hdr *h)
{
    memset(h, 0, sizeof *h);
    h->is_compressed = true;
    int16_t id = 0;
    for (;;) {
        int t = pq_compact_field(c, &id);
        if (c->bad) return false;
        if (t == PQ_WIRE_STOP) return true;
        if (id == 1 && t == PQ_WIRE_I32) h->type = pq_compact_i32(c);
        else if (id == 2 && t == PQ_WIRE_I32) h->uncompressed = pq_compact_i32(c);
        else if (id == 3 && t == PQ_WIRE_I32) h->compressed = pq_compact_i32(c);
        else if (id == 8 && t == PQ_WIRE_STRUCT) {
            int16_t sid = 0;
            for (;;) {
                int st = pq_compact_field(c, &sid);
                if (c->bad) return false;
                if (st == PQ_WIRE_STOP) break;
                if (sid == 5 && st == PQ_WIRE_I32) h->def_len = pq_compact_i32(c);
                else if (sid == 6 && st == PQ_WIRE_I32) h->rep_len = pq_compact_i32(c);
                else if (sid == 7 && (st == PQ_WIRE_BOOL_TRUE || st == PQ_WIRE_BOOL_FALSE))
                    h->is_compressed = st == PQ_WIRE_BOOL_TRUE;
                else if (!pq_compact_skip(c, st, false, 1)) return false;
            }
        } else if (!pq_compact_skip(c, t, false, 0)) return false;
        if (c->bad) return false;
    }
}

typedef struct corpus_case {
    const char *file;
    int32_t codec;
} corpus_case;

static const corpus_case corpus_cases[] = {
    {"data/concatenated_gzip_members.parquet", PQ_CODEC_GZIP},
    {"data/hadoop_lz4_compressed.parquet", PQ_CODEC_LZ4},
    {"data/hadoop_lz4_compressed_larger.parquet", PQ_CODEC_LZ4},
    {"data/non_hadoop_lz4_compressed.parquet", PQ_CODEC_LZ4},
    {"data/lz4_raw_compressed.parquet", PQ_CODEC_LZ4_RAW},
    {"data/lz4_raw_compressed_larger.parquet", PQ_CODEC_LZ4_RAW},
};

/* How the page bytes are framed, judged independently of pq_decompress. */
static void check_framing(const corpus_case *cc, const uint8_t *p, size_t n, size_t raw, int *multi_member)
{
    if (strstr(cc->file, "concatenated_gzip")) {
        /* does the first gzip member end before the page does? */
        struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
        uint8_t *out = malloc(raw ? raw : 1);
        size_t in_used = 0, got = 0;
        ck_assert_int_eq(libdeflate_gzip_decompress_ex(d, p, n, out, raw, &in_used, &got), LIBDEFLATE_SUCCESS);
        if (in_used < n) (*multi_member)++;
        free(out);
        libdeflate_free_decompressor(d);
    } else if (strstr(cc->file, "non_hadoop")) {
        /* the whole page is one bare LZ4 block */
        uint8_t *out = malloc(raw ? raw : 1);
        ck_assert_int_eq(LZ4_decompress_safe((const char *)p, (char *)out, (int)n, (int)raw), (int)raw);
        free(out);
    } else if (strstr(cc->file, "hadoop")) {
        ck_assert_uint_ge(n, 8);
        ck_assert_uint_le(get_be32(p), raw);
        ck_assert_uint_le((uint64_t)get_be32(p + 4) + 8, n);
    }
}

START_TEST(corpus_pages)
{
    const corpus_case *cc = &corpus_cases[_i];
    char *path = pq_test_corpus_path(cc->file);
    if (!path) pq_test_skip("corpus not found");
    size_t len = 0;
    uint8_t *file = pq_test_read_file(path, &len);
    ck_assert_msg(file != NULL, "cannot read %s", path);
    pq_error err;
    pq_metadata *md = pq_metadata_parse_tail(file, len, NULL, NULL, &err);
    ck_assert_msg(md != NULL, "%s: %s", cc->file, err.message);
    const pq_file_metadata *fm = pq_metadata_file(md);
    int pages = 0, multi_member = 0;
    for (uint32_t r = 0; r < fm->row_groups_len; r++)
        for (uint32_t col = 0; col < fm->row_groups[r].columns_len; col++) {
            const pq_column_meta *cm = &fm->row_groups[r].columns[col]->meta_data;
            ck_assert_int_eq(cm->codec, cc->codec);
            int64_t start = cm->data_page_offset;
            if ((cm->set & PQ_CMD_HAS_DICTIONARY_PAGE_OFFSET) && cm->dictionary_page_offset > 0 &&
                cm->dictionary_page_offset < start)
                start = cm->dictionary_page_offset;
            int64_t end = start + cm->total_compressed_size;
            ck_assert(start >= 0 && end <= (int64_t)len && start < end);
            pq_compact c;
            pq_compact_init(&c, file + start, (size_t)(end - start));
            while (pq_compact_remaining(&c) > 0) {
                page_hdr h;
                ck_assert_msg(read_page_header(&c, &h), "%s: bad page header", cc->file);
                ck_assert(h.compressed >= 0 && (size_t)h.compressed <= pq_compact_remaining(&c));
                ck_assert(h.uncompressed >= 0);
                const uint8_t *body = c.p;
                c.p += h.compressed;
                size_t skip = 0; /* v2 levels are stored uncompressed */
                if (h.type == PQ_PAGE_DATA_V2) {
                    skip = (size_t)h.def_len + (size_t)h.rep_len;
                    ck_assert(skip <= (size_t)h.compressed && skip <= (size_t)h.uncompressed);
                    if (!h.is_compressed) continue;
                } else if (h.type != PQ_PAGE_DATA && h.type != PQ_PAGE_DICTIONARY) {
                    continue;
                }
                size_t n = (size_t)h.compressed - skip, raw = (size_t)h.uncompressed - skip;
                check_framing(cc, body + skip, n, raw, &multi_member);
                uint8_t *src = dup_exact(body + skip, n);
                uint8_t *dst = malloc(raw ? raw : 1);
                pq_status st = pq_decompress(cm->codec, src, n, dst, raw, &err);
                ck_assert_msg(st == PQ_OK, "%s: rg %u col %u page %d: %s", cc->file, r, col, pages, err.message);
                /* the page header's size, exactly: one byte less fails */
                if (raw > 0)
                    ck_assert_int_eq(pq_decompress(cm->codec, src, n, dst, raw - 1, &err), PQ_ERR_CORRUPT_DATA);
                free(src);
                free(dst);
                pages++;
            }
        }
    ck_assert_int_gt(pages, 0);
    if (cc->codec == PQ_CODEC_GZIP) ck_assert_int_gt(multi_member, 0);
    pq_metadata_release(md);
    free(file);
    free(path);
}
END_TEST

static Suite *codecs_suite(void)
{
    Suite *s = suite_create("codecs");
    TCase *tc = tcase_create("round_trips");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, uncompressed_round_trip);
    tcase_add_test(tc, snappy_round_trip);
    tcase_add_test(tc, snappy_stored_literal);
    tcase_add_test(tc, zstd_stored_raw);
    tcase_add_test(tc, snappy_matches_libsnappy);
    tcase_add_test(tc, gzip_round_trip);
    tcase_add_test(tc, gzip_zlib_fallback);
    tcase_add_test(tc, zstd_round_trip);
    tcase_add_test(tc, lz4_raw_round_trip);
    tcase_add_test(tc, lz4_hadoop_round_trip);
    tcase_add_test(tc, lz4_frame_round_trip);
    tcase_add_test(tc, lz4_bare_block_fallback);
    tcase_add_test(tc, pyarrow_fixtures);
    suite_add_tcase(s, tc);

    tc = tcase_create("streams");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, gzip_multi_member);
    tcase_add_test(tc, lz4_hadoop_two_blocks);
    tcase_add_test(tc, lz4_frames_concatenated);
    tcase_add_test(tc, zstd_frames_concatenated);
    suite_add_tcase(s, tc);

    tc = tcase_create("contract");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, error_messages);
    tcase_add_test(tc, trailing_bytes);
    tcase_add_test(tc, unsupported_codecs);
    tcase_add_test(tc, empty_and_null);
    tcase_add_test(tc, context_reuse);
    suite_add_tcase(s, tc);

    tc = tcase_create("corpus");
    tcase_set_timeout(tc, 0);
    tcase_add_loop_test(tc, corpus_pages, 0, (int)(sizeof corpus_cases / sizeof corpus_cases[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(codecs_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
