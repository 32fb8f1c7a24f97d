/*
 * bench_pages.h — what the codec benchmarks share: a file's compressed
 * pages loaded into memory, and their command line (FILE, --repeat R,
 * and for some --columns PATH,...).
 */
#ifndef PQ_BENCH_PAGES_H
#define PQ_BENCH_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_metadata.h"

#define BENCH_DEFAULT_REPEAT 7
#define BENCH_MAX_REPEAT 1000

/* One page's compressed section (a V2 page's after its levels, which it
 * stores uncompressed) in a buffer of its own. */
typedef struct bench_page {
    int32_t codec;
    uint8_t *src;
    size_t src_len, out_len;
} bench_page;

typedef struct bench_pages {
    bench_page *pages;
    size_t n;
    size_t in_bytes, out_bytes, max_out;
} bench_pages;

/* Every compressed dictionary and data page of the column chunks whose
 * metadata `want` accepts (NULL: every chunk with a codec), in file
 * order. Exits with a message naming `name` when the file cannot be
 * read or no page is left. */
void bench_load_pages(const char *name, const char *path, bool (*want)(const pq_column_meta *m, const void *user),
                      const void *user, bench_pages *out);
void bench_pages_free(bench_pages *p);

/* Whether the chunk's dotted leaf path is one of `columns`
 * (comma-separated; NULL: every column). */
bool bench_column_listed(const pq_column_meta *m, const void *columns);

/* argv: FILE, --repeat R (1..BENCH_MAX_REPEAT, default
 * BENCH_DEFAULT_REPEAT) and, where `columns` is not NULL, --columns LIST.
 * Exits with `usage` on anything else. */
void bench_parse_args(int argc, char **argv, const char *usage, const char **path, unsigned long *repeat,
                      const char **columns);

#endif
