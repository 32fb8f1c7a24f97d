/*
 * dataset_internal.h — the parts of a dataset (dataset/): listing.c lists
 * the files, partition.c reads and types hive partition values and decides
 * a filter's partition terms, dataset.c opens, checks and streams.
 */
#ifndef PQ_DATASET_INTERNAL_H
#define PQ_DATASET_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_dataset.h"

/* One file and the length of its root prefix (its partition segments are
 * path + root_len, up to the file name). */
typedef struct pq_ds_file {
    char *path;          /* a path, or a URL (pq_remote.h) */
    size_t root_len;
    uint64_t size;       /* URLs: the object's size and ETag once known (a listing or the */
    char *version;       /* footer's read), so later opens send no request; else 0 / NULL */
} pq_ds_file;

typedef struct pq_ds_files {
    pq_ds_file *v;
    size_t n, cap;
} pq_ds_files;

/* List `paths` (see pq_dataset_open); s3:// prefixes and patterns are
 * listed with `remote` (NULL: defaults). */
struct pq_remote_options;
pq_status pq_ds_list(const char *const *paths, size_t n, const struct pq_remote_options *remote,
                     pq_ds_files *out, pq_error *err);
void pq_ds_files_free(pq_ds_files *f);

/* The partition keys of the files and each file's values. */
typedef struct pq_ds_partitions {
    size_t nkeys;
    char **names;         /* per key */
    bool *is_int;         /* per key: int32 (else string) */
    size_t nfiles;
    char **values;        /* [file * nkeys + key]: the value's text, NULL for a null */
    int32_t *ints;        /* [file * nkeys + key]: an int key's value */
} pq_ds_partitions;

/* Hive partitions of `files`. Errors: PQ_ERR_INVALID_ARGUMENT (a file whose
 * keys differ from the first file's, naming both; a malformed %-escape),
 * PQ_ERR_NOMEM. */
pq_status pq_ds_partitions_read(const pq_ds_files *files, pq_ds_partitions *out, pq_error *err);
void pq_ds_partitions_free(pq_ds_partitions *p);

/* The key named `name`, or -1. */
int pq_ds_partition_key(const pq_ds_partitions *p, const char *name);

/* Split `filter` into its top-level AND terms that name partition keys only
 * (*keys, owned, NULL when none) and the others (*rest, owned, NULL when
 * none). Errors: PQ_ERR_UNSUPPORTED for a term naming both, PQ_ERR_NOMEM. */
pq_status pq_ds_split_filter(const pq_expr *filter, const pq_ds_partitions *p, pq_expr **keys, pq_expr **rest,
                             pq_error *err);

/* The truth of partition-only expression e for file `file`: 1 true, 0
 * false, 2 unknown (a null); -1 with err for a literal that does not fit
 * its key's type. */
int pq_ds_partition_truth(const pq_expr *e, const pq_ds_partitions *p, size_t file, pq_error *err);

#endif
