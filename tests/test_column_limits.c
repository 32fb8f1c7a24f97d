/*
 * test_column_limits.c — a BYTE_ARRAY chunk whose strings cannot fit the
 * int32 offsets of Arrow `string` fails before anything is allocated for
 * them, with an error that names the types that would hold them (issue 10:
 * data/large_string_map.brotli.parquet took 3.2 GB before failing). Pages
 * are built by hand: the sizes in their headers are all the check may use
 * before decompressing, and a PLAIN page of n values holds at least
 * uncompressed size - levels - 4 n bytes of values.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pages/cpu_exec.h"
#include "pqstep.h"

static pq_leaf string_leaf(int16_t max_def)
{
    pq_leaf leaf;
    memset(&leaf, 0, sizeof leaf);
    leaf.path = "s";
    leaf.physical_type = PQ_BYTE_ARRAY;
    leaf.max_def = max_def;
    return leaf;
}

static pq_page_info plain_page(uint64_t at, int32_t compressed, int32_t uncompressed, int32_t n)
{
    pq_page_info p;
    memset(&p, 0, sizeof p);
    p.data_offset = at;
    p.type = PQ_PAGE_DATA;
    p.compressed_size = compressed;
    p.uncompressed_size = uncompressed;
    p.num_values = n;
    p.encoding = PQ_ENC_PLAIN;
    p.def_level_encoding = PQ_ENC_RLE;
    p.is_compressed = true;
    return p;
}

/* Two snappy pages that declare 1.5 GiB of PLAIN strings each: 3 GiB cannot
 * fit int32 offsets, which is known from the headers alone. The page bytes
 * are not snappy at all: were they decompressed, the error would differ. */
START_TEST(declared_strings_past_int32_fail_first)
{
    uint8_t chunk[64];
    memset(chunk, 0xAB, sizeof chunk);
    const int32_t big = 1536 * 1024 * 1024; /* 1.5 GiB */
    pq_page_info pages[2] = {plain_page(0, 32, big, 2), plain_page(32, 32, big, 2)};
    pq_leaf leaf = string_leaf(0);
    pq_column_values v;
    pq_error err = {0};
    pq_status st = pq_column_decode(&leaf, PQ_CODEC_SNAPPY, chunk, sizeof chunk, pages, 2, 0, &v, &err);
    ck_assert_int_eq(st, PQ_ERR_UNSUPPORTED);
    /* named at the page where the bytes declared so far pass the limit */
    ck_assert_msg(strstr(err.message, "page 1 (DATA_PAGE, PLAIN)") && strstr(err.message, "large_string") &&
                      strstr(err.message, "string_view") && strstr(err.message, "3221225456"),
                  "%s", err.message);
    /* with definition levels the bound leaves room for them: 1.5 GiB - 8 -
     * (4 + 12 x 2) a page, still too much for two */
    leaf = string_leaf(1);
    st = pq_column_decode(&leaf, PQ_CODEC_SNAPPY, chunk, sizeof chunk, pages, 2, 0, &v, &err);
    ck_assert_int_eq(st, PQ_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.message, "3221225400"), "%s", err.message);
}
END_TEST

/* One such page fits (1.5 GiB < 2 GiB): the check lets it through, and the
 * decode fails where the bytes are wrong, as snappy data. */
START_TEST(declared_strings_under_int32_are_decoded)
{
    uint8_t chunk[64];
    memset(chunk, 0xAB, sizeof chunk);
    pq_page_info pages[1] = {plain_page(0, 32, 1536 * 1024 * 1024, 2)};
    pq_leaf leaf = string_leaf(0);
    pq_column_values v;
    pq_error err = {0};
    pq_status st = pq_column_decode(&leaf, PQ_CODEC_SNAPPY, chunk, sizeof chunk, pages, 1, 0, &v, &err);
    ck_assert_int_ne(st, PQ_OK);
    ck_assert_int_ne(st, PQ_ERR_UNSUPPORTED);
    ck_assert_msg(!strstr(err.message, "large_string"), "%s", err.message);
}
END_TEST

/* A real uncompressed PLAIN page of three strings decodes as before. */
START_TEST(small_pages_decode)
{
    static const uint8_t page[] = {2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'};
    pq_page_info pages[1] = {plain_page(0, sizeof page, sizeof page, 3)};
    pq_leaf leaf = string_leaf(0);
    pq_column_values v;
    pq_error err = {0};
    ck_assert_int_eq(pq_column_decode(&leaf, PQ_CODEC_UNCOMPRESSED, page, sizeof page, pages, 1, 0, &v, &err),
                     PQ_OK);
    ck_assert_uint_eq(v.n_values, 3);
    ck_assert_int_eq(v.offsets[1], 2);
    ck_assert_int_eq(v.offsets[2], 2);
    ck_assert_int_eq(v.offsets[3], 5);
    ck_assert(memcmp(v.data, "hiabc", 5) == 0);
    pq_column_values_free(&v);
}
END_TEST

/* The default memory limit: a quarter of physical memory in [256 MiB, 1 GiB],
 * and what pq_reader_options_init sets. */
START_TEST(default_memory_limit)
{
    uint64_t lim = pq_default_memory_limit();
    ck_assert_uint_ge(lim, 256ull << 20);
    ck_assert_uint_le(lim, 1ull << 30);
    pq_reader_options o;
    memset(&o, 0xFF, sizeof o);
    pq_reader_options_init(&o);
    ck_assert_uint_eq(o.memory_limit, lim);
    ck_assert_uint_eq(o.threads, 0);
    ck_assert_ptr_null(o.filter);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("column_limits");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, declared_strings_past_int32_fail_first);
    tcase_add_test(tc, declared_strings_under_int32_are_decoded);
    tcase_add_test(tc, small_pages_decode);
    tcase_add_test(tc, default_memory_limit);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
