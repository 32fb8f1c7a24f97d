/*
 * buffer_pool.h — large decode buffers kept for the next decode.
 *
 * A row group decodes into fresh buffers of megabytes (values, offsets,
 * string bytes, the decompressed page). Freed, glibc hands blocks that
 * large back to the kernel, and the next row group's buffers fault their
 * pages in again, each zeroed by the kernel: reading a lineitem file one
 * row group at a time spent a third of its time there. Buffers of
 * PQ_POOL_MIN_BYTES or more released by the decode or by an Arrow array
 * are kept instead, up to a process-wide byte limit
 * (pq_buffer_pool_set_limit), and the next decode takes them. A block kept
 * unused for PQ_POOL_DECAY_NS is freed by the next give or take. The
 * buffers are plain malloc blocks: any of them may still be passed to
 * free() or realloc(); pq_pool_give() is only the way to keep them.
 */
#ifndef PQ_PAGES_BUFFER_POOL_H
#define PQ_PAGES_BUFFER_POOL_H

#include <stddef.h>
#include <stdint.h>

/* Smaller blocks stay in malloc's own free lists: nothing to gain. */
#define PQ_POOL_MIN_BYTES ((size_t)128 << 10)

/* The size to allocate for a buffer of `bytes`: pool-sized buffers are
 * rounded up to a multiple of PQ_POOL_GRAIN, so that buffers a few bytes
 * apart (one column's row groups, or a file's decimal and view columns of
 * the same rows) become one size and any kept one fits the next request;
 * unrounded, best fit among hundreds of near-equal blocks missed often
 * enough that a warm whole-file read faulted in tens of MB again. */
#define PQ_POOL_GRAIN ((size_t)64 << 10)
static inline size_t pq_pool_round(size_t bytes)
{
    if (bytes < PQ_POOL_MIN_BYTES / 2 || bytes > SIZE_MAX - PQ_POOL_GRAIN) return bytes;
    return (bytes + PQ_POOL_GRAIN - 1) & ~(PQ_POOL_GRAIN - 1);
}

/* A kept block of at least `need` and at most `max` usable bytes, or NULL
 * (then allocate as usual); *cap gets its usable size. Close to best fit
 * (see buffer_pool.c). */
void *pq_pool_take(size_t need, size_t max, size_t *cap);

/* `bytes` (at least 1; pq_pool_round applied) from a kept block of at
 * most a quarter more when one fits, else from malloc, after the oldest
 * kept blocks are freed (`bytes` of them, or all: blocks no request fits
 * do not pile up beside fresh ones); NULL when out of memory. */
void *pq_pool_alloc(size_t bytes);

/* Keep block p (from malloc, calloc or realloc) for a later take, or free
 * it when it is small or the pool is full. NULL is ignored. */
void pq_pool_give(void *p);

/* How long a block may stay kept unused: 10 s, jemalloc's default decay
 * time for dirty pages. */
#define PQ_POOL_DECAY_NS (10ull * 1000000000ull)

/* Change that time (tests); blocks already older are freed now. */
void pq_pool_set_decay_ns(uint64_t ns);

#endif
