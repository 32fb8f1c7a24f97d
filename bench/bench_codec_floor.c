/*
 * bench_codec_floor.c — pqstep-bench-codec-floor: how long the codec alone
 * takes over the pages a read must decompress, the floor under any reader
 * that uses the same codec library.
 *
 *   pqstep-bench-codec-floor FILE [--columns PATH,...] [--repeat R]
 *
 * Reads FILE to the page-header stage and loads every compressed page
 * (dictionary and data pages; a V2 page's compressed section, after its
 * uncompressed levels) of the columns named (dotted leaf paths; default
 * all) into memory, each in a buffer of its own. Then R rounds (default 7)
 * of one pass that decompresses every page with pq_decompress_ctx, the
 * calls the decode stage makes (libzstd's ZSTD_decompressDCtx, pqstep's
 * snappy decoder, libdeflate, ...), into one warm output buffer, on one
 * thread. It prints the pages, the bytes in and out, the minimum and
 * median pass. A query that keeps a row in every page of a column must
 * decompress all of them: no reader with the same codec library reads it
 * faster at one thread than this minimum (docs/performance.md uses it for
 * polars' ZSTD lineitem file, whose codec, libzstd, polars uses too).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "pqstep-bench-codec-floor"
#include "bench_util.h"

#include "bench_pages.h"
#include "pages/codec.h"

/* One pass over every page; dies on a page the codec refuses. */
static double pass(pq_codec_ctx *ctx, const bench_page *pages, size_t n, uint8_t *out)
{
    double t = now_s();
    for (size_t i = 0; i < n; i++) {
        pq_error err;
        if (pq_decompress_ctx(ctx, pages[i].codec, pages[i].src, pages[i].src_len, out, pages[i].out_len, &err) !=
            PQ_OK)
            die("page %zu: %s", i, err.message);
    }
    return now_s() - t;
}

int main(int argc, char **argv)
{
    const char *path, *columns;
    unsigned long repeat;
    bench_parse_args(argc, argv, "usage: " BENCH_NAME " FILE [--columns PATH,...] [--repeat R]", &path, &repeat,
                     &columns);
    bench_pages bp;
    bench_load_pages(path, bench_column_listed, columns, &bp);
    for (size_t i = 0; i < bp.n; i++)
        if (!pq_codec_supported(bp.pages[i].codec)) die("%s: codec %d is not supported", path, bp.pages[i].codec);
    uint8_t *out = malloc(bp.max_out ? bp.max_out : 1);
    double *t = malloc(repeat * sizeof *t);
    if (!out || !t) die("out of memory");
    pq_codec_ctx ctx;
    pq_codec_ctx_init(&ctx);
    pass(&ctx, bp.pages, bp.n, out); /* every page checked once, the decoders set up */
    for (unsigned long k = 0; k < repeat; k++) t[k] = pass(&ctx, bp.pages, bp.n, out);
    qsort(t, repeat, sizeof *t, cmp_double);
    printf("%zu compressed pages, %.1f MB in, %.1f MB out, %lu rounds, one thread\n", bp.n, bp.in_bytes / 1e6,
           bp.out_bytes / 1e6, repeat);
    printf("codec alone: min %.1f ms (%.2f GB/s out)  median %.1f ms\n", t[0] * 1e3, bp.out_bytes / t[0] / 1e9,
           t[repeat / 2] * 1e3);
    pq_codec_ctx_free(&ctx);
    bench_pages_free(&bp);
    free(out);
    free(t);
    return 0;
}
