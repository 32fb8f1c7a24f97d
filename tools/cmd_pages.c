/*
 * cmd_pages.c — `pqstep pages FILE [--column PATH] [--row-group N]
 * [--where EXPR] [--verify-checksums] [--json]`: every page of the selected
 * column chunks, as the reader's page-header stage walked them (with
 * --where, as the filter stage left them: the other columns' pages that
 * hold a kept row).
 *
 * The command drives the reader through footer, select, page headers and,
 * with --where, the filter stage, and prints what the last stage keeps, so
 * it shows exactly what a read would use.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"

static const char pages_usage[] =
    "pqstep pages [--column PATH] [--row-group N] [--where EXPR] [--verify-checksums] [--json] FILE";

static void pages_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Print every page of the selected column chunks: type, file offset of the\n"
           "header, header size, compressed and uncompressed size, value encoding,\n"
           "value count, row and null counts (v2 pages), levels' encoding or byte\n"
           "lengths, whether the page carries statistics and a CRC.\n"
           "\n"
           "options:\n"
           "  --column PATH         one leaf column, by dotted path (default: all)\n"
           "  --row-group N         one row group (default: all)\n"
           "  --where EXPR          a filter (as pqstep cat --where takes it): the reader runs\n"
           "                        its filter stage too, and the pages listed are those a\n"
           "                        filtered read decodes (the filter's columns whole, the\n"
           "                        other columns only where a row is kept); the filter\n"
           "                        stage's counts come first\n"
           "  --verify-checksums    check each page's CRC-32; a mismatch is an error\n"
           "  --json                one JSON document (layout in docs/cli.md)\n"
           "  -h, --help            show this help\n",
           pages_usage);
}

typedef struct pages_args {
    const char *file;
    const char *column;
    const char *where;
    long row_group; /* -1: all */
    bool verify;
    bool json;
} pages_args;

static int parse_args(int argc, char **argv, pages_args *a, bool *help)
{
    memset(a, 0, sizeof *a);
    a->row_group = -1;
    *help = false;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!options_done && s[0] == '-' && s[1]) {
            if (strcmp(s, "--") == 0) options_done = true;
            else if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) *help = true;
            else if (strcmp(s, "--json") == 0) a->json = true;
            else if (strcmp(s, "--verify-checksums") == 0) a->verify = true;
            else if (strcmp(s, "--column") == 0 && i + 1 < argc) a->column = argv[++i];
            else if (strcmp(s, "--where") == 0 && i + 1 < argc) a->where = argv[++i];
            else if (strcmp(s, "--row-group") == 0 && i + 1 < argc) {
                char *end;
                a->row_group = strtol(argv[++i], &end, 10);
                if (*end || argv[i][0] == '\0' || a->row_group < 0 || a->row_group > UINT32_MAX)
                    return cli_usage_error(pages_usage, "--row-group wants a row group index");
            } else {
                return cli_usage_error(pages_usage, "unknown option '%s'", s);
            }
        } else if (!a->file) {
            a->file = s;
        } else {
            return cli_usage_error(pages_usage, "more than one FILE");
        }
    }
    if (!*help && !a->file) return cli_usage_error(pages_usage, "missing FILE");
    return CLI_EXIT_OK;
}

static const char *level_encoding(const pq_page_info *p)
{
    return p->type == PQ_PAGE_DATA ? pq_encoding_name(p->def_level_encoding) : NULL;
}

/* The filter stage's counts, for --where. */
static void print_filter_text(const pq_reader *r)
{
    pq_filter_stats st;
    pq_reader_filter_stats(r, &st, sizeof st);
    char text[512];
    pq_reader_filter_text(r, text, sizeof text);
    printf("filter %s: kept %" PRIu64 " of %" PRIu64 " rows in %" PRIu64 " row groups (%" PRIu64
           " without a match); never read: %" PRIu64 " chunks (%" PRIu64 " bytes) and %" PRIu64 " pages\n",
           text, st.rows, st.rows_in, st.groups, st.groups_without_match, st.chunks_skipped, st.bytes_skipped,
           st.pages_skipped);
}

static void print_text(const pq_reader *r, const pq_metadata *md)
{
    const pq_schema *schema = pq_metadata_schema(md);
    size_t nrg, ncol;
    const uint32_t *rgs = pq_reader_selected_row_groups(r, &nrg);
    const uint32_t *cols = pq_reader_selected_columns(r, &ncol);
    for (size_t g = 0; g < nrg; g++) {
        for (size_t c = 0; c < ncol; c++) {
            const pq_chunk_pages *cp = pq_reader_chunk_pages(r, rgs[g], cols[c]);
            if (!cp) continue;
            printf("row group %u, column %u: %s (bytes %" PRIu64 "..%" PRIu64 ", %zu pages)\n",
                   rgs[g], cols[c], schema->leaves[cols[c]].path, cp->offset,
                   cp->offset + cp->length, cp->npages);
            cli_table t;
            cli_table_init(&t, "rlrrrrlrrrll");
            const char *head[] = {"#", "type", "offset", "header", "compressed", "uncompressed",
                                  "encoding", "values", "rows", "nulls", "stats", "crc"};
            for (size_t h = 0; h < sizeof head / sizeof head[0]; h++) cli_table_add(&t, "%s", head[h]);
            for (size_t i = 0; i < cp->npages; i++) {
                const pq_page_info *p = &cp->pages[i];
                bool v2 = p->type == PQ_PAGE_DATA_V2;
                bool index = p->type == PQ_PAGE_INDEX;
                cli_table_add(&t, "%zu", i);
                cli_table_add(&t, "%s", pq_page_type_name(p->type));
                cli_table_add(&t, "%" PRIu64, cp->offset + p->header_offset);
                cli_table_add(&t, "%" PRIu32, p->header_len);
                cli_table_add(&t, "%" PRId32, p->compressed_size);
                cli_table_add(&t, "%" PRId32, p->uncompressed_size);
                cli_table_add(&t, "%s", index ? "-" : pq_encoding_name(p->encoding));
                cli_table_add(&t, "%" PRId32, p->num_values);
                if (v2) {
                    cli_table_add(&t, "%" PRId32, p->num_rows);
                    cli_table_add(&t, "%" PRId32, p->num_nulls);
                } else {
                    cli_table_add(&t, "-");
                    cli_table_add(&t, "-");
                }
                cli_table_add(&t, "%s", p->has_statistics ? "yes" : "no");
                if (p->has_crc) cli_table_add(&t, "%08" PRIx32, p->crc);
                else cli_table_add(&t, "-");
            }
            cli_table_print(&t, stdout, "  ");
            cli_table_free(&t);
        }
    }
}

static void print_json(const pq_reader *r, const pq_metadata *md, const char *file, bool verified, bool filtered)
{
    const pq_schema *schema = pq_metadata_schema(md);
    size_t nrg, ncol;
    const uint32_t *rgs = pq_reader_selected_row_groups(r, &nrg);
    const uint32_t *cols = pq_reader_selected_columns(r, &ncol);
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_begin_object(&j);
    cli_json_key(&j, "file");
    cli_json_cstring(&j, file);
    cli_json_key(&j, "checksums_verified");
    cli_json_bool(&j, verified);
    if (filtered) { /* the filter stage's counts */
        pq_filter_stats st;
        pq_reader_filter_stats(r, &st, sizeof st);
        char text[512];
        pq_reader_filter_text(r, text, sizeof text);
        cli_json_key(&j, "filter");
        cli_json_begin_object(&j);
        cli_json_key(&j, "expression");
        cli_json_cstring(&j, text);
        cli_json_key(&j, "rows_in");
        cli_json_int(&j, (int64_t)st.rows_in);
        cli_json_key(&j, "rows_kept");
        cli_json_int(&j, (int64_t)st.rows);
        cli_json_key(&j, "row_groups");
        cli_json_int(&j, (int64_t)st.groups);
        cli_json_key(&j, "row_groups_without_match");
        cli_json_int(&j, (int64_t)st.groups_without_match);
        cli_json_key(&j, "chunks_skipped");
        cli_json_int(&j, (int64_t)st.chunks_skipped);
        cli_json_key(&j, "bytes_skipped");
        cli_json_int(&j, (int64_t)st.bytes_skipped);
        cli_json_key(&j, "pages_skipped");
        cli_json_int(&j, (int64_t)st.pages_skipped);
        cli_json_end_object(&j);
    }
    cli_json_key(&j, "chunks");
    cli_json_begin_array(&j);
    for (size_t g = 0; g < nrg; g++) {
        for (size_t c = 0; c < ncol; c++) {
            const pq_chunk_pages *cp = pq_reader_chunk_pages(r, rgs[g], cols[c]);
            if (!cp) continue;
            cli_json_begin_object(&j);
            cli_json_key(&j, "row_group");
            cli_json_int(&j, rgs[g]);
            cli_json_key(&j, "column");
            cli_json_int(&j, cols[c]);
            cli_json_key(&j, "path");
            cli_json_cstring(&j, schema->leaves[cols[c]].path);
            cli_json_key(&j, "offset");
            cli_json_int(&j, (int64_t)cp->offset);
            cli_json_key(&j, "length");
            cli_json_int(&j, (int64_t)cp->length);
            cli_json_key(&j, "pages");
            cli_json_begin_array(&j);
            for (size_t i = 0; i < cp->npages; i++) {
                const pq_page_info *p = &cp->pages[i];
                bool v2 = p->type == PQ_PAGE_DATA_V2;
                cli_json_begin_object(&j);
                cli_json_key(&j, "type");
                cli_json_cstring(&j, pq_page_type_name(p->type));
                cli_json_key(&j, "offset");
                cli_json_int(&j, (int64_t)(cp->offset + p->header_offset));
                cli_json_key(&j, "header_size");
                cli_json_int(&j, p->header_len);
                cli_json_key(&j, "compressed_size");
                cli_json_int(&j, p->compressed_size);
                cli_json_key(&j, "uncompressed_size");
                cli_json_int(&j, p->uncompressed_size);
                cli_json_key(&j, "encoding");
                cli_json_cstring(&j, p->type == PQ_PAGE_INDEX ? NULL : pq_encoding_name(p->encoding));
                cli_json_key(&j, "num_values");
                cli_json_int(&j, p->num_values);
                cli_json_key(&j, "num_rows");
                if (v2) cli_json_int(&j, p->num_rows);
                else cli_json_null(&j);
                cli_json_key(&j, "num_nulls");
                if (v2) cli_json_int(&j, p->num_nulls);
                else cli_json_null(&j);
                cli_json_key(&j, "level_encoding");
                cli_json_cstring(&j, level_encoding(p));
                cli_json_key(&j, "def_levels_byte_length");
                if (v2) cli_json_int(&j, p->def_levels_byte_length);
                else cli_json_null(&j);
                cli_json_key(&j, "rep_levels_byte_length");
                if (v2) cli_json_int(&j, p->rep_levels_byte_length);
                else cli_json_null(&j);
                cli_json_key(&j, "is_compressed");
                cli_json_bool(&j, p->is_compressed);
                cli_json_key(&j, "has_statistics");
                cli_json_bool(&j, p->has_statistics);
                cli_json_key(&j, "crc");
                if (p->has_crc) cli_json_int(&j, p->crc);
                else cli_json_null(&j);
                cli_json_end_object(&j);
            }
            cli_json_end_array(&j);
            cli_json_end_object(&j);
        }
    }
    cli_json_end_array(&j);
    cli_json_end_object(&j);
    cli_json_finish(&j);
}

int pq_cmd_pages(int argc, char **argv)
{
    pages_args a;
    bool help;
    int rc = parse_args(argc, argv, &a, &help);
    if (rc != CLI_EXIT_OK) return rc;
    if (help) {
        pages_help();
        return CLI_EXIT_OK;
    }

    /* The footer first, to turn --column PATH into a leaf index. */
    uint64_t file_size = 0;
    pq_metadata *md = cli_open_metadata(a.file, &file_size);
    if (!md) return CLI_EXIT_ERROR;
    uint32_t column = 0, row_group = 0;
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.metadata = md; /* no second footer read */
    opts.verify_checksums = a.verify;
    if (a.column) {
        int32_t leaf = pq_metadata_find_leaf(md, a.column);
        if (leaf < 0) {
            pq_metadata_release(md);
            return cli_usage_error(pages_usage, "no leaf column '%s' (see pqstep schema)", a.column);
        }
        column = (uint32_t)leaf;
        opts.columns = &column;
        opts.columns_len = 1;
    }
    if (a.row_group >= 0) {
        row_group = (uint32_t)a.row_group;
        opts.row_groups = &row_group;
        opts.row_groups_len = 1;
    }

    pq_error err;
    pq_expr *filter = NULL;
    if (a.where && !(filter = pq_expr_parse(a.where, &err))) {
        pq_metadata_release(md);
        return cli_usage_error(pages_usage, "--where: %s", err.message);
    }
    opts.filter = filter;
    pq_reader *r = cli_open_reader(a.file, &opts, &err);
    pq_expr_free(filter); /* the reader has its own copy */
    pq_stage last = a.where ? PQ_STAGE_FILTER : PQ_STAGE_PAGE_HEADERS;
    if (r && pq_reader_advance_to(r, last, &err) == PQ_OK) {
        if (a.json) {
            print_json(r, md, a.file, a.verify, a.where != NULL);
        } else {
            if (a.where) print_filter_text(r);
            print_text(r, md);
        }
        rc = CLI_EXIT_OK;
    } else {
        rc = cli_file_error(a.file, &err);
    }
    pq_reader_close(r);
    pq_metadata_release(md);
    return rc;
}
