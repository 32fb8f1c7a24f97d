/*
 * test_cglib_reference.c — pqstep's footer decoder against Apache Thrift
 * c_glib (code generated from the same IDL) on every *.parquet file of the
 * corpus, data/ (recursively, geospatial/ included) and bad_data/.
 *
 * For each footer:
 *  - both decoders accept it and agree field by field (pq_cglib_compare), and
 *    every pqstep span lies inside pqstep's own footer copy;
 *  - or both reject it;
 *  - or c_glib accepts and pqstep rejects for a reason c_glib does not check
 *    (an enum value outside the IDL's range, a negative row count, a chunk
 *    count that differs from the leaf count, encryption). The reason is
 *    found independently in c_glib's decode, and pqstep's error must carry
 *    the matching code and name the same struct and field.
 * Round trips: pqstep's retained footer bytes parse to an equal object, and
 * c_glib's re-encoding of its own decode parses (in pqstep) to an equal one.
 * Projections decode the kept chunks exactly as a full parse does.
 */
#include <check.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cglib_ref.h"
#include "pqstep.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------
 * The corpus file list
 * ------------------------------------------------------------------------- */

static char **files;
static size_t nfiles, capfiles;

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void add_file(const char *rel)
{
    if (nfiles == capfiles) {
        capfiles = capfiles ? capfiles * 2 : 64;
        files = realloc(files, capfiles * sizeof *files);
        if (!files) abort();
    }
    files[nfiles++] = strdup(rel);
}

/* Collect every .parquet file below <corpus>/<rel>, recursively. */
static void walk(const char *root, const char *rel)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, rel);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char sub[4096], full[8192];
        snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (stat(full, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) walk(root, sub);
        else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".parquet")) add_file(sub);
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---------------------------------------------------------------------------
 * Why pqstep may reject what c_glib accepts, found in c_glib's decode
 * ------------------------------------------------------------------------- */

typedef struct verdict {
    pq_status code;
    char where[192]; /* must appear in pqstep's message */
} verdict;

static int set_verdict(verdict *v, pq_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int set_verdict(verdict *v, pq_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->where, sizeof v->where, fmt, ap);
    va_end(ap);
    v->code = code;
    return 1;
}

static int leaf_count(const pqtFileMetaData *r)
{
    int leaves = 0;
    for (guint i = 1; i < r->schema->len; i++) {
        const pqtSchemaElement *e = g_ptr_array_index(r->schema, i);
        if (!e->__isset_num_children || e->num_children == 0) leaves++;
    }
    return leaves;
}

/* Scan in wire order (fields are written in id order) for the first thing
 * the Parquet spec forbids but a generic Thrift decoder lets through. */
static int find_violation(const pqtFileMetaData *r, verdict *v)
{
    for (guint i = 0; i < r->schema->len; i++) {
        const pqtSchemaElement *e = g_ptr_array_index(r->schema, i);
        if (e->__isset_type && ((int)e->type < 0 || (int)e->type > 7))
            return set_verdict(v, PQ_ERR_CORRUPT_FOOTER, "SchemaElement[%u].type: invalid value %d",
                               i, (int)e->type);
        if (e->__isset_repetition_type &&
            ((int)e->repetition_type < 0 || (int)e->repetition_type > 2))
            return set_verdict(v, PQ_ERR_CORRUPT_FOOTER,
                               "SchemaElement[%u].repetition_type: invalid value %d", i,
                               (int)e->repetition_type);
        /* converted_type: any value is accepted (an unknown one is kept raw
         * and ignored with a warning), as c_glib does */
    }
    if (r->num_rows < 0) return set_verdict(v, PQ_ERR_CORRUPT_FOOTER, "FileMetaData.num_rows");
    for (guint g = 0; g < r->row_groups->len; g++) {
        const pqtRowGroup *rg = g_ptr_array_index(r->row_groups, g);
        for (guint k = 0; k < rg->columns->len; k++) {
            const pqtColumnChunk *cc = g_ptr_array_index(rg->columns, k);
            if (!cc->__isset_meta_data) continue;
            const pqtColumnMetaData *m = cc->meta_data;
            if ((int)m->type < 0 || (int)m->type > 7)
                return set_verdict(v, PQ_ERR_CORRUPT_FOOTER,
                                   "RowGroup[%u].columns[%u].meta_data.type: invalid value %d", g,
                                   k, (int)m->type);
            if ((int)m->codec < 0 || (int)m->codec > 7)
                return set_verdict(v, PQ_ERR_CORRUPT_FOOTER,
                                   "RowGroup[%u].columns[%u].meta_data.codec: invalid value %d",
                                   g, k, (int)m->codec);
            for (guint j = 0; m->__isset_encoding_stats && j < m->encoding_stats->len; j++) {
                const pqtPageEncodingStats *es = g_ptr_array_index(m->encoding_stats, j);
                if ((int)es->page_type < 0 || (int)es->page_type > 3)
                    return set_verdict(v, PQ_ERR_CORRUPT_FOOTER,
                                       "RowGroup[%u].columns[%u].meta_data.encoding_stats[%u]."
                                       "page_type: invalid value %d",
                                       g, k, j, (int)es->page_type);
            }
        }
        if (rg->num_rows < 0)
            return set_verdict(v, PQ_ERR_CORRUPT_FOOTER, "RowGroup[%u].num_rows", g);
    }
    /* A plaintext footer of an encrypted file parses (without keys, its
     * plaintext columns read) when its algorithm is one of the two; an
     * encrypted column in a file without an algorithm is malformed. */
    if (r->__isset_encryption_algorithm) {
        if (!r->encryption_algorithm->__isset_AES_GCM_V1 && !r->encryption_algorithm->__isset_AES_GCM_CTR_V1)
            return set_verdict(v, PQ_ERR_UNSUPPORTED, "encryption_algorithm");
    } else {
        for (guint g = 0; g < r->row_groups->len; g++) {
            const pqtRowGroup *rg = g_ptr_array_index(r->row_groups, g);
            for (guint k = 0; k < rg->columns->len; k++) {
                const pqtColumnChunk *cc = g_ptr_array_index(rg->columns, k);
                if (cc->__isset_crypto_metadata || cc->__isset_encrypted_column_metadata)
                    return set_verdict(v, PQ_ERR_CORRUPT_FOOTER, "RowGroup[%u].columns[%u]", g, k);
            }
        }
    }
    int leaves = leaf_count(r);
    for (guint g = 0; g < r->row_groups->len; g++) {
        const pqtRowGroup *rg = g_ptr_array_index(r->row_groups, g);
        if ((int)rg->columns->len != leaves)
            return set_verdict(v, PQ_ERR_CORRUPT_FOOTER, "RowGroup[%u].columns", g);
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

typedef struct loaded {
    uint8_t *file;
    size_t file_len;
    const uint8_t *footer;
    size_t footer_len;
} loaded;

static void load(const char *rel, loaded *l)
{
    char *path = pq_test_corpus_path(rel);
    ck_assert_ptr_nonnull(path);
    l->file = pq_test_read_file(path, &l->file_len);
    ck_assert_msg(l->file != NULL, "cannot read %s", path);
    free(path);
    l->footer = pq_test_footer_span(l->file, l->file_len, &l->footer_len);
    ck_assert_msg(l->footer != NULL, "%s: no PAR1 footer", rel);
}

/* pqstep's object equals c_glib's, and its spans point into its own copy. */
static void assert_same(const char *rel, const char *what, const pqtFileMetaData *ref,
                        const pq_metadata *md)
{
    char diff[512];
    const pq_file_metadata *fm = pq_metadata_file(md);
    ck_assert_msg(pq_cglib_compare(ref, fm, diff, sizeof diff) == 0, "%s (%s): %s", rel, what,
                  diff);
    size_t blen = 0;
    const uint8_t *bytes = pq_metadata_footer_bytes(md, &blen);
    ck_assert_msg(pq_check_spans_within(fm, bytes, blen, diff, sizeof diff) == 0, "%s (%s): %s",
                  rel, what, diff);
}

/* ---------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------- */

/* The verdict of both decoders on one corpus file. */
START_TEST(test_corpus_file)
{
    const char *rel = files[_i];
    loaded l;
    load(rel, &l);

    char *cerr = NULL;
    pqtFileMetaData *ref = pq_cglib_decode(l.footer, l.footer_len, &cerr);
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse(l.footer, l.footer_len, NULL, &err);

    if (ref && md) {
        assert_same(rel, "parse", ref, md);
        /* The bytes pqstep keeps are the footer, and parse to the same object. */
        size_t blen = 0;
        const uint8_t *bytes = pq_metadata_footer_bytes(md, &blen);
        ck_assert_uint_eq(blen, l.footer_len);
        ck_assert(memcmp(bytes, l.footer, blen) == 0);
        pq_metadata *again = pq_metadata_parse(bytes, blen, NULL, &err);
        ck_assert_msg(again != NULL, "%s: reparse of footer bytes: %s", rel, err.message);
        assert_same(rel, "reparse of pq_metadata_footer_bytes", ref, again);
        pq_metadata_release(again);
    } else if (ref && !md) {
        verdict v;
        ck_assert_msg(find_violation(ref, &v),
                      "%s: pqstep rejects a footer c_glib accepts, with no reason c_glib can "
                      "see: [%s] %s", rel, pq_status_name(err.code), err.message);
        ck_assert_msg(err.code == v.code, "%s: expected %s (%s), got %s: %s", rel,
                      pq_status_name(v.code), v.where, pq_status_name(err.code), err.message);
        ck_assert_msg(strstr(err.message, v.where) != NULL,
                      "%s: pqstep's message does not name \"%s\": %s", rel, v.where, err.message);
    } else if (!ref && md) {
        ck_abort_msg("%s: pqstep accepts a footer c_glib rejects (%s)", rel, cerr);
    } else {
        ck_assert_msg(err.message[0] != '\0', "%s: empty pqstep message", rel);
        ck_assert_int_ne(err.code, PQ_OK);
    }

    if (ref) {
        /* c_glib's own encoding of what it decoded: pqstep decodes it to the
         * same object (or rejects it for the same reason as before). */
        size_t elen = 0;
        uint8_t *enc = pq_cglib_encode(ref, &elen);
        ck_assert_ptr_nonnull(enc);
        pq_error err2 = {0};
        pq_metadata *md2 = pq_metadata_parse(enc, elen, NULL, &err2);
        if (md) {
            ck_assert_msg(md2 != NULL, "%s: c_glib re-encoding rejected: %s", rel, err2.message);
            assert_same(rel, "c_glib re-encoding", ref, md2);
        } else {
            ck_assert_msg(md2 == NULL, "%s: the re-encoding is accepted, the original not", rel);
            ck_assert_int_eq(err2.code, err.code);
            ck_assert_str_eq(err2.message, err.message);
        }
        pq_metadata_release(md2);
        g_free(enc);
    }

    pq_metadata_release(md);
    if (ref) g_object_unref(ref);
    g_free(cerr);
    free(l.file);
}
END_TEST

/* A projection decodes the kept chunks exactly as the full parse does; the
 * others carry PQ_CC_SKIPPED (and pq_cglib_compare leaves them out). */
START_TEST(test_corpus_projection)
{
    const char *rel = files[_i];
    loaded l;
    load(rel, &l);
    pqtFileMetaData *ref = pq_cglib_decode(l.footer, l.footer_len, NULL);
    pq_error err = {0};
    pq_metadata *full = pq_metadata_parse(l.footer, l.footer_len, NULL, &err);
    if (!ref || !full) { /* rejected files are covered above */
        pq_metadata_release(full);
        if (ref) g_object_unref(ref);
        free(l.file);
        return;
    }
    uint32_t leaves = pq_metadata_schema(full)->leaves_len;
    uint32_t *cols = malloc((leaves + 1) * sizeof *cols);
    size_t ncols = 0;
    for (uint32_t i = 1; i < leaves; i += 2) cols[ncols++] = i; /* every odd leaf */
    if (ncols == 0) cols[ncols++] = 0;
    pq_parse_options opts = {0};
    opts.columns = cols;
    opts.columns_len = ncols;
    pq_metadata *proj = pq_metadata_parse(l.footer, l.footer_len, &opts, &err);
    ck_assert_msg(proj != NULL, "%s: projected parse: %s", rel, err.message);
    ck_assert(pq_metadata_is_projected(proj));
    assert_same(rel, "projection", ref, proj);
    const pq_file_metadata *fm = pq_metadata_file(proj);
    for (uint32_t g = 0; g < fm->row_groups_len; g++)
        for (uint32_t k = 0; k < fm->row_groups[g].columns_len; k++) {
            int kept = 0;
            for (size_t j = 0; j < ncols; j++) kept |= cols[j] == k;
            int skipped = (fm->row_groups[g].columns[k]->set & PQ_CC_SKIPPED) != 0;
            ck_assert_msg(kept != skipped, "%s: RowGroup[%u].columns[%u]: kept %d, skipped %d",
                          rel, g, k, kept, skipped);
        }
    free(cols);
    pq_metadata_release(proj);
    pq_metadata_release(full);
    g_object_unref(ref);
    free(l.file);
}
END_TEST

/* The file list itself: the corpus has the expected shape, so that a missing
 * folder cannot turn the loops above into no-ops. */
START_TEST(test_corpus_list)
{
    size_t data = 0, geo = 0, bad = 0;
    for (size_t i = 0; i < nfiles; i++) {
        if (strncmp(files[i], "data/geospatial/", 16) == 0) geo++;
        if (strncmp(files[i], "data/", 5) == 0) data++;
        if (strncmp(files[i], "bad_data/", 9) == 0) bad++;
    }
    size_t nrows = 0, manifest_parquet = 0;
    pq_test_manifest_row *rows = pq_test_manifest(&nrows);
    ck_assert_ptr_nonnull(rows);
    for (size_t i = 0; i < nrows; i++) manifest_parquet += ends_with(rows[i].file, ".parquet");
    free(rows);
    ck_assert_uint_eq(nfiles, manifest_parquet);
    ck_assert_uint_ge(geo, 1);
    ck_assert_uint_ge(bad, 1);
    ck_assert_uint_eq(data + bad, nfiles);
}
END_TEST

/* The c_glib reference is not fooled by the one footer the corpus marks as
 * corrupt: it accepts the -7 (it does not check enums), which is exactly
 * the case pqstep must catch. */
START_TEST(test_parquet_1481_reference_view)
{
    loaded l;
    load("bad_data/PARQUET-1481.parquet", &l);
    pqtFileMetaData *ref = pq_cglib_decode(l.footer, l.footer_len, NULL);
    ck_assert_ptr_nonnull(ref);
    const pqtSchemaElement *e = g_ptr_array_index(ref->schema, 1);
    ck_assert(e->__isset_type);
    ck_assert_int_eq((int)e->type, -7);
    pq_error err = {0};
    ck_assert_ptr_null(pq_metadata_parse(l.footer, l.footer_len, NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_CORRUPT_FOOTER);
    ck_assert_msg(strstr(err.message, "SchemaElement[1].type") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "-7") != NULL, "%s", err.message);
    g_object_unref(ref);
    free(l.file);
}
END_TEST

/* A LogicalType member newer than the IDL (id 2555 in this file, says the
 * catalog): c_glib sees an empty union, pqstep keeps the column as FUTURE and
 * does not fail. */
START_TEST(test_unknown_logical_member)
{
    loaded l;
    load("data/unknown-logical-type.parquet", &l);
    pqtFileMetaData *ref = pq_cglib_decode(l.footer, l.footer_len, NULL);
    ck_assert_ptr_nonnull(ref);
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse(l.footer, l.footer_len, NULL, &err);
    ck_assert_msg(md != NULL, "%s", err.message);
    const pq_file_metadata *fm = pq_metadata_file(md);
    int future = 0;
    for (uint32_t i = 0; i < fm->schema_len; i++) {
        const pqtSchemaElement *e = g_ptr_array_index(ref->schema, i);
        if (fm->schema[i].logical.kind != PQ_LOGICAL_FUTURE) continue;
        future++;
        /* c_glib: a logicalType is there, with no member it knows */
        ck_assert(e->__isset_logicalType);
        const pqtLogicalType *lt = e->logicalType;
        ck_assert(!lt->__isset_STRING && !lt->__isset_INTEGER && !lt->__isset_DECIMAL &&
                  !lt->__isset_TIMESTAMP && !lt->__isset_GEOMETRY);
    }
    ck_assert_int_eq(future, 1);
    pq_metadata_release(md);
    g_object_unref(ref);
    free(l.file);
}
END_TEST

/* ---------------------------------------------------------------------------
 * The comparison itself can fail: change one field of c_glib's decode and
 * it must report exactly that field.
 * ------------------------------------------------------------------------- */

static pqtColumnChunk *chunk0(pqtFileMetaData *r)
{
    if (r->row_groups->len == 0) return NULL;
    pqtRowGroup *rg = g_ptr_array_index(r->row_groups, 0);
    return rg->columns->len ? g_ptr_array_index(rg->columns, 0) : NULL;
}

static pqtColumnMetaData *meta0(pqtFileMetaData *r)
{
    pqtColumnChunk *cc = chunk0(r);
    return cc && cc->__isset_meta_data ? cc->meta_data : NULL;
}

static int p_version(pqtFileMetaData *r) { r->version += 1; return 1; }
static int p_name(pqtFileMetaData *r)
{
    pqtSchemaElement *e = g_ptr_array_index(r->schema, 1);
    if (!e->name || !e->name[0]) return 0;
    e->name[0] ^= 0x20;
    return 1;
}
static int p_field_id(pqtFileMetaData *r)
{
    pqtSchemaElement *e = g_ptr_array_index(r->schema, 1);
    e->__isset_field_id = !e->__isset_field_id;
    return 1;
}
static int p_converted(pqtFileMetaData *r)
{
    for (guint i = 0; i < r->schema->len; i++) {
        pqtSchemaElement *e = g_ptr_array_index(r->schema, i);
        if (e->__isset_converted_type) { e->__isset_converted_type = FALSE; return 1; }
    }
    return 0;
}
static int p_ts_unit(pqtFileMetaData *r)
{
    for (guint i = 0; i < r->schema->len; i++) {
        pqtSchemaElement *e = g_ptr_array_index(r->schema, i);
        if (e->__isset_logicalType && e->logicalType->__isset_TIMESTAMP) {
            pqtTimeUnit *u = e->logicalType->TIMESTAMP->unit;
            gboolean was_nanos = u->__isset_NANOS;
            u->__isset_MILLIS = u->__isset_MICROS = u->__isset_NANOS = FALSE;
            if (was_nanos) u->__isset_MILLIS = TRUE;
            else u->__isset_NANOS = TRUE;
            return 1;
        }
    }
    return 0;
}
static int p_int_sign(pqtFileMetaData *r)
{
    for (guint i = 0; i < r->schema->len; i++) {
        pqtSchemaElement *e = g_ptr_array_index(r->schema, i);
        if (e->__isset_logicalType && e->logicalType->__isset_INTEGER) {
            e->logicalType->INTEGER->isSigned = !e->logicalType->INTEGER->isSigned;
            return 1;
        }
    }
    return 0;
}
static int p_decimal(pqtFileMetaData *r)
{
    for (guint i = 0; i < r->schema->len; i++) {
        pqtSchemaElement *e = g_ptr_array_index(r->schema, i);
        if (e->__isset_logicalType && e->logicalType->__isset_DECIMAL) {
            e->logicalType->DECIMAL->precision += 1;
            return 1;
        }
    }
    return 0;
}
static int p_crs(pqtFileMetaData *r)
{
    for (guint i = 0; i < r->schema->len; i++) {
        pqtSchemaElement *e = g_ptr_array_index(r->schema, i);
        if (e->__isset_logicalType && e->logicalType->__isset_GEOMETRY &&
            e->logicalType->GEOMETRY->__isset_crs && e->logicalType->GEOMETRY->crs &&
            e->logicalType->GEOMETRY->crs[0]) {
            e->logicalType->GEOMETRY->crs[0] ^= 1;
            return 1;
        }
    }
    return 0;
}
static int p_min_value(pqtFileMetaData *r)
{
    pqtColumnMetaData *m = meta0(r);
    if (!m || !m->__isset_statistics || !m->statistics->__isset_min_value ||
        !m->statistics->min_value || !m->statistics->min_value->len)
        return 0;
    m->statistics->min_value->data[m->statistics->min_value->len - 1] ^= 1;
    return 1;
}
static int p_exact(pqtFileMetaData *r)
{
    pqtColumnMetaData *m = meta0(r);
    if (!m || !m->__isset_statistics || !m->statistics->__isset_is_max_value_exact) return 0;
    m->statistics->is_max_value_exact = !m->statistics->is_max_value_exact;
    return 1;
}
static int p_encodings(pqtFileMetaData *r)
{
    pqtColumnMetaData *m = meta0(r);
    if (!m) return 0;
    gint32 e = 42;
    g_array_append_val(m->encodings, e);
    return 1;
}
static int p_path(pqtFileMetaData *r)
{
    pqtColumnMetaData *m = meta0(r);
    if (!m || !m->path_in_schema->len) return 0;
    gchar *s = g_ptr_array_index(m->path_in_schema, 0);
    if (!s || !s[0]) return 0;
    s[0] ^= 0x20;
    return 1;
}
static int p_histogram(pqtFileMetaData *r)
{
    pqtColumnMetaData *m = meta0(r);
    if (!m || !m->__isset_size_statistics ||
        !m->size_statistics->__isset_definition_level_histogram ||
        !m->size_statistics->definition_level_histogram->len)
        return 0;
    g_array_index(m->size_statistics->definition_level_histogram, gint64, 0) += 1;
    return 1;
}
static int p_bbox(pqtFileMetaData *r)
{
    for (guint g = 0; g < r->row_groups->len; g++) {
        pqtRowGroup *rg = g_ptr_array_index(r->row_groups, g);
        for (guint k = 0; k < rg->columns->len; k++) {
            pqtColumnChunk *cc = g_ptr_array_index(rg->columns, k);
            pqtColumnMetaData *m = cc->meta_data;
            if (cc->__isset_meta_data && m->__isset_geospatial_statistics &&
                m->geospatial_statistics->__isset_bbox) {
                m->geospatial_statistics->bbox->ymax += 0.5;
                return 1;
            }
        }
    }
    return 0;
}
static int p_enc_stats(pqtFileMetaData *r)
{
    pqtColumnMetaData *m = meta0(r);
    if (!m || !m->__isset_encoding_stats || !m->encoding_stats->len) return 0;
    ((pqtPageEncodingStats *)g_ptr_array_index(m->encoding_stats, 0))->count += 1;
    return 1;
}
static int p_col_kv(pqtFileMetaData *r)
{
    if (!r->row_groups->len) return 0;
    pqtRowGroup *rg = g_ptr_array_index(r->row_groups, 0);
    for (guint k = 0; k < rg->columns->len; k++) {
        pqtColumnChunk *cc = g_ptr_array_index(rg->columns, k);
        if (cc->__isset_meta_data && cc->meta_data->__isset_key_value_metadata &&
            cc->meta_data->key_value_metadata->len) {
            pqtKeyValue *kv = g_ptr_array_index(cc->meta_data->key_value_metadata, 0);
            kv->__isset_value = !kv->__isset_value;
            return 1;
        }
    }
    return 0;
}
static int p_offset_index(pqtFileMetaData *r)
{
    pqtColumnChunk *cc = chunk0(r);
    if (!cc || !cc->__isset_offset_index_offset) return 0;
    cc->offset_index_offset += 1;
    return 1;
}
static int p_sorting(pqtFileMetaData *r)
{
    if (!r->row_groups->len) return 0;
    pqtRowGroup *rg = g_ptr_array_index(r->row_groups, 0);
    if (!rg->__isset_sorting_columns || !rg->sorting_columns->len) return 0;
    pqtSortingColumn *sc = g_ptr_array_index(rg->sorting_columns, 0);
    sc->nulls_first = !sc->nulls_first;
    return 1;
}
static int p_rg_rows(pqtFileMetaData *r)
{
    if (!r->row_groups->len) return 0;
    ((pqtRowGroup *)g_ptr_array_index(r->row_groups, 0))->num_rows += 1;
    return 1;
}
static int p_column_order(pqtFileMetaData *r)
{
    if (!r->__isset_column_orders || !r->column_orders->len) return 0;
    pqtColumnOrder *co = g_ptr_array_index(r->column_orders, 0);
    co->__isset_TYPE_ORDER = !co->__isset_TYPE_ORDER;
    return 1;
}
static int p_kv(pqtFileMetaData *r)
{
    if (!r->__isset_key_value_metadata || !r->key_value_metadata->len) return 0;
    pqtKeyValue *kv = g_ptr_array_index(r->key_value_metadata, 0);
    if (!kv->value || !kv->value[0]) return 0;
    kv->value[strlen(kv->value) - 1] ^= 1;
    return 1;
}
static int p_created_by(pqtFileMetaData *r)
{
    if (!r->__isset_created_by) return 0;
    r->__isset_created_by = FALSE;
    return 1;
}

static const struct perturbation {
    int (*apply)(pqtFileMetaData *);
    const char *path; /* the start of the reported difference */
} perturbations[] = {
    {p_version, "version:"},
    {p_name, "schema[1].name:"},
    {p_field_id, "schema[1].field_id:"},
    {p_converted, "].converted_type:"},
    {p_ts_unit, "].logicalType.unit:"},
    {p_int_sign, "].logicalType.is_signed:"},
    {p_decimal, "].logicalType.precision:"},
    {p_crs, "].logicalType.crs:"},
    {p_min_value, "row_groups[0].columns[0].meta_data.statistics.min_value:"},
    {p_exact, "row_groups[0].columns[0].meta_data.statistics.is_max_value_exact:"},
    {p_encodings, "row_groups[0].columns[0].meta_data.encodings:"},
    {p_path, "row_groups[0].columns[0].meta_data.path_in_schema[0]:"},
    {p_histogram, "row_groups[0].columns[0].meta_data.size_statistics.definition_level_histogram:"},
    {p_bbox, "].meta_data.geospatial_statistics.bbox.ymax:"},
    {p_enc_stats, "row_groups[0].columns[0].meta_data.encoding_stats[0].count:"},
    {p_col_kv, "].meta_data.key_value_metadata[0].value:"},
    {p_offset_index, "row_groups[0].columns[0].offset_index_offset:"},
    {p_sorting, "row_groups[0].sorting_columns[0].nulls_first:"},
    {p_rg_rows, "row_groups[0].num_rows:"},
    {p_column_order, "column_orders[0]:"},
    {p_kv, "key_value_metadata[0].value:"},
    {p_created_by, "created_by:"},
};

START_TEST(test_compare_detects)
{
    const struct perturbation *pt = &perturbations[_i];
    int applied = 0;
    for (size_t f = 0; f < nfiles && applied < 3; f++) {
        loaded l;
        load(files[f], &l);
        pq_metadata *md = pq_metadata_parse(l.footer, l.footer_len, NULL, NULL);
        pqtFileMetaData *ref = md ? pq_cglib_decode(l.footer, l.footer_len, NULL) : NULL;
        if (ref && pt->apply(ref)) {
            char diff[512];
            applied++;
            ck_assert_msg(pq_cglib_compare(ref, pq_metadata_file(md), diff, sizeof diff) == 1,
                          "%s: perturbation %d not detected", files[f], _i);
            ck_assert_msg(strstr(diff, pt->path) != NULL &&
                              (pt->path[0] == ']' || strncmp(diff, pt->path, strlen(pt->path)) == 0),
                          "%s: expected a difference at %s, got %s", files[f], pt->path, diff);
        }
        if (ref) g_object_unref(ref);
        pq_metadata_release(md);
        free(l.file);
    }
    ck_assert_msg(applied > 0, "perturbation %d (%s) applies to no corpus file", _i, pt->path);
}
END_TEST

static Suite *reference_suite(void)
{
    Suite *s = suite_create("cglib_reference");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_test(tc, test_corpus_list);
    tcase_add_loop_test(tc, test_corpus_file, 0, (int)nfiles);
    tcase_add_loop_test(tc, test_corpus_projection, 0, (int)nfiles);
    tcase_add_test(tc, test_parquet_1481_reference_view);
    tcase_add_test(tc, test_unknown_logical_member);
    tcase_add_loop_test(tc, test_compare_detects, 0, (int)G_N_ELEMENTS(perturbations));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    pq_cglib_init();
    const char *root = pq_test_corpus_dir();
    if (!root) pq_test_skip("parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)");
    walk(root, "data");
    walk(root, "bad_data");
    if (nfiles == 0) {
        fprintf(stderr, "no *.parquet files under %s/data or bad_data\n", root);
        return 1;
    }
    qsort(files, nfiles, sizeof *files, cmp_str);
    SRunner *sr = srunner_create(reference_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    for (size_t i = 0; i < nfiles; i++) free(files[i]);
    free(files);
    return failed ? 1 : 0;
}
