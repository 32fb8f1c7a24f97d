/*
 * test_device_exec.c — the device executor (device/exec.h) with its
 * kernels run on the host, phase by phase (kernels/k_launch.h), against the
 * CPU executor (pq_decode_plan_execute).
 *
 * Oracle: the CPU executor's result on the same plan, buffer for buffer
 * (levels, values, offsets, data, the counts, which buffers are NULL) and
 * status for status, over every column chunk of every corpus file and of
 * the generated matrix in PQSTEP_MATRIX_DIR (ctest's gen_matrix setup test
 * writes it with tests/fixtures/gen_matrix.py and sets the variable; run
 * by hand without it, the matrix case says it did not run). A chunk the
 * kernels do not cover must be PQ_ERR_UNSUPPORTED with nothing decoded,
 * never another result. Each chunk runs five ways: 256 threads a block, 7
 * threads with each phase's threads last to first, 1 thread, 32 threads
 * with the device memory apart from the host's (every table uploaded and
 * downloaded, as on a GPU), and 64 threads with device memory apart and
 * the chunk's bytes resident there (options.resident: copied device to
 * device, host-decompressed pages staged between them); the result must
 * not change. The corpus and the matrix leave no chunk to the CPU
 * executor. Hand-built pages check the errors: a dictionary index past the
 * dictionary, truncated runs, a level above its maximum, each naming the
 * page and the value. Hand-built pages of BYTE_STREAM_SPLIT, RLE booleans,
 * DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (their
 * own encoders below: many lengths, block shapes, widths up to 64, wrapping
 * deltas, shared prefixes, FLBA) must decode to the values encoded, and
 * every byte of such a page changed (and the page cut at every length) must
 * fail or succeed as on the CPU with the CPU's message word for word.
 * With a CUDA device present the corpus also runs on it.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cuda_runtime.h"
#include "kernels/k_decode.h"
#include "kernels/k_launch.h"
#include "pages/cpu_exec.h"
#include "pages/decode_plan.h"
#include "device/exec.h"
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

/* NULL when a and b are equal, else what differs (the dictionary of
 * indices out and the buffers of string views included). */
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
    if (!same_buf(a->views, b->views, a->n_values * 16)) return "views";
    if (a->n_view_bufs != b->n_view_bufs) return "n_view_bufs";
    for (size_t i = 0; i < a->n_view_bufs; i++)
        if (a->view_buf_lens[i] != b->view_buf_lens[i] ||
            !same_buf(a->view_bufs[i], b->view_bufs[i], a->view_buf_lens[i]))
            return i ? "view buffer 1" : "view buffer 0";
    if (!a->dictionary != !b->dictionary) return "dictionary";
    if (a->dictionary && diff_values(a->dictionary, b->dictionary)) return "dictionary entries";
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
    long equal_views;  /* of which string views out (PQ_PLAN_STRING_VIEWS) */
    long equal_indices; /* of which dictionary indices out (PQ_PLAN_INDICES) */
    long equal_rows;   /* of which row selections (selection-vector decode) */
    long rows_left;    /* unsupported: row selections of chunks that fail decoded whole (by design) */
    long both_failed;  /* the same error status both ways */
    long unsupported;  /* left to the CPU executor */
    long mismatches;
    struct {
        char what[96];
        long n;
    } reasons[MAX_REASONS];
    int nreasons;
    pq_device_exec_stats stats;
    pq_device_exec_stats resident; /* the resident way's */
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

/* The ways each chunk runs on the host: threads a block, launch flags,
 * device memory apart from the host's (the CUDA path's data movement), and
 * the chunk's bytes resident in that memory (options.resident: a copy of
 * them, read instead of staging). */
static const struct {
    unsigned threads, flags;
    bool apart, resident;
} host_ways[] = {{256, 0, false, false}, {7, PQ_KLAUNCH_REVERSE, false, false}, {1, 0, false, false},
                 {32, 0, true, false}, {64, 0, true, true}};

/* A copy of the chunk's bytes where the device executor's memory is: host
 * memory for host launches, device memory on CUDA. NULL on failure. */
static uint8_t *resident_copy(const uint8_t *bytes, size_t len, bool cuda)
{
    void *p = NULL;
    if (cuda) {
        if (pq_cuda_alloc(&p, len, NULL)) return NULL;
        if (pq_cuda_upload(NULL, p, bytes, len, NULL)) {
            pq_cuda_free(p);
            return NULL;
        }
        return p;
    }
    if ((p = malloc(len ? len : 1)) && len) memcpy(p, bytes, len);
    return p;
}

static void resident_free(uint8_t *p, bool cuda)
{
    if (cuda) pq_cuda_free(p);
    else free(p);
}

/* Runs one chunk the CPU way and the device way(s), and compares; flags
 * are the plan's output flags (string views, dictionary indices). */
static void check_chunk(tally *t, const char *file, uint32_t rg, uint32_t col, const pq_leaf *leaf, int32_t codec,
                        const uint8_t *bytes, size_t len, const pq_page_info *pages, size_t npages, bool cuda,
                        unsigned flags, const pq_decode_rows *rows)
{
    pq_decode_plan cplan = {0};
    pq_error err = {0};
    if (pq_decode_plan_add_chunk(&cplan, leaf, codec, bytes, len, pages, npages, flags, rows, &err) != PQ_OK) {
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
    size_t nways = nhost + (cuda ? 2 : 0);
    for (size_t w = 0; w < nways; w++) {
        /* Other outputs than the default: the first way and device memory
         * apart (the kernels are the same; their data movement differs). */
        if ((flags || rows) && w > 0 && w < nhost && !host_ways[w].apart) continue;
        bool on_cuda = w >= nhost, resident = on_cuda ? w == nhost + 1 : host_ways[w].resident;
        pq_decode_plan dplan = {0};
        ck_assert_int_eq(pq_decode_plan_add_chunk(&dplan, leaf, codec, bytes, len, pages, npages, flags, rows, &err),
                         PQ_OK);
        pq_device_exec_options o = {.use_cuda = on_cuda, .stats = w == 0 ? &t->stats : NULL};
        uint8_t *copy = NULL;
        const uint8_t *res[1] = {NULL};
        if (resident) {
            ck_assert_msg((copy = resident_copy(bytes, len, on_cuda)) != NULL, "cannot copy %zu bytes", len);
            res[0] = copy;
            o.resident = res;
            o.stats = &t->resident;
        }
        if (!on_cuda) {
            o.threads = host_ways[w].threads;
            o.host_flags = host_ways[w].flags;
            o.host_apart = host_ways[w].apart;
            o.host_async = host_ways[w].apart; /* and its copy stream as a GPU's */
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
                if (rows && strstr(derr.message, "fails decoded whole")) t->rows_left++;
                count_reason(t, derr.message);
                printf("  left to the CPU executor: %s rg %u col %u (cpu %s): %s\n", file, rg, col,
                       pq_status_name(cst), derr.message);
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
            if (w == 0 && !bad) {
                t->equal++;
                if (flags & PQ_PLAN_STRING_VIEWS) t->equal_views++;
                if (flags & PQ_PLAN_INDICES) t->equal_indices++;
                if (rows) t->equal_rows++;
            }
        }
        if (bad) {
            t->mismatches++;
            fprintf(stderr, "MISMATCH %s rg %u col %u (%s) way %zu: %s; cpu %s \"%s\"; device %s \"%s\"\n", file, rg,
                    col, leaf->path, w, bad, pq_status_name(cst), cst ? cerr.message : "",
                    pq_status_name(dst), dst ? derr.message : "");
        }
        pq_column_values_free(&dout);
        pq_decode_plan_free(&dplan);
        if (copy) resident_free(copy, on_cuda);
    }
    pq_column_values_free(&cout);
    pq_decode_plan_free(&cplan);
}

/* Bits over n rows: none in every third band of 700 rows, else about one
 * row in five, and every row of the last band. */
static uint8_t *select_rows(uint64_t n)
{
    uint8_t *bits = calloc((size_t)(n + 7) / 8 + 1, 1);
    ck_assert_ptr_nonnull(bits);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t band = i / 700, h = (i * 0x9e3779b97f4a7c15ull) >> 59;
        bool kept = band % 3 == 1 ? false : band == (n - 1) / 700 ? true : h < 7;
        if (kept) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    return bits;
}

/* Every column chunk of one file. */
static void check_file(tally *t, const char *path, const char *name, bool cuda)
{
    size_t len = 0;
    uint8_t *file = NULL;
    pq_error err = {0};
    pq_metadata *md = pq_test_read_parsed(path, &file, &len, &err);
    if (!md) return;
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
            const pq_leaf *leaf = &schema->leaves[col];
            check_chunk(t, name, rg, col, leaf, cc->meta_data.codec, file + off, (size_t)clen, pages, n, cuda, 0, NULL);
            /* String views and dictionary indices out, where the chunk
             * can have them (not the chunks of over 64 MiB decompressed:
             * the codec's time, not the kernels'). */
            uint64_t unpacked = 0;
            for (size_t i = 0; i < n; i++)
                if (pages[i].uncompressed_size > 0) unpacked += (uint64_t)pages[i].uncompressed_size;
            if (unpacked <= ((uint64_t)64 << 20)) {
                if (leaf->physical_type == PQ_BYTE_ARRAY)
                    check_chunk(t, name, rg, col, leaf, cc->meta_data.codec, file + off, (size_t)clen, pages, n,
                                cuda, PQ_PLAN_STRING_VIEWS, NULL);
                if (pq_pages_all_dictionary(pages, n))
                    check_chunk(t, name, rg, col, leaf, cc->meta_data.codec, file + off, (size_t)clen, pages, n,
                                cuda, PQ_PLAN_INDICES, NULL);
                /* Selection-vector decode of required flat columns: a
                 * selection from row 1 on, in bands, so that some pages
                 * have no selected row and others a few. */
                uint64_t nrows = 0;
                for (size_t i = 0; i < n; i++)
                    if ((pages[i].type == PQ_PAGE_DATA || pages[i].type == PQ_PAGE_DATA_V2) && pages[i].num_values > 0)
                        nrows += (uint64_t)pages[i].num_values;
                if (pq_decode_rows_supported(leaf) && nrows > 1) {
                    uint8_t *keep = select_rows(nrows - 1);
                    pq_decode_rows rows = {keep, 1, nrows - 1};
                    check_chunk(t, name, rg, col, leaf, cc->meta_data.codec, file + off, (size_t)clen, pages, n,
                                cuda, 0, &rows);
                    if (pq_pages_all_dictionary(pages, n))
                        check_chunk(t, name, rg, col, leaf, cc->meta_data.codec, file + off, (size_t)clen, pages, n,
                                    cuda, PQ_PLAN_INDICES, &rows);
                    if (leaf->physical_type == PQ_BYTE_ARRAY)
                        check_chunk(t, name, rg, col, leaf, cc->meta_data.codec, file + off, (size_t)clen, pages, n,
                                    cuda, PQ_PLAN_STRING_VIEWS, &rows);
                    free(keep);
                }
            }
            free(pages);
        }
    }
    pq_metadata_release(md);
    free(file);
}

static void print_tally(const char *what, const tally *t)
{
    printf("%s: %ld chunk runs: %ld decoded equal (%ld as string views, %ld as dictionary indices, %ld of row "
           "selections), %ld failed the same way, %ld unsupported, %ld mismatched (%ld not planned); %llu kernel "
           "launches\n",
           what, t->chunks, t->equal, t->equal_views, t->equal_indices, t->equal_rows, t->both_failed, t->unsupported,
           t->mismatches, t->skipped, (unsigned long long)t->stats.launches);
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
    ck_assert_int_gt(t.equal_views, 0);
    ck_assert_int_gt(t.equal_indices, 0);
    ck_assert_int_gt(t.equal_rows, 0);
    /* Every value and level encoding of the corpus is covered, for every
     * output and for row selections: nothing is left to the CPU executor
     * but the row selections of chunks that fail decoded whole (corrupt
     * files: the CPU executor decodes the selected rows alone). */
    ck_assert_int_eq(t.unsupported, t.rows_left);
    /* The resident way read its copies: every chunk it ran, and bytes. */
    printf("resident way: %llu chunks, %llu bytes copied from the resident copies\n",
           (unsigned long long)t.resident.resident_chunks, (unsigned long long)t.resident.resident_bytes);
    ck_assert_uint_eq(t.resident.resident_chunks, t.resident.chunks);
    ck_assert_uint_gt(t.resident.resident_bytes, 0);
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
    ck_assert_int_eq(t.unsupported, 0); /* every encoding the matrix writes is covered */
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

/* The ways a hand-built chunk runs on the host: 1 thread; 3 threads in
 * reverse, device memory apart; 64 threads (more than most pages' values). */
static const struct {
    unsigned threads, flags;
    bool apart;
} hand_ways[] = {{1, 0, false}, {3, PQ_KLAUNCH_REVERSE, true}, {64, 0, false}};
#define NHAND (sizeof hand_ways / sizeof hand_ways[0])

/* Runs one hand-built chunk the CPU way and each hand way; the statuses
 * must agree (and with `strict` the messages too); returns the device's,
 * its message in *derr and, on success, its output (equal to the CPU's) in
 * *out. */
static pq_status run_both_ex(const pq_leaf *leaf, const uint8_t *chunk, size_t len, const pq_page_info *pages,
                             size_t npages, pq_error *derr, pq_column_values *out, bool strict, unsigned flags,
                             const pq_decode_rows *rows)
{
    pq_decode_plan cplan = {0}, dplan = {0};
    pq_error err = {0};
    ck_assert_msg(pq_decode_plan_add_chunk(&cplan, leaf, PQ_CODEC_UNCOMPRESSED, chunk, len, pages, npages, flags, rows,
                                           &err) == PQ_OK,
                  "%s", err.message);
    pq_cpu_executor ex = {0};
    pq_column_values cout;
    pq_status cst;
    pq_error cerr = {0};
    pq_decode_plan_execute(&ex, &cplan, &cout, &cst, &cerr);
    pq_status result = PQ_OK;
    for (size_t w = 0; w < NHAND; w++) {
        ck_assert_int_eq(pq_decode_plan_add_chunk(&dplan, leaf, PQ_CODEC_UNCOMPRESSED, chunk, len, pages, npages,
                                                  flags, rows, &err),
                         PQ_OK);
        pq_device_exec_options o = {.threads = hand_ways[w].threads, .host_flags = hand_ways[w].flags,
                                    .host_apart = hand_ways[w].apart, .host_async = hand_ways[w].apart};
        pq_column_values dout;
        pq_status dst;
        pq_device_exec_run(&o, &dplan, &dout, &dst, derr);
        ck_assert_msg(dst == cst, "device %s \"%s\", cpu %s \"%s\"", pq_status_name(dst), derr->message,
                      pq_status_name(cst), cerr.message);
        if (dst == PQ_OK) {
            const char *bad = diff_values(&cout, &dout);
            ck_assert_msg(bad == NULL, "%s differs (%zu threads)", bad, (size_t)hand_ways[w].threads);
            for (size_t i = 0; i < cplan.npages; i++) {
                const pq_plan_page *p = &cplan.pages[i], *q = &dplan.pages[i];
                ck_assert_msg(p->n_values == q->n_values && p->value_offset == q->value_offset &&
                                  p->string_bytes == q->string_bytes && p->string_offset == q->string_offset,
                              "plan page %zu differs", i);
            }
        } else {
            ck_assert_msg(!strict || strcmp(derr->message, cerr.message) == 0, "device \"%s\", cpu \"%s\"",
                          derr->message, cerr.message);
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

static pq_status run_both(const pq_leaf *leaf, const uint8_t *chunk, size_t len, const pq_page_info *pages,
                          size_t npages, pq_error *derr, pq_column_values *out)
{
    return run_both_ex(leaf, chunk, len, pages, npages, derr, out, false, 0, NULL);
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

/* ---------------------------------------------------------------------------
 * The other value encodings: encoders for hand-built pages
 * ------------------------------------------------------------------------- */

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
} wbuf;

static void put_byte(wbuf *b, uint8_t v)
{
    ck_assert_uint_lt(b->n, b->cap);
    b->p[b->n++] = v;
}

static void put_bytes(wbuf *b, const void *v, size_t n)
{
    ck_assert_uint_le(b->n + n, b->cap);
    if (n) memcpy(b->p + b->n, v, n);
    b->n += n;
}

static void put_uleb(wbuf *b, uint64_t v)
{
    do {
        uint8_t x = (uint8_t)(v & 0x7f);
        v >>= 7;
        put_byte(b, (uint8_t)(x | (v ? 0x80 : 0)));
    } while (v);
}

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (v < 0 ? ~(uint64_t)0 : 0);
}

static int bits_needed(uint64_t v)
{
    int b = 0;
    while (b < 64 && (v >> b) != 0) b++;
    return b;
}

/* n values (a multiple of 8) of bw bits, LSB first. */
static void put_bits(wbuf *b, const uint64_t *v, size_t n, int bw)
{
    size_t bytes = n * (size_t)bw / 8;
    ck_assert_uint_le(b->n + bytes, b->cap);
    uint8_t *p = b->p + b->n;
    memset(p, 0, bytes);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < bw; k++)
            if ((v[i] >> k) & 1) {
                size_t bit = i * (size_t)bw + (size_t)k;
                p[bit >> 3] |= (uint8_t)(1u << (bit & 7));
            }
    b->n += bytes;
}

/* How put_dbp lays a stream out. */
typedef struct dbp_shape {
    uint32_t block, minis; /* block size (at most 1024), miniblocks a block */
    bool bits32;           /* deltas modulo 2^32, as int32 writers compute them (else 2^64) */
    int min_width;         /* every used miniblock at least this wide */
    uint8_t unused_width;  /* the width byte of miniblocks past the last value (readers ignore it) */
} dbp_shape;

static const dbp_shape plain_shape = {128, 4, false, 0, 0};

/* DELTA_BINARY_PACKED of v[0, n). */
static void put_dbp(wbuf *b, const int64_t *v, size_t n, dbp_shape sh)
{
    uint32_t per = sh.block / sh.minis;
    put_uleb(b, sh.block);
    put_uleb(b, sh.minis);
    put_uleb(b, n);
    put_uleb(b, zigzag(n ? v[0] : 0));
    static int64_t d[1024];
    static uint64_t rel[1024];
    ck_assert_uint_le(sh.block, 1024);
    for (size_t i = 1; i < n; i += sh.block) {
        size_t cnt = n - i < sh.block ? n - i : sh.block;
        int64_t mn = INT64_MAX;
        for (size_t j = 0; j < cnt; j++) {
            uint64_t diff = (uint64_t)v[i + j] - (uint64_t)v[i + j - 1];
            d[j] = sh.bits32 ? (int64_t)(int32_t)(uint32_t)diff : (int64_t)diff;
            if (d[j] < mn) mn = d[j];
        }
        put_uleb(b, zigzag(mn));
        memset(rel, 0, sizeof rel);
        for (size_t j = 0; j < cnt; j++) {
            uint64_t r = (uint64_t)d[j] - (uint64_t)mn;
            rel[j] = sh.bits32 ? (uint32_t)r : r;
        }
        int widths[1024];
        for (uint32_t m = 0; m < sh.minis; m++) {
            uint64_t mx = 0;
            for (uint32_t j = m * per; j < (m + 1) * per && j < cnt; j++)
                if (rel[j] > mx) mx = rel[j];
            int w = bits_needed(mx) > sh.min_width ? bits_needed(mx) : sh.min_width;
            widths[m] = m * per < cnt ? w : sh.unused_width;
            put_byte(b, (uint8_t)widths[m]);
        }
        for (uint32_t m = 0; m < sh.minis && m * per < cnt; m++) put_bits(b, rel + m * per, per, widths[m]);
    }
}

/* DELTA_LENGTH_BYTE_ARRAY of n strings. */
static void put_dlba(wbuf *b, char *const *v, size_t n, dbp_shape sh)
{
    int64_t *len = calloc(n ? n : 1, sizeof *len);
    ck_assert_ptr_nonnull(len);
    for (size_t i = 0; i < n; i++) len[i] = (int64_t)strlen(v[i]);
    put_dbp(b, len, n, sh);
    for (size_t i = 0; i < n; i++) put_bytes(b, v[i], strlen(v[i]));
    free(len);
}

/* DELTA_BYTE_ARRAY of n strings: each prefix as long as it is shared
 * with the string before. */
static void put_dba(wbuf *b, char *const *v, size_t n, dbp_shape sh)
{
    int64_t *pre = calloc(n ? n : 1, sizeof *pre);
    char **suf = calloc(n ? n : 1, sizeof *suf);
    ck_assert(pre && suf);
    for (size_t i = 0; i < n; i++) {
        size_t p = 0;
        while (i && v[i][p] && v[i][p] == v[i - 1][p]) p++;
        pre[i] = (int64_t)p;
        suf[i] = v[i] + p;
    }
    put_dbp(b, pre, n, sh);
    put_dlba(b, suf, n, sh);
    free(pre);
    free(suf);
}

/* A chunk of hand-built DATA_PAGEs. */
typedef struct hand_chunk {
    uint8_t buf[1 << 17];
    size_t n;
    pq_page_info pages[8];
    size_t np;
} hand_chunk;

static hand_chunk *hand_new(void)
{
    hand_chunk *c = calloc(1, sizeof *c);
    ck_assert_ptr_nonnull(c);
    return c;
}

/* Appends a DATA_PAGE of nslots slots: definition levels (defs, 0/1 each,
 * when not NULL: one bit-packed run of width 1 after the 4-byte length),
 * then the values section. */
static void add_page(hand_chunk *c, const uint8_t *defs, size_t nslots, const uint8_t *vals, size_t vlen,
                     int32_t enc)
{
    size_t at = c->n;
    wbuf b = {c->buf + at, 0, sizeof c->buf - at};
    if (defs) {
        size_t groups = (nslots + 7) / 8;
        uint8_t len[4] = {0};
        put_bytes(&b, len, 4);
        put_uleb(&b, (uint64_t)groups << 1 | 1);
        for (size_t g = 0; g < groups; g++) {
            uint8_t x = 0;
            for (size_t k = 0; k < 8 && 8 * g + k < nslots; k++) x |= (uint8_t)(defs[8 * g + k] << k);
            put_byte(&b, x);
        }
        uint32_t l = (uint32_t)(b.n - 4);
        memcpy(b.p, &l, 4);
    }
    put_bytes(&b, vals, vlen);
    ck_assert_uint_lt(c->np, 8);
    c->pages[c->np++] = pq_test_page(at, PQ_PAGE_DATA, (int32_t)b.n, (int32_t)nslots, enc);
    c->n += b.n;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Runs a chunk with strict messages; on success returns its output. */
static pq_status run_hand(const pq_leaf *leaf, const hand_chunk *c, pq_error *err, pq_column_values *out)
{
    return run_both_ex(leaf, c->buf, c->n, c->pages, c->np, err, out, true, 0, NULL);
}

static pq_leaf flba_leaf(int32_t width, int16_t max_def)
{
    pq_leaf leaf = leaf_of(PQ_FIXED_LEN_BYTE_ARRAY, max_def, 0);
    leaf.type_length = width;
    return leaf;
}

/* Every byte of a one-page chunk's page flipped (a few ways) and the page
 * cut at every length: the device's status and message must be the CPU's,
 * word for word. `from` is the first byte of the page to change (after
 * its levels). Returns the runs that failed. */
static long mutate_page(const pq_leaf *leaf, hand_chunk *c, size_t from)
{
    static const uint8_t masks[] = {0x01, 0x02, 0x10, 0x80, 0xff};
    long failed = 0;
    pq_error err = {0};
    pq_page_info *pi = &c->pages[0];
    size_t at = (size_t)pi->data_offset, size = (size_t)pi->compressed_size;
    for (size_t p = from; p < size; p++)
        for (size_t m = 0; m < sizeof masks; m++) {
            c->buf[at + p] ^= masks[m];
            failed += run_hand(leaf, c, &err, NULL) != PQ_OK;
            c->buf[at + p] ^= masks[m];
        }
    for (size_t l = from; l < size; l++) {
        pi->compressed_size = pi->uncompressed_size = (int32_t)l;
        failed += run_hand(leaf, c, &err, NULL) != PQ_OK;
    }
    pi->compressed_size = pi->uncompressed_size = (int32_t)size;
    return failed;
}

/* Random strings of up to maxlen letters from a small alphabet, sorted
 * when `sorted` (shared prefixes for DELTA_BYTE_ARRAY), exactly maxlen
 * long when `fixed`. */
static char **random_strings(size_t n, size_t maxlen, bool sorted, bool fixed)
{
    char **v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        size_t l = fixed ? maxlen : (size_t)(rnd() % (maxlen + 1));
        v[i] = malloc(l + 1);
        for (size_t k = 0; k < l; k++) v[i][k] = (char)('a' + rnd() % 3);
        v[i][l] = 0;
    }
    for (size_t i = 1; sorted && i < n; i++) /* insertion sort */
        for (size_t k = i; k > 0 && strcmp(v[k - 1], v[k]) > 0; k--) {
            char *x = v[k];
            v[k] = v[k - 1];
            v[k - 1] = x;
        }
    return v;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* The byte-array output holds the n strings v. */
static void check_strings(const pq_column_values *out, char *const *v, size_t n)
{
    ck_assert_uint_eq(out->n_values, n);
    ck_assert_int_eq(out->offsets[0], 0);
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(v[i]);
        ck_assert_int_eq(out->offsets[i + 1] - out->offsets[i], (int32_t)l);
        ck_assert_msg(memcmp(out->data + out->offsets[i], v[i], l) == 0, "string %zu", i);
    }
}

/* String views of a row selection over a PLAIN, a DELTA_LENGTH_BYTE_ARRAY
 * and a DELTA_BYTE_ARRAY page: the PLAIN page's selected strings are copied
 * out, the others keep their whole bytes (moved to their place in buffer
 * 0): the device's buffers equal the CPU executor's byte for byte
 * (run_both_ex), and the views name the selected strings. */
START_TEST(view_selections_copy_and_move_bytes)
{
    static uint8_t sec[1 << 14];
    for (int round = 0; round < 4; round++) {
        size_t per = 40;
        char **v = random_strings(3 * per, 30, true, false);
        hand_chunk *c = hand_new();
        wbuf b = {sec, 0, sizeof sec};
        for (size_t i = 0; i < per; i++) b.n += pq_test_put_str(sec + b.n, v[i]);
        add_page(c, NULL, per, sec, b.n, PQ_ENC_PLAIN);
        b.n = 0;
        put_dlba(&b, v + per, per, plain_shape);
        add_page(c, NULL, per, sec, b.n, PQ_ENC_DELTA_LENGTH_BYTE_ARRAY);
        b.n = 0;
        put_dba(&b, v + 2 * per, per, plain_shape);
        add_page(c, NULL, per, sec, b.n, PQ_ENC_DELTA_BYTE_ARRAY);
        uint8_t keep[15] = {0};
        size_t want[120], nwant = 0;
        for (size_t r = 0; r < 3 * per; r++)
            if (rnd() % (round + 2) == 0) {
                keep[r / 8] |= (uint8_t)(1u << (r % 8));
                want[nwant++] = r;
            }
        pq_decode_rows rows = {keep, 0, 3 * per};
        pq_leaf leaf = leaf_of(PQ_BYTE_ARRAY, 0, 0);
        pq_error err = {0};
        pq_column_values out;
        ck_assert_msg(run_both_ex(&leaf, c->buf, c->n, c->pages, c->np, &err, &out, true, PQ_PLAN_STRING_VIEWS,
                                  &rows) == PQ_OK,
                      "%s", err.message);
        ck_assert_uint_eq(out.n_values, nwant);
        size_t plain_bytes = 0, whole_bytes = 0;
        for (size_t k = 0; k < nwant; k++)
            if (want[k] < per) plain_bytes += strlen(v[want[k]]);
        for (size_t i = per; i < 3 * per; i++) whole_bytes += strlen(v[i]);
        ck_assert_uint_eq(out.view_buf_lens[0], plain_bytes + whole_bytes);
        for (size_t k = 0; k < nwant; k++) {
            const uint8_t *w = out.views + 16 * k;
            uint32_t len, off;
            memcpy(&len, w, 4);
            const char *str = v[want[k]];
            if (len != strlen(str)) ck_abort_msg("round %d, value %zu: length %u, not %zu", round, k, len, strlen(str));
            memcpy(&off, w + 12, 4);
            const uint8_t *at = len <= 12 ? w + 4 : out.view_bufs[0] + off;
            if (memcmp(at, str, len) != 0) ck_abort_msg("round %d, value %zu: wrong bytes", round, k);
        }
        pq_column_values_free(&out);
        free(c);
        free_strings(v, 3 * per);
    }
}
END_TEST

/* ---------------------------------------------------------------------------
 * The other value encodings: tests
 * ------------------------------------------------------------------------- */

/* BYTE_STREAM_SPLIT of every type it applies to, required and optional
 * (two pages), and pages whose size is not the values'. */
START_TEST(byte_stream_split_pages)
{
    static const struct {
        int32_t type, width;
    } types[] = {{PQ_FLOAT, 4}, {PQ_DOUBLE, 8}, {PQ_INT32, 4}, {PQ_INT64, 8}, {PQ_FIXED_LEN_BYTE_ARRAY, 3}};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        size_t w = (size_t)types[t].width;
        for (int optional = 0; optional < 2; optional++) {
            pq_leaf leaf = types[t].type == PQ_FIXED_LEN_BYTE_ARRAY ? flba_leaf(3, (int16_t)optional)
                                                                    : leaf_of(types[t].type, (int16_t)optional, 0);
            hand_chunk *c = hand_new();
            uint8_t want[2 * 60 * 8], vals[60 * 8];
            size_t nwant = 0;
            for (int page = 0; page < 2; page++) {
                size_t nslots = page ? 23 : 37, n = 0;
                uint8_t defs[64];
                for (size_t i = 0; i < nslots; i++) {
                    defs[i] = !optional || i % 3 != 1;
                    n += defs[i];
                }
                for (size_t i = 0; i < n; i++)
                    for (size_t j = 0; j < w; j++) {
                        uint8_t x = (uint8_t)rnd();
                        want[(nwant + i) * w + j] = x;
                        vals[j * n + i] = x;
                    }
                nwant += n;
                add_page(c, optional ? defs : NULL, nslots, vals, n * w, PQ_ENC_BYTE_STREAM_SPLIT);
            }
            pq_error err = {0};
            pq_column_values out;
            ck_assert_int_eq(run_hand(&leaf, c, &err, &out), PQ_OK);
            ck_assert_uint_eq(out.n_values, nwant);
            ck_assert_mem_eq(out.values, want, nwant * w);
            pq_column_values_free(&out);
            /* one byte short, and one value too many */
            c->np = 1;
            c->pages[0].compressed_size = c->pages[0].uncompressed_size -= 1;
            ck_assert_int_eq(run_hand(&leaf, c, &err, NULL), PQ_ERR_CORRUPT_DATA);
            ck_assert_msg(strstr(err.message, "BYTE_STREAM_SPLIT: "), "%s", err.message);
            c->pages[0].compressed_size = c->pages[0].uncompressed_size += 1 + (int32_t)w;
            ck_assert_int_eq(run_hand(&leaf, c, &err, NULL), PQ_ERR_CORRUPT_DATA);
            free(c);
        }
    }
    /* the message */
    hand_chunk *c = hand_new();
    uint8_t vals[16] = {0};
    add_page(c, NULL, 3, vals, 11, PQ_ENC_BYTE_STREAM_SPLIT);
    pq_leaf leaf = leaf_of(PQ_FLOAT, 0, 0);
    pq_error err = {0};
    ck_assert_int_eq(run_hand(&leaf, c, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 0 (DATA_PAGE, BYTE_STREAM_SPLIT): BYTE_STREAM_SPLIT: 11 bytes for 3 "
                                      "values of 4 bytes"),
                  "%s", err.message);
    free(c);
}
END_TEST

/* RLE booleans: a 4-byte length, runs of width 1 (RLE and bit-packed);
 * required and optional; the CPU's errors, in its order: a bad value
 * (an RLE run of 2) before a later run failure only when they fall in
 * different 1024-value batches. */
START_TEST(rle_boolean_pages)
{
    uint8_t sec[64];
    size_t n = 4;
    sec[n++] = 20, sec[n++] = 1;          /* ten 1s */
    sec[n++] = 5, sec[n++] = 0xa5, sec[n++] = 0x3c; /* two groups: 1010 0101, 0011 1100 LSB first */
    sec[n++] = 10, sec[n++] = 0;          /* five 0s */
    uint32_t l = (uint32_t)(n - 4);
    memcpy(sec, &l, 4);
    uint8_t want[31];
    for (int i = 0; i < 10; i++) want[i] = 1;
    for (int i = 0; i < 16; i++) want[10 + i] = (uint8_t)(((i < 8 ? 0xa5 : 0x3c) >> (i % 8)) & 1);
    for (int i = 0; i < 5; i++) want[26 + i] = 0;
    pq_error err = {0};
    pq_column_values out;
    pq_leaf leaf = leaf_of(PQ_BOOLEAN, 0, 0);
    hand_chunk *c = hand_new();
    add_page(c, NULL, 31, sec, n, PQ_ENC_RLE);
    add_page(c, NULL, 31, sec, n, PQ_ENC_RLE);
    ck_assert_int_eq(run_hand(&leaf, c, &err, &out), PQ_OK);
    ck_assert_uint_eq(out.n_values, 62);
    ck_assert_mem_eq(out.values, want, 31);
    ck_assert_mem_eq(out.values + 31, want, 31);
    pq_column_values_free(&out);
    ck_assert_int_gt(mutate_page(&leaf, c, 0), 0);

    /* optional: 40 slots, 31 values */
    uint8_t defs[40];
    for (int i = 0; i < 40; i++) defs[i] = i % 4 != 3 || i >= 36;
    free(c);
    c = hand_new();
    add_page(c, defs, 40, sec, n, PQ_ENC_RLE);
    leaf = leaf_of(PQ_BOOLEAN, 1, 0);
    ck_assert_int_eq(run_hand(&leaf, c, &err, &out), PQ_OK);
    ck_assert_uint_eq(out.n_values, 31);
    ck_assert_mem_eq(out.values, want, 31);
    pq_column_values_free(&out);
    ck_assert_int_gt(mutate_page(&leaf, c, 4 + 1 + 5), 0); /* the values only */

    /* the messages */
    leaf = leaf_of(PQ_BOOLEAN, 0, 0);
    static const struct {
        uint8_t bytes[16];
        size_t len, n;
        const char *want;
    } bad[] = {
        {{2, 0, 0}, 3, 4, "RLE: 3 bytes, too short for the 4-byte length"},
        {{100, 0, 0, 0, 6, 1}, 6, 3, "RLE: length 100 exceeds the 2 bytes left"},
        {{2, 0, 0, 0, 6, 2}, 6, 3, "RLE boolean 2 at value 0"},
        {{4, 0, 0, 0, 6, 1, 4, 1}, 8, 6, "RLE booleans: 5 decoded, the page has 6 non-null values"},
        {{3, 0, 0, 0, 6, 1, 0x80}, 7, 6, "RLE: truncated or overlong run header at byte 2"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        free(c);
        c = hand_new();
        add_page(c, NULL, bad[k].n, bad[k].bytes, bad[k].len, PQ_ENC_RLE);
        ck_assert_int_eq(run_hand(&leaf, c, &err, NULL), PQ_ERR_CORRUPT_DATA);
        ck_assert_msg(strstr(err.message, bad[k].want), "%zu: %s", k, err.message);
    }
    /* a bad value in the first batch, the runs broken in the second: the
     * value; both in the second batch: the runs */
    for (int same = 0; same < 2; same++) {
        wbuf b = {sec, 4, sizeof sec};
        put_uleb(&b, (same ? 1030u : 5u) << 1);
        put_byte(&b, 0);
        put_uleb(&b, 1u << 1);
        put_byte(&b, 7);
        put_uleb(&b, (same ? 100u : 2000u) << 1); /* the runs then stop at 1131, or at 2006 */
        put_byte(&b, 1);
        put_byte(&b, 0x80); /* a header cut short */
        l = (uint32_t)(b.n - 4);
        memcpy(sec, &l, 4);
        free(c);
        c = hand_new();
        add_page(c, NULL, 3000, sec, b.n, PQ_ENC_RLE);
        ck_assert_int_eq(run_hand(&leaf, c, &err, NULL), PQ_ERR_CORRUPT_DATA);
        if (same) ck_assert_msg(strstr(err.message, "RLE: truncated or overlong run header"), "%s", err.message);
        else ck_assert_msg(strstr(err.message, "RLE boolean 7 at value 5"), "%s", err.message);
    }
    free(c);
}
END_TEST

/* Values for DELTA_BINARY_PACKED: `kind` 0 random 64 bits, 1 small steps,
 * 2 increasing, 3 constant, 4 the extremes in turn; INT32 range when i32. */
static void delta_values(int64_t *v, size_t n, int kind, bool i32)
{
    int64_t x = (int64_t)(rnd() % 1000);
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case 0: x = (int64_t)rnd(); break;
        case 1: x += (int64_t)(rnd() % 21) - 10; break;
        case 2: x += (int64_t)(rnd() % 100); break;
        case 3: break;
        default: x = i % 2 ? (i32 ? INT32_MAX : INT64_MAX) : (i32 ? INT32_MIN : INT64_MIN); break;
        }
        v[i] = i32 ? (int64_t)(int32_t)(uint32_t)(uint64_t)x : x;
    }
}

/* DELTA_BINARY_PACKED INT32 and INT64 of many lengths, block shapes and
 * value patterns (deltas wrapping, widths up to 64, 33 for INT32, unused
 * miniblocks with nonsense widths); required, and optional over pages. */
START_TEST(delta_binary_packed_pages)
{
    static const size_t sizes[] = {1, 2, 31, 32, 33, 127, 128, 129, 200, 1000, 3000};
    static const dbp_shape shapes[] = {{128, 4, false, 0, 0},   {256, 8, false, 0, 200},
                                       {128, 1, false, 0, 0},   {1024, 32, false, 0, 99},
                                       {128, 4, false, 64, 0},  {128, 2, true, 0, 65}};
    static int64_t v[3000];
    static uint8_t sec[40000];
    long runs = 0;
    for (int i32 = 0; i32 < 2; i32++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (size_t h = 0; h < sizeof shapes / sizeof shapes[0]; h++)
                for (int kind = 0; kind < 5; kind++) {
                    size_t n = sizes[z];
                    if (n >= 1000 && (h % 2 || kind % 2)) continue; /* the long pages a few ways */
                    dbp_shape sh = shapes[h];
                    if (!i32) sh.bits32 = false;
                    delta_values(v, n, kind, i32);
                    wbuf b = {sec, 0, sizeof sec};
                    put_dbp(&b, v, n, sh);
                    hand_chunk *c = hand_new();
                    add_page(c, NULL, n, sec, b.n, PQ_ENC_DELTA_BINARY_PACKED);
                    pq_leaf leaf = leaf_of(i32 ? PQ_INT32 : PQ_INT64, 0, 0);
                    pq_error err = {0};
                    pq_column_values out;
                    ck_assert_msg(run_hand(&leaf, c, &err, &out) == PQ_OK, "%s", err.message);
                    ck_assert_uint_eq(out.n_values, n);
                    for (size_t i = 0; i < n; i++) {
                        int64_t got;
                        if (i32) {
                            int32_t g;
                            memcpy(&g, out.values + 4 * i, 4);
                            got = g;
                        } else {
                            memcpy(&got, out.values + 8 * i, 8);
                        }
                        ck_assert_msg(got == v[i], "value %zu of %zu (shape %zu, kind %d, int32 %d)", i, n, h, kind,
                                      i32);
                    }
                    pq_column_values_free(&out);
                    free(c);
                    runs++;
                }
    ck_assert_int_gt(runs, 200);

    /* optional, three pages, nulls here and there */
    for (int i32 = 0; i32 < 2; i32++) {
        hand_chunk *c = hand_new();
        size_t total = 0;
        static int64_t all[3000];
        for (int page = 0; page < 3; page++) {
            size_t nslots = page == 1 ? 700 : 150, n = 0;
            uint8_t defs[700];
            for (size_t i = 0; i < nslots; i++) n += defs[i] = (rnd() % 5) != 0;
            delta_values(v, n, page, i32);
            memcpy(all + total, v, n * sizeof *v);
            total += n;
            wbuf b = {sec, 0, sizeof sec};
            put_dbp(&b, v, n, plain_shape);
            add_page(c, defs, nslots, sec, b.n, PQ_ENC_DELTA_BINARY_PACKED);
        }
        pq_leaf leaf = leaf_of(i32 ? PQ_INT32 : PQ_INT64, 1, 0);
        pq_error err = {0};
        pq_column_values out;
        ck_assert_msg(run_hand(&leaf, c, &err, &out) == PQ_OK, "%s", err.message);
        ck_assert_uint_eq(out.n_values, total);
        for (size_t i = 0; i < total; i++) {
            int64_t got = 0;
            memcpy(&got, out.values + (i32 ? 4 : 8) * i, i32 ? 4 : 8);
            if (i32) got = (int32_t)(uint32_t)(uint64_t)got;
            ck_assert_msg(got == all[i], "value %zu", i);
        }
        pq_column_values_free(&out);
        free(c);
    }

    /* the messages */
    delta_values(v, 37, 1, false);
    static const struct {
        uint64_t header[3]; /* block size, miniblocks, values */
        const char *want;
    } bad[] = {
        {{100, 4, 37}, "DELTA_BINARY_PACKED: block size 100 is not a positive multiple of 128"},
        {{128, 3, 37}, "DELTA_BINARY_PACKED: 3 miniblocks in a block of 128: values per miniblock not a "
                       "multiple of 32"},
        {{128, 4, 40}, "DELTA_BINARY_PACKED: 40 values, more than the 37 declared"},
        {{128, 4, 30}, "DELTA_BINARY_PACKED: 30 values, the page has 37 non-null values"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        wbuf b = {sec, 0, sizeof sec};
        put_dbp(&b, v, 37, plain_shape);
        size_t body = 0; /* past the good header's four varints */
        for (int f = 0; f < 4; f++) {
            while (sec[body] & 0x80) body++;
            body++;
        }
        uint8_t page[512];
        wbuf h = {page, 0, sizeof page};
        for (int f = 0; f < 3; f++) put_uleb(&h, bad[k].header[f]);
        put_uleb(&h, zigzag(v[0]));
        put_bytes(&h, sec + body, b.n - body);
        hand_chunk *c = hand_new();
        add_page(c, NULL, 37, page, h.n, PQ_ENC_DELTA_BINARY_PACKED);
        pq_leaf leaf = leaf_of(PQ_INT64, 0, 0);
        pq_error err = {0};
        ck_assert_int_eq(run_hand(&leaf, c, &err, NULL), PQ_ERR_CORRUPT_DATA);
        ck_assert_msg(strstr(err.message, bad[k].want), "%zu: %s", k, err.message);
        free(c);
    }
    /* every byte of a page changed, and the page cut short */
    for (int i32 = 0; i32 < 2; i32++) {
        delta_values(v, 70, 1, i32);
        wbuf b = {sec, 0, sizeof sec};
        put_dbp(&b, v, 70, shapes[2]);
        hand_chunk *c = hand_new();
        add_page(c, NULL, 70, sec, b.n, PQ_ENC_DELTA_BINARY_PACKED);
        pq_leaf leaf = leaf_of(i32 ? PQ_INT32 : PQ_INT64, 0, 0);
        ck_assert_int_gt(mutate_page(&leaf, c, 0), 0);
        free(c);
    }
}
END_TEST

/* DELTA_LENGTH_BYTE_ARRAY: strings of many lengths, required and optional
 * over pages; the length checks; every byte of a page changed. */
START_TEST(delta_length_byte_array_pages)
{
    static uint8_t sec[1 << 16];
    static const size_t sizes[] = {1, 5, 33, 100, 700};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (int optional = 0; optional < 2; optional++) {
            size_t n = sizes[z];
            size_t nv = 4 * n + 4;
            char **v = random_strings(nv, z == 1 ? 0 : 20, false, false);
            hand_chunk *c = hand_new();
            size_t total = 0;
            for (int page = 0; page < 3; page++) {
                uint8_t defs[2100];
                size_t nslots = optional ? n + n / 3 + 1 : n;
                for (size_t i = 0; i < nslots; i++) defs[i] = !optional || i % 4 != 2 || i + 1 == nslots;
                size_t nn = 0;
                for (size_t i = 0; i < nslots; i++) nn += defs[i];
                ck_assert_uint_le(total + nn, nv);
                wbuf b = {sec, 0, sizeof sec};
                put_dlba(&b, v + total, nn, page == 2 ? (dbp_shape){256, 8, false, 0, 77} : plain_shape);
                add_page(c, optional ? defs : NULL, nslots, sec, b.n, PQ_ENC_DELTA_LENGTH_BYTE_ARRAY);
                total += nn;
            }
            pq_leaf leaf = leaf_of(PQ_BYTE_ARRAY, (int16_t)optional, 0);
            pq_error err = {0};
            pq_column_values out;
            ck_assert_msg(run_hand(&leaf, c, &err, &out) == PQ_OK, "%s", err.message);
            check_strings(&out, v, total);
            pq_column_values_free(&out);
            free(c);
            free_strings(v, nv);
        }

    /* lengths -1, and lengths past the bytes */
    int64_t lens[4] = {1, 2, -1, 1};
    wbuf b = {sec, 0, sizeof sec};
    put_dbp(&b, lens, 4, plain_shape);
    put_bytes(&b, "abcdef", 6);
    hand_chunk *c = hand_new();
    add_page(c, NULL, 4, sec, b.n, PQ_ENC_DELTA_LENGTH_BYTE_ARRAY);
    pq_leaf leaf = leaf_of(PQ_BYTE_ARRAY, 0, 0);
    pq_error err = {0};
    ck_assert_int_eq(run_hand(&leaf, c, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 0 (DATA_PAGE, DELTA_LENGTH_BYTE_ARRAY): DELTA_LENGTH_BYTE_ARRAY: value 2 "
                                      "has negative length -1"),
                  "%s", err.message);
    lens[2] = 5;
    b.n = 0;
    put_dbp(&b, lens, 4, plain_shape);
    put_bytes(&b, "abcdef", 6);
    free(c);
    c = hand_new();
    add_page(c, NULL, 4, sec, b.n, PQ_ENC_DELTA_LENGTH_BYTE_ARRAY);
    ck_assert_int_eq(run_hand(&leaf, c, &err, NULL), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "DELTA_LENGTH_BYTE_ARRAY: values up to 2 need 8 bytes, 6 present"), "%s",
                  err.message);
    ck_assert_int_gt(mutate_page(&leaf, c, 0), 0);
    free(c);

    /* a page of 40 strings: every byte changed */
    char **v = random_strings(40, 6, false, false);
    b.n = 0;
    put_dlba(&b, v, 40, (dbp_shape){128, 4, false, 0, 0});
    c = hand_new();
    add_page(c, NULL, 40, sec, b.n, PQ_ENC_DELTA_LENGTH_BYTE_ARRAY);
    ck_assert_int_gt(mutate_page(&leaf, c, 0), 0);
    free(c);
    free_strings(v, 40);
}
END_TEST

/* DELTA_BYTE_ARRAY into BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY: sorted strings
 * (long shared prefixes), required and optional over pages; the prefix
 * checks; every byte of a page changed. */
START_TEST(delta_byte_array_pages)
{
    static uint8_t sec[1 << 16];
    static const size_t sizes[] = {1, 2, 40, 300, 1500};
    for (int flba = 0; flba < 2; flba++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (int optional = 0; optional < 2; optional++) {
                size_t n = sizes[z];
                size_t nv = 4 * n + 4;
                char **v = random_strings(nv, flba ? 5 : 12, true, flba);
                hand_chunk *c = hand_new();
                size_t total = 0;
                for (int page = 0; page < 3; page++) {
                    uint8_t defs[2100];
                    size_t nslots = optional ? n + n / 3 + 1 : n, nn = 0;
                    for (size_t i = 0; i < nslots; i++) nn += defs[i] = !optional || i % 3 != 1 || i + 1 == nslots;
                    ck_assert_uint_le(total + nn, nv);
                    wbuf b = {sec, 0, sizeof sec};
                    put_dba(&b, v + total, nn, page == 1 ? (dbp_shape){1024, 32, false, 0, 0} : plain_shape);
                    add_page(c, optional ? defs : NULL, nslots, sec, b.n, PQ_ENC_DELTA_BYTE_ARRAY);
                    total += nn;
                }
                pq_leaf leaf = flba ? flba_leaf(5, (int16_t)optional) : leaf_of(PQ_BYTE_ARRAY, (int16_t)optional, 0);
                pq_error err = {0};
                pq_column_values out;
                ck_assert_msg(run_hand(&leaf, c, &err, &out) == PQ_OK, "%s", err.message);
                if (flba) {
                    ck_assert_uint_eq(out.n_values, total);
                    for (size_t i = 0; i < total; i++)
                        ck_assert_msg(memcmp(out.values + 5 * i, v[i], 5) == 0, "value %zu", i);
                } else {
                    check_strings(&out, v, total);
                }
                pq_column_values_free(&out);
                free(c);
                free_strings(v, nv);
            }

    /* bad prefixes, counts that differ, an FLBA value of another width */
    pq_leaf leaf = leaf_of(PQ_BYTE_ARRAY, 0, 0);
    pq_error err = {0};
    static const struct {
        int64_t pre[4], suf[4];
        size_t npre, nsuf;
        int flba;
        const char *want;
    } bad[] = {
        {{1, 0, 0, 0}, {2, 2, 2, 2}, 4, 4, 0, "DELTA_BYTE_ARRAY: value 0 has prefix length 1, the previous value has 0 "
                                              "bytes"},
        {{0, 2, 5, 0}, {2, 2, 2, 2}, 4, 4, 0, "DELTA_BYTE_ARRAY: value 2 has prefix length 5, the previous value has 4 "
                                              "bytes"},
        {{0, -1, 0, 0}, {2, 2, 2, 2}, 4, 4, 0, "DELTA_BYTE_ARRAY: value 1 has prefix length -1"},
        {{0, 1, 0, 0}, {2, 2, 2, 2}, 3, 4, 0, "DELTA_BYTE_ARRAY: 3 prefix lengths but 4 suffixes"},
        {{0, 1, 0, 0}, {2, 2, 2, -2}, 4, 4, 0, "DELTA_LENGTH_BYTE_ARRAY: value 3 has negative length -2"},
        {{0, 1, 0, 0}, {2, 2, 9, 2}, 4, 4, 0, "DELTA_LENGTH_BYTE_ARRAY: values up to 2 need 13 bytes, 8 present"},
        {{0, 1, 0, 0}, {2, 2, 2, 2}, 3, 3, 0, "DELTA_BYTE_ARRAY: 3 values, the page has 4 non-null values"},
        {{0, 1, 0, 0}, {2, 2, 2, 2}, 4, 4, 1, "DELTA_BYTE_ARRAY: value 1 is 3 bytes, FIXED_LEN_BYTE_ARRAY(2)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        wbuf b = {sec, 0, sizeof sec};
        put_dbp(&b, bad[k].pre, bad[k].npre, plain_shape);
        put_dbp(&b, bad[k].suf, bad[k].nsuf, plain_shape);
        put_bytes(&b, "abcdefgh", 8);
        hand_chunk *c = hand_new();
        add_page(c, NULL, 4, sec, b.n, PQ_ENC_DELTA_BYTE_ARRAY);
        pq_leaf l = bad[k].flba ? flba_leaf(2, 0) : leaf;
        ck_assert_int_eq(run_hand(&l, c, &err, NULL), PQ_ERR_CORRUPT_DATA);
        ck_assert_msg(strstr(err.message, bad[k].want), "%zu: %s", k, err.message);
        free(c);
    }
    /* every byte of a page changed, both ways */
    for (int flba = 0; flba < 2; flba++) {
        char **v = random_strings(40, 4, true, flba);
        wbuf b = {sec, 0, sizeof sec};
        put_dba(&b, v, 40, plain_shape);
        hand_chunk *c = hand_new();
        add_page(c, NULL, 40, sec, b.n, PQ_ENC_DELTA_BYTE_ARRAY);
        pq_leaf l = flba ? flba_leaf(4, 0) : leaf;
        ck_assert_int_gt(mutate_page(&l, c, 0), 0);
        free(c);
        free_strings(v, 40);
    }
}
END_TEST

/* Every byte of BYTE_STREAM_SPLIT pages changed (only sizes can fail). */
START_TEST(corrupt_byte_stream_split_pages)
{
    uint8_t vals[64];
    for (size_t i = 0; i < sizeof vals; i++) vals[i] = (uint8_t)rnd();
    hand_chunk *c = hand_new();
    add_page(c, NULL, 16, vals, 64, PQ_ENC_BYTE_STREAM_SPLIT);
    pq_leaf leaf = leaf_of(PQ_FLOAT, 0, 0);
    ck_assert_int_gt(mutate_page(&leaf, c, 0), 0);
    free(c);
}
END_TEST

/* Pages the kernels do not cover leave the chunk to the CPU executor
 * (encodings not valid for the type), each counted by its reason; asking
 * for CUDA without a device does too. */
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* String views and dictionary indices out, from a hand-built chunk of
 * nullable strings: a dictionary of a short and a long entry, a page of
 * indices and a PLAIN page of a short and a long value, with nulls. Views
 * of the dictionary page point into the dictionary (buffer 1), those of
 * the PLAIN page into the chunk's data (buffer 0), as the CPU executor's;
 * indices out keep the dictionary. A bad index fails either way with the
 * page named. */
START_TEST(views_and_indices_out)
{
    static const char *dict[] = {"ab", "a string of 23 bytes..."};
    uint8_t chunk[256];
    size_t n = 0;
    for (int i = 0; i < 2; i++) n += pq_test_put_str(chunk + n, dict[i]);
    size_t d0 = n;
    /* page 1: 5 slots, def 1 0 1 1 1 (RLE levels, bit width 1), indices 1 0 1 1 */
    const uint8_t p1[] = {0x02, 0x00, 0x00, 0x00, 0x03, 0x1d, /* levels: 4-byte length, one group 0b11101 */
                          0x01, 0x03, 0x0d};                   /* indices: width 1, one group 1 0 1 1 */
    memcpy(chunk + n, p1, sizeof p1);
    n += sizeof p1;
    size_t d1 = n;
    /* page 2: PLAIN, 3 slots, def 1 1 0: "xyz", "thirteen bytes" */
    const uint8_t lv2[] = {0x02, 0x00, 0x00, 0x00, 0x03, 0x03};
    memcpy(chunk + n, lv2, sizeof lv2);
    n += sizeof lv2;
    n += pq_test_put_str(chunk + n, "xyz");
    n += pq_test_put_str(chunk + n, "thirteen byte");
    pq_page_info pages[3] = {pq_test_page(0, PQ_PAGE_DICTIONARY, (int32_t)d0, 2, PQ_ENC_PLAIN),
                             pq_test_page(d0, PQ_PAGE_DATA, (int32_t)(d1 - d0), 5, PQ_ENC_RLE_DICTIONARY),
                             pq_test_page(d1, PQ_PAGE_DATA, (int32_t)(n - d1), 3, PQ_ENC_PLAIN)};
    pq_leaf leaf = leaf_of(PQ_BYTE_ARRAY, 1, 0);
    pq_error err = {0};
    pq_column_values out;
    ck_assert_msg(run_both_ex(&leaf, chunk, n, pages, 3, &err, &out, true, PQ_PLAN_STRING_VIEWS, NULL) == PQ_OK, "%s",
                  err.message);
    static const char *want[] = {"a string of 23 bytes...", "ab", "a string of 23 bytes...",
                                 "a string of 23 bytes...", "xyz", "thirteen byte"};
    static const uint32_t bufs[] = {1, 0, 1, 1, 0, 0}; /* buffer of a long value (0 inline) */
    ck_assert_uint_eq(out.n_values, 6);
    ck_assert_uint_eq(out.n_view_bufs, 2);
    for (size_t i = 0; i < 6; i++) {
        const uint8_t *w = out.views + 16 * i;
        uint32_t len, buf, off;
        memcpy(&len, w, 4);
        memcpy(&buf, w + 8, 4);
        memcpy(&off, w + 12, 4);
        ck_assert_uint_eq(len, strlen(want[i]));
        const uint8_t *p = len <= 12 ? w + 4 : out.view_bufs[buf] + off;
        if (len > 12) ck_assert_uint_eq(buf, bufs[i]);
        ck_assert_msg(memcmp(p, want[i], len) == 0, "value %zu", i);
    }
    pq_column_values_free(&out);

    /* indices out: only the dictionary page's chunk (every data page dictionary-encoded) */
    ck_assert_msg(run_both_ex(&leaf, chunk, d1, pages, 2, &err, &out, true, PQ_PLAN_INDICES, NULL) == PQ_OK, "%s",
                  err.message);
    ck_assert_uint_eq(out.n_values, 4);
    ck_assert_uint_eq(out.width, 4);
    uint32_t idx[4];
    memcpy(idx, out.values, sizeof idx);
    ck_assert_msg(idx[0] == 1 && idx[1] == 0 && idx[2] == 1 && idx[3] == 1, "%u %u %u %u", idx[0], idx[1], idx[2],
                  idx[3]);
    ck_assert_ptr_nonnull(out.dictionary);
    ck_assert_uint_eq(out.dictionary->n_values, 2);
    ck_assert_uint_eq(out.dictionary->data_len, 2 + 23);
    ck_assert_mem_eq(out.dictionary->data, "aba string", 10);
    pq_column_values_free(&out);

    /* an index past the dictionary: the dictionary page declares one entry */
    pages[0].num_values = 1;
    for (int k = 0; k < 2; k++) {
        unsigned flags = k ? PQ_PLAN_INDICES : PQ_PLAN_STRING_VIEWS;
        ck_assert_int_eq(run_both_ex(&leaf, chunk, d1, pages, 2, &err, &out, true, flags, NULL), PQ_ERR_CORRUPT_DATA);
        ck_assert_msg(strstr(err.message, "page 1 (DATA_PAGE, RLE_DICTIONARY): dictionary index 1 at value 0 >= "
                                          "dictionary size 1"),
                      "%s", err.message);
        ck_assert(zeroed(&out));
    }
}
END_TEST

/* Selection-vector decode: a required string column of a dictionary page,
 * a page of 4 indices (1 0 1 1) and two PLAIN pages of 2 values each; rows
 * 1, 3 and 4 selected, so the last page has none and is not decoded. The
 * device decodes the pages whole and compacts; values, offsets (or string
 * views) and the plan's page counts are the CPU executor's. */
START_TEST(row_selections_are_compacted)
{
    static const char *dict[] = {"ab", "a string of 23 bytes..."};
    uint8_t chunk[256];
    size_t n = 0;
    for (int i = 0; i < 2; i++) n += pq_test_put_str(chunk + n, dict[i]);
    size_t d0 = n;
    const uint8_t idx[] = {0x01, 0x03, 0x0d}; /* width 1, one group: 1 0 1 1 */
    memcpy(chunk + n, idx, sizeof idx);
    n += sizeof idx;
    size_t d1 = n;
    n += pq_test_put_str(chunk + n, "xyz");
    n += pq_test_put_str(chunk + n, "thirteen byte");
    size_t d2 = n;
    n += pq_test_put_str(chunk + n, "p");
    n += pq_test_put_str(chunk + n, "q");
    pq_page_info pages[4] = {pq_test_page(0, PQ_PAGE_DICTIONARY, (int32_t)d0, 2, PQ_ENC_PLAIN),
                             pq_test_page(d0, PQ_PAGE_DATA, (int32_t)(d1 - d0), 4, PQ_ENC_RLE_DICTIONARY),
                             pq_test_page(d1, PQ_PAGE_DATA, (int32_t)(d2 - d1), 2, PQ_ENC_PLAIN),
                             pq_test_page(d2, PQ_PAGE_DATA, (int32_t)(n - d2), 2, PQ_ENC_PLAIN)};
    pq_leaf leaf = leaf_of(PQ_BYTE_ARRAY, 0, 0);
    const uint8_t keep[] = {0x1a}; /* rows 1, 3, 4 of 8 */
    pq_decode_rows rows = {keep, 0, 8};
    pq_error err = {0};
    pq_column_values out;
    pq_device_exec_stats stats = {0};
    ck_assert_msg(run_both_ex(&leaf, chunk, n, pages, 4, &err, &out, true, 0, &rows) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(out.n_values, 3);
    ck_assert_uint_eq(out.data_len, 2 + 23 + 3);
    ck_assert_mem_eq(out.data, "aba string of 23 bytes...xyz", 28);
    ck_assert_int_eq(out.offsets[1], 2);
    ck_assert_int_eq(out.offsets[2], 25);
    ck_assert_int_eq(out.offsets[3], 28);
    pq_column_values_free(&out);

    /* the same rows with the selection starting at row 2: rows 3 and 4 (bits 1, 2) */
    const uint8_t keep2[] = {0x06};
    pq_decode_rows rows2 = {keep2, 2, 6};
    ck_assert_msg(run_both_ex(&leaf, chunk, n, pages, 4, &err, &out, true, 0, &rows2) == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(out.n_values, 2);
    ck_assert_mem_eq(out.data, "a string of 23 bytes...xyz", 26);
    pq_column_values_free(&out);

    /* string views of a selection: the selected views, into the selected strings of the PLAIN page
     * (copied out, buffer 0) and into the dictionary (buffer 1) */
    ck_assert_msg(run_both_ex(&leaf, chunk, n, pages, 4, &err, &out, true, PQ_PLAN_STRING_VIEWS, &rows) == PQ_OK,
                  "%s", err.message);
    ck_assert_uint_eq(out.n_values, 3);
    ck_assert_uint_eq(out.n_view_bufs, 2);
    ck_assert_uint_eq(out.view_buf_lens[0], 3); /* page 2's selected value alone, not its 13-byte other */
    ck_assert_mem_eq(out.view_bufs[0], "xyz", 3);
    uint32_t len0;
    memcpy(&len0, out.views + 32, 4);
    ck_assert_uint_eq(len0, 3);
    ck_assert_mem_eq(out.views + 36, "xyz", 3);
    pq_column_values_free(&out);
    pq_decode_plan plan = {0};
    pq_status st;
    pq_device_exec_options o = {.stats = &stats};

    /* a corrupt page under the selection: left to the CPU executor, which fails it */
    pages[2].compressed_size = pages[2].uncompressed_size = 5; /* "xyz" cut short */
    memset(&stats, 0, sizeof stats);
    ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 4, 0, &rows, &err),
                     PQ_OK);
    ck_assert_int_eq(pq_device_exec_run(&o, &plan, &out, &st, &err), PQ_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.message, "fails decoded whole (page 2"), "%s", err.message);
    ck_assert_uint_eq(stats.unsupported[PQ_DX_ROWS], 1);
    ck_assert(zeroed(&out));
    pq_decode_plan_free(&plan);
}
END_TEST

/* A resident chunk is decoded from its copy, not from the host bytes: a
 * copy that differs (a dictionary entry changed, an index out of range)
 * gives the copy's values, and its corruption fails as the copy's would,
 * while its pages' headers still come from the host bytes. */
START_TEST(resident_bytes_are_what_is_decoded)
{
    uint8_t chunk[32], copy[32];
    put32(chunk, 10), put32(chunk + 4, 20); /* dictionary: 10, 20 */
    const uint8_t idx[] = {0x01, 0x03, 0x0A}; /* width 1, one group: 0 1 0 1 0 0 0 0 */
    memcpy(chunk + 8, idx, sizeof idx);
    size_t n = 8 + sizeof idx;
    pq_page_info pages[2] = {pq_test_page(0, PQ_PAGE_DICTIONARY, 8, 2, PQ_ENC_PLAIN),
                             pq_test_page(8, PQ_PAGE_DATA, (int32_t)sizeof idx, 4, PQ_ENC_RLE_DICTIONARY)};
    pq_leaf leaf = leaf_of(PQ_INT32, 0, 0);
    for (int apart = 0; apart < 2; apart++) {
        memcpy(copy, chunk, n);
        put32(copy + 4, 77); /* entry 1 is 77 in the copy */
        const uint8_t *res[1] = {copy};
        pq_device_exec_stats stats = {0};
        pq_device_exec_options o = {.host_apart = apart, .host_async = apart, .resident = res, .stats = &stats};
        pq_decode_plan plan = {0};
        pq_error err = {0};
        pq_column_values out;
        pq_status st;
        ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 2, 0, NULL,
                                                  &err),
                         PQ_OK);
        ck_assert_msg(pq_device_exec_run(&o, &plan, &out, &st, &err) == PQ_OK, "%s", err.message);
        int32_t v[4];
        ck_assert_uint_eq(out.n_values, 4);
        memcpy(v, out.values, sizeof v);
        ck_assert_msg(v[0] == 10 && v[1] == 77 && v[2] == 10 && v[3] == 77, "%d %d %d %d", v[0], v[1], v[2], v[3]);
        ck_assert_uint_eq(stats.resident_chunks, 1);
        ck_assert_uint_eq(stats.resident_bytes, n);
        pq_column_values_free(&out);
        pq_decode_plan_free(&plan);
        /* an index out of range in the copy alone */
        copy[8] = 0x02; /* width 2: the one byte 0x0A is now 2, 2, 0, 0: index 2 */
        ck_assert_int_eq(pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, n, pages, 2, 0, NULL,
                                                  &err),
                         PQ_OK);
        ck_assert_int_eq(pq_device_exec_run(&o, &plan, &out, &st, &err), PQ_ERR_CORRUPT_DATA);
        ck_assert_msg(strstr(err.message, "page 1 (DATA_PAGE, RLE_DICTIONARY): dictionary index"), "%s", err.message);
        ck_assert(zeroed(&out));
        pq_decode_plan_free(&plan);
    }
}
END_TEST

START_TEST(uncovered_chunks_are_unsupported)
{
    uint8_t chunk[16] = {0};
    static const struct {
        int32_t type, enc;
        const char *want;
    } uncovered[] = {
        {PQ_INT32, PQ_ENC_BIT_PACKED, "BIT_PACKED values of INT32 (page 0)"},
        {PQ_FLOAT, PQ_ENC_DELTA_BINARY_PACKED, "DELTA_BINARY_PACKED values of FLOAT (page 0)"},
        {PQ_INT32, PQ_ENC_RLE, "RLE values of INT32 (page 0)"},
        {PQ_INT96, PQ_ENC_BYTE_STREAM_SPLIT, "BYTE_STREAM_SPLIT values of INT96 (page 0)"},
        {PQ_INT64, PQ_ENC_DELTA_BYTE_ARRAY, "DELTA_BYTE_ARRAY values of INT64 (page 0)"},
    };
    pq_device_exec_stats stats = {0};
    pq_device_exec_options o = {.stats = &stats};
    pq_decode_plan plan = {0};
    pq_error err = {0};
    pq_column_values out;
    pq_status st;
    pq_page_info pages[2];
    for (size_t k = 0; k < sizeof uncovered / sizeof uncovered[0]; k++) {
        pages[0] = pq_test_page(0, PQ_PAGE_DATA, 8, 2, uncovered[k].enc);
        pq_leaf leaf = leaf_of(uncovered[k].type, 0, 0);
        ck_assert_int_eq(
            pq_decode_plan_add_chunk(&plan, &leaf, PQ_CODEC_UNCOMPRESSED, chunk, 16, pages, 1, 0, NULL, &err), PQ_OK);
        ck_assert_int_eq(pq_device_exec_run(&o, &plan, &out, &st, &err), PQ_ERR_UNSUPPORTED);
        ck_assert_int_eq(st, PQ_ERR_UNSUPPORTED);
        ck_assert_msg(strstr(err.message, uncovered[k].want), "%s", err.message);
        ck_assert(zeroed(&out));
        pq_decode_plan_free(&plan);
    }
    ck_assert_uint_eq(stats.unsupported[PQ_DX_VALUE_ENCODING], sizeof uncovered / sizeof uncovered[0]);
    ck_assert_uint_eq(stats.chunks, 0);

    /* CUDA asked for */
    pq_leaf leaf = leaf_of(PQ_INT32, 0, 0);
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
    tcase_add_test(tc, byte_stream_split_pages);
    tcase_add_test(tc, corrupt_byte_stream_split_pages);
    tcase_add_test(tc, rle_boolean_pages);
    tcase_add_test(tc, delta_binary_packed_pages);
    tcase_add_test(tc, delta_length_byte_array_pages);
    tcase_add_test(tc, delta_byte_array_pages);
    tcase_add_test(tc, uncovered_chunks_are_unsupported);
    tcase_add_test(tc, views_and_indices_out);
    tcase_add_test(tc, row_selections_are_compacted);
    tcase_add_test(tc, view_selections_copy_and_move_bytes);
    tcase_add_test(tc, resident_bytes_are_what_is_decoded);
    tcase_add_test(tc, corpus_equals_the_cpu_executor);
    tcase_add_test(tc, matrix_equals_the_cpu_executor);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
