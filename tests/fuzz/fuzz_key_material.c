/*
 * fuzz_key_material.c — libFuzzer target for the key material of encrypted
 * files (metadata/key_material.c): the input is the key metadata a file
 * stores, read as PKMT1 key material; when its first byte is '\x01' the
 * rest is split at the first NUL into key metadata and the bytes of an
 * external key material file (pq_key_material.external_material). The KMS
 * here unwraps anything to a fixed key, so the double-wrapping path (base64
 * decoding, AES-GCM with the key-encryption key) runs on the input's own
 * strings. Checked beyond "no crash, no leak": a success gives 16, 24 or
 * 32 bytes; a failure leaves *key_len 0 and a message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"

static int fixed_kms(void *user, const char *wrapped, const char *master, uint8_t key[32], size_t *key_len)
{
    (void)user;
    if (!wrapped || !master) abort();
    if (strcmp(master, "refuse") == 0) return 1;
    memcpy(key, "0123456789012345", 16);
    *key_len = 16;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pq_key_material km;
    pq_key_material_init(&km);
    km.unwrap = fixed_kms;
    const uint8_t *meta = data;
    size_t meta_len = size;
    if (size && data[0] == 1) {
        const uint8_t *nul = memchr(data + 1, 0, size - 1);
        meta = data + 1;
        meta_len = nul ? (size_t)(nul - meta) : size - 1;
        if (nul) {
            km.external_material = nul + 1;
            km.external_material_len = size - (size_t)(nul + 1 - data);
        }
    }
    uint8_t key[32];
    size_t key_len = 99;
    pq_error err = {0};
    pq_status st = pq_key_material_unwrap(&km, meta, meta_len, key, &key_len, &err);
    if (st == PQ_OK && key_len != 16 && key_len != 24 && key_len != 32) abort();
    if (st != PQ_OK && (key_len != 0 || err.message[0] == '\0')) abort();
    return 0;
}
