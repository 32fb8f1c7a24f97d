/*
 * keys.h — the reader's own copy of the caller's pq_decryption, and the
 * key and cipher of one column chunk. The copy lives in one block that is
 * wiped (OPENSSL_cleanse) before it is freed.
 */
#ifndef PQ_READER_KEYS_H
#define PQ_READER_KEYS_H

#include "metadata/crypto.h"
#include "pages/page_decrypt.h"
#include "pq_metadata.h"

/* Copy `src` (its struct_size checked) into one malloc'd block: the struct,
 * then its keys, paths and prefix. NULL `src` gives *out NULL. */
pq_status pq_keys_copy(const pq_decryption *src, pq_decryption **out, pq_error *err);

/* Wipe and free a copy made by pq_keys_copy. NULL is ignored. */
void pq_keys_free(pq_decryption *keys);

/* Once the footer is parsed: ask the key retriever, once, for the footer
 * key and the key of every column encrypted with its own key, and replace
 * *keys by a copy holding those keys and no retriever, so that nothing
 * calls back into the caller after the footer stage (a binding's callback
 * may be gone by then; a KMS is asked once per key). Keys the retriever
 * has not are left out. */
pq_status pq_keys_resolve(const pq_metadata *md, pq_decryption **keys, pq_error *err);

/* Whether the chunk is encrypted (its pages are modules). */
bool pq_chunk_is_encrypted(const pq_column_chunk *cc);

/* The cipher for chunk (row group `g`, leaf `leaf`) of `md`: its key into
 * `key_buf` (PQ_CRYPTO_MAX_KEY bytes; the caller wipes it). PQ_ERR_ENCRYPTED
 * naming the column when its key was not given. */
/* A chunk's cipher holding its own copy of the key, for a decode that
 * decrypts its pages later (pq_page_decrypt): pq_chunk_key_new, and
 * pq_chunk_key_free, which wipes the key. */
typedef struct pq_chunk_key {
    pq_chunk_cipher cipher;     /* cipher.key points at key */
    uint8_t key[PQ_CRYPTO_MAX_KEY];
} pq_chunk_key;

/* Chunk (g, leaf)'s cipher in a new pq_chunk_key, or NULL with the error
 * pq_chunk_cipher_for gives. */
pq_chunk_key *pq_chunk_key_new(const pq_metadata *md, const pq_decryption *keys, uint32_t g, uint32_t leaf,
                               pq_error *err);
void pq_chunk_key_free(pq_chunk_key *k);

pq_status pq_chunk_cipher_for(const pq_metadata *md, const pq_decryption *keys, uint32_t g, uint32_t leaf,
                              pq_chunk_cipher *cipher, uint8_t *key_buf, pq_error *err);

/* Decrypt the one GCM module at the start of `bytes` (`len` of them) of
 * chunk (row group g, leaf) whose AAD has no page ordinal (column and
 * offset indexes, bloom filter header and bitset): *out (malloc'd; free
 * it) holds *out_len bytes of plaintext, *used (may be NULL) the module's
 * size. PQ_ERR_DECRYPT naming the module when it does not authenticate. */
pq_status pq_module_decrypt(const pq_metadata *md, const pq_decryption *keys, uint32_t g, uint32_t leaf,
                            pq_module_type type, const uint8_t *bytes, size_t len, uint8_t **out, size_t *out_len,
                            size_t *used, pq_error *err);

#endif
