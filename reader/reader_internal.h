/*
 * reader_internal.h — the reader's context, shared by the files of reader/:
 * reader.c (opening, driving, the footer stage), stage_select.c and
 * stage_pages.c.
 */
#ifndef PQ_READER_INTERNAL_H
#define PQ_READER_INTERNAL_H

#include <time.h>

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
    const uint8_t *data;  /* the kept bytes, the parts' lengths summed */
    uint8_t *bytes;       /* owned copy of them; NULL when `data` is in a memory source */
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

typedef enum source_kind {
    SOURCE_NONE,        /* sans-IO: the caller supplies bytes */
    SOURCE_FILE,
    SOURCE_MEMORY,
    SOURCE_CALLER
} source_kind;

struct pq_reader {
    pq_stage stage;
    pq_reader_options opts;
    source_kind kind;
    pq_source src;
    pq_file_source file;
    pq_memory_source memory;
    char *path;                     /* path readers: for the cache key */
    uint32_t *own_columns;          /* copies of opts.columns / opts.row_groups / opts.filter */
    uint32_t *own_row_groups;
    struct pq_expr *own_filter;
    uint64_t file_size;

    /* footer stage */
    footer_step fstep;
    uint8_t *tail;                  /* bytes [tail_offset, file_size) once read */
    uint64_t tail_offset;
    uint32_t footer_len;            /* from the trailer, once the tail is read */
    uint64_t data_end;              /* where the footer starts, once parsed: the data region
                                     * [4, data_end) holds every chunk, index and filter */

    pq_metadata *md;
    pq_supplied supplied;           /* sans-IO: ranges handed in by the caller */
    pq_stage_stats stats[PQ_STAGE_COUNT];

    /* select stage: what later stages read */
    uint32_t *sel_row_groups;
    size_t sel_row_groups_len;
    uint32_t *sel_columns;
    size_t sel_columns_len;
    uint32_t *walk_columns;         /* sel_columns, then the filter's leaves not among them */
    size_t walk_columns_len;        /* the stride of `chunks` */
    uint8_t *walk_flags;            /* per walk column, from planning (stage_pages.c) */
    struct pq_expr *filter;         /* the options' filter, bound to md (owned) */
    uint8_t *pruned_by;             /* per file row group: the PQ_PRUNE_* step that dropped it, or 0 */
    pq_row_set *sel_rows;           /* per selected row group: the rows to deliver (no filter) or
                                     * to test (filter); once filtered, [0, rows kept) */
    size_t sel_rows_alloc;          /* entries allocated (the selection only shrinks) */
    bool row_range;                 /* options set row_offset or row_limit */
    bool select_pending;            /* sans-IO: statistics done, the other steps wait for bytes */
    struct pq_output_types *outputs;/* per leaf: the Arrow type it decodes to (output_type.h) */

    /* page-header stage: one entry per selected row group x walk column, in
     * row-group-major order; the chunk bytes are kept for the decode stage */
    pq_reader_chunk *chunks;
    size_t chunks_len;
    size_t chunks_walked;           /* entries done so far */
    bool late_pending;              /* deferred chunks wait for the filter's rows */
    uint8_t **late_keep;            /* per selected row group: the filter's bits over the rows
                                     * of sel_rows, from late materialization (or NULL) */
    struct pq_arrow_column **late_cols; /* per chunk: a projected filter column as late
                                     * materialization decoded it, for the decode stage */
    size_t late_cols_len;
    pq_reader_chunk *prev_chunks;   /* the previous selection's chunks, until planned */
    size_t prev_chunks_len;
    size_t prev_hint;               /* where reuse_walked's next search starts */
    pq_page_walk_counters walk_counters;

    /* decode stage: one column per entry of `chunks`, same order */
    pq_arrow_column **decoded;
    uint64_t *decoded_first_row;    /* per entry: the row-group row its array starts at */
    size_t *decoded_chunk;          /* per entry: the chunk whose rows its array holds */
    bool *decoded_filtered;         /* per entry: decoded for the filter's matching rows alone
                                     * (selection-vector decode), so no take is needed */
    size_t decoded_len;
    size_t batch_group;             /* pq_reader_next_batch: next selected row group */
    uint64_t batch_row;             /* and the row in it (row-group numbering) */
    bool batch_started;             /* batch_row is set for batch_group */
};


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

/* The filter over selected row group g's rows (sel_rows[g]): its columns'
 * walked chunks decoded and evaluated (stage_decode.c). *keep (malloc'd, a
 * bit per row of sel_rows[g]) gets the matching rows, *kept their count.
 * cctx may be NULL. With hand_over, the decoded arrays of the filter's
 * projected columns go to r->late_cols for the decode stage: the reader is
 * written (entries g's alone, so row groups run in parallel). */
pq_status pq_reader_filter_rows(pq_reader *r, struct pq_codec_ctx *cctx, size_t g, bool hand_over,
                                uint8_t **keep, int64_t *kept, pq_error *err);

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

static inline uint64_t pq_reader_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
