/*
 * k_filter.h — the predicate kernel: a compiled, flat predicate program
 * (device/filter.c makes it from a bound pq_expr) evaluated over
 * the rows of Arrow columns in device memory, into keep bits equal to
 * pq_predicate_eval's (predicate/predicate_eval.h).
 *
 * A program is an array of nodes in postfix order: a leaf pushes its
 * row's three-valued result, AND / OR pop two and push their Kleene
 * combination, NOT swaps the top's true and false. A row's state is a
 * stack of (true, false) bit pairs, bit k of `t` and `f` at depth k, so
 * the compiler bounds the depth by PQ_KF_MAX_DEPTH (it orders the deeper
 * operand first). Neither bit set is unknown (null).
 *
 * Leaves (pq_kfnode.value says how a leaf reads its column) follow
 * predicate_eval.c row for row: a slot of the Arrow array at the array's
 * offset, null where its validity bit is clear; integers loaded signed or
 * unsigned by the Arrow type and compared in the column's order (signed or
 * unsigned 64-bit); floats as doubles with NaN unordered (=, <, <=, >, >=,
 * IN false, != true) and a NaN literal above every number; decimal slots as
 * little-endian two's complement integers of the slot's width against the
 * literal widened to it; byte strings (int32 / int64 offsets, fixed width,
 * views) unsigned lexicographically, or as big-endian two's complement
 * decimals of any length. A dictionary column's leaf reads its result per
 * entry (entry_t / entry_f: the same program run over the dictionary
 * before) through the row's int32 index; an index outside the dictionary
 * makes the row unknown and is recorded (bad_row). IS [NOT] NULL on a
 * group reads the row's definition level (defs[row] < def_level: null).
 *
 * One phase list (PQ_KF_PHASES), one block per tile of nthreads * 32 rows:
 *   1. eval:  each thread evaluates rows thread, thread + nthreads, ... of
 *             the tile (neighbouring threads read neighbouring rows), the
 *             two result bits of each into the row's shared byte;
 *   2. pack:  each thread packs 32 consecutive rows' bytes into the keep
 *             bits (and the reject bits when asked: the false bits, which
 *             a dictionary's entries need), and counts its kept rows into
 *             its shared slot;
 *   3. sum:   thread 0 adds up the block's kept rows (block_kept[block]).
 * Rows at or past `length` are neither true nor false, so the bits past
 * the end are zero. Every output byte belongs to one thread.
 */
#ifndef PQ_KERNELS_K_FILTER_H
#define PQ_KERNELS_K_FILTER_H

#include <stdint.h>

#include "kernels/k_launch.h"
#include "kernels/primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Deepest stack a program may need (bits of a uint32). */
#define PQ_KF_MAX_DEPTH 32u
/* Rows a thread evaluates in a tile (a 32-bit word of keep bits). */
#define PQ_KF_ROWS_PER_THREAD 32u
/* Shared scratch of a block: a byte per row, a count per thread. */
#define PQ_KF_SHARED_BYTES(nthreads) ((size_t)(nthreads) * (PQ_KF_ROWS_PER_THREAD + 8u))

/* pq_kfnode.op */
enum {
    PQ_KFOP_TRUE = 0,
    PQ_KFOP_FALSE,
    PQ_KFOP_AND,
    PQ_KFOP_OR,
    PQ_KFOP_NOT,
    PQ_KFOP_IS_NULL,
    PQ_KFOP_IS_NOT_NULL,
    PQ_KFOP_EQ, /* EQ..GE in pq_cmp_op's order */
    PQ_KFOP_NE,
    PQ_KFOP_LT,
    PQ_KFOP_LE,
    PQ_KFOP_GT,
    PQ_KFOP_GE,
    PQ_KFOP_IN
};

/* pq_kfnode.value: how a leaf reads its column. */
enum {
    PQ_KFV_NULL = 0, /* every slot null (Arrow "n") */
    PQ_KFV_INT,      /* width 1, 2, 4 or 8 bytes LE */
    PQ_KFV_BITS,     /* bit-packed booleans: 0 or 1 */
    PQ_KFV_FLOAT,    /* width 4 or 8 */
    PQ_KFV_WIDE,     /* width bytes LE two's complement (decimal slots) */
    PQ_KFV_OFFSETS32,/* byte strings: int32 offsets in data, bytes in bytes */
    PQ_KFV_OFFSETS64,
    PQ_KFV_FIXED,    /* width bytes a slot */
    PQ_KFV_VIEW,     /* 16-byte views; long values in view_bufs[0..nview_bufs) */
    PQ_KFV_DICT,     /* int32 indices into nentries entries decided in entry_t / entry_f */
    PQ_KFV_DEFS      /* IS [NOT] NULL on a group: defs[row] < def_level is null */
};

/* pq_kfnode.flags */
enum {
    PQ_KFF_SIGNED_LOAD = 1u << 0,     /* INT: sign-extend the slot */
    PQ_KFF_UNSIGNED_ORDER = 1u << 1,  /* INT, BITS: compare as uint64 */
    PQ_KFF_DECIMAL_BYTES = 1u << 2,   /* byte strings: big-endian two's complement values */
    PQ_KFF_LOW64 = 1u << 3            /* WIDE: only the low 8 bytes, as int64 (an INT32 / INT64
                                       * column's decimal slot, whose high bytes are its sign) */
};

/* One node. Column pointers are in the launch's memory (device memory on
 * CUDA). Constants lie in the program's pool (pq_kfilter_args.consts) at
 * const_at, nconst of them (1 for a comparison, the sorted list for IN):
 * int64 (INT, BITS), double (FLOAT), `width` bytes (WIDE), or for byte
 * strings nconst (at, len) uint64 pairs, each an offset into the pool. */
typedef struct pq_kfnode {
    uint8_t op;
    uint8_t value;
    uint8_t flags;
    int16_t def_level;          /* DEFS */
    uint32_t width;
    uint32_t nconst;
    uint64_t const_at;
    int64_t offset;             /* the Arrow array's offset (slots and validity bits) */
    const uint8_t *valid;       /* NULL: no nulls */
    const uint8_t *data;        /* values, offsets, views or indices */
    const uint8_t *bytes;       /* OFFSETS32 / OFFSETS64 */
    const uint8_t *const *view_bufs;
    int64_t nview_bufs;
    const uint8_t *entry_t;     /* DICT */
    const uint8_t *entry_f;
    int64_t nentries;
    const int16_t *defs;        /* DEFS: one level a row, from row 0 */
} pq_kfnode;

typedef struct pq_kfilter_args {
    const pq_kfnode *nodes;
    uint32_t nnodes;
    const uint8_t *consts;       /* 8-byte aligned */
    int64_t length;              /* rows */
    uint8_t *keep;               /* (length + 7) / 8 bytes: the true bits */
    uint8_t *reject;             /* NULL, or as keep: the false bits */
    unsigned long long *block_kept; /* NULL, or one per block */
    unsigned long long *bad_row; /* lowest row with a dictionary index outside, PQ_KF_NONE if none */
} pq_kfilter_args;

#define PQ_KF_NONE 0xffffffffffffffffull

#define PQ_KF_PHASES(X) X(pq_kf_eval) X(pq_kf_pack) X(pq_kf_sum)

/* Runs the kernel on the host over nblocks blocks of nthreads threads
 * (1..1024), PQ_KLAUNCH_* flags (k_filter_host.c). 0, or -1 when it could
 * not start (bad arguments, no memory for the shared scratch). */
int pq_kfilter_host(const pq_kfilter_args *a, uint32_t nblocks, uint32_t nthreads, unsigned flags);

/* Runs it on the stream (a cudaStream_t) and waits (k_filter_cuda.cu;
 * k_filter_stub.c without CUDA). 0, or -1 with *why (when not NULL) a
 * constant string saying why. Memory calls: k_decode.h's pq_cuda_*. */
int pq_kfilter_cuda(void *stream, const pq_kfilter_args *a, uint32_t nblocks, uint32_t nthreads,
                    const char **why);

#ifdef __cplusplus
}
#endif

/* ---- Loading a slot -------------------------------------------------------- */

PQ_HD static inline int pq_kf_bit(const uint8_t *bits, int64_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

/* w (1..8) bytes LE, sign-extended when asked. */
PQ_HD static inline uint64_t pq_kf_load(const uint8_t *p, uint32_t w, int sign)
{
    uint64_t x = 0;
    for (uint32_t k = 0; k < w; k++) x |= (uint64_t)p[k] << (8 * k);
    if (sign && w < 8 && ((x >> (8 * w - 1)) & 1)) x |= ~0ull << (8 * w);
    return x;
}

PQ_HD static inline int pq_kf_cmp_i64(int64_t x, int64_t y)
{
    return (x > y) - (x < y);
}

PQ_HD static inline int pq_kf_cmp_u64(uint64_t x, uint64_t y)
{
    return (x > y) - (x < y);
}

/* Row value x against y as predicate_eval.c orders floats: 2 when x is NaN
 * (unordered), a NaN y above every number. */
PQ_HD static inline int pq_kf_cmp_f64(double x, double y)
{
    if (x != x) return 2;
    if (y != y) return -1;
    return (x > y) - (x < y);
}

/* Two w-byte LE two's complement integers. */
PQ_HD static inline int pq_kf_cmp_wide(const uint8_t *x, const uint8_t *y, uint32_t w)
{
    int sx = (int)(int8_t)x[w - 1], sy = (int)(int8_t)y[w - 1];
    if (sx != sy) return sx < sy ? -1 : 1;
    for (uint32_t k = w - 1; k-- > 0;)
        if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
    return 0;
}

/* Unsigned lexicographic order of two byte strings. */
PQ_HD static inline int pq_kf_cmp_bytes(const uint8_t *x, uint64_t xn, const uint8_t *y, uint64_t yn)
{
    uint64_t m = xn < yn ? xn : yn;
    for (uint64_t k = 0; k < m; k++)
        if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
    return (xn > yn) - (xn < yn);
}

/* Byte k (0: most significant) of big-endian v (n bytes) sign-extended to
 * `width` bytes. */
PQ_HD static inline uint8_t pq_kf_be_byte(const uint8_t *v, uint64_t n, uint64_t width, uint64_t k)
{
    uint64_t pad = width - n;
    if (k >= pad) return v[k - pad];
    return n && (v[0] & 0x80) ? 0xff : 0x00;
}

/* Two big-endian two's complement integers of any lengths (an empty one
 * is zero), as predicate.c's decimal order. */
PQ_HD static inline int pq_kf_cmp_decimal_bytes(const uint8_t *x, uint64_t xn, const uint8_t *y, uint64_t yn)
{
    int nx = xn && (x[0] & 0x80), ny = yn && (y[0] & 0x80);
    if (nx != ny) return nx ? -1 : 1;
    uint64_t width = xn > yn ? xn : yn;
    for (uint64_t k = 0; k < width; k++) {
        uint8_t a = pq_kf_be_byte(x, xn, width, k), b = pq_kf_be_byte(y, yn, width, k);
        if (a != b) return a < b ? -1 : 1;
    }
    return 0;
}

/* The bytes of slot j of a byte-string column. Negative lengths and views
 * naming a buffer the array lacks read as empty, as on the CPU. */
PQ_HD static inline const uint8_t *pq_kf_string(const pq_kfnode *nd, int64_t j, uint64_t *len)
{
    if (nd->value == PQ_KFV_OFFSETS32) {
        int64_t o0 = (int32_t)pq_kf_load(nd->data + j * 4, 4, 1), o1 = (int32_t)pq_kf_load(nd->data + j * 4 + 4, 4, 1);
        *len = o1 > o0 ? (uint64_t)(o1 - o0) : 0;
        return nd->bytes + o0;
    }
    if (nd->value == PQ_KFV_OFFSETS64) {
        int64_t o0 = (int64_t)pq_kf_load(nd->data + j * 8, 8, 0), o1 = (int64_t)pq_kf_load(nd->data + j * 8 + 8, 8, 0);
        *len = o1 > o0 ? (uint64_t)(o1 - o0) : 0;
        return nd->bytes + o0;
    }
    if (nd->value == PQ_KFV_VIEW) {
        const uint8_t *w = nd->data + j * 16;
        int32_t l = (int32_t)pq_kf_load(w, 4, 1);
        if (l <= 12) {
            *len = l > 0 ? (uint64_t)l : 0;
            return w + 4;
        }
        int32_t b = (int32_t)pq_kf_load(w + 8, 4, 1), o = (int32_t)pq_kf_load(w + 12, 4, 1);
        if (b < 0 || b >= nd->nview_bufs || o < 0) {
            *len = 0;
            return w;
        }
        *len = (uint64_t)l;
        return nd->view_bufs[b] + o;
    }
    *len = nd->width; /* FIXED */
    return nd->data + j * (int64_t)nd->width;
}

/* Slot j against constant k of the node: <0, 0, >0, or 2 (unordered). */
PQ_HD static inline int pq_kf_cmp_const(const pq_kfnode *nd, const uint8_t *consts, int64_t j, uint32_t k)
{
    const uint8_t *c = consts + nd->const_at;
    switch (nd->value) {
    case PQ_KFV_INT:
    case PQ_KFV_BITS: {
        uint64_t x = nd->value == PQ_KFV_BITS ? (uint64_t)pq_kf_bit(nd->data, j)
                                              : pq_kf_load(nd->data + j * (int64_t)nd->width, nd->width,
                                                           nd->flags & PQ_KFF_SIGNED_LOAD);
        uint64_t y = pq_kf_load(c + 8 * (uint64_t)k, 8, 0);
        return nd->flags & PQ_KFF_UNSIGNED_ORDER ? pq_kf_cmp_u64(x, y) : pq_kf_cmp_i64((int64_t)x, (int64_t)y);
    }
    case PQ_KFV_FLOAT: {
        double x, y;
        if (nd->width == 4) {
            float xf;
            memcpy(&xf, nd->data + j * 4, 4);
            x = xf;
        } else {
            memcpy(&x, nd->data + j * 8, 8);
        }
        memcpy(&y, c + 8 * (uint64_t)k, 8);
        return pq_kf_cmp_f64(x, y);
    }
    case PQ_KFV_WIDE:
        if (nd->flags & PQ_KFF_LOW64)
            return pq_kf_cmp_i64((int64_t)pq_kf_load(nd->data + j * (int64_t)nd->width, 8, 0),
                                 (int64_t)pq_kf_load(c + (uint64_t)nd->width * k, 8, 0));
        return pq_kf_cmp_wide(nd->data + j * (int64_t)nd->width, c + (uint64_t)nd->width * k, nd->width);
    default: { /* byte strings */
        uint64_t xn, at = pq_kf_load(c + 16 * (uint64_t)k, 8, 0), yn = pq_kf_load(c + 16 * (uint64_t)k + 8, 8, 0);
        const uint8_t *x = pq_kf_string(nd, j, &xn);
        return nd->flags & PQ_KFF_DECIMAL_BYTES ? pq_kf_cmp_decimal_bytes(x, xn, consts + at, yn)
                                                : pq_kf_cmp_bytes(x, xn, consts + at, yn);
    }
    }
}

PQ_HD static inline int pq_kf_holds(uint8_t op, int c)
{
    switch (op) {
    case PQ_KFOP_EQ: return c == 0;
    case PQ_KFOP_NE: return c != 0;
    case PQ_KFOP_LT: return c < 0;
    case PQ_KFOP_LE: return c <= 0;
    case PQ_KFOP_GT: return c > 0 && c != 2;
    case PQ_KFOP_GE: return c >= 0 && c != 2;
    }
    return 0;
}

/* Slot j among the sorted constants (binary search, as the CPU does). */
PQ_HD static inline int pq_kf_in(const pq_kfnode *nd, const uint8_t *consts, int64_t j)
{
    uint32_t lo = 0, hi = nd->nconst;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = pq_kf_cmp_const(nd, consts, j, mid);
        if (c == 2) return 0;
        if (c == 0) return 1;
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return 0;
}

/* A leaf on row i: bit 0 true, bit 1 false, neither unknown. */
PQ_HD static inline unsigned pq_kf_leaf(const pq_kfilter_args *a, const pq_kfnode *nd, int64_t i)
{
    int is_null_op = nd->op == PQ_KFOP_IS_NULL || nd->op == PQ_KFOP_IS_NOT_NULL;
    if (nd->value == PQ_KFV_DEFS) {
        int null = nd->defs[i] < nd->def_level;
        return null == (nd->op == PQ_KFOP_IS_NULL) ? 1u : 2u;
    }
    int64_t j = nd->offset + i;
    int valid = nd->value != PQ_KFV_NULL && (!nd->valid || pq_kf_bit(nd->valid, j));
    if (!valid) return is_null_op ? (nd->op == PQ_KFOP_IS_NULL ? 1u : 2u) : 0u;
    if (nd->value == PQ_KFV_DICT) {
        int32_t e = (int32_t)pq_kf_load(nd->data + j * 4, 4, 1);
        if (e < 0 || e >= nd->nentries) {
            pq_katomic_min_u64(a->bad_row, (unsigned long long)i);
            return 0;
        }
        return (unsigned)pq_kf_bit(nd->entry_t, e) | (unsigned)pq_kf_bit(nd->entry_f, e) << 1;
    }
    if (is_null_op) return nd->op == PQ_KFOP_IS_NOT_NULL ? 1u : 2u;
    int truth = nd->op == PQ_KFOP_IN ? pq_kf_in(nd, a->consts, j)
                                     : pq_kf_holds(nd->op, pq_kf_cmp_const(nd, a->consts, j, 0));
    return truth ? 1u : 2u;
}

/* The program on row i: bit 0 true, bit 1 false. */
PQ_HD static inline unsigned pq_kf_row(const pq_kfilter_args *a, int64_t i)
{
    uint32_t t = 0, f = 0; /* bit 0: the top of the stack */
    for (uint32_t n = 0; n < a->nnodes; n++) {
        const pq_kfnode *nd = &a->nodes[n];
        switch (nd->op) {
        case PQ_KFOP_AND:
        case PQ_KFOP_OR: {
            uint32_t tb = t & 1u, fb = f & 1u;
            t >>= 1;
            f >>= 1;
            uint32_t ta = t & 1u, fa = f & 1u;
            int and_ = nd->op == PQ_KFOP_AND;
            t = (t & ~1u) | (and_ ? ta & tb : ta | tb);
            f = (f & ~1u) | (and_ ? fa | fb : fa & fb);
            break;
        }
        case PQ_KFOP_NOT: {
            uint32_t tb = t & 1u;
            t = (t & ~1u) | (f & 1u);
            f = (f & ~1u) | tb;
            break;
        }
        case PQ_KFOP_TRUE:
            t = t << 1 | 1u;
            f = f << 1;
            break;
        case PQ_KFOP_FALSE:
            t = t << 1;
            f = f << 1 | 1u;
            break;
        default: {
            unsigned r = pq_kf_leaf(a, nd, i);
            t = t << 1 | (r & 1u);
            f = f << 1 | (r >> 1);
            break;
        }
        }
    }
    return (t & 1u) | (f & 1u) << 1;
}

/* ---- Phases ---------------------------------------------------------------- */

/* First row of the block's tile. */
PQ_HD static inline int64_t pq_kf_tile(pq_kthread t)
{
    return (int64_t)t.block * (int64_t)t.nthreads * PQ_KF_ROWS_PER_THREAD;
}

/* Phase 1 (every thread): rows thread + k * nthreads of the tile. */
PQ_HD static inline void pq_kf_eval(const void *args, pq_kthread t)
{
    const pq_kfilter_args *a = (const pq_kfilter_args *)args;
    uint8_t *state = (uint8_t *)t.shared;
    int64_t base = pq_kf_tile(t);
    for (uint32_t k = 0; k < PQ_KF_ROWS_PER_THREAD; k++) {
        uint32_t p = t.thread + k * t.nthreads;
        int64_t row = base + p;
        state[p] = row < a->length ? (uint8_t)pq_kf_row(a, row) : 0;
    }
}

/* Phase 2 (every thread): rows [thread * 32, thread * 32 + 32) of the tile
 * packed into 4 bytes of keep (and reject), its kept rows counted. */
PQ_HD static inline void pq_kf_pack(const void *args, pq_kthread t)
{
    const pq_kfilter_args *a = (const pq_kfilter_args *)args;
    const uint8_t *state = (const uint8_t *)t.shared;
    unsigned long long *count = (unsigned long long *)(state + (size_t)t.nthreads * PQ_KF_ROWS_PER_THREAD);
    uint32_t first = t.thread * PQ_KF_ROWS_PER_THREAD;
    uint32_t tw = 0, fw = 0;
    for (uint32_t k = 0; k < PQ_KF_ROWS_PER_THREAD; k++) {
        tw |= (uint32_t)(state[first + k] & 1u) << k;
        fw |= (uint32_t)((state[first + k] >> 1) & 1u) << k;
    }
    int64_t nbytes = (a->length + 7) / 8, at = (pq_kf_tile(t) + first) / 8;
    for (int64_t b = 0; b < 4 && at + b < nbytes; b++) {
        a->keep[at + b] = (uint8_t)(tw >> (8 * b));
        if (a->reject) a->reject[at + b] = (uint8_t)(fw >> (8 * b));
    }
    count[t.thread] = pq_popcount64(tw);
}

/* Phase 3 (thread 0): the block's kept rows. */
PQ_HD static inline void pq_kf_sum(const void *args, pq_kthread t)
{
    const pq_kfilter_args *a = (const pq_kfilter_args *)args;
    if (t.thread != 0 || !a->block_kept) return;
    const unsigned long long *count =
        (const unsigned long long *)((const uint8_t *)t.shared + (size_t)t.nthreads * PQ_KF_ROWS_PER_THREAD);
    unsigned long long n = 0;
    for (uint32_t k = 0; k < t.nthreads; k++) n += count[k];
    a->block_kept[t.block] = n;
}

#endif /* PQ_KERNELS_K_FILTER_H */
