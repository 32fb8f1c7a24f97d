/*
 * test_page_index.c — OffsetIndex decoding (metadata/page_index.c) on
 * hand-encoded Thrift compact bytes, and its checks against the chunk.
 *
 * Oracle: the bytes are written out by hand from the compact protocol (field
 * header = id delta << 4 | type; i32/i64 zigzag varints; list header = size
 * << 4 | element type), so each expected value is known.
 */
#include <check.h>

#include "compact_writer.h"
#include <stdlib.h>
#include <string.h>

#include "metadata/page_index.h"

/* Encoder helpers for the test's own bytes. */

/* PageLocation{offset, size, first_row} as a struct in a list. */
static void location(buf *o, int64_t offset, int32_t size, int64_t first_row)
{
    put(o, 0x16); /* field 1, i64 */
    zigzag(o, offset);
    put(o, 0x15); /* field 2 (delta 1), i32 */
    zigzag(o, size);
    put(o, 0x16); /* field 3 (delta 1), i64 */
    zigzag(o, first_row);
    put(o, 0x00);
}

/* OffsetIndex with n locations: pages of `size` bytes from `start`, each
 * `rows` rows. */
static void offset_index(buf *o, size_t n, int64_t start, int32_t size, int64_t rows)
{
    o->n = 0;
    put(o, 0x19); /* field 1, list */
    put(o, (uint8_t)(n << 4 | 0x0c)); /* n < 15 structs */
    for (size_t i = 0; i < n; i++) location(o, start + (int64_t)i * size, size, (int64_t)i * rows);
    put(o, 0x00);
}

START_TEST(decodes_locations)
{
    buf o;
    offset_index(&o, 3, 1000, 100, 40);
    pq_offset_index oi;
    pq_error err;
    ck_assert_msg(pq_offset_index_decode(o.b, o.n, 990, 310, 120, &oi, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(oi.npages, 3);
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(oi.pages[i].offset, 1000 + 100 * (int64_t)i);
        ck_assert_int_eq(oi.pages[i].compressed_page_size, 100);
        ck_assert_int_eq(oi.pages[i].first_row_index, 40 * (int64_t)i);
    }
    pq_offset_index_free(&oi);
}
END_TEST

START_TEST(skips_unknown_and_optional_fields)
{
    buf o;
    offset_index(&o, 2, 10, 5, 3);
    o.n--; /* drop the stop byte: add field 2 (list<i64>) and an unknown field 9 (binary) */
    put(&o, 0x19);
    put(&o, 0x26); /* 2 i64s */
    zigzag(&o, 7);
    zigzag(&o, 9);
    put(&o, 0x78); /* field 9 (delta 7), binary */
    varint(&o, 3);
    put(&o, 'a'); put(&o, 'b'); put(&o, 'c');
    put(&o, 0x00);
    pq_offset_index oi;
    pq_error err;
    ck_assert_msg(pq_offset_index_decode(o.b, o.n, 10, 10, 6, &oi, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(oi.npages, 2);
    ck_assert_int_eq(oi.pages[1].first_row_index, 3);
    /* field 2: SizeStatistics' unencoded_byte_array_data_bytes per page */
    ck_assert_ptr_nonnull(oi.unencoded_bytes);
    ck_assert_int_eq(oi.unencoded_bytes[0], 7);
    ck_assert_int_eq(oi.unencoded_bytes[1], 9);
    pq_offset_index_free(&oi);
    ck_assert_ptr_null(oi.unencoded_bytes);
}
END_TEST

/* Page sizes that do not fit the pages are dropped, never an error. */
START_TEST(unfit_page_sizes_are_dropped)
{
    static const struct { uint8_t header; int64_t a, b; } cases[] = {
        {0x16, 7, 0},  /* one size for two pages */
        {0x26, 7, -1}, /* a negative size */
        {0x25, 7, 9},  /* i32 elements, not i64 */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        buf o;
        offset_index(&o, 2, 10, 5, 3);
        o.n--;
        put(&o, 0x19); /* field 2 (delta 1), list */
        put(&o, cases[k].header);
        zigzag(&o, cases[k].a);
        if ((cases[k].header >> 4) == 2) zigzag(&o, cases[k].b);
        put(&o, 0x00);
        pq_offset_index oi;
        pq_error err;
        ck_assert_msg(pq_offset_index_decode(o.b, o.n, 10, 10, 6, &oi, &err) == PQ_OK, "case %zu: %s", k,
                      err.message);
        ck_assert_uint_eq(oi.npages, 2);
        ck_assert_ptr_null(oi.unencoded_bytes);
        pq_offset_index_free(&oi);
    }
}
END_TEST

static void expect_error(const buf *o, uint64_t chunk_off, uint64_t chunk_len, int64_t rows, const char *needle)
{
    pq_offset_index oi;
    pq_error err;
    pq_status st = pq_offset_index_decode(o->b, o->n, chunk_off, chunk_len, rows, &oi, &err);
    ck_assert_int_eq(st, PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, needle), "'%s' lacks '%s'", err.message, needle);
    ck_assert_ptr_null(oi.pages);
}

START_TEST(rejects_what_does_not_fit_the_chunk)
{
    buf o;
    offset_index(&o, 3, 1000, 100, 40);
    expect_error(&o, 1000, 299, 120, "page_locations[2]: page at 1200 (100 bytes) is outside");
    expect_error(&o, 1001, 400, 120, "page_locations[0]");
    expect_error(&o, 1000, 300, 79, "page_locations[2]: first_row_index 80");
    /* Rows that go back. */
    o.n = 0;
    put(&o, 0x19);
    put(&o, 0x3c);
    location(&o, 0, 10, 0);
    location(&o, 10, 10, 3);
    location(&o, 20, 10, 2);
    put(&o, 0);
    expect_error(&o, 0, 30, 5, "page_locations[2]: first_row_index 2 goes back");
    /* Empty pages repeat a row, and the last may start at num_rows. */
    o.n = 0;
    put(&o, 0x19);
    put(&o, 0x3c);
    location(&o, 0, 10, 0);
    location(&o, 10, 10, 0);
    location(&o, 20, 10, 5);
    put(&o, 0);
    pq_offset_index oi;
    pq_error err;
    ck_assert_msg(pq_offset_index_decode(o.b, o.n, 0, 30, 5, &oi, &err) == PQ_OK, "%s", err.message);
    pq_offset_index_free(&oi);
    /* A first page that does not start at row 0. */
    o.n = 0;
    put(&o, 0x19);
    put(&o, 0x1c);
    location(&o, 0, 10, 1);
    put(&o, 0);
    expect_error(&o, 0, 20, 5, "page_locations[0]: first_row_index 1");
    /* Overlapping pages. */
    o.n = 0;
    put(&o, 0x19);
    put(&o, 0x2c);
    location(&o, 0, 10, 0);
    location(&o, 5, 10, 2);
    put(&o, 0);
    expect_error(&o, 0, 20, 5, "overlaps");
    /* No locations, an empty list, a missing field. */
    o.n = 0;
    put(&o, 0);
    expect_error(&o, 0, 20, 5, "page_locations: missing");
    o.n = 0;
    put(&o, 0x19);
    put(&o, 0x0c);
    put(&o, 0);
    expect_error(&o, 0, 20, 5, "page_locations: empty");
    o.n = 0;
    put(&o, 0x19);
    put(&o, 0x1c);
    put(&o, 0x16);
    zigzag(&o, 0);
    put(&o, 0x25); /* field 3 as i32: wrong type, skipped; size missing */
    zigzag(&o, 1);
    put(&o, 0);
    put(&o, 0);
    expect_error(&o, 0, 20, 5, "required field compressed_page_size missing");
}
END_TEST

START_TEST(every_truncation_fails_cleanly)
{
    buf o;
    offset_index(&o, 3, 1000, 100, 40);
    for (size_t n = 0; n < o.n; n++) {
        pq_offset_index oi;
        pq_error err;
        ck_assert_int_eq(pq_offset_index_decode(o.b, n, 1000, 300, 120, &oi, &err), PQ_ERR_CORRUPT_DATA);
        ck_assert_ptr_null(oi.pages);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("page index");
    TCase *tc = tcase_create("offset index");
    tcase_add_test(tc, decodes_locations);
    tcase_add_test(tc, skips_unknown_and_optional_fields);
    tcase_add_test(tc, unfit_page_sizes_are_dropped);
    tcase_add_test(tc, rejects_what_does_not_fit_the_chunk);
    tcase_add_test(tc, every_truncation_fails_cleanly);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
