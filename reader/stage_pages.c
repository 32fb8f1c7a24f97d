/*
 * stage_pages.c — the page-header stage: read every selected column chunk
 * and walk its page headers, keeping both: the decode stage then reads no
 * byte twice and walks no chunk twice.
 */
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "reader/reader_internal.h"

void pq_reader_free_chunks(pq_reader *r)
{
    for (size_t i = 0; i < r->chunks_len; i++) {
        free(r->chunks[i].pages);
        free(r->chunks[i].bytes);
    }
    free(r->chunks);
    r->chunks = NULL;
    r->chunks_len = r->chunks_walked = 0;
}

/* Lay out one entry per selected chunk with its byte range. */
static pq_status plan_chunks(pq_reader *r, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    size_t n = r->sel_row_groups_len * r->sel_columns_len;
    r->chunks = calloc(n ? n : 1, sizeof *r->chunks);
    if (!r->chunks) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    r->chunks_len = n;
    size_t k = 0;
    for (size_t g = 0; g < r->sel_row_groups_len; g++) {
        uint32_t rg = r->sel_row_groups[g];
        for (size_t c = 0; c < r->sel_columns_len; c++, k++) {
            uint32_t col = r->sel_columns[c];
            pq_reader_chunk *ch = &r->chunks[k];
            ch->info.row_group = rg;
            ch->info.column = col;
            pq_status st = pq_chunk_byte_range_for_writer(fm->row_groups[rg].columns[col],
                                                          fm->created_by, r->file_size,
                                                          &ch->info.offset, &ch->info.length, err);
            if (st != PQ_OK) {
                char what[PQ_ERROR_MESSAGE_SIZE];
                memcpy(what, err->message, sizeof what);
                return pq_error_set(err, st, "RowGroup[%u].columns[%u]: %s", rg, col, what);
            }
            if (r->opts.memory_limit && ch->info.length > r->opts.memory_limit)
                return pq_error_set(err, PQ_ERR_MEMORY_LIMIT,
                                    "RowGroup[%u].columns[%u]: chunk of %llu bytes exceeds the "
                                    "memory limit", rg, col, (unsigned long long)ch->info.length);
        }
    }
    return PQ_OK;
}

size_t pq_reader_pages_needed(const pq_reader *r, pq_range *out, size_t cap)
{
    size_t count = 0;
    for (size_t i = r->chunks_walked; i < r->chunks_len; i++) {
        const pq_chunk_pages *c = &r->chunks[i].info;
        if (pq_supplied_covers(&r->supplied, c->offset, c->length)) continue;
        if (count < cap) out[count] = (pq_range){c->offset, c->length};
        count++;
    }
    return count;
}

static pq_status walk_chunk(pq_reader *r, pq_reader_chunk *ch, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    const pq_column_chunk *cc = fm->row_groups[ch->info.row_group].columns[ch->info.column];
    size_t len = (size_t)ch->info.length;
    uint8_t *bytes = malloc(len ? len : 1);
    if (!bytes) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a %zu-byte chunk", len);
    pq_status st = pq_reader_read_range(r, PQ_STAGE_PAGE_HEADERS, ch->info.offset, len, bytes, err);
    if (st != PQ_OK) {
        free(bytes);
        return st;
    }
    unsigned flags = r->opts.verify_checksums ? PQ_WALK_VERIFY_CRC : 0;
    pq_page_info *pages = NULL;
    size_t npages = 0;
    uint64_t before = r->walk_counters.pages;
    st = pq_page_walk(bytes, len, cc->meta_data.num_values, flags, &pages, &npages,
                      &r->walk_counters, err);
    if (st != PQ_OK) {
        free(pages);
        free(bytes);
        char what[PQ_ERROR_MESSAGE_SIZE];
        memcpy(what, err->message, sizeof what);
        return pq_error_set(err, st, "RowGroup[%u].columns[%u]: %s", ch->info.row_group,
                            ch->info.column, what);
    }
    ch->bytes = bytes;
    ch->pages = pages;
    ch->info.pages = pages;
    ch->info.npages = npages;
    r->stats[PQ_STAGE_PAGE_HEADERS].chunks++;
    r->stats[PQ_STAGE_PAGE_HEADERS].pages += r->walk_counters.pages - before;
    return PQ_OK;
}

pq_status pq_reader_stage_pages(pq_reader *r, pq_error *err)
{
    if (!r->chunks) {
        pq_status st = plan_chunks(r, err);
        if (st != PQ_OK) {
            pq_reader_free_chunks(r);
            return st;
        }
    }
    /* A sans-IO reader may stop at a chunk it lacks and resume there. */
    while (r->chunks_walked < r->chunks_len) {
        pq_status st = walk_chunk(r, &r->chunks[r->chunks_walked], err);
        if (st == PQ_ERR_NEED_DATA) {
            /* Ask for every missing chunk at once, not one per call. */
            size_t missing = pq_reader_pages_needed(r, NULL, 0);
            return pq_error_set(err, PQ_ERR_NEED_DATA,
                                "the page-header stage needs %zu more column chunk range%s "
                                "(see pq_reader_needed_ranges)", missing, missing == 1 ? "" : "s");
        }
        if (st != PQ_OK) {
            pq_reader_free_chunks(r);
            return st;
        }
        r->chunks_walked++;
    }
    return PQ_OK;
}
