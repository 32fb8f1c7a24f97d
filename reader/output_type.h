/*
 * output_type.h — the Arrow type each leaf comes out of the decode stage
 * as: the default mapping (pq_metadata_arrow_schema) changed by the
 * reader's options (string_type, decimal_type, int96_unit) and, when follow_arrow_schema
 * is set, by the Arrow schema the writer stored (ARROW:schema).
 *
 * The select stage makes the table (pq_output_types_make) and owns it; the
 * page-header stage's late materialization and the decode stage read it,
 * and the export applies it to the schemas it hands out. string_type,
 * decimal_type, string views and dictionary arrays change flat leaves (a
 * top-level column with no repetition) alone; int96_unit and the writer's
 * large strings, time zones and durations apply at any depth (inside a
 * struct, list or map the nested assembly builds them), and so do its
 * large_list levels (pq_output_large_lists); fixed_size_list stays list.
 */
#ifndef PQ_READER_OUTPUT_TYPE_H
#define PQ_READER_OUTPUT_TYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "pq_arrow.h"
#include "pq_reader.h"
#include "reader/arrow_column.h"

/* What one leaf becomes. */
typedef struct pq_leaf_output {
    uint8_t strings;      /* pq_string_type; PQ_STRINGS_STRING unless a flat string/binary leaf,
                           * or a nested one the writer's schema makes large */
    bool decimal64;       /* a decimal of at most 18 digits as decimal64 */
    bool duration;        /* an INT64 the writer's schema calls a duration (unit below) */
    uint8_t unit;         /* duration: pq_time_unit (PQ_UNIT_SECONDS included) */
    const char *timezone; /* a UTC timestamp's time zone from the writer's schema, or NULL */
    uint8_t int96_unit;   /* an INT96 timestamp in a unit other than the schema's nanoseconds
                           * (opts.int96_unit: pq_time_unit), or 0 */
    char dict_index;      /* a dictionary array's index format ("c" "C" "s" "S" "i" "I" "l" "L"
                           * as the writer's schema names it; 0: "i") */
    bool dict_ordered;    /* a dictionary array the writer's schema calls ordered */
} pq_leaf_output;

typedef struct pq_output_types pq_output_types;

/* The table for `md`'s leaves under `opts`. Errors: PQ_ERR_CORRUPT_DATA
 * when follow_arrow_schema is set and the stored ARROW:schema cannot be
 * decoded (naming what is wrong); PQ_ERR_INVALID_ARGUMENT for an unknown
 * string_type, decimal_type or int96_unit; PQ_ERR_NOMEM. */
pq_status pq_output_types_make(const pq_reader_options *opts, const pq_metadata *md, pq_output_types **out,
                               pq_error *err);

void pq_output_types_free(pq_output_types *t);

/* Leaf `leaf`'s entry (a leaf index of md's schema). */
const pq_leaf_output *pq_output_types_leaf(const pq_output_types *t, uint32_t leaf);

/* Leaf `leaf` as the decode stage builds it: its pq_leaf with the Arrow
 * type changed (decimal64, large strings, durations, INT96 units). `for_filter`: as the
 * filter evaluates it, which takes decimal64 and views but reads strings
 * as int32-offset strings and durations as int64. */
pq_leaf pq_output_leaf(const pq_output_types *t, const pq_schema *schema, uint32_t leaf, bool for_filter);

/* Whether the filter's own column of leaf `leaf` is its output column
 * too, so late materialization may hand it to the decode stage. */
bool pq_output_same_for_filter(const pq_output_types *t, const pq_schema *schema, uint32_t leaf);

/* The list levels (keys as pq_arrow_leaf_levels gives them) the writer's
 * schema makes large_list, in *keys / *n (owned by t); whether any. */
bool pq_output_large_lists(const pq_output_types *t, const int64_t **keys, size_t *n);

/* Dictionary column *c (int32 indices, as pq_arrow_column_build_dictionary
 * builds it) of leaf `leaf` given the index type the writer's schema names
 * (pq_leaf_output.dict_index): indices narrowed or widened in a new buffer,
 * or kept (uint32: the same bytes). PQ_ERR_UNSUPPORTED, naming the column,
 * when the dictionary has more entries than that type indexes. */
pq_status pq_output_dictionary_indices(const pq_output_types *t, const pq_schema *schema, uint32_t leaf,
                                       pq_arrow_column *c, pq_error *err);

/* Whether leaf `leaf` decodes into string views (views are read by the
 * filter too). */
bool pq_output_views(const pq_output_types *t, uint32_t leaf);

/* Whether leaf `leaf` comes out as a dictionary array (never for the
 * filter's own columns). */
bool pq_output_dictionary(const pq_output_types *t, uint32_t leaf);

/* Apply the table to schema `s` exported for leaves `columns` (n): flat
 * batches (flat) map field i to columns[i]; otherwise a flat leaf is the
 * top-level field of its name, and a nested leaf the leaf field of its
 * place among the selected leaves inside it. `for_filter` as for pq_output_leaf.
 * Errors: PQ_ERR_NOMEM (s is still whole and must be released). */
pq_status pq_output_schema(const pq_output_types *t, const pq_schema *schema, const uint32_t *columns, size_t n,
                           bool flat, bool for_filter, struct ArrowSchema *s, pq_error *err);

/* The schema of every batch of a selection of the leaves columns[0..n):
 * a flat selection one field per leaf, in order, a nested one a field per
 * top-level field (pq_metadata_arrow_schema), with t's output types, and
 * the shredded VARIANT fields the decode rebuilds as arrow.parquet.variant
 * (pq_output_rebuilds_variant). The caller releases *out. */
pq_status pq_output_selection_schema(const pq_output_types *t, const pq_metadata *md, const uint32_t *columns,
                                     size_t n, struct ArrowSchema *out, pq_error *err);

/* pq_output_selection_schema with every VARIANT field as it is stored
 * (its metadata, value and typed_value): what the decode builds first. */
pq_status pq_output_storage_schema(const pq_output_types *t, const pq_metadata *md, const uint32_t *columns, size_t n,
                                   struct ArrowSchema *out, pq_error *err);

/* Whether the top-level field named `field` of the selection
 * columns[0..n) is a shredded VARIANT that the decode rebuilds: not
 * variant_storage nor device_output, and every leaf of the field selected
 * (one read in part keeps its storage). */
bool pq_output_rebuilds_variant(const pq_output_types *t, const pq_schema *schema, const uint32_t *columns, size_t n,
                                const char *field);

#endif
