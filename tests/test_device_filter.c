/*
 * test_device_filter.c — the predicate kernel (kernels/k_filter.h) through
 * its compiler and driver (device/filter.h), run on the host
 * launcher, against the CPU evaluator (pq_predicate_eval).
 *
 * Oracle: pq_predicate_eval's keep bits and status on the same Arrow
 * arrays, bit for bit (the bits past the length included), and the kept
 * count against the bits. Each predicate runs in four launch shapes (256
 * threads a block; 7 and 33 threads with every phase's threads last to
 * first; 1 thread on a prefix) and once more on the columns sliced by an
 * Arrow offset; none may change the result.
 *   - Hand-computed vectors: three-valued AND / OR / NOT, NaN and -0.0,
 *     unsigned order, decimals beyond int64, strings, dictionaries (a bad
 *     index too), IS [NOT] NULL on a group, constants; the expected rows
 *     are written out, so both evaluators are checked, not only alike.
 *   - A generated column of 100003 rows (several blocks at every thread
 *     count) under random predicate trees.
 *   - The corpus: every flat top-level column of every file the reader
 *     opens, read four ways (strings as string / view / large / dictionary
 *     arrays, decimals as 128 and 64), under predicates made from the
 *     column's own values (each comparison operator, neighbours of the
 *     values, NaN and infinities for floats, longer and shorter strings),
 *     IN lists, IS [NOT] NULL and random AND / OR / NOT trees of them.
 * Printed: predicates compared equal, both failing alike, unsupported by
 * the kernel (by reason), and mismatches, which fail the test.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cuda_runtime.h"
#include "kernels/k_launch.h"
#include "device/filter.h"
#include "predicate/predicate.h"
#include "predicate/predicate_eval.h"
#include "pqstep.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------
 * Tally
 * ------------------------------------------------------------------------- */

#define MAX_REASONS 32

typedef struct tally {
    long equal, both_failed, unsupported, mismatches;
    long split; /* equal, and keeping some rows but not all: a predicate that tells rows apart */
    struct {
        char format[40];
        long n;
    } formats[48];
    int nformats;
    struct {
        char what[128];
        long n;
    } reasons[MAX_REASONS];
    int nreasons;
    char first_mismatch[1024];
} tally;

static void count_reason(tally *t, const char *message)
{
    char what[128];
    snprintf(what, sizeof what, "%s", message);
    char *digits = strpbrk(what, "0123456789"); /* "at row 12", "4096 nodes": one reason */
    if (digits && strstr(what, "column") == NULL) *digits = 0;
    for (int i = 0; i < t->nreasons; i++)
        if (strcmp(t->reasons[i].what, what) == 0) {
            t->reasons[i].n++;
            return;
        }
    if (t->nreasons < MAX_REASONS) {
        snprintf(t->reasons[t->nreasons].what, sizeof t->reasons[0].what, "%s", what);
        t->reasons[t->nreasons++].n = 1;
    }
}

static void print_tally(const char *what, const tally *t)
{
    printf("%s: %ld predicates equal (%ld keeping some rows but not all), %ld failing alike, %ld unsupported, "
           "%ld mismatches\n",
           what, t->equal, t->split, t->both_failed, t->unsupported, t->mismatches);
    for (int i = 0; i < t->nformats; i++) printf("  column format %s: %ld predicates\n", t->formats[i].format, t->formats[i].n);
    for (int i = 0; i < t->nreasons; i++) printf("  unsupported: %ld x %s\n", t->reasons[i].n, t->reasons[i].what);
    if (t->mismatches) printf("  first mismatch: %s\n", t->first_mismatch);
}

static void mismatch(tally *t, const char *text, const char *what)
{
    if (!t->mismatches) snprintf(t->first_mismatch, sizeof t->first_mismatch, "%.250s: %.700s", text, what);
    t->mismatches++;
}

/* ---------------------------------------------------------------------------
 * Comparing one predicate
 * ------------------------------------------------------------------------- */

typedef struct shape {
    uint32_t nthreads;
    unsigned flags;
    int64_t max_rows; /* 0: all */
} shape;

static const shape shapes[] = {
    {256, 0, 0},
    {7, PQ_KLAUNCH_REVERSE, 0},
    {33, PQ_KLAUNCH_REVERSE, 0},
    {1, 0, 700},
};

static uint64_t count_bits(const uint8_t *b, int64_t n)
{
    uint64_t c = 0;
    for (int64_t i = 0; i < n; i++) c += (b[i >> 3] >> (i & 7)) & 1;
    return c;
}

/* Both evaluators on `length` rows in every shape; counts into t. Returns
 * whether they agreed. `expect` (when not NULL) are the rows the test
 * computed by hand. */
static bool compare_one(tally *t, const pq_expr *e, const struct ArrowArray *const *cols,
                        const struct ArrowSchema *const *schemas, const int16_t *const *defs, int64_t length,
                        const uint8_t *expect)
{
    char text[256];
    pq_expr_format(e, text, sizeof text);
    size_t nb = (size_t)(length + 7) / 8 + 1;
    uint8_t *cpu = malloc(nb), *dev = malloc(nb);
    ck_assert(cpu && dev);
    bool agreed = true, unsupported = false, failed = false;
    char reason[256] = "";
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t n = shapes[s].max_rows && shapes[s].max_rows < length ? shapes[s].max_rows : length;
        memset(cpu, 0x5a, nb);
        memset(dev, 0xa5, nb);
        pq_error ec = {0}, ed = {0};
        pq_status sc = pq_predicate_eval(e, cols, schemas, defs, n, cpu, &ec);
        pq_dfilter_exec ex = {PQ_DFILTER_HOST, NULL, shapes[s].nthreads, shapes[s].flags};
        int64_t kept = -1;
        pq_status sd = pq_device_filter_eval(e, cols, schemas, defs, n, &ex, dev, &kept, &ed);
        size_t used = (size_t)(n + 7) / 8;
        if (sd == PQ_ERR_UNSUPPORTED && sc != PQ_ERR_UNSUPPORTED && strncmp(ed.message, "device filter:", 14) == 0) {
            unsupported = true;
            snprintf(reason, sizeof reason, "%s", ed.message);
            break;
        }
        if (sc != sd) {
            char got[700];
            snprintf(got, sizeof got, "cpu %d (%.300s) / kernel %d (%.300s)", sc, ec.message, sd, ed.message);
            mismatch(t, text, got);
            agreed = false;
            break;
        }
        if (sc != PQ_OK) {
            failed = true;
            continue;
        }
        if (used && memcmp(cpu, dev, used) != 0) {
            char where[64] = "";
            for (int64_t i = 0; i < n; i++)
                if (((cpu[i >> 3] ^ dev[i >> 3]) >> (i & 7)) & 1) {
                    snprintf(where, sizeof where, "row %lld of %lld, %u threads", (long long)i, (long long)n,
                             shapes[s].nthreads);
                    break;
                }
            if (!where[0]) snprintf(where, sizeof where, "bits past %lld rows", (long long)n);
            char what[96];
            snprintf(what, sizeof what, "keep bits differ at %s", where);
            mismatch(t, text, what);
            agreed = false;
            break;
        }
        if ((uint64_t)kept != count_bits(dev, n)) {
            mismatch(t, text, "kept count differs from the bits");
            agreed = false;
            break;
        }
        if (s == 0 && kept > 0 && kept < n) t->split++;
        if (expect && n == length && memcmp(cpu, expect, used) != 0) {
            mismatch(t, text, "not the rows computed by hand");
            agreed = false;
            break;
        }
    }
    if (unsupported) {
        t->unsupported++;
        count_reason(t, reason);
    } else if (agreed) {
        if (failed) t->both_failed++;
        else t->equal++;
    }
    free(cpu);
    free(dev);
    return agreed;
}

/* ---------------------------------------------------------------------------
 * Building bound predicates by hand (the binder's output, predicate.h)
 * ------------------------------------------------------------------------- */

static void mark_bound(pq_expr *e)
{
    if (!e) return;
    e->bound = true;
    mark_bound(e->kids[0]);
    mark_bound(e->kids[1]);
}

/* A bound leaf of column `leaf`: IS [NOT] NULL until given values. */
static pq_expr *hand_leaf(int32_t leaf, int32_t physical, uint8_t order)
{
    pq_error err = {0};
    char name[16];
    snprintf(name, sizeof name, "c%d", leaf);
    pq_expr *e = pq_expr_is_null(name, false, &err);
    ck_assert(e);
    e->leaf = leaf;
    e->physical_type = physical;
    e->order = order;
    e->bound = true;
    return e;
}

/* Turns a leaf into a comparison / IN over n values (copied). */
static pq_expr *with_values(pq_expr *e, pq_node_kind kind, pq_cmp_op op, const pq_value *v, size_t n)
{
    e->kind = kind;
    e->op = op;
    e->values = calloc(n ? n : 1, sizeof *e->values);
    ck_assert(e->values);
    for (size_t k = 0; k < n; k++) {
        e->values[k] = v[k];
        if (v[k].bytes || v[k].len) {
            e->values[k].bytes = malloc(v[k].len ? v[k].len : 1);
            ck_assert(e->values[k].bytes);
            if (v[k].len) memcpy(e->values[k].bytes, v[k].bytes, v[k].len);
        }
    }
    e->nvalues = n;
    return e;
}

static pq_expr *h_cmp_i(int32_t leaf, int32_t phys, uint8_t order, pq_cmp_op op, int64_t x)
{
    pq_value v = {.i = x};
    return with_values(hand_leaf(leaf, phys, order), PQ_NODE_CMP, op, &v, 1);
}

static pq_expr *h_cmp_d(int32_t leaf, pq_cmp_op op, double x)
{
    pq_value v = {.d = x};
    return with_values(hand_leaf(leaf, PQ_DOUBLE, PQ_ORDER_FLOAT), PQ_NODE_CMP, op, &v, 1);
}

static pq_expr *h_cmp_s(int32_t leaf, pq_cmp_op op, const char *s)
{
    pq_value v = {.bytes = (uint8_t *)s, .len = strlen(s)};
    return with_values(hand_leaf(leaf, PQ_BYTE_ARRAY, PQ_ORDER_BYTES), PQ_NODE_CMP, op, &v, 1);
}

static pq_expr *h_null(int32_t leaf, int32_t phys, bool is_null)
{
    pq_expr *e = hand_leaf(leaf, phys, PQ_ORDER_SIGNED);
    e->is_null = is_null;
    return e;
}

static pq_expr *h_and(pq_expr *a, pq_expr *b)
{
    pq_error err = {0};
    pq_expr *e = pq_expr_and(a, b, &err);
    ck_assert(e);
    mark_bound(e);
    return e;
}

static pq_expr *h_or(pq_expr *a, pq_expr *b)
{
    pq_error err = {0};
    pq_expr *e = pq_expr_or(a, b, &err);
    ck_assert(e);
    mark_bound(e);
    return e;
}

static pq_expr *h_not(pq_expr *a)
{
    pq_error err = {0};
    pq_expr *e = pq_expr_not(a, &err);
    ck_assert(e);
    mark_bound(e);
    return e;
}

/* Keep bits of the rows listed (ending with -1). */
static void rows_bits(uint8_t *bits, size_t nb, const int *rows)
{
    memset(bits, 0, nb);
    for (; *rows >= 0; rows++) bits[*rows >> 3] |= (uint8_t)(1u << (*rows & 7));
}

/* Hand-made Arrow arrays (no release: the test owns the buffers). */
typedef struct hand_col {
    struct ArrowArray a;
    struct ArrowSchema s;
    const void *bufs[4];
} hand_col;

static void hand_col_init(hand_col *c, const char *fmt, int64_t len, const uint8_t *valid, const void *b1,
                          const void *b2)
{
    memset(c, 0, sizeof *c);
    c->bufs[0] = valid;
    c->bufs[1] = b1;
    c->bufs[2] = b2;
    c->a.length = len;
    c->a.null_count = valid ? -1 : 0;
    c->a.n_buffers = b2 ? 3 : 2;
    c->a.buffers = c->bufs;
    c->s.format = fmt;
    c->s.name = "c";
}

static void check_hand(tally *t, pq_expr *e, hand_col *const *cols, size_t ncols, const int16_t *const *defs,
                       int64_t length, const int *rows)
{
    const struct ArrowArray *a[8] = {0};
    const struct ArrowSchema *s[8] = {0};
    for (size_t k = 0; k < ncols; k++) {
        a[k] = cols[k] ? &cols[k]->a : NULL;
        s[k] = cols[k] ? &cols[k]->s : NULL;
    }
    uint8_t expect[64];
    if (rows) rows_bits(expect, sizeof expect, rows);
    compare_one(t, e, a, s, defs, length, rows ? expect : NULL);
    pq_expr_free(e);
}

START_TEST(hand_vectors)
{
    tally t = {0};
    /* c0: int32 [1, 5, null, -3, 5, 7, null, 0, 9, 2] */
    static const int32_t xi[10] = {1, 5, 0, -3, 5, 7, 0, 0, 9, 2};
    static const uint8_t xv[2] = {0xbb, 0x03}; /* rows 2 and 6 null */
    /* c1: double [1, NaN, -0, 0, null, 3.5, -inf, NaN, 2, 1] */
    double xd[10] = {1.0, NAN, -0.0, 0.0, 0.0, 3.5, -INFINITY, NAN, 2.0, 1.0};
    static const uint8_t dv[2] = {0xef, 0x03}; /* row 4 null */
    /* c2: string ["a", "b", null, "ab", "", "b", "zz", null, "a", "c"] */
    static const int32_t so[11] = {0, 1, 2, 2, 4, 4, 5, 7, 7, 8, 9};
    static const char sd[] = "abab" "bzz" "ac";
    static const uint8_t sv[2] = {0x7b, 0x03}; /* rows 2 and 7 null */
    hand_col c0, c1, c2;
    hand_col_init(&c0, "i", 10, xv, xi, NULL);
    hand_col_init(&c1, "g", 10, dv, xd, NULL);
    hand_col_init(&c2, "u", 10, sv, so, sd);
    hand_col *cols[3] = {&c0, &c1, &c2};

    check_hand(&t, h_cmp_i(0, PQ_INT32, PQ_ORDER_SIGNED, PQ_CMP_GT, 2), cols, 3, NULL, 10, (int[]){1, 4, 5, 8, -1});
    check_hand(&t, h_not(h_cmp_i(0, PQ_INT32, PQ_ORDER_SIGNED, PQ_CMP_GT, 2)), cols, 3, NULL, 10,
               (int[]){0, 3, 7, 9, -1});
    check_hand(&t, h_or(h_cmp_i(0, PQ_INT32, PQ_ORDER_SIGNED, PQ_CMP_GT, 2), h_null(0, PQ_INT32, true)), cols, 3,
               NULL, 10, (int[]){1, 2, 4, 5, 6, 8, -1});
    check_hand(&t, h_and(h_cmp_i(0, PQ_INT32, PQ_ORDER_SIGNED, PQ_CMP_GT, 2), h_cmp_d(1, PQ_CMP_LT, 2.0)), cols, 3,
               NULL, 10, (int[]){-1});
    check_hand(&t, h_not(h_and(h_cmp_i(0, PQ_INT32, PQ_ORDER_SIGNED, PQ_CMP_GT, 2), h_cmp_d(1, PQ_CMP_LT, 2.0))),
               cols, 3, NULL, 10, (int[]){0, 1, 3, 5, 7, 8, 9, -1});
    check_hand(&t, h_or(h_cmp_i(0, PQ_INT32, PQ_ORDER_SIGNED, PQ_CMP_GT, 2), h_cmp_d(1, PQ_CMP_LT, 2.0)), cols, 3,
               NULL, 10, (int[]){0, 1, 2, 3, 4, 5, 6, 8, 9, -1});
    check_hand(&t, h_not(h_or(h_cmp_i(0, PQ_INT32, PQ_ORDER_SIGNED, PQ_CMP_GT, 2), h_cmp_d(1, PQ_CMP_LT, 2.0))),
               cols, 3, NULL, 10, (int[]){7, -1});
    check_hand(&t, h_cmp_d(1, PQ_CMP_NE, 1.0), cols, 3, NULL, 10, (int[]){1, 2, 3, 5, 6, 7, 8, -1});
    check_hand(&t, h_cmp_d(1, PQ_CMP_EQ, 0.0), cols, 3, NULL, 10, (int[]){2, 3, -1});
    check_hand(&t, h_cmp_d(1, PQ_CMP_EQ, -0.0), cols, 3, NULL, 10, (int[]){2, 3, -1});
    check_hand(&t, h_not(h_cmp_d(1, PQ_CMP_GE, 1.0)), cols, 3, NULL, 10, (int[]){1, 2, 3, 6, 7, -1});
    /* A NaN literal lies above every number: x < NaN holds for each non-NaN value. */
    check_hand(&t, h_cmp_d(1, PQ_CMP_LT, NAN), cols, 3, NULL, 10, (int[]){0, 2, 3, 5, 6, 8, 9, -1});
    check_hand(&t, h_cmp_d(1, PQ_CMP_EQ, NAN), cols, 3, NULL, 10, (int[]){-1});
    {
        pq_value in[2] = {{.d = 0.0}, {.d = 3.5}};
        check_hand(&t, with_values(hand_leaf(1, PQ_DOUBLE, PQ_ORDER_FLOAT), PQ_NODE_IN, PQ_CMP_EQ, in, 2), cols, 3,
                   NULL, 10, (int[]){2, 3, 5, -1});
    }
    check_hand(&t, h_cmp_s(2, PQ_CMP_GE, "b"), cols, 3, NULL, 10, (int[]){1, 5, 6, 9, -1});
    check_hand(&t, h_cmp_s(2, PQ_CMP_LT, "ab"), cols, 3, NULL, 10, (int[]){0, 4, 8, -1});
    {
        pq_value in[2] = {{.bytes = (uint8_t *)"", .len = 0}, {.bytes = (uint8_t *)"a", .len = 1}};
        check_hand(&t, with_values(hand_leaf(2, PQ_BYTE_ARRAY, PQ_ORDER_BYTES), PQ_NODE_IN, PQ_CMP_EQ, in, 2), cols,
                   3, NULL, 10, (int[]){0, 4, 8, -1});
    }
    check_hand(&t, h_null(2, PQ_BYTE_ARRAY, true), cols, 3, NULL, 10, (int[]){2, 7, -1});
    check_hand(&t, h_null(2, PQ_BYTE_ARRAY, false), cols, 3, NULL, 10, (int[]){0, 1, 3, 4, 5, 6, 8, 9, -1});
    {
        pq_error err = {0};
        pq_expr *k = pq_expr_const(true, &err);
        mark_bound(k);
        check_hand(&t, k, cols, 3, NULL, 10, (int[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1});
        k = pq_expr_const(true, &err);
        check_hand(&t, h_not(k), cols, 3, NULL, 10, (int[]){-1});
    }
    /* Unsigned order: 0xffffffff is the largest uint32. */
    {
        static const uint32_t u[3] = {1, 0xffffffffu, 5};
        hand_col cu;
        hand_col_init(&cu, "I", 3, NULL, u, NULL);
        hand_col *uc[1] = {&cu};
        check_hand(&t, h_cmp_i(0, PQ_INT32, PQ_ORDER_UNSIGNED, PQ_CMP_GT, 5), uc, 1, NULL, 3, (int[]){1, -1});
        check_hand(&t, h_cmp_i(0, PQ_INT32, PQ_ORDER_UNSIGNED, PQ_CMP_LE, 5), uc, 1, NULL, 3, (int[]){0, 2, -1});
    }
    /* decimal128 on INT64 (the high word the low one's sign, as pqstep writes it). */
    {
        static const uint64_t w[6] = {(uint64_t)-5, ~0ull, 100, 0, 7, 0};
        hand_col cd;
        hand_col_init(&cd, "d:18,2", 3, NULL, w, NULL);
        hand_col *dc[1] = {&cd};
        pq_expr *e = h_cmp_i(0, PQ_INT64, PQ_ORDER_SIGNED, PQ_CMP_LT, 0);
        e->logical.kind = PQ_LOGICAL_DECIMAL;
        check_hand(&t, e, dc, 1, NULL, 3, (int[]){0, -1});
        e = h_cmp_i(0, PQ_INT64, PQ_ORDER_SIGNED, PQ_CMP_GT, 5);
        e->logical.kind = PQ_LOGICAL_DECIMAL;
        check_hand(&t, e, dc, 1, NULL, 3, (int[]){1, 2, -1});
    }
    /* decimal128 on FLBA: -5, 100 and 2^64, against big-endian literals. */
    {
        static const uint64_t w[6] = {(uint64_t)-5, ~0ull, 100, 0, 0, 1};
        hand_col cd;
        hand_col_init(&cd, "d:38,0", 3, NULL, w, NULL);
        hand_col *dc[1] = {&cd};
        pq_value v = {.bytes = (uint8_t[]){0x64}, .len = 1}; /* 100 */
        pq_expr *e =
            with_values(hand_leaf(0, PQ_FIXED_LEN_BYTE_ARRAY, PQ_ORDER_DECIMAL_BYTES), PQ_NODE_CMP, PQ_CMP_GE, &v, 1);
        e->logical.kind = PQ_LOGICAL_DECIMAL;
        check_hand(&t, e, dc, 1, NULL, 3, (int[]){1, 2, -1});
        pq_value big = {.bytes = (uint8_t[]){0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, .len = 8};
        e = with_values(hand_leaf(0, PQ_FIXED_LEN_BYTE_ARRAY, PQ_ORDER_DECIMAL_BYTES), PQ_NODE_CMP, PQ_CMP_GT, &big, 1);
        e->logical.kind = PQ_LOGICAL_DECIMAL;
        check_hand(&t, e, dc, 1, NULL, 3, (int[]){2, -1});
        pq_value neg = {.bytes = (uint8_t[]){0xff, 0xfb}, .len = 2}; /* -5, not in its shortest form */
        e = with_values(hand_leaf(0, PQ_FIXED_LEN_BYTE_ARRAY, PQ_ORDER_DECIMAL_BYTES), PQ_NODE_CMP, PQ_CMP_EQ, &neg, 1);
        e->logical.kind = PQ_LOGICAL_DECIMAL;
        check_hand(&t, e, dc, 1, NULL, 3, (int[]){0, -1});
    }
    /* A dictionary: indices [0, 1, 2, null, 1, 0] over ["x", "y", "z"]. */
    {
        static const int32_t idx[6] = {0, 1, 2, 0, 1, 0};
        static const uint8_t iv[1] = {0x37};
        static const int32_t eo[4] = {0, 1, 2, 3};
        hand_col ci, ce;
        hand_col_init(&ci, "i", 6, iv, idx, NULL);
        hand_col_init(&ce, "u", 3, NULL, eo, "xyz");
        ci.a.dictionary = &ce.a;
        ci.s.dictionary = &ce.s;
        hand_col *dc[1] = {&ci};
        check_hand(&t, h_cmp_s(0, PQ_CMP_EQ, "y"), dc, 1, NULL, 6, (int[]){1, 4, -1});
        check_hand(&t, h_not(h_cmp_s(0, PQ_CMP_EQ, "y")), dc, 1, NULL, 6, (int[]){0, 2, 5, -1});
        check_hand(&t, h_null(0, PQ_BYTE_ARRAY, true), dc, 1, NULL, 6, (int[]){3, -1});
        check_hand(&t, h_cmp_s(0, PQ_CMP_GT, "x"), dc, 1, NULL, 6, (int[]){1, 2, 4, -1});
        /* An index past the dictionary fails both. */
        static const int32_t bad[3] = {0, 3, 1};
        hand_col cb;
        hand_col_init(&cb, "i", 3, NULL, bad, NULL);
        cb.a.dictionary = &ce.a;
        cb.s.dictionary = &ce.s;
        hand_col *bc[1] = {&cb};
        long before = t.both_failed;
        check_hand(&t, h_cmp_s(0, PQ_CMP_EQ, "y"), bc, 1, NULL, 3, NULL);
        ck_assert_int_eq(t.both_failed, before + 1);
    }
    /* IS [NOT] NULL on a group: definition levels below 1 are a null group. */
    {
        static const int16_t d[5] = {0, 1, 2, 0, 2};
        const int16_t *defs[1] = {d};
        pq_expr *e = h_null(0, PQ_INT32, true);
        e->node_def = 1;
        check_hand(&t, e, NULL, 0, defs, 5, (int[]){0, 3, -1});
        e = h_null(0, PQ_INT32, false);
        e->node_def = 1;
        check_hand(&t, e, NULL, 0, defs, 5, (int[]){1, 2, 4, -1});
    }
    print_tally("hand vectors", &t);
    ck_assert_int_eq(t.mismatches, 0);
    ck_assert_int_eq(t.unsupported, 0);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Random predicates
 * ------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A leaf the generator may build again: kind, operator and values. */
typedef struct leaf_spec {
    pq_node_kind kind;
    pq_cmp_op op;
    bool is_null;
    pq_value *values; /* owned */
    size_t nvalues;
} leaf_spec;

typedef struct column_ctx {
    const pq_expr *tmpl; /* the bound IS NOT NULL of the column: leaf, types, order */
    leaf_spec *specs;
    size_t nspecs, cap;
} column_ctx;

static pq_expr *build_leaf(const column_ctx *c, const leaf_spec *s)
{
    pq_expr *e = hand_leaf(c->tmpl->leaf, c->tmpl->physical_type, c->tmpl->order);
    e->type_length = c->tmpl->type_length;
    e->logical = c->tmpl->logical;
    e->logical.crs = (pq_bytes){0};
    if (s->kind == PQ_NODE_IS_NULL) {
        e->is_null = s->is_null;
        return e;
    }
    return with_values(e, s->kind, s->op, s->values, s->nvalues);
}

static void add_spec(column_ctx *c, pq_node_kind kind, pq_cmp_op op, bool is_null, const pq_value *v, size_t n)
{
    if (c->nspecs == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 32;
        c->specs = realloc(c->specs, c->cap * sizeof *c->specs);
        ck_assert(c->specs);
    }
    leaf_spec *s = &c->specs[c->nspecs++];
    *s = (leaf_spec){kind, op, is_null, calloc(n ? n : 1, sizeof(pq_value)), n};
    ck_assert(s->values);
    for (size_t k = 0; k < n; k++) {
        s->values[k] = v[k];
        if (v[k].bytes || v[k].len) {
            s->values[k].bytes = malloc(v[k].len ? v[k].len : 1);
            if (v[k].len) memcpy(s->values[k].bytes, v[k].bytes, v[k].len);
        }
    }
}

static void free_specs(column_ctx *c)
{
    for (size_t k = 0; k < c->nspecs; k++) {
        for (size_t j = 0; j < c->specs[k].nvalues; j++) free(c->specs[k].values[j].bytes);
        free(c->specs[k].values);
    }
    free(c->specs);
    c->specs = NULL;
    c->nspecs = c->cap = 0;
}

/* A random tree over the column's specs, depth at most `depth`. */
static pq_expr *random_tree(const column_ctx *c, int depth)
{
    uint64_t r = rnd() % 8;
    if (depth == 0 || r < 3) return build_leaf(c, &c->specs[rnd() % c->nspecs]);
    if (r == 3) return h_not(random_tree(c, depth - 1));
    pq_expr *a = random_tree(c, depth - 1), *b = random_tree(c, depth - 1);
    return r < 6 ? h_and(a, b) : h_or(a, b);
}

/* The leaf whose order qsort sorts by. */
static const pq_expr *sort_leaf;

static int value_qsort(const void *a, const void *b)
{
    return pq_value_compare(sort_leaf, (const pq_value *)a, (const pq_value *)b);
}

/* IN list from values: sorted and distinct, as the binder leaves it. */
static void add_in(column_ctx *c, pq_value *v, size_t n)
{
    sort_leaf = c->tmpl;
    qsort(v, n, sizeof *v, value_qsort);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (m == 0 || pq_value_compare(c->tmpl, &v[m - 1], &v[k]) != 0) v[m++] = v[k];
    add_spec(c, PQ_NODE_IN, PQ_CMP_EQ, false, v, m);
}

/* Every spec alone, then random trees, each compared. */
static void run_specs(tally *t, const column_ctx *c, const struct ArrowArray *const *cols,
                      const struct ArrowSchema *const *schemas, int64_t length, int trees)
{
    for (size_t k = 0; k < c->nspecs; k++) {
        pq_expr *e = build_leaf(c, &c->specs[k]);
        compare_one(t, e, cols, schemas, NULL, length, NULL);
        pq_expr_free(e);
    }
    for (int k = 0; k < trees && c->nspecs; k++) {
        pq_expr *e = random_tree(c, 1 + (int)(rnd() % 4));
        compare_one(t, e, cols, schemas, NULL, length, NULL);
        pq_expr_free(e);
    }
}

/* ---------------------------------------------------------------------------
 * A column's values as predicate literals
 * ------------------------------------------------------------------------- */

static bool slot_valid(const struct ArrowArray *a, int64_t j)
{
    const uint8_t *v = a->null_count != 0 && a->n_buffers > 0 ? a->buffers[0] : NULL;
    return !v || ((v[j >> 3] >> (j & 7)) & 1);
}

static uint64_t load_le(const uint8_t *p, size_t w, bool sign)
{
    uint64_t x = 0;
    for (size_t k = 0; k < w && k < 8; k++) x |= (uint64_t)p[k] << (8 * k);
    if (sign && w < 8 && ((x >> (8 * w - 1)) & 1)) x |= ~0ull << (8 * w);
    return x;
}

/* Row i of a column as a literal in the bound domain (predicate.h);
 * bytes point into `buf` (cap 64) or the array. False for a null row or a
 * format the generator does not read. */
static bool slot_literal(const pq_expr *leaf, const struct ArrowArray *a, const struct ArrowSchema *s, int64_t i,
                         pq_value *v, uint8_t *buf)
{
    memset(v, 0, sizeof *v);
    int64_t j = a->offset + i;
    if (a->n_buffers < 2 || !a->buffers[1] || !slot_valid(a, j)) return false; /* "n": no values */
    const char *f = s->format;
    if (s->dictionary) {
        int32_t e = ((const int32_t *)a->buffers[1])[j];
        if (!a->dictionary || e < 0 || e >= a->dictionary->length) return false;
        return slot_literal(leaf, a->dictionary, s->dictionary, e, v, buf);
    }
    const uint8_t *d = a->buffers[1];
    if (strcmp(f, "b") == 0) {
        v->i = (d[j >> 3] >> (j & 7)) & 1;
        return true;
    }
    if (strcmp(f, "f") == 0) {
        float x;
        memcpy(&x, d + 4 * j, 4);
        v->d = x;
        return true;
    }
    if (strcmp(f, "g") == 0) {
        memcpy(&v->d, d + 8 * j, 8);
        return true;
    }
    if (!strcmp(f, "u") || !strcmp(f, "z") || !strcmp(f, "U") || !strcmp(f, "Z")) {
        bool big = f[0] == 'U' || f[0] == 'Z';
        int64_t o0 = big ? ((const int64_t *)d)[j] : ((const int32_t *)d)[j];
        int64_t o1 = big ? ((const int64_t *)d)[j + 1] : ((const int32_t *)d)[j + 1];
        v->bytes = (uint8_t *)a->buffers[2] + o0;
        v->len = (size_t)(o1 - o0);
        return true;
    }
    if (!strcmp(f, "vu") || !strcmp(f, "vz")) {
        const uint8_t *w = d + 16 * j;
        int32_t l, b, o;
        memcpy(&l, w, 4);
        memcpy(&b, w + 8, 4);
        memcpy(&o, w + 12, 4);
        v->len = (size_t)l;
        v->bytes = (uint8_t *)(l <= 12 ? w + 4 : (const uint8_t *)a->buffers[2 + b] + o);
        return true;
    }
    if (f[0] == 'd' && f[1] == ':') { /* decimal64 / 128 / 256 (pq_test_arrow_fixed_width lacks 64) */
        const char *bits = strchr(strchr(f, ',') + 1, ',');
        size_t w = bits && strcmp(bits, ",64") == 0 ? 8 : bits && strcmp(bits, ",256") == 0 ? 32 : 16;
        const uint8_t *p = d + w * (size_t)j;
        if (leaf->physical_type == PQ_INT32 || leaf->physical_type == PQ_INT64) {
            v->i = (int64_t)load_le(p, 8, true);
        } else {
            for (size_t k = 0; k < w; k++) buf[k] = p[w - 1 - k];
            v->bytes = buf;
            v->len = w;
        }
        return true;
    }
    if (f[0] == 'w' && f[1] == ':') {
        size_t w = pq_test_arrow_fixed_width(f);
        v->bytes = (uint8_t *)d + w * (size_t)j;
        v->len = w;
        return true;
    }
    static const char *const sgn[] = {"c", "s", "i", "l", "tdD", "tts", "ttm", "ttu", "ttn"};
    static const char *const uns[] = {"C", "S", "I", "L"};
    size_t w = pq_test_arrow_fixed_width(f);
    bool is_signed = f[0] == 't';
    for (size_t k = 0; k < 9; k++) is_signed |= strcmp(f, sgn[k]) == 0;
    bool is_unsigned = false;
    for (size_t k = 0; k < 4; k++) is_unsigned |= strcmp(f, uns[k]) == 0;
    if ((!is_signed && !is_unsigned) || w == 0 || w > 8) return false;
    v->i = (int64_t)load_le(d + w * (size_t)j, w, is_signed);
    return true;
}

/* Specs from a column's values: every operator against sampled values and
 * their neighbours, IN lists, IS [NOT] NULL. */
static void make_specs(column_ctx *c, const struct ArrowArray *a, const struct ArrowSchema *s, int64_t length)
{
    add_spec(c, PQ_NODE_IS_NULL, PQ_CMP_EQ, true, NULL, 0);
    add_spec(c, PQ_NODE_IS_NULL, PQ_CMP_EQ, false, NULL, 0);
    uint8_t order = c->tmpl->order;
    pq_value picks[8];
    uint8_t bufs[8][64], more[4][80];
    size_t npicks = 0;
    for (int tries = 0; tries < 40 && npicks < 8 && length > 0; tries++) {
        int64_t i = tries == 0 ? 0 : tries == 1 ? length - 1 : (int64_t)(rnd() % (uint64_t)length);
        if (slot_literal(c->tmpl, a, s, i, &picks[npicks], bufs[npicks])) npicks++;
    }
    for (size_t k = 0; k < npicks; k++) {
        pq_value v[4] = {picks[k], picks[k], picks[k], picks[k]};
        size_t nv = 1;
        if (order == PQ_ORDER_SIGNED || order == PQ_ORDER_UNSIGNED) {
            if (v[0].bytes) { /* a decimal slot as big-endian bytes: its value plus one */
                nv = 1;
            } else {
                v[1].i = v[0].i + 1;
                v[2].i = v[0].i - 1;
                nv = 3;
            }
        } else if (order == PQ_ORDER_FLOAT) {
            v[1].d = nextafter(v[0].d, INFINITY);
            v[2].d = nextafter(v[0].d, -INFINITY);
            v[3].d = k == 0 ? NAN : k == 1 ? INFINITY : k == 2 ? -0.0 : -v[0].d;
            nv = 4;
        } else if (k < 4 && v[0].len < 64) { /* longer and shorter strings */
            memcpy(more[k], v[0].bytes, v[0].len);
            more[k][v[0].len] = (uint8_t)(k * 37);
            v[1].bytes = more[k];
            v[1].len = v[0].len + 1;
            v[2].len = v[0].len ? v[0].len - 1 : 0;
            nv = 3;
        }
        for (size_t m = 0; m < nv; m++)
            for (int op = PQ_CMP_EQ; op <= PQ_CMP_GE; op++)
                if (m == 0 || op == PQ_CMP_LT || op == PQ_CMP_GE) add_spec(c, PQ_NODE_CMP, (pq_cmp_op)op, false, &v[m], 1);
    }
    if (npicks) {
        pq_value in[8];
        memcpy(in, picks, npicks * sizeof *in);
        add_in(c, in, 1);
        memcpy(in, picks, npicks * sizeof *in);
        add_in(c, in, npicks < 3 ? npicks : 3);
        memcpy(in, picks, npicks * sizeof *in);
        add_in(c, in, npicks);
    }
}

/* ---------------------------------------------------------------------------
 * A generated column of many blocks
 * ------------------------------------------------------------------------- */

START_TEST(many_blocks)
{
    tally t = {0};
    enum { N = 100003 };
    int64_t *x = malloc(N * sizeof *x);
    uint8_t *valid = calloc(N / 8 + 1, 1);
    ck_assert(x && valid);
    for (int64_t i = 0; i < N; i++) {
        x[i] = (int64_t)(rnd() % 1000) - 500;
        if (rnd() % 10) valid[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    hand_col c;
    hand_col_init(&c, "l", N, valid, x, NULL);
    const struct ArrowArray *cols[1] = {&c.a};
    const struct ArrowSchema *schemas[1] = {&c.s};
    pq_expr *tmpl = hand_leaf(0, PQ_INT64, PQ_ORDER_SIGNED);
    column_ctx cc = {.tmpl = tmpl};
    make_specs(&cc, &c.a, &c.s, N);
    run_specs(&t, &cc, cols, schemas, N, 40);
    /* Every thread count a block may have. */
    static const uint32_t threads[] = {1, 2, 31, 64, 255, 1024};
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        pq_expr *e = random_tree(&cc, 4);
        uint8_t *cpu = calloc(N / 8 + 1, 1), *dev = calloc(N / 8 + 1, 1);
        pq_error err = {0};
        ck_assert_int_eq(pq_predicate_eval(e, cols, schemas, NULL, N, cpu, &err), PQ_OK);
        pq_dfilter_exec ex = {PQ_DFILTER_HOST, NULL, threads[k], k % 2 ? PQ_KLAUNCH_REVERSE : 0};
        int64_t kept = 0;
        ck_assert_msg(pq_device_filter_eval(e, cols, schemas, NULL, N, &ex, dev, &kept, &err) == PQ_OK, "%s",
                      err.message);
        ck_assert_msg(memcmp(cpu, dev, N / 8 + 1) == 0, "%u threads: keep bits differ", threads[k]);
        ck_assert_int_eq((uint64_t)kept, count_bits(cpu, N));
        free(cpu);
        free(dev);
        pq_expr_free(e);
        t.equal++;
    }
    /* Past the nesting limit (a chain of 2100 ANDs) and past PQ_DFILTER_MAX_NODES
     * (a balanced tree of 4200 leaves) the kernel refuses; the CPU evaluates. */
    {
        pq_expr *chain = build_leaf(&cc, &cc.specs[2]);
        for (int k = 0; k < 2100; k++) chain = h_and(chain, build_leaf(&cc, &cc.specs[2 + rnd() % (cc.nspecs - 2)]));
        enum { LEAVES = 4200 };
        pq_expr **level = malloc(LEAVES * sizeof *level);
        ck_assert(level);
        for (int k = 0; k < LEAVES; k++) level[k] = build_leaf(&cc, &cc.specs[2 + rnd() % (cc.nspecs - 2)]);
        for (int n = LEAVES; n > 1; n = (n + 1) / 2)
            for (int k = 0; k < (n + 1) / 2; k++)
                level[k] = 2 * k + 1 < n ? (k % 2 ? h_or(level[2 * k], level[2 * k + 1]) : h_and(level[2 * k], level[2 * k + 1]))
                                         : level[2 * k];
        long before = t.unsupported;
        compare_one(&t, chain, cols, schemas, NULL, N, NULL);
        compare_one(&t, level[0], cols, schemas, NULL, N, NULL);
        ck_assert_int_eq(t.unsupported, before + 2);
        pq_expr_free(chain);
        pq_expr_free(level[0]);
        free(level);
    }
    free_specs(&cc);
    pq_expr_free(tmpl);
    free(x);
    free(valid);
    print_tally("many blocks", &t);
    ck_assert_int_eq(t.mismatches, 0);
}
END_TEST

/* Predicates compared on a column of this Arrow format ("dict<u>" for a
 * dictionary array). */
static void count_format(tally *t, const struct ArrowSchema *s, long n)
{
    char f[40];
    if (s->dictionary) snprintf(f, sizeof f, "dict<%.30s>", s->dictionary->format);
    else snprintf(f, sizeof f, "%.38s", s->format);
    if (f[0] == 't' && f[1] == 's' && strchr(f, ':')) strchr(f, ':')[1] = 0; /* time zones apart: one format */
    for (int i = 0; i < t->nformats; i++)
        if (strcmp(t->formats[i].format, f) == 0) {
            t->formats[i].n += n;
            return;
        }
    if (t->nformats < 48) {
        snprintf(t->formats[t->nformats].format, sizeof t->formats[0].format, "%s", f);
        t->formats[t->nformats++].n = n;
    }
}

/* Arrow formats the corpus lacks, on generated columns of small value
 * ranges (so that comparisons and IN split the rows), nulls and all. */
START_TEST(generated_formats)
{
    static const struct {
        const char *format;
        int32_t physical;
        uint8_t order;
        size_t width;
        bool decimal;
    } kinds[] = {
        {"C", PQ_INT32, PQ_ORDER_UNSIGNED, 1, false},  {"S", PQ_INT32, PQ_ORDER_UNSIGNED, 2, false},
        {"I", PQ_INT32, PQ_ORDER_UNSIGNED, 4, false},  {"L", PQ_INT64, PQ_ORDER_UNSIGNED, 8, false},
        {"c", PQ_INT32, PQ_ORDER_SIGNED, 1, false},    {"tdD", PQ_INT32, PQ_ORDER_SIGNED, 4, false},
        {"tts", PQ_INT32, PQ_ORDER_SIGNED, 4, false},  {"ttn", PQ_INT64, PQ_ORDER_SIGNED, 8, false},
        {"tsu:UTC", PQ_INT64, PQ_ORDER_SIGNED, 8, false}, {"tsn:", PQ_INT64, PQ_ORDER_SIGNED, 8, false},
        {"d:40,0,256", PQ_FIXED_LEN_BYTE_ARRAY, PQ_ORDER_DECIMAL_BYTES, 32, true},
        {"d:30,0", PQ_BYTE_ARRAY, PQ_ORDER_DECIMAL_BYTES, 16, true},
        {"d:9,1,64", PQ_INT32, PQ_ORDER_SIGNED, 8, true},
        {"w:3", PQ_FIXED_LEN_BYTE_ARRAY, PQ_ORDER_BYTES, 3, false},
    };
    tally t = {0};
    enum { N = 5003 };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t w = kinds[k].width;
        uint8_t *data = calloc(N, w), *valid = calloc(N / 8 + 1, 1);
        ck_assert(data && valid);
        for (int64_t i = 0; i < N; i++) {
            /* A few distinct values: the top byte all ones or zeros (signs, large unsigned). */
            uint64_t r = rnd();
            uint8_t fill = r & 1 ? 0xff : 0x00;
            for (size_t b = 0; b < w; b++) data[i * (int64_t)w + b] = fill;
            data[i * (int64_t)w] = (uint8_t)(r >> 8) % 7;
            if (rnd() % 8) valid[i >> 3] |= (uint8_t)(1u << (i & 7));
        }
        hand_col c;
        hand_col_init(&c, kinds[k].format, N, valid, data, NULL);
        const struct ArrowArray *cols[1] = {&c.a};
        const struct ArrowSchema *schemas[1] = {&c.s};
        pq_expr *tmpl = hand_leaf(0, kinds[k].physical, kinds[k].order);
        if (kinds[k].decimal) tmpl->logical.kind = PQ_LOGICAL_DECIMAL;
        column_ctx cc = {.tmpl = tmpl};
        long before = t.equal;
        make_specs(&cc, &c.a, &c.s, N);
        run_specs(&t, &cc, cols, schemas, N, 20);
        count_format(&t, &c.s, t.equal - before);
        free_specs(&cc);
        pq_expr_free(tmpl);
        free(data);
        free(valid);
    }
    print_tally("generated formats", &t);
    ck_assert_int_eq(t.mismatches, 0);
    ck_assert_int_eq(t.unsupported, 0);
}
END_TEST

/* ---------------------------------------------------------------------------
 * The corpus
 * ------------------------------------------------------------------------- */

typedef struct read_way {
    uint32_t strings, decimals;
    const char *name;
} read_way;

static const read_way ways[] = {
    {PQ_STRINGS_STRING, PQ_DECIMALS_128, "string, decimal128"},
    {PQ_STRINGS_VIEW, PQ_DECIMALS_64, "view, decimal64"},
    {PQ_STRINGS_LARGE, PQ_DECIMALS_128, "large, decimal128"},
    {PQ_STRINGS_DICTIONARY, PQ_DECIMALS_64, "dictionary, decimal64"},
};

/* Whether leaf k is a flat top-level column. */
static bool flat_top(const pq_leaf *l)
{
    return l->max_rep == 0 && strchr(l->path, '.') == NULL;
}

static void check_file(tally *t, long *columns, const char *path, const read_way *w)
{
    pq_error err = {0};
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.threads = 1;
    opts.string_type = w->strings;
    opts.decimal_type = w->decimals;
    pq_reader *r = pq_reader_open_path(path, &opts, &err);
    if (!r || pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err) != PQ_OK) { /* the corpus's broken files */
        pq_reader_close(r);
        return;
    }
    pq_metadata *md = pq_reader_metadata(r);
    const pq_schema *schema = pq_metadata_schema(md);
    uint32_t *flat = malloc((schema->leaves_len + 1) * sizeof *flat);
    ck_assert(flat);
    size_t nflat = 0;
    for (uint32_t k = 0; k < schema->leaves_len; k++)
        if (flat_top(&schema->leaves[k])) flat[nflat++] = k;
    pq_reader_close(r);
    if (!nflat) {
        free(flat);
        return;
    }
    opts.columns = flat;
    opts.columns_len = nflat;
    r = pq_reader_open_path(path, &opts, &err);
    if (!r || pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) != PQ_OK) {
        pq_reader_close(r);
        free(flat);
        return;
    }
    md = pq_reader_metadata(r);
    schema = pq_metadata_schema(md); /* the first reader's is gone */
    size_t ngroups = 0;
    const uint32_t *groups = pq_reader_selected_row_groups(r, &ngroups);
    const struct ArrowArray **cols = calloc(schema->leaves_len + 1, sizeof *cols);
    const struct ArrowSchema **schemas = calloc(schema->leaves_len + 1, sizeof *schemas);
    ck_assert(cols && schemas);
    for (size_t g = 0; g < ngroups && g < 2; g++) { /* two row groups a file is plenty */
        struct ArrowArray batch;
        struct ArrowSchema bs;
        if (pq_reader_export_row_group(r, groups[g], &batch, &bs, &err) != PQ_OK) continue;
        int64_t length = batch.length < 3000 ? batch.length : 3000;
        for (int64_t k = 0; k < batch.n_children && (size_t)k < nflat; k++) {
            cols[flat[k]] = batch.children[k];
            schemas[flat[k]] = bs.children[k];
        }
        for (size_t k = 0; k < nflat && (int64_t)k < batch.n_children; k++) {
            const pq_leaf *l = &schema->leaves[flat[k]];
            pq_expr *tmpl = pq_expr_is_null(l->path, false, &err);
            if (!tmpl || pq_expr_bind(tmpl, md, &err) != PQ_OK || tmpl->kind != PQ_NODE_IS_NULL || tmpl->leaf < 0) {
                pq_expr_free(tmpl);
                continue;
            }
            (*columns)++;
            long before = t->equal;
            column_ctx cc = {.tmpl = tmpl};
            make_specs(&cc, cols[flat[k]], schemas[flat[k]], length);
            run_specs(t, &cc, cols, schemas, length, 12);
            /* The same columns at an Arrow offset of 3. */
            if (length > 3) {
                struct ArrowArray sliced = *cols[flat[k]];
                sliced.offset += 3;
                sliced.length -= 3;
                sliced.null_count = sliced.null_count ? -1 : 0;
                const struct ArrowArray *keep = cols[flat[k]];
                cols[flat[k]] = &sliced;
                for (size_t m = 0; m < cc.nspecs; m += 3) {
                    pq_expr *e = build_leaf(&cc, &cc.specs[m]);
                    compare_one(t, e, cols, schemas, NULL, length - 3, NULL);
                    pq_expr_free(e);
                }
                cols[flat[k]] = keep;
            }
            count_format(t, schemas[flat[k]], t->equal - before);
            free_specs(&cc);
            pq_expr_free(tmpl);
        }
        batch.release(&batch);
        bs.release(&bs);
        memset(cols, 0, (schema->leaves_len + 1) * sizeof *cols);
        memset(schemas, 0, (schema->leaves_len + 1) * sizeof *schemas);
    }
    free(cols);
    free(schemas);
    free(flat);
    pq_reader_close(r);
}

START_TEST(corpus_equals_the_cpu_evaluator)
{
    char **files = NULL;
    int n = pq_test_corpus_files(&files);
    if (n == 0) {
        printf("SKIP corpus: no parquet-testing corpus (set PQSTEP_TEST_CORPUS)\n");
        return;
    }
    tally t = {0};
    long columns = 0;
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        for (int k = 0; k < n; k++) {
            char *path = pq_test_corpus_path(files[k]);
            check_file(&t, &columns, path, &ways[w]);
            free(path);
        }
    }
    pq_test_free_files(files, n);
    printf("corpus: %d files, %ld columns read four ways\n", n, columns);
    print_tally("corpus", &t);
    ck_assert_int_eq(t.mismatches, 0);
    ck_assert_int_gt(t.equal, 1000);
}
END_TEST

START_TEST(cuda_device)
{
    const char *why = NULL;
    if (pq_cuda_device_count(&why) == 0) {
        printf("SKIP cuda: the predicate kernel on a GPU needs a CUDA device: %s\n", why ? why : "none");
        return;
    }
    /* With a device: the driver's CUDA calls on columns of no rows (no
     * device buffers needed) must succeed; the buffer-for-buffer check on
     * a device runs in scripts/gpu-check. */
    pq_error err = {0};
    pq_expr *k = pq_expr_const(true, &err);
    mark_bound(k);
    uint8_t bits[1] = {0};
    pq_dfilter_exec ex = {PQ_DFILTER_CUDA, NULL, 256, 0};
    ck_assert_int_eq(pq_device_filter_eval(k, NULL, NULL, NULL, 0, &ex, bits, NULL, &err), PQ_OK);
    pq_expr_free(k);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("device filter");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, hand_vectors);
    tcase_add_test(tc, many_blocks);
    tcase_add_test(tc, generated_formats);
    tcase_add_test(tc, corpus_equals_the_cpu_evaluator);
    tcase_add_test(tc, cuda_device);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
