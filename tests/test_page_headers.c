/*
 * test_page_headers.c — the page-header layer (pages/page_header.h,
 * pages/page_walk.h) over the whole corpus and on hostile hand-built bytes.
 *
 * Oracles: CATALOG.md's per-file facts (page counts by type, page CRC
 * results, found by an independent Python walker), the chunks' own
 * meta_data.num_values, the standard CRC-32 check value, and hand-encoded
 * Thrift compact bytes whose fields are known by construction.
 */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pages/page_header.h"
#include "pages/page_walk.h"
#include "pqstep.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------
 * The corpus: every .parquet under data/ and bad_data/
 * ------------------------------------------------------------------------- */

static char **files;
static int nfiles;
static char *catalog;

static void list_corpus(void)
{
    nfiles = pq_test_corpus_files(&files);
}

/* ---------------------------------------------------------------------------
 * CATALOG.md facts for one file
 * ------------------------------------------------------------------------- */

typedef struct facts {
    int found;
    int walk_failed;      /* "page walk FAILED": counts cover readable pages only */
    long v1, v2, index;   /* data pages by type */
    long dict;            /* dictionary pages */
    long crc_ok, crc_bad; /* page CRC results */
} facts;

/* "<key>: ... xN" inside [s, end): the N after `tag` + " x", or 0. */
static long count_after(const char *s, const char *end, const char *tag)
{
    size_t tl = strlen(tag);
    for (const char *p = s; p && p < end; p++) {
        p = strstr(p, tag);
        if (!p || p >= end) break;
        if (strncmp(p + tl, " x", 2) == 0) return strtol(p + tl + 2, NULL, 10);
    }
    return 0;
}

static facts catalog_facts(const char *file)
{
    facts f = {0};
    char key[512];
    snprintf(key, sizeof key, "| `%s` |", file);
    const char *line = strstr(catalog, key);
    if (!line) return f;
    const char *eol = strchr(line, '\n');
    if (!eol) eol = line + strlen(line);
    f.found = 1;
    const char *w = strstr(line, "page walk FAILED");
    f.walk_failed = w && w < eol;
    const char *dp = strstr(line, "data pages: ");
    if (dp && dp < eol) {
        const char *semi = strchr(dp, ';');
        if (!semi || semi > eol) semi = eol;
        f.v1 = count_after(dp, semi, "v1");
        f.v2 = count_after(dp, semi, "v2");
        f.index = count_after(dp, semi, "INDEX_PAGE");
    }
    const char *d = strstr(line, "dictionary: yes (");
    if (d && d < eol) f.dict = strtol(d + strlen("dictionary: yes ("), NULL, 10);
    const char *c = strstr(line, "page CRC: ");
    if (c && c < eol) {
        const char *semi = strchr(c, ';');
        if (!semi || semi > eol) semi = eol;
        const char *bar = strchr(c, '|');
        if (bar && bar < semi) semi = bar;
        f.crc_ok = count_after(c, semi, "ok");
        f.crc_bad = count_after(c, semi, "MISMATCH");
    }
    return f;
}

/* ---------------------------------------------------------------------------
 * Walking a whole file
 * ------------------------------------------------------------------------- */

#define MAX_ERRORS 8

typedef struct file_walk {
    pq_status footer_status;
    long chunks, failed;
    long range_failed;    /* chunks whose byte range was refused (never walked) */
    long v1, v2, index, dict;
    long with_crc;        /* pages carrying a CRC */
    uint32_t max_header;  /* the longest page header's bytes */
    pq_page_walk_counters counters;
    /* the first failures: row group, column, path and message */
    struct {
        int rg, col;
        char path[128];
        pq_status code;
        char message[PQ_ERROR_MESSAGE_SIZE];
        size_t pages_before; /* pages walked before the failure */
    } err[MAX_ERRORS];
    int nerr;
} file_walk;

/* read_at over a file in memory (pq_page_walk_read's source here). */
typedef struct mem_file {
    const uint8_t *bytes;
    size_t len;
    size_t reads;
} mem_file;

static pq_status mem_read_at(void *user, uint64_t offset, size_t len, void *dst, pq_error *err)
{
    mem_file *m = user;
    if (offset > m->len || len > m->len - offset) {
        snprintf(err->message, sizeof err->message, "read past the end");
        return err->code = PQ_ERR_IO;
    }
    memcpy(dst, m->bytes + offset, len);
    m->reads++;
    return PQ_OK;
}

/* The walk with its headers read a header at a time (pq_page_walk_read)
 * finds what the walk over the bytes found: the same status, message and
 * pages, in no more reads than twice the pages and a few. */
static void same_walk_by_reads(const uint8_t *file, size_t len, uint64_t off, uint64_t clen, int64_t num_values,
                               unsigned flags, pq_status want, const pq_page_info *want_pages, size_t want_n,
                               const pq_error *want_err, const char *rel)
{
    mem_file m = {file, len, 0};
    pq_page_info *pages = NULL;
    size_t n = 0;
    pq_error e = {0};
    pq_status st = pq_page_walk_read(mem_read_at, &m, off, clen, num_values, flags, &pages, &n, NULL, &e);
    ck_assert_msg(st == want, "%s: by reads %s, in memory %s (%s)", rel, pq_status_name(st), pq_status_name(want),
                  e.message);
    if (st != PQ_OK && strstr(want_err->message, "page ") == want_err->message)
        ck_assert_msg(strncmp(e.message, want_err->message, 24) == 0, "%s: '%s' against '%s'", rel, e.message,
                      want_err->message);
    ck_assert_uint_eq(n, want_n);
    if (n) ck_assert_mem_eq(pages, want_pages, n * sizeof *pages);
    if (st == PQ_OK) ck_assert_uint_le(m.reads, 2 * n + 4);
    free(pages);
}

static void walk_file(const char *rel, unsigned flags, file_walk *out)
{
    memset(out, 0, sizeof *out);
    char *path = pq_test_corpus_path(rel);
    size_t len = 0;
    uint8_t *file = NULL;
    pq_error err = {0};
    pq_metadata *md = pq_test_read_parsed(path, &file, &len, &err);
    if (!md) {
        out->footer_status = err.code;
        free(path);
        return;
    }
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_schema *schema = pq_metadata_schema(md);
    for (uint32_t rg = 0; rg < fm->row_groups_len; rg++) {
        const pq_row_group *g = &fm->row_groups[rg];
        for (uint32_t col = 0; col < g->columns_len; col++) {
            const pq_column_chunk *cc = g->columns[col];
            out->chunks++;
            uint64_t off = 0, clen = 0;
            pq_page_info *pages = NULL;
            size_t n = 0;
            pq_error e = {0};
            pq_status st = pq_chunk_byte_range_for_writer(cc, fm->created_by, len, &off, &clen, &e);
            if (st == PQ_OK) {
                ck_assert_uint_le(off + clen, len);
                /* the pages fill the chunk exactly, unless the range was padded */
                unsigned f = flags;
                if (!pq_writer_undercounts_chunk_size(fm->created_by)) f |= PQ_WALK_EXACT_END;
                st = pq_page_walk(file + off, clen, cc->meta_data.num_values, f, &pages, &n,
                                  &out->counters, &e);
                if (!(f & PQ_WALK_VERIFY_CRC)) same_walk_by_reads(file, len, off, clen, cc->meta_data.num_values, f,
                                                                 st, pages, n, &e, rel);
            }
            else out->range_failed++;
            for (size_t i = 0; i < n; i++) {
                const pq_page_info *p = &pages[i];
                /* every page lies inside the chunk, headers back to back */
                ck_assert_uint_eq(p->data_offset, p->header_offset + p->header_len);
                ck_assert_uint_le(p->data_offset + (uint64_t)p->compressed_size, clen);
                if (i) ck_assert_uint_eq(p->header_offset,
                                         pages[i - 1].data_offset + (uint64_t)pages[i - 1].compressed_size);
                else ck_assert_uint_eq(p->header_offset, 0);
                out->v1 += p->type == PQ_PAGE_DATA;
                out->v2 += p->type == PQ_PAGE_DATA_V2;
                out->index += p->type == PQ_PAGE_INDEX;
                out->dict += p->type == PQ_PAGE_DICTIONARY;
                out->with_crc += p->has_crc;
                if (p->header_len > out->max_header) out->max_header = p->header_len;
            }
            if (st != PQ_OK) {
                out->failed++;
                ck_assert_msg(st == e.code && e.message[0], "%s: status and error disagree", rel);
                if (out->nerr < MAX_ERRORS) {
                    int k = out->nerr++;
                    out->err[k].rg = (int)rg;
                    out->err[k].col = (int)col;
                    out->err[k].code = st;
                    out->err[k].pages_before = n;
                    snprintf(out->err[k].path, sizeof out->err[k].path, "%s",
                             col < schema->leaves_len ? schema->leaves[col].path : "?");
                    snprintf(out->err[k].message, sizeof out->err[k].message, "%s", e.message);
                }
            }
            free(pages);
        }
    }
    pq_metadata_release(md);
    free(file);
    free(path);
}

static const char *find_error(const file_walk *w, const char *column, int rg)
{
    for (int i = 0; i < w->nerr; i++)
        if (strcmp(w->err[i].path, column) == 0 && (rg < 0 || w->err[i].rg == rg))
            return w->err[i].message;
    return NULL;
}

static int is_bad(const char *rel)
{
    return strncmp(rel, "bad_data/", 9) == 0;
}

/* bad_data files whose page headers (or chunk ranges) are broken, and how
 * many chunks each must fail; every other file walks cleanly. */
static const struct {
    const char *file;
    long failed;
} broken_walks[] = {
    /* INDEX_PAGE where a data page belongs: the chunk comes up short */
    {"bad_data/ARROW-GH-41317.parquet", 1},
    /* large_binary's data page header was altered (it now ends 4 bytes
     * early, leaving 4 bytes after the last page); a dictionary page has
     * num_values -4 */
    {"bad_data/ARROW-GH-41321.parquet", 2},
    /* num_values -26; two chunks point past the end of the truncated file;
     * and nation_key's data page header sends num_values with wire type i16,
     * which Thrift's generated readers skip (then miss the required field) */
    {"bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet", 4},
    /* the data page claims 21 values, the chunk 1 */
    {"bad_data/ARROW-RS-GH-6229-LEVELS.parquet", 1},
};

static long expected_failures(const char *rel)
{
    for (size_t i = 0; i < sizeof broken_walks / sizeof broken_walks[0]; i++)
        if (strcmp(broken_walks[i].file, rel) == 0) return broken_walks[i].failed;
    return 0;
}

/* Every file: walks as expected, page counts and CRC counts as CATALOG.md. */
START_TEST(test_corpus_file)
{
    const char *rel = files[_i];
    file_walk w;
    walk_file(rel, 0, &w);
    if (strcmp(rel, "bad_data/PARQUET-1481.parquet") == 0) {
        /* the one broken footer: no pages to walk */
        ck_assert_int_eq(w.footer_status, PQ_ERR_CORRUPT_FOOTER);
        return;
    }
    ck_assert_msg(w.footer_status == PQ_OK, "%s: footer: %s", rel, pq_status_name(w.footer_status));
    long want_failed = expected_failures(rel);
    ck_assert_msg(w.failed == want_failed, "%s: %ld of %ld chunks failed (expected %ld); first: %s",
                  rel, w.failed, w.chunks, want_failed, w.nerr ? w.err[0].message : "-");
    for (int i = 0; i < w.nerr; i++)
        ck_assert_int_eq(w.err[i].code, PQ_ERR_CORRUPT_DATA);
    if (!is_bad(rel)) ck_assert_int_eq(w.failed, 0);

    facts f = catalog_facts(rel);
    ck_assert_msg(f.found, "%s: not in CATALOG.md", rel);
    if (!f.walk_failed) {
        ck_assert_msg(w.v1 == f.v1 && w.v2 == f.v2 && w.index == f.index && w.dict == f.dict,
                      "%s: pages v1 %ld v2 %ld index %ld dict %ld; CATALOG.md: %ld %ld %ld %ld",
                      rel, w.v1, w.v2, w.index, w.dict, f.v1, f.v2, f.index, f.dict);
        ck_assert_msg(w.with_crc == f.crc_ok + f.crc_bad, "%s: %ld pages with a CRC, CATALOG.md %ld",
                      rel, w.with_crc, f.crc_ok + f.crc_bad);
    }
    /* the counters saw the same pages */
    ck_assert_uint_eq(w.counters.walks, (uint64_t)(w.chunks - w.range_failed));
    ck_assert_uint_eq(w.counters.data_pages, (uint64_t)(w.v1 + w.v2));
    ck_assert_uint_eq(w.counters.dictionary_pages, (uint64_t)w.dict);
    ck_assert_uint_eq(w.counters.index_pages, (uint64_t)w.index);
    ck_assert_uint_eq(w.counters.pages, (uint64_t)(w.v1 + w.v2 + w.dict + w.index));
    ck_assert_uint_eq(w.counters.crc_checked, 0);

    /* With CRC checking: each mismatch fails its chunk (no file has two in
     * one chunk); matching CRCs all pass. */
    if (want_failed == 0) {
        file_walk c;
        walk_file(rel, PQ_WALK_VERIFY_CRC, &c);
        ck_assert_msg(c.failed == f.crc_bad, "%s: %ld chunks failed the CRC check, CATALOG.md %ld "
                      "mismatches; first: %s", rel, c.failed, f.crc_bad, c.nerr ? c.err[0].message : "-");
        for (int i = 0; i < c.nerr; i++)
            ck_assert_msg(strstr(c.err[i].message, "CRC mismatch") != NULL, "%s: %s", rel,
                          c.err[i].message);
        if (f.crc_bad == 0) ck_assert_uint_eq(c.counters.crc_checked, (uint64_t)f.crc_ok);
    }
}
END_TEST

/* Page headers longer than the first read of a walk by reads (512 bytes:
 * geospatial statistics of 4,817 bytes) are read again, longer, and walk
 * as in memory (walk_file compares every chunk both ways). */
START_TEST(test_long_headers_walked_by_reads)
{
    file_walk w;
    walk_file("data/geospatial/crs-default.parquet", 0, &w);
    ck_assert_int_eq(w.footer_status, PQ_OK);
    ck_assert_int_eq(w.failed, 0);
    ck_assert_uint_gt(w.max_header, 512);
}
END_TEST

START_TEST(test_every_file_listed)
{
    /* 83 Parquet files (CATALOG.md: 87 files, of which 4 are CSV) */
    ck_assert_int_eq(nfiles, 83);
    size_t nrows = 0;
    pq_test_manifest_row *rows = pq_test_manifest(&nrows);
    ck_assert_ptr_nonnull(rows);
    int listed = 0;
    for (size_t i = 0; i < nrows; i++) {
        size_t n = strlen(rows[i].file);
        if (n > 8 && strcmp(rows[i].file + n - 8, ".parquet") == 0) listed++;
    }
    ck_assert_int_eq(listed, nfiles);
    free(rows);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Named facts
 * ------------------------------------------------------------------------- */

START_TEST(test_tiny_pages)
{
    file_walk w;
    walk_file("data/alltypes_tiny_pages.parquet", 0, &w);
    ck_assert_int_eq(w.chunks, 13);
    ck_assert_int_eq(w.failed, 0);
    ck_assert_int_eq(w.v1, 5794);
    ck_assert_int_eq(w.v2, 0);
    ck_assert_int_eq(w.dict, 11);
    walk_file("data/overflow_i16_page_cnt.parquet", 0, &w);
    ck_assert_int_eq(w.chunks, 1);
    ck_assert_int_eq(w.v1, 40000);
    ck_assert_int_eq(w.failed, 0);
}
END_TEST

START_TEST(test_datapage_v2)
{
    char *path = pq_test_corpus_path("data/datapage_v2.snappy.parquet");
    size_t len = 0;
    uint8_t *file = pq_test_read_file(path, &len);
    ck_assert_ptr_nonnull(file);
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse_tail(file, len, NULL, NULL, &err);
    ck_assert_ptr_nonnull(md);
    const pq_file_metadata *fm = pq_metadata_file(md);
    ck_assert_uint_eq(fm->row_groups[0].columns_len, 5);
    int v2 = 0, dict = 0;
    for (uint32_t c = 0; c < 5; c++) {
        const pq_column_chunk *cc = fm->row_groups[0].columns[c];
        uint64_t off, clen;
        ck_assert_int_eq(pq_chunk_byte_range(cc, len, &off, &clen, &err), PQ_OK);
        pq_page_info *pages;
        size_t n;
        ck_assert_int_eq(pq_page_walk(file + off, clen, cc->meta_data.num_values, 0, &pages, &n,
                                      NULL, &err), PQ_OK);
        for (size_t i = 0; i < n; i++) {
            if (pages[i].type == PQ_PAGE_DICTIONARY) {
                dict++;
                continue;
            }
            ck_assert_int_eq(pages[i].type, PQ_PAGE_DATA_V2);
            v2++;
            /* 5 rows per page; CATALOG.md: no v2 page sets is_compressed=false */
            ck_assert_int_eq(pages[i].num_rows, 5);
            ck_assert(pages[i].is_compressed);
            ck_assert_int_le(pages[i].num_nulls, pages[i].num_values);
            ck_assert_int_le(pages[i].def_levels_byte_length + pages[i].rep_levels_byte_length,
                             pages[i].compressed_size);
            ck_assert_int_eq(pages[i].def_level_encoding, 0);
        }
        free(pages);
    }
    ck_assert_int_eq(v2, 5);
    ck_assert_int_eq(dict, 3);
    pq_metadata_release(md);
    free(file);
    free(path);
}
END_TEST

START_TEST(test_corrupt_checksums)
{
    file_walk w;
    walk_file("data/datapage_v1-corrupt-checksum.parquet", PQ_WALK_VERIFY_CRC, &w);
    ck_assert_int_eq(w.chunks, 2);
    ck_assert_int_eq(w.failed, 2);
    const char *a = find_error(&w, "a", 0), *b = find_error(&w, "b", 0);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    /* 1st page of a, 2nd page of b; the message carries both CRCs */
    const char *pa = "page 0 at chunk offset 0: CRC mismatch: header says 0x";
    const char *pb = "page 1 at chunk offset ";
    ck_assert_msg(strncmp(a, pa, strlen(pa)) == 0, "%s", a);
    ck_assert_msg(strncmp(b, pb, strlen(pb)) == 0, "%s", b);
    ck_assert_msg(strstr(b, "CRC mismatch") && strstr(b, "page data has 0x"), "%s", b);
    ck_assert_uint_eq(w.err[0].pages_before + w.err[1].pages_before, 1);

    const char *clean[] = {"data/datapage_v1-uncompressed-checksum.parquet",
                           "data/datapage_v1-snappy-compressed-checksum.parquet"};
    for (int i = 0; i < 2; i++) {
        walk_file(clean[i], PQ_WALK_VERIFY_CRC, &w);
        ck_assert_msg(w.failed == 0, "%s: %s", clean[i], w.nerr ? w.err[0].message : "");
        ck_assert_int_eq(w.v1, 4);
        ck_assert_uint_eq(w.counters.crc_checked, 4);
    }
    /* dictionary-page CRCs: both wrong here */
    walk_file("data/rle-dict-uncompressed-corrupt-checksum.parquet", PQ_WALK_VERIFY_CRC, &w);
    ck_assert_int_eq(w.failed, 2);
    for (int i = 0; i < w.nerr; i++) {
        ck_assert_msg(strstr(w.err[i].message, "page 0 at chunk offset 0: CRC mismatch"), "%s",
                      w.err[i].message);
        ck_assert_uint_eq(w.err[i].pages_before, 0);
    }
}
END_TEST

START_TEST(test_broken_headers)
{
    file_walk w;
    walk_file("bad_data/ARROW-GH-41321.parquet", 0, &w);
    const char *lb = find_error(&w, "large_binary", 0);
    ck_assert_msg(lb != NULL, "large_binary did not fail");
    ck_assert_msg(strstr(lb, "4 bytes of the column chunk follow its last page") != NULL, "%s", lb);
    int dict_neg = 0;
    for (int i = 0; i < w.nerr; i++)
        dict_neg += w.err[i].rg == 1 &&
                    strstr(w.err[i].message, "PageHeader.dictionary_page_header.num_values: -4") != NULL;
    ck_assert_int_eq(dict_neg, 1);

    walk_file("bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet", 0, &w);
    ck_assert_int_eq(w.chunks, 4);
    ck_assert_int_eq(w.failed, 4);
    const char *key = find_error(&w, "nation_key", 0);
    ck_assert_ptr_nonnull(key);
    ck_assert_msg(strstr(key, "PageHeader.data_page_header.num_values: required field missing"),
                  "%s", key);
    const char *name = find_error(&w, "name", 0);
    ck_assert_ptr_nonnull(name);
    ck_assert_msg(strstr(name, "page 0 at chunk offset 0: PageHeader.dictionary_page_header.num_values: -26"),
                  "%s", name);
    for (int i = 0; i < w.nerr; i++)
        if (w.err[i].col >= 2) ck_assert_msg(strstr(w.err[i].message, "runs past"), "%s", w.err[i].message);

    walk_file("bad_data/ARROW-GH-41317.parquet", 0, &w);
    ck_assert_int_eq(w.index, 1);
    const char *ts = find_error(&w, "timestamp_us_no_tz", 0);
    ck_assert_ptr_nonnull(ts);
    ck_assert_msg(strstr(ts, "data pages hold 0 values, the column chunk declares 3"), "%s", ts);

    walk_file("bad_data/ARROW-RS-GH-6229-LEVELS.parquet", 0, &w);
    ck_assert_int_eq(w.failed, 1);
    ck_assert_str_eq(w.err[0].message, "data pages hold 21 values, the column chunk declares 1");
}
END_TEST

/* Chunk ranges the walk needs the writer fix-ups for. */
START_TEST(test_range_fixups)
{
    file_walk w;
    /* dictionary_page_offset 0: absent */
    walk_file("data/dict-page-offset-zero.parquet", 0, &w);
    ck_assert_int_eq(w.failed, 0);
    ck_assert_int_eq(w.v1, 1);
    /* data_page_offset 0 in chunks holding only a dictionary page */
    walk_file("data/column_chunk_key_value_metadata.parquet", 0, &w);
    ck_assert_int_eq(w.failed, 0);
    ck_assert_int_eq(w.dict, 2);
    ck_assert_int_eq(w.v1 + w.v2, 0);
    /* total_compressed_size without the dictionary page header (bare parquet-mr) */
    walk_file("data/nation.dict-malformed.parquet", 0, &w);
    ck_assert_int_eq(w.failed, 0);
    ck_assert_int_eq(w.dict, 2);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Hand-built bytes: a tiny compact encoder
 * ------------------------------------------------------------------------- */

typedef struct enc {
    uint8_t b[512];
    size_t n;
    int16_t last[8];
    int depth;
} enc;

static void put(enc *e, uint8_t v)
{
    ck_assert_uint_lt(e->n, sizeof e->b);
    e->b[e->n++] = v;
}

static void uvar(enc *e, uint64_t v)
{
    while (v >= 0x80) {
        put(e, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    put(e, (uint8_t)v);
}

static void zz(enc *e, int64_t v)
{
    uvar(e, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void field(enc *e, int16_t id, int type)
{
    int16_t delta = (int16_t)(id - e->last[e->depth]);
    if (delta > 0 && delta <= 15) {
        put(e, (uint8_t)(delta << 4 | type));
    } else {
        put(e, (uint8_t)type);
        zz(e, id);
    }
    e->last[e->depth] = id;
}

static void i32f(enc *e, int16_t id, int64_t v)
{
    field(e, id, 5);
    zz(e, v);
}

static void begin(enc *e, int16_t id)
{
    field(e, id, 12);
    e->last[++e->depth] = 0;
}

static void stop(enc *e)
{
    put(e, 0);
    if (e->depth) e->depth--;
}

/* A DATA_PAGE header: sizes, crc (when has_crc), num_values, PLAIN, RLE, RLE. */
static void v1_header(enc *e, int32_t usize, int32_t csize, int has_crc, uint32_t crc, int32_t nv)
{
    i32f(e, 1, PQ_PAGE_DATA);
    i32f(e, 2, usize);
    i32f(e, 3, csize);
    if (has_crc) i32f(e, 4, (int32_t)crc);
    begin(e, 5);
    i32f(e, 1, nv);
    i32f(e, 2, PQ_ENC_PLAIN);
    i32f(e, 3, PQ_ENC_RLE);
    i32f(e, 4, PQ_ENC_RLE);
    stop(e);
    stop(e);
}

static void v2_header(enc *e, int32_t csize, int32_t dl, int32_t rl, int is_compressed)
{
    i32f(e, 1, PQ_PAGE_DATA_V2);
    i32f(e, 2, csize);
    i32f(e, 3, csize);
    begin(e, 8);
    i32f(e, 1, 10);
    i32f(e, 2, 2);
    i32f(e, 3, 10);
    i32f(e, 4, PQ_ENC_DELTA_BINARY_PACKED);
    i32f(e, 5, dl);
    i32f(e, 6, rl);
    if (is_compressed >= 0) field(e, 7, is_compressed ? 1 : 2);
    stop(e);
    stop(e);
}

static pq_status decode(const enc *e, pq_page_header *h, size_t *hl, pq_error *err)
{
    memset(err, 0, sizeof *err);
    return pq_page_header_decode(e->b, e->n, h, hl, err);
}

static void expect_error(const enc *e, const char *msg)
{
    pq_page_header h;
    size_t hl = 12345;
    pq_error err;
    pq_status st = decode(e, &h, &hl, &err);
    ck_assert_msg(st == PQ_ERR_CORRUPT_DATA, "expected an error with \"%s\", got %s", msg,
                  pq_status_name(st));
    ck_assert_int_eq(err.code, PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, msg) != NULL, "\"%s\" lacks \"%s\"", err.message, msg);
    ck_assert_uint_eq(hl, 12345);
}

START_TEST(test_decode_v1)
{
    enc e = {0};
    v1_header(&e, 100, 60, 1, 0xCBF43926u, 7);
    pq_page_header h;
    size_t hl = 0;
    pq_error err;
    ck_assert_int_eq(decode(&e, &h, &hl, &err), PQ_OK);
    ck_assert_uint_eq(hl, e.n);
    ck_assert_int_eq(h.type, PQ_PAGE_DATA);
    ck_assert_int_eq(h.uncompressed_page_size, 100);
    ck_assert_int_eq(h.compressed_page_size, 60);
    ck_assert(h.has_crc);
    ck_assert_uint_eq(h.crc, 0xCBF43926u);
    ck_assert_uint_eq(h.set, PQ_PH_HAS_DATA_PAGE_HEADER);
    ck_assert_int_eq(h.data_page_header.num_values, 7);
    ck_assert_int_eq(h.data_page_header.encoding, PQ_ENC_PLAIN);
    ck_assert_int_eq(h.data_page_header.definition_level_encoding, PQ_ENC_RLE);
    ck_assert_int_eq(h.data_page_header.repetition_level_encoding, PQ_ENC_RLE);
    ck_assert_uint_eq(h.data_page_header.set, 0);

    /* trailing bytes are not part of the header */
    enc more = e;
    put(&more, 0xAB);
    put(&more, 0xCD);
    ck_assert_int_eq(decode(&more, &h, &hl, &err), PQ_OK);
    ck_assert_uint_eq(hl, e.n);

    /* every cut is an error, never a read past the span */
    for (size_t cut = 0; cut < e.n; cut++) {
        enc t = e;
        t.n = cut;
        pq_status st = decode(&t, &h, &hl, &err);
        ck_assert_msg(st == PQ_ERR_CORRUPT_DATA, "cut at %zu decoded", cut);
        ck_assert_msg(strstr(err.message, "PageHeader") != NULL, "%s", err.message);
    }
    /* the malloc'd exact-size copy catches overreads under ASan */
    for (size_t cut = 0; cut <= e.n; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, e.b, cut);
        pq_status st = pq_page_header_decode(copy, cut, &h, &hl, &err);
        ck_assert_int_eq(st, cut == e.n ? PQ_OK : PQ_ERR_CORRUPT_DATA);
        free(copy);
    }
}
END_TEST

START_TEST(test_decode_v2_and_dict)
{
    enc e = {0};
    v2_header(&e, 50, 3, 4, -1);
    pq_page_header h;
    size_t hl;
    pq_error err;
    ck_assert_int_eq(decode(&e, &h, &hl, &err), PQ_OK);
    ck_assert_uint_eq(hl, e.n);
    const pq_data_page_header_v2 *v2 = &h.data_page_header_v2;
    ck_assert(v2->is_compressed); /* the IDL default */
    ck_assert_uint_eq(v2->set, 0);
    ck_assert_int_eq(v2->num_values, 10);
    ck_assert_int_eq(v2->num_nulls, 2);
    ck_assert_int_eq(v2->num_rows, 10);
    ck_assert_int_eq(v2->encoding, PQ_ENC_DELTA_BINARY_PACKED);
    ck_assert_int_eq(v2->definition_levels_byte_length, 3);
    ck_assert_int_eq(v2->repetition_levels_byte_length, 4);
    ck_assert(!h.has_crc);

    enc f = {0};
    v2_header(&f, 50, 3, 4, 0);
    ck_assert_int_eq(decode(&f, &h, &hl, &err), PQ_OK);
    ck_assert(!h.data_page_header_v2.is_compressed);
    ck_assert_uint_eq(h.data_page_header_v2.set, PQ_DPH2_HAS_IS_COMPRESSED);

    /* dictionary page, is_sorted true, then an unknown field 20 (a binary)
     * and an unknown struct in the sub-header: skipped */
    enc d = {0};
    i32f(&d, 1, PQ_PAGE_DICTIONARY);
    i32f(&d, 2, 8);
    i32f(&d, 3, 8);
    begin(&d, 7);
    i32f(&d, 1, 2);
    i32f(&d, 2, PQ_ENC_PLAIN);
    field(&d, 3, 1);
    begin(&d, 9);
    i32f(&d, 1, 5);
    stop(&d);
    stop(&d);
    field(&d, 20, 8);
    uvar(&d, 3);
    put(&d, 'x');
    put(&d, 'y');
    put(&d, 'z');
    stop(&d);
    ck_assert_int_eq(decode(&d, &h, &hl, &err), PQ_OK);
    ck_assert_uint_eq(hl, d.n);
    ck_assert_int_eq(h.type, PQ_PAGE_DICTIONARY);
    ck_assert_uint_eq(h.set, PQ_PH_HAS_DICTIONARY_PAGE_HEADER);
    ck_assert_int_eq(h.dictionary_page_header.num_values, 2);
    ck_assert(h.dictionary_page_header.is_sorted);
    ck_assert_uint_eq(h.dictionary_page_header.set, PQ_DICT_HAS_IS_SORTED);

    /* fields out of order decode the same */
    enc o = {0};
    begin(&o, 5);
    i32f(&o, 4, PQ_ENC_RLE);
    i32f(&o, 1, 9);
    i32f(&o, 3, PQ_ENC_BIT_PACKED);
    i32f(&o, 2, PQ_ENC_PLAIN_DICTIONARY);
    stop(&o);
    i32f(&o, 3, 11);
    i32f(&o, 1, PQ_PAGE_DATA);
    i32f(&o, 2, 22);
    stop(&o);
    ck_assert_int_eq(decode(&o, &h, &hl, &err), PQ_OK);
    ck_assert_uint_eq(hl, o.n);
    ck_assert_int_eq(h.compressed_page_size, 11);
    ck_assert_int_eq(h.uncompressed_page_size, 22);
    ck_assert_int_eq(h.data_page_header.num_values, 9);
    ck_assert_int_eq(h.data_page_header.encoding, PQ_ENC_PLAIN_DICTIONARY);
    ck_assert_int_eq(h.data_page_header.definition_level_encoding, PQ_ENC_BIT_PACKED);

    /* page statistics: spans into the input */
    enc s = {0};
    i32f(&s, 1, PQ_PAGE_DATA);
    i32f(&s, 2, 4);
    i32f(&s, 3, 4);
    begin(&s, 5);
    i32f(&s, 1, 1);
    i32f(&s, 2, 0);
    i32f(&s, 3, 3);
    i32f(&s, 4, 3);
    begin(&s, 5);
    field(&s, 3, 6);
    zz(&s, 0);
    field(&s, 5, 8);
    uvar(&s, 2);
    put(&s, 'h');
    put(&s, 'i');
    field(&s, 7, 1);
    stop(&s);
    stop(&s);
    stop(&s);
    ck_assert_int_eq(decode(&s, &h, &hl, &err), PQ_OK);
    const pq_statistics *st = &h.data_page_header.statistics;
    ck_assert_uint_eq(h.data_page_header.set, PQ_DPH_HAS_STATISTICS);
    ck_assert_uint_eq(st->set, PQ_STATS_HAS_NULL_COUNT | PQ_STATS_HAS_MAX_VALUE | PQ_STATS_HAS_IS_MAX_EXACT);
    ck_assert_uint_eq(st->max_value.len, 2);
    ck_assert(st->max_value.ptr > s.b && st->max_value.ptr < s.b + s.n);
    ck_assert_int_eq(memcmp(st->max_value.ptr, "hi", 2), 0);
    ck_assert(st->is_max_value_exact);
}
END_TEST

START_TEST(test_decode_hostile)
{
    enc e;
    /* negative sizes */
    e = (enc){0};
    v1_header(&e, 100, -1, 0, 0, 1);
    expect_error(&e, "PageHeader.compressed_page_size: -1");
    e = (enc){0};
    v1_header(&e, -7, 1, 0, 0, 1);
    expect_error(&e, "PageHeader.uncompressed_page_size: -7");
    e = (enc){0};
    v1_header(&e, 1, 1, 0, 0, -3);
    expect_error(&e, "PageHeader.data_page_header.num_values: -3");
    /* v2 level lengths */
    e = (enc){0};
    v2_header(&e, 50, -5, 0, 1);
    expect_error(&e, "PageHeader.data_page_header_v2.definition_levels_byte_length: -5");
    e = (enc){0};
    v2_header(&e, 50, 0, -2, 1);
    expect_error(&e, "PageHeader.data_page_header_v2.repetition_levels_byte_length: -2");
    e = (enc){0};
    v2_header(&e, 50, 30, 21, 1);
    expect_error(&e, "level bytes 51 exceed compressed_page_size 50");
    e = (enc){0};
    v2_header(&e, 50, 0x7fffffff, 0x7fffffff, 1); /* no int32 overflow */
    expect_error(&e, "exceed compressed_page_size");
    /* page type out of range */
    e = (enc){0};
    i32f(&e, 1, 4);
    i32f(&e, 2, 0);
    i32f(&e, 3, 0);
    stop(&e);
    expect_error(&e, "PageHeader.type: invalid value 4");
    e = (enc){0};
    i32f(&e, 1, -1);
    i32f(&e, 2, 0);
    i32f(&e, 3, 0);
    stop(&e);
    expect_error(&e, "PageHeader.type: invalid value -1");
    /* INDEX_PAGE needs no sub-header */
    pq_page_header h;
    size_t hl;
    pq_error err;
    ck_assert_int_eq(decode(&e, &h, &hl, &err), PQ_ERR_CORRUPT_DATA);
    e = (enc){0};
    i32f(&e, 1, PQ_PAGE_INDEX);
    i32f(&e, 2, 0);
    i32f(&e, 3, 0);
    stop(&e);
    ck_assert_int_eq(decode(&e, &h, &hl, &err), PQ_OK);
    /* the sub-header the type needs */
    const int types[3] = {PQ_PAGE_DATA, PQ_PAGE_DICTIONARY, PQ_PAGE_DATA_V2};
    const char *names[3] = {"PageHeader.data_page_header: missing",
                            "PageHeader.dictionary_page_header: missing",
                            "PageHeader.data_page_header_v2: missing"};
    for (int i = 0; i < 3; i++) {
        e = (enc){0};
        i32f(&e, 1, types[i]);
        i32f(&e, 2, 0);
        i32f(&e, 3, 0);
        stop(&e);
        expect_error(&e, names[i]);
    }
    /* required fields */
    e = (enc){0};
    i32f(&e, 1, PQ_PAGE_INDEX);
    i32f(&e, 3, 0);
    stop(&e);
    expect_error(&e, "PageHeader.uncompressed_page_size: required field missing");
    e = (enc){0};
    i32f(&e, 1, PQ_PAGE_DICTIONARY);
    i32f(&e, 2, 0);
    i32f(&e, 3, 0);
    begin(&e, 7);
    i32f(&e, 1, 0);
    stop(&e);
    stop(&e);
    expect_error(&e, "PageHeader.dictionary_page_header.encoding: required field missing");
    /* a required field sent with another wire type is skipped, hence missing */
    e = (enc){0};
    field(&e, 1, 8);
    uvar(&e, 0);
    i32f(&e, 2, 0);
    i32f(&e, 3, 0);
    stop(&e);
    expect_error(&e, "PageHeader.type: required field missing");
    /* num_values past int32 on the wire */
    enc big = {0};
    i32f(&big, 1, PQ_PAGE_DATA);
    i32f(&big, 2, 1);
    i32f(&big, 3, 1);
    begin(&big, 5);
    i32f(&big, 1, (int64_t)1 << 40);
    stop(&big);
    stop(&big);
    expect_error(&big, "PageHeader.data_page_header.num_values: malformed value");
    /* a varint that never ends */
    e = (enc){0};
    field(&e, 1, 5);
    for (int i = 0; i < 12; i++) put(&e, 0xff);
    put(&e, 0);
    expect_error(&e, "PageHeader.type: malformed value");
    /* not a compact type (14), as in bad_data/ARROW-GH-41321 */
    e = (enc){0};
    i32f(&e, 1, PQ_PAGE_DATA);
    put(&e, 0x1e);
    put(&e, 0);
    expect_error(&e, "invalid wire type 14");
    /* unknown field nested deeper than the skip allows: an error, no crash */
    e = (enc){0};
    i32f(&e, 1, PQ_PAGE_INDEX);
    i32f(&e, 2, 0);
    i32f(&e, 3, 0);
    for (int i = 0; i < 100; i++) {
        field(&e, 9, 12);
        e.last[0] = 0;
    }
    expect_error(&e, "nesting deeper than");
    /* a binary longer than the span */
    e = (enc){0};
    i32f(&e, 1, PQ_PAGE_INDEX);
    field(&e, 10, 8);
    uvar(&e, 1000);
    expect_error(&e, "PageHeader: truncated");
    /* NULL arguments */
    ck_assert_int_eq(pq_page_header_decode(NULL, 0, &h, &hl, &err), PQ_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Walks over hand-built chunks
 * ------------------------------------------------------------------------- */

/* Append a v1 page with `n` data bytes (filled with 'a'+i) to a chunk. */
static void add_page(uint8_t *chunk, size_t *len, int32_t csize_claim, int has_crc, uint32_t crc,
                     int32_t nv, size_t n)
{
    enc e = {0};
    v1_header(&e, (int32_t)n, csize_claim, has_crc, crc, nv);
    memcpy(chunk + *len, e.b, e.n);
    *len += e.n;
    for (size_t i = 0; i < n; i++) chunk[(*len)++] = (uint8_t)('1' + i);
}

START_TEST(test_walk_hand_built)
{
    uint8_t chunk[1024];
    size_t len = 0;
    /* the CRC-32 check value: CRC of "123456789" is 0xCBF43926 */
    add_page(chunk, &len, 9, 1, 0xCBF43926u, 5, 9);
    size_t second = len;
    add_page(chunk, &len, 9, 0, 0, 4, 9);
    pq_page_info *pages;
    size_t n;
    pq_error err = {0};
    pq_page_walk_counters ctr = {0};
    ck_assert_int_eq(pq_page_walk(chunk, len, 9, PQ_WALK_VERIFY_CRC, &pages, &n, &ctr, &err), PQ_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(pages[0].header_offset, 0);
    ck_assert_uint_eq(pages[0].data_offset + 9, second);
    ck_assert_uint_eq(pages[1].header_offset, second);
    ck_assert_int_eq(pages[0].num_values, 5);
    ck_assert_int_eq(pages[1].num_values, 4);
    ck_assert_int_eq(pages[0].encoding, PQ_ENC_PLAIN);
    ck_assert_int_eq(pages[0].def_level_encoding, PQ_ENC_RLE);
    ck_assert(pages[0].has_crc && !pages[1].has_crc);
    ck_assert_uint_eq(ctr.walks, 1);
    ck_assert_uint_eq(ctr.pages, 2);
    ck_assert_uint_eq(ctr.data_pages, 2);
    ck_assert_uint_eq(ctr.crc_checked, 1);
    ck_assert_uint_eq(ctr.header_bytes, second - 9 + (len - second - 9));
    free(pages);

    /* stop at num_values: trailing garbage is not read */
    uint8_t padded[1024];
    memcpy(padded, chunk, len);
    memset(padded + len, 0xff, 50);
    ck_assert_int_eq(pq_page_walk(padded, len + 50, 9, 0, &pages, &n, NULL, &err), PQ_OK);
    ck_assert_uint_eq(n, 2);
    free(pages);
    /* ... unless the pages must fill the chunk */
    ck_assert_int_eq(pq_page_walk(padded, len + 50, 9, PQ_WALK_EXACT_END, &pages, &n, NULL, &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "50 bytes of the column chunk follow its last page"), "%s",
                  err.message);
    free(pages);
    ck_assert_int_eq(pq_page_walk(chunk, len, 9, PQ_WALK_EXACT_END, &pages, &n, NULL, &err), PQ_OK);
    free(pages);
    /* ... but without a count it is read, and fails */
    ck_assert_int_eq(pq_page_walk(padded, len + 50, -1, 0, &pages, &n, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_uint_eq(n, 2);
    ck_assert_msg(strstr(err.message, "page 2 at chunk offset"), "%s", err.message);
    free(pages);

    /* value count mismatch both ways */
    ck_assert_int_eq(pq_page_walk(chunk, len, 10, 0, &pages, &n, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "data pages hold 9 values, the column chunk declares 10");
    free(pages);
    ck_assert_int_eq(pq_page_walk(chunk, len, 7, 0, &pages, &n, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "data pages hold 9 values, the column chunk declares 7");
    free(pages);

    /* a wrong CRC: both values in the message */
    len = 0;
    add_page(chunk, &len, 9, 1, 0xCBF43927u, 5, 9);
    ck_assert_int_eq(pq_page_walk(chunk, len, 5, PQ_WALK_VERIFY_CRC, &pages, &n, NULL, &err),
                     PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "page 0 at chunk offset 0: CRC mismatch: header says 0xcbf43927, "
                                  "page data has 0xcbf43926");
    ck_assert_uint_eq(n, 0);
    free(pages);
    /* unchecked without the flag */
    ck_assert_int_eq(pq_page_walk(chunk, len, 5, 0, &pages, &n, NULL, &err), PQ_OK);
    free(pages);

    /* compressed size past the chunk */
    len = 0;
    add_page(chunk, &len, 10, 0, 0, 5, 9);
    ck_assert_int_eq(pq_page_walk(chunk, len, 5, 0, &pages, &n, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "page 0 at chunk offset 0: compressed_page_size 10 runs past "
                                      "the end of the column chunk (9 bytes left)"), "%s", err.message);
    free(pages);
    len = 0;
    add_page(chunk, &len, 0x7fffffff, 0, 0, 5, 9);
    ck_assert_int_eq(pq_page_walk(chunk, len, 5, 0, &pages, &n, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "runs past"), "%s", err.message);
    free(pages);

    /* huge num_values */
    len = 0;
    add_page(chunk, &len, 9, 0, 0, 0x7fffffff, 9);
    ck_assert_int_eq(pq_page_walk(chunk, len, 100, 0, &pages, &n, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_str_eq(err.message, "data pages hold 2147483647 values, the column chunk declares 100");
    free(pages);

    /* truncated header in the middle of a chunk */
    len = 0;
    add_page(chunk, &len, 9, 0, 0, 5, 9);
    add_page(chunk, &len, 9, 0, 0, 5, 9);
    ck_assert_int_eq(pq_page_walk(chunk, len - 12, 10, 0, &pages, &n, NULL, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_uint_eq(n, 1);
    ck_assert_msg(strstr(err.message, "page 1 at chunk offset"), "%s", err.message);
    free(pages);

    /* an empty chunk */
    ck_assert_int_eq(pq_page_walk(NULL, 0, 0, 0, &pages, &n, NULL, &err), PQ_OK);
    ck_assert_ptr_null(pages);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(pq_page_walk(NULL, 0, 1, 0, &pages, &n, NULL, &err), PQ_ERR_CORRUPT_DATA);
}
END_TEST

START_TEST(test_byte_range)
{
    pq_column_chunk cc;
    memset(&cc, 0, sizeof cc);
    cc.set = PQ_CC_HAS_META_DATA;
    cc.meta_data.data_page_offset = 100;
    cc.meta_data.total_compressed_size = 50;
    uint64_t off, len;
    pq_error err;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_OK);
    ck_assert_uint_eq(off, 100);
    ck_assert_uint_eq(len, 50);
    /* dictionary first */
    cc.meta_data.set = PQ_CMD_HAS_DICTIONARY_PAGE_OFFSET;
    cc.meta_data.dictionary_page_offset = 60;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_OK);
    ck_assert_uint_eq(off, 60);
    /* 0 means absent; after the data is ignored */
    cc.meta_data.dictionary_page_offset = 0;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_OK);
    ck_assert_uint_eq(off, 100);
    cc.meta_data.dictionary_page_offset = 120;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_OK);
    ck_assert_uint_eq(off, 100);
    /* data_page_offset 0 with a dictionary */
    cc.meta_data.data_page_offset = 0;
    cc.meta_data.dictionary_page_offset = 4;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_OK);
    ck_assert_uint_eq(off, 4);
    /* ... without one */
    cc.meta_data.set = 0;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_ERR_CORRUPT_DATA);
    /* out of the file, negative, overflowing */
    cc.meta_data.data_page_offset = 900;
    cc.meta_data.total_compressed_size = 92;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_OK);
    cc.meta_data.total_compressed_size = 93;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_msg(strstr(err.message, "runs past"), "%s", err.message);
    cc.meta_data.total_compressed_size = -1;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_ERR_CORRUPT_DATA);
    cc.meta_data.data_page_offset = INT64_MAX;
    cc.meta_data.total_compressed_size = INT64_MAX;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_ERR_CORRUPT_DATA);
    cc.meta_data.data_page_offset = -5;
    cc.meta_data.total_compressed_size = 1;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 3, &off, &len, &err), PQ_ERR_CORRUPT_DATA);
    /* chunk kinds we cannot read */
    cc.set = PQ_CC_SKIPPED;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_ERR_INVALID_ARGUMENT);
    cc.set = 0;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_ERR_CORRUPT_DATA);
    cc.set = PQ_CC_HAS_META_DATA | PQ_CC_HAS_FILE_PATH;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_ERR_UNSUPPORTED);
    cc.set = PQ_CC_HAS_ENCRYPTED_METADATA;
    ck_assert_int_eq(pq_chunk_byte_range(&cc, 992, &off, &len, &err), PQ_ERR_ENCRYPTED);
    ck_assert_ptr_nonnull(strstr(err.message, "key that was not given"));
    ck_assert_int_eq(pq_chunk_byte_range(NULL, 992, &off, &len, &err), PQ_ERR_INVALID_ARGUMENT);

    /* padding for old parquet-mr, bounded by the file */
    cc.set = PQ_CC_HAS_META_DATA;
    cc.meta_data.data_page_offset = 100;
    cc.meta_data.total_compressed_size = 50;
    const char *old = "parquet-mr version 1.2.8 (build abc)";
    pq_bytes cb = {(const uint8_t *)old, (uint32_t)strlen(old)};
    ck_assert_int_eq(pq_chunk_byte_range_for_writer(&cc, cb, 1000, &off, &len, &err), PQ_OK);
    ck_assert_uint_eq(len, 150);
    ck_assert_int_eq(pq_chunk_byte_range_for_writer(&cc, cb, 200, &off, &len, &err), PQ_OK);
    ck_assert_uint_eq(len, 100);
    pq_bytes none = {NULL, 0};
    ck_assert_int_eq(pq_chunk_byte_range_for_writer(&cc, none, 1000, &off, &len, &err), PQ_OK);
    ck_assert_uint_eq(len, 50);
}
END_TEST

static int undercounts(const char *s)
{
    pq_bytes b = {(const uint8_t *)s, (uint32_t)strlen(s)};
    return pq_writer_undercounts_chunk_size(b);
}

START_TEST(test_writer_versions)
{
    ck_assert(undercounts("parquet-mr"));
    ck_assert(undercounts("parquet-mr version 1.2.8"));
    ck_assert(undercounts("parquet-mr version 1.2.8 (build 1234)"));
    ck_assert(undercounts("parquet-mr version 1.1.12"));
    ck_assert(undercounts("parquet-mr version 0.9.0"));
    ck_assert(!undercounts("parquet-mr version 1.2.9"));
    ck_assert(!undercounts("parquet-mr version 1.2.10"));
    ck_assert(!undercounts("parquet-mr version 1.3.0"));
    ck_assert(!undercounts("parquet-mr version 1.12.0-201812210311360288-a86293f (build cec1)"));
    ck_assert(!undercounts("parquet-mr version 2.0.0"));
    ck_assert(!undercounts("parquet-cpp-arrow version 17.0.0"));
    ck_assert(!undercounts("parquet-rs version 53.0.0"));
    ck_assert(!undercounts("parquet-mrx"));
    ck_assert(!undercounts(""));
}
END_TEST

static Suite *page_suite(void)
{
    Suite *s = suite_create("page_headers");
    TCase *corpus = tcase_create("corpus");
    tcase_set_timeout(corpus, 0); /* no time limit */
    tcase_add_test(corpus, test_every_file_listed);
    tcase_add_test(corpus, test_long_headers_walked_by_reads);
    tcase_add_loop_test(corpus, test_corpus_file, 0, nfiles);
    tcase_add_test(corpus, test_tiny_pages);
    tcase_add_test(corpus, test_datapage_v2);
    tcase_add_test(corpus, test_corrupt_checksums);
    tcase_add_test(corpus, test_broken_headers);
    tcase_add_test(corpus, test_range_fixups);
    suite_add_tcase(s, corpus);
    TCase *unit = tcase_create("hand_built");
    tcase_set_timeout(unit, 0);
    tcase_add_test(unit, test_decode_v1);
    tcase_add_test(unit, test_decode_v2_and_dict);
    tcase_add_test(unit, test_decode_hostile);
    tcase_add_test(unit, test_walk_hand_built);
    tcase_add_test(unit, test_byte_range);
    tcase_add_test(unit, test_writer_versions);
    suite_add_tcase(s, unit);
    return s;
}

int main(void)
{
    if (!pq_test_corpus_dir()) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    list_corpus();
    char *cpath = pq_test_corpus_path("CATALOG.md");
    size_t clen = 0;
    uint8_t *c = pq_test_read_file(cpath, &clen);
    free(cpath);
    if (!c) {
        fprintf(stderr, "CATALOG.md is missing from the corpus\n");
        return 1;
    }
    catalog = malloc(clen + 1);
    memcpy(catalog, c, clen);
    catalog[clen] = '\0';
    free(c);
    SRunner *sr = srunner_create(page_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    pq_test_free_files(files, nfiles);
    free(catalog);
    return failed ? 1 : 0;
}
