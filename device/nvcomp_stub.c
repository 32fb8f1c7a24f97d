/* nvcomp_stub.c — nvcomp.h in a build without nvcc: every call
 * fails, saying so (the device executor never asks: it has no device). */
#include "device/nvcomp.h"

#include <stddef.h>

static int no_cuda(const char **why)
{
    if (why) *why = "pqstep was built without CUDA (nvcc not found at configure time)";
    return -1;
}

int pq_nvcomp_load(const char **why)
{
    return no_cuda(why);
}

unsigned pq_nvcomp_version(void)
{
    return 0;
}

int pq_nvcomp_temp_size(int32_t codec, size_t n, size_t max_out, size_t total_out, size_t *temp, const char **why)
{
    (void)codec, (void)n, (void)max_out, (void)total_out;
    *temp = 0;
    return no_cuda(why);
}

int pq_nvcomp_decompress_async(int32_t codec, const void *const *in, const size_t *in_bytes, const size_t *out_cap,
                               size_t *out_actual, size_t n, void *temp, size_t temp_bytes, void *const *out,
                               int32_t *status, void *stream, const char **why)
{
    (void)codec, (void)in, (void)in_bytes, (void)out_cap, (void)out_actual, (void)n, (void)temp, (void)temp_bytes,
        (void)out, (void)status, (void)stream;
    return no_cuda(why);
}
