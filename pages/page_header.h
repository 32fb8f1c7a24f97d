/*
 * page_header.h — one Thrift compact PageHeader decoded into a plain struct.
 *
 * A column chunk is a run of pages, each a compact-encoded PageHeader
 * followed by compressed_page_size bytes of page data. The decoder reads one
 * header from a byte span, fills a pq_page_header and says how many bytes the
 * header took, so the caller knows where the page data starts.
 *
 * Nothing is allocated: statistics values are pq_bytes spans that point into
 * the caller's input bytes and live as long as they do. Unknown fields (and
 * known ones sent with an unexpected wire type) are skipped, as Thrift's
 * generated code does. Optional fields have a bit in their struct's `set`
 * mask; a field whose bit is clear holds 0 / an empty span.
 *
 * Validation (any failure is PQ_ERR_CORRUPT_DATA with a message naming the
 * field, e.g. "PageHeader.data_page_header_v2.definition_levels_byte_length:
 * -5"): required fields present, type 0..3, page sizes >= 0, the sub-header
 * the type needs is present (INDEX_PAGE needs none), value/null/row counts
 * >= 0, v2 level byte lengths >= 0 and together within both page sizes.
 */
#ifndef PQ_PAGE_HEADER_H
#define PQ_PAGE_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_metadata.h"

/* pq_data_page_header.set */
enum { PQ_DPH_HAS_STATISTICS = 1u << 0 };

typedef struct pq_data_page_header {
    int32_t num_values;                /* values incl. nulls */
    int32_t encoding;                  /* pq_encoding, raw */
    int32_t definition_level_encoding; /* pq_encoding, raw */
    int32_t repetition_level_encoding; /* pq_encoding, raw */
    pq_statistics statistics;          /* PQ_DPH_HAS_STATISTICS */
    uint32_t set;
} pq_data_page_header;

/* pq_dictionary_page_header.set */
enum { PQ_DICT_HAS_IS_SORTED = 1u << 0 };

typedef struct pq_dictionary_page_header {
    int32_t num_values;
    int32_t encoding;
    bool is_sorted;
    uint32_t set;
} pq_dictionary_page_header;

/* pq_data_page_header_v2.set */
enum {
    PQ_DPH2_HAS_IS_COMPRESSED = 1u << 0,
    PQ_DPH2_HAS_STATISTICS = 1u << 1
};

typedef struct pq_data_page_header_v2 {
    int32_t num_values;
    int32_t num_nulls;
    int32_t num_rows;
    int32_t encoding;
    int32_t definition_levels_byte_length;
    int32_t repetition_levels_byte_length;
    bool is_compressed;        /* true when the field is absent (Thrift default) */
    pq_statistics statistics;  /* PQ_DPH2_HAS_STATISTICS */
    uint32_t set;
} pq_data_page_header_v2;

/* pq_page_header.set: which sub-headers were present. */
enum {
    PQ_PH_HAS_DATA_PAGE_HEADER = 1u << 0,
    PQ_PH_HAS_INDEX_PAGE_HEADER = 1u << 1,
    PQ_PH_HAS_DICTIONARY_PAGE_HEADER = 1u << 2,
    PQ_PH_HAS_DATA_PAGE_HEADER_V2 = 1u << 3
};

/* All three data-carrying sub-headers have their own member: a header may
 * (oddly) carry more than one; the one matching `type` is the one to use. */
typedef struct pq_page_header {
    int32_t type;                   /* pq_page_type */
    int32_t uncompressed_page_size; /* >= 0 */
    int32_t compressed_page_size;   /* >= 0: page data bytes after the header */
    uint32_t crc;                   /* CRC-32 of the page data (the wire's i32 bits) */
    bool has_crc;
    uint32_t set;                   /* PQ_PH_HAS_* */
    pq_data_page_header data_page_header;
    pq_dictionary_page_header dictionary_page_header;
    pq_data_page_header_v2 data_page_header_v2;
} pq_page_header;

/* Decode one PageHeader from the start of [buf, buf + len). On success fills
 * *h, sets *header_len to the bytes the header took (the page data starts at
 * buf + *header_len) and returns PQ_OK. A header cut by the end of the span
 * is an error (PQ_ERR_CORRUPT_DATA, "truncated"): give it all the bytes there
 * are. On error *h is unspecified and *header_len untouched. */
pq_status pq_page_header_decode(const uint8_t *buf, size_t len, pq_page_header *h,
                                size_t *header_len, pq_error *err);

#endif
