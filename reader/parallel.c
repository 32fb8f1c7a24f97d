/*
 * parallel.c — see parallel.h.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "reader/parallel.h"

/* PQ_PARALLEL_MAX_THREADS (parallel.h): more threads than that buys nothing
 * for chunk decoding and risks exhausting the process's thread limit. */

typedef struct pool {
    atomic_size_t next;     /* next task index to hand out */
    atomic_size_t stop_at;  /* tasks at or after this are skipped */
    size_t n;
    bool (*task)(void *ctx, size_t i, unsigned worker);
    void *ctx;
} pool;

typedef struct worker_arg {
    pool *p;
    unsigned worker;
} worker_arg;

static void *worker(void *arg)
{
    worker_arg *w = arg;
    pool *p = w->p;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n || i >= atomic_load(&p->stop_at)) break;
        if (!p->task(p->ctx, i, w->worker)) {
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

unsigned pq_parallel_for(size_t n, unsigned threads, bool (*task)(void *ctx, size_t i, unsigned worker),
                         void *ctx)
{
    if (n == 0) return 0;
    if (threads == 0) threads = pq_parallel_cores();
    if (threads > PQ_PARALLEL_MAX_THREADS) threads = PQ_PARALLEL_MAX_THREADS;
    if ((size_t)threads > n) threads = (unsigned)n;
    pool p = {.n = n, .task = task, .ctx = ctx};
    atomic_init(&p.next, 0);
    atomic_init(&p.stop_at, SIZE_MAX);
    pthread_t ids[PQ_PARALLEL_MAX_THREADS];
    worker_arg args[PQ_PARALLEL_MAX_THREADS];
    unsigned started = 0;
    for (unsigned t = 0; t < threads; t++) args[t] = (worker_arg){&p, t};
    /* The caller is worker 0; the started threads 1, 2, ... */
    while (started + 1 < threads && pthread_create(&ids[started], NULL, worker, &args[started + 1]) == 0)
        started++;
    worker(&args[0]);
    for (unsigned t = 0; t < started; t++) pthread_join(ids[t], NULL);
    return started + 1;
}
