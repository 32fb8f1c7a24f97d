/*
 * supplied.h — byte ranges a sans-IO caller handed in, kept until the stage
 * that needed them has consumed them.
 */
#ifndef PQ_READER_SUPPLIED_H
#define PQ_READER_SUPPLIED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

typedef struct pq_supplied_range {
    uint64_t offset;
    size_t len;
    uint8_t *data;
} pq_supplied_range;

typedef struct pq_supplied {
    pq_supplied_range *ranges;
    size_t count;
    size_t cap;
} pq_supplied;

void pq_supplied_init(pq_supplied *s);
void pq_supplied_free(pq_supplied *s);

/* Copy `data` in. */
pq_status pq_supplied_add(pq_supplied *s, uint64_t offset, const void *data, size_t len,
                          pq_error *err);

/* Take `data` (malloc'd, len bytes) as the range at `offset`: no copy; it
 * is freed with the store (also on failure). */
pq_status pq_supplied_adopt(pq_supplied *s, uint64_t offset, uint8_t *data, size_t len, pq_error *err);

/* True when one supplied range holds all of [offset, offset+len). */
bool pq_supplied_covers(const pq_supplied *s, uint64_t offset, uint64_t len);

/* Copy [offset, offset+len) out of a covering range; false when none covers it. */
bool pq_supplied_copy(const pq_supplied *s, uint64_t offset, size_t len, void *dst);

#endif
