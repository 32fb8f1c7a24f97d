/* assemble.c — definition/repetition levels to Arrow validity and offsets. */
#include "kernels/assemble.h"

#include "kernels/kernel_error.h"

enum { REP_REQUIRED = 0, REP_OPTIONAL = 1, REP_REPEATED = 2 };

/* ---------------------------------------------------------------------------
 * Levels from a schema path
 * ------------------------------------------------------------------------- */

static pq_status emit(pq_asm_level *levels, size_t cap, size_t *n, int32_t kind, bool nullable, int def,
                      pq_error *err)
{
    if (*n >= cap)
        return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "assemble: more than %zu levels on the path", cap);
    levels[*n] = (pq_asm_level){.kind = kind, .nullable = nullable, .def = (int16_t)def};
    (*n)++;
    return PQ_OK;
}

pq_status pq_asm_levels_from_path(const pq_asm_node *nodes, size_t n_nodes, pq_asm_level *levels, size_t cap,
                                  size_t *n_levels, pq_error *err)
{
    if (!nodes || !levels || !n_levels || n_nodes == 0)
        return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "assemble: empty path or NULL argument");
    /* each node emits at most two levels; this also keeps def/rep in int16 */
    if (n_nodes > PQ_ASM_MAX_LEVELS / 2)
        return pq_kfail(err, PQ_ERR_UNSUPPORTED, "assemble: path of %zu nodes is deeper than %d", n_nodes,
                        PQ_ASM_MAX_LEVELS / 2);

    size_t n = 0;
    int def = 0, rep = 0;
    size_t pending = SIZE_MAX; /* the LIST level waiting for its repeated child */
    pq_status st;

    for (size_t j = 0; j < n_nodes; j++) {
        int32_t r = nodes[j].repetition, kind = nodes[j].kind;
        if (r != REP_REQUIRED && r != REP_OPTIONAL && r != REP_REPEATED)
            return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "assemble: node %zu has repetition %d", j, (int)r);
        if (kind < PQ_ASM_LEAF || kind > PQ_ASM_WRAPPER)
            return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "assemble: node %zu has kind %d", j, (int)kind);
        if ((kind == PQ_ASM_LEAF) != (j + 1 == n_nodes))
            return pq_kfail(err, PQ_ERR_SCHEMA, "assemble: node %zu: the leaf must be the last node and only it", j);
        if (r != REP_REQUIRED) def++;
        if (r == REP_REPEATED) rep++;

        if (pending != SIZE_MAX) {
            if (r != REP_REPEATED)
                return pq_kfail(err, PQ_ERR_SCHEMA, "assemble: node %zu: the child of a list must be repeated", j);
            levels[pending].list_def = (int16_t)def;
            levels[pending].list_rep = (int16_t)rep;
            pending = SIZE_MAX;
            if (kind == PQ_ASM_WRAPPER) continue;
            /* 2-level list: the repeated node is the (required) element */
        } else if (kind == PQ_ASM_WRAPPER) {
            return pq_kfail(err, PQ_ERR_SCHEMA, "assemble: node %zu: a list wrapper outside a list", j);
        } else if (r == REP_REPEATED) {
            /* bare repeated field: a required list of required elements */
            if ((st = emit(levels, cap, &n, PQ_ASM_LIST, false, def - 1, err)) != PQ_OK) return st;
            levels[n - 1].list_def = (int16_t)def;
            levels[n - 1].list_rep = (int16_t)rep;
        }
        if ((st = emit(levels, cap, &n, kind, r == REP_OPTIONAL, def, err)) != PQ_OK) return st;
        if (kind == PQ_ASM_LIST) pending = n - 1;
    }
    /* unreachable with the leaf-last rule, kept for safety */
    if (pending != SIZE_MAX) return pq_kfail(err, PQ_ERR_SCHEMA, "assemble: a list without a repeated child");
    *n_levels = n;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Checking levels
 * ------------------------------------------------------------------------- */

/* What assembly needs besides the levels, derived once per call. */
typedef struct plan {
    int16_t exist[PQ_ASM_MAX_LEVELS];      /* a slot exists at level i when d >= exist[i] */
    int16_t list_level[PQ_ASM_MAX_LEVELS]; /* list_level[r - 1]: the LIST level with list_rep r */
    int16_t max_def, max_rep;
} plan;

static pq_status make_plan(const pq_asm_level *levels, size_t n_levels, plan *p, pq_error *err)
{
    if (!levels || n_levels == 0 || n_levels > PQ_ASM_MAX_LEVELS)
        return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "assemble: %zu levels (1 to %d allowed)", n_levels,
                        PQ_ASM_MAX_LEVELS);
    int parent_def = 0, exist = 0, lists = 0;
    for (size_t i = 0; i < n_levels; i++) {
        const pq_asm_level *l = &levels[i];
        if ((l->kind == PQ_ASM_LEAF) != (i + 1 == n_levels) ||
            (l->kind != PQ_ASM_LEAF && l->kind != PQ_ASM_STRUCT && l->kind != PQ_ASM_LIST))
            return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT,
                            "assemble: level %zu has kind %d (the last level, and only it, must be the leaf)", i,
                            (int)l->kind);
        if (l->def != parent_def + (l->nullable ? 1 : 0))
            return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "assemble: level %zu has def %d, expected %d", i,
                            (int)l->def, parent_def + (l->nullable ? 1 : 0));
        p->exist[i] = (int16_t)exist;
        parent_def = l->def;
        if (l->kind == PQ_ASM_LIST) {
            if (l->list_def != l->def + 1 || l->list_rep != lists + 1)
                return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT,
                                "assemble: list level %zu has list_def %d and list_rep %d, expected %d and %d", i,
                                (int)l->list_def, (int)l->list_rep, l->def + 1, lists + 1);
            p->list_level[lists++] = (int16_t)i;
            parent_def = exist = l->list_def;
        }
    }
    p->max_def = (int16_t)parent_def;
    p->max_rep = (int16_t)lists;
    return PQ_OK;
}

pq_status pq_asm_check_levels(const pq_asm_level *levels, size_t n_levels, int16_t *max_def, int16_t *max_rep,
                              pq_error *err)
{
    plan p;
    pq_status st = make_plan(levels, n_levels, &p, err);
    if (st != PQ_OK) return st;
    if (max_def) *max_def = p.max_def;
    if (max_rep) *max_rep = p.max_rep;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Assembly
 * ------------------------------------------------------------------------- */

/* Bits are written whole-byte-first so the caller need not zero the bitmap. */
static inline void put_bit(uint8_t *bits, size_t i, bool v)
{
    if ((i & 7) == 0) bits[i >> 3] = 0;
    if (v) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static pq_status corrupt(pq_error *err, size_t k, int d, int r, const char *why)
{
    return pq_kfail(err, PQ_ERR_CORRUPT_DATA, "levels: entry %zu (def %d, rep %d): %s", k, d, r, why);
}

pq_status pq_assemble(const pq_asm_level *levels, size_t n_levels, const int16_t *def, const int16_t *rep, size_t n,
                      size_t max_records, pq_asm_out *out, pq_asm_result *res, pq_error *err)
{
    plan p;
    pq_status st = make_plan(levels, n_levels, &p, err);
    if (st != PQ_OK) return st;
    if (!out || (n > 0 && ((!def && p.max_def > 0) || (!rep && p.max_rep > 0))))
        return pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "assemble: NULL levels or outputs");
    for (size_t i = 0; i < n_levels; i++) out[i].count = out[i].nulls = 0;

    size_t k = 0, records = 0;
    int open = 0; /* lists of the current path, from the top, whose slot is non-empty */
    st = PQ_OK;
    for (; k < n; k++) {
        int d = def ? def[k] : 0, r = rep ? rep[k] : 0;
        if (d < 0 || d > p.max_def) {
            st = corrupt(err, k, d, r, "definition level out of range");
            break;
        }
        if (r < 0 || r > p.max_rep) {
            st = corrupt(err, k, d, r, "repetition level out of range");
            break;
        }
        size_t i = 0;
        if (r == 0) {
            if (records == max_records) break;
            records++;
        } else {
            if (k == 0) {
                st = corrupt(err, k, d, r, "the first entry must start a record (rep 0)");
                break;
            }
            size_t l = (size_t)p.list_level[r - 1];
            if (r > open || d < levels[l].list_def) {
                st = corrupt(err, k, d, r, "continues a list that is null, empty or absent");
                break;
            }
            i = l + 1;
        }
        open = r;
        /* new slots from level i down, while the parent slot holds them */
        for (; i < n_levels && d >= p.exist[i]; i++) {
            pq_asm_out *o = &out[i];
            const pq_asm_level *lv = &levels[i];
            size_t s = o->count;
            if ((o->validity || o->offsets) && s >= o->cap) {
                st = pq_kfail(err, PQ_ERR_INVALID_ARGUMENT, "assemble: level %zu needs more than %zu slots", i,
                              o->cap);
                goto done;
            }
            if (s >= INT32_MAX) {
                st = pq_kfail(err, PQ_ERR_UNSUPPORTED, "assemble: level %zu has more than INT32_MAX slots", i);
                goto done;
            }
            bool defined = d >= lv->def;
            if (o->validity) put_bit(o->validity, s, defined);
            o->nulls += !defined;
            o->count = s + 1;
            if (lv->kind == PQ_ASM_LIST) {
                if (o->offsets) o->offsets[s] = (int32_t)out[i + 1].count;
                if (d >= lv->list_def) open++;
            }
        }
    }
done:
    /* close the offsets of every list, also after an error: they stay in bounds */
    for (size_t i = 0; i < n_levels; i++)
        if (levels[i].kind == PQ_ASM_LIST && out[i].offsets) out[i].offsets[out[i].count] = (int32_t)out[i + 1].count;
    if (res) {
        res->levels_used = k;
        res->records = records;
        res->values = out[n_levels - 1].count - out[n_levels - 1].nulls;
        res->max_def = p.max_def;
        res->max_rep = p.max_rep;
    }
    return st;
}
