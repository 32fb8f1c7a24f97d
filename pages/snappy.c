/*
 * snappy.c — the raw snappy format decoded (see snappy.h for the format and
 * why this is not libsnappy).
 *
 * Each element is bounds-checked before anything is written: a literal
 * against the input left and the output left, a copy against the output
 * written so far (its offset) and the output left (its length). Within
 * those limits, while at least FAST_ROOM output bytes are left, elements are
 * moved in whole 8- or 16-byte words that may write up to 15 bytes past the
 * element's end (later elements overwrite them; the room check keeps them
 * inside dst). Near the end every move is exact.
 */
#include "pages/snappy.h"

#include <stdbool.h>
#include <string.h>

#include "kernels/primitives.h"
#include "metadata/error.h"

/* Output bytes that must be left for the word-at-a-time moves: the longest
 * element a single tag covers with no length bytes (a 64-byte literal or
 * copy) plus a word of overshoot. */
#define FAST_ROOM 80

static inline void move8(uint8_t *d, const uint8_t *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    memcpy(d, &w, 8);
}

static inline void move16(uint8_t *d, const uint8_t *s)
{
    uint8_t w[16];
    memcpy(w, s, 16);
    memcpy(d, w, 16);
}

/* What a tag byte says, for the fast loop (8 bytes, so that one scaled
 * load finds it). The loop takes literals of up to 16 bytes and copies of
 * up to 64 whose length is in the tag and whose offset has 1 or 2 bytes.
 * For those of up to 16 bytes a valid element that does not overlap its
 * own output is exactly off - len <= written - len (with 16 bytes written,
 * so that the right side does not wrap): offset at least the length and
 * at most what is written; a longer or overlapping copy is checked apart
 * (0 < off <= written). A literal's entry gives an offset equal to its
 * length, which passes; any other tag has length 1 and offset 0, which
 * fails, and goes to the checked step. */
typedef struct fast_tag {
    uint8_t len;     /* output bytes */
    uint8_t literal; /* 1: the bytes come from the input */
    uint8_t unused[2];
    uint16_t off_hi; /* a 1-byte-offset copy: its offset's upper 3 bits, in place; a literal: its length */
    uint16_t mask;   /* the offset bytes after the tag: 0, 0xff or 0xffff */
} fast_tag;

/* The table, one entry per tag byte, built by the preprocessor. */
#define FT_SLOW {1, 0, {0, 0}, 0, 0}
#define FT_LIT(t) {(t) / 4 + 1, 1, {0, 0}, (t) / 4 + 1, 0}
#define FT_COPY1(t) {4 + ((t) / 4) % 8, 0, {0, 0}, ((t) / 32) << 8, 0xff}
#define FT_COPY2(t) {(t) / 4 + 1, 0, {0, 0}, 0, 0xffff}
#define FT_4(t) FT_LIT(t), FT_COPY1((t) + 1), FT_COPY2((t) + 2), FT_SLOW
#define FT_4_LONG(t) FT_SLOW, FT_COPY1((t) + 1), FT_COPY2((t) + 2), FT_SLOW /* tags of lengths above 16 */
#define FT_16(t) FT_4(t), FT_4((t) + 4), FT_4((t) + 8), FT_4((t) + 12)
#define FT_16_LONG(t) FT_4_LONG(t), FT_4_LONG((t) + 4), FT_4_LONG((t) + 8), FT_4_LONG((t) + 12)
#define FT_64_LONG(t) FT_16_LONG(t), FT_16_LONG((t) + 16), FT_16_LONG((t) + 32), FT_16_LONG((t) + 48)
static const fast_tag fast_tags[256] = {FT_16(0),        FT_16(16),         FT_16(32),        FT_16(48),
                                        FT_64_LONG(64), FT_64_LONG(128), FT_64_LONG(192)};

static pq_status corrupt(pq_error *err, const char *what, size_t in_at, size_t out_at)
{
    return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "SNAPPY: %s (input byte %zu, output byte %zu)", what, in_at,
                        out_at);
}

/* `len` bytes from `off` bytes back, at op; the room for words is there
 * (op + len + 15 <= the end of dst). off <= what is written, off > 0. */
static inline void copy_fast(uint8_t *op, size_t off, size_t len)
{
    const uint8_t *s = op - off;
    if (off >= 16) {
        for (size_t i = 0; i < len; i += 16) move16(op + i, s + i);
    } else if (off >= 8) {
        for (size_t i = 0; i < len; i += 8) move8(op + i, s + i);
    } else {
        /* A pattern of period off: its first 8 bytes one at a time (each
         * reads a byte already written), then words from d bytes back, d
         * the first multiple of off that is at least 8, where the pattern
         * repeats and every byte read is already written. */
        for (size_t i = 0; i < 8; i++) op[i] = s[i];
        size_t d = off;
        while (d < 8) d += off;
        for (size_t i = 8; i < len; i += 8) move8(op + i, op + i - d);
    }
}

/* One element at *ipp, every bound checked; moved in words when the
 * output has FAST_ROOM left (and, for a literal, 64 input bytes). */
static pq_status element_checked(const uint8_t **ipp, uint8_t **opp, const uint8_t *src, const uint8_t *ie,
                                 uint8_t *dst, uint8_t *oe, pq_error *err)
{
    const uint8_t *ip = *ipp, *tag_at = ip;
    uint8_t *op = *opp;
    uint8_t tag = *ip++;
    size_t room = (size_t)(oe - op);
    size_t len, off;
    switch (tag & 3) {
    case 0:
        len = (size_t)(tag >> 2) + 1;
        if (len <= 60 && (size_t)(ie - ip) >= 64 && room >= FAST_ROOM) {
            /* Its length is in the tag and 64 input bytes are there: words,
             * up to 15 bytes past its end on both sides. */
            for (size_t i = 0; i < len; i += 16) move16(op + i, ip + i);
        } else {
            if (len > 60) {
                size_t k = len - 60;
                if (k > (size_t)(ie - ip))
                    return corrupt(err, "literal length runs past the input", (size_t)(tag_at - src),
                                   (size_t)(op - dst));
                /* length - 1 in k bytes; the + 1 wraps in 32 bits as
                 * libsnappy's does, so 4 bytes of 0xff are a literal of
                 * length 0, which it takes. */
                len = (uint32_t)(pq_load_le_n(ip, (int)k) + 1);
                ip += k;
            }
            if (len > (size_t)(ie - ip))
                return corrupt(err, "literal runs past the input", (size_t)(tag_at - src), (size_t)(op - dst));
            if (len > room)
                return corrupt(err, "literal runs past the declared length", (size_t)(tag_at - src),
                               (size_t)(op - dst));
            memcpy(op, ip, len);
        }
        *ipp = ip + len;
        *opp = op + len;
        return PQ_OK;
    case 1:
        if (ip == ie)
            return corrupt(err, "copy offset runs past the input", (size_t)(tag_at - src), (size_t)(op - dst));
        len = 4 + ((tag >> 2) & 7);
        off = (size_t)(tag >> 5) << 8 | *ip++;
        break;
    case 2:
        if ((size_t)(ie - ip) < 2)
            return corrupt(err, "copy offset runs past the input", (size_t)(tag_at - src), (size_t)(op - dst));
        len = (size_t)(tag >> 2) + 1;
        off = (size_t)ip[0] | (size_t)ip[1] << 8;
        ip += 2;
        break;
    default:
        if ((size_t)(ie - ip) < 4)
            return corrupt(err, "copy offset runs past the input", (size_t)(tag_at - src), (size_t)(op - dst));
        len = (size_t)(tag >> 2) + 1;
        off = pq_load_le32(ip);
        ip += 4;
        break;
    }
    if (off == 0 || off > (size_t)(op - dst))
        return corrupt(err, off ? "copy reaches before the start of the output" : "copy with offset 0",
                       (size_t)(tag_at - src), (size_t)(op - dst));
    if (len > room)
        return corrupt(err, "copy runs past the declared length", (size_t)(tag_at - src), (size_t)(op - dst));
    if (room >= FAST_ROOM) {
        copy_fast(op, off, len);
    } else {
        const uint8_t *s = op - off;
        for (size_t i = 0; i < len; i++) op[i] = s[i];
    }
    *ipp = ip;
    *opp = op + len;
    return PQ_OK;
}

/* One element of the fast loop at *ipp, moved as one 16-byte word with no
 * branch on its kind; false (nothing done) for one the table does not
 * take, which the checked step then takes. The caller keeps ip below
 * ip_lim (21 input bytes left: a tag, 2 offset bytes read whatever the
 * kind, 16 literal bytes) and op below fast_lim (FAST_ROOM output bytes
 * left), and has written 16 bytes. */
static inline __attribute__((always_inline)) bool fast_step(const uint8_t **ipp, uint8_t **opp, const uint8_t *dst)
{
    const uint8_t *ip = *ipp;
    uint8_t *op = *opp;
    size_t tag = ip[0];
    fast_tag t = fast_tags[tag];
    size_t off = ((size_t)(ip[1] | ip[2] << 8) & t.mask) | t.off_hi;
    size_t written = (size_t)(op - dst);
    if (__builtin_expect(off - t.len > written - t.len || t.len > 16, 0)) {
        /* A copy of 17-64 bytes, or one that overlaps its own output (a
         * value repeated: offset 8 and 16-64 bytes in PLAIN int64
         * columns): checked against what is written, then moved as the
         * checked step moves it. The room is FAST_ROOM. */
        if (t.literal || off == 0 || off > written) return false;
        copy_fast(op, off, t.len);
    } else {
        move16(op, t.literal ? ip + 1 : op - off);
    }
    *opp = op + t.len;
    /* Input bytes after the tag: a literal's length, else the offset bytes
     * (the tag's low 2 bits). A conditional move, as the kinds alternate
     * in no order a branch predictor learns; computed from the tag rather
     * than kept in the table, which takes a load off the chain from one
     * tag to the next. */
    size_t adv = tag & 3, lit_len = (tag >> 2) + 1;
#if defined(__x86_64__) && defined(__GNUC__)
    __asm__("test %1, %1\n\tcmovz %2, %0" : "+r"(adv) : "r"(adv), "r"(lit_len) : "cc");
#else
    adv = adv ? adv : lit_len;
#endif
    *ipp = ip + adv + 1;
    return true;
}

/* How many fast steps may run from ip and op with no check of the limits:
 * a step reads at most 19 input bytes past ip (21 are left below ip_lim)
 * and moves ip at most 17 bytes, op at most 64 (FAST_ROOM are left below
 * fast_lim). */
static inline size_t fast_steps_left(const uint8_t *ip, const uint8_t *ip_lim, const uint8_t *op,
                                     const uint8_t *fast_lim)
{
    if (ip >= ip_lim || op >= fast_lim) return 0;
    size_t by_in = (size_t)(ip_lim - ip - 1) / 17 + 1, by_out = (size_t)(fast_lim - op - 1) / 64 + 1;
    return by_in < by_out ? by_in : by_out;
}

/* The fast loop: fast steps until one the table does not take or the
 * limits. A function of its own so that ip and op stay in registers (the
 * checked step takes their addresses). */
static __attribute__((noinline)) void fast_elements(const uint8_t **ipp, uint8_t **opp, const uint8_t *ip_lim,
                                                    const uint8_t *dst, const uint8_t *fast_lim)
{
    const uint8_t *ip = *ipp;
    uint8_t *op = *opp;
    for (size_t n; (n = fast_steps_left(ip, ip_lim, op, fast_lim)) != 0;)
        while (n--)
            if (!fast_step(&ip, &op, dst)) goto out;
out:
    *ipp = ip;
    *opp = op;
}

/* The preamble: the uncompressed length, a varint of at most 5 bytes
 * holding at most 2^32 - 1 (as libsnappy reads it). Its bytes, or 0 when
 * it is not one. */
static size_t read_preamble(const uint8_t *src, size_t src_len, uint64_t *declared)
{
    size_t at = src ? pq_uleb128(src, src_len, declared) : 0;
    return at == 0 || at > 5 || *declared > UINT32_MAX ? 0 : at;
}

pq_status pq_snappy_open(pq_snappy_reader *r, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                         pq_error *err)
{
    uint64_t declared = 0;
    size_t at = read_preamble(src, src_len, &declared);
    if (at == 0) return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "SNAPPY: invalid length preamble");
    if (declared != dst_len)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "SNAPPY: stream declares %zu bytes, page header says %zu",
                            (size_t)declared, dst_len);
    r->src = src;
    r->ip = src + at;
    r->ie = src + src_len;
    r->dst = dst;
    r->op = dst;
    r->oe = dst + dst_len;
    return PQ_OK;
}

/* Where reader r's fast loop stops: ip below *ip_lim (21 input bytes
 * left) and op below *fast_lim (FAST_ROOM output bytes left, and before
 * `stop`). */
static void fast_limits(const pq_snappy_reader *r, const uint8_t *stop, const uint8_t **ip_lim, uint8_t **fast_lim)
{
    size_t out = (size_t)(r->oe - r->dst);
    *fast_lim = out < FAST_ROOM ? r->dst : r->oe - FAST_ROOM + 1;
    if (stop < *fast_lim) *fast_lim = (uint8_t *)stop;
    *ip_lim = (size_t)(r->ie - r->src) < 21 ? r->src : r->ie - 20;
}

pq_status pq_snappy_read_to(pq_snappy_reader *r, size_t want, pq_error *err)
{
    const uint8_t *ip = r->ip, *const ie = r->ie, *const src = r->src;
    uint8_t *op = r->op, *const oe = r->oe, *const dst = r->dst;
    /* Elements stop once `want` bytes are out (at an element's end). */
    uint8_t *const stop = want < (size_t)(oe - dst) ? dst + want : oe;
    /* Words while FAST_ROOM output bytes are left (and op is before the
     * stop), the checked step for what the fast loop does not take. */
    const uint8_t *ip_lim;
    uint8_t *fast_lim;
    fast_limits(r, stop, &ip_lim, &fast_lim);
    while (ip < ip_lim && op < fast_lim) {
        if (op - dst >= 16) {
            fast_elements(&ip, &op, ip_lim, dst, fast_lim);
            if (ip >= ip_lim || op >= fast_lim) break;
        }
        pq_status st = element_checked(&ip, &op, src, ie, dst, oe, err);
        if (st != PQ_OK) return st;
    }
    /* A whole decode goes on to the input's end: an element past the
     * declared length is an error of its own. */
    while (ip < ie && (op < stop || stop == oe)) {
        pq_status st = element_checked(&ip, &op, src, ie, dst, oe, err);
        if (st != PQ_OK) return st;
    }
    r->ip = ip;
    r->op = op;
    if (ip == ie && op != oe)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "SNAPPY: decompressed %zu bytes, page header says %zu",
                            (size_t)(op - dst), (size_t)(oe - dst));
    return PQ_OK;
}

/* Two streams' fast loops run as one: an element of each in turn, until
 * either meets an element the table does not take or its limits. */
static __attribute__((noinline)) void fast_elements_two(pq_snappy_reader *a, const uint8_t *a_ip_lim,
                                                        const uint8_t *a_fast_lim, pq_snappy_reader *b,
                                                        const uint8_t *b_ip_lim, const uint8_t *b_fast_lim)
{
    const uint8_t *ia = a->ip, *ib = b->ip;
    uint8_t *oa = a->op, *ob = b->op;
    const uint8_t *da = a->dst, *db = b->dst;
    for (;;) {
        size_t n = fast_steps_left(ia, a_ip_lim, oa, a_fast_lim), nb = fast_steps_left(ib, b_ip_lim, ob, b_fast_lim);
        if (nb < n) n = nb;
        if (n == 0) break;
        while (n--)
            if (!fast_step(&ia, &oa, da) || !fast_step(&ib, &ob, db)) goto out;
    }
out:
    a->ip = ia;
    a->op = oa;
    b->ip = ib;
    b->op = ob;
}

/* One checked element of reader r, when it is within its fast limits. */
static pq_status checked_step(pq_snappy_reader *r, const uint8_t *ip_lim, const uint8_t *fast_lim, pq_error *err)
{
    if (r->ip >= ip_lim || r->op >= fast_lim) return PQ_OK;
    return element_checked(&r->ip, &r->op, r->src, r->ie, r->dst, r->oe, err);
}

pq_status pq_snappy_decompress_two(const uint8_t *const src[2], const size_t src_len[2], uint8_t *const dst[2],
                                   const size_t dst_len[2], pq_error *err)
{
    pq_snappy_reader r[2];
    const uint8_t *ip_lim[2];
    uint8_t *fast_lim[2];
    for (int i = 0; i < 2; i++) {
        pq_status st = pq_snappy_open(&r[i], src[i], src_len[i], dst[i], dst_len[i], err);
        if (st != PQ_OK) return st;
        fast_limits(&r[i], r[i].oe, &ip_lim[i], &fast_lim[i]);
    }
    /* Both in their fast loops: the two at once; the element that stopped
     * them (and one of the other's) by the checked step. */
    while (r[0].ip < ip_lim[0] && r[0].op < fast_lim[0] && r[1].ip < ip_lim[1] && r[1].op < fast_lim[1]) {
        if (r[0].op - r[0].dst >= 16 && r[1].op - r[1].dst >= 16)
            fast_elements_two(&r[0], ip_lim[0], fast_lim[0], &r[1], ip_lim[1], fast_lim[1]);
        pq_status st = checked_step(&r[0], ip_lim[0], fast_lim[0], err);
        if (st == PQ_OK) st = checked_step(&r[1], ip_lim[1], fast_lim[1], err);
        if (st != PQ_OK) return st;
    }
    /* The rest of each alone. */
    pq_status st = pq_snappy_read_to(&r[0], dst_len[0], err);
    return st == PQ_OK ? pq_snappy_read_to(&r[1], dst_len[1], err) : st;
}

pq_status pq_snappy_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, pq_error *err)
{
    pq_snappy_reader r;
    pq_status st = pq_snappy_open(&r, src, src_len, dst, dst_len, err);
    return st == PQ_OK ? pq_snappy_read_to(&r, dst_len, err) : st;
}

const uint8_t *pq_snappy_stored_literal(const uint8_t *src, size_t src_len, size_t dst_len)
{
    if (dst_len == 0) return NULL;
    uint64_t n = 0;
    size_t at = read_preamble(src, src_len, &n);
    if (at == 0 || n != dst_len || at >= src_len) return NULL;
    /* One literal: tag bits 00; length - 1 in the upper six bits, or, for
     * 60..63, in the next 1..4 bytes. */
    uint8_t tag = src[at++];
    if ((tag & 3) != 0) return NULL;
    uint64_t len = tag >> 2;
    if (len >= 60) {
        size_t k = (size_t)len - 59;
        if (k > src_len - at) return NULL;
        len = pq_load_le_n(src + at, (int)k);
        at += k;
    }
    len += 1;
    if (len != dst_len || src_len - at != dst_len) return NULL;
    return src + at;
}
