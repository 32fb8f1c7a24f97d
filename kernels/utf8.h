/*
 * utf8.h — UTF-8 validation of string values (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF).
 *
 * A PQ_HD inline function like those of primitives.h, so a CUDA kernel can
 * validate a value per thread. ASCII runs are checked eight bytes at a time.
 */
#ifndef PQ_KERNELS_UTF8_H
#define PQ_KERNELS_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/primitives.h"

/* The offset of the first byte of `s` (n bytes) that does not start a valid
 * UTF-8 sequence, or n when all of it is valid. */
PQ_HD static inline size_t pq_utf8_invalid_at(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (n - i >= 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!(w & 0x8080808080808080ull)) {
                i += 8;
                continue;
            }
        }
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint8_t lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            if (c == 0xe0) lo = 0xa0;  /* overlong */
            if (c == 0xed) hi = 0x9f;  /* surrogates */
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            if (c == 0xf0) lo = 0x90;  /* overlong */
            if (c == 0xf4) hi = 0x8f;  /* above U+10FFFF */
        } else {
            return i;                  /* continuation byte, 0xc0/0xc1, 0xf5+ */
        }
        if (n - i < len || s[i + 1] < lo || s[i + 1] > hi) return i;
        for (size_t k = 2; k < len; k++)
            if ((s[i + k] & 0xc0) != 0x80) return i;
        i += len;
    }
    return n;
}

#endif
