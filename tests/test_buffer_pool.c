/*
 * test_buffer_pool.c — the pool of large decode buffers (pages/buffer_pool.c)
 * and its public knobs pq_buffer_pool_set_limit / pq_buffer_pool_bytes.
 *
 * Oracle: hand-computed bookkeeping. The pool counts a block as its
 * malloc_usable_size (glibc rounds a request up a little; ASan reports it
 * exactly), so each expectation is built from the usable sizes of the test's
 * own blocks, measured before they are given. The end-to-end case decodes a
 * file once into fresh memory and again into pooled blocks that the test
 * first scribbles over: the two results must be the same, byte for byte.
 */
#include <check.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pages/buffer_pool.h"
#include "pqstep.h"
#include "test_util.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* The pool is process-wide: every test starts from an empty pool. */
static void pool_empty(void)
{
    pq_buffer_pool_set_limit(0);
    pq_buffer_pool_set_limit(PQ_BUFFER_POOL_DEFAULT);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
}

static void pool_default(void)
{
    pq_buffer_pool_set_limit(PQ_BUFFER_POOL_DEFAULT);
}

/* A block of n bytes, its first byte written (so it is really in use). */
static void *block(size_t n)
{
    uint8_t *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    p[0] = 1;
    return p;
}

static size_t usable(void *p)
{
    return malloc_usable_size(p);
}

START_TEST(small_blocks_are_not_kept)
{
    pool_empty();
    void *p = block(64 * KIB);
    pq_pool_give(p);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    /* Just under the threshold in usable bytes. */
    void *q = block(PQ_POOL_MIN_BYTES - 4 * KIB);
    ck_assert_uint_lt(usable(q), PQ_POOL_MIN_BYTES);
    pq_pool_give(q);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    pq_pool_give(NULL); /* ignored */
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    /* Exactly the threshold requested: usable >= it, kept. */
    void *r = block(PQ_POOL_MIN_BYTES);
    size_t ur = usable(r);
    pq_pool_give(r);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ur);
    pool_empty();
    pool_default();
}
END_TEST

START_TEST(a_large_block_is_kept_and_taken_back)
{
    pool_empty();
    void *p = block(MIB);
    size_t u = usable(p);
    ck_assert_uint_ge(u, MIB);
    pq_pool_give(p);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), u);

    size_t cap = 12345;
    /* Refusals: the block is larger than max, smaller than need, or need is
     * below half the threshold, or max < need. */
    ck_assert_ptr_null(pq_pool_take(256 * KIB, u - 1, &cap));
    ck_assert_ptr_null(pq_pool_take(u + 1, SIZE_MAX, &cap));
    ck_assert_ptr_null(pq_pool_take(PQ_POOL_MIN_BYTES / 2 - 1, SIZE_MAX, &cap));
    ck_assert_ptr_null(pq_pool_take(512 * KIB, 256 * KIB, &cap));
    ck_assert_ptr_null(pq_pool_take(0, SIZE_MAX, &cap));
    ck_assert_uint_eq(cap, 12345); /* untouched on NULL */
    ck_assert_uint_eq(pq_buffer_pool_bytes(), u);

    /* need == cap == max: the exact bounds are inclusive. */
    void *q = pq_pool_take(u, u, &cap);
    ck_assert_ptr_eq(q, p);
    ck_assert_uint_eq(cap, u);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    memset(q, 0x5a, cap); /* all of cap is usable */
    ck_assert_ptr_null(pq_pool_take(PQ_POOL_MIN_BYTES, SIZE_MAX, &cap)); /* gone */

    /* need at exactly half the threshold is allowed. */
    pq_pool_give(q);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), u);
    void *r = pq_pool_take(PQ_POOL_MIN_BYTES / 2, SIZE_MAX, &cap);
    ck_assert_ptr_eq(r, p);
    ck_assert_uint_eq(cap, u);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    free(r); /* a taken block is a plain malloc block */
    pool_default();
}
END_TEST

START_TEST(take_is_best_fit)
{
    pool_empty();
    void *a = block(256 * KIB), *b = block(MIB), *c = block(4 * MIB);
    size_t ua = usable(a), ub = usable(b), uc = usable(c);
    pq_pool_give(c); /* given out of order: the fit, not the slot, decides */
    pq_pool_give(a);
    pq_pool_give(b);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ua + ub + uc);

    size_t cap;
    void *p = pq_pool_take(300 * KIB, SIZE_MAX, &cap);
    ck_assert_ptr_eq(p, b);
    ck_assert_uint_eq(cap, ub);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ua + uc);
    /* Next best for 300 KiB is now the 4 MiB one; with max below it, none. */
    ck_assert_ptr_null(pq_pool_take(300 * KIB, 2 * MIB, &cap));
    void *q = pq_pool_take(100 * KIB, SIZE_MAX, &cap);
    ck_assert_ptr_eq(q, a);
    ck_assert_uint_eq(cap, ua);
    void *r = pq_pool_take(300 * KIB, SIZE_MAX, &cap);
    ck_assert_ptr_eq(r, c);
    ck_assert_uint_eq(cap, uc);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    free(p);
    free(q);
    free(r);
    pool_default();
}
END_TEST

START_TEST(the_byte_limit_holds)
{
    pool_empty();
    void *b[3];
    size_t u[3];
    for (int i = 0; i < 3; i++) {
        b[i] = block(MIB);
        u[i] = usable(b[i]);
    }
    /* 2.5 MiB: two 1 MiB blocks fit (with malloc's rounding), three do not. */
    pq_buffer_pool_set_limit(5 * MIB / 2);
    ck_assert_uint_le(u[0] + u[1], 5 * MIB / 2);
    pq_pool_give(b[0]);
    pq_pool_give(b[1]);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), u[0] + u[1]);
    pq_pool_give(b[2]); /* freed, not kept */
    ck_assert_uint_eq(pq_buffer_pool_bytes(), u[0] + u[1]);
    /* The two kept are the first two. */
    size_t cap;
    void *x = pq_pool_take(MIB, SIZE_MAX, &cap);
    void *y = pq_pool_take(MIB, SIZE_MAX, &cap);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    ck_assert_ptr_null(pq_pool_take(MIB, SIZE_MAX, &cap));
    ck_assert((x == b[0] && y == b[1]) || (x == b[1] && y == b[0]));
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    free(x);
    free(y);
    pool_default();
}
END_TEST

START_TEST(lowering_the_limit_frees_largest_first)
{
    pool_empty();
    void *a = block(256 * KIB), *b = block(MIB), *c = block(4 * MIB);
    size_t ua = usable(a), ub = usable(b), uc = usable(c);
    pq_pool_give(a);
    pq_pool_give(b);
    pq_pool_give(c);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ua + ub + uc);

    pq_buffer_pool_set_limit(ua + ub + uc); /* fits exactly: nothing freed */
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ua + ub + uc);
    pq_buffer_pool_set_limit(ua + ub); /* the 4 MiB block goes */
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ua + ub);
    pq_buffer_pool_set_limit(ua + ub - 1); /* then the 1 MiB one */
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ua);
    size_t cap;
    ck_assert_ptr_null(pq_pool_take(300 * KIB, SIZE_MAX, &cap));
    void *p = pq_pool_take(PQ_POOL_MIN_BYTES, SIZE_MAX, &cap);
    ck_assert_ptr_eq(p, a);
    ck_assert_uint_eq(cap, ua);
    /* Raising the limit frees nothing and keeps again. */
    pq_buffer_pool_set_limit(PQ_BUFFER_POOL_DEFAULT);
    pq_pool_give(p);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ua);
    pool_empty();
    pool_default();
}
END_TEST

START_TEST(limit_zero_empties_and_turns_off)
{
    pool_empty();
    void *a = block(256 * KIB), *b = block(2 * MIB);
    size_t ua = usable(a), ub = usable(b);
    pq_pool_give(a);
    pq_pool_give(b);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ua + ub);
    pq_buffer_pool_set_limit(0);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    size_t cap;
    ck_assert_ptr_null(pq_pool_take(PQ_POOL_MIN_BYTES, SIZE_MAX, &cap));
    pq_pool_give(block(MIB)); /* off: freed */
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    ck_assert_ptr_null(pq_pool_take(PQ_POOL_MIN_BYTES, SIZE_MAX, &cap));
    pool_default();
}
END_TEST

/* No slot count: two hundred blocks are all kept (under the
 * default limit) and each is taken out once. */
START_TEST(many_blocks_are_kept)
{
    pool_empty();
    enum { N = 200 }; /* 50 MiB: under the default limit */
    size_t sum = 0;
    void *given[N];
    for (int i = 0; i < N; i++) {
        given[i] = block(256 * KIB);
        sum += usable(given[i]);
        pq_pool_give(given[i]);
    }
    ck_assert_uint_eq(pq_buffer_pool_bytes(), sum);
    size_t cap;
    for (int i = 0; i < N; i++) {
        void *p = pq_pool_take(PQ_POOL_MIN_BYTES, SIZE_MAX, &cap);
        ck_assert_ptr_nonnull(p);
        int known = 0;
        for (int k = 0; k < N; k++)
            if (given[k] == p) {
                known = 1;
                given[k] = NULL; /* each block once */
            }
        ck_assert_msg(known, "block %d taken out was not one given (or was taken twice)", i);
        free(p);
    }
    ck_assert_ptr_null(pq_pool_take(PQ_POOL_MIN_BYTES, SIZE_MAX, &cap));
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    pool_default();
}
END_TEST

/* A block kept longer than the decay time is freed by the next use. */
START_TEST(old_blocks_decay)
{
    pool_empty();
    void *a = block(MIB);
    size_t ua = usable(a);
    pq_pool_give(a);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ua);
    pq_pool_set_decay_ns(50 * 1000000ull); /* 50 ms */
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ua); /* not old yet */
    struct timespec ts = {0, 120 * 1000000L};
    nanosleep(&ts, NULL);
    void *b = block(512 * KIB);
    size_t ub = usable(b);
    pq_pool_give(b); /* frees the 1 MiB block, keeps this one */
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ub);
    size_t cap;
    ck_assert_ptr_null(pq_pool_take(MIB, SIZE_MAX, &cap));
    void *p = pq_pool_take(PQ_POOL_MIN_BYTES, SIZE_MAX, &cap);
    ck_assert_ptr_eq(p, b);
    free(p);
    pq_pool_set_decay_ns(PQ_POOL_DECAY_NS);
    pool_default();
}
END_TEST

/* The default limit is an eighth of physical memory, clamped to
 * [64 MiB, 4 GiB], and PQ_BUFFER_POOL_DEFAULT sets it. */
START_TEST(the_default_limit)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    ck_assert(pages > 0 && page > 0);
    uint64_t want = (uint64_t)pages / 8 * (uint64_t)page;
    if (want < (64ull << 20)) want = 64ull << 20;
    if (want > (4ull << 30)) want = 4ull << 30;
    ck_assert_uint_eq(pq_buffer_pool_default_limit(), want);
    pool_empty();
    pq_buffer_pool_set_limit(MIB);
    pq_buffer_pool_set_limit(PQ_BUFFER_POOL_DEFAULT);
    void *p = block(8 * MIB); /* over the 1 MiB limit, under the default: kept */
    size_t u = usable(p);
    pq_pool_give(p);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), u);
    pool_empty();
    pool_default();
}
END_TEST

/* pq_pool_alloc takes a kept block that fits (at most a quarter larger),
 * else mallocs, and the miss frees what was kept. */
START_TEST(alloc_takes_a_kept_block)
{
    pool_empty();
    void *p = block(4 * MIB);
    pq_pool_give(p);
    void *r = pq_pool_alloc(4 * MIB - 4 * KIB);
    ck_assert_ptr_eq(r, p);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    pq_pool_give(r);
    void *q = pq_pool_alloc(2 * MIB); /* twice as large as asked: not taken, but freed */
    ck_assert_ptr_nonnull(q);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    free(q);
    pool_default();
}
END_TEST

/* An allocation that finds no block to take frees the oldest kept ones,
 * at least the bytes it asked for, newer ones staying: kept blocks never
 * pile up beside the fresh allocation the miss leads to. A take alone
 * frees nothing. */
START_TEST(a_miss_frees_the_oldest_blocks)
{
    pool_empty();
    void *a = block(MIB), *b = block(MIB), *c = block(4 * MIB), *d = block(512 * KIB);
    size_t ua = usable(a), ub = usable(b), uc = usable(c), ud = usable(d);
    pq_pool_give(a); /* oldest */
    pq_pool_give(b);
    pq_pool_give(c);
    pq_pool_give(d); /* newest */
    size_t cap;
    ck_assert_ptr_null(pq_pool_take(2 * MIB, 2 * MIB + MIB / 2, &cap));
    ck_assert_uint_eq(pq_buffer_pool_bytes(), ua + ub + uc + ud);
    void *p = pq_pool_alloc(2 * MIB); /* nothing in [2, 2.5] MiB: a and b (2 MiB) go */
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), uc + ud);
    void *q = pq_pool_alloc(8 * MIB); /* more than is kept: all of it goes */
    ck_assert_ptr_nonnull(q);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    free(p);
    free(q);
    pool_default();
}
END_TEST

/* Rounding: below half the threshold sizes stay; above, up to 64 KiB. */
START_TEST(sizes_round_to_the_grain)
{
    ck_assert_uint_eq(pq_pool_round(0), 0);
    ck_assert_uint_eq(pq_pool_round(PQ_POOL_MIN_BYTES / 2 - 1), PQ_POOL_MIN_BYTES / 2 - 1);
    ck_assert_uint_eq(pq_pool_round(64 * KIB), 64 * KIB);
    ck_assert_uint_eq(pq_pool_round(64 * KIB + 1), 128 * KIB);
    ck_assert_uint_eq(pq_pool_round(1822848), 28 * 64 * KIB); /* 1,835,008 */
    ck_assert_uint_eq(pq_pool_round(1808752), 28 * 64 * KIB);
    ck_assert_uint_eq(pq_pool_round(SIZE_MAX), SIZE_MAX); /* no wrap */
}
END_TEST

/* What a warm re-read does: many buffers a few bytes apart (one column's
 * row groups, decimal and view columns of the same rows) given back, then
 * asked for again in another order. Rounded, every ask takes a kept block;
 * best fit over unrounded sizes missed whenever a class's first blocks
 * were a few bytes too small. */
START_TEST(near_equal_sizes_are_all_taken_back)
{
    pool_empty();
    enum { N = 64 };
    size_t sizes[N];
    void *p[N], *got[N];
    for (int i = 0; i < N; i++) {
        sizes[i] = 1800000 + (size_t)((i * 7919) % 25000); /* 1.80 - 1.83 MB */
        p[i] = pq_pool_alloc(sizes[i]);
        ck_assert_ptr_nonnull(p[i]);
        ((uint8_t *)p[i])[sizes[i] - 1] = 1;
    }
    for (int i = 0; i < N; i++) pq_pool_give(p[i]);
    uint64_t kept = pq_buffer_pool_bytes();
    ck_assert_uint_gt(kept, 0);
    for (int i = N - 1; i >= 0; i--) { /* the largest asks come when the pool is nearly empty */
        void *q = pq_pool_alloc(sizes[(i * 37) % N]);
        ck_assert_ptr_nonnull(q);
        int found = 0;
        for (int j = 0; j < N; j++) found |= q == p[j];
        ck_assert_msg(found, "ask %d of %zu bytes missed the pool", i, sizes[(i * 37) % N]);
        got[i] = q;
    }
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    for (int i = 0; i < N; i++) free(got[i]);
    pool_default();
}
END_TEST

/* ---- end to end: decode, release into the pool, decode again ---- */


static int bit(const void *bits, int64_t i)
{
    return (((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1;
}

/* Two flat arrays of format f hold the same values, bytes compared. */
static void assert_same_flat(const char *what, const char *f, const struct ArrowArray *a,
                             const struct ArrowArray *b)
{
    ck_assert_int_eq(a->length, b->length);
    ck_assert_int_eq(a->null_count, b->null_count);
    ck_assert_int_eq(a->n_buffers, b->n_buffers);
    int64_t n = a->length, oa = a->offset, ob = b->offset;
    const void *va = a->n_buffers > 0 ? a->buffers[0] : NULL;
    const void *vb = b->n_buffers > 0 ? b->buffers[0] : NULL;
    for (int64_t i = 0; i < n; i++) {
        int x = va ? bit(va, oa + i) : 1, y = vb ? bit(vb, ob + i) : 1;
        ck_assert_msg(x == y, "%s: validity of row %lld differs", what, (long long)i);
    }
    size_t w = pq_test_arrow_fixed_width(f);
    if (f[0] == 'b') {
        for (int64_t i = 0; i < n; i++)
            ck_assert_msg(bit(a->buffers[1], oa + i) == bit(b->buffers[1], ob + i), "%s: row %lld", what,
                          (long long)i);
    } else if (w) {
        ck_assert_msg(!memcmp((const uint8_t *)a->buffers[1] + (size_t)oa * w,
                              (const uint8_t *)b->buffers[1] + (size_t)ob * w, (size_t)n * w),
                      "%s: values differ", what);
    } else if (f[0] == 'u' || f[0] == 'z') {
        const int32_t *xa = a->buffers[1], *xb = b->buffers[1];
        const uint8_t *da = a->buffers[2], *db = b->buffers[2];
        for (int64_t i = 0; i < n; i++) {
            int32_t la = xa[oa + i + 1] - xa[oa + i], lb = xb[ob + i + 1] - xb[ob + i];
            ck_assert_msg(la == lb, "%s: length of row %lld differs", what, (long long)i);
            ck_assert_msg(!memcmp(da + xa[oa + i], db + xb[ob + i], (size_t)la), "%s: row %lld differs", what,
                          (long long)i);
        }
    } else {
        ck_abort_msg("%s: format %s is not flat", what, f);
    }
}

typedef struct decoded {
    struct ArrowArray a;
    struct ArrowSchema s;
    pq_reader *r;
} decoded;

/* Decode row group 0 of path on one thread and export it. */
static void decode(const char *path, decoded *d)
{
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.threads = 1;
    pq_error err;
    d->r = pq_reader_open_path(path, &opts, &err);
    ck_assert_msg(d->r, "%s: %s", path, err.message);
    ck_assert_msg(pq_reader_advance_to(d->r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s: %s", path, err.message);
    ck_assert_msg(pq_reader_export_row_group(d->r, 0, &d->a, &d->s, &err) == PQ_OK, "%s: %s", path,
                  err.message);
}

static void release(decoded *d)
{
    pq_reader_close(d->r);
    d->a.release(&d->a);
    d->s.release(&d->s);
}

/* Every kept block, taken out of the pool (at most 4096). */
static int drain(void **held)
{
    int n = 0;
    size_t cap;
    void *p;
    while (n < 4096 && (p = pq_pool_take(PQ_POOL_MIN_BYTES / 2, SIZE_MAX, &cap))) held[n++] = p;
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    return n;
}

/* Fill every kept block with junk and give it back; their addresses go to
 * `addrs`. A decode that reads memory it did not write now sees garbage,
 * not the last decode's (identical) values. */
static int scribble_over_pool(void **addrs)
{
    uint64_t before = pq_buffer_pool_bytes();
    int n = drain(addrs);
    for (int i = 0; i < n; i++) {
        memset(addrs[i], 0xa5, malloc_usable_size(addrs[i]));
        pq_pool_give(addrs[i]);
    }
    ck_assert_uint_eq(pq_buffer_pool_bytes(), before);
    return n;
}

/* How many of the n blocks at addrs are no longer in the pool. */
static int taken_since(void *const *addrs, int n)
{
    void *held[4096];
    int m = drain(held), gone = 0;
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int k = 0; k < m; k++) found |= held[k] == addrs[i];
        gone += !found;
    }
    for (int k = 0; k < m; k++) pq_pool_give(held[k]);
    return gone;
}

/* Two exported batches of flat columns are equal, column by column. */
static void assert_same_batch(const char *rel, const decoded *x, const decoded *y)
{
    ck_assert_int_eq(x->a.n_children, y->a.n_children);
    ck_assert_int_eq(x->a.length, y->a.length);
    ck_assert_int_gt(x->a.length, 0);
    for (int64_t k = 0; k < x->a.n_children; k++) {
        const struct ArrowSchema *f = x->s.children[k];
        ck_assert_str_eq(f->format, y->s.children[k]->format);
        char what[300];
        snprintf(what, sizeof what, "%s column %s", rel, f->name);
        assert_same_flat(what, f->format, x->a.children[k], y->a.children[k]);
    }
}

/* Flat files whose column buffers or pages are over PQ_POOL_MIN_BYTES. */
static const char *FILES[] = {
    "data/lz4_raw_compressed_larger.parquet",    /* 10000 strings: ~360 KB of bytes */
    "data/hadoop_lz4_compressed_larger.parquet", /* the same, Hadoop LZ4 framing */
};

START_TEST(a_second_decode_into_pooled_buffers_is_the_same)
{
    const char *rel = FILES[_i];
    char *path = pq_test_corpus_path(rel);
    pool_empty();

    decoded first;
    decode(path, &first); /* the pool is empty: fresh memory */

    decoded off;
    pq_buffer_pool_set_limit(0); /* pool off: same result, nothing kept */
    decode(path, &off);
    assert_same_batch(rel, &first, &off);
    release(&off);
    ck_assert_uint_eq(pq_buffer_pool_bytes(), 0);
    pool_default();

    /* Released into the pool: a decode of this size leaves blocks behind. */
    decoded warm;
    decode(path, &warm);
    release(&warm);
    uint64_t kept = pq_buffer_pool_bytes();
    ck_assert_msg(kept > 0, "%s: nothing kept after the arrays were released", rel);
    ck_assert_uint_le(kept, pq_buffer_pool_default_limit());

    void *junk[4096];
    int njunk = scribble_over_pool(junk);
    decoded second;
    decode(path, &second);
    ck_assert_msg(taken_since(junk, njunk) > 0, "%s: the second decode took none of the %d kept blocks", rel,
                  njunk);

    assert_same_batch(rel, &first, &second);
    release(&first);
    release(&second);
    ck_assert_uint_gt(pq_buffer_pool_bytes(), 0);
    pool_empty();
    pool_default();
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("buffer pool");
    TCase *tc = tcase_create("pool");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, small_blocks_are_not_kept);
    tcase_add_test(tc, a_large_block_is_kept_and_taken_back);
    tcase_add_test(tc, take_is_best_fit);
    tcase_add_test(tc, the_byte_limit_holds);
    tcase_add_test(tc, lowering_the_limit_frees_largest_first);
    tcase_add_test(tc, limit_zero_empties_and_turns_off);
    tcase_add_test(tc, many_blocks_are_kept);
    tcase_add_test(tc, old_blocks_decay);
    tcase_add_test(tc, the_default_limit);
    tcase_add_test(tc, alloc_takes_a_kept_block);
    tcase_add_test(tc, a_miss_frees_the_oldest_blocks);
    tcase_add_test(tc, sizes_round_to_the_grain);
    tcase_add_test(tc, near_equal_sizes_are_all_taken_back);
    suite_add_tcase(s, tc);

    TCase *e2e = tcase_create("decode");
    tcase_set_timeout(e2e, 0);
    if (pq_test_corpus_dir())
        tcase_add_loop_test(e2e, a_second_decode_into_pooled_buffers_is_the_same, 0,
                            (int)(sizeof FILES / sizeof FILES[0]));
    else
        fprintf(stderr, "SKIP (part): end-to-end decode cases need the parquet-testing corpus "
                        "(set PQSTEP_TEST_CORPUS)\n");
    suite_add_tcase(s, e2e);

    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
