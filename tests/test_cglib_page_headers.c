/*
 * test_cglib_page_headers.c — pqstep's PageHeader decoder against Apache
 * Thrift c_glib (pqtPageHeader, generated from the same IDL), read through
 * ThriftCompactProtocol over a PqSpanTransport.
 *
 *  - Every page header of every column chunk of every corpus file (data/
 *    recursively, and the pages of bad_data/ files that walk): both decoders
 *    agree field by field and consume the same number of bytes.
 *  - Mutations of real headers (every cut, every single-byte change of the
 *    first headers of each data/ file): whenever pqstep accepts, c_glib
 *    accepts too and both agree field by field and on the length (pqstep's
 *    checks are Thrift's plus range checks); bytes repeating a field id are
 *    left out (Thrift leaves them undefined, see cglib_ref.h).
 */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <thrift/c_glib/protocol/thrift_compact_protocol.h>

#include "cglib_ref.h"
#include "pages/page_header.h"
#include "pages/page_walk.h"
#include "pqstep.h"
#include "span_transport.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------
 * The corpus
 * ------------------------------------------------------------------------- */

static char **files;
static int nfiles;


/* ---------------------------------------------------------------------------
 * The reference decode
 * ------------------------------------------------------------------------- */

/* Decode a PageHeader with c_glib; NULL when c_glib rejects the bytes. */
static pqtPageHeader *ref_decode(const uint8_t *buf, size_t len, size_t *consumed)
{
    pq_cglib_init();
    gint limit = len >= (size_t)G_MAXINT32 ? G_MAXINT32 : (gint)(len ? len : 1);
    PqSpanTransport *t = pq_span_transport_new(buf, len);
    ThriftProtocol *p = g_object_new(THRIFT_TYPE_COMPACT_PROTOCOL, "transport", t, "string_limit",
                                     limit, "container_limit", limit, NULL);
    pqtPageHeader *h = g_object_new(PQT_TYPE_PAGE_HEADER, NULL);
    GError *err = NULL;
    if (thrift_struct_read(THRIFT_STRUCT(h), p, &err) < 0) {
        if (err) g_error_free(err);
        g_object_unref(h);
        h = NULL;
    } else {
        *consumed = pq_span_transport_position(t);
    }
    g_object_unref(p);
    g_object_unref(t);
    return h;
}

/* ---------------------------------------------------------------------------
 * Field-by-field comparison
 * ------------------------------------------------------------------------- */

static char diff[512];

__attribute__((format(printf, 1, 2)))
static int differ(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(diff, sizeof diff, fmt, ap);
    va_end(ap);
    return 1;
}

#define SAME_INT(path, ref, ours)                                                             \
    do {                                                                                      \
        if ((int64_t)(ref) != (int64_t)(ours))                                                \
            return differ("%s: c_glib %" PRId64 ", pqstep %" PRId64, path, (int64_t)(ref),    \
                          (int64_t)(ours));                                                   \
    } while (0)

#define SAME_SET(path, ref_isset, ours_set)                                                   \
    do {                                                                                      \
        if (!!(ref_isset) != !!(ours_set))                                                    \
            return differ("%s: set in c_glib %d, in pqstep %d", path, !!(ref_isset),          \
                          !!(ours_set));                                                      \
    } while (0)

static int same_bytes(const char *path, gboolean isset, const GByteArray *ref, uint32_t bit,
                      uint32_t set, pq_bytes ours)
{
    SAME_SET(path, isset, set & bit);
    if (!isset) return 0;
    uint32_t rl = ref ? ref->len : 0;
    if (rl != ours.len) return differ("%s: c_glib %u bytes, pqstep %u", path, rl, ours.len);
    if (rl && memcmp(ref->data, ours.ptr, rl) != 0) return differ("%s: bytes differ", path);
    return 0;
}

static int same_stats(const char *path, const pqtStatistics *r, const pq_statistics *o)
{
    char f[128];
#define B(name, bit)                                                                          \
    snprintf(f, sizeof f, "%s.%s", path, #name);                                             \
    if (same_bytes(f, r->__isset_##name, r->name, bit, o->set, o->name)) return 1;
    B(max, PQ_STATS_HAS_MAX)
    B(min, PQ_STATS_HAS_MIN)
    B(max_value, PQ_STATS_HAS_MAX_VALUE)
    B(min_value, PQ_STATS_HAS_MIN_VALUE)
#undef B
    snprintf(f, sizeof f, "%s.null_count", path);
    SAME_SET(f, r->__isset_null_count, o->set & PQ_STATS_HAS_NULL_COUNT);
    if (r->__isset_null_count) SAME_INT(f, r->null_count, o->null_count);
    snprintf(f, sizeof f, "%s.distinct_count", path);
    SAME_SET(f, r->__isset_distinct_count, o->set & PQ_STATS_HAS_DISTINCT_COUNT);
    if (r->__isset_distinct_count) SAME_INT(f, r->distinct_count, o->distinct_count);
    snprintf(f, sizeof f, "%s.is_max_value_exact", path);
    SAME_SET(f, r->__isset_is_max_value_exact, o->set & PQ_STATS_HAS_IS_MAX_EXACT);
    if (r->__isset_is_max_value_exact) SAME_INT(f, !!r->is_max_value_exact, o->is_max_value_exact);
    snprintf(f, sizeof f, "%s.is_min_value_exact", path);
    SAME_SET(f, r->__isset_is_min_value_exact, o->set & PQ_STATS_HAS_IS_MIN_EXACT);
    if (r->__isset_is_min_value_exact) SAME_INT(f, !!r->is_min_value_exact, o->is_min_value_exact);
    return 0;
}

static int same_header(const pqtPageHeader *r, const pq_page_header *o)
{
    SAME_INT("type", (int32_t)r->type, o->type);
    SAME_INT("uncompressed_page_size", r->uncompressed_page_size, o->uncompressed_page_size);
    SAME_INT("compressed_page_size", r->compressed_page_size, o->compressed_page_size);
    SAME_SET("crc", r->__isset_crc, o->has_crc);
    if (r->__isset_crc) SAME_INT("crc", (uint32_t)r->crc, o->crc);
    SAME_SET("data_page_header", r->__isset_data_page_header, o->set & PQ_PH_HAS_DATA_PAGE_HEADER);
    SAME_SET("index_page_header", r->__isset_index_page_header,
             o->set & PQ_PH_HAS_INDEX_PAGE_HEADER);
    SAME_SET("dictionary_page_header", r->__isset_dictionary_page_header,
             o->set & PQ_PH_HAS_DICTIONARY_PAGE_HEADER);
    SAME_SET("data_page_header_v2", r->__isset_data_page_header_v2,
             o->set & PQ_PH_HAS_DATA_PAGE_HEADER_V2);
    if (r->__isset_data_page_header) {
        const pqtDataPageHeader *rd = r->data_page_header;
        const pq_data_page_header *od = &o->data_page_header;
        SAME_INT("data_page_header.num_values", rd->num_values, od->num_values);
        SAME_INT("data_page_header.encoding", (int32_t)rd->encoding, od->encoding);
        SAME_INT("data_page_header.definition_level_encoding",
                 (int32_t)rd->definition_level_encoding, od->definition_level_encoding);
        SAME_INT("data_page_header.repetition_level_encoding",
                 (int32_t)rd->repetition_level_encoding, od->repetition_level_encoding);
        SAME_SET("data_page_header.statistics", rd->__isset_statistics,
                 od->set & PQ_DPH_HAS_STATISTICS);
        if (rd->__isset_statistics &&
            same_stats("data_page_header.statistics", rd->statistics, &od->statistics))
            return 1;
    }
    if (r->__isset_dictionary_page_header) {
        const pqtDictionaryPageHeader *rd = r->dictionary_page_header;
        const pq_dictionary_page_header *od = &o->dictionary_page_header;
        SAME_INT("dictionary_page_header.num_values", rd->num_values, od->num_values);
        SAME_INT("dictionary_page_header.encoding", (int32_t)rd->encoding, od->encoding);
        SAME_SET("dictionary_page_header.is_sorted", rd->__isset_is_sorted,
                 od->set & PQ_DICT_HAS_IS_SORTED);
        if (rd->__isset_is_sorted)
            SAME_INT("dictionary_page_header.is_sorted", !!rd->is_sorted, od->is_sorted);
    }
    if (r->__isset_data_page_header_v2) {
        const pqtDataPageHeaderV2 *rd = r->data_page_header_v2;
        const pq_data_page_header_v2 *od = &o->data_page_header_v2;
        SAME_INT("data_page_header_v2.num_values", rd->num_values, od->num_values);
        SAME_INT("data_page_header_v2.num_nulls", rd->num_nulls, od->num_nulls);
        SAME_INT("data_page_header_v2.num_rows", rd->num_rows, od->num_rows);
        SAME_INT("data_page_header_v2.encoding", (int32_t)rd->encoding, od->encoding);
        SAME_INT("data_page_header_v2.definition_levels_byte_length",
                 rd->definition_levels_byte_length, od->definition_levels_byte_length);
        SAME_INT("data_page_header_v2.repetition_levels_byte_length",
                 rd->repetition_levels_byte_length, od->repetition_levels_byte_length);
        SAME_SET("data_page_header_v2.is_compressed", rd->__isset_is_compressed,
                 od->set & PQ_DPH2_HAS_IS_COMPRESSED);
        /* compared whether set or not: both default to true */
        SAME_INT("data_page_header_v2.is_compressed", !!rd->is_compressed, od->is_compressed);
        SAME_SET("data_page_header_v2.statistics", rd->__isset_statistics,
                 od->set & PQ_DPH2_HAS_STATISTICS);
        if (rd->__isset_statistics &&
            same_stats("data_page_header_v2.statistics", rd->statistics, &od->statistics))
            return 1;
    }
    return 0;
}

/* Both decoders on [buf, buf + len): 0 when they agree. `must_accept`: pqstep
 * is expected to accept (a header the walk already decoded). Fills *accepted
 * with pqstep's verdict. */
static int compare_at(const uint8_t *buf, size_t len, int *accepted)
{
    pq_page_header h;
    size_t hl = 0;
    pq_error err = {0};
    pq_status st = pq_page_header_decode(buf, len, &h, &hl, &err);
    *accepted = st == PQ_OK;
    if (st != PQ_OK) {
        if (st != PQ_ERR_CORRUPT_DATA || err.code != st || !err.message[0])
            return differ("pqstep: bad error report: %s / %s", pq_status_name(st), err.message);
        return 0; /* pqstep is stricter than Thrift (ranges, the type's sub-header) */
    }
    /* every span inside the input */
    const pq_statistics *ss[2] = {&h.data_page_header.statistics, &h.data_page_header_v2.statistics};
    for (int i = 0; i < 2; i++) {
        const pq_bytes bs[4] = {ss[i]->max, ss[i]->min, ss[i]->max_value, ss[i]->min_value};
        for (int k = 0; k < 4; k++)
            if (bs[k].len && (bs[k].ptr < buf || bs[k].ptr + bs[k].len > buf + hl))
                return differ("pqstep: a statistics span leaves the header");
    }
    size_t consumed = 0;
    pqtPageHeader *ref = ref_decode(buf, len, &consumed);
    if (!ref) return differ("c_glib rejects a header pqstep accepts");
    int d = same_header(ref, &h);
    g_object_unref(ref);
    if (d) return 1;
    if (consumed != hl) return differ("length: c_glib %zu, pqstep %zu", consumed, hl);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Walking a file's pages
 * ------------------------------------------------------------------------- */

typedef void (*page_fn)(const char *rel, const uint8_t *chunk, uint64_t clen,
                        const pq_page_info *p, size_t index, void *ctx);

/* Calls fn for every page the walks of `rel` find; returns the page count. */
static long for_each_page(const char *rel, page_fn fn, void *ctx)
{
    char *path = pq_test_corpus_path(rel);
    size_t len = 0;
    uint8_t *file = pq_test_read_file(path, &len);
    ck_assert_msg(file != NULL, "%s: cannot read", rel);
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse_tail(file, len, NULL, NULL, &err);
    long count = 0;
    if (md) {
        const pq_file_metadata *fm = pq_metadata_file(md);
        for (uint32_t rg = 0; rg < fm->row_groups_len; rg++)
            for (uint32_t col = 0; col < fm->row_groups[rg].columns_len; col++) {
                const pq_column_chunk *cc = fm->row_groups[rg].columns[col];
                uint64_t off, clen;
                if (pq_chunk_byte_range_for_writer(cc, fm->created_by, len, &off, &clen, &err))
                    continue;
                pq_page_info *pages = NULL;
                size_t n = 0;
                pq_page_walk(file + off, clen, cc->meta_data.num_values, 0, &pages, &n, NULL, &err);
                for (size_t i = 0; i < n; i++) fn(rel, file + off, clen, &pages[i], i, ctx);
                count += (long)n;
                free(pages);
            }
        pq_metadata_release(md);
    }
    free(file);
    free(path);
    return count;
}

static void compare_page(const char *rel, const uint8_t *chunk, uint64_t clen,
                         const pq_page_info *p, size_t index, void *ctx)
{
    (void)ctx;
    int accepted = 0;
    int d = compare_at(chunk + p->header_offset, (size_t)(clen - p->header_offset), &accepted);
    ck_assert_msg(accepted, "%s: page %zu: pqstep rejects a header its walk accepted", rel, index);
    ck_assert_msg(!d, "%s: page %zu at chunk offset %" PRIu64 ": %s", rel, index,
                  p->header_offset, diff);
}

START_TEST(test_corpus_file)
{
    const char *rel = files[_i];
    long n = for_each_page(rel, compare_page, NULL);
    if (strncmp(rel, "data/", 5) == 0) ck_assert_msg(n > 0, "%s: no pages", rel);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Mutations of real headers
 * ------------------------------------------------------------------------- */

typedef struct mut_ctx {
    long tried, accepted;
    int pages_left; /* pages of this file still to mutate */
} mut_ctx;

static void mutate_page(const char *rel, const uint8_t *chunk, uint64_t clen,
                        const pq_page_info *p, size_t index, void *vctx)
{
    mut_ctx *m = vctx;
    if (m->pages_left <= 0) return;
    m->pages_left--;
    size_t hl = p->header_len;
    /* a little of the page data after the header: changed bytes may make
     * the header longer */
    size_t span = hl + 16 < clen - p->header_offset ? hl + 16 : (size_t)(clen - p->header_offset);
    uint8_t *buf = malloc(span);
    for (size_t cut = 0; cut < hl; cut++) {
        /* an exact-size copy: ASan sees any read past the cut */
        uint8_t *c = malloc(cut ? cut : 1);
        memcpy(c, chunk + p->header_offset, cut);
        int accepted;
        pq_page_header h;
        size_t got;
        ck_assert_msg(pq_page_header_decode(c, cut, &h, &got, NULL) == PQ_ERR_CORRUPT_DATA,
                      "%s: page %zu cut at %zu accepted", rel, index, cut);
        ck_assert_msg(!compare_at(c, cut, &accepted), "%s: page %zu cut at %zu: %s", rel, index,
                      cut, diff);
        free(c);
    }
    static const uint8_t values[] = {0x00, 0x01, 0x02, 0x0c, 0x15, 0x1c, 0x7f, 0x80, 0xff};
    for (size_t pos = 0; pos < hl; pos++)
        for (size_t v = 0; v < sizeof values; v++) {
            memcpy(buf, chunk + p->header_offset, span);
            if (buf[pos] == values[v]) continue;
            buf[pos] = values[v];
            if (pq_cglib_repeated_field(buf, span, NULL)) continue;
            int accepted = 0;
            m->tried++;
            ck_assert_msg(!compare_at(buf, span, &accepted), "%s: page %zu byte %zu -> 0x%02x: %s",
                          rel, index, pos, values[v], diff);
            m->accepted += accepted;
        }
    free(buf);
}

START_TEST(test_mutations)
{
    mut_ctx m = {0};
    for (int i = 0; i < nfiles; i++) {
        if (strncmp(files[i], "data/", 5) != 0) continue;
        m.pages_left = 3;
        for_each_page(files[i], mutate_page, &m);
    }
    /* the mutations exercised both verdicts */
    ck_assert_int_gt(m.tried, 10000);
    ck_assert_int_gt(m.accepted, m.tried / 10);
    ck_assert_int_lt(m.accepted, m.tried);
}
END_TEST

/* Hand-built: the two decoders agree on a header that uses every field. */
START_TEST(test_full_header)
{
    pq_cglib_init();
    pqtPageHeader *ph = g_object_new(PQT_TYPE_PAGE_HEADER, NULL);
    ph->type = PQT_PAGE_TYPE_DATA_PAGE_V2;
    ph->uncompressed_page_size = 1000;
    ph->compressed_page_size = 700;
    ph->crc = -123456789;
    ph->__isset_crc = TRUE;
    pqtDataPageHeaderV2 *v2 = ph->data_page_header_v2;
    ph->__isset_data_page_header_v2 = TRUE;
    v2->num_values = 100;
    v2->num_nulls = 7;
    v2->num_rows = 40;
    v2->encoding = PQT_ENCODING_RLE_DICTIONARY;
    v2->definition_levels_byte_length = 20;
    v2->repetition_levels_byte_length = 30;
    v2->is_compressed = FALSE;
    v2->__isset_is_compressed = TRUE;
    pqtStatistics *s = v2->statistics;
    v2->__isset_statistics = TRUE;
    pq_cglib_set_bytes(&s->max, "zz", 2);
    s->__isset_max = TRUE;
    pq_cglib_set_bytes(&s->min, "a", 1);
    s->__isset_min = TRUE;
    pq_cglib_set_bytes(&s->max_value, "zzz", 3);
    s->__isset_max_value = TRUE;
    pq_cglib_set_bytes(&s->min_value, "", 0);
    s->__isset_min_value = TRUE;
    s->null_count = 7;
    s->__isset_null_count = TRUE;
    s->distinct_count = 1LL << 40;
    s->__isset_distinct_count = TRUE;
    s->is_max_value_exact = TRUE;
    s->__isset_is_max_value_exact = TRUE;
    s->is_min_value_exact = FALSE;
    s->__isset_is_min_value_exact = TRUE;
    /* a v1 and a dictionary sub-header too: odd, but Thrift-valid */
    ph->__isset_data_page_header = TRUE;
    ph->data_page_header->num_values = 5;
    ph->data_page_header->encoding = PQT_ENCODING_PLAIN;
    ph->data_page_header->definition_level_encoding = PQT_ENCODING_RLE;
    ph->data_page_header->repetition_level_encoding = PQT_ENCODING_BIT_PACKED;
    ph->__isset_dictionary_page_header = TRUE;
    ph->dictionary_page_header->num_values = 3;
    ph->dictionary_page_header->encoding = PQT_ENCODING_PLAIN_DICTIONARY;
    ph->dictionary_page_header->is_sorted = TRUE;
    ph->dictionary_page_header->__isset_is_sorted = TRUE;
    ph->__isset_index_page_header = TRUE;
    size_t len = 0;
    uint8_t *bytes = pq_cglib_encode_struct(THRIFT_STRUCT(ph), &len);
    ck_assert_ptr_nonnull(bytes);
    int accepted = 0;
    ck_assert_msg(!compare_at(bytes, len, &accepted), "%s", diff);
    ck_assert(accepted);
    pq_page_header h;
    size_t hl;
    ck_assert_int_eq(pq_page_header_decode(bytes, len, &h, &hl, NULL), PQ_OK);
    ck_assert_uint_eq(hl, len);
    ck_assert_uint_eq(h.crc, (uint32_t)-123456789);
    ck_assert(!h.data_page_header_v2.is_compressed);
    ck_assert_int_eq(h.data_page_header_v2.statistics.distinct_count, 1LL << 40);
    ck_assert_uint_eq(h.set, PQ_PH_HAS_DATA_PAGE_HEADER | PQ_PH_HAS_INDEX_PAGE_HEADER |
                                 PQ_PH_HAS_DICTIONARY_PAGE_HEADER | PQ_PH_HAS_DATA_PAGE_HEADER_V2);
    g_free(bytes);
    g_object_unref(ph);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("cglib_page_headers");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_loop_test(tc, test_corpus_file, 0, nfiles);
    tcase_add_test(tc, test_mutations);
    tcase_add_test(tc, test_full_header);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *dir = pq_test_corpus_dir();
    if (!dir) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    nfiles = pq_test_corpus_files(&files);
    if (nfiles == 0) {
        fprintf(stderr, "no .parquet files in the corpus\n");
        return 1;
    }
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    pq_test_free_files(files, nfiles);
    return failed ? 1 : 0;
}
