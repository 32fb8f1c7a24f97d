/*
 * reader_internal.h — the reader's context, shared by the files of reader/:
 * reader.c (opening, driving, the footer stage), stage_select.c,
 * stage_pages.c, stage_filter.c (late materialization), stage_decode.c and
 * export.c. Each stage's state is a group of fields below that its own
 * file makes, writes and frees; the later stages only read it.
 */
#ifndef PQ_READER_INTERNAL_H
#define PQ_READER_INTERNAL_H

#include <time.h>

#include "pages/codec.h"
#include "pages/decode_plan.h"
#include "pages/page_walk.h"
#include "reader/arrow_batch.h"
#include "reader/row_set.h"
#include "pq_reader.h"
#include "reader/source.h"
#include "reader/supplied.h"

/* Steps of one chunk in the page-header stage. */
typedef enum chunk_step {
    CHUNK_DEFERRED,          /* a projected column the filter does not read: planned once the
                              * filter has narrowed the rows (late materialization) */
    CHUNK_NEED_OFFSET_INDEX, /* a row range cuts the chunk: read its offset index first */
    CHUNK_NEED_PAGES,        /* parts[] known: read them and walk the pages */
    CHUNK_WALKED
} chunk_step;

/* A walked column chunk and the bytes kept for decoding. A chunk with an
 * offset index whose rows are narrowed (row range, page index, late
 * materialization) keeps only the pages that hold a needed row: `parts`
 * are then the chunk's head (dictionary page) and each run of kept data
 * pages, stored back to back in `bytes`; page offsets are into `bytes`.
 * Its decoded values are the rows of `rows`, in order. */
typedef struct pq_reader_chunk {
    pq_chunk_pages info;  /* public view: place in the file and the pages */
    pq_page_info *pages;  /* owned (info.pages points here) */
    const uint8_t *data;  /* the kept bytes: the parts laid end to end, or, in a memory
                           * source or a mapped file, the file from the chunk's first byte */
    size_t data_len;      /* bytes at `data` the pages lie in (in place: through the last part) */
    uint64_t origin;      /* file offset of data[0] when `data` is laid as in the file (in
                           * place, or one part); UINT64_MAX for parts copied end to end */
    uint8_t *bytes;       /* owned copy of them; NULL when `data` is in a memory source
                           * or borrowed from a fetched range (`hold`) */
    pq_shared_bytes *hold; /* the fetched range `data` lies in (a reference), or NULL */
    chunk_step step;
    pq_range *parts;      /* file ranges kept (owned); nparts of them */
    size_t nparts;
    size_t data_pages;    /* data pages the offset index says the parts hold (0: unchecked) */
    pq_row_set rows;      /* rows the kept pages hold, in row-group numbering */
} pq_reader_chunk;

/* Steps inside the footer stage. */
typedef enum footer_step {
    FOOTER_NEED_TAIL,   /* nothing read yet */
    FOOTER_NEED_REST,   /* tail read; the footer is longer than the tail */
    FOOTER_DONE
} footer_step;

/* Steps of late materialization (stage_filter.c). */
typedef enum filter_step {
    FILTER_OFF = 0,   /* no column waits for the filter (none, prune_only, or nothing deferred) */
    FILTER_WAITING,   /* the page-header stage deferred chunks until the filter has run */
    FILTER_EVALUATED  /* the filter's bits are made for every selected row group */
} filter_step;

/* Where pq_reader_filter_rows evaluates the filter (opts.device; chosen
 * by pq_filter_choose_device before row groups run in parallel). */
typedef enum filter_device {
    FILTER_ON_CPU = 0,      /* the CPU evaluator (predicate_eval.h) */
    FILTER_ON_HOST_KERNELS, /* the predicate kernel on the host launcher (device_filter.h) */
    FILTER_ON_CUDA          /* the predicate kernel on the CUDA device, the columns copied there */
} filter_device;

/* Where one row group's filter was evaluated (pq_reader_filter_rows). */
typedef struct pq_filter_outcome {
    bool on_kernels;                /* the predicate kernel evaluated it */
    bool fell_back;                 /* the kernel does not cover it: the CPU evaluator did (why) */
    char why[PQ_ERROR_MESSAGE_SIZE];
    bool kept_there;                /* its columns built and evaluated where the kernels decoded them */
    uint32_t kernel_chunks;         /* the filter's columns decoded by the device executor's kernels */
    uint32_t cpu_chunks;            /* ... by the CPU (no kernels, or not covered) */
} pq_filter_outcome;

/* Late materialization's state: made, written and freed by
 * stage_filter.c; read by the page-header and decode stages. */
typedef struct pq_filter_state {
    filter_step step;
    filter_device device;
    char fallback[PQ_ERROR_MESSAGE_SIZE]; /* why the first row group left to the CPU evaluator was */
    uint64_t kernel_groups;         /* row groups the predicate kernel evaluated */
    uint64_t cpu_groups;            /* ... left to the CPU evaluator (not covered) */
    uint64_t kept_groups;           /* ... of the kernel's: their columns never left the device */
    uint64_t kernel_chunks;         /* the filter's columns' chunks the kernels decoded */
    uint64_t cpu_chunks;            /* ... the CPU decoded, where the predicate kernel is in use */
    uint8_t **keep;                 /* per selected row group: the filter's bits over its rows
                                     * (sel.rows), or NULL */
    size_t groups;
    struct pq_arrow_column **cols;  /* per chunk: a projected filter column as decoded to
                                     * evaluate it (the decode stage takes a reference) */
    size_t cols_len;
} pq_filter_state;

/* Where the decode stage's arrays are (opts.device_output). */
typedef enum output_memory {
    OUTPUT_ON_HOST = 0,     /* host memory (every read without device_output) */
    OUTPUT_ON_HOST_DEVICE,  /* host kernels' stand-in for device memory: host memory, the
                             * arrays adopted as a CUDA decode's are (device_export.c) */
    OUTPUT_ON_CUDA          /* CUDA device memory: host batches are copies */
} output_memory;

/* The decode stage's output (stage_decode.c): an output slot per selected
 * row group x selected column, in that order. */
typedef struct pq_decoded {
    struct pq_arrow_column **cols;
    uint64_t *first_row;            /* per slot: the row-group row its array starts at */
    size_t *chunk;                  /* per slot: the chunk whose rows its array holds */
    bool *filtered;                 /* per slot: decoded for the filter's matching rows alone
                                     * (selection-vector decode), so no take is needed */
    size_t len;
    pq_row_set *rows;               /* per selected row group: the rows delivered (the select
                                     * stage's, or [0, matches) once filtered) */
    size_t groups;
    char device_note[640];          /* where the stage ran and why (pq_reader_device_note) */
    bool on_cuda;                   /* decoded by the CUDA executor: device batches go to CUDA */
    output_memory memory;           /* where cols' arrays are */
    uint64_t device_built;          /* device_output: chunks the Arrow kernels built in place */
    uint64_t copied_to_device;      /* ... arrays built on the host, then copied to the device */
    uint64_t resident_chunks;       /* opts.device_file: chunks decoded from the device copy */
} pq_decoded;

/* Where pq_reader_next_batch is (export.c). */
typedef enum cursor_step {
    CURSOR_GROUP_START = 0,         /* at cursor.group's first row (not yet looked at) */
    CURSOR_IN_GROUP                 /* cursor.row is the next row of cursor.group */
} cursor_step;

typedef struct pq_batch_cursor {
    size_t group;                   /* next selected row group */
    uint64_t row;                   /* and the row in it (row-group numbering) */
    cursor_step step;
} pq_batch_cursor;

/* The footer stage's state (reader.c). */
typedef struct pq_footer_state {
    footer_step step;
    uint8_t *tail;                  /* bytes [tail_offset, file_size) once read */
    uint64_t tail_offset;
    uint32_t len;                   /* the footer's, from the trailer, once the tail is read */
    uint64_t data_end;              /* where the footer starts, once parsed: the data region
                                     * [4, data_end) holds every chunk, index and filter */
} pq_footer_state;

/* Steps inside the select stage. */
typedef enum select_step {
    SELECT_START = 0,               /* nothing selected, or all steps done */
    SELECT_NEED_INDEXES             /* sans-IO: statistics done; the dictionary, bloom-filter
                                     * and page-index steps wait for the caller's bytes */
} select_step;

/* The select stage's state (stage_select.c): what later stages read. */
typedef struct pq_selection_state {
    select_step step;
    uint32_t *row_groups;
    size_t row_groups_len;
    uint32_t *columns;
    size_t columns_len;
    uint32_t *walk_columns;         /* columns, then the filter's leaves not among them */
    size_t walk_columns_len;        /* the stride of pages.chunks */
    struct pq_expr *filter;         /* the options' filter, bound to md (owned) */
    uint8_t *pruned_by;             /* per file row group: the PQ_PRUNE_* step that dropped it, or 0 */
    pq_row_set *rows;               /* per selected row group: the rows to deliver (no filter)
                                     * or to test (filter) */
    size_t rows_alloc;              /* entries allocated (the selection only shrinks) */
    bool row_range;                 /* options set row_offset or row_limit */
    struct pq_output_types *outputs;/* per leaf: the Arrow type it decodes to (output_type.h) */
} pq_selection_state;

/* The page-header stage's state (stage_pages.c): one chunk per selected
 * row group x walk column, in row-group-major order; the chunk bytes are
 * kept for the decode stage. */
typedef struct pq_pages_state {
    uint8_t *walk_flags;            /* per walk column, from planning */
    pq_reader_chunk *chunks;
    size_t chunks_len;
    size_t chunks_walked;           /* entries done so far */
    pq_reader_chunk *prev_chunks;   /* the previous selection's chunks, until planned */
    size_t prev_chunks_len;
    size_t prev_hint;               /* where reuse_walked's next search starts */
    pq_page_walk_counters walk_counters;
} pq_pages_state;

typedef enum source_kind {
    SOURCE_NONE,        /* sans-IO: the caller supplies bytes */
    SOURCE_FILE,
    SOURCE_MEMORY,
    SOURCE_CALLER,
    SOURCE_REMOTE       /* pq_reader_open_url: `remote` is the reader's reference */
} source_kind;

struct pq_reader {
    pq_stage stage;
    pq_reader_options opts;
    source_kind kind;
    pq_source src;
    pq_file_source file;
    pq_memory_source memory;
    struct pq_remote *remote;       /* SOURCE_REMOTE */
    uint64_t remote_requests_seen;  /* the handle's request count already put in stats */
    uint64_t remote_retries_seen;
    /* Set while a stage runs as over sans-IO so that what it needs can be
     * fetched all at once (sources with read_ranges; see pq_reader_advance). */
    bool batched;
    char *path;                     /* path readers: for the cache key */
    uint32_t *own_columns;          /* copies of opts.columns / opts.row_groups / opts.filter */
    uint32_t *own_row_groups;
    struct pq_expr *own_filter;
    uint64_t file_size;

    pq_metadata *md;
    pq_supplied supplied;           /* sans-IO: ranges handed in by the caller */
    pq_stage_stats stats[PQ_STAGE_COUNT];

    pq_footer_state footer;         /* footer stage (reader.c) */
    pq_selection_state sel;         /* select stage (stage_select.c) */
    pq_pages_state pages;           /* page-header stage (stage_pages.c) */
    pq_filter_state filt;           /* late materialization (stage_filter.c) */
    pq_decoded out;                 /* decode stage (stage_decode.c) */
    pq_batch_cursor cursor;         /* pq_reader_next_batch (export.c) */
};


/* True while the reader's stages must name the ranges they need rather
 * than read them: sans-IO readers, and batched rounds (see pq_reader_advance). */
static inline bool pq_reader_sans_io(const pq_reader *r)
{
    return r->kind == SOURCE_NONE || r->batched;
}

/* A new reader over r's file (a duplicated descriptor, the same memory or
 * the same caller's source) with r's parsed footer and options: no I/O for
 * the footer (reader.c). NULL + err: PQ_ERR_STAGE before the footer stage,
 * PQ_ERR_UNSUPPORTED for a sans-IO reader, PQ_ERR_IO, PQ_ERR_NOMEM. */
pq_reader *pq_reader_twin(const pq_reader *r, pq_error *err);

/* Bytes [offset, offset+len) into dst: from supplied ranges first, else the
 * source; PQ_ERR_NEED_DATA for a sans-IO reader without them. Counts the
 * read against `stage`. */
pq_status pq_reader_read_range(pq_reader *r, pq_stage stage, uint64_t offset, size_t len,
                               void *dst, pq_error *err);

/* The select stage (stage_select.c). */
pq_status pq_reader_stage_select(pq_reader *r, pq_error *err);

/* Ranges the select stage's dictionary, bloom-filter and page-index steps
 * still need (a sans-IO reader between two advances; stage_select.c). */
size_t pq_reader_select_needed(const pq_reader *r, pq_range *out, size_t cap);

/* The page-header stage (stage_pages.c): walk every selected chunk. */
pq_status pq_reader_stage_pages(pq_reader *r, pq_error *err);

/* Ranges the page-header stage still needs (stage_pages.c). */
size_t pq_reader_pages_needed(const pq_reader *r, pq_range *out, size_t cap);

/* The schema of every batch of the selection (export.c); the caller owns *out. */
pq_status pq_reader_selection_schema(const pq_reader *r, struct ArrowSchema *out, pq_error *err);

/* device_output (device_export.c, called by the decode stage at its end):
 * every array of r->out.cols not yet in device memory (r->out.memory)
 * copied there and adopted in its place, counted in copied_to_device. */
pq_status pq_reader_output_to_device(pq_reader *r, pq_error *err);

/* pq_reader_next_batch, with as_stored the arrays' slices where the decode
 * stage left them (device memory with device_output) instead of a host copy. */
pq_status pq_reader_next_batch_as(pq_reader *r, uint64_t max_rows, bool as_stored, struct ArrowArray *out_array,
                                  struct ArrowSchema *out_schema, pq_error *err);

/* A batch of adopted device arrays (r->out.memory OUTPUT_ON_CUDA) replaced
 * by a host copy (*a released, then the copy in its place); other batches
 * are left as they are. */
pq_status pq_reader_batch_to_host(const pq_reader *r, struct ArrowArray *a, const struct ArrowSchema *s,
                                  pq_error *err);

/* The filter over selected row group g's rows (sel.rows[g]): its columns'
 * walked chunks decoded and evaluated (stage_filter.c), where
 * r->filt.device says. *keep (malloc'd, a bit per row of sel.rows[g]) gets
 * the matching rows, *kept their count, *outcome (when not NULL) where it
 * was evaluated. cctx may be NULL. With hand_over, the decoded arrays of
 * the filter's projected columns go to r->filt.cols for the decode stage
 * (entries of g alone, so row groups run in parallel; only
 * pq_filter_evaluate_group hands over). */
pq_status pq_reader_filter_rows(pq_reader *r, struct pq_codec_ctx *cctx, size_t g, bool hand_over,
                                uint8_t **keep, int64_t *kept, pq_filter_outcome *outcome, pq_error *err);

/* r->filt.device from opts.device: the predicate kernel for host kernels,
 * and for CUDA / auto when a CUDA device is usable. Call before evaluating
 * row groups (after pq_filter_begin, which clears it). */
void pq_filter_choose_device(pq_reader *r);

/* Row groups' outcomes (n of them) counted in r->filt (kernel_groups,
 * cpu_groups; the decode stage reports them as its stats'
 * device_filtered_groups / cpu_filtered_groups), the first fallback's
 * reason kept in r->filt.fallback. Call after the parallel run. */
void pq_filter_count(pq_reader *r, const pq_filter_outcome *outcomes, size_t n);

/* Late materialization (stage_filter.c): make the state for the
 * selection's row groups (the old one freed); evaluate the filter on
 * selected row group g, keeping its bits (and the filter's projected
 * columns) in r->filt, *kept the matches; the bits of row group g, or NULL
 * before the filter ran (or where it did not); chunk k's column as the
 * filter decoded it, or NULL (borrowed: take a reference to keep it). */
pq_status pq_filter_begin(pq_reader *r, pq_error *err);
pq_status pq_filter_evaluate_group(pq_reader *r, struct pq_codec_ctx *cctx, size_t g, int64_t *kept,
                                   pq_filter_outcome *outcome, pq_error *err);
const uint8_t *pq_filter_keep(const pq_reader *r, size_t g);
struct pq_arrow_column *pq_filter_column(const pq_reader *r, size_t k);
void pq_reader_free_filter(pq_reader *r);

/* The decode stage (stage_decode.c): decode every selected chunk. */
pq_status pq_reader_stage_decode(pq_reader *r, pq_error *err);

/* Chunk i's kept pages decoded (only the rows `rows` selects, NULL: all;
 * extra PQ_DECODE_* flags `more`) and checked: errors named with the
 * chunk, UTF-8 when asked for, a flat column's value count (stage_decode.c). */
pq_status pq_reader_decode_chunk_flags(const pq_reader *r, struct pq_codec_ctx *cctx, size_t i,
                                       const pq_decode_rows *rows, unsigned more, pq_column_values *v,
                                       pq_error *err);

/* How pq_reader_decode_chunk_kernels decodes a chunk, and how it went. */
typedef struct pq_kernel_decode {
    bool cuda;          /* in: the kernels on the CUDA device, else on the host */
    bool keep;          /* in: the values left in device memory (outputs_on_device) */
    bool on_kernels;    /* out: the kernels decoded it (else the CPU: not covered or not planned) */
    bool kept;          /* out: the values are in device memory (free with pq_device_values_free) */
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

/* Whether every selected leaf is flat (stage_decode.c). */
bool pq_reader_selection_is_flat(const pq_reader *r, const pq_schema *schema);

/* Move the walked chunks aside for the next plan to take over
 * (stage_pages.c); chunks not walked to the end are freed. */
void pq_reader_keep_chunks_for_reuse(pq_reader *r);

/* Free what the select, page-header and decode stages keep. */
void pq_reader_free_selection(pq_reader *r);
void pq_reader_free_chunks(pq_reader *r);
void pq_reader_free_decoded(pq_reader *r);

/* The top-level field (a child of the schema root) a leaf lies under, or
 * -1 when the schema path is broken. */
static inline int32_t pq_reader_leaf_field(const pq_schema *schema, const pq_leaf *leaf)
{
    int32_t j = leaf->node;
    for (uint32_t steps = 0; steps <= schema->nodes_len; steps++) {
        if (j <= 0 || (uint32_t)j >= schema->nodes_len) return -1;
        if (schema->nodes[j].parent == 0) return j;
        j = schema->nodes[j].parent;
    }
    return -1;
}

/* A leaf directly under the root with no repetition. */
static inline bool pq_reader_leaf_is_flat(const pq_schema *schema, const pq_leaf *leaf)
{
    return leaf->max_rep == 0 && leaf->node > 0 && (uint32_t)leaf->node < schema->nodes_len &&
           schema->nodes[leaf->node].parent == 0;
}

/* The chunk of selected row group g and walk column c. */
static inline size_t pq_reader_chunk_at(const pq_reader *r, size_t g, size_t c)
{
    return g * r->sel.walk_columns_len + c;
}

/* Whether a column decoded over the rows of `have` lines up with the rows
 * of `want` by an offset alone: both one run (want's may be empty). */
static inline bool pq_reader_lined_up(const pq_row_set *have, const pq_row_set *want)
{
    return have->n == 1 && want->n <= 1;
}

static inline uint64_t pq_reader_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
