/*
 * pq_variant.h — Parquet VARIANT values (VariantEncoding.md of
 * parquet-format): checked and rendered as JSON.
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

#include "pq_error.h"

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

#ifdef __cplusplus
}
#endif

#endif
