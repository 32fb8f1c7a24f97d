/*
 * options.h — the reader's options: defaults, and taking in a caller's
 * struct whatever header it was built against (options.c).
 */
#ifndef PQ_READER_OPTIONS_H
#define PQ_READER_OPTIONS_H

#include "pq_reader.h"

/* *dst = the caller's options `src` (NULL: the defaults), fields it does
 * not know at their defaults. PQ_ERR_INVALID_ARGUMENT for a struct not
 * made by pq_reader_options_init (struct_size 0, or too small);
 * PQ_ERR_UNSUPPORTED for a newer caller's that sets a field this library
 * lacks. Pointers in it are not copied. */
pq_status pq_reader_options_take(pq_reader_options *dst, const pq_reader_options *src, pq_error *err);

#endif
