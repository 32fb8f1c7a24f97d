/*
 * stage_decode.c — the decode stage: every selected chunk's pages decoded
 * (pq_column_decode) into the Arrow buffers of its column, kept in the
 * reader; pq_reader_export_row_group() hands a row group out as a record
 * batch. Flat columns only for now: nested ones need their levels
 * assembled into lists and structs.
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

pq_status pq_reader_stage_decode(pq_reader *r, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_schema *schema = pq_metadata_schema(r->md);
    pq_reader_free_decoded(r);

    /* Refuse nested columns before decoding anything. */
    for (size_t c = 0; c < r->sel_columns_len; c++) {
        const pq_leaf *leaf = &schema->leaves[r->sel_columns[c]];
        if (!leaf_is_flat(schema, leaf))
            return pq_error_set(err, PQ_ERR_UNSUPPORTED, "nested column '%s' is not decoded yet",
                                leaf->path);
    }

    size_t n = r->chunks_len;
    r->decoded = calloc(n ? n : 1, sizeof *r->decoded);
    if (!r->decoded) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    r->decoded_len = n;

    pq_status st = PQ_OK;
    for (size_t i = 0; st == PQ_OK && i < n; i++) {
        const pq_reader_chunk *ch = &r->chunks[i];
        const pq_row_group *rg = &fm->row_groups[ch->info.row_group];
        const pq_leaf *leaf = &schema->leaves[ch->info.column];
        int32_t codec = rg->columns[ch->info.column]->meta_data.codec;
        pq_column_values v;
        st = pq_column_decode(leaf, codec, ch->bytes, (size_t)ch->info.length, ch->pages,
                              ch->info.npages, r->opts.memory_limit, &v, err);
        if (st != PQ_OK) break;
        if (rg->num_rows < 0 || v.n_levels != (uint64_t)rg->num_rows)
            st = pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                              "row group %u, column '%s': %zu values for %lld rows",
                              ch->info.row_group, leaf->path, v.n_levels,
                              (long long)rg->num_rows);
        else
            st = pq_arrow_column_build(leaf, &v, &r->decoded[i], err);
        pq_column_values_free(&v);
    }
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
    pq_status st = pq_arrow_batch_schema(r->md, r->sel_columns, r->sel_columns_len, out_schema, err);
    if (st != PQ_OK) return st;
    st = pq_arrow_batch_export(r->decoded + g * r->sel_columns_len, r->sel_columns_len,
                               fm->row_groups[row_group].num_rows, out_array, err);
    if (st != PQ_OK) out_schema->release(out_schema);
    return st;
}
