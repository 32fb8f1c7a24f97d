/*
 * chunk_decode.h — one walked column chunk (r->pages.chunks[i]) decoded
 * as the filter and decode stages need it (chunk_decode.c). The reader is
 * only read.
 */
#ifndef PQ_READER_CHUNK_DECODE_H
#define PQ_READER_CHUNK_DECODE_H

#include "pages/decode_plan.h"
#include "reader/context.h"

/* Chunk k's codec, as its column chunk's metadata says. */
int32_t pq_chunk_codec(const pq_reader *r, size_t k);

/* PQ_DECODE_INDICES when chunk k comes out as a dictionary array and every
 * data page is dictionary-encoded (its indices and dictionary are
 * decoded), else 0 (its values). */
unsigned pq_chunk_more(const pq_reader *r, size_t k);

/* The PQ_DECODE_* flags column `column` decodes with, extra flags `more`
 * given: indices when asked, else string views when its output is views. */
unsigned pq_chunk_decode_flags(const pq_reader *r, uint32_t column, unsigned more);

/* Decoded chunk k of selected row group g (v; `rows`: the selection it
 * was decoded for, or NULL: every row its pages hold) built into its
 * output column (*out). A value its type cannot hold (an INT96 timestamp
 * outside its unit's range) in a row the read delivers fails naming the
 * column, row group and row: a row of the group's selection
 * (r->sel.rows[g]) and, with `keep` (the filter's bits over those rows,
 * for a chunk decoded whole before the filter's take), one it kept. */
pq_status pq_chunk_build_output(const pq_reader *r, size_t g, size_t k, const pq_decode_rows *rows,
                                const uint8_t *keep, pq_column_values *v, pq_arrow_column **out, pq_error *err);

/* Chunk i decoded for its output column (pq_chunk_more's flags). */
pq_status pq_chunk_decode(const pq_reader *r, pq_codec_ctx *cctx, size_t i, pq_column_values *v, pq_error *err);

/* A flat column's value count (v, chunk i, wherever its buffers are)
 * against the rows its pages hold; a selection (rows) is checked by the
 * decoder. */
pq_status pq_chunk_check_count(const pq_reader *r, size_t i, const pq_decode_rows *rows, const pq_column_values *v,
                               pq_error *err);

/* Chunk i's decode result (status st) checked: an error named with the
 * chunk, UTF-8 when asked for, and the value count. `v` is freed on
 * failure. */
pq_status pq_chunk_check_decoded(const pq_reader *r, size_t i, const pq_decode_rows *rows, pq_status st,
                                 pq_column_values *v, pq_error *err);

/* Chunk k added to `plan`: its leaf, codec, output flags (with `widen`,
 * INT32/INT64 decimals widened to decimal128 by the CPU executor) and the
 * selection-vector rows, or NULL. */
pq_status pq_chunk_plan_add(const pq_reader *r, size_t k, const pq_decode_rows *rows, unsigned more, bool widen,
                            pq_decode_plan *plan, pq_error *err);

/* Chunk k's kept bytes in opts.device_file, or NULL (only a chunk laid as
 * in the file has them there as one piece). */
const uint8_t *pq_chunk_resident_bytes(const pq_reader *r, size_t k);

/* Chunk i's kept pages decoded (only the rows `rows` selects, NULL: all;
 * extra PQ_DECODE_* flags `more`) and checked: errors named with the
 * chunk, UTF-8 when asked for, a flat column's value count (stage_decode.c). */
pq_status pq_reader_decode_chunk_flags(const pq_reader *r, struct pq_codec_ctx *cctx, size_t i,
                                       const pq_decode_rows *rows, unsigned more, pq_column_values *v,
                                       pq_error *err);

/* How pq_reader_decode_chunk_kernels decodes a chunk, and how it went. */
typedef struct pq_kernel_decode {
    const pq_executor *exec; /* in: where the kernels run */
    bool keep;          /* in: the values left in device memory (outputs_on_device) */
    bool on_kernels;    /* out: the kernels decoded it (else the CPU: not covered or not planned) */
    bool kept;          /* out: the values are in device memory (free with pq_executor_values_free) */
    uint64_t resident;  /* out: 1 when decoded from opts.device_file */
    char why[PQ_ERROR_MESSAGE_SIZE]; /* out: why the kernels did not, or "" */
} pq_kernel_decode;

/* Chunk i decoded as pq_reader_decode_chunk_flags decodes it (all rows,
 * `more`), by the device executor's kernels (a plan of its own), the
 * values back in host memory or with kd->keep left in device memory; a
 * chunk the kernels do not cover is the CPU's, errors too (stage_decode.c). */
pq_status pq_reader_decode_chunk_kernels(const pq_reader *r, struct pq_codec_ctx *cctx, size_t i, unsigned more,
                                         pq_kernel_decode *kd, pq_column_values *v, pq_error *err);

/* Column `col`, decoded over the rows of chunk ch's kept pages, reduced to
 * the rows of `want` whose bit in `keep` (one per row of want; NULL: all)
 * is set, `kept` of them: *out gets a new column (stage_decode.c). */
pq_status pq_reader_take_rows(const pq_reader_chunk *ch, struct pq_arrow_column *col, const pq_row_set *want,
                              const uint8_t *keep, int64_t kept, struct pq_arrow_column **out, pq_error *err);


#endif
