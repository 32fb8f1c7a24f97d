/* nvcomp_cuda.cu — nvCOMP's batched decompressors, opened with dlopen
 * (nvcomp.h). The function types are taken from nvCOMP's own
 * declarations (decltype), so a header that changes a signature breaks the
 * build, not a call. Builds with CUDA but without nvCOMP's headers compile
 * the stubs at the end. */
#include "device/nvcomp.h"

#ifdef PQ_HAVE_NVCOMP

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <nvcomp/gzip.h>
#include <nvcomp/lz4.h>
#include <nvcomp/snappy.h>
#include <nvcomp/zstd.h>

#ifndef PQ_NVCOMP_LIBRARY_PATH
#define PQ_NVCOMP_LIBRARY_PATH ""
#endif

/* One decompressor: its entry points. */
#define PQ_NVC_CODECS(X) X(Snappy) X(Gzip) X(Zstd) X(LZ4)

static struct {
#define PQ_NVC_FIELDS(name)                                                          \
    decltype(&nvcompBatched##name##DecompressGetTempSize) name##_temp;               \
    decltype(&nvcompBatched##name##DecompressAsync) name##_async;
    PQ_NVC_CODECS(PQ_NVC_FIELDS)
#undef PQ_NVC_FIELDS
    decltype(&nvcompGetProperties) properties;
    void *handle;
    unsigned version;
    const char *why; /* NULL when loaded */
    char message[512];
} nv;

static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

static void *open_one(const char *path, char *errs, size_t cap)
{
    if (!path || !*path) return NULL;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        size_t used = 0;
        while (used < cap && errs[used]) used++;
        if (used + 1 < cap) snprintf(errs + used, cap - used, "%s%s", used ? "; " : "", e ? e : path);
    }
    return h;
}

static void nv_load(void)
{
    char errs[sizeof nv.message - 32] = ""; /* room for the prefix below */
    const char *env = getenv("PQ_NVCOMP_LIBRARY");
    void *h = open_one(env, errs, sizeof errs);
    if (!h) h = open_one("libnvcomp.so.6", errs, sizeof errs);
    if (!h) h = open_one(PQ_NVCOMP_LIBRARY_PATH, errs, sizeof errs);
    if (!h) {
        snprintf(nv.message, sizeof nv.message, "libnvcomp not loaded: %s", errs);
        nv.why = nv.message;
        return;
    }
    const char *missing = NULL;
#define PQ_NVC_SYM(field, sym)                                        \
    if (!missing && !(*(void **)&nv.field = dlsym(h, #sym))) missing = #sym;
#define PQ_NVC_SYMS(name)                                                  \
    PQ_NVC_SYM(name##_temp, nvcompBatched##name##DecompressGetTempSize)   \
    PQ_NVC_SYM(name##_async, nvcompBatched##name##DecompressAsync)
    PQ_NVC_CODECS(PQ_NVC_SYMS)
    PQ_NVC_SYM(properties, nvcompGetProperties)
#undef PQ_NVC_SYMS
#undef PQ_NVC_SYM
    if (missing) {
        snprintf(nv.message, sizeof nv.message, "libnvcomp has no %s (nvCOMP 6 is needed)", missing);
        nv.why = nv.message;
        dlclose(h);
        return;
    }
    nvcompProperties_t p;
    if (nv.properties(&p) != nvcompSuccess) {
        snprintf(nv.message, sizeof nv.message, "nvcompGetProperties failed");
        nv.why = nv.message;
        dlclose(h);
        return;
    }
    /* The option structs passed by value are 6.x's: refuse another major. */
    if (p.version / 1000 != NVCOMP_VER_MAJOR) {
        snprintf(nv.message, sizeof nv.message, "libnvcomp is version %u, pqstep was built for %d.x", p.version,
                 NVCOMP_VER_MAJOR);
        nv.why = nv.message;
        dlclose(h);
        return;
    }
    nv.version = p.version;
    nv.handle = h;
}

extern "C" int pq_nvcomp_load(const char **why)
{
    pthread_once(&nv_once, nv_load);
    if (nv.handle) return 0;
    if (why) *why = nv.why ? nv.why : "libnvcomp not loaded";
    return -1;
}

extern "C" unsigned pq_nvcomp_version(void)
{
    return nv.handle ? nv.version : 0;
}

static int nv_status(nvcompStatus_t s, const char *call, const char **why)
{
    if (s == nvcompSuccess) return 0;
    if (why) *why = call;
    return -1;
}

extern "C" int pq_nvcomp_temp_size(int32_t codec, size_t n, size_t max_out, size_t total_out, size_t *temp,
                                   const char **why)
{
    *temp = 0;
    if (pq_nvcomp_load(why)) return -1;
    switch (codec) {
    case 1: /* SNAPPY */
        return nv_status(nv.Snappy_temp(n, max_out, nvcompBatchedSnappyDecompressDefaultOpts, temp, total_out, 0),
                         "nvcompBatchedSnappyDecompressGetTempSize failed", why);
    case 2: /* GZIP */
        return nv_status(nv.Gzip_temp(n, max_out, nvcompBatchedGzipDecompressDefaultOpts, temp, total_out, 0),
                         "nvcompBatchedGzipDecompressGetTempSize failed", why);
    case 6: /* ZSTD */
        return nv_status(nv.Zstd_temp(n, max_out, nvcompBatchedZstdDecompressDefaultOpts, temp, total_out, 0),
                         "nvcompBatchedZstdDecompressGetTempSize failed", why);
    case 7: /* LZ4_RAW */
        return nv_status(nv.LZ4_temp(n, max_out, nvcompBatchedLZ4DecompressDefaultOpts, temp, total_out, 0),
                         "nvcompBatchedLZ4DecompressGetTempSize failed", why);
    default:
        if (why) *why = "codec not decompressed by nvCOMP";
        return -1;
    }
}

extern "C" int pq_nvcomp_decompress_async(int32_t codec, const void *const *in, const size_t *in_bytes,
                                          const size_t *out_cap, size_t *out_actual, size_t n, void *temp,
                                          size_t temp_bytes, void *const *out, int32_t *status, void *stream,
                                          const char **why)
{
    if (pq_nvcomp_load(why)) return -1;
    if (n == 0) return 0;
    cudaStream_t s = (cudaStream_t)stream;
    nvcompStatus_t *st = (nvcompStatus_t *)status; /* a C enum: int-sized, checked below */
    static_assert(sizeof(nvcompStatus_t) == sizeof(int32_t), "nvcompStatus_t is not 4 bytes");
    switch (codec) {
    case 1:
        return nv_status(nv.Snappy_async(in, in_bytes, out_cap, out_actual, n, temp, temp_bytes, out,
                                         nvcompBatchedSnappyDecompressDefaultOpts, st, s),
                         "nvcompBatchedSnappyDecompressAsync refused the batch", why);
    case 2:
        return nv_status(nv.Gzip_async(in, in_bytes, out_cap, out_actual, n, temp, temp_bytes, out,
                                       nvcompBatchedGzipDecompressDefaultOpts, st, s),
                         "nvcompBatchedGzipDecompressAsync refused the batch", why);
    case 6:
        return nv_status(nv.Zstd_async(in, in_bytes, out_cap, out_actual, n, temp, temp_bytes, out,
                                       nvcompBatchedZstdDecompressDefaultOpts, st, s),
                         "nvcompBatchedZstdDecompressAsync refused the batch", why);
    case 7:
        return nv_status(nv.LZ4_async(in, in_bytes, out_cap, out_actual, n, temp, temp_bytes, out,
                                      nvcompBatchedLZ4DecompressDefaultOpts, st, s),
                         "nvcompBatchedLZ4DecompressAsync refused the batch", why);
    default:
        if (why) *why = "codec not decompressed by nvCOMP";
        return -1;
    }
}

#else /* CUDA, but no nvCOMP headers at configure time */

static int no_nvcomp(const char **why)
{
    if (why) *why = "pqstep was built without nvCOMP (not found at configure time)";
    return -1;
}

extern "C" int pq_nvcomp_load(const char **why)
{
    return no_nvcomp(why);
}

extern "C" unsigned pq_nvcomp_version(void)
{
    return 0;
}

extern "C" int pq_nvcomp_temp_size(int32_t codec, size_t n, size_t max_out, size_t total_out, size_t *temp,
                                   const char **why)
{
    (void)codec, (void)n, (void)max_out, (void)total_out;
    *temp = 0;
    return no_nvcomp(why);
}

extern "C" int pq_nvcomp_decompress_async(int32_t codec, const void *const *in, const size_t *in_bytes,
                                          const size_t *out_cap, size_t *out_actual, size_t n, void *temp,
                                          size_t temp_bytes, void *const *out, int32_t *status, void *stream,
                                          const char **why)
{
    (void)codec, (void)in, (void)in_bytes, (void)out_cap, (void)out_actual, (void)n, (void)temp, (void)temp_bytes,
        (void)out, (void)status, (void)stream;
    return no_nvcomp(why);
}

#endif
