/*
 * buffer_pool.c — see buffer_pool.h.
 *
 * A handful of slots under one mutex: a decode takes or gives a few blocks
 * per column chunk, so the lock is not contended, and best fit over a
 * short array is cheaper than any index.
 */
#include "pages/buffer_pool.h"

#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "pq_arrow.h"

#define POOL_SLOTS 64

typedef struct pool_slot {
    void *p;
    size_t cap;
} pool_slot;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pool_slot pool[POOL_SLOTS];
static uint64_t pool_bytes;
static uint64_t pool_limit = PQ_BUFFER_POOL_DEFAULT;

void *pq_pool_take(size_t need, size_t max, size_t *cap)
{
    if (need < PQ_POOL_MIN_BYTES / 2 || max < need) return NULL;
    pthread_mutex_lock(&pool_lock);
    int best = -1;
    for (int i = 0; i < POOL_SLOTS; i++)
        if (pool[i].p && pool[i].cap >= need && pool[i].cap <= max && (best < 0 || pool[i].cap < pool[best].cap))
            best = i;
    void *p = NULL;
    if (best >= 0) {
        p = pool[best].p;
        *cap = pool[best].cap;
        pool_bytes -= pool[best].cap;
        pool[best].p = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    return p;
}

void pq_pool_give(void *p)
{
    if (!p) return;
    size_t cap = malloc_usable_size(p);
    if (cap >= PQ_POOL_MIN_BYTES) {
        pthread_mutex_lock(&pool_lock);
        int free_slot = -1, smallest = -1;
        for (int i = 0; i < POOL_SLOTS; i++) {
            if (!pool[i].p) {
                if (free_slot < 0) free_slot = i;
            } else if (smallest < 0 || pool[i].cap < pool[smallest].cap) {
                smallest = i;
            }
        }
        /* Full of slots: a larger block replaces the smallest one, when it
         * then fits the limit. */
        void *evict = NULL;
        if (free_slot < 0 && smallest >= 0 && pool[smallest].cap < cap &&
            pool_bytes - pool[smallest].cap + cap <= pool_limit) {
            evict = pool[smallest].p;
            pool_bytes -= pool[smallest].cap;
            pool[smallest].p = NULL;
            free_slot = smallest;
        }
        bool kept = free_slot >= 0 && pool_bytes + cap <= pool_limit;
        if (kept) {
            pool[free_slot] = (pool_slot){p, cap};
            pool_bytes += cap;
        }
        pthread_mutex_unlock(&pool_lock);
        free(evict);
        if (kept) return;
    }
    free(p);
}

void pq_buffer_pool_set_limit(uint64_t bytes)
{
    void *drop[POOL_SLOTS];
    int n = 0;
    pthread_mutex_lock(&pool_lock);
    pool_limit = bytes;
    /* Over the new limit: free the largest blocks first. */
    while (pool_bytes > pool_limit) {
        int largest = -1;
        for (int i = 0; i < POOL_SLOTS; i++)
            if (pool[i].p && (largest < 0 || pool[i].cap > pool[largest].cap)) largest = i;
        drop[n++] = pool[largest].p;
        pool_bytes -= pool[largest].cap;
        pool[largest].p = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < n; i++) free(drop[i]);
}

uint64_t pq_buffer_pool_bytes(void)
{
    pthread_mutex_lock(&pool_lock);
    uint64_t b = pool_bytes;
    pthread_mutex_unlock(&pool_lock);
    return b;
}
