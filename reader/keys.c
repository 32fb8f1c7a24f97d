/*
 * keys.c — the reader's copy of its keys, and a chunk's cipher (keys.h).
 */
#include "reader/keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "metadata/footer_crypto.h"
#include "metadata/options_size.h"

/* The block's size is kept before the struct, for the wipe. */
typedef struct keys_block {
    size_t size;
    pq_decryption keys;
} keys_block;

pq_status pq_keys_copy(const pq_decryption *src, pq_decryption **out, pq_error *err)
{
    *out = NULL;
    if (!src) return PQ_OK;
    pq_decryption in;
    pq_decryption_init(&in);
    pq_status st = pq_options_take(&in, sizeof in, src, sizeof in, "pq_decryption", err);
    if (st != PQ_OK) return st;
    if ((in.column_keys_len && !in.column_keys) || (in.footer_key_len && !in.footer_key) ||
        (in.aad_prefix_len && !in.aad_prefix))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_decryption: a length without its bytes");
    size_t need = sizeof(keys_block) + in.footer_key_len + in.aad_prefix_len +
                  in.column_keys_len * sizeof(pq_column_key);
    for (size_t i = 0; i < in.column_keys_len; i++) {
        const pq_column_key *ck = &in.column_keys[i];
        if (!ck->path || (ck->key_len && !ck->key))
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_decryption.column_keys[%zu]: no path or key", i);
        if (!pq_crypto_key_len_ok(ck->key_len))
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                "pq_decryption.column_keys[%zu] ('%s'): a key of %zu bytes (AES keys are 16, 24 "
                                "or 32 bytes)", i, ck->path, ck->key_len);
        need += ck->key_len + strlen(ck->path) + 1;
    }
    if (in.footer_key_len && !pq_crypto_key_len_ok(in.footer_key_len))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "pq_decryption.footer_key: a key of %zu bytes (AES keys are 16, 24 or 32 bytes)",
                            in.footer_key_len);
    keys_block *b = calloc(1, need);
    if (!b) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for keys");
    b->size = need;
    b->keys = in;
    uint8_t *p = (uint8_t *)(b + 1);
    pq_column_key *cks = (pq_column_key *)p;
    p += in.column_keys_len * sizeof *cks;
    for (size_t i = 0; i < in.column_keys_len; i++) {
        const pq_column_key *ck = &in.column_keys[i];
        memcpy(p, ck->key, ck->key_len);
        cks[i].key = p;
        cks[i].key_len = ck->key_len;
        p += ck->key_len;
        size_t pl = strlen(ck->path) + 1;
        memcpy(p, ck->path, pl);
        cks[i].path = (const char *)p;
        p += pl;
    }
    b->keys.column_keys = in.column_keys_len ? cks : NULL;
    if (in.footer_key_len) {
        memcpy(p, in.footer_key, in.footer_key_len);
        b->keys.footer_key = p;
        p += in.footer_key_len;
    }
    if (in.aad_prefix_len) {
        memcpy(p, in.aad_prefix, in.aad_prefix_len);
        b->keys.aad_prefix = p;
    }
    *out = &b->keys;
    return PQ_OK;
}

void pq_keys_free(pq_decryption *keys)
{
    if (!keys) return;
    keys_block *b = (keys_block *)((char *)keys - offsetof(keys_block, keys));
    pq_crypto_wipe(b, b->size);
    free(b);
}

bool pq_chunk_is_encrypted(const pq_column_chunk *cc)
{
    return (cc->set & PQ_CC_HAS_CRYPTO_METADATA) && cc->crypto_kind != PQ_CRYPTO_NONE;
}

pq_status pq_chunk_cipher_for(const pq_metadata *md, const pq_decryption *keys, uint32_t g, uint32_t leaf,
                              pq_chunk_cipher *cipher, uint8_t *key_buf, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_row_group *rg = &fm->row_groups[g];
    const pq_column_chunk *cc = rg->columns[leaf];
    const pq_footer_crypto *crypto = pq_metadata_crypto(md);
    const char *path = pq_metadata_schema(md)->leaves[leaf].path;
    pq_key key;
    pq_status st = pq_key_for_chunk(keys, crypto, cc, path, &key, err);
    if (st != PQ_OK) return st;
    if (key.len && !crypto->file_aad) {
        pq_crypto_wipe(&key, sizeof key);
        return pq_error_set(err, PQ_ERR_ENCRYPTED,
                            "column '%s' is encrypted, and the metadata in hand was parsed without keys "
                            "(parse it with pq_metadata_parse_decrypt)", path);
    }
    memcpy(key_buf, key.bytes, key.len);
    memset(cipher, 0, sizeof *cipher);
    cipher->key = key_buf;
    cipher->key_len = key.len;
    pq_crypto_wipe(&key, sizeof key);
    cipher->algorithm = crypto->info.algorithm;
    cipher->file_aad = crypto->file_aad;
    cipher->file_aad_len = crypto->file_aad_len;
    cipher->no_aad = crypto->no_aad;
    cipher->row_group = (rg->set & PQ_RG_HAS_ORDINAL) && rg->ordinal >= 0 ? (uint32_t)rg->ordinal : g;
    cipher->column = leaf;
    const pq_column_meta *m = &cc->meta_data;
    cipher->has_dictionary = (m->set & PQ_CMD_HAS_DICTIONARY_PAGE_OFFSET) && m->dictionary_page_offset > 0;
    return PQ_OK;
}

pq_chunk_key *pq_chunk_key_new(const pq_metadata *md, const pq_decryption *keys, uint32_t g, uint32_t leaf,
                               pq_error *err)
{
    pq_chunk_key *k = malloc(sizeof *k);
    if (!k) {
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (pq_chunk_cipher_for(md, keys, g, leaf, &k->cipher, k->key, err) != PQ_OK) {
        pq_chunk_key_free(k);
        return NULL;
    }
    return k;
}

void pq_chunk_key_free(pq_chunk_key *k)
{
    if (!k) return;
    pq_crypto_wipe(k, sizeof *k);
    free(k);
}

pq_status pq_keys_resolve(const pq_metadata *md, pq_decryption **keys, pq_error *err)
{
    pq_decryption *k = *keys;
    if (!k || !k->key_retriever) return PQ_OK;
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_schema *schema = pq_metadata_schema(md);
    const pq_footer_crypto *crypto = pq_metadata_crypto(md);
    size_t n = 0, cap = schema->leaves_len + k->column_keys_len;
    pq_column_key *cols = calloc(cap ? cap : 1, sizeof *cols);
    pq_key *found = calloc(schema->leaves_len ? schema->leaves_len : 1, sizeof *found);
    if (!cols || !found) {
        free(cols);
        free(found);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for keys");
    }
    for (size_t i = 0; i < k->column_keys_len; i++) cols[n++] = k->column_keys[i];
    /* Each column-key leaf's key, asked for once (from the first row group
     * that decoded its chunk); a leaf the retriever has no key for is left
     * out and read as keyless. */
    for (uint32_t leaf = 0; leaf < schema->leaves_len; leaf++) {
        const pq_column_chunk *cc = NULL;
        for (uint32_t g = 0; g < fm->row_groups_len && !cc; g++) {
            const pq_column_chunk *c = fm->row_groups[g].columns[leaf];
            if (!(c->set & PQ_CC_SKIPPED)) cc = c;
        }
        if (!cc || !pq_chunk_is_encrypted(cc) || cc->crypto_kind != PQ_CRYPTO_COLUMN_KEY) continue;
        pq_error ignored;
        if (pq_key_for_chunk(k, crypto, cc, schema->leaves[leaf].path, &found[leaf], &ignored) != PQ_OK ||
            !found[leaf].len)
            continue;
        cols[n++] = (pq_column_key){schema->leaves[leaf].path, found[leaf].bytes, found[leaf].len};
    }
    pq_key footer;
    bool have_footer = pq_key_for_footer(k, crypto->info.footer_key_metadata, &footer);
    pq_decryption d = *k;
    d.column_keys = cols;
    d.column_keys_len = n;
    d.footer_key = have_footer ? footer.bytes : NULL;
    d.footer_key_len = have_footer ? footer.len : 0;
    d.key_retriever = NULL;
    d.key_retriever_user = NULL;
    pq_decryption *resolved = NULL;
    pq_status st = pq_keys_copy(&d, &resolved, err);
    pq_crypto_wipe(found, (schema->leaves_len ? schema->leaves_len : 1) * sizeof *found);
    pq_crypto_wipe(&footer, sizeof footer);
    free(found);
    free(cols);
    if (st != PQ_OK) return st;
    pq_keys_free(k);
    *keys = resolved;
    return PQ_OK;
}

pq_status pq_module_decrypt(const pq_metadata *md, const pq_decryption *keys, uint32_t g, uint32_t leaf,
                            pq_module_type type, const uint8_t *bytes, size_t len, uint8_t **out, size_t *out_len,
                            size_t *used, pq_error *err)
{
    *out = NULL;
    *out_len = 0;
    uint8_t key[PQ_CRYPTO_MAX_KEY];
    pq_chunk_cipher c;
    char what[96];
    snprintf(what, sizeof what, "row group %u column %u: %s", g, leaf, pq_module_name(type));
    size_t total = 0;
    pq_status st = pq_chunk_cipher_for(md, keys, g, leaf, &c, key, err);
    if (st == PQ_OK) st = pq_crypto_module_size(bytes, len, true, what, &total, err);
    uint8_t *buf = NULL;
    if (st == PQ_OK && !(buf = malloc(total - PQ_CRYPTO_GCM_OVERHEAD + 1)))
        st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    pq_module_place at = {c.file_aad, c.file_aad_len, type, c.row_group, c.column, 0, c.no_aad};
    if (st == PQ_OK) st = pq_crypto_gcm_module(c.key, c.key_len, bytes, total, &at, buf, what, err);
    pq_crypto_wipe(key, sizeof key);
    if (st != PQ_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    *out_len = total - PQ_CRYPTO_GCM_OVERHEAD;
    if (used) *used = total;
    return PQ_OK;
}
