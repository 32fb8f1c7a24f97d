/*
 * cglib_ref.h — Apache Thrift c_glib as pqstep's reference decoder.
 *
 * The code generated from metadata/parquet.thrift (pqt_parquet_types.h) is
 * driven through a read-only transport over a byte span (span_transport.h).
 * c_glib's ThriftMemoryBuffer deletes consumed bytes from the front of its
 * GByteArray on every read, which makes a large footer quadratic to decode;
 * the span transport only moves a cursor.
 *
 * The decoder runs the stock ThriftCompactProtocol with three guards so that
 * hostile bytes cannot make the *reference* crash or balloon: strings and
 * containers are capped at the span length (string_limit/container_limit),
 * struct and container nesting is capped at Thrift's usual recursion limit
 * (64), and a failed binary read always leaves a NULL buffer
 * (thrift_protocol_skip frees the buffer even when the read failed before
 * setting it).
 *
 * Known c_glib properties the comparison accounts for:
 *  - `string` fields are NUL-terminated gchar*: an empty string reads as
 *    NULL and bytes after an embedded NUL are invisible. The comparison
 *    checks pqstep's span up to its first NUL.
 *  - unions are structs: a member id unknown to the IDL is skipped and
 *    leaves no member set, so a LogicalType with no known member compares
 *    equal to pqstep's FUTURE or NONE (the test of the corpus file with an
 *    unknown member asserts FUTURE itself).
 *  - enum values are not validated, and enum types may be unsigned (all IDL
 *    values are >= 0): the comparison reads them back as the wire's i32.
 *
 * Used by the tests (field-by-field comparison with pqstep's decoder, and
 * building hostile footers) and by bench/ (footer synthesis and the baseline).
 */
#ifndef PQ_CGLIB_REF_H
#define PQ_CGLIB_REF_H

#include <stddef.h>
#include <stdint.h>

#include "pqt_parquet_types.h"
#include "pq_metadata.h"

/* Struct nesting accepted by pq_cglib_decode (Thrift's default limit). */
#define PQ_CGLIB_MAX_DEPTH 64

/* Make the generated classes release objects completely: their finalize
 * functions do not chain up to GObject's (a Thrift c_glib generator bug that
 * leaks 32 bytes per object with GLib 2.74). Idempotent and thread-safe;
 * every function below calls it. Call it yourself before creating pqt
 * objects with g_object_new() ahead of any other call here. */
void pq_cglib_init(void);

/* Decode compact-protocol FileMetaData bytes. Returns a new object (release
 * with g_object_unref) or NULL, with a g_malloc'd message in *error when
 * error is not NULL (g_free it). Bytes in which a struct repeats a field id
 * are declined (NULL): see pq_cglib_repeated_field. */
pqtFileMetaData *pq_cglib_decode(const uint8_t *buf, size_t len, char **error);

/* pq_cglib_decode without the walk for repeated field ids: the stock c_glib
 * decode only, for the benchmark baseline on footers known to be well formed.
 * Never give it untrusted bytes. */
pqtFileMetaData *pq_cglib_decode_trusted(const uint8_t *buf, size_t len, char **error);

/* Does some struct in these compact bytes carry the same field id twice?
 * Thrift leaves that undefined, and c_glib's generated code corrupts its heap
 * on a repeated binary field (it g_free()s a GByteArray) and appends repeated
 * lists. Returns 1 and the id in *field_id (may be NULL), else 0. Stops
 * quietly at malformed bytes. */
int pq_cglib_repeated_field(const uint8_t *buf, size_t len, int16_t *field_id);

/* Serialize with the compact protocol. Returns g_malloc'd bytes (g_free) and
 * their length in *len, or NULL. */
uint8_t *pq_cglib_encode(pqtFileMetaData *md, size_t *len);

/* Same for any generated struct (a pqtColumnMetaData, a pqtRowGroup, ...). */
uint8_t *pq_cglib_encode_struct(ThriftStruct *st, size_t *len);

/* Compare every field of the reference decode with pqstep's. Returns 0 when
 * equal; else 1 and a description of the first difference, with its path
 * (e.g. "row_groups[2].columns[5].meta_data.statistics.min_value: c_glib 3
 * bytes, pqstep 4"), in diff. Column chunks pqstep skipped for a projection
 * (PQ_CC_SKIPPED) are not compared. */
int pq_cglib_compare(const pqtFileMetaData *ref, const pq_file_metadata *ours, char *diff,
                     size_t cap);

/* Check that every byte span of `ours` (names, strings, statistics, ...)
 * lies inside [base, base + len): pqstep promises spans into its retained
 * footer copy. Returns 0, or 1 with the offending path in diff. */
int pq_check_spans_within(const pq_file_metadata *ours, const uint8_t *base, size_t len,
                          char *diff, size_t cap);

/* ---------------------------------------------------------------------------
 * Builders for synthetic footers
 * ------------------------------------------------------------------------- */

/* A valid flat file: schema root "schema" with `ncols` OPTIONAL INT64 leaves
 * named c0, c1, ...; `nrg` row groups of 100 rows, one chunk per leaf with
 * meta_data (PLAIN+RLE, UNCOMPRESSED, path_in_schema {"cN"}, consistent
 * sizes/offsets) and statistics; num_rows = 100 * nrg; created_by set. */
pqtFileMetaData *pq_cglib_build_flat(unsigned ncols, unsigned nrg);

/* Append a schema element with the given name/type/repetition (type < 0:
 * no type, a group) to md->schema; returns it (owned by md). */
pqtSchemaElement *pq_cglib_add_element(pqtFileMetaData *md, const char *name, int type,
                                       int repetition, int num_children);

/* Accessors for the builder's objects (borrowed). */
pqtRowGroup *pq_cglib_row_group(pqtFileMetaData *md, unsigned i);
pqtColumnChunk *pq_cglib_chunk(pqtFileMetaData *md, unsigned rg, unsigned col);
pqtSchemaElement *pq_cglib_element(pqtFileMetaData *md, unsigned i);

/* Replace a GByteArray field's content (allocating it when NULL). */
void pq_cglib_set_bytes(GByteArray **field, const void *data, size_t len);

#endif
