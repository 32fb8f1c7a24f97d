/*
 * test_deletions.c — pq_reader_options.deleted_rows through the C API on
 * data/sample/lineitem_61rg.parquet (61 row groups of 2,000 rows): every
 * row a read with a deletion vector delivers is the row of the same file
 * row number in a read without one (l_orderkey and l_partkey, both int64,
 * compared value by value), the delivered count is the rows minus the
 * deleted ones within the file (hand-counted: duplicates, unsorted input
 * and numbers past the end included), wholly deleted row groups are
 * dropped (pruned_deleted), the caller's array may be freed after the
 * open, and a filter or a row range combines with the deletions; the row
 * index (row_index_name) of such a read holds each delivered row's file
 * row number. Values against pyarrow are in tests/py/test_deletion_vectors.py
 * and tests/py/test_row_index.py.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"
#include "test_util.h"

#define ROWS 122000u
#define GROUP 2000u

/* Every delivered (l_orderkey, l_partkey), in order; returns the count. */
static size_t read_keys(const pq_reader_options *o, int64_t *ok, int64_t *pk, pq_select_stats *sel)
{
    char *path = pq_test_sample_path();
    pq_error err;
    pq_reader *r = pq_reader_open_path(path, o, &err);
    free(path);
    ck_assert_msg(r, "%s", err.message);
    ck_assert_msg(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s", err.message);
    size_t n = 0;
    for (;;) {
        struct ArrowArray a;
        struct ArrowSchema s;
        ck_assert_msg(pq_reader_next_batch(r, 5000, &a, &s, &err) == PQ_OK, "%s", err.message);
        if (!a.release) break;
        const int64_t *x = (const int64_t *)a.children[0]->buffers[1] + a.children[0]->offset;
        const int64_t *y = (const int64_t *)a.children[1]->buffers[1] + a.children[1]->offset;
        for (int64_t i = 0; i < a.length; i++, n++) {
            ck_assert_uint_lt(n, ROWS);
            ok[n] = x[i];
            pk[n] = y[i];
        }
        a.release(&a);
        s.release(&s);
    }
    if (sel) pq_reader_select_stats(r, sel, sizeof *sel);
    pq_reader_close(r);
    return n;
}

static const uint32_t COLS[] = {0, 1};

START_TEST(test_deleted_rows_match_file_rows)
{
    int64_t *ok0 = malloc(ROWS * sizeof *ok0), *pk0 = malloc(ROWS * sizeof *pk0);
    int64_t *ok1 = malloc(ROWS * sizeof *ok1), *pk1 = malloc(ROWS * sizeof *pk1);
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.columns = COLS;
    o.columns_len = 2;
    ck_assert_uint_eq(read_keys(&o, ok0, pk0, NULL), ROWS);

    /* rows of group 3 (all), a run in group 10, scattered rows, duplicates,
     * unsorted, and numbers past the end */
    size_t cap = GROUP + 600 + 200 + 8, n = 0;
    uint64_t *del = malloc(cap * sizeof *del);
    for (uint64_t i = 0; i < GROUP; i++) del[n++] = 3 * GROUP + i;
    for (uint64_t i = 0; i < 600; i++) del[n++] = 10 * GROUP + 700 + i;
    for (uint64_t i = 0; i < 200; i++) del[n++] = (i * 7919u) % ROWS;
    del[n++] = ROWS - 1;
    del[n++] = ROWS;
    del[n++] = ROWS + 12345;
    del[n++] = 5;
    del[n++] = 5;
    del[n++] = 0;
    uint8_t *gone = calloc(ROWS, 1);
    for (size_t i = 0; i < n; i++)
        if (del[i] < ROWS) gone[del[i]] = 1;
    size_t want = 0;
    for (size_t i = 0; i < ROWS; i++) want += !gone[i];
    /* shuffle: any order is taken */
    for (size_t i = 0; i + 1 < n; i += 2) {
        uint64_t t = del[i];
        del[i] = del[n - 1 - i];
        del[n - 1 - i] = t;
    }
    uint64_t *copy = malloc(n * sizeof *copy);
    memcpy(copy, del, n * sizeof *copy);
    o.deleted_rows = copy;
    o.deleted_rows_len = n;
    char *path = pq_test_sample_path();
    pq_error err;
    pq_reader *r = pq_reader_open_path(path, &o, &err);
    ck_assert_msg(r, "%s", err.message);
    memset(copy, 0xFF, n * sizeof *copy); /* copied at open */
    free(copy);
    ck_assert_msg(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s", err.message);
    pq_select_stats sel;
    pq_reader_select_stats(r, &sel, sizeof sel);
    ck_assert_uint_eq(sel.pruned_deleted, 1);
    ck_assert_uint_eq(sel.rows_deleted, ROWS - want);
    pq_reader_close(r);
    free(path);

    o.deleted_rows = del;
    size_t got = read_keys(&o, ok1, pk1, NULL);
    ck_assert_uint_eq(got, want);
    size_t k = 0;
    for (size_t i = 0; i < ROWS; i++) {
        if (gone[i]) continue;
        ck_assert_msg(ok1[k] == ok0[i] && pk1[k] == pk0[i], "delivered row %zu is not file row %zu", k, i);
        k++;
    }

    /* with a row range: rows [1500, 1500 + 25000) before the deletions */
    o.row_offset = 1500;
    o.row_limit = 25000;
    got = read_keys(&o, ok1, pk1, NULL);
    k = 0;
    for (size_t i = 1500; i < 26500; i++) {
        if (gone[i]) continue;
        ck_assert_int_eq(ok1[k], ok0[i]);
        ck_assert_int_eq(pk1[k], pk0[i]);
        k++;
    }
    ck_assert_uint_eq(got, k);
    o.row_offset = 0;
    o.row_limit = 0;

    /* with a filter on l_partkey: the rows both keep */
    pq_expr *f = pq_expr_parse("l_partkey < 100000", &err);
    ck_assert_ptr_nonnull(f);
    o.filter = f;
    got = read_keys(&o, ok1, pk1, NULL);
    k = 0;
    for (size_t i = 0; i < ROWS; i++) {
        if (gone[i] || pk0[i] >= 100000) continue;
        ck_assert_int_eq(ok1[k], ok0[i]);
        k++;
    }
    ck_assert_uint_eq(got, k);
    ck_assert_uint_gt(k, 1000);
    pq_expr_free(f);
    o.filter = NULL;

    /* the row index: each delivered row's file row number (deletions and
     * the filter on l_partkey together) */
    f = pq_expr_parse("l_partkey < 100000", &err);
    o.filter = f;
    o.row_index_name = "rn";
    path = pq_test_sample_path();
    r = pq_reader_open_path(path, &o, &err);
    free(path);
    ck_assert_msg(r, "%s", err.message);
    ck_assert_msg(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s", err.message);
    size_t next = 0;
    k = 0;
    for (;;) {
        struct ArrowArray a;
        struct ArrowSchema sc;
        ck_assert_msg(pq_reader_next_batch(r, 777, &a, &sc, &err) == PQ_OK, "%s", err.message);
        if (!a.release) break;
        ck_assert_int_eq(a.n_children, 3);
        ck_assert_str_eq(sc.children[2]->format, "l");
        ck_assert_str_eq(sc.children[2]->name, "rn");
        const int64_t *rn = (const int64_t *)a.children[2]->buffers[1] + a.children[2]->offset;
        for (int64_t i = 0; i < a.length; i++, k++) {
            while (next < ROWS && (gone[next] || pk0[next] >= 100000)) next++;
            ck_assert_int_eq(rn[a.offset + i], (int64_t)next);
            next++;
        }
        a.release(&a);
        sc.release(&sc);
    }
    ck_assert_uint_eq(k, got);
    pq_reader_close(r);
    pq_expr_free(f);
    o.filter = NULL;
    o.row_index_name = NULL;

    /* every row deleted: nothing delivered, every row group dropped */
    o.filter = NULL;
    uint64_t *all = malloc(ROWS * sizeof *all);
    for (uint64_t i = 0; i < ROWS; i++) all[i] = i;
    o.deleted_rows = all;
    o.deleted_rows_len = ROWS;
    pq_select_stats s2;
    ck_assert_uint_eq(read_keys(&o, ok1, pk1, &s2), 0);
    ck_assert_uint_eq(s2.pruned_deleted, ROWS / GROUP);
    free(all);
    free(del);
    free(gone);
    free(ok0);
    free(pk0);
    free(ok1);
    free(pk1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("deletions");
    TCase *tc = tcase_create("deleted_rows");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, test_deleted_rows_match_file_rows);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
