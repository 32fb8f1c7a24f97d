/*
 * empty_fields.h — top-level fields with no leaf: a group whose subtree
 * holds only groups (`nested: struct<inner: struct<>>`). No column chunk
 * stores anything of them, so no level says which rows hold a value:
 * they read as all-null arrays of their type, as pyarrow reads them.
 * A read of every column delivers them in their place among the fields
 * (empty_fields.c).
 */
#ifndef PQ_READER_EMPTY_FIELDS_H
#define PQ_READER_EMPTY_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "pq_arrow.h"
#include "pq_error.h"
#include "pq_metadata.h"

/* The positions among the root's children of the fields with no leaf, in
 * order, into *out (malloc'd, NULL when none; the caller frees) and *n. */
pq_status pq_empty_fields_find(const pq_schema *schema, uint32_t **out, size_t *n, pq_error *err);

/* `sel` (the "+s" schema of the decoded fields, in file order) with the
 * empty fields put in at `pos` (n positions from pq_empty_fields_find),
 * typed as pq_metadata_arrow_schema types them: a new schema in *out,
 * which the caller releases; sel is taken (released on return). */
pq_status pq_empty_fields_schema(const pq_metadata *md, const uint32_t *pos, size_t n, struct ArrowSchema *sel,
                                 struct ArrowSchema *out, pq_error *err);

/* An array of `length` rows, every one null at every level, of the type
 * `field` gives (struct, list, large list, map or null types: what a
 * group with no leaf can be). The caller releases *out. */
pq_status pq_empty_field_array(const struct ArrowSchema *field, int64_t length, struct ArrowArray *out,
                               pq_error *err);

#endif
