/*
 * fuzz_snappy.c — libFuzzer target for pages/snappy.c, checked against
 * libsnappy: the input is a snappy stream, decoded by both into a buffer of
 * the length its preamble declares (up to 1 MiB). They must agree: both
 * fail, or both succeed with the same bytes. A stream we take that
 * libsnappy refuses (or the other way round) is a broken promise, as is any
 * crash or out-of-bounds access (ASan). The stream is also read in steps
 * (pq_snappy_read_to, to a point taken from the input): each step's output
 * must be a prefix of the whole decode, and the steps together must end as
 * the whole decode does.
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
    /* In steps: to a point from the input's last bytes, then to the end. */
    pq_snappy_reader r;
    uint8_t *steps = malloc(declared ? declared : 1);
    if (!steps) abort();
    if (pq_snappy_open(&r, in, size, steps, declared, &err) == PQ_OK) {
        size_t want = size >= 2 ? ((size_t)in[size - 1] << 8 | in[size - 2]) % (declared + 1) : 0;
        pq_status s1 = pq_snappy_read_to(&r, want, &err);
        size_t got = (size_t)(r.op - r.dst);
        if (s1 == PQ_OK && (got > declared || (got < want && r.ip != r.ie)))
            broken("a step stopped before the point it was asked for", size);
        if (s1 == PQ_OK && ok && memcmp(steps, theirs, got) != 0) broken("a step's output is not the stream's prefix", size);
        pq_status s2 = s1 == PQ_OK ? pq_snappy_read_to(&r, declared, &err) : s1;
        if (s1 == PQ_OK && s2 != PQ_OK && ok) broken("a stream libsnappy takes failed in steps", size);
        if (s2 == PQ_OK && !ok) broken("a stream libsnappy refuses was taken in steps", size);
        if (s2 == PQ_OK && declared && memcmp(steps, theirs, declared) != 0)
            broken("the steps decode different bytes", size);
    } else if (st == PQ_OK) {
        broken("a stream taken whole was refused by pq_snappy_open", size);
    }
    free(steps);
    free(ours);
    free(theirs);
    free(in);
    return 0;
}
