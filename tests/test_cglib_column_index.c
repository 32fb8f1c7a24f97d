/*
 * test_cglib_column_index.c — pqstep's ColumnIndex decoder against Apache
 * Thrift c_glib (pqtColumnIndex, generated from the same IDL), read through
 * ThriftCompactProtocol over a PqSpanTransport.
 *
 *  - Every column index of every corpus file (data/ recursively, and the
 *    bad_data/ files whose footer parses): both decoders accept, and agree
 *    field by field (null_pages, min_values, max_values, boundary_order,
 *    null_counts and nan_counts and whether each is set); pqstep reads negative counts
 *    as PQ_NULL_COUNT_UNKNOWN.
 *  - Mutations of real column indexes (every cut; at every byte a set of
 *    replacement values): whenever pqstep accepts, c_glib accepts too and
 *    they agree (pqstep adds range checks: list lengths, boundary_order).
 *    Bytes that repeat a field id are left out (see cglib_ref.h).
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
#include "metadata/column_index.h"
#include "pqstep.h"
#include "span_transport.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------
 * The corpus
 * ------------------------------------------------------------------------- */

static char **files;
static int nfiles;


/* One column index of the corpus: its bytes (inside the file image) and
 * its page count (the OffsetIndex's, as c_glib decodes it). */
typedef void (*ci_fn)(const char *where, const uint8_t *ci, size_t len, size_t npages, void *ctx);

/* ---------------------------------------------------------------------------
 * The reference decode
 * ------------------------------------------------------------------------- */

/* The guarded compact protocol of cglib_ref.c (depth limit, and a failed
 * binary read leaves a NULL buffer: with the stock protocol,
 * thrift_protocol_skip frees an uninitialized pointer on some mutated
 * list<binary> bytes). Defined there by G_DEFINE_TYPE, not declared in
 * cglib_ref.h. */
GType pq_ref_protocol_get_type(void);

static ThriftStruct *ref_decode(GType type, const uint8_t *buf, size_t len)
{
    pq_cglib_init();
    gint limit = len >= (size_t)G_MAXINT32 ? G_MAXINT32 : (gint)(len ? len : 1);
    PqSpanTransport *t = pq_span_transport_new(buf, len);
    ThriftProtocol *p = g_object_new(pq_ref_protocol_get_type(), "transport", t, "string_limit",
                                     limit, "container_limit", limit, NULL);
    ThriftStruct *s = g_object_new(type, NULL);
    GError *err = NULL;
    if (thrift_struct_read(s, p, &err) < 0) {
        if (err) g_error_free(err);
        g_object_unref(s);
        s = NULL;
    }
    g_object_unref(p);
    g_object_unref(t);
    return s;
}

/* Visit every column index of a file whose offset index c_glib decodes. */
static int for_each_column_index(const char *rel, ci_fn fn, void *ctx)
{
    char *path = pq_test_corpus_path(rel);
    size_t flen = 0;
    uint8_t *img = pq_test_read_file(path, &flen);
    free(path);
    ck_assert_ptr_nonnull(img);
    pq_error err;
    pq_metadata *md = pq_metadata_parse_tail(img, flen, NULL, NULL, &err);
    int count = 0;
    if (!md) {
        ck_assert_msg(strncmp(rel, "bad_data/", 9) == 0, "%s: %s", rel, err.message);
        free(img);
        return 0;
    }
    const pq_file_metadata *fm = pq_metadata_file(md);
    uint32_t need = PQ_CC_HAS_COLUMN_INDEX_OFFSET | PQ_CC_HAS_COLUMN_INDEX_LENGTH |
                    PQ_CC_HAS_OFFSET_INDEX_OFFSET | PQ_CC_HAS_OFFSET_INDEX_LENGTH;
    for (uint32_t rg = 0; rg < fm->row_groups_len; rg++) {
        for (uint32_t c = 0; c < fm->row_groups[rg].columns_len; c++) {
            const pq_column_chunk *cc = fm->row_groups[rg].columns[c];
            if ((cc->set & need) != need) continue;
            ck_assert(cc->column_index_offset >= 0 && cc->column_index_length >= 0 &&
                      (uint64_t)cc->column_index_offset + (uint64_t)cc->column_index_length <= flen);
            ck_assert(cc->offset_index_offset >= 0 && cc->offset_index_length >= 0 &&
                      (uint64_t)cc->offset_index_offset + (uint64_t)cc->offset_index_length <= flen);
            pqtOffsetIndex *oi = (pqtOffsetIndex *)ref_decode(
                PQT_TYPE_OFFSET_INDEX, img + cc->offset_index_offset, (size_t)cc->offset_index_length);
            ck_assert_msg(oi != NULL, "%s rg %u col %u: c_glib rejects the offset index", rel, rg, c);
            size_t npages = oi->page_locations->len;
            g_object_unref(oi);
            char where[512];
            snprintf(where, sizeof where, "%s rg %u col %u", rel, rg, c);
            fn(where, img + cc->column_index_offset, (size_t)cc->column_index_length, npages, ctx);
            count++;
        }
    }
    pq_metadata_release(md);
    free(img);
    return count;
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

static int same_spans(const char *field, const GPtrArray *ref, const pq_bytes *ours, size_t n)
{
    if (!ref || ref->len != n) return differ("%s: c_glib %u entries, pqstep %zu", field, ref ? ref->len : 0, n);
    for (size_t i = 0; i < n; i++) {
        const GByteArray *r = g_ptr_array_index(ref, i);
        uint32_t rl = r ? r->len : 0;
        if (rl != ours[i].len) return differ("%s[%zu]: c_glib %u bytes, pqstep %u", field, i, rl, ours[i].len);
        if (rl && memcmp(r->data, ours[i].ptr, rl) != 0) return differ("%s[%zu]: bytes differ", field, i);
    }
    return 0;
}

static int same_index(const pqtColumnIndex *r, const pq_column_index *o)
{
    if (!r->null_pages || r->null_pages->len != o->npages)
        return differ("null_pages: c_glib %u entries, pqstep %zu", r->null_pages ? r->null_pages->len : 0,
                      o->npages);
    for (size_t i = 0; i < o->npages; i++)
        if (!!g_array_index(r->null_pages, gboolean, i) != o->null_pages[i])
            return differ("null_pages[%zu]: c_glib %d, pqstep %d", i,
                          !!g_array_index(r->null_pages, gboolean, i), o->null_pages[i]);
    if (same_spans("min_values", r->min_values, o->min_values, o->npages)) return 1;
    if (same_spans("max_values", r->max_values, o->max_values, o->npages)) return 1;
    if ((int32_t)r->boundary_order != o->boundary_order)
        return differ("boundary_order: c_glib %d, pqstep %d", (int32_t)r->boundary_order, o->boundary_order);
    if (!!r->__isset_nan_counts != (o->nan_counts != NULL))
        return differ("nan_counts: set in c_glib %d, in pqstep %d", !!r->__isset_nan_counts, o->nan_counts != NULL);
    for (size_t i = 0; o->nan_counts && i < o->npages; i++) {
        if (r->nan_counts->len != o->npages)
            return differ("nan_counts: c_glib %u entries, pqstep %zu", r->nan_counts->len, o->npages);
        int64_t rv = g_array_index(r->nan_counts, gint64, i);
        if ((rv < 0 ? PQ_NULL_COUNT_UNKNOWN : rv) != o->nan_counts[i])
            return differ("nan_counts[%zu]: c_glib %" PRId64 ", pqstep %" PRId64, i, rv, o->nan_counts[i]);
    }
    if (!!r->__isset_null_counts != (o->null_counts != NULL))
        return differ("null_counts: set in c_glib %d, in pqstep %d", !!r->__isset_null_counts,
                      o->null_counts != NULL);
    if (o->null_counts) {
        if (r->null_counts->len != o->npages)
            return differ("null_counts: c_glib %u entries, pqstep %zu", r->null_counts->len, o->npages);
        for (size_t i = 0; i < o->npages; i++) {
            int64_t rv = g_array_index(r->null_counts, gint64, i);
            int64_t want = rv < 0 ? PQ_NULL_COUNT_UNKNOWN : rv;
            if (want != o->null_counts[i])
                return differ("null_counts[%zu]: c_glib %" PRId64 ", pqstep %" PRId64, i, rv,
                              o->null_counts[i]);
        }
    }
    return 0;
}

/* Decode with both; 0 when they agree (pqstep may reject what c_glib takes),
 * else 1 with diff. *accepted: pqstep accepted. */
static int compare_at(const uint8_t *buf, size_t len, size_t npages, int *accepted)
{
    pq_column_index ci;
    pq_error err;
    *accepted = pq_column_index_decode(buf, len, npages, &ci, &err) == PQ_OK;
    pqtColumnIndex *r = (pqtColumnIndex *)ref_decode(PQT_TYPE_COLUMN_INDEX, buf, len);
    int d = 0;
    if (*accepted && !r) d = differ("pqstep accepts, c_glib rejects");
    else if (*accepted) d = same_index(r, &ci);
    if (r) g_object_unref(r);
    if (*accepted) pq_column_index_free(&ci);
    return d;
}

/* ---------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------- */

typedef struct corpus_ctx {
    long indexes, pages;
} corpus_ctx;

static void compare_index(const char *where, const uint8_t *buf, size_t len, size_t npages, void *vctx)
{
    corpus_ctx *c = vctx;
    int accepted;
    int d = compare_at(buf, len, npages, &accepted);
    ck_assert_msg(accepted, "%s: pqstep rejects the column index", where);
    ck_assert_msg(!d, "%s: %s", where, diff);
    c->indexes++;
    c->pages += (long)npages;
}

START_TEST(test_corpus)
{
    if (!nfiles) {
        printf("SKIP test_corpus: corpus absent\n");
        return;
    }
    corpus_ctx c = {0};
    int with = 0;
    for (int i = 0; i < nfiles; i++) with += for_each_column_index(files[i], compare_index, &c) > 0;
    printf("c_glib agrees on %ld column indexes (%ld pages) in %d files\n", c.indexes, c.pages, with);
    ck_assert_int_ge(with, 20);
}
END_TEST

/* The compact protocol's i64 type nibble. */
#define PQ_WIRE_I64_TYPE 0x06

typedef struct mut_ctx {
    long tried, accepted, lenient;
    int left; /* column indexes of this file still to mutate */
} mut_ctx;

static void mutate_index(const char *where, const uint8_t *ci, size_t len, size_t npages, void *vctx)
{
    mut_ctx *m = vctx;
    if (m->left <= 0 || len > 512) return;
    m->left--;
    for (size_t cut = 0; cut < len; cut++) {
        /* an exact-size copy: ASan sees any read past the cut */
        uint8_t *c = malloc(cut ? cut : 1);
        memcpy(c, ci, cut);
        int accepted;
        ck_assert_msg(!compare_at(c, cut, npages, &accepted), "%s cut at %zu: %s", where, cut, diff);
        ck_assert_msg(!accepted, "%s: cut at %zu accepted", where, cut);
        free(c);
    }
    static const uint8_t values[] = {0x00, 0x01, 0x02, 0x06, 0x08, 0x09, 0x19, 0x7f, 0x80, 0xff};
    uint8_t *buf = malloc(len);
    for (size_t pos = 0; pos < len; pos++)
        for (size_t v = 0; v < sizeof values; v++) {
            memcpy(buf, ci, len);
            if (buf[pos] == values[v]) continue;
            buf[pos] = values[v];
            if (pq_cglib_repeated_field(buf, len, NULL)) continue;
            int accepted;
            m->tried++;
            int d = compare_at(buf, len, npages, &accepted);
            if (d && accepted && (values[v] & 0x0f) >= 13) {
                /* Known leniency of pq_compact_skip (metadata/compact.c): an
                 * EMPTY list of an unknown field with an invalid element type
                 * (13-15) is skipped, c_glib rejects it. Then the same bytes
                 * with a valid element type must agree. */
                buf[pos] = (uint8_t)((values[v] & 0xf0) | PQ_WIRE_I64_TYPE);
                d = compare_at(buf, len, npages, &accepted);
                ck_assert_msg(accepted, "%s byte %zu -> 0x%02x: not an empty list", where, pos,
                              values[v]);
                m->lenient++;
            }
            ck_assert_msg(!d, "%s byte %zu -> 0x%02x: %s", where, pos, values[v], diff);
            m->accepted += accepted;
        }
    free(buf);
}

START_TEST(test_mutations)
{
    if (!nfiles) {
        printf("SKIP test_mutations: corpus absent\n");
        return;
    }
    mut_ctx m = {0};
    for (int i = 0; i < nfiles; i++) {
        if (strncmp(files[i], "data/", 5) != 0) continue;
        m.left = 2;
        for_each_column_index(files[i], mutate_index, &m);
    }
    printf("mutations: %ld tried, %ld accepted by pqstep (and c_glib agreeing); %ld empty lists "
           "with an invalid element type skipped by pqstep only\n", m.tried, m.accepted, m.lenient);
    /* the mutations exercised both verdicts */
    ck_assert_int_gt(m.tried, 5000);
    ck_assert_int_gt(m.accepted, m.tried / 20);
    ck_assert_int_lt(m.accepted, m.tried);
}
END_TEST

int main(void)
{
    const char *dir = pq_test_corpus_dir();
    if (dir) {
        nfiles = pq_test_corpus_files(&files);
    }
    Suite *s = suite_create("cglib column index");
    TCase *tc = tcase_create("column index");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_test(tc, test_corpus);
    tcase_add_test(tc, test_mutations);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    pq_test_free_files(files, nfiles);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
