#include "metadata/compact.h"

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

bool pq_compact_skip(pq_compact *c, int type, bool in_container, int depth)
{
    if (depth > PQ_COMPACT_MAX_DEPTH) return false;
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
    case PQ_WIRE_STRUCT: {
        int16_t id = 0;
        for (;;) {
            int ft = pq_compact_field(c, &id);
            if (c->bad) return false;
            if (ft == PQ_WIRE_STOP) break;
            if (!pq_compact_skip(c, ft, false, depth + 1)) return false;
        }
        break;
    }
    default:
        return false; /* not a compact type */
    }
    return !c->bad;
}
