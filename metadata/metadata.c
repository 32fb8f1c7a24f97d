/*
 * metadata.c — the pq_metadata object: parse, share, hand back its bytes.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "metadata/footer_crypto.h"
#include "metadata/metadata_internal.h"
#include "metadata/options_size.h"

/* Largest footer accepted when the caller does not say: far above any real
 * file (a 100,000-column footer is tens of MiB), far below address space. */
#define DEFAULT_MAX_FOOTER_SIZE ((uint64_t)256 << 20)

static atomic_uint_fast64_t footer_parses;

uint64_t pq_footer_parse_count(void)
{
    return atomic_load_explicit(&footer_parses, memory_order_relaxed);
}

static void metadata_free(pq_metadata *md)
{
    pq_arena_free(&md->arena);
    free(md->footer);
    free(md);
}

/* Every row group must carry one chunk per leaf column, in leaf order. */
static pq_status check_chunks_match_schema(const pq_file_metadata *fm, const pq_schema *schema,
                                           pq_error *err)
{
    for (uint32_t g = 0; g < fm->row_groups_len; g++) {
        if (fm->row_groups[g].columns_len != schema->leaves_len)
            return pq_error_set(err, PQ_ERR_CORRUPT_FOOTER,
                                "RowGroup[%u].columns: %u column chunks, but the schema has %u "
                                "leaf columns", g, fm->row_groups[g].columns_len,
                                schema->leaves_len);
    }
    return PQ_OK;
}

void pq_decryption_init(pq_decryption *d)
{
    if (!d) return;
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
}

pq_metadata *pq_metadata_parse(const void *footer, size_t len, const pq_parse_options *opts,
                               pq_error *err)
{
    return pq_metadata_parse_decrypt(footer, len, opts, NULL, err);
}

pq_metadata *pq_metadata_parse_decrypt(const void *footer, size_t len, const pq_parse_options *opts,
                                       const pq_decryption *keys, pq_error *err)
{
    atomic_fetch_add_explicit(&footer_parses, 1, memory_order_relaxed);
    uint64_t max_footer = opts && opts->max_footer_size ? opts->max_footer_size
                                                         : DEFAULT_MAX_FOOTER_SIZE;
    if (!footer && len) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "footer bytes are NULL");
        return NULL;
    }
    if (len == 0) {
        pq_error_set(err, PQ_ERR_CORRUPT_FOOTER, "FileMetaData: empty footer");
        return NULL;
    }
    if (len > max_footer || len > UINT32_MAX) {
        pq_error_set(err, PQ_ERR_MEMORY_LIMIT, "footer of %zu bytes exceeds the limit of %llu",
                     len, (unsigned long long)max_footer);
        return NULL;
    }

    pq_metadata *md = calloc(1, sizeof *md);
    if (!md) {
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        return NULL;
    }
    atomic_init(&md->refs, 1);
    md->footer = malloc(len);
    if (!md->footer) {
        free(md);
        pq_error_set(err, PQ_ERR_NOMEM, "out of memory copying a footer of %zu bytes", len);
        return NULL;
    }
    memcpy(md->footer, footer, len);
    md->footer_len = len;
    /* Decoded structs take about 3-4x the encoded size, so one block usually
     * does; a projection keeps a fraction of that and starts small. */
    pq_arena_init(&md->arena, (opts && opts->columns) ? len / 2 + 4096 : len * 4 + 4096);
    uint64_t limit = opts && opts->memory_limit ? opts->memory_limit
                                                 : (uint64_t)len * 64 + ((uint64_t)16 << 20);
    if (limit < len) {
        metadata_free(md);
        pq_error_set(err, PQ_ERR_MEMORY_LIMIT,
                     "footer of %zu bytes exceeds the memory limit of %llu bytes", len,
                     (unsigned long long)limit);
        return NULL;
    }
    pq_arena_set_limit(&md->arena, limit - len > SIZE_MAX ? SIZE_MAX : (size_t)(limit - len));

    /* Projection bitmap over leaf indexes. */
    uint8_t *keep = NULL;
    uint32_t keep_len = 0;
    if (opts && opts->columns) {
        for (size_t i = 0; i < opts->columns_len; i++)
            if (opts->columns[i] >= keep_len) keep_len = opts->columns[i] + 1;
        keep = pq_arena_calloc(&md->arena, keep_len ? keep_len : 1, 1);
        if (!keep) {
            metadata_free(md);
            pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
            return NULL;
        }
        for (size_t i = 0; i < opts->columns_len; i++) keep[opts->columns[i]] = 1;
        md->projected = true;
    }

    pq_decryption keys_in;
    pq_decryption_init(&keys_in);
    pq_status st = keys ? pq_options_take(&keys_in, sizeof keys_in, keys, sizeof keys_in, "pq_decryption", err)
                        : PQ_OK;
    const uint8_t *plain = NULL;
    size_t plain_len = 0;
    if (st == PQ_OK)
        st = pq_footer_crypto_open(md->footer, len, keys ? &keys_in : NULL, &md->arena, &md->crypto, &plain,
                                   &plain_len, err);
    if (st == PQ_OK)
        st = pq_footer_decode(plain, plain_len, &md->arena, md->projected ? keep : NULL, keep_len, &md->file,
                              err);
    if (st == PQ_OK) st = pq_footer_crypto_check(&md->file, &md->crypto, err);
    pq_warnings_init(&md->warnings, &md->arena);
    if (st == PQ_OK) st = pq_schema_build(&md->arena, &md->file, &md->schema, &md->warnings, err);
    if (st == PQ_OK)
        st = pq_footer_crypto_finish(md->footer, len, keys ? &keys_in : NULL, &md->arena, &md->file,
                                     &md->schema, &md->crypto, err);
    pq_crypto_wipe(&keys_in, sizeof keys_in);
    if (st == PQ_OK) st = pq_warnings_finish(&md->warnings, err);
    if (st == PQ_OK) st = check_chunks_match_schema(&md->file, &md->schema, err);
    if (st == PQ_OK && md->projected && keep_len > md->schema.leaves_len)
        st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                          "projected column %u is out of range (the file has %u leaf columns)",
                          keep_len - 1, md->schema.leaves_len);
    if (st != PQ_OK) {
        if (md->arena.over_limit)
            pq_error_set(err, PQ_ERR_MEMORY_LIMIT,
                         "decoding a footer of %zu bytes would take more than the memory "
                         "limit of %llu bytes", len, (unsigned long long)limit);
        metadata_free(md);
        return NULL;
    }
    return md;
}

pq_metadata *pq_metadata_parse_tail(const void *tail, size_t len, const pq_parse_options *opts,
                                    size_t *needed, pq_error *err)
{
    const uint8_t *t = tail;
    if (needed) *needed = 0;
    if (!t && len) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "tail bytes are NULL");
        return NULL;
    }
    if (len < 8) {
        if (needed) *needed = 8;
        pq_error_set(err, PQ_ERR_NEED_DATA, "need at least the last 8 bytes of the file");
        return NULL;
    }
    const uint8_t *magic = t + len - 4;
    if (memcmp(magic, "PARE", 4) == 0) {
        pq_error_set(err, PQ_ERR_ENCRYPTED,
                     "the footer is encrypted (\"PARE\"): parse it with pq_metadata_parse_decrypt and its key");
        return NULL;
    }
    if (memcmp(magic, "PAR1", 4) != 0) {
        pq_error_set(err, PQ_ERR_NOT_PARQUET, "not a Parquet file (no \"PAR1\" magic at the end)");
        return NULL;
    }
    uint32_t flen = (uint32_t)t[len - 8] | (uint32_t)t[len - 7] << 8 |
                    (uint32_t)t[len - 6] << 16 | (uint32_t)t[len - 5] << 24;
    if ((uint64_t)flen + 8 > len) {
        if (needed) *needed = (size_t)flen + 8;
        pq_error_set(err, PQ_ERR_NEED_DATA, "footer of %u bytes needs %llu tail bytes, have %zu",
                     flen, (unsigned long long)flen + 8, len);
        return NULL;
    }
    return pq_metadata_parse(t + len - 8 - flen, flen, opts, err);
}

void pq_metadata_encryption(const pq_metadata *md, pq_file_encryption *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (md) *out = md->crypto.info;
}

const pq_footer_crypto *pq_metadata_crypto(const pq_metadata *md)
{
    return &md->crypto;
}

pq_metadata *pq_metadata_retain(pq_metadata *md)
{
    if (md) atomic_fetch_add_explicit(&md->refs, 1, memory_order_relaxed);
    return md;
}

void pq_metadata_release(pq_metadata *md)
{
    if (!md) return;
    /* acq_rel: the last owner must see every other owner's reads finish. */
    if (atomic_fetch_sub_explicit(&md->refs, 1, memory_order_acq_rel) == 1) metadata_free(md);
}

const pq_file_metadata *pq_metadata_file(const pq_metadata *md)
{
    return &md->file;
}

const pq_schema *pq_metadata_schema(const pq_metadata *md)
{
    return &md->schema;
}

const uint8_t *pq_metadata_footer_bytes(const pq_metadata *md, size_t *len)
{
    if (len) *len = md->footer_len;
    return md->footer;
}

size_t pq_metadata_memory_size(const pq_metadata *md)
{
    return sizeof *md + md->footer_len + md->arena.total;
}

size_t pq_metadata_warning_count(const pq_metadata *md)
{
    return md ? md->warnings.len : 0;
}

const char *pq_metadata_warning(const pq_metadata *md, size_t i)
{
    return md && i < md->warnings.len ? md->warnings.items[i] : NULL;
}

bool pq_metadata_is_projected(const pq_metadata *md)
{
    return md->projected;
}

size_t pq_metadata_find_leaves(const pq_metadata *md, const char *path, uint32_t *out, size_t cap)
{
    if (!md || !path) return 0;
    const pq_schema *s = &md->schema;
    size_t n = strlen(path), count = 0;
    for (uint32_t i = 0; i < s->leaves_len; i++) {
        const char *lp = s->leaves[i].path;
        if (strncmp(lp, path, n) != 0 || (lp[n] != '\0' && lp[n] != '.')) continue;
        if (lp[n] == '\0') { /* the leaf itself */
            if (out && cap) out[0] = i;
            return 1;
        }
        if (out && count < cap) out[count] = i;
        count++;
    }
    return count;
}

int32_t pq_metadata_find_leaf(const pq_metadata *md, const char *path)
{
    /* the leaf of that path, or the one leaf under a group ("tags" for
     * tags.list.element) */
    uint32_t leaf;
    return pq_metadata_find_leaves(md, path, &leaf, 1) == 1 ? (int32_t)leaf : -1;
}
