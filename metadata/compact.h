/*
 * compact.h — primitives of the Thrift compact protocol, for the
 * hand-written decoders: the footer, page headers, column and offset
 * indexes, bloom filter headers.
 *
 * A pq_compact cursor walks a byte span. Every read is bounds-checked; a
 * failed read sets `bad` and returns 0, so decoders can read a run of fields
 * and test `bad` once. Nothing here allocates.
 *
 * Wire facts (Thrift compact protocol): a field header byte carries the field
 * id delta in its high nibble (0 = the id follows as a zigzag varint) and the
 * type in the low nibble; integers are zigzag varints, doubles 8 bytes little
 * endian, binaries a varint length and the bytes; a list header carries a
 * size nibble (15 = the size follows as a varint) and the element type; bools
 * live in the field type (1 true, 2 false) but take a byte inside lists.
 */
#ifndef PQ_COMPACT_H
#define PQ_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum {
    PQ_WIRE_STOP = 0,
    PQ_WIRE_BOOL_TRUE = 1,
    PQ_WIRE_BOOL_FALSE = 2,
    PQ_WIRE_BYTE = 3,
    PQ_WIRE_I16 = 4,
    PQ_WIRE_I32 = 5,
    PQ_WIRE_I64 = 6,
    PQ_WIRE_DOUBLE = 7,
    PQ_WIRE_BINARY = 8,
    PQ_WIRE_LIST = 9,
    PQ_WIRE_SET = 10,
    PQ_WIRE_MAP = 11,
    PQ_WIRE_STRUCT = 12
};

/* The primitives run once per field: they must inline even where the
 * compiler's size heuristics would rather not (it outlined them at -O2). */
#if defined(__OPTIMIZE__) && !defined(PQ_NO_FORCE_INLINE)
#define PQ_HOT_INLINE static inline __attribute__((always_inline))
#else
#define PQ_HOT_INLINE static inline
#endif

/* Deepest struct/container nesting accepted when skipping unknown fields. */
#define PQ_COMPACT_MAX_DEPTH 64

typedef struct pq_compact {
    const uint8_t *p;
    const uint8_t *end;
    bool bad;        /* a read ran past the end or a varint was malformed */
    bool too_deep;   /* a skip met nesting deeper than PQ_COMPACT_MAX_DEPTH */
} pq_compact;

PQ_HOT_INLINE void pq_compact_init(pq_compact *c, const uint8_t *buf, size_t len)
{
    c->p = buf;
    c->end = buf + len;
    c->bad = false;
    c->too_deep = false;
}

PQ_HOT_INLINE size_t pq_compact_remaining(const pq_compact *c)
{
    return (size_t)(c->end - c->p);
}

/* Slow path of pq_compact_uvarint: near the end of the span. */
uint64_t pq_compact_uvarint_tail(pq_compact *c);

/* Unsigned LEB128 varint of at most 10 bytes. Away from the end of the span
 * (the common case) it runs unrolled with no per-byte bounds checks. */
PQ_HOT_INLINE uint64_t pq_compact_uvarint(pq_compact *c)
{
    const uint8_t *p = c->p;
    if (__builtin_expect(c->end - p >= 10, 1)) {
        uint64_t b = p[0], v = b;
        if (b < 0x80) { c->p = p + 1; return v; }
        v &= 0x7f;
        b = p[1]; v |= (b & 0x7f) << 7;
        if (b < 0x80) { c->p = p + 2; return v; }
        b = p[2]; v |= (b & 0x7f) << 14;
        if (b < 0x80) { c->p = p + 3; return v; }
        b = p[3]; v |= (b & 0x7f) << 21;
        if (b < 0x80) { c->p = p + 4; return v; }
        b = p[4]; v |= (b & 0x7f) << 28;
        if (b < 0x80) { c->p = p + 5; return v; }
        b = p[5]; v |= (b & 0x7f) << 35;
        if (b < 0x80) { c->p = p + 6; return v; }
        b = p[6]; v |= (b & 0x7f) << 42;
        if (b < 0x80) { c->p = p + 7; return v; }
        b = p[7]; v |= (b & 0x7f) << 49;
        if (b < 0x80) { c->p = p + 8; return v; }
        b = p[8]; v |= (b & 0x7f) << 56;
        if (b < 0x80) { c->p = p + 9; return v; }
        b = p[9];
        if (b <= 1) { c->p = p + 10; return v | b << 63; }
        c->bad = true; /* longer than 10 bytes or more than 64 bits */
        return 0;
    }
    return pq_compact_uvarint_tail(c);
}

PQ_HOT_INLINE int64_t pq_compact_zigzag64(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

PQ_HOT_INLINE int64_t pq_compact_i64(pq_compact *c)
{
    return pq_compact_zigzag64(pq_compact_uvarint(c));
}

/* i32 (and i16, i8 on the wire as varints): out-of-range values are malformed. */
PQ_HOT_INLINE int32_t pq_compact_i32(pq_compact *c)
{
    uint64_t u = pq_compact_uvarint(c);
    if (u > 0xffffffffu) {
        c->bad = true;
        return 0;
    }
    return (int32_t)pq_compact_zigzag64(u);
}

PQ_HOT_INLINE int16_t pq_compact_i16(pq_compact *c)
{
    uint64_t u = pq_compact_uvarint(c);
    if (u > 0xffffu) {
        c->bad = true;
        return 0;
    }
    return (int16_t)pq_compact_zigzag64(u);
}

PQ_HOT_INLINE int8_t pq_compact_byte(pq_compact *c)
{
    if (c->p >= c->end) {
        c->bad = true;
        return 0;
    }
    return (int8_t)*c->p++;
}

PQ_HOT_INLINE double pq_compact_double(pq_compact *c)
{
    double d = 0;
    if (pq_compact_remaining(c) < 8) {
        c->bad = true;
        return 0;
    }
    /* The wire is little endian, like every target we build for. */
    memcpy(&d, c->p, 8);
    c->p += 8;
    return d;
}

/* A binary/string: returns a pointer into the span and its length. */
PQ_HOT_INLINE const uint8_t *pq_compact_binary(pq_compact *c, uint32_t *len)
{
    uint64_t n = pq_compact_uvarint(c);
    if (c->bad || n > pq_compact_remaining(c)) {
        c->bad = true;
        *len = 0;
        return NULL;
    }
    const uint8_t *s = c->p;
    c->p += n;
    *len = (uint32_t)n;
    return s;
}

/* Field header: returns the compact type (PQ_WIRE_STOP at the end of a struct)
 * and updates *id from the previous id. */
PQ_HOT_INLINE int pq_compact_field(pq_compact *c, int16_t *id)
{
    if (c->p >= c->end) {
        c->bad = true;
        return PQ_WIRE_STOP;
    }
    uint8_t b = *c->p++;
    int type = b & 0x0f;
    if (type == PQ_WIRE_STOP) return PQ_WIRE_STOP;
    unsigned delta = b >> 4;
    if (delta) *id = (int16_t)(*id + (int16_t)delta);
    else *id = pq_compact_i16(c);
    return type;
}

/* List/set header: returns the element count; *elem_type gets the type.
 * A count larger than the bytes left is malformed: every element takes at
 * least one byte, so this also bounds what a decoder allocates. */
PQ_HOT_INLINE uint32_t pq_compact_list(pq_compact *c, int *elem_type)
{
    if (c->p >= c->end) {
        c->bad = true;
        *elem_type = 0;
        return 0;
    }
    uint8_t b = *c->p++;
    *elem_type = b & 0x0f;
    uint64_t n = b >> 4;
    if (n == 15) n = pq_compact_uvarint(c);
    if (c->bad || n > pq_compact_remaining(c)) {
        c->bad = true;
        return 0;
    }
    return (uint32_t)n;
}

/* In-order fast path for hand-written struct decoders. Writers emit a
 * struct's fields in id order, each with a one-byte header (id delta << 4 |
 * wire type). Testing for the header the next expected field would have is a
 * well-predicted compare, where a generic loop's switch on the id is an
 * indirect jump that mispredicts. Anything unexpected (absent, out of order,
 * unknown) falls through to the decoder's generic loop, which continues from
 * `id`. */
PQ_HOT_INLINE bool pq_compact_next_is(const pq_compact *c, int16_t id, int fid, int wt)
{
    return c->p < c->end && fid > id && fid - id <= 15 &&
           *c->p == (uint8_t)((fid - id) << 4 | wt);
}

/* Same for a bool field, whose value is its wire type: returns it, or 0. */
PQ_HOT_INLINE int pq_compact_next_bool(const pq_compact *c, int16_t id, int fid)
{
    if (c->p >= c->end || fid <= id || fid - id > 15) return 0;
    uint8_t b = *c->p;
    int wt = b & 0x0f;
    return (b >> 4) == fid - id && (wt == PQ_WIRE_BOOL_TRUE || wt == PQ_WIRE_BOOL_FALSE) ? wt : 0;
}

/* Decode field `fid` with FIELD(fid, wt) when it comes next; uses the
 * decoder's locals `c` (cursor) and `id` (last field id), returns -1 when
 * FIELD does. */
#define PQ_IN_ORDER(FIELD, fid, wt)                                                            \
    if (pq_compact_next_is(c, id, fid, wt)) {                                                  \
        c->p++;                                                                                \
        id = fid;                                                                              \
        if (FIELD(fid, wt)) return -1;                                                         \
    }

#define PQ_IN_ORDER_BOOL(FIELD, fid)                                                           \
    {                                                                                          \
        int wt_ = pq_compact_next_bool(c, id, fid);                                            \
        if (wt_) {                                                                             \
            c->p++;                                                                            \
            id = fid;                                                                          \
            if (FIELD(fid, wt_)) return -1;                                                    \
        }                                                                                      \
    }

/* Skip one value of `type`; `in_container` because bools take a byte there.
 * Returns false when malformed or nested deeper than PQ_COMPACT_MAX_DEPTH. */
bool pq_compact_skip(pq_compact *c, int type, bool in_container, int depth);

#endif
