#include "metadata/compact.h"

#include <string.h>

uint64_t pq_compact_uvarint_tail(pq_compact *c)
{
    const uint8_t *p = c->p;
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (p >= c->end) break;
        uint8_t b = *p++;
        if (shift == 63 && b > 1) break; /* more than 64 bits */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            c->p = p;
            return v;
        }
    }
    c->bad = true;
    return 0;
}

/* Skip a varint without assembling its value. (A branch-free 8-byte
 * load-and-count version measured 1.5x slower here: most varints in footers
 * are one byte, which the loop predicts perfectly.) */
static inline void skip_varint(pq_compact *c)
{
    const uint8_t *p = c->p;
    const uint8_t *stop = c->end - p > 10 ? p + 10 : c->end;
    while (p < stop && (*p & 0x80)) p++;
    if (p == stop) {
        c->bad = true;
        return;
    }
    c->p = p + 1;
}

static inline void skip_bytes(pq_compact *c, uint64_t n)
{
    if (n > pq_compact_remaining(c)) c->bad = true;
    else c->p += n;
}

/* A struct's fields in one loop; only containers recurse. This is the path
 * a projected parse takes over every column chunk it leaves out. */
static bool skip_struct(pq_compact *c, int depth)
{
    if (depth > PQ_COMPACT_MAX_DEPTH) {
        c->too_deep = true;
        return false;
    }
    for (;;) {
        if (c->p >= c->end) return false;
        uint8_t b = *c->p++;
        int type = b & 0x0f;
        if (type == PQ_WIRE_STOP) return true;
        if ((b >> 4) == 0) skip_varint(c); /* long-form field id */
        /* Conditional branches by frequency rather than a switch: a jump
         * table's indirect branch mispredicts on footers' mixed field types. */
        if (type >= PQ_WIRE_I16 && type <= PQ_WIRE_I64) {
            skip_varint(c);
        } else if (type == PQ_WIRE_BINARY) {
            uint64_t n = pq_compact_uvarint(c);
            if (!c->bad) skip_bytes(c, n);
        } else if (type == PQ_WIRE_BOOL_TRUE || type == PQ_WIRE_BOOL_FALSE) {
            /* the value is the type */
        } else if (type == PQ_WIRE_DOUBLE) {
            skip_bytes(c, 8);
        } else if (type == PQ_WIRE_BYTE) {
            skip_bytes(c, 1);
        } else if (type == PQ_WIRE_LIST) {
            /* Lists of varints and strings (encodings, paths, histograms)
             * are skipped here without a call per element. */
            int et;
            uint32_t n = pq_compact_list(c, &et);
            if (et >= PQ_WIRE_I16 && et <= PQ_WIRE_I64) {
                for (uint32_t k = 0; k < n && !c->bad; k++) skip_varint(c);
            } else if (et == PQ_WIRE_BINARY) {
                for (uint32_t k = 0; k < n && !c->bad; k++) {
                    uint64_t len = pq_compact_uvarint(c);
                    if (!c->bad) skip_bytes(c, len);
                }
            } else {
                for (uint32_t k = 0; k < n && !c->bad; k++)
                    if (!pq_compact_skip(c, et, true, depth + 1)) return false;
            }
        } else if (!pq_compact_skip(c, type, false, depth + 1)) {
            return false;
        }
        if (c->bad) return false;
    }
}

bool pq_compact_skip(pq_compact *c, int type, bool in_container, int depth)
{
    if (depth > PQ_COMPACT_MAX_DEPTH) {
        c->too_deep = true;
        return false;
    }
    switch (type) {
    case PQ_WIRE_BOOL_TRUE:
    case PQ_WIRE_BOOL_FALSE:
        if (in_container) (void)pq_compact_byte(c);
        break;
    case PQ_WIRE_BYTE:
        (void)pq_compact_byte(c);
        break;
    case PQ_WIRE_I16:
    case PQ_WIRE_I32:
    case PQ_WIRE_I64:
        (void)pq_compact_uvarint(c);
        break;
    case PQ_WIRE_DOUBLE:
        (void)pq_compact_double(c);
        break;
    case PQ_WIRE_BINARY: {
        uint32_t len;
        (void)pq_compact_binary(c, &len);
        break;
    }
    case PQ_WIRE_LIST:
    case PQ_WIRE_SET: {
        int et;
        uint32_t n = pq_compact_list(c, &et);
        for (uint32_t i = 0; i < n && !c->bad; i++)
            if (!pq_compact_skip(c, et, true, depth + 1)) return false;
        break;
    }
    case PQ_WIRE_MAP: {
        uint64_t n = pq_compact_uvarint(c);
        if (c->bad || n > pq_compact_remaining(c)) return false;
        if (n == 0) break;
        int kv = (uint8_t)pq_compact_byte(c);
        for (uint64_t i = 0; i < n && !c->bad; i++) {
            if (!pq_compact_skip(c, kv >> 4, true, depth + 1)) return false;
            if (!pq_compact_skip(c, kv & 0x0f, true, depth + 1)) return false;
        }
        break;
    }
    case PQ_WIRE_STRUCT:
        return skip_struct(c, depth);
    default:
        return false; /* not a compact type */
    }
    return !c->bad;
}
