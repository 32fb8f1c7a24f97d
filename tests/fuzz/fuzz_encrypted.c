/*
 * fuzz_encrypted.c — libFuzzer target for encrypted files: the input is a
 * Parquet Modular Encryption file in memory (seeds: parquet-testing's
 * *.parquet.encrypted, whose keys are fixed below), read whole with its
 * keys: the encrypted or signed footer, encrypted column metadata, every
 * page header and page module (GCM and CTR), through two threads. The first
 * byte, when it is not the file's 'P', picks which keys are given (none,
 * the footer key alone, all) and a filter on the first column. Nothing may
 * crash, leak or read out of bounds; a module that does not authenticate
 * must fail the read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"

#define MEMORY_LIMIT (64u << 20)

static const pq_column_key column_keys[] = {
    {"double_field", (const uint8_t *)"1234567890123450", 16},
    {"float_field", (const uint8_t *)"1234567890123451", 16},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t mode = data[0];
    const uint8_t *file = mode == 'P' ? data : data + 1;
    size_t len = mode == 'P' ? size : size - 1;

    pq_decryption keys;
    pq_decryption_init(&keys);
    unsigned which = mode == 'P' ? 2 : mode % 3; /* 0: none, 1: footer key, 2: all */
    if (which >= 1) {
        keys.footer_key = (const uint8_t *)"0123456789012345";
        keys.footer_key_len = 16;
        keys.aad_prefix = (const uint8_t *)"tester";
        keys.aad_prefix_len = 6;
    }
    if (which == 2) {
        keys.column_keys = column_keys;
        keys.column_keys_len = 2;
    }
    pq_reader_options opts;
    pq_reader_options_init(&opts);
    opts.memory_limit = MEMORY_LIMIT;
    opts.threads = 2;
    opts.int96_unit = PQ_UNIT_SECONDS;
    opts.decryption = &keys;
    pq_error err;
    pq_reader *r = pq_reader_open_memory(file, len, &opts, &err);
    if (!r) return 0;
    if (mode != 'P' && (mode & 0x80) && pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err) == PQ_OK) {
        const pq_schema *schema = pq_metadata_schema(pq_reader_metadata(r));
        if (schema->leaves_len > 0) {
            pq_literal lit = {.kind = PQ_LIT_INT, .i = (int64_t)(mode & 7)};
            pq_expr *e = pq_expr_compare(schema->leaves[0].path, PQ_CMP_GE, &lit, &err);
            if (e) {
                pq_selection sel = {.filter = e};
                (void)pq_reader_reselect(r, &sel, &err);
                pq_expr_free(e);
            }
        }
    }
    if (pq_reader_advance_to(r, PQ_STAGE_DECODE, &err) == PQ_OK) {
        for (int batches = 0; batches < 10000; batches++) {
            struct ArrowArray a;
            struct ArrowSchema s;
            if (pq_reader_next_batch(r, 17, &a, &s, &err) != PQ_OK) break;
            if (!a.release) break;
            a.release(&a);
            s.release(&s);
        }
    }
    pq_reader_close(r);
    return 0;
}
