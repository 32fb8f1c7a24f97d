/*
 * fuzz_variant.c — libFuzzer target for VARIANT values (metadata/variant.c):
 * the first input byte is the metadata's length, the metadata follows, and
 * the rest is the value. Checked beyond "no crash, no read out of bounds":
 * pq_variant_validate and pq_variant_to_json agree; the JSON text's length
 * is the same whether the buffer is large or a few bytes (it is cut, never
 * overrun, and NUL-terminated); pq_variant_metadata_size never exceeds the
 * bytes given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t mlen = data[0];
    if (mlen > size - 1) mlen = size - 1;
    const uint8_t *m = data + 1, *v = data + 1 + mlen;
    size_t vlen = size - 1 - mlen;
    pq_error err;
    size_t ms = pq_variant_metadata_size(m, mlen, &err);
    if (ms > mlen) abort();
    pq_status a = pq_variant_validate(m, mlen, v, vlen, &err);
    static char big[1 << 20];
    char small[8];
    size_t n1 = 0, n2 = 0;
    pq_status b = pq_variant_to_json(m, mlen, v, vlen, big, sizeof big, &n1, &err);
    pq_status c = pq_variant_to_json(m, mlen, v, vlen, small, sizeof small, &n2, &err);
    if (a != b || b != c) abort();
    if (b == PQ_OK && (n1 != n2 || small[sizeof small - 1 < n2 ? sizeof small - 1 : n2] != '\0')) abort();
    if (b == PQ_OK && n1 < sizeof big && strlen(big) != n1) abort();
    return 0;
}
