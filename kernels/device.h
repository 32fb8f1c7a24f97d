/*
 * device.h — what the CUDA side of the kernels layer can see. The decode
 * kernels come with the GPU decode stage; this is the part every build has:
 * a probe that says whether a CUDA device is usable, so that GPU tests and
 * benchmarks can skip with a reason where there is none.
 */
#ifndef PQ_KERNELS_DEVICE_H
#define PQ_KERNELS_DEVICE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices; 0 when built without CUDA or none is found.
 * When 0, `why` (if not NULL) gets a constant string saying why. */
int pq_cuda_device_count(const char **why);

#ifdef __cplusplus
}
#endif
#endif
