/*
 * cmd_demo.c — `pqstep demo [FILE]`: walk the reader's stages one by one on a
 * file, then measure what reusing the parsed footer saves on whole reads:
 * experiment A reads the file in one call, experiment B one row group per
 * call, each without and with reuse.
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

static const char *demo_usage = "pqstep demo [--repeat N] [--where EXPR] [FILE]";

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

static int stage_walk(const char *path, const char *where, pq_metadata **md_out)
{
    pq_error err;
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    pq_expr *filter = NULL;
    if (where && !(filter = pq_expr_parse(where, &err))) return cli_usage_error(demo_usage, "--where: %s", err.message);
    opts.filter = filter;
    pq_reader *r = pq_reader_open_path(path, &opts, &err);
    pq_expr_free(filter); /* the reader keeps its own copy */
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
    pq_footer_stats st;
    pq_reader_footer_stats(r, &st, sizeof st);
    pq_metadata *md = pq_reader_metadata(r);
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_schema *schema = pq_metadata_schema(md);
    size_t footer_len;
    pq_metadata_footer_bytes(md, &footer_len);
    printf("  footer    %" PRIu64 " read%s, %" PRIu64 " bytes read, %" PRIu64 " parse, ",
           st.io.reads, st.io.reads == 1 ? "" : "s", st.io.bytes_read, st.parses);
    print_duration(st.io.nanoseconds);
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
    pq_select_stats ss;
    pq_reader_select_stats(r, &ss, sizeof ss);
    printf("  select    kept %zu of %u row groups, %zu of %u columns (%" PRIu64 " chunks), ", nrg,
           fm->row_groups_len, ncol, schema->leaves_len, ss.chunks);
    print_duration(ss.io.nanoseconds);
    printf("\n");

    /* Page headers: every selected chunk read once and walked. */
    if (pq_reader_advance(r, &err) != PQ_OK) {
        pq_reader_close(r);
        return cli_file_error(path, &err);
    }
    pq_page_header_stats ps;
    pq_reader_page_header_stats(r, &ps, sizeof ps);
    printf("  pages     %" PRIu64 " reads, %" PRIu64 " bytes read, %" PRIu64 " chunks walked, ",
           ps.io.reads, ps.io.bytes_read, ps.chunks);
    print_duration(ps.io.nanoseconds);
    printf("\n            keeps: %" PRIu64 " page headers (%.1f per chunk) and the chunks' bytes "
           "for the decode stage\n", ps.pages, ps.chunks ? (double)ps.pages / (double)ps.chunks : 0.0);
    /* Filter: the filter's columns evaluated, the other columns read only
     * where a row is kept. */
    if (pq_reader_advance(r, &err) != PQ_OK) {
        pq_reader_close(r);
        return cli_file_error(path, &err);
    }
    pq_filter_stats fs;
    pq_reader_filter_stats(r, &fs, sizeof fs);
    if (!where) {
        printf("  filter    no filter (--where EXPR gives one): every row goes on to the decode stage\n");
    } else {
        printf("  filter    kept %" PRIu64 " of %" PRIu64 " rows in %" PRIu64 " row groups (%" PRIu64
               " without a match); %" PRIu64 " reads, %" PRIu64 " bytes read, ",
               fs.rows, fs.rows_in, fs.groups, fs.groups_without_match, fs.io.reads, fs.io.bytes_read);
        print_duration(fs.io.nanoseconds);
        printf("\n            skipped: %" PRIu64 " chunks (%" PRIu64 " bytes) and %" PRIu64
               " pages of the other columns, never read\n",
               fs.chunks_skipped, fs.bytes_skipped, fs.pages_skipped);
    }
    /* Decode: every selected chunk into Arrow arrays. */
    if (pq_reader_advance(r, &err) != PQ_OK) {
        printf("  decode    %s\n", err.message);
    } else {
        pq_decode_stats ds;
        pq_reader_decode_stats(r, &ds, sizeof ds);
        printf("  decode    %" PRIu64 " chunks decoded into Arrow arrays: %" PRIu64 " rows, %.1f MB "
               "of Arrow buffers, ", ds.chunks, ds.rows, (double)ds.bytes_out / 1e6);
        print_duration(ds.io.nanoseconds);
        printf("\n            keeps: the arrays; pq_reader_next_batch hands them out as record "
               "batches without copies\n");
    }
    printf("\n");

    *md_out = pq_metadata_retain(md);
    pq_reader_close(r);
    return CLI_EXIT_OK;
}

/* One read call as a user makes it: open with `opts`, decode the row groups
 * `groups` (NULL: all), take every batch and release it. Adds the rows. */
static int read_call(const char *path, const pq_reader_options *opts, const uint32_t *groups,
                     size_t ngroups, uint64_t *rows)
{
    pq_reader_options o = *opts;
    o.row_groups = groups;
    o.row_groups_len = ngroups;
    pq_error err;
    pq_reader *r = pq_reader_open_path(path, &o, &err);
    if (!r) return cli_file_error(path, &err);
    if (pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) != PQ_OK) {
        pq_reader_close(r);
        return cli_file_error(path, &err);
    }
    for (;;) {
        struct ArrowArray a;
        struct ArrowSchema sch;
        if (pq_reader_next_batch(r, 0, &a, &sch, &err) != PQ_OK) {
            pq_reader_close(r);
            return cli_file_error(path, &err);
        }
        if (!a.release) break;
        *rows += (uint64_t)a.length;
        a.release(&a);
        sch.release(&sch);
    }
    pq_reader_close(r);
    return CLI_EXIT_OK;
}

/* One way of reading the whole file, timed: the best of `repeat` runs, the
 * footer parses of one run (counted by the library), the rows read. */
typedef struct experiment {
    const char *what;
    uint64_t ns;
    uint64_t parses;
    uint64_t rows;
} experiment;

/* Run `e` `repeat` times: the whole file in one call (per_group false) or
 * one call per row group; with `reuse`, the calls share a parsed footer
 * (`md` for the bulk read, a fresh pq_metadata_cache per run for the
 * row-group calls, whose first call parses). */
static int run_experiment(const char *path, pq_metadata *md, uint32_t ngroups, bool per_group, bool reuse,
                          unsigned repeat, experiment *e)
{
    e->ns = UINT64_MAX;
    for (unsigned k = 0; k < repeat; k++) {
        pq_reader_options opts;
        pq_reader_options_init(&opts);
        pq_metadata_cache *cache = NULL;
        if (reuse && !per_group) opts.metadata = md;
        if (reuse && per_group) {
            pq_error err;
            cache = pq_metadata_cache_create((size_t)256 << 20, &err);
            if (!cache) return cli_file_error(path, &err);
            opts.cache = cache;
        }
        uint64_t p0 = pq_footer_parse_count(), rows = 0, t0 = now_ns();
        int rc = CLI_EXIT_OK;
        if (!per_group) {
            rc = read_call(path, &opts, NULL, 0, &rows);
        } else {
            for (uint32_t g = 0; rc == CLI_EXIT_OK && g < ngroups; g++) {
                rc = read_call(path, &opts, &g, 1, &rows);
                progress(e->what, g + 1, ngroups);
            }
        }
        uint64_t ns = now_ns() - t0;
        pq_metadata_cache_destroy(cache);
        if (rc != CLI_EXIT_OK) return rc;
        if (ns < e->ns) e->ns = ns;
        e->parses = pq_footer_parse_count() - p0;
        e->rows = rows;
    }
    return CLI_EXIT_OK;
}

static void print_experiment(const char *label, const experiment *e)
{
    printf("  %-2s %-42s ", label, e->what);
    if (e->ns < 1000000) printf("%9.1f us", (double)e->ns / 1e3);
    else printf("%9.2f ms", (double)e->ns / 1e6);
    printf("  %8" PRIu64 "  %10" PRIu64 "\n", e->parses, e->rows);
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
    pq_footer_stats st;
    pq_reader_footer_stats(r, &st, sizeof st);
    const pq_file_metadata *a = pq_metadata_file(md), *b = pq_metadata_file(pq_reader_metadata(r));
    printf("  C. footer bytes handed to a worker: %zu bytes, %" PRIu64 " file reads, %" PRIu64
           " parse (", len, st.io.reads, st.parses);
    print_duration(st.io.nanoseconds);
    printf("); same rows %s, same row groups %s\n", a->num_rows == b->num_rows ? "yes" : "NO",
           a->row_groups_len == b->row_groups_len ? "yes" : "NO");
    pq_reader_close(r);
    free(wire);
    return CLI_EXIT_OK;
}

int pq_cmd_demo(int argc, char **argv)
{
    const char *path = NULL, *where = NULL;
    unsigned repeat = 3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: %s\n\n"
                   "Walk the reader's stages on FILE (default: the bundled sample,\n"
                   "data/sample/lineitem_61rg.parquet), then read the whole file into Arrow\n"
                   "record batches: A. in one call, B. one call per row group, each with the\n"
                   "footer parsed by every call and with it reused. --repeat N (default 3)\n"
                   "runs each experiment N times and reports the fastest. --where EXPR\n"
                   "(a predicate, as pqstep cat --where takes it) gives the stage walk a\n"
                   "filter, so that its filter stage evaluates it; the experiments read\n"
                   "every row.\n",
                   demo_usage);
            return CLI_EXIT_OK;
        }
        if (strcmp(argv[i], "--where") == 0 && i + 1 < argc) {
            where = argv[++i];
        } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || v == 0 || v > 1000)
                return cli_usage_error(demo_usage, "--repeat wants 1..1000");
            repeat = (unsigned)v;
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
    int rc = stage_walk(path, where, &md);
    if (rc != CLI_EXIT_OK) return rc;
    uint32_t n = pq_metadata_file(md)->row_groups_len;

    experiment e[4] = {
        {.what = "bulk read, footer parsed"},
        {.what = "bulk read, cached pq_metadata"},
        {.what = ""},
        {.what = ""},
    };
    char b0[64], b1[64];
    snprintf(b0, sizeof b0, "%u row-group reads, footer parsed by each", n);
    snprintf(b1, sizeof b1, "%u row-group reads, footer reused (cache)", n);
    e[2].what = b0;
    e[3].what = b1;
    rc = run_experiment(path, md, n, false, false, repeat, &e[0]);
    if (rc == CLI_EXIT_OK) rc = run_experiment(path, md, n, false, true, repeat, &e[1]);
    if (rc == CLI_EXIT_OK) rc = run_experiment(path, md, n, true, false, repeat, &e[2]);
    if (rc == CLI_EXIT_OK) rc = run_experiment(path, md, n, true, true, repeat, &e[3]);
    if (rc != CLI_EXIT_OK) {
        pq_metadata_release(md);
        return rc;
    }
    printf("Reuse: the whole file read into Arrow batches (best of %u runs; decode threads: one per core)\n",
           repeat);
    printf("  %-2s %-42s %12s  %8s  %10s\n", "", "", "time", "parses", "rows");
    print_experiment("A.", &e[0]);
    print_experiment("", &e[1]);
    print_experiment("B.", &e[2]);
    print_experiment("", &e[3]);
    rc = footer_handoff(path, md);
    if (rc == CLI_EXIT_OK) {
        double a = e[1].ns ? (double)e[0].ns / (double)e[1].ns : 0.0;
        double b = e[3].ns ? (double)e[2].ns / (double)e[3].ns : 0.0;
        double it = e[0].ns ? (double)e[3].ns / (double)e[0].ns : 0.0;
        printf("\n  footer parses counted by the library: B %" PRIu64 " without reuse, %" PRIu64
               " with reuse\n", e[2].parses, e[3].parses);
        printf("  A: %.2fx faster with the parsed footer reused\n", a);
        printf("  B: %.2fx faster with reuse; row-group iteration with reuse costs %.2fx a bulk read "
               "(target <= 1.1x)\n", b, it);
    }
    pq_metadata_release(md);
    return rc;
}
