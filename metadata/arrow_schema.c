/*
 * arrow_schema.c — the schema tree exported as an Arrow C Data Interface
 * ArrowSchema, typed as pyarrow reads the file by default.
 *
 * How Parquet nodes become Arrow fields (see the top of schema.c for the
 * types each node was given):
 *  - An ordinary node is a field of its own name, nullable when OPTIONAL.
 *    A REPEATED one outside a list is a non-nullable list of itself: the
 *    element has the node's name, is not nullable, and is the node's value
 *    (its leaf type, or a struct of its children).
 *  - A LIST group's only child C is either structure (3-level list: the
 *    element is C's only child, under its own name) or, by the legacy
 *    rules, the element itself (2-level: named after C, not nullable).
 *  - A MAP group holds one entries struct, named after the map group as
 *    pyarrow names it (not "entries"), with the key (never nullable) and
 *    the value.
 *
 * Memory: every ArrowSchema node owns one malloc'd block with its children
 * structs, the pointer array to them, and its strings. Its release frees
 * the children that are still there (release != NULL), then the block, so a
 * consumer may move any child out and release it on its own, as the spec
 * allows. Nothing points into the pq_metadata.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pq_arrow.h"
#include "metadata/arrow_schema.h"
#include "metadata/error.h"

/* Room for a format string: "d:2147483647,2147483647,256" and the like. */
#define FORMAT_CAP 40

/* Room for the binary metadata of one field: the field id and the
 * extension name and (empty) extension metadata. */

typedef struct export_ctx {
    const pq_schema *schema;
    const pq_file_metadata *fm; /* the file's key/value metadata (a PROJJSON CRS may live there) */
    pq_error *err;
    const bool *want; /* per node: an ancestor of a selected leaf (NULL: every node) */
} export_ctx;

/* Whether a struct exports child `node`: the reader builds a struct from
 * its selected leaves alone, so the schema keeps only their branches. */
static bool wanted(const export_ctx *x, int32_t node)
{
    return !x->want || x->want[node];
}

/* ---------------------------------------------------------------------------
 * Format strings
 * ------------------------------------------------------------------------- */

static char unit_char(uint8_t unit)
{
    switch (unit) {
    case PQ_UNIT_MILLIS: return 'm';
    case PQ_UNIT_MICROS: return 'u';
    case PQ_UNIT_NANOS: return 'n';
    case PQ_UNIT_SECONDS: return 's';
    default: return 0;
    }
}

pq_status pq_arrow_format(const pq_arrow_type *t, char *buf, size_t cap)
{
    if (!t || !buf || cap == 0) return PQ_ERR_INVALID_ARGUMENT;
    const char *fixed = NULL;
    int n = -1;
    char u = unit_char(t->unit);
    switch (t->id) {
    case PQ_ARROW_NA: fixed = "n"; break;
    case PQ_ARROW_BOOL: fixed = "b"; break;
    case PQ_ARROW_INT8: fixed = "c"; break;
    case PQ_ARROW_UINT8: fixed = "C"; break;
    case PQ_ARROW_INT16: fixed = "s"; break;
    case PQ_ARROW_UINT16: fixed = "S"; break;
    case PQ_ARROW_INT32: fixed = "i"; break;
    case PQ_ARROW_UINT32: fixed = "I"; break;
    case PQ_ARROW_INT64: fixed = "l"; break;
    case PQ_ARROW_UINT64: fixed = "L"; break;
    case PQ_ARROW_FLOAT16: fixed = "e"; break;
    case PQ_ARROW_FLOAT32: fixed = "f"; break;
    case PQ_ARROW_FLOAT64: fixed = "g"; break;
    case PQ_ARROW_STRING:
    case PQ_ARROW_EXTENSION_JSON: fixed = "u"; break;
    case PQ_ARROW_BINARY: fixed = "z"; break;
    case PQ_ARROW_LARGE_STRING: fixed = "U"; break;
    case PQ_ARROW_LARGE_BINARY: fixed = "Z"; break;
    case PQ_ARROW_DURATION:
        if (!u) return PQ_ERR_UNSUPPORTED;
        n = snprintf(buf, cap, "tD%c", u);
        break;
    case PQ_ARROW_DATE32: fixed = "tdD"; break;
    case PQ_ARROW_STRUCT: fixed = "+s"; break;
    case PQ_ARROW_LIST: fixed = "+l"; break;
    case PQ_ARROW_MAP: fixed = "+m"; break;
    case PQ_ARROW_FIXED_SIZE_BINARY:
    case PQ_ARROW_EXTENSION_UUID:
        if (t->byte_width <= 0) return PQ_ERR_UNSUPPORTED;
        n = snprintf(buf, cap, "w:%" PRId32, t->byte_width);
        break;
    case PQ_ARROW_DECIMAL64:
        n = snprintf(buf, cap, "d:%" PRId32 ",%" PRId32 ",64", t->precision, t->scale);
        break;
    case PQ_ARROW_DECIMAL128:
        n = snprintf(buf, cap, "d:%" PRId32 ",%" PRId32, t->precision, t->scale);
        break;
    case PQ_ARROW_DECIMAL256:
        n = snprintf(buf, cap, "d:%" PRId32 ",%" PRId32 ",256", t->precision, t->scale);
        break;
    case PQ_ARROW_TIME32:
        if (t->unit != PQ_UNIT_MILLIS) return PQ_ERR_UNSUPPORTED;
        fixed = "ttm";
        break;
    case PQ_ARROW_TIME64:
        if (t->unit != PQ_UNIT_MICROS && t->unit != PQ_UNIT_NANOS) return PQ_ERR_UNSUPPORTED;
        fixed = t->unit == PQ_UNIT_MICROS ? "ttu" : "ttn";
        break;
    case PQ_ARROW_TIMESTAMP:
        if (!u) return PQ_ERR_UNSUPPORTED;
        n = snprintf(buf, cap, "ts%c:%s", u, t->utc ? "UTC" : "");
        break;
    default: return PQ_ERR_UNSUPPORTED;
    }
    if (fixed) n = snprintf(buf, cap, "%s", fixed);
    if (n < 0 || (size_t)n >= cap) return PQ_ERR_INVALID_ARGUMENT;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Field metadata (the C Data Interface's binary key/value encoding)
 * ------------------------------------------------------------------------- */

typedef struct meta_buf {
    char *bytes;  /* malloc'd (meta_free) */
    size_t len;   /* 0: no metadata */
    size_t cap;
    int32_t count;
    bool failed;  /* out of memory: the field's export fails */
} meta_buf;

static void meta_free(meta_buf *m)
{
    free(m->bytes);
    memset(m, 0, sizeof *m);
}

static void put_i32(char *p, int32_t v)
{
    memcpy(p, &v, sizeof v); /* native byte order, per the spec */
}

/* Append one pair. */
static void meta_add(meta_buf *m, const char *key, const char *value)
{
    size_t kl = strlen(key), vl = strlen(value);
    if (m->failed) return;
    if (kl > INT32_MAX || vl > INT32_MAX - kl - 16) {
        m->failed = true;
        return;
    }
    size_t need = (m->len ? m->len : 4) + 8 + kl + vl;
    if (need > m->cap) {
        size_t cap = need < 256 ? 256 : need * 2;
        char *b = realloc(m->bytes, cap);
        if (!b) {
            m->failed = true;
            return;
        }
        m->bytes = b;
        m->cap = cap;
    }
    if (m->len == 0) m->len = 4;
    put_i32(m->bytes + m->len, (int32_t)kl);
    memcpy(m->bytes + m->len + 4, key, kl);
    put_i32(m->bytes + m->len + 4 + kl, (int32_t)vl);
    memcpy(m->bytes + m->len + 8 + kl, value, vl);
    m->len += 8 + kl + vl;
    put_i32(m->bytes, ++m->count);
}

/* Whether `node` is a VARIANT group stored unshredded: exactly a binary
 * `metadata` and a binary `value`, the storage of Arrow's canonical
 * extension type arrow.parquet.variant as it is. (A shredded one, with
 * `typed_value`, reads as its storage struct until it is rebuilt.) */
static bool unshredded_variant(const pq_schema *schema, const pq_schema_node *node)
{
    const pq_schema_element *el = node ? node->element : NULL;
    if (!schema || !el || el->logical.kind != PQ_LOGICAL_VARIANT || node->num_children != 2) return false;
    bool meta = false, value = false;
    for (int32_t i = 0; i < node->num_children; i++) {
        const pq_schema_node *c = &schema->nodes[node->children[i]];
        if (c->leaf_index < 0 || c->element->type != PQ_BYTE_ARRAY) return false;
        meta |= strcmp(c->name, "metadata") == 0;
        value |= strcmp(c->name, "value") == 0;
    }
    return meta && value;
}

/* Parquet's EdgeInterpolationAlgorithm as GeoArrow names it. */
static const char *edges_name(int32_t algorithm)
{
    static const char *const names[] = {"spherical", "vincenty", "thomas", "andoyer", "karney"};
    return algorithm >= 0 && algorithm < 5 ? names[algorithm] : NULL;
}

/* A CRS string as GeoArrow's `crs` (and `crs_type`): PROJJSON (a JSON
 * object) embedded as an object, `srid:N` as an SRID, any other string as
 * it is, without a type. */
static void geo_crs(json_t *o, const char *crs, size_t len)
{
    json_error_t jerr;
    json_t *obj = len && crs[0] == '{' ? json_loadb(crs, len, 0, &jerr) : NULL;
    if (obj && json_is_object(obj)) {
        json_object_set_new(o, "crs", obj);
        json_object_set_new(o, "crs_type", json_string("projjson"));
        return;
    }
    json_decref(obj);
    if (len > 5 && memcmp(crs, "srid:", 5) == 0) {
        json_object_set_new(o, "crs", json_stringn(crs + 5, len - 5));
        json_object_set_new(o, "crs_type", json_string("srid"));
        return;
    }
    json_object_set_new(o, "crs", json_stringn(crs, len)); /* NULL (not UTF-8): not set */
}

/* GEOMETRY and GEOGRAPHY as GeoArrow's geoarrow.wkb: the CRS (the
 * format's default, OGC:CRS84, when the file names none; `projjson:KEY`
 * looked up in the file's key/value metadata) and, for GEOGRAPHY, the
 * edges (spherical unless the file says otherwise). */
static void geo_meta(const export_ctx *x, const pq_schema_element *el, meta_buf *m)
{
    json_t *o = json_object();
    if (!o) {
        m->failed = true;
        return;
    }
    const char *crs = (const char *)el->logical.crs.ptr;
    size_t len = el->logical.has_crs ? el->logical.crs.len : 0;
    if (len == 0) {
        json_object_set_new(o, "crs", json_string("OGC:CRS84"));
        json_object_set_new(o, "crs_type", json_string("authority_code"));
    } else if (len > 9 && memcmp(crs, "projjson:", 9) == 0) {
        const pq_key_value *kv = NULL;
        for (uint32_t i = 0; x->fm && i < x->fm->key_value_metadata_len; i++) {
            const pq_key_value *k = &x->fm->key_value_metadata[i];
            if (k->has_value && k->key.len == len - 9 && memcmp(k->key.ptr, crs + 9, len - 9) == 0) kv = k;
        }
        if (kv) geo_crs(o, (const char *)kv->value.ptr, kv->value.len);
        else geo_crs(o, crs, len); /* the key is not there: the reference as it is */
    } else {
        geo_crs(o, crs, len);
    }
    if (el->logical.kind == PQ_LOGICAL_GEOGRAPHY) {
        const char *edges = edges_name(el->logical.has_algorithm ? el->logical.algorithm : 0);
        json_object_set_new(o, "edges", json_string(edges ? edges : "spherical"));
    }
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!text) {
        m->failed = true;
        return;
    }
    meta_add(m, "ARROW:extension:name", "geoarrow.wkb");
    meta_add(m, "ARROW:extension:metadata", text);
    free(text);
}

/* The metadata pyarrow gives the field made from `node` with type `at`. */
static void field_meta(const export_ctx *x, const pq_schema_node *node, const pq_arrow_type *at, meta_buf *m)
{
    const pq_schema *schema = x->schema;
    const pq_schema_element *el = node ? node->element : NULL;
    if (el && (el->set & PQ_SE_HAS_FIELD_ID)) {
        char id[16];
        snprintf(id, sizeof id, "%" PRId32, el->field_id);
        meta_add(m, "PARQUET:field_id", id);
    }
    if (at->id == PQ_ARROW_EXTENSION_UUID || at->id == PQ_ARROW_EXTENSION_JSON) {
        meta_add(m, "ARROW:extension:name",
                 at->id == PQ_ARROW_EXTENSION_UUID ? "arrow.uuid" : "arrow.json");
        meta_add(m, "ARROW:extension:metadata", "");
    }
    if (unshredded_variant(schema, node)) {
        meta_add(m, "ARROW:extension:name", "arrow.parquet.variant");
        meta_add(m, "ARROW:extension:metadata", "");
    }
    if (el && node->leaf_index >= 0 && el->type == PQ_BYTE_ARRAY &&
        (el->logical.kind == PQ_LOGICAL_GEOMETRY || el->logical.kind == PQ_LOGICAL_GEOGRAPHY) &&
        at->id != PQ_ARROW_LIST)
        geo_meta(x, el, m);
}

/* ---------------------------------------------------------------------------
 * ArrowSchema nodes
 * ------------------------------------------------------------------------- */

static void release_schema(struct ArrowSchema *s)
{
    if (!s || !s->release) return;
    for (int64_t i = 0; i < s->n_children; i++) {
        struct ArrowSchema *c = s->children[i];
        if (c->release) c->release(c);
    }
    if (s->dictionary && s->dictionary->release) s->dictionary->release(s->dictionary);
    free(s->private_data);
    s->release = NULL;
    s->private_data = NULL;
}

/* A dictionary node lives in its field's block, which the field frees. */
static void release_in_block(struct ArrowSchema *s)
{
    if (s) s->release = NULL;
}

/* Bytes of C Data Interface metadata at m (int32 count, then per pair an
 * int32 length and bytes, twice); 0 for none or a malformed one. */
static size_t meta_length(const char *m)
{
    if (!m) return 0;
    int32_t count;
    memcpy(&count, m, 4);
    size_t at = 4;
    for (int32_t i = 0; i < count; i++)
        for (int k = 0; k < 2; k++) {
            int32_t len;
            memcpy(&len, m + at, 4);
            if (len < 0 || len > (1 << 20)) return 0;
            at += 4 + (size_t)len;
        }
    return at;
}

pq_status pq_arrow_schema_retype(struct ArrowSchema *f, const char *format, const char *dict_format, pq_error *err)
{
    if (!f || !f->release || f->n_children != 0 || !format)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "arrow schema: only a leaf field can be retyped");
    size_t ml = meta_length(f->metadata), fl = strlen(format) + 1, nl = strlen(f->name ? f->name : "") + 1;
    size_t dl = dict_format ? strlen(dict_format) + 1 : 0, ds = dict_format ? sizeof(struct ArrowSchema) : 0;
    char *block = calloc(1, ds + ml + fl + nl + dl + 1);
    if (!block) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting the arrow schema");
    struct ArrowSchema g = {0};
    char *str = block + ds;
    if (ml) {
        memcpy(str, f->metadata, ml);
        g.metadata = str;
        str += ml;
    }
    memcpy(str, format, fl);
    g.format = str;
    str += fl;
    memcpy(str, f->name ? f->name : "", nl);
    g.name = str;
    str += nl;
    if (dict_format) {
        struct ArrowSchema *d = (struct ArrowSchema *)block;
        memcpy(str, dict_format, dl);
        *d = (struct ArrowSchema){.format = str, .name = "", .flags = ARROW_FLAG_NULLABLE,
                                  .release = release_in_block};
        g.dictionary = d;
    }
    g.flags = f->flags;
    g.private_data = block;
    g.release = release_schema;
    f->release(f);
    *f = g;
    return PQ_OK;
}

/* Whether C Data Interface metadata m (ml bytes, meta_length) has key k. */
static bool meta_has(const char *m, size_t ml, const uint8_t *k, size_t kl)
{
    if (!ml) return false;
    int32_t count;
    memcpy(&count, m, 4);
    size_t at = 4;
    for (int32_t i = 0; i < count; i++) {
        int32_t len;
        memcpy(&len, m + at, 4);
        bool same = (size_t)len == kl && (kl == 0 || memcmp(m + at + 4, k, kl) == 0);
        at += 4 + (size_t)len;
        memcpy(&len, m + at, 4);
        at += 4 + (size_t)len;
        if (same) return true;
    }
    return false;
}

pq_status pq_arrow_schema_add_metadata(struct ArrowSchema *f, const pq_key_value *pairs, size_t n, const char *skip,
                                       pq_error *err)
{
    if (!f || !f->release || (n && !pairs))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "arrow schema: metadata for a released node");
    size_t ml = meta_length(f->metadata), add = 0, count = 0;
    int32_t had = 0;
    if (ml) memcpy(&had, f->metadata, 4);
    bool *take = calloc(n ? n : 1, sizeof *take);
    if (!take) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting the arrow schema");
    for (size_t i = 0; i < n; i++) {
        const pq_key_value *kv = &pairs[i];
        size_t vl = kv->has_value ? kv->value.len : 0;
        if ((skip && kv->key.len == strlen(skip) && memcmp(kv->key.ptr, skip, kv->key.len) == 0) ||
            meta_has(f->metadata, ml, kv->key.ptr, kv->key.len))
            continue;
        if (kv->key.len > (1u << 20) || vl > (1u << 20)) continue; /* as meta_length reads metadata */
        take[i] = true;
        add += 8 + kv->key.len + vl;
        count++;
    }
    if (!count) {
        free(take);
        return PQ_OK;
    }
    /* The dictionary node of a retyped field lives in its block: copied. */
    const struct ArrowSchema *dict = f->dictionary;
    bool dict_in_block = dict && dict->release == release_in_block;
    size_t dfl = dict_in_block ? strlen(dict->format) + 1 : 0, dnl = dict_in_block ? strlen(dict->name ? dict->name : "") + 1 : 0;
    size_t kids = (size_t)f->n_children, fl = strlen(f->format) + 1, nl = strlen(f->name ? f->name : "") + 1;
    size_t meta = (ml ? ml : 4) + add, ds = dict ? sizeof(struct ArrowSchema) : 0;
    char *block = calloc(1, ds + kids * (sizeof(struct ArrowSchema) + sizeof(struct ArrowSchema *)) + meta + fl + nl +
                                dfl + dnl);
    if (!block) {
        free(take);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting the arrow schema");
    }
    struct ArrowSchema *moved = (struct ArrowSchema *)(block + ds), **ptrs = (struct ArrowSchema **)(moved + kids);
    char *m = (char *)(ptrs + kids), *str = m + meta;
    if (ml) memcpy(m, f->metadata, ml);
    put_i32(m, had + (int32_t)count);
    size_t at = ml ? ml : 4;
    for (size_t i = 0; i < n; i++) {
        if (!take[i]) continue;
        const pq_key_value *kv = &pairs[i];
        size_t vl = kv->has_value ? kv->value.len : 0;
        put_i32(m + at, (int32_t)kv->key.len);
        if (kv->key.len) memcpy(m + at + 4, kv->key.ptr, kv->key.len);
        at += 4 + kv->key.len;
        put_i32(m + at, (int32_t)vl);
        if (vl) memcpy(m + at + 4, kv->value.ptr, vl);
        at += 4 + vl;
    }
    free(take);
    struct ArrowSchema g = *f;
    g.metadata = m;
    memcpy(str, f->format, fl);
    g.format = str;
    memcpy(str + fl, f->name ? f->name : "", nl);
    g.name = str + fl;
    if (dict) { /* the struct into the new block: its strings too when they are in the old one */
        struct ArrowSchema *d = (struct ArrowSchema *)block;
        *d = *dict;
        if (dict_in_block) {
            memcpy(str + fl + nl, dict->format, dfl);
            d->format = str + fl + nl;
            memcpy(str + fl + nl + dfl, dict->name ? dict->name : "", dnl);
            d->name = str + fl + nl + dfl;
        } else {
            f->dictionary->release = NULL; /* moved: a node of its own, released by the new one */
        }
        g.dictionary = d;
    }
    for (size_t i = 0; i < kids; i++) { /* moved: the old node no longer releases them */
        moved[i] = *f->children[i];
        f->children[i]->release = NULL;
        ptrs[i] = &moved[i];
    }
    g.children = kids ? ptrs : NULL;
    g.private_data = block;
    g.release = release_schema;
    f->release(f);
    *f = g;
    return PQ_OK;
}

/* Fill `s` with one block holding n_children zeroed child structs and the
 * strings. On failure `s` is left with release == NULL. */
static pq_status node_init(export_ctx *x, struct ArrowSchema *s, const char *format,
                           const char *name, const meta_buf *meta, int64_t flags,
                           int64_t n_children)
{
    memset(s, 0, sizeof *s);
    size_t n = (size_t)n_children;
    size_t fl = strlen(format) + 1, nl = strlen(name) + 1;
    size_t ml = meta ? meta->len : 0;
    if (n > (SIZE_MAX / 2 - fl - nl - ml) / (sizeof(struct ArrowSchema) + sizeof(void *)))
        return pq_error_set(x->err, PQ_ERR_NOMEM, "arrow schema: too many children");
    size_t size = n * sizeof(struct ArrowSchema) + n * sizeof(struct ArrowSchema *) + fl + nl + ml;
    char *block = calloc(1, size ? size : 1);
    if (!block) return pq_error_set(x->err, PQ_ERR_NOMEM, "out of memory exporting the arrow schema");

    struct ArrowSchema *kids = (struct ArrowSchema *)block;
    struct ArrowSchema **ptrs = (struct ArrowSchema **)(block + n * sizeof *kids);
    char *str = (char *)(ptrs + n);
    for (size_t i = 0; i < n; i++) ptrs[i] = &kids[i];

    if (ml) {
        memcpy(str, meta->bytes, ml);
        s->metadata = str;
        str += ml;
    }
    memcpy(str, format, fl);
    s->format = str;
    memcpy(str + fl, name, nl);
    s->name = str + fl;
    s->flags = flags;
    s->n_children = n_children;
    s->children = n ? ptrs : NULL;
    s->private_data = block;
    s->release = release_schema;
    return PQ_OK;
}

static const pq_schema_node *node_at(export_ctx *x, int32_t i)
{
    return &x->schema->nodes[i];
}

static bool is_repeated(const pq_schema_node *n)
{
    return (n->element->set & PQ_SE_HAS_REPETITION) && n->element->repetition == PQ_REPEATED;
}

static bool is_optional(const pq_schema_node *n)
{
    return (n->element->set & PQ_SE_HAS_REPETITION) && n->element->repetition == PQ_OPTIONAL;
}

static pq_status export_field(export_ctx *x, struct ArrowSchema *s, int32_t node);

/* Export `node` as a field named `name` with type `at` (`at` ignores the
 * node's own repetition). `meta_node` gives the field its field_id. */
static pq_status export_typed(export_ctx *x, struct ArrowSchema *s, int32_t node,
                              const pq_arrow_type *at, const char *name, int64_t flags,
                              const pq_schema_node *meta_node)
{
    const pq_schema_node *nd = node_at(x, node);
    char format[FORMAT_CAP];
    meta_buf meta = {0};
    pq_status st;

    if (pq_arrow_format(at, format, sizeof format) != PQ_OK)
        return pq_error_set(x->err, PQ_ERR_UNSUPPORTED,
                            "arrow schema: column '%.64s' has no Arrow type", nd->name);
    bool nested = at->id == PQ_ARROW_STRUCT || at->id == PQ_ARROW_LIST || at->id == PQ_ARROW_MAP;
    if (nested && nd->leaf_index >= 0)
        return pq_error_set(x->err, PQ_ERR_SCHEMA, "arrow schema: leaf '%.64s' typed as nested",
                            nd->name);
    field_meta(x, meta_node, at, &meta);
    if (meta.failed) {
        meta_free(&meta);
        return pq_error_set(x->err, PQ_ERR_NOMEM, "out of memory exporting the arrow schema");
    }

    switch (at->id) {
    case PQ_ARROW_STRUCT: {
        int32_t kids = 0, slot = 0;
        for (int32_t i = 0; i < nd->num_children; i++) kids += wanted(x, nd->children[i]);
        st = node_init(x, s, format, name, &meta, flags, kids);
        for (int32_t i = 0; st == PQ_OK && i < nd->num_children; i++)
            if (wanted(x, nd->children[i])) st = export_field(x, s->children[slot++], nd->children[i]);
        break;
    }

    case PQ_ARROW_LIST: {
        if (nd->num_children != 1) {
            st = pq_error_set(x->err, PQ_ERR_SCHEMA, "arrow schema: list '%.64s' needs one child", nd->name);
            break;
        }
        if ((st = node_init(x, s, format, name, &meta, flags, 1)) != PQ_OK) break;
        const pq_schema_node *c = node_at(x, nd->children[0]);
        bool structural = c->arrow.id == PQ_ARROW_LIST && c->leaf_index < 0 &&
                          c->num_children == 1 && !is_repeated(node_at(x, c->children[0]));
        if (structural) /* 3-level: the element is C's child, with its own name */
            st = export_field(x, s->children[0], c->children[0]);
        else /* 2-level: C is the element */
            st = export_typed(x, s->children[0], nd->children[0], &c->arrow, c->name, 0, c);
        break;
    }

    case PQ_ARROW_MAP: {
        const pq_schema_node *kv = nd->num_children == 1 ? node_at(x, nd->children[0]) : NULL;
        if (!kv || kv->num_children != 2 || kv->leaf_index >= 0) {
            st = pq_error_set(x->err, PQ_ERR_SCHEMA, "arrow schema: map '%.64s' needs one key_value group of two",
                              nd->name);
            break;
        }
        /* A map read in part (its keys or its values alone) is no Arrow
         * map: a list of entries holding what was read (the same layout). */
        bool key = wanted(x, kv->children[0]), value = wanted(x, kv->children[1]);
        if ((st = node_init(x, s, key && value ? format : "+l", name, &meta, flags, 1)) != PQ_OK) break;
        struct ArrowSchema *entries = s->children[0];
        st = node_init(x, entries, "+s", nd->name, NULL, 0, (int64_t)key + value);
        int64_t slot = 0;
        if (st == PQ_OK && key) {
            st = export_field(x, entries->children[slot], kv->children[0]);
            if (st == PQ_OK) entries->children[slot++]->flags &= ~(int64_t)ARROW_FLAG_NULLABLE;
        }
        if (st == PQ_OK && value) st = export_field(x, entries->children[slot], kv->children[1]);
        break;
    }

    default:
        if (nd->leaf_index < 0) /* an empty group typed as a value: cannot happen */
            st = pq_error_set(x->err, PQ_ERR_SCHEMA, "arrow schema: group '%.64s' typed as a leaf", nd->name);
        else
            st = node_init(x, s, format, name, &meta, flags, 0);
        break;
    }
    meta_free(&meta);
    if (st != PQ_OK) release_schema(s);
    return st;
}

/* Export an ordinary node as the field of its name. */
static pq_status export_field(export_ctx *x, struct ArrowSchema *s, int32_t node)
{
    const pq_schema_node *nd = node_at(x, node);
    if (!is_repeated(nd))
        return export_typed(x, s, node, &nd->arrow, nd->name,
                            is_optional(nd) ? ARROW_FLAG_NULLABLE : 0, nd);

    /* A repeated node outside a list: a required list of required values. */
    pq_arrow_type value = {0};
    if (nd->leaf_index >= 0) value = x->schema->leaves[nd->leaf_index].arrow;
    else value.id = PQ_ARROW_STRUCT;
    meta_buf meta = {0};
    pq_arrow_type list = {0};
    list.id = PQ_ARROW_LIST;
    field_meta(x, nd, &list, &meta);
    pq_status st = meta.failed ? pq_error_set(x->err, PQ_ERR_NOMEM, "out of memory exporting the arrow schema")
                               : node_init(x, s, "+l", nd->name, &meta, 0, 1);
    meta_free(&meta);
    if (st != PQ_OK) return st;
    st = export_typed(x, s->children[0], node, &value, nd->name, 0, nd);
    if (st != PQ_OK) release_schema(s);
    return st;
}

/* ---------------------------------------------------------------------------
 * The API
 * ------------------------------------------------------------------------- */

/* The fields holding `columns`, whole or (prune) with only the branches
 * that lead to them. */
static pq_status arrow_schema(const pq_metadata *md, const uint32_t *columns, size_t columns_len, bool prune,
                              struct ArrowSchema *out, pq_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!md || !out || (columns_len && !columns))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_metadata_arrow_schema: NULL argument");
    const pq_schema *schema = pq_metadata_schema(md);
    if (!schema || schema->nodes_len == 0)
        return pq_error_set(err, PQ_ERR_SCHEMA, "arrow schema: the file has no schema");
    const pq_schema_node *root = &schema->nodes[0];
    export_ctx x = {schema, pq_metadata_file(md), err, NULL};

    /* Which top-level fields to keep: the ancestor at depth 1 of each leaf. */
    int32_t n = root->num_children;
    bool *keep = calloc(n ? (size_t)n : 1, sizeof *keep);
    if (!keep) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting the arrow schema");
    bool *want = columns && prune ? calloc(schema->nodes_len, sizeof *want) : NULL;
    if (columns && prune && !want) {
        free(keep);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory exporting the arrow schema");
    }
    x.want = want;
    int64_t kept = columns ? 0 : n;
    for (size_t i = 0; columns && i < columns_len; i++) {
        if (columns[i] >= schema->leaves_len) {
            free(keep);
            free(want);
            return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                                "arrow schema: column %" PRIu32 " out of range (%" PRIu32 " leaves)",
                                columns[i], schema->leaves_len);
        }
        int32_t j = schema->leaves[columns[i]].node;
        for (int32_t a = j; want && a > 0 && !want[a]; a = schema->nodes[a].parent) want[a] = true;
        while (schema->nodes[j].parent > 0) j = schema->nodes[j].parent;
        /* root->children ascend (depth-first order): binary search */
        int32_t lo = 0, hi = n;
        while (lo < hi) {
            int32_t mid = lo + (hi - lo) / 2;
            if (root->children[mid] < j) lo = mid + 1;
            else hi = mid;
        }
        if (lo < n && root->children[lo] == j && !keep[lo]) {
            keep[lo] = true;
            kept++;
        }
    }

    pq_status st = node_init(&x, out, "+s", "", NULL, 0, kept);
    int64_t slot = 0;
    for (int32_t k = 0; st == PQ_OK && k < n; k++)
        if (!columns || keep[k]) st = export_field(&x, out->children[slot++], root->children[k]);
    free(keep);
    free(want);
    if (st != PQ_OK) release_schema(out);
    return st;
}

pq_status pq_metadata_arrow_schema(const pq_metadata *md, const uint32_t *columns, size_t columns_len,
                                   struct ArrowSchema *out, pq_error *err)
{
    return arrow_schema(md, columns, columns_len, false, out, err);
}

pq_status pq_metadata_arrow_schema_read(const pq_metadata *md, const uint32_t *columns, size_t columns_len,
                                        struct ArrowSchema *out, pq_error *err)
{
    return arrow_schema(md, columns, columns_len, true, out, err);
}
