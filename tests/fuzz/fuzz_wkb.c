/*
 * fuzz_wkb.c — libFuzzer target for WKB envelopes (predicate/geo.c), what
 * bbox_intersects evaluates rows by. Checked beyond "no crash, no read out
 * of bounds": the planar and the GEOGRAPHY reading of the same bytes agree
 * on whether they are WKB, on emptiness and on y; a planar envelope is
 * ordered (xmin <= xmax, ymin <= ymax) and NaN-free, and the GEOGRAPHY
 * envelope's longitudes are among the planar range's; a box equal to a
 * planar envelope meets it.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "predicate/geo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pq_envelope a, b;
    pq_error err;
    pq_status sa = pq_wkb_envelope(data, size, false, &a, &err);
    pq_status sb = pq_wkb_envelope(data, size, true, &b, &err);
    if (sa == PQ_ERR_NOMEM || sb == PQ_ERR_NOMEM) return 0;
    if (sa != sb) abort();
    if (sa != PQ_OK) return 0;
    if (a.empty != b.empty) abort();
    if (a.empty) return 0;
    if (isnan(a.xmin) || isnan(a.xmax) || isnan(a.ymin) || isnan(a.ymax)) abort();
    if (a.xmin > a.xmax || a.ymin > a.ymax) abort();
    if (a.ymin != b.ymin || a.ymax != b.ymax) abort();
    if (b.xmin < a.xmin || b.xmin > a.xmax || b.xmax < a.xmin || b.xmax > a.xmax) abort();
    double box[4] = {a.xmin, a.ymin, a.xmax, a.ymax};
    if (!pq_boxes_meet(box, box)) abort();
    return 0;
}
