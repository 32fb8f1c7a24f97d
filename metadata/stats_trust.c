/* stats_trust.c — which of a file's statistics may be believed (stats_trust.h). */
#include "metadata/stats_trust.h"

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
