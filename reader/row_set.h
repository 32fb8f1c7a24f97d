/*
 * row_set.h — sets of rows of one row group, as sorted runs.
 *
 * The select stage keeps, per row group, the rows a read must deliver or
 * test: all of them, a row range, or (page index) the pieces that may hold
 * a match. Each column chunk then keeps the rows of the pages it reads,
 * which are different runs for each column (their pages end at different
 * rows). These helpers line the two up.
 */
#ifndef PQ_READER_ROW_SET_H
#define PQ_READER_ROW_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Rows [first, first + count). */
typedef struct pq_row_span {
    uint64_t first, count;
} pq_row_span;

/* Sorted, disjoint, non-adjacent spans (adjacent ones are merged as they
 * are added). One span lives inline, so the common sets need no
 * allocation; more are malloc'd. Copying the struct moves the ownership. */
typedef struct pq_row_set {
    pq_row_span one;        /* the span while n <= 1 */
    pq_row_span *more;      /* all n spans once n > 1 */
    size_t n, cap;
    uint64_t rows;          /* rows in all spans */
} pq_row_set;

static inline const pq_row_span *pq_row_set_spans(const pq_row_set *s)
{
    return s->n > 1 ? s->more : &s->one;
}

/* First row and end (one past the last row) of the set; 0, 0 when empty. */
static inline uint64_t pq_row_set_first(const pq_row_set *s)
{
    return s->n ? pq_row_set_spans(s)[0].first : 0;
}
static inline uint64_t pq_row_set_end(const pq_row_set *s)
{
    if (!s->n) return 0;
    const pq_row_span *last = &pq_row_set_spans(s)[s->n - 1];
    return last->first + last->count;
}

/* One run (or none when count is 0): no allocation. */
void pq_row_set_init(pq_row_set *s, uint64_t first, uint64_t count);
void pq_row_set_free(pq_row_set *s);

/* *dst (uninitialized) made a copy of src; false (and dst empty) when out
 * of memory. */
bool pq_row_set_copy(pq_row_set *dst, const pq_row_set *src);

/* Append rows [first, first + count), which must not start before the
 * first row of the set's last run (a range that touches or overlaps that
 * run is merged into it). false when out of memory. */
bool pq_row_set_add(pq_row_set *s, uint64_t first, uint64_t count);

/* Whether every row of `sub` lies in `s`. */
bool pq_row_set_contains(const pq_row_set *s, const pq_row_set *sub);

/* A position in a set for ascending queries (zero it first). */
typedef struct pq_row_cursor {
    size_t span;            /* first span that may still overlap a query */
    uint64_t pos;           /* rows of the set before that span */
} pq_row_cursor;

/* Whether rows [a, b) hold a row of `s` whose bit in `keep` (one bit per
 * row of s, in order; NULL: every row) is set. Queries on one cursor must
 * come in ascending order of a. */
bool pq_row_set_hits(const pq_row_set *s, const uint8_t *keep, uint64_t a, uint64_t b, pq_row_cursor *cur);

/* Append to `out` the rows of `s` inside [a, b). Same cursor rule, and
 * the ranges must not overlap. */
bool pq_row_set_add_overlap(pq_row_set *out, const pq_row_set *s, uint64_t a, uint64_t b, pq_row_cursor *cur);

/* Bits over the rows of `have` (in order) for the rows of `want` whose bit
 * in `keep` (over want's rows; NULL: all) is set. `out` holds
 * (have->rows + 7) / 8 bytes, all overwritten (bits past have->rows are 0).
 * Returns how many bits are
 * set, or -1 when such a row is not in `have`. */
int64_t pq_row_set_map_bits(const pq_row_set *have, const pq_row_set *want, const uint8_t *keep, uint8_t *out);

/* Set bits in keep[0, n). */
uint64_t pq_bits_count(const uint8_t *keep, uint64_t n);

#endif
