/*
 * arrow_ipc_schema.c — the ARROW:schema footer key decoded into hints: base64,
 * then the IPC message framing, then the flatbuffer tables Message, Schema
 * and Field (and the Timestamp / Duration / DictionaryEncoding tables a
 * field points to).
 *
 * Flatbuffer facts this relies on: a table starts with an int32 soffset to
 * its vtable (at table - soffset); a vtable is uint16 size, uint16 table
 * size, then one uint16 offset per field, relative to the table, 0 when the
 * field is absent (a vtable shorter than a field's slot means absent too).
 * Strings, vectors and sub-tables are reached through uint32 offsets,
 * relative to where the offset is stored. Nothing is aligned for us: every
 * read assembles little-endian bytes one at a time.
 *
 * Offsets are unsigned, so every reference points forward and no table can
 * reach itself; but many offsets may point at one table, so a few
 * kilobytes can describe a tree of 2^64 fields. Hence the limits on depth and
 * on the fields decoded in all, which also bound the work: each field costs
 * O(1) plus its children. Names are not scanned (see the header).
 *
 * Memory: one arena holds the decoded message bytes and every hint; names
 * and time zones point into the message bytes, whose strings were checked
 * to end in a NUL inside them.
 */
#include "metadata/arrow_ipc_schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/arena.h"
#include "metadata/error.h"

/* Arrow IPC: the Message header union's Schema member; the Type union's ids. */
enum { HEADER_SCHEMA = 1 };
enum {
    TYPE_NONE = 0,
    TYPE_BINARY = 4,
    TYPE_UTF8 = 5,
    TYPE_TIMESTAMP = 10,
    TYPE_LIST = 12,
    TYPE_DURATION = 18,
    TYPE_LARGE_BINARY = 19,
    TYPE_LARGE_UTF8 = 20,
    TYPE_LARGE_LIST = 21,
    TYPE_BINARY_VIEW = 23,
    TYPE_UTF8_VIEW = 24,
};

/* Field ids within the tables read here. */
enum { MESSAGE_HEADER_TYPE = 1, MESSAGE_HEADER = 2 };
enum { SCHEMA_FIELDS = 1 };
enum {
    FIELD_NAME = 0,
    FIELD_NULLABLE = 1,
    FIELD_TYPE_TYPE = 2,
    FIELD_TYPE = 3,
    FIELD_DICTIONARY = 4,
    FIELD_CHILDREN = 5,
    FIELD_CUSTOM_METADATA = 6,
};
enum { TIMESTAMP_UNIT = 0, TIMESTAMP_TIMEZONE = 1 };
enum { DICTIONARY_INDEX_TYPE = 1, DICTIONARY_IS_ORDERED = 2 }; /* DictionaryEncoding (0: id) */
enum { INT_BIT_WIDTH = 0, INT_IS_SIGNED = 1 };
enum { KEY_VALUE_KEY = 0, KEY_VALUE_VALUE = 1 };
enum { DURATION_UNIT = 0 };

typedef struct decoder {
    const uint8_t *fb; /* the Message flatbuffer */
    size_t n;          /* its length */
    pq_arena *arena;
    size_t fields;     /* fields allocated so far, against PQ_ARROW_HINTS_MAX_FIELDS */
    pq_error *err;
    pq_status status;  /* of the first failure */
    /* The field being decoded, for messages: path[0] its index among the
     * schema's fields, path[k] among its parent's children; `depth` levels. */
    int depth;
    size_t path[PQ_ARROW_HINTS_MAX_DEPTH];
} decoder;

/* A table found and checked: its bytes [pos, pos + size) and its vtable
 * [vt, vt + vt_size) lie inside the flatbuffer. */
typedef struct fb_table {
    size_t pos;
    size_t vt;
    size_t vt_size;
    size_t size;
    const char *what; /* "Field", "Timestamp", ... */
} fb_table;

/* ---------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------- */

/* "fields[1].children[0]: "; deeper than 5 levels, the first two and the
 * last two with a count between: "fields[0].children[3].<60 more>.children[0]...". */
static void describe_path(const decoder *d, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (d->depth == 0) return;
    size_t used = (size_t)snprintf(buf, cap, "fields[%zu]", d->path[0]);
    for (int k = 1; k < d->depth && used < cap; k++) {
        if (d->depth > 5 && k == 2) {
            used += (size_t)snprintf(buf + used, cap - used, ".<%d more>", d->depth - 4);
            k = d->depth - 3; /* then the last two levels */
            continue;
        }
        used += (size_t)snprintf(buf + used, cap - used, ".children[%zu]", d->path[k]);
    }
    if (used < cap && d->depth > 5)
        used += (size_t)snprintf(buf + used, cap - used, " (depth %d)", d->depth);
    if (used < cap) snprintf(buf + used, cap - used, ": ");
}

static bool fail(decoder *d, pq_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(decoder *d, pq_status code, const char *fmt, ...)
{
    char what[PQ_ERROR_MESSAGE_SIZE], where[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    describe_path(d, where, sizeof where);
    d->status = pq_error_set(d->err, code, "ARROW:schema: %s%s", where, what);
    return false;
}

#define CORRUPT(d, ...) fail((d), PQ_ERR_CORRUPT_DATA, __VA_ARGS__)

/* ---------------------------------------------------------------------------
 * Flatbuffer reads, each checked against the buffer
 * ------------------------------------------------------------------------- */

static uint16_t rd_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool table_at(decoder *d, size_t pos, const char *what, fb_table *t)
{
    if (pos > d->n || d->n - pos < 4)
        return CORRUPT(d, "%s table at offset %zu is past the end of the %zu-byte flatbuffer",
                       what, pos, d->n);
    uint32_t u = rd_u32(d->fb + pos);
    int64_t soffset = u < 0x80000000u ? (int64_t)u : (int64_t)u - ((int64_t)1 << 32);
    int64_t vt = (int64_t)pos - soffset;
    if (vt < 0 || vt > (int64_t)d->n - 4)
        return CORRUPT(d, "%s table at offset %zu puts its vtable at %lld, outside the "
                          "%zu-byte flatbuffer",
                       what, pos, (long long)vt, d->n);
    t->pos = pos;
    t->vt = (size_t)vt;
    t->vt_size = rd_u16(d->fb + t->vt);
    t->size = rd_u16(d->fb + t->vt + 2);
    t->what = what;
    if (t->vt_size < 4 || t->vt_size % 2 != 0 || t->vt_size > d->n - t->vt)
        return CORRUPT(d, "%s table at offset %zu: its vtable at %zu declares %zu bytes "
                          "(%zu left in the flatbuffer)",
                       what, pos, t->vt, t->vt_size, d->n - t->vt);
    if (t->size < 4 || t->size > d->n - pos)
        return CORRUPT(d, "%s table at offset %zu declares %zu bytes (%zu left in the flatbuffer)",
                       what, pos, t->size, d->n - pos);
    return true;
}

/* Where field `id` (of `size` bytes) of table t is; *at = 0 when absent. */
static bool field_at(decoder *d, const fb_table *t, unsigned id, size_t size, const char *name,
                     size_t *at)
{
    *at = 0;
    size_t slot = 4 + 2 * (size_t)id;
    if (slot + 2 > t->vt_size) return true; /* a vtable from an older schema: absent */
    size_t fo = rd_u16(d->fb + t->vt + slot);
    if (fo == 0) return true;
    if (fo < 4 || fo > t->size || t->size - fo < size)
        return CORRUPT(d, "%s (%zu bytes at %zu) lies outside its %zu-byte table at offset %zu",
                       name, size, fo, t->size, t->pos);
    *at = t->pos + fo;
    return true;
}

static bool read_u8(decoder *d, const fb_table *t, unsigned id, const char *name, uint8_t def,
                    uint8_t *v)
{
    size_t at;
    if (!field_at(d, t, id, 1, name, &at)) return false;
    *v = at ? d->fb[at] : def;
    return true;
}

static bool read_i16(decoder *d, const fb_table *t, unsigned id, const char *name, int16_t def,
                     int16_t *v)
{
    size_t at;
    if (!field_at(d, t, id, 2, name, &at)) return false;
    if (!at) {
        *v = def;
    } else {
        uint16_t u = rd_u16(d->fb + at);
        *v = u < 0x8000u ? (int16_t)u : (int16_t)((int32_t)u - 0x10000);
    }
    return true;
}

static bool read_i32(decoder *d, const fb_table *t, unsigned id, const char *name, int32_t def,
                     int32_t *v)
{
    size_t at;
    if (!field_at(d, t, id, 4, name, &at)) return false;
    *v = at ? (int32_t)rd_u32(d->fb + at) : def;
    return true;
}

/* The uoffset stored at `at` (4 bytes the caller checked): *to = its
 * target, which has at least one byte in the buffer (callers check what
 * they read there). */
static bool follow(decoder *d, size_t at, const char *name, size_t *to)
{
    uint32_t rel = rd_u32(d->fb + at);
    if (rel >= d->n - at)
        return CORRUPT(d, "%s: offset %u stored at %zu points past the end of the %zu-byte "
                          "flatbuffer",
                       name, rel, at, d->n);
    *to = at + rel;
    return true;
}

/* Offset field `id` of t: *to = its target, 0 when the field is absent. */
static bool read_offset(decoder *d, const fb_table *t, unsigned id, const char *name, size_t *to)
{
    size_t at;
    *to = 0;
    if (!field_at(d, t, id, 4, name, &at)) return false;
    return at == 0 || follow(d, at, name, to);
}

/* The string at `pos`: its bytes and the NUL after them inside the buffer. */
static bool string_at(decoder *d, size_t pos, const char *name, const char **s)
{
    if (d->n - pos < 4)
        return CORRUPT(d, "%s: string at %zu has no room for its length in the %zu-byte flatbuffer",
                       name, pos, d->n);
    uint32_t len = rd_u32(d->fb + pos);
    if (len >= d->n - pos - 4)
        return CORRUPT(d, "%s: string of %u bytes at %zu runs past the end of the %zu-byte "
                          "flatbuffer",
                       name, len, pos, d->n);
    if (d->fb[pos + 4 + len] != 0)
        return CORRUPT(d, "%s: string of %u bytes at %zu does not end in a NUL", name, len, pos);
    *s = (const char *)d->fb + pos + 4;
    return true;
}

/* The vector at `pos` of elements of `elem` bytes: *count of them fit. */
static bool vector_at(decoder *d, size_t pos, size_t elem, const char *name, size_t *count)
{
    if (d->n - pos < 4)
        return CORRUPT(d, "%s: vector at %zu has no room for its length in the %zu-byte flatbuffer",
                       name, pos, d->n);
    uint32_t k = rd_u32(d->fb + pos);
    if (k > (d->n - pos - 4) / elem)
        return CORRUPT(d, "%s: vector at %zu declares %u elements of %zu bytes, more than the "
                          "%zu bytes after it",
                       name, pos, k, elem, d->n - pos - 4);
    *count = k;
    return true;
}

/* ---------------------------------------------------------------------------
 * Schema and fields
 * ------------------------------------------------------------------------- */

static bool fields_at(decoder *d, size_t vec, const char *name, pq_arrow_hint **out,
                      size_t *n_out);

static bool time_unit(decoder *d, const fb_table *t, unsigned id, const char *name, int16_t def,
                      uint8_t *unit)
{
    int16_t u = 0;
    if (!read_i16(d, t, id, name, def, &u)) return false;
    if (u < 0 || u > 3) return CORRUPT(d, "%s %d is not a TimeUnit (0..3)", name, u);
    *unit = (uint8_t)u;
    return true;
}

/* The hint's type from the Type union: its id and its table. */
static bool field_type(decoder *d, uint8_t type_type, const fb_table *t, pq_arrow_hint *h)
{
    size_t tz;
    switch (type_type) {
    case TYPE_UTF8: h->type = PQ_HINT_STRING; break;
    case TYPE_LARGE_UTF8: h->type = PQ_HINT_LARGE_STRING; break;
    case TYPE_UTF8_VIEW: h->type = PQ_HINT_STRING_VIEW; break;
    case TYPE_BINARY: h->type = PQ_HINT_BINARY; break;
    case TYPE_LARGE_BINARY: h->type = PQ_HINT_LARGE_BINARY; break;
    case TYPE_LIST: h->type = PQ_HINT_LIST; break;
    case TYPE_LARGE_LIST: h->type = PQ_HINT_LARGE_LIST; break;
    case TYPE_BINARY_VIEW: h->type = PQ_HINT_BINARY_VIEW; break;
    case TYPE_TIMESTAMP:
        h->type = PQ_HINT_TIMESTAMP;
        if (!time_unit(d, t, TIMESTAMP_UNIT, "Timestamp.unit", PQ_HINT_SECOND, &h->unit))
            return false;
        if (!read_offset(d, t, TIMESTAMP_TIMEZONE, "Timestamp.timezone", &tz)) return false;
        if (tz && !string_at(d, tz, "Timestamp.timezone", &h->timezone)) return false;
        break;
    case TYPE_DURATION:
        /* Schema.fbs gives Duration.unit the default MILLISECOND, so
         * writers leave the field out for duration[ms]. */
        h->type = PQ_HINT_DURATION;
        if (!time_unit(d, t, DURATION_UNIT, "Duration.unit", PQ_HINT_MILLI, &h->unit)) return false;
        break;
    default: h->type = PQ_HINT_OTHER; break;
    }
    return true;
}

static const char *type_table_name(uint8_t type_type)
{
    switch (type_type) {
    case TYPE_TIMESTAMP: return "Timestamp";
    case TYPE_DURATION: return "Duration";
    default: return "Field.type";
    }
}

/* One Field table into *h (zeroed by the caller). */
static bool field_at_pos(decoder *d, size_t pos, pq_arrow_hint *h)
{
    fb_table f, type, dict;
    size_t name, type_pos, dict_pos, children;
    uint8_t nullable, type_type;
    if (!table_at(d, pos, "Field", &f)) return false;

    h->name = "";
    if (!read_offset(d, &f, FIELD_NAME, "Field.name", &name)) return false;
    if (name && !string_at(d, name, "Field.name", &h->name)) return false;
    if (!read_u8(d, &f, FIELD_NULLABLE, "Field.nullable", 0, &nullable)) return false;
    h->nullable = nullable != 0;

    /* Arrow's own readers refuse a field without a type, and so do we. */
    if (!read_u8(d, &f, FIELD_TYPE_TYPE, "Field.type_type", TYPE_NONE, &type_type)) return false;
    if (!read_offset(d, &f, FIELD_TYPE, "Field.type", &type_pos)) return false;
    if (type_type == TYPE_NONE)
        return CORRUPT(d, "field '%.40s' has no type (type_type NONE)", h->name);
    if (!type_pos)
        return CORRUPT(d, "field '%.40s': type %u has no type table", h->name, type_type);
    if (!table_at(d, type_pos, type_table_name(type_type), &type)) return false;
    if (!field_type(d, type_type, &type, h)) return false;

    /* For a dictionary field `type` is the value type; the table's presence
     * is what says the column is dictionary-encoded. */
    if (!read_offset(d, &f, FIELD_DICTIONARY, "Field.dictionary", &dict_pos)) return false;
    if (dict_pos && !table_at(d, dict_pos, "DictionaryEncoding", &dict)) return false;
    h->dictionary = dict_pos != 0;
    if (h->dictionary) { /* the indices' type (Int; int32 when absent) and order */
        size_t index_pos;
        uint8_t ordered, is_signed = 1;
        int32_t bits = 32;
        if (!read_offset(d, &dict, DICTIONARY_INDEX_TYPE, "DictionaryEncoding.indexType", &index_pos) ||
            !read_u8(d, &dict, DICTIONARY_IS_ORDERED, "DictionaryEncoding.isOrdered", 0, &ordered))
            return false;
        if (index_pos) {
            fb_table it;
            if (!table_at(d, index_pos, "Int", &it) || !read_i32(d, &it, INT_BIT_WIDTH, "Int.bitWidth", 0, &bits) ||
                !read_u8(d, &it, INT_IS_SIGNED, "Int.is_signed", 0, &is_signed))
                return false;
            if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
                return CORRUPT(d, "field '%.40s': dictionary index width %d is not 8, 16, 32 or 64", h->name, bits);
        }
        h->index_bits = (uint8_t)bits;
        h->index_signed = is_signed != 0;
        h->ordered = ordered != 0;
    }

    /* custom_metadata: [KeyValue], key and value strings (either may be absent) */
    size_t meta;
    if (!read_offset(d, &f, FIELD_CUSTOM_METADATA, "Field.custom_metadata", &meta)) return false;
    size_t nmeta = 0;
    if (meta && !vector_at(d, meta, 4, "Field.custom_metadata", &nmeta)) return false;
    if (nmeta) {
        h->meta = pq_arena_calloc(d->arena, nmeta, sizeof *h->meta);
        if (!h->meta) return fail(d, PQ_ERR_NOMEM, "out of memory for %zu metadata pairs", nmeta);
        for (size_t i = 0; i < nmeta; i++) {
            size_t kv_pos, key, value;
            fb_table kv;
            const char *k = "", *v = "";
            if (!follow(d, meta + 4 + 4 * i, "Field.custom_metadata", &kv_pos) ||
                !table_at(d, kv_pos, "KeyValue", &kv) ||
                !read_offset(d, &kv, KEY_VALUE_KEY, "KeyValue.key", &key) ||
                !read_offset(d, &kv, KEY_VALUE_VALUE, "KeyValue.value", &value) ||
                (key && !string_at(d, key, "KeyValue.key", &k)) ||
                (value && !string_at(d, value, "KeyValue.value", &v)))
                return false;
            h->meta[i] = (pq_key_value){.key = {(const uint8_t *)k, key ? rd_u32(d->fb + key) : 0},
                                        .value = {(const uint8_t *)v, value ? rd_u32(d->fb + value) : 0},
                                        .has_value = value != 0};
        }
        h->n_meta = nmeta;
    }

    if (!read_offset(d, &f, FIELD_CHILDREN, "Field.children", &children)) return false;
    return children == 0 ||
           fields_at(d, children, "Field.children", &h->children, &h->n_children);
}

/* A [Field] vector: the hints of its fields, one level below d->depth. */
static bool fields_at(decoder *d, size_t vec, const char *name, pq_arrow_hint **out,
                      size_t *n_out)
{
    size_t count = 0;
    if (!vector_at(d, vec, 4, name, &count)) return false;
    if (count == 0) return true;
    if (d->depth >= PQ_ARROW_HINTS_MAX_DEPTH)
        return CORRUPT(d, "fields nested more than %d deep", PQ_ARROW_HINTS_MAX_DEPTH);
    /* Counted before they are decoded, so shared subtrees cannot make the
     * allocations outgrow the limit. */
    if (count > PQ_ARROW_HINTS_MAX_FIELDS - d->fields)
        return fail(d, PQ_ERR_MEMORY_LIMIT,
                    "more than %zu fields in all (%zu so far, %zu more in %s at %zu)",
                    PQ_ARROW_HINTS_MAX_FIELDS, d->fields, count, name, vec);
    d->fields += count;
    pq_arrow_hint *h = pq_arena_calloc(d->arena, count, sizeof *h);
    if (!h) return fail(d, PQ_ERR_NOMEM, "out of memory for %zu field hints", count);
    *out = h;
    *n_out = count;

    d->depth++;
    for (size_t i = 0; i < count; i++) {
        size_t pos;
        d->path[d->depth - 1] = i;
        if (!follow(d, vec + 4 + 4 * i, name, &pos) || !field_at_pos(d, pos, &h[i])) return false;
    }
    d->depth--;
    return true;
}

static const char *header_name(uint8_t header_type)
{
    switch (header_type) {
    case 0: return "NONE";
    case 2: return "DictionaryBatch";
    case 3: return "RecordBatch";
    case 4: return "Tensor";
    case 5: return "SparseTensor";
    default: return "unknown";
    }
}

/* The Message root table, its Schema header and the schema's fields. */
static bool message(decoder *d, pq_arrow_hints *out)
{
    fb_table msg, schema;
    size_t root, header, fields;
    uint8_t header_type;
    if (d->n < 4)
        return CORRUPT(d, "flatbuffer of %zu bytes has no room for its root offset", d->n);
    if (!follow(d, 0, "root", &root) || !table_at(d, root, "Message", &msg)) return false;
    if (!read_u8(d, &msg, MESSAGE_HEADER_TYPE, "Message.header_type", 0, &header_type))
        return false;
    if (header_type != HEADER_SCHEMA)
        return CORRUPT(d, "the message is a %s (header type %u), not a Schema",
                       header_name(header_type), header_type);
    if (!read_offset(d, &msg, MESSAGE_HEADER, "Message.header", &header)) return false;
    if (!header) return CORRUPT(d, "the Schema message has no header table");
    if (!table_at(d, header, "Schema", &schema)) return false;
    if (!read_offset(d, &schema, SCHEMA_FIELDS, "Schema.fields", &fields)) return false;
    return fields == 0 || fields_at(d, fields, "Schema.fields", &out->fields, &out->n_fields);
}

/* ---------------------------------------------------------------------------
 * Base64 and the IPC framing
 * ------------------------------------------------------------------------- */

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Decodes into `dst` (room for len / 4 * 3 + 2 bytes); *dst_len its length. */
static pq_status base64_decode(const char *src, size_t len, uint8_t *dst, size_t *dst_len,
                               pq_error *err)
{
    size_t data = len, pad = 0;
    while (pad < 2 && data > 0 && src[data - 1] == '=') data--, pad++;
    if (pad && (data + pad) % 4 != 0)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "ARROW:schema: base64 has %zu '=' of padding after %zu characters",
                            pad, data);
    if (data % 4 == 1)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "ARROW:schema: base64 of %zu characters ends in a lone character",
                            data);
    size_t o = 0;
    uint32_t acc = 0;
    for (size_t i = 0; i < data; i++) {
        unsigned char c = (unsigned char)src[i];
        int v = b64_value(c);
        if (v < 0 && c == '=')
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "ARROW:schema: base64 padding '=' at position %zu of %zu, "
                                "before the end",
                                i, len);
        if (v < 0)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                                "ARROW:schema: byte 0x%02x at position %zu of %zu is not base64",
                                c, i, len);
        acc = acc << 6 | (uint32_t)v;
        if (i % 4 == 3) {
            dst[o++] = (uint8_t)(acc >> 16);
            dst[o++] = (uint8_t)(acc >> 8);
            dst[o++] = (uint8_t)acc;
            acc = 0;
        }
    }
    /* 2 or 3 characters left: 1 or 2 bytes (their spare low bits ignored). */
    if (data % 4 == 2) {
        dst[o++] = (uint8_t)(acc >> 4);
    } else if (data % 4 == 3) {
        dst[o++] = (uint8_t)(acc >> 10);
        dst[o++] = (uint8_t)(acc >> 2);
    }
    *dst_len = o;
    return PQ_OK;
}

/* The encapsulated message: [0xFFFFFFFF] int32 length, then the flatbuffer
 * (writers before Arrow 0.15 leave out the marker). *fb, *fb_len: where the
 * flatbuffer is in msg; what follows it (padding, a body) is not read. */
static pq_status unframe(const uint8_t *msg, size_t len, size_t *fb, size_t *fb_len,
                         pq_error *err)
{
    size_t at = 0;
    if (len >= 4 && rd_u32(msg) == 0xFFFFFFFFu) at = 4;
    if (len - at < 4)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "ARROW:schema: IPC message of %zu bytes is truncated before its "
                            "metadata length",
                            len);
    uint32_t n = rd_u32(msg + at);
    at += 4;
    if (n >= 0x80000000u)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "ARROW:schema: IPC metadata length %lld is negative",
                            (long long)n - ((long long)1 << 32));
    if (n == 0)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "ARROW:schema: IPC message is an end-of-stream marker, not a Schema");
    if (n > len - at)
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA,
                            "ARROW:schema: IPC metadata length %u exceeds the %zu bytes after it "
                            "(message truncated?)",
                            n, len - at);
    *fb = at;
    *fb_len = n;
    return PQ_OK;
}

pq_status pq_arrow_hints_decode(const char *base64, size_t len, pq_arrow_hints *out,
                                pq_error *err)
{
    if (!out)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_arrow_hints_decode: out is NULL");
    memset(out, 0, sizeof *out);
    if (!base64 && len)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "pq_arrow_hints_decode: base64 is NULL");

    pq_arena *arena = malloc(sizeof *arena);
    if (!arena) return pq_error_set(err, PQ_ERR_NOMEM, "ARROW:schema: out of memory");
    size_t room = len / 4 * 3 + 2;
    pq_arena_init(arena, room + 4096);
    uint8_t *bytes = pq_arena_alloc(arena, room);
    pq_status st = PQ_OK;
    size_t n = 0, fb = 0, fb_len = 0;
    if (!bytes)
        st = pq_error_set(err, PQ_ERR_NOMEM, "ARROW:schema: out of memory for %zu bytes", room);
    if (st == PQ_OK) st = base64_decode(base64, len, bytes, &n, err);
    if (st == PQ_OK) st = unframe(bytes, n, &fb, &fb_len, err);
    if (st == PQ_OK) {
        decoder d = {.fb = bytes + fb, .n = fb_len, .arena = arena, .err = err};
        pq_arrow_hints h = {0};
        if (message(&d, &h)) {
            h.block = arena;
            *out = h;
            return PQ_OK;
        }
        st = d.status;
    }
    pq_arena_free(arena);
    free(arena);
    return st;
}

void pq_arrow_hints_free(pq_arrow_hints *h)
{
    if (!h) return;
    if (h->block) {
        pq_arena_free(h->block);
        free(h->block);
    }
    memset(h, 0, sizeof *h);
}
