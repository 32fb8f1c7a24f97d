/* k_decode_nocuda.c — the CUDA calls of k_decode.h in a build without nvcc:
 * each fails, saying so (the device executor then never gets this far:
 * pq_cuda_device_count is 0). */
#include "kernels/k_decode.h"

static int no_cuda(const char **why)
{
    if (why) *why = "pqstep was built without CUDA (nvcc not found at configure time)";
    return -1;
}

int pq_kcuda_stream_create(void **stream, const char **why)
{
    *stream = NULL;
    return no_cuda(why);
}

void pq_kcuda_stream_destroy(void *stream)
{
    (void)stream;
}

int pq_kcuda_alloc(void **p, size_t n, const char **why)
{
    (void)n;
    *p = NULL;
    return no_cuda(why);
}

void pq_kcuda_free(void *p)
{
    (void)p;
}

int pq_kcuda_upload(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)src, (void)n;
    return no_cuda(why);
}

int pq_kcuda_download(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)src, (void)n;
    return no_cuda(why);
}

int pq_kcuda_memset(void *stream, void *dst, int value, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)value, (void)n;
    return no_cuda(why);
}

int pq_kcuda_launch(void *stream, pq_kernel k, const pq_kargs *a, uint32_t nthreads, const char **why)
{
    (void)stream, (void)k, (void)a, (void)nthreads;
    return no_cuda(why);
}

int pq_kcuda_host_alloc(void **p, size_t n, const char **why)
{
    (void)n;
    *p = NULL;
    return no_cuda(why);
}

void pq_kcuda_host_free(void *p)
{
    (void)p;
}

int pq_kcuda_upload_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)src, (void)n;
    return no_cuda(why);
}

int pq_kcuda_download_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)src, (void)n;
    return no_cuda(why);
}

int pq_kcuda_copy_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)src, (void)n;
    return no_cuda(why);
}

int pq_kcuda_stream_sync(void *stream, const char **why)
{
    (void)stream;
    return no_cuda(why);
}

int pq_kcuda_event_create(void **event, const char **why)
{
    *event = NULL;
    return no_cuda(why);
}

void pq_kcuda_event_destroy(void *event)
{
    (void)event;
}

int pq_kcuda_event_record(void *event, void *stream, const char **why)
{
    (void)event, (void)stream;
    return no_cuda(why);
}

int pq_kcuda_stream_wait(void *stream, void *event, const char **why)
{
    (void)stream, (void)event;
    return no_cuda(why);
}

int pq_kcuda_event_sync(void *event, const char **why)
{
    (void)event;
    return no_cuda(why);
}
