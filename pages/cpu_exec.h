/*
 * cpu_exec.h — column chunks decoded on the CPU: pq_column_decode (one
 * chunk, on the calling thread) and the executor of decode plans
 * (pages/decode_plan.h) on a thread pool. The result of each chunk is its
 * levels and values (pq_column_values, page_values.h), checked as that
 * header says.
 *
 * Input: the chunk's bytes and the pages the page walk found in them
 * (pq_page_walk).
 */
#ifndef PQ_PAGES_CPU_EXEC_H
#define PQ_PAGES_CPU_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pages/codec.h"
#include "pages/decode_plan.h"
#include "pages/page_values.h"
#include "pq_metadata.h"
#include "pq_pages.h"

/* Decode the pages of one column chunk of `leaf`. `codec` is the chunk's
 * pq_codec, `chunk` its bytes (chunk_len of them) and `pages` what the walk
 * recorded for them (offsets are from the start of `chunk`).
 *
 * memory_limit caps what the decode holds at once (the output, the
 * dictionary and the page buffer): 0 means no cap beyond what the declared
 * sizes allow; a decompressed page is never more than PQ_MAX_PAGE_SIZE.
 * Exceeding it is PQ_ERR_MEMORY_LIMIT.
 *
 * On success fills *out (free it with pq_column_values_free). On error *out
 * is zeroed (everything freed) and `err` names the page. Errors:
 * PQ_ERR_INVALID_ARGUMENT (NULL, a page outside the chunk),
 * PQ_ERR_CORRUPT_DATA, PQ_ERR_UNSUPPORTED (an encoding the type cannot have,
 * LZO), PQ_ERR_MEMORY_LIMIT, PQ_ERR_NOMEM. */
pq_status pq_column_decode(const pq_leaf *leaf, int32_t codec, const uint8_t *chunk, size_t chunk_len,
                           const pq_page_info *pages, size_t npages, uint64_t memory_limit,
                           pq_column_values *out, pq_error *err);

/* pq_column_decode with the caller's codec context, reused across calls
 * (a decompression context costs more to make than a small page does to
 * decompress). NULL: a context of the call's own. */
pq_status pq_column_decode_ctx(pq_codec_ctx *cctx, const pq_leaf *leaf, int32_t codec, const uint8_t *chunk,
                               size_t chunk_len, const pq_page_info *pages, size_t npages, uint64_t memory_limit,
                               pq_column_values *out, pq_error *err);

/* pq_column_decode_ctx with PQ_DECODE_* flags and, when `rows` is not NULL
 * (a leaf without repetition), only the selected rows: the result holds them
 * alone, in order (n_levels = the rows selected; an optional leaf's
 * def_levels are the selected rows' levels, and its values those of the
 * selected rows that are not null). A data page with no selected row is
 * neither decompressed nor decoded; a dictionary-encoded page gathers only
 * the selected values. */
pq_status pq_column_decode_flags(pq_codec_ctx *cctx, const pq_leaf *leaf, int32_t codec, const uint8_t *chunk,
                                 size_t chunk_len, const pq_page_info *pages, size_t npages, uint64_t memory_limit,
                                 unsigned flags, const pq_decode_rows *rows, pq_column_values *out, pq_error *err);

/* The CPU executor of decode plans (pages/decode_plan.h). Its phases are
 * sets of independent tasks (a dictionary page, a data page, a staged page
 * put in place), run by `run` on `threads` threads; run has the signature
 * of reader/parallel.h's pq_parallel_for, and NULL runs every task on the
 * calling thread. cctx[w] is the codec context of worker w (ncctx of them;
 * a worker without one makes its own per task). memory_limit caps what the
 * decode of each chunk holds at once, as for pq_column_decode. */
typedef struct pq_cpu_executor {
    unsigned (*run)(size_t n, unsigned threads, bool (*task)(void *ctx, size_t i, unsigned worker), void *ctx);
    unsigned threads;
    pq_codec_ctx *cctx;
    unsigned ncctx;
    uint64_t memory_limit;
    /* Called once per chunk as soon as its last page is done, on the thread
     * that finished it (while its values are still in that core's cache),
     * with the chunk's status and output (on failure zeroed, the message in
     * errors[chunk]); it may take the output's buffers. NULL: none. */
    void (*chunk_done)(void *user, size_t chunk, pq_status status, pq_column_values *out, pq_error *err);
    void *user;
    /* Decode every dictionary page whole, before the data pages. By default
     * (false) a sparse selection's chunk (at most PQ_LATE_DICT_MAX_ROWS
     * selected rows, fixed-width values or string views out, a dictionary
     * page of PQ_LATE_DICT_MIN_BYTES or more compressed with SNAPPY or
     * ZSTD) collects its selected rows' indices first and decompresses its
     * dictionary page only as far as the largest of them reaches: entries
     * come in order of first use, so a few rows seldom need the whole page.
     * The values are the same either way; a string chunk's dictionary
     * buffer then holds only the entries up to that one. */
    bool whole_dictionaries;
} pq_cpu_executor;

#define PQ_LATE_DICT_MAX_ROWS 4096
#define PQ_LATE_DICT_MIN_BYTES ((size_t)64 << 10)

/* Run `plan`: outs[k] gets chunk k's levels and values (as
 * pq_column_decode gives them; free each with pq_column_values_free),
 * status[k] its result and errors[k] its message, naming the page, on
 * failure (outs[k] is then zeroed); ex->chunk_done, when set, sees each
 * chunk first. The plan's page and chunk counts and
 * offsets are filled in by the size pass. Returns the first failing
 * chunk's status, or PQ_OK. */
pq_status pq_decode_plan_execute(const pq_cpu_executor *ex, pq_decode_plan *plan, pq_column_values *outs,
                                 pq_status *status, pq_error *errors);

/* A plan of one chunk run on the calling thread (cctx may be NULL: a codec
 * context of its own) into *out, under memory_limit (0: none). */
pq_status pq_decode_plan_execute_one(pq_codec_ctx *cctx, uint64_t memory_limit, pq_decode_plan *plan,
                                     pq_column_values *out, pq_error *err);

#endif
