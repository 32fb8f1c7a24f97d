/*
 * test_stream.c — pq_reader_export_stream() through the C API, run under
 * ASan by scripts/test so that every release path (the stream's own
 * reader, batches outliving the stream, a stream dropped half-read) is
 * checked for leaks and use after free.
 *
 * Oracle: the bundled sample data/sample/lineitem_61rg.parquet, whose
 * counts gen_sample.py wrote (122000 rows, 61 row groups of 2000), and the
 * same reader's pq_reader_export_row_group() for the values: the stream's
 * batches must hold the same l_orderkey values in the same order.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"
#include "reader/context.h" /* pq_stream_set_window_bytes: many windows from a small file */
#include "reader/source.h"  /* pq_file_source_set_drop_min: pages dropped in a small file */
#include "test_util.h"

static pq_reader *open_sample(const char *filter, uint64_t row_offset, uint64_t row_limit)
{
    char *path = pq_test_sample_path();
    pq_reader_options o;
    pq_reader_options_init(&o);
    /* l_orderkey and l_quantity (the columns are the footer's projection
     * too: a filter column must be among them) */
    static uint32_t cols[2] = {0, 4};
    o.columns = cols;
    o.columns_len = 2;
    o.row_offset = row_offset;
    o.row_limit = row_limit;
    pq_error err;
    pq_expr *e = NULL;
    if (filter) {
        e = pq_expr_parse(filter, &err);
        ck_assert_msg(e, "%s", err.message);
        o.filter = e;
    }
    pq_reader *r = pq_reader_open_path(path, &o, &err);
    pq_expr_free(e); /* the reader keeps its own copy */
    free(path);
    ck_assert_msg(r, "%s", err.message);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err), PQ_OK);
    return r;
}

/* Every l_orderkey value the plain read gives, with the same choice. */
static int64_t *expected(const char *filter, uint64_t row_offset, uint64_t row_limit, size_t *n)
{
    pq_reader *r = open_sample(filter, row_offset, row_limit);
    pq_error err;
    pq_status st = pq_reader_advance_to(r, PQ_STAGE_DECODE, &err);
    ck_assert_msg(st == PQ_OK, "%s", err.message);
    int64_t *v = malloc(122000 * sizeof *v);
    *n = 0;
    struct ArrowArray a;
    for (;;) {
        ck_assert_int_eq(pq_reader_next_batch(r, 0, &a, NULL, &err), PQ_OK);
        if (!a.release) break;
        const struct ArrowArray *c = a.children[0];
        memcpy(v + *n, (const int64_t *)c->buffers[1] + c->offset, (size_t)c->length * sizeof *v);
        *n += (size_t)c->length;
        a.release(&a);
    }
    pq_reader_close(r);
    return v;
}

static void check_stream(const char *filter, uint64_t row_offset, uint64_t row_limit, uint64_t batch_rows)
{
    size_t want_n;
    int64_t *want = expected(filter, row_offset, row_limit, &want_n);
    pq_reader *r = open_sample(filter, row_offset, row_limit);
    struct ArrowArrayStream s;
    pq_error err;
    ck_assert_int_eq(pq_reader_export_stream(r, batch_rows, &s, &err), PQ_OK);
    pq_reader_close(r); /* the stream has its own reader */
    struct ArrowSchema schema;
    ck_assert_int_eq(s.get_schema(&s, &schema), 0);
    ck_assert_int_eq(schema.n_children, 2);
    ck_assert_str_eq(schema.children[0]->name, "l_orderkey");
    ck_assert_str_eq(schema.children[0]->format, "l");
    schema.release(&schema);
    size_t got = 0;
    struct ArrowArray kept = {0}; /* one batch kept past the stream's release */
    struct ArrowArray a;
    for (;;) {
        ck_assert_int_eq(s.get_next(&s, &a), 0);
        if (!a.release) break;
        ck_assert_int_gt(a.length, 0);
        if (batch_rows) ck_assert_int_le(a.length, (int64_t)batch_rows);
        const struct ArrowArray *c = a.children[0];
        ck_assert_uint_le(got + (size_t)c->length, want_n);
        ck_assert_int_eq(memcmp((const int64_t *)c->buffers[1] + c->offset, want + got,
                                (size_t)c->length * sizeof *want),
                         0);
        got += (size_t)c->length;
        if (!kept.release) kept = a;
        else a.release(&a);
    }
    ck_assert_uint_eq(got, want_n);
    ck_assert_int_eq(s.get_next(&s, &a), 0); /* the end stays the end */
    ck_assert_ptr_null(a.release);
    s.release(&s);
    ck_assert_ptr_null(s.release);
    if (kept.release) {
        ck_assert_int_eq(((const int64_t *)kept.children[0]->buffers[1])[kept.children[0]->offset], want[0]);
        kept.release(&kept);
    }
    free(want);
}

START_TEST(stream_equals_the_plain_read)
{
    check_stream(NULL, 0, 0, 0);
    check_stream(NULL, 0, 0, 777);
    check_stream(NULL, 1500, 5000, 700); /* a row range over row groups */
    check_stream("l_quantity < 5", 0, 0, 0);
    check_stream("l_orderkey < 0", 0, 0, 0); /* nothing matches: no batch */
}
END_TEST

START_TEST(stream_dropped_half_read)
{
    pq_reader *r = open_sample(NULL, 0, 0);
    struct ArrowArrayStream s;
    pq_error err;
    ck_assert_int_eq(pq_reader_export_stream(r, 100, &s, &err), PQ_OK);
    struct ArrowArray a;
    ck_assert_int_eq(s.get_next(&s, &a), 0);
    ck_assert_ptr_nonnull(a.release);
    s.release(&s); /* the batch stays valid */
    ck_assert_int_eq(a.length, 100);
    a.release(&a);
    pq_reader_close(r);
}
END_TEST

START_TEST(stream_errors)
{
    pq_error err;
    struct ArrowArrayStream s;
    ck_assert_int_eq(pq_reader_export_stream(NULL, 0, &s, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(s.release);
    /* Before the footer stage; and a sans-IO reader, which has no source. */
    char *path = pq_test_sample_path();
    pq_reader *r = pq_reader_open_path(path, NULL, &err);
    ck_assert_int_eq(pq_reader_export_stream(r, 0, &s, &err), PQ_ERR_STAGE);
    pq_reader_close(r);
    size_t len;
    uint8_t *data = pq_test_read_file(path, &len);
    free(path);
    r = pq_reader_open_sans_io(len, NULL, &err);
    ck_assert_ptr_nonnull(r);
    for (int round = 0; round < 4 && pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err) == PQ_ERR_NEED_DATA; round++) {
        pq_range ranges[4];
        size_t n = pq_reader_needed_ranges(r, ranges, 4);
        for (size_t i = 0; i < n && i < 4; i++)
            ck_assert_int_eq(pq_reader_supply(r, ranges[i].offset, data + ranges[i].offset, ranges[i].length, &err),
                             PQ_OK);
    }
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_FOOTER);
    ck_assert_int_eq(pq_reader_export_stream(r, 0, &s, &err), PQ_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err.message, "sans-IO"));
    pq_reader_close(r);
    free(data);
}
END_TEST

/* Windows of one row group each (the window's bytes made tiny): every
 * window after the first is decoded ahead on the stream's thread while the
 * consumer takes the one before (TSan runs this suite too). The values are
 * the plain read's, whole, in batches, over a row range and filtered. */
START_TEST(stream_decoded_ahead)
{
    pq_stream_set_window_bytes(1);
    check_stream(NULL, 0, 0, 0);
    check_stream(NULL, 0, 0, 777);
    check_stream(NULL, 1500, 5000, 700);
    check_stream("l_quantity < 5", 0, 0, 0);
    check_stream("l_orderkey < 0", 0, 0, 0);
    /* dropped while the next window is being decoded ahead, or after */
    for (int taken = 1; taken <= 3; taken++) {
        pq_reader *r = open_sample(NULL, 0, 0);
        struct ArrowArrayStream s;
        pq_error err;
        ck_assert_int_eq(pq_reader_export_stream(r, 0, &s, &err), PQ_OK);
        pq_reader_close(r);
        struct ArrowArray a;
        for (int i = 0; i < taken; i++) {
            ck_assert_int_eq(s.get_next(&s, &a), 0);
            ck_assert_int_eq(a.length, 2000);
            a.release(&a);
        }
        s.release(&s);
    }
    pq_stream_set_window_bytes(0);
}
END_TEST

/* A later row group's pages garbled: the windows before it arrive whole,
 * then get_next fails with the decode's error (decoded ahead, reported when
 * reached), and keeps failing. */
START_TEST(stream_error_in_a_later_window)
{
    pq_stream_set_window_bytes(1);
    char *path = pq_test_sample_path();
    size_t len;
    uint8_t *data = pq_test_read_file(path, &len);
    free(path);
    pq_reader_options o;
    pq_reader_options_init(&o);
    static uint32_t cols[1] = {0};
    o.columns = cols;
    o.columns_len = 1;
    pq_error err;
    pq_reader *r = pq_reader_open_memory(data, len, &o, &err);
    ck_assert_msg(r, "%s", err.message);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err), PQ_OK);
    const pq_file_metadata *fm = pq_metadata_file(pq_reader_metadata(r));
    int64_t at = fm->row_groups[5].columns[0]->meta_data.data_page_offset;
    ck_assert(at > 0 && (size_t)at + 16 < len);
    memset(data + at, 0xFF, 16); /* row group 5's first page header */
    struct ArrowArrayStream s;
    ck_assert_int_eq(pq_reader_export_stream(r, 0, &s, &err), PQ_OK);
    struct ArrowArray a;
    for (int g = 0; g < 5; g++) {
        ck_assert_int_eq(s.get_next(&s, &a), 0);
        ck_assert_ptr_nonnull(a.release);
        ck_assert_int_eq(a.length, 2000);
        a.release(&a);
    }
    int code = s.get_next(&s, &a);
    ck_assert_int_ne(code, 0);
    ck_assert_ptr_null(a.release);
    const char *msg = s.get_last_error(&s);
    ck_assert_msg(msg && strstr(msg, "RowGroup[5]"), "%s", msg ? msg : "(none)");
    ck_assert_int_eq(s.get_next(&s, &a), code);
    s.release(&s);
    pq_reader_close(r);
    free(data);
    pq_stream_set_window_bytes(0);
}
END_TEST

/* The file's pages dropped from memory as each chunk is decoded (done for
 * files of 1 GiB and more; here for every file): the plain read, a
 * filtered one and streams decoding ahead give the values read before
 * without the drops. */
START_TEST(pages_dropped_as_decoded)
{
    size_t n_plain, n_filtered, n;
    int64_t *plain = expected(NULL, 0, 0, &n_plain);
    int64_t *filtered = expected("l_quantity < 5", 0, 0, &n_filtered);
    pq_file_source_set_drop_min(0);
    for (int round = 0; round < 2; round++) { /* the second maps the dropped pages again */
        int64_t *v = expected(NULL, 0, 0, &n);
        ck_assert_uint_eq(n, n_plain);
        ck_assert_int_eq(memcmp(v, plain, n * sizeof *v), 0);
        free(v);
        v = expected("l_quantity < 5", 0, 0, &n);
        ck_assert_uint_eq(n, n_filtered);
        ck_assert_int_eq(memcmp(v, filtered, n * sizeof *v), 0);
        free(v);
    }
    pq_stream_set_window_bytes(1);
    check_stream(NULL, 0, 0, 777);
    check_stream("l_quantity < 5", 0, 0, 0);
    pq_stream_set_window_bytes(0);
    pq_file_source_set_drop_min(PQ_DROP_PAGES_MIN_FILE);
    free(plain);
    free(filtered);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("export_stream");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, stream_equals_the_plain_read);
    tcase_add_test(tc, stream_dropped_half_read);
    tcase_add_test(tc, stream_errors);
    tcase_add_test(tc, stream_decoded_ahead);
    tcase_add_test(tc, pages_dropped_as_decoded);
    tcase_add_test(tc, stream_error_in_a_later_window);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
