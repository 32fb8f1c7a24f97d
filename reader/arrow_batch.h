/*
 * arrow_batch.h — decoded flat columns as Arrow C Data Interface arrays.
 *
 * The decode stage turns each chunk's levels and values (pq_column_values)
 * into a pq_arrow_column: the Arrow buffers of one flat column, reference
 * counted. Exporting a record batch hands out ArrowArray structs that each
 * hold a reference, so a batch outlives the reader that made it and one
 * column may be exported any number of times without copying.
 */
#ifndef PQ_READER_ARROW_BATCH_H
#define PQ_READER_ARROW_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/assemble.h"
#include "pages/page_values.h"
#include "pq_arrow.h"

typedef struct pq_arrow_column pq_arrow_column;

/* Build the Arrow buffers of flat leaf `leaf` (max_rep 0) from `v`, laid out
 * for the leaf's Arrow type. May take buffers out of `v` (they are then NULL
 * there); the caller still frees `v`. On success *out holds one reference.
 * Errors: PQ_ERR_UNSUPPORTED (a type with no layout here, naming the column),
 * PQ_ERR_CORRUPT_DATA (counts that do not add up), PQ_ERR_NOMEM. */
pq_status pq_arrow_column_build(const pq_leaf *leaf, pq_column_values *v, pq_arrow_column **out,
                                pq_error *err);

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

/* Build the Arrow array of top-level field node `field` (a child of the
 * schema root) from its selected leaves `leaves` (n of them, in file order,
 * no repeats) and their decoded chunks `vals` (same order): structs, lists
 * and maps as pq_metadata_arrow_schema types them, num_rows slots. Takes
 * buffers out of `vals` as pq_arrow_column_build does; the caller still
 * frees them. Errors: PQ_ERR_CORRUPT_DATA (levels that do not assemble,
 * leaves that disagree on a shared struct or list), PQ_ERR_SCHEMA,
 * PQ_ERR_UNSUPPORTED, PQ_ERR_NOMEM. */
pq_status pq_arrow_nested_build(const pq_schema *schema, int32_t field, const pq_leaf *const *leaves,
                                pq_column_values *vals, size_t n, int64_t num_rows, pq_arrow_column **out,
                                pq_error *err);

/* The Arrow levels (kernels/assemble.h) of leaf `leaf` under top-level
 * field node `field`, outermost first, the leaf's last: those
 * pq_arrow_nested_build assembles the leaf by. `levels` (and `keys`,
 * which may be NULL) have room for PQ_ASM_MAX_LEVELS; *n_levels gets the
 * count, keys[k] the schema node level k stands for (leaves of a field
 * share the levels whose keys are equal). PQ_ERR_SCHEMA for a path that
 * does not assemble. */
pq_status pq_arrow_leaf_levels(const pq_schema *schema, int32_t field, const pq_leaf *leaf, pq_asm_level *levels,
                               int64_t *keys, size_t *n_levels, pq_error *err);

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

/* The rows [offset, offset + length) of c whose bit is set in `keep`
 * (`length` bits), copied into a new column (one reference in *out): the
 * filter's output. Nested columns keep their kept rows' children. Errors:
 * PQ_ERR_INVALID_ARGUMENT (rows out of the column), PQ_ERR_NOMEM. */
pq_status pq_arrow_column_take(const pq_arrow_column *c, int64_t offset, int64_t length, const uint8_t *keep,
                               pq_arrow_column **out, pq_error *err);

/* Bytes of the column's Arrow buffers, its children's included. */
uint64_t pq_arrow_column_bytes(const pq_arrow_column *c);

/* Export `n` columns as a struct array ("+s", no nulls) of `length` rows:
 * child i is rows [offsets[i], offsets[i] + length) of column i (offsets
 * NULL: all from row 0), a slice that shares the buffers through the Arrow
 * offset. Each child holds its own reference, so any child may be moved out
 * and released on its own. The caller owns *out and calls out->release.
 * PQ_ERR_INVALID_ARGUMENT when a slice is out of a column's rows. On
 * failure *out has release == NULL. */
pq_status pq_arrow_batch_export(pq_arrow_column *const *cols, const int64_t *offsets, size_t n,
                                int64_t length, struct ArrowArray *out, pq_error *err);

/* The schema for such a batch: "+s" with one field per leaf in `columns`,
 * in that order (duplicates repeat), each as pq_metadata_arrow_schema types
 * it. The caller owns *out. On failure *out has release == NULL. */
pq_status pq_arrow_batch_schema(const pq_metadata *md, const uint32_t *columns, size_t n,
                                struct ArrowSchema *out, pq_error *err);

/* The same with each field the leaf's own (a leaf under structs is not
 * wrapped in them): the schema of flat columns built from nested leaves,
 * as the filter evaluates them. */
pq_status pq_arrow_leaf_schema(const pq_metadata *md, const uint32_t *columns, size_t n, struct ArrowSchema *out,
                               pq_error *err);

#endif
