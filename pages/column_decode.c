/*
 * column_decode.c — one column chunk's pages into levels and values (see
 * column_decode.h).
 *
 * One pass over the pages. Levels go straight into the output arrays, sized
 * once from the data pages' value counts; values are appended to buffers
 * that grow as pages come. Every allocation is counted against the memory
 * limit, and every kernel error is re-issued with the page named.
 */
#include "pages/column_decode.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/byte_stream_split.h"
#include "kernels/delta.h"
#include "kernels/dictionary.h"
#include "kernels/plain.h"
#include "kernels/rle.h"
#include "pages/buffer_pool.h"
#include "pages/codec.h"

/* Values decoded per step when a kernel hands them out through a scratch
 * array (levels, dictionary indices, RLE booleans). A multiple of 8, so that
 * BIT_PACKED level batches end on a byte boundary. */
#define BATCH 1024

typedef struct cd_ctx {
    const pq_leaf *leaf;
    int32_t codec;
    uint64_t limit;          /* 0: none */
    uint64_t held;           /* bytes allocated now (buffers' capacities) */
    pq_error *err;
    pq_codec_ctx *cctx;      /* the caller's, or own_cctx */
    pq_codec_ctx own_cctx;

    size_t page;             /* the page being decoded, for messages */
    const pq_page_info *pi;

    size_t width;            /* output bytes per value; 0 for BYTE_ARRAY */

    uint8_t *buf;            /* decompressed page */
    size_t buf_cap;

    bool have_dict;
    size_t dict_n;
    size_t dict_max_len;     /* BYTE_ARRAY: the longest entry */
    uint8_t *dict_values;    /* fixed width: dict_n * width */
    size_t dict_values_cap;
    int32_t *dict_offsets;   /* BYTE_ARRAY: dict_n + 1 */
    size_t dict_offsets_cap;
    uint8_t *dict_data;
    size_t dict_data_cap;

    /* Definition levels of a leaf without repetition are stored only once a
     * page has a null: until then every level is max_def and def_levels
     * stays NULL, which saves two bytes per value of most columns. */
    bool defs_lazy;
    size_t def_cap;          /* bytes */

    pq_column_values *out;
    size_t values_cap;       /* bytes */
    size_t offsets_cap;      /* bytes */
    size_t data_cap;         /* bytes */
    uint64_t strings_ahead;  /* BYTE_ARRAY: string bytes the pages after this one hold at
                              * least (strings_lower_bound), for failing early */
    bool views;              /* PQ_DECODE_STRING_VIEWS on a BYTE_ARRAY leaf */
    size_t views_cap;        /* bytes */
    uint8_t *dict_views;     /* views: a view per dictionary entry (buffer 1) */
    size_t dict_views_cap;
    const pq_decode_rows *rows; /* selection-vector decode: the rows wanted, or NULL: all */
    size_t page_row;         /* the chunk row the page being decoded starts at */
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
    uint64_t word = 0, bytes = (s->count + 7) / 8;
    for (uint64_t b = 0; b < 8 && base / 8 + b < bytes; b++) word |= (uint64_t)s->keep[base / 8 + b] << (8 * b);
    if (s->count - base < 64) word &= (1ull << (s->count - base)) - 1;
    return word;
}

/* The first row in [row, end) that is wanted (want) or not (!want), or end:
 * a 64-bit word of the selection at a time, so sparse selections cost
 * little. Rows outside [first, first + count) are not wanted. */
static uint64_t next_row(const cd_ctx *c, uint64_t row, uint64_t end, bool want)
{
    const pq_decode_rows *s = c->rows;
    uint64_t lo = s->first, hi = s->first + s->count;
    while (row < end) {
        if (row < lo) {
            if (!want) return row;
            row = lo;
            continue;
        }
        if (row >= hi) return want ? end : row;
        uint64_t i = row - lo, base = i & ~63ull;
        uint64_t word = keep_word(s, base);
        if (!want) word = ~word; /* bits past count become 1: rows from hi on are unwanted */
        word &= ~0ull << (i - base);
        if (word) {
            uint64_t r = lo + base + (uint64_t)__builtin_ctzll(word);
            return r < end ? r : end;
        }
        row = lo + base + 64;
    }
    return end;
}

/* Whether any of the rows [row, row + n) is wanted. */
static bool rows_wanted(const cd_ctx *c, uint64_t row, uint64_t n)
{
    const pq_decode_rows *s = c->rows;
    uint64_t a = row > s->first ? row - s->first : 0, b = row + n - s->first;
    if (row + n <= s->first || a >= s->count) return false;
    if (b > s->count) b = s->count;
    for (uint64_t i = a; i < b;) {
        if ((i & 7) == 0 && i + 8 <= b) {
            if (s->keep[i >> 3]) return true;
            i += 8;
            continue;
        }
        if ((s->keep[i >> 3] >> (i & 7)) & 1) return true;
        i++;
    }
    return false;
}

/* Buffers views point into (pq_column_values.view_bufs). */
#define VIEW_BUF_DATA 0
#define VIEW_BUF_DICT 1

/* ---------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static pq_status fail(cd_ctx *c, pq_status code, const char *fmt, ...)
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
static pq_status kfail(cd_ctx *c, pq_status code, const pq_error *kerr)
{
    return fail(c, code, "%s", kerr->message);
}

/* ---------------------------------------------------------------------------
 * Memory
 * ------------------------------------------------------------------------- */

static bool mul_ok(size_t a, size_t b, size_t *r)
{
    if (a && b > SIZE_MAX / a) return false;
    *r = a * b;
    return true;
}

/* Grows *p (*cap bytes) to at least `need` bytes: doubling, but never past
 * the memory limit, which counts every buffer the decode holds. */
static pq_status grow(cd_ctx *c, void **p, size_t *cap, size_t need, const char *what)
{
    if (need <= *cap) return PQ_OK;
    size_t want = need;
    if (*cap <= SIZE_MAX / 2 && *cap * 2 > want) want = *cap * 2;
    uint64_t others = c->held - *cap;
    if (c->limit) {
        if (need > c->limit || others > c->limit - need)
            return fail(c, PQ_ERR_MEMORY_LIMIT, "%s: %zu bytes (with %llu held) exceed the memory limit of %llu",
                        what, need, (unsigned long long)others, (unsigned long long)c->limit);
        if (want > c->limit - others) want = (size_t)(c->limit - others);
    }
    /* A kept block that fits (pages/buffer_pool.h): no fresh pages to
     * fault in, and often no more growing for this chunk. Only for a first
     * or small buffer: realloc moves a large one without copying (mremap). */
    size_t max = want <= SIZE_MAX / 16 ? want * 16 : SIZE_MAX; /* not a huge block for a small need */
    if (c->limit && max > c->limit - others) max = (size_t)(c->limit - others);
    size_t got = 0;
    void *q = *cap < PQ_POOL_MIN_BYTES ? pq_pool_take(want, max, &got) : NULL;
    if (q) {
        if (*p) memcpy(q, *p, *cap);
        pq_pool_give(*p);
        want = got;
    } else {
        q = realloc(*p, want);
        if (!q) return fail(c, PQ_ERR_NOMEM, "%s: cannot allocate %zu bytes", what, want);
    }
    *p = q;
    c->held = others + want;
    *cap = want;
    return PQ_OK;
}

/* Room for `n` more fixed-width values. */
static pq_status reserve_values(cd_ctx *c, size_t n)
{
    size_t total = c->out->n_values + n, bytes;
    if (total < n || !mul_ok(total, c->width, &bytes))
        return fail(c, PQ_ERR_MEMORY_LIMIT, "%zu values overflow the address space", n);
    return grow(c, (void **)&c->out->values, &c->values_cap, bytes, "values");
}

/* Room for `n` more 16-byte string views. */
static pq_status reserve_views(cd_ctx *c, size_t n)
{
    size_t total = c->out->n_values + n, bytes;
    if (total < n || !mul_ok(total, 16, &bytes))
        return fail(c, PQ_ERR_MEMORY_LIMIT, "%zu values overflow the address space", n);
    return grow(c, (void **)&c->out->views, &c->views_cap, bytes, "string views");
}

/* The Arrow view of the `len` bytes at `p`, which lie at `offset` in view
 * buffer `buf`: inline up to 12 bytes, else a 4-byte prefix and where. */
static inline void make_view(uint8_t *w, const uint8_t *p, size_t len, uint32_t buf, uint32_t offset)
{
    uint32_t l = (uint32_t)len;
    memcpy(w, &l, 4);
    if (len <= 12) {
        memset(w + 4, 0, 12);
        if (len) memcpy(w + 4, p, len);
        return;
    }
    memcpy(w + 4, p, 4);
    memcpy(w + 8, &buf, 4);
    memcpy(w + 12, &offset, 4);
}

/* Room for `n` more byte-array offsets. */
static pq_status reserve_offsets(cd_ctx *c, size_t n)
{
    size_t total = c->out->n_values + n + 1, bytes;
    if (total < n || !mul_ok(total, sizeof(int32_t), &bytes))
        return fail(c, PQ_ERR_MEMORY_LIMIT, "%zu values overflow the address space", n);
    return grow(c, (void **)&c->out->offsets, &c->offsets_cap, bytes, "offsets");
}

/* Room for `n` more bytes of byte-array data. */
static pq_status reserve_data(cd_ctx *c, size_t n)
{
    size_t total = c->out->data_len + n;
    if (total < n) return fail(c, PQ_ERR_MEMORY_LIMIT, "%zu bytes overflow the address space", n);
    return grow(c, (void **)&c->out->data, &c->data_cap, total, "byte array data");
}

/* Arrow `string` / `binary` hold at most INT32_MAX bytes of values (int32
 * offsets). Fail, naming the types that would hold them, as soon as the
 * bytes decoded, `more` about to be, and the least the later pages hold
 * cannot fit: before the allocation, not after gigabytes of it. */
static pq_status check_string_room(cd_ctx *c, uint64_t more)
{
    uint64_t total = (uint64_t)c->out->data_len + more;
    if (total < more || total > (uint64_t)INT32_MAX - c->strings_ahead || c->strings_ahead > (uint64_t)INT32_MAX)
        return fail(c, PQ_ERR_UNSUPPORTED,
                    "the chunk's values take at least %llu bytes, more than the 2147483647 that Arrow string "
                    "and binary arrays (int32 offsets) hold; large_string or string_view would hold them",
                    (unsigned long long)(total + c->strings_ahead));
    return PQ_OK;
}

/* The fewest value bytes a BYTE_ARRAY data page can hold, from its header
 * alone: a PLAIN page is levels, then a 4-byte length before each value.
 * Levels of a v1 page are bounded generously (a 4-byte length and 12 bytes
 * a level: a run of one with a 10-byte varint header); other encodings
 * count 0. */
static uint64_t strings_lower_bound(const pq_leaf *leaf, const pq_page_info *pi)
{
    if (pi->encoding != PQ_ENC_PLAIN || pi->num_values < 0 || pi->uncompressed_size < 0) return 0;
    uint64_t n = (uint64_t)pi->num_values, size = (uint64_t)pi->uncompressed_size, levels = 0;
    if (pi->type == PQ_PAGE_DATA) {
        levels = (leaf->max_rep > 0 ? 4 + 12 * n : 0) + (leaf->max_def > 0 ? 4 + 12 * n : 0);
    } else if (pi->type == PQ_PAGE_DATA_V2) {
        if (pi->rep_levels_byte_length < 0 || pi->def_levels_byte_length < 0) return 0;
        levels = (uint64_t)pi->rep_levels_byte_length + (uint64_t)pi->def_levels_byte_length;
    } else {
        return 0;
    }
    uint64_t fixed = levels + 4 * n;
    return size > fixed ? size - fixed : 0;
}

/* ---------------------------------------------------------------------------
 * Page bytes
 * ------------------------------------------------------------------------- */

static const uint8_t empty_page[1];

/* The decompressed bytes of [src, src + src_len), dst_len of them: the
 * chunk's own bytes when the codec is UNCOMPRESSED, else the page buffer. */
static pq_status decompress(cd_ctx *c, bool compressed, const uint8_t *src, size_t src_len, size_t dst_len,
                            const uint8_t **bytes)
{
    if (dst_len > PQ_MAX_PAGE_SIZE)
        return fail(c, PQ_ERR_MEMORY_LIMIT, "uncompressed size %zu exceeds the %llu-byte page cap", dst_len,
                    (unsigned long long)PQ_MAX_PAGE_SIZE);
    if (!compressed || c->codec == PQ_CODEC_UNCOMPRESSED) {
        if (compressed && src_len != dst_len)
            return fail(c, PQ_ERR_CORRUPT_DATA, "UNCOMPRESSED: %zu bytes stored, page header says %zu", src_len,
                        dst_len);
        *bytes = src_len ? src : empty_page;
        return PQ_OK;
    }
    if (dst_len == 0 && src_len == 0) {
        *bytes = empty_page;
        return PQ_OK;
    }
    pq_status st = grow(c, (void **)&c->buf, &c->buf_cap, dst_len ? dst_len : 1, "page buffer");
    if (st != PQ_OK) return st;
    pq_error kerr;
    st = pq_decompress_ctx(c->cctx, c->codec, src, src_len, c->buf, dst_len, &kerr);
    if (st != PQ_OK) return kfail(c, st, &kerr);
    *bytes = c->buf;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Levels
 * ------------------------------------------------------------------------- */

/* Bits needed for levels 0..max. */
static int level_bit_width(int16_t max)
{
    int bw = 0;
    while (bw < 16 && (max >> bw) != 0) bw++;
    return bw;
}

/* Checks a batch of levels against the maximum and stores them. */
static pq_status store_levels(cd_ctx *c, const char *what, const uint32_t *tmp, size_t got, int16_t max,
                              int16_t *out, size_t at)
{
    for (size_t i = 0; i < got; i++) {
        if (tmp[i] > (uint32_t)max)
            return fail(c, PQ_ERR_CORRUPT_DATA, "%s level %u at slot %zu exceeds the maximum %d", what, tmp[i],
                        at + i, max);
        out[at + i] = (int16_t)tmp[i];
    }
    return PQ_OK;
}

/* n levels from an RLE/bit-packed hybrid decoder. */
static pq_status levels_rle(cd_ctx *c, pq_rle_decoder *d, const char *what, int16_t max, int16_t *out, size_t n)
{
    uint32_t tmp[BATCH];
    size_t done = 0;
    while (done < n) {
        size_t want = n - done < BATCH ? n - done : BATCH, got = 0;
        pq_error kerr;
        pq_status st = pq_rle_next(d, tmp, want, &got, &kerr);
        if (st != PQ_OK) return fail(c, st, "%s levels: %s", what, kerr.message);
        st = store_levels(c, what, tmp, got, max, out, done);
        if (st != PQ_OK) return st;
        done += got;
        if (got < want)
            return fail(c, PQ_ERR_CORRUPT_DATA, "%s levels: %zu decoded, the page has %zu values", what, done, n);
    }
    return PQ_OK;
}

/* Store definition levels from now on: the first `at` slots, all defined
 * so far, get max_def. */
static pq_status materialize_defs(cd_ctx *c, size_t at)
{
    pq_column_values *o = c->out;
    if (o->def_levels) return PQ_OK;
    size_t bytes = o->n_levels * sizeof(int16_t); /* checked in decode_pages */
    pq_status st = grow(c, (void **)&o->def_levels, &c->def_cap, bytes ? bytes : 1, "definition levels");
    if (st != PQ_OK) return st;
    for (size_t i = 0; i < at; i++) o->def_levels[i] = c->leaf->max_def;
    return PQ_OK;
}

/* The definition levels of a page (n slots at `at`) from RLE runs: nothing
 * stored when they are one run of max_def and none was stored before. */
static pq_status def_levels_rle(cd_ctx *c, pq_rle_decoder *d, size_t at, size_t n)
{
    int16_t max = c->leaf->max_def;
    if (c->defs_lazy && !c->out->def_levels) {
        uint32_t value;
        uint64_t count;
        if (pq_rle_leading_run(d, &value, &count) && value == (uint32_t)max && count >= n) return PQ_OK;
        pq_status st = materialize_defs(c, at);
        if (st != PQ_OK) return st;
    }
    return levels_rle(c, d, "definition", max, c->out->def_levels + at, n);
}

/* Data page v1 levels: RLE with a 4-byte length prefix, or the deprecated
 * BIT_PACKED. *consumed gets the bytes the section took. */
static pq_status levels_v1(cd_ctx *c, const uint8_t *p, size_t len, int32_t enc, bool definition, size_t at,
                           size_t n, size_t *consumed)
{
    const char *what = definition ? "definition" : "repetition";
    int16_t max = definition ? c->leaf->max_def : c->leaf->max_rep;
    int bw = level_bit_width(max);
    pq_error kerr;
    pq_status st;
    if (enc == PQ_ENC_RLE) {
        pq_rle_decoder d;
        st = pq_rle_init_prefixed(&d, p, len, bw, consumed, &kerr);
        if (st != PQ_OK) return fail(c, st, "%s levels: %s", what, kerr.message);
        if (definition) return def_levels_rle(c, &d, at, n);
        return levels_rle(c, &d, what, max, c->out->rep_levels + at, n);
    }
    if (definition && (st = materialize_defs(c, at)) != PQ_OK) return st;
    int16_t *out = (definition ? c->out->def_levels : c->out->rep_levels) + at;
    if (enc == PQ_ENC_BIT_PACKED) {
        uint32_t tmp[BATCH];
        size_t pos = 0;
        for (size_t done = 0; done < n;) {
            size_t want = n - done < BATCH ? n - done : BATCH, used = 0;
            st = pq_bit_packed_levels(p + pos, len - pos, bw, want, tmp, &used, &kerr);
            if (st != PQ_OK) return fail(c, st, "%s levels: %s", what, kerr.message);
            st = store_levels(c, what, tmp, want, max, out, done);
            if (st != PQ_OK) return st;
            pos += used;
            done += want;
        }
        *consumed = pos;
        return PQ_OK;
    }
    return fail(c, PQ_ERR_UNSUPPORTED, "%s level encoding %s is not supported", what, pq_encoding_name(enc));
}

/* ---------------------------------------------------------------------------
 * Dictionary page
 * ------------------------------------------------------------------------- */

static pq_status decode_dictionary(cd_ctx *c, const uint8_t *src, size_t len)
{
    const pq_page_info *pi = c->pi;
    if (c->have_dict) return fail(c, PQ_ERR_CORRUPT_DATA, "a second dictionary page in the chunk");
    if (pi->encoding != PQ_ENC_PLAIN && pi->encoding != PQ_ENC_PLAIN_DICTIONARY)
        return fail(c, PQ_ERR_UNSUPPORTED, "dictionary page encoding is not supported");
    if (pi->num_values < 0) return fail(c, PQ_ERR_CORRUPT_DATA, "num_values %d", pi->num_values);
    size_t n = (size_t)pi->num_values, used = 0, bytes;
    pq_error kerr;
    pq_status st;
    int32_t type = c->leaf->physical_type;

    if (type == PQ_BYTE_ARRAY) {
        if (n > len / 4)
            return fail(c, PQ_ERR_CORRUPT_DATA, "%zu dictionary entries cannot fit in %zu bytes", n, len);
        /* Padded for the gather's 16-byte copies (PQ_DICT_COPY_SLACK). */
        if ((st = grow(c, (void **)&c->dict_offsets, &c->dict_offsets_cap, (n + 1) * sizeof(int32_t),
                       "dictionary")) != PQ_OK ||
            (st = grow(c, (void **)&c->dict_data, &c->dict_data_cap, len + PQ_DICT_COPY_SLACK, "dictionary")) !=
                PQ_OK)
            return st;
        size_t data_len;
        st = pq_plain_byte_array(src, len, n, c->dict_offsets, 0, c->dict_data, c->dict_data_cap, &data_len, &used,
                                 &kerr);
        if (st == PQ_OK) {
            memset(c->dict_data + data_len, 0, PQ_DICT_COPY_SLACK); /* defined bytes for the copies */
            c->dict_max_len = 0;
            for (size_t i = 0; i < n; i++) {
                size_t l = (size_t)(c->dict_offsets[i + 1] - c->dict_offsets[i]);
                if (l > c->dict_max_len) c->dict_max_len = l;
            }
        }
        if (st == PQ_OK && c->views) { /* one view per entry, into the dictionary's bytes */
            if ((st = grow(c, (void **)&c->dict_views, &c->dict_views_cap, (n ? n : 1) * 16, "dictionary")) != PQ_OK)
                return st;
            for (size_t i = 0; i < n; i++)
                make_view(c->dict_views + 16 * i, c->dict_data + c->dict_offsets[i],
                          (size_t)(c->dict_offsets[i + 1] - c->dict_offsets[i]), VIEW_BUF_DICT,
                          (uint32_t)c->dict_offsets[i]);
        }
    } else if (type == PQ_BOOLEAN) {
        if (n / 8 > len)
            return fail(c, PQ_ERR_CORRUPT_DATA, "%zu dictionary entries cannot fit in %zu bytes", n, len);
        if ((st = grow(c, (void **)&c->dict_values, &c->dict_values_cap, n ? n : 1, "dictionary")) != PQ_OK)
            return st;
        st = pq_plain_boolean(src, len, 0, n, c->dict_values, &used, &kerr);
    } else {
        if (n > len / c->width || !mul_ok(n, c->width, &bytes))
            return fail(c, PQ_ERR_CORRUPT_DATA, "%zu dictionary entries of %zu bytes cannot fit in %zu bytes", n,
                        c->width, len);
        if ((st = grow(c, (void **)&c->dict_values, &c->dict_values_cap, bytes ? bytes : 1, "dictionary")) !=
            PQ_OK)
            return st;
        st = pq_plain_fixed(src, len, c->width, n, c->dict_values, &used, &kerr);
    }
    if (st != PQ_OK) return kfail(c, st, &kerr);
    c->dict_n = n;
    c->have_dict = true;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Values
 * ------------------------------------------------------------------------- */

static pq_status values_plain(cd_ctx *c, const uint8_t *src, size_t len, size_t n)
{
    pq_column_values *o = c->out;
    size_t used = 0;
    pq_error kerr;
    pq_status st;
    int32_t type = c->leaf->physical_type;

    if (type == PQ_BYTE_ARRAY) {
        if (n > len / 4) return fail(c, PQ_ERR_CORRUPT_DATA, "%zu values cannot fit in %zu bytes", n, len);
        if ((uint64_t)o->data_len + (len - 4 * n) > (uint64_t)INT32_MAX - c->strings_ahead) {
            /* Near the int32 limit: add up the lengths before taking the room. */
            uint64_t bytes = 0;
            size_t pos = 0;
            for (size_t i = 0; i < n && pos + 4 <= len; i++) {
                uint32_t l = (uint32_t)src[pos] | (uint32_t)src[pos + 1] << 8 | (uint32_t)src[pos + 2] << 16 |
                             (uint32_t)src[pos + 3] << 24;
                if (l > len - pos - 4) break; /* corrupt: the kernel below says where */
                bytes += l;
                pos += 4 + (size_t)l;
            }
            if ((st = check_string_room(c, bytes)) != PQ_OK) return st;
        }
        if ((st = reserve_offsets(c, n)) != PQ_OK || (st = reserve_data(c, len - 4 * n)) != PQ_OK) return st;
        size_t got_len = 0;
        st = pq_plain_byte_array(src, len, n, o->offsets + o->n_values, (int32_t)o->data_len,
                                 o->data ? o->data + o->data_len : NULL, c->data_cap - o->data_len, &got_len, &used,
                                 &kerr);
        if (st != PQ_OK) return kfail(c, st, &kerr);
        o->data_len += got_len;
    } else if (type == PQ_BOOLEAN) {
        if (n / 8 > len) return fail(c, PQ_ERR_CORRUPT_DATA, "%zu booleans cannot fit in %zu bytes", n, len);
        if ((st = reserve_values(c, n)) != PQ_OK) return st;
        st = pq_plain_boolean(src, len, 0, n, o->values + o->n_values, &used, &kerr);
        if (st != PQ_OK) return kfail(c, st, &kerr);
    } else {
        if (n > len / c->width)
            return fail(c, PQ_ERR_CORRUPT_DATA, "%zu values of %zu bytes cannot fit in %zu bytes", n, c->width, len);
        if ((st = reserve_values(c, n)) != PQ_OK) return st;
        st = pq_plain_fixed(src, len, c->width, n, o->values + o->n_values * c->width, &used, &kerr);
        if (st != PQ_OK) return kfail(c, st, &kerr);
    }
    o->n_values += n;
    return PQ_OK;
}

/* The next `want` (at most BATCH) dictionary indices of the page, their
 * values written at output slot `at`; `pos` is the first one's index in
 * the page's n values, for messages. */
static pq_status dict_batch(cd_ctx *c, pq_rle_decoder *d, uint32_t *idx, size_t want, size_t at, size_t pos,
                           size_t n)
{
    pq_column_values *o = c->out;
    pq_error kerr;
    pq_status st;
    size_t got = 0;
    if ((st = pq_rle_next(d, idx, want, &got, &kerr)) != PQ_OK) return kfail(c, st, &kerr);
    if (got < want)
        return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary indices: %zu decoded, the page has %zu non-null values",
                    pos + got, n);
    for (size_t i = 0; i < got; i++)
        if (idx[i] >= c->dict_n)
            return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary index %u at value %zu >= dictionary size %zu", idx[i],
                        pos + i, c->dict_n);
    bool binary = c->leaf->physical_type == PQ_BYTE_ARRAY;
    size_t bound = c->dict_max_len * got + PQ_DICT_COPY_SLACK; /* no overflow: both are small */
    if (c->views) { /* a view is its entry's view: 16 bytes, whatever the length */
        uint8_t *w = o->views + at * 16;
        for (size_t i = 0; i < got; i++) memcpy(w + 16 * i, c->dict_views + 16 * (size_t)idx[i], 16);
    } else if (binary && bound <= c->data_cap - o->data_len + (4u << 20)) {
        /* Room for the longest entry each time (rarely more than a few MB
         * ahead of what is needed): one pass. */
        if ((st = reserve_data(c, bound)) != PQ_OK) return st;
        int64_t wrote = pq_dict_gather_binary_padded(c->dict_offsets, c->dict_data, idx, got, o->offsets + at,
                                                     (int32_t)o->data_len, o->data + o->data_len);
        if (wrote < 0) return fail(c, PQ_ERR_UNSUPPORTED, "byte array data exceeds int32 offsets");
        o->data_len += (size_t)wrote;
    } else if (binary) {
        size_t need = 0;
        st = pq_dict_gather_binary(c->dict_offsets, c->dict_data, c->dict_n, idx, got, o->offsets + at,
                                   (int32_t)o->data_len, NULL, 0, &need, &kerr);
        if (st != PQ_OK) return kfail(c, st, &kerr);
        if ((st = check_string_room(c, need)) != PQ_OK || (st = reserve_data(c, need)) != PQ_OK) return st;
        st = pq_dict_gather_binary(c->dict_offsets, c->dict_data, c->dict_n, idx, got, o->offsets + at,
                                   (int32_t)o->data_len, o->data ? o->data + o->data_len : NULL,
                                   c->data_cap - o->data_len, &need, &kerr);
        if (st != PQ_OK) return kfail(c, st, &kerr);
        o->data_len += need;
    } else {
        st = pq_dict_gather_fixed(c->dict_values, c->dict_n, c->width, idx, got, o->values + at * c->width, &kerr);
        if (st != PQ_OK) return kfail(c, st, &kerr);
    }
    return PQ_OK;
}

static pq_status values_dictionary(cd_ctx *c, const uint8_t *src, size_t len, size_t n)
{
    pq_column_values *o = c->out;
    pq_error kerr;
    pq_status st;
    if (!c->have_dict) return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary-encoded page without a dictionary page");
    bool binary = c->leaf->physical_type == PQ_BYTE_ARRAY;
    if ((st = c->views ? reserve_views(c, n) : binary ? reserve_offsets(c, n) : reserve_values(c, n)) != PQ_OK)
        return st;

    pq_rle_decoder d;
    if ((st = pq_rle_init_dict_indices(&d, src, len, &kerr)) != PQ_OK) return kfail(c, st, &kerr);
    uint32_t idx[BATCH];
    if (!c->rows) {
        for (size_t done = 0; done < n;) {
            size_t want = n - done < BATCH ? n - done : BATCH;
            if ((st = dict_batch(c, &d, idx, want, o->n_values + done, done, n)) != PQ_OK) return st;
            done += want;
        }
        o->n_values += n;
        return PQ_OK;
    }
    /* Selection-vector decode: unwanted runs of rows are skipped in the
     * index stream (a run or a bit-packed group costs nothing per value);
     * wanted runs are decoded and gathered, BATCH at a time. */
    size_t pos = 0, kept = 0;
    while (pos < n) {
        size_t next = (size_t)(next_row(c, c->page_row + pos, c->page_row + n, true) - c->page_row);
        if (next > pos) {
            size_t skipped = 0;
            if ((st = pq_rle_skip(&d, next - pos, &skipped, &kerr)) != PQ_OK) return kfail(c, st, &kerr);
            if (skipped < next - pos)
                return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary indices: %zu decoded, the page has %zu non-null values",
                            pos + skipped, n);
            pos = next;
            if (pos == n) break;
        }
        size_t stop = (size_t)(next_row(c, c->page_row + pos, c->page_row + n, false) - c->page_row);
        size_t want = stop - pos < BATCH ? stop - pos : BATCH;
        if ((st = dict_batch(c, &d, idx, want, o->n_values + kept, pos, n)) != PQ_OK) return st;
        kept += want;
        pos += want;
    }
    o->n_values += kept;
    return PQ_OK;
}

/* RLE-encoded booleans: a 4-byte length, then runs of bit width 1. */
static pq_status values_rle_boolean(cd_ctx *c, const uint8_t *src, size_t len, size_t n)
{
    pq_column_values *o = c->out;
    pq_error kerr;
    pq_status st;
    size_t used;
    pq_rle_decoder d;
    if ((st = reserve_values(c, n)) != PQ_OK) return st;
    if ((st = pq_rle_init_prefixed(&d, src, len, 1, &used, &kerr)) != PQ_OK) return kfail(c, st, &kerr);
    uint32_t tmp[BATCH];
    for (size_t done = 0; done < n;) {
        size_t want = n - done < BATCH ? n - done : BATCH, got = 0;
        if ((st = pq_rle_next(&d, tmp, want, &got, &kerr)) != PQ_OK) return kfail(c, st, &kerr);
        if (got < want)
            return fail(c, PQ_ERR_CORRUPT_DATA, "RLE booleans: %zu decoded, the page has %zu non-null values",
                        done + got, n);
        for (size_t i = 0; i < got; i++) {
            if (tmp[i] > 1) return fail(c, PQ_ERR_CORRUPT_DATA, "RLE boolean %u at value %zu", tmp[i], done + i);
            o->values[o->n_values + done + i] = (uint8_t)tmp[i];
        }
        done += got;
    }
    o->n_values += n;
    return PQ_OK;
}

static pq_status values_delta_binary(cd_ctx *c, const uint8_t *src, size_t len, size_t n)
{
    pq_column_values *o = c->out;
    pq_error kerr;
    pq_status st;
    size_t got = 0, used = 0;
    if ((st = reserve_values(c, n)) != PQ_OK) return st;
    uint8_t *dst = o->values + o->n_values * c->width;
    if (c->leaf->physical_type == PQ_INT32)
        st = pq_delta_decode_i32(src, len, (int32_t *)(void *)dst, n, &got, &used, &kerr);
    else
        st = pq_delta_decode_i64(src, len, (int64_t *)(void *)dst, n, &got, &used, &kerr);
    if (st != PQ_OK) return kfail(c, st, &kerr);
    if (got != n)
        return fail(c, PQ_ERR_CORRUPT_DATA, "DELTA_BINARY_PACKED: %zu values, the page has %zu non-null values", got,
                    n);
    o->n_values += n;
    return PQ_OK;
}

static pq_status values_delta_length(cd_ctx *c, const uint8_t *src, size_t len, size_t n)
{
    pq_column_values *o = c->out;
    pq_error kerr;
    pq_status st;
    size_t got = 0, used = 0, dlen = 0;
    const uint8_t *dsrc = NULL;
    if ((st = reserve_offsets(c, n)) != PQ_OK) return st;
    st = pq_delta_length_byte_array(src, len, n, o->offsets + o->n_values, (int32_t)o->data_len, &got, &dsrc, &dlen,
                                    &used, &kerr);
    if (st != PQ_OK) return kfail(c, st, &kerr);
    if (got != n)
        return fail(c, PQ_ERR_CORRUPT_DATA, "DELTA_LENGTH_BYTE_ARRAY: %zu values, the page has %zu non-null values",
                    got, n);
    if ((st = reserve_data(c, dlen)) != PQ_OK) return st;
    if (dlen) memcpy(o->data + o->data_len, dsrc, dlen);
    o->data_len += dlen;
    o->n_values += n;
    return PQ_OK;
}

/* DELTA_BYTE_ARRAY for BYTE_ARRAY, and for FLBA, where every value must be
 * type_length bytes: the values then lie back to back, as fixed-width ones. */
static pq_status values_delta_byte_array(cd_ctx *c, const uint8_t *src, size_t len, size_t n)
{
    pq_column_values *o = c->out;
    pq_error kerr;
    pq_status st;
    bool binary = c->leaf->physical_type == PQ_BYTE_ARRAY;
    size_t got = 0, used = 0, need = 0, scratch_bytes;
    int32_t *scratch = NULL, *offsets = NULL;
    size_t scratch_cap = 0, offsets_cap = 0;

    /* Prefix lengths (and the FLBA offsets) are scratch, counted while held. */
    if (!mul_ok(n + 1, sizeof(int32_t), &scratch_bytes))
        return fail(c, PQ_ERR_MEMORY_LIMIT, "%zu values overflow the address space", n);
    st = grow(c, (void **)&scratch, &scratch_cap, scratch_bytes, "DELTA_BYTE_ARRAY prefixes");
    if (st == PQ_OK && !binary)
        st = grow(c, (void **)&offsets, &offsets_cap, scratch_bytes, "DELTA_BYTE_ARRAY offsets");
    if (st == PQ_OK && binary) st = reserve_offsets(c, n);
    if (st != PQ_OK) goto done;
    if (binary) offsets = o->offsets + o->n_values;
    int32_t base = binary ? (int32_t)o->data_len : 0;

    st = pq_delta_byte_array(src, len, n, scratch, offsets, base, NULL, 0, &got, &need, &used, &kerr);
    if (st != PQ_OK) {
        st = kfail(c, st, &kerr);
        goto done;
    }
    if (got != n) {
        st = fail(c, PQ_ERR_CORRUPT_DATA, "DELTA_BYTE_ARRAY: %zu values, the page has %zu non-null values", got, n);
        goto done;
    }
    uint8_t *dst;
    size_t cap;
    if (binary) {
        if ((st = reserve_data(c, need)) != PQ_OK) goto done;
        dst = o->data ? o->data + o->data_len : NULL;
        cap = c->data_cap - o->data_len;
    } else {
        for (size_t i = 0; i < n; i++) {
            if ((size_t)(offsets[i + 1] - offsets[i]) != c->width) {
                st = fail(c, PQ_ERR_CORRUPT_DATA, "DELTA_BYTE_ARRAY: value %zu is %d bytes, FIXED_LEN_BYTE_ARRAY(%zu)",
                          i, offsets[i + 1] - offsets[i], c->width);
                goto done;
            }
        }
        if ((st = reserve_values(c, n)) != PQ_OK) goto done;
        dst = o->values + o->n_values * c->width;
        cap = n * c->width;
    }
    st = pq_delta_byte_array(src, len, n, scratch, offsets, base, dst, cap, &got, &need, &used, &kerr);
    if (st != PQ_OK) {
        st = kfail(c, st, &kerr);
        goto done;
    }
    if (binary) o->data_len += need;
    o->n_values += n;
done:
    free(scratch);
    c->held -= scratch_cap;
    if (!binary) {
        free(offsets);
        c->held -= offsets_cap;
    }
    return st;
}

static pq_status values_byte_stream_split(cd_ctx *c, const uint8_t *src, size_t len, size_t n)
{
    pq_column_values *o = c->out;
    pq_error kerr;
    pq_status st;
    if (len % c->width || len / c->width != n)
        return fail(c, PQ_ERR_CORRUPT_DATA, "BYTE_STREAM_SPLIT: %zu bytes for %zu values of %zu bytes", len, n,
                    c->width);
    if ((st = reserve_values(c, n)) != PQ_OK) return st;
    size_t total = 0;
    st = pq_byte_stream_split(src, len, c->width, 0, n, o->values + o->n_values * c->width, &total, &kerr);
    if (st != PQ_OK) return kfail(c, st, &kerr);
    o->n_values += n;
    return PQ_OK;
}

/* The n non-null values of a data page, encoded as `enc`, appended. */
static pq_status decode_values_as_is(cd_ctx *c, int32_t enc, const uint8_t *src, size_t len, size_t n);

/* Views over the values [n0, n1) a page decoded as offsets into data. */
static pq_status views_from_offsets(cd_ctx *c, size_t n0, size_t n1)
{
    pq_column_values *o = c->out;
    size_t keep = o->n_values;
    o->n_values = n0; /* reserve_views counts from here */
    pq_status st = reserve_views(c, n1 - n0);
    o->n_values = keep;
    if (st != PQ_OK) return st;
    for (size_t k = n0; k < n1; k++) {
        int32_t s = o->offsets[k], e = o->offsets[k + 1];
        make_view(o->views + 16 * k, o->data + s, (size_t)(e - s), VIEW_BUF_DATA, (uint32_t)s);
    }
    return PQ_OK;
}

/* Selection-vector decode of a page not dictionary-encoded: its values
 * [n0, n0 + n) (rows page_row...) were decoded whole; keep the wanted ones,
 * moved down in place while the page is still in cache. */
static void keep_wanted(cd_ctx *c, size_t n0, size_t n)
{
    pq_column_values *o = c->out;
    size_t w = n0;
    if (c->views) {
        for (size_t k = 0; k < n; k++)
            if (row_wanted(c, c->page_row + k)) {
                if (w != n0 + k) memcpy(o->views + 16 * w, o->views + 16 * (n0 + k), 16);
                w++;
            }
    } else if (c->leaf->physical_type == PQ_BYTE_ARRAY) {
        int32_t *off = o->offsets;
        int32_t end = off[n0];
        for (size_t k = 0; k < n; k++) {
            int32_t a = off[n0 + k], b = off[n0 + k + 1];
            if (!row_wanted(c, c->page_row + k)) continue;
            if (a != end && b > a) memmove(o->data + end, o->data + a, (size_t)(b - a));
            end += b - a;
            off[++w] = end; /* off[w] is the start of the next kept value */
        }
        o->data_len = (size_t)end;
    } else {
        size_t wd = c->width;
        for (size_t k = 0; k < n; k++)
            if (row_wanted(c, c->page_row + k)) {
                if (w != n0 + k) memcpy(o->values + w * wd, o->values + (n0 + k) * wd, wd);
                w++;
            }
    }
    o->n_values = w;
}

/* A page's values; with views, the values of a page not dictionary-encoded
 * are decoded as offsets and data, then seen through views of that data;
 * with a row selection, such a page keeps only the wanted rows after. */
static pq_status decode_values(cd_ctx *c, int32_t enc, const uint8_t *src, size_t len, size_t n)
{
    bool dict = enc == PQ_ENC_PLAIN_DICTIONARY || enc == PQ_ENC_RLE_DICTIONARY;
    if (dict || (!c->views && !c->rows)) return decode_values_as_is(c, enc, src, len, n);
    size_t n0 = c->out->n_values;
    pq_status st = decode_values_as_is(c, enc, src, len, n);
    if (st == PQ_OK && c->views) st = views_from_offsets(c, n0, c->out->n_values);
    if (st == PQ_OK && c->rows) keep_wanted(c, n0, c->out->n_values - n0);
    return st;
}

static pq_status decode_values_as_is(cd_ctx *c, int32_t enc, const uint8_t *src, size_t len, size_t n)
{
    int32_t type = c->leaf->physical_type;
    if (n == 0) return PQ_OK; /* writers differ on what an all-null page holds */
    switch (enc) {
    case PQ_ENC_PLAIN:
        return values_plain(c, src, len, n);
    case PQ_ENC_PLAIN_DICTIONARY:
    case PQ_ENC_RLE_DICTIONARY:
        return values_dictionary(c, src, len, n);
    case PQ_ENC_RLE:
        if (type == PQ_BOOLEAN) return values_rle_boolean(c, src, len, n);
        break;
    case PQ_ENC_DELTA_BINARY_PACKED:
        if (type == PQ_INT32 || type == PQ_INT64) return values_delta_binary(c, src, len, n);
        break;
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
        if (type == PQ_BYTE_ARRAY) return values_delta_length(c, src, len, n);
        break;
    case PQ_ENC_DELTA_BYTE_ARRAY:
        if (type == PQ_BYTE_ARRAY || type == PQ_FIXED_LEN_BYTE_ARRAY)
            return values_delta_byte_array(c, src, len, n);
        break;
    case PQ_ENC_BYTE_STREAM_SPLIT:
        if (type == PQ_FLOAT || type == PQ_DOUBLE || type == PQ_INT32 || type == PQ_INT64 ||
            type == PQ_FIXED_LEN_BYTE_ARRAY)
            return values_byte_stream_split(c, src, len, n);
        break;
    default:
        return fail(c, PQ_ERR_UNSUPPORTED, "value encoding is not supported");
    }
    return fail(c, PQ_ERR_UNSUPPORTED, "encoding not valid for %s", pq_physical_type_name(type));
}

/* ---------------------------------------------------------------------------
 * Data pages
 * ------------------------------------------------------------------------- */

/* Non-null values among the page's n slots at `at`. */
static size_t count_non_null(const cd_ctx *c, size_t at, size_t n)
{
    if (c->leaf->max_def == 0 || !c->out->def_levels) return n;
    const int16_t *def = c->out->def_levels + at;
    size_t nn = 0;
    for (size_t i = 0; i < n; i++) nn += def[i] == c->leaf->max_def;
    return nn;
}

/* A column chunk starts a record: its first repetition level is 0. */
static pq_status check_record_start(cd_ctx *c, size_t at, size_t n)
{
    if (at == 0 && n > 0 && c->out->rep_levels[0] != 0)
        return fail(c, PQ_ERR_CORRUPT_DATA, "the chunk's first repetition level is %d, not 0 (a record start)",
                    c->out->rep_levels[0]);
    return PQ_OK;
}

static pq_status decode_data_v1(cd_ctx *c, const uint8_t *raw, size_t at)
{
    const pq_page_info *pi = c->pi;
    const uint8_t *p;
    size_t n = (size_t)pi->num_values, pos = 0, used = 0;
    pq_status st = decompress(c, true, raw, (size_t)pi->compressed_size, (size_t)pi->uncompressed_size, &p);
    if (st != PQ_OK) return st;
    size_t len = (size_t)pi->uncompressed_size;
    if (c->leaf->max_rep > 0) {
        st = levels_v1(c, p, len, pi->rep_level_encoding, false, at, n, &used);
        if (st != PQ_OK || (st = check_record_start(c, at, n)) != PQ_OK) return st;
        pos += used;
    }
    if (c->leaf->max_def > 0) {
        st = levels_v1(c, p + pos, len - pos, pi->def_level_encoding, true, at, n, &used);
        if (st != PQ_OK) return st;
        pos += used;
    }
    return decode_values(c, pi->encoding, p + pos, len - pos, count_non_null(c, at, n));
}

static pq_status decode_data_v2(cd_ctx *c, const uint8_t *raw, size_t at)
{
    const pq_page_info *pi = c->pi;
    size_t n = (size_t)pi->num_values;
    size_t comp = (size_t)pi->compressed_size, uncomp = (size_t)pi->uncompressed_size;
    if (pi->rep_levels_byte_length < 0 || pi->def_levels_byte_length < 0)
        return fail(c, PQ_ERR_CORRUPT_DATA, "negative level byte lengths");
    size_t rl = (size_t)pi->rep_levels_byte_length, dl = (size_t)pi->def_levels_byte_length;
    if (rl > comp || dl > comp - rl || rl + dl > uncomp)
        return fail(c, PQ_ERR_CORRUPT_DATA, "level byte lengths %zu + %zu exceed the page sizes %zu / %zu", rl, dl,
                    comp, uncomp);
    pq_error kerr;
    pq_status st;
    pq_rle_decoder d;
    /* Levels are stored uncompressed, before the values. */
    if (c->leaf->max_rep > 0) {
        st = pq_rle_init_levels_v2(&d, raw, rl, level_bit_width(c->leaf->max_rep), &kerr);
        if (st != PQ_OK) return fail(c, st, "repetition levels: %s", kerr.message);
        if ((st = levels_rle(c, &d, "repetition", c->leaf->max_rep, c->out->rep_levels + at, n)) != PQ_OK ||
            (st = check_record_start(c, at, n)) != PQ_OK)
            return st;
    }
    if (c->leaf->max_def > 0) {
        st = pq_rle_init_levels_v2(&d, raw + rl, dl, level_bit_width(c->leaf->max_def), &kerr);
        if (st != PQ_OK) return fail(c, st, "definition levels: %s", kerr.message);
        if ((st = def_levels_rle(c, &d, at, n)) != PQ_OK) return st;
    }
    const uint8_t *p;
    size_t vlen = pi->is_compressed ? uncomp - rl - dl : comp - rl - dl;
    st = decompress(c, pi->is_compressed, raw + rl + dl, comp - rl - dl, vlen, &p);
    if (st != PQ_OK) return st;
    return decode_values(c, pi->encoding, p, vlen, count_non_null(c, at, n));
}

/* ---------------------------------------------------------------------------
 * The chunk
 * ------------------------------------------------------------------------- */

static size_t value_width(const pq_leaf *leaf)
{
    switch (leaf->physical_type) {
    case PQ_BOOLEAN: return 1;
    case PQ_INT32: return 4;
    case PQ_INT64: return 8;
    case PQ_INT96: return 12;
    case PQ_FLOAT: return 4;
    case PQ_DOUBLE: return 8;
    case PQ_FIXED_LEN_BYTE_ARRAY: return leaf->type_length > 0 ? (size_t)leaf->type_length : 0;
    default: return 0;
    }
}

static pq_status decode_pages(cd_ctx *c, const uint8_t *chunk, size_t chunk_len, const pq_page_info *pages,
                              size_t npages)
{
    pq_column_values *o = c->out;
    const pq_leaf *leaf = c->leaf;
    pq_status st;

    /* Level slots: every data page's num_values. */
    size_t n_levels = 0;
    for (size_t i = 0; i < npages; i++) {
        const pq_page_info *pi = &pages[i];
        if (pi->type != PQ_PAGE_DATA && pi->type != PQ_PAGE_DATA_V2) continue;
        c->page = i;
        c->pi = pi;
        if (pi->num_values < 0) return fail(c, PQ_ERR_CORRUPT_DATA, "num_values %d", pi->num_values);
        n_levels += (size_t)pi->num_values;
        if (n_levels < (size_t)pi->num_values) return fail(c, PQ_ERR_MEMORY_LIMIT, "value count overflows");
    }
    c->pi = NULL;
    size_t level_bytes, rep_cap = 0;
    if (!mul_ok(n_levels, sizeof(int16_t), &level_bytes))
        return fail(c, PQ_ERR_MEMORY_LIMIT, "%zu levels overflow the address space", n_levels);
    c->defs_lazy = leaf->max_rep == 0;
    o->n_levels = n_levels;
    if (leaf->max_def > 0 && !c->defs_lazy && (st = materialize_defs(c, 0)) != PQ_OK) return st;
    if (leaf->max_rep > 0 &&
        (st = grow(c, (void **)&o->rep_levels, &rep_cap, level_bytes ? level_bytes : 1, "repetition levels")) != PQ_OK)
        return st;
    /* The output buffers grow by doubling (realloc). Reserving the bounds
     * up front (n_levels values, the data pages' bytes) measured slower on
     * bench/decode.py: the large fresh blocks cost more page faults than the
     * copies they save. */
    if (leaf->physical_type == PQ_BYTE_ARRAY) {
        if ((st = reserve_offsets(c, 0)) != PQ_OK) return st;
        o->offsets[0] = 0;
    }
    /* A required top-level column has exactly one value per level slot:
     * that room, once, instead of doubling into it (a realloc copy per
     * doubling was 3% of a lineitem read). */
    if (leaf->max_def == 0 && leaf->max_rep == 0 && !c->rows && n_levels) {
        if (c->views) st = reserve_views(c, n_levels);
        else if (leaf->physical_type == PQ_BYTE_ARRAY) st = reserve_offsets(c, n_levels);
        else st = reserve_values(c, n_levels);
        if (st != PQ_OK) return st;
    }

    /* What the data pages hold at least of strings, taken off page by page. */
    c->strings_ahead = 0;
    if (leaf->physical_type == PQ_BYTE_ARRAY && !c->rows)
        for (size_t i = 0; i < npages; i++) c->strings_ahead += strings_lower_bound(leaf, &pages[i]);

    size_t at = 0;
    for (size_t i = 0; i < npages; i++) {
        const pq_page_info *pi = &pages[i];
        c->page = i;
        c->pi = pi;
        if (pi->type == PQ_PAGE_INDEX) continue;
        if (leaf->physical_type == PQ_BYTE_ARRAY && !c->rows) { /* a selection may hold fewer */
            c->strings_ahead -= strings_lower_bound(leaf, pi);
            if ((st = check_string_room(c, strings_lower_bound(leaf, pi))) != PQ_OK) return st;
        }
        if (pi->compressed_size < 0 || pi->uncompressed_size < 0 || pi->data_offset > chunk_len ||
            (uint64_t)pi->compressed_size > chunk_len - pi->data_offset)
            return fail(c, PQ_ERR_INVALID_ARGUMENT, "page data [%llu, +%d) is outside the %zu-byte chunk",
                        (unsigned long long)pi->data_offset, pi->compressed_size, chunk_len);
        const uint8_t *raw = chunk + pi->data_offset;
        if (pi->type == PQ_PAGE_DICTIONARY) {
            const uint8_t *p;
            st = decompress(c, true, raw, (size_t)pi->compressed_size, (size_t)pi->uncompressed_size, &p);
            if (st == PQ_OK) st = decode_dictionary(c, p, (size_t)pi->uncompressed_size);
        } else if ((pi->type == PQ_PAGE_DATA || pi->type == PQ_PAGE_DATA_V2) && c->rows &&
                   !rows_wanted(c, at, (uint64_t)pi->num_values)) {
            at += (size_t)pi->num_values; /* no wanted row: not even decompressed */
        } else if (pi->type == PQ_PAGE_DATA) {
            c->page_row = at;
            st = decode_data_v1(c, raw, at);
            at += (size_t)pi->num_values;
        } else if (pi->type == PQ_PAGE_DATA_V2) {
            c->page_row = at;
            st = decode_data_v2(c, raw, at);
            at += (size_t)pi->num_values;
        } else {
            st = fail(c, PQ_ERR_CORRUPT_DATA, "unknown page type");
        }
        if (st != PQ_OK) return st;
    }
    if (c->rows) o->n_levels = o->n_values; /* a value is a row: the rows kept */
    return PQ_OK;
}

pq_status pq_column_decode(const pq_leaf *leaf, int32_t codec, const uint8_t *chunk, size_t chunk_len,
                           const pq_page_info *pages, size_t npages, uint64_t memory_limit, pq_column_values *out,
                           pq_error *err)
{
    return pq_column_decode_ctx(NULL, leaf, codec, chunk, chunk_len, pages, npages, memory_limit, out, err);
}

pq_status pq_column_decode_ctx(pq_codec_ctx *cctx, const pq_leaf *leaf, int32_t codec, const uint8_t *chunk,
                               size_t chunk_len, const pq_page_info *pages, size_t npages, uint64_t memory_limit,
                               pq_column_values *out, pq_error *err)
{
    return pq_column_decode_flags(cctx, leaf, codec, chunk, chunk_len, pages, npages, memory_limit, 0, NULL, out,
                                  err);
}

/* With views, the result's data and the dictionary become its view buffers
 * (the offsets were scratch). */
static pq_status finish_views(cd_ctx *c)
{
    pq_column_values *o = c->out;
    if (!o->views && !(o->views = malloc(16))) return fail(c, PQ_ERR_NOMEM, "out of memory");
    if (!o->data && !(o->data = calloc(1, 8))) return fail(c, PQ_ERR_NOMEM, "out of memory");
    o->view_bufs[VIEW_BUF_DATA] = o->data;
    o->view_buf_lens[VIEW_BUF_DATA] = o->data_len;
    o->data = NULL;
    o->data_len = 0;
    o->n_view_bufs = 1;
    if (c->have_dict) {
        o->view_bufs[VIEW_BUF_DICT] = c->dict_data;
        o->view_buf_lens[VIEW_BUF_DICT] = c->dict_offsets[c->dict_n] - c->dict_offsets[0];
        c->dict_data = NULL;
        o->n_view_bufs = 2;
    }
    pq_pool_give(o->offsets);
    o->offsets = NULL;
    return PQ_OK;
}

pq_status pq_column_decode_flags(pq_codec_ctx *cctx, const pq_leaf *leaf, int32_t codec, const uint8_t *chunk,
                                 size_t chunk_len, const pq_page_info *pages, size_t npages, uint64_t memory_limit,
                                 unsigned flags, const pq_decode_rows *rows, pq_column_values *out, pq_error *err)
{
    cd_ctx c;
    memset(&c, 0, sizeof c);
    c.err = err;
    if (!out) return fail(&c, PQ_ERR_INVALID_ARGUMENT, "pq_column_decode: NULL output");
    memset(out, 0, sizeof *out);
    if (!leaf || (!chunk && chunk_len) || (!pages && npages))
        return fail(&c, PQ_ERR_INVALID_ARGUMENT, "pq_column_decode: NULL argument");
    if (leaf->max_def < 0 || leaf->max_rep < 0)
        return fail(&c, PQ_ERR_INVALID_ARGUMENT, "negative maximum level (%d, %d)", leaf->max_def, leaf->max_rep);
    c.leaf = leaf;
    c.codec = codec;
    c.limit = memory_limit;
    c.out = out;
    c.width = value_width(leaf);
    out->physical_type = leaf->physical_type;
    out->width = c.width;
    if (leaf->physical_type != PQ_BYTE_ARRAY && c.width == 0)
        return fail(&c, PQ_ERR_UNSUPPORTED, "physical type %s (type_length %d)",
                    pq_physical_type_name(leaf->physical_type), leaf->type_length);
    if (!pq_codec_supported(codec)) return fail(&c, PQ_ERR_UNSUPPORTED, "codec %s", pq_codec_name(codec));

    c.views = (flags & PQ_DECODE_STRING_VIEWS) && leaf->physical_type == PQ_BYTE_ARRAY;
    if (rows && !pq_decode_rows_supported(leaf))
        return fail(&c, PQ_ERR_INVALID_ARGUMENT, "pq_column_decode: rows selected on a column with levels");
    if (rows && rows->count && !rows->keep)
        return fail(&c, PQ_ERR_INVALID_ARGUMENT, "pq_column_decode: a row selection without its bits");
    c.rows = rows;

    pq_codec_ctx_init(&c.own_cctx);
    c.cctx = cctx ? cctx : &c.own_cctx;
    pq_status st = decode_pages(&c, chunk, chunk_len, pages, npages);
    if (st == PQ_OK && c.views) st = finish_views(&c);
    pq_codec_ctx_free(&c.own_cctx);
    pq_pool_give(c.buf);
    pq_pool_give(c.dict_values);
    pq_pool_give(c.dict_offsets);
    pq_pool_give(c.dict_data);
    pq_pool_give(c.dict_views);
    if (st != PQ_OK) pq_column_values_free(out);
    return st;
}

void pq_column_values_free(pq_column_values *v)
{
    if (!v) return;
    pq_pool_give(v->def_levels);
    pq_pool_give(v->rep_levels);
    pq_pool_give(v->values);
    pq_pool_give(v->offsets);
    pq_pool_give(v->data);
    pq_pool_give(v->views);
    for (size_t i = 0; i < v->n_view_bufs; i++) pq_pool_give(v->view_bufs[i]);
    memset(v, 0, sizeof *v);
}

pq_status pq_column_values_definition_levels(pq_column_values *v, int16_t max_def)
{
    if (v->def_levels || max_def <= 0) return PQ_OK;
    v->def_levels = malloc((v->n_levels ? v->n_levels : 1) * sizeof *v->def_levels);
    if (!v->def_levels) return PQ_ERR_NOMEM;
    for (size_t i = 0; i < v->n_levels; i++) v->def_levels[i] = max_def;
    return PQ_OK;
}
