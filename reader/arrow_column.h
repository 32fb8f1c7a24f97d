/*
 * arrow_column.h — decoded flat columns as Arrow C Data Interface arrays.
 *
 * The decode stage turns each chunk's levels and values (pq_column_values)
 * into a pq_arrow_column: the Arrow buffers of one flat column, reference
 * counted. Exporting a record batch (arrow_batch.h) hands out ArrowArray
 * structs that each hold a reference, so a batch outlives the reader that
 * made it and one column may be exported any number of times without
 * copying. Nested fields are assembled by arrow_nested.h, a filter's rows
 * taken by arrow_take.h.
 */
#ifndef PQ_READER_ARROW_COLUMN_H
#define PQ_READER_ARROW_COLUMN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pages/page_values.h"
#include "pq_arrow.h"

typedef struct pq_arrow_column pq_arrow_column;

/* Build the Arrow buffers of flat leaf `leaf` (max_rep 0) from `v`, laid out
 * for the leaf's Arrow type. May take buffers out of `v` (they are then NULL
 * there); the caller still frees `v`. On success *out holds one reference.
 * An INT96 timestamp comes out in the unit of leaf->arrow (int96.h).
 * Errors: PQ_ERR_UNSUPPORTED (a type with no layout here, naming the
 * column; a value the type cannot hold, as below), PQ_ERR_CORRUPT_DATA
 * (counts that do not add up), PQ_ERR_NOMEM. */
pq_status pq_arrow_column_build(const pq_leaf *leaf, pq_column_values *v, pq_arrow_column **out,
                                pq_error *err);

/* Whether slot `slot` of a build is delivered to the caller. */
typedef bool (*pq_slot_filter)(const void *user, size_t slot);

/* pq_arrow_column_build, for a caller that names the row itself: where a
 * value cannot be represented in the leaf's type (an INT96 timestamp
 * outside the range of its unit: PQ_ERR_UNSUPPORTED) in a slot `wanted`
 * says is delivered (NULL: every slot), *bad_slot gets the value's slot
 * and the message says what is wrong with the value, naming neither column
 * nor slot; otherwise *bad_slot is SIZE_MAX (such a value in a slot not
 * delivered, cut off by a row range or a filter's take, is built as 0).
 * pq_arrow_column_build names both ("column 'ts' value 3: INT96 timestamp
 * 1500-01-01 00:00:00 is outside the range of timestamp[ns] ..."). */
pq_status pq_arrow_column_build_at(const pq_leaf *leaf, pq_column_values *v, pq_slot_filter wanted, const void *user,
                                   size_t *bad_slot, pq_arrow_column **out, pq_error *err);

/* Build flat string or binary leaf `leaf` as an Arrow dictionary array:
 * int32 indices ("i") with the leaf's validity, and a dictionary of the
 * leaf's type without nulls. When `v` holds dictionary indices
 * (PQ_DECODE_INDICES), the chunk's dictionary is the array's; otherwise
 * each slot gets an entry of its own (a null's is empty), indices 0..n-1,
 * so a chunk that fell back from dictionary encoding still has the type.
 * Takes buffers out of `v` as pq_arrow_column_build does. Errors: those of
 * pq_arrow_column_build; PQ_ERR_UNSUPPORTED past int32 indices. */
pq_status pq_arrow_column_build_dictionary(const pq_leaf *leaf, pq_column_values *v, pq_arrow_column **out,
                                           pq_error *err);

/* Drop one reference; frees with the last. NULL is ignored. Thread-safe. */
void pq_arrow_column_release(pq_arrow_column *c);

/* Take one more reference; returns c. NULL is ignored. Thread-safe. */
pq_arrow_column *pq_arrow_column_retain(pq_arrow_column *c);

/* A column over array *a, which it takes (a->release is NULL after):
 * exporting it hands out a's buffers as they are, wherever they are (a
 * batch in device memory is adopted so); the last reference releases a.
 * nbytes: what pq_arrow_column_bytes reports. Every node's offset must be
 * 0, with at most PQ_COLUMN_MAX_BUFFERS buffers. Such a column is never
 * read here: pq_arrow_column_take refuses it. Errors:
 * PQ_ERR_UNSUPPORTED (a shape not taken), PQ_ERR_NOMEM; a is released on
 * error too. */
pq_status pq_arrow_column_adopt(struct ArrowArray *a, uint64_t nbytes, pq_arrow_column **out, pq_error *err);

/* Whether c was made by pq_arrow_column_adopt. */
bool pq_arrow_column_is_adopted(const pq_arrow_column *c);

/* Rows in the column. */
int64_t pq_arrow_column_length(const pq_arrow_column *c);

/* A dictionary array's dictionary entries, or -1 for another column. */
int64_t pq_arrow_column_dictionary_length(const pq_arrow_column *c);

/* A dictionary array of strings or binaries (int32 indices, int32
 * offsets, no null entries) given a dictionary of its distinct entries, in
 * their first order, its indices remapped: what a chunk that fell back
 * from dictionary encoding needs to fit a narrow index type. Errors:
 * PQ_ERR_INVALID_ARGUMENT (another column), PQ_ERR_NOMEM (c unchanged). */
pq_status pq_arrow_column_dictionary_unique(pq_arrow_column *c, pq_error *err);

/* A dictionary array's int32 indices (as pq_arrow_column_build_dictionary
 * makes them) rewritten `width` bytes each (1, 2 or 8), in a new buffer:
 * the caller checked that the dictionary's entries fit. Errors:
 * PQ_ERR_INVALID_ARGUMENT (another column or width), PQ_ERR_NOMEM. */
pq_status pq_arrow_column_index_width(pq_arrow_column *c, size_t width, pq_error *err);

/* Bytes of the column's Arrow buffers, its children's included. */
uint64_t pq_arrow_column_bytes(const pq_arrow_column *c);

#endif
