/*
 * crypto.c — module framing, AADs and AES through OpenSSL (see crypto.h).
 */
#include "metadata/crypto.h"

#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/primitives.h"
#include "metadata/error.h"
#include "pq_metadata.h"

const char *pq_module_name(pq_module_type type)
{
    static const char *const names[] = {
        "footer", "column metadata", "data page", "dictionary page", "data page header",
        "dictionary page header", "column index", "offset index", "bloom filter header",
        "bloom filter bitset"};
    return (unsigned)type < sizeof names / sizeof names[0] ? names[type] : "module";
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

size_t pq_crypto_aad(uint8_t out[PQ_CRYPTO_MAX_AAD], const uint8_t *file_aad, size_t file_aad_len,
                     pq_module_type type, uint32_t row_group, uint32_t column, uint32_t page)
{
    if (file_aad_len > PQ_CRYPTO_MAX_FILE_AAD) return 0;
    if (file_aad_len) memcpy(out, file_aad, file_aad_len);
    size_t n = file_aad_len;
    out[n++] = (uint8_t)type;
    if (type == PQ_MODULE_FOOTER) return n;
    /* Ordinals are signed 16-bit in the spec: 32767 at most. */
    if (row_group > INT16_MAX || column > INT16_MAX) return 0;
    put16(out + n, row_group);
    put16(out + n + 2, column);
    n += 4;
    if (type != PQ_MODULE_DATA_PAGE && type != PQ_MODULE_DATA_PAGE_HEADER) return n;
    if (page > INT16_MAX) return 0;
    put16(out + n, page);
    return n + 2;
}

pq_status pq_crypto_module_size(const uint8_t *module, size_t avail, bool gcm, const char *what,
                                size_t *total, pq_error *err)
{
    size_t min = gcm ? PQ_CRYPTO_NONCE_LEN + PQ_CRYPTO_TAG_LEN : PQ_CRYPTO_NONCE_LEN;
    if (avail < PQ_CRYPTO_LENGTH_LEN)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "%s: %zu bytes cannot hold a module's length",
                            what, avail);
    uint32_t n = pq_load_le32(module);
    if (n < min || n > avail - PQ_CRYPTO_LENGTH_LEN)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "%s: encrypted module declares %u bytes, %zu are there (at least %zu "
                            "needed)", what, n, avail - PQ_CRYPTO_LENGTH_LEN, min);
    *total = (size_t)n + PQ_CRYPTO_LENGTH_LEN;
    return PQ_OK;
}

static const EVP_CIPHER *gcm_cipher(size_t key_len)
{
    switch (key_len) {
        case 16: return EVP_aes_128_gcm();
        case 24: return EVP_aes_192_gcm();
        case 32: return EVP_aes_256_gcm();
        default: return NULL;
    }
}

static const EVP_CIPHER *ctr_cipher(size_t key_len)
{
    switch (key_len) {
        case 16: return EVP_aes_128_ctr();
        case 24: return EVP_aes_192_ctr();
        case 32: return EVP_aes_256_ctr();
        default: return NULL;
    }
}

static pq_status bad_key(size_t key_len, const char *what, pq_error *err)
{
    return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                        "%s: a key of %zu bytes (AES keys are 16, 24 or 32 bytes)", what, key_len);
}

/* EVP_*Update take int lengths: larger modules are fed in pieces. */
#define EVP_STEP (1 << 30)

static bool evp_update(EVP_CIPHER_CTX *ctx, bool encrypt, uint8_t *out, const uint8_t *in, size_t len)
{
    while (len) {
        int n = len > EVP_STEP ? EVP_STEP : (int)len, got = 0;
        int ok = encrypt ? EVP_EncryptUpdate(ctx, out, &got, in, n)
                         : EVP_DecryptUpdate(ctx, out, &got, in, n);
        if (!ok || got != n) return false;
        if (out) out += n;
        in += n;
        len -= (size_t)n;
    }
    return true;
}

static bool evp_aad(EVP_CIPHER_CTX *ctx, bool encrypt, const uint8_t *aad, size_t aad_len)
{
    int got = 0;
    if (!aad_len) return true;
    return (encrypt ? EVP_EncryptUpdate(ctx, NULL, &got, aad, (int)aad_len)
                    : EVP_DecryptUpdate(ctx, NULL, &got, aad, (int)aad_len)) == 1;
}

pq_status pq_crypto_gcm_decrypt(const uint8_t *key, size_t key_len, const uint8_t *module, size_t len,
                                const uint8_t *aad, size_t aad_len, uint8_t *out, const char *what,
                                pq_error *err)
{
    const EVP_CIPHER *cipher = gcm_cipher(key_len);
    if (!cipher) return bad_key(key_len, what, err);
    if (len < PQ_CRYPTO_GCM_OVERHEAD)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "%s: a %zu-byte GCM module is too short", what, len);
    const uint8_t *nonce = module + PQ_CRYPTO_LENGTH_LEN;
    const uint8_t *ct = nonce + PQ_CRYPTO_NONCE_LEN;
    size_t ct_len = len - PQ_CRYPTO_GCM_OVERHEAD;
    const uint8_t *tag = ct + ct_len;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) return pq_error_set(err, PQ_ERR_NOMEM, "%s: out of memory for a cipher", what);
    int final_len = 0;
    bool ok = EVP_DecryptInit_ex(ctx, cipher, NULL, NULL, NULL) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, PQ_CRYPTO_NONCE_LEN, NULL) == 1 &&
              EVP_DecryptInit_ex(ctx, NULL, NULL, key, nonce) == 1 && evp_aad(ctx, false, aad, aad_len) &&
              evp_update(ctx, false, out, ct, ct_len) &&
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, PQ_CRYPTO_TAG_LEN, (void *)tag) == 1 &&
              EVP_DecryptFinal_ex(ctx, out + ct_len, &final_len) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok) {
        if (ct_len) pq_crypto_wipe(out, ct_len); /* unauthenticated bytes never escape */
        return pq_error_set(err, PQ_ERR_DECRYPT,
                            "%s: authentication failed (a wrong key or AAD prefix, or altered bytes)", what);
    }
    return PQ_OK;
}

pq_status pq_crypto_ctr_decrypt(const uint8_t *key, size_t key_len, const uint8_t *module, size_t len,
                                uint8_t *out, const char *what, pq_error *err)
{
    const EVP_CIPHER *cipher = ctr_cipher(key_len);
    if (!cipher) return bad_key(key_len, what, err);
    if (len < PQ_CRYPTO_CTR_OVERHEAD)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "%s: a %zu-byte CTR module is too short", what, len);
    /* The IV is the nonce then a 32-bit big-endian block counter from 1. */
    uint8_t iv[16];
    memcpy(iv, module + PQ_CRYPTO_LENGTH_LEN, PQ_CRYPTO_NONCE_LEN);
    iv[12] = iv[13] = iv[14] = 0;
    iv[15] = 1;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) return pq_error_set(err, PQ_ERR_NOMEM, "%s: out of memory for a cipher", what);
    int final_len = 0;
    size_t ct_len = len - PQ_CRYPTO_CTR_OVERHEAD;
    bool ok = EVP_DecryptInit_ex(ctx, cipher, NULL, key, iv) == 1 &&
              evp_update(ctx, false, out, module + PQ_CRYPTO_CTR_OVERHEAD, ct_len) &&
              EVP_DecryptFinal_ex(ctx, out + ct_len, &final_len) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok) return pq_error_set(err, PQ_ERR_DECRYPT, "%s: AES-CTR decryption failed", what);
    return PQ_OK;
}

pq_status pq_crypto_verify_signature(const uint8_t *key, size_t key_len, const uint8_t *plain,
                                     size_t len, const uint8_t signature[PQ_CRYPTO_SIGNATURE_LEN],
                                     const uint8_t *aad, size_t aad_len, pq_error *err)
{
    const EVP_CIPHER *cipher = gcm_cipher(key_len);
    if (!cipher) return bad_key(key_len, "footer signature", err);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a cipher");
    /* Encrypt in blocks through a small buffer: only the tag is wanted. */
    uint8_t buf[4096], tag[PQ_CRYPTO_TAG_LEN];
    int final_len = 0;
    bool ok = EVP_EncryptInit_ex(ctx, cipher, NULL, NULL, NULL) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, PQ_CRYPTO_NONCE_LEN, NULL) == 1 &&
              EVP_EncryptInit_ex(ctx, NULL, NULL, key, signature) == 1 && evp_aad(ctx, true, aad, aad_len);
    for (size_t at = 0; ok && at < len; at += sizeof buf) {
        size_t n = len - at < sizeof buf ? len - at : sizeof buf;
        ok = evp_update(ctx, true, buf, plain + at, n);
    }
    ok = ok && EVP_EncryptFinal_ex(ctx, buf, &final_len) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, PQ_CRYPTO_TAG_LEN, tag) == 1;
    EVP_CIPHER_CTX_free(ctx);
    pq_crypto_wipe(buf, sizeof buf);
    if (!ok) return pq_error_set(err, PQ_ERR_DECRYPT, "footer signature: AES-GCM failed");
    if (CRYPTO_memcmp(tag, signature + PQ_CRYPTO_NONCE_LEN, PQ_CRYPTO_TAG_LEN) != 0)
        return pq_error_set(err, PQ_ERR_DECRYPT,
                            "footer signature does not match (a wrong footer key or AAD prefix, or "
                            "an altered footer)");
    return PQ_OK;
}

pq_status pq_crypto_gcm_module(const uint8_t *key, size_t key_len, const uint8_t *module, size_t len,
                               const pq_module_place *at, uint8_t *out, const char *what, pq_error *err)
{
    uint8_t aad[PQ_CRYPTO_MAX_AAD];
    if (at->no_aad) return pq_crypto_gcm_decrypt(key, key_len, module, len, NULL, 0, out, what, err);
    size_t aad_len = pq_crypto_aad(aad, at->file_aad, at->file_aad_len, at->type, at->row_group, at->column, at->page);
    if (!aad_len)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "%s: a row group, column or page ordinal beyond 32767, or an "
                            "AAD prefix over %d bytes", what, PQ_CRYPTO_MAX_FILE_AAD);
    return pq_crypto_gcm_decrypt(key, key_len, module, len, aad, aad_len, out, what, err);
}

void pq_crypto_wipe(void *p, size_t len)
{
    if (p && len) OPENSSL_cleanse(p, len);
}

pq_status pq_aes_gcm_unwrap(const uint8_t *key, size_t key_len, const uint8_t *wrapped, size_t len,
                            const uint8_t *aad, size_t aad_len, uint8_t *out, size_t out_cap, size_t *out_len,
                            pq_error *err)
{
    if (out_len) *out_len = 0;
    if (!key || !wrapped || !out || (aad_len && !aad))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_aes_gcm_unwrap: NULL argument");
    if (len < PQ_CRYPTO_NONCE_LEN + PQ_CRYPTO_TAG_LEN)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "a wrapped key of %zu bytes is too short", len);
    if (aad_len > INT_MAX) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "AAD too long");
    size_t n = len - PQ_CRYPTO_NONCE_LEN - PQ_CRYPTO_TAG_LEN;
    if (n > out_cap) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "the key needs %zu bytes of room", n);
    /* The module functions take a length prefix first: make one. */
    uint8_t *module = malloc(len + PQ_CRYPTO_LENGTH_LEN);
    if (!module) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    module[0] = (uint8_t)len;
    module[1] = (uint8_t)(len >> 8);
    module[2] = (uint8_t)(len >> 16);
    module[3] = (uint8_t)(len >> 24);
    memcpy(module + PQ_CRYPTO_LENGTH_LEN, wrapped, len);
    pq_status st = pq_crypto_gcm_decrypt(key, key_len, module, len + PQ_CRYPTO_LENGTH_LEN, aad, aad_len, out,
                                         "wrapped key", err);
    pq_crypto_wipe(module, len + PQ_CRYPTO_LENGTH_LEN);
    free(module);
    if (st == PQ_OK && out_len) *out_len = n;
    return st;
}
