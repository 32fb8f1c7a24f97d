/*
 * fuzz_pages.c — libFuzzer target for the page layer: the input is taken as
 * a column chunk's bytes. Every page header is decoded and walked (with CRC
 * checks), each page's data is decompressed with a codec picked from the
 * input, and v1 data pages have their definition levels run through the
 * RLE/bit-packed decoder. Nothing may crash, leak or read out of bounds;
 * successful results must keep their promises (pages inside the input).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/rle.h"
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
    free(pages);
    return 0;
}
