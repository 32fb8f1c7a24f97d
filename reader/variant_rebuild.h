/*
 * variant_rebuild.h — shredded VARIANT columns rebuilt into the variants
 * they store (VariantShredding.md of parquet-format), as Arrow's canonical
 * extension type arrow.parquet.variant: struct<metadata: binary, value:
 * binary>.
 *
 * A shredded variant is a group of `metadata`, `value` and `typed_value`;
 * typed_value holds what the writer could type: a primitive, an object of
 * fields each a {value, typed_value} group again, or a list of such
 * groups. Each row's variant is rebuilt from both: a primitive from its
 * typed value, an object from the fields left in `value` merged with the
 * shredded ones (sorted by name, as the encoding wants), an array from its
 * elements. The layouts the specification calls invalid are refused with
 * PQ_ERR_CORRUPT_DATA: a value that is not an object beside shredded
 * fields, a value and a typed value both set outside an object; a shredded
 * type that is no variant type (an unsigned integer, a fixed-size binary
 * other than a UUID) is PQ_ERR_UNSUPPORTED. A row with neither value nor
 * typed_value is the variant null, as is a missing array element; a
 * missing object field is left out of its object; a null row (the group
 * itself null) stays null.
 */
#ifndef PQ_READER_VARIANT_REBUILD_H
#define PQ_READER_VARIANT_REBUILD_H

#include <stdbool.h>

#include "pq_arrow.h"
#include "pq_error.h"
#include "pq_metadata.h"

/* Whether schema node `node` is a top-level field that is a shredded
 * VARIANT group (logical type VARIANT, with a `typed_value` child). */
bool pq_variant_node_is_shredded(const pq_schema *schema, int32_t node);

/* The arrow.parquet.variant field named `name` (flags as given: nullable
 * or not): "+s" of a non-nullable binary `metadata` and a nullable binary
 * `value`, with the extension name in its field metadata after the pairs
 * of `metadata` (the stored field's, such as PARQUET:field_id; NULL for
 * none; made by this library, so well formed). */
pq_status pq_variant_field_schema(const char *name, int64_t flags, const char *metadata, struct ArrowSchema *out,
                                  pq_error *err);

/* Rebuild `storage` (a struct array laid out as `schema`: the shredded
 * group's export) into *out, laid out as pq_variant_field_schema's field:
 * its validity kept, each valid row's metadata copied and its value
 * rebuilt. *out is released by its release callback. Errors name the
 * row and the path in the variant ("row 12 (.a.b)"). */
pq_status pq_variant_rebuild(const struct ArrowArray *storage, const struct ArrowSchema *schema,
                             struct ArrowArray *out, pq_error *err);

#endif
