/*
 * pq_reader.h — the reader: a state machine that advances through stages,
 * keeping what each stage parsed.
 *
 *   PQ_STAGE_INIT        opened; nothing read yet
 *   PQ_STAGE_FOOTER      footer parsed (or adopted from metadata / a cache)
 *   PQ_STAGE_SELECT      row groups, columns and a row range chosen, and
 *                        row groups and pages pruned by the filter
 *                        (statistics, dictionaries, bloom filters, page
 *                        index)
 *   PQ_STAGE_PAGE_HEADERS every selected chunk read and its pages walked (with
 *                        a filter: the filter's columns, and the projected
 *                        columns that cannot wait for it)
 *   PQ_STAGE_FILTER      with a filter: the filter evaluated on every
 *                        selected row group's rows (its columns decoded), and
 *                        the other projected columns read only for the pages
 *                        that hold a kept row (late materialization);
 *                        without one it does nothing
 *   PQ_STAGE_DECODE      values decoded into Arrow arrays (with a filter, the
 *                        kept rows)
 *
 * A reader moves forward with pq_reader_advance(). Each stage can say which
 * byte ranges of the file it needs before it reads them
 * (pq_reader_needed_ranges). With a source (a path, memory, or a read-at
 * callback) the reader fetches those ranges itself. Without one (sans-IO,
 * pq_reader_open_sans_io) advance() answers PQ_ERR_NEED_DATA, the caller
 * fetches the ranges however it likes and hands them in with
 * pq_reader_supply(), then calls advance() again.
 *
 * A reader is used by one thread at a time. The `pq_metadata` it holds may be
 * shared freely (see pq_metadata.h).
 */
#ifndef PQ_READER_H
#define PQ_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_cache.h"
#include "pq_error.h"
#include "pq_metadata.h"
#include "pq_pages.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Sources
 * ------------------------------------------------------------------------- */

typedef struct pq_range {
    uint64_t offset;
    uint64_t length;
} pq_range;

/* Read exactly `len` bytes at `offset` into `dst`. Return PQ_OK, or an error
 * status after filling `err` (pq_error_set-style message is up to you). May be
 * called from the thread that drives the reader only. */
typedef pq_status (*pq_read_at_fn)(void *user, uint64_t offset, size_t len, void *dst,
                                   pq_error *err);

/* Optional: read `n` ranges at once, ranges[i] into dsts[i], failing as a
 * whole. A reader over a source that has it gathers all the byte ranges a
 * stage needs (as pq_reader_needed_ranges names them to a sans-IO caller)
 * and hands them over in one call, so that a remote source can fetch them
 * concurrently; without it the reader calls read_at once per range. */
typedef pq_status (*pq_read_ranges_fn)(void *user, const pq_range *ranges, size_t n, void *const *dsts,
                                       pq_error *err);

typedef struct pq_source {
    pq_read_at_fn read_at;
    void *user;            /* passed back to read_at; owned by the caller */
    uint64_t size;         /* total file size in bytes */
    pq_read_ranges_fn read_ranges; /* optional (NULL): see above */
} pq_source;

/* ---------------------------------------------------------------------------
 * Stages, ranges, counters
 * ------------------------------------------------------------------------- */

typedef enum pq_stage {
    PQ_STAGE_INIT = 0,
    PQ_STAGE_FOOTER,
    PQ_STAGE_SELECT,
    PQ_STAGE_PAGE_HEADERS,
    PQ_STAGE_FILTER,
    PQ_STAGE_DECODE,
    PQ_STAGE_COUNT
} pq_stage;

/* "init", "footer", "select", "page headers", "filter", "decode". */
PQ_API const char *pq_stage_name(pq_stage stage);


struct pq_expr; /* pq_predicate.h */

/* Counters. Each stage has a struct of its own; all of them begin with the
 * I/O counters every stage keeps. The structs grow by appending fields:
 * each getter takes the size of the caller's struct (sizeof, as compiled),
 * fills that many bytes (fields this library does not know are zeroed)
 * and returns the size of the struct it knows, so a program built against
 * an older or newer header keeps working. Counters add up over the
 * reader's life (pq_reader_reselect runs stages again). A NULL reader or
 * out gives zeros and returns 0. */

/* Every stage: its I/O and time. */
typedef struct pq_io_stats {
    uint64_t bytes_read;    /* bytes fetched through the source or supplied */
    uint64_t reads;         /* read_at calls issued, or supply() calls (the chunks of a mapped
                             * file, decoded where they lie, count bytes and no reads) */
    uint64_t nanoseconds;   /* wall time spent in the stage (I/O included) */
    uint64_t requests;      /* readers over a URL (pq_reader_open_url): HTTP requests sent,
                             * retries included (the footer stage counts the open's) */
    uint64_t retries;       /* ... of which tries after a failure */
} pq_io_stats;

typedef struct pq_footer_stats {
    pq_io_stats io;
    uint64_t parses;        /* Thrift footer parses done by this reader (0 on reuse) */
    uint64_t reused;        /* 1 when the metadata came from the caller, footer bytes or a cache */
} pq_footer_stats;

typedef struct pq_select_stats {
    pq_io_stats io;              /* dictionaries, bloom filters and page indexes read to prune */
    uint64_t chunks;             /* column chunks selected */
    uint64_t pruned_statistics;  /* row groups pruned by statistics */
    uint64_t pruned_dictionary;  /* ... by dictionary pages (beyond statistics) */
    uint64_t pruned_bloom_filter;/* ... by bloom filters (beyond the above) */
    uint64_t pruned_page_index;  /* ... that the page index left no row of */
    uint64_t prune_warnings;     /* indexes or filters that could not be read or were malformed,
                                  * so their step was skipped for that chunk */
    uint64_t pages_considered;   /* pages of the filter's columns the page index judged */
    uint64_t pages_pruned;       /* ... of which outside the rows kept */
    uint64_t pruned_deleted;     /* row groups whose selected rows were all deleted (deleted_rows) */
    uint64_t rows_deleted;       /* selected rows the deletion vector removed */
} pq_select_stats;

typedef struct pq_page_header_stats {
    pq_io_stats io;
    uint64_t chunks;        /* chunks read and walked */
    uint64_t pages;         /* page headers decoded */
    uint64_t pages_skipped; /* data pages of chunks read in part (offset index) that were not
                             * read: they hold no row needed (row range, page index) */
    uint64_t reused;        /* chunks taken over from the previous selection (reselect) */
} pq_page_header_stats;

typedef struct pq_filter_stats {
    pq_io_stats io;                  /* the deferred columns' pages that hold a kept row */
    uint64_t rows_in;                /* rows of the selected row groups it evaluated */
    uint64_t rows;                   /* ... that it kept */
    uint64_t rows_filtered;          /* ... that it removed (rows_in - rows) */
    uint64_t groups;                 /* selected row groups it evaluated */
    uint64_t groups_without_match;   /* ... of which it kept no row (nothing more of them is
                                      * read or decoded) */
    uint64_t chunks;                 /* deferred chunks read and walked (late materialization) */
    uint64_t pages;                  /* ... their page headers decoded */
    uint64_t pages_skipped;          /* ... their data pages not read: they hold no kept row */
    uint64_t chunks_skipped;         /* deferred chunks not read: their row group kept no row */
    uint64_t bytes_skipped;          /* ... their bytes */
    uint64_t device_filtered_groups; /* with the kernels in use (opts.device): row groups whose
                                      * filter the predicate kernel evaluated */
    uint64_t cpu_filtered_groups;    /* ... whose filter the kernel does not cover, evaluated by
                                      * the CPU evaluator instead */
} pq_filter_stats;

typedef struct pq_decode_stats {
    pq_io_stats io;
    uint64_t chunks;        /* column chunks decoded */
    uint64_t rows;          /* rows delivered, all selected row groups */
    uint64_t rows_filtered; /* rows decoded and then taken out because the filter removed
                             * them (columns decoded whole before the take) */
    uint64_t bytes_out;     /* bytes of the Arrow buffers made */
    uint64_t device_chunks; /* chunks the device executor's kernels decoded */
    uint64_t cpu_chunks;    /* with opts.device not CPU: chunks left to the CPU executor */
    uint64_t dictionary_bytes_skipped; /* CPU executor: bytes of dictionary pages, as
                                        * decompressed, not decompressed: the tail of a sparse
                                        * selection's dictionary past the largest index its
                                        * rows use, and dictionaries no decoded page uses */
    uint64_t chunks_sized_by_statistics; /* CPU executor: string chunks whose output the offset
                                          * index's SizeStatistics sized ahead (no size pass) */
} pq_decode_stats;

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */

/* How string and binary columns come out of the decode stage. The types
 * apply to top-level columns (no repetition); a string inside a struct,
 * list or map stays "u" / "z". JSON columns stay "u".
 *
 * The default is PQ_STRINGS_STRING: every Arrow consumer takes it, it is
 * what pyarrow reads by default, so results compare equal without casts.
 * A query engine that takes string views (DuckDB, polars, DataFusion,
 * Velox) should ask for PQ_STRINGS_VIEW: on dictionary-encoded columns it
 * copies no string bytes at all and decodes fastest; PQ_STRINGS_DICTIONARY
 * keeps the file's dictionary for engines that group or join on codes. */
typedef enum pq_string_type {
    PQ_STRINGS_STRING = 0,    /* Arrow string / binary ("u" / "z"): int32 offsets and one data
                               * buffer per column chunk; every value copied */
    PQ_STRINGS_VIEW = 1,      /* Arrow string_view / binary_view ("vu" / "vz"): 16-byte views;
                               * a value of a dictionary-encoded page is a copy of its
                               * dictionary entry's view, the bytes stay in the dictionary
                               * (no copy of repeated strings) */
    PQ_STRINGS_LARGE = 2,     /* Arrow large_string / large_binary ("U" / "Z"): int64 offsets
                               * (one chunk's bytes are still bounded by int32 offsets while
                               * decoding: a chunk of more than 2 GiB of strings fails) */
    PQ_STRINGS_DICTIONARY = 3 /* Arrow dictionary arrays: int32 indices ("i") over a dictionary
                               * of string / binary. A chunk whose data pages are all
                               * dictionary-encoded keeps the file's dictionary (indices as
                               * stored, no string copied); a chunk that fell back to other
                               * encodings gets one entry per row (its distinct values where
                               * the writer's ARROW:schema names an index type narrower than
                               * that, follow_arrow_schema). Each row group's array has its
                               * own dictionary */
} pq_string_type;

/* How decimals come out of the decode stage. */
typedef enum pq_decimal_type {
    PQ_DECIMALS_128 = 0, /* Arrow decimal128 (decimal256 above 38 digits), as pyarrow reads them */
    PQ_DECIMALS_64 = 1   /* Arrow decimal64 ("d:P,S,64") for at most 18 digits: 8 bytes a
                          * value, an INT64 column's values taken as stored (no conversion);
                          * more digits stay decimal128 / decimal256 */
} pq_decimal_type;

/* Options are filled by pq_reader_options_init, then set field by field.
 * Options marked EXPERIMENTAL belong to the GPU path, which is built and
 * checked on the host but has not run on a GPU yet (docs/devices.md): they
 * may change. */
typedef struct pq_reader_options {
    /* sizeof(pq_reader_options) as the caller was compiled, set by
     * pq_reader_options_init. The struct grows by appending fields: a
     * caller built against an older header gets the defaults of the fields
     * it does not know; one built against a newer header fails to open
     * (PQ_ERR_UNSUPPORTED) only if it sets a field this library lacks. 0 (a
     * struct zeroed by hand, not made by _init) fails the open with
     * PQ_ERR_INVALID_ARGUMENT. */
    uint32_t struct_size;
    /* Bytes read speculatively from the end of the file to catch the footer in
     * one read. 0 means the default, 64 KiB. Minimum effective value is 8. */
    uint32_t footer_read_size;
    /* Reuse: at most one of the two. With `metadata` the reader takes its own
     * reference; with `footer_bytes` (the Thrift FileMetaData, as from
     * pq_metadata_footer_bytes) the reader parses them without any file I/O. */
    pq_metadata *metadata;
    const void *footer_bytes;
    size_t footer_bytes_len;
    /* Cache: when set, the footer is looked up (and stored) under `cache_key`,
     * or under pq_metadata_cache_key_for_path() for path readers when
     * cache_key is NULL. A hit does no footer I/O and no parse. */
    pq_metadata_cache *cache;
    const void *cache_key;
    size_t cache_key_len;
    /* Footer projection: decode only these leaf columns' chunks (see
     * pq_parse_options). Ignored when metadata comes from elsewhere. */
    const uint32_t *columns;
    size_t columns_len;
    /* Cap on the memory that file contents can make one step hold: a footer,
     * a supplied range, a chunk's bytes, and everything one column chunk's
     * decode holds at once (decompressed pages, dictionary, output); each
     * decoding thread has its own. pq_reader_options_init sets it to
     * pq_default_memory_limit() (a quarter of physical memory, at most
     * 1 GiB); 0 means no
     * cap beyond what the file's declared sizes allow. Exceeding it fails
     * with PQ_ERR_MEMORY_LIMIT before the allocation. */
    uint64_t memory_limit;
    /* Select stage: the row groups later stages read, by index (NULL: all).
     * The columns are `columns` above (NULL: all leaves). Out-of-range
     * indexes fail the select stage with PQ_ERR_INVALID_ARGUMENT. */
    const uint32_t *row_groups;
    size_t row_groups_len;
    /* Page-header stage: verify each page's CRC-32 where the writer stored
     * one; a mismatch fails the stage naming the chunk and page. */
    bool verify_checksums;
    /* Row range: skip the first `row_offset` rows of the selected row groups
     * (counted across them in selection order) and deliver at most
     * `row_limit` rows after those (0: no limit). The select stage drops row
     * groups outside the range; inside a row group, the page-header stage
     * reads and keeps only the pages that overlap the range when the chunk
     * has an offset index (the whole chunk otherwise), and the decode stage
     * decodes only those. See pq_reader_row_group_range(). */
    uint64_t row_offset;
    uint64_t row_limit;
    /* Decode stage: threads that decode column chunks in parallel. 0: one
     * per online CPU core, except that a selection of less than 64 KiB of
     * chunk bytes is decoded on the calling thread (handing it to other
     * threads would cost more); 1: only the calling thread. The output does not depend on
     * it (same arrays, same errors). */
    uint32_t threads;
    /* Decode stage: check that every value of a string column (Arrow type
     * utf8: Parquet STRING / UTF8, and JSON) is well-formed UTF-8;
     * a bad one fails the stage naming the row group, column and value.
     * Off by default, as in pyarrow, which hands such bytes through. */
    bool validate_utf8;
    /* Predicate pushdown (pq_predicate.h): only rows for which `filter` is
     * true are delivered. The reader binds its own copy to the file's
     * schema in the select stage (binding errors fail that stage), prunes
     * row groups by the steps not disabled below (the page index keeps,
     * inside a row group, only the runs of rows whose pages may match), then
     * materializes late: the page-header stage reads the filter's columns
     * first (only their pages over the kept rows), the filter stage
     * evaluates the filter and reads each other projected column only for
     * the pages that hold a matching row (through the offset index; not at
     * all for a row group without a match), and the decode stage decodes
     * the matching rows. The
     * row range (row_offset, row_limit) applies to the rows before the
     * filter. The reader copies `filter` when it opens (the caller keeps
     * and frees its own). */
    const struct pq_expr *filter;
    /* PQ_PRUNE_* bits of pruning steps to skip (0: use every step). */
    uint32_t prune_disable;
    /* Prune only: deliver every row of the row groups that survive pruning
     * (the page index too may drop a row group, but does not narrow the
     * rows of those it keeps), without evaluating the predicate on the
     * rows. */
    bool prune_only;
    /* I/O planning of the page-header stage: byte ranges of column chunks
     * (or of their kept pages) at most `coalesce_gap` bytes apart are read
     * as one range of at most `coalesce_max` bytes (0: 8 KiB and 32 MiB),
     * through the source or as the ranges pq_reader_needed_ranges() asks a
     * sans-IO caller for; the gaps are read and dropped. no_coalescing reads
     * every range alone. Memory sources are never copied, so never
     * coalesced. */
    uint32_t coalesce_gap;
    uint64_t coalesce_max;
    bool no_coalescing;
    /* Page-header stage of a reader opened by path: the file is mapped
     * read-only (mmap) and the column chunks' pages are decoded where they
     * lie in the page cache, without the copy pread makes (coalescing then
     * has nothing to join); where mapping fails (a pipe, say) or the file's
     * size changed since it was opened, it reads by pread as with this
     * option. A file truncated by another process while it is mapped
     * raises SIGBUS when its lost bytes are touched, as in every reader
     * that maps files; set no_mmap to read by pread alone (a file that
     * shrinks then fails the read with PQ_ERR_IO). The footer is always
     * read by pread. A mapped file of 1 GiB or more has its page headers
     * read by pread too, and each pass of decoded row groups drops its
     * pages from the process' memory (they stay in the page cache), so
     * that such a file does not count in the reader's RSS beside the
     * output; a smaller file keeps its pages mapped for the next read. */
    bool no_mmap;
    /* Decode stage: the Arrow type of string and binary columns
     * (pq_string_type; default PQ_STRINGS_STRING). JSON columns stay "u".
     * An unknown value fails the select stage (PQ_ERR_INVALID_ARGUMENT). */
    uint32_t string_type;
    /* Decode stage: the Arrow type of decimals (pq_decimal_type; default
     * PQ_DECIMALS_128). */
    uint32_t decimal_type;
    /* Decode stage: follow the Arrow schema the writer stored in the
     * footer (the ARROW:schema key pyarrow and arrow-rs write), where it
     * names a type the default mapping does not give and the stored values
     * need no conversion: large_string / large_binary, string_view /
     * binary_view and dictionary<string / binary> for top-level string
     * and binary columns (over string_type), the time zone of a UTC
     * timestamp ("tsu:Europe/Paris"), and durations stored as INT64; inside
     * structs, lists and maps, large_string / large_binary, time zones and
     * durations, and large_list levels ("+L", 64-bit offsets); a dictionary
     * column's index type and order. Other types (seconds timestamps
     * stored as milliseconds, fixed_size_list) keep the default mapping. A file without the key reads as without the option;
     * one whose key cannot be decoded fails the select stage with
     * PQ_ERR_CORRUPT_DATA, naming what is wrong (as pyarrow refuses such
     * a file; false reads it). On by default (pq_reader_options_init):
     * a reader gets the types the writer meant, as pyarrow reads them, and
     * the fastest where the writer stored string views (arrow-rs,
     * tpchgen-cli, polars). A zeroed struct (no init) has it off. */
    bool follow_arrow_schema;
    /* EXPERIMENTAL. Decode and filter stages: where the column chunks are
     * decoded and a filter's rows evaluated (pq_device; default
     * PQ_DEVICE_CPU). The other stages run on the host. An unknown value
     * fails the select stage (PQ_ERR_INVALID_ARGUMENT). */
    uint32_t device;
    /* EXPERIMENTAL. Decode stage, with the decode on a CUDA device: keep the
     * decoded columns in device memory, as a GPU consumer wants them. What
     * the kernels decode is built into Arrow arrays there; the rest is
     * built on the host and copied to the device once, at the end of the
     * stage (docs/devices.md lists which is which).
     * pq_reader_next_device_batch() then hands out slices of those arrays
     * without a copy; pq_reader_next_batch() and pq_reader_export_*() copy
     * each batch to host memory. Ignored where the decode runs on the CPU.
     * Off by default. */
    bool device_output;
    /* EXPERIMENTAL. Decode stage, with the device executor in use: a copy
     * of the whole file already in the device's memory, of
     * device_file_size bytes, equal to the source's bytes (read there by
     * GPUDirect Storage, say, or kept from an earlier upload). The kernels
     * decompress and decode each column chunk from it instead of staging
     * its pages from host memory; the footer and page headers are still
     * read from the source. The memory stays the caller's, allocated and
     * unchanged until the decode stage ends (a copy that differs decodes to
     * what it holds or fails as corrupt data: the kernels check every
     * bound). A device_file_size other than the file's size fails the
     * select stage (PQ_ERR_INVALID_ARGUMENT). NULL (the default): pages
     * are staged from host memory. The CPU executor ignores it. */
    const void *device_file;
    uint64_t device_file_size;
    /* Decode stage: the Arrow timestamp unit of INT96 columns (the legacy
     * Impala / Spark timestamps), a pq_time_unit: PQ_UNIT_NANOS (the
     * default, set by pq_reader_options_init; 0 means the same):
     * timestamp[ns], as pyarrow reads them; PQ_UNIT_MICROS,
     * PQ_UNIT_MILLIS or PQ_UNIT_SECONDS. In a coarser unit a value is the
     * start of the unit its instant falls in (the sub-unit part dropped,
     * toward negative infinity: for every well-formed value what Arrow's
     * coerce_int96_timestamp_unit, arrow-rs and DuckDB give), and every
     * date of the years 1 to 9999 comes out right. In any unit a value that does not
     * fit its int64 (in nanoseconds: before 1677-09-21 or after
     * 2262-04-11) fails the decode stage with PQ_ERR_UNSUPPORTED naming
     * the column, row group, row and date ("column 'ts' row group 0 row
     * 3: INT96 timestamp 1500-01-01 00:00:00 is outside the range of
     * timestamp[ns] (1677-09-21 .. 2262-04-11); read it with
     * int96_unit=us"; inside a struct, list or map the value's place
     * among the leaf's values instead of the row), never a wrapped value
     * (pyarrow wraps such values into wrong dates). Applies at any depth.
     * The device executor's kernels decode such columns' pages, but their
     * Arrow arrays are always built on the host (device_output copies
     * them). Any other value fails the select stage
     * (PQ_ERR_INVALID_ARGUMENT). */
    uint32_t int96_unit;
    /* Keys for an encrypted file (pq_metadata.h, "Encrypted files"); NULL
     * for none. Copied at open (the caller's struct and bytes may go) and
     * wiped when the reader closes. With keys, the reader does not use
     * `cache` (a cached footer was decrypted with someone else's keys).
     * Without the key of an encrypted column, the plaintext columns still
     * read and that column fails (PQ_ERR_ENCRYPTED, naming it). Every
     * pruning step uses an encrypted column's statistics, dictionary, bloom
     * filter and page index with its key, and skips that column without it.
     * A key retriever is asked once per key, at the footer stage, never
     * later. Page headers are decrypted by the page-header stage; each
     * page by the decode, just before it is decompressed (no decrypted copy
     * of a whole chunk), on the host, also for the device executor. */
    const pq_decryption *decryption;
    /* A deletion vector (Iceberg / Delta deletes): file row numbers, from
     * 0 and counted across all row groups of the file (not the selection),
     * that no read delivers; any order, duplicates allowed; NULL for none.
     * Copied at open (sorted). Applied in the select stage to the rows each
     * row group delivers, before the filter stage: a row group whose
     * selected rows are all deleted is dropped (pq_select_stats.
     * pruned_deleted), and pages that hold only deleted rows are neither
     * read nor decoded (as with a row range). The row range (row_offset,
     * row_limit) counts rows before the deletions. With prune_only, whole
     * row groups are delivered (only row groups wholly deleted are
     * dropped). Numbers past the file's last row are ignored. */
    const uint64_t *deleted_rows;
    size_t deleted_rows_len;
    /* The row index: when not NULL, every batch and the output schema end
     * with a non-nullable int64 field of this name holding each delivered
     * row's file row number (from 0, across all row groups), filtered,
     * ranged and deleted rows included in the numbering. Copied at open.
     * Not with device_output (the decode stage fails,
     * PQ_ERR_UNSUPPORTED). A range of file rows is read through row_offset
     * and row_limit (with row groups all selected, the row range is the
     * file's rows), which prune row groups and pages. */
    const char *row_index_name;
    /* Shredded VARIANT columns (a top-level VARIANT group with a
     * typed_value) are rebuilt by default into the variants they store,
     * as Arrow's canonical extension type arrow.parquet.variant
     * (struct<metadata: binary, value: binary>, the field metadata naming
     * it): each row's value made from typed_value and value as
     * VariantShredding.md says (objects merged, arrays, every primitive;
     * a row with neither value nor typed_value is the variant null); the layouts the specification
     * calls invalid fail the decode (PQ_ERR_CORRUPT_DATA, naming the row
     * and the path). Set this to read them as stored instead (the struct of
     * metadata, value and typed_value), as a field read in part, and every
     * field with device_output, always is. */
    bool variant_storage;
} pq_reader_options;

/* Where the decode and filter stages run (pq_reader_options.device;
 * EXPERIMENTAL). The device executor runs the decode plan with the kernels
 * of kernels/, one block per page; what they do not cover goes to the CPU
 * executor, counted in pq_decode_stats (device_chunks, cpu_chunks), and
 * pq_reader_device_note() says where the stage ran and why. Decoded
 * arrays come back to host memory unless device_output keeps them on the
 * device. docs/devices.md lists what the kernels cover. (The value 3 is
 * taken: tests run the kernels on the host with it.) */
typedef enum pq_device {
    PQ_DEVICE_CPU = 0,  /* the CPU executor, on opts.threads threads */
    PQ_DEVICE_CUDA = 1, /* the kernels on a CUDA device; without a usable one the decode
                         * stage fails with PQ_ERR_UNSUPPORTED saying why */
    PQ_DEVICE_AUTO = 2  /* CUDA when a device is usable, else the CPU (the reason in
                         * pq_reader_device_note) */
} pq_device;

/* Pruning steps of the select stage (pq_reader_options.prune_disable). */
enum {
    PQ_PRUNE_STATISTICS = 1u << 0,  /* row-group min/max/null counts */
    PQ_PRUNE_DICTIONARY = 1u << 1,  /* dictionary pages of fully dictionary-encoded chunks, for = and IN */
    PQ_PRUNE_BLOOM_FILTER = 1u << 2,/* split-block bloom filters, for = and IN */
    PQ_PRUNE_PAGE_INDEX = 1u << 3   /* column and offset indexes: a row group's rows narrowed to
                                     * the span of the pages that may match */
};

/* Fill `opts` with defaults: all zero/NULL (64 KiB tail read, no reuse,
 * every pruning step, threads one per core) except struct_size and
 * memory_limit, which is pq_default_memory_limit(). Opening with NULL
 * options takes these defaults. */
PQ_API void pq_reader_options_init(pq_reader_options *opts);

/* The memory limit pq_reader_options_init sets: a quarter of the machine's
 * physical memory (sysconf), but at least 256 MiB and at most 1 GiB (1 GiB
 * when it cannot be read). That is ten times what one column chunk of a
 * row group of a million rows takes, and a service reading untrusted files
 * can live with it: a 4 KB file that declares gigabytes of pages fails at
 * once instead of taking them. Raise it (or set 0) for row groups whose one
 * column decodes to more. */
PQ_API uint64_t pq_default_memory_limit(void);

/* Mappings of files that path readers map (option no_mmap off) are kept
 * when the reader closes, for the next reader of the same file in this
 * process: mapping is free, but the kernel maps a file's pages in on first
 * touch, fault by fault, and takes them down again at unmap (a sixteenth
 * of reading a TPC-H lineitem file: docs/performance.md), and a read that follows a
 * read of the same file finds them mapped. A kept mapping is keyed by the
 * file's identity (device, inode, size, modification time, from fstat on
 * the new reader's descriptor): a file rewritten or replaced since gets a
 * fresh mapping and the old one is unmapped. Readers of one file at once
 * share a mapping. An idle mapping is unmapped by the next open or close
 * of a mapped reader 2 seconds or more after its last reader closed, and
 * at most `count` are idle at once (the longest idle are unmapped first).
 * While kept, a mapping holds its file open: a file deleted meanwhile
 * keeps its disk space until then (a limit of 0 unmaps every idle mapping
 * now and keeps none after; each reader then unmaps its own at close).
 * Default PQ_FILE_MAPS_DEFAULT. Thread-safe. */
#define PQ_FILE_MAPS_DEFAULT 8u
PQ_API void pq_file_maps_set_limit(unsigned count);

/* Idle mappings kept now (no reader holds them). */
PQ_API unsigned pq_file_maps_idle(void);

typedef struct pq_reader pq_reader;

/* ---------------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------------- */

/* Open a file by path. The file is opened and stat'ed now; nothing is read
 * until pq_reader_advance(). `opts` may be NULL; it is copied, the arrays
 * `columns` and `row_groups` included; `footer_bytes` and `cache_key` must
 * stay valid until the footer stage is done. Returns NULL + err. */
PQ_API pq_reader *pq_reader_open_path(const char *path, const pq_reader_options *opts, pq_error *err);

/* Open over `size` bytes at `data`, which the caller owns and must keep alive
 * and unchanged while the reader exists. */
PQ_API pq_reader *pq_reader_open_memory(const void *data, size_t size, const pq_reader_options *opts,
                                 pq_error *err);

/* Open over a caller's source; `*src` is copied. */
PQ_API pq_reader *pq_reader_open_source(const pq_source *src, const pq_reader_options *opts,
                                 pq_error *err);

/* Open a reader over an http://, https:// or s3:// URL (pq_remote.h):
 * one request now (the object's size, version and tail, which the footer
 * stage then reads without another request), and `remote` (NULL:
 * defaults, the tail as long as opts->footer_read_size) for endpoint,
 * credentials, retries and connections. With opts->metadata or
 * footer_bytes the open fetches no tail. Every stage fetches the ranges it
 * needs at once, over several connections; its stats count requests and
 * retries. With opts->cache and no cache_key the cache key is the URL,
 * size and ETag. Errors: those of pq_remote_open, and reader_new's. */
struct pq_remote_options;
PQ_API pq_reader *pq_reader_open_url(const char *url, const pq_reader_options *opts,
                                     const struct pq_remote_options *remote, pq_error *err);

/* Open without a source: the caller supplies every byte range (sans-IO).
 * `file_size` is the file's total size. */
PQ_API pq_reader *pq_reader_open_sans_io(uint64_t file_size, const pq_reader_options *opts,
                                  pq_error *err);

/* Close the reader, releasing its metadata reference and any file it opened.
 * NULL is ignored. */
PQ_API void pq_reader_close(pq_reader *r);

/* ---------------------------------------------------------------------------
 * Driving the stages
 * ------------------------------------------------------------------------- */

/* The last completed stage. */
PQ_API pq_stage pq_reader_stage(const pq_reader *r);

/* Run the next stage. PQ_OK when it completed (pq_reader_stage() moved on);
 * PQ_ERR_NEED_DATA when a sans-IO reader lacks bytes (see needed_ranges);
 * PQ_ERR_STAGE when no further stage is implemented; another error when the
 * stage failed, after which the reader stays where it was. */
PQ_API pq_status pq_reader_advance(pq_reader *r, pq_error *err);

/* Advance until `stage` is reached (or an error / NEED_DATA stops it). */
PQ_API pq_status pq_reader_advance_to(pq_reader *r, pq_stage stage, pq_error *err);

/* The byte ranges the next stage needs and that have not been supplied yet.
 * Writes up to `cap` ranges and returns how many there are in total (call with
 * cap 0 to size the array). The footer stage first needs the file's tail
 * (footer_read_size bytes), and after that one more range only when the
 * footer is longer than the tail. With a filter, the select stage (at
 * PQ_STAGE_FOOTER) then needs the dictionary pages, bloom filters and page
 * indexes its steps use, all at once (a bloom filter whose length the
 * footer does not give is asked for as a 65 KiB guess, and once that is
 * supplied, whole if its header says it is longer: a second round); the
 * page-header stage (at PQ_STAGE_SELECT) the offset indexes it needs (a
 * row range or the page index cuts its row groups; with a filter, the
 * deferred columns' once the filter is evaluated), then the pages, nearby
 * ranges coalesced. */
PQ_API size_t pq_reader_needed_ranges(const pq_reader *r, pq_range *out, size_t cap);

/* Hand in the bytes at [offset, offset+len). The bytes are copied. Supplying
 * a range that covers a needed range (or more) satisfies it. */
PQ_API pq_status pq_reader_supply(pq_reader *r, uint64_t offset, const void *data, size_t len,
                           pq_error *err);

/* ---------------------------------------------------------------------------
 * State of completed stages
 * ------------------------------------------------------------------------- */

/* The parsed footer, borrowed (retain it to keep it past the reader); NULL
 * before the footer stage. */
PQ_API pq_metadata *pq_reader_metadata(const pq_reader *r);

/* Size of the file the reader is over. */
PQ_API uint64_t pq_reader_file_size(const pq_reader *r);

/* After the decode stage: where it ran and why, e.g. "cpu", "host
 * kernels: 15 chunks on the kernels, 1 on the CPU (first: ...
 * DELTA_BINARY_PACKED values ... are not covered)", with a filter
 * "...; filter: 3 row groups on the kernels, 0 on the CPU", or "cpu
 * (auto: pqstep was built without CUDA ...)". Borrowed; "" before the
 * stage. */
PQ_API const char *pq_reader_device_note(const pq_reader *r);

/* A reader over a URL: the object's version as the open found it (its ETag,
 * else its Last-Modified, else ""), which with the URL and the size names
 * the object (pq_remote_options.known_size / known_version reopen it with
 * no request). NULL for readers of other sources. Borrowed. */
PQ_API const char *pq_reader_source_version(const pq_reader *r);

/* After the page-header stage: the walked chunk of row group `row_group`
 * and leaf `column`, or NULL when that chunk was not selected (or the stage
 * has not run). Borrowed: valid until the reader is closed. In an
 * encrypted chunk each page's header_offset and header_len span its
 * header's module as stored, and compressed_size is the page's length once
 * decrypted (its stored bytes, a module, are 32 bytes longer under
 * AES_GCM_V1, 16 under AES_GCM_CTR_V1: length, nonce and tag). */
PQ_API const pq_chunk_pages *pq_reader_chunk_pages(const pq_reader *r, uint32_t row_group,
                                                   uint32_t column);

/* The selected row groups and columns (after the select stage): pointers to
 * arrays owned by the reader, or NULL before the stage. Either count may be
 * NULL. */
PQ_API const uint32_t *pq_reader_selected_row_groups(const pq_reader *r, size_t *count);
PQ_API const uint32_t *pq_reader_selected_columns(const pq_reader *r, size_t *count);

/* After the footer stage: an Arrow C stream (ArrowArrayStream) over the
 * reader's current choice (its row groups, columns, row range and filter,
 * as the options or the last pq_reader_reselect() set them), for any Arrow
 * consumer to pull record batches from: DuckDB, polars, pyarrow,
 * DataFusion. The stream has a reader of its own over the same file (a
 * duplicated descriptor for a path reader; the same bytes for a memory
 * reader, which the caller keeps alive; the same callbacks for a caller's
 * source) and a reference to the parsed footer, so `r` may be closed at
 * once; no footer is read or parsed again. Its select stage (pruning)
 * runs here; then get_next decodes, on demand, a window of consecutive
 * selected row groups at a time (as many as hold 64 MiB of the selected
 * columns' uncompressed pages, at least one: small row groups decode
 * together on every thread, as in a read of the whole file, while the
 * memory a stream holds stays bounded; while the consumer takes one
 * window's batches, the next window is decoded ahead on a thread of the
 * stream's own, into a second reader: two windows at most, and not with a
 * device executor or device_output), and hands their rows out in
 * batches of at most `batch_rows` rows, none spanning two row groups (0: a
 * row group per batch); a row group the filter
 * leaves no row of gives no batch. get_schema gives pq_reader_output_schema()'s
 * schema. A decode error is get_next's EIO (ENOMEM for memory), with the
 * message (naming the row group and column) from get_last_error. The
 * caller owns *out and calls out->release; the stream is for one consumer
 * thread at a time. Errors: PQ_ERR_STAGE before the footer stage,
 * PQ_ERR_UNSUPPORTED for a sans-IO reader (the stream could not fetch its
 * pages), the select stage's errors, PQ_ERR_INVALID_ARGUMENT, PQ_ERR_NOMEM.
 * On error *out has release == NULL. */
struct ArrowArrayStream;
PQ_API pq_status pq_reader_export_stream(const pq_reader *r, uint64_t batch_rows, struct ArrowArrayStream *out,
                                         pq_error *err);

/* After the select stage: the schema every batch of the selection has
 * (as pq_reader_export_row_group() gives it), with the output types of the
 * options applied (string_type, decimal_type, follow_arrow_schema): so a
 * caller can make an empty table, or set up a consumer before any row is
 * decoded. The caller owns *out and calls out->release. Errors:
 * PQ_ERR_STAGE before the select stage, PQ_ERR_INVALID_ARGUMENT, PQ_ERR_NOMEM. */
struct ArrowSchema;
PQ_API pq_status pq_reader_output_schema(const pq_reader *r, struct ArrowSchema *out, pq_error *err);

/* After PQ_STAGE_DECODE: export selected row group `row_group` (an index
 * into the file, not into the selection) as a record batch: a struct
 * ArrowArray ("+s", no nulls, one child per selected column in selection
 * order) and its ArrowSchema (each field as pq_metadata_arrow_schema types
 * it). Ownership moves to the caller, who must call out_array->release and
 * out_schema->release; both stay valid after pq_reader_close(), and a row
 * group may be exported any number of times (the batches share the
 * decoded buffers, without copies). Nested columns are assembled into
 * struct, list and map arrays; when any selected column is nested, the batch
 * has one field per top-level field that holds selected leaves, in file
 * order, and each column appears once. out_schema may be NULL: every batch
 * of one selection has the same schema, so a caller that has it from an
 * earlier batch saves building it again (on a file of thousands of columns
 * and small row groups that is a good part of the export).
 * Errors: PQ_ERR_STAGE before the decode stage, PQ_ERR_INVALID_ARGUMENT for
 * a NULL reader or array or a row group that was not selected, PQ_ERR_NOMEM.
 * On error both outputs have release == NULL. */
struct ArrowArray;  /* pq_arrow.h */
struct ArrowSchema;
PQ_API pq_status pq_reader_export_row_group(pq_reader *r, uint32_t row_group,
                                            struct ArrowArray *out_array,
                                            struct ArrowSchema *out_schema, pq_error *err);

/* After the select stage: the rows of selected row group `row_group` that
 * the reader reads, [*first_row, *first_row + *num_rows) in the row group's
 * own numbering: all of them unless the options set a row range or the
 * page index narrowed them (then the span from the first to the last row
 * kept; pq_reader_row_group_runs() gives the runs inside it). After the
 * decode stage with a filter, the rows delivered, renumbered [0, rows
 * delivered). Errors: PQ_ERR_STAGE before
 * the select stage, PQ_ERR_INVALID_ARGUMENT for NULL arguments or a row
 * group that was not selected. */
PQ_API pq_status pq_reader_row_group_range(const pq_reader *r, uint32_t row_group,
                                           uint64_t *first_row, uint64_t *num_rows, pq_error *err);

/* One run of rows of a row group, in its own numbering. */
typedef struct pq_row_run {
    uint64_t first_row;
    uint64_t num_rows;
} pq_row_run;

/* After the select stage: the runs of rows of selected row group
 * `row_group` that the reader reads (see pq_reader_row_group_range), in
 * order, disjoint and not adjacent; up to `cap` of them into out[] (out may
 * be NULL when cap is 0), and *count gets how many there are. A row group
 * the page index narrowed has one run per stretch of pages that may match.
 * Errors as for pq_reader_row_group_range(). */
PQ_API pq_status pq_reader_row_group_runs(const pq_reader *r, uint32_t row_group, pq_row_run *out, size_t cap,
                                          size_t *count, pq_error *err);

/* After PQ_STAGE_DECODE: export rows [first_row, first_row + num_rows) of
 * selected row group `row_group` (row-group numbering) as a record batch,
 * like pq_reader_export_row_group() but sliced: the arrays share the decoded
 * buffers and carry Arrow offsets (no copy). The rows must lie inside the
 * row group's range (pq_reader_row_group_range); PQ_ERR_INVALID_ARGUMENT
 * otherwise. Ownership and lifetime as for pq_reader_export_row_group(). */
PQ_API pq_status pq_reader_export_rows(pq_reader *r, uint32_t row_group, uint64_t first_row,
                                       uint64_t num_rows, struct ArrowArray *out_array,
                                       struct ArrowSchema *out_schema, pq_error *err);

/* After PQ_STAGE_DECODE: the next record batch of at most `max_rows` rows
 * (0: a whole row group's range at a time), walking the selected row
 * groups in selection order; a batch never spans two row groups, and a
 * selected row group with no rows gives one empty batch (unless a filter
 * removed all its rows: then none). Each call
 * continues where the previous one stopped. When every row has been handed
 * out it returns PQ_OK with out_array->release and out_schema->release
 * NULL (end of data). Ownership and lifetime as for
 * pq_reader_export_row_group(); out_schema may be NULL, as there. Errors:
 * PQ_ERR_STAGE before the decode stage, PQ_ERR_INVALID_ARGUMENT for a NULL
 * reader or array, PQ_ERR_NOMEM. */
PQ_API pq_status pq_reader_next_batch(pq_reader *r, uint64_t max_rows, struct ArrowArray *out_array,
                                      struct ArrowSchema *out_schema, pq_error *err);

/* pq_reader_next_batch as an Arrow C device data interface array
 * (ArrowDeviceArray, pq_arrow.h): where the decode stage ran on a CUDA
 * device (opts.device PQ_DEVICE_CUDA, or PQ_DEVICE_AUTO that found one),
 * every buffer of the batch is in that device's memory (device_type
 * ARROW_DEVICE_CUDA, device_id the current device; sync_event NULL: the
 * device's work on it is complete on return) and out->array.release frees
 * it: with opts.device_output the batch is a slice of the arrays the
 * stage left on the device (no copy; release drops the batch's hold on
 * them), without it a copy of the host batch. Otherwise the batch stays in
 * host memory (ARROW_DEVICE_CPU, device_id -1; with device_output on host
 * kernels, the arrays the Arrow kernels built). End of data, errors and
 * out_schema as for pq_reader_next_batch; PQ_ERR_UNSUPPORTED when a copy
 * to the device fails (naming why). A host copy is pq_reader_next_batch's
 * batch. */
struct ArrowDeviceArray;
PQ_API pq_status pq_reader_next_device_batch(pq_reader *r, uint64_t max_rows, struct ArrowDeviceArray *out,
                                             struct ArrowSchema *out_schema, pq_error *err);

/* A new choice for pq_reader_reselect(). */
typedef struct pq_selection {
    const uint32_t *row_groups;  /* NULL: all row groups */
    size_t row_groups_len;
    const uint32_t *columns;     /* NULL: the columns the reader has now */
    size_t columns_len;
    uint64_t row_offset;         /* as pq_reader_options.row_offset / row_limit */
    uint64_t row_limit;
    const struct pq_expr *filter;/* as pq_reader_options.filter (copied; NULL: none) */
    uint32_t prune_disable;      /* as pq_reader_options.prune_disable */
} pq_selection;

/* Choose again, after the footer stage: the reader goes back to
 * PQ_STAGE_SELECT with `sel` (copied) and is advanced again as after
 * opening. Arrays decoded so far are dropped (batches exported from them
 * stay valid). Chunks walked by the previous page-header stage are kept: one
 * the new selection needs is neither read nor walked again when its kept
 * pages hold the new rows, and the page-header stage counts it in `reused`
 * (pq_page_header_stats); the others are freed. Counters keep adding up.
 * Errors: PQ_ERR_INVALID_ARGUMENT (NULL), PQ_ERR_STAGE before the footer
 * stage, the select stage's (an out-of-range index, a column a projected
 * footer left out), after which the reader is back at PQ_STAGE_FOOTER with
 * its previous choice. */
PQ_API pq_status pq_reader_reselect(pq_reader *r, const pq_selection *sel, pq_error *err);

/* After the select stage with a filter: the PQ_PRUNE_* step that dropped
 * file row group `row_group`, or 0 when it was kept (or not selected, or
 * there is no filter). */
PQ_API uint32_t pq_reader_pruned_by(const pq_reader *r, uint32_t row_group);

/* How the page-header stage will read one chunk (pq_reader_plan_chunk). */
typedef struct pq_chunk_plan {
    uint32_t pages_total;   /* data pages of the chunk (0: no offset index to tell) */
    uint32_t pages_kept;    /* ... of which over the row group's kept rows */
    uint64_t bytes;         /* bytes it reads: the dictionary page and the kept pages, or the
                             * whole chunk without an offset index */
    uint64_t chunk_bytes;   /* the whole chunk */
} pq_chunk_plan;

/* After the select stage: the pages and bytes of leaf `column` in selected
 * row group `row_group` that a read of the row group's kept rows
 * (pq_reader_row_group_runs: the pages that hold one of them) fetches, from the chunk's offset index, read
 * through the reader (no data page is read). With a filter, columns the
 * filter does not read may be narrowed further once it is evaluated (late
 * materialization): the plan is an upper bound for them. Errors:
 * PQ_ERR_STAGE, PQ_ERR_INVALID_ARGUMENT (not selected), PQ_ERR_NEED_DATA
 * (sans-IO: supply the offset index), PQ_ERR_CORRUPT_DATA (a bad offset
 * index). */
PQ_API pq_status pq_reader_plan_chunk(pq_reader *r, uint32_t row_group, uint32_t column, pq_chunk_plan *out,
                                      pq_error *err);

/* After the select stage: the filter as bound to this file, as text
 * (pq_expr_format; literals typed for their columns), snprintf contract;
 * "" without a filter. */
PQ_API size_t pq_reader_filter_text(const pq_reader *r, char *buf, size_t cap);

/* A stage's counters, as of now (the size contract is under "Counters"
 * above: pass sizeof *out as `size`). pq_reader_io_stats takes any stage
 * but PQ_STAGE_INIT. */
PQ_API size_t pq_reader_io_stats(const pq_reader *r, pq_stage stage, pq_io_stats *out, size_t size);
PQ_API size_t pq_reader_footer_stats(const pq_reader *r, pq_footer_stats *out, size_t size);
PQ_API size_t pq_reader_select_stats(const pq_reader *r, pq_select_stats *out, size_t size);
PQ_API size_t pq_reader_page_header_stats(const pq_reader *r, pq_page_header_stats *out, size_t size);
PQ_API size_t pq_reader_filter_stats(const pq_reader *r, pq_filter_stats *out, size_t size);
PQ_API size_t pq_reader_decode_stats(const pq_reader *r, pq_decode_stats *out, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* PQ_READER_H */
