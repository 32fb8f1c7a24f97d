/*
 * column_decode.h — one column chunk's pages decoded into levels and values.
 *
 * Input: the chunk's bytes and the pages the page walk found in them
 * (pq_page_walk). Every page is decompressed, its repetition and definition
 * levels decoded, and its non-null values decoded and appended. Dictionary
 * pages are decoded once and kept; dictionary-encoded data pages gather from
 * them, and a chunk may fall back to another encoding midway (later pages
 * then carry PLAIN, say). Index pages are skipped.
 *
 * The result is flat, whatever the nesting: levels for every value slot
 * (nulls and empty lists included) and the non-null values in order.
 * Assembling nested arrays from the levels is the caller's job.
 *
 * Every count and size is checked: levels decoded must equal the page's
 * num_values and lie within the leaf's maximum, values decoded must equal the
 * page's non-null count (definition levels equal to max_def), dictionary
 * indices must be below the dictionary size, and the chunk's first
 * repetition level must be 0 (a chunk starts a record). Checking that the
 * chunk holds the row group's row count is the caller's job (it knows
 * num_rows). Errors name the page, e.g.
 * "page 3 (DATA_PAGE, RLE_DICTIONARY): dictionary index 9 at 12 >= 4".
 */
#ifndef PQ_PAGES_COLUMN_DECODE_H
#define PQ_PAGES_COLUMN_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pages/codec.h"
#include "pages/decode_plan.h"
#include "pq_metadata.h"
#include "pq_pages.h"

/* Largest decompressed page accepted, whatever the memory limit. */
#define PQ_MAX_PAGE_SIZE ((uint64_t)2 << 30)

typedef struct pq_column_values {
    int32_t physical_type;  /* pq_physical_type of the leaf */
    size_t n_levels;        /* value slots: the sum of the data pages' num_values */
    int16_t *def_levels;    /* n_levels entries; NULL when max_def == 0, and for a
                             * leaf with max_rep == 0 when every level is max_def
                             * (see pq_column_values_definition_levels) */
    int16_t *rep_levels;    /* n_levels entries; NULL when max_rep == 0 */
    size_t n_values;        /* non-null values */
    /* Fixed-width types: n_values * width bytes, little-endian as stored.
     * BOOLEAN is one byte (0 or 1) per value, INT96 12 bytes, FLBA its
     * type_length. NULL for BYTE_ARRAY (and possibly when n_values is 0). */
    size_t width;           /* 0 for BYTE_ARRAY */
    uint8_t *values;
    /* INT32/INT64 values sign-extended to 16-byte decimal128 slots (width
     * 16): a plan's PQ_PLAN_DECIMAL128. */
    bool decimal128;
    /* BYTE_ARRAY: offsets (n_values + 1 entries, offsets[0] = 0) into data
     * (data_len bytes). NULL otherwise. */
    int32_t *offsets;
    uint8_t *data;
    size_t data_len;
    /* BYTE_ARRAY decoded with PQ_DECODE_STRING_VIEWS: n_values 16-byte Arrow
     * string views instead (offsets and data are then NULL). A value of at
     * most 12 bytes is inline; a longer one lies at the view's offset in
     * view_bufs[0] (the chunk's own copies of non-dictionary values,
     * view_buf_lens[0] bytes) or view_bufs[1] (the dictionary's entries,
     * when the chunk had one). n_view_bufs is 1 or 2; the buffers are never
     * NULL. */
    uint8_t *views;
    uint8_t *view_bufs[2];
    size_t view_buf_lens[2];
    size_t n_view_bufs;
    /* PQ_DECODE_INDICES: `values` holds the non-null values' dictionary
     * indices (uint32, width 4) and this the dictionary's entries (n_values
     * of them, no levels, laid out as above for the leaf's type). NULL
     * otherwise. Freed with the values. */
    struct pq_column_values *dictionary;
} pq_column_values;

/* Decode flags (pq_column_decode_flags). */
enum {
    PQ_DECODE_STRING_VIEWS = 1u << 0, /* BYTE_ARRAY: Arrow views (pq_column_values.views): a
                                       * dictionary-encoded value is a copy of its entry's view,
                                       * no bytes copied */
    PQ_DECODE_INDICES = 1u << 1       /* the dictionary indices and the dictionary, not the values
                                       * (pq_column_values.dictionary): every data page must be
                                       * dictionary-encoded (pq_pages_all_dictionary), else
                                       * PQ_ERR_UNSUPPORTED */
};

/* Whether every data page of `pages` is dictionary-encoded (and there is
 * one), so that PQ_DECODE_INDICES can decode them. */
bool pq_pages_all_dictionary(const pq_page_info *pages, size_t npages);

/* Decode the pages of one column chunk of `leaf`. `codec` is the chunk's
 * pq_codec, `chunk` its bytes (chunk_len of them) and `pages` what the walk
 * recorded for them (offsets are from the start of `chunk`).
 *
 * memory_limit caps what the decode holds at once (the output, the
 * dictionary and the page buffer): 0 means no cap beyond what the declared
 * sizes allow; a decompressed page is never more than PQ_MAX_PAGE_SIZE.
 * Exceeding it is PQ_ERR_MEMORY_LIMIT.
 *
 * On success fills *out (free it with pq_column_values_free). On error *out
 * is zeroed (everything freed) and `err` names the page. Errors:
 * PQ_ERR_INVALID_ARGUMENT (NULL, a page outside the chunk),
 * PQ_ERR_CORRUPT_DATA, PQ_ERR_UNSUPPORTED (an encoding the type cannot have,
 * LZO), PQ_ERR_MEMORY_LIMIT, PQ_ERR_NOMEM. */
pq_status pq_column_decode(const pq_leaf *leaf, int32_t codec, const uint8_t *chunk, size_t chunk_len,
                           const pq_page_info *pages, size_t npages, uint64_t memory_limit,
                           pq_column_values *out, pq_error *err);

/* pq_column_decode with the caller's codec context, reused across calls
 * (a decompression context costs more to make than a small page does to
 * decompress). NULL: a context of the call's own. */
pq_status pq_column_decode_ctx(pq_codec_ctx *cctx, const pq_leaf *leaf, int32_t codec, const uint8_t *chunk,
                               size_t chunk_len, const pq_page_info *pages, size_t npages, uint64_t memory_limit,
                               pq_column_values *out, pq_error *err);

/* pq_column_decode_ctx with PQ_DECODE_* flags and, when `rows` is not NULL
 * (only where pq_decode_rows_supported), only the selected rows: the result
 * holds them alone, in order (n_levels = n_values = the rows selected). A
 * data page with no selected row is neither decompressed nor decoded; a
 * dictionary-encoded page gathers only the selected values. */
pq_status pq_column_decode_flags(pq_codec_ctx *cctx, const pq_leaf *leaf, int32_t codec, const uint8_t *chunk,
                                 size_t chunk_len, const pq_page_info *pages, size_t npages, uint64_t memory_limit,
                                 unsigned flags, const pq_decode_rows *rows, pq_column_values *out, pq_error *err);

/* The CPU executor of decode plans (pages/decode_plan.h). Its phases are
 * sets of independent tasks (a dictionary page, a data page, a staged page
 * put in place), run by `run` on `threads` threads; run has the signature
 * of reader/parallel.h's pq_parallel_for, and NULL runs every task on the
 * calling thread. cctx[w] is the codec context of worker w (ncctx of them;
 * a worker without one makes its own per task). memory_limit caps what the
 * decode of each chunk holds at once, as for pq_column_decode. */
typedef struct pq_cpu_executor {
    unsigned (*run)(size_t n, unsigned threads, bool (*task)(void *ctx, size_t i, unsigned worker), void *ctx);
    unsigned threads;
    pq_codec_ctx *cctx;
    unsigned ncctx;
    uint64_t memory_limit;
    /* Called once per chunk as soon as its last page is done, on the thread
     * that finished it (while its values are still in that core's cache),
     * with the chunk's status and output (on failure zeroed, the message in
     * errors[chunk]); it may take the output's buffers. NULL: none. */
    void (*chunk_done)(void *user, size_t chunk, pq_status status, pq_column_values *out, pq_error *err);
    void *user;
    /* Decode every dictionary page whole, before the data pages. By default
     * (false) a sparse selection's chunk (at most PQ_LATE_DICT_MAX_ROWS
     * selected rows, fixed-width values or string views out, a dictionary
     * page of PQ_LATE_DICT_MIN_BYTES or more compressed with SNAPPY or
     * ZSTD) collects its selected rows' indices first and decompresses its
     * dictionary page only as far as the largest of them reaches: entries
     * come in order of first use, so a few rows seldom need the whole page.
     * The values are the same either way; a string chunk's dictionary
     * buffer then holds only the entries up to that one. */
    bool whole_dictionaries;
} pq_cpu_executor;

#define PQ_LATE_DICT_MAX_ROWS 4096
#define PQ_LATE_DICT_MIN_BYTES ((size_t)64 << 10)

/* Run `plan`: outs[k] gets chunk k's levels and values (as
 * pq_column_decode gives them; free each with pq_column_values_free),
 * status[k] its result and errors[k] its message, naming the page, on
 * failure (outs[k] is then zeroed); ex->chunk_done, when set, sees each
 * chunk first. The plan's page and chunk counts and
 * offsets are filled in by the size pass. Returns the first failing
 * chunk's status, or PQ_OK. */
pq_status pq_decode_plan_execute(const pq_cpu_executor *ex, pq_decode_plan *plan, pq_column_values *outs,
                                 pq_status *status, pq_error *errors);

/* Value k (of n_values) of a BYTE_ARRAY result, views or offsets alike. */
static inline void pq_column_values_bytes(const pq_column_values *v, size_t k, const uint8_t **p, size_t *len)
{
    if (v->views) {
        const uint8_t *w = v->views + 16 * k;
        uint32_t l = (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
        uint32_t b = (uint32_t)w[8] | (uint32_t)w[9] << 8 | (uint32_t)w[10] << 16 | (uint32_t)w[11] << 24;
        uint32_t o = (uint32_t)w[12] | (uint32_t)w[13] << 8 | (uint32_t)w[14] << 16 | (uint32_t)w[15] << 24;
        *len = l;
        *p = l <= 12 ? w + 4 : v->view_bufs[b] + o;
        return;
    }
    *len = (size_t)(v->offsets[k + 1] - v->offsets[k]);
    *p = v->data + v->offsets[k];
}

/* v->def_levels, stored now if it was left out because every level is
 * max_def (max_def > 0): for consumers that need the array. PQ_ERR_NOMEM. */
pq_status pq_column_values_definition_levels(pq_column_values *v, int16_t max_def);

/* Frees what pq_column_decode allocated and zeroes *v. NULL is a no-op. */
void pq_column_values_free(pq_column_values *v);

#endif
