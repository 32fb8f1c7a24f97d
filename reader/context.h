/*
 * context.h — the reader's context, beneath every file of reader/: the
 * reader struct and each stage's state, and what all stages use (the
 * reads of file bytes and the stages' names, context.c). Above it:
 * stage_select.c (with its pruning steps beside it, which take only what
 * they read, prune.h), stage_pages.c, chunk_decode.c,
 * stage_filter.c, stage_decode.c, export.c and export_device.c, and at
 * the top reader.c (opening, the footer stage, driving the stages) and
 * stream.c. Each stage's state is a group of fields below that its own
 * file makes, writes and frees; the later stages only read it.
 */
#ifndef PQ_READER_CONTEXT_H
#define PQ_READER_CONTEXT_H

#include <time.h>

#include "device/choice.h"
#include "device/executor.h"
#include "metadata/stats_trust.h"
#include "pages/codec.h"
#include "pages/decode_plan.h"
#include "pages/page_decrypt.h"
#include "pages/page_walk.h"
#include "reader/arrow_batch.h"
#include "reader/row_set.h"
#include "pq_reader.h"
#include "reader/source.h"
#include "reader/supplied.h"

/* Every stage's counters, kept in one shape: the stages add to the fields
 * that are theirs, and reader.c hands each stage's out as its public struct
 * (pq_footer_stats ... pq_decode_stats in pq_reader.h, where each is
 * documented). */
typedef struct pq_stage_counters {
    uint64_t bytes_read, reads, nanoseconds, requests, retries; /* pq_io_stats */
    uint64_t parses, reused;                                    /* footer; reused: page headers too */
    uint64_t chunks, pages;                                     /* select, page headers, filter, decode */
    uint64_t pruned_statistics, pruned_dictionary, pruned_bloom_filter, pruned_page_index;
    uint64_t prune_warnings, pages_considered, pages_pruned;    /* select */
    uint64_t pruned_deleted, rows_deleted;                      /* select */
    uint64_t pages_skipped;                                     /* page headers, filter */
    uint64_t rows_in, rows, rows_filtered, groups, groups_without_match;
    uint64_t chunks_skipped, bytes_skipped;                     /* filter */
    uint64_t device_filtered_groups, cpu_filtered_groups;       /* filter */
    uint64_t bytes_out, device_chunks, cpu_chunks, dictionary_bytes_skipped, sized_by_statistics; /* decode */
} pq_stage_counters;

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
    int64_t *page_strings; /* a whole BYTE_ARRAY chunk: its data pages' value bytes from the
                            * offset index's SizeStatistics (owned), or NULL */
    pq_row_set rows;      /* rows the kept pages hold, in row-group numbering */
    /* An encrypted chunk: `data` is its bytes as stored, its headers were
     * decrypted by the walk and its pages are decrypted by the decode,
     * each just before it is decompressed (pages/page_decrypt.h). */
    struct pq_chunk_key *key; /* its cipher (owned; NULL: a plaintext chunk) */
    pq_page_module *modules;  /* per page: how to decrypt it (owned) */
} pq_reader_chunk;

/* Steps inside the footer stage. */
typedef enum footer_step {
    FOOTER_NEED_TAIL,   /* nothing read yet */
    FOOTER_NEED_REST,   /* tail read; the footer is longer than the tail */
    FOOTER_DONE
} footer_step;

/* Steps of the filter stage (stage_filter.c). */
typedef enum filter_step {
    FILTER_OFF = 0,   /* not evaluated (no filter, prune_only, or not yet) */
    FILTER_EVALUATED  /* the filter's bits are made for every selected row group; the deferred
                       * chunks are planned (their walk may still wait for a sans-IO caller) */
} filter_step;

/* Where one row group's filter was evaluated (stage_filter.c). */
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
    bool *taken;                    /* per chunk: cols[k] holds the matching rows alone (taken
                                     * once its row group was evaluated) */
    size_t cols_len;
} pq_filter_state;

/* Where the decode stage's arrays are (opts.device_output). */
typedef enum output_memory {
    OUTPUT_ON_HOST = 0,     /* host memory (every read without device_output) */
    OUTPUT_ON_HOST_DEVICE,  /* host kernels' stand-in for device memory: host memory, the
                             * arrays adopted as a device decode's are (stage_decode.c) */
    OUTPUT_ON_DEVICE        /* a device's memory: host batches are copies */
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
    uint64_t **row_numbers;         /* per selected row group, with a row index, once rows are
                                     * [0, matches): each match's row-group row number */
    size_t groups;
    char device_note[640];          /* where the stage ran and why (pq_reader_device_note) */
    pq_executor exec;               /* the executor that decoded: device batches go to its device */
    output_memory memory;           /* where cols' arrays are */
    uint64_t device_built;          /* device_output: chunks the Arrow kernels built in place */
    uint64_t copied_to_device;      /* ... arrays built on the host, then copied to the device */
    uint64_t resident_chunks;       /* opts.device_file: chunks decoded from the device copy */
    uint64_t generation;            /* counts the decodes (and their frees): a batch cursor of an
                                     * older one starts again */
} pq_decoded;

/* Where pq_reader_next_batch is (export.c, which alone writes it). */
typedef enum cursor_step {
    CURSOR_GROUP_START = 0,         /* at cursor.group's first row (not yet looked at) */
    CURSOR_IN_GROUP                 /* cursor.row is the next row of cursor.group */
} cursor_step;

typedef struct pq_batch_cursor {
    uint64_t decoded;               /* the decode (pq_decoded.generation) it walks */
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
    bool encrypted;                 /* the trailer's magic is "PARE" */
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
    pq_device_choice device;        /* where the filter and decode stages run (opts.device, resolved
                                     * once here) */
    pq_executor exec;               /* ... as those stages run it (made once here from `device`) */
    uint32_t *empty_fields;         /* a read of every column: the top-level fields with no leaf, by
                                     * position among the root's children (empty_fields.h) */
    size_t empty_fields_len;
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
    pq_stage walk_stage;            /* the stage the walk in progress counts against (page headers,
                                     * or the filter stage for the deferred chunks) */
    pq_page_walk_counters walk_counters;
} pq_pages_state;

typedef enum source_kind {
    SOURCE_NONE,        /* sans-IO: the caller supplies bytes */
    SOURCE_FILE,
    SOURCE_MEMORY,
    SOURCE_CALLER,
    SOURCE_REMOTE       /* pq_reader_open_url: `remote` is the reader's reference */
} source_kind;

/* Where the reader's bytes come from. reader.c sets the source up when it
 * opens (or twins) the reader and closes it; the stages read through
 * pq_reader_read_range (context.c), or through `src` and the source's own
 * functions (source.c) where they read in bulk or in place. */
typedef struct pq_reader_io {
    source_kind kind;               /* reader.c, at open */
    pq_source src;                  /* reader.c, at open: the reads (unset for SOURCE_NONE) */
    pq_file_source file;            /* SOURCE_FILE: opened by reader.c, mapped by source.c
                                     * (pq_file_source_map, asked by stage_pages.c) */
    pq_memory_source memory;        /* SOURCE_MEMORY (reader.c) */
    struct pq_remote *remote;       /* SOURCE_REMOTE: the reader's reference (reader.c) */
    uint64_t remote_requests_seen;  /* the handle's request count already put in stats (reader.c) */
    uint64_t remote_retries_seen;
    /* Set while a stage runs as over sans-IO so that what it needs can be
     * fetched all at once (sources with read_ranges; reader.c, see
     * pq_reader_advance). */
    bool batched;
    char *path;                     /* path or URL readers: for the cache key (reader.c, owned) */
    uint64_t file_size;             /* reader.c, at open */
    pq_supplied supplied;           /* ranges handed in by a sans-IO caller, or fetched ahead
                                     * (batched rounds, coalesced page reads); changed only
                                     * through supplied.c's functions */
} pq_reader_io;

struct pq_reader {
    pq_stage stage;
    pq_reader_io io;                /* where bytes come from */

    /* The caller's options, copied at open (reader.c; pq_reader_reselect
     * replaces the selection's): opts points at these copies of its
     * columns, row groups and filter. */
    pq_reader_options opts;
    uint32_t *own_columns;
    uint32_t *own_row_groups;
    struct pq_expr *own_filter;
    uint64_t *own_deleted;          /* opts.deleted_rows, sorted and without duplicates */
    char *own_row_index_name;       /* opts.row_index_name's copy */
    pq_decryption *own_keys;        /* opts.decryption's copy (reader/keys.c), wiped at close */

    pq_metadata *md;
    pq_stage_counters stats[PQ_STAGE_COUNT];

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
    return r->io.kind == SOURCE_NONE || r->io.batched;
}

/* A new reader over r's file (a duplicated descriptor, the same memory or
 * the same caller's source) with r's parsed footer and options: no I/O for
 * the footer (reader.c). NULL + err: PQ_ERR_STAGE before the footer stage,
 * PQ_ERR_UNSUPPORTED for a sans-IO reader, PQ_ERR_IO, PQ_ERR_NOMEM. */
pq_reader *pq_reader_twin(const pq_reader *r, pq_error *err);

/* Tests: the decoded bytes a stream's window gathers, for streams exported
 * from now on (0: the default, 64 MiB; reader/stream.c). */
void pq_stream_set_window_bytes(uint64_t bytes);

/* Bytes [offset, offset+len) into dst: from supplied ranges first, else the
 * source; PQ_ERR_NEED_DATA for a sans-IO reader without them. Counts the
 * read against `stage` (context.c). */
pq_status pq_reader_read_range(pq_reader *r, pq_stage stage, uint64_t offset, size_t len,
                               void *dst, pq_error *err);

/* The select stage (stage_select.c). */
pq_status pq_reader_stage_select(pq_reader *r, pq_error *err);

/* Ranges the select stage's dictionary, bloom-filter and page-index steps
 * still need (a sans-IO reader between two advances; stage_select.c). */
size_t pq_reader_select_needed(const pq_reader *r, pq_range *out, size_t cap);

/* The page-header stage (stage_pages.c): walk every selected chunk. */
pq_status pq_reader_stage_pages(pq_reader *r, pq_error *err);

/* Ranges the page-header stage still needs (stage_pages.c); after it, the
 * ranges the filter stage needs for the deferred chunks it planned. */
size_t pq_reader_pages_needed(const pq_reader *r, pq_range *out, size_t cap);

/* What pq_reader_pages_plan_late did to a row group's chunks. */
typedef struct pq_late_plan {
    uint64_t chunks_skipped;  /* deferred chunks never to be read: their row group kept no row */
    uint64_t bytes_skipped;   /* ... their bytes */
} pq_late_plan;

/* Late materialization (called by the filter stage once the filter kept
 * `kept` rows of selected row group g): g's deferred chunks planned for
 * the pages that hold a kept row (pq_reader_pages_walk_late then reads
 * their offset indexes and those pages), or, with no row kept, every chunk
 * of g emptied (nothing of it is read or decoded any more). Adds to *out. */
pq_status pq_reader_pages_plan_late(pq_reader *r, size_t g, int64_t kept, pq_late_plan *out, pq_error *err);

/* The chunks pq_reader_pages_plan_late planned, read and walked, counted
 * against the filter stage: offset indexes (pages over the rows whose bit
 * in keep[g] is set), then pages. PQ_ERR_NEED_DATA for a sans-IO reader
 * until their ranges are supplied; on another error the chunks are freed. */
pq_status pq_reader_pages_walk_late(pq_reader *r, const uint8_t *const *keep, pq_error *err);

/* The filter stage (stage_filter.c): with a filter (and not prune_only),
 * the filter's columns, walked by the page-header stage, are decoded and
 * the filter evaluated on every selected row group; then the deferred
 * columns are planned for the pages that hold a kept row and those are
 * read and walked (pq_reader_pages_walk_late). Without a filter it does
 * nothing. PQ_ERR_NEED_DATA: a sans-IO caller supplies the deferred
 * chunks' ranges and advances again (the filter is not evaluated again).
 * The bits of row group g, or NULL before the filter ran (or where it did
 * not); chunk k's column as the filter decoded it, or NULL (borrowed:
 * take a reference to keep it); the stage's state freed. */
pq_status pq_reader_stage_filter(pq_reader *r, pq_error *err);
const uint8_t *pq_filter_keep(const pq_reader *r, size_t g);
struct pq_arrow_column *pq_filter_column(const pq_reader *r, size_t k);
/* Whether pq_filter_column(r, k) holds the filter's matching rows alone. */
bool pq_filter_column_taken(const pq_reader *r, size_t k);
void pq_reader_free_filter(pq_reader *r);

/* The decode stage (stage_decode.c): decode every selected chunk. */
pq_status pq_reader_stage_decode(pq_reader *r, pq_error *err);

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

/* Whether chunk ch (of leaf `leaf`) can be decoded for selected rows alone
 * (selection-vector decode needs a value a row): a required flat leaf, or
 * an optional one directly under the root whose chunk statistics count no
 * nulls (what Spark, polars and DuckDB write for non-null data: every
 * column optional), unless the writer is known to miscount them
 * (metadata/stats_trust.h) or a DATA_PAGE_V2 header counts a null. A page
 * of such a chunk that holds a null anyway is refused by the decoder as
 * corrupt, as its statistics lied; IS NULL pruning trusts the same count.
 * Optional leaves on the CPU executor alone: the device kernels select rows
 * of required leaves. */
static inline bool pq_reader_rows_decodable(const pq_reader *r, const pq_leaf *leaf, const pq_reader_chunk *ch)
{
    if (pq_decode_rows_supported(leaf)) return true;
    if (pq_executor_kernels(&r->sel.exec)) return false;
    const pq_schema *schema = pq_metadata_schema(r->md);
    if (leaf->max_def != 1 || !pq_reader_leaf_is_flat(schema, leaf)) return false;
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    if (!fm || ch->info.row_group >= fm->row_groups_len) return false;
    const pq_row_group *rg = &fm->row_groups[ch->info.row_group];
    if (ch->info.column >= rg->columns_len || !rg->columns[ch->info.column]) return false;
    const pq_statistics *s = &rg->columns[ch->info.column]->meta_data.statistics;
    if (!(s->set & PQ_STATS_HAS_NULL_COUNT) || s->null_count != 0 || pq_null_counts_trust(fm) == PQ_NULLS_UNKNOWN)
        return false; /* (an over-counting writer's 0 is exact) */
    /* a DATA_PAGE_V2 header that counts a null outweighs the statistics */
    for (uint32_t p = 0; p < ch->info.npages; p++)
        if (ch->pages[p].type == PQ_PAGE_DATA_V2 && ch->pages[p].num_nulls != 0) return false;
    return true;
}

/* Whether chunk ch of `leaf` may be decoded for a selection's rows alone
 * although its pages may hold nulls: an optional flat leaf, whose selected
 * rows' levels the CPU executor keeps (selection_with_nulls in
 * pages/cpu_exec.c). */
static inline bool pq_reader_rows_selectable_with_nulls(const pq_reader *r, const pq_leaf *leaf)
{
    if (pq_executor_kernels(&r->sel.exec)) return false;
    return leaf->max_def == 1 && leaf->max_rep == 0 && pq_reader_leaf_is_flat(pq_metadata_schema(r->md), leaf);
}

/* Chunk ch's bytes are decoded (a nested field's leaf): in a large mapped
 * file their pages leave this process' memory (pq_file_source_done_with),
 * so that the file is not resident beside the output. Flat passes drop
 * their row groups' pages in one range (stage_decode.c). */
static inline void pq_reader_done_with_chunk(const pq_reader *r, const pq_reader_chunk *ch)
{
    if (r->io.kind == SOURCE_FILE && !ch->bytes && !ch->hold)
        pq_file_source_done_with(&r->io.file, ch->data, ch->data_len);
}

/* Whether every selected leaf is flat. */
static inline bool pq_reader_selection_is_flat(const pq_reader *r, const pq_schema *schema)
{
    for (size_t c = 0; c < r->sel.columns_len; c++)
        if (!pq_reader_leaf_is_flat(schema, &schema->leaves[r->sel.columns[c]])) return false;
    return true;
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
