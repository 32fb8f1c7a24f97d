/*
 * arrow_schema.h — internal helpers over the ArrowSchema trees that
 * arrow_schema.c exports (pq_arrow.h has the public part).
 */
#ifndef PQ_METADATA_ARROW_SCHEMA_H
#define PQ_METADATA_ARROW_SCHEMA_H

#include "pq_arrow.h"

/* Give leaf field node *f (no children; a node this library exported, or
 * one this function made) the type `format`, keeping its name, flags and
 * metadata. With `dict_format`, *f becomes a dictionary field: `format` is
 * its index type ("i") and its dictionary a node of type `dict_format`,
 * released with it. The old node is released; the new one is one block,
 * so formats need not outlive the call (a timestamp's time zone, say).
 * Errors: PQ_ERR_INVALID_ARGUMENT (a node with children, or released),
 * PQ_ERR_NOMEM (then *f is unchanged). */
pq_status pq_arrow_schema_retype(struct ArrowSchema *f, const char *format, const char *dict_format, pq_error *err);

/* Append the key-value pairs to node *f's metadata, after any it has: all
 * but one whose key is `skip` (when given), a key the node already has,
 * and a key or value over 1 MiB (what this library's metadata reader
 * takes). The node is made again in one block, its children (and its
 * dictionary) moved into it. A pair without a value gets an empty one.
 * Errors: PQ_ERR_INVALID_ARGUMENT, PQ_ERR_NOMEM (then *f is unchanged). */
pq_status pq_arrow_schema_add_metadata(struct ArrowSchema *f, const pq_key_value *pairs, size_t n, const char *skip,
                                       pq_error *err);

/* pq_metadata_arrow_schema with each selected struct cut down to the
 * children that lead to `columns` (a map read in part: a list of the
 * entries' fields read): the schema of what the reader builds from those
 * leaves. */
pq_status pq_metadata_arrow_schema_read(const pq_metadata *md, const uint32_t *columns, size_t columns_len,
                                        struct ArrowSchema *out, pq_error *err);

#endif
