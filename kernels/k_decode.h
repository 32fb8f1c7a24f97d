/*
 * k_decode.h — the decode kernels and the two ways to launch them.
 *
 * Three kernels, each a phase list (k_launch.h) over the page descriptors
 * of k_types.h, one block per page:
 *   PQ_K_LEVELS  levels into the level arrays, non-null counts (k_levels.h)
 *   PQ_K_VALUES  values, or byte-array value lengths (k_values.h; the
 *                DELTA_* steps in k_delta.h)
 *   PQ_K_BYTES   byte-array bytes into place (k_bytes.h)
 *
 * pq_kdecode_host runs one on the host (k_decode_host.c, through
 * pq_klaunch_host); pq_kcuda_launch runs the same phases on the GPU
 * (k_decode.cu, __global__ wrappers made from the same phase lists), with
 * the small set of CUDA memory calls the device executor needs. Builds
 * without CUDA link k_decode_nocuda.c instead, whose calls fail with a
 * reason. Every pointer in a pq_kargs given to pq_kcuda_launch must be
 * device memory (pq_kcuda_alloc).
 */
#ifndef PQ_KERNELS_K_DECODE_H
#define PQ_KERNELS_K_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/k_block.h"
#include "kernels/k_bytes.h"
#include "kernels/k_delta.h"
#include "kernels/k_launch.h"
#include "kernels/k_levels.h"
#include "kernels/k_types.h"
#include "kernels/k_values.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The phase lists: the one definition of each kernel. */
#define PQ_K_LEVELS_PHASES(X) X(pq_k_levels_scan) X(pq_k_levels_expand) X(pq_k_levels_count) X(pq_k_levels_sum)
#define PQ_K_VALUES_PHASES(X)                                                                      \
    X(pq_k_values_scan) X(pq_k_values_expand) X(pq_k_values_partial) X(pq_k_values_prefix) X(pq_k_values_ends) \
    X(pq_k_values_lpartial) X(pq_k_values_lprefix) X(pq_k_values_lends) X(pq_k_values_finish)
#define PQ_K_BYTES_PHASES(X) X(pq_k_bytes_copy) X(pq_k_bytes_rebase) X(pq_k_bytes_views)

typedef enum pq_kernel {
    PQ_K_LEVELS,
    PQ_K_VALUES,
    PQ_K_BYTES,
    PQ_K_KERNELS
} pq_kernel;

/* Most threads a block may have (CUDA's limit). */
#define PQ_KMAX_THREADS 1024u

/* Runs kernel k on the host over a->npages blocks of nthreads threads
 * (1..PQ_KMAX_THREADS), PQ_KLAUNCH_* flags. Returns 0, or -1 when it
 * could not start (bad arguments, no memory for the shared scratch). */
int pq_kdecode_host(pq_kernel k, const pq_kargs *a, uint32_t nthreads, unsigned flags);

/* ---- CUDA (k_decode.cu; k_decode_nocuda.c without CUDA) -------------------
 * Each returns 0 on success, or -1 with *why (when not NULL) a constant
 * string saying why (cudaGetErrorString, or "built without CUDA"). A
 * stream is a cudaStream_t. */

int pq_kcuda_stream_create(void **stream, const char **why);
void pq_kcuda_stream_destroy(void *stream);
/* n bytes of device memory (n 0 allocates 1). */
int pq_kcuda_alloc(void **p, size_t n, const char **why);
void pq_kcuda_free(void *p);
/* Copies on the stream, waited for before returning. */
int pq_kcuda_upload(void *stream, void *dst, const void *src, size_t n, const char **why);
int pq_kcuda_download(void *stream, void *dst, const void *src, size_t n, const char **why);
int pq_kcuda_memset(void *stream, void *dst, int value, size_t n, const char **why);
/* Launches kernel k over a->npages blocks of nthreads threads on the
 * stream and waits for it; a launch or execution error is returned. */
int pq_kcuda_launch(void *stream, pq_kernel k, const pq_kargs *a, uint32_t nthreads, const char **why);

/* ---- Asynchronous transfers (the device executor's staging) --------------
 * Pinned host memory (cudaHostAlloc), copies that return once enqueued
 * (the host buffer must stay untouched until an event recorded after them
 * has completed), and events (cudaEvent_t, timing off) to order two
 * streams or wait for one. */
int pq_kcuda_host_alloc(void **p, size_t n, const char **why);
void pq_kcuda_host_free(void *p);
int pq_kcuda_upload_async(void *stream, void *dst, const void *src, size_t n, const char **why);
int pq_kcuda_download_async(void *stream, void *dst, const void *src, size_t n, const char **why);
/* Device memory to device memory, enqueued on the stream. */
int pq_kcuda_copy_async(void *stream, void *dst, const void *src, size_t n, const char **why);
int pq_kcuda_stream_sync(void *stream, const char **why);
int pq_kcuda_event_create(void **event, const char **why);
void pq_kcuda_event_destroy(void *event);
int pq_kcuda_event_record(void *event, void *stream, const char **why);
/* Work enqueued on `stream` later waits for the event (the host does not). */
int pq_kcuda_stream_wait(void *stream, void *event, const char **why);
/* The host waits for the event. */
int pq_kcuda_event_sync(void *event, const char **why);

#ifdef __cplusplus
}
#endif
#endif /* PQ_KERNELS_K_DECODE_H */
