/*
 * test_file_map.c — mappings kept for the next reader of a file
 * (reader/file_map.c) and the public knobs pq_file_maps_set_limit /
 * pq_file_maps_idle.
 *
 * Oracle: the bytes the test wrote to each file, hand-counted
 * bookkeeping (which mappings are idle after which calls), and the
 * kernel's count of a mapping's resident bytes (/proc/self/smaps) for the
 * pages a read is done with (pq_file_source_done_with). Reader-level
 * reads through kept mappings are checked in test_reader.c.
 */
#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pqstep.h"
#include "reader/file_map.h"
#include "reader/source.h"
#include "test_util.h"

enum { SIZE = 3 * 4096 + 17 };

/* A temporary file of SIZE bytes of `seed`'s pattern; its path in path. */
static void make_file(char *path, size_t cap, int seed)
{
    snprintf(path, cap, "/tmp/pqstep-mapXXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    uint8_t buf[SIZE];
    for (size_t i = 0; i < SIZE; i++) buf[i] = (uint8_t)(i * 31 + (size_t)seed);
    ck_assert_int_eq(write(fd, buf, SIZE), SIZE);
    close(fd);
}

static void assert_pattern(const uint8_t *m, int seed)
{
    ck_assert_ptr_nonnull(m);
    for (size_t i = 0; i < SIZE; i++)
        ck_assert_msg(m[i] == (uint8_t)(i * 31 + (size_t)seed), "byte %zu", i);
}

static void fresh(void)
{
    pq_file_maps_set_limit(0);
    pq_file_maps_set_limit(PQ_FILE_MAPS_DEFAULT);
    pq_file_map_set_idle_ns(PQ_FILE_MAP_IDLE_NS);
    ck_assert_uint_eq(pq_file_maps_idle(), 0);
}

START_TEST(a_released_map_serves_the_next_open)
{
    fresh();
    char path[64];
    make_file(path, sizeof path, 1);
    int fd1 = open(path, O_RDONLY), fd2 = open(path, O_RDONLY);
    pq_file_map *e1, *e2, *e3;
    const uint8_t *m1 = pq_file_map_acquire(fd1, SIZE, &e1);
    assert_pattern(m1, 1);
    ck_assert_ptr_nonnull(e1);
    /* a second holder at once shares it; nothing is idle while held */
    const uint8_t *m2 = pq_file_map_acquire(fd2, SIZE, &e2);
    ck_assert_ptr_eq(m2, m1);
    ck_assert_ptr_eq(e2, e1);
    ck_assert_uint_eq(pq_file_maps_idle(), 0);
    pq_file_map_release(e1, m1, SIZE);
    ck_assert_uint_eq(pq_file_maps_idle(), 0);
    pq_file_map_release(e2, m2, SIZE);
    ck_assert_uint_eq(pq_file_maps_idle(), 1);
    close(fd1);
    close(fd2);
    /* a later open of the file (a new descriptor) takes the kept one */
    int fd3 = open(path, O_RDONLY);
    const uint8_t *m3 = pq_file_map_acquire(fd3, SIZE, &e3);
    ck_assert_ptr_eq(m3, m1);
    assert_pattern(m3, 1);
    ck_assert_uint_eq(pq_file_maps_idle(), 0);
    pq_file_map_release(e3, m3, SIZE);
    close(fd3);
    unlink(path);
    fresh();
}
END_TEST

START_TEST(a_wrong_size_is_refused)
{
    fresh();
    char path[64];
    make_file(path, sizeof path, 2);
    int fd = open(path, O_RDONLY);
    pq_file_map *e = (pq_file_map *)1;
    ck_assert_ptr_null(pq_file_map_acquire(fd, SIZE - 1, &e)); /* the file is not that size now */
    ck_assert_ptr_null(e);
    ck_assert_ptr_null(pq_file_map_acquire(fd, 0, &e));
    ck_assert_ptr_null(pq_file_map_acquire(-1, SIZE, &e));
    pq_file_map_release(NULL, NULL, SIZE); /* nothing to release */
    ck_assert_uint_eq(pq_file_maps_idle(), 0);
    close(fd);
    unlink(path);
}
END_TEST

/* A file rewritten in place with another size: the kept map of its old
 * identity is not handed out, and goes. */
START_TEST(a_changed_file_gets_a_fresh_map)
{
    fresh();
    char path[64];
    make_file(path, sizeof path, 3);
    int fd = open(path, O_RDONLY);
    pq_file_map *e;
    const uint8_t *m = pq_file_map_acquire(fd, SIZE, &e);
    assert_pattern(m, 3);
    pq_file_map_release(e, m, SIZE);
    close(fd);
    ck_assert_uint_eq(pq_file_maps_idle(), 1);
    /* longer by a page, new bytes */
    int w = open(path, O_WRONLY | O_TRUNC);
    uint8_t buf[SIZE + 4096];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 31 + 4);
    ck_assert_int_eq(write(w, buf, sizeof buf), (ssize_t)sizeof buf);
    close(w);
    fd = open(path, O_RDONLY);
    const uint8_t *m2 = pq_file_map_acquire(fd, sizeof buf, &e);
    ck_assert_ptr_nonnull(m2);
    ck_assert_int_eq(memcmp(m2, buf, sizeof buf), 0);
    ck_assert_uint_eq(pq_file_maps_idle(), 0); /* the old identity's map went */
    pq_file_map_release(e, m2, sizeof buf);
    ck_assert_uint_eq(pq_file_maps_idle(), 1);
    close(fd);
    unlink(path);
    fresh();
}
END_TEST

START_TEST(the_limit_and_the_idle_time_hold)
{
    fresh();
    enum { N = 4 };
    char paths[N][64];
    for (int i = 0; i < N; i++) make_file(paths[i], sizeof paths[i], 10 + i);
    pq_file_maps_set_limit(2);
    for (int i = 0; i < N; i++) {
        int fd = open(paths[i], O_RDONLY);
        pq_file_map *e;
        const uint8_t *m = pq_file_map_acquire(fd, SIZE, &e);
        assert_pattern(m, 10 + i);
        pq_file_map_release(e, m, SIZE);
        close(fd);
        ck_assert_uint_eq(pq_file_maps_idle(), i + 1 < 2 ? (unsigned)(i + 1) : 2u);
    }
    /* the last two are the ones kept: taking the last leaves one idle */
    {
        int fd = open(paths[N - 1], O_RDONLY);
        pq_file_map *e;
        const uint8_t *m = pq_file_map_acquire(fd, SIZE, &e);
        ck_assert_uint_eq(pq_file_maps_idle(), 1); /* it was kept: now held */
        pq_file_map_release(e, m, SIZE);
        close(fd);
    }
    /* limit 0: nothing kept, each holder's own map */
    pq_file_maps_set_limit(0);
    ck_assert_uint_eq(pq_file_maps_idle(), 0);
    {
        int fd = open(paths[0], O_RDONLY);
        pq_file_map *e = (pq_file_map *)1;
        const uint8_t *m = pq_file_map_acquire(fd, SIZE, &e);
        assert_pattern(m, 10);
        ck_assert_ptr_null(e);
        pq_file_map_release(e, m, SIZE);
        ck_assert_uint_eq(pq_file_maps_idle(), 0);
        close(fd);
    }
    /* an idle time of 0: a map goes as its last holder releases it */
    pq_file_maps_set_limit(PQ_FILE_MAPS_DEFAULT);
    pq_file_map_set_idle_ns(0);
    {
        int fd = open(paths[1], O_RDONLY);
        pq_file_map *e;
        const uint8_t *m = pq_file_map_acquire(fd, SIZE, &e);
        ck_assert_ptr_nonnull(e);
        pq_file_map_release(e, m, SIZE);
        ck_assert_uint_eq(pq_file_maps_idle(), 0);
        close(fd);
    }
    for (int i = 0; i < N; i++) unlink(paths[i]);
    fresh();
}
END_TEST

/* Resident bytes of the mapping that starts at `start`, from
 * /proc/self/smaps (its "Rss:" line), or -1 when there is none. */
static long resident_bytes(const void *start)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    bool ours = false;
    long rss = -1;
    unsigned long lo, hi;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            ours = lo == (unsigned long)(uintptr_t)start;
        } else if (ours && strncmp(line, "Rss:", 4) == 0) {
            rss = atol(line + 4) * 1024;
            break;
        }
    }
    fclose(f);
    return rss;
}

/* The whole pages inside a range leave the process' memory, the partial
 * ones at its ends stay, and every byte reads as written afterwards; the
 * size threshold, ranges outside the map and a source without one change
 * nothing. */
START_TEST(pages_a_read_is_done_with_leave_memory)
{
    fresh();
    long page = sysconf(_SC_PAGESIZE);
    ck_assert_int_eq(page, 4096); /* SIZE is four pages of 4 KiB, the last partial */
    char path[64];
    make_file(path, sizeof path, 7);
    pq_file_source fs;
    pq_error err;
    pq_file_source_init(&fs);
    ck_assert_int_eq(pq_file_source_open(&fs, path, &err), PQ_OK);
    const uint8_t *m = pq_file_source_map(&fs);
    assert_pattern(m, 7);
    ck_assert_int_eq(resident_bytes(m), 4 * page);
    /* below the size threshold: kept */
    pq_file_source_done_with(&fs, m, SIZE);
    ck_assert_int_eq(resident_bytes(m), 4 * page);
    pq_file_source_set_drop_min(0);
    /* pages 1 and 2 lie wholly inside [1, 3 * page); page 0 only partly */
    pq_file_source_done_with(&fs, m + 1, 3 * (size_t)page - 1);
    ck_assert_int_eq(resident_bytes(m), 2 * page);
    /* outside the map, NULL, an empty range: nothing happens */
    uint8_t other[16];
    pq_file_source_done_with(&fs, other, sizeof other);
    pq_file_source_done_with(&fs, NULL, SIZE);
    pq_file_source_done_with(&fs, m + page, 0);
    ck_assert_int_eq(resident_bytes(m), 2 * page);
    assert_pattern(m, 7); /* mapped again as read */
    ck_assert_int_eq(resident_bytes(m), 4 * page);
    /* a range past the end is cut at it: every page from the second goes,
     * the partial last one too (no neighbour shares the file's end) */
    pq_file_source_done_with(&fs, m + page, 100 * (size_t)page);
    ck_assert_int_eq(resident_bytes(m), page);
    assert_pattern(m, 7);
    pq_file_source_set_drop_min(PQ_DROP_PAGES_MIN_FILE);
    pq_file_source_close(&fs);
    pq_file_source fs2;
    pq_file_source_init(&fs2);
    pq_file_source_done_with(&fs2, m, SIZE); /* no map: nothing */
    unlink(path);
    fresh();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("file maps");
    TCase *tc = tcase_create("kept mappings");
    tcase_add_test(tc, a_released_map_serves_the_next_open);
    tcase_add_test(tc, a_wrong_size_is_refused);
    tcase_add_test(tc, a_changed_file_gets_a_fresh_map);
    tcase_add_test(tc, the_limit_and_the_idle_time_hold);
    tcase_add_test(tc, pages_a_read_is_done_with_leave_memory);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
