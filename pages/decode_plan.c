/*
 * decode_plan.c — building the decode plan from page headers (see
 * decode_plan.h).
 */
#include "pages/decode_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "pages/codec.h"
#include "kernels/bitcount.h"
#include "kernels/primitives.h"

uint32_t pq_plan_value_width(const pq_leaf *leaf)
{
    switch (leaf->physical_type) {
    case PQ_BOOLEAN: return 1;
    case PQ_INT32: return 4;
    case PQ_INT64: return 8;
    case PQ_INT96: return 12;
    case PQ_FLOAT: return 4;
    case PQ_DOUBLE: return 8;
    case PQ_FIXED_LEN_BYTE_ARRAY: return leaf->type_length > 0 ? (uint32_t)leaf->type_length : 0;
    default: return 0;
    }
}

uint64_t pq_decode_rows_count(const pq_decode_rows *s, uint64_t row, uint64_t n)
{
    uint64_t a = row > s->first ? row - s->first : 0, b = row + n > s->first ? row + n - s->first : 0;
    if (b > s->count) b = s->count;
    uint64_t set = 0, i = a;
    for (; i < b && (i & 7); i++) set += (s->keep[i >> 3] >> (i & 7)) & 1;
    return i < b ? set + pq_bits_set_fast(s->keep + i / 8, b - i) : set;
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static pq_status page_fail(pq_error *err, pq_status code, size_t index, const pq_page_info *pi, const char *fmt,
                           ...)
{
    if (!err) return code;
    char type[32], enc[32];
    snprintf(type, sizeof type, "%s", pq_page_type_name(pi->type));
    snprintf(enc, sizeof enc, "%s", pq_encoding_name(pi->encoding));
    int k = snprintf(err->message, sizeof err->message, "page %zu (%s, %s): ", index, type, enc);
    err->code = code;
    if (k < 0 || (size_t)k >= sizeof err->message) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + k, sizeof err->message - (size_t)k, fmt, ap);
    va_end(ap);
    return code;
}

static bool grow_array(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return true;
    size_t want = *cap ? *cap * 2 : 16;
    while (want < need) want *= 2;
    void *q = realloc(*p, want * size);
    if (!q) return false;
    *p = q;
    *cap = want;
    return true;
}

uint64_t pq_plan_strings_lower_bound(const pq_leaf *leaf, const pq_page_info *pi)
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

/* The most value bytes a PLAIN BYTE_ARRAY data page with a value a level
 * slot can hold: its size less a 4-byte length a value, less its levels
 * where a DATA_PAGE_V2 header says their size. */
static uint64_t plain_strings_room(const pq_page_info *pi)
{
    if (pi->num_values < 0 || pi->uncompressed_size < 0) return 0;
    uint64_t fixed = 4 * (uint64_t)pi->num_values;
    if (pi->type == PQ_PAGE_DATA_V2 && pi->rep_levels_byte_length >= 0 && pi->def_levels_byte_length >= 0)
        fixed += (uint64_t)pi->rep_levels_byte_length + (uint64_t)pi->def_levels_byte_length;
    return (uint64_t)pi->uncompressed_size > fixed ? (uint64_t)pi->uncompressed_size - fixed : 0;
}

/* The value bytes of a PLAIN BYTE_ARRAY data page of `values` values, when
 * its header says them exactly: its size less a 4-byte length a value,
 * with no levels of unknown size before them (a v1 page of a leaf without
 * levels, or a DATA_PAGE_V2 page, whose levels' sizes its header gives),
 * every value decoded (no row selection). */
static bool plain_strings_exact(const pq_leaf *leaf, const pq_page_info *pi, const pq_decode_rows *rows,
                                uint64_t values, uint64_t *bytes)
{
    if (rows || pi->encoding != PQ_ENC_PLAIN || pi->uncompressed_size < 0) return false;
    uint64_t fixed = 4 * values;
    if (pi->type == PQ_PAGE_DATA_V2) {
        if (pi->rep_levels_byte_length < 0 || pi->def_levels_byte_length < 0) return false;
        fixed += (uint64_t)pi->rep_levels_byte_length + (uint64_t)pi->def_levels_byte_length;
    } else if (leaf->max_def > 0 || leaf->max_rep > 0) {
        return false;
    }
    if ((uint64_t)pi->uncompressed_size < fixed) return false; /* the size pass says what is wrong */
    *bytes = (uint64_t)pi->uncompressed_size - fixed;
    return true;
}

static bool is_dict_encoding(int32_t enc)
{
    return enc == PQ_ENC_PLAIN_DICTIONARY || enc == PQ_ENC_RLE_DICTIONARY;
}

/* Whether every data page of the chunk is PLAIN or dictionary-encoded. */
static bool plain_or_dictionary(const pq_page_info *pages, size_t npages)
{
    for (size_t i = 0; i < npages; i++)
        if ((pages[i].type == PQ_PAGE_DATA || pages[i].type == PQ_PAGE_DATA_V2) && pages[i].encoding != PQ_ENC_PLAIN &&
            !is_dict_encoding(pages[i].encoding))
            return false;
    return true;
}

pq_status pq_decode_plan_add_chunk(pq_decode_plan *plan, const pq_leaf *leaf, int32_t codec, const uint8_t *bytes,
                                   size_t len, const pq_page_info *pages, size_t npages, unsigned flags,
                                   const pq_decode_rows *rows, pq_error *err)
{
    return pq_decode_plan_add_chunk_sized(plan, leaf, codec, bytes, len, pages, npages, flags, rows, NULL, err);
}

pq_status pq_decode_plan_add_chunk_sized(pq_decode_plan *plan, const pq_leaf *leaf, int32_t codec,
                                         const uint8_t *bytes, size_t len, const pq_page_info *pages, size_t npages,
                                         unsigned flags, const pq_decode_rows *rows, const int64_t *page_strings,
                                         pq_error *err)
{
    if (!plan || !leaf || (!bytes && len) || (!pages && npages))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_column_decode: NULL argument");
    if (leaf->max_def < 0 || leaf->max_rep < 0)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "negative maximum level (%d, %d)", leaf->max_def,
                            leaf->max_rep);
    uint32_t width = pq_plan_value_width(leaf);
    if (leaf->physical_type != PQ_BYTE_ARRAY && width == 0)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "physical type %s (type_length %d)",
                            pq_physical_type_name(leaf->physical_type), leaf->type_length);
    if (!pq_codec_supported(codec)) return pq_error_set(err, PQ_ERR_UNSUPPORTED, "codec %s", pq_codec_name(codec));
    /* A selection is of a leaf without repetition: required, or optional
     * (its selected rows' levels kept; with PQ_PLAN_NO_NULLS a value a row,
     * the decoder refusing a page with a null). */
    if (rows && leaf->max_rep != 0)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_column_decode: rows selected on a repeated column");
    if (rows && rows->count && !rows->keep)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_column_decode: a row selection without its bits");
    if (!grow_array((void **)&plan->chunks, &plan->chunks_cap, plan->nchunks + 1, sizeof *plan->chunks) ||
        !grow_array((void **)&plan->pages, &plan->pages_cap, plan->npages + npages, sizeof *plan->pages))
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");

    pq_plan_chunk ch = {
        .leaf = leaf,
        .physical_type = leaf->physical_type,
        .width = width,
        .max_def = leaf->max_def,
        .max_rep = leaf->max_rep,
        .codec = codec,
        .output = leaf->physical_type != PQ_BYTE_ARRAY || (flags & PQ_PLAN_INDICES) ? PQ_PLAN_FIXED
                  : (flags & PQ_PLAN_STRING_VIEWS)                                  ? PQ_PLAN_VIEWS
                                                                                    : PQ_PLAN_BYTES,
        .bytes = bytes,
        .len = len,
        .rows = rows,
        .first_page = plan->npages,
        .npages = npages,
        .dictionary = -1,
    };
    if (flags & PQ_PLAN_INDICES) {
        ch.width = 4;
        ch.flags |= PQ_PLAN_CHUNK_INDICES;
    }
    /* A value a slot: a required leaf, or an optional flat one known to
     * hold no null. Sized by the headers until a page says otherwise. */
    bool no_nulls = (flags & PQ_PLAN_NO_NULLS) && ch.max_def > 0 && ch.max_rep == 0;
    if (no_nulls) ch.flags |= PQ_PLAN_CHUNK_NO_NULLS;
    bool value_a_slot = ch.max_def == 0 || no_nulls;
    bool sized = ch.output != PQ_PLAN_BYTES || (flags & PQ_PLAN_EXACT_BYTES);
    if (flags & PQ_PLAN_EXACT_BYTES) ch.flags |= PQ_PLAN_CHUNK_EXACT_BYTES;
    uint64_t row = 0, slots = 0, strings = 0;
    size_t data_page = 0; /* ordinal of the next data page (page_strings) */
    for (size_t i = 0; i < npages; i++) {
        const pq_page_info *pi = &pages[i];
        pq_plan_page pg = {.chunk = plan->nchunks, .index = i, .info = pi, .kind = PQ_PLAN_PAGE_SKIP};
        if (pi->type == PQ_PAGE_INDEX) {
            plan->pages[plan->npages + i] = pg;
            continue;
        }
        if (pi->compressed_size < 0 || pi->uncompressed_size < 0 || pi->data_offset > len ||
            (uint64_t)pi->compressed_size > len - pi->data_offset)
            return page_fail(err, PQ_ERR_INVALID_ARGUMENT, i, pi, "page data [%llu, +%d) is outside the %zu-byte chunk",
                             (unsigned long long)pi->data_offset, pi->compressed_size, len);
        if (pi->type == PQ_PAGE_DICTIONARY) {
            if (ch.dictionary >= 0)
                return page_fail(err, PQ_ERR_CORRUPT_DATA, i, pi, "a second dictionary page in the chunk");
            if (pi->encoding != PQ_ENC_PLAIN && pi->encoding != PQ_ENC_PLAIN_DICTIONARY)
                return page_fail(err, PQ_ERR_UNSUPPORTED, i, pi, "dictionary page encoding is not supported");
            if (pi->num_values < 0) return page_fail(err, PQ_ERR_CORRUPT_DATA, i, pi, "num_values %d", pi->num_values);
            ch.dictionary = (int64_t)(plan->npages + i);
            pg.kind = PQ_PLAN_PAGE_DICTIONARY;
            plan->pages[plan->npages + i] = pg;
            continue;
        }
        if (pi->type != PQ_PAGE_DATA && pi->type != PQ_PAGE_DATA_V2)
            return page_fail(err, PQ_ERR_CORRUPT_DATA, i, pi, "unknown page type");
        if (pi->num_values < 0) return page_fail(err, PQ_ERR_CORRUPT_DATA, i, pi, "num_values %d", pi->num_values);
        uint64_t n = (uint64_t)pi->num_values;
        const int64_t *stats_bytes = page_strings ? &page_strings[data_page] : NULL;
        data_page++;
        pg.first_row = row;
        row += n;
        if (row < n) return page_fail(err, PQ_ERR_MEMORY_LIMIT, i, pi, "value count overflows");
        if (rows) {
            uint64_t k = pq_decode_rows_count(rows, pg.first_row, n);
            if (k == 0) { /* no selected row: not even decompressed */
                plan->pages[plan->npages + i] = pg;
                continue;
            }
            pg.n_levels = k;
        } else {
            pg.n_levels = n;
        }
        if ((flags & PQ_PLAN_INDICES) && !is_dict_encoding(pi->encoding))
            return page_fail(err, PQ_ERR_UNSUPPORTED, i, pi, "dictionary indices asked for a page not "
                                                             "dictionary-encoded");
        if (is_dict_encoding(pi->encoding) && ch.dictionary < 0)
            return page_fail(err, PQ_ERR_CORRUPT_DATA, i, pi, "dictionary-encoded page without a dictionary page");
        /* Arrow string and binary arrays hold at most INT32_MAX bytes: fail
         * here, from what the headers say the pages hold at least, rather
         * than after decompressing gigabytes. */
        if (ch.output == PQ_PLAN_BYTES && !rows) {
            strings += pq_plan_strings_lower_bound(leaf, pi);
            if (strings > (uint64_t)INT32_MAX)
                return page_fail(err, PQ_ERR_UNSUPPORTED, i, pi,
                                 "the chunk's values take at least %llu bytes, more than the 2147483647 that "
                                 "Arrow string and binary arrays (int32 offsets) hold; large_string or "
                                 "string_view would hold them",
                                 (unsigned long long)strings);
        }
        pg.kind = PQ_PLAN_PAGE_DATA;
        pg.level_offset = slots;
        slots += pg.n_levels;
        if (value_a_slot) {
            pg.n_values = pg.n_levels;
        } else if (pi->type == PQ_PAGE_DATA_V2 && ch.max_rep == 0 && !rows && pi->num_nulls >= 0 &&
                   pi->num_nulls <= pi->num_values) {
            pg.n_values = n - (uint64_t)pi->num_nulls; /* checked by the decode */
        } else {
            sized = false; /* the size pass counts the values */
        }
        if (ch.output == PQ_PLAN_BYTES && sized && !plain_strings_exact(leaf, pi, rows, pg.n_values, &pg.string_bytes)) {
            /* dictionary and PLAIN pages write their values' bytes alone;
             * other encodings' decoders take working room beyond them */
            bool by_stats = is_dict_encoding(pi->encoding) || pi->encoding == PQ_ENC_PLAIN;
            if (stats_bytes && !rows && *stats_bytes >= 0 && by_stats) {
                pg.string_bytes = (uint64_t)*stats_bytes;
                ch.flags |= PQ_PLAN_CHUNK_SIZE_STATISTICS;
            } else {
                sized = false; /* the size pass counts the bytes */
            }
        }
        /* Views gathered from a dictionary take no string bytes; a PLAIN
         * page of a value a row takes at most what its header says less
         * the lengths (an executor zeroes any bytes a page leaves after its
         * last value); others are counted by the size pass. */
        if (ch.output == PQ_PLAN_VIEWS && !is_dict_encoding(pi->encoding)) {
            if (!rows && value_a_slot && pi->encoding == PQ_ENC_PLAIN)
                pg.string_bytes = plain_strings_room(pi);
            else
                sized = false;
        }
        plan->pages[plan->npages + i] = pg;
    }
    ch.n_levels = slots;
    if ((flags & PQ_PLAN_DECIMAL128) && !(flags & PQ_PLAN_INDICES) &&
        (leaf->physical_type == PQ_INT32 || leaf->physical_type == PQ_INT64) && plain_or_dictionary(pages, npages)) {
        ch.width = 16;
        ch.flags |= PQ_PLAN_CHUNK_DECIMAL128;
    }
    if (sized || ((flags & PQ_PLAN_INDICES) && ch.max_def == 0)) ch.flags |= PQ_PLAN_SIZED_BY_HEADERS;
    plan->chunks[plan->nchunks++] = ch;
    plan->npages += npages;
    if (sized) return pq_decode_plan_place(plan, plan->nchunks - 1, err);
    return PQ_OK;
}

pq_status pq_decode_plan_place(pq_decode_plan *plan, size_t chunk, pq_error *err)
{
    pq_plan_chunk *ch = &plan->chunks[chunk];
    uint64_t values = 0, strings = 0;
    for (size_t i = ch->first_page; i < ch->first_page + ch->npages; i++) {
        pq_plan_page *pg = &plan->pages[i];
        if (pg->kind != PQ_PLAN_PAGE_DATA) continue;
        pg->value_offset = values;
        pg->string_offset = strings;
        values += pg->n_values;
        strings += pg->string_bytes;
        if (values < pg->n_values || strings < pg->string_bytes)
            return pq_error_set(err, PQ_ERR_MEMORY_LIMIT, "the chunk's values overflow the address space");
    }
    ch->n_values = values;
    ch->string_bytes = strings;
    return PQ_OK;
}

void pq_decode_plan_free(pq_decode_plan *plan)
{
    if (!plan) return;
    free(plan->chunks);
    free(plan->pages);
    memset(plan, 0, sizeof *plan);
}
