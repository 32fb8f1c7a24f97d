/*
 * options.h — pq_remote_options: the defaults, and taking in a caller's
 * struct whatever header it was built against (options.c).
 */
#ifndef PQ_REMOTE_OPTIONS_H
#define PQ_REMOTE_OPTIONS_H

#include "pq_remote.h"

/* *dst = the caller's options `src` (NULL: the defaults), whatever header
 * it was built against (metadata/options_size.h), with their ranges
 * checked (max_connections 1..64, tail_bytes <= 16 MiB, addressing known,
 * max_retries <= 100). The strings are not copied. */
pq_status pq_remote_options_take(pq_remote_options *dst, const pq_remote_options *src, pq_error *err);

#endif
