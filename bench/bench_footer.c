/*
 * bench_footer.c — pqstep-bench-footer: how fast is the footer stage?
 *
 * For each size (columns x row groups) and statistics flavour it synthesizes
 * a footer (footer_synth.h), checks once that pqstep decodes it exactly as
 * the c_glib reference does, then times three decoders per column chunk:
 *
 *   fast            pq_metadata_parse(), every chunk, schema tree included
 *   fast_projected  pq_metadata_parse() keeping 10 evenly spread columns
 *   c_glib          Apache Thrift c_glib decode + g_object_unref
 *
 * Each figure is the minimum over repetitions of a batch of calls that runs
 * for at least 0.2 s (clock_gettime(CLOCK_MONOTONIC)). Progress goes to
 * stderr; stdout gets the table, or with --json only a JSON list.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cglib_ref.h"
#include "footer_synth.h"
#include "pq_metadata.h"

#define BATCH_MIN_NS 200e6    /* one repetition runs at least this long */
#define REPS 5                /* repetitions; the minimum is reported */
#ifndef SLOW_CALL_NS
#define SLOW_CALL_NS 5e9      /* c_glib slower than this per call (100000x20) ... */
#endif
#define SLOW_REPS 3           /* ... gets this many repetitions */
#define PROJECTED_COLUMNS 10
#define QUICK_SKIP_COLUMNS 100000 /* --quick: no c_glib timing from this width */
#define MAX_FOOTER (UINT64_C(4) << 30)
/* c_glib's decoded tree takes about 2.5 KiB per column chunk, and every
 * GObject it frees leaks ~48 bytes (the generated finalize functions do not
 * chain up, so GObject's notify queue is never freed): keep this much free
 * before another big c_glib call. */
#ifndef CGLIB_BYTES_PER_CHUNK
#define CGLIB_BYTES_PER_CHUNK 3072
#endif

enum { DEC_FAST, DEC_PROJECTED, DEC_CGLIB, DEC_COUNT };
static const char *const decoder_names[DEC_COUNT] = {"fast", "fast_projected", "c_glib"};

typedef struct size_spec {
    uint32_t columns;
    uint32_t row_groups;
} size_spec;

static const size_spec default_sizes[] = {{16, 61}, {1000, 20}, {10000, 20}, {100000, 20}};

typedef struct timing {
    bool done;
    double ns_per_call; /* best repetition, per call */
    int reps;
    long iters;         /* calls per repetition */
    bool mem_limited;   /* fewer reps: not enough free memory for another call */
} timing;

typedef struct result {
    size_spec size;
    pq_synth_stats stats;
    size_t footer_bytes;
    timing t[DEC_COUNT];
} result;

/* What one timed call decodes. */
typedef struct bench_input {
    const uint8_t *bytes;
    size_t len;
    const pq_parse_options *opts;
} bench_input;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("pqstep-bench-footer: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void run_fast(const bench_input *in)
{
    pq_error err;
    pq_metadata *md = pq_metadata_parse(in->bytes, in->len, in->opts, &err);
    if (!md) die("pq_metadata_parse failed: %s", err.message);
    pq_metadata_release(md);
}

static void run_cglib(const bench_input *in)
{
    char *msg = NULL;
    pqtFileMetaData *md = pq_cglib_decode(in->bytes, in->len, &msg);
    if (!md) die("pq_cglib_decode failed: %s", msg ? msg : "?");
    g_object_unref(md);
}

/* MemAvailable from /proc/meminfo in bytes; 0 when unknown. */
static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return (uint64_t)kb * 1024;
}

/* Time `run` on `in`. `first_ns` is the duration of a call already made (the
 * verification run, which doubles as warm-up); it sizes the batches. A slow
 * decoder (`may_be_slow`, one call > SLOW_CALL_NS) gets SLOW_REPS samples,
 * the verification call being the first, and each further call first checks
 * that `mem_need` bytes are available. */
static timing measure(void (*run)(const bench_input *), const bench_input *in, double first_ns,
                      bool may_be_slow, uint64_t mem_need)
{
    timing t;
    memset(&t, 0, sizeof t); /* padding too: the result goes through a pipe */
    t.done = true;
    t.ns_per_call = INFINITY;
    if (first_ns < 1) first_ns = 1;
    t.iters = (long)ceil(BATCH_MIN_NS / first_ns);
    if (t.iters < 1) t.iters = 1;
    bool slow = may_be_slow && first_ns > SLOW_CALL_NS;
    t.reps = slow ? SLOW_REPS : REPS;
    int r = 0;
    if (slow) {
        t.ns_per_call = first_ns;
        r = 1;
    }
    for (; r < t.reps; r++) {
        uint64_t avail = slow ? mem_available() : 0;
        if (avail && avail < mem_need) {
            t.reps = r;
            t.mem_limited = true;
            break;
        }
        double t0 = now_ns();
        for (long i = 0; i < t.iters; i++) run(in);
        double per = (now_ns() - t0) / (double)t.iters;
        if (per < t.ns_per_call) t.ns_per_call = per;
    }
    return t;
}

/* Leaf indexes for the projection: PROJECTED_COLUMNS spread over the file. */
static size_t pick_columns(uint32_t columns, uint32_t *out)
{
    size_t n = columns < PROJECTED_COLUMNS ? columns : PROJECTED_COLUMNS;
    for (size_t k = 0; k < n; k++) out[k] = (uint32_t)((uint64_t)k * columns / n);
    return n;
}

/* The projected parse must decode the kept chunks exactly as the full one
 * (which was compared with c_glib) and mark every other chunk skipped. */
static void check_projection(const pq_file_metadata *full, const pq_file_metadata *proj,
                             const uint32_t *keep, size_t keep_len)
{
    if (proj->row_groups_len != full->row_groups_len || proj->schema_len != full->schema_len)
        die("projected parse: row group or schema count differs from the full parse");
    for (uint32_t r = 0; r < full->row_groups_len; r++) {
        const pq_row_group *fr = &full->row_groups[r], *pr = &proj->row_groups[r];
        if (pr->columns_len != fr->columns_len || pr->num_rows != fr->num_rows)
            die("projected parse: row_groups[%u] differs from the full parse", r);
        size_t k = 0;
        for (uint32_t c = 0; c < fr->columns_len; c++) {
            const pq_column_chunk *fc = fr->columns[c], *pc = pr->columns[c];
            bool kept = k < keep_len && keep[k] == c;
            if (kept) k++;
            if (!kept) {
                if (!(pc->set & PQ_CC_SKIPPED))
                    die("projected parse: row_groups[%u].columns[%u] not marked skipped", r, c);
                continue;
            }
            const pq_column_meta *fm = &fc->meta_data, *pm = &pc->meta_data;
            if (pc->set != fc->set || pm->set != fm->set || pm->type != fm->type ||
                pm->codec != fm->codec || pm->num_values != fm->num_values ||
                pm->data_page_offset != fm->data_page_offset ||
                pm->dictionary_page_offset != fm->dictionary_page_offset ||
                pm->total_compressed_size != fm->total_compressed_size ||
                pm->statistics.null_count != fm->statistics.null_count ||
                pm->statistics.min_value.len != fm->statistics.min_value.len ||
                memcmp(pm->statistics.min_value.ptr, fm->statistics.min_value.ptr,
                       fm->statistics.min_value.len) != 0 ||
                pc->column_index_offset != fc->column_index_offset ||
                pc->offset_index_offset != fc->offset_index_offset)
                die("projected parse: row_groups[%u].columns[%u] differs from the full parse", r, c);
        }
    }
}

/* Decode once with both decoders, compare field by field, check the
 * projection; return the durations of these first calls for batch sizing.
 * Runs even when c_glib is not timed: a benchmark of a wrong decoder is
 * worthless. */
static void verify(const bench_input *full, const bench_input *proj, double first_ns[DEC_COUNT])
{
    pq_error err;
    char *msg = NULL, diff[512];
    double t0, t1;

    t0 = now_ns();
    pq_metadata *ours = pq_metadata_parse(full->bytes, full->len, full->opts, &err);
    first_ns[DEC_FAST] = now_ns() - t0;
    if (!ours) die("pq_metadata_parse failed: %s", err.message);

    t0 = now_ns();
    pqtFileMetaData *ref = pq_cglib_decode(full->bytes, full->len, &msg);
    t1 = now_ns();
    if (!ref) die("pq_cglib_decode failed: %s", msg ? msg : "?");
    if (pq_cglib_compare(ref, pq_metadata_file(ours), diff, sizeof diff) != 0)
        die("pqstep decodes the footer differently from c_glib: %s", diff);
    double t2 = now_ns();
    g_object_unref(ref);
    first_ns[DEC_CGLIB] = (t1 - t0) + (now_ns() - t2);

    t0 = now_ns();
    pq_metadata *pm = pq_metadata_parse(proj->bytes, proj->len, proj->opts, &err);
    first_ns[DEC_PROJECTED] = now_ns() - t0;
    if (!pm) die("projected pq_metadata_parse failed: %s", err.message);
    if (!pq_metadata_is_projected(pm)) die("projected parse is not marked projected");
    check_projection(pq_metadata_file(ours), pq_metadata_file(pm), proj->opts->columns,
                     proj->opts->columns_len);
    pq_metadata_release(pm);
    pq_metadata_release(ours);
}

static void bench_one(result *res, bool quick)
{
    uint32_t C = res->size.columns, R = res->size.row_groups;
    const char *sname = pq_synth_stats_name(res->stats);
    uint32_t keep[PROJECTED_COLUMNS];
    double first_ns[DEC_COUNT];

    fprintf(stderr, "%ux%u %s: synthesizing...", C, R, sname);
    fflush(stderr);
    double t0 = now_ns();
    size_t len = 0;
    uint8_t *bytes = pq_synth_footer_bytes(C, R, res->stats, &len);
    if (!bytes) die("footer synthesis failed for %ux%u", C, R);
    res->footer_bytes = len;
    fprintf(stderr, " %zu bytes (%.1f s); verifying...", len, (now_ns() - t0) / 1e9);
    fflush(stderr);

    pq_parse_options full_opts = {.max_footer_size = MAX_FOOTER};
    pq_parse_options proj_opts = {.max_footer_size = MAX_FOOTER};
    proj_opts.columns = keep;
    proj_opts.columns_len = pick_columns(C, keep);
    bench_input full = {bytes, len, &full_opts}, proj = {bytes, len, &proj_opts};
    bool want_cglib = !(quick && C >= QUICK_SKIP_COLUMNS);

    verify(&full, &proj, first_ns);
    fprintf(stderr, " ok; timing fast");
    fflush(stderr);
    res->t[DEC_FAST] = measure(run_fast, &full, first_ns[DEC_FAST], false, 0);
    fprintf(stderr, ", fast_projected");
    fflush(stderr);
    res->t[DEC_PROJECTED] = measure(run_fast, &proj, first_ns[DEC_PROJECTED], false, 0);
    if (want_cglib) {
        fprintf(stderr, ", c_glib");
        fflush(stderr);
        res->t[DEC_CGLIB] = measure(run_cglib, &full, first_ns[DEC_CGLIB], true,
                                    (uint64_t)C * R * CGLIB_BYTES_PER_CHUNK + (UINT64_C(1) << 30));
    }
    fprintf(stderr, " done\n");
    g_free(bytes);
}

/* Run one case in a child process: each case starts from a fresh heap, and
 * what c_glib leaks (see CGLIB_BYTES_PER_CHUNK) goes back to the system when
 * the child exits. The child sends its result through a pipe. */
static bool bench_isolated(result *res, bool quick)
{
    int fd[2];
    if (pipe(fd) != 0) die("pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid == 0) {
        close(fd[0]);
        bench_one(res, quick);
        const char *p = (const char *)res;
        size_t left = sizeof *res;
        while (left) {
            ssize_t w = write(fd[1], p, left);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) _exit(1);
            p += w;
            left -= (size_t)w;
        }
        _exit(0);
    }
    close(fd[1]);
    result got;
    size_t have = 0;
    while (have < sizeof got) {
        ssize_t r = read(fd[0], (char *)&got + have, sizeof got - have);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        have += (size_t)r;
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (have != sizeof got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "pqstep-bench-footer: the %ux%u %s case failed (%s %d)\n",
                res->size.columns, res->size.row_groups, pq_synth_stats_name(res->stats),
                WIFSIGNALED(status) ? "signal" : "exit status",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        return false;
    }
    *res = got;
    return true;
}

static double per_chunk(const result *r, int dec)
{
    return r->t[dec].ns_per_call / ((double)r->size.columns * r->size.row_groups);
}

static void print_json(const result *res, size_t n)
{
    bool first = true;
    printf("[");
    for (size_t i = 0; i < n; i++) {
        for (int d = 0; d < DEC_COUNT; d++) {
            const timing *t = &res[i].t[d];
            if (!t->done) continue;
            printf("%s\n  {\"columns\": %u, \"row_groups\": %u, \"stats\": \"%s\", "
                   "\"decoder\": \"%s\", \"ns_per_chunk\": %.3f, \"footer_bytes\": %zu, "
                   "\"reps\": %d, \"calls_per_rep\": %ld%s}",
                   first ? "" : ",", res[i].size.columns, res[i].size.row_groups,
                   pq_synth_stats_name(res[i].stats), decoder_names[d], per_chunk(&res[i], d),
                   res[i].footer_bytes, t->reps, t->iters,
                   t->mem_limited ? ", \"memory_limited\": true" : "");
            first = false;
        }
    }
    printf("\n]\n");
}

static void print_table(const result *res, size_t n)
{
    bool slow = false, skipped = false, memlim = false;
    double worst_fast = 0, worst_speedup = INFINITY, widest_ratio = 0;
    uint32_t widest = 0;

    printf("pqstep footer decode: ns per column chunk, min of %d reps of >= %.1f s "
           "(min of %d when one call takes > %.0f s)\n\n",
           REPS, BATCH_MIN_NS / 1e9, SLOW_REPS, SLOW_CALL_NS / 1e9);
    printf("%7s %10s %-7s %12s %9s %14s %9s %8s %9s\n", "columns", "row_groups", "stats",
           "footer_bytes", "fast", "fast_projected", "c_glib", "speedup", "proj_ratio");
    for (size_t i = 0; i < n; i++) {
        const result *r = &res[i];
        double fast = per_chunk(r, DEC_FAST), proj = per_chunk(r, DEC_PROJECTED);
        char cg[32] = "-", sp[32] = "-";
        if (r->t[DEC_CGLIB].done) {
            double c = per_chunk(r, DEC_CGLIB);
            bool few = r->t[DEC_CGLIB].reps < REPS;
            memlim |= r->t[DEC_CGLIB].mem_limited;
            snprintf(cg, sizeof cg, "%.1f%s", c, few ? "*" : "");
            snprintf(sp, sizeof sp, "%.1fx", c / fast);
            slow |= few;
            if (c / fast < worst_speedup) worst_speedup = c / fast;
        } else {
            skipped = true;
        }
        if (fast > worst_fast) worst_fast = fast;
        if (r->size.columns > widest) widest = r->size.columns, widest_ratio = INFINITY;
        if (r->size.columns == widest && fast / proj < widest_ratio) widest_ratio = fast / proj;
        printf("%7u %10u %-7s %12zu %9.1f %14.1f %9s %8s %8.1fx\n", r->size.columns,
               r->size.row_groups, pq_synth_stats_name(r->stats), r->footer_bytes, fast, proj,
               cg, sp, fast / proj);
    }
    printf("\n");
    if (slow)
        printf("* min of %d reps (one call takes > %.0f s)%s\n", SLOW_REPS, SLOW_CALL_NS / 1e9,
               memlim ? "; fewer where free memory ran short (--json: \"reps\")" : "");
    if (skipped) printf("- c_glib not timed (--quick skips it from %d columns)\n", QUICK_SKIP_COLUMNS);
    printf("speedup = c_glib / fast; proj_ratio = fast / fast_projected "
           "(projection keeps %d columns)\n", PROJECTED_COLUMNS);
    printf("targets: fast <= 50 ns/chunk: %s (worst %.1f)", worst_fast <= 50 ? "met" : "MISSED",
           worst_fast);
    if (worst_speedup < INFINITY)
        printf("; speedup >= 25x: %s (worst %.1fx)", worst_speedup >= 25 ? "met" : "MISSED",
               worst_speedup);
    printf(";\n         projection on the widest file (%u columns): %.1fx cheaper than full\n", widest,
           widest_ratio);
}

static bool parse_sizes(const char *arg, size_spec **out, size_t *n)
{
    size_t cap = 1;
    for (const char *p = arg; *p; p++) cap += *p == ',';
    size_spec *v = calloc(cap, sizeof *v);
    if (!v) return false;
    size_t k = 0;
    const char *p = arg;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long c = strtoul(p, &end, 10);
        if (end == p || (*end != 'x' && *end != 'X')) break;
        p = end + 1;
        unsigned long r = strtoul(p, &end, 10);
        if (end == p || errno || c == 0 || r == 0 || c > 10000000 || r > 32767 ||
            (unsigned long long)c * r > 100000000ull)
            break;
        v[k++] = (size_spec){(uint32_t)c, (uint32_t)r};
        p = end;
        if (*p == ',' && p[1]) p++;
        else if (*p) break;
    }
    if (*p || k == 0) {
        free(v);
        return false;
    }
    *out = v;
    *n = k;
    return true;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: pqstep-bench-footer [--json] [--quick] [--sizes CxR[,CxR...]] [--help]\n"
            "\n"
            "Times pqstep's footer decoder against Apache Thrift c_glib on synthetic\n"
            "footers (columns x row groups; numeric and string statistics).\n"
            "\n"
            "  --json    print only a JSON list of {columns, row_groups, stats, decoder,\n"
            "            ns_per_chunk, ...}\n"
            "  --quick   do not time c_glib on footers with >= %d columns\n"
            "  --sizes   sizes to run (default 16x61,1000x20,10000x20,100000x20)\n"
            "  --help    this text\n",
            QUICK_SKIP_COLUMNS);
}

int main(int argc, char **argv)
{
    bool json = false, quick = false;
    size_spec *sizes = NULL;
    size_t nsizes = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            free(sizes);
            if (!parse_sizes(argv[++i], &sizes, &nsizes)) {
                fprintf(stderr, "pqstep-bench-footer: bad --sizes '%s' (want CxR[,CxR...])\n",
                        argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "pqstep-bench-footer: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!sizes) {
        nsizes = sizeof default_sizes / sizeof default_sizes[0];
        sizes = malloc(sizeof default_sizes);
        if (!sizes) die("out of memory");
        memcpy(sizes, default_sizes, sizeof default_sizes);
    }

    size_t n = nsizes * 2;
    result *res = calloc(n, sizeof *res);
    if (!res) die("out of memory");
    for (size_t i = 0; i < n; i++) {
        res[i].size = sizes[i / 2];
        res[i].stats = (i % 2) ? PQ_SYNTH_STRING : PQ_SYNTH_NUMERIC;
        if (!bench_isolated(&res[i], quick)) {
            free(res);
            free(sizes);
            return 1;
        }
    }
    if (json) print_json(res, n);
    else print_table(res, n);
    free(res);
    free(sizes);
    return 0;
}
