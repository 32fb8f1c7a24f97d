/*
 * test_device_staging.c — the device executor's transfers and batch
 * decompression (device/exec.h), with the kernels run on the host:
 * the same staging (two halves, pieces, coalescing), prefetch of the next
 * chunk, passes and batch (the host codecs in nvCOMP's place) as on a GPU.
 *
 * Oracle: the CPU executor over the same whole-file plans (every chunk of
 * every row group in one plan, so that chunks follow one another through
 * the staging), chunk for chunk: outputs buffer for buffer, statuses, and
 * messages word for word. Each file runs with the default staging, with a
 * staging of 64 bytes (every page in pieces, nothing with bytes
 * prefetched: a pass a chunk), with 4 KiB and device memory apart, and with
 * host decompression; the two small stagings with the copy stream
 * asynchronous as on a GPU (host_async: a copy done only where the CUDA
 * path waits for it, so a missing wait fails here);
 * the counters must say each did what it claims. With a CUDA device, a
 * fifth way runs on it (nvCOMP when it loads), and a line says how many
 * pages nvCOMP decompressed there (scripts/gpu-check reports it). Compressed pages changed
 * byte by byte must fail (or not) as on the CPU with the CPU's message;
 * memory limits fail clearly; no chunks and chunks of no pages work.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cuda_runtime.h"
#include "pages/cpu_exec.h"
#include "pages/decode_plan.h"
#include "device/exec.h"
#include "pages/page_walk.h"
#include "pqstep.h"
#include "test_util.h"

/* Both NULL, or both set and equal over n bytes. */
static bool same_buf(const void *a, const void *b, size_t n)
{
    if (!a || !b) return a == b;
    return n == 0 || memcmp(a, b, n) == 0;
}

static const char *diff_values(const pq_column_values *a, const pq_column_values *b)
{
    if (a->physical_type != b->physical_type || a->n_levels != b->n_levels || a->n_values != b->n_values ||
        a->width != b->width || a->data_len != b->data_len)
        return "counts";
    if (!same_buf(a->def_levels, b->def_levels, a->n_levels * sizeof(int16_t))) return "def_levels";
    if (!same_buf(a->rep_levels, b->rep_levels, a->n_levels * sizeof(int16_t))) return "rep_levels";
    if (!same_buf(a->values, b->values, a->n_values * a->width)) return "values";
    if (!same_buf(a->offsets, b->offsets, a->offsets ? (a->n_values + 1) * sizeof(int32_t) : 0)) return "offsets";
    if (!same_buf(a->data, b->data, a->data_len)) return "data";
    return NULL;
}

/* A file's chunks: bytes, page lists and leaves, kept while plans use them. */
typedef struct file_chunks {
    uint8_t *file;
    size_t len;
    pq_metadata *md;
    size_t n;
    struct {
        const pq_leaf *leaf;
        int32_t codec;
        uint64_t off, len;
        pq_page_info *pages;
        size_t npages;
    } c[4096];
} file_chunks;

/* Reads and walks every chunk of the file; false when it cannot (or it
 * is too big to run several ways quickly). */
static bool load_file(const char *path, file_chunks *f)
{
    memset(f, 0, sizeof *f);
    f->file = pq_test_read_file(path, &f->len);
    if (!f->file) return false;
    pq_error err = {0};
    size_t needed = 0;
    f->md = pq_metadata_parse_tail(f->file, f->len, NULL, &needed, &err);
    if (!f->md) return false;
    const pq_file_metadata *fm = pq_metadata_file(f->md);
    const pq_schema *schema = pq_metadata_schema(f->md);
    uint64_t unpacked = 0;
    for (uint32_t rg = 0; rg < fm->row_groups_len; rg++) {
        const pq_row_group *g = &fm->row_groups[rg];
        for (uint32_t col = 0; col < g->columns_len && col < schema->leaves_len && f->n < 4096; col++) {
            const pq_column_chunk *cc = g->columns[col];
            uint64_t off = 0, clen = 0;
            pq_page_info *pages = NULL;
            size_t n = 0;
            pq_error e = {0};
            if (pq_chunk_byte_range_for_writer(cc, fm->created_by, f->len, &off, &clen, &e) != PQ_OK ||
                pq_page_walk(f->file + off, clen, cc->meta_data.num_values, 0, &pages, &n, NULL, &e) != PQ_OK) {
                free(pages);
                continue;
            }
            for (size_t i = 0; i < n; i++)
                if (pages[i].uncompressed_size > 0) unpacked += (uint64_t)pages[i].uncompressed_size;
            f->c[f->n].leaf = &schema->leaves[col];
            f->c[f->n].codec = cc->meta_data.codec;
            f->c[f->n].off = off;
            f->c[f->n].len = clen;
            f->c[f->n].pages = pages;
            f->c[f->n].npages = n;
            f->n++;
        }
    }
    return unpacked <= ((uint64_t)64 << 20);
}

static void free_file(file_chunks *f)
{
    for (size_t i = 0; i < f->n; i++) free(f->c[i].pages);
    if (f->md) pq_metadata_release(f->md);
    free(f->file);
    memset(f, 0, sizeof *f);
}

/* One plan of every chunk the plan takes (the same ones each time). */
static void plan_file(const file_chunks *f, const uint8_t *bytes, pq_decode_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    for (size_t i = 0; i < f->n; i++) {
        pq_error e = {0};
        (void)pq_decode_plan_add_chunk(plan, f->c[i].leaf, f->c[i].codec, bytes + f->c[i].off, (size_t)f->c[i].len,
                                       f->c[i].pages, f->c[i].npages, 0, NULL, &e);
    }
}

/* Runs the plan of `bytes` (the file's, or a changed copy) the CPU way and
 * the device way with options o; every chunk must agree. Returns the
 * number of chunks that failed (both ways alike). */
static size_t compare(const file_chunks *f, const uint8_t *bytes, const char *name, pq_device_exec_options o)
{
    pq_decode_plan cplan, dplan;
    plan_file(f, bytes, &cplan);
    plan_file(f, bytes, &dplan);
    size_t n = cplan.nchunks;
    ck_assert_uint_eq(n, dplan.nchunks);
    if (n == 0) {
        pq_decode_plan_free(&cplan);
        pq_decode_plan_free(&dplan);
        return 0;
    }
    pq_column_values *cout = calloc(n, sizeof *cout), *dout = calloc(n, sizeof *dout);
    pq_status *cst = calloc(n, sizeof *cst), *dst = calloc(n, sizeof *dst);
    pq_error *cerr = calloc(n, sizeof *cerr), *derr = calloc(n, sizeof *derr);
    ck_assert(cout && dout && cst && dst && cerr && derr);
    pq_cpu_executor ex = {0};
    pq_decode_plan_execute(&ex, &cplan, cout, cst, cerr);
    pq_device_exec_run(&o, &dplan, dout, dst, derr);
    size_t failed = 0;
    for (size_t k = 0; k < n; k++) {
        /* The CPU executor's chunks all decode on the device: the corpus
         * asks for nothing the kernels leave out. */
        ck_assert_msg(dst[k] == cst[k], "%s chunk %zu: device %s \"%s\", cpu %s \"%s\"", name, k,
                      pq_status_name(dst[k]), derr[k].message, pq_status_name(cst[k]), cerr[k].message);
        if (cst[k] == PQ_OK) {
            const char *bad = diff_values(&cout[k], &dout[k]);
            ck_assert_msg(bad == NULL, "%s chunk %zu: %s differ", name, k, bad);
        } else {
            ck_assert_msg(strcmp(derr[k].message, cerr[k].message) == 0, "%s chunk %zu: device \"%s\", cpu \"%s\"",
                          name, k, derr[k].message, cerr[k].message);
            failed++;
        }
        pq_column_values_free(&cout[k]);
        pq_column_values_free(&dout[k]);
    }
    free(cout), free(dout), free(cst), free(dst), free(cerr), free(derr);
    pq_decode_plan_free(&cplan);
    pq_decode_plan_free(&dplan);
    return failed;
}

/* The ways each file runs. */
enum { W_DEFAULT, W_TINY, W_SMALL_APART, W_HOST, W_CUDA, W_WAYS };

static pq_device_exec_options way(int w, pq_device_exec_stats *stats)
{
    pq_device_exec_options o = {.stats = stats};
    if (w == W_TINY) {
        o.staging_bytes = 64;
        o.host_async = true; /* every half refilled many times a chunk */
    }
    if (w == W_SMALL_APART) {
        o.staging_bytes = 4096;
        o.host_apart = true;
        o.host_async = true;
        o.threads = 32;
    }
    if (w == W_HOST) o.host_decompress = true;
    if (w == W_CUDA) o.use_cuda = true;
    return o;
}

START_TEST(corpus_through_the_staging_equals_the_cpu_executor)
{
    char **files = NULL;
    int nfiles = pq_test_corpus_files(&files);
    if (nfiles == 0) pq_test_skip("no corpus");
    pq_device_exec_stats st[W_WAYS];
    memset(st, 0, sizeof st);
    static file_chunks f;
    /* With a device, the CUDA way too: nvCOMP's batch on the GPU. */
    int nways = pq_cuda_device_count(NULL) > 0 ? W_WAYS : W_CUDA;
    for (int i = 0; i < nfiles; i++) {
        char *path = pq_test_corpus_path(files[i]);
        if (load_file(path, &f))
            for (int w = 0; w < nways; w++) compare(&f, f.file, files[i], way(w, &st[w]));
        free_file(&f);
        free(path);
    }
    pq_test_free_files(files, nfiles);
    for (int w = 0; w < nways; w++)
        printf("way %d: %llu chunks, %llu passes, %llu prefetched; pages decompressed: %llu by the batch, %llu on "
               "the host before the upload, %llu again; %llu bytes staged in %llu copies\n",
               w, (unsigned long long)st[w].chunks, (unsigned long long)st[w].passes,
               (unsigned long long)st[w].prefetched_chunks, (unsigned long long)st[w].batch_decompressed_pages,
               (unsigned long long)st[w].host_decompressed_pages, (unsigned long long)st[w].decompress_fallbacks,
               (unsigned long long)st[w].staged_bytes, (unsigned long long)st[w].staging_copies);
    if (nways == W_WAYS) /* scripts/gpu-check reads this line */
        printf("cuda: %llu chunks, %llu passes; pages decompressed: %llu by nvCOMP, %llu on the host before the "
               "upload, %llu again on the host\n",
               (unsigned long long)st[W_CUDA].chunks, (unsigned long long)st[W_CUDA].passes,
               (unsigned long long)st[W_CUDA].device_decompressed_pages,
               (unsigned long long)st[W_CUDA].host_decompressed_pages,
               (unsigned long long)st[W_CUDA].decompress_fallbacks);
    else
        printf("cuda: not run (no CUDA device)\n");
    /* Default: compressed pages go to the batch (SNAPPY, GZIP, ZSTD,
     * LZ4_RAW; the corpus's BROTLI and Hadoop LZ4 stay on the host), and
     * chunks follow one another through the staging. */
    ck_assert_uint_gt(st[W_DEFAULT].batch_decompressed_pages, 100);
    ck_assert_uint_gt(st[W_DEFAULT].host_decompressed_pages, 0);
    ck_assert_uint_eq(st[W_DEFAULT].device_decompressed_pages, 0); /* no GPU: nvCOMP never runs here */
    ck_assert_uint_gt(st[W_DEFAULT].prefetched_chunks, 0);
    ck_assert_uint_lt(st[W_DEFAULT].passes, st[W_DEFAULT].chunks);
    /* 64 bytes: pages larger than the staging go in pieces (32 bytes a
     * copy), and no chunk fits to be prefetched: a pass a chunk. */
    for (int w = 0; w < nways; w++) ck_assert_uint_eq(st[w].passes + st[w].prefetched_chunks, st[w].chunks);
    ck_assert_uint_le(st[W_TINY].prefetched_chunks, 2); /* only chunks of no page bytes fit */
    ck_assert_uint_ge(st[W_TINY].staging_copies, st[W_TINY].staged_bytes / 32);
    ck_assert_uint_le(st[W_TINY].staged_bytes, st[W_DEFAULT].staged_bytes); /* the default also copies padding */
    ck_assert_uint_gt(st[W_SMALL_APART].staging_copies, st[W_DEFAULT].staging_copies);
    /* Host decompression: the batch is never used. */
    ck_assert_uint_eq(st[W_HOST].batch_decompressed_pages, 0);
    ck_assert_uint_ge(st[W_HOST].host_decompressed_pages,
                      st[W_DEFAULT].batch_decompressed_pages + st[W_DEFAULT].host_decompressed_pages);
}
END_TEST

/* Every compressed page of a few files changed at a few places: each
 * chunk fails or decodes as on the CPU, with its message. */
START_TEST(changed_compressed_pages_fail_as_on_the_cpu)
{
    static const char *const names[] = {
        "alltypes_plain.snappy.parquet",    "byte_stream_split.zstd.parquet", "lz4_raw_compressed.parquet",
        "concatenated_gzip_members.parquet", "datapage_v2.snappy.parquet",     "nested_lists.snappy.parquet",
    };
    static file_chunks f;
    size_t failed = 0, runs = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "data/%s", names[i]);
        char *path = pq_test_corpus_path(rel);
        bool ok = load_file(path, &f);
        free(path);
        if (!ok) {
            free_file(&f);
            continue;
        }
        uint8_t *copy = malloc(f.len);
        ck_assert_ptr_nonnull(copy);
        static const double where[] = {0.0, 0.02, 0.5, 0.97};
        for (size_t at = 0; at < sizeof where / sizeof where[0]; at++) {
            memcpy(copy, f.file, f.len);
            for (size_t k = 0; k < f.n; k++)
                for (size_t p = 0; p < f.c[k].npages; p++) {
                    const pq_page_info *pi = &f.c[k].pages[p];
                    if (pi->compressed_size <= 0) continue;
                    size_t lv = pi->type == PQ_PAGE_DATA_V2 && pi->rep_levels_byte_length >= 0 &&
                                        pi->def_levels_byte_length >= 0
                                    ? (size_t)pi->rep_levels_byte_length + (size_t)pi->def_levels_byte_length
                                    : 0;
                    if (lv >= (size_t)pi->compressed_size) continue;
                    size_t span = (size_t)pi->compressed_size - lv;
                    size_t byte = f.c[k].off + pi->data_offset + lv + (size_t)(where[at] * (double)(span - 1));
                    if (byte < f.len) copy[byte] ^= 0x5a;
                }
            for (int w = 0; w < (pq_cuda_device_count(NULL) > 0 ? W_WAYS : W_CUDA); w++) {
                failed += compare(&f, copy, names[i], way(w, NULL));
                runs++;
            }
        }
        free(copy);
        free_file(&f);
    }
    if (runs == 0) pq_test_skip("no corpus");
    printf("changed pages: %zu chunk failures, each as on the CPU\n", failed);
    ck_assert_uint_gt(failed, 0);
}
END_TEST

START_TEST(memory_limits_fail_clearly)
{
    char *path = pq_test_corpus_path("data/alltypes_plain.snappy.parquet");
    static file_chunks f;
    bool ok = load_file(path, &f);
    free(path);
    if (!ok) {
        free_file(&f);
        pq_test_skip("no corpus");
    }
    pq_decode_plan plan;
    plan_file(&f, f.file, &plan);
    size_t n = plan.nchunks;
    ck_assert_uint_gt(n, 0);
    pq_column_values *out = calloc(n, sizeof *out);
    pq_status *st = calloc(n, sizeof *st);
    pq_error *err = calloc(n, sizeof *err);
    /* 64 bytes: no chunk fits; each fails alone, naming what and the limit. */
    pq_device_exec_options o = {.memory_limit = 64, .staging_bytes = 64};
    ck_assert_int_eq(pq_device_exec_run(&o, &plan, out, st, err), PQ_ERR_MEMORY_LIMIT);
    for (size_t k = 0; k < n; k++) {
        ck_assert_int_eq(st[k], PQ_ERR_MEMORY_LIMIT);
        ck_assert_msg(strstr(err[k].message, "device executor: ") && strstr(err[k].message, "the memory limit of 64"),
                      "%s", err[k].message);
        ck_assert_ptr_null(out[k].values);
    }
    /* Enough for each chunk alone: all decode, the staging taking the next
     * chunk's bytes beside (its own bound, not the limit's). */
    o.memory_limit = 1 << 20;
    o.staging_bytes = 1 << 20;
    pq_decode_plan_free(&plan);
    plan_file(&f, f.file, &plan);
    ck_assert_int_eq(pq_device_exec_run(&o, &plan, out, st, err), PQ_OK);
    for (size_t k = 0; k < n; k++) pq_column_values_free(&out[k]);
    free(out), free(st), free(err);
    pq_decode_plan_free(&plan);
    free_file(&f);
}
END_TEST

START_TEST(no_chunks_and_no_pages)
{
    pq_decode_plan plan = {0};
    pq_device_exec_stats stats = {0};
    pq_device_exec_options o = {.stats = &stats, .staging_bytes = 64};
    ck_assert_int_eq(pq_device_exec_run(&o, &plan, NULL, NULL, NULL), PQ_OK);
    ck_assert_uint_eq(stats.chunks, 0);

    /* A required INT32 chunk of no pages, twice: empty outputs, as on the CPU. */
    pq_leaf leaf;
    memset(&leaf, 0, sizeof leaf);
    leaf.path = "x";
    leaf.physical_type = PQ_INT32;
    uint8_t none[1] = {0};
    pq_error e = {0};
    for (int i = 0; i < 2; i++)
        ck_assert_msg(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_ZSTD, none, 0, NULL, 0, 0, NULL, &e) == PQ_OK,
                      "%s", e.message);
    pq_decode_plan cplan = {0};
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pq_decode_plan_add_chunk(&cplan, &leaf, PQ_CODEC_ZSTD, none, 0, NULL, 0, 0, NULL, &e), PQ_OK);
    pq_column_values out[2], cout[2];
    pq_status st[2], cst[2];
    pq_error err[2], cerr[2];
    pq_cpu_executor ex = {0};
    pq_decode_plan_execute(&ex, &cplan, cout, cst, cerr);
    ck_assert_int_eq(pq_device_exec_run(&o, &plan, out, st, err), PQ_OK);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(st[i], cst[i]);
        ck_assert_ptr_null(diff_values(&out[i], &cout[i]));
        pq_column_values_free(&out[i]);
        pq_column_values_free(&cout[i]);
    }
    ck_assert_uint_eq(stats.chunks, 2);
    ck_assert_uint_eq(stats.staged_bytes, 0);
    pq_decode_plan_free(&plan);
    pq_decode_plan_free(&cplan);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("device_staging");
    TCase *tc = tcase_create("staging");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, no_chunks_and_no_pages);
    tcase_add_test(tc, memory_limits_fail_clearly);
    tcase_add_test(tc, changed_compressed_pages_fail_as_on_the_cpu);
    tcase_add_test(tc, corpus_through_the_staging_equals_the_cpu_executor);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
