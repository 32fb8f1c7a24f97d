/*
 * test_reader.c — the reader's footer stage: sources, sans-IO ranges, reuse
 * of metadata and footer bytes, counters, and bad files.
 *
 * Oracles: the corpus manifest (row counts, row groups), hand-computed byte
 * ranges (the tail and footer positions computed here from the file image),
 * and pq_metadata_parse_tail on the same bytes.
 */
#include <check.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pqstep.h"
#include "test_util.h"

/* A corpus file with a footer larger than 64 KiB would be ideal for the
 * two-read path; we force it instead with a small footer_read_size. */
static const char *SMALL = "data/alltypes_plain.parquet";
static const char *TINY_PAGES = "data/alltypes_tiny_pages.parquet";

typedef struct image {
    uint8_t *data;
    size_t len;
    char *path;
} image;

static image load(const char *rel)
{
    image im = {0};
    im.path = pq_test_corpus_path(rel);
    if (!im.path) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    im.data = pq_test_read_file(im.path, &im.len);
    ck_assert_msg(im.data, "cannot read %s", im.path);
    return im;
}

static void unload(image *im)
{
    free(im->data);
    free(im->path);
}

/* The footer's position in the image, computed independently of the library. */
static void footer_pos(const image *im, uint64_t *start, uint32_t *len)
{
    size_t flen;
    const uint8_t *f = pq_test_footer_span(im->data, im->len, &flen);
    ck_assert_ptr_nonnull(f);
    *start = (uint64_t)(f - im->data);
    *len = (uint32_t)flen;
}

START_TEST(path_reader_reaches_footer)
{
    image im = load(SMALL);
    pq_error err;
    pq_reader *r = pq_reader_open_path(im.path, NULL, &err);
    ck_assert_msg(r, "%s", err.message);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_INIT);
    ck_assert_ptr_null(pq_reader_metadata(r));
    ck_assert_uint_eq(pq_reader_file_size(r), im.len);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_FOOTER);
    const pq_file_metadata *fm = pq_metadata_file(pq_reader_metadata(r));
    ck_assert_int_eq(fm->num_rows, 8);
    ck_assert_uint_eq(fm->row_groups_len, 1);
    ck_assert_uint_eq(pq_metadata_schema(pq_reader_metadata(r))->leaves_len, 11);

    /* One read of the whole (small) file: the tail covers it. */
    pq_footer_stats st;
    pq_reader_footer_stats(r, &st, sizeof st);
    ck_assert_uint_eq(st.io.reads, 1);
    ck_assert_uint_eq(st.io.bytes_read, im.len);
    ck_assert_uint_eq(st.parses, 1);
    ck_assert_uint_eq(st.reused, 0);

    /* Select (everything), then walk the pages of all 11 chunks. */
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_SELECT);
    size_t nrg, ncol;
    ck_assert_ptr_nonnull(pq_reader_selected_row_groups(r, &nrg));
    ck_assert_ptr_nonnull(pq_reader_selected_columns(r, &ncol));
    ck_assert_uint_eq(nrg, 1);
    ck_assert_uint_eq(ncol, 11);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_PAGE_HEADERS);
    pq_page_header_stats ph;
    pq_reader_page_header_stats(r, &ph, sizeof ph);
    ck_assert_uint_eq(ph.chunks, 11);
    /* CATALOG.md: 11 v1 data pages, 10 dictionary pages (bool is PLAIN). */
    ck_assert_uint_eq(ph.pages, 21);
    /* The file is mapped: its chunks are decoded where they lie, no read. */
    ck_assert_uint_eq(ph.io.reads, 0);
    uint64_t chunk_bytes = 0;
    for (size_t c = 0; c < 11; c++) chunk_bytes += (uint64_t)fm->row_groups[0].columns[c]->meta_data.total_compressed_size;
    ck_assert_uint_eq(ph.io.bytes_read, chunk_bytes);
    {
        /* By pread: the 11 chunks lie back to back, coalesced into one read. */
        pq_reader_options o;
        pq_reader_options_init(&o);
        o.no_mmap = true;
        pq_reader *p = pq_reader_open_path(im.path, &o, &err);
        ck_assert_msg(p, "%s", err.message);
        ck_assert_int_eq(pq_reader_advance_to(p, PQ_STAGE_PAGE_HEADERS, &err), PQ_OK);
        pq_page_header_stats ps;
        pq_reader_page_header_stats(p, &ps, sizeof ps);
        ck_assert_uint_eq(ps.io.reads, 1);
        ck_assert_uint_ge(ps.io.bytes_read, chunk_bytes); /* with what lies between */
        pq_reader_close(p);
    }
    const pq_chunk_pages *cp = pq_reader_chunk_pages(r, 0, 0);
    ck_assert_ptr_nonnull(cp);
    ck_assert_uint_eq(cp->npages, 2);
    ck_assert_int_eq(cp->pages[0].type, PQ_PAGE_DICTIONARY);
    ck_assert_int_eq(cp->pages[1].type, PQ_PAGE_DATA);
    ck_assert_int_eq(cp->pages[1].num_values, 8);
    ck_assert_ptr_null(pq_reader_chunk_pages(r, 1, 0)); /* no row group 1 */

    /* The filter stage, which without a filter evaluates nothing and reads
     * nothing, then the decode stage (flat columns), then no further
     * stage: a clean PQ_ERR_STAGE, the reader stays. */
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_FILTER);
    ck_assert_str_eq(pq_stage_name(PQ_STAGE_FILTER), "filter");
    pq_filter_stats fs;
    pq_reader_filter_stats(r, &fs, sizeof fs);
    ck_assert_uint_eq(fs.groups, 0);
    ck_assert_uint_eq(fs.io.reads, 0);
    ck_assert_uint_eq(fs.io.bytes_read, 0);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_DECODE);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_STAGE);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_DECODE);
    ck_assert_ptr_nonnull(strstr(err.message, "decode"));
    pq_reader_close(r);
    unload(&im);
}
END_TEST

START_TEST(two_reads_when_footer_exceeds_tail)
{
    image im = load(TINY_PAGES);
    uint64_t fstart;
    uint32_t flen;
    footer_pos(&im, &fstart, &flen);
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.footer_read_size = 64; /* far smaller than the footer */
    ck_assert_uint_gt(flen + 8, 64);

    pq_error err;
    pq_reader *r = pq_reader_open_path(im.path, &opts, &err);
    ck_assert_msg(r, "%s", err.message);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    pq_footer_stats st;
    pq_reader_footer_stats(r, &st, sizeof st);
    ck_assert_uint_eq(st.io.reads, 2);
    ck_assert_uint_eq(st.io.bytes_read, (uint64_t)flen + 8); /* exactly the footer + trailer */
    ck_assert_int_eq(pq_metadata_file(pq_reader_metadata(r))->num_rows, 7300);
    pq_reader_close(r);

    /* With the default 64 KiB tail the footer fits in one read. */
    r = pq_reader_open_path(im.path, NULL, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    pq_reader_footer_stats(r, &st, sizeof st);
    ck_assert_uint_eq(st.io.reads, flen + 8 <= 65536 ? 1 : 2);
    pq_reader_close(r);
    unload(&im);
}
END_TEST

START_TEST(sans_io_reports_and_accepts_ranges)
{
    image im = load(TINY_PAGES);
    uint64_t fstart;
    uint32_t flen;
    footer_pos(&im, &fstart, &flen);

    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.footer_read_size = 1000;
    pq_error err;
    pq_reader *r = pq_reader_open_sans_io(im.len, &opts, &err);
    ck_assert_msg(r, "%s", err.message);

    pq_range need[4];
    ck_assert_uint_eq(pq_reader_needed_ranges(r, NULL, 0), 1);
    ck_assert_uint_eq(pq_reader_needed_ranges(r, need, 4), 1);
    ck_assert_uint_eq(need[0].offset, im.len - 1000);
    ck_assert_uint_eq(need[0].length, 1000);

    /* Advancing without the bytes says what is missing. */
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_NEED_DATA);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_INIT);

    ck_assert_int_eq(pq_reader_supply(r, need[0].offset, im.data + need[0].offset,
                                      need[0].length, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_NEED_DATA);
    /* Now the rest of the footer: from its start up to the tail. */
    ck_assert_uint_eq(pq_reader_needed_ranges(r, need, 4), 1);
    ck_assert_uint_eq(need[0].offset, fstart);
    ck_assert_uint_eq(need[0].offset + need[0].length, im.len - 1000);

    /* Supplying a larger covering range is fine. */
    ck_assert_int_eq(pq_reader_supply(r, fstart - 10, im.data + fstart - 10,
                                      need[0].length + 10, &err), PQ_OK);
    ck_assert_uint_eq(pq_reader_needed_ranges(r, need, 4), 0);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_FOOTER);
    ck_assert_int_eq(pq_metadata_file(pq_reader_metadata(r))->num_rows, 7300);
    ck_assert_uint_eq(pq_reader_needed_ranges(r, need, 4), 0);

    /* A range outside the file is refused. */
    ck_assert_int_eq(pq_reader_supply(r, im.len - 2, im.data, 8, &err), PQ_ERR_INVALID_ARGUMENT);
    pq_reader_close(r);
    unload(&im);
}
END_TEST

static int calls;
static pq_status counting_read(void *user, uint64_t off, size_t len, void *dst, pq_error *err)
{
    const image *im = user;
    calls++;
    if (off + len > im->len) {
        err->code = PQ_ERR_IO;
        snprintf(err->message, sizeof err->message, "past end");
        return PQ_ERR_IO;
    }
    memcpy(dst, im->data + off, len);
    return PQ_OK;
}

START_TEST(caller_source_and_memory)
{
    image im = load(SMALL);
    pq_source src = {counting_read, &im, im.len, NULL};
    pq_error err;
    calls = 0;
    pq_reader *r = pq_reader_open_source(&src, NULL, &err);
    ck_assert_msg(r, "%s", err.message);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_int_eq(calls, 1);
    ck_assert_int_eq(pq_metadata_file(pq_reader_metadata(r))->num_rows, 8);
    pq_reader_close(r);

    r = pq_reader_open_memory(im.data, im.len, NULL, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_int_eq(pq_metadata_file(pq_reader_metadata(r))->num_rows, 8);
    pq_reader_close(r);
    unload(&im);
}
END_TEST

START_TEST(reuse_metadata_and_footer_bytes)
{
    image im = load(TINY_PAGES);
    pq_error err;
    pq_reader *first = pq_reader_open_path(im.path, NULL, &err);
    ck_assert_int_eq(pq_reader_advance(first, &err), PQ_OK);
    pq_metadata *md = pq_metadata_retain(pq_reader_metadata(first));
    pq_reader_close(first); /* md outlives its reader */

    /* With a pq_metadata: no I/O, no parse. */
    uint64_t parses0 = pq_footer_parse_count();
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.metadata = md;
    calls = 0;
    pq_source src = {counting_read, &im, im.len, NULL};
    pq_reader *r = pq_reader_open_source(&src, &opts, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_ptr_eq(pq_reader_metadata(r), md);
    ck_assert_int_eq(calls, 0);
    ck_assert_uint_eq(pq_footer_parse_count(), parses0);
    pq_footer_stats st;
    pq_reader_footer_stats(r, &st, sizeof st);
    ck_assert_uint_eq(st.reused, 1);
    ck_assert_uint_eq(st.io.reads, 0);
    pq_reader_close(r);

    /* With footer bytes: no file I/O, one parse of those bytes, same content. */
    size_t flen;
    const uint8_t *fb = pq_metadata_footer_bytes(md, &flen);
    uint8_t *copy = malloc(flen);
    memcpy(copy, fb, flen);
    pq_reader_options_init(&opts);
    opts.footer_bytes = copy;
    opts.footer_bytes_len = flen;
    calls = 0;
    r = pq_reader_open_source(&src, &opts, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_int_eq(calls, 0);
    ck_assert_uint_eq(pq_footer_parse_count(), parses0 + 1);
    const pq_file_metadata *a = pq_metadata_file(md), *b = pq_metadata_file(pq_reader_metadata(r));
    ck_assert_int_eq(a->num_rows, b->num_rows);
    ck_assert_uint_eq(a->row_groups_len, b->row_groups_len);
    size_t flen2;
    const uint8_t *fb2 = pq_metadata_footer_bytes(pq_reader_metadata(r), &flen2);
    ck_assert_uint_eq(flen, flen2);
    ck_assert_int_eq(memcmp(fb, fb2, flen), 0);
    pq_reader_close(r);
    free(copy);

    /* Both at once is a usage error. */
    opts.metadata = md;
    opts.footer_bytes = fb;
    ck_assert_ptr_null(pq_reader_open_path(im.path, &opts, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);

    pq_metadata_release(md);
    unload(&im);
}
END_TEST

START_TEST(cache_open_parses_once)
{
    image im = load(SMALL);
    pq_error err;
    pq_metadata_cache *cache = pq_metadata_cache_create(64u << 20, &err);
    ck_assert_ptr_nonnull(cache);
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.cache = cache;
    uint64_t parses0 = pq_footer_parse_count();
    for (int i = 0; i < 5; i++) {
        pq_reader *r = pq_reader_open_path(im.path, &opts, &err);
        ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
        pq_footer_stats st;
        pq_reader_footer_stats(r, &st, sizeof st);
        ck_assert_uint_eq(st.reused, i > 0);
        ck_assert_uint_eq(st.io.reads, i == 0 ? 1 : 0);
        pq_reader_close(r);
    }
    ck_assert_uint_eq(pq_footer_parse_count(), parses0 + 1);

    /* A caller key works for sources without a path, sans-IO included. */
    opts.cache_key = "my-object-etag";
    opts.cache_key_len = strlen("my-object-etag");
    pq_reader *r = pq_reader_open_sans_io(im.len, &opts, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_NEED_DATA);
    ck_assert_int_eq(pq_reader_supply(r, 0, im.data, im.len, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    pq_reader_close(r);
    r = pq_reader_open_sans_io(im.len, &opts, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK); /* a hit: no bytes needed */
    pq_reader_close(r);
    ck_assert_uint_eq(pq_footer_parse_count(), parses0 + 2);

    pq_metadata_cache_stats cs;
    pq_metadata_cache_get_stats(cache, &cs);
    ck_assert_uint_eq(cs.entries, 2);
    pq_metadata_cache_destroy(cache);
    unload(&im);
}
END_TEST

/* Bad files: built in memory from a good one. */
START_TEST(bad_files_give_clean_errors)
{
    image im = load(SMALL);
    pq_error err;
    pq_reader *r;

    /* Too small. */
    r = pq_reader_open_memory("PAR1PAR1", 8, NULL, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_NOT_PARQUET);
    ck_assert_ptr_nonnull(strstr(err.message, "too small"));
    pq_reader_close(r);

    /* Wrong trailing magic. */
    uint8_t *bad = malloc(im.len);
    memcpy(bad, im.data, im.len);
    memcpy(bad + im.len - 4, "PAR2", 4);
    r = pq_reader_open_memory(bad, im.len, NULL, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_NOT_PARQUET);
    pq_reader_close(r);

    /* Encrypted footer magic. */
    memcpy(bad + im.len - 4, "PARE", 4);
    r = pq_reader_open_memory(bad, im.len, NULL, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_ENCRYPTED);
    ck_assert_ptr_nonnull(strstr(err.message, "the footer is encrypted"));
    pq_reader_close(r);

    /* Wrong leading magic (seen because the whole file is in memory). */
    memcpy(bad, im.data, im.len);
    memcpy(bad, "XXXX", 4);
    r = pq_reader_open_memory(bad, im.len, NULL, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_NOT_PARQUET);
    ck_assert_ptr_nonnull(strstr(err.message, "start"));
    pq_reader_close(r);

    /* Footer length larger than the file. */
    memcpy(bad, im.data, im.len);
    bad[im.len - 8] = 0xff;
    bad[im.len - 7] = 0xff;
    bad[im.len - 6] = 0xff;
    bad[im.len - 5] = 0x7f;
    r = pq_reader_open_memory(bad, im.len, NULL, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_CORRUPT_FOOTER);
    ck_assert_ptr_nonnull(strstr(err.message, "does not fit"));
    pq_reader_close(r);

    /* Memory limit smaller than the footer. */
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.memory_limit = 100;
    r = pq_reader_open_memory(im.data, im.len, &opts, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_MEMORY_LIMIT);
    pq_reader_close(r);

    /* Missing file. */
    ck_assert_ptr_null(pq_reader_open_path("/nonexistent/x.parquet", NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_IO);

    /* A directory, a character device and a pipe with no writer: refused
     * at open, the pipe without waiting for a writer. */
    ck_assert_ptr_null(pq_reader_open_path("/", NULL, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "is a directory"));
    ck_assert_ptr_null(pq_reader_open_path("/dev/null", NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "not a regular file (a character device)"));
    char dir[] = "/tmp/pqstep-fifo-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/f.parquet", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_ptr_null(pq_reader_open_path(fifo, NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "not a regular file (a pipe)"));
    unlink(fifo);
    rmdir(dir);
    free(bad);
    unload(&im);
}
END_TEST

START_TEST(projection_skips_other_chunks)
{
    /* The bundled sample: 61 row groups, so skipped chunks dominate. */
    image im = {0};
    im.path = strdup(PQ_SOURCE_DIR "/data/sample/lineitem_61rg.parquet");
    im.data = pq_test_read_file(im.path, &im.len);
    ck_assert_msg(im.data, "cannot read %s", im.path);
    pq_error err;
    pq_metadata *full = pq_metadata_parse_tail(im.data, im.len, NULL, NULL, &err);
    ck_assert_msg(full, "%s", err.message);
    uint32_t cols[] = {2, 5};
    pq_parse_options po = {.columns = cols, .columns_len = 2};
    pq_metadata *proj = pq_metadata_parse_tail(im.data, im.len, &po, NULL, &err);
    ck_assert_msg(proj, "%s", err.message);
    ck_assert(pq_metadata_is_projected(proj));
    ck_assert(!pq_metadata_is_projected(full));
    ck_assert_uint_lt(pq_metadata_memory_size(proj), pq_metadata_memory_size(full));

    const pq_file_metadata *a = pq_metadata_file(full), *b = pq_metadata_file(proj);
    ck_assert_uint_eq(a->row_groups_len, b->row_groups_len);
    for (uint32_t g = 0; g < a->row_groups_len; g++) {
        ck_assert_uint_eq(a->row_groups[g].columns_len, b->row_groups[g].columns_len);
        for (uint32_t c = 0; c < a->row_groups[g].columns_len; c++) {
            const pq_column_chunk *x = a->row_groups[g].columns[c];
            const pq_column_chunk *y = b->row_groups[g].columns[c];
            if (c == 2 || c == 5) {
                ck_assert_uint_eq(x->set, y->set);
                ck_assert_int_eq(x->meta_data.total_compressed_size,
                                 y->meta_data.total_compressed_size);
                ck_assert_int_eq(x->meta_data.data_page_offset, y->meta_data.data_page_offset);
                ck_assert_int_eq(x->meta_data.statistics.null_count,
                                 y->meta_data.statistics.null_count);
            } else {
                ck_assert_uint_eq(y->set, PQ_CC_SKIPPED);
                ck_assert_ptr_null(y->meta_data.encodings);
            }
        }
    }
    /* An index past the leaves is an error, not a silent empty projection. */
    uint32_t bad_cols[] = {99};
    pq_parse_options bad = {.columns = bad_cols, .columns_len = 1};
    ck_assert_ptr_null(pq_metadata_parse_tail(im.data, im.len, &bad, NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);

    pq_metadata_release(full);
    pq_metadata_release(proj);
    unload(&im);
}
END_TEST

START_TEST(parse_tail_needs_and_magic)
{
    image im = load(SMALL);
    pq_error err;
    size_t needed = 0;
    uint64_t fstart;
    uint32_t flen;
    footer_pos(&im, &fstart, &flen);
    ck_assert_ptr_null(pq_metadata_parse_tail(im.data + im.len - 20, 20, NULL, &needed, &err));
    ck_assert_int_eq(err.code, PQ_ERR_NEED_DATA);
    ck_assert_uint_eq(needed, (size_t)flen + 8);
    pq_metadata *md = pq_metadata_parse_tail(im.data + fstart, flen + 8, NULL, &needed, &err);
    ck_assert_msg(md, "%s", err.message);
    size_t held = pq_metadata_memory_size(md);
    pq_metadata_release(md);

    /* A memory limit below what the decoded footer takes is refused cleanly;
     * one at what it took succeeds. */
    pq_parse_options small = {.memory_limit = flen + 64};
    ck_assert_ptr_null(pq_metadata_parse_tail(im.data, im.len, &small, NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_MEMORY_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "memory limit"));
    pq_parse_options enough = {.memory_limit = held};
    md = pq_metadata_parse_tail(im.data, im.len, &enough, NULL, &err);
    ck_assert_msg(md, "%s", err.message);
    pq_metadata_release(md);
    unload(&im);
}
END_TEST

START_TEST(select_and_page_headers)
{
    image im = load("data/datapage_v1-corrupt-checksum.parquet");
    pq_error err;
    uint32_t cols[] = {1};
    uint32_t rgs[] = {0};
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.columns = cols;
    opts.columns_len = 1;
    opts.row_groups = rgs;
    opts.row_groups_len = 1;
    pq_reader *r = pq_reader_open_path(im.path, &opts, &err);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_PAGE_HEADERS, &err), PQ_OK);
    ck_assert_ptr_null(pq_reader_chunk_pages(r, 0, 0)); /* not selected */
    const pq_chunk_pages *cp = pq_reader_chunk_pages(r, 0, 1);
    ck_assert_ptr_nonnull(cp);
    ck_assert_uint_eq(cp->npages, 2); /* CATALOG.md: 2 pages per column */
    pq_reader_close(r);

    /* With checksums verified, column b's second page is caught. */
    opts.verify_checksums = true;
    r = pq_reader_open_path(im.path, &opts, &err);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_PAGE_HEADERS, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_SELECT);
    ck_assert_ptr_nonnull(strstr(err.message, "RowGroup[0].columns[1]"));
    pq_reader_close(r);

    /* Out-of-range selections fail the select stage. */
    uint32_t bad_rg[] = {1};
    pq_reader_options_init(&opts);
    opts.row_groups = bad_rg;
    opts.row_groups_len = 1;
    r = pq_reader_open_path(im.path, &opts, &err);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_SELECT, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "row group 1"), "%s", err.message);
    pq_reader_close(r);
    unload(&im);
}
END_TEST

START_TEST(sans_io_page_headers)
{
    image im = load(SMALL);
    pq_error err;
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.footer_read_size = 1000; /* the footer and trailer (738 bytes), not the pages */
    opts.no_coalescing = true;    /* one range per chunk (coalescing: sans_io_coalesced) */
    pq_reader *r = pq_reader_open_sans_io(im.len, &opts, &err);
    pq_range need[16];
    ck_assert_uint_eq(pq_reader_needed_ranges(r, need, 16), 1);
    ck_assert_int_eq(pq_reader_supply(r, need[0].offset, im.data + need[0].offset,
                                      need[0].length, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_SELECT, &err), PQ_OK);
    /* The page stage plans on its first advance, then says what it lacks. */
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_NEED_DATA);
    size_t n = pq_reader_needed_ranges(r, need, 16);
    /* One range per column chunk, except chunks the supplied tail already
     * holds (the last 1000 bytes). */
    const pq_file_metadata *fm = pq_metadata_file(pq_reader_metadata(r));
    size_t k = 0;
    for (uint32_t c = 0; c < 11; c++) {
        const pq_column_meta *m = &fm->row_groups[0].columns[c]->meta_data;
        uint64_t start = (m->set & PQ_CMD_HAS_DICTIONARY_PAGE_OFFSET) &&
                                 m->dictionary_page_offset > 0 &&
                                 m->dictionary_page_offset < m->data_page_offset
                             ? (uint64_t)m->dictionary_page_offset
                             : (uint64_t)m->data_page_offset;
        if (start >= im.len - 1000) continue;
        ck_assert_uint_lt(k, n);
        ck_assert_uint_eq(need[k].offset, start);
        ck_assert_uint_eq(need[k].length, (uint64_t)m->total_compressed_size);
        ck_assert_int_eq(pq_reader_supply(r, need[k].offset, im.data + need[k].offset,
                                          need[k].length, &err), PQ_OK);
        k++;
    }
    ck_assert_uint_eq(k, n);
    ck_assert_uint_ge(n, 8);
    ck_assert_uint_eq(pq_reader_needed_ranges(r, need, 16), 0);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_PAGE_HEADERS);
    ck_assert_uint_eq(pq_reader_chunk_pages(r, 0, 10)->npages, 2);
    pq_reader_close(r);
    unload(&im);
}
END_TEST

/* With coalescing (the default), the back-to-back chunks are asked for as
 * one range, which covers every chunk the tail does not hold. */
START_TEST(sans_io_coalesced)
{
    image im = load(SMALL);
    pq_error err;
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.footer_read_size = 1000;
    pq_reader *r = pq_reader_open_sans_io(im.len, &opts, &err);
    pq_range need[16];
    ck_assert_uint_eq(pq_reader_needed_ranges(r, need, 16), 1);
    ck_assert_int_eq(pq_reader_supply(r, need[0].offset, im.data + need[0].offset, need[0].length, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_SELECT, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_NEED_DATA);
    ck_assert_uint_eq(pq_reader_needed_ranges(r, need, 16), 1);
    const pq_file_metadata *fm = pq_metadata_file(pq_reader_metadata(r));
    for (uint32_t c = 0; c < 11; c++) { /* every chunk is inside that range or the tail */
        const pq_column_meta *m = &fm->row_groups[0].columns[c]->meta_data;
        uint64_t end = (uint64_t)m->data_page_offset;
        ck_assert(end >= need[0].offset);
        ck_assert(end < need[0].offset + need[0].length || end >= im.len - 1000);
    }
    ck_assert_int_eq(pq_reader_supply(r, need[0].offset, im.data + need[0].offset, need[0].length, &err), PQ_OK);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    ck_assert_uint_eq(pq_reader_chunk_pages(r, 0, 10)->npages, 2);
    pq_reader_close(r);
    unload(&im);
}
END_TEST


/* Every batch of the file through `r` (advanced to the decode stage), or
 * the status that stopped it; *n gets the count. */
static pq_status all_batches(pq_reader *r, struct ArrowArray *arrays, struct ArrowSchema *schemas, size_t cap,
                             size_t *n, pq_error *err)
{
    *n = 0;
    pq_status st = pq_reader_advance_to(r, PQ_STAGE_DECODE, err);
    while (st == PQ_OK && *n < cap) {
        st = pq_reader_next_batch(r, 0, &arrays[*n], &schemas[*n], err);
        if (st != PQ_OK || !arrays[*n].release) break;
        (*n)++;
    }
    return st;
}

/* A path reader maps the file and decodes its pages where they lie; the
 * arrays it hands out own their bytes: after the reader is closed (the file
 * unmapped) and the bytes a memory reader read are freed, every corpus
 * file's batches still read equal to those of the memory reader (an array
 * left pointing into either would fault here, or under ASan). */
START_TEST(mapped_file_batches_outlive_reader)
{
    if (!pq_test_corpus_dir()) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    pq_file_maps_set_limit(0); /* each close unmaps: a view left into the map would fault */
    char **files = NULL;
    int nf = pq_test_corpus_files(&files);
    enum { CAP = 64 };
    int compared = 0;
    for (int f = 0; f < nf; f++) {
        image im = load(files[f]);
        struct ArrowArray a[CAP], b[CAP];
        struct ArrowSchema sa[CAP], sb[CAP];
        size_t na, nb;
        pq_error ea, eb;
        pq_reader_options o; /* the default memory limit: large_string_map.brotli stops at it */
        pq_reader_options_init(&o);
        pq_reader *ra = pq_reader_open_path(im.path, &o, &ea);
        ck_assert_msg(ra, "%s: %s", files[f], ea.message);
        pq_status sta = all_batches(ra, a, sa, CAP, &na, &ea);
        pq_page_header_stats ps;
        pq_reader_page_header_stats(ra, &ps, sizeof ps);
        pq_reader_close(ra);
        pq_reader *rb = pq_reader_open_memory(im.data, im.len, &o, &eb);
        ck_assert_msg(rb, "%s: %s", files[f], eb.message);
        pq_status stb = all_batches(rb, b, sb, CAP, &nb, &eb);
        pq_reader_close(rb);
        memset(im.data, 0xa5, im.len); /* what a stale view would see */
        unload(&im);
        ck_assert_msg(sta == stb, "%s: mapped %d (%s), memory %d (%s)", files[f], sta, sta ? ea.message : "",
                      stb, stb ? eb.message : "");
        ck_assert_msg(na == nb, "%s: %zu batches mapped, %zu from memory", files[f], na, nb);
        for (size_t i = 0; i < na; i++) {
            char why[256];
            const char *d = pq_test_arrays_differ(&a[i], &b[i], &sa[i], why, sizeof why);
            ck_assert_msg(!d, "%s: batch %zu: %s", files[f], i, d);
            a[i].release(&a[i]);
            b[i].release(&b[i]);
            sa[i].release(&sa[i]);
            sb[i].release(&sb[i]);
        }
        compared += sta == PQ_OK && ps.chunks > 0;
    }
    pq_test_free_files(files, nf);
    ck_assert_int_gt(compared, 20);
    pq_file_maps_set_limit(PQ_FILE_MAPS_DEFAULT);
}
END_TEST

/* All batches of a path reader over `path` equal those of a memory reader
 * over im's bytes. */
static void assert_path_reads_as(const char *path, const image *im)
{
    enum { CAP = 64 };
    struct ArrowArray a[CAP], b[CAP];
    struct ArrowSchema sa[CAP], sb[CAP];
    size_t na, nb;
    pq_error ea, eb;
    pq_reader *ra = pq_reader_open_path(path, NULL, &ea);
    ck_assert_msg(ra, "%s", ea.message);
    ck_assert_int_eq(all_batches(ra, a, sa, CAP, &na, &ea), PQ_OK);
    pq_page_header_stats ps;
    pq_reader_page_header_stats(ra, &ps, sizeof ps);
    ck_assert_uint_eq(ps.io.reads, 0); /* mapped */
    pq_reader_close(ra);
    pq_reader *rb = pq_reader_open_memory(im->data, im->len, NULL, &eb);
    ck_assert_msg(rb, "%s", eb.message);
    ck_assert_int_eq(all_batches(rb, b, sb, CAP, &nb, &eb), PQ_OK);
    pq_reader_close(rb);
    ck_assert_uint_eq(na, nb);
    ck_assert_uint_gt(na, 0);
    for (size_t i = 0; i < na; i++) {
        char why[256];
        const char *d = pq_test_arrays_differ(&a[i], &b[i], &sa[i], why, sizeof why);
        ck_assert_msg(!d, "%s: batch %zu: %s", im->path, i, d);
        a[i].release(&a[i]);
        b[i].release(&b[i]);
        sa[i].release(&sa[i]);
        sb[i].release(&sb[i]);
    }
}

static void write_file(const char *path, const image *im)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(im->data, 1, im->len, f), im->len);
    ck_assert_int_eq(fclose(f), 0);
}

/* The mapping a closed reader leaves kept serves the next reader of the
 * same file, and only of the same file: one replaced under its path (a new
 * inode) or rewritten in place (a new size) reads as its new bytes. The
 * oracle is a memory reader over each file's bytes. */
START_TEST(a_kept_map_follows_the_file)
{
    image a = load(SMALL), b = load(TINY_PAGES);
    char path[] = "/tmp/pqstep-keptXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    pq_file_maps_set_limit(0); /* none kept from earlier tests */
    pq_file_maps_set_limit(PQ_FILE_MAPS_DEFAULT);
    write_file(path, &a);
    assert_path_reads_as(path, &a);
    ck_assert_uint_eq(pq_file_maps_idle(), 1);
    assert_path_reads_as(path, &a); /* the kept one, taken and given back */
    ck_assert_uint_eq(pq_file_maps_idle(), 1);

    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    write_file(tmp, &b);
    ck_assert_int_eq(rename(tmp, path), 0); /* replaced: a new inode */
    assert_path_reads_as(path, &b);
    ck_assert_uint_eq(pq_file_maps_idle(), 2); /* the old inode's stays until it ages or the limit */

    write_file(path, &a); /* in place: the same inode, another size */
    assert_path_reads_as(path, &a);
    ck_assert_uint_eq(pq_file_maps_idle(), 2); /* its old identity's map went */

    pq_file_maps_set_limit(1);
    ck_assert_uint_eq(pq_file_maps_idle(), 1);
    pq_file_maps_set_limit(0);
    ck_assert_uint_eq(pq_file_maps_idle(), 0);
    assert_path_reads_as(path, &a); /* mapped, not kept */
    ck_assert_uint_eq(pq_file_maps_idle(), 0);
    pq_file_maps_set_limit(PQ_FILE_MAPS_DEFAULT);
    unlink(path);
    unload(&a);
    unload(&b);
}
END_TEST

/* A file truncated after the footer stage: the map is refused (the size
 * changed) and the page-header stage fails with PQ_ERR_IO, as by pread;
 * no SIGBUS. */
START_TEST(truncated_after_open_fails_cleanly)
{
    image im = load(SMALL);
    char path[] = "/tmp/pqstep-truncXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, im.data, im.len), (ssize_t)im.len);
    pq_error err;
    pq_reader *r = pq_reader_open_path(path, NULL, &err);
    ck_assert_msg(r, "%s", err.message);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_SELECT, &err), PQ_OK);
    ck_assert_int_eq(ftruncate(fd, 64), 0);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err), PQ_ERR_IO);
    ck_assert_msg(strstr(err.message, "shrank") || strstr(err.message, "past the end"), "%s", err.message);
    pq_reader_close(r);
    close(fd);
    unlink(path);
    unload(&im);
}
END_TEST

int main(void)
{
    if (!pq_test_corpus_dir()) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    Suite *s = suite_create("reader");
    TCase *tc = tcase_create("footer stage");
    tcase_add_test(tc, path_reader_reaches_footer);
    tcase_add_test(tc, mapped_file_batches_outlive_reader);
    tcase_add_test(tc, truncated_after_open_fails_cleanly);
    tcase_add_test(tc, a_kept_map_follows_the_file);
    tcase_add_test(tc, two_reads_when_footer_exceeds_tail);
    tcase_add_test(tc, sans_io_reports_and_accepts_ranges);
    tcase_add_test(tc, sans_io_coalesced);
    tcase_add_test(tc, caller_source_and_memory);
    tcase_add_test(tc, reuse_metadata_and_footer_bytes);
    tcase_add_test(tc, cache_open_parses_once);
    tcase_add_test(tc, bad_files_give_clean_errors);
    tcase_add_test(tc, projection_skips_other_chunks);
    tcase_add_test(tc, parse_tail_needs_and_magic);
    tcase_add_test(tc, select_and_page_headers);
    tcase_add_test(tc, sans_io_page_headers);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
