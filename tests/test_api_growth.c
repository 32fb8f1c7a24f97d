/*
 * test_api_growth.c — the public structs that can grow: options carry
 * struct_size (pq_reader_options, pq_remote_options, pq_dataset_options)
 * and the stage counters come through getters that take the caller's
 * sizeof. A caller built against an older header (a smaller struct) or a
 * newer one (a larger struct) must keep working; a struct not made by its
 * _init must be refused, never read past its end.
 *
 * Oracle: the bundled sample data/sample/lineitem_61rg.parquet, whose
 * counts gen_sample.py wrote (122000 rows in 61 row groups), and the
 * contracts in pq_reader.h, by hand.
 */
#include <check.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"
#include "test_util.h"

/* A pq_reader_options as a newer header might make it: this library's
 * fields, then `extra` bytes of fields it does not know. */
typedef struct newer_options {
    pq_reader_options known;
    unsigned char unknown[24];
} newer_options;

static pq_reader *open_sample(const pq_reader_options *o, pq_error *err)
{
    char *path = pq_test_sample_path();
    pq_reader *r = pq_reader_open_path(path, o, err);
    free(path);
    return r;
}

START_TEST(options_struct_size)
{
    pq_reader_options o;
    pq_reader_options_init(&o);
    ck_assert_uint_eq(o.struct_size, sizeof o);
    pq_error err;

    /* Zeroed by hand, not made by _init: refused, naming the field. */
    memset(&o, 0, sizeof o);
    ck_assert_ptr_null(open_sample(&o, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "struct_size is 0"), "%s", err.message);

    /* Smaller than any pqstep's layout. */
    pq_reader_options_init(&o);
    o.struct_size = 8;
    ck_assert_ptr_null(open_sample(&o, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);

    /* A newer caller that sets nothing this library lacks: opens and reads. */
    newer_options n;
    memset(&n, 0, sizeof n);
    pq_reader_options_init(&n.known);
    n.known.struct_size = sizeof n;
    n.known.row_limit = 10;
    pq_reader *r = open_sample(&n.known, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err), PQ_OK);
    pq_decode_stats d;
    pq_reader_decode_stats(r, &d, sizeof d);
    ck_assert_uint_eq(d.rows, 10); /* the option it knows took effect */
    pq_reader_close(r);

    /* ... and one that sets a field this library does not know: refused. */
    n.unknown[5] = 1;
    ck_assert_ptr_null(open_sample(&n.known, &err));
    ck_assert_int_eq(err.code, PQ_ERR_UNSUPPORTED);

    /* NULL options: the defaults (every row). */
    r = open_sample(NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    pq_reader_close(r);
}
END_TEST

START_TEST(remote_and_dataset_struct_size)
{
    pq_error err;
    pq_remote_options ro;
    pq_remote_options_init(&ro);
    ck_assert_uint_eq(ro.struct_size, sizeof ro);
    ro.struct_size = 0;
    /* Refused before any request is sent: the port is never connected to. */
    ck_assert_ptr_null(pq_remote_open("http://127.0.0.1:9/x.parquet", &ro, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "pq_remote_options.struct_size is 0"), "%s", err.message);

    char *path = pq_test_sample_path();
    const char *paths[1] = {path};
    pq_dataset_options dopt;
    pq_dataset_options_init(&dopt);
    ck_assert_uint_eq(dopt.struct_size, sizeof dopt);
    dopt.struct_size = 0;
    ck_assert_ptr_null(pq_dataset_open(paths, 1, &dopt, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);

    /* The reader options a dataset takes are checked as a reader's. */
    pq_dataset_options_init(&dopt);
    pq_reader_options bad;
    memset(&bad, 0, sizeof bad);
    dopt.reader = &bad;
    ck_assert_ptr_null(pq_dataset_open(paths, 1, &dopt, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "pq_reader_options.struct_size is 0"), "%s", err.message);

    /* Good ones are copied: the caller's struct may go away after the open. */
    pq_reader_options *good = malloc(sizeof *good);
    pq_reader_options_init(good);
    good->string_type = PQ_STRINGS_LARGE;
    dopt.reader = good;
    pq_dataset *ds = pq_dataset_open(paths, 1, &dopt, &err);
    ck_assert_msg(ds != NULL, "%s", err.message);
    memset(good, 0xA5, sizeof *good);
    free(good);
    struct ArrowSchema schema;
    ck_assert_int_eq(pq_dataset_schema(ds, &schema, &err), PQ_OK);
    int large = 0, plain = 0;
    for (int64_t i = 0; i < schema.n_children; i++) {
        large += strcmp(schema.children[i]->format, "U") == 0;
        plain += strcmp(schema.children[i]->format, "u") == 0;
    }
    ck_assert_int_gt(large, 0); /* lineitem's string columns, as the copied options ask */
    ck_assert_int_eq(plain, 0);
    schema.release(&schema);
    pq_dataset_close(ds);
    free(path);
}
END_TEST

START_TEST(stats_sizes)
{
    pq_error err;
    pq_reader_options o;
    pq_reader_options_init(&o);
    static const uint32_t cols[1] = {0};
    o.columns = cols;
    o.columns_len = 1;
    pq_reader *r = open_sample(&o, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err), PQ_OK);

    pq_decode_stats d;
    ck_assert_uint_eq(pq_reader_decode_stats(r, &d, sizeof d), sizeof d);
    ck_assert_uint_eq(d.rows, 122000);
    ck_assert_uint_eq(d.chunks, 61);

    /* An older caller's struct, ending before bytes_out: only its bytes are
     * written, the rest of the memory is left alone. */
    size_t older = offsetof(pq_decode_stats, bytes_out);
    unsigned char buf[sizeof(pq_decode_stats) + 16];
    memset(buf, 0xEE, sizeof buf);
    ck_assert_uint_eq(pq_reader_decode_stats(r, (pq_decode_stats *)buf, older), sizeof d);
    ck_assert_int_eq(memcmp(buf, &d, older), 0);
    for (size_t i = older; i < sizeof buf; i++) ck_assert_uint_eq(buf[i], 0xEE);

    /* A newer caller's, larger: the fields this library does not know are
     * zeroed, and the size it knows is returned. */
    memset(buf, 0xEE, sizeof buf);
    ck_assert_uint_eq(pq_reader_decode_stats(r, (pq_decode_stats *)buf, sizeof buf), sizeof d);
    ck_assert_int_eq(memcmp(buf, &d, sizeof d), 0);
    for (size_t i = sizeof d; i < sizeof buf; i++) ck_assert_uint_eq(buf[i], 0);

    /* The I/O counters are the same through either getter. */
    for (pq_stage s = PQ_STAGE_FOOTER; s < PQ_STAGE_COUNT; s++) {
        pq_io_stats io;
        ck_assert_uint_eq(pq_reader_io_stats(r, s, &io, sizeof io), sizeof io);
        if (s == PQ_STAGE_DECODE) ck_assert_int_eq(memcmp(&io, &d.io, sizeof io), 0);
        if (s == PQ_STAGE_FOOTER) {
            pq_footer_stats f;
            pq_reader_footer_stats(r, &f, sizeof f);
            ck_assert_int_eq(memcmp(&io, &f.io, sizeof io), 0);
            ck_assert_uint_eq(f.parses, 1);
            ck_assert_uint_ge(io.reads, 1);
        }
    }
    /* No stage INIT counters, no reader: zeros and 0. */
    pq_io_stats io;
    memset(&io, 0xEE, sizeof io);
    ck_assert_uint_eq(pq_reader_io_stats(r, PQ_STAGE_INIT, &io, sizeof io), 0);
    ck_assert_uint_eq(io.reads, 0);
    memset(&d, 0xEE, sizeof d);
    ck_assert_uint_eq(pq_reader_decode_stats(NULL, &d, sizeof d), 0);
    ck_assert_uint_eq(d.rows, 0);
    ck_assert_uint_eq(pq_reader_decode_stats(r, NULL, sizeof d), 0);
    pq_reader_close(r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("api_growth");
    TCase *tc = tcase_create("sizes");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, options_struct_size);
    tcase_add_test(tc, remote_and_dataset_struct_size);
    tcase_add_test(tc, stats_sizes);
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
