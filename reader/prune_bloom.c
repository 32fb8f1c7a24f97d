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

/* Read and parse leaf `leaf`'s filter in row group rg; false if none. */
static bool load(const pq_prune_input *in, uint32_t rg, int32_t leaf, void *slot, pq_prune_counts *counts)
{
    const pq_file_metadata *fm = pq_metadata_file(in->md);
    const pq_column_chunk *cc = fm->row_groups[rg].columns[leaf];
    const pq_column_meta *m = &cc->meta_data;
    if ((cc->set & PQ_CC_SKIPPED) || !(m->set & PQ_CMD_HAS_BLOOM_FILTER_OFFSET)) return false;
    if (pq_chunk_is_encrypted(cc)) return false; /* its index modules are encrypted: not read */
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
