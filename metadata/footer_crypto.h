/*
 * footer_crypto.h — the footer stage's side of Parquet Modular Encryption:
 * opening an encrypted footer, checking a plaintext footer's signature,
 * decrypting column metadata, and finding the key of a column. Later stages
 * ask here for a column's key and the file's AAD.
 */
#ifndef PQ_METADATA_FOOTER_CRYPTO_H
#define PQ_METADATA_FOOTER_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metadata/crypto.h"
#include "metadata/crypto_state.h"
#include "pq_metadata.h"


/* A key found for a column or the footer. */
typedef struct pq_key {
    uint8_t bytes[PQ_CRYPTO_MAX_KEY];
    size_t len;                 /* 0: no key */
} pq_key;

struct pq_arena;

/* Step 1 of a parse: `footer` as stored. For an encrypted footer, decrypt
 * it (arena memory) and point *plain at the FileMetaData; else *plain is
 * `footer`. `out` is filled either way. */
pq_status pq_footer_crypto_open(const uint8_t *footer, size_t len, const pq_decryption *keys,
                                struct pq_arena *arena, pq_footer_crypto *out, const uint8_t **plain,
                                size_t *plain_len, pq_error *err);

/* Step 2, right after the FileMetaData is decoded: an algorithm this
 * library knows (PQ_ERR_UNSUPPORTED), and no encrypted column in a file
 * without one (PQ_ERR_CORRUPT_FOOTER). */
pq_status pq_footer_crypto_check(const pq_file_metadata *fm, const pq_footer_crypto *crypto, pq_error *err);

/* Step 3, after the schema is built from `fm`: a plaintext footer's
 * file AAD and signature, then every column chunk's encrypted metadata
 * whose key is at hand. `footer` and `len` as stored. With no keys at all,
 * nothing is checked or decrypted: the plaintext columns read. */
pq_status pq_footer_crypto_finish(const uint8_t *footer, size_t len, const pq_decryption *keys,
                                  struct pq_arena *arena, pq_file_metadata *fm, const pq_schema *schema,
                                  pq_footer_crypto *crypto, pq_error *err);

/* The key of a column chunk (`leaf` names it in messages): the footer key
 * for PQ_CRYPTO_FOOTER_KEY, the given column key or the retriever's for
 * PQ_CRYPTO_COLUMN_KEY. *key->len is 0 for a plaintext chunk. A missing key
 * is PQ_ERR_ENCRYPTED naming the column. */
pq_status pq_key_for_chunk(const pq_decryption *keys, const pq_footer_crypto *crypto, const pq_column_chunk *cc,
                           const char *leaf_path, pq_key *key, pq_error *err);

/* The footer key: given, or the retriever's for `key_metadata`. */
bool pq_key_for_footer(const pq_decryption *keys, pq_bytes key_metadata, pq_key *key);

/* The encryption state of parsed metadata (metadata.c keeps it). */
const pq_footer_crypto *pq_metadata_crypto(const pq_metadata *md);

#endif
