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
#include "pq_reader.h"
#include "reader/source.h"
#include "reader/supplied.h"

/* A walked column chunk and its bytes. */
typedef struct pq_reader_chunk {
    pq_chunk_pages info;  /* public view: place in the file and the pages */
    pq_page_info *pages;  /* owned (info.pages points here) */
    uint8_t *bytes;       /* owned: the chunk's bytes, info.length of them */
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
    uint64_t file_size;

    /* footer stage */
    footer_step fstep;
    uint8_t *tail;                  /* bytes [tail_offset, file_size) once read */
    uint64_t tail_offset;
    uint32_t footer_len;            /* from the trailer, once the tail is read */

    pq_metadata *md;
    pq_supplied supplied;           /* sans-IO: ranges handed in by the caller */
    pq_stage_stats stats[PQ_STAGE_COUNT];

    /* select stage: what later stages read */
    uint32_t *sel_row_groups;
    size_t sel_row_groups_len;
    uint32_t *sel_columns;
    size_t sel_columns_len;

    /* page-header stage: one entry per selected (row group, column), in
     * row-group-major order; the chunk bytes are kept for the decode stage */
    pq_reader_chunk *chunks;
    size_t chunks_len;
    size_t chunks_walked;           /* entries done so far (sans-IO resumes here) */
    pq_page_walk_counters walk_counters;

    /* decode stage: one column per entry of `chunks`, same order */
    pq_arrow_column **decoded;
    size_t decoded_len;
};


/* Bytes [offset, offset+len) into dst: from supplied ranges first, else the
 * source; PQ_ERR_NEED_DATA for a sans-IO reader without them. Counts the
 * read against `stage`. */
pq_status pq_reader_read_range(pq_reader *r, pq_stage stage, uint64_t offset, size_t len,
                               void *dst, pq_error *err);

/* The select stage (stage_select.c). */
pq_status pq_reader_stage_select(pq_reader *r, pq_error *err);

/* The page-header stage (stage_pages.c): walk every selected chunk. */
pq_status pq_reader_stage_pages(pq_reader *r, pq_error *err);

/* Ranges the page-header stage still needs (stage_pages.c). */
size_t pq_reader_pages_needed(const pq_reader *r, pq_range *out, size_t cap);

/* The decode stage (stage_decode.c): decode every selected chunk. */
pq_status pq_reader_stage_decode(pq_reader *r, pq_error *err);

/* Free what the select, page-header and decode stages keep. */
void pq_reader_free_selection(pq_reader *r);
void pq_reader_free_chunks(pq_reader *r);
void pq_reader_free_decoded(pq_reader *r);

static inline uint64_t pq_reader_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
