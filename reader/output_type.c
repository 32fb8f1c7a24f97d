/*
 * output_type.c — the Arrow type each leaf comes out of the decode stage
 * as (see output_type.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/arrow_ipc_schema.h"
#include "metadata/arrow_schema.h"
#include "metadata/error.h"
#include "reader/arrow_nested.h"
#include "reader/output_type.h"
#include "reader/variant_rebuild.h"
#include "reader/context.h"

struct pq_output_types {
    size_t n;
    pq_leaf_output *leaves; /* per leaf of the schema */
    pq_arrow_hints hints;   /* the writer's schema when followed (owns the time zones) */
    bool variants;          /* shredded VARIANT fields rebuilt (not variant_storage, on the host) */
    int64_t *large_lists;   /* the list levels the writer's schema makes large_list (their keys,
                             * pq_arrow_leaf_levels) */
    size_t n_large_lists, cap_large_lists;
};

/* A flat string or binary leaf (not JSON): what string_type applies to. */
static bool string_leaf(const pq_schema *schema, const pq_leaf *lf)
{
    return lf->physical_type == PQ_BYTE_ARRAY && (lf->arrow.id == PQ_ARROW_STRING || lf->arrow.id == PQ_ARROW_BINARY) &&
           pq_reader_leaf_is_flat(schema, lf);
}

/* The node of top-level field `name`, or -1. */
static int32_t top_field(const pq_schema *schema, const char *name)
{
    if (schema->nodes_len == 0) return -1;
    const pq_schema_node *root = &schema->nodes[0];
    for (int32_t i = 0; i < root->num_children; i++) {
        int32_t c = root->children[i];
        if (c > 0 && (uint32_t)c < schema->nodes_len && strcmp(schema->nodes[c].name, name) == 0) return c;
    }
    return -1;
}

static void apply_time_hint(const pq_leaf *lf, const pq_arrow_hint *h, pq_leaf_output *o);

/* What hint h says of flat leaf lf: only where it names a type the
 * default mapping does not give and the stored values are that type's
 * values as they are (no conversion). */
static void apply_hint(const pq_schema *schema, const pq_leaf *lf, const pq_arrow_hint *h, pq_leaf_output *o)
{
    if (string_leaf(schema, lf)) {
        if (h->dictionary) {
            static const char index_format[2][4] = {{'C', 'S', 'I', 'L'}, {'c', 's', 'i', 'l'}};
            int w = h->index_bits == 8 ? 0 : h->index_bits == 16 ? 1 : h->index_bits == 64 ? 3 : 2;
            o->strings = PQ_STRINGS_DICTIONARY;
            o->dict_index = index_format[h->index_signed][w];
            o->dict_ordered = h->ordered;
        }
        else if (h->type == PQ_HINT_LARGE_STRING || h->type == PQ_HINT_LARGE_BINARY) o->strings = PQ_STRINGS_LARGE;
        else if (h->type == PQ_HINT_STRING_VIEW || h->type == PQ_HINT_BINARY_VIEW) o->strings = PQ_STRINGS_VIEW;
        return;
    }
    apply_time_hint(lf, h, o);
}

/* What hint h says of leaf lf inside a struct, list or map: large strings
 * (the nested assembly builds 64-bit offsets; views and dictionary arrays
 * stay flat leaves' alone), a time zone, a duration. */
static void apply_nested_hint(const pq_leaf *lf, const pq_arrow_hint *h, pq_leaf_output *o)
{
    if (lf->physical_type == PQ_BYTE_ARRAY && (lf->arrow.id == PQ_ARROW_STRING || lf->arrow.id == PQ_ARROW_BINARY)) {
        if (!h->dictionary && (h->type == PQ_HINT_LARGE_STRING || h->type == PQ_HINT_LARGE_BINARY))
            o->strings = PQ_STRINGS_LARGE;
        return;
    }
    apply_time_hint(lf, h, o);
}

/* A timestamp's zone, an INT64's duration unit, from hint h. */
static void apply_time_hint(const pq_leaf *lf, const pq_arrow_hint *h, pq_leaf_output *o)
{
    /* Arrow's time units (second, milli, micro, nano) against Parquet's. */
    static const uint8_t unit_of[4] = {PQ_UNIT_SECONDS, PQ_UNIT_MILLIS, PQ_UNIT_MICROS, PQ_UNIT_NANOS};
    /* The zone applies whatever the unit: a writer that coarsened the
     * values (nanoseconds stored as microseconds in format 1.0) kept it. */
    if (h->type == PQ_HINT_TIMESTAMP && lf->arrow.id == PQ_ARROW_TIMESTAMP && lf->arrow.utc && h->timezone &&
        h->timezone[0] && strcmp(h->timezone, "UTC") != 0 && strlen(h->timezone) < 64)
        o->timezone = h->timezone;
    if (h->type == PQ_HINT_DURATION && lf->physical_type == PQ_INT64 && lf->arrow.id == PQ_ARROW_INT64 && h->unit < 4) {
        o->duration = true;
        o->unit = unit_of[h->unit];
    }
}

/* Leaves under node f of an exported schema (f itself when a leaf). */
static size_t export_leaves(const struct ArrowSchema *f, int depth)
{
    if (f->n_children == 0) return f->format[0] != '+';
    size_t n = 0;
    for (int64_t i = 0; depth < PQ_ARROW_HINTS_MAX_DEPTH && i < f->n_children; i++)
        n += export_leaves(f->children[i], depth + 1);
    return n;
}

/* The hints of the leaves under node f of a top-level field as
 * pq_metadata_arrow_schema exports it, h the writer's hint of the same
 * node: both trees have Arrow's shape, so a struct's children are matched
 * by name and a list's element or a map's entries (and their key and
 * value) by position; the k-th leaf of the export is the field's k-th
 * Parquet leaf, leaves[k]. A child the writer's schema does not have keeps
 * the default mapping. */
static bool nested_hints(pq_output_types *t, const pq_schema *schema, int32_t field, const struct ArrowSchema *f,
                         const pq_arrow_hint *h, const uint32_t *leaves, size_t nleaves, size_t *k, int depth)
{
    if (f->n_children == 0) {
        if (f->format[0] == '+') return true; /* a group without leaves */
        if (*k < nleaves && h) apply_nested_hint(&schema->leaves[leaves[*k]], h, &t->leaves[leaves[*k]]);
        (*k)++;
        return true;
    }
    if (h && h->type == PQ_HINT_LARGE_LIST && strcmp(f->format, "+l") == 0 && *k < nleaves) {
        /* the list level at this depth of its first leaf's levels */
        pq_asm_level levels[PQ_ASM_MAX_LEVELS];
        int64_t keys[PQ_ASM_MAX_LEVELS];
        size_t nl = 0;
        pq_error e;
        if (pq_arrow_leaf_levels(schema, field, &schema->leaves[leaves[*k]], levels, keys, &nl, &e) == PQ_OK &&
            (size_t)(depth - 1) < nl && levels[depth - 1].kind == PQ_ASM_LIST) {
            if (t->n_large_lists == t->cap_large_lists) {
                size_t cap = t->cap_large_lists ? 2 * t->cap_large_lists : 8;
                int64_t *p = realloc(t->large_lists, cap * sizeof *p);
                if (!p) return false;
                t->large_lists = p;
                t->cap_large_lists = cap;
            }
            t->large_lists[t->n_large_lists++] = keys[depth - 1];
        }
    }
    bool by_name = strcmp(f->format, "+s") == 0;
    for (int64_t i = 0; i < f->n_children; i++) {
        const struct ArrowSchema *c = f->children[i];
        const pq_arrow_hint *ch = NULL;
        for (size_t j = 0; h && by_name && j < h->n_children && !ch; j++)
            if (c->name && strcmp(h->children[j].name, c->name) == 0) ch = &h->children[j];
        if (h && !by_name && h->n_children == 1 && f->n_children == 1) ch = &h->children[0];
        if (ch && depth < PQ_ARROW_HINTS_MAX_DEPTH) {
            if (!nested_hints(t, schema, field, c, ch, leaves, nleaves, k, depth + 1)) return false;
        } else {
            *k += export_leaves(c, depth + 1);
        }
    }
    return true;
}

/* Every leaf under top-level group `node` (not a VARIANT: its storage is
 * rebuilt as it is typed) given what hint h says of it. */
static pq_status field_hints(pq_output_types *t, const pq_metadata *md, int32_t node, const pq_arrow_hint *h,
                             pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(md);
    const pq_schema_node *nd = &schema->nodes[node];
    if (!h->n_children || (nd->element && nd->element->logical.kind == PQ_LOGICAL_VARIANT)) return PQ_OK;
    /* A field's leaves are consecutive (depth first): from its first one on. */
    int32_t first = node;
    for (uint32_t steps = 0; steps < schema->nodes_len && first > 0 && (uint32_t)first < schema->nodes_len &&
                             schema->nodes[first].leaf_index < 0 && schema->nodes[first].num_children > 0;
         steps++)
        first = schema->nodes[first].children[0];
    if (first <= 0 || (uint32_t)first >= schema->nodes_len || schema->nodes[first].leaf_index < 0) return PQ_OK;
    uint32_t *leaves = malloc(schema->leaves_len * sizeof *leaves);
    if (!leaves) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (uint32_t i = (uint32_t)schema->nodes[first].leaf_index;
         i < schema->leaves_len && pq_reader_leaf_field(schema, &schema->leaves[i]) == node; i++)
        leaves[n++] = i;
    struct ArrowSchema s = {0};
    pq_status st = n ? pq_metadata_arrow_schema(md, leaves, 1, &s, err) : PQ_OK;
    if (st == PQ_OK && s.n_children == 1) {
        size_t k = 0;
        if (!nested_hints(t, schema, node, s.children[0], h, leaves, n, &k, 1))
            st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (s.release) s.release(&s);
    free(leaves);
    /* A field the export cannot type keeps the default mapping; the read
     * says why when it gets there. */
    return st == PQ_ERR_NOMEM ? st : PQ_OK;
}

/* The value of key `key` in the file's key-value metadata, or NULL. */
static const pq_key_value *file_key(const pq_file_metadata *fm, const char *key)
{
    size_t kl = strlen(key);
    for (uint32_t i = 0; i < fm->key_value_metadata_len; i++) {
        const pq_key_value *kv = &fm->key_value_metadata[i];
        if (kv->has_value && kv->key.len == kl && memcmp(kv->key.ptr, key, kl) == 0) return kv;
    }
    return NULL;
}

pq_status pq_output_types_make(const pq_reader_options *opts, const pq_metadata *md, pq_output_types **out,
                               pq_error *err)
{
    *out = NULL;
    if (opts->string_type > PQ_STRINGS_DICTIONARY)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "string_type %u is not a pq_string_type", opts->string_type);
    if (opts->decimal_type > PQ_DECIMALS_64)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "decimal_type %u is not a pq_decimal_type",
                            opts->decimal_type);
    uint32_t u96 = opts->int96_unit;
    if (u96 != PQ_UNIT_NONE && u96 != PQ_UNIT_SECONDS && u96 != PQ_UNIT_MILLIS && u96 != PQ_UNIT_MICROS &&
        u96 != PQ_UNIT_NANOS)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "int96_unit %u is not a pq_time_unit", u96);
    const pq_schema *schema = pq_metadata_schema(md);
    pq_output_types *t = calloc(1, sizeof *t);
    if (t) t->leaves = calloc(schema->leaves_len ? schema->leaves_len : 1, sizeof *t->leaves);
    if (!t || !t->leaves) {
        free(t);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    t->n = schema->leaves_len;
    t->variants = !opts->variant_storage && !opts->device_output;
    for (uint32_t i = 0; i < schema->leaves_len; i++) {
        const pq_leaf *lf = &schema->leaves[i];
        pq_leaf_output *o = &t->leaves[i];
        o->strings = string_leaf(schema, lf) ? (uint8_t)opts->string_type : PQ_STRINGS_STRING;
        o->decimal64 = opts->decimal_type == PQ_DECIMALS_64 && lf->arrow.id == PQ_ARROW_DECIMAL128 &&
                       lf->arrow.precision >= 1 && lf->arrow.precision <= 18 && pq_reader_leaf_is_flat(schema, lf);
        if (lf->physical_type == PQ_INT96 && lf->arrow.id == PQ_ARROW_TIMESTAMP && u96 != PQ_UNIT_NONE &&
            u96 != lf->arrow.unit) /* flat or nested */
            o->int96_unit = (uint8_t)u96;
    }
    const pq_key_value *kv = opts->follow_arrow_schema ? file_key(pq_metadata_file(md), "ARROW:schema") : NULL;
    if (kv) {
        pq_status st = pq_arrow_hints_decode((const char *)kv->value.ptr, kv->value.len, &t->hints, err);
        if (st != PQ_OK) {
            char what[PQ_ERROR_MESSAGE_SIZE];
            memcpy(what, err->message, sizeof what);
            pq_output_types_free(t);
            return pq_error_set(err, st, "the file's ARROW:schema, followed by default (follow_arrow_schema; turned off, the "
                                "Parquet schema alone gives the types): %s", what);
        }
        for (size_t f = 0; f < t->hints.n_fields; f++) {
            const pq_arrow_hint *h = &t->hints.fields[f];
            int32_t node = h->name ? top_field(schema, h->name) : -1;
            int32_t leaf = node > 0 ? schema->nodes[node].leaf_index : -1;
            if (node > 0 && leaf < 0) { /* a struct, list or map */
                if ((st = field_hints(t, md, node, h, err)) != PQ_OK) {
                    pq_output_types_free(t);
                    return st;
                }
                continue;
            }
            if (leaf < 0 || (uint32_t)leaf >= schema->leaves_len) continue; /* no such field */
            const pq_leaf *lf = &schema->leaves[leaf];
            if (pq_reader_leaf_is_flat(schema, lf)) apply_hint(schema, lf, h, &t->leaves[leaf]);
            else apply_nested_hint(lf, h, &t->leaves[leaf]); /* a repeated leaf: a list of itself */
        }
    }
    *out = t;
    return PQ_OK;
}

void pq_output_types_free(pq_output_types *t)
{
    if (!t) return;
    pq_arrow_hints_free(&t->hints);
    free(t->large_lists);
    free(t->leaves);
    free(t);
}

const pq_leaf_output *pq_output_types_leaf(const pq_output_types *t, uint32_t leaf)
{
    static const pq_leaf_output plain = {0};
    return t && leaf < t->n ? &t->leaves[leaf] : &plain;
}

pq_leaf pq_output_leaf(const pq_output_types *t, const pq_schema *schema, uint32_t leaf, bool for_filter)
{
    pq_leaf out = schema->leaves[leaf];
    const pq_leaf_output *o = pq_output_types_leaf(t, leaf);
    if (o->decimal64) out.arrow.id = PQ_ARROW_DECIMAL64;
    if (o->int96_unit) out.arrow.unit = o->int96_unit;
    if (for_filter) return out;
    if (o->strings == PQ_STRINGS_LARGE)
        out.arrow.id = out.arrow.id == PQ_ARROW_STRING ? PQ_ARROW_LARGE_STRING : PQ_ARROW_LARGE_BINARY;
    if (o->duration) {
        out.arrow.id = PQ_ARROW_DURATION;
        out.arrow.unit = o->unit;
    }
    return out;
}

bool pq_output_same_for_filter(const pq_output_types *t, const pq_schema *schema, uint32_t leaf)
{
    pq_leaf a = pq_output_leaf(t, schema, leaf, false), b = pq_output_leaf(t, schema, leaf, true);
    return a.arrow.id == b.arrow.id && !pq_output_dictionary(t, leaf);
}

bool pq_output_large_lists(const pq_output_types *t, const int64_t **keys, size_t *n)
{
    *keys = t ? t->large_lists : NULL;
    *n = t ? t->n_large_lists : 0;
    return *n > 0;
}

pq_status pq_output_dictionary_indices(const pq_output_types *t, const pq_schema *schema, uint32_t leaf,
                                       pq_arrow_column *c, pq_error *err)
{
    char f = pq_output_types_leaf(t, leaf)->dict_index;
    if (!f || f == 'i' || f == 'I') return PQ_OK; /* int32 indices, never negative: uint32's bytes too */
    size_t width = f == 'c' || f == 'C' ? 1 : f == 's' || f == 'S' ? 2 : 8;
    uint64_t room = width == 8 ? UINT64_MAX : (f >= 'a' ? 1ull << (8 * width - 1) : 1ull << (8 * width));
    int64_t entries = pq_arrow_column_dictionary_length(c);
    if (entries < 0) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "column '%s' is no dictionary array",
                                         schema->leaves[leaf].path);
    if ((uint64_t)entries > room) { /* an entry a slot (a chunk that fell back): its distinct ones */
        pq_status st = pq_arrow_column_dictionary_unique(c, err);
        if (st != PQ_OK) return st;
        entries = pq_arrow_column_dictionary_length(c);
    }
    if ((uint64_t)entries > room)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED,
                            "column '%s': %lld dictionary entries do not fit the %s index type the writer's "
                            "ARROW:schema names (read it with follow_arrow_schema off for int32 indices)",
                            schema->leaves[leaf].path, (long long)entries,
                            f == 'c' ? "int8" : f == 'C' ? "uint8" : f == 's' ? "int16" : f == 'S' ? "uint16" : "int64");
    return pq_arrow_column_index_width(c, width, err);
}

bool pq_output_views(const pq_output_types *t, uint32_t leaf)
{
    return pq_output_types_leaf(t, leaf)->strings == PQ_STRINGS_VIEW;
}

bool pq_output_dictionary(const pq_output_types *t, uint32_t leaf)
{
    return pq_output_types_leaf(t, leaf)->strings == PQ_STRINGS_DICTIONARY;
}

/* Whether leaf `leaf` exports with a type of its own; its format (and a
 * dictionary's value format) in fmt / dict. */
static bool output_format(const pq_output_types *t, const pq_schema *schema, uint32_t leaf, bool for_filter,
                          char *fmt, size_t cap, const char **dict)
{
    const pq_leaf_output *o = pq_output_types_leaf(t, leaf);
    const pq_leaf *lf = &schema->leaves[leaf];
    *dict = NULL;
    if (o->strings == PQ_STRINGS_VIEW) {
        snprintf(fmt, cap, "%s", lf->arrow.id == PQ_ARROW_STRING ? "vu" : "vz");
        return true;
    }
    if (o->strings == PQ_STRINGS_DICTIONARY && !for_filter) {
        snprintf(fmt, cap, "%c", o->dict_index ? o->dict_index : 'i');
        *dict = lf->arrow.id == PQ_ARROW_STRING ? "u" : "z";
        return true;
    }
    if (o->timezone && !for_filter) {
        snprintf(fmt, cap, "ts%c:%s", "?mun"[lf->arrow.unit & 3], o->timezone);
        return true;
    }
    if (!o->decimal64 && !o->int96_unit && (for_filter || (o->strings != PQ_STRINGS_LARGE && !o->duration)))
        return false;
    pq_leaf ol = pq_output_leaf(t, schema, leaf, for_filter);
    return pq_arrow_format(&ol.arrow, fmt, cap) == PQ_OK;
}

/* The k-th leaf field under f, depth first (*k counts down), or NULL:
 * pq_metadata_arrow_schema exports a field's Parquet leaves as its leaf
 * fields in file order (a group without leaves is a "+s" of no children). */
static struct ArrowSchema *nth_leaf_field(struct ArrowSchema *f, size_t *k)
{
    if (f->n_children == 0 && f->format[0] != '+') return (*k)-- == 0 ? f : NULL;
    for (int64_t i = 0; i < f->n_children; i++) {
        struct ArrowSchema *c = nth_leaf_field(f->children[i], k);
        if (c) return c;
    }
    return NULL;
}

/* Leaf `leaf`'s place among the selected leaves of its field (selected:
 * a flag a leaf of the schema), in file order: its place among the leaf
 * fields of the field's export. A field's leaves are consecutive. */
static size_t selected_place(const pq_schema *schema, const bool *selected, uint32_t leaf)
{
    int32_t field = pq_reader_leaf_field(schema, &schema->leaves[leaf]);
    size_t k = 0;
    for (uint32_t j = leaf; j-- > 0 && pq_reader_leaf_field(schema, &schema->leaves[j]) == field;) k += selected[j];
    return k;
}

/* The node d levels below export node f on the way to its k-th leaf. */
static struct ArrowSchema *node_on_path(struct ArrowSchema *f, size_t k, size_t d)
{
    while (d--) {
        struct ArrowSchema *next = NULL;
        for (int64_t i = 0; i < f->n_children && !next; i++) {
            size_t under = export_leaves(f->children[i], 1);
            if (k < under) next = f->children[i];
            else k -= under;
        }
        if (!next) return NULL;
        f = next;
    }
    return f;
}

/* Nested leaf `leaf` inside top-level field f of an export of the leaves
 * `selected` flags: retyped to fmt (when given), and the lists on its way
 * the writer's schema makes large made "+L" (the same length as "+l": the
 * format lives in the node's own block, which this library allocated). */
static pq_status retype_nested(const pq_output_types *t, const pq_schema *schema, const bool *selected, uint32_t leaf,
                               const char *fmt, struct ArrowSchema *f, pq_error *err)
{
    const pq_leaf *lf = &schema->leaves[leaf];
    size_t k = selected_place(schema, selected, leaf);
    if (t->n_large_lists) {
        pq_asm_level levels[PQ_ASM_MAX_LEVELS];
        int64_t keys[PQ_ASM_MAX_LEVELS];
        size_t nl = 0;
        pq_status st = pq_arrow_leaf_levels(schema, pq_reader_leaf_field(schema, lf), lf, levels, keys, &nl, err);
        if (st != PQ_OK) return st;
        for (size_t d = 0; d < nl; d++) {
            bool large = false;
            for (size_t i = 0; i < t->n_large_lists && !large; i++) large = t->large_lists[i] == keys[d];
            struct ArrowSchema *node = large ? node_on_path(f, k, d) : NULL;
            if (node && strcmp(node->format, "+l") == 0) ((char *)node->format)[1] = 'L';
        }
    }
    if (!fmt) return PQ_OK;
    size_t kk = k;
    struct ArrowSchema *node = nth_leaf_field(f, &kk);
    if (!node) /* cannot happen: the export is made so */
        return pq_error_set(err, PQ_ERR_SCHEMA, "column '%s': no leaf field in the exported schema", lf->path);
    return pq_arrow_schema_retype(node, fmt, NULL, err);
}

pq_status pq_output_schema(const pq_output_types *t, const pq_schema *schema, const uint32_t *columns, size_t n,
                           bool flat, bool for_filter, struct ArrowSchema *s, pq_error *err)
{
    bool *selected = NULL; /* per leaf, for nested leaves' places (made at the first) */
    pq_status st = PQ_OK;
    for (size_t i = 0; st == PQ_OK && i < n; i++) {
        const pq_leaf *lf = &schema->leaves[columns[i]];
        char fmt[96];
        const char *dict;
        if (!pq_reader_leaf_is_flat(schema, lf)) { /* large lists and strings, zones, durations, INT96 units */
            if (for_filter) continue;
            bool typed = output_format(t, schema, columns[i], false, fmt, sizeof fmt, &dict) && !dict;
            if (!typed && !t->n_large_lists) continue;
            if (!selected) {
                if (!(selected = calloc(schema->leaves_len, sizeof *selected))) {
                    st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
                    break;
                }
                for (size_t c = 0; c < n; c++) selected[columns[c]] = true;
            }
            const char *name = schema->nodes[pq_reader_leaf_field(schema, lf)].name;
            for (int64_t k = 0; k < s->n_children; k++) {
                if (strcmp(s->children[k]->name, name) != 0) continue;
                st = retype_nested(t, schema, selected, columns[i], typed ? fmt : NULL, s->children[k], err);
                break;
            }
            continue;
        }
        if (!output_format(t, schema, columns[i], for_filter, fmt, sizeof fmt, &dict))
            continue;
        const char *name = schema->nodes[lf->node].name;
        for (int64_t k = flat ? (int64_t)i : 0; k < s->n_children && (!flat || k == (int64_t)i); k++) {
            struct ArrowSchema *f = s->children[k];
            if (!flat && strcmp(f->name, name) != 0) continue;
            st = pq_arrow_schema_retype(f, fmt, dict, err);
            if (st == PQ_OK && dict && pq_output_types_leaf(t, columns[i])->dict_ordered)
                f->flags |= ARROW_FLAG_DICTIONARY_ORDERED;
            break;
        }
    }
    free(selected);
    return st;
}

bool pq_output_rebuilds_variant(const pq_output_types *t, const pq_schema *schema, const uint32_t *columns, size_t n,
                                const char *field)
{
    if (!t->variants) return false;
    int32_t node = top_field(schema, field);
    if (!pq_variant_node_is_shredded(schema, node)) return false;
    size_t under = 0, selected = 0;
    for (uint32_t leaf = 0; leaf < schema->leaves_len; leaf++)
        under += pq_reader_leaf_field(schema, &schema->leaves[leaf]) == node;
    for (size_t c = 0; c < n; c++)
        selected += pq_reader_leaf_field(schema, &schema->leaves[columns[c]]) == node;
    return under > 0 && selected == under; /* a field read in part keeps its storage */
}

pq_status pq_output_storage_schema(const pq_output_types *t, const pq_metadata *md, const uint32_t *columns, size_t n,
                                   struct ArrowSchema *out, pq_error *err)
{
    const pq_schema *schema = pq_metadata_schema(md);
    bool flat = true;
    for (size_t c = 0; c < n && flat; c++) flat = pq_reader_leaf_is_flat(schema, &schema->leaves[columns[c]]);
    pq_status st = flat ? pq_arrow_batch_schema(md, columns, n, out, err)
                        : pq_metadata_arrow_schema_read(md, columns, n, out, err);
    if (st == PQ_OK) st = pq_output_schema(t, schema, columns, n, flat, false, out, err);
    /* The file's key-value metadata as the schema's, as pyarrow gives it (a
     * pandas index comes back from "pandas"); ARROW:schema was followed. */
    const pq_file_metadata *fm = pq_metadata_file(md);
    if (st == PQ_OK && fm->key_value_metadata_len)
        st = pq_arrow_schema_add_metadata(out, fm->key_value_metadata, fm->key_value_metadata_len, "ARROW:schema", err);
    /* and each top-level field's custom metadata in the writer's schema */
    for (size_t f = 0; st == PQ_OK && f < t->hints.n_fields; f++) {
        const pq_arrow_hint *h = &t->hints.fields[f];
        for (int64_t k = 0; h->n_meta && k < out->n_children; k++)
            if (strcmp(out->children[k]->name, h->name) == 0) {
                st = pq_arrow_schema_add_metadata(out->children[k], h->meta, h->n_meta, NULL, err);
                break;
            }
    }
    if (st != PQ_OK && out->release) out->release(out);
    return st;
}

pq_status pq_output_selection_schema(const pq_output_types *t, const pq_metadata *md, const uint32_t *columns,
                                     size_t n, struct ArrowSchema *out, pq_error *err)
{
    pq_status st = pq_output_storage_schema(t, md, columns, n, out, err);
    if (st != PQ_OK || !t->variants) return st;
    const pq_schema *schema = pq_metadata_schema(md);
    for (int64_t k = 0; st == PQ_OK && k < out->n_children; k++) {
        struct ArrowSchema *f = out->children[k];
        if (!pq_output_rebuilds_variant(t, schema, columns, n, f->name)) continue;
        struct ArrowSchema v;
        if ((st = pq_variant_field_schema(f->name, f->flags, f->metadata, &v, err)) != PQ_OK) break;
        f->release(f);
        *f = v;
    }
    if (st != PQ_OK) out->release(out);
    return st;
}
