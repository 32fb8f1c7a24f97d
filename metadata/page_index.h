/*
 * page_index.h — the page index of a column chunk: its OffsetIndex (where
 * each data page is and which row it starts at), decoded from the Thrift
 * compact bytes at ColumnChunk.offset_index_offset.
 */
#ifndef PQ_METADATA_PAGE_INDEX_H
#define PQ_METADATA_PAGE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

/* One data page of a chunk (dictionary and index pages are not listed). */
typedef struct pq_page_location {
    int64_t offset;               /* the page header's offset in the file */
    int32_t compressed_page_size; /* header included */
    int64_t first_row_index;      /* row-group row where the page starts */
} pq_page_location;

typedef struct pq_offset_index {
    pq_page_location *pages;      /* npages entries, malloc'd */
    size_t npages;
    /* SizeStatistics (parquet-format 2.10): per page, the bytes of its
     * BYTE_ARRAY values without their lengths; NULL when the writer left
     * them out or they do not fit the pages (a count other than npages, a
     * negative size): optional, so never an error. malloc'd. */
    int64_t *unencoded_bytes;
} pq_offset_index;

/* Decode an OffsetIndex from `len` bytes at `buf` and check it against the
 * chunk it describes: at least one page; pages in file order, each inside
 * [chunk_offset, chunk_offset + chunk_len) and not overlapping the next;
 * first_row_index 0 for the first page and never decreasing after it (an
 * empty page starts where the next one does), at most `num_rows` (the row
 * group's). Errors: PQ_ERR_CORRUPT_DATA naming
 * the field or the page, PQ_ERR_NOMEM. On success free with
 * pq_offset_index_free(). */
pq_status pq_offset_index_decode(const uint8_t *buf, size_t len, uint64_t chunk_offset,
                                 uint64_t chunk_len, int64_t num_rows, pq_offset_index *out,
                                 pq_error *err);

void pq_offset_index_free(pq_offset_index *oi);

#endif
