/*
 * page_walk.c — a column chunk's byte range and the walk over its page
 * headers (see page_walk.h).
 */
#include "pages/page_walk.h"

#include <inttypes.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "pages/page_header.h"

/* "PAR1" before the first chunk. */
#define LEADING_MAGIC 4

/* ---------------------------------------------------------------------------
 * Byte range
 * ------------------------------------------------------------------------- */

pq_status pq_chunk_byte_range(const pq_column_chunk *cc, uint64_t data_end, uint64_t *offset,
                              uint64_t *len, pq_error *err)
{
    if (!cc || !offset || !len)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_chunk_byte_range: NULL argument");
    if (cc->set & PQ_CC_SKIPPED)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "column chunk was left out by the projected parse");
    if ((cc->set & PQ_CC_HAS_ENCRYPTED_METADATA) && !(cc->set & PQ_CC_DECRYPTED_METADATA))
        return pq_error_set(err, PQ_ERR_ENCRYPTED,
                            "the column is encrypted with a key that was not given");
    if (cc->set & PQ_CC_HAS_FILE_PATH)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED,
                            "column chunk stored in another file (file_path)");
    if (!(cc->set & PQ_CC_HAS_META_DATA))
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "ColumnChunk.meta_data: missing");

    const pq_column_meta *m = &cc->meta_data;
    int64_t data = m->data_page_offset;
    int64_t dict = (m->set & PQ_CMD_HAS_DICTIONARY_PAGE_OFFSET) ? m->dictionary_page_offset : 0;
    if (dict < LEADING_MAGIC) dict = 0;                             /* 0 = absent */
    if (dict && data >= LEADING_MAGIC && dict >= data) dict = 0;    /* must precede the data */
    int64_t start = dict ? dict : data;                             /* data < 4: dict if any */

    int64_t size = m->total_compressed_size;
    if (size == 0 && m->num_values == 0) {
        /* A chunk without pages (Arrow writes one for an empty row group,
         * data_page_offset 0): an empty range. */
        *offset = LEADING_MAGIC;
        *len = 0;
        return PQ_OK;
    }
    if (start < LEADING_MAGIC)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "ColumnMetaData.data_page_offset: %" PRId64 " is inside the file header",
                            data);
    if (size < 0)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "ColumnMetaData.total_compressed_size: %" PRId64, size);
    if ((uint64_t)start >= data_end || (uint64_t)size > data_end - (uint64_t)start)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "column chunk [%" PRId64 ", +%" PRId64 ") runs past the data region, which ends "
                            "at byte %" PRIu64 " where the footer starts",
                            start, size, data_end);
    *offset = (uint64_t)start;
    *len = (uint64_t)size;
    return PQ_OK;
}

/* Parse "a.b.c" at the start of s (at most n bytes) into v[3]. */
static bool parse_version(const char *s, size_t n, int v[3])
{
    size_t i = 0;
    for (int k = 0; k < 3; k++) {
        if (i >= n || s[i] < '0' || s[i] > '9') return false;
        long x = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && x < 1000000) x = x * 10 + (s[i++] - '0');
        v[k] = (int)x;
        if (k < 2) {
            if (i >= n || s[i] != '.') return false;
            i++;
        }
    }
    return true;
}

bool pq_writer_undercounts_chunk_size(pq_bytes created_by)
{
    static const char app[] = "parquet-mr";
    static const char ver[] = " version ";
    const char *s = (const char *)created_by.ptr;
    size_t n = created_by.len;
    size_t al = sizeof app - 1, vl = sizeof ver - 1;
    if (!s || n < al || memcmp(s, app, al) != 0) return false;
    if (n == al) return true; /* no version at all: as old as it gets */
    if (n < al + vl || memcmp(s + al, ver, vl) != 0) return s[al] == ' ' || s[al] == '\0';
    int v[3];
    if (!parse_version(s + al + vl, n - al - vl, v)) return true; /* unknown version: assume old */
    /* fixed in 1.2.9 */
    if (v[0] != 1) return v[0] < 1;
    if (v[1] != 2) return v[1] < 2;
    return v[2] < 9;
}

pq_status pq_chunk_byte_range_for_writer(const pq_column_chunk *cc, pq_bytes created_by,
                                         uint64_t data_end, uint64_t *offset, uint64_t *len,
                                         pq_error *err)
{
    pq_status st = pq_chunk_byte_range(cc, data_end, offset, len, err);
    if (st != PQ_OK || !pq_writer_undercounts_chunk_size(created_by)) return st;
    uint64_t room = data_end - (*offset + *len); /* the range ends before the footer does */
    *len += room < PQ_CHUNK_SIZE_PADDING ? room : PQ_CHUNK_SIZE_PADDING;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * The walk
 * ------------------------------------------------------------------------- */

void pq_page_info_fill(pq_page_info *pi, const pq_page_header *h, uint64_t off, size_t hlen)
{
    memset(pi, 0, sizeof *pi);
    pi->header_offset = off;
    pi->header_len = (uint32_t)hlen;
    pi->data_offset = off + hlen;
    pi->type = h->type;
    pi->compressed_size = h->compressed_page_size;
    pi->uncompressed_size = h->uncompressed_page_size;
    pi->has_crc = h->has_crc;
    pi->crc = h->crc;
    pi->is_compressed = true;
    switch (h->type) {
    case PQ_PAGE_DATA: {
        const pq_data_page_header *d = &h->data_page_header;
        pi->num_values = d->num_values;
        pi->encoding = d->encoding;
        pi->def_level_encoding = d->definition_level_encoding;
        pi->rep_level_encoding = d->repetition_level_encoding;
        pi->has_statistics = (d->set & PQ_DPH_HAS_STATISTICS) != 0;
        break;
    }
    case PQ_PAGE_DATA_V2: {
        const pq_data_page_header_v2 *d = &h->data_page_header_v2;
        pi->num_values = d->num_values;
        pi->encoding = d->encoding;
        pi->def_levels_byte_length = d->definition_levels_byte_length;
        pi->rep_levels_byte_length = d->repetition_levels_byte_length;
        pi->num_nulls = d->num_nulls;
        pi->num_rows = d->num_rows;
        pi->is_compressed = d->is_compressed;
        pi->has_statistics = (d->set & PQ_DPH2_HAS_STATISTICS) != 0;
        break;
    }
    case PQ_PAGE_DICTIONARY:
        pi->num_values = h->dictionary_page_header.num_values;
        pi->encoding = h->dictionary_page_header.encoding;
        break;
    default: /* INDEX_PAGE: nothing more */
        break;
    }
}

/* Where a walk reads the headers: the chunk's bytes in memory, or read
 * through read_at a header at a time into buf. */
typedef struct walk_source {
    const uint8_t *chunk;
    pq_read_at_fn read_at;
    void *user;
    uint64_t origin; /* read_at's offset of the chunk's first byte */
    uint8_t *buf;
    size_t cap;
} walk_source;

/* A header is read through read_at in this many bytes first, then eight
 * times more at a time while it does not decode (long statistics). */
#define HEADER_READ_FIRST 512

/* The bytes from chunk offset `off` (`left` of them to the chunk's end): at
 * least `want`, or all that are left: *p, *avail. */
static pq_status source_bytes(walk_source *src, uint64_t off, uint64_t left, size_t want, const uint8_t **p,
                              size_t *avail, pq_error *err)
{
    if (src->chunk) {
        *p = src->chunk + off;
        *avail = (size_t)left;
        return PQ_OK;
    }
    size_t n = left < want ? (size_t)left : want;
    if (n > src->cap) {
        uint8_t *b = realloc(src->buf, n);
        if (!b) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a %zu-byte page header", n);
        src->buf = b;
        src->cap = n;
    }
    pq_status st = src->read_at(src->user, src->origin + off, n, src->buf, err);
    *p = src->buf;
    *avail = n;
    return st;
}

/* The header at chunk offset `off`: read (through read_at, more at a time
 * until it decodes or the chunk ends) and decoded. */
static pq_status walk_header(walk_source *src, uint64_t off, uint64_t left, pq_page_header *h, size_t *hlen,
                             pq_error *e)
{
    for (size_t want = HEADER_READ_FIRST;; want *= 8) {
        const uint8_t *p = NULL;
        size_t avail = 0;
        pq_status st = source_bytes(src, off, left, want, &p, &avail, e);
        if (st != PQ_OK) return st;
        st = pq_page_header_decode(p, avail, h, hlen, e);
        if (st == PQ_OK || avail == left || want > SIZE_MAX / 8) return st;
    }
}

static pq_status walk(walk_source *src, uint64_t len, int64_t num_values, unsigned flags, pq_page_info **pages,
                      size_t *npages, pq_page_walk_counters *counters, pq_error *err)
{
    *pages = NULL;
    *npages = 0;
    if (counters) counters->walks++;

    pq_page_info *arr = NULL;
    size_t n = 0, cap = 0;
    int64_t values = 0; /* sum of the data pages' num_values */
    uint64_t off = 0;
    pq_status st = PQ_OK;

    while (off < len) {
        pq_page_header h;
        size_t hlen = 0;
        pq_error e;
        st = walk_header(src, off, len - off, &h, &hlen, &e);
        if (st != PQ_OK) {
            pq_error_set(err, st, "page %zu at chunk offset %" PRIu64 ": %s", n, off, e.message);
            break;
        }
        uint64_t data_off = off + hlen;
        if ((uint64_t)h.compressed_page_size > len - data_off) {
            st = pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                              "page %zu at chunk offset %" PRIu64 ": compressed_page_size %d runs "
                              "past the end of the column chunk (%" PRIu64 " bytes left)",
                              n, off, (int)h.compressed_page_size, len - data_off);
            break;
        }
        if ((flags & PQ_WALK_VERIFY_CRC) && h.has_crc && src->chunk) { /* (pq_page_walk_read refuses the flag) */
            uint32_t crc = libdeflate_crc32(0, src->chunk + data_off, (size_t)h.compressed_page_size);
            if (counters) counters->crc_checked++;
            if (crc != h.crc) {
                st = pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                  "page %zu at chunk offset %" PRIu64 ": CRC mismatch: header "
                                  "says 0x%08" PRIx32 ", page data has 0x%08" PRIx32,
                                  n, off, h.crc, crc);
                break;
            }
        }
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            pq_page_info *grown = realloc(arr, ncap * sizeof *arr);
            if (!grown) {
                st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory walking pages");
                break;
            }
            arr = grown;
            cap = ncap;
        }
        pq_page_info_fill(&arr[n++], &h, off, hlen);
        off = data_off + (uint64_t)h.compressed_page_size;
        if (counters) {
            counters->pages++;
            counters->header_bytes += hlen;
            if (h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DATA_V2) counters->data_pages++;
            else if (h.type == PQ_PAGE_DICTIONARY) counters->dictionary_pages++;
            else counters->index_pages++;
        }
        if (h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DATA_V2) {
            values += arr[n - 1].num_values; /* each >= 0 and < 2^31: no overflow */
            if (num_values >= 0 && values >= num_values) break;
        }
    }
    if (st == PQ_OK && (flags & PQ_WALK_EXACT_END) && off < len)
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                          "%" PRIu64 " bytes of the column chunk follow its last page (which "
                          "ends at chunk offset %" PRIu64 ")",
                          len - off, off);
    if (st == PQ_OK && num_values >= 0 && values != num_values)
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                          "data pages hold %" PRId64 " values, the column chunk declares %" PRId64,
                          values, num_values);
    *pages = arr;
    *npages = n;
    return st;
}

pq_status pq_page_walk(const uint8_t *chunk, uint64_t len, int64_t num_values, unsigned flags,
                       pq_page_info **pages, size_t *npages, pq_page_walk_counters *counters,
                       pq_error *err)
{
    if (!pages || !npages || (!chunk && len))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_page_walk: NULL argument");
    walk_source src = {.chunk = chunk ? chunk : (const uint8_t *)""};
    return walk(&src, len, num_values, flags, pages, npages, counters, err);
}

pq_status pq_page_walk_read(pq_read_at_fn read_at, void *user, uint64_t origin, uint64_t len, int64_t num_values,
                            unsigned flags, pq_page_info **pages, size_t *npages, pq_page_walk_counters *counters,
                            pq_error *err)
{
    if (!pages || !npages || !read_at)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_page_walk_read: NULL argument");
    if (flags & PQ_WALK_VERIFY_CRC)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_page_walk_read: checksums need the pages' bytes");
    walk_source src = {.read_at = read_at, .user = user, .origin = origin};
    pq_status st = walk(&src, len, num_values, flags, pages, npages, counters, err);
    free(src.buf);
    return st;
}
