/*
 * test_output_types.c — the string output types through the C API
 * (pq_reader_options.string_type): PQ_STRINGS_LARGE and
 * PQ_STRINGS_DICTIONARY, their exported schemas (pq_reader_output_schema
 * and the batches'), their buffers, and their release paths (run under
 * ASan by scripts/test, so a leak or double free fails).
 *
 * Oracle: the same reader with PQ_STRINGS_STRING, whose values
 * tests/py/test_read_oracle.py checks against pyarrow: every large
 * string's int64 offsets must equal its int32 offsets, and every
 * dictionary array's entry at each row's index must be that row's string.
 * Files: alltypes_plain.parquet (string_col: dictionary-encoded, so the
 * dictionary output keeps the file's 2 entries) and delta_byte_array.parquet
 * (DELTA_BYTE_ARRAY pages: one dictionary entry per row).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"
#include "test_util.h"

typedef struct batch {
    pq_reader *r;
    struct ArrowArray array;
    struct ArrowSchema schema;
} batch;

/* Row group 0 of leaf `column` of corpus file `rel` as string_type `type`. */
static batch read_one(const char *rel, uint32_t column, uint32_t type)
{
    char *path = pq_test_corpus_path(rel);
    if (!path) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.columns = &column;
    o.columns_len = 1;
    o.string_type = type;
    pq_error err;
    batch b = {0};
    b.r = pq_reader_open_path(path, &o, &err);
    free(path);
    ck_assert_msg(b.r, "%s", err.message);
    ck_assert_int_eq(pq_reader_advance_to(b.r, PQ_STAGE_DECODE, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_export_row_group(b.r, 0, &b.array, &b.schema, &err), PQ_OK);
    ck_assert_int_eq(b.array.n_children, 1);
    return b;
}

static void done(batch *b)
{
    b->array.release(&b->array);
    b->schema.release(&b->schema);
    pq_reader_close(b->r);
}

/* Value i of a "u"/"z" array: its bytes and length. */
static const uint8_t *string_at(const struct ArrowArray *a, int64_t i, int32_t *len)
{
    const int32_t *off = a->buffers[1];
    *len = off[a->offset + i + 1] - off[a->offset + i];
    return (const uint8_t *)a->buffers[2] + off[a->offset + i];
}

static void check_large(const char *rel, uint32_t column, const char *plain_format)
{
    batch s = read_one(rel, column, PQ_STRINGS_STRING), l = read_one(rel, column, PQ_STRINGS_LARGE);
    ck_assert_str_eq(s.schema.children[0]->format, plain_format);
    ck_assert_str_eq(l.schema.children[0]->format, plain_format[0] == 'u' ? "U" : "Z");
    ck_assert_str_eq(l.schema.children[0]->name, s.schema.children[0]->name);
    const struct ArrowArray *a = s.array.children[0], *b = l.array.children[0];
    ck_assert_int_eq(a->length, b->length);
    ck_assert_int_eq(b->n_buffers, 3);
    const int32_t *o32 = a->buffers[1];
    const int64_t *o64 = b->buffers[1];
    for (int64_t i = 0; i <= a->length; i++) ck_assert_int_eq(o64[i], o32[i]);
    ck_assert_int_eq(memcmp(a->buffers[2], b->buffers[2], (size_t)o32[a->length]), 0);
    done(&s);
    done(&l);
}

static void check_dictionary(const char *rel, uint32_t column, const char *plain_format, int64_t want_entries)
{
    batch s = read_one(rel, column, PQ_STRINGS_STRING), d = read_one(rel, column, PQ_STRINGS_DICTIONARY);
    const struct ArrowSchema *f = d.schema.children[0];
    ck_assert_str_eq(f->format, "i");
    ck_assert_ptr_nonnull(f->dictionary);
    ck_assert_str_eq(f->dictionary->format, plain_format);
    /* The schema the reader gives before any batch is the same. */
    struct ArrowSchema early;
    pq_error err;
    ck_assert_int_eq(pq_reader_output_schema(d.r, &early, &err), PQ_OK);
    ck_assert_str_eq(early.children[0]->format, "i");
    ck_assert_str_eq(early.children[0]->dictionary->format, plain_format);
    early.release(&early);

    const struct ArrowArray *a = s.array.children[0], *b = d.array.children[0];
    ck_assert_ptr_nonnull(b->dictionary);
    ck_assert_int_eq(b->dictionary->null_count, 0);
    ck_assert_int_eq(b->dictionary->length, want_entries);
    ck_assert_int_eq(a->length, b->length);
    const int32_t *idx = b->buffers[1];
    for (int64_t i = 0; i < a->length; i++) {
        ck_assert_int_ge(idx[i], 0);
        ck_assert_int_lt(idx[i], b->dictionary->length);
        int32_t la, lb;
        const uint8_t *pa = string_at(a, i, &la), *pb = string_at(b->dictionary, idx[i], &lb);
        ck_assert_int_eq(la, lb);
        ck_assert_int_eq(memcmp(pa, pb, (size_t)la), 0);
    }
    /* A batch sliced by next_batch shares the dictionary; released on its own. */
    struct ArrowArray slice;
    ck_assert_int_eq(pq_reader_next_batch(d.r, 1, &slice, NULL, &err), PQ_OK);
    ck_assert_int_eq(slice.children[0]->length, 1);
    ck_assert_ptr_eq(slice.children[0]->dictionary->buffers[2], b->dictionary->buffers[2]);
    done(&d); /* the reader and the row group's batch go first: the slice keeps its buffers */
    const struct ArrowArray *c = slice.children[0];
    int32_t lc, la;
    const uint8_t *pc = string_at(c->dictionary, ((const int32_t *)c->buffers[1])[c->offset], &lc);
    const uint8_t *pa = string_at(a, 0, &la);
    ck_assert_int_eq(lc, la);
    ck_assert_int_eq(memcmp(pc, pa, (size_t)la), 0);
    slice.release(&slice);
    done(&s);
}

START_TEST(large_strings_widen_the_offsets)
{
    check_large("data/alltypes_plain.parquet", 9, "z");
    check_large("data/delta_byte_array.parquet", 0, "u");
}
END_TEST

START_TEST(dictionary_arrays_keep_the_file_dictionary)
{
    check_dictionary("data/alltypes_plain.parquet", 9, "z", 2);
    check_dictionary("data/delta_byte_array.parquet", 0, "u", 1000);
}
END_TEST

START_TEST(bad_string_type_fails_the_select_stage)
{
    char *path = pq_test_corpus_path("data/alltypes_plain.parquet");
    if (!path) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.string_type = 9;
    pq_error err;
    pq_reader *r = pq_reader_open_path(path, &o, &err);
    free(path);
    ck_assert_ptr_nonnull(r);
    struct ArrowSchema s;
    ck_assert_int_eq(pq_reader_output_schema(r, &s, &err), PQ_ERR_STAGE);
    ck_assert_ptr_null(s.release);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_SELECT, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "string_type 9"));
    pq_reader_close(r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("output_types");
    TCase *tc = tcase_create("strings");
    tcase_add_test(tc, large_strings_widen_the_offsets);
    tcase_add_test(tc, dictionary_arrays_keep_the_file_dictionary);
    tcase_add_test(tc, bad_string_type_fails_the_select_stage);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!pq_test_corpus_dir()) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
