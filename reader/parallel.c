/*
 * parallel.c — see parallel.h.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "reader/parallel.h"

/* More threads than this buys nothing for chunk decoding and risks
 * exhausting the process's thread limit on a large machine. */
#define PQ_PARALLEL_MAX_THREADS 64

typedef struct pool {
    atomic_size_t next;     /* next task index to hand out */
    atomic_size_t stop_at;  /* tasks at or after this are skipped */
    size_t n;
    bool (*task)(void *ctx, size_t i);
    void *ctx;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n || i >= atomic_load(&p->stop_at)) break;
        if (!p->task(p->ctx, i)) {
            /* Lower the bar to i (a lower failure may already be set). */
            size_t cur = atomic_load(&p->stop_at);
            while (i < cur && !atomic_compare_exchange_weak(&p->stop_at, &cur, i)) {
            }
        }
    }
    return NULL;
}

unsigned pq_parallel_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : n > PQ_PARALLEL_MAX_THREADS ? PQ_PARALLEL_MAX_THREADS : (unsigned)n;
}

unsigned pq_parallel_for(size_t n, unsigned threads, bool (*task)(void *ctx, size_t i), void *ctx)
{
    if (n == 0) return 0;
    if (threads == 0) threads = pq_parallel_cores();
    if (threads > PQ_PARALLEL_MAX_THREADS) threads = PQ_PARALLEL_MAX_THREADS;
    if ((size_t)threads > n) threads = (unsigned)n;
    pool p = {.n = n, .task = task, .ctx = ctx};
    atomic_init(&p.next, 0);
    atomic_init(&p.stop_at, SIZE_MAX);
    pthread_t ids[PQ_PARALLEL_MAX_THREADS];
    unsigned started = 0;
    while (started + 1 < threads && pthread_create(&ids[started], NULL, worker, &p) == 0) started++;
    worker(&p);
    for (unsigned t = 0; t < started; t++) pthread_join(ids[t], NULL);
    return started + 1;
}
