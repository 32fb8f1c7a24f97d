/*
 * arrow_ipc_schema.h — the writer's Arrow schema, as pyarrow and arrow-rs
 * store it in a Parquet footer's `ARROW:schema` key, decoded into hints the
 * reader can follow (large_string vs string, dictionary encoding, the
 * timestamp unit and time zone, ...). Internal to the library.
 *
 * The value of the key is the base64 text of one Arrow IPC encapsulated
 * message: [0xFFFFFFFF] int32 length, then the flatbuffer of a Message
 * whose header is a Schema. Only what the hints below carry is decoded; the
 * rest of the schema (custom metadata, Int widths, decimal precision, ...)
 * is walked over only as far as the tables holding it must be in bounds.
 *
 * The input is untrusted: every offset, vtable, length and count is checked
 * against the decoded bytes before it is followed, nesting is limited to
 * PQ_ARROW_HINTS_MAX_DEPTH fields and the whole schema to
 * PQ_ARROW_HINTS_MAX_FIELDS fields (flatbuffers let one table be referenced
 * many times, so a small input can describe an exponentially large tree).
 *
 * Ownership: pq_arrow_hints_decode() fills a pq_arrow_hints the caller
 * owns; every pointer in it (fields, children, names, time zones) points
 * into allocations that `block` holds, valid until pq_arrow_hints_free()
 * and independent of the input text, which may be freed at once. The hints
 * are never modified after decode, so threads may read them concurrently.
 */
#ifndef PQ_METADATA_ARROW_IPC_SCHEMA_H
#define PQ_METADATA_ARROW_IPC_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_metadata.h"

/* Deepest field nesting accepted: a top-level field is at depth 1. */
#define PQ_ARROW_HINTS_MAX_DEPTH 64

/* Most fields (all levels together) one schema may have. */
#define PQ_ARROW_HINTS_MAX_FIELDS ((size_t)1 << 20)

/* What the writer's Arrow schema says of one field, as far as the reader follows it. */
typedef enum pq_arrow_hint_type {
    PQ_HINT_OTHER = 0,        /* any type not below (the reader keeps its own mapping) */
    PQ_HINT_STRING,           /* Utf8 */
    PQ_HINT_LARGE_STRING,     /* LargeUtf8 */
    PQ_HINT_STRING_VIEW,      /* Utf8View */
    PQ_HINT_BINARY,           /* Binary */
    PQ_HINT_LARGE_BINARY,     /* LargeBinary */
    PQ_HINT_BINARY_VIEW,      /* BinaryView */
    PQ_HINT_TIMESTAMP,        /* Timestamp: unit, timezone */
    PQ_HINT_DURATION,         /* Duration: unit */
    PQ_HINT_LIST,             /* List (its element the one child) */
    PQ_HINT_LARGE_LIST,       /* LargeList */
} pq_arrow_hint_type;

/* pq_arrow_hint.unit: Arrow's TimeUnit values. */
typedef enum pq_arrow_hint_unit {
    PQ_HINT_SECOND = 0,
    PQ_HINT_MILLI = 1,
    PQ_HINT_MICRO = 2,
    PQ_HINT_NANO = 3,
} pq_arrow_hint_unit;

typedef struct pq_arrow_hint {
    /* The field's name, NUL-terminated, "" when the writer gave none (owned
     * by the hints). A name holding a NUL byte reads as its part before it,
     * as the reader's own Parquet names do. */
    const char *name;
    uint8_t type;             /* pq_arrow_hint_type */
    /* TIMESTAMP / DURATION: pq_arrow_hint_unit (0 second, 1 milli, 2 micro,
     * 3 nano); 0 for other types. An absent unit is the schema's default:
     * SECOND for Timestamp, MILLISECOND for Duration (writers omit it). */
    uint8_t unit;
    bool dictionary;          /* the field is dictionary-encoded; `type` is its value type */
    uint8_t index_bits;       /* dictionary: its indices' width (8, 16, 32 or 64; 32 when the writer
                               * named none); 0 for other fields */
    bool index_signed;        /* dictionary: signed indices (the default) */
    bool ordered;             /* dictionary: isOrdered */
    bool nullable;
    const char *timezone;     /* TIMESTAMP: NUL-terminated, NULL when none (owned by the hints) */
    /* The field's custom_metadata (pyarrow gives it as the field's
     * metadata: polars keeps its Enum categories there): n_meta pairs,
     * pointing into the hints' memory; NULL when none. */
    size_t n_meta;
    pq_key_value *meta;
    /* Nested fields (struct, list, map, union, ...): their hints, in schema
     * order; NULL when n_children is 0. A map has one child, its entries
     * struct, whose children are the key and the value. */
    size_t n_children;
    struct pq_arrow_hint *children;
} pq_arrow_hint;

typedef struct pq_arrow_hints {
    size_t n_fields;          /* top-level fields, in schema order */
    pq_arrow_hint *fields;    /* NULL when n_fields is 0 */
    void *block;              /* internal: holds everything above; freed by pq_arrow_hints_free */
} pq_arrow_hints;

/* Decode the value of the ARROW:schema key: `len` bytes of base64 text
 * (standard alphabet; the '=' padding may be left out), not NUL-terminated.
 * On success fills *out, which the caller frees with pq_arrow_hints_free().
 * Trailing bytes after the message (padding, a body) are ignored.
 * Errors (pq_error_set, the message naming what is wrong, at which offset of
 * the flatbuffer and in which field, e.g. "fields[2].children[0]"):
 *   PQ_ERR_INVALID_ARGUMENT  out is NULL, or base64 is NULL with len > 0
 *   PQ_ERR_CORRUPT_DATA      bad base64; a truncated or malformed IPC message or
 *                            flatbuffer; a message that is not a Schema; a field
 *                            without a type; a time unit outside 0..3; a
 *                            dictionary index width not 8, 16, 32 or 64; fields
 *                            nested deeper than PQ_ARROW_HINTS_MAX_DEPTH
 *   PQ_ERR_MEMORY_LIMIT      more than PQ_ARROW_HINTS_MAX_FIELDS fields in all
 *   PQ_ERR_NOMEM             malloc failed
 * Never reads outside the input. On failure *out is zeroed and holds
 * nothing (pq_arrow_hints_free on it is a no-op). */
pq_status pq_arrow_hints_decode(const char *base64, size_t len, pq_arrow_hints *out, pq_error *err);

/* Free what pq_arrow_hints_decode() put in *h and zero it; NULL and zeroed
 * hints are accepted. Every pointer taken from *h dies here. */
void pq_arrow_hints_free(pq_arrow_hints *h);

#endif
