/*
 * test_variant_filter.c — filters on paths into VARIANT columns through
 * the C reader, on Spark's files (tests/fixtures/variant_spark): shredded
 * (fields typed, `c` and `d.g` shredded as lists, rows left in residual
 * values) and unshredded. Run by scripts/test under ASan+UBSan too: the
 * paths that leave the shredding, the elements picked from shredded
 * arrays and the comparisons by value all pass through here.
 *
 * Oracle: Spark's own JSON rendering of every row (manifest.json), each
 * filter evaluated on it here: a term holds where the value at its path
 * is a number that compares as asked; a filter is an OR of terms.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_path.h"
#include "pqstep.h"

#define SPARK PQ_SOURCE_DIR "/tests/fixtures/variant_spark/"

typedef struct term {
    const char *steps; /* after "v" */
    char op;           /* '<' or '>' or '=' */
    double lit;
} term;

typedef struct filter {
    const char *text;
    term terms[3];
} filter;

static const filter FILTERS[] = {
    {"v.a >= 300", {{".a", 'g', 300}}},
    {"v.c[0] > 100", {{".c[0]", '>', 100}}},
    {"v.c[1] < 40", {{".c[1]", '<', 40}}},
    {"v.d.g[1].h > -20", {{".d.g[1].h", '>', -20}}},
    {"v.d.e < 20.5", {{".d.e", '<', 20.5}}},
    {"v.c[0] > 295 or v.c[1] < 3 or v.d.g[0].h = 10", {{".c[0]", '>', 295}, {".c[1]", '<', 3}, {".d.g[0].h", '=', 10}}},
    {"v.nope[3] = 1", {{".nope[3]", '=', 1}}},
};

static bool term_holds(json_t *row, const term *t)
{
    json_t *v = pq_test_json_at(row, t->steps);
    if (!json_is_number(v)) return false;
    double x = json_number_value(v);
    switch (t->op) {
    case '<': return x < t->lit;
    case '>': return x > t->lit;
    case 'g': return x >= t->lit;
    default: return x == t->lit;
    }
}

/* The ids the reader keeps for `text` on `file`, as a bitmap over ids < cap. */
static size_t read_ids(const char *file, const char *text, bool prune, bool *hit, size_t cap)
{
    pq_error err;
    pq_expr *e = pq_expr_parse(text, &err);
    ck_assert_msg(e, "%s: %s", text, err.message);
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.filter = e;
    if (!prune) o.prune_disable = ~0u;
    pq_reader *r = pq_reader_open_path(file, &o, &err);
    ck_assert_msg(r && pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s: %s", text, err.message);
    size_t n = 0;
    for (;;) {
        struct ArrowArray a;
        struct ArrowSchema s;
        ck_assert_msg(pq_reader_next_batch(r, 100, &a, &s, &err) == PQ_OK, "%s: %s", text, err.message);
        if (!a.release) break;
        ck_assert_str_eq(s.children[0]->name, "id");
        ck_assert_str_eq(s.children[0]->format, "i");
        const struct ArrowArray *id = a.children[0];
        const int32_t *ids = (const int32_t *)id->buffers[1] + id->offset;
        for (int64_t i = 0; i < a.length; i++) {
            ck_assert(ids[i] >= 0 && (size_t)ids[i] < cap);
            hit[ids[i]] = true;
            n++;
        }
        a.release(&a);
        s.release(&s);
    }
    pq_reader_close(r);
    pq_expr_free(e);
    return n;
}

static void check_file(const char *name)
{
    json_error_t jerr;
    json_t *manifest = json_load_file(SPARK "manifest.json", 0, &jerr);
    ck_assert_msg(manifest, "manifest.json: %s", jerr.text);
    json_t *rows = json_object_get(json_object_get(manifest, "files"), name);
    ck_assert(json_is_object(rows));
    size_t cap = 4096, checked = 0;
    bool *want = calloc(cap, 1), *got = calloc(cap, 1);
    char file[1024];
    snprintf(file, sizeof file, SPARK "%s", name);
    for (size_t f = 0; f < sizeof FILTERS / sizeof *FILTERS; f++) {
        memset(want, 0, cap);
        size_t nwant = 0;
        const char *key;
        json_t *text;
        json_object_foreach(rows, key, text) {
            long id = strtol(key, NULL, 10);
            ck_assert(id >= 0 && (size_t)id < cap);
            if (!json_is_string(text)) continue; /* a null row */
            json_t *row = json_loads(json_string_value(text), JSON_DECODE_ANY, &jerr);
            ck_assert_msg(row, "row %s: %s", key, jerr.text);
            bool holds = false;
            for (size_t t = 0; t < 3 && FILTERS[f].terms[t].steps; t++) holds |= term_holds(row, &FILTERS[f].terms[t]);
            want[id] = holds;
            nwant += holds;
            json_decref(row);
        }
        for (int prune = 0; prune < 2; prune++) {
            memset(got, 0, cap);
            size_t n = read_ids(file, FILTERS[f].text, prune, got, cap);
            ck_assert_msg(n == nwant, "%s: %s: %zu rows, Spark's rows say %zu", name, FILTERS[f].text, n, nwant);
            ck_assert_msg(!memcmp(got, want, cap), "%s: %s: other rows than Spark's", name, FILTERS[f].text);
            checked += n;
        }
    }
    free(want);
    free(got);
    json_decref(manifest);
    printf("test_variant_filter: %s: %zu filters, %zu rows equal Spark's\n", name, sizeof FILTERS / sizeof *FILTERS,
           checked);
}

START_TEST(spark_shredded)
{
    check_file("spark_shredded.parquet");
}
END_TEST

START_TEST(spark_unshredded)
{
    check_file("spark_plain.parquet");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("variant_filter");
    TCase *tc = tcase_create("spark");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, spark_shredded);
    tcase_add_test(tc, spark_unshredded);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
