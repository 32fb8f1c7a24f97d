/*
 * fuzz_snappy.c — libFuzzer target for pages/snappy.c, checked against
 * libsnappy: the input is a snappy stream, decoded by both into a buffer of
 * the length its preamble declares (up to 1 MiB). They must agree: both
 * fail, or both succeed with the same bytes. A stream we take that
 * libsnappy refuses (or the other way round) is a broken promise, as is any
 * crash or out-of-bounds access (ASan).
 */
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages/snappy.h"

#define MAX_OUT (1u << 20)

static void broken(const char *what, size_t size)
{
    fprintf(stderr, "fuzz_snappy: %s (input of %zu bytes)\n", what, size);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t declared = 0;
    if (snappy_uncompressed_length((const char *)data, size, &declared) != SNAPPY_OK) {
        /* libsnappy cannot read the preamble: neither may we, at any size. */
        uint8_t one[1];
        pq_error err;
        if (pq_snappy_decompress(size ? data : NULL, size, one, 0, &err) == PQ_OK)
            broken("a preamble libsnappy refuses was taken", size);
        return 0;
    }
    if (declared > MAX_OUT) return 0;
    /* Exact-size buffers, so that ASan sees any write past the end. */
    uint8_t *ours = malloc(declared ? declared : 1), *theirs = malloc(declared ? declared : 1);
    uint8_t *in = malloc(size ? size : 1);
    if (!ours || !theirs || !in) abort();
    if (size) memcpy(in, data, size);
    pq_error err;
    pq_status st = pq_snappy_decompress(in, size, ours, declared, &err);
    size_t n = declared;
    int ok = snappy_uncompress((const char *)in, size, (char *)theirs, &n) == SNAPPY_OK && n == declared;
    if ((st == PQ_OK) != ok) {
        fprintf(stderr, "pqstep: %s; libsnappy: %s\n", st == PQ_OK ? "ok" : err.message, ok ? "ok" : "refused");
        broken("pqstep and libsnappy disagree on whether the stream is valid", size);
    }
    if (st == PQ_OK && declared && memcmp(ours, theirs, declared) != 0)
        broken("pqstep and libsnappy decode different bytes", size);
    if (st != PQ_OK && (err.code != PQ_ERR_CORRUPT_DATA || !err.message[0])) broken("an error without its message", size);
    free(ours);
    free(theirs);
    free(in);
    return 0;
}
