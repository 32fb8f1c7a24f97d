/* bitcount.c — pq_bits_set with POPCNT where the CPU has it (bitcount.h). */
#include "kernels/bitcount.h"

#include <string.h>

#include "kernels/primitives.h"

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static uint64_t bits_set_popcnt(const uint8_t *bits, uint64_t n)
{
    uint64_t set = 0, i = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t w;
        memcpy(&w, bits + i / 8, 8);
        set += (uint64_t)__builtin_popcountll(w);
    }
    /* the last bytes, as pq_bits_set counts them */
    return i < n ? set + pq_bits_set(bits + i / 8, n - i) : set;
}
#endif

uint64_t pq_bits_set_fast(const uint8_t *bits, uint64_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (n >= 128 && __builtin_cpu_supports("popcnt")) return bits_set_popcnt(bits, n);
#endif
    return pq_bits_set(bits, n);
}
