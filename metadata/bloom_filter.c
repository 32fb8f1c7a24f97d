/*
 * bloom_filter.c — split-block bloom filters (see bloom_filter.h): the
 * BloomFilterHeader decoder, the block check and insert of the spec, and
 * xxHash64 hashing through libxxhash.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "metadata/bloom_filter.h"
#include "metadata/compact.h"
#include "metadata/error.h"
#include "pq_metadata.h"

/* The eight odd constants of the spec's mask: word i gets bit
 * (key * SALT[i]) >> 27. */
static const uint32_t SALT[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                 0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

static inline bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* ---------------------------------------------------------------------------
 * BloomFilterHeader
 * ------------------------------------------------------------------------- */

enum { UNION_NONE = 0, UNION_SEVERAL = -1, UNION_NOT_STRUCT = -2 };

/* A union whose members are empty structs (BloomFilterAlgorithm, ...Hash,
 * ...Compression): returns the member's field id, or UNION_*. Whatever the
 * member struct holds is skipped: later versions may give it fields. */
static int read_union(pq_compact *c)
{
    int16_t id = 0;
    int member = UNION_NONE, n = 0;
    bool not_struct = false;
    for (;;) {
        int type = pq_compact_field(c, &id);
        if (c->bad || type == PQ_WIRE_STOP) break;
        if (type != PQ_WIRE_STRUCT) not_struct = true;
        member = id;
        n++;
        if (!pq_compact_skip(c, type, false, 2)) {
            c->bad = true;
            break;
        }
    }
    if (n > 1) return UNION_SEVERAL;
    return not_struct ? UNION_NOT_STRUCT : member;
}

static pq_status check_union(int member, const char *field, const char *supported, pq_error *err)
{
    switch (member) {
    case 1: return PQ_OK;
    case UNION_NONE:
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "BloomFilterHeader.%s: no member set", field);
    case UNION_SEVERAL:
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "BloomFilterHeader.%s: several members set",
                            field);
    case UNION_NOT_STRUCT:
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "BloomFilterHeader.%s: member is not a struct",
                            field);
    default:
        return pq_error_set(err, PQ_ERR_UNSUPPORTED,
                            "BloomFilterHeader.%s: member %d is not supported (only %s)", field,
                            member, supported);
    }
}

/* Decode the header at the start of `buf`. Only the first
 * PQ_BLOOM_HEADER_MAX bytes are looked at, which caps the header's size.
 * *cut is set when the Thrift ran past the bytes given (more may help). */
static pq_status parse_header(const uint8_t *buf, size_t len, uint32_t *num_bytes,
                              uint32_t *header_len, bool *cut, pq_error *err)
{
    static const uint8_t empty[1];
    if (!buf) buf = empty; /* no pointer arithmetic on NULL (len is 0) */
    pq_compact cur, *c = &cur;
    size_t span = len < PQ_BLOOM_HEADER_MAX ? len : PQ_BLOOM_HEADER_MAX;
    pq_compact_init(c, buf, span);
    *cut = false;
    int32_t nb = 0;
    int algorithm = UNION_NONE, hash = UNION_NONE, compression = UNION_NONE;
    unsigned seen = 0;
    int16_t id = 0;
    for (;;) {
        int type = pq_compact_field(c, &id);
        if (c->bad || type == PQ_WIRE_STOP) break;
        if (id == 1 && type == PQ_WIRE_I32) {
            nb = pq_compact_i32(c);
            seen |= 1;
        } else if (id == 2 && type == PQ_WIRE_STRUCT) {
            algorithm = read_union(c);
            seen |= 2;
        } else if (id == 3 && type == PQ_WIRE_STRUCT) {
            hash = read_union(c);
            seen |= 4;
        } else if (id == 4 && type == PQ_WIRE_STRUCT) {
            compression = read_union(c);
            seen |= 8;
        } else if (!pq_compact_skip(c, type, false, 1)) {
            c->bad = true;
        }
        if (c->bad) break;
    }
    if (c->bad) {
        *cut = !c->too_deep;
        if (span == PQ_BLOOM_HEADER_MAX)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "BloomFilterHeader: malformed, or longer than %u bytes",
                                PQ_BLOOM_HEADER_MAX);
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "BloomFilterHeader: malformed (%s)",
                            c->too_deep ? "nested too deep" : "truncated or bad varint");
    }
    static const char *const names[] = {"numBytes", "algorithm", "hash", "compression"};
    for (unsigned i = 0; i < 4; i++)
        if (!(seen & (1u << i)))
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "BloomFilterHeader.%s: required field missing", names[i]);
    pq_status st = check_union(algorithm, "algorithm", "BLOCK", err);
    if (st == PQ_OK) st = check_union(hash, "hash", "XXHASH", err);
    if (st == PQ_OK) st = check_union(compression, "compression", "UNCOMPRESSED", err);
    if (st != PQ_OK) return st;
    if (nb < (int32_t)PQ_BLOOM_MIN_BYTES || nb > (int32_t)PQ_BLOOM_MAX_BYTES || !is_pow2((uint64_t)nb))
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "BloomFilterHeader.numBytes: %d is not a power of two in [%u, %u]", nb,
                            PQ_BLOOM_MIN_BYTES, PQ_BLOOM_MAX_BYTES);
    *num_bytes = (uint32_t)nb;
    *header_len = (uint32_t)(c->p - buf);
    return PQ_OK;
}

pq_status pq_bloom_filter_needed(const uint8_t *buf, size_t len, size_t *needed, pq_error *err)
{
    uint32_t nb, hl;
    bool cut;
    *needed = 0;
    if (!buf && len)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "bloom filter: NULL buffer");
    pq_error local;
    pq_status st = parse_header(buf, len, &nb, &hl, &cut, &local);
    if (st != PQ_OK) {
        if (cut && len < PQ_BLOOM_HEADER_MAX) {
            *needed = PQ_BLOOM_HEADER_MAX;
            return pq_error_set(err, PQ_ERR_NEED_DATA,
                                "BloomFilterHeader: cut short after %zu bytes; fetch %u", len,
                                PQ_BLOOM_HEADER_MAX);
        }
        if (err) *err = local;
        return st;
    }
    *needed = (size_t)hl + nb;
    return PQ_OK;
}

pq_status pq_bloom_filter_parse(const uint8_t *buf, size_t len, pq_bloom_filter *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    if (!buf && len)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "bloom filter: NULL buffer");
    uint32_t nb, hl;
    bool cut;
    pq_status st = parse_header(buf, len, &nb, &hl, &cut, err);
    if (st != PQ_OK) return st;
    if (len - hl < nb)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "bloom filter bitset: %u bytes declared, %zu present", nb, len - hl);
    out->words = malloc(nb);
    if (!out->words)
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a %u-byte bloom filter", nb);
    /* The words are little endian on the wire. */
    memcpy(out->words, buf + hl, nb);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (uint32_t i = 0; i < nb / 4; i++) out->words[i] = __builtin_bswap32(out->words[i]);
#endif
    out->num_bytes = nb;
    out->nblocks = nb / 32;
    out->header_len = hl;
    return PQ_OK;
}

pq_status pq_bloom_filter_init(pq_bloom_filter *f, uint32_t num_bytes, pq_error *err)
{
    memset(f, 0, sizeof *f);
    if (num_bytes < PQ_BLOOM_MIN_BYTES || num_bytes > PQ_BLOOM_MAX_BYTES || !is_pow2(num_bytes))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "bloom filter size %u is not a power of two in [%u, %u]", num_bytes,
                            PQ_BLOOM_MIN_BYTES, PQ_BLOOM_MAX_BYTES);
    f->words = calloc(num_bytes / 4, sizeof *f->words);
    if (!f->words)
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a %u-byte bloom filter", num_bytes);
    f->num_bytes = num_bytes;
    f->nblocks = num_bytes / 32;
    return PQ_OK;
}

uint32_t pq_bloom_filter_optimal_bytes(uint64_t ndv, double fpp)
{
    if (!(fpp > 0.0)) return PQ_BLOOM_MAX_BYTES;
    if (fpp >= 1.0 || ndv == 0) return PQ_BLOOM_MIN_BYTES;
    double bits = (double)ndv * (-8.0 / log(1.0 - pow(fpp, 1.0 / 8.0)));
    double bytes = ceil(bits / 8.0);
    uint32_t n = PQ_BLOOM_MIN_BYTES;
    while (n < PQ_BLOOM_MAX_BYTES && (double)n < bytes) n <<= 1;
    return n;
}

void pq_bloom_filter_free(pq_bloom_filter *f)
{
    if (!f) return;
    free(f->words);
    memset(f, 0, sizeof *f);
}

/* ---------------------------------------------------------------------------
 * Check and insert
 * ------------------------------------------------------------------------- */

/* The block: the hash's upper half scaled to [0, nblocks) (a multiply and a
 * shift instead of a modulo). */
static inline uint32_t *block_of(const pq_bloom_filter *f, uint64_t hash)
{
    uint64_t i = ((hash >> 32) * f->nblocks) >> 32;
    return f->words + 8 * i;
}

bool pq_bloom_filter_might_contain(const pq_bloom_filter *f, uint64_t hash)
{
    if (!f->words || !f->nblocks) return true; /* no filter: cannot rule out */
    const uint32_t *b = block_of(f, hash);
    uint32_t key = (uint32_t)hash;
    for (int i = 0; i < 8; i++)
        if (!(b[i] & (UINT32_C(1) << ((key * SALT[i]) >> 27)))) return false;
    return true;
}

void pq_bloom_filter_insert(pq_bloom_filter *f, uint64_t hash)
{
    if (!f->words || !f->nblocks) return;
    uint32_t *b = block_of(f, hash);
    uint32_t key = (uint32_t)hash;
    for (int i = 0; i < 8; i++) b[i] |= UINT32_C(1) << ((key * SALT[i]) >> 27);
}

/* ---------------------------------------------------------------------------
 * Hashing
 * ------------------------------------------------------------------------- */

uint64_t pq_bloom_hash_bytes(const void *data, size_t len)
{
    static const uint8_t none[1] = {0};
    return (uint64_t)XXH64(len ? data : none, len, 0);
}

static inline void store_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void store_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t pq_bloom_hash_i32(int32_t v)
{
    uint8_t b[4];
    store_le32(b, (uint32_t)v);
    return pq_bloom_hash_bytes(b, 4);
}

uint64_t pq_bloom_hash_i64(int64_t v)
{
    uint8_t b[8];
    store_le64(b, (uint64_t)v);
    return pq_bloom_hash_bytes(b, 8);
}

uint64_t pq_bloom_hash_float(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return pq_bloom_hash_i32((int32_t)u);
}

uint64_t pq_bloom_hash_double(double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    return pq_bloom_hash_i64((int64_t)u);
}

bool pq_bloom_type_hashable(int32_t physical_type)
{
    return physical_type >= PQ_INT32 && physical_type <= PQ_FIXED_LEN_BYTE_ARRAY;
}

bool pq_bloom_hash_plain(int32_t physical_type, int32_t type_length, const void *value,
                         size_t len, uint64_t *hash)
{
    size_t want;
    switch (physical_type) {
    case PQ_INT32:
    case PQ_FLOAT: want = 4; break;
    case PQ_INT64:
    case PQ_DOUBLE: want = 8; break;
    case PQ_INT96: want = 12; break;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (type_length < 0) return false;
        want = (size_t)type_length;
        break;
    case PQ_BYTE_ARRAY: want = len; break;
    default: return false; /* BOOLEAN, unknown */
    }
    if (len != want || (!value && len)) return false;
    *hash = pq_bloom_hash_bytes(value, len);
    return true;
}
