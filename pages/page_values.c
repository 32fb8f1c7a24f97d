/*
 * page_values.c — one page of a column chunk decoded: its bytes
 * decompressed, its repetition and definition levels, a dictionary page's
 * entries and a data page's values in each encoding, or only a prefix of a
 * sparse page (see page_values.h and page_values_internal.h). The CPU
 * executor (cpu_exec.c) runs these steps over a plan's pages.
 *
 * Every allocation is counted against the memory limit, and every kernel
 * error is re-issued with the page named.
 */
#include "pages/page_values.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/byte_stream_split.h"
#include "kernels/delta.h"
#include "kernels/dictionary.h"
#include "kernels/plain.h"
#include "kernels/primitives.h"
#include "kernels/rle.h"
#include "kernels/spread.h"
#include "pages/buffer_pool.h"
#include "metadata/error.h"
#include "pages/codec.h"
#include "pages/page_values_internal.h"
#include "pages/snappy.h"

/* Selected rows in a window of BATCH up to which their dictionary indices
 * are extracted one by one (about 2 ns each) rather than the window
 * unpacked whole (about 0.4 ns a value). */
#define PICK_MAX 256

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

/* Entries of a decimal dictionary widened for decimal128 output at most
 * (64 KiB widened: in L2 beside the output being written). */
#define DICT_WIDE_MAX 4096

/* ---------------------------------------------------------------------------
 * Memory
 * ------------------------------------------------------------------------- */

static bool mul_ok(size_t a, size_t b, size_t *r)
{
    if (a && b > SIZE_MAX / a) return false;
    *r = a * b;
    return true;
}

/* The chunk's own arrays are allocated at their exact size before a page
 * decodes into them: a page that holds more than its planned count is
 * corrupt (its levels or headers disagree with its values), never a reason
 * to grow a buffer other pages are writing. */
static pq_status room_exact(cd_ctx *c, size_t cap, size_t bytes)
{
    if (bytes <= cap) return PQ_OK;
    return fail(c, PQ_ERR_CORRUPT_DATA, "the page holds more values than its headers and levels say");
}

/* Room for `n` more fixed-width values. */
static pq_status reserve_values(cd_ctx *c, size_t n)
{
    size_t total = c->out->n_values + n, bytes;
    if (total < n || !mul_ok(total, c->width, &bytes))
        return fail(c, PQ_ERR_MEMORY_LIMIT, "%zu values overflow the address space", n);
    if (c->direct) return room_exact(c, c->values_cap, bytes);
    return grow(c, (void **)&c->out->values, &c->values_cap, bytes, "values");
}

/* Room for `n` more 16-byte string views. */
static pq_status reserve_views(cd_ctx *c, size_t n)
{
    size_t total = c->out->n_values + n, bytes;
    if (total < n || !mul_ok(total, 16, &bytes))
        return fail(c, PQ_ERR_MEMORY_LIMIT, "%zu values overflow the address space", n);
    if (c->direct) return room_exact(c, c->views_cap, bytes);
    return grow(c, (void **)&c->out->views, &c->views_cap, bytes, "string views");
}

/* Room for `n` more byte-array offsets. */
pq_status pq_page_reserve_offsets(cd_ctx *c, size_t n)
{
    size_t total = c->out->n_values + n + 1, bytes;
    if (total < n || !mul_ok(total, sizeof(int32_t), &bytes))
        return fail(c, PQ_ERR_MEMORY_LIMIT, "%zu values overflow the address space", n);
    if (c->direct) return room_exact(c, c->offsets_cap, bytes);
    return grow(c, (void **)&c->out->offsets, &c->offsets_cap, bytes, "offsets");
}

/* Room for `n` more bytes of byte-array data. */
static pq_status reserve_data(cd_ctx *c, size_t n)
{
    size_t total = c->out->data_len + n;
    if (total < n) return fail(c, PQ_ERR_MEMORY_LIMIT, "%zu bytes overflow the address space", n);
    if (c->direct) return room_exact(c, c->data_cap, total);
    return grow(c, (void **)&c->out->data, &c->data_cap, total, "byte array data");
}

/* Arrow `string` / `binary` hold at most INT32_MAX bytes of values (int32
 * offsets). Fail, naming the types that would hold them, as soon as the
 * bytes decoded and `more` about to be cannot fit: before the allocation,
 * not after it (the plan checked what the headers declare already). */
static pq_status check_string_room(cd_ctx *c, uint64_t more)
{
    uint64_t total = (uint64_t)c->out->data_len + more;
    if (total < more || total > (uint64_t)INT32_MAX)
        return fail(c, PQ_ERR_UNSUPPORTED,
                    "the chunk's values take at least %llu bytes, more than the 2147483647 that Arrow string "
                    "and binary arrays (int32 offsets) hold; large_string or string_view would hold them",
                    (unsigned long long)total);
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Page bytes
 * ------------------------------------------------------------------------- */

static const uint8_t empty_page[1];

/* The bytes of a compressed page stored as it is (a snappy page that is one
 * literal, a zstd frame of one raw block), where they lie in src; else NULL. */
const uint8_t *pq_page_stored(int32_t codec, const uint8_t *src, size_t src_len, size_t dst_len)
{
    if (codec == PQ_CODEC_SNAPPY) return pq_snappy_stored_literal(src, src_len, dst_len);
    if (codec == PQ_CODEC_ZSTD) return pq_zstd_stored_raw(src, src_len, dst_len);
    return NULL;
}

/* The decompressed bytes of [src, src + src_len), dst_len of them: the
 * chunk's own bytes when the codec is UNCOMPRESSED (or the page stored as
 * it is: pq_page_stored), else the page buffer. */

pq_status pq_page_decompress(cd_ctx *c, bool compressed, const uint8_t *src, size_t src_len, size_t dst_len,
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
    /* Decompressed already, with another page (pq_page_decompress_two). */
    if (c->ready_src && src == c->ready_src && dst_len == c->ready_len && c->ready_into == c->buf) {
        c->ready_src = NULL;
        *bytes = c->buf;
        return PQ_OK;
    }
    /* A page stored as it is is its own output: no copy. */
    const uint8_t *stored = pq_page_stored(c->codec, src, src_len, dst_len);
    if (stored) {
        *bytes = stored;
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

void pq_page_decompress_two(cd_ctx *const c[2], const uint8_t *const src[2], const size_t src_len[2],
                            const size_t dst_len[2], uint8_t *const into[2])
{
    uint8_t *dst[2];
    for (int k = 0; k < 2; k++) {
        c[k]->ready_src = NULL;
        if (dst_len[k] > PQ_MAX_PAGE_SIZE || dst_len[k] == 0) return; /* the page's own step says so again */
        if (into[k]) {
            dst[k] = into[k];
            continue;
        }
        if (grow(c[k], (void **)&c[k]->buf, &c[k]->buf_cap, dst_len[k], "page buffer") != PQ_OK) return;
        dst[k] = c[k]->buf;
    }
    pq_error kerr;
    if (pq_snappy_decompress_two(src, src_len, dst, dst_len, &kerr) != PQ_OK) return;
    for (int k = 0; k < 2; k++) {
        c[k]->ready_src = src[k];
        c[k]->ready_len = dst_len[k];
        c[k]->ready_into = dst[k];
    }
}

/* Whether the page is one pq_page_plain_in_place places, its stored bytes
 * aside. */
static bool plain_fits_in_place(const cd_ctx *c)
{
    const pq_page_info *pi = c->pi;
    const pq_column_values *o = c->out;
    int32_t type = c->leaf->physical_type;
    if (!c->direct || c->rows || c->collect || c->indices || c->decimal128 || c->leaf->max_def != 0 ||
        c->leaf->max_rep != 0 || pi->encoding != PQ_ENC_PLAIN || type == PQ_BOOLEAN || type == PQ_BYTE_ARRAY ||
        !o->values || c->width == 0 || c->width != c->stored_width || c->codec == PQ_CODEC_UNCOMPRESSED ||
        pi->num_values <= 0 || pi->compressed_size < 0 || pi->uncompressed_size <= 0)
        return false;
    if (pi->type == PQ_PAGE_DATA_V2 ? !pi->is_compressed || pi->rep_levels_byte_length != 0 ||
                                          pi->def_levels_byte_length != 0
                                    : pi->type != PQ_PAGE_DATA)
        return false;
    size_t n = (size_t)pi->num_values, w = c->width, bytes = (size_t)pi->uncompressed_size;
    /* exactly its values, inside the page's room (else the usual steps say what is wrong) */
    return bytes / w == n && bytes % w == 0 && o->n_values <= c->values_cap / w && n <= c->values_cap / w - o->n_values;
}

uint8_t *pq_page_plain_place(const cd_ctx *c)
{
    return plain_fits_in_place(c) ? c->out->values + c->out->n_values * c->width : NULL;
}

bool pq_page_plain_in_place(cd_ctx *c, const uint8_t *raw, pq_status *st)
{
    uint8_t *place = pq_page_plain_place(c);
    if (!place) return false;
    const pq_page_info *pi = c->pi;
    pq_column_values *o = c->out;
    size_t n = (size_t)pi->num_values, bytes = (size_t)pi->uncompressed_size;
    size_t comp = (size_t)pi->compressed_size;
    if (pq_page_stored(c->codec, raw, comp, bytes)) return false; /* read in place already */
    if (c->ready_src == raw && c->ready_len == bytes && c->ready_into == place) { /* with another page */
        c->ready_src = NULL;
        o->n_values += n;
        *st = PQ_OK;
        return true;
    }
    pq_error kerr;
    *st = pq_decompress_ctx(c->cctx, c->codec, raw, comp, place, bytes, &kerr);
    if (*st != PQ_OK) {
        *st = kfail(c, *st, &kerr);
        return true;
    }
    o->n_values += n;
    return true;
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

/* This page stores its definition levels (the chunk's array is there). */
static void store_defs(cd_ctx *c)
{
    if (c->page_defs) return;
    c->page_defs = true;
    atomic_store(&c->ch->defs_stored, true);
}

/* A selection of an optional leaf planned with a value a row (its chunk's
 * statistics count no null: PQ_PLAN_NO_NULLS): a page with a definition
 * level below the maximum (a null) is refused, not guessed at. Other
 * optional chunks keep their selected rows' levels (defs_selected). */
static pq_status null_in_selection(cd_ctx *c)
{
    return fail(c, PQ_ERR_CORRUPT_DATA, "definition levels: the page holds a null, but the chunk's statistics "
                                        "count none (null_count 0), by which its rows were decoded as a selection");
}

/* A selection's levels, n of them in tmp: each the maximum, or the page is
 * refused. */
static pq_status selection_levels(cd_ctx *c, const uint32_t *tmp, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tmp[i] != (uint32_t)c->leaf->max_def) return null_in_selection(c);
    return PQ_OK;
}

/* A selection's page whose levels are not one run: each checked to be the
 * maximum (writers also bit-pack runs of ones), none stored. */
static pq_status defs_all_max(cd_ctx *c, pq_rle_decoder *d, size_t n)
{
    uint32_t tmp[BATCH];
    pq_error kerr;
    for (size_t done = 0; done < n;) {
        size_t want = n - done < BATCH ? n - done : BATCH, got = 0;
        pq_status st = pq_rle_next(d, tmp, want, &got, &kerr);
        if (st != PQ_OK) return fail(c, st, "definition levels: %s", kerr.message);
        if (got < want) return fail(c, PQ_ERR_CORRUPT_DATA, "definition levels: %zu decoded, the page has %zu values",
                                    done + got, n);
        if ((st = selection_levels(c, tmp, got)) != PQ_OK) return st;
        done += got;
    }
    return PQ_OK;
}

/* A batch of a selection's page levels (tmp[0, got), rows row0...), of an
 * optional flat leaf that may hold nulls: each selected row's level stored
 * at the next slot of out (*k), and each non-null value (*v counts them)
 * whose row is selected marked in c->vsel. 64 rows a step: their non-null
 * bits V and selected bits S; the selected rows' levels are V's bits at
 * S (a parallel bit extract) and the values' selection S's bits at V,
 * appended to vsel. */
static pq_status selected_levels(cd_ctx *c, const uint32_t *tmp, size_t got, uint64_t row0, int16_t *out, size_t *k,
                                 size_t *v)
{
    uint32_t max = (uint32_t)c->leaf->max_def;
    size_t slot = *k, value = *v;
    for (size_t i = 0; i < got; i += 64) {
        size_t m = got - i < 64 ? got - i : 64;
        uint64_t s = sel_bits(c->rows, row0 + i);
        if (m < 64) s &= (1ull << m) - 1;
        bool over;
        uint64_t valid = pq_levels_equal64(tmp + i, m, max, &over);
        if (over)
            for (size_t j = 0; j < m; j++)
                if (tmp[i + j] > max)
                    return fail(c, PQ_ERR_CORRUPT_DATA, "definition level %u exceeds the maximum %u", tmp[i + j],
                                max);
        if (s && max == 1) { /* a selected row's level is its non-null bit */
            uint64_t levels = pq_bits_select64(valid, s);
            size_t ks = (size_t)pq_popcount64(s);
            for (size_t t = 0; t < ks; t++) out[slot + t] = (int16_t)((levels >> t) & 1);
            slot += ks;
        } else if (s) {
            for (size_t j = 0; j < m; j++)
                if (s >> j & 1) out[slot++] = (int16_t)tmp[i + j];
        }
        size_t nv = (size_t)pq_popcount64(valid);
        if (nv && s) pq_bits_or64((uint8_t *)c->vsel, value, pq_bits_select64(s, valid));
        value += nv;
    }
    *k = slot;
    *v = value;
    return PQ_OK;
}

/* A selection's page of n rows (levels from d, or BIT_PACKED at p when d
 * is NULL) whose levels are not one run of max_def, in a chunk that may
 * hold nulls: the selected rows' levels stored from slot `at`, the page's
 * values selected by c->vsel (page_vsel). */
static pq_status defs_selected(cd_ctx *c, pq_rle_decoder *d, const uint8_t *p, size_t len, size_t at, size_t n,
                               size_t *consumed)
{
    /* n bits, and a word past them (pq_bits_or64 writes the next word) */
    size_t words = n / 64 + 2;
    pq_status st = grow(c, (void **)&c->vsel, &c->vsel_cap, words * sizeof(uint64_t), "a page's selection");
    if (st != PQ_OK) return st;
    memset(c->vsel, 0, words * sizeof(uint64_t));
    store_defs(c);
    uint32_t tmp[BATCH];
    pq_error kerr;
    size_t k = 0, v = 0, pos = 0;
    int bw = level_bit_width(c->leaf->max_def);
    for (size_t done = 0; done < n;) {
        size_t want = n - done < BATCH ? n - done : BATCH, got = 0, used = 0;
        if (d) {
            st = pq_rle_next(d, tmp, want, &got, &kerr);
        } else {
            st = pq_bit_packed_levels(p + pos, len - pos, bw, want, tmp, &used, &kerr);
            got = want;
            pos += used;
        }
        if (st != PQ_OK) return fail(c, st, "definition levels: %s", kerr.message);
        if (got < want) return fail(c, PQ_ERR_CORRUPT_DATA, "definition levels: %zu decoded, the page has %zu values",
                                    done + got, n);
        if ((st = selected_levels(c, tmp, got, c->page_row + done, c->def_levels + at, &k, &v)) != PQ_OK) return st;
        done += got;
    }
    c->page_vsel = true;
    c->sel_nn = v;
    if (consumed) *consumed = pos;
    return PQ_OK;
}

/* The definition levels of a page (n slots at `at`) from RLE runs: nothing
 * stored when they are one run of max_def (a leaf without repetition). */
static pq_status def_levels_rle(cd_ctx *c, pq_rle_decoder *d, size_t at, size_t n)
{
    int16_t max = c->leaf->max_def;
    if (c->defs_lazy) {
        uint32_t value;
        uint64_t count;
        if (pq_rle_leading_run(d, &value, &count) && value == (uint32_t)max && count >= n) return PQ_OK;
    }
    if (c->rows) return c->rows_nulls ? defs_selected(c, d, NULL, 0, at, n, NULL) : defs_all_max(c, d, n);
    store_defs(c);
    return levels_rle(c, d, "definition", max, c->def_levels + at, n);
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
        return levels_rle(c, &d, what, max, c->rep_levels + at, n);
    }
    if (definition && !c->rows) store_defs(c);
    int16_t *out = (definition ? c->def_levels : c->rep_levels) + at;
    if (enc == PQ_ENC_BIT_PACKED && definition && c->rows && c->rows_nulls)
        return defs_selected(c, NULL, p, len, at, n, consumed);
    if (enc == PQ_ENC_BIT_PACKED) {
        uint32_t tmp[BATCH];
        size_t pos = 0;
        for (size_t done = 0; done < n;) {
            size_t want = n - done < BATCH ? n - done : BATCH, used = 0;
            st = pq_bit_packed_levels(p + pos, len - pos, bw, want, tmp, &used, &kerr);
            if (st != PQ_OK) return fail(c, st, "%s levels: %s", what, kerr.message);
            if (definition && c->rows) { /* a selection's page: checked, not stored */
                if ((st = selection_levels(c, tmp, want)) != PQ_OK) return st;
                pos += used;
                done += want;
                continue;
            }
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

/* The bytes [0, keep) of a little-endian word, the others zeroed (keep 0..8). */
static inline uint64_t low_bytes(uint64_t v, size_t keep)
{
    return keep >= 8 ? v : v & ((1ull << (8 * keep)) - 1);
}

/* The view of a PLAIN value at p (its 4-byte length l, then its bytes)
 * whose bytes were copied to data offset `at` of buffer `buf`. The layouts
 * agree: a view starts with the length, then up to 12 bytes inline (or the
 * 4-byte prefix), so its first 16 bytes are the page's from p, with the
 * bytes past the value zeroed. Reads 16 bytes from p. */
static inline void plain_view(uint8_t *w, const uint8_t *p, uint32_t l, uint32_t buf, uint32_t at)
{
    uint64_t lo, hi;
    memcpy(&lo, p, 8);
    if (l <= 12) {
        memcpy(&hi, p + 8, 8);
        lo = low_bytes(lo, 4 + (size_t)l);
        hi = l > 4 ? low_bytes(hi, (size_t)l - 4) : 0;
    } else {
        hi = (uint64_t)buf | (uint64_t)at << 32;
    }
    memcpy(w, &lo, 8);
    memcpy(w + 8, &hi, 8);
}

/* Bytes a value may be moved in words when both sides have them left. */
#define PLAIN_WORDS 48

/* PLAIN byte arrays, n of them in src (len bytes), in one walk: their bytes
 * appended to data at *dl (cap bytes in all), and for each, where given,
 * its end offset (base + the bytes so far) in offsets[i + 1] and its view
 * (buffer buf) in views + 16 i; *max_len gets the longest. A value of at
 * most PLAIN_WORDS bytes is moved as three 16-byte words while the page and
 * the room have that many left (no call, no size dispatch: what lands past
 * the value is overwritten by the next, or lies in room the caller zeroes
 * or pads); near either end, or a longer value, exactly. Lengths checked
 * as pq_plain_value_length checks them; the bytes must fit the room.
 * Inlined, so that each caller's NULLs take their branches out of the loop. */
static inline __attribute__((always_inline)) pq_status
plain_strings(cd_ctx *c, const uint8_t *src, size_t len, size_t n, uint8_t *data, size_t cap, size_t *dl,
              int32_t *offsets, int32_t base, uint8_t *views, uint32_t buf, size_t *max_len)
{
    size_t pos = 0, at = *dl, longest = 0, i = 0;
    pq_status st;
    for (; i < n; i++) {
        /* the length, 16 bytes for the view, PLAIN_WORDS for the move */
        if (len - pos < 4 + PLAIN_WORDS || cap - at < PLAIN_WORDS) break;
        uint32_t l = pq_load_le32(src + pos);
        if (l > PLAIN_WORDS) break;
        const uint8_t *s = src + pos + 4;
        memcpy(data + at, s, 16);
        memcpy(data + at + 16, s + 16, 16);
        memcpy(data + at + 32, s + 32, 16);
        if (views) plain_view(views + 16 * i, src + pos, l, buf, (uint32_t)at);
        at += l;
        pos += 4 + (size_t)l;
        if (offsets) offsets[i + 1] = base + (int32_t)(at - *dl);
        longest = l > longest ? l : longest;
    }
    for (; i < n; i++) {
        uint32_t l = 0; /* set on success; gcc cannot tell */
        pq_error kerr;
        if ((st = pq_plain_value_length(src, len, &pos, i, n, &l, &kerr)) != PQ_OK) return kfail(c, st, &kerr);
        if (l > cap - at)
            return fail(c, PQ_ERR_CORRUPT_DATA, "PLAIN BYTE_ARRAY: value %zu of %u bytes exceeds its room", i, l);
        if (l) memcpy(data + at, src + pos, l);
        if (views) pq_view_make(views + 16 * i, data + at, l, buf, (uint32_t)at);
        at += l;
        pos += l;
        if (offsets) offsets[i + 1] = base + (int32_t)(at - *dl);
        longest = l > longest ? l : longest;
    }
    *dl = at;
    if (max_len) *max_len = longest;
    return PQ_OK;
}

/* The dictionary page's first `first` entries (SIZE_MAX: all it holds)
 * from its decompressed bytes src (len: those bytes, or a prefix of them
 * holding the entries). */
pq_status pq_page_decode_dictionary(cd_ctx *c, const uint8_t *src, size_t len, size_t first)
{
    const pq_page_info *pi = c->pi;
    if (c->ch->have_dict) return fail(c, PQ_ERR_CORRUPT_DATA, "a second dictionary page in the chunk");
    if (pi->encoding != PQ_ENC_PLAIN && pi->encoding != PQ_ENC_PLAIN_DICTIONARY)
        return fail(c, PQ_ERR_UNSUPPORTED, "dictionary page encoding is not supported");
    if (pi->num_values < 0) return fail(c, PQ_ERR_CORRUPT_DATA, "num_values %d", pi->num_values);
    size_t n = (size_t)pi->num_values < first ? (size_t)pi->num_values : first, used = 0, bytes;
    pq_error kerr;
    pq_status st;
    int32_t type = c->leaf->physical_type;
    size_t width = pq_plan_value_width(c->leaf); /* the entries' own width (c->width is 4 for indices) */

    if (type == PQ_BYTE_ARRAY) {
        if (n > len / 4)
            return fail(c, PQ_ERR_CORRUPT_DATA, "%zu dictionary entries cannot fit in %zu bytes", n, len);
        /* Padded for the gather's 16-byte copies (PQ_DICT_COPY_SLACK). */
        if ((st = grow(c, (void **)&c->ch->dict_offsets, &c->ch->dict_offsets_cap, (n + 1) * sizeof(int32_t),
                       "dictionary")) != PQ_OK ||
            (st = grow(c, (void **)&c->ch->dict_data, &c->ch->dict_data_cap, len + PQ_DICT_COPY_SLACK, "dictionary")) !=
                PQ_OK)
            return st;
        if (c->views && (st = grow(c, (void **)&c->ch->dict_views, &c->ch->dict_views_cap, (n ? n : 1) * 16,
                                   "dictionary")) != PQ_OK)
            return st;
        /* offsets, bytes, the longest entry and (views) a view per entry
         * into the dictionary's bytes, in one walk */
        size_t data_len = 0;
        c->ch->dict_offsets[0] = 0;
        st = plain_strings(c, src, len, n, c->ch->dict_data, c->ch->dict_data_cap - PQ_DICT_COPY_SLACK, &data_len,
                           c->ch->dict_offsets, 0, c->views ? c->ch->dict_views : NULL, VIEW_BUF_DICT,
                           &c->ch->dict_max_len);
        if (st != PQ_OK) return st;
        memset(c->ch->dict_data + data_len, 0, PQ_DICT_COPY_SLACK); /* defined bytes for the copies */
    } else if (type == PQ_BOOLEAN) {
        if (n / 8 > len)
            return fail(c, PQ_ERR_CORRUPT_DATA, "%zu dictionary entries cannot fit in %zu bytes", n, len);
        if ((st = grow(c, (void **)&c->ch->dict_values, &c->ch->dict_values_cap, n ? n : 1, "dictionary")) != PQ_OK)
            return st;
        st = pq_plain_boolean(src, len, 0, n, c->ch->dict_values, &used, &kerr);
    } else {
        if (n > len / width || !mul_ok(n, width, &bytes))
            return fail(c, PQ_ERR_CORRUPT_DATA, "%zu dictionary entries of %zu bytes cannot fit in %zu bytes", n,
                        width, len);
        st = PQ_OK;
        if (src != c->ch->dict_values) { /* else decompressed there (cpu_exec.c's dictionary_page_whole) */
            if ((st = grow(c, (void **)&c->ch->dict_values, &c->ch->dict_values_cap, bytes ? bytes : 1,
                           "dictionary")) != PQ_OK)
                return st;
            st = pq_plain_fixed(src, len, width, n, c->ch->dict_values, &used, &kerr);
        }
        /* Widened once, a small dictionary's gathers are 16-byte copies
         * instead of a sign extension each (a large one stays narrow: its
         * entries' cache footprint would double) */
        if (st == PQ_OK && c->decimal128 && n <= DICT_WIDE_MAX) {
            if ((st = grow(c, (void **)&c->ch->dict_wide, &c->ch->dict_wide_cap, n ? 16 * n : 1, "dictionary")) !=
                PQ_OK)
                return st;
            pq_ints_sign_extend(c->ch->dict_wide, 16, c->ch->dict_values, width, n);
        }
    }
    if (st != PQ_OK) return kfail(c, st, &kerr);
    c->ch->dict_n = n;
    c->ch->have_dict = true;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Values
 * ------------------------------------------------------------------------- */

/* The length of PLAIN byte array i (of n) at *pos in p (len bytes),
 * checked; *pos moves past the length. */
pq_status pq_page_plain_length(cd_ctx *c, const uint8_t *p, size_t len, size_t *pos, size_t i, size_t n,
                               uint32_t *l)
{
    if (len - *pos < 4)
        return fail(c, PQ_ERR_CORRUPT_DATA, "PLAIN BYTE_ARRAY: value %zu of %zu: length truncated at byte %zu", i, n,
                    *pos);
    *l = pq_load_le32(p + *pos);
    *pos += 4;
    if (*l > len - *pos)
        return fail(c, PQ_ERR_CORRUPT_DATA,
                    "PLAIN BYTE_ARRAY: value %zu of %u bytes at byte %zu runs past the %zu bytes present", i, *l, *pos,
                    len);
    return PQ_OK;
}

/* PLAIN values of the selected rows alone (selection-vector decode; a
 * value is a row): fixed-width runs copied, byte arrays walked and the
 * selected ones copied. */
static pq_status values_plain_rows(cd_ctx *c, const uint8_t *src, size_t len, size_t n)
{
    pq_column_values *o = c->out;
    pq_error kerr;
    pq_status st;
    int32_t type = c->leaf->physical_type;
    size_t out_n = (size_t)pq_decode_rows_count(c->rows, c->page_row, n), used = 0;
    if (type == PQ_BYTE_ARRAY) {
        if (n > len / 4) return fail(c, PQ_ERR_CORRUPT_DATA, "%zu values cannot fit in %zu bytes", n, len);
        if ((st = pq_page_reserve_offsets(c, out_n)) != PQ_OK ||
            (!c->direct && (st = reserve_data(c, len - 4 * n)) != PQ_OK))
            return st;
        size_t pos = 0, k = o->n_values;
        uint64_t dl = o->data_len;
        /* every length walked and checked, the selection's bits a word of
         * 64 rows at a time, the selected values copied */
        for (size_t i = 0; i < n; i += 64) {
            uint64_t b = sel_bits(c->rows, c->page_row + i);
            size_t end = n - i < 64 ? n : i + 64;
            for (size_t j = i; j < end; j++, b >>= 1) {
                uint32_t l;
                if ((st = plain_length(c, src, len, &pos, j, n, &l)) != PQ_OK) return st;
                if (b & 1) {
                    if (dl + l > c->data_cap || dl + l > (uint64_t)INT32_MAX)
                        return fail(c, PQ_ERR_CORRUPT_DATA,
                                    "PLAIN BYTE_ARRAY: the selected values exceed their room");
                    memcpy(o->data + dl, src + pos, l);
                    dl += l;
                    o->offsets[++k] = (int32_t)dl;
                }
                pos += l;
            }
        }
        o->data_len = (size_t)dl;
        o->n_values = k;
        return PQ_OK;
    }
    size_t w = c->stored_width;
    if (type == PQ_BOOLEAN ? n / 8 > len : n > len / w)
        return fail(c, PQ_ERR_CORRUPT_DATA, "%zu values of %zu bytes cannot fit in %zu bytes", n, w, len);
    if ((st = reserve_values(c, out_n)) != PQ_OK) return st;
    if ((w == 4 || w == 8) && type != PQ_BOOLEAN && (c->decimal128 ? c->width == 16 : c->width == w)) {
        /* 64 rows a step, their values picked by the selection's bits
         * (runs of one or two rows cost a call each the way below); a
         * decimal's picked through a word's room, then widened */
        uint8_t *dst = o->values + o->n_values * c->width, tmp[64 * 8];
        size_t kept = 0;
        for (size_t i = 0; i < n; i += 64) {
            uint64_t b = sel_bits(c->rows, c->page_row + i);
            if (n - i < 64) b &= (1ull << (n - i)) - 1;
            if (!b) continue;
            if (kept + (size_t)pq_popcount64(b) > out_n) /* the room is the selection's count */
                return fail(c, PQ_ERR_CORRUPT_DATA, "PLAIN: the selection holds more rows than were counted");
            if (c->decimal128) {
                size_t k = pq_plain_select64(src + i * w, w, b, tmp);
                pq_ints_sign_extend(dst + kept * 16, 16, tmp, w, k);
                kept += k;
            } else {
                kept += pq_plain_select64(src + i * w, w, b, dst + kept * w);
            }
        }
        o->n_values += kept;
        return PQ_OK;
    }
    for (size_t a = 0; a < n;) {
        a = (size_t)(next_row(c, c->page_row + a, c->page_row + n, true) - c->page_row);
        if (a >= n) break;
        size_t b = (size_t)(next_row(c, c->page_row + a, c->page_row + n, false) - c->page_row);
        uint8_t *dst = o->values + o->n_values * c->width;
        if (type == PQ_BOOLEAN) st = pq_plain_boolean(src, len, a, b - a, dst, &used, &kerr);
        else if (c->decimal128) pq_ints_sign_extend(dst, 16, src + a * w, w, b - a);
        else memcpy(dst, src + a * w, (b - a) * w);
        if (st != PQ_OK) return kfail(c, st, &kerr);
        o->n_values += b - a;
        a = b;
    }
    return PQ_OK;
}

static pq_status values_plain(cd_ctx *c, const uint8_t *src, size_t len, size_t n)
{
    if (c->rows && !c->views) return values_plain_rows(c, src, len, n);
    pq_column_values *o = c->out;
    size_t used = 0;
    pq_error kerr;
    pq_status st;
    int32_t type = c->leaf->physical_type;

    if (type == PQ_BYTE_ARRAY) {
        if (n > len / 4) return fail(c, PQ_ERR_CORRUPT_DATA, "%zu values cannot fit in %zu bytes", n, len);
        if (!c->direct && (uint64_t)o->data_len + (len - 4 * n) > (uint64_t)INT32_MAX) {
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
        /* Direct: the page's exact room, which the kernel checks (len - 4n
         * also counts any bytes after the last value). */
        if ((st = pq_page_reserve_offsets(c, n)) != PQ_OK ||
            (!c->direct && (st = reserve_data(c, len - 4 * n)) != PQ_OK))
            return st;
        size_t dl = o->data_len;
        st = plain_strings(c, src, len, n, o->data, c->data_cap, &dl, o->offsets + o->n_values, (int32_t)o->data_len,
                           NULL, 0, NULL);
        if (st != PQ_OK) return st;
        o->data_len = dl;
    } else if (type == PQ_BOOLEAN) {
        if (n / 8 > len) return fail(c, PQ_ERR_CORRUPT_DATA, "%zu booleans cannot fit in %zu bytes", n, len);
        if ((st = reserve_values(c, n)) != PQ_OK) return st;
        st = pq_plain_boolean(src, len, 0, n, o->values + o->n_values, &used, &kerr);
        if (st != PQ_OK) return kfail(c, st, &kerr);
    } else {
        size_t w = c->stored_width;
        if (n > len / w)
            return fail(c, PQ_ERR_CORRUPT_DATA, "%zu values of %zu bytes cannot fit in %zu bytes", n, w, len);
        if ((st = reserve_values(c, n)) != PQ_OK) return st;
        if (c->decimal128) pq_ints_sign_extend(o->values + o->n_values * 16, 16, src, w, n);
        else st = pq_plain_fixed(src, len, w, n, o->values + o->n_values * w, &used, &kerr);
        if (st != PQ_OK) return kfail(c, st, &kerr);
    }
    o->n_values += n;
    return PQ_OK;
}

/* The next `want` (at most BATCH) dictionary indices of the page, their
 * values written at output slot `at`; `pos` is the first one's index in
 * the page's n values, for messages. */
/* Room for n more collected indices, once a page. */
static pq_status collect_room(cd_ctx *c, size_t n)
{
    cd_indices *ix = c->collect;
    return grow(c, (void **)&ix->idx, &ix->idx_cap, (ix->nidx + n + 1) * sizeof(uint32_t), "dictionary indices");
}

/* A late dictionary's page: the selected rows' indices kept for the gather
 * (phase 4 of the executor), the largest noted. Checked against the
 * dictionary page's entries already (dict_entries). */
static pq_status collect_indices(cd_ctx *c, const uint32_t *idx, size_t got)
{
    cd_indices *ix = c->collect;
    if ((ix->nidx + got) * sizeof(uint32_t) > ix->idx_cap)
        return fail(c, PQ_ERR_CORRUPT_DATA, "more selected dictionary indices than selected rows");
    uint32_t top = 0;
    for (size_t i = 0; i < got; i++) top = idx[i] > top ? idx[i] : top;
    if (got && (size_t)top + 1 > ix->need) ix->need = (size_t)top + 1;
    memcpy(ix->idx + ix->nidx, idx, got * sizeof(uint32_t));
    ix->nidx += got;
    return PQ_OK;
}

/* How many entries a dictionary index must stay below: the decoded
 * dictionary's, or, for a late dictionary not decoded yet, its page's. */
static inline size_t dict_entries(const cd_ctx *c)
{
    return c->ch->late ? c->ch->late_total : c->ch->dict_n;
}

/* The next `want` (at most BATCH) dictionary indices of the page, their
 * values written at output slot `at`; `pos` is the first one's index in
 * the page's n values, for messages. */
static pq_status dict_batch(cd_ctx *c, pq_rle_decoder *d, uint32_t *idx, size_t want, size_t at, size_t pos,
                           size_t n)
{
    pq_error kerr;
    pq_status st;
    size_t got = 0;
    if ((st = pq_rle_next(d, idx, want, &got, &kerr)) != PQ_OK) return kfail(c, st, &kerr);
    if (got < want)
        return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary indices: %zu decoded, the page has %zu non-null values",
                    pos + got, n);
    /* The largest index the decoder returned so far (this batch's too)
     * is below the dictionary's size: nothing to check; else find the
     * first one past it, to name it. */
    size_t bad = d->max_out < dict_entries(c) ? got : pq_dict_first_out_of_range(idx, got, dict_entries(c));
    if (bad < got)
        return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary index %u at value %zu >= dictionary size %zu", idx[bad],
                    pos + bad, dict_entries(c));
    return pq_page_dict_gather(c, idx, got, at);
}

/* The entries of `got` indices, each checked against the dictionary by the
 * caller, written at output slot `at`. */
pq_status pq_page_dict_gather(cd_ctx *c, const uint32_t *idx, size_t got, size_t at)
{
    pq_column_values *o = c->out;
    pq_error kerr;
    pq_status st;
    if (c->collect) return collect_indices(c, idx, got);
    if (c->indices) { /* the indices are the output */
        memcpy(o->values + at * 4, idx, got * 4);
        return PQ_OK;
    }
    bool binary = c->leaf->physical_type == PQ_BYTE_ARRAY;
    size_t bound = c->ch->dict_max_len * got + PQ_DICT_COPY_SLACK; /* no overflow: both are small */
    if (c->views) { /* a view is its entry's view: 16 bytes, whatever the length */
        uint8_t *w = o->views + at * 16;
        for (size_t i = 0; i < got; i++) memcpy(w + 16 * i, c->ch->dict_views + 16 * (size_t)idx[i], 16);
    } else if (binary && (c->direct || bound <= c->data_cap - o->data_len + (4u << 20))) {
        /* Direct: the page's exact room, counted by the size pass (the
         * gather's padded copies stay inside it). Otherwise room for the
         * longest entry each time (rarely more than a few MB ahead of what
         * is needed): one pass. */
        if (!c->direct && (st = reserve_data(c, bound)) != PQ_OK) return st;
        int64_t wrote = pq_dict_gather_binary_padded(c->ch->dict_offsets, c->ch->dict_data, c->ch->dict_max_len, idx,
                                                     got, o->offsets + at, (int32_t)o->data_len,
                                                     o->data + o->data_len, c->data_cap - o->data_len);
        if (wrote == -1) return fail(c, PQ_ERR_UNSUPPORTED, "byte array data exceeds int32 offsets");
        if (wrote < 0)
            return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary entries exceed the room counted for them%s",
                        c->room_from_stats ? " (by the header or the offset index's SizeStatistics)" : "");
        o->data_len += (size_t)wrote;
    } else if (binary) {
        size_t need = 0;
        st = pq_dict_gather_binary(c->ch->dict_offsets, c->ch->dict_data, c->ch->dict_n, idx, got, o->offsets + at,
                                   (int32_t)o->data_len, NULL, 0, &need, &kerr);
        if (st != PQ_OK) return kfail(c, st, &kerr);
        if ((st = check_string_room(c, need)) != PQ_OK || (st = reserve_data(c, need)) != PQ_OK) return st;
        st = pq_dict_gather_binary(c->ch->dict_offsets, c->ch->dict_data, c->ch->dict_n, idx, got, o->offsets + at,
                                   (int32_t)o->data_len, o->data ? o->data + o->data_len : NULL,
                                   c->data_cap - o->data_len, &need, &kerr);
        if (st != PQ_OK) return kfail(c, st, &kerr);
        o->data_len += need;
    } else if (c->decimal128) { /* entries of their stored width, widened as gathered */
        if (c->ch->dict_wide) pq_dict_gather_fixed_checked(c->ch->dict_wide, 16, idx, got, o->values + at * 16);
        else pq_dict_gather_decimal128_checked(c->ch->dict_values, c->stored_width, idx, got, o->values + at * 16);
    } else {
        pq_dict_gather_fixed_checked(c->ch->dict_values, c->width, idx, got, o->values + at * c->width);
    }
    return PQ_OK;
}

/* A selection's window of w dictionary indices, values [pos, pos + w) of
 * the page's n, its selection's bits read once. A window without a
 * selected row is skipped in the index stream (a run or a bit-packed group
 * costs nothing per value); a sparse one has each selected index extracted
 * from its run, with no search and no unpacking of the others; a dense one
 * (past PICK_MAX) is unpacked whole, its selected indices then picked by
 * the bits: *m of them in idx, in row order, not yet range-checked. A
 * window whose every row is selected is left in the stream, *whole set. */
pq_status pq_page_dict_window(cd_ctx *c, pq_rle_decoder *d, size_t pos, size_t w, size_t n, uint32_t *idx,
                              size_t *m, bool *whole)
{
    pq_error kerr;
    pq_status st;
    uint64_t row0 = c->page_row + pos, bits[BATCH / 64];
    size_t k = 0, got = 0;
    *m = 0;
    *whole = false;
    for (size_t j = 0; j < w; j += 64) {
        uint64_t b = sel_bits(c->rows, row0 + j);
        if (w - j < 64) b &= (1ull << (w - j)) - 1;
        bits[j / 64] = b;
        k += (size_t)pq_popcount64(b);
    }
    if (k == w) {
        *whole = true;
        return PQ_OK;
    }
    if (k == 0) {
        st = pq_rle_skip(d, w, &got, &kerr);
    } else if (k <= PICK_MAX) {
        st = pq_rle_pick(d, bits, w, idx, &got, m, &kerr);
    } else {
        st = pq_rle_next(d, idx, w, &got, &kerr);
        if (st == PQ_OK && got == w) *m = pq_dict_indices_select(idx, bits, w); /* short: refused below */
    }
    if (st != PQ_OK) return kfail(c, st, &kerr);
    if (got < w)
        return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary indices: %zu decoded, the page has %zu non-null values",
                    pos + got, n);
    return PQ_OK;
}

pq_status pq_page_values_dictionary(cd_ctx *c, const uint8_t *src, size_t len, size_t n)
{
    pq_column_values *o = c->out;
    pq_error kerr;
    pq_status st;
    if (!c->ch->have_dict && !c->ch->late)
        return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary-encoded page without a dictionary page");
    bool binary = c->leaf->physical_type == PQ_BYTE_ARRAY && !c->indices;
    size_t out_n = c->rows ? (size_t)pq_decode_rows_count(c->rows, c->page_row, n) : n; /* values written */
    if (c->collect) {
        if ((st = collect_room(c, out_n)) != PQ_OK) return st;
    } else if ((st = c->views ? reserve_views(c, out_n)
                     : binary  ? pq_page_reserve_offsets(c, out_n)
                               : reserve_values(c, out_n)) != PQ_OK) {
        return st;
    }
    /* Room for the longest entry each time, once (the gather's bound), when
     * that is not far more than a page: no growing copies. */
    if (binary && !c->views && !c->direct && !c->collect && c->ch->dict_max_len <= ((size_t)64 << 20) / (out_n ? out_n : 1) &&
        (st = reserve_data(c, c->ch->dict_max_len * out_n + PQ_DICT_COPY_SLACK)) != PQ_OK)
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
    /* Selection-vector decode, a window of BATCH rows at a time: a whole
     * window straight through the gather, a part one's selected indices
     * gathered (pq_page_dict_window). */
    size_t pos = 0, kept = 0;
    while (pos < n) {
        size_t w = n - pos < BATCH ? n - pos : BATCH, m = 0;
        bool whole = false;
        if ((st = pq_page_dict_window(c, &d, pos, w, n, idx, &m, &whole)) != PQ_OK) return st;
        if (whole) {
            if ((st = dict_batch(c, &d, idx, w, o->n_values + kept, pos, n)) != PQ_OK) return st;
            kept += w;
        } else if (m) {
            size_t bad = pq_dict_first_out_of_range(idx, m, dict_entries(c));
            if (bad < m)
                return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary index %u of a selected row >= dictionary size %zu",
                            idx[bad], dict_entries(c));
            if ((st = pq_page_dict_gather(c, idx, m, o->n_values + kept)) != PQ_OK) return st;
            kept += m;
        }
        pos += w;
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
    if ((st = pq_page_reserve_offsets(c, n)) != PQ_OK) return st;
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
    if (st == PQ_OK && binary) st = pq_page_reserve_offsets(c, n);
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
    release(c, scratch, scratch_cap);
    if (!binary) release(c, offsets, offsets_cap);
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
        pq_view_make(o->views + 16 * k, o->data + s, (size_t)(e - s), VIEW_BUF_DATA, (uint32_t)s);
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

/* PLAIN byte arrays of a page into string views over a copy of their
 * bytes, in one walk (no offsets in between): the page's own buffers (a
 * staged page) or its exact room in the chunk's (direct). */
static pq_status values_plain_views(cd_ctx *c, const uint8_t *src, size_t len, size_t n)
{
    pq_column_values *o = c->out;
    if (n > len / 4) return fail(c, PQ_ERR_CORRUPT_DATA, "%zu values cannot fit in %zu bytes", n, len);
    pq_status st;
    if ((st = reserve_views(c, n)) != PQ_OK || (st = reserve_data(c, len - 4 * n)) != PQ_OK) return st;
    size_t dl = o->data_len;
    st = plain_strings(c, src, len, n, o->data, c->data_cap, &dl, NULL, 0, o->views + 16 * o->n_values,
                       VIEW_BUF_DATA, NULL);
    if (st != PQ_OK) return st;
    o->data_len = dl;
    o->n_values += n;
    return PQ_OK;
}

/* A page's values; with views, the values of a page not dictionary-encoded
 * are decoded as offsets and data, then seen through views of that data;
 * with a row selection, such a page keeps only the wanted rows after, but
 * for PLAIN, whose wanted values alone are copied out (values_plain_rows). */
pq_status pq_page_decode_values(cd_ctx *c, int32_t enc, const uint8_t *src, size_t len, size_t n)
{
    bool dict = enc == PQ_ENC_PLAIN_DICTIONARY || enc == PQ_ENC_RLE_DICTIONARY;
    bool plain_rows = enc == PQ_ENC_PLAIN && c->rows && n > 0;
    if (dict || (plain_rows && !c->views) || (!c->views && !c->rows)) return decode_values_as_is(c, enc, src, len, n);
    if (enc == PQ_ENC_PLAIN && c->views && !c->rows && len >= 4 * (uint64_t)n &&
        (uint64_t)c->out->data_len + (len - 4 * (uint64_t)n) <= (uint64_t)INT32_MAX) /* else: the limit's message */
        return values_plain_views(c, src, len, n);
    size_t n0 = c->out->n_values;
    if (plain_rows) { /* views: of the wanted strings, copied out as offsets and data */
        pq_status st = values_plain_rows(c, src, len, n);
        return st == PQ_OK ? views_from_offsets(c, n0, c->out->n_values) : st;
    }
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
        return pq_page_values_dictionary(c, src, len, n);
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
    if (c->page_vsel) return c->sel_nn; /* the page's, counted with its selected levels */
    if (c->leaf->max_def == 0 || !c->page_defs) return n;
    const int16_t *def = c->def_levels + at;
    size_t nn = 0;
    for (size_t i = 0; i < n; i++) nn += def[i] == c->leaf->max_def;
    return nn;
}

/* A column chunk starts a record: its first repetition level is 0. */
static pq_status check_record_start(cd_ctx *c, size_t at, size_t n)
{
    if (at == 0 && n > 0 && c->rep_levels[0] != 0)
        return fail(c, PQ_ERR_CORRUPT_DATA, "the chunk's first repetition level is %d, not 0 (a record start)",
                    c->rep_levels[0]);
    return PQ_OK;
}

/* A data page's levels, decoded into the chunk's level arrays at slot
 * `at`, and its values section: *vals (vlen bytes, decompressed) holding
 * *nn non-null values. */
static pq_status page_levels_v1(cd_ctx *c, const uint8_t *raw, size_t at, const uint8_t **vals, size_t *vlen,
                                size_t *nn)
{
    const pq_page_info *pi = c->pi;
    const uint8_t *p;
    size_t n = (size_t)pi->num_values, pos = 0, used = 0;
    pq_status st = pq_page_decompress(c, true, raw, (size_t)pi->compressed_size, (size_t)pi->uncompressed_size, &p);
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
    *vals = p + pos;
    *vlen = len - pos;
    *nn = count_non_null(c, at, n);
    return PQ_OK;
}

static pq_status page_levels_v2(cd_ctx *c, const uint8_t *raw, size_t at, const uint8_t **vals, size_t *vlen,
                                size_t *nn)
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
        if ((st = levels_rle(c, &d, "repetition", c->leaf->max_rep, c->rep_levels + at, n)) != PQ_OK ||
            (st = check_record_start(c, at, n)) != PQ_OK)
            return st;
    }
    if (c->leaf->max_def > 0) {
        st = pq_rle_init_levels_v2(&d, raw + rl, dl, level_bit_width(c->leaf->max_def), &kerr);
        if (st != PQ_OK) return fail(c, st, "definition levels: %s", kerr.message);
        if ((st = def_levels_rle(c, &d, at, n)) != PQ_OK) return st;
    }
    const uint8_t *p;
    size_t len = pi->is_compressed ? uncomp - rl - dl : comp - rl - dl;
    st = pq_page_decompress(c, pi->is_compressed, raw + rl + dl, comp - rl - dl, len, &p);
    if (st != PQ_OK) return st;
    *vals = p;
    *vlen = len;
    *nn = count_non_null(c, at, n);
    return PQ_OK;
}

pq_status pq_page_levels(cd_ctx *c, const uint8_t *raw, size_t at, const uint8_t **vals, size_t *vlen, size_t *nn)
{
    return c->pi->type == PQ_PAGE_DATA ? page_levels_v1(c, raw, at, vals, vlen, nn)
                                       : page_levels_v2(c, raw, at, vals, vlen, nn);
}

/* ---------------------------------------------------------------------------
 * Sparse pages: a prefix decompressed
 *
 * A sparse filter's payload column wants a few rows of each page. For a
 * required PLAIN BYTE_ARRAY page (DATA_PAGE, SNAPPY or ZSTD), the values before
 * the last selected row are all that is read, so only the stream's prefix
 * that holds them is decompressed: the rest of the page is neither
 * decompressed nor checked, as a page without a selected row is not. A
 * TPC-H `l_comment` page of 615 KB with one or two selected rows needs
 * about half of it on average.
 * ------------------------------------------------------------------------- */

/* The last wanted row in [row, end), or UINT64_MAX when none is. */
static uint64_t last_wanted_row(const cd_ctx *c, uint64_t row, uint64_t end)
{
    while (end > row) {
        uint64_t from = end - row > 64 ? end - 64 : row;
        uint64_t w = sel_bits(c->rows, from);
        if (end - from < 64) w &= (1ull << (end - from)) - 1;
        if (w) return from + 63 - (uint64_t)__builtin_clzll(w);
        end = from;
    }
    return UINT64_MAX;
}

/* Whether the page is decoded from a prefix: *last gets the index in the
 * page of its last selected row, which lies in its first three quarters. */
bool pq_page_from_prefix(const cd_ctx *c, const uint8_t *raw, size_t *last)
{
    const pq_page_info *pi = c->pi;
    if (!c->rows || c->leaf->max_def != 0 || c->leaf->max_rep != 0 || c->leaf->physical_type != PQ_BYTE_ARRAY ||
        c->indices || pi->type != PQ_PAGE_DATA || pi->encoding != PQ_ENC_PLAIN || !pq_prefix_supported(c->codec) ||
        pi->num_values <= 0 || pi->compressed_size < 0 || pi->uncompressed_size <= 0 ||
        (uint64_t)pi->uncompressed_size > PQ_MAX_PAGE_SIZE)
        return false;
    uint64_t n = (uint64_t)pi->num_values, l = last_wanted_row(c, c->page_row, c->page_row + n);
    if (l == UINT64_MAX || (l - c->page_row + 1) * 4 > n * 3) return false;
    /* A page stored as it is costs nothing to decompress. */
    if (pq_page_stored(c->codec, raw, (size_t)pi->compressed_size, (size_t)pi->uncompressed_size)) return false;
    *last = (size_t)(l - c->page_row);
    return true;
}

/* A PLAIN BYTE_ARRAY stream of n values (len bytes in all) decompressed
 * through pr into buf in steps, from a first guess at the bytes by the
 * share of values 0..last, then half as much again each time, until a walk
 * of the lengths reaches past value `last`. *bytes: the bytes through value
 * last, or all that is out when the walk cannot get there (a length runs
 * past the end); *reached says which. */
pq_status pq_page_plain_prefix(cd_ctx *c, pq_prefix_reader *pr, const uint8_t *buf, size_t len, size_t n,
                               size_t last, size_t *bytes, bool *reached)
{
    size_t want = (size_t)((double)len * (double)(last + 1) / (double)n) + len / 16 + 256, pos = 0, i = 0, got;
    for (;;) {
        pq_error kerr;
        pq_status st = pq_prefix_read_to(pr, want < len ? want : len, &kerr);
        if (st != PQ_OK) return kfail(c, st, &kerr);
        got = pq_prefix_out(pr);
        /* pq_plain_value_length's step over what is out: a value not
         * (wholly) there yet ends the walk, not the decode */
        for (size_t at = pos; i <= last; i++, pos = at) {
            uint32_t l = 0; /* set on success; gcc cannot tell */
            pq_error not_yet;
            if (pq_plain_value_length(buf, got, &at, i, n, &l, &not_yet) != PQ_OK) break;
            at += l;
        }
        if (i > last || got >= len) break;
        want = got + got / 2 + 4096;
    }
    *reached = i > last;
    *bytes = *reached ? pos : got;
    return PQ_OK;
}

/* The prefix of the page that holds values 0..last: decompressed in steps
 * (from a first guess at the bytes, by the rows' share of the page, then
 * half as much again each time) until a walk of the lengths reaches past
 * value `last`. *vals and *vlen: those bytes, *nn the values in them. When
 * the walk fails to reach it (a length runs past the page), the page is
 * decompressed whole and all its values are handed on, for the decode to
 * name what is wrong. */
pq_status pq_page_prefix_values(cd_ctx *c, const uint8_t *raw, size_t last, const uint8_t **vals, size_t *vlen,
                                size_t *nn)
{
    const pq_page_info *pi = c->pi;
    size_t n = (size_t)pi->num_values, len = (size_t)pi->uncompressed_size;
    pq_status st = grow(c, (void **)&c->buf, &c->buf_cap, len, "page buffer");
    if (st != PQ_OK) return st;
    pq_error kerr;
    pq_prefix_reader pr;
    if ((st = pq_prefix_open(&pr, c->cctx, c->codec, raw, (size_t)pi->compressed_size, c->buf, len, &kerr)) != PQ_OK)
        return kfail(c, st, &kerr);
    bool reached;
    if ((st = pq_page_plain_prefix(c, &pr, c->buf, len, n, last, vlen, &reached)) != PQ_OK) return st;
    *vals = c->buf;
    *nn = reached ? last + 1 : n;
    return PQ_OK;
}

bool pq_pages_all_dictionary(const pq_page_info *pages, size_t npages)
{
    bool any = false;
    for (size_t i = 0; i < npages; i++) {
        if (pages[i].type == PQ_PAGE_DICTIONARY) any = true;
        else if ((pages[i].type == PQ_PAGE_DATA || pages[i].type == PQ_PAGE_DATA_V2) && !is_dict_page(&pages[i]))
            return false;
    }
    return any;
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
    if (v->dictionary) {
        pq_column_values_free(v->dictionary);
        free(v->dictionary);
    }
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
