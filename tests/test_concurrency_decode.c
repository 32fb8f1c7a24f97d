/*
 * test_concurrency_decode.c — the decode stage's thread pool. Runs under
 * TSan in scripts/test.
 *
 * Oracle: the same reader run on one thread. Every exported array must have
 * the same buffers, byte for byte, for any thread count, and a file with
 * broken chunks must fail with the same error (the first broken unit in
 * order), however the threads interleave.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "device/choice.h" /* PQ_DEVICE_HOST_KERNELS */
#include "pages/page_header.h"
#include "pqstep.h"
#include "test_util.h"

static const char *FILES[] = {
    "data/alltypes_tiny_pages.parquet",   /* flat, many pages */
    "data/nested_structs.rust.parquet",   /* nested: one unit per field */
    "data/nested_lists.snappy.parquet",
    "data/delta_byte_array.parquet",
    "data/nulls.snappy.parquet",
};
#define NFILES (sizeof FILES / sizeof FILES[0])

/* FNV-1a over a byte run. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}


/* Hash of an array's logical content: validity bits, values, offsets and
 * children, for the rows [offset, offset + length). */
static uint64_t hash_array(const struct ArrowSchema *s, const struct ArrowArray *a, uint64_t h)
{
    int64_t off = a->offset, len = a->length;
    h = mix(h, &len, sizeof len);
    const uint8_t *valid = a->n_buffers > 0 ? a->buffers[0] : NULL;
    for (int64_t i = 0; i < len; i++) {
        uint8_t bit = valid ? (valid[(off + i) >> 3] >> ((off + i) & 7)) & 1 : 1;
        h = mix(h, &bit, 1);
    }
    const char *f = s->format;
    size_t w = pq_test_arrow_fixed_width(f);
    if (f[0] == 'b') {
        const uint8_t *bits = a->buffers[1];
        for (int64_t i = 0; i < len; i++) {
            uint8_t bit = (bits[(off + i) >> 3] >> ((off + i) & 7)) & 1;
            h = mix(h, &bit, 1);
        }
    } else if (w) {
        h = mix(h, (const uint8_t *)a->buffers[1] + (size_t)off * w, (size_t)len * w);
    } else if (f[0] == 'u' || f[0] == 'z') {
        const int32_t *o = a->buffers[1];
        const uint8_t *data = a->buffers[2];
        for (int64_t i = 0; i < len; i++) h = mix(h, data + o[off + i], (size_t)(o[off + i + 1] - o[off + i]));
    } else if (!strcmp(f, "+l") || !strcmp(f, "+m")) {
        const int32_t *o = a->buffers[1];
        for (int64_t i = 0; i <= len; i++) {
            int32_t rel = o[off + i] - o[off];
            h = mix(h, &rel, sizeof rel);
        }
        h = hash_array(s->children[0], a->children[0], h); /* the whole child: simple, still exact */
    } else if (!strcmp(f, "+s")) {
        for (int64_t k = 0; k < a->n_children; k++) h = hash_array(s->children[k], a->children[k], h);
    } else {
        ck_assert_msg(f[0] == 'n', "format %s not hashed", f);
    }
    return h;
}

/* Hash of every row group of `path` decoded on `threads` threads, through
 * `filter` when not NULL (predicate text), on `device` (device_output:
 * the arrays kept "on the device", host memory with host kernels). */
static uint64_t decode_hash_on(const char *path, uint32_t threads, const char *filter, uint32_t device,
                               bool device_output)
{
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.threads = threads;
    opts.device = device;
    opts.device_output = device_output;
    pq_expr *e = NULL;
    if (filter) {
        pq_error perr;
        e = pq_expr_parse(filter, &perr);
        ck_assert_msg(e, "%s", perr.message);
        opts.filter = e;
    }
    pq_error err;
    pq_reader *r = pq_reader_open_path(path, &opts, &err);
    pq_expr_free(e); /* the reader keeps a copy */
    ck_assert_msg(r, "%s", err.message);
    ck_assert_msg(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s: %s", path, err.message);
    uint64_t h = 1469598103934665603ull;
    for (;;) {
        struct ArrowArray a;
        struct ArrowSchema s;
        ck_assert_msg(pq_reader_next_batch(r, 0, &a, &s, &err) == PQ_OK, "%s", err.message);
        if (!a.release) break;
        h = hash_array(&s, &a, h);
        a.release(&a);
        s.release(&s);
    }
    pq_reader_close(r);
    return h;
}

static uint64_t decode_hash_filtered(const char *path, uint32_t threads, const char *filter)
{
    return decode_hash_on(path, threads, filter, PQ_DEVICE_CPU, false);
}

static uint64_t decode_hash(const char *path, uint32_t threads)
{
    return decode_hash_filtered(path, threads, NULL);
}

/* The filter's parallel parts: late materialization per row group, and the
 * rows kept per row group in the decode stage. */
START_TEST(filtered_reads_are_the_same_on_any_thread_count)
{
    char *path = pq_test_corpus_path("data/alltypes_tiny_pages.parquet");
    static const char *filters[] = {"id < 1000 or id >= 7000", "bool_col = true and int_col in (1, 5)",
                                    "string_col is not null and id >= 3999 and id < 4001"};
    for (size_t k = 0; k < sizeof filters / sizeof filters[0]; k++) {
        uint64_t one = decode_hash_filtered(path, 1, filters[k]);
        for (uint32_t t = 2; t <= 8; t *= 2)
            ck_assert_msg(decode_hash_filtered(path, t, filters[k]) == one, "'%s': threads=%u differs", filters[k],
                          t);
    }
    free(path);
}
END_TEST

START_TEST(any_thread_count_gives_the_same_arrays)
{
    for (size_t f = 0; f < NFILES; f++) {
        char *path = pq_test_corpus_path(FILES[f]);
        uint64_t one = decode_hash(path, 1);
        for (uint32_t t = 0; t <= 8; t += 2)  /* 0: one per core */
            ck_assert_msg(decode_hash(path, t) == one, "%s: threads=%u differs from 1", FILES[f], t);
        free(path);
    }
}
END_TEST

/* The device executor on host kernels: flat plans, and nested units in
 * parallel (a plan and, with device_output, an Arrow build context each),
 * give the CPU read's arrays on any thread count. */
START_TEST(host_kernels_give_the_same_arrays)
{
    for (size_t f = 0; f < NFILES; f++) {
        char *path = pq_test_corpus_path(FILES[f]);
        uint64_t one = decode_hash(path, 1);
        for (uint32_t t = 1; t <= 4; t *= 4)
            for (int out = 0; out < 2; out++)
                ck_assert_msg(decode_hash_on(path, t, NULL, PQ_DEVICE_HOST_KERNELS, out) == one,
                              "%s: host kernels, threads=%u, device_output %d differ from the CPU", FILES[f], t, out);
        free(path);
    }
    char *path = pq_test_corpus_path("data/list_columns.parquet");
    ck_assert(decode_hash_on(path, 4, NULL, PQ_DEVICE_HOST_KERNELS, true) == decode_hash(path, 1));
    free(path);
}
END_TEST

/* The error of a decode over `img` (a file in memory) on `threads` threads. */
static pq_status decode_error(const uint8_t *img, size_t len, uint32_t threads, pq_error *err)
{
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.threads = threads;
    pq_reader *r = pq_reader_open_memory(img, len, &opts, err);
    ck_assert_msg(r, "%s", err->message);
    pq_status st = pq_reader_advance_to(r, PQ_STAGE_DECODE, err);
    pq_reader_close(r);
    return st;
}

START_TEST(the_first_broken_chunk_is_reported_whatever_the_threads)
{
    char *path = pq_test_corpus_path("data/alltypes_tiny_pages.parquet");
    size_t len;
    uint8_t *img = pq_test_read_file(path, &len);
    ck_assert_ptr_nonnull(img);
    pq_error err;
    pq_metadata *md = pq_metadata_parse_tail(img, len, NULL, NULL, &err);
    ck_assert_msg(md, "%s", err.message);
    const pq_file_metadata *fm = pq_metadata_file(md);
    /* Break the value bytes of the first data page of the last columns:
     * page headers still walk, decoding fails. Later columns are broken too,
     * so a racing thread may well fail on one of them first. */
    uint32_t ncols = fm->row_groups[0].columns_len;
    for (uint32_t c = ncols - 4; c < ncols; c++) {
        const pq_column_meta *m = &fm->row_groups[0].columns[c]->meta_data;
        uint64_t at = (uint64_t)m->data_page_offset;
        /* skip the page header: find the page's data by decoding it */
        pq_page_header ph;
        size_t hlen = 0;
        ck_assert_int_eq(pq_page_header_decode(img + at, len - at, &ph, &hlen, &err), PQ_OK);
        for (uint64_t k = at + hlen; k < at + hlen + (uint64_t)ph.compressed_page_size; k++) img[k] = 0xff;
    }
    pq_metadata_release(md);

    pq_error first;
    pq_status st1 = decode_error(img, len, 1, &first);
    ck_assert_int_ne(st1, PQ_OK);
    for (int round = 0; round < 20; round++) {
        for (uint32_t t = 2; t <= 8; t *= 2) {
            pq_status st = decode_error(img, len, t, &err);
            ck_assert_int_eq(st, st1);
            ck_assert_str_eq(err.message, first.message);
        }
    }
    free(img);
    free(path);
}
END_TEST

int main(void)
{
    if (!pq_test_corpus_dir()) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    Suite *s = suite_create("concurrency: decode");
    TCase *tc = tcase_create("thread pool");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, any_thread_count_gives_the_same_arrays);
    tcase_add_test(tc, host_kernels_give_the_same_arrays);
    tcase_add_test(tc, filtered_reads_are_the_same_on_any_thread_count);
    tcase_add_test(tc, the_first_broken_chunk_is_reported_whatever_the_threads);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
