/*
 * pq_pages.h — what the page-header stage keeps for each column chunk it
 * walked: the chunk's place in the file and one pq_page_info per page.
 *
 * Obtained from a reader with pq_reader_chunk_pages() (pq_reader.h); valid
 * until the reader is closed. The page bytes themselves stay with the reader
 * for the decode stage.
 */
#ifndef PQ_PAGES_H
#define PQ_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One page of a chunk. Offsets are from the start of the chunk's bytes. */
typedef struct pq_page_info {
    uint64_t header_offset;
    uint64_t data_offset;       /* header_offset + header_len */
    uint32_t header_len;
    int32_t type;               /* pq_page_type */
    int32_t compressed_size;    /* page data bytes at data_offset */
    int32_t uncompressed_size;
    int32_t num_values;         /* data and dictionary pages; 0 for index pages */
    int32_t encoding;           /* value encoding (raw pq_encoding); 0 for index pages */
    /* DATA_PAGE: level encodings. DATA_PAGE_V2: 0 */
    int32_t def_level_encoding;
    int32_t rep_level_encoding;
    /* DATA_PAGE_V2 only (0 otherwise): level section lengths, counts */
    int32_t def_levels_byte_length;
    int32_t rep_levels_byte_length;
    int32_t num_nulls;
    int32_t num_rows;
    bool is_compressed;         /* V2: its flag; else true */
    bool has_statistics;        /* data page carries page statistics */
    bool has_crc;
    uint32_t crc;
} pq_page_info;

/* One walked column chunk. */
typedef struct pq_chunk_pages {
    uint32_t row_group;
    uint32_t column;            /* leaf index */
    uint64_t offset;            /* the chunk's bytes in the file: [offset, offset + length) */
    uint64_t length;
    const pq_page_info *pages;  /* npages entries, in file order */
    size_t npages;
} pq_chunk_pages;

#ifdef __cplusplus
}
#endif
#endif /* PQ_PAGES_H */
