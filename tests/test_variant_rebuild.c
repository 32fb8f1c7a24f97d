/*
 * test_variant_rebuild.c — shredded VARIANT columns rebuilt by the reader
 * (reader/variant_rebuild.c) through the C API, over parquet-testing's
 * shredded_variant/ (cases.json: 137 cases):
 *  - every row of every case read with default options: the field is
 *    arrow.parquet.variant (metadata, value), and each row rendered as
 *    JSON (pq_variant_to_json) equals the expected .variant.bin rendered
 *    the same way (the oracle is the writer's expected variant; objects are
 *    sorted by name in both encodings and integer widths do not show in
 *    JSON, so equal values give equal text);
 *  - the cases cases.json marks as errors fail the read with
 *    PQ_ERR_CORRUPT_DATA or PQ_ERR_UNSUPPORTED, and no batch;
 *  - with variant_storage set, the same files read as stored (a struct
 *    with typed_value where shredded).
 * Run under ASan/UBSan too, the rebuild's memory is checked on every case.
 * Python's independent rebuild (pqstep.variant) is compared in
 * tests/py/test_variant.py.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_path.h"
#include "pqstep.h"
#include "test_util.h"

/* Row i of binary child k of struct array a: bytes and length; false when null. */
static bool child_bytes(const struct ArrowArray *a, int k, int64_t i, const uint8_t **p, size_t *n)
{
    const struct ArrowArray *c = a->children[k];
    int64_t j = c->offset + a->offset + i;
    if (c->null_count && c->buffers[0] && !((((const uint8_t *)c->buffers[0])[j >> 3] >> (j & 7)) & 1)) return false;
    const int32_t *o = (const int32_t *)c->buffers[1] + j;
    *p = (const uint8_t *)c->buffers[2] + o[0];
    *n = (size_t)(o[1] - o[0]);
    return true;
}

static char *json_of(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen)
{
    size_t len = 0;
    pq_error err;
    pq_status st = pq_variant_to_json(m, mlen, v, vlen, NULL, 0, &len, &err);
    ck_assert_msg(st == PQ_OK, "%s", err.message);
    char *out = malloc(len + 1);
    ck_assert_int_eq(pq_variant_to_json(m, mlen, v, vlen, out, len + 1, &len, &err), PQ_OK);
    return out;
}

/* The expected row: the JSON of the variant in `file`, or NULL for none. */
static char *expected_json(const char *dir, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len = 0;
    uint8_t *b = pq_test_read_file(path, &len);
    ck_assert_msg(b, "cannot read %s", path);
    pq_error err;
    size_t ml = pq_variant_metadata_size(b, len, &err);
    ck_assert_msg(ml > 0, "%s: %s", path, err.message);
    char *j = json_of(b, ml, b + ml, len - ml);
    free(b);
    return j;
}

static int variant_field(const struct ArrowSchema *s)
{
    for (int64_t k = 0; k < s->n_children; k++)
        if (strcmp(s->children[k]->name, "id") != 0) return (int)k;
    return -1;
}

/* Read `path` whole; each batch's variant rows appended to rows[] as JSON
 * (NULL for a null value). Returns the read's status. */
static pq_status read_rows(const char *path, bool storage, char ***rows, size_t *n, bool *is_struct2,
                           pq_error *err)
{
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.variant_storage = storage;
    pq_reader *r = pq_reader_open_path(path, &o, err);
    if (!r) return err->code;
    pq_status st = pq_reader_advance_to(r, PQ_STAGE_DECODE, err);
    *n = 0;
    *rows = NULL;
    while (st == PQ_OK) {
        struct ArrowArray a;
        struct ArrowSchema s;
        st = pq_reader_next_batch(r, 3, &a, &s, err);
        if (st != PQ_OK || !a.release) break;
        int k = variant_field(&s);
        ck_assert_int_ge(k, 0);
        const struct ArrowSchema *f = s.children[k];
        const struct ArrowArray *v = a.children[k];
        *is_struct2 = f->n_children == 2 && !strcmp(f->children[0]->name, "metadata") &&
                      !strcmp(f->children[1]->name, "value");
        if (!storage) {
            ck_assert_msg(*is_struct2, "%s: field of %lld children", path, (long long)f->n_children);
            ck_assert_ptr_nonnull(f->metadata);
            /* the extension name is among the field's metadata */
            int32_t cnt;
            memcpy(&cnt, f->metadata, 4);
            bool named = false;
            const char *at = f->metadata + 4;
            for (int32_t i = 0; i < cnt; i++) {
                int32_t kl, vl;
                memcpy(&kl, at, 4);
                memcpy(&vl, at + 4 + kl, 4);
                named |= kl == 20 && !memcmp(at + 4, "ARROW:extension:name", 20) && vl == 21 &&
                         !memcmp(at + 8 + kl, "arrow.parquet.variant", 21);
                at += 8 + kl + vl;
            }
            ck_assert_msg(named, "%s: not marked arrow.parquet.variant", path);
            *rows = realloc(*rows, (*n + (size_t)a.length) * sizeof **rows);
            for (int64_t i = 0; i < a.length; i++) {
                const uint8_t *m, *val;
                size_t ml, vl;
                bool row = !v->null_count || !v->buffers[0] ||
                           (((const uint8_t *)v->buffers[0])[(v->offset + i) >> 3] >> ((v->offset + i) & 7)) & 1;
                if (row && child_bytes(v, 0, i, &m, &ml) && child_bytes(v, 1, i, &val, &vl))
                    (*rows)[(*n)++] = json_of(m, ml, val, vl);
                else
                    (*rows)[(*n)++] = NULL;
            }
        }
        a.release(&a);
        s.release(&s);
    }
    pq_reader_close(r);
    return st;
}

START_TEST(test_shredded_cases)
{
    char *dir = pq_test_corpus_path("shredded_variant");
    char cases_path[4096];
    snprintf(cases_path, sizeof cases_path, "%s/cases.json", dir);
    json_error_t jerr;
    json_t *cases = json_load_file(cases_path, 0, &jerr);
    if (!cases) {
        printf("test_variant_rebuild: skipped: no %s\n", cases_path);
        free(dir);
        return;
    }
    size_t equal = 0, refused = 0, stored = 0;
    for (size_t c = 0; c < json_array_size(cases); c++) {
        json_t *cs = json_array_get(cases, c);
        const char *file = json_string_value(json_object_get(cs, "parquet_file"));
        if (!file || strstr(file, "INVALID")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, file);
        char **rows = NULL;
        size_t n = 0;
        bool two = false;
        pq_error err;
        pq_status st = read_rows(path, false, &rows, &n, &two, &err);
        if (json_object_get(cs, "error_message")) {
            ck_assert_msg(st == PQ_ERR_CORRUPT_DATA || st == PQ_ERR_UNSUPPORTED, "%s: read (%d) without an error",
                          file, (int)st);
            refused++;
        } else {
            ck_assert_msg(st == PQ_OK, "%s: %s", file, err.message);
            json_t *many = json_object_get(cs, "variant_files");
            size_t want_n = many ? json_array_size(many) : 1;
            ck_assert_uint_eq(n, want_n);
            for (size_t i = 0; i < want_n; i++) {
                json_t *fj = many ? json_array_get(many, i) : json_object_get(cs, "variant_file");
                const char *vf = json_string_value(fj);
                if (!vf) {
                    ck_assert_msg(rows[i] == NULL, "%s row %zu: %s, expected no value", file, i, rows[i]);
                    continue;
                }
                char *want = expected_json(dir, vf);
                ck_assert_msg(rows[i] && !strcmp(rows[i], want), "%s row %zu: %s, expected %s", file, i,
                              rows[i] ? rows[i] : "(null)", want);
                free(want);
                equal++;
            }
            /* the stored layout, on request */
            char **none = NULL;
            size_t nn = 0;
            bool two_stored = false;
            ck_assert_int_eq(read_rows(path, true, &none, &nn, &two_stored, &err), PQ_OK);
            free(none);
            stored++;
        }
        for (size_t i = 0; i < n; i++) free(rows[i]);
        free(rows);
    }
    json_decref(cases);
    free(dir);
    ck_assert_uint_ge(equal, 128);
    ck_assert_uint_ge(refused, 6);
    printf("test_variant_rebuild: %zu rows equal their expected variants, %zu error cases refused, %zu files read as "
           "stored\n", equal, refused, stored);
}
END_TEST

/* Project `path` of case `file` (rows given by `rows` expected files, NULL
 * for a null row): only pq_variant_path_leaves' leaves read, the path cut
 * by pq_variant_path_extract, each row equal to the expected variant's
 * value at the path (JSON, compared as values). Returns rows checked. */
static size_t check_path(const char *dir, const char *file, const char *const *rows, size_t nrows, const char *path)
{
    char fpath[4096];
    snprintf(fpath, sizeof fpath, "%s/%s", dir, file);
    pq_error err;
    pq_reader_options o;
    pq_reader_options_init(&o);
    pq_reader *r = pq_reader_open_path(fpath, &o, &err);
    ck_assert_msg(r, "%s", err.message);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err), PQ_OK);
    const pq_metadata *md = pq_reader_metadata(r);
    size_t n = 0;
    ck_assert_int_eq(pq_variant_path_leaves(md, path, NULL, 0, &n, &err), PQ_OK);
    uint32_t leaves[64];
    ck_assert_uint_le(n, 64);
    ck_assert_int_eq(pq_variant_path_leaves(md, path, leaves, 64, &n, &err), PQ_OK);
    pq_reader_close(r);
    o.columns = leaves;
    o.columns_len = n;
    r = pq_reader_open_path(fpath, &o, &err);
    ck_assert_msg(r && pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s", err.message);
    size_t row = 0;
    const char *steps = path + strcspn(path, ".[");
    for (;;) {
        struct ArrowArray a, x;
        struct ArrowSchema s, xs;
        ck_assert_int_eq(pq_reader_next_batch(r, 2, &a, &s, &err), PQ_OK);
        if (!a.release) break;
        ck_assert_int_eq(s.n_children, 1);
        ck_assert_msg(pq_variant_path_extract(a.children[0], s.children[0], path, &x, &xs, &err) == PQ_OK, "%s: %s",
                      path, err.message);
        ck_assert_str_eq(xs.name, path);
        ck_assert_int_eq(x.length, a.length);
        for (int64_t i = 0; i < x.length; i++, row++) {
            ck_assert_uint_lt(row, nrows);
            json_t *want = NULL, *whole = NULL;
            if (rows[row]) {
                char *text = expected_json(dir, rows[row]);
                whole = json_loads(text, JSON_DECODE_ANY, NULL);
                free(text);
                want = pq_test_json_at(whole, steps);
            }
            const uint8_t *m, *v;
            size_t ml, vl;
            bool valid = !x.null_count || !x.buffers[0] || ((((const uint8_t *)x.buffers[0])[i >> 3] >> (i & 7)) & 1);
            if (!valid) {
                ck_assert_msg(want == NULL, "%s %s row %zu: null, expected a value", file, path, row);
            } else {
                ck_assert(child_bytes(&x, 0, i, &m, &ml) && child_bytes(&x, 1, i, &v, &vl));
                char *got = json_of(m, ml, v, vl);
                json_t *g = json_loads(got, JSON_DECODE_ANY, NULL);
                ck_assert_msg(want && g && json_equal(g, want), "%s %s row %zu: %s", file, path, row, got);
                json_decref(g);
                free(got);
            }
            json_decref(whole);
        }
        /* the whole batch projected: the column replaced by the path's,
         * the same rows as extracted */
        struct ArrowArray pb;
        struct ArrowSchema ps;
        const char *const paths[] = {path};
        ck_assert_msg(pq_variant_project_batch(&a, &s, paths, 1, NULL, 0, &pb, &err) == PQ_OK, "%s", err.message);
        ck_assert_ptr_null(a.release); /* taken over */
        ck_assert_int_eq(pb.n_children, 1);
        ck_assert_int_eq(pb.children[0]->length, x.length);
        for (int64_t i = 0; i < x.length; i++) {
            const uint8_t *m1, *v1, *m2, *v2;
            size_t ml1, vl1, ml2, vl2;
            bool g1 = child_bytes(&x, 0, i, &m1, &ml1) && child_bytes(&x, 1, i, &v1, &vl1);
            bool g2 = child_bytes(pb.children[0], 0, i, &m2, &ml2) && child_bytes(pb.children[0], 1, i, &v2, &vl2);
            ck_assert_int_eq(g1, g2);
            if (g1) ck_assert(ml1 == ml2 && vl1 == vl2 && !memcmp(m1, m2, ml1) && !memcmp(v1, v2, vl1));
        }
        ck_assert_int_eq(pq_variant_project_schema(&s, paths, 1, NULL, 0, &ps, &err), PQ_OK);
        ck_assert_int_eq(ps.n_children, 1);
        ck_assert_str_eq(ps.children[0]->name, path);
        x.release(&x);
        xs.release(&xs);
        pb.release(&pb);
        ps.release(&ps);
    }
    ck_assert_uint_eq(row, nrows);
    pq_reader_close(r);
    return row;
}

START_TEST(test_path_projection)
{
    char *dir = pq_test_corpus_path("shredded_variant");
    static const char *const one044[] = {"case-044_row-0.variant.bin"};
    static const char *const rows045[] = {"case-045_row-0.variant.bin", "case-045_row-1.variant.bin",
                                          "case-045_row-2.variant.bin", "case-045_row-3.variant.bin"};
    static const char *const p044[] = {"var.c.a", "var.c", "var.d", "var.c.b", "var.zz", "var.c.zz", "var[0]"};
    static const char *const p045[] = {"var[0]", "var[1]", "var[9]", "var[2].d", "var[0][1]", "var.a"};
    size_t checked = 0;
    for (size_t k = 0; k < sizeof p044 / sizeof *p044; k++)
        checked += check_path(dir, "case-044.parquet", one044, 1, p044[k]);
    for (size_t k = 0; k < sizeof p045 / sizeof *p045; k++)
        checked += check_path(dir, "case-045.parquet", rows045, 4, p045[k]);
    /* bad paths */
    char fpath[4096];
    snprintf(fpath, sizeof fpath, "%s/case-044.parquet", dir);
    pq_reader *r = pq_reader_open_path(fpath, NULL, NULL);
    pq_error err;
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err), PQ_OK);
    size_t n;
    static const char *const bad[] = {"var.", "var.c..a", "var[x]", "var[1", "id.a", "nope.a", "var"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        ck_assert_msg(pq_variant_path_leaves(pq_reader_metadata(r), bad[k], NULL, 0, &n, &err) ==
                          PQ_ERR_INVALID_ARGUMENT, "%s accepted", bad[k]);
    pq_reader_close(r);
    /* a path into no field of the batch: refused, the batch released */
    r = pq_reader_open_path(fpath, NULL, NULL);
    ck_assert_ptr_nonnull(r);
    struct ArrowArray a, pb;
    struct ArrowSchema s;
    ck_assert_msg(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s", err.message);
    ck_assert_msg(pq_reader_next_batch(r, 2, &a, &s, &err) == PQ_OK && a.release, "%s", err.message);
    const char *const nowhere[] = {"nope.a"};
    ck_assert_int_eq(pq_variant_project_batch(&a, &s, nowhere, 1, NULL, 0, &pb, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(a.release);
    ck_assert_ptr_null(pb.release);
    ck_assert_msg(strstr(err.message, "nope.a"), "%s", err.message);
    s.release(&s);
    pq_reader_close(r);
    free(dir);
    printf("test_variant_rebuild: %zu projected path rows equal their expected values\n", checked);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("variant_rebuild");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 0);
    if (pq_test_corpus_dir()) tcase_add_test(tc, test_shredded_cases);
    if (pq_test_corpus_dir()) tcase_add_test(tc, test_path_projection);
    else printf("test_variant_rebuild: skipped: no parquet-testing corpus (PQSTEP_TEST_CORPUS)\n");
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
