/*
 * test_concurrency_dataset.c — pq_dataset through the C API, run under ASan and TSan by
 * scripts/test (its scans decode two files at once) so that the release
 * paths are checked for leaks and use after free.
 *
 * The dataset is made here: the bundled sample (122000 rows, written by
 * gen_sample.py) copied into hive directories k=1/, k=2/ and
 * k=__HIVE_DEFAULT_PARTITION__/ (a null key). Oracle: a plain reader of the
 * sample with the same file filter gives the rows per file; the dataset
 * must give that count for each file its key terms keep, the key column
 * must hold each file's value, and the counters must say which files were
 * pruned.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pqstep.h"
#include "test_util.h"

static char root[256];

static void copy_sample(const char *dir)
{
    char sample[512], path[512];
    snprintf(sample, sizeof sample, "%s/data/sample/lineitem_61rg.parquet", PQ_SOURCE_DIR);
    size_t len;
    uint8_t *data = pq_test_read_file(sample, &len);
    ck_assert_ptr_nonnull(data);
    snprintf(path, sizeof path, "%s/%s", root, dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/%s/part.parquet", root, dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
    free(data);
}

/* Rows of the sample where `filter` holds, through a plain reader. */
static uint64_t sample_rows(const char *filter)
{
    char sample[512];
    snprintf(sample, sizeof sample, "%s/data/sample/lineitem_61rg.parquet", PQ_SOURCE_DIR);
    pq_reader_options o;
    pq_reader_options_init(&o);
    pq_error err;
    pq_expr *e = filter ? pq_expr_parse(filter, &err) : NULL;
    o.filter = e;
    pq_reader *r = pq_reader_open_path(sample, &o, &err);
    pq_expr_free(e);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err), PQ_OK);
    pq_decode_stats st;
    pq_reader_decode_stats(r, &st, sizeof st);
    pq_reader_close(r);
    return st.rows;
}

/* Pull every batch: rows, and the key column's values (k: int32, last child). */
static uint64_t pull(struct ArrowArrayStream *s, int64_t *sum_k, int64_t *null_k)
{
    uint64_t rows = 0;
    *sum_k = *null_k = 0;
    struct ArrowArray a;
    for (;;) {
        ck_assert_int_eq(s->get_next(s, &a), 0);
        if (!a.release) break;
        rows += (uint64_t)a.length;
        const struct ArrowArray *k = a.children[a.n_children - 1];
        const int32_t *v = k->buffers[1];
        const uint8_t *valid = k->buffers[0];
        for (int64_t i = 0; i < k->length; i++) {
            if (valid && !((valid[(k->offset + i) / 8] >> ((k->offset + i) % 8)) & 1)) (*null_k)++;
            else *sum_k += v[k->offset + i];
        }
        a.release(&a);
    }
    return rows;
}

START_TEST(hive_dataset_scans)
{
    snprintf(root, sizeof root, "/tmp/pqstep-ds-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(root));
    copy_sample("k=1");
    copy_sample("k=2");
    copy_sample("k=__HIVE_DEFAULT_PARTITION__");
    pq_dataset_options o;
    pq_dataset_options_init(&o);
    o.partitioning = PQ_PARTITIONING_HIVE;
    o.threads = 2;
    pq_error err;
    const char *paths[] = {root};
    pq_dataset *ds = pq_dataset_open(paths, 1, &o, &err);
    ck_assert_msg(ds, "%s", err.message);
    ck_assert_uint_eq(pq_dataset_file_count(ds), 3);
    ck_assert_uint_eq(pq_dataset_partition_count(ds), 1);
    ck_assert_str_eq(pq_dataset_partition_name(ds, 0), "k");
    ck_assert_str_eq(pq_dataset_partition_format(ds, 0), "i");
    struct ArrowSchema schema;
    ck_assert_int_eq(pq_dataset_schema(ds, &schema, &err), PQ_OK);
    ck_assert_int_eq(schema.n_children, 17);
    ck_assert_str_eq(schema.children[16]->name, "k");
    schema.release(&schema);

    uint64_t per_file = sample_rows("l_quantity < 5");
    ck_assert_uint_gt(per_file, 0);
    const char *texts[] = {"k = 2 and l_quantity < 5", "l_quantity < 5", "k is null and l_quantity < 5",
                           "k in (1, 2) and l_quantity < 5"};
    uint64_t want_files[] = {1, 3, 1, 2};
    int64_t want_sum[] = {2, 3, 0, 3};
    for (int t = 0; t < 4; t++) {
        pq_expr *e = pq_expr_parse(texts[t], &err);
        ck_assert_ptr_nonnull(e);
        const char *cols[] = {"l_orderkey", "k"};
        pq_dataset_scan sc = {.columns = cols, .columns_len = 2, .filter = e, .batch_rows = 1000};
        struct ArrowArrayStream s;
        pq_dataset_scan_stats stats;
        ck_assert_int_eq(pq_dataset_export_stream(ds, &sc, &s, &stats, &err), PQ_OK);
        pq_expr_free(e);
        ck_assert_uint_eq(stats.files, 3);
        ck_assert_uint_eq(stats.files_pruned_partition, 3 - want_files[t]);
        struct ArrowSchema ss;
        ck_assert_int_eq(s.get_schema(&s, &ss), 0);
        ck_assert_int_eq(ss.n_children, 2);
        ck_assert_str_eq(ss.children[1]->name, "k");
        int64_t sum, nulls;
        uint64_t rows = pull(&s, &sum, &nulls);
        s.release(&s);
        ck_assert_str_eq(ss.children[1]->name, "k"); /* the schema outlives the stream */
        ss.release(&ss);
        ck_assert_uint_eq(rows, per_file * want_files[t]);
        ck_assert_int_eq(sum, want_sum[t] * (int64_t)per_file);
        ck_assert_int_eq(nulls, t == 1 || t == 2 ? (int64_t)per_file : 0);
    }
    /* Errors: a term mixing a key and a column; a literal of the wrong type. */
    pq_expr *e = pq_expr_parse("k = 1 or l_quantity < 5", &err);
    pq_dataset_scan sc = {.filter = e};
    struct ArrowArrayStream s;
    ck_assert_int_eq(pq_dataset_export_stream(ds, &sc, &s, NULL, &err), PQ_ERR_UNSUPPORTED);
    ck_assert_ptr_null(s.release);
    pq_expr_free(e);
    e = pq_expr_parse("k = 'x'", &err);
    sc.filter = e;
    ck_assert_int_eq(pq_dataset_export_stream(ds, &sc, &s, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "int32"));
    pq_expr_free(e);
    /* A stream outlives its dataset. */
    ck_assert_int_eq(pq_dataset_export_stream(ds, NULL, &s, NULL, &err), PQ_OK);
    pq_dataset_close(ds);
    int64_t sum, nulls;
    ck_assert_uint_eq(pull(&s, &sum, &nulls), 3 * 122000u);
    s.release(&s);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(dataset_errors)
{
    pq_error err;
    const char *missing[] = {"/nonexistent/pqstep-dataset"};
    ck_assert_ptr_null(pq_dataset_open(missing, 1, NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/pqstep-dataset"));
    ck_assert_ptr_null(pq_dataset_open(NULL, 0, NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(pq_dataset_open(missing, 1, NULL, NULL)); /* no error struct: still a clean NULL */
    const char *bad_glob[] = {"/tmp/*/x/*.parquet"};
    ck_assert_ptr_null(pq_dataset_open(bad_glob, 1, NULL, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "wildcards"));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("dataset");
    TCase *tc = tcase_create("dataset");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, hive_dataset_scans);
    tcase_add_test(tc, dataset_errors);
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
