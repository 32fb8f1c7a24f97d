/*
 * export.c — handing decoded rows out (after the decode stage): row ranges
 * and runs of the selection, the output schema, record batches of a row
 * group or of a slice of one, and the batch cursor of
 * pq_reader_next_batch(), which is this file's state. The batches share
 * the decoded buffers (no copy).
 */
#include <stdlib.h>
#include <string.h>

#include "device/copies.h"
#include "metadata/error.h"
#include "reader/context.h"
#include "reader/empty_fields.h"
#include "reader/export.h"
#include "reader/output_type.h"
#include "reader/row_index.h"

/* Index of file row group `row_group` in the selection, or SIZE_MAX. */
static size_t selected_index(const pq_reader *r, uint32_t row_group)
{
    for (size_t g = 0; g < r->sel.row_groups_len; g++)
        if (r->sel.row_groups[g] == row_group) return g;
    return SIZE_MAX;
}

/* Selected row group g's rows: the decode stage's once it has run (the
 * filter's matches, renumbered), else the select stage's. */
static const pq_row_set *delivered_rows(const pq_reader *r, size_t g)
{
    return r->out.rows && g < r->out.groups ? &r->out.rows[g] : &r->sel.rows[g];
}

pq_status pq_reader_row_group_range(const pq_reader *r, uint32_t row_group, uint64_t *first_row,
                                    uint64_t *num_rows, pq_error *err)
{
    if (!r || !first_row || !num_rows)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader or output is NULL");
    if (r->stage < PQ_STAGE_SELECT || !r->sel.rows)
        return pq_error_set(err, PQ_ERR_STAGE, "the row range needs the select stage; the reader is at '%s'",
                            pq_stage_name(r->stage));
    size_t g = selected_index(r, row_group);
    if (g == SIZE_MAX)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "row group %u was not selected", row_group);
    const pq_row_set *s = delivered_rows(r, g);
    *first_row = pq_row_set_first(s);
    *num_rows = pq_row_set_end(s) - *first_row;
    return PQ_OK;
}

pq_status pq_reader_row_group_runs(const pq_reader *r, uint32_t row_group, pq_row_run *out, size_t cap,
                                   size_t *count, pq_error *err)
{
    if (!r || !count || (cap && !out))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader or output is NULL");
    *count = 0;
    if (r->stage < PQ_STAGE_SELECT || !r->sel.rows)
        return pq_error_set(err, PQ_ERR_STAGE, "the row runs need the select stage; the reader is at '%s'",
                            pq_stage_name(r->stage));
    size_t g = selected_index(r, row_group);
    if (g == SIZE_MAX)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "row group %u was not selected", row_group);
    const pq_row_set *s = delivered_rows(r, g);
    const pq_row_span *sp = pq_row_set_spans(s);
    for (size_t i = 0; i < s->n && i < cap; i++) out[i] = (pq_row_run){sp[i].first, sp[i].count};
    *count = s->n;
    return PQ_OK;
}

/* The schema of every batch of the selection: the decoded fields, and the
 * fields with no leaf in their places (empty_fields.h). */
static pq_status selection_schema(const pq_reader *r, struct ArrowSchema *out, pq_error *err)
{
    pq_status st = pq_output_selection_schema(r->sel.outputs, r->md, r->sel.columns, r->sel.columns_len, out, err);
    if (st != PQ_OK || !r->sel.empty_fields_len) return st;
    struct ArrowSchema decoded = *out;
    return pq_empty_fields_schema(r->md, r->sel.empty_fields, r->sel.empty_fields_len, &decoded, out, err);
}

/* The batch's columns: the decoded ones (cols, from their rows `offsets`)
 * with the fields that have no leaf put in, all null, for `count` rows.
 * *merged and *merged_offsets are new arrays of *total entries; the
 * columns made here are released by merged_free. */
static pq_status merge_empty_fields(const pq_reader *r, pq_arrow_column **cols, const int64_t *offsets, size_t ncols,
                                    uint64_t count, const struct ArrowSchema *schema, pq_arrow_column ***merged,
                                    int64_t **merged_offsets, size_t *total, pq_error *err)
{
    size_t n = ncols + r->sel.empty_fields_len;
    *total = n;
    *merged = calloc(n ? n : 1, sizeof **merged);
    *merged_offsets = calloc(n ? n : 1, sizeof **merged_offsets);
    if (!*merged || !*merged_offsets) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    if (schema->n_children != (int64_t)n)
        return pq_error_set(err, PQ_ERR_SCHEMA, "%zu arrays for %lld fields", n, (long long)schema->n_children);
    size_t next = 0, from = 0;
    for (size_t i = 0; i < n; i++) {
        if (next < r->sel.empty_fields_len && r->sel.empty_fields[next] == i) {
            next++;
            struct ArrowArray a;
            pq_status st = pq_empty_field_array(schema->children[i], (int64_t)count, &a, err);
            if (st == PQ_OK) st = pq_arrow_column_adopt(&a, (count + 7) / 8, &(*merged)[i], err);
            if (st != PQ_OK) return st;
        } else {
            (*merged)[i] = pq_arrow_column_retain(cols[from]);
            (*merged_offsets)[i] = offsets[from++];
        }
    }
    return PQ_OK;
}

static void merged_free(pq_arrow_column **merged, int64_t *merged_offsets, size_t n)
{
    for (size_t i = 0; merged && i < n; i++)
        if (merged[i]) pq_arrow_column_release(merged[i]);
    free(merged);
    free(merged_offsets);
}

pq_status pq_reader_output_schema(const pq_reader *r, struct ArrowSchema *out, pq_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!r || !out) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader and schema must not be NULL");
    if (!r->sel.outputs) return pq_error_set(err, PQ_ERR_STAGE, "the output schema is known after the select stage");
    pq_status st = selection_schema(r, out, err);
    if (st == PQ_OK && r->opts.row_index_name) st = pq_row_index_schema(out, r->opts.row_index_name, err);
    return st;
}

/* The file row numbers of rows [first, first + count) of selected row
 * group g as delivered, with `lead` zeros before them (the batch's
 * offset); malloc'd. */
static int64_t *row_numbers(const pq_reader *r, size_t g, uint64_t first, uint64_t count, int64_t lead)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    uint32_t rg = r->sel.row_groups[g];
    uint64_t base = 0;
    for (uint32_t i = 0; i < rg; i++) base += (uint64_t)fm->row_groups[i].num_rows;
    int64_t *v = calloc((size_t)lead + (size_t)count + 1, sizeof *v);
    if (!v) return NULL;
    const uint64_t *nums = r->out.row_numbers ? r->out.row_numbers[g] : NULL;
    for (uint64_t i = 0; i < count; i++) v[lead + (int64_t)i] = (int64_t)(base + (nums ? nums[first + i] : first + i));
    return v;
}

/* Rows [first, first + count) of selected row group g: slices of the
 * decoded arrays, where they are with as_stored (a device batch), else in
 * host memory (a copy when the arrays are in a device's memory). */
static pq_status export_slice(pq_reader *r, size_t g, uint64_t first, uint64_t count, bool as_stored,
                              struct ArrowArray *out_array, struct ArrowSchema *out_schema, pq_error *err)
{
    size_t n = r->sel.columns_len;
    pq_arrow_column **cols = r->out.cols + g * n;
    const uint64_t *bases = r->out.first_row + g * n;
    size_t ncols = n;
    pq_status st = PQ_OK;
    bool flat = pq_reader_selection_is_flat(r, pq_metadata_schema(r->md));
    if (!flat) { /* one field per top-level field, as run_nested packed them */
        ncols = 0;
        while (ncols < n && cols[ncols]) ncols++;
    }
    size_t nempty = r->sel.empty_fields_len;
    if (nempty && r->out.memory == OUTPUT_ON_DEVICE)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED,
                            "the file has a field with no leaf, which device_output does not deliver: "
                            "read without device_output, or name the columns");
    if (out_schema) {
        st = selection_schema(r, out_schema, err);
        if (st == PQ_OK && out_schema->n_children != (int64_t)(ncols + nempty)) {
            st = pq_error_set(err, PQ_ERR_SCHEMA, "%zu arrays for %lld fields", ncols,
                              (long long)out_schema->n_children);
            out_schema->release(out_schema);
        }
    }
    if (st != PQ_OK) return st;
    int64_t *offsets = malloc((ncols ? ncols : 1) * sizeof *offsets);
    if (offsets && nempty) {
        for (size_t i = 0; i < ncols; i++) offsets[i] = count ? (int64_t)(first - bases[i]) : 0;
        struct ArrowSchema own = {0};
        const struct ArrowSchema *s = out_schema;
        if (!s && (st = selection_schema(r, &own, err)) == PQ_OK) s = &own;
        pq_arrow_column **merged = NULL;
        int64_t *merged_offsets = NULL;
        size_t total = 0;
        if (st == PQ_OK)
            st = merge_empty_fields(r, cols, offsets, ncols, count, s, &merged, &merged_offsets, &total, err);
        if (st == PQ_OK) st = pq_arrow_batch_export(merged, merged_offsets, total, (int64_t)count, out_array, err);
        merged_free(merged, merged_offsets, total);
        if (own.release) own.release(&own);
        free(offsets);
    } else if (offsets) {
        for (size_t i = 0; i < ncols; i++) offsets[i] = count ? (int64_t)(first - bases[i]) : 0;
        st = pq_arrow_batch_export(cols, offsets, ncols, (int64_t)count, out_array, err);
        free(offsets);
    } else {
        st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (st == PQ_OK && r->opts.row_index_name) {
        int64_t *v = row_numbers(r, g, first, count, out_array->offset);
        if (!v) {
            out_array->release(out_array);
            st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        } else {
            st = pq_row_index_array(out_array, v, err);
        }
        if (st == PQ_OK && out_schema) st = pq_row_index_schema(out_schema, r->opts.row_index_name, err);
        if (st != PQ_OK && out_array->release) out_array->release(out_array);
    }
    if (st == PQ_OK && !as_stored && r->out.memory == OUTPUT_ON_DEVICE) { /* a host copy */
        struct ArrowSchema own = {0};
        const struct ArrowSchema *s = out_schema;
        if (!s && (st = selection_schema(r, &own, err)) == PQ_OK) s = &own;
        if (st == PQ_OK) st = pq_device_array_to_host(out_array, s, err);
        if (own.release) own.release(&own);
        if (st != PQ_OK && out_array->release) out_array->release(out_array);
    }
    if (st != PQ_OK && out_schema && out_schema->release) out_schema->release(out_schema);
    return st;
}

/* Common checks of the export calls; *g gets the selection index. */
static pq_status export_check(pq_reader *r, struct ArrowArray *out_array, struct ArrowSchema *out_schema,
                              pq_error *err)
{
    if (out_array) memset(out_array, 0, sizeof *out_array);
    if (out_schema) memset(out_schema, 0, sizeof *out_schema);
    if (!r || !out_array)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader or output array is NULL");
    if (r->stage < PQ_STAGE_DECODE || !r->out.cols)
        return pq_error_set(err, PQ_ERR_STAGE, "export needs the decode stage; the reader is at '%s'",
                            pq_stage_name(r->stage));
    return PQ_OK;
}

pq_status pq_reader_export_rows(pq_reader *r, uint32_t row_group, uint64_t first_row, uint64_t num_rows,
                                struct ArrowArray *out_array, struct ArrowSchema *out_schema, pq_error *err)
{
    pq_status st = export_check(r, out_array, out_schema, err);
    if (st != PQ_OK) return st;
    size_t g = selected_index(r, row_group);
    if (g == SIZE_MAX)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "row group %u was not selected", row_group);
    uint64_t lo = pq_row_set_first(&r->out.rows[g]), hi = pq_row_set_end(&r->out.rows[g]);
    if (first_row < lo || first_row > hi || num_rows > hi - first_row)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "rows [%llu, +%llu) of row group %u are outside its range [%llu, %llu)",
                            (unsigned long long)first_row, (unsigned long long)num_rows, row_group,
                            (unsigned long long)lo, (unsigned long long)hi);
    return export_slice(r, g, first_row, num_rows, false, out_array, out_schema, err);
}

pq_status pq_reader_export_row_group(pq_reader *r, uint32_t row_group, struct ArrowArray *out_array,
                                     struct ArrowSchema *out_schema, pq_error *err)
{
    pq_status st = export_check(r, out_array, out_schema, err);
    if (st != PQ_OK) return st;
    size_t g = selected_index(r, row_group);
    if (g == SIZE_MAX)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "row group %u was not selected", row_group);
    return export_slice(r, g, pq_row_set_first(&r->out.rows[g]), r->out.rows[g].rows, false, out_array, out_schema,
                        err);
}

pq_status pq_reader_next_batch_as(pq_reader *r, uint64_t max_rows, bool as_stored, struct ArrowArray *out_array,
                                  struct ArrowSchema *out_schema, pq_error *err)
{
    pq_status st = export_check(r, out_array, out_schema, err);
    if (st != PQ_OK) return st;
    if (r->cursor.decoded != r->out.generation) /* a new decode: from its first row */
        r->cursor = (pq_batch_cursor){.decoded = r->out.generation};
    while (r->cursor.group < r->sel.row_groups_len) {
        size_t g = r->cursor.group;
        uint64_t lo = pq_row_set_first(&r->out.rows[g]), hi = pq_row_set_end(&r->out.rows[g]);
        if (r->cursor.step == CURSOR_GROUP_START) {
            r->cursor.step = CURSOR_IN_GROUP;
            r->cursor.row = lo;
            if (hi == lo && r->sel.filter && !r->opts.prune_only) { /* the filter left no row */
                r->cursor.group++;
                r->cursor.step = CURSOR_GROUP_START;
                continue;
            }
            if (hi == lo) { /* a row group with no rows still gives one (empty) batch */
                r->cursor.group++;
                r->cursor.step = CURSOR_GROUP_START;
                return export_slice(r, g, lo, 0, as_stored, out_array, out_schema, err);
            }
        }
        if (r->cursor.row >= hi) {
            r->cursor.group++;
            r->cursor.step = CURSOR_GROUP_START;
            continue;
        }
        uint64_t count = hi - r->cursor.row;
        if (max_rows && count > max_rows) count = max_rows;
        st = export_slice(r, g, r->cursor.row, count, as_stored, out_array, out_schema, err);
        if (st == PQ_OK) r->cursor.row += count;
        return st;
    }
    return PQ_OK; /* end of data: both outputs released (zeroed) */
}

pq_status pq_reader_next_batch(pq_reader *r, uint64_t max_rows, struct ArrowArray *out_array,
                               struct ArrowSchema *out_schema, pq_error *err)
{
    return pq_reader_next_batch_as(r, max_rows, false, out_array, out_schema, err);
}
