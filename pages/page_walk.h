/*
 * page_walk.h — the pages of one column chunk: where its bytes are in the
 * file, and a walk over its page headers.
 *
 * The caller reads the chunk's byte range (pq_chunk_byte_range) from the file
 * and hands those bytes to pq_page_walk, which decodes every page header in
 * turn and records where each page's data lies. Nothing here does I/O.
 */
#ifndef PQ_PAGE_WALK_H
#define PQ_PAGE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_metadata.h"
#include "pq_pages.h"
#include "pq_reader.h"

/* ---------------------------------------------------------------------------
 * The chunk's byte range
 * ------------------------------------------------------------------------- */

/* Where a column chunk's pages are: [*offset, *offset + *len) in the file.
 * The chunk starts at its dictionary page when it has one, else at its first
 * data page, and is meta_data.total_compressed_size bytes long. Fix-ups for
 * what writers really put there (the same ones other readers apply):
 *  - dictionary_page_offset 0 (or anything inside the leading "PAR1") means
 *    absent: parquet-mr 1.12 / Dremio write 0 for chunks with no dictionary
 *    (data/dict-page-offset-zero.parquet).
 *  - a dictionary_page_offset at or after data_page_offset is ignored: the
 *    dictionary page always precedes the data pages.
 *  - a data_page_offset inside the leading "PAR1" (Arrow writes 0 for chunks
 *    holding no data page, data/column_chunk_key_value_metadata.parquet)
 *    with a valid dictionary_page_offset: the chunk starts at the dictionary.
 *  - a chunk with total_compressed_size 0 and num_values 0 holds no page
 *    (Arrow writes data_page_offset 0 for an empty row group): the empty
 *    range [4, 4).
 * Then the range must lie in the data region [4, data_end): after the
 * leading magic and before the footer, which starts at data_end (file size
 * - 8 - footer length; pq_reader_data_end). A chunk that runs into the
 * footer is corrupt, not read. Errors: PQ_ERR_INVALID_ARGUMENT
 * (NULL, a chunk skipped by a projected parse), PQ_ERR_ENCRYPTED (encrypted
 * column metadata that was not decrypted: no key), PQ_ERR_UNSUPPORTED (file_path: the chunk is in another
 * file), PQ_ERR_CORRUPT_DATA (no meta_data, negative size, out of the file). */
pq_status pq_chunk_byte_range(const pq_column_chunk *cc, uint64_t data_end, uint64_t *offset,
                              uint64_t *len, pq_error *err);

/* True for writers whose total_compressed_size leaves out the dictionary
 * page header (parquet-mr before 1.2.9, PARQUET-816 / IMPALA-694), including
 * a bare "parquet-mr" with no version (data/nation.dict-malformed.parquet). */
bool pq_writer_undercounts_chunk_size(pq_bytes created_by);

/* Largest padding added for such writers: a dictionary page header is
 * smaller than this. */
#define PQ_CHUNK_SIZE_PADDING 100

/* pq_chunk_byte_range, then for writers where pq_writer_undercounts_chunk_size
 * the range is extended by up to PQ_CHUNK_SIZE_PADDING bytes (not past
 * data_end). Walk such a range with the chunk's num_values so the walk
 * stops at the last data page instead of reading into the padding.
 * `created_by` is FileMetaData.created_by (an empty span when absent). */
pq_status pq_chunk_byte_range_for_writer(const pq_column_chunk *cc, pq_bytes created_by,
                                         uint64_t data_end, uint64_t *offset, uint64_t *len,
                                         pq_error *err);

/* ---------------------------------------------------------------------------
 * The walk
 * ------------------------------------------------------------------------- */

/* pq_page_info (one page of a chunk) is public: include/pq_pages.h. */

/* What walks did. pq_page_walk adds to it, so one struct can sum many walks. */
typedef struct pq_page_walk_counters {
    uint64_t walks;             /* pq_page_walk calls (successful or not) */
    uint64_t pages;             /* page headers decoded */
    uint64_t data_pages;        /* DATA_PAGE and DATA_PAGE_V2 */
    uint64_t dictionary_pages;
    uint64_t index_pages;       /* INDEX_PAGE: recorded, otherwise skipped */
    uint64_t header_bytes;      /* bytes of page headers decoded */
    uint64_t crc_checked;       /* pages whose CRC was verified */
} pq_page_walk_counters;

/* pq_page_walk flags */
enum {
    /* Verify each page's CRC-32 (when it has one) over its page data (the
     * compressed bytes as stored). A mismatch is PQ_ERR_CORRUPT_DATA naming
     * the page index and both values. */
    PQ_WALK_VERIFY_CRC = 1u << 0,
    /* The pages must end exactly at the end of the bytes: bytes left after
     * the last data page (when num_values stopped the walk) are an error.
     * Off by default, as in other readers; leave it off for ranges padded by
     * pq_chunk_byte_range_for_writer. */
    PQ_WALK_EXACT_END = 1u << 1
};

/* Walk the page headers in `chunk` (the chunk's bytes, `len` of them) until
 * the end of the bytes, or until the data pages' num_values add up to
 * `num_values` (the chunk's meta_data.num_values; pass -1 when unknown to
 * walk every byte). Every page must lie inside the bytes; with num_values
 * >= 0 the data pages must hold exactly that many values.
 *
 * On success *pages is a malloc'd array of *npages entries (NULL and 0 when
 * the chunk holds no page): free() it. On error *pages still holds the pages
 * walked before the failing one (free it too), and `err` names the failing
 * page: "page 3 at chunk offset 1234: PageHeader.type: invalid value 9".
 * `counters` may be NULL. */
pq_status pq_page_walk(const uint8_t *chunk, uint64_t len, int64_t num_values, unsigned flags,
                       pq_page_info **pages, size_t *npages, pq_page_walk_counters *counters,
                       pq_error *err);

/* pq_page_walk over a chunk not in memory: its headers read through
 * read_at (as pq_reader.h's sources read), the chunk's first byte at
 * `origin`, each header alone (512 bytes first, more while it does not
 * decode), so that a walk of a large mapped file touches none of its
 * pages. The same checks and errors, and an error of read_at's; flags
 * without PQ_WALK_VERIFY_CRC (checksums need the pages' bytes:
 * PQ_ERR_INVALID_ARGUMENT). */
pq_status pq_page_walk_read(pq_read_at_fn read_at, void *user, uint64_t origin, uint64_t len, int64_t num_values,
                            unsigned flags, pq_page_info **pages, size_t *npages, pq_page_walk_counters *counters,
                            pq_error *err);

/* A page's pq_page_info from its decoded header, the header at chunk
 * offset `off` taking `hlen` bytes. */
struct pq_page_header;
void pq_page_info_fill(pq_page_info *pi, const struct pq_page_header *h, uint64_t off, size_t hlen);

#endif
