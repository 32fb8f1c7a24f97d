/*
 * exec.c — the device executor of decode plans (see exec.h).
 *
 * One chunk at a time: the host prepares every page (decompressed, split
 * into sections, each size checked), builds the page table, and between
 * kernel launches does what needs the whole chunk: sums of counts into
 * offsets, allocation at the exact size, and the reading of the kernels'
 * error records into messages. Memory the kernels touch is "device
 * memory": cudaMalloc'd on a GPU, plain malloc'd (and the host's own tables
 * used in place) when the kernels run on the host.
 *
 * Errors come out in the CPU executor's order. Within a data page that is
 * the order of its steps (rank below); across pages the first failing page
 * of a stage, and the stages as the CPU executor's phases: the dictionary,
 * then the data pages' levels (and the values of chunks sized by their
 * headers, and the string-size pass of byte arrays), then the offsets,
 * then the remaining values.
 */
#include "device/exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cuda_runtime.h"
#include "kernels/k_decode.h"
#include "device/nvcomp.h"
#include "kernels/primitives.h"
#include "metadata/error.h"
#include "pages/codec.h"
#include "pages/page_values.h"
#include "device/rows.h"

#define DEFAULT_THREADS 256u

/* Where a failure stands among a data page's steps, earliest first: the
 * page keeps its earliest failure, as the CPU executor stops at it. */
enum {
    RANK_PAGE,         /* decompression (DATA_PAGE), the v2 level lengths */
    RANK_REP,          /* repetition levels */
    RANK_START,        /* the chunk's first repetition level */
    RANK_DEF,          /* definition levels */
    RANK_V2_VALUES, /* decompression of a DATA_PAGE_V2's values */
    RANK_VALUES,       /* the values */
    RANK_NONE
};

/* Which section of a page an error record is about. */
enum { SEC_REP, SEC_DEF, SEC_VAL };

/* The staging buffer: two halves, the one being filled and the other in
 * flight (its event recorded after its copy). */
typedef struct dx_stage {
    uint8_t *buf[2];
    void *ev[2];
    size_t ev_pos[2];       /* host_async: the copy queue's length when the half was sent */
    bool busy[2];           /* a copy from the half may be in flight */
    size_t half;            /* bytes of each half */
    int cur;                /* the half being filled */
    size_t used;            /* bytes in it */
    uint8_t *base, *dst;    /* where they go: buffer base, address */
    size_t dst_off;
} dx_stage;

/* host_async: a copy on the copy stream, not done yet. */
typedef struct dx_copy {
    uint8_t *dst;
    const uint8_t *src;
    size_t n;
} dx_copy;

typedef struct dx_run {
    const pq_device_exec_options *o;
    bool cuda;              /* kernels and their memory on the device */
    bool apart;             /* device memory apart from the host's (cuda, or host_apart) */
    /* host_async: the copy stream as a queue, done up to `done` when the
     * CUDA path would wait for it (events below as queue positions). */
    bool deferred;
    dx_copy *q;
    size_t qn, qcap, done;
    const char *no_device;  /* use_cuda without a device: why */
    void *stream;           /* the kernels and the batch */
    void *copy_stream;      /* the staging copies */
    void *ev_up[2];         /* a chunk state's staging done (cs[0], cs[1]) */
    bool batch;             /* compressed pages to the batch (nvCOMP, or the host codecs on host launches) */
    dx_stage st;
    pq_codec_ctx *cctx;
    pq_codec_ctx own_cctx;
    uint32_t threads;
    unsigned host_flags;
    pq_device_exec_stats *stats;
} dx_run;

/* A data page (or, at index ndata, the dictionary page). */
typedef struct dx_page {
    size_t plan;            /* its plan page */
    int rank;               /* its earliest failure, RANK_NONE */
    pq_status st;
    pq_error err;
} dx_page;

/* How a page's (values) bytes reach the kernels. */
enum { ROUTE_NONE, ROUTE_COPY, ROUTE_HOST, ROUTE_BATCH };

/* Where a page's decompressed bytes go, and how many. DATA_PAGE_V2: the
 * level bytes as stored at `at`, the values decompressed (vals of them)
 * at out_at. */
typedef struct page_slot {
    size_t at, out_at, size;
    size_t rl, dl, vals;        /* v2 levels; values bytes (v1: the whole page) */
    bool v2;
    bool values_ok;             /* the values can be decompressed */
    bool dfail;                 /* their decompression failed */
    int route, rank;            /* ROUTE_*, the rank of a decompression failure */
    const uint8_t *src;         /* the values as stored (host) */
    size_t src_len;
    size_t raw_at, host_at;     /* in the raw buffer (batch), in the host buffer (host) */
    size_t batch;               /* index in the batch */
    size_t peek_pos[2], want;   /* level length words fetched from the device */
    uint32_t peek[2];
    int npeek;
    bool wanting;
} page_slot;

typedef struct dx_chunk {
    dx_run *x;
    pq_decode_plan *plan;
    size_t k;
    pq_plan_chunk *pc;
    pq_error *err;
    uint64_t held;          /* bytes allocated, against the memory limit */
    size_t ndata;           /* data pages */
    dx_page *pg;            /* ndata + 1 */
    pq_kpage *kp;           /* ndata + 1: the data pages, then the dictionary page */
    pq_kresult *kr;         /* ndata + 1 */
    page_slot *slots;       /* ndata + 1 */
    size_t nbytes;          /* the page buffer: every page decompressed, back to back */
    uint8_t *hbytes;        /* host-decompressed pages (host memory) */
    size_t nhost, nhost_pages; /* its bytes; the pages (an empty one included) */
    size_t nraw;            /* the raw buffer: batch pages as stored */
    size_t nbatch, batch_max;
    uint8_t *h_batch;       /* the batch arrays (host) */
    bool batch_pending;     /* nvCOMP enqueued, not waited for */
    void *ev_up;            /* staging done (the run's) */
    size_t up_pos;          /* host_async: the copy queue's length at staging's end */
    const uint8_t *d_src;   /* the chunk's stored bytes in device memory (options.resident), or NULL */
    const uint8_t *bytes;   /* the chunk's bytes as the pages are read: the plan's, or plain */
    uint8_t *plain;         /* an encrypted chunk: its pages decrypted on the host, each at its
                             * stored bytes' offset (owned) */
    size_t nruns, nidx, nminis;
    uint32_t dict_n;
    /* Device memory (the host arrays above themselves for host launches). */
    pq_kpage *d_kp;
    pq_kresult *d_kr;
    uint8_t *d_bytes;
    uint8_t *d_raw;
    uint8_t *d_batch;
    void *d_temp;
    pq_krun *d_runs;
    uint32_t *d_idx;
    pq_kmini *d_minis;
    int16_t *d_def, *d_rep;
    uint8_t *d_values;
    int32_t *d_offsets;
    uint8_t *d_data;
    uint8_t *d_views;
    uint8_t *d_dvalues;
    int32_t *d_doffsets;
    uint8_t *d_ddata;
    size_t def_bytes, rep_bytes, values_bytes, offsets_bytes, data_bytes, views_bytes;
    size_t dict_bytes;      /* the dictionary's data (byte arrays) */
} dx_chunk;

static bool is_dict_encoding(int32_t enc)
{
    return enc == PQ_ENC_PLAIN_DICTIONARY || enc == PQ_ENC_RLE_DICTIONARY;
}

/* The kernel op of a data page's values, from its encoding and the chunk's
 * type and output (the CPU executor's decode_values_as_is), or
 * PQ_KOP_NONE where the kernels do not cover them (an encoding the CPU
 * executor does not decode for the type, or none). */
static uint8_t encoding_op(const pq_plan_chunk *pc, int32_t enc)
{
    int32_t type = pc->physical_type;
    /* String views decode a page not dictionary-encoded as offsets and
     * data first, as the CPU executor does, then view them (k_bytes.h). */
    bool views = pc->output == PQ_PLAN_VIEWS, bytes = pc->output == PQ_PLAN_BYTES || views;
    if (pc->flags & PQ_PLAN_CHUNK_INDICES) return is_dict_encoding(enc) ? PQ_KOP_DICT_INDEX : PQ_KOP_NONE;
    if (pc->flags & PQ_PLAN_CHUNK_DECIMAL128) return PQ_KOP_NONE; /* the CPU executor's widening */
    switch (enc) {
    case PQ_ENC_PLAIN:
        if (bytes) return PQ_KOP_PLAIN_BYTES;
        return type == PQ_BOOLEAN ? PQ_KOP_PLAIN_BOOL : PQ_KOP_PLAIN_FIXED;
    case PQ_ENC_PLAIN_DICTIONARY:
    case PQ_ENC_RLE_DICTIONARY:
        return views ? PQ_KOP_DICT_VIEWS : bytes ? PQ_KOP_DICT_BYTES : PQ_KOP_DICT_FIXED;
    case PQ_ENC_RLE:
        return type == PQ_BOOLEAN ? PQ_KOP_RLE_BOOL : PQ_KOP_NONE;
    case PQ_ENC_DELTA_BINARY_PACKED:
        return type == PQ_INT32 || type == PQ_INT64 ? PQ_KOP_DELTA : PQ_KOP_NONE;
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
        return type == PQ_BYTE_ARRAY && bytes ? PQ_KOP_DELTA_LENGTH : PQ_KOP_NONE;
    case PQ_ENC_DELTA_BYTE_ARRAY:
        if (type == PQ_BYTE_ARRAY) return bytes ? PQ_KOP_DELTA_BYTES : PQ_KOP_NONE;
        return type == PQ_FIXED_LEN_BYTE_ARRAY ? PQ_KOP_DELTA_FLBA : PQ_KOP_NONE;
    case PQ_ENC_BYTE_STREAM_SPLIT:
        return type == PQ_FLOAT || type == PQ_DOUBLE || type == PQ_INT32 || type == PQ_INT64 ||
                       type == PQ_FIXED_LEN_BYTE_ARRAY
                   ? PQ_KOP_BSS
                   : PQ_KOP_NONE;
    default:
        return PQ_KOP_NONE;
    }
}

static bool mul_ok(size_t a, size_t b, size_t *r)
{
    if (a && b > SIZE_MAX / a) return false;
    *r = a * b;
    return true;
}

/* ---------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------- */

/* "page 3 (DATA_PAGE, PLAIN): " for plan page pp, into m; returns its length. */
static int page_prefix(const pq_plan_page *pp, char *m, size_t cap)
{
    /* The name functions may share one buffer for unknown values: copy. */
    char type[32], enc[32];
    snprintf(type, sizeof type, "%s", pq_page_type_name(pp->info->type));
    snprintf(enc, sizeof enc, "%s", pq_encoding_name(pp->info->encoding));
    int k = snprintf(m, cap, "page %zu (%s, %s): ", pp->index, type, enc);
    return k < 0 ? 0 : (size_t)k >= cap ? (int)cap - 1 : k;
}

/* Page i's failure at `rank`, kept when it is the page's earliest. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void page_fail(dx_chunk *c, size_t i, int rank, pq_status st, const char *fmt, ...)
{
    dx_page *p = &c->pg[i];
    if (rank >= p->rank) return;
    p->rank = rank;
    p->st = st;
    p->err.code = st;
    char *m = p->err.message;
    int k = page_prefix(&c->plan->pages[p->plan], m, sizeof p->err.message);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m + k, sizeof p->err.message - (size_t)k, fmt, ap);
    va_end(ap);
}

/* The first failing page (data pages in order, the dictionary not among
 * them): its failure is the chunk's. */
static pq_status first_page_failure(dx_chunk *c)
{
    for (size_t i = 0; i < c->ndata; i++)
        if (c->pg[i].rank != RANK_NONE) {
            *c->err = c->pg[i].err;
            return c->pg[i].st;
        }
    return PQ_OK;
}

/* The CPU executor decodes RLE booleans BATCH (column_decode.c) values at
 * a time and checks a batch's values once the batch is whole: a value out
 * of range is reported before a failure of the runs only when the two are
 * in different batches. */
#define CPU_BATCH 1024u

/* The names of the varints of a DELTA_BINARY_PACKED stream (as delta.c). */
static const char *const delta_fields[] = {
    [PQ_KDELTA_FIELD_BLOCK] = "block size",
    [PQ_KDELTA_FIELD_MINIS] = "miniblock count",
    [PQ_KDELTA_FIELD_TOTAL] = "value count",
    [PQ_KDELTA_FIELD_FIRST] = "first value",
    [PQ_KDELTA_FIELD_MIN_DELTA] = "min delta",
};

/* The decoder that names the values of a DELTA op in messages. */
static const char *delta_name(uint8_t op)
{
    return op == PQ_KOP_DELTA ? "DELTA_BINARY_PACKED" : op == PQ_KOP_DELTA_LENGTH ? "DELTA_LENGTH_BYTE_ARRAY"
                                                                                  : "DELTA_BYTE_ARRAY";
}

/* A kernel's error record for section `sec` of page i, turned into the
 * page's failure at `rank` (nothing when the record is clean). Messages
 * follow the CPU executor's. */
static void kernel_failure(dx_chunk *c, size_t i, int sec, int rank, const pq_kerror *e)
{
    const pq_kpage *kp = &c->kp[i];
    const pq_kresult *kr = &c->kr[i];
    bool dict = pq_k_dict_op(kp->op);
    bool rle_bool = sec == SEC_VAL && kp->op == PQ_KOP_RLE_BOOL;
    const char *levels = sec == SEC_REP ? "repetition" : "definition";
    int16_t max = sec == SEC_REP ? c->pc->max_rep : c->pc->max_def;
    char what[32], pre[40]; /* what failed, and that as a message's start ("" for RLE booleans, as on the CPU) */
    if (sec != SEC_VAL) snprintf(what, sizeof what, "%s levels", levels);
    else snprintf(what, sizeof what, "%s", dict ? "dictionary indices" : "PLAIN");
    snprintf(pre, sizeof pre, "%s: ", what);
    if (rle_bool) pre[0] = 0;
    pq_status bad = PQ_ERR_CORRUPT_DATA;
    if (e->bad_index != PQ_KNONE && rle_bool) {
        if (e->fail == PQ_KF_NONE || e->bad_index / CPU_BATCH < kr->val_covered / CPU_BATCH) {
            page_fail(c, i, rank, bad, "RLE boolean %llu at value %llu", e->bad_value, e->bad_index);
            return;
        }
    } else if (e->bad_index != PQ_KNONE) { /* a decoded value is out of range: before any later structural failure */
        if (sec != SEC_VAL)
            page_fail(c, i, rank, bad, "%s level %llu at slot %llu exceeds the maximum %d", levels, e->bad_value,
                      e->bad_index, max);
        else
            page_fail(c, i, rank, bad, "dictionary index %llu at value %llu >= dictionary size %u", e->bad_value,
                      e->bad_index, c->dict_n);
        return;
    }
    switch (e->fail) {
    case PQ_KF_NONE:
        return;
    case PQ_KF_RUN_HEADER:
        page_fail(c, i, rank, bad, "%sRLE: truncated or overlong run header at byte %llu", pre, e->at);
        return;
    case PQ_KF_LITERAL_COUNT:
        page_fail(c, i, rank, bad, "%sRLE: bit-packed run of %llu groups at byte %llu", pre, e->count, e->at);
        return;
    case PQ_KF_LITERAL_EMPTY:
        page_fail(c, i, rank, bad, "%sRLE: bit-packed run at byte %llu has no data", pre, e->at);
        return;
    case PQ_KF_RUN_COUNT:
        page_fail(c, i, rank, bad, "%sRLE: run of %llu values at byte %llu", pre, e->count, e->at);
        return;
    case PQ_KF_RUN_VALUE:
        page_fail(c, i, rank, bad, "%sRLE: run value at byte %llu is truncated", pre, e->at);
        return;
    case PQ_KF_SHORT:
        if (sec == SEC_VAL)
            page_fail(c, i, rank, bad, "%s: %llu decoded, the page has %u non-null values",
                      rle_bool ? "RLE booleans" : "dictionary indices", e->count, kp->n_values);
        else
            page_fail(c, i, rank, bad, "%s: %llu decoded, the page has %u values", what, e->count, kp->n_levels);
        return;
    case PQ_KF_PREFIX_SHORT:
        page_fail(c, i, rank, bad, "RLE: %llu bytes, too short for the 4-byte length", e->count);
        return;
    case PQ_KF_PREFIX_LENGTH:
        page_fail(c, i, rank, bad, "RLE: length %llu exceeds the %llu bytes left", e->count, e->index);
        return;
    case PQ_KF_BSS_SIZE:
        page_fail(c, i, rank, bad, "BYTE_STREAM_SPLIT: %llu bytes for %u values of %u bytes", e->count,
                  kp->n_values, c->pc->width);
        return;
    case PQ_KF_DELTA_VARINT:
        page_fail(c, i, rank, bad, "DELTA_BINARY_PACKED: truncated or overlong %s at byte %llu",
                  e->index < sizeof delta_fields / sizeof delta_fields[0] ? delta_fields[e->index] : "varint", e->at);
        return;
    case PQ_KF_DELTA_BLOCK:
        page_fail(c, i, rank, bad, "DELTA_BINARY_PACKED: block size %llu is not a positive multiple of 128", e->count);
        return;
    case PQ_KF_DELTA_MINIS:
        page_fail(c, i, rank, bad,
                  "DELTA_BINARY_PACKED: %llu miniblocks in a block of %llu: values per miniblock not a multiple of 32",
                  e->count, e->index);
        return;
    case PQ_KF_DELTA_TOTAL:
        page_fail(c, i, rank, bad, "DELTA_BINARY_PACKED: %llu values, more than the %u declared", e->count,
                  kp->n_values);
        return;
    case PQ_KF_DELTA_WIDTHS:
        page_fail(c, i, rank, bad, "DELTA_BINARY_PACKED: bit widths truncated at byte %llu", e->at);
        return;
    case PQ_KF_DELTA_WIDTH:
        page_fail(c, i, rank, bad, "DELTA_BINARY_PACKED: miniblock bit width %llu exceeds 64", e->count);
        return;
    case PQ_KF_DELTA_DATA:
        page_fail(c, i, rank, bad, "DELTA_BINARY_PACKED: miniblock at byte %llu needs %llu bytes, %llu present", e->at,
                  e->count, e->index);
        return;
    case PQ_KF_DELTA_COUNT:
        page_fail(c, i, rank, bad, "%s: %llu values, the page has %u non-null values", delta_name(kp->op), e->count,
                  kp->n_values);
        return;
    case PQ_KF_LEN_NEGATIVE:
        page_fail(c, i, rank, bad, "DELTA_LENGTH_BYTE_ARRAY: value %llu has negative length %lld", e->index,
                  (long long)e->count);
        return;
    case PQ_KF_LEN_BEYOND:
        page_fail(c, i, rank, bad, "DELTA_LENGTH_BYTE_ARRAY: values up to %llu need %llu bytes, %llu present",
                  e->index, e->count, e->at);
        return;
    case PQ_KF_PREFIX_COUNTS:
        page_fail(c, i, rank, bad, "DELTA_BYTE_ARRAY: %llu prefix lengths but %llu suffixes", e->count, e->index);
        return;
    case PQ_KF_PREFIX_BAD:
        page_fail(c, i, rank, bad, "DELTA_BYTE_ARRAY: value %llu has prefix length %lld, the previous value has %llu "
                  "bytes", e->index, (long long)e->count, e->at);
        return;
    case PQ_KF_DBA_OVERFLOW:
        page_fail(c, i, rank, PQ_ERR_UNSUPPORTED, "DELTA_BYTE_ARRAY: values exceed int32 offsets");
        return;
    case PQ_KF_FLBA_WIDTH:
        page_fail(c, i, rank, bad, "DELTA_BYTE_ARRAY: value %llu is %lld bytes, FIXED_LEN_BYTE_ARRAY(%u)", e->index,
                  (long long)e->count, c->pc->width);
        return;
    case PQ_KF_PACKED_SHORT:
        page_fail(c, i, rank, bad, "%s: BIT_PACKED: %u values need %llu bytes, fewer present", what, kp->n_levels,
                  e->count);
        return;
    case PQ_KF_BIT_WIDTH:
        page_fail(c, i, rank, bad, "RLE: bit width %llu is not in 0..32", e->count);
        return;
    case PQ_KF_EMPTY:
        page_fail(c, i, rank, bad, "dictionary indices: empty page data");
        return;
    case PQ_KF_FIXED_SHORT:
        if (kp->op == PQ_KOP_PLAIN_BOOL)
            page_fail(c, i, rank, bad, "%u booleans cannot fit in %llu bytes", kp->n_values, e->count);
        else
            page_fail(c, i, rank, bad, "%u values of %u bytes cannot fit in %llu bytes", kp->n_values,
                      c->pc->width, e->count);
        return;
    case PQ_KF_LEN_TRUNCATED:
        page_fail(c, i, rank, bad, "PLAIN BYTE_ARRAY: value %llu of %u: length truncated at byte %llu", e->index,
                  kp->n_values, e->at);
        return;
    case PQ_KF_LEN_PAST_END:
        page_fail(c, i, rank, bad, "PLAIN BYTE_ARRAY: value %llu of %llu bytes at byte %llu runs past the %u bytes "
                  "present", e->index, e->count, e->at, kp->val_len);
        return;
    case PQ_KF_OVERFLOW:
        page_fail(c, i, rank, PQ_ERR_UNSUPPORTED,
                  "the page's values take %llu bytes, more than the 2147483647 that Arrow string and binary "
                  "arrays (int32 offsets) hold; large_string or string_view would hold them", e->count);
        return;
    default:
        page_fail(c, i, rank, bad, "%s: the kernel failed (%u)", what, e->fail);
        return;
    }
}

/* ---------------------------------------------------------------------------
 * Device memory
 * ------------------------------------------------------------------------- */

/* Counts n more bytes against the memory limit. */
static pq_status hold(dx_chunk *c, size_t n, const char *what)
{
    uint64_t limit = c->x->o->memory_limit;
    if (limit && (n > limit || c->held > limit - n))
        return pq_error_set(c->err, PQ_ERR_MEMORY_LIMIT,
                            "device executor: %s: %zu bytes (with %llu held) exceed the memory limit of %llu", what, n,
                            (unsigned long long)c->held, (unsigned long long)limit);
    c->held += n;
    return PQ_OK;
}

/* A CUDA call failed: the chunk is left to the CPU executor. */
static pq_status cuda_failed(dx_chunk *c, const char *call, const char *why)
{
    if (c->x->stats) c->x->stats->unsupported[PQ_DX_DEVICE]++;
    return pq_error_set(c->err, PQ_ERR_UNSUPPORTED, "device executor: CUDA %s failed: %s", call, why ? why : "?");
}

/* n bytes (at least 1) of device memory. */
static pq_status dev_alloc(dx_chunk *c, void **p, size_t n, const char *what)
{
    *p = NULL;
    pq_status st = hold(c, n, what);
    if (st != PQ_OK) return st;
    if (c->x->cuda) {
        const char *why = NULL;
        if (pq_cuda_alloc(p, n, &why)) return cuda_failed(c, "cudaMalloc", why);
        return PQ_OK;
    }
    *p = malloc(n ? n : 1);
    if (!*p) return pq_error_set(c->err, PQ_ERR_NOMEM, "device executor: %s: cannot allocate %zu bytes", what, n);
    /* cudaMalloc'd memory holds garbage: so does this, where it stands in
     * for it, so that a buffer read before it is written shows. */
    if (c->x->apart) memset(*p, 0xA5, n ? n : 1);
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * host_async: the copy stream of host launches as a queue. A copy is done
 * when the CUDA path would have waited for it (the compute stream waiting
 * for a chunk's staging event, the host for a staging half's event, a
 * free, which synchronizes on a device), reading its source then, as a
 * DMA engine does; a missing wait leaves garbage where a kernel reads.
 * ------------------------------------------------------------------------- */

/* The queued copies up to queue position `pos` done. */
static void copies_until(dx_run *x, size_t pos)
{
    for (; x->done < pos && x->done < x->qn; x->done++) {
        const dx_copy *q = &x->q[x->done];
        memcpy(q->dst, q->src, q->n);
    }
}

/* n bytes from src to dst on the copy stream: now, or queued. */
static void copy_on_copy_stream(dx_run *x, uint8_t *dst, const uint8_t *src, size_t n)
{
    if (x->deferred && x->qn == x->qcap) {
        size_t cap = x->qcap ? 2 * x->qcap : 64;
        dx_copy *q = cap <= SIZE_MAX / sizeof *q ? realloc(x->q, cap * sizeof *q) : NULL;
        if (q) {
            x->q = q;
            x->qcap = cap;
        } else {
            copies_until(x, x->qn); /* no room to queue: everything done in order, now */
        }
    }
    if (!x->deferred || x->qn == x->qcap) {
        memcpy(dst, src, n);
        return;
    }
    x->q[x->qn++] = (dx_copy){dst, src, n};
}

static void dev_free(dx_run *x, void *p)
{
    if (x->cuda) {
        pq_cuda_free(p);
        return;
    }
    if (p) copies_until(x, x->qn); /* cudaFree waits for the device's work */
    free(p);
}

static pq_status upload(dx_chunk *c, void *dev, const void *host, size_t n)
{
    if (!c->x->cuda) {
        if (dev != host && n) memcpy(dev, host, n);
        return PQ_OK;
    }
    const char *why = NULL;
    if (pq_cuda_upload(c->x->stream, dev, host, n, &why)) return cuda_failed(c, "cudaMemcpyAsync", why);
    return PQ_OK;
}

static pq_status download(dx_chunk *c, void *host, const void *dev, size_t n)
{
    if (!c->x->cuda) {
        if (dev != host && n) memcpy(host, dev, n);
        return PQ_OK;
    }
    const char *why = NULL;
    if (pq_cuda_download(c->x->stream, host, dev, n, &why)) return cuda_failed(c, "cudaMemcpyAsync", why);
    return PQ_OK;
}

static pq_status dev_zero(dx_chunk *c, void *dev, size_t n)
{
    if (!c->x->cuda) {
        memset(dev, 0, n);
        return PQ_OK;
    }
    const char *why = NULL;
    if (pq_cuda_memset(c->x->stream, dev, 0, n, &why)) return cuda_failed(c, "cudaMemsetAsync", why);
    return PQ_OK;
}

/* A host table seen by the kernels: itself on the host, a copy in device
 * memory when that is apart. */
static pq_status mirror(dx_chunk *c, void **dev, void *host, size_t n, const char *what)
{
    if (!c->x->apart) {
        *dev = host;
        return PQ_OK;
    }
    pq_status st = dev_alloc(c, dev, n, what);
    return st == PQ_OK ? upload(c, *dev, host, n) : st;
}

/* Device buffer *dev (n bytes) handed over as a host buffer: itself on the
 * host, a host copy (the device one freed) when device memory is apart. */
static pq_status take(dx_chunk *c, void **dev, size_t n, void **host)
{
    *host = NULL;
    if (!*dev) return PQ_OK;
    if (!c->x->apart) {
        *host = *dev;
        *dev = NULL;
        return PQ_OK;
    }
    void *h = malloc(n ? n : 1);
    if (!h) return pq_error_set(c->err, PQ_ERR_NOMEM, "device executor: cannot allocate %zu bytes", n);
    pq_status st = download(c, h, *dev, n);
    if (st != PQ_OK) {
        free(h);
        return st;
    }
    dev_free(c->x, *dev);
    *dev = NULL;
    *host = h;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Launches
 * ------------------------------------------------------------------------- */

/* The arguments of a launch over the data pages. */
static pq_kargs data_args(const dx_chunk *c)
{
    pq_kargs a;
    memset(&a, 0, sizeof a);
    a.pages = c->d_kp;
    a.results = c->d_kr;
    a.npages = (uint32_t)c->ndata;
    a.max_def = c->pc->max_def;
    a.max_rep = c->pc->max_rep;
    a.width = c->pc->width;
    a.bytes = c->d_bytes;
    a.def_levels = c->d_def;
    a.rep_levels = c->d_rep;
    a.values = c->d_values;
    a.offsets = c->d_offsets;
    a.data = c->d_data;
    a.views = c->d_views;
    a.dict_values = c->d_dvalues;
    a.dict_offsets = c->d_doffsets;
    a.dict_data = c->d_ddata;
    a.dict_n = c->dict_n;
    a.runs = c->d_runs;
    a.idx = c->d_idx;
    a.minis = c->d_minis;
    return a;
}

static pq_status launch(dx_chunk *c, pq_kernel k, const pq_kargs *a)
{
    if (a->npages == 0) return PQ_OK;
    dx_run *x = c->x;
    if (x->stats) x->stats->launches++;
    if (x->cuda) {
        const char *why = NULL;
        if (x->stats) x->stats->cuda_launches++;
        if (pq_kdecode_cuda(x->stream, k, a, x->threads, &why)) return cuda_failed(c, "kernel launch", why);
        return PQ_OK;
    }
    if (pq_kdecode_host(k, a, x->threads, x->host_flags))
        return pq_error_set(c->err, PQ_ERR_NOMEM, "device executor: cannot start a host launch");
    return PQ_OK;
}

/* The page table to the kernels, after the host changed it. */
static pq_status upload_table(dx_chunk *c)
{
    return upload(c, c->d_kp, c->kp, (c->ndata + 1) * sizeof *c->kp);
}

/* The kernels' results back. */
static pq_status download_results(dx_chunk *c)
{
    return download(c, c->kr, c->d_kr, (c->ndata + 1) * sizeof *c->kr);
}

/* ---------------------------------------------------------------------------
 * Staging (host): every upload of page bytes goes through the run's
 * staging buffer, two halves used in turn. On a device the halves are
 * pinned and each filled half is copied asynchronously on the copy stream,
 * an event marking when it may be filled again; on the host the same steps
 * run as plain copies, so the splitting and coalescing are tested in CI.
 * ------------------------------------------------------------------------- */

/* Round up to the batch's alignment (nvCOMP's buffers; padding in the
 * page buffers is never read). */
static size_t align_up(size_t n)
{
    return (n + PQ_NVCOMP_ALIGN - 1) & ~(size_t)(PQ_NVCOMP_ALIGN - 1);
}

/* The staging halves, allocated on first use at `half` bytes each. */
static pq_status stage_ready(dx_chunk *c)
{
    dx_stage *s = &c->x->st;
    if (s->buf[0]) return PQ_OK;
    for (int h = 0; h < 2; h++) {
        if (c->x->cuda) {
            const char *why = NULL;
            if (pq_cuda_host_alloc((void **)&s->buf[h], s->half, &why)) return cuda_failed(c, "cudaHostAlloc", why);
            if (pq_cuda_event_create(&s->ev[h], &why)) return cuda_failed(c, "cudaEventCreate", why);
        } else if (!(s->buf[h] = malloc(s->half))) {
            return pq_error_set(c->err, PQ_ERR_NOMEM, "device executor: staging buffer: cannot allocate %zu bytes",
                                s->half);
        }
    }
    return PQ_OK;
}

/* The pending half to its destination. */
static pq_status stage_flush(dx_chunk *c)
{
    dx_run *x = c->x;
    dx_stage *s = &x->st;
    if (!s->used) return PQ_OK;
    int h = s->cur;
    if (x->stats) {
        x->stats->staged_bytes += s->used;
        x->stats->staging_copies++;
    }
    if (x->cuda) {
        const char *why = NULL;
        if (pq_cuda_upload_async(x->copy_stream, s->dst, s->buf[h], s->used, &why))
            return cuda_failed(c, "cudaMemcpyAsync", why);
        if (pq_cuda_event_record(s->ev[h], x->copy_stream, &why)) return cuda_failed(c, "cudaEventRecord", why);
        s->busy[h] = true;
    } else {
        copy_on_copy_stream(x, s->dst, s->buf[h], s->used);
        s->ev_pos[h] = x->qn;
        s->busy[h] = x->deferred;
    }
    s->used = 0;
    s->cur = h ^ 1;
    return PQ_OK;
}

/* n bytes of host memory at src to device buffer `base` at offset off
 * (base holds them: the caller sized it). Consecutive pieces for the same
 * buffer share a copy when only padding lies between them. */
static pq_status stage_put(dx_chunk *c, uint8_t *base, size_t off, const uint8_t *src, size_t n)
{
    dx_run *x = c->x;
    dx_stage *s = &x->st;
    pq_status st = stage_ready(c);
    if (st != PQ_OK) return st;
    while (n) {
        if (s->used) {
            size_t end = s->dst_off + s->used;
            size_t gap = off >= end ? off - end : SIZE_MAX;
            if (s->base != base || gap > 2 * PQ_NVCOMP_ALIGN || gap >= s->half - s->used) {
                if ((st = stage_flush(c)) != PQ_OK) return st;
            } else {
                memset(s->buf[s->cur] + s->used, 0, gap);
                s->used += gap;
            }
        }
        if (!s->used) {
            int h = s->cur;
            if (s->busy[h]) { /* its last copy must be done before it is refilled */
                const char *why = NULL;
                if (!x->cuda) copies_until(x, s->ev_pos[h]);
                else if (pq_cuda_event_sync(s->ev[h], &why)) return cuda_failed(c, "cudaEventSynchronize", why);
                s->busy[h] = false;
            }
            s->base = base;
            s->dst_off = off;
            s->dst = base + off;
        }
        size_t piece = s->half - s->used < n ? s->half - s->used : n;
        memcpy(s->buf[s->cur] + s->used, src, piece);
        s->used += piece;
        src += piece;
        off += piece;
        n -= piece;
        if (s->used == s->half && (st = stage_flush(c)) != PQ_OK) return st;
    }
    return PQ_OK;
}

/* n bytes at src to device buffer `base` at offset off: from the chunk's
 * resident copy, device to device on the copy stream, when src lies in the
 * chunk's stored bytes and the chunk has one; else staged from the host. */
static pq_status put(dx_chunk *c, uint8_t *base, size_t off, const uint8_t *src, size_t n)
{
    const uint8_t *b = c->bytes;
    if (!c->d_src || !n || src < b || (uint64_t)(src - b) > c->pc->len || n > c->pc->len - (uint64_t)(src - b))
        return stage_put(c, base, off, src, n);
    const uint8_t *from = c->d_src + (src - b);
    /* A pending staged piece for this buffer is sent first: the next
     * staged piece would otherwise join it across the padding between
     * them, zero-filling that gap after this copy wrote into it (a
     * DATA_PAGE_V2's levels sit between host-decompressed values). */
    dx_stage *s = &c->x->st;
    if (s->used && s->base == base) {
        pq_status st = stage_flush(c);
        if (st != PQ_OK) return st;
    }
    if (c->x->stats) c->x->stats->resident_bytes += n;
    if (!c->x->cuda) {
        copy_on_copy_stream(c->x, base + off, from, n);
        return PQ_OK;
    }
    const char *why = NULL;
    if (pq_cuda_copy_async(c->x->copy_stream, base + off, from, n, &why)) return cuda_failed(c, "cudaMemcpyAsync", why);
    return PQ_OK;
}

/* The chunk's staging done: its last half sent and, on a device, an event
 * after its copies for the decompression to wait on. */
static pq_status stage_end(dx_chunk *c)
{
    pq_status st = stage_flush(c);
    c->up_pos = c->x->qn;
    if (st != PQ_OK || !c->x->cuda) return st;
    const char *why = NULL;
    if (pq_cuda_event_record(c->ev_up, c->x->copy_stream, &why)) return cuda_failed(c, "cudaEventRecord", why);
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * Page preparation
 * ------------------------------------------------------------------------- */

/* As the CPU executor's decompress: src_len stored bytes into dst_len at
 * dst (a copy when not compressed). */
static pq_status decompress(dx_chunk *c, bool compressed, const uint8_t *src, size_t src_len, uint8_t *dst,
                            size_t dst_len, pq_error *e)
{
    if (!compressed || c->pc->codec == PQ_CODEC_UNCOMPRESSED) {
        if (compressed && src_len != dst_len)
            return pq_error_set(e, PQ_ERR_CORRUPT_DATA, "UNCOMPRESSED: %zu bytes stored, page header says %zu",
                                src_len, dst_len);
        if (src_len) memcpy(dst, src, src_len);
        return PQ_OK;
    }
    if (dst_len == 0 && src_len == 0) return PQ_OK;
    return pq_decompress_ctx(c->x->cctx, c->pc->codec, src, src_len, dst, dst_len, e);
}

/* Sizes page i's slot, failing the page when its header says too much. */
static void size_page(dx_chunk *c, size_t i, page_slot *s)
{
    const pq_page_info *pi = c->plan->pages[c->pg[i].plan].info;
    memset(s, 0, sizeof *s);
    size_t comp = (size_t)pi->compressed_size, uncomp = (size_t)pi->uncompressed_size;
    if (pi->type != PQ_PAGE_DATA_V2) {
        if (uncomp > PQ_MAX_PAGE_SIZE) {
            page_fail(c, i, RANK_PAGE, PQ_ERR_MEMORY_LIMIT, "uncompressed size %zu exceeds the %llu-byte page cap",
                      uncomp, (unsigned long long)PQ_MAX_PAGE_SIZE);
            return;
        }
        s->size = uncomp;
        s->vals = uncomp;
        s->values_ok = true;
        return;
    }
    if (pi->rep_levels_byte_length < 0 || pi->def_levels_byte_length < 0) {
        page_fail(c, i, RANK_PAGE, PQ_ERR_CORRUPT_DATA, "negative level byte lengths");
        return;
    }
    size_t rl = (size_t)pi->rep_levels_byte_length, dl = (size_t)pi->def_levels_byte_length;
    if (rl > comp || dl > comp - rl || rl + dl > uncomp) {
        page_fail(c, i, RANK_PAGE, PQ_ERR_CORRUPT_DATA, "level byte lengths %zu + %zu exceed the page sizes %zu / %zu",
                  rl, dl, comp, uncomp);
        return;
    }
    s->v2 = true;
    s->rl = rl;
    s->dl = dl;
    s->vals = pi->is_compressed ? uncomp - rl - dl : comp - rl - dl;
    s->size = rl + dl;
    if (s->vals > PQ_MAX_PAGE_SIZE) { /* found once the levels are decoded, as on the CPU */
        page_fail(c, i, RANK_V2_VALUES, PQ_ERR_MEMORY_LIMIT,
                  "uncompressed size %zu exceeds the %llu-byte page cap", s->vals,
                  (unsigned long long)PQ_MAX_PAGE_SIZE);
        return;
    }
    s->values_ok = true;
    s->size += s->vals;
}

/* How page i's (values) bytes reach the device, and from where. */
static void route_page(dx_chunk *c, size_t i, page_slot *s)
{
    const pq_page_info *pi = c->plan->pages[c->pg[i].plan].info;
    const uint8_t *raw = c->bytes + pi->data_offset;
    size_t lv = s->rl + s->dl;
    s->src = raw + lv;
    s->src_len = (size_t)pi->compressed_size - lv;
    s->rank = s->v2 ? RANK_V2_VALUES : RANK_PAGE;
    bool compressed = s->v2 ? pi->is_compressed : true;
    if (!compressed || c->pc->codec == PQ_CODEC_UNCOMPRESSED) {
        s->route = ROUTE_COPY;
        if (compressed && s->src_len != s->vals) {
            page_fail(c, i, s->rank, PQ_ERR_CORRUPT_DATA, "UNCOMPRESSED: %zu bytes stored, page header says %zu",
                      s->src_len, s->vals);
            s->route = ROUTE_NONE;
            s->dfail = true;
        }
        return;
    }
    if (s->src_len == 0 && s->vals == 0) {
        s->route = ROUTE_NONE; /* an empty page, under any codec */
        return;
    }
    /* The batch takes what it can decode; an empty side is the host
     * codec's to judge, and gzip without its magic is zlib (codec.h). */
    bool batch = c->x->batch && pq_nvcomp_codec(c->pc->codec) && s->src_len && s->vals &&
                 (c->pc->codec != PQ_CODEC_GZIP || (s->src_len >= 2 && s->src[0] == 0x1f && s->src[1] == 0x8b));
    s->route = batch ? ROUTE_BATCH : ROUTE_HOST;
}

/* Plans the chunk's buffers: page slots in the decompressed buffer (each
 * decompression target aligned), the stored bytes of batch pages in the
 * raw buffer, host-decompressed pages in a host buffer. */
static pq_status layout(dx_chunk *c)
{
    size_t n = c->ndata + 1;
    c->slots = calloc(n, sizeof *c->slots);
    if (!c->slots) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
    /* Each slot is at most 2^31 + padding: 64-bit totals overflow only for
     * absurd page counts, checked anyway. */
    uint64_t total = 0, raw = 0, host = 0;
    for (size_t i = 0; i < n; i++) {
        page_slot *s = &c->slots[i];
        if (i == c->ndata && c->pc->dictionary < 0) continue;
        size_page(c, i, s);
        if (c->pg[i].rank == RANK_PAGE) continue;
        s->at = (size_t)align_up((size_t)total);
        s->out_at = s->v2 ? align_up(s->at + s->rl + s->dl) : s->at;
        total = (uint64_t)s->out_at + (s->values_ok ? s->vals : 0);
        if (!s->values_ok) continue;
        route_page(c, i, s);
        if (s->route == ROUTE_BATCH) {
            s->raw_at = align_up((size_t)raw);
            raw = (uint64_t)s->raw_at + s->src_len;
            c->nbatch++;
            if (s->vals > c->batch_max) c->batch_max = s->vals;
        } else if (s->route == ROUTE_HOST) {
            s->host_at = (size_t)host;
            host += s->vals;
            c->nhost_pages++;
        }
        if (total > SIZE_MAX / 2 || raw > SIZE_MAX / 2 || host > SIZE_MAX / 2)
            return pq_error_set(c->err, PQ_ERR_MEMORY_LIMIT, "device executor: the chunk's pages overflow");
    }
    c->nbytes = (size_t)total;
    c->nraw = (size_t)raw;
    c->nhost = (size_t)host;
    return PQ_OK;
}

/* The chunk's pages to the device: host pages decompressed, everything
 * staged to its place (levels and uncompressed pages into the page buffer,
 * host-decompressed ones too, batch pages as stored into the raw buffer).
 * Page failures are recorded in the pages; the return is the chunk's. */
static pq_status stage_chunk(dx_chunk *c)
{
    dx_run *x = c->x;
    pq_status st = layout(c);
    if (st != PQ_OK) return st;
    if (c->nhost_pages) { /* a page that decompresses to nothing still has a place */
        if ((st = hold(c, c->nhost, "host-decompressed pages")) != PQ_OK) return st;
        if (!(c->hbytes = malloc(c->nhost ? c->nhost : 1)))
            return pq_error_set(c->err, PQ_ERR_NOMEM, "device executor: page bytes: cannot allocate %zu bytes",
                                c->nhost);
    }
    if ((st = dev_alloc(c, (void **)&c->d_bytes, c->nbytes ? c->nbytes : 1, "page bytes")) != PQ_OK) return st;
    if (c->nraw && (st = dev_alloc(c, (void **)&c->d_raw, c->nraw, "page bytes as stored")) != PQ_OK) return st;
    for (size_t i = 0; i <= c->ndata; i++) {
        page_slot *s = &c->slots[i];
        if ((i == c->ndata && c->pc->dictionary < 0) || c->pg[i].rank == RANK_PAGE) continue;
        const pq_page_info *pi = c->plan->pages[c->pg[i].plan].info;
        if (s->v2 && s->rl + s->dl &&
            (st = put(c, c->d_bytes, s->at, c->bytes + pi->data_offset, s->rl + s->dl)) != PQ_OK)
            return st;
        if (!s->values_ok) continue;
        switch (s->route) {
        case ROUTE_COPY:
            st = put(c, c->d_bytes, s->out_at, s->src, s->vals);
            break;
        case ROUTE_HOST: {
            pq_error e;
            pq_status ds = decompress(c, true, s->src, s->src_len, c->hbytes + s->host_at, s->vals, &e);
            if (x->stats) x->stats->host_decompressed_pages++;
            if (ds != PQ_OK) {
                page_fail(c, i, s->rank, ds, "%s", e.message);
                s->route = ROUTE_NONE;
                s->dfail = true;
                break;
            }
            st = stage_put(c, c->d_bytes, s->out_at, c->hbytes + s->host_at, s->vals);
            break;
        }
        case ROUTE_BATCH:
            st = put(c, c->d_raw, s->raw_at, s->src, s->src_len);
            break;
        default:
            break;
        }
        if (st != PQ_OK) return st;
    }
    return stage_end(c);
}

/* The batch arrays, host side: nvCOMP's argument arrays, then what it
 * writes back (sizes, statuses). */
typedef struct batch_view {
    const void **in;
    size_t *in_bytes, *out_cap;
    void **out;
    size_t *actual;
    int32_t *status;
} batch_view;

static batch_view batch_at(uint8_t *block, size_t n)
{
    batch_view v;
    v.in = (const void **)block;
    v.in_bytes = (size_t *)(block + n * sizeof(void *));
    v.out_cap = v.in_bytes + n;
    v.out = (void **)(v.out_cap + n);
    v.actual = (size_t *)(v.out + n);
    v.status = (int32_t *)(v.actual + n);
    return v;
}

/* Bytes of the batch block for n pages, and of its part sent to nvCOMP. */
#define BATCH_BYTES(n) ((n) * (4 * sizeof(void *) + sizeof(size_t) + sizeof(int32_t)))
#define BATCH_ARGS(n) ((n) * 4 * sizeof(void *))

/* Starts the batch decompression: on a device, nvCOMP enqueued on the
 * compute stream after the staging copies (its results read by
 * batch_finish); on the host, the host codecs over the staged bytes. */
static pq_status batch_start(dx_chunk *c)
{
    dx_run *x = c->x;
    size_t n = c->nbatch;
    const char *why = NULL;
    /* Everything after this on the compute stream (the batch, the splits'
     * level peeks, the kernels) waits for the chunk's staging copies, batch
     * or not: uncompressed pages and v2 levels come by the copy stream too. */
    if (x->cuda && pq_cuda_stream_wait(x->stream, c->ev_up, &why)) return cuda_failed(c, "cudaStreamWaitEvent", why);
    if (!x->cuda) copies_until(x, c->up_pos);
    if (n == 0) return PQ_OK;
    pq_status st;
    c->h_batch = calloc(1, BATCH_BYTES(n));
    if (!c->h_batch) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
    batch_view h = batch_at(c->h_batch, n);
    /* Pointers into device memory, computed on the host: nvCOMP reads them there. */
    uint8_t *dev_bytes = c->d_bytes, *dev_raw = c->d_raw;
    size_t b = 0, total = 0;
    for (size_t i = 0; i <= c->ndata; i++) {
        page_slot *s = &c->slots[i];
        if (s->route != ROUTE_BATCH || (i == c->ndata && c->pc->dictionary < 0)) continue;
        s->batch = b;
        h.in[b] = dev_raw + s->raw_at;
        h.in_bytes[b] = s->src_len;
        h.out_cap[b] = s->vals;
        h.out[b] = dev_bytes + s->out_at;
        total += s->vals;
        b++;
    }
    if (!x->cuda) {
        for (size_t k = 0; k < n; k++) {
            pq_error e;
            bool ok = pq_decompress_ctx(x->cctx, c->pc->codec, h.in[k], h.in_bytes[k], h.out[k], h.out_cap[k], &e) ==
                      PQ_OK;
            h.status[k] = ok ? 0 : 12; /* nvcompErrorCannotDecompress: the message comes from the retry */
            h.actual[k] = ok ? h.out_cap[k] : 0;
        }
        if (x->stats) x->stats->batch_decompressed_pages += n;
        return PQ_OK;
    }
    size_t temp = 0;
    if (pq_nvcomp_temp_size(c->pc->codec, n, c->batch_max, total, &temp, &why))
        return cuda_failed(c, "nvCOMP temp size", why);
    if ((st = dev_alloc(c, (void **)&c->d_batch, BATCH_BYTES(n), "nvCOMP batch arrays")) != PQ_OK ||
        (temp && (st = dev_alloc(c, &c->d_temp, temp, "nvCOMP scratch")) != PQ_OK))
        return st;
    batch_view d = batch_at(c->d_batch, n);
    if ((st = upload(c, c->d_batch, c->h_batch, BATCH_ARGS(n))) != PQ_OK) return st;
    if (pq_nvcomp_decompress_async(c->pc->codec, d.in, d.in_bytes, d.out_cap, d.actual, n, c->d_temp, temp,
                                   d.out, d.status, x->stream, &why))
        return cuda_failed(c, "nvCOMP decompression", why);
    if (pq_cuda_download_async(x->stream, h.actual, d.actual, BATCH_BYTES(n) - BATCH_ARGS(n), &why))
        return cuda_failed(c, "cudaMemcpyAsync", why);
    c->batch_pending = true;
    if (x->stats) {
        x->stats->batch_decompressed_pages += n;
        x->stats->device_decompressed_pages += n;
    }
    return PQ_OK;
}

/* The batch's results: every page's status and size checked against its
 * header; a failed page decompressed again on the host, whose codec either
 * decodes it (into place) or says what is wrong with it. */
static pq_status batch_finish(dx_chunk *c)
{
    dx_run *x = c->x;
    size_t n = c->nbatch;
    if (n == 0) return PQ_OK;
    const char *why = NULL;
    if (c->batch_pending) {
        c->batch_pending = false;
        if (pq_cuda_stream_sync(x->stream, &why)) return cuda_failed(c, "nvCOMP decompression", why);
    }
    batch_view h = batch_at(c->h_batch, n);
    for (size_t i = 0; i <= c->ndata; i++) {
        page_slot *s = &c->slots[i];
        if (s->route != ROUTE_BATCH || (i == c->ndata && c->pc->dictionary < 0)) continue;
        size_t b = s->batch;
        if (h.status[b] == 0 && h.actual[b] == s->vals) continue;
        if (x->stats) x->stats->decompress_fallbacks++;
        uint8_t *tmp = malloc(s->vals);
        if (!tmp) return pq_error_set(c->err, PQ_ERR_NOMEM, "device executor: cannot allocate %zu bytes", s->vals);
        pq_error e;
        pq_status ds = decompress(c, true, s->src, s->src_len, tmp, s->vals, &e);
        pq_status st = PQ_OK;
        if (ds != PQ_OK) {
            page_fail(c, i, s->rank, ds, "%s", e.message);
            s->route = ROUTE_NONE;
            s->dfail = true;
        } else {
            st = upload(c, c->d_bytes + s->out_at, tmp, s->vals);
        }
        free(tmp);
        if (st != PQ_OK) return st;
    }
    return PQ_OK;
}

/* Reads the 4-byte little-endian word at byte pos of page i's
 * decompressed bytes: from the host where they are there, else from the
 * page's fetched words (false when not fetched yet: the request is
 * noted). */
static bool peek32(dx_chunk *c, size_t i, size_t pos, uint32_t *v)
{
    page_slot *s = &c->slots[i];
    if (s->route == ROUTE_COPY || (s->route == ROUTE_HOST && c->hbytes)) {
        *v = pq_load_le32((s->route == ROUTE_COPY ? s->src : c->hbytes + s->host_at) + pos);
        return true;
    }
    for (int k = 0; k < s->npeek; k++)
        if (s->peek_pos[k] == pos) {
            *v = s->peek[k];
            return true;
        }
    s->want = pos;
    s->wanting = true;
    return false;
}

/* A DATA_PAGE's level section at *pos of the page's len bytes, encoded
 * `enc`: RLE with its 4-byte length, or BIT_PACKED. Returns 1 when it
 * fits, 0 when it does not (the page failed at `rank`), -1 when its length
 * word is still to be fetched. */
static int level_section_v1(dx_chunk *c, size_t i, int rank, const char *what, int32_t enc, int16_t max,
                            size_t len, size_t *pos, uint8_t *kenc, unsigned long long *at, uint32_t *slen)
{
    pq_kpage *kp = &c->kp[i];
    size_t base = c->slots[i].at;
    size_t left = len - *pos;
    if (enc == PQ_ENC_RLE) {
        if (left < 4) {
            page_fail(c, i, rank, PQ_ERR_CORRUPT_DATA, "%s levels: RLE: %zu bytes, too short for the 4-byte length",
                      what, left);
            return 0;
        }
        uint32_t n;
        if (!peek32(c, i, *pos, &n)) return -1;
        if (n > left - 4) {
            page_fail(c, i, rank, PQ_ERR_CORRUPT_DATA, "%s levels: RLE: length %u exceeds the %zu bytes left", what,
                      n, left - 4);
            return 0;
        }
        *kenc = PQ_KLEV_RLE;
        *at = base + *pos + 4;
        *slen = n;
        *pos += 4 + (size_t)n;
        return 1;
    }
    /* BIT_PACKED (the only other encoding a covered chunk has) */
    size_t bytes = ((size_t)kp->n_levels * (size_t)pq_k_level_bit_width(max) + 7) / 8;
    if (bytes > left) {
        page_fail(c, i, rank, PQ_ERR_CORRUPT_DATA, "%s levels: BIT_PACKED: %u values need %zu bytes, %zu present",
                  what, kp->n_levels, bytes, left);
        return 0;
    }
    *kenc = PQ_KLEV_BIT_PACKED;
    *at = base + *pos;
    *slen = (uint32_t)bytes;
    *pos += bytes;
    return 1;
}

/* Page i split into its sections (its kp entry). Returns false when a
 * length word of a DATA_PAGE must be fetched first (split again then). */
static bool split_page(dx_chunk *c, size_t i)
{
    const pq_page_info *pi = c->plan->pages[c->pg[i].plan].info;
    const page_slot *s = &c->slots[i];
    pq_kpage *kp = &c->kp[i];
    kp->val_at = s->at;
    if (c->pg[i].rank == RANK_PAGE) return true; /* failed before decompression or by it */
    if (!s->v2) {
        if (pi->type == PQ_PAGE_DICTIONARY) {
            kp->val_len = (uint32_t)s->size;
            return true;
        }
        size_t pos = 0, len = s->size;
        int r;
        if (c->pc->max_rep > 0 &&
            (r = level_section_v1(c, i, RANK_REP, "repetition", pi->rep_level_encoding, c->pc->max_rep, len, &pos,
                                  &kp->rep_enc, &kp->rep_at, &kp->rep_len)) <= 0)
            return r == 0;
        if (c->pc->max_def > 0 &&
            (r = level_section_v1(c, i, RANK_DEF, "definition", pi->def_level_encoding, c->pc->max_def, len, &pos,
                                  &kp->def_enc, &kp->def_at, &kp->def_len)) <= 0)
            return r == 0;
        kp->val_at = s->at + pos;
        kp->val_len = (uint32_t)(len - pos);
        return true;
    }
    /* v2: levels stored uncompressed before the values */
    if (c->pc->max_rep > 0) {
        kp->rep_enc = PQ_KLEV_RLE;
        kp->rep_at = s->at;
        kp->rep_len = (uint32_t)s->rl;
    }
    if (c->pc->max_def > 0) {
        kp->def_enc = PQ_KLEV_RLE;
        kp->def_at = s->at + s->rl;
        kp->def_len = (uint32_t)s->dl;
    }
    kp->val_at = s->out_at;
    if (s->values_ok && !s->dfail) kp->val_len = (uint32_t)s->vals;
    return true;
}

/* Every page split; the level length words of device-decompressed pages
 * are fetched in rounds (a round per section: the second word's place
 * depends on the first), each one batch of small downloads. */
static pq_status split_pages(dx_chunk *c)
{
    size_t n = c->ndata + 1;
    for (int round = 0;; round++) {
        size_t want = 0;
        for (size_t i = 0; i < n; i++) {
            if (i == c->ndata && c->pc->dictionary < 0) continue;
            c->slots[i].wanting = false;
            if (!split_page(c, i)) want++;
        }
        if (want == 0) return PQ_OK;
        if (round >= 2) /* two sections: two rounds at most */
            return pq_error_set(c->err, PQ_ERR_INVALID_ARGUMENT, "device executor: level lengths not fetched");
        uint32_t *words = malloc(want * sizeof *words);
        if (!words) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
        pq_status st = PQ_OK;
        size_t k = 0;
        const char *why = NULL;
        for (size_t i = 0; i < n && st == PQ_OK; i++) {
            page_slot *s = &c->slots[i];
            if (!s->wanting) continue;
            if (c->x->cuda) {
                if (pq_cuda_download_async(c->x->stream, &words[k], c->d_bytes + s->at + s->want, 4, &why))
                    st = cuda_failed(c, "cudaMemcpyAsync", why);
            } else {
                memcpy(&words[k], c->d_bytes + s->at + s->want, 4);
            }
            k++;
        }
        if (st == PQ_OK && c->x->cuda && pq_cuda_stream_sync(c->x->stream, &why))
            st = cuda_failed(c, "cudaMemcpyAsync", why);
        k = 0;
        for (size_t i = 0; i < n && st == PQ_OK; i++) {
            page_slot *s = &c->slots[i];
            if (!s->wanting) continue;
            s->peek_pos[s->npeek] = s->want;
            s->peek[s->npeek++] = pq_load_le32((const uint8_t *)&words[k++]);
        }
        free(words);
        if (st != PQ_OK) return st;
    }
}

/* After the staging: the batch's results, the sections, run tables and
 * index scratch places; then the page table to the kernels. */
static pq_status prepare(dx_chunk *c)
{
    size_t n = c->ndata + 1;
    pq_status st;
    if ((st = batch_finish(c)) != PQ_OK || (st = split_pages(c)) != PQ_OK) return st;

    /* Run tables: a run takes at least 2 bytes (a header and a value or
     * packed byte) and covers at least one value, so a section holds at
     * most min(n, len / 2) runs. Miniblock tables: a stream's miniblocks
     * each hold 32 values or more after the first and take a bit-width
     * byte, so at most min(n / 32 + 1, len) of them are walked. Index and
     * length scratch: a value per slot at most (values <= slots). */
    size_t runs = 0, idx = 0, minis = 0;
    for (size_t i = 0; i < c->ndata; i++) {
        pq_kpage *kp = &c->kp[i];
        const pq_page_info *pi = c->plan->pages[c->pg[i].plan].info;
        uint8_t op = encoding_op(c->pc, pi->encoding);
        uint32_t nl = kp->n_levels;
        kp->runs_at = runs;
        kp->rep_cap = kp->rep_enc == PQ_KLEV_RLE ? (nl < kp->rep_len / 2 ? nl : kp->rep_len / 2) + 1 : 0;
        kp->def_cap = kp->def_enc == PQ_KLEV_RLE ? (nl < kp->def_len / 2 ? nl : kp->def_len / 2) + 1 : 0;
        if (is_dict_encoding(pi->encoding)) {
            uint32_t b = kp->val_len ? (kp->val_len - 1) / 2 : 0;
            kp->val_cap = (nl < b ? nl : b) + 1;
        } else if (op == PQ_KOP_RLE_BOOL) {
            kp->val_cap = (nl < kp->val_len / 2 ? nl : kp->val_len / 2) + 1;
        }
        runs += (size_t)kp->rep_cap + kp->def_cap + kp->val_cap;
        uint32_t streams = pq_k_delta_streams(op);
        if (streams) {
            uint32_t m = nl / 32 + 1;
            kp->mini_at = minis;
            kp->mini_cap = (m < kp->val_len ? m : kp->val_len) + 1;
            minis += (size_t)streams * kp->mini_cap;
        }
        size_t scratch = op == PQ_KOP_DICT_BYTES || op == PQ_KOP_DELTA_LENGTH ? 1
                         : op == PQ_KOP_DELTA_BYTES || op == PQ_KOP_DELTA_FLBA ? 2
                                                                              : 0;
        if (scratch) {
            kp->idx_at = idx;
            idx += scratch * nl;
        }
    }
    c->nruns = runs;
    c->nidx = idx;
    c->nminis = minis;
    size_t rbytes, ibytes, mbytes;
    if (!mul_ok(runs ? runs : 1, sizeof(pq_krun), &rbytes) || !mul_ok(idx ? idx : 1, sizeof(uint32_t), &ibytes) ||
        !mul_ok(minis ? minis : 1, sizeof(pq_kmini), &mbytes))
        return pq_error_set(c->err, PQ_ERR_MEMORY_LIMIT, "device executor: run tables overflow");
    if ((st = dev_alloc(c, (void **)&c->d_runs, rbytes, "run tables")) != PQ_OK ||
        (st = dev_alloc(c, (void **)&c->d_idx, ibytes, "dictionary indices and lengths")) != PQ_OK ||
        (st = dev_alloc(c, (void **)&c->d_minis, mbytes, "miniblock tables")) != PQ_OK ||
        (st = mirror(c, (void **)&c->d_kp, c->kp, n * sizeof *c->kp, "page table")) != PQ_OK ||
        (st = mirror(c, (void **)&c->d_kr, c->kr, n * sizeof *c->kr, "page results")) != PQ_OK)
        return st;
    return PQ_OK;
}

/* ---------------------------------------------------------------------------
 * The stages
 * ------------------------------------------------------------------------- */

/* 1. The dictionary page, PLAIN, into the dictionary's arrays (the same
 * kernels as data pages, one block). */
static pq_status stage_dictionary(dx_chunk *c)
{
    if (c->pc->dictionary < 0) return PQ_OK;
    size_t d = c->ndata;
    dx_page *dp = &c->pg[d];
    if (dp->rank != RANK_NONE) {
        *c->err = dp->err;
        return dp->st;
    }
    const pq_page_info *pi = c->plan->pages[dp->plan].info;
    pq_kpage *kp = &c->kp[d];
    size_t n = (size_t)pi->num_values, len = kp->val_len;
    uint32_t width = pq_plan_value_width(c->pc->leaf);
    int32_t type = c->pc->physical_type;
    /* The CPU executor's size checks, before anything runs. */
    if (type == PQ_BYTE_ARRAY ? n > len / 4 : type == PQ_BOOLEAN ? n / 8 > len : n > len / width) {
        page_fail(c, d, RANK_PAGE, PQ_ERR_CORRUPT_DATA, "%zu dictionary entries cannot fit in %zu bytes", n, len);
        *c->err = dp->err;
        return dp->st;
    }
    kp->op = type == PQ_BYTE_ARRAY ? PQ_KOP_PLAIN_BYTES : type == PQ_BOOLEAN ? PQ_KOP_PLAIN_BOOL : PQ_KOP_PLAIN_FIXED;
    kp->n_values = (uint32_t)n;
    c->dict_n = (uint32_t)n;
    pq_status st;
    if (type == PQ_BYTE_ARRAY) {
        if ((st = dev_alloc(c, (void **)&c->d_doffsets, (n + 1) * sizeof(int32_t), "dictionary")) != PQ_OK ||
            (st = dev_zero(c, c->d_doffsets, sizeof(int32_t))) != PQ_OK)
            return st;
    } else if ((st = dev_alloc(c, (void **)&c->d_dvalues, n * width, "dictionary")) != PQ_OK) {
        return st;
    }
    if ((st = upload_table(c)) != PQ_OK) return st;
    pq_kargs a = data_args(c);
    a.pages = c->d_kp + d;
    a.results = c->d_kr + d;
    a.npages = 1;
    a.width = width;
    a.values = c->d_dvalues;
    a.offsets = c->d_doffsets;
    a.views = NULL; /* the entries as offsets and data; data pages view them */
    if ((st = launch(c, PQ_K_VALUES, &a)) != PQ_OK || (st = download_results(c)) != PQ_OK) return st;
    kernel_failure(c, d, SEC_VAL, RANK_VALUES, &c->kr[d].val);
    if (dp->rank != RANK_NONE) {
        *c->err = dp->err;
        return dp->st;
    }
    if (type == PQ_BYTE_ARRAY) {
        size_t bytes = (size_t)c->kr[d].string_bytes;
        c->dict_bytes = bytes;
        if ((st = dev_alloc(c, (void **)&c->d_ddata, bytes ? bytes : 1, "dictionary")) != PQ_OK) return st;
        a.data = c->d_ddata;
        if ((st = launch(c, PQ_K_BYTES, &a)) != PQ_OK) return st;
    }
    return PQ_OK;
}

/* 2. Levels: into place, checked, and each page's non-null count. */
static pq_status stage_levels(dx_chunk *c)
{
    const pq_plan_chunk *pc = c->pc;
    pq_status st;
    size_t bytes;
    if (!mul_ok((size_t)pc->n_levels, sizeof(int16_t), &bytes))
        return pq_error_set(c->err, PQ_ERR_MEMORY_LIMIT, "%llu levels overflow the address space",
                            (unsigned long long)pc->n_levels);
    if (pc->max_def > 0) {
        c->def_bytes = bytes ? bytes : 1;
        if ((st = dev_alloc(c, (void **)&c->d_def, c->def_bytes, "definition levels")) != PQ_OK) return st;
    }
    if (pc->max_rep > 0) {
        c->rep_bytes = bytes ? bytes : 1;
        if ((st = dev_alloc(c, (void **)&c->d_rep, c->rep_bytes, "repetition levels")) != PQ_OK) return st;
    }
    if (pc->max_def == 0 && pc->max_rep == 0) { /* no levels: a value per slot */
        for (size_t i = 0; i < c->ndata; i++) c->kr[i].n_values = c->kp[i].n_levels;
        return PQ_OK;
    }
    pq_kargs a = data_args(c);
    if ((st = upload_table(c)) != PQ_OK || (st = launch(c, PQ_K_LEVELS, &a)) != PQ_OK ||
        (st = download_results(c)) != PQ_OK)
        return st;
    for (size_t i = 0; i < c->ndata; i++) {
        if (c->kp[i].rep_enc != PQ_KLEV_NONE) kernel_failure(c, i, SEC_REP, RANK_REP, &c->kr[i].rep);
        if (c->kp[i].def_enc != PQ_KLEV_NONE) kernel_failure(c, i, SEC_DEF, RANK_DEF, &c->kr[i].def);
    }
    /* A chunk starts a record: the page whose slots start at 0 (the first
     * with any) must begin with repetition level 0. */
    for (size_t i = 0; pc->max_rep > 0 && i < c->ndata; i++) {
        if (c->kp[i].level_offset != 0 || c->kp[i].n_levels == 0) continue;
        if (c->pg[i].rank > RANK_REP && c->kp[i].rep_enc != PQ_KLEV_NONE) {
            int16_t first;
            if ((st = download(c, &first, c->d_rep, sizeof first)) != PQ_OK) return st;
            if (first != 0)
                page_fail(c, i, RANK_START, PQ_ERR_CORRUPT_DATA,
                          "the chunk's first repetition level is %d, not 0 (a record start)", first);
        }
        break;
    }
    return PQ_OK;
}

/* Runs the values kernel over the data pages and records its failures. */
static pq_status run_values(dx_chunk *c)
{
    pq_kargs a = data_args(c);
    pq_status st;
    if ((st = upload_table(c)) != PQ_OK || (st = launch(c, PQ_K_VALUES, &a)) != PQ_OK ||
        (st = download_results(c)) != PQ_OK)
        return st;
    for (size_t i = 0; i < c->ndata; i++)
        if (c->kp[i].op != PQ_KOP_NONE) kernel_failure(c, i, SEC_VAL, RANK_VALUES, &c->kr[i].val);
    return PQ_OK;
}

/* The fixed-width values array, at its exact size (none for no value), or
 * for string views out the views (at least one, as the CPU executor's). */
static pq_status alloc_values(dx_chunk *c)
{
    size_t n = (size_t)c->pc->n_values;
    if (c->pc->output == PQ_PLAN_VIEWS) {
        if (!mul_ok(n ? n : 1, 16, &c->views_bytes))
            return pq_error_set(c->err, PQ_ERR_MEMORY_LIMIT, "%zu values overflow the address space", n);
        return dev_alloc(c, (void **)&c->d_views, c->views_bytes, "string views");
    }
    if (n == 0) return PQ_OK;
    if (!mul_ok(n, c->pc->width, &c->values_bytes))
        return pq_error_set(c->err, PQ_ERR_MEMORY_LIMIT, "%zu values overflow the address space", n);
    return dev_alloc(c, (void **)&c->d_values, c->values_bytes, "values");
}

/* Whether any of the chunk's data pages is not dictionary-encoded (its
 * views are of page bytes). */
static bool plain_views(const dx_chunk *c)
{
    for (size_t i = 0; i < c->ndata; i++)
        if (!is_dict_encoding(c->plan->pages[c->pg[i].plan].info->encoding)) return true;
    return false;
}

/* The whole chunk, after the pages were prepared. */
static pq_status run_stages(dx_chunk *c)
{
    pq_plan_chunk *pc = c->pc;
    pq_status st;
    bool views = pc->output == PQ_PLAN_VIEWS;
    bool bytes = pc->output == PQ_PLAN_BYTES || views; /* views see offsets and data the bytes kernel makes */
    /* Views of PLAIN pages sized by their headers (decode_plan.c) are
     * still made from the offsets and data of the bytes kernel here, after
     * its size pass: sized means sized with nothing to count. */
    bool sized = (pc->flags & PQ_PLAN_SIZED_BY_HEADERS) != 0 && !(views && plain_views(c));
    if ((st = stage_dictionary(c)) != PQ_OK) return st;
    if ((st = stage_levels(c)) != PQ_OK) return st;

    /* Value counts and offsets; the values of broken pages are not decoded. */
    for (size_t i = 0; i < c->ndata; i++) {
        pq_plan_page *pp = &c->plan->pages[c->pg[i].plan];
        pq_kpage *kp = &c->kp[i];
        bool ok = c->pg[i].rank > RANK_V2_VALUES;
        uint64_t nn = ok ? c->kr[i].n_values : 0;
        if (!sized) pp->n_values = nn;
        pp->string_bytes = 0;
        kp->n_values = (uint32_t)nn;
        kp->op = ok && nn ? encoding_op(pc, pp->info->encoding) : PQ_KOP_NONE;
    }
    if ((st = pq_decode_plan_place(c->plan, c->k, c->err)) != PQ_OK) return st;
    for (size_t i = 0; i < c->ndata; i++) c->kp[i].value_offset = c->plan->pages[c->pg[i].plan].value_offset;

    /* The CPU executor decodes these values with the levels: their
     * failures rank with the levels'. */
    if (sized) {
        if ((st = alloc_values(c)) != PQ_OK || (st = run_values(c)) != PQ_OK) return st;
    } else if (bytes) {
        c->offsets_bytes = ((size_t)pc->n_values + 1) * sizeof(int32_t);
        if ((st = dev_alloc(c, (void **)&c->d_offsets, c->offsets_bytes, "offsets")) != PQ_OK ||
            (st = dev_zero(c, c->d_offsets, sizeof(int32_t))) != PQ_OK ||
            (views && (st = alloc_values(c)) != PQ_OK) || (st = run_values(c)) != PQ_OK)
            return st;
    }
    if ((st = first_page_failure(c)) != PQ_OK) return st;

    /* 3. Offsets, and the arrays the size pass sized. */
    if (bytes) {
        for (size_t i = 0; i < c->ndata; i++) c->plan->pages[c->pg[i].plan].string_bytes = c->kr[i].string_bytes;
        if ((st = pq_decode_plan_place(c->plan, c->k, c->err)) != PQ_OK) return st;
        if (views && pc->string_bytes > (uint64_t)INT32_MAX) /* the kernels' offsets are int32 */
            return pq_error_set(c->err, PQ_ERR_UNSUPPORTED,
                                "device executor: string views into %llu bytes of page values, past int32 offsets",
                                (unsigned long long)pc->string_bytes);
        if (pc->string_bytes > (uint64_t)INT32_MAX)
            return pq_error_set(c->err, PQ_ERR_UNSUPPORTED,
                                "the chunk's values take at least %llu bytes, more than the 2147483647 that Arrow "
                                "string and binary arrays (int32 offsets) hold; large_string or string_view would "
                                "hold them",
                                (unsigned long long)pc->string_bytes);
        for (size_t i = 0; i < c->ndata; i++) c->kp[i].string_offset = c->plan->pages[c->pg[i].plan].string_offset;
        c->data_bytes = (size_t)pc->string_bytes + 1;
        if ((st = dev_alloc(c, (void **)&c->d_data, c->data_bytes, "byte array data")) != PQ_OK) return st;
    } else if (!sized) {
        if ((st = alloc_values(c)) != PQ_OK) return st;
    }

    /* 4. The remaining values. */
    if (bytes) {
        pq_kargs a = data_args(c);
        if ((st = upload_table(c)) != PQ_OK || (st = launch(c, PQ_K_BYTES, &a)) != PQ_OK) return st;
    } else if (!sized) {
        if ((st = run_values(c)) != PQ_OK || (st = first_page_failure(c)) != PQ_OK) return st;
    }
    return PQ_OK;
}

/* Device buffer *dev (n bytes) into the output: as it is when the output
 * stays in device memory, else as take() hands it over. */
static pq_status hand_over(dx_chunk *c, bool keep, void **dev, size_t n, void **out)
{
    if (!keep) return take(c, dev, n, out);
    *out = *dev;
    *dev = NULL;
    return PQ_OK;
}

/* Indices out: the chunk's dictionary, as the CPU executor hands it over. */
static pq_status finish_dictionary(dx_chunk *c, bool keep, pq_column_values *out)
{
    const pq_plan_chunk *pc = c->pc;
    pq_column_values *d = out->dictionary = calloc(1, sizeof *out->dictionary);
    if (!d) return pq_error_set(c->err, PQ_ERR_NOMEM, "out of memory");
    d->physical_type = pc->physical_type;
    d->width = pq_plan_value_width(pc->leaf);
    d->n_levels = d->n_values = c->dict_n;
    pq_status st;
    if (pc->physical_type == PQ_BYTE_ARRAY) {
        d->data_len = c->dict_bytes;
        if ((st = hand_over(c, keep, (void **)&c->d_doffsets, ((size_t)c->dict_n + 1) * sizeof(int32_t),
                            (void **)&d->offsets)) != PQ_OK)
            return st;
        return hand_over(c, keep, (void **)&c->d_ddata, c->dict_bytes ? c->dict_bytes : 1, (void **)&d->data);
    }
    return hand_over(c, keep, (void **)&c->d_dvalues, (size_t)c->dict_n * d->width, (void **)&d->values);
}

/* The chunk's output, as the CPU executor's finish_chunk leaves it. */
static pq_status finish(dx_chunk *c, pq_column_values *out)
{
    const pq_plan_chunk *pc = c->pc;
    pq_status st;
    out->physical_type = pc->physical_type;
    out->width = pc->width;
    out->n_levels = (size_t)pc->n_levels;
    out->n_values = (size_t)pc->n_values;
    if (c->d_def && pc->max_rep == 0) {
        /* A flat leaf keeps its definition levels only when a page stored
         * them: one whose levels do not start with a run of max_def over
         * the whole page (the CPU executor's lazy definition levels). */
        bool stored = false;
        for (size_t i = 0; i < c->ndata && !stored; i++) stored = !c->kr[i].def_covered;
        if (!stored) {
            dev_free(c->x, c->d_def);
            c->d_def = NULL;
        }
    }
    /* Kept on the device: handed over as they are, once the stream is done. */
    bool keep = c->x->o->outputs_on_device && c->x->o->outputs_on_device[c->k];
    if (keep && c->x->cuda) {
        const char *why = NULL;
        if (pq_cuda_stream_sync(c->x->stream, &why)) return cuda_failed(c, "cudaStreamSynchronize", why);
    }
    if ((st = hand_over(c, keep, (void **)&c->d_def, c->def_bytes, (void **)&out->def_levels)) != PQ_OK ||
        (st = hand_over(c, keep, (void **)&c->d_rep, c->rep_bytes, (void **)&out->rep_levels)) != PQ_OK)
        return st;
    if (pc->output == PQ_PLAN_VIEWS) {
        /* The views; the page values' bytes (buffer 0) and the dictionary's (1). */
        if ((st = hand_over(c, keep, (void **)&c->d_views, c->views_bytes, (void **)&out->views)) != PQ_OK ||
            (st = hand_over(c, keep, (void **)&c->d_data, c->data_bytes, (void **)&out->view_bufs[0])) != PQ_OK)
            return st;
        out->view_buf_lens[0] = (size_t)pc->string_bytes;
        out->n_view_bufs = 1;
        if (pc->dictionary >= 0) {
            if ((st = hand_over(c, keep, (void **)&c->d_ddata, c->dict_bytes ? c->dict_bytes : 1,
                                (void **)&out->view_bufs[1])) != PQ_OK)
                return st;
            out->view_buf_lens[1] = c->dict_bytes;
            out->n_view_bufs = 2;
        }
        return PQ_OK;
    }
    if ((st = hand_over(c, keep, (void **)&c->d_values, c->values_bytes, (void **)&out->values)) != PQ_OK ||
        (st = hand_over(c, keep, (void **)&c->d_offsets, c->offsets_bytes, (void **)&out->offsets)) != PQ_OK ||
        (st = hand_over(c, keep, (void **)&c->d_data, c->data_bytes, (void **)&out->data)) != PQ_OK)
        return st;
    if (pc->output == PQ_PLAN_BYTES) out->data_len = (size_t)pc->string_bytes;
    if (pc->flags & PQ_PLAN_CHUNK_INDICES) return finish_dictionary(c, keep, out);
    return PQ_OK;
}

static void free_chunk(dx_chunk *c)
{
    dx_run *x = c->x;
    if (c->batch_pending) (void)pq_cuda_stream_sync(x->stream, NULL); /* nvCOMP still writes */
    void *dev[] = {c->d_runs,    c->d_idx,     c->d_minis,    c->d_def,   c->d_rep,   c->d_values,
                   c->d_offsets, c->d_data,    c->d_views,    c->d_dvalues, c->d_doffsets, c->d_ddata,
                   c->d_bytes,   c->d_raw,     c->d_batch,    c->d_temp};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) dev_free(x, dev[i]);
    if (x->apart) { /* device copies of the host tables */
        dev_free(x, c->d_kp);
        dev_free(x, c->d_kr);
    }
    free(c->pg);
    free(c->kp);
    free(c->kr);
    free(c->slots);
    free(c->hbytes);
    free(c->h_batch);
    free(c->plain);
    memset(c, 0, sizeof *c);
}

/* ---------------------------------------------------------------------------
 * What is covered
 * ------------------------------------------------------------------------- */

static const char *const reason_names[PQ_DX_REASONS] = {
    [PQ_DX_ROWS] = "row selection",
    [PQ_DX_VALUE_ENCODING] = "value encoding",
    [PQ_DX_LEVEL_ENCODING] = "level encoding",
    [PQ_DX_DEVICE] = "no usable CUDA device",
};

const char *pq_dx_reason_name(pq_dx_reason r)
{
    return (unsigned)r < PQ_DX_REASONS ? reason_names[r] : "?";
}

/* Whether the kernels cover chunk k: -1, or the reason they do not, with
 * what it is in `what`. */
static int not_covered(const pq_decode_plan *plan, size_t k, char *what, size_t cap)
{
    const pq_plan_chunk *pc = &plan->chunks[k];
    if (pc->rows) { /* what pq_device_exec_run does not compact (rows.h) */
        snprintf(what, cap, "row selections of columns with levels");
        return PQ_DX_ROWS;
    }
    for (size_t i = pc->first_page; i < pc->first_page + pc->npages; i++) {
        const pq_plan_page *pp = &plan->pages[i];
        const pq_page_info *pi = pp->info;
        if (pp->kind != PQ_PLAN_PAGE_DATA) continue;
        if (encoding_op(pc, pi->encoding) == PQ_KOP_NONE) {
            /* The name functions may share one buffer for unknown values: copy. */
            char enc[32];
            snprintf(enc, sizeof enc, "%s", pq_encoding_name(pi->encoding));
            snprintf(what, cap, "%s values of %s (page %zu)", enc, pq_physical_type_name(pc->physical_type),
                     pp->index);
            return PQ_DX_VALUE_ENCODING;
        }
        if (pi->type != PQ_PAGE_DATA) continue; /* v2 levels are always RLE */
        for (int rep = 0; rep < 2; rep++) {
            int32_t enc = rep ? pi->rep_level_encoding : pi->def_level_encoding;
            if ((rep ? pc->max_rep : pc->max_def) == 0 || enc == PQ_ENC_RLE || enc == PQ_ENC_BIT_PACKED) continue;
            snprintf(what, cap, "%s %s levels (page %zu)", pq_encoding_name(enc), rep ? "repetition" : "definition",
                     pp->index);
            return PQ_DX_LEVEL_ENCODING;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------------------
 * The executor
 * ------------------------------------------------------------------------- */

/* An encrypted chunk's pages decrypted on the host (no device decrypts
 * them), each where its stored bytes lie, so that the offsets hold; then
 * the chunk is staged as a plaintext one. */
static pq_status decrypt_pages(dx_chunk *c)
{
    const pq_plan_chunk *pc = c->pc;
    pq_status st = hold(c, (size_t)pc->len, "decrypted pages");
    if (st != PQ_OK) return st;
    if (!(c->plain = malloc(pc->len ? (size_t)pc->len : 1)))
        return pq_error_set(c->err, PQ_ERR_NOMEM, "device executor: decrypted pages: cannot allocate %llu bytes",
                            (unsigned long long)pc->len);
    for (size_t i = pc->first_page; i < pc->first_page + pc->npages; i++) {
        const pq_plan_page *pp = &c->plan->pages[i];
        if (pp->kind == PQ_PLAN_PAGE_SKIP) continue;
        st = pq_page_decrypt(pc->cipher, pc->bytes, pc->len, pp->info, &pc->modules[pp->index], pp->index,
                             c->plain + pp->info->data_offset, c->err);
        if (st != PQ_OK) return st;
    }
    c->bytes = c->plain;
    return PQ_OK;
}

/* A chunk's state before its pages are staged: the page list. Returns
 * the chunk's status (PQ_OK to go on). */
static pq_status open_chunk(dx_run *x, pq_decode_plan *plan, size_t k, pq_error *err, void *ev_up, dx_chunk *c)
{
    memset(c, 0, sizeof *c);
    c->x = x;
    c->plan = plan;
    c->k = k;
    c->pc = &plan->chunks[k];
    c->err = err;
    c->ev_up = ev_up;
    char what[128];
    int reason = not_covered(plan, k, what, sizeof what);
    if (reason >= 0) {
        if (x->stats) x->stats->unsupported[reason]++;
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device executor: %s are not covered", what);
    }
    if (x->no_device) {
        if (x->stats) x->stats->unsupported[PQ_DX_DEVICE]++;
        return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device executor: no CUDA device: %s", x->no_device);
    }
    if (x->stats) x->stats->chunks++;
    c->d_src = x->o->resident && !c->pc->cipher ? x->o->resident[k] : NULL;
    if (c->d_src && x->stats) x->stats->resident_chunks++;
    c->bytes = c->pc->bytes;
    if (c->pc->cipher) {
        pq_status st = decrypt_pages(c);
        if (st != PQ_OK) return st;
    }
    for (size_t i = c->pc->first_page; i < c->pc->first_page + c->pc->npages; i++)
        c->ndata += plan->pages[i].kind == PQ_PLAN_PAGE_DATA;
    if (c->ndata > UINT32_MAX - 1) return pq_error_set(err, PQ_ERR_UNSUPPORTED, "device executor: too many pages");
    c->pg = calloc(c->ndata + 1, sizeof *c->pg);
    c->kp = calloc(c->ndata + 1, sizeof *c->kp);
    c->kr = calloc(c->ndata + 1, sizeof *c->kr);
    if (!c->pg || !c->kp || !c->kr) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    size_t d = 0;
    for (size_t i = c->pc->first_page; i < c->pc->first_page + c->pc->npages; i++) {
        const pq_plan_page *pp = &plan->pages[i];
        if (pp->kind != PQ_PLAN_PAGE_DATA) continue;
        c->pg[d].plan = i;
        c->kp[d].n_levels = (uint32_t)pp->n_levels;
        c->kp[d].level_offset = pp->level_offset;
        d++;
    }
    c->pg[c->ndata].plan = c->pc->dictionary >= 0 ? (size_t)c->pc->dictionary : 0;
    for (size_t i = 0; i <= c->ndata; i++) c->pg[i].rank = RANK_NONE;
    return PQ_OK;
}

/* Opens and stages chunk k (its status in *st). */
static void begin_chunk(dx_run *x, pq_decode_plan *plan, size_t k, pq_error *err, void *ev_up, dx_chunk *c,
                        pq_status *st)
{
    *st = open_chunk(x, plan, k, err, ev_up, c);
    if (*st == PQ_OK) *st = stage_chunk(c);
}

/* Device memory a chunk's staging takes (its page buffers), bounded from
 * the headers before anything is allocated: what may be prefetched. */
static uint64_t staged_bound(const pq_decode_plan *plan, size_t k)
{
    const pq_plan_chunk *pc = &plan->chunks[k];
    uint64_t b = 0;
    for (size_t i = pc->first_page; i < pc->first_page + pc->npages; i++) {
        const pq_page_info *pi = plan->pages[i].info;
        uint64_t comp = pi->compressed_size > 0 ? (uint64_t)pi->compressed_size : 0;
        uint64_t uncomp = pi->uncompressed_size > 0 ? (uint64_t)pi->uncompressed_size : 0;
        b += comp + uncomp + 4 * PQ_NVCOMP_ALIGN; /* raw and decompressed, padding */
    }
    return b;
}

/* The rest of a staged chunk: decompression, the stages, the output. */
static pq_status end_chunk(dx_chunk *c, pq_column_values *out)
{
    pq_status st = prepare(c);
    if (st == PQ_OK) st = run_stages(c);
    if (st == PQ_OK) st = finish(c, out);
    return st;
}

/* The run's copy stream, staging and events, as far as it has them. */
static void free_run(dx_run *x)
{
    for (int h = 0; h < 2; h++) {
        if (x->cuda) {
            if (x->st.busy[h]) (void)pq_cuda_event_sync(x->st.ev[h], NULL);
            pq_cuda_host_free(x->st.buf[h]);
            pq_cuda_event_destroy(x->st.ev[h]);
            pq_cuda_event_destroy(x->ev_up[h]);
        } else {
            copies_until(x, x->qn); /* before the halves they read go */
            free(x->st.buf[h]);
        }
    }
    free(x->q);
    if (x->copy_stream) pq_cuda_stream_destroy(x->copy_stream);
    if (x->stream) pq_cuda_stream_destroy(x->stream);
}

/* The staging halves: half the staging size, no more than the largest
 * chunk needs. */
static size_t staging_half(const pq_decode_plan *plan, uint64_t staging)
{
    uint64_t need = 0;
    for (size_t k = 0; k < plan->nchunks; k++) {
        uint64_t b = staged_bound(plan, k);
        if (b > need) need = b;
    }
    uint64_t half = staging / 2 < need ? staging / 2 : need;
    if (half > SIZE_MAX / 4) half = SIZE_MAX / 4;
    return half ? (size_t)half : 1;
}

/* A run of a plan whose row selections were lifted (rows.h): the
 * caller's plan, outputs and outputs_on_device. */
typedef struct rows_pass {
    pq_decode_plan *plan;
    pq_column_values *outs;
    const bool *on_device;
} rows_pass;

/* Chunk k of the whole plan's run, whose row selection was lifted, made
 * the selected rows of the caller's chunk k (rows.h), on the run's
 * stream as soon as it is decoded, so that its whole decode is freed before
 * the next chunk's; one whose whole decode failed is left to the CPU
 * executor. */
static pq_status compact_chunk(const dx_run *x, const rows_pass *rp, const pq_decode_plan *whole, size_t k,
                               pq_column_values *wout, pq_status st, pq_error *err)
{
    const pq_device_exec_options *o = x->o;
    if (st == PQ_OK) {
        /* The run's memory and stream, lent: not opened or closed as a context. */
        pq_darrow_ctx rx = {.cuda = x->cuda, .apart = x->apart, .stream = x->stream, .threads = x->threads,
                            .host_flags = x->host_flags};
        bool keep = rp->on_device && rp->on_device[k];
        st = pq_dx_rows_compact(&rx, whole, rp->plan, k, wout, keep, &rp->outs[k], err);
        if (st == PQ_OK || st == PQ_ERR_UNSUPPORTED) return st; /* a device's reason: said */
    } else {
        pq_device_values_free(x->cuda, wout); /* zeroed already: failed chunks hand nothing over */
        if (st == PQ_ERR_UNSUPPORTED) return st; /* not covered, or no device: said and counted */
    }
    if (o->stats) o->stats->unsupported[PQ_DX_ROWS]++;
    char why[PQ_ERROR_MESSAGE_SIZE];
    snprintf(why, sizeof why, "%s", err->message);
    return pq_error_set(err, PQ_ERR_UNSUPPORTED,
                        "device executor: a row selection of a chunk that fails decoded whole (%s) is left to the "
                        "CPU executor, which decodes the selected rows alone",
                        why);
}

/* The chunks of `plan` as they are; with rp, the chunks whose row
 * selection was lifted are compacted into rp->outs (their status the
 * compaction's). */
static pq_status run_plan(const pq_device_exec_options *o, pq_decode_plan *plan, pq_column_values *outs,
                          pq_status *status, pq_error *errors, const rows_pass *rp)
{
    size_t nc = plan ? plan->nchunks : 0;
    for (size_t k = 0; k < nc; k++) {
        memset(&outs[k], 0, sizeof outs[k]);
        status[k] = PQ_OK;
    }
    dx_run x;
    memset(&x, 0, sizeof x);
    x.o = o;
    x.threads = o->threads ? o->threads : DEFAULT_THREADS;
    x.host_flags = o->host_flags;
    x.stats = o->stats;
    if (x.threads > PQ_KMAX_THREADS) {
        for (size_t k = 0; k < nc; k++)
            status[k] = pq_error_set(&errors[k], PQ_ERR_INVALID_ARGUMENT, "device executor: %u threads a block",
                                     x.threads);
        return nc ? PQ_ERR_INVALID_ARGUMENT : PQ_OK;
    }
    if (nc == 0) return PQ_OK;
    if (o->cctx) {
        x.cctx = o->cctx;
    } else {
        pq_codec_ctx_init(&x.own_cctx);
        x.cctx = &x.own_cctx;
    }
    if (o->use_cuda) {
        const char *why = NULL;
        if (pq_cuda_device_count(&why) <= 0) x.no_device = why ? why : "none found";
        else if (pq_cuda_stream_create(&x.stream, &why) || pq_cuda_stream_create(&x.copy_stream, &why) ||
                 pq_cuda_event_create(&x.ev_up[0], &why) || pq_cuda_event_create(&x.ev_up[1], &why))
            x.no_device = why ? why : "no stream";
        else x.cuda = true;
    }
    x.apart = x.cuda || o->host_apart;
    x.deferred = !x.cuda && o->host_async;
    /* The batch: nvCOMP on a device (when it loads), the host codecs on
     * host launches; without it every compressed page is the host's. */
    x.batch = !o->host_decompress && (!x.cuda || pq_nvcomp_load(NULL) == 0);
    uint64_t staging = o->staging_bytes ? o->staging_bytes : PQ_DX_DEFAULT_STAGING;
    x.st.half = staging_half(plan, staging);

    /* Two chunk states in turn: the one decoding, the next one staged
     * meanwhile when its page buffers fit in the staging size. */
    dx_chunk cs[2];
    pq_status cst[2] = {PQ_OK, PQ_OK};
    bool staged[2] = {false, false};
    memset(cs, 0, sizeof cs);
    pq_status first = PQ_OK;
    int cur = 0;
    for (size_t k = 0; k < nc; k++) {
        dx_chunk *c = &cs[cur];
        if (!staged[cur]) {
            if (x.stats) x.stats->passes++;
            begin_chunk(&x, plan, k, &errors[k], x.ev_up[cur], c, &cst[cur]);
        }
        staged[cur] = false;
        if (cst[cur] == PQ_OK) cst[cur] = batch_start(c);
        int nxt = cur ^ 1;
        if (k + 1 < nc && cst[cur] == PQ_OK && staged_bound(plan, k + 1) <= staging) {
            begin_chunk(&x, plan, k + 1, &errors[k + 1], x.ev_up[nxt], &cs[nxt], &cst[nxt]);
            staged[nxt] = true;
            if (x.stats) x.stats->prefetched_chunks++;
        }
        if (cst[cur] == PQ_OK) cst[cur] = end_chunk(c, &outs[k]);
        status[k] = cst[cur];
        if (rp && pq_dx_rows_compacted(&rp->plan->chunks[k]))
            status[k] = compact_chunk(&x, rp, plan, k, &outs[k], status[k], &errors[k]);
        if (status[k] != PQ_OK) {
            pq_column_values_free(&outs[k]); /* zeroed, or host buffers: finish failed before the hand-over */
            if (first == PQ_OK) first = status[k];
        }
        free_chunk(c);
        cur = nxt;
    }
    free_run(&x);
    if (x.cctx == &x.own_cctx) pq_codec_ctx_free(&x.own_cctx);
    return first;
}

pq_status pq_device_exec_run(const pq_device_exec_options *o, pq_decode_plan *plan, pq_column_values *outs,
                             pq_status *status, pq_error *errors)
{
    pq_device_exec_options defaults;
    if (!o) {
        memset(&defaults, 0, sizeof defaults);
        o = &defaults;
    }
    size_t nc = plan ? plan->nchunks : 0, nrows = 0;
    for (size_t k = 0; k < nc; k++) nrows += pq_dx_rows_compacted(&plan->chunks[k]);
    if (nrows == 0) return run_plan(o, plan, outs, status, errors, NULL);

    /* Row selections: their chunks decoded whole, kept on the device for the
     * compaction, then compacted; the other chunks run as they are. */
    pq_decode_plan whole;
    bool *on_device = calloc(nc, sizeof *on_device);
    pq_column_values *wouts = calloc(nc, sizeof *wouts);
    pq_error e0 = {0};
    pq_status st = on_device && wouts ? pq_dx_rows_whole_plan(plan, &whole, &e0)
                                      : pq_error_set(&e0, PQ_ERR_NOMEM, "out of memory");
    if (st != PQ_OK) {
        for (size_t k = 0; k < nc; k++) {
            memset(&outs[k], 0, sizeof outs[k]);
            status[k] = st;
            errors[k] = e0;
        }
        free(on_device);
        free(wouts);
        return st;
    }
    for (size_t k = 0; k < nc; k++)
        on_device[k] = pq_dx_rows_compacted(&plan->chunks[k]) || (o->outputs_on_device && o->outputs_on_device[k]);
    pq_device_exec_options wo = *o;
    wo.outputs_on_device = on_device;
    for (size_t k = 0; k < nc; k++) memset(&outs[k], 0, sizeof outs[k]);
    rows_pass rp = {plan, outs, o->outputs_on_device};
    run_plan(&wo, &whole, wouts, status, errors, &rp);
    pq_status first = PQ_OK;
    for (size_t k = 0; k < nc; k++) {
        if (!pq_dx_rows_compacted(&plan->chunks[k])) { /* as the whole plan ran it: its output and the plan's counts */
            outs[k] = wouts[k];
            plan->chunks[k] = whole.chunks[k];
            for (size_t i = whole.chunks[k].first_page; i < whole.chunks[k].first_page + whole.chunks[k].npages; i++)
                plan->pages[i] = whole.pages[i];
        }
        if (status[k] != PQ_OK && first == PQ_OK) first = status[k];
    }
    pq_decode_plan_free(&whole);
    free(on_device);
    free(wouts);
    return first;
}

