/*
 * column_index.c — ColumnIndex decoding (see column_index.h). Read once per
 * chunk a predicate touches, so a plain field loop; each list is checked
 * against the page count before anything is allocated for it.
 */
#include <stdlib.h>
#include <string.h>

#include "metadata/column_index.h"
#include "metadata/compact.h"
#include "metadata/error.h"

void pq_column_index_free(pq_column_index *ci)
{
    if (!ci) return;
    free(ci->null_pages);
    free(ci->min_values);
    free(ci->max_values);
    free(ci->null_counts);
    free(ci->nan_counts);
    memset(ci, 0, sizeof *ci);
}

static pq_status malformed(const pq_compact *c, const char *field, pq_error *err)
{
    return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "ColumnIndex.%s: malformed (%s)", field,
                        c->too_deep ? "nested too deep" : "truncated or bad varint");
}

/* A list header whose element type is one of `et1`/`et2` and whose size is
 * the page count. */
static pq_status list_of(pq_compact *c, const char *field, int et1, int et2, size_t npages,
                         pq_error *err)
{
    int et;
    uint32_t n = pq_compact_list(c, &et);
    if (c->bad) return malformed(c, field, err);
    if (et != et1 && et != et2)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "ColumnIndex.%s: list of wire type %d", field,
                            et);
    if (n != npages)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "ColumnIndex.%s: %u entries for %zu pages",
                            field, n, npages);
    return PQ_OK;
}

/* list<bool>: one byte per element inside a list, 1 true; writers use 2 (or
 * 0) for false. */
static pq_status read_bools(pq_compact *c, size_t npages, bool **out, pq_error *err)
{
    pq_status st = list_of(c, "null_pages", PQ_WIRE_BOOL_TRUE, PQ_WIRE_BOOL_FALSE, npages, err);
    if (st != PQ_OK) return st;
    *out = malloc(npages * sizeof **out);
    if (!*out) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for %zu pages", npages);
    for (size_t i = 0; i < npages; i++) {
        int8_t b = pq_compact_byte(c);
        if (c->bad) return malformed(c, "null_pages", err);
        if (b != 0 && b != PQ_WIRE_BOOL_TRUE && b != PQ_WIRE_BOOL_FALSE)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "ColumnIndex.null_pages[%zu]: bool byte %d", i, b);
        (*out)[i] = b == PQ_WIRE_BOOL_TRUE;
    }
    return PQ_OK;
}

static pq_status read_binaries(pq_compact *c, const char *field, size_t npages, pq_bytes **out,
                               pq_error *err)
{
    pq_status st = list_of(c, field, PQ_WIRE_BINARY, PQ_WIRE_BINARY, npages, err);
    if (st != PQ_OK) return st;
    *out = malloc(npages * sizeof **out);
    if (!*out) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for %zu pages", npages);
    for (size_t i = 0; i < npages; i++) {
        (*out)[i].ptr = pq_compact_binary(c, &(*out)[i].len);
        if (c->bad) return malformed(c, field, err);
    }
    return PQ_OK;
}

static pq_status read_counts(pq_compact *c, const char *field, size_t npages, int64_t **out, pq_error *err)
{
    pq_status st = list_of(c, field, PQ_WIRE_I64, PQ_WIRE_I64, npages, err);
    if (st != PQ_OK) return st;
    *out = malloc(npages * sizeof **out);
    if (!*out) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for %zu pages", npages);
    for (size_t i = 0; i < npages; i++) {
        int64_t v = pq_compact_i64(c);
        if (c->bad) return malformed(c, field, err);
        (*out)[i] = v < 0 ? PQ_NULL_COUNT_UNKNOWN : v;
    }
    return PQ_OK;
}

static pq_status decode(pq_compact *c, size_t npages, pq_column_index *out, pq_error *err)
{
    static const char *const names[] = {"null_pages", "min_values", "max_values", "boundary_order",
                                        "null_counts", "", "", "nan_counts"};
    unsigned seen = 0;
    int16_t id = 0;
    for (;;) {
        int type = pq_compact_field(c, &id);
        if (c->bad) return malformed(c, "field header", err);
        if (type == PQ_WIRE_STOP) break;
        bool known = (id >= 1 && id <= 3 && type == PQ_WIRE_LIST) || (id == 4 && type == PQ_WIRE_I32) ||
                     ((id == 5 || id == 8) && type == PQ_WIRE_LIST);
        if (!known) {
            if (!pq_compact_skip(c, type, false, 1)) return malformed(c, "unknown field", err);
            continue;
        }
        /* Thrift leaves a repeated field undefined: refuse it. */
        if (seen & (1u << (id - 1)))
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "ColumnIndex.%s: repeated", names[id - 1]);
        seen |= 1u << (id - 1);
        pq_status st = PQ_OK;
        switch (id) {
        case 1: st = read_bools(c, npages, &out->null_pages, err); break;
        case 2: st = read_binaries(c, "min_values", npages, &out->min_values, err); break;
        case 3: st = read_binaries(c, "max_values", npages, &out->max_values, err); break;
        case 4: {
            int32_t v = pq_compact_i32(c);
            if (c->bad) return malformed(c, "boundary_order", err);
            if (v < PQ_BOUNDARY_UNORDERED || v > PQ_BOUNDARY_DESCENDING)
                return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                    "ColumnIndex.boundary_order: invalid value %d", v);
            out->boundary_order = v;
            break;
        }
        case 5: st = read_counts(c, "null_counts", npages, &out->null_counts, err); break;
        case 8: st = read_counts(c, "nan_counts", npages, &out->nan_counts, err); break;
        }
        if (st != PQ_OK) return st;
    }
    for (unsigned i = 0; i < 4; i++)
        if (!(seen & (1u << i)))
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "ColumnIndex.%s: required field missing",
                                names[i]);
    return PQ_OK;
}

pq_status pq_column_index_decode(const uint8_t *buf, size_t len, size_t npages,
                                 pq_column_index *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    if (npages == 0)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "ColumnIndex: a chunk of 0 pages");
    if (!buf && len) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "ColumnIndex: NULL buffer");
    static const uint8_t empty[1];
    if (!buf) buf = empty; /* no pointer arithmetic on NULL */
    pq_compact cur;
    pq_compact_init(&cur, buf, len);
    pq_status st = decode(&cur, npages, out, err);
    if (st != PQ_OK) {
        pq_column_index_free(out);
        return st;
    }
    out->npages = npages;
    return PQ_OK;
}
