/*
 * compact_writer.h — writing Thrift compact-protocol bytes by hand, for the
 * tests that check decoders against bytes whose every value is known:
 * field header = id delta << 4 | type; i32/i64 as zigzag varints; list
 * header = size << 4 | element type (size 15 and a varint beyond 14).
 */
#ifndef PQ_TEST_COMPACT_WRITER_H
#define PQ_TEST_COMPACT_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct buf {
    uint8_t b[4096];
    size_t n;
} buf;

static inline void put(buf *o, uint8_t x)
{
    if (o->n < sizeof o->b) o->b[o->n++] = x;
}

static inline void varint(buf *o, uint64_t v)
{
    while (v >= 0x80) {
        put(o, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    put(o, (uint8_t)v);
}

static inline void zigzag(buf *o, int64_t v)
{
    varint(o, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

#endif
