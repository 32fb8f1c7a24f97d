/*
 * predicate_eval.h — a bound predicate (metadata/predicate.h) evaluated on
 * rows: decoded flat Arrow arrays in, one selection bit per row out.
 *
 * Semantics are SQL's three-valued logic: a comparison with a null value is
 * unknown, NOT unknown is unknown, false AND unknown is false, true OR
 * unknown is true; a row is selected only when the predicate is true.
 * Floats follow IEEE 754 as pyarrow.compute does: a NaN value makes =, <,
 * <=, >, >= and IN false and != true (so NOT (x < 1) keeps NaN rows);
 * -0.0 equals 0.0.
 */
#ifndef PQ_PREDICATE_PREDICATE_EVAL_H
#define PQ_PREDICATE_PREDICATE_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "predicate/predicate.h"
#include "pq_arrow.h"

/* How a flat Arrow array's slots are read (pq_arrow_slot_kind). */
typedef enum pq_slot_kind {
    PQ_SLOT_NULL,   /* n: every slot null */
    PQ_SLOT_BOOL,
    PQ_SLOT_INT,    /* signed, `width` bytes */
    PQ_SLOT_UINT,
    PQ_SLOT_F32,
    PQ_SLOT_F64,
    PQ_SLOT_BIN32,  /* int32 offsets + data */
    PQ_SLOT_BIN64,  /* int64 offsets + data */
    PQ_SLOT_VIEW,   /* 16-byte views into variadic data buffers (string_view, binary_view) */
    PQ_SLOT_FIXED,  /* `width` bytes per slot */
    PQ_SLOT_DEC     /* decimal64 / decimal128 / decimal256: `width` bytes LE two's complement */
} pq_slot_kind;

/* The slot kind and width of Arrow format `f`, for the formats listed
 * below (the CPU evaluator and the predicate kernel's compiler read
 * columns this way); false for any other format. */
bool pq_arrow_slot_kind(const char *f, pq_slot_kind *kind, int *width);

/* Whether the column of bound leaf node e can be read from slots of `kind`
 * with Arrow format `f` (the CPU evaluator and the predicate kernel's
 * compiler agree on it): an INT96 column only as signed 64-bit timestamps
 * of the unit it was bound in (pq_expr_bind_int96). */
bool pq_slot_kind_fits(pq_slot_kind kind, const char *f, const pq_expr *e);

/* Evaluate `e` (bound) on `length` rows. columns[leaf] / schemas[leaf] are
 * the flat Arrow array and its schema for leaf `leaf` as pqstep exports
 * them (any Arrow offset is honoured; the array must hold at least `length`
 * slots); entries for leaves the predicate does not read may be NULL.
 * Formats: b c C s S i I l L f g u z U Z vu vz w:N d:P,S[,128|,256] tdD tts ttm
 * ttu ttn ts?:tz, n (all null) and e (float16, for IS [NOT] NULL).
 * A column may also be an Arrow dictionary array (int32 indices, format
 * "i", with its dictionary in one of those formats): each leaf of the
 * predicate on it is then evaluated once per dictionary entry and mapped
 * over the indices, which is how the reader evaluates dictionary-encoded
 * chunks without gathering their values.
 * A path through an array the writer shredded reads the leaves below it
 * at columns[leaf + variant_pick_base] (predicate.h): the arrays then hold
 * (1 + pq_expr_pick_slots(e)) * leaves entries.
 * row_defs[leaf] (may be NULL when the predicate tests no group) holds, for
 * each row, the definition level of leaf `leaf` at the row's first entry:
 * IS [NOT] NULL on a group (node_def > 0) reads it instead of the column.
 * keep_bits receives (length + 7) / 8
 * bytes: bit i (LSB first) set when row i is selected; the bits past
 * `length` are zero. Errors: PQ_ERR_INVALID_ARGUMENT (unbound predicate, a
 * missing column, an array that does not fit the bound column's type or is
 * too short), PQ_ERR_UNSUPPORTED (another format), PQ_ERR_NOMEM. */
pq_status pq_predicate_eval(const pq_expr *e, const struct ArrowArray *const *columns,
                            const struct ArrowSchema *const *schemas, const int16_t *const *row_defs,
                            int64_t length, uint8_t *keep_bits, pq_error *err);

#endif
