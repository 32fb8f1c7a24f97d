/*
 * k_arrow.h — the Arrow kernels of a flat column: decoded values
 * (pq_column_values, in device memory) into the buffers of the column's
 * Arrow array, as reader/arrow_column.c builds them on the host.
 *
 * Work is split by slot: block b owns the `tile` slots [b * tile, (b + 1) *
 * tile), tile a multiple of 8, so that a byte of a bitmap belongs to one
 * block; inside a block each thread owns a contiguous piece of 8-slot
 * groups (pq_k_piece over groups), so that a byte belongs to one thread.
 *
 * Two kernels (phase lists in k_arrow_build.h):
 *   PQ_KA_VALIDITY  the validity bitmap from the definition levels (bit i
 *                   set where def[i] == max_def), or, given a bitmap (def
 *                   NULL: a nested leaf's, from k_nest.h), only its count;
 *                   either way each block's valid slots into block_valid[b].
 *                   The host turns those into each block's first value
 *                   (an exclusive scan) between the launches.
 *   PQ_KA_SPREAD    every slot from its value: slot i, the j-th valid one,
 *                   gets value j converted (`conv`); a null slot is zero,
 *                   an empty string. Within a block the threads' first
 *                   values come from a block scan of their valid counts
 *                   (k_block.h).
 *
 * Conversions are arrow_column.c's, value for value: integers cut or
 * extended (signed or not), big-endian decimals of any length (FLBA or each value its own
 * BYTE_ARRAY length) sign-extended or cut to the output width, booleans to
 * bits, and byte-array offsets spread over the slots (int32 or int64).
 */
#ifndef PQ_KERNELS_K_ARROW_H
#define PQ_KERNELS_K_ARROW_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/k_block.h"

/* What a slot is made from (pq_karrow_args.conv). */
enum {
    PQ_KCONV_COPY = 0,       /* width bytes as they are (width == out_width) */
    PQ_KCONV_INT = 1,        /* a width-byte integer, sign- or zero-extended, cut to out_width */
    /* 2 was INT96 to nanoseconds, which wrapped out-of-range values: INT96
     * timestamps are built on the host now, range-checked (reader/int96.h) */
    PQ_KCONV_BE_DECIMAL = 3, /* big-endian two's complement of width bytes (FLBA) */
    PQ_KCONV_BA_DECIMAL = 4, /* the same, each value its BYTE_ARRAY length (offsets, data) */
    PQ_KCONV_BOOL = 5,       /* bytes 0 / non-zero to bits */
    PQ_KCONV_OFFSETS32 = 6,  /* byte-array offsets over the slots: int32, n + 1 of them */
    PQ_KCONV_OFFSETS64 = 7   /* the same, int64 */
};

/* A launch's arguments (passed by value to a __global__ function). */
typedef struct pq_karrow_args {
    unsigned long long n;              /* slots */
    unsigned long long n_values;       /* values: what `values` / `offsets` hold */
    unsigned long long data_len;       /* BA_DECIMAL: bytes of `data` */
    uint32_t tile;                     /* slots a block, a multiple of 8 */
    int16_t max_def;
    uint8_t conv;                      /* PQ_KCONV_* */
    uint8_t is_signed;                 /* INT: sign-extend */
    uint32_t width;                    /* bytes a value */
    uint32_t out_width;                /* bytes a slot (fixed-width conversions) */
    const int16_t *def;                /* VALIDITY: the levels, or NULL: count `validity` only */
    uint8_t *validity;                 /* (n + 7) / 8 bytes; SPREAD: NULL when every slot is valid */
    unsigned long long *block_valid;   /* VALIDITY: out, valid slots a block; SPREAD: valid slots
                                        * before each block */
    const uint8_t *values;             /* n_values * width bytes */
    const int32_t *offsets;            /* byte arrays: n_values + 1 entries (NULL: every value empty) */
    const uint8_t *data;
    uint8_t *out;                      /* fixed width: n * out_width; BOOL: (n + 7) / 8; offsets */
} pq_karrow_args;

/* Block b's 8-slot groups: [*g0, *g0 + *ng). */
PQ_HD static inline void pq_ka_block_groups(const pq_karrow_args *a, pq_kthread t, unsigned long long *g0,
                                            uint32_t *ng)
{
    unsigned long long groups = (a->n + 7) / 8, per = a->tile / 8;
    *g0 = (unsigned long long)t.block * per;
    unsigned long long left = groups > *g0 ? groups - *g0 : 0;
    *ng = (uint32_t)(left < per ? left : per);
}

/* Slots of group g that exist: a bit mask of 8 (fewer in the last group). */
PQ_HD static inline uint32_t pq_ka_group_mask(unsigned long long n, unsigned long long g)
{
    unsigned long long left = n - 8 * g;
    return left >= 8 ? 0xffu : (1u << left) - 1u;
}

/* The validity byte of group g: from the levels, or as given. */
PQ_HD static inline uint32_t pq_ka_group_bits(const pq_karrow_args *a, unsigned long long g)
{
    uint32_t mask = pq_ka_group_mask(a->n, g);
    if (!a->validity) return mask;
    if (!a->def) return a->validity[g] & mask;
    uint32_t bits = 0;
    const int16_t *d = a->def + 8 * g;
    for (uint32_t k = 0; k < 8; k++)
        if (((mask >> k) & 1) && d[k] == a->max_def) bits |= 1u << k;
    return bits;
}

/* VALIDITY phase 1 (every thread): its groups' bits written (from the
 * levels) and counted into its slot. */
PQ_HD static inline void pq_ka_validity_bits(const void *args, pq_kthread t)
{
    const pq_karrow_args *a = (const pq_karrow_args *)args;
    unsigned long long g0, valid = 0;
    uint32_t ng, lo, hi;
    pq_ka_block_groups(a, t, &g0, &ng);
    pq_k_piece(ng, t, &lo, &hi);
    for (uint32_t k = lo; k < hi; k++) {
        uint32_t bits = pq_ka_group_bits(a, g0 + k);
        if (a->def) a->validity[g0 + k] = (uint8_t)bits;
        valid += pq_popcount64(bits);
    }
    *pq_k_slot(t, t.thread, 0) = valid;
}

/* VALIDITY phase 2 (thread 0): the block's valid slots. */
PQ_HD static inline void pq_ka_validity_sum(const void *args, pq_kthread t)
{
    const pq_karrow_args *a = (const pq_karrow_args *)args;
    if (t.thread != 0) return;
    a->block_valid[t.block] = pq_k_scan_slots(t, 0);
}

/* Integer of w bytes at p (little-endian), sign-extended when asked. */
PQ_HD static inline unsigned long long pq_ka_load_int(const uint8_t *p, uint32_t w, int is_signed)
{
    unsigned long long x = 0;
    for (uint32_t k = 0; k < w && k < 8; k++) x |= (unsigned long long)p[k] << (8 * k);
    if (is_signed && w < 8 && w > 0 && ((x >> (8 * w - 1)) & 1)) x |= ~0ull << (8 * w);
    return x;
}

/* x into ow bytes little-endian; bytes past 8 repeat the sign of x. */
PQ_HD static inline void pq_ka_store_int(uint8_t *dst, uint32_t ow, unsigned long long x)
{
    uint8_t fill = (x >> 63) ? 0xff : 0;
    for (uint32_t k = 0; k < ow; k++) dst[k] = k < 8 ? (uint8_t)(x >> (8 * k)) : fill;
}

/* Big-endian two's complement of len bytes into ow bytes little-endian:
 * sign-extended, or its low bytes when longer. */
PQ_HD static inline void pq_ka_be_decimal(uint8_t *dst, uint32_t ow, const uint8_t *src, unsigned long long len)
{
    uint8_t fill = len && (src[0] & 0x80) ? 0xff : 0;
    for (uint32_t k = 0; k < ow; k++) dst[k] = k < len ? src[len - 1 - k] : fill;
}

/* Value j converted into the slot at dst (fixed-width conversions). */
PQ_HD static inline void pq_ka_convert(const pq_karrow_args *a, unsigned long long j, uint8_t *dst)
{
    uint32_t w = a->width, ow = a->out_width;
    /* Byte arrays have no fixed-width values (NULL): src only for the rest. */
    const uint8_t *src = a->conv == PQ_KCONV_BA_DECIMAL ? NULL : a->values + j * w;
    switch (a->conv) {
    case PQ_KCONV_COPY:
        for (uint32_t k = 0; k < ow; k++) dst[k] = src[k];
        break;
    case PQ_KCONV_INT:
        pq_ka_store_int(dst, ow, pq_ka_load_int(src, w, a->is_signed));
        break;
    case PQ_KCONV_BE_DECIMAL:
        pq_ka_be_decimal(dst, ow, src, w);
        break;
    case PQ_KCONV_BA_DECIMAL: {
        /* Offsets come from this library's decoder; a pair out of the data
         * is still refused here rather than read past it. */
        long long s = a->offsets ? a->offsets[j] : 0, e = a->offsets ? a->offsets[j + 1] : 0;
        if (s < 0 || e <= s || (unsigned long long)e > a->data_len) {
            for (uint32_t k = 0; k < ow; k++) dst[k] = 0;
            break;
        }
        pq_ka_be_decimal(dst, ow, a->data + s, (unsigned long long)(e - s));
        break;
    }
    default:
        break;
    }
}

/* Offset i (int32 or int64) of the output. */
PQ_HD static inline void pq_ka_put_offset(const pq_karrow_args *a, unsigned long long i, long long v)
{
    if (a->conv == PQ_KCONV_OFFSETS64) {
        pq_ka_store_int(a->out + 8 * i, 8, (unsigned long long)v);
    } else {
        int32_t x = (int32_t)v;
        memcpy(a->out + 4 * i, &x, 4);
    }
}

/* SPREAD phase 1 (every thread): its groups' valid slots into its slot. */
PQ_HD static inline void pq_ka_spread_count(const void *args, pq_kthread t)
{
    const pq_karrow_args *a = (const pq_karrow_args *)args;
    unsigned long long g0, valid = 0;
    uint32_t ng, lo, hi;
    pq_ka_block_groups(a, t, &g0, &ng);
    pq_k_piece(ng, t, &lo, &hi);
    for (uint32_t k = lo; k < hi; k++) valid += pq_popcount64(pq_ka_group_bits(a, g0 + k));
    *pq_k_slot(t, t.thread, 0) = valid;
}

/* SPREAD phase 2 (thread 0): the slots scanned into each thread's first value. */
PQ_HD static inline void pq_ka_spread_scan(const void *args, pq_kthread t)
{
    (void)args;
    if (t.thread == 0) (void)pq_k_scan_slots(t, 0);
}

/* SPREAD phase 3 (every thread): its slots written. */
PQ_HD static inline void pq_ka_spread_write(const void *args, pq_kthread t)
{
    const pq_karrow_args *a = (const pq_karrow_args *)args;
    unsigned long long g0;
    uint32_t ng, lo, hi;
    pq_ka_block_groups(a, t, &g0, &ng);
    pq_k_piece(ng, t, &lo, &hi);
    unsigned long long j = *pq_k_slot(t, t.thread, 0) + (a->validity ? a->block_valid[t.block] : 8 * g0);
    bool offsets = a->conv == PQ_KCONV_OFFSETS32 || a->conv == PQ_KCONV_OFFSETS64;
    if (offsets && t.block == 0 && t.thread == 0) pq_ka_put_offset(a, 0, 0);
    for (uint32_t k = lo; k < hi; k++) {
        unsigned long long g = g0 + k;
        uint32_t mask = pq_ka_group_mask(a->n, g), bits = pq_ka_group_bits(a, g), byte = 0;
        for (uint32_t s = 0; s < 8 && ((mask >> s) & 1); s++) {
            unsigned long long i = 8 * g + s;
            bool valid = (bits >> s) & 1;
            if (a->conv == PQ_KCONV_BOOL) {
                if (valid && a->values[j]) byte |= 1u << s;
            } else if (offsets) {
                /* A slot ends where its value (or, null, the value before) ends. */
                pq_ka_put_offset(a, i + 1, a->offsets ? a->offsets[j + valid] : 0);
            } else if (valid) {
                pq_ka_convert(a, j, a->out + i * a->out_width);
            } else {
                for (uint32_t b = 0; b < a->out_width; b++) a->out[i * a->out_width + b] = 0;
            }
            j += valid;
        }
        if (a->conv == PQ_KCONV_BOOL) a->out[g] = (uint8_t)byte;
    }
}

#endif /* PQ_KERNELS_K_ARROW_H */
