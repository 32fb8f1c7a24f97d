/*
 * cmd_meta.c — `pqstep meta FILE [--json]`: the footer, row group by row
 * group and column chunk by column chunk.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json_writer.h"

/* A column order's name for meta's output. */
static const char *column_order_name(int32_t order)
{
    return order == PQ_COLUMN_ORDER_TYPE_DEFINED    ? "type"
           : order == PQ_COLUMN_ORDER_IEEE754_TOTAL ? "ieee754_total"
                                                    : "unknown";
}

static const char meta_usage[] = "pqstep meta [--json] FILE...";

static void meta_help(void)
{
    fputs("usage: pqstep meta [--json] FILE...\n"
          "\n"
          "Print the footer of a Parquet file: format version, writer, row and\n"
          "row-group counts, footer size, key-value keys, the leaf columns, and for\n"
          "every row group and column chunk the codec, encodings, sizes, page\n"
          "offsets, statistics, page index and bloom filter presence. Several FILEs,\n"
          "a directory or a quoted glob pattern ('data/**/*.parquet') give every\n"
          "file's footer in turn (parsed in parallel), blank-line separated; with\n"
          "--json, a JSON array of the files' documents.\n"
          "\n"
          "options:\n"
          "  --json     one JSON document (layout in docs/cli.md)\n"
          "  -h, --help show this help\n",
          stdout);
}

/* What the text and JSON outputs show of one column chunk. */
typedef struct chunk_view {
    const pq_column_chunk *cc;
    const pq_column_meta *m; /* NULL when the chunk has no (readable) meta_data */
    const pq_leaf *leaf;     /* NULL when the chunk has no matching leaf */
    bool has_stats;
    pq_bytes min, max;
    bool has_min, has_max;
} chunk_view;

static chunk_view chunk_view_of(const pq_schema *schema, const pq_row_group *rg, uint32_t c)
{
    chunk_view v;
    memset(&v, 0, sizeof(v));
    v.cc = rg->columns[c];
    if ((v.cc->set & PQ_CC_HAS_META_DATA) && !(v.cc->set & PQ_CC_SKIPPED))
        v.m = &v.cc->meta_data;
    if (c < schema->leaves_len)
        v.leaf = &schema->leaves[c];
    if (v.m && (v.m->set & PQ_CMD_HAS_STATISTICS)) {
        v.has_stats = true;
        cli_stats_bounds(v.leaf, &v.m->statistics, &v.min, &v.has_min, &v.max, &v.has_max);
        /* Without a leaf there is no type to render the bounds with. */
        if (!v.leaf)
            v.has_min = v.has_max = false;
    }
    return v;
}

static const char *converted_name(const pq_schema *schema, const pq_leaf *leaf)
{
    if (leaf->node < 0 || (uint32_t)leaf->node >= schema->nodes_len)
        return NULL;
    const pq_schema_element *el = schema->nodes[leaf->node].element;
    if (!el || !(el->set & PQ_SE_HAS_CONVERTED_TYPE) || el->converted_type == PQ_CT_NONE)
        return NULL;
    return pq_converted_type_name(el->converted_type);
}

/* ---------------------------------------------------------------------------
 * JSON
 * ------------------------------------------------------------------------- */

static void json_opt_int(cli_json *j, const char *key, bool present, int64_t v)
{
    cli_json_key(j, key);
    if (present)
        cli_json_int(j, v);
    else
        cli_json_null(j);
}

static void json_stat_value(cli_json *j, cli_buf *b, const char *key, const pq_leaf *leaf,
                            bool present, pq_bytes v)
{
    cli_json_key(j, key);
    if (!present) {
        cli_json_null(j);
        return;
    }
    size_t len;
    const char *s = cli_fmt_stat(b, leaf, v, &len);
    cli_json_string(j, s, len);
}

static void json_stats(cli_json *j, cli_buf *b, const chunk_view *v)
{
    cli_json_key(j, "stats");
    if (!v->has_stats) {
        cli_json_null(j);
        return;
    }
    const pq_statistics *st = &v->m->statistics;
    cli_json_begin_object(j);
    json_stat_value(j, b, "min", v->leaf, v->has_min, v->min);
    json_stat_value(j, b, "max", v->leaf, v->has_max, v->max);
    json_opt_int(j, "null_count", st->set & PQ_STATS_HAS_NULL_COUNT, st->null_count);
    json_opt_int(j, "distinct_count", st->set & PQ_STATS_HAS_DISTINCT_COUNT, st->distinct_count);
    json_opt_int(j, "nan_count", st->set & PQ_STATS_HAS_NAN_COUNT, st->nan_count);
    cli_json_key(j, "is_min_exact");
    if (v->has_min && (st->set & PQ_STATS_HAS_IS_MIN_EXACT))
        cli_json_bool(j, st->is_min_value_exact);
    else
        cli_json_null(j);
    cli_json_key(j, "is_max_exact");
    if (v->has_max && (st->set & PQ_STATS_HAS_IS_MAX_EXACT))
        cli_json_bool(j, st->is_max_value_exact);
    else
        cli_json_null(j);
    cli_json_end_object(j);
}

/* SizeStatistics: "size_stats": {unencoded_byte_array_data_bytes,
 * repetition_level_histogram, definition_level_histogram} or null. */
static void json_histogram(cli_json *j, const char *key, bool present, const int64_t *h, uint32_t n)
{
    cli_json_key(j, key);
    if (!present) {
        cli_json_null(j);
        return;
    }
    cli_json_begin_array(j);
    for (uint32_t i = 0; i < n; i++) cli_json_int(j, h[i]);
    cli_json_end_array(j);
}

static void json_size_stats(cli_json *j, const pq_column_meta *m)
{
    const pq_size_statistics *z = m ? m->size_statistics : NULL;
    cli_json_key(j, "size_stats");
    if (!z) {
        cli_json_null(j);
        return;
    }
    cli_json_begin_object(j);
    json_opt_int(j, "unencoded_byte_array_data_bytes", z->set & PQ_SIZE_HAS_UNENCODED_BYTES,
                 z->unencoded_byte_array_data_bytes);
    json_histogram(j, "repetition_level_histogram", z->set & PQ_SIZE_HAS_REP_HISTOGRAM,
                   z->repetition_level_histogram, z->repetition_level_histogram_len);
    json_histogram(j, "definition_level_histogram", z->set & PQ_SIZE_HAS_DEF_HISTOGRAM,
                   z->definition_level_histogram, z->definition_level_histogram_len);
    cli_json_end_object(j);
}

static void json_chunk(cli_json *j, cli_buf *b, const chunk_view *v)
{
    const pq_column_meta *m = v->m;
    const pq_column_chunk *cc = v->cc;
    bool has = m != NULL;

    cli_json_begin_object(j);
    cli_json_key(j, "path");
    cli_json_cstring(j, v->leaf ? v->leaf->path : NULL);
    cli_json_key(j, "file_path");
    if (cc->set & PQ_CC_HAS_FILE_PATH)
        cli_json_string(j, cc->file_path.ptr, cc->file_path.len);
    else
        cli_json_null(j);
    cli_json_key(j, "codec");
    cli_json_cstring(j, has ? pq_codec_name(m->codec) : NULL);
    cli_json_key(j, "encodings");
    cli_json_begin_array(j);
    for (uint32_t e = 0; has && e < m->encodings_len; e++)
        cli_json_cstring(j, pq_encoding_name(m->encodings[e]));
    cli_json_end_array(j);
    json_opt_int(j, "num_values", has, has ? m->num_values : 0);
    json_opt_int(j, "compressed_size", has, has ? m->total_compressed_size : 0);
    json_opt_int(j, "uncompressed_size", has, has ? m->total_uncompressed_size : 0);
    json_opt_int(j, "data_page_offset", has, has ? m->data_page_offset : 0);
    json_opt_int(j, "dictionary_page_offset", has && (m->set & PQ_CMD_HAS_DICTIONARY_PAGE_OFFSET),
                 has ? m->dictionary_page_offset : 0);
    json_stats(j, b, v);
    json_size_stats(j, has ? v->m : NULL);

    bool ci = cc->set & PQ_CC_HAS_COLUMN_INDEX_OFFSET;
    bool oi = cc->set & PQ_CC_HAS_OFFSET_INDEX_OFFSET;
    bool bf = has && (m->set & PQ_CMD_HAS_BLOOM_FILTER_OFFSET);
    cli_json_key(j, "has_column_index");
    cli_json_bool(j, ci);
    cli_json_key(j, "has_offset_index");
    cli_json_bool(j, oi);
    cli_json_key(j, "has_bloom_filter");
    cli_json_bool(j, bf);
    json_opt_int(j, "column_index_offset", ci, cc->column_index_offset);
    json_opt_int(j, "column_index_length", cc->set & PQ_CC_HAS_COLUMN_INDEX_LENGTH,
                 cc->column_index_length);
    json_opt_int(j, "offset_index_offset", oi, cc->offset_index_offset);
    json_opt_int(j, "offset_index_length", cc->set & PQ_CC_HAS_OFFSET_INDEX_LENGTH,
                 cc->offset_index_length);
    json_opt_int(j, "bloom_filter_offset", bf, has ? m->bloom_filter_offset : 0);
    json_opt_int(j, "bloom_filter_length", has && (m->set & PQ_CMD_HAS_BLOOM_FILTER_LENGTH),
                 has ? m->bloom_filter_length : 0);
    cli_json_end_object(j);
}

static void json_leaf(cli_json *j, cli_buf *b, const pq_schema *schema, const pq_leaf *leaf)
{
    cli_json_begin_object(j);
    cli_json_key(j, "path");
    cli_json_cstring(j, leaf->path);
    cli_json_key(j, "physical_type");
    cli_json_cstring(j, pq_physical_type_name(leaf->physical_type));
    json_opt_int(j, "type_length", leaf->physical_type == PQ_FIXED_LEN_BYTE_ARRAY,
                 leaf->type_length);
    cli_json_key(j, "logical_type");
    cli_json_cstring(j, cli_fmt_logical(b, &leaf->logical));
    cli_json_key(j, "converted_type");
    cli_json_cstring(j, converted_name(schema, leaf));
    cli_json_key(j, "max_def");
    cli_json_int(j, leaf->max_def);
    cli_json_key(j, "max_rep");
    cli_json_int(j, leaf->max_rep);
    cli_json_key(j, "arrow_type");
    cli_json_cstring(j, cli_fmt_arrow(b, &leaf->arrow));
    cli_json_end_object(j);
}

static void meta_json(const pq_metadata *md, const char *path, uint64_t file_size)
{
    const pq_file_metadata *f = pq_metadata_file(md);
    const pq_schema *schema = pq_metadata_schema(md);
    size_t footer_len = 0;
    pq_metadata_footer_bytes(md, &footer_len);
    cli_buf b = {0};
    cli_json j;
    cli_json_init(&j, stdout);

    cli_json_begin_object(&j);
    cli_json_key(&j, "file");
    cli_json_cstring(&j, path);
    cli_json_key(&j, "file_size");
    cli_json_int(&j, (int64_t)file_size);
    cli_json_key(&j, "version");
    cli_json_int(&j, f->version);
    cli_json_key(&j, "created_by");
    if (f->set & PQ_FMD_HAS_CREATED_BY)
        cli_json_string(&j, f->created_by.ptr, f->created_by.len);
    else
        cli_json_null(&j);
    cli_json_key(&j, "num_rows");
    cli_json_int(&j, f->num_rows);
    cli_json_key(&j, "num_row_groups");
    cli_json_int(&j, f->row_groups_len);
    cli_json_key(&j, "num_columns");
    cli_json_int(&j, schema->leaves_len);
    cli_json_key(&j, "footer_bytes");
    cli_json_int(&j, (int64_t)footer_len);

    cli_json_key(&j, "key_value_keys");
    cli_json_begin_array(&j);
    for (uint32_t i = 0; i < f->key_value_metadata_len; i++)
        cli_json_string(&j, f->key_value_metadata[i].key.ptr, f->key_value_metadata[i].key.len);
    cli_json_end_array(&j);

    cli_json_key(&j, "column_orders"); /* per leaf: "type", "ieee754_total", "unknown"; null when absent */
    if (f->set & PQ_FMD_HAS_COLUMN_ORDERS) {
        cli_json_begin_array(&j);
        for (uint32_t i = 0; i < f->column_orders_len; i++)
            cli_json_cstring(&j, column_order_name(f->column_orders[i]));
        cli_json_end_array(&j);
    } else {
        cli_json_null(&j);
    }
    char note[256];
    cli_json_key(&j, "statistics_note"); /* what pruning sets aside of the statistics; null when nothing */
    if (pq_metadata_statistics_note(md, note, sizeof note))
        cli_json_cstring(&j, note);
    else
        cli_json_null(&j);

    cli_json_key(&j, "columns");
    cli_json_begin_array(&j);
    for (uint32_t i = 0; i < schema->leaves_len; i++)
        json_leaf(&j, &b, schema, &schema->leaves[i]);
    cli_json_end_array(&j);

    cli_json_key(&j, "row_groups");
    cli_json_begin_array(&j);
    for (uint32_t r = 0; r < f->row_groups_len; r++) {
        const pq_row_group *rg = &f->row_groups[r];
        cli_json_begin_object(&j);
        cli_json_key(&j, "num_rows");
        cli_json_int(&j, rg->num_rows);
        cli_json_key(&j, "total_byte_size");
        cli_json_int(&j, rg->total_byte_size);
        json_opt_int(&j, "total_compressed_size", rg->set & PQ_RG_HAS_TOTAL_COMPRESSED_SIZE,
                     rg->total_compressed_size);
        json_opt_int(&j, "file_offset", rg->set & PQ_RG_HAS_FILE_OFFSET, rg->file_offset);
        cli_json_key(&j, "columns");
        cli_json_begin_array(&j);
        for (uint32_t c = 0; c < rg->columns_len; c++) {
            chunk_view v = chunk_view_of(schema, rg, c);
            json_chunk(&j, &b, &v);
        }
        cli_json_end_array(&j);
        cli_json_end_object(&j);
    }
    cli_json_end_array(&j);
    cli_json_end_object(&j);
    cli_json_finish(&j);
    cli_buf_free(&b);
}

/* ---------------------------------------------------------------------------
 * Text
 * ------------------------------------------------------------------------- */

#define LABEL_WIDTH 22

static void label(const char *indent, const char *name)
{
    printf("%s%-*s  ", indent, LABEL_WIDTH, name);
}

static void text_histogram(const char *key, bool present, const int64_t *h, uint32_t n)
{
    if (!present) return;
    label("    ", key);
    for (uint32_t i = 0; i < n; i++) printf("%s%" PRId64, i ? " " : "", h[i]);
    puts(n ? "" : "-");
}


static void text_int(const char *indent, const char *name, int64_t v)
{
    label(indent, name);
    printf("%" PRId64 "\n", v);
}

static void text_opt_int(const char *indent, const char *name, bool present, int64_t v)
{
    if (present) {
        text_int(indent, name, v);
    } else {
        label(indent, name);
        puts("-");
    }
}

/* `inexact`: the writer says the bound was truncated (is_*_value_exact). */
static void text_stat_value(cli_buf *b, const char *name, const pq_leaf *leaf, bool present,
                            pq_bytes v, bool inexact)
{
    label("    ", name);
    if (present) {
        size_t len;
        const char *s = cli_fmt_stat(b, leaf, v, &len);
        cli_print_text(stdout, s, len);
        puts(inexact ? "  (not exact)" : "");
    } else {
        puts("-");
    }
}

/* "offset 1234, length 56" or "-". */
static void text_location(const char *name, bool present, int64_t offset, bool has_len,
                          int64_t len)
{
    label("    ", name);
    if (!present)
        puts("-");
    else if (has_len)
        printf("offset %" PRId64 ", length %" PRId64 "\n", offset, len);
    else
        printf("offset %" PRId64 "\n", offset);
}

static void text_chunk(cli_buf *b, uint32_t c, const chunk_view *v)
{
    const pq_column_meta *m = v->m;
    const pq_column_chunk *cc = v->cc;
    printf("  column %" PRIu32 ": ", c);
    if (v->leaf)
        cli_print_text(stdout, v->leaf->path, strlen(v->leaf->path));
    else
        fputs("(no matching leaf)", stdout);
    putchar('\n');
    if (cc->set & PQ_CC_HAS_FILE_PATH) {
        label("    ", "file_path");
        cli_print_text(stdout, cc->file_path.ptr, cc->file_path.len);
        putchar('\n');
    }
    if (!m) {
        label("    ", "meta_data");
        puts((cc->set & PQ_CC_HAS_ENCRYPTED_METADATA) ? "(encrypted)" : "(absent)");
        return;
    }
    label("    ", "physical_type");
    puts(pq_physical_type_name(m->type));
    label("    ", "codec");
    puts(pq_codec_name(m->codec));
    label("    ", "encodings");
    for (uint32_t e = 0; e < m->encodings_len; e++)
        printf("%s%s", e ? ", " : "", pq_encoding_name(m->encodings[e]));
    puts(m->encodings_len ? "" : "-");
    text_int("    ", "num_values", m->num_values);
    text_int("    ", "compressed_size", m->total_compressed_size);
    text_int("    ", "uncompressed_size", m->total_uncompressed_size);
    text_int("    ", "data_page_offset", m->data_page_offset);
    text_opt_int("    ", "dictionary_page_offset", m->set & PQ_CMD_HAS_DICTIONARY_PAGE_OFFSET,
                 m->dictionary_page_offset);
    if (v->has_stats) {
        const pq_statistics *st = &v->m->statistics;
        text_stat_value(b, "min", v->leaf, v->has_min, v->min,
                        (st->set & PQ_STATS_HAS_IS_MIN_EXACT) && !st->is_min_value_exact);
        text_stat_value(b, "max", v->leaf, v->has_max, v->max,
                        (st->set & PQ_STATS_HAS_IS_MAX_EXACT) && !st->is_max_value_exact);
        text_opt_int("    ", "null_count", st->set & PQ_STATS_HAS_NULL_COUNT, st->null_count);
        text_opt_int("    ", "distinct_count", st->set & PQ_STATS_HAS_DISTINCT_COUNT,
                     st->distinct_count);
        if (st->set & PQ_STATS_HAS_NAN_COUNT) text_opt_int("    ", "nan_count", true, st->nan_count);
    } else {
        label("    ", "statistics");
        puts("-");
    }
    if (m->size_statistics) {
        const pq_size_statistics *z = m->size_statistics;
        if (z->set & PQ_SIZE_HAS_UNENCODED_BYTES)
            text_opt_int("    ", "unencoded_bytes", true, z->unencoded_byte_array_data_bytes);
        text_histogram("rep_histogram", z->set & PQ_SIZE_HAS_REP_HISTOGRAM, z->repetition_level_histogram,
                       z->repetition_level_histogram_len);
        text_histogram("def_histogram", z->set & PQ_SIZE_HAS_DEF_HISTOGRAM, z->definition_level_histogram,
                       z->definition_level_histogram_len);
    }
    text_location("column_index", cc->set & PQ_CC_HAS_COLUMN_INDEX_OFFSET, cc->column_index_offset,
                  cc->set & PQ_CC_HAS_COLUMN_INDEX_LENGTH, cc->column_index_length);
    text_location("offset_index", cc->set & PQ_CC_HAS_OFFSET_INDEX_OFFSET, cc->offset_index_offset,
                  cc->set & PQ_CC_HAS_OFFSET_INDEX_LENGTH, cc->offset_index_length);
    text_location("bloom_filter", m->set & PQ_CMD_HAS_BLOOM_FILTER_OFFSET, m->bloom_filter_offset,
                  m->set & PQ_CMD_HAS_BLOOM_FILTER_LENGTH, m->bloom_filter_length);
}

static void text_columns(cli_buf *b, const pq_schema *schema)
{
    static const char *const head[] = {"#", "path", "physical", "logical", "converted",
                                       "def", "rep", "arrow"};
    cli_table t;
    cli_table_init(&t, "rllllrrl");
    for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
        cli_table_add(&t, "%s", head[i]);
    /* `b` is shared by the formatters: use each result before the next. */
    for (uint32_t i = 0; i < schema->leaves_len; i++) {
        const pq_leaf *leaf = &schema->leaves[i];
        const char *conv = converted_name(schema, leaf);
        cli_table_add(&t, "%" PRIu32, i);
        cli_table_add_text(&t, 0, leaf->path, strlen(leaf->path));
        cli_table_add(&t, "%s", cli_fmt_physical(b, leaf->physical_type, leaf->type_length));
        const char *logical = cli_fmt_logical(b, &leaf->logical);
        if (logical)
            cli_table_add_text(&t, 0, logical, strlen(logical));
        else
            cli_table_add(&t, "-");
        cli_table_add(&t, "%s", conv ? conv : "-");
        cli_table_add(&t, "%d", (int)leaf->max_def);
        cli_table_add(&t, "%d", (int)leaf->max_rep);
        cli_table_add(&t, "%s", cli_fmt_arrow(b, &leaf->arrow));
    }
    cli_table_print(&t, stdout, "  ");
    cli_table_free(&t);
}

static void meta_text(const pq_metadata *md, const char *path, uint64_t file_size)
{
    const pq_file_metadata *f = pq_metadata_file(md);
    const pq_schema *schema = pq_metadata_schema(md);
    size_t footer_len = 0;
    pq_metadata_footer_bytes(md, &footer_len);
    cli_buf b = {0};

    label("", "file");
    cli_print_text(stdout, path, strlen(path));
    putchar('\n');
    text_int("", "file_size", (int64_t)file_size);
    text_int("", "version", f->version);
    label("", "created_by");
    if (f->set & PQ_FMD_HAS_CREATED_BY)
        cli_print_text(stdout, f->created_by.ptr, f->created_by.len);
    else
        fputs("-", stdout);
    putchar('\n');
    text_int("", "num_rows", f->num_rows);
    text_int("", "num_row_groups", f->row_groups_len);
    text_int("", "num_columns", schema->leaves_len);
    text_int("", "footer_bytes", (int64_t)footer_len);
    if (f->set & PQ_FMD_HAS_COLUMN_ORDERS) {
        label("", "column_orders");
        for (uint32_t i = 0; i < f->column_orders_len; i++) {
            printf("%s%s", i ? " " : "", column_order_name(f->column_orders[i]));
        }
        putchar('\n');
    }
    char note[256];
    if (pq_metadata_statistics_note(md, note, sizeof note)) {
        label("", "statistics_note");
        printf("%s\n", note);
    }
    text_int("", "key_value_keys", f->key_value_metadata_len);
    for (uint32_t i = 0; i < f->key_value_metadata_len; i++) {
        const pq_key_value *kv = &f->key_value_metadata[i];
        fputs("  ", stdout);
        cli_print_text(stdout, kv->key.ptr, kv->key.len);
        if (kv->has_value)
            printf("  (%" PRIu32 " bytes)\n", kv->value.len);
        else
            puts("  (no value)");
    }

    printf("\ncolumns\n");
    text_columns(&b, schema);

    for (uint32_t r = 0; r < f->row_groups_len; r++) {
        const pq_row_group *rg = &f->row_groups[r];
        printf("\nrow group %" PRIu32 ": num_rows %" PRId64 ", total_byte_size %" PRId64, r,
               rg->num_rows, rg->total_byte_size);
        if (rg->set & PQ_RG_HAS_TOTAL_COMPRESSED_SIZE)
            printf(", total_compressed_size %" PRId64, rg->total_compressed_size);
        putchar('\n');
        for (uint32_t c = 0; c < rg->columns_len; c++) {
            chunk_view v = chunk_view_of(schema, rg, c);
            text_chunk(&b, c, &v);
        }
    }
    cli_buf_free(&b);
}

/* Several files, a directory or a pattern: every file's footer, listed and
 * parsed (in parallel) by pq_dataset_open. */
static int meta_many(const char **files, size_t n, bool json)
{
    pq_error err = {0};
    pq_dataset_options o;
    pq_dataset_options_init(&o);
    pq_reader_options ro;
    pq_reader_options_init(&ro);
    ro.decryption = cli_decryption();
    o.reader = &ro;
    pq_dataset *ds = pq_dataset_open(files, n, &o, &err);
    if (!ds) return cli_file_error(files[0], &err);
    for (size_t i = 0; i < pq_dataset_file_count(ds); i++) {
        const char *path = pq_dataset_file_path(ds, i);
        struct stat sb;
        uint64_t size = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
        if (i) fputs(json ? ",\n" : "\n", stdout);
        else if (json) fputs("[\n", stdout);
        if (json) meta_json(pq_dataset_file_metadata(ds, i), path, size);
        else meta_text(pq_dataset_file_metadata(ds, i), path, size);
    }
    if (json) fputs("]\n", stdout);
    pq_dataset_close(ds);
    return CLI_EXIT_OK;
}

int pq_cmd_meta(int argc, char **argv)
{
    const char **files = NULL;
    size_t nfiles = 0;
    bool json = false, options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!options_done && s[0] == '-' && s[1]) {
            if (strcmp(s, "--") == 0) options_done = true;
            else if (strcmp(s, "--json") == 0) json = true;
            else if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
                free(files);
                meta_help();
                return CLI_EXIT_OK;
            } else {
                free(files);
                return cli_usage_error(meta_usage, "%s: unknown option '%s'", argv[0], s);
            }
            continue;
        }
        files = cli_xrealloc(files, (nfiles + 1) * sizeof *files);
        files[nfiles++] = s;
    }
    if (!nfiles) return cli_usage_error(meta_usage, "%s: missing FILE", argv[0]);
    if (cli_is_dataset(files, nfiles)) {
        int rc = meta_many(files, nfiles, json);
        free(files);
        return rc;
    }
    cli_args a = {.file = files[0], .json = json};
    free(files);
    uint64_t file_size = 0;
    pq_metadata *md = cli_open_metadata(a.file, &file_size);
    if (!md)
        return CLI_EXIT_ERROR;
    if (a.json)
        meta_json(md, a.file, file_size);
    else
        meta_text(md, a.file, file_size);
    pq_metadata_release(md);
    return CLI_EXIT_OK;
}
