/*
 * device_export.h — record batches on a device (the Arrow C device data
 * interface): a batch's buffers copied into device memory, and the
 * ArrowArray tree over them. Internal; the API is
 * pq_reader_next_device_batch (pq_reader.h).
 */
#ifndef PQ_READER_DEVICE_EXPORT_H
#define PQ_READER_DEVICE_EXPORT_H

#include <stddef.h>

#include "pq_arrow.h"
#include "pq_error.h"

/* Where device buffers come from: copy_in makes a device copy of n host
 * bytes (*dev; NULL for n == 0), returning 0, or -1 with `why`; release
 * frees one. The CUDA build's is cudaMalloc + cudaMemcpy / cudaFree; tests
 * use host memory to check the copy without a GPU. */
typedef struct pq_device_memory {
    int (*copy_in)(void *user, const void *host, size_t n, void **dev, const char **why);
    void (*release)(void *user, void *dev);
    void *user;
    /* Where the source is not host memory (a copy from a device back to
     * the host): reads n bytes of it at src into host, returning 0, so the
     * offsets that size a string array's data can be read. NULL: the
     * source is host memory, read directly. */
    int (*peek)(void *user, void *host, const void *src, size_t n);
} pq_device_memory;

/* The bytes buffer `i` of `a` (typed by `s`) spans, as the format and the
 * array's offset and length say (an offsets buffer read for the data's
 * length: it must be host memory). -1 for a format this cannot size. */
int64_t pq_arrow_buffer_size(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i);

/* The same, reading the source's memory through mem->peek when set. */
int64_t pq_arrow_buffer_size_in(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                                const pq_device_memory *mem);

/* A copy of `src` (schema `s`) whose every buffer, children and dictionary
 * included, is copied through `mem`; dst->release frees them through it.
 * `mem` is copied. Errors: PQ_ERR_UNSUPPORTED (a format it cannot size, a
 * failed device copy, naming why), PQ_ERR_NOMEM. On error dst->release is
 * NULL and nothing is left allocated. */
pq_status pq_arrow_array_copy(const struct ArrowArray *src, const struct ArrowSchema *s, const pq_device_memory *mem,
                              struct ArrowArray *dst, pq_error *err);

#endif
