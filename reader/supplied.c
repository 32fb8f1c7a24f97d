#include "reader/supplied.h"

#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "pages/buffer_pool.h"

void pq_supplied_init(pq_supplied *s)
{
    s->ranges = NULL;
    s->count = s->cap = 0;
}

pq_shared_bytes *pq_shared_bytes_retain(pq_shared_bytes *b)
{
    if (b) atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
    return b;
}

void pq_shared_bytes_release(pq_shared_bytes *b)
{
    if (!b || atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1) return;
    pq_pool_give(b->data); /* fetched ranges are megabytes: the next fetch reuses their pages */
    free(b);
}

void pq_supplied_free(pq_supplied *s)
{
    for (size_t i = 0; i < s->count; i++) pq_shared_bytes_release(s->ranges[i].block);
    free(s->ranges);
    pq_supplied_init(s);
}

pq_status pq_supplied_adopt(pq_supplied *s, uint64_t offset, uint8_t *data, size_t len, pq_error *err)
{
    pq_shared_bytes *b = malloc(sizeof *b);
    if (!b) {
        free(data);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    atomic_init(&b->refs, 1);
    b->data = data;
    b->len = len;
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        pq_supplied_range *grown = realloc(s->ranges, cap * sizeof *grown);
        if (!grown) {
            pq_shared_bytes_release(b);
            return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        }
        s->ranges = grown;
        s->cap = cap;
    }
    s->ranges[s->count++] = (pq_supplied_range){offset, len, b};
    return PQ_OK;
}

pq_status pq_supplied_add(pq_supplied *s, uint64_t offset, const void *data, size_t len,
                          pq_error *err)
{
    uint8_t *copy = pq_pool_alloc(len);
    if (!copy) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory copying %zu bytes", len);
    if (len) memcpy(copy, data, len);
    return pq_supplied_adopt(s, offset, copy, len, err);
}

static const pq_supplied_range *find(const pq_supplied *s, uint64_t offset, uint64_t len)
{
    /* Newest first: a caller re-supplying a range means the newer bytes. */
    for (size_t i = s->count; i-- > 0;) {
        const pq_supplied_range *r = &s->ranges[i];
        if (offset >= r->offset && offset - r->offset <= r->len && len <= r->len - (offset - r->offset))
            return r;
    }
    return NULL;
}

bool pq_supplied_covers(const pq_supplied *s, uint64_t offset, uint64_t len)
{
    return find(s, offset, len) != NULL;
}

bool pq_supplied_copy(const pq_supplied *s, uint64_t offset, size_t len, void *dst)
{
    const pq_supplied_range *r = find(s, offset, len);
    if (!r) return false;
    if (len) memcpy(dst, r->block->data + (offset - r->offset), len);
    return true;
}

const uint8_t *pq_supplied_borrow(const pq_supplied *s, uint64_t offset, size_t len, pq_shared_bytes **hold)
{
    const pq_supplied_range *r = find(s, offset, len);
    if (!r) return NULL;
    *hold = pq_shared_bytes_retain(r->block);
    return r->block->data + (offset - r->offset);
}
