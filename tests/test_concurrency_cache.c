/*
 * test_concurrency_cache.c — the metadata cache under threads: single-flight
 * loads, eviction under pressure, and a put/get/erase/stats mix. Also run
 * under ThreadSanitizer by scripts/test, so iteration counts stay small.
 *
 * Loaders parse real corpus footers; every result is checked against the
 * row count, schema size and leaf count of the file its key stands for
 * (values from the corpus manifest and pyarrow's printed schemas).
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pqstep.h"
#include "test_util.h"

#define THREADS 8

typedef struct fixture {
    const char *rel;
    int64_t num_rows;
    uint32_t schema_len;
    uint32_t leaves;
    uint8_t *file;
    const uint8_t *footer;
    size_t footer_len;
    size_t mem;          /* pq_metadata_memory_size of a parse */
} fixture;

enum { FX_COUNT = 6 };

static fixture fx[FX_COUNT] = {
    {"data/alltypes_plain.parquet", 8, 12, 11, NULL, NULL, 0, 0},
    {"data/alltypes_dictionary.parquet", 2, 12, 11, NULL, NULL, 0, 0},
    {"data/nested_lists.snappy.parquet", 3, 9, 2, NULL, NULL, 0, 0},
    {"data/binary.parquet", 12, 2, 1, NULL, NULL, 0, 0},
    {"data/int32_decimal.parquet", 24, 2, 1, NULL, NULL, 0, 0},
    {"data/nulls.snappy.parquet", 8, 3, 1, NULL, NULL, 0, 0},
};

static size_t min_mem, max_mem;

static void load_fixtures(void)
{
    if (!pq_test_corpus_dir()) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    min_mem = SIZE_MAX;
    for (int i = 0; i < FX_COUNT; i++) {
        char *path = pq_test_corpus_path(fx[i].rel);
        size_t len = 0;
        fx[i].file = path ? pq_test_read_file(path, &len) : NULL;
        if (!fx[i].file) {
            fprintf(stderr, "cannot read %s\n", path ? path : fx[i].rel);
            pq_test_skip("a corpus file of this test is missing");
        }
        free(path);
        fx[i].footer = pq_test_footer_span(fx[i].file, len, &fx[i].footer_len);
        pq_error err = {0};
        pq_metadata *md = fx[i].footer ? pq_metadata_parse(fx[i].footer, fx[i].footer_len, NULL, &err) : NULL;
        if (!md) {
            fprintf(stderr, "%s: cannot parse the footer: %s\n", fx[i].rel, err.message);
            exit(1);
        }
        fx[i].mem = pq_metadata_memory_size(md);
        if (fx[i].mem < min_mem) min_mem = fx[i].mem;
        if (fx[i].mem > max_mem) max_mem = fx[i].mem;
        pq_metadata_release(md);
    }
}

/* Key k stands for fixture k % FX_COUNT. */
static size_t key_of(int k, char *buf, size_t cap)
{
    return (size_t)snprintf(buf, cap, "key/%d", k);
}

static void check_is_fx(const pq_metadata *md, int i)
{
    ck_assert_ptr_nonnull(md);
    const pq_file_metadata *f = pq_metadata_file(md);
    ck_assert_int_eq(f->num_rows, fx[i].num_rows);
    ck_assert_uint_eq(f->schema_len, fx[i].schema_len);
    ck_assert_uint_eq(pq_metadata_schema(md)->leaves_len, fx[i].leaves);
}

/* ---------------------------------------------------------------------------
 * Loaders
 * ------------------------------------------------------------------------- */

enum { MAX_KEYS = 24 };

typedef struct load_arg {
    int fx;                        /* which footer; -1 for the failing one */
    unsigned delay_us;             /* widen the window in which others wait */
    atomic_uint *calls;            /* per key */
} load_arg;

static const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static void sleep_us(unsigned us)
{
    struct timespec ts = {0, (long)us * 1000};
    while (nanosleep(&ts, &ts) != 0) {}
}

static pq_metadata *fx_loader(void *user, pq_error *err)
{
    load_arg *a = user;
    atomic_fetch_add(a->calls, 1);
    if (a->delay_us) sleep_us(a->delay_us);
    if (a->fx < 0) return pq_metadata_parse(garbage, sizeof garbage, NULL, err);
    return pq_metadata_parse(fx[a->fx].footer, fx[a->fx].footer_len, NULL, err);
}

/* ---------------------------------------------------------------------------
 * Shared state of one sub-test
 * ------------------------------------------------------------------------- */

typedef struct shared {
    pq_metadata_cache *cache;
    pthread_barrier_t start;
    int keys;                      /* keys in play: 0..keys-1 */
    int iterations;
    unsigned delay_us;
    atomic_uint calls[MAX_KEYS];   /* loader calls per key */
    pq_metadata *results[THREADS]; /* single-key test: what each thread got */
    pq_metadata *prepared[FX_COUNT];
} shared;

typedef struct worker {
    shared *sh;
    int id;
    uint64_t gets;                 /* lookups made (get + get_or_load) */
    uint64_t hits_seen;            /* calls that reported was_hit */
    int err_code;                  /* the error a failing call reported */
    char failure[512];             /* first failed check, reported by the main thread */
} worker;

/* Check in a thread; Check's asserts belong to the main thread. */
#define WCHECK(w, cond, ...)                                                         \
    do {                                                                             \
        if (!(cond) && !(w)->failure[0])                                             \
            snprintf((w)->failure, sizeof (w)->failure, __VA_ARGS__);                \
    } while (0)

static int result_ok(const pq_metadata *md, int f)
{
    if (!md) return 0;
    const pq_file_metadata *m = pq_metadata_file(md);
    return m->num_rows == fx[f].num_rows && m->schema_len == fx[f].schema_len &&
           pq_metadata_schema(md)->leaves_len == fx[f].leaves;
}

static void check_stats_bound(worker *w)
{
    pq_metadata_cache_stats st;
    pq_metadata_cache_get_stats(w->sh->cache, &st);
    WCHECK(w, st.bytes <= st.max_bytes, "bytes %llu > max %llu",
           (unsigned long long)st.bytes, (unsigned long long)st.max_bytes);
    WCHECK(w, st.entries * min_mem <= st.bytes && st.entries * max_mem >= st.bytes,
           "entries %llu do not add up to bytes %llu", (unsigned long long)st.entries,
           (unsigned long long)st.bytes);
    WCHECK(w, st.loads == st.misses, "loads %llu != misses %llu (only get_or_load ran)",
           (unsigned long long)st.loads, (unsigned long long)st.misses);
}

static void run_threads(shared *sh, worker *w, void *(*fn)(void *))
{
    pthread_t t[THREADS];
    ck_assert_int_eq(pthread_barrier_init(&sh->start, NULL, THREADS), 0);
    for (int i = 0; i < THREADS; i++) {
        w[i].sh = sh;
        w[i].id = i;
        ck_assert_int_eq(pthread_create(&t[i], NULL, fn, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    pthread_barrier_destroy(&sh->start);
    for (int i = 0; i < THREADS; i++) ck_assert_msg(!w[i].failure[0], "thread %d: %s", i, w[i].failure);
}

static pq_metadata_cache_stats stats_of(pq_metadata_cache *c)
{
    pq_metadata_cache_stats s;
    pq_metadata_cache_get_stats(c, &s);
    return s;
}

/* ---------------------------------------------------------------------------
 * All threads ask for one key at once
 * ------------------------------------------------------------------------- */

static void *one_key_worker(void *p)
{
    worker *w = p;
    shared *sh = w->sh;
    load_arg arg = {2, sh->delay_us, &sh->calls[0]};
    pq_error err = {0};
    int hit = -1;
    pthread_barrier_wait(&sh->start);
    pq_metadata *md = pq_metadata_cache_get_or_load(sh->cache, "one", 3, fx_loader, &arg, &hit, &err);
    WCHECK(w, result_ok(md, 2), "wrong or no result: %s", md ? "wrong file" : err.message);
    w->gets++;
    w->hits_seen += hit == 1;
    sh->results[w->id] = md;
    return NULL;
}

START_TEST(test_single_flight_one_key)
{
    /* Loader delays of 0 and 20 ms: with the delay nearly every thread waits
     * on the flight; without, most find the entry. Either way, one parse. */
    static const unsigned delays[] = {20000, 0, 2000};
    for (size_t round = 0; round < sizeof delays / sizeof delays[0]; round++) {
        shared sh = {0};
        worker w[THREADS] = {{0}};
        pq_error err = {0};
        sh.cache = pq_metadata_cache_create((size_t)1 << 30, &err);
        ck_assert_ptr_nonnull(sh.cache);
        sh.delay_us = delays[round];
        uint64_t parses = pq_footer_parse_count();
        run_threads(&sh, w, one_key_worker);

        ck_assert_uint_eq(atomic_load(&sh.calls[0]), 1);
        ck_assert_uint_eq(pq_footer_parse_count() - parses, 1);
        uint64_t hits_seen = 0;
        for (int i = 0; i < THREADS; i++) {
            ck_assert_ptr_eq(sh.results[i], sh.results[0]); /* one object for all */
            hits_seen += w[i].hits_seen;
        }
        check_is_fx(sh.results[0], 2);
        pq_metadata_cache_stats st = stats_of(sh.cache);
        ck_assert_uint_eq(st.misses, 1);
        ck_assert_uint_eq(st.loads, 1);
        ck_assert_uint_eq(st.hits, THREADS - 1);
        ck_assert_uint_eq(hits_seen, THREADS - 1);
        ck_assert_uint_eq(st.entries, 1);
        ck_assert_uint_eq(st.bytes, fx[2].mem);
        pq_metadata_cache_destroy(sh.cache);
        for (int i = 0; i < THREADS; i++) pq_metadata_release(sh.results[i]);
    }
}
END_TEST

/* A failing load: every thread gets the loader's error, nothing is cached,
 * and each loader call is one miss. */
static void *failing_worker(void *p)
{
    worker *w = p;
    shared *sh = w->sh;
    load_arg arg = {-1, sh->delay_us, &sh->calls[0]};
    pq_error err = {PQ_OK, ""};
    int hit = -1;
    pthread_barrier_wait(&sh->start);
    pq_metadata *md = pq_metadata_cache_get_or_load(sh->cache, "bad", 3, fx_loader, &arg, &hit, &err);
    WCHECK(w, md == NULL, "a failing loader gave a result");
    w->err_code = (int)err.code;
    w->hits_seen += hit == 1;
    w->gets++;
    return NULL;
}

START_TEST(test_single_flight_error)
{
    pq_error ref = {0};
    ck_assert_ptr_null(pq_metadata_parse(garbage, sizeof garbage, NULL, &ref));
    ck_assert_int_ne(ref.code, PQ_OK);

    shared sh = {0};
    worker w[THREADS] = {{0}};
    pq_error err = {0};
    sh.cache = pq_metadata_cache_create((size_t)1 << 30, &err);
    sh.delay_us = 20000;
    run_threads(&sh, w, failing_worker);

    unsigned calls = atomic_load(&sh.calls[0]);
    uint64_t hits_seen = 0;
    for (int i = 0; i < THREADS; i++) {
        ck_assert_int_eq(w[i].err_code, ref.code); /* waiters get the same error */
        hits_seen += w[i].hits_seen;
    }
    pq_metadata_cache_stats st = stats_of(sh.cache);
    ck_assert_uint_ge(calls, 1);
    ck_assert_uint_le(calls, THREADS);
    ck_assert_uint_eq(st.loads, calls);
    ck_assert_uint_eq(st.misses, calls);
    ck_assert_uint_eq(st.hits, THREADS - calls);
    ck_assert_uint_eq(hits_seen, st.hits);
    ck_assert_uint_eq(st.entries, 0);
    ck_assert_uint_eq(st.bytes, 0);
    pq_metadata_cache_destroy(sh.cache);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Many keys, get_or_load only
 * ------------------------------------------------------------------------- */

static void *many_keys_worker(void *p)
{
    worker *w = p;
    shared *sh = w->sh;
    char key[32];
    pthread_barrier_wait(&sh->start);
    for (int it = 0; it < sh->iterations; it++) {
        /* Every thread walks all keys, each with its own stride and start. */
        int k = (w->id * 5 + it * (1 + 2 * (w->id % 3))) % sh->keys;
        int f = k % FX_COUNT;
        load_arg arg = {f, sh->delay_us, &sh->calls[k]};
        pq_error err = {0};
        int hit = -1;
        size_t n = key_of(k, key, sizeof key);
        pq_metadata *md = pq_metadata_cache_get_or_load(sh->cache, key, n, fx_loader, &arg, &hit, &err);
        WCHECK(w, result_ok(md, f), "key %d: wrong or no result: %s", k, md ? "wrong file" : err.message);
        w->gets++;
        w->hits_seen += hit == 1;
        pq_metadata_release(md);
        if (it % 16 == 0) check_stats_bound(w);
    }
    return NULL;
}

static void many_keys_round(size_t max_bytes, int keys, int iterations, int expect_evictions)
{
    shared sh = {0};
    worker w[THREADS] = {{0}};
    pq_error err = {0};
    sh.cache = pq_metadata_cache_create(max_bytes, &err);
    ck_assert_ptr_nonnull(sh.cache);
    sh.keys = keys;
    sh.iterations = iterations;
    uint64_t parses = pq_footer_parse_count();
    run_threads(&sh, w, many_keys_worker);

    uint64_t calls = 0, gets = 0, hits_seen = 0;
    for (int k = 0; k < keys; k++) {
        unsigned c = atomic_load(&sh.calls[k]);
        ck_assert_msg(c >= 1, "key %d never loaded", k);
        if (!expect_evictions) ck_assert_msg(c == 1, "key %d loaded %u times", k, c);
        calls += c;
    }
    for (int i = 0; i < THREADS; i++) {
        gets += w[i].gets;
        hits_seen += w[i].hits_seen;
    }
    pq_metadata_cache_stats st = stats_of(sh.cache);
    ck_assert_uint_eq(gets, (uint64_t)THREADS * iterations);
    ck_assert_uint_eq(st.hits + st.misses, gets);
    ck_assert_uint_eq(st.hits, hits_seen);
    ck_assert_uint_eq(st.loads, calls);
    ck_assert_uint_eq(st.misses, calls);
    ck_assert_uint_eq(pq_footer_parse_count() - parses, calls);
    ck_assert_uint_le(st.bytes, max_bytes);
    if (expect_evictions) {
        /* Every key was published once and all of them do not fit. */
        ck_assert_uint_gt(st.evictions, 0);
    } else {
        ck_assert_uint_eq(st.evictions, 0);
        ck_assert_uint_eq(st.entries, (uint64_t)keys);
    }

    /* What stays cached is right for its key. */
    char key[32];
    uint64_t present = 0, bytes = 0;
    for (int k = 0; k < keys; k++) {
        pq_metadata *md = pq_metadata_cache_get(sh.cache, key, key_of(k, key, sizeof key));
        if (!md) continue;
        check_is_fx(md, k % FX_COUNT);
        present++;
        bytes += pq_metadata_memory_size(md);
        pq_metadata_release(md);
    }
    ck_assert_uint_eq(present, st.entries);
    ck_assert_uint_eq(bytes, st.bytes);
    pq_metadata_cache_destroy(sh.cache);
}

START_TEST(test_many_keys_large_bound)
{
    many_keys_round((size_t)1 << 30, 12, 200, 0);
}
END_TEST

START_TEST(test_many_keys_small_bound)
{
    /* Room for about two footers among twelve keys: constant eviction. */
    many_keys_round(2 * max_mem + min_mem / 2, 12, 200, 1);
}
END_TEST

/* ---------------------------------------------------------------------------
 * put / get / erase / stats / get_or_load, mixed
 * ------------------------------------------------------------------------- */

static uint32_t rng_next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void *mixed_worker(void *p)
{
    worker *w = p;
    shared *sh = w->sh;
    uint32_t rng = 0x9e3779b9u * (uint32_t)(w->id + 1);
    char key[32];
    pthread_barrier_wait(&sh->start);
    for (int it = 0; it < sh->iterations; it++) {
        int k = (int)(rng_next(&rng) % (uint32_t)sh->keys), f = k % FX_COUNT;
        size_t n = key_of(k, key, sizeof key);
        pq_error err = {0};
        switch (rng_next(&rng) % 6) {
        case 0: /* put the shared object of this key's file */
            WCHECK(w, pq_metadata_cache_put(sh->cache, key, n, sh->prepared[f], &err) == PQ_OK,
                   "put: %s", err.message);
            break;
        case 1:
        case 2: {
            pq_metadata *md = pq_metadata_cache_get(sh->cache, key, n);
            WCHECK(w, !md || result_ok(md, f), "get %d: wrong file", k);
            w->gets++;
            pq_metadata_release(md);
            break;
        }
        case 3:
            pq_metadata_cache_erase(sh->cache, key, n);
            break;
        case 4: {
            load_arg arg = {f, 0, &sh->calls[k]};
            pq_metadata *md = pq_metadata_cache_get_or_load(sh->cache, key, n, fx_loader, &arg, NULL, &err);
            WCHECK(w, result_ok(md, f), "get_or_load %d: %s", k, md ? "wrong file" : err.message);
            w->gets++;
            pq_metadata_release(md);
            break;
        }
        default: {
            pq_metadata_cache_stats st;
            pq_metadata_cache_get_stats(sh->cache, &st);
            WCHECK(w, st.bytes <= st.max_bytes, "bytes %llu > max", (unsigned long long)st.bytes);
            WCHECK(w, st.entries <= (uint64_t)sh->keys, "more entries than keys");
            WCHECK(w, st.entries * min_mem <= st.bytes, "entries and bytes disagree");
            break;
        }
        }
    }
    return NULL;
}

START_TEST(test_mixed_operations)
{
    shared sh = {0};
    worker w[THREADS] = {{0}};
    pq_error err = {0};
    for (int i = 0; i < FX_COUNT; i++) {
        sh.prepared[i] = pq_metadata_parse(fx[i].footer, fx[i].footer_len, NULL, &err);
        ck_assert_ptr_nonnull(sh.prepared[i]);
    }
    size_t max_bytes = 3 * max_mem;
    sh.cache = pq_metadata_cache_create(max_bytes, &err);
    sh.keys = 16;
    sh.iterations = 1000;
    run_threads(&sh, w, mixed_worker);

    uint64_t gets = 0, calls = 0;
    for (int i = 0; i < THREADS; i++) gets += w[i].gets;
    for (int k = 0; k < sh.keys; k++) calls += atomic_load(&sh.calls[k]);
    pq_metadata_cache_stats st = stats_of(sh.cache);
    ck_assert_uint_eq(st.hits + st.misses, gets);
    ck_assert_uint_eq(st.loads, calls);
    ck_assert_uint_le(st.bytes, max_bytes);

    char key[32];
    uint64_t present = 0, bytes = 0;
    for (int k = 0; k < sh.keys; k++) {
        pq_metadata *md = pq_metadata_cache_get(sh.cache, key, key_of(k, key, sizeof key));
        if (!md) continue;
        check_is_fx(md, k % FX_COUNT);
        present++;
        bytes += pq_metadata_memory_size(md);
        pq_metadata_release(md);
    }
    ck_assert_uint_eq(present, st.entries);
    ck_assert_uint_eq(bytes, st.bytes);

    /* The shared objects outlive the cache and stay intact. */
    pq_metadata_cache_destroy(sh.cache);
    for (int i = 0; i < FX_COUNT; i++) {
        check_is_fx(sh.prepared[i], i);
        pq_metadata_release(sh.prepared[i]);
    }
}
END_TEST

static Suite *concurrency_suite(void)
{
    Suite *s = suite_create("cache_concurrency");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 0); /* no time limit: TSan and busy machines are slow */
    tcase_add_test(tc, test_single_flight_one_key);
    tcase_add_test(tc, test_single_flight_error);
    tcase_add_test(tc, test_many_keys_large_bound);
    tcase_add_test(tc, test_many_keys_small_bound);
    tcase_add_test(tc, test_mixed_operations);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    load_fixtures();
    SRunner *sr = srunner_create(concurrency_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    for (int i = 0; i < FX_COUNT; i++) free(fx[i].file);
    return failed ? 1 : 0;
}
