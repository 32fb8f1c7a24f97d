/*
 * prune_bloom.c — see prune_bloom.h.
 *
 * The literal is hashed as the writer hashed the column's values: xxHash64
 * of its PLAIN encoding (metadata/bloom_filter.h). Where that encoding is
 * not unique the step is skipped rather than risk a false "absent":
 * BOOLEAN (the spec defines no hashing), BYTE_ARRAY decimals (writers differ
 * in how many sign bytes they keep); a float 0 is looked up as +0 and -0.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/primitives.h"
#include "metadata/bloom_filter.h"
#include "reader/keys.h"
#include "reader/prune_bloom.h"
#include "reader/prune_member.h"

static bool hashable(const pq_expr *n)
{
    switch (n->physical_type) {
    case PQ_INT32: case PQ_INT64: case PQ_FLOAT: case PQ_DOUBLE: case PQ_FIXED_LEN_BYTE_ARRAY: return true;
    case PQ_BYTE_ARRAY: return n->logical.kind != PQ_LOGICAL_DECIMAL;
    default: return false;
    }
}

/* Whether the filter may hold value v of node n. */
static bool might_contain(const void *slot, const pq_expr *n, const pq_value *v)
{
    const pq_bloom_filter *f = slot;
    switch (n->physical_type) {
    case PQ_INT32: return pq_bloom_filter_might_contain(f, pq_bloom_hash_i32((int32_t)(uint32_t)v->i));
    case PQ_INT64: return pq_bloom_filter_might_contain(f, pq_bloom_hash_i64(v->i));
    case PQ_FLOAT: {
        float x = (float)v->d;
        if (x == 0.0f)
            return pq_bloom_filter_might_contain(f, pq_bloom_hash_float(0.0f)) ||
                   pq_bloom_filter_might_contain(f, pq_bloom_hash_float(-0.0f));
        return pq_bloom_filter_might_contain(f, pq_bloom_hash_float(x));
    }
    case PQ_DOUBLE:
        if (v->d == 0.0)
            return pq_bloom_filter_might_contain(f, pq_bloom_hash_double(0.0)) ||
                   pq_bloom_filter_might_contain(f, pq_bloom_hash_double(-0.0));
        return pq_bloom_filter_might_contain(f, pq_bloom_hash_double(v->d));
    default:
        return pq_bloom_filter_might_contain(f, pq_bloom_hash_bytes(v->bytes, v->len));
    }
}

bool pq_bloom_filter_range(const pq_column_meta *m, uint64_t data_end, const pq_supplied *supplied,
                           uint64_t *off, uint64_t *len)
{
    if (!(m->set & PQ_CMD_HAS_BLOOM_FILTER_OFFSET) || m->bloom_filter_offset < 4 ||
        (uint64_t)m->bloom_filter_offset >= data_end)
        return false;
    uint64_t o = (uint64_t)m->bloom_filter_offset, room = data_end - o;
    *off = o;
    if ((m->set & PQ_CMD_HAS_BLOOM_FILTER_LENGTH) && m->bloom_filter_length > 0) {
        /* length 0 is no length (a writer that left it unset) */
        *len = (uint64_t)m->bloom_filter_length < room ? (uint64_t)m->bloom_filter_length : room;
        return true;
    }
    uint64_t guess = PQ_BLOOM_SPECULATIVE_READ < room ? PQ_BLOOM_SPECULATIVE_READ : room;
    *len = guess;
    /* Once the guess is here, its header tells the whole length. */
    uint8_t head[PQ_BLOOM_HEADER_MAX];
    size_t hn = guess < PQ_BLOOM_HEADER_MAX ? (size_t)guess : PQ_BLOOM_HEADER_MAX;
    size_t needed = 0;
    if (supplied && pq_supplied_copy(supplied, o, hn, head) &&
        pq_bloom_filter_needed(head, hn, &needed, NULL) == PQ_OK && needed > guess && needed <= room)
        *len = needed; /* else a short or broken filter: parsing will say so */
    return true;
}

/* Bytes [off, off + 4 + module length) of the file: one module, read as
 * its length prefix says (bounded by the data region). */
static uint8_t *read_module(const pq_prune_input *in, uint64_t off, size_t *len, pq_error *err)
{
    uint8_t head[4];
    if (off >= in->data_end || in->data_end - off < 4 || in->read(in->read_user, off, 4, head, err) != PQ_OK)
        return NULL;
    uint64_t n = 4 + (uint64_t)pq_load_le32(head);
    if (n > in->data_end - off || (in->memory_limit && n > in->memory_limit)) return NULL;
    uint8_t *b = malloc((size_t)n);
    if (!b) return NULL;
    memcpy(b, head, 4);
    if (n > 4 && in->read(in->read_user, off + 4, (size_t)n - 4, b + 4, err) != PQ_OK) {
        free(b);
        return NULL;
    }
    *len = (size_t)n;
    return b;
}

/* An encrypted column's filter: the header and the bitset are modules of
 * their own, decrypted with the column's key and parsed as one plaintext
 * filter. */
static bool load_encrypted(const pq_prune_input *in, uint32_t rg, uint32_t leaf, void *slot, pq_prune_counts *counts)
{
    const pq_column_meta *m = &pq_metadata_file(in->md)->row_groups[rg].columns[leaf]->meta_data;
    uint64_t off = (uint64_t)m->bloom_filter_offset;
    pq_error err;
    size_t hlen = 0, blen = 0, hplain = 0, bplain = 0;
    uint8_t *hmod = NULL, *bmod = NULL, *h = NULL, *b = NULL, *joined = NULL;
    pq_status st = PQ_OK;
    bool ok = m->bloom_filter_offset >= 4 && (hmod = read_module(in, off, &hlen, &err)) != NULL &&
              (st = pq_module_decrypt(in->md, in->keys, rg, leaf, PQ_MODULE_BLOOM_HEADER, hmod, hlen, &h, &hplain,
                                      NULL, &err)) == PQ_OK &&
              (bmod = read_module(in, off + hlen, &blen, &err)) != NULL &&
              (st = pq_module_decrypt(in->md, in->keys, rg, leaf, PQ_MODULE_BLOOM_BITSET, bmod, blen, &b, &bplain,
                                      NULL, &err)) == PQ_OK &&
              (joined = malloc(hplain + bplain + 1)) != NULL;
    pq_prune_tampered(counts, st, &err);
    if (ok) {
        /* parquet-cpp pads the header module's plaintext with zeros past
         * the Thrift header: parse the header for its length, then put the
         * bitset right after it. */
        memcpy(joined, h, hplain);
        memcpy(joined + hplain, b, bplain);
        pq_bloom_filter probe;
        ok = pq_bloom_filter_parse(joined, hplain + bplain, &probe, &err) == PQ_OK;
        size_t header_len = ok ? probe.header_len : 0, num_bytes = ok ? probe.num_bytes : 0;
        if (ok) pq_bloom_filter_free(&probe);
        ok = ok && header_len <= hplain && num_bytes == bplain;
        if (ok) {
            memmove(joined + header_len, b, bplain);
            ok = pq_bloom_filter_parse(joined, header_len + bplain, slot, &err) == PQ_OK;
        }
    }
    free(hmod);
    free(bmod);
    free(h);
    free(b);
    free(joined);
    if (!ok) counts->warnings++;
    return ok;
}

/* Read and parse leaf `leaf`'s filter in row group rg; false if none. */
static bool load(const pq_prune_input *in, uint32_t rg, int32_t leaf, void *slot, pq_prune_counts *counts)
{
    const pq_file_metadata *fm = pq_metadata_file(in->md);
    const pq_column_chunk *cc = fm->row_groups[rg].columns[leaf];
    const pq_column_meta *m = &cc->meta_data;
    if ((cc->set & PQ_CC_SKIPPED) || !(m->set & PQ_CMD_HAS_BLOOM_FILTER_OFFSET)) return false;
    if (pq_chunk_is_encrypted(cc)) return load_encrypted(in, rg, (uint32_t)leaf, slot, counts);
    uint64_t off, want, size = in->data_end;
    bool have_len = (m->set & PQ_CMD_HAS_BLOOM_FILTER_LENGTH) && m->bloom_filter_length > 0;
    if (!pq_bloom_filter_range(m, size, in->supplied, &off, &want)) { /* offset outside the data region */
        counts->warnings++;
        return false;
    }
    pq_error err;
    uint8_t *buf = malloc((size_t)want);
    pq_status st = buf ? in->read(in->read_user, off, (size_t)want, buf, &err) : PQ_ERR_NOMEM;
    size_t needed = 0;
    if (st == PQ_OK && !have_len) {
        /* Sans-IO was given header + bitset whole (pq_bloom_filter_range);
         * a source reads the rest when the guess was short. */
        st = pq_bloom_filter_needed(buf, (size_t)want, &needed, &err);
        if (st == PQ_OK && needed > want && needed <= size - off) {
            uint8_t *more = realloc(buf, needed);
            if (!more) st = PQ_ERR_NOMEM;
            else {
                buf = more;
                st = in->read(in->read_user, off + want, needed - (size_t)want, buf + want, &err);
                want = needed;
            }
        }
    }
    if (st == PQ_OK) st = pq_bloom_filter_parse(buf, (size_t)want, slot, &err);
    free(buf);
    if (st != PQ_OK) /* unreadable here (sans-IO without the bytes) or malformed: not used */
        counts->warnings++;
    return st == PQ_OK;
}

static void filter_free(void *slot)
{
    pq_bloom_filter_free(slot);
}

static const pq_member_index bloom_filters = {sizeof(pq_bloom_filter), hashable, load, might_contain,
                                               filter_free};

pq_maybe pq_prune_by_bloom_filters(const pq_prune_input *in, uint32_t rg, bool with_statistics,
                                   pq_prune_counts *counts)
{
    return pq_prune_by_members(in, rg, with_statistics, &bloom_filters, counts);
}
