/*
 * test_decode_plan.c — the decode plan (pages/decode_plan.h) and its CPU
 * executor on chunks built by hand (uncompressed, so every byte is known).
 *
 * Oracle: hand-computed offsets and values. The plan's level, value and
 * string offsets are checked against sums done by hand; the executor is run
 * with its tasks in reverse order (pages are independent of one another, so
 * the result must not change) and compared with the values written into the
 * pages.
 */
#include <check.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>

#include "kernels/primitives.h"
#include "pages/cpu_exec.h"
#include "pages/decode_plan.h"
#include "pqstep.h"
#include "test_util.h"

static size_t put_i32(uint8_t *at, int32_t v)
{
    memcpy(at, &v, 4);
    return 4;
}

/* Runs a phase's tasks last to first: a page must not depend on another,
 * and a data page handed out before its dictionary's task decodes the
 * dictionary itself (the executor's phases 1 and 2 are one run). */
static unsigned run_backwards(size_t n, unsigned threads, bool (*task)(void *ctx, size_t i, unsigned worker),
                              void *ctx)
{
    (void)threads;
    for (size_t i = n; i-- > 0;) task(ctx, i, 0);
    return 1;
}

static pq_leaf leaf_of(int32_t type, int16_t max_def)
{
    pq_leaf leaf;
    memset(&leaf, 0, sizeof leaf);
    leaf.path = "x";
    leaf.physical_type = type;
    leaf.max_def = max_def;
    return leaf;
}

/* A required INT32 column: 2, 3 and 4 values in three PLAIN pages with an
 * index page between: offsets from the headers alone, values 1..9. */
START_TEST(required_pages_are_sized_by_their_headers)
{
    uint8_t chunk[64];
    size_t n = 0, at[3];
    int32_t v = 1;
    const int32_t counts[3] = {2, 3, 4};
    for (int p = 0; p < 3; p++) {
        at[p] = n;
        for (int k = 0; k < counts[p]; k++) n += put_i32(chunk + n, v++);
    }
    pq_page_info pages[4] = {pq_test_page(at[0], PQ_PAGE_DATA, 8, 2, PQ_ENC_PLAIN),
                             pq_test_page(0, PQ_PAGE_INDEX, 0, 0, 0),
                             pq_test_page(at[1], PQ_PAGE_DATA, 12, 3, PQ_ENC_PLAIN),
                             pq_test_page(at[2], PQ_PAGE_DATA, 16, 4, PQ_ENC_PLAIN)};
    pq_leaf leaf = leaf_of(PQ_INT32, 0);
    pq_decode_plan plan = {0};
    pq_error err = {0};
    ck_assert_msg(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 4, 0, NULL, &err) ==
                      PQ_OK,
                  "%s", err.message);
    ck_assert_uint_eq(plan.nchunks, 1);
    ck_assert_uint_eq(plan.npages, 4);
    const pq_plan_chunk *ch = &plan.chunks[0];
    ck_assert(ch->flags & PQ_PLAN_SIZED_BY_HEADERS);
    ck_assert_int_eq(ch->output, PQ_PLAN_FIXED);
    ck_assert_uint_eq(ch->width, 4);
    ck_assert_int_eq(ch->dictionary, -1);
    ck_assert_uint_eq(ch->n_levels, 9);
    ck_assert_uint_eq(ch->n_values, 9);
    ck_assert_int_eq(plan.pages[1].kind, PQ_PLAN_PAGE_SKIP);
    const size_t data[3] = {0, 2, 3};
    const uint64_t offs[3] = {0, 2, 5};
    for (int p = 0; p < 3; p++) {
        const pq_plan_page *pg = &plan.pages[data[p]];
        ck_assert_int_eq(pg->kind, PQ_PLAN_PAGE_DATA);
        ck_assert_uint_eq(pg->index, data[p]);
        ck_assert_uint_eq(pg->level_offset, offs[p]);
        ck_assert_uint_eq(pg->value_offset, offs[p]);
        ck_assert_uint_eq(pg->first_row, offs[p]);
        ck_assert_uint_eq(pg->n_values, (uint64_t)counts[p]);
    }

    pq_cpu_executor ex = {.run = run_backwards};
    pq_column_values out;
    pq_status cst;
    ck_assert_msg(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(out.n_values, 9);
    ck_assert_uint_eq(out.n_levels, 9);
    for (int k = 0; k < 9; k++) {
        int32_t got;
        memcpy(&got, out.values + 4 * k, 4);
        ck_assert_int_eq(got, k + 1);
    }
    pq_column_values_free(&out);
    pq_decode_plan_free(&plan);
}
END_TEST

/* An optional INT32 column in two v1 pages: definition levels 1,0,1,1
 * (bit-packed) and 1,1,1 (one run): the size pass finds 3 and 3 values,
 * the second page's levels (not stored: one run of max_def) are filled in. */
START_TEST(optional_pages_take_a_size_pass)
{
    uint8_t chunk[64];
    size_t n = 0;
    size_t a = n;
    n += put_i32(chunk + n, 2);           /* RLE section length */
    chunk[n++] = 0x03, chunk[n++] = 0x0D; /* one bit-packed group: 1,0,1,1 */
    for (int32_t v = 10; v < 13; v++) n += put_i32(chunk + n, v);
    size_t a_len = n - a, b = n;
    n += put_i32(chunk + n, 2);
    chunk[n++] = 0x06, chunk[n++] = 0x01; /* a run of three 1s */
    for (int32_t v = 20; v < 23; v++) n += put_i32(chunk + n, v);
    size_t b_len = n - b;
    pq_page_info pages[2] = {pq_test_page(a, PQ_PAGE_DATA, (int32_t)a_len, 4, PQ_ENC_PLAIN),
                             pq_test_page(b, PQ_PAGE_DATA, (int32_t)b_len, 3, PQ_ENC_PLAIN)};
    pq_leaf leaf = leaf_of(PQ_INT32, 1);
    pq_decode_plan plan = {0};
    pq_error err = {0};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 2, 0, NULL, &err),
                     PQ_OK);
    ck_assert(!(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS));
    ck_assert_uint_eq(plan.pages[1].level_offset, 4);
    pq_cpu_executor ex = {.run = run_backwards};
    pq_column_values out;
    pq_status cst;
    ck_assert_msg(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err) == PQ_OK, "%s", err.message);
    /* the size pass filled in the counts and the offsets */
    ck_assert_uint_eq(plan.pages[0].n_values, 3);
    ck_assert_uint_eq(plan.pages[1].n_values, 3);
    ck_assert_uint_eq(plan.pages[1].value_offset, 3);
    ck_assert_uint_eq(plan.chunks[0].n_values, 6);
    ck_assert_uint_eq(out.n_levels, 7);
    ck_assert_uint_eq(out.n_values, 6);
    const int16_t defs[7] = {1, 0, 1, 1, 1, 1, 1};
    ck_assert_ptr_nonnull(out.def_levels);
    ck_assert_mem_eq(out.def_levels, defs, sizeof defs);
    const int32_t want[6] = {10, 11, 12, 20, 21, 22};
    ck_assert_mem_eq(out.values, want, sizeof want);
    pq_column_values_free(&out);
    pq_decode_plan_free(&plan);
}
END_TEST

/* An optional INT32 column known to hold no null (PQ_PLAN_NO_NULLS, from
 * its statistics): v1 pages of one run of 1s each, sized by their
 * headers, decoded in place, no definition levels kept. The same chunk
 * with a null in a page is refused, the statistics named; a DATA_PAGE_V2
 * page's num_nulls sizes it with nulls too, and a wrong num_nulls is
 * refused. */
START_TEST(optional_pages_sized_by_statistics_or_num_nulls)
{
    uint8_t chunk[96];
    size_t n = 0, a = n;
    n += put_i32(chunk + n, 2);
    chunk[n++] = 0x08, chunk[n++] = 0x01; /* a run of four 1s */
    for (int32_t v = 10; v < 14; v++) n += put_i32(chunk + n, v);
    size_t a_len = n - a, b = n;
    n += put_i32(chunk + n, 2);
    chunk[n++] = 0x06, chunk[n++] = 0x01; /* a run of three 1s */
    for (int32_t v = 20; v < 23; v++) n += put_i32(chunk + n, v);
    size_t b_len = n - b, c = n;
    n += put_i32(chunk + n, 2);
    chunk[n++] = 0x03, chunk[n++] = 0x0D; /* bit-packed 1,0,1,1: a null */
    for (int32_t v = 30; v < 33; v++) n += put_i32(chunk + n, v);
    size_t c_len = n - c;
    pq_page_info pages[3] = {pq_test_page(a, PQ_PAGE_DATA, (int32_t)a_len, 4, PQ_ENC_PLAIN),
                             pq_test_page(b, PQ_PAGE_DATA, (int32_t)b_len, 3, PQ_ENC_PLAIN),
                             pq_test_page(c, PQ_PAGE_DATA, (int32_t)c_len, 4, PQ_ENC_PLAIN)};
    pq_leaf leaf = leaf_of(PQ_INT32, 1);
    pq_decode_plan plan = {0};
    pq_error err = {0};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 2,
                                              PQ_PLAN_NO_NULLS, NULL, &err),
                     PQ_OK);
    ck_assert(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS);
    ck_assert(plan.chunks[0].flags & PQ_PLAN_CHUNK_NO_NULLS);
    ck_assert_uint_eq(plan.pages[1].value_offset, 4);
    ck_assert_uint_eq(plan.chunks[0].n_values, 7);
    pq_cpu_executor ex = {.run = run_backwards};
    pq_column_values out;
    pq_status cst;
    ck_assert_msg(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(out.n_levels, 7);
    ck_assert_uint_eq(out.n_values, 7);
    ck_assert_ptr_null(out.def_levels); /* no null: no levels */
    const int32_t want[7] = {10, 11, 12, 13, 20, 21, 22};
    ck_assert_mem_eq(out.values, want, sizeof want);
    pq_column_values_free(&out);
    pq_decode_plan_free(&plan);

    /* the statistics lied: the third page holds a null */
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3,
                                              PQ_PLAN_NO_NULLS, NULL, &err),
                     PQ_OK);
    ck_assert_int_eq(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "statistics count no null"), "%s", err.message);
    pq_decode_plan_free(&plan);

    /* a repeated leaf ignores the flag */
    pq_leaf rep = leaf_of(PQ_INT32, 1);
    rep.max_rep = 1;
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &rep, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 2,
                                              PQ_PLAN_NO_NULLS, NULL, &err),
                     PQ_OK);
    ck_assert(!(plan.chunks[0].flags & (PQ_PLAN_SIZED_BY_HEADERS | PQ_PLAN_CHUNK_NO_NULLS)));
    pq_decode_plan_free(&plan);

    /* DATA_PAGE_V2: levels 1,0,1,1 stored apart (2 bytes, no length), then
     * three values; num_nulls 1 sizes it */
    uint8_t v2[32];
    size_t m = 0;
    v2[m++] = 0x03, v2[m++] = 0x0D;
    for (int32_t v = 40; v < 43; v++) m += put_i32(v2 + m, v);
    pq_page_info p2 = pq_test_page(0, PQ_PAGE_DATA_V2, (int32_t)m, 4, PQ_ENC_PLAIN);
    p2.def_level_encoding = 0;
    p2.def_levels_byte_length = 2;
    p2.num_nulls = 1;
    p2.num_rows = 4;
    p2.is_compressed = false;
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, v2, m, &p2, 1, 0, NULL, &err),
                     PQ_OK);
    ck_assert(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS);
    ck_assert_uint_eq(plan.pages[0].n_values, 3);
    ck_assert_msg(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err) == PQ_OK, "%s", err.message);
    const int16_t defs[4] = {1, 0, 1, 1};
    ck_assert_uint_eq(out.n_values, 3);
    ck_assert_ptr_nonnull(out.def_levels);
    ck_assert_mem_eq(out.def_levels, defs, sizeof defs);
    const int32_t want2[3] = {40, 41, 42};
    ck_assert_mem_eq(out.values, want2, sizeof want2);
    pq_column_values_free(&out);
    pq_decode_plan_free(&plan);
    p2.num_nulls = 0; /* wrong: refused, not read past its values */
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, v2, m, &p2, 1, 0, NULL, &err),
                     PQ_OK);
    ck_assert_int_eq(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err), PQ_ERR_CORRUPT_DATA);
    pq_decode_plan_free(&plan);
}
END_TEST

/* Strings: PLAIN pages "ab","cde" and "f" take a size pass for their
 * bytes (offsets 0, 2, 5, 6); string views of a dictionary-encoded page
 * are sized by the headers. */
START_TEST(string_bytes_from_the_size_pass)
{
    uint8_t chunk[64];
    size_t n = 0, a = 0;
    n += pq_test_put_str(chunk + n, "ab");
    n += pq_test_put_str(chunk + n, "cde");
    size_t a_len = n, b = n;
    n += pq_test_put_str(chunk + n, "f");
    pq_page_info pages[2] = {pq_test_page(a, PQ_PAGE_DATA, (int32_t)a_len, 2, PQ_ENC_PLAIN),
                             pq_test_page(b, PQ_PAGE_DATA, (int32_t)(n - b), 1, PQ_ENC_PLAIN)};
    pq_leaf leaf = leaf_of(PQ_BYTE_ARRAY, 0);
    pq_decode_plan plan = {0};
    pq_error err = {0};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 2, 0, NULL, &err),
                     PQ_OK);
    ck_assert_int_eq(plan.chunks[0].output, PQ_PLAN_BYTES);
    ck_assert(!(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS));
    pq_cpu_executor ex = {.run = run_backwards};
    pq_column_values out;
    pq_status cst;
    ck_assert_msg(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(plan.pages[1].string_offset, 5);
    ck_assert_uint_eq(plan.chunks[0].string_bytes, 6);
    const int32_t offs[4] = {0, 2, 5, 6};
    ck_assert_mem_eq(out.offsets, offs, sizeof offs);
    ck_assert_uint_eq(out.data_len, 6);
    ck_assert_mem_eq(out.data, "abcdef", 6);
    pq_column_values_free(&out);
    pq_decode_plan_free(&plan);

    /* PQ_PLAN_EXACT_BYTES: the same pages sized by their headers (a page's
     * size less 4 bytes a value), decoded in place to the same values */
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 2,
                                              PQ_PLAN_EXACT_BYTES, NULL, &err),
                     PQ_OK);
    ck_assert(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS);
    ck_assert_uint_eq(plan.pages[0].string_bytes, 5);
    ck_assert_uint_eq(plan.pages[1].string_offset, 5);
    ck_assert_uint_eq(plan.chunks[0].string_bytes, 6);
    ck_assert_msg(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err) == PQ_OK, "%s", err.message);
    ck_assert_mem_eq(out.offsets, offs, sizeof offs);
    ck_assert_uint_eq(out.data_len, 6);
    ck_assert_mem_eq(out.data, "abcdef", 6);
    pq_column_values_free(&out);
    pq_decode_plan_free(&plan);
    /* a first page with bytes after its last value (fastparquet writes
     * two empty values more than its levels count): the bytes ignored, as
     * pyarrow ignores them, and the second page's moved down over the gap */
    uint8_t extra[64];
    size_t xn = 0;
    xn += pq_test_put_str(extra + xn, "ab");
    xn += pq_test_put_str(extra + xn, "cde");
    memcpy(extra + xn, "zz", 2);
    xn += 2;
    size_t xb = xn;
    xn += pq_test_put_str(extra + xn, "f");
    pq_page_info xpages[2] = {pq_test_page(0, PQ_PAGE_DATA, (int32_t)xb, 2, PQ_ENC_PLAIN),
                              pq_test_page(xb, PQ_PAGE_DATA, (int32_t)(xn - xb), 1, PQ_ENC_PLAIN)};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, extra, xn, xpages, 2,
                                              PQ_PLAN_EXACT_BYTES, NULL, &err),
                     PQ_OK);
    ck_assert(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS);
    ck_assert_uint_eq(plan.pages[1].string_offset, 7); /* planned with the gap */
    ck_assert_msg(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err) == PQ_OK, "%s", err.message);
    ck_assert_mem_eq(out.offsets, offs, sizeof offs);
    ck_assert_uint_eq(out.data_len, 6);
    ck_assert_mem_eq(out.data, "abcdef", 6);
    pq_column_values_free(&out);
    pq_decode_plan_free(&plan);
    /* an optional leaf's v1 pages (levels of unknown size): the size pass */
    pq_leaf opt = leaf_of(PQ_BYTE_ARRAY, 1);
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &opt, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 2,
                                              PQ_PLAN_EXACT_BYTES | PQ_PLAN_NO_NULLS, NULL, &err),
                     PQ_OK);
    ck_assert(!(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS));
    pq_decode_plan_free(&plan);
    /* ... whose size pass takes a page's bytes from its values section
     * once the levels are decoded (EXACT_BYTES), or from its lengths */
    uint8_t lchunk[64];
    size_t lm = 0;
    lm += put_i32(lchunk + lm, 2);
    lchunk[lm++] = 0x06, lchunk[lm++] = 0x01; /* an RLE run of three 1s: every value defined */
    lm += pq_test_put_str(lchunk + lm, "ab");
    lm += pq_test_put_str(lchunk + lm, "");
    lm += pq_test_put_str(lchunk + lm, "cde");
    memcpy(lchunk + lm, "zz", 2); /* bytes after the last value, in the second variant */
    const int32_t loffs[4] = {0, 2, 2, 5};
    for (int trailing = 0; trailing <= 2; trailing += 2)
        for (int exact = 0; exact <= 1; exact++) {
            pq_page_info lpage = pq_test_page(0, PQ_PAGE_DATA, (int32_t)lm + trailing, 3, PQ_ENC_PLAIN);
            ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &opt, PQ_CODEC_UNCOMPRESSED, lchunk, lm + trailing,
                                                      &lpage, 1, exact ? PQ_PLAN_EXACT_BYTES : 0, NULL, &err),
                             PQ_OK);
            ck_assert(!(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS));
            pq_status got = pq_decode_plan_execute(&ex, &plan, &out, &cst, &err);
            ck_assert_msg(got == PQ_OK, "trailing %d exact %d: %s", trailing, exact, err.message);
            ck_assert_uint_eq(out.n_values, 3);
            ck_assert_mem_eq(out.offsets, loffs, sizeof loffs);
            ck_assert_uint_eq(out.data_len, 5);
            ck_assert_mem_eq(out.data, "abcde", 5);
            pq_column_values_free(&out);
            pq_decode_plan_free(&plan);
        }

    /* views gathered from a dictionary: sized by the headers */
    uint8_t dchunk[64];
    size_t m = 0;
    m += pq_test_put_str(dchunk + m, "k");
    size_t idx_at = m;
    dchunk[m++] = 1, dchunk[m++] = 0x04, dchunk[m++] = 0x00; /* width 1, a run of two 0s */
    pq_page_info dpages[2] = {pq_test_page(0, PQ_PAGE_DICTIONARY, (int32_t)idx_at, 1, PQ_ENC_PLAIN),
                              pq_test_page(idx_at, PQ_PAGE_DATA, (int32_t)(m - idx_at), 2, PQ_ENC_RLE_DICTIONARY)};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, dchunk, m, dpages, 2,
                                              PQ_PLAN_STRING_VIEWS, NULL, &err),
                     PQ_OK);
    ck_assert_int_eq(plan.chunks[0].output, PQ_PLAN_VIEWS);
    ck_assert(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS);
    ck_assert_int_eq(plan.chunks[0].dictionary, 0);
    ck_assert_uint_eq(plan.chunks[0].n_values, 2);
    pq_decode_plan_free(&plan);

    /* the same dictionary-encoded page as `string`: counted by the size
     * pass, or sized by SizeStatistics (2 values of "k": 2 bytes),
     * decoded in place */
    int64_t stats_bytes[1] = {2};
    ck_assert_int_eq(pq_decode_plan_add_chunk_sized(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, dchunk, m, dpages, 2,
                                                    PQ_PLAN_EXACT_BYTES, NULL, NULL, &err),
                     PQ_OK);
    ck_assert(!(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS));
    pq_decode_plan_free(&plan);
    ck_assert_int_eq(pq_decode_plan_add_chunk_sized(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, dchunk, m, dpages, 2,
                                                    0, NULL, stats_bytes, &err),
                     PQ_OK);
    ck_assert(!(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS)); /* without EXACT_BYTES: not trusted */
    pq_decode_plan_free(&plan);
    ck_assert_int_eq(pq_decode_plan_add_chunk_sized(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, dchunk, m, dpages, 2,
                                                    PQ_PLAN_EXACT_BYTES, NULL, stats_bytes, &err),
                     PQ_OK);
    ck_assert(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS);
    ck_assert(plan.chunks[0].flags & PQ_PLAN_CHUNK_SIZE_STATISTICS);
    ck_assert_uint_eq(plan.chunks[0].string_bytes, 2);
    ck_assert_msg(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err) == PQ_OK, "%s", err.message);
    const int32_t koffs[3] = {0, 1, 2};
    ck_assert_mem_eq(out.offsets, koffs, sizeof koffs);
    ck_assert_uint_eq(out.data_len, 2);
    ck_assert_mem_eq(out.data, "kk", 2);
    pq_column_values_free(&out);
    pq_decode_plan_free(&plan);
    /* statistics that say fewer bytes are refused; more leave a gap,
     * closed (the values are what the page holds) */
    for (int64_t lie = 1; lie <= 3; lie += 2) {
        stats_bytes[0] = lie;
        ck_assert_int_eq(pq_decode_plan_add_chunk_sized(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, dchunk, m, dpages, 2,
                                                        PQ_PLAN_EXACT_BYTES, NULL, stats_bytes, &err),
                         PQ_OK);
        pq_status got = pq_decode_plan_execute(&ex, &plan, &out, &cst, &err);
        if (lie < 2) {
            ck_assert_int_eq(got, PQ_ERR_CORRUPT_DATA);
            ck_assert_msg(strstr(err.message, "SizeStatistics"), "%s", err.message);
        } else {
            ck_assert_msg(got == PQ_OK, "%s", err.message);
            ck_assert_mem_eq(out.offsets, koffs, sizeof koffs);
            ck_assert_uint_eq(out.data_len, 2);
            ck_assert_mem_eq(out.data, "kk", 2);
            pq_column_values_free(&out);
        }
        pq_decode_plan_free(&plan);
    }

    /* the indices of that chunk, and its dictionary */
    ck_assert_int_eq(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, dchunk, m, dpages, 2, 0,
                                            PQ_DECODE_INDICES, NULL, &out, &err),
                     PQ_OK);
    ck_assert_uint_eq(out.n_values, 2);
    ck_assert_uint_eq(out.width, 4);
    const uint32_t zeros[2] = {0, 0};
    ck_assert_mem_eq(out.values, zeros, sizeof zeros);
    ck_assert_ptr_nonnull(out.dictionary);
    ck_assert_uint_eq(out.dictionary->n_values, 1);
    ck_assert_mem_eq(out.dictionary->data, "k", 1);
    pq_column_values_free(&out);
    /* and PQ_DECODE_INDICES refused where a page is not dictionary-encoded */
    ck_assert_int_eq(pq_column_decode_flags(NULL, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 2, 0,
                                            PQ_DECODE_INDICES, NULL, &out, &err),
                     PQ_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.message, "page 0 (DATA_PAGE, PLAIN)"), "%s", err.message);
}
END_TEST

/* Headers the plan refuses, each naming the page. */
START_TEST(bad_headers_name_the_page)
{
    uint8_t chunk[16] = {0};
    pq_leaf leaf = leaf_of(PQ_INT32, 0);
    pq_decode_plan plan = {0};
    pq_error err = {0};
    pq_page_info out_of[2] = {pq_test_page(0, PQ_PAGE_DATA, 8, 2, PQ_ENC_PLAIN),
                              pq_test_page(8, PQ_PAGE_DATA, 12, 3, PQ_ENC_PLAIN)};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, 16, out_of, 2, 0, NULL,
                                              &err),
                     PQ_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "page 1 (DATA_PAGE, PLAIN): page data [8, +12) is outside the 16-byte chunk"),
                  "%s", err.message);
    ck_assert_uint_eq(plan.nchunks, 0); /* as before the call */
    pq_page_info no_dict[1] = {pq_test_page(0, PQ_PAGE_DATA, 4, 2, PQ_ENC_RLE_DICTIONARY)};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, 16, no_dict, 1, 0, NULL,
                                              &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "dictionary-encoded page without a dictionary page"), "%s", err.message);
    pq_page_info two_dicts[2] = {pq_test_page(0, PQ_PAGE_DICTIONARY, 4, 1, PQ_ENC_PLAIN),
                                 pq_test_page(4, PQ_PAGE_DICTIONARY, 4, 1, PQ_ENC_PLAIN)};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, 16, two_dicts, 2, 0, NULL,
                                              &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 1 (DICTIONARY_PAGE, PLAIN): a second dictionary page"), "%s",
                  err.message);
    pq_page_info negative[1] = {pq_test_page(0, PQ_PAGE_DATA, 4, -1, PQ_ENC_PLAIN)};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, 16, negative, 1, 0, NULL,
                                              &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "num_values -1"), "%s", err.message);
    pq_decode_plan_free(&plan);
}
END_TEST

/* Decodes chunk (pages) of leaf with plan flags `flags` and the row
 * selection `rows` (or NULL) into *out. */
static void decode_with(const pq_leaf *leaf, const uint8_t *chunk, size_t n, const pq_page_info *pages,
                        size_t npages, unsigned flags, const pq_decode_rows *rows, pq_column_values *out,
                        unsigned *chunk_flags)
{
    pq_decode_plan plan = {0};
    pq_error err = {0};
    ck_assert_msg(pq_decode_plan_add_chunk(&plan, leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, npages, flags, rows,
                                           &err) == PQ_OK,
                  "%s", err.message);
    *chunk_flags = plan.chunks[0].flags;
    pq_cpu_executor ex = {.run = run_backwards};
    pq_status cst;
    ck_assert_msg(pq_decode_plan_execute(&ex, &plan, out, &cst, &err) == PQ_OK, "%s", err.message);
    pq_decode_plan_free(&plan);
}

/* PQ_PLAN_DECIMAL128 from dictionaries of DICT_WIDE_MAX (4,096) entries,
 * which the executor widens once, and of one more, which it widens at each
 * gather: the same values either way, each the dictionary entry its index
 * names, sign-extended (the entries written here are the oracle). */
START_TEST(decimal128_from_small_and_large_dictionaries)
{
    static uint8_t chunk[8 * 4097 + 64];
    for (size_t entries = 4096; entries <= 4097; entries++) {
        size_t n = 0;
        for (size_t k = 0; k < entries; k++, n += 8) {
            int64_t v = (int64_t)(k * 7919) * (k % 2 ? -1 : 1) - (k % 3 ? 0 : (int64_t)1 << 40);
            memcpy(chunk + n, &v, 8);
        }
        const uint32_t idx[16] = {(uint32_t)entries - 1, 0, 2500, 1, 4095, 3, 17, 4000, 2, 9, 4094, 5, 6, 7, 8, 4093};
        size_t d1 = n;
        chunk[n++] = 13;   /* bit width: 4,097 entries need 13 bits */
        chunk[n++] = 0x05; /* a bit-packed run of 2 groups */
        memset(chunk + n, 0, 26);
        for (size_t i = 0; i < 16; i++)
            for (int b = 0; b < 13; b++)
                if ((idx[i] >> b) & 1) chunk[n + (i * 13 + (size_t)b) / 8] |= (uint8_t)(1u << ((i * 13 + (size_t)b) % 8));
        n += 26;
        pq_page_info pages[2] = {pq_test_page(0, PQ_PAGE_DICTIONARY, (int32_t)(8 * entries), (int32_t)entries,
                                              PQ_ENC_PLAIN),
                                 pq_test_page(d1, PQ_PAGE_DATA, 28, 16, PQ_ENC_RLE_DICTIONARY)};
        pq_leaf leaf = leaf_of(PQ_INT64, 0);
        pq_column_values wide;
        unsigned flags;
        decode_with(&leaf, chunk, n, pages, 2, PQ_PLAN_DECIMAL128, NULL, &wide, &flags);
        ck_assert_uint_eq(wide.n_values, 16);
        for (size_t i = 0; i < 16; i++) {
            int64_t entry, lo, hi;
            memcpy(&entry, chunk + 8 * idx[i], 8);
            memcpy(&lo, wide.values + 16 * i, 8);
            memcpy(&hi, wide.values + 16 * i + 8, 8);
            ck_assert_msg(lo == entry && hi == (entry < 0 ? -1 : 0), "%zu entries, value %zu", entries, i);
        }
        pq_column_values_free(&wide);
    }
}
END_TEST

/* PQ_PLAN_DECIMAL128: INT64 and INT32 values from a dictionary page, an
 * RLE_DICTIONARY page and a PLAIN page come out sign-extended to 16 bytes,
 * each equal to the value decoded as stored (the oracle: the same plan
 * without the flag, and the values written into the pages), every row and
 * a selection of rows; with a DELTA_BINARY_PACKED page the flag is ignored. */
START_TEST(decimal128_is_widened_as_decoded)
{
    for (int w = 4; w <= 8; w += 4) {
        const int64_t dict[3] = {-5, 7, w == 8 ? INT64_MIN + 1 : INT32_MIN};
        const int64_t plain[2] = {-1, 123456789};
        const uint8_t idx[4] = {2, 0, 1, 2};
        uint8_t chunk[128];
        size_t n = 0;
        for (int k = 0; k < 3; k++, n += (size_t)w) memcpy(chunk + n, &dict[k], (size_t)w); /* little-endian */
        size_t d1 = n;
        chunk[n++] = 2;    /* bit width */
        chunk[n++] = 0x03; /* one bit-packed group of 8 */
        chunk[n++] = (uint8_t)(idx[0] | idx[1] << 2 | idx[2] << 4 | idx[3] << 6);
        chunk[n++] = 0;
        size_t p1 = n;
        for (int k = 0; k < 2; k++, n += (size_t)w) memcpy(chunk + n, &plain[k], (size_t)w);
        pq_page_info pages[3] = {pq_test_page(0, PQ_PAGE_DICTIONARY, 3 * w, 3, PQ_ENC_PLAIN),
                                 pq_test_page(d1, PQ_PAGE_DATA, 4, 4, PQ_ENC_RLE_DICTIONARY),
                                 pq_test_page(p1, PQ_PAGE_DATA, 2 * w, 2, PQ_ENC_PLAIN)};
        const int64_t want[6] = {dict[2], dict[0], dict[1], dict[2], plain[0], plain[1]};
        pq_leaf leaf = leaf_of(w == 8 ? PQ_INT64 : PQ_INT32, 0);
        const uint8_t keep_bits = 0x29; /* rows 0, 3, 5 */
        const pq_decode_rows some = {.keep = &keep_bits, .first = 0, .count = 6};
        for (int sel = 0; sel < 2; sel++) {
            const pq_decode_rows *rows = sel ? &some : NULL;
            pq_column_values as_is, wide;
            unsigned f_as_is, f_wide;
            decode_with(&leaf, chunk, n, pages, 3, 0, rows, &as_is, &f_as_is);
            decode_with(&leaf, chunk, n, pages, 3, PQ_PLAN_DECIMAL128, rows, &wide, &f_wide);
            ck_assert(!(f_as_is & PQ_PLAN_CHUNK_DECIMAL128) && (f_wide & PQ_PLAN_CHUNK_DECIMAL128));
            ck_assert(wide.decimal128 && !as_is.decimal128);
            ck_assert_uint_eq(wide.width, 16);
            ck_assert_uint_eq(as_is.width, (size_t)w);
            ck_assert_uint_eq(wide.n_values, sel ? 3 : 6);
            ck_assert_uint_eq(as_is.n_values, wide.n_values);
            for (size_t k = 0, row = 0; k < wide.n_values; k++, row++) {
                while (sel && !((keep_bits >> row) & 1)) row++;
                int64_t lo, hi, stored = 0;
                memcpy(&lo, wide.values + 16 * k, 8);
                memcpy(&hi, wide.values + 16 * k + 8, 8);
                if (w == 4) {
                    int32_t y;
                    memcpy(&y, as_is.values + 4 * k, 4);
                    stored = y;
                } else {
                    memcpy(&stored, as_is.values + 8 * k, 8);
                }
                if (lo != want[row] || stored != want[row] || hi != (want[row] < 0 ? -1 : 0))
                    ck_abort_msg("width %d, value %zu (row %zu): %lld:%lld widened, %lld stored, want %lld", w, k, row,
                                 (long long)hi, (long long)lo, (long long)stored, (long long)want[row]);
            }
            pq_column_values_free(&as_is);
            pq_column_values_free(&wide);
        }
        /* A DELTA_BINARY_PACKED page: decoded as stored, the flag ignored. */
        pq_page_info delta[2] = {pages[2], pq_test_page(p1, PQ_PAGE_DATA, 2 * w, 2, PQ_ENC_DELTA_BINARY_PACKED)};
        pq_decode_plan plan = {0};
        pq_error err = {0};
        ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, delta, 2,
                                                  PQ_PLAN_DECIMAL128, NULL, &err),
                         PQ_OK);
        ck_assert(!(plan.chunks[0].flags & PQ_PLAN_CHUNK_DECIMAL128));
        ck_assert_uint_eq(plan.chunks[0].width, (uint32_t)w);
        pq_decode_plan_free(&plan);
    }
}
END_TEST

/* A sparse selection of a required PLAIN BYTE_ARRAY page (SNAPPY, ZSTD): the
 * selected strings (the oracle: the strings written into the page, and the
 * same page decoded whole) with the selection's last row early in the page,
 * where only a prefix is decompressed: a stream whose tail is broken still
 * gives them, while a selection that reaches the tail, or the whole page,
 * names the broken stream. String views and offsets both. */
START_TEST(sparse_plain_pages_decompress_a_prefix)
{
    enum { N = 12000 }; /* about 400 KB: zstd blocks of at most 128 KiB, the broken one last */
    const int32_t codec = _i ? PQ_CODEC_ZSTD : PQ_CODEC_SNAPPY;
    size_t raw_cap = N * 64, n = 0;
    uint8_t *raw = malloc(raw_cap);
    char s[64];
    for (int i = 0; i < N; i++) { /* lengths 8..40: views inline and not */
        int len = snprintf(s, sizeof s, "value %d %.*s", i * 7919 % 10007, i % 33, "abcdefghijklmnopqrstuvwxyz0123456");
        n += put_i32(raw + n, len);
        memcpy(raw + n, s, (size_t)len);
        n += (size_t)len;
    }
    size_t clen = codec == PQ_CODEC_ZSTD ? ZSTD_compressBound(n) : snappy_max_compressed_length(n);
    uint8_t *comp = malloc(clen);
    if (codec == PQ_CODEC_ZSTD) {
        clen = ZSTD_compress(comp, clen, raw, n, 1);
        ck_assert(!ZSTD_isError(clen));
    } else {
        ck_assert_int_eq(snappy_compress((const char *)raw, n, (char *)comp, &clen), SNAPPY_OK);
    }
    pq_page_info page = pq_test_page(0, PQ_PAGE_DATA, (int32_t)clen, N, PQ_ENC_PLAIN);
    page.uncompressed_size = (int32_t)n;
    pq_leaf leaf = leaf_of(PQ_BYTE_ARRAY, 0);
    uint8_t keep[N / 8 + 1];
    for (int broken = 0; broken < 2; broken++) {
        if (broken) /* the last 100 stored bytes (snappy: a copy reaching before the output's start) */
            for (size_t k = clen - 100; k < clen; k++) comp[k] = 0xff;
        for (int late = 0; late < 2; late++) {
            memset(keep, 0, sizeof keep);
            const int rows[4] = {3, 17, 250, late ? N - 1 : 400};
            for (int k = 0; k < 4; k++) keep[rows[k] / 8] |= (uint8_t)(1u << (rows[k] % 8));
            pq_decode_rows sel = {.keep = keep, .first = 0, .count = N};
            for (int views = 0; views < 2; views++) {
                pq_decode_plan plan = {0};
                pq_error err = {0};
                ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, codec, comp, clen, &page, 1,
                                                          views ? PQ_PLAN_STRING_VIEWS : 0, &sel, &err),
                                 PQ_OK);
                pq_cpu_executor ex = {.run = run_backwards};
                pq_column_values out;
                pq_status cst, st = pq_decode_plan_execute(&ex, &plan, &out, &cst, &err);
                pq_decode_plan_free(&plan);
                if (broken && late) {
                    ck_assert_int_eq(st, PQ_ERR_CORRUPT_DATA);
                    ck_assert_msg(strstr(err.message, pq_codec_name(codec)), "%s", err.message);
                    continue;
                }
                ck_assert_msg(st == PQ_OK, "broken %d late %d views %d: %s", broken, late, views, err.message);
                ck_assert_uint_eq(out.n_values, 4);
                for (int k = 0; k < 4; k++) {
                    size_t at = 0;
                    for (int i = 0; i < rows[k]; i++) at += 4 + (size_t)pq_load_le32(raw + at);
                    size_t want_len = pq_load_le32(raw + at);
                    const uint8_t *want = raw + at + 4, *got;
                    size_t got_len;
                    if (views) {
                        const uint8_t *v = out.views + 16 * k;
                        got_len = pq_load_le32(v);
                        got = got_len <= 12 ? v + 4 : out.view_bufs[pq_load_le32(v + 8)] + pq_load_le32(v + 12);
                    } else {
                        got_len = (size_t)(out.offsets[k + 1] - out.offsets[k]);
                        got = out.data + out.offsets[k];
                    }
                    if (got_len != want_len || memcmp(got, want, want_len) != 0)
                        ck_abort_msg("broken %d late %d views %d: row %d is '%.*s', want '%.*s'", broken, late, views,
                                     rows[k], (int)got_len, (const char *)got, (int)want_len, (const char *)want);
                }
                pq_column_values_free(&out);
            }
        }
    }
    /* The broken stream decoded whole: refused. */
    pq_column_values out;
    pq_error err = {0};
    ck_assert_int_eq(pq_column_decode(&leaf, codec, comp, clen, &page, 1, 0, &out, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, pq_codec_name(codec)), "%s", err.message);
    free(comp);
    free(raw);
}
END_TEST

/* PLAIN string pages under a row selection: a page with at most a quarter
 * of its rows selected is decoded into buffers of its own and copied into
 * place, the others counted by the size pass and decoded in place; in one
 * chunk, in every order the pool may run them, the values kept are the
 * selected rows', at offsets summed by hand. */
static unsigned run_forwards(size_t n, unsigned threads, bool (*task)(void *ctx, size_t i, unsigned worker),
                             void *ctx);

START_TEST(plain_strings_sparse_and_dense_selections)
{
    static const char *const a[4] = {"a0", "a11", "a2", "a333"};
    static const char *const b[8] = {"b0", "b11", "b222", "b3", "b44", "b5", "b666", "b7"};
    uint8_t chunk[128];
    size_t n = 0;
    for (int i = 0; i < 4; i++) n += pq_test_put_str(chunk + n, a[i]);
    size_t b_at = n;
    for (int i = 0; i < 8; i++) n += pq_test_put_str(chunk + n, b[i]);
    pq_page_info pages[2] = {pq_test_page(0, PQ_PAGE_DATA, (int32_t)b_at, 4, PQ_ENC_PLAIN),
                             pq_test_page(b_at, PQ_PAGE_DATA, (int32_t)(n - b_at), 8, PQ_ENC_PLAIN)};
    pq_leaf leaf = leaf_of(PQ_BYTE_ARRAY, 0);
    /* rows 0, 1 and 3 of the first page (3 of 4: dense), 6 and 10 of the
     * second (2 of 8: sparse, copied to a place after the first's bytes) */
    uint8_t keep[2] = {(1u << 0) | (1u << 1) | (1u << 3) | (1u << 6), 1u << 2};
    pq_decode_rows sel = {.keep = keep, .first = 0, .count = 12};
    const char *want = "a0a11a333b222b666";
    const int32_t offs[6] = {0, 2, 5, 9, 13, 17};
    for (int order = 0; order < 2; order++) {
        pq_decode_plan plan = {0};
        pq_error err = {0};
        ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 2,
                                                  PQ_PLAN_EXACT_BYTES, &sel, &err),
                         PQ_OK);
        pq_cpu_executor ex = {.run = order ? run_forwards : run_backwards};
        pq_column_values out;
        pq_status cst;
        ck_assert_msg(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err) == PQ_OK, "%s", err.message);
        ck_assert_uint_eq(out.n_values, 5);
        ck_assert_mem_eq(out.offsets, offs, sizeof offs);
        ck_assert_uint_eq(out.data_len, 17);
        ck_assert_mem_eq(out.data, want, 17);
        pq_column_values_free(&out);
        pq_decode_plan_free(&plan);
    }
}
END_TEST

/* String views of a required column's PLAIN pages are sized by the page
 * headers (the page's bytes less a 4-byte length a value), so every page
 * decodes straight into place: the offsets are the hand-summed sizes, the
 * views name the strings written, and a page with 3 bytes after its last
 * value leaves a zeroed gap no view points into. An optional column's
 * pages (levels in front) still take the size pass. */
START_TEST(plain_views_are_sized_by_their_headers)
{
    uint8_t chunk[128];
    size_t n = 0;
    const char *strs[5] = {"ab", "a string past twelve", "c", "the last one, long too", ""};
    size_t at[3];
    at[0] = n;
    n += pq_test_put_str(chunk + n, strs[0]);
    n += pq_test_put_str(chunk + n, strs[1]);
    at[1] = n;
    n += pq_test_put_str(chunk + n, strs[2]);
    memcpy(chunk + n, "\xee\xee\xee", 3); /* after the page's last value */
    n += 3;
    at[2] = n;
    n += pq_test_put_str(chunk + n, strs[3]);
    n += pq_test_put_str(chunk + n, strs[4]);
    pq_page_info pages[3] = {pq_test_page(at[0], PQ_PAGE_DATA, (int32_t)(at[1] - at[0]), 2, PQ_ENC_PLAIN),
                             pq_test_page(at[1], PQ_PAGE_DATA, (int32_t)(at[2] - at[1]), 1, PQ_ENC_PLAIN),
                             pq_test_page(at[2], PQ_PAGE_DATA, (int32_t)(n - at[2]), 2, PQ_ENC_PLAIN)};
    pq_leaf leaf = leaf_of(PQ_BYTE_ARRAY, 0);
    pq_decode_plan plan = {0};
    pq_error err = {0};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3,
                                              PQ_PLAN_STRING_VIEWS, NULL, &err),
                     PQ_OK);
    ck_assert(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS);
    const uint64_t sizes[3] = {2 + 20, 1 + 3, 22 + 0}, offs[3] = {0, 22, 26};
    for (int p = 0; p < 3; p++) {
        ck_assert_uint_eq(plan.pages[p].string_bytes, sizes[p]);
        ck_assert_uint_eq(plan.pages[p].string_offset, offs[p]);
    }
    ck_assert_uint_eq(plan.chunks[0].string_bytes, 48);
    pq_cpu_executor ex = {.run = run_backwards};
    pq_column_values out;
    pq_status cst;
    ck_assert_msg(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(out.n_values, 5);
    ck_assert_uint_eq(out.view_buf_lens[0], 48);
    for (int k = 0; k < 5; k++) {
        const uint8_t *v = out.views + 16 * k;
        size_t len = pq_load_le32(v);
        const uint8_t *got = len <= 12 ? v + 4 : out.view_bufs[pq_load_le32(v + 8)] + pq_load_le32(v + 12);
        if (len != strlen(strs[k]) || memcmp(got, strs[k], len) != 0)
            ck_abort_msg("value %d: '%.*s', want '%s'", k, (int)len, (const char *)got, strs[k]);
    }
    ck_assert_mem_eq(out.view_bufs[0] + 23, "\0\0\0", 3); /* the gap after "c" */
    pq_column_values_free(&out);
    pq_decode_plan_free(&plan);

    /* optional: a size pass */
    pq_leaf opt = leaf_of(PQ_BYTE_ARRAY, 1);
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &opt, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 3,
                                              PQ_PLAN_STRING_VIEWS, NULL, &err),
                     PQ_OK);
    ck_assert(!(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS));
    pq_decode_plan_free(&plan);

    /* optional without nulls (its statistics say so): sized by the
     * headers, at most each page's size less its lengths; the same
     * strings back (v1 pages of a run of 1s before the values) */
    uint8_t opt_chunk[160];
    size_t m = 0, o_at[3];
    const int counts[3] = {2, 1, 2};
    for (int p = 0, k = 0; p < 3; p++) {
        o_at[p] = m;
        m += put_i32(opt_chunk + m, 2);
        opt_chunk[m++] = (uint8_t)(counts[p] << 1), opt_chunk[m++] = 0x01;
        for (int j = 0; j < counts[p]; j++) m += pq_test_put_str(opt_chunk + m, strs[k++]);
    }
    pq_page_info opages[3];
    for (int p = 0; p < 3; p++)
        opages[p] = pq_test_page(o_at[p], PQ_PAGE_DATA, (int32_t)((p < 2 ? o_at[p + 1] : m) - o_at[p]), counts[p],
                                 PQ_ENC_PLAIN);
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &opt, PQ_CODEC_UNCOMPRESSED, opt_chunk, m, opages, 3,
                                              PQ_PLAN_STRING_VIEWS | PQ_PLAN_NO_NULLS, NULL, &err),
                     PQ_OK);
    ck_assert(plan.chunks[0].flags & PQ_PLAN_SIZED_BY_HEADERS);
    const uint64_t room[3] = {6 + 22, 6 + 1, 6 + 22}; /* levels (6 bytes) counted as room */
    for (int p = 0; p < 3; p++) ck_assert_uint_eq(plan.pages[p].string_bytes, room[p]);
    ck_assert_msg(pq_decode_plan_execute(&ex, &plan, &out, &cst, &err) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(out.n_values, 5);
    for (int k = 0; k < 5; k++) {
        const uint8_t *v = out.views + 16 * k;
        size_t len = pq_load_le32(v);
        const uint8_t *got = len <= 12 ? v + 4 : out.view_bufs[pq_load_le32(v + 8)] + pq_load_le32(v + 12);
        if (len != strlen(strs[k]) || memcmp(got, strs[k], len) != 0)
            ck_abort_msg("optional value %d: '%.*s', want '%s'", k, (int)len, (const char *)got, strs[k]);
    }
    pq_column_values_free(&out);
    pq_decode_plan_free(&plan);
}
END_TEST

/* Compresses n bytes of raw with `codec` (SNAPPY or ZSTD) into out (room
 * for the bound); returns the compressed size. */
static size_t compress_with(int32_t codec, const uint8_t *raw, size_t n, uint8_t *out)
{
    if (codec == PQ_CODEC_ZSTD) {
        size_t c = ZSTD_compress(out, ZSTD_compressBound(n), raw, n, 1);
        ck_assert(!ZSTD_isError(c));
        return c;
    }
    size_t c = snappy_max_compressed_length(n);
    ck_assert_int_eq(snappy_compress((const char *)raw, n, (char *)out, &c), SNAPPY_OK);
    return c;
}

/* A late dictionary: a sparse selection (rows 5, 17 and 600 of 2 x 1000)
 * of a chunk whose 20,000-entry dictionary page (INT64 as stored, INT64 as
 * decimal128, strings as views; SNAPPY, ZSTD) is used by its first entries
 * alone decompresses the page only that far: the values equal the entries
 * written (the oracle) and the executor's whole_dictionaries run, the plan
 * counts the bytes left, and a page whose tail is broken still gives them,
 * while whole_dictionaries, or a selected row whose index is the last
 * entry, names the broken stream. */
START_TEST(late_dictionary_decompresses_a_prefix)
{
    enum { ENTRIES = 20000, ROWS = 1000 };
    const int32_t codec = _i ? PQ_CODEC_ZSTD : PQ_CODEC_SNAPPY;
    uint8_t *raw = malloc(ENTRIES * 48), *chunk = malloc(ENTRIES * 64 + 65536);
    char s[64];
    for (int kind = 0; kind < 3; kind++) { /* INT64, INT64 widened to decimal128, string views */
        bool strings = kind == 2;
        /* the dictionary page: entry e is 7919 e - 5,000,000, or a string of 5..40 bytes */
        size_t dn = 0;
        for (int e = 0; e < ENTRIES; e++) {
            if (strings) {
                snprintf(s, sizeof s, "entry %05d %.*s", e, e % 29, "abcdefghijklmnopqrstuvwxyzABC");
                dn += pq_test_put_str(raw + dn, s);
            } else {
                int64_t v = (int64_t)e * 7919 - 5000000;
                memcpy(raw + dn, &v, 8);
                dn += 8;
            }
        }
        for (int broken = 0; broken < 2; broken++) {
            for (int far = 0; far < 2; far++) {
                /* indices: row r takes entry (r * 7) % 300, but row 600 the last entry when far */
                uint32_t idx[2 * ROWS];
                for (int r = 0; r < 2 * ROWS; r++) idx[r] = (uint32_t)((r * 7) % 300);
                if (far) idx[600] = ENTRIES - 1;
                size_t n = compress_with(codec, raw, dn, chunk);
                if (broken) /* the last 100 stored bytes */
                    for (size_t k = n - 100; k < n; k++) chunk[k] = 0xff;
                pq_page_info pages[3];
                pages[0] = pq_test_page(0, PQ_PAGE_DICTIONARY, (int32_t)n, ENTRIES, PQ_ENC_PLAIN);
                pages[0].uncompressed_size = (int32_t)dn;
                for (int pg = 0; pg < 2; pg++) { /* RLE runs of one: bit width 15, a 2-byte value each */
                    uint8_t page[1 + 3 * ROWS];
                    size_t pn = 0;
                    page[pn++] = 15;
                    for (int r = 0; r < ROWS; r++) {
                        page[pn++] = 2; /* a run of 1 */
                        page[pn++] = (uint8_t)(idx[pg * ROWS + r] & 0xff);
                        page[pn++] = (uint8_t)(idx[pg * ROWS + r] >> 8);
                    }
                    size_t at = n;
                    n += compress_with(codec, page, pn, chunk + at);
                    pages[1 + pg] = pq_test_page(at, PQ_PAGE_DATA, (int32_t)(n - at), ROWS, PQ_ENC_RLE_DICTIONARY);
                    pages[1 + pg].uncompressed_size = (int32_t)pn;
                }
                const int rows[3] = {5, 17, 600};
                uint8_t keep[2 * ROWS / 8] = {0};
                for (int k = 0; k < 3; k++) keep[rows[k] / 8] |= (uint8_t)(1u << (rows[k] % 8));
                pq_decode_rows sel = {.keep = keep, .first = 0, .count = 2 * ROWS};
                pq_leaf leaf = leaf_of(strings ? PQ_BYTE_ARRAY : PQ_INT64, 0);
                unsigned flags = strings ? PQ_PLAN_STRING_VIEWS : kind == 1 ? PQ_PLAN_DECIMAL128 : 0;
                for (int whole = 0; whole < 2; whole++) {
                    pq_decode_plan plan = {0};
                    pq_error err = {0};
                    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, codec, chunk, n, pages, 3, flags, &sel,
                                                              &err),
                                     PQ_OK);
                    pq_cpu_executor ex = {.run = run_backwards, .whole_dictionaries = whole};
                    pq_column_values out;
                    pq_status cst, st = pq_decode_plan_execute(&ex, &plan, &out, &cst, &err);
                    uint64_t skipped = plan.chunks[0].dictionary_skipped;
                    pq_decode_plan_free(&plan);
                    if (broken && (whole || far)) {
                        ck_assert_int_eq(st, PQ_ERR_CORRUPT_DATA);
                        ck_assert_msg(strstr(err.message, pq_codec_name(codec)), "%s", err.message);
                        continue;
                    }
                    ck_assert_msg(st == PQ_OK, "kind %d broken %d far %d whole %d: %s", kind, broken, far, whole,
                                  err.message);
                    ck_assert_uint_eq(out.n_values, 3);
                    if (whole || far) ck_assert_uint_eq(skipped, 0);
                    else ck_assert_msg(skipped > dn / 2 && skipped < dn, "%llu of %zu bytes skipped",
                                       (unsigned long long)skipped, dn);
                    for (int k = 0; k < 3; k++) {
                        uint32_t e = idx[rows[k]];
                        if (strings) {
                            snprintf(s, sizeof s, "entry %05u %.*s", e, (int)(e % 29), "abcdefghijklmnopqrstuvwxyzABC");
                            const uint8_t *v = out.views + 16 * k, *got;
                            size_t got_len = pq_load_le32(v);
                            got = got_len <= 12 ? v + 4 : out.view_bufs[pq_load_le32(v + 8)] + pq_load_le32(v + 12);
                            if (got_len != strlen(s) || memcmp(got, s, got_len) != 0)
                                ck_abort_msg("row %d: '%.*s', want '%s'", rows[k], (int)got_len, (const char *)got, s);
                        } else {
                            int64_t want = (int64_t)e * 7919 - 5000000, lo, hi = want < 0 ? -1 : 0;
                            memcpy(&lo, out.values + (kind == 1 ? 16 : 8) * (size_t)k, 8);
                            if (kind == 1) memcpy(&hi, out.values + 16 * (size_t)k + 8, 8);
                            if (lo != want || hi != (want < 0 ? -1 : 0))
                                ck_abort_msg("kind %d row %d: %lld:%lld, want %lld", kind, rows[k], (long long)hi,
                                             (long long)lo, (long long)want);
                        }
                    }
                    /* the views' dictionary buffer: the entries up to the largest used */
                    if (strings && !whole && !far) ck_assert_uint_lt(out.view_buf_lens[1], dn / 2);
                    pq_column_values_free(&out);
                }
            }
        }
    }
    free(chunk);
    free(raw);
}
END_TEST

/* Late dictionaries decoded whole (a selected row uses the last entry) are
 * decompressed two at a time (cpu_exec.c late_dictionary_pair), the one
 * left over after the run alone: a plan of three SNAPPY chunks, each a
 * 20,000-entry INT64 dictionary (entry e of chunk c: 7919 e + c) and two
 * pages of 1,000 indices, rows 5, 17 and 600 selected (600 the last
 * entry). Every chunk's values equal its entries; with chunk `bad`'s
 * dictionary broken, that chunk alone fails, naming SNAPPY and its
 * dictionary page, and the others' values are still right. Run backwards
 * and forwards (the pairs differ). */
static unsigned run_forwards(size_t n, unsigned threads, bool (*task)(void *ctx, size_t i, unsigned worker), void *ctx)
{
    (void)threads;
    for (size_t i = 0; i < n; i++) task(ctx, i, 0);
    return 1;
}

START_TEST(late_dictionaries_in_pairs)
{
    enum { ENTRIES = 20000, ROWS = 1000, CHUNKS = 3 };
    uint8_t *raw = malloc(ENTRIES * 8), *chunks[CHUNKS];
    size_t lens[CHUNKS];
    pq_page_info pages[CHUNKS][3];
    const int rows[3] = {5, 17, 600};
    uint8_t keep[2 * ROWS / 8] = {0};
    for (int k = 0; k < 3; k++) keep[rows[k] / 8] |= (uint8_t)(1u << (rows[k] % 8));
    pq_decode_rows sel = {.keep = keep, .first = 0, .count = 2 * ROWS};
    pq_leaf leaf = leaf_of(PQ_INT64, 0);
    for (int bad = -1; bad < CHUNKS; bad++) {
        for (int c = 0; c < CHUNKS; c++) {
            for (int e = 0; e < ENTRIES; e++) {
                int64_t v = (int64_t)e * 7919 + c;
                memcpy(raw + 8 * (size_t)e, &v, 8);
            }
            chunks[c] = malloc(ENTRIES * 16 + 65536);
            size_t n = compress_with(PQ_CODEC_SNAPPY, raw, ENTRIES * 8, chunks[c]);
            if (c == bad) /* the preamble says one byte fewer than the header */
                chunks[c][0] = (uint8_t)(chunks[c][0] - 1);
            pages[c][0] = pq_test_page(0, PQ_PAGE_DICTIONARY, (int32_t)n, ENTRIES, PQ_ENC_PLAIN);
            pages[c][0].uncompressed_size = ENTRIES * 8;
            for (int pg = 0; pg < 2; pg++) { /* RLE runs of one: bit width 15 */
                uint8_t page[1 + 3 * ROWS];
                size_t pn = 0;
                page[pn++] = 15;
                for (int r = 0; r < ROWS; r++) {
                    uint32_t idx = pg * ROWS + r == 600 ? ENTRIES - 1 : (uint32_t)((r * 7 + c) % 300);
                    page[pn++] = 2;
                    page[pn++] = (uint8_t)(idx & 0xff);
                    page[pn++] = (uint8_t)(idx >> 8);
                }
                size_t at = n;
                n += compress_with(PQ_CODEC_SNAPPY, page, pn, chunks[c] + at);
                pages[c][1 + pg] = pq_test_page(at, PQ_PAGE_DATA, (int32_t)(n - at), ROWS, PQ_ENC_RLE_DICTIONARY);
                pages[c][1 + pg].uncompressed_size = (int32_t)pn;
            }
            lens[c] = n;
        }
        for (int order = 0; order < 2; order++) {
            pq_decode_plan plan = {0};
            pq_error err = {0};
            for (int c = 0; c < CHUNKS; c++)
                ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_SNAPPY, chunks[c], lens[c], pages[c],
                                                          3, 0, &sel, &err),
                                 PQ_OK);
            pq_cpu_executor ex = {.run = order ? run_forwards : run_backwards};
            pq_column_values out[CHUNKS];
            pq_status cst[CHUNKS];
            pq_error errs[CHUNKS];
            pq_status st = pq_decode_plan_execute(&ex, &plan, out, cst, errs);
            ck_assert_int_eq(st, bad < 0 ? PQ_OK : PQ_ERR_CORRUPT_DATA);
            for (int c = 0; c < CHUNKS; c++) {
                ck_assert_uint_eq(plan.chunks[c].dictionary_skipped, 0);
                if (c == bad) {
                    ck_assert_int_eq(cst[c], PQ_ERR_CORRUPT_DATA);
                    ck_assert_msg(strstr(errs[c].message, "SNAPPY") && strstr(errs[c].message, "DICTIONARY"),
                                  "chunk %d: %s", c, errs[c].message);
                    continue;
                }
                ck_assert_msg(cst[c] == PQ_OK, "bad %d order %d chunk %d: %s", bad, order, c, errs[c].message);
                ck_assert_uint_eq(out[c].n_values, 3);
                for (int k = 0; k < 3; k++) {
                    int64_t got, want = (int64_t)(rows[k] == 600 ? ENTRIES - 1 : (rows[k] * 7 + c) % 300) * 7919 + c;
                    memcpy(&got, out[c].values + 8 * (size_t)k, 8);
                    if (got != want)
                        ck_abort_msg("bad %d order %d chunk %d row %d: %lld, want %lld", bad, order, c, rows[k],
                                     (long long)got, (long long)want);
                }
                pq_column_values_free(&out[c]);
            }
            pq_decode_plan_free(&plan);
        }
        for (int c = 0; c < CHUNKS; c++) free(chunks[c]);
    }
    free(raw);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("decode plan");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, required_pages_are_sized_by_their_headers);
    tcase_add_test(tc, optional_pages_take_a_size_pass);
    tcase_add_test(tc, optional_pages_sized_by_statistics_or_num_nulls);
    tcase_add_test(tc, string_bytes_from_the_size_pass);
    tcase_add_test(tc, bad_headers_name_the_page);
    tcase_add_test(tc, decimal128_is_widened_as_decoded);
    tcase_add_test(tc, decimal128_from_small_and_large_dictionaries);
    tcase_add_test(tc, plain_views_are_sized_by_their_headers);
    tcase_add_loop_test(tc, sparse_plain_pages_decompress_a_prefix, 0, 2);
    tcase_add_test(tc, plain_strings_sparse_and_dense_selections);
    tcase_add_loop_test(tc, late_dictionary_decompresses_a_prefix, 0, 2);
    tcase_add_test(tc, late_dictionaries_in_pairs);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
