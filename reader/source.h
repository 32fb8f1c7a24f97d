/*
 * source.h — the built-in sources: a file opened by path, and memory.
 */
#ifndef PQ_READER_SOURCE_H
#define PQ_READER_SOURCE_H

#include <stdbool.h>

#include "pq_reader.h"

/* A file source: the fd is owned by the source (close with pq_file_source_close). */
typedef struct pq_file_source {
    int fd;
    uint64_t size;
    int64_t mtime_ns;
    const uint8_t *map; /* the file mapped read-only (pq_file_source_map), or NULL */
    struct pq_file_map *map_entry; /* where map is kept (reader/file_map.h), or NULL: ours */
    bool map_tried;     /* pq_file_source_map was called: map is what it got */
} pq_file_source;

/* A source with nothing open (pq_file_source_close does nothing to it). */
void pq_file_source_init(pq_file_source *fs);
pq_status pq_file_source_open(pq_file_source *fs, const char *path, pq_error *err);
/* dst over src's file through a duplicated descriptor, not yet mapped (its
 * own map, or the kept one, when pq_file_source_map is asked). On failure
 * dst is as after pq_file_source_init. */
pq_status pq_file_source_dup(pq_file_source *dst, const pq_file_source *src, pq_error *err);
void pq_file_source_close(pq_file_source *fs);

/* The file's `size` bytes mapped read-only (mmap, MAP_SHARED), mapped on
 * the first call (or a kept mapping of the same file reused,
 * reader/file_map.h) and released by pq_file_source_close; NULL when it cannot
 * be: an empty file, one whose size is no longer the size it had when
 * opened (read through pread then, which fails where the bytes are gone),
 * a file mmap refuses (a pipe, most of /proc), or one larger than the
 * address space. Reading page bytes where they lie saves the copy out of
 * the page cache that pread makes (a tenth of a TPC-H lineitem read).
 * Once mapped, pq_file_source_read_at copies from the map. A file that
 * another process truncates while it is mapped raises SIGBUS on the next
 * access past its new end, as in any reader that maps files (the option
 * no_mmap in pq_reader.h keeps to pread). Not thread-safe: the first call
 * must come before reads on other threads. */
const uint8_t *pq_file_source_map(pq_file_source *fs);
pq_status pq_file_source_read_at(void *user, uint64_t offset, size_t len, void *dst, pq_error *err);
/* pq_file_source_read_at through pread always, the map untouched (the page
 * walk of a file whose pages are dropped reads its headers so). */
pq_status pq_file_source_pread(void *user, uint64_t offset, size_t len, void *dst, pq_error *err);

/* Bytes of the map at [p, p + len) a read is done with. In a file of
 * PQ_DROP_PAGES_MIN_FILE or more, the whole memory pages inside the range
 * leave this process' resident memory (madvise MADV_DONTNEED): the kernel
 * keeps them in its page cache and the next access maps them again, so the
 * bytes stay readable and unchanged. A read of a file as large as memory
 * would otherwise hold every page it touched in its RSS beside the output.
 * Pages only partly inside the range are kept (a neighbour may still be
 * reading them), but for the file's last. Nothing happens outside the map, without one, or in a
 * smaller file: a page dropped costs a fault on the next read, which made
 * warm reads of a 250 MB lineitem file 17-40% slower, while its pages are
 * a small part of what a read holds. Thread-safe. */
void pq_file_source_done_with(const pq_file_source *fs, const uint8_t *p, size_t len);
/* Bytes of the map at [p, p + len) a read will decode next: in a file
 * whose pages are dropped, the kernel is asked to read them into the page
 * cache ahead (madvise MADV_WILLNEED), while the pass before is decoded. */
void pq_file_source_will_need(const pq_file_source *fs, const uint8_t *p, size_t len);
/* Whether fs is mapped and large enough that its pages are dropped. */
bool pq_file_source_drops_pages(const pq_file_source *fs);
#define PQ_DROP_PAGES_MIN_FILE ((uint64_t)1 << 30)

/* Tests: the file size from which pages are dropped (0: every file);
 * PQ_DROP_PAGES_MIN_FILE again restores the default. */
void pq_file_source_set_drop_min(uint64_t bytes);

typedef struct pq_memory_source {
    const uint8_t *data;
    uint64_t size;
} pq_memory_source;

pq_status pq_memory_source_read_at(void *user, uint64_t offset, size_t len, void *dst,
                                   pq_error *err);

#endif
