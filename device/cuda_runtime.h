/*
 * cuda_runtime.h — the CUDA runtime as the GPU path sees it: one
 * vocabulary, pq_cuda_*, for the probe, memory, copies, streams and
 * events. cuda_runtime_cuda.cu implements it with nvcc; a build without
 * CUDA links cuda_runtime_stub.c, where there is no device and every call
 * fails saying so. Only device/ and kernels/ call these (CONTRIBUTING.md).
 */
#ifndef PQ_DEVICE_CUDA_RUNTIME_H
#define PQ_DEVICE_CUDA_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The device ---------------------------------------------------------- */

/* Number of usable CUDA devices; 0 when built without CUDA or none is found.
 * When 0, `why` (if not NULL) gets a constant string saying why. */
int pq_cuda_device_count(const char **why);

/* Device memory for exported arrays: `n` bytes of `host` copied into a new
 * allocation on the current device (*dev; n == 0 gives NULL). 0 on
 * success; -1 with `why` (a constant string) when built without CUDA or a
 * CUDA call failed. The copy is complete on return. */
int pq_cuda_copy_to_device(const void *host, size_t n, void **dev, const char **why);

/* The current device's ordinal (0 without CUDA). */
int pq_cuda_current_device(void);

/* ---- Memory, copies, streams ------------------------------------------------
 * Each returns 0 on success, or -1 with *why (when not NULL) a constant
 * string saying why (cudaGetErrorString, or "built without CUDA"). A
 * stream is a cudaStream_t. */

int pq_cuda_stream_create(void **stream, const char **why);
void pq_cuda_stream_destroy(void *stream);
/* n bytes of device memory (n 0 allocates 1). */
int pq_cuda_alloc(void **p, size_t n, const char **why);
/* Frees what pq_cuda_alloc and pq_cuda_copy_to_device allocated; NULL is ignored. */
void pq_cuda_free(void *p);
/* Copies on the stream, waited for before returning. */
int pq_cuda_upload(void *stream, void *dst, const void *src, size_t n, const char **why);
int pq_cuda_download(void *stream, void *dst, const void *src, size_t n, const char **why);
int pq_cuda_memset(void *stream, void *dst, int value, size_t n, const char **why);

/* ---- Asynchronous transfers (the device executor's staging) --------------
 * Pinned host memory (cudaHostAlloc), copies that return once enqueued
 * (the host buffer must stay untouched until an event recorded after them
 * has completed), and events (cudaEvent_t, timing off) to order two
 * streams or wait for one. */
int pq_cuda_host_alloc(void **p, size_t n, const char **why);
void pq_cuda_host_free(void *p);
int pq_cuda_upload_async(void *stream, void *dst, const void *src, size_t n, const char **why);
int pq_cuda_download_async(void *stream, void *dst, const void *src, size_t n, const char **why);
/* Device memory to device memory, enqueued on the stream. */
int pq_cuda_copy_async(void *stream, void *dst, const void *src, size_t n, const char **why);
int pq_cuda_stream_sync(void *stream, const char **why);
int pq_cuda_event_create(void **event, const char **why);
void pq_cuda_event_destroy(void *event);
int pq_cuda_event_record(void *event, void *stream, const char **why);
/* Work enqueued on `stream` later waits for the event (the host does not). */
int pq_cuda_stream_wait(void *stream, void *event, const char **why);
/* The host waits for the event. */
int pq_cuda_event_sync(void *event, const char **why);

#ifdef __cplusplus
}
#endif
#endif
