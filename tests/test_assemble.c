/*
 * test_assemble.c — record assembly (kernels/assemble.h) on hand-computed
 * levels: each case writes the data, the schema, the (def, rep) of every
 * entry and the expected validity and offsets worked out by hand in a
 * comment. Every case runs the kernel twice, counting (NULL buffers) and
 * then filling buffers malloc'd to exactly the counted size, so ASan would
 * see a write past the count. Corrupt levels must give clean errors (this
 * suite also runs under ASan + UBSan).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/assemble.h"

enum { REQ = 0, OPT = 1, REP = 2 };
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MAXLV 8

/* Level shorthands: nullable flag, def, and for lists list_def and list_rep. */
#define LEAF(nul, d) {.kind = PQ_ASM_LEAF, .nullable = (nul), .def = (d)}
#define STRUCT(nul, d) {.kind = PQ_ASM_STRUCT, .nullable = (nul), .def = (d)}
#define LIST(nul, d, ld, lr) {.kind = PQ_ASM_LIST, .nullable = (nul), .def = (d), .list_def = (ld), .list_rep = (lr)}

typedef struct run {
    size_t nlev;
    pq_asm_out out[MAXLV];
    pq_asm_result res;
    pq_error err;
} run;

static void run_free(run *a)
{
    for (size_t i = 0; i < a->nlev; i++) {
        free(a->out[i].validity);
        free(a->out[i].offsets);
    }
}

/* Counting pass, exact allocation, filling pass; the passes must agree. */
static pq_status assemble(const pq_asm_level *lv, size_t nlev, const int16_t *def, const int16_t *rep, size_t n,
                          size_t max_records, run *a)
{
    ck_assert_uint_le(nlev, MAXLV);
    memset(a, 0, sizeof *a);
    a->nlev = nlev;
    pq_status st = pq_assemble(lv, nlev, def, rep, n, max_records, a->out, &a->res, &a->err);
    if (st != PQ_OK) return st;
    pq_asm_out counted[MAXLV];
    pq_asm_result res1 = a->res;
    memcpy(counted, a->out, sizeof counted);
    for (size_t i = 0; i < nlev; i++) {
        size_t c = a->out[i].count;
        a->out[i].cap = c;
        a->out[i].validity = malloc(c ? (c + 7) / 8 : 1);
        ck_assert_ptr_nonnull(a->out[i].validity);
        if (lv[i].kind == PQ_ASM_LIST) {
            a->out[i].offsets = malloc((c + 1) * sizeof(int32_t));
            ck_assert_ptr_nonnull(a->out[i].offsets);
        }
    }
    st = pq_assemble(lv, nlev, def, rep, n, max_records, a->out, &a->res, &a->err);
    ck_assert_int_eq(st, PQ_OK);
    for (size_t i = 0; i < nlev; i++) {
        ck_assert_uint_eq(a->out[i].count, counted[i].count);
        ck_assert_uint_eq(a->out[i].nulls, counted[i].nulls);
    }
    ck_assert_uint_eq(a->res.levels_used, res1.levels_used);
    ck_assert_uint_eq(a->res.records, res1.records);
    ck_assert_uint_eq(a->res.values, res1.values);
    return st;
}

/* bits: "1011" = slot 0 defined, slot 1 not, ...; the padding bits must be 0.
 * offs: count + 1 offsets, or NULL for a level that is no list. */
static void expect_level(const run *a, size_t i, const char *bits, const int32_t *offs)
{
    const pq_asm_out *o = &a->out[i];
    size_t count = strlen(bits), nulls = 0;
    ck_assert_msg(o->count == count, "level %zu: %zu slots, expected %zu", i, o->count, count);
    for (size_t s = 0; s < count; s++) {
        int got = (o->validity[s / 8] >> (s % 8)) & 1;
        ck_assert_msg(got == bits[s] - '0', "level %zu slot %zu: bit %d, expected %c", i, s, got, bits[s]);
        nulls += bits[s] == '0';
    }
    for (size_t s = count; s < (count + 7) / 8 * 8; s++) ck_assert_int_eq((o->validity[s / 8] >> (s % 8)) & 1, 0);
    ck_assert_msg(o->nulls == nulls, "level %zu: %zu nulls, expected %zu", i, o->nulls, nulls);
    if (offs)
        for (size_t s = 0; s <= count; s++)
            ck_assert_msg(o->offsets[s] == offs[s], "level %zu offset %zu: %d, expected %d", i, s, o->offsets[s],
                          offs[s]);
}

static void expect_result(const run *a, size_t used, size_t records, size_t values)
{
    ck_assert_uint_eq(a->res.levels_used, used);
    ck_assert_uint_eq(a->res.records, records);
    ck_assert_uint_eq(a->res.values, values);
}

/* The helper must derive exactly the hand-written levels from the path. */
static void expect_path(const pq_asm_node *nodes, size_t n_nodes, const pq_asm_level *want, size_t n_want)
{
    pq_asm_level got[2 * MAXLV];
    size_t n = 0;
    pq_error err = {0};
    ck_assert_int_eq(pq_asm_levels_from_path(nodes, n_nodes, got, NELEM(got), &n, &err), PQ_OK);
    ck_assert_uint_eq(n, n_want);
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(got[i].kind == want[i].kind && got[i].nullable == want[i].nullable &&
                          got[i].def == want[i].def,
                      "level %zu: kind %d nullable %d def %d", i, (int)got[i].kind, got[i].nullable, got[i].def);
        if (want[i].kind == PQ_ASM_LIST) {
            ck_assert_int_eq(got[i].list_def, want[i].list_def);
            ck_assert_int_eq(got[i].list_rep, want[i].list_rep);
        }
    }
    ck_assert_int_eq(pq_asm_check_levels(got, n, NULL, NULL, &err), PQ_OK);
}

/* ---- Flat ---- */

/* required int32: max_def = max_rep = 0, no level arrays at all; 5 values
 * are 5 records of one defined slot each. */
START_TEST(flat_required)
{
    const pq_asm_node path[] = {{REQ, PQ_ASM_LEAF}};
    const pq_asm_level lv[] = {LEAF(false, 0)};
    expect_path(path, 1, lv, 1);
    run a;
    ck_assert_int_eq(assemble(lv, 1, NULL, NULL, 5, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "11111", NULL);
    expect_result(&a, 5, 5, 5);
    ck_assert_int_eq(a.res.max_def, 0);
    ck_assert_int_eq(a.res.max_rep, 0);
    run_free(&a);
}
END_TEST

/* optional int32: max_def 1; value present <=> def 1. Nine entries, so the
 * bitmap spills into a second byte: 1,0,1,1,0,0,1,1 | 1 = 0xCD, 0x01. */
START_TEST(flat_optional)
{
    const pq_asm_node path[] = {{OPT, PQ_ASM_LEAF}};
    const pq_asm_level lv[] = {LEAF(true, 1)};
    expect_path(path, 1, lv, 1);
    const int16_t def[] = {1, 0, 1, 1, 0, 0, 1, 1, 1};
    run a;
    ck_assert_int_eq(assemble(lv, 1, def, NULL, 9, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "101100111", NULL);
    ck_assert_uint_eq(a.out[0].validity[0], 0xCD);
    ck_assert_uint_eq(a.out[0].validity[1], 0x01);
    expect_result(&a, 9, 9, 6);
    run_free(&a);
}
END_TEST

/* ---- Structs ---- */

/* optional group outer { optional group inner { optional int32 x } }
 * def: outer present 1, inner present 2, x present 3. Records and levels:
 *   null                      d0  -> outer 0, inner 0, x 0
 *   {inner: null}             d1  -> outer 1, inner 0, x 0
 *   {inner: {x: null}}        d2  -> outer 1, inner 1, x 0
 *   {inner: {x: 5}}           d3  -> outer 1, inner 1, x 1
 * A null struct keeps its child slots (undefined), so every level has 4. */
START_TEST(struct_in_struct)
{
    const pq_asm_node path[] = {{OPT, PQ_ASM_STRUCT}, {OPT, PQ_ASM_STRUCT}, {OPT, PQ_ASM_LEAF}};
    const pq_asm_level lv[] = {STRUCT(true, 1), STRUCT(true, 2), LEAF(true, 3)};
    expect_path(path, 3, lv, 3);
    const int16_t def[] = {0, 1, 2, 3};
    run a;
    ck_assert_int_eq(assemble(lv, 3, def, NULL, 4, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "0111", NULL);
    expect_level(&a, 1, "0011", NULL);
    expect_level(&a, 2, "0001", NULL);
    expect_result(&a, 4, 4, 1);
    run_free(&a);
}
END_TEST

/* optional group s { optional int32 a }: {a:1}, null, {a:null}, {a:3}
 *   -> def 2, 0, 1, 2: s 1,0,1,1; a 1,0,0,1 (2 values).
 * optional group s { required int32 b }: {b:1}, null, {b:2}
 *   -> def 1, 0, 1: b is required but its slot under the null struct has no
 *   value: 1,0,1, one undefined slot, 2 values. */
START_TEST(struct_optional_and_required_child)
{
    const pq_asm_level lv[] = {STRUCT(true, 1), LEAF(true, 2)};
    const int16_t def[] = {2, 0, 1, 2};
    run a;
    ck_assert_int_eq(assemble(lv, 2, def, NULL, 4, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "1011", NULL);
    expect_level(&a, 1, "1001", NULL);
    expect_result(&a, 4, 4, 2);
    run_free(&a);

    const pq_asm_node path2[] = {{OPT, PQ_ASM_STRUCT}, {REQ, PQ_ASM_LEAF}};
    const pq_asm_level lv2[] = {STRUCT(true, 1), LEAF(false, 1)};
    expect_path(path2, 2, lv2, 2);
    const int16_t def2[] = {1, 0, 1};
    ck_assert_int_eq(assemble(lv2, 2, def2, NULL, 3, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "101", NULL);
    expect_level(&a, 1, "101", NULL);
    expect_result(&a, 3, 3, 2);
    run_free(&a);
}
END_TEST

/* ---- The Dremel paper's Document example ----
 *   message Document {
 *     required int64 DocId;
 *     optional group Links { repeated int64 Backward; repeated int64 Forward; }
 *     repeated group Name {
 *       repeated group Language { required string Code; optional string Country; }
 *       optional string Url; } }
 * r1: DocId 10, Links{Forward 20,40,60},
 *     Name{Language{en-us, us}, Language{en}, Url http://A}, Name{Url http://B},
 *     Name{Language{en-gb, gb}}
 * r2: DocId 20, Links{Backward 10,30; Forward 80}, Name{Url http://C}
 * Column levels (r, d) as the paper lists them. */

/* Name.Language.Code: Name and Language are bare repeated groups, so each
 * is a required list (def threshold unchanged, list_def +1, rep +1) of a
 * required struct: LIST(0,1,1) STRUCT(1) LIST(1,2,2) STRUCT(2) LEAF(2).
 * Entries: en-us (0,2), en (2,2), NULL (1,1), en-gb (1,2), NULL (0,1).
 *   Name lists:     r1 has 3 Names, r2 has 1       -> offsets 0,3,4
 *   Name structs:   4, all defined
 *   Language lists: [en-us,en], [], [en-gb], []   -> offsets 0,2,2,3,3
 *   Language structs and Code: 3 slots, all defined */
START_TEST(dremel_code)
{
    const pq_asm_node path[] = {{REP, PQ_ASM_STRUCT}, {REP, PQ_ASM_STRUCT}, {REQ, PQ_ASM_LEAF}};
    const pq_asm_level lv[] = {LIST(false, 0, 1, 1), STRUCT(false, 1), LIST(false, 1, 2, 2), STRUCT(false, 2),
                               LEAF(false, 2)};
    expect_path(path, 3, lv, 5);
    const int16_t def[] = {2, 2, 1, 2, 1}, rep[] = {0, 2, 1, 1, 0};
    run a;
    ck_assert_int_eq(assemble(lv, 5, def, rep, 5, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "11", (const int32_t[]){0, 3, 4});
    expect_level(&a, 1, "1111", NULL);
    expect_level(&a, 2, "1111", (const int32_t[]){0, 2, 2, 3, 3});
    expect_level(&a, 3, "111", NULL);
    expect_level(&a, 4, "111", NULL);
    expect_result(&a, 5, 2, 3);
    ck_assert_int_eq(a.res.max_def, 2);
    ck_assert_int_eq(a.res.max_rep, 2);
    run_free(&a);

    /* One record at a time (batching): r1 is the first 4 entries. */
    ck_assert_int_eq(assemble(lv, 5, def, rep, 5, 1, &a), PQ_OK);
    expect_level(&a, 0, "1", (const int32_t[]){0, 3});
    expect_level(&a, 2, "111", (const int32_t[]){0, 2, 2, 3});
    expect_result(&a, 4, 1, 3);
    run_free(&a);
}
END_TEST

/* Name.Language.Country: as Code, but the leaf is optional (def 3).
 * Entries: us (0,3), NULL (2,2), NULL (1,1), gb (1,3), NULL (0,1).
 * Same lists; Country slots: us, null, gb -> 1,0,1. */
START_TEST(dremel_country)
{
    const pq_asm_level lv[] = {LIST(false, 0, 1, 1), STRUCT(false, 1), LIST(false, 1, 2, 2), STRUCT(false, 2),
                               LEAF(true, 3)};
    const int16_t def[] = {3, 2, 1, 3, 1}, rep[] = {0, 2, 1, 1, 0};
    run a;
    ck_assert_int_eq(assemble(lv, 5, def, rep, 5, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "11", (const int32_t[]){0, 3, 4});
    expect_level(&a, 2, "1111", (const int32_t[]){0, 2, 2, 3, 3});
    expect_level(&a, 3, "111", NULL);
    expect_level(&a, 4, "101", NULL);
    expect_result(&a, 5, 2, 2);
    run_free(&a);
}
END_TEST

/* Name.Url: LIST(0,1,1) STRUCT(1) LEAF(nullable, 2).
 * Entries: http://A (0,2), http://B (1,2), NULL (1,1), http://C (0,2).
 * Names 0,3,4; Url 1,1,0,1. */
START_TEST(dremel_url)
{
    const pq_asm_node path[] = {{REP, PQ_ASM_STRUCT}, {OPT, PQ_ASM_LEAF}};
    const pq_asm_level lv[] = {LIST(false, 0, 1, 1), STRUCT(false, 1), LEAF(true, 2)};
    expect_path(path, 2, lv, 3);
    const int16_t def[] = {2, 2, 1, 2}, rep[] = {0, 1, 1, 0};
    run a;
    ck_assert_int_eq(assemble(lv, 3, def, rep, 4, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "11", (const int32_t[]){0, 3, 4});
    expect_level(&a, 1, "1111", NULL);
    expect_level(&a, 2, "1101", NULL);
    expect_result(&a, 4, 2, 3);
    run_free(&a);
}
END_TEST

/* Links.Forward / Links.Backward: optional struct (def 1) holding a bare
 * repeated int64: STRUCT(nullable,1) LIST(required,1,2,1) LEAF(required,2).
 * Forward:  20 (0,2), 40 (1,2), 60 (1,2), 80 (0,2) -> lists 0,3,4.
 * Backward: NULL (0,1), 10 (0,2), 30 (1,2)        -> lists 0,0,2.
 * Plus a third record r3 without Links: Backward (0,0) -> the struct slot is
 * null and the list slot under it is undefined: struct 1,1,0, list 1,1,0. */
START_TEST(dremel_links)
{
    const pq_asm_node path[] = {{OPT, PQ_ASM_STRUCT}, {REP, PQ_ASM_LEAF}};
    const pq_asm_level lv[] = {STRUCT(true, 1), LIST(false, 1, 2, 1), LEAF(false, 2)};
    expect_path(path, 2, lv, 3);
    run a;
    const int16_t fdef[] = {2, 2, 2, 2}, frep[] = {0, 1, 1, 0};
    ck_assert_int_eq(assemble(lv, 3, fdef, frep, 4, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "11", NULL);
    expect_level(&a, 1, "11", (const int32_t[]){0, 3, 4});
    expect_level(&a, 2, "1111", NULL);
    expect_result(&a, 4, 2, 4);
    run_free(&a);

    const int16_t bdef[] = {1, 2, 2, 0}, brep[] = {0, 0, 1, 0};
    ck_assert_int_eq(assemble(lv, 3, bdef, brep, 4, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "110", NULL);
    expect_level(&a, 1, "110", (const int32_t[]){0, 0, 2, 2});
    expect_level(&a, 2, "11", NULL);
    expect_result(&a, 4, 3, 2);
    run_free(&a);
}
END_TEST

/* ---- Lists ---- */

/* optional group a (LIST) { repeated group list { optional int32 element } }
 *   -> LIST(nullable, 1, 2, 1), LEAF(nullable, 3).
 * [[1, null], [], null, [3]]:
 *   1      d3 r0   (new record, list non-empty, element defined)
 *   null   d2 r1   (same list, element present but null)
 *   []     d1 r0   (list defined, empty)
 *   null   d0 r0   (list null)
 *   3      d3 r0
 * offsets 0,2,2,2,3; list validity 1,1,0,1; leaf validity 1,0,1. */
static const pq_asm_level list_opt_int[] = {LIST(true, 1, 2, 1), LEAF(true, 3)};
static const int16_t list_def[] = {3, 2, 1, 0, 3}, list_rep[] = {0, 1, 0, 0, 0};

START_TEST(list_three_level)
{
    const pq_asm_node path[] = {{OPT, PQ_ASM_LIST}, {REP, PQ_ASM_WRAPPER}, {OPT, PQ_ASM_LEAF}};
    expect_path(path, 3, list_opt_int, 2);
    run a;
    ck_assert_int_eq(assemble(list_opt_int, 2, list_def, list_rep, 5, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "1101", (const int32_t[]){0, 2, 2, 2, 3});
    expect_level(&a, 1, "101", NULL);
    ck_assert_uint_eq(a.out[0].validity[0], 0x0B);
    ck_assert_uint_eq(a.out[1].validity[0], 0x05);
    expect_result(&a, 5, 4, 2);
    run_free(&a);
}
END_TEST

/* Batches of 2 records over the same levels: the first stops before entry 3
 * (the third rep 0): [[1, null], []] -> offsets 0,2,2, validity 1,1, leaf
 * 1,0, 1 value, 3 entries. The second starts at entry 3: [null, [3]] ->
 * offsets 0,0,1, validity 0,1, leaf 1. A batch of 0 records takes nothing. */
START_TEST(list_batches)
{
    run a;
    ck_assert_int_eq(assemble(list_opt_int, 2, list_def, list_rep, 5, 2, &a), PQ_OK);
    expect_level(&a, 0, "11", (const int32_t[]){0, 2, 2});
    expect_level(&a, 1, "10", NULL);
    expect_result(&a, 3, 2, 1);
    run_free(&a);

    ck_assert_int_eq(assemble(list_opt_int, 2, list_def + 3, list_rep + 3, 2, 2, &a), PQ_OK);
    expect_level(&a, 0, "01", (const int32_t[]){0, 0, 1});
    expect_level(&a, 1, "1", NULL);
    expect_result(&a, 2, 2, 1);
    run_free(&a);

    ck_assert_int_eq(assemble(list_opt_int, 2, list_def, list_rep, 5, 0, &a), PQ_OK);
    expect_level(&a, 0, "", (const int32_t[]){0});
    expect_result(&a, 0, 0, 0);
    run_free(&a);
}
END_TEST

/* list<list<int>>, all optional, 3-level both:
 *   LIST(nullable,1,2,1) LIST(nullable,3,4,2) LEAF(nullable,5).
 * Records: [[1,2], [], null, [null]], [], null, [[3]]
 *   1       d5 r0      2       d5 r2      []      d3 r1
 *   null    d2 r1      [null]  d4 r1      (rec)[] d1 r0
 *   (rec)null d0 r0    3       d5 r0
 * outer: 4 slots 1,1,0,1, offsets 0,4,4,4,5
 * inner: [1,2], [], null, [null], [3] -> 1,1,0,1,1, offsets 0,2,2,2,3,4
 * leaf:  1, 2, null, 3 -> 1,1,0,1 (3 values) */
START_TEST(list_of_list)
{
    const pq_asm_node path[] = {{OPT, PQ_ASM_LIST}, {REP, PQ_ASM_WRAPPER}, {OPT, PQ_ASM_LIST},
                                {REP, PQ_ASM_WRAPPER}, {OPT, PQ_ASM_LEAF}};
    const pq_asm_level lv[] = {LIST(true, 1, 2, 1), LIST(true, 3, 4, 2), LEAF(true, 5)};
    expect_path(path, 5, lv, 3);
    const int16_t def[] = {5, 5, 3, 2, 4, 1, 0, 5}, rep[] = {0, 2, 1, 1, 1, 0, 0, 0};
    run a;
    ck_assert_int_eq(assemble(lv, 3, def, rep, 8, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "1101", (const int32_t[]){0, 4, 4, 4, 5});
    expect_level(&a, 1, "11011", (const int32_t[]){0, 2, 2, 2, 3, 4});
    expect_level(&a, 2, "1101", NULL);
    expect_result(&a, 8, 4, 3);
    run_free(&a);
}
END_TEST

/* optional group m (MAP) { repeated group key_value { required binary key;
 * optional int32 value } } -> list<struct<key, value>>:
 *   key:   LIST(nullable,1,2,1) STRUCT(required,2) LEAF(required,2)
 *   value: LIST(nullable,1,2,1) STRUCT(required,2) LEAF(nullable,3)
 * Records: {a:1, b:null}, {}, null, {c:3}
 *   key   levels: (2,0) (2,1) (1,0) (0,0) (2,0)
 *   value levels: (3,0) (2,1) (1,0) (0,0) (3,0)
 * map offsets 0,2,2,2,3, validity 1,1,0,1; 3 entries; keys all defined;
 * values 1,0,1. */
START_TEST(map_string_optional_int)
{
    const pq_asm_node kpath[] = {{OPT, PQ_ASM_LIST}, {REP, PQ_ASM_STRUCT}, {REQ, PQ_ASM_LEAF}};
    const pq_asm_node vpath[] = {{OPT, PQ_ASM_LIST}, {REP, PQ_ASM_STRUCT}, {OPT, PQ_ASM_LEAF}};
    const pq_asm_level klv[] = {LIST(true, 1, 2, 1), STRUCT(false, 2), LEAF(false, 2)};
    const pq_asm_level vlv[] = {LIST(true, 1, 2, 1), STRUCT(false, 2), LEAF(true, 3)};
    expect_path(kpath, 3, klv, 3);
    expect_path(vpath, 3, vlv, 3);
    const int16_t rep[] = {0, 1, 0, 0, 0};
    const int16_t kdef[] = {2, 2, 1, 0, 2}, vdef[] = {3, 2, 1, 0, 3};
    run a;
    ck_assert_int_eq(assemble(klv, 3, kdef, rep, 5, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "1101", (const int32_t[]){0, 2, 2, 2, 3});
    expect_level(&a, 1, "111", NULL);
    expect_level(&a, 2, "111", NULL);
    expect_result(&a, 5, 4, 3);
    run_free(&a);

    ck_assert_int_eq(assemble(vlv, 3, vdef, rep, 5, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "1101", (const int32_t[]){0, 2, 2, 2, 3});
    expect_level(&a, 1, "111", NULL);
    expect_level(&a, 2, "101", NULL);
    expect_result(&a, 5, 4, 2);
    run_free(&a);
}
END_TEST

/* Legacy 2-level: optional group a (LIST) { repeated int32 array }: the
 * repeated leaf is the required element: LIST(nullable,1,2,1) LEAF(req,2).
 * [1,2], [], null -> (2,0) (2,1) (1,0) (0,0): offsets 0,2,2,2, 1,1,0. */
START_TEST(list_two_level)
{
    const pq_asm_node path[] = {{OPT, PQ_ASM_LIST}, {REP, PQ_ASM_LEAF}};
    const pq_asm_level lv[] = {LIST(true, 1, 2, 1), LEAF(false, 2)};
    expect_path(path, 2, lv, 2);
    const int16_t def[] = {2, 2, 1, 0}, rep[] = {0, 1, 0, 0};
    run a;
    ck_assert_int_eq(assemble(lv, 2, def, rep, 4, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "110", (const int32_t[]){0, 2, 2, 2});
    expect_level(&a, 1, "11", NULL);
    expect_result(&a, 4, 3, 2);
    run_free(&a);
}
END_TEST

/* Bare repeated int32 x: a required list of required ints,
 * LIST(required,0,1,1) LEAF(required,1).
 * [1,2,3], [], [4] -> (1,0) (1,1) (1,1) (0,0) (1,0): offsets 0,3,3,4. */
START_TEST(list_bare_repeated)
{
    const pq_asm_node path[] = {{REP, PQ_ASM_LEAF}};
    const pq_asm_level lv[] = {LIST(false, 0, 1, 1), LEAF(false, 1)};
    expect_path(path, 1, lv, 2);
    const int16_t def[] = {1, 1, 1, 0, 1}, rep[] = {0, 1, 1, 0, 0};
    run a;
    ck_assert_int_eq(assemble(lv, 2, def, rep, 5, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "111", (const int32_t[]){0, 3, 3, 4});
    expect_level(&a, 1, "1111", NULL);
    expect_result(&a, 5, 3, 4);
    run_free(&a);
}
END_TEST

/* One pass with buffers of cap = n, no bitmap zeroing by the caller: the
 * kernel writes whole bytes (0xFF garbage must not leak). */
START_TEST(single_pass_upper_bound)
{
    uint8_t v0[1], v1[1];
    int32_t o0[6];
    memset(v0, 0xFF, sizeof v0);
    memset(v1, 0xFF, sizeof v1);
    pq_asm_out out[2] = {{.validity = v0, .offsets = o0, .cap = 5}, {.validity = v1, .cap = 5}};
    pq_asm_result res;
    pq_error err;
    ck_assert_int_eq(pq_assemble(list_opt_int, 2, list_def, list_rep, 5, SIZE_MAX, out, &res, &err), PQ_OK);
    ck_assert_uint_eq(out[0].count, 4);
    ck_assert_uint_eq(v0[0], 0x0B);
    ck_assert_uint_eq(v1[0], 0x05);
    ck_assert_int_eq(o0[4], 3);
}
END_TEST

/* ---- Errors ---- */

static void expect_corrupt(const pq_asm_level *lv, size_t nlev, const int16_t *def, const int16_t *rep, size_t n,
                           const char *where)
{
    pq_asm_out out[MAXLV];
    memset(out, 0, sizeof out);
    pq_error err = {0};
    ck_assert_int_eq(pq_assemble(lv, nlev, def, rep, n, SIZE_MAX, out, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(err.code, PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, where) != NULL, "message '%s' lacks '%s'", err.message, where);
}

START_TEST(corrupt_levels)
{
    /* rep[0] = 1: a record cannot start inside a list (ARROW-GH-45185) */
    expect_corrupt(list_opt_int, 2, (const int16_t[]){3, 3}, (const int16_t[]){1, 0}, 2, "entry 0 ");
    /* def 4 > max_def 3, rep 2 > max_rep 1, negative levels */
    expect_corrupt(list_opt_int, 2, (const int16_t[]){3, 4}, (const int16_t[]){0, 0}, 2, "entry 1 ");
    expect_corrupt(list_opt_int, 2, (const int16_t[]){3, 3}, (const int16_t[]){0, 2}, 2, "entry 1 ");
    expect_corrupt(list_opt_int, 2, (const int16_t[]){3, -1}, (const int16_t[]){0, 0}, 2, "entry 1 ");
    expect_corrupt(list_opt_int, 2, (const int16_t[]){3, 3}, (const int16_t[]){0, -1}, 2, "entry 1 ");
    /* flat optional: def 2 > 1 */
    const pq_asm_level flat[] = {LEAF(true, 1)};
    expect_corrupt(flat, 1, (const int16_t[]){1, 0, 2}, NULL, 3, "entry 2 ");
    /* continuing a null list: null (0,0) then (3,1) */
    expect_corrupt(list_opt_int, 2, (const int16_t[]){0, 3}, (const int16_t[]){0, 1}, 2, "entry 1 ");
    /* continuing an empty list: [] (1,0) then (3,1) */
    expect_corrupt(list_opt_int, 2, (const int16_t[]){1, 3}, (const int16_t[]){0, 1}, 2, "entry 1 ");
    /* a continuation that says the list is empty: (3,0) then (1,1) */
    expect_corrupt(list_opt_int, 2, (const int16_t[]){3, 1}, (const int16_t[]){0, 1}, 2, "entry 1 ");
    /* list<list>: [[]] (3,0) then rep 2 continues the empty inner list */
    const pq_asm_level ll[] = {LIST(true, 1, 2, 1), LIST(true, 3, 4, 2), LEAF(true, 5)};
    expect_corrupt(ll, 3, (const int16_t[]){3, 5}, (const int16_t[]){0, 2}, 2, "entry 1 ");
    /* ... and after a null outer list (0,0), rep 2 skips the outer level */
    expect_corrupt(ll, 3, (const int16_t[]){5, 0, 5}, (const int16_t[]){0, 0, 2}, 3, "entry 2 ");
    /* but rep 1 after an empty inner list is fine: [[], [1]] */
    run a;
    ck_assert_int_eq(assemble(ll, 3, (const int16_t[]){3, 5}, (const int16_t[]){0, 1}, 2, SIZE_MAX, &a), PQ_OK);
    expect_level(&a, 0, "1", (const int32_t[]){0, 2});
    expect_level(&a, 1, "11", (const int32_t[]){0, 0, 1});
    run_free(&a);
}
END_TEST

START_TEST(bad_arguments)
{
    pq_asm_out out[MAXLV];
    memset(out, 0, sizeof out);
    pq_error err = {0};
    /* def NULL although max_def 3; rep NULL although max_rep 1 */
    ck_assert_int_eq(pq_assemble(list_opt_int, 2, NULL, list_rep, 5, SIZE_MAX, out, NULL, &err),
                     PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_assemble(list_opt_int, 2, list_def, NULL, 5, SIZE_MAX, out, NULL, &err),
                     PQ_ERR_INVALID_ARGUMENT);
    /* thresholds that do not follow the rules */
    const pq_asm_level bad_def[] = {LIST(true, 1, 2, 1), LEAF(true, 4)};
    const pq_asm_level bad_list[] = {LIST(true, 1, 3, 1), LEAF(true, 4)};
    const pq_asm_level bad_rep[] = {LIST(true, 1, 2, 2), LEAF(true, 3)};
    const pq_asm_level no_leaf[] = {STRUCT(true, 1)};
    const pq_asm_level leaf_first[] = {LEAF(true, 1), STRUCT(true, 2)};
    ck_assert_int_eq(pq_asm_check_levels(bad_def, 2, NULL, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_asm_check_levels(bad_list, 2, NULL, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_asm_check_levels(bad_rep, 2, NULL, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_asm_check_levels(no_leaf, 1, NULL, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_asm_check_levels(leaf_first, 2, NULL, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_asm_check_levels(list_opt_int, 0, NULL, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    int16_t md = -1, mr = -1;
    ck_assert_int_eq(pq_asm_check_levels(list_opt_int, 2, &md, &mr, &err), PQ_OK);
    ck_assert_int_eq(md, 3);
    ck_assert_int_eq(mr, 1);

    /* buffers too small: 4 list slots needed, room for 3 */
    uint8_t v0[1], v1[1];
    int32_t o0[4];
    pq_asm_out small[2] = {{.validity = v0, .offsets = o0, .cap = 3}, {.validity = v1, .cap = 5}};
    ck_assert_int_eq(pq_assemble(list_opt_int, 2, list_def, list_rep, 5, SIZE_MAX, small, NULL, &err),
                     PQ_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(small[0].count, 3);
    ck_assert_int_eq(o0[3], 2); /* offsets closed in bounds after the error */
}
END_TEST

START_TEST(bad_paths)
{
    pq_asm_level lv[8];
    size_t n;
    pq_error err = {0};
    /* a LIST whose child is optional */
    const pq_asm_node p1[] = {{OPT, PQ_ASM_LIST}, {OPT, PQ_ASM_LEAF}};
    ck_assert_int_eq(pq_asm_levels_from_path(p1, 2, lv, 8, &n, &err), PQ_ERR_SCHEMA);
    /* a wrapper outside a list */
    const pq_asm_node p2[] = {{REP, PQ_ASM_WRAPPER}, {OPT, PQ_ASM_LEAF}};
    ck_assert_int_eq(pq_asm_levels_from_path(p2, 2, lv, 8, &n, &err), PQ_ERR_SCHEMA);
    /* a leaf that is not last, a path without a leaf */
    const pq_asm_node p3[] = {{OPT, PQ_ASM_LEAF}, {OPT, PQ_ASM_LEAF}};
    ck_assert_int_eq(pq_asm_levels_from_path(p3, 2, lv, 8, &n, &err), PQ_ERR_SCHEMA);
    const pq_asm_node p4[] = {{OPT, PQ_ASM_STRUCT}};
    ck_assert_int_eq(pq_asm_levels_from_path(p4, 1, lv, 8, &n, &err), PQ_ERR_SCHEMA);
    /* a list ending the path: its leaf must be the repeated child */
    const pq_asm_node p5[] = {{OPT, PQ_ASM_STRUCT}, {OPT, PQ_ASM_LIST}};
    ck_assert_int_eq(pq_asm_levels_from_path(p5, 2, lv, 8, &n, &err), PQ_ERR_SCHEMA);
    /* unknown repetition or kind; no room for the levels */
    const pq_asm_node p6[] = {{3, PQ_ASM_LEAF}};
    ck_assert_int_eq(pq_asm_levels_from_path(p6, 1, lv, 8, &n, &err), PQ_ERR_INVALID_ARGUMENT);
    const pq_asm_node p7[] = {{OPT, 9}};
    ck_assert_int_eq(pq_asm_levels_from_path(p7, 1, lv, 8, &n, &err), PQ_ERR_INVALID_ARGUMENT);
    const pq_asm_node p8[] = {{REP, PQ_ASM_LEAF}};
    ck_assert_int_eq(pq_asm_levels_from_path(p8, 1, lv, 1, &n, &err), PQ_ERR_INVALID_ARGUMENT);
}
END_TEST

static Suite *assemble_suite(void)
{
    Suite *s = suite_create("assemble");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, flat_required);
    tcase_add_test(tc, flat_optional);
    tcase_add_test(tc, struct_in_struct);
    tcase_add_test(tc, struct_optional_and_required_child);
    tcase_add_test(tc, dremel_code);
    tcase_add_test(tc, dremel_country);
    tcase_add_test(tc, dremel_url);
    tcase_add_test(tc, dremel_links);
    tcase_add_test(tc, list_three_level);
    tcase_add_test(tc, list_batches);
    tcase_add_test(tc, list_of_list);
    tcase_add_test(tc, map_string_optional_int);
    tcase_add_test(tc, list_two_level);
    tcase_add_test(tc, list_bare_repeated);
    tcase_add_test(tc, single_pass_upper_bound);
    tcase_add_test(tc, corrupt_levels);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, bad_paths);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(assemble_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
