/*
 * fuzz_pages.c — libFuzzer target for the page layer: the input is taken as
 * a column chunk's bytes. Every page header is decoded and walked (with CRC
 * checks), each page's data is decompressed with a codec picked from the
 * input, and v1 data pages have their definition levels run through the
 * RLE/bit-packed decoder. Then the whole chunk goes through
 * pq_column_decode for a leaf (physical type, levels) picked from the input:
 * decompression, levels, every value encoding, dictionaries. Nothing may
 * crash, leak or read out of bounds; successful results must keep their
 * promises (pages inside the input, counts and offsets consistent).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/rle.h"
#include "pages/cpu_exec.h"
#include "pages/codec.h"
#include "pages/page_header.h"
#include "pages/page_walk.h"

#define FUZZ_CHECK(cond, what)                                                                   \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "fuzz_pages: broken promise: %s\n", what);                           \
            abort();                                                                             \
        }                                                                                        \
    } while (0)

/* Cap on a decompression buffer: pages claim sizes, the fuzzer lies. */
#define MAX_PAGE_OUT (1u << 20)

static void decode_levels(const uint8_t *page, size_t len, int32_t num_values, int bit_width)
{
    pq_rle_decoder d;
    pq_error err;
    size_t consumed = 0;
    if (pq_rle_init_prefixed(&d, page, len, bit_width, &consumed, &err) != PQ_OK) return;
    FUZZ_CHECK(consumed <= len, "levels section inside the page");
    uint32_t out[64];
    size_t left = num_values > 0 ? (size_t)num_values : 0;
    if (left > 1u << 16) left = 1u << 16;
    while (left) {
        size_t got = 0;
        size_t want = left < 64 ? left : 64;
        if (pq_rle_next(&d, out, want, &got, &err) != PQ_OK || got == 0) break;
        /* Values are not masked to the width (an RLE run stores whole bytes):
         * the decode stage checks them against the max level. */
        FUZZ_CHECK(got <= want, "rle wrote at most what was asked");
        left -= got;
    }
}

/* The chunk as the column `pick` describes, through the decoder the decode
 * stage uses; on success the output must add up. */
static void decode_chunk(const uint8_t *data, size_t size, const pq_page_info *pages, size_t npages,
                         int32_t codec, uint8_t pick)
{
    static const int32_t types[8] = {PQ_BOOLEAN, PQ_INT32, PQ_INT64, PQ_INT96,
                                     PQ_FLOAT, PQ_DOUBLE, PQ_BYTE_ARRAY, PQ_FIXED_LEN_BYTE_ARRAY};
    pq_leaf leaf;
    memset(&leaf, 0, sizeof leaf);
    leaf.path = "fuzz";
    leaf.physical_type = types[pick & 7];
    leaf.type_length = 1 + 5 * (pick >> 6); /* FLBA: 1, 6, 11, 16 */
    leaf.max_def = (int16_t)((pick >> 3) & 3);
    leaf.max_rep = (int16_t)((pick >> 5) & 1);
    pq_column_values v;
    pq_error err;
    /* 16 MiB: a 168-byte page of RLE dictionary indices may validly declare
     * millions of values; a smaller cap keeps such units fast under ASan. */
    if (pq_column_decode(&leaf, codec, data, size, pages, npages, 16u << 20, &v, &err) != PQ_OK) return;
    FUZZ_CHECK(v.n_values <= v.n_levels, "no more values than slots");
    for (size_t i = 0; v.def_levels && i < v.n_levels; i++)
        FUZZ_CHECK(v.def_levels[i] >= 0 && v.def_levels[i] <= leaf.max_def, "definition level in range");
    for (size_t i = 0; v.rep_levels && i < v.n_levels; i++)
        FUZZ_CHECK(v.rep_levels[i] >= 0 && v.rep_levels[i] <= leaf.max_rep, "repetition level in range");
    if (leaf.physical_type == PQ_BYTE_ARRAY && v.offsets) {
        FUZZ_CHECK(v.offsets[0] == 0, "offsets start at 0");
        for (size_t i = 0; i < v.n_values; i++)
            FUZZ_CHECK(v.offsets[i] <= v.offsets[i + 1], "offsets never go back");
        FUZZ_CHECK((size_t)v.offsets[v.n_values] == v.data_len, "offsets end at the data's length");
    }
    pq_column_values_free(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pq_error err;
    pq_page_header h;
    size_t header_len = 0;
    if (pq_page_header_decode(data, size, &h, &header_len, &err) == PQ_OK)
        FUZZ_CHECK(header_len > 0 && header_len <= size, "header inside the input");

    pq_page_info *pages = NULL;
    size_t npages = 0;
    pq_page_walk_counters counters = {0};
    (void)pq_page_walk(data, size, -1, PQ_WALK_VERIFY_CRC, &pages, &npages, &counters, &err);
    /* On error the pages walked so far are still valid: use them too. */
    int32_t codec = size ? (int32_t)(data[size - 1] % 8) : 0;
    uint8_t *out = NULL;
    for (size_t i = 0; i < npages; i++) {
        const pq_page_info *p = &pages[i];
        FUZZ_CHECK(p->data_offset <= size && p->compressed_size >= 0 &&
                       (uint64_t)p->compressed_size <= size - p->data_offset,
                   "page data inside the chunk");
        if (p->type == PQ_PAGE_INDEX || p->uncompressed_size < 0) continue;
        size_t out_len = (size_t)p->uncompressed_size;
        if (out_len > MAX_PAGE_OUT) continue;
        uint8_t *grown = realloc(out, out_len ? out_len : 1);
        if (!grown) break;
        out = grown;
        if (pq_decompress(codec, data + p->data_offset, (size_t)p->compressed_size, out, out_len,
                          &err) != PQ_OK)
            continue;
        if (p->type == PQ_PAGE_DATA) decode_levels(out, out_len, p->num_values, (int)(i % 4));
    }
    free(out);
    if (size >= 2) decode_chunk(data, size, pages, npages, codec, data[size - 2]);
    free(pages);
    return 0;
}
