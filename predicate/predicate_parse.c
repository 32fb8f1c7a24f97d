/*
 * predicate_parse.c — the predicate text syntax (pq_predicate.h), by
 * recursive descent:
 *
 *   or      := and (OR and)*
 *   and     := unary (AND unary)*
 *   unary   := NOT unary | primary
 *   primary := '(' or ')' | TRUE | FALSE | column test
 *   test    := cmpop literal | [NOT] IN '(' literal (',' literal)* ')'
 *            | [NOT] BETWEEN literal AND literal | IS [NOT] NULL
 *
 * Chains of AND / OR are built as balanced trees, so that the tree stays
 * shallow (every walk over it recurses) however long the chain; parentheses
 * and NOT nest at most PQ_PARSE_MAX_DEPTH levels.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metadata/error.h"
#include "predicate/predicate.h"

#define PQ_PARSE_MAX_DEPTH 64

typedef enum tok_kind {
    TOK_END = 0,
    TOK_IDENT,   /* bare word (keywords included) */
    TOK_QIDENT,  /* "quoted identifier" */
    TOK_NUMBER,
    TOK_STRING,  /* 'text' */
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_COMMA,
    TOK_OP,      /* a comparison operator: op */
    TOK_BAD
} tok_kind;

typedef struct token {
    tok_kind kind;
    size_t pos, len; /* the token's bytes in the text */
    pq_cmp_op op;
    bool integer;    /* NUMBER without point or exponent */
} token;

typedef struct parser {
    const char *s;
    size_t n;
    token tok;       /* the current token */
    int depth;
    pq_error *err;
    bool failed;
} parser;

/* ---------------------------------------------------------------------------
 * Tokens
 * ------------------------------------------------------------------------- */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool ident_start(unsigned char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static bool ident_char(unsigned char c)
{
    return ident_start(c) || (c >= '0' && c <= '9') || c == '.';
}

/* Length of an array subscript "[digits]" at the start of s[0..n), or 0. */
static size_t subscript_len(const char *s, size_t n)
{
    size_t k = 1;
    if (n < 3 || s[0] != '[') return 0;
    while (k < n && s[k] >= '0' && s[k] <= '9') k++;
    return k > 1 && k < n && s[k] == ']' ? k + 1 : 0;
}

/* Length of a quoted token starting at s[i] (the quote), quotes doubled
 * inside; 0 when it is not closed. */
static size_t quoted_len(const char *s, size_t n, size_t i)
{
    char q = s[i];
    for (size_t k = i + 1; k < n; k++) {
        if (s[k] != q) continue;
        if (k + 1 < n && s[k + 1] == q) {
            k++;
            continue;
        }
        return k + 1 - i;
    }
    return 0;
}

static bool scan_op(parser *p, size_t i, token *t)
{
    static const struct { const char *text; pq_cmp_op op; } ops[] = {
        {"<=", PQ_CMP_LE}, {">=", PQ_CMP_GE}, {"!=", PQ_CMP_NE}, {"<>", PQ_CMP_NE},
        {"=", PQ_CMP_EQ},  {"<", PQ_CMP_LT},  {">", PQ_CMP_GT}};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t l = strlen(ops[k].text);
        if (i + l <= p->n && memcmp(p->s + i, ops[k].text, l) == 0) {
            t->kind = TOK_OP;
            t->op = ops[k].op;
            t->len = l;
            return true;
        }
    }
    return false;
}

static void next(parser *p)
{
    size_t i = p->tok.pos + p->tok.len;
    while (i < p->n && is_space(p->s[i])) i++;
    token t = {TOK_END, i, 0, PQ_CMP_EQ, false};
    if (i >= p->n) {
        p->tok = t;
        return;
    }
    unsigned char c = (unsigned char)p->s[i];
    if (ident_start(c)) {
        t.kind = TOK_IDENT;
        for (;;) { /* a path's array steps ride along: v.l[0].x */
            while (i + t.len < p->n && ident_char((unsigned char)p->s[i + t.len])) t.len++;
            size_t d = subscript_len(p->s + i + t.len, p->n - i - t.len);
            if (!d) break;
            t.len += d;
        }
    } else if (c == '"' || c == '\'') {
        t.kind = c == '"' ? TOK_QIDENT : TOK_STRING;
        t.len = quoted_len(p->s, p->n, i);
        if (!t.len) t.kind = TOK_BAD;
    } else if ((t.len = pq_scan_number(p->s + i, p->n - i, &t.integer)) > 0) {
        t.kind = TOK_NUMBER;
    } else if (c == '(' || c == ')' || c == ',') {
        t.kind = c == '(' ? TOK_LPAREN : c == ')' ? TOK_RPAREN : TOK_COMMA;
        t.len = 1;
    } else if (!scan_op(p, i, &t)) {
        t.kind = TOK_BAD;
    }
    p->tok = t;
}

static bool is_kw(const parser *p, const char *kw)
{
    return p->tok.kind == TOK_IDENT && p->tok.len == strlen(kw) &&
           strncasecmp(p->s + p->tok.pos, kw, p->tok.len) == 0;
}

static bool is_any_kw(const parser *p)
{
    static const char *const kw[] = {"and", "or", "not", "in", "is", "null", "true", "false"};
    for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
        if (is_kw(p, kw[k])) return true;
    return false;
}

/* Record the first error, at the current token. */
static pq_expr *fail(parser *p, size_t pos, const char *what)
{
    if (!p->failed) {
        p->failed = true;
        if (p->tok.kind == TOK_BAD && pos == p->tok.pos && p->tok.pos < p->n &&
            (p->s[pos] == '"' || p->s[pos] == '\''))
            pq_error_set(p->err, PQ_ERR_INVALID_ARGUMENT, "at %zu: unterminated %s", pos,
                         p->s[pos] == '"' ? "quoted name" : "string");
        else
            pq_error_set(p->err, PQ_ERR_INVALID_ARGUMENT, "at %zu: %s", pos, what);
    }
    return NULL;
}

static pq_expr *fail_nomem(parser *p)
{
    if (!p->failed) {
        p->failed = true;
        pq_error_set(p->err, PQ_ERR_NOMEM, "out of memory parsing a predicate");
    }
    return NULL;
}

/* A quoted token's content with doubled quotes made single (malloc'd). */
static char *unquote(const char *s, size_t len, size_t *out_len)
{
    char *r = malloc(len);
    if (!r) return NULL;
    size_t n = 0;
    for (size_t k = 1; k + 1 < len; k++) {
        r[n++] = s[k];
        if (s[k] == s[0]) k++;
    }
    r[n] = '\0';
    *out_len = n;
    return r;
}

/* ---------------------------------------------------------------------------
 * Literals and column tests
 * ------------------------------------------------------------------------- */

/* The current token as a literal; text (string or number) in *owned. */
static bool parse_literal(parser *p, pq_literal *l, char **owned, size_t *pos)
{
    const token *t = &p->tok;
    const char *s = p->s + t->pos;
    memset(l, 0, sizeof *l);
    *owned = NULL;
    *pos = t->pos;
    if (t->kind == TOK_STRING) {
        if (!(*owned = unquote(s, t->len, &l->text_len))) return fail_nomem(p), false;
        l->kind = PQ_LIT_TEXT;
        l->text = *owned;
    } else if (t->kind == TOK_NUMBER) {
        if (!(*owned = malloc(t->len + 1))) return fail_nomem(p), false;
        memcpy(*owned, s, t->len);
        (*owned)[t->len] = '\0';
        errno = 0;
        char *end;
        long long v = t->integer ? strtoll(*owned, &end, 10) : 0;
        if (t->integer && errno == 0) {
            l->kind = PQ_LIT_INT;
            l->i = v;
        } else {
            /* Too big for int64, or fractional: keep the text for exact binding. */
            l->kind = PQ_LIT_DOUBLE;
            l->d = strtod(*owned, &end);
            l->text = *owned;
            l->text_len = t->len;
        }
    } else if (is_kw(p, "true") || is_kw(p, "false")) {
        l->kind = PQ_LIT_BOOL;
        l->b = is_kw(p, "true");
    } else {
        fail(p, t->pos, "expected a literal (a number, a 'string', true or false)");
        return false;
    }
    next(p);
    return true;
}

static pq_expr *parse_compare(parser *p, const char *col, size_t col_pos)
{
    pq_cmp_op op = p->tok.op;
    next(p);
    pq_literal l;
    char *owned;
    size_t pos;
    if (!parse_literal(p, &l, &owned, &pos)) return NULL;
    pq_expr *e = pq_expr_compare(col, op, &l, p->err);
    free(owned);
    if (!e) return p->failed = true, NULL;
    e->pos = col_pos;
    e->lit_pos[0] = pos;
    return e;
}

static pq_expr *parse_in(parser *p, const char *col, size_t col_pos)
{
    if (p->tok.kind != TOK_LPAREN) return fail(p, p->tok.pos, "expected '(' after IN");
    next(p);
    size_t cap = 0, n = 0;
    pq_literal *lits = NULL;
    char **owned = NULL;
    size_t *pos = NULL;
    pq_expr *e = NULL;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            pq_literal *l2 = realloc(lits, cap * sizeof *lits);
            if (l2) lits = l2;
            char **o2 = realloc(owned, cap * sizeof *owned);
            if (o2) owned = o2;
            size_t *p2 = realloc(pos, cap * sizeof *pos);
            if (p2) pos = p2;
            if (!l2 || !o2 || !p2) {
                fail_nomem(p);
                goto done;
            }
        }
        if (!parse_literal(p, &lits[n], &owned[n], &pos[n])) goto done;
        n++;
        if (p->tok.kind == TOK_COMMA) {
            next(p);
            continue;
        }
        if (p->tok.kind != TOK_RPAREN) {
            fail(p, p->tok.pos, "expected ')' after the IN list");
            goto done;
        }
        next(p);
        break;
    }
    e = pq_expr_in(col, lits, n, p->err);
    if (!e) {
        p->failed = true;
        goto done;
    }
    e->pos = col_pos;
    memcpy(e->lit_pos, pos, n * sizeof *pos);
done:
    for (size_t k = 0; k < n; k++) free(owned[k]);
    free(lits);
    free(owned);
    free(pos);
    return e;
}

static pq_expr *parse_is(parser *p, const char *col, size_t col_pos)
{
    bool negated = false;
    next(p);
    if (is_kw(p, "not")) {
        negated = true;
        next(p);
    }
    if (!is_kw(p, "null")) return fail(p, p->tok.pos, negated ? "expected NULL after IS NOT" : "expected NULL or NOT NULL after IS");
    next(p);
    pq_expr *e = pq_expr_is_null(col, !negated, p->err);
    if (!e) return p->failed = true, NULL;
    e->pos = col_pos;
    return e;
}

/* BETWEEN lo AND hi, at lo: col >= lo AND col <= hi, as SQL has it (both
 * bounds included; lo > hi matches no row). */
static pq_expr *parse_between(parser *p, const char *col, size_t col_pos)
{
    pq_literal lo, hi;
    char *lo_text, *hi_text;
    size_t lo_pos, hi_pos;
    if (!parse_literal(p, &lo, &lo_text, &lo_pos)) return NULL;
    if (!is_kw(p, "and")) {
        free(lo_text);
        return fail(p, p->tok.pos, "expected AND after BETWEEN's lower bound");
    }
    next(p);
    if (!parse_literal(p, &hi, &hi_text, &hi_pos)) {
        free(lo_text);
        return NULL;
    }
    pq_expr *a = pq_expr_compare(col, PQ_CMP_GE, &lo, p->err);
    pq_expr *b = a ? pq_expr_compare(col, PQ_CMP_LE, &hi, p->err) : NULL;
    free(lo_text);
    free(hi_text);
    if (!b) {
        pq_expr_free(a);
        return p->failed = true, NULL;
    }
    a->pos = b->pos = col_pos;
    a->lit_pos[0] = lo_pos;
    b->lit_pos[0] = hi_pos;
    pq_expr *e = pq_expr_and(a, b, p->err); /* frees both on failure */
    if (!e) return p->failed = true, NULL;
    e->pos = col_pos;
    return e;
}

static pq_expr *parse_test(parser *p, const char *col, size_t col_pos)
{
    if (p->tok.kind == TOK_OP) return parse_compare(p, col, col_pos);
    if (is_kw(p, "is")) return parse_is(p, col, col_pos);
    if (is_kw(p, "in")) {
        next(p);
        return parse_in(p, col, col_pos);
    }
    if (is_kw(p, "between")) {
        next(p);
        return parse_between(p, col, col_pos);
    }
    if (is_kw(p, "not")) {
        size_t at = p->tok.pos;
        next(p);
        bool in = is_kw(p, "in");
        if (!in && !is_kw(p, "between")) return fail(p, p->tok.pos, "expected IN or BETWEEN after NOT");
        next(p);
        pq_expr *e = in ? parse_in(p, col, col_pos) : parse_between(p, col, col_pos);
        if (!e) return NULL;
        if (!(e = pq_expr_not(e, p->err))) return p->failed = true, NULL;
        e->pos = at;
        return e;
    }
    if (p->tok.kind == TOK_END || p->tok.kind == TOK_RPAREN || is_kw(p, "and") || is_kw(p, "or")) {
        /* A column alone is a condition, as in SQL: `col = true` (a boolean
         * column; the binder refuses others) */
        pq_literal t = {.kind = PQ_LIT_BOOL, .b = true};
        pq_expr *e = pq_expr_compare(col, PQ_CMP_EQ, &t, p->err);
        if (!e) return p->failed = true, NULL;
        e->pos = e->lit_pos[0] = col_pos;
        return e;
    }
    return fail(p, p->tok.pos,
                "expected an operator (= != <> < <= > >= IN NOT IN BETWEEN NOT BETWEEN IS) after the column");
}

/* ---------------------------------------------------------------------------
 * Expressions
 * ------------------------------------------------------------------------- */

static pq_expr *parse_or(parser *p);

/* The column name the current token is (an identifier, quoted or not),
 * malloc'd, and the token consumed; NULL after fail(). */
static char *column_name(parser *p)
{
    const token t = p->tok;
    size_t len = t.len;
    char *col;
    if (t.kind == TOK_QIDENT) {
        col = unquote(p->s + t.pos, t.len, &len);
    } else if ((col = malloc(t.len + 1)) != NULL) {
        memcpy(col, p->s + t.pos, t.len);
        col[t.len] = '\0';
    }
    if (!col) return fail_nomem(p), NULL;
    if (len == 0 || memchr(col, '\0', len)) {
        free(col);
        return fail(p, t.pos, "an empty or invalid column name"), NULL;
    }
    next(p);
    return col;
}

/* bbox_intersects(column, xmin, ymin, xmax, ymax), the name read, at '('. */
static pq_expr *parse_bbox(parser *p, size_t at)
{
    next(p);
    if (p->tok.kind != TOK_IDENT && p->tok.kind != TOK_QIDENT)
        return fail(p, p->tok.pos, "expected a column as bbox_intersects' first argument");
    size_t col_pos = p->tok.pos;
    char *col = column_name(p);
    if (!col) return NULL;
    double box[4];
    size_t pos[4];
    for (int k = 0; k < 4; k++) {
        if (p->tok.kind != TOK_COMMA) {
            free(col);
            return fail(p, p->tok.pos, "expected ',' and a number: bbox_intersects(column, xmin, ymin, xmax, ymax)");
        }
        next(p);
        pq_literal l;
        char *owned;
        pos[k] = p->tok.pos;
        if (p->tok.kind != TOK_NUMBER) {
            free(col);
            return fail(p, p->tok.pos, "expected a number: bbox_intersects(column, xmin, ymin, xmax, ymax)");
        }
        if (!parse_literal(p, &l, &owned, &pos[k])) {
            free(col);
            return NULL;
        }
        box[k] = l.kind == PQ_LIT_INT ? (double)l.i : l.d;
        free(owned);
    }
    if (p->tok.kind != TOK_RPAREN) {
        free(col);
        return fail(p, p->tok.pos, "expected ')' after bbox_intersects' four bounds");
    }
    next(p);
    pq_expr *e = pq_expr_bbox_intersects(col, box[0], box[1], box[2], box[3], p->err);
    free(col);
    if (!e) {
        char why[PQ_ERROR_MESSAGE_SIZE];
        snprintf(why, sizeof why, "%s", p->err->message);
        return fail(p, at, why);
    }
    e->pos = col_pos;
    memcpy(e->lit_pos, pos, sizeof pos);
    return e;
}

static pq_expr *parse_column(parser *p)
{
    const token t = p->tok;
    char *col = column_name(p);
    if (!col) return NULL;
    if (t.kind == TOK_IDENT && strcasecmp(col, "bbox_intersects") == 0 && p->tok.kind == TOK_LPAREN) {
        free(col);
        return parse_bbox(p, t.pos);
    }
    pq_expr *e = parse_test(p, col, t.pos);
    free(col);
    return e;
}

static pq_expr *parse_primary(parser *p)
{
    const token t = p->tok;
    if (t.kind == TOK_LPAREN) {
        if (++p->depth > PQ_PARSE_MAX_DEPTH) return fail(p, t.pos, "nesting deeper than 64 levels");
        next(p);
        pq_expr *e = parse_or(p);
        if (!e) return NULL;
        if (p->tok.kind != TOK_RPAREN) {
            pq_expr_free(e);
            return fail(p, p->tok.pos, "expected ')'");
        }
        p->depth--;
        next(p);
        return e;
    }
    if (is_kw(p, "true") || is_kw(p, "false")) {
        pq_expr *e = pq_expr_const(is_kw(p, "true"), p->err);
        if (!e) return p->failed = true, NULL;
        e->pos = t.pos;
        next(p);
        return e;
    }
    if (t.kind == TOK_QIDENT || (t.kind == TOK_IDENT && !is_any_kw(p))) return parse_column(p);
    if (t.kind == TOK_END) return fail(p, t.pos, "expected a column, NOT or '(' but the text ended");
    return fail(p, t.pos, "expected a column, NOT or '('");
}

static pq_expr *parse_unary(parser *p)
{
    if (!is_kw(p, "not")) return parse_primary(p);
    size_t at = p->tok.pos;
    if (++p->depth > PQ_PARSE_MAX_DEPTH) return fail(p, at, "nesting deeper than 64 levels");
    next(p);
    pq_expr *a = parse_unary(p);
    p->depth--;
    if (!a) return NULL;
    pq_expr *e = pq_expr_not(a, p->err);
    if (!e) return p->failed = true, NULL;
    e->pos = at;
    return e;
}

/* Combine items[lo..hi) into a balanced tree of `kind`; frees on failure. */
static pq_expr *balance(parser *p, pq_node_kind kind, pq_expr **items, size_t lo, size_t hi)
{
    if (hi - lo == 1) return items[lo];
    size_t mid = lo + (hi - lo + 1) / 2;
    pq_expr *a = balance(p, kind, items, lo, mid);
    pq_expr *b = balance(p, kind, items, mid, hi);
    if (!a || !b) {
        pq_expr_free(a);
        pq_expr_free(b);
        return NULL;
    }
    pq_expr *e = kind == PQ_NODE_AND ? pq_expr_and(a, b, p->err) : pq_expr_or(a, b, p->err);
    if (!e) p->failed = true;
    return e;
}

/* item (KW item)*, with `sub` parsing an item. */
static pq_expr *parse_chain(parser *p, const char *kw, pq_node_kind kind, pq_expr *(*sub)(parser *))
{
    size_t n = 0, cap = 0;
    pq_expr **items = NULL, *e = NULL;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4;
            pq_expr **grown = realloc(items, cap * sizeof *items);
            if (!grown) {
                fail_nomem(p);
                goto fail;
            }
            items = grown;
        }
        if (!(items[n] = sub(p))) goto fail;
        n++;
        if (!is_kw(p, kw)) break;
        next(p);
    }
    e = balance(p, kind, items, 0, n);
    free(items);
    return e;
fail:
    for (size_t k = 0; k < n; k++) pq_expr_free(items[k]);
    free(items);
    return NULL;
}

static pq_expr *parse_and(parser *p)
{
    return parse_chain(p, "and", PQ_NODE_AND, parse_unary);
}

static pq_expr *parse_or(parser *p)
{
    return parse_chain(p, "or", PQ_NODE_OR, parse_and);
}

pq_expr *pq_expr_parse(const char *text, pq_error *err)
{
    if (!text) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_expr_parse: NULL text");
        return NULL;
    }
    parser p = {text, strlen(text), {TOK_END, 0, 0, PQ_CMP_EQ, false}, 0, err, false};
    next(&p);
    pq_expr *e = parse_or(&p);
    if (e && p.tok.kind != TOK_END) {
        pq_expr_free(e);
        const char *what = p.tok.kind == TOK_RPAREN ? "unbalanced ')'" : "expected AND, OR or the end of the text";
        return fail(&p, p.tok.pos, what);
    }
    return e;
}
