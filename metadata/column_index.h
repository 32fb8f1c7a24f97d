/*
 * column_index.h — the ColumnIndex of a column chunk (per data page: whether
 * it holds only nulls, its min and max, its null count; and the order of the
 * pages' bounds), decoded from the Thrift compact bytes at
 * ColumnChunk.column_index_offset.
 *
 * The page count comes from the chunk's OffsetIndex (page_index.h): both
 * indexes list the same data pages, and every list here must have one entry
 * per page.
 */
#ifndef PQ_METADATA_COLUMN_INDEX_H
#define PQ_METADATA_COLUMN_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_metadata.h"

typedef enum pq_boundary_order {
    PQ_BOUNDARY_UNORDERED = 0,
    PQ_BOUNDARY_ASCENDING = 1,
    PQ_BOUNDARY_DESCENDING = 2
} pq_boundary_order;

#define PQ_NULL_COUNT_UNKNOWN (-1)

typedef struct pq_column_index {
    size_t npages;
    bool *null_pages;        /* npages entries: the page holds only nulls */
    /* npages spans each, pointing INTO THE CALLER'S BUFFER given to
     * pq_column_index_decode: valid while that buffer is. Encoded like
     * statistics min_value/max_value (PLAIN, no length prefix); writers put
     * empty spans for null pages, whose bounds mean nothing. */
    pq_bytes *min_values;
    pq_bytes *max_values;
    /* npages entries, or NULL when the writer left them out. An entry may be
     * PQ_NULL_COUNT_UNKNOWN: parquet-mr 1.13 writes -1 for pages it did not
     * count (data/datapage_v1-*-checksum.parquet); every negative value on
     * the wire reads as that. */
    int64_t *null_counts;
    /* npages entries, or NULL (parquet-format 2.13 writers only): NaN values
     * of each page of a FLOAT or DOUBLE column; negative: unknown. */
    int64_t *nan_counts;
    int32_t boundary_order;  /* pq_boundary_order */
} pq_column_index;

/* Decode a ColumnIndex from `len` bytes at `buf`, for a chunk of `npages`
 * data pages (OffsetIndex.page_locations' length, > 0). Checks: the required
 * fields are there, each list has npages entries, boundary_order is a known
 * value. The level histograms are skipped; nan_counts (field 8) is read.
 * Errors: PQ_ERR_CORRUPT_DATA naming the field (e.g. "ColumnIndex.min_values:
 * 3 entries for 4 pages"), PQ_ERR_INVALID_ARGUMENT (npages 0), PQ_ERR_NOMEM.
 * On success free with pq_column_index_free() (the spans stay the caller's);
 * on failure *out is zeroed. */
pq_status pq_column_index_decode(const uint8_t *buf, size_t len, size_t npages,
                                 pq_column_index *out, pq_error *err);

void pq_column_index_free(pq_column_index *ci);

#endif
