/*
 * source.h — the built-in sources: a file opened by path, and memory.
 */
#ifndef PQ_READER_SOURCE_H
#define PQ_READER_SOURCE_H

#include "pq_reader.h"

/* A file source: the fd is owned by the source (close with pq_file_source_close). */
typedef struct pq_file_source {
    int fd;
    uint64_t size;
    int64_t mtime_ns;
} pq_file_source;

pq_status pq_file_source_open(pq_file_source *fs, const char *path, pq_error *err);
void pq_file_source_close(pq_file_source *fs);
pq_status pq_file_source_read_at(void *user, uint64_t offset, size_t len, void *dst, pq_error *err);

typedef struct pq_memory_source {
    const uint8_t *data;
    uint64_t size;
} pq_memory_source;

pq_status pq_memory_source_read_at(void *user, uint64_t offset, size_t len, void *dst,
                                   pq_error *err);

#endif
