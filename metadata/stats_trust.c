/* stats_trust.c — which of a file's statistics may be believed (stats_trust.h). */
#include "metadata/stats_trust.h"

#include <string.h>

bool pq_ordered_bounds_usable(const pq_file_metadata *fm, uint32_t leaf_index, bool floating)
{
    if (!fm || leaf_index >= fm->column_orders_len || !fm->column_orders) return false;
    int32_t order = fm->column_orders[leaf_index];
    return order == PQ_COLUMN_ORDER_TYPE_DEFINED || (floating && order == PQ_COLUMN_ORDER_IEEE754_TOTAL);
}

bool pq_null_counts_usable(const pq_file_metadata *fm)
{
    static const char polars[] = "Polars";
    if (!fm) return false;
    /* polars wrote "Polars" alone from 0.19 on; the releases that counted
     * right (0.20.10 and later) also write column_orders */
    bool old_polars = fm->created_by.len == sizeof polars - 1 && fm->created_by.ptr &&
                      memcmp(fm->created_by.ptr, polars, sizeof polars - 1) == 0 && fm->column_orders_len == 0;
    return !old_polars;
}
