/* delta.c — DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY. */
#include "kernels/delta.h"

#include <string.h>

#include "kernels/kernel_error.h"
#include "kernels/primitives.h"

/* Any multiple of 128 is legal; beyond int32 no writer goes. */
#define DELTA_MAX_BLOCK 0x7fffff80u

pq_status pq_delta_read_header(const uint8_t *src, size_t len, pq_delta_header *h, pq_error *err)
{
    uint64_t v[4];
    size_t pos = 0;
    static const char *const what[4] = {"block size", "miniblock count", "value count", "first value"};
    if (!src && len) return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "DELTA_BINARY_PACKED: NULL input");
    for (int i = 0; i < 4; i++) {
        size_t used = pq_uleb128(src + pos, len - pos, &v[i]);
        if (!used)
            return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "DELTA_BINARY_PACKED: truncated or overlong %s at byte %zu",
                            what[i], pos);
        pos += used;
    }
    if (v[0] == 0 || v[0] % 128 != 0 || v[0] > DELTA_MAX_BLOCK)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "DELTA_BINARY_PACKED: block size %llu is not a positive multiple of 128",
                        (unsigned long long)v[0]);
    if (v[1] == 0 || v[1] > v[0] || v[0] % v[1] != 0 || (v[0] / v[1]) % 32 != 0)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA,
                        "DELTA_BINARY_PACKED: %llu miniblocks in a block of %llu: values per miniblock not a multiple of 32",
                        (unsigned long long)v[1], (unsigned long long)v[0]);
    h->block_size = (uint32_t)v[0];
    h->miniblocks = (uint32_t)v[1];
    h->total = v[2];
    h->first = pq_unzigzag64(v[3]);
    h->header_bytes = pos;
    return PQ_OK;
}

/* The shared decoder: values are computed modulo 2^64 and stored as int32
 * (low 32 bits) or int64. out32 or out64 is set. Bit widths up to 64 are
 * taken for int32 output too: the arithmetic is modular, so the low 32 bits
 * are right whatever the width, and DuckDB 2.0 writes widths of 33 for
 * INT32/UINT32 neighbours more than 2^31 apart. */
static pq_status delta_decode(const uint8_t *src, size_t len, int32_t *out32, int64_t *out64, size_t cap,
                              size_t *n, size_t *consumed, pq_error *err)
{
    pq_delta_header h;
    const int max_width = 64;
    *n = 0;
    pq_status st = pq_delta_read_header(src, len, &h, err);
    if (st) return st;
    if (h.total > cap)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "DELTA_BINARY_PACKED: %llu values, more than the %zu declared",
                        (unsigned long long)h.total, cap);
    size_t total = (size_t)h.total, pos = h.header_bytes, i = 0;
    uint64_t prev = h.first;
    size_t per_mini = h.block_size / h.miniblocks;

#define STORE(idx, v)                                   \
    do {                                                \
        if (out32) out32[idx] = (int32_t)(uint32_t)(v); \
        else out64[idx] = (int64_t)(v);                 \
    } while (0)

    if (total > 0) STORE(i++, prev);
    while (i < total) {
        uint64_t zz;
        size_t used = pq_uleb128(src + pos, len - pos, &zz);
        if (!used)
            return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "DELTA_BINARY_PACKED: truncated or overlong min delta at byte %zu",
                            pos);
        pos += used;
        uint64_t min_delta = pq_unzigzag64(zz);
        if (len - pos < h.miniblocks)
            return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "DELTA_BINARY_PACKED: bit widths truncated at byte %zu", pos);
        const uint8_t *widths = src + pos;
        pos += h.miniblocks;
        for (uint32_t m = 0; m < h.miniblocks && i < total; m++) {
            int bw = widths[m];
            if (bw > max_width)
                return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "DELTA_BINARY_PACKED: miniblock bit width %d exceeds %d",
                                bw, max_width);
            size_t bytes = per_mini / 8 * (size_t)bw;
            if (bytes > len - pos)
                return pq_kfail(err, PQ_ERR_CORRUPT_DATA,
                                "DELTA_BINARY_PACKED: miniblock at byte %zu needs %zu bytes, %zu present", pos, bytes,
                                len - pos);
            size_t take = total - i < per_mini ? total - i : per_mini;
            const uint8_t *p = src + pos;
            for (size_t g = 0; g < take; g += 8, p += bw) {
                uint64_t d[8], v[8];
                pq_unpack8_u64(p, bw, d);
                prev = pq_delta_apply8(d, min_delta, prev, v);
                size_t k = take - g < 8 ? take - g : 8;
                for (size_t j = 0; j < k; j++) STORE(i + j, v[j]);
                i += k;
            }
            pos += bytes;
        }
    }
#undef STORE
    *n = total;
    *consumed = pos;
    return PQ_OK;
}

pq_status pq_delta_decode_i32(const uint8_t *src, size_t len, int32_t *out, size_t cap, size_t *n,
                              size_t *consumed, pq_error *err)
{
    if (!out && cap) return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "DELTA_BINARY_PACKED: NULL output");
    int32_t dummy;
    return delta_decode(src, len, out ? out : &dummy, NULL, cap, n, consumed, err);
}

pq_status pq_delta_decode_i64(const uint8_t *src, size_t len, int64_t *out, size_t cap, size_t *n,
                              size_t *consumed, pq_error *err)
{
    if (!out && cap) return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "DELTA_BINARY_PACKED: NULL output");
    int64_t dummy;
    return delta_decode(src, len, NULL, out ? out : &dummy, cap, n, consumed, err);
}

pq_status pq_delta_length_byte_array(const uint8_t *src, size_t len, size_t cap, int32_t *offsets, int32_t base,
                                     size_t *n, const uint8_t **data, size_t *data_len, size_t *consumed,
                                     pq_error *err)
{
    size_t count, hdr;
    *n = 0;
    if (base < 0) return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "DELTA_LENGTH_BYTE_ARRAY: negative base offset");
    /* lengths land in offsets[1..]; the loop below turns them into offsets in place */
    pq_status st = pq_delta_decode_i32(src, len, offsets + 1, cap, &count, &hdr, err);
    if (st) return st;
    size_t avail = len - hdr;
    uint64_t sum = 0;
    offsets[0] = base;
    for (size_t i = 0; i < count; i++) {
        int32_t l = offsets[i + 1];
        if (l < 0)
            return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "DELTA_LENGTH_BYTE_ARRAY: value %zu has negative length %d", i, l);
        sum += (uint64_t)l;
        if (sum > avail)
            return pq_kfail(err, PQ_ERR_CORRUPT_DATA,
                            "DELTA_LENGTH_BYTE_ARRAY: values up to %zu need %llu bytes, %zu present", i,
                            (unsigned long long)sum, avail);
        if (sum > (uint64_t)(INT32_MAX - base))
            return pq_kfail(err, PQ_ERR_UNSUPPORTED, "DELTA_LENGTH_BYTE_ARRAY: offsets exceed int32");
        offsets[i + 1] = base + (int32_t)sum;
    }
    *n = count;
    *data = src + hdr;
    *data_len = (size_t)sum;
    *consumed = hdr + (size_t)sum;
    return PQ_OK;
}

pq_status pq_delta_byte_array(const uint8_t *src, size_t len, size_t cap, int32_t *scratch, int32_t *offsets,
                              int32_t base, uint8_t *data, size_t data_cap, size_t *n, size_t *data_len,
                              size_t *consumed, pq_error *err)
{
    size_t np, ns, c1, c2, slen;
    const uint8_t *sdata;
    *n = 0;
    if (base < 0) return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "DELTA_BYTE_ARRAY: negative base offset");
    pq_status st = pq_delta_decode_i32(src, len, scratch, cap, &np, &c1, err);
    if (st) return st;
    /* suffix offsets, relative to sdata, go into offsets first */
    st = pq_delta_length_byte_array(src + c1, len - c1, cap, offsets, 0, &ns, &sdata, &slen, &c2, err);
    if (st) return st;
    if (np != ns)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "DELTA_BYTE_ARRAY: %zu prefix lengths but %zu suffixes", np, ns);

    uint64_t out = 0;            /* bytes of output so far */
    uint64_t prev_start = 0, prev_len = 0;
    int32_t s_start = 0;         /* suffix i starts here in sdata */
    offsets[0] = base;
    for (size_t i = 0; i < np; i++) {
        int32_t prefix = scratch[i], s_end = offsets[i + 1];
        if (prefix < 0 || (uint64_t)prefix > prev_len)
            return pq_kfail(err, PQ_ERR_CORRUPT_DATA,
                            "DELTA_BYTE_ARRAY: value %zu has prefix length %d, the previous value has %llu bytes", i,
                            prefix, (unsigned long long)prev_len);
        uint64_t suffix = (uint64_t)(s_end - s_start), vlen = (uint64_t)prefix + suffix;
        if (out + vlen > (uint64_t)(INT32_MAX - base))
            return pq_kfail(err, PQ_ERR_UNSUPPORTED, "DELTA_BYTE_ARRAY: values exceed int32 offsets");
        if (data) {
            if (out + vlen > data_cap)
                return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "DELTA_BYTE_ARRAY: output buffer of %zu bytes too small",
                                data_cap);
            memcpy(data + out, data + prev_start, (size_t)prefix); /* disjoint: the previous value ends at out */
            memcpy(data + out + (uint64_t)prefix, sdata + s_start, (size_t)suffix);
        }
        prev_start = out;
        prev_len = vlen;
        out += vlen;
        offsets[i + 1] = base + (int32_t)out;
        s_start = s_end;
    }
    *n = np;
    *data_len = (size_t)out;
    *consumed = c1 + c2;
    return PQ_OK;
}
