/*
 * buffer_pool.c — see buffer_pool.h.
 *
 * Kept blocks sit in size classes (8 per doubling of size, by their usable
 * size rounded down), each a list, and on one age list, newest first, all
 * under one mutex. The links live in the kept block's own first bytes: a
 * kept block is ours until taken, and whoever takes it writes it anyway.
 *
 * Take is close to best fit: the smallest of the first few blocks of
 * need's own class that fit, else the newest block of the first non-empty
 * class above it (within 12.5% of the best).
 * Blocks kept longer than the decay time are freed by the next give or
 * take, oldest first, as jemalloc returns its dirty pages: memory a burst
 * of reads left behind goes back to the system once reading stops. An
 * allocation that finds nothing to take frees the oldest blocks, as many
 * bytes as it asked for: what the pool keeps never grows beside what is
 * allocated anew.
 */
#include "pages/buffer_pool.h"

#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "pq_arrow.h"

#define CLASS_BITS 3                          /* 8 classes per doubling */
#define MIN_SHIFT 16                          /* the first class starts at 64 KiB */
#define NCLASSES ((64 - MIN_SHIFT) << CLASS_BITS)

/* A kept block's header, in its own first bytes. */
typedef struct kept {
    struct kept *class_prev, *class_next;
    struct kept *age_prev, *age_next;         /* age_next: the next older block */
    size_t cap;
    uint64_t given_ns;
    uint32_t cls;
} kept;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static kept *classes[NCLASSES];
static kept *newest, *oldest;
static uint64_t pool_bytes;
static uint64_t pool_limit;
static bool limit_set;
static uint64_t decay_ns = PQ_POOL_DECAY_NS;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* An eighth of the machine's memory, from 64 MiB to 4 GiB: room for a
 * whole file's decoded arrays (a TPC-H lineitem SF1 read makes about
 * 1 GB) to be written again by the next read without the kernel faulting
 * in and zeroing every page anew, as jemalloc and mimalloc (the peers'
 * allocators) keep freed pages for their decay time. */
uint64_t pq_buffer_pool_default_limit(void)
{
    static _Atomic uint64_t cached;
    uint64_t v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v) return v;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t lo = (uint64_t)64 << 20, hi = (uint64_t)4 << 30;
    v = pages > 0 && page > 0 ? (uint64_t)pages / 8 * (uint64_t)page : lo;
    v = v < lo ? lo : v > hi ? hi : v;
    atomic_store_explicit(&cached, v, memory_order_relaxed);
    return v;
}

/* Under the lock. */
static uint64_t limit_now(void)
{
    if (!limit_set) {
        pool_limit = pq_buffer_pool_default_limit();
        limit_set = true;
    }
    return pool_limit;
}

/* The class of a size: floor(log2) and the next CLASS_BITS bits. */
static uint32_t class_of(size_t n)
{
    int lg = 63 - __builtin_clzll((unsigned long long)n);
    if (lg < MIN_SHIFT) return 0;
    uint32_t sub = (uint32_t)((n >> (lg - CLASS_BITS)) & ((1u << CLASS_BITS) - 1));
    return ((uint32_t)(lg - MIN_SHIFT) << CLASS_BITS) | sub;
}

static void unlink_block(kept *k)
{
    if (k->class_prev) k->class_prev->class_next = k->class_next;
    else classes[k->cls] = k->class_next;
    if (k->class_next) k->class_next->class_prev = k->class_prev;
    if (k->age_prev) k->age_prev->age_next = k->age_next;
    else newest = k->age_next;
    if (k->age_next) k->age_next->age_prev = k->age_prev;
    else oldest = k->age_prev;
    pool_bytes -= k->cap;
}

/* The oldest block unlinked onto *drop (through age_next); its size. */
static size_t drop_oldest(kept **drop)
{
    kept *k = oldest;
    size_t cap = k->cap;
    unlink_block(k);
    k->age_next = *drop;
    *drop = k;
    return cap;
}

/* Blocks past their decay time, unlinked onto *drop. */
static void expire(uint64_t now, kept **drop)
{
    while (oldest && now - oldest->given_ns > decay_ns) drop_oldest(drop);
}

static void free_list(kept *k)
{
    while (k) {
        kept *next = k->age_next;
        free(k);
        k = next;
    }
}

void *pq_pool_take(size_t need, size_t max, size_t *cap)
{
    if (need < PQ_POOL_MIN_BYTES / 2 || max < need) return NULL;
    kept *drop = NULL, *best = NULL;
    pthread_mutex_lock(&pool_lock);
    expire(now_ns(), &drop);
    /* need's own class holds blocks a little smaller and a little larger:
     * the best of its first few; every block of a class above fits. */
    uint32_t c0 = class_of(need);
    int probes = 0;
    for (kept *k = classes[c0]; k && probes < 16; k = k->class_next, probes++)
        if (k->cap >= need && k->cap <= max && (!best || k->cap < best->cap)) best = k;
    for (uint32_t c = c0 + 1; c < NCLASSES && !best; c++)
        if (classes[c] && classes[c]->cap <= max) best = classes[c];
    size_t got = 0;
    if (best) {
        got = best->cap;
        unlink_block(best);
    }
    pthread_mutex_unlock(&pool_lock);
    free_list(drop);
    if (best) *cap = got;
    return best;
}

/* The oldest kept blocks freed, at least `bytes` of them (or all). */
static void free_oldest(size_t bytes)
{
    kept *drop = NULL;
    pthread_mutex_lock(&pool_lock);
    for (size_t freed = 0; oldest && freed < bytes;) freed += drop_oldest(&drop);
    pthread_mutex_unlock(&pool_lock);
    free_list(drop);
}

void *pq_pool_alloc(size_t bytes)
{
    bytes = pq_pool_round(bytes);
    size_t cap;
    void *p = pq_pool_take(bytes, bytes + bytes / 4, &cap);
    if (p) return p;
    /* A miss: as much of what is kept goes first, so that blocks no
     * request fits do not pile up beside fresh ones (the filter stage of
     * a read of lineitem SF10 left 2.5 GB kept that no decode took). */
    if (bytes >= PQ_POOL_MIN_BYTES / 2) free_oldest(bytes);
    return malloc(bytes ? bytes : 1);
}

void pq_pool_give(void *p)
{
    if (!p) return;
    size_t cap = malloc_usable_size(p);
    if (cap < PQ_POOL_MIN_BYTES) {
        free(p);
        return;
    }
    kept *drop = NULL, *k = p;
    uint64_t now = now_ns();
    pthread_mutex_lock(&pool_lock);
    expire(now, &drop);
    bool keep = pool_bytes + cap <= limit_now();
    if (keep) {
        *k = (kept){.cap = cap, .given_ns = now, .cls = class_of(cap)};
        k->class_next = classes[k->cls];
        if (k->class_next) k->class_next->class_prev = k;
        classes[k->cls] = k;
        k->age_next = newest;
        if (newest) newest->age_prev = k;
        else oldest = k;
        newest = k;
        pool_bytes += cap;
    }
    pthread_mutex_unlock(&pool_lock);
    free_list(drop);
    if (!keep) free(p);
}

void pq_buffer_pool_set_limit(uint64_t bytes)
{
    kept *drop = NULL;
    pthread_mutex_lock(&pool_lock);
    pool_limit = bytes == PQ_BUFFER_POOL_DEFAULT ? pq_buffer_pool_default_limit() : bytes;
    limit_set = true;
    /* Over the new limit: free the largest blocks first. */
    while (pool_bytes > pool_limit) {
        kept *largest = NULL;
        for (int c = NCLASSES - 1; c >= 0 && !largest; c--)
            for (kept *k = classes[c]; k; k = k->class_next)
                if (!largest || k->cap > largest->cap) largest = k;
        unlink_block(largest);
        largest->age_next = drop;
        drop = largest;
    }
    pthread_mutex_unlock(&pool_lock);
    free_list(drop);
}

uint64_t pq_buffer_pool_bytes(void)
{
    pthread_mutex_lock(&pool_lock);
    uint64_t b = pool_bytes;
    pthread_mutex_unlock(&pool_lock);
    return b;
}

void pq_pool_set_decay_ns(uint64_t ns)
{
    kept *drop = NULL;
    pthread_mutex_lock(&pool_lock);
    decay_ns = ns;
    expire(now_ns(), &drop);
    pthread_mutex_unlock(&pool_lock);
    free_list(drop);
}
