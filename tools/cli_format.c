/*
 * cli_format.c — turning metadata values into text for the commands:
 * library formatters into growable buffers, and which statistics bounds
 * are trustworthy.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

void cli_buf_free(cli_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->cap = 0;
}

static void buf_reserve(cli_buf *b, size_t need)
{
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 128;
    while (cap < need)
        cap *= 2;
    b->p = cli_xrealloc(b->p, cap);
    b->cap = cap;
}

/* The library formatters write at most `cap` bytes with the NUL and return
 * the length they needed: render once, and again when it did not fit. */
const char *cli_fmt_logical(cli_buf *b, const pq_logical_type *lt)
{
    if (lt->kind == PQ_LOGICAL_NONE)
        return NULL;
    buf_reserve(b, 64);
    size_t n = pq_logical_type_format(lt, b->p, b->cap);
    if (n >= b->cap) {
        buf_reserve(b, n + 1);
        pq_logical_type_format(lt, b->p, b->cap);
    }
    return b->p;
}

const char *cli_fmt_arrow(cli_buf *b, const pq_arrow_type *at)
{
    buf_reserve(b, 64);
    size_t n = pq_arrow_type_format(at, b->p, b->cap);
    if (n >= b->cap) {
        buf_reserve(b, n + 1);
        pq_arrow_type_format(at, b->p, b->cap);
    }
    return b->p;
}

const char *cli_fmt_stat(cli_buf *b, const pq_leaf *leaf, pq_bytes v, size_t *len)
{
    buf_reserve(b, 64);
    size_t n = pq_stat_value_format(leaf, v, b->p, b->cap);
    if (n >= b->cap) {
        buf_reserve(b, n + 1);
        n = pq_stat_value_format(leaf, v, b->p, b->cap);
        if (n >= b->cap) /* cannot happen with a deterministic formatter */
            n = b->cap - 1;
    }
    *len = n;
    return b->p;
}

const char *cli_fmt_physical(cli_buf *b, int32_t type, int32_t type_length)
{
    const char *name = pq_physical_type_name(type);
    buf_reserve(b, strlen(name) + 16);
    if (type == PQ_FIXED_LEN_BYTE_ARRAY)
        snprintf(b->p, b->cap, "%s(%d)", name, (int)type_length);
    else
        snprintf(b->p, b->cap, "%s", name);
    return b->p;
}

bool cli_sort_order_signed(const pq_leaf *leaf)
{
    switch (leaf->physical_type) {
    case PQ_BOOLEAN:
    case PQ_FLOAT:
    case PQ_DOUBLE:
        return true;
    case PQ_INT32:
    case PQ_INT64:
        return !(leaf->logical.kind == PQ_LOGICAL_INTEGER && !leaf->logical.is_signed);
    default:
        return false; /* INT96 (undefined order), BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY */
    }
}

void cli_stats_bounds(const pq_leaf *leaf, const pq_statistics *st, pq_bytes *min, bool *has_min,
                      pq_bytes *max, bool *has_max)
{
    static const pq_bytes none = {NULL, 0};
    *min = none;
    *max = none;
    *has_min = false;
    *has_max = false;
    /* The new fields follow the column order. Old writers filled only the
     * deprecated ones, compared as signed whatever the type, so they are
     * right only for types whose order is signed. */
    if (st->set & (PQ_STATS_HAS_MIN_VALUE | PQ_STATS_HAS_MAX_VALUE)) {
        if (st->set & PQ_STATS_HAS_MIN_VALUE) {
            *min = st->min_value;
            *has_min = true;
        }
        if (st->set & PQ_STATS_HAS_MAX_VALUE) {
            *max = st->max_value;
            *has_max = true;
        }
    } else if (leaf && cli_sort_order_signed(leaf)) {
        if (st->set & PQ_STATS_HAS_MIN) {
            *min = st->min;
            *has_min = true;
        }
        if (st->set & PQ_STATS_HAS_MAX) {
            *max = st->max;
            *has_max = true;
        }
    }
}
