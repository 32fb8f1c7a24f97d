/*
 * bench_util.h — what every benchmark program needs: a fatal error that
 * names the program, and a monotonic clock. Define BENCH_NAME (the
 * program's name, a string literal) before including it.
 */
#ifndef PQ_BENCH_UTIL_H
#define PQ_BENCH_UTIL_H

#include <stdarg.h>
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

#endif
