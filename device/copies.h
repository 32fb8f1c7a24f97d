/*
 * copies.h — Arrow arrays between host and device memory: a deep copy of
 * an array tree whose every buffer goes through a pq_device_memory (CUDA
 * memory, or host memory standing for a device so that CI checks the same
 * path), and record batches handed out as ArrowDeviceArrays (the Arrow C
 * device data interface).
 */
#ifndef PQ_DEVICE_COPIES_H
#define PQ_DEVICE_COPIES_H

#include <stddef.h>

#include "pq_arrow.h"
#include "pq_error.h"
#include "pages/page_values.h"

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

/* The memories the GPU path copies through: host to CUDA device (on
 * `stream`, a cudaStream_t, or NULL for synchronous copies), host memory
 * standing for a device (plain copies), and CUDA device back to the host. */
pq_device_memory pq_device_memory_to_cuda(void *stream);
pq_device_memory pq_device_memory_host_copy(void);
pq_device_memory pq_device_memory_from_cuda(void);

/* A batch of CUDA device arrays (*a) replaced by a host copy: *a is
 * released and the copy takes its place. An array already released (end
 * of data) is left as it is. */
pq_status pq_device_array_to_host(struct ArrowArray *a, const struct ArrowSchema *s, pq_error *err);

/* Where a batch handed out by pq_device_batch_export is. */
typedef enum pq_batch_memory {
    PQ_BATCH_ON_HOST = 0,   /* host memory: handed out as ARROW_DEVICE_CPU */
    PQ_BATCH_ON_CUDA,       /* already in CUDA device memory: handed out as it is */
    PQ_BATCH_COPY_TO_CUDA   /* host memory, copied to the current CUDA device */
} pq_batch_memory;

/* *a (typed by s) moved into *out as an ArrowDeviceArray, copied to the
 * current CUDA device first with PQ_BATCH_COPY_TO_CUDA (then *a is
 * released). *a is left released (moved) either way. On error *out is
 * zeroed. */
pq_status pq_device_batch_export(struct ArrowArray *a, const struct ArrowSchema *s, pq_batch_memory where,
                                 struct ArrowDeviceArray *out, pq_error *err);

/* Frees the buffers of an output left in device memory
 * (outputs_on_device) and zeroes it; on_cuda says whether the run was on a
 * CUDA device. */
void pq_device_values_free(bool on_cuda, pq_column_values *v);

#endif
