/*
 * warnings.h — the warnings a parsed footer carries (pq_metadata_warning()):
 * a capped list of messages kept in the metadata's arena. Internal to
 * metadata/.
 */
#ifndef PQ_METADATA_WARNINGS_H
#define PQ_METADATA_WARNINGS_H

#include <stdint.h>

#include "metadata/arena.h"
#include "pq_error.h"
#include "pq_metadata.h"

typedef struct pq_warnings {
    pq_arena *arena;
    const char **items; /* PQ_METADATA_MAX_WARNINGS + 1 slots, from the first warning */
    uint32_t len;
    uint64_t dropped;   /* warnings past the cap */
} pq_warnings;

/* An empty list whose messages go to `arena`. */
void pq_warnings_init(pq_warnings *w, pq_arena *arena);

/* Add a printf-style message (a NULL `w` ignores it). Past the cap it is
 * only counted. Fails only with PQ_ERR_NOMEM / PQ_ERR_MEMORY_LIMIT, from
 * the arena. */
pq_status pq_warnings_add(pq_warnings *w, pq_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Close the list: when warnings were left out, a last one says how many. */
pq_status pq_warnings_finish(pq_warnings *w, pq_error *err);

#endif
