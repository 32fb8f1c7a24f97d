/*
 * context.c — what every stage of the reader uses beneath it: the stages'
 * names and the reads of file bytes, from supplied ranges first, then the
 * source, counted against the stage that asked (context.h).
 */
#include "reader/context.h"

#include "metadata/error.h"

static const char *const stage_names[PQ_STAGE_COUNT] = {
    "init", "footer", "select", "page headers", "filter", "decode"};

const char *pq_stage_name(pq_stage stage)
{
    return (unsigned)stage < PQ_STAGE_COUNT ? stage_names[stage] : "unknown";
}

/* ---------------------------------------------------------------------------
 * Reading bytes: supplied ranges first, then the source
 * ------------------------------------------------------------------------- */

pq_status pq_reader_read_range(pq_reader *r, pq_stage stage, uint64_t offset, size_t len,
                               void *dst, pq_error *err)
{
    if (pq_supplied_copy(&r->io.supplied, offset, len, dst)) return PQ_OK;
    if (pq_reader_sans_io(r))
        return pq_error_set(err, PQ_ERR_NEED_DATA,
                            "the %s stage needs bytes [%llu, %llu); supply them "
                            "(see pq_reader_needed_ranges)", pq_stage_name(stage),
                            (unsigned long long)offset, (unsigned long long)(offset + len));
    pq_status st = r->io.src.read_at(r->io.src.user, offset, len, dst, err);
    if (st != PQ_OK) return st;
    r->stats[stage].bytes_read += len;
    r->stats[stage].reads++;
    return PQ_OK;
}
