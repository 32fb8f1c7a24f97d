/*
 * supplied.h — byte ranges a sans-IO caller handed in (or that the reader
 * fetched ahead, many at once), kept until the stage that needed them has
 * consumed them.
 *
 * Each range's bytes are a refcounted block, so a stage can keep using a
 * range after the store is emptied: the page-header stage borrows a chunk's
 * bytes out of a fetched range instead of copying them (a copy of every
 * byte of the file, and the page faults of a second buffer).
 */
#ifndef PQ_READER_SUPPLIED_H
#define PQ_READER_SUPPLIED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

/* A malloc'd block of bytes with a count of its holders; given to the
 * buffer pool (pages/buffer_pool.h) with the last pq_shared_bytes_release. */
typedef struct pq_shared_bytes {
    atomic_size_t refs;
    uint8_t *data;
    size_t len;
} pq_shared_bytes;

/* One more holder of b (NULL: none); returns b. */
pq_shared_bytes *pq_shared_bytes_retain(pq_shared_bytes *b);
/* One holder fewer; the last frees the block (NULL: nothing). Any thread. */
void pq_shared_bytes_release(pq_shared_bytes *b);

typedef struct pq_supplied_range {
    uint64_t offset;
    size_t len;
    pq_shared_bytes *block; /* the store's reference */
} pq_supplied_range;

typedef struct pq_supplied {
    pq_supplied_range *ranges;
    size_t count;
    size_t cap;
} pq_supplied;

void pq_supplied_init(pq_supplied *s);
/* Drop the store's references (blocks borrowed elsewhere live on). */
void pq_supplied_free(pq_supplied *s);

/* Copy `data` in. */
pq_status pq_supplied_add(pq_supplied *s, uint64_t offset, const void *data, size_t len,
                          pq_error *err);

/* Take `data` (malloc'd or pq_pool_alloc'd, len bytes) as the range at
 * `offset`: no copy; it goes to the buffer pool with its last holder (at
 * once on failure). */
pq_status pq_supplied_adopt(pq_supplied *s, uint64_t offset, uint8_t *data, size_t len, pq_error *err);

/* True when one supplied range holds all of [offset, offset+len). */
bool pq_supplied_covers(const pq_supplied *s, uint64_t offset, uint64_t len);

/* Copy [offset, offset+len) out of a covering range; false when none covers it. */
bool pq_supplied_copy(const pq_supplied *s, uint64_t offset, size_t len, void *dst);

/* Where [offset, offset+len) lies in a covering range, with a reference to
 * that range's block in *hold (release it when done with the bytes); NULL
 * when no range covers it. The store is only read: threads may borrow at
 * once while nothing adds to or frees the store. */
const uint8_t *pq_supplied_borrow(const pq_supplied *s, uint64_t offset, size_t len, pq_shared_bytes **hold);

#endif
