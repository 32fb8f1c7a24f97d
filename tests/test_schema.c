/*
 * test_schema.c — the schema tree built from hand-made element lists:
 * shape, levels, dotted paths, rejection of broken trees, the derived
 * logical types, and the Arrow type of each node as pyarrow reads it.
 *
 * Expected Arrow strings are what str(field.type) printed in pyarrow 26 for
 * the same element lists (written into zero-row files by hand); levels and
 * paths are computed by hand from the Parquet spec.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"
#include "test_util.h"

/* The tests need the library's internal schema builder. */
#if defined(__has_include)
#if __has_include("metadata/metadata_internal.h")
#define PQ_TEST_HAVE_INTERNAL_PATH 1
#endif
#endif
#ifdef PQ_TEST_HAVE_INTERNAL_PATH
#include "metadata/metadata_internal.h"
#else
/* The repository root is not on this target's include path: declare the two
 * internal functions (metadata/metadata_internal.h) ourselves. */
#include "../metadata/arena.h"
typedef struct pq_warnings pq_warnings;
pq_status pq_schema_build(pq_arena *arena, const pq_file_metadata *file, pq_schema *out,
                          pq_warnings *warnings, pq_error *err);
pq_logical_type pq_logical_from_element(const pq_schema_element *el);
#endif

/* ---------------------------------------------------------------------------
 * Element builders
 * ------------------------------------------------------------------------- */

static pq_bytes span(const char *s)
{
    pq_bytes b = {(const uint8_t *)s, (uint32_t)strlen(s)};
    return b;
}

static pq_schema_element root(int n)
{
    pq_schema_element e = {0};
    e.name = span("schema");
    e.num_children = n;
    e.converted_type = PQ_CT_NONE;
    e.set = PQ_SE_HAS_NUM_CHILDREN;
    return e;
}

static pq_schema_element group(const char *name, int rep, int n)
{
    pq_schema_element e = {0};
    e.name = span(name);
    e.repetition = rep;
    e.num_children = n;
    e.converted_type = PQ_CT_NONE;
    e.set = PQ_SE_HAS_NUM_CHILDREN | PQ_SE_HAS_REPETITION;
    return e;
}

static pq_schema_element leaf(const char *name, int rep, int type)
{
    pq_schema_element e = {0};
    e.name = span(name);
    e.repetition = rep;
    e.type = type;
    e.converted_type = PQ_CT_NONE;
    e.set = PQ_SE_HAS_TYPE | PQ_SE_HAS_REPETITION;
    return e;
}

static pq_schema_element flba(const char *name, int len)
{
    pq_schema_element e = leaf(name, PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY);
    e.type_length = len;
    e.set |= PQ_SE_HAS_TYPE_LENGTH;
    return e;
}

static pq_schema_element with_ct(pq_schema_element e, int ct)
{
    e.converted_type = ct;
    e.set |= PQ_SE_HAS_CONVERTED_TYPE;
    return e;
}

static pq_schema_element with_ct_decimal(pq_schema_element e, int precision, int scale)
{
    e = with_ct(e, PQ_CT_DECIMAL);
    e.precision = precision;
    e.scale = scale;
    e.set |= PQ_SE_HAS_PRECISION | PQ_SE_HAS_SCALE;
    return e;
}

static pq_schema_element with_lt(pq_schema_element e, pq_logical_type lt)
{
    e.logical = lt;
    e.set |= PQ_SE_HAS_LOGICAL_TYPE;
    return e;
}

static pq_logical_type lt_kind(int kind)
{
    pq_logical_type lt = {0};
    lt.kind = (uint8_t)kind;
    return lt;
}

static pq_logical_type lt_time(int kind, int unit, bool utc)
{
    pq_logical_type lt = lt_kind(kind);
    lt.unit = (uint8_t)unit;
    lt.is_adjusted_to_utc = utc;
    return lt;
}

static pq_logical_type lt_int(int bits, bool is_signed)
{
    pq_logical_type lt = lt_kind(PQ_LOGICAL_INTEGER);
    lt.bit_width = (int8_t)bits;
    lt.is_signed = is_signed;
    return lt;
}

static pq_logical_type lt_decimal(int precision, int scale)
{
    pq_logical_type lt = lt_kind(PQ_LOGICAL_DECIMAL);
    lt.precision = precision;
    lt.scale = scale;
    return lt;
}

/* ---------------------------------------------------------------------------
 * Fixture: one arena per test
 * ------------------------------------------------------------------------- */

static pq_arena arena;
static pq_schema schema;
static pq_error err;

static void setup(void)
{
    pq_arena_init(&arena, 4096);
    memset(&schema, 0, sizeof schema);
    memset(&err, 0, sizeof err);
}

static void teardown(void)
{
    pq_arena_free(&arena);
}

static pq_status build_n(const pq_schema_element *els, uint32_t n)
{
    pq_file_metadata file = {0};
    file.schema = els;
    file.schema_len = n;
    return pq_schema_build(&arena, &file, &schema, NULL, &err);
}

#define BUILD(els) build_n(els, (uint32_t)(sizeof(els) / sizeof(els[0])))

#define ASSERT_BUILDS(els)                                                                  \
    do {                                                                                    \
        pq_status st_ = BUILD(els);                                                         \
        ck_assert_msg(st_ == PQ_OK, "pq_schema_build failed: %s", err.message);             \
    } while (0)

/* Fails with PQ_ERR_SCHEMA and a message containing `part`. */
#define ASSERT_SCHEMA_ERROR(els, part)                                                      \
    do {                                                                                    \
        pq_status st_ = BUILD(els);                                                         \
        ck_assert_int_eq(st_, PQ_ERR_SCHEMA);                                               \
        ck_assert_int_eq(err.code, PQ_ERR_SCHEMA);                                          \
        ck_assert_msg(strstr(err.message, part) != NULL, "message '%s' lacks '%s'",         \
                      err.message, part);                                                   \
    } while (0)

static const char *arrow_str(const pq_arrow_type *at)
{
    static char buf[128];
    size_t n = pq_arrow_type_format(at, buf, sizeof buf);
    ck_assert_uint_lt(n, sizeof buf);
    return buf;
}

static const char *node_arrow(int32_t node)
{
    return arrow_str(&schema.nodes[node].arrow);
}

static const char *leaf_arrow(uint32_t leaf)
{
    return arrow_str(&schema.leaves[leaf].arrow);
}

static void assert_leaf(uint32_t i, const char *path, int def, int rep, const char *arrow)
{
    ck_assert_uint_lt(i, schema.leaves_len);
    const pq_leaf *lf = &schema.leaves[i];
    ck_assert_str_eq(lf->path, path);
    ck_assert_int_eq(lf->max_def, def);
    ck_assert_int_eq(lf->max_rep, rep);
    ck_assert_str_eq(leaf_arrow(i), arrow);
    /* the leaf and its node agree */
    const pq_schema_node *nd = &schema.nodes[lf->node];
    ck_assert_int_eq(nd->leaf_index, (int)i);
    ck_assert_int_eq(nd->max_def, def);
    ck_assert_int_eq(nd->max_rep, rep);
    ck_assert_int_eq(nd->num_children, 0);
}

/* ---------------------------------------------------------------------------
 * Shapes
 * ------------------------------------------------------------------------- */

START_TEST(flat)
{
    pq_schema_element els[] = {
        root(3),
        leaf("id", PQ_REQUIRED, PQ_INT64),
        with_lt(leaf("name", PQ_OPTIONAL, PQ_BYTE_ARRAY), lt_kind(PQ_LOGICAL_STRING)),
        leaf("score", PQ_OPTIONAL, PQ_DOUBLE),
    };
    ASSERT_BUILDS(els);
    ck_assert_uint_eq(schema.nodes_len, 4);
    ck_assert_uint_eq(schema.leaves_len, 3);

    const pq_schema_node *r = &schema.nodes[0];
    ck_assert_str_eq(r->name, "schema");
    ck_assert_int_eq(r->parent, -1);
    ck_assert_int_eq(r->leaf_index, -1);
    ck_assert_int_eq(r->depth, 0);
    ck_assert_int_eq(r->max_def, 0);
    ck_assert_int_eq(r->num_children, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(r->children[i], i + 1);
        ck_assert_int_eq(schema.nodes[i + 1].parent, 0);
        ck_assert_int_eq(schema.nodes[i + 1].depth, 1);
        ck_assert_ptr_eq(schema.nodes[i + 1].element, &els[i + 1]);
        ck_assert_int_eq(schema.leaves[i].node, i + 1);
    }
    ck_assert_str_eq(schema.nodes[2].name, "name");
    assert_leaf(0, "id", 0, 0, "int64");
    assert_leaf(1, "name", 1, 0, "string");
    assert_leaf(2, "score", 1, 0, "double");
    ck_assert_int_eq(schema.leaves[1].physical_type, PQ_BYTE_ARRAY);
    ck_assert_int_eq(schema.leaves[1].logical.kind, PQ_LOGICAL_STRING);
    ck_assert_int_eq(schema.leaves[0].logical.kind, PQ_LOGICAL_NONE);
}
END_TEST

START_TEST(nested_struct)
{
    /* s: optional { x: required int32, t: optional { y: optional int32 } }, z: required bool */
    pq_schema_element els[] = {
        root(2),
        group("s", PQ_OPTIONAL, 2),
        leaf("x", PQ_REQUIRED, PQ_INT32),
        group("t", PQ_OPTIONAL, 1),
        leaf("y", PQ_OPTIONAL, PQ_INT32),
        leaf("z", PQ_REQUIRED, PQ_BOOLEAN),
    };
    ASSERT_BUILDS(els);
    ck_assert_uint_eq(schema.leaves_len, 3);
    assert_leaf(0, "s.x", 1, 0, "int32");
    assert_leaf(1, "s.t.y", 3, 0, "int32");
    assert_leaf(2, "z", 0, 0, "bool");
    ck_assert_int_eq(schema.nodes[0].num_children, 2);
    ck_assert_int_eq(schema.nodes[0].children[0], 1);
    ck_assert_int_eq(schema.nodes[0].children[1], 5);
    ck_assert_int_eq(schema.nodes[1].children[0], 2);
    ck_assert_int_eq(schema.nodes[1].children[1], 3);
    ck_assert_int_eq(schema.nodes[4].parent, 3);
    ck_assert_int_eq(schema.nodes[4].depth, 3);
    ck_assert_int_eq(schema.nodes[3].max_def, 2);
    ck_assert_int_eq(schema.nodes[1].leaf_index, -1);
    ck_assert_str_eq(node_arrow(1), "struct");
    ck_assert_str_eq(node_arrow(3), "struct");
    ck_assert_str_eq(node_arrow(0), "struct");
}
END_TEST

START_TEST(list_three_level)
{
    /* pyarrow: a: list<element: int64> */
    pq_schema_element els[] = {
        root(1),
        with_lt(group("a", PQ_OPTIONAL, 1), lt_kind(PQ_LOGICAL_LIST)),
        group("list", PQ_REPEATED, 1),
        leaf("element", PQ_OPTIONAL, PQ_INT64),
    };
    ASSERT_BUILDS(els);
    assert_leaf(0, "a.list.element", 3, 1, "int64");
    ck_assert_str_eq(node_arrow(1), "list");
    ck_assert_str_eq(node_arrow(2), "list"); /* structural middle */
    ck_assert_str_eq(node_arrow(3), "int64");
    ck_assert_int_eq(schema.nodes[2].max_def, 2);
    ck_assert_int_eq(schema.nodes[2].max_rep, 1);
}
END_TEST

START_TEST(list_of_lists)
{
    /* pyarrow: a: list<element: list<element: int32>> */
    pq_schema_element els[] = {
        root(1),
        with_ct(group("a", PQ_OPTIONAL, 1), PQ_CT_LIST),
        group("list", PQ_REPEATED, 1),
        with_lt(group("element", PQ_OPTIONAL, 1), lt_kind(PQ_LOGICAL_LIST)),
        group("list", PQ_REPEATED, 1),
        leaf("element", PQ_REQUIRED, PQ_INT32),
    };
    ASSERT_BUILDS(els);
    assert_leaf(0, "a.list.element.list.element", 4, 2, "int32");
    ck_assert_str_eq(node_arrow(1), "list");
    ck_assert_str_eq(node_arrow(2), "list");
    ck_assert_str_eq(node_arrow(3), "list");
    ck_assert_str_eq(node_arrow(4), "list");
    ck_assert_str_eq(node_arrow(5), "int32");
}
END_TEST

START_TEST(list_two_level_legacy)
{
    pq_schema_element els[] = {
        root(4),
        /* a: list<array: int32 not null>: the repeated primitive is the element */
        with_ct(group("a", PQ_OPTIONAL, 1), PQ_CT_LIST),
        leaf("array", PQ_REPEATED, PQ_INT32),
        /* b: list<array: struct<x: int32> not null>: "array" is the element */
        with_lt(group("b", PQ_OPTIONAL, 1), lt_kind(PQ_LOGICAL_LIST)),
        group("array", PQ_REPEATED, 1),
        leaf("x", PQ_OPTIONAL, PQ_INT32),
        /* c: list<c_tuple: struct<x: int32> not null> */
        with_lt(group("c", PQ_REQUIRED, 1), lt_kind(PQ_LOGICAL_LIST)),
        group("c_tuple", PQ_REPEATED, 1),
        leaf("x", PQ_OPTIONAL, PQ_INT32),
        /* d: list<element: struct<x: int32, y: int32> not null>: several fields */
        with_lt(group("d", PQ_OPTIONAL, 1), lt_kind(PQ_LOGICAL_LIST)),
        group("element", PQ_REPEATED, 2),
        leaf("x", PQ_OPTIONAL, PQ_INT32),
        leaf("y", PQ_OPTIONAL, PQ_INT32),
    };
    ASSERT_BUILDS(els);
    ck_assert_uint_eq(schema.leaves_len, 5);
    assert_leaf(0, "a.array", 2, 1, "int32");
    ck_assert_str_eq(node_arrow(1), "list");
    ck_assert_str_eq(node_arrow(2), "int32");
    assert_leaf(1, "b.array.x", 3, 1, "int32");
    ck_assert_str_eq(node_arrow(3), "list");
    ck_assert_str_eq(node_arrow(4), "struct");
    assert_leaf(2, "c.c_tuple.x", 2, 1, "int32");
    ck_assert_str_eq(node_arrow(6), "list");
    ck_assert_str_eq(node_arrow(7), "struct");
    assert_leaf(3, "d.element.x", 3, 1, "int32");
    assert_leaf(4, "d.element.y", 3, 1, "int32");
    ck_assert_str_eq(node_arrow(10), "struct");
}
END_TEST

START_TEST(list_structural_rules)
{
    pq_schema_element els[] = {
        root(2),
        /* pyarrow: a: list<x: int32>: "b_tuple" is not a's tuple name */
        with_lt(group("a", PQ_OPTIONAL, 1), lt_kind(PQ_LOGICAL_LIST)),
        group("b_tuple", PQ_REPEATED, 1),
        leaf("x", PQ_OPTIONAL, PQ_INT32),
        /* pyarrow: l: list<list: struct<element: list<element: int32 not null> not null> not null>:
         * a repeated group whose only field is repeated is the element */
        with_lt(group("l", PQ_OPTIONAL, 1), lt_kind(PQ_LOGICAL_LIST)),
        group("list", PQ_REPEATED, 1),
        leaf("element", PQ_REPEATED, PQ_INT32),
    };
    ASSERT_BUILDS(els);
    assert_leaf(0, "a.b_tuple.x", 3, 1, "int32");
    ck_assert_str_eq(node_arrow(2), "list");
    ck_assert_str_eq(node_arrow(3), "int32");
    assert_leaf(1, "l.list.element", 3, 2, "int32");
    ck_assert_str_eq(node_arrow(4), "list");
    ck_assert_str_eq(node_arrow(5), "struct");
    ck_assert_str_eq(node_arrow(6), "list");
}
END_TEST

START_TEST(list_element_is_list)
{
    /* data/old_list_structure.parquet (parquet-avro); pyarrow:
     * a: list<array: list<array: int32 not null> not null> not null */
    pq_schema_element els[] = {
        root(1),
        with_ct(group("a", PQ_REQUIRED, 1), PQ_CT_LIST),
        with_ct(group("array", PQ_REPEATED, 1), PQ_CT_LIST),
        leaf("array", PQ_REPEATED, PQ_INT32),
    };
    ASSERT_BUILDS(els);
    assert_leaf(0, "a.array.array", 2, 2, "int32");
    ck_assert_str_eq(node_arrow(1), "list");
    ck_assert_str_eq(node_arrow(2), "list"); /* the element, itself a list */
    ck_assert_str_eq(node_arrow(3), "int32");
}
END_TEST

START_TEST(list_malformed_is_struct)
{
    /* pyarrow refuses these; we read them as plain groups */
    pq_schema_element els[] = {
        root(3),
        with_lt(group("two", PQ_OPTIONAL, 2), lt_kind(PQ_LOGICAL_LIST)),
        leaf("a", PQ_REPEATED, PQ_INT32),
        leaf("b", PQ_OPTIONAL, PQ_INT32),
        with_lt(group("notrep", PQ_OPTIONAL, 1), lt_kind(PQ_LOGICAL_LIST)),
        leaf("a", PQ_OPTIONAL, PQ_INT32),
        with_lt(group("rep", PQ_REPEATED, 1), lt_kind(PQ_LOGICAL_LIST)),
        group("list", PQ_REPEATED, 1),
        leaf("element", PQ_OPTIONAL, PQ_INT32),
    };
    ASSERT_BUILDS(els);
    ck_assert_str_eq(node_arrow(1), "struct");
    ck_assert_str_eq(node_arrow(2), "list"); /* repeated field: a list of itself */
    ck_assert_str_eq(node_arrow(4), "struct");
    ck_assert_str_eq(node_arrow(6), "list");
    ck_assert_str_eq(node_arrow(7), "list");
    assert_leaf(3, "rep.list.element", 3, 2, "int32");
}
END_TEST

START_TEST(map)
{
    /* pyarrow: m: map<string, int32>, n (converted MAP + MAP_KEY_VALUE) the same,
     * k: list<key: int32 not null> (keys only) */
    pq_schema_element els[] = {
        root(3),
        with_lt(group("m", PQ_OPTIONAL, 1), lt_kind(PQ_LOGICAL_MAP)),
        group("key_value", PQ_REPEATED, 2),
        with_lt(leaf("key", PQ_REQUIRED, PQ_BYTE_ARRAY), lt_kind(PQ_LOGICAL_STRING)),
        leaf("value", PQ_OPTIONAL, PQ_INT32),
        with_ct(group("n", PQ_REQUIRED, 1), PQ_CT_MAP),
        with_ct(group("key_value", PQ_REPEATED, 2), PQ_CT_MAP_KEY_VALUE),
        with_ct(leaf("key", PQ_REQUIRED, PQ_BYTE_ARRAY), PQ_CT_UTF8),
        leaf("value", PQ_OPTIONAL, PQ_INT32),
        with_lt(group("k", PQ_OPTIONAL, 1), lt_kind(PQ_LOGICAL_MAP)),
        group("key_value", PQ_REPEATED, 1),
        leaf("key", PQ_REQUIRED, PQ_INT32),
    };
    ASSERT_BUILDS(els);
    assert_leaf(0, "m.key_value.key", 2, 1, "string");
    assert_leaf(1, "m.key_value.value", 3, 1, "int32");
    ck_assert_str_eq(node_arrow(1), "map");
    ck_assert_str_eq(node_arrow(2), "struct");
    assert_leaf(2, "n.key_value.key", 1, 1, "string");
    assert_leaf(3, "n.key_value.value", 2, 1, "int32");
    ck_assert_str_eq(node_arrow(5), "map");
    ck_assert_str_eq(node_arrow(6), "struct");
    assert_leaf(4, "k.key_value.key", 2, 1, "int32");
    ck_assert_str_eq(node_arrow(9), "list");
    ck_assert_str_eq(node_arrow(10), "list");
}
END_TEST

START_TEST(map_malformed_is_struct)
{
    pq_schema_element els[] = {
        root(2),
        /* optional key: pyarrow refuses ("Map keys must be annotated as required") */
        with_lt(group("m", PQ_OPTIONAL, 1), lt_kind(PQ_LOGICAL_MAP)),
        group("key_value", PQ_REPEATED, 2),
        leaf("key", PQ_OPTIONAL, PQ_INT32),
        leaf("value", PQ_OPTIONAL, PQ_INT32),
        /* three fields */
        with_lt(group("t", PQ_OPTIONAL, 1), lt_kind(PQ_LOGICAL_MAP)),
        group("key_value", PQ_REPEATED, 3),
        leaf("key", PQ_REQUIRED, PQ_INT32),
        leaf("v", PQ_OPTIONAL, PQ_INT32),
        leaf("w", PQ_OPTIONAL, PQ_INT32),
    };
    ASSERT_BUILDS(els);
    ck_assert_str_eq(node_arrow(1), "struct");
    ck_assert_str_eq(node_arrow(2), "list");
    ck_assert_str_eq(node_arrow(5), "struct");
    ck_assert_str_eq(node_arrow(6), "list");
    assert_leaf(3, "t.key_value.v", 3, 1, "int32");
}
END_TEST

START_TEST(repeated_fields)
{
    /* pyarrow: r: list<r: int32 not null>,
     *          g: list<g: struct<x: int32, y: list<y: int32 not null> not null> not null> */
    pq_schema_element els[] = {
        root(2),
        leaf("r", PQ_REPEATED, PQ_INT32),
        group("g", PQ_REPEATED, 2),
        leaf("x", PQ_OPTIONAL, PQ_INT32),
        leaf("y", PQ_REPEATED, PQ_INT32),
    };
    ASSERT_BUILDS(els);
    assert_leaf(0, "r", 1, 1, "int32");
    ck_assert_str_eq(node_arrow(1), "list");
    ck_assert_str_eq(node_arrow(2), "list");
    assert_leaf(1, "g.x", 2, 1, "int32");
    assert_leaf(2, "g.y", 2, 2, "int32");
    ck_assert_str_eq(node_arrow(3), "int32");
    ck_assert_str_eq(node_arrow(4), "list");
}
END_TEST

START_TEST(deep_levels)
{
    /* a (optional) > b (repeated) > c (required) > d (optional) > e (repeated) > leaf (optional):
     * def counts a, b, d, e, leaf = 5; rep counts b, e = 2 */
    pq_schema_element els[] = {
        root(1),
        group("a", PQ_OPTIONAL, 1),
        group("b", PQ_REPEATED, 1),
        group("c", PQ_REQUIRED, 1),
        group("d", PQ_OPTIONAL, 1),
        group("e", PQ_REPEATED, 1),
        leaf("f", PQ_OPTIONAL, PQ_FLOAT),
    };
    ASSERT_BUILDS(els);
    assert_leaf(0, "a.b.c.d.e.f", 5, 2, "float");
    static const int defs[] = {0, 1, 2, 2, 3, 4, 5};
    static const int reps[] = {0, 0, 1, 1, 1, 2, 2};
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(schema.nodes[i].max_def, defs[i]);
        ck_assert_int_eq(schema.nodes[i].max_rep, reps[i]);
        ck_assert_int_eq(schema.nodes[i].depth, i);
    }
}
END_TEST

START_TEST(empty_and_odd_shapes)
{
    /* the root alone: a file with no columns */
    pq_schema_element only_root[] = {root(0)};
    ASSERT_BUILDS(only_root);
    ck_assert_uint_eq(schema.nodes_len, 1);
    ck_assert_uint_eq(schema.leaves_len, 0);

    /* a root without num_children has no columns either */
    pq_schema_element bare_root[] = {root(0)};
    bare_root[0].set = 0;
    ASSERT_BUILDS(bare_root);
    ck_assert_uint_eq(schema.leaves_len, 0);

    /* pyarrow: e: struct<> (num_children 0 and no type), x: int32 (num_children 0 with a
     * type is a leaf), s: struct<a: int32> (a group's type field is ignored),
     * n: int32 required (no repetition_type) */
    pq_schema_element els[] = {
        root(4),
        group("e", PQ_OPTIONAL, 0),
        leaf("x", PQ_OPTIONAL, PQ_INT32),
        group("s", PQ_OPTIONAL, 1),
        leaf("a", PQ_OPTIONAL, PQ_INT32),
        leaf("n", PQ_REQUIRED, PQ_INT32),
    };
    els[2].set |= PQ_SE_HAS_NUM_CHILDREN;
    els[2].num_children = 0;
    els[3].set |= PQ_SE_HAS_TYPE;
    els[3].type = PQ_INT32;
    els[5].set &= ~(uint32_t)PQ_SE_HAS_REPETITION;
    els[5].repetition = 0;
    ASSERT_BUILDS(els);
    ck_assert_uint_eq(schema.leaves_len, 3);
    ck_assert_int_eq(schema.nodes[1].leaf_index, -1);
    ck_assert_int_eq(schema.nodes[1].num_children, 0);
    ck_assert_ptr_null(schema.nodes[1].children);
    ck_assert_str_eq(node_arrow(1), "struct");
    assert_leaf(0, "x", 1, 0, "int32");
    ck_assert_str_eq(node_arrow(3), "struct");
    assert_leaf(1, "s.a", 2, 0, "int32");
    assert_leaf(2, "n", 0, 0, "int32");
}
END_TEST

START_TEST(names_are_copied)
{
    /* names are spans, not strings: the node keeps a NUL-terminated copy */
    char buf[] = "abcXYZ";
    pq_schema_element els[] = {root(1), leaf("", PQ_OPTIONAL, PQ_INT32)};
    els[1].name.ptr = (const uint8_t *)buf;
    els[1].name.len = 3;
    ASSERT_BUILDS(els);
    ck_assert_str_eq(schema.nodes[1].name, "abc");
    ck_assert_str_eq(schema.leaves[0].path, "abc");
    buf[0] = 'z';
    ck_assert_str_eq(schema.nodes[1].name, "abc");
}
END_TEST

START_TEST(max_depth)
{
    /* 256 levels below the root is the limit: 255 groups and a leaf pass */
    enum { N = 300 };
    static pq_schema_element els[N];
    els[0] = root(1);
    for (int i = 1; i < 256; i++) els[i] = group("g", PQ_OPTIONAL, 1);
    els[256] = leaf("x", PQ_OPTIONAL, PQ_INT32);
    ck_assert_int_eq(build_n(els, 257), PQ_OK);
    ck_assert_int_eq(schema.leaves[0].max_def, 256);
    ck_assert_int_eq(schema.nodes[256].depth, 256);
    ck_assert_uint_eq(strlen(schema.leaves[0].path), 255 * 2 + 1);

    pq_arena_free(&arena);
    pq_arena_init(&arena, 4096);
    els[256] = group("g", PQ_OPTIONAL, 1);
    els[257] = leaf("x", PQ_OPTIONAL, PQ_INT32);
    ck_assert_int_eq(build_n(els, 258), PQ_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(err.message, "schema[257] 'x'"));
    ck_assert_ptr_nonnull(strstr(err.message, "deeper than 256"));
}
END_TEST

/* ---------------------------------------------------------------------------
 * Broken trees
 * ------------------------------------------------------------------------- */

START_TEST(broken_empty)
{
    pq_file_metadata file = {0};
    ck_assert_int_eq(pq_schema_build(&arena, &file, &schema, NULL, &err), PQ_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(err.message, "empty"));
}
END_TEST

START_TEST(broken_too_many_children)
{
    pq_schema_element els[] = {root(5), leaf("a", PQ_OPTIONAL, PQ_INT32), leaf("b", PQ_OPTIONAL, PQ_INT32)};
    ASSERT_SCHEMA_ERROR(els, "schema[0] 'schema': num_children 5 exceeds the remaining 2 elements");

    pq_schema_element nested[] = {
        root(1), group("g", PQ_OPTIONAL, 1),
        with_lt(group("foo", PQ_OPTIONAL, 3), lt_kind(PQ_LOGICAL_LIST)),
        leaf("a", PQ_OPTIONAL, PQ_INT32),
    };
    ASSERT_SCHEMA_ERROR(nested, "schema[2] 'foo': num_children 3 exceeds the remaining 1 elements");

    /* each group fits on its own, but not together: the root runs short */
    pq_schema_element short_root[] = {
        root(3), group("g", PQ_OPTIONAL, 1), leaf("a", PQ_OPTIONAL, PQ_INT32),
        leaf("b", PQ_OPTIONAL, PQ_INT32),
    };
    ASSERT_SCHEMA_ERROR(short_root, "schema[0] 'schema': num_children 3, but the list ends after 2");

    pq_schema_element short_group[] = {
        root(1), group("g", PQ_OPTIONAL, 2), group("h", PQ_OPTIONAL, 1),
        leaf("a", PQ_OPTIONAL, PQ_INT32),
    };
    ASSERT_SCHEMA_ERROR(short_group, "schema[1] 'g': num_children 2, but the list ends after 1");
}
END_TEST

START_TEST(broken_too_few_children)
{
    pq_schema_element els[] = {root(1), leaf("a", PQ_OPTIONAL, PQ_INT32), leaf("b", PQ_OPTIONAL, PQ_INT32)};
    ASSERT_SCHEMA_ERROR(els, "schema[2] 'b': outside the tree");

    pq_schema_element zero_root[] = {root(0), leaf("a", PQ_OPTIONAL, PQ_INT32)};
    ASSERT_SCHEMA_ERROR(zero_root, "schema[1] 'a': outside the tree");

    pq_schema_element nested[] = {
        root(1), group("g", PQ_OPTIONAL, 1), leaf("a", PQ_OPTIONAL, PQ_INT32),
        leaf("b", PQ_OPTIONAL, PQ_INT32), leaf("c", PQ_OPTIONAL, PQ_INT32),
    };
    ASSERT_SCHEMA_ERROR(nested, "2 elements are left over");
}
END_TEST

START_TEST(broken_negative_children)
{
    pq_schema_element els[] = {root(1), group("g", PQ_OPTIONAL, -2)};
    ASSERT_SCHEMA_ERROR(els, "schema[1] 'g': negative num_children -2");

    pq_schema_element neg_root[] = {root(-1)};
    ASSERT_SCHEMA_ERROR(neg_root, "schema[0] 'schema': negative num_children -1");

    pq_schema_element huge[] = {root(1), group("g", PQ_OPTIONAL, 0x7fffffff)};
    ASSERT_SCHEMA_ERROR(huge, "exceeds the remaining 0 elements");
}
END_TEST

START_TEST(broken_leaves)
{
    pq_schema_element untyped[] = {root(1), leaf("a", PQ_OPTIONAL, PQ_INT32)};
    untyped[1].set &= ~(uint32_t)PQ_SE_HAS_TYPE;
    ASSERT_SCHEMA_ERROR(untyped, "schema[1] 'a': neither num_children nor a physical type");

    pq_schema_element bad_type[] = {root(1), leaf("a", PQ_OPTIONAL, -7)};
    ASSERT_SCHEMA_ERROR(bad_type, "schema[1] 'a': invalid physical type -7");

    pq_schema_element bad_type2[] = {root(1), leaf("a", PQ_OPTIONAL, 8)};
    ASSERT_SCHEMA_ERROR(bad_type2, "invalid physical type 8");

    pq_schema_element flba0[] = {root(1), flba("f", 0)};
    ASSERT_SCHEMA_ERROR(flba0, "schema[1] 'f': FIXED_LEN_BYTE_ARRAY needs a type_length > 0 (got 0)");

    pq_schema_element flba_neg[] = {root(1), flba("f", -1)};
    ASSERT_SCHEMA_ERROR(flba_neg, "(got -1)");

    pq_schema_element flba_none[] = {root(1), leaf("f", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY)};
    ASSERT_SCHEMA_ERROR(flba_none, "type_length > 0");

    pq_schema_element bad_rep[] = {root(1), leaf("a", 3, PQ_INT32)};
    ASSERT_SCHEMA_ERROR(bad_rep, "schema[1] 'a': invalid repetition_type 3");

    pq_schema_element bad_rep_group[] = {root(1), group("g", -1, 1), leaf("a", PQ_OPTIONAL, PQ_INT32)};
    ASSERT_SCHEMA_ERROR(bad_rep_group, "schema[1] 'g': invalid repetition_type -1");
}
END_TEST

START_TEST(broken_depth_bomb)
{
    /* 10000 nested groups: an error, not a stack overflow */
    enum { N = 10002 };
    pq_schema_element *els = malloc(N * sizeof *els);
    ck_assert_ptr_nonnull(els);
    els[0] = root(1);
    for (int i = 1; i < N - 1; i++) els[i] = group("g", PQ_OPTIONAL, 1);
    els[N - 1] = leaf("x", PQ_OPTIONAL, PQ_INT32);
    ck_assert_int_eq(build_n(els, N), PQ_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(err.message, "schema[257] 'g': nested deeper than 256 levels"));
    free(els);
}
END_TEST

START_TEST(path_bytes_are_capped)
{
    /* a 1 MiB group name above 100 leaves: 100 MiB of paths from a ~1 MiB
     * footer; the cap is 64 times the names (at least 64 MiB) */
    enum { NAME = 1 << 20, LEAVES = 100 };
    char *name = malloc(NAME + 1);
    pq_schema_element *els = malloc((LEAVES + 2) * sizeof *els);
    ck_assert_ptr_nonnull(name);
    ck_assert_ptr_nonnull(els);
    memset(name, 'n', NAME);
    name[NAME] = '\0';
    els[0] = root(1);
    els[1] = group(name, PQ_OPTIONAL, LEAVES);
    for (int i = 0; i < LEAVES; i++) els[2 + i] = leaf("x", PQ_OPTIONAL, PQ_INT32);
    ck_assert_int_eq(build_n(els, LEAVES + 2), PQ_ERR_MEMORY_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "leaf paths"));

    /* ten leaves (10 MiB of paths) are fine */
    pq_arena_free(&arena);
    pq_arena_init(&arena, 4096);
    els[1].num_children = 10;
    ck_assert_int_eq(build_n(els, 12), PQ_OK);
    ck_assert_uint_eq(schema.leaves_len, 10);
    ck_assert_uint_eq(strlen(schema.leaves[9].path), NAME + 2);
    ck_assert_int_eq(schema.leaves[9].path[NAME], '.');
    free(els);
    free(name);
}
END_TEST

START_TEST(long_names_in_errors)
{
    static char name[1000];
    memset(name, 'n', sizeof name - 1);
    pq_schema_element els[] = {root(1), group(name, PQ_OPTIONAL, -1)};
    ASSERT_SCHEMA_ERROR(els, "schema[1] 'nnnn");
    ck_assert_uint_lt(strlen(err.message), PQ_ERROR_MESSAGE_SIZE);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Logical types derived from converted types
 * ------------------------------------------------------------------------- */

START_TEST(logical_from_converted)
{
    char buf[128];
    static const struct {
        int ct;
        int type;
        const char *expect;
    } cases[] = {
        {PQ_CT_UTF8, PQ_BYTE_ARRAY, "STRING"},
        {PQ_CT_MAP, PQ_BYTE_ARRAY, "MAP"},
        {PQ_CT_LIST, PQ_BYTE_ARRAY, "LIST"},
        {PQ_CT_ENUM, PQ_BYTE_ARRAY, "ENUM"},
        {PQ_CT_DATE, PQ_INT32, "DATE"},
        {PQ_CT_TIME_MILLIS, PQ_INT32, "TIME(MILLIS,utc=true)"},
        {PQ_CT_TIME_MICROS, PQ_INT64, "TIME(MICROS,utc=true)"},
        {PQ_CT_TIMESTAMP_MILLIS, PQ_INT64, "TIMESTAMP(MILLIS,utc=true)"},
        {PQ_CT_TIMESTAMP_MICROS, PQ_INT64, "TIMESTAMP(MICROS,utc=true)"},
        {PQ_CT_UINT_8, PQ_INT32, "INT(8,unsigned)"},
        {PQ_CT_UINT_16, PQ_INT32, "INT(16,unsigned)"},
        {PQ_CT_UINT_32, PQ_INT32, "INT(32,unsigned)"},
        {PQ_CT_UINT_64, PQ_INT64, "INT(64,unsigned)"},
        {PQ_CT_INT_8, PQ_INT32, "INT(8,signed)"},
        {PQ_CT_INT_16, PQ_INT32, "INT(16,signed)"},
        {PQ_CT_INT_32, PQ_INT32, "INT(32,signed)"},
        {PQ_CT_INT_64, PQ_INT64, "INT(64,signed)"},
        {PQ_CT_JSON, PQ_BYTE_ARRAY, "JSON"},
        {PQ_CT_BSON, PQ_BYTE_ARRAY, "BSON"},
        {PQ_CT_MAP_KEY_VALUE, PQ_BYTE_ARRAY, ""},
        {PQ_CT_INTERVAL, PQ_FIXED_LEN_BYTE_ARRAY, ""},
        {PQ_CT_NONE, PQ_INT32, ""},
        {99, PQ_INT32, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pq_schema_element e = with_ct(leaf("x", PQ_OPTIONAL, cases[i].type), cases[i].ct);
        pq_logical_type lt = pq_logical_from_element(&e);
        pq_logical_type_format(&lt, buf, sizeof buf);
        ck_assert_msg(strcmp(buf, cases[i].expect) == 0, "ct %d: got '%s', want '%s'",
                      cases[i].ct, buf, cases[i].expect);
    }

    pq_schema_element dec = with_ct_decimal(leaf("d", PQ_OPTIONAL, PQ_INT64), 18, 4);
    pq_logical_type lt = pq_logical_from_element(&dec);
    ck_assert_int_eq(lt.kind, PQ_LOGICAL_DECIMAL);
    ck_assert_int_eq(lt.precision, 18);
    ck_assert_int_eq(lt.scale, 4);

    /* scale defaults to 0 when absent */
    dec.set &= ~(uint32_t)PQ_SE_HAS_SCALE;
    lt = pq_logical_from_element(&dec);
    ck_assert_int_eq(lt.scale, 0);

    /* logicalType wins over converted_type */
    pq_schema_element both = with_lt(with_ct(leaf("t", PQ_OPTIONAL, PQ_INT64), PQ_CT_TIMESTAMP_MILLIS),
                                     lt_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_NANOS, false));
    lt = pq_logical_from_element(&both);
    pq_logical_type_format(&lt, buf, sizeof buf);
    ck_assert_str_eq(buf, "TIMESTAMP(NANOS,utc=false)");

    /* a logical type newer than us falls back on the converted type */
    pq_schema_element future = with_lt(with_ct(leaf("s", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_UTF8),
                                       lt_kind(PQ_LOGICAL_FUTURE));
    lt = pq_logical_from_element(&future);
    ck_assert_int_eq(lt.kind, PQ_LOGICAL_STRING);
    future.set &= ~(uint32_t)PQ_SE_HAS_CONVERTED_TYPE;
    lt = pq_logical_from_element(&future);
    ck_assert_int_eq(lt.kind, PQ_LOGICAL_FUTURE);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Arrow types of leaves, against pyarrow 26
 * ------------------------------------------------------------------------- */

typedef struct arrow_case {
    pq_schema_element el;
    const char *expect;
} arrow_case;

static void check_arrow_cases(const arrow_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pq_schema_element els[2] = {root(1), cases[i].el};
        pq_status st = build_n(els, 2);
        ck_assert_msg(st == PQ_OK, "case %zu: %s", i, err.message);
        const char *got = leaf_arrow(0);
        ck_assert_msg(strcmp(got, cases[i].expect) == 0, "case %zu (%s): got '%s', want '%s'", i,
                      schema.nodes[1].name, got, cases[i].expect);
        ck_assert_str_eq(node_arrow(1), cases[i].expect);
    }
}

#define CHECK_ARROW_CASES(cases) check_arrow_cases(cases, sizeof(cases) / sizeof(cases[0]))
#define OPT(type) leaf("x", PQ_OPTIONAL, type)

START_TEST(arrow_plain_types)
{
    const arrow_case cases[] = {
        {OPT(PQ_BOOLEAN), "bool"},
        {OPT(PQ_INT32), "int32"},
        {OPT(PQ_INT64), "int64"},
        {OPT(PQ_INT96), "timestamp[ns]"},
        {OPT(PQ_FLOAT), "float"},
        {OPT(PQ_DOUBLE), "double"},
        {OPT(PQ_BYTE_ARRAY), "binary"},
        {flba("x", 7), "fixed_size_binary[7]"},
    };
    CHECK_ARROW_CASES(cases);
}
END_TEST

START_TEST(arrow_logical_types)
{
    const arrow_case cases[] = {
        {with_lt(OPT(PQ_INT32), lt_kind(PQ_LOGICAL_DATE)), "date32[day]"},
        {with_lt(OPT(PQ_INT32), lt_time(PQ_LOGICAL_TIME, PQ_UNIT_MILLIS, true)), "time32[ms]"},
        {with_lt(OPT(PQ_INT32), lt_time(PQ_LOGICAL_TIME, PQ_UNIT_MILLIS, false)), "time32[ms]"},
        {with_lt(OPT(PQ_INT64), lt_time(PQ_LOGICAL_TIME, PQ_UNIT_MICROS, true)), "time64[us]"},
        {with_lt(OPT(PQ_INT64), lt_time(PQ_LOGICAL_TIME, PQ_UNIT_NANOS, false)), "time64[ns]"},
        {with_lt(OPT(PQ_INT64), lt_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_MILLIS, true)),
         "timestamp[ms, tz=UTC]"},
        {with_lt(OPT(PQ_INT64), lt_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_MILLIS, false)), "timestamp[ms]"},
        {with_lt(OPT(PQ_INT64), lt_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_MICROS, true)),
         "timestamp[us, tz=UTC]"},
        {with_lt(OPT(PQ_INT64), lt_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_NANOS, true)),
         "timestamp[ns, tz=UTC]"},
        {with_lt(OPT(PQ_INT64), lt_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_NANOS, false)), "timestamp[ns]"},
        {with_lt(OPT(PQ_INT32), lt_int(8, true)), "int8"},
        {with_lt(OPT(PQ_INT32), lt_int(8, false)), "uint8"},
        {with_lt(OPT(PQ_INT32), lt_int(16, true)), "int16"},
        {with_lt(OPT(PQ_INT32), lt_int(16, false)), "uint16"},
        {with_lt(OPT(PQ_INT32), lt_int(32, true)), "int32"},
        {with_lt(OPT(PQ_INT32), lt_int(32, false)), "uint32"},
        {with_lt(OPT(PQ_INT64), lt_int(64, true)), "int64"},
        {with_lt(OPT(PQ_INT64), lt_int(64, false)), "uint64"},
        {with_lt(OPT(PQ_INT32), lt_decimal(9, 2)), "decimal128(9, 2)"},
        {with_lt(OPT(PQ_INT64), lt_decimal(18, 3)), "decimal128(18, 3)"},
        {with_lt(OPT(PQ_INT64), lt_decimal(5, 2)), "decimal128(5, 2)"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_decimal(20, 2)), "decimal128(20, 2)"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_decimal(40, 2)), "decimal256(40, 2)"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_decimal(76, 2)), "decimal256(76, 2)"},
        {with_lt(flba("x", 16), lt_decimal(38, 2)), "decimal128(38, 2)"},
        {with_lt(flba("x", 17), lt_decimal(39, 2)), "decimal256(39, 2)"},
        {with_lt(flba("x", 32), lt_decimal(76, 5)), "decimal256(76, 5)"},
        {with_lt(flba("x", 40), lt_decimal(76, 2)), "decimal256(76, 2)"},
        {with_lt(flba("x", 11), lt_decimal(26, 2)), "decimal128(26, 2)"},
        {with_lt(flba("x", 4), lt_decimal(9, 2)), "decimal128(9, 2)"},
        {with_lt(flba("x", 1), lt_decimal(2, 0)), "decimal128(2, 0)"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_kind(PQ_LOGICAL_STRING)), "string"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_kind(PQ_LOGICAL_ENUM)), "binary"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_kind(PQ_LOGICAL_JSON)), "extension<arrow.json>"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_kind(PQ_LOGICAL_BSON)), "binary"},
        {with_lt(flba("x", 16), lt_kind(PQ_LOGICAL_UUID)), "extension<arrow.uuid>"},
        {with_lt(flba("x", 2), lt_kind(PQ_LOGICAL_FLOAT16)), "halffloat"},
        {with_lt(OPT(PQ_INT32), lt_kind(PQ_LOGICAL_UNKNOWN)), "null"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_kind(PQ_LOGICAL_UNKNOWN)), "null"},
        {with_lt(OPT(PQ_INT96), lt_kind(PQ_LOGICAL_UNKNOWN)), "null"},
        {with_lt(OPT(PQ_BOOLEAN), lt_kind(PQ_LOGICAL_UNKNOWN)), "null"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_kind(PQ_LOGICAL_GEOMETRY)), "binary"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_kind(PQ_LOGICAL_GEOGRAPHY)), "binary"},
    };
    CHECK_ARROW_CASES(cases);
}
END_TEST

START_TEST(arrow_converted_types)
{
    const arrow_case cases[] = {
        {with_ct(OPT(PQ_INT32), PQ_CT_DATE), "date32[day]"},
        {with_ct(OPT(PQ_INT32), PQ_CT_TIME_MILLIS), "time32[ms]"},
        {with_ct(OPT(PQ_INT64), PQ_CT_TIME_MICROS), "time64[us]"},
        {with_ct(OPT(PQ_INT64), PQ_CT_TIMESTAMP_MILLIS), "timestamp[ms, tz=UTC]"},
        {with_ct(OPT(PQ_INT64), PQ_CT_TIMESTAMP_MICROS), "timestamp[us, tz=UTC]"},
        {with_ct(OPT(PQ_INT32), PQ_CT_UINT_8), "uint8"},
        {with_ct(OPT(PQ_INT32), PQ_CT_INT_16), "int16"},
        {with_ct(OPT(PQ_INT32), PQ_CT_UINT_32), "uint32"},
        {with_ct(OPT(PQ_INT64), PQ_CT_UINT_64), "uint64"},
        {with_ct(OPT(PQ_INT64), PQ_CT_INT_64), "int64"},
        {with_ct(OPT(PQ_BYTE_ARRAY), PQ_CT_UTF8), "string"},
        {with_ct(OPT(PQ_BYTE_ARRAY), PQ_CT_ENUM), "binary"},
        {with_ct(OPT(PQ_BYTE_ARRAY), PQ_CT_JSON), "extension<arrow.json>"},
        {with_ct(OPT(PQ_BYTE_ARRAY), PQ_CT_BSON), "binary"},
        {with_ct(flba("x", 12), PQ_CT_INTERVAL), "fixed_size_binary[12]"},
        {with_ct_decimal(flba("x", 11), 25, 2), "decimal128(25, 2)"},
        {with_ct_decimal(OPT(PQ_INT32), 5, 2), "decimal128(5, 2)"},
        {with_ct_decimal(OPT(PQ_BYTE_ARRAY), 40, 2), "decimal256(40, 2)"},
        /* the converted DECIMAL is not checked against the physical width */
        {with_ct_decimal(OPT(PQ_INT32), 10, 2), "decimal128(10, 2)"},
        {with_ct_decimal(OPT(PQ_INT64), 19, 2), "decimal128(19, 2)"},
        {with_ct_decimal(flba("x", 4), 20, 2), "decimal128(20, 2)"},
        {with_ct_decimal(flba("x", 4), 40, 2), "decimal256(40, 2)"},
        /* logicalType wins */
        {with_lt(with_ct(OPT(PQ_INT64), PQ_CT_TIMESTAMP_MILLIS),
                 lt_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_MICROS, false)),
         "timestamp[us]"},
        {with_lt(with_ct(OPT(PQ_BYTE_ARRAY), PQ_CT_DATE), lt_kind(PQ_LOGICAL_STRING)), "string"},
        {with_lt(with_ct(OPT(PQ_BYTE_ARRAY), PQ_CT_UTF8), lt_kind(PQ_LOGICAL_BSON)), "binary"},
    };
    CHECK_ARROW_CASES(cases);
}
END_TEST

START_TEST(arrow_annotation_does_not_fit)
{
    /* pyarrow ignores a logicalType that does not apply to the physical type */
    const arrow_case cases[] = {
        {with_lt(OPT(PQ_INT64), lt_kind(PQ_LOGICAL_DATE)), "int64"},
        {with_lt(OPT(PQ_BOOLEAN), lt_kind(PQ_LOGICAL_STRING)), "bool"},
        {with_lt(flba("x", 4), lt_kind(PQ_LOGICAL_STRING)), "fixed_size_binary[4]"},
        {with_lt(OPT(PQ_INT96), lt_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_NANOS, true)), "timestamp[ns]"},
        {with_lt(OPT(PQ_INT96), lt_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_MILLIS, false)), "timestamp[ns]"},
        {with_lt(OPT(PQ_INT64), lt_time(PQ_LOGICAL_TIME, PQ_UNIT_MILLIS, true)), "int64"},
        {with_lt(OPT(PQ_INT32), lt_time(PQ_LOGICAL_TIME, PQ_UNIT_MICROS, true)), "int32"},
        {with_lt(OPT(PQ_INT32), lt_time(PQ_LOGICAL_TIME, PQ_UNIT_NANOS, true)), "int32"},
        {with_lt(OPT(PQ_INT32), lt_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_MILLIS, true)), "int32"},
        {with_lt(OPT(PQ_INT64), lt_int(16, true)), "int64"},
        {with_lt(OPT(PQ_INT32), lt_int(64, true)), "int32"},
        {with_lt(OPT(PQ_INT64), lt_int(32, false)), "int64"},
        {with_lt(OPT(PQ_INT32), lt_decimal(10, 2)), "int32"},
        {with_lt(OPT(PQ_INT64), lt_decimal(19, 2)), "int64"},
        {with_lt(flba("x", 4), lt_decimal(10, 2)), "fixed_size_binary[4]"},
        {with_lt(flba("x", 16), lt_decimal(39, 2)), "fixed_size_binary[16]"},
        {with_lt(flba("x", 32), lt_decimal(77, 2)), "fixed_size_binary[32]"},
        {with_lt(flba("x", 1), lt_decimal(3, 0)), "fixed_size_binary[1]"},
        {with_lt(OPT(PQ_BOOLEAN), lt_decimal(5, 2)), "bool"},
        {with_lt(OPT(PQ_FLOAT), lt_decimal(5, 2)), "float"},
        {with_lt(OPT(PQ_INT96), lt_decimal(5, 1)), "timestamp[ns]"},
        {with_lt(OPT(PQ_INT32), lt_kind(PQ_LOGICAL_ENUM)), "int32"},
        {with_lt(flba("x", 3), lt_kind(PQ_LOGICAL_JSON)), "fixed_size_binary[3]"},
        {with_lt(OPT(PQ_INT32), lt_kind(PQ_LOGICAL_BSON)), "int32"},
        {with_lt(flba("x", 15), lt_kind(PQ_LOGICAL_UUID)), "fixed_size_binary[15]"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_kind(PQ_LOGICAL_UUID)), "binary"},
        {with_lt(flba("x", 4), lt_kind(PQ_LOGICAL_FLOAT16)), "fixed_size_binary[4]"},
        {with_lt(OPT(PQ_INT32), lt_kind(PQ_LOGICAL_FLOAT16)), "int32"},
        {with_lt(OPT(PQ_INT32), lt_kind(PQ_LOGICAL_LIST)), "int32"},
        {with_lt(OPT(PQ_INT32), lt_kind(PQ_LOGICAL_MAP)), "int32"},
        {with_lt(OPT(PQ_INT32), lt_kind(PQ_LOGICAL_GEOMETRY)), "int32"},
        {with_lt(OPT(PQ_INT64), lt_int(12, true)), "int64"},
        {with_lt(OPT(PQ_INT32), lt_kind(PQ_LOGICAL_VARIANT)), "int32"},
        /* converted types alike (issue 36): the physical type wins */
        {with_ct(OPT(PQ_INT64), PQ_CT_INT_8), "int64"},
        {with_ct(OPT(PQ_INT64), PQ_CT_INT_16), "int64"},
        {with_ct(OPT(PQ_INT64), PQ_CT_INT_32), "int64"},
        {with_ct(OPT(PQ_INT64), PQ_CT_DATE), "int64"},
        {with_ct(OPT(PQ_INT64), PQ_CT_UINT_8), "int64"},
        {with_ct(OPT(PQ_INT32), PQ_CT_INT_64), "int32"},
        {with_ct(OPT(PQ_INT32), PQ_CT_TIMESTAMP_MILLIS), "int32"},
        {with_ct(OPT(PQ_INT32), PQ_CT_UTF8), "int32"},
        {with_ct(OPT(PQ_DOUBLE), PQ_CT_DECIMAL), "double"},
        {with_ct_decimal(OPT(PQ_INT32), 77, 2), "int32"},
        {with_ct(flba("x", 4), PQ_CT_INTERVAL), "fixed_size_binary[4]"},
        {with_ct(OPT(PQ_INT32), PQ_CT_MAP_KEY_VALUE), "int32"},
        {with_ct(OPT(PQ_INT32), PQ_CT_LIST), "int32"},
        {with_ct(OPT(PQ_INT32), 22), "int32"},
        {with_ct(OPT(PQ_BYTE_ARRAY), 1000), "binary"},
    };
    CHECK_ARROW_CASES(cases);
    /* ... and reads as if unannotated: no annotation in effect */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pq_schema_element els[2] = {root(1), cases[i].el};
        ck_assert_int_eq(build_n(els, 2), PQ_OK);
        ck_assert_msg(schema.leaves[0].logical.kind == PQ_LOGICAL_NONE, "case %zu: logical kind %d", i,
                      schema.leaves[0].logical.kind);
    }
}
END_TEST

/* Annotations that apply keep their logical type; NA (24) is UNKNOWN. */
START_TEST(arrow_annotation_fits)
{
    const arrow_case cases[] = {
        {with_ct(OPT(PQ_INT32), PQ_CT_INT_8), "int8"},
        {with_ct(OPT(PQ_INT32), PQ_CT_DATE), "date32[day]"},
        {with_ct(OPT(PQ_INT64), PQ_CT_UINT_64), "uint64"},
        {with_ct(OPT(PQ_BYTE_ARRAY), PQ_CT_UTF8), "string"},
        {with_ct(OPT(PQ_INT64), PQ_CT_NA), "null"},
        {with_ct(OPT(PQ_BYTE_ARRAY), PQ_CT_NA), "null"},
        {with_ct(flba("x", 12), PQ_CT_INTERVAL), "fixed_size_binary[12]"},
        {with_lt(OPT(PQ_BYTE_ARRAY), lt_kind(PQ_LOGICAL_GEOMETRY)), "binary"},
        /* a logicalType newer than us is no misfit: the format's way to evolve */
        {with_lt(OPT(PQ_INT32), lt_kind(PQ_LOGICAL_FUTURE)), "int32"},
    };
    CHECK_ARROW_CASES(cases);
    static const int kinds[] = {PQ_LOGICAL_INTEGER, PQ_LOGICAL_DATE, PQ_LOGICAL_INTEGER, PQ_LOGICAL_STRING,
                                PQ_LOGICAL_UNKNOWN, PQ_LOGICAL_UNKNOWN, PQ_LOGICAL_NONE, PQ_LOGICAL_GEOMETRY,
                                PQ_LOGICAL_FUTURE};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pq_schema_element els[2] = {root(1), cases[i].el};
        ck_assert_int_eq(build_n(els, 2), PQ_OK);
        ck_assert_msg(schema.leaves[0].logical.kind == kinds[i], "case %zu: logical kind %d", i,
                      schema.leaves[0].logical.kind);
    }
}
END_TEST

START_TEST(arrow_type_format)
{
    char buf[64];
    pq_arrow_type at = {0};
    at.id = PQ_ARROW_FIXED_SIZE_BINARY;
    at.byte_width = 16;
    ck_assert_uint_eq(pq_arrow_type_format(&at, buf, sizeof buf), strlen("fixed_size_binary[16]"));
    ck_assert_str_eq(buf, "fixed_size_binary[16]");
    /* snprintf contract: cut to fit, still terminated, full length returned */
    ck_assert_uint_eq(pq_arrow_type_format(&at, buf, 6), 21);
    ck_assert_str_eq(buf, "fixed");
    ck_assert_uint_eq(pq_arrow_type_format(&at, NULL, 0), 21);
    at.id = PQ_ARROW_TIMESTAMP;
    at.unit = PQ_UNIT_NANOS;
    pq_arrow_type_format(&at, buf, sizeof buf);
    ck_assert_str_eq(buf, "timestamp[ns]");
    at.id = PQ_ARROW_DECIMAL256;
    at.precision = 50;
    at.scale = 10;
    pq_arrow_type_format(&at, buf, sizeof buf);
    ck_assert_str_eq(buf, "decimal256(50, 10)");
    static const struct {
        int id;
        const char *s;
    } simple[] = {
        {PQ_ARROW_NA, "null"},       {PQ_ARROW_INT8, "int8"},     {PQ_ARROW_UINT64, "uint64"},
        {PQ_ARROW_FLOAT16, "halffloat"}, {PQ_ARROW_FLOAT32, "float"}, {PQ_ARROW_FLOAT64, "double"},
        {PQ_ARROW_STRING, "string"}, {PQ_ARROW_BINARY, "binary"}, {PQ_ARROW_DATE32, "date32[day]"},
        {PQ_ARROW_STRUCT, "struct"}, {PQ_ARROW_LIST, "list"},     {PQ_ARROW_MAP, "map"},
        {PQ_ARROW_EXTENSION_UUID, "extension<arrow.uuid>"},       {PQ_ARROW_UNSUPPORTED, "unsupported"},
        {PQ_ARROW_EXTENSION_JSON, "extension<arrow.json>"},
        {200, "UNKNOWN(200)"},
    };
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
        pq_arrow_type t = {0};
        t.id = (uint8_t)simple[i].id;
        pq_arrow_type_format(&t, buf, sizeof buf);
        ck_assert_str_eq(buf, simple[i].s);
    }
}
END_TEST

/* ---------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------- */

START_TEST(enum_names)
{
    ck_assert_str_eq(pq_physical_type_name(PQ_BOOLEAN), "BOOLEAN");
    ck_assert_str_eq(pq_physical_type_name(PQ_FIXED_LEN_BYTE_ARRAY), "FIXED_LEN_BYTE_ARRAY");
    ck_assert_str_eq(pq_physical_type_name(-7), "UNKNOWN(-7)");
    ck_assert_str_eq(pq_converted_type_name(PQ_CT_TIMESTAMP_MICROS), "TIMESTAMP_MICROS");
    ck_assert_str_eq(pq_converted_type_name(PQ_CT_INTERVAL), "INTERVAL");
    ck_assert_str_eq(pq_converted_type_name(PQ_CT_NONE), "NONE");
    ck_assert_str_eq(pq_converted_type_name(22), "UNKNOWN(22)");
    ck_assert_str_eq(pq_converted_type_name(PQ_CT_NA), "NA");
    ck_assert_str_eq(pq_converted_type_name(23), "UNKNOWN(23)");
    ck_assert_str_eq(pq_repetition_name(PQ_REPEATED), "REPEATED");
    ck_assert_str_eq(pq_repetition_name(3), "UNKNOWN(3)");
    ck_assert_str_eq(pq_encoding_name(PQ_ENC_RLE_DICTIONARY), "RLE_DICTIONARY");
    ck_assert_str_eq(pq_encoding_name(PQ_ENC_BYTE_STREAM_SPLIT), "BYTE_STREAM_SPLIT");
    ck_assert_str_eq(pq_encoding_name(1), "UNKNOWN(1)");
    ck_assert_str_eq(pq_encoding_name(10), "UNKNOWN(10)");
    ck_assert_str_eq(pq_codec_name(PQ_CODEC_ZSTD), "ZSTD");
    ck_assert_str_eq(pq_codec_name(PQ_CODEC_LZ4_RAW), "LZ4_RAW");
    ck_assert_str_eq(pq_codec_name(99), "UNKNOWN(99)");
    ck_assert_str_eq(pq_page_type_name(PQ_PAGE_DATA_V2), "DATA_PAGE_V2");
    ck_assert_str_eq(pq_page_type_name(PQ_PAGE_DICTIONARY), "DICTIONARY_PAGE");
    ck_assert_str_eq(pq_page_type_name(-2147483647 - 1), "UNKNOWN(-2147483648)");
    ck_assert_str_eq(pq_version(), PQSTEP_VERSION_STRING);
}
END_TEST

START_TEST(logical_type_format)
{
    char buf[128];
    pq_logical_type lt = lt_decimal(10, 2);
    ck_assert_uint_eq(pq_logical_type_format(&lt, buf, sizeof buf), 13);
    ck_assert_str_eq(buf, "DECIMAL(10,2)");
    ck_assert_uint_eq(pq_logical_type_format(&lt, buf, 4), 13);
    ck_assert_str_eq(buf, "DEC");

    lt = lt_time(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_MICROS, true);
    pq_logical_type_format(&lt, buf, sizeof buf);
    ck_assert_str_eq(buf, "TIMESTAMP(MICROS,utc=true)");
    lt = lt_time(PQ_LOGICAL_TIME, PQ_UNIT_MILLIS, false);
    pq_logical_type_format(&lt, buf, sizeof buf);
    ck_assert_str_eq(buf, "TIME(MILLIS,utc=false)");
    lt = lt_int(16, false);
    pq_logical_type_format(&lt, buf, sizeof buf);
    ck_assert_str_eq(buf, "INT(16,unsigned)");
    lt = lt_int(64, true);
    pq_logical_type_format(&lt, buf, sizeof buf);
    ck_assert_str_eq(buf, "INT(64,signed)");

    static const struct {
        int kind;
        const char *s;
    } simple[] = {
        {PQ_LOGICAL_NONE, ""},          {PQ_LOGICAL_STRING, "STRING"}, {PQ_LOGICAL_MAP, "MAP"},
        {PQ_LOGICAL_LIST, "LIST"},      {PQ_LOGICAL_ENUM, "ENUM"},     {PQ_LOGICAL_DATE, "DATE"},
        {PQ_LOGICAL_UNKNOWN, "UNKNOWN"}, {PQ_LOGICAL_JSON, "JSON"},     {PQ_LOGICAL_BSON, "BSON"},
        {PQ_LOGICAL_UUID, "UUID"},      {PQ_LOGICAL_FLOAT16, "FLOAT16"}, {PQ_LOGICAL_VARIANT, "VARIANT"},
        {PQ_LOGICAL_GEOMETRY, "GEOMETRY"}, {PQ_LOGICAL_GEOGRAPHY, "GEOGRAPHY"},
        {PQ_LOGICAL_FUTURE, "FUTURE"},  {9, "UNKNOWN(9)"},
    };
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
        lt = lt_kind(simple[i].kind);
        pq_logical_type_format(&lt, buf, sizeof buf);
        ck_assert_str_eq(buf, simple[i].s);
    }

    lt = lt_kind(PQ_LOGICAL_VARIANT);
    lt.has_variant_version = true;
    lt.variant_version = 1;
    pq_logical_type_format(&lt, buf, sizeof buf);
    ck_assert_str_eq(buf, "VARIANT(specification_version=1)");

    lt = lt_kind(PQ_LOGICAL_GEOMETRY);
    lt.crs = span("srid:5070");
    lt.has_crs = true;
    pq_logical_type_format(&lt, buf, sizeof buf);
    ck_assert_str_eq(buf, "GEOMETRY(crs=srid:5070)");

    lt = lt_kind(PQ_LOGICAL_GEOGRAPHY);
    lt.crs = span("OGC:CRS84");
    lt.has_crs = true;
    lt.has_algorithm = true;
    lt.algorithm = 0;
    pq_logical_type_format(&lt, buf, sizeof buf);
    ck_assert_str_eq(buf, "GEOGRAPHY(crs=OGC:CRS84,algorithm=SPHERICAL)");
    lt.has_crs = false;
    lt.algorithm = 4;
    pq_logical_type_format(&lt, buf, sizeof buf);
    ck_assert_str_eq(buf, "GEOGRAPHY(algorithm=KARNEY)");
    lt.algorithm = 7;
    pq_logical_type_format(&lt, buf, sizeof buf);
    ck_assert_str_eq(buf, "GEOGRAPHY(algorithm=UNKNOWN(7))");
}
END_TEST

/* pq_metadata_find_leaves on the corpus's nested_maps.snappy.parquet:
 * leaves 0 a.key_value.key, 1 a.key_value.value.key_value.key,
 * 2 a.key_value.value.key_value.value, 3 b, 4 c (read off its schema). */
START_TEST(find_leaves_by_group)
{
    char *path = pq_test_corpus_path("data/nested_maps.snappy.parquet");
    if (!path) {
        pq_test_skip("no corpus");
        return;
    }
    uint8_t *file = NULL;
    size_t len = 0;
    pq_error err = {0};
    pq_metadata *md = pq_test_read_parsed(path, &file, &len, &err);
    free(path);
    ck_assert_msg(md != NULL, "%s", err.message);
    struct {
        const char *path;
        size_t n;
        uint32_t leaves[3];
    } cases[] = {
        {"a", 3, {0, 1, 2}},
        {"a.key_value", 3, {0, 1, 2}},
        {"a.key_value.value", 2, {1, 2}},
        {"a.key_value.value.key_value.key", 1, {1}},
        {"b", 1, {3}},
        {"c", 1, {4}},
        {"a.key", 0, {0}},          /* a prefix of a name, not of a path */
        {"a.key_value.value.", 0, {0}},
        {"", 0, {0}},
        {"z", 0, {0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t out[8] = {0};
        size_t n = pq_metadata_find_leaves(md, cases[i].path, out, 8);
        ck_assert_msg(n == cases[i].n, "'%s': %zu leaves, want %zu", cases[i].path, n, cases[i].n);
        for (size_t k = 0; k < n; k++) ck_assert_uint_eq(out[k], cases[i].leaves[k]);
        ck_assert_uint_eq(pq_metadata_find_leaves(md, cases[i].path, NULL, 0), cases[i].n);
    }
    uint32_t one[1] = {99}; /* a short array: the count, and only what fits */
    ck_assert_uint_eq(pq_metadata_find_leaves(md, "a", one, 1), 3);
    ck_assert_uint_eq(one[0], 0);
    ck_assert_uint_eq(pq_metadata_find_leaves(md, NULL, one, 1), 0);
    ck_assert_uint_eq(pq_metadata_find_leaves(NULL, "a", one, 1), 0);
    pq_metadata_release(md);
    free(file);
}
END_TEST

static Suite *schema_suite(void)
{
    Suite *s = suite_create("schema");
    TCase *tc = tcase_create("shapes");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, flat);
    tcase_add_test(tc, nested_struct);
    tcase_add_test(tc, list_three_level);
    tcase_add_test(tc, list_of_lists);
    tcase_add_test(tc, list_two_level_legacy);
    tcase_add_test(tc, list_structural_rules);
    tcase_add_test(tc, list_element_is_list);
    tcase_add_test(tc, list_malformed_is_struct);
    tcase_add_test(tc, map);
    tcase_add_test(tc, map_malformed_is_struct);
    tcase_add_test(tc, repeated_fields);
    tcase_add_test(tc, deep_levels);
    tcase_add_test(tc, empty_and_odd_shapes);
    tcase_add_test(tc, names_are_copied);
    tcase_add_test(tc, max_depth);
    suite_add_tcase(s, tc);

    tc = tcase_create("broken");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, broken_empty);
    tcase_add_test(tc, broken_too_many_children);
    tcase_add_test(tc, broken_too_few_children);
    tcase_add_test(tc, broken_negative_children);
    tcase_add_test(tc, broken_leaves);
    tcase_add_test(tc, broken_depth_bomb);
    tcase_add_test(tc, path_bytes_are_capped);
    tcase_add_test(tc, long_names_in_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("types");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, logical_from_converted);
    tcase_add_test(tc, arrow_plain_types);
    tcase_add_test(tc, arrow_logical_types);
    tcase_add_test(tc, arrow_converted_types);
    tcase_add_test(tc, arrow_annotation_does_not_fit);
    tcase_add_test(tc, arrow_annotation_fits);
    tcase_add_test(tc, arrow_type_format);
    suite_add_tcase(s, tc);

    tc = tcase_create("names");
    tcase_add_test(tc, find_leaves_by_group);
    tcase_add_test(tc, enum_names);
    tcase_add_test(tc, logical_type_format);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(schema_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
