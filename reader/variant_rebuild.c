/*
 * variant_rebuild.c — shredded VARIANT columns rebuilt as variants
 * (variant_rebuild.h).
 */
#include "reader/variant_rebuild.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "metadata/variant_access.h"
#include "metadata/variant_path.h"
#include "pq_variant.h"

/* ---------------------------------------------------------------------------
 * Arrow arrays, read
 * ------------------------------------------------------------------------- */

/* An array and its schema; a == NULL: the field is absent. */
typedef struct col {
    const struct ArrowArray *a;
    const struct ArrowSchema *s;
} col;

/* Row i (the array's own offset not yet added) is valid. */
static bool valid_at(col c, int64_t i)
{
    if (!c.a) return false;
    if (c.a->null_count == 0 || c.a->n_buffers < 1 || !c.a->buffers[0]) return true;
    int64_t j = c.a->offset + i;
    return (((const uint8_t *)c.a->buffers[0])[j >> 3] >> (j & 7)) & 1;
}

/* Child `name` of struct c, or an absent column. */
static col child(col c, const char *name)
{
    col none = {NULL, NULL};
    if (!c.a || !c.s || strcmp(c.s->format, "+s") != 0) return none;
    for (int64_t k = 0; k < c.s->n_children && k < c.a->n_children; k++)
        if (c.s->children[k]->name && strcmp(c.s->children[k]->name, name) == 0)
            return (col){c.a->children[k], c.s->children[k]};
    return none;
}

static bool is_string_format(const char *f)
{
    return !strcmp(f, "u") || !strcmp(f, "U") || !strcmp(f, "vu");
}

static bool is_binary_format(const char *f)
{
    return !strcmp(f, "z") || !strcmp(f, "Z") || !strcmp(f, "vz");
}

/* Row i's bytes of a string or binary column (u z U Z vu vz). */
static void bytes_at(col c, int64_t i, const uint8_t **p, size_t *n)
{
    const char *f = c.s->format;
    int64_t j = c.a->offset + i;
    if (f[0] == 'v') {
        const uint8_t *view = (const uint8_t *)c.a->buffers[1] + 16 * j;
        int32_t len, buf, off;
        memcpy(&len, view, 4);
        if (len <= 12) {
            *p = view + 4;
        } else {
            memcpy(&buf, view + 8, 4);
            memcpy(&off, view + 12, 4);
            *p = (const uint8_t *)c.a->buffers[2 + buf] + off;
        }
        *n = len > 0 ? (size_t)len : 0;
    } else if (f[0] == 'U' || f[0] == 'Z') {
        const int64_t *o = (const int64_t *)c.a->buffers[1] + j;
        *p = (const uint8_t *)c.a->buffers[2] + o[0];
        *n = o[1] > o[0] ? (size_t)(o[1] - o[0]) : 0;
    } else {
        const int32_t *o = (const int32_t *)c.a->buffers[1] + j;
        *p = (const uint8_t *)c.a->buffers[2] + o[0];
        *n = o[1] > o[0] ? (size_t)(o[1] - o[0]) : 0;
    }
}

/* ---------------------------------------------------------------------------
 * Variant bytes, written
 * ------------------------------------------------------------------------- */

typedef struct vbuf {
    uint8_t *p;
    size_t len, cap;
} vbuf;

static bool put(vbuf *b, const void *src, size_t n)
{
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n) {
            if (cap > SIZE_MAX / 2) return false;
            cap *= 2;
        }
        uint8_t *q = realloc(b->p, cap);
        if (!q) return false;
        b->p = q;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, src, n);
    b->len += n;
    return true;
}

static bool put_byte(vbuf *b, uint8_t v)
{
    return put(b, &v, 1);
}

static bool put_le(vbuf *b, uint64_t v, size_t n)
{
    uint8_t t[8];
    for (size_t k = 0; k < n; k++) t[k] = (uint8_t)(v >> (8 * k));
    return put(b, t, n);
}

/* Bytes needed for unsigned v (1..4). */
static size_t width_of(uint64_t v)
{
    return v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffff ? 3 : 4;
}

static uint64_t load_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t k = 0; k < n; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

/* The variant's primitive type ids (VariantEncoding.md). */
enum {
    V_NULL = 0, V_TRUE = 1, V_FALSE = 2, V_INT8 = 3, V_INT16 = 4, V_INT32 = 5, V_INT64 = 6, V_DOUBLE = 7,
    V_DECIMAL4 = 8, V_DECIMAL8 = 9, V_DECIMAL16 = 10, V_DATE = 11, V_TIMESTAMP = 12, V_TIMESTAMP_NTZ = 13,
    V_FLOAT = 14, V_BINARY = 15, V_STRING = 16, V_TIME = 17, V_TIMESTAMP_NANOS = 18, V_TIMESTAMP_NTZ_NANOS = 19,
    V_UUID = 20
};

static bool put_primitive(vbuf *b, unsigned type, const void *payload, size_t n)
{
    return put_byte(b, (uint8_t)(type << 2)) && put(b, payload, n);
}

/* ---------------------------------------------------------------------------
 * The rebuild
 * ------------------------------------------------------------------------- */

/* The metadata's dictionary: entry `id`'s name, or the id of `name`. */
typedef struct vmeta {
    size_t off_size, n;
    const uint8_t *offsets, *strings;
    size_t strings_len;
} vmeta;

/* One field of an object being built: its name, id and encoded value. */
typedef struct entry {
    const uint8_t *name;
    size_t name_len;
    size_t id;
    const uint8_t *value; /* into the input, or (owned) into the level's buffer at `off` */
    size_t len, off;
    bool owned;
} entry;

/* What one nesting level reuses from row to row: no allocation a row. */
typedef struct level {
    const char *name;       /* the field descended into (NULL: an array element, `index`) */
    int64_t index;
    entry *es;
    size_t es_cap;
    vbuf buf;
    size_t *offs;
    size_t offs_cap;
} level;

/* Field ids of the shredded names in the metadata last opened. */
#define ID_CACHE 64

typedef struct rebuild {
    pq_error *err;
    int64_t row;            /* the top-level row, for messages */
    const uint8_t *m;       /* the row's metadata */
    size_t mlen;
    int depth;              /* levels[0, depth) name where the rebuild is, for messages */
    level levels[PQ_VARIANT_MAX_DEPTH + 2];
    const uint8_t *cm;      /* the metadata last checked (rows mostly share one) */
    size_t cmlen;
    vmeta mt;
    struct {
        const char *name;   /* a schema field name: compared by address */
        size_t id;
    } ids[ID_CACHE];
    size_t nids;
} rebuild;

static pq_status fail(rebuild *r, pq_status code, const char *what)
{
    char path[192] = "";
    size_t at = 0;
    for (int k = 0; k < r->depth && at < sizeof path - 1; k++) {
        const level *l = &r->levels[k];
        int w = l->name ? snprintf(path + at, sizeof path - at, ".%s", l->name)
                        : snprintf(path + at, sizeof path - at, "[%" PRId64 "]", l->index);
        at = w < 0 ? at : at + (size_t)w < sizeof path ? at + (size_t)w : sizeof path - 1;
    }
    return pq_error_set(r->err, code, "invalid variant at row %" PRId64 " (%s): %s", r->row,
                        path[0] ? path : "the value", what);
}

static pq_status nomem(rebuild *r)
{
    return pq_error_set(r->err, PQ_ERR_NOMEM, "out of memory rebuilding a variant");
}

/* The row's metadata, checked once for the rows that share it. */
static pq_status meta_open(rebuild *r, vmeta *mt)
{
    if (r->cm && r->cmlen == r->mlen && (r->cm == r->m || !memcmp(r->cm, r->m, r->mlen))) {
        *mt = r->mt;
        return PQ_OK;
    }
    pq_error e;
    if (!pq_variant_metadata_size(r->m, r->mlen, &e)) return fail(r, PQ_ERR_CORRUPT_DATA, e.message);
    mt->off_size = ((r->m[0] >> 6) & 3) + 1;
    mt->n = (size_t)load_le(r->m + 1, mt->off_size);
    mt->offsets = r->m + 1 + mt->off_size;
    mt->strings = mt->offsets + (mt->n + 1) * mt->off_size;
    mt->strings_len = (size_t)load_le(mt->offsets + mt->n * mt->off_size, mt->off_size);
    r->cm = r->m;
    r->cmlen = r->mlen;
    r->mt = *mt;
    r->nids = 0;
    return PQ_OK;
}

static void meta_name(const vmeta *mt, size_t id, const uint8_t **s, size_t *n)
{
    size_t a = (size_t)load_le(mt->offsets + id * mt->off_size, mt->off_size);
    size_t b = (size_t)load_le(mt->offsets + (id + 1) * mt->off_size, mt->off_size);
    *s = mt->strings + a;
    *n = b > a ? b - a : 0;
}

static bool meta_find(const vmeta *mt, const char *name, size_t len, size_t *id);

/* meta_find for a shredded field's name (a schema string), remembered
 * for the rows with the same metadata. */
static bool meta_find_cached(rebuild *r, const vmeta *mt, const char *name, size_t len, size_t *id)
{
    for (size_t k = 0; k < r->nids; k++)
        if (r->ids[k].name == name) {
            *id = r->ids[k].id;
            return true;
        }
    if (!meta_find(mt, name, len, id)) return false;
    if (r->nids < ID_CACHE) {
        r->ids[r->nids].name = name;
        r->ids[r->nids++].id = *id;
    }
    return true;
}

static bool meta_find(const vmeta *mt, const char *name, size_t len, size_t *id)
{
    for (size_t k = 0; k < mt->n; k++) {
        const uint8_t *s;
        size_t n;
        meta_name(mt, k, &s, &n);
        if (n == len && memcmp(s, name, len) == 0) {
            *id = k;
            return true;
        }
    }
    return false;
}


static int entry_cmp(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = n ? memcmp(x->name, y->name, n) : 0;
    if (c) return c;
    return (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

/* Object header and body for `n` fields (sorted by name) into b. */
static bool put_object(vbuf *b, const entry *e, size_t n)
{
    size_t max_id = 0, data = 0;
    for (size_t k = 0; k < n; k++) {
        max_id = e[k].id > max_id ? e[k].id : max_id;
        data += e[k].len;
    }
    size_t id_size = width_of(max_id), off_size = width_of(data);
    bool large = n > 255;
    if (!put_byte(b, (uint8_t)(2 | (off_size - 1) << 2 | (id_size - 1) << 4 | (unsigned)large << 6))) return false;
    if (!put_le(b, n, large ? 4 : 1)) return false;
    for (size_t k = 0; k < n; k++)
        if (!put_le(b, e[k].id, id_size)) return false;
    size_t at = 0;
    for (size_t k = 0; k <= n; k++) {
        if (!put_le(b, at, off_size)) return false;
        if (k < n) at += e[k].len;
    }
    for (size_t k = 0; k < n; k++)
        if (!put(b, e[k].value, e[k].len)) return false;
    return true;
}

typedef struct span {
    size_t off, idx;
} span;

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return (x->off > y->off) - (x->off < y->off);
}

/* The fields of the object variant v (checked whole first) appended to
 * *es (grown), their values pointing into v. */
static pq_status object_fields(rebuild *r, const vmeta *mt, const uint8_t *v, size_t vlen, entry **es, size_t *n,
                               size_t *cap)
{
    pq_error e;
    if (pq_variant_validate(r->m, r->mlen, v, vlen, &e) != PQ_OK) return fail(r, e.code, e.message);
    if ((v[0] & 3) != 2) return fail(r, PQ_ERR_CORRUPT_DATA, "a value that is not an object beside shredded fields");
    size_t off_size = ((v[0] >> 2) & 3) + 1, id_size = ((v[0] >> 4) & 3) + 1;
    bool large = (v[0] >> 6) & 1;
    size_t count = (size_t)load_le(v + 1, large ? 4 : 1);
    const uint8_t *ids = v + 1 + (large ? 4 : 1), *offs = ids + count * id_size;
    const uint8_t *data = offs + (count + 1) * off_size;
    size_t data_len = (size_t)load_le(offs + count * off_size, off_size);
    /* A value ends where the next one (by offset) begins. */
    span *sp = malloc((count ? count : 1) * sizeof *sp);
    if (!sp) return nomem(r);
    for (size_t k = 0; k < count; k++) sp[k] = (span){(size_t)load_le(offs + k * off_size, off_size), k};
    qsort(sp, count, sizeof *sp, span_cmp);
    if (*n + count > *cap) {
        size_t c = *cap ? *cap : 8;
        while (c < *n + count) c *= 2;
        entry *more = realloc(*es, c * sizeof *more);
        if (!more) {
            free(sp);
            return nomem(r);
        }
        *es = more;
        *cap = c;
    }
    for (size_t k = 0; k < count; k++) {
        size_t end = k + 1 < count ? sp[k + 1].off : data_len;
        entry *x = &(*es)[*n + sp[k].idx];
        memset(x, 0, sizeof *x);
        x->id = (size_t)load_le(ids + sp[k].idx * id_size, id_size);
        meta_name(mt, x->id, &x->name, &x->name_len);
        x->value = data + sp[k].off;
        x->len = end - sp[k].off;
    }
    *n += count;
    free(sp);
    return PQ_OK;
}

static pq_status shredded(rebuild *r, col value, col typed, int64_t i, vbuf *out, bool *missing, int depth);

/* Row i of primitive typed_value column t as a variant into out. */
static pq_status primitive(rebuild *r, col t, int64_t i, vbuf *out)
{
    const char *f = t.s->format;
    int64_t j = t.a->offset + i;
    const uint8_t *d = t.a->n_buffers > 1 ? (const uint8_t *)t.a->buffers[1] : NULL;
    bool ok;
    if (!strcmp(f, "b")) {
        ok = put_byte(out, (uint8_t)(((d[j >> 3] >> (j & 7)) & 1 ? V_TRUE : V_FALSE) << 2));
    } else if (!strcmp(f, "c")) {
        ok = put_primitive(out, V_INT8, d + j, 1);
    } else if (!strcmp(f, "s")) {
        ok = put_primitive(out, V_INT16, d + 2 * j, 2);
    } else if (!strcmp(f, "i")) {
        ok = put_primitive(out, V_INT32, d + 4 * j, 4);
    } else if (!strcmp(f, "l")) {
        ok = put_primitive(out, V_INT64, d + 8 * j, 8);
    } else if (!strcmp(f, "f")) {
        ok = put_primitive(out, V_FLOAT, d + 4 * j, 4);
    } else if (!strcmp(f, "g")) {
        ok = put_primitive(out, V_DOUBLE, d + 8 * j, 8);
    } else if (!strcmp(f, "tdD")) {
        ok = put_primitive(out, V_DATE, d + 4 * j, 4);
    } else if (!strcmp(f, "ttu") || !strcmp(f, "ttn")) {
        int64_t t64;
        memcpy(&t64, d + 8 * j, 8);
        if (f[2] == 'n') t64 /= 1000; /* a variant's time is in microseconds */
        ok = put_byte(out, V_TIME << 2) && put_le(out, (uint64_t)t64, 8);
    } else if (!strncmp(f, "ts", 2) && f[2] && f[3] == ':') {
        int64_t ts;
        memcpy(&ts, d + 8 * j, 8);
        bool utc = f[4] != '\0';
        unsigned type = utc ? V_TIMESTAMP : V_TIMESTAMP_NTZ;
        if (f[2] == 'n') type = utc ? V_TIMESTAMP_NANOS : V_TIMESTAMP_NTZ_NANOS;
        else if (f[2] == 'm') ts *= 1000; /* to microseconds */
        else if (f[2] == 's') ts *= 1000000;
        ok = put_byte(out, (uint8_t)(type << 2)) && put_le(out, (uint64_t)ts, 8);
    } else if (!strncmp(f, "d:", 2)) {
        int precision = 0, scale = 0, bits = 128;
        if (sscanf(f + 2, "%d,%d,%d", &precision, &scale, &bits) < 2 || scale < 0 || scale > 38)
            return fail(r, PQ_ERR_UNSUPPORTED, "a decimal whose Arrow type is not read here");
        size_t width = (size_t)bits / 8;
        if (width != 4 && width != 8 && width != 16)
            return fail(r, PQ_ERR_UNSUPPORTED, "a decimal wider than a variant's 16 bytes");
        /* The variant decimal of the precision (decimal4 up to 9 digits, 8 up to 18). */
        size_t as = precision <= 9 ? 4 : precision <= 18 ? 8 : 16;
        unsigned type = as == 4 ? V_DECIMAL4 : as == 8 ? V_DECIMAL8 : V_DECIMAL16;
        ok = put_byte(out, (uint8_t)(type << 2)) && put_byte(out, (uint8_t)scale) &&
             put(out, d + width * j, as < width ? as : width);
        if (ok && as > width) { /* sign-extended */
            uint8_t fill = (d[width * j + width - 1] & 0x80) ? 0xff : 0;
            for (size_t k = width; ok && k < as; k++) ok = put_byte(out, fill);
        }
    } else if (is_string_format(f)) {
        const uint8_t *p;
        size_t n;
        bytes_at(t, i, &p, &n);
        if (n < 64) ok = put_byte(out, (uint8_t)(n << 2 | 1)) && put(out, p, n);
        else ok = n <= UINT32_MAX && put_byte(out, V_STRING << 2) && put_le(out, n, 4) && put(out, p, n);
    } else if (is_binary_format(f)) {
        const uint8_t *p;
        size_t n;
        bytes_at(t, i, &p, &n);
        ok = n <= UINT32_MAX && put_byte(out, V_BINARY << 2) && put_le(out, n, 4) && put(out, p, n);
    } else if (!strcmp(f, "w:16")) {
        ok = put_primitive(out, V_UUID, d + 16 * j, 16);
    } else {
        char what[96];
        snprintf(what, sizeof what, "shredded as Arrow type '%.32s', which is no variant type", f);
        return fail(r, PQ_ERR_UNSUPPORTED, what);
    }
    return ok ? PQ_OK : nomem(r);
}

/* Room for n entries in level l's list. */
static bool entries_room(level *l, size_t n)
{
    if (n <= l->es_cap) return true;
    size_t c = l->es_cap ? l->es_cap : 8;
    while (c < n) c *= 2;
    entry *more = realloc(l->es, c * sizeof *more);
    if (!more) return false;
    l->es = more;
    l->es_cap = c;
    return true;
}

static pq_status object(rebuild *r, col value, col typed, int64_t i, vbuf *out, int depth)
{
    vmeta mt;
    pq_status st = meta_open(r, &mt);
    if (st != PQ_OK) return st;
    level *l = &r->levels[depth];
    l->buf.len = 0;
    size_t n = 0;
    if (valid_at(value, i)) {
        const uint8_t *v;
        size_t vlen;
        bytes_at(value, i, &v, &vlen);
        st = object_fields(r, &mt, v, vlen, &l->es, &n, &l->es_cap);
    }
    size_t base = n;
    int64_t fields = typed.s->n_children;
    for (int64_t k = 0; st == PQ_OK && k < fields; k++) {
        const char *name = typed.s->children[k]->name;
        col group = {typed.a->children[k], typed.s->children[k]};
        if (!entries_room(l, n + 1)) {
            st = nomem(r);
            break;
        }
        bool gone = false;
        size_t off = l->buf.len;
        int64_t gi = typed.a->offset + i; /* a struct's offset applies to its children */
        if (valid_at(group, gi)) {
            col gv = child(group, "value"), gt = child(group, "typed_value");
            l->name = name;
            r->depth = depth + 1;
            st = shredded(r, gv, gt, group.a->offset + gi, &l->buf, &gone, depth + 1);
            r->depth = depth;
        } else {
            gone = true;
        }
        if (st != PQ_OK || gone) continue;
        entry *x = &l->es[n];
        memset(x, 0, sizeof *x);
        x->name = (const uint8_t *)name;
        x->name_len = strlen(name);
        if (!meta_find_cached(r, &mt, name, x->name_len, &x->id)) {
            st = fail(r, PQ_ERR_CORRUPT_DATA, "a shredded field name that is not in the variant's metadata");
            break;
        }
        x->owned = true;
        x->off = off;
        x->len = l->buf.len - off;
        /* a shredded field replaces a field of the same name left in value */
        for (size_t b = 0; b < base; b++)
            if (l->es[b].name_len == x->name_len && !memcmp(l->es[b].name, x->name, x->name_len)) l->es[b].name = NULL;
        n++;
    }
    if (st != PQ_OK) return st;
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        entry *x = &l->es[k];
        if (x->owned) x->value = l->buf.p + x->off; /* the buffer has stopped moving */
        if (x->name) l->es[kept++] = *x;
    }
    qsort(l->es, kept, sizeof *l->es, entry_cmp);
    return put_object(out, l->es, kept) ? PQ_OK : nomem(r);
}

/* Row i's elements [*start, *end) in the child of list column c (+l, +L). */
static void list_span(col c, int64_t i, int64_t *start, int64_t *end)
{
    int64_t j = c.a->offset + i;
    if (c.s->format[1] == 'L') {
        const int64_t *o = (const int64_t *)c.a->buffers[1] + j;
        *start = o[0];
        *end = o[1];
    } else {
        const int32_t *o = (const int32_t *)c.a->buffers[1] + j;
        *start = o[0];
        *end = o[1];
    }
}

static pq_status array(rebuild *r, col typed, int64_t i, vbuf *out, int depth)
{
    int64_t start, end;
    list_span(typed, i, &start, &end);
    col elems = {typed.a->children[0], typed.s->children[0]};
    col ev = child(elems, "value"), et = child(elems, "typed_value");
    size_t n = end > start ? (size_t)(end - start) : 0;
    level *l = &r->levels[depth];
    vbuf *data = &l->buf;
    data->len = 0;
    if (n + 1 > l->offs_cap) {
        size_t *more = realloc(l->offs, (n + 1) * sizeof *more);
        if (!more) return nomem(r);
        l->offs = more;
        l->offs_cap = n + 1;
    }
    pq_status st = PQ_OK;
    for (size_t k = 0; st == PQ_OK && k < n; k++) {
        l->offs[k] = data->len;
        bool gone = false;
        int64_t e = start + (int64_t)k; /* the element's row in the child, before its own offset */
        if (valid_at(elems, e)) {
            l->name = NULL;
            l->index = (int64_t)k;
            r->depth = depth + 1;
            st = shredded(r, ev, et, elems.a->offset + e, data, &gone, depth + 1);
            r->depth = depth;
        } else {
            gone = true;
        }
        if (st == PQ_OK && gone && !put_byte(data, V_NULL)) st = nomem(r); /* a missing element: null */
    }
    if (st != PQ_OK) return st;
    l->offs[n] = data->len;
    size_t off_size = width_of(data->len);
    bool is_large = n > 255;
    bool ok = put_byte(out, (uint8_t)(3 | (off_size - 1) << 2 | (unsigned)is_large << 4)) &&
              put_le(out, n, is_large ? 4 : 1);
    for (size_t k = 0; ok && k <= n; k++) ok = put_le(out, l->offs[k], off_size);
    return ok && put(out, data->p, data->len) ? PQ_OK : nomem(r);
}

/* The variant the sibling columns value and typed_value hold at index
 * `at` (their parent's offset added; each column adds its own) into out;
 * *missing when both are null. */
static pq_status shredded(rebuild *r, col value, col typed, int64_t at, vbuf *out, bool *missing, int depth)
{
    if (depth > PQ_VARIANT_MAX_DEPTH) return fail(r, PQ_ERR_CORRUPT_DATA, "nested too deep");
    int64_t vi = at, ti = at;
    bool has_value = value.a && valid_at(value, vi);
    bool has_typed = typed.a && valid_at(typed, ti);
    *missing = false;
    if (!has_typed) {
        if (!has_value) {
            *missing = true;
            return PQ_OK;
        }
        const uint8_t *v;
        size_t n;
        bytes_at(value, vi, &v, &n);
        return put(out, v, n) ? PQ_OK : nomem(r);
    }
    const char *f = typed.s->format;
    if (!strcmp(f, "+s")) return object(r, value, typed, ti, out, depth);
    if (has_value) return fail(r, PQ_ERR_CORRUPT_DATA, "both value and typed_value set outside an object");
    if (!strcmp(f, "+l") || !strcmp(f, "+L")) return array(r, typed, ti, out, depth);
    return primitive(r, typed, ti, out);
}

/* Child of struct c named by `len` bytes at `name`, or an absent column. */
static col child_n(col c, const char *name, size_t len)
{
    col none = {NULL, NULL};
    if (!c.a || !c.s || strcmp(c.s->format, "+s") != 0) return none;
    for (int64_t k = 0; k < c.s->n_children && k < c.a->n_children; k++) {
        const char *n = c.s->children[k]->name;
        if (n && strlen(n) == len && memcmp(n, name, len) == 0) return (col){c.a->children[k], c.s->children[k]};
    }
    return none;
}

/* The value at steps[0, ns) of the variant (value, typed) at `at` holds
 * (as `shredded`): followed through the shredded columns while they shred
 * the path, then through the bytes of the residual value that holds the
 * rest. *missing where the path leads nowhere (a missing field, an index
 * past the end, a step into a primitive). */
static pq_status at_path(rebuild *r, const pq_variant_step *steps, size_t ns, col value, col typed, int64_t at,
                         vbuf *out, bool *missing)
{
    *missing = false;
    size_t k = 0;
    for (; k < ns; k++) {
        const pq_variant_step *s = &steps[k];
        bool has_typed = typed.a && valid_at(typed, at);
        const char *f = has_typed ? typed.s->format : "";
        if (has_typed && s->index < 0 && !strcmp(f, "+s")) {
            col group = child_n(typed, s->name, s->len);
            if (group.a) { /* shredded here: the field is in its group or nowhere */
                int64_t gi = typed.a->offset + at;
                if (!valid_at(group, gi)) break;
                value = child(group, "value");
                typed = child(group, "typed_value");
                at = group.a->offset + gi;
                continue;
            }
        } else if (has_typed && s->index >= 0 && (!strcmp(f, "+l") || !strcmp(f, "+L"))) {
            int64_t start, end;
            list_span(typed, at, &start, &end);
            if (s->index >= end - start) break;
            col elems = {typed.a->children[0], typed.s->children[0]};
            int64_t e = start + s->index;
            if (!valid_at(elems, e)) /* a missing element is the variant null */
                return put_byte(out, V_NULL) ? PQ_OK : nomem(r);
            value = child(elems, "value");
            typed = child(elems, "typed_value");
            at = elems.a->offset + e;
            continue;
        }
        /* Not shredded here: the rest of the path is in the residual value. */
        if (!(value.a && valid_at(value, at))) break;
        const uint8_t *v;
        size_t n;
        bytes_at(value, at, &v, &n);
        pq_error e;
        for (; k < ns && v; k++) {
            pq_status st = steps[k].index >= 0
                               ? pq_variant_element(r->m, r->mlen, v, n, (uint64_t)steps[k].index, &v, &n, &e)
                               : pq_variant_field(r->m, r->mlen, v, n, steps[k].name, steps[k].len, &v, &n, &e);
            if (st != PQ_OK) return fail(r, st, e.message);
        }
        if (!v) {
            *missing = true;
            return PQ_OK;
        }
        return put(out, v, n) ? PQ_OK : nomem(r);
    }
    if (k < ns) {
        *missing = true;
        return PQ_OK;
    }
    return shredded(r, value, typed, at, out, missing, 0);
}

/* ---------------------------------------------------------------------------
 * Arrow arrays, written
 * ------------------------------------------------------------------------- */

/* A node's buffers and children, freed by its release. */
typedef struct owned {
    const void *buffers[3];
    void *mem[3];
    struct ArrowArray kids[2];
    struct ArrowArray *kid_ptrs[2];
} owned;

static void owned_release(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    owned *o = a->private_data;
    for (int64_t k = 0; k < a->n_children; k++)
        if (o->kids[k].release) o->kids[k].release(&o->kids[k]);
    for (int k = 0; k < 3; k++) free(o->mem[k]);
    free(o);
    a->release = NULL;
}

/* A node over the malloc'd buffers (taken), or false (they are freed). */
static bool node(struct ArrowArray *a, int64_t length, int64_t nulls, void *validity, void *b1, void *b2,
                 int64_t nbuf, int64_t nkids)
{
    memset(a, 0, sizeof *a);
    owned *o = calloc(1, sizeof *o);
    if (!o) {
        free(validity);
        free(b1);
        free(b2);
        return false;
    }
    o->mem[0] = validity;
    o->mem[1] = b1;
    o->mem[2] = b2;
    for (int k = 0; k < 3; k++) o->buffers[k] = o->mem[k];
    for (int k = 0; k < 2; k++) o->kid_ptrs[k] = &o->kids[k];
    a->length = length;
    a->null_count = nulls;
    a->n_buffers = nbuf;
    a->buffers = o->buffers;
    a->n_children = nkids;
    a->children = nkids ? o->kid_ptrs : NULL;
    a->private_data = o;
    a->release = owned_release;
    return true;
}

/* Whether Arrow format f is a type a variant primitive can be shredded as. */
static bool variant_primitive(const char *f)
{
    static const char *const ok[] = {"b", "c", "s", "i", "l", "f", "g", "tdD", "ttu", "ttn", "w:16"};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++)
        if (!strcmp(f, ok[k])) return true;
    return is_string_format(f) || is_binary_format(f) || !strncmp(f, "d:", 2) ||
           (!strncmp(f, "ts", 2) && f[2] && strchr("smun", f[2]) && f[3] == ':');
}

static pq_status check_typed(const struct ArrowSchema *t, char *where, size_t cap, int depth, pq_error *err);

/* A {value, typed_value} group g at `where`: what its typed_value holds. */
static pq_status check_group(const struct ArrowSchema *g, const char *what, char *where, size_t cap, int depth,
                             pq_error *err)
{
    if (strcmp(g->format, "+s") != 0)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "invalid variant: %s %s is not a {value, typed_value} group",
                            what, where);
    for (int64_t j = 0; j < g->n_children; j++)
        if (g->children[j]->name && !strcmp(g->children[j]->name, "typed_value"))
            return check_typed(g->children[j], where, cap, depth + 1, err);
    return PQ_OK;
}

/* The shredded layout under typed_value (schema t) checked before any row:
 * objects of {value, typed_value} groups, lists of them, and variant
 * primitive types; `where` names the place. */
static pq_status check_typed(const struct ArrowSchema *t, char *where, size_t cap, int depth, pq_error *err)
{
    if (depth > PQ_VARIANT_MAX_DEPTH) return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "invalid variant: nested too deep");
    size_t at = strlen(where);
    pq_status st = PQ_OK;
    if (!strcmp(t->format, "+s")) {
        for (int64_t k = 0; st == PQ_OK && k < t->n_children; k++) {
            snprintf(where + at, cap - at, ".%s", t->children[k]->name ? t->children[k]->name : "");
            st = check_group(t->children[k], "shredded field", where, cap, depth, err);
        }
    } else if (!strcmp(t->format, "+l") || !strcmp(t->format, "+L")) {
        snprintf(where + at, cap - at, "[]");
        st = t->n_children == 1 ? check_group(t->children[0], "the element of", where, cap, depth, err)
                                : pq_error_set(err, PQ_ERR_UNSUPPORTED, "invalid variant: a list of no element");
    } else if (!variant_primitive(t->format)) {
        st = pq_error_set(err, PQ_ERR_UNSUPPORTED,
                          "invalid variant: %s is shredded as Arrow type '%.32s', which is no variant type", where,
                          t->format);
    }
    where[at] = '\0';
    return st;
}

/* Every row's variant (ns == 0), or the value at the path's steps (a row
 * where the path leads nowhere is null), as arrow.parquet.variant storage. */
static pq_status rebuild_rows(const struct ArrowArray *storage, const struct ArrowSchema *schema,
                              const pq_variant_step *steps, size_t ns, struct ArrowArray *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    col top = {storage, schema};
    if (!storage || !schema || strcmp(schema->format, "+s") != 0)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "variant rebuild: not a struct array");
    col meta = child(top, "metadata"), value = child(top, "value"), typed = child(top, "typed_value");
    if (storage->length > 0 && (!meta.a || !(is_binary_format(meta.s->format) || is_string_format(meta.s->format))))
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "a VARIANT group without a binary metadata field");
    if (value.a && !(is_binary_format(value.s->format) || is_string_format(value.s->format)))
        return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "a VARIANT group whose value field is not binary");
    char where[192] = "typed_value";
    if (typed.a) {
        pq_status st = check_typed(typed.s, where, sizeof where, 0, err);
        if (st != PQ_OK) return st;
    }
    int64_t n = storage->length;
    size_t vb = (size_t)(n + 7) / 8;
    int32_t *moff = malloc(((size_t)n + 1) * sizeof *moff), *voff = malloc(((size_t)n + 1) * sizeof *voff);
    uint8_t *vvalid = calloc(vb ? vb : 1, 1), *svalid = NULL;
    vbuf md = {0}, vd = {0};
    pq_status st = moff && voff && vvalid ? PQ_OK : pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    int64_t vnulls = 0, snulls = 0;
    if (st == PQ_OK && storage->null_count != 0 && storage->n_buffers > 0 && storage->buffers[0]) {
        if (!(svalid = calloc(vb ? vb : 1, 1))) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    bool svalid_filled = svalid != NULL; /* filled row by row from the start */
    rebuild *rb = st == PQ_OK ? calloc(1, sizeof *rb) : NULL; /* the levels' scratch, reused by every row */
    if (st == PQ_OK && !rb) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    if (rb) rb->err = err;
    for (int64_t i = 0; st == PQ_OK && i < n; i++) {
        moff[i] = (int32_t)md.len;
        voff[i] = (int32_t)vd.len;
        bool row_valid = valid_at(top, i);
        if (svalid && row_valid) svalid[i >> 3] |= (uint8_t)(1u << (i & 7));
        if (!row_valid) {
            snulls++;
            vnulls++;
            continue;
        }
        int64_t at = storage->offset + i; /* the struct's offset applies to its children */
        const uint8_t *m = NULL;
        size_t mlen = 0;
        if (valid_at(meta, at)) bytes_at(meta, at, &m, &mlen);
        rb->row = i;
        rb->m = m;
        rb->mlen = mlen;
        rb->depth = 0;
        if (!m) {
            st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "invalid variant at row %" PRId64 ": no metadata", i);
            break;
        }
        bool missing = false;
        if (ns) st = at_path(rb, steps, ns, value, typed, at, &vd, &missing);
        else st = shredded(rb, value, typed, at, &vd, &missing, 0);
        if (st == PQ_OK && missing && ns) { /* the path leads nowhere: a null row */
            if (!svalid && !(svalid = calloc(vb ? vb : 1, 1))) {
                st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
                break;
            }
            if (!svalid_filled) { /* the rows before this one, as they were */
                for (int64_t b = 0; b < i; b++)
                    if (valid_at(top, b)) svalid[b >> 3] |= (uint8_t)(1u << (b & 7));
                svalid_filled = true;
            }
            svalid[i >> 3] &= (uint8_t)~(1u << (i & 7));
            snulls++;
            vnulls++;
            continue;
        }
        if (st == PQ_OK && !put(&md, m, mlen)) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        /* nothing at the top level (both null) is the variant null */
        if (st == PQ_OK && missing && !put_byte(&vd, V_NULL)) st = nomem(rb);
        if (st == PQ_OK) vvalid[i >> 3] |= (uint8_t)(1u << (i & 7));
        if (st == PQ_OK && (md.len > INT32_MAX || vd.len > INT32_MAX))
            st = pq_error_set(err, PQ_ERR_UNSUPPORTED, "rebuilt variants past 2 GiB in one batch");
    }
    if (st == PQ_OK) {
        moff[n] = (int32_t)md.len;
        voff[n] = (int32_t)vd.len;
    }
    for (size_t k = 0; rb && k < sizeof rb->levels / sizeof rb->levels[0]; k++) {
        free(rb->levels[k].es);
        free(rb->levels[k].buf.p);
        free(rb->levels[k].offs);
    }
    free(rb);
    if (st != PQ_OK) {
        free(moff);
        free(voff);
        free(vvalid);
        free(svalid);
        free(md.p);
        free(vd.p);
        return st;
    }
    if (!md.p) md.p = malloc(1);
    if (!vd.p) vd.p = malloc(1);
    owned *o;
    if (!node(out, n, svalid ? snulls : 0, svalid, NULL, NULL, 1, 2)) {
        free(moff);
        free(voff);
        free(vvalid);
        free(md.p);
        free(vd.p);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    o = out->private_data;
    bool ok = node(&o->kids[0], n, 0, NULL, moff, md.p, 3, 0);
    if (!ok) {
        free(voff);
        free(vvalid);
        free(vd.p);
    } else {
        ok = node(&o->kids[1], n, vnulls, vvalid, voff, vd.p, 3, 0);
    }
    if (!ok || !md.p || !vd.p) {
        out->release(out);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    return PQ_OK;
}

pq_status pq_variant_rebuild(const struct ArrowArray *storage, const struct ArrowSchema *schema,
                             struct ArrowArray *out, pq_error *err)
{
    return rebuild_rows(storage, schema, NULL, 0, out, err);
}

pq_status pq_variant_path_extract(const struct ArrowArray *storage, const struct ArrowSchema *schema, const char *path,
                                  struct ArrowArray *out, struct ArrowSchema *out_schema, pq_error *err)
{
    memset(out, 0, sizeof *out);
    memset(out_schema, 0, sizeof *out_schema);
    if (!storage || !schema || !path || !schema->name)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "variant path: no array, schema or path");
    size_t len = strlen(schema->name);
    if (strncmp(path, schema->name, len) != 0 || (path[len] != '.' && path[len] != '[' && path[len] != '\0'))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "variant path '%.64s' does not begin with the column's name '%.64s'",
                            path, schema->name);
    pq_variant_step steps[PQ_VARIANT_PATH_MAX_STEPS];
    size_t ns = 0;
    pq_status st = pq_variant_path_steps(path + len, steps, PQ_VARIANT_PATH_MAX_STEPS, &ns, err);
    if (st != PQ_OK) return st;
    if ((st = rebuild_rows(storage, schema, steps, ns, out, err)) != PQ_OK) return st;
    if ((st = pq_variant_field_schema(path, ARROW_FLAG_NULLABLE, NULL, out_schema, err)) != PQ_OK) out->release(out);
    return st;
}

bool pq_variant_node_is_shredded(const pq_schema *schema, int32_t node)
{
    if (!schema || node <= 0 || (uint32_t)node >= schema->nodes_len) return false;
    const pq_schema_node *nd = &schema->nodes[node];
    if (nd->parent != 0 || !nd->element || nd->element->logical.kind != PQ_LOGICAL_VARIANT || nd->leaf_index >= 0)
        return false;
    for (int32_t k = 0; k < nd->num_children; k++)
        if (strcmp(schema->nodes[nd->children[k]].name, "typed_value") == 0) return true;
    return false;
}

/* ---------------------------------------------------------------------------
 * The field's schema
 * ------------------------------------------------------------------------- */

typedef struct schema_block {
    struct ArrowSchema kids[2];
    struct ArrowSchema *ptrs[2];
    char *name;
    char *meta;
} schema_block;

static void kid_release(struct ArrowSchema *s)
{
    if (s) s->release = NULL; /* its strings are constants; its struct lives in the parent's block */
}

static void field_release(struct ArrowSchema *s)
{
    if (!s || !s->release) return;
    schema_block *b = s->private_data;
    for (int k = 0; k < 2; k++)
        if (b->kids[k].release) b->kids[k].release(&b->kids[k]);
    free(b->name);
    free(b->meta);
    free(b);
    s->release = NULL;
}

static size_t meta_pair(char *at, const char *key, int32_t kl, const char *value, int32_t vl)
{
    memcpy(at, &kl, 4);
    memcpy(at + 4, key, (size_t)kl);
    memcpy(at + 4 + kl, &vl, 4);
    memcpy(at + 8 + kl, value, (size_t)vl);
    return 8 + (size_t)kl + (size_t)vl;
}

/* The pairs of C Data Interface metadata m (may be NULL) other than the
 * extension's, then the variant extension's, into a new block. */
static char *variant_metadata(const char *m)
{
    static const char *const ext[2][2] = {{"ARROW:extension:name", "arrow.parquet.variant"},
                                          {"ARROW:extension:metadata", ""}};
    int32_t count = 0, kept = 2;
    size_t size = 4, at = 4;
    if (m) memcpy(&count, m, 4);
    for (int32_t i = 0; i < count; i++) { /* sized first */
        int32_t kl, vl;
        memcpy(&kl, m + at, 4);
        memcpy(&vl, m + at + 4 + kl, 4);
        if (!(kl >= 16 && !memcmp(m + at + 4, "ARROW:extension:", 16))) {
            size += 8 + (size_t)kl + (size_t)vl;
            kept++;
        }
        at += 8 + (size_t)kl + (size_t)vl;
    }
    for (int k = 0; k < 2; k++) size += 8 + strlen(ext[k][0]) + strlen(ext[k][1]);
    char *out = malloc(size);
    if (!out) return NULL;
    memcpy(out, &kept, 4);
    size_t w = 4;
    at = 4;
    for (int32_t i = 0; i < count; i++) {
        int32_t kl, vl;
        memcpy(&kl, m + at, 4);
        memcpy(&vl, m + at + 4 + kl, 4);
        if (!(kl >= 16 && !memcmp(m + at + 4, "ARROW:extension:", 16)))
            w += meta_pair(out + w, m + at + 4, kl, m + at + 8 + kl, vl);
        at += 8 + (size_t)kl + (size_t)vl;
    }
    for (int k = 0; k < 2; k++)
        w += meta_pair(out + w, ext[k][0], (int32_t)strlen(ext[k][0]), ext[k][1], (int32_t)strlen(ext[k][1]));
    return out;
}

pq_status pq_variant_field_schema(const char *name, int64_t flags, const char *metadata, struct ArrowSchema *out,
                                  pq_error *err)
{
    memset(out, 0, sizeof *out);
    schema_block *b = calloc(1, sizeof *b);
    if (b) {
        b->name = strdup(name ? name : "");
        b->meta = variant_metadata(metadata);
    }
    if (!b || !b->name || !b->meta) {
        if (b) {
            free(b->name);
            free(b->meta);
        }
        free(b);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    static const char *const names[2] = {"metadata", "value"};
    for (int k = 0; k < 2; k++) {
        b->kids[k] = (struct ArrowSchema){.format = "z", .name = names[k], .flags = k ? ARROW_FLAG_NULLABLE : 0,
                                          .release = kid_release};
        b->ptrs[k] = &b->kids[k];
    }
    out->format = "+s";
    out->name = b->name;
    out->metadata = b->meta;
    out->flags = flags;
    out->n_children = 2;
    out->children = b->ptrs;
    out->private_data = b;
    out->release = field_release;
    return PQ_OK;
}
