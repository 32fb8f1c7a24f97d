/*
 * pq_predicate.h — predicates a reader can push into the scan: a column
 * compared with a literal, IN lists, IS [NOT] NULL, combined with AND, OR
 * and NOT. Built with the functions below or parsed from text:
 *
 *   l_shipdate >= '1995-01-01' and l_quantity < 24
 *     and l_returnflag in ('A', 'R') and l_comment is not null
 *
 * Text syntax: identifiers are column names or dotted leaf paths (a name may
 * be double-quoted: "my col"); literals are numbers (12, -3.5, 1e9), strings
 * in single quotes ('it''s'), true, false; operators = != <> < <= > >=,
 * IN (...), NOT IN (...), BETWEEN lo AND hi (col >= lo AND col <= hi),
 * NOT BETWEEN, IS NULL, IS NOT NULL, AND, OR, NOT, parentheses; a
 * column alone is `col = true` (`paid and not shipped`: boolean columns);
 * TRUE or FALSE alone is a constant predicate; bbox_intersects(col, xmin,
 * ymin, xmax, ymax) tests geometries (pq_expr_bbox_intersects).
 *
 * Paths into a VARIANT: `v.a.b`, `v.l[0].x` (a top-level VARIANT column v,
 * then object field names and array indexes from 0) compare the variant's
 * value at that path. Where the writer shredded the path down to a
 * primitive (v.typed_value.a.typed_value.b.typed_value is a column),
 * literals are typed for that column. A row whose
 * value the writer left in a residual `value` on the way (another type, or
 * a field it did not shred there) is decoded and compared too when its
 * variant type agrees with the column's (integers with integers and
 * decimals, numbers with floats, strings, dates, timestamps of the
 * column's unit); otherwise the comparison is unknown (a missing field
 * too). =, !=, <, <=, >, >=, IN and IS [NOT] NULL apply; IS NULL is true
 * where the path is missing, holds the variant null, or the row is null. Row groups, pages,
 * dictionaries and bloom filters of the typed column prune only where every
 * residual `value` on the way is null (their statistics say so), so a row
 * held there is never lost. A path the writer did not shred to its end (a
 * field or array element left in a `value` column, or a column not
 * shredded at all) is found in each row's variant and compared by the
 * value's own type: numbers of any width with number literals by value,
 * strings with strings, booleans, dates with a 'YYYY-MM-DD' literal;
 * another type makes the comparison unknown; such a filter prunes nothing.
 * A path through an array the writer shredded (its elements in repeated
 * columns) reads the element at that index of each row's list, pruning
 * nothing; arrays nested in it and IS [NOT] NULL on an object or array
 * inside it are refused (PQ_ERR_UNSUPPORTED). Keywords are case-insensitive
 * (quote a column named like one: "true"). Precedence: NOT > AND > OR.
 * Positions in messages are byte offsets from 0.
 *
 * Literals are typed when the expression is bound to a file's schema
 * (pq_expr_bind): against the column's logical type, a string literal can be
 * a date ('1995-01-01'), a timestamp ('1995-01-01 12:00:00[.fff][Z|+02:00]'), a
 * time, a decimal ('1.05'), or a string; numbers fit integers, floats and
 * decimals; true/false booleans. A literal the column cannot hold (1.5 for an
 * integer column, 300 for an int8) is handled exactly: `x = 1.5` matches no
 * row, `x < 1.5` is `x <= 1`. Numbers bind exactly to integer and decimal
 * columns (the text is kept: 0.1 is one tenth); for FLOAT and DOUBLE
 * columns they are rounded to the nearest float or double (`x = 0.1` on a
 * FLOAT column compares with 0.1f). Timestamps are
 * 'YYYY-MM-DD[ T]HH:MM:SS[.fraction][Z|+HH:MM|-HH:MM]' (the offset also
 * +HHMM or +HH) or 'YYYY-MM-DD' (midnight), read as the stored value (a
 * 'Z' or +00:00 is accepted and changes nothing); an offset names the
 * instant it denotes, so it applies to UTC-adjusted columns, and any other
 * offset on a column of local times (isAdjustedToUTC false, INT96) is
 * refused with PQ_ERR_INVALID_ARGUMENT; times
 * 'HH:MM:SS[.fraction]'; at most 9 fraction digits.
 *
 * Semantics are SQL's: a comparison with a null value is unknown, and a row
 * is kept only when the whole predicate is true.
 *
 * Ownership: every pq_expr is owned by the caller and freed with
 * pq_expr_free(). pq_expr_and/or/not take ownership of their arguments (also
 * when they fail). A pq_expr is not thread-safe while being bound; a bound
 * one may be read from many threads.
 */
#ifndef PQ_PREDICATE_H
#define PQ_PREDICATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pq_expr pq_expr;

typedef enum pq_cmp_op {
    PQ_CMP_EQ = 0,
    PQ_CMP_NE,
    PQ_CMP_LT,
    PQ_CMP_LE,
    PQ_CMP_GT,
    PQ_CMP_GE
} pq_cmp_op;

/* A literal as written, before it is typed against a column. */
typedef enum pq_literal_kind {
    PQ_LIT_BOOL = 0,
    PQ_LIT_INT,      /* an integer: `i` */
    PQ_LIT_DOUBLE,   /* a floating-point number: `d` */
    PQ_LIT_TEXT      /* a string, date, time, timestamp or decimal: `text` (not NUL-terminated) */
} pq_literal_kind;

typedef struct pq_literal {
    pq_literal_kind kind;
    bool b;
    int64_t i;
    double d;           /* never NaN */
    const char *text;   /* copied by the builder. TEXT: the string; DOUBLE
                           (optional, may be NULL): the number as written,
                           which then binds exactly to decimal columns */
    size_t text_len;
} pq_literal;

/* Builders. `column` is a leaf path or a top-level name (copied). Errors:
 * PQ_ERR_INVALID_ARGUMENT (NULL, an empty IN list, a NaN, a DOUBLE text
 * that is not a number), PQ_ERR_NOMEM. */
PQ_API pq_expr *pq_expr_compare(const char *column, pq_cmp_op op, const pq_literal *value, pq_error *err);
PQ_API pq_expr *pq_expr_in(const char *column, const pq_literal *values, size_t n, pq_error *err);
PQ_API pq_expr *pq_expr_is_null(const char *column, bool is_null, pq_error *err);
PQ_API pq_expr *pq_expr_and(pq_expr *a, pq_expr *b, pq_error *err);
PQ_API pq_expr *pq_expr_or(pq_expr *a, pq_expr *b, pq_error *err);
PQ_API pq_expr *pq_expr_not(pq_expr *a, pq_error *err);
PQ_API pq_expr *pq_expr_const(bool truth, pq_error *err);
/* bbox_intersects(column, xmin, ymin, xmax, ymax): true for a row whose
 * geometry (WKB: a GEOMETRY or GEOGRAPHY column, or any BYTE_ARRAY column
 * holding WKB) has an envelope, in x and y, that meets the box (edges
 * included); false for an empty geometry, null for a null value. The
 * envelope is the vertices' (edges are not followed); in a GEOGRAPHY column
 * its x (longitude) is the shortest arc holding every vertex, which may
 * cross the antimeridian. xmin >
 * xmax is a box across the antimeridian (x >= xmin or x <= xmax), as
 * Parquet's geospatial statistics write one. Row groups whose geospatial
 * statistics' bounding box does not meet the box are skipped, and so are
 * those whose GeoParquet 1.1 bbox covering columns (the file's "geo"
 * metadata) bound boxes that miss it (in y alone for spherical edges), and
 * with a page index the covering's pages narrow the rows read. Errors:
 * PQ_ERR_INVALID_ARGUMENT for a NaN or infinite bound or ymin > ymax. In
 * the text syntax: `bbox_intersects(geom, -10, 40.5, 5, 52)` (the name is
 * case-insensitive; numbers as the other literals). A value that is not
 * valid WKB fails the read with PQ_ERR_CORRUPT_DATA naming the row. */
PQ_API pq_expr *pq_expr_bbox_intersects(const char *column, double xmin, double ymin, double xmax, double ymax,
                                        pq_error *err);

/* Parse the text syntax above. Errors: PQ_ERR_INVALID_ARGUMENT with the
 * byte position, e.g. "at 17: expected ')' after the IN list". Nesting is
 * limited to 64 levels. */
PQ_API pq_expr *pq_expr_parse(const char *text, pq_error *err);

/* A deep copy (unbound, or bound to the same schema). NULL + err on NOMEM. */
PQ_API pq_expr *pq_expr_clone(const pq_expr *e, pq_error *err);

/* Resolve every column against `md`'s schema and type every literal for its
 * column. Errors (PQ_ERR_INVALID_ARGUMENT) name the column or literal and,
 * for parsed text, its position: "at 4: no column 'l_shipdat'", "at 18:
 * '1995-13-01' is not a date (column l_shipdate)". Columns must be leaves
 * without repetition (lists are not filterable). An INT96 column (legacy
 * Spark / Impala timestamps) binds as a timestamp[ns], the unit a reader
 * delivers it in by default; a reader binds its filter in its own
 * int96_unit. Binding again to another file's schema is allowed. */
PQ_API pq_status pq_expr_bind(pq_expr *e, const pq_metadata *md, pq_error *err);

/* The expression as text in the syntax above, with parentheses only where
 * precedence needs them ("a = 1 and (b = 2 or not c is null)"); when bound,
 * literals are written as typed ("l_shipdate >= DATE '1995-01-01'" is not
 * used: dates stay quoted strings). Text formatted from a parsed expression
 * nests no deeper than its source, so it always parses back to an expression
 * that formats the same. snprintf contract. */
PQ_API size_t pq_expr_format(const pq_expr *e, char *buf, size_t cap);

/* The leaf columns a bound expression reads, each once, ascending; returns
 * how many (call with cap 0 to size). 0 when unbound. */
PQ_API size_t pq_expr_columns(const pq_expr *e, uint32_t *out, size_t cap);

PQ_API void pq_expr_free(pq_expr *e);

#ifdef __cplusplus
}
#endif
#endif /* PQ_PREDICATE_H */
