/*
 * test_arrow_schema.c — pq_metadata_arrow_schema() and pq_arrow_format().
 *
 * Expected format strings are written by hand from the Arrow C Data
 * Interface specification, for the Parquet schemas of corpus files (their
 * element lists are quoted next to each test); names and nullability follow
 * the Parquet repetitions and pyarrow's naming. Releasing is checked for
 * leaks by ASan/LSan in the sanitizer build, including a child moved out of
 * its parent as the spec allows.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"
#include "test_util.h"

static pq_metadata *open_footer(const char *rel)
{
    char *path = pq_test_corpus_path(rel);
    if (!path) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    size_t len = 0, flen = 0;
    uint8_t *file = pq_test_read_file(path, &len);
    ck_assert_msg(file != NULL, "cannot read %s", path);
    const uint8_t *footer = pq_test_footer_span(file, len, &flen);
    ck_assert_msg(footer != NULL, "%s: no footer", path);
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse(footer, flen, NULL, &err);
    ck_assert_msg(md != NULL, "%s: %s", path, err.message);
    free(file);
    free(path);
    return md;
}

/* Export (all columns, or a projection) and drop the metadata at once: the
 * schema must not depend on it. */
static void export_schema(const char *rel, const uint32_t *cols, size_t n, struct ArrowSchema *out)
{
    pq_metadata *md = open_footer(rel);
    pq_error err = {0};
    pq_status st = pq_metadata_arrow_schema(md, cols, n, out, &err);
    pq_metadata_release(md);
    ck_assert_msg(st == PQ_OK, "%s: %s", rel, err.message);
    ck_assert_ptr_nonnull(out->release);
}

/* Assert one node: format, name, flags, number of children. */
#define CHECK_NODE(s, fmt, nm, fl, nch)                                                            \
    do {                                                                                           \
        const struct ArrowSchema *s_ = (s);                                                        \
        ck_assert_str_eq(s_->format, fmt);                                                         \
        ck_assert_str_eq(s_->name, nm);                                                            \
        ck_assert_int_eq(s_->flags, fl);                                                           \
        ck_assert_int_eq(s_->n_children, nch);                                                     \
        ck_assert_ptr_null(s_->dictionary);                                                        \
        ck_assert_ptr_nonnull(s_->release);                                                        \
    } while (0)

#define N ARROW_FLAG_NULLABLE

static void release(struct ArrowSchema *s)
{
    s->release(s);
    ck_assert_ptr_null(s->release);
}

/* ---------------------------------------------------------------------------
 * Flat and nested corpus schemas
 * ------------------------------------------------------------------------- */

/* alltypes_plain: eleven optional columns: int32 id, boolean, three int32,
 * int64, float, double, two binary, int96 (timestamp[ns], no zone). */
START_TEST(flat_alltypes)
{
    struct ArrowSchema s;
    export_schema("data/alltypes_plain.parquet", NULL, 0, &s);
    CHECK_NODE(&s, "+s", "", 0, 11);
    ck_assert_ptr_null(s.metadata);
    static const char *fmt[11] = {"i", "b", "i", "i", "i", "l", "f", "g", "z", "z", "tsn:"};
    static const char *names[11] = {"id",        "bool_col",   "tinyint_col",    "smallint_col",
                                    "int_col",   "bigint_col", "float_col",      "double_col",
                                    "date_string_col", "string_col", "timestamp_col"};
    for (int i = 0; i < 11; i++) {
        CHECK_NODE(s.children[i], fmt[i], names[i], N, 0);
        ck_assert_ptr_null(s.children[i]->metadata);
    }
    release(&s);
}
END_TEST

/* nested_lists: optional group a (LIST) { repeated group list { optional
 * group element (LIST) { ... { optional binary element (STRING) } } } },
 * required int32 b. */
START_TEST(three_level_lists)
{
    struct ArrowSchema s;
    export_schema("data/nested_lists.snappy.parquet", NULL, 0, &s);
    CHECK_NODE(&s, "+s", "", 0, 2);
    const struct ArrowSchema *a = s.children[0];
    CHECK_NODE(a, "+l", "a", N, 1);
    CHECK_NODE(a->children[0], "+l", "element", N, 1);
    CHECK_NODE(a->children[0]->children[0], "+l", "element", N, 1);
    CHECK_NODE(a->children[0]->children[0]->children[0], "u", "element", N, 0);
    CHECK_NODE(s.children[1], "i", "b", 0, 0);
    release(&s);
}
END_TEST

/* nested_maps: optional group a (MAP) { repeated group key_value { required
 * binary key (STRING); optional group value (MAP) { repeated group
 * key_value { required int32 key; required boolean value } } } },
 * required int32 b, required double c. The entries struct carries the map
 * field's name (as pyarrow exports it). */
START_TEST(maps)
{
    struct ArrowSchema s;
    export_schema("data/nested_maps.snappy.parquet", NULL, 0, &s);
    CHECK_NODE(&s, "+s", "", 0, 3);
    const struct ArrowSchema *a = s.children[0];
    CHECK_NODE(a, "+m", "a", N, 1);
    const struct ArrowSchema *e = a->children[0];
    CHECK_NODE(e, "+s", "a", 0, 2);
    CHECK_NODE(e->children[0], "u", "key", 0, 0);
    const struct ArrowSchema *v = e->children[1];
    CHECK_NODE(v, "+m", "value", N, 1);
    CHECK_NODE(v->children[0], "+s", "value", 0, 2);
    CHECK_NODE(v->children[0]->children[0], "i", "key", 0, 0);
    CHECK_NODE(v->children[0]->children[1], "b", "value", 0, 0);
    CHECK_NODE(s.children[1], "i", "b", 0, 0);
    CHECK_NODE(s.children[2], "g", "c", 0, 0);
    release(&s);
}
END_TEST

/* old_list_structure: required group a (LIST) { repeated group array (LIST)
 * { repeated int32 array } }: two-level lists keep the repeated names and
 * nothing is nullable. */
START_TEST(legacy_two_level_list)
{
    struct ArrowSchema s;
    export_schema("data/old_list_structure.parquet", NULL, 0, &s);
    CHECK_NODE(&s, "+s", "", 0, 1);
    CHECK_NODE(s.children[0], "+l", "a", 0, 1);
    CHECK_NODE(s.children[0]->children[0], "+l", "array", 0, 1);
    CHECK_NODE(s.children[0]->children[0]->children[0], "i", "array", 0, 0);
    release(&s);
}
END_TEST

/* repeated_primitive_no_list: repeated int32 Int32_list; repeated binary
 * String_list (STRING); required group group_of_lists { two more }. */
START_TEST(repeated_without_annotation)
{
    struct ArrowSchema s;
    export_schema("data/repeated_primitive_no_list.parquet", NULL, 0, &s);
    CHECK_NODE(&s, "+s", "", 0, 3);
    CHECK_NODE(s.children[0], "+l", "Int32_list", 0, 1);
    CHECK_NODE(s.children[0]->children[0], "i", "Int32_list", 0, 0);
    CHECK_NODE(s.children[1], "+l", "String_list", 0, 1);
    CHECK_NODE(s.children[1]->children[0], "u", "String_list", 0, 0);
    const struct ArrowSchema *g = s.children[2];
    CHECK_NODE(g, "+s", "group_of_lists", 0, 2);
    CHECK_NODE(g->children[0], "+l", "Int32_list_in_group", 0, 1);
    CHECK_NODE(g->children[1]->children[0], "u", "String_list_in_group", 0, 0);
    release(&s);
}
END_TEST

/* repeated_no_annotation: required int32 id; optional group phoneNumbers {
 * repeated group phone { required int64 number; optional binary kind
 * (STRING) } }: a repeated group is a list of structs. */
START_TEST(repeated_group)
{
    struct ArrowSchema s;
    export_schema("data/repeated_no_annotation.parquet", NULL, 0, &s);
    CHECK_NODE(&s, "+s", "", 0, 2);
    const struct ArrowSchema *p = s.children[1];
    CHECK_NODE(p, "+s", "phoneNumbers", N, 1);
    CHECK_NODE(p->children[0], "+l", "phone", 0, 1);
    const struct ArrowSchema *e = p->children[0]->children[0];
    CHECK_NODE(e, "+s", "phone", 0, 2);
    CHECK_NODE(e->children[0], "l", "number", 0, 0);
    CHECK_NODE(e->children[1], "u", "kind", N, 0);
    release(&s);
}
END_TEST

/* map_no_value: required group my_map_no_v (MAP) { repeated group key_value
 * { required int32 key } } reads as a list of keys. */
START_TEST(map_without_value)
{
    struct ArrowSchema s;
    export_schema("data/map_no_value.parquet", NULL, 0, &s);
    CHECK_NODE(&s, "+s", "", 0, 3);
    CHECK_NODE(s.children[0], "+m", "my_map", 0, 1);
    CHECK_NODE(s.children[0]->children[0]->children[1], "i", "value", N, 0);
    CHECK_NODE(s.children[1], "+l", "my_map_no_v", 0, 1);
    CHECK_NODE(s.children[1]->children[0], "i", "key", 0, 0);
    CHECK_NODE(s.children[2], "+l", "my_list", 0, 1);
    CHECK_NODE(s.children[2]->children[0], "i", "element", 0, 0);
    release(&s);
}
END_TEST

/* byte_array_decimal: optional binary value (DECIMAL(4,2)) with field_id 6:
 * the metadata is int32 1, int32 16 "PARQUET:field_id", int32 1 "6". */
START_TEST(field_id_metadata)
{
    struct ArrowSchema s;
    export_schema("data/byte_array_decimal.parquet", NULL, 0, &s);
    CHECK_NODE(s.children[0], "d:4,2", "value", N, 0);
    const char *m = s.children[0]->metadata;
    ck_assert_ptr_nonnull(m);
    int32_t v;
    memcpy(&v, m, 4);
    ck_assert_int_eq(v, 1);
    memcpy(&v, m + 4, 4);
    ck_assert_int_eq(v, 16);
    ck_assert_int_eq(memcmp(m + 8, "PARQUET:field_id", 16), 0);
    memcpy(&v, m + 24, 4);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(m[28], '6');
    release(&s);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Projection, ownership, errors
 * ------------------------------------------------------------------------- */

/* nullable.impala leaves: 0 id, 1 int_array, 2 int_array_Array, 3-4 int_map,
 * 5-6 int_Map_Array, 7-12 nested_struct (12 is nested_struct.g...H.i). */
START_TEST(projection)
{
    struct ArrowSchema s;
    const uint32_t cols[] = {12, 0, 12};
    export_schema("data/nullable.impala.parquet", cols, 3, &s);
    CHECK_NODE(&s, "+s", "", 0, 2);
    CHECK_NODE(s.children[0], "l", "id", N, 0);
    CHECK_NODE(s.children[1], "+s", "nested_struct", N, 4); /* whole, not just the leaf */
    release(&s);

    const uint32_t one[] = {4};
    export_schema("data/nullable.impala.parquet", one, 1, &s);
    CHECK_NODE(&s, "+s", "", 0, 1);
    CHECK_NODE(s.children[0], "+m", "int_map", N, 1);
    release(&s);

    export_schema("data/nullable.impala.parquet", one, 0, &s); /* empty selection */
    CHECK_NODE(&s, "+s", "", 0, 0);
    release(&s);
}
END_TEST

START_TEST(bad_arguments)
{
    pq_metadata *md = open_footer("data/nullable.impala.parquet");
    struct ArrowSchema s;
    pq_error err = {0};
    const uint32_t cols[] = {0, 13};
    memset(&s, 0xab, sizeof s);
    ck_assert_int_eq(pq_metadata_arrow_schema(md, cols, 2, &s, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(s.release);
    ck_assert_ptr_nonnull(strstr(err.message, "out of range"));
    ck_assert_int_eq(pq_metadata_arrow_schema(NULL, NULL, 0, &s, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_metadata_arrow_schema(md, NULL, 0, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_metadata_arrow_schema(md, NULL, 2, &s, &err), PQ_ERR_INVALID_ARGUMENT);
    pq_metadata_release(md);
}
END_TEST

/* The spec lets a consumer move a child out and release it later, after
 * the parent; both must free exactly their own memory (LSan checks). */
START_TEST(move_child_out)
{
    struct ArrowSchema s, moved;
    export_schema("data/nullable.impala.parquet", NULL, 0, &s);
    moved = *s.children[5]; /* nested_struct, with its own subtree */
    s.children[5]->release = NULL;
    release(&s);
    CHECK_NODE(&moved, "+s", "nested_struct", N, 4);
    CHECK_NODE(moved.children[3], "+m", "g", N, 1);
    /* and a grandchild moved out of the moved child */
    struct ArrowSchema g = *moved.children[3];
    moved.children[3]->release = NULL;
    release(&moved);
    CHECK_NODE(g.children[0], "+s", "g", 0, 2);
    release(&g);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Format strings (Arrow C Data Interface spec)
 * ------------------------------------------------------------------------- */

static const char *fmt_of(pq_arrow_type t)
{
    static char buf[40];
    ck_assert_int_eq(pq_arrow_format(&t, buf, sizeof buf), PQ_OK);
    return buf;
}

static pq_arrow_type at(uint8_t id)
{
    pq_arrow_type t = {0};
    t.id = id;
    return t;
}

START_TEST(format_strings)
{
    static const struct {
        uint8_t id;
        const char *fmt;
    } simple[] = {
        {PQ_ARROW_NA, "n"},       {PQ_ARROW_BOOL, "b"},    {PQ_ARROW_INT8, "c"},
        {PQ_ARROW_UINT8, "C"},    {PQ_ARROW_INT16, "s"},   {PQ_ARROW_UINT16, "S"},
        {PQ_ARROW_INT32, "i"},    {PQ_ARROW_UINT32, "I"},  {PQ_ARROW_INT64, "l"},
        {PQ_ARROW_UINT64, "L"},   {PQ_ARROW_FLOAT16, "e"}, {PQ_ARROW_FLOAT32, "f"},
        {PQ_ARROW_FLOAT64, "g"},  {PQ_ARROW_STRING, "u"},  {PQ_ARROW_BINARY, "z"},
        {PQ_ARROW_DATE32, "tdD"}, {PQ_ARROW_STRUCT, "+s"}, {PQ_ARROW_LIST, "+l"},
        {PQ_ARROW_MAP, "+m"},     {PQ_ARROW_EXTENSION_JSON, "u"},
    };
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        ck_assert_str_eq(fmt_of(at(simple[i].id)), simple[i].fmt);

    pq_arrow_type t = at(PQ_ARROW_FIXED_SIZE_BINARY);
    t.byte_width = 12;
    ck_assert_str_eq(fmt_of(t), "w:12");
    t = at(PQ_ARROW_EXTENSION_UUID);
    t.byte_width = 16;
    ck_assert_str_eq(fmt_of(t), "w:16");
    t = at(PQ_ARROW_DECIMAL128);
    t.precision = 38;
    t.scale = 9;
    ck_assert_str_eq(fmt_of(t), "d:38,9");
    t.id = PQ_ARROW_DECIMAL256;
    t.precision = 76;
    t.scale = 0;
    ck_assert_str_eq(fmt_of(t), "d:76,0,256");
    t = at(PQ_ARROW_TIME32);
    t.unit = PQ_UNIT_MILLIS;
    ck_assert_str_eq(fmt_of(t), "ttm");
    t = at(PQ_ARROW_TIME64);
    t.unit = PQ_UNIT_MICROS;
    ck_assert_str_eq(fmt_of(t), "ttu");
    t.unit = PQ_UNIT_NANOS;
    ck_assert_str_eq(fmt_of(t), "ttn");
    t = at(PQ_ARROW_TIMESTAMP);
    t.unit = PQ_UNIT_MILLIS;
    ck_assert_str_eq(fmt_of(t), "tsm:");
    t.unit = PQ_UNIT_MICROS;
    t.utc = true;
    ck_assert_str_eq(fmt_of(t), "tsu:UTC");
    t.unit = PQ_UNIT_NANOS;
    ck_assert_str_eq(fmt_of(t), "tsn:UTC");
}
END_TEST

START_TEST(format_errors)
{
    char buf[40];
    pq_arrow_type t = at(PQ_ARROW_UNSUPPORTED);
    ck_assert_int_eq(pq_arrow_format(&t, buf, sizeof buf), PQ_ERR_UNSUPPORTED);
    t = at(200);
    ck_assert_int_eq(pq_arrow_format(&t, buf, sizeof buf), PQ_ERR_UNSUPPORTED);
    t = at(PQ_ARROW_TIME32);
    t.unit = PQ_UNIT_NANOS; /* time32 holds s or ms only */
    ck_assert_int_eq(pq_arrow_format(&t, buf, sizeof buf), PQ_ERR_UNSUPPORTED);
    t = at(PQ_ARROW_TIMESTAMP);
    t.unit = PQ_UNIT_MICROS;
    t.utc = true;
    ck_assert_int_eq(pq_arrow_format(&t, buf, 7), PQ_ERR_INVALID_ARGUMENT); /* "tsu:UTC" needs 8 */
    ck_assert_int_eq(pq_arrow_format(&t, buf, 8), PQ_OK);
    ck_assert_int_eq(pq_arrow_format(NULL, buf, 8), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_arrow_format(&t, NULL, 8), PQ_ERR_INVALID_ARGUMENT);
}
END_TEST

static Suite *arrow_schema_suite(void)
{
    Suite *s = suite_create("arrow_schema");
    TCase *tc = tcase_create("corpus");
    tcase_add_test(tc, flat_alltypes);
    tcase_add_test(tc, three_level_lists);
    tcase_add_test(tc, maps);
    tcase_add_test(tc, legacy_two_level_list);
    tcase_add_test(tc, repeated_without_annotation);
    tcase_add_test(tc, repeated_group);
    tcase_add_test(tc, map_without_value);
    tcase_add_test(tc, field_id_metadata);
    tcase_add_test(tc, projection);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, move_child_out);
    suite_add_tcase(s, tc);

    tc = tcase_create("format");
    tcase_add_test(tc, format_strings);
    tcase_add_test(tc, format_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!pq_test_corpus_dir()) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    SRunner *sr = srunner_create(arrow_schema_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
