/*
 * cmd_schema.c — `pqstep schema FILE [--json]`: the schema tree with
 * repetition, types, levels, Arrow types and field ids.
 *
 * The schema nodes are in depth-first order with their depth, so both
 * outputs walk them in one loop without recursion: a hostile file with a
 * very deep tree cannot exhaust the stack.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"

static const char schema_usage[] = "pqstep schema [--json] FILE";

/* Text indentation stops growing here so that output stays linear in size. */
#define MAX_TEXT_INDENT_LEVELS 64

static void schema_help(void)
{
    fputs("usage: pqstep schema [--json] FILE\n"
          "\n"
          "Print the schema tree of a Parquet file: for every node its repetition,\n"
          "physical type, logical type, converted type, max definition and\n"
          "repetition levels, the Arrow type it reads as, and its field id.\n"
          "\n"
          "options:\n"
          "  --json     one JSON document (layout in docs/cli.md)\n"
          "  -h, --help show this help\n",
          stdout);
}

static bool is_leaf(const pq_schema *s, const pq_schema_node *nd)
{
    return nd->leaf_index >= 0 && (uint32_t)nd->leaf_index < s->leaves_len;
}

/* The logical type shown for a node: for leaves the library's (derived from
 * the converted type when the file has no logicalType), for groups the
 * file's own annotation. */
static const pq_logical_type *node_logical(const pq_schema *s, const pq_schema_node *nd)
{
    if (is_leaf(s, nd))
        return &s->leaves[nd->leaf_index].logical;
    return &nd->element->logical;
}

static const char *node_converted(const pq_schema_node *nd)
{
    const pq_schema_element *el = nd->element;
    if (!(el->set & PQ_SE_HAS_CONVERTED_TYPE) || el->converted_type == PQ_CT_NONE)
        return NULL;
    return pq_converted_type_name(el->converted_type);
}

static const char *node_repetition(const pq_schema_node *nd)
{
    if (!(nd->element->set & PQ_SE_HAS_REPETITION))
        return NULL;
    return pq_repetition_name(nd->element->repetition);
}

/* ---------------------------------------------------------------------------
 * Text
 * ------------------------------------------------------------------------- */

static void schema_text(const pq_metadata *md)
{
    static const char *const head[] = {"name", "repetition", "physical", "logical", "converted",
                                       "def", "rep", "arrow", "field_id"};
    const pq_schema *s = pq_metadata_schema(md);
    cli_buf b = {0};
    cli_table t;
    cli_table_init(&t, "lllllrrlr");
    for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
        cli_table_add(&t, "%s", head[i]);

    for (uint32_t i = 0; i < s->nodes_len; i++) {
        const pq_schema_node *nd = &s->nodes[i];
        const pq_schema_element *el = nd->element;
        int depth = nd->depth < 0 ? 0 : nd->depth;
        if (depth > MAX_TEXT_INDENT_LEVELS)
            depth = MAX_TEXT_INDENT_LEVELS;
        const char *rep = node_repetition(nd);
        const char *conv = node_converted(nd);

        cli_table_add_text(&t, 2 * (size_t)depth, el->name.ptr, el->name.len);
        cli_table_add(&t, "%s", rep ? rep : "-");
        if (is_leaf(s, nd))
            cli_table_add(&t, "%s", cli_fmt_physical(&b, el->type, el->type_length));
        else
            cli_table_add(&t, "group");
        const char *logical = cli_fmt_logical(&b, node_logical(s, nd));
        if (logical)
            cli_table_add_text(&t, 0, logical, strlen(logical));
        else
            cli_table_add(&t, "-");
        cli_table_add(&t, "%s", conv ? conv : "-");
        cli_table_add(&t, "%d", (int)nd->max_def);
        cli_table_add(&t, "%d", (int)nd->max_rep);
        cli_table_add(&t, "%s", cli_fmt_arrow(&b, &nd->arrow));
        if (el->set & PQ_SE_HAS_FIELD_ID)
            cli_table_add(&t, "%" PRId32, el->field_id);
        else
            cli_table_add(&t, "-");
    }
    cli_table_print(&t, stdout, "");
    cli_table_free(&t);
    cli_buf_free(&b);
}

/* ---------------------------------------------------------------------------
 * JSON
 * ------------------------------------------------------------------------- */

/* Open a node's object; its "children" array stays open for the nodes
 * below it. `path` is the node's dotted path. */
static void json_open_node(cli_json *j, cli_buf *b, const pq_schema *s, const pq_schema_node *nd,
                           const char *path, size_t path_len)
{
    const pq_schema_element *el = nd->element;
    bool leaf = is_leaf(s, nd);

    cli_json_begin_object(j);
    cli_json_key(j, "name");
    cli_json_string(j, el->name.ptr, el->name.len);
    cli_json_key(j, "path");
    cli_json_string(j, path, path_len);
    cli_json_key(j, "repetition");
    cli_json_cstring(j, node_repetition(nd));
    cli_json_key(j, "physical_type");
    cli_json_cstring(j, leaf ? pq_physical_type_name(el->type) : NULL);
    cli_json_key(j, "type_length");
    if (leaf && el->type == PQ_FIXED_LEN_BYTE_ARRAY)
        cli_json_int(j, el->type_length);
    else
        cli_json_null(j);
    cli_json_key(j, "logical_type");
    cli_json_cstring(j, cli_fmt_logical(b, node_logical(s, nd)));
    cli_json_key(j, "converted_type");
    cli_json_cstring(j, node_converted(nd));
    cli_json_key(j, "max_def");
    cli_json_int(j, nd->max_def);
    cli_json_key(j, "max_rep");
    cli_json_int(j, nd->max_rep);
    cli_json_key(j, "arrow_type");
    cli_json_cstring(j, cli_fmt_arrow(b, &nd->arrow));
    cli_json_key(j, "field_id");
    if (el->set & PQ_SE_HAS_FIELD_ID)
        cli_json_int(j, el->field_id);
    else
        cli_json_null(j);
    cli_json_key(j, "leaf_index");
    if (leaf)
        cli_json_int(j, nd->leaf_index);
    else
        cli_json_null(j);
    cli_json_key(j, "children");
    cli_json_begin_array(j);
}

static void json_close_node(cli_json *j)
{
    cli_json_end_array(j);
    cli_json_end_object(j);
}

static void schema_json(const pq_metadata *md, const char *file)
{
    const pq_schema *s = pq_metadata_schema(md);
    cli_buf b = {0};
    cli_buf path = {0};
    /* path_end[d]: length of the path of the open node at depth d. */
    size_t *path_end = cli_xrealloc(NULL, ((size_t)s->nodes_len + 1) * sizeof(*path_end));
    path_end[0] = 0;
    cli_json j;
    cli_json_init(&j, stdout);

    cli_json_begin_object(&j);
    cli_json_key(&j, "file");
    cli_json_cstring(&j, file);
    cli_json_key(&j, "name");
    if (s->nodes_len > 0)
        cli_json_string(&j, s->nodes[0].element->name.ptr, s->nodes[0].element->name.len);
    else
        cli_json_null(&j);
    cli_json_key(&j, "num_columns");
    cli_json_int(&j, s->leaves_len);
    cli_json_key(&j, "fields");
    cli_json_begin_array(&j);

    uint32_t open = 0; /* nodes whose children array is open */
    for (uint32_t i = 1; i < s->nodes_len; i++) {
        const pq_schema_node *nd = &s->nodes[i];
        /* Depth-first order: a node's depth is at most one below the last
         * open node; clamp anyway so that a bad depth cannot break nesting. */
        uint32_t d = nd->depth < 1 ? 1 : (uint32_t)nd->depth;
        if (d > open + 1)
            d = open + 1;
        while (open >= d) {
            json_close_node(&j);
            open--;
        }
        const char *name = nd->name ? nd->name : "";
        size_t name_len = strlen(name);
        size_t base = path_end[d - 1];
        size_t len = base + (d > 1) + name_len;
        if (path.cap < len + 1) {
            path.p = cli_xrealloc(path.p, len + 1);
            path.cap = len + 1;
        }
        if (d > 1)
            path.p[base] = '.';
        memcpy(path.p + base + (d > 1), name, name_len);
        path_end[d] = len;
        if (is_leaf(s, nd)) { /* the library's path, as meta shows it */
            const char *lp = s->leaves[nd->leaf_index].path;
            json_open_node(&j, &b, s, nd, lp, strlen(lp));
        } else {
            json_open_node(&j, &b, s, nd, path.p, len);
        }
        open++;
    }
    while (open > 0) {
        json_close_node(&j);
        open--;
    }
    cli_json_end_array(&j);
    cli_json_end_object(&j);
    cli_json_finish(&j);
    free(path_end);
    cli_buf_free(&path);
    cli_buf_free(&b);
}

int pq_cmd_schema(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse_file_args(argc, argv, schema_usage, &a);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (a.help) {
        schema_help();
        return CLI_EXIT_OK;
    }
    uint64_t file_size = 0;
    pq_metadata *md = cli_open_metadata(a.file, &file_size);
    if (!md)
        return CLI_EXIT_ERROR;
    if (a.json)
        schema_json(md, a.file);
    else
        schema_text(md);
    pq_metadata_release(md);
    return CLI_EXIT_OK;
}
