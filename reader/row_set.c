/*
 * row_set.c — see row_set.h.
 */
#include "reader/row_set.h"

#include "kernels/bitcount.h"
#include "kernels/primitives.h"

#include <stdlib.h>
#include <string.h>

void pq_row_set_init(pq_row_set *s, uint64_t first, uint64_t count)
{
    memset(s, 0, sizeof *s);
    if (count) {
        s->one = (pq_row_span){first, count};
        s->n = 1;
        s->rows = count;
    }
}

void pq_row_set_free(pq_row_set *s)
{
    free(s->more);
    memset(s, 0, sizeof *s);
}

bool pq_row_set_add(pq_row_set *s, uint64_t first, uint64_t count)
{
    if (!count) return true;
    if (s->n) {
        pq_row_span *last = s->n > 1 ? &s->more[s->n - 1] : &s->one;
        if (first <= last->first + last->count) { /* touches the last run: grow it */
            uint64_t end = first + count;
            if (end > last->first + last->count) {
                s->rows += end - (last->first + last->count);
                last->count = end - last->first;
            }
            return true;
        }
    }
    if (s->n == 0) {
        s->one = (pq_row_span){first, count};
        s->n = 1;
        s->rows = count;
        return true;
    }
    if (s->n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        pq_row_span *v = realloc(s->more, cap * sizeof *v);
        if (!v) return false;
        if (!s->more) v[0] = s->one; /* leaving the inline span */
        s->more = v;
        s->cap = cap;
    } else if (s->n == 1) {
        s->more[0] = s->one;
    }
    s->more[s->n++] = (pq_row_span){first, count};
    s->rows += count;
    return true;
}

bool pq_row_set_contains(const pq_row_set *s, const pq_row_set *sub)
{
    const pq_row_span *a = pq_row_set_spans(s), *b = pq_row_set_spans(sub);
    size_t i = 0;
    for (size_t j = 0; j < sub->n; j++) {
        while (i < s->n && a[i].first + a[i].count <= b[j].first) i++;
        /* Spans are merged, so a run of `sub` lies inside one of `s` or not at all. */
        if (i == s->n || a[i].first > b[j].first || a[i].first + a[i].count < b[j].first + b[j].count)
            return false;
    }
    return true;
}

static inline bool bit(const uint8_t *v, uint64_t i)
{
    return (v[i >> 3] >> (i & 7)) & 1;
}

/* Whether any of bits [from, from + n) is set. */
static bool any_bit(const uint8_t *v, uint64_t from, uint64_t n)
{
    uint64_t i = from, end = from + n;
    for (; i < end && (i & 7); i++)
        if (bit(v, i)) return true;
    for (; i + 64 <= end; i += 64) { /* a sparse filter's bits: mostly zero words */
        uint64_t w;
        memcpy(&w, v + (i >> 3), 8);
        if (w) return true;
    }
    for (; i + 8 <= end; i += 8)
        if (v[i >> 3]) return true;
    for (; i < end; i++)
        if (bit(v, i)) return true;
    return false;
}

/* Skip the spans that end at or before row a. */
static void cursor_seek(const pq_row_span *sp, size_t n, uint64_t a, pq_row_cursor *cur)
{
    while (cur->span < n && sp[cur->span].first + sp[cur->span].count <= a) {
        cur->pos += sp[cur->span].count;
        cur->span++;
    }
}

bool pq_row_set_hits(const pq_row_set *s, const uint8_t *keep, uint64_t a, uint64_t b, pq_row_cursor *cur)
{
    const pq_row_span *sp = pq_row_set_spans(s);
    cursor_seek(sp, s->n, a, cur);
    uint64_t pos = cur->pos;
    for (size_t i = cur->span; i < s->n && sp[i].first < b; pos += sp[i].count, i++) {
        uint64_t x = sp[i].first > a ? sp[i].first : a;
        uint64_t y = sp[i].first + sp[i].count < b ? sp[i].first + sp[i].count : b;
        if (x >= y) continue;
        if (!keep || any_bit(keep, pos + (x - sp[i].first), y - x)) return true;
    }
    return false;
}

bool pq_row_set_add_overlap(pq_row_set *out, const pq_row_set *s, uint64_t a, uint64_t b, pq_row_cursor *cur)
{
    const pq_row_span *sp = pq_row_set_spans(s);
    cursor_seek(sp, s->n, a, cur);
    for (size_t i = cur->span; i < s->n && sp[i].first < b; i++) {
        uint64_t x = sp[i].first > a ? sp[i].first : a;
        uint64_t y = sp[i].first + sp[i].count < b ? sp[i].first + sp[i].count : b;
        if (x < y && !pq_row_set_add(out, x, y - x)) return false;
    }
    return true;
}

/* Copy bits src[from, from + n) to dst[to, to + n) (dst zeroed); returns
 * how many were set. */
static uint64_t copy_bits(uint8_t *dst, uint64_t to, const uint8_t *src, uint64_t from, uint64_t n)
{
    uint64_t set = 0;
    if (!src) { /* all of them */
        uint64_t i = to, end = to + n;
        for (; i < end && (i & 7); i++) dst[i >> 3] |= (uint8_t)(1u << (i & 7));
        if (i + 8 <= end) {
            memset(dst + (i >> 3), 0xff, (size_t)((end - i) >> 3));
            i += (end - i) & ~(uint64_t)7;
        }
        for (; i < end; i++) dst[i >> 3] |= (uint8_t)(1u << (i & 7));
        return n;
    }
    if (((from ^ to) & 7) == 0) { /* same bit phase: whole bytes in the middle */
        uint64_t k = 0;
        for (; k < n && ((from + k) & 7); k++)
            if (bit(src, from + k)) {
                dst[(to + k) >> 3] |= (uint8_t)(1u << ((to + k) & 7));
                set++;
            }
        if (k + 8 <= n) { /* whole bytes: copied, then counted 64 bits at a time */
            uint64_t whole = (n - k) & ~(uint64_t)7;
            memcpy(dst + ((to + k) >> 3), src + ((from + k) >> 3), (size_t)(whole >> 3));
            set += pq_bits_set_fast(src + ((from + k) >> 3), whole);
            k += whole;
        }
        for (; k < n; k++)
            if (bit(src, from + k)) {
                dst[(to + k) >> 3] |= (uint8_t)(1u << ((to + k) & 7));
                set++;
            }
        return set;
    }
    for (uint64_t k = 0; k < n; k++)
        if (bit(src, from + k)) {
            dst[(to + k) >> 3] |= (uint8_t)(1u << ((to + k) & 7));
            set++;
        }
    return set;
}

int64_t pq_row_set_map_bits(const pq_row_set *have, const pq_row_set *want, const uint8_t *keep, uint8_t *out)
{
    const pq_row_span *h = pq_row_set_spans(have), *w = pq_row_set_spans(want);
    memset(out, 0, (size_t)((have->rows + 7) / 8));
    size_t i = 0;
    uint64_t hbase = 0, wpos = 0, set = 0;
    for (size_t j = 0; j < want->n; wpos += w[j].count, j++) {
        uint64_t x = w[j].first, b = w[j].first + w[j].count;
        while (x < b) {
            while (i < have->n && h[i].first + h[i].count <= x) hbase += h[i++].count;
            if (i == have->n || h[i].first > x) { /* rows of `want` that `have` lacks */
                uint64_t y = i < have->n && h[i].first < b ? h[i].first : b;
                if (!keep || any_bit(keep, wpos + (x - w[j].first), y - x)) return -1;
                x = y;
                continue;
            }
            uint64_t y = h[i].first + h[i].count < b ? h[i].first + h[i].count : b;
            set += copy_bits(out, hbase + (x - h[i].first), keep, wpos + (x - w[j].first), y - x);
            x = y;
        }
    }
    return (int64_t)set;
}

uint64_t pq_bits_count(const uint8_t *keep, uint64_t n)
{
    return pq_bits_set_fast(keep, n);
}

bool pq_row_set_copy(pq_row_set *dst, const pq_row_set *src)
{
    pq_row_set_init(dst, 0, 0);
    const pq_row_span *sp = pq_row_set_spans(src);
    for (size_t i = 0; i < src->n; i++)
        if (!pq_row_set_add(dst, sp[i].first, sp[i].count)) {
            pq_row_set_free(dst);
            return false;
        }
    return true;
}
