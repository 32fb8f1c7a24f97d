/*
 * error.h — filling a caller's pq_error. Internal to the library.
 */
#ifndef PQ_INTERNAL_ERROR_H
#define PQ_INTERNAL_ERROR_H

#include "pq_error.h"

/* Fill `err` (when not NULL) with `code` and a printf-style message; returns
 * `code` so that callers can `return pq_error_set(err, ...)`. */
pq_status pq_error_set(pq_error *err, pq_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
