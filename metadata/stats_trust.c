/* stats_trust.c — which of a file's statistics may be believed (stats_trust.h). */
#include "metadata/stats_trust.h"

#include <stdio.h>
#include <string.h>

bool pq_ordered_bounds_usable(const pq_file_metadata *fm, uint32_t leaf_index, bool floating)
{
    if (!fm || leaf_index >= fm->column_orders_len || !fm->column_orders) return false;
    int32_t order = fm->column_orders[leaf_index];
    return order == PQ_COLUMN_ORDER_TYPE_DEFINED || (floating && order == PQ_COLUMN_ORDER_IEEE754_TOTAL);
}

static bool created_by_is(const pq_file_metadata *fm, const char *name)
{
    size_t n = strlen(name);
    return fm->created_by.ptr && fm->created_by.len == n && memcmp(fm->created_by.ptr, name, n) == 0;
}

pq_null_trust pq_null_counts_trust(const pq_file_metadata *fm)
{
    if (!fm) return PQ_NULLS_UNKNOWN;
    /* polars wrote "Polars" alone from 0.19 on; the releases that counted
     * right (0.20.10 and later) also write column_orders */
    if (created_by_is(fm, "Polars") && fm->column_orders_len == 0) return PQ_NULLS_UNKNOWN;
    /* DuckDB wrote "DuckDB" alone up to 1.0 (later: "DuckDB version v1.1.0
     * (build ...)"); 0.10 counted right, 0.8 and 0.9 did not, and nothing
     * else in the footer tells them apart */
    if (created_by_is(fm, "DuckDB")) return PQ_NULLS_OVER;
    return PQ_NULLS_EXACT;
}

/* Whether some chunk of the file states min_value / max_value. */
static bool has_ordered_bounds(const pq_file_metadata *fm)
{
    for (uint32_t g = 0; g < fm->row_groups_len; g++)
        for (uint32_t c = 0; c < fm->row_groups[g].columns_len; c++) {
            const pq_column_chunk *cc = fm->row_groups[g].columns[c];
            if (cc && (cc->set & PQ_CC_HAS_META_DATA) && (cc->meta_data.set & PQ_CMD_HAS_STATISTICS) &&
                (cc->meta_data.statistics.set & (PQ_STATS_HAS_MIN_VALUE | PQ_STATS_HAS_MAX_VALUE)))
                return true;
        }
    return false;
}

size_t pq_metadata_statistics_note(const pq_metadata *md, char *buf, size_t cap)
{
    const pq_file_metadata *fm = md ? pq_metadata_file(md) : NULL;
    const char *bounds = "", *nulls = "";
    if (fm && fm->column_orders_len == 0 && has_ordered_bounds(fm))
        bounds = "min_value/max_value and page-index bounds unused: the file names no column order";
    pq_null_trust t = fm ? pq_null_counts_trust(fm) : PQ_NULLS_EXACT;
    if (t == PQ_NULLS_UNKNOWN)
        nulls = "null counts unused: its writer (polars 0.19 to 0.20.9) counted some nulls as none";
    else if (t == PQ_NULLS_OVER)
        nulls = "null counts above 0 unused: its writer (DuckDB up to 1.0) may have counted nulls over";
    int n = snprintf(buf, cap, "%s%s%s", bounds, *bounds && *nulls ? "; " : "", nulls);
    return n < 0 ? 0 : (size_t)n;
}
