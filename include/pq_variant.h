/*
 * pq_variant.h — Parquet VARIANT values (VariantEncoding.md of
 * parquet-format): checked and rendered as JSON; paths into VARIANT
 * columns projected.
 *
 * A variant is two byte strings: the metadata (a version-1 header, then a
 * dictionary of the object field names) and the value (a header byte, then
 * a primitive, a short string, an object of field ids and values, or an
 * array). Both come from untrusted files: every offset and length is
 * checked against the bytes given, nesting is limited to
 * PQ_VARIANT_MAX_DEPTH, and anything the encoding forbids (a version other
 * than 1, a field id outside the dictionary, object fields out of order or
 * repeated, an unknown primitive type) is PQ_ERR_CORRUPT_DATA with a
 * message that says what and at which byte of the value.
 */
#ifndef PQ_VARIANT_H
#define PQ_VARIANT_H

#include <stddef.h>
#include <stdint.h>

#include "pq_arrow.h"
#include "pq_error.h"
#include "pq_metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Objects and arrays nested deeper than this are refused. */
#define PQ_VARIANT_MAX_DEPTH 128

/* The bytes the metadata at `m` occupies (its header, dictionary size,
 * offsets and strings), so that a metadata and a value laid end to end can
 * be split; 0 with *err set when `m` is not variant metadata. */
PQ_API size_t pq_variant_metadata_size(const uint8_t *m, size_t len, pq_error *err);

/* Check a variant (metadata and value) throughout. */
PQ_API pq_status pq_variant_validate(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen, pq_error *err);

/* The variant as JSON text: null, true, false; numbers for the integers,
 * decimals (exact: "12.34", as pq_format_decimal), floats and doubles (as
 * pq_format_double writes them: the shortest text that reads back the
 * same; NaN and infinities as the strings "NaN", "Infinity", "-Infinity");
 * strings for strings, binary (base64), dates
 * ("2025-04-16"), times ("12:33:54.123456"), timestamps (ISO 8601, with
 * "+00:00" for the UTC-adjusted ones, microseconds or nanoseconds as
 * stored) and UUIDs ("f24f9b64-81fa-..."); objects in their stored field
 * order (sorted by name) and arrays. Writes at most `cap` bytes to `out`
 * (NUL-terminated when cap > 0, cut short when it does not fit) and the
 * whole text's length to *len (without the NUL), so a caller can size
 * its buffer. Errors as pq_variant_validate. */
PQ_API pq_status pq_variant_to_json(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen, char *out,
                                    size_t cap, size_t *len, pq_error *err);

/* ---------------------------------------------------------------------------
 * Paths into VARIANT columns: projection
 *
 * A path names a top-level VARIANT column, then steps into its value:
 * ".name" an object's field, "[N]" an array's element (from 0), as in
 * "v.a.b" or "v.items[2].id" (a field name holding '.' or '[' cannot be
 * named). A projection of a path reads only the leaf columns
 * pq_variant_path_leaves names and rebuilds only the path's value
 * (pq_variant_path_extract), so a path the writer shredded reads its
 * shredded columns alone.
 * ------------------------------------------------------------------------- */

/* The leaf columns (indexes, ascending) a projection of `path` reads: the
 * column's metadata, the residual `value` column of each shredded group on
 * the way (a step the writer did not shred is found there), and every leaf
 * of the group where the shredding of the path ends, when it ends at the
 * path's end. Writes at most `cap` indexes into `leaves` and their number
 * to *n (call with cap 0 to size). PQ_ERR_INVALID_ARGUMENT when `path` is
 * no path into a top-level VARIANT column of md or a step is malformed. */
PQ_API pq_status pq_variant_path_leaves(const pq_metadata *md, const char *path, uint32_t *leaves, size_t cap,
                                        size_t *n, pq_error *err);

/* The value at `path` of every row of `storage`, a VARIANT column read as
 * stored (whole, or in part as pq_variant_path_leaves names; for example a
 * reader's batch field with pq_reader_options.variant_storage, or a
 * partly selected VARIANT group), whose schema's name is the path's first
 * part. *out: an arrow.parquet.variant array (struct<metadata: binary,
 * value: binary>) of the same length, *out_schema its field (named `path`,
 * nullable, with the extension's metadata); a row is null where the row is
 * null or the path leads nowhere (a missing field, an index past the end,
 * a step into a primitive); a value that is the variant null stays one.
 * Invalid shredding is refused as by the reader (PQ_ERR_CORRUPT_DATA with
 * the row). The caller releases both. */
PQ_API pq_status pq_variant_path_extract(const struct ArrowArray *storage, const struct ArrowSchema *schema,
                                         const char *path, struct ArrowArray *out, struct ArrowSchema *out_schema,
                                         pq_error *err);

/* A batch of top-level fields (a struct array, as a reader or dataset
 * scan gives: `schema` its struct schema, borrowed) with the paths into
 * its VARIANT columns projected: each VARIANT column some of `paths`
 * step into is replaced, in its place, by one column a path
 * (pq_variant_path_extract, in the order the paths come), and kept
 * before them only when `keep` names it (a column whose own leaves were
 * asked for too); other fields pass as they are. The batch must have been
 * read with every leaf pq_variant_path_leaves names for its paths.
 * *out takes `batch` over (its release is set to NULL) and releases it
 * when released itself. Errors: PQ_ERR_INVALID_ARGUMENT (no struct, the
 * batch and schema disagree, a path into no field of the batch), what
 * pq_variant_path_extract refuses; `batch` is released on error too
 * (for a schema's check, `schema` must have its release set). */
PQ_API pq_status pq_variant_project_batch(struct ArrowArray *batch, const struct ArrowSchema *schema,
                                          const char *const *paths, size_t npaths, const char *const *keep,
                                          size_t nkeep, struct ArrowArray *out, pq_error *err);

/* The schema of such batches: *out takes `schema` over (released on
 * error too) and holds its fields projected as pq_variant_project_batch
 * projects a batch's. */
PQ_API pq_status pq_variant_project_schema(struct ArrowSchema *schema, const char *const *paths, size_t npaths,
                                           const char *const *keep, size_t nkeep, struct ArrowSchema *out,
                                           pq_error *err);

#ifdef __cplusplus
}
#endif

#endif
