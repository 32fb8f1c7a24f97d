/*
 * fuzz_footer.c — libFuzzer target for the footer stage.
 *
 * Each input is treated as Thrift FileMetaData bytes and as a file tail. The
 * target checks the contracts of pq_metadata.h, not just "no crash":
 *
 *   - pq_metadata_parse() either fails with a valid status and a terminated
 *     message, or returns an object whose every struct can be walked: each
 *     span lies inside the retained footer bytes, each array can be read to
 *     its length, the schema tree and the leaves point at each other.
 *   - the retained footer bytes are the input, and parsing them again gives
 *     the same metadata (the round trip pqstep offers for reuse).
 *   - a projected parse of an accepted footer succeeds and skips exactly the
 *     chunks outside the projection; an out-of-range projection fails.
 *   - pq_metadata_parse_tail() on "input, length, PAR1" agrees with
 *     pq_metadata_parse() on the input, also with a byte in front; cut one
 *     byte short it asks for exactly the missing suffix (PQ_ERR_NEED_DATA).
 *
 * A broken contract calls abort(), which libFuzzer reports as a crash with the
 * input saved. Build: see tests/fuzz/CMakeLists.txt and CONTRIBUTING.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_metadata.h"

/* Folding every byte into a volatile sink keeps the reads in the binary, so
 * ASan sees each of them. */
static volatile uint8_t pq_fuzz_sink;

#define FUZZ_CHECK(cond, ...)                                               \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "fuzz_footer: %s:%d: check failed: %s: ", __FILE__, \
                    __LINE__, #cond);                                       \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            abort();                                                        \
        }                                                                   \
    } while (0)

typedef struct fuzz_walk {
    const pq_metadata *md;
    const uint8_t *footer; /* the retained footer bytes */
    size_t footer_len;
} fuzz_walk;

static void touch(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc ^= b[i];
    pq_fuzz_sink ^= acc;
}

/* An array of `n` elements must be readable; a non-empty one is never NULL. */
static void touch_array(const void *p, size_t n, size_t elem)
{
    if (n == 0) return;
    FUZZ_CHECK(p != NULL, "array of %zu elements is NULL", n);
    touch(p, n * elem);
}

/* A span points into the retained footer bytes (pq_metadata.h promises it). */
static void touch_span(const fuzz_walk *w, pq_bytes b, const char *what)
{
    if (b.len == 0) return;
    FUZZ_CHECK(b.ptr != NULL, "%s: %u bytes at NULL", what, b.len);
    FUZZ_CHECK(b.ptr >= w->footer && b.len <= w->footer_len &&
                   (size_t)(b.ptr - w->footer) <= w->footer_len - b.len,
               "%s: span outside the footer bytes", what);
    touch(b.ptr, b.len);
}

static void touch_cstr(const char *s, const char *what)
{
    FUZZ_CHECK(s != NULL, "%s is NULL", what);
    touch(s, strlen(s) + 1);
}

static void check_error(const pq_error *err)
{
    FUZZ_CHECK(err->code > PQ_OK && err->code < PQ_STATUS_COUNT, "bad status %d",
               (int)err->code);
    FUZZ_CHECK(memchr(err->message, '\0', sizeof err->message) != NULL,
               "error message not terminated");
    touch_cstr(pq_status_name(err->code), "pq_status_name");
}

/* The text renderers follow the snprintf contract: the output, cut to fit,
 * ends with a NUL at min(needed, cap - 1). (It may hold other NULs: byte
 * values such as a CRS or a string statistic are rendered as they are.) A
 * small buffer exercises truncation, a large one the full text; ASan catches
 * a write past either. */
static void check_format(size_t needed, const char *buf, size_t cap, const char *what)
{
    size_t end = needed < cap ? needed : cap - 1;
    FUZZ_CHECK(buf[end] == '\0', "%s: no NUL at %zu (needed %zu, cap %zu)", what, end, needed,
               cap);
    touch(buf, end);
}

static void format_logical(const pq_logical_type *lt)
{
    char small[8], big[512];
    check_format(pq_logical_type_format(lt, small, sizeof small), small, sizeof small,
                 "logical(small)");
    check_format(pq_logical_type_format(lt, big, sizeof big), big, sizeof big, "logical");
}

static void format_arrow(const pq_arrow_type *at)
{
    char small[8], big[512];
    check_format(pq_arrow_type_format(at, small, sizeof small), small, sizeof small,
                 "arrow(small)");
    check_format(pq_arrow_type_format(at, big, sizeof big), big, sizeof big, "arrow");
}

static void format_stat(const fuzz_walk *w, const pq_leaf *leaf, pq_bytes v, const char *what)
{
    char small[8], big[1024];
    touch_span(w, v, what);
    check_format(pq_stat_value_format(leaf, v, small, sizeof small), small, sizeof small,
                 what);
    check_format(pq_stat_value_format(leaf, v, big, sizeof big), big, sizeof big, what);
}

static void walk_key_values(const fuzz_walk *w, const pq_key_value *kv, uint32_t n)
{
    touch_array(kv, n, sizeof *kv);
    for (uint32_t i = 0; i < n; i++) {
        touch_span(w, kv[i].key, "key_value.key");
        touch_span(w, kv[i].value, "key_value.value");
    }
}

static void walk_column_meta(const fuzz_walk *w, const pq_column_meta *cm,
                             const pq_leaf *leaf)
{
    touch_cstr(pq_physical_type_name(cm->type), "type name");
    touch_cstr(pq_codec_name(cm->codec), "codec name");
    touch_array(cm->encodings, cm->encodings_len, sizeof *cm->encodings);
    for (uint32_t i = 0; i < cm->encodings_len; i++)
        touch_cstr(pq_encoding_name(cm->encodings[i]), "encoding name");
    touch_array(cm->path_in_schema, cm->path_in_schema_len, sizeof *cm->path_in_schema);
    for (uint32_t i = 0; i < cm->path_in_schema_len; i++)
        touch_span(w, cm->path_in_schema[i], "path_in_schema");
    walk_key_values(w, cm->key_value_metadata, cm->key_value_metadata_len);
    touch_array(cm->encoding_stats, cm->encoding_stats_len, sizeof *cm->encoding_stats);
    for (uint32_t i = 0; i < cm->encoding_stats_len; i++) {
        touch_cstr(pq_page_type_name(cm->encoding_stats[i].page_type), "page type name");
        touch_cstr(pq_encoding_name(cm->encoding_stats[i].encoding), "encoding name");
    }

    const pq_statistics *st = &cm->statistics;
    if (leaf) {
        format_stat(w, leaf, st->min, "statistics.min");
        format_stat(w, leaf, st->max, "statistics.max");
        format_stat(w, leaf, st->min_value, "statistics.min_value");
        format_stat(w, leaf, st->max_value, "statistics.max_value");
    } else {
        touch_span(w, st->min, "statistics.min");
        touch_span(w, st->max, "statistics.max");
        touch_span(w, st->min_value, "statistics.min_value");
        touch_span(w, st->max_value, "statistics.max_value");
    }

    const pq_size_statistics *ss = cm->size_statistics;
    FUZZ_CHECK((ss != NULL) == ((cm->set & PQ_CMD_HAS_SIZE_STATISTICS) != 0),
               "size_statistics pointer disagrees with its set bit");
    if (ss) {
        touch(ss, sizeof *ss);
        touch_array(ss->repetition_level_histogram, ss->repetition_level_histogram_len,
                    sizeof(int64_t));
        touch_array(ss->definition_level_histogram, ss->definition_level_histogram_len,
                    sizeof(int64_t));
    }
    const pq_geospatial_statistics *gs = cm->geospatial_statistics;
    FUZZ_CHECK((gs != NULL) == ((cm->set & PQ_CMD_HAS_GEOSPATIAL_STATISTICS) != 0),
               "geospatial_statistics pointer disagrees with its set bit");
    if (gs) {
        touch(gs, sizeof *gs);
        touch_array(gs->geospatial_types, gs->geospatial_types_len, sizeof(int32_t));
    }
}

static void walk_schema(const fuzz_walk *w, const pq_file_metadata *f, const pq_schema *s)
{
    FUZZ_CHECK(s->nodes_len == f->schema_len, "%u nodes for %u schema elements", s->nodes_len,
               f->schema_len);
    touch_array(s->nodes, s->nodes_len, sizeof *s->nodes);
    touch_array(s->leaves, s->leaves_len, sizeof *s->leaves);

    for (uint32_t i = 0; i < s->nodes_len; i++) {
        const pq_schema_node *n = &s->nodes[i];
        FUZZ_CHECK(n->element == &f->schema[i], "node %u does not describe schema[%u]", i, i);
        touch_cstr(n->name, "node name");
        FUZZ_CHECK(strlen(n->name) <= n->element->name.len, "node %u name longer than element", i);
        if (i == 0)
            FUZZ_CHECK(n->parent == -1 && n->depth == 0, "root has parent %d depth %d", n->parent,
                       n->depth);
        else
            FUZZ_CHECK(n->parent >= 0 && (uint32_t)n->parent < i, "node %u parent %d", i,
                       n->parent);
        FUZZ_CHECK(n->num_children >= 0, "node %u has %d children", i, n->num_children);
        touch_array(n->children, (size_t)n->num_children, sizeof *n->children);
        for (int32_t c = 0; c < n->num_children; c++) {
            int32_t ch = n->children[c];
            FUZZ_CHECK(ch > (int32_t)i && (uint32_t)ch < s->nodes_len, "node %u child %d", i, ch);
            FUZZ_CHECK(s->nodes[ch].parent == (int32_t)i, "child %d of %u has parent %d", ch, i,
                       s->nodes[ch].parent);
        }
        if (n->leaf_index >= 0) {
            FUZZ_CHECK((uint32_t)n->leaf_index < s->leaves_len, "node %u leaf %d", i,
                       n->leaf_index);
            FUZZ_CHECK(s->leaves[n->leaf_index].node == (int32_t)i, "leaf %d is not node %u",
                       n->leaf_index, i);
        } else {
            FUZZ_CHECK(n->leaf_index == -1, "node %u leaf index %d", i, n->leaf_index);
        }
        format_arrow(&n->arrow);
    }

    for (uint32_t i = 0; i < s->leaves_len; i++) {
        const pq_leaf *l = &s->leaves[i];
        FUZZ_CHECK(l->node >= 0 && (uint32_t)l->node < s->nodes_len, "leaf %u node %d", i,
                   l->node);
        FUZZ_CHECK(s->nodes[l->node].leaf_index == (int32_t)i, "leaf %u node %d points elsewhere",
                   i, l->node);
        touch_cstr(l->path, "leaf path");
        touch_cstr(pq_physical_type_name(l->physical_type), "type name");
        format_logical(&l->logical);
        format_arrow(&l->arrow);
        /* Lookup by path finds this leaf, or an earlier leaf of the same path
         * (a malformed schema may repeat names). */
        int32_t found = pq_metadata_find_leaf(w->md, l->path);
        FUZZ_CHECK(found >= 0 && (uint32_t)found <= i &&
                       strcmp(s->leaves[found].path, l->path) == 0,
                   "find_leaf(%s) gave %d for leaf %u", l->path, found, i);
    }
}

static void walk(const pq_metadata *md)
{
    fuzz_walk w = { .md = md };
    w.footer = pq_metadata_footer_bytes(md, &w.footer_len);
    touch_array(w.footer, w.footer_len, 1);
    touch(&(size_t){ pq_metadata_memory_size(md) }, sizeof(size_t));

    const pq_file_metadata *f = pq_metadata_file(md);
    const pq_schema *s = pq_metadata_schema(md);
    FUZZ_CHECK(f != NULL && s != NULL, "file or schema is NULL");

    touch_array(f->schema, f->schema_len, sizeof *f->schema);
    for (uint32_t i = 0; i < f->schema_len; i++) {
        const pq_schema_element *el = &f->schema[i];
        touch_span(&w, el->name, "schema.name");
        if (el->logical.has_crs) touch_span(&w, el->logical.crs, "schema.logical.crs");
        touch_cstr(pq_repetition_name(el->repetition), "repetition name");
        touch_cstr(pq_converted_type_name(el->converted_type), "converted type name");
        format_logical(&el->logical);
    }

    walk_schema(&w, f, s);

    touch_array(f->row_groups, f->row_groups_len, sizeof *f->row_groups);
    for (uint32_t g = 0; g < f->row_groups_len; g++) {
        const pq_row_group *rg = &f->row_groups[g];
        touch_array(rg->sorting_columns, rg->sorting_columns_len, sizeof *rg->sorting_columns);
        touch_array(rg->columns, rg->columns_len, sizeof *rg->columns);
        for (uint32_t c = 0; c < rg->columns_len; c++) {
            const pq_column_chunk *cc = rg->columns[c];
            touch_span(&w, cc->file_path, "column.file_path");
            touch_span(&w, cc->encrypted_column_metadata, "column.encrypted_column_metadata");
            const pq_leaf *leaf = c < s->leaves_len ? &s->leaves[c] : NULL;
            walk_column_meta(&w, &cc->meta_data, leaf);
        }
    }

    walk_key_values(&w, f->key_value_metadata, f->key_value_metadata_len);
    touch_span(&w, f->created_by, "created_by");
    touch_array(f->column_orders, f->column_orders_len, sizeof *f->column_orders);
    touch_span(&w, f->footer_signing_key_metadata, "footer_signing_key_metadata");
}

/* Two parses of the same bytes describe the same file. */
static void check_same(const pq_metadata *a, const pq_metadata *b)
{
    const pq_file_metadata *fa = pq_metadata_file(a), *fb = pq_metadata_file(b);
    const pq_schema *sa = pq_metadata_schema(a), *sb = pq_metadata_schema(b);
    FUZZ_CHECK(fa->version == fb->version && fa->num_rows == fb->num_rows &&
                   fa->schema_len == fb->schema_len && fa->row_groups_len == fb->row_groups_len &&
                   fa->key_value_metadata_len == fb->key_value_metadata_len &&
                   fa->column_orders_len == fb->column_orders_len && fa->set == fb->set,
               "file metadata differs after the round trip");
    FUZZ_CHECK(sa->nodes_len == sb->nodes_len && sa->leaves_len == sb->leaves_len,
               "schema differs after the round trip");
    for (uint32_t i = 0; i < sa->leaves_len; i++)
        FUZZ_CHECK(strcmp(sa->leaves[i].path, sb->leaves[i].path) == 0 &&
                       sa->leaves[i].max_def == sb->leaves[i].max_def &&
                       sa->leaves[i].max_rep == sb->leaves[i].max_rep,
                   "leaf %u differs after the round trip", i);
    for (uint32_t g = 0; g < fa->row_groups_len; g++) {
        const pq_row_group *ra = &fa->row_groups[g], *rb = &fb->row_groups[g];
        FUZZ_CHECK(ra->num_rows == rb->num_rows && ra->columns_len == rb->columns_len,
                   "row group %u differs after the round trip", g);
        for (uint32_t c = 0; c < ra->columns_len; c++)
            FUZZ_CHECK(ra->columns[c]->meta_data.num_values == rb->columns[c]->meta_data.num_values &&
                           ra->columns[c]->meta_data.data_page_offset ==
                               rb->columns[c]->meta_data.data_page_offset &&
                           ra->columns[c]->set == rb->columns[c]->set,
                       "row group %u column %u differs after the round trip", g, c);
    }
}

static void check_round_trip(const pq_metadata *md, const uint8_t *data, size_t size)
{
    size_t len = 0;
    const uint8_t *bytes = pq_metadata_footer_bytes(md, &len);
    FUZZ_CHECK(len == size && (size == 0 || memcmp(bytes, data, size) == 0),
               "retained footer bytes (%zu) are not the input (%zu)", len, size);
    pq_error err = { 0 };
    pq_metadata *again = pq_metadata_parse(bytes, len, NULL, &err);
    FUZZ_CHECK(again != NULL, "reparse of accepted footer failed: %s", err.message);
    check_same(md, again);
    pq_metadata_release(again);
}

/* Decode only the first and last leaf: must succeed when the full parse did,
 * and mark every other chunk skipped. */
static void check_projection(const pq_metadata *md, const uint8_t *data, size_t size)
{
    const pq_schema *s = pq_metadata_schema(md);
    const pq_file_metadata *f = pq_metadata_file(md);
    if (s->leaves_len == 0) return;

    uint32_t cols[2] = { 0, s->leaves_len - 1 };
    pq_parse_options opts = { .columns = cols, .columns_len = s->leaves_len > 1 ? 2 : 1 };
    pq_error err = { 0 };
    pq_metadata *p = pq_metadata_parse(data, size, &opts, &err);
    FUZZ_CHECK(p != NULL, "projected parse failed where the full parse passed: %s", err.message);
    FUZZ_CHECK(pq_metadata_is_projected(p), "projected parse not marked projected");
    walk(p);
    const pq_file_metadata *pf = pq_metadata_file(p);
    FUZZ_CHECK(pf->row_groups_len == f->row_groups_len, "projection changed the row groups");
    for (uint32_t g = 0; g < pf->row_groups_len; g++) {
        const pq_row_group *rg = &pf->row_groups[g], *full = &f->row_groups[g];
        FUZZ_CHECK(rg->columns_len == full->columns_len && rg->num_rows == full->num_rows,
                   "projection changed row group %u", g);
        for (uint32_t c = 0; c < rg->columns_len; c++) {
            int kept = c == cols[0] || c == cols[1];
            int skipped = (rg->columns[c]->set & PQ_CC_SKIPPED) != 0;
            FUZZ_CHECK(kept != skipped, "row group %u column %u: kept %d skipped %d", g, c, kept,
                       skipped);
            if (kept)
                FUZZ_CHECK(rg->columns[c]->meta_data.num_values ==
                               full->columns[c]->meta_data.num_values,
                           "projected column %u of row group %u differs", c, g);
        }
    }
    pq_metadata_release(p);

    /* An index past the last leaf is the caller's error. */
    uint32_t bad = s->leaves_len;
    pq_parse_options bad_opts = { .columns = &bad, .columns_len = 1 };
    pq_metadata *q = pq_metadata_parse(data, size, &bad_opts, &err);
    FUZZ_CHECK(q == NULL, "projection with leaf %u of %u accepted", bad, s->leaves_len);
    check_error(&err);

    /* A footer over the configured limit is refused. */
    if (size > 1) {
        pq_parse_options small = { .max_footer_size = size - 1 };
        q = pq_metadata_parse(data, size, &small, &err);
        FUZZ_CHECK(q == NULL, "footer of %zu bytes accepted with max_footer_size %zu", size,
                   size - 1);
        check_error(&err);
    }
}

/* "pad, data, le32(size), PAR1" through parse_tail agrees with parse(data). */
static void check_tail(const uint8_t *data, size_t size, const pq_metadata *md,
                       const pq_error *md_err)
{
    if (size > UINT32_MAX - 16) return;
    for (size_t pad = 0; pad < 2; pad++) {
        size_t len = pad + size + 8;
        uint8_t *tail = malloc(len);
        FUZZ_CHECK(tail != NULL, "out of memory");
        memset(tail, 'X', pad);
        if (size) memcpy(tail + pad, data, size);
        for (int i = 0; i < 4; i++) tail[pad + size + i] = (uint8_t)(size >> (8 * i));
        memcpy(tail + pad + size + 4, "PAR1", 4);

        pq_error err = { 0 };
        size_t needed = 0;
        pq_metadata *t = pq_metadata_parse_tail(tail, len, NULL, &needed, &err);
        if (md) {
            FUZZ_CHECK(t != NULL, "parse passed, parse_tail failed: %s", err.message);
            size_t blen = 0;
            const uint8_t *b = pq_metadata_footer_bytes(t, &blen);
            FUZZ_CHECK(blen == size && (size == 0 || memcmp(b, data, size) == 0),
                       "parse_tail kept other footer bytes");
            check_same(md, t);
            pq_metadata_release(t);
        } else {
            FUZZ_CHECK(t == NULL, "parse failed (%s), parse_tail passed", md_err->message);
            check_error(&err);
            FUZZ_CHECK(err.code == md_err->code, "parse said %d, parse_tail said %d",
                       (int)md_err->code, (int)err.code);
        }

        /* One byte short of the footer: the exact suffix length is asked for. */
        if (pad == 0 && size > 0) {
            needed = 0;
            t = pq_metadata_parse_tail(tail + 1, len - 1, NULL, &needed, &err);
            FUZZ_CHECK(t == NULL && err.code == PQ_ERR_NEED_DATA && needed == len,
                       "short tail: got %p code %d needed %zu, want NEED_DATA %zu", (void *)t,
                       (int)err.code, needed, len);
            pq_metadata_release(t);
        }
        free(tail);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* 1. The input as footer bytes. */
    pq_error err = { 0 };
    pq_metadata *md = pq_metadata_parse(data, size, NULL, &err);
    if (md) {
        walk(md);
        check_round_trip(md, data, size);
        check_projection(md, data, size);
        /* Another reference outlives the first release. */
        pq_metadata *ref = pq_metadata_retain(md);
        pq_metadata_release(md);
        walk(ref);
        md = ref;
    } else {
        check_error(&err);
    }
    check_tail(data, size, md, &err);
    pq_metadata_release(md);

    /* 2. The input as a file tail, as it comes. */
    pq_error terr = { 0 };
    size_t needed = 0;
    pq_metadata *t = pq_metadata_parse_tail(data, size, NULL, &needed, &terr);
    if (t) {
        size_t blen = 0;
        pq_metadata_footer_bytes(t, &blen);
        FUZZ_CHECK(blen + 8 <= size, "footer of %zu bytes from a %zu-byte tail", blen, size);
        walk(t);
        pq_metadata_release(t);
    } else {
        check_error(&terr);
        if (terr.code == PQ_ERR_NEED_DATA)
            FUZZ_CHECK(needed > size, "NEED_DATA with needed %zu for %zu bytes", needed, size);
    }
    return 0;
}
