/*
 * footer_crypto.c — encrypted footers, footer signatures, encrypted column
 * metadata and key lookup (see footer_crypto.h).
 */
#include "metadata/footer_crypto.h"

#include <stdio.h>
#include <string.h>

#include "metadata/arena.h"
#include "metadata/error.h"
#include "metadata/footer_decode.h"

/* A FileCryptoMetaData starts with field 1, a struct: compact byte 0x1C. A
 * FileMetaData starts with field 1, an i32 (0x15). */
#define FILE_CRYPTO_FIRST_BYTE 0x1C

bool pq_key_for_footer(const pq_decryption *keys, pq_bytes key_metadata, pq_key *key)
{
    key->len = 0;
    if (!keys) return false;
    if (keys->footer_key && keys->footer_key_len) {
        if (keys->footer_key_len > PQ_CRYPTO_MAX_KEY) return false;
        memcpy(key->bytes, keys->footer_key, keys->footer_key_len);
        key->len = keys->footer_key_len;
        return true;
    }
    if (keys->key_retriever) {
        size_t n = 0;
        if (keys->key_retriever(keys->key_retriever_user, key_metadata.ptr, key_metadata.len, key->bytes,
                                &n) == 0 &&
            n && n <= PQ_CRYPTO_MAX_KEY) {
            key->len = n;
            return true;
        }
        pq_crypto_wipe(key->bytes, sizeof key->bytes);
    }
    return false;
}

static bool path_equals(const char *dotted, const pq_bytes *parts, uint32_t n)
{
    const char *p = dotted;
    for (uint32_t i = 0; i < n; i++) {
        if (i) {
            if (*p != '.') return false;
            p++;
        }
        if (strncmp(p, (const char *)parts[i].ptr, parts[i].len) != 0 ||
            memchr(parts[i].ptr, 0, parts[i].len))
            return false;
        p += parts[i].len;
    }
    return *p == '\0';
}

static pq_status key_length_ok(size_t n, const char *whose, const char *path, pq_error *err)
{
    if (pq_crypto_key_len_ok(n)) return PQ_OK;
    return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                        "the %s key%s%s%s has %zu bytes (AES keys are 16, 24 or 32 bytes)", whose,
                        path ? " of column '" : "", path ? path : "", path ? "'" : "", n);
}

pq_status pq_key_for_chunk(const pq_decryption *keys, const pq_footer_crypto *crypto, const pq_column_chunk *cc,
                           const char *leaf_path, pq_key *key, pq_error *err)
{
    key->len = 0;
    if (!(cc->set & PQ_CC_HAS_CRYPTO_METADATA) || cc->crypto_kind == PQ_CRYPTO_NONE) return PQ_OK;
    if (cc->crypto_kind == PQ_CRYPTO_FOOTER_KEY) {
        if (pq_key_for_footer(keys, crypto->info.footer_key_metadata, key)) return key_length_ok(key->len, "footer", NULL, err);
        return pq_error_set(err, PQ_ERR_ENCRYPTED,
                            "column '%s' is encrypted with the footer key, which was not given "
                            "(footer_key)", leaf_path);
    }
    if (keys) {
        for (size_t i = 0; i < keys->column_keys_len; i++) {
            const pq_column_key *ck = &keys->column_keys[i];
            if (!ck->path || !ck->key) continue;
            bool match = cc->column_key_path_len ? path_equals(ck->path, cc->column_key_path,
                                                               cc->column_key_path_len)
                                                 : strcmp(ck->path, leaf_path) == 0;
            if (!match) continue;
            pq_status st = key_length_ok(ck->key_len, "given", leaf_path, err);
            if (st != PQ_OK) return st;
            memcpy(key->bytes, ck->key, ck->key_len);
            key->len = ck->key_len;
            return PQ_OK;
        }
        if (keys->key_retriever) {
            size_t n = 0;
            if (keys->key_retriever(keys->key_retriever_user, cc->column_key_metadata.ptr,
                                    cc->column_key_metadata.len, key->bytes, &n) == 0 &&
                n) {
                key->len = n;
                return key_length_ok(n, "retrieved", leaf_path, err);
            }
            pq_crypto_wipe(key->bytes, sizeof key->bytes);
        }
    }
    return pq_error_set(err, PQ_ERR_ENCRYPTED,
                        "column '%s' is encrypted with its own key, which was not given (column_keys)",
                        leaf_path);
}

/* The file AAD: the prefix (stored, or the caller's) then the unique part. */
static pq_status make_file_aad(const pq_encryption_algorithm *alg, const pq_decryption *keys,
                               pq_arena *arena, pq_footer_crypto *out, pq_error *err)
{
    if (alg->id != PQ_ENCRYPTION_AES_GCM_V1 && alg->id != PQ_ENCRYPTION_AES_GCM_CTR_V1)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED,
                            "the file's encryption algorithm is not AES_GCM_V1 or AES_GCM_CTR_V1");
    const uint8_t *prefix = alg->aad_prefix.ptr;
    size_t prefix_len = alg->aad_prefix.len;
    bool given = keys && keys->aad_prefix && keys->aad_prefix_len;
    out->info.aad_prefix_stored = prefix_len > 0;
    if (prefix_len && given &&
        (keys->aad_prefix_len != prefix_len || memcmp(keys->aad_prefix, prefix, prefix_len) != 0))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "the AAD prefix given differs from the one the file stores");
    if (!prefix_len && alg->supply_aad_prefix) {
        if (!given)
            return pq_error_set(err, PQ_ERR_ENCRYPTED,
                                "the file's writer did not store its AAD prefix: give it (aad_prefix)");
        prefix = keys->aad_prefix;
        prefix_len = keys->aad_prefix_len;
    }
    size_t n = prefix_len + alg->aad_file_unique.len;
    if (n > PQ_CRYPTO_MAX_FILE_AAD)
        return pq_error_set(err, PQ_ERR_CORRUPT_FOOTER, "the file's AAD is %zu bytes (at most %d accepted)",
                            n, PQ_CRYPTO_MAX_FILE_AAD);
    out->file_aad = pq_arena_alloc(arena, n ? n : 1);
    if (!out->file_aad) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    if (prefix_len) memcpy(out->file_aad, prefix, prefix_len);
    if (alg->aad_file_unique.len)
        memcpy(out->file_aad + prefix_len, alg->aad_file_unique.ptr, alg->aad_file_unique.len);
    out->file_aad_len = n;
    out->info.algorithm = alg->id;
    return PQ_OK;
}

pq_status pq_footer_crypto_open(const uint8_t *footer, size_t len, const pq_decryption *keys,
                                pq_arena *arena, pq_footer_crypto *out, const uint8_t **plain,
                                size_t *plain_len, pq_error *err)
{
    memset(out, 0, sizeof *out);
    *plain = footer;
    *plain_len = len;
    if (len == 0 || footer[0] != FILE_CRYPTO_FIRST_BYTE) return PQ_OK;

    pq_encryption_algorithm alg;
    pq_bytes key_metadata;
    size_t used = 0;
    pq_status st = pq_file_crypto_decode(footer, len, &alg, &key_metadata, &used, err);
    if (st != PQ_OK) return st;
    out->info.footer_encrypted = true;
    out->info.footer_key_metadata = key_metadata;
    st = make_file_aad(&alg, keys, arena, out, err);
    if (st != PQ_OK) return st;
    pq_key key;
    if (!pq_key_for_footer(keys, key_metadata, &key))
        return pq_error_set(err, PQ_ERR_ENCRYPTED,
                            "the footer is encrypted (\"PARE\"): give its key (footer_key)");
    st = key_length_ok(key.len, "footer", NULL, err);
    size_t module_len = 0;
    if (st == PQ_OK)
        st = pq_crypto_module_size(footer + used, len - used, true, "encrypted footer", &module_len, err);
    uint8_t *buf = NULL;
    if (st == PQ_OK) {
        buf = pq_arena_alloc(arena, module_len - PQ_CRYPTO_GCM_OVERHEAD + 1);
        if (!buf) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory for the decrypted footer");
    }
    if (st == PQ_OK) {
        pq_module_place at = {out->file_aad, out->file_aad_len, PQ_MODULE_FOOTER, 0, 0, 0, false};
        st = pq_crypto_gcm_module(key.bytes, key.len, footer + used, module_len, &at, buf, "footer", err);
        if (st == PQ_ERR_DECRYPT && out->file_aad_len == 0 && alg.id == PQ_ENCRYPTION_AES_GCM_V1) {
            /* No unique part, no prefix: DuckDB's writer, which puts no AAD
             * on any module (the spec's AAD would still hold the module
             * type). Its footer authenticates only so; a file written by
             * the spec fails both ways. */
            pq_error again;
            at.no_aad = true;
            if (pq_crypto_gcm_module(key.bytes, key.len, footer + used, module_len, &at, buf, "footer", &again) ==
                PQ_OK) {
                st = PQ_OK;
                out->no_aad = true;
            }
        }
    }
    pq_crypto_wipe(&key, sizeof key);
    if (st != PQ_OK) return st;
    *plain = buf;
    *plain_len = module_len - PQ_CRYPTO_GCM_OVERHEAD;
    return PQ_OK;
}

/* A plaintext footer's signature: the last 28 bytes of the footer. */
static pq_status verify_plaintext_footer(const uint8_t *footer, size_t len, const pq_decryption *keys,
                                         const pq_file_metadata *fm, pq_footer_crypto *crypto,
                                         pq_error *err)
{
    pq_key key;
    crypto->info.footer_key_metadata = fm->footer_signing_key_metadata;
    if (!pq_key_for_footer(keys, fm->footer_signing_key_metadata, &key)) return PQ_OK; /* unverified */
    pq_status st = key_length_ok(key.len, "footer", NULL, err);
    if (st == PQ_OK && len < PQ_CRYPTO_SIGNATURE_LEN)
        st = pq_error_set(err, PQ_ERR_CORRUPT_FOOTER, "the footer has no room for its signature");
    if (st == PQ_OK) {
        uint8_t aad[PQ_CRYPTO_MAX_AAD];
        size_t aad_len = pq_crypto_aad(aad, crypto->file_aad, crypto->file_aad_len, PQ_MODULE_FOOTER, 0, 0, 0);
        size_t body = len - PQ_CRYPTO_SIGNATURE_LEN;
        st = pq_crypto_verify_signature(key.bytes, key.len, footer, body, footer + body, aad, aad_len, err);
    }
    pq_crypto_wipe(&key, sizeof key);
    if (st == PQ_OK) crypto->info.signature_verified = true;
    return st;
}

static pq_status decrypt_column_meta(const pq_decryption *keys, pq_arena *arena, pq_column_chunk *cc, uint32_t rg_ordinal, uint32_t column,
                                     const char *path, const pq_footer_crypto *crypto, bool *keyless,
                                     pq_error *err)
{
    pq_key key;
    pq_error ignored;
    *keyless = false;
    if (pq_key_for_chunk(keys, crypto, cc, path, &key, &ignored) != PQ_OK) {
        if (ignored.code != PQ_ERR_ENCRYPTED) {
            if (err) *err = ignored;
            return ignored.code;
        }
        *keyless = true;
        return PQ_OK;
    }
    if (!(cc->set & PQ_CC_HAS_ENCRYPTED_METADATA)) {
        pq_crypto_wipe(&key, sizeof key);
        return PQ_OK;
    }
    char what[160];
    snprintf(what, sizeof what, "row group %u column '%s': column metadata", rg_ordinal, path);
    size_t module_len = 0;
    pq_status st = pq_crypto_module_size(cc->encrypted_column_metadata.ptr, cc->encrypted_column_metadata.len,
                                         true, what, &module_len, err);
    uint8_t *buf = NULL;
    if (st == PQ_OK) {
        buf = pq_arena_alloc(arena, module_len - PQ_CRYPTO_GCM_OVERHEAD + 1);
        if (!buf) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory for column metadata");
    }
    if (st == PQ_OK) {
        pq_module_place at = {crypto->file_aad, crypto->file_aad_len, PQ_MODULE_COLUMN_META, rg_ordinal, column, 0,
                              crypto->no_aad};
        st = pq_crypto_gcm_module(key.bytes, key.len, cc->encrypted_column_metadata.ptr, module_len, &at, buf, what,
                                  err);
    }
    pq_crypto_wipe(&key, sizeof key);
    pq_column_meta meta;
    if (st == PQ_OK) st = pq_column_meta_decode(buf, module_len - PQ_CRYPTO_GCM_OVERHEAD, arena, &meta, err);
    if (st != PQ_OK) return st;
    cc->meta_data = meta;
    cc->set |= PQ_CC_HAS_META_DATA | PQ_CC_DECRYPTED_METADATA;
    return PQ_OK;
}

pq_status pq_footer_crypto_check(const pq_file_metadata *fm, const pq_footer_crypto *crypto, pq_error *err)
{
    if (fm->set & PQ_FMD_HAS_ENCRYPTION_ALGORITHM) {
        if (fm->encryption.id != PQ_ENCRYPTION_AES_GCM_V1 && fm->encryption.id != PQ_ENCRYPTION_AES_GCM_CTR_V1)
            return pq_error_set(err, PQ_ERR_UNSUPPORTED,
                                "FileMetaData.encryption_algorithm: neither AES_GCM_V1 nor AES_GCM_CTR_V1");
        return PQ_OK;
    }
    if (crypto->info.footer_encrypted) return PQ_OK;
    /* A plaintext file: encrypted columns in it are malformed. */
    for (uint32_t g = 0; g < fm->row_groups_len; g++)
        for (uint32_t c = 0; c < fm->row_groups[g].columns_len; c++)
            if (fm->row_groups[g].columns[c]->set & (PQ_CC_HAS_CRYPTO_METADATA | PQ_CC_HAS_ENCRYPTED_METADATA))
                return pq_error_set(err, PQ_ERR_CORRUPT_FOOTER,
                                    "RowGroup[%u].columns[%u] is encrypted but the file has no "
                                    "encryption_algorithm", g, c);
    return PQ_OK;
}

pq_status pq_footer_crypto_finish(const uint8_t *footer, size_t len, const pq_decryption *keys,
                                  pq_arena *arena, pq_file_metadata *fm, const pq_schema *schema,
                                  pq_footer_crypto *crypto, pq_error *err)
{
    pq_status st = PQ_OK;
    if (!crypto->info.footer_encrypted) {
        if (!(fm->set & PQ_FMD_HAS_ENCRYPTION_ALGORITHM)) return PQ_OK;
        crypto->info.algorithm = fm->encryption.id;
        crypto->info.aad_prefix_stored = fm->encryption.aad_prefix.len > 0;
        crypto->info.footer_key_metadata = fm->footer_signing_key_metadata;
        /* With no keys at all the plaintext columns read and nothing needs the AAD. */
        if (keys) {
            st = make_file_aad(&fm->encryption, keys, arena, crypto, err);
            if (st == PQ_OK) st = verify_plaintext_footer(footer, len, keys, fm, crypto, err);
            if (st != PQ_OK) return st;
        }
    }
    /* DuckDB's files (no_aad) encrypt every column with the footer key
     * and give no column crypto metadata, which would mean plaintext */
    for (uint32_t g = 0; crypto->no_aad && g < fm->row_groups_len; g++)
        for (uint32_t c = 0; c < fm->row_groups[g].columns_len; c++) {
            pq_column_chunk *cc = (pq_column_chunk *)fm->row_groups[g].columns[c];
            if (cc->set & (PQ_CC_SKIPPED | PQ_CC_HAS_CRYPTO_METADATA)) continue;
            cc->set |= PQ_CC_HAS_CRYPTO_METADATA;
            cc->crypto_kind = PQ_CRYPTO_FOOTER_KEY;
        }
    for (uint32_t g = 0; g < fm->row_groups_len; g++) {
        pq_row_group *rg = (pq_row_group *)&fm->row_groups[g];
        uint32_t ordinal = (rg->set & PQ_RG_HAS_ORDINAL) && rg->ordinal >= 0 ? (uint32_t)rg->ordinal : g;
        for (uint32_t c = 0; c < rg->columns_len; c++) {
            pq_column_chunk *cc = (pq_column_chunk *)rg->columns[c];
            if ((cc->set & PQ_CC_SKIPPED) || !(cc->set & PQ_CC_HAS_CRYPTO_METADATA) ||
                cc->crypto_kind == PQ_CRYPTO_NONE)
                continue;
            const char *path = c < schema->leaves_len ? schema->leaves[c].path : "?";
            bool keyless = true;
            if (keys) {
                st = decrypt_column_meta(keys, arena, cc, ordinal, c, path, crypto, &keyless, err);
                if (st != PQ_OK) return st;
            }
            if (g == 0) {
                crypto->info.encrypted_columns++;
                crypto->info.keyless_columns += keyless;
            }
        }
    }
    return PQ_OK;
}
