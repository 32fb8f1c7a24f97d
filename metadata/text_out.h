/*
 * text_out.h — writing text into a caller's fixed buffer with snprintf's
 * contract: never more than `cap` bytes, always NUL-terminated (cap > 0), and
 * the length the whole text needs is returned so callers can size a retry.
 * Shared by the formatters of names.c and stat_format.c.
 */
#ifndef PQ_TEXT_OUT_H
#define PQ_TEXT_OUT_H

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct out {
    char *buf;
    size_t cap;
    size_t len; /* bytes needed so far, excluding the NUL */
} out;

static inline void put_mem(out *o, const void *s, size_t n)
{
    if (o->len < o->cap) {
        size_t room = o->cap - 1 - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

static inline void put(out *o, const char *s)
{
    put_mem(o, s, strlen(s));
}

static inline void put_ch(out *o, char c)
{
    put_mem(o, &c, 1);
}

/* `v` in decimal, zero-padded to at least `width` digits. */
static inline void put_u64(out *o, uint64_t v, int width)
{
    char tmp[24];
    snprintf(tmp, sizeof tmp, "%0*" PRIu64, width, v);
    put(o, tmp);
}

static inline void put_i64(out *o, int64_t v)
{
    if (v < 0) {
        put_ch(o, '-');
        put_u64(o, (uint64_t)0 - (uint64_t)v, 1);
    } else {
        put_u64(o, (uint64_t)v, 1);
    }
}

/* NUL-terminate and return the length the text needs. */
static inline size_t finish(out *o)
{
    if (o->cap) o->buf[o->len < o->cap ? o->len : o->cap - 1] = '\0';
    return o->len;
}

#endif
