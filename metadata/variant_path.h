/*
 * variant_path.h — paths into VARIANT columns ("v.a.b", "v.items[2].id"):
 * parsed into steps, and matched against a shredded column's schema.
 */
#ifndef PQ_METADATA_VARIANT_PATH_H
#define PQ_METADATA_VARIANT_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_metadata.h"

/* Steps a path may take; deeper ones are refused. */
#define PQ_VARIANT_PATH_MAX_STEPS 64

/* One step: into an object's field `name` (len bytes, not NUL-terminated),
 * or (index >= 0) into an array's element. */
typedef struct pq_variant_step {
    const char *name;
    size_t len;
    int64_t index;
} pq_variant_step;

/* The top-level VARIANT group node whose name begins `path` and is
 * followed by '.' or '[' (the longest such name), or -1; *rest the text
 * after the name. */
int32_t pq_variant_path_column(const pq_schema *sc, const char *path, const char **rest);

/* The steps of `rest` (".a.b[2]"; "" is none) into steps[cap], their count
 * in *n. An empty field name, a bad index or more than cap steps is
 * PQ_ERR_INVALID_ARGUMENT. */
pq_status pq_variant_path_steps(const char *rest, pq_variant_step *steps, size_t cap, size_t *n, pq_error *err);

/* Child `name` (len bytes) of group node g, or -1. */
int32_t pq_variant_schema_child(const pq_schema *sc, int32_t g, const char *name, size_t len);

/* The {value, typed_value} group a step leads to from group g (whose
 * typed_value is an object of such groups, or a LIST of them), or -1 where
 * g's typed_value does not shred it. */
int32_t pq_variant_schema_step(const pq_schema *sc, int32_t g, const pq_variant_step *step);

#endif
