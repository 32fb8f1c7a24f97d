/*
 * snappy.h — the raw snappy format (what Parquet's SNAPPY codec stores),
 * decoded into a buffer of exactly the size the page header gives.
 *
 * Why not libsnappy: Debian's build of it (1.1.9, generic x86-64) calls
 * memmove through the PLT for every literal and copy element, which made
 * decompression most of a filtered TPC-H read; this decoder copies short
 * elements with fixed 8- and 16-byte moves while the output has room for
 * them, and exact byte moves near the end. libsnappy stays the tests'
 * oracle (tests/test_codecs.c compares both on every input it tries).
 *
 * Format, as the snappy format description gives it: a varint preamble (at
 * most 5 bytes, at most 2^32 - 1) holding the uncompressed length, then
 * elements, each a tag byte whose low 2 bits say its kind:
 *   00 literal: length - 1 in the upper 6 bits, or for 60..63 in the next
 *      1..4 bytes (little endian); then that many bytes, copied out;
 *   01 copy: length 4 + bits 2..4 (4..11), offset bits 5..7 then one byte;
 *   10 copy: length 1 + the upper 6 bits (1..64), offset in 2 bytes (LE);
 *   11 copy: as 10 with a 4-byte offset.
 * A copy repeats `length` bytes from `offset` bytes back in the output
 * (overlapping when offset < length: a repeated pattern).
 *
 * Untrusted input: nothing is read past src + src_len or written past
 * dst + dst_len; every failure is PQ_ERR_CORRUPT_DATA with a message that
 * says what is wrong and where ("SNAPPY: copy at output byte 100 reaches
 * 200 bytes back"), never a crash.
 */
#ifndef PQ_PAGES_SNAPPY_H
#define PQ_PAGES_SNAPPY_H

#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

/* Decode the snappy stream [src, src + src_len) into dst, which holds
 * exactly dst_len bytes: the preamble must declare dst_len and the elements
 * must produce exactly that many bytes. src may be NULL only when src_len is
 * 0 (and dst likewise). On failure dst's contents are unspecified.
 * Thread-safe: no state. */
pq_status pq_snappy_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, pq_error *err);

/* A stream decoded a part at a time: pq_snappy_open checks the preamble
 * (it must declare dst_len), then each pq_snappy_read_to decodes elements
 * until at least `want` bytes of dst are out (ending at an element's end,
 * so up to 64 bytes more, never past dst_len) or the stream ends; what is
 * out so far is [dst, op). A reader of a page's first values stops early
 * and leaves the rest undecoded (and unchecked). Reading to dst_len decodes
 * the whole stream, which must then produce exactly dst_len bytes. The
 * same bounds and errors as pq_snappy_decompress; after an error, stop. */
typedef struct pq_snappy_reader {
    const uint8_t *src, *ip, *ie;
    uint8_t *dst, *op, *oe;
} pq_snappy_reader;

pq_status pq_snappy_open(pq_snappy_reader *r, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                         pq_error *err);
pq_status pq_snappy_read_to(pq_snappy_reader *r, size_t want, pq_error *err);

/* Two streams decoded at once, each exactly as pq_snappy_decompress
 * decodes src[i] into dst[i]: an element of each in turn. Within one
 * stream each element's place waits on the element before it (its tag
 * says how far the next one is), so a stream alone keeps the CPU waiting
 * on that chain; two keep it busy with both (1.3-1.5 times the bytes a
 * second on TPC-H pages of similar sizes). On failure the status and
 * message are one stream's, not saying which: decode each alone to learn
 * that. The buffers must not overlap. */
pq_status pq_snappy_decompress_two(const uint8_t *const src[2], const size_t src_len[2], uint8_t *const dst[2],
                                   const size_t dst_len[2], pq_error *err);

/* Where the `dst_len` decompressed bytes of a SNAPPY page already lie in
 * its stored bytes, or NULL: a stream that is one literal element holding
 * all of them (what snappy writes for an incompressible page of up to
 * 64 KiB, such as bit-packed dictionary indices), so that its output equals
 * [result, result + dst_len) and no copy is needed. The preamble must say
 * dst_len and the literal end exactly at src + src_len; anything else (any
 * copy element, a second literal, trailing bytes, a truncated header) is
 * NULL, and pq_decompress decides. */
const uint8_t *pq_snappy_stored_literal(const uint8_t *src, size_t src_len, size_t dst_len);

#endif
