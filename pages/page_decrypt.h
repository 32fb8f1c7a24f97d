/*
 * page_decrypt.h — the page-header walk over an encrypted column chunk, and
 * the decryption of its pages.
 *
 * In an encrypted chunk every page header and every page is a module of its
 * own (metadata/crypto.h), and each module's AAD names the row group, the
 * column and, for data pages, the page's ordinal. Two ways to walk one:
 * - pq_page_walk_encrypted_headers decrypts the headers alone and leaves the
 *   pages where they lie, encrypted; the decode decrypts each page just
 *   before it decompresses it (pq_page_decrypt), while the page is in the
 *   cache, with no plaintext copy of the whole chunk (the reader's way);
 * - pq_page_walk_encrypted decrypts every header and page into one
 *   plaintext buffer laid out as a plaintext chunk would be
 *   ([header][page]...), for a caller that wants the chunk whole.
 * Nothing here does I/O or keeps a key.
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
    bool no_aad;                /* modules without AAD (pq_footer_crypto.no_aad) */
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
/* How to decrypt one page of a chunk walked by
 * pq_page_walk_encrypted_headers (one per page info, same index). */
typedef struct pq_page_module {
    uint32_t stored;            /* the page's bytes in the chunk, from its info's data_offset:
                                 * the bytes in the clear, then the module */
    uint32_t clear;             /* leading bytes in the clear (parquet-java writes a
                                 * DATA_PAGE_V2's level sections so); 0 otherwise */
    uint32_t ordinal;           /* the data page's ordinal in its AAD (0 for other pages) */
} pq_page_module;

/* Walk the encrypted chunk `chunk` (`len` bytes) as pq_page_walk walks a
 * plaintext one, decrypting each page header (into a buffer of its own,
 * freed here) but not the pages: each page info's offsets are into `chunk`
 * (header_offset and header_len span the header's module, data_offset is
 * where the page's stored bytes begin) and its compressed_size is the
 * page's plaintext length, what pq_page_decrypt writes; (*modules)[i] says
 * how to decrypt page i. Every page's module length is checked against
 * its header here, so a decode can trust the layout. *pages and *modules
 * are malloc'd (free them, also on error). */
pq_status pq_page_walk_encrypted_headers(const uint8_t *chunk, uint64_t len, int64_t num_values,
                                         const pq_chunk_cipher *cipher, pq_page_info **pages,
                                         pq_page_module **modules, size_t *npages,
                                         pq_page_walk_counters *counters, pq_error *err);

/* Decrypt page `page` (its info pi, its module m) of a chunk walked by
 * pq_page_walk_encrypted_headers into dst (pi->compressed_size bytes): its
 * bytes in the clear copied, its module authenticated (GCM) and decrypted.
 * PQ_ERR_DECRYPT names the page and its module ("page 3 (data page)") when
 * it does not authenticate: a wrong key or altered bytes; dst's contents
 * are then not to be used. PQ_ERR_CORRUPT_DATA when the page lies outside
 * the chunk's `len` bytes. */
pq_status pq_page_decrypt(const pq_chunk_cipher *cipher, const uint8_t *chunk, uint64_t len,
                          const pq_page_info *pi, const pq_page_module *m, size_t page, uint8_t *dst,
                          pq_error *err);

pq_status pq_page_walk_encrypted(const uint8_t *chunk, uint64_t len, int64_t num_values,
                                 const pq_chunk_cipher *cipher, uint8_t **plain, size_t *plain_len,
                                 pq_page_info **pages, size_t *npages, pq_page_walk_counters *counters,
                                 pq_error *err);

#endif
