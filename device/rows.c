/*
 * rows.c — selection-vector decode on the device: the whole decode
 * of a chunk compacted to its selected rows (see rows.h).
 *
 * The host does what needs the whole chunk between the two launches: each
 * page's selected count checked against the plan, the pages' selected
 * bytes summed into string offsets (pq_decode_plan_place), the outputs
 * allocated at their exact size.
 */
#include "device/rows.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/k_arrow_build.h"
#include "kernels/k_decode.h"
#include "metadata/error.h"
#include "device/copies.h"

bool pq_dx_rows_compacted(const pq_plan_chunk *pc)
{
    return pc->rows && pc->max_def == 0 && pc->max_rep == 0;
}

pq_status pq_dx_rows_whole_plan(const pq_decode_plan *plan, pq_decode_plan *whole, pq_error *err)
{
    memset(whole, 0, sizeof *whole);
    size_t nc = plan->nchunks, np = plan->npages;
    whole->chunks = malloc((nc ? nc : 1) * sizeof *whole->chunks);
    whole->pages = malloc((np ? np : 1) * sizeof *whole->pages);
    if (!whole->chunks || !whole->pages) {
        pq_decode_plan_free(whole);
        return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (nc) memcpy(whole->chunks, plan->chunks, nc * sizeof *whole->chunks);
    if (np) memcpy(whole->pages, plan->pages, np * sizeof *whole->pages);
    whole->nchunks = whole->chunks_cap = nc;
    whole->npages = whole->pages_cap = np;
    for (size_t k = 0; k < nc; k++) {
        pq_plan_chunk *c = &whole->chunks[k];
        if (!pq_dx_rows_compacted(c)) continue;
        c->rows = NULL;
        uint64_t slots = 0;
        for (size_t i = c->first_page; i < c->first_page + c->npages; i++) {
            pq_plan_page *pg = &whole->pages[i];
            if (pg->kind != PQ_PLAN_PAGE_DATA) continue; /* a page without a selected row stays skipped */
            uint64_t n = (uint64_t)pg->info->num_values; /* the plan refused negative counts */
            pg->n_levels = pg->n_values = n;             /* required: a value a row */
            pg->level_offset = slots;
            slots += n;
            if (slots < n) {
                pq_decode_plan_free(whole);
                return pq_error_set(err, PQ_ERR_MEMORY_LIMIT, "the chunk's rows overflow");
            }
        }
        c->n_levels = slots;
        if ((c->flags & PQ_PLAN_SIZED_BY_HEADERS) && pq_decode_plan_place(whole, k, err) != PQ_OK) {
            pq_decode_plan_free(whole);
            return err ? err->code : PQ_ERR_MEMORY_LIMIT;
        }
    }
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Memory: the device executor's, through the Arrow kernels' context
 * (device/arrow.h: cudaMalloc'd on a device; malloc'd on the host,
 * garbage-filled when apart)
 * ------------------------------------------------------------------------- */

/* A host table the kernels read: itself, or a device copy when apart. */
static pq_status mirror(pq_darrow_ctx *x, const void *host, size_t n, void **dev, pq_error *err)
{
    if (!x->apart) {
        *dev = (void *)host;
        return PQ_OK;
    }
    pq_status st = pq_darrow_alloc(x, n, dev, err);
    if (st == PQ_OK && (st = pq_darrow_upload(x, *dev, host, n, err)) != PQ_OK) {
        pq_darrow_free(x, *dev);
        *dev = NULL;
    }
    return st;
}

static void unmirror(pq_darrow_ctx *x, void *dev)
{
    if (x->apart) pq_darrow_free(x, dev);
}

/* A host copy of device buffer dev (n bytes) into *h (NULL for NULL). */
static pq_status host_copy(pq_darrow_ctx *x, const void *dev, size_t n, void **h, pq_error *err)
{
    *h = NULL;
    if (!dev) return PQ_OK;
    if (!(*h = malloc(n ? n : 1))) return pq_error_set(err, PQ_ERR_NOMEM, "device executor: cannot allocate %zu bytes", n);
    return pq_darrow_download(x, *h, dev, n, err);
}

/* Values in the device memory of x freed (host memory on host launches). */
static void device_free(pq_darrow_ctx *x, pq_column_values *v)
{
    pq_device_values_free(x->cuda, v);
}

static pq_status launch(pq_darrow_ctx *x, pq_kbuild_kernel k, const pq_kcompact_args *a, pq_error *err)
{
    if (a->npages == 0) return PQ_OK;
    x->launches++;
    if (x->cuda) {
        const char *why = NULL;
        if (pq_kbuild_cuda(x->stream, k, a, a->npages, x->threads, &why))
            return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device executor: CUDA kernel launch failed: %s",
                                why ? why : "?");
        return PQ_OK;
    }
    if (pq_kbuild_host(k, a, a->npages, x->threads, x->host_flags))
        return pq_error_set(err, PQ_ERR_NOMEM, "device executor: cannot start a host launch");
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * The compaction
 * ------------------------------------------------------------------------- */

typedef struct compaction {
    pq_darrow_ctx *x;
    pq_kcpage *cp;          /* the data pages (host) */
    pq_kcresult *cr;
    size_t *plan_page;      /* each one's plan page */
    size_t nd;
    void *d_cp, *d_cr, *d_keep;
    pq_kcompact_args a;
} compaction;

static void compaction_free(compaction *m)
{
    unmirror(m->x, m->d_cp);
    unmirror(m->x, m->d_cr);
    unmirror(m->x, m->d_keep);
    free(m->cp);
    free(m->cr);
    free(m->plan_page);
}

/* The page table, the selection and the whole decode as the launches' inputs. */
static pq_status compaction_init(compaction *m, const pq_decode_plan *whole, const pq_decode_plan *plan, size_t k,
                                 const pq_column_values *wo, pq_error *err)
{
    const pq_plan_chunk *pc = &plan->chunks[k];
    for (size_t i = pc->first_page; i < pc->first_page + pc->npages; i++) m->nd += plan->pages[i].kind == PQ_PLAN_PAGE_DATA;
    if (m->nd > UINT32_MAX) return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device executor: too many pages");
    m->cp = calloc(m->nd ? m->nd : 1, sizeof *m->cp);
    m->cr = calloc(m->nd ? m->nd : 1, sizeof *m->cr);
    m->plan_page = calloc(m->nd ? m->nd : 1, sizeof *m->plan_page);
    if (!m->cp || !m->cr || !m->plan_page) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    size_t d = 0;
    for (size_t i = pc->first_page; i < pc->first_page + pc->npages; i++) {
        if (plan->pages[i].kind != PQ_PLAN_PAGE_DATA) continue;
        m->cp[d] = (pq_kcpage){.full_at = whole->pages[i].value_offset, .n = whole->pages[i].n_values,
                               .row0 = plan->pages[i].first_row};
        if (pc->output == PQ_PLAN_VIEWS) {
            int32_t enc = plan->pages[i].info->encoding;
            m->cp[d].views_mode = enc == PQ_ENC_PLAIN_DICTIONARY || enc == PQ_ENC_RLE_DICTIONARY ? PQ_KC_VIEWS_KEEP
                                  : enc == PQ_ENC_PLAIN                                        ? PQ_KC_VIEWS_COPY
                                                                                               : PQ_KC_VIEWS_MOVE;
            m->cp[d].src_at = whole->pages[i].string_offset;
            m->cp[d].src_bytes = m->cp[d].views_mode == PQ_KC_VIEWS_MOVE ? whole->pages[i].string_bytes : 0;
            if (m->cp[d].src_at + m->cp[d].src_bytes > (wo->n_view_bufs ? wo->view_buf_lens[0] : 0))
                return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "device executor: page %zu's bytes are not in the chunk's",
                                    plan->pages[i].index);
        }
        if (m->cp[d].full_at + m->cp[d].n > wo->n_values)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "device executor: page %zu's values are not in the chunk's",
                                plan->pages[i].index);
        m->plan_page[d++] = i;
    }
    const pq_decode_rows *rows = pc->rows;
    pq_status st;
    if ((st = mirror(m->x, m->cp, m->nd * sizeof *m->cp, &m->d_cp, err)) != PQ_OK ||
        (st = mirror(m->x, m->cr, m->nd * sizeof *m->cr, &m->d_cr, err)) != PQ_OK ||
        (st = mirror(m->x, rows->keep, (size_t)((rows->count + 7) / 8), &m->d_keep, err)) != PQ_OK)
        return st;
    m->a = (pq_kcompact_args){.pages = m->d_cp, .results = m->d_cr, .npages = (uint32_t)m->nd,
                              .width = pc->output == PQ_PLAN_BYTES ? 0 : pc->output == PQ_PLAN_VIEWS ? 16 : pc->width,
                              .keep = m->d_keep, .first = rows->first, .count = rows->count,
                              .views = pc->output == PQ_PLAN_VIEWS,
                              .in_values = pc->output == PQ_PLAN_VIEWS ? wo->views : wo->values,
                              .in_offsets = wo->offsets,
                              .in_data = pc->output == PQ_PLAN_VIEWS ? wo->view_bufs[0] : wo->data,
                              .in_dict = pc->output == PQ_PLAN_VIEWS ? wo->view_bufs[1] : NULL};
    return PQ_OK;
}

/* Each page's selected values counted: the plan's counts checked, its
 * string bytes and offsets placed. */
static pq_status count_pages(compaction *m, pq_decode_plan *plan, size_t k, pq_error *err)
{
    pq_status st;
    if ((st = launch(m->x, PQ_KC_COUNT, &m->a, err)) != PQ_OK ||
        (st = pq_darrow_download(m->x, m->cr, m->d_cr, m->nd * sizeof *m->cr, err)) != PQ_OK)
        return st;
    bool bytes = plan->chunks[k].output == PQ_PLAN_BYTES, views = plan->chunks[k].output == PQ_PLAN_VIEWS;
    for (size_t d = 0; d < m->nd; d++) {
        pq_plan_page *pp = &plan->pages[m->plan_page[d]];
        if (m->cr[d].selected != pp->n_levels)
            return pq_error_set(err, PQ_ERR_CORRUPT_DATA, "device executor: page %zu has %llu selected rows, not %llu",
                                pp->index, m->cr[d].selected, (unsigned long long)pp->n_levels);
        pp->n_values = m->cr[d].selected;
        /* Views, as the CPU executor's: a PLAIN page's selected strings
         * (counted), another page's whole bytes, none for a dictionary's. */
        pp->string_bytes = bytes || views ? m->cr[d].bytes + m->cp[d].src_bytes : 0;
    }
    if ((st = pq_decode_plan_place(plan, k, err)) != PQ_OK) return st;
    if (bytes && plan->chunks[k].string_bytes > (uint64_t)INT32_MAX)
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device executor: the selected rows take %llu bytes, past int32 "
                                                     "offsets",
                            (unsigned long long)plan->chunks[k].string_bytes);
    for (size_t d = 0; d < m->nd; d++) {
        const pq_plan_page *pp = &plan->pages[m->plan_page[d]];
        m->cp[d].out_at = pp->value_offset;
        m->cp[d].string_at = pp->string_offset;
    }
    return pq_darrow_upload(m->x, m->d_cp, m->cp, m->nd * sizeof *m->cp, err);
}

/* The outputs at their size, and the selected values written into them. */
static pq_status write_pages(compaction *m, const pq_plan_chunk *pc, pq_column_values *out, pq_error *err)
{
    pq_darrow_ctx *x = m->x;
    size_t n = (size_t)pc->n_values;
    pq_status st;
    if (pc->output == PQ_PLAN_VIEWS) { /* at least one, as the CPU executor's; buffer 0 anew */
        if ((st = pq_darrow_alloc(x, (n ? n : 1) * 16, (void **)&out->views, err)) != PQ_OK ||
            (st = pq_darrow_alloc(x, (size_t)pc->string_bytes + 1, (void **)&out->view_bufs[0], err)) != PQ_OK)
            return st;
        out->view_buf_lens[0] = (size_t)pc->string_bytes;
        out->n_view_bufs = 1; /* freed with out on failure */
    } else if (pc->output == PQ_PLAN_BYTES) {
        int32_t zero = 0;
        if ((st = pq_darrow_alloc(x, (n + 1) * sizeof(int32_t), (void **)&out->offsets, err)) != PQ_OK ||
            (st = pq_darrow_upload(x, out->offsets, &zero, sizeof zero, err)) != PQ_OK ||
            (st = pq_darrow_alloc(x, (size_t)pc->string_bytes + 1, (void **)&out->data, err)) != PQ_OK)
            return st;
        out->data_len = (size_t)pc->string_bytes;
    } else if (n) { /* no values: NULL, as the CPU executor leaves an empty chunk */
        if (n > SIZE_MAX / pc->width)
            return pq_error_set(err, PQ_ERR_MEMORY_LIMIT, "%zu values overflow the address space", n);
        if ((st = pq_darrow_alloc(x, n * pc->width, (void **)&out->values, err)) != PQ_OK) return st;
    }
    m->a.out_values = pc->output == PQ_PLAN_VIEWS ? out->views : out->values;
    m->a.out_offsets = out->offsets;
    m->a.out_data = pc->output == PQ_PLAN_VIEWS ? out->view_bufs[0] : out->data;
    return launch(x, PQ_KC_WRITE, &m->a, err);
}

/* *h (zeroed first) gets host copies of v's buffers and its dictionary's;
 * on failure what it got is freed. */
static pq_status output_to_host(pq_darrow_ctx *x, const pq_column_values *v, pq_column_values *h,
                                pq_error *err)
{
    *h = *v;
    h->values = NULL, h->offsets = NULL, h->data = NULL, h->dictionary = NULL, h->views = NULL;
    h->view_bufs[0] = h->view_bufs[1] = NULL;
    pq_status st = PQ_OK;
    for (size_t i = 0; i < v->n_view_bufs && i < 2 && st == PQ_OK; i++)
        st = host_copy(x, v->view_bufs[i], v->view_buf_lens[i] ? v->view_buf_lens[i] : 1, (void **)&h->view_bufs[i],
                       err);
    if (st == PQ_OK && (st = host_copy(x, v->views, (v->n_values ? v->n_values : 1) * 16, (void **)&h->views, err)) ==
                           PQ_OK &&
        (st = host_copy(x, v->values, v->n_values * v->width, (void **)&h->values, err)) == PQ_OK &&
        (st = host_copy(x, v->offsets, (v->n_values + 1) * sizeof(int32_t), (void **)&h->offsets, err)) == PQ_OK &&
        (st = host_copy(x, v->data, v->data_len ? v->data_len : 1, (void **)&h->data, err)) == PQ_OK && v->dictionary) {
        if (!(h->dictionary = calloc(1, sizeof *h->dictionary))) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        else st = output_to_host(x, v->dictionary, h->dictionary, err);
    }
    if (st != PQ_OK) pq_column_values_free(h);
    return st;
}

pq_status pq_dx_rows_compact(pq_darrow_ctx *x, const pq_decode_plan *whole, pq_decode_plan *plan, size_t k,
                             pq_column_values *whole_out, bool on_device, pq_column_values *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    const pq_plan_chunk *pc = &plan->chunks[k];
    compaction m;
    memset(&m, 0, sizeof m);
    m.x = x;
    pq_status st = PQ_OK;
    const void *in = pc->output == PQ_PLAN_BYTES ? (const void *)whole_out->offsets
                     : pc->output == PQ_PLAN_VIEWS ? (const void *)whole_out->views
                                                   : (const void *)whole_out->values;
    if (!in && whole_out->n_values)
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "device executor: the whole decode has no values");
    if (st == PQ_OK) st = compaction_init(&m, whole, plan, k, whole_out, err);
    if (st == PQ_OK) st = count_pages(&m, plan, k, err);
    if (st == PQ_OK) st = write_pages(&m, pc, out, err);
    compaction_free(&m);
    if (st == PQ_OK) {
        out->physical_type = pc->physical_type;
        out->width = pc->width;
        out->n_levels = out->n_values = (size_t)pc->n_values;
        out->dictionary = whole_out->dictionary; /* indices out: the dictionary goes with them */
        whole_out->dictionary = NULL;
        if (pc->output == PQ_PLAN_VIEWS) { /* views: buffer 0 made above, the dictionary's taken over */
            out->n_view_bufs = whole_out->n_view_bufs ? whole_out->n_view_bufs : 1;
            if (whole_out->n_view_bufs > 1) {
                out->view_bufs[1] = whole_out->view_bufs[1];
                out->view_buf_lens[1] = whole_out->view_buf_lens[1];
                whole_out->view_bufs[1] = NULL;
            }
        }
        if (!on_device && x->apart) { /* the caller wants host buffers */
            pq_column_values h;
            st = output_to_host(x, out, &h, err);
            device_free(x, out); /* the device buffers, either way */
            if (st == PQ_OK) *out = h;
        }
    }
    device_free(x, whole_out);
    if (st != PQ_OK) device_free(x, out);
    return st;
}
