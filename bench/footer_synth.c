/*
 * footer_synth.c — build realistic footers with the c_glib types (see
 * footer_synth.h for the shape).
 */
#include "footer_synth.h"

#include <stdio.h>
#include <string.h>

#include "cglib_ref.h"

#define SYNTH_CREATED_BY "parquet-cpp-arrow version 22.0.0"

/* splitmix64: small, fast, good enough to vary sizes and values. */
static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t rng_range(uint64_t *s, uint64_t lo, uint64_t hi)
{
    return lo + rng_next(s) % (hi - lo + 1);
}

const char *pq_synth_stats_name(pq_synth_stats stats)
{
    return stats == PQ_SYNTH_STRING ? "string" : "numeric";
}

/* Leaf types cycle INT64, DOUBLE, BYTE_ARRAY (string). */
static inline pqtType leaf_type(uint32_t i)
{
    static const pqtType cycle[3] = {PQT_TYPE_INT64, PQT_TYPE_DOUBLE, PQT_TYPE_BYTE_ARRAY};
    return cycle[i % 3];
}

static void leaf_name(uint32_t i, char *buf, size_t cap)
{
    static const char *suffix[3] = {"id", "amount", "label"};
    snprintf(buf, cap, "col_%06u_%s", i, suffix[i % 3]);
}

static GByteArray *bytes_new(const void *p, size_t n)
{
    GByteArray *b = g_byte_array_sized_new((guint)n);
    g_byte_array_append(b, p, (guint)n);
    return b;
}

static void le64(uint8_t out[8], uint64_t v)
{
    for (int k = 0; k < 8; k++) out[k] = (uint8_t)(v >> (8 * k));
}

/* A random lowercase/digit string of n bytes whose first byte is in [lo, hi],
 * so a min drawn from a lower range sorts before its max. */
static void rand_text(uint64_t *s, uint8_t *out, size_t n, char lo, char hi)
{
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    out[0] = (uint8_t)rng_range(s, (uint64_t)lo, (uint64_t)hi);
    for (size_t k = 1; k < n; k++) out[k] = (uint8_t)alnum[rng_next(s) % 36];
}

static void fill_statistics(pqtStatistics *st, pqtType type, pq_synth_stats flavour,
                            int64_t rows, uint64_t *s)
{
    uint8_t lo[32], hi[32];
    size_t n = 8;

    if (type == PQT_TYPE_INT64) {
        int64_t a = (int64_t)rng_range(s, 0, 1u << 30) - (1 << 20);
        int64_t b = a + (int64_t)rng_range(s, 0, 1u << 24);
        le64(lo, (uint64_t)a);
        le64(hi, (uint64_t)b);
    } else if (type == PQT_TYPE_DOUBLE) {
        double a = (double)rng_range(s, 0, 1000000) / 100.0;
        double b = a + (double)rng_range(s, 1, 1000000) / 100.0;
        uint64_t ua, ub;
        memcpy(&ua, &a, 8);
        memcpy(&ub, &b, 8);
        le64(lo, ua);
        le64(hi, ub);
    } else {
        n = flavour == PQ_SYNTH_STRING ? (size_t)rng_range(s, 16, 24) : 8;
        rand_text(s, lo, n, 'a', 'm');
        rand_text(s, hi, n, 'n', 'z');
    }
    st->min_value = bytes_new(lo, n);
    st->__isset_min_value = TRUE;
    st->max_value = bytes_new(hi, n);
    st->__isset_max_value = TRUE;
    st->null_count = (int64_t)rng_range(s, 0, (uint64_t)rows / 100);
    st->__isset_null_count = TRUE;
}

static pqtPageEncodingStats *enc_stats_new(pqtPageType page, pqtEncoding enc, gint32 count)
{
    pqtPageEncodingStats *es = g_object_new(PQT_TYPE_PAGE_ENCODING_STATS, NULL);
    es->page_type = page;
    es->encoding = enc;
    es->count = count;
    return es;
}

/* One column chunk starting at file offset *pos; advances *pos past it. */
static pqtColumnChunk *chunk_new(uint32_t leaf, const char *name, int64_t rows,
                                 pq_synth_stats flavour, int64_t *pos, uint64_t *s)
{
    pqtColumnChunk *cc = g_object_new(PQT_TYPE_COLUMN_CHUNK, NULL);
    pqtColumnMetaData *md = cc->meta_data;
    pqtType type = leaf_type(leaf);
    /* Older writers say PLAIN_DICTIONARY; keep a few of those. */
    pqtEncoding dict_enc = leaf % 4 == 3 ? PQT_ENCODING_PLAIN_DICTIONARY : PQT_ENCODING_RLE_DICTIONARY;
    pqtEncoding encs[3] = {dict_enc, PQT_ENCODING_RLE, PQT_ENCODING_PLAIN};
    int64_t dict_size = (int64_t)rng_range(s, 200, 64 * 1024);
    int64_t data_size = (int64_t)rng_range(s, 2 * 1024, 512 * 1024);
    int64_t compressed = dict_size + data_size;

    md->type = type;
    g_array_append_vals(md->encodings, encs, 3);
    g_ptr_array_add(md->path_in_schema, g_strdup(name));
    md->codec = PQT_COMPRESSION_CODEC_ZSTD;
    md->num_values = rows;
    md->total_compressed_size = compressed;
    md->total_uncompressed_size = compressed * (int64_t)rng_range(s, 2, 5);
    md->dictionary_page_offset = *pos;
    md->__isset_dictionary_page_offset = TRUE;
    md->data_page_offset = *pos + dict_size;
    fill_statistics(md->statistics, type, flavour, rows, s);
    md->__isset_statistics = TRUE;
    g_ptr_array_add(md->encoding_stats,
                    enc_stats_new(PQT_PAGE_TYPE_DICTIONARY_PAGE, PQT_ENCODING_PLAIN, 1));
    g_ptr_array_add(md->encoding_stats,
                    enc_stats_new(PQT_PAGE_TYPE_DATA_PAGE, dict_enc, (gint32)rng_range(s, 1, 16)));
    md->__isset_encoding_stats = TRUE;

    cc->__isset_meta_data = TRUE;
    cc->file_offset = *pos;
    cc->__isset_file_offset = TRUE;
    *pos += compressed;
    return cc;
}

static pqtSchemaElement *root_new(uint32_t columns)
{
    pqtSchemaElement *se = g_object_new(PQT_TYPE_SCHEMA_ELEMENT, NULL);
    se->name = g_strdup("schema");
    se->num_children = (gint32)columns;
    se->__isset_num_children = TRUE;
    return se;
}

static pqtSchemaElement *leaf_new(uint32_t i, const char *name)
{
    pqtSchemaElement *se = g_object_new(PQT_TYPE_SCHEMA_ELEMENT, NULL);
    se->name = g_strdup(name);
    se->type = leaf_type(i);
    se->__isset_type = TRUE;
    se->repetition_type = PQT_FIELD_REPETITION_TYPE_OPTIONAL;
    se->__isset_repetition_type = TRUE;
    if (se->type == PQT_TYPE_BYTE_ARRAY) {
        se->converted_type = PQT_CONVERTED_TYPE_UTF8;
        se->__isset_converted_type = TRUE;
        se->logicalType->__isset_STRING = TRUE;
        se->__isset_logicalType = TRUE;
    }
    return se;
}

/* parquet-cpp writes every column index, then every offset index, between
 * the last row group and the footer. */
static void set_page_index_offsets(pqtFileMetaData *fmd, int64_t pos, uint64_t *s)
{
    for (guint pass = 0; pass < 2; pass++) {
        for (guint r = 0; r < fmd->row_groups->len; r++) {
            pqtRowGroup *rg = g_ptr_array_index(fmd->row_groups, r);
            for (guint c = 0; c < rg->columns->len; c++) {
                pqtColumnChunk *cc = g_ptr_array_index(rg->columns, c);
                if (pass == 0) {
                    gint32 len = (gint32)rng_range(s, 30, 120);
                    cc->column_index_offset = pos;
                    cc->__isset_column_index_offset = TRUE;
                    cc->column_index_length = len;
                    cc->__isset_column_index_length = TRUE;
                    pos += len;
                } else {
                    gint32 len = (gint32)rng_range(s, 12, 60);
                    cc->offset_index_offset = pos;
                    cc->__isset_offset_index_offset = TRUE;
                    cc->offset_index_length = len;
                    cc->__isset_offset_index_length = TRUE;
                    pos += len;
                }
            }
        }
    }
}

pqtFileMetaData *pq_synth_footer(uint32_t columns, uint32_t row_groups, pq_synth_stats stats)
{
    if (columns == 0 || row_groups == 0) return NULL;

    uint64_t seed = 0x5eed0000ull ^ ((uint64_t)columns << 20) ^ row_groups ^ ((uint64_t)stats << 40);
    pqtFileMetaData *fmd = g_object_new(PQT_TYPE_FILE_META_DATA, NULL);
    char name[64];
    int64_t pos = 4; /* after the leading "PAR1" */
    int64_t total_rows = 0;

    fmd->version = 2;
    g_ptr_array_set_size(fmd->schema, 0);
    g_ptr_array_add(fmd->schema, root_new(columns));
    for (uint32_t i = 0; i < columns; i++) {
        leaf_name(i, name, sizeof name);
        g_ptr_array_add(fmd->schema, leaf_new(i, name));
        pqtColumnOrder *co = g_object_new(PQT_TYPE_COLUMN_ORDER, NULL);
        co->__isset_TYPE_ORDER = TRUE;
        g_ptr_array_add(fmd->column_orders, co);
    }
    fmd->__isset_column_orders = TRUE;

    for (uint32_t r = 0; r < row_groups; r++) {
        pqtRowGroup *rg = g_object_new(PQT_TYPE_ROW_GROUP, NULL);
        int64_t rows = (int64_t)rng_range(&seed, 50000, 1048576);
        int64_t start = pos, uncompressed = 0;

        for (uint32_t i = 0; i < columns; i++) {
            leaf_name(i, name, sizeof name);
            pqtColumnChunk *cc = chunk_new(i, name, rows, stats, &pos, &seed);
            uncompressed += cc->meta_data->total_uncompressed_size;
            g_ptr_array_add(rg->columns, cc);
        }
        rg->num_rows = rows;
        rg->total_byte_size = uncompressed;
        rg->file_offset = start;
        rg->__isset_file_offset = TRUE;
        rg->total_compressed_size = pos - start;
        rg->__isset_total_compressed_size = TRUE;
        rg->ordinal = (gint16)r;
        rg->__isset_ordinal = TRUE;
        g_ptr_array_add(fmd->row_groups, rg);
        total_rows += rows;
    }
    fmd->num_rows = total_rows;
    fmd->created_by = g_strdup(SYNTH_CREATED_BY);
    fmd->__isset_created_by = TRUE;
    set_page_index_offsets(fmd, pos, &seed);
    return fmd;
}

uint8_t *pq_synth_footer_bytes(uint32_t columns, uint32_t row_groups, pq_synth_stats stats,
                               size_t *len)
{
    pqtFileMetaData *fmd = pq_synth_footer(columns, row_groups, stats);
    if (!fmd) return NULL;
    uint8_t *bytes = pq_cglib_encode(fmd, len);
    g_object_unref(fmd);
    return bytes;
}
