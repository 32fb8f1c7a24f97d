/*
 * test_column_views.c — PQ_DECODE_STRING_VIEWS on a chunk built by hand: a
 * dictionary page, a dictionary-encoded data page and a PLAIN data page of
 * a required BYTE_ARRAY column (uncompressed). The expected views follow the
 * Arrow spec by hand: a value of at most 12 bytes is inline (length, bytes,
 * zero padding); a longer one is length, its first 4 bytes, a buffer index
 * and an offset: buffer 1 is the dictionary's entries as stored (no copy),
 * buffer 0 the chunk's own copies of PLAIN values.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "pages/cpu_exec.h"
#include "pqstep.h"
#include "test_util.h"

static uint32_t u32_at(const uint8_t *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}

/* A required BYTE_ARRAY column (*leaf) of three uncompressed pages (a
 * dictionary, a dictionary-encoded and a PLAIN page) decoded as views. */
static void decode_views(const uint8_t *chunk, size_t n, const pq_page_info pages[3], pq_leaf *leaf,
                         pq_column_values *v)
{
    memset(leaf, 0, sizeof *leaf);
    leaf->path = "s";
    leaf->physical_type = PQ_BYTE_ARRAY;
    pq_error err = {0};
    ck_assert_msg(pq_column_decode_flags(NULL, leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3, 0,
                                         PQ_DECODE_STRING_VIEWS, NULL, v, &err) == PQ_OK,
                  "%s", err.message);
}

START_TEST(views_from_dictionary_and_plain_pages)
{
    uint8_t chunk[256];
    size_t n = 0;
    /* dictionary: "short", "a much longer entry!" (20 bytes) */
    size_t dict_at = n;
    n += pq_test_put_str(chunk + n, "short");
    n += pq_test_put_str(chunk + n, "a much longer entry!");
    size_t dict_len = n - dict_at;
    /* indices 1, 0, 1: bit width 1, one bit-packed group of 8 (header 0x03), bits 101 */
    size_t idx_at = n;
    chunk[n++] = 1;
    chunk[n++] = 0x03;
    chunk[n++] = 0x05;
    size_t idx_len = n - idx_at;
    /* PLAIN: "inline12byte" (12 bytes: inline), "this one is longer than 12" (26) */
    size_t plain_at = n;
    n += pq_test_put_str(chunk + n, "inline12byte");
    n += pq_test_put_str(chunk + n, "this one is longer than 12");
    size_t plain_len = n - plain_at;

    pq_page_info pages[3] = {pq_test_page(dict_at, PQ_PAGE_DICTIONARY, (int32_t)dict_len, 2, PQ_ENC_PLAIN),
                             pq_test_page(idx_at, PQ_PAGE_DATA, (int32_t)idx_len, 3, PQ_ENC_RLE_DICTIONARY),
                             pq_test_page(plain_at, PQ_PAGE_DATA, (int32_t)plain_len, 2, PQ_ENC_PLAIN)};
    pq_leaf leaf;
    pq_column_values v;
    pq_error err = {0};
    decode_views(chunk, n, pages, &leaf, &v);
    ck_assert_uint_eq(v.n_values, 5);
    ck_assert_ptr_null(v.offsets);
    ck_assert_ptr_null(v.data);
    ck_assert_uint_eq(v.n_view_bufs, 2);
    /* buffer 1: the dictionary's bytes, "short" then the long entry */
    ck_assert_uint_eq(v.view_buf_lens[1], 25);
    ck_assert(memcmp(v.view_bufs[1], "shorta much longer entry!", 25) == 0);
    /* buffer 0: the PLAIN page's long value only is needed, but its values are copied whole */
    ck_assert_uint_eq(v.view_buf_lens[0], 12 + 26);
    const uint8_t *w = v.views;
    /* 0: the long entry: 20, "a mu", buffer 1, offset 5 */
    ck_assert_uint_eq(u32_at(w), 20);
    ck_assert(memcmp(w + 4, "a mu", 4) == 0);
    ck_assert_uint_eq(u32_at(w + 8), 1);
    ck_assert_uint_eq(u32_at(w + 12), 5);
    /* 1: "short" inline, zero padded */
    static const uint8_t short_view[16] = {5, 0, 0, 0, 's', 'h', 'o', 'r', 't', 0, 0, 0, 0, 0, 0, 0};
    ck_assert(memcmp(w + 16, short_view, 16) == 0);
    /* 2: the long entry again: the same 16 bytes as view 0 */
    ck_assert(memcmp(w + 32, w, 16) == 0);
    /* 3: 12 bytes: still inline */
    ck_assert_uint_eq(u32_at(w + 48), 12);
    ck_assert(memcmp(w + 52, "inline12byte", 12) == 0);
    /* 4: 26 bytes at offset 12 of buffer 0 */
    ck_assert_uint_eq(u32_at(w + 64), 26);
    ck_assert(memcmp(w + 68, "this", 4) == 0);
    ck_assert_uint_eq(u32_at(w + 72), 0);
    ck_assert_uint_eq(u32_at(w + 76), 12);
    ck_assert(memcmp(v.view_bufs[0] + 12, "this one is longer than 12", 26) == 0);
    /* the accessor agrees */
    const uint8_t *p;
    size_t len;
    pq_column_values_bytes(&v, 2, &p, &len);
    ck_assert_uint_eq(len, 20);
    ck_assert(memcmp(p, "a much longer entry!", 20) == 0);
    pq_column_values_free(&v);

    /* Without the flag: offsets and data as before, every value copied. */
    ck_assert_int_eq(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3, 0, 0, NULL, &v,
                                            &err),
                     PQ_OK);
    ck_assert_ptr_null(v.views);
    ck_assert_int_eq(v.offsets[5], 20 + 5 + 20 + 12 + 26);
    pq_column_values_free(&v);

    /* Selection-vector decode: rows 0 and 3 of the 5 (the long dictionary
     * entry, "inline12byte"), as views and as offsets; then rows 3..4 only,
     * which leaves the dictionary-encoded page undecoded. */
    uint8_t keep = 0x09; /* rows 0 and 3 */
    pq_decode_rows rows = {&keep, 0, 5};
    ck_assert_msg(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3, 0,
                                         PQ_DECODE_STRING_VIEWS, &rows, &v, &err) == PQ_OK,
                  "%s", err.message);
    ck_assert_uint_eq(v.n_values, 2);
    ck_assert_uint_eq(v.n_levels, 2);
    pq_column_values_bytes(&v, 0, &p, &len);
    ck_assert(len == 20 && memcmp(p, "a much longer entry!", 20) == 0);
    pq_column_values_bytes(&v, 1, &p, &len);
    ck_assert(len == 12 && memcmp(p, "inline12byte", 12) == 0);
    pq_column_values_free(&v);
    ck_assert_int_eq(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3, 0, 0, &rows, &v,
                                            &err),
                     PQ_OK);
    ck_assert_uint_eq(v.n_values, 2);
    ck_assert_int_eq(v.offsets[1], 20);
    ck_assert_int_eq(v.offsets[2], 32);
    ck_assert(memcmp(v.data, "a much longer entry!inline12byte", 32) == 0);
    pq_column_values_free(&v);
    keep = 0x03; /* bits 0, 1 of rows starting at chunk row 3: rows 3 and 4 */
    pq_decode_rows tail = {&keep, 3, 2};
    ck_assert_int_eq(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3, 0, 0, &tail, &v,
                                            &err),
                     PQ_OK);
    ck_assert_uint_eq(v.n_values, 2);
    ck_assert(memcmp(v.data, "inline12bytethis one is longer than 12", 38) == 0);
    pq_column_values_free(&v);
    /* a repeated column cannot be decoded in part */
    leaf.max_rep = 1;
    ck_assert_int_eq(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3, 0, 0, &tail, &v,
                                            &err),
                     PQ_ERR_INVALID_ARGUMENT);
    leaf.max_rep = 0;

    /* An index past the dictionary fails in view mode too. */
    chunk[idx_at + 2] = 0x07; /* 1, 1, 1 ... fine; make the width 2 and index 3 */
    chunk[idx_at] = 2;
    chunk[idx_at + 2] = 0x3F; /* 3, 3, 3, 0 */
    ck_assert_int_eq(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3, 0,
                                            PQ_DECODE_STRING_VIEWS, NULL, &v, &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "dictionary index 3"), "%s", err.message);
}
END_TEST

/* The view the Arrow spec gives a value of `len` bytes at `p`, whose copy
 * lies at `offset` of buffer `buf` (built here by the spec's rule, not by
 * the decoder's). */
static void spec_view(uint8_t w[16], const uint8_t *p, uint32_t len, uint32_t buf, uint32_t offset)
{
    memset(w, 0, 16);
    memcpy(w, &len, 4);
    if (len <= 12) {
        memcpy(w + 4, p, len);
        return;
    }
    memcpy(w + 4, p, 4);
    memcpy(w + 8, &buf, 4);
    memcpy(w + 12, &offset, 4);
}

/* Values of every length from 0 to 70 bytes (past the 12 inline bytes and
 * past the 48 a value may be moved in words), none of their bytes zero, so
 * that a byte copied past a short value's end into its view shows; in a
 * dictionary page, a data page that uses every entry, and a PLAIN page of
 * the same values, each long enough that the decoder moves most values in
 * words and the last ones exactly. */
/* Selected rows of an optional INT32 leaf (one definition level): a v1
 * page whose levels are one run of the maximum (no null) gives the selected
 * rows' values, by hand. A page with nulls gives the selected rows' levels
 * and the values of those that are not null (levels RLE and the deprecated
 * BIT_PACKED); a level above the maximum is refused; and where the plan
 * says the chunk holds no null (PQ_PLAN_NO_NULLS, from its statistics) a
 * page with a null is refused as corrupt, never decoded into shifted
 * values. */
START_TEST(selection_of_an_optional_leaf)
{
    uint8_t chunk[64];
    size_t n = 0;
    /* levels: a 4-byte length, then the RLE run header (5 << 1) and its value 1 */
    chunk[n++] = 2, chunk[n++] = 0, chunk[n++] = 0, chunk[n++] = 0;
    chunk[n++] = 5 << 1;
    size_t level_value = n;
    chunk[n++] = 1;
    for (int32_t i = 1; i <= 5; i++) {
        int32_t x = 10 * i;
        memcpy(chunk + n, &x, 4);
        n += 4;
    }
    pq_page_info page = pq_test_page(0, PQ_PAGE_DATA, (int32_t)n, 5, PQ_ENC_PLAIN);
    pq_leaf leaf;
    memset(&leaf, 0, sizeof leaf);
    leaf.path = "x";
    leaf.physical_type = PQ_INT32;
    leaf.max_def = 1;
    uint8_t keep = 0x16; /* rows 1, 2 and 4 */
    pq_decode_rows rows = {&keep, 0, 5};
    pq_column_values v;
    pq_error err = {0};
    ck_assert_msg(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, &page, 1, 0, 0, &rows, &v,
                                         &err) == PQ_OK,
                  "%s", err.message);
    ck_assert_uint_eq(v.n_values, 3);
    ck_assert_uint_eq(v.n_levels, 3);
    const int32_t want[3] = {20, 30, 50};
    ck_assert_mem_eq(v.values, want, sizeof want);
    pq_column_values_free(&v);

    /* a run of 5 zeros: every row null; the selected rows are three nulls */
    chunk[level_value] = 0;
    ck_assert_msg(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, &page, 1, 0, 0, &rows, &v,
                                         &err) == PQ_OK,
                  "%s", err.message);
    ck_assert_uint_eq(v.n_levels, 3);
    ck_assert_uint_eq(v.n_values, 0);
    ck_assert_ptr_nonnull(v.def_levels);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(v.def_levels[i], 0);
    pq_column_values_free(&v);
    /* ... refused where the plan says the chunk holds no null */
    pq_decode_plan plan = {0};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, &page, 1,
                                              PQ_PLAN_NO_NULLS, &rows, &err),
                     PQ_OK);
    ck_assert_int_eq(pq_decode_plan_execute_one(NULL, 0, &plan, &v, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "holds a null"), "%s", err.message);
    pq_decode_plan_free(&plan);
    /* without a selection the page reads as five nulls */
    ck_assert_msg(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, &page, 1, 0, 0, NULL, &v,
                                         &err) == PQ_OK,
                  "%s", err.message);
    ck_assert_uint_eq(v.n_levels, 5);
    ck_assert_uint_eq(v.n_values, 0);
    pq_column_values_free(&v);

    /* levels 1 0 1 1 0 (one bit-packed group; values 10, 30, 40 for rows
     * 0, 2 and 3): rows 1, 2 and 4 are null, 30 and null */
    uint8_t page2[64];
    size_t m = 0;
    page2[m++] = 2, page2[m++] = 0, page2[m++] = 0, page2[m++] = 0;
    page2[m++] = (1 << 1) | 1; /* one bit-packed group of 8 */
    page2[m++] = 0x0d;         /* 1, 0, 1, 1, 0 (LSB first) */
    const int32_t present[3] = {10, 30, 40};
    memcpy(page2 + m, present, sizeof present);
    m += sizeof present;
    pq_page_info p2 = pq_test_page(0, PQ_PAGE_DATA, (int32_t)m, 5, PQ_ENC_PLAIN);
    ck_assert_msg(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, page2, m, &p2, 1, 0, 0, &rows, &v,
                                         &err) == PQ_OK,
                  "%s", err.message);
    ck_assert_uint_eq(v.n_levels, 3);
    ck_assert_uint_eq(v.n_values, 1);
    ck_assert_int_eq(v.def_levels[0], 0);
    ck_assert_int_eq(v.def_levels[1], 1);
    ck_assert_int_eq(v.def_levels[2], 0);
    ck_assert_int_eq(((const int32_t *)v.values)[0], 30);
    pq_column_values_free(&v);
    /* the same levels BIT_PACKED (deprecated: no length, most significant bit first) */
    uint8_t page3[64];
    size_t q = 0;
    page3[q++] = 0xb0; /* 1 0 1 1 0 */
    memcpy(page3 + q, present, sizeof present);
    q += sizeof present;
    pq_page_info p3 = pq_test_page(0, PQ_PAGE_DATA, (int32_t)q, 5, PQ_ENC_PLAIN);
    p3.def_level_encoding = PQ_ENC_BIT_PACKED;
    keep = 0x0d; /* rows 0, 2 and 3: every value */
    ck_assert_msg(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, page3, q, &p3, 1, 0, 0, &rows, &v,
                                         &err) == PQ_OK,
                  "%s", err.message);
    ck_assert_uint_eq(v.n_levels, 3);
    ck_assert_uint_eq(v.n_values, 3);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(v.def_levels[i], 1);
    ck_assert_mem_eq(v.values, present, sizeof present);
    pq_column_values_free(&v);
    /* a level of 2 in a run (bit width 1 stores its value in a byte): refused */
    keep = 0x16;
    page2[5] = 0x02, page2[4] = 5 << 1; /* a run of five 2s */
    ck_assert_int_eq(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, page2, m, &p2, 1, 0, 0, &rows, &v,
                                            &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "exceeds the maximum"), "%s", err.message);
}
END_TEST

START_TEST(views_of_every_length)
{
    enum { K = 3 * 71 };
    static uint8_t chunk[32 * 1024];
    uint32_t lens[K];
    uint8_t bytes[K][70];
    size_t n = 0, total = 0;
    for (size_t i = 0; i < K; i++) {
        lens[i] = (uint32_t)((i * 37) % 71);
        for (uint32_t j = 0; j < lens[i]; j++) bytes[i][j] = (uint8_t)(1 + (i * 13 + j * 7) % 255);
        total += lens[i];
    }
    size_t dict_at = n;
    for (size_t i = 0; i < K; i++) {
        memcpy(chunk + n, &lens[i], 4);
        memcpy(chunk + n + 4, bytes[i], lens[i]);
        n += 4 + lens[i];
    }
    size_t dict_len = n - dict_at;
    /* indices 0..K-1: bit width 8, one bit-packed run of ceil(K / 8) groups */
    size_t idx_at = n, groups = (K + 7) / 8;
    chunk[n++] = 8;
    chunk[n++] = (uint8_t)(((groups << 1) | 1) & 0x7f) | 0x80;
    chunk[n++] = (uint8_t)((groups << 1) >> 7);
    for (size_t i = 0; i < groups * 8; i++) chunk[n++] = (uint8_t)(i < K ? i : 0);
    size_t idx_len = n - idx_at;
    size_t plain_at = n;
    ck_assert_uint_le(n + dict_len, sizeof chunk);
    memcpy(chunk + n, chunk + dict_at, dict_len);
    n += dict_len;
    pq_page_info pages[3] = {pq_test_page(dict_at, PQ_PAGE_DICTIONARY, (int32_t)dict_len, K, PQ_ENC_PLAIN),
                             pq_test_page(idx_at, PQ_PAGE_DATA, (int32_t)idx_len, K, PQ_ENC_RLE_DICTIONARY),
                             pq_test_page(plain_at, PQ_PAGE_DATA, (int32_t)dict_len, K, PQ_ENC_PLAIN)};
    pq_leaf leaf;
    pq_column_values v;
    pq_error err = {0};
    decode_views(chunk, n, pages, &leaf, &v);
    ck_assert_uint_eq(v.n_values, 2 * K);
    ck_assert_uint_eq(v.n_view_bufs, 2);
    ck_assert_uint_eq(v.view_buf_lens[1], total);
    ck_assert_uint_eq(v.view_buf_lens[0], total);
    uint32_t at = 0;
    for (size_t i = 0; i < K; i++) {
        uint8_t want[16];
        /* value i from the dictionary (buffer 1), then from the PLAIN page (buffer 0) */
        spec_view(want, bytes[i], lens[i], 1, at);
        ck_assert_msg(memcmp(v.views + 16 * i, want, 16) == 0, "dictionary view %zu (%u bytes)", i, lens[i]);
        spec_view(want, bytes[i], lens[i], 0, at);
        ck_assert_msg(memcmp(v.views + 16 * (K + i), want, 16) == 0, "PLAIN view %zu (%u bytes)", i, lens[i]);
        ck_assert(memcmp(v.view_bufs[1] + at, bytes[i], lens[i]) == 0);
        ck_assert(memcmp(v.view_bufs[0] + at, bytes[i], lens[i]) == 0);
        at += lens[i];
    }
    pq_column_values_free(&v);

    /* As offsets and data: the same bytes, the ends summed here */
    ck_assert_msg(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3, 0, 0, NULL, &v,
                                         &err) == PQ_OK,
                  "%s", err.message);
    ck_assert_uint_eq(v.n_values, 2 * K);
    int32_t end = 0;
    for (size_t i = 0; i < 2 * K; i++) {
        size_t k = i % K;
        ck_assert_int_eq(v.offsets[i], end);
        ck_assert(memcmp(v.data + end, bytes[k], lens[k]) == 0);
        end += (int32_t)lens[k];
        ck_assert_int_eq(v.offsets[i + 1], end);
    }
    pq_column_values_free(&v);

    /* A length past the page's end, in the stretch moved in words: an error naming the value */
    uint32_t bad = 100000;
    memcpy(chunk + plain_at + 4 + lens[0], &bad, 4);
    ck_assert_int_eq(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3, 0,
                                            PQ_DECODE_STRING_VIEWS, NULL, &v, &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "value 1 "), "%s", err.message);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("column_views");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, views_from_dictionary_and_plain_pages);
    tcase_add_test(tc, views_of_every_length);
    tcase_add_test(tc, selection_of_an_optional_leaf);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
