/*
 * test_cglib_hostile.c — hostile footers against pq_metadata_parse.
 *
 * Valid footers are built with Apache Thrift c_glib (the builders of
 * cglib_ref.h) and then broken in one place: by setting a field c_glib will
 * happily encode (an enum outside its range, a negative count, a schema that
 * is not a tree, a chunk count that differs from the leaf count), or at the
 * wire level (a list or string length far beyond the bytes there are, a
 * negative length, a recursion bomb, a malformed varint, a missing required
 * field) by rewriting bytes next to unique markers in c_glib's encoding or by
 * writing compact-protocol bytes by hand.
 *
 * Every case must fail with the right status and a message that names the
 * struct and field, must not trip ASan/UBSan (this suite also runs with
 * sanitizers), and must not crash the c_glib reference either (which rejects
 * the wire-level cases itself and accepts the semantic ones).
 *
 * Accepted oddities (an unknown encoding, unknown fields of every wire type,
 * a known field sent with another wire type) must decode equal to c_glib.
 * For accepted inputs the memory pqstep holds stays proportional to the
 * footer. Encrypted column metadata in a plaintext footer is refused with
 * PQ_ERR_ENCRYPTED, through pq_metadata_parse and through the reader.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cglib_ref.h"
#include "pqstep.h"
#include "span_transport.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------
 * Bytes by hand: a tiny compact-protocol writer
 * ------------------------------------------------------------------------- */

enum { W_STOP = 0, W_TRUE = 1, W_FALSE = 2, W_BYTE = 3, W_I16 = 4, W_I32 = 5, W_I64 = 6,
       W_DOUBLE = 7, W_BINARY = 8, W_LIST = 9, W_SET = 10, W_MAP = 11, W_STRUCT = 12 };

typedef struct wbuf {
    uint8_t *p;
    size_t len, cap;
} wbuf;

static void w_bytes(wbuf *w, const void *src, size_t n)
{
    if (w->len + n > w->cap) {
        w->cap = (w->len + n) * 2 + 64;
        w->p = g_realloc(w->p, w->cap);
    }
    if (n) memcpy(w->p + w->len, src, n);
    w->len += n;
}

static void w_byte(wbuf *w, uint8_t b) { w_bytes(w, &b, 1); }

static void w_uvarint(wbuf *w, uint64_t v)
{
    while (v >= 0x80) {
        w_byte(w, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    w_byte(w, (uint8_t)v);
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static void w_i32(wbuf *w, int32_t v) { w_uvarint(w, zigzag(v)); }
static void w_i64(wbuf *w, int64_t v) { w_uvarint(w, zigzag(v)); }

/* Field header in long form (type byte, then the zigzag id): valid whatever
 * the previous id was. */
static void w_field(wbuf *w, int16_t id, int type)
{
    w_byte(w, (uint8_t)type);
    w_uvarint(w, zigzag(id));
}

static void w_list(wbuf *w, int elem_type, uint64_t n)
{
    if (n < 15) {
        w_byte(w, (uint8_t)(n << 4 | (unsigned)elem_type));
    } else {
        w_byte(w, (uint8_t)(0xf0 | (unsigned)elem_type));
        w_uvarint(w, n);
    }
}

static void w_binary(wbuf *w, const void *s, size_t n)
{
    w_uvarint(w, n);
    w_bytes(w, s, n);
}

/* The bytes of a varint, for splicing. */
static size_t varint_bytes(uint64_t v, uint8_t out[10])
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* Replace the first occurrence of `find` in buf. */
static uint8_t *splice(const uint8_t *buf, size_t len, const void *find, size_t flen,
                       const void *repl, size_t rlen, size_t *out_len)
{
    const uint8_t *hit = NULL;
    for (size_t i = 0; !hit && i + flen <= len; i++)
        if (memcmp(buf + i, find, flen) == 0) hit = buf + i;
    ck_assert_msg(hit != NULL, "splice marker not found");
    size_t pre = (size_t)(hit - buf);
    *out_len = len - flen + rlen;
    uint8_t *out = g_malloc(*out_len ? *out_len : 1);
    memcpy(out, buf, pre);
    memcpy(out + pre, repl, rlen);
    memcpy(out + pre + rlen, hit + flen, len - pre - flen);
    return out;
}

/* The first string field whose value is `marker` (the wire has fields in id
 * order, so the schema's names come before the row groups' paths): give it
 * the length `fake` instead of the true one. */
static uint8_t *relength(const uint8_t *buf, size_t len, const char *marker, uint64_t fake,
                         size_t *out_len)
{
    size_t m = strlen(marker);
    uint8_t find[80], repl[96], vb[10];
    ck_assert(m < 64);
    ck_assert(varint_bytes(m, vb) == 1);
    find[0] = vb[0];
    memcpy(find + 1, marker, m);
    size_t n = varint_bytes(fake, repl);
    memcpy(repl + n, marker, m);
    return splice(buf, len, find, m + 1, repl, n + m, out_len);
}

/* ---------------------------------------------------------------------------
 * Footers built with c_glib
 * ------------------------------------------------------------------------- */

static uint8_t *encode_free(pqtFileMetaData *md, size_t *len)
{
    uint8_t *out = pq_cglib_encode(md, len);
    ck_assert_ptr_nonnull(out);
    g_object_unref(md);
    return out;
}

/* The base: 3 OPTIONAL INT64 leaves, 2 row groups; chunk (0,0) carries
 * markers used by the wire-level cases and encoding stats. */
static pqtFileMetaData *base(void)
{
    pqtFileMetaData *md = pq_cglib_build_flat(3, 2);
    g_free(md->created_by);
    md->created_by = g_strdup("@@CREATED_BY@@");
    pqtSchemaElement *e1 = pq_cglib_element(md, 1);
    g_free(e1->name);
    e1->name = g_strdup("@@NAME@@");
    for (unsigned g = 0; g < 2; g++)
        for (unsigned k = 0; k < 3; k++) {
            pqtColumnMetaData *m = pq_cglib_chunk(md, g, k)->meta_data;
            for (int j = 0; j < 2; j++) {
                pqtPageEncodingStats *es = g_object_new(PQT_TYPE_PAGE_ENCODING_STATS, NULL);
                es->page_type = j ? PQT_PAGE_TYPE_DATA_PAGE : PQT_PAGE_TYPE_DICTIONARY_PAGE;
                es->encoding = PQT_ENCODING_PLAIN;
                es->count = 1;
                g_ptr_array_add(m->encoding_stats, es);
            }
            m->__isset_encoding_stats = TRUE;
        }
    /* the first leaf of the first row group is named in pq_cglib_build_flat
     * as "c0"; keep its path consistent with the renamed element */
    for (unsigned g = 0; g < 2; g++) {
        pqtColumnMetaData *m = pq_cglib_chunk(md, g, 0)->meta_data;
        g_ptr_array_remove_index(m->path_in_schema, 0);
        g_ptr_array_add(m->path_in_schema, g_strdup("@@NAME@@"));
    }
    pqtColumnMetaData *m = pq_cglib_chunk(md, 0, 0)->meta_data;
    g_array_set_size(m->encodings, 0);
    gint32 encs[3] = {1001, 1002, 1003}; /* unknown encodings: a unique byte pattern */
    g_array_append_vals(m->encodings, encs, 3);
    pq_cglib_set_bytes(&m->statistics->min_value, "@@MINV@@", 8);
    m->size_statistics->__isset_definition_level_histogram = TRUE;
    gint64 hist[2] = {777777, 888888};
    g_array_append_vals(m->size_statistics->definition_level_histogram, hist, 2);
    m->__isset_size_statistics = TRUE;
    return md;
}

/* ---------------------------------------------------------------------------
 * The cases
 * ------------------------------------------------------------------------- */

typedef uint8_t *(*build_fn)(size_t *len);

typedef struct hostile {
    const char *name;
    build_fn build;
    pq_status code;
    const char *where;   /* must appear in pqstep's message */
    const char *why;     /* must appear too (NULL: not checked) */
    int cglib_accepts;   /* 1: c_glib decodes it, 0: c_glib rejects it, -1: either */
} hostile;

/* --- enums --------------------------------------------------------------- */

static uint8_t *b_schema_type_8(size_t *len)
{
    pqtFileMetaData *md = base();
    pq_cglib_element(md, 2)->type = 8;
    return encode_free(md, len);
}

static uint8_t *b_schema_type_neg7(size_t *len)
{
    pqtFileMetaData *md = base();
    pq_cglib_element(md, 1)->type = -7;
    return encode_free(md, len);
}

static uint8_t *b_repetition_3(size_t *len)
{
    pqtFileMetaData *md = base();
    pq_cglib_element(md, 1)->repetition_type = 3;
    return encode_free(md, len);
}

static uint8_t *b_converted_22(size_t *len)
{
    pqtFileMetaData *md = base();
    pqtSchemaElement *e = pq_cglib_element(md, 3);
    e->converted_type = 22;
    e->__isset_converted_type = TRUE;
    return encode_free(md, len);
}

static uint8_t *b_converted_neg2(size_t *len)
{
    pqtFileMetaData *md = base();
    pqtSchemaElement *e = pq_cglib_element(md, 2);
    e->converted_type = -2;
    e->__isset_converted_type = TRUE;
    return encode_free(md, len);
}

static uint8_t *b_column_type_8(size_t *len)
{
    pqtFileMetaData *md = base();
    pq_cglib_chunk(md, 0, 1)->meta_data->type = 8;
    return encode_free(md, len);
}

static uint8_t *b_codec_99(size_t *len)
{
    pqtFileMetaData *md = base();
    pq_cglib_chunk(md, 0, 1)->meta_data->codec = 99;
    return encode_free(md, len);
}

static uint8_t *b_codec_neg1_rg1(size_t *len)
{
    pqtFileMetaData *md = base();
    pq_cglib_chunk(md, 1, 2)->meta_data->codec = -1;
    return encode_free(md, len);
}

static uint8_t *b_page_type_4(size_t *len)
{
    pqtFileMetaData *md = base();
    pqtColumnMetaData *m = pq_cglib_chunk(md, 0, 2)->meta_data;
    ((pqtPageEncodingStats *)g_ptr_array_index(m->encoding_stats, 1))->page_type = 4;
    return encode_free(md, len);
}

static uint8_t *b_page_type_neg(size_t *len)
{
    pqtFileMetaData *md = base();
    pqtColumnMetaData *m = pq_cglib_chunk(md, 1, 0)->meta_data;
    ((pqtPageEncodingStats *)g_ptr_array_index(m->encoding_stats, 0))->page_type = -3;
    return encode_free(md, len);
}

/* --- numbers ------------------------------------------------------------- */

static uint8_t *b_rg_rows_negative(size_t *len)
{
    pqtFileMetaData *md = base();
    pq_cglib_row_group(md, 1)->num_rows = -5;
    return encode_free(md, len);
}

static uint8_t *b_file_rows_negative(size_t *len)
{
    pqtFileMetaData *md = base();
    md->num_rows = -1;
    return encode_free(md, len);
}

/* --- the schema tree ----------------------------------------------------- */

static uint8_t *b_root_children_past_end(size_t *len)
{
    pqtFileMetaData *md = base();
    pq_cglib_element(md, 0)->num_children = 8;
    return encode_free(md, len);
}

static uint8_t *b_root_children_huge(size_t *len)
{
    pqtFileMetaData *md = base();
    pq_cglib_element(md, 0)->num_children = 0x7fffffff;
    return encode_free(md, len);
}

static uint8_t *b_negative_children(size_t *len)
{
    pqtFileMetaData *md = base();
    pqtSchemaElement *e = pq_cglib_element(md, 2);
    e->num_children = -1;
    e->__isset_num_children = TRUE;
    return encode_free(md, len);
}

static uint8_t *b_root_negative_children(size_t *len)
{
    pqtFileMetaData *md = base();
    pq_cglib_element(md, 0)->num_children = -3;
    return encode_free(md, len);
}

/* A group inside the root claims more children than the list has left. */
static uint8_t *b_group_children_past_end(size_t *len)
{
    pqtFileMetaData *md = base();
    pqtSchemaElement *e = pq_cglib_element(md, 3);
    e->__isset_type = FALSE;
    e->num_children = 5;
    e->__isset_num_children = TRUE;
    return encode_free(md, len);
}

static uint8_t *b_root_children_short(size_t *len)
{
    pqtFileMetaData *md = base();
    pq_cglib_element(md, 0)->num_children = 1;
    return encode_free(md, len);
}

static uint8_t *b_empty_schema(size_t *len)
{
    pqtFileMetaData *md = base();
    g_ptr_array_set_size(md->schema, 0);
    g_ptr_array_set_size(md->row_groups, 0);
    return encode_free(md, len);
}

/* --- chunks vs schema ---------------------------------------------------- */

static uint8_t *b_chunks_fewer(size_t *len)
{
    pqtFileMetaData *md = base();
    g_ptr_array_remove_index(pq_cglib_row_group(md, 1)->columns, 2);
    return encode_free(md, len);
}

static uint8_t *b_chunks_more(size_t *len)
{
    pqtFileMetaData *md = base();
    pqtRowGroup *rg = pq_cglib_row_group(md, 0);
    g_ptr_array_add(rg->columns, g_object_ref(g_ptr_array_index(rg->columns, 1)));
    return encode_free(md, len);
}

static uint8_t *b_path_mismatch(size_t *len)
{
    pqtFileMetaData *md = base();
    pqtColumnMetaData *m = pq_cglib_chunk(md, 0, 1)->meta_data;
    g_ptr_array_set_size(m->path_in_schema, 0);
    g_ptr_array_add(m->path_in_schema, g_strdup("c2"));
    return encode_free(md, len);
}

/* A path_in_schema naming another leaf is accepted and kept as written:
 * chunks belong to leaves by position (as in parquet-cpp and arrow-rs), and
 * checking every path would cost the hot path a string compare per chunk. */
START_TEST(test_path_mismatch_is_positional)
{
    size_t len;
    uint8_t *buf = b_path_mismatch(&len);
    pq_error err;
    pq_metadata *md = pq_metadata_parse(buf, len, NULL, &err);
    ck_assert_msg(md, "%s", err.message);
    const pq_column_meta *m = &pq_metadata_file(md)->row_groups[0].columns[1]->meta_data;
    ck_assert_uint_eq(m->path_in_schema_len, 1);
    ck_assert_uint_eq(m->path_in_schema[0].len, 2);
    ck_assert_int_eq(memcmp(m->path_in_schema[0].ptr, "c2", 2), 0);
    pq_metadata_release(md);
    g_free(buf);
}
END_TEST

/* --- wire level ---------------------------------------------------------- */

/* FileMetaData{1: version} then a list header for field `id` claiming n
 * elements, and a handful of bytes. */
static uint8_t *huge_list_top(size_t *len, int16_t id, int elem_type, uint64_t n)
{
    wbuf w = {0};
    w_field(&w, 1, W_I32);
    w_i32(&w, 2);
    w_field(&w, id, W_LIST);
    w_list(&w, elem_type, n);
    for (int i = 0; i < 6; i++) w_byte(&w, 0);
    *len = w.len;
    return w.p;
}

static uint8_t *b_schema_list_2g(size_t *len)
{
    return huge_list_top(len, 2, W_STRUCT, 0x7fffffffu);
}
static uint8_t *b_schema_list_4g(size_t *len)
{
    return huge_list_top(len, 2, W_STRUCT, 0xffffffffu);
}
static uint8_t *b_row_groups_2g(size_t *len) { return huge_list_top(len, 4, W_STRUCT, 1u << 31); }
static uint8_t *b_kv_list_huge(size_t *len) { return huge_list_top(len, 5, W_STRUCT, 1000000); }
static uint8_t *b_list_size_u64(size_t *len) { return huge_list_top(len, 2, W_STRUCT, UINT64_MAX); }

/* ColumnMetaData.encodings of chunk (0,0): its header says 2^31-1 values. */
static uint8_t *b_encodings_2g(size_t *len)
{
    size_t blen;
    uint8_t *b = encode_free(base(), &blen);
    /* list<i32> of 3: header 0x35, then zigzag(1001..1003) */
    const uint8_t find[] = {0x35, 0xd2, 0x0f, 0xd4, 0x0f, 0xd6, 0x0f};
    const uint8_t repl[] = {0xf5, 0xff, 0xff, 0xff, 0xff, 0x07, 0xd2, 0x0f, 0xd4, 0x0f, 0xd6, 0x0f};
    uint8_t *out = splice(b, blen, find, sizeof find, repl, sizeof repl, len);
    g_free(b);
    return out;
}

/* SizeStatistics.definition_level_histogram of chunk (0,0): 2^31 values. */
static uint8_t *b_histogram_2g(size_t *len)
{
    size_t blen;
    uint8_t *b = encode_free(base(), &blen);
    uint8_t find[16], repl[24];
    size_t nf = 0, nr = 0;
    find[nf++] = 0x26; /* list<i64> of 2 */
    nf += varint_bytes(zigzag(777777), find + nf);
    repl[nr++] = 0xf6;
    nr += varint_bytes(1u << 31, repl + nr);
    nr += varint_bytes(zigzag(777777), repl + nr);
    uint8_t *out = splice(b, blen, find, nf, repl, nr, len);
    g_free(b);
    return out;
}

static uint8_t *relength_base(size_t *len, const char *marker, uint64_t fake)
{
    size_t blen;
    uint8_t *b = encode_free(base(), &blen);
    uint8_t *out = relength(b, blen, marker, fake, len);
    g_free(b);
    return out;
}

static uint8_t *b_created_by_1m(size_t *len)
{
    return relength_base(len, "@@CREATED_BY@@", 1000000);
}
static uint8_t *b_created_by_neg(size_t *len)
{
    return relength_base(len, "@@CREATED_BY@@", 0xffffffffu);
}
static uint8_t *b_created_by_u64(size_t *len)
{
    return relength_base(len, "@@CREATED_BY@@", UINT64_MAX);
}
static uint8_t *b_name_long(size_t *len) { return relength_base(len, "@@NAME@@", 100000); }
static uint8_t *b_name_neg(size_t *len) { return relength_base(len, "@@NAME@@", 0x80000000u); }
static uint8_t *b_min_value_long(size_t *len) { return relength_base(len, "@@MINV@@", 5000); }

/* An unknown field of FileMetaData (id 100) holding structs nested `depth`
 * deep (each level: field 1 of type struct), closed properly. */
static uint8_t *bomb(size_t *len, int container, size_t depth)
{
    wbuf w = {0};
    w_field(&w, 1, W_I32);
    w_i32(&w, 2);
    w_field(&w, 100, container ? W_LIST : W_STRUCT);
    for (size_t i = 0; i < depth; i++) w_byte(&w, container ? 0x19 : 0x1c);
    if (container) {
        w_byte(&w, 0x03); /* innermost: an empty list of bytes */
    } else {
        for (size_t i = 0; i <= depth; i++) w_byte(&w, W_STOP);
    }
    w_byte(&w, W_STOP);
    *len = w.len;
    return w.p;
}

static uint8_t *b_struct_bomb(size_t *len) { return bomb(len, 0, 200000); }
static uint8_t *b_list_bomb(size_t *len) { return bomb(len, 1, 200000); }
static uint8_t *b_struct_bomb_65(size_t *len) { return bomb(len, 0, 65); }

/* The same bomb inside ColumnMetaData: spliced in front of the first
 * encodings list, as unknown field 100 of chunk (0,0)'s meta_data. */
static uint8_t *b_bomb_in_chunk(size_t *len)
{
    size_t blen;
    uint8_t *b = encode_free(base(), &blen);
    /* the encodings field header precedes the list: type list, delta 1 from
     * field 1 (type) */
    const uint8_t find[] = {0x19, 0x35, 0xd2, 0x0f, 0xd4, 0x0f, 0xd6, 0x0f};
    wbuf w = {0};
    w_field(&w, 100, W_STRUCT);
    for (int i = 0; i < 5000; i++) w_byte(&w, 0x1c);
    for (int i = 0; i <= 5000; i++) w_byte(&w, W_STOP);
    /* back to field 2 in long form, since the last id is now 100 */
    w_field(&w, 2, W_LIST);
    w_bytes(&w, find + 1, sizeof find - 1);
    uint8_t *out = splice(b, blen, find, sizeof find, w.p, w.len, len);
    g_free(w.p);
    g_free(b);
    return out;
}

/* A varint that never ends. */
static uint8_t *b_endless_varint(size_t *len)
{
    wbuf w = {0};
    w_field(&w, 1, W_I32);
    for (int i = 0; i < 40; i++) w_byte(&w, 0xff);
    *len = w.len;
    return w.p;
}

/* An 11-byte varint in num_rows. */
static uint8_t *b_varint_too_long(size_t *len)
{
    wbuf w = {0};
    w_field(&w, 1, W_I32);
    w_i32(&w, 2);
    w_field(&w, 3, W_I64);
    for (int i = 0; i < 10; i++) w_byte(&w, 0x81);
    w_byte(&w, 0x01);
    w_byte(&w, W_STOP);
    *len = w.len;
    return w.p;
}

/* A wire type that does not exist (13) in an unknown field. */
static uint8_t *b_bad_wire_type(size_t *len)
{
    wbuf w = {0};
    w_field(&w, 1, W_I32);
    w_i32(&w, 2);
    w_byte(&w, 0x1d); /* field id 2, type 13 */
    w_byte(&w, 0x00);
    *len = w.len;
    return w.p;
}

/* A minimal footer written by hand, leaving one required field out. */
static uint8_t *minimal_without(size_t *len, int skip_id)
{
    wbuf w = {0};
    if (skip_id != 1) {
        w_field(&w, 1, W_I32);
        w_i32(&w, 2);
    }
    if (skip_id != 2) {
        w_field(&w, 2, W_LIST);
        w_list(&w, W_STRUCT, 1);
        w_field(&w, 4, W_BINARY);
        w_binary(&w, "schema", 6);
        w_field(&w, 5, W_I32);
        w_i32(&w, 0);
        w_byte(&w, W_STOP);
    }
    if (skip_id != 3) {
        w_field(&w, 3, W_I64);
        w_i64(&w, 0);
    }
    if (skip_id != 4) {
        w_field(&w, 4, W_LIST);
        w_list(&w, W_STRUCT, 0);
    }
    w_byte(&w, W_STOP);
    *len = w.len;
    return w.p;
}

static uint8_t *b_missing_version(size_t *len) { return minimal_without(len, 1); }
static uint8_t *b_missing_schema(size_t *len) { return minimal_without(len, 2); }
static uint8_t *b_missing_num_rows(size_t *len) { return minimal_without(len, 3); }
static uint8_t *b_missing_row_groups(size_t *len) { return minimal_without(len, 4); }

/* A row group without num_rows (written by hand around c_glib's schema). */
static uint8_t *b_rg_missing_num_rows(size_t *len)
{
    wbuf w = {0};
    w_field(&w, 1, W_I32);
    w_i32(&w, 2);
    w_field(&w, 2, W_LIST);
    w_list(&w, W_STRUCT, 1);
    w_field(&w, 4, W_BINARY);
    w_binary(&w, "schema", 6);
    w_field(&w, 5, W_I32);
    w_i32(&w, 0);
    w_byte(&w, W_STOP);
    w_field(&w, 3, W_I64);
    w_i64(&w, 0);
    w_field(&w, 4, W_LIST);
    w_list(&w, W_STRUCT, 1);
    w_field(&w, 1, W_LIST); /* columns: none */
    w_list(&w, W_STRUCT, 0);
    w_field(&w, 2, W_I64); /* total_byte_size */
    w_i64(&w, 0);
    w_byte(&w, W_STOP);
    w_byte(&w, W_STOP);
    *len = w.len;
    return w.p;
}

/* A list of i32 where the schema list of structs belongs. */
static uint8_t *b_schema_list_of_i32(size_t *len)
{
    wbuf w = {0};
    w_field(&w, 1, W_I32);
    w_i32(&w, 2);
    w_field(&w, 2, W_LIST);
    w_list(&w, W_I32, 3);
    w_i32(&w, 1);
    w_i32(&w, 2);
    w_i32(&w, 3);
    w_byte(&w, W_STOP);
    *len = w.len;
    return w.p;
}

/* Truncated in the middle of chunk (1,2). */
static uint8_t *b_truncated(size_t *len)
{
    size_t blen;
    uint8_t *b = encode_free(base(), &blen);
    *len = blen - 40;
    return b;
}

/* --- encryption in a plaintext footer ------------------------------------ */

static uint8_t *b_encryption_algorithm(size_t *len)
{
    pqtFileMetaData *md = base();
    md->__isset_encryption_algorithm = TRUE;
    md->encryption_algorithm->__isset_AES_GCM_V1 = TRUE;
    pq_cglib_set_bytes(&md->footer_signing_key_metadata, "key", 3);
    md->__isset_footer_signing_key_metadata = TRUE;
    return encode_free(md, len);
}

static uint8_t *b_crypto_metadata(size_t *len)
{
    pqtFileMetaData *md = base();
    pqtColumnChunk *cc = pq_cglib_chunk(md, 0, 1);
    cc->__isset_crypto_metadata = TRUE;
    cc->crypto_metadata->__isset_ENCRYPTION_WITH_FOOTER_KEY = TRUE;
    return encode_free(md, len);
}

static uint8_t *b_crypto_column_key(size_t *len)
{
    pqtFileMetaData *md = base();
    pqtColumnChunk *cc = pq_cglib_chunk(md, 1, 2);
    cc->__isset_crypto_metadata = TRUE;
    cc->crypto_metadata->__isset_ENCRYPTION_WITH_COLUMN_KEY = TRUE;
    pqtEncryptionWithColumnKey *key = cc->crypto_metadata->ENCRYPTION_WITH_COLUMN_KEY;
    g_ptr_array_add(key->path_in_schema, g_strdup("c2"));
    return encode_free(md, len);
}

static uint8_t *b_encrypted_column_metadata(size_t *len)
{
    pqtFileMetaData *md = base();
    pqtColumnChunk *cc = pq_cglib_chunk(md, 0, 2);
    pq_cglib_set_bytes(&cc->encrypted_column_metadata, "\x01\x02\x03\x04", 4);
    cc->__isset_encrypted_column_metadata = TRUE;
    cc->__isset_meta_data = FALSE;
    return encode_free(md, len);
}

static const hostile cases[] = {
    /* enums */
    {"schema type 8", b_schema_type_8, PQ_ERR_CORRUPT_FOOTER,
     "SchemaElement[2].type", "invalid value 8", 1},
    {"schema type -7", b_schema_type_neg7, PQ_ERR_CORRUPT_FOOTER,
     "SchemaElement[1].type", "invalid value -7", 1},
    {"repetition 3", b_repetition_3, PQ_ERR_CORRUPT_FOOTER,
     "SchemaElement[1].repetition_type", "invalid value 3", 1},
    {"column type 8", b_column_type_8, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[0].columns[1].meta_data.type", "invalid value 8", 1},
    {"codec 99", b_codec_99, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[0].columns[1].meta_data.codec", "invalid value 99", 1},
    {"codec -1", b_codec_neg1_rg1, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[1].columns[2].meta_data.codec", "invalid value -1", 1},
    {"page_type 4", b_page_type_4, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[0].columns[2].meta_data.encoding_stats[1].page_type", "invalid value 4", 1},
    {"page_type -3", b_page_type_neg, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[1].columns[0].meta_data.encoding_stats[0].page_type", "invalid value -3", 1},
    /* numbers */
    {"row group num_rows -5", b_rg_rows_negative, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[1].num_rows", "-5", 1},
    {"file num_rows -1", b_file_rows_negative, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.num_rows", "-1", 1},
    /* schema tree */
    {"root num_children past the list", b_root_children_past_end, PQ_ERR_SCHEMA,
     "schema[0]", "num_children 8", 1},
    {"root num_children 2^31-1", b_root_children_huge, PQ_ERR_SCHEMA,
     "schema[0]", "num_children", 1},
    {"negative num_children", b_negative_children, PQ_ERR_SCHEMA,
     "schema[2]", "negative num_children -1", 1},
    {"root negative num_children", b_root_negative_children, PQ_ERR_SCHEMA,
     "schema[0]", "num_children", 1},
    {"group num_children past the list", b_group_children_past_end, PQ_ERR_SCHEMA,
     "schema[3]", "num_children 5", 1},
    {"root num_children short", b_root_children_short, PQ_ERR_SCHEMA,
     "schema[2]", "outside the tree", 1},
    {"empty schema", b_empty_schema, PQ_ERR_SCHEMA, "schema", "empty", 1},
    /* chunks */
    {"fewer chunks than leaves", b_chunks_fewer, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[1].columns", "2 column chunks", 1},
    {"more chunks than leaves", b_chunks_more, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[0].columns", "4 column chunks", 1},
    /* path_in_schema is not checked against the schema: chunks are matched to
     * leaves by position, as parquet-cpp and arrow-rs do. */
    /* wire level: sizes */
    {"schema list of 2^31-1", b_schema_list_2g, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.schema", "list size", 0},
    {"schema list of 2^32-1", b_schema_list_4g, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.schema", "list size", 0},
    {"schema list of 2^64-1", b_list_size_u64, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.schema", NULL, 0},
    {"row_groups list of 2^31", b_row_groups_2g, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.row_groups", "list size", 0},
    {"key_value list of 10^6", b_kv_list_huge, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.key_value_metadata", "list size", 0},
    {"encodings list of 2^31-1", b_encodings_2g, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[0].columns[0].meta_data.encodings", "list size", 0},
    {"histogram list of 2^31", b_histogram_2g, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[0].columns[0].meta_data.size_statistics.definition_level_histogram", "list size", 0},
    {"created_by of 10^6 bytes", b_created_by_1m, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.created_by", NULL, 0},
    {"created_by of -1 bytes", b_created_by_neg, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.created_by", NULL, 0},
    {"created_by of 2^64-1 bytes", b_created_by_u64, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.created_by", NULL, 0},
    {"name longer than the footer", b_name_long, PQ_ERR_CORRUPT_FOOTER,
     "SchemaElement[1].name", NULL, 0},
    {"name of -2^31 bytes", b_name_neg, PQ_ERR_CORRUPT_FOOTER, "SchemaElement[1].name", NULL, 0},
    {"min_value longer than the footer", b_min_value_long, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[0].columns[0].meta_data.statistics.min_value", NULL, -1},
    /* wire level: nesting */
    {"struct bomb 200000 deep", b_struct_bomb, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.field 100", "nesting deeper than 64", 0},
    {"list bomb 200000 deep", b_list_bomb, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.field 100", NULL, 0},
    {"struct bomb 65 deep", b_struct_bomb_65, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.field 100", NULL, 0},
    {"struct bomb in a chunk", b_bomb_in_chunk, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[0].columns[0].meta_data.field 100", NULL, 0},
    /* wire level: malformed */
    {"endless varint", b_endless_varint, PQ_ERR_CORRUPT_FOOTER, "version", NULL, 0},
    {"11-byte varint", b_varint_too_long, PQ_ERR_CORRUPT_FOOTER, "num_rows", NULL, 0},
    {"wire type 13", b_bad_wire_type, PQ_ERR_CORRUPT_FOOTER, "FileMetaData", NULL, 0},
    {"schema as list<i32>", b_schema_list_of_i32, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData.schema", NULL, -1},
    {"truncated", b_truncated, PQ_ERR_CORRUPT_FOOTER, "RowGroup[1]", NULL, 0},
    {"missing version", b_missing_version, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData", "missing required field version", 0},
    {"missing schema", b_missing_schema, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData", "missing required field schema", 0},
    {"missing num_rows", b_missing_num_rows, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData", "missing required field num_rows", 0},
    {"missing row_groups", b_missing_row_groups, PQ_ERR_CORRUPT_FOOTER,
     "FileMetaData", "missing required field row_groups", 0},
    {"row group without num_rows", b_rg_missing_num_rows, PQ_ERR_CORRUPT_FOOTER,
     "RowGroup[0]", "missing required field num_rows", 0},
    /* encryption in a plaintext footer */
    {"crypto_metadata (footer key) with no encryption_algorithm", b_crypto_metadata,
     PQ_ERR_CORRUPT_FOOTER, "RowGroup[0].columns[1]", "no encryption_algorithm", 1},
    {"crypto_metadata (column key) with no encryption_algorithm", b_crypto_column_key,
     PQ_ERR_CORRUPT_FOOTER, "RowGroup[1].columns[2]", "no encryption_algorithm", 1},
    {"encrypted_column_metadata with no encryption_algorithm", b_encrypted_column_metadata,
     PQ_ERR_CORRUPT_FOOTER, "RowGroup[0].columns[2]", "no encryption_algorithm", 1},
};

START_TEST(test_hostile)
{
    const hostile *h = &cases[_i];
    size_t len = 0;
    uint8_t *bytes = h->build(&len);
    ck_assert_ptr_nonnull(bytes);

    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse(bytes, len, NULL, &err);
    if (md) { /* release before failing: the sanitizer run reports leaks */
        pq_metadata_release(md);
        g_free(bytes);
        ck_abort_msg("%s: accepted", h->name);
    }
    ck_assert_msg(err.code == h->code, "%s: expected %s, got %s: %s", h->name,
                  pq_status_name(h->code), pq_status_name(err.code), err.message);
    ck_assert_msg(strstr(err.message, h->where) != NULL, "%s: message does not name %s: %s",
                  h->name, h->where, err.message);
    if (h->why)
        ck_assert_msg(strstr(err.message, h->why) != NULL, "%s: message lacks \"%s\": %s",
                      h->name, h->why, err.message);

    /* the reference survives it too, and agrees on what is Thrift-level */
    char *cerr = NULL;
    pqtFileMetaData *ref = pq_cglib_decode(bytes, len, &cerr);
    if (h->cglib_accepts == 1) ck_assert_msg(ref != NULL, "%s: c_glib rejects: %s", h->name, cerr);
    if (h->cglib_accepts == 0) ck_assert_msg(ref == NULL, "%s: c_glib accepts", h->name);
    if (ref) g_object_unref(ref);
    g_free(cerr);

    /* and so does the tail entry point, on a whole file image */
    size_t flen = 4 + 16 + len + 8;
    uint8_t *file = g_malloc0(flen);
    memcpy(file, "PAR1", 4);
    memcpy(file + 20, bytes, len);
    file[flen - 8] = (uint8_t)len;
    file[flen - 7] = (uint8_t)(len >> 8);
    file[flen - 6] = (uint8_t)(len >> 16);
    file[flen - 5] = (uint8_t)(len >> 24);
    memcpy(file + flen - 4, "PAR1", 4);
    pq_error err2 = {0};
    ck_assert_ptr_null(pq_metadata_parse_tail(file, flen, NULL, NULL, &err2));
    ck_assert_int_eq(err2.code, err.code);
    ck_assert_str_eq(err2.message, err.message);
    g_free(file);
    g_free(bytes);
}
END_TEST

/* The base footer itself is fine: the cases above fail for their one change. */
START_TEST(test_base_is_valid)
{
    size_t len = 0;
    uint8_t *bytes = encode_free(base(), &len);
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse(bytes, len, NULL, &err);
    ck_assert_msg(md != NULL, "%s", err.message);
    pqtFileMetaData *ref = pq_cglib_decode(bytes, len, NULL);
    ck_assert_ptr_nonnull(ref);
    char diff[512];
    ck_assert_msg(pq_cglib_compare(ref, pq_metadata_file(md), diff, sizeof diff) == 0, "%s", diff);
    ck_assert_uint_eq(pq_metadata_schema(md)->leaves_len, 3);
    ck_assert_uint_eq(pq_metadata_file(md)->row_groups_len, 2);
    /* the unknown encodings are kept as raw values */
    const pq_column_meta *m = &pq_metadata_file(md)->row_groups[0].columns[0]->meta_data;
    ck_assert_uint_eq(m->encodings_len, 3);
    ck_assert_int_eq(m->encodings[0], 1001);
    ck_assert_int_eq(m->encodings[2], 1003);
    g_object_unref(ref);
    pq_metadata_release(md);
    g_free(bytes);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Accepted oddities: equal to c_glib
 * ------------------------------------------------------------------------- */

static void assert_accepted_equal(const char *what, const uint8_t *bytes, size_t len)
{
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse(bytes, len, NULL, &err);
    ck_assert_msg(md != NULL, "%s: rejected: %s", what, err.message);
    char *cerr = NULL;
    pqtFileMetaData *ref = pq_cglib_decode(bytes, len, &cerr);
    ck_assert_msg(ref != NULL, "%s: c_glib rejects: %s", what, cerr);
    char diff[512];
    ck_assert_msg(pq_cglib_compare(ref, pq_metadata_file(md), diff, sizeof diff) == 0, "%s: %s",
                  what, diff);
    size_t blen;
    const uint8_t *own = pq_metadata_footer_bytes(md, &blen);
    ck_assert_msg(pq_check_spans_within(pq_metadata_file(md), own, blen, diff, sizeof diff) == 0,
                  "%s: %s", what, diff);
    g_object_unref(ref);
    pq_metadata_release(md);
}

/* Unknown converted types (issue 36): kept raw, equal to c_glib, and the
 * column they annotate reads by its physical type with a warning. */
START_TEST(test_unknown_converted_types)
{
    static const struct {
        build_fn build;
        const char *warning;
    } cases[] = {
        {b_converted_22, "column 'c2': unknown converted_type 22 ignored: read as "},
        {b_converted_neg2, "column 'c1': unknown converted_type -2 ignored: read as "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = 0;
        uint8_t *bytes = cases[i].build(&len);
        assert_accepted_equal(cases[i].warning, bytes, len);
        pq_error err = {0};
        pq_metadata *md = pq_metadata_parse(bytes, len, NULL, &err);
        ck_assert_ptr_nonnull(md);
        ck_assert_uint_eq(pq_metadata_warning_count(md), 1);
        const char *w = pq_metadata_warning(md, 0);
        ck_assert_msg(strncmp(w, cases[i].warning, strlen(cases[i].warning)) == 0, "%s", w);
        ck_assert_ptr_null(pq_metadata_warning(md, 1));
        const pq_schema *s = pq_metadata_schema(md);
        const pq_leaf *lf = &s->leaves[i == 0 ? 2 : 1];
        ck_assert_int_eq(lf->logical.kind, PQ_LOGICAL_NONE);
        pq_metadata_release(md);
        g_free(bytes);
    }
}
END_TEST

/* Unknown fields of every wire type, in FileMetaData (before its STOP). */
START_TEST(test_unknown_fields)
{
    size_t blen;
    uint8_t *b = encode_free(base(), &blen);
    ck_assert_int_eq(b[blen - 1], W_STOP);
    wbuf w = {0};
    w_bytes(&w, b, blen - 1);
    w_field(&w, 100, W_TRUE);
    w_field(&w, 101, W_FALSE);
    w_field(&w, 102, W_BYTE);
    w_byte(&w, 0x7f);
    w_field(&w, 103, W_I16);
    w_i32(&w, -300);
    w_field(&w, 104, W_I32);
    w_i32(&w, 123456);
    w_field(&w, 105, W_I64);
    w_i64(&w, INT64_MIN);
    w_field(&w, 106, W_DOUBLE);
    w_bytes(&w, "\0\0\0\0\0\0\xf0\x3f", 8);
    w_field(&w, 107, W_BINARY);
    w_binary(&w, "unknown", 7);
    w_field(&w, 108, W_LIST);
    w_list(&w, W_BINARY, 2);
    w_binary(&w, "a", 1);
    w_binary(&w, "bc", 2);
    w_field(&w, 109, W_SET);
    w_list(&w, W_I32, 1);
    w_i32(&w, 5);
    w_field(&w, 110, W_MAP);
    w_uvarint(&w, 2);
    w_byte(&w, (uint8_t)(W_BINARY << 4 | W_I64));
    w_binary(&w, "k", 1);
    w_i64(&w, 1);
    w_binary(&w, "l", 1);
    w_i64(&w, 2);
    w_field(&w, 111, W_MAP);
    w_uvarint(&w, 0); /* empty map: no type byte */
    w_field(&w, 112, W_STRUCT);
    w_field(&w, 1, W_STRUCT);
    w_field(&w, 7, W_LIST);
    w_list(&w, W_TRUE, 3); /* bools take a byte inside lists */
    w_byte(&w, 1);
    w_byte(&w, 2);
    w_byte(&w, 1);
    w_byte(&w, W_STOP);
    w_byte(&w, W_STOP);
    /* nesting that is deep but within Thrift's usual limit of 64 */
    w_field(&w, 113, W_STRUCT);
    for (int i = 0; i < 40; i++) w_byte(&w, 0x1c);
    for (int i = 0; i <= 40; i++) w_byte(&w, W_STOP);
    w_byte(&w, W_STOP);
    assert_accepted_equal("unknown fields", w.p, w.len);
    g_free(w.p);
    g_free(b);
}
END_TEST

/* A known field sent with another wire type is skipped, like Thrift does. */
START_TEST(test_known_field_wrong_type)
{
    pqtFileMetaData *m = base();
    m->__isset_created_by = FALSE;
    size_t blen;
    uint8_t *b = encode_free(m, &blen);
    wbuf w = {0};
    w_bytes(&w, b, blen - 1);
    w_field(&w, 6, W_I32); /* created_by as an i32 */
    w_i32(&w, 7);
    w_field(&w, 7, W_I64); /* column_orders as an i64 */
    w_i64(&w, 7);
    w_field(&w, 9, W_LIST); /* footer_signing_key_metadata as a list */
    w_list(&w, W_BINARY, 1);
    w_binary(&w, "k", 1);
    w_byte(&w, W_STOP);
    assert_accepted_equal("known fields with other wire types", w.p, w.len);
    pq_metadata *md = pq_metadata_parse(w.p, w.len, NULL, NULL);
    ck_assert_ptr_nonnull(md);
    const pq_file_metadata *fm = pq_metadata_file(md);
    ck_assert(!(fm->set & PQ_FMD_HAS_CREATED_BY));
    ck_assert_uint_eq(fm->created_by.len, 0);
    ck_assert(!(fm->set & PQ_FMD_HAS_COLUMN_ORDERS));
    ck_assert(!(fm->set & PQ_FMD_HAS_FOOTER_SIGNING_KEY));
    pq_metadata_release(md);
    g_free(w.p);
    g_free(b);
}
END_TEST

/* Every optional field set, every logical type, with c_glib building it. */
START_TEST(test_everything_set)
{
    pqtFileMetaData *md = pq_cglib_build_flat(18, 2);
    const int kinds[18] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 8};
    for (unsigned i = 0; i < 18; i++) {
        pqtSchemaElement *e = pq_cglib_element(md, i + 1);
        pqtLogicalType *lt = e->logicalType;
        e->__isset_logicalType = TRUE;
        e->field_id = (gint32)(i * 3);
        e->__isset_field_id = TRUE;
        switch (kinds[i]) {
        case 1: lt->__isset_STRING = TRUE; break;
        case 2: lt->__isset_MAP = TRUE; break;
        case 3: lt->__isset_LIST = TRUE; break;
        case 4: lt->__isset_ENUM = TRUE; break;
        case 5:
            lt->__isset_DECIMAL = TRUE;
            lt->DECIMAL->scale = 3;
            lt->DECIMAL->precision = 17;
            e->scale = 3; e->__isset_scale = TRUE;
            e->precision = 17; e->__isset_precision = TRUE;
            e->converted_type = PQT_CONVERTED_TYPE_DECIMAL; e->__isset_converted_type = TRUE;
            break;
        case 6: lt->__isset_DATE = TRUE; break;
        case 7:
            lt->__isset_TIME = TRUE;
            lt->TIME->isAdjustedToUTC = TRUE;
            lt->TIME->unit->__isset_NANOS = TRUE;
            break;
        case 8:
            lt->__isset_TIMESTAMP = TRUE;
            lt->TIMESTAMP->isAdjustedToUTC = i == 7;
            if (i == 7) lt->TIMESTAMP->unit->__isset_MICROS = TRUE;
            else lt->TIMESTAMP->unit->__isset_MILLIS = TRUE;
            break;
        case 10:
            lt->__isset_INTEGER = TRUE;
            lt->INTEGER->bitWidth = 16;
            lt->INTEGER->isSigned = FALSE;
            break;
        case 11: lt->__isset_UNKNOWN = TRUE; break;
        case 12: lt->__isset_JSON = TRUE; break;
        case 13: lt->__isset_BSON = TRUE; break;
        case 14:
            lt->__isset_UUID = TRUE;
            e->type = PQT_TYPE_FIXED_LEN_BYTE_ARRAY;
            e->type_length = 16; e->__isset_type_length = TRUE;
            break;
        case 15:
            lt->__isset_FLOAT16 = TRUE;
            e->type = PQT_TYPE_FIXED_LEN_BYTE_ARRAY;
            e->type_length = 2; e->__isset_type_length = TRUE;
            break;
        case 16:
            lt->__isset_VARIANT = TRUE;
            lt->VARIANT->specification_version = 1;
            lt->VARIANT->__isset_specification_version = TRUE;
            break;
        case 17:
            lt->__isset_GEOMETRY = TRUE;
            lt->GEOMETRY->crs = g_strdup("OGC:CRS84");
            lt->GEOMETRY->__isset_crs = TRUE;
            break;
        case 18:
            lt->__isset_GEOGRAPHY = TRUE;
            lt->GEOGRAPHY->crs = g_strdup("srid:4326");
            lt->GEOGRAPHY->__isset_crs = TRUE;
            lt->GEOGRAPHY->algorithm = PQT_EDGE_INTERPOLATION_ALGORITHM_KARNEY;
            lt->GEOGRAPHY->__isset_algorithm = TRUE;
            break;
        }
    }
    /* chunk-level extras on every chunk of row group 1 */
    pqtRowGroup *rg = pq_cglib_row_group(md, 1);
    for (unsigned k = 0; k < 18; k++) {
        pqtColumnChunk *cc = pq_cglib_chunk(md, 1, k);
        pqtColumnMetaData *m = cc->meta_data;
        cc->file_path = g_strdup("other.parquet");
        cc->__isset_file_path = TRUE;
        cc->offset_index_offset = 1000 + k; cc->__isset_offset_index_offset = TRUE;
        cc->offset_index_length = 20; cc->__isset_offset_index_length = TRUE;
        cc->column_index_offset = 2000 + k; cc->__isset_column_index_offset = TRUE;
        cc->column_index_length = 30; cc->__isset_column_index_length = TRUE;
        pqtKeyValue *kv = g_object_new(PQT_TYPE_KEY_VALUE, NULL);
        kv->key = g_strdup("k");
        if (k % 2) { kv->value = g_strdup("v"); kv->__isset_value = TRUE; }
        g_ptr_array_add(m->key_value_metadata, kv);
        m->__isset_key_value_metadata = TRUE;
        m->index_page_offset = 5; m->__isset_index_page_offset = TRUE;
        m->dictionary_page_offset = 6; m->__isset_dictionary_page_offset = TRUE;
        pqtStatistics *s = m->statistics;
        pq_cglib_set_bytes(&s->max, "\xff\xfe", 2); s->__isset_max = TRUE;
        pq_cglib_set_bytes(&s->min, "", 0); s->__isset_min = TRUE;
        s->distinct_count = 9; s->__isset_distinct_count = TRUE;
        s->is_max_value_exact = TRUE; s->__isset_is_max_value_exact = TRUE;
        s->is_min_value_exact = FALSE; s->__isset_is_min_value_exact = TRUE;
        m->bloom_filter_offset = 77; m->__isset_bloom_filter_offset = TRUE;
        m->bloom_filter_length = 88; m->__isset_bloom_filter_length = TRUE;
        pqtSizeStatistics *ss = m->size_statistics;
        ss->unencoded_byte_array_data_bytes = 12345;
        ss->__isset_unencoded_byte_array_data_bytes = TRUE;
        gint64 h[3] = {1, 2, 3};
        g_array_append_vals(ss->repetition_level_histogram, h, 1);
        ss->__isset_repetition_level_histogram = TRUE;
        g_array_append_vals(ss->definition_level_histogram, h, 3);
        ss->__isset_definition_level_histogram = TRUE;
        m->__isset_size_statistics = TRUE;
        pqtGeospatialStatistics *gs = m->geospatial_statistics;
        gs->bbox->xmin = -1.5; gs->bbox->xmax = 2.5; gs->bbox->ymin = -0.0; gs->bbox->ymax = 1e300;
        if (k % 2) { gs->bbox->zmin = 0.25; gs->bbox->__isset_zmin = TRUE; }
        if (k % 3) { gs->bbox->mmax = 7; gs->bbox->__isset_mmax = TRUE; }
        gs->__isset_bbox = TRUE;
        gint32 gt[2] = {1, 1003};
        g_array_append_vals(gs->geospatial_types, gt, 2);
        gs->__isset_geospatial_types = TRUE;
        m->__isset_geospatial_statistics = TRUE;
    }
    for (int j = 0; j < 2; j++) {
        pqtSortingColumn *sc = g_object_new(PQT_TYPE_SORTING_COLUMN, NULL);
        sc->column_idx = j * 5;
        sc->descending = j == 0;
        sc->nulls_first = j == 1;
        g_ptr_array_add(rg->sorting_columns, sc);
    }
    rg->__isset_sorting_columns = TRUE;
    for (unsigned i = 0; i < 18; i++) {
        pqtColumnOrder *co = g_object_new(PQT_TYPE_COLUMN_ORDER, NULL);
        co->__isset_TYPE_ORDER = i != 4;
        g_ptr_array_add(md->column_orders, co);
    }
    md->__isset_column_orders = TRUE;
    pqtKeyValue *kv = g_object_new(PQT_TYPE_KEY_VALUE, NULL);
    kv->key = g_strdup("ARROW:schema");
    kv->value = g_strdup("...");
    kv->__isset_value = TRUE;
    g_ptr_array_add(md->key_value_metadata, kv);
    md->__isset_key_value_metadata = TRUE;

    size_t len;
    uint8_t *bytes = encode_free(md, &len);
    assert_accepted_equal("everything set", bytes, len);

    /* spot checks against the values set above, independent of the compare */
    pq_metadata *pm = pq_metadata_parse(bytes, len, NULL, NULL);
    ck_assert_ptr_nonnull(pm);
    const pq_file_metadata *fm = pq_metadata_file(pm);
    ck_assert_int_eq(fm->schema[5].logical.kind, PQ_LOGICAL_DECIMAL);
    ck_assert_int_eq(fm->schema[5].logical.precision, 17);
    ck_assert_int_eq(fm->schema[7].logical.unit, PQ_UNIT_NANOS);
    ck_assert_int_eq(fm->schema[9].logical.bit_width, 16);
    ck_assert(!fm->schema[9].logical.is_signed);
    ck_assert_int_eq(fm->schema[17].logical.kind, PQ_LOGICAL_GEOGRAPHY);
    ck_assert_int_eq(fm->schema[17].logical.algorithm, 4);
    ck_assert_int_eq(fm->column_orders[4], PQ_COLUMN_ORDER_UNKNOWN);
    ck_assert_int_eq(fm->column_orders[5], PQ_COLUMN_ORDER_TYPE_DEFINED);
    const pq_column_chunk *cc = fm->row_groups[1].columns[3];
    ck_assert_int_eq(cc->column_index_offset, 2003);
    ck_assert_uint_eq(cc->meta_data.size_statistics->definition_level_histogram_len, 3);
    ck_assert(cc->meta_data.geospatial_statistics->bbox.ymax == 1e300);
    ck_assert_uint_eq(fm->row_groups[1].sorting_columns_len, 2);
    ck_assert(fm->row_groups[1].sorting_columns[0].descending);
    pq_metadata_release(pm);
    g_free(bytes);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Memory stays proportional to the footer for accepted inputs
 * ------------------------------------------------------------------------- */

/* Bytes held per footer byte, at most. The densest structures: a schema
 * element costs 3 wire bytes (an empty name and a STOP) but ~250 bytes of
 * element, tree node, leaf and path; everything else is denser. */
#define MAX_BYTES_PER_FOOTER_BYTE 128
#define MAX_FIXED_OVERHEAD (64 * 1024)

/* `extra`: bytes the caller accounts for separately (leaf paths). */
static void assert_bounded_extra(const char *what, const uint8_t *bytes, size_t len, size_t extra)
{
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse(bytes, len, NULL, &err);
    ck_assert_msg(md != NULL, "%s: %s", what, err.message);
    size_t held = pq_metadata_memory_size(md);
    ck_assert_msg(held <= MAX_BYTES_PER_FOOTER_BYTE * len + MAX_FIXED_OVERHEAD + extra,
                  "%s: %zu bytes held for a %zu-byte footer (%.1f per byte)", what, held, len,
                  (double)held / (double)len);
    ck_assert_uint_ge(held, len); /* it keeps a copy of the footer */
    fprintf(stderr, "memory: %s: %zu-byte footer, %zu bytes held (%.1f per byte)\n", what, len,
            held, (double)held / (double)len);
    pq_metadata_release(md);
}

static void assert_bounded(const char *what, const uint8_t *bytes, size_t len)
{
    assert_bounded_extra(what, bytes, len, 0);
}

/* N leaves with one-letter names, no row group. */
START_TEST(test_memory_many_leaves)
{
    const int n = 20000;
    wbuf w = {0};
    w_field(&w, 1, W_I32);
    w_i32(&w, 2);
    w_field(&w, 2, W_LIST);
    w_list(&w, W_STRUCT, (uint64_t)n + 1);
    w_field(&w, 4, W_BINARY);
    w_binary(&w, "r", 1);
    w_field(&w, 5, W_I32);
    w_i32(&w, n);
    w_byte(&w, W_STOP);
    for (int i = 0; i < n; i++) {
        w_byte(&w, 0x15); /* type = BOOLEAN */
        w_i32(&w, 0);
        w_byte(&w, 0x38); /* name: delta 3, binary */
        w_binary(&w, "x", 1);
        w_byte(&w, W_STOP);
    }
    w_field(&w, 3, W_I64);
    w_i64(&w, 0);
    w_field(&w, 4, W_LIST);
    w_list(&w, W_STRUCT, 0);
    w_byte(&w, W_STOP);
    assert_bounded("20000 leaves", w.p, w.len);
    g_free(w.p);
}
END_TEST

/* Leaves under a chain of groups as deep as the schema allows: every leaf
 * carries its own copy of its dotted path, so its cost grows with the depth
 * (bounded by the schema's nesting limit), not with its own wire bytes. The
 * paths (2 x depth bytes a leaf, twice that for arena growth) are allowed on
 * top of the per-byte bound: this is ~270 bytes held per footer byte. */
START_TEST(test_memory_deep_paths)
{
    const int depth = 250, n = 20000;
    wbuf w = {0};
    w_field(&w, 1, W_I32);
    w_i32(&w, 2);
    w_field(&w, 2, W_LIST);
    w_list(&w, W_STRUCT, (uint64_t)depth + n);
    for (int i = 0; i < depth; i++) { /* root, then groups of one child each */
        w_field(&w, 4, W_BINARY);
        w_binary(&w, "g", 1);
        w_field(&w, 5, W_I32);
        w_i32(&w, i == depth - 1 ? n : 1);
        w_byte(&w, W_STOP);
    }
    for (int i = 0; i < n; i++) {
        w_byte(&w, 0x15); /* type = BOOLEAN */
        w_i32(&w, 0);
        w_byte(&w, 0x38); /* name: delta 3, binary */
        w_binary(&w, "x", 1);
        w_byte(&w, W_STOP);
    }
    w_field(&w, 3, W_I64);
    w_i64(&w, 0);
    w_field(&w, 4, W_LIST);
    w_list(&w, W_STRUCT, 0);
    w_byte(&w, W_STOP);
    assert_bounded_extra("20000 leaves 250 deep", w.p, w.len, (size_t)n * 2 * depth * 2);
    g_free(w.p);
}
END_TEST

/* Long lists of the smallest elements each list can hold. */
START_TEST(test_memory_dense_lists)
{
    const int n = 100000;
    wbuf w = {0};
    w_field(&w, 1, W_I32);
    w_i32(&w, 2);
    w_field(&w, 2, W_LIST);
    w_list(&w, W_STRUCT, 1);
    w_field(&w, 4, W_BINARY);
    w_binary(&w, "r", 1);
    w_field(&w, 5, W_I32);
    w_i32(&w, 0);
    w_byte(&w, W_STOP);
    w_field(&w, 3, W_I64);
    w_i64(&w, 0);
    w_field(&w, 4, W_LIST); /* row groups with no columns (the schema has no leaves) */
    w_list(&w, W_STRUCT, (uint64_t)n);
    for (int i = 0; i < n; i++) {
        w_byte(&w, 0x19); /* columns: empty list */
        w_byte(&w, 0x0c);
        w_byte(&w, 0x16); /* total_byte_size */
        w_i64(&w, 0);
        w_byte(&w, 0x16); /* num_rows */
        w_i64(&w, 0);
        w_byte(&w, W_STOP);
    }
    w_field(&w, 5, W_LIST); /* key/values with an empty key */
    w_list(&w, W_STRUCT, (uint64_t)n);
    for (int i = 0; i < n; i++) {
        w_byte(&w, 0x18);
        w_byte(&w, 0x00);
        w_byte(&w, W_STOP);
    }
    w_field(&w, 7, W_LIST); /* column orders: empty unions */
    w_list(&w, W_STRUCT, (uint64_t)n);
    for (int i = 0; i < n; i++) w_byte(&w, W_STOP);
    w_byte(&w, W_STOP);
    assert_bounded("dense lists", w.p, w.len);
    g_free(w.p);
}
END_TEST

/* A big, realistic footer: 2000 columns x 3 row groups. */
START_TEST(test_memory_wide)
{
    size_t len;
    uint8_t *bytes = encode_free(pq_cglib_build_flat(2000, 3), &len);
    assert_bounded("2000 columns x 3 row groups", bytes, len);
    assert_accepted_equal("2000 columns x 3 row groups", bytes, len);
    g_free(bytes);
}
END_TEST

/* The configured footer limit is enforced before anything is allocated. */
START_TEST(test_max_footer_size)
{
    size_t len;
    uint8_t *bytes = encode_free(pq_cglib_build_flat(50, 1), &len);
    pq_parse_options opts = {0};
    opts.max_footer_size = len - 1;
    pq_error err = {0};
    ck_assert_ptr_null(pq_metadata_parse(bytes, len, &opts, &err));
    ck_assert_int_eq(err.code, PQ_ERR_MEMORY_LIMIT);
    opts.max_footer_size = len;
    pq_metadata *md = pq_metadata_parse(bytes, len, &opts, &err);
    ck_assert_msg(md != NULL, "%s", err.message);
    pq_metadata_release(md);
    g_free(bytes);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Encrypted column metadata through the reader
 * ------------------------------------------------------------------------- */

static uint8_t *file_image(const uint8_t *footer, size_t len, size_t *out_len)
{
    size_t n = 4 + 100 + len + 8;
    uint8_t *img = g_malloc0(n);
    memcpy(img, "PAR1", 4);
    memcpy(img + 104, footer, len);
    img[n - 8] = (uint8_t)len;
    img[n - 7] = (uint8_t)(len >> 8);
    img[n - 6] = (uint8_t)(len >> 16);
    img[n - 5] = (uint8_t)(len >> 24);
    memcpy(img + n - 4, "PAR1", 4);
    *out_len = n;
    return img;
}

/* A plaintext footer that names an algorithm parses without keys (its
 * plaintext columns read) and says how the file is encrypted; with a
 * footer key its signature is checked, and this one has none. */
START_TEST(test_plaintext_footer_algorithm)
{
    size_t len;
    uint8_t *footer = b_encryption_algorithm(&len);
    pq_error err = {0};
    pq_metadata *md = pq_metadata_parse(footer, len, NULL, &err);
    ck_assert_msg(md != NULL, "%s", err.message);
    pq_file_encryption enc;
    pq_metadata_encryption(md, &enc);
    ck_assert_int_eq(enc.algorithm, PQ_ENCRYPTION_AES_GCM_V1);
    ck_assert(!enc.footer_encrypted);
    ck_assert(!enc.signature_verified);
    ck_assert_uint_eq(enc.encrypted_columns, 0);
    ck_assert_uint_eq(enc.footer_key_metadata.len, 3);
    pq_metadata_release(md);

    pq_decryption keys;
    pq_decryption_init(&keys);
    keys.footer_key = (const uint8_t *)"0123456789012345";
    keys.footer_key_len = 16;
    ck_assert_ptr_null(pq_metadata_parse_decrypt(footer, len, NULL, &keys, &err));
    ck_assert_int_eq(err.code, PQ_ERR_DECRYPT);
    ck_assert_msg(strstr(err.message, "footer signature does not match"), "%s", err.message);
    ck_assert_msg(!strstr(err.message, "0123456789012345"), "%s", err.message);
    g_free(footer);
}
END_TEST

START_TEST(test_reader_encrypted_columns)
{
    build_fn builds[3] = {b_crypto_metadata, b_crypto_column_key, b_encrypted_column_metadata};
    for (int i = 0; i < 3; i++) {
        size_t len, ilen;
        uint8_t *footer = builds[i](&len);
        uint8_t *img = file_image(footer, len, &ilen);
        pq_error err = {0};
        pq_reader *r = pq_reader_open_memory(img, ilen, NULL, &err);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(pq_reader_advance(r, &err), PQ_ERR_CORRUPT_FOOTER);
        ck_assert_msg(strstr(err.message, "no encryption_algorithm"), "%s", err.message);
        ck_assert_int_eq(pq_reader_stage(r), PQ_STAGE_INIT);
        pq_reader_close(r);
        g_free(img);
        g_free(footer);
    }
    /* the same image without the encryption parts opens fine */
    size_t len, ilen;
    uint8_t *footer = encode_free(base(), &len);
    uint8_t *img = file_image(footer, len, &ilen);
    pq_error err = {0};
    pq_reader *r = pq_reader_open_memory(img, ilen, NULL, &err);
    ck_assert_int_eq(pq_reader_advance(r, &err), PQ_OK);
    pq_reader_close(r);
    g_free(img);
    g_free(footer);
}
END_TEST

/* ---------------------------------------------------------------------------
 * The span transport under the reference decoder
 * ------------------------------------------------------------------------- */

START_TEST(test_span_transport)
{
    const uint8_t bytes[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    PqSpanTransport *t = pq_span_transport_new(bytes, sizeof bytes);
    ThriftTransport *tt = THRIFT_TRANSPORT(t);
    ThriftTransportClass *tc = THRIFT_TRANSPORT_GET_CLASS(tt);
    GError *err = NULL;
    uint8_t out[16];
    ck_assert(thrift_transport_is_open(tt));
    /* the message-size budget is the span, not c_glib's 100 MB default */
    ck_assert_int_eq(tt->knowMessageSize_, 10);
    ck_assert(tc->checkReadBytesAvailable(tt, 10, NULL));
    ck_assert(!tc->checkReadBytesAvailable(tt, 11, &err));
    ck_assert_ptr_nonnull(err);
    g_clear_error(&err);
    ck_assert_int_eq(thrift_transport_read_all(tt, out, 4, NULL), 4);
    ck_assert_int_eq(out[3], 3);
    ck_assert_uint_eq(pq_span_transport_position(t), 4);
    ck_assert(tc->checkReadBytesAvailable(tt, 6, NULL));
    ck_assert(!tc->checkReadBytesAvailable(tt, 7, NULL));
    /* read gives what is there; read_all wants all of it */
    ck_assert_int_eq(thrift_transport_read_all(tt, out, 7, &err), -1);
    ck_assert_ptr_nonnull(err);
    g_clear_error(&err);
    ck_assert_uint_eq(pq_span_transport_position(t), 4);
    ck_assert_int_eq(thrift_transport_read(tt, out, 16, NULL), 6);
    ck_assert_int_eq(out[5], 9);
    ck_assert_int_eq(thrift_transport_read(tt, out, 1, &err), -1); /* empty: an error, not 0 */
    ck_assert_ptr_nonnull(err);
    g_clear_error(&err);
    ck_assert(!thrift_transport_write(tt, out, 1, &err));
    ck_assert_ptr_nonnull(err);
    g_clear_error(&err);
    g_object_unref(t);
}
END_TEST

/* c_glib's compact encoding through the sink is what the IDL says: an
 * empty FileMetaData is its four required fields and a STOP. */
START_TEST(test_sink_encoding)
{
    pqtFileMetaData *md = g_object_new(PQT_TYPE_FILE_META_DATA, NULL);
    md->version = -1;
    md->num_rows = 300;
    size_t len = 0;
    uint8_t *b = pq_cglib_encode(md, &len);
    const uint8_t want[] = {0x15, 0x01, 0x19, 0x0c, 0x16, 0xd8, 0x04, 0x19, 0x0c, 0x00};
    ck_assert_uint_eq(len, sizeof want);
    ck_assert(memcmp(b, want, len) == 0);
    g_free(b);
    g_object_unref(md);
}
END_TEST

static Suite *hostile_suite(void)
{
    Suite *s = suite_create("cglib_hostile");
    TCase *tc = tcase_create("reject");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_test(tc, test_base_is_valid);
    tcase_add_loop_test(tc, test_hostile, 0, (int)G_N_ELEMENTS(cases));
    suite_add_tcase(s, tc);
    TCase *ok = tcase_create("accept");
    tcase_set_timeout(ok, 0); /* no time limit */
    tcase_add_test(ok, test_unknown_fields);
    tcase_add_test(ok, test_unknown_converted_types);
    tcase_add_test(ok, test_known_field_wrong_type);
    tcase_add_test(ok, test_everything_set);
    suite_add_tcase(s, ok);
    TCase *mem = tcase_create("memory");
    tcase_set_timeout(mem, 0); /* no time limit */
    tcase_add_test(mem, test_memory_many_leaves);
    tcase_add_test(mem, test_path_mismatch_is_positional);
    tcase_add_test(mem, test_memory_deep_paths);
    tcase_add_test(mem, test_memory_dense_lists);
    tcase_add_test(mem, test_memory_wide);
    tcase_add_test(mem, test_max_footer_size);
    suite_add_tcase(s, mem);
    TCase *tr = tcase_create("transport");
    tcase_set_timeout(tr, 0); /* no time limit */
    tcase_add_test(tr, test_span_transport);
    tcase_add_test(tr, test_sink_encoding);
    suite_add_tcase(s, tr);
    TCase *enc = tcase_create("encrypted");
    tcase_set_timeout(enc, 0); /* no time limit */
    tcase_add_test(enc, test_reader_encrypted_columns);
    tcase_add_test(enc, test_plaintext_footer_algorithm);
    suite_add_tcase(s, enc);
    return s;
}

int main(void)
{
    pq_cglib_init();
    SRunner *sr = srunner_create(hostile_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
