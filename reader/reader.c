/*
 * reader.c — the reader's stage machine.
 *
 * Like a streaming decompressor, the reader is a context with an explicit
 * stage and a step within it. Each call to pq_reader_advance() runs the next
 * stage as far as the bytes at hand allow: through its source when it has
 * one, or from ranges the caller supplied (sans-IO), else it stops with
 * PQ_ERR_NEED_DATA and the missing ranges are reported by
 * pq_reader_needed_ranges(). Whatever a stage parsed is kept for later ones.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "kernels/primitives.h"
#include "metadata/error.h"
#include "pages/buffer_pool.h"
#include "predicate/predicate.h"
#include "reader/context.h"
#include "reader/keys.h"
#include "reader/options.h"
#include "pq_remote.h"

#define DEFAULT_FOOTER_READ_SIZE (64u * 1024u)
#define PARQUET_MAGIC_LEN 4
#define FOOTER_TRAILER_LEN 8 /* 4-byte footer length + "PAR1" */

/* ---------------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------------- */

/* Point *arr at an owned copy of its n entries (left NULL when NULL). */
static bool copy_indexes(const uint32_t **arr, size_t n, uint32_t **own)
{
    *own = NULL;
    if (!*arr) return true;
    *own = malloc((n ? n : 1) * sizeof **own);
    if (!*own) return false;
    if (n) memcpy(*own, *arr, n * sizeof **own);
    *arr = *own;
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Point o->deleted_rows at an owned, sorted copy without duplicates. */
static bool copy_deleted(pq_reader_options *o, uint64_t **own)
{
    *own = NULL;
    if (!o->deleted_rows || !o->deleted_rows_len) {
        o->deleted_rows = NULL;
        o->deleted_rows_len = 0;
        return true;
    }
    if (o->deleted_rows_len > SIZE_MAX / sizeof **own) return false;
    *own = malloc(o->deleted_rows_len * sizeof **own);
    if (!*own) return false;
    memcpy(*own, o->deleted_rows, o->deleted_rows_len * sizeof **own);
    qsort(*own, o->deleted_rows_len, sizeof **own, cmp_u64);
    size_t n = 1;
    for (size_t i = 1; i < o->deleted_rows_len; i++)
        if ((*own)[i] != (*own)[n - 1]) (*own)[n++] = (*own)[i];
    o->deleted_rows = *own;
    o->deleted_rows_len = n;
    return true;
}

static pq_reader *reader_new(const pq_reader_options *opts, pq_error *err)
{
    pq_reader_options o;
    if (pq_reader_options_take(&o, opts, err) != PQ_OK) return NULL;
    if (o.metadata && o.footer_bytes) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                     "options give both metadata and footer_bytes; pass at most one");
        return NULL;
    }
    pq_reader *r = calloc(1, sizeof *r);
    if (!r) {
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        return NULL;
    }
    r->opts = o;
    /* The selection arrays are used by the select stage, possibly long after
     * opening: keep copies. */
    if (!copy_indexes(&r->opts.columns, r->opts.columns_len, &r->own_columns) ||
        !copy_indexes(&r->opts.row_groups, r->opts.row_groups_len, &r->own_row_groups)) {
        free(r->own_columns);
        free(r);
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (pq_keys_copy(r->opts.decryption, &r->own_keys, err) != PQ_OK) {
        free(r->own_columns);
        free(r->own_row_groups);
        free(r);
        return NULL;
    }
    r->opts.decryption = r->own_keys;
    if (r->opts.filter) {
        r->own_filter = pq_expr_clone(r->opts.filter, err);
        if (!r->own_filter) {
            pq_keys_free(r->own_keys);
            free(r->own_columns);
            free(r->own_row_groups);
            free(r);
            return NULL;
        }
        r->opts.filter = r->own_filter;
    }
    bool named = r->opts.row_index_name != NULL;
    if (named) r->opts.row_index_name = r->own_row_index_name = strdup(r->opts.row_index_name);
    if ((named && !r->own_row_index_name) || !copy_deleted(&r->opts, &r->own_deleted)) {
        free(r->own_row_index_name);
        pq_expr_free(r->own_filter);
        pq_keys_free(r->own_keys);
        free(r->own_columns);
        free(r->own_row_groups);
        free(r);
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (r->opts.footer_read_size == 0) r->opts.footer_read_size = DEFAULT_FOOTER_READ_SIZE;
    if (r->opts.footer_read_size < FOOTER_TRAILER_LEN) r->opts.footer_read_size = FOOTER_TRAILER_LEN;
    pq_file_source_init(&r->io.file);
    r->stage = PQ_STAGE_INIT;
    r->footer.step = FOOTER_NEED_TAIL;
    pq_supplied_init(&r->io.supplied);
    return r;
}

pq_reader *pq_reader_twin(const pq_reader *r, pq_error *err)
{
    if (!r->md) {
        pq_error_set(err, PQ_ERR_STAGE, "a twin reader needs the footer stage; the reader is at '%s'",
                     pq_stage_name(r->stage));
        return NULL;
    }
    if (r->io.kind == SOURCE_NONE) {
        pq_error_set(err, PQ_ERR_UNSUPPORTED, "a sans-IO reader has no source of its own to read from");
        return NULL;
    }
    pq_reader_options o = r->opts;
    o.metadata = r->md; /* a reference of its own: no footer read, no parse */
    o.footer_bytes = NULL;
    o.footer_bytes_len = 0;
    o.cache = NULL;
    o.cache_key = NULL;
    o.cache_key_len = 0;
    pq_reader *t = reader_new(&o, err);
    if (!t) return NULL;
    t->io.kind = r->io.kind;
    t->io.file_size = r->io.file_size;
    switch (r->io.kind) {
    case SOURCE_FILE:
        if (pq_file_source_dup(&t->io.file, &r->io.file, err) != PQ_OK) {
            pq_reader_close(t);
            return NULL;
        }
        t->io.src.read_at = pq_file_source_read_at;
        t->io.src.user = &t->io.file;
        t->io.src.size = t->io.file.size;
        break;
    case SOURCE_MEMORY:
        t->io.memory = r->io.memory;
        t->io.src.read_at = pq_memory_source_read_at;
        t->io.src.user = &t->io.memory;
        t->io.src.size = t->io.memory.size;
        break;
    case SOURCE_REMOTE:
        t->io.remote = pq_remote_retain(r->io.remote);
        t->io.src = r->io.src;
        t->io.src.user = t->io.remote;
        {
            pq_remote_stats rs;
            pq_remote_get_stats(t->io.remote, &rs);
            t->io.remote_requests_seen = rs.requests;
            t->io.remote_retries_seen = rs.retries;
        }
        break;
    default:
        t->io.src = r->io.src;
        break;
    }
    return t;
}

pq_reader *pq_reader_open_path(const char *path, const pq_reader_options *opts, pq_error *err)
{
    if (!path) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "path is NULL");
        return NULL;
    }
    pq_reader *r = reader_new(opts, err);
    if (!r) return NULL;
    r->io.path = strdup(path);
    if (!r->io.path) {
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        pq_reader_close(r);
        return NULL;
    }
    if (pq_file_source_open(&r->io.file, path, err) != PQ_OK) {
        pq_reader_close(r);
        return NULL;
    }
    r->io.kind = SOURCE_FILE;
    r->io.src.read_at = pq_file_source_read_at;
    r->io.src.user = &r->io.file;
    r->io.src.size = r->io.file.size;
    r->io.file_size = r->io.file.size;
    return r;
}

pq_reader *pq_reader_open_memory(const void *data, size_t size, const pq_reader_options *opts,
                                 pq_error *err)
{
    if (!data && size) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "data is NULL");
        return NULL;
    }
    pq_reader *r = reader_new(opts, err);
    if (!r) return NULL;
    r->io.kind = SOURCE_MEMORY;
    r->io.memory.data = data;
    r->io.memory.size = size;
    r->io.src.read_at = pq_memory_source_read_at;
    r->io.src.user = &r->io.memory;
    r->io.src.size = size;
    r->io.file_size = size;
    return r;
}

pq_reader *pq_reader_open_source(const pq_source *src, const pq_reader_options *opts,
                                 pq_error *err)
{
    if (!src || !src->read_at) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "source or its read_at callback is NULL");
        return NULL;
    }
    pq_reader *r = reader_new(opts, err);
    if (!r) return NULL;
    r->io.kind = SOURCE_CALLER;
    r->io.src = *src;
    r->io.file_size = src->size;
    return r;
}

pq_reader *pq_reader_open_url(const char *url, const pq_reader_options *opts,
                              const struct pq_remote_options *remote, pq_error *err)
{
    pq_remote_options ro;
    if (remote) {
        ro = *remote;
    } else {
        pq_remote_options_init(&ro);
        if (opts && opts->footer_read_size) ro.tail_bytes = opts->footer_read_size < 8 ? 8 : opts->footer_read_size;
    }
    /* Metadata in hand: the tail is not needed, only the size (or nothing, with known_size). */
    if (opts && (opts->metadata || opts->footer_bytes)) ro.tail_bytes = 0;
    pq_remote *rm = pq_remote_open(url, &ro, err);
    if (!rm) return NULL;
    pq_reader *r = reader_new(opts, err);
    if (!r) {
        pq_remote_close(rm);
        return NULL;
    }
    r->io.path = strdup(url);
    if (!r->io.path) {
        pq_remote_close(rm);
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        pq_reader_close(r);
        return NULL;
    }
    r->io.kind = SOURCE_REMOTE;
    r->io.remote = rm;
    pq_remote_source(rm, &r->io.src);
    r->io.file_size = pq_remote_size(rm);
    return r;
}

const char *pq_reader_source_version(const pq_reader *r)
{
    return r && r->io.kind == SOURCE_REMOTE ? pq_remote_version(r->io.remote) : NULL;
}

pq_reader *pq_reader_open_sans_io(uint64_t file_size, const pq_reader_options *opts,
                                  pq_error *err)
{
    pq_reader *r = reader_new(opts, err);
    if (!r) return NULL;
    r->io.kind = SOURCE_NONE;
    r->io.file_size = file_size;
    return r;
}

void pq_reader_close(pq_reader *r)
{
    if (!r) return;
    pq_reader_free_decoded(r);
    pq_reader_free_filter(r);
    pq_reader_free_chunks(r);
    pq_reader_free_selection(r);
    pq_metadata_release(r->md);
    pq_file_source_close(&r->io.file);
    pq_remote_close(r->io.remote);
    pq_supplied_free(&r->io.supplied);
    free(r->footer.tail);
    free(r->io.path);
    free(r->own_columns);
    free(r->own_row_groups);
    free(r->own_deleted);
    free(r->own_row_index_name);
    pq_expr_free(r->own_filter);
    pq_keys_free(r->own_keys);
    free(r);
}

pq_status pq_reader_reselect(pq_reader *r, const pq_selection *sel, pq_error *err)
{
    if (!r || !sel) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader or selection is NULL");
    if (r->stage < PQ_STAGE_FOOTER)
        return pq_error_set(err, PQ_ERR_STAGE, "reselect needs the footer stage; the reader is at '%s'",
                            pq_stage_name(r->stage));
    const uint32_t *groups = sel->row_groups, *columns = sel->columns;
    uint32_t *own_groups = NULL, *own_columns = NULL;
    pq_expr *own_filter = NULL;
    if (!copy_indexes(&groups, sel->row_groups_len, &own_groups) ||
        !copy_indexes(&columns, sel->columns_len, &own_columns) ||
        (sel->filter && !(own_filter = pq_expr_clone(sel->filter, err)))) {
        free(own_groups);
        free(own_columns);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    pq_reader_options saved = r->opts;
    uint32_t *saved_groups = r->own_row_groups, *saved_columns = r->own_columns;
    r->opts.row_groups = groups;
    r->opts.row_groups_len = sel->row_groups_len;
    if (sel->columns) {
        r->opts.columns = columns;
        r->opts.columns_len = sel->columns_len;
        r->own_columns = own_columns;
    }
    r->opts.row_offset = sel->row_offset;
    r->opts.row_limit = sel->row_limit;
    r->opts.filter = own_filter;
    r->opts.prune_disable = sel->prune_disable;
    pq_expr *saved_filter = r->own_filter;
    r->own_filter = own_filter;
    r->own_row_groups = own_groups;

    /* Keep the walked chunks for the next page-header stage to reuse; an
     * unfinished (sans-IO) walk is dropped. */
    pq_reader_free_decoded(r);
    pq_reader_free_filter(r); /* the filter's rows were the old selection's */
    pq_reader_keep_chunks_for_reuse(r);
    pq_reader_free_selection(r);
    pq_supplied_free(&r->io.supplied);
    uint64_t t0 = pq_reader_now_ns();
    pq_status st = pq_reader_stage_select(r, err);
    r->stats[PQ_STAGE_SELECT].nanoseconds += pq_reader_now_ns() - t0;
    if (st == PQ_ERR_NEED_DATA) {
        /* Sans-IO: the new choice waits for bytes; advance() continues it. */
        free(saved_groups);
        pq_expr_free(saved_filter);
        if (sel->columns) free(saved_columns);
        else free(own_columns);
        r->stage = PQ_STAGE_FOOTER;
        return st;
    }
    if (st != PQ_OK) {
        /* Back to the footer stage with the old choice. */
        free(own_groups);
        free(own_columns);
        pq_expr_free(own_filter);
        r->opts = saved;
        r->own_row_groups = saved_groups;
        r->own_columns = saved_columns;
        r->own_filter = saved_filter;
        r->stage = PQ_STAGE_FOOTER;
        return st;
    }
    free(saved_groups);
    pq_expr_free(saved_filter);
    if (sel->columns) free(saved_columns);
    else free(own_columns);
    r->stage = PQ_STAGE_SELECT;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * The footer stage
 * ------------------------------------------------------------------------- */

static inline uint32_t tail_len_for(const pq_reader *r)
{
    return r->io.file_size < r->opts.footer_read_size ? (uint32_t)r->io.file_size
                                                   : r->opts.footer_read_size;
}

/* Read the speculative tail and check the trailer. */
static pq_status footer_read_tail(pq_reader *r, pq_error *err)
{
    const uint64_t min_size = 2 * PARQUET_MAGIC_LEN + 4;
    if (r->io.file_size < min_size)
        return pq_error_set(err, PQ_ERR_NOT_PARQUET,
                            "not a Parquet file: %llu bytes is too small (a Parquet file has at "
                            "least %llu)", (unsigned long long)r->io.file_size,
                            (unsigned long long)min_size);
    uint32_t n = tail_len_for(r);
    uint8_t *tail = malloc(n);
    if (!tail) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    pq_status st = pq_reader_read_range(r, PQ_STAGE_FOOTER, r->io.file_size - n, n, tail, err);
    if (st != PQ_OK) {
        free(tail);
        return st;
    }
    /* "PARE": an encrypted footer, which the parse opens with the footer key. */
    const uint8_t *magic = tail + n - PARQUET_MAGIC_LEN;
    bool encrypted = memcmp(magic, "PARE", 4) == 0;
    if (encrypted && !r->opts.decryption) {
        free(tail);
        return pq_error_set(err, PQ_ERR_ENCRYPTED,
                            "the footer is encrypted (\"PARE\"): give its key (footer_key)");
    }
    if (memcmp(magic, "PAR1", 4) != 0 && !encrypted) {
        free(tail);
        return pq_error_set(err, PQ_ERR_NOT_PARQUET,
                            "not a Parquet file (no \"PAR1\" magic at the end)");
    }
    /* The leading magic is checked whenever the bytes at hand include it; the
     * footer stage never spends a read on it alone. */
    const uint8_t *head = r->io.file_size == n ? tail
                          : r->io.kind == SOURCE_MEMORY ? r->io.memory.data : NULL;
    if (head && memcmp(head, magic, 4) != 0) {
        free(tail);
        return pq_error_set(err, PQ_ERR_NOT_PARQUET, "not a Parquet file (no \"%s\" magic at the start)",
                            encrypted ? "PARE" : "PAR1");
    }
    uint32_t flen = pq_load_le32(tail + n - FOOTER_TRAILER_LEN);
    if ((uint64_t)flen + FOOTER_TRAILER_LEN + PARQUET_MAGIC_LEN > r->io.file_size) {
        free(tail);
        return pq_error_set(err, PQ_ERR_CORRUPT_FOOTER,
                            "footer length %u does not fit in a file of %llu bytes", flen,
                            (unsigned long long)r->io.file_size);
    }
    if (r->opts.memory_limit && flen > r->opts.memory_limit) {
        free(tail);
        return pq_error_set(err, PQ_ERR_MEMORY_LIMIT,
                            "footer of %u bytes exceeds the memory limit of %llu bytes", flen,
                            (unsigned long long)r->opts.memory_limit);
    }
    r->footer.tail = tail;
    r->footer.encrypted = encrypted;
    r->footer.tail_offset = r->io.file_size - n;
    r->footer.len = flen;
    r->footer.step = (uint64_t)flen + FOOTER_TRAILER_LEN > n ? FOOTER_NEED_REST : FOOTER_DONE;
    return PQ_OK;
}

/* The footer is longer than the tail: read what precedes the tail. */
static pq_status footer_read_rest(pq_reader *r, pq_error *err)
{
    uint64_t start = r->io.file_size - FOOTER_TRAILER_LEN - r->footer.len;
    size_t have = (size_t)(r->io.file_size - r->footer.tail_offset);
    size_t total = (size_t)(r->io.file_size - start);
    uint8_t *buf = malloc(total);
    if (!buf) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a %zu-byte footer", total);
    pq_status st = pq_reader_read_range(r, PQ_STAGE_FOOTER, start, total - have, buf, err);
    if (st != PQ_OK) {
        free(buf);
        return st;
    }
    memcpy(buf + (total - have), r->footer.tail, have);
    free(r->footer.tail);
    r->footer.tail = buf;
    r->footer.tail_offset = start;
    r->footer.step = FOOTER_DONE;
    return PQ_OK;
}

/* Run the footer I/O steps and parse. */
static pq_metadata *footer_read_and_parse(pq_reader *r, pq_error *err)
{
    if (r->footer.step == FOOTER_NEED_TAIL && footer_read_tail(r, err) != PQ_OK) return NULL;
    if (r->footer.step == FOOTER_NEED_REST && footer_read_rest(r, err) != PQ_OK) return NULL;
    pq_parse_options po = {r->opts.columns, r->opts.columns_len, 0, r->opts.memory_limit};
    const uint8_t *footer = r->footer.tail + (r->io.file_size - r->footer.tail_offset) - FOOTER_TRAILER_LEN -
                            r->footer.len;
    pq_metadata *md = NULL;
    /* An encrypted footer opens with a FileCryptoMetaData (field 1, a
     * struct: 0x1C); a plaintext one with FileMetaData.version (0x15). */
    if (r->footer.encrypted != (r->footer.len && footer[0] == 0x1C))
        pq_error_set(err, PQ_ERR_CORRUPT_FOOTER, "the file ends in \"%s\" but its footer is %s",
                     r->footer.encrypted ? "PARE" : "PAR1",
                     r->footer.encrypted ? "not a FileCryptoMetaData" : "a FileCryptoMetaData");
    else
        md = pq_metadata_parse_decrypt(footer, r->footer.len, &po, r->opts.decryption, err);
    if (md) r->stats[PQ_STAGE_FOOTER].parses++;
    /* Whatever happened, the bytes are of no further use: a retry re-reads. */
    free(r->footer.tail);
    r->footer.tail = NULL;
    r->footer.step = FOOTER_NEED_TAIL;
    return md;
}

static pq_metadata *cache_loader(void *user, pq_error *err)
{
    return footer_read_and_parse(user, err);
}

static pq_status stage_footer(pq_reader *r, pq_error *err)
{
    pq_stage_counters *stats = &r->stats[PQ_STAGE_FOOTER];

    /* Reuse: metadata handed in, or footer bytes (no file I/O). */
    if (r->opts.metadata) {
        r->md = pq_metadata_retain(r->opts.metadata);
        stats->reused = 1;
        return PQ_OK;
    }
    if (r->opts.footer_bytes) {
        pq_parse_options po = {r->opts.columns, r->opts.columns_len, 0, r->opts.memory_limit};
        r->md = pq_metadata_parse_decrypt(r->opts.footer_bytes, r->opts.footer_bytes_len, &po,
                                          r->opts.decryption, err);
        if (!r->md) return err ? err->code : PQ_ERR_CORRUPT_FOOTER;
        stats->parses++;
        stats->reused = 1;
        return PQ_OK;
    }

    /* Through a cache, keyed by the caller's key or the file's identity;
     * never with keys: a cached footer may hold what other keys decrypted,
     * or lack what these keys would. */
    if (r->opts.cache && !r->opts.decryption) {
        uint8_t keybuf[4096 + 32];
        const void *key = r->opts.cache_key;
        size_t key_len = r->opts.cache_key_len;
        if (!key && r->io.kind == SOURCE_FILE) {
            key_len = pq_metadata_cache_key_for_path(r->io.path, keybuf, sizeof keybuf, err);
            if (key_len == 0) return err ? err->code : PQ_ERR_IO;
            if (key_len > sizeof keybuf) key_len = 0; /* path too long to key: no caching */
            key = key_len ? keybuf : NULL;
        } else if (!key && r->io.kind == SOURCE_REMOTE) {
            key_len = pq_remote_cache_key(r->io.remote, keybuf, sizeof keybuf); /* URL, size, ETag */
            if (key_len > sizeof keybuf) key_len = 0;
            key = key_len ? keybuf : NULL;
        }
        if (key) {
            if (pq_reader_sans_io(r)) {
                /* Sans-IO cannot load inside the cache; look, then parse and put. */
                pq_metadata *hit = pq_metadata_cache_get(r->opts.cache, key, key_len);
                if (hit) {
                    r->md = hit;
                    stats->reused = 1;
                    return PQ_OK;
                }
                r->md = footer_read_and_parse(r, err);
                if (!r->md) return err ? err->code : PQ_ERR_CORRUPT_FOOTER;
                return pq_metadata_cache_put(r->opts.cache, key, key_len, r->md, err);
            }
            int hit = 0;
            r->md = pq_metadata_cache_get_or_load(r->opts.cache, key, key_len, cache_loader, r,
                                                  &hit, err);
            if (!r->md) return err ? err->code : PQ_ERR_CORRUPT_FOOTER;
            stats->reused = hit ? 1 : 0;
            return PQ_OK;
        }
    }

    r->md = footer_read_and_parse(r, err);
    if (!r->md) return err ? err->code : PQ_ERR_CORRUPT_FOOTER;
    return PQ_OK;
}

/* Where the footer starts: the file size less the trailer and the footer's
 * Thrift bytes (those of the metadata in hand, however it came: read,
 * cached, handed in). Chunks, dictionary pages, indexes and bloom filters
 * must lie before it. Metadata whose footer cannot fit leaves no data
 * region, so every range in it fails as corrupt. */
static uint64_t footer_data_end(const pq_reader *r)
{
    size_t flen = 0;
    pq_metadata_footer_bytes(r->md, &flen);
    const uint64_t overhead = (uint64_t)PARQUET_MAGIC_LEN + FOOTER_TRAILER_LEN;
    if ((uint64_t)flen > r->io.file_size || r->io.file_size - flen < overhead) return PARQUET_MAGIC_LEN;
    return r->io.file_size - FOOTER_TRAILER_LEN - flen;
}

/* ---------------------------------------------------------------------------
 * Driving
 * ------------------------------------------------------------------------- */

pq_stage pq_reader_stage(const pq_reader *r)
{
    return r->stage;
}

static pq_status advance_stage(pq_reader *r, pq_error *err)
{
    switch (r->stage) {
    case PQ_STAGE_INIT: {
        uint64_t t0 = pq_reader_now_ns();
        /* A sans-IO reader that lacks bytes must not leave the error behind
         * as a failed parse: keep the step so the next call resumes. */
        pq_status st = stage_footer(r, err);
        /* The keys a retriever gives, asked for now and kept: no callback later. */
        if (st == PQ_OK) st = pq_keys_resolve(r->md, &r->own_keys, err);
        if (st == PQ_OK) r->opts.decryption = r->own_keys;
        r->stats[PQ_STAGE_FOOTER].nanoseconds += pq_reader_now_ns() - t0;
        if (st != PQ_OK) {
            if (st != PQ_ERR_NEED_DATA) {
                pq_metadata_release(r->md);
                r->md = NULL;
            }
            return st;
        }
        r->footer.data_end = footer_data_end(r);
        r->stage = PQ_STAGE_FOOTER;
        return PQ_OK;
    }
    case PQ_STAGE_FOOTER: {
        uint64_t t0 = pq_reader_now_ns();
        pq_status st = pq_reader_stage_select(r, err);
        r->stats[PQ_STAGE_SELECT].nanoseconds += pq_reader_now_ns() - t0;
        if (st != PQ_OK) return st;
        r->stage = PQ_STAGE_SELECT;
        return PQ_OK;
    }
    case PQ_STAGE_SELECT: {
        uint64_t t0 = pq_reader_now_ns();
        pq_status st = pq_reader_stage_pages(r, err);
        r->stats[PQ_STAGE_PAGE_HEADERS].nanoseconds += pq_reader_now_ns() - t0;
        if (st != PQ_OK) return st;
        r->stage = PQ_STAGE_PAGE_HEADERS;
        /* Supplied bytes have been copied into the chunks: drop them. */
        pq_supplied_free(&r->io.supplied);
        return PQ_OK;
    }
    case PQ_STAGE_PAGE_HEADERS: {
        uint64_t t0 = pq_reader_now_ns();
        pq_status st = pq_reader_stage_filter(r, err);
        r->stats[PQ_STAGE_FILTER].nanoseconds += pq_reader_now_ns() - t0;
        if (st == PQ_ERR_NEED_DATA) return st;
        if (st != PQ_OK) {
            /* The chunks may have been emptied or freed: the page-header
             * stage runs again on the next advance. */
            pq_reader_free_filter(r);
            pq_reader_free_chunks(r);
            r->stage = PQ_STAGE_SELECT;
            return st;
        }
        r->stage = PQ_STAGE_FILTER;
        pq_supplied_free(&r->io.supplied);
        return PQ_OK;
    }
    case PQ_STAGE_FILTER: {
        uint64_t t0 = pq_reader_now_ns();
        pq_status st = pq_reader_stage_decode(r, err);
        r->stats[PQ_STAGE_DECODE].nanoseconds += pq_reader_now_ns() - t0;
        if (st != PQ_OK) return st;
        r->stage = PQ_STAGE_DECODE;
        return PQ_OK;
    }
    default:
        return pq_error_set(err, PQ_ERR_STAGE, "no stage follows '%s': the reader is done",
                            pq_stage_name(r->stage));
    }
}

/* Fetch the ranges a batched round named, all in one read_ranges call, and
 * keep them as supplied bytes for the stage's next round. */
static pq_status fetch_needed(pq_reader *r, pq_stage stage, size_t n, pq_error *err)
{
    pq_range *ranges = malloc(n * sizeof *ranges);
    void **dsts = calloc(n, sizeof *dsts);
    pq_status st = ranges && dsts ? PQ_OK : pq_error_set(err, PQ_ERR_NOMEM, "out of memory for %zu ranges", n);
    if (st == PQ_OK) n = pq_reader_needed_ranges(r, ranges, n);
    uint64_t total = 0;
    for (size_t i = 0; st == PQ_OK && i < n; i++) {
        uint64_t len = ranges[i].length;
        total += len;
        if (r->opts.memory_limit && (len > r->opts.memory_limit || total > r->opts.memory_limit * 4))
            st = pq_error_set(err, PQ_ERR_MEMORY_LIMIT, "the %s stage needs %llu bytes at once, over the memory "
                              "limit (%llu bytes)", pq_stage_name(stage), (unsigned long long)total,
                              (unsigned long long)r->opts.memory_limit);
        else if (!(dsts[i] = pq_pool_alloc((size_t)len)))
            st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory for a %llu-byte range", (unsigned long long)len);
    }
    if (st == PQ_OK) st = r->io.src.read_ranges(r->io.src.user, ranges, n, dsts, err);
    for (size_t i = 0; i < n && dsts; i++) {
        if (st == PQ_OK) {
            st = pq_supplied_adopt(&r->io.supplied, ranges[i].offset, dsts[i], (size_t)ranges[i].length, err);
            if (st == PQ_OK) {
                r->stats[stage].bytes_read += ranges[i].length;
                r->stats[stage].reads++;
                continue;
            }
        }
        pq_pool_give(dsts[i]);
    }
    free(ranges);
    free(dsts);
    return st;
}

/* Put the remote handle's requests since the last look into `stage`'s stats. */
static void count_requests(pq_reader *r, pq_stage stage)
{
    if (r->io.kind != SOURCE_REMOTE) return;
    pq_remote_stats rs;
    pq_remote_get_stats(r->io.remote, &rs);
    r->stats[stage].requests += rs.requests - r->io.remote_requests_seen;
    r->stats[stage].retries += rs.retries - r->io.remote_retries_seen;
    r->io.remote_requests_seen = rs.requests;
    r->io.remote_retries_seen = rs.retries;
}

pq_status pq_reader_advance(pq_reader *r, pq_error *err)
{
    if (!r) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader is NULL");
    pq_error local;
    if (!err) err = &local; /* stages read err->code back */
    if (!r->io.src.read_ranges || r->io.kind == SOURCE_NONE || r->stage >= PQ_STAGE_FILTER) {
        pq_stage target = r->stage + 1 < PQ_STAGE_COUNT ? r->stage + 1 : r->stage;
        pq_status st = advance_stage(r, err);
        count_requests(r, target);
        return st;
    }
    /* A source that reads many ranges at once: run the stage as over
     * sans-IO, fetch together every range it names, and run it again, until
     * it needs nothing more (the footer: tail, then the rest of a long
     * footer; select: indexes and filters; page headers: offset indexes,
     * then pages). A stage that needs bytes it cannot name reads them one
     * at a time. */
    pq_stage target = r->stage + 1;
    pq_status st = PQ_OK;
    for (int round = 0;; round++) {
        pq_error tmp;
        r->io.batched = true;
        st = advance_stage(r, &tmp);
        r->io.batched = false;
        if (st != PQ_ERR_NEED_DATA) {
            if (st != PQ_OK) *err = tmp;
            break;
        }
        size_t n = pq_reader_needed_ranges(r, NULL, 0);
        if (n == 0 || round >= 16) {
            st = advance_stage(r, err);
            break;
        }
        st = fetch_needed(r, target, n, err);
        if (st != PQ_OK) break;
    }
    count_requests(r, target);
    return st;
}

pq_status pq_reader_advance_to(pq_reader *r, pq_stage stage, pq_error *err)
{
    if (!r) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader is NULL");
    if ((unsigned)stage >= PQ_STAGE_COUNT)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "no stage %d", (int)stage);
    while (r->stage < stage) {
        pq_status st = pq_reader_advance(r, err);
        if (st != PQ_OK) return st;
    }
    return PQ_OK;
}

size_t pq_reader_needed_ranges(const pq_reader *r, pq_range *out, size_t cap)
{
    if (!r) return 0;
    if (r->stage == PQ_STAGE_SELECT || r->stage == PQ_STAGE_PAGE_HEADERS) {
        /* The page-header stage's chunks, then the filter stage's deferred
         * ones, once it has evaluated the filter and planned them. */
        if (!r->pages.chunks) return 0; /* planned by the stage's first advance */
        return pq_reader_pages_needed(r, out, cap);
    }
    if (r->stage == PQ_STAGE_FOOTER) return pq_reader_select_needed(r, out, cap);
    if (r->stage != PQ_STAGE_INIT) return 0;
    if (r->opts.metadata || r->opts.footer_bytes) return 0;
    pq_range need;
    if (r->footer.step == FOOTER_NEED_TAIL) {
        uint32_t n = tail_len_for(r);
        need.offset = r->io.file_size - n;
        need.length = n;
    } else if (r->footer.step == FOOTER_NEED_REST) {
        uint64_t start = r->io.file_size - FOOTER_TRAILER_LEN - r->footer.len;
        need.offset = start;
        need.length = r->footer.tail_offset - start;
    } else {
        return 0;
    }
    if (need.length == 0 || pq_supplied_covers(&r->io.supplied, need.offset, need.length)) return 0;
    if (cap > 0) out[0] = need;
    return 1;
}

pq_status pq_reader_supply(pq_reader *r, uint64_t offset, const void *data, size_t len,
                           pq_error *err)
{
    if (!r || (!data && len))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader or data is NULL");
    if (offset > r->io.file_size || len > r->io.file_size - offset)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "supplied range [%llu, %llu) is outside the file (%llu bytes)",
                            (unsigned long long)offset, (unsigned long long)(offset + len),
                            (unsigned long long)r->io.file_size);
    if (r->opts.memory_limit && len > r->opts.memory_limit)
        return pq_error_set(err, PQ_ERR_MEMORY_LIMIT,
                            "supplied range of %zu bytes exceeds the memory limit", len);
    pq_status st = pq_supplied_add(&r->io.supplied, offset, data, len, err);
    if (st != PQ_OK) return st;
    pq_stage next = r->stage + 1 < PQ_STAGE_COUNT ? (pq_stage)(r->stage + 1) : r->stage;
    r->stats[next].bytes_read += len;
    r->stats[next].reads++;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------------- */

pq_metadata *pq_reader_metadata(const pq_reader *r)
{
    return r ? r->md : NULL;
}

uint64_t pq_reader_file_size(const pq_reader *r)
{
    return r ? r->io.file_size : 0;
}

/* ---------------------------------------------------------------------------
 * Counters: each stage's public struct from its pq_stage_counters
 * ------------------------------------------------------------------------- */

/* Hand `mine` (the library's struct of `known` bytes) out as the caller's
 * struct of `size` bytes: the common prefix copied, the rest zeroed. A
 * NULL reader hands out zeros and knows nothing (0). */
static size_t hand_out(const pq_reader *r, const void *mine, size_t known, void *out, size_t size)
{
    if (!out || !size) return 0;
    size_t n = !r ? 0 : size < known ? size : known;
    memcpy(out, mine, n);
    memset((char *)out + n, 0, size - n);
    return r ? known : 0;
}

static const pq_stage_counters *counters(const pq_reader *r, pq_stage stage)
{
    static const pq_stage_counters none;
    return r && (unsigned)stage < PQ_STAGE_COUNT ? &r->stats[stage] : &none;
}

static pq_io_stats io_of(const pq_stage_counters *c)
{
    return (pq_io_stats){.bytes_read = c->bytes_read, .reads = c->reads, .nanoseconds = c->nanoseconds,
                         .requests = c->requests, .retries = c->retries};
}

size_t pq_reader_io_stats(const pq_reader *r, pq_stage stage, pq_io_stats *out, size_t size)
{
    pq_io_stats s = io_of(counters(r, stage));
    return hand_out(stage > PQ_STAGE_INIT && stage < PQ_STAGE_COUNT ? r : NULL, &s, sizeof s, out, size);
}

size_t pq_reader_footer_stats(const pq_reader *r, pq_footer_stats *out, size_t size)
{
    const pq_stage_counters *c = counters(r, PQ_STAGE_FOOTER);
    pq_footer_stats s = {.io = io_of(c), .parses = c->parses, .reused = c->reused};
    return hand_out(r, &s, sizeof s, out, size);
}

size_t pq_reader_select_stats(const pq_reader *r, pq_select_stats *out, size_t size)
{
    const pq_stage_counters *c = counters(r, PQ_STAGE_SELECT);
    pq_select_stats s = {.io = io_of(c),
                         .chunks = c->chunks,
                         .pruned_statistics = c->pruned_statistics,
                         .pruned_dictionary = c->pruned_dictionary,
                         .pruned_bloom_filter = c->pruned_bloom_filter,
                         .pruned_page_index = c->pruned_page_index,
                         .prune_warnings = c->prune_warnings,
                         .pages_considered = c->pages_considered,
                         .pages_pruned = c->pages_pruned,
                         .pruned_deleted = c->pruned_deleted,
                         .rows_deleted = c->rows_deleted};
    return hand_out(r, &s, sizeof s, out, size);
}

size_t pq_reader_page_header_stats(const pq_reader *r, pq_page_header_stats *out, size_t size)
{
    const pq_stage_counters *c = counters(r, PQ_STAGE_PAGE_HEADERS);
    pq_page_header_stats s = {
        .io = io_of(c), .chunks = c->chunks, .pages = c->pages, .pages_skipped = c->pages_skipped, .reused = c->reused};
    return hand_out(r, &s, sizeof s, out, size);
}

size_t pq_reader_filter_stats(const pq_reader *r, pq_filter_stats *out, size_t size)
{
    const pq_stage_counters *c = counters(r, PQ_STAGE_FILTER);
    pq_filter_stats s = {.io = io_of(c),
                         .rows_in = c->rows_in,
                         .rows = c->rows,
                         .rows_filtered = c->rows_filtered,
                         .groups = c->groups,
                         .groups_without_match = c->groups_without_match,
                         .chunks = c->chunks,
                         .pages = c->pages,
                         .pages_skipped = c->pages_skipped,
                         .chunks_skipped = c->chunks_skipped,
                         .bytes_skipped = c->bytes_skipped,
                         .device_filtered_groups = c->device_filtered_groups,
                         .cpu_filtered_groups = c->cpu_filtered_groups};
    return hand_out(r, &s, sizeof s, out, size);
}

size_t pq_reader_decode_stats(const pq_reader *r, pq_decode_stats *out, size_t size)
{
    const pq_stage_counters *c = counters(r, PQ_STAGE_DECODE);
    pq_decode_stats s = {.io = io_of(c),
                         .chunks = c->chunks,
                         .rows = c->rows,
                         .rows_filtered = c->rows_filtered,
                         .bytes_out = c->bytes_out,
                         .device_chunks = c->device_chunks,
                         .cpu_chunks = c->cpu_chunks,
                         .dictionary_bytes_skipped = c->dictionary_bytes_skipped,
                         .chunks_sized_by_statistics = c->sized_by_statistics};
    return hand_out(r, &s, sizeof s, out, size);
}

const pq_chunk_pages *pq_reader_chunk_pages(const pq_reader *r, uint32_t row_group,
                                            uint32_t column)
{
    if (!r || r->stage < PQ_STAGE_PAGE_HEADERS) return NULL;
    /* Chunks are laid out row group by row group, columns in selection order. */
    for (size_t g = 0; g < r->sel.row_groups_len; g++) {
        if (r->sel.row_groups[g] != row_group) continue;
        for (size_t c = 0; c < r->sel.walk_columns_len; c++)
            if (r->sel.walk_columns[c] == column) return &r->pages.chunks[g * r->sel.walk_columns_len + c].info;
    }
    return NULL;
}

const uint32_t *pq_reader_selected_row_groups(const pq_reader *r, size_t *count)
{
    if (count) *count = r && r->stage >= PQ_STAGE_SELECT ? r->sel.row_groups_len : 0;
    return r && r->stage >= PQ_STAGE_SELECT ? r->sel.row_groups : NULL;
}

const uint32_t *pq_reader_selected_columns(const pq_reader *r, size_t *count)
{
    if (count) *count = r && r->stage >= PQ_STAGE_SELECT ? r->sel.columns_len : 0;
    return r && r->stage >= PQ_STAGE_SELECT ? r->sel.columns : NULL;
}
