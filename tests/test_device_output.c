/*
 * test_device_output.c — the decode stage's output kept on the device
 * (opts.device_output), checked without a GPU: with PQ_DEVICE_HOST_KERNELS
 * host memory stands for the device, so the whole path runs here: values
 * left where the device executor decoded them (outputs_on_device), Arrow
 * arrays built there by the Arrow kernels (device/arrow.h) and
 * adopted as the reader's columns (nested fields too, of one leaf or of
 * several joined into one tree), what the host built copied "to the
 * device" at the end of the stage (dictionary arrays of chunks not
 * dictionary-encoded throughout, a filter's rows of columns decoded
 * whole), and device batches handed out as slices of those arrays.
 *
 * Oracle: the same read on the CPU executor (opts.device PQ_DEVICE_CPU,
 * no device output), batch for batch, compared value by value
 * (pq_test_arrays_differ: nulls, every valid value, at any depth). Every
 * corpus file the CPU reads; the sample under every string type, decimal64
 * and a filter; pq_reader_next_batch of such a reader too. The note's
 * counts say arrays were built by the kernels (and copied); a comparison
 * of two different batches must fail, so the comparator can.
 *
 * opts.device_file (the file already in device memory; host memory here)
 * is checked the same way: the corpus and the sample read from a copy of
 * the file, with and without device_output, equal the CPU read and say in
 * the note how many chunks came from the copy; a copy with bytes changed
 * reads differently (so the copy is what is decoded), and a wrong size
 * fails the select stage.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/choice.h" /* PQ_DEVICE_HOST_KERNELS */
#include "pqstep.h"
#include "test_util.h"

typedef struct totals {
    long files, batches, rows;
    unsigned long long built, copied, resident;
    unsigned long long int96; /* INT96 chunks read with device_output: built on the host, copied */
} totals;

/* opts.device_file for the device reads of open_decoded (NULL: none). */
static const void *g_device_file;
static uint64_t g_device_file_size;

static pq_reader *open_decoded(const char *path, uint32_t device, bool device_output, uint32_t strings,
                               uint32_t decimals, const char *filter, pq_error *err)
{
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.device = device;
    if (device != PQ_DEVICE_CPU) {
        o.device_file = g_device_file;
        o.device_file_size = g_device_file_size;
    }
    o.device_output = device_output;
    o.string_type = strings;
    o.decimal_type = decimals;
    pq_expr *e = NULL;
    if (filter) {
        e = pq_expr_parse(filter, err);
        ck_assert_msg(e, "%s: %s", filter, err->message);
        o.filter = e;
    }
    pq_reader *r = pq_reader_open_path(path, &o, err);
    pq_expr_free(e); /* the reader keeps a copy */
    if (!r) return NULL;
    if (pq_reader_advance_to(r, PQ_STAGE_DECODE, err) != PQ_OK) {
        pq_reader_close(r);
        return NULL;
    }
    return r;
}

/* "... output on the device: N arrays built there, M copied there";
 * "N chunks decoded from device_file" with a device file. */
static void note_counts(const pq_reader *r, totals *t)
{
    const char *note = pq_reader_device_note(r);
    if (g_device_file) {
        const char *rc = strstr(note, "; ");
        unsigned long long n = 0;
        for (; rc && sscanf(rc, "; %llu chunks decoded from device_file", &n) != 1; rc = strstr(rc + 2, "; ")) {}
        ck_assert_msg(rc, "note without the device_file count: %s", note);
        t->resident += n;
    }
    if (!strstr(note, "output on the device: ")) return; /* device_output off */
    const char *at = strstr(note, "output on the device: ");
    ck_assert_msg(at, "note without the output: %s", note);
    unsigned long long built = 0, copied = 0;
    ck_assert_int_eq(sscanf(at, "output on the device: %llu arrays built there, %llu copied there", &built, &copied),
                     2);
    t->built += built;
    t->copied += copied;
}

/* The device-output read of `path` equals the CPU read, batch for batch
 * (device batches, or with host_batches pq_reader_next_batch's). Returns
 * false when the CPU refuses the file. */
static bool same_reads_as(const char *path, bool device_output, uint32_t strings, uint32_t decimals,
                          const char *filter, bool host_batches, totals *t)
{
    pq_error err;
    pq_reader *ref = open_decoded(path, PQ_DEVICE_CPU, false, strings, decimals, filter, &err);
    if (!ref) return false;
    pq_reader *r = open_decoded(path, PQ_DEVICE_HOST_KERNELS, device_output, strings, decimals, filter, &err);
    ck_assert_msg(r, "%s: the device-output read failed where the CPU read: %s", path, err.message);
    note_counts(r, t);
    if (device_output) { /* the host builds INT96 timestamps (range-checked), the device copies them */
        const pq_metadata *md = pq_reader_metadata(r);
        const pq_schema *sc = pq_metadata_schema(md);
        for (uint32_t l = 0; l < sc->leaves_len; l++)
            if (sc->leaves[l].physical_type == PQ_INT96) t->int96 += pq_metadata_file(md)->row_groups_len;
    }
    for (;;) {
        struct ArrowDeviceArray da;
        struct ArrowArray a, b;
        struct ArrowSchema s;
        if (host_batches || !device_output) {
            ck_assert_int_eq(pq_reader_next_batch(r, 1000, &a, NULL, &err), PQ_OK);
        } else {
            ck_assert_msg(pq_reader_next_device_batch(r, 1000, &da, NULL, &err) == PQ_OK, "%s: %s", path,
                          err.message);
            a = da.array;
            if (a.release) {
                ck_assert_int_eq(da.device_type, ARROW_DEVICE_CPU); /* host memory stood for the device */
                ck_assert_ptr_null(da.sync_event);
            }
        }
        ck_assert_int_eq(pq_reader_next_batch(ref, 1000, &b, &s, &err), PQ_OK);
        ck_assert_msg((a.release == NULL) == (b.release == NULL), "%s: the batch counts differ", path);
        if (!b.release) break;
        ck_assert_int_eq(a.n_children, b.n_children);
        char why[256];
        for (int64_t c = 0; c < b.n_children; c++) {
            const char *d = pq_test_arrays_differ(a.children[c], b.children[c], s.children[c], why, sizeof why);
            if (d) ck_abort_msg("%s (strings %u, filter %s): %s", path, strings, filter ? filter : "none", d);
        }
        t->batches++;
        t->rows += (long)b.length;
        a.release(&a);
        b.release(&b);
        s.release(&s);
    }
    pq_reader_close(r);
    pq_reader_close(ref);
    t->files++;
    return true;
}

static bool same_reads(const char *path, uint32_t strings, uint32_t decimals, const char *filter, bool host_batches,
                       totals *t)
{
    return same_reads_as(path, true, strings, decimals, filter, host_batches, t);
}

START_TEST(corpus_equals_the_cpu_read)
{
    char **files;
    int n = pq_test_corpus_files(&files);
    if (n == 0) pq_test_skip("no corpus (PQSTEP_TEST_CORPUS)");
    totals t = {0};
    for (int i = 0; i < n; i++) {
        if (strncmp(files[i], "data/", 5) != 0) continue;
        char *p = pq_test_corpus_path(files[i]);
        FILE *f = fopen(p, "rb");
        long size = 0;
        if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
        if (f) fclose(f);
        /* Strings as strings; every fourth file also as views and as dictionary arrays. */
        if (size > 0 && size <= (16L << 20)) {
            same_reads(p, PQ_STRINGS_STRING, PQ_DECIMALS_128, NULL, false, &t);
            if (i % 4 == 0) {
                same_reads(p, PQ_STRINGS_VIEW, PQ_DECIMALS_128, NULL, false, &t);
                same_reads(p, PQ_STRINGS_DICTIONARY, PQ_DECIMALS_128, NULL, false, &t);
            }
        }
        free(p);
    }
    pq_test_free_files(files, n);
    ck_assert_msg(t.files > 40 && t.built > 100, "%ld files, %llu arrays built by the kernels", t.files, t.built);
    ck_assert_msg(t.copied == t.int96, "%llu arrays built on the host and copied, %llu INT96 chunks", t.copied,
                  t.int96);
    printf("corpus: %ld files, %ld device batches (%ld rows) equal the CPU read; %llu arrays built by the Arrow "
           "kernels, %llu copied\n",
           t.files, t.batches, t.rows, t.built, t.copied);
}
END_TEST

START_TEST(sample_under_every_output_type)
{
    static const struct {
        uint32_t strings, decimals;
        const char *filter;
        bool host_batches;
    } cases[] = {
        {PQ_STRINGS_STRING, PQ_DECIMALS_128, NULL, false},
        {PQ_STRINGS_LARGE, PQ_DECIMALS_64, NULL, false},
        {PQ_STRINGS_VIEW, PQ_DECIMALS_128, NULL, false},
        {PQ_STRINGS_DICTIONARY, PQ_DECIMALS_128, NULL, false},
        {PQ_STRINGS_STRING, PQ_DECIMALS_128, "l_shipmode in ('AIR', 'RAIL') and l_quantity < 10", false},
        {PQ_STRINGS_STRING, PQ_DECIMALS_128, NULL, true},
    };
    char *path = pq_test_sample_path();
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        totals t = {0};
        ck_assert(same_reads(path, cases[k].strings, cases[k].decimals, cases[k].filter, cases[k].host_batches, &t));
        if (cases[k].filter) {
            /* The sample's columns are optional, so none is decoded for
             * the matching rows alone: each is decoded whole and the
             * filter's rows taken on the host, built there, then copied
             * (required columns: tests/py/test_device_reader.py). */
            ck_assert_msg(t.built == 0 && t.copied > 0, "filter: %llu built, %llu copied", t.built, t.copied);
        } else {
            /* Every output type, dictionary arrays included (of indices
             * where a chunk is dictionary-encoded throughout, else an entry
             * a slot), is built by the kernels. */
            ck_assert_msg(t.built == 976 && t.copied == 0, "strings %u: %llu built, %llu copied", cases[k].strings,
                          t.built, t.copied);
            ck_assert_int_eq(t.rows, 122000);
        }
    }
    free(path);
}
END_TEST

/* Corpus file `rel` read with its output kept on the device equals the CPU
 * read, with every array built there by the kernels and none copied:
 * `built` of them (0: at least one). Skips without the corpus. */
static void built_there_alone(const char *rel, unsigned long long built)
{
    char *p = pq_test_corpus_path(rel);
    FILE *f = fopen(p, "rb");
    if (!f) {
        free(p);
        pq_test_skip("no corpus (data/ of parquet-testing)");
    }
    fclose(f);
    totals t = {0};
    ck_assert(same_reads(p, PQ_STRINGS_STRING, PQ_DECIMALS_128, NULL, false, &t));
    ck_assert_msg((built ? t.built == built : t.built > 0) && t.copied == 0, "%s: %llu built, %llu copied", rel,
                  t.built, t.copied);
    ck_assert_int_gt(t.rows, 0);
    printf("%s: %llu arrays built by the kernels, none copied\n", rel, t.built);
    free(p);
}

/* Nested fields of one leaf are built where the kernels decoded them
 * (levels into validity and list offsets, k_nest.h): both list columns of
 * data/list_columns.parquet, nothing copied, equal to the CPU read. */
START_TEST(nested_fields_built_on_the_device)
{
    built_there_alone("data/list_columns.parquet", 2);
}
END_TEST

/* Nested fields of several leaves (structs of many fields, maps of keys
 * and values, lists of structs) are built where the kernels decoded them
 * too: each leaf by the Arrow kernels, the leaves joined into one tree
 * (pq_darrow_field_export), nothing copied, equal to the CPU read. */
START_TEST(fields_of_several_leaves_built_on_the_device)
{
    built_there_alone("data/nested_structs.rust.parquet", 0);
    built_there_alone("data/nested_maps.snappy.parquet", 0);
    built_there_alone("data/map_no_value.parquet", 0);
}
END_TEST

/* The comparator finds a difference: batches 0 and 1 of the sample. */
START_TEST(comparator_can_fail)
{
    char *path = pq_test_sample_path();
    pq_error err;
    pq_reader *r = open_decoded(path, PQ_DEVICE_HOST_KERNELS, true, PQ_STRINGS_STRING, PQ_DECIMALS_128, NULL, &err);
    ck_assert_msg(r, "%s", err.message);
    struct ArrowDeviceArray x, y;
    struct ArrowSchema s;
    ck_assert_int_eq(pq_reader_next_device_batch(r, 1000, &x, &s, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_next_device_batch(r, 1000, &y, NULL, &err), PQ_OK);
    char why[256];
    int differ = 0;
    for (int64_t c = 0; c < s.n_children; c++)
        differ += pq_test_arrays_differ(x.array.children[c], y.array.children[c], s.children[c], why, sizeof why) !=
                  NULL;
    ck_assert_msg(differ >= s.n_children / 2, "only %d of %lld columns differ between two batches", differ,
                  (long long)s.n_children);
    ck_assert_ptr_null(pq_test_arrays_differ(x.array.children[0], x.array.children[0], s.children[0], why,
                                             sizeof why));
    x.array.release(&x.array);
    y.array.release(&y.array);
    s.release(&s);
    pq_reader_close(r);
    free(path);
}
END_TEST

/* Every corpus file (up to 16 MiB) and the sample read from a copy of the
 * file standing for device memory, with device_output off and on. */
START_TEST(device_file_reads_equal_the_cpu_read)
{
    char **files;
    int n = pq_test_corpus_files(&files);
    if (n == 0) pq_test_skip("no corpus (PQSTEP_TEST_CORPUS)");
    totals t = {0};
    char *sample = pq_test_sample_path();
    for (int i = -1; i < n; i++) {
        if (i >= 0 && strncmp(files[i], "data/", 5) != 0) continue;
        char *p = i < 0 ? strdup(sample) : pq_test_corpus_path(files[i]);
        size_t len = 0;
        uint8_t *copy = pq_test_read_file(p, &len);
        if (copy && len <= ((size_t)16 << 20)) {
            g_device_file = copy;
            g_device_file_size = len;
            same_reads_as(p, i % 2 == 0, PQ_STRINGS_STRING, PQ_DECIMALS_128, NULL, false, &t);
            g_device_file = NULL;
        }
        free(copy);
        free(p);
    }
    pq_test_free_files(files, n);
    free(sample);
    printf("device_file: %ld files, %ld batches (%ld rows) equal the CPU read; %llu chunks decoded from the copy\n",
           t.files, t.batches, t.rows, t.resident);
    ck_assert_msg(t.files > 40 && t.resident > 100, "%ld files, %llu chunks from the copy", t.files, t.resident);
}
END_TEST

/* A copy that differs is what is decoded; a wrong size is refused. The
 * file is uncompressed (so the changed pages are not first refused by a
 * codec, whose retry on the host reads the source's bytes). */
START_TEST(device_file_is_what_is_decoded)
{
    char *path = pq_test_corpus_path("data/datapage_v1-uncompressed-checksum.parquet");
    size_t len = 0;
    uint8_t *copy = path ? pq_test_read_file(path, &len) : NULL;
    if (!copy) {
        free(path);
        pq_test_skip("no corpus file data/datapage_v1-uncompressed-checksum.parquet (PQSTEP_TEST_CORPUS)");
    }
    pq_error err;
    pq_reader *ref = open_decoded(path, PQ_DEVICE_CPU, false, PQ_STRINGS_STRING, PQ_DECIMALS_128, NULL, &err);
    ck_assert_msg(ref, "%s", err.message);
    /* a byte in every 64 of the first half changed: pages of the first
     * chunk (their headers come from the file, not the copy) */
    for (size_t i = 4; i < len / 2; i += 64) copy[i] ^= 0x5A;
    g_device_file = copy;
    g_device_file_size = len;
    pq_reader *r = open_decoded(path, PQ_DEVICE_HOST_KERNELS, false, PQ_STRINGS_STRING, PQ_DECIMALS_128, NULL, &err);
    bool differs = r == NULL; /* failed as corrupt, or read other values */
    while (r && !differs) {
        struct ArrowArray a, b;
        struct ArrowSchema s;
        pq_status sa = pq_reader_next_batch(r, 1000, &a, NULL, &err);
        ck_assert_int_eq(pq_reader_next_batch(ref, 1000, &b, &s, &err), PQ_OK);
        if (sa != PQ_OK) {
            differs = true;
            if (b.release) b.release(&b), s.release(&s);
            break;
        }
        if (!b.release) break;
        char why[256];
        for (int64_t c = 0; c < b.n_children && !differs; c++)
            differs = pq_test_arrays_differ(a.children[c], b.children[c], s.children[c], why, sizeof why) != NULL;
        a.release(&a);
        b.release(&b);
        s.release(&s);
    }
    if (r) pq_reader_close(r);
    ck_assert_msg(differs, "a changed device_file read as the file");
    /* the size must be the file's */
    g_device_file_size = len - 1;
    r = open_decoded(path, PQ_DEVICE_HOST_KERNELS, false, PQ_STRINGS_STRING, PQ_DECIMALS_128, NULL, &err);
    ck_assert_ptr_null(r);
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "device_file_size"), "%s", err.message);
    g_device_file = NULL;
    pq_reader_close(ref);
    free(copy);
    free(path);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("device_output");
    TCase *tc = tcase_create("device_output");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, corpus_equals_the_cpu_read);
    tcase_add_test(tc, sample_under_every_output_type);
    tcase_add_test(tc, nested_fields_built_on_the_device);
    tcase_add_test(tc, fields_of_several_leaves_built_on_the_device);
    tcase_add_test(tc, comparator_can_fail);
    tcase_add_test(tc, device_file_reads_equal_the_cpu_read);
    tcase_add_test(tc, device_file_is_what_is_decoded);
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
