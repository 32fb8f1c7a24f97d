/*
 * assemble.h — record assembly: a leaf column's definition and repetition
 * levels turned into the Arrow structure of every nesting level along its
 * path (validity bitmaps and list offsets), as Dremel describes it.
 *
 * LEVELS
 * A leaf's values pass through a chain of Arrow nesting levels, outermost
 * first: structs, lists (maps are lists of a non-nullable key/value struct)
 * and finally the leaf itself. The caller describes that chain as an array
 * of pq_asm_level, one per Arrow level, the last one PQ_ASM_LEAF:
 *
 *   kind      PQ_ASM_STRUCT, PQ_ASM_LIST or PQ_ASM_LEAF.
 *   nullable  the Arrow field is nullable (its Parquet node is OPTIONAL).
 *   def       a slot of this level is defined (valid) when its definition
 *             level is >= def.
 *   list_def  LIST only: the list is non-empty when def level >= list_def.
 *   list_rep  LIST only: the repetition level of its REPEATED node.
 *
 * The thresholds follow from the Parquet path, and pq_assemble checks them
 * exactly: with parent_def = 0 for the first level, the parent's def below a
 * STRUCT and the parent's list_def below a LIST,
 *   def      = parent_def + 1 when nullable, parent_def when not;
 *   list_def = def + 1 (the repeated node adds one);
 *   list_rep = 1 + the number of LIST levels above this one.
 * So max_def is the leaf's def and max_rep the number of LIST levels.
 *
 * FROM THE SCHEMA
 * pq_asm_levels_from_path computes the levels from the Parquet schema path,
 * one pq_asm_node per schema node from the top-level field (the root's
 * child) down to the leaf: its repetition (the pq_repetition value: 0
 * REQUIRED, 1 OPTIONAL, 2 REPEATED) and how it is read:
 *   PQ_ASM_LEAF     the primitive leaf;
 *   PQ_ASM_STRUCT   a group read as a struct (also a map's key_value group);
 *   PQ_ASM_LIST     a group annotated LIST or MAP, read as a list or map: its
 *                   only child must be REPEATED;
 *   PQ_ASM_WRAPPER  the REPEATED middle group of a 3-level list (or of a
 *                   keys-only map): no Arrow level of its own, the element is
 *                   its child.
 * Rules: OPTIONAL adds 1 to the definition level, REPEATED adds 1 to both
 * levels, REQUIRED adds nothing. A REPEATED node directly under a LIST node
 * gives that list its list_def and list_rep; unless it is a WRAPPER it is
 * also the element itself (a legacy 2-level list: a required element). A
 * REPEATED node anywhere else is a bare repeated field: a non-nullable list
 * of required elements, so it yields two levels, the list and itself.
 *
 * Examples (def/rep are the cumulative levels after each node):
 *   optional group a (LIST) {                  LIST nullable  def 1, list_def 2, rep 1
 *     repeated group list {                    (wrapper)
 *       optional int32 element } }             LEAF nullable  def 3
 *   optional group a (LIST) {                  LIST nullable  def 1, list_def 2, rep 1
 *     repeated int32 array }                   LEAF required  def 2      (2-level)
 *   repeated int32 x                           LIST required  def 0, list_def 1, rep 1
 *                                              LEAF required  def 1
 *   optional group m (MAP) {                   LIST nullable  def 1, list_def 2, rep 1
 *     repeated group key_value {               STRUCT required def 2
 *       required binary key;                   LEAF required  def 2
 *       optional int32 value } }               (or, for value: LEAF nullable def 3)
 *
 * ASSEMBLY
 * Each level entry (d, r) is one leaf slot or one null/empty ancestor. A
 * record starts at every r == 0. An entry with r > 0 adds an element to the
 * list whose list_rep is r; levels above that list keep their current slot,
 * and from the level below it downwards the entry opens a new slot at every
 * level whose parent slot holds it: below a STRUCT when the struct's slot
 * exists (a null struct still has child slots, as Arrow requires, which are
 * then undefined), below a LIST when d >= the list's list_def. A slot is
 * defined when d >= its def. A LIST slot's offsets point into the slots of
 * the next level.
 *
 * OUTPUT AND MEMORY
 * One pq_asm_out per level, all caller-owned. Pass buffers to fill them, or
 * NULL buffers to only count: the first pass gives every count so the caller
 * allocates exactly, the second fills. A level never has more slots than
 * there are level entries, so buffers of cap = n let a caller do one pass.
 * The kernel never writes past cap (PQ_ERR_INVALID_ARGUMENT instead).
 *   validity  bit s (Arrow's LSB order) set when slot s is defined. Written
 *             for any level that gets a buffer, nullable or not: a required
 *             field inside a null struct has undefined slots too, and the
 *             leaf's bitmap says which leaf slots the page's non-null values
 *             go to, in order. `nulls` counts the clear bits.
 *   offsets   LIST levels: count + 1 entries, offsets[0] = 0, into the next
 *             level's slots.
 *
 * BATCHES
 * max_records caps the records assembled (SIZE_MAX for all): assembly stops
 * before the entry that would start record max_records + 1. The result says
 * how many level entries that used and how many leaf values they need; the
 * next batch is a new call from there (that entry has r == 0).
 *
 * ERRORS (PQ_ERR_CORRUPT_DATA naming the index): d > max_def or d < 0,
 * r > max_rep or r < 0, r != 0 at the first entry (a record cannot start
 * inside a list), and an entry that continues a list (r > 0) that is not
 * open: the current slot of the list with list_rep r, or of a list above it,
 * is null, empty or absent, or d < that list's list_def. Malformed levels
 * are PQ_ERR_INVALID_ARGUMENT; a malformed path is PQ_ERR_SCHEMA. On error
 * the outputs hold what was assembled so far (counts included).
 */
#ifndef PQ_KERNELS_ASSEMBLE_H
#define PQ_KERNELS_ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

/* Most Arrow levels per leaf (a 256-deep schema of bare repeated fields). */
#define PQ_ASM_MAX_LEVELS 512

typedef enum pq_asm_kind {
    PQ_ASM_LEAF = 1,
    PQ_ASM_STRUCT = 2,
    PQ_ASM_LIST = 3,
    PQ_ASM_WRAPPER = 4 /* schema nodes only (pq_asm_node), never a level */
} pq_asm_kind;

typedef struct pq_asm_node {
    int32_t repetition; /* pq_repetition: 0 REQUIRED, 1 OPTIONAL, 2 REPEATED */
    int32_t kind;       /* pq_asm_kind */
} pq_asm_node;

typedef struct pq_asm_level {
    int32_t kind;     /* pq_asm_kind, not WRAPPER */
    bool nullable;
    int16_t def;      /* defined when def level >= def */
    int16_t list_def; /* LIST: non-empty when def level >= list_def */
    int16_t list_rep; /* LIST: repetition level of its repeated node */
} pq_asm_level;

typedef struct pq_asm_out {
    /* in: where to write (NULL: do not write) and how many slots fit */
    uint8_t *validity; /* (cap + 7) / 8 bytes */
    int32_t *offsets;  /* LIST levels: cap + 1 entries */
    size_t cap;
    /* out */
    size_t count;      /* slots at this level */
    size_t nulls;      /* undefined slots */
} pq_asm_out;

typedef struct pq_asm_result {
    size_t levels_used; /* level entries consumed: whole records */
    size_t records;     /* records assembled (slots of the first level) */
    size_t values;      /* defined leaf slots: the non-null values they take */
    int16_t max_def;    /* of the levels, as pq_asm_check_levels gives them */
    int16_t max_rep;
} pq_asm_result;

/* Levels of a schema path (see FROM THE SCHEMA). levels has room for cap
 * entries (2 * n_nodes always suffice); *n_levels gets the count. A path
 * that breaks the rules (a LIST whose child is not REPEATED, a WRAPPER
 * elsewhere, a LEAF that is not last or missing) is PQ_ERR_SCHEMA. */
pq_status pq_asm_levels_from_path(const pq_asm_node *nodes, size_t n_nodes, pq_asm_level *levels, size_t cap,
                                  size_t *n_levels, pq_error *err);

/* Checks levels against the rules of LEVELS; *max_def / *max_rep (either
 * may be NULL) get the maxima. PQ_ERR_INVALID_ARGUMENT names the level. */
pq_status pq_asm_check_levels(const pq_asm_level *levels, size_t n_levels, int16_t *max_def, int16_t *max_rep,
                              pq_error *err);

/* Assembles up to max_records records from n level entries. def may be NULL
 * only when max_def is 0, rep only when max_rep is 0 (all zeros). out has
 * n_levels entries (buffers in, counts out); res may be NULL. */
pq_status pq_assemble(const pq_asm_level *levels, size_t n_levels, const int16_t *def, const int16_t *rep, size_t n,
                      size_t max_records, pq_asm_out *out, pq_asm_result *res, pq_error *err);

#endif
