/*
 * test_util.h — helpers shared by the Check suites: where the corpus is,
 * reading files, the manifest, and small assertions on pqstep results.
 */
#ifndef PQ_TEST_UTIL_H
#define PQ_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "pqstep.h"

/* The parquet-testing corpus: $PQSTEP_TEST_CORPUS, else ../shared/parquet-testing
 * beside the source tree. NULL (and a loud message on stderr, once) when absent. */
const char *pq_test_corpus_dir(void);

/* Join the corpus dir and a relative path ("data/x.parquet") into a static
 * per-call buffer owned by the caller (malloc'd; free it). */
char *pq_test_corpus_path(const char *rel);

/* Read a whole file into a malloc'd buffer; NULL on failure. */
uint8_t *pq_test_read_file(const char *path, size_t *len);

/* The file at `path` read whole (*file, *len: the caller frees *file) and
 * its footer parsed: the metadata, or NULL with err saying why (*file
 * freed and NULL then). A file that cannot be read fails the test. */
pq_metadata *pq_test_read_parsed(const char *path, uint8_t **file, size_t *len, pq_error *err);

/* One row of manifest.tsv. */
typedef struct pq_test_manifest_row {
    char file[256];          /* relative path: data/... or bad_data/... */
    uint64_t bytes;
    int64_t num_rows;        /* -1 when the manifest says '-' or empty */
    int64_t num_row_groups;
    int64_t num_leaf_columns;
} pq_test_manifest_row;

/* Parse manifest.tsv; returns a malloc'd array (free it) and its length in *n,
 * or NULL when the corpus is absent. */
pq_test_manifest_row *pq_test_manifest(size_t *n);

/* Extract the footer (Thrift bytes) of a file image: returns a pointer into
 * `file` and its length, or NULL when the tail is not a valid PAR1 footer. */
const uint8_t *pq_test_footer_span(const uint8_t *file, size_t len, size_t *footer_len);

/* The bundled sample, data/sample/lineitem_61rg.parquet under the source
 * tree (61 row groups of 2,000 rows, 16 columns): malloc'd, free it. */
char *pq_test_sample_path(void);

/* Print "SKIP: <why>" and exit(77) (ctest's skip code). */
void pq_test_skip(const char *why);

/* Every .parquet file below the corpus's data/ and bad_data/ (recursively),
 * as paths relative to the corpus ("data/x.parquet"), sorted. Returns the
 * count (0 without a corpus); *files is malloc'd, free it with
 * pq_test_free_files. */
int pq_test_corpus_files(char ***files);

/* Bytes per value of a flat fixed-width Arrow format string ("i", "w:7",
 * "d:15,2", "tsu:UTC", ...), 0 when the format is not fixed width. */
size_t pq_test_arrow_fixed_width(const char *format);

/* A page header for hand-built uncompressed chunks: `size` bytes of page
 * data at chunk offset `at`, n values, value encoding `enc` (RLE
 * definition levels). */
pq_page_info pq_test_page(uint64_t at, int32_t type, int32_t size, int32_t n, int32_t enc);

/* Writes a PLAIN byte array (a 4-byte length, then s) at `at`; returns the
 * bytes written. */
size_t pq_test_put_str(uint8_t *at, const char *s);
void pq_test_free_files(char **files, int n);

/* Whether host arrays a and b (format from schema s, children and
 * dictionary by its children and dictionary) hold the same logical
 * values: lengths, nulls (validity bits within each array's offset and
 * length, a missing bitmap meaning no null), and every valid slot's value:
 * fixed-width bytes, booleans' bits, strings and binary of every layout
 * (offsets of 32 or 64 bits, views), structs, lists, large lists and maps
 * by their children's ranges, dictionary arrays by their indices' entries.
 * NULL when equal, else a message (in why) naming the first difference by
 * path and row. Bits past a length, a null slot's bytes and how buffers
 * are laid out (a view's buffer, an offset base) may differ. */
const char *pq_test_arrays_differ(const struct ArrowArray *a, const struct ArrowArray *b,
                                  const struct ArrowSchema *s, char *why, size_t cap);

#endif
