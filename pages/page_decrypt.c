/*
 * page_decrypt.c — the walk over an encrypted column chunk (page_decrypt.h).
 */
#include "pages/page_decrypt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/primitives.h"
#include "metadata/crypto.h"
#include "metadata/error.h"
#include "pages/buffer_pool.h"
#include "pages/page_header.h"

/* Decrypt a header module at `module` (`total` bytes) trying the header
 * type the chunk suggests, then, for the first page, the other: a chunk's
 * metadata may not say whether it opens with a dictionary page. */
static pq_status decrypt_header(const pq_chunk_cipher *k, const uint8_t *module, size_t total, size_t page,
                                uint32_t data_ordinal, uint8_t *out, bool *is_dictionary, pq_error *err)
{
    bool first = page == 0;
    bool try_dict = first && k->has_dictionary;
    for (int attempt = 0; attempt < (first ? 2 : 1); attempt++) {
        bool dict = attempt == 0 ? try_dict : !try_dict;
        pq_module_type type = dict ? PQ_MODULE_DICTIONARY_PAGE_HEADER : PQ_MODULE_DATA_PAGE_HEADER;
        pq_module_place at = {k->file_aad, k->file_aad_len, type, k->row_group, k->column, data_ordinal, k->no_aad};
        char what[64];
        snprintf(what, sizeof what, "page %zu (%s)", page, pq_module_name(type));
        pq_status st = pq_crypto_gcm_module(k->key, k->key_len, module, total, &at, out, what, err);
        if (st == PQ_OK) {
            *is_dictionary = dict;
            return PQ_OK;
        }
        if (st != PQ_ERR_DECRYPT) return st;
    }
    return pq_error_set(err, PQ_ERR_DECRYPT,
                        "page %zu (%s): authentication failed (a wrong key or AAD prefix, or altered bytes)",
                        page, first ? "page header" : pq_module_name(PQ_MODULE_DATA_PAGE_HEADER));
}

/* Which module type page type `type` is. */
static pq_module_type body_module(int32_t type)
{
    return type == PQ_PAGE_DICTIONARY ? PQ_MODULE_DICTIONARY_PAGE : PQ_MODULE_DATA_PAGE;
}

pq_status pq_page_decrypt(const pq_chunk_cipher *k, const uint8_t *chunk, uint64_t len, const pq_page_info *pi,
                          const pq_page_module *m, size_t page, uint8_t *dst, pq_error *err)
{
    pq_module_type type = body_module(pi->type);
    bool gcm = k->algorithm != PQ_ENCRYPTION_AES_GCM_CTR_V1;
    size_t overhead = gcm ? PQ_CRYPTO_GCM_OVERHEAD : PQ_CRYPTO_CTR_OVERHEAD;
    if (pi->data_offset > len || m->stored > len - pi->data_offset || m->clear > m->stored ||
        m->stored - m->clear < overhead || pi->compressed_size < 0 ||
        (uint64_t)pi->compressed_size != (uint64_t)m->stored - overhead)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "page %zu (%s): its module [%" PRIu64 ", +%u) does not fit "
                            "the %" PRIu64 "-byte chunk or its header", page, pq_module_name(type), pi->data_offset,
                            m->stored, len);
    char what[64];
    snprintf(what, sizeof what, "page %zu (%s)", page, pq_module_name(type));
    const uint8_t *src = chunk + pi->data_offset;
    if (m->clear) memcpy(dst, src, m->clear);
    if (!gcm) return pq_crypto_ctr_decrypt(k->key, k->key_len, src + m->clear, m->stored - m->clear, dst + m->clear,
                                          what, err);
    pq_module_place place = {k->file_aad, k->file_aad_len, type, k->row_group, k->column, m->ordinal, k->no_aad};
    return pq_crypto_gcm_module(k->key, k->key_len, src + m->clear, m->stored - m->clear, &place, dst + m->clear,
                                what, err);
}

/* A walk's output: the whole plaintext (out), or the page modules (mods). */
typedef struct walk_out {
    uint8_t *out;               /* the plaintext chunk, or NULL: headers alone */
    size_t used;
    uint8_t *hbuf;              /* headers alone: the header being decoded */
    size_t hcap;
    pq_page_module *mods;
    size_t cap;
} walk_out;

static pq_status walk(const uint8_t *chunk, uint64_t len, int64_t num_values, const pq_chunk_cipher *k,
                      walk_out *w, pq_page_info **arr, size_t *n, pq_page_walk_counters *counters, pq_error *err)
{
    uint64_t at = 0, o = 0;
    uint32_t data_ordinal = 0;
    int64_t values = 0;
    bool gcm_pages = k->algorithm != PQ_ENCRYPTION_AES_GCM_CTR_V1;
    while (at < len) {
        size_t page = *n;
        char what[64];
        snprintf(what, sizeof what, "page %zu at chunk offset %" PRIu64 " (page header)", page, at);
        size_t htotal = 0;
        pq_status st = pq_crypto_module_size(chunk + at, (size_t)(len - at), true, what, &htotal, err);
        if (st != PQ_OK) return st;
        size_t hplain = htotal - PQ_CRYPTO_GCM_OVERHEAD;
        uint8_t *hdst = w->out ? w->out + o : NULL;
        if (!hdst) { /* a header is small: one buffer for them all */
            if (hplain > w->hcap) {
                uint8_t *grown = realloc(w->hbuf, hplain);
                if (!grown) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a page header");
                w->hbuf = grown;
                w->hcap = hplain;
            }
            hdst = w->hbuf;
        }
        bool dict = false;
        st = decrypt_header(k, chunk + at, htotal, page, data_ordinal, hdst, &dict, err);
        if (st != PQ_OK) return st;
        pq_page_header h;
        size_t hlen = 0;
        pq_error e;
        st = pq_page_header_decode(hdst, hplain, &h, &hlen, &e);
        if (st != PQ_OK)
            return pq_error_set(err, st, "page %zu at chunk offset %" PRIu64 ": %s", page, at, e.message);
        bool is_data = h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DATA_V2;
        if (dict != (h.type == PQ_PAGE_DICTIONARY))
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "page %zu at chunk offset %" PRIu64 ": a %s page under a %s header's AAD", page,
                                at, is_data ? "data" : "dictionary", dict ? "dictionary" : "data");
        uint64_t header_at = at;
        at += htotal;
        uint64_t body = (uint64_t)h.compressed_page_size;
        /* DuckDB (no AAD) writes a page's size before encryption: its
         * module is the GCM overhead longer */
        if (k->no_aad && (h.type == PQ_PAGE_DICTIONARY || is_data) && h.compressed_page_size >= 0)
            body += PQ_CRYPTO_GCM_OVERHEAD;
        if (body > len - at)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "page %zu: compressed_page_size %d runs past the end of the column chunk "
                                "(%" PRIu64 " bytes left)", page, (int)h.compressed_page_size, len - at);
        pq_page_module m = {0, 0, dict ? 0 : data_ordinal};
        size_t plain = 0;
        if (h.type == PQ_PAGE_DICTIONARY || is_data) {
            pq_module_type type = body_module(h.type);
            snprintf(what, sizeof what, "page %zu (%s)", page, pq_module_name(type));
            /* parquet-cpp encrypts a v2 page whole; parquet-java leaves its
             * level sections in the clear and encrypts what follows them.
             * The module's length prefix tells which: it must end the page. */
            uint64_t clear = 0;
            if (h.type == PQ_PAGE_DATA_V2) {
                uint64_t lv = (uint64_t)(uint32_t)h.data_page_header_v2.definition_levels_byte_length +
                              (uint32_t)h.data_page_header_v2.repetition_levels_byte_length;
                if (body >= PQ_CRYPTO_LENGTH_LEN && pq_load_le32(chunk + at) != body - PQ_CRYPTO_LENGTH_LEN && lv &&
                    lv + PQ_CRYPTO_LENGTH_LEN <= body && pq_load_le32(chunk + at + lv) == body - lv - PQ_CRYPTO_LENGTH_LEN)
                    clear = lv;
            }
            size_t total = 0;
            st = pq_crypto_module_size(chunk + at + clear, (size_t)(body - clear), gcm_pages, what, &total, err);
            if (st == PQ_OK && total != body - clear)
                st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "%s: the module holds %zu bytes, the header says %d",
                                  what, total, (int)h.compressed_page_size);
            if (st != PQ_OK) return st;
            m.stored = (uint32_t)body; /* < 2^32: compressed_page_size is an int32 >= 0 here (+ 28) */
            m.clear = (uint32_t)clear;
            plain = (size_t)body - (gcm_pages ? PQ_CRYPTO_GCM_OVERHEAD : PQ_CRYPTO_CTR_OVERHEAD);
        }
        if (*n == w->cap) {
            size_t ncap = w->cap ? w->cap * 2 : 16;
            pq_page_info *grown = realloc(*arr, ncap * sizeof *grown);
            if (!grown) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory walking pages");
            *arr = grown;
            if (!w->out) {
                pq_page_module *more = realloc(w->mods, ncap * sizeof *more);
                if (!more) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory walking pages");
                w->mods = more;
            }
            w->cap = ncap;
        }
        pq_page_info *pi = &(*arr)[(*n)++];
        if (w->out) { /* laid out as a plaintext chunk: [header][page] */
            pq_page_info_fill(pi, &h, o, hplain);
            pi->compressed_size = (int32_t)plain;
            if (plain && (st = pq_page_decrypt(k, chunk, len, &(pq_page_info){.type = h.type, .data_offset = at,
                                                                            .compressed_size = (int32_t)plain},
                                               &m, page, w->out + o + hplain, err)) != PQ_OK)
                return st;
            o += hplain + plain;
        } else { /* where it lies: the header's module, then the page's stored bytes */
            pq_page_info_fill(pi, &h, header_at, htotal);
            pi->compressed_size = (int32_t)plain;
            w->mods[*n - 1] = m;
        }
        pi->has_crc = false;
        at += body;
        if (counters) {
            counters->pages++;
            counters->header_bytes += hplain;
            if (is_data) counters->data_pages++;
            else if (dict) counters->dictionary_pages++;
            else counters->index_pages++;
        }
        if (is_data) {
            data_ordinal++;
            values += pi->num_values;
            if (num_values >= 0 && values >= num_values) break;
        }
    }
    w->used = (size_t)o;
    if (num_values >= 0 && values != num_values)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "data pages hold %" PRId64 " values, the column chunk declares %" PRId64, values,
                            num_values);
    return PQ_OK;
}

pq_status pq_page_walk_encrypted(const uint8_t *chunk, uint64_t len, int64_t num_values,
                                 const pq_chunk_cipher *cipher, uint8_t **plain, size_t *plain_len,
                                 pq_page_info **pages, size_t *npages, pq_page_walk_counters *counters,
                                 pq_error *err)
{
    *plain = NULL;
    *plain_len = 0;
    *pages = NULL;
    *npages = 0;
    if (counters) counters->walks++;
    if (len > SIZE_MAX) return pq_error_set(err, PQ_ERR_MEMORY_LIMIT, "a column chunk too large to hold");
    /* Every module's plaintext is shorter than the module: the chunk's size bounds the output. */
    uint8_t *out = pq_pool_alloc(len ? (size_t)len : 1); /* a kept block: no page faults on a warm read */
    if (!out) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a %" PRIu64 "-byte decrypted chunk", len);
    walk_out w = {.out = out};
    pq_status st = walk(chunk, len, num_values, cipher, &w, pages, npages, counters, err);
    *plain = out;
    *plain_len = w.used;
    return st;
}

pq_status pq_page_walk_encrypted_headers(const uint8_t *chunk, uint64_t len, int64_t num_values,
                                         const pq_chunk_cipher *cipher, pq_page_info **pages,
                                         pq_page_module **modules, size_t *npages,
                                         pq_page_walk_counters *counters, pq_error *err)
{
    *pages = NULL;
    *modules = NULL;
    *npages = 0;
    if (counters) counters->walks++;
    walk_out w = {0};
    pq_status st = walk(chunk, len, num_values, cipher, &w, pages, npages, counters, err);
    free(w.hbuf);
    *modules = w.mods;
    return st;
}
