/*
 * cglib_ref.c — the c_glib reference decoder, its field-by-field comparison
 * with pqstep's structs, and builders for synthetic footers. See cglib_ref.h.
 */
#include "cglib_ref.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <thrift/c_glib/protocol/thrift_compact_protocol.h>

#include "span_transport.h"

/* ---------------------------------------------------------------------------
 * Finalizers that chain up
 *
 * The generated finalize functions free the struct's members but never call
 * the parent class's finalize, so GObject's own cleanup (its qdata, where
 * GLib keeps a notify queue for every object being released) never runs:
 * 32 bytes leak per object, tens of MB over the corpus and without bound in
 * a benchmark loop. pq_cglib_init() wraps each generated finalize once.
 * ------------------------------------------------------------------------- */

static GQuark own_finalize_quark;

static void chained_finalize(GObject *obj)
{
    GObjectFinalizeFunc own =
        (GObjectFinalizeFunc)g_type_get_qdata(G_OBJECT_TYPE(obj), own_finalize_quark);
    if (own) own(obj);
    G_OBJECT_CLASS(g_type_class_peek(THRIFT_TYPE_STRUCT))->finalize(obj);
}

void pq_cglib_init(void)
{
    static gsize done;
    if (!g_once_init_enter(&done)) return;
    own_finalize_quark = g_quark_from_static_string("pq-cglib-own-finalize");
    GType (*const types[])(void) = {
        pqt_size_statistics_get_type, pqt_bounding_box_get_type,
        pqt_geospatial_statistics_get_type, pqt_statistics_get_type, pqt_string_type_get_type,
        pqt_u_u_i_d_type_get_type, pqt_map_type_get_type, pqt_list_type_get_type,
        pqt_enum_type_get_type, pqt_date_type_get_type, pqt_float16_type_get_type,
        pqt_null_type_get_type, pqt_json_type_get_type, pqt_bson_type_get_type,
        pqt_variant_type_get_type, pqt_decimal_type_get_type, pqt_milli_seconds_get_type,
        pqt_micro_seconds_get_type, pqt_nano_seconds_get_type, pqt_time_unit_get_type,
        pqt_timestamp_type_get_type, pqt_time_type_get_type, pqt_int_type_get_type,
        pqt_geometry_type_get_type, pqt_geography_type_get_type, pqt_logical_type_get_type,
        pqt_schema_element_get_type, pqt_data_page_header_get_type,
        pqt_index_page_header_get_type, pqt_dictionary_page_header_get_type,
        pqt_data_page_header_v2_get_type, pqt_split_block_algorithm_get_type,
        pqt_bloom_filter_algorithm_get_type, pqt_xx_hash_get_type, pqt_bloom_filter_hash_get_type,
        pqt_uncompressed_get_type, pqt_bloom_filter_compression_get_type,
        pqt_bloom_filter_header_get_type, pqt_page_header_get_type, pqt_key_value_get_type,
        pqt_sorting_column_get_type, pqt_page_encoding_stats_get_type,
        pqt_column_meta_data_get_type, pqt_encryption_with_footer_key_get_type,
        pqt_encryption_with_column_key_get_type, pqt_column_crypto_meta_data_get_type,
        pqt_column_chunk_get_type, pqt_row_group_get_type, pqt_type_defined_order_get_type,
        pqt_column_order_get_type, pqt_page_location_get_type, pqt_offset_index_get_type,
        pqt_column_index_get_type, pqt_aes_gcm_v1_get_type, pqt_aes_gcm_ctr_v1_get_type,
        pqt_encryption_algorithm_get_type, pqt_file_meta_data_get_type,
        pqt_file_crypto_meta_data_get_type,
    };
    GObjectFinalizeFunc parent = G_OBJECT_CLASS(g_type_class_ref(THRIFT_TYPE_STRUCT))->finalize;
    for (size_t i = 0; i < G_N_ELEMENTS(types); i++) {
        GType t = types[i]();
        GObjectClass *k = g_type_class_ref(t); /* kept: generated classes are static */
        if (k->finalize == parent || k->finalize == chained_finalize) continue;
        g_type_set_qdata(t, own_finalize_quark, (gpointer)k->finalize);
        k->finalize = chained_finalize;
    }
    g_once_init_leave(&done, 1);
}

/* The generated readers of list<i32>/list<i64> fields read each element
 * through a g_new'd temporary that leaks when the read fails (a cut or
 * malformed footer). What the readers allocate otherwise belongs to the
 * object tree, whose root comes from pq_cglib_decode and is still checked.
 * LeakSanitizer picks this hook up when the tests run under it. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:pqt_*_read\n";
}

/* ---------------------------------------------------------------------------
 * A guarded compact protocol (see the header for why)
 * ------------------------------------------------------------------------- */

typedef struct {
    ThriftCompactProtocol parent;
    int depth;
} PqRefProtocol;

typedef struct {
    ThriftCompactProtocolClass parent;
} PqRefProtocolClass;

G_DEFINE_TYPE(PqRefProtocol, pq_ref_protocol, THRIFT_TYPE_COMPACT_PROTOCOL)

static ThriftProtocolClass *ref_parent(void)
{
    return THRIFT_PROTOCOL_CLASS(pq_ref_protocol_parent_class);
}

static gint32 ref_read_struct_begin(ThriftProtocol *p, gchar **name, GError **error)
{
    PqRefProtocol *rp = (PqRefProtocol *)p;
    if (++rp->depth > PQ_CGLIB_MAX_DEPTH) {
        g_set_error(error, THRIFT_PROTOCOL_ERROR, THRIFT_PROTOCOL_ERROR_DEPTH_LIMIT,
                    "struct nesting deeper than %d", PQ_CGLIB_MAX_DEPTH);
        return -1;
    }
    return ref_parent()->read_struct_begin(p, name, error);
}

static gint32 ref_read_struct_end(ThriftProtocol *p, GError **error)
{
    PqRefProtocol *rp = (PqRefProtocol *)p;
    rp->depth--;
    return ref_parent()->read_struct_end(p, error);
}

/* Containers count as nesting too: thrift_protocol_skip recurses into them. A
 * set is read through read_list_begin, so only its end is counted here. */
static gint32 ref_read_list_begin(ThriftProtocol *p, ThriftType *et, guint32 *size, GError **error)
{
    PqRefProtocol *rp = (PqRefProtocol *)p;
    if (++rp->depth > PQ_CGLIB_MAX_DEPTH) {
        g_set_error(error, THRIFT_PROTOCOL_ERROR, THRIFT_PROTOCOL_ERROR_DEPTH_LIMIT,
                    "container nesting deeper than %d", PQ_CGLIB_MAX_DEPTH);
        return -1;
    }
    return ref_parent()->read_list_begin(p, et, size, error);
}

static gint32 ref_read_list_end(ThriftProtocol *p, GError **error)
{
    ((PqRefProtocol *)p)->depth--;
    return ref_parent()->read_list_end(p, error);
}

static gint32 ref_read_set_end(ThriftProtocol *p, GError **error)
{
    ((PqRefProtocol *)p)->depth--;
    return ref_parent()->read_set_end(p, error);
}

static gint32 ref_read_map_begin(ThriftProtocol *p, ThriftType *kt, ThriftType *vt, guint32 *size,
                                 GError **error)
{
    PqRefProtocol *rp = (PqRefProtocol *)p;
    if (++rp->depth > PQ_CGLIB_MAX_DEPTH) {
        g_set_error(error, THRIFT_PROTOCOL_ERROR, THRIFT_PROTOCOL_ERROR_DEPTH_LIMIT,
                    "container nesting deeper than %d", PQ_CGLIB_MAX_DEPTH);
        return -1;
    }
    return ref_parent()->read_map_begin(p, kt, vt, size, error);
}

static gint32 ref_read_map_end(ThriftProtocol *p, GError **error)
{
    ((PqRefProtocol *)p)->depth--;
    return ref_parent()->read_map_end(p, error);
}

static gint32 ref_read_binary(ThriftProtocol *p, gpointer *buf, guint32 *len, GError **error)
{
    *buf = NULL;
    *len = 0;
    return ref_parent()->read_binary(p, buf, len, error);
}

static void pq_ref_protocol_class_init(PqRefProtocolClass *klass)
{
    ThriftProtocolClass *pc = THRIFT_PROTOCOL_CLASS(klass);
    pc->read_struct_begin = ref_read_struct_begin;
    pc->read_struct_end = ref_read_struct_end;
    pc->read_binary = ref_read_binary;
    pc->read_list_begin = ref_read_list_begin;
    pc->read_list_end = ref_read_list_end;
    pc->read_set_end = ref_read_set_end;
    pc->read_map_begin = ref_read_map_begin;
    pc->read_map_end = ref_read_map_end;
}

static void pq_ref_protocol_init(PqRefProtocol *self)
{
    self->depth = 0;
}

/* ---------------------------------------------------------------------------
 * Repeated field ids
 *
 * The generated read code handles a field id that comes twice in one struct
 * badly: a repeated `binary` field is released with g_free() although it is
 * a GByteArray (heap corruption), and repeated lists are appended to. Thrift
 * leaves repeats undefined anyway, so the reference declines such bytes; a
 * generic walk over the compact encoding finds them first.
 * ------------------------------------------------------------------------- */

#define WALK_MAX_FIELDS 256

typedef struct walk {
    const uint8_t *p, *end;
    int bad;      /* malformed: stop looking, c_glib will say why */
    int repeated; /* a struct repeats a field id */
    int16_t where;
} walk;

static uint64_t walk_varint(walk *w)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (w->p >= w->end) break;
        uint8_t b = *w->p++;
        v |= (uint64_t)(b & 0x7f) << (shift < 64 ? shift : 63);
        if (!(b & 0x80)) return v;
    }
    w->bad = 1;
    return 0;
}

static void walk_value(walk *w, int type, int in_container, int depth);

static void walk_struct(walk *w, int depth)
{
    int16_t ids[WALK_MAX_FIELDS];
    int n = 0;
    int16_t id = 0;
    while (!w->bad && !w->repeated) {
        if (w->p >= w->end) {
            w->bad = 1;
            return;
        }
        uint8_t b = *w->p++;
        int type = b & 0x0f;
        if (type == 0) return;
        if (b >> 4) {
            id = (int16_t)(id + (b >> 4));
        } else {
            uint64_t z = walk_varint(w);
            id = (int16_t)(int64_t)((z >> 1) ^ (~(z & 1) + 1));
        }
        for (int i = 0; i < n; i++)
            if (ids[i] == id) {
                w->repeated = 1;
                w->where = id;
                return;
            }
        if (n == WALK_MAX_FIELDS) { /* not a real footer; c_glib copes */
            w->bad = 1;
            return;
        }
        ids[n++] = id;
        walk_value(w, type, 0, depth + 1);
    }
}

static void walk_value(walk *w, int type, int in_container, int depth)
{
    if (depth > PQ_CGLIB_MAX_DEPTH + 2) {
        w->bad = 1;
        return;
    }
    size_t left = (size_t)(w->end - w->p);
    switch (type) {
    case 1:
    case 2:
        if (in_container) {
            if (left < 1) w->bad = 1;
            else w->p++;
        }
        break;
    case 3:
        if (left < 1) w->bad = 1;
        else w->p++;
        break;
    case 4:
    case 5:
    case 6:
        (void)walk_varint(w);
        break;
    case 7:
        if (left < 8) w->bad = 1;
        else w->p += 8;
        break;
    case 8: {
        uint64_t n = walk_varint(w);
        if (w->bad || n > (uint64_t)(w->end - w->p)) w->bad = 1;
        else w->p += n;
        break;
    }
    case 9:
    case 10: {
        if (left < 1) {
            w->bad = 1;
            break;
        }
        uint8_t h = *w->p++;
        uint64_t n = h >> 4;
        if (n == 15) n = walk_varint(w);
        if (w->bad || n > (uint64_t)(w->end - w->p)) {
            w->bad = 1;
            break;
        }
        for (uint64_t i = 0; i < n && !w->bad && !w->repeated; i++)
            walk_value(w, h & 0x0f, 1, depth + 1);
        break;
    }
    case 11: {
        uint64_t n = walk_varint(w);
        if (w->bad || n == 0) break;
        if (n > (uint64_t)(w->end - w->p) || w->p >= w->end) {
            w->bad = 1;
            break;
        }
        uint8_t kv = *w->p++;
        for (uint64_t i = 0; i < n && !w->bad && !w->repeated; i++) {
            walk_value(w, kv >> 4, 1, depth + 1);
            walk_value(w, kv & 0x0f, 1, depth + 1);
        }
        break;
    }
    case 12:
        walk_struct(w, depth);
        break;
    default:
        w->bad = 1;
    }
}

int pq_cglib_repeated_field(const uint8_t *buf, size_t len, int16_t *field_id)
{
    walk w = {buf, buf + len, 0, 0, 0};
    walk_struct(&w, 0);
    if (w.repeated && field_id) *field_id = w.where;
    return w.repeated;
}

/* ---------------------------------------------------------------------------
 * Decode / encode
 * ------------------------------------------------------------------------- */

pqtFileMetaData *pq_cglib_decode(const uint8_t *buf, size_t len, char **error)
{
    int16_t rep;
    if (pq_cglib_repeated_field(buf, len, &rep)) {
        if (error)
            *error = g_strdup_printf("c_glib: declined: a struct repeats field id %d "
                                     "(undefined in Thrift; the generated code mishandles it)",
                                     (int)rep);
        return NULL;
    }
    return pq_cglib_decode_trusted(buf, len, error);
}

pqtFileMetaData *pq_cglib_decode_trusted(const uint8_t *buf, size_t len, char **error)
{
    if (error) *error = NULL;
    pq_cglib_init();
    /* A string or container cannot be longer than the bytes there are. */
    gint limit = len >= (size_t)G_MAXINT32 ? G_MAXINT32 : (gint)(len ? len : 1);
    PqSpanTransport *t = pq_span_transport_new(buf, len);
    ThriftProtocol *p = g_object_new(pq_ref_protocol_get_type(), "transport", t,
                                     "string_limit", limit, "container_limit", limit, NULL);
    pqtFileMetaData *md = g_object_new(PQT_TYPE_FILE_META_DATA, NULL);
    GError *err = NULL;
    if (thrift_struct_read(THRIFT_STRUCT(md), p, &err) < 0) {
        if (error)
            *error = g_strdup_printf("c_glib: %s (at byte %zu of %zu)",
                                     err ? err->message : "read failed",
                                     pq_span_transport_position(t), len);
        if (err) g_error_free(err);
        g_object_unref(md);
        md = NULL;
    }
    g_object_unref(p);
    g_object_unref(t);
    return md;
}

uint8_t *pq_cglib_encode_struct(ThriftStruct *st, size_t *len)
{
    pq_cglib_init();
    PqSinkTransport *t = pq_sink_transport_new();
    ThriftProtocol *p = g_object_new(THRIFT_TYPE_COMPACT_PROTOCOL, "transport", t, NULL);
    GError *err = NULL;
    uint8_t *out = NULL;
    if (thrift_struct_write(st, p, &err) >= 0) {
        out = pq_sink_transport_steal(t, len);
    } else {
        if (err) g_error_free(err);
        *len = 0;
    }
    g_object_unref(p);
    g_object_unref(t);
    return out;
}

uint8_t *pq_cglib_encode(pqtFileMetaData *md, size_t *len)
{
    return pq_cglib_encode_struct(THRIFT_STRUCT(md), len);
}

/* ---------------------------------------------------------------------------
 * Comparison
 * ------------------------------------------------------------------------- */

typedef struct cmp_ctx {
    char *diff;
    size_t cap;
} cmp_ctx;

#define PATH_CAP 256

__attribute__((format(printf, 4, 5)))
static int differ(cmp_ctx *c, const char *path, const char *field, const char *fmt, ...)
{
    if (!c->diff || !c->cap) return 1;
    int n = snprintf(c->diff, c->cap, "%s%s%s: ", path, *path && *field ? "." : "", field);
    if (n < 0 || (size_t)n >= c->cap) return 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->diff + n, c->cap - (size_t)n, fmt, ap);
    va_end(ap);
    return 1;
}

__attribute__((format(printf, 3, 4)))
static const char *subpath(char *out, const char *path, const char *fmt, ...)
{
    int n = snprintf(out, PATH_CAP, "%s%s", path, *path ? "." : "");
    if (n < 0 || n >= PATH_CAP) return out;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + n, PATH_CAP - (size_t)n, fmt, ap);
    va_end(ap);
    return out;
}

#define CMP_INT(field, ref, ours)                                                         \
    do {                                                                                  \
        int64_t r_ = (int64_t)(ref), o_ = (int64_t)(ours);                                \
        if (r_ != o_)                                                                     \
            return differ(c, path, field, "c_glib %" PRId64 ", pqstep %" PRId64, r_, o_); \
    } while (0)

#define CMP_HAS(field, ref_isset, ours_set, bit)                                     \
    do {                                                                             \
        int r_ = !!(ref_isset), o_ = ((ours_set) & (bit)) != 0;                      \
        if (r_ != o_) return differ(c, path, field, "isset: c_glib %d, pqstep %d", r_, o_); \
    } while (0)

#define CMP_BOOL(field, ref, ours)                                                    \
    do {                                                                              \
        int r_ = !!(ref), o_ = !!(ours);                                              \
        if (r_ != o_) return differ(c, path, field, "c_glib %d, pqstep %d", r_, o_);  \
    } while (0)

#define TRY(x)               \
    do {                     \
        if (x) return 1;     \
    } while (0)

static int cmp_raw(cmp_ctx *c, const char *path, const char *field, const guint8 *ref,
                   size_t ref_len, pq_bytes ours)
{
    if (ref_len != ours.len)
        return differ(c, path, field, "c_glib %zu bytes, pqstep %u", ref_len, ours.len);
    if (ours.len && !ours.ptr) return differ(c, path, field, "pqstep span has NULL data");
    for (size_t i = 0; i < ref_len; i++)
        if (ref[i] != ours.ptr[i])
            return differ(c, path, field, "byte %zu: c_glib 0x%02x, pqstep 0x%02x", i, ref[i],
                          ours.ptr[i]);
    return 0;
}

static int cmp_binary(cmp_ctx *c, const char *path, const char *field, const GByteArray *ref,
                      pq_bytes ours)
{
    return cmp_raw(c, path, field, ref ? ref->data : NULL, ref ? ref->len : 0, ours);
}

/* c_glib strings stop at the first NUL (and an empty string is NULL). */
static int cmp_string(cmp_ctx *c, const char *path, const char *field, const gchar *ref,
                      pq_bytes ours)
{
    if (ours.len && ours.ptr) {
        const uint8_t *nul = memchr(ours.ptr, 0, ours.len);
        if (nul) ours.len = (uint32_t)(nul - ours.ptr);
    }
    return cmp_raw(c, path, field, (const guint8 *)ref, ref ? strlen(ref) : 0, ours);
}

static int cmp_double(cmp_ctx *c, const char *path, const char *field, double ref, double ours)
{
    if (memcmp(&ref, &ours, sizeof ref) != 0)
        return differ(c, path, field, "c_glib %.17g, pqstep %.17g", ref, ours);
    return 0;
}

static int cmp_kv(cmp_ctx *c, const char *path, const char *field, const GPtrArray *ref,
                  const pq_key_value *ours, uint32_t ours_len)
{
    char p[PATH_CAP];
    guint n = ref ? ref->len : 0;
    if (n != ours_len)
        return differ(c, path, field, "c_glib %u entries, pqstep %u", n, ours_len);
    if (n && !ours) return differ(c, path, field, "pqstep array is NULL");
    for (guint i = 0; i < n; i++) {
        const pqtKeyValue *kv = g_ptr_array_index(ref, i);
        const char *sp = subpath(p, path, "%s[%u]", field, i);
        TRY(cmp_string(c, sp, "key", kv->key, ours[i].key));
        if (!!kv->__isset_value != !!ours[i].has_value)
            return differ(c, sp, "value", "isset: c_glib %d, pqstep %d", !!kv->__isset_value,
                          !!ours[i].has_value);
        TRY(cmp_string(c, sp, "value", kv->value, ours[i].value));
    }
    return 0;
}

static int cmp_i64_list(cmp_ctx *c, const char *path, const char *field, const GArray *ref,
                        const int64_t *ours, uint32_t ours_len)
{
    guint n = ref ? ref->len : 0;
    if (n != ours_len) return differ(c, path, field, "c_glib %u entries, pqstep %u", n, ours_len);
    if (n && !ours) return differ(c, path, field, "pqstep array is NULL");
    for (guint i = 0; i < n; i++) {
        gint64 r = g_array_index(ref, gint64, i);
        if (r != ours[i])
            return differ(c, path, field, "[%u]: c_glib %" PRId64 ", pqstep %" PRId64, i,
                          (int64_t)r, ours[i]);
    }
    return 0;
}

static int cmp_i32_list(cmp_ctx *c, const char *path, const char *field, const GArray *ref,
                        const int32_t *ours, uint32_t ours_len)
{
    guint n = ref ? ref->len : 0;
    if (n != ours_len) return differ(c, path, field, "c_glib %u entries, pqstep %u", n, ours_len);
    if (n && !ours) return differ(c, path, field, "pqstep array is NULL");
    for (guint i = 0; i < n; i++) {
        gint32 r = g_array_index(ref, gint32, i);
        if (r != ours[i])
            return differ(c, path, field, "[%u]: c_glib %d, pqstep %d", i, r, ours[i]);
    }
    return 0;
}

/* --- logical types ------------------------------------------------------- */

static uint8_t time_unit_of(const pqtTimeUnit *u)
{
    if (!u) return PQ_UNIT_NONE;
    if (u->__isset_MILLIS) return PQ_UNIT_MILLIS;
    if (u->__isset_MICROS) return PQ_UNIT_MICROS;
    if (u->__isset_NANOS) return PQ_UNIT_NANOS;
    return PQ_UNIT_NONE;
}

/* What pqstep should hold for union member `kind` of `lt`: every field that
 * does not belong to the member is zero. */
static pq_logical_type expected_logical(const pqtLogicalType *lt, int kind, const uint8_t **crs,
                                        size_t *crs_len)
{
    pq_logical_type e;
    memset(&e, 0, sizeof e);
    e.kind = (uint8_t)kind;
    *crs = NULL;
    *crs_len = 0;
    switch (kind) {
    case PQ_LOGICAL_DECIMAL:
        e.scale = lt->DECIMAL->scale;
        e.precision = lt->DECIMAL->precision;
        break;
    case PQ_LOGICAL_TIME:
        e.is_adjusted_to_utc = lt->TIME->isAdjustedToUTC != 0;
        e.unit = time_unit_of(lt->TIME->unit);
        break;
    case PQ_LOGICAL_TIMESTAMP:
        e.is_adjusted_to_utc = lt->TIMESTAMP->isAdjustedToUTC != 0;
        e.unit = time_unit_of(lt->TIMESTAMP->unit);
        break;
    case PQ_LOGICAL_INTEGER:
        e.bit_width = lt->INTEGER->bitWidth;
        e.is_signed = lt->INTEGER->isSigned != 0;
        break;
    case PQ_LOGICAL_VARIANT:
        e.has_variant_version = lt->VARIANT->__isset_specification_version != 0;
        e.variant_version = lt->VARIANT->specification_version;
        break;
    case PQ_LOGICAL_GEOMETRY:
        e.has_crs = lt->GEOMETRY->__isset_crs != 0;
        *crs = (const uint8_t *)lt->GEOMETRY->crs;
        break;
    case PQ_LOGICAL_GEOGRAPHY:
        e.has_crs = lt->GEOGRAPHY->__isset_crs != 0;
        *crs = (const uint8_t *)lt->GEOGRAPHY->crs;
        e.has_algorithm = lt->GEOGRAPHY->__isset_algorithm != 0;
        e.algorithm = (gint32)lt->GEOGRAPHY->algorithm;
        break;
    default:
        break;
    }
    if (*crs) *crs_len = strlen((const char *)*crs);
    return e;
}

static int cmp_logical_as(cmp_ctx *c, const char *path, const pqtLogicalType *lt, int kind,
                          const pq_logical_type *o)
{
    const uint8_t *crs;
    size_t crs_len;
    pq_logical_type e = expected_logical(lt, kind, &crs, &crs_len);
    CMP_INT("kind", e.kind, o->kind);
    CMP_INT("unit", e.unit, o->unit);
    CMP_BOOL("is_adjusted_to_utc", e.is_adjusted_to_utc, o->is_adjusted_to_utc);
    CMP_INT("bit_width", e.bit_width, o->bit_width);
    CMP_BOOL("is_signed", e.is_signed, o->is_signed);
    CMP_BOOL("has_variant_version", e.has_variant_version, o->has_variant_version);
    CMP_INT("variant_version", e.variant_version, o->variant_version);
    CMP_BOOL("has_algorithm", e.has_algorithm, o->has_algorithm);
    CMP_INT("scale", e.scale, o->scale);
    CMP_INT("precision", e.precision, o->precision);
    CMP_INT("algorithm", e.algorithm, o->algorithm);
    CMP_BOOL("has_crs", e.has_crs, o->has_crs);
    pq_bytes oc = o->crs;
    if (oc.len && oc.ptr) { /* c_glib's crs is a string: compare up to a NUL */
        const uint8_t *nul = memchr(oc.ptr, 0, oc.len);
        if (nul) oc.len = (uint32_t)(nul - oc.ptr);
    }
    return cmp_raw(c, path, "crs", crs, crs_len, oc);
}

static int cmp_logical(cmp_ctx *c, const char *path, const pqtLogicalType *lt,
                       const pq_logical_type *o)
{
    /* Members in field-id order; c_glib keeps every member the bytes set. */
    const struct { gboolean set; int kind; } members[] = {
        {lt->__isset_STRING, PQ_LOGICAL_STRING},       {lt->__isset_MAP, PQ_LOGICAL_MAP},
        {lt->__isset_LIST, PQ_LOGICAL_LIST},           {lt->__isset_ENUM, PQ_LOGICAL_ENUM},
        {lt->__isset_DECIMAL, PQ_LOGICAL_DECIMAL},     {lt->__isset_DATE, PQ_LOGICAL_DATE},
        {lt->__isset_TIME, PQ_LOGICAL_TIME},           {lt->__isset_TIMESTAMP, PQ_LOGICAL_TIMESTAMP},
        {lt->__isset_INTEGER, PQ_LOGICAL_INTEGER},     {lt->__isset_UNKNOWN, PQ_LOGICAL_UNKNOWN},
        {lt->__isset_JSON, PQ_LOGICAL_JSON},           {lt->__isset_BSON, PQ_LOGICAL_BSON},
        {lt->__isset_UUID, PQ_LOGICAL_UUID},           {lt->__isset_FLOAT16, PQ_LOGICAL_FLOAT16},
        {lt->__isset_VARIANT, PQ_LOGICAL_VARIANT},     {lt->__isset_GEOMETRY, PQ_LOGICAL_GEOMETRY},
        {lt->__isset_GEOGRAPHY, PQ_LOGICAL_GEOGRAPHY},
    };
    int nset = 0, last = -1;
    for (size_t i = 0; i < G_N_ELEMENTS(members); i++)
        if (members[i].set) {
            nset++;
            last = (int)i;
            /* Several members (malformed union): pqstep must hold one of them. */
            if (members[i].kind == o->kind) return cmp_logical_as(c, path, lt, o->kind, o);
        }
    /* No member c_glib knows: either one newer than the IDL (FUTURE) or an
     * empty union (c_glib's re-encoding of the former), which pqstep may
     * hold as NONE. c_glib cannot tell the two apart. */
    if (nset == 0)
        return cmp_logical_as(c, path, lt,
                              o->kind == PQ_LOGICAL_NONE ? PQ_LOGICAL_NONE : PQ_LOGICAL_FUTURE, o);
    if (nset == 1) return cmp_logical_as(c, path, lt, members[last].kind, o);
    return differ(c, path, "kind", "c_glib has %d union members set, pqstep kind %d", nset,
                  o->kind);
}

/* --- schema --------------------------------------------------------------- */

static int cmp_element(cmp_ctx *c, const char *path, const pqtSchemaElement *r,
                       const pq_schema_element *o)
{
    char p[PATH_CAP];
    TRY(cmp_string(c, path, "name", r->name, o->name));
    CMP_HAS("type", r->__isset_type, o->set, PQ_SE_HAS_TYPE);
    CMP_INT("type", (gint32)r->type, o->type);
    CMP_HAS("type_length", r->__isset_type_length, o->set, PQ_SE_HAS_TYPE_LENGTH);
    CMP_INT("type_length", r->type_length, o->type_length);
    CMP_HAS("repetition_type", r->__isset_repetition_type, o->set, PQ_SE_HAS_REPETITION);
    CMP_INT("repetition_type", (gint32)r->repetition_type, o->repetition);
    CMP_HAS("num_children", r->__isset_num_children, o->set, PQ_SE_HAS_NUM_CHILDREN);
    CMP_INT("num_children", r->num_children, o->num_children);
    CMP_HAS("converted_type", r->__isset_converted_type, o->set, PQ_SE_HAS_CONVERTED_TYPE);
    CMP_INT("converted_type", r->__isset_converted_type ? (int)r->converted_type : PQ_CT_NONE,
            o->converted_type);
    CMP_HAS("scale", r->__isset_scale, o->set, PQ_SE_HAS_SCALE);
    CMP_INT("scale", r->scale, o->scale);
    CMP_HAS("precision", r->__isset_precision, o->set, PQ_SE_HAS_PRECISION);
    CMP_INT("precision", r->precision, o->precision);
    CMP_HAS("field_id", r->__isset_field_id, o->set, PQ_SE_HAS_FIELD_ID);
    CMP_INT("field_id", r->field_id, o->field_id);
    CMP_HAS("logicalType", r->__isset_logicalType, o->set, PQ_SE_HAS_LOGICAL_TYPE);
    if (r->__isset_logicalType)
        return cmp_logical(c, subpath(p, path, "logicalType"), r->logicalType, &o->logical);
    CMP_INT("logicalType.kind", PQ_LOGICAL_NONE, o->logical.kind);
    return 0;
}

/* --- column chunks -------------------------------------------------------- */

static int cmp_statistics(cmp_ctx *c, const char *path, const pqtStatistics *r,
                          const pq_statistics *o)
{
    CMP_HAS("max", r->__isset_max, o->set, PQ_STATS_HAS_MAX);
    TRY(cmp_binary(c, path, "max", r->max, o->max));
    CMP_HAS("min", r->__isset_min, o->set, PQ_STATS_HAS_MIN);
    TRY(cmp_binary(c, path, "min", r->min, o->min));
    CMP_HAS("null_count", r->__isset_null_count, o->set, PQ_STATS_HAS_NULL_COUNT);
    CMP_INT("null_count", r->null_count, o->null_count);
    CMP_HAS("distinct_count", r->__isset_distinct_count, o->set, PQ_STATS_HAS_DISTINCT_COUNT);
    CMP_INT("distinct_count", r->distinct_count, o->distinct_count);
    CMP_HAS("max_value", r->__isset_max_value, o->set, PQ_STATS_HAS_MAX_VALUE);
    TRY(cmp_binary(c, path, "max_value", r->max_value, o->max_value));
    CMP_HAS("min_value", r->__isset_min_value, o->set, PQ_STATS_HAS_MIN_VALUE);
    TRY(cmp_binary(c, path, "min_value", r->min_value, o->min_value));
    CMP_HAS("is_max_value_exact", r->__isset_is_max_value_exact, o->set, PQ_STATS_HAS_IS_MAX_EXACT);
    CMP_BOOL("is_max_value_exact", r->is_max_value_exact, o->is_max_value_exact);
    CMP_HAS("is_min_value_exact", r->__isset_is_min_value_exact, o->set, PQ_STATS_HAS_IS_MIN_EXACT);
    CMP_BOOL("is_min_value_exact", r->is_min_value_exact, o->is_min_value_exact);
    CMP_HAS("nan_count", r->__isset_nan_count, o->set, PQ_STATS_HAS_NAN_COUNT);
    CMP_INT("nan_count", r->nan_count, o->nan_count);
    return 0;
}

static int cmp_size_stats(cmp_ctx *c, const char *path, const pqtSizeStatistics *r,
                          const pq_size_statistics *o)
{
    CMP_HAS("unencoded_byte_array_data_bytes", r->__isset_unencoded_byte_array_data_bytes, o->set,
            PQ_SIZE_HAS_UNENCODED_BYTES);
    CMP_INT("unencoded_byte_array_data_bytes", r->unencoded_byte_array_data_bytes,
            o->unencoded_byte_array_data_bytes);
    CMP_HAS("repetition_level_histogram", r->__isset_repetition_level_histogram, o->set,
            PQ_SIZE_HAS_REP_HISTOGRAM);
    TRY(cmp_i64_list(c, path, "repetition_level_histogram", r->repetition_level_histogram,
                     o->repetition_level_histogram, o->repetition_level_histogram_len));
    CMP_HAS("definition_level_histogram", r->__isset_definition_level_histogram, o->set,
            PQ_SIZE_HAS_DEF_HISTOGRAM);
    return cmp_i64_list(c, path, "definition_level_histogram", r->definition_level_histogram,
                        o->definition_level_histogram, o->definition_level_histogram_len);
}

static int cmp_geo_stats(cmp_ctx *c, const char *path, const pqtGeospatialStatistics *r,
                         const pq_geospatial_statistics *o)
{
    char p[PATH_CAP];
    CMP_HAS("bbox", r->__isset_bbox, o->set, PQ_GEO_HAS_BBOX);
    const pqtBoundingBox *b = r->bbox;
    const pq_bounding_box *ob = &o->bbox;
    if (r->__isset_bbox) {
        const char *bp = subpath(p, path, "bbox");
        TRY(cmp_double(c, bp, "xmin", b->xmin, ob->xmin));
        TRY(cmp_double(c, bp, "xmax", b->xmax, ob->xmax));
        TRY(cmp_double(c, bp, "ymin", b->ymin, ob->ymin));
        TRY(cmp_double(c, bp, "ymax", b->ymax, ob->ymax));
        { const char *path = bp; CMP_HAS("zmin", b->__isset_zmin, ob->set, PQ_BBOX_HAS_ZMIN); }
        TRY(cmp_double(c, bp, "zmin", b->zmin, ob->zmin));
        { const char *path = bp; CMP_HAS("zmax", b->__isset_zmax, ob->set, PQ_BBOX_HAS_ZMAX); }
        TRY(cmp_double(c, bp, "zmax", b->zmax, ob->zmax));
        { const char *path = bp; CMP_HAS("mmin", b->__isset_mmin, ob->set, PQ_BBOX_HAS_MMIN); }
        TRY(cmp_double(c, bp, "mmin", b->mmin, ob->mmin));
        { const char *path = bp; CMP_HAS("mmax", b->__isset_mmax, ob->set, PQ_BBOX_HAS_MMAX); }
        TRY(cmp_double(c, bp, "mmax", b->mmax, ob->mmax));
    } else if (ob->set || ob->xmin != 0 || ob->xmax != 0 || ob->ymin != 0 || ob->ymax != 0 ||
               ob->zmin != 0 || ob->zmax != 0 || ob->mmin != 0 || ob->mmax != 0) {
        return differ(c, path, "bbox", "absent in c_glib, pqstep box is not zeroed");
    }
    CMP_HAS("geospatial_types", r->__isset_geospatial_types, o->set, PQ_GEO_HAS_TYPES);
    return cmp_i32_list(c, path, "geospatial_types", r->geospatial_types, o->geospatial_types,
                        o->geospatial_types_len);
}

static int cmp_column_meta(cmp_ctx *c, const char *path, const pqtColumnMetaData *r,
                           const pq_column_meta *o)
{
    char p[PATH_CAP];
    CMP_INT("type", (gint32)r->type, o->type);
    TRY(cmp_i32_list(c, path, "encodings", r->encodings, o->encodings, o->encodings_len));
    guint npath = r->path_in_schema ? r->path_in_schema->len : 0;
    if (npath != o->path_in_schema_len)
        return differ(c, path, "path_in_schema", "c_glib %u entries, pqstep %u", npath,
                      o->path_in_schema_len);
    if (npath && !o->path_in_schema)
        return differ(c, path, "path_in_schema", "pqstep array is NULL");
    for (guint i = 0; i < npath; i++)
        TRY(cmp_string(c, path, subpath(p, "", "path_in_schema[%u]", i),
                       g_ptr_array_index(r->path_in_schema, i), o->path_in_schema[i]));
    CMP_INT("codec", (gint32)r->codec, o->codec);
    CMP_INT("num_values", r->num_values, o->num_values);
    CMP_INT("total_uncompressed_size", r->total_uncompressed_size, o->total_uncompressed_size);
    CMP_INT("total_compressed_size", r->total_compressed_size, o->total_compressed_size);
    CMP_HAS("key_value_metadata", r->__isset_key_value_metadata, o->set, PQ_CMD_HAS_KEY_VALUE);
    TRY(cmp_kv(c, path, "key_value_metadata", r->key_value_metadata, o->key_value_metadata,
               o->key_value_metadata_len));
    CMP_INT("data_page_offset", r->data_page_offset, o->data_page_offset);
    CMP_HAS("index_page_offset", r->__isset_index_page_offset, o->set, PQ_CMD_HAS_INDEX_PAGE_OFFSET);
    CMP_INT("index_page_offset", r->index_page_offset, o->index_page_offset);
    CMP_HAS("dictionary_page_offset", r->__isset_dictionary_page_offset, o->set,
            PQ_CMD_HAS_DICTIONARY_PAGE_OFFSET);
    CMP_INT("dictionary_page_offset", r->dictionary_page_offset, o->dictionary_page_offset);
    CMP_HAS("statistics", r->__isset_statistics, o->set, PQ_CMD_HAS_STATISTICS);
    if (r->__isset_statistics) {
        TRY(cmp_statistics(c, subpath(p, path, "statistics"), r->statistics, &o->statistics));
    } else {
        const pq_statistics *s = &o->statistics;
        if (s->set || s->max.len || s->min.len || s->max_value.len || s->min_value.len ||
            s->null_count || s->distinct_count || s->is_max_value_exact || s->is_min_value_exact)
            return differ(c, path, "statistics", "absent in c_glib, pqstep's are not zeroed");
    }
    CMP_HAS("encoding_stats", r->__isset_encoding_stats, o->set, PQ_CMD_HAS_ENCODING_STATS);
    guint nes = r->encoding_stats ? r->encoding_stats->len : 0;
    if (nes != o->encoding_stats_len)
        return differ(c, path, "encoding_stats", "c_glib %u entries, pqstep %u", nes,
                      o->encoding_stats_len);
    if (nes && !o->encoding_stats)
        return differ(c, path, "encoding_stats", "pqstep array is NULL");
    for (guint i = 0; i < nes; i++) {
        const pqtPageEncodingStats *es = g_ptr_array_index(r->encoding_stats, i);
        const char *path2 = subpath(p, path, "encoding_stats[%u]", i);
        {
            const char *path = path2;
            CMP_INT("page_type", (gint32)es->page_type, o->encoding_stats[i].page_type);
            CMP_INT("encoding", (gint32)es->encoding, o->encoding_stats[i].encoding);
            CMP_INT("count", es->count, o->encoding_stats[i].count);
        }
    }
    CMP_HAS("bloom_filter_offset", r->__isset_bloom_filter_offset, o->set,
            PQ_CMD_HAS_BLOOM_FILTER_OFFSET);
    CMP_INT("bloom_filter_offset", r->bloom_filter_offset, o->bloom_filter_offset);
    CMP_HAS("bloom_filter_length", r->__isset_bloom_filter_length, o->set,
            PQ_CMD_HAS_BLOOM_FILTER_LENGTH);
    CMP_INT("bloom_filter_length", r->bloom_filter_length, o->bloom_filter_length);
    CMP_HAS("size_statistics", r->__isset_size_statistics, o->set, PQ_CMD_HAS_SIZE_STATISTICS);
    if (!!r->__isset_size_statistics != (o->size_statistics != NULL))
        return differ(c, path, "size_statistics", "isset %d but pqstep pointer %s",
                      !!r->__isset_size_statistics, o->size_statistics ? "set" : "NULL");
    if (r->__isset_size_statistics)
        TRY(cmp_size_stats(c, subpath(p, path, "size_statistics"), r->size_statistics,
                           o->size_statistics));
    CMP_HAS("geospatial_statistics", r->__isset_geospatial_statistics, o->set,
            PQ_CMD_HAS_GEOSPATIAL_STATISTICS);
    if (!!r->__isset_geospatial_statistics != (o->geospatial_statistics != NULL))
        return differ(c, path, "geospatial_statistics", "isset %d but pqstep pointer %s",
                      !!r->__isset_geospatial_statistics,
                      o->geospatial_statistics ? "set" : "NULL");
    if (r->__isset_geospatial_statistics)
        TRY(cmp_geo_stats(c, subpath(p, path, "geospatial_statistics"), r->geospatial_statistics,
                          o->geospatial_statistics));
    return 0;
}

static int crypto_kind_of(const pqtColumnCryptoMetaData *m)
{
    if (m->__isset_ENCRYPTION_WITH_FOOTER_KEY) return PQ_CRYPTO_FOOTER_KEY;
    if (m->__isset_ENCRYPTION_WITH_COLUMN_KEY) return PQ_CRYPTO_COLUMN_KEY;
    return PQ_CRYPTO_NONE;
}

static int cmp_chunk(cmp_ctx *c, const char *path, const pqtColumnChunk *r,
                     const pq_column_chunk *o)
{
    char p[PATH_CAP];
    if (o->set & PQ_CC_SKIPPED) return 0; /* outside a projection: not decoded */
    CMP_HAS("file_path", r->__isset_file_path, o->set, PQ_CC_HAS_FILE_PATH);
    TRY(cmp_string(c, path, "file_path", r->file_path, o->file_path));
    CMP_INT("file_offset", r->file_offset, o->file_offset);
    CMP_HAS("meta_data", r->__isset_meta_data, o->set, PQ_CC_HAS_META_DATA);
    if (r->__isset_meta_data)
        TRY(cmp_column_meta(c, subpath(p, path, "meta_data"), r->meta_data, &o->meta_data));
    else
        CMP_INT("meta_data.encodings_len", 0, o->meta_data.encodings_len);
    CMP_HAS("offset_index_offset", r->__isset_offset_index_offset, o->set,
            PQ_CC_HAS_OFFSET_INDEX_OFFSET);
    CMP_INT("offset_index_offset", r->offset_index_offset, o->offset_index_offset);
    CMP_HAS("offset_index_length", r->__isset_offset_index_length, o->set,
            PQ_CC_HAS_OFFSET_INDEX_LENGTH);
    CMP_INT("offset_index_length", r->offset_index_length, o->offset_index_length);
    CMP_HAS("column_index_offset", r->__isset_column_index_offset, o->set,
            PQ_CC_HAS_COLUMN_INDEX_OFFSET);
    CMP_INT("column_index_offset", r->column_index_offset, o->column_index_offset);
    CMP_HAS("column_index_length", r->__isset_column_index_length, o->set,
            PQ_CC_HAS_COLUMN_INDEX_LENGTH);
    CMP_INT("column_index_length", r->column_index_length, o->column_index_length);
    CMP_HAS("crypto_metadata", r->__isset_crypto_metadata, o->set, PQ_CC_HAS_CRYPTO_METADATA);
    CMP_INT("crypto_metadata", r->__isset_crypto_metadata ? crypto_kind_of(r->crypto_metadata) : 0,
            o->crypto_kind);
    CMP_HAS("encrypted_column_metadata", r->__isset_encrypted_column_metadata, o->set,
            PQ_CC_HAS_ENCRYPTED_METADATA);
    return cmp_binary(c, path, "encrypted_column_metadata", r->encrypted_column_metadata,
                      o->encrypted_column_metadata);
}

static int cmp_row_group(cmp_ctx *c, const char *path, const pqtRowGroup *r,
                         const pq_row_group *o)
{
    char p[PATH_CAP];
    guint n = r->columns ? r->columns->len : 0;
    if (n != o->columns_len)
        return differ(c, path, "columns", "c_glib %u entries, pqstep %u", n, o->columns_len);
    if (n && !o->columns) return differ(c, path, "columns", "pqstep array is NULL");
    for (guint i = 0; i < n; i++)
        TRY(cmp_chunk(c, subpath(p, path, "columns[%u]", i), g_ptr_array_index(r->columns, i),
                      o->columns[i]));
    CMP_INT("total_byte_size", r->total_byte_size, o->total_byte_size);
    CMP_INT("num_rows", r->num_rows, o->num_rows);
    CMP_HAS("sorting_columns", r->__isset_sorting_columns, o->set, PQ_RG_HAS_SORTING_COLUMNS);
    guint ns = r->sorting_columns ? r->sorting_columns->len : 0;
    if (ns != o->sorting_columns_len)
        return differ(c, path, "sorting_columns", "c_glib %u entries, pqstep %u", ns,
                      o->sorting_columns_len);
    if (ns && !o->sorting_columns)
        return differ(c, path, "sorting_columns", "pqstep array is NULL");
    for (guint i = 0; i < ns; i++) {
        const pqtSortingColumn *s = g_ptr_array_index(r->sorting_columns, i);
        const char *path2 = subpath(p, path, "sorting_columns[%u]", i);
        {
            const char *path = path2;
            CMP_INT("column_idx", s->column_idx, o->sorting_columns[i].column_idx);
            CMP_BOOL("descending", s->descending, o->sorting_columns[i].descending);
            CMP_BOOL("nulls_first", s->nulls_first, o->sorting_columns[i].nulls_first);
        }
    }
    CMP_HAS("file_offset", r->__isset_file_offset, o->set, PQ_RG_HAS_FILE_OFFSET);
    CMP_INT("file_offset", r->file_offset, o->file_offset);
    CMP_HAS("total_compressed_size", r->__isset_total_compressed_size, o->set,
            PQ_RG_HAS_TOTAL_COMPRESSED_SIZE);
    CMP_INT("total_compressed_size", r->total_compressed_size, o->total_compressed_size);
    CMP_HAS("ordinal", r->__isset_ordinal, o->set, PQ_RG_HAS_ORDINAL);
    CMP_INT("ordinal", r->ordinal, o->ordinal);
    return 0;
}

static int cmp_file(cmp_ctx *c, const pqtFileMetaData *r, const pq_file_metadata *o)
{
    const char *path = "";
    char p[PATH_CAP];
    CMP_INT("version", r->version, o->version);
    guint ns = r->schema ? r->schema->len : 0;
    if (ns != o->schema_len)
        return differ(c, path, "schema", "c_glib %u entries, pqstep %u", ns, o->schema_len);
    if (ns && !o->schema) return differ(c, path, "schema", "pqstep array is NULL");
    for (guint i = 0; i < ns; i++)
        TRY(cmp_element(c, subpath(p, path, "schema[%u]", i), g_ptr_array_index(r->schema, i),
                        &o->schema[i]));
    CMP_INT("num_rows", r->num_rows, o->num_rows);
    guint nrg = r->row_groups ? r->row_groups->len : 0;
    if (nrg != o->row_groups_len)
        return differ(c, path, "row_groups", "c_glib %u entries, pqstep %u", nrg, o->row_groups_len);
    if (nrg && !o->row_groups) return differ(c, path, "row_groups", "pqstep array is NULL");
    for (guint i = 0; i < nrg; i++)
        TRY(cmp_row_group(c, subpath(p, path, "row_groups[%u]", i),
                          g_ptr_array_index(r->row_groups, i), &o->row_groups[i]));
    CMP_HAS("key_value_metadata", r->__isset_key_value_metadata, o->set, PQ_FMD_HAS_KEY_VALUE);
    TRY(cmp_kv(c, path, "key_value_metadata", r->key_value_metadata, o->key_value_metadata,
               o->key_value_metadata_len));
    CMP_HAS("created_by", r->__isset_created_by, o->set, PQ_FMD_HAS_CREATED_BY);
    TRY(cmp_string(c, path, "created_by", r->created_by, o->created_by));
    CMP_HAS("column_orders", r->__isset_column_orders, o->set, PQ_FMD_HAS_COLUMN_ORDERS);
    guint nco = r->column_orders ? r->column_orders->len : 0;
    if (nco != o->column_orders_len)
        return differ(c, path, "column_orders", "c_glib %u entries, pqstep %u", nco,
                      o->column_orders_len);
    if (nco && !o->column_orders) return differ(c, path, "column_orders", "pqstep array is NULL");
    for (guint i = 0; i < nco; i++) {
        const pqtColumnOrder *co = g_ptr_array_index(r->column_orders, i);
        int want = co->__isset_TYPE_ORDER            ? PQ_COLUMN_ORDER_TYPE_DEFINED
                   : co->__isset_IEEE_754_TOTAL_ORDER ? PQ_COLUMN_ORDER_IEEE754_TOTAL
                                                      : PQ_COLUMN_ORDER_UNKNOWN;
        if (want != o->column_orders[i])
            return differ(c, path, subpath(p, "", "column_orders[%u]", i), "c_glib %d, pqstep %d",
                          want, o->column_orders[i]);
    }
    CMP_HAS("encryption_algorithm", r->__isset_encryption_algorithm, o->set,
            PQ_FMD_HAS_ENCRYPTION_ALGORITHM);
    if (r->__isset_encryption_algorithm) {
        const pqtEncryptionAlgorithm *ea = r->encryption_algorithm;
        int want = ea->__isset_AES_GCM_V1 ? 1 : ea->__isset_AES_GCM_CTR_V1 ? 2 : 0;
        /* A member unknown to the IDL: c_glib cannot say which; pqstep may
         * keep its id, just not a known one. */
        if (want ? want != o->encryption_algorithm
                 : (o->encryption_algorithm == 1 || o->encryption_algorithm == 2))
            return differ(c, path, "encryption_algorithm", "c_glib member %d, pqstep %d", want,
                          o->encryption_algorithm);
    } else {
        CMP_INT("encryption_algorithm", 0, o->encryption_algorithm);
    }
    CMP_HAS("footer_signing_key_metadata", r->__isset_footer_signing_key_metadata, o->set,
            PQ_FMD_HAS_FOOTER_SIGNING_KEY);
    return cmp_binary(c, path, "footer_signing_key_metadata", r->footer_signing_key_metadata,
                      o->footer_signing_key_metadata);
}

int pq_cglib_compare(const pqtFileMetaData *ref, const pq_file_metadata *ours, char *diff,
                     size_t cap)
{
    cmp_ctx c = {diff, cap};
    if (diff && cap) diff[0] = '\0';
    if (!ref || !ours) return differ(&c, "", "FileMetaData", "missing object");
    return cmp_file(&c, ref, ours);
}

/* ---------------------------------------------------------------------------
 * Spans inside the footer
 * ------------------------------------------------------------------------- */

typedef struct span_ctx {
    cmp_ctx c;
    const uint8_t *base;
    size_t len;
} span_ctx;

static int span_in(span_ctx *s, const char *path, const char *field, pq_bytes b)
{
    if (b.len == 0) return 0;
    uintptr_t lo = (uintptr_t)s->base, p = (uintptr_t)b.ptr;
    if (!b.ptr || p < lo || p - lo > s->len || b.len > s->len - (p - lo))
        return differ(&s->c, path, field, "span of %u bytes lies outside the footer", b.len);
    return 0;
}

static int spans_kv(span_ctx *s, const char *path, const pq_key_value *kv, uint32_t n)
{
    char p[PATH_CAP];
    for (uint32_t i = 0; i < n; i++) {
        TRY(span_in(s, path, subpath(p, "", "key_value_metadata[%u].key", i), kv[i].key));
        TRY(span_in(s, path, subpath(p, "", "key_value_metadata[%u].value", i), kv[i].value));
    }
    return 0;
}

int pq_check_spans_within(const pq_file_metadata *o, const uint8_t *base, size_t len, char *diff,
                          size_t cap)
{
    span_ctx s = {{diff, cap}, base, len};
    char p[PATH_CAP], q[PATH_CAP];
    if (diff && cap) diff[0] = '\0';
    for (uint32_t i = 0; i < o->schema_len; i++) {
        const pq_schema_element *e = &o->schema[i];
        subpath(p, "", "schema[%u]", i);
        TRY(span_in(&s, p, "name", e->name));
        TRY(span_in(&s, p, "logicalType.crs", e->logical.crs));
    }
    for (uint32_t g = 0; g < o->row_groups_len; g++) {
        const pq_row_group *rg = &o->row_groups[g];
        for (uint32_t k = 0; k < rg->columns_len; k++) {
            const pq_column_chunk *cc = rg->columns[k];
            const pq_column_meta *m = &cc->meta_data;
            subpath(p, "", "row_groups[%u].columns[%u]", g, k);
            TRY(span_in(&s, p, "file_path", cc->file_path));
            TRY(span_in(&s, p, "encrypted_column_metadata", cc->encrypted_column_metadata));
            subpath(q, p, "meta_data");
            for (uint32_t j = 0; j < m->path_in_schema_len; j++)
                TRY(span_in(&s, q, subpath(p, "", "path_in_schema[%u]", j), m->path_in_schema[j]));
            TRY(spans_kv(&s, q, m->key_value_metadata, m->key_value_metadata_len));
            TRY(span_in(&s, q, "statistics.max", m->statistics.max));
            TRY(span_in(&s, q, "statistics.min", m->statistics.min));
            TRY(span_in(&s, q, "statistics.max_value", m->statistics.max_value));
            TRY(span_in(&s, q, "statistics.min_value", m->statistics.min_value));
        }
    }
    TRY(spans_kv(&s, "", o->key_value_metadata, o->key_value_metadata_len));
    TRY(span_in(&s, "", "created_by", o->created_by));
    return span_in(&s, "", "footer_signing_key_metadata", o->footer_signing_key_metadata);
}

/* ---------------------------------------------------------------------------
 * Builders
 * ------------------------------------------------------------------------- */

void pq_cglib_set_bytes(GByteArray **field, const void *data, size_t len)
{
    if (!*field) *field = g_byte_array_new();
    g_byte_array_set_size(*field, 0);
    if (len) g_byte_array_append(*field, data, (guint)len);
}

pqtSchemaElement *pq_cglib_add_element(pqtFileMetaData *md, const char *name, int type,
                                       int repetition, int num_children)
{
    pq_cglib_init();
    pqtSchemaElement *e = g_object_new(PQT_TYPE_SCHEMA_ELEMENT, NULL);
    g_free(e->name);
    e->name = g_strdup(name);
    if (type >= 0) {
        e->type = (pqtType)type;
        e->__isset_type = TRUE;
    }
    if (repetition >= 0) {
        e->repetition_type = (pqtFieldRepetitionType)repetition;
        e->__isset_repetition_type = TRUE;
    }
    if (num_children >= 0) {
        e->num_children = num_children;
        e->__isset_num_children = TRUE;
    }
    g_ptr_array_add(md->schema, e);
    return e;
}

pqtRowGroup *pq_cglib_row_group(pqtFileMetaData *md, unsigned i)
{
    return g_ptr_array_index(md->row_groups, i);
}

pqtColumnChunk *pq_cglib_chunk(pqtFileMetaData *md, unsigned rg, unsigned col)
{
    return g_ptr_array_index(pq_cglib_row_group(md, rg)->columns, col);
}

pqtSchemaElement *pq_cglib_element(pqtFileMetaData *md, unsigned i)
{
    return g_ptr_array_index(md->schema, i);
}

pqtFileMetaData *pq_cglib_build_flat(unsigned ncols, unsigned nrg)
{
    pq_cglib_init();
    pqtFileMetaData *md = g_object_new(PQT_TYPE_FILE_META_DATA, NULL);
    md->version = 2;
    md->num_rows = 100 * (gint64)nrg;
    md->created_by = g_strdup("pqstep test builder");
    md->__isset_created_by = TRUE;
    pq_cglib_add_element(md, "schema", -1, -1, (int)ncols);
    for (unsigned i = 0; i < ncols; i++) {
        char name[32];
        snprintf(name, sizeof name, "c%u", i);
        pq_cglib_add_element(md, name, PQT_TYPE_INT64, PQT_FIELD_REPETITION_TYPE_OPTIONAL, -1);
    }
    gint64 offset = 4;
    for (unsigned g = 0; g < nrg; g++) {
        pqtRowGroup *rg = g_object_new(PQT_TYPE_ROW_GROUP, NULL);
        rg->num_rows = 100;
        rg->file_offset = offset;
        rg->__isset_file_offset = TRUE;
        for (unsigned i = 0; i < ncols; i++) {
            pqtColumnChunk *cc = g_object_new(PQT_TYPE_COLUMN_CHUNK, NULL);
            pqtColumnMetaData *m = cc->meta_data;
            cc->__isset_meta_data = TRUE;
            m->type = PQT_TYPE_INT64;
            gint32 encs[2] = {PQT_ENCODING_PLAIN, PQT_ENCODING_RLE};
            g_array_append_vals(m->encodings, encs, 2);
            char name[32];
            snprintf(name, sizeof name, "c%u", i);
            g_ptr_array_add(m->path_in_schema, g_strdup(name));
            m->codec = PQT_COMPRESSION_CODEC_UNCOMPRESSED;
            m->num_values = 100;
            m->total_uncompressed_size = 850;
            m->total_compressed_size = 850;
            m->data_page_offset = offset;
            cc->file_offset = offset + 850;
            gint64 lo = (gint64)i, hi = (gint64)i + 99;
            pq_cglib_set_bytes(&m->statistics->min_value, &lo, 8);
            m->statistics->__isset_min_value = TRUE;
            pq_cglib_set_bytes(&m->statistics->max_value, &hi, 8);
            m->statistics->__isset_max_value = TRUE;
            m->statistics->null_count = 0;
            m->statistics->__isset_null_count = TRUE;
            m->__isset_statistics = TRUE;
            offset += 850;
            rg->total_byte_size += 850;
            g_ptr_array_add(rg->columns, cc);
        }
        rg->total_compressed_size = rg->total_byte_size;
        rg->__isset_total_compressed_size = TRUE;
        rg->ordinal = (gint16)g;
        rg->__isset_ordinal = TRUE;
        g_ptr_array_add(md->row_groups, rg);
    }
    return md;
}
