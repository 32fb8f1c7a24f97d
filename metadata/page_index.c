/*
 * page_index.c — OffsetIndex decoding (see page_index.h). The struct is
 * small and read once per chunk a row range touches, so a plain field loop
 * does; the checks are what matter, since a wrong location would make the
 * reader decode the wrong bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "metadata/compact.h"
#include "metadata/error.h"
#include "metadata/page_index.h"

void pq_offset_index_free(pq_offset_index *oi)
{
    if (!oi) return;
    free(oi->pages);
    free(oi->unencoded_bytes);
    oi->pages = NULL;
    oi->unencoded_bytes = NULL;
    oi->npages = 0;
}

/* PageLocation: 1 offset i64, 2 compressed_page_size i32, 3 first_row_index i64. */
static pq_status decode_location(pq_compact *c, size_t i, pq_page_location *loc, pq_error *err)
{
    unsigned seen = 0;
    int16_t id = 0;
    for (;;) {
        int type = pq_compact_field(c, &id);
        if (c->bad) break;
        if (type == PQ_WIRE_STOP) break;
        if (id == 1 && type == PQ_WIRE_I64) {
            loc->offset = pq_compact_i64(c);
            seen |= 1;
        } else if (id == 2 && type == PQ_WIRE_I32) {
            loc->compressed_page_size = pq_compact_i32(c);
            seen |= 2;
        } else if (id == 3 && type == PQ_WIRE_I64) {
            loc->first_row_index = pq_compact_i64(c);
            seen |= 4;
        } else if (!pq_compact_skip(c, type, false, 1)) {
            c->bad = true;
        }
        if (c->bad) break;
    }
    if (c->bad)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "OffsetIndex.page_locations[%zu]: malformed", i);
    if (seen != 7)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "OffsetIndex.page_locations[%zu]: required field %s missing", i,
                            !(seen & 1) ? "offset" : !(seen & 2) ? "compressed_page_size"
                                                                 : "first_row_index");
    return PQ_OK;
}

static pq_status check_locations(const pq_offset_index *oi, uint64_t chunk_offset, uint64_t chunk_len,
                                 int64_t num_rows, pq_error *err)
{
    if (oi->npages == 0)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "OffsetIndex.page_locations: empty");
    uint64_t chunk_end = chunk_offset + chunk_len;
    uint64_t prev_end = chunk_offset;
    for (size_t i = 0; i < oi->npages; i++) {
        const pq_page_location *p = &oi->pages[i];
        if (p->offset < 0 || p->compressed_page_size <= 0 || (uint64_t)p->offset < prev_end ||
            (uint64_t)p->offset + (uint64_t)p->compressed_page_size > chunk_end)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "OffsetIndex.page_locations[%zu]: page at %lld (%d bytes) is outside "
                                "the chunk [%llu, %llu) or overlaps the page before",
                                i, (long long)p->offset, p->compressed_page_size,
                                (unsigned long long)chunk_offset, (unsigned long long)chunk_end);
        /* Writers put empty pages (no rows) in, so rows may repeat, and a
         * last empty page may start at num_rows. */
        bool rows_ok = i == 0 ? p->first_row_index == 0
                              : p->first_row_index >= oi->pages[i - 1].first_row_index;
        if (!rows_ok || p->first_row_index > num_rows)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "OffsetIndex.page_locations[%zu]: first_row_index %lld goes back "
                                "or past the row group's %lld rows",
                                i, (long long)p->first_row_index, (long long)num_rows);
        prev_end = (uint64_t)p->offset + (uint64_t)p->compressed_page_size;
    }
    return PQ_OK;
}

pq_status pq_offset_index_decode(const uint8_t *buf, size_t len, uint64_t chunk_offset,
                                 uint64_t chunk_len, int64_t num_rows, pq_offset_index *out,
                                 pq_error *err)
{
    memset(out, 0, sizeof *out);
    pq_compact cur, *c = &cur;
    pq_compact_init(c, buf, len);
    bool have_locations = false;
    int16_t id = 0;
    pq_status st = PQ_OK;
    int64_t *sizes = NULL;
    size_t nsizes = 0;
    for (;;) {
        int type = pq_compact_field(c, &id);
        if (c->bad || type == PQ_WIRE_STOP) break;
        if (id == 1 && type == PQ_WIRE_LIST && !have_locations) {
            int et;
            uint32_t n = pq_compact_list(c, &et);
            if (c->bad || et != PQ_WIRE_STRUCT) {
                st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "OffsetIndex.page_locations: malformed list");
                break;
            }
            out->pages = calloc(n ? n : 1, sizeof *out->pages);
            if (!out->pages) {
                st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory for %u page locations", n);
                break;
            }
            out->npages = n;
            for (uint32_t i = 0; st == PQ_OK && i < n; i++) st = decode_location(c, i, &out->pages[i], err);
            if (st != PQ_OK) break;
            have_locations = true;
        } else if (id == 2 && type == PQ_WIRE_LIST && !sizes) {
            int et;
            uint32_t n = pq_compact_list(c, &et);
            if (c->bad) break;
            if (et != PQ_WIRE_I64) { /* not as the format says: skipped */
                for (uint32_t i = 0; i < n && !c->bad; i++) pq_compact_skip(c, et, true, 1);
                continue;
            }
            sizes = malloc((n ? n : 1) * sizeof *sizes);
            if (!sizes) {
                st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory for %u page sizes", n);
                break;
            }
            nsizes = n;
            for (uint32_t i = 0; i < n && !c->bad; i++) sizes[i] = pq_compact_i64(c);
        } else if (!pq_compact_skip(c, type, false, 0)) {
            c->bad = true;
        }
        if (c->bad) break;
    }
    if (st == PQ_OK && c->bad)
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "OffsetIndex: malformed (%s)",
                          c->too_deep ? "nested too deep" : "truncated or bad varint");
    if (st == PQ_OK && !have_locations)
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "OffsetIndex.page_locations: missing");
    if (st == PQ_OK) st = check_locations(out, chunk_offset, chunk_len, num_rows, err);
    bool sizes_fit = st == PQ_OK && sizes && nsizes == out->npages;
    for (size_t i = 0; sizes_fit && i < nsizes; i++) sizes_fit = sizes[i] >= 0;
    if (sizes_fit) out->unencoded_bytes = sizes;
    else free(sizes);
    if (st != PQ_OK) pq_offset_index_free(out);
    return st;
}
