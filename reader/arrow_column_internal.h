/*
 * arrow_column_internal.h — the inside of a pq_arrow_column, for the files
 * that build (arrow_column.c), export (arrow_batch.c), assemble
 * (arrow_nested.c) and take rows of (arrow_take.c) columns: its buffers and
 * references, its layouts, and the helpers all of them use.
 */
#ifndef PQ_READER_ARROW_COLUMN_INTERNAL_H
#define PQ_READER_ARROW_COLUMN_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "pq_arrow.h"
#include "reader/arrow_column.h"

/* Arrow buffers are in the host's byte order; the conversions
 * (arrow_column.c) and the row taking (arrow_take.c) write little-endian
 * values and load them with memcpy. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pqstep's Arrow output assumes a little-endian host"
#endif

#define PQ_COLUMN_MAX_BUFFERS 5

struct pq_arrow_column {
    atomic_int refs;
    int64_t length;
    int64_t null_count;
    int64_t n_buffers;
    /* What ArrowArray.buffers points at: at most 5 (a string view array:
     * validity, views, its own data, the dictionary's, the data sizes). */
    const void *buffers[PQ_COLUMN_MAX_BUFFERS];
    void *owned[PQ_COLUMN_MAX_BUFFERS]; /* what to free */
    int64_t view_sizes[2];  /* LAYOUT_VIEW: the variadic buffers' sizes (the last buffer) */
    pq_arrow_column *base;  /* LAYOUT_VIEW taken from another: holds its data buffers */
    uint64_t nbytes;        /* bytes of this node's buffers (the children's not counted) */
    uint8_t layout;         /* column_layout: how the buffers are laid out */
    uint32_t width;         /* LAYOUT_FIXED: bytes per slot */
    /* A dictionary array (indices as LAYOUT_FIXED, width 4): one
     * reference to its dictionary, which takes share. */
    pq_arrow_column *dictionary;
    /* Nested arrays (struct, list, map): one reference to each child. */
    size_t n_children;
    pq_arrow_column **children;
    /* An adopted array (pq_arrow_column_adopt), e.g. in device memory:
     * held by a node of its own (no buffers, no children) that releases it
     * with its last reference; every node of the tree over it has its
     * node's buffers and holds that holder as `base` (not the root: a
     * child holding its parent would be a cycle). Such a column is only
     * exported, never read here. */
    struct ArrowArray adopted;
    bool foreign;
};

/* The Arrow layouts a column can have (for taking rows out of it). */
typedef enum column_layout {
    LAYOUT_NULL = 0,  /* no buffers */
    LAYOUT_BOOL,      /* validity, bits */
    LAYOUT_FIXED,     /* validity, width bytes per slot */
    LAYOUT_BINARY,    /* validity, int32 offsets, data */
    LAYOUT_LARGE_BINARY, /* validity, int64 offsets, data */
    LAYOUT_VIEW,      /* validity, 16-byte views, 1 or 2 data buffers, their int64 sizes */
    LAYOUT_STRUCT,    /* validity, children */
    LAYOUT_LIST,      /* validity, int32 offsets, one child (lists and maps) */
    LAYOUT_LARGE_LIST /* validity, int64 offsets, one child */
} column_layout;

/* Bit i of a bitmap set, or read. */
static inline void bit_set(uint8_t *bits, size_t i)
{
    bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static inline bool bit_get(const uint8_t *bits, size_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

/* A column of `length` rows, one reference, no buffers yet; NULL when out
 * of memory. */
static inline pq_arrow_column *column_new(int64_t length)
{
    pq_arrow_column *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    atomic_init(&c->refs, 1);
    c->length = length;
    return c;
}

/* Give buffer slot i the memory p (owned), or a 1-byte block when p is
 * NULL: Arrow wants value buffers present even when empty. */
static inline bool column_own(pq_arrow_column *c, int i, void *p, size_t size)
{
    if (!p) p = calloc(1, 8);
    if (!p) return false;
    c->owned[i] = p;
    c->buffers[i] = p;
    c->nbytes += size;
    return true;
}

#endif
