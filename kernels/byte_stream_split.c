/* byte_stream_split.c — BYTE_STREAM_SPLIT transposition. */
#include "kernels/byte_stream_split.h"

#include "kernels/kernel_error.h"
#include "kernels/primitives.h"

/* The width is a constant in each call site below, so the inner loop of
 * pq_bss_gather unrolls for the common widths. */
static inline void bss_range(const uint8_t *src, size_t n, size_t width, size_t first, size_t count, uint8_t *out)
{
    for (size_t i = 0; i < count; i++) pq_bss_gather(src, n, width, first + i, out + i * width);
}

pq_status pq_byte_stream_split(const uint8_t *src, size_t len, size_t width, size_t first, size_t count,
                               uint8_t *out, size_t *n_total, pq_error *err)
{
    if (width == 0) return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "BYTE_STREAM_SPLIT: value width 0");
    if (len % width != 0)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "BYTE_STREAM_SPLIT: %zu bytes is not a multiple of the width %zu",
                        len, width);
    size_t n = len / width;
    if (n_total) *n_total = n;
    if (first > n || count > n - first)
        return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "BYTE_STREAM_SPLIT: values %zu..+%zu past the %zu present", first,
                        count, n);
    switch (width) {
    case 2: bss_range(src, n, 2, first, count, out); break;
    case 4: bss_range(src, n, 4, first, count, out); break;
    case 8: bss_range(src, n, 8, first, count, out); break;
    default: bss_range(src, n, width, first, count, out); break;
    }
    return PQ_OK;
}
