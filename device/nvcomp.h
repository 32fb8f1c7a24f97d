/*
 * nvcomp.h — batched page decompression on the GPU through nvCOMP's C
 * API (nvcompBatched*DecompressAsync), for the device executor.
 *
 * nvCOMP is not linked: libnvcomp is opened with dlopen on first use, so
 * that libpqstep loads and runs on machines without it (GPU decompression
 * is then off, and pages are decompressed on the host). The library tried,
 * in order: $PQ_NVCOMP_LIBRARY (a path), "libnvcomp.so.6" (the loader's
 * search: LD_LIBRARY_PATH, the rpath, the system), and the copy found at
 * configure time (PQ_NVCOMP_LIBRARY_PATH, CMakeLists.txt). The symbols'
 * types come from nvCOMP's headers, so a build has them only where the
 * headers were found (PQ_HAVE_NVCOMP); other CUDA builds and builds
 * without CUDA (nvcomp_stub.c) fail every call with a reason.
 *
 * Codecs, by Parquet codec number: SNAPPY (raw snappy), GZIP (gzip
 * members; nvCOMP's Gzip), ZSTD, LZ4_RAW (one bare LZ4 block; nvCOMP's
 * LZ4). The Hadoop-framed LZ4, BROTLI and LZO are not nvCOMP's.
 *
 * nvCOMP validates its input only partly (its headers say corrupt data
 * may give undefined results, reads out of bounds included, on the
 * device): the caller bounds every buffer by the page headers it checked
 * and compares the sizes nvCOMP reports with them, and a caller that does
 * not trust nvCOMP with hostile pages decompresses on the host instead
 * (pq_device_exec_options.host_decompress).
 */
#ifndef PQ_KERNELS_K_NVCOMP_H
#define PQ_KERNELS_K_NVCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether nvCOMP decompresses Parquet codec `codec` (a pq_codec value).
 * Pure: true in every build, whether or not nvCOMP can be loaded. */
bool pq_nvcomp_codec(int32_t codec);

/* Alignment the batch's input and output buffers keep (every nvCOMP
 * decompressor asks for at most 8 bytes). */
#define PQ_NVCOMP_ALIGN 16u

/* Loads libnvcomp once (thread-safe). 0 when it is usable, else -1 with
 * *why (when not NULL) a constant string saying why: "pqstep was built
 * without nvCOMP", the dlopen or dlsym error, ... */
int pq_nvcomp_load(const char **why);

/* nvCOMP's version as major * 1000 + minor * 100 + patch, or 0 when not
 * loaded. */
unsigned pq_nvcomp_version(void);

/* Device scratch bytes a batch of n pages of codec `codec` needs: the
 * largest page decompresses to max_out bytes, all to total_out. */
int pq_nvcomp_temp_size(int32_t codec, size_t n, size_t max_out, size_t total_out, size_t *temp,
                        const char **why);

/* Enqueues the decompression of n pages on `stream` (a cudaStream_t).
 * Every array and buffer is device memory: in[i] (in_bytes[i] bytes) into
 * out[i] (out_cap[i] bytes, each address PQ_NVCOMP_ALIGN-aligned as is
 * each in[i]); nvCOMP writes out_actual[i] and status[i] (nvcompStatus_t,
 * 0 = success). temp: temp_bytes of scratch (pq_nvcomp_temp_size). Returns
 * once enqueued; -1 with *why when nvCOMP refused the batch. */
int pq_nvcomp_decompress_async(int32_t codec, const void *const *in, const size_t *in_bytes, const size_t *out_cap,
                               size_t *out_actual, size_t n, void *temp, size_t temp_bytes, void *const *out,
                               int32_t *status, void *stream, const char **why);

/* A constant name for an nvcompStatus_t value ("nvcompErrorCannotDecompress"). */
const char *pq_nvcomp_status_name(int32_t status);

#ifdef __cplusplus
}
#endif
#endif /* PQ_KERNELS_K_NVCOMP_H */
