/*
 * bench_util.h — what every benchmark program needs: a fatal error that
 * names the program, a monotonic clock, and the parsing of a number
 * argument. Define BENCH_NAME (the
 * program's name, a string literal) before including it.
 */
#ifndef PQ_BENCH_UTIL_H
#define PQ_BENCH_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Print "BENCH_NAME: <message>" to stderr and exit 1. */
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(BENCH_NAME ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* Seconds on the monotonic clock. */
static inline __attribute__((unused)) double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* qsort's comparison for doubles, ascending. */
static inline __attribute__((unused)) int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A decimal integer in 0..max, the whole string (no sign, no spaces). */
static inline __attribute__((unused)) bool parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v > max) return false;
    *out = v;
    return true;
}

#endif
