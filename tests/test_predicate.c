/*
 * test_predicate.c — predicates: parsing (precedence, operators, errors with
 * positions), formatting round trips, binding against a schema written here
 * by hand as Thrift compact bytes (every logical type the binder types), the
 * exact rewrites of literals a column cannot hold, and row evaluation on
 * hand-built Arrow arrays (nulls, offsets, NaN). Every expected value is
 * computed by hand in the comments.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predicate/predicate.h"
#include "pq_predicate.h"
#include "pqstep.h"
#include "predicate/predicate_eval.h"

/* ---------------------------------------------------------------------------
 * A tiny Thrift compact writer, enough for a FileMetaData with a schema
 * ------------------------------------------------------------------------- */

typedef struct tw {
    uint8_t b[4096];
    size_t n;
    int16_t last[16];
    int depth;
} tw;

enum { T_TRUE = 1, T_FALSE = 2, T_BYTE = 3, T_I32 = 5, T_I64 = 6, T_BIN = 8, T_LIST = 9, T_STRUCT = 12 };

static void tw_byte(tw *w, uint8_t x)
{
    ck_assert_uint_lt(w->n, sizeof w->b);
    w->b[w->n++] = x;
}

static void tw_varint(tw *w, uint64_t v)
{
    while (v >= 0x80) tw_byte(w, (uint8_t)(v | 0x80)), v >>= 7;
    tw_byte(w, (uint8_t)v);
}

static void tw_field(tw *w, int16_t id, int type)
{
    int16_t d = (int16_t)(id - w->last[w->depth]);
    ck_assert(d > 0 && d <= 15);
    tw_byte(w, (uint8_t)(d << 4 | type));
    w->last[w->depth] = id;
}

static void tw_i32(tw *w, int16_t id, int32_t v)
{
    tw_field(w, id, T_I32);
    tw_varint(w, (uint64_t)(uint32_t)((uint32_t)v << 1 ^ (uint32_t)(v >> 31)));
}

static void tw_bin(tw *w, int16_t id, const char *s)
{
    tw_field(w, id, T_BIN);
    tw_varint(w, strlen(s));
    for (const char *p = s; *p; p++) tw_byte(w, (uint8_t)*p);
}

static void tw_begin(tw *w, int16_t id) /* a struct field */
{
    tw_field(w, id, T_STRUCT);
    w->last[++w->depth] = 0;
}

static void tw_begin_elem(tw *w) /* a struct inside a list */
{
    w->last[++w->depth] = 0;
}

static void tw_end(tw *w)
{
    tw_byte(w, 0);
    w->depth--;
}

static void tw_list(tw *w, int16_t id, int n, int type)
{
    tw_field(w, id, T_LIST);
    if (n < 15) tw_byte(w, (uint8_t)(n << 4 | type));
    else tw_byte(w, (uint8_t)(0xf0 | type)), tw_varint(w, (uint64_t)n);
}

/* Logical types (LogicalType union ids). */
enum { L_NONE = 0, L_STRING = 1, L_DECIMAL = 5, L_DATE = 6, L_TIME = 7, L_TIMESTAMP = 8, L_INT = 10 };

typedef struct col_def {
    const char *name;
    int type;        /* physical; -1 for a group */
    int rep;         /* 0 required, 1 optional, 2 repeated */
    int type_length;
    int logical;
    int a, b;        /* INT: bits, signed; DECIMAL: scale, precision; TIME/TS: unit 1..3, utc */
    int children;
} col_def;

static void tw_element(tw *w, const col_def *c)
{
    tw_begin_elem(w);
    if (c->type >= 0) tw_i32(w, 1, c->type);
    if (c->type_length) tw_i32(w, 2, c->type_length);
    tw_i32(w, 3, c->rep);
    tw_bin(w, 4, c->name);
    if (c->children) tw_i32(w, 5, c->children);
    if (c->logical) {
        tw_begin(w, 10);
        tw_begin(w, (int16_t)c->logical);
        if (c->logical == L_INT) {
            tw_field(w, 1, T_BYTE);
            tw_byte(w, (uint8_t)c->a);
            tw_field(w, 2, c->b ? T_TRUE : T_FALSE);
        } else if (c->logical == L_DECIMAL) {
            tw_i32(w, 1, c->a);
            tw_i32(w, 2, c->b);
        } else if (c->logical == L_TIME || c->logical == L_TIMESTAMP) {
            tw_field(w, 1, c->b ? T_TRUE : T_FALSE);
            tw_begin(w, 2);
            tw_begin(w, (int16_t)c->a);
            tw_end(w);
            tw_end(w);
        }
        tw_end(w);
        tw_end(w);
    }
    tw_end(w);
}

static pq_metadata *make_md(const col_def *cols, int n)
{
    tw w;
    memset(&w, 0, sizeof w);
    int top = 0;
    for (int k = 0; k < n; k++) top += cols[k].name[0] != ' ';
    tw_i32(&w, 1, 1);
    tw_list(&w, 2, n + 1, T_STRUCT);
    col_def root = {"schema", -1, 0, 0, 0, 0, 0, top};
    tw_element(&w, &root);
    for (int k = 0; k < n; k++) {
        col_def c = cols[k];
        if (c.name[0] == ' ') c.name++; /* a child of the group before it */
        tw_element(&w, &c);
    }
    tw_field(&w, 3, T_I64);
    tw_varint(&w, 0);
    tw_list(&w, 4, 0, T_STRUCT);
    tw_byte(&w, 0);
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse(w.b, w.n, NULL, &err);
    ck_assert_msg(md != NULL, "footer: %s", err.message);
    return md;
}

/* Leaf order: 0 i8, 1 u8, 2 u64, 3 i32, 4 i64, 5 d, 6 ts_ms, 7 ts_ns, 8 t_ms,
 * 9 t_us, 10 dec32, 11 dec64, 12 decf, 13 decb, 14 s, 15 bin, 16 fl3, 17 f,
 * 18 g, 19 b, 20 ts96, 21 rep, 22 st.x */
static const col_def types_cols[] = {
    {"i8", 1, 1, 0, L_INT, 8, 1, 0},
    {"u8", 1, 1, 0, L_INT, 8, 0, 0},
    {"u64", 2, 1, 0, L_INT, 64, 0, 0},
    {"i32", 1, 1, 0, 0, 0, 0, 0},
    {"i64", 2, 1, 0, 0, 0, 0, 0},
    {"d", 1, 1, 0, L_DATE, 0, 0, 0},
    {"ts_ms", 2, 1, 0, L_TIMESTAMP, 1, 1, 0},
    {"ts_ns", 2, 1, 0, L_TIMESTAMP, 3, 0, 0},
    {"t_ms", 1, 1, 0, L_TIME, 1, 0, 0},
    {"t_us", 2, 1, 0, L_TIME, 2, 0, 0},
    {"dec32", 1, 1, 0, L_DECIMAL, 2, 9, 0},
    {"dec64", 2, 1, 0, L_DECIMAL, 4, 18, 0},
    {"decf", 7, 1, 5, L_DECIMAL, 2, 10, 0},
    {"decb", 6, 1, 0, L_DECIMAL, 3, 20, 0},
    {"s", 6, 1, 0, L_STRING, 0, 0, 0},
    {"bin", 6, 1, 0, 0, 0, 0, 0},
    {"fl3", 7, 1, 3, 0, 0, 0, 0},
    {"f", 4, 1, 0, 0, 0, 0, 0},
    {"g", 5, 1, 0, 0, 0, 0, 0},
    {"b", 0, 1, 0, 0, 0, 0, 0},
    {"ts96", 3, 1, 0, 0, 0, 0, 0},
    {"rep", 1, 2, 0, 0, 0, 0, 0},
    {"st", -1, 1, 0, 0, 0, 0, 1},
    {" x", 1, 1, 0, 0, 0, 0, 0},
};
#define NTYPES ((int)(sizeof types_cols / sizeof types_cols[0]))

static pq_metadata *types_md(void)
{
    return make_md(types_cols, NTYPES);
}

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

static char g_buf[1024];

static const char *fmt(const pq_expr *e)
{
    size_t n = pq_expr_format(e, g_buf, sizeof g_buf);
    ck_assert_uint_lt(n, sizeof g_buf);
    return g_buf;
}

static pq_expr *parse_ok(const char *text)
{
    pq_error err = {0};
    pq_expr *e = pq_expr_parse(text, &err);
    ck_assert_msg(e != NULL, "parse '%s': %s", text, err.message);
    return e;
}

static void check_parse(const char *text, const char *want)
{
    pq_expr *e = parse_ok(text);
    ck_assert_str_eq(fmt(e), want);
    /* round trip: the formatted text parses to the same tree */
    pq_expr *again = parse_ok(want);
    ck_assert_str_eq(fmt(again), want);
    pq_expr_free(again);
    pq_expr_free(e);
}

static void check_parse_error(const char *text, const char *want)
{
    pq_error err = {0};
    pq_expr *e = pq_expr_parse(text, &err);
    ck_assert_msg(e == NULL, "'%s' parsed", text);
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(err.message, want);
}

/* Parse, bind, and compare the bound form; then the bound text binds to the same. */
static pq_expr *bind_ok(pq_metadata *md, const char *text, const char *want)
{
    pq_error err = {0};
    pq_expr *e = parse_ok(text);
    ck_assert_msg(pq_expr_bind(e, md, &err) == PQ_OK, "bind '%s': %s", text, err.message);
    ck_assert_str_eq(fmt(e), want);
    pq_expr *again = parse_ok(want);
    ck_assert_msg(pq_expr_bind(again, md, &err) == PQ_OK, "rebind '%s': %s", want, err.message);
    ck_assert_str_eq(fmt(again), want);
    pq_expr_free(again);
    return e;
}

static void check_bind(pq_metadata *md, const char *text, const char *want)
{
    pq_expr_free(bind_ok(md, text, want));
}

static void check_bind_error(pq_metadata *md, const char *text, pq_status code, const char *want)
{
    pq_error err = {0};
    pq_expr *e = parse_ok(text);
    ck_assert_int_eq(pq_expr_bind(e, md, &err), code);
    ck_assert_str_eq(err.message, want);
    ck_assert(!e->bound);
    pq_expr_free(e);
}

/* ---------------------------------------------------------------------------
 * Parsing
 * ------------------------------------------------------------------------- */

START_TEST(test_parse_precedence)
{
    check_parse("a = 1 or b = 2 and not c = 3", "a = 1 or b = 2 and not c = 3");
    check_parse("not a = 1 and b = 2", "not a = 1 and b = 2");
    check_parse("(a = 1 or b = 2) and c = 3", "(a = 1 or b = 2) and c = 3");
    check_parse("not (a = 1 and (b = 2 or c = 3))", "not (a = 1 and (b = 2 or c = 3))");
    check_parse("((a = 1)) and ((not (b = 2)))", "a = 1 and not b = 2");
    check_parse("NOT NOT a = 1", "not not a = 1");
    /* chains are balanced: [a, b, c] -> (a and b) and c; four -> (a and b) and (c and d) */
    check_parse("a = 1 AND b = 2 And c = 3", "a = 1 and b = 2 and c = 3");
    check_parse("a=1 or b=2 or c=3 or d=4", "a = 1 or b = 2 or c = 3 or d = 4");
    check_parse("true or false", "true or false");
    pq_expr *e = parse_ok("a = 1 AND b = 2 And c = 3");
    ck_assert_int_eq(e->kind, PQ_NODE_AND);
    ck_assert_int_eq(e->kids[0]->kind, PQ_NODE_AND);
    ck_assert_int_eq(e->kids[1]->kind, PQ_NODE_CMP);
    pq_expr_free(e);
    e = parse_ok("a=1 or b=2 or c=3 or d=4");
    ck_assert_int_eq(e->kids[0]->kind, PQ_NODE_OR);
    ck_assert_int_eq(e->kids[1]->kind, PQ_NODE_OR);
    pq_expr_free(e);
}
END_TEST

START_TEST(test_parse_operators)
{
    check_parse("a = 1", "a = 1");
    check_parse("a != 1", "a != 1");
    check_parse("a <> 1", "a != 1");
    check_parse("a<1", "a < 1");
    check_parse("a <= -1", "a <= -1");
    check_parse("a > 2.50", "a > 2.50");
    check_parse("a >= 1e9", "a >= 1e9");
    check_parse("a in (1, 'x', 2.5, TRUE)", "a in (1, 'x', 2.5, true)");
    check_parse("a NOT IN (1,2)", "not a in (1, 2)");
    check_parse("a between 1 and 5", "a >= 1 and a <= 5");
    check_parse("a NOT BETWEEN 'x' AND 'y' or b = 2", "not (a >= 'x' and a <= 'y') or b = 2");
    check_parse("a between -1 and 2.5 and b = 1", "a >= -1 and a <= 2.5 and b = 1");
    check_parse("between = 1", "between = 1"); /* not a keyword where a column goes */
    /* a column alone: col = true */
    check_parse("a", "a = true");
    check_parse("paid and not shipped or (x)", "paid = true and not shipped = true or x = true");
    check_parse("\"and\"", "\"and\" = true");
    check_parse("a is null", "a is null");
    check_parse("a Is Not Null", "a is not null");
    check_parse("l.x.element = 'it''s'", "l.x.element = 'it''s'");
    check_parse("\"my col\" = ''", "\"my col\" = ''");
    check_parse("\"and\" = 1", "\"and\" = 1");
    check_parse("\"a\"\"b\" = 1", "\"a\"\"b\" = 1");
    check_parse("x = 99999999999999999999", "x = 99999999999999999999");
    check_parse("x = -9223372036854775808", "x = -9223372036854775808");
    check_parse("v.l[0].x[12] >= 3", "v.l[0].x[12] >= 3"); /* a VARIANT path's array steps */
    check_parse("v.l[0]=1", "v.l[0] = 1");

    /* literal kinds and positions */
    pq_expr *e = parse_ok("  x = 'a' ");
    ck_assert_int_eq(e->kind, PQ_NODE_CMP);
    ck_assert_uint_eq(e->pos, 2);
    ck_assert_uint_eq(e->lit_pos[0], 6);
    ck_assert_int_eq(e->lits[0].kind, PQ_LIT_TEXT);
    pq_expr_free(e);
    e = parse_ok("x in (7, 1.5)");
    ck_assert_int_eq(e->lits[0].kind, PQ_LIT_INT);
    ck_assert_int_eq(e->lits[0].i, 7);
    ck_assert_int_eq(e->lits[1].kind, PQ_LIT_DOUBLE);
    ck_assert(e->lits[1].d == 1.5);
    ck_assert_uint_eq(e->lit_pos[1], 9);
    pq_expr_free(e);
}
END_TEST

START_TEST(test_parse_errors)
{
    check_parse_error("x in (1, 2 3)", "at 11: expected ')' after the IN list");
    check_parse_error("x in (1, 2", "at 10: expected ')' after the IN list");
    check_parse_error("x in 1", "at 5: expected '(' after IN");
    check_parse_error("x in ()", "at 6: expected a literal (a number, a 'string', true or false)");
    check_parse_error("a = ", "at 4: expected a literal (a number, a 'string', true or false)");
    check_parse_error("a == 1", "at 3: expected a literal (a number, a 'string', true or false)");
    check_parse_error("a = @", "at 4: expected a literal (a number, a 'string', true or false)");
    check_parse_error("(a = 1", "at 6: expected ')'");
    check_parse_error("a = 1)", "at 5: unbalanced ')'");
    check_parse_error("a = 1 b", "at 6: expected AND, OR or the end of the text");
    check_parse_error("a = 'abc", "at 4: unterminated string");
    check_parse_error("\"a = 1", "at 0: unterminated quoted name");
    check_parse_error("a is nul", "at 5: expected NULL or NOT NULL after IS");
    check_parse_error("a is not 1", "at 9: expected NULL after IS NOT");
    check_parse_error("a not like 1", "at 6: expected IN or BETWEEN after NOT");
    check_parse_error("a between 1 or 2", "at 12: expected AND after BETWEEN's lower bound");
    check_parse_error("a between 1 and", "at 15: expected a literal (a number, a 'string', true or false)");
    check_parse_error("a not between and 2", "at 14: expected a literal (a number, a 'string', true or false)");
    check_parse_error("a b", "at 2: expected an operator (= != <> < <= > >= IN NOT IN BETWEEN NOT BETWEEN IS) after the column");
    check_parse_error("", "at 0: expected a column, NOT or '(' but the text ended");
    check_parse_error("a = 1 and", "at 9: expected a column, NOT or '(' but the text ended");
    check_parse_error("and = 1", "at 0: expected a column, NOT or '('");
    check_parse_error("\"\" = 1", "at 0: an empty or invalid column name");
    check_parse_error("v.l[x] = 1", "at 3: expected an operator (= != <> < <= > >= IN NOT IN BETWEEN NOT BETWEEN IS) after the column");
    check_parse_error("v.l[] = 1", "at 3: expected an operator (= != <> < <= > >= IN NOT IN BETWEEN NOT BETWEEN IS) after the column");
    check_parse_error("v.l[1 = 1", "at 3: expected an operator (= != <> < <= > >= IN NOT IN BETWEEN NOT BETWEEN IS) after the column");

    /* 64 levels of nesting parse, 65 do not */
    char deep[256];
    for (int levels = 64; levels <= 65; levels++) {
        size_t n = 0;
        for (int k = 0; k < levels; k++) deep[n++] = '(';
        n += (size_t)snprintf(deep + n, sizeof deep - n, "a = 1");
        for (int k = 0; k < levels; k++) deep[n++] = ')';
        deep[n] = '\0';
        pq_error err = {0};
        pq_expr *e = pq_expr_parse(deep, &err);
        if (levels == 64) {
            ck_assert_msg(e != NULL, "%s", err.message);
            pq_expr_free(e);
        } else {
            ck_assert(e == NULL);
            ck_assert_str_eq(err.message, "at 64: nesting deeper than 64 levels");
        }
    }
    pq_error err = {0};
    ck_assert(pq_expr_parse("not not not not not not not not not not not not not not not not "
                            "not not not not not not not not not not not not not not not not "
                            "not not not not not not not not not not not not not not not not "
                            "not not not not not not not not not not not not not not not not "
                            "not a = 1", &err) == NULL);
    ck_assert_str_eq(err.message, "at 256: nesting deeper than 64 levels");
}
END_TEST

/* Text at the parser's depth limit formats to text that parses again and
 * formats the same (formatting once printed every NOT and AND/OR in its own
 * parentheses, twice as deep as the source; fuzz_predicate found it). */
static void check_deep_round_trip(const char *text)
{
    pq_error err = {0};
    pq_expr *e = pq_expr_parse(text, &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    size_t n = pq_expr_format(e, NULL, 0);
    char *a = malloc(n + 1), *b = malloc(n + 1);
    ck_assert(a && b);
    pq_expr_format(e, a, n + 1);
    pq_expr *again = pq_expr_parse(a, &err);
    ck_assert_msg(again != NULL, "formatted text does not parse: %s", err.message);
    ck_assert_uint_eq(pq_expr_format(again, b, n + 1), n);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    pq_expr_free(again);
    pq_expr_free(e);
}

START_TEST(test_format_depth)
{
    static char text[16384];
    size_t n = 0;
    /* 64 bare NOTs: 64 levels, the most the parser takes */
    for (int k = 0; k < 64; k++) n += (size_t)snprintf(text + n, sizeof text - n, "not ");
    snprintf(text + n, sizeof text - n, "a = 1");
    check_deep_round_trip(text);
    /* 64 nested groups of four AND-ed terms, the innermost OR-ed */
    n = 0;
    for (int k = 0; k < 64; k++) n += (size_t)snprintf(text + n, sizeof text - n, "a = %d and b = 2 and c = 3 and (", k);
    n += (size_t)snprintf(text + n, sizeof text - n, "x = 1 or y = 2");
    for (int k = 0; k < 64; k++) text[n++] = ')';
    text[n] = '\0';
    check_deep_round_trip(text);
    /* 21 times "not (p or q and (...))": a NOT and two groups each, 63 levels */
    n = 0;
    for (int k = 0; k < 21; k++) n += (size_t)snprintf(text + n, sizeof text - n, "not (p = %d or q = 1 and (", k);
    n += (size_t)snprintf(text + n, sizeof text - n, "z is null");
    for (int k = 0; k < 21; k++) n += (size_t)snprintf(text + n, sizeof text - n, "))");
    check_deep_round_trip(text);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Builders, clone, columns
 * ------------------------------------------------------------------------- */

START_TEST(test_builders)
{
    pq_error err = {0};
    pq_literal one = {PQ_LIT_INT, false, 1, 0, NULL, 0};
    pq_literal dec = {PQ_LIT_DOUBLE, false, 0, 1.05, "1.05", 4};
    pq_literal nan_ = {PQ_LIT_DOUBLE, false, 0, NAN, NULL, 0};
    pq_literal bad = {PQ_LIT_DOUBLE, false, 0, 1, "1x", 2};
    pq_literal txt = {PQ_LIT_TEXT, false, 0, 0, "R", 1};

    ck_assert(pq_expr_in("a", &one, 0, &err) == NULL);
    ck_assert_str_eq(err.message, "pq_expr_in: an empty IN list");
    ck_assert(pq_expr_compare("a", PQ_CMP_EQ, &nan_, &err) == NULL);
    ck_assert_str_eq(err.message, "a NaN literal");
    ck_assert(pq_expr_compare("a", PQ_CMP_EQ, &bad, &err) == NULL);
    ck_assert_str_eq(err.message, "'1x' is not a number");
    ck_assert(pq_expr_compare(NULL, PQ_CMP_EQ, &one, &err) == NULL);
    /* and/or take ownership also when they fail (ASan checks the leak) */
    ck_assert(pq_expr_and(pq_expr_is_null("a", true, &err), NULL, &err) == NULL);

    pq_expr *e = pq_expr_and(pq_expr_compare("dec32", PQ_CMP_LT, &dec, &err),
                             pq_expr_or(pq_expr_in("s", &txt, 1, &err),
                                        pq_expr_not(pq_expr_is_null("i8", false, &err), &err), &err),
                             &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    ck_assert_str_eq(fmt(e), "dec32 < 1.05 and (s in ('R') or not i8 is not null)");
    ck_assert_uint_eq(pq_expr_columns(e, NULL, 0), 0); /* unbound */

    pq_metadata *md = types_md();
    ck_assert_int_eq(pq_expr_bind(e, md, &err), PQ_OK);
    uint32_t cols[4] = {99, 99, 99, 99};
    ck_assert_uint_eq(pq_expr_columns(e, NULL, 0), 3);
    ck_assert_uint_eq(pq_expr_columns(e, cols, 2), 3);
    ck_assert_uint_eq(cols[0], 0);  /* i8 */
    ck_assert_uint_eq(cols[1], 10); /* dec32 */
    ck_assert_uint_eq(cols[2], 99);
    ck_assert_uint_eq(pq_expr_columns(e, cols, 4), 3);
    ck_assert_uint_eq(cols[2], 14); /* s */

    pq_expr *c = pq_expr_clone(e, &err);
    ck_assert(c != NULL);
    char a[256];
    pq_expr_format(e, a, sizeof a);
    ck_assert_str_eq(fmt(c), a);
    ck_assert(c->bound);
    ck_assert_int_eq(c->kids[0]->values[0].i, 105);
    pq_expr_free(e);
    ck_assert_str_eq(fmt(c), "dec32 < 1.05 and (s in ('R') or not i8 is not null)");
    pq_expr_free(c);

    /* snprintf contract */
    e = parse_ok("abc = 12345");
    char small[5];
    ck_assert_uint_eq(pq_expr_format(e, small, sizeof small), 11);
    ck_assert_str_eq(small, "abc ");
    ck_assert_uint_eq(pq_expr_format(e, NULL, 0), 11);
    pq_expr_free(e);
    pq_metadata_release(md);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Binding: values and rewrites
 * ------------------------------------------------------------------------- */

START_TEST(test_bind_integers)
{
    pq_metadata *md = types_md();
    check_bind(md, "i8 = 5", "i8 = 5");
    check_bind(md, "i8 = 1.5", "false");
    check_bind(md, "i8 != 1.5", "i8 is not null");
    check_bind(md, "i8 < 1.5", "i8 <= 1");
    check_bind(md, "i8 <= 1.5", "i8 <= 1");
    check_bind(md, "i8 > 1.5", "i8 > 1");
    check_bind(md, "i8 >= 1.5", "i8 > 1");
    check_bind(md, "i8 > -1.5", "i8 > -2"); /* floor(-1.5) = -2 */
    check_bind(md, "i8 < -1.5", "i8 <= -2");
    check_bind(md, "i8 = 2.000", "i8 = 2");
    check_bind(md, "i8 = 1e2", "i8 = 100");
    check_bind(md, "i8 = '7'", "i8 = 7");
    /* range of int8: -128..127 */
    check_bind(md, "i8 < 300", "i8 is not null");
    check_bind(md, "i8 <= 128", "i8 is not null");
    check_bind(md, "i8 > 300", "false");
    check_bind(md, "i8 = 128", "false");
    check_bind(md, "i8 != 128", "i8 is not null");
    check_bind(md, "i8 < -129", "false");
    check_bind(md, "i8 >= -129", "i8 is not null");
    check_bind(md, "i8 > 127.5", "false");   /* 127.5 is above 127 */
    check_bind(md, "i8 < 127.5", "i8 is not null");
    check_bind(md, "i8 >= -128.5", "i8 is not null"); /* floor -129 is below */
    check_bind(md, "i8 <= 126.5", "i8 <= 126");
    check_bind(md, "i8 >= -128", "i8 >= -128");
    check_bind(md, "i8 in (3, 1, 2, 1, 1.5, 300, -7)", "i8 in (-7, 1, 2, 3)");
    check_bind(md, "i8 in (1.5, 1000)", "false");
    /* unsigned: u8 0..255, u64 0..2^64-1 in i's bits */
    check_bind(md, "u8 = -1", "false");
    check_bind(md, "u8 > -1", "u8 is not null");
    check_bind(md, "u8 >= -0.5", "u8 is not null");
    check_bind(md, "u8 < -0", "u8 < 0");
    check_bind(md, "u8 < 256", "u8 is not null");
    check_bind(md, "u8 > 254.5", "u8 > 254");
    check_bind(md, "u8 = 255", "u8 = 255");
    pq_expr *e = bind_ok(md, "u64 = 18446744073709551615", "u64 = 18446744073709551615");
    ck_assert_int_eq(e->values[0].i, -1);
    ck_assert_int_eq(e->order, PQ_ORDER_UNSIGNED);
    pq_expr_free(e);
    check_bind(md, "u64 >= 18446744073709551615.5", "false");
    check_bind(md, "u64 < 18446744073709551616", "u64 is not null");
    check_bind(md, "u64 in (9223372036854775808, 1, 18446744073709551615)",
               "u64 in (1, 9223372036854775808, 18446744073709551615)");
    /* int32 / int64 */
    check_bind(md, "i32 < 2147483648", "i32 is not null");
    check_bind(md, "i32 = -2147483648", "i32 = -2147483648");
    check_bind(md, "i64 = -9223372036854775808", "i64 = -9223372036854775808");
    check_bind(md, "i64 > 9223372036854775807", "i64 > 9223372036854775807");
    check_bind(md, "i64 > 9223372036854775807.5", "false");
    check_bind(md, "i64 < -9223372036854775809", "false");
    check_bind(md, "i64 = 1e400", "false");
    check_bind(md, "i64 < 1e-400", "i64 <= 0");
    check_bind(md, "st.x = 1", "st.x = 1");
    check_bind(md, "\"st.x\" in (1)", "st.x in (1)");
    e = bind_ok(md, "not st.x = 1", "not st.x = 1");
    ck_assert_int_eq(e->kids[0]->leaf, 22);
    pq_expr_free(e);
    pq_metadata_release(md);
}
END_TEST

START_TEST(test_bind_dates_times)
{
    pq_metadata *md = types_md();
    /* 1995-01-01: 25 years * 365 + 6 leap days (72..92) = 9131 */
    pq_expr *e = bind_ok(md, "d >= '1995-01-01'", "d >= '1995-01-01'");
    ck_assert_int_eq(e->values[0].i, 9131);
    pq_expr_free(e);
    e = bind_ok(md, "d = '1969-12-31'", "d = '1969-12-31'");
    ck_assert_int_eq(e->values[0].i, -1);
    pq_expr_free(e);
    e = bind_ok(md, "d = '2000-02-29'", "d = '2000-02-29'");
    ck_assert_int_eq(e->values[0].i, 11016); /* 30*365 + 7 leap days (72..96) - 1 + 31 + 28 */
    pq_expr_free(e);

    /* timestamps: ts_ms is UTC millis, ts_ns local nanos */
    e = bind_ok(md, "ts_ms = '1970-01-01 00:00:01.5'", "ts_ms = '1970-01-01T00:00:01.500Z'");
    ck_assert_int_eq(e->values[0].i, 1500);
    pq_expr_free(e);
    e = bind_ok(md, "ts_ms = '1970-01-02T00:00:00Z'", "ts_ms = '1970-01-02T00:00:00.000Z'");
    ck_assert_int_eq(e->values[0].i, 86400000);
    pq_expr_free(e);
    e = bind_ok(md, "ts_ms < '1970-01-02'", "ts_ms < '1970-01-02T00:00:00.000Z'");
    ck_assert_int_eq(e->values[0].i, 86400000);
    pq_expr_free(e);
    check_bind(md, "ts_ms = '1970-01-01T00:00:00.0005'", "false");
    check_bind(md, "ts_ms < '1970-01-01T00:00:00.0005'", "ts_ms <= '1970-01-01T00:00:00.000Z'");
    check_bind(md, "ts_ms >= '1969-12-31 23:59:59.9995'", "ts_ms > '1969-12-31T23:59:59.999Z'");
    e = bind_ok(md, "ts_ns = '1969-12-31 23:59:59.999999999'", "ts_ns = '1969-12-31T23:59:59.999999999'");
    ck_assert_int_eq(e->values[0].i, -1);
    pq_expr_free(e);
    /* int64 nanoseconds reach 1677-09-21 .. 2262-04-11 */
    check_bind(md, "ts_ns > '2300-01-01'", "false");
    check_bind(md, "ts_ns < '2300-01-01'", "ts_ns is not null");
    check_bind(md, "ts_ns < '1600-01-01'", "false");
    check_bind(md, "ts_ns >= '1600-01-01 00:00:00'", "ts_ns is not null");
    check_bind(md, "ts_ns in ('1600-01-01', '1970-01-01 00:00:00.000000001')",
               "ts_ns in ('1970-01-01T00:00:00.000000001')");

    /* times */
    e = bind_ok(md, "t_ms = '12:00:00.001'", "t_ms = '12:00:00.001'");
    ck_assert_int_eq(e->values[0].i, 43200001);
    pq_expr_free(e);
    check_bind(md, "t_ms > '12:00:00.0015'", "t_ms > '12:00:00.001'");
    e = bind_ok(md, "t_us <= '23:59:59.999999'", "t_us <= '23:59:59.999999'");
    ck_assert_int_eq(e->values[0].i, 86399999999);
    pq_expr_free(e);

    check_bind_error(md, "d = '1995-13-01'", PQ_ERR_INVALID_ARGUMENT, "at 4: '1995-13-01' is not a date (column d)");
    check_bind_error(md, "d = '1900-02-29'", PQ_ERR_INVALID_ARGUMENT, "at 4: '1900-02-29' is not a date (column d)");
    check_bind_error(md, "d = 9131", PQ_ERR_INVALID_ARGUMENT, "at 4: 9131 is not a date (column d)");
    check_bind_error(md, "ts_ms = '1970-01-01 25:00:00'", PQ_ERR_INVALID_ARGUMENT,
                     "at 8: '1970-01-01 25:00:00' is not a timestamp 'YYYY-MM-DD[ HH:MM:SS[.fraction]][Z|+HH:MM|-HH:MM]' "
                     "(column ts_ms)");
    check_bind_error(md, "ts_ms = '1970-01-01 00:00:00.1234567891'", PQ_ERR_INVALID_ARGUMENT,
                     "at 8: '1970-01-01 00:00:00.1234567891' is not a timestamp 'YYYY-MM-DD[ "
                     "HH:MM:SS[.fraction]][Z|+HH:MM|-HH:MM]' (column ts_ms)");
    /* offsets from UTC (ISO 8601, Python's isoformat()): the instant, for a
     * UTC column; a local column takes none but +00:00 */
    e = bind_ok(md, "ts_ms = '1970-01-01T02:00:01+02:00'", "ts_ms = '1970-01-01T00:00:01.000Z'");
    ck_assert_int_eq(e->values[0].i, 1000);
    pq_expr_free(e);
    e = bind_ok(md, "ts_ms = '1969-12-31 19:30:00.25-0430'", "ts_ms = '1970-01-01T00:00:00.250Z'");
    ck_assert_int_eq(e->values[0].i, 250);
    pq_expr_free(e);
    e = bind_ok(md, "ts_ms >= '1970-01-01 01:00:00+01'", "ts_ms >= '1970-01-01T00:00:00.000Z'");
    ck_assert_int_eq(e->values[0].i, 0);
    pq_expr_free(e);
    e = bind_ok(md, "ts_ns = '1970-01-01 00:00:00.000000002+00:00'", "ts_ns = '1970-01-01T00:00:00.000000002'");
    ck_assert_int_eq(e->values[0].i, 2);
    pq_expr_free(e);
    check_bind_error(md, "ts_ns = '1970-01-01 00:00:00+01:00'", PQ_ERR_INVALID_ARGUMENT,
                     "at 8: '1970-01-01 00:00:00+01:00' names an offset from UTC, but column 'ts_ns' holds "
                     "timestamps of no time zone (local times): give the time without one");
    check_bind_error(md, "ts_ms = '1970-01-01 00:00:00+19:00'", PQ_ERR_INVALID_ARGUMENT,
                     "at 8: '1970-01-01 00:00:00+19:00' is not a timestamp 'YYYY-MM-DD[ HH:MM:SS[.fraction]][Z|+HH:MM|"
                     "-HH:MM]' (column ts_ms)");
    check_bind_error(md, "ts_ms = '1970-01-01 00:00:00+01:0'", PQ_ERR_INVALID_ARGUMENT,
                     "at 8: '1970-01-01 00:00:00+01:0' is not a timestamp 'YYYY-MM-DD[ HH:MM:SS[.fraction]][Z|+HH:MM|"
                     "-HH:MM]' (column ts_ms)");
    check_bind_error(md, "t_ms = '12:00'", PQ_ERR_INVALID_ARGUMENT,
                     "at 7: '12:00' is not a time 'HH:MM:SS[.fraction]' (column t_ms)");
    pq_metadata_release(md);
}
END_TEST

static void check_bytes(const pq_value *v, const uint8_t *want, size_t n)
{
    ck_assert_uint_eq(v->len, n);
    ck_assert(memcmp(v->bytes, want, n) == 0);
}

START_TEST(test_bind_decimals)
{
    pq_metadata *md = types_md();
    /* dec32: INT32 DECIMAL(9,2) */
    pq_expr *e = bind_ok(md, "dec32 = 1.05", "dec32 = 1.05");
    ck_assert_int_eq(e->values[0].i, 105);
    pq_expr_free(e);
    check_bind(md, "dec32 = '12.5'", "dec32 = 12.50");
    check_bind(md, "dec32 = 3", "dec32 = 3.00");
    check_bind(md, "dec32 = 1e-2", "dec32 = 0.01");
    check_bind(md, "dec32 = 1.055", "false");
    check_bind(md, "dec32 < 1.055", "dec32 <= 1.05");
    check_bind(md, "dec32 > -1.055", "dec32 > -1.06");
    check_bind(md, "dec32 < 1e10", "dec32 is not null"); /* 1e12 unscaled > int32 */
    check_bind(md, "dec32 in (0.1, 0.10, 0.100, 0.1001)", "dec32 in (0.10)");
    /* dec64: INT64 DECIMAL(18,4) */
    e = bind_ok(md, "dec64 = 123456789012345.6789", "dec64 = 123456789012345.6789");
    ck_assert_int_eq(e->values[0].i, 1234567890123456789LL);
    pq_expr_free(e);
    /* decf: FLBA(5) DECIMAL(10,2): -105 = ff ff ff ff 97; range +-2^39 unscaled */
    e = bind_ok(md, "decf = -1.05", "decf = -1.05");
    check_bytes(&e->values[0], (const uint8_t[]){0xff, 0xff, 0xff, 0xff, 0x97}, 5);
    ck_assert_int_eq(e->order, PQ_ORDER_DECIMAL_BYTES);
    pq_expr_free(e);
    check_bind(md, "decf < 5497558138.88", "decf is not null");  /* 2^39 */
    check_bind(md, "decf <= 5497558138.87", "decf <= 5497558138.87");
    check_bind(md, "decf >= -5497558138.88", "decf >= -5497558138.88");
    check_bind(md, "decf >= -5497558138.89", "decf is not null");
    /* decb: BYTE_ARRAY DECIMAL(20,3), shortest two's complement */
    e = bind_ok(md, "decb in (1, 0.128, -0.128, 1.000)", "decb in (-0.128, 0.128, 1.000)");
    check_bytes(&e->values[0], (const uint8_t[]){0x80}, 1);
    check_bytes(&e->values[1], (const uint8_t[]){0x00, 0x80}, 2);
    check_bytes(&e->values[2], (const uint8_t[]){0x03, 0xe8}, 2);
    pq_expr_free(e);
    check_bind(md, "decb < 0.0005", "decb <= 0.000");
    check_bind_error(md, "dec32 = 'x'", PQ_ERR_INVALID_ARGUMENT, "at 8: 'x' is not a number (column dec32)");
    pq_metadata_release(md);
}
END_TEST

START_TEST(test_bind_other_types)
{
    pq_metadata *md = types_md();
    pq_expr *e = bind_ok(md, "s = 'it''s'", "s = 'it''s'");
    check_bytes(&e->values[0], (const uint8_t *)"it's", 4);
    ck_assert_int_eq(e->order, PQ_ORDER_BYTES);
    pq_expr_free(e);
    check_bind(md, "s in ('b', 'a', 'b', '')", "s in ('', 'a', 'b')");
    check_bind(md, "bin >= 'x'", "bin >= 'x'");
    check_bind(md, "fl3 = 'abc'", "fl3 = 'abc'");
    e = bind_ok(md, "f = 0.1", "f = 0.1");
    ck_assert(e->values[0].d == (double)0.1f);
    pq_expr_free(e);
    e = bind_ok(md, "g = 0.1", "g = 0.1");
    ck_assert(e->values[0].d == 0.1);
    pq_expr_free(e);
    check_bind(md, "g in (2, -0.0, 0, 1e300)", "g in (-0.0, 2, 1e+300)");
    check_bind(md, "b = true", "b = true");
    check_bind(md, "b != false", "b != false");

    check_bind_error(md, "s = 1", PQ_ERR_INVALID_ARGUMENT, "at 4: 1 is not a string (column s)");
    check_bind_error(md, "fl3 = 'ab'", PQ_ERR_INVALID_ARGUMENT, "at 6: 'ab' is not 3 bytes long (column fl3)");
    check_bind_error(md, "b = 1", PQ_ERR_INVALID_ARGUMENT, "at 4: 1 is not true or false (column b)");
    check_bind(md, "b", "b = true");
    check_bind(md, "not b", "not b = true");
    check_bind_error(md, "i8 and b", PQ_ERR_INVALID_ARGUMENT, "at 0: column 'i8' alone is a condition only if it is boolean");
    check_bind_error(md, "i8 = true", PQ_ERR_INVALID_ARGUMENT, "at 5: true is not a number (column i8)");
    check_bind_error(md, "f = 'x'", PQ_ERR_INVALID_ARGUMENT, "at 4: 'x' is not a number (column f)");
    check_bind_error(md, "i8 = 1 or nope = 2", PQ_ERR_INVALID_ARGUMENT, "at 10: no column 'nope'");
    /* INT96: a timestamp of the bind's unit (nanoseconds by default), as a
     * reader delivers it */
    check_bind(md, "ts96 is null", "ts96 is null");
    e = bind_ok(md, "ts96 >= '1970-01-01 00:00:01.5'", "ts96 >= '1970-01-01T00:00:01.500000000'");
    ck_assert_int_eq(e->values[0].i, 1500000000);
    ck_assert_int_eq(e->physical_type, PQ_INT96);
    ck_assert_int_eq(e->order, PQ_ORDER_SIGNED);
    pq_expr_free(e);
    check_bind(md, "ts96 > '2300-01-01'", "false");
    {
        pq_error err = {0};
        e = parse_ok("ts96 < '1970-01-01 00:00:01.5' or ts96 = '2300-01-01'");
        ck_assert_msg(pq_expr_bind_int96(e, md, PQ_UNIT_SECONDS, &err) == PQ_OK, "%s", err.message);
        ck_assert_str_eq(fmt(e), "ts96 <= '1970-01-01T00:00:01' or ts96 = '2300-01-01T00:00:00'");
        ck_assert_int_eq(e->kids[1]->values[0].i, 10413792000);
        ck_assert_msg(pq_expr_bind_int96(e, md, PQ_UNIT_MICROS, &err) == PQ_OK, "%s", err.message);
        ck_assert_int_eq(e->kids[0]->values[0].i, 1500000);
        ck_assert_int_eq(pq_expr_bind_int96(e, md, 7, &err), PQ_ERR_INVALID_ARGUMENT);
        ck_assert_str_eq(err.message, "pq_expr_bind: INT96 unit 7 is not a time unit");
        pq_expr_free(e);
    }
    check_bind_error(md, "rep = 1", PQ_ERR_INVALID_ARGUMENT, "at 0: column 'rep' is repeated (lists are not filterable)");
    check_bind(md, "st = 1", "st = 1"); /* a top-level name with one leaf: st.x */
    check_bind_error(md, "\"st.\" = 1", PQ_ERR_INVALID_ARGUMENT, "at 0: no column 'st.'");
    pq_metadata_release(md);
}
END_TEST

START_TEST(test_rebind)
{
    pq_metadata *md = types_md();
    /* the same names, other types: i8 is a DOUBLE, d a string */
    static const col_def other[] = {{"i8", 5, 1, 0, 0, 0, 0, 0}, {"d", 6, 1, 0, L_STRING, 0, 0, 0}};
    pq_metadata *md2 = make_md(other, 2);
    pq_error err = {0};
    pq_expr *e = parse_ok("i8 < 1.5 and i8 != 2.5 and d = '1995-01-01'");
    ck_assert_int_eq(pq_expr_bind(e, md, &err), PQ_OK);
    ck_assert_str_eq(fmt(e), "i8 <= 1 and i8 is not null and d = '1995-01-01'");
    ck_assert_int_eq(pq_expr_bind(e, md2, &err), PQ_OK);
    ck_assert_str_eq(fmt(e), "i8 < 1.5 and i8 != 2.5 and d = '1995-01-01'");
    ck_assert_int_eq(e->kids[1]->leaf, 1);
    ck_assert_int_eq(e->kids[1]->physical_type, PQ_BYTE_ARRAY);
    ck_assert_int_eq(pq_expr_bind(e, md, &err), PQ_OK);
    ck_assert_str_eq(fmt(e), "i8 <= 1 and i8 is not null and d = '1995-01-01'");
    ck_assert_int_eq(e->kids[1]->values[0].i, 9131);
    pq_expr_free(e);
    pq_metadata_release(md2);
    pq_metadata_release(md);
}
END_TEST

/* The sample lineitem footer from the repository (a real writer's schema). */
START_TEST(test_bind_lineitem)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/data/sample/lineitem_61rg.parquet", PQ_SOURCE_DIR);
    FILE *fp = fopen(path, "rb");
    if (!fp) return;
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)size);
    ck_assert(buf && fread(buf, 1, (size_t)size, fp) == (size_t)size);
    fclose(fp);
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse_tail(buf, (size_t)size, NULL, NULL, &err);
    ck_assert_msg(md != NULL, "%s", err.message);
    check_bind(md,
               "l_shipdate >= '1995-01-01' and l_quantity < 24 and l_returnflag in ('R', 'A') and "
               "l_comment is not null",
               "l_shipdate >= '1995-01-01' and l_quantity < 24.00 and l_returnflag in ('A', 'R') and "
               "l_comment is not null");
    /* l_quantity is FLBA(7) DECIMAL(15,2): 24 -> 2400 = 00 00 00 00 00 09 60 */
    pq_expr *e = bind_ok(md, "l_quantity < 24", "l_quantity < 24.00");
    check_bytes(&e->values[0], (const uint8_t[]){0, 0, 0, 0, 0, 0x09, 0x60}, 7);
    pq_expr_free(e);
    check_bind(md, "l_quantity < 24.005", "l_quantity <= 24.00");
    pq_metadata_release(md);
    free(buf);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Evaluation
 * ------------------------------------------------------------------------- */

typedef struct test_col {
    struct ArrowArray a;
    struct ArrowSchema s;
    const void *bufs[4]; /* a view column: validity, views, one data buffer, its size */
} test_col;

static void set_col(test_col *c, const char *format, int64_t length, int64_t offset, const uint8_t *valid,
                    const void *data, const void *bytes)
{
    memset(c, 0, sizeof *c);
    c->bufs[0] = valid;
    c->bufs[1] = data;
    c->bufs[2] = bytes;
    c->a.length = length;
    c->a.offset = offset;
    c->a.null_count = valid ? -1 : 0;
    c->a.n_buffers = bytes ? 3 : 2;
    c->a.buffers = c->bufs;
    c->s.format = format;
}

typedef struct eval_env {
    const struct ArrowArray *cols[NTYPES];
    const struct ArrowSchema *schemas[NTYPES];
    pq_metadata *md;
} eval_env;

static void env_add(eval_env *env, int leaf, test_col *c)
{
    env->cols[leaf] = &c->a;
    env->schemas[leaf] = &c->s;
}

/* Evaluate `text` on `n` rows; the selection as a string of 0/1 per row. */
static const char *eval_bits(eval_env *env, const char *text, int64_t n)
{
    static char out[128];
    uint8_t keep[16];
    memset(keep, 0xaa, sizeof keep);
    pq_error err = {0};
    pq_expr *e = parse_ok(text);
    ck_assert_msg(pq_expr_bind(e, env->md, &err) == PQ_OK, "%s", err.message);
    ck_assert_msg(pq_predicate_eval(e, env->cols, env->schemas, NULL, n, keep, &err) == PQ_OK, "%s: %s", text,
                  err.message);
    for (int64_t i = 0; i < n; i++) out[i] = (keep[i / 8] >> (i % 8)) & 1 ? '1' : '0';
    out[n] = '\0';
    for (int64_t i = n; i < ((n + 7) / 8) * 8; i++) ck_assert(!((keep[i / 8] >> (i % 8)) & 1));
    pq_expr_free(e);
    return out;
}

START_TEST(test_eval_ints_nulls_offsets)
{
    eval_env env;
    memset(&env, 0, sizeof env);
    env.md = types_md();
    /* i32 rows (offset 1): 1, 2, null, 4, 5, -1 */
    static const int32_t i32[] = {99, 1, 2, 0, 4, 5, -1};
    static const uint8_t i32_valid[] = {0x76}; /* slots 1,2,4,5,6 valid: 0111 0110 */
    /* b rows (offset 0): true, false, true, false, null, true */
    static const uint8_t b_vals[] = {0x25}; /* 1,0,1,0,0,1 -> bits 0,2,5 */
    static const uint8_t b_valid[] = {0x2f}; /* all but row 4 */
    /* i8 rows: -3, 0, 7, -128, 127, 5 */
    static const int8_t i8[] = {-3, 0, 7, -128, 127, 5};
    /* u64 rows: 0, 2^63, 2^64-1, 1, 5, 9 */
    static const uint64_t u64[] = {0, 9223372036854775808ull, UINT64_MAX, 1, 5, 9};
    test_col ci, cb, c8, cu;
    set_col(&ci, "i", 6, 1, i32_valid, i32, NULL);
    set_col(&cb, "b", 6, 0, b_valid, b_vals, NULL);
    set_col(&c8, "c", 6, 0, NULL, i8, NULL);
    set_col(&cu, "L", 6, 0, NULL, u64, NULL);
    env_add(&env, 3, &ci);
    env_add(&env, 19, &cb);
    env_add(&env, 0, &c8);
    env_add(&env, 2, &cu);

    ck_assert_str_eq(eval_bits(&env, "i32 > 1", 6), "010110");
    ck_assert_str_eq(eval_bits(&env, "not i32 > 1", 6), "100001"); /* the null stays unknown */
    ck_assert_str_eq(eval_bits(&env, "i32 > 1 or i32 is null", 6), "011110");
    ck_assert_str_eq(eval_bits(&env, "i32 is not null", 6), "110111");
    ck_assert_str_eq(eval_bits(&env, "i32 in (2, 5, -1)", 6), "010011");
    ck_assert_str_eq(eval_bits(&env, "i32 not in (2, 5, -1)", 6), "100100");
    ck_assert_str_eq(eval_bits(&env, "i32 != 4", 6), "110011");
    ck_assert_str_eq(eval_bits(&env, "i32 <= 1.5", 6), "100001");
    ck_assert_str_eq(eval_bits(&env, "i32 = 1.5", 6), "000000");
    ck_assert_str_eq(eval_bits(&env, "i32 != 1.5", 6), "110111");
    ck_assert_str_eq(eval_bits(&env, "true", 6), "111111");
    /* Kleene: row 2 (i32 null) with b true: unknown AND true = unknown; row 4 (b null, i32 4):
     * i32 > 10 false, so the AND is false and NOT makes it true (so does row 5) */
    ck_assert_str_eq(eval_bits(&env, "not (i32 > 10 and b = true)", 6), "110111");
    ck_assert_str_eq(eval_bits(&env, "i32 > 10 or b = true", 6), "101001");
    ck_assert_str_eq(eval_bits(&env, "not (i32 > 10 or b = true)", 6), "010100");
    ck_assert_str_eq(eval_bits(&env, "b != true", 6), "010100");
    ck_assert_str_eq(eval_bits(&env, "i8 < 0", 6), "100100");
    ck_assert_str_eq(eval_bits(&env, "i8 >= 127", 6), "000010");
    ck_assert_str_eq(eval_bits(&env, "i8 > 126.5", 6), "000010");
    ck_assert_str_eq(eval_bits(&env, "u64 > 9223372036854775807", 6), "011000");
    ck_assert_str_eq(eval_bits(&env, "u64 in (18446744073709551615, 5, 1)", 6), "001110");
    ck_assert_str_eq(eval_bits(&env, "u64 < 5", 6), "100100");

    /* 11 rows over two bytes, offset 3 into a 16-slot buffer */
    int32_t many[16];
    for (int k = 0; k < 16; k++) many[k] = k;
    test_col cm;
    set_col(&cm, "i", 11, 3, NULL, many, NULL);
    env_add(&env, 3, &cm);
    ck_assert_str_eq(eval_bits(&env, "i32 >= 10", 11), "00000001111");

    /* the null type: every row null */
    test_col cn;
    set_col(&cn, "n", 3, 0, NULL, NULL, NULL);
    cn.a.n_buffers = 0;
    env_add(&env, 3, &cn);
    ck_assert_str_eq(eval_bits(&env, "i32 is null", 3), "111");
    ck_assert_str_eq(eval_bits(&env, "i32 = 1 or i32 != 1", 3), "000");

    /* errors: missing column, wrong format, too short */
    pq_error err = {0};
    uint8_t keep[2];
    pq_expr *e = parse_ok("i64 = 1");
    ck_assert_int_eq(pq_predicate_eval(e, env.cols, env.schemas, NULL, 6, keep, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(err.message, "pq_predicate_eval: predicate not bound");
    ck_assert_int_eq(pq_expr_bind(e, env.md, &err), PQ_OK);
    ck_assert_int_eq(pq_predicate_eval(e, env.cols, env.schemas, NULL, 6, keep, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(err.message, "predicate: no array for column 4 (i64)");
    env_add(&env, 4, &cb);
    ck_assert_int_eq(pq_predicate_eval(e, env.cols, env.schemas, NULL, 6, keep, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(err.message, "predicate: Arrow format 'b' does not fit column i64");
    env_add(&env, 4, &c8);
    ck_assert_int_eq(pq_predicate_eval(e, env.cols, env.schemas, NULL, 7, keep, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(err.message, "predicate: column i64 has 6 rows, 7 needed");
    pq_expr_free(e);
    pq_metadata_release(env.md);
}
END_TEST

/* ---------------------------------------------------------------------------
 * AND / OR order and short-circuiting, against a per-row model
 * ------------------------------------------------------------------------- */

/* Kleene truth of a row: 0 false, 1 true, 2 unknown. */
typedef struct model_row {
    int32_t i32;
    int64_t i64;
    bool null32;
} model_row;

static int model_leaf(const model_row *r, int kind, int op, int64_t k)
{
    if (kind == 2) return r->null32; /* i32 is null */
    if (kind == 0 && r->null32) return 2;
    int64_t x = kind == 0 ? r->i32 : r->i64;
    switch (op) {
    case 0: return x < k;
    case 1: return x == k;
    default: return x >= k;
    }
}

static int model_and(int a, int b)
{
    return a == 0 || b == 0 ? 0 : a == 1 && b == 1 ? 1 : 2;
}

static int model_or(int a, int b)
{
    return a == 1 || b == 1 ? 1 : a == 0 && b == 0 ? 0 : 2;
}

/* A random expression of depth <= d as text, with its truth per row (its
 * text is short: depth 3 over leaves of at most 16 characters). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
static void random_expr(unsigned *seed, int d, const model_row *rows, int n, char *text, size_t cap, int *truth)
{
    *seed = *seed * 1103515245u + 12345u;
    unsigned r = *seed >> 16;
    if (d == 0 || r % 4 == 0) {
        int kind = (int)(r / 4 % 3), op = (int)(r / 12 % 3);
        int64_t k = (int64_t)(r / 36 % 40) - 5;
        static const char *ops[] = {"<", "=", ">="};
        if (kind == 2) snprintf(text, cap, "i32 is null");
        else snprintf(text, cap, "%s %s %lld", kind == 0 ? "i32" : "i64", ops[op], (long long)k);
        for (int i = 0; i < n; i++) truth[i] = model_leaf(&rows[i], kind, op, k);
        return;
    }
    char a[512], b[512];
    int ta[200], tb[200];
    random_expr(seed, d - 1, rows, n, a, sizeof a, ta);
    if (r % 4 == 1) { /* not */
        snprintf(text, cap, "not (%s)", a);
        for (int i = 0; i < n; i++) truth[i] = ta[i] == 2 ? 2 : !ta[i];
        return;
    }
    random_expr(seed, d - 1, rows, n, b, sizeof b, tb);
    bool and_ = r % 4 == 2;
    snprintf(text, cap, "(%s) %s (%s)", a, and_ ? "and" : "or", b);
    for (int i = 0; i < n; i++) truth[i] = and_ ? model_and(ta[i], tb[i]) : model_or(ta[i], tb[i]);
}
#pragma GCC diagnostic pop

START_TEST(test_eval_and_or_against_a_model)
{
    enum { N = 200 };
    eval_env env;
    memset(&env, 0, sizeof env);
    env.md = types_md();
    model_row rows[N];
    int32_t i32[N];
    int64_t i64[N];
    uint8_t valid[(N + 7) / 8] = {0};
    unsigned seed = 7;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        /* runs of equal values, so whole bytes of rows are decided at once */
        rows[i].i32 = (int32_t)((i / 16) % 30) - 3;
        rows[i].i64 = (int64_t)(seed >> 16) % 35 - 5;
        rows[i].null32 = (seed >> 8) % 9 == 0;
        i32[i] = rows[i].i32;
        i64[i] = rows[i].i64;
        if (!rows[i].null32) valid[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    test_col c32, c64;
    set_col(&c32, "i", N, 0, valid, i32, NULL);
    set_col(&c64, "l", N, 0, NULL, i64, NULL);
    env_add(&env, 3, &c32);
    env_add(&env, 4, &c64);
    /* The int64 column as it is, then as a dictionary array (its values as
     * entries, unused ones among them, and a null entry, so that an
     * entry's false is not the complement of its true): of 40 entries
     * (mapped eight rows a step where the CPU has AVX2) and of 340 (the
     * scalar loop). */
    int64_t entries[400];
    int32_t idx[N];
    uint8_t entry_valid[400 / 8];
    test_col cdict, cidx;
    for (int pass = 0; pass < 3; pass++) {
        if (pass > 0) {
            int64_t n = pass == 1 ? 40 : 340; /* entries; values -5..29 at 3.., the last null */
            memset(entry_valid, 0xff, sizeof entry_valid);
            for (int64_t j = 0; j < n; j++) entries[j] = 1000 + j;
            for (int i = 0; i < N; i++) {
                idx[i] = (int32_t)(rows[i].i64 + 5 + 3);
                entries[idx[i]] = rows[i].i64;
            }
            entry_valid[(n - 1) / 8] &= (uint8_t)~(1u << ((n - 1) % 8));
            set_col(&cdict, "l", n, 0, entry_valid, entries, NULL);
            set_col(&cidx, "i", N, 0, NULL, idx, NULL);
            cidx.a.dictionary = &cdict.a;
            cidx.s.dictionary = &cdict.s;
            env_add(&env, 4, &cidx);
        }
        for (int t = 0; t < 400; t++) {
            char text[512];
            int truth[N];
            random_expr(&seed, 3, rows, N, text, sizeof text, truth);
            pq_error err = {0};
            pq_expr *e = parse_ok(text);
            ck_assert_msg(pq_expr_bind(e, env.md, &err) == PQ_OK, "%s: %s", text, err.message);
            uint8_t keep[(N + 7) / 8];
            ck_assert_msg(pq_predicate_eval(e, env.cols, env.schemas, NULL, N, keep, &err) == PQ_OK, "%s",
                          err.message);
            for (int i = 0; i < N; i++)
                ck_assert_msg(((keep[i / 8] >> (i % 8)) & 1) == (truth[i] == 1),
                              "%s (pass %d): row %d is %d, the model says %d", text, pass, i,
                              (keep[i / 8] >> (i % 8)) & 1, truth[i]);
            pq_expr_free(e);
        }
    }
    pq_metadata_release(env.md);
}
END_TEST

START_TEST(test_eval_floats_strings_decimals)
{
    eval_env env;
    memset(&env, 0, sizeof env);
    env.md = types_md();
    /* g rows: 0.5, NaN, 1, -0.0, null, 2 */
    static const double g[] = {0.5, NAN, 1, -0.0, 0, 2};
    static const uint8_t g_valid[] = {0x2f};
    /* f rows: 0.1f, NaN, 3 */
    static const float f[] = {0.1f, NAN, 3};
    /* s rows (offset 1): "a", "cc", "", null, "b", "ab" */
    static const int32_t s_off[] = {0, 1, 2, 4, 4, 4, 5, 7};
    static const char s_data[] = "zacc" "b" "ab";
    static const uint8_t s_valid[] = {0x6e}; /* slots 1,2,3,5,6 */
    test_col cg, cf, cs;
    set_col(&cg, "g", 6, 0, g_valid, g, NULL);
    set_col(&cf, "f", 3, 0, NULL, f, NULL);
    set_col(&cs, "u", 6, 1, s_valid, s_off, s_data);
    env_add(&env, 18, &cg);
    env_add(&env, 17, &cf);
    env_add(&env, 14, &cs);

    /* NaN: false for = < <= > >= IN, true for != */
    ck_assert_str_eq(eval_bits(&env, "g < 1", 6), "100100");
    ck_assert_str_eq(eval_bits(&env, "g >= 1", 6), "001001");
    ck_assert_str_eq(eval_bits(&env, "g != 1", 6), "110101");
    ck_assert_str_eq(eval_bits(&env, "not g < 1", 6), "011001");
    ck_assert_str_eq(eval_bits(&env, "g = 0", 6), "000100"); /* -0.0 = 0 */
    ck_assert_str_eq(eval_bits(&env, "g in (0, 2)", 6), "000101");
    ck_assert_str_eq(eval_bits(&env, "g not in (0, 2)", 6), "111000");
    ck_assert_str_eq(eval_bits(&env, "f = 0.1", 3), "100"); /* 0.1 rounded to float */
    ck_assert_str_eq(eval_bits(&env, "f > 0.1", 3), "001");
    ck_assert_str_eq(eval_bits(&env, "f != 3", 3), "110");

    ck_assert_str_eq(eval_bits(&env, "s >= 'b'", 6), "010010");
    ck_assert_str_eq(eval_bits(&env, "s < 'b'", 6), "101001");
    ck_assert_str_eq(eval_bits(&env, "s in ('a', 'cc', '')", 6), "111000");
    ck_assert_str_eq(eval_bits(&env, "s = ''", 6), "001000");
    ck_assert_str_eq(eval_bits(&env, "s is null", 6), "000100");
    ck_assert_str_eq(eval_bits(&env, "s between 'a' and 'b'", 6), "100011");
    ck_assert_str_eq(eval_bits(&env, "s not between 'a' and 'b'", 6), "011000"); /* null stays unknown */
    ck_assert_str_eq(eval_bits(&env, "s between 'b' and 'a'", 6), "000000");
    ck_assert_str_eq(eval_bits(&env, "g between 0 and 1", 6), "101100");
    ck_assert_str_eq(eval_bits(&env, "g not between 0 and 1", 6), "010001");

    /* fixed-size binary fl3 (w:3), rows: "abc", "abd", "\xff\x00\x00" */
    static const char fl[] = "abcabd\xff\x00\x00";
    test_col cw;
    set_col(&cw, "w:3", 3, 0, NULL, fl, NULL);
    env_add(&env, 16, &cw);
    ck_assert_str_eq(eval_bits(&env, "fl3 > 'abc'", 3), "011"); /* unsigned bytes: 0xff is largest */

    /* dec32 as decimal128 (16-byte LE slots): 1.05, -1.06, 0.00, 2^40 (beyond the column) */
    uint8_t d128[4][16];
    memset(d128, 0, sizeof d128);
    d128[0][0] = 105;
    memset(d128[1], 0xff, 16);
    d128[1][0] = (uint8_t)(256 - 106);
    d128[3][5] = 1;
    test_col cd;
    set_col(&cd, "d:9,2", 4, 0, NULL, d128, NULL);
    env_add(&env, 10, &cd);
    ck_assert_str_eq(eval_bits(&env, "dec32 > -1.055", 4), "1011");
    ck_assert_str_eq(eval_bits(&env, "dec32 in (1.05, -1.06)", 4), "1100");
    ck_assert_str_eq(eval_bits(&env, "dec32 <= 0", 4), "0110");

    /* decb (BYTE_ARRAY decimal, scale 3) as decimal256: -0.128, 1.000, 0.128, -2^200 */
    uint8_t d256[4][32];
    memset(d256, 0, sizeof d256);
    memset(d256[0], 0xff, 32);
    d256[0][0] = 0x80;
    d256[1][0] = 0xe8, d256[1][1] = 0x03;
    d256[2][0] = 0x80;
    memset(d256[3] + 25, 0xff, 7); /* -2^200: bytes 25..31 = 0xff */
    test_col cd2;
    set_col(&cd2, "d:20,3,256", 4, 0, NULL, d256, NULL);
    env_add(&env, 13, &cd2);
    ck_assert_str_eq(eval_bits(&env, "decb in (-0.128, 1)", 4), "1100");
    ck_assert_str_eq(eval_bits(&env, "decb < 0", 4), "1001");
    ck_assert_str_eq(eval_bits(&env, "decb >= 0.128", 4), "0110");
    pq_metadata_release(env.md);
}
END_TEST

/* String views compared with a literal from their 4-byte prefix where it
 * decides (view_cmp), against the same strings as an offsets column (the
 * bytes compared whole) and a memcmp model: every pair of 60 strings of
 * 0..15 bytes (bytes 0x00, 'a', 'b', 0x80, 0xff, so unsigned order and
 * zero bytes count) and literals of 0..6 bytes, for < <= = != >= >. */
START_TEST(test_eval_views_by_prefix)
{
    enum { N = 60 };
    static const uint8_t alphabet[5] = {0x00, 'a', 'b', 0x80, 0xff};
    uint8_t data[N * 16], views[N][16];
    int32_t offs[N + 1];
    size_t lens[N], at = 0;
    uint64_t r = 12345;
    offs[0] = 0;
    for (int i = 0; i < N; i++) {
        lens[i] = (size_t)(i % 16);
        for (size_t k = 0; k < lens[i]; k++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            /* most strings share a first byte, so the prefix often ties */
            data[at + k] = k == 0 && i % 3 ? 'a' : alphabet[(r >> 33) % 5];
        }
        memset(views[i], 0, 16);
        int32_t l = (int32_t)lens[i];
        memcpy(views[i], &l, 4);
        if (lens[i] <= 12) {
            memcpy(views[i] + 4, data + at, lens[i]);
        } else {
            int32_t buf = 0, off = (int32_t)at;
            memcpy(views[i] + 4, data + at, 4);
            memcpy(views[i] + 8, &buf, 4);
            memcpy(views[i] + 12, &off, 4);
        }
        at += lens[i];
        offs[i + 1] = (int32_t)at;
    }
    int64_t sizes[1] = {(int64_t)at};
    test_col cv, cs;
    set_col(&cv, "vu", N, 0, NULL, views, data);
    cv.bufs[3] = sizes;
    cv.a.n_buffers = 4;
    set_col(&cs, "u", N, 0, NULL, offs, data);
    static const char *ops[6] = {"<", "<=", "=", "!=", ">=", ">"};
    char lit[8], text[64];
    for (int li = 0; li < 40; li++) {
        size_t ll = (size_t)(li % 7);
        for (size_t k = 0; k < ll; k++) { /* printable, so that it parses: 'a', 'b' and '~' */
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            lit[k] = k == 0 && li % 2 ? 'a' : "ab~"[(r >> 33) % 3];
        }
        lit[ll] = '\0';
        for (int o = 0; o < 6; o++) {
            snprintf(text, sizeof text, "s %s '%s'", ops[o], lit);
            char via_views[N + 1], via_offsets[N + 1];
            eval_env env;
            memset(&env, 0, sizeof env);
            env.md = types_md();
            env_add(&env, 14, &cv);
            strcpy(via_views, eval_bits(&env, text, N));
            env_add(&env, 14, &cs);
            strcpy(via_offsets, eval_bits(&env, text, N));
            pq_metadata_release(env.md);
            for (int i = 0; i < N; i++) {
                size_t m = lens[i] < ll ? lens[i] : ll;
                int c = m ? memcmp(data + offs[i], lit, m) : 0;
                c = c ? c : (lens[i] > ll) - (lens[i] < ll);
                bool want = o == 0 ? c < 0 : o == 1 ? c <= 0 : o == 2 ? c == 0 : o == 3 ? c != 0 : o == 4 ? c >= 0 : c > 0;
                if ((via_views[i] == '1') != want || via_offsets[i] != via_views[i])
                    ck_abort_msg("%s, row %d (%zu bytes): views %c, offsets %c, want %d", text, i, lens[i],
                                 via_views[i], via_offsets[i], want);
            }
        }
    }
}
END_TEST

/* Dictionary arrays (int32 indices + dictionary): each predicate leaf is
 * evaluated on the entries and mapped over the indices; hand-computed. */
START_TEST(test_eval_dictionary)
{
    eval_env env;
    memset(&env, 0, sizeof env);
    env.md = types_md();
    /* dictionary of s: "AIR", "RAIL", "SHIP", null (entry 3) */
    static const int32_t d_off[] = {0, 3, 7, 11, 11};
    static const char d_data[] = "AIRRAILSHIP";
    static const uint8_t d_valid[] = {0x07};
    test_col dict;
    set_col(&dict, "u", 4, 0, d_valid, d_off, d_data);
    /* rows (offset 1): AIR, SHIP, RAIL, null index, SHIP, null entry, AIR */
    static const int32_t idx[] = {9, 0, 2, 1, 0, 2, 3, 0};
    static const uint8_t iv[] = {0xef}; /* every slot but 4 (row 3): a null index */
    test_col col;
    set_col(&col, "i", 7, 1, iv, idx, NULL);
    col.a.dictionary = &dict.a;
    col.s.dictionary = &dict.s;
    env_add(&env, 14, &col);
    ck_assert_str_eq(eval_bits(&env, "s in ('AIR', 'RAIL')", 7), "1010001");
    ck_assert_str_eq(eval_bits(&env, "s = 'SHIP'", 7), "0100100");
    ck_assert_str_eq(eval_bits(&env, "not s = 'SHIP'", 7), "1010001"); /* nulls stay unknown */
    ck_assert_str_eq(eval_bits(&env, "s is null", 7), "0001010");      /* index or entry null */
    ck_assert_str_eq(eval_bits(&env, "s is not null", 7), "1110101");
    ck_assert_str_eq(eval_bits(&env, "s > 'B' and s < 'S'", 7), "0010000");

    /* no null index: eight rows at a time, then the tail */
    static const int32_t idx9[] = {0, 1, 2, 0, 1, 2, 0, 1, 2, 3};
    test_col c9;
    set_col(&c9, "i", 10, 0, NULL, idx9, NULL);
    c9.a.dictionary = &dict.a;
    c9.s.dictionary = &dict.s;
    env_add(&env, 14, &c9);
    ck_assert_str_eq(eval_bits(&env, "s = 'RAIL'", 10), "0100100100");
    ck_assert_str_eq(eval_bits(&env, "s != 'RAIL'", 10), "1011011010");
    ck_assert_str_eq(eval_bits(&env, "s is null", 10), "0000000001");

    /* an index outside the dictionary is an error, not a read past it */
    static const int32_t bad[] = {0, 4, 0, 0, 0, 0, 0, 0, 0};
    test_col cb;
    set_col(&cb, "i", 9, 0, NULL, bad, NULL);
    cb.a.dictionary = &dict.a;
    cb.s.dictionary = &dict.s;
    env_add(&env, 14, &cb);
    pq_error err = {0};
    uint8_t keep[2];
    pq_expr *e = parse_ok("s = 'AIR'");
    ck_assert_int_eq(pq_expr_bind(e, env.md, &err), PQ_OK);
    ck_assert_int_eq(pq_predicate_eval(e, env.cols, env.schemas, NULL, 9, keep, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "index 4 at row 1 outside the dictionary of 4"), "%s", err.message);
    /* indices of another type are refused */
    cb.s.format = "l";
    ck_assert_int_eq(pq_predicate_eval(e, env.cols, env.schemas, NULL, 9, keep, &err), PQ_ERR_UNSUPPORTED);
    pq_expr_free(e);
    pq_metadata_release(env.md);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("predicate");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_parse_precedence);
    tcase_add_test(tc, test_parse_operators);
    tcase_add_test(tc, test_parse_errors);
    tcase_add_test(tc, test_format_depth);
    tcase_add_test(tc, test_builders);
    tcase_add_test(tc, test_bind_integers);
    tcase_add_test(tc, test_bind_dates_times);
    tcase_add_test(tc, test_bind_decimals);
    tcase_add_test(tc, test_bind_other_types);
    tcase_add_test(tc, test_rebind);
    tcase_add_test(tc, test_bind_lineitem);
    tcase_add_test(tc, test_eval_ints_nulls_offsets);
    tcase_add_test(tc, test_eval_floats_strings_decimals);
    tcase_add_test(tc, test_eval_views_by_prefix);
    tcase_add_test(tc, test_eval_dictionary);
    tcase_add_test(tc, test_eval_and_or_against_a_model);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
