/*
 * bench_snappy.c — pqstep-bench-snappy: pqstep's snappy decoder against
 * libsnappy on a file's own pages.
 *
 *   pqstep-bench-snappy FILE [--repeat R]
 *
 * Reads FILE to the page-header stage, then loads every SNAPPY-compressed
 * page of every column chunk (dictionary and data pages; V2 pages, whose
 * levels sit uncompressed before the compressed values, are left out) into memory. A first pass
 * decodes each page with both decoders and requires the same bytes. Then R
 * rounds (default 7), each timing one pass of pqstep's decoder
 * (pages/snappy.c) and one of libsnappy's snappy_uncompress over all the
 * pages, in turns, so that the machine's drift falls on both alike. The
 * report: the pages, the bytes in and out, and for each decoder the
 * minimum and median pass and its output rate. Only one thread.
 *
 * This is the figure behind README's "own snappy decoder" lines
 * (bench/README.md has the command).
 */
#include <snappy-c.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "pqstep-bench-snappy"
#include "bench_util.h"

#include "pages/snappy.h"
#include "pq_metadata.h"
#include "pq_pages.h"
#include "pq_reader.h"

#define DEFAULT_REPEAT 7
#define MAX_REPEAT 1000

typedef struct page {
    uint8_t *src;
    size_t src_len, out_len;
} page;

/* Every SNAPPY page of the file, each in a buffer of its own. */
static page *load_pages(const char *path, size_t *npages, size_t *in_bytes, size_t *out_bytes, size_t *max_out)
{
    pq_error err;
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    pq_reader *r = pq_reader_open_path(path, &opts, &err);
    if (!r || pq_reader_advance_to(r, PQ_STAGE_PAGE_HEADERS, &err) != PQ_OK) die("%s: %s", path, err.message);
    const pq_file_metadata *fm = pq_metadata_file(pq_reader_metadata(r));
    FILE *f = fopen(path, "rb");
    if (!f) die("%s: cannot open", path);
    size_t n = 0, cap = 0;
    page *pages = NULL;
    *in_bytes = *out_bytes = *max_out = 0;
    size_t nrg, ncol;
    const uint32_t *rgs = pq_reader_selected_row_groups(r, &nrg);
    const uint32_t *cols = pq_reader_selected_columns(r, &ncol);
    for (size_t g = 0; g < nrg; g++)
        for (size_t c = 0; c < ncol; c++) {
            if (fm->row_groups[rgs[g]].columns[cols[c]]->meta_data.codec != PQ_CODEC_SNAPPY) continue;
            const pq_chunk_pages *cp = pq_reader_chunk_pages(r, rgs[g], cols[c]);
            for (size_t p = 0; cp && p < cp->npages; p++) {
                const pq_page_info *pi = &cp->pages[p];
                /* V2 pages keep their levels uncompressed in front: left out */
                if (pi->type == PQ_PAGE_INDEX || pi->type == PQ_PAGE_DATA_V2 || pi->compressed_size <= 0) continue;
                if (n == cap) {
                    cap = cap ? cap * 2 : 1024;
                    pages = realloc(pages, cap * sizeof *pages);
                    if (!pages) die("out of memory");
                }
                page *pg = &pages[n++];
                pg->src_len = (size_t)pi->compressed_size;
                pg->out_len = pi->uncompressed_size > 0 ? (size_t)pi->uncompressed_size : 0;
                pg->src = malloc(pg->src_len);
                if (!pg->src || fseeko(f, (off_t)(cp->offset + pi->data_offset), SEEK_SET) != 0 ||
                    fread(pg->src, 1, pg->src_len, f) != pg->src_len)
                    die("%s: cannot read the page at byte %llu", path, (unsigned long long)(cp->offset + pi->data_offset));
                *in_bytes += pg->src_len;
                *out_bytes += pg->out_len;
                if (pg->out_len > *max_out) *max_out = pg->out_len;
            }
        }
    fclose(f);
    pq_reader_close(r);
    if (n == 0) die("%s: no SNAPPY pages", path);
    *npages = n;
    return pages;
}

static double pass(const page *pages, size_t n, uint8_t *out, bool ours)
{
    double t = now_s();
    for (size_t i = 0; i < n; i++) {
        if (ours) {
            pq_error err;
            if (pq_snappy_decompress(pages[i].src, pages[i].src_len, out, pages[i].out_len, &err) != PQ_OK)
                die("page %zu: %s", i, err.message);
        } else {
            size_t got = pages[i].out_len;
            if (snappy_uncompress((const char *)pages[i].src, pages[i].src_len, (char *)out, &got) != SNAPPY_OK ||
                got != pages[i].out_len)
                die("page %zu: libsnappy refuses it", i);
        }
    }
    return now_s() - t;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    unsigned long repeat = DEFAULT_REPEAT;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            if (!parse_uint(argv[++i], MAX_REPEAT, &repeat) || repeat == 0) die("--repeat: 1..%d", MAX_REPEAT);
        } else if (argv[i][0] == '-' || path) {
            die("usage: %s FILE [--repeat R]", BENCH_NAME);
        } else {
            path = argv[i];
        }
    }
    if (!path) die("usage: %s FILE [--repeat R]", BENCH_NAME);

    size_t n, in_bytes, out_bytes, max_out;
    page *pages = load_pages(path, &n, &in_bytes, &out_bytes, &max_out);
    uint8_t *a = malloc(max_out ? max_out : 1), *b = malloc(max_out ? max_out : 1);
    if (!a || !b) die("out of memory");
    for (size_t i = 0; i < n; i++) {
        pq_error err;
        size_t got = pages[i].out_len;
        if (pq_snappy_decompress(pages[i].src, pages[i].src_len, a, pages[i].out_len, &err) != PQ_OK)
            die("page %zu: %s", i, err.message);
        if (snappy_uncompress((const char *)pages[i].src, pages[i].src_len, (char *)b, &got) != SNAPPY_OK ||
            got != pages[i].out_len || memcmp(a, b, got) != 0)
            die("page %zu: pqstep and libsnappy disagree", i);
    }

    double *ours = malloc(repeat * sizeof *ours), *theirs = malloc(repeat * sizeof *theirs);
    if (!ours || !theirs) die("out of memory");
    for (unsigned long k = 0; k < repeat; k++) {
        ours[k] = pass(pages, n, a, true);
        theirs[k] = pass(pages, n, a, false);
    }
    qsort(ours, repeat, sizeof *ours, cmp_double);
    qsort(theirs, repeat, sizeof *theirs, cmp_double);
    printf("%zu SNAPPY pages, %.1f MB in, %.1f MB out, %lu rounds\n", n, in_bytes / 1e6, out_bytes / 1e6, repeat);
    const char *names[2] = {"pqstep", "libsnappy"};
    double *times[2] = {ours, theirs};
    for (int s = 0; s < 2; s++)
        printf("%-10s min %7.1f ms (%.2f GB/s)  median %7.1f ms (%.2f GB/s)\n", names[s], times[s][0] * 1e3,
               out_bytes / times[s][0] / 1e9, times[s][repeat / 2] * 1e3, out_bytes / times[s][repeat / 2] / 1e9);
    printf("libsnappy / pqstep at the minimum: %.2fx\n", theirs[0] / ours[0]);
    for (size_t i = 0; i < n; i++) free(pages[i].src);
    free(pages);
    free(a);
    free(b);
    free(ours);
    free(theirs);
    return 0;
}
