/*
 * test_device_array.c — batches as Arrow C device data interface arrays
 * (device/copies.h, pq_reader_next_device_batch).
 *
 * Without a GPU the copy to a device is checked through a "device" of host
 * memory (pq_device_memory over malloc): for every corpus file the reader
 * decodes, with the string types that make variadic view buffers and
 * dictionaries, each batch's copied tree has the same shape and, buffer by
 * buffer, the same bytes as the batch, its sizes those the Arrow format
 * gives (offsets, data ends, view buffers, bitmaps); releasing it frees
 * every copy (the allocation count returns to zero; ASan checks the rest).
 * pq_reader_next_device_batch from a CPU decode hands out host batches
 * (ARROW_DEVICE_CPU, device id -1) equal to pq_reader_next_batch's; the
 * CUDA device without one fails the decode stage with the reason.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/choice.h" /* PQ_DEVICE_HOST_KERNELS */
#include "pqstep.h"
#include "device/cuda_runtime.h"
#include "device/copies.h"
#include "test_util.h"

typedef struct host_device {
    long live;   /* copies not yet released */
    long copies;
    long peeks;  /* reads of the source through peek */
} host_device;

/* The way back from a device: the source read only through peek. */
static int host_peek(void *user, void *host, const void *src, size_t n)
{
    host_device *d = user;
    d->peeks++;
    memcpy(host, src, n);
    return 0;
}

static int host_copy_in(void *user, const void *host, size_t n, void **dev, const char **why)
{
    (void)why;
    host_device *d = user;
    *dev = malloc(n);
    if (!*dev) return -1;
    memcpy(*dev, host, n);
    d->live++;
    d->copies++;
    return 0;
}

static void host_release(void *user, void *dev)
{
    host_device *d = user;
    if (dev) d->live--;
    free(dev);
}

/* Same shape, same bytes in every buffer (as sized by the format). */
static void same_tree(const struct ArrowArray *a, const struct ArrowArray *b, const struct ArrowSchema *s,
                      const char *what)
{
    ck_assert_msg(a->length == b->length && a->offset == b->offset && a->null_count == b->null_count &&
                      a->n_buffers == b->n_buffers && a->n_children == b->n_children,
                  "%s: array header differs (format %s)", what, s->format);
    for (int64_t i = 0; i < a->n_buffers; i++) {
        int64_t size = pq_arrow_buffer_size(s, a, i);
        ck_assert_msg(size >= 0, "%s: buffer %lld of '%s' not sized", what, (long long)i, s->format);
        ck_assert_msg((a->buffers[i] == NULL) == (b->buffers[i] == NULL || size == 0) || size == 0,
                      "%s: buffer %lld presence differs", what, (long long)i);
        if (size) {
            ck_assert_msg(a->buffers[i] != b->buffers[i], "%s: buffer %lld not copied", what, (long long)i);
            ck_assert_msg(memcmp(a->buffers[i], b->buffers[i], (size_t)size) == 0,
                          "%s: buffer %lld of '%s' (%lld bytes) differs", what, (long long)i, s->format,
                          (long long)size);
        }
    }
    for (int64_t c = 0; c < a->n_children; c++) same_tree(a->children[c], b->children[c], s->children[c], what);
    ck_assert_msg((a->dictionary == NULL) == (b->dictionary == NULL), "%s: dictionary presence differs", what);
    if (a->dictionary) same_tree(a->dictionary, b->dictionary, s->dictionary, what);
}

/* Every batch of `path` read with `strings`, copied through host memory. */
static long copy_file(const char *path, uint32_t strings, host_device *dev)
{
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.string_type = strings;
    pq_error err;
    pq_reader *r = pq_reader_open_path(path, &o, &err);
    if (!r) return -1;
    if (pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) != PQ_OK) {
        pq_reader_close(r);
        return -1; /* files the reader refuses are other tests' business */
    }
    pq_device_memory mem = {host_copy_in, host_release, dev, NULL};
    pq_device_memory back = {host_copy_in, host_release, dev, host_peek};
    long batches = 0;
    for (;;) {
        struct ArrowArray a;
        struct ArrowSchema s;
        ck_assert_int_eq(pq_reader_next_batch(r, 1000, &a, &s, &err), PQ_OK);
        if (!a.release) break;
        struct ArrowArray c;
        ck_assert_msg(pq_arrow_array_copy(&a, &s, &mem, &c, &err) == PQ_OK, "%s: %s", path, err.message);
        same_tree(&a, &c, &s, path);
        /* And back from the "device", sized through peek alone. */
        struct ArrowArray h;
        ck_assert_msg(pq_arrow_array_copy(&c, &s, &back, &h, &err) == PQ_OK, "%s: %s", path, err.message);
        same_tree(&a, &h, &s, path);
        h.release(&h);
        c.release(&c);
        ck_assert_ptr_null(c.release);
        a.release(&a);
        s.release(&s);
        batches++;
    }
    pq_reader_close(r);
    return batches;
}

START_TEST(copies_equal_the_batches)
{
    char **files;
    int n = pq_test_corpus_files(&files);
    if (n == 0) pq_test_skip("no corpus (PQSTEP_TEST_CORPUS)");
    host_device dev = {0};
    long batches = 0, read = 0;
    const uint32_t types[] = {PQ_STRINGS_STRING, PQ_STRINGS_VIEW, PQ_STRINGS_LARGE, PQ_STRINGS_DICTIONARY};
    for (int i = 0; i < n; i++) {
        if (strncmp(files[i], "data/", 5) != 0) continue;
        char *p = pq_test_corpus_path(files[i]);
        FILE *f = fopen(p, "rb");
        long size = 0;
        if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
        if (f) fclose(f);
        for (size_t t = 0; size < (64l << 20) && t < sizeof types / sizeof *types; t++) {
            long b = copy_file(p, types[t], &dev);
            if (b >= 0) {
                batches += b;
                read++;
            }
        }
        free(p);
    }
    pq_test_free_files(files, n);
    ck_assert_int_gt(read, 100);
    ck_assert_int_gt(batches, 300);
    ck_assert_int_eq(dev.live, 0);
    ck_assert_msg(dev.peeks > 0, "string arrays copied back without reading their offsets through peek");
    printf("device copies: %ld reads, %ld batches, %ld buffers copied and freed, %ld offsets read through peek\n",
           read, batches, dev.copies, dev.peeks);
}
END_TEST

static pq_reader *decoded_sample(uint32_t device, pq_status want)
{
    char *path = pq_test_sample_path();
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.device = device;
    pq_error err;
    pq_reader *r = pq_reader_open_path(path, &o, &err);
    free(path);
    ck_assert_msg(r, "%s", err.message);
    pq_status st = pq_reader_advance_to(r, PQ_STAGE_DECODE, &err);
    ck_assert_msg(st == want, "device %u: %s", device, err.message);
    if (st != PQ_OK) {
        ck_assert_msg(strstr(err.message, "no usable CUDA device"), "%s", err.message);
        pq_reader_close(r);
        return NULL;
    }
    return r;
}

START_TEST(cpu_device_batches)
{
    const char *why = NULL;
    int have_cuda = pq_cuda_device_count(&why) > 0;
    uint32_t devices[] = {PQ_DEVICE_CPU, PQ_DEVICE_HOST_KERNELS, PQ_DEVICE_AUTO};
    for (size_t d = 0; d < sizeof devices / sizeof *devices; d++) {
        if (devices[d] == PQ_DEVICE_AUTO && have_cuda) continue; /* batches on the GPU: gpu-check's */
        pq_reader *r = decoded_sample(devices[d], PQ_OK);
        pq_reader *ref = decoded_sample(PQ_DEVICE_CPU, PQ_OK);
        pq_error err;
        long rows = 0;
        for (;;) {
            struct ArrowDeviceArray da;
            struct ArrowSchema ds;
            struct ArrowArray a;
            ck_assert_int_eq(pq_reader_next_device_batch(r, 5000, &da, &ds, &err), PQ_OK);
            ck_assert_int_eq(pq_reader_next_batch(ref, 5000, &a, NULL, &err), PQ_OK);
            ck_assert((da.array.release == NULL) == (a.release == NULL));
            if (!a.release) break;
            ck_assert_int_eq(da.device_type, ARROW_DEVICE_CPU);
            ck_assert_int_eq(da.device_id, -1);
            ck_assert_ptr_null(da.sync_event);
            host_device dev = {0};
            pq_device_memory mem = {host_copy_in, host_release, &dev, NULL};
            struct ArrowArray c; /* a.release's buffers vs da's: compare through a copy of a */
            ck_assert_int_eq(pq_arrow_array_copy(&a, &ds, &mem, &c, &err), PQ_OK);
            same_tree(&da.array, &c, &ds, "next_device_batch");
            rows += da.array.length;
            c.release(&c);
            ck_assert_int_eq(dev.live, 0);
            da.array.release(&da.array);
            a.release(&a);
            ds.release(&ds);
        }
        ck_assert_int_eq(rows, 122000);
        pq_reader_close(r);
        pq_reader_close(ref);
    }
    if (!have_cuda) ck_assert_ptr_null(decoded_sample(PQ_DEVICE_CUDA, PQ_ERR_UNSUPPORTED));
}
END_TEST

START_TEST(bad_arguments)
{
    pq_error err;
    struct ArrowDeviceArray da;
    ck_assert_int_eq(pq_reader_next_device_batch(NULL, 0, &da, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(da.array.release);
    pq_reader *r = decoded_sample(PQ_DEVICE_CPU, PQ_OK);
    ck_assert_int_eq(pq_reader_next_device_batch(r, 0, NULL, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    pq_reader_close(r);
    /* A device value that is not a pq_device: the select stage refuses it. */
    char *path = pq_test_sample_path();
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.device = 9;
    r = pq_reader_open_path(path, &o, &err);
    free(path);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_SELECT, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "not a pq_device"), "%s", err.message);
    pq_reader_close(r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("device_array");
    TCase *tc = tcase_create("device_array");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, copies_equal_the_batches);
    tcase_add_test(tc, cpu_device_batches);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
