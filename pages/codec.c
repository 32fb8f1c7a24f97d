/*
 * codec.c — page decompression: one function per Parquet codec, each
 * bounds-checked and held to the page header's uncompressed size.
 */
#include "pages/codec.h"

#include <brotli/decode.h>
#include <libdeflate.h>
#include <limits.h>
#include <lz4.h>
#include <lz4frame.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "kernels/primitives.h"
#include "metadata/error.h"
#include "pages/snappy.h"
#include "pq_metadata.h"

static pq_status size_mismatch(pq_error *err, const char *codec, size_t got, size_t want)
{
    return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "%s: decompressed %zu bytes, page header says %zu",
                        codec, got, want);
}

static pq_status too_much(pq_error *err, const char *codec, size_t want)
{
    return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                        "%s: decompresses to more than the %zu bytes the page header says", codec, want);
}

static inline uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* LZ4's block API counts in int. */
static inline int lz4_cap(size_t n)
{
    return n > (size_t)INT_MAX ? INT_MAX : (int)n;
}

/* ---------------------------------------------------------------------------
 * One function per codec. src/dst are never NULL here (see pq_decompress_ctx).
 * ------------------------------------------------------------------------- */

static pq_status dec_uncompressed(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                                  pq_error *err)
{
    if (src_len != dst_len)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "UNCOMPRESSED: page holds %zu bytes, page header says %zu", src_len, dst_len);
    memcpy(dst, src, dst_len);
    return PQ_OK;
}

static pq_status deflate_result(pq_error *err, const char *what, enum libdeflate_result r,
                                size_t dst_len)
{
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) return too_much(err, what, dst_len);
    return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "%s: corrupt or truncated stream", what);
}

/* gzip members back to back until the input ends; a zlib stream when the
 * gzip magic is absent. */
static pq_status dec_gzip(struct libdeflate_decompressor *d, const uint8_t *src, size_t src_len,
                          uint8_t *dst, size_t dst_len, pq_error *err)
{
    size_t in = 0, out = 0;
    if (src_len < 2 || src[0] != 0x1f || src[1] != 0x8b) {
        size_t used = 0, got = 0;
        enum libdeflate_result r = libdeflate_zlib_decompress_ex(d, src, src_len, dst, dst_len, &used, &got);
        if (r != LIBDEFLATE_SUCCESS) return deflate_result(err, "GZIP (no gzip magic, read as zlib)", r, dst_len);
        if (used != src_len)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "GZIP (zlib): %zu bytes after the end of the stream",
                                src_len - used);
        if (got != dst_len) return size_mismatch(err, "GZIP", got, dst_len);
        return PQ_OK;
    }
    for (unsigned member = 0; in < src_len; member++) {
        if (src_len - in < 2 || src[in] != 0x1f || src[in + 1] != 0x8b)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "GZIP: %zu bytes after gzip member %u are not a gzip member", src_len - in,
                                member);
        size_t used = 0, got = 0;
        enum libdeflate_result r =
            libdeflate_gzip_decompress_ex(d, src + in, src_len - in, dst + out, dst_len - out, &used, &got);
        if (r != LIBDEFLATE_SUCCESS) return deflate_result(err, "GZIP", r, dst_len);
        if (used == 0) /* cannot happen for a valid member; never loop forever */
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "GZIP: member %u is empty", member);
        in += used;
        out += got;
    }
    if (out != dst_len) return size_mismatch(err, "GZIP", out, dst_len);
    return PQ_OK;
}

static pq_status dec_brotli(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                            pq_error *err)
{
    /* The streaming call, not BrotliDecoderDecompress, to tell truncated
     * input from output that overflows the page. */
    BrotliDecoderState *s = BrotliDecoderCreateInstance(NULL, NULL, NULL);
    if (!s) return pq_error_set(err, PQ_ERR_NOMEM, "BROTLI: cannot create a decoder");
    size_t avail_in = src_len, avail_out = dst_len;
    const uint8_t *next_in = src;
    uint8_t *next_out = dst;
    BrotliDecoderResult r = BrotliDecoderDecompressStream(s, &avail_in, &next_in, &avail_out, &next_out, NULL);
    const char *why = r == BROTLI_DECODER_RESULT_ERROR ? BrotliDecoderErrorString(BrotliDecoderGetErrorCode(s))
                                                       : NULL;
    BrotliDecoderDestroyInstance(s);
    size_t got = dst_len - avail_out;
    switch (r) {
    case BROTLI_DECODER_RESULT_SUCCESS:
        if (avail_in)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "BROTLI: %zu bytes after the end of the stream",
                                avail_in);
        if (got != dst_len) return size_mismatch(err, "BROTLI", got, dst_len);
        return PQ_OK;
    case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
        return too_much(err, "BROTLI", dst_len);
    case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "BROTLI: truncated stream (%zu bytes out of %zu)", got,
                            dst_len);
    default:
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "BROTLI: corrupt stream (%s)", why ? why : "?");
    }
}

/* Hadoop framing: blocks of [BE32 uncompressed size] followed by
 * [BE32 compressed size][LZ4 block] chunks filling that size (one chunk per
 * block from every writer we know, several allowed). True when the whole
 * input decodes to exactly dst_len bytes. */
static bool lz4_hadoop(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
    size_t in = 0, out = 0;
    if (src_len < 8) return false;
    while (in < src_len) {
        if (src_len - in < 4) return false;
        uint32_t raw = load_be32(src + in);
        in += 4;
        if (raw > dst_len - out) return false;
        size_t block_end = out + raw;
        do {
            if (src_len - in < 4) return false;
            uint32_t comp = load_be32(src + in);
            in += 4;
            if (comp > src_len - in || comp > (uint32_t)INT_MAX) return false;
            int n = LZ4_decompress_safe((const char *)src + in, (char *)dst + out, (int)comp,
                                        lz4_cap(block_end - out));
            /* n == 0 only for an empty block, else no progress */
            if (n < 0 || (n == 0 && raw != 0)) return false;
            in += comp;
            out += (size_t)n;
        } while (out < block_end);
    }
    return out == dst_len;
}

/* LZ4 frame format, frames back to back. */
static bool lz4_frames(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, bool *nomem)
{
    LZ4F_dctx *d = NULL;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION))) {
        *nomem = true;
        return false;
    }
    size_t in = 0, out = 0;
    bool ok = false;
    for (;;) {
        size_t in_n = src_len - in, out_n = dst_len - out;
        size_t hint = LZ4F_decompress(d, dst + out, &out_n, src + in, &in_n, NULL);
        if (LZ4F_isError(hint)) break;
        in += in_n;
        out += out_n;
        if (hint == 0 && in == src_len) { /* a frame ended with the input */
            ok = out == dst_len;
            break;
        }
        if (in_n == 0 && out_n == 0) break; /* truncated, or more output than dst_len */
    }
    LZ4F_freeDecompressionContext(d);
    return ok;
}

static pq_status dec_lz4(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, pq_error *err)
{
    if (lz4_hadoop(src, src_len, dst, dst_len)) return PQ_OK;
    if (src_len >= 4 && src[0] == 0x04 && src[1] == 0x22 && src[2] == 0x4d && src[3] == 0x18) {
        bool nomem = false;
        if (lz4_frames(src, src_len, dst, dst_len, &nomem)) return PQ_OK;
        if (nomem) return pq_error_set(err, PQ_ERR_NOMEM, "LZ4: cannot create a frame decoder");
    }
    int n = -1;
    if (src_len <= (size_t)INT_MAX)
        n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, lz4_cap(dst_len));
    if (n >= 0 && (size_t)n == dst_len) return PQ_OK;
    return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                        "LZ4: %zu bytes are neither Hadoop-framed LZ4, LZ4 frames, nor an LZ4 block of the "
                        "%zu bytes the page header says",
                        src_len, dst_len);
}

static pq_status dec_lz4_raw(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                             pq_error *err)
{
    if (src_len > (size_t)INT_MAX || dst_len > (size_t)INT_MAX)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "LZ4_RAW: a block of %zu bytes (to %zu) is too large",
                            src_len, dst_len);
    int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
    if (n < 0)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "LZ4_RAW: corrupt block, or it decompresses to more than the %zu bytes the page "
                            "header says",
                            dst_len);
    if ((size_t)n != dst_len) return size_mismatch(err, "LZ4_RAW", (size_t)n, dst_len);
    return PQ_OK;
}

const uint8_t *pq_zstd_stored_raw(const uint8_t *src, size_t src_len, size_t dst_len)
{
    enum { BLOCK_MAX = 128 << 10, WINDOW_LOG_MAX = 27 }; /* libzstd's default window limit */
    static const uint8_t fcs_bytes[4] = {0, 2, 4, 8};
    if (!src || dst_len == 0 || dst_len > BLOCK_MAX || src_len < 5 + 3 + dst_len) return NULL;
    if (src[0] != 0x28 || src[1] != 0xb5 || src[2] != 0x2f || src[3] != 0xfd) return NULL;
    uint8_t fhd = src[4];
    unsigned fcs_flag = fhd >> 6, single = (fhd >> 5) & 1;
    if ((fhd & 0x08) || (fhd & 0x04) || (fhd & 0x03)) return NULL; /* reserved, checksum, dictionary id */
    size_t at = 5;
    uint64_t window = 0;
    if (!single) {
        unsigned exponent = src[at] >> 3, mantissa = src[at] & 7;
        at++;
        if (10 + exponent > WINDOW_LOG_MAX) return NULL;
        uint64_t base = (uint64_t)1 << (10 + exponent);
        window = base + (base / 8) * mantissa;
    }
    size_t fcs_len = fcs_flag == 0 ? single : fcs_bytes[fcs_flag];
    if (src_len - at < fcs_len + 3) return NULL;
    if (fcs_len) {
        uint64_t fcs = 0;
        for (size_t k = 0; k < fcs_len; k++) fcs |= (uint64_t)src[at + k] << (8 * k);
        if (fcs_len == 2) fcs += 256;
        if (fcs != dst_len) return NULL;
        at += fcs_len;
    }
    if (single) window = dst_len;
    uint32_t block = (uint32_t)src[at] | (uint32_t)src[at + 1] << 8 | (uint32_t)src[at + 2] << 16;
    at += 3;
    /* last block, type raw (0), dst_len bytes, within the window, ending src */
    if ((block & 1) == 0 || ((block >> 1) & 3) != 0 || (block >> 3) != dst_len || dst_len > window ||
        src_len - at != dst_len)
        return NULL;
    return src + at;
}

/* The size the first frame declares, checked before any work. */
static pq_status zstd_declared_fits(const uint8_t *src, size_t src_len, size_t dst_len, pq_error *err)
{
    unsigned long long declared = ZSTD_getFrameContentSize(src, src_len);
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR && declared > dst_len)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "ZSTD: frame declares %llu bytes, page header says %zu",
                            declared, dst_len);
    return PQ_OK;
}

static pq_status dec_zstd(ZSTD_DCtx *d, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                          pq_error *err)
{
    pq_status st = zstd_declared_fits(src, src_len, dst_len, err);
    if (st != PQ_OK) return st;
    size_t r = ZSTD_decompressDCtx(d, dst, dst_len, src, src_len);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall) return too_much(err, "ZSTD", dst_len);
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "ZSTD: %s", ZSTD_getErrorName(r));
    }
    if (r != dst_len) return size_mismatch(err, "ZSTD", r, dst_len);
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Entry points
 * ------------------------------------------------------------------------- */

bool pq_codec_supported(int32_t codec)
{
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
    case PQ_CODEC_SNAPPY:
    case PQ_CODEC_GZIP:
    case PQ_CODEC_BROTLI:
    case PQ_CODEC_LZ4:
    case PQ_CODEC_ZSTD:
    case PQ_CODEC_LZ4_RAW:
        return true;
    default:
        return false;
    }
}

void pq_codec_ctx_init(pq_codec_ctx *ctx)
{
    ctx->zstd = NULL;
    ctx->deflate = NULL;
}

void pq_codec_ctx_free(pq_codec_ctx *ctx)
{
    if (!ctx) return;
    ZSTD_freeDCtx(ctx->zstd);
    libdeflate_free_decompressor(ctx->deflate);
    pq_codec_ctx_init(ctx);
}

pq_status pq_decompress_ctx(pq_codec_ctx *ctx, int32_t codec, const uint8_t *src, size_t src_len,
                            uint8_t *dst, size_t dst_len, pq_error *err)
{
    if (!ctx || (!src && src_len) || (!dst && dst_len))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_decompress: NULL buffer with a non-zero size");
    if (codec == PQ_CODEC_LZO) return pq_error_set(err, PQ_ERR_UNSUPPORTED, "LZO compression is not supported");
    if (!pq_codec_supported(codec))
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "unknown compression codec %d", (int)codec);
    if (src_len == 0 && dst_len == 0) return PQ_OK;

    /* The libraries get real pointers even for empty spans. */
    static const uint8_t no_src[1];
    uint8_t no_dst[1];
    if (!src) src = no_src;
    if (!dst) dst = no_dst;

    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
        return dec_uncompressed(src, src_len, dst, dst_len, err);
    case PQ_CODEC_SNAPPY:
        return pq_snappy_decompress(src, src_len, dst, dst_len, err);
    case PQ_CODEC_GZIP:
        if (!ctx->deflate && !(ctx->deflate = libdeflate_alloc_decompressor()))
            return pq_error_set(err, PQ_ERR_NOMEM, "GZIP: cannot create a decoder");
        return dec_gzip(ctx->deflate, src, src_len, dst, dst_len, err);
    case PQ_CODEC_BROTLI:
        return dec_brotli(src, src_len, dst, dst_len, err);
    case PQ_CODEC_LZ4:
        return dec_lz4(src, src_len, dst, dst_len, err);
    case PQ_CODEC_ZSTD:
        if (!ctx->zstd && !(ctx->zstd = ZSTD_createDCtx()))
            return pq_error_set(err, PQ_ERR_NOMEM, "ZSTD: cannot create a decoder");
        return dec_zstd(ctx->zstd, src, src_len, dst, dst_len, err);
    default: /* PQ_CODEC_LZ4_RAW */
        return dec_lz4_raw(src, src_len, dst, dst_len, err);
    }
}

pq_status pq_decompress(int32_t codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                        pq_error *err)
{
    pq_codec_ctx ctx;
    pq_codec_ctx_init(&ctx);
    pq_status st = pq_decompress_ctx(&ctx, codec, src, src_len, dst, dst_len, err);
    pq_codec_ctx_free(&ctx);
    return st;
}

/* ---------------------------------------------------------------------------
 * A page a part at a time
 * ------------------------------------------------------------------------- */

bool pq_prefix_supported(int32_t codec)
{
    return codec == PQ_CODEC_SNAPPY || codec == PQ_CODEC_ZSTD;
}

pq_status pq_prefix_open(pq_prefix_reader *r, pq_codec_ctx *ctx, int32_t codec, const uint8_t *src, size_t src_len,
                         uint8_t *dst, size_t dst_len, pq_error *err)
{
    if (!ctx || !src || !dst || !pq_prefix_supported(codec))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_prefix_open: NULL buffer, or not SNAPPY or ZSTD");
    memset(r, 0, sizeof *r);
    r->codec = codec;
    r->ctx = ctx;
    r->src = src;
    r->src_len = src_len;
    r->dst = dst;
    r->dst_len = dst_len;
    if (codec == PQ_CODEC_SNAPPY) return pq_snappy_open(&r->snappy, src, src_len, dst, dst_len, err);
    if (!ctx->zstd && !(ctx->zstd = ZSTD_createDCtx()))
        return pq_error_set(err, PQ_ERR_NOMEM, "ZSTD: cannot create a decoder");
    pq_status st = zstd_declared_fits(src, src_len, dst_len, err);
    if (st == PQ_OK) ZSTD_DCtx_reset(ctx->zstd, ZSTD_reset_session_only);
    return st;
}

pq_status pq_prefix_read_to(pq_prefix_reader *r, size_t want, pq_error *err)
{
    if (r->codec == PQ_CODEC_SNAPPY) {
        pq_status st = pq_snappy_read_to(&r->snappy, want, err);
        r->out = (size_t)(r->snappy.op - r->snappy.dst);
        return st;
    }
    if (want >= r->dst_len) { /* whole: the one-shot decode and its checks */
        ZSTD_DCtx_reset(r->ctx->zstd, ZSTD_reset_session_only);
        pq_status st = dec_zstd(r->ctx->zstd, r->src, r->src_len, r->dst, r->dst_len, err);
        r->out = st == PQ_OK ? r->dst_len : 0;
        r->in_pos = r->src_len;
        return st;
    }
    ZSTD_outBuffer ob = {r->dst, want, r->out};
    ZSTD_inBuffer ib = {r->src, r->src_len, r->in_pos};
    while (ob.pos < ob.size) {
        size_t before = ob.pos, in_before = ib.pos;
        size_t ret = ZSTD_decompressStream(r->ctx->zstd, &ob, &ib);
        if (ZSTD_isError(ret)) return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "ZSTD: %s", ZSTD_getErrorName(ret));
        if (ret == 0 && ib.pos == ib.size) break;            /* every frame ended */
        if (ob.pos == before && ib.pos == in_before) break;  /* no input left for more */
    }
    r->out = ob.pos;
    r->in_pos = ib.pos;
    return PQ_OK;
}
