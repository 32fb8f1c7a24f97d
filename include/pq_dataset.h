/*
 * pq_dataset.h — many Parquet files read as one table: a directory, a glob
 * or a list of files, optionally hive-partitioned (`key=value/` directories).
 *
 * Opening a dataset lists its files, parses every footer once (in
 * parallel, through one metadata cache shared by all files), checks that
 * the files agree on their schema, and types the partition keys. A scan
 * then prunes whole files by their partition values and by their footer
 * statistics before any row group is read, and streams the rest, file by
 * file and row group by row group, as an Arrow C stream
 * (pq_dataset_export_stream) whose batches carry the files' columns and
 * then the partition keys.
 */
#ifndef PQ_DATASET_H
#define PQ_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_arrow.h"
#include "pq_cache.h"
#include "pq_error.h"
#include "pq_predicate.h"
#include "pq_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How directory names carry column values. */
typedef enum pq_partitioning {
    PQ_PARTITIONING_NONE = 0, /* directories are only directories */
    PQ_PARTITIONING_HIVE = 1  /* `key=value` path segments under the dataset's root are columns:
                               * value text URL-decoded, `__HIVE_DEFAULT_PARTITION__` a null;
                               * a key is int32 when every value is a 32-bit integer, else
                               * string (pyarrow's inference) */
} pq_partitioning;

typedef struct pq_dataset_options {
    /* sizeof(pq_dataset_options) as the caller was compiled, set by
     * pq_dataset_options_init: the struct grows by appending fields, as
     * pq_reader_options does (pq_reader.h). */
    uint32_t struct_size;
    uint32_t partitioning;       /* pq_partitioning */
    /* Footers are parsed through this cache (NULL: the dataset makes one of
     * 256 MiB for its life), so a file opened again, by this dataset or by
     * another over the same cache, is not parsed again. */
    pq_metadata_cache *cache;
    /* Threads for parsing footers and for decoding (0: one per core). */
    uint32_t threads;
    /* Each file's reader options (NULL: pq_reader_options_init's;
     * copied by pq_dataset_open): memory_limit, string_type,
     * decimal_type, follow_arrow_schema, int96_unit, validate_utf8,
     * verify_checksums, coalescing and prune_disable are taken from here; metadata, footer
     * bytes, cache, columns, row groups, the row range, the filter and
     * threads are the dataset's. */
    const pq_reader_options *reader;
    /* For http(s):// and s3:// locations (pq_remote.h): endpoint,
     * credentials, retries, connections; NULL: defaults and the AWS_*
     * environment. Copied by pq_dataset_open. */
    const struct pq_remote_options *remote;
} pq_dataset_options;

/* Defaults: struct_size, no partitioning, a cache of its own, a thread per
 * core, and pq_reader_options_init()'s reader options. */
PQ_API void pq_dataset_options_init(pq_dataset_options *opts);

typedef struct pq_dataset pq_dataset;

/* Open the dataset made of `paths` (n of them), each a file, a URL (an
 * http(s):// URL names one file; an s3:// URL names an object, or a
 * prefix whose objects are listed as a directory's files: "s3://b/data/"
 * or "s3://b/data", and patterns as for paths, "s3://b/data/" "**" "/"
 * "*.parquet"; listed objects are opened with no request beyond their
 * footer's), a directory
 * (every file below it whose name does not start with '.' or '_', walked
 * in sorted order), or a glob pattern (a path with '*', '?' or '[' in its
 * last segment, matched with fnmatch in its directory; a segment "**"
 * before it walks every level below, so "data" + "/" + "**" + "/" +
 * "*.parquet" is every .parquet file under data). A directory, or the
 * directory part of a pattern before any wildcard, is the root its files'
 * partition segments are read under. Every footer is read and parsed now (on opts.threads
 * threads). `opts` may be NULL. Errors (NULL + err): PQ_ERR_IO (a path that
 * cannot be read, naming it), PQ_ERR_INVALID_ARGUMENT (no file at all, a
 * partition key missing or out of order in one file, naming it and the
 * first file), PQ_ERR_SCHEMA (two files whose schemas differ: both files
 * and the first differing column), a footer's parse errors (naming the
 * file), PQ_ERR_NOMEM. */
PQ_API pq_dataset *pq_dataset_open(const char *const *paths, size_t n, const pq_dataset_options *opts,
                                   pq_error *err);

/* Close the dataset; streams exported from it keep what they need. */
PQ_API void pq_dataset_close(pq_dataset *ds);

/* The files, in the dataset's order (sorted within each path given). */
PQ_API size_t pq_dataset_file_count(const pq_dataset *ds);
PQ_API const char *pq_dataset_file_path(const pq_dataset *ds, size_t i);
/* File i's parsed footer (borrowed: valid while the dataset is open). */
PQ_API const pq_metadata *pq_dataset_file_metadata(const pq_dataset *ds, size_t i);

/* The partition keys (0 without partitioning): key k's name, its Arrow
 * format ("i" for int32, "u" for string), and file i's value as text (NULL
 * for a null), all borrowed. */
PQ_API size_t pq_dataset_partition_count(const pq_dataset *ds);
PQ_API const char *pq_dataset_partition_name(const pq_dataset *ds, size_t k);
PQ_API const char *pq_dataset_partition_format(const pq_dataset *ds, size_t k);
PQ_API const char *pq_dataset_partition_value(const pq_dataset *ds, size_t i, size_t k);

/* The dataset's schema: the files' top-level fields (as
 * pq_metadata_arrow_schema types them, with the reader options' output
 * types), then one field per partition key. The caller owns *out. */
PQ_API pq_status pq_dataset_schema(const pq_dataset *ds, struct ArrowSchema *out, pq_error *err);

/* What a scan reads. */
typedef struct pq_dataset_scan {
    /* Top-level field names or leaf paths of the files, paths into
     * their VARIANT columns ("v.a.b", "v.l[0]": pq_variant.h; the leaves
     * they read taken from the first file's schema, which the files
     * share), and partition keys (NULL: every column and key). The
     * batches hold the files' columns in file order (a VARIANT column
     * read for paths replaced by the paths' columns, as
     * pq_variant_project_batch does), then the keys asked for, in key
     * order. */
    const char *const *columns;
    size_t columns_len;
    /* Only rows for which it is true (pq_predicate.h syntax; copied). Its
     * top-level AND terms that name only partition keys are decided per
     * file from the file's values (a file where one is false or null is not
     * read); the others go to each file's reader (statistics, dictionaries,
     * bloom filters, page index, late materialization). A term naming both
     * a key and a file column is PQ_ERR_UNSUPPORTED. */
    const pq_expr *filter;
    uint64_t batch_rows;         /* at most this many rows a batch (0: a row group) */
} pq_dataset_scan;

/* What a scan's pruning did (filled when the stream is made). */
typedef struct pq_dataset_scan_stats {
    uint64_t files;                   /* files in the dataset */
    uint64_t files_pruned_partition;  /* not read: a partition term was false or null */
    uint64_t files_pruned_statistics; /* not read: their footer statistics ruled out every row group */
    uint64_t row_groups;              /* row groups of the files left */
    uint64_t row_groups_pruned;       /* ... of which ruled out by statistics */
} pq_dataset_scan_stats;

/* An Arrow C stream over the scan (see pq_reader_export_stream for the
 * stream's behaviour): the files that survive pruning, in order, each with
 * a reader of its own over the dataset's parsed footer. With one thread
 * (opts.threads 1) a file is decoded a row group per pull; with T > 1, T
 * files at a time are decoded at once, one per thread, each whole, and
 * their batches held until handed out (memory: T files' decoded rows). `stats`
 * may be NULL. The stream holds what it needs: the dataset may be closed
 * at once. Errors: PQ_ERR_INVALID_ARGUMENT (an unknown column or key,
 * naming it; a partition term whose literal does not fit the key's type),
 * PQ_ERR_UNSUPPORTED (see `filter`), a file's select-stage errors (naming
 * the file), PQ_ERR_NOMEM. On error *out has release == NULL. */
PQ_API pq_status pq_dataset_export_stream(pq_dataset *ds, const pq_dataset_scan *scan, struct ArrowArrayStream *out,
                                          pq_dataset_scan_stats *stats, pq_error *err);

#ifdef __cplusplus
}
#endif

#endif
