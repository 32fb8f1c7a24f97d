/*
 * test_footer_corpus.c — the footer stage over the whole corpus, through the
 * reader: pq_reader_open_path + pq_reader_advance must reach
 * PQ_STAGE_FOOTER with the row count, row-group count and leaf-column count
 * that manifest.tsv lists (computed by an independent Python reader).
 *
 * bad_data/: only PARQUET-1481 has a broken footer (CATALOG.md: physical type
 * -7 in the schema element and the column metadata); the other files are
 * broken in their pages and must decode their footers like any other file.
 *
 * Encrypted files: a file image ending in the "PARE" magic, opened without
 * keys, is refused with PQ_ERR_ENCRYPTED before any Thrift is read.
 * (Plaintext footers with encrypted column metadata are built with c_glib in
 * test_cglib_hostile.c; real encrypted files are read in test_encryption.c.)
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"
#include "test_util.h"

static pq_test_manifest_row *rows;
static size_t nrows;

/* Files whose footer itself is broken, and how pqstep must say so. */
static const struct broken {
    const char *file;
    pq_status code;
    const char *where; /* substring of the message: struct and field */
} broken_footers[] = {
    {"bad_data/PARQUET-1481.parquet", PQ_ERR_CORRUPT_FOOTER, "SchemaElement[1].type: invalid value -7"},
};

static const struct broken *broken_entry(const char *file)
{
    for (size_t i = 0; i < sizeof broken_footers / sizeof broken_footers[0]; i++)
        if (strcmp(broken_footers[i].file, file) == 0) return &broken_footers[i];
    return NULL;
}

static int is_parquet(const char *file)
{
    size_t n = strlen(file);
    return n > 8 && strcmp(file + n - 8, ".parquet") == 0;
}

/* One manifest row: open, advance to the footer, check the numbers. */
START_TEST(test_manifest_file)
{
    const pq_test_manifest_row *row = &rows[_i];
    if (!is_parquet(row->file)) return; /* the *_expect.csv rows */
    char *path = pq_test_corpus_path(row->file);
    ck_assert_ptr_nonnull(path);
    pq_error err = {0};
    pq_reader *r = pq_reader_open_path(path, NULL, &err);
    ck_assert_msg(r != NULL, "%s: open: %s", row->file, err.message);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_INIT);
    ck_assert_uint_eq(pq_reader_file_size(r), row->bytes);
    pq_status st = pq_reader_advance(r, &err);

    const struct broken *b = broken_entry(row->file);
    if (b) {
        ck_assert_msg(st == b->code, "%s: expected %s, got %s: %s", row->file,
                      pq_status_name(b->code), pq_status_name(st), err.message);
        ck_assert_int_eq(err.code, b->code);
        ck_assert_msg(err.message[0] != '\0', "%s: empty message", row->file);
        ck_assert_msg(strstr(err.message, b->where) != NULL, "%s: message does not name %s: %s",
                      row->file, b->where, err.message);
        /* a failed stage leaves the reader where it was */
        ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_INIT);
        ck_assert_ptr_null(pq_reader_metadata(r));
    } else {
        ck_assert_msg(st == PQ_OK, "%s: footer stage: [%s] %s", row->file, pq_status_name(st),
                      err.message);
        ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_FOOTER);
        pq_metadata *md = pq_reader_metadata(r);
        ck_assert_ptr_nonnull(md);
        const pq_file_metadata *fm = pq_metadata_file(md);
        ck_assert_msg(fm->num_rows == row->num_rows, "%s: num_rows %lld, manifest %lld", row->file,
                      (long long)fm->num_rows, (long long)row->num_rows);
        ck_assert_msg((int64_t)fm->row_groups_len == row->num_row_groups,
                      "%s: row groups %u, manifest %lld", row->file, fm->row_groups_len,
                      (long long)row->num_row_groups);
        ck_assert_msg((int64_t)pq_metadata_schema(md)->leaves_len == row->num_leaf_columns,
                      "%s: leaves %u, manifest %lld", row->file, pq_metadata_schema(md)->leaves_len,
                      (long long)row->num_leaf_columns);
        /* every row group has one chunk per leaf */
        for (uint32_t g = 0; g < fm->row_groups_len; g++)
            ck_assert_uint_eq(fm->row_groups[g].columns_len, pq_metadata_schema(md)->leaves_len);
        pq_footer_stats ss;
        pq_reader_footer_stats(r, &ss, sizeof ss);
        ck_assert_uint_eq(ss.parses, 1);
        ck_assert_uint_ge(ss.io.bytes_read, 12);
        ck_assert_uint_le(ss.io.bytes_read, row->bytes);
    }
    pq_reader_close(r);
    free(path);
}
END_TEST

/* The same files through memory, with a tail read too small to hold the
 * footer (forces the second read), must give the same numbers. */
START_TEST(test_manifest_file_memory_small_tail)
{
    const pq_test_manifest_row *row = &rows[_i];
    if (!is_parquet(row->file) || broken_entry(row->file)) return;
    char *path = pq_test_corpus_path(row->file);
    size_t len = 0;
    uint8_t *file = pq_test_read_file(path, &len);
    ck_assert_msg(file != NULL, "cannot read %s", path);
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.footer_read_size = 16;
    pq_error err = {0};
    pq_reader *r = pq_reader_open_memory(file, len, &opts, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    ck_assert_msg(pq_reader_advance(r, &err) == PQ_OK, "%s: %s", row->file, err.message);
    const pq_file_metadata *fm = pq_metadata_file(pq_reader_metadata(r));
    ck_assert_int_eq(fm->num_rows, row->num_rows);
    ck_assert_int_eq((int64_t)fm->row_groups_len, row->num_row_groups);
    ck_assert_int_eq((int64_t)pq_metadata_schema(pq_reader_metadata(r))->leaves_len,
                     row->num_leaf_columns);
    pq_footer_stats ss;
    pq_reader_footer_stats(r, &ss, sizeof ss);
    ck_assert_uint_eq(ss.io.reads, 2); /* the 16-byte tail, then the rest of the footer */
    pq_reader_close(r);
    free(file);
    free(path);
}
END_TEST

/* The list of broken footers is complete and every bad_data file is in the
 * manifest, so that the per-file checks above cover bad_data/ entirely. */
START_TEST(test_bad_data_accounted)
{
    size_t bad = 0;
    for (size_t i = 0; i < nrows; i++)
        if (strncmp(rows[i].file, "bad_data/", 9) == 0) bad++;
    ck_assert_uint_ge(bad, 8);
    for (size_t i = 0; i < sizeof broken_footers / sizeof broken_footers[0]; i++) {
        int found = 0;
        for (size_t j = 0; j < nrows; j++) found |= strcmp(rows[j].file, broken_footers[i].file) == 0;
        ck_assert_msg(found, "%s is not in the manifest", broken_footers[i].file);
    }
}
END_TEST

/* The same broken footer through pq_metadata_parse directly. */
START_TEST(test_parquet_1481_direct)
{
    char *path = pq_test_corpus_path("bad_data/PARQUET-1481.parquet");
    size_t len = 0, flen = 0;
    uint8_t *file = pq_test_read_file(path, &len);
    ck_assert_ptr_nonnull(file);
    const uint8_t *footer = pq_test_footer_span(file, len, &flen);
    ck_assert_ptr_nonnull(footer);
    pq_error err = {0};
    ck_assert_ptr_null(pq_metadata_parse(footer, flen, NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_CORRUPT_FOOTER);
    ck_assert_msg(strstr(err.message, "SchemaElement[1].type: invalid value -7"), "%s",
                  err.message);
    free(file);
    free(path);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Encrypted footers ("PARE")
 * ------------------------------------------------------------------------- */

/* An encrypted-footer file: "PARE", bytes, a FileCryptoMetaData + encrypted
 * footer of `flen` bytes, its length, "PARE". */
static uint8_t *pare_image(size_t *len, uint32_t flen)
{
    size_t n = 4 + 100 + flen + 8;
    uint8_t *img = malloc(n);
    memcpy(img, "PARE", 4);
    for (size_t i = 4; i < n - 8; i++) img[i] = (uint8_t)(i * 37 + 11);
    img[n - 8] = (uint8_t)flen;
    img[n - 7] = (uint8_t)(flen >> 8);
    img[n - 6] = (uint8_t)(flen >> 16);
    img[n - 5] = (uint8_t)(flen >> 24);
    memcpy(img + n - 4, "PARE", 4);
    *len = n;
    return img;
}

START_TEST(test_pare_reader)
{
    size_t len;
    uint8_t *img = pare_image(&len, 60);
    pq_error err = {0};
    pq_reader *r = pq_reader_open_memory(img, len, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_ENCRYPTED);
    ck_assert_int_eq(err.code, PQ_ERR_ENCRYPTED);
    ck_assert_msg(strstr(err.message, "the footer is encrypted"), "%s", err.message);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_INIT);
    ck_assert_ptr_null(pq_reader_metadata(r));
    pq_reader_close(r);
    free(img);
}
END_TEST

/* A footer length that does not even fit the file: still "encrypted", the
 * magic is looked at first. */
START_TEST(test_pare_reader_bogus_length)
{
    size_t len;
    uint8_t *img = pare_image(&len, 60);
    img[len - 8] = 0xff; /* length 0x7fffffff */
    img[len - 7] = 0xff;
    img[len - 6] = 0xff;
    img[len - 5] = 0x7f;
    pq_error err = {0};
    pq_reader *r = pq_reader_open_memory(img, len, NULL, &err);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_ENCRYPTED);
    ck_assert_msg(strstr(err.message, "the footer is encrypted"), "%s", err.message);
    pq_reader_close(r);
    free(img);
}
END_TEST

START_TEST(test_pare_parse_tail)
{
    size_t len;
    uint8_t *img = pare_image(&len, 60);
    pq_error err = {0};
    size_t needed = 12345;
    ck_assert_ptr_null(pq_metadata_parse_tail(img, len, NULL, &needed, &err));
    ck_assert_int_eq(err.code, PQ_ERR_ENCRYPTED);
    ck_assert_msg(strstr(err.message, "the footer is encrypted"), "%s", err.message);
    /* just the last 8 bytes are enough to tell */
    ck_assert_ptr_null(pq_metadata_parse_tail(img + len - 8, 8, NULL, &needed, &err));
    ck_assert_int_eq(err.code, PQ_ERR_ENCRYPTED);
    free(img);
}
END_TEST

/* A real corpus file whose trailing magic is replaced by "PARE". */
START_TEST(test_pare_on_real_file)
{
    char *path = pq_test_corpus_path("data/alltypes_plain.parquet");
    size_t len = 0;
    uint8_t *file = pq_test_read_file(path, &len);
    ck_assert_ptr_nonnull(file);
    memcpy(file + len - 4, "PARE", 4);
    pq_error err = {0};
    pq_reader *r = pq_reader_open_memory(file, len, NULL, &err);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_ENCRYPTED);
    ck_assert_msg(strstr(err.message, "the footer is encrypted"), "%s", err.message);
    pq_reader_close(r);
    free(file);
    free(path);
}
END_TEST

static Suite *corpus_suite(void)
{
    Suite *s = suite_create("footer_corpus");
    TCase *tc = tcase_create("manifest");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_loop_test(tc, test_manifest_file, 0, (int)nrows);
    tcase_add_loop_test(tc, test_manifest_file_memory_small_tail, 0, (int)nrows);
    tcase_add_test(tc, test_bad_data_accounted);
    tcase_add_test(tc, test_parquet_1481_direct);
    suite_add_tcase(s, tc);
    TCase *enc = tcase_create("encrypted");
    tcase_set_timeout(enc, 0); /* no time limit */
    tcase_add_test(enc, test_pare_reader);
    tcase_add_test(enc, test_pare_reader_bogus_length);
    tcase_add_test(enc, test_pare_parse_tail);
    tcase_add_test(enc, test_pare_on_real_file);
    suite_add_tcase(s, enc);
    return s;
}

int main(void)
{
    if (!pq_test_corpus_dir()) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    rows = pq_test_manifest(&nrows);
    if (!rows || nrows == 0) {
        fprintf(stderr, "manifest.tsv is empty or unreadable\n");
        return 1;
    }
    SRunner *sr = srunner_create(corpus_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    free(rows);
    return failed ? 1 : 0;
}
