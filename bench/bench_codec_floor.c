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

#include "pages/codec.h"
#include "pq_metadata.h"
#include "pq_pages.h"
#include "pq_reader.h"

#define DEFAULT_REPEAT 7
#define MAX_REPEAT 1000

typedef struct page {
    int32_t codec;
    uint8_t *src;
    size_t src_len, out_len;
} page;

/* Whether the chunk's dotted path is one of `columns` (comma-separated;
 * NULL: every column). */
static bool wanted(const pq_column_meta *m, const char *columns)
{
    if (!columns) return true;
    char path[1024];
    size_t len = 0;
    for (uint32_t i = 0; i < m->path_in_schema_len; i++) {
        const pq_bytes *b = &m->path_in_schema[i];
        if (len + b->len + 2 > sizeof path) return false;
        if (i) path[len++] = '.';
        memcpy(path + len, b->ptr, b->len);
        len += b->len;
    }
    for (const char *s = columns; *s;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == len && memcmp(s, path, len) == 0) return true;
        s += n + (e ? 1 : 0);
    }
    return false;
}

/* The compressed section of every compressed page of the chosen columns. */
static page *load_pages(const char *path, const char *columns, size_t *npages, size_t *in_bytes,
                        size_t *out_bytes, size_t *max_out)
{
    pq_error err;
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    pq_reader *r = pq_reader_open_path(path, &opts, &err);
    if (!r || pq_reader_advance_to(r, PQ_STAGE_PAGE_HEADERS, &err) != PQ_OK) die("%s: %s", path, err.message);
    const pq_file_metadata *fm = pq_metadata_file(pq_reader_metadata(r));
    FILE *f = fopen(path, "rb");
    if (!f) die("%s: cannot open", path);
    size_t n = 0, cap = 0, nrg, ncol;
    page *pages = NULL;
    *in_bytes = *out_bytes = *max_out = 0;
    const uint32_t *rgs = pq_reader_selected_row_groups(r, &nrg);
    const uint32_t *cols = pq_reader_selected_columns(r, &ncol);
    for (size_t g = 0; g < nrg; g++)
        for (size_t c = 0; c < ncol; c++) {
            const pq_column_meta *m = &fm->row_groups[rgs[g]].columns[cols[c]]->meta_data;
            if (m->codec == PQ_CODEC_UNCOMPRESSED || !wanted(m, columns)) continue;
            if (!pq_codec_supported(m->codec)) die("%s: codec %d is not supported", path, m->codec);
            const pq_chunk_pages *cp = pq_reader_chunk_pages(r, rgs[g], cols[c]);
            for (size_t p = 0; cp && p < cp->npages; p++) {
                const pq_page_info *pi = &cp->pages[p];
                if (pi->type == PQ_PAGE_INDEX || !pi->is_compressed || pi->compressed_size <= 0) continue;
                size_t levels = 0;
                if (pi->type == PQ_PAGE_DATA_V2) /* levels stored uncompressed in front */
                    levels = (size_t)pi->def_levels_byte_length + (size_t)pi->rep_levels_byte_length;
                if (levels > (size_t)pi->compressed_size || levels > (size_t)pi->uncompressed_size)
                    die("%s: a page's levels exceed the page", path);
                if (n == cap) {
                    cap = cap ? cap * 2 : 1024;
                    pages = realloc(pages, cap * sizeof *pages);
                    if (!pages) die("out of memory");
                }
                page *pg = &pages[n++];
                pg->codec = m->codec;
                pg->src_len = (size_t)pi->compressed_size - levels;
                pg->out_len = (size_t)pi->uncompressed_size - levels;
                pg->src = malloc(pg->src_len ? pg->src_len : 1);
                if (!pg->src || fseeko(f, (off_t)(cp->offset + pi->data_offset + levels), SEEK_SET) != 0 ||
                    fread(pg->src, 1, pg->src_len, f) != pg->src_len)
                    die("%s: cannot read the page at byte %llu", path,
                        (unsigned long long)(cp->offset + pi->data_offset));
                *in_bytes += pg->src_len;
                *out_bytes += pg->out_len;
                if (pg->out_len > *max_out) *max_out = pg->out_len;
            }
        }
    fclose(f);
    pq_reader_close(r);
    if (n == 0) die("%s: no compressed pages%s", path, columns ? " in those columns" : "");
    *npages = n;
    return pages;
}

/* One pass over every page; dies on a page the codec refuses. */
static double pass(pq_codec_ctx *ctx, const page *pages, size_t n, uint8_t *out)
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
    const char *path = NULL, *columns = NULL;
    unsigned long repeat = DEFAULT_REPEAT;
    const char *usage = "usage: " BENCH_NAME " FILE [--columns PATH,...] [--repeat R]";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            if (!parse_uint(argv[++i], MAX_REPEAT, &repeat) || repeat == 0) die("--repeat: 1..%d", MAX_REPEAT);
        } else if (strcmp(argv[i], "--columns") == 0 && i + 1 < argc) {
            columns = argv[++i];
        } else if (argv[i][0] == '-' || path) {
            die("%s", usage);
        } else {
            path = argv[i];
        }
    }
    if (!path) die("%s", usage);

    size_t n, in_bytes, out_bytes, max_out;
    page *pages = load_pages(path, columns, &n, &in_bytes, &out_bytes, &max_out);
    uint8_t *out = malloc(max_out ? max_out : 1);
    double *t = malloc(repeat * sizeof *t);
    if (!out || !t) die("out of memory");
    pq_codec_ctx ctx;
    pq_codec_ctx_init(&ctx);
    pass(&ctx, pages, n, out); /* every page checked once, the decoders set up */
    for (unsigned long k = 0; k < repeat; k++) t[k] = pass(&ctx, pages, n, out);
    qsort(t, repeat, sizeof *t, cmp_double);
    printf("%zu compressed pages, %.1f MB in, %.1f MB out, %lu rounds, one thread\n", n, in_bytes / 1e6,
           out_bytes / 1e6, repeat);
    printf("codec alone: min %.1f ms (%.2f GB/s out)  median %.1f ms\n", t[0] * 1e3, out_bytes / t[0] / 1e9,
           t[repeat / 2] * 1e3);
    pq_codec_ctx_free(&ctx);
    for (size_t i = 0; i < n; i++) free(pages[i].src);
    free(pages);
    free(out);
    free(t);
    return 0;
}
