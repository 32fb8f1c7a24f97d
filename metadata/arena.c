/* madvise(MADV_HUGEPAGE) is a Linux extension outside POSIX. */
#define _DEFAULT_SOURCE
#include "metadata/arena.h"

#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

struct pq_arena_block {
    pq_arena_block *next;
    size_t size;
    /* data follows, 8-byte aligned */
};

#define BLOCK_HEADER ((sizeof(pq_arena_block) + 7u) & ~(size_t)7u)

/* Blocks this large go on 2 MiB-aligned memory with transparent huge pages
 * requested: decoding a wide footer writes tens of MB of fresh memory, and
 * on 4 KiB pages the page faults cost as much as the decoding. */
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_BLOCK_MIN ((size_t)32 << 20)

static pq_arena_block *block_alloc(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_BLOCK_MIN) {
        size_t rounded = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *p = aligned_alloc(HUGE_PAGE, rounded);
        if (p) {
            (void)madvise(p, rounded, MADV_HUGEPAGE); /* advice only: ignore failure */
            return p;
        }
    }
#endif
    return malloc(bytes);
}

void pq_arena_init(pq_arena *a, size_t first_block_size)
{
    a->cur = a->end = NULL;
    a->blocks = NULL;
    a->next_size = first_block_size < 1024 ? 1024 : first_block_size;
    a->total = 0;
    a->limit = 0;
    a->over_limit = false;
}

void pq_arena_free(pq_arena *a)
{
    pq_arena_block *b = a->blocks;
    while (b) {
        pq_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->cur = a->end = NULL;
    a->blocks = NULL;
    a->total = 0;
}

void *pq_arena_alloc_slow(pq_arena *a, size_t size)
{
    size_t want = a->next_size;
    if (want < size) want = size;
    if (want > SIZE_MAX - BLOCK_HEADER) return NULL;
    if (a->limit && a->total + BLOCK_HEADER + want > a->limit) {
        want = size; /* the doubling overshoots: try just what is asked */
        if (a->total + BLOCK_HEADER + want > a->limit) {
            a->over_limit = true;
            return NULL;
        }
    }
    pq_arena_block *b = block_alloc(BLOCK_HEADER + want);
    if (!b) return NULL;
    b->next = a->blocks;
    b->size = want;
    a->blocks = b;
    a->total += BLOCK_HEADER + want;
    /* Double the next block so a footer of any size needs O(log n) mallocs. */
    if (a->next_size < ((size_t)1 << 30)) a->next_size *= 2;
    uint8_t *data = (uint8_t *)b + BLOCK_HEADER;
    a->cur = data + size;
    a->end = data + want;
    return data;
}

char *pq_arena_strndup(pq_arena *a, const void *s, size_t len)
{
    if (len == SIZE_MAX) return NULL;
    char *p = pq_arena_alloc(a, len + 1);
    if (!p) return NULL;
    if (len) memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
