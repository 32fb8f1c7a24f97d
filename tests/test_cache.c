/*
 * test_cache.c — the metadata cache of pq_cache.h, one thread at a time:
 * put/get/erase, references, exact LRU order, the byte bound, counters,
 * single-flight bookkeeping of get_or_load, and file identity keys.
 *
 * The metadata objects are real footers of the parquet-testing corpus,
 * parsed with pq_metadata_parse(); expected row counts and schema sizes come
 * from the corpus manifest and pyarrow's printed schemas.
 */
#include <check.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pqstep.h"
#include "test_util.h"

/* Corpus files with their row count, schema element count and leaf count. */
typedef struct fixture {
    const char *rel;
    int64_t num_rows;
    uint32_t schema_len;
    uint32_t leaves;
    uint8_t *file;
    const uint8_t *footer;
    size_t footer_len;
} fixture;

enum { FX_ALLTYPES, FX_NESTED, FX_BINARY, FX_COUNT };

static fixture fx[FX_COUNT] = {
    [FX_ALLTYPES] = {"data/alltypes_plain.parquet", 8, 12, 11, NULL, NULL, 0},
    [FX_NESTED] = {"data/nested_lists.snappy.parquet", 3, 9, 2, NULL, NULL, 0},
    [FX_BINARY] = {"data/binary.parquet", 12, 2, 1, NULL, NULL, 0},
};

/* Read every fixture's footer; skip the whole test when the corpus is absent. */
static void load_fixtures(void)
{
    if (!pq_test_corpus_dir()) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    for (int i = 0; i < FX_COUNT; i++) {
        char *path = pq_test_corpus_path(fx[i].rel);
        size_t len = 0;
        fx[i].file = path ? pq_test_read_file(path, &len) : NULL;
        if (!fx[i].file) {
            fprintf(stderr, "cannot read %s\n", path ? path : fx[i].rel);
            pq_test_skip("a corpus file of this test is missing");
        }
        fx[i].footer = pq_test_footer_span(fx[i].file, len, &fx[i].footer_len);
        if (!fx[i].footer) {
            fprintf(stderr, "%s: no PAR1 footer\n", fx[i].rel);
            exit(1);
        }
        free(path);
    }
}

static pq_metadata *parse_fx(int i)
{
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse(fx[i].footer, fx[i].footer_len, NULL, &err);
    ck_assert_msg(md != NULL, "%s: %s", fx[i].rel, err.message);
    return md;
}

/* The metadata is the one of fixture i and is still readable. */
static void check_is_fx(const pq_metadata *md, int i)
{
    ck_assert_ptr_nonnull(md);
    const pq_file_metadata *f = pq_metadata_file(md);
    ck_assert_int_eq(f->num_rows, fx[i].num_rows);
    ck_assert_uint_eq(f->schema_len, fx[i].schema_len);
    ck_assert_uint_eq(pq_metadata_schema(md)->leaves_len, fx[i].leaves);
}

static pq_metadata_cache_stats stats_of(pq_metadata_cache *c)
{
    pq_metadata_cache_stats s;
    pq_metadata_cache_get_stats(c, &s);
    return s;
}

static void check_counters(pq_metadata_cache *c, uint64_t hits, uint64_t misses, uint64_t loads,
                           uint64_t evictions, uint64_t entries, uint64_t bytes)
{
    pq_metadata_cache_stats s = stats_of(c);
    ck_assert_uint_eq(s.hits, hits);
    ck_assert_uint_eq(s.misses, misses);
    ck_assert_uint_eq(s.loads, loads);
    ck_assert_uint_eq(s.evictions, evictions);
    ck_assert_uint_eq(s.entries, entries);
    ck_assert_uint_eq(s.bytes, bytes);
    ck_assert_uint_le(s.bytes, s.max_bytes);
}

static pq_metadata_cache *new_cache(size_t max_bytes)
{
    pq_error err = {0};
    pq_metadata_cache *c = pq_metadata_cache_create(max_bytes, &err);
    ck_assert_msg(c != NULL, "%s", err.message);
    ck_assert_uint_eq(stats_of(c).max_bytes, max_bytes);
    return c;
}

static void put_ok(pq_metadata_cache *c, const char *key, pq_metadata *md)
{
    pq_error err = {0};
    ck_assert_int_eq(pq_metadata_cache_put(c, key, strlen(key), md, &err), PQ_OK);
}

/* 1 when `key` is cached (a get: counts a hit or a miss, touches the entry). */
static int present(pq_metadata_cache *c, const char *key)
{
    pq_metadata *md = pq_metadata_cache_get(c, key, strlen(key));
    pq_metadata_release(md);
    return md != NULL;
}

/* ---------------------------------------------------------------------------
 * A loader that parses a fixture and counts its calls
 * ------------------------------------------------------------------------- */

typedef struct loader_ctx {
    const uint8_t *footer;
    size_t len;
    int calls;
    pq_status last_code;          /* the error the parse gave, when it failed */
    pq_metadata_cache *cache;     /* for loaders that touch the cache mid-load */
    const char *key;
    pq_metadata *put_md;
} loader_ctx;

static pq_metadata *parse_loader(void *user, pq_error *err)
{
    loader_ctx *ctx = user;
    ctx->calls++;
    pq_metadata *md = pq_metadata_parse(ctx->footer, ctx->len, NULL, err);
    if (!md) ctx->last_code = err->code;
    return md;
}

static pq_metadata *null_loader(void *user, pq_error *err)
{
    (void)err;
    ((loader_ctx *)user)->calls++;
    return NULL;
}

/* Erases its own key while loading: the result must not be kept. */
static pq_metadata *erasing_loader(void *user, pq_error *err)
{
    loader_ctx *ctx = user;
    ck_assert_int_eq(pq_metadata_cache_erase(ctx->cache, ctx->key, strlen(ctx->key)), 0);
    return parse_loader(user, err);
}

/* Puts another value under its own key while loading: the put must win. */
static pq_metadata *putting_loader(void *user, pq_error *err)
{
    loader_ctx *ctx = user;
    put_ok(ctx->cache, ctx->key, ctx->put_md);
    return parse_loader(user, err);
}

static loader_ctx fx_loader(int i)
{
    loader_ctx ctx = {fx[i].footer, fx[i].footer_len, 0, PQ_OK, NULL, NULL, NULL};
    return ctx;
}

/* ---------------------------------------------------------------------------
 * put / get / erase
 * ------------------------------------------------------------------------- */

START_TEST(test_put_get_erase)
{
    pq_metadata *a = parse_fx(FX_ALLTYPES), *b = parse_fx(FX_NESTED);
    size_t sa = pq_metadata_memory_size(a), sb = pq_metadata_memory_size(b);
    ck_assert_uint_gt(sa, 0);
    ck_assert_uint_gt(sb, 0);
    pq_metadata_cache *c = new_cache((size_t)1 << 30);
    check_counters(c, 0, 0, 0, 0, 0, 0);

    ck_assert_ptr_null(pq_metadata_cache_get(c, "A", 1));
    check_counters(c, 0, 1, 0, 0, 0, 0);

    put_ok(c, "A", a);
    check_counters(c, 0, 1, 0, 0, 1, sa);
    pq_metadata *got = pq_metadata_cache_get(c, "A", 1);
    ck_assert_ptr_eq(got, a);
    check_is_fx(got, FX_ALLTYPES);
    pq_metadata_release(got);
    check_counters(c, 1, 1, 0, 0, 1, sa);

    put_ok(c, "B", b);
    check_counters(c, 1, 1, 0, 0, 2, sa + sb);

    /* Replacing a key swaps the value and its bytes. */
    put_ok(c, "A", b);
    check_counters(c, 1, 1, 0, 0, 2, 2 * sb);
    got = pq_metadata_cache_get(c, "A", 1);
    ck_assert_ptr_eq(got, b);
    pq_metadata_release(got);
    /* Putting the same object again changes nothing but recency. */
    put_ok(c, "A", b);
    check_counters(c, 2, 1, 0, 0, 2, 2 * sb);

    ck_assert_int_eq(pq_metadata_cache_erase(c, "A", 1), 1);
    ck_assert_int_eq(pq_metadata_cache_erase(c, "A", 1), 0);
    ck_assert_int_eq(pq_metadata_cache_erase(c, "nope", 4), 0);
    check_counters(c, 2, 1, 0, 0, 1, sb);
    ck_assert_ptr_null(pq_metadata_cache_get(c, "A", 1));
    check_counters(c, 2, 2, 0, 0, 1, sb);
    got = pq_metadata_cache_get(c, "B", 1);
    ck_assert_ptr_eq(got, b);
    pq_metadata_release(got);

    ck_assert_int_eq(pq_metadata_cache_erase(c, "B", 1), 1);
    check_counters(c, 3, 2, 0, 0, 0, 0);

    pq_metadata_cache_destroy(c);
    pq_metadata_release(a);
    pq_metadata_release(b);
}
END_TEST

/* Keys are byte strings compared by length too: "k", "k\0", "" and a key
 * with a NUL in the middle are four different keys. */
START_TEST(test_binary_keys)
{
    pq_metadata *md[4] = {parse_fx(FX_ALLTYPES), parse_fx(FX_NESTED), parse_fx(FX_BINARY),
                          parse_fx(FX_ALLTYPES)};
    static const char k3[] = {'k', '\0', 'x'};
    const void *keys[4] = {"k", "k\0", "", k3};
    const size_t lens[4] = {1, 2, 0, 3};
    const int which[4] = {FX_ALLTYPES, FX_NESTED, FX_BINARY, FX_ALLTYPES};
    pq_error err = {0};
    pq_metadata_cache *c = new_cache((size_t)1 << 30);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pq_metadata_cache_put(c, keys[i], lens[i], md[i], &err), PQ_OK);
    ck_assert_uint_eq(stats_of(c).entries, 4);
    for (int i = 0; i < 4; i++) {
        pq_metadata *got = pq_metadata_cache_get(c, keys[i], lens[i]);
        ck_assert_ptr_eq(got, md[i]);
        check_is_fx(got, which[i]);
        pq_metadata_release(got);
    }
    ck_assert_ptr_null(pq_metadata_cache_get(c, "kx", 2));
    ck_assert_int_eq(pq_metadata_cache_erase(c, "", 0), 1);
    ck_assert_ptr_null(pq_metadata_cache_get(c, "", 0));
    ck_assert_uint_eq(stats_of(c).entries, 3);
    pq_metadata_cache_destroy(c);
    for (int i = 0; i < 4; i++) pq_metadata_release(md[i]);
}
END_TEST

/* Many keys: the table grows and keeps finding every entry. */
START_TEST(test_many_keys)
{
    pq_metadata *md = parse_fx(FX_BINARY);
    size_t s = pq_metadata_memory_size(md);
    pq_metadata_cache *c = new_cache((size_t)1 << 30);
    char key[32];
    for (int i = 0; i < 300; i++) {
        snprintf(key, sizeof key, "key-%d", i);
        put_ok(c, key, md);
    }
    check_counters(c, 0, 0, 0, 0, 300, 300 * s);
    for (int i = 0; i < 300; i++) {
        snprintf(key, sizeof key, "key-%d", i);
        ck_assert_msg(present(c, key), "%s lost", key);
    }
    for (int i = 0; i < 300; i += 2) {
        snprintf(key, sizeof key, "key-%d", i);
        ck_assert_int_eq(pq_metadata_cache_erase(c, key, strlen(key)), 1);
    }
    for (int i = 0; i < 300; i++) {
        snprintf(key, sizeof key, "key-%d", i);
        ck_assert_int_eq(present(c, key), i % 2);
    }
    check_counters(c, 300 + 150, 150, 0, 0, 150, 150 * s);
    pq_metadata_cache_destroy(c);
    pq_metadata_release(md);
}
END_TEST

START_TEST(test_invalid_arguments)
{
    pq_metadata *md = parse_fx(FX_BINARY);
    pq_metadata_cache *c = new_cache(1 << 20);
    pq_error err = {0};
    ck_assert_int_eq(pq_metadata_cache_put(c, "k", 1, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_metadata_cache_put(NULL, "k", 1, md, NULL), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_metadata_cache_put(c, NULL, 3, md, NULL), PQ_ERR_INVALID_ARGUMENT);
    err.code = PQ_OK;
    int hit = -1;
    ck_assert_ptr_null(pq_metadata_cache_get_or_load(c, "k", 1, NULL, NULL, &hit, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hit, 0);
    ck_assert_ptr_null(pq_metadata_cache_get(NULL, "k", 1));
    ck_assert_int_eq(pq_metadata_cache_erase(NULL, "k", 1), 0);
    check_counters(c, 0, 0, 0, 0, 0, 0);
    pq_metadata_cache_destroy(c);
    pq_metadata_cache_destroy(NULL);
    pq_metadata_release(md);
}
END_TEST

/* ---------------------------------------------------------------------------
 * References
 * ------------------------------------------------------------------------- */

START_TEST(test_refcounts)
{
    pq_metadata *a = parse_fx(FX_ALLTYPES), *b = parse_fx(FX_ALLTYPES);
    size_t sa = pq_metadata_memory_size(a), sb = pq_metadata_memory_size(b);
    pq_metadata_cache *c = new_cache(sa > sb ? sa : sb); /* room for one of them */

    /* The cache keeps its own reference: drop ours, the entry still works. */
    put_ok(c, "A", a);
    pq_metadata_release(a);
    pq_metadata *holder = pq_metadata_cache_get(c, "A", 1);
    check_is_fx(holder, FX_ALLTYPES);

    /* Evict it: the holder's reference keeps it alive and readable. */
    put_ok(c, "B", b);
    pq_metadata_release(b);
    ck_assert_ptr_null(pq_metadata_cache_get(c, "A", 1));
    check_counters(c, 1, 1, 0, 1, 1, sb);
    check_is_fx(holder, FX_ALLTYPES);
    ck_assert_ptr_nonnull(pq_metadata_schema(holder)->leaves[10].path);
    pq_metadata_release(holder);

    /* Erase and destroy also leave handed-out references valid. */
    holder = pq_metadata_cache_get(c, "B", 1);
    ck_assert_int_eq(pq_metadata_cache_erase(c, "B", 1), 1);
    check_is_fx(holder, FX_ALLTYPES);
    put_ok(c, "B", holder);
    pq_metadata *second = pq_metadata_cache_get(c, "B", 1);
    ck_assert_ptr_eq(second, holder);
    pq_metadata_cache_destroy(c);
    check_is_fx(holder, FX_ALLTYPES);
    check_is_fx(second, FX_ALLTYPES);
    pq_metadata_release(holder);
    check_is_fx(second, FX_ALLTYPES);
    pq_metadata_release(second);
}
END_TEST

/* ---------------------------------------------------------------------------
 * LRU order and the byte bound
 * ------------------------------------------------------------------------- */

START_TEST(test_lru_evicts_oldest)
{
    pq_metadata *m[3] = {parse_fx(FX_ALLTYPES), parse_fx(FX_ALLTYPES), parse_fx(FX_ALLTYPES)};
    size_t s[3], total = 0;
    for (int i = 0; i < 3; i++) total += s[i] = pq_metadata_memory_size(m[i]);
    /* Any two fit, the three do not. */
    pq_metadata_cache *c = new_cache(total - 1);
    put_ok(c, "A", m[0]);
    put_ok(c, "B", m[1]);
    check_counters(c, 0, 0, 0, 0, 2, s[0] + s[1]);
    put_ok(c, "C", m[2]);
    check_counters(c, 0, 0, 0, 1, 2, s[1] + s[2]);
    ck_assert(!present(c, "A"));
    ck_assert(present(c, "B"));
    ck_assert(present(c, "C"));
    pq_metadata_cache_destroy(c);

    /* Touching A makes B the least recently used. */
    c = new_cache(total - 1);
    put_ok(c, "A", m[0]);
    put_ok(c, "B", m[1]);
    ck_assert(present(c, "A"));
    put_ok(c, "C", m[2]);
    check_counters(c, 1, 0, 0, 1, 2, s[0] + s[2]);
    ck_assert(!present(c, "B"));
    ck_assert(present(c, "A"));
    ck_assert(present(c, "C"));
    pq_metadata_cache_destroy(c);

    /* A bound of exactly two entries keeps both: only going over evicts. */
    c = new_cache(s[0] + s[1]);
    put_ok(c, "A", m[0]);
    put_ok(c, "B", m[1]);
    check_counters(c, 0, 0, 0, 0, 2, s[0] + s[1]);
    pq_metadata_cache_destroy(c);

    /* A put of an existing key refreshes it too. */
    c = new_cache(total - 1);
    put_ok(c, "A", m[0]);
    put_ok(c, "B", m[1]);
    put_ok(c, "A", m[0]);
    put_ok(c, "C", m[2]);
    check_counters(c, 0, 0, 0, 1, 2, s[0] + s[2]);
    ck_assert(!present(c, "B"));
    pq_metadata_cache_destroy(c);
    for (int i = 0; i < 3; i++) pq_metadata_release(m[i]);
}
END_TEST

/* A longer sequence with equal-sized entries and a bound of three: every
 * victim is exactly the least recently used (get, put and get_or_load hits
 * all count as a use). */
START_TEST(test_lru_sequence)
{
    pq_metadata *md = parse_fx(FX_NESTED);
    size_t s = pq_metadata_memory_size(md);
    pq_metadata_cache *c = new_cache(3 * s + s / 2);
    loader_ctx ctx = fx_loader(FX_NESTED);
    int hit = -1;

    put_ok(c, "1", md);
    put_ok(c, "2", md);
    put_ok(c, "3", md);
    put_ok(c, "4", md);                     /* evicts 1; order 4 3 2 */
    ck_assert(!present(c, "1"));
    ck_assert(present(c, "2"));             /* order 2 4 3 */
    put_ok(c, "5", md);                     /* evicts 3; order 5 2 4 */
    pq_metadata *got = pq_metadata_cache_get_or_load(c, "4", 1, parse_loader, &ctx, &hit, NULL);
    ck_assert_ptr_eq(got, md);              /* a hit: order 4 5 2 */
    ck_assert_int_eq(hit, 1);
    ck_assert_int_eq(ctx.calls, 0);
    pq_metadata_release(got);
    put_ok(c, "6", md);                     /* evicts 2; order 6 4 5 */
    check_counters(c, 2, 1, 0, 3, 3, 3 * s);
    const char *gone[] = {"1", "2", "3"}, *kept[] = {"4", "5", "6"};
    for (int i = 0; i < 3; i++) ck_assert_msg(!present(c, gone[i]), "%s kept", gone[i]);
    for (int i = 0; i < 3; i++) ck_assert_msg(present(c, kept[i]), "%s evicted", kept[i]);
    check_counters(c, 5, 4, 0, 3, 3, 3 * s);
    pq_metadata_cache_destroy(c);
    pq_metadata_release(md);
}
END_TEST

START_TEST(test_byte_bound)
{
    pq_metadata *m[FX_COUNT];
    size_t s[FX_COUNT];
    for (int i = 0; i < FX_COUNT; i++) {
        m[i] = parse_fx(i);
        s[i] = pq_metadata_memory_size(m[i]);
    }
    /* Not a multiple of any entry: eviction has to stop at the right place. */
    size_t bound = s[FX_ALLTYPES] + s[FX_BINARY] + s[FX_NESTED] / 2;
    pq_metadata_cache *c = new_cache(bound);
    enum { KEYS = 7 };
    char key[16];
    uint64_t evictions = 0;
    for (int round = 0; round < 40; round++) {
        int k = (round * 3) % KEYS, f = (round + k) % FX_COUNT;
        snprintf(key, sizeof key, "k%d", k);
        put_ok(c, key, m[f]);
        pq_metadata_cache_stats st = stats_of(c);
        ck_assert_uint_le(st.bytes, bound);
        ck_assert_uint_ge(st.evictions, evictions);
        evictions = st.evictions;
        /* The bytes are those of the entries present, and the newest is kept. */
        uint64_t sum = 0, n = 0;
        for (int j = 0; j < KEYS; j++) {
            snprintf(key, sizeof key, "k%d", j);
            pq_metadata *got = pq_metadata_cache_get(c, key, strlen(key));
            if (!got) continue;
            sum += pq_metadata_memory_size(got);
            n++;
            if (j == k) ck_assert_ptr_eq(got, m[f]);
            pq_metadata_release(got);
        }
        ck_assert_uint_eq(sum, st.bytes);
        ck_assert_uint_eq(n, st.entries);
        snprintf(key, sizeof key, "k%d", k);
        ck_assert(present(c, key));
    }
    ck_assert_uint_gt(evictions, 0);
    pq_metadata_cache_destroy(c);
    for (int i = 0; i < FX_COUNT; i++) pq_metadata_release(m[i]);
}
END_TEST

START_TEST(test_oversize_not_kept)
{
    pq_metadata *big = parse_fx(FX_ALLTYPES), *small = parse_fx(FX_BINARY);
    size_t sb = pq_metadata_memory_size(big), ss = pq_metadata_memory_size(small);
    ck_assert_uint_lt(ss, sb);
    pq_metadata_cache *c = new_cache(ss); /* an entry of exactly max_bytes fits */

    put_ok(c, "small", small);
    check_counters(c, 0, 0, 0, 0, 1, ss);
    put_ok(c, "big", big); /* accepted, not kept, and nothing evicted for it */
    check_counters(c, 0, 0, 0, 0, 1, ss);
    ck_assert(!present(c, "big"));
    ck_assert(present(c, "small"));

    /* Replacing a key by an oversize value drops the old value. */
    put_ok(c, "small", big);
    check_counters(c, 1, 1, 0, 0, 0, 0);
    ck_assert(!present(c, "small"));

    /* get_or_load still returns an oversize result, but parses every time. */
    loader_ctx ctx = fx_loader(FX_ALLTYPES);
    pq_error err = {0};
    int hit = -1;
    uint64_t parses = pq_footer_parse_count();
    for (int i = 1; i <= 2; i++) {
        pq_metadata *got = pq_metadata_cache_get_or_load(c, "big", 3, parse_loader, &ctx, &hit, &err);
        check_is_fx(got, FX_ALLTYPES);
        ck_assert_int_eq(hit, 0);
        ck_assert_int_eq(ctx.calls, i);
        pq_metadata_release(got);
    }
    ck_assert_uint_eq(pq_footer_parse_count() - parses, 2);
    check_counters(c, 1, 4, 2, 0, 0, 0);

    /* A zero bound keeps nothing. */
    pq_metadata_cache *none = new_cache(0);
    put_ok(none, "small", small);
    check_counters(none, 0, 0, 0, 0, 0, 0);
    pq_metadata_cache_destroy(none);

    pq_metadata_cache_destroy(c);
    pq_metadata_release(big);
    pq_metadata_release(small);
}
END_TEST

/* ---------------------------------------------------------------------------
 * get_or_load
 * ------------------------------------------------------------------------- */

START_TEST(test_get_or_load_once)
{
    pq_metadata_cache *c = new_cache((size_t)1 << 30);
    loader_ctx ctx = fx_loader(FX_NESTED);
    pq_error err = {0};
    int hit = -1;
    uint64_t parses = pq_footer_parse_count();

    pq_metadata *first = pq_metadata_cache_get_or_load(c, "n", 1, parse_loader, &ctx, &hit, &err);
    check_is_fx(first, FX_NESTED);
    ck_assert_int_eq(hit, 0);
    ck_assert_int_eq(ctx.calls, 1);
    ck_assert_uint_eq(pq_footer_parse_count() - parses, 1);
    size_t s = pq_metadata_memory_size(first);
    check_counters(c, 0, 1, 1, 0, 1, s);

    for (int i = 0; i < 3; i++) {
        hit = -1;
        pq_metadata *again = pq_metadata_cache_get_or_load(c, "n", 1, parse_loader, &ctx, &hit, &err);
        ck_assert_ptr_eq(again, first);
        ck_assert_int_eq(hit, 1);
        pq_metadata_release(again);
    }
    pq_metadata *got = pq_metadata_cache_get(c, "n", 1);
    ck_assert_ptr_eq(got, first);
    pq_metadata_release(got);
    ck_assert_int_eq(ctx.calls, 1);
    ck_assert_uint_eq(pq_footer_parse_count() - parses, 1);
    check_counters(c, 4, 1, 1, 0, 1, s);

    /* A different key is a different load, even for the same bytes. */
    pq_metadata *other = pq_metadata_cache_get_or_load(c, "n2", 2, parse_loader, &ctx, NULL, &err);
    check_is_fx(other, FX_NESTED);
    ck_assert_ptr_ne(other, first);
    ck_assert_int_eq(ctx.calls, 2);
    ck_assert_uint_eq(pq_footer_parse_count() - parses, 2);
    check_counters(c, 4, 2, 2, 0, 2, s + pq_metadata_memory_size(other));

    /* After an erase the key is loaded again. */
    ck_assert_int_eq(pq_metadata_cache_erase(c, "n", 1), 1);
    pq_metadata *reloaded = pq_metadata_cache_get_or_load(c, "n", 1, parse_loader, &ctx, &hit, &err);
    check_is_fx(reloaded, FX_NESTED);
    ck_assert_ptr_ne(reloaded, first);
    ck_assert_int_eq(hit, 0);
    ck_assert_int_eq(ctx.calls, 3);
    ck_assert_uint_eq(pq_footer_parse_count() - parses, 3);

    pq_metadata_cache_destroy(c);
    check_is_fx(first, FX_NESTED);
    pq_metadata_release(first);
    pq_metadata_release(other);
    pq_metadata_release(reloaded);
}
END_TEST

START_TEST(test_get_or_load_error)
{
    /* Bytes that are no FileMetaData: a field header of type 0xF (invalid). */
    static const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    pq_error ref = {0};
    ck_assert_ptr_null(pq_metadata_parse(garbage, sizeof garbage, NULL, &ref));
    ck_assert_int_ne(ref.code, PQ_OK);

    pq_metadata_cache *c = new_cache((size_t)1 << 30);
    loader_ctx ctx = {garbage, sizeof garbage, 0, PQ_OK, NULL, NULL, NULL};
    for (int i = 1; i <= 2; i++) {
        pq_error err = {PQ_OK, ""};
        int hit = -1;
        ck_assert_ptr_null(pq_metadata_cache_get_or_load(c, "bad", 3, parse_loader, &ctx, &hit, &err));
        ck_assert_int_eq(hit, 0);
        ck_assert_int_eq(err.code, ref.code);
        ck_assert_str_eq(err.message, ref.message);
        ck_assert_int_eq(ctx.calls, i); /* failures are not cached: each call retries */
    }
    check_counters(c, 0, 2, 2, 0, 0, 0);

    /* Once the loader succeeds the entry is there. */
    ctx.footer = fx[FX_BINARY].footer;
    ctx.len = fx[FX_BINARY].footer_len;
    pq_metadata *md = pq_metadata_cache_get_or_load(c, "bad", 3, parse_loader, &ctx, NULL, NULL);
    check_is_fx(md, FX_BINARY);
    check_counters(c, 0, 3, 3, 0, 1, pq_metadata_memory_size(md));
    pq_metadata_release(md);

    /* A loader that fails without saying why still yields an error. */
    loader_ctx quiet = {NULL, 0, 0, PQ_OK, NULL, NULL, NULL};
    pq_error err = {PQ_OK, ""};
    ck_assert_ptr_null(pq_metadata_cache_get_or_load(c, "q", 1, null_loader, &quiet, NULL, &err));
    ck_assert_int_ne(err.code, PQ_OK);
    ck_assert_int_eq(quiet.calls, 1);
    pq_metadata_cache_destroy(c);
}
END_TEST

/* The loader runs without the cache's lock: it may call the cache, and an
 * erase or put of its key during the load decides what stays cached. */
START_TEST(test_cache_calls_during_load)
{
    pq_metadata_cache *c = new_cache((size_t)1 << 30);
    pq_error err = {0};
    int hit = -1;

    loader_ctx ctx = fx_loader(FX_NESTED);
    ctx.cache = c;
    ctx.key = "e";
    pq_metadata *md = pq_metadata_cache_get_or_load(c, "e", 1, erasing_loader, &ctx, &hit, &err);
    check_is_fx(md, FX_NESTED); /* the caller gets its result ... */
    ck_assert_int_eq(hit, 0);
    pq_metadata_release(md);
    ck_assert(!present(c, "e"));  /* ... but the erased key stays empty */
    ck_assert_uint_eq(stats_of(c).entries, 0);

    pq_metadata *put_md = parse_fx(FX_BINARY);
    loader_ctx pctx = fx_loader(FX_NESTED);
    pctx.cache = c;
    pctx.key = "p";
    pctx.put_md = put_md;
    md = pq_metadata_cache_get_or_load(c, "p", 1, putting_loader, &pctx, &hit, &err);
    check_is_fx(md, FX_NESTED);
    pq_metadata_release(md);
    pq_metadata *got = pq_metadata_cache_get(c, "p", 1);
    ck_assert_ptr_eq(got, put_md); /* the put during the load wins */
    pq_metadata_release(got);
    check_counters(c, 1, 3, 2, 0, 1, pq_metadata_memory_size(put_md));

    pq_metadata_cache_destroy(c);
    pq_metadata_release(put_md);
}
END_TEST

/* ---------------------------------------------------------------------------
 * File identity keys
 * ------------------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    ck_assert_int_eq(fclose(f), 0);
}

static void set_mtime(const char *path, time_t sec, long nsec)
{
    struct timespec ts[2] = {{sec, nsec}, {sec, nsec}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* The documented layout, built here by hand. */
static size_t expected_key(const char *path, uint64_t size, uint64_t mtime_ns, uint8_t *out)
{
    size_t n = strlen(path);
    memcpy(out, path, n);
    out[n++] = 0;
    for (int i = 0; i < 8; i++) out[n++] = (uint8_t)(size >> (8 * i));
    out[n++] = 0;
    for (int i = 0; i < 8; i++) out[n++] = (uint8_t)(mtime_ns >> (8 * i));
    return n;
}

START_TEST(test_key_for_path)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/pqstep_cache_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f.parquet", dir);

    write_file(path, "abc");
    set_mtime(path, 1700000000, 123456789);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    int ns_precise = st.st_mtim.tv_nsec == 123456789;
    uint64_t mtime1 = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    if (!ns_precise) fprintf(stderr, "note: %s keeps no nanosecond mtimes\n", dir);
    else ck_assert_uint_eq(mtime1, 1700000000123456789ull);

    uint8_t key1[700], want[700];
    pq_error err = {0};
    size_t n1 = pq_metadata_cache_key_for_path(path, key1, sizeof key1, &err);
    size_t wn = expected_key(path, 3, mtime1, want);
    ck_assert_uint_eq(n1, strlen(path) + 18);
    ck_assert_uint_eq(n1, wn);
    ck_assert_mem_eq(key1, want, wn);

    /* Too small a buffer: the length needed, nothing written. */
    uint8_t small[16];
    memset(small, 0xAA, sizeof small);
    ck_assert_uint_eq(pq_metadata_cache_key_for_path(path, small, sizeof small, &err), n1);
    for (size_t i = 0; i < sizeof small; i++) ck_assert_uint_eq(small[i], 0xAA);
    ck_assert_uint_eq(pq_metadata_cache_key_for_path(path, NULL, 0, &err), n1);
    ck_assert_uint_eq(pq_metadata_cache_key_for_path(path, key1, n1 - 1, &err), n1);
    ck_assert_uint_eq(pq_metadata_cache_key_for_path(path, key1, n1, &err), n1);
    ck_assert_mem_eq(key1, want, wn);

    /* Same size and mtime: same key. */
    uint8_t key2[700];
    write_file(path, "xyz");
    set_mtime(path, 1700000000, 123456789);
    ck_assert_uint_eq(pq_metadata_cache_key_for_path(path, key2, sizeof key2, &err), n1);
    ck_assert_mem_eq(key2, key1, n1);

    /* Rewritten with another size, same mtime: a new key (the size differs). */
    write_file(path, "abcd");
    set_mtime(path, 1700000000, 123456789);
    ck_assert_uint_eq(pq_metadata_cache_key_for_path(path, key2, sizeof key2, &err), n1);
    ck_assert_mem_ne(key2, key1, n1);
    expected_key(path, 4, mtime1, want);
    ck_assert_mem_eq(key2, want, n1);

    /* Same size, another mtime: a new key. */
    write_file(path, "abc");
    set_mtime(path, 1700000001, ns_precise ? 123456790 : 0);
    ck_assert_int_eq(stat(path, &st), 0);
    uint64_t mtime2 = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    ck_assert_uint_ne(mtime2, mtime1);
    ck_assert_uint_eq(pq_metadata_cache_key_for_path(path, key2, sizeof key2, &err), n1);
    ck_assert_mem_ne(key2, key1, n1);
    expected_key(path, 3, mtime2, want);
    ck_assert_mem_eq(key2, want, n1);

    /* Only the nanoseconds change: still a new key. */
    if (ns_precise) {
        set_mtime(path, 1700000001, 123456791);
        uint8_t key3[700];
        ck_assert_uint_eq(pq_metadata_cache_key_for_path(path, key3, sizeof key3, &err), n1);
        ck_assert_mem_ne(key3, key2, n1);
        expected_key(path, 3, 1700000001123456791ull, want);
        ck_assert_mem_eq(key3, want, n1);
    }

    /* stat() failure. */
    ck_assert_int_eq(unlink(path), 0);
    err.code = PQ_OK;
    err.message[0] = '\0';
    ck_assert_uint_eq(pq_metadata_cache_key_for_path(path, key2, sizeof key2, &err), 0);
    ck_assert_int_eq(err.code, PQ_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, path));
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Cached by path key: the rewritten file is a miss, the old entry stays
 * until evicted or erased. */
START_TEST(test_key_for_path_with_cache)
{
    char *path = pq_test_corpus_path(fx[FX_BINARY].rel);
    uint8_t key[4096];
    pq_error err = {0};
    size_t n = pq_metadata_cache_key_for_path(path, key, sizeof key, &err);
    ck_assert_msg(n > 0 && n <= sizeof key, "%s", err.message);
    pq_metadata_cache *c = new_cache((size_t)1 << 30);
    loader_ctx ctx = fx_loader(FX_BINARY);
    int hit = -1;
    for (int i = 0; i < 2; i++) {
        pq_metadata *md = pq_metadata_cache_get_or_load(c, key, n, parse_loader, &ctx, &hit, &err);
        check_is_fx(md, FX_BINARY);
        ck_assert_int_eq(hit, i);
        pq_metadata_release(md);
    }
    ck_assert_int_eq(ctx.calls, 1);
    pq_metadata_cache_destroy(c);
    free(path);
}
END_TEST

static Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *basic = tcase_create("basic");
    tcase_set_timeout(basic, 0); /* no time limit */
    tcase_add_test(basic, test_put_get_erase);
    tcase_add_test(basic, test_binary_keys);
    tcase_add_test(basic, test_many_keys);
    tcase_add_test(basic, test_invalid_arguments);
    tcase_add_test(basic, test_refcounts);
    suite_add_tcase(s, basic);
    TCase *bound = tcase_create("bound");
    tcase_set_timeout(bound, 0); /* no time limit */
    tcase_add_test(bound, test_lru_evicts_oldest);
    tcase_add_test(bound, test_lru_sequence);
    tcase_add_test(bound, test_byte_bound);
    tcase_add_test(bound, test_oversize_not_kept);
    suite_add_tcase(s, bound);
    TCase *load = tcase_create("load");
    tcase_set_timeout(load, 0); /* no time limit */
    tcase_add_test(load, test_get_or_load_once);
    tcase_add_test(load, test_get_or_load_error);
    tcase_add_test(load, test_cache_calls_during_load);
    suite_add_tcase(s, load);
    TCase *keys = tcase_create("keys");
    tcase_set_timeout(keys, 0); /* no time limit */
    tcase_add_test(keys, test_key_for_path);
    tcase_add_test(keys, test_key_for_path_with_cache);
    suite_add_tcase(s, keys);
    return s;
}

int main(void)
{
    load_fixtures();
    SRunner *sr = srunner_create(cache_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    for (int i = 0; i < FX_COUNT; i++) free(fx[i].file);
    return failed ? 1 : 0;
}
