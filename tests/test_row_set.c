/*
 * test_row_set.c — the row sets of reader/row_set.c: building (merging of
 * adjacent and overlapping runs, the inline span giving way to the heap),
 * containment, hit queries and overlaps on a cursor, mapping keep bits from
 * one set onto another, and bit counting.
 *
 * Oracle: hand-worked cases, and random ones checked against a naive model
 * written here: one bool per row ("row in the set") over a few hundred rows,
 * and for keep bits one bool per row of the set, in order. Random cases use
 * a fixed-seed xorshift, so a failure repeats. This suite also runs under
 * ASan + UBSan; bit buffers are malloc'd at their exact size so a read past
 * them is caught.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/row_set.h"

#define N 300 /* rows the random sets live in */
#define M 400 /* rows of the model: queries may run past N */

/* ---- the naive model ---- */

static uint64_t rng;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t below(uint64_t n)
{
    return n ? rnd() % n : 0;
}

static bool getbit(const uint8_t *v, uint64_t i)
{
    return (v[i >> 3] >> (i & 7)) & 1;
}

/* A random set as a model: runs of 1..len rows with gaps of 0..gap rows
 * (0: the runs touch), starting at `from`; sometimes empty. */
static void random_model(bool *m, uint64_t from)
{
    static const uint64_t lens[] = {1, 3, 10, 40, 100};
    static const uint64_t gaps[] = {0, 1, 3, 10, 40};
    memset(m, 0, M);
    if (below(20) == 0) return;
    uint64_t len = lens[below(5)], gap = gaps[below(5)];
    for (uint64_t r = from + below(gap + 1); r < N;) {
        uint64_t k = 1 + below(len);
        for (uint64_t i = r; i < r + k && i < N; i++) m[i] = true;
        r += k + below(gap + 1);
    }
}

/* rank[r]: rows of the model before row r. Returns the rows in it. */
static uint64_t ranks(const bool *m, uint64_t *rank)
{
    uint64_t n = 0;
    for (size_t r = 0; r < M; r++) {
        rank[r] = n;
        n += m[r];
    }
    return n;
}

/* Keep bits for `rows` rows: exactly (rows + 7) / 8 bytes with the unused
 * high bits random too, and kb[i] the bit of row i. Density: none, few,
 * half, most or all. */
static uint8_t *random_keep(uint64_t rows, bool *kb)
{
    static const unsigned eighths[] = {0, 1, 4, 7, 8};
    unsigned p = eighths[below(5)];
    size_t nb = (size_t)((rows + 7) / 8);
    uint8_t *keep = malloc(nb ? nb : 1);
    ck_assert_ptr_nonnull(keep);
    for (size_t i = 0; i < nb; i++) keep[i] = (uint8_t)rnd();
    for (uint64_t i = 0; i < rows; i++) {
        kb[i] = below(8) < p;
        keep[i >> 3] = (uint8_t)((keep[i >> 3] & ~(1u << (i & 7))) | ((unsigned)kb[i] << (i & 7)));
    }
    return keep;
}

/* Build the set of model m[0, M) with pq_row_set_add, each run in random
 * pieces: pieces that touch, pieces that start inside the run added so far
 * (overlap), adds of zero rows, and sometimes pq_row_set_init for the first. */
static void build(pq_row_set *s, const bool *m)
{
    pq_row_set_init(s, 0, 0);
    for (uint64_t r = 0; r < M;) {
        if (!m[r]) {
            r++;
            continue;
        }
        uint64_t y = r;
        while (y < M && m[y]) y++;
        for (uint64_t done = r; done < y;) { /* [r, done) is in the set */
            uint64_t end = done + 1 + below(y - done);
            uint64_t from = done;
            if (done > r && below(3) == 0) from = r + below(done - r + 1);
            if (s->n == 0 && below(2) == 0) pq_row_set_init(s, from, end - from);
            else ck_assert(pq_row_set_add(s, from, end - from));
            if (below(8) == 0) ck_assert(pq_row_set_add(s, end, 0));
            done = end;
        }
        r = y;
    }
}

/* The set holds exactly the rows of model m, as sorted, disjoint,
 * non-adjacent runs, with the right counts. */
static void check_set(const pq_row_set *s, const bool *m)
{
    bool got[M] = {false};
    const pq_row_span *sp = pq_row_set_spans(s);
    uint64_t rows = 0;
    if (s->n > 1) {
        ck_assert_ptr_eq(sp, s->more);
        ck_assert_uint_ge(s->cap, s->n);
    }
    for (size_t i = 0; i < s->n; i++) {
        ck_assert_uint_gt(sp[i].count, 0);
        if (i) ck_assert_uint_gt(sp[i].first, sp[i - 1].first + sp[i - 1].count);
        ck_assert_uint_le(sp[i].first + sp[i].count, M);
        for (uint64_t r = sp[i].first; r < sp[i].first + sp[i].count; r++) got[r] = true;
        rows += sp[i].count;
    }
    ck_assert_uint_eq(s->rows, rows);
    size_t runs = 0;
    uint64_t first = 0, end = 0, n = 0;
    for (uint64_t r = 0; r < M; r++) {
        ck_assert_msg(got[r] == m[r], "row %llu: set %d, model %d", (unsigned long long)r, got[r], m[r]);
        if (m[r]) {
            if (!n++) first = r;
            end = r + 1;
            if (r == 0 || !m[r - 1]) runs++;
        }
    }
    ck_assert_uint_eq(s->n, runs);
    ck_assert_uint_eq(s->rows, n);
    ck_assert_uint_eq(pq_row_set_first(s), first);
    ck_assert_uint_eq(pq_row_set_end(s), end);
}

/* Whether [a, b) holds a row of the model whose keep bit is set. */
static bool naive_hits(const bool *m, const uint64_t *rank, const bool *kb, uint64_t a, uint64_t b)
{
    for (uint64_t r = a; r < b && r < M; r++)
        if (m[r] && (!kb || kb[rank[r]])) return true;
    return false;
}

/* ---- building ---- */

static void expect_spans(const pq_row_set *s, const pq_row_span *want, size_t n)
{
    ck_assert_uint_eq(s->n, n);
    uint64_t rows = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(pq_row_set_spans(s)[i].first, want[i].first);
        ck_assert_uint_eq(pq_row_set_spans(s)[i].count, want[i].count);
        rows += want[i].count;
    }
    ck_assert_uint_eq(s->rows, rows);
    ck_assert_uint_eq(pq_row_set_first(s), n ? want[0].first : 0);
    ck_assert_uint_eq(pq_row_set_end(s), n ? want[n - 1].first + want[n - 1].count : 0);
}

START_TEST(empty_sets)
{
    pq_row_set s;
    pq_row_set_init(&s, 7, 0); /* no rows: no run, whatever the first */
    expect_spans(&s, NULL, 0);
    ck_assert_ptr_null(s.more);
    ck_assert(pq_row_set_add(&s, 3, 0));
    expect_spans(&s, NULL, 0);
    ck_assert(pq_row_set_add(&s, 10, 3));
    expect_spans(&s, (pq_row_span[]){{10, 3}}, 1);
    ck_assert_ptr_null(s.more); /* one run lives inline */
    pq_row_set_free(&s);
    expect_spans(&s, NULL, 0);
    pq_row_set_free(&s); /* twice is harmless: free zeroes it */

    pq_row_set_init(&s, 0, 5);
    expect_spans(&s, (pq_row_span[]){{0, 5}}, 1);
    ck_assert(pq_row_set_add(&s, 2, 0)); /* zero rows, even before the end: nothing */
    expect_spans(&s, (pq_row_span[]){{0, 5}}, 1);
    pq_row_set_free(&s);
}
END_TEST

START_TEST(merges_and_grows)
{
    pq_row_set s;
    pq_row_set_init(&s, 10, 5);               /* [10,15) */
    ck_assert(pq_row_set_add(&s, 15, 5));     /* touches: [10,20) */
    expect_spans(&s, (pq_row_span[]){{10, 10}}, 1);
    ck_assert(pq_row_set_add(&s, 18, 4));     /* overlaps the end: [10,22) */
    expect_spans(&s, (pq_row_span[]){{10, 12}}, 1);
    ck_assert(pq_row_set_add(&s, 12, 3));     /* inside the run: no change */
    expect_spans(&s, (pq_row_span[]){{10, 12}}, 1);
    ck_assert_ptr_null(s.more);

    ck_assert(pq_row_set_add(&s, 23, 2));     /* one-row gap: a second run, on the heap */
    expect_spans(&s, (pq_row_span[]){{10, 12}, {23, 2}}, 2);
    ck_assert_ptr_nonnull(s.more);
    ck_assert_ptr_eq(pq_row_set_spans(&s), s.more);
    ck_assert(pq_row_set_add(&s, 25, 1));     /* touches the heap's last run */
    ck_assert(pq_row_set_add(&s, 24, 4));     /* overlaps it */
    expect_spans(&s, (pq_row_span[]){{10, 12}, {23, 5}}, 2);

    /* Many runs: the array grows several times and keeps them all. */
    pq_row_span want[40] = {{10, 12}, {23, 5}};
    for (size_t i = 2; i < 40; i++) {
        want[i] = (pq_row_span){30 + 3 * (i - 2), 1 + (i & 1)};
        ck_assert(pq_row_set_add(&s, want[i].first, want[i].count));
        expect_spans(&s, want, i + 1);
    }
    ck_assert_uint_ge(s.cap, 40);
    pq_row_set_free(&s);
    ck_assert_ptr_null(s.more);
    ck_assert_uint_eq(s.n, 0);

    /* From an empty set straight to the heap. */
    pq_row_set_init(&s, 0, 0);
    ck_assert(pq_row_set_add(&s, 0, 1));
    ck_assert(pq_row_set_add(&s, 2, 1));
    ck_assert(pq_row_set_add(&s, 3, 1));
    expect_spans(&s, (pq_row_span[]){{0, 1}, {2, 2}}, 2);
    pq_row_set_free(&s);
}
END_TEST

START_TEST(random_builds)
{
    rng = 0x9e3779b97f4a7c15u;
    bool m[M];
    for (int it = 0; it < 1000; it++) {
        random_model(m, 0);
        pq_row_set s;
        build(&s, m);
        check_set(&s, m);
        pq_row_set_free(&s);
    }
}
END_TEST

/* ---- containment ---- */

static bool contains(const pq_row_span *a, size_t na, const pq_row_span *b, size_t nb)
{
    pq_row_set s, sub;
    pq_row_set_init(&s, 0, 0);
    pq_row_set_init(&sub, 0, 0);
    for (size_t i = 0; i < na; i++) ck_assert(pq_row_set_add(&s, a[i].first, a[i].count));
    for (size_t i = 0; i < nb; i++) ck_assert(pq_row_set_add(&sub, b[i].first, b[i].count));
    bool r = pq_row_set_contains(&s, &sub);
    pq_row_set_free(&s);
    pq_row_set_free(&sub);
    return r;
}

START_TEST(contains_cases)
{
    const pq_row_span s[] = {{10, 10}, {30, 10}}; /* [10,20) [30,40) */
    ck_assert(contains(s, 2, NULL, 0));            /* empty sub */
    ck_assert(contains(NULL, 0, NULL, 0));
    ck_assert(!contains(NULL, 0, (pq_row_span[]){{0, 1}}, 1));
    ck_assert(contains(s, 2, (pq_row_span[]){{12, 6}}, 1));
    ck_assert(contains(s, 2, (pq_row_span[]){{10, 10}}, 1));
    ck_assert(contains(s, 2, (pq_row_span[]){{12, 8}}, 1));
    ck_assert(contains(s, 2, (pq_row_span[]){{30, 10}}, 1));
    ck_assert(contains(s, 2, s, 2));
    ck_assert(contains(s, 2, (pq_row_span[]){{12, 2}, {31, 8}}, 2));
    ck_assert(contains(s, 2, (pq_row_span[]){{19, 1}, {30, 1}}, 2));
    ck_assert(!contains(s, 2, (pq_row_span[]){{15, 20}}, 1));  /* across the gap */
    ck_assert(!contains(s, 2, (pq_row_span[]){{18, 4}}, 1));   /* runs off the end of a run */
    ck_assert(!contains(s, 2, (pq_row_span[]){{9, 3}}, 1));    /* starts before */
    ck_assert(!contains(s, 2, (pq_row_span[]){{20, 1}}, 1));   /* in the gap */
    ck_assert(!contains(s, 2, (pq_row_span[]){{39, 2}}, 1));
    ck_assert(!contains(s, 2, (pq_row_span[]){{40, 1}}, 1));   /* past the end */
    ck_assert(!contains(s, 2, (pq_row_span[]){{0, 1}}, 1));
    ck_assert(!contains(s, 2, (pq_row_span[]){{12, 2}, {25, 1}}, 2));
    ck_assert(!contains(s, 2, (pq_row_span[]){{12, 2}, {35, 1}, {41, 1}}, 3));
    ck_assert(!contains((pq_row_span[]){{10, 10}}, 1, (pq_row_span[]){{10, 10}, {30, 1}}, 2));
}
END_TEST

START_TEST(contains_random)
{
    rng = 0x2545f4914f6cdd1du;
    bool m[M], sm[M];
    int yes = 0, no = 0;
    for (int it = 0; it < 1500; it++) {
        random_model(m, 0);
        switch (it % 3) {
        case 0: /* a random subset of the rows of m */
        case 1: /* the same, plus one row anywhere (often outside m) */
            random_model(sm, 0);
            for (size_t r = 0; r < M; r++) sm[r] = sm[r] && m[r];
            if (it % 3 == 1) sm[below(N + 20)] = true;
            break;
        default: /* unrelated */
            random_model(sm, 0);
            break;
        }
        bool expect = true;
        for (size_t r = 0; r < M; r++)
            if (sm[r] && !m[r]) expect = false;
        pq_row_set s, sub;
        build(&s, m);
        build(&sub, sm);
        ck_assert_msg(pq_row_set_contains(&s, &sub) == expect, "iteration %d: expected %d", it, expect);
        if (expect) yes++;
        else no++;
        pq_row_set_free(&s);
        pq_row_set_free(&sub);
    }
    ck_assert_int_gt(yes, 300); /* both answers were tried */
    ck_assert_int_gt(no, 300);
}
END_TEST

/* ---- hits ---- */

static void build_spans(pq_row_set *s, const pq_row_span *sp, size_t n)
{
    pq_row_set_init(s, 0, 0);
    for (size_t i = 0; i < n; i++) ck_assert(pq_row_set_add(s, sp[i].first, sp[i].count));
}

START_TEST(hits_cases)
{
    pq_row_set s;
    build_spans(&s, (pq_row_span[]){{10, 10}, {30, 10}}, 2); /* [10,20) [30,40): rows 0..19 of the set */
    pq_row_cursor cur = {0, 0};
    ck_assert(!pq_row_set_hits(&s, NULL, 0, 10, &cur));
    ck_assert(pq_row_set_hits(&s, NULL, 0, 11, &cur));
    ck_assert(pq_row_set_hits(&s, NULL, 5, 5 + 100, &cur));
    ck_assert(!pq_row_set_hits(&s, NULL, 15, 15, &cur)); /* empty query */
    ck_assert(pq_row_set_hits(&s, NULL, 19, 20, &cur));
    ck_assert(!pq_row_set_hits(&s, NULL, 20, 30, &cur));
    ck_assert(pq_row_set_hits(&s, NULL, 20, 31, &cur)); /* same a again, as plan_parts does */
    ck_assert(pq_row_set_hits(&s, NULL, 39, 40, &cur));
    ck_assert(!pq_row_set_hits(&s, NULL, 40, UINT64_MAX, &cur));
    ck_assert(!pq_row_set_hits(&s, NULL, 40, 41, &cur));

    /* Keep only row 12 (set row 2) and row 35 (set row 15). */
    const uint8_t keep[3] = {0x04, 0x80, 0x00};
    cur = (pq_row_cursor){0, 0};
    ck_assert(!pq_row_set_hits(&s, keep, 0, 12, &cur));
    ck_assert(pq_row_set_hits(&s, keep, 0, 13, &cur));
    ck_assert(pq_row_set_hits(&s, keep, 12, 13, &cur));
    ck_assert(!pq_row_set_hits(&s, keep, 13, 35, &cur));
    ck_assert(pq_row_set_hits(&s, keep, 13, 36, &cur));
    ck_assert(!pq_row_set_hits(&s, keep, 30, 35, &cur));
    ck_assert(pq_row_set_hits(&s, keep, 35, 36, &cur));
    ck_assert(!pq_row_set_hits(&s, keep, 36, UINT64_MAX, &cur));
    pq_row_set_free(&s);

    /* One span of 1,000 rows, one kept bit (row 777): ranges long enough to
     * be scanned a 64-bit word at a time, from aligned and unaligned starts. */
    build_spans(&s, (pq_row_span[]){{0, 1000}}, 1);
    uint8_t sparse[125] = {0};
    sparse[777 / 8] = (uint8_t)(1u << (777 % 8));
    static const struct {
        uint64_t a, b;
        bool hit;
    } q[] = {{0, 777, false}, {0, 778, true},    {1, 778, true},     {700, 1000, true}, {778, 1000, false},
             {3, 776, false}, {777, 778, true}, {500, 1000, true}, {9, 1000, true},   {0, 1000, true}};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        cur = (pq_row_cursor){0, 0};
        ck_assert_msg(pq_row_set_hits(&s, sparse, q[i].a, q[i].b, &cur) == q[i].hit, "[%llu, %llu)",
                      (unsigned long long)q[i].a, (unsigned long long)q[i].b);
    }
    pq_row_set_free(&s);

    pq_row_set_init(&s, 0, 0); /* empty set: never a hit */
    cur = (pq_row_cursor){0, 0};
    ck_assert(!pq_row_set_hits(&s, NULL, 0, UINT64_MAX, &cur));
    pq_row_set_free(&s);
}
END_TEST

START_TEST(hits_random)
{
    rng = 0xd1b54a32d192ed03u;
    bool m[M], kb[M];
    uint64_t rank[M];
    int hit = 0, miss = 0;
    for (int it = 0; it < 1000; it++) {
        random_model(m, 0);
        uint64_t rows = ranks(m, rank);
        uint8_t *keep = random_keep(rows, kb);
        pq_row_set s;
        build(&s, m);
        for (int k = 0; k < 2; k++) { /* keep NULL, then the keep bits */
            const uint8_t *kp = k ? keep : NULL;
            const bool *kbp = k ? kb : NULL;
            pq_row_cursor cur = {0, 0};
            uint64_t a = below(5);
            while (a < N + 20) {
                uint64_t b = a + below(40);
                bool expect = naive_hits(m, rank, kbp, a, b);
                ck_assert_msg(pq_row_set_hits(&s, kp, a, b, &cur) == expect,
                              "iteration %d keep %d: [%llu, %llu) expected %d", it, k,
                              (unsigned long long)a, (unsigned long long)b, expect);
                expect ? hit++ : miss++;
                if (below(3) == 0) { /* the same a again, another b */
                    b = a + below(60);
                    expect = naive_hits(m, rank, kbp, a, b);
                    ck_assert_msg(pq_row_set_hits(&s, kp, a, b, &cur) == expect,
                                  "iteration %d keep %d: again [%llu, %llu) expected %d", it, k,
                                  (unsigned long long)a, (unsigned long long)b, expect);
                }
                a += below(25);
            }
            ck_assert(pq_row_set_hits(&s, kp, a, UINT64_MAX, &cur) == naive_hits(m, rank, kbp, a, M));
        }
        pq_row_set_free(&s);
        free(keep);
    }
    ck_assert_int_gt(hit, 1000);
    ck_assert_int_gt(miss, 1000);
}
END_TEST

/* The walk of reader/stage_pages.c plan_parts: pages [bound[p], bound[p+1]);
 * a run of hit pages is extended until a miss, and the page that missed is
 * asked again (same a) by the outer loop. */
START_TEST(hits_page_walk)
{
    rng = 0x5851f42d4c957f2du;
    bool m[M], kb[M];
    uint64_t rank[M];
    for (int it = 0; it < 500; it++) {
        random_model(m, 0);
        uint64_t rows = ranks(m, rank);
        uint8_t *keep = random_keep(rows, kb);
        const uint8_t *kp = it & 1 ? keep : NULL;
        const bool *kbp = it & 1 ? kb : NULL;
        uint64_t bound[64];
        size_t np = 0;
        for (uint64_t r = 0; r < N && np < 63; r += 1 + below(30)) bound[np++] = r;
        bound[np] = N;
        pq_row_set s;
        build(&s, m);
        pq_row_cursor cur = {0, 0};
        bool want_pages[64] = {false}, got_pages[64] = {false};
        for (size_t p = 0; p < np; p++) want_pages[p] = naive_hits(m, rank, kbp, bound[p], bound[p + 1]);
        for (size_t p = 0; p < np;) {
            if (!pq_row_set_hits(&s, kp, bound[p], bound[p + 1], &cur)) {
                p++;
                continue;
            }
            size_t q = p + 1;
            while (q < np && pq_row_set_hits(&s, kp, bound[q], bound[q + 1], &cur)) q++;
            for (size_t i = p; i < q; i++) got_pages[i] = true;
            p = q;
        }
        for (size_t p = 0; p < np; p++)
            ck_assert_msg(got_pages[p] == want_pages[p], "iteration %d page %zu [%llu, %llu)", it, p,
                          (unsigned long long)bound[p], (unsigned long long)bound[p + 1]);
        pq_row_set_free(&s);
        free(keep);
    }
}
END_TEST

/* ---- add_overlap ---- */

START_TEST(add_overlap_cases)
{
    pq_row_set s, out;
    build_spans(&s, (pq_row_span[]){{10, 10}, {30, 10}, {50, 1}}, 3);
    pq_row_set_init(&out, 0, 0);
    pq_row_cursor cur = {0, 0};
    ck_assert(pq_row_set_add_overlap(&out, &s, 0, 5, &cur));     /* nothing */
    ck_assert(pq_row_set_add_overlap(&out, &s, 5, 12, &cur));    /* [10,12) */
    ck_assert(pq_row_set_add_overlap(&out, &s, 12, 15, &cur));   /* [12,15): merges */
    ck_assert(pq_row_set_add_overlap(&out, &s, 18, 35, &cur));   /* [18,20) [30,35) */
    ck_assert(pq_row_set_add_overlap(&out, &s, 35, 35, &cur));   /* empty range */
    ck_assert(pq_row_set_add_overlap(&out, &s, 38, 100, &cur));  /* [38,40) [50,51) */
    expect_spans(&out, (pq_row_span[]){{10, 5}, {18, 2}, {30, 5}, {38, 2}, {50, 1}}, 5);
    ck_assert(pq_row_set_add_overlap(&out, &s, 100, UINT64_MAX, &cur));
    ck_assert_uint_eq(out.n, 5);
    pq_row_set_free(&out);
    pq_row_set_free(&s);
}
END_TEST

START_TEST(add_overlap_random)
{
    rng = 0xbf58476d1ce4e5b9u;
    bool m[M], om[M];
    for (int it = 0; it < 1000; it++) {
        random_model(m, 0);
        pq_row_set s, out;
        build(&s, m);
        memset(om, 0, sizeof om);
        uint64_t a = below(30);
        /* Sometimes out already holds rows [0, p) before the first range. */
        uint64_t pre = below(2) ? below(a + 1) : 0;
        pq_row_set_init(&out, 0, pre);
        for (uint64_t r = 0; r < pre; r++) om[r] = true;
        pq_row_cursor cur = {0, 0};
        while (a < N + 20) {
            uint64_t b = a + below(50);
            ck_assert(pq_row_set_add_overlap(&out, &s, a, b, &cur));
            for (uint64_t r = a; r < b && r < M; r++) om[r] = om[r] || m[r];
            a = b + below(20);
        }
        check_set(&out, om);
        pq_row_set_free(&out);
        pq_row_set_free(&s);
    }
}
END_TEST

/* ---- map_bits ---- */

/* Maps with pq_row_set_map_bits and checks against the model: have/want
 * models hm/wm, keep bits kb (NULL: all) over want's rows. Returns the
 * result. */
static int64_t check_map(const pq_row_set *have, const bool *hm, const pq_row_set *want, const bool *wm,
                         const uint8_t *keep, const bool *kb, const char *what)
{
    uint64_t wrank[M];
    ranks(wm, wrank);
    bool missing = false;
    int64_t count = 0;
    for (size_t r = 0; r < M; r++) {
        bool kept = wm[r] && (!kb || kb[wrank[r]]);
        if (kept && !hm[r]) missing = true;
        if (kept && hm[r]) count++;
    }
    size_t nb = (size_t)((have->rows + 7) / 8);
    uint8_t *out = malloc(nb ? nb : 1);
    ck_assert_ptr_nonnull(out);
    memset(out, 0xa5, nb); /* must be overwritten */
    int64_t got = pq_row_set_map_bits(have, want, keep, out);
    if (missing) {
        ck_assert_msg(got == -1, "%s: expected -1, got %lld", what, (long long)got);
    } else {
        ck_assert_msg(got == count, "%s: expected %lld, got %lld", what, (long long)count, (long long)got);
        uint64_t i = 0;
        for (size_t r = 0; r < M; r++) {
            if (!hm[r]) continue;
            bool expect = wm[r] && (!kb || kb[wrank[r]]);
            ck_assert_msg(getbit(out, i) == expect, "%s: row %zu (bit %llu) expected %d", what, r,
                          (unsigned long long)i, expect);
            i++;
        }
        ck_assert_uint_eq(i, have->rows);
        for (; i < 8 * (uint64_t)nb; i++) ck_assert_msg(!getbit(out, i), "%s: padding bit %llu set", what,
                                                        (unsigned long long)i);
    }
    free(out);
    return got;
}

static int64_t map_spans(const pq_row_span *h, size_t nh, const pq_row_span *w, size_t nw, const uint8_t *keep,
                         uint8_t *out, size_t nout)
{
    pq_row_set have, want;
    build_spans(&have, h, nh);
    build_spans(&want, w, nw);
    ck_assert_uint_eq(nout, (have.rows + 7) / 8);
    memset(out, 0xa5, nout);
    int64_t got = pq_row_set_map_bits(&have, &want, keep, out);
    pq_row_set_free(&have);
    pq_row_set_free(&want);
    return got;
}

START_TEST(map_bits_cases)
{
    uint8_t out[4];
    /* Same rows, same phase: the keep bytes come through as they are. */
    ck_assert_int_eq(map_spans((pq_row_span[]){{0, 16}}, 1, (pq_row_span[]){{0, 16}}, 1,
                               (const uint8_t[]){0x0f, 0xf0}, out, 2), 8);
    ck_assert_uint_eq(out[0], 0x0f);
    ck_assert_uint_eq(out[1], 0xf0);
    /* keep NULL: want's rows 3..18 are bits 3..18 of have [0,20). */
    ck_assert_int_eq(map_spans((pq_row_span[]){{0, 20}}, 1, (pq_row_span[]){{3, 16}}, 1, NULL, out, 3), 16);
    ck_assert_uint_eq(out[0], 0xf8);
    ck_assert_uint_eq(out[1], 0xff);
    ck_assert_uint_eq(out[2], 0x07);
    /* have [0,4) [10,20): row 10 is bit 4. want [10,14) keeps its rows 1 and 3
     * (rows 11, 13) -> bits 5, 7. */
    ck_assert_int_eq(map_spans((pq_row_span[]){{0, 4}, {10, 10}}, 2, (pq_row_span[]){{10, 4}}, 1,
                               (const uint8_t[]){0x0a}, out, 2), 2);
    ck_assert_uint_eq(out[0], 0xa0);
    ck_assert_uint_eq(out[1], 0x00);
    /* want [5,12) runs past have [0,10): -1 unless rows 10, 11 are not kept. */
    ck_assert_int_eq(map_spans((pq_row_span[]){{0, 10}}, 1, (pq_row_span[]){{5, 7}}, 1, NULL, out, 2), -1);
    ck_assert_int_eq(map_spans((pq_row_span[]){{0, 10}}, 1, (pq_row_span[]){{5, 7}}, 1,
                               (const uint8_t[]){0x1f}, out, 2), 5);
    ck_assert_uint_eq(out[0], 0xe0);
    ck_assert_uint_eq(out[1], 0x03);
    ck_assert_int_eq(map_spans((pq_row_span[]){{0, 10}}, 1, (pq_row_span[]){{5, 7}}, 1,
                               (const uint8_t[]){0x21}, out, 2), -1);
    /* A gap of have inside want: rows 20..24 of want [15,30) missing. */
    ck_assert_int_eq(map_spans((pq_row_span[]){{15, 5}, {25, 5}}, 2, (pq_row_span[]){{15, 15}}, 1,
                               (const uint8_t[]){0xff, 0x7c}, out, 2), -1);
    ck_assert_int_eq(map_spans((pq_row_span[]){{15, 5}, {25, 5}}, 2, (pq_row_span[]){{15, 15}}, 1,
                               (const uint8_t[]){0x1f, 0x7c}, out, 2), 10);
    ck_assert_uint_eq(out[0], 0xff);
    ck_assert_uint_eq(out[1], 0x03);
    /* Empty want: nothing set; empty have and want. */
    ck_assert_int_eq(map_spans((pq_row_span[]){{0, 9}}, 1, NULL, 0, NULL, out, 2), 0);
    ck_assert_uint_eq(out[0], 0);
    ck_assert_uint_eq(out[1], 0);
    ck_assert_int_eq(map_spans(NULL, 0, NULL, 0, NULL, out, 0), 0);
    ck_assert_int_eq(map_spans(NULL, 0, (pq_row_span[]){{3, 1}}, 1, NULL, out, 0), -1);
    ck_assert_int_eq(map_spans(NULL, 0, (pq_row_span[]){{3, 1}}, 1, (const uint8_t[]){0xfe}, out, 0), 0);
}
END_TEST

/* Random want + keep bits, and a have that holds every kept row of want
 * plus random other rows (some of want's unkept rows, some outside it);
 * then sometimes one row of have dropped. Modes:
 *   0: random sets;
 *   1: have = want's rows plus k rows right before want starts, so every
 *      run of want sits at bit phase (k mod 8) off its place in want: k a
 *      multiple of 8 (same phase, byte copies) or not;
 *   2: as 1 with long runs of want and have filling want's gaps (phase
 *      shifts from run to run). */
START_TEST(map_bits_random)
{
    rng = 0x94d049bb133111ebu;
    bool wm[M], hm[M], kb[M];
    uint64_t wrank[M];
    int fails = 0, oks = 0;
    for (int it = 0; it < 3000; it++) {
        int mode = it % 3;
        random_model(wm, mode ? 24 : 0);
        if (mode == 2) {
            memset(wm, 0, sizeof wm);
            for (uint64_t r = 24 + below(4); r < N;) {
                uint64_t k = 16 + below(60);
                for (uint64_t i = r; i < r + k && i < N; i++) wm[i] = true;
                r += k + 1 + below(12);
            }
        }
        uint64_t rows = ranks(wm, wrank);
        uint8_t *keep = random_keep(rows, kb);
        bool use_keep = below(4) != 0;
        for (size_t r = 0; r < M; r++) {
            bool kept = wm[r] && (!use_keep || kb[wrank[r]]);
            if (mode == 0) hm[r] = kept || (wm[r] && below(2)) || (r < N && below(4) == 0);
            else hm[r] = wm[r];
        }
        if (mode) {
            uint64_t first = 0;
            while (first < N && !wm[first]) first++;
            uint64_t k = first < N ? below(17) : 0;
            for (uint64_t r = first >= k ? first - k : 0; r < first; r++) hm[r] = true;
            if (mode == 2) /* fill want's gaps in have */
                for (uint64_t r = first; r < N; r++) hm[r] = hm[r] || below(2);
        }
        if (below(3) == 0) {
            size_t r = (size_t)below(N);
            while (r < N && !hm[r]) r++;
            if (r < N) hm[r] = false;
        }
        pq_row_set have, want;
        build(&have, hm);
        build(&want, wm);
        char what[64];
        snprintf(what, sizeof what, "iteration %d mode %d keep %d", it, mode, use_keep);
        int64_t got = check_map(&have, hm, &want, wm, use_keep ? keep : NULL, use_keep ? kb : NULL, what);
        if (got < 0) fails++;
        else oks++;
        pq_row_set_free(&have);
        pq_row_set_free(&want);
        free(keep);
    }
    ck_assert_int_gt(fails, 200); /* both outcomes were tried */
    ck_assert_int_gt(oks, 1500);
}
END_TEST

/* ---- bits ---- */

START_TEST(bits_count)
{
    ck_assert_uint_eq(pq_bits_count((const uint8_t[]){0xff, 0x01}, 9), 9);
    ck_assert_uint_eq(pq_bits_count((const uint8_t[]){0xff, 0x01}, 8), 8);
    ck_assert_uint_eq(pq_bits_count((const uint8_t[]){0xff}, 3), 3);   /* bits past n not counted */
    ck_assert_uint_eq(pq_bits_count((const uint8_t[]){0x80}, 7), 0);
    ck_assert_uint_eq(pq_bits_count((const uint8_t[]){0xa5, 0x5a, 0x0f}, 20), 4 + 4 + 4);
    ck_assert_uint_eq(pq_bits_count(NULL, 0), 0);
    rng = 0x1234567887654321u;
    for (int it = 0; it < 1000; it++) {
        uint64_t n = below(200);
        size_t nb = (size_t)((n + 7) / 8);
        uint8_t *v = malloc(nb ? nb : 1);
        ck_assert_ptr_nonnull(v);
        for (size_t i = 0; i < nb; i++) v[i] = (uint8_t)rnd();
        uint64_t expect = 0;
        for (uint64_t i = 0; i < n; i++) expect += getbit(v, i);
        ck_assert_uint_eq(pq_bits_count(v, n), expect);
        free(v);
    }
}
END_TEST

static Suite *row_set_suite(void)
{
    Suite *s = suite_create("row_set");
    TCase *tc = tcase_create("build");
    tcase_add_test(tc, empty_sets);
    tcase_add_test(tc, merges_and_grows);
    tcase_add_test(tc, random_builds);
    suite_add_tcase(s, tc);
    tc = tcase_create("contains");
    tcase_add_test(tc, contains_cases);
    tcase_add_test(tc, contains_random);
    suite_add_tcase(s, tc);
    tc = tcase_create("hits");
    tcase_add_test(tc, hits_cases);
    tcase_add_test(tc, hits_random);
    tcase_add_test(tc, hits_page_walk);
    suite_add_tcase(s, tc);
    tc = tcase_create("add_overlap");
    tcase_add_test(tc, add_overlap_cases);
    tcase_add_test(tc, add_overlap_random);
    suite_add_tcase(s, tc);
    tc = tcase_create("map_bits");
    tcase_add_test(tc, map_bits_cases);
    tcase_add_test(tc, map_bits_random);
    suite_add_tcase(s, tc);
    tc = tcase_create("bits");
    tcase_add_test(tc, bits_count);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(row_set_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
