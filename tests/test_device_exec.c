/*
 * test_device_exec.c — the device executor (pages/device_exec.h) with its
 * kernels run on the host, phase by phase (kernels/k_launch.h), against the
 * CPU executor (pq_decode_plan_execute).
 *
 * Oracle: the CPU executor's result on the same plan, buffer for buffer
 * (levels, values, offsets, data, the counts, which buffers are NULL) and
 * status for status, over every column chunk of every corpus file (and of
 * the generated matrix when PQSTEP_MATRIX_DIR names a directory of its
 * files: tests/fixtures/gen_matrix.py writes them with pyarrow, which the C
 * tests do not run). A chunk the kernels do not cover must be
 * PQ_ERR_UNSUPPORTED with nothing decoded, never another result. Each chunk
 * runs four ways: 256 threads a block, 7 threads with each phase's threads
 * last to first, 1 thread, and 32 threads with the device memory apart from
 * the host's (every table uploaded and downloaded, as on a GPU); the result
 * must not change. Hand-built
 * pages check the errors: a dictionary index past the dictionary, truncated
 * runs, a level above its maximum, each naming the page and the value.
 * With a CUDA device present the corpus also runs on it.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/device.h"
#include "kernels/k_launch.h"
#include "pages/column_decode.h"
#include "pages/decode_plan.h"
#include "pages/device_exec.h"
#include "pages/page_walk.h"
#include "pqstep.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------
 * Comparing results
 * ------------------------------------------------------------------------- */

/* Both NULL, or both set and equal over n bytes. */
static bool same_buf(const void *a, const void *b, size_t n)
{
    if (!a || !b) return a == b;
    return n == 0 || memcmp(a, b, n) == 0;
}

/* NULL when a and b are equal, else what differs. */
static const char *diff_values(const pq_column_values *a, const pq_column_values *b)
{
    if (a->physical_type != b->physical_type) return "physical_type";
    if (a->n_levels != b->n_levels) return "n_levels";
    if (a->n_values != b->n_values) return "n_values";
    if (a->width != b->width) return "width";
    if (a->data_len != b->data_len) return "data_len";
    if (!same_buf(a->def_levels, b->def_levels, a->n_levels * sizeof(int16_t))) return "def_levels";
    if (!same_buf(a->rep_levels, b->rep_levels, a->n_levels * sizeof(int16_t))) return "rep_levels";
    if (!same_buf(a->values, b->values, a->n_values * a->width)) return "values";
    if (!same_buf(a->offsets, b->offsets, a->offsets ? (a->n_values + 1) * sizeof(int32_t) : 0)) return "offsets";
    if (!same_buf(a->data, b->data, a->data_len)) return "data";
    if (a->views || b->views || a->dictionary || b->dictionary) return "views or dictionary";
    return NULL;
}

/* Whether a result is all zero (a failed chunk's). */
static bool zeroed(const pq_column_values *v)
{
    static const pq_column_values zero;
    return memcmp(v, &zero, sizeof zero) == 0;
}

/* ---------------------------------------------------------------------------
 * The corpus
 * ------------------------------------------------------------------------- */

#define MAX_REASONS 32

typedef struct tally {
    long chunks;       /* chunks planned and run both ways */
    long skipped;      /* no plan: the walk or the plan refused the chunk */
    long equal;        /* decoded, equal */
    long both_failed;  /* the same error status both ways */
    long unsupported;  /* left to the CPU executor */
    long mismatches;
    struct {
        char what[96];
        long n;
    } reasons[MAX_REASONS];
    int nreasons;
    pq_device_exec_stats stats;
} tally;

/* Counts an unsupported chunk by what its message names (up to the page). */
static void count_reason(tally *t, const char *message)
{
    char what[96];
    const char *s = strstr(message, "device executor: ");
    s = s ? s + strlen("device executor: ") : message;
    size_t l = strlen(s) < sizeof what - 1 ? strlen(s) : sizeof what - 1;
    memcpy(what, s, l);
    what[l] = 0;
    char *cut = strstr(what, " (page");
    if (!cut) cut = strstr(what, " are not covered");
    if (cut) *cut = 0;
    for (int i = 0; i < t->nreasons; i++)
        if (strcmp(t->reasons[i].what, what) == 0) {
            t->reasons[i].n++;
            return;
        }
    if (t->nreasons < MAX_REASONS) {
        snprintf(t->reasons[t->nreasons].what, sizeof t->reasons[0].what, "%s", what);
        t->reasons[t->nreasons++].n = 1;
    }
}

/* The ways each chunk runs on the host: threads a block, launch flags, and
 * device memory apart from the host's (the CUDA path's data movement). */
static const struct {
    unsigned threads, flags;
    bool apart;
} host_ways[] = {{256, 0, false}, {7, PQ_KLAUNCH_REVERSE, false}, {1, 0, false}, {32, 0, true}};

/* Runs one chunk the CPU way and the device way(s), and compares. */
static void check_chunk(tally *t, const char *file, uint32_t rg, uint32_t col, const pq_leaf *leaf, int32_t codec,
                        const uint8_t *bytes, size_t len, const pq_page_info *pages, size_t npages, bool cuda)
{
    pq_decode_plan cplan = {0};
    pq_error err = {0};
    if (pq_decode_plan_add_chunk(&cplan, leaf, codec, bytes, len, pages, npages, 0, NULL, &err) != PQ_OK) {
        t->skipped++;
        return;
    }
    pq_cpu_executor ex = {0};
    pq_column_values cout;
    pq_status cst;
    pq_error cerr = {0};
    pq_decode_plan_execute(&ex, &cplan, &cout, &cst, &cerr);
    t->chunks++;

    /* Chunks of over 64 MiB decompressed (data/large_string_map.brotli.parquet
     * has 2 GiB of brotli) run the first way alone: the decompression is
     * the codec's, the same every way, and slow. */
    uint64_t unpacked = 0;
    for (size_t i = 0; i < npages; i++)
        if (pages[i].uncompressed_size > 0) unpacked += (uint64_t)pages[i].uncompressed_size;
    size_t nhost = unpacked > ((uint64_t)64 << 20) ? 1 : sizeof host_ways / sizeof host_ways[0];
    size_t nways = nhost + (cuda ? 1 : 0);
    for (size_t w = 0; w < nways; w++) {
        bool on_cuda = w == nhost;
        pq_decode_plan dplan = {0};
        ck_assert_int_eq(pq_decode_plan_add_chunk(&dplan, leaf, codec, bytes, len, pages, npages, 0, NULL, &err),
                         PQ_OK);
        pq_device_exec_options o = {.use_cuda = on_cuda, .stats = w == 0 ? &t->stats : NULL};
        if (!on_cuda) {
            o.threads = host_ways[w].threads;
            o.host_flags = host_ways[w].flags;
            o.host_apart = host_ways[w].apart;
        }
        pq_column_values dout;
        pq_status dst;
        pq_error derr = {0};
        pq_device_exec_run(&o, &dplan, &dout, &dst, &derr);
        const char *bad = NULL;
        if (dst == PQ_ERR_UNSUPPORTED && strstr(derr.message, "device executor:")) {
            if (!zeroed(&dout)) bad = "an unsupported chunk has output";
            if (w == 0 && !bad) {
                t->unsupported++;
                count_reason(t, derr.message);
            }
        } else if (dst != cst) {
            bad = "status";
        } else if (cst != PQ_OK) {
            if (!zeroed(&dout)) bad = "a failed chunk has output";
            if (!strstr(derr.message, "page ") && !strstr(derr.message, "limit") && !strstr(derr.message, "bytes"))
                bad = "the message names no page";
            if (w == 0 && !bad) {
                t->both_failed++;
                printf("  both failed: %s rg %u col %u: %s\n    cpu:    %s\n    device: %s\n", file, rg, col,
                       pq_status_name(cst), cerr.message, derr.message);
            }
        } else {
            bad = diff_values(&cout, &dout);
            const pq_plan_chunk *a = &cplan.chunks[0], *b = &dplan.chunks[0];
            if (!bad && (a->n_values != b->n_values || a->string_bytes != b->string_bytes)) bad = "plan totals";
            for (size_t i = 0; !bad && i < cplan.npages; i++) {
                const pq_plan_page *p = &cplan.pages[i], *q = &dplan.pages[i];
                if (p->n_values != q->n_values || p->value_offset != q->value_offset ||
                    p->string_offset != q->string_offset || p->string_bytes != q->string_bytes)
                    bad = "plan page offsets";
            }
            if (w == 0 && !bad) t->equal++;
        }
        if (bad) {
            t->mismatches++;
            fprintf(stderr, "MISMATCH %s rg %u col %u (%s) way %zu: %s; cpu %s \"%s\"; device %s \"%s\"\n", file, rg,
                    col, leaf->path, w, bad, pq_status_name(cst), cst ? cerr.message : "",
                    pq_status_name(dst), dst ? derr.message : "");
        }
        pq_column_values_free(&dout);
        pq_decode_plan_free(&dplan);
    }
    pq_column_values_free(&cout);
    pq_decode_plan_free(&cplan);
}

/* Every column chunk of one file. */
static void check_file(tally *t, const char *path, const char *name, bool cuda)
{
    size_t len = 0;
    uint8_t *file = pq_test_read_file(path, &len);
    ck_assert_msg(file != NULL, "%s: cannot read", path);
    pq_error err = {0};
    size_t needed = 0;
    pq_metadata *md = pq_metadata_parse_tail(file, len, NULL, &needed, &err);
    if (!md) {
        free(file);
        return;
    }
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_schema *schema = pq_metadata_schema(md);
    for (uint32_t rg = 0; rg < fm->row_groups_len; rg++) {
        const pq_row_group *g = &fm->row_groups[rg];
        for (uint32_t col = 0; col < g->columns_len && col < schema->leaves_len; col++) {
            const pq_column_chunk *cc = g->columns[col];
            uint64_t off = 0, clen = 0;
            pq_page_info *pages = NULL;
            size_t n = 0;
            pq_error e = {0};
            if (pq_chunk_byte_range_for_writer(cc, fm->created_by, len, &off, &clen, &e) != PQ_OK ||
                pq_page_walk(file + off, clen, cc->meta_data.num_values, 0, &pages, &n, NULL, &e) != PQ_OK) {
                t->skipped++;
                free(pages);
                continue;
            }
            check_chunk(t, name, rg, col, &schema->leaves[col], cc->meta_data.codec, file + off, (size_t)clen,
                        pages, n, cuda);
            free(pages);
        }
    }
    pq_metadata_release(md);
    free(file);
}

static void print_tally(const char *what, const tally *t)
{
    printf("%s: %ld chunks: %ld decoded equal, %ld failed the same way, %ld unsupported, %ld mismatched "
           "(%ld not planned); %llu kernel launches\n",
           what, t->chunks, t->equal, t->both_failed, t->unsupported, t->mismatches, t->skipped,
           (unsigned long long)t->stats.launches);
    for (int i = 0; i < t->nreasons; i++) printf("  unsupported: %ld x %s\n", t->reasons[i].n, t->reasons[i].what);
    for (int r = 0; r < PQ_DX_REASONS; r++)
        if (t->stats.unsupported[r])
            printf("  by reason: %llu x %s\n", (unsigned long long)t->stats.unsupported[r],
                   pq_dx_reason_name((pq_dx_reason)r));
}

START_TEST(corpus_equals_the_cpu_executor)
{
    char **files = NULL;
    int nfiles = pq_test_corpus_files(&files);
    if (nfiles == 0) pq_test_skip("no corpus");
    bool cuda = pq_cuda_device_count(NULL) > 0;
    tally t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < nfiles; i++) {
        char *path = pq_test_corpus_path(files[i]);
        check_file(&t, path, files[i], cuda);
        free(path);
    }
    pq_test_free_files(files, nfiles);
    print_tally(cuda ? "corpus (host launches and CUDA)" : "corpus (host launches)", &t);
    ck_assert_int_eq(t.mismatches, 0);
    ck_assert_int_gt(t.equal, 0);
}
END_TEST

/* The generated matrix, when PQSTEP_MATRIX_DIR holds it. */
START_TEST(matrix_equals_the_cpu_executor)
{
    const char *dir = getenv("PQSTEP_MATRIX_DIR");
    if (!dir || !*dir) {
        printf("matrix: PQSTEP_MATRIX_DIR not set (tests/fixtures/gen_matrix.py writes it): not run\n");
        return;
    }
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "PQSTEP_MATRIX_DIR %s: cannot open", dir);
    tally t;
    memset(&t, 0, sizeof t);
    bool cuda = pq_cuda_device_count(NULL) > 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 8 || strcmp(de->d_name + l - 8, ".parquet") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        check_file(&t, path, de->d_name, cuda);
    }
    closedir(d);
    print_tally("matrix", &t);
    ck_assert_int_eq(t.mismatches, 0);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Hand-built pages
 * ------------------------------------------------------------------------- */

static pq_leaf leaf_of(int32_t type, int16_t max_def, int16_t max_rep)
{
    pq_leaf leaf;
    memset(&leaf, 0, sizeof leaf);
    leaf.path = "x";
    leaf.physical_type = type;
    leaf.max_def = max_def;
    leaf.max_rep = max_rep;
    return leaf;
}

static size_t put_i32(uint8_t *at, int32_t v)
{
    memcpy(at, &v, 4);
    return 4;
}

/* Runs one hand-built chunk both ways (1 and 3 threads, reversed); the
 * statuses must agree; returns the device's, its message in *derr and, on
 * success, its output (equal to the CPU's) in *out. */
static pq_status run_both(const pq_leaf *leaf, const uint8_t *chunk, size_t len, const pq_page_info *pages,
                          size_t npages, pq_error *derr, pq_column_values *out)
{
    pq_decode_plan cplan = {0}, dplan = {0};
    pq_error err = {0};
    ck_assert_msg(pq_decode_plan_add_chunk(&cplan, leaf, PQ_CODEC_UNCOMPRESSED, chunk, len, pages, npages, 0, NULL,
                                           &err) == PQ_OK,
                  "%s", err.message);
    pq_cpu_executor ex = {0};
    pq_column_values cout;
    pq_status cst;
    pq_error cerr = {0};
    pq_decode_plan_execute(&ex, &cplan, &cout, &cst, &cerr);
    pq_status result = PQ_OK;
    for (int w = 0; w < 2; w++) {
        ck_assert_int_eq(pq_decode_plan_add_chunk(&dplan, leaf, PQ_CODEC_UNCOMPRESSED, chunk, len, pages, npages, 0,
                                                  NULL, &err),
                         PQ_OK);
        pq_device_exec_options o = {.threads = w ? 3 : 1, .host_flags = w ? PQ_KLAUNCH_REVERSE : 0, .host_apart = w};
        pq_column_values dout;
        pq_status dst;
        pq_device_exec_run(&o, &dplan, &dout, &dst, derr);
        ck_assert_msg(dst == cst, "device %s \"%s\", cpu %s \"%s\"", pq_status_name(dst), derr->message,
                      pq_status_name(cst), cerr.message);
        if (dst == PQ_OK) {
            const char *bad = diff_values(&cout, &dout);
            ck_assert_msg(bad == NULL, "%s differs", bad);
        }
        if (w == 1 && out) *out = dout;
        else pq_column_values_free(&dout);
        pq_decode_plan_free(&dplan);
        result = dst;
    }
    pq_column_values_free(&cout);
    pq_decode_plan_free(&cplan);
    return result;
}

/* A dictionary of two INT32s and a page of 4 indices 0, 1, 3, 1 (bit width
 * 2, one bit-packed group): index 3 at value 2 is past the dictionary. The
 * same for an optional column (the gather after the offsets) and for
 * strings (the gather in the size pass). */
START_TEST(bad_dictionary_index_names_page_and_value)
{
    uint8_t chunk[64];
    size_t n = 0;
    n += put_i32(chunk + n, 100);
    n += put_i32(chunk + n, 200);
    size_t data = n;
    const uint8_t idx[] = {0x02, 0x03, 0x74, 0x00}; /* width 2; 1 group: 0,1,3,1,0,0,0,0 */
    memcpy(chunk + n, idx, sizeof idx);
    n += sizeof idx;
    pq_page_info pages[2] = {pq_test_page(0, PQ_PAGE_DICTIONARY, 8, 2, PQ_ENC_PLAIN),
                             pq_test_page(data, PQ_PAGE_DATA, (int32_t)sizeof idx, 4, PQ_ENC_RLE_DICTIONARY)};
    pq_leaf leaf = leaf_of(PQ_INT32, 0, 0);
    pq_error err = {0};
    ck_assert_int_eq(run_both(&leaf, chunk, n, pages, 2, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 1 (DATA_PAGE, RLE_DICTIONARY): dictionary index 3 at value 2 >= "
                                      "dictionary size 2"),
                  "%s", err.message);

    /* optional: definition levels 1,1,1,1 (one run), then the indices */
    uint8_t opt[64];
    size_t m = 0;
    m += put_i32(opt + m, 100);
    m += put_i32(opt + m, 200);
    size_t odata = m;
    m += put_i32(opt + m, 2);
    opt[m++] = 0x08, opt[m++] = 0x01; /* a run of four 1s */
    memcpy(opt + m, idx, sizeof idx);
    m += sizeof idx;
    pq_page_info opages[2] = {pq_test_page(0, PQ_PAGE_DICTIONARY, 8, 2, PQ_ENC_PLAIN),
                              pq_test_page(odata, PQ_PAGE_DATA, (int32_t)(m - odata), 4, PQ_ENC_RLE_DICTIONARY)};
    leaf = leaf_of(PQ_INT32, 1, 0);
    ck_assert_int_eq(run_both(&leaf, opt, m, opages, 2, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 1 (DATA_PAGE, RLE_DICTIONARY): dictionary index 3 at value 2"), "%s",
                  err.message);

    /* strings "a", "bc" */
    uint8_t str[64];
    size_t s = 0;
    s += pq_test_put_str(str + s, "a");
    s += pq_test_put_str(str + s, "bc");
    size_t sdata = s;
    memcpy(str + s, idx, sizeof idx);
    s += sizeof idx;
    pq_page_info spages[2] = {pq_test_page(0, PQ_PAGE_DICTIONARY, (int32_t)sdata, 2, PQ_ENC_PLAIN),
                              pq_test_page(sdata, PQ_PAGE_DATA, (int32_t)sizeof idx, 4, PQ_ENC_RLE_DICTIONARY)};
    leaf = leaf_of(PQ_BYTE_ARRAY, 0, 0);
    ck_assert_int_eq(run_both(&leaf, str, s, spages, 2, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 1 (DATA_PAGE, RLE_DICTIONARY): dictionary index 3 at value 2"), "%s",
                  err.message);

    /* and with a good index (3 -> 1) the strings come out: a, bc, bc, bc */
    str[sdata + 2] = 0x54; /* 0,1,1,1 */
    pq_column_values out;
    ck_assert_int_eq(run_both(&leaf, str, s, spages, 2, &err, &out), PQ_OK);
    const int32_t offs[5] = {0, 1, 3, 5, 7};
    ck_assert_mem_eq(out.offsets, offs, sizeof offs);
    ck_assert_mem_eq(out.data, "abcbcbc", 7);
    pq_column_values_free(&out);
}
END_TEST

/* Runs cut short: an RLE run of definition levels without its value byte,
 * and the same in a page of dictionary indices. */
START_TEST(truncated_runs_name_the_page)
{
    uint8_t chunk[64];
    size_t n = 0;
    n += put_i32(chunk + n, 1);
    chunk[n++] = 0x14; /* a run of ten, its value missing */
    pq_page_info pages[1] = {pq_test_page(0, PQ_PAGE_DATA, (int32_t)n, 10, PQ_ENC_PLAIN)};
    pq_leaf leaf = leaf_of(PQ_INT32, 1, 0);
    pq_error err = {0};
    ck_assert_int_eq(run_both(&leaf, chunk, n, pages, 1, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 0 (DATA_PAGE, PLAIN): definition levels: RLE: run value at byte 1 is "
                                      "truncated"),
                  "%s", err.message);

    /* levels that stop after 8 of the page's 10 values */
    n = 0;
    n += put_i32(chunk + n, 2);
    chunk[n++] = 0x03, chunk[n++] = 0xff; /* one bit-packed group of eight 1s */
    for (int v = 0; v < 10; v++) n += put_i32(chunk + n, v);
    pages[0] = pq_test_page(0, PQ_PAGE_DATA, (int32_t)n, 10, PQ_ENC_PLAIN);
    ck_assert_int_eq(run_both(&leaf, chunk, n, pages, 1, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 0 (DATA_PAGE, PLAIN): definition levels: 8 decoded, the page has 10"),
                  "%s", err.message);

    /* dictionary indices: width 2, a run of four, its value missing */
    n = 0;
    n += put_i32(chunk + n, 7);
    size_t data = n;
    chunk[n++] = 0x02, chunk[n++] = 0x08;
    pq_page_info dpages[2] = {pq_test_page(0, PQ_PAGE_DICTIONARY, 4, 1, PQ_ENC_PLAIN),
                              pq_test_page(data, PQ_PAGE_DATA, 2, 4, PQ_ENC_RLE_DICTIONARY)};
    leaf = leaf_of(PQ_INT32, 0, 0);
    ck_assert_int_eq(run_both(&leaf, chunk, n, dpages, 2, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 1 (DATA_PAGE, RLE_DICTIONARY): dictionary indices: RLE: run value at "
                                      "byte 1 is truncated"),
                  "%s", err.message);
}
END_TEST

/* Levels above their maximum (bit width 2, max_def 2: a packed 3 at slot 1),
 * and a repeated column whose first repetition level is not 0. */
START_TEST(bad_levels_name_the_slot)
{
    uint8_t chunk[64];
    size_t n = 0;
    n += put_i32(chunk + n, 2);
    chunk[n++] = 0x03, chunk[n++] = 0x0e; /* 2,3,0,0 ... */
    pq_page_info pages[1] = {pq_test_page(0, PQ_PAGE_DATA, (int32_t)n, 4, PQ_ENC_PLAIN)};
    pq_leaf leaf = leaf_of(PQ_INT32, 2, 0);
    pq_error err = {0};
    ck_assert_int_eq(run_both(&leaf, chunk, n, pages, 1, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 0 (DATA_PAGE, PLAIN): definition level 3 at slot 1 exceeds the "
                                      "maximum 2"),
                  "%s", err.message);

    /* max_rep 1: repetition levels 1,0 (a run each), definition levels 1,1 */
    n = 0;
    n += put_i32(chunk + n, 4);
    chunk[n++] = 0x02, chunk[n++] = 0x01, chunk[n++] = 0x02, chunk[n++] = 0x00;
    n += put_i32(chunk + n, 2);
    chunk[n++] = 0x04, chunk[n++] = 0x01;
    n += put_i32(chunk + n, 5);
    n += put_i32(chunk + n, 6);
    pages[0] = pq_test_page(0, PQ_PAGE_DATA, (int32_t)n, 2, PQ_ENC_PLAIN);
    pages[0].rep_level_encoding = PQ_ENC_RLE;
    leaf = leaf_of(PQ_INT32, 1, 1);
    ck_assert_int_eq(run_both(&leaf, chunk, n, pages, 1, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "the chunk's first repetition level is 1"), "%s", err.message);

    /* ... and with 0,1 it decodes: both level arrays kept */
    chunk[5] = 0x00, chunk[7] = 0x01;
    pq_column_values out;
    ck_assert_int_eq(run_both(&leaf, chunk, n, pages, 1, &err, &out), PQ_OK);
    const int16_t rep[2] = {0, 1}, def[2] = {1, 1};
    ck_assert_mem_eq(out.rep_levels, rep, sizeof rep);
    ck_assert_mem_eq(out.def_levels, def, sizeof def);
    pq_column_values_free(&out);
}
END_TEST

/* Deprecated BIT_PACKED definition levels (MSB first, no length): 1,0,1,1
 * in one byte; and 16 levels with one byte present. */
START_TEST(bit_packed_levels)
{
    uint8_t chunk[64];
    size_t n = 0;
    chunk[n++] = 0xb0;
    for (int32_t v = 10; v < 13; v++) n += put_i32(chunk + n, v);
    pq_page_info pages[1] = {pq_test_page(0, PQ_PAGE_DATA, (int32_t)n, 4, PQ_ENC_PLAIN)};
    pages[0].def_level_encoding = PQ_ENC_BIT_PACKED;
    pq_leaf leaf = leaf_of(PQ_INT32, 1, 0);
    pq_error err = {0};
    pq_column_values out;
    ck_assert_int_eq(run_both(&leaf, chunk, n, pages, 1, &err, &out), PQ_OK);
    const int16_t def[4] = {1, 0, 1, 1};
    const int32_t want[3] = {10, 11, 12};
    ck_assert_ptr_nonnull(out.def_levels);
    ck_assert_mem_eq(out.def_levels, def, sizeof def);
    ck_assert_uint_eq(out.n_values, 3);
    ck_assert_mem_eq(out.values, want, sizeof want);
    pq_column_values_free(&out);

    pages[0] = pq_test_page(0, PQ_PAGE_DATA, 1, 16, PQ_ENC_PLAIN);
    pages[0].def_level_encoding = PQ_ENC_BIT_PACKED;
    ck_assert_int_eq(run_both(&leaf, chunk, n, pages, 1, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 0 (DATA_PAGE, PLAIN): definition levels: BIT_PACKED: 16 values need 2 "
                                      "bytes, 1 present"),
                  "%s", err.message);
}
END_TEST

/* Pages the kernels do not cover leave the chunk to the CPU executor;
 * asking for CUDA without a device does too. */
START_TEST(uncovered_chunks_are_unsupported)
{
    uint8_t chunk[16] = {0};
    pq_page_info pages[1] = {pq_test_page(0, PQ_PAGE_DATA, 8, 2, PQ_ENC_DELTA_BINARY_PACKED)};
    pq_leaf leaf = leaf_of(PQ_INT32, 0, 0);
    pq_decode_plan plan = {0};
    pq_error err = {0};
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, 16, pages, 1, 0, NULL, &err),
                     PQ_OK);
    pq_device_exec_stats stats = {0};
    pq_device_exec_options o = {.stats = &stats};
    pq_column_values out;
    pq_status st;
    ck_assert_int_eq(pq_device_exec_run(&o, &plan, &out, &st, &err), PQ_ERR_UNSUPPORTED);
    ck_assert_int_eq(st, PQ_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.message, "DELTA_BINARY_PACKED values (page 0)"), "%s", err.message);
    ck_assert_uint_eq(stats.unsupported[PQ_DX_VALUE_ENCODING], 1);
    ck_assert(zeroed(&out));
    pq_decode_plan_free(&plan);

    /* CUDA asked for */
    pages[0] = pq_test_page(0, PQ_PAGE_DATA, 8, 2, PQ_ENC_PLAIN);
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, 16, pages, 1, 0, NULL, &err),
                     PQ_OK);
    o.use_cuda = true;
    pq_device_exec_run(&o, &plan, &out, &st, &err);
    if (pq_cuda_device_count(NULL) == 0) {
        ck_assert_int_eq(st, PQ_ERR_UNSUPPORTED);
        ck_assert_uint_eq(stats.unsupported[PQ_DX_DEVICE], 1);
    } else {
        ck_assert_int_eq(st, PQ_OK);
        ck_assert_uint_eq(out.n_values, 2);
        ck_assert_uint_eq(stats.cuda_launches, 1);
    }
    pq_column_values_free(&out);
    pq_decode_plan_free(&plan);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("device executor");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, bad_dictionary_index_names_page_and_value);
    tcase_add_test(tc, truncated_runs_name_the_page);
    tcase_add_test(tc, bad_levels_name_the_slot);
    tcase_add_test(tc, bit_packed_levels);
    tcase_add_test(tc, uncovered_chunks_are_unsupported);
    tcase_add_test(tc, corpus_equals_the_cpu_executor);
    tcase_add_test(tc, matrix_equals_the_cpu_executor);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
