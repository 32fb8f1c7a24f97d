/*
 * page_values_internal.h — what page_values.c shares with the CPU executor
 * (cpu_exec.c) only: the state of a task that decodes one page (cd_ctx) and
 * of the chunk the page belongs to (cd_chunk), the errors and memory helpers
 * both use, and the steps the executor runs a page through.
 */
#ifndef PQ_PAGES_PAGE_VALUES_INTERNAL_H
#define PQ_PAGES_PAGE_VALUES_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/primitives.h"
#include "kernels/rle.h"
#include "pages/buffer_pool.h"
#include "pages/codec.h"
#include "pages/decode_plan.h"
#include "pages/page_values.h"
#include "pq_error.h"
#include "pq_metadata.h"
#include "pq_pages.h"

/* Values decoded per step when a kernel hands them out through a scratch
 * array (levels, dictionary indices, RLE booleans). A multiple of 8, so that
 * BIT_PACKED level batches end on a byte boundary. */
#define BATCH 1024

/* What the pages of one chunk share while it is executed: the dictionary
 * (decoded once, then only read), the chunk's output arrays (each page
 * writes its own slice of them) and the memory the chunk's decode holds. */
typedef struct cd_chunk {
    const pq_plan_chunk *pc;
    pq_column_values *out;   /* the chunk's arrays, allocated once at their exact size */
    _Atomic uint64_t held;   /* bytes allocated now by the chunk's pages (capacities) */

    bool have_dict;
    size_t dict_n;
    size_t dict_max_len;     /* BYTE_ARRAY: the longest entry */
    uint8_t *dict_values;    /* fixed width: dict_n * width */
    size_t dict_values_cap;
    uint8_t *dict_wide;      /* decimal128 output from a small dictionary: its entries
                              * widened once (16 bytes each), gathered as they are */
    size_t dict_wide_cap;
    int32_t *dict_offsets;   /* BYTE_ARRAY: dict_n + 1 */
    size_t dict_offsets_cap;
    uint8_t *dict_data;
    size_t dict_data_cap;
    uint8_t *dict_views;     /* views: a view per dictionary entry (buffer 1) */
    size_t dict_views_cap;

    /* A late dictionary (late_dictionary): the data pages' selected indices
     * are collected first, and the dictionary page is decompressed only as
     * far as the largest of them needs. */
    bool late;
    size_t late_total;       /* the dictionary page's entries, from its header */
    size_t late_need;        /* entries the selected rows reach (largest index + 1); 0: none */

    _Atomic bool defs_stored; /* a page stored its definition levels (see cd_ctx.defs_lazy) */
} cd_chunk;

/* Dictionary indices a page keeps instead of gathering them: a late
 * dictionary's page collects its selected rows' indices (collect_indices)
 * for the gather once the dictionary is decoded. */
typedef struct cd_indices {
    uint32_t *idx;           /* nidx of them, in idx_cap bytes */
    size_t nidx, idx_cap;
    size_t need;             /* the largest index + 1 (0: none) */
} cd_indices;

/* One task's state: a dictionary page, or a data page decoded into its
 * place or into buffers of its own (page_mode, see cpu_exec.c). */
typedef struct cd_ctx {
    const pq_leaf *leaf;
    int32_t codec;
    uint64_t limit;          /* 0: none */
    cd_chunk *ch;
    pq_error *err;
    pq_codec_ctx *cctx;      /* the caller's, or own_cctx */
    pq_codec_ctx own_cctx;

    size_t page;             /* the page being decoded, for messages */
    const pq_page_info *pi;

    size_t width;            /* output bytes per value; 0 for BYTE_ARRAY */
    size_t stored_width;     /* the page's bytes per value: width, but 4 or 8 when decimal128 */
    bool decimal128;         /* PQ_PLAN_CHUNK_DECIMAL128: INT32/INT64 sign-extended to 16 bytes */

    uint8_t *buf;            /* decompressed page */
    size_t buf_cap;
    const uint8_t *ready_src; /* ready_into already holds the ready_len bytes these stored
                              * bytes decompress to (pq_page_decompress_two): the page's
                              * pq_page_decompress (into buf) or pq_page_plain_in_place (into
                              * its place) of them takes them as they are */
    size_t ready_len;
    uint8_t *ready_into;
    uint8_t *crypt;          /* an encrypted chunk's page, decrypted (cpu_exec.c's page_bytes) */
    size_t crypt_cap;

    /* Definition levels of a leaf without repetition are stored only for
     * pages that have a null: a page whose levels are one run of max_def
     * stores none (page_defs stays false), which saves two bytes per value
     * of most columns; the chunk fills such pages in afterwards when any
     * other page stored its levels. */
    bool defs_lazy;
    bool page_defs;          /* this page's definition levels are stored */
    int16_t *def_levels;     /* the chunk's level arrays (slots from 0) */
    int16_t *rep_levels;

    pq_column_values *out;   /* where values go: the chunk's arrays seen from the page's first
                              * value (direct), or the page's own (staged) */
    bool direct;             /* out is the chunk's: its room is exact, never grown */
    bool room_from_stats;    /* ... and its string room may come from SizeStatistics (messages) */
    size_t values_cap;       /* bytes */
    size_t offsets_cap;      /* bytes */
    size_t data_cap;         /* bytes */
    bool views;              /* PQ_DECODE_STRING_VIEWS on a BYTE_ARRAY leaf */
    bool indices;            /* PQ_DECODE_INDICES: the indices are the values */
    size_t views_cap;        /* bytes */
    const pq_decode_rows *rows; /* selection-vector decode: the rows wanted, or NULL: all */
    /* A selection of an optional flat leaf whose pages may hold nulls
     * (rows_nulls): a page with a null stores its selected rows' levels
     * (slots count selected rows) and carries the selection over to its
     * values, page_vsel set: bit v of vsel for its non-null value v whose
     * row is selected, sel_nn non-null values in the page. */
    bool rows_nulls;
    bool page_vsel;
    uint64_t *vsel;
    size_t vsel_cap;         /* bytes */
    size_t sel_nn;
    size_t page_row;         /* the chunk row the page being decoded starts at */
    cd_indices *collect;     /* a late dictionary's page: its selected indices go here
                              * instead of being gathered (collect_indices) */
} cd_ctx;

/* Selection-vector decode: whether chunk row `row` is wanted. */
static inline bool row_wanted(const cd_ctx *c, uint64_t row)
{
    const pq_decode_rows *s = c->rows;
    uint64_t i = row - s->first;
    return row >= s->first && i < s->count && ((s->keep[i >> 3] >> (i & 7)) & 1);
}

/* Bits [base, base + 64) of the selection (base a multiple of 64); bits
 * at or past its count are 0. */
static inline uint64_t keep_word(const pq_decode_rows *s, uint64_t base)
{
    if (base >= s->count) return 0;
    uint64_t word = 0, bytes = (s->count + 7) / 8;
    if (base / 8 + 8 <= bytes) { /* the common case: one load */
        for (int b = 0; b < 8; b++) word |= (uint64_t)s->keep[base / 8 + (uint64_t)b] << (8 * b);
    } else {
        for (uint64_t b = 0; b < 8 && base / 8 + b < bytes; b++) word |= (uint64_t)s->keep[base / 8 + b] << (8 * b);
    }
    if (s->count - base < 64) word &= (1ull << (s->count - base)) - 1;
    return word;
}

/* Bits of chunk rows [row, row + 64) of the selection, bit j for row + j
 * (0 for rows outside it), at any row: not only multiples of 64. */
static inline uint64_t sel_bits(const pq_decode_rows *s, uint64_t row)
{
    uint64_t lo = s->first;
    if (row < lo) {
        if (lo - row >= 64) return 0;
        return keep_word(s, 0) << (lo - row);
    }
    uint64_t i = row - lo, base = i & ~63ull, sh = i - base;
    if (base >= s->count) return 0;
    uint64_t w = keep_word(s, base) >> sh;
    if (sh) w |= keep_word(s, base + 64) << (64 - sh);
    return w;
}

/* Buffers views point into (pq_column_values.view_bufs). */
#define VIEW_BUF_DATA 0
#define VIEW_BUF_DICT 1

static inline bool is_dict_page(const pq_page_info *pi)
{
    return pi->encoding == PQ_ENC_PLAIN_DICTIONARY || pi->encoding == PQ_ENC_RLE_DICTIONARY;
}

/* ---------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline pq_status fail(cd_ctx *c, pq_status code, const char *fmt, ...)
{
    if (!c->err) return code;
    char *m = c->err->message;
    size_t cap = sizeof c->err->message;
    int k = 0;
    c->err->code = code;
    if (c->pi) {
        /* The name functions may share one buffer for unknown values: copy. */
        char type[32], enc[32];
        snprintf(type, sizeof type, "%s", pq_page_type_name(c->pi->type));
        snprintf(enc, sizeof enc, "%s", pq_encoding_name(c->pi->encoding));
        k = snprintf(m, cap, "page %zu (%s, %s): ", c->page, type, enc);
        if (k < 0 || (size_t)k >= cap) return code;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m + k, cap - (size_t)k, fmt, ap);
    va_end(ap);
    return code;
}

/* A kernel's error, with the page named. */
static inline pq_status kfail(cd_ctx *c, pq_status code, const pq_error *kerr)
{
    return fail(c, code, "%s", kerr->message);
}

/* ---------------------------------------------------------------------------
 * Memory
 * ------------------------------------------------------------------------- */

/* Grows *p (*cap bytes) to at least `need` bytes: doubling, but never past
 * the memory limit, which counts every buffer the decode holds. */
static inline pq_status grow(cd_ctx *c, void **p, size_t *cap, size_t need, const char *what)
{
    if (need <= *cap) return PQ_OK;
    size_t want = need;
    if (*cap <= SIZE_MAX / 2 && *cap * 2 > want) want = *cap * 2;
    want = pq_pool_round(want);
    /* The chunk's pages may run at once: take the room from the shared
     * count first, so that together they stay within the limit. */
    uint64_t cur = atomic_load(&c->ch->held), others;
    for (;;) {
        others = cur - *cap;
        size_t w = want;
        if (c->limit) {
            if (need > c->limit || others > c->limit - need)
                return fail(c, PQ_ERR_MEMORY_LIMIT,
                            "%s: %zu bytes (with %llu held) exceed the memory limit of %llu", what, need,
                            (unsigned long long)others, (unsigned long long)c->limit);
            if (w > c->limit - others) w = (size_t)(c->limit - others);
        }
        if (atomic_compare_exchange_weak(&c->ch->held, &cur, others + w)) {
            want = w;
            break;
        }
    }
    /* A kept block that fits (pages/buffer_pool.h): no fresh pages to
     * fault in (the kernel zeroes each one, which costs more than copying
     * what the old block holds), and often no more growing for this chunk. */
    size_t max = want + want / 4; /* not a block another buffer would fit better */
    size_t got = 0;
    void *q = pq_pool_take(want, max, &got);
    if (q) {
        if (*p) memcpy(q, *p, *cap);
        pq_pool_give(*p);
        /* The block may be larger than asked: count what it holds. */
        atomic_fetch_add(&c->ch->held, got - want);
        want = got;
    } else {
        q = realloc(*p, want);
        if (!q) {
            atomic_fetch_sub(&c->ch->held, want - *cap);
            return fail(c, PQ_ERR_NOMEM, "%s: cannot allocate %zu bytes", what, want);
        }
    }
    *p = q;
    *cap = want;
    return PQ_OK;
}

/* A buffer the task held, freed and taken off the chunk's count. */
static inline void release(cd_ctx *c, void *p, size_t cap)
{
    pq_pool_give(p);
    atomic_fetch_sub(&c->ch->held, cap);
}

/* ---------------------------------------------------------------------------
 * A page's steps (page_values.c), each failing with fail()'s message
 * ------------------------------------------------------------------------- */

/* The bytes of a compressed page stored as it is (a snappy page that is one
 * literal, a zstd frame of one raw block), where they lie in src; else NULL. */
const uint8_t *pq_page_stored(int32_t codec, const uint8_t *src, size_t src_len, size_t dst_len);

/* The decompressed bytes of [src, src + src_len), dst_len of them, in
 * *bytes: the chunk's own bytes when not compressed or stored as they are,
 * else c->buf. */
pq_status pq_page_decompress(cd_ctx *c, bool compressed, const uint8_t *src, size_t src_len, size_t dst_len,
                             const uint8_t **bytes);

/* Two SNAPPY pages' stored bytes src[k] (src_len[k] of them, dst_len[k]
 * once decompressed, at most PQ_MAX_PAGE_SIZE) decompressed together
 * (pq_snappy_decompress_two) into into[k], or c[k]->buf where into[k] is
 * NULL; each context's ready_* set so that its page's own step takes
 * them. Nothing is set when this fails (a buffer over the memory limit, a
 * corrupt stream): each page's own decompression then fails, or not, with
 * its own message. */
void pq_page_decompress_two(cd_ctx *const c[2], const uint8_t *const src[2], const size_t src_len[2],
                            const size_t dst_len[2], uint8_t *const into[2]);

/* Where pq_page_plain_in_place would decompress the page: its values'
 * place in c->out, or NULL when it is not such a page (its stored bytes
 * `raw` aside: a page stored as it is is read where it lies). */
uint8_t *pq_page_plain_place(const cd_ctx *c);

/* Room in c->out for `n` more byte-array offsets. */
pq_status pq_page_reserve_offsets(cd_ctx *c, size_t n);

/* The dictionary page's (c->pi) first `first` entries (SIZE_MAX: all) into
 * the chunk's dictionary, from its decompressed bytes src (len of them, or a
 * prefix holding the entries). */
pq_status pq_page_decode_dictionary(cd_ctx *c, const uint8_t *src, size_t len, size_t first);

/* A data page's levels (c->pi), decoded into the chunk's level arrays at
 * slot `at`, and its values section: *vals (vlen bytes, decompressed)
 * holding *nn non-null values. */
pq_status pq_page_levels(cd_ctx *c, const uint8_t *raw, size_t at, const uint8_t **vals, size_t *vlen, size_t *nn);

/* Whether the page is decoded from a prefix of its bytes (a few selected
 * rows of a required PLAIN BYTE_ARRAY page): *last gets the index in the
 * page of its last selected row. */
bool pq_page_from_prefix(const cd_ctx *c, const uint8_t *raw, size_t *last);

/* Such a page's prefix that holds values 0..last, decompressed in steps, as
 * pq_page_levels hands on a values section. */
pq_status pq_page_prefix_values(cd_ctx *c, const uint8_t *raw, size_t last, const uint8_t **vals, size_t *vlen,
                                size_t *nn);

/* A PLAIN BYTE_ARRAY stream of n values (len bytes) decompressed through pr
 * into buf until a walk of the lengths reaches past value `last`: *bytes
 * the bytes through it, *reached whether the walk got there. */
pq_status pq_page_plain_prefix(cd_ctx *c, pq_prefix_reader *pr, const uint8_t *buf, size_t len, size_t n,
                               size_t last, size_t *bytes, bool *reached);

/* A required flat leaf's DATA_PAGE or DATA_PAGE_V2, PLAIN, of fixed-width
 * values that are their output as they are (no widening), placed
 * directly (c->direct): its bytes decompressed straight into the chunk's
 * values at their offset, with no copy out of a page buffer (*st the
 * outcome). False when the page is not such a page: the usual steps
 * decode it. */
bool pq_page_plain_in_place(cd_ctx *c, const uint8_t *raw, pq_status *st);


/* The length of PLAIN byte array i (of n) at *pos in p (len bytes),
 * checked; *pos moves past the length. */
pq_status pq_page_plain_length(cd_ctx *c, const uint8_t *p, size_t len, size_t *pos, size_t i, size_t n,
                               uint32_t *l);

/* pq_page_plain_length with its common case inline, for loops over every
 * value: the length read and checked here, the call (which says what is
 * wrong) only when the check fails. */
static inline pq_status plain_length(cd_ctx *c, const uint8_t *p, size_t len, size_t *pos, size_t i, size_t n,
                                     uint32_t *l)
{
    if (len - *pos >= 4 && (*l = pq_load_le32(p + *pos)) <= len - *pos - 4) {
        *pos += 4;
        return PQ_OK;
    }
    return pq_page_plain_length(c, p, len, pos, i, n, l);
}

/* The n non-null values of a data page encoded as `enc`, from its values
 * section src (len bytes), appended to c->out (selected rows alone when
 * c->rows is set). */
pq_status pq_page_decode_values(cd_ctx *c, int32_t enc, const uint8_t *src, size_t len, size_t n);

/* The same for a dictionary-encoded page: its indices' entries, or, with
 * c->collect, its selected indices collected there. */
pq_status pq_page_values_dictionary(cd_ctx *c, const uint8_t *src, size_t len, size_t n);

/* A selection's window of w dictionary indices, values [pos, pos + w) of
 * the page's n: the selected rows' indices into idx (*m of them, in row
 * order, not range-checked), the window skipped when none is selected, or
 * *whole set and the window left in the stream when all are. */
pq_status pq_page_dict_window(cd_ctx *c, pq_rle_decoder *d, size_t pos, size_t w, size_t n, uint32_t *idx,
                              size_t *m, bool *whole);

/* The entries of `got` dictionary indices, already checked against the
 * dictionary, written at output slot `at` of c->out. */
pq_status pq_page_dict_gather(cd_ctx *c, const uint32_t *idx, size_t got, size_t at);

#endif
