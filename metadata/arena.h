/*
 * arena.h — a bump allocator: one per pq_metadata, freed all at once.
 *
 * The footer decoder allocates every struct and array from here, so decoding
 * a footer costs a handful of mallocs however many column chunks it has.
 */
#ifndef PQ_ARENA_H
#define PQ_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct pq_arena_block pq_arena_block;

typedef struct pq_arena {
    uint8_t *cur;           /* next free byte of the current block */
    uint8_t *end;           /* end of the current block */
    pq_arena_block *blocks; /* newest first */
    size_t next_size;       /* size of the next block to allocate */
    size_t total;           /* bytes malloc'd for blocks */
    size_t limit;           /* cap on total; 0 = none */
    bool over_limit;        /* an allocation failed because of `limit` */
} pq_arena;

void pq_arena_init(pq_arena *a, size_t first_block_size);

/* Cap the bytes the arena may malloc; allocations past it return NULL and set
 * over_limit, so callers can tell a limit from a failed malloc. */
static inline void pq_arena_set_limit(pq_arena *a, size_t limit)
{
    a->limit = limit;
}
void pq_arena_free(pq_arena *a);

/* Slow path: a new block. NULL on malloc failure. */
void *pq_arena_alloc_slow(pq_arena *a, size_t size);

/* 8-byte aligned, uninitialised. NULL on failure (size 0 gives a valid pointer). */
static inline void *pq_arena_alloc(pq_arena *a, size_t size)
{
    size = (size + 7u) & ~(size_t)7u;
    if ((size_t)(a->end - a->cur) >= size) {
        void *p = a->cur;
        a->cur += size;
        return p;
    }
    return pq_arena_alloc_slow(a, size);
}

static inline void *pq_arena_calloc(pq_arena *a, size_t count, size_t elem)
{
    if (elem && count > SIZE_MAX / elem) return NULL;
    void *p = pq_arena_alloc(a, count * elem);
    if (p) memset(p, 0, count * elem);
    return p;
}

/* Give back everything allocated since a mark, provided it all came from
 * the block the mark was taken in; otherwise keep it. Lets a decoder use the
 * arena as scratch space for data it then throws away. */
typedef struct pq_arena_mark {
    pq_arena_block *block;
    uint8_t *cur;
} pq_arena_mark;

static inline pq_arena_mark pq_arena_get_mark(const pq_arena *a)
{
    pq_arena_mark m = {a->blocks, a->cur};
    return m;
}

static inline void pq_arena_rewind(pq_arena *a, pq_arena_mark m)
{
    if (m.block && m.block == a->blocks) a->cur = m.cur;
}

/* NUL-terminated copy of `len` bytes. */
char *pq_arena_strndup(pq_arena *a, const void *s, size_t len);

#endif
