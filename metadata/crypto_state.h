/*
 * crypto_state.h — what the footer stage learned of a file's encryption,
 * kept in pq_metadata (no key: keys stay with their readers).
 */
#ifndef PQ_METADATA_CRYPTO_STATE_H
#define PQ_METADATA_CRYPTO_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "pq_metadata.h"

/* Filled by metadata/footer_crypto.c at parse time. */
typedef struct pq_footer_crypto {
    pq_file_encryption info;
    uint8_t *file_aad;          /* prefix then the file's unique part (arena) */
    size_t file_aad_len;
    bool no_aad;                /* its modules carry no AAD (a file whose algorithm names no
                                 * unique part and whose footer authenticates only without AAD,
                                 * as DuckDB writes them): every module read so */
} pq_footer_crypto;

#endif
