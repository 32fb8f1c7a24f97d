/*
 * predicate.c — building, copying, freeing and printing pq_expr trees, and
 * the order of bound values. Parsing is in predicate_parse.c, binding to a
 * schema in predicate_bind.c.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metadata/error.h"
#include "predicate/predicate.h"
#include "pq_text.h"

/* ---------------------------------------------------------------------------
 * Nodes
 * ------------------------------------------------------------------------- */

static pq_expr *node_new(pq_node_kind kind, pq_error *err)
{
    pq_expr *e = calloc(1, sizeof *e);
    if (!e) {
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory building a predicate");
        return NULL;
    }
    e->kind = e->written_kind = kind;
    e->pos = SIZE_MAX;
    e->leaf = -1;
    e->variant_pick = -1;
    return e;
}

static char *str_dup(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c) return NULL;
    if (n) memcpy(c, s, n);
    c[n] = '\0';
    return c;
}

size_t pq_scan_number(const char *s, size_t n, bool *is_integer)
{
    size_t i = 0, digits = 0;
    bool integer = true;
    if (i < n && (s[i] == '-' || s[i] == '+')) i++;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (i < n && s[i] == '.') {
        integer = false;
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    }
    if (!digits) return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '-' || s[j] == '+')) j++;
        size_t k = j;
        while (k < n && s[k] >= '0' && s[k] <= '9') k++;
        if (k > j) {
            integer = false;
            i = k;
        }
    }
    if (is_integer) *is_integer = integer;
    return i;
}

/* Copy one literal into `dst` (text duplicated). */
static pq_status lit_copy(pq_literal *dst, const pq_literal *src, pq_error *err)
{
    *dst = *src;
    dst->text = NULL;
    dst->text_len = 0;
    switch (src->kind) {
    case PQ_LIT_BOOL:
    case PQ_LIT_INT: return PQ_OK;
    case PQ_LIT_DOUBLE:
        if (isnan(src->d)) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "a NaN literal");
        if (!src->text) return PQ_OK;
        if (!src->text_len || pq_scan_number(src->text, src->text_len, NULL) != src->text_len)
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "'%.*s' is not a number",
                                (int)(src->text_len > 64 ? 64 : src->text_len), src->text);
        break;
    case PQ_LIT_TEXT:
        if (!src->text && src->text_len)
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "a text literal without text");
        break;
    default: return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "unknown literal kind %d", (int)src->kind);
    }
    char *t = str_dup(src->text ? src->text : "", src->text_len);
    if (!t) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory building a predicate");
    dst->text = t;
    dst->text_len = src->text_len;
    return PQ_OK;
}

/* A column node with n literals copied in. */
static pq_expr *leaf_new(pq_node_kind kind, const char *column, const pq_literal *lits, size_t n,
                         pq_error *err)
{
    if (!column || (n && !lits)) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "predicate: NULL argument");
        return NULL;
    }
    pq_expr *e = node_new(kind, err);
    if (!e) return NULL;
    e->column = str_dup(column, strlen(column));
    if (n) {
        e->lits = calloc(n, sizeof *e->lits);
        e->lit_pos = malloc(n * sizeof *e->lit_pos);
    }
    if (!e->column || (n && (!e->lits || !e->lit_pos))) {
        pq_expr_free(e);
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory building a predicate");
        return NULL;
    }
    for (size_t k = 0; k < n; k++) {
        e->lit_pos[k] = SIZE_MAX;
        if (lit_copy(&e->lits[k], &lits[k], err) != PQ_OK) {
            pq_expr_free(e);
            return NULL;
        }
        e->nlits = k + 1;
    }
    return e;
}

pq_expr *pq_expr_compare(const char *column, pq_cmp_op op, const pq_literal *value, pq_error *err)
{
    if (!value || (unsigned)op > PQ_CMP_GE) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_expr_compare: %s",
                     value ? "unknown operator" : "NULL value");
        return NULL;
    }
    pq_expr *e = leaf_new(PQ_NODE_CMP, column, value, 1, err);
    if (e) e->op = e->written_op = op;
    return e;
}

pq_expr *pq_expr_in(const char *column, const pq_literal *values, size_t n, pq_error *err)
{
    if (n == 0) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_expr_in: an empty IN list");
        return NULL;
    }
    return leaf_new(PQ_NODE_IN, column, values, n, err);
}

pq_expr *pq_expr_is_null(const char *column, bool is_null, pq_error *err)
{
    pq_expr *e = leaf_new(PQ_NODE_IS_NULL, column, NULL, 0, err);
    if (e) e->is_null = is_null;
    return e;
}

pq_expr *pq_expr_bbox_intersects(const char *column, double xmin, double ymin, double xmax, double ymax,
                                 pq_error *err)
{
    double box[4] = {xmin, ymin, xmax, ymax};
    pq_literal lits[4];
    for (int k = 0; k < 4; k++) {
        if (!isfinite(box[k])) {
            pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "bbox_intersects: bound %d is not a finite number", k + 1);
            return NULL;
        }
        lits[k] = (pq_literal){.kind = PQ_LIT_DOUBLE, .d = box[k]};
    }
    if (ymin > ymax) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "bbox_intersects: ymin %g is above ymax %g", ymin, ymax);
        return NULL;
    }
    return leaf_new(PQ_NODE_BBOX, column, lits, 4, err);
}

pq_expr *pq_expr_const(bool truth, pq_error *err)
{
    pq_expr *e = node_new(PQ_NODE_CONST, err);
    if (e) e->truth = truth;
    return e;
}

static pq_expr *combine(pq_node_kind kind, pq_expr *a, pq_expr *b, pq_error *err)
{
    if (!a || (kind != PQ_NODE_NOT && !b)) {
        pq_expr_free(a);
        pq_expr_free(b);
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "predicate: NULL operand");
        return NULL;
    }
    pq_expr *e = node_new(kind, err);
    if (!e) {
        pq_expr_free(a);
        pq_expr_free(b);
        return NULL;
    }
    e->kids[0] = a;
    e->kids[1] = b;
    e->bound = a->bound && (!b || b->bound);
    return e;
}

pq_expr *pq_expr_and(pq_expr *a, pq_expr *b, pq_error *err)
{
    return combine(PQ_NODE_AND, a, b, err);
}

pq_expr *pq_expr_or(pq_expr *a, pq_expr *b, pq_error *err)
{
    return combine(PQ_NODE_OR, a, b, err);
}

pq_expr *pq_expr_not(pq_expr *a, pq_error *err)
{
    return combine(PQ_NODE_NOT, a, NULL, err);
}

void pq_expr_unbind_node(pq_expr *e)
{
    for (size_t k = 0; k < e->nvalues; k++) free(e->values[k].bytes);
    free(e->values);
    e->values = NULL;
    e->nvalues = 0;
    e->kind = e->written_kind;
    e->op = e->written_op;
    e->leaf = -1;
    e->node_def = 0;
    e->variant_depth = 0;
    e->variant_untyped = false;
    e->variant_by_value = false;
    e->variant_pick = -1;
    e->variant_pick_level = 0;
    e->variant_pick_def = 0;
    e->variant_pick_slot = 0;
    e->variant_pick_base = 0;
    for (int k = 0; k < 4; k++) e->bbox_cover[k] = -1;
    e->bbox_cover_x = false;
    e->bound = false;
}

void pq_expr_free(pq_expr *e)
{
    if (!e) return;
    pq_expr_free(e->kids[0]);
    pq_expr_free(e->kids[1]);
    pq_expr_unbind_node(e);
    for (size_t k = 0; k < e->nlits; k++) free((char *)e->lits[k].text);
    free(e->lits);
    free(e->lit_pos);
    free(e->column);
    free(e);
}

/* ---------------------------------------------------------------------------
 * Clone
 * ------------------------------------------------------------------------- */

static pq_status clone_values(pq_expr *c, const pq_expr *e, pq_error *err)
{
    if (!e->nvalues) return PQ_OK;
    c->values = calloc(e->nvalues, sizeof *c->values);
    if (!c->values) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory copying a predicate");
    for (size_t k = 0; k < e->nvalues; k++) {
        c->values[k] = e->values[k];
        c->values[k].bytes = NULL;
        c->nvalues = k + 1;
        if (!e->values[k].bytes) continue;
        c->values[k].bytes = malloc(e->values[k].len ? e->values[k].len : 1);
        if (!c->values[k].bytes)
            return pq_error_set(err, PQ_ERR_NOMEM, "out of memory copying a predicate");
        if (e->values[k].len) memcpy(c->values[k].bytes, e->values[k].bytes, e->values[k].len);
    }
    return PQ_OK;
}

pq_expr *pq_expr_clone(const pq_expr *e, pq_error *err)
{
    if (!e) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_expr_clone: NULL expression");
        return NULL;
    }
    pq_expr *c = NULL;
    if (e->column) {
        c = leaf_new(e->written_kind, e->column, e->lits, e->nlits, err);
        if (!c) return NULL;
        if (e->nlits) memcpy(c->lit_pos, e->lit_pos, e->nlits * sizeof *c->lit_pos);
    } else {
        pq_expr *a = NULL, *b = NULL;
        if (e->kids[0] && !(a = pq_expr_clone(e->kids[0], err))) return NULL;
        if (e->kids[1] && !(b = pq_expr_clone(e->kids[1], err))) {
            pq_expr_free(a);
            return NULL;
        }
        if (!(c = node_new(e->written_kind, err))) {
            pq_expr_free(a);
            pq_expr_free(b);
            return NULL;
        }
        c->kids[0] = a;
        c->kids[1] = b;
    }
    /* Everything scalar as it is, then the owned parts. */
    pq_expr keep = *c;
    *c = *e;
    c->column = keep.column;
    c->lits = keep.lits;
    c->lit_pos = keep.lit_pos;
    c->nlits = keep.nlits;
    c->kids[0] = keep.kids[0];
    c->kids[1] = keep.kids[1];
    c->values = NULL;
    c->nvalues = 0;
    if (clone_values(c, e, err) != PQ_OK) {
        pq_expr_free(c);
        return NULL;
    }
    return c;
}

/* ---------------------------------------------------------------------------
 * Order of bound values
 * ------------------------------------------------------------------------- */

static int bytes_cmp(const pq_value *a, const pq_value *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->bytes, b->bytes, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* Byte k (0 = most significant) of `v` sign-extended to `width` bytes. */
static inline uint8_t be_byte(const pq_value *v, size_t width, size_t k)
{
    size_t pad = width - v->len;
    if (k >= pad) return v->bytes[k - pad];
    return v->len && (v->bytes[0] & 0x80) ? 0xff : 0x00;
}

static int decimal_bytes_cmp(const pq_value *a, const pq_value *b)
{
    bool na = a->len && (a->bytes[0] & 0x80), nb = b->len && (b->bytes[0] & 0x80);
    if (na != nb) return na ? -1 : 1;
    size_t width = a->len > b->len ? a->len : b->len;
    for (size_t k = 0; k < width; k++) {
        uint8_t x = be_byte(a, width, k), y = be_byte(b, width, k);
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

int pq_value_compare(const pq_expr *leaf_node, const pq_value *a, const pq_value *b)
{
    switch (leaf_node->order) {
    case PQ_ORDER_UNSIGNED: {
        uint64_t x = (uint64_t)a->i, y = (uint64_t)b->i;
        return x < y ? -1 : x > y;
    }
    case PQ_ORDER_FLOAT:
        if (isnan(a->d) || isnan(b->d)) return isnan(a->d) - isnan(b->d) ? (isnan(a->d) ? 1 : -1) : 0;
        return a->d < b->d ? -1 : a->d > b->d;
    case PQ_ORDER_BYTES: return bytes_cmp(a, b);
    case PQ_ORDER_DECIMAL_BYTES: return decimal_bytes_cmp(a, b);
    default: return a->i < b->i ? -1 : a->i > b->i;
    }
}

/* ---------------------------------------------------------------------------
 * Columns read
 * ------------------------------------------------------------------------- */

/* The leaf of every column node into out (when not NULL); returns the
 * count. covering: a BBOX node's GeoParquet covering leaves too. */
static size_t gather(const pq_expr *e, uint32_t *out, bool covering)
{
    if (!e) return 0;
    if (pq_node_is_leaf(e)) {
        if (e->leaf < 0) return 0;
        size_t n = 0;
        if (out) out[n] = (uint32_t)e->leaf;
        n++;
        if (covering && e->kind == PQ_NODE_BBOX && e->bbox_cover[0] >= 0)
            for (int k = 0; k < 4; k++) {
                if (out) out[n] = (uint32_t)e->bbox_cover[k];
                n++;
            }
        if (e->variant_depth) { /* the residual values and the metadata are read too */
            if (out) out[n] = (uint32_t)e->variant_meta;
            n++;
            for (size_t k = 0; k <= e->variant_depth; k++) {
                if (e->variant_residual[k] < 0) continue;
                if (out) out[n] = (uint32_t)e->variant_residual[k];
                n++;
            }
        }
        return n;
    }
    size_t n = gather(e->kids[0], out, covering);
    return n + gather(e->kids[1], out ? out + n : NULL, covering);
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static size_t columns(const pq_expr *e, uint32_t *out, size_t cap, bool covering)
{
    if (!e || !e->bound) return 0;
    size_t nodes = gather(e, NULL, covering);
    if (!nodes) return 0;
    uint32_t *all = malloc(nodes * sizeof *all);
    if (!all) return 0;
    gather(e, all, covering);
    qsort(all, nodes, sizeof *all, u32_cmp);
    size_t n = 0;
    for (size_t k = 0; k < nodes; k++)
        if (n == 0 || all[n - 1] != all[k]) all[n++] = all[k];
    if (out && cap) memcpy(out, all, (n < cap ? n : cap) * sizeof *out);
    free(all);
    return n;
}

size_t pq_expr_columns(const pq_expr *e, uint32_t *out, size_t cap)
{
    return columns(e, out, cap, false);
}

size_t pq_expr_index_columns(const pq_expr *e, uint32_t *out, size_t cap)
{
    return columns(e, out, cap, true);
}

size_t pq_expr_pick_slots(const pq_expr *e)
{
    if (!e) return 0;
    size_t a = pq_expr_pick_slots(e->kids[0]), b = pq_expr_pick_slots(e->kids[1]);
    size_t n = a > b ? a : b;
    return pq_node_is_leaf(e) && e->variant_pick >= 0 && e->variant_pick_slot > n ? e->variant_pick_slot : n;
}

/* ---------------------------------------------------------------------------
 * Formatting
 * ------------------------------------------------------------------------- */

typedef struct out_buf {
    char *buf;
    size_t cap;
    size_t len;
} out_buf;

static void put(out_buf *o, const char *s, size_t n)
{
    if (o->len < o->cap) {
        size_t room = o->cap - o->len, k = n < room ? n : room;
        memcpy(o->buf + o->len, s, k);
    }
    o->len += n;
}

static void puts_(out_buf *o, const char *s)
{
    put(o, s, strlen(s));
}

static void put_quoted(out_buf *o, char q, const char *s, size_t n)
{
    put(o, &q, 1);
    for (size_t k = 0; k < n; k++) {
        put(o, s + k, 1);
        if (s[k] == q) put(o, &q, 1);
    }
    put(o, &q, 1);
}

static bool is_keyword(const char *s, size_t n)
{
    static const char *const kw[] = {"and", "or", "not", "in", "is", "null", "true", "false"};
    for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
        if (strlen(kw[k]) == n && strncasecmp(kw[k], s, n) == 0) return true;
    return false;
}

static bool ident_char(unsigned char c, bool first)
{
    if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80) return true;
    return !first && ((c >= '0' && c <= '9') || c == '.');
}

static void put_column(out_buf *o, const char *col)
{
    size_t n = strlen(col);
    bool bare = n > 0 && !is_keyword(col, n);
    for (size_t k = 0; k < n && bare; k++) {
        if (k > 0 && col[k] == '[') { /* an array step "[digits]", as the parser takes it bare */
            size_t d = k + 1;
            while (col[d] >= '0' && col[d] <= '9') d++;
            bare = d > k + 1 && col[d] == ']';
            k = d;
            continue;
        }
        bare = ident_char((unsigned char)col[k], k == 0);
    }
    if (bare) put(o, col, n);
    else put_quoted(o, '"', col, n);
}

static void put_double(out_buf *o, double d, bool as_float)
{
    char tmp[40];
    if (isinf(d) || (d == 0 && signbit(d))) { /* forms that read back as such */
        puts_(o, d == 0 ? "-0.0" : d < 0 ? "-1e999" : "1e999");
        return;
    }
    size_t n = as_float ? pq_format_float((float)d, tmp, sizeof tmp) : pq_format_double(d, tmp, sizeof tmp);
    put(o, tmp, n < sizeof tmp ? n : sizeof tmp - 1);
}

static void put_literal(out_buf *o, const pq_literal *l)
{
    char tmp[32];
    switch (l->kind) {
    case PQ_LIT_BOOL: puts_(o, l->b ? "true" : "false"); break;
    case PQ_LIT_INT:
        snprintf(tmp, sizeof tmp, "%" PRId64, l->i);
        puts_(o, tmp);
        break;
    case PQ_LIT_DOUBLE:
        if (l->text) put(o, l->text, l->text_len);
        else put_double(o, l->d, false);
        break;
    default: put_quoted(o, '\'', l->text, l->text_len); break;
    }
}

static int unit_digits(int unit)
{
    return unit == PQ_UNIT_SECONDS ? 0 : unit == PQ_UNIT_MILLIS ? 3 : unit == PQ_UNIT_MICROS ? 6 : 9;
}

static void put_text_fn(out_buf *o, size_t n, const char *tmp, size_t cap, bool quote)
{
    if (n >= cap) n = cap - 1;
    if (quote) put_quoted(o, '\'', tmp, n);
    else put(o, tmp, n);
}

/* An INT32/INT64 value as its logical type reads. */
static void put_int_value(out_buf *o, const pq_expr *e, int64_t v)
{
    char tmp[PQ_FORMAT_DECIMAL_MAX];
    const pq_logical_type *lt = &e->logical;
    size_t n;
    switch (lt->kind) {
    case PQ_LOGICAL_DATE: put_text_fn(o, pq_format_date(v, tmp, sizeof tmp), tmp, sizeof tmp, true); return;
    case PQ_LOGICAL_TIME:
        put_text_fn(o, pq_format_time(v, unit_digits(lt->unit), tmp, sizeof tmp), tmp, sizeof tmp, true);
        return;
    case PQ_LOGICAL_TIMESTAMP:
        n = pq_format_timestamp(v, unit_digits(lt->unit), lt->is_adjusted_to_utc, tmp, sizeof tmp);
        put_text_fn(o, n, tmp, sizeof tmp, true);
        return;
    case PQ_LOGICAL_DECIMAL: {
        uint8_t be[8];
        for (int k = 0; k < 8; k++) be[k] = (uint8_t)((uint64_t)v >> (56 - 8 * k));
        put_text_fn(o, pq_format_decimal(be, 8, lt->scale, tmp, sizeof tmp), tmp, sizeof tmp, false);
        return;
    }
    default: break;
    }
    if (e->order == PQ_ORDER_UNSIGNED) snprintf(tmp, sizeof tmp, "%" PRIu64, (uint64_t)v);
    else snprintf(tmp, sizeof tmp, "%" PRId64, v);
    puts_(o, tmp);
}

static void put_value(out_buf *o, const pq_expr *e, const pq_value *v)
{
    char tmp[PQ_FORMAT_DECIMAL_MAX];
    switch (e->physical_type) {
    case PQ_BOOLEAN: puts_(o, v->i ? "true" : "false"); return;
    case PQ_INT32:
    case PQ_INT64:
    case PQ_INT96: put_int_value(o, e, v->i); return; /* INT96: a timestamp of its bound unit */
    case PQ_FLOAT: put_double(o, v->d, true); return;
    case PQ_DOUBLE: put_double(o, v->d, false); return;
    default: break;
    }
    if (e->order == PQ_ORDER_DECIMAL_BYTES && v->len >= 1 && v->len <= 64) {
        size_t n = pq_format_decimal(v->bytes, v->len, e->logical.scale, tmp, sizeof tmp);
        put_text_fn(o, n, tmp, sizeof tmp, false);
        return;
    }
    put_quoted(o, '\'', (const char *)v->bytes, v->len);
}

static const char *const op_text[] = {"=", "!=", "<", "<=", ">", ">="};

static void put_leaf(out_buf *o, const pq_expr *e)
{
    if (e->kind == PQ_NODE_BBOX) {
        puts_(o, "bbox_intersects(");
        put_column(o, e->column);
        for (size_t k = 0; k < e->nlits; k++) {
            puts_(o, ", ");
            put_double(o, e->lits[k].d, false);
        }
        put(o, ")", 1);
        return;
    }
    put_column(o, e->column);
    size_t n = e->bound ? e->nvalues : e->nlits;
    if (e->kind == PQ_NODE_IS_NULL) {
        puts_(o, e->is_null ? " is null" : " is not null");
        return;
    }
    if (e->kind == PQ_NODE_CMP) {
        put(o, " ", 1);
        puts_(o, op_text[e->op]);
        put(o, " ", 1);
    } else {
        puts_(o, " in (");
    }
    for (size_t k = 0; k < n; k++) {
        if (k) puts_(o, ", ");
        if (e->bound) put_value(o, e, &e->values[k]);
        else put_literal(o, &e->lits[k]);
    }
    if (e->kind == PQ_NODE_IN) put(o, ")", 1);
}

/* Binding strength, loosest first: the parser reads OR < AND < NOT < a leaf. */
static int expr_prec(const pq_expr *e)
{
    switch (e->kind) {
    case PQ_NODE_OR: return 1;
    case PQ_NODE_AND: return 2;
    case PQ_NODE_NOT: return 3;
    default: return 4;
    }
}

/*
 * Print e with parentheses only where the grammar needs them (an OR under an
 * AND, an AND or OR under a NOT). Every parenthesis printed stands for one
 * the parsed text had on the same path, and every `not` for a `not`, so the
 * text nests no deeper than the text it came from and always parses again
 * under the parser's depth limit. Chains of one kind print flat; the parser
 * balances them again, so format(parse(format(e))) == format(e).
 */
static void put_expr(out_buf *o, const pq_expr *e, int min_prec)
{
    const bool paren = expr_prec(e) < min_prec;
    if (paren) put(o, "(", 1);
    switch (e->kind) {
    case PQ_NODE_CONST: puts_(o, e->truth ? "true" : "false"); break;
    case PQ_NODE_AND:
    case PQ_NODE_OR:
        put_expr(o, e->kids[0], expr_prec(e));
        puts_(o, e->kind == PQ_NODE_AND ? " and " : " or ");
        put_expr(o, e->kids[1], expr_prec(e));
        break;
    case PQ_NODE_NOT:
        puts_(o, "not ");
        put_expr(o, e->kids[0], expr_prec(e));
        break;
    default: put_leaf(o, e); break;
    }
    if (paren) put(o, ")", 1);
}

size_t pq_expr_format(const pq_expr *e, char *buf, size_t cap)
{
    out_buf o = {buf, cap, 0};
    if (e) put_expr(&o, e, 0);
    if (cap) buf[o.len < cap ? o.len : cap - 1] = '\0';
    return o.len;
}
