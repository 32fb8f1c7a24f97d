/*
 * page_decrypt.h — the page-header walk over an encrypted column chunk.
 *
 * In an encrypted chunk every page header and every page is a module of its
 * own (metadata/crypto.h), and each module's AAD names the row group, the
 * column and, for data pages, the page's ordinal. The walk decrypts each
 * header, then its page, into one plaintext buffer laid out as a plaintext
 * chunk would be ([header][page]...), so that the later stages decode it as
 * any other chunk. Nothing here does I/O or keeps a key.
 */
#ifndef PQ_PAGE_DECRYPT_H
#define PQ_PAGE_DECRYPT_H

#include <stddef.h>
#include <stdint.h>

#include "pages/page_walk.h"

typedef struct pq_chunk_cipher {
    const uint8_t *key;         /* 16, 24 or 32 bytes */
    size_t key_len;
    int32_t algorithm;          /* pq_encryption_id: pages GCM or CTR */
    const uint8_t *file_aad;
    size_t file_aad_len;
    uint32_t row_group;         /* the row group's ordinal */
    uint32_t column;            /* the column's ordinal (its leaf index) */
    bool has_dictionary;        /* the chunk's metadata names a dictionary page */
} pq_chunk_cipher;

/* Walk the encrypted chunk `chunk` (`len` bytes) as pq_page_walk walks a
 * plaintext one (num_values as there), decrypting into *plain (a malloc
 * block from the buffer pool, *plain_len bytes; pq_pool_give or free it,
 * also on error). The pages' offsets and
 * compressed sizes are those in *plain. A module that fails authentication
 * is PQ_ERR_DECRYPT naming the page ("page 3 (data page header)"). CRCs are
 * not checked (they cover the stored bytes, which a tag already does). */
pq_status pq_page_walk_encrypted(const uint8_t *chunk, uint64_t len, int64_t num_values,
                                 const pq_chunk_cipher *cipher, uint8_t **plain, size_t *plain_len,
                                 pq_page_info **pages, size_t *npages, pq_page_walk_counters *counters,
                                 pq_error *err);

#endif
