/*
 * prune_dict.c — see prune_dict.h.
 *
 * A chunk is fully dictionary-encoded when its encoding stats list no data
 * page in another encoding (the `encodings` list alone cannot tell: writers
 * put the dictionary page's PLAIN there too). Its dictionary page is read
 * from the chunk's start: the header first (a short read), then the page,
 * decompressed and decoded as PLAIN. A literal is in the chunk only if it
 * equals one entry (pq_value_compare; floats by value, so -0 = +0 and NaN
 * matches nothing).
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/plain.h"
#include "pages/codec.h"
#include "pages/page_header.h"
#include "pages/page_decrypt.h"
#include "pages/page_walk.h"
#include "reader/keys.h"
#include "reader/prune_dict.h"
#include "reader/prune_member.h"

/* A decoded dictionary: n entries as pq_value (byte arrays point into data). */
typedef struct dict {
    pq_value *v;
    size_t n;
    uint8_t *data;     /* the decompressed page */
    int32_t *offsets;  /* BYTE_ARRAY */
} dict;

/* Data pages all dictionary-encoded, by the encoding stats. */
static bool all_dictionary(const pq_column_meta *m)
{
    if (!(m->set & PQ_CMD_HAS_ENCODING_STATS) || m->encoding_stats_len == 0) return false;
    bool any_data = false;
    for (uint32_t i = 0; i < m->encoding_stats_len; i++) {
        const pq_page_encoding_stats *e = &m->encoding_stats[i];
        if (e->page_type != PQ_PAGE_DATA && e->page_type != PQ_PAGE_DATA_V2) continue;
        if (e->count <= 0) continue;
        any_data = true;
        if (e->encoding != PQ_ENC_PLAIN_DICTIONARY && e->encoding != PQ_ENC_RLE_DICTIONARY) return false;
    }
    return any_data;
}

static void dict_free(void *slot)
{
    dict *d = slot;
    free(d->v);
    free(d->data);
    free(d->offsets);
    memset(d, 0, sizeof *d);
}

/* The n PLAIN values of page `p` (len bytes) of leaf into d. */
static bool decode_values(const pq_leaf *leaf, uint8_t *p, size_t len, size_t n, dict *d)
{
    pq_error err;
    size_t used = 0;
    d->v = calloc(n ? n : 1, sizeof *d->v);
    if (!d->v) return false;
    d->n = n;
    switch (leaf->physical_type) {
    case PQ_BYTE_ARRAY: {
        size_t data_len = 0;
        d->offsets = malloc((n + 1) * sizeof *d->offsets);
        uint8_t *data = malloc(len ? len : 1);
        if (d->offsets) d->offsets[0] = 0;
        if (!d->offsets || !data ||
            pq_plain_byte_array(p, len, n, d->offsets, 0, data, len, &data_len, &used, &err) != PQ_OK) {
            free(data);
            return false;
        }
        free(d->data);
        d->data = data; /* the values now live here */
        for (size_t i = 0; i < n; i++) {
            d->v[i].bytes = data + d->offsets[i];
            d->v[i].len = (size_t)(d->offsets[i + 1] - d->offsets[i]);
        }
        return true;
    }
    case PQ_FIXED_LEN_BYTE_ARRAY: {
        size_t w = leaf->type_length > 0 ? (size_t)leaf->type_length : 0;
        if (!w || n > len / w) return false;
        for (size_t i = 0; i < n; i++) {
            d->v[i].bytes = p + i * w;
            d->v[i].len = w;
        }
        return true;
    }
    case PQ_INT32: case PQ_INT64: case PQ_FLOAT: case PQ_DOUBLE: {
        size_t w = leaf->physical_type == PQ_INT32 || leaf->physical_type == PQ_FLOAT ? 4 : 8;
        if (n > len / w) return false;
        for (size_t i = 0; i < n; i++) {
            pq_bytes b = {p + i * w, (uint32_t)w};
            pq_value tmp;
            if (!pq_decode_bound(leaf, b, &tmp)) { /* NaN: equal to no literal */
                tmp.d = 0;
                tmp.i = 0;
                d->v[i] = tmp;
                d->v[i].len = SIZE_MAX; /* marks "never equal" */
                continue;
            }
            d->v[i] = tmp;
        }
        return true;
    }
    default:
        return false;
    }
}

/* Where the dictionary page lies: [dictionary_page_offset,
 * data_page_offset), when the chunk has one there. */
bool pq_dictionary_page_range(const pq_column_meta *m, uint64_t data_end, uint64_t *off, uint64_t *len)
{
    if (!(m->set & PQ_CMD_HAS_DICTIONARY_PAGE_OFFSET) || m->dictionary_page_offset < 4 ||
        m->data_page_offset <= m->dictionary_page_offset || (uint64_t)m->data_page_offset > data_end)
        return false;
    *off = (uint64_t)m->dictionary_page_offset;
    *len = (uint64_t)(m->data_page_offset - m->dictionary_page_offset);
    return true;
}

bool pq_dictionary_prunable(const pq_column_meta *m)
{
    return all_dictionary(m);
}

/* Read and decode the dictionary of leaf `leaf` in row group rg: the
 * bytes from the dictionary page to the first data page, in one read. */
static bool load(const pq_prune_input *in, uint32_t rg, int32_t leaf, void *slot, pq_prune_counts *counts)
{
    const pq_file_metadata *fm = pq_metadata_file(in->md);
    const pq_schema *schema = pq_metadata_schema(in->md);
    const pq_column_chunk *cc = fm->row_groups[rg].columns[leaf];
    const pq_column_meta *m = &cc->meta_data;
    uint64_t off, len;
    if ((cc->set & PQ_CC_SKIPPED) || !all_dictionary(m) || !pq_dictionary_page_range(m, in->data_end, &off, &len))
        return false;
    pq_error err;
    bool ok = !in->memory_limit || len <= in->memory_limit;
    uint8_t *buf = ok ? malloc((size_t)len) : NULL;
    ok = buf && in->read(in->read_user, off, (size_t)len, buf, &err) == PQ_OK;
    /* The page: its data (compressed), sizes and value count. */
    const uint8_t *page = NULL;
    uint64_t comp = 0, ulen64 = 0;
    int64_t nvalues = -1;
    uint8_t *decrypted = NULL;
    if (ok && pq_chunk_is_encrypted(cc)) {
        /* Header and page are modules: walked as the page stage walks them. */
        uint8_t key[PQ_CRYPTO_MAX_KEY];
        pq_chunk_cipher cipher;
        pq_page_info *pi = NULL;
        size_t npi = 0, plain_len = 0;
        ok = pq_chunk_cipher_for(in->md, in->keys, rg, (uint32_t)leaf, &cipher, key, &err) == PQ_OK;
        cipher.has_dictionary = true;
        pq_status st = ok ? pq_page_walk_encrypted(buf, len, -1, &cipher, &decrypted, &plain_len, &pi, &npi, NULL,
                                                   &err)
                          : PQ_OK;
        pq_prune_tampered(counts, st, &err);
        ok = ok && st == PQ_OK && npi >= 1 && pi[0].type == PQ_PAGE_DICTIONARY;
        pq_crypto_wipe(key, sizeof key);
        if (ok) {
            page = decrypted + pi[0].data_offset;
            comp = (uint64_t)pi[0].compressed_size;
            ulen64 = (uint64_t)(uint32_t)pi[0].uncompressed_size;
            nvalues = pi[0].num_values;
            ok = pi[0].uncompressed_size >= 0;
        }
        free(pi);
    } else if (ok) {
        pq_page_header h;
        size_t hlen = 0;
        ok = pq_page_header_decode(buf, (size_t)len, &h, &hlen, &err) == PQ_OK && h.type == PQ_PAGE_DICTIONARY &&
             h.compressed_page_size >= 0 && h.uncompressed_page_size >= 0 &&
             (uint64_t)hlen + (uint64_t)h.compressed_page_size <= len;
        if (ok) {
            page = buf + hlen;
            comp = (uint64_t)h.compressed_page_size;
            ulen64 = (uint64_t)h.uncompressed_page_size;
            nvalues = h.dictionary_page_header.num_values;
        }
    }
    ok = ok && nvalues >= 0 && (!in->memory_limit || ulen64 <= in->memory_limit);
    uint8_t *plain = NULL;
    if (ok) {
        size_t ulen = (size_t)ulen64;
        plain = malloc(ulen ? ulen : 1);
        ok = plain && pq_decompress(m->codec, page, (size_t)comp, plain, ulen, &err) == PQ_OK;
        if (ok) {
            dict *d = slot;
            d->data = plain;
            plain = NULL;
            ok = decode_values(&schema->leaves[leaf], d->data, ulen, (size_t)nvalues, d);
            if (!ok) dict_free(d);
        }
    }
    free(buf);
    free(decrypted);
    free(plain);
    if (!ok) counts->warnings++;
    return ok;
}

static bool in_dict(const void *slot, const pq_expr *n, const pq_value *lit)
{
    const dict *d = slot;
    for (size_t i = 0; i < d->n; i++) {
        if (d->v[i].len == SIZE_MAX) continue; /* NaN */
        if (pq_value_compare(n, &d->v[i], lit) == 0) return true;
    }
    return false;
}

static bool not_boolean(const pq_expr *n)
{
    return n->physical_type != PQ_BOOLEAN;
}

static const pq_member_index dictionaries = {sizeof(dict), not_boolean, load, in_dict, dict_free};

pq_maybe pq_prune_by_dictionaries(const pq_prune_input *in, uint32_t rg, bool with_statistics,
                                  pq_prune_counts *counts)
{
    return pq_prune_by_members(in, rg, with_statistics, &dictionaries, counts);
}
