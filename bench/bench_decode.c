/*
 * bench_decode.c — pqstep-bench-decode: how fast does pqstep decode a file?
 *
 *   pqstep-bench-decode FILE [--threads N] [--repeat R] [--columns I,J,..]
 *                       [--strings string|view] [--pool-mib M] [--json]
 *
 * One timed read is a whole read from scratch: open the file, advance to the
 * decode stage (footer, select, page headers, decode), export every row group
 * as an Arrow record batch, release the batches, close. A first, untimed read
 * warms the page cache and checks that the batches hold the rows the footer
 * promises. Then R timed reads (default 5), each its own measurement; the
 * report gives the minimum and the median, the rows, the uncompressed bytes
 * (sum of total_uncompressed_size over the column chunks) and the throughput
 * at the minimum and at the median.
 *
 * --threads N sets pq_reader_options.threads (0: the library default, one
 * per core). --columns reads only those leaf columns (indexes), to see what
 * each column costs. --strings view reads strings as Arrow string_view
 * (as bench/tpch.py's pqstep runs do; default string). --pool-mib M sets
 * the buffer pool's limit (pq_buffer_pool_set_limit; default the library's).
 * Progress and errors go to stderr; stdout gets a short report,
 * or with --json one JSON object (bench/decode.py reads that).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_NAME "pqstep-bench-decode"
#include "bench_util.h"

#include "pq_arrow.h"
#include "pq_metadata.h"
#include "pq_reader.h"

#define DEFAULT_REPEAT 5
#define MAX_REPEAT 1000
#define MAX_COLUMNS 4096

typedef struct bench_args {
    const char *path;
    uint32_t threads;
    uint32_t columns[MAX_COLUMNS];
    size_t columns_len; /* 0: all */
    bool views;         /* --strings view */
} bench_args;

typedef struct read_result {
    uint64_t rows;          /* rows in the exported batches */
    uint64_t row_groups;
    uint64_t columns;       /* children of the first batch */
    uint64_t uncompressed;  /* sum of the chunks' total_uncompressed_size */
    uint64_t compressed;    /* sum of the chunks' total_compressed_size */
    int64_t footer_rows;    /* FileMetaData.num_rows */
} read_result;

/* Byte sizes of the selected chunks, as the footer records them. */
static void chunk_sizes(pq_reader *r, read_result *res)
{
    const pq_file_metadata *fmd = pq_metadata_file(pq_reader_metadata(r));
    size_t ngroups = 0, ncols = 0;
    const uint32_t *groups = pq_reader_selected_row_groups(r, &ngroups);
    const uint32_t *cols = pq_reader_selected_columns(r, &ncols);
    res->footer_rows = fmd->num_rows;
    for (size_t g = 0; g < ngroups; g++) {
        const pq_row_group *rg = &fmd->row_groups[groups[g]];
        for (size_t c = 0; c < ncols; c++) {
            if (cols[c] >= rg->columns_len) continue;
            const pq_column_meta *m = &rg->columns[cols[c]]->meta_data;
            res->uncompressed += (uint64_t)m->total_uncompressed_size;
            res->compressed += (uint64_t)m->total_compressed_size;
        }
    }
}

/* One whole read: open -> decoded batches released -> close. With `res`
 * (the untimed first read) it also records what was read. */
static void read_once(const bench_args *a, read_result *res)
{
    const char *path = a->path;
    pq_error err;
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.threads = a->threads;
    if (a->views) opts.string_type = PQ_STRINGS_VIEW;
    if (a->columns_len) {
        opts.columns = a->columns;
        opts.columns_len = a->columns_len;
    }

    pq_reader *r = pq_reader_open_path(path, &opts, &err);
    if (!r) die("%s: %s", path, err.message);
    if (pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) != PQ_OK)
        die("%s: advancing to the decode stage: %s", path, err.message);

    size_t ngroups = 0;
    const uint32_t *groups = pq_reader_selected_row_groups(r, &ngroups);
    for (size_t g = 0; g < ngroups; g++) {
        struct ArrowArray array;
        struct ArrowSchema schema;
        if (pq_reader_export_row_group(r, groups[g], &array, &schema, &err) != PQ_OK)
            die("%s: exporting row group %u: %s", path, groups[g], err.message);
        if (res) {
            res->rows += (uint64_t)array.length;
            if (g == 0) res->columns = (uint64_t)array.n_children;
        }
        array.release(&array);
        schema.release(&schema);
    }
    if (res) {
        res->row_groups = ngroups;
        chunk_sizes(r, res);
    }
    pq_reader_close(r);
}

static void usage(FILE *f)
{
    fputs("usage: pqstep-bench-decode FILE [--threads N] [--repeat R] [--columns I,J,..]\n"
          "                           [--strings string|view] [--pool-mib M] [--json]\n"
          "  Times whole reads of FILE (open, decode every row group into Arrow\n"
          "  batches, release them): min and median of R reads (default 5).\n"
          "  --threads N  decode threads (0: one per core; default 1)\n"
          "  --columns L  read only these leaf columns (comma-separated indexes)\n"
          "  --strings T  string (default) or view: Arrow string_view\n"
          "  --pool-mib M the buffer pool's limit in MiB (default: the library's)\n"
          "  --json       one JSON object on stdout instead of the report\n",
          f);
}

/* Characters that need escaping in a JSON string are rare in paths; escape
 * quotes, backslashes and control bytes anyway. */
static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

/* "3,0,7" into a->columns. */
static bool parse_columns(const char *s, bench_args *a)
{
    char buf[64];
    a->columns_len = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        unsigned long v;
        if (n == 0 || n >= sizeof buf || a->columns_len == MAX_COLUMNS) return false;
        memcpy(buf, s, n);
        buf[n] = 0;
        if (!parse_uint(buf, UINT32_MAX, &v)) return false;
        a->columns[a->columns_len++] = (uint32_t)v;
        s += n;
        if (*s == ',') s++;
    }
    return a->columns_len > 0;
}

int main(int argc, char **argv)
{
    static bench_args args;
    const char *path = NULL;
    unsigned long threads = 1, repeat = DEFAULT_REPEAT;
    bool json = false;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!parse_uint(argv[++i], 1024, &threads)) die("bad --threads '%s'", argv[i]);
        } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            if (!parse_uint(argv[++i], MAX_REPEAT, &repeat) || repeat == 0)
                die("bad --repeat '%s' (1..%d)", argv[i], MAX_REPEAT);
        } else if (strcmp(argv[i], "--columns") == 0 && i + 1 < argc) {
            if (!parse_columns(argv[++i], &args)) die("bad --columns '%s'", argv[i]);
        } else if (strcmp(argv[i], "--strings") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "view") == 0) args.views = true;
            else if (strcmp(argv[i], "string") != 0) die("bad --strings '%s' (string or view)", argv[i]);
        } else if (strcmp(argv[i], "--pool-mib") == 0 && i + 1 < argc) {
            unsigned long mib;
            if (!parse_uint(argv[++i], 1ul << 24, &mib)) die("bad --pool-mib '%s'", argv[i]);
            pq_buffer_pool_set_limit((uint64_t)mib << 20);
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            fprintf(stderr, "pqstep-bench-decode: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    args.path = path;
    args.threads = (uint32_t)threads;

    /* Untimed first read: warms the page cache and the allocator, and checks
     * that every row the footer declares came out. */
    read_result res;
    memset(&res, 0, sizeof res);
    read_once(&args, &res);
    if (res.footer_rows < 0 || res.rows != (uint64_t)res.footer_rows)
        die("%s: the batches hold %llu rows, the footer says %lld", path,
            (unsigned long long)res.rows, (long long)res.footer_rows);

    double *t = malloc(repeat * sizeof *t);
    if (!t) die("out of memory");
    for (unsigned long k = 0; k < repeat; k++) {
        double t0 = now_s();
        read_once(&args, NULL);
        t[k] = now_s() - t0;
    }
    qsort(t, repeat, sizeof *t, cmp_double);
    double tmin = t[0];
    double tmed = (repeat % 2) ? t[repeat / 2] : (t[repeat / 2 - 1] + t[repeat / 2]) / 2;
    double mb = (double)res.uncompressed / 1e6;

    if (json) {
        printf("{\"file\": ");
        json_string(path);
        printf(", \"threads\": %lu, \"repeat\": %lu, \"rows\": %llu, \"row_groups\": %llu, "
               "\"columns\": %llu, \"uncompressed_bytes\": %llu, \"compressed_bytes\": %llu, "
               "\"min_s\": %.6f, \"median_s\": %.6f, \"mb_per_s\": %.2f, "
               "\"median_mb_per_s\": %.2f, \"rows_per_s\": %.0f, \"median_rows_per_s\": %.0f, "
               "\"times_s\": [",
               threads, repeat, (unsigned long long)res.rows, (unsigned long long)res.row_groups,
               (unsigned long long)res.columns, (unsigned long long)res.uncompressed,
               (unsigned long long)res.compressed, tmin, tmed, mb / tmin, mb / tmed,
               (double)res.rows / tmin, (double)res.rows / tmed);
        for (unsigned long k = 0; k < repeat; k++) printf("%s%.6f", k ? ", " : "", t[k]);
        printf("]}\n");
    } else {
        printf("%s: %llu rows, %llu row groups, %llu columns, %.1f MB uncompressed "
               "(%.1f MB in the file's chunks), threads %lu\n",
               path, (unsigned long long)res.rows, (unsigned long long)res.row_groups,
               (unsigned long long)res.columns, mb, (double)res.compressed / 1e6, threads);
        printf("  %lu reads: min %.4f s (%.1f MB/s, %.2f M rows/s), "
               "median %.4f s (%.1f MB/s, %.2f M rows/s)\n",
               repeat, tmin, mb / tmin, (double)res.rows / tmin / 1e6, tmed, mb / tmed,
               (double)res.rows / tmed / 1e6);
    }
    free(t);
    return 0;
}
