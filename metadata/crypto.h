/*
 * crypto.h — Parquet Modular Encryption's modules: their framing, their
 * additional authenticated data (AAD), and AES-GCM / AES-CTR decryption
 * through OpenSSL's libcrypto. No key is kept here: callers pass one per call.
 *
 * A module is stored as: length (4 bytes, little-endian, the bytes that
 * follow), nonce (12 bytes), ciphertext, and for GCM a 16-byte tag. GCM
 * authenticates the ciphertext with the module's AAD; CTR (the data and
 * dictionary pages of AES_GCM_CTR_V1 files) authenticates nothing.
 */
#ifndef PQ_METADATA_CRYPTO_H
#define PQ_METADATA_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

#define PQ_CRYPTO_NONCE_LEN 12
#define PQ_CRYPTO_TAG_LEN 16
#define PQ_CRYPTO_LENGTH_LEN 4
/* Bytes a GCM / CTR module adds to its plaintext. */
#define PQ_CRYPTO_GCM_OVERHEAD (PQ_CRYPTO_LENGTH_LEN + PQ_CRYPTO_NONCE_LEN + PQ_CRYPTO_TAG_LEN)
#define PQ_CRYPTO_CTR_OVERHEAD (PQ_CRYPTO_LENGTH_LEN + PQ_CRYPTO_NONCE_LEN)
/* A plaintext footer's signature: nonce then GCM tag. */
#define PQ_CRYPTO_SIGNATURE_LEN (PQ_CRYPTO_NONCE_LEN + PQ_CRYPTO_TAG_LEN)
#define PQ_CRYPTO_MAX_KEY 32

/* AES keys are 16, 24 or 32 bytes. */
static inline bool pq_crypto_key_len_ok(size_t n)
{
    return n == 16 || n == 24 || n == 32;
}

/* The module types the AAD names (the spec's numbering). */
typedef enum pq_module_type {
    PQ_MODULE_FOOTER = 0,
    PQ_MODULE_COLUMN_META = 1,
    PQ_MODULE_DATA_PAGE = 2,
    PQ_MODULE_DICTIONARY_PAGE = 3,
    PQ_MODULE_DATA_PAGE_HEADER = 4,
    PQ_MODULE_DICTIONARY_PAGE_HEADER = 5,
    PQ_MODULE_COLUMN_INDEX = 6,
    PQ_MODULE_OFFSET_INDEX = 7,
    PQ_MODULE_BLOOM_HEADER = 8,
    PQ_MODULE_BLOOM_BITSET = 9
} pq_module_type;

/* A module's name for messages ("data page header"). */
const char *pq_module_name(pq_module_type type);

/* Largest AAD a file can need: a prefix and a unique part of up to this many
 * bytes each, then type and three ordinals. */
#define PQ_CRYPTO_MAX_FILE_AAD 512
#define PQ_CRYPTO_MAX_AAD (PQ_CRYPTO_MAX_FILE_AAD + 7)

/* The module AAD: file AAD, type, then the row group and column ordinals
 * (not for the footer) and the page ordinal (data pages and their headers
 * only), each 2 bytes little-endian. Returns its length, or 0 when an
 * ordinal does not fit in 16 bits or the file AAD is too long (the caller
 * reports it). */
size_t pq_crypto_aad(uint8_t out[PQ_CRYPTO_MAX_AAD], const uint8_t *file_aad, size_t file_aad_len,
                     pq_module_type type, uint32_t row_group, uint32_t column, uint32_t page);

/* The length a module declares in its first 4 bytes, checked against the
 * bytes at hand (`avail`) and the smallest module of its kind: *total is
 * 4 + that length. PQ_ERR_CORRUPT_DATA otherwise ("... module: length ..."
 * prefixed by `what`). */
pq_status pq_crypto_module_size(const uint8_t *module, size_t avail, bool gcm, const char *what,
                                size_t *total, pq_error *err);

/* Decrypt one GCM module of `len` bytes (length prefix included; from
 * pq_crypto_module_size) into `out`, which holds len - PQ_CRYPTO_GCM_OVERHEAD
 * bytes. A wrong key, AAD or altered byte is PQ_ERR_DECRYPT with `what` in
 * the message; no plaintext is trusted then (the caller discards `out`). */
pq_status pq_crypto_gcm_decrypt(const uint8_t *key, size_t key_len, const uint8_t *module, size_t len,
                                const uint8_t *aad, size_t aad_len, uint8_t *out, const char *what,
                                pq_error *err);

/* Where a module sits: the file AAD and the ordinals its AAD carries. */
typedef struct pq_module_place {
    const uint8_t *file_aad;
    size_t file_aad_len;
    pq_module_type type;
    uint32_t row_group, column, page;
    bool no_aad;                /* the writer's modules carry no AAD at all (DuckDB's files:
                                 * pq_footer_crypto.no_aad) */
} pq_module_place;

/* pq_crypto_gcm_decrypt with the module AAD of `at` (pq_crypto_aad);
 * PQ_ERR_UNSUPPORTED, naming `what`, when an ordinal does not fit. */
pq_status pq_crypto_gcm_module(const uint8_t *key, size_t key_len, const uint8_t *module, size_t len,
                               const pq_module_place *at, uint8_t *out, const char *what, pq_error *err);

/* Decrypt one CTR module (len - PQ_CRYPTO_CTR_OVERHEAD bytes out). */
pq_status pq_crypto_ctr_decrypt(const uint8_t *key, size_t key_len, const uint8_t *module, size_t len,
                                uint8_t *out, const char *what, pq_error *err);

/* Check a plaintext footer's signature: the GCM tag of encrypting `plain`
 * with the footer key, the signature's nonce and the footer AAD must equal
 * the signature's tag. PQ_ERR_DECRYPT when it does not. */
pq_status pq_crypto_verify_signature(const uint8_t *key, size_t key_len, const uint8_t *plain,
                                     size_t len, const uint8_t signature[PQ_CRYPTO_SIGNATURE_LEN],
                                     const uint8_t *aad, size_t aad_len, pq_error *err);

/* Overwrite `len` bytes so that the compiler cannot drop the store (keys). */
void pq_crypto_wipe(void *p, size_t len);

#endif
