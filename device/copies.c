/*
 * copies.c — Arrow arrays copied between host and device memory: each
 * buffer sized from its type, the deep copy through a pq_device_memory,
 * the memories the GPU path copies through (CUDA, or host memory standing
 * for a device), and batches handed out as ArrowDeviceArrays.
 */
#include "device/copies.h"

#include <stdlib.h>
#include <string.h>

#include "device/cuda_runtime.h"
#include "metadata/error.h"

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
    if (pq_cuda_download(NULL, *host, dev, n, why) != 0) {
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
    return pq_cuda_download(NULL, host, src, n, &why);
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

/* Host to CUDA device, each buffer copied on a stream (the copy is
 * waited for). */
static int stream_copy_in(void *user, const void *host, size_t n, void **dev, const char **why)
{
    *dev = NULL;
    if (pq_cuda_alloc(dev, n, why) != 0) return -1;
    if (pq_cuda_upload(user, *dev, host, n, why) != 0) {
        pq_cuda_free(*dev);
        *dev = NULL;
        return -1;
    }
    return 0;
}

pq_device_memory pq_device_memory_to_cuda(void *stream)
{
    return stream ? (pq_device_memory){stream_copy_in, cuda_release, stream, NULL}
                  : (pq_device_memory){cuda_copy_in, cuda_release, NULL, NULL};
}

pq_device_memory pq_device_memory_host_copy(void)
{
    return (pq_device_memory){plain_copy_in, host_release, NULL, NULL};
}

pq_device_memory pq_device_memory_from_cuda(void)
{
    return (pq_device_memory){host_copy_in, host_release, NULL, cuda_peek};
}

pq_status pq_device_array_to_host(struct ArrowArray *a, const struct ArrowSchema *s, pq_error *err)
{
    if (!a->release) return PQ_OK;
    pq_device_memory mem = pq_device_memory_from_cuda();
    struct ArrowArray copy;
    pq_status st = pq_arrow_array_copy(a, s, &mem, &copy, err);
    a->release(a);
    if (st == PQ_OK) *a = copy;
    return st;
}

pq_status pq_device_batch_export(struct ArrowArray *a, const struct ArrowSchema *s, pq_batch_memory where,
                                 struct ArrowDeviceArray *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    switch (where) {
    case PQ_BATCH_ON_CUDA:
        out->array = *a;
        out->device_type = ARROW_DEVICE_CUDA;
        out->device_id = pq_cuda_current_device();
        break;
    case PQ_BATCH_COPY_TO_CUDA: {
        pq_device_memory mem = pq_device_memory_to_cuda(NULL);
        pq_status st = pq_arrow_array_copy(a, s, &mem, &out->array, err);
        a->release(a);
        if (st != PQ_OK) {
            memset(out, 0, sizeof *out);
            return st;
        }
        out->device_type = ARROW_DEVICE_CUDA;
        out->device_id = pq_cuda_current_device();
        break;
    }
    default:
        out->array = *a;
        out->device_type = ARROW_DEVICE_CPU;
        out->device_id = -1;
        break;
    }
    memset(a, 0, sizeof *a); /* moved into out */
    out->sync_event = NULL; /* the device's work is complete on return */
    return PQ_OK;
}

void pq_device_values_free(bool on_cuda, pq_column_values *v)
{
    if (!v) return;
    if (!on_cuda) {
        pq_column_values_free(v);
        return;
    }
    void *bufs[] = {v->def_levels, v->rep_levels, v->values, v->offsets, v->data, v->views};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pq_cuda_free(bufs[i]);
    for (size_t i = 0; i < v->n_view_bufs && i < 2; i++) pq_cuda_free(v->view_bufs[i]);
    if (v->dictionary) {
        pq_device_values_free(true, v->dictionary);
        free(v->dictionary); /* the struct itself is host memory */
    }
    memset(v, 0, sizeof *v);
}
