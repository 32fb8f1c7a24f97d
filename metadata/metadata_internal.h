/*
 * metadata_internal.h — the layout of pq_metadata, for metadata/ only.
 */
#ifndef PQ_METADATA_INTERNAL_H
#define PQ_METADATA_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>

#include "metadata/arena.h"
#include "metadata/crypto_state.h"
#include "metadata/warnings.h"
#include "pq_metadata.h"

struct pq_metadata {
    atomic_uint_fast32_t refs;
    uint8_t *footer;          /* private copy of the Thrift FileMetaData bytes */
    size_t footer_len;
    pq_arena arena;           /* every decoded struct, the schema tree, leaf paths */
    pq_file_metadata file;
    pq_schema schema;
    pq_warnings warnings;     /* pq_metadata_warning() */
    pq_footer_crypto crypto;  /* how the file is encrypted (no key) */
    bool projected;
};

/* Decode the FileMetaData in `buf` (which must stay alive: spans point into
 * it) into `out`, allocating from `arena`. `keep` is NULL (decode every column
 * chunk) or a bitmap of leaf indexes to decode, `keep_len` leaves long. */
pq_status pq_footer_decode(const uint8_t *buf, size_t len, pq_arena *arena,
                           const uint8_t *keep, uint32_t keep_len,
                           pq_file_metadata *out, pq_error *err);

/* Build the schema tree and leaf descriptions of `file` into `out`. Fails with
 * PQ_ERR_SCHEMA when the element list is not a valid tree. An annotation that
 * cannot apply to its leaf's storage, or an unknown converted type, is set
 * aside (the leaf reads by its physical type) with a warning added to
 * `warnings` (which may be NULL). */
pq_status pq_schema_build(pq_arena *arena, const pq_file_metadata *file, pq_schema *out,
                          pq_warnings *warnings, pq_error *err);

/* Derive a leaf's logical type from its element: the logicalType when set,
 * else the equivalent of its converted_type (UTF8 -> STRING, TIMESTAMP_MILLIS
 * -> TIMESTAMP(MILLIS, utc=true), INT_16 -> INT(16, signed), DECIMAL ->
 * DECIMAL(precision, scale), NA -> UNKNOWN, ...); whether it applies to the
 * element's physical type is not checked here (pq_schema_build does). */
pq_logical_type pq_logical_from_element(const pq_schema_element *el);

#endif
