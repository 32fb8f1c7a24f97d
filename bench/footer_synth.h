/*
 * footer_synth.h — realistic synthetic Parquet footers for the benchmark.
 *
 * Builds a FileMetaData with the c_glib reference types and encodes it with
 * the compact protocol, so the bytes come from an independent encoder.
 *
 * Shape: a flat schema of `columns` OPTIONAL leaves whose types cycle
 * INT64, DOUBLE, BYTE_ARRAY (UTF8 / logical STRING); `row_groups` row groups,
 * each with one ColumnChunk per leaf carrying what parquet-cpp writes:
 * file_offset, ColumnMetaData (type, encodings [dictionary, RLE, PLAIN],
 * path_in_schema, ZSTD, num_values, sizes, data and dictionary page offsets,
 * statistics with min_value/max_value/null_count, encoding_stats) and the
 * offset/column index offsets and lengths. The file has created_by and one
 * TYPE_ORDER column order per leaf. Values come from a fixed-seed PRNG, so the
 * same arguments always give the same bytes.
 *
 * Statistics flavour:
 *   PQ_SYNTH_NUMERIC  every min/max is 8 bytes (string columns hold 8-char
 *                     strings), the common case of numeric-heavy tables;
 *   PQ_SYNTH_STRING   string columns hold 16-24-byte min/max strings
 *                     (numeric columns keep their 8-byte values).
 */
#ifndef PQ_FOOTER_SYNTH_H
#define PQ_FOOTER_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "pqt_parquet_types.h"

typedef enum pq_synth_stats {
    PQ_SYNTH_NUMERIC = 0,
    PQ_SYNTH_STRING = 1
} pq_synth_stats;

/* "numeric" / "string". */
const char *pq_synth_stats_name(pq_synth_stats stats);

/* Build the FileMetaData object (release with g_object_unref). NULL when
 * columns or row_groups is 0. */
pqtFileMetaData *pq_synth_footer(uint32_t columns, uint32_t row_groups, pq_synth_stats stats);

/* Build, encode with the compact protocol and free the object. Returns
 * g_malloc'd bytes (g_free) and their length in *len, or NULL. */
uint8_t *pq_synth_footer_bytes(uint32_t columns, uint32_t row_groups, pq_synth_stats stats,
                               size_t *len);

#endif
