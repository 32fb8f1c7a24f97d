/*
 * decode_plan.h — the decode plan: what to decode, page by page, and where
 * each page's output goes.
 *
 * The plan is device-neutral plain data, built on the host from the page
 * headers once the page-header stage is done: one descriptor per column
 * chunk (leaf type, width, levels, codec, output kind) and one per page
 * (where its bytes are, its encoding and counts, and the offsets of its
 * output in the chunk's arrays). Every executor runs the same plan: the CPU
 * executor (pages/cpu_exec.c) and the device executor (device/exec.c,
 * whose kernels run on a CUDA device or, in tests, on the host).
 *
 * Output offsets. A page's level slots start at the sum of the earlier data
 * pages' num_values: known from the headers. Its first value and first
 * string byte are known from the headers too when every earlier page's
 * count is (PQ_PLAN_SIZED_BY_HEADERS: a required column, an optional one
 * without repetition whose statistics count no nulls (PQ_PLAN_NO_NULLS),
 * or DATA_PAGE_V2 pages of one whose num_nulls says how many values they
 * hold; of a fixed-width type, or as string views that a page's size
 * bounds or that are gathered from a dictionary). Otherwise an
 * executor runs a size pass over the page (its definition levels, and its
 * string lengths) before the offsets are summed; either way the chunk's
 * output buffers are then allocated once, at their exact size, and any page
 * can be decoded on its own into its place.
 *
 * The plan does not own the chunk bytes or the page infos it points to:
 * they must outlive it (the page-header stage keeps them).
 */
#ifndef PQ_PAGES_DECODE_PLAN_H
#define PQ_PAGES_DECODE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pages/page_decrypt.h"
#include "pq_error.h"
#include "pq_metadata.h"
#include "pq_pages.h"

/* The rows to decode (selection-vector decode): row first + i of the chunk
 * (rows counted from the chunk's first page, as the pages passed hold
 * them) when bit i of keep (LSB first) is set, for i < count; no other row. */
typedef struct pq_decode_rows {
    const uint8_t *keep;
    uint64_t first;
    uint64_t count;
} pq_decode_rows;

/* How a chunk's values come out. */
typedef enum pq_plan_output {
    PQ_PLAN_FIXED,     /* width bytes a value (BOOLEAN one byte 0/1) */
    PQ_PLAN_BYTES,     /* BYTE_ARRAY: int32 offsets and the bytes */
    PQ_PLAN_VIEWS      /* BYTE_ARRAY: 16-byte Arrow string views */
} pq_plan_output;

/* What a page is to an executor. */
typedef enum pq_plan_page_kind {
    PQ_PLAN_PAGE_DICTIONARY,
    PQ_PLAN_PAGE_DATA,     /* DATA_PAGE or DATA_PAGE_V2 */
    PQ_PLAN_PAGE_SKIP      /* an index page, or a data page with no selected row */
} pq_plan_page_kind;

/* Chunk flags */
enum {
    /* Every page's value count and string bytes are known from the headers:
     * the output is allocated before any page is decoded, and no size pass
     * runs. */
    PQ_PLAN_SIZED_BY_HEADERS = 1u << 0,
    /* Values are the dictionary indices (uint32): PQ_PLAN_INDICES. */
    PQ_PLAN_CHUNK_INDICES = 1u << 1,
    /* INT32/INT64 values sign-extended to 16 bytes (width 16), as Arrow's
     * decimal128 holds them: PQ_PLAN_DECIMAL128 on a chunk whose data
     * pages are all PLAIN or dictionary-encoded. */
    PQ_PLAN_CHUNK_DECIMAL128 = 1u << 2,
    /* An optional leaf planned with a value a slot (PQ_PLAN_NO_NULLS). */
    PQ_PLAN_CHUNK_NO_NULLS = 1u << 3,
    PQ_PLAN_CHUNK_SIZE_STATISTICS = 1u << 4, /* some pages' string bytes come from the offset
                                              * index's SizeStatistics (their mismatch names
                                              * them) */
    /* Planned with PQ_PLAN_EXACT_BYTES: a PLAIN page's values take its
     * values section less a 4-byte length a value, in the size pass too
     * (no walk of the lengths there; the decode checks them). */
    PQ_PLAN_CHUNK_EXACT_BYTES = 1u << 5
};

typedef struct pq_plan_chunk {
    const pq_leaf *leaf;
    int32_t physical_type;
    uint32_t width;             /* output bytes a value; 0 for BYTE_ARRAY */
    int16_t max_def, max_rep;
    int32_t codec;
    pq_plan_output output;
    unsigned flags;             /* PQ_PLAN_* */
    const uint8_t *bytes;       /* the chunk's kept bytes (page offsets are into them) */
    uint64_t len;
    const pq_decode_rows *rows; /* selection-vector decode, or NULL: every row */
    /* An encrypted chunk (set after pq_decode_plan_add_chunk): `bytes` as
     * stored, walked by pq_page_walk_encrypted_headers; an executor
     * decrypts each page it reads (pq_page_decrypt). NULL: plaintext. */
    const pq_chunk_cipher *cipher;
    const pq_page_module *modules; /* with cipher: one per page passed, in their order */
    size_t first_page, npages;  /* its pages: plan->pages[first_page, first_page + npages) */
    int64_t dictionary;         /* plan page index of its dictionary page, or -1 */
    /* Totals, from the headers (levels) and the size pass (the rest). */
    uint64_t n_levels;          /* level slots: the data pages' num_values (selected rows
                                 * alone under a row selection) */
    uint64_t n_values;          /* values out */
    uint64_t string_bytes;      /* PQ_PLAN_BYTES: data bytes; PQ_PLAN_VIEWS: bytes of the values
                                 * of pages not dictionary-encoded (views of the
                                 * others point into the dictionary) */
    uint64_t dictionary_skipped; /* set by the CPU executor: bytes of the dictionary page, as
                                  * decompressed, it did not decompress (a late dictionary's
                                  * tail, or the whole page when no decoded page uses it) */
} pq_plan_chunk;

typedef struct pq_plan_page {
    size_t chunk;               /* plan->chunks index */
    size_t index;               /* the page's index in its chunk, for messages */
    const pq_page_info *info;   /* its header */
    pq_plan_page_kind kind;
    uint64_t first_row;         /* level slot (row of a flat column) the page starts at, in
                                 * the chunk's pages */
    /* Output offsets in the chunk's arrays, and what the page puts there. */
    uint64_t level_offset;      /* first level slot out */
    uint64_t value_offset;      /* first value out */
    uint64_t string_offset;     /* first data byte out */
    uint64_t n_levels;          /* slots out */
    uint64_t n_values;          /* values out (size pass, or headers) */
    uint64_t string_bytes;      /* data bytes out (size pass) */
} pq_plan_page;

typedef struct pq_decode_plan {
    pq_plan_chunk *chunks;
    size_t nchunks, chunks_cap;
    pq_plan_page *pages;
    size_t npages, pages_cap;
} pq_decode_plan;

/* Plan flags (pq_decode_plan_add_chunk) */
enum {
    PQ_PLAN_STRING_VIEWS = 1u << 0, /* BYTE_ARRAY as PQ_PLAN_VIEWS */
    PQ_PLAN_INDICES = 1u << 1,      /* the dictionary indices (PQ_PLAN_FIXED, uint32) and the
                                     * dictionary, not the values */
    PQ_PLAN_DECIMAL128 = 1u << 2,   /* INT32/INT64 values out as decimal128 slots (16 bytes,
                                     * sign-extended) where every data page is PLAIN or
                                     * dictionary-encoded (PQ_PLAN_CHUNK_DECIMAL128); ignored
                                     * elsewhere, and for the CPU executor alone: the decimal
                                     * is widened while gathered or copied, not in a pass of
                                     * its own after the decode */
    PQ_PLAN_NO_NULLS = 1u << 3,     /* the caller knows the chunk holds no null (its
                                     * statistics count none): an optional leaf without
                                     * repetition is planned with a value a level slot, so
                                     * that its pages are sized by their headers
                                     * (PQ_PLAN_CHUNK_NO_NULLS); a page that holds a null
                                     * anyway is refused as corrupt. Ignored on a repeated
                                     * leaf; for the CPU executor alone */
    PQ_PLAN_EXACT_BYTES = 1u << 4   /* PQ_PLAN_BYTES: PLAIN pages whose headers give their
                                     * values' bytes exactly (a page's size less a 4-byte
                                     * length a value: v1 pages of a leaf without levels,
                                     * DATA_PAGE_V2 pages with their level sizes) are sized
                                     * by them, so that a chunk of such pages needs no size
                                     * pass; the size pass takes other PLAIN pages' bytes the
                                     * same way once their levels are decoded, without walking
                                     * the lengths; a page whose values take other bytes is
                                     * refused as corrupt. For the CPU executor alone */
};

/* Add one chunk: `leaf`, `codec` (its pq_codec), `bytes` (len of them)
 * and the pages the walk found there (offsets from the start of `bytes`);
 * `rows` (only where pq_decode_rows_supported) selects rows, NULL all.
 * Checks what the headers alone can: page types and counts, pages inside
 * the bytes, one dictionary page before the data pages. Errors name the
 * page: PQ_ERR_INVALID_ARGUMENT, PQ_ERR_CORRUPT_DATA, PQ_ERR_UNSUPPORTED
 * (a type or codec not decoded here), PQ_ERR_NOMEM. On error the plan is
 * as before the call. */
pq_status pq_decode_plan_add_chunk(pq_decode_plan *plan, const pq_leaf *leaf, int32_t codec, const uint8_t *bytes,
                                   size_t len, const pq_page_info *pages, size_t npages, unsigned flags,
                                   const pq_decode_rows *rows, pq_error *err);

/* The same, with `page_strings` (NULL: none): each data page's value
 * bytes, in data-page order, as the offset index's SizeStatistics give
 * them. With PQ_PLAN_EXACT_BYTES, a PQ_PLAN_BYTES page, PLAIN or
 * dictionary-encoded, whose value count is known is sized by them, so that the
 * chunk needs no size pass; a page whose values take other bytes is
 * refused as corrupt, naming the statistics. */
pq_status pq_decode_plan_add_chunk_sized(pq_decode_plan *plan, const pq_leaf *leaf, int32_t codec,
                                         const uint8_t *bytes, size_t len, const pq_page_info *pages, size_t npages,
                                         unsigned flags, const pq_decode_rows *rows, const int64_t *page_strings,
                                         pq_error *err);

/* After the size pass (or for a chunk sized by its headers): each data
 * page's value and string offsets as the running sums of the earlier
 * pages' counts, and the chunk's totals. PQ_ERR_MEMORY_LIMIT when they
 * overflow. */
pq_status pq_decode_plan_place(pq_decode_plan *plan, size_t chunk, pq_error *err);

/* Frees the plan's arrays (not what they point to) and zeroes it. */
void pq_decode_plan_free(pq_decode_plan *plan);

/* Whether rows can be selected in leaf `leaf`: a required top-level value
 * (no definition or repetition levels), where a value is a row. */
static inline bool pq_decode_rows_supported(const pq_leaf *leaf)
{
    return leaf->max_def == 0 && leaf->max_rep == 0;
}

/* The number of selected rows among [row, row + n) of the chunk. */
uint64_t pq_decode_rows_count(const pq_decode_rows *rows, uint64_t row, uint64_t n);

/* The fewest value bytes a BYTE_ARRAY data page can hold, from its header
 * alone: a PLAIN page is levels, then a 4-byte length before each value.
 * Levels of a v1 page are bounded generously (a 4-byte length and 12 bytes
 * a level: a run of one with a 10-byte varint header); other encodings
 * count 0. */
uint64_t pq_plan_strings_lower_bound(const pq_leaf *leaf, const pq_page_info *pi);

/* Output bytes of one value of leaf `leaf` as stored (BOOLEAN 1, INT96 12,
 * FLBA its length); 0 for BYTE_ARRAY and for an FLBA without a length. */
uint32_t pq_plan_value_width(const pq_leaf *leaf);

#endif
