/*
 * device.h — what the CUDA side of the kernels layer can see. The decode
 * kernels come with the GPU decode stage; this is the part every build has:
 * a probe that says whether a CUDA device is usable, so that GPU tests and
 * benchmarks can skip with a reason where there is none.
 */
#ifndef PQ_KERNELS_DEVICE_H
#define PQ_KERNELS_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/* Free what pq_cuda_copy_to_device allocated. NULL is ignored. */
void pq_cuda_free(void *dev);

#ifdef __cplusplus
}
#endif
#endif
