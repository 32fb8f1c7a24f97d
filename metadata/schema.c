/*
 * schema.c — the schema tree, built from FileMetaData's flattened element
 * list (depth first, schema[0] is the root), with levels, leaf paths and the
 * Arrow type of every node as pyarrow maps it by default.
 *
 * The element list is untrusted. The walk is iterative with an explicit
 * stack, nesting is capped at PQ_SCHEMA_MAX_DEPTH, and every count is checked
 * against the elements that remain, so a hostile list costs O(n) time and
 * memory and ends in PQ_ERR_SCHEMA with the element named.
 *
 * Rules, where the spec leaves room:
 *  - An element with num_children > 0 is a group (any type field is ignored).
 *    With num_children == 0 it is a leaf when it has a type, else an empty
 *    group. With no num_children it must have a type (a leaf); pyarrow
 *    would read an element with neither as an empty group, we reject it.
 *  - The root's own repetition and type are ignored; a root without
 *    num_children has no columns.
 *  - A non-root element without repetition_type is REQUIRED (as pyarrow).
 *
 * Arrow types (pq_schema_node.arrow and pq_leaf.arrow):
 *  - pq_leaf.arrow is the type of the column's values: for `repeated int32 r`
 *    it is int32.
 *  - pq_schema_node.arrow is the type of the Arrow field the node stands for.
 *    An Arrow list spans two Parquet nodes: the LIST-annotated group (field
 *    name and nullability) and its repeated child (the repetition).
 *      * LIST-annotated group: LIST.
 *      * Its repeated child, when it is only structure (3-level list):
 *        LIST as well; the list element is then that child's only child.
 *      * Its repeated child, when the legacy rules make it the element
 *        itself (a primitive; a group with several fields; a group named
 *        "array" or "<list>_tuple"; a group whose only field is repeated):
 *        the element's type (the value type; STRUCT; or LIST / MAP when
 *        the group is itself so annotated, as pyarrow reads old Avro files).
 *      So the repeated child C of a LIST group is structural exactly when
 *      C says LIST and C's only child is not repeated (an element that is
 *      itself a list always has a repeated child).
 *      * MAP-annotated group (MAP, or converted MAP / MAP_KEY_VALUE): MAP,
 *        and its repeated key_value group is STRUCT (Arrow's map entries).
 *        With a key but no value, pyarrow reads a list of keys: the group is
 *        LIST and key_value is structural LIST, as for a 3-level list.
 *      * Any other repeated node is a list of itself: LIST (its element is
 *        the node's value type, or STRUCT for a group).
 *      * Other groups: STRUCT.
 *    LIST / MAP groups that break the spec's rules (several children, a
 *    non-repeated child, a repeated LIST group, an optional map key), which
 *    pyarrow refuses to read, are read as plain groups (STRUCT).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "metadata/error.h"
#include "metadata/metadata_internal.h"
#include "metadata/warnings.h"

/* Deepest nesting accepted; the root is depth 0. */
#define PQ_SCHEMA_MAX_DEPTH 256

/* Room for element names in error messages. */
#define NAME_IN_ERROR 64

/* ---------------------------------------------------------------------------
 * Logical types
 * ------------------------------------------------------------------------- */

static pq_logical_type logical_int(int bits, bool is_signed)
{
    pq_logical_type lt = {0};
    lt.kind = PQ_LOGICAL_INTEGER;
    lt.bit_width = (int8_t)bits;
    lt.is_signed = is_signed;
    return lt;
}

static pq_logical_type logical_time(uint8_t kind, uint8_t unit)
{
    pq_logical_type lt = {0};
    lt.kind = kind;
    lt.unit = unit;
    lt.is_adjusted_to_utc = true; /* the converted types are UTC-normalised */
    return lt;
}

pq_logical_type pq_logical_from_element(const pq_schema_element *el)
{
    pq_logical_type lt = {0};
    if (!el) return lt;
    bool has_lt = (el->set & PQ_SE_HAS_LOGICAL_TYPE) && el->logical.kind != PQ_LOGICAL_NONE;
    /* A logical type newer than us: fall back on the converted type written
     * beside it for older readers, when there is one. */
    if (has_lt && el->logical.kind != PQ_LOGICAL_FUTURE) return el->logical;
    if (!(el->set & PQ_SE_HAS_CONVERTED_TYPE) || el->converted_type == PQ_CT_NONE)
        return has_lt ? el->logical : lt;

    switch (el->converted_type) {
    case PQ_CT_UTF8: lt.kind = PQ_LOGICAL_STRING; break;
    case PQ_CT_MAP: lt.kind = PQ_LOGICAL_MAP; break;
    case PQ_CT_LIST: lt.kind = PQ_LOGICAL_LIST; break;
    case PQ_CT_ENUM: lt.kind = PQ_LOGICAL_ENUM; break;
    case PQ_CT_DECIMAL:
        lt.kind = PQ_LOGICAL_DECIMAL;
        lt.precision = (el->set & PQ_SE_HAS_PRECISION) ? el->precision : 0;
        lt.scale = (el->set & PQ_SE_HAS_SCALE) ? el->scale : 0;
        break;
    case PQ_CT_DATE: lt.kind = PQ_LOGICAL_DATE; break;
    case PQ_CT_TIME_MILLIS: return logical_time(PQ_LOGICAL_TIME, PQ_UNIT_MILLIS);
    case PQ_CT_TIME_MICROS: return logical_time(PQ_LOGICAL_TIME, PQ_UNIT_MICROS);
    case PQ_CT_TIMESTAMP_MILLIS: return logical_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_MILLIS);
    case PQ_CT_TIMESTAMP_MICROS: return logical_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_MICROS);
    case PQ_CT_UINT_8: return logical_int(8, false);
    case PQ_CT_UINT_16: return logical_int(16, false);
    case PQ_CT_UINT_32: return logical_int(32, false);
    case PQ_CT_UINT_64: return logical_int(64, false);
    case PQ_CT_INT_8: return logical_int(8, true);
    case PQ_CT_INT_16: return logical_int(16, true);
    case PQ_CT_INT_32: return logical_int(32, true);
    case PQ_CT_INT_64: return logical_int(64, true);
    case PQ_CT_JSON: lt.kind = PQ_LOGICAL_JSON; break;
    case PQ_CT_BSON: lt.kind = PQ_LOGICAL_BSON; break;
    case PQ_CT_NA: lt.kind = PQ_LOGICAL_UNKNOWN; break; /* obsolete: an all-null column */
    /* MAP_KEY_VALUE and INTERVAL have no logical type; unknown values are ignored. */
    default: return has_lt ? el->logical : lt;
    }
    return lt;
}

/* ---------------------------------------------------------------------------
 * Arrow types of leaves
 * ------------------------------------------------------------------------- */

static pq_arrow_type arrow_of(uint8_t id)
{
    pq_arrow_type at = {0};
    at.id = id;
    return at;
}

static pq_arrow_type applied(bool *applies, pq_arrow_type at)
{
    *applies = true;
    return at;
}

/* The type of a column with no usable annotation. */
static pq_arrow_type arrow_plain(const pq_schema_element *el)
{
    pq_arrow_type at = {0};
    switch (el->type) {
    case PQ_BOOLEAN: at.id = PQ_ARROW_BOOL; break;
    case PQ_INT32: at.id = PQ_ARROW_INT32; break;
    case PQ_INT64: at.id = PQ_ARROW_INT64; break;
    case PQ_INT96: /* legacy Impala/Spark timestamps */
        at.id = PQ_ARROW_TIMESTAMP;
        at.unit = PQ_UNIT_NANOS;
        break;
    case PQ_FLOAT: at.id = PQ_ARROW_FLOAT32; break;
    case PQ_DOUBLE: at.id = PQ_ARROW_FLOAT64; break;
    case PQ_BYTE_ARRAY: at.id = PQ_ARROW_BINARY; break;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        at.id = PQ_ARROW_FIXED_SIZE_BINARY;
        at.byte_width = el->type_length;
        break;
    default: at.id = PQ_ARROW_UNSUPPORTED; break;
    }
    return at;
}

/* Most decimal digits an n-byte two's complement integer always holds:
 * floor(log10(2^(8n-1) - 1)). */
static int32_t flba_max_precision(int32_t n)
{
    static const uint8_t digits[33] = {0,  2,  4,  6,  9,  11, 14, 16, 18, 21, 23,
                                       26, 28, 31, 33, 35, 38, 40, 43, 45, 47, 50,
                                       52, 55, 57, 59, 62, 64, 67, 69, 71, 74, 76};
    if (n <= 0) return 0;
    return n <= 32 ? digits[n] : 76;
}

/* pyarrow checks a logicalType's precision against the physical type and
 * ignores the annotation when it does not fit; a DECIMAL converted type is
 * only checked against decimal256's 76 digits. */
static bool decimal_fits(const pq_schema_element *el, const pq_logical_type *lt, bool from_logical)
{
    int32_t max;
    switch (el->type) {
    case PQ_INT32: max = 9; break;
    case PQ_INT64: max = 18; break;
    case PQ_FIXED_LEN_BYTE_ARRAY: max = flba_max_precision(el->type_length); break;
    case PQ_BYTE_ARRAY: max = 76; break;
    default: return false;
    }
    if (!from_logical) max = 76;
    return lt->precision >= 1 && lt->precision <= max && lt->scale >= 0 &&
           lt->scale <= lt->precision;
}

/* Does the logicalType (rather than the converted type) give `lt`? */
static bool logical_from_logical(const pq_schema_element *el, const pq_logical_type *lt)
{
    return (el->set & PQ_SE_HAS_LOGICAL_TYPE) && el->logical.kind == lt->kind && lt->kind != PQ_LOGICAL_NONE;
}

/* A converted type this library knows (PQ_CT_NA included). */
static bool converted_known(int32_t ct)
{
    return (ct >= PQ_CT_UTF8 && ct <= PQ_CT_INTERVAL) || ct == PQ_CT_NA;
}

static bool has_converted(const pq_schema_element *el)
{
    return (el->set & PQ_SE_HAS_CONVERTED_TYPE) && el->converted_type != PQ_CT_NONE;
}

/* The Arrow type of a leaf whose annotation in effect is `lt`
 * (pq_logical_from_element). *applies is false when the leaf carries an
 * annotation that cannot apply to its physical type: the type returned is
 * then the physical type's own (the lenient rule: the storage wins). */
static pq_arrow_type arrow_leaf(const pq_schema_element *el, const pq_logical_type *ltp, bool *applies)
{
    pq_arrow_type plain = arrow_plain(el);
    pq_logical_type lt = *ltp;
    bool from_logical = logical_from_logical(el, &lt);
    pq_arrow_type at = {0};
    int32_t t = el->type;

    *applies = false;
    switch (lt.kind) {
    case PQ_LOGICAL_NONE:
        /* no annotation, or converted types without a logical equivalent */
        if (!has_converted(el)) return applied(applies, plain);
        if (el->converted_type == PQ_CT_INTERVAL) /* pyarrow reads it as fixed_size_binary(12) */
            *applies = t == PQ_FIXED_LEN_BYTE_ARRAY && el->type_length == 12;
        return plain; /* MAP_KEY_VALUE on a leaf, an unknown value: set aside */
    case PQ_LOGICAL_STRING:
        if (t == PQ_BYTE_ARRAY) return applied(applies, arrow_of(PQ_ARROW_STRING));
        break;
    case PQ_LOGICAL_JSON:
        /* pyarrow (19 and later) reads JSON as extension<arrow.json> over string. */
        if (t == PQ_BYTE_ARRAY) return applied(applies, arrow_of(PQ_ARROW_EXTENSION_JSON));
        break;
    case PQ_LOGICAL_ENUM: /* pyarrow reads ENUM as binary */
    case PQ_LOGICAL_BSON:
        if (t == PQ_BYTE_ARRAY) return applied(applies, arrow_of(PQ_ARROW_BINARY));
        break;
    case PQ_LOGICAL_GEOMETRY: /* WKB in a binary column */
    case PQ_LOGICAL_GEOGRAPHY:
        if (t == PQ_BYTE_ARRAY) return applied(applies, plain);
        break;
    case PQ_LOGICAL_UUID:
        if (t == PQ_FIXED_LEN_BYTE_ARRAY && el->type_length == 16) {
            at.id = PQ_ARROW_EXTENSION_UUID;
            at.byte_width = 16;
            return applied(applies, at);
        }
        break;
    case PQ_LOGICAL_FLOAT16:
        if (t == PQ_FIXED_LEN_BYTE_ARRAY && el->type_length == 2)
            return applied(applies, arrow_of(PQ_ARROW_FLOAT16));
        break;
    case PQ_LOGICAL_DATE:
        if (t == PQ_INT32) return applied(applies, arrow_of(PQ_ARROW_DATE32));
        break;
    case PQ_LOGICAL_TIME:
        if (t == PQ_INT32 && lt.unit == PQ_UNIT_MILLIS) at.id = PQ_ARROW_TIME32;
        else if (t == PQ_INT64 && (lt.unit == PQ_UNIT_MICROS || lt.unit == PQ_UNIT_NANOS))
            at.id = PQ_ARROW_TIME64;
        else break;
        at.unit = lt.unit;
        return applied(applies, at);
    case PQ_LOGICAL_TIMESTAMP:
        if (t == PQ_INT64 && lt.unit >= PQ_UNIT_MILLIS && lt.unit <= PQ_UNIT_NANOS) {
            at.id = PQ_ARROW_TIMESTAMP;
            at.unit = lt.unit;
            at.utc = lt.is_adjusted_to_utc;
            return applied(applies, at);
        }
        break;
    case PQ_LOGICAL_INTEGER: {
        static const uint8_t ids[2][4] = {
            {PQ_ARROW_UINT8, PQ_ARROW_UINT16, PQ_ARROW_UINT32, PQ_ARROW_UINT64},
            {PQ_ARROW_INT8, PQ_ARROW_INT16, PQ_ARROW_INT32, PQ_ARROW_INT64}};
        int w = lt.bit_width;
        int k = w == 8 ? 0 : w == 16 ? 1 : w == 32 ? 2 : w == 64 ? 3 : -1;
        if (k < 0) break;
        if ((k < 3 && t == PQ_INT32) || (k == 3 && t == PQ_INT64))
            return applied(applies, arrow_of(ids[lt.is_signed][k]));
        break;
    }
    case PQ_LOGICAL_DECIMAL:
        if (decimal_fits(el, &lt, from_logical)) {
            at.id = lt.precision <= 38 ? PQ_ARROW_DECIMAL128 : PQ_ARROW_DECIMAL256;
            at.precision = lt.precision;
            at.scale = lt.scale;
            return applied(applies, at);
        }
        break;
    case PQ_LOGICAL_FUTURE:
        /* A union member newer than this library, with no converted type to
         * fall back on: the format's way to evolve, which readers are to
         * ignore (parquet-testing's unknown-logical-type.parquet): no warning. */
        return applied(applies, plain);
    case PQ_LOGICAL_UNKNOWN: /* always null, whatever the physical type */
        return applied(applies, arrow_of(PQ_ARROW_NA));
    default: /* VARIANT, LIST or MAP on a leaf */
        break;
    }
    return plain;
}

/* The annotation `lt` of `el` as a warning names it: "INT_8",
 * "DECIMAL(10,2)", "logicalType DATE". */
static void annotation_text(const pq_schema_element *el, const pq_logical_type *lt, char *buf, size_t cap)
{
    if (logical_from_logical(el, lt)) {
        char t[96];
        pq_logical_type_format(lt, t, sizeof t);
        snprintf(buf, cap, "logicalType %s", t);
    } else if (lt->kind == PQ_LOGICAL_DECIMAL) {
        snprintf(buf, cap, "DECIMAL(%d,%d)", (int)lt->precision, (int)lt->scale);
    } else {
        snprintf(buf, cap, "%s", pq_converted_type_name(el->converted_type));
    }
}

static void storage_text(const pq_schema_element *el, char *buf, size_t cap)
{
    if (el->type == PQ_FIXED_LEN_BYTE_ARRAY)
        snprintf(buf, cap, "FIXED_LEN_BYTE_ARRAY(%d)", (int)el->type_length);
    else
        snprintf(buf, cap, "%s", pq_physical_type_name(el->type));
}

/* Give every leaf its annotation in effect and its Arrow type; an
 * annotation that cannot apply, or that this library does not know, is set
 * aside with a warning. */
static pq_status type_leaves(const pq_schema_node *nodes, pq_leaf *leaves, uint32_t n, pq_warnings *w,
                             pq_error *err)
{
    for (uint32_t i = 0; i < n; i++) {
        pq_leaf *lf = &leaves[i];
        const pq_schema_element *el = nodes[lf->node].element;
        bool applies = true;
        lf->logical = pq_logical_from_element(el);
        lf->arrow = arrow_leaf(el, &lf->logical, &applies);
        char arrow[64], what[128], storage[48];
        pq_arrow_type_format(&lf->arrow, arrow, sizeof arrow);
        pq_status st = PQ_OK;
        bool unknown_ct = (el->set & PQ_SE_HAS_CONVERTED_TYPE) && !converted_known(el->converted_type);
        if (unknown_ct)
            st = pq_warnings_add(w, err, "column '%s': unknown converted_type %d ignored: read as %s", lf->path,
                                 (int)el->converted_type, arrow);
        if (st == PQ_OK && !applies && !(unknown_ct && lf->logical.kind == PQ_LOGICAL_NONE)) {
            annotation_text(el, &lf->logical, what, sizeof what);
            storage_text(el, storage, sizeof storage);
            st = pq_warnings_add(w, err, "column '%s': annotation %s cannot apply to %s storage: read as %s",
                                 lf->path, what, storage, arrow);
        }
        if (st != PQ_OK) return st;
        if (!applies) memset(&lf->logical, 0, sizeof lf->logical); /* read as if unannotated */
    }
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Building the tree
 * ------------------------------------------------------------------------- */

/* How a node's parent sees it (see the header comment). */
enum {
    ROLE_FIELD = 0,      /* an ordinary field */
    ROLE_STRUCTURAL = 1, /* the repeated middle of a list: no field of its own */
    ROLE_ELEMENT = 2,    /* a repeated child that is itself the list element */
    ROLE_ENTRIES = 3     /* the key_value group of a map */
};

static int name_len(const pq_schema_element *el)
{
    return el->name.len > NAME_IN_ERROR ? NAME_IN_ERROR : (int)el->name.len;
}

static const char *name_ptr(const pq_schema_element *el)
{
    return el->name.ptr ? (const char *)el->name.ptr : "";
}

#define EL_FMT "schema[%u] '%.*s': "
#define EL_ARGS(i, el) (unsigned)(i), name_len(el), name_ptr(el)

static int32_t repetition_of(const pq_schema_element *el)
{
    return (el->set & PQ_SE_HAS_REPETITION) ? el->repetition : PQ_REQUIRED;
}

/* Is element `i` a group? Fails on elements that are neither. */
static pq_status classify(const pq_schema_element *el, uint32_t i, bool *is_group, pq_error *err)
{
    if (el->set & PQ_SE_HAS_NUM_CHILDREN) {
        if (el->num_children < 0)
            return pq_error_set(err, PQ_ERR_SCHEMA, EL_FMT "negative num_children %d",
                                EL_ARGS(i, el), (int)el->num_children);
        *is_group = el->num_children > 0 || !(el->set & PQ_SE_HAS_TYPE);
        return PQ_OK;
    }
    if (!(el->set & PQ_SE_HAS_TYPE))
        return pq_error_set(err, PQ_ERR_SCHEMA,
                            EL_FMT "neither num_children nor a physical type: not a group nor a leaf",
                            EL_ARGS(i, el));
    *is_group = false;
    return PQ_OK;
}

static pq_status check_leaf(const pq_schema_element *el, uint32_t i, pq_error *err)
{
    if (el->type < PQ_BOOLEAN || el->type > PQ_FIXED_LEN_BYTE_ARRAY)
        return pq_error_set(err, PQ_ERR_SCHEMA, EL_FMT "invalid physical type %d", EL_ARGS(i, el),
                            (int)el->type);
    if (el->type == PQ_FIXED_LEN_BYTE_ARRAY &&
        (!(el->set & PQ_SE_HAS_TYPE_LENGTH) || el->type_length <= 0))
        return pq_error_set(err, PQ_ERR_SCHEMA,
                            EL_FMT "FIXED_LEN_BYTE_ARRAY needs a type_length > 0 (got %d)",
                            EL_ARGS(i, el),
                            (el->set & PQ_SE_HAS_TYPE_LENGTH) ? (int)el->type_length : 0);
    return PQ_OK;
}

static bool is_list_group(const pq_schema_element *el)
{
    return pq_logical_from_element(el).kind == PQ_LOGICAL_LIST;
}

static bool is_map_group(const pq_schema_element *el)
{
    if (pq_logical_from_element(el).kind == PQ_LOGICAL_MAP) return true;
    /* MAP_KEY_VALUE was often written on the map group itself */
    return !((el->set & PQ_SE_HAS_LOGICAL_TYPE) && el->logical.kind != PQ_LOGICAL_NONE) &&
           (el->set & PQ_SE_HAS_CONVERTED_TYPE) && el->converted_type == PQ_CT_MAP_KEY_VALUE;
}

static bool node_repeated(const pq_schema_node *n)
{
    return repetition_of(n->element) == PQ_REPEATED;
}

/* The backward-compatibility rules for LIST: is the repeated child `c` of
 * list group `g` the element itself, rather than a wrapper around it? */
static bool list_child_is_element(const pq_schema_node *nodes, const pq_schema_node *g,
                                  const pq_schema_node *c)
{
    if (c->leaf_index >= 0 || c->num_children != 1) return true;
    if (strcmp(c->name, "array") == 0) return true;
    size_t gl = strlen(g->name);
    if (strncmp(c->name, g->name, gl) == 0 && strcmp(c->name + gl, "_tuple") == 0) return true;
    return node_repeated(&nodes[c->children[0]]);
}

/* Give group `g` its Arrow type and its children their roles. A repeated
 * group is a plain struct, except when it is a list element: then its own
 * annotation counts (old Avro files nest lists as `repeated group array
 * (LIST)`), since the list above it takes its repetition. */
static void type_group(pq_schema_node *nodes, uint8_t *role, pq_schema_node *g, bool is_element)
{
    g->arrow = arrow_of(PQ_ARROW_STRUCT);
    if ((node_repeated(g) && !is_element) || g->num_children != 1) return;
    pq_schema_node *c = &nodes[g->children[0]];
    if (!node_repeated(c)) return;

    if (is_list_group(g->element)) {
        g->arrow = arrow_of(PQ_ARROW_LIST);
        role[g->children[0]] = list_child_is_element(nodes, g, c) ? ROLE_ELEMENT : ROLE_STRUCTURAL;
    } else if (is_map_group(g->element)) {
        if (c->leaf_index >= 0 || c->num_children < 1 || c->num_children > 2) return;
        if (repetition_of(nodes[c->children[0]].element) != PQ_REQUIRED) return; /* the key */
        if (c->num_children == 2) {
            g->arrow = arrow_of(PQ_ARROW_MAP);
            role[g->children[0]] = ROLE_ENTRIES;
        } else { /* keys only: pyarrow reads a list of keys */
            g->arrow = arrow_of(PQ_ARROW_LIST);
            role[g->children[0]] = ROLE_STRUCTURAL;
        }
    }
}

/* Parents come before children in the element list, so one forward pass
 * settles each node's role before the node is typed. Leaves have their
 * Arrow types already. */
static void assign_arrow_types(pq_schema_node *nodes, uint32_t n, uint8_t *role, pq_leaf *leaves)
{
    nodes[0].arrow = arrow_of(PQ_ARROW_STRUCT);
    for (uint32_t i = 1; i < n; i++) {
        pq_schema_node *nd = &nodes[i];
        bool leaf = nd->leaf_index >= 0; /* typed already (type_leaves) */
        switch (role[i]) {
        case ROLE_STRUCTURAL: nd->arrow = arrow_of(PQ_ARROW_LIST); break;
        case ROLE_ENTRIES: nd->arrow = arrow_of(PQ_ARROW_STRUCT); break;
        case ROLE_ELEMENT: /* repeated, but its parent is the list */
            if (leaf) nd->arrow = leaves[nd->leaf_index].arrow;
            else type_group(nodes, role, nd, true);
            break;
        default:
            if (node_repeated(nd)) nd->arrow = arrow_of(PQ_ARROW_LIST);
            else if (leaf) nd->arrow = leaves[nd->leaf_index].arrow;
            else type_group(nodes, role, nd, false);
            break;
        }
    }
}

static pq_status nomem(pq_error *err)
{
    return pq_error_set(err, PQ_ERR_NOMEM, "out of memory building the schema tree");
}

/* Leaf paths cost the sum of their lengths, which a small hostile footer can
 * make huge (one long name above many leaves, or deep nesting): they may take
 * PATH_BYTES_FACTOR times the bytes of all names, or PATH_BYTES_FLOOR. */
#define PATH_BYTES_FLOOR ((uint64_t)64 << 20)
#define PATH_BYTES_FACTOR 64

/* Fill every leaf's dotted path ("a.b.c": the names below the root). */
static pq_status build_paths(pq_arena *arena, const pq_schema_node *nodes, uint32_t n,
                             pq_leaf *leaves, pq_error *err)
{
    /* path length of each node; parents come before their children */
    uint64_t *len = pq_arena_alloc(arena, (size_t)n * sizeof *len);
    if (!len) return nomem(err);
    uint64_t names = 0, total = 0;
    len[0] = 0;
    for (uint32_t i = 1; i < n; i++) {
        uint64_t l = strlen(nodes[i].name);
        names += l + 1;
        len[i] = (nodes[i].parent > 0 ? len[nodes[i].parent] + 1 : 0) + l;
    }
    uint64_t cap = names * PATH_BYTES_FACTOR;
    if (cap < PATH_BYTES_FLOOR) cap = PATH_BYTES_FLOOR;
    for (uint32_t i = 1; i < n && total <= cap; i++)
        if (nodes[i].leaf_index >= 0) total += len[i] + 1;
    if (total > cap || total > SIZE_MAX)
        return pq_error_set(err, PQ_ERR_MEMORY_LIMIT,
                            "schema: the leaf paths would take over %" PRIu64
                            " bytes (the limit is 64 times the bytes of all names, at least 64 MiB)",
                            cap);

    char *buf = pq_arena_alloc(arena, total ? (size_t)total : 1);
    if (!buf) return nomem(err);
    for (uint32_t i = 1; i < n; i++) {
        if (nodes[i].leaf_index < 0) continue;
        char *path = buf;
        size_t end = (size_t)len[i];
        buf += end + 1;
        path[end] = '\0';
        for (int32_t j = (int32_t)i; j > 0; j = nodes[j].parent) {
            size_t l = strlen(nodes[j].name);
            end -= l;
            memcpy(path + end, nodes[j].name, l);
            if (end) path[--end] = '.';
        }
        leaves[nodes[i].leaf_index].path = path;
    }
    return PQ_OK;
}

pq_status pq_schema_build(pq_arena *arena, const pq_file_metadata *file, pq_schema *out,
                          pq_warnings *warnings, pq_error *err)
{
    if (!arena || !file || !out)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_schema_build: NULL argument");
    memset(out, 0, sizeof *out);
    uint32_t n = file->schema_len;
    const pq_schema_element *els = file->schema;
    if (n == 0 || !els) return pq_error_set(err, PQ_ERR_SCHEMA, "schema is empty: no root element");

    pq_schema_node *nodes = pq_arena_calloc(arena, n, sizeof *nodes);
    uint8_t *role = pq_arena_calloc(arena, n, 1);
    if (!nodes || !role) return nomem(err);

    /* open groups: node index and children still to come */
    int32_t stack_node[PQ_SCHEMA_MAX_DEPTH + 1];
    int32_t stack_left[PQ_SCHEMA_MAX_DEPTH + 1];
    uint32_t sp = 0, leaves_len = 0;

    for (uint32_t i = 0; i < n; i++) {
        const pq_schema_element *el = &els[i];
        pq_schema_node *nd = &nodes[i];
        bool is_group = true;
        nd->element = el;
        nd->leaf_index = -1;

        if (i == 0) {
            nd->parent = -1;
            nd->num_children = (el->set & PQ_SE_HAS_NUM_CHILDREN) ? el->num_children : 0;
            if (nd->num_children < 0)
                return pq_error_set(err, PQ_ERR_SCHEMA, EL_FMT "negative num_children %d",
                                    EL_ARGS(i, el), (int)nd->num_children);
        } else {
            if (sp == 0)
                return pq_error_set(err, PQ_ERR_SCHEMA,
                                    EL_FMT "outside the tree: the root's %d children end at "
                                           "schema[%u], %u elements are left over",
                                    EL_ARGS(i, el), (int)nodes[0].num_children, i - 1, n - i);
            pq_schema_node *parent = &nodes[stack_node[sp - 1]];
            if (parent->depth >= PQ_SCHEMA_MAX_DEPTH)
                return pq_error_set(err, PQ_ERR_SCHEMA, EL_FMT "nested deeper than %d levels",
                                    EL_ARGS(i, el), PQ_SCHEMA_MAX_DEPTH);
            int32_t rep = repetition_of(el);
            if (rep < PQ_REQUIRED || rep > PQ_REPEATED)
                return pq_error_set(err, PQ_ERR_SCHEMA, EL_FMT "invalid repetition_type %d",
                                    EL_ARGS(i, el), (int)rep);
            pq_status st = classify(el, i, &is_group, err);
            if (st != PQ_OK) return st;
            if (!is_group && (st = check_leaf(el, i, err)) != PQ_OK) return st;

            int32_t slot = parent->num_children - stack_left[sp - 1]--;
            ((int32_t *)parent->children)[slot] = (int32_t)i;
            nd->parent = stack_node[sp - 1];
            nd->depth = (int16_t)(parent->depth + 1);
            nd->max_def = (int16_t)(parent->max_def + (rep != PQ_REQUIRED));
            nd->max_rep = (int16_t)(parent->max_rep + (rep == PQ_REPEATED));
            nd->num_children = is_group ? el->num_children : 0;
            if (!is_group) nd->leaf_index = (int32_t)leaves_len++;
        }

        nd->name = pq_arena_strndup(arena, name_ptr(el), el->name.ptr ? el->name.len : 0);
        if (!nd->name) return nomem(err);

        if (nd->num_children > 0) {
            if ((uint32_t)nd->num_children > n - 1 - i)
                return pq_error_set(err, PQ_ERR_SCHEMA,
                                    EL_FMT "num_children %d exceeds the remaining %u elements",
                                    EL_ARGS(i, el), (int)nd->num_children, n - 1 - i);
            nd->children = pq_arena_alloc(arena, (size_t)nd->num_children * sizeof(int32_t));
            if (!nd->children) return nomem(err);
            stack_node[sp] = (int32_t)i;
            stack_left[sp] = nd->num_children;
            sp++;
        } else {
            while (sp > 0 && stack_left[sp - 1] == 0) sp--;
        }
    }
    if (sp > 0) {
        int32_t g = stack_node[sp - 1];
        return pq_error_set(err, PQ_ERR_SCHEMA,
                            EL_FMT "num_children %d, but the list ends after %d of them",
                            EL_ARGS(g, &els[g]), (int)nodes[g].num_children,
                            (int)(nodes[g].num_children - stack_left[sp - 1]));
    }

    pq_leaf *leaves = pq_arena_calloc(arena, leaves_len ? leaves_len : 1, sizeof *leaves);
    if (!leaves) return nomem(err);
    for (uint32_t i = 1; i < n; i++) {
        const pq_schema_node *nd = &nodes[i];
        if (nd->leaf_index < 0) continue;
        pq_leaf *lf = &leaves[nd->leaf_index];
        const pq_schema_element *el = nd->element;
        lf->node = (int32_t)i;
        lf->max_def = nd->max_def;
        lf->max_rep = nd->max_rep;
        lf->physical_type = el->type;
        lf->type_length = (el->set & PQ_SE_HAS_TYPE_LENGTH) ? el->type_length : 0;
    }
    pq_status st = build_paths(arena, nodes, n, leaves, err);
    if (st == PQ_OK) st = type_leaves(nodes, leaves, leaves_len, warnings, err);
    if (st != PQ_OK) return st;
    assign_arrow_types(nodes, n, role, leaves);

    out->nodes = nodes;
    out->nodes_len = n;
    out->leaves = leaves;
    out->leaves_len = leaves_len;
    return PQ_OK;
}
