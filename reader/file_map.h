/*
 * file_map.h — read-only mappings of local files, kept for the next reader
 * of the same file.
 *
 * Mapping a file costs nothing until its pages are touched: then the kernel
 * maps them in from the page cache fault by fault (17 ms for a 230 MB TPC-H
 * lineitem file here), and unmapping takes them down again (8 ms, on the
 * thread that closes the reader, after the parallel decode). A process that
 * reads a file again (a query engine re-scanning a table, a reader per row
 * group or per query) finds the mapping kept, its pages already mapped.
 *
 * An entry is keyed by the file's identity as the footer cache keys it:
 * device, inode, size and modification time, taken by fstat on the new
 * reader's own descriptor. A file rewritten in place (new size or time) or
 * replaced (new inode) gets a fresh mapping, and an idle one of its old
 * identity is unmapped. Readers of the same file at once share one mapping.
 * An idle mapping (no reader holds it) is kept at most PQ_FILE_MAP_IDLE_NS
 * and is unmapped by the next acquire or release after that; at most
 * pq_file_maps_set_limit's count are idle at once, the longest idle
 * unmapped first. Thread-safe.
 */
#ifndef PQ_READER_FILE_MAP_H
#define PQ_READER_FILE_MAP_H

#include <stdint.h>

typedef struct pq_file_map pq_file_map;

/* How long an idle mapping is kept: 2 s. A kept mapping holds its file
 * open (a file deleted meanwhile keeps its disk space until the mapping
 * goes), so the time is short: enough for a read that follows a read. */
#define PQ_FILE_MAP_IDLE_NS (2ull * 1000000000ull)

/* The `size` bytes of file `fd` mapped read-only (size must be fstat's
 * size now, at least 1, and fit in size_t: the caller checks), or NULL
 * when mmap refuses. *entry gets the cache's entry (NULL when the mapping
 * is not kept: the limit is 0, or the table is full of mappings in use),
 * to pass to pq_file_map_release with the pointer. */
const uint8_t *pq_file_map_acquire(int fd, uint64_t size, pq_file_map **entry);

/* Done with a mapping from pq_file_map_acquire: it stays kept for the next
 * reader of the file, or is unmapped (entry NULL, or over the limit). */
void pq_file_map_release(pq_file_map *entry, const uint8_t *map, uint64_t size);

/* Change the idle time (tests); idle mappings already older are unmapped. */
void pq_file_map_set_idle_ns(uint64_t ns);

#endif
