/*
 * dump_column.c — test driver: decode one column chunk with
 * pq_column_decode and print its levels and values as JSON.
 *
 *   pqstep_dump_column FILE ROW_GROUP LEAF_INDEX [MEMORY_LIMIT]
 *
 * Prints {"n_levels":N,"def":[..]|null,"rep":[..]|null,"values":[..]}.
 * Values are exact: integers as integers, FLOAT/DOUBLE with %.17g ("nan",
 * "inf", "-inf" as strings), BOOLEAN as true/false, BYTE_ARRAY, FLBA and
 * INT96 as lowercase hex strings of the stored bytes. On error: one line on
 * stderr, exit 1.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in context.h */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages/cpu_exec.h"
#include "pq_reader.h"
#include "reader/context.h"

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-') return 0;
    *out = v;
    return 1;
}

static void print_levels(const char *name, const int16_t *lv, size_t n)
{
    printf(",\"%s\":", name);
    if (!lv) {
        fputs("null", stdout);
        return;
    }
    putchar('[');
    for (size_t i = 0; i < n; i++) printf(i ? ",%d" : "%d", lv[i]);
    putchar(']');
}

static void print_hex(const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        putchar(digits[p[i] >> 4]);
        putchar(digits[p[i] & 15]);
    }
    putchar('"');
}

static void print_double(double d)
{
    if (isnan(d))
        fputs("\"nan\"", stdout);
    else if (isinf(d))
        fputs(d > 0 ? "\"inf\"" : "\"-inf\"", stdout);
    else
        printf("%.17g", d);
}

static void print_values(const pq_column_values *v)
{
    fputs(",\"values\":[", stdout);
    for (size_t i = 0; i < v->n_values; i++) {
        if (i) putchar(',');
        const uint8_t *p = v->values ? v->values + i * v->width : NULL;
        switch (v->physical_type) {
        case PQ_BOOLEAN:
            fputs(p[0] ? "true" : "false", stdout);
            break;
        case PQ_INT32: {
            int32_t x;
            memcpy(&x, p, 4);
            printf("%" PRId32, x);
            break;
        }
        case PQ_INT64: {
            int64_t x;
            memcpy(&x, p, 8);
            printf("%" PRId64, x);
            break;
        }
        case PQ_FLOAT: {
            float x;
            memcpy(&x, p, 4);
            print_double((double)x);
            break;
        }
        case PQ_DOUBLE: {
            double x;
            memcpy(&x, p, 8);
            print_double(x);
            break;
        }
        case PQ_BYTE_ARRAY:
            print_hex(v->data ? v->data + v->offsets[i] : (const uint8_t *)"",
                      (size_t)(v->offsets[i + 1] - v->offsets[i]));
            break;
        default: /* INT96, FLBA */
            print_hex(p, v->width);
            break;
        }
    }
    putchar(']');
}

int main(int argc, char **argv)
{
    uint64_t rg64, leaf64, limit = 0;
    if ((argc != 4 && argc != 5) || !parse_u64(argv[2], &rg64) || !parse_u64(argv[3], &leaf64) ||
        rg64 > UINT32_MAX || leaf64 > UINT32_MAX || (argc == 5 && !parse_u64(argv[4], &limit))) {
        fprintf(stderr, "usage: %s FILE ROW_GROUP LEAF_INDEX [MEMORY_LIMIT]\n", argv[0]);
        return 2;
    }
    uint32_t rg = (uint32_t)rg64, leaf_index = (uint32_t)leaf64;

    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.row_groups = &rg;
    opts.row_groups_len = 1;
    opts.columns = &leaf_index;
    opts.columns_len = 1;
    opts.memory_limit = limit;

    pq_error err = {0};
    pq_reader *r = pq_reader_open_path(argv[1], &opts, &err);
    if (!r || pq_reader_advance_to(r, PQ_STAGE_PAGE_HEADERS, &err) != PQ_OK) {
        fprintf(stderr, "error: %s: %s\n", pq_status_name(err.code), err.message);
        pq_reader_close(r);
        return 1;
    }
    const pq_metadata *md = pq_reader_metadata(r);
    const pq_schema *schema = pq_metadata_schema(md);
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_chunk_pages *cp = pq_reader_chunk_pages(r, rg, leaf_index);
    if (!cp || r->pages.chunks_len != 1 || leaf_index >= schema->leaves_len) {
        fprintf(stderr, "error: chunk (%u, %u) not found\n", rg, leaf_index);
        pq_reader_close(r);
        return 1;
    }
    const pq_leaf *leaf = &schema->leaves[leaf_index];
    int32_t codec = fm->row_groups[rg].columns[leaf_index]->meta_data.codec;

    pq_column_values v;
    if (pq_column_decode(leaf, codec, r->pages.chunks[0].data, (size_t)cp->length, cp->pages, cp->npages, limit, &v,
                         &err) != PQ_OK) {
        fprintf(stderr, "error: %s: %s\n", pq_status_name(err.code), err.message);
        pq_reader_close(r);
        return 1;
    }
    /* Levels as written: store them where the decoder left them out. */
    if (pq_column_values_definition_levels(&v, leaf->max_def) != PQ_OK) {
        fprintf(stderr, "error: out of memory\n");
        pq_column_values_free(&v);
        pq_reader_close(r);
        return 1;
    }
    printf("{\"n_levels\":%zu", v.n_levels);
    print_levels("def", v.def_levels, v.n_levels);
    print_levels("rep", v.rep_levels, v.n_levels);
    print_values(&v);
    puts("}");
    pq_column_values_free(&v);
    pq_reader_close(r);
    return fflush(stdout) == 0 ? 0 : 1;
}
