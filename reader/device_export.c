/*
 * device_export.c — batches handed out on a device: sizing each Arrow
 * buffer from its type, the deep copy through a pq_device_memory, and
 * pq_reader_next_device_batch.
 */
#include "reader/device_export.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/device.h"
#include "kernels/k_decode.h"
#include "metadata/error.h"
#include "reader/reader_internal.h"

#define MAX_DEPTH 64

/* Bytes a value of a fixed-width format takes; 0 when not fixed width. */
static int64_t fixed_width(const char *f)
{
    switch (f[0]) {
    case 'c': case 'C': return f[1] ? 0 : 1;
    case 's': case 'S': case 'e': return f[1] ? 0 : 2;
    case 'i': case 'I': case 'f': return f[1] ? 0 : 4;
    case 'l': case 'L': case 'g': return f[1] ? 0 : 8;
    case 'w': return f[1] == ':' ? atoll(f + 2) : 0;
    case 'd': {
        const char *c2 = strchr(f, ',') ? strchr(strchr(f, ',') + 1, ',') : NULL;
        int bits = c2 ? atoi(c2 + 1) : 128;
        return bits == 32 || bits == 64 || bits == 128 || bits == 256 ? bits / 8 : 0;
    }
    case 't':
        if (f[1] == 'd') return f[2] == 'D' ? 4 : f[2] == 'm' ? 8 : 0;
        if (f[1] == 't') return f[2] == 's' || f[2] == 'm' ? 4 : f[2] == 'u' || f[2] == 'n' ? 8 : 0;
        if (f[1] == 's' || f[1] == 'D') return 8;
        if (f[1] == 'i') return f[2] == 'M' ? 4 : f[2] == 'D' ? 8 : f[2] == 'n' ? 16 : 0;
        return 0;
    default: return 0;
    }
}

/* n bytes of the source at p: read directly, or through mem->peek. */
static bool read_source(const pq_device_memory *mem, void *host, const void *p, size_t n)
{
    if (mem && mem->peek) return mem->peek(mem->user, host, p, n) == 0;
    memcpy(host, p, n);
    return true;
}

static int64_t offsets_end(const struct ArrowArray *a, bool wide, const pq_device_memory *mem)
{
    if (!a->buffers[1] || a->length == 0) return 0;
    int64_t at = a->offset + a->length;
    if (wide) {
        int64_t v;
        return read_source(mem, &v, (const uint8_t *)a->buffers[1] + 8 * at, 8) && v >= 0 ? v : -1;
    }
    int32_t v;
    return read_source(mem, &v, (const uint8_t *)a->buffers[1] + 4 * at, 4) && v >= 0 ? v : -1;
}

int64_t pq_arrow_buffer_size(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i)
{
    return pq_arrow_buffer_size_in(s, a, i, NULL);
}

int64_t pq_arrow_buffer_size_in(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                                const pq_device_memory *mem)
{
    const char *f = s->format;
    int64_t n = a->offset + a->length;
    if (i < 0 || i >= a->n_buffers || !a->buffers[i]) return 0;
    if (i == 0 && strcmp(f, "n") != 0) return (n + 7) / 8; /* validity */
    if (s->dictionary) { /* the indices: an integer format */
        int64_t w = fixed_width(f);
        return w && i == 1 ? w * n : -1;
    }
    int64_t w = fixed_width(f);
    if (w) return i == 1 ? w * n : -1;
    if (strcmp(f, "b") == 0) return i == 1 ? (n + 7) / 8 : -1;
    bool wide = f[0] == 'U' || f[0] == 'Z' || strcmp(f, "+L") == 0;
    if (!f[1] && (f[0] == 'u' || f[0] == 'z' || f[0] == 'U' || f[0] == 'Z')) {
        if (i == 1) return (wide ? 8 : 4) * (n + 1);
        return i == 2 ? offsets_end(a, wide, mem) : -1;
    }
    if (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0 || strcmp(f, "+m") == 0)
        return i == 1 ? (wide ? 8 : 4) * (n + 1) : -1;
    if (strcmp(f, "vu") == 0 || strcmp(f, "vz") == 0) {
        int64_t nvar = a->n_buffers - 3;
        if (nvar < 0) return -1;
        if (i == 1) return 16 * n;
        if (i == a->n_buffers - 1) return 8 * nvar;
        int64_t len;
        if (!read_source(mem, &len, (const uint8_t *)a->buffers[a->n_buffers - 1] + 8 * (i - 2), 8)) return -1;
        return len >= 0 ? len : -1;
    }
    return -1; /* "+s", "+w:N" have validity only; anything else is not sized here */
}

/* What a copied array owns. */
typedef struct copy_private {
    pq_device_memory mem;
    const void **buffers;
    int64_t n_buffers;
    struct ArrowArray **children;
    int64_t n_children;
    struct ArrowArray *dictionary;
} copy_private;

static void copy_release(struct ArrowArray *a)
{
    if (!a || !a->release) return;
    copy_private *p = a->private_data;
    for (int64_t i = 0; i < p->n_buffers; i++) p->mem.release(p->mem.user, (void *)p->buffers[i]);
    for (int64_t i = 0; i < p->n_children; i++) {
        if (p->children[i] && p->children[i]->release) p->children[i]->release(p->children[i]);
        free(p->children[i]);
    }
    if (p->dictionary && p->dictionary->release) p->dictionary->release(p->dictionary);
    free(p->dictionary);
    free(p->children);
    free(p->buffers);
    free(p);
    a->release = NULL;
}

static pq_status copy_tree(const struct ArrowArray *src, const struct ArrowSchema *s, const pq_device_memory *mem,
                           struct ArrowArray *dst, int depth, pq_error *err)
{
    memset(dst, 0, sizeof *dst);
    if (depth > MAX_DEPTH) return pq_error_set(err, PQ_ERR_UNSUPPORTED, "an array nested more than %d deep", MAX_DEPTH);
    if (src->n_children != s->n_children || src->n_buffers < 0 || src->n_buffers > 1024 ||
        (!src->dictionary) != (!s->dictionary))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "array and schema '%s' do not agree", s->format);
    copy_private *p = calloc(1, sizeof *p);
    if (!p) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    p->mem = *mem;
    *dst = *src;
    dst->private_data = p;
    dst->release = copy_release;
    dst->buffers = NULL;
    dst->children = NULL;
    dst->dictionary = NULL;
    pq_status st = PQ_OK;
    p->buffers = calloc(src->n_buffers ? (size_t)src->n_buffers : 1, sizeof *p->buffers);
    p->children = calloc(src->n_children ? (size_t)src->n_children : 1, sizeof *p->children);
    if (!p->buffers || !p->children) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; st == PQ_OK && i < src->n_buffers; i++) {
        int64_t size = pq_arrow_buffer_size_in(s, src, i, mem);
        if (size < 0) {
            st = pq_error_set(err, PQ_ERR_UNSUPPORTED, "cannot size buffer %lld of an array of format '%s'",
                              (long long)i, s->format);
            break;
        }
        const char *why = NULL;
        void *dev = NULL;
        if (size && mem->copy_in(mem->user, src->buffers[i], (size_t)size, &dev, &why) != 0) {
            st = pq_error_set(err, PQ_ERR_UNSUPPORTED, "copying a %lld-byte buffer to the device: %s",
                              (long long)size, why ? why : "failed");
            break;
        }
        p->buffers[i] = dev;
        p->n_buffers = i + 1;
    }
    dst->buffers = p->buffers;
    for (int64_t i = 0; st == PQ_OK && i < src->n_children; i++) {
        p->children[i] = malloc(sizeof **p->children);
        if (!p->children[i]) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        else st = copy_tree(src->children[i], s->children[i], mem, p->children[i], depth + 1, err);
        p->n_children = i + 1;
    }
    dst->children = p->children;
    if (st == PQ_OK && src->dictionary) {
        p->dictionary = malloc(sizeof *p->dictionary);
        if (!p->dictionary) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
        else st = copy_tree(src->dictionary, s->dictionary, mem, p->dictionary, depth + 1, err);
        dst->dictionary = p->dictionary;
    }
    if (st != PQ_OK) copy_release(dst);
    return st;
}

pq_status pq_arrow_array_copy(const struct ArrowArray *src, const struct ArrowSchema *s, const pq_device_memory *mem,
                              struct ArrowArray *dst, pq_error *err)
{
    if (!src || !s || !mem || !dst) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "NULL argument");
    pq_status st = copy_tree(src, s, mem, dst, 0, err);
    if (st != PQ_OK) memset(dst, 0, sizeof *dst);
    return st;
}

/* ---------------------------------------------------------------------------
 * Memory the copies go through
 * ------------------------------------------------------------------------- */

/* Host to CUDA device. */
static int cuda_copy_in(void *user, const void *host, size_t n, void **dev, const char **why)
{
    (void)user;
    return pq_cuda_copy_to_device(host, n, dev, why);
}

static void cuda_release(void *user, void *dev)
{
    (void)user;
    pq_cuda_free(dev);
}

/* CUDA device to host. */
static int host_copy_in(void *user, const void *dev, size_t n, void **host, const char **why)
{
    (void)user;
    *host = malloc(n ? n : 1);
    if (!*host) {
        *why = "out of host memory";
        return -1;
    }
    if (pq_kcuda_download(NULL, *host, dev, n, why) != 0) {
        free(*host);
        *host = NULL;
        return -1;
    }
    return 0;
}

static void host_release(void *user, void *p)
{
    (void)user;
    free(p);
}

static int cuda_peek(void *user, void *host, const void *src, size_t n)
{
    (void)user;
    const char *why = NULL;
    return pq_kcuda_download(NULL, host, src, n, &why);
}

/* Host memory standing for a device (host kernels): plain copies. */
static int plain_copy_in(void *user, const void *src, size_t n, void **dst, const char **why)
{
    (void)user;
    *dst = malloc(n ? n : 1);
    if (!*dst) {
        *why = "out of memory";
        return -1;
    }
    memcpy(*dst, src, n);
    return 0;
}

/* ---------------------------------------------------------------------------
 * The decode stage's arrays in device memory (opts.device_output)
 * ------------------------------------------------------------------------- */

/* Column c (rows of its whole length) copied through mem and adopted in its
 * place; `field` is its schema. */
static pq_status column_to_device(pq_arrow_column **c, const struct ArrowSchema *field, const pq_device_memory *mem,
                                  pq_error *err)
{
    struct ArrowArray batch, copy;
    pq_status st = pq_arrow_batch_export(c, NULL, 1, pq_arrow_column_length(*c), &batch, err);
    if (st != PQ_OK) return st;
    st = pq_arrow_array_copy(batch.children[0], field, mem, &copy, err);
    batch.release(&batch);
    if (st != PQ_OK) return st;
    uint64_t bytes = pq_arrow_column_bytes(*c);
    pq_arrow_column *adopted = NULL;
    if ((st = pq_arrow_column_adopt(&copy, bytes, &adopted, err)) != PQ_OK) return st;
    pq_arrow_column_release(*c);
    *c = adopted;
    return PQ_OK;
}

pq_status pq_reader_output_to_device(pq_reader *r, pq_error *err)
{
    if (r->out.memory == OUTPUT_ON_HOST) return PQ_OK;
    struct ArrowSchema schema;
    pq_status st = pq_reader_selection_schema(r, &schema, err);
    if (st != PQ_OK) return st;
    pq_device_memory mem = r->out.memory == OUTPUT_ON_CUDA ? (pq_device_memory){cuda_copy_in, cuda_release, NULL, NULL}
                                                           : (pq_device_memory){plain_copy_in, host_release, NULL, NULL};
    size_t n = r->sel.columns_len;
    for (size_t i = 0; st == PQ_OK && i < r->out.len; i++) {
        pq_arrow_column **c = &r->out.cols[i];
        if (!*c || pq_arrow_column_is_adopted(*c)) continue;
        size_t field = n ? i % n : 0; /* nested: the fields are packed first in a row group's slots */
        if ((int64_t)field >= schema.n_children) {
            st = pq_error_set(err, PQ_ERR_SCHEMA, "output slot %zu has no field in the batch schema", i);
            break;
        }
        if ((st = column_to_device(c, schema.children[field], &mem, err)) == PQ_OK) r->out.copied_to_device++;
    }
    schema.release(&schema);
    return st;
}

pq_status pq_reader_batch_to_host(const pq_reader *r, struct ArrowArray *a, const struct ArrowSchema *s,
                                  pq_error *err)
{
    if (r->out.memory != OUTPUT_ON_CUDA || !a->release) return PQ_OK;
    pq_device_memory mem = {host_copy_in, host_release, NULL, cuda_peek};
    struct ArrowArray copy;
    pq_status st = pq_arrow_array_copy(a, s, &mem, &copy, err);
    a->release(a);
    if (st == PQ_OK) *a = copy;
    return st;
}

/* ---------------------------------------------------------------------------
 * pq_reader_next_device_batch
 * ------------------------------------------------------------------------- */

pq_status pq_reader_next_device_batch(pq_reader *r, uint64_t max_rows, struct ArrowDeviceArray *out,
                                      struct ArrowSchema *out_schema, pq_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (out_schema) memset(out_schema, 0, sizeof *out_schema);
    if (!r || !out) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader and array must not be NULL");
    struct ArrowArray a;
    struct ArrowSchema s;
    /* The arrays where they are: slices of the device's with device_output. */
    pq_status st = pq_reader_next_batch_as(r, max_rows, true, &a, &s, err); /* the schema sizes copies */
    if (st != PQ_OK || !a.release) return st;                              /* an error, or the end of data */
    if (r->out.memory == OUTPUT_ON_CUDA) {
        out->array = a;
        out->device_type = ARROW_DEVICE_CUDA;
        out->device_id = pq_cuda_current_device();
    } else if (!r->out.on_cuda) {
        out->array = a;
        out->device_type = ARROW_DEVICE_CPU;
        out->device_id = -1;
    } else {
        pq_device_memory mem = {cuda_copy_in, cuda_release, NULL, NULL};
        st = pq_arrow_array_copy(&a, &s, &mem, &out->array, err);
        a.release(&a);
        if (st != PQ_OK) {
            s.release(&s);
            memset(out, 0, sizeof *out);
            return st;
        }
        out->device_type = ARROW_DEVICE_CUDA;
        out->device_id = pq_cuda_current_device();
    }
    out->sync_event = NULL; /* the device's work is complete on return */
    if (out_schema) *out_schema = s;
    else s.release(&s);
    return PQ_OK;
}
