/*
 * test_nvcomp.c — the nvCOMP loader (device/nvcomp.h) in whatever way
 * this build was configured: with nvCOMP's headers (PQ_HAVE_NVCOMP), the
 * library must open with dlopen, be nvCOMP 6 and name its statuses (on a
 * machine without a GPU it may fail to open, with a reason, where
 * libnvcomp needs a driver); without them, or without CUDA, every call
 * fails saying the build lacks it. Either way the library links and runs:
 * libnvcomp is never a link-time dependency.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "device/cuda_runtime.h"
#include "device/nvcomp.h"
#include "pqstep.h"

START_TEST(codecs_are_nvcomps)
{
    ck_assert(pq_nvcomp_codec(PQ_CODEC_SNAPPY));
    ck_assert(pq_nvcomp_codec(PQ_CODEC_GZIP));
    ck_assert(pq_nvcomp_codec(PQ_CODEC_ZSTD));
    ck_assert(pq_nvcomp_codec(PQ_CODEC_LZ4_RAW));
    ck_assert(!pq_nvcomp_codec(PQ_CODEC_UNCOMPRESSED));
    ck_assert(!pq_nvcomp_codec(PQ_CODEC_LZ4)); /* Hadoop framing: the host's */
    ck_assert(!pq_nvcomp_codec(PQ_CODEC_BROTLI));
    ck_assert(!pq_nvcomp_codec(PQ_CODEC_LZO));
    ck_assert_str_eq(pq_nvcomp_status_name(12), "nvcompErrorCannotDecompress");
    ck_assert_str_eq(pq_nvcomp_status_name(0), "nvcompSuccess");
}
END_TEST

START_TEST(loads_as_configured)
{
    const char *why = NULL;
    int r = pq_nvcomp_load(&why);
#if defined(PQ_TEST_HAVE_NVCOMP)
    if (r == 0) {
        printf("nvCOMP %u loaded\n", pq_nvcomp_version());
        ck_assert_uint_eq(pq_nvcomp_version() / 1000, 6);
        size_t temp = 1;
        const char *w2 = NULL;
        ck_assert_int_eq(pq_nvcomp_temp_size(PQ_CODEC_BROTLI, 1, 10, 10, &temp, &w2), -1);
        ck_assert_ptr_nonnull(w2);
    } else {
        printf("nvCOMP not loaded: %s\n", why);
        ck_assert_ptr_nonnull(why);
        ck_assert_int_eq(pq_cuda_device_count(NULL), 0); /* with a device it must load */
    }
#else
    ck_assert_int_eq(r, -1);
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strstr(why, "built without"), "%s", why);
    ck_assert_uint_eq(pq_nvcomp_version(), 0);
    printf("nvCOMP: %s\n", why);
#endif
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvcomp");
    TCase *tc = tcase_create("nvcomp");
    tcase_add_test(tc, codecs_are_nvcomps);
    tcase_add_test(tc, loads_as_configured);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
