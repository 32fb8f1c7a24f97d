/*
 * fuzz_read.c — libFuzzer target for the whole read: the input is a Parquet
 * file in memory. A reader parses its footer, selects everything, walks the
 * pages, decodes every chunk into Arrow arrays (two threads, CRCs checked)
 * and exports every row group in batches, which are then released. The
 * first input byte picks a row range, so the offset-index path is fuzzed
 * too, and whether a filter on the first column (or its top-level group's
 * nullness) is pushed down; the input's size picks the output types and
 * whether the device executor's kernels decode (on the host, the output
 * kept "on the device" or not) and whether a deletion vector and a row
 * index apply. Nothing may crash, leak, race or read out of bounds; the exported
 * batches must keep their promises (lengths as asked, children present).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/choice.h" /* PQ_DEVICE_HOST_KERNELS */
#include "pqstep.h"

#define FUZZ_CHECK(cond, what)                                                                   \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "fuzz_read: broken promise: %s\n", what);                            \
            abort();                                                                             \
        }                                                                                        \
    } while (0)

/* Files claim sizes, the fuzzer lies: keep every allocation small. */
#define MEMORY_LIMIT (64u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t mode = data[0];
    /* Seeds are whole files: let the file start at byte 0 when mode says so,
     * so the seeds work unmodified (their first byte is 'P'). */
    const uint8_t *file = mode == 'P' ? data : data + 1;
    size_t len = mode == 'P' ? size : size - 1;

    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.memory_limit = MEMORY_LIMIT;
    opts.threads = 2;
    opts.verify_checksums = (mode & 1) != 0;
    opts.validate_utf8 = (mode & 2) != 0;
    /* The input's size picks the output types: the string type (bits 0
     * and 2: string, views, large, dictionary), decimals as decimal64 (bit
     * 1), and following a stored ARROW:schema (bit 3). */
    opts.string_type = (uint32_t)((size & 1) | ((size >> 1) & 2));
    opts.decimal_type = (size & 2) ? PQ_DECIMALS_64 : PQ_DECIMALS_128;
    opts.follow_arrow_schema = (size & 8) != 0;
    /* ... and the decode on the device executor's kernels, run on the host
     * (bit 4: decode plans, nested units, the filter's columns decoded,
     * built and evaluated there), its output kept "on the device" (bit 5:
     * the Arrow kernels, fields joined into trees). */
    if (size & 16) {
        opts.device = PQ_DEVICE_HOST_KERNELS;
        opts.device_output = (size & 32) != 0;
    }
    if (mode != 'P') {
        opts.row_offset = (mode >> 2) & 7;
        opts.row_limit = (mode >> 5) & 7;
    }
    /* Bit 6 of the size: a deletion vector (rows 1, 2 and 5, one past any
     * small file's end, unsorted with a duplicate) and a row index column,
     * so the select stage's subtraction of deleted rows and the export's
     * row numbers see fuzzed files too (not with device_output, which
     * refuses a row index). */
    static const uint64_t deleted[] = {5, 1, 2, 2, 1000000};
    if ((size & 64) && !opts.device_output) {
        opts.deleted_rows = deleted;
        opts.deleted_rows_len = sizeof deleted / sizeof deleted[0];
        opts.row_index_name = "__row";
    }
    pq_error err;
    pq_reader *r = pq_reader_open_memory(file, len, &opts, &err);
    if (!r) return 0;
    /* Every other input also reads through a filter on the first leaf, so
     * binding, every pruning step (statistics, dictionary, bloom filter,
     * page index) and late materialization see fuzzed files too. */
    if ((mode & 0x80) && pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err) == PQ_OK) {
        const pq_schema *schema = pq_metadata_schema(pq_reader_metadata(r));
        if (schema->leaves_len > 0) {
            pq_literal lit = {.kind = PQ_LIT_INT, .i = (int64_t)(mode & 7)};
            /* IS NULL on the first leaf or, when that leaf is nested, on
             * its top-level group (a struct, list or map's own nullness). */
            char top[256];
            const char *path = schema->leaves[0].path, *dot = strchr(path, '.');
            size_t n = dot ? (size_t)(dot - path) : strlen(path);
            snprintf(top, sizeof top, "%.*s", (int)(n < sizeof top ? n : sizeof top - 1), path);
            pq_expr *e = (mode & 0x40) ? pq_expr_is_null((mode & 0x08) ? top : path, (mode & 0x10) != 0, &err)
                                       : pq_expr_compare(schema->leaves[0].path, PQ_CMP_EQ, &lit, &err);
            if (e && (mode & 0x20)) e = pq_expr_or(e, pq_expr_in(schema->leaves[0].path, &lit, 1, &err), &err);
            /* A path into a shredded VARIANT (v.typed_value.a.typed_value
             * read as v.a: the residual values decoded per row; a shredded
             * list's element as v.l[0] or [1]: the element picked from each
             * row's list), and one the writer did not shred (found in each
             * row's variant), and a bounding box on a GEOMETRY or GEOGRAPHY
             * column (WKB envelopes), where the file has them. */
            for (uint32_t k = 0; e && k < schema->leaves_len; k++) {
                const char *lp = schema->leaves[k].path;
                uint8_t kind = schema->leaves[k].logical.kind;
                if ((mode & 0x04) && strstr(lp, ".typed_value")) {
                    char vp[256];
                    size_t w = 0;
                    for (const char *q = lp; *q && w < sizeof vp - 4;) {
                        if (!strncmp(q, ".typed_value", 12) && (q[12] == '.' || q[12] == '\0')) {
                            q += 12;
                        } else if (!strncmp(q, ".list.element", 13) && (q[13] == '.' || q[13] == '\0')) {
                            q += 13;
                            vp[w++] = '[';
                            vp[w++] = (mode & 0x01) ? '1' : '0';
                            vp[w++] = ']';
                        } else {
                            vp[w++] = *q++;
                        }
                    }
                    vp[w] = '\0';
                    e = pq_expr_and(e, pq_expr_compare(vp, PQ_CMP_GE, &lit, &err), &err);
                    const char *dot = strchr(vp, '.');
                    if (e && dot && (mode & 0x01)) { /* the same column, a path nobody shredded */
                        snprintf(vp + (dot - vp), sizeof vp - (size_t)(dot - vp), ".zz[1].q");
                        e = pq_expr_or(e, pq_expr_compare(vp, PQ_CMP_LT, &lit, &err), &err);
                    }
                    break;
                }
                if ((mode & 0x02) && (kind == PQ_LOGICAL_GEOMETRY || kind == PQ_LOGICAL_GEOGRAPHY)) {
                    e = pq_expr_or(e, pq_expr_bbox_intersects(lp, 0, 0, (double)(mode & 7) * 10, 40, &err), &err);
                    break;
                }
            }
            if (e) {
                pq_selection sel = {.filter = e};
                (void)pq_reader_reselect(r, &sel, &err); /* a binding error leaves the reader unfiltered */
                pq_expr_free(e);
            }
        }
    }
    if (pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK) {
        uint64_t max_rows = 1 + (mode & 15);
        for (int batches = 0; batches < 10000; batches++) {
            struct ArrowArray a;
            struct ArrowSchema s;
            if (pq_reader_next_batch(r, max_rows, &a, &s, &err) != PQ_OK) break;
            if (!a.release) {
                FUZZ_CHECK(!s.release, "end of data releases both");
                break;
            }
            FUZZ_CHECK(a.length >= 0 && (uint64_t)a.length <= max_rows, "batch length");
            FUZZ_CHECK(a.n_children == s.n_children, "one array per field");
            for (int64_t i = 0; i < a.n_children; i++)
                FUZZ_CHECK(a.children[i]->length == a.length + a.offset, "child length");
            if (opts.row_index_name && a.n_children > 0) { /* file row numbers, rising, none deleted */
                const struct ArrowArray *ix = a.children[a.n_children - 1];
                FUZZ_CHECK(strcmp(s.children[s.n_children - 1]->format, "l") == 0, "row index is int64");
                const int64_t *v = (const int64_t *)ix->buffers[1] + ix->offset;
                for (int64_t i = 0; i < a.length; i++) {
                    int64_t x = v[a.offset + i];
                    FUZZ_CHECK(x >= 0 && x != 1 && x != 2 && x != 5, "row index: a deleted row delivered");
                    FUZZ_CHECK(i == 0 || x > v[a.offset + i - 1], "row index: not rising");
                }
            }
            a.release(&a);
            s.release(&s);
        }
    }
    pq_reader_close(r);
    return 0;
}
