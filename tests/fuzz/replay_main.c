/*
 * replay_main.c — runs a libFuzzer target's LLVMFuzzerTestOneInput on files,
 * without libFuzzer: the regression corpus (tests/fuzz/regressions/<target>/)
 * replays in every ctest run, with any compiler, under the sanitizers of the
 * build it is part of. Arguments are files or directories (every regular
 * file in them, in name order). A target that aborts, or a sanitizer that
 * reports, fails the test; otherwise it prints how many inputs ran.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs larger than this are not what a fuzzer writes: refuse them. */
#define REPLAY_MAX_INPUT (64u << 20)

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *grown = cap <= REPLAY_MAX_INPUT ? realloc(buf, cap) : NULL;
            if (!grown) {
                fprintf(stderr, "replay: %s is too large or memory ran out\n", path);
                free(buf);
                fclose(fp);
                return -1;
            }
            buf = grown;
        }
        size_t got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (got == 0) break;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        fprintf(stderr, "replay: error reading %s\n", path);
        free(buf);
        return -1;
    }
    /* libFuzzer hands a copy exactly `len` long; so do we (ASan sees overreads). */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of directory `dir`, in name order; -1 on an error. */
static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: cannot open directory %s\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue; /* ., .., and hidden files such as .gitkeep */
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) break;
            names = grown;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if ((names[n] = malloc(len)) == NULL) break;
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n > 1) qsort(names, n, sizeof *names, by_name);
    int ran = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (ran >= 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            int r = replay_file(names[i]);
            ran = r < 0 ? -1 : ran + r;
        }
        free(names[i]);
    }
    free(names);
    return ran;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    int total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s does not exist\n", argv[i]);
            return 1;
        }
        int r = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
        if (r < 0) return 1;
        total += r;
    }
    printf("replay: %d inputs ran without a failure\n", total);
    return 0;
}
