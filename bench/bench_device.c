/*
 * bench_device.c — pqstep-bench-device: decode throughput of the decode
 * stage on each executor, in GB/s of Arrow output.
 *
 *   pqstep-bench-device [options] [LABEL=]FILE...
 *   pqstep-bench-device --probe
 *
 * Each FILE is read into host memory once; every timed read is then a whole
 * read from that memory (pq_reader_open_memory): footer, select, page
 * headers, decode, every row group exported as an Arrow record batch and
 * released, close. Per read two figures:
 *   decode      the decode stage's bytes_out / its nanoseconds
 *               (pq_reader_decode_stats): with device = cuda, the stage as a
 *               whole, from page bytes in host memory to Arrow arrays in
 *               host memory: host decompression, uploads, kernels and
 *               downloads included;
 *   end to end  the same bytes / the whole read's wall time (open to close).
 * A figure is the minimum over --repeat reads after one untimed warm-up
 * (median kept too). Modes (--modes, default all five):
 *   cpu1   the CPU executor on 1 thread
 *   cpu    the CPU executor on --threads threads (default: every online core)
 *   host   the device executor's kernels run on the host (device =
 *          host-kernels, --threads threads): for the record, slow; at most
 *          --host-repeat reads (default 1), only on files whose output is at
 *          most --host-max-mb MB (default 512)
 *   cuda   the device executor on the CUDA device (--threads threads);
 *          without a usable device every cuda figure is "not measured" with
 *          the reason pq_cuda_device_count gives
 *   cudaout the same with the output kept on the device (device_output):
 *          Arrow arrays built there, each row group handed out by
 *          pq_reader_next_device_batch in device memory (no copy back), as
 *          a GPU consumer reads; the end-to-end TPC-H target takes this
 *          figure when measured
 *   hostres the host kernels (as host) reading the pages from a second
 *          copy of the file in host memory (opts.device_file) with the
 *          output kept there (device_output): the resident path run on
 *          the host, for the record and so that it runs without a GPU
 *   cudares the device executor on the CUDA device decoding from a copy
 *          of the file uploaded to device memory once, before the reads
 *          (opts.device_file), the output kept there (device_output) and
 *          handed out as device batches: no page bytes cross PCIe during
 *          a read (only pages of codecs nvCOMP lacks, decompressed on the
 *          host). Its decode figure is what the device-resident targets
 *          (fixed width, strings: the best single column of each kind
 *          with --per-column) take
 * --per-column adds the same figures for each leaf column read alone, which
 * gives them per type (physical type, Arrow format, encodings, codec).
 * Chunks the kernels do not cover run on the CPU executor in the host and
 * cuda modes; each figure says how many chunks ran where (device_chunks,
 * cpu_chunks) and the reader's device note.
 *
 * --baseline TSV takes other readers' times (scripts/gpu-check writes
 * pyarrow's: file, column or "*", seconds, bytes, threads; '#' lines are
 * comments): each figure of the same file and column gets
 * vs_baseline = baseline seconds / pqstep's end-to-end seconds (above 1:
 * pqstep faster). The file must be named exactly as here.
 *
 * Output: a readable table on stdout; --json FILE writes every figure.
 * --probe prints the number of usable CUDA devices (exit 0) or "no CUDA
 * device: <why>" (exit 3).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_NAME "pqstep-bench-device"
#include "device/choice.h" /* PQ_DEVICE_HOST_KERNELS */
#include "bench_util.h"

#include "device/cuda_runtime.h"
#include "kernels/k_decode.h"
#include "pq_arrow.h"
#include "pq_metadata.h"
#include "pq_reader.h"

#define MAX_REPEAT 1000
#define MAX_FILES 256
#define MAX_BASELINE 4096

enum { MODE_CPU1, MODE_CPU, MODE_HOST, MODE_CUDA, MODE_CUDA_OUT, MODE_HOST_RES, MODE_CUDA_RES, NMODES };
static const char *const mode_key[NMODES] = {"cpu1", "cpu", "host", "cuda", "cudaout", "hostres", "cudares"};

/* Output kept on the device and read as device batches. */
static bool output_on_device(int mode)
{
    return mode == MODE_CUDA_OUT || mode == MODE_HOST_RES || mode == MODE_CUDA_RES;
}

static bool on_cuda(int mode)
{
    return mode == MODE_CUDA || mode == MODE_CUDA_OUT || mode == MODE_CUDA_RES;
}

typedef struct config {
    unsigned repeat, host_repeat, threads;
    double host_max_mb;
    bool modes[NMODES];
    bool per_column;
    const char *json_path;
    const char *baseline_path;
    int cuda_devices;
    const char *cuda_why;
} config;

/* One figure: a mode over a column set of one file. */
typedef struct figure {
    int mode;
    unsigned threads, runs;
    bool measured;
    char why[320];         /* not measured: why */
    char note[320];        /* the reader's device note */
    uint64_t rows, bytes_out, device_chunks, cpu_chunks;
    double decode_min_s, decode_median_s, wall_min_s, wall_median_s;
    double baseline_s;     /* 0: none */
} figure;

typedef struct column_info {
    char path[256];
    char arrow[40];
    char physical[32];
    char encodings[160];
    char codec[24];
    const char *kind; /* fixed, boolean, string, nested */
    figure fig[NMODES];
} column_info;

typedef struct file_in {
    char label[128];
    const char *path;
    uint8_t *data;
    size_t size;
    void *resident[NMODES]; /* hostres, cudares: the file's copy in (standing-for) device memory */
    char resident_why[200]; /* cudares: why there is none */
    uint64_t rows;
    uint32_t row_groups, leaves;
    figure whole[NMODES];
    column_info *cols;
} file_in;

typedef struct baseline_row {
    char file[512];
    char column[256];
    double seconds;
} baseline_row;

static baseline_row *g_base;
static size_t g_nbase;

static double median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("%s: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0) die("%s: seek: %s", path, strerror(errno));
    long n = ftell(f);
    if (n < 0) die("%s: tell: %s", path, strerror(errno));
    rewind(f);
    uint8_t *b = malloc(n ? (size_t)n : 1);
    if (!b) die("%s: out of memory for %ld bytes", path, n);
    if (n && fread(b, 1, (size_t)n, f) != (size_t)n) die("%s: short read", path);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* ---------------------------------------------------------------------------
 * One read
 * ------------------------------------------------------------------------- */

typedef struct sample {
    double decode_s, wall_s;
    uint64_t rows, bytes_out, device_chunks, cpu_chunks;
    char note[320];
} sample;

static uint32_t device_of(int mode)
{
    switch (mode) {
    case MODE_HOST:
    case MODE_HOST_RES: return PQ_DEVICE_HOST_KERNELS;
    case MODE_CUDA:
    case MODE_CUDA_OUT:
    case MODE_CUDA_RES: return PQ_DEVICE_CUDA;
    default: return PQ_DEVICE_CPU;
    }
}

/* A whole read from memory; false with `why` on failure. */
static bool read_once(const file_in *f, int mode, unsigned threads, const uint32_t *col, sample *s, char *why,
                      size_t cap)
{
    pq_error err;
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.threads = threads;
    opts.device = device_of(mode);
    opts.device_output = output_on_device(mode);
    if (f->resident[mode]) {
        opts.device_file = f->resident[mode];
        opts.device_file_size = f->size;
    }
    if (col) {
        opts.columns = col;
        opts.columns_len = 1;
    }
    memset(s, 0, sizeof *s);
    double t0 = now_s();
    pq_reader *r = pq_reader_open_memory(f->data, f->size, &opts, &err);
    if (!r) {
        snprintf(why, cap, "open: %s", err.message);
        return false;
    }
    if (pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) != PQ_OK) {
        snprintf(why, cap, "decode stage: %s", err.message);
        pq_reader_close(r);
        return false;
    }
    size_t ngroups = 0;
    const uint32_t *groups = pq_reader_selected_row_groups(r, &ngroups);
    for (size_t g = 0; output_on_device(mode); g++) { /* device batches, a row group each */
        struct ArrowDeviceArray da;
        if (pq_reader_next_device_batch(r, 0, &da, NULL, &err) != PQ_OK) {
            snprintf(why, cap, "device batch %zu: %s", g, err.message);
            pq_reader_close(r);
            return false;
        }
        if (!da.array.release) break;
        s->rows += (uint64_t)da.array.length;
        da.array.release(&da.array);
    }
    for (size_t g = 0; !output_on_device(mode) && g < ngroups; g++) {
        struct ArrowArray array;
        struct ArrowSchema schema;
        if (pq_reader_export_row_group(r, groups[g], &array, &schema, &err) != PQ_OK) {
            snprintf(why, cap, "export of row group %u: %s", groups[g], err.message);
            pq_reader_close(r);
            return false;
        }
        s->rows += (uint64_t)array.length;
        array.release(&array);
        schema.release(&schema);
    }
    pq_decode_stats st;
    pq_reader_decode_stats(r, &st, sizeof st);
    snprintf(s->note, sizeof s->note, "%s", pq_reader_device_note(r));
    pq_reader_close(r);
    s->wall_s = now_s() - t0;
    s->decode_s = (double)st.io.nanoseconds / 1e9;
    s->bytes_out = st.bytes_out;
    s->device_chunks = st.device_chunks;
    s->cpu_chunks = st.cpu_chunks;
    return true;
}

static double baseline_for(const char *file, const char *column)
{
    for (size_t i = 0; i < g_nbase; i++)
        if (strcmp(g_base[i].file, file) == 0 && strcmp(g_base[i].column, column) == 0) return g_base[i].seconds;
    return 0;
}

/* One figure: warm-up, then the timed reads. */
static void measure(const config *c, const file_in *f, int mode, const uint32_t *col, uint64_t cpu_bytes_out,
                    figure *fg)
{
    memset(fg, 0, sizeof *fg);
    fg->mode = mode;
    fg->threads = mode == MODE_CPU1 ? 1 : c->threads;
    fg->runs = mode == MODE_HOST || mode == MODE_HOST_RES ? c->host_repeat : c->repeat;
    if (!c->modes[mode]) {
        snprintf(fg->why, sizeof fg->why, "mode not asked for (--modes)");
        return;
    }
    if (on_cuda(mode) && c->cuda_devices <= 0) {
        snprintf(fg->why, sizeof fg->why, "no CUDA device: %s", c->cuda_why ? c->cuda_why : "unknown");
        return;
    }
    if (mode == MODE_CUDA_RES && !f->resident[mode]) {
        snprintf(fg->why, sizeof fg->why, "%s", f->resident_why);
        return;
    }
    if ((mode == MODE_HOST || mode == MODE_HOST_RES) && cpu_bytes_out > (uint64_t)(c->host_max_mb * 1e6)) {
        snprintf(fg->why, sizeof fg->why, "output of %.1f MB is over --host-max-mb %.0f (host kernels are slow)",
                 (double)cpu_bytes_out / 1e6, c->host_max_mb);
        return;
    }
    sample s;
    if (!read_once(f, mode, fg->threads, col, &s, fg->why, sizeof fg->why)) return;
    snprintf(fg->note, sizeof fg->note, "%s", s.note);
    double *dec = malloc(fg->runs * sizeof *dec), *wall = malloc(fg->runs * sizeof *wall);
    if (!dec || !wall) die("out of memory");
    for (unsigned k = 0; k < fg->runs; k++) {
        if (!read_once(f, mode, fg->threads, col, &s, fg->why, sizeof fg->why)) {
            free(dec);
            free(wall);
            return;
        }
        dec[k] = s.decode_s;
        wall[k] = s.wall_s;
    }
    fg->measured = true;
    fg->rows = s.rows;
    fg->bytes_out = s.bytes_out;
    fg->device_chunks = s.device_chunks;
    fg->cpu_chunks = s.cpu_chunks;
    fg->decode_median_s = median(dec, fg->runs);
    fg->decode_min_s = dec[0];
    fg->wall_median_s = median(wall, fg->runs);
    fg->wall_min_s = wall[0];
    free(dec);
    free(wall);
}

static double gbps(uint64_t bytes, double s)
{
    return s > 0 ? (double)bytes / s / 1e9 : 0;
}

/* ---------------------------------------------------------------------------
 * Files and their columns
 * ------------------------------------------------------------------------- */

static const char *kind_of(const pq_leaf *leaf)
{
    if (leaf->max_rep > 0) return "nested";
    switch (leaf->arrow.id) {
    case PQ_ARROW_BOOL: return "boolean";
    case PQ_ARROW_STRING:
    case PQ_ARROW_BINARY:
    case PQ_ARROW_LARGE_STRING:
    case PQ_ARROW_LARGE_BINARY:
    case PQ_ARROW_EXTENSION_JSON: return "string";
    case PQ_ARROW_STRUCT:
    case PQ_ARROW_LIST:
    case PQ_ARROW_MAP: return "nested";
    default: return "fixed";
    }
}

/* Names, types, encodings and codec of the file's leaves (from the first
 * row group: encodings and codec may differ in later ones). */
static void describe(file_in *f)
{
    pq_error err;
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    pq_reader *r = pq_reader_open_memory(f->data, f->size, &opts, &err);
    if (!r || pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err) != PQ_OK) die("%s: %s", f->path, err.message);
    const pq_metadata *md = pq_reader_metadata(r);
    const pq_file_metadata *fm = pq_metadata_file(md);
    const pq_schema *schema = pq_metadata_schema(md);
    f->rows = fm->num_rows < 0 ? 0 : (uint64_t)fm->num_rows;
    f->row_groups = fm->row_groups_len;
    f->leaves = schema->leaves_len;
    f->cols = calloc(f->leaves ? f->leaves : 1, sizeof *f->cols);
    if (!f->cols) die("out of memory");
    for (uint32_t i = 0; i < f->leaves; i++) {
        const pq_leaf *leaf = &schema->leaves[i];
        column_info *ci = &f->cols[i];
        snprintf(ci->path, sizeof ci->path, "%s", leaf->path);
        if (pq_arrow_format(&leaf->arrow, ci->arrow, sizeof ci->arrow) != PQ_OK)
            snprintf(ci->arrow, sizeof ci->arrow, "?");
        snprintf(ci->physical, sizeof ci->physical, "%s", pq_physical_type_name(leaf->physical_type));
        ci->kind = kind_of(leaf);
        snprintf(ci->codec, sizeof ci->codec, "-");
        if (fm->row_groups_len && i < fm->row_groups[0].columns_len) {
            const pq_column_meta *m = &fm->row_groups[0].columns[i]->meta_data;
            snprintf(ci->codec, sizeof ci->codec, "%s", pq_codec_name(m->codec));
            size_t at = 0;
            for (uint32_t e = 0; e < m->encodings_len && at + 1 < sizeof ci->encodings; e++) {
                int n = snprintf(ci->encodings + at, sizeof ci->encodings - at, "%s%s", e ? "," : "",
                                 pq_encoding_name(m->encodings[e]));
                if (n < 0) break;
                at += (size_t)n;
            }
        }
    }
    pq_reader_close(r);
}

static void run_file(const config *c, file_in *f)
{
    fprintf(stderr, "bench: %s (%s): whole file\n", f->label, f->path);
    for (int m = 0; m < NMODES; m++) {
        measure(c, f, m, NULL, f->whole[MODE_CPU].bytes_out ? f->whole[MODE_CPU].bytes_out
                                                              : f->whole[MODE_CPU1].bytes_out,
                &f->whole[m]);
        f->whole[m].baseline_s = baseline_for(f->path, "*");
    }
    if (!c->per_column) return;
    if (f->leaves == 1) { /* the one column alone is the whole file */
        for (int m = 0; m < NMODES; m++) {
            f->cols[0].fig[m] = f->whole[m];
            f->cols[0].fig[m].baseline_s = baseline_for(f->path, f->cols[0].path);
            if (f->cols[0].fig[m].baseline_s <= 0) f->cols[0].fig[m].baseline_s = f->whole[m].baseline_s;
        }
        return;
    }
    for (uint32_t i = 0; i < f->leaves; i++) {
        uint32_t col = i;
        column_info *ci = &f->cols[i];
        fprintf(stderr, "bench: %s: column %s\n", f->label, ci->path);
        for (int m = 0; m < NMODES; m++) {
            measure(c, f, m, &col, ci->fig[MODE_CPU].bytes_out ? ci->fig[MODE_CPU].bytes_out
                                                                : ci->fig[MODE_CPU1].bytes_out,
                    &ci->fig[m]);
            ci->fig[m].baseline_s = baseline_for(f->path, ci->path);
        }
    }
}

/* ---------------------------------------------------------------------------
 * Output
 * ------------------------------------------------------------------------- */

static void mode_name(const figure *fg, char *buf, size_t cap)
{
    switch (fg->mode) {
    case MODE_CPU1: snprintf(buf, cap, "cpu, 1 thread"); break;
    case MODE_CPU: snprintf(buf, cap, "cpu, %u threads", fg->threads); break;
    case MODE_HOST: snprintf(buf, cap, "host kernels, %u thr", fg->threads); break;
    case MODE_CUDA_OUT: snprintf(buf, cap, "cuda, output on device"); break;
    case MODE_HOST_RES: snprintf(buf, cap, "host kernels, resident"); break;
    case MODE_CUDA_RES: snprintf(buf, cap, "cuda, device-resident"); break;
    default: snprintf(buf, cap, "cuda"); break;
    }
}

static void print_figure_row(const figure *fg)
{
    char name[48];
    mode_name(fg, name, sizeof name);
    if (!fg->measured) {
        printf("    %-24s not measured: %s\n", name, fg->why);
        return;
    }
    printf("    %-24s %8.2f %8.2f %10.2f %9.2f", name, gbps(fg->bytes_out, fg->decode_min_s),
           gbps(fg->bytes_out, fg->wall_min_s), fg->decode_min_s * 1e3, fg->wall_min_s * 1e3);
    if (fg->mode != MODE_CPU1 && fg->mode != MODE_CPU)
        printf(" %6llu/%-6llu", (unsigned long long)fg->device_chunks, (unsigned long long)fg->cpu_chunks);
    else
        printf(" %13s", "-");
    if (fg->baseline_s > 0) printf(" %7.2fx", fg->baseline_s / fg->wall_min_s);
    printf("\n");
}

static void print_table(const config *c, const file_in *files, size_t nfiles)
{
    printf("pqstep-bench-device: min of %u reads (host kernels: %u), %u threads for cpu/host/cuda; "
           "GB/s of Arrow output\n",
           c->repeat, c->host_repeat, c->threads);
    if (c->cuda_devices > 0) printf("CUDA devices: %d\n", c->cuda_devices);
    else printf("no CUDA device: %s\n", c->cuda_why ? c->cuda_why : "unknown");
    for (size_t i = 0; i < nfiles; i++) {
        const file_in *f = &files[i];
        printf("\n%s (%s): %llu rows, %u row groups, %u leaf columns, %.1f MB file\n", f->label, f->path,
               (unsigned long long)f->rows, f->row_groups, f->leaves, (double)f->size / 1e6);
        printf("    %-24s %8s %8s %10s %9s %13s %8s\n", "whole file", "decode", "e2e", "decode ms", "e2e ms",
               "kern/cpu chk", "vs base");
        for (int m = 0; m < NMODES; m++) print_figure_row(&f->whole[m]);
        if (f->whole[MODE_CUDA_RES].measured) printf("    cudares note: %s\n", f->whole[MODE_CUDA_RES].note);
        if (f->whole[MODE_CUDA].measured) printf("    cuda note: %s\n", f->whole[MODE_CUDA].note);
        else if (f->whole[MODE_HOST].measured) printf("    host kernels note: %s\n", f->whole[MODE_HOST].note);
        if (!c->per_column) continue;
        printf("    per column, decode GB/s: %s", "cpu-1");
        printf(" | cpu-%u | host | cuda | cudaout | hostres | cudares   (e2e vs baseline: cpu-%u, cuda)\n", c->threads,
               c->threads);
        for (uint32_t k = 0; k < f->leaves; k++) {
            const column_info *ci = &f->cols[k];
            printf("      %-18.18s %-10.10s %-7.7s %-28.28s", ci->path, ci->physical, ci->arrow, ci->encodings);
            for (int m = 0; m < NMODES; m++) {
                const figure *fg = &ci->fig[m];
                if (fg->measured) printf(" %7.2f", gbps(fg->bytes_out, fg->decode_min_s));
                else printf(" %7s", "-");
            }
            for (int m = MODE_CPU; m <= MODE_CUDA; m += MODE_CUDA - MODE_CPU) {
                const figure *fg = &ci->fig[m];
                if (fg->measured && fg->baseline_s > 0) printf(" %6.2fx", fg->baseline_s / fg->wall_min_s);
                else printf(" %7s", "");
            }
            printf("\n");
        }
    }
}

static void json_string(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(o, "\\%c", ch);
        else if (ch < 0x20) fprintf(o, "\\u%04x", ch);
        else fputc(ch, o);
    }
    fputc('"', o);
}

static void json_num(FILE *o, double v)
{
    if (v > 0 || v < 0) fprintf(o, "%.6g", v);
    else fputs("0", o);
}

static void json_figure(FILE *o, const figure *fg)
{
    fprintf(o, "{\"mode\": \"%s\", \"threads\": %u, \"runs\": %u, \"measured\": %s", mode_key[fg->mode], fg->threads,
            fg->runs, fg->measured ? "true" : "false");
    if (!fg->measured) {
        fputs(", \"why\": ", o);
        json_string(o, fg->why);
        fputc('}', o);
        return;
    }
    fprintf(o, ", \"rows\": %llu, \"bytes_out\": %llu, \"device_chunks\": %llu, \"cpu_chunks\": %llu",
            (unsigned long long)fg->rows, (unsigned long long)fg->bytes_out, (unsigned long long)fg->device_chunks,
            (unsigned long long)fg->cpu_chunks);
    fputs(", \"decode_min_s\": ", o);
    json_num(o, fg->decode_min_s);
    fputs(", \"decode_median_s\": ", o);
    json_num(o, fg->decode_median_s);
    fputs(", \"e2e_min_s\": ", o);
    json_num(o, fg->wall_min_s);
    fputs(", \"e2e_median_s\": ", o);
    json_num(o, fg->wall_median_s);
    fputs(", \"decode_gbps\": ", o);
    json_num(o, gbps(fg->bytes_out, fg->decode_min_s));
    fputs(", \"e2e_gbps\": ", o);
    json_num(o, gbps(fg->bytes_out, fg->wall_min_s));
    if (fg->baseline_s > 0) {
        fputs(", \"baseline_s\": ", o);
        json_num(o, fg->baseline_s);
        fputs(", \"vs_baseline\": ", o);
        json_num(o, fg->baseline_s / fg->wall_min_s);
    }
    fputs(", \"device_note\": ", o);
    json_string(o, fg->note);
    fputc('}', o);
}

/* The best decode figure of `mode` over the single columns of one kind:
 * cudares for the device-resident targets, cuda (from host memory) as
 * information beside them. */
static double best_column(const file_in *files, size_t nfiles, const char *kind, int mode)
{
    double best = 0;
    for (size_t i = 0; i < nfiles; i++)
        for (uint32_t k = 0; files[i].cols && k < files[i].leaves; k++) {
            const column_info *ci = &files[i].cols[k];
            const figure *fg = &ci->fig[mode];
            if (strcmp(ci->kind, kind) != 0 || !fg->measured || fg->device_chunks == 0) continue;
            double g = gbps(fg->bytes_out, fg->decode_min_s);
            if (g > best) best = g;
        }
    return best;
}

typedef struct target {
    const char *name;
    double target;
    const char *unit;
    double measured; /* 0: not measured */
    char why[320];
    const char *host_memory_key; /* an informative figure from host memory, or NULL */
    double host_memory_value;
} target;

#define NTARGETS 3

/* The targets, from what was measured. */
static void compute_targets(const file_in *files, size_t nfiles, target *t)
{
    memset(t, 0, NTARGETS * sizeof *t);
    t[0] = (target){"fixed_width_device_resident", 150, "GB/s", best_column(files, nfiles, "fixed", MODE_CUDA_RES),
                    "", "best_cuda_from_host_memory_gbps", best_column(files, nfiles, "fixed", MODE_CUDA)};
    t[1] = (target){"strings_device_resident", 60, "GB/s", best_column(files, nfiles, "string", MODE_CUDA_RES), "",
                    "best_cuda_from_host_memory_gbps", best_column(files, nfiles, "string", MODE_CUDA)};
    for (int i = 0; i < 2; i++)
        snprintf(t[i].why, sizeof t[i].why, "no cudares figure of a single %s column decoded by the kernels "
                 "(needs a CUDA device, --modes with cudares, and --per-column)", i ? "string" : "fixed-width");
    t[2] = (target){"lineitem_end_to_end_vs_pyarrow", 5, "x", 0, "", NULL, 0};
    snprintf(t[2].why, sizeof t[2].why, "no file labelled lineitem");
    for (size_t i = 0; i < nfiles; i++) {
        if (strcmp(files[i].label, "lineitem") != 0) continue;
        const figure *fg = &files[i].whole[MODE_CUDA_OUT];
        if (!fg->measured) fg = &files[i].whole[MODE_CUDA]; /* output on the device, else copied back */
        if (!fg->measured) snprintf(t[2].why, sizeof t[2].why, "%s", fg->why[0] ? fg->why : "cuda not measured");
        else if (fg->baseline_s <= 0) snprintf(t[2].why, sizeof t[2].why, "no pyarrow baseline for lineitem");
        else t[2].measured = fg->baseline_s / fg->wall_min_s;
        break;
    }
}

static void print_targets(const file_in *files, size_t nfiles)
{
    target t[NTARGETS];
    compute_targets(files, nfiles, t);
    printf("\ntargets:\n");
    for (int i = 0; i < NTARGETS; i++) {
        printf("  %-32s target %g %s: ", t[i].name, t[i].target, t[i].unit);
        if (t[i].measured > 0)
            printf("%.2f %s (%s)", t[i].measured, t[i].unit, t[i].measured >= t[i].target ? "met" : "missed");
        else printf("not measured: %s", t[i].why);
        if (t[i].host_memory_key) {
            if (t[i].host_memory_value > 0)
                printf("; cuda from host memory, best column: %.2f GB/s", t[i].host_memory_value);
            else printf("; cuda from host memory: not measured");
        }
        printf("\n");
    }
}

static void json_targets(FILE *o, const file_in *files, size_t nfiles)
{
    target t[NTARGETS];
    compute_targets(files, nfiles, t);
    fputs("  \"targets\": {\n", o);
    for (int i = 0; i < NTARGETS; i++) {
        fprintf(o, "    ");
        json_string(o, t[i].name);
        fprintf(o, ": {\"target\": %g, \"unit\": \"%s\", \"measured\": ", t[i].target, t[i].unit);
        if (t[i].measured > 0) {
            json_num(o, t[i].measured);
            fprintf(o, ", \"met\": %s", t[i].measured >= t[i].target ? "true" : "false");
        } else {
            fputs("null, \"why\": ", o);
            json_string(o, t[i].why);
        }
        if (t[i].host_memory_key) {
            fputs(", ", o);
            json_string(o, t[i].host_memory_key);
            fputs(": ", o);
            if (t[i].host_memory_value > 0) json_num(o, t[i].host_memory_value);
            else fputs("null", o);
        }
        fprintf(o, "}%s\n", i + 1 < NTARGETS ? "," : "");
    }
    fputs("  }\n", o);
}

static void write_json(const config *c, const file_in *files, size_t nfiles)
{
    FILE *o = fopen(c->json_path, "w");
    if (!o) die("%s: %s", c->json_path, strerror(errno));
    fprintf(o, "{\n  \"tool\": \"pqstep-bench-device\",\n  \"repeat\": %u,\n  \"host_repeat\": %u,\n"
               "  \"threads\": %u,\n  \"online_cores\": %ld,\n  \"cuda_devices\": %d,\n",
            c->repeat, c->host_repeat, c->threads, sysconf(_SC_NPROCESSORS_ONLN), c->cuda_devices);
    fputs("  \"cuda_why\": ", o);
    json_string(o, c->cuda_devices > 0 ? "" : (c->cuda_why ? c->cuda_why : "unknown"));
    fputs(",\n  \"baseline\": ", o);
    if (c->baseline_path) json_string(o, c->baseline_path);
    else fputs("null", o);
    fputs(",\n  \"files\": [\n", o);
    for (size_t i = 0; i < nfiles; i++) {
        const file_in *f = &files[i];
        fputs("    {\"label\": ", o);
        json_string(o, f->label);
        fputs(", \"path\": ", o);
        json_string(o, f->path);
        fprintf(o, ", \"file_bytes\": %zu, \"rows\": %llu, \"row_groups\": %u, \"leaves\": %u,\n     \"whole\": [",
                f->size, (unsigned long long)f->rows, f->row_groups, f->leaves);
        for (int m = 0; m < NMODES; m++) {
            fputs(m ? ",\n       " : "\n       ", o);
            json_figure(o, &f->whole[m]);
        }
        fputs("],\n     \"columns\": [", o);
        for (uint32_t k = 0; c->per_column && k < f->leaves; k++) {
            const column_info *ci = &f->cols[k];
            fputs(k ? ",\n       {\"column\": " : "\n       {\"column\": ", o);
            json_string(o, ci->path);
            fputs(", \"physical_type\": ", o);
            json_string(o, ci->physical);
            fputs(", \"arrow_format\": ", o);
            json_string(o, ci->arrow);
            fputs(", \"kind\": ", o);
            json_string(o, ci->kind);
            fputs(", \"encodings\": ", o);
            json_string(o, ci->encodings);
            fputs(", \"codec\": ", o);
            json_string(o, ci->codec);
            fputs(", \"figures\": [", o);
            for (int m = 0; m < NMODES; m++) {
                fputs(m ? ",\n         " : "\n         ", o);
                json_figure(o, &ci->fig[m]);
            }
            fputs("]}", o);
        }
        fprintf(o, "]}%s\n", i + 1 < nfiles ? "," : "");
    }
    fputs("  ],\n", o);
    json_targets(o, files, nfiles);
    fputs("}\n", o);
    if (fclose(o) != 0) die("%s: write failed", c->json_path);
}

/* ---------------------------------------------------------------------------
 * Arguments
 * ------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fputs("usage: pqstep-bench-device [options] [LABEL=]FILE...\n"
          "       pqstep-bench-device --probe\n"
          "  Decode throughput (GB/s of Arrow output) of each FILE read from host memory:\n"
          "  the decode stage and the whole read, on the CPU executor (1 thread and\n"
          "  --threads), the host-run kernels and the CUDA device.\n"
          "  --repeat N       timed reads per figure, min and median (default 5)\n"
          "  --threads N      threads of the cpu, host and cuda modes (default: online cores)\n"
          "  --modes LIST     of cpu1,cpu,host,cuda,cudaout,hostres,cudares (default all)\n"
          "  --host-repeat N  timed reads of the host kernels (default 1)\n"
          "  --host-max-mb M  host kernels only on outputs up to M MB (default 512)\n"
          "  --per-column     also each leaf column alone (figures per type)\n"
          "  --baseline TSV   other readers' seconds: file, column or *, seconds[, bytes, threads]\n"
          "  --json FILE      every figure as JSON\n"
          "  --probe          print the CUDA device count or why there is none (exit 3)\n",
          f);
}

static void parse_modes(const char *s, config *c)
{
    memset(c->modes, 0, sizeof c->modes);
    while (*s) {
        size_t n = strcspn(s, ",");
        bool found = false;
        for (int m = 0; m < NMODES; m++)
            if (strlen(mode_key[m]) == n && strncmp(s, mode_key[m], n) == 0) c->modes[m] = found = true;
        if (!found) die("unknown mode '%.*s' in --modes (cpu1, cpu, host, cuda, cudaout, hostres, cudares)", (int)n, s);
        s += n;
        if (*s == ',') s++;
    }
}

static void load_baseline(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) die("--baseline %s: %s", path, strerror(errno));
    g_base = calloc(MAX_BASELINE, sizeof *g_base);
    if (!g_base) die("out of memory");
    char line[2048];
    while (fgets(line, sizeof line, f) && g_nbase < MAX_BASELINE) {
        if (line[0] == '#' || line[0] == '\n') continue;
        line[strcspn(line, "\r\n")] = 0;
        char *file = strtok(line, "\t"), *col = strtok(NULL, "\t"), *sec = strtok(NULL, "\t");
        if (!file || !col || !sec) continue;
        double v = strtod(sec, NULL);
        if (!(v > 0)) continue;
        baseline_row *b = &g_base[g_nbase++];
        snprintf(b->file, sizeof b->file, "%s", file);
        snprintf(b->column, sizeof b->column, "%s", col);
        b->seconds = v;
    }
    fclose(f);
}

/* The copies hostres and cudares read: a second host copy; the file
 * uploaded once to the CUDA device (when there is one, and the mode is
 * asked for). */
static void make_resident(const config *c, file_in *f)
{
    if (c->modes[MODE_HOST_RES]) {
        if (!(f->resident[MODE_HOST_RES] = malloc(f->size ? f->size : 1))) die("out of memory");
        memcpy(f->resident[MODE_HOST_RES], f->data, f->size);
    }
    if (!c->modes[MODE_CUDA_RES] || c->cuda_devices <= 0) return;
    const char *why = NULL;
    void *d = NULL;
    if (pq_cuda_alloc(&d, f->size, &why) || pq_cuda_upload(NULL, d, f->data, f->size, &why)) {
        snprintf(f->resident_why, sizeof f->resident_why, "the file could not be copied to the device: %s",
                 why ? why : "?");
        if (d) pq_cuda_free(d);
        return;
    }
    f->resident[MODE_CUDA_RES] = d;
}

static void drop_resident(file_in *f)
{
    free(f->resident[MODE_HOST_RES]);
    if (f->resident[MODE_CUDA_RES]) pq_cuda_free(f->resident[MODE_CUDA_RES]);
    memset(f->resident, 0, sizeof f->resident);
}

int main(int argc, char **argv)
{
    static file_in files[MAX_FILES];
    size_t nfiles = 0;
    config c = {.repeat = 5, .host_repeat = 1, .host_max_mb = 512};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    c.threads = cores > 0 ? (unsigned)cores : 1;
    for (int m = 0; m < NMODES; m++) c.modes[m] = true;
    bool probe = false;
    unsigned long v;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (strcmp(a, "--repeat") == 0 && more) {
            if (!parse_uint(argv[++i], MAX_REPEAT, &v) || v == 0) die("bad --repeat '%s'", argv[i]);
            c.repeat = (unsigned)v;
        } else if (strcmp(a, "--host-repeat") == 0 && more) {
            if (!parse_uint(argv[++i], MAX_REPEAT, &v) || v == 0) die("bad --host-repeat '%s'", argv[i]);
            c.host_repeat = (unsigned)v;
        } else if (strcmp(a, "--threads") == 0 && more) {
            if (!parse_uint(argv[++i], 1024, &v) || v == 0) die("bad --threads '%s'", argv[i]);
            c.threads = (unsigned)v;
        } else if (strcmp(a, "--host-max-mb") == 0 && more) {
            if (!parse_uint(argv[++i], 1u << 30, &v)) die("bad --host-max-mb '%s'", argv[i]);
            c.host_max_mb = (double)v;
        } else if (strcmp(a, "--modes") == 0 && more) {
            parse_modes(argv[++i], &c);
        } else if (strcmp(a, "--per-column") == 0) {
            c.per_column = true;
        } else if (strcmp(a, "--baseline") == 0 && more) {
            c.baseline_path = argv[++i];
        } else if (strcmp(a, "--json") == 0 && more) {
            c.json_path = argv[++i];
        } else if (strcmp(a, "--probe") == 0) {
            probe = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (a[0] != '-') {
            if (nfiles == MAX_FILES) die("more than %d files", MAX_FILES);
            file_in *f = &files[nfiles++];
            const char *eq = strchr(a, '=');
            bool labelled = eq && eq != a && memchr(a, '/', (size_t)(eq - a)) == NULL;
            if (labelled) {
                snprintf(f->label, sizeof f->label, "%.*s", (int)(eq - a), a);
                f->path = eq + 1;
            } else {
                const char *slash = strrchr(a, '/');
                snprintf(f->label, sizeof f->label, "%s", slash ? slash + 1 : a);
                f->path = a;
            }
        } else {
            fprintf(stderr, "pqstep-bench-device: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }

    c.cuda_devices = pq_cuda_device_count(&c.cuda_why);
    if (probe) {
        if (c.cuda_devices > 0) {
            printf("cuda devices: %d\n", c.cuda_devices);
            return 0;
        }
        printf("no CUDA device: %s\n", c.cuda_why ? c.cuda_why : "unknown");
        return 3;
    }
    if (nfiles == 0) {
        usage(stderr);
        return 2;
    }
    if (c.baseline_path) load_baseline(c.baseline_path);
    for (size_t i = 0; i < nfiles; i++) {
        files[i].data = slurp(files[i].path, &files[i].size);
        make_resident(&c, &files[i]);
        describe(&files[i]);
        run_file(&c, &files[i]);
        drop_resident(&files[i]);
    }
    print_table(&c, files, nfiles);
    print_targets(files, nfiles);
    if (c.json_path) write_json(&c, files, nfiles);
    for (size_t i = 0; i < nfiles; i++) {
        free(files[i].data);
        free(files[i].cols);
    }
    free(g_base);
    return 0;
}
