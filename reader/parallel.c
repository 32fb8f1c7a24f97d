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

/* ---------------------------------------------------------------------------
 * The process's helper threads
 *
 * Starting threads for every call cost more than the work on small row
 * groups (a streaming reader's one-row-group calls): helpers are started
 * once, on first need, and wait for jobs. One job runs on them at a time;
 * a call that finds them busy (another reader's, or a task's own nested
 * call) starts threads of its own for that call, as before.
 * ------------------------------------------------------------------------- */

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work;      /* a new job (generation moved) */
    pthread_cond_t done;      /* the job's last helper finished */
    unsigned started;         /* helpers running, ids 1 .. started */
    bool busy;
    pool *job;
    unsigned want;            /* helpers the job uses: ids 1 .. want */
    unsigned active;          /* of those, still working on it */
    uint64_t generation;
} helpers = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false, NULL, 0, 0,
             0};

static pthread_once_t helpers_once = PTHREAD_ONCE_INIT;

/* A forked child has none of the parent's threads: start afresh. */
static void helpers_after_fork(void)
{
    pthread_mutex_init(&helpers.mu, NULL);
    pthread_cond_init(&helpers.work, NULL);
    pthread_cond_init(&helpers.done, NULL);
    helpers.started = 0;
    helpers.busy = false;
    helpers.job = NULL;
    helpers.want = helpers.active = 0;
}

static void helpers_init(void)
{
    pthread_atfork(NULL, NULL, helpers_after_fork);
}

static void *helper(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg; /* 1 .. */
    /* Started for the job being posted (generation >= 1 once it runs): take it. */
    uint64_t seen = 0;
    pthread_mutex_lock(&helpers.mu);
    for (;;) {
        while (helpers.generation == seen) pthread_cond_wait(&helpers.work, &helpers.mu);
        seen = helpers.generation;
        if (id > helpers.want) continue; /* not needed for this job */
        worker_arg w = {helpers.job, id};
        pthread_mutex_unlock(&helpers.mu);
        worker(&w);
        pthread_mutex_lock(&helpers.mu);
        if (--helpers.active == 0) pthread_cond_signal(&helpers.done);
    }
    return NULL;
}

/* With helpers.mu held: at least `n` helpers running, as many as can be. */
static void helpers_start(unsigned n)
{
    while (helpers.started < n) {
        pthread_t id;
        pthread_attr_t attr;
        if (pthread_attr_init(&attr) != 0) return;
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&id, &attr, helper, (void *)(uintptr_t)(helpers.started + 1));
        pthread_attr_destroy(&attr);
        if (rc != 0) return;
        helpers.started++;
    }
}

/* Threads of this call's own, joined before it returns. */
static unsigned run_own_threads(pool *p, unsigned threads)
{
    pthread_t ids[PQ_PARALLEL_MAX_THREADS];
    worker_arg args[PQ_PARALLEL_MAX_THREADS];
    unsigned started = 0;
    for (unsigned t = 0; t < threads; t++) args[t] = (worker_arg){p, t};
    /* The caller is worker 0; the started threads 1, 2, ... */
    while (started + 1 < threads && pthread_create(&ids[started], NULL, worker, &args[started + 1]) == 0)
        started++;
    worker(&args[0]);
    for (unsigned t = 0; t < started; t++) pthread_join(ids[t], NULL);
    return started + 1;
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
    worker_arg self = {&p, 0};
    if (threads <= 1) {
        worker(&self);
        return 1;
    }
    pthread_once(&helpers_once, helpers_init);
    pthread_mutex_lock(&helpers.mu);
    if (helpers.busy) {
        pthread_mutex_unlock(&helpers.mu);
        return run_own_threads(&p, threads);
    }
    helpers_start(threads - 1);
    unsigned want = helpers.started < threads - 1 ? helpers.started : threads - 1;
    helpers.busy = true;
    helpers.job = &p;
    helpers.want = want;
    helpers.active = want;
    helpers.generation++;
    pthread_cond_broadcast(&helpers.work);
    pthread_mutex_unlock(&helpers.mu);

    worker(&self); /* the caller is worker 0 */

    pthread_mutex_lock(&helpers.mu);
    while (helpers.active) pthread_cond_wait(&helpers.done, &helpers.mu);
    helpers.busy = false;
    helpers.job = NULL;
    pthread_mutex_unlock(&helpers.mu);
    return want + 1;
}
