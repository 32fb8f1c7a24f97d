/*
 * arrow_text.h — one value of an exported Arrow array (C Data Interface) as
 * text, for `pqstep cat`.
 *
 * An ArrowSchema is first parsed into an arrow_text_type tree (format
 * strings per the Arrow C Data Interface; dictionary-encoded fields too).
 * arrow_text_check() then verifies that an ArrowArray has the layout the
 * type needs (buffers, children, lengths), after which any value of it can
 * be rendered with arrow_text_format(). Offsets (ArrowArray.offset) are
 * honoured at every level, so sliced batches render correctly.
 *
 * The rendering rules are documented in docs/cli.md (section `cat`):
 * integers exact, floats as the shortest %g text that reads back, decimals
 * exact, ISO 8601 dates / times / timestamps, binary as lowercase hex,
 * nested values as JSON.
 */
#ifndef PQ_CLI_ARROW_TEXT_H
#define PQ_CLI_ARROW_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_arrow.h"

/* A growable byte buffer values are rendered into (not NUL-terminated). */
typedef struct at_buf {
    char *p;
    size_t len;
    size_t cap;
} at_buf;

void at_buf_put(at_buf *b, const void *s, size_t n);
void at_buf_free(at_buf *b);

typedef enum at_kind {
    AT_NA,          /* n */
    AT_BOOL,        /* b */
    AT_INT,         /* c s i l */
    AT_UINT,        /* C S I L */
    AT_HALF,        /* e */
    AT_FLOAT,       /* f */
    AT_DOUBLE,      /* g */
    AT_STRING,      /* u U */
    AT_BINARY,      /* z Z */
    AT_FIXED_BINARY,/* w:N */
    AT_DECIMAL,     /* d:P,S[,W] */
    AT_DATE32,      /* tdD */
    AT_DATE64,      /* tdm */
    AT_TIME,        /* tts ttm (32-bit), ttu ttn (64-bit) */
    AT_TIMESTAMP,   /* tss: tsm: tsu: tsn: with an optional time zone */
    AT_STRUCT,      /* +s */
    AT_LIST,        /* +l +L */
    AT_FIXED_LIST,  /* +w:N */
    AT_MAP          /* +m */
} at_kind;

typedef struct arrow_text_type {
    at_kind kind;
    int width;             /* bytes per value: ints, floats, decimals, time; offset width of
                              strings / binary / lists (4 or 8); N of w:N and +w:N */
    int digits;            /* TIME / TIMESTAMP: fraction digits (0 for seconds) */
    int64_t per_second;    /* TIME / TIMESTAMP: ticks per second */
    bool tz;               /* TIMESTAMP: a time zone is set (values are UTC instants) */
    int32_t scale;         /* DECIMAL */
    char *name;            /* the field's name (may be empty) */
    size_t nchildren;
    struct arrow_text_type **children;
    /* Dictionary-encoded: kind/width describe the index (an integer) and
     * `dict` the values. */
    struct arrow_text_type *dict;
    /* A VARIANT (extension arrow.parquet.variant on a struct of binary
     * metadata and value): rendered as the JSON of its value. */
    bool variant;
    int metadata_child, value_child;
} arrow_text_type;

/* Parse a schema. Returns NULL and a message in `err` (at most `cap` bytes)
 * for a format this renderer does not handle or a malformed schema. */
arrow_text_type *arrow_text_type_new(const struct ArrowSchema *s, char *err, size_t cap);
void arrow_text_type_free(arrow_text_type *t);

/* True when values of `t` are numbers (columns a table aligns right). */
bool arrow_text_is_numeric(const arrow_text_type *t);

/* Check that `a` has the layout of `t`: buffer and child counts, buffers
 * present where values are read, children long enough. False with a
 * message in `err` otherwise. */
bool arrow_text_check(const arrow_text_type *t, const struct ArrowArray *a, char *err, size_t cap);

/* Is logical element `i` (0 <= i < a->length) null? */
bool arrow_text_is_null(const arrow_text_type *t, const struct ArrowArray *a, int64_t i);

typedef enum arrow_text_mode {
    ARROW_TEXT_PLAIN, /* scalars bare (strings as their raw bytes); nested values as JSON */
    ARROW_TEXT_JSON   /* a JSON value */
} arrow_text_mode;

/* Append element `i` of `a` (checked with arrow_text_check) to `out`. A null
 * renders as "null". Returns false (leaving partial output) when list or
 * string offsets are out of order or out of range. */
bool arrow_text_format(const arrow_text_type *t, const struct ArrowArray *a, int64_t i,
                       arrow_text_mode mode, at_buf *out);

/* Append `s` as a JSON string (escaping as docs/cli.md describes). */
void arrow_text_json_string(at_buf *out, const void *s, size_t len);

#endif
