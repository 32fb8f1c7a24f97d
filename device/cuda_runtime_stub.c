/* cuda_runtime_stub.c — cuda_runtime.h in a build without nvcc: no device,
 * and each call fails saying so (the GPU path never gets this far:
 * pq_cuda_device_count is 0). */
#include "device/cuda_runtime.h"

static int no_cuda(const char **why)
{
    if (why) *why = "pqstep was built without CUDA (nvcc not found at configure time)";
    return -1;
}

int pq_cuda_device_count(const char **why)
{
    if (why) *why = "pqstep was built without CUDA (nvcc not found at configure time)";
    return 0;
}

int pq_cuda_copy_to_device(const void *host, size_t n, void **dev, const char **why)
{
    (void)host;
    (void)n;
    *dev = NULL;
    return no_cuda(why);
}

int pq_cuda_current_device(void)
{
    return 0;
}

int pq_cuda_stream_create(void **stream, const char **why)
{
    *stream = NULL;
    return no_cuda(why);
}

void pq_cuda_stream_destroy(void *stream)
{
    (void)stream;
}

int pq_cuda_alloc(void **p, size_t n, const char **why)
{
    (void)n;
    *p = NULL;
    return no_cuda(why);
}

void pq_cuda_free(void *p)
{
    (void)p;
}

int pq_cuda_upload(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)src, (void)n;
    return no_cuda(why);
}

int pq_cuda_download(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)src, (void)n;
    return no_cuda(why);
}

int pq_cuda_memset(void *stream, void *dst, int value, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)value, (void)n;
    return no_cuda(why);
}

int pq_cuda_host_alloc(void **p, size_t n, const char **why)
{
    (void)n;
    *p = NULL;
    return no_cuda(why);
}

void pq_cuda_host_free(void *p)
{
    (void)p;
}

int pq_cuda_upload_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)src, (void)n;
    return no_cuda(why);
}

int pq_cuda_download_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)src, (void)n;
    return no_cuda(why);
}

int pq_cuda_copy_async(void *stream, void *dst, const void *src, size_t n, const char **why)
{
    (void)stream, (void)dst, (void)src, (void)n;
    return no_cuda(why);
}

int pq_cuda_stream_sync(void *stream, const char **why)
{
    (void)stream;
    return no_cuda(why);
}

int pq_cuda_event_create(void **event, const char **why)
{
    *event = NULL;
    return no_cuda(why);
}

void pq_cuda_event_destroy(void *event)
{
    (void)event;
}

int pq_cuda_event_record(void *event, void *stream, const char **why)
{
    (void)event, (void)stream;
    return no_cuda(why);
}

int pq_cuda_stream_wait(void *stream, void *event, const char **why)
{
    (void)stream, (void)event;
    return no_cuda(why);
}

int pq_cuda_event_sync(void *event, const char **why)
{
    (void)event;
    return no_cuda(why);
}
