/*
 * bench_pages.h — what the codec benchmarks share: a file's compressed
 * pages loaded into memory, and their command line (FILE, --repeat R,
 * and for some --columns PATH,...). Include it after bench_util.h (its
 * die and parse_uint, under the program's BENCH_NAME).
 */
#ifndef PQ_BENCH_PAGES_H
#define PQ_BENCH_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_metadata.h"
#include "pq_pages.h"
#include "pq_reader.h"

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

/* bench_column_listed: whether the chunk's dotted leaf path is one of
 * `columns` (comma-separated; NULL: every column).
 * bench_load_pages: every compressed dictionary and data page of the
 * column chunks whose metadata `want` accepts (NULL: every chunk with a
 * codec), in file order; dies when the file cannot be read or no page is
 * left. bench_parse_args: argv's FILE, --repeat R (1..BENCH_MAX_REPEAT,
 * default BENCH_DEFAULT_REPEAT) and, where `columns` is not NULL,
 * --columns LIST; dies with `usage` on anything else. */
static __attribute__((unused)) bool bench_column_listed(const pq_column_meta *m, const void *user)
{
    const char *columns = user;
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

static void bench_load_pages(const char *path, bool (*want)(const pq_column_meta *m, const void *user),
                             const void *user, bench_pages *out)
{
    pq_error err;
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    pq_reader *r = pq_reader_open_path(path, &opts, &err);
    if (!r || pq_reader_advance_to(r, PQ_STAGE_PAGE_HEADERS, &err) != PQ_OK) die("%s: %s", path, err.message);
    const pq_file_metadata *fm = pq_metadata_file(pq_reader_metadata(r));
    FILE *f = fopen(path, "rb");
    if (!f) die("%s: cannot open", path);
    memset(out, 0, sizeof *out);
    size_t cap = 0, nrg, ncol;
    const uint32_t *rgs = pq_reader_selected_row_groups(r, &nrg);
    const uint32_t *cols = pq_reader_selected_columns(r, &ncol);
    for (size_t g = 0; g < nrg; g++)
        for (size_t c = 0; c < ncol; c++) {
            const pq_column_meta *m = &fm->row_groups[rgs[g]].columns[cols[c]]->meta_data;
            if (m->codec == PQ_CODEC_UNCOMPRESSED || (want && !want(m, user))) continue;
            const pq_chunk_pages *cp = pq_reader_chunk_pages(r, rgs[g], cols[c]);
            for (size_t p = 0; cp && p < cp->npages; p++) {
                const pq_page_info *pi = &cp->pages[p];
                if (pi->type == PQ_PAGE_INDEX || !pi->is_compressed || pi->compressed_size <= 0) continue;
                size_t levels = 0;
                if (pi->type == PQ_PAGE_DATA_V2) /* levels stored uncompressed in front */
                    levels = (size_t)pi->def_levels_byte_length + (size_t)pi->rep_levels_byte_length;
                if (levels > (size_t)pi->compressed_size || levels > (size_t)pi->uncompressed_size)
                    die("%s: a page's levels exceed the page", path);
                if (out->n == cap) {
                    cap = cap ? cap * 2 : 1024;
                    out->pages = realloc(out->pages, cap * sizeof *out->pages);
                    if (!out->pages) die("out of memory");
                }
                bench_page *pg = &out->pages[out->n++];
                pg->codec = m->codec;
                pg->src_len = (size_t)pi->compressed_size - levels;
                pg->out_len = (size_t)pi->uncompressed_size - levels;
                pg->src = malloc(pg->src_len ? pg->src_len : 1);
                if (!pg->src || fseeko(f, (off_t)(cp->offset + pi->data_offset + levels), SEEK_SET) != 0 ||
                    fread(pg->src, 1, pg->src_len, f) != pg->src_len)
                    die("%s: cannot read the page at byte %llu", path,
                          (unsigned long long)(cp->offset + pi->data_offset));
                out->in_bytes += pg->src_len;
                out->out_bytes += pg->out_len;
                if (pg->out_len > out->max_out) out->max_out = pg->out_len;
            }
        }
    fclose(f);
    pq_reader_close(r);
    if (out->n == 0) die("%s: no compressed pages to time", path);
}

static void bench_pages_free(bench_pages *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->pages[i].src);
    free(p->pages);
    memset(p, 0, sizeof *p);
}

static void bench_parse_args(int argc, char **argv, const char *usage, const char **path, unsigned long *repeat,
                             const char **columns)
{
    *path = NULL;
    *repeat = BENCH_DEFAULT_REPEAT;
    if (columns) *columns = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            if (!parse_uint(argv[++i], BENCH_MAX_REPEAT, repeat) || *repeat == 0)
                die("--repeat: 1..%d", BENCH_MAX_REPEAT);
        } else if (columns && strcmp(argv[i], "--columns") == 0 && i + 1 < argc) {
            *columns = argv[++i];
        } else if (argv[i][0] == '-' || *path) {
            die("%s", usage);
        } else {
            *path = argv[i];
        }
    }
    if (!*path) die("%s", usage);
}

#endif
