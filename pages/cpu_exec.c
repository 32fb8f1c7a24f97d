/*
 * cpu_exec.c — the CPU executor of decode plans (see cpu_exec.h): a plan's
 * dictionary and data pages run as tasks on a thread pool, each page
 * decoded by page_values.c, the chunks' arrays sized, allocated and
 * finished; and pq_column_decode, one chunk run on the calling thread.
 */
#include "pages/cpu_exec.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/dictionary.h"
#include "kernels/rle.h"
#include "pages/buffer_pool.h"
#include "metadata/error.h"
#include "pages/codec.h"
#include "pages/page_values_internal.h"

/* ---------------------------------------------------------------------------
 * The executor
 *
 * Phases over the plan, each a set of tasks run by ex->run:
 *   1. dictionary pages, one task a chunk, and in the same run
 *   2. data pages (a data page waits for its chunk's dictionary, or decodes
 *      it itself when no thread has taken it yet: dictionary_ready): each
 *      decompressed, its levels decoded into the chunk's
 *      level arrays at its level offset, and then (page_mode) its values
 *      decoded straight into the chunk's arrays at its value offset (direct:
 *      the chunk is sized by its headers, so the arrays already exist), or
 *      only counted (deferred: non-null values from the levels, string
 *      bytes from the lengths or the dictionary indices), or decoded into
 *      buffers of the page's own (staged): the size pass;
 *      A late dictionary (late_dictionary) is decoded in the same run, by
 *      the thread that finishes its chunk's last data page, as far as the
 *      pages' selected indices reach (late_page_done); one decoded whole
 *      waits for another to be decompressed with, and the last left
 *      waiting is decoded after the run;
 *   3. on the calling thread: the other chunks' offsets summed
 *      (pq_decode_plan_place) and their arrays allocated at the exact size;
 *   4. deferred pages decoded into place and staged ones copied there, one
 *      task a page;
 *   5. each chunk finished: definition levels filled in or dropped, the
 *      last offset, the view buffers.
 * ------------------------------------------------------------------------- */

/* How a data page is decoded. */
typedef enum page_mode {
    PAGE_DIRECT,    /* its offsets are known from the headers: decoded into place at once */
    PAGE_DEFERRED,  /* levels and counts first (the size pass, its values section kept
                     * decompressed), values into place once the offsets are summed */
    PAGE_STAGED     /* decoded into buffers of its own (the size pass), then copied into
                     * place: encodings whose sizes cost a full decode (DELTA_*), string
                     * views of pages not dictionary-encoded, and selected rows of pages
                     * not dictionary-encoded */
} page_mode;

typedef struct exec_page {
    page_mode mode;
    bool page_defs;          /* the page stored its definition levels */
    pq_column_values local;  /* staged: the page's values, until placed */
    size_t local_bytes;      /* what `local` holds, counted in the chunk's memory */
    uint8_t *buf;            /* deferred: the decompressed page, or its decrypted bytes (NULL:
                              * the chunk's bytes) */
    size_t buf_cap;
    const uint8_t *vals;     /* deferred: its values section */
    size_t vlen, nn;
    cd_indices ix;           /* deferred strings of a dictionary-encoded page, or a page of a
                              * late dictionary: the indices the size pass decoded (of the
                              * selected rows alone); a late dictionary's page also notes its
                              * largest index + 1 (ix.need; 0: none) */
    uint64_t *vsel;          /* deferred page of a selection with nulls: its values' selection
                              * (cd_ctx.vsel), for phase 4 */
    size_t vsel_cap;
    uint64_t short_by;       /* string bytes planned from its header or section that its values
                              * did not take (bytes after the last value: fastparquet writes two
                              * empty values more than its levels count); finish_chunk closes
                              * the gap */
} exec_page;

typedef struct exec {
    const pq_cpu_executor *ex;
    pq_decode_plan *plan;
    pq_column_values *outs;  /* per chunk */
    cd_chunk *chunks;        /* per chunk */
    exec_page *pages;        /* per plan page */
    _Atomic bool *chunk_failed;
    size_t *fail_page;       /* per chunk: the plan page of its first failure (under err_lock) */
    pq_status *status;       /* per chunk */
    pq_error *errors;        /* per chunk */
    pthread_mutex_t err_lock;
    size_t *tasks;           /* plan page indexes of the phase */
    size_t ntasks;
    _Atomic size_t *remaining; /* per chunk: its pages' final tasks not done yet */
    _Atomic bool *done;      /* per chunk: finished and handed to chunk_done */
    _Atomic uint8_t *dict_state; /* per chunk: dict_state, its dictionary's step */
    _Atomic size_t *late_left; /* per late chunk: its data pages not done yet; the page that
                                * brings it to 0 decodes the late dictionary (late_page_done) */
    _Atomic size_t late_waiting; /* a late chunk whose whole SNAPPY dictionary waits for another
                                  * to be decompressed with; SIZE_MAX: none */
    size_t ndict;            /* phase 1-2: tasks[0, ndict) are dictionary pages, the rest data pages */
    size_t *units;           /* phase 1-2: unit u is tasks [units[u], units[u + 1]), one or two
                              * (make_units) */
    size_t nunits;
    uint8_t **wbuf;          /* per worker: its two page buffers (2 * worker + 0, 1; data_pair
                              * decompresses two pages at once), reused from page to page (a
                              * deferred page keeps a buffer of its own) */
    size_t *wbuf_cap;
    uint8_t **cbuf;          /* per worker: its two buffers for decrypted pages (encrypted
                              * chunks), as wbuf */
    size_t *cbuf_cap;
    unsigned nworkers;
} exec;

/* A chunk's dictionary in phase 1-2 (dictionary_ready). */
enum dict_state {
    DICT_READY,   /* decoded (or failed, or none to decode here): its data pages may run */
    DICT_PENDING, /* to be decoded by whoever needs it first */
    DICT_BUSY     /* being decoded by another thread */
};

/* A selection of an optional flat leaf not known to hold no null: its
 * pages store the selected rows' levels (page_values.c defs_selected). */
static bool selection_with_nulls(const pq_plan_chunk *pc)
{
    return pc->rows && pc->max_def > 0 && pc->max_rep == 0 && !(pc->flags & PQ_PLAN_CHUNK_NO_NULLS);
}

/* A task's context for chunk k. */
static void task_init(exec *x, size_t k, cd_ctx *c, pq_error *err, unsigned worker)
{
    const pq_plan_chunk *pc = &x->plan->chunks[k];
    memset(c, 0, sizeof *c);
    c->leaf = pc->leaf;
    c->codec = pc->codec;
    c->limit = x->ex->memory_limit;
    c->ch = &x->chunks[k];
    c->err = err;
    if (worker < x->ex->ncctx && x->ex->cctx) {
        c->cctx = &x->ex->cctx[worker];
    } else {
        pq_codec_ctx_init(&c->own_cctx);
        c->cctx = &c->own_cctx;
    }
    c->width = pc->width;
    c->decimal128 = (pc->flags & PQ_PLAN_CHUNK_DECIMAL128) != 0;
    c->stored_width = c->decimal128 ? pq_plan_value_width(pc->leaf) : pc->width;
    c->views = pc->output == PQ_PLAN_VIEWS;
    c->indices = (pc->flags & PQ_PLAN_CHUNK_INDICES) != 0;
    c->rows = pc->rows;
    c->rows_nulls = selection_with_nulls(pc);
    c->defs_lazy = pc->max_rep == 0;
    c->def_levels = x->outs[k].def_levels;
    c->rep_levels = x->outs[k].rep_levels;
}

static void task_done(cd_ctx *c)
{
    if (c->cctx == &c->own_cctx) pq_codec_ctx_free(&c->own_cctx);
    if (c->buf) release(c, c->buf, c->buf_cap);
    if (c->crypt) release(c, c->crypt, c->crypt_cap);
    if (c->vsel) release(c, c->vsel, c->vsel_cap);
    c->buf = NULL;
    c->crypt = NULL;
    c->vsel = NULL;
}

/* A page of a selection with nulls whose levels carried the selection
 * over to its values (page_vsel): the value steps see that selection
 * (values from 0) in place of the rows', in `vrows`. */
static void select_values(cd_ctx *c, pq_decode_rows *vrows, const uint64_t *vsel, size_t nn)
{
    *vrows = (pq_decode_rows){(const uint8_t *)vsel, 0, nn};
    c->rows = vrows;
    c->page_row = 0;
}

/* The stored bytes of the task's page (c->pi, c->page: what its header's
 * compressed_size counts) in *raw: where they lie, or, in an encrypted
 * chunk, decrypted into c->crypt here, just before they are decompressed
 * (the page in the cache, no plaintext copy of the whole chunk). */
static pq_status page_bytes(cd_ctx *c, const pq_plan_chunk *pc, const uint8_t **raw)
{
    const pq_page_info *pi = c->pi;
    if (!pc->cipher) {
        *raw = pc->bytes + pi->data_offset;
        return PQ_OK;
    }
    size_t n = (size_t)pi->compressed_size; /* >= 0: pq_decode_plan_add_chunk */
    pq_status st = grow(c, (void **)&c->crypt, &c->crypt_cap, n ? n : 1, "a decrypted page");
    if (st != PQ_OK) return st;
    pq_error kerr;
    st = pq_page_decrypt(pc->cipher, pc->bytes, pc->len, pi, &pc->modules[c->page], c->page, c->crypt, &kerr);
    if (st != PQ_OK) { /* the message names the page and its module */
        if (c->err) *c->err = kerr;
        return st;
    }
    *raw = c->crypt;
    return PQ_OK;
}

/* Record a failure of plan page i (chunk k): the chunk keeps its first. */
static void task_failed(exec *x, size_t k, size_t i, pq_status st, const pq_error *err)
{
    pthread_mutex_lock(&x->err_lock);
    if (!atomic_load(&x->chunk_failed[k]) || i < x->fail_page[k]) {
        x->fail_page[k] = i;
        x->status[k] = st;
        x->errors[k] = *err;
        atomic_store(&x->chunk_failed[k], true);
    }
    pthread_mutex_unlock(&x->err_lock);
}

/* Tasks 0 .. n - 1 on the executor's pool (or here, one after another). */
static void run_n(exec *x, size_t n, bool (*task)(void *, size_t, unsigned))
{
    if (!n) return;
    if (x->ex->run) {
        x->ex->run(n, x->ex->threads, task, x);
        return;
    }
    for (size_t t = 0; t < n; t++) task(x, t, 0);
}

static void run_tasks(exec *x, bool (*task)(void *, size_t, unsigned))
{
    run_n(x, x->ntasks, task);
}

/* A dictionary task's context for plan page i, returned. */
static const pq_plan_page *dictionary_task_init(exec *x, size_t i, unsigned worker, cd_ctx *c, pq_error *err)
{
    const pq_plan_page *pg = &x->plan->pages[i];
    task_init(x, pg->chunk, c, err, worker);
    c->page = pg->index;
    c->pi = pg->info;
    return pg;
}

/* The dictionary page (c->pi) of chunk pc decompressed whole from its
 * stored bytes `raw` (page_bytes'); *p its bytes. A fixed-width
 * dictionary is its page's bytes: decompressed straight into the chunk's
 * dictionary (pq_page_decode_dictionary sees it in place). */
static pq_status dictionary_page_whole(cd_ctx *c, const pq_plan_chunk *pc, const uint8_t *raw, const uint8_t **p)
{
    const pq_page_info *pi = c->pi;
    bool fixed = pc->physical_type != PQ_BYTE_ARRAY && pc->physical_type != PQ_BOOLEAN;
    pq_status st = pq_page_decompress(c, true, raw, (size_t)pi->compressed_size, (size_t)pi->uncompressed_size, p);
    /* c->buf is set only when the page was decompressed into it (p). */
    if (fixed && c->buf && !c->ch->dict_values) { /* the chunk's dictionary from here on (counted as held) */
        c->ch->dict_values = c->buf;
        c->ch->dict_values_cap = c->buf_cap;
        c->buf = NULL;
    }
    return st;
}

/* Chunk k's dictionary page decoded whole: set up (dictionary_begin), then
 * decompressed and decoded (dictionary_end); apart so that a pair of them
 * can be decompressed together in between (dictionary_pair). */
typedef struct dict_page {
    size_t k, i;             /* chunk, plan page */
    cd_ctx c;
    pq_error err;
    const uint8_t *raw;      /* its stored bytes (decrypted) */
    pq_status st;
} dict_page;

static void dictionary_begin(exec *x, size_t k, unsigned worker, dict_page *d)
{
    d->k = k;
    d->i = (size_t)x->plan->chunks[k].dictionary;
    dictionary_task_init(x, d->i, worker, &d->c, &d->err);
    d->raw = NULL;
    d->st = page_bytes(&d->c, &x->plan->chunks[k], &d->raw);
}

static void dictionary_end(exec *x, dict_page *d)
{
    cd_ctx *c = &d->c;
    const uint8_t *p;
    pq_status st = d->st;
    if (st == PQ_OK) st = dictionary_page_whole(c, &x->plan->chunks[d->k], d->raw, &p);
    if (st == PQ_OK) st = pq_page_decode_dictionary(c, p, (size_t)c->pi->uncompressed_size, SIZE_MAX);
    task_done(c);
    if (st != PQ_OK) task_failed(x, d->k, d->i, st, &d->err);
}

static void decode_dictionary_page(exec *x, size_t k, unsigned worker)
{
    dict_page d;
    dictionary_begin(x, k, worker, &d);
    dictionary_end(x, &d);
}

/* Chunk k's dictionary decoded before its data pages use it: by this
 * thread when no other has taken it yet (its task, or the first of its
 * data pages to run), else waited for. Phases 1 and 2 are one run, so a
 * thread done with the dictionaries goes on to data pages instead of
 * waiting at a barrier for the longest dictionary; a data page seldom
 * waits, since every dictionary task is handed out before any data page. */
static void dictionary_ready(exec *x, size_t k, unsigned worker)
{
    uint8_t s = atomic_load(&x->dict_state[k]);
    if (s == DICT_READY) return;
    uint8_t pending = DICT_PENDING;
    if (s == DICT_PENDING && atomic_compare_exchange_strong(&x->dict_state[k], &pending, DICT_BUSY)) {
        decode_dictionary_page(x, k, worker);
        atomic_store(&x->dict_state[k], DICT_READY);
        return;
    }
    while (atomic_load(&x->dict_state[k]) != DICT_READY) sched_yield();
}

/* The chunk's arrays seen from page pg's first value, with room for the
 * page's own values alone. */
static void page_window(cd_ctx *c, const exec *x, const pq_plan_page *pg, pq_column_values *w)
{
    const pq_plan_chunk *pc = &x->plan->chunks[pg->chunk];
    *w = x->outs[pg->chunk];
    w->n_values = (size_t)pg->value_offset;
    w->data_len = (size_t)pg->string_offset;
    c->out = w;
    c->direct = true;
    c->room_from_stats = (pc->flags & PQ_PLAN_CHUNK_SIZE_STATISTICS) != 0;
    uint64_t end = pg->value_offset + pg->n_values;
    c->values_cap = w->values ? (size_t)end * pc->width : 0;
    c->views_cap = w->views ? (size_t)end * 16 : 0;
    c->offsets_cap = w->offsets ? (size_t)(end + 1) * sizeof(int32_t) : 0;
    c->data_cap = w->data ? (size_t)(pg->string_offset + pg->string_bytes) : 0;
}

/* Whether the size pass takes a deferred page's string bytes as its
 * values section less a 4-byte length a value (PQ_PLAN_EXACT_BYTES: a
 * PLAIN page of a chunk decoded for every row) rather than counting them. */
static bool bytes_from_section(const pq_plan_chunk *pc, const pq_page_info *pi)
{
    return pi->encoding == PQ_ENC_PLAIN && !pc->rows && (pc->flags & PQ_PLAN_CHUNK_EXACT_BYTES);
}

/* Deferred pages' size pass: the string bytes of `nn` values. */
static pq_status count_string_bytes(cd_ctx *c, exec_page *ep, const pq_plan_chunk *pc, const pq_page_info *pi,
                                    const uint8_t *p, size_t len, size_t nn, uint64_t *bytes)
{
    *bytes = 0;
    if (nn == 0) return PQ_OK; /* writers differ on what an all-null page holds */
    if (bytes_from_section(pc, pi)) {
        /* Every value kept: its bytes are the section less a 4-byte length
         * a value, as PQ_PLAN_EXACT_BYTES takes a page whose levels' size
         * its header says. Phase 4 walks the lengths within exactly that
         * room and refuses a page whose values take other bytes. */
        if (nn > len / 4) return fail(c, PQ_ERR_CORRUPT_DATA, "%zu values cannot fit in %zu bytes", nn, len);
        *bytes = len - 4 * nn;
        return PQ_OK;
    }
    if (pi->encoding == PQ_ENC_PLAIN) {
        /* Every length walked (and checked), the selected ones added: the
         * selection's bits a word of 64 rows at a time. */
        size_t pos = 0;
        uint64_t sum = 0;
        for (size_t i = 0; i < nn; i += 64) {
            uint64_t b = c->rows ? sel_bits(c->rows, c->page_row + i) : ~0ull;
            size_t end = nn - i < 64 ? nn : i + 64;
            for (size_t j = i; j < end; j++, b >>= 1) {
                uint32_t l;
                pq_status st = plain_length(c, p, len, &pos, j, nn, &l);
                if (st != PQ_OK) return st;
                pos += l;
                sum += (b & 1) ? l : 0;
            }
        }
        *bytes = sum;
        return PQ_OK;
    }
    /* Dictionary indices: the entries' lengths added up. */
    if (!c->ch->have_dict) return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary-encoded page without a dictionary page");
    /* The indices are kept for the gather (phase 4): decoded once. */
    pq_rle_decoder d;
    pq_error kerr;
    pq_status st = pq_rle_init_dict_indices(&d, p, len, &kerr);
    if (st != PQ_OK) return kfail(c, st, &kerr);
    if (nn > SIZE_MAX / sizeof(uint32_t)) return fail(c, PQ_ERR_MEMORY_LIMIT, "%zu values overflow", nn);
    if ((st = grow(c, (void **)&ep->ix.idx, &ep->ix.idx_cap, nn * sizeof(uint32_t), "dictionary indices")) != PQ_OK)
        return st;
    const int32_t *off = c->ch->dict_offsets;
    for (size_t done = 0; done < nn;) {
        size_t want = nn - done < BATCH ? nn - done : BATCH, got = want, kept = want;
        uint32_t *idx = ep->ix.idx + ep->ix.nidx;
        bool whole = !c->rows;
        /* a selection's window: its selected indices alone (the rest skipped) */
        if (c->rows && (st = pq_page_dict_window(c, &d, done, want, nn, idx, &kept, &whole)) != PQ_OK) return st;
        if (whole && (st = pq_rle_next(&d, idx, want, &got, &kerr)) != PQ_OK) return kfail(c, st, &kerr);
        if (got < want)
            return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary indices: %zu decoded, the page has %zu non-null values",
                        done + got, nn);
        if (whole) kept = want;
        /* Every index so far in range (the decoder's running max, as
         * dict_batch checks it), or each kept one checked. */
        if (!(whole && d.max_out < c->ch->dict_n)) {
            size_t bad = pq_dict_first_out_of_range(idx, kept, c->ch->dict_n);
            if (bad < kept && whole)
                return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary index %u at value %zu >= dictionary size %zu",
                            idx[bad], done + bad, c->ch->dict_n);
            if (bad < kept)
                return fail(c, PQ_ERR_CORRUPT_DATA, "dictionary index %u of a selected row >= dictionary size %zu",
                            idx[bad], c->ch->dict_n);
        }
        *bytes += pq_dict_bytes_checked(off, idx, kept);
        ep->ix.nidx += kept;
        done += want;
    }
    return PQ_OK;
}

static pq_status finish_chunk(exec *x, size_t k);

/* Chunk k made whole and handed over, once (whichever thread gets here). */
static void complete_chunk(exec *x, size_t k)
{
    bool expected = false;
    if (!atomic_compare_exchange_strong(&x->done[k], &expected, true)) return;
    if (!atomic_load(&x->chunk_failed[k]) && finish_chunk(x, k) != PQ_OK) {
        x->status[k] = pq_error_set(&x->errors[k], PQ_ERR_NOMEM, "out of memory");
        atomic_store(&x->chunk_failed[k], true);
    }
    if (atomic_load(&x->chunk_failed[k])) pq_column_values_free(&x->outs[k]);
    if (x->ex->chunk_done) x->ex->chunk_done(x->ex->user, k, x->status[k], &x->outs[k], &x->errors[k]);
}

/* One of chunk k's final tasks is done. */
static void page_done(exec *x, size_t k)
{
    if (atomic_fetch_sub(&x->remaining[k], 1) == 1) complete_chunk(x, k);
}

/* A late dictionary's page (phase 2): the selected rows' indices, kept in
 * ep for the gather of phase 4 (no value is written now). */
static pq_status collect_page_indices(cd_ctx *c, exec_page *ep, const uint8_t *vals, size_t vlen, size_t nn)
{
    pq_column_values none;
    memset(&none, 0, sizeof none);
    c->out = &none;
    c->collect = &ep->ix;
    pq_status st = nn ? pq_page_values_dictionary(c, vals, vlen, nn) : PQ_OK;
    c->collect = NULL;
    c->out = NULL;
    return st;
}

/* Whether chunk pc's dictionary is decoded late (pq_cpu_executor's
 * whole_dictionaries says when). Not for string offsets: their size pass
 * needs every entry's length before the data pages are counted. */
static bool late_dictionary(const pq_cpu_executor *ex, const pq_decode_plan *plan, const pq_plan_chunk *pc)
{
    /* (not in an encrypted chunk: its page must be decrypted whole anyway) */
    if (ex->whole_dictionaries || !pc->rows || pc->dictionary < 0 || (pc->flags & PQ_PLAN_CHUNK_INDICES) ||
        pc->cipher ||
        pc->output == PQ_PLAN_BYTES || pc->physical_type == PQ_BOOLEAN || !pq_prefix_supported(pc->codec))
        return false;
    const pq_page_info *d = plan->pages[pc->dictionary].info;
    if (d->num_values <= 0 || d->compressed_size < 0 || (size_t)d->uncompressed_size < PQ_LATE_DICT_MIN_BYTES ||
        (uint64_t)d->uncompressed_size > PQ_MAX_PAGE_SIZE || d->data_offset > pc->len ||
        (uint64_t)d->compressed_size > pc->len - d->data_offset)
        return false;
    /* A page stored as it is is read in place: nothing to save. */
    if (pq_page_stored(pc->codec, pc->bytes + d->data_offset, (size_t)d->compressed_size,
                       (size_t)d->uncompressed_size))
        return false;
    return pq_decode_rows_count(pc->rows, pc->rows->first, pc->rows->count) <= PQ_LATE_DICT_MAX_ROWS;
}

/* Whether a data page of chunk pc that the plan decodes is dictionary-
 * encoded, or the dictionary is output itself (PQ_PLAN_INDICES): else its
 * page need not be read at all. */
static bool dictionary_used(const pq_decode_plan *plan, const pq_plan_chunk *pc)
{
    if (pc->flags & PQ_PLAN_CHUNK_INDICES) return true;
    for (size_t i = pc->first_page; i < pc->first_page + pc->npages; i++)
        if (plan->pages[i].kind == PQ_PLAN_PAGE_DATA && is_dict_page(plan->pages[i].info)) return true;
    return false;
}

/* The uncompressed bytes of chunk pc's dictionary page. */
static uint64_t dictionary_bytes(const pq_decode_plan *plan, const pq_plan_chunk *pc)
{
    int32_t u = plan->pages[pc->dictionary].info->uncompressed_size;
    return u > 0 ? (uint64_t)u : 0;
}

/* Into the page buffers (pq_page_decompress_two). */
#define INTO_BUFFERS ((uint8_t *const[2]){NULL, NULL})

/* Pages smaller than this are not worth pairing. */
#define PAIR_MIN_BYTES 4096

/* Whether a page of chunk k (context c, set up with status st) whose
 * stored bytes src (src_len) decompress to dst_len bytes can be
 * decompressed with another: SNAPPY, not encrypted, sizes the steps take,
 * not small, not stored as it is. */
static bool pairable(const exec *x, size_t k, const cd_ctx *c, pq_status st, const uint8_t *src, size_t src_len,
                     size_t dst_len)
{
    return st == PQ_OK && c->codec == PQ_CODEC_SNAPPY && !x->plan->chunks[k].cipher && dst_len >= PAIR_MIN_BYTES &&
           dst_len <= PQ_MAX_PAGE_SIZE && !pq_page_stored(c->codec, src, src_len, dst_len);
}

/* Whether chunk k's late dictionary is decoded whole (its selected rows
 * reach nearly every entry). */
static bool late_whole(const exec *x, size_t k)
{
    return x->chunks[k].late_need * 8 >= x->chunks[k].late_total * 7;
}

/* Chunk k's late dictionary page decompressed only as far as its first
 * late_need entries reach (SNAPPY and ZSTD stop there), and those entries
 * decoded; near the whole page, all of it in one go. */
static void late_dictionary_decode_in(exec *x, size_t k, cd_ctx *c, pq_error *err)
{
    size_t i = (size_t)x->plan->chunks[k].dictionary;
    const pq_page_info *pi = c->pi;
    const pq_plan_chunk *pc = &x->plan->chunks[k];
    cd_chunk *ch = c->ch;
    size_t need = ch->late_need, total = ch->late_total, len = (size_t)pi->uncompressed_size;
    const uint8_t *raw = pc->bytes + pi->data_offset, *p = NULL;
    bool fixed = pc->physical_type != PQ_BYTE_ARRAY;
    size_t width = pq_plan_value_width(pc->leaf), avail = len;
    pq_status st = PQ_OK;
    if (late_whole(x, k)) { /* most of it: decompressed whole */
        const uint8_t *stored;
        if ((st = page_bytes(c, pc, &stored)) == PQ_OK) st = dictionary_page_whole(c, pc, stored, &p);
    } else {
        uint8_t **dst = fixed ? &ch->dict_values : &c->buf;
        size_t *cap = fixed ? &ch->dict_values_cap : &c->buf_cap;
        pq_prefix_reader pr;
        pq_error kerr;
        if ((st = grow(c, (void **)dst, cap, len, "dictionary")) == PQ_OK &&
            (st = pq_prefix_open(&pr, c->cctx, c->codec, raw, (size_t)pi->compressed_size, *dst, len, &kerr)) != PQ_OK)
            st = kfail(c, st, &kerr);
        p = *dst;
        if (st == PQ_OK && fixed) {
            avail = need * width; /* no overflow: need <= INT32_MAX, width <= INT32_MAX */
            if (avail > len)
                st = fail(c, PQ_ERR_CORRUPT_DATA, "%zu dictionary entries of %zu bytes cannot fit in %zu bytes",
                          need, width, len);
            else if ((st = pq_prefix_read_to(&pr, avail, &kerr)) != PQ_OK)
                st = kfail(c, st, &kerr);
            else if (pq_prefix_out(&pr) < avail)
                st = fail(c, PQ_ERR_CORRUPT_DATA, "the dictionary page ends after %zu of its %zu bytes",
                          pq_prefix_out(&pr), len);
        } else if (st == PQ_OK) { /* entries 0..need - 1 whole; short: the decode below names what is wrong */
            bool reached;
            st = pq_page_plain_prefix(c, &pr, p, len, total, need - 1, &avail, &reached);
        }
        if (st == PQ_OK) x->plan->chunks[k].dictionary_skipped = len - pq_prefix_out(&pr);
    }
    if (st == PQ_OK) st = pq_page_decode_dictionary(c, p, avail, need);
    if (st == PQ_OK && ch->dict_n < need)
        st = fail(c, PQ_ERR_CORRUPT_DATA, "dictionary index %zu >= dictionary size %zu", need - 1, ch->dict_n);
    task_done(c);
    if (st != PQ_OK) task_failed(x, k, i, st, err);
}

static void late_dictionary_decode(exec *x, size_t k, unsigned worker)
{
    pq_error err;
    cd_ctx c;
    dictionary_task_init(x, (size_t)x->plan->chunks[k].dictionary, worker, &c, &err);
    late_dictionary_decode_in(x, k, &c, &err);
}

/* Two dictionary pages begun (dictionary_begin) decompressed together
 * into their page buffers when both are pairable SNAPPY pages; else
 * nothing (each decompresses alone when decoded). */
static void dictionaries_two(const exec *x, dict_page d[2])
{
    const uint8_t *src[2] = {d[0].raw, d[1].raw};
    size_t src_len[2], dst_len[2];
    for (int j = 0; j < 2; j++) {
        const pq_page_info *pi = d[j].c.pi;
        if (pi->compressed_size < 0 || pi->uncompressed_size < 0) return;
        src_len[j] = (size_t)pi->compressed_size;
        dst_len[j] = (size_t)pi->uncompressed_size;
        if (!pairable(x, d[j].k, &d[j].c, d[j].st, src[j], src_len[j], dst_len[j])) return;
    }
    pq_page_decompress_two((cd_ctx *const[2]){&d[0].c, &d[1].c}, src, src_len, dst_len, INTO_BUFFERS);
}

/* Two chunks' late dictionaries, both decoded whole: their pages
 * decompressed together (dictionaries_two), then each decoded. */
static void late_dictionary_pair(exec *x, size_t k0, size_t k1, unsigned worker)
{
    dict_page d[2];
    dictionary_begin(x, k0, worker, &d[0]);
    dictionary_begin(x, k1, worker, &d[1]);
    dictionaries_two(x, d);
    for (int j = 0; j < 2; j++) late_dictionary_decode_in(x, d[j].k, &d[j].c, &d[j].err);
}

/* A data page of chunk k is done: when it is a late chunk's last, the
 * largest index its pages collected says how much of the dictionary to
 * decode, in this run (no phase of its own to wait at the end of): now,
 * or with the next such chunk's when both are whole SNAPPY pages; none:
 * the dictionary is not read at all. */
static void late_page_done(exec *x, size_t k, unsigned worker)
{
    if (!x->chunks[k].late || atomic_fetch_sub(&x->late_left[k], 1) != 1 || atomic_load(&x->chunk_failed[k]))
        return;
    const pq_plan_chunk *pc = &x->plan->chunks[k];
    size_t need = 0;
    for (size_t i = pc->first_page; i < pc->first_page + pc->npages; i++)
        need = x->pages[i].ix.need > need ? x->pages[i].ix.need : need;
    x->chunks[k].late_need = need;
    if (!need) {
        x->plan->chunks[k].dictionary_skipped = dictionary_bytes(x->plan, pc); /* no selected row uses it */
        return;
    }
    if (!late_whole(x, k) || pc->codec != PQ_CODEC_SNAPPY) {
        late_dictionary_decode(x, k, worker);
        return;
    }
    /* A whole SNAPPY dictionary waits for another to be decompressed with
     * (x->late_waiting), or takes the one waiting; one left waiting at the
     * run's end is decoded then. */
    size_t cur = atomic_load(&x->late_waiting);
    for (;;) {
        if (cur == SIZE_MAX) {
            if (atomic_compare_exchange_weak(&x->late_waiting, &cur, k)) return;
        } else if (atomic_compare_exchange_weak(&x->late_waiting, &cur, SIZE_MAX)) {
            late_dictionary_pair(x, cur, k, worker);
            return;
        }
    }
}

/* A data page's task, from its setup (data_page_begin) to its end
 * (data_page_end): the two halves apart so that a pair of pages can be
 * decompressed together between them (data_pair). Not moved once begun:
 * c.out and c.err point into it. */
typedef struct data_page {
    size_t i;                /* plan page */
    unsigned slot;           /* the worker's page buffer it uses (x->wbuf), 0 or 1 */
    cd_ctx c;
    pq_error err;
    pq_column_values window; /* direct: the chunk's arrays from its first value */
    pq_status st;
    bool late_page;          /* a late dictionary's page: its selected indices are collected */
    bool wb, wc;             /* it holds the worker's page buffer, decryption buffer */
    const uint8_t *raw;      /* its stored bytes (decrypted) */
} data_page;

/* Task t's data page set up: its context, its window or buffers, the
 * worker's buffers, its stored bytes. False when its chunk has failed
 * (the page is counted done, nothing else to do). */
static bool data_page_begin(exec *x, size_t t, unsigned worker, unsigned slot, data_page *d)
{
    size_t i = x->tasks[t];
    pq_plan_page *pg = &x->plan->pages[i];
    const pq_page_info *pi = pg->info;
    const pq_plan_chunk *pc = &x->plan->chunks[pg->chunk];
    exec_page *ep = &x->pages[i];
    dictionary_ready(x, pg->chunk, worker);
    if (atomic_load(&x->chunk_failed[pg->chunk])) {
        late_page_done(x, pg->chunk, worker);
        if (ep->mode == PAGE_DIRECT) page_done(x, pg->chunk);
        return false;
    }
    d->i = i;
    d->slot = slot;
    cd_ctx *c = &d->c;
    task_init(x, pg->chunk, c, &d->err, worker);
    c->page = pg->index;
    c->pi = pi;
    c->page_row = pg->first_row;
    d->st = PQ_OK;
    if (ep->mode == PAGE_DIRECT) {
        page_window(c, x, pg, &d->window);
    } else if (ep->mode == PAGE_STAGED) {
        c->out = &ep->local;
        ep->local.physical_type = pc->physical_type;
        ep->local.width = c->width;
        /* Room for every slot's offset once (values are at most the slots). */
        if (pc->physical_type == PQ_BYTE_ARRAY &&
            (d->st = pq_page_reserve_offsets(c, (size_t)pi->num_values)) == PQ_OK)
            ep->local.offsets[0] = 0;
    }
    d->late_page = c->ch->late && is_dict_page(pi);
    /* The worker's page buffer (warm in its cache), counted in this chunk's
     * memory while the page uses it. */
    size_t w = (size_t)worker * 2 + slot;
    d->wb = (ep->mode != PAGE_DEFERRED || d->late_page) && worker < x->nworkers;
    if (d->wb) {
        c->buf = x->wbuf[w];
        c->buf_cap = x->wbuf_cap[w];
        atomic_fetch_add(&c->ch->held, c->buf_cap);
    }
    /* An encrypted chunk's page is decrypted into the worker's buffer. */
    d->wc = pc->cipher && worker < x->nworkers;
    if (d->wc) {
        c->crypt = x->cbuf[w];
        c->crypt_cap = x->cbuf_cap[w];
        atomic_fetch_add(&c->ch->held, c->crypt_cap);
    }
    d->raw = NULL;
    if (d->st == PQ_OK) d->st = page_bytes(c, pc, &d->raw);
    return true;
}

/* The page begun in d decoded, its buffers handed back, its task done. */
static void data_page_end(exec *x, data_page *d, unsigned worker)
{
    size_t i = d->i;
    pq_plan_page *pg = &x->plan->pages[i];
    const pq_page_info *pi = pg->info;
    const pq_plan_chunk *pc = &x->plan->chunks[pg->chunk];
    exec_page *ep = &x->pages[i];
    cd_ctx *c = &d->c;
    pq_column_values *window = &d->window;
    pq_status st = d->st;
    const uint8_t *raw = d->raw, *vals = NULL;
    size_t vlen = 0, nn = 0;
    size_t last;
    /* a required PLAIN page of fixed width: decompressed into its place */
    bool placed = st == PQ_OK && ep->mode == PAGE_DIRECT && pq_page_plain_in_place(c, raw, &st);
    if (placed)
        ;
    else if (st == PQ_OK && pq_page_from_prefix(c, raw, &last))
        st = pq_page_prefix_values(c, raw, last, &vals, &vlen, &nn);
    else if (st == PQ_OK)
        st = pq_page_levels(c, raw, (size_t)pg->level_offset, &vals, &vlen, &nn);
    pq_decode_rows vrows;
    if (st == PQ_OK && c->page_vsel) select_values(c, &vrows, c->vsel, nn);
    if (st == PQ_OK && !placed && ep->mode != PAGE_DEFERRED)
        st = pq_page_decode_values(c, pi->encoding, vals, vlen, nn);
    if (st == PQ_OK && ep->mode == PAGE_DIRECT && window->n_values != pg->value_offset + pg->n_values)
        st = fail(c, PQ_ERR_CORRUPT_DATA, "%llu values decoded, %s %llu",
                  (unsigned long long)(window->n_values - pg->value_offset),
                  (pc->flags & PQ_PLAN_CHUNK_NO_NULLS) ? "the chunk's statistics count no null: expected"
                                                       : "the headers say",
                  (unsigned long long)pg->n_values);
    /* Bytes of a PLAIN page sized by its header: at most all of them taken
     * (bytes after its last value are ignored, as other readers ignore
     * them: a gap that finish_chunk closes). */
    if (st == PQ_OK && ep->mode == PAGE_DIRECT && pc->output == PQ_PLAN_BYTES &&
        window->data_len < pg->string_offset + pg->string_bytes)
        ep->short_by = pg->string_offset + pg->string_bytes - window->data_len;
    else if (st == PQ_OK && ep->mode == PAGE_DIRECT && pc->output == PQ_PLAN_BYTES &&
             window->data_len != pg->string_offset + pg->string_bytes)
        st = fail(c, PQ_ERR_CORRUPT_DATA, "the page's values take %llu bytes, %s %llu",
                  (unsigned long long)(window->data_len - pg->string_offset),
                  (pc->flags & PQ_PLAN_CHUNK_SIZE_STATISTICS) ? "its header or the offset index's SizeStatistics say"
                                                               : "its header says",
                  (unsigned long long)pg->string_bytes);
    /* Views of a PLAIN page sized by its header: bytes after its last
     * value leave a gap, zeroed (no view points there). */
    if (st == PQ_OK && ep->mode == PAGE_DIRECT && c->views && window->data_len < pg->string_offset + pg->string_bytes)
        memset(window->data + window->data_len, 0, (size_t)(pg->string_offset + pg->string_bytes - window->data_len));
    if (st == PQ_OK && ep->mode == PAGE_STAGED) { /* the size pass */
        pg->n_values = ep->local.n_values;
        pg->string_bytes = ep->local.data_len;
    }
    if (ep->mode == PAGE_STAGED) ep->local_bytes = c->values_cap + c->offsets_cap + c->data_cap + c->views_cap;
    if (st == PQ_OK && ep->mode == PAGE_DEFERRED) { /* the size pass; the bytes stay for phase 4 */
        uint64_t bytes = 0;
        if (d->late_page) st = collect_page_indices(c, ep, vals, vlen, nn);
        else if (pc->output == PQ_PLAN_BYTES) st = count_string_bytes(c, ep, pc, pi, vals, vlen, nn, &bytes);
        pg->n_values = c->rows ? pq_decode_rows_count(c->rows, c->page_row, nn) : nn;
        if (c->page_vsel) { /* phase 4 selects the values again */
            ep->vsel = c->vsel;
            ep->vsel_cap = c->vsel_cap;
            c->vsel = NULL;
        }
        pg->string_bytes = bytes;
        ep->vals = d->late_page ? NULL : vals;
        ep->vlen = vlen;
        ep->nn = nn;
        if (!d->late_page && c->buf && vals >= c->buf && vals <= c->buf + c->buf_cap) { /* kept: still held */
            ep->buf = c->buf;
            ep->buf_cap = c->buf_cap;
            c->buf = NULL;
        } else if (!d->late_page && c->crypt && vals >= c->crypt && vals <= c->crypt + c->crypt_cap) { /* as stored */
            ep->buf = c->crypt;
            ep->buf_cap = c->crypt_cap;
            c->crypt = NULL;
        }
    }
    ep->page_defs = c->page_defs;
    if (d->wb) {
        size_t w = (size_t)worker * 2 + d->slot;
        x->wbuf[w] = c->buf;
        x->wbuf_cap[w] = c->buf_cap;
        atomic_fetch_sub(&c->ch->held, c->buf_cap);
        c->buf = NULL;
    }
    if (d->wc) {
        size_t w = (size_t)worker * 2 + d->slot;
        x->cbuf[w] = c->crypt;
        x->cbuf_cap[w] = c->crypt ? c->crypt_cap : 0;
        atomic_fetch_sub(&c->ch->held, c->crypt ? c->crypt_cap : 0);
        c->crypt = NULL;
    }
    task_done(c);
    if (st != PQ_OK) task_failed(x, pg->chunk, i, st, &d->err);
    late_page_done(x, pg->chunk, worker);
    if (ep->mode == PAGE_DIRECT) page_done(x, pg->chunk);
}

static bool data_task(void *ctx, size_t t, unsigned worker)
{
    exec *x = ctx;
    data_page d;
    if (data_page_begin(x, t, worker, 0, &d)) data_page_end(x, &d, worker);
    return true;
}

/* Where the data page begun in d will be decompressed whole: its stored
 * bytes (*src, *src_len), their size decompressed (*dst_len) and where
 * they go (*into: its place in the output, for a page pq_page_plain_in_place
 * decompresses there; NULL: its page buffer, for pq_page_levels). False
 * when it will not be (a page decompressed only as far as a prefix, sizes
 * the steps will refuse: the choice data_page_end makes) or is not
 * pairable. */
static bool data_page_source(const exec *x, const data_page *d, const uint8_t **src, size_t *src_len, size_t *dst_len,
                             uint8_t **into)
{
    const cd_ctx *c = &d->c;
    const pq_page_info *pi = c->pi;
    if (d->st != PQ_OK || pi->compressed_size < 0 || pi->uncompressed_size < 0) return false;
    size_t comp = (size_t)pi->compressed_size, uncomp = (size_t)pi->uncompressed_size;
    size_t k = x->plan->pages[d->i].chunk, last;
    /* the whole page: a page placed in the output (v1, or v2 without
     * levels), or a v1 page's levels and values */
    *src = d->raw;
    *src_len = comp;
    *dst_len = uncomp;
    *into = x->pages[d->i].mode == PAGE_DIRECT ? pq_page_plain_place(c) : NULL;
    if (*into) return pairable(x, k, c, d->st, *src, *src_len, *dst_len);
    if (pi->type == PQ_PAGE_DATA_V2 && pi->is_compressed && pi->rep_levels_byte_length >= 0 &&
        pi->def_levels_byte_length >= 0) { /* its values section: its levels are stored as they are */
        size_t rl = (size_t)pi->rep_levels_byte_length, dl = (size_t)pi->def_levels_byte_length;
        if (rl > comp || dl > comp - rl || rl + dl > uncomp) return false;
        *src += rl + dl;
        *src_len -= rl + dl;
        *dst_len -= rl + dl;
    } else if (pi->type != PQ_PAGE_DATA) {
        return false;
    }
    return pairable(x, k, c, d->st, *src, *src_len, *dst_len) && !pq_page_from_prefix(c, d->raw, &last);
}

/* Two data tasks, t and t + 1: each page set up, two SNAPPY pages
 * decompressed together (pq_snappy_decompress_two: one page's elements
 * alone keep the CPU waiting on each element's place), then each decoded
 * as data_task decodes it. */
static void data_pair(exec *x, size_t t, unsigned worker)
{
    data_page d[2];
    bool begun[2] = {data_page_begin(x, t, worker, 0, &d[0]), data_page_begin(x, t + 1, worker, 1, &d[1])};
    const uint8_t *src[2];
    size_t src_len[2], dst_len[2];
    uint8_t *into[2];
    if (begun[0] && begun[1] && data_page_source(x, &d[0], &src[0], &src_len[0], &dst_len[0], &into[0]) &&
        data_page_source(x, &d[1], &src[1], &src_len[1], &dst_len[1], &into[1]))
        pq_page_decompress_two((cd_ctx *const[2]){&d[0].c, &d[1].c}, src, src_len, dst_len, into);
    for (int k = 0; k < 2; k++)
        if (begun[k]) data_page_end(x, &d[k], worker);
}

/* Whether this thread takes chunk k's dictionary (no other has). */
static bool dictionary_claim(exec *x, size_t k)
{
    uint8_t pending = DICT_PENDING;
    return atomic_compare_exchange_strong(&x->dict_state[k], &pending, DICT_BUSY);
}

/* Two dictionary tasks, t and t + 1: the dictionaries no other thread has
 * taken (a data page may have) set up, decompressed together when both
 * are SNAPPY pages, then each decoded. */
static void dictionary_pair(exec *x, size_t t, unsigned worker)
{
    size_t k[2] = {x->plan->pages[x->tasks[t]].chunk, x->plan->pages[x->tasks[t + 1]].chunk};
    bool mine[2] = {dictionary_claim(x, k[0]), dictionary_claim(x, k[1])};
    dict_page d[2];
    for (int j = 0; j < 2; j++)
        if (mine[j]) dictionary_begin(x, k[j], worker, &d[j]);
    if (mine[0] && mine[1]) dictionaries_two(x, d);
    for (int j = 0; j < 2; j++)
        if (mine[j]) {
            dictionary_end(x, &d[j]);
            atomic_store(&x->dict_state[k[j]], DICT_READY);
        }
}

/* Phase 1-2's task t: unit t of the phase's tasks, a dictionary page or
 * two (dictionary_pair), or a data page or two (data_pair). */
static bool dictionary_or_data_task(void *ctx, size_t t, unsigned worker)
{
    exec *x = ctx;
    size_t first = x->units ? x->units[t] : t;
    bool two = x->units && x->units[t + 1] - first == 2;
    if (first < x->ndict) {
        if (two) dictionary_pair(x, first, worker);
        else dictionary_ready(x, x->plan->pages[x->tasks[first]].chunk, worker);
    } else {
        if (two) data_pair(x, first, worker);
        else data_task(x, first, worker);
    }
    return true;
}

static bool task_snappy(const exec *x, size_t t)
{
    return x->plan->chunks[x->plan->pages[x->tasks[t]].chunk].codec == PQ_CODEC_SNAPPY;
}

/* How far apart two pages' compressed sizes are, as the larger over the
 * smaller (1: alike). */
static double size_gap(const exec *x, size_t a, size_t b)
{
    double p = x->plan->pages[x->tasks[a]].info->compressed_size;
    double q = x->plan->pages[x->tasks[b]].info->compressed_size;
    if (p < 1) p = 1;
    if (q < 1) q = 1;
    return p > q ? p / q : q / p;
}

/* Task t's partner moved next to it: of the SNAPPY pages among the next
 * PAIR_LOOKAHEAD before `end`, the one whose compressed size is nearest
 * t's. A pair is decompressed together only while both streams last (the
 * longer one ends alone), and a snappy page's elements, which set its
 * time, go with its compressed bytes: a row group's l_orderkey page (5:1)
 * next to its l_extendedprice page (1.5:1) of the same decoded size left
 * most of the pair's time to one stream. The tasks stay close to the
 * order they came in (the largest chunks first). */
#define PAIR_LOOKAHEAD 8
static void move_partner(exec *x, size_t t, size_t end)
{
    size_t best = t + 1;
    double gap = task_snappy(x, best) ? size_gap(x, t, best) : 1e300;
    for (size_t u = t + 2; u < end && u <= t + PAIR_LOOKAHEAD; u++) {
        double g;
        if (task_snappy(x, u) && (g = size_gap(x, t, u)) < gap) {
            gap = g;
            best = u;
        }
    }
    size_t keep = x->tasks[best];
    memmove(&x->tasks[t + 2], &x->tasks[t + 1], (best - t - 1) * sizeof *x->tasks);
    x->tasks[t + 1] = keep;
}

/* Phase 1-2's units (x->units, x->nunits): SNAPPY pages two at a time,
 * each with a page of its kind (dictionary or data page) that is SNAPPY
 * too, of about its compressed size (move_partner); other pages alone, as
 * pairing gains them nothing and halves the tasks the threads balance.
 * Out of memory: every page alone (units NULL). */
static void make_units(exec *x)
{
    x->nunits = x->ntasks;
    x->units = malloc((x->ntasks + 1) * sizeof *x->units);
    if (!x->units) return;
    size_t n = 0;
    for (size_t t = 0; t < x->ntasks; n++) {
        x->units[n] = t;
        size_t end = t < x->ndict ? x->ndict : x->ntasks;
        if (t + 1 < end && task_snappy(x, t)) move_partner(x, t, end);
        bool pair = t + 1 < end && task_snappy(x, t) && task_snappy(x, t + 1);
        t += pair ? 2 : 1;
    }
    x->units[n] = x->ntasks;
    x->nunits = n;
}

/* Phase 4 for a deferred page: its values decoded into place. */
static pq_status decode_deferred(exec *x, size_t i, unsigned worker, pq_error *err)
{
    const pq_plan_page *pg = &x->plan->pages[i];
    exec_page *ep = &x->pages[i];
    cd_ctx c;
    task_init(x, pg->chunk, &c, err, worker);
    c.page = pg->index;
    c.pi = pg->info;
    c.page_row = pg->first_row;
    pq_column_values window;
    page_window(&c, x, pg, &window);
    pq_decode_rows vrows;
    if (ep->vsel) select_values(&c, &vrows, ep->vsel, ep->nn);
    pq_status st = PQ_OK;
    if (ep->ix.idx || (x->chunks[pg->chunk].late && is_dict_page(pg->info))) { /* the size pass's indices, gathered */
        for (size_t done = 0; done < ep->ix.nidx && st == PQ_OK; done += BATCH) {
            size_t want = ep->ix.nidx - done < BATCH ? ep->ix.nidx - done : BATCH;
            st = pq_page_dict_gather(&c, ep->ix.idx + done, want, window.n_values + done);
        }
        window.n_values += ep->ix.nidx;
    } else {
        st = pq_page_decode_values(&c, pg->info->encoding, ep->vals, ep->vlen, ep->nn);
    }
    bool from_section = bytes_from_section(&x->plan->chunks[pg->chunk], pg->info);
    if (st == PQ_OK && window.n_values != pg->value_offset + pg->n_values)
        st = fail(&c, PQ_ERR_CORRUPT_DATA, "the page decoded to other sizes than its size pass found");
    else if (st == PQ_OK && from_section && window.data_len < pg->string_offset + pg->string_bytes)
        ep->short_by = pg->string_offset + pg->string_bytes - window.data_len; /* bytes after its last value */
    else if (st == PQ_OK && window.data_len != pg->string_offset + pg->string_bytes)
        st = fail(&c, PQ_ERR_CORRUPT_DATA, "the page's values take %llu bytes, %s %llu",
                  (unsigned long long)(window.data_len - pg->string_offset),
                  from_section ? "its values section less a 4-byte length a value is"
                      : "its size pass counted",
                  (unsigned long long)pg->string_bytes);
    task_done(&c);
    return st;
}

/* Phase 4: a deferred page decoded into place, or a staged page's values
 * copied there. Each page writes offsets [value_offset + 1, value_offset +
 * n]: entry value_offset is the previous page's (or the executor's, 0). */
static bool place_task(void *ctx, size_t t, unsigned worker)
{
    exec *x = ctx;
    size_t i = x->tasks[t];
    const pq_plan_page *pg = &x->plan->pages[i];
    const pq_plan_chunk *pc = &x->plan->chunks[pg->chunk];
    exec_page *ep = &x->pages[i];
    cd_chunk *ch = &x->chunks[pg->chunk];
    if (ep->mode == PAGE_DEFERRED) {
        if (!atomic_load(&x->chunk_failed[pg->chunk])) {
            pq_error err;
            pq_status st = decode_deferred(x, i, worker, &err);
            if (st != PQ_OK) task_failed(x, pg->chunk, i, st, &err);
        }
        if (ep->buf) {
            pq_pool_give(ep->buf);
            atomic_fetch_sub(&ch->held, ep->buf_cap);
            ep->buf = NULL;
        }
        if (ep->ix.idx) {
            pq_pool_give(ep->ix.idx);
            atomic_fetch_sub(&ch->held, ep->ix.idx_cap);
            ep->ix.idx = NULL;
        }
        if (ep->vsel) {
            pq_pool_give(ep->vsel);
            atomic_fetch_sub(&ch->held, ep->vsel_cap);
            ep->vsel = NULL;
        }
        page_done(x, pg->chunk);
        return true;
    }
    pq_column_values *o = &x->outs[pg->chunk], *l = &ep->local;
    if (!atomic_load(&x->chunk_failed[pg->chunk])) {
        size_t n = l->n_values, vo = (size_t)pg->value_offset, so = (size_t)pg->string_offset;
        if (pc->output == PQ_PLAN_FIXED) {
            if (n) memcpy(o->values + vo * pc->width, l->values, n * pc->width);
        } else if (pc->output == PQ_PLAN_BYTES) {
            for (size_t k = 1; k <= n; k++) o->offsets[vo + k] = l->offsets[k] + (int32_t)so;
            if (l->data_len) memcpy(o->data + so, l->data, l->data_len);
        } else {
            /* Views into the page's own bytes (buffer 0) move with them. */
            for (size_t k = 0; k < n; k++) {
                uint8_t *w = o->views + 16 * (vo + k);
                memcpy(w, l->views + 16 * k, 16);
                uint32_t len, buf, off;
                memcpy(&len, w, 4);
                memcpy(&buf, w + 8, 4);
                if (len > 12 && buf == VIEW_BUF_DATA) {
                    memcpy(&off, w + 12, 4);
                    off += (uint32_t)so;
                    memcpy(w + 12, &off, 4);
                }
            }
            if (l->data_len) memcpy(o->data + so, l->data, l->data_len);
        }
    }
    pq_column_values_free(l); /* into the pool for the next page */
    atomic_fetch_sub(&ch->held, ep->local_bytes);
    page_done(x, pg->chunk);
    return true;
}

/* Allocate the chunk's arrays at their planned size. */
static pq_status alloc_outputs(exec *x, size_t k)
{
    const pq_plan_chunk *pc = &x->plan->chunks[k];
    pq_column_values *o = &x->outs[k];
    pq_error *err = &x->errors[k];
    cd_ctx c;
    task_init(x, k, &c, err, UINT32_MAX);
    size_t n = (size_t)pc->n_values, bytes, cap = 0;
    pq_status st = PQ_OK;
    if (pc->n_values > SIZE_MAX / 16 - 1)
        st = fail(&c, PQ_ERR_MEMORY_LIMIT, "%llu values overflow the address space",
                  (unsigned long long)pc->n_values);
    if (st == PQ_OK && pc->output == PQ_PLAN_BYTES && pc->string_bytes > (uint64_t)INT32_MAX)
        st = fail(&c, PQ_ERR_UNSUPPORTED,
                  "the chunk's values take at least %llu bytes, more than the 2147483647 that Arrow string "
                  "and binary arrays (int32 offsets) hold; large_string or string_view would hold them",
                  (unsigned long long)pc->string_bytes);
    if (st == PQ_OK && pc->output == PQ_PLAN_FIXED && n) {
        bytes = n * pc->width;
        st = grow(&c, (void **)&o->values, &cap, bytes, "values");
    } else if (st == PQ_OK && pc->output == PQ_PLAN_BYTES) {
        st = grow(&c, (void **)&o->offsets, &cap, (n + 1) * sizeof(int32_t), "offsets");
        if (st == PQ_OK) o->offsets[0] = 0; /* each page writes the entries after its first */
        cap = 0;
        if (st == PQ_OK) st = grow(&c, (void **)&o->data, &cap, (size_t)pc->string_bytes + 1, "byte array data");
    } else if (st == PQ_OK && pc->output == PQ_PLAN_VIEWS) {
        st = grow(&c, (void **)&o->views, &cap, (n ? n : 1) * 16, "string views");
        cap = 0;
        if (st == PQ_OK) st = grow(&c, (void **)&o->data, &cap, (size_t)pc->string_bytes + 1, "byte array data");
    }
    task_done(&c);
    return st;
}

/* The level arrays (exact: the slots are known from the headers). */
static pq_status alloc_levels(exec *x, size_t k)
{
    const pq_plan_chunk *pc = &x->plan->chunks[k];
    pq_column_values *o = &x->outs[k];
    cd_ctx c;
    task_init(x, k, &c, &x->errors[k], UINT32_MAX);
    size_t bytes, cap = 0;
    pq_status st = PQ_OK;
    if (pc->n_levels > SIZE_MAX / sizeof(int16_t))
        st = fail(&c, PQ_ERR_MEMORY_LIMIT, "%llu levels overflow the address space",
                  (unsigned long long)pc->n_levels);
    bytes = (size_t)pc->n_levels * sizeof(int16_t);
    if (st == PQ_OK && pc->max_def > 0 && (!pc->rows || selection_with_nulls(pc)))
        st = grow(&c, (void **)&o->def_levels, &cap, bytes ? bytes : 1, "definition levels");
    cap = 0;
    if (st == PQ_OK && pc->max_rep > 0)
        st = grow(&c, (void **)&o->rep_levels, &cap, bytes ? bytes : 1, "repetition levels");
    task_done(&c);
    return st;
}

/* A BYTES chunk whose pages left gaps (exec_page.short_by): each later
 * page's bytes moved down over them, its offsets with them. The bytes the
 * chunk's values take. */
static uint64_t close_gaps(exec *x, size_t k)
{
    const pq_plan_chunk *pc = &x->plan->chunks[k];
    pq_column_values *o = &x->outs[k];
    uint64_t shift = 0;
    for (size_t i = pc->first_page; i < pc->first_page + pc->npages; i++) {
        const pq_plan_page *pg = &x->plan->pages[i];
        if (pg->kind != PQ_PLAN_PAGE_DATA) continue;
        uint64_t used = pg->string_bytes - x->pages[i].short_by;
        if (shift && pg->n_values) {
            memmove(o->data + pg->string_offset - shift, o->data + pg->string_offset, (size_t)used);
            for (uint64_t v = pg->value_offset + 1; v <= pg->value_offset + pg->n_values; v++)
                o->offsets[v] -= (int32_t)shift;
        }
        shift += x->pages[i].short_by;
    }
    return pc->string_bytes - shift;
}

/* The chunk's output made whole. */
static pq_status finish_chunk(exec *x, size_t k)
{
    const pq_plan_chunk *pc = &x->plan->chunks[k];
    pq_column_values *o = &x->outs[k];
    cd_chunk *ch = &x->chunks[k];
    o->n_levels = (size_t)pc->n_levels;
    o->n_values = (size_t)pc->n_values;
    if (o->def_levels) {
        if (!atomic_load(&ch->defs_stored) && pc->max_rep == 0) { /* no null anywhere */
            pq_pool_give(o->def_levels);
            o->def_levels = NULL;
        } else {
            for (size_t i = pc->first_page; i < pc->first_page + pc->npages; i++) {
                const pq_plan_page *pg = &x->plan->pages[i];
                if (pg->kind != PQ_PLAN_PAGE_DATA || x->pages[i].page_defs) continue;
                for (uint64_t s = 0; s < pg->n_levels; s++) o->def_levels[pg->level_offset + s] = pc->max_def;
            }
        }
    }
    if ((pc->flags & PQ_PLAN_CHUNK_INDICES) && !(o->dictionary = calloc(1, sizeof *o->dictionary)))
        return PQ_ERR_NOMEM;
    if (o->dictionary) { /* the chunk's dictionary goes with its indices */
        pq_column_values *d = o->dictionary;
        d->physical_type = pc->physical_type;
        d->width = pq_plan_value_width(pc->leaf);
        d->n_levels = d->n_values = ch->dict_n;
        if (pc->physical_type == PQ_BYTE_ARRAY) {
            if (!ch->dict_offsets && !(ch->dict_offsets = calloc(1, sizeof *ch->dict_offsets))) return PQ_ERR_NOMEM;
            if (!ch->dict_data && !(ch->dict_data = calloc(1, 1))) return PQ_ERR_NOMEM;
            d->offsets = ch->dict_offsets;
            d->data = ch->dict_data;
            d->data_len = (size_t)ch->dict_offsets[ch->dict_n];
            ch->dict_offsets = NULL;
            ch->dict_data = NULL;
        } else {
            d->values = ch->dict_values;
            ch->dict_values = NULL;
        }
    }
    if (pc->output == PQ_PLAN_BYTES) {
        o->data_len = (size_t)close_gaps(x, k);
        o->offsets[o->n_values] = (int32_t)o->data_len;
    } else if (pc->output == PQ_PLAN_VIEWS) {
        /* The chunk's bytes and the dictionary become its view buffers. */
        o->view_bufs[VIEW_BUF_DATA] = o->data;
        o->view_buf_lens[VIEW_BUF_DATA] = (size_t)pc->string_bytes;
        o->data = NULL;
        o->data_len = 0;
        o->n_view_bufs = 1;
        if (ch->have_dict) {
            o->view_bufs[VIEW_BUF_DICT] = ch->dict_data;
            o->view_buf_lens[VIEW_BUF_DICT] = (size_t)(ch->dict_offsets[ch->dict_n] - ch->dict_offsets[0]);
            ch->dict_data = NULL;
            o->n_view_bufs = 2;
        }
    }
    return PQ_OK;
}

static void free_chunk_state(cd_chunk *ch)
{
    pq_pool_give(ch->dict_values);
    pq_pool_give(ch->dict_wide);
    pq_pool_give(ch->dict_offsets);
    pq_pool_give(ch->dict_data);
    pq_pool_give(ch->dict_views);
    memset(ch, 0, sizeof *ch);
}

/* How page pg of chunk pc is decoded (page_mode). */
static page_mode page_mode_of(const pq_plan_chunk *pc, const pq_plan_page *pg)
{
    const pq_page_info *pi = pg->info;
    bool dict = is_dict_page(pi);
    /* Selection-vector decode of a page neither dictionary-encoded nor
     * PLAIN decodes it whole, then keeps the selected rows: in buffers of
     * its own (so do PLAIN pages into string views). So does a PLAIN page
     * of strings with at most a quarter of its rows selected: its lengths
     * walked once, not by a size pass and again by the decode, and the
     * copy into place is of the few values kept (a late-materialized
     * column under a filter keeping 2.6% of lineitem's rows: 8-11% faster
     * reads; at half the rows the two ways cost the same, at 90% the
     * copy costs 3-8% more). */
    bool sparse = pc->output == PQ_PLAN_BYTES && pi->num_values > 0 &&
                  pg->n_levels <= (uint64_t)pi->num_values / 4;
    if (pc->rows && !dict && (pi->encoding != PQ_ENC_PLAIN || pc->output == PQ_PLAN_VIEWS || sparse))
        return PAGE_STAGED;
    if (pc->flags & PQ_PLAN_SIZED_BY_HEADERS) return PAGE_DIRECT;
    if (pc->output == PQ_PLAN_FIXED) return PAGE_DEFERRED;
    if (pc->output == PQ_PLAN_BYTES && (dict || pi->encoding == PQ_ENC_PLAIN)) return PAGE_DEFERRED;
    if (pc->output == PQ_PLAN_VIEWS && dict) return PAGE_DEFERRED;
    return PAGE_STAGED;
}

/* A data page task and the work of its chunk (sort key). */
typedef struct weighed_task {
    uint64_t weight;
    size_t page;
} weighed_task;

static int heavier_first(const void *a, const void *b)
{
    const weighed_task *x = a, *y = b;
    if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
    return x->page < y->page ? -1 : x->page > y->page;
}

/* The n data page tasks in `tasks` reordered so that the chunks with the
 * most bytes to decode come first, each chunk's pages together and in
 * order: the threads take the long tasks while there are others to
 * balance them (one page of a large string column last in a pass kept one
 * thread busy while the other waited). make_units then moves a SNAPPY
 * page's partner up to PAIR_LOOKAHEAD places. Unchanged when out of
 * memory. */
static void largest_chunks_first(const pq_decode_plan *plan, size_t *tasks, size_t n)
{
    if (n < 2) return;
    uint64_t *chunk_bytes = calloc(plan->nchunks, sizeof *chunk_bytes);
    weighed_task *w = malloc(n * sizeof *w);
    if (chunk_bytes && w) {
        for (size_t t = 0; t < n; t++) {
            const pq_plan_page *pg = &plan->pages[tasks[t]];
            chunk_bytes[pg->chunk] += (uint64_t)(pg->info->uncompressed_size > 0 ? pg->info->uncompressed_size : 0);
        }
        for (size_t t = 0; t < n; t++) w[t] = (weighed_task){chunk_bytes[plan->pages[tasks[t]].chunk], tasks[t]};
        qsort(w, n, sizeof *w, heavier_first);
        for (size_t t = 0; t < n; t++) tasks[t] = w[t].page;
    }
    free(chunk_bytes);
    free(w);
}

pq_status pq_decode_plan_execute(const pq_cpu_executor *ex, pq_decode_plan *plan, pq_column_values *outs,
                                 pq_status *status, pq_error *errors)
{
    size_t nc = plan->nchunks, np = plan->npages;
    exec x = {.ex = ex, .plan = plan, .outs = outs, .status = status, .errors = errors};
    x.chunks = calloc(nc ? nc : 1, sizeof *x.chunks);
    x.pages = calloc(np ? np : 1, sizeof *x.pages);
    x.chunk_failed = calloc(nc ? nc : 1, sizeof *x.chunk_failed);
    x.fail_page = calloc(nc ? nc : 1, sizeof *x.fail_page);
    x.tasks = malloc((np ? np : 1) * sizeof *x.tasks);
    x.remaining = calloc(nc ? nc : 1, sizeof *x.remaining);
    x.done = calloc(nc ? nc : 1, sizeof *x.done);
    x.dict_state = calloc(nc ? nc : 1, sizeof *x.dict_state);
    x.late_left = calloc(nc ? nc : 1, sizeof *x.late_left);
    x.nworkers = ex->ncctx ? ex->ncctx : 1;
    x.wbuf = calloc((size_t)x.nworkers * 2, sizeof *x.wbuf);
    x.wbuf_cap = calloc((size_t)x.nworkers * 2, sizeof *x.wbuf_cap);
    x.cbuf = calloc((size_t)x.nworkers * 2, sizeof *x.cbuf);
    x.cbuf_cap = calloc((size_t)x.nworkers * 2, sizeof *x.cbuf_cap);
    pthread_mutex_init(&x.err_lock, NULL);
    pq_status first = PQ_OK;
    for (size_t k = 0; k < nc; k++) {
        memset(&outs[k], 0, sizeof outs[k]);
        status[k] = PQ_OK;
    }
    if (!x.chunks || !x.pages || !x.chunk_failed || !x.fail_page || !x.tasks || !x.wbuf || !x.wbuf_cap || !x.cbuf || !x.cbuf_cap ||
        !x.remaining || !x.done || !x.dict_state || !x.late_left) {
        for (size_t k = 0; k < nc; k++) status[k] = pq_error_set(&errors[k], PQ_ERR_NOMEM, "out of memory");
        first = nc ? PQ_ERR_NOMEM : PQ_OK;
        goto done;
    }
    for (size_t k = 0; k < nc; k++) {
        const pq_plan_chunk *pc = &plan->chunks[k];
        x.chunks[k].pc = pc;
        x.chunks[k].out = &outs[k];
        outs[k].physical_type = pc->physical_type;
        outs[k].width = pc->width;
        outs[k].decimal128 = (pc->flags & PQ_PLAN_CHUNK_DECIMAL128) != 0;
        if ((x.chunks[k].late = late_dictionary(ex, plan, pc)))
            x.chunks[k].late_total = (size_t)plan->pages[pc->dictionary].info->num_values;
        pq_status st = alloc_levels(&x, k);
        if (st == PQ_OK && (pc->flags & PQ_PLAN_SIZED_BY_HEADERS)) st = alloc_outputs(&x, k);
        if (st != PQ_OK) {
            status[k] = st;
            atomic_store(&x.chunk_failed[k], true);
            x.fail_page[k] = 0;
        }
        for (size_t i = pc->first_page; i < pc->first_page + pc->npages; i++) {
            const pq_plan_page *pg = &plan->pages[i];
            x.pages[i].mode = page_mode_of(pc, pg);
            if (x.chunks[k].late && pg->kind == PQ_PLAN_PAGE_DATA && is_dict_page(pg->info))
                x.pages[i].mode = PAGE_DEFERRED; /* indices collected, gathered in phase 4 */
            if (pg->kind == PQ_PLAN_PAGE_DATA) x.remaining[k]++; /* one final task a data page */
        }
        if (x.chunks[k].late) {
            atomic_init(&x.late_left[k], (size_t)x.remaining[k]);
            if (!x.remaining[k]) plan->chunks[k].dictionary_skipped = dictionary_bytes(plan, pc); /* no page: unused */
        }
    }
    /* 1-2. dictionaries (late ones after their chunk's data pages, unused
     * ones never), then data pages, in one run (dictionary_ready,
     * late_page_done) */
    x.ntasks = 0;
    for (size_t k = 0; k < nc; k++) {
        bool early = plan->chunks[k].dictionary >= 0 && !x.chunks[k].late;
        atomic_init(&x.dict_state[k], DICT_READY);
        if (early && !dictionary_used(plan, &plan->chunks[k])) { /* never decompressed */
            plan->chunks[k].dictionary_skipped = dictionary_bytes(plan, &plan->chunks[k]);
        } else if (early && !atomic_load(&x.chunk_failed[k])) {
            atomic_init(&x.dict_state[k], DICT_PENDING);
            x.tasks[x.ntasks++] = (size_t)plan->chunks[k].dictionary;
        }
    }
    x.ndict = x.ntasks;
    for (size_t i = 0; i < np; i++) /* a failed chunk's too: they count down (data_task skips them) */
        if (plan->pages[i].kind == PQ_PLAN_PAGE_DATA) x.tasks[x.ntasks++] = i;
    /* (dictionaries by their size too: the pairs decompressed together
     * are then pages of about one size, mostly one column's) */
    largest_chunks_first(plan, x.tasks, x.ndict);
    largest_chunks_first(plan, x.tasks + x.ndict, x.ntasks - x.ndict);
    make_units(&x);
    atomic_init(&x.late_waiting, SIZE_MAX);
    run_n(&x, x.nunits, dictionary_or_data_task);
    size_t waiting = atomic_load(&x.late_waiting);
    if (waiting != SIZE_MAX) late_dictionary_decode(&x, waiting, 0); /* no other came */
    x.ndict = 0;
    /* 3. the other chunks' offsets and arrays */
    for (size_t k = 0; k < nc; k++) {
        const pq_plan_chunk *pc = &plan->chunks[k];
        if (atomic_load(&x.chunk_failed[k]) || (pc->flags & PQ_PLAN_SIZED_BY_HEADERS)) continue;
        pq_status st = pq_decode_plan_place(plan, k, &errors[k]);
        if (st == PQ_OK) st = alloc_outputs(&x, k);
        if (st != PQ_OK) {
            status[k] = st;
            atomic_store(&x.chunk_failed[k], true);
        }
    }
    /* 4. deferred and staged pages into place (every one, so its buffers go) */
    x.ntasks = 0;
    for (size_t i = 0; i < np; i++)
        if (plan->pages[i].kind == PQ_PLAN_PAGE_DATA && x.pages[i].mode != PAGE_DIRECT) x.tasks[x.ntasks++] = i;
    run_tasks(&x, place_task);
    /* 5. chunks without data pages (the others were finished by their last
     * page), then the first failure */
    for (size_t k = 0; k < nc; k++) {
        complete_chunk(&x, k);
        if (first == PQ_OK && atomic_load(&x.chunk_failed[k])) first = status[k];
        free_chunk_state(&x.chunks[k]);
    }
done:
    for (size_t w = 0; x.wbuf && w < (size_t)x.nworkers * 2; w++) pq_pool_give(x.wbuf[w]);
    free(x.wbuf);
    free(x.wbuf_cap);
    for (size_t w = 0; x.cbuf && w < (size_t)x.nworkers * 2; w++) pq_pool_give(x.cbuf[w]);
    free(x.cbuf);
    free(x.cbuf_cap);
    free((void *)x.remaining);
    free((void *)x.done);
    free((void *)x.dict_state);
    free((void *)x.late_left);
    pthread_mutex_destroy(&x.err_lock);
    free(x.chunks);
    free(x.pages);
    free((void *)x.chunk_failed);
    free(x.fail_page);
    free(x.tasks);
    free(x.units);
    return first;
}

pq_status pq_column_decode(const pq_leaf *leaf, int32_t codec, const uint8_t *chunk, size_t chunk_len,
                           const pq_page_info *pages, size_t npages, uint64_t memory_limit, pq_column_values *out,
                           pq_error *err)
{
    return pq_column_decode_ctx(NULL, leaf, codec, chunk, chunk_len, pages, npages, memory_limit, out, err);
}

pq_status pq_column_decode_ctx(pq_codec_ctx *cctx, const pq_leaf *leaf, int32_t codec, const uint8_t *chunk,
                               size_t chunk_len, const pq_page_info *pages, size_t npages, uint64_t memory_limit,
                               pq_column_values *out, pq_error *err)
{
    return pq_column_decode_flags(cctx, leaf, codec, chunk, chunk_len, pages, npages, memory_limit, 0, NULL, out,
                                  err);
}

pq_status pq_column_decode_flags(pq_codec_ctx *cctx, const pq_leaf *leaf, int32_t codec, const uint8_t *chunk,
                                 size_t chunk_len, const pq_page_info *pages, size_t npages, uint64_t memory_limit,
                                 unsigned flags, const pq_decode_rows *rows, pq_column_values *out, pq_error *err)
{
    pq_error scratch;
    if (!err) err = &scratch;
    if (!out) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_column_decode: NULL output");
    memset(out, 0, sizeof *out);
    pq_decode_plan plan = {0};
    unsigned pflags = ((flags & PQ_DECODE_STRING_VIEWS) ? PQ_PLAN_STRING_VIEWS : 0) |
                      ((flags & PQ_DECODE_INDICES) ? PQ_PLAN_INDICES : 0);
    pq_status st = pq_decode_plan_add_chunk(&plan, leaf, codec, chunk, chunk_len, pages, npages, pflags, rows, err);
    if (st == PQ_OK) st = pq_decode_plan_execute_one(cctx, memory_limit, &plan, out, err);
    pq_decode_plan_free(&plan);
    return st;
}

pq_status pq_decode_plan_execute_one(pq_codec_ctx *cctx, uint64_t memory_limit, pq_decode_plan *plan,
                                     pq_column_values *out, pq_error *err)
{
    pq_cpu_executor ex = {.cctx = cctx, .ncctx = cctx ? 1 : 0, .memory_limit = memory_limit};
    pq_status cst;
    return pq_decode_plan_execute(&ex, plan, out, &cst, err);
}
