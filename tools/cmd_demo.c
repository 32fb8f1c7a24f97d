/*
 * cmd_demo.c — `pqstep demo [FILE]`: walk the reader's stages one by one on a
 * file, then show what reusing the parsed footer saves.
 *
 * Every figure printed comes from the library's own counters (per-stage
 * bytes, reads, time; the process-wide footer parse count), not from the
 * demo's bookkeeping, so the story it tells is the one the library lives.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const char *demo_usage = "pqstep demo [--iterations N] [FILE]";

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void print_duration(uint64_t ns)
{
    if (ns < 10000) printf("%" PRIu64 " ns", ns);
    else if (ns < 1000000) printf("%.1f us", (double)ns / 1e3);
    else printf("%.2f ms", (double)ns / 1e6);
}

static void progress(const char *what, unsigned i, unsigned n)
{
    if (!isatty(STDERR_FILENO)) return;
    fprintf(stderr, "\r  %s %u/%u", what, i, n);
    if (i == n) fprintf(stderr, "\r%*s\r", 40, "");
    fflush(stderr);
}

/* Open and run the footer stage; prints the error line on failure. */
static pq_reader *open_to_footer(const char *path, const pq_reader_options *opts)
{
    pq_error err;
    pq_reader *r = pq_reader_open_path(path, opts, &err);
    if (!r) {
        cli_file_error(path, &err);
        return NULL;
    }
    if (pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err) != PQ_OK) {
        cli_file_error(path, &err);
        pq_reader_close(r);
        return NULL;
    }
    return r;
}

static int stage_walk(const char *path, pq_metadata **md_out)
{
    pq_error err;
    pq_reader *r = pq_reader_open_path(path, NULL, &err);
    if (!r) return cli_file_error(path, &err);

    printf("Stages\n");
    printf("  init      opened %s (%" PRIu64 " bytes); stage = %s; nothing read yet\n", path,
           pq_reader_file_size(r), pq_stage_name(pq_reader_stage(r)));
    pq_range need;
    if (pq_reader_needed_ranges(r, &need, 1) == 1)
        printf("            the footer stage says it needs bytes [%" PRIu64 ", %" PRIu64 ")\n",
               need.offset, need.offset + need.length);

    if (pq_reader_advance(r, &err) != PQ_OK) {
        pq_reader_close(r);
        return cli_file_error(path, &err);
    }
    pq_stage_stats st;
    pq_reader_stage_stats(r, PQ_STAGE_FOOTER, &st);
    pq_metadata *md = pq_reader_metadata(r);
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_schema *schema = pq_metadata_schema(md);
    size_t footer_len;
    pq_metadata_footer_bytes(md, &footer_len);
    printf("  footer    %" PRIu64 " read%s, %" PRIu64 " bytes read, %" PRIu64 " parse, ",
           st.reads, st.reads == 1 ? "" : "s", st.bytes_read, st.parses);
    print_duration(st.nanoseconds);
    printf("\n            keeps: footer of %zu bytes, %u row groups, %u leaf columns, %" PRId64
           " rows, %zu bytes of parsed metadata\n",
           footer_len, fm->row_groups_len, schema->leaves_len, fm->num_rows,
           pq_metadata_memory_size(md));
    /* Select: everything, until predicate pushdown lands. */
    if (pq_reader_advance(r, &err) != PQ_OK) {
        pq_reader_close(r);
        return cli_file_error(path, &err);
    }
    size_t nrg, ncol;
    pq_reader_selected_row_groups(r, &nrg);
    pq_reader_selected_columns(r, &ncol);
    pq_reader_stage_stats(r, PQ_STAGE_SELECT, &st);
    printf("  select    kept %zu of %u row groups, %zu of %u columns (%" PRIu64 " chunks), ", nrg,
           fm->row_groups_len, ncol, schema->leaves_len, st.chunks);
    print_duration(st.nanoseconds);
    printf("\n");

    /* Page headers: every selected chunk read once and walked. */
    if (pq_reader_advance(r, &err) != PQ_OK) {
        pq_reader_close(r);
        return cli_file_error(path, &err);
    }
    pq_reader_stage_stats(r, PQ_STAGE_PAGE_HEADERS, &st);
    printf("  pages     %" PRIu64 " reads, %" PRIu64 " bytes read, %" PRIu64 " chunks walked, ",
           st.reads, st.bytes_read, st.chunks);
    print_duration(st.nanoseconds);
    printf("\n            keeps: %" PRIu64 " page headers (%.1f per chunk) and the chunks' bytes "
           "for the decode stage\n", st.pages, st.chunks ? (double)st.pages / (double)st.chunks : 0.0);
    /* Decode: every selected chunk into Arrow arrays. */
    if (pq_reader_advance(r, &err) != PQ_OK) {
        printf("  decode    %s\n", err.message);
    } else {
        pq_reader_stage_stats(r, PQ_STAGE_DECODE, &st);
        printf("  decode    %" PRIu64 " chunks decoded into Arrow arrays, %" PRId64 " rows, ",
               st.chunks, fm->num_rows);
        print_duration(st.nanoseconds);
        printf("\n            keeps: one record batch per row group, exported with "
               "pq_reader_export_row_group\n");
    }
    printf("\n");

    *md_out = pq_metadata_retain(md);
    pq_reader_close(r);
    return CLI_EXIT_OK;
}

/* Re-open the file `n` times, re-reading and re-parsing the footer each time,
 * as a reader without reuse does for every read call. */
static int without_reuse(const char *path, unsigned n, uint64_t *ns, uint64_t *parses,
                         uint64_t *reads)
{
    uint64_t p0 = pq_footer_parse_count(), t0 = now_ns();
    *reads = 0;
    for (unsigned i = 0; i < n; i++) {
        pq_reader *r = open_to_footer(path, NULL);
        if (!r) return CLI_EXIT_ERROR;
        pq_stage_stats st;
        pq_reader_stage_stats(r, PQ_STAGE_FOOTER, &st);
        *reads += st.reads;
        pq_reader_close(r);
        progress("without reuse", i + 1, n);
    }
    *ns = now_ns() - t0;
    *parses = pq_footer_parse_count() - p0;
    return CLI_EXIT_OK;
}

/* Open `n` readers through one metadata cache: the first parses, the rest hit. */
static int with_cache(const char *path, unsigned n, uint64_t *ns, uint64_t *parses,
                      uint64_t *reads, pq_metadata_cache_stats *cs)
{
    pq_error err;
    pq_metadata_cache *cache = pq_metadata_cache_create((size_t)256 << 20, &err);
    if (!cache) return cli_file_error(path, &err);
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.cache = cache;
    uint64_t p0 = pq_footer_parse_count(), t0 = now_ns();
    *reads = 0;
    for (unsigned i = 0; i < n; i++) {
        pq_reader *r = open_to_footer(path, &opts);
        if (!r) {
            pq_metadata_cache_destroy(cache);
            return CLI_EXIT_ERROR;
        }
        pq_stage_stats st;
        pq_reader_stage_stats(r, PQ_STAGE_FOOTER, &st);
        *reads += st.reads;
        pq_reader_close(r);
        progress("with a metadata cache", i + 1, n);
    }
    *ns = now_ns() - t0;
    *parses = pq_footer_parse_count() - p0;
    pq_metadata_cache_get_stats(cache, cs);
    pq_metadata_cache_destroy(cache);
    return CLI_EXIT_OK;
}

/* Hand the raw footer bytes to a "worker", as a coordinator process would. */
static int footer_handoff(const char *path, pq_metadata *md)
{
    size_t len;
    const uint8_t *bytes = pq_metadata_footer_bytes(md, &len);
    uint8_t *wire = malloc(len ? len : 1); /* what would cross the process boundary */
    if (!wire) return cli_usage_error(demo_usage, "out of memory");
    memcpy(wire, bytes, len);

    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.footer_bytes = wire;
    opts.footer_bytes_len = len;
    pq_reader *r = open_to_footer(path, &opts);
    if (!r) {
        free(wire);
        return CLI_EXIT_ERROR;
    }
    pq_stage_stats st;
    pq_reader_stage_stats(r, PQ_STAGE_FOOTER, &st);
    const pq_file_metadata *a = pq_metadata_file(md), *b = pq_metadata_file(pq_reader_metadata(r));
    printf("  C. footer bytes handed to a worker: %zu bytes, %" PRIu64 " file reads, %" PRIu64
           " parse (", len, st.reads, st.parses);
    print_duration(st.nanoseconds);
    printf("); same rows %s, same row groups %s\n", a->num_rows == b->num_rows ? "yes" : "NO",
           a->row_groups_len == b->row_groups_len ? "yes" : "NO");
    pq_reader_close(r);
    free(wire);
    return CLI_EXIT_OK;
}

int pq_cmd_demo(int argc, char **argv)
{
    const char *path = NULL;
    unsigned iterations = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: %s\n\n"
                   "Walk the reader's stages on FILE (default: the bundled sample,\n"
                   "data/sample/lineitem_61rg.parquet), then open it once per row group\n"
                   "without reuse and with reuse, and compare. --iterations N sets how many\n"
                   "opens each experiment makes (default: the file's row group count).\n",
                   demo_usage);
            return CLI_EXIT_OK;
        }
        if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || v == 0 || v > 1000000)
                return cli_usage_error(demo_usage, "--iterations wants 1..1000000");
            iterations = (unsigned)v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error(demo_usage, "unknown option '%s'", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return cli_usage_error(demo_usage, "more than one FILE");
        }
    }
    if (!path) path = "data/sample/lineitem_61rg.parquet";

    pq_metadata *md = NULL;
    int rc = stage_walk(path, &md);
    if (rc != CLI_EXIT_OK) return rc;
    unsigned n = iterations ? iterations : pq_metadata_file(md)->row_groups_len;
    if (n == 0) n = 1;

    printf("Reuse: open the file %u times (once per row group, as a streaming reader does)\n", n);
    uint64_t ns_a = 0, parses_a = 0, reads_a = 0, ns_b = 0, parses_b = 0, reads_b = 0;
    pq_metadata_cache_stats cs = {0};
    rc = without_reuse(path, n, &ns_a, &parses_a, &reads_a);
    if (rc == CLI_EXIT_OK) rc = with_cache(path, n, &ns_b, &parses_b, &reads_b, &cs);
    if (rc != CLI_EXIT_OK) {
        pq_metadata_release(md);
        return rc;
    }
    printf("  A. without reuse: %" PRIu64 " footer parses, %" PRIu64 " reads, ", parses_a, reads_a);
    print_duration(ns_a);
    printf("\n  B. with a cache:  %" PRIu64 " footer parse,  %" PRIu64 " reads, ", parses_b, reads_b);
    print_duration(ns_b);
    printf("  (cache: %" PRIu64 " hits, %" PRIu64 " misses)\n", cs.hits, cs.misses);
    rc = footer_handoff(path, md);
    if (rc == CLI_EXIT_OK)
        printf("\n  footer parses counted by the library: %" PRIu64 " without reuse, %" PRIu64
               " with reuse; footer work %.1fx cheaper with reuse\n",
               parses_a, parses_b, ns_b ? (double)ns_a / (double)ns_b : 0.0);
    pq_metadata_release(md);
    return rc;
}
