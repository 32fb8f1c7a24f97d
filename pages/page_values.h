/*
 * page_values.h — a column chunk's pages decoded into levels and values:
 * the result (pq_column_values) and what the decode of each page checks
 * (page_values.c). pq_column_decode and the CPU executor (cpu_exec.h) run it.
 *
 * Every page is decompressed, its repetition and definition levels
 * decoded, and its non-null values decoded and appended. Dictionary pages
 * are decoded once and kept; dictionary-encoded data pages gather from
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
#ifndef PQ_PAGES_PAGE_VALUES_H
#define PQ_PAGES_PAGE_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
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

/* Decode flags (pq_column_decode_flags, cpu_exec.h): what a result holds. */
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

/* Frees what pq_column_decode (cpu_exec.h) allocated and zeroes *v. NULL is a no-op. */
void pq_column_values_free(pq_column_values *v);

#endif
