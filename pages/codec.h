/*
 * codec.h — decompression of page bodies, one call per page.
 *
 * The page header says how many bytes a page decompresses to; the caller
 * checks that size against its limits, allocates exactly that much and hands
 * it here. Every codec must then fill the buffer exactly: fewer or more bytes
 * is PQ_ERR_CORRUPT_DATA with a message that names the codec and both sizes,
 * e.g. "ZSTD: decompressed 100 bytes, page header says 120".
 *
 * Every input is untrusted: nothing reads past `src_len` or writes past
 * `dst_len`, and no input crashes. An empty input is accepted for an empty
 * output under every codec (writers differ on how they "compress" nothing).
 *
 * Codecs (pq_codec values):
 *   UNCOMPRESSED  a copy; the sizes must match.
 *   SNAPPY        the raw snappy format; its length preamble must equal
 *                 dst_len, checked before decoding.
 *   GZIP          gzip members, one or several concatenated (some writers
 *                 flush a member per buffer). When the gzip magic 1f 8b is
 *                 absent the input is tried as a zlib stream (some writers
 *                 emit zlib-wrapped deflate under the GZIP codec). Bytes
 *                 after the last member are an error.
 *   BROTLI        one brotli stream; bytes after its end are an error.
 *   LZ4           tried in this order, the first that decodes the whole input
 *                 to exactly dst_len wins:
 *                   1. the Hadoop framing (parquet-mr, Arrow): blocks of
 *                      [4-byte big-endian uncompressed size] then one or more
 *                      [4-byte big-endian compressed size][LZ4 block] chunks
 *                      that together decode to that size;
 *                   2. the LZ4 frame format (magic 04 22 4D 18), frames may
 *                      be concatenated;
 *                   3. one bare LZ4 block (older Arrow writers).
 *   ZSTD          zstd frames (concatenated and skippable frames too); the
 *                 content sizes the frames declare are checked first.
 *   LZ4_RAW       one bare LZ4 block.
 *   LZO           PQ_ERR_UNSUPPORTED. Unknown numbers: PQ_ERR_UNSUPPORTED.
 */
#ifndef PQ_PAGES_CODEC_H
#define PQ_PAGES_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pages/snappy.h"
#include "pq_error.h"

/* Decompress `src_len` bytes with Parquet codec `codec` (a pq_codec value)
 * into `dst`, which must be exactly `dst_len` bytes: the page header's
 * uncompressed size. The output must fill `dst` exactly; any other size is
 * PQ_ERR_CORRUPT_DATA naming the codec and both sizes. On error the contents
 * of `dst` are unspecified. `src` / `dst` may be NULL only when their length
 * is 0. Thread-safe (it keeps no state; see pq_decompress_ctx to reuse
 * decoder state across calls). */
pq_status pq_decompress(int32_t codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                        size_t dst_len, pq_error *err);

/* A ZSTD page that is one frame holding one raw (stored) block is its own
 * output: the block's bytes in src, or NULL for any other page. Such a
 * frame is what zstd writes for incompressible input up to 128 KiB (as
 * parquet-rs's pages of bit-packed dictionary indices often are). Taken
 * only where libzstd would give exactly those dst_len bytes: the magic
 * number, reserved bit clear, no dictionary id, no checksum, a declared
 * size (when present) of dst_len, a window it accepts by default, and the
 * block, marked last, of dst_len bytes, ending src. */
const uint8_t *pq_zstd_stored_raw(const uint8_t *src, size_t src_len, size_t dst_len);

/* True when pq_decompress handles `codec` (every codec but LZO and unknown
 * numbers). */
bool pq_codec_supported(int32_t codec);

/* Reusable decoder state, owned by the caller: one per thread. It saves the
 * allocation and setup of the ZSTD and deflate decoders on every page. The
 * decoders are created on first use. */
typedef struct pq_codec_ctx {
    struct ZSTD_DCtx_s *zstd;
    struct libdeflate_decompressor *deflate;
} pq_codec_ctx;

/* Start with no decoders; cannot fail. */
void pq_codec_ctx_init(pq_codec_ctx *ctx);

/* Free the decoders; the context may be initialised again. NULL is a no-op. */
void pq_codec_ctx_free(pq_codec_ctx *ctx);

/* pq_decompress with the decoders of `ctx` (not NULL). PQ_ERR_NOMEM when a
 * decoder cannot be created. */
pq_status pq_decompress_ctx(pq_codec_ctx *ctx, int32_t codec, const uint8_t *src, size_t src_len,
                            uint8_t *dst, size_t dst_len, pq_error *err);


/* A page decompressed a part at a time, for a reader that wants only its
 * first bytes (a sparse selection's strings): SNAPPY and ZSTD
 * (pq_prefix_supported). pq_prefix_open takes the page as
 * pq_decompress_ctx would (dst of exactly dst_len bytes, the page header's
 * size; ctx lends the ZSTD decoder and must outlive the reader); each
 * pq_prefix_read_to then decodes until at least `want` bytes of dst are out
 * (SNAPPY: to the end of an element; ZSTD: of a block, so possibly more),
 * and pq_prefix_out says how many are. The rest of the page is left
 * undecoded and unchecked. A read to dst_len decodes the page whole, with
 * every check and message of pq_decompress_ctx (ZSTD starts again from the
 * page's first byte for it). After an error, stop. */
typedef struct pq_prefix_reader {
    int32_t codec;
    pq_codec_ctx *ctx;
    const uint8_t *src;
    size_t src_len, in_pos;
    uint8_t *dst;
    size_t dst_len, out;
    pq_snappy_reader snappy;
} pq_prefix_reader;

bool pq_prefix_supported(int32_t codec);
pq_status pq_prefix_open(pq_prefix_reader *r, pq_codec_ctx *ctx, int32_t codec, const uint8_t *src, size_t src_len,
                         uint8_t *dst, size_t dst_len, pq_error *err);
pq_status pq_prefix_read_to(pq_prefix_reader *r, size_t want, pq_error *err);
static inline size_t pq_prefix_out(const pq_prefix_reader *r) { return r->out; }

#endif
