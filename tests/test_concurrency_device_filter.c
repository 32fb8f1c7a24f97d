/*
 * test_concurrency_device_filter.c — filtered reads with the predicate
 * kernel on the host (opts.device PQ_DEVICE_HOST_KERNELS): the filter is
 * evaluated by pq_device_filter_eval row group by row group, the row
 * groups on 1 and 4 threads (late materialization runs them in parallel).
 * Runs under TSan in scripts/test.
 *
 * Oracle: the same read on the CPU (opts.device PQ_DEVICE_CPU, the CPU
 * evaluator): the same batches, value by value (pq_test_arrays_differ). The decode stage counts
 * every selected row group as evaluated by the kernel
 * (device_filtered_groups; none left to the CPU), and the device note says
 * so; the CPU read counts none. A predicate the kernel does not cover
 * falls back to the CPU evaluator, counted and explained.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/choice.h" /* PQ_DEVICE_HOST_KERNELS */
#include "pqstep.h"
#include "test_util.h"

static pq_reader *open_filtered(const char *path, const char *text, uint32_t device, unsigned threads)
{
    pq_error err;
    pq_expr *e = pq_expr_parse(text, &err);
    ck_assert_msg(e, "%s: %s", text, err.message);
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.device = device;
    o.threads = threads;
    o.filter = e;
    pq_reader *r = pq_reader_open_path(path, &o, &err);
    pq_expr_free(e); /* the reader keeps its own copy */
    ck_assert_msg(r, "%s", err.message);
    ck_assert_msg(pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK, "%s (device %u): %s", text, device,
                  err.message);
    return r;
}

/* The two readers' batches are the same, column by column; returns the rows. */
static long same_batches(pq_reader *r, pq_reader *ref, const char *what)
{
    long rows = 0;
    pq_error err;
    for (;;) {
        struct ArrowArray a, b;
        struct ArrowSchema s;
        ck_assert_int_eq(pq_reader_next_batch(r, 5000, &a, &s, &err), PQ_OK);
        ck_assert_int_eq(pq_reader_next_batch(ref, 5000, &b, NULL, &err), PQ_OK);
        ck_assert_msg((a.release == NULL) == (b.release == NULL), "%s: batch counts differ", what);
        if (!a.release) break;
        ck_assert_int_eq(a.n_children, b.n_children);
        for (int64_t c = 0; c < a.n_children; c++) {
            char why[256];
            const char *d = pq_test_arrays_differ(a.children[c], b.children[c], s.children[c], why, sizeof why);
            if (d) ck_abort_msg("%s: %s", what, d);
        }
        rows += (long)a.length;
        a.release(&a);
        b.release(&b);
        s.release(&s);
    }
    return rows;
}

START_TEST(filtered_reads_on_host_kernels)
{
    static const struct {
        const char *text;
        long rows_at_least; /* a sanity bound: the CPU read is the oracle */
    } cases[] = {
        {"l_shipmode in ('AIR', 'RAIL') and l_quantity < 10", 1},
        {"l_returnflag = 'R' or not l_discount >= 0.05", 1},
        {"l_comment is null or l_shipdate < '1993-01-01'", 1},
        {"not (l_linestatus = 'F') and l_extendedprice > 1000.5", 1},
        {"l_orderkey >= 0", 122000}, /* every row */
        {"l_comment = 'no such comment'", 0},
    };
    unsigned threads[] = {1, 4};
    char *path = pq_test_sample_path();
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
            pq_reader *r = open_filtered(path, cases[k].text, PQ_DEVICE_HOST_KERNELS, threads[t]);
            pq_reader *ref = open_filtered(path, cases[k].text, PQ_DEVICE_CPU, threads[t]);
            pq_filter_stats d, dref;
            pq_select_stats sel;
            pq_reader_filter_stats(r, &d, sizeof d);
            pq_reader_filter_stats(ref, &dref, sizeof dref);
            pq_reader_select_stats(r, &sel, sizeof sel);
            /* Every row group the select stage kept was evaluated, each by the kernel. */
            uint64_t kept = 61 - sel.pruned_statistics - sel.pruned_dictionary - sel.pruned_bloom_filter -
                            sel.pruned_page_index;
            ck_assert_msg(d.device_filtered_groups == kept && d.cpu_filtered_groups == 0,
                          "%s: %llu row groups on the kernel, %llu on the CPU, %llu kept", cases[k].text,
                          (unsigned long long)d.device_filtered_groups, (unsigned long long)d.cpu_filtered_groups,
                          (unsigned long long)kept);
            ck_assert_msg(dref.device_filtered_groups == 0 && dref.cpu_filtered_groups == 0, "%s", cases[k].text);
            const char *note = pq_reader_device_note(r);
            char want[96];
            snprintf(want, sizeof want, "; filter: %llu row groups on the kernels, 0 on the CPU",
                     (unsigned long long)kept);
            ck_assert_msg(kept == 0 || strstr(note, want), "%s: note '%s'", cases[k].text, note);
            long rows = same_batches(r, ref, cases[k].text);
            ck_assert_msg(rows >= cases[k].rows_at_least && (cases[k].rows_at_least || rows == 0), "%s: %ld rows",
                          cases[k].text, rows);
            pq_reader_close(r);
            pq_reader_close(ref);
        }
    free(path);
}
END_TEST

/* A predicate the kernel does not cover (more nodes than
 * PQ_DFILTER_MAX_NODES) is evaluated by the CPU evaluator on every row
 * group, counted as such, with the reason in the note; the rows are the
 * CPU read's. */
START_TEST(uncovered_filter_falls_back_to_cpu)
{
    size_t cap = 64 * 1024, at = 0;
    char *text = malloc(cap);
    for (int i = 0; i < 2100; i++) /* 2 nodes per comparison, 1 per OR: past 4,096 */
        at += (size_t)snprintf(text + at, cap - at, "%sl_orderkey = %d", i ? " or " : "", i * 7);
    char *path = pq_test_sample_path();
    unsigned threads[] = {1, 4};
    for (size_t t = 0; t < 2; t++) {
        pq_reader *r = open_filtered(path, text, PQ_DEVICE_HOST_KERNELS, threads[t]);
        pq_reader *ref = open_filtered(path, text, PQ_DEVICE_CPU, threads[t]);
        pq_filter_stats d;
        pq_select_stats sel;
        pq_reader_filter_stats(r, &d, sizeof d);
        pq_reader_select_stats(r, &sel, sizeof sel);
        uint64_t kept = 61 - sel.pruned_statistics - sel.pruned_dictionary - sel.pruned_bloom_filter -
                        sel.pruned_page_index;
        ck_assert_msg(kept > 0 && d.device_filtered_groups == 0 && d.cpu_filtered_groups == kept,
                      "%llu row groups on the kernel, %llu on the CPU, %llu kept",
                      (unsigned long long)d.device_filtered_groups, (unsigned long long)d.cpu_filtered_groups,
                      (unsigned long long)kept);
        const char *note = pq_reader_device_note(r);
        ck_assert_msg(strstr(note, "on the CPU (first: device filter: a predicate of more than 4096 nodes)"),
                      "note '%s'", note);
        long rows = same_batches(r, ref, "2,100 comparisons");
        ck_assert_msg(rows > 0, "%ld rows", rows);
        pq_reader_close(r);
        pq_reader_close(ref);
    }
    free(path);
    free(text);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("device_filter_reader");
    TCase *tc = tcase_create("device_filter_reader");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, filtered_reads_on_host_kernels);
    tcase_add_test(tc, uncovered_filter_falls_back_to_cpu);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
