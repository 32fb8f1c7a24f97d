/*
 * statistics_wire.h — one field of a Thrift `Statistics` struct, shared by
 * the decoders that meet it: ColumnMetaData.statistics in the footer and the
 * data page headers' statistics.
 */
#ifndef PQ_STATISTICS_WIRE_H
#define PQ_STATISTICS_WIRE_H

#include <stdbool.h>

#include "metadata/compact.h"
#include "pq_metadata.h"

/* Field names by id, for error messages ("" at 0). */
static const char *const pq_statistics_field_names[10] = {
    "", "max", "min", "null_count", "distinct_count", "max_value", "min_value",
    "is_max_value_exact", "is_min_value_exact", "nan_count"};

/* Read field `id`, sent with wire type `ft`, into `s`. Returns false when it
 * is not a Statistics field of that type: the caller skips it, as Thrift's
 * generated readers do. Check c->bad afterwards. Binary values are spans
 * into the cursor's buffer. */
PQ_HOT_INLINE bool pq_statistics_field(pq_compact *c, pq_statistics *s, int16_t id, int ft)
{
    bool is_bool = ft == PQ_WIRE_BOOL_TRUE || ft == PQ_WIRE_BOOL_FALSE;
    switch (id) {
    case 1:
        if (ft != PQ_WIRE_BINARY) return false;
        s->max.ptr = pq_compact_binary(c, &s->max.len);
        s->set |= PQ_STATS_HAS_MAX;
        return true;
    case 2:
        if (ft != PQ_WIRE_BINARY) return false;
        s->min.ptr = pq_compact_binary(c, &s->min.len);
        s->set |= PQ_STATS_HAS_MIN;
        return true;
    case 3:
        if (ft != PQ_WIRE_I64) return false;
        s->null_count = pq_compact_i64(c);
        s->set |= PQ_STATS_HAS_NULL_COUNT;
        return true;
    case 4:
        if (ft != PQ_WIRE_I64) return false;
        s->distinct_count = pq_compact_i64(c);
        s->set |= PQ_STATS_HAS_DISTINCT_COUNT;
        return true;
    case 5:
        if (ft != PQ_WIRE_BINARY) return false;
        s->max_value.ptr = pq_compact_binary(c, &s->max_value.len);
        s->set |= PQ_STATS_HAS_MAX_VALUE;
        return true;
    case 6:
        if (ft != PQ_WIRE_BINARY) return false;
        s->min_value.ptr = pq_compact_binary(c, &s->min_value.len);
        s->set |= PQ_STATS_HAS_MIN_VALUE;
        return true;
    case 7:
        if (!is_bool) return false;
        s->is_max_value_exact = ft == PQ_WIRE_BOOL_TRUE;
        s->set |= PQ_STATS_HAS_IS_MAX_EXACT;
        return true;
    case 8:
        if (!is_bool) return false;
        s->is_min_value_exact = ft == PQ_WIRE_BOOL_TRUE;
        s->set |= PQ_STATS_HAS_IS_MIN_EXACT;
        return true;
    case 9: /* parquet-format 2.13: NaNs among FLOAT, DOUBLE and FLOAT16 values */
        if (ft != PQ_WIRE_I64) return false;
        s->nan_count = pq_compact_i64(c);
        s->set |= PQ_STATS_HAS_NAN_COUNT;
        return true;
    default:
        return false;
    }
}

#endif
