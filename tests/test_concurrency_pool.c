/*
 * test_concurrency_pool.c — the buffer pool (pages/buffer_pool.c) under
 * threads that take and give blocks while another changes the byte limit.
 * Runs under TSan in scripts/test.
 *
 * Oracle: ownership. Each worker stamps every block it holds with a tag of
 * its own (thread, sequence) and checks the stamp before giving the block
 * back: a block handed to two threads at once, or kept while still in use,
 * shows up as a foreign or torn stamp (and, under TSan, as a race). The
 * pool's bytes must never exceed the limit last set, and must add up to the
 * usable sizes of the blocks it holds.
 */
#include <check.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pages/buffer_pool.h"
#include "pqstep.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)
#define WORKERS 4
#define ROUNDS 3000
#define HELD 3               /* blocks a worker holds at once */
#define STRIDE (64 * KIB)    /* stamp every 64 KiB: cheap, still covers every block */

static atomic_int workers_left;
/* Set by the limiter once its first limit is in: the workers start then, so
 * that limits change while they run however late the limiter's thread is
 * scheduled (on a loaded machine the workers could otherwise finish first). */
static atomic_int limiting;

typedef struct held_block {
    uint64_t *p;
    size_t size; /* bytes stamped (the size asked for) */
    uint64_t tag;
} held_block;

typedef struct worker {
    int id;
    uint64_t rng;
    int taken;      /* blocks that came from the pool */
    char error[200];
} worker;

static uint64_t next_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Stamp word k of each STRIDE, and the last word, with tag ^ position. */
static void stamp(held_block *b)
{
    size_t words = b->size / 8;
    for (size_t k = 0; k < words; k += STRIDE / 8) b->p[k] = b->tag ^ k;
    b->p[words - 1] = b->tag ^ (words - 1);
}

static int stamp_intact(const held_block *b)
{
    size_t words = b->size / 8;
    for (size_t k = 0; k < words; k += STRIDE / 8)
        if (b->p[k] != (b->tag ^ k)) return 0;
    return b->p[words - 1] == (b->tag ^ (words - 1));
}

/* Check and give back the block in h (if any). */
static int release_block(worker *w, held_block *h)
{
    if (!h->p) return 1;
    if (!stamp_intact(h)) {
        snprintf(w->error, sizeof w->error, "worker %d: block %p (%zu bytes) changed while held", w->id,
                 (void *)h->p, h->size);
        return 0;
    }
    pq_pool_give(h->p);
    h->p = NULL;
    return 1;
}

static void *work(void *arg)
{
    worker *w = arg;
    held_block held[HELD] = {{0}};
    while (!atomic_load(&limiting)) sched_yield();
    for (uint64_t round = 0; round < ROUNDS && !w->error[0]; round++) {
        held_block *h = &held[next_rand(&w->rng) % HELD];
        if (!release_block(w, h)) break;
        /* 128 KiB .. 2 MiB, multiple of 8; max up to twice the need. */
        size_t size = PQ_POOL_MIN_BYTES + (next_rand(&w->rng) % (2 * MIB - PQ_POOL_MIN_BYTES + 1)) / 8 * 8;
        size_t max = size + (next_rand(&w->rng) % (size + 1));
        size_t cap = 0;
        void *p = pq_pool_take(size, max, &cap);
        if (p) {
            if (cap < size || cap > max || cap != malloc_usable_size(p)) {
                snprintf(w->error, sizeof w->error, "worker %d: take(%zu, %zu) gave cap %zu (usable %zu)", w->id,
                         size, max, cap, malloc_usable_size(p));
                free(p);
                break;
            }
            w->taken++;
        } else if (!(p = malloc(size))) {
            snprintf(w->error, sizeof w->error, "worker %d: out of memory", w->id);
            break;
        }
        *h = (held_block){p, size, (uint64_t)w->id << 56 | round << 8 | 0x5a};
        stamp(h);
    }
    for (int i = 0; i < HELD; i++)
        if (!release_block(w, &held[i])) free(held[i].p);
    atomic_fetch_sub(&workers_left, 1);
    return NULL;
}

/* The fifth thread: a new limit now and then; the pool must fit it. */
typedef struct limiter {
    uint64_t last;
    int changes;
    char error[200];
} limiter;

static void *change_limits(void *arg)
{
    limiter *l = arg;
    static const uint64_t limits[] = {8 * MIB, 0, 3 * MIB, 64 * MIB, 1 * MIB, 16 * MIB, 5 * MIB / 2};
    const size_t n = sizeof limits / sizeof limits[0];
    struct timespec pause = {0, 200 * 1000}; /* 0.2 ms: let the workers run between changes */
    while (atomic_load(&workers_left) > 0) {
        uint64_t lim = limits[l->changes++ % n];
        pq_buffer_pool_set_limit(lim);
        l->last = lim;
        atomic_store(&limiting, 1);
        /* Only this thread sets the limit: until the next change the pool
         * holds at most lim, whatever the workers give. */
        for (int k = 0; k < 4; k++) {
            uint64_t b = pq_buffer_pool_bytes();
            if (b > lim) {
                snprintf(l->error, sizeof l->error, "pool holds %llu bytes over the limit %llu",
                         (unsigned long long)b, (unsigned long long)lim);
                return NULL;
            }
            nanosleep(&pause, NULL);
        }
    }
    return NULL;
}

START_TEST(threads_never_share_a_block_and_the_limit_holds)
{
    pq_buffer_pool_set_limit(0);
    pq_buffer_pool_set_limit(PQ_BUFFER_POOL_DEFAULT);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);

    worker w[WORKERS];
    pthread_t t[WORKERS], lt;
    limiter l = {0};
    atomic_store(&workers_left, WORKERS);
    atomic_store(&limiting, 0);
    for (int i = 0; i < WORKERS; i++) {
        w[i] = (worker){.id = i + 1, .rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1)};
        ck_assert_int_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    ck_assert_int_eq(pthread_create(&lt, NULL, change_limits, &l), 0);
    for (int i = 0; i < WORKERS; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    ck_assert_int_eq(pthread_join(lt, NULL), 0);

    int taken = 0;
    for (int i = 0; i < WORKERS; i++) {
        ck_assert_msg(!w[i].error[0], "%s", w[i].error);
        taken += w[i].taken;
    }
    ck_assert_msg(!l.error[0], "%s", l.error);
    ck_assert_int_gt(l.changes, 0);
    ck_assert_msg(taken > 0, "no block was ever reused: the test exercised nothing");

    /* At the end: within the last limit, and the count matches the blocks. */
    uint64_t bytes = pq_buffer_pool_bytes();
    ck_assert_uint_le(bytes, l.last);
    uint64_t sum = 0;
    size_t cap;
    void *kept[64 + 1];
    int n = 0;
    while (n < 64 + 1 && (kept[n] = pq_pool_take(PQ_POOL_MIN_BYTES / 2, SIZE_MAX, &cap))) {
        ck_assert_uint_eq(cap, malloc_usable_size(kept[n]));
        for (int k = 0; k < n; k++) ck_assert_ptr_ne(kept[k], kept[n]); /* each block once */
        sum += cap;
        n++;
    }
    ck_assert_int_lt(n, 64 + 1);
    for (int k = 0; k < n; k++) free(kept[k]);
    ck_assert_uint_eq(sum, bytes);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    pq_buffer_pool_set_limit(PQ_BUFFER_POOL_DEFAULT);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("concurrency: buffer pool");
    TCase *tc = tcase_create("pool");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, threads_never_share_a_block_and_the_limit_holds);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
