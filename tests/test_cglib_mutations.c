/*
 * test_footer_mutations.c — corpus footers, cut short and with bytes
 * flipped, against pq_metadata_parse, with Apache Thrift c_glib as the judge.
 *
 *  - Every truncation of a footer (every length for small footers, a stride
 *    plus the last 64 lengths for big ones) is an error, never a crash; c_glib
 *    rejects the same prefixes.
 *  - Pseudo-random byte flips (fixed seed): pqstep either rejects the bytes
 *    or returns an object that equals c_glib's decode of the same bytes
 *    whenever c_glib accepts them too, with every span inside the footer.
 *    (The reference declines bytes in which a struct repeats a field id:
 *    Thrift leaves that undefined. See pq_cglib_repeated_field.) A rejection
 *    is a corrupt-footer, schema or encryption error with a message.
 *  - The tail: bad magic, a footer length beyond the file, and every short
 *    suffix (PQ_ERR_NEED_DATA with the exact suffix length needed).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cglib_ref.h"
#include "pqstep.h"
#include "test_util.h"

static const char *const targets[] = {
    "data/alltypes_tiny_pages.parquet",       /* 1.7 KB footer, page index offsets */
    "data/nested_structs.rust.parquet",       /* 19 KB footer, 216 leaves */
    "data/delta_binary_packed.parquet",       /* 7.5 KB footer, 66 leaves */
    "data/binary_truncated_min_max.parquet",  /* statistics, is_exact flags, size stats */
    "data/geospatial/geospatial.parquet",     /* geo statistics, 31 row groups */
    "data/sort_columns.parquet",              /* sorting columns */
    "data/unknown-logical-type.parquet",      /* a LogicalType member unknown to the IDL */
    "data/column_chunk_key_value_metadata.parquet",
    "data/data_index_bloom_encoding_stats.parquet",
    "data/datapage_v2.snappy.parquet",
};
#define NTARGETS (sizeof targets / sizeof targets[0])

typedef struct footer {
    uint8_t *file;
    size_t file_len;
    const uint8_t *bytes;
    size_t len;
} footer;

static void load(const char *rel, footer *f)
{
    char *path = pq_test_corpus_path(rel);
    ck_assert_ptr_nonnull(path);
    f->file = pq_test_read_file(path, &f->file_len);
    ck_assert_msg(f->file != NULL, "cannot read %s", path);
    free(path);
    f->bytes = pq_test_footer_span(f->file, f->file_len, &f->len);
    ck_assert_msg(f->bytes != NULL, "%s: no footer", rel);
}

/* ---------------------------------------------------------------------------
 * Truncations
 * ------------------------------------------------------------------------- */

START_TEST(test_truncations)
{
    footer f;
    load(targets[_i], &f);
    /* all lengths of small footers; a stride through big ones plus the end */
    size_t stride = f.len <= 4096 ? 1 : f.len / 1500;
    size_t tried = 0, cglib_checked = 0;
    for (size_t n = 0; n < f.len; n += (n + 64 >= f.len ? 1 : stride)) {
        uint8_t *cut = malloc(n ? n : 1); /* an exact-size copy: ASan sees overreads */
        memcpy(cut, f.bytes, n);
        pq_error err = {0};
        pq_metadata *md = pq_metadata_parse(cut, n, NULL, &err);
        ck_assert_msg(md == NULL, "%s: accepted a %zu-byte prefix of %zu", targets[_i], n, f.len);
        ck_assert_msg(err.code == PQ_ERR_CORRUPT_FOOTER, "%s: prefix %zu: %s: %s", targets[_i], n,
                      pq_status_name(err.code), err.message);
        ck_assert_msg(err.message[0] != '\0', "%s: prefix %zu: empty message", targets[_i], n);
        if (n % 7 == 0 || n + 64 >= f.len) {
            pqtFileMetaData *ref = pq_cglib_decode(cut, n, NULL);
            ck_assert_msg(ref == NULL, "%s: c_glib accepts a %zu-byte prefix", targets[_i], n);
            cglib_checked++;
        }
        free(cut);
        tried++;
    }
    ck_assert_uint_ge(tried, f.len < 1500 ? f.len : 1500);
    ck_assert_uint_gt(cglib_checked, 0);
    /* the whole footer is fine */
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse(f.bytes, f.len, NULL, &err);
    ck_assert_msg(md != NULL, "%s: %s", targets[_i], err.message);
    pq_metadata_release(md);
    free(f.file);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Byte flips
 * ------------------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rng(void)
{
    /* xorshift64*: fixed seed, same sequence on every run */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

typedef struct flip_stats {
    unsigned both_ok, pq_only, cglib_only, both_fail;
} flip_stats;

static void mutate(uint8_t *buf, size_t len)
{
    int kind = (int)(rng() % 4);
    size_t at = (size_t)(rng() % len);
    switch (kind) {
    case 0: buf[at] ^= (uint8_t)(1u << (rng() % 8)); break;            /* one bit */
    case 1: buf[at] = (uint8_t)rng(); break;                           /* one byte */
    case 2: buf[at] = (uint8_t)(rng() % 2 ? 0x00 : 0xff); break;       /* extremes */
    default: /* a small run of bytes */
        for (size_t k = 0, n = 1 + rng() % 4; k < n && at + k < len; k++) buf[at + k] = (uint8_t)rng();
    }
}

static void run_flips(const char *rel, unsigned count, flip_stats *st)
{
    footer f;
    load(rel, &f);
    uint8_t *buf = malloc(f.len);
    for (unsigned t = 0; t < count; t++) {
        memcpy(buf, f.bytes, f.len);
        mutate(buf, f.len);
        if (rng() % 8 == 0) mutate(buf, f.len); /* sometimes two places */

        pq_error err = {0};
        pq_metadata *md = pq_metadata_parse(buf, f.len, NULL, &err);
        pqtFileMetaData *ref = pq_cglib_decode(buf, f.len, NULL);
        if (!md) {
            ck_assert_msg(err.message[0] != '\0', "%s flip %u: empty message", rel, t);
            ck_assert_msg(err.code == PQ_ERR_CORRUPT_FOOTER || err.code == PQ_ERR_SCHEMA ||
                              err.code == PQ_ERR_ENCRYPTED || err.code == PQ_ERR_UNSUPPORTED,
                          "%s flip %u: unexpected status %s: %s", rel, t,
                          pq_status_name(err.code), err.message);
            if (ref) st->cglib_only++;
            else st->both_fail++;
        } else {
            char diff[512];
            size_t blen;
            const uint8_t *own = pq_metadata_footer_bytes(md, &blen);
            ck_assert_msg(pq_check_spans_within(pq_metadata_file(md), own, blen, diff,
                                                sizeof diff) == 0,
                          "%s flip %u: %s", rel, t, diff);
            if (!ref) {
                st->pq_only++;
            } else if (pq_cglib_compare(ref, pq_metadata_file(md), diff, sizeof diff) == 0) {
                st->both_ok++;
            } else {
                ck_abort_msg("%s flip %u: both accept but differ: %s", rel, t, diff);
            }
        }
        if (ref) g_object_unref(ref);
        pq_metadata_release(md);
    }
    free(buf);
    free(f.file);
}

START_TEST(test_flips)
{
    rng_state = 0x9e3779b97f4a7c15ULL + (uint64_t)_i * 7919;
    flip_stats st = {0};
    footer f;
    load(targets[_i], &f);
    unsigned count = f.len > 8192 ? 1000 : 3000;
    free(f.file);
    run_flips(targets[_i], count, &st);
    fprintf(stderr,
            "flips %-45s %5u: both accept and agree %u, only pqstep accepts %u, "
            "only c_glib accepts %u, both reject %u\n",
            targets[_i], count, st.both_ok, st.pq_only, st.cglib_only, st.both_fail);
    /* the mutations must exercise both outcomes, or the test proves little */
    ck_assert_uint_gt(st.both_ok, 0);
    ck_assert_uint_gt(st.both_fail + st.cglib_only, 0);
}
END_TEST

/* ---------------------------------------------------------------------------
 * The tail: magic, length, short suffixes
 * ------------------------------------------------------------------------- */

START_TEST(test_tail_whole_file)
{
    footer f;
    load(targets[_i], &f);
    pq_error err = {0};
    size_t needed = 999;
    pq_metadata *md = pq_metadata_parse_tail(f.file, f.file_len, NULL, &needed, &err);
    ck_assert_msg(md != NULL, "%s: %s", targets[_i], err.message);
    pqtFileMetaData *ref = pq_cglib_decode(f.bytes, f.len, NULL);
    ck_assert_ptr_nonnull(ref);
    char diff[512];
    ck_assert_msg(pq_cglib_compare(ref, pq_metadata_file(md), diff, sizeof diff) == 0, "%s: %s",
                  targets[_i], diff);
    g_object_unref(ref);
    pq_metadata_release(md);
    free(f.file);
}
END_TEST

START_TEST(test_tail_bad_magic)
{
    footer f;
    load(targets[_i], &f);
    const char *bad[] = {"PAR2", "par1", "\0\0\0\0", "PAR", "1RAP"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        uint8_t *copy = malloc(f.file_len);
        memcpy(copy, f.file, f.file_len);
        memcpy(copy + f.file_len - 4, bad[k], 4);
        pq_error err = {0};
        ck_assert_ptr_null(pq_metadata_parse_tail(copy, f.file_len, NULL, NULL, &err));
        ck_assert_msg(err.code == PQ_ERR_NOT_PARQUET, "%s magic %zu: %s", targets[_i], k,
                      err.message);
        /* the reader says the same */
        pq_reader *r = pq_reader_open_memory(copy, f.file_len, NULL, &err);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_NOT_PARQUET);
        pq_reader_close(r);
        free(copy);
    }
    /* a bad leading magic is caught by the reader, which has the whole file */
    uint8_t *copy = malloc(f.file_len);
    memcpy(copy, f.file, f.file_len);
    memcpy(copy, "PAR0", 4);
    pq_error err = {0};
    pq_reader *r = pq_reader_open_memory(copy, f.file_len, NULL, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_NOT_PARQUET);
    pq_reader_close(r);
    free(copy);
    free(f.file);
}
END_TEST

static void set_len(uint8_t *file, size_t file_len, uint32_t v)
{
    file[file_len - 8] = (uint8_t)v;
    file[file_len - 7] = (uint8_t)(v >> 8);
    file[file_len - 6] = (uint8_t)(v >> 16);
    file[file_len - 5] = (uint8_t)(v >> 24);
}

/* A footer length the file cannot hold. parse_tail cannot know the file size
 * and asks for the suffix the length implies; the reader knows and refuses. */
START_TEST(test_tail_length_beyond_file)
{
    footer f;
    load(targets[_i], &f);
    const uint32_t lens[] = {(uint32_t)f.file_len - 7, (uint32_t)f.file_len, 0x7fffffffu,
                             0xffffffffu};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        uint8_t *copy = malloc(f.file_len);
        memcpy(copy, f.file, f.file_len);
        set_len(copy, f.file_len, lens[k]);
        pq_error err = {0};
        size_t needed = 0;
        ck_assert_ptr_null(pq_metadata_parse_tail(copy, f.file_len, NULL, &needed, &err));
        ck_assert_int_eq(err.code, PQ_ERR_NEED_DATA);
        ck_assert_uint_eq(needed, (size_t)lens[k] + 8);
        ck_assert_uint_gt(needed, f.file_len);
        pq_reader *r = pq_reader_open_memory(copy, f.file_len, NULL, &err);
        ck_assert_ptr_nonnull(r);
        pq_status st = pq_reader_advance(r, &err);
        ck_assert_msg(st == PQ_ERR_CORRUPT_FOOTER, "%s len %u: %s: %s", targets[_i], lens[k],
                      pq_status_name(st), err.message);
        ck_assert_msg(strstr(err.message, "footer length"), "%s", err.message);
        pq_reader_close(r);
        free(copy);
    }
    /* a length that fits but is wrong: the Thrift is then cut or misaligned */
    uint8_t *copy = malloc(f.file_len);
    memcpy(copy, f.file, f.file_len);
    set_len(copy, f.file_len, (uint32_t)f.len - 1);
    pq_error err = {0};
    ck_assert_ptr_null(pq_metadata_parse_tail(copy, f.file_len, NULL, NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_CORRUPT_FOOTER);
    free(copy);
    free(f.file);
}
END_TEST

/* Every suffix shorter than footer + 8 asks for exactly that much; from
 * there on every suffix parses. Each suffix is an exact-size copy. */
START_TEST(test_tail_short_suffixes)
{
    footer f;
    load(targets[_i], &f);
    size_t full = f.len + 8;
    size_t stride = full <= 4096 ? 1 : full / 1000;
    for (size_t k = 0; k <= full + 16 && k <= f.file_len; k += (k < 16 || k + 16 >= full ? 1 : stride)) {
        uint8_t *suffix = malloc(k ? k : 1);
        memcpy(suffix, f.file + f.file_len - k, k);
        pq_error err = {0};
        size_t needed = 12345;
        pq_metadata *md = pq_metadata_parse_tail(suffix, k, NULL, &needed, &err);
        if (k < full) {
            ck_assert_msg(md == NULL, "%s: parsed from a %zu-byte suffix", targets[_i], k);
            ck_assert_msg(err.code == PQ_ERR_NEED_DATA, "%s suffix %zu: %s: %s", targets[_i], k,
                          pq_status_name(err.code), err.message);
            ck_assert_uint_eq(needed, k < 8 ? 8 : full);
        } else {
            ck_assert_msg(md != NULL, "%s suffix %zu: %s", targets[_i], k, err.message);
            ck_assert_uint_eq(pq_metadata_file(md)->row_groups_len,
                              pq_metadata_file(md)->row_groups_len);
            pq_metadata_release(md);
        }
        free(suffix);
    }
    free(f.file);
}
END_TEST

static Suite *mutation_suite(void)
{
    Suite *s = suite_create("footer_mutations");
    TCase *tr = tcase_create("truncation");
    tcase_set_timeout(tr, 0); /* no time limit */
    tcase_add_loop_test(tr, test_truncations, 0, (int)NTARGETS);
    suite_add_tcase(s, tr);
    TCase *fl = tcase_create("flips");
    tcase_set_timeout(fl, 0); /* no time limit */
    tcase_add_loop_test(fl, test_flips, 0, (int)NTARGETS);
    suite_add_tcase(s, fl);
    TCase *tail = tcase_create("tail");
    tcase_set_timeout(tail, 0); /* no time limit */
    tcase_add_loop_test(tail, test_tail_whole_file, 0, (int)NTARGETS);
    tcase_add_loop_test(tail, test_tail_bad_magic, 0, 3);
    tcase_add_loop_test(tail, test_tail_length_beyond_file, 0, 3);
    tcase_add_loop_test(tail, test_tail_short_suffixes, 0, (int)NTARGETS);
    suite_add_tcase(s, tail);
    return s;
}

int main(void)
{
    pq_cglib_init();
    if (!pq_test_corpus_dir()) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    SRunner *sr = srunner_create(mutation_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
