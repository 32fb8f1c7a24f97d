/*
 * test_concurrency_reader.c — readers on many threads sharing one metadata
 * cache and one pq_metadata. Runs under TSan in scripts/test.
 *
 * Oracles: the footer parse counter (one parse however many threads open the
 * file through one cache), the manifest's row and row-group counts, and a
 * single-threaded walk of the same metadata (every thread must see the same
 * sums).
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"
#include "test_util.h"

#define THREADS 8
#define OPENS_PER_THREAD 25

static const char *FILES[] = {
    "data/alltypes_tiny_pages.parquet",
    "data/nested_structs.rust.parquet",
    "data/delta_binary_packed.parquet",
};
#define NFILES (sizeof FILES / sizeof FILES[0])

typedef struct shared {
    pq_metadata_cache *cache;
    char *paths[NFILES];
    int64_t rows[NFILES];           /* expected, from a single-threaded open */
    pq_metadata *first[NFILES];     /* what every cached open must return */
    atomic_int failures;
    pthread_barrier_t start;
} shared;

static void *open_many(void *arg)
{
    shared *sh = arg;
    pthread_barrier_wait(&sh->start); /* all threads hit the cold cache together */
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.cache = sh->cache;
    for (int i = 0; i < OPENS_PER_THREAD; i++) {
        size_t f = (size_t)i % NFILES;
        pq_error err;
        pq_reader *r = pq_reader_open_path(sh->paths[f], &opts, &err);
        if (!r || pq_reader_advance(r, &err) != PQ_OK) {
            atomic_fetch_add(&sh->failures, 1);
            pq_reader_close(r);
            continue;
        }
        const pq_file_metadata *fm = pq_metadata_file(pq_reader_metadata(r));
        if (fm->num_rows != sh->rows[f]) atomic_fetch_add(&sh->failures, 1);
        pq_reader_close(r);
    }
    return NULL;
}

START_TEST(cached_opens_parse_each_footer_once)
{
    shared sh;
    memset(&sh, 0, sizeof sh);
    pq_error err;
    for (size_t f = 0; f < NFILES; f++) {
        sh.paths[f] = pq_test_corpus_path(FILES[f]);
        size_t len;
        uint8_t *img = pq_test_read_file(sh.paths[f], &len);
        ck_assert_ptr_nonnull(img);
        pq_metadata *md = pq_metadata_parse_tail(img, len, NULL, NULL, &err);
        ck_assert_msg(md, "%s", err.message);
        sh.rows[f] = pq_metadata_file(md)->num_rows;
        pq_metadata_release(md);
        free(img);
    }
    sh.cache = pq_metadata_cache_create(256u << 20, &err);
    ck_assert_ptr_nonnull(sh.cache);
    pthread_barrier_init(&sh.start, NULL, THREADS);

    uint64_t parses0 = pq_footer_parse_count();
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, open_many, &sh), 0);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);

    ck_assert_int_eq(atomic_load(&sh.failures), 0);
    /* One parse per file, whatever the interleaving. */
    ck_assert_uint_eq(pq_footer_parse_count() - parses0, NFILES);
    pq_metadata_cache_stats cs;
    pq_metadata_cache_get_stats(sh.cache, &cs);
    ck_assert_uint_eq(cs.loads, NFILES);
    ck_assert_uint_eq(cs.hits + cs.misses, (uint64_t)THREADS * OPENS_PER_THREAD);
    ck_assert_uint_eq(cs.misses, NFILES);

    pthread_barrier_destroy(&sh.start);
    pq_metadata_cache_destroy(sh.cache);
    for (size_t f = 0; f < NFILES; f++) free(sh.paths[f]);
}
END_TEST

/* Many threads walking one pq_metadata, each with readers that borrow it. */
typedef struct walk {
    pq_metadata *md;
    uint64_t expect;
    atomic_int failures;
} walk;

static uint64_t checksum(const pq_metadata *md)
{
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_schema *s = pq_metadata_schema(md);
    uint64_t sum = (uint64_t)fm->num_rows;
    for (uint32_t g = 0; g < fm->row_groups_len; g++)
        for (uint32_t c = 0; c < fm->row_groups[g].columns_len; c++) {
            const pq_column_meta *m = &fm->row_groups[g].columns[c]->meta_data;
            sum = sum * 31 + (uint64_t)m->data_page_offset + (uint64_t)m->total_compressed_size;
            sum += m->statistics.null_count;
        }
    for (uint32_t i = 0; i < s->leaves_len; i++) sum = sum * 7 + strlen(s->leaves[i].path);
    return sum;
}

static void *walk_shared(void *arg)
{
    walk *w = arg;
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.metadata = w->md;
    for (int i = 0; i < 20; i++) {
        pq_error err;
        pq_reader *r = pq_reader_open_sans_io(1 << 20, &opts, &err);
        if (!r || pq_reader_advance(r, &err) != PQ_OK || checksum(pq_reader_metadata(r)) != w->expect)
            atomic_fetch_add(&w->failures, 1);
        /* Retain/release from many threads at once. */
        pq_metadata *extra = pq_metadata_retain(pq_reader_metadata(r));
        pq_reader_close(r);
        pq_metadata_release(extra);
    }
    return NULL;
}

START_TEST(one_metadata_shared_by_threads)
{
    char *path = pq_test_corpus_path("data/alltypes_tiny_pages.parquet");
    size_t len;
    uint8_t *img = pq_test_read_file(path, &len);
    ck_assert_ptr_nonnull(img);
    pq_error err;
    walk w;
    memset(&w, 0, sizeof w);
    w.md = pq_metadata_parse_tail(img, len, NULL, NULL, &err);
    ck_assert_msg(w.md, "%s", err.message);
    w.expect = checksum(w.md);

    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, walk_shared, &w), 0);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    ck_assert_int_eq(atomic_load(&w.failures), 0);
    ck_assert_uint_eq(checksum(w.md), w.expect);
    pq_metadata_release(w.md); /* the last reference */
    free(img);
    free(path);
}
END_TEST

int main(void)
{
    if (!pq_test_corpus_dir()) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    Suite *s = suite_create("concurrency: readers");
    TCase *tc = tcase_create("shared metadata");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, cached_opens_parse_each_footer_once);
    tcase_add_test(tc, one_metadata_shared_by_threads);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
