/*
 * test_concurrency_parallel.c — reader/parallel.c, the pool the stages run
 * on: helper threads started once and reused across calls, a call that
 * finds them busy running threads of its own, a forked child starting its
 * own. Each check counts by hand: every task runs exactly once, worker ids
 * stay below the thread count and are never shared by two tasks running at
 * once, a failing task stops the tasks after it (not those before).
 * Run under TSan by scripts/test.
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reader/parallel.h"

#define TASKS 2000

typedef struct job {
    atomic_int runs[TASKS];
    atomic_int in_worker[PQ_PARALLEL_MAX_THREADS]; /* tasks running per worker id now */
    atomic_int bad_worker;
    unsigned threads;
    size_t fail_at; /* SIZE_MAX: none */
} job;

static bool task(void *ctx, size_t i, unsigned worker)
{
    job *j = ctx;
    if (worker >= j->threads || worker >= PQ_PARALLEL_MAX_THREADS) {
        atomic_fetch_add(&j->bad_worker, 1);
        return true;
    }
    if (atomic_fetch_add(&j->in_worker[worker], 1) != 0) atomic_fetch_add(&j->bad_worker, 1);
    atomic_fetch_add(&j->runs[i], 1);
    for (volatile int spin = 0; spin < 50; spin++) {
    }
    atomic_fetch_sub(&j->in_worker[worker], 1);
    return i != j->fail_at;
}

static void run_and_check(unsigned threads, size_t n, size_t fail_at)
{
    job *j = calloc(1, sizeof *j);
    ck_assert_ptr_nonnull(j);
    j->threads = threads ? threads : pq_parallel_cores();
    if (j->threads > n) j->threads = (unsigned)n;
    j->fail_at = fail_at;
    unsigned used = pq_parallel_for(n, threads, task, j);
    ck_assert_uint_ge(used, 1);
    ck_assert_uint_le(used, j->threads ? j->threads : 1);
    ck_assert_int_eq(atomic_load(&j->bad_worker), 0);
    for (size_t i = 0; i < n; i++) {
        int r = atomic_load(&j->runs[i]);
        if (fail_at == SIZE_MAX || i <= fail_at) ck_assert_msg(r == 1, "task %zu ran %d times", i, r);
        else ck_assert_msg(r <= 1, "task %zu ran %d times", i, r);
    }
    free(j);
}

START_TEST(every_task_once_on_reused_helpers)
{
    /* many calls in a row: the helpers are reused, whatever each call asks */
    for (int round = 0; round < 200; round++) {
        unsigned threads = (unsigned)(round % 5); /* 0 (one per core) .. 4 */
        run_and_check(threads, (size_t)(1 + round * 7 % TASKS), SIZE_MAX);
    }
    run_and_check(3, TASKS, 100); /* a failure stops the tasks after it */
    run_and_check(2, 1, SIZE_MAX);
    ck_assert_uint_eq(pq_parallel_for(0, 4, task, NULL), 0);
}
END_TEST

static void *caller(void *arg)
{
    (void)arg;
    for (int round = 0; round < 50; round++) run_and_check(2 + (unsigned)(round % 3), TASKS / 4, SIZE_MAX);
    return NULL;
}

START_TEST(concurrent_calls_share_or_run_their_own)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, caller, NULL), 0);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
}
END_TEST

/* TSan cannot start threads in a child forked from a process with threads
 * ("not supported"): the Release and ASan builds run this case. */
#if defined(__SANITIZE_THREAD__)
#define PQ_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PQ_TEST_TSAN 1
#endif
#endif

START_TEST(a_forked_child_starts_its_own)
{
#ifdef PQ_TEST_TSAN
    fprintf(stderr, "note: fork case not run under TSan (it cannot start threads after a multi-threaded fork)\n");
    return;
#endif
    run_and_check(4, TASKS, SIZE_MAX); /* helpers exist in the parent */
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        job *j = calloc(1, sizeof *j);
        if (!j) _exit(3);
        j->threads = 4;
        j->fail_at = SIZE_MAX;
        pq_parallel_for(TASKS, 4, task, j);
        int ok = atomic_load(&j->bad_worker) == 0;
        for (size_t i = 0; i < TASKS; i++) ok = ok && atomic_load(&j->runs[i]) == 1;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("parallel");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, every_task_once_on_reused_helpers);
    tcase_add_test(tc, concurrent_calls_share_or_run_their_own);
    tcase_add_test(tc, a_forked_child_starts_its_own);
    tcase_set_timeout(tc, 0); /* no time limit */
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
