/*
 * warnings.c — the capped list of warnings a parsed footer carries (see
 * warnings.h).
 */
#include "metadata/warnings.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "metadata/error.h"

void pq_warnings_init(pq_warnings *w, pq_arena *arena)
{
    memset(w, 0, sizeof *w);
    w->arena = arena;
}

static pq_status nomem(pq_error *err)
{
    return pq_error_set(err, PQ_ERR_NOMEM, "out of memory keeping the footer's warnings");
}

/* Keep the `n`-byte message `text` (NUL not counted) in the next slot. */
static pq_status keep(pq_warnings *w, const char *text, size_t n, pq_error *err)
{
    if (!w->items) {
        w->items = pq_arena_calloc(w->arena, PQ_METADATA_MAX_WARNINGS + 1, sizeof *w->items);
        if (!w->items) return nomem(err);
    }
    char *copy = pq_arena_strndup(w->arena, text, n);
    if (!copy) return nomem(err);
    w->items[w->len++] = copy;
    return PQ_OK;
}

pq_status pq_warnings_add(pq_warnings *w, pq_error *err, const char *fmt, ...)
{
    if (!w) return PQ_OK;
    if (w->len >= PQ_METADATA_MAX_WARNINGS) {
        w->dropped++;
        return PQ_OK;
    }
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof text) n = (int)sizeof text - 1;
    return keep(w, text, (size_t)n, err);
}

pq_status pq_warnings_finish(pq_warnings *w, pq_error *err)
{
    if (!w || !w->dropped) return PQ_OK;
    char text[160];
    int n = snprintf(text, sizeof text, "%" PRIu64 " more warnings like these were left out (at most %d are kept)",
                     w->dropped, PQ_METADATA_MAX_WARNINGS);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof text) n = (int)sizeof text - 1;
    return keep(w, text, (size_t)n, err);
}
