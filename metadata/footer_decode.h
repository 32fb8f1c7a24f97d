/*
 * footer_decode.h — the Thrift compact decoders of footer structs that the
 * encryption code decodes on their own (footer_decode.c; pq_footer_decode
 * itself is in metadata_internal.h).
 */
#ifndef PQ_METADATA_FOOTER_DECODE_H
#define PQ_METADATA_FOOTER_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "metadata/arena.h"
#include "pq_metadata.h"

/* Decode one ColumnMetaData struct (decrypted encrypted_column_metadata). */
pq_status pq_column_meta_decode(const uint8_t *buf, size_t len, pq_arena *arena, pq_column_meta *out,
                                pq_error *err);

/* Decode the FileCryptoMetaData that opens an encrypted footer; *consumed is
 * its length (the encrypted FileMetaData module follows). Spans point into
 * `buf`. */
pq_status pq_file_crypto_decode(const uint8_t *buf, size_t len, pq_encryption_algorithm *alg,
                                pq_bytes *key_metadata, size_t *consumed, pq_error *err);

#endif
