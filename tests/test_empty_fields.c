/*
 * test_empty_fields.c — the all-null arrays made for fields with no leaf
 * (reader/empty_fields.c), checked against the Arrow C data interface's
 * rules by hand: every level null (validity bits 0, null_count = length),
 * a struct's children as long as it, a list's offsets 0 and its element
 * empty; types a leafless group cannot have are refused. Run under ASan by
 * scripts/test (every release path). tests/py/test_empty_groups.py reads
 * whole files with such fields against pyarrow.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"
#include "reader/empty_fields.h"

/* A schema node with `n` children (static storage, no release needed). */
static struct ArrowSchema node(const char *format, const char *name, int64_t n, struct ArrowSchema **children)
{
    struct ArrowSchema s = {.format = format, .name = name, .n_children = n, .children = children};
    return s;
}

static void all_null(const struct ArrowArray *a, int64_t length)
{
    ck_assert_int_eq(a->length, length);
    ck_assert_int_eq(a->null_count, length);
    ck_assert_int_eq(a->offset, 0);
    if (a->n_buffers > 0) {
        const unsigned char *bits = a->buffers[0];
        ck_assert_ptr_nonnull(bits);
        for (int64_t i = 0; i < length; i++) ck_assert_uint_eq((bits[i / 8] >> (i % 8)) & 1, 0);
    }
}

START_TEST(struct_of_empty_struct)
{
    struct ArrowSchema inner = node("+s", "inner", 0, NULL);
    struct ArrowSchema *ic[1] = {&inner};
    struct ArrowSchema outer = node("+s", "nested", 1, ic);
    pq_error err;
    for (int64_t len = 0; len < 20; len += 7) {
        struct ArrowArray a;
        ck_assert_int_eq(pq_empty_field_array(&outer, len, &a, &err), PQ_OK);
        all_null(&a, len);
        ck_assert_int_eq(a.n_buffers, 1);
        ck_assert_int_eq(a.n_children, 1);
        all_null(a.children[0], len);
        ck_assert_int_eq(a.children[0]->n_children, 0);
        a.release(&a);
        ck_assert_ptr_null(a.release);
    }
}
END_TEST

START_TEST(list_of_empty_struct)
{
    struct ArrowSchema element = node("+s", "element", 0, NULL);
    struct ArrowSchema *ec[1] = {&element};
    struct ArrowSchema list = node("+l", "l", 1, ec);
    struct ArrowSchema large = node("+L", "l", 1, ec);
    pq_error err;
    struct ArrowArray a;
    ck_assert_int_eq(pq_empty_field_array(&list, 9, &a, &err), PQ_OK);
    all_null(&a, 9);
    ck_assert_int_eq(a.n_buffers, 2);
    const int32_t *off = a.buffers[1];
    for (int i = 0; i <= 9; i++) ck_assert_int_eq(off[i], 0);
    ck_assert_int_eq(a.children[0]->length, 0);
    a.release(&a);
    ck_assert_int_eq(pq_empty_field_array(&large, 3, &a, &err), PQ_OK);
    const int64_t *off64 = a.buffers[1];
    for (int i = 0; i <= 3; i++) ck_assert_int_eq(off64[i], 0);
    a.release(&a);
}
END_TEST

START_TEST(refused)
{
    pq_error err;
    struct ArrowArray a;
    struct ArrowSchema leaf = node("i", "x", 0, NULL);
    ck_assert_int_eq(pq_empty_field_array(&leaf, 4, &a, &err), PQ_ERR_UNSUPPORTED);
    ck_assert_ptr_null(a.release);
    struct ArrowSchema bare_list = node("+l", "l", 0, NULL);
    ck_assert_int_eq(pq_empty_field_array(&bare_list, 4, &a, &err), PQ_ERR_SCHEMA);
    /* a leaf deep inside: the struct above it is released as it fails */
    struct ArrowSchema *lc[1] = {&leaf};
    struct ArrowSchema s = node("+s", "s", 1, lc);
    ck_assert_int_eq(pq_empty_field_array(&s, 4, &a, &err), PQ_ERR_UNSUPPORTED);
    ck_assert_ptr_null(a.release);
    ck_assert_int_eq(pq_empty_field_array(&s, -1, &a, &err), PQ_ERR_INVALID_ARGUMENT);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("empty_fields");
    TCase *tc = tcase_create("arrays");
    tcase_add_test(tc, struct_of_empty_struct);
    tcase_add_test(tc, list_of_empty_struct);
    tcase_add_test(tc, refused);
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
