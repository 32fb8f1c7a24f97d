/*
 * cmd_cat.c — `pqstep cat FILE [--columns A,B] [--row-groups N,M]
 * [--limit N] [--format table|csv|jsonl] [--int96-unit UNIT]`: the values
 * of a file as text.
 *
 * The reader is driven to the decode stage with the chosen columns, row
 * groups and row limit; record batches of at most BATCH_ROWS rows are
 * exported (pq_reader_next_batch) and their rows written out as they are
 * rendered (tools/arrow_text.c), so the text is never held in memory
 * beyond one block of table rows.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_text.h"

static const char cat_usage[] =
    "pqstep cat [--columns A,B] [--row-groups N,M] [--where EXPR] [--limit N] [--format table|csv|jsonl] "
    "[--int96-unit ns|us|ms|s] [--row-index NAME] [--variant-storage] [--stats] [--hive] FILE...";

/* Table output is aligned per block of this many rows. */
#define TABLE_BLOCK_ROWS 1000

/* Rows per exported batch (batches share the decoded buffers: no copy). */
#define BATCH_ROWS 65536

static void cat_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Print the values of a Parquet file, one line per row. Several FILEs, a\n"
           "directory or a glob pattern (quoted: 'data/*.parquet', 'data/**/*.parquet')\n"
           "are read as one dataset: the files must share their schema.\n"
           "\n"
           "options:\n"
           "  --columns A,B       columns by leaf path or field name; a group selects all\n"
           "                      its leaves (default: all); output keeps file order;\n"
           "                      a path into a VARIANT column (v.a.b, v.l[0]) shows\n"
           "                      the values there, after the file's columns\n"
           "  --row-groups N,M    row groups by index, in this order (default: all)\n"
           "  --where EXPR        only the rows where EXPR is true (predicate syntax of\n"
           "                      pq_predicate.h, e.g. \"a >= 10 and b in ('x', 'y')\"); row groups\n"
           "                      and pages that cannot match are not read\n"
           "  --limit N           stop after N rows (after the filter)\n"
           "  --row-index NAME    add a last column NAME: each row's file row number (from 0)\n"
           "  --variant-storage   show shredded VARIANT columns as stored (metadata, value,\n"
           "                      typed_value) instead of the variants they hold, as JSON\n"
           "  --int96-unit UNIT   the unit of INT96 timestamps: ns (default), us, ms or s;\n"
           "                      a value outside the unit's range is an error (for ns:\n"
           "                      before 1677-09-21 or after 2262-04-11), never wrapped\n"
           "  --stats             print what each stage did (a dataset: what pruning did)\n"
           "                      to stderr at the end\n"
           "  --hive              a dataset's key=value directories are columns after the\n"
           "                      files' own (int32 when every value is an integer); --where\n"
           "                      terms on them skip whole files\n"
           "  --format FORMAT     table (default): aligned columns with a header\n"
           "                      csv: RFC 4180 with a header row, null as an empty field\n"
           "                      jsonl: one JSON object per row\n"
           "  -h, --help          show this help\n"
           "\n"
           "Values: integers exact, floats as the shortest text that reads back,\n"
           "decimals exact, dates/times/timestamps in ISO 8601 (Z when the type has a\n"
           "time zone), binary as lowercase hex, nested values as JSON. Details in\n"
           "docs/cli.md.\n",
           cat_usage);
}

typedef enum cat_format { CAT_TABLE, CAT_CSV, CAT_JSONL } cat_format;

typedef struct cat_args {
    const char *file;       /* the first FILE */
    const char **files;     /* every FILE (argv's), nfiles of them */
    size_t nfiles;
    bool hive;
    const char *columns;    /* comma-separated, or NULL */
    const char *row_groups; /* comma-separated, or NULL */
    uint64_t limit;
    bool has_limit;
    const char *where;      /* predicate text, or NULL */
    bool stats;
    cat_format format;
    uint32_t int96_unit;    /* pq_time_unit; 0: the reader's default (ns) */
    const char *row_index;  /* the row index column's name, or NULL */
    bool variant_storage;   /* shredded VARIANT columns as stored */
    bool help;
} cat_args;

/* A decimal number without sign that fits in `max`. */
static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (*s < '0' || *s > '9') return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (max - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* --stats: one line per stage on stderr, from the reader's counters. */
static void print_stats(const pq_reader *r)
{
    fflush(stdout); /* the values first */
    for (pq_stage stage = PQ_STAGE_FOOTER; stage < PQ_STAGE_COUNT; stage++) {
        pq_io_stats io;
        pq_reader_io_stats(r, stage, &io, sizeof io);
        fprintf(stderr, "%-12s %" PRIu64 " reads, %" PRIu64 " bytes read, %.3f ms", pq_stage_name(stage), io.reads,
                io.bytes_read, (double)io.nanoseconds / 1e6);
        if (io.requests)
            fprintf(stderr, ", %" PRIu64 " HTTP requests (%" PRIu64 " retries)", io.requests, io.retries);
        if (stage == PQ_STAGE_FOOTER) {
            pq_footer_stats st;
            pq_reader_footer_stats(r, &st, sizeof st);
            fprintf(stderr, ", %" PRIu64 " parses", st.parses);
        }
        if (stage == PQ_STAGE_SELECT) {
            pq_select_stats st;
            pq_reader_select_stats(r, &st, sizeof st);
            fprintf(stderr, ", %" PRIu64 " chunks; row groups pruned: %" PRIu64 " by statistics, %" PRIu64
                    " by dictionaries, %" PRIu64 " by bloom filters, %" PRIu64 " by page index; pages pruned %" PRIu64
                    " of %" PRIu64 "; %" PRIu64 " warnings", st.chunks, st.pruned_statistics, st.pruned_dictionary,
                    st.pruned_bloom_filter,
                    st.pruned_page_index, st.pages_pruned, st.pages_considered, st.prune_warnings);
        }
        if (stage == PQ_STAGE_PAGE_HEADERS) {
            pq_page_header_stats st;
            pq_reader_page_header_stats(r, &st, sizeof st);
            fprintf(stderr, ", %" PRIu64 " chunks, %" PRIu64 " pages; %" PRIu64 " data pages left unread (no row needed)",
                    st.chunks, st.pages, st.pages_skipped);
        }
        if (stage == PQ_STAGE_FILTER) {
            pq_filter_stats st;
            pq_reader_filter_stats(r, &st, sizeof st);
            if (st.groups)
                fprintf(stderr, ", kept %" PRIu64 " of %" PRIu64 " rows; %" PRIu64 " chunks (%" PRIu64
                        " bytes) and %" PRIu64 " pages of the other columns never read", st.rows, st.rows_in,
                        st.chunks_skipped, st.bytes_skipped, st.pages_skipped);
        }
        if (stage == PQ_STAGE_DECODE) {
            pq_decode_stats st;
            pq_reader_decode_stats(r, &st, sizeof st);
            fprintf(stderr, ", %" PRIu64 " rows out, %" PRIu64 " filtered out, %" PRIu64 " bytes of Arrow buffers, %" PRIu64
                    " dictionary bytes not decompressed, %" PRIu64 " chunks sized by SizeStatistics", st.rows,
                    st.rows_filtered, st.bytes_out, st.dictionary_bytes_skipped, st.chunks_sized_by_statistics);
        }
        fputc('\n', stderr);
    }
}

static int parse_args(int argc, char **argv, cat_args *a)
{
    memset(a, 0, sizeof *a);
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (options_done || s[0] != '-' || !s[1]) {
            if (!a->file) a->file = s;
            a->files = cli_xrealloc(a->files, (a->nfiles + 1) * sizeof *a->files);
            a->files[a->nfiles++] = s;
            continue;
        }
        if (strcmp(s, "--") == 0) {
            options_done = true;
        } else if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
            a->help = true;
        } else if (strcmp(s, "--stats") == 0) {
            a->stats = true;
        } else if (strcmp(s, "--hive") == 0) {
            a->hive = true;
        } else if (strcmp(s, "--variant-storage") == 0) {
            a->variant_storage = true;
        } else if (strcmp(s, "--where") == 0) {
            if (i + 1 >= argc) return cli_usage_error(cat_usage, "cat: --where wants an expression");
            a->where = argv[++i];
        } else if (strcmp(s, "--row-index") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0])
                return cli_usage_error(cat_usage, "cat: --row-index wants a column name");
            a->row_index = argv[++i];
        } else if (strcmp(s, "--int96-unit") == 0) {
            if (i + 1 >= argc) return cli_usage_error(cat_usage, "cat: --int96-unit wants a unit");
            const char *v = argv[++i];
            a->int96_unit = strcmp(v, "ns") == 0   ? PQ_UNIT_NANOS
                            : strcmp(v, "us") == 0 ? PQ_UNIT_MICROS
                            : strcmp(v, "ms") == 0 ? PQ_UNIT_MILLIS
                            : strcmp(v, "s") == 0  ? PQ_UNIT_SECONDS
                                                   : PQ_UNIT_NONE;
            if (a->int96_unit == PQ_UNIT_NONE)
                return cli_usage_error(cat_usage, "cat: --int96-unit is ns, us, ms or s, not '%s'", v);
        } else if (strcmp(s, "--columns") == 0 || strcmp(s, "--row-groups") == 0 ||
                   strcmp(s, "--limit") == 0 || strcmp(s, "--format") == 0) {
            if (i + 1 >= argc) return cli_usage_error(cat_usage, "cat: %s wants a value", s);
            const char *v = argv[++i];
            if (strcmp(s, "--columns") == 0) {
                a->columns = v;
            } else if (strcmp(s, "--row-groups") == 0) {
                a->row_groups = v;
            } else if (strcmp(s, "--limit") == 0) {
                if (!parse_u64(v, UINT64_MAX, &a->limit))
                    return cli_usage_error(cat_usage, "cat: --limit wants a row count, not '%s'", v);
                a->has_limit = true;
            } else if (strcmp(v, "table") == 0) {
                a->format = CAT_TABLE;
            } else if (strcmp(v, "csv") == 0) {
                a->format = CAT_CSV;
            } else if (strcmp(v, "jsonl") == 0) {
                a->format = CAT_JSONL;
            } else {
                return cli_usage_error(cat_usage, "cat: --format is table, csv or jsonl, not '%s'", v);
            }
        } else {
            return cli_usage_error(cat_usage, "cat: unknown option '%s'", s);
        }
    }
    if (!a->help && !a->file) return cli_usage_error(cat_usage, "cat: missing FILE");
    return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------------------
 * Selection
 * ------------------------------------------------------------------------- */

typedef struct u32_list {
    uint32_t *v;
    size_t len, cap;
} u32_list;

static void list_push(u32_list *l, uint32_t x)
{
    if (l->len == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = cli_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->len++] = x;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Split `spec` at commas and hand each piece (NUL-terminated) to `fn`;
 * stops at the first failure. An empty piece is an error. */
static int for_each_item(const char *spec, const char *what,
                         int (*fn)(const char *item, const pq_metadata *md, void *out), const pq_metadata *md,
                         void *out)
{
    size_t n = strlen(spec);
    char *copy = cli_xrealloc(NULL, n + 1);
    memcpy(copy, spec, n + 1);
    int rc = CLI_EXIT_OK;
    char *p = copy;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        if (!*p) {
            rc = cli_usage_error(cat_usage, "cat: empty item in %s '%s'", what, spec);
            break;
        }
        rc = fn(p, md, out);
        if (rc != CLI_EXIT_OK || !comma) break;
        p = comma + 1;
    }
    free(copy);
    return rc;
}

/* What --columns named: leaves, and paths into VARIANT columns. */
typedef struct selection {
    u32_list leaves;  /* to read: the named ones and the paths' */
    u32_list direct;  /* the leaves named themselves (a VARIANT column with paths is kept if one is its) */
    char **paths;     /* "v.a.b" (owned), npaths of them */
    size_t npaths;
} selection;

/* A leaf path or a group's dotted path (pq_metadata_find_leaves: every
 * leaf under it), or a path into a VARIANT column (pq_variant_path_leaves:
 * the leaves it reads). */
static int add_column(const char *name, const pq_metadata *md, void *out)
{
    selection *sel = out;
    size_t n = strlen(name), count = pq_metadata_find_leaves(md, name, NULL, 0);
    if (count) { /* a leaf, or every leaf of a group */
        uint32_t *v = cli_xrealloc(NULL, count * sizeof *v);
        pq_metadata_find_leaves(md, name, v, count);
        for (size_t k = 0; k < count; k++) {
            list_push(&sel->leaves, v[k]);
            list_push(&sel->direct, v[k]);
        }
        free(v);
        return CLI_EXIT_OK;
    }
    pq_error err;
    if (pq_variant_path_leaves(md, name, NULL, 0, &count, &err) == PQ_OK) {
        uint32_t *v = cli_xrealloc(NULL, (count ? count : 1) * sizeof *v);
        pq_variant_path_leaves(md, name, v, count, &count, &err);
        for (size_t k = 0; k < count; k++) list_push(&sel->leaves, v[k]);
        free(v);
        sel->paths = cli_xrealloc(sel->paths, (sel->npaths + 1) * sizeof *sel->paths);
        sel->paths[sel->npaths++] = cli_text_dup(name, n);
        return CLI_EXIT_OK;
    }
    char *shown = cli_text_dup(name, n);
    int rc = cli_usage_error(cat_usage, "cat: no column '%s' (see pqstep schema)", shown);
    free(shown);
    return rc;
}

/* The top-level field name of leaf `leaf`. */
static const char *top_name(const pq_schema *schema, uint32_t leaf)
{
    int32_t j = schema->leaves[leaf].node;
    while (schema->nodes[j].parent > 0) j = schema->nodes[j].parent;
    return schema->nodes[j].name;
}

static int add_row_group(const char *item, const pq_metadata *md, void *list)
{
    u32_list *out = list;
    uint32_t n = pq_metadata_file(md)->row_groups_len;
    uint64_t v;
    if (!parse_u64(item, UINT32_MAX, &v))
        return cli_usage_error(cat_usage, "cat: --row-groups wants indexes, not '%s'", item);
    if (v >= n)
        return cli_usage_error(cat_usage, "cat: row group %" PRIu64 " out of range (the file has %u)",
                               v, n);
    list_push(out, (uint32_t)v);
    return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------------------
 * Output
 * ------------------------------------------------------------------------- */

typedef struct cat_out {
    cat_format format;
    const arrow_text_type *head; /* names and alignment (the file's schema) */
    char *align;                 /* table: 'l' / 'r' per column */
    cli_table table;
    size_t block_rows;           /* table rows buffered */
    bool header_done;
    at_buf cell;
    at_buf line;
} cat_out;

static void csv_field(at_buf *line, const char *s, size_t n)
{
    bool quote = n == 0; /* "" is an empty string; an empty field is null */
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) {
        at_buf_put(line, s, n);
        return;
    }
    at_buf_put(line, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') at_buf_put(line, "\"", 1);
        at_buf_put(line, s + i, 1);
    }
    at_buf_put(line, "\"", 1);
}

static void out_init(cat_out *o, cat_format format, const arrow_text_type *head)
{
    memset(o, 0, sizeof *o);
    o->format = format;
    o->head = head;
    size_t n = head->nchildren;
    o->align = cli_xrealloc(NULL, n + 1);
    for (size_t k = 0; k < n; k++) o->align[k] = arrow_text_is_numeric(head->children[k]) ? 'r' : 'l';
    o->align[n] = '\0';
    cli_table_init(&o->table, o->align);
}

static void table_flush(cat_out *o)
{
    cli_table_print(&o->table, stdout, "");
    cli_table_free(&o->table);
    cli_table_init(&o->table, o->align);
    o->block_rows = 0;
}

static void out_header(cat_out *o)
{
    const arrow_text_type *h = o->head;
    o->header_done = true;
    switch (o->format) {
    case CAT_TABLE:
        for (size_t k = 0; k < h->nchildren; k++)
            cli_table_add_text(&o->table, 0, h->children[k]->name, strlen(h->children[k]->name));
        break;
    case CAT_CSV:
        o->line.len = 0;
        for (size_t k = 0; k < h->nchildren; k++) {
            if (k) at_buf_put(&o->line, ",", 1);
            csv_field(&o->line, h->children[k]->name, strlen(h->children[k]->name));
        }
        at_buf_put(&o->line, "\n", 1);
        fwrite(o->line.p, 1, o->line.len, stdout);
        break;
    case CAT_JSONL:
        break;
    }
}

/* Write row `i` of the batch `a` (type `t`, checked). False when a value
 * is malformed; `*bad` names its column. */
static bool out_row(cat_out *o, const arrow_text_type *t, const struct ArrowArray *a, int64_t i,
                    size_t *bad)
{
    int64_t p = a->offset + i; /* the children's logical index */
    if (o->format == CAT_TABLE) {
        for (size_t k = 0; k < t->nchildren; k++) {
            o->cell.len = 0;
            if (!arrow_text_format(t->children[k], a->children[k], p, ARROW_TEXT_PLAIN, &o->cell)) {
                *bad = k;
                return false;
            }
            cli_table_add_text(&o->table, 0, o->cell.p, o->cell.len);
        }
        if (++o->block_rows == TABLE_BLOCK_ROWS) table_flush(o);
        return true;
    }
    at_buf *line = &o->line;
    line->len = 0;
    if (o->format == CAT_JSONL) at_buf_put(line, "{", 1);
    for (size_t k = 0; k < t->nchildren; k++) {
        const arrow_text_type *ct = t->children[k];
        const struct ArrowArray *ca = a->children[k];
        if (k) at_buf_put(line, ",", 1);
        if (o->format == CAT_JSONL) {
            const char *name = o->head->children[k]->name;
            arrow_text_json_string(line, name, strlen(name));
            at_buf_put(line, ":", 1);
            if (!arrow_text_format(ct, ca, p, ARROW_TEXT_JSON, line)) {
                *bad = k;
                return false;
            }
        } else if (!arrow_text_is_null(ct, ca, p)) {
            o->cell.len = 0;
            if (!arrow_text_format(ct, ca, p, ARROW_TEXT_PLAIN, &o->cell)) {
                *bad = k;
                return false;
            }
            csv_field(line, o->cell.p, o->cell.len);
        }
    }
    at_buf_put(line, o->format == CAT_JSONL ? "}\n" : "\n", o->format == CAT_JSONL ? 2 : 1);
    fwrite(line->p, 1, line->len, stdout);
    return true;
}

static void out_finish(cat_out *o)
{
    if (o->format == CAT_TABLE && (o->block_rows || o->table.ncells)) table_flush(o);
}

static void out_free(cat_out *o)
{
    cli_table_free(&o->table);
    free(o->align);
    at_buf_free(&o->cell);
    at_buf_free(&o->line);
}

/* ---------------------------------------------------------------------------
 * The command
 * ------------------------------------------------------------------------- */

static int batch_error(const char *file, const char *msg)
{
    pq_error e = {0};
    e.code = PQ_ERR_CORRUPT_DATA;
    snprintf(e.message, sizeof e.message, "%s", msg);
    return cli_file_error(file, &e);
}

/* Print the rows of one exported batch, at most `*left` of them. */
static int print_batch(cat_out *o, const char *file, struct ArrowArray *a, struct ArrowSchema *s,
                       uint64_t *left)
{
    char msg[256];
    arrow_text_type *t = arrow_text_type_new(s, msg, sizeof msg);
    if (!t) return batch_error(file, msg);
    int rc = CLI_EXIT_OK;
    if (t->kind != AT_STRUCT || t->dict || t->nchildren != o->head->nchildren) {
        rc = batch_error(file, "the batch does not match the file's schema");
    } else if (!arrow_text_check(t, a, msg, sizeof msg)) {
        rc = batch_error(file, msg);
    } else {
        for (int64_t i = 0; i < a->length && *left > 0 && !ferror(stdout); i++, (*left)--) {
            size_t bad = 0;
            if (!out_row(o, t, a, i, &bad)) {
                snprintf(msg, sizeof msg, "column '%s': malformed value in row %" PRId64,
                         o->head->children[bad]->name, i);
                rc = batch_error(file, msg);
                break;
            }
        }
    }
    arrow_text_type_free(t);
    return rc;
}

/* Several files, a directory or a pattern: a dataset (pq_dataset.h). */
static bool is_dataset(const cat_args *a)
{
    return a->hive || cli_is_dataset(a->files, a->nfiles);
}

static int cat_dataset(const cat_args *a)
{
    if (a->row_groups) return cli_usage_error(cat_usage, "cat: --row-groups is for one file, not a dataset");
    pq_error err = {0};
    pq_dataset_options o;
    pq_dataset_options_init(&o);
    o.partitioning = a->hive ? PQ_PARTITIONING_HIVE : PQ_PARTITIONING_NONE;
    pq_reader_options ro;
    pq_reader_options_init(&ro);
    ro.int96_unit = a->int96_unit;
    ro.row_index_name = a->row_index;
    ro.variant_storage = a->variant_storage;
    ro.decryption = cli_decryption();
    o.reader = &ro;
    pq_dataset *ds = pq_dataset_open(a->files, a->nfiles, &o, &err);
    if (!ds) return cli_file_error(a->file, &err);
    /* --columns as names */
    char *names_buf = a->columns ? strdup(a->columns) : NULL;
    const char **names = NULL;
    size_t nnames = 0;
    for (char *save = NULL, *t = names_buf ? strtok_r(names_buf, ",", &save) : NULL; t;
         t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        names = cli_xrealloc(names, (nnames + 1) * sizeof *names);
        names[nnames++] = t;
    }
    int rc = CLI_EXIT_OK;
    pq_expr *filter = NULL;
    if (a->where && !(filter = pq_expr_parse(a->where, &err)))
        rc = cli_usage_error(cat_usage, "cat: --where: %s", err.message);
    pq_dataset_scan sc = {.columns = a->columns ? names : NULL, .columns_len = nnames, .filter = filter,
                          .batch_rows = BATCH_ROWS};
    struct ArrowArrayStream st = {0};
    pq_dataset_scan_stats stats;
    if (rc == CLI_EXIT_OK && pq_dataset_export_stream(ds, &sc, &st, &stats, &err) != PQ_OK)
        rc = cli_file_error(a->file, &err);
    pq_expr_free(filter);
    pq_dataset_close(ds);
    struct ArrowSchema schema = {0};
    arrow_text_type *head = NULL;
    char msg[256];
    if (rc == CLI_EXIT_OK && st.get_schema(&st, &schema) != 0)
        rc = batch_error(a->file, st.get_last_error(&st) ? st.get_last_error(&st) : "no schema");
    if (rc == CLI_EXIT_OK && !(head = arrow_text_type_new(&schema, msg, sizeof msg))) rc = batch_error(a->file, msg);
    if (rc == CLI_EXIT_OK) {
        cat_out out;
        out_init(&out, a->format, head);
        out_header(&out);
        uint64_t left = a->has_limit ? a->limit : UINT64_MAX;
        while (left > 0 && rc == CLI_EXIT_OK && !ferror(stdout)) {
            struct ArrowArray arr;
            if (st.get_next(&st, &arr) != 0) {
                const char *m = st.get_last_error(&st);
                rc = batch_error(a->file, m ? m : "read failed");
                break;
            }
            if (!arr.release) break;
            rc = print_batch(&out, a->file, &arr, &schema, &left);
            arr.release(&arr);
        }
        if (rc == CLI_EXIT_OK) out_finish(&out);
        out_free(&out);
        if (a->stats)
            fprintf(stderr, "dataset: %" PRIu64 " files, %" PRIu64 " pruned by partition values, %" PRIu64
                    " by statistics; %" PRIu64 " row groups in the others, %" PRIu64 " pruned by statistics\n",
                    stats.files, stats.files_pruned_partition, stats.files_pruned_statistics, stats.row_groups,
                    stats.row_groups_pruned);
    }
    arrow_text_type_free(head);
    if (schema.release) schema.release(&schema);
    if (st.release) st.release(&st);
    free(names);
    free(names_buf);
    return rc;
}

int pq_cmd_cat(int argc, char **argv)
{
    cat_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_EXIT_OK || a.help) {
        if (rc == CLI_EXIT_OK) cat_help();
        free(a.files);
        return rc;
    }
    if (is_dataset(&a) || a.row_index) { /* the dataset scan's schema has the row index */
        rc = cat_dataset(&a);
        free(a.files);
        return rc;
    }
    free(a.files);

    uint64_t file_size = 0;
    pq_metadata *md = cli_open_metadata(a.file, &file_size);
    if (!md) return CLI_EXIT_ERROR;

    selection sel = {0};
    u32_list rgs = {0};
    u32_list cols = {0};
    if (a.columns) rc = for_each_item(a.columns, "--columns", add_column, md, &sel);
    cols = sel.leaves;
    if (rc == CLI_EXIT_OK && a.row_groups)
        rc = for_each_item(a.row_groups, "--row-groups", add_row_group, md, &rgs);
    if (rc != CLI_EXIT_OK) goto done_md;
    /* The batch holds the columns in file order; so does the header. */
    if (cols.len) {
        qsort(cols.v, cols.len, sizeof *cols.v, cmp_u32);
        size_t k = 0;
        for (size_t i = 0; i < cols.len; i++)
            if (k == 0 || cols.v[i] != cols.v[k - 1]) cols.v[k++] = cols.v[i];
        cols.len = k;
    }

    pq_error err = {0};
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.metadata = md; /* no second footer read */
    opts.int96_unit = a.int96_unit;
    opts.row_index_name = a.row_index;
    opts.variant_storage = a.variant_storage;
    if (a.columns) {
        opts.columns = cols.v;
        opts.columns_len = cols.len;
    }
    if (a.row_groups) {
        opts.row_groups = rgs.v;
        opts.row_groups_len = rgs.len;
    }
    /* The reader decodes only the pages the first N rows need (without a
     * filter: with one, N counts matching rows). --limit 0 prints the header
     * alone: nothing is decoded. */
    pq_expr *filter = NULL;
    if (a.where) {
        filter = pq_expr_parse(a.where, &err);
        if (!filter) {
            rc = cli_usage_error(cat_usage, "cat: --where: %s", err.message);
            goto done_md;
        }
        opts.filter = filter; /* the reader keeps a copy */
    }
    if (a.has_limit && !filter) opts.row_limit = a.limit;
    pq_stage last = a.has_limit && a.limit == 0 ? PQ_STAGE_SELECT : PQ_STAGE_DECODE;
    pq_reader *r = cli_open_reader(a.file, &opts, &err);
    pq_expr_free(filter);
    if (!r || pq_reader_advance_to(r, last, &err) != PQ_OK) {
        rc = cli_file_error(a.file, &err);
        pq_reader_close(r);
        goto done_md;
    }
    /* The header: the batches' own schema (a struct read in part holds the
     * branches read). */
    struct ArrowSchema hs;
    if (pq_reader_output_schema(r, &hs, &err) != PQ_OK) {
        rc = cli_file_error(a.file, &err);
        pq_reader_close(r);
        goto done_md;
    }
    /* As --columns shows them: each VARIANT column read for paths replaced
     * by the paths' values, kept when some of its own leaves were named. */
    const pq_schema *schema = pq_metadata_schema(md);
    const char **keep = cli_xrealloc(NULL, (sel.direct.len ? sel.direct.len : 1) * sizeof *keep);
    for (size_t d = 0; d < sel.direct.len; d++) keep[d] = top_name(schema, sel.direct.v[d]);
    const char *const *paths = (const char *const *)sel.paths;
    char msg[256];
    struct ArrowSchema ps;
    arrow_text_type *head = NULL;
    if (pq_variant_project_schema(&hs, paths, sel.npaths, keep, sel.direct.len, &ps, &err) != PQ_OK) {
        rc = cli_file_error(a.file, &err);
    } else {
        head = arrow_text_type_new(&ps, msg, sizeof msg);
        ps.release(&ps);
        if (!head) rc = batch_error(a.file, msg);
    }
    if (!head) {
        free(keep);
        pq_reader_close(r);
        goto done_md;
    }

    cat_out o;
    out_init(&o, a.format, head);
    out_header(&o);
    uint64_t left = a.has_limit ? a.limit : UINT64_MAX;
    while (left > 0 && rc == CLI_EXIT_OK && !ferror(stdout)) {
        struct ArrowArray arr;
        struct ArrowSchema sch;
        if (pq_reader_next_batch(r, BATCH_ROWS, &arr, &sch, &err) != PQ_OK) {
            rc = cli_file_error(a.file, &err);
            break;
        }
        if (!arr.release) break; /* end of data */
        struct ArrowArray pa;
        struct ArrowSchema psch;
        if (pq_variant_project_batch(&arr, &sch, paths, sel.npaths, keep, sel.direct.len, &pa, &err) != PQ_OK ||
            pq_variant_project_schema(&sch, paths, sel.npaths, keep, sel.direct.len, &psch, &err) != PQ_OK) {
            rc = cli_file_error(a.file, &err);
            if (pa.release) pa.release(&pa);
            if (sch.release) sch.release(&sch);
        } else {
            rc = print_batch(&o, a.file, &pa, &psch, &left);
            pa.release(&pa);
            psch.release(&psch);
        }
    }
    free(keep);
    if (rc == CLI_EXIT_OK) out_finish(&o);
    out_free(&o);
    if (a.stats) print_stats(r);
    pq_reader_close(r);
    arrow_text_type_free(head);
done_md:
    free(cols.v);
    free(sel.direct.v);
    for (size_t k = 0; k < sel.npaths; k++) free(sel.paths[k]);
    free(sel.paths);
    free(rgs.v);
    pq_metadata_release(md);
    return rc;
}
