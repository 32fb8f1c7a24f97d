/* plain.c — PLAIN for every physical type. */
#include "kernels/plain.h"

#include <string.h>

#include "kernels/kernel_error.h"
#include "kernels/primitives.h"

pq_status pq_plain_fixed(const uint8_t *src, size_t len, size_t width, size_t n, void *out, size_t *consumed,
                         pq_error *err)
{
    if (width == 0) return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "PLAIN: value width 0");
    if (n > len / width)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "PLAIN: %zu values of %zu bytes, only %zu bytes present", n, width,
                        len);
    if (n) memcpy(out, src, n * width);
    *consumed = n * width;
    return PQ_OK;
}

void pq_ints_sign_extend(uint8_t *dst, size_t ow, const uint8_t *src, size_t w, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        int64_t x;
        if (w == 4) {
            int32_t y;
            memcpy(&y, src + i * 4, 4);
            x = y;
        } else {
            memcpy(&x, src + i * 8, 8);
        }
        int64_t hi = x < 0 ? -1 : 0;
        uint8_t *d = dst + i * ow;
        /* two word stores a value (decimal128, the common case: no memset call) */
        memcpy(d, &x, 8);
        memcpy(d + 8, &hi, 8);
        if (ow > 16) memset(d + 16, x < 0 ? 0xff : 0, ow - 16);
    }
}

pq_status pq_plain_boolean(const uint8_t *src, size_t len, uint64_t first_bit, size_t n, uint8_t *out,
                           size_t *consumed, pq_error *err)
{
    uint64_t bits = (uint64_t)len * 8;
    if (first_bit > bits || n > bits - first_bit)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "PLAIN BOOLEAN: bits %llu..+%zu past the %zu bytes present",
                        (unsigned long long)first_bit, n, len);
    for (size_t i = 0; i < n; i++) out[i] = pq_bit_at(src, first_bit + i);
    *consumed = (size_t)((first_bit + n + 7) / 8);
    return PQ_OK;
}

pq_status pq_plain_byte_array(const uint8_t *src, size_t len, size_t n, int32_t *offsets, int32_t base,
                              uint8_t *data, size_t data_cap, size_t *data_len, size_t *consumed, pq_error *err)
{
    size_t pos = 0;
    uint64_t out = 0;
    if (base < 0) return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "PLAIN BYTE_ARRAY: negative base offset");
    for (size_t i = 0; i < n; i++) {
        uint32_t l = 0; /* set on success; gcc cannot tell */
        pq_status st = pq_plain_value_length(src, len, &pos, i, n, &l, err);
        if (st != PQ_OK) return st;
        if (out + l > (uint64_t)(INT32_MAX - base))
            return pq_kfail(err, PQ_ERR_UNSUPPORTED, "PLAIN BYTE_ARRAY: offsets exceed int32");
        if (data) {
            if (out + l > data_cap)
                return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "PLAIN BYTE_ARRAY: output buffer of %zu bytes too small",
                                data_cap);
            memcpy(data + out, src + pos, l);
        }
        pos += l;
        out += l;
        offsets[i + 1] = base + (int32_t)out;
    }
    *data_len = (size_t)out;
    *consumed = pos;
    return PQ_OK;
}
