/*
 * predicate.h — the inside of a pq_expr (pq_predicate.h), shared by the
 * predicate layer (predicate/: parser, binder, statistics judge, row
 * evaluation) and the reader's pruning steps that use bound predicates
 * (dictionaries, bloom filters, the page index).
 *
 * After pq_expr_bind every leaf node names its column by leaf index and
 * holds its literals as pq_value in the column's physical domain, and the
 * binder has rewritten what the column cannot represent into exact forms:
 * `x = 1.5` on an integer column becomes PQ_NODE_CONST false, `x < 1.5`
 * becomes `x <= 1`, `x != 1.5` becomes `x IS NOT NULL`, an out-of-range
 * literal turns its comparison into a constant or IS NOT NULL.
 */
#ifndef PQ_PREDICATE_PREDICATE_H
#define PQ_PREDICATE_PREDICATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_predicate.h"

/* Names a filter may go into a shredded VARIANT (v.a.b...). */
#define PQ_VARIANT_PATH_MAX 16

typedef enum pq_node_kind {
    PQ_NODE_CMP = 0,     /* column op value */
    PQ_NODE_IN,          /* column IN (values...) */
    PQ_NODE_IS_NULL,     /* column IS NULL (is_null) / IS NOT NULL (!is_null) */
    PQ_NODE_AND,
    PQ_NODE_OR,
    PQ_NODE_NOT,
    PQ_NODE_CONST,       /* a constant truth value (never null): TRUE/FALSE in the
                            text, or what the binder rewrote a comparison into */
    PQ_NODE_BBOX         /* bbox_intersects(column, xmin, ymin, xmax, ymax): the WKB
                            value's envelope meets the box; lits[0..3] are the box as
                            PQ_LIT_DOUBLE (xmin > xmax: a box across the antimeridian) */
} pq_node_kind;

/* Whether node e names a column (CMP, IN, IS_NULL, BBOX). */
static inline bool pq_node_is_leaf(const pq_expr *e);

/* How pq_value_compare orders the values of a bound column. */
typedef enum pq_value_order {
    PQ_ORDER_SIGNED = 0,    /* i as int64: signed integers, DATE, TIME, TIMESTAMP,
                               DECIMAL on INT32/INT64, BOOLEAN (0 < 1) */
    PQ_ORDER_UNSIGNED,      /* i as uint64: unsigned integers (zero-extended) */
    PQ_ORDER_FLOAT,         /* d: FLOAT, DOUBLE */
    PQ_ORDER_BYTES,         /* bytes, unsigned lexicographic */
    PQ_ORDER_DECIMAL_BYTES  /* bytes as a big-endian two's complement integer
                               of any length: DECIMAL on (FIXED_LEN_)BYTE_ARRAY */
} pq_value_order;

/* A literal typed for its column (bound), in the column's physical domain:
 *   BOOLEAN                          i (0 or 1)
 *   INT32, INT64 (any logical type:  i, the stored value: days for DATE,
 *     integers, DATE, TIME,            ticks of the column's unit for TIME
 *     TIMESTAMP, DECIMAL)              and TIMESTAMP, the unscaled integer
 *                                      for DECIMAL; unsigned columns hold
 *                                      the unsigned value in i's bits
 *   FLOAT, DOUBLE                    d (a FLOAT literal is rounded to float)
 *   BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY bytes/len: the bytes as stored (UTF-8
 *                                      for strings; big-endian two's
 *                                      complement of the column's width for
 *                                      DECIMAL, the shortest such form for
 *                                      BYTE_ARRAY DECIMAL; FLBA: exactly
 *                                      type_length)
 *   INT96                            i, as a TIMESTAMP of the bind's INT96 unit
 *                                      (pq_expr_bind_int96): the value the reader
 *                                      delivers; e->logical says the unit
 * Values are never null (`x = NULL` is not in the syntax). */
typedef struct pq_value {
    int64_t i;
    double d;
    uint8_t *bytes;  /* owned by the node */
    size_t len;
} pq_value;

struct pq_expr {
    pq_node_kind kind;     /* after binding, what the binder rewrote the node into */
    pq_node_kind written_kind; /* the kind as built/parsed: rebinding starts from it */
    /* leaf nodes (CMP, IN, IS_NULL) */
    char *column;        /* as written (owned) */
    size_t pos;          /* byte position in the parsed text, or SIZE_MAX when built */
    int32_t leaf;        /* bound: the leaf index; -1 before binding */
    int32_t physical_type; /* bound: the leaf's physical type */
    pq_cmp_op op;        /* CMP (bound: possibly adjusted, `x < 1.5` -> LE) */
    pq_cmp_op written_op;/* CMP: the operator as written */
    uint8_t order;       /* bound: pq_value_order of the column */
    int32_t type_length; /* bound: the leaf's type_length (FLBA) */
    pq_logical_type logical; /* bound: the leaf's logical type (units, scale) */
    bool is_null;        /* IS_NULL: true for IS NULL, false for IS NOT NULL */
    int16_t node_def;    /* bound IS_NULL on a group (struct, list, map): the definition
                          * level at which the group is present; `leaf` is its first leaf,
                          * and a row's group is null when that leaf's definition level at
                          * the row's first entry is below node_def. 0: the leaf itself */
    bool truth;          /* CONST */
    /* bound BBOX on a GeoParquet geometry column with a bbox covering
     * (the file's "geo" metadata, GeoParquet 1.1): the leaves of its
     * xmin, ymin, xmax, ymax (FLOAT or DOUBLE, one a row), whose
     * statistics prune row groups; -1 where there is none.
     * bbox_cover_x: the x bounds may be used (planar edges: a row's
     * xmin <= xmax; a spherical column's boxes may wrap the antimeridian) */
    int32_t bbox_cover[4];
    bool bbox_cover_x;
    /* literals as written (CMP: 1, IN: n), with their positions */
    pq_literal *lits;    /* text copied and owned */
    size_t *lit_pos;
    size_t nlits;
    /* bound values, same count as lits (IN: duplicates removed, sorted) */
    pq_value *values;
    size_t nvalues;
    /* AND, OR: two children; NOT: one */
    pq_expr *kids[2];
    bool bound;
    /* Bound CMP or IN on a path inside a shredded VARIANT (`v.a.b`): `leaf`
     * is the path's typed_value leaf; a row whose typed value is null may
     * still hold the value in the residual `value` of a group on the way
     * (v.value, v.typed_value.a.value, ...): variant_residual[k] is the
     * `value` leaf of the path's k-th group (0: the variant itself; -1
     * where the group has none), variant_meta the variant's metadata leaf.
     * The path's steps (`.name` or `[N]`, variant_depth of them) start at
     * column[variant_path_at], after the VARIANT column's name. variant_depth 0: not a variant path.
     *
     * variant_untyped: the path leaves what the writer shredded (a field
     * not shredded, an index into an array held in a residual value, or a
     * column not shredded at all) after the steps it shredded, so no
     * typed leaf holds it: `leaf` is then variant_meta, residuals deeper
     * than those steps are -1, and no values are bound: each row's
     * value, found in the residuals, is compared with the literals as
     * written by its own variant type (by value). Nothing about the chunk
     * prunes such a node.
     *
     * variant_by_value: a shredded path whose literals the typed leaf
     * cannot hold exactly (`v.a = 1.5` on integers, `v.a = 'x'`): kind and
     * op stay as written, no values are bound, and the typed leaf's rows
     * are compared by value as residual ones are; nothing prunes it.
     * Otherwise a residual value of the typed leaf's type is compared as
     * the leaf's are, and one of another type by value. */
    uint8_t variant_depth;
    bool variant_untyped;
    bool variant_by_value;
    /* A path through one array the writer shredded (`v.l[2].x`, its
     * elements in repeated columns): variant_pick is the index (-1: none),
     * variant_pick_level the step it is, variant_pick_def the definition
     * level at which an element is present. The leaves below that step
     * (the typed leaf, the residuals deeper than it) are read as the
     * element at that index of each row's list, a flat column of the
     * row's element (null where the list is null, empty or shorter);
     * nothing prunes such a node. The evaluator finds those columns at
     * index leaf + variant_pick_base, variant_pick_slot * (the schema's
     * leaves): the binder numbers the tree's distinct indexes from 1
     * (pq_expr_pick_slots). */
    int64_t variant_pick;
    uint8_t variant_pick_level;
    int16_t variant_pick_def;
    uint32_t variant_pick_slot;
    size_t variant_pick_base;
    size_t variant_path_at;
    int32_t variant_meta;
    int32_t variant_residual[PQ_VARIANT_PATH_MAX + 1];
};

static inline bool pq_node_is_leaf(const pq_expr *e)
{
    return e->kind == PQ_NODE_CMP || e->kind == PQ_NODE_IN || e->kind == PQ_NODE_IS_NULL || e->kind == PQ_NODE_BBOX;
}

/* Order of two values of the same bound column, as the Parquet sort order
 * for the column's logical type defines it (signed or unsigned integers,
 * floats by value, byte arrays unsigned lexicographically, decimals by
 * value): <0, 0, >0. NaN compares above everything here; callers handle
 * NaN themselves. */
int pq_value_compare(const pq_expr *leaf_node, const pq_value *a, const pq_value *b);

/* Length of the number at the start of s[0..n): [+-]digits[.digits][e[+-]digits]
 * (digits on at least one side of the point); 0 when there is none.
 * *is_integer: no point and no exponent. Shared by the parser and builders. */
size_t pq_scan_number(const char *s, size_t n, bool *is_integer);

/* How many pick slots a bound tree uses (predicate.h: variant_pick_slot):
 * an evaluator's column arrays then hold (1 + that) * leaves entries. */
size_t pq_expr_pick_slots(const pq_expr *e);

/* 'YYYY-MM-DD' at the start of s[0..n) as days since 1970-01-01; false
 * when it is not a valid date. */
bool pq_parse_date(const char *s, size_t n, int64_t *days);

/* pq_expr_bind with INT96 (legacy timestamp) columns typed as timestamps
 * of `int96_unit` (a pq_time_unit, PQ_UNIT_SECONDS included), the unit a
 * reader delivers them in (pq_reader_options.int96_unit); pq_expr_bind
 * binds them as nanoseconds. */
pq_status pq_expr_bind_int96(pq_expr *e, const pq_metadata *md, uint32_t int96_unit, pq_error *err);

/* pq_expr_columns and the leaves of every GeoParquet bbox covering a
 * BBOX node names (bbox_cover): the columns whose page indexes the page
 * pruning step reads, though only pq_expr_columns' are decoded. */
size_t pq_expr_index_columns(const pq_expr *e, uint32_t *out, size_t cap);

/* Free a node's bound values (nvalues entries) and reset it to unbound. */
void pq_expr_unbind_node(pq_expr *e);

#endif
