/*
 * stage_decode.c — the decode stage: every selected chunk's pages decoded
 * (pq_column_decode) into the Arrow buffers of its column, kept in the
 * reader; pq_reader_export_row_group() hands a row group out as a record
 * batch. Nested columns (structs, lists, maps) are assembled from their
 * leaves' levels into one array per top-level field.
 */
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "reader/reader_internal.h"

void pq_reader_free_decoded(pq_reader *r)
{
    for (size_t i = 0; r->decoded && i < r->decoded_len; i++)
        pq_arrow_column_release(r->decoded[i]);
    free(r->decoded);
    r->decoded = NULL;
    r->decoded_len = 0;
}

/* A leaf directly under the root with no repetition. */
static bool leaf_is_flat(const pq_schema *schema, const pq_leaf *leaf)
{
    return leaf->max_rep == 0 && leaf->node > 0 && (uint32_t)leaf->node < schema->nodes_len &&
           schema->nodes[leaf->node].parent == 0;
}

static bool selection_is_flat(const pq_reader *r, const pq_schema *schema)
{
    for (size_t c = 0; c < r->sel_columns_len; c++)
        if (!leaf_is_flat(schema, &schema->leaves[r->sel_columns[c]])) return false;
    return true;
}

/* The top-level field (root child) a leaf lies under, or -1. */
static int32_t leaf_field(const pq_schema *schema, const pq_leaf *leaf)
{
    int32_t j = leaf->node;
    for (uint32_t steps = 0; steps <= schema->nodes_len; steps++) {
        if (j <= 0 || (uint32_t)j >= schema->nodes_len) return -1;
        if (schema->nodes[j].parent == 0) return j;
        j = schema->nodes[j].parent;
    }
    return -1;
}

/* Decode one chunk's pages and check its value count against the rows
 * (levels of a flat column; records for a nested one, checked later). */
static pq_status decode_chunk(pq_reader *r, size_t i, pq_column_values *v, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_schema *schema = pq_metadata_schema(r->md);
    const pq_reader_chunk *ch = &r->chunks[i];
    const pq_row_group *rg = &fm->row_groups[ch->info.row_group];
    const pq_leaf *leaf = &schema->leaves[ch->info.column];
    int32_t codec = rg->columns[ch->info.column]->meta_data.codec;
    pq_status st = pq_column_decode(leaf, codec, ch->bytes, (size_t)ch->info.length, ch->pages,
                                    ch->info.npages, r->opts.memory_limit, v, err);
    if (st != PQ_OK) return st;
    if (rg->num_rows < 0 || (leaf->max_rep == 0 && v->n_levels != (uint64_t)rg->num_rows)) {
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "row group %u, column '%s': %zu values for %lld rows",
                          ch->info.row_group, leaf->path, v->n_levels, (long long)rg->num_rows);
        pq_column_values_free(v);
    }
    return st;
}

/* Flat selection: one column per chunk, in selection order. */
static pq_status decode_flat(pq_reader *r, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    pq_status st = PQ_OK;
    for (size_t i = 0; st == PQ_OK && i < r->chunks_len; i++) {
        pq_column_values v;
        st = decode_chunk(r, i, &v, err);
        if (st != PQ_OK) break;
        st = pq_arrow_column_build(&schema->leaves[r->chunks[i].info.column], &v, &r->decoded[i], err);
        pq_column_values_free(&v);
    }
    return st;
}

/* Nested selection: per row group, one array per top-level field holding
 * selected leaves, in file order (as pq_metadata_arrow_schema exports the
 * selection), packed at the start of the row group's entries; the rest
 * stay NULL. Repeated leaves are decoded once. */
static pq_status decode_nested(pq_reader *r, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_schema *schema = pq_metadata_schema(r->md);
    size_t n = r->sel_columns_len;
    pq_column_values *vals = calloc(n ? n : 1, sizeof *vals);
    const pq_leaf **leaves = calloc(n ? n : 1, sizeof *leaves);
    size_t *order = calloc(n ? n : 1, sizeof *order); /* chunk offsets, file order, unique */
    pq_status st = PQ_OK;
    if (!vals || !leaves || !order) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    size_t m = 0;
    for (uint32_t leaf = 0; st == PQ_OK && leaf < schema->leaves_len; leaf++) {
        for (size_t c = 0; c < n; c++)
            if (r->sel_columns[c] == leaf) {
                if (leaf_field(schema, &schema->leaves[leaf]) < 0)
                    st = pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': bad schema path",
                                      schema->leaves[leaf].path);
                order[m++] = c;
                break;
            }
    }
    for (size_t g = 0; st == PQ_OK && g < r->sel_row_groups_len; g++) {
        int64_t num_rows = fm->row_groups[r->sel_row_groups[g]].num_rows;
        size_t fields = 0;
        for (size_t a = 0; st == PQ_OK && a < m;) {
            const pq_leaf *first = &schema->leaves[r->sel_columns[order[a]]];
            int32_t field = leaf_field(schema, first);
            size_t b = a;
            for (; st == PQ_OK && b < m; b++) {
                const pq_leaf *leaf = &schema->leaves[r->sel_columns[order[b]]];
                if (leaf_field(schema, leaf) != field) break;
                leaves[b - a] = leaf;
                st = decode_chunk(r, g * n + order[b], &vals[b - a], err);
                if (st != PQ_OK) memset(&vals[b - a], 0, sizeof vals[b - a]);
            }
            if (st == PQ_OK) {
                pq_arrow_column **slot = &r->decoded[g * n + fields++];
                if (b - a == 1 && leaf_is_flat(schema, first)) {
                    st = pq_arrow_column_build(first, &vals[0], slot, err);
                } else {
                    st = pq_arrow_nested_build(schema, field, leaves, vals, b - a, num_rows, slot, err);
                }
            }
            for (size_t k = 0; k < b - a; k++) pq_column_values_free(&vals[k]);
            a = b;
        }
    }
    free(vals);
    free(leaves);
    free(order);
    return st;
}

pq_status pq_reader_stage_decode(pq_reader *r, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(r->md);
    pq_reader_free_decoded(r);

    size_t n = r->chunks_len;
    r->decoded = calloc(n ? n : 1, sizeof *r->decoded);
    if (!r->decoded) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    r->decoded_len = n;

    pq_status st = selection_is_flat(r, schema) ? decode_flat(r, err) : decode_nested(r, err);
    if (st != PQ_OK) {
        pq_reader_free_decoded(r);
        return st;
    }
    r->stats[PQ_STAGE_DECODE].chunks = n;
    return PQ_OK;
}

pq_status pq_reader_export_row_group(pq_reader *r, uint32_t row_group, struct ArrowArray *out_array,
                                     struct ArrowSchema *out_schema, pq_error *err)
{
    if (out_array) memset(out_array, 0, sizeof *out_array);
    if (out_schema) memset(out_schema, 0, sizeof *out_schema);
    if (!r || !out_array || !out_schema)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader or output is NULL");
    if (r->stage < PQ_STAGE_DECODE || !r->decoded)
        return pq_error_set(err, PQ_ERR_STAGE,
                            "export needs the decode stage; the reader is at '%s'",
                            pq_stage_name(r->stage));
    size_t g = 0;
    while (g < r->sel_row_groups_len && r->sel_row_groups[g] != row_group) g++;
    if (g == r->sel_row_groups_len)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "row group %u was not selected",
                            row_group);

    const pq_file_metadata *fm = pq_metadata_file(r->md);
    pq_arrow_column **cols = r->decoded + g * r->sel_columns_len;
    size_t ncols = r->sel_columns_len;
    pq_status st;
    if (selection_is_flat(r, pq_metadata_schema(r->md))) {
        st = pq_arrow_batch_schema(r->md, r->sel_columns, ncols, out_schema, err);
    } else {
        /* One field per top-level field, as decode_nested packed them. */
        st = pq_metadata_arrow_schema(r->md, r->sel_columns, ncols, out_schema, err);
        ncols = 0;
        while (ncols < r->sel_columns_len && cols[ncols]) ncols++;
        if (st == PQ_OK && out_schema->n_children != (int64_t)ncols) {
            out_schema->release(out_schema);
            st = pq_error_set(err, PQ_ERR_SCHEMA, "%zu arrays for %lld fields", ncols,
                              (long long)out_schema->n_children);
        }
    }
    if (st != PQ_OK) return st;
    st = pq_arrow_batch_export(cols, ncols, fm->row_groups[row_group].num_rows, out_array, err);
    if (st != PQ_OK) out_schema->release(out_schema);
    return st;
}
