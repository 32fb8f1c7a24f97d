/*
 * pqstep.h — the whole public API of pqstep, a staged Parquet reader.
 *
 *   pq_error.h     status codes and the error record
 *   pq_metadata.h  the parsed footer: structs, schema tree, parsing, lifetime
 *   pq_cache.h     a thread-safe LRU cache of parsed footers
 *   pq_pages.h     a column chunk's walked pages
 *   pq_reader.h    the reader's stage machine, sources and sans-IO ranges
 *   pq_arrow.h     the Arrow C data, stream and device interfaces
 *   pq_text.h      values and schemas as text
 *   pq_predicate.h filter expressions for pushdown
 *   pq_remote.h    http(s) and s3 sources
 *   pq_dataset.h   many files read as one table
 *   pq_variant.h   VARIANT values checked and rendered as JSON
 *
 * Structs that carry a struct_size field grow by appending fields: fill
 * them with their _init function. Stats structs are handed out through
 * getters that take the caller's sizeof.
 *
 * Each function is documented where it is declared, with ownership and
 * lifetime. Link with -lpqstep (pkg-config --libs pqstep).
 */
#ifndef PQSTEP_H
#define PQSTEP_H

#define PQSTEP_VERSION_MAJOR 0
#define PQSTEP_VERSION_MINOR 1
#define PQSTEP_VERSION_PATCH 0
#define PQSTEP_VERSION_STRING "0.1.0"

#include "pq_error.h"
#include "pq_metadata.h"
#include "pq_cache.h"
#include "pq_reader.h"
#include "pq_arrow.h"
#include "pq_text.h"
#include "pq_predicate.h"
#include "pq_remote.h"
#include "pq_dataset.h"
#include "pq_variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string, e.g. "0.1.0". */
PQ_API const char *pq_version(void);

#ifdef __cplusplus
}
#endif
#endif /* PQSTEP_H */
