/*
 * fuzz_predicate.c — libFuzzer target for the predicate parser: the input is
 * predicate text (pq_predicate.h). Parsing must end in an expression or a
 * clean error; an expression must format to text that parses again and
 * formats the same (the round trip the CLI and the binding rely on), and
 * its clone must format the same too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"

#define FUZZ_CHECK(cond, what)                                                                   \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "fuzz_predicate: broken promise: %s\n", what);                       \
            abort();                                                                             \
        }                                                                                        \
    } while (0)

static char *format(const pq_expr *e)
{
    size_t n = pq_expr_format(e, NULL, 0);
    char *s = malloc(n + 1);
    FUZZ_CHECK(s, "out of memory");
    FUZZ_CHECK(pq_expr_format(e, s, n + 1) == n, "format length is stable");
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    pq_error err;
    pq_expr *e = pq_expr_parse(text, &err);
    if (e) {
        char *a = format(e);
        pq_expr *again = pq_expr_parse(a, &err);
        FUZZ_CHECK(again, "formatted text parses");
        char *b = format(again);
        FUZZ_CHECK(strcmp(a, b) == 0, "format(parse(format(e))) == format(e)");
        pq_expr *copy = pq_expr_clone(e, &err);
        FUZZ_CHECK(copy, "clone");
        char *c = format(copy);
        FUZZ_CHECK(strcmp(a, c) == 0, "a clone formats the same");
        free(a);
        free(b);
        free(c);
        pq_expr_free(again);
        pq_expr_free(copy);
        pq_expr_free(e);
    } else {
        FUZZ_CHECK(err.code != PQ_OK && err.message[0], "a failed parse says why");
    }
    free(text);
    return 0;
}
