/*
 * cmd_prune.c — `pqstep prune FILE --where EXPR [--json]`: what the select
 * stage does with a predicate. Per row group: kept, or pruned and by which
 * step; the rows and bytes a read would then fetch, against the whole file.
 *
 * It runs the reader to the select stage only (no data page is read), so it
 * shows what a filtered read plans.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"

static const char prune_usage[] = "pqstep prune --where EXPR [--json] [--hive] FILE...";

static void prune_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Explain how a predicate prunes FILE before any data page is read: for\n"
           "each row group, kept or pruned and by which step, its rows and the bytes\n"
           "of its column chunks; then the totals and the bytes a filtered read\n"
           "fetches against the whole file. EXPR uses the predicate syntax of\n"
           "pq_predicate.h, e.g. \"l_shipdate >= '1995-01-01' and l_quantity < 24\".\n"
           "Several FILEs, a directory or a quoted glob pattern are a dataset: then\n"
           "the files pruned by partition values (--hive) and by footer statistics,\n"
           "and the row groups of the others.\n"
           "\n"
           "options:\n"
           "  --where EXPR   the predicate (required)\n"
           "  --json         one JSON document (layout in docs/cli.md)\n"
           "  --hive         a dataset's key=value directories are columns\n"
           "  -h, --help     show this help\n",
           prune_usage);
}

static const char *step_name(uint32_t step)
{
    switch (step) {
    case PQ_PRUNE_STATISTICS: return "statistics";
    case PQ_PRUNE_DICTIONARY: return "dictionary";
    case PQ_PRUNE_BLOOM_FILTER: return "bloom filter";
    case PQ_PRUNE_PAGE_INDEX: return "page index";
    default: return NULL;
    }
}

/* The runs of rows the select stage kept of row group g (malloc'd, *n of
 * them; NULL when none or out of memory). */
static pq_row_run *kept_runs(const pq_reader *r, uint32_t g, size_t *n)
{
    pq_error err;
    *n = 0;
    size_t count = 0;
    if (pq_reader_row_group_runs(r, g, NULL, 0, &count, &err) != PQ_OK || !count) return NULL;
    pq_row_run *runs = malloc(count * sizeof *runs);
    if (!runs || pq_reader_row_group_runs(r, g, runs, count, &count, &err) != PQ_OK) {
        free(runs);
        return NULL;
    }
    *n = count;
    return runs;
}

/* Compressed bytes of row group rg's chunks. */
static uint64_t group_bytes(const pq_row_group *rg)
{
    uint64_t b = 0;
    for (uint32_t c = 0; c < rg->columns_len; c++) {
        const pq_column_chunk *cc = rg->columns[c];
        if (!(cc->set & PQ_CC_SKIPPED) && cc->meta_data.total_compressed_size > 0)
            b += (uint64_t)cc->meta_data.total_compressed_size;
    }
    return b;
}

/* A dataset: what pruning does to its files (pq_dataset_scan_stats). */
static int prune_dataset(const char **files, size_t n, const char *where, bool hive, bool json)
{
    pq_error err = {0};
    pq_expr *filter = pq_expr_parse(where, &err);
    if (!filter) return cli_file_error(files[0], &err);
    pq_dataset_options o;
    pq_dataset_options_init(&o);
    o.partitioning = hive ? PQ_PARTITIONING_HIVE : PQ_PARTITIONING_NONE;
    pq_reader_options ro;
    pq_reader_options_init(&ro);
    ro.decryption = cli_decryption();
    o.reader = &ro;
    pq_dataset *ds = pq_dataset_open(files, n, &o, &err);
    pq_dataset_scan sc = {.filter = filter};
    struct ArrowArrayStream st = {0};
    pq_dataset_scan_stats stats = {0};
    int rc = ds && pq_dataset_export_stream(ds, &sc, &st, &stats, &err) == PQ_OK ? CLI_EXIT_OK
                                                                                  : cli_file_error(files[0], &err);
    pq_expr_free(filter);
    if (st.release) st.release(&st); /* nothing is read: the counts are the stream's start */
    if (rc == CLI_EXIT_OK) {
        uint64_t read = stats.files - stats.files_pruned_partition - stats.files_pruned_statistics;
        if (json) {
            cli_json j;
            cli_json_init(&j, stdout);
            cli_json_begin_object(&j);
            const char *keys[] = {"files", "files_pruned_partition", "files_pruned_statistics", "files_read",
                                  "row_groups", "row_groups_pruned"};
            uint64_t vals[] = {stats.files, stats.files_pruned_partition, stats.files_pruned_statistics, read,
                               stats.row_groups, stats.row_groups_pruned};
            for (size_t k = 0; k < 6; k++) {
                cli_json_key(&j, keys[k]);
                cli_json_int(&j, (int64_t)vals[k]);
            }
            cli_json_key(&j, "partition_keys");
            cli_json_begin_array(&j);
            for (size_t k = 0; k < pq_dataset_partition_count(ds); k++) {
                cli_json_begin_object(&j);
                cli_json_key(&j, "name");
                cli_json_cstring(&j, pq_dataset_partition_name(ds, k));
                cli_json_key(&j, "type");
                cli_json_cstring(&j, strcmp(pq_dataset_partition_format(ds, k), "i") == 0 ? "int32" : "string");
                cli_json_end_object(&j);
            }
            cli_json_end_array(&j);
            cli_json_end_object(&j);
            putchar('\n');
        } else {
            printf("files                %" PRIu64 "\n", stats.files);
            for (size_t k = 0; k < pq_dataset_partition_count(ds); k++)
                printf("partition key        %s (%s)\n", pq_dataset_partition_name(ds, k),
                       strcmp(pq_dataset_partition_format(ds, k), "i") == 0 ? "int32" : "string");
            printf("pruned by partition  %" PRIu64 " files\n", stats.files_pruned_partition);
            printf("pruned by statistics %" PRIu64 " files\n", stats.files_pruned_statistics);
            printf("files read           %" PRIu64 ": %" PRIu64 " row groups, %" PRIu64
                   " of them pruned by statistics\n",
                   read, stats.row_groups, stats.row_groups_pruned);
        }
    }
    pq_dataset_close(ds);
    return rc;
}

int pq_cmd_prune(int argc, char **argv)
{
    const char *file = NULL, *where = NULL;
    bool json = false, options_done = false, hive = false;
    const char **files = NULL;
    size_t nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!options_done && s[0] == '-' && s[1]) {
            if (strcmp(s, "--") == 0) options_done = true;
            else if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
                prune_help();
                return CLI_EXIT_OK;
            } else if (strcmp(s, "--json") == 0) json = true;
            else if (strcmp(s, "--hive") == 0) hive = true;
            else if (strcmp(s, "--where") == 0 && i + 1 < argc) where = argv[++i];
            else {
                free(files);
                return cli_usage_error(prune_usage, "unknown option '%s'", s);
            }
        } else {
            if (!file) file = s;
            files = cli_xrealloc(files, (nfiles + 1) * sizeof *files);
            files[nfiles++] = s;
        }
    }
    if (!file || !where) {
        free(files);
        return cli_usage_error(prune_usage, !file ? "missing FILE" : "missing --where EXPR");
    }
    if (hive || cli_is_dataset(files, nfiles)) {
        int rc = prune_dataset(files, nfiles, where, hive, json);
        free(files);
        return rc;
    }
    free(files);

    pq_error err;
    pq_expr *filter = pq_expr_parse(where, &err);
    if (!filter) return cli_file_error(file, &err);
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.filter = filter;
    pq_reader *r = cli_open_reader(file, &opts, &err);
    if (!r || pq_reader_advance_to(r, PQ_STAGE_SELECT, &err) != PQ_OK) {
        pq_reader_close(r);
        pq_expr_free(filter);
        return cli_file_error(file, &err);
    }
    const pq_metadata *md = pq_reader_metadata(r);
    cli_print_warnings(file, md);
    const pq_file_metadata *fm = pq_metadata_file(md);
    /* The bound filter as text, whole: it is meant to be passed back to --where. */
    size_t text_len = pq_reader_filter_text(r, NULL, 0);
    char *text = cli_xrealloc(NULL, text_len + 1);
    pq_reader_filter_text(r, text, text_len + 1);

    uint64_t kept_groups = 0, kept_rows = 0, kept_bytes = 0, plan_bytes = 0, by_step[4] = {0};
    const pq_schema *schema = pq_metadata_schema(md);
    cli_json j;
    if (json) {
        cli_json_init(&j, stdout);
        cli_json_begin_object(&j);
        cli_json_key(&j, "file");
        cli_json_cstring(&j, file);
        cli_json_key(&j, "file_size");
        cli_json_int(&j, (int64_t)pq_reader_file_size(r));
        cli_json_key(&j, "filter");
        cli_json_cstring(&j, text);
        char note[256];
        cli_json_key(&j, "statistics_note");
        if (pq_metadata_statistics_note(md, note, sizeof note))
            cli_json_cstring(&j, note);
        else
            cli_json_null(&j);
        cli_json_key(&j, "row_groups");
        cli_json_begin_array(&j);
    } else {
        printf("file: %s (%" PRIu64 " bytes)\nfilter: %s\n", file, pq_reader_file_size(r), text);
        char note[256];
        if (pq_metadata_statistics_note(md, note, sizeof note)) printf("statistics: %s\n", note);
        putchar('\n');
        printf("%9s  %10s  %12s  %s\n", "row group", "rows", "bytes", "verdict");
    }
    for (uint32_t g = 0; g < fm->row_groups_len; g++) {
        const pq_row_group *rg = &fm->row_groups[g];
        uint32_t step = pq_reader_pruned_by(r, g);
        uint64_t bytes = group_bytes(rg);
        uint64_t first = 0, rows = 0;
        size_t nruns = 0;
        pq_row_run *runs = step ? NULL : kept_runs(r, g, &nruns);
        for (size_t i = 0; i < nruns; i++) rows += runs[i].num_rows;
        if (nruns) first = runs[0].first_row;
        if (!step) {
            kept_groups++;
            kept_rows += rows;
            kept_bytes += bytes;
        }
        for (int k = 0; k < 4; k++) by_step[k] += step == (1u << k);
        if (json) {
            cli_json_begin_object(&j);
            cli_json_key(&j, "index");
            cli_json_int(&j, g);
            cli_json_key(&j, "rows");
            cli_json_int(&j, rg->num_rows);
            cli_json_key(&j, "bytes");
            cli_json_int(&j, (int64_t)bytes);
            cli_json_key(&j, "kept");
            cli_json_bool(&j, !step);
            cli_json_key(&j, "rows_kept");
            cli_json_int(&j, (int64_t)rows);
            cli_json_key(&j, "first_row_kept");
            cli_json_int(&j, (int64_t)first);
            cli_json_key(&j, "runs");
            cli_json_begin_array(&j);
            for (size_t i = 0; i < nruns; i++) {
                cli_json_begin_array(&j);
                cli_json_int(&j, (int64_t)runs[i].first_row);
                cli_json_int(&j, (int64_t)runs[i].num_rows);
                cli_json_end_array(&j);
            }
            cli_json_end_array(&j);
            cli_json_key(&j, "pruned_by");
            cli_json_cstring(&j, step_name(step));
            if (!step) {
                cli_json_key(&j, "columns");
                cli_json_begin_array(&j);
                for (uint32_t c = 0; c < schema->leaves_len; c++) {
                    pq_chunk_plan plan;
                    if (pq_reader_plan_chunk(r, g, c, &plan, &err) != PQ_OK) continue;
                    plan_bytes += plan.bytes;
                    cli_json_begin_object(&j);
                    cli_json_key(&j, "path");
                    cli_json_cstring(&j, schema->leaves[c].path);
                    cli_json_key(&j, "pages_kept");
                    cli_json_int(&j, plan.pages_kept);
                    cli_json_key(&j, "pages_total");
                    cli_json_int(&j, plan.pages_total);
                    cli_json_key(&j, "bytes");
                    cli_json_int(&j, (int64_t)plan.bytes);
                    cli_json_end_object(&j);
                }
                cli_json_end_array(&j);
            }
            cli_json_end_object(&j);
        } else {
            if (step)
                printf("%9u  %10" PRId64 "  %12" PRIu64 "  pruned by %s\n", g, rg->num_rows, bytes, step_name(step));
            else if (rows < (uint64_t)rg->num_rows) {
                printf("%9u  %10" PRId64 "  %12" PRIu64 "  kept: %" PRIu64 " rows in", g, rg->num_rows, bytes, rows);
                for (size_t i = 0; i < nruns && i < 4; i++)
                    printf("%s %" PRIu64 "..%" PRIu64, i ? "," : "", runs[i].first_row,
                           runs[i].first_row + runs[i].num_rows);
                if (nruns > 4) printf(" and %zu more runs", nruns - 4);
                printf(" (page index)\n");
            } else
                printf("%9u  %10" PRId64 "  %12" PRIu64 "  kept\n", g, rg->num_rows, bytes);
            if (!step) { /* per column: the pages over the kept rows (offset index) */
                for (uint32_t c = 0; c < schema->leaves_len; c++) {
                    pq_chunk_plan plan;
                    if (pq_reader_plan_chunk(r, g, c, &plan, &err) != PQ_OK) continue;
                    plan_bytes += plan.bytes;
                    if (plan.pages_total)
                        printf("%37s %s: pages %u of %u, %" PRIu64 " of %" PRIu64 " bytes\n", "",
                               schema->leaves[c].path, plan.pages_kept, plan.pages_total, plan.bytes,
                               plan.chunk_bytes);
                    else
                        printf("%37s %s: whole chunk (no offset index), %" PRIu64 " bytes\n", "",
                               schema->leaves[c].path, plan.bytes);
                }
            }
        }
        free(runs);
    }
    uint64_t file_size = pq_reader_file_size(r);
    if (json) {
        cli_json_end_array(&j);
        cli_json_key(&j, "kept_row_groups");
        cli_json_int(&j, (int64_t)kept_groups);
        cli_json_key(&j, "kept_rows");
        cli_json_int(&j, (int64_t)kept_rows);
        cli_json_key(&j, "bytes_to_read");
        cli_json_int(&j, (int64_t)plan_bytes);
        cli_json_key(&j, "kept_row_groups_bytes");
        cli_json_int(&j, (int64_t)kept_bytes);
        cli_json_key(&j, "pruned");
        cli_json_begin_object(&j);
        for (int k = 0; k < 4; k++) {
            cli_json_key(&j, step_name(1u << k));
            cli_json_int(&j, (int64_t)by_step[k]);
        }
        cli_json_end_object(&j);
        pq_select_stats st;
        pq_reader_select_stats(r, &st, sizeof st);
        cli_json_key(&j, "pages_considered");
        cli_json_int(&j, (int64_t)st.pages_considered);
        cli_json_key(&j, "pages_pruned");
        cli_json_int(&j, (int64_t)st.pages_pruned);
        cli_json_key(&j, "index_bytes_read");
        cli_json_int(&j, (int64_t)st.io.bytes_read);
        cli_json_end_object(&j);
        cli_json_finish(&j);
    } else {
        printf("\nkept %" PRIu64 " of %u row groups (%" PRIu64 " of %" PRId64 " rows); pruned by statistics %"
               PRIu64 ", by dictionaries %" PRIu64 ", by bloom filters %" PRIu64 "\n", kept_groups,
               fm->row_groups_len, kept_rows, fm->num_rows, by_step[0], by_step[1], by_step[2]);
        pq_select_stats st;
        pq_reader_select_stats(r, &st, sizeof st);
        printf("page index: %" PRIu64 " of %" PRIu64 " pages of the filter's columns outside the rows kept; "
               "%" PRIu64 " row groups left with no row\n", st.pages_pruned, st.pages_considered, by_step[3]);
        printf("bytes to read: %" PRIu64 " of %" PRIu64 " (%.1f%%; the kept row groups' chunks hold %" PRIu64
               "); indexes and filters read to decide: %" PRIu64 " bytes\n", plan_bytes, file_size,
               file_size ? 100.0 * (double)plan_bytes / (double)file_size : 0.0, kept_bytes, st.io.bytes_read);
        printf("(late materialization may read less: columns the filter does not read are fetched only "
               "on the pages that hold a matching row)\n");
    }
    free(text);
    pq_reader_close(r);
    pq_expr_free(filter);
    return CLI_EXIT_OK;
}
