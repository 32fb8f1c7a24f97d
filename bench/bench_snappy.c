/*
 * bench_snappy.c — pqstep-bench-snappy: pqstep's snappy decoder against
 * libsnappy on a file's own pages.
 *
 *   pqstep-bench-snappy FILE [--repeat R]
 *
 * Reads FILE to the page-header stage, then loads every SNAPPY-compressed
 * page of every column chunk (dictionary and data pages; of a V2 page the
 * compressed values after its uncompressed levels) into memory. A first pass
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

#include "bench_pages.h"
#include "pages/snappy.h"
#include "pq_metadata.h"

/* Only SNAPPY chunks. */
static bool snappy_chunk(const pq_column_meta *m, const void *user)
{
    (void)user;
    return m->codec == PQ_CODEC_SNAPPY;
}

static double pass(const bench_page *pages, size_t n, uint8_t *out, bool ours)
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
    const char *path;
    unsigned long repeat;
    bench_parse_args(argc, argv, "usage: " BENCH_NAME " FILE [--repeat R]", &path, &repeat, NULL);
    bench_pages bp;
    bench_load_pages(path, snappy_chunk, NULL, &bp);
    size_t n = bp.n, in_bytes = bp.in_bytes, out_bytes = bp.out_bytes, max_out = bp.max_out;
    const bench_page *pages = bp.pages;
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
    bench_pages_free(&bp);
    free(a);
    free(b);
    free(ours);
    free(theirs);
    return 0;
}
