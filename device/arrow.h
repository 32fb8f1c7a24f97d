/*
 * arrow.h — Arrow buffers built where the decoded values are: a
 * chunk's pq_column_values (in device memory after the device executor)
 * into the buffers of its Arrow array by the kernels of
 * kernels/k_arrow_build.h, on a CUDA device or, phase by phase, on the
 * host (CI has no GPU and checks that way against reader/arrow_batch.c).
 *
 * The buffers are those pq_arrow_column_build and pq_arrow_nested_build
 * make, byte for byte (bits of a bitmap past the array's length aside):
 *   flat leaf  validity (NULL when no slot is null) and, by type, the
 *              fixed-width slots (converted: integers cut or extended,
 *              decimals from INT32 / INT64 / FLBA /
 *              BYTE_ARRAY, float16, dates, times, timestamps, durations,
 *              fixed-size binary), the bits of booleans, or the int32 /
 *              int64 offsets and the data of strings and binary; nulls
 *              zeroed, empty strings; decoded as string views
 *              (PQ_DECODE_STRING_VIEWS), the views spread over the slots
 *              (a null an empty inline view), the decoder's one or two
 *              data buffers and their int64 sizes (that buffer in device
 *              memory too); decoded as dictionary indices
 *              (PQ_DECODE_INDICES), a dictionary array: int32 indices with
 *              the leaf's validity and the chunk's dictionary as an array
 *              of its own without nulls (pq_arrow_column_build_dictionary's);
 *   nested     for one leaf, each Arrow level on its path (pq_asm_level,
 *              as assemble.h describes, outermost first): the slots, the
 *              validity (NULL when none is null) and, for a list, the
 *              offsets; the last level is the leaf's array as above;
 *   field      of several leaves: their nests joined into one tree
 *              (pq_darrow_field_export), as pq_arrow_nested_build joins
 *              them.
 * Not covered, PQ_ERR_UNSUPPORTED with the reason (the caller builds those
 * on the host): a type with no layout here (the host build refuses those
 * too, with its own message), string views of JSON, string views and
 * dictionary indices of a nested leaf.
 *
 * Memory. Every buffer in and out is this context's device memory: cudaMalloc'd
 * with use_cuda, else malloc'd (a pool block may be given too, pages/buffer_pool.h).
 * With host_apart the host launches get separate, garbage-filled
 * allocations that only pq_darrow_upload / pq_darrow_download reach, as on
 * a GPU: the driver never reads an input buffer but by download. A build
 * may take buffers out of its input (they are NULL there then: the data
 * of strings, values already laid out), as arrow_batch.c does; free
 * everything else in the input as before, on this context.
 */
#ifndef PQ_PAGES_DEVICE_ARROW_H
#define PQ_PAGES_DEVICE_ARROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/assemble.h"
#include "pages/page_values.h"
#include "pq_arrow.h"
#include "pq_error.h"
#include "pq_metadata.h"

typedef struct pq_darrow_options {
    bool use_cuda;       /* on the CUDA device (PQ_ERR_UNSUPPORTED without one) */
    unsigned threads;    /* threads a block: 0 means 256; at most PQ_KMAX_THREADS */
    unsigned host_flags; /* host launches: PQ_KLAUNCH_* */
    bool host_apart;     /* host launches with device memory apart (see above) */
} pq_darrow_options;

typedef struct pq_darrow_ctx {
    bool cuda, apart;
    void *stream;
    uint32_t threads;
    unsigned host_flags;
    uint64_t launches; /* kernel launches so far */
} pq_darrow_ctx;

/* How an array's buffers are laid out (pq_darrow_array.layout). */
typedef enum pq_darrow_layout {
    PQ_DARROW_NULL = 0,     /* no buffers (the null type) */
    PQ_DARROW_BOOL,         /* validity, bits */
    PQ_DARROW_FIXED,        /* validity, width bytes a slot */
    PQ_DARROW_BINARY,       /* validity, int32 offsets, data */
    PQ_DARROW_LARGE_BINARY, /* validity, int64 offsets, data */
    PQ_DARROW_VIEW          /* validity, 16-byte views, 1 or 2 data buffers, their int64 sizes */
} pq_darrow_layout;

/* A flat array's buffers, device memory owned by the array. */
typedef struct pq_darrow_array {
    int64_t length, null_count;
    uint8_t layout;           /* pq_darrow_layout */
    uint32_t width;           /* FIXED: bytes a slot */
    void *validity;           /* (length + 7) / 8 bytes, or NULL */
    void *values;             /* slots, bits or offsets */
    size_t values_bytes;
    void *data;               /* BINARY layouts */
    size_t data_len;
    void *view_bufs[2];       /* VIEW: the data buffers the views point into */
    size_t view_buf_lens[2];
    size_t n_view_bufs;
    int64_t *view_sizes;      /* VIEW: their sizes, n_view_bufs int64s (device memory) */
    struct pq_darrow_array *dictionary; /* a dictionary array's entries (malloc'd), or NULL */
} pq_darrow_array;

/* One Arrow level of a nested leaf (not the leaf's own). */
typedef struct pq_darrow_level {
    int32_t kind;             /* PQ_ASM_STRUCT or PQ_ASM_LIST */
    int64_t length, null_count;
    void *validity;           /* or NULL */
    int32_t *offsets;         /* lists: length + 1 entries */
} pq_darrow_level;

typedef struct pq_darrow_nested {
    size_t n_levels;                          /* the leaf's level included */
    pq_darrow_level levels[PQ_ASM_MAX_LEVELS]; /* [0, n_levels - 1) */
    pq_darrow_array leaf;
} pq_darrow_nested;

/* Starts a context. PQ_ERR_UNSUPPORTED (use_cuda without a usable device,
 * naming why), PQ_ERR_INVALID_ARGUMENT (threads). */
pq_status pq_darrow_open(pq_darrow_ctx *x, const pq_darrow_options *o, pq_error *err);
void pq_darrow_close(pq_darrow_ctx *x);

/* Device memory of the context: n bytes (at least 1), freed by
 * pq_darrow_free (NULL is ignored); copies in and out. */
pq_status pq_darrow_alloc(pq_darrow_ctx *x, size_t n, void **p, pq_error *err);
void pq_darrow_free(pq_darrow_ctx *x, void *p);
pq_status pq_darrow_upload(pq_darrow_ctx *x, void *dev, const void *host, size_t n, pq_error *err);
pq_status pq_darrow_download(pq_darrow_ctx *x, void *host, const void *dev, size_t n, pq_error *err);

/* Frees an array's / a nested leaf's buffers and zeroes it. */
void pq_darrow_array_free(pq_darrow_ctx *x, pq_darrow_array *a);
void pq_darrow_nested_free(pq_darrow_ctx *x, pq_darrow_nested *n);

/* The Arrow array of flat leaf `leaf` from `v` (pq_arrow_column_build's).
 * Errors: PQ_ERR_UNSUPPORTED (see above), PQ_ERR_CORRUPT_DATA (counts that
 * do not add up, as the host build words it), PQ_ERR_NOMEM; on error *out
 * is zeroed. */
pq_status pq_darrow_build_flat(pq_darrow_ctx *x, const pq_leaf *leaf, pq_column_values *v, pq_darrow_array *out,
                               pq_error *err);

/* A dictionary array of a chunk whose values were decoded (its pages not
 * all dictionary-encoded), as pq_arrow_column_build_dictionary builds one:
 * an entry per slot (the slots' array as pq_darrow_build_flat builds it,
 * without its validity: a null's entry is empty) and int32 indices 0..n-1
 * that carry the slots' validity (the indices made on the host and
 * uploaded, 4 bytes a slot). Errors: pq_darrow_build_flat's,
 * PQ_ERR_UNSUPPORTED past int32 indices. */
pq_status pq_darrow_build_dictionary_slots(pq_darrow_ctx *x, const pq_leaf *leaf, pq_column_values *v,
                                           pq_darrow_array *out, pq_error *err);

/* Whether pq_darrow_build_flat lays out leaf `leaf`'s type decoded with
 * page_values.h's `flags` (0: values or byte arrays;
 * PQ_DECODE_STRING_VIEWS; PQ_DECODE_INDICES): false for what it would
 * refuse as not supported. */
bool pq_darrow_covers(const pq_leaf *leaf, unsigned flags);

/* Device bytes array a holds (its dictionary's included). */
uint64_t pq_darrow_array_bytes(const pq_darrow_array *a);

/* The levels and array of leaf `leaf` of a nested field from its levels
 * `levels` (n_levels of them, the leaf's last, checked as pq_assemble
 * checks them) and `v`: num_rows records (pq_arrow_nested_build's for a
 * field of this one leaf). Errors: those of pq_assemble (word for word:
 * the first failing entry), PQ_ERR_CORRUPT_DATA (records or values other
 * than expected), and those of pq_darrow_build_flat. */
pq_status pq_darrow_build_nested(pq_darrow_ctx *x, const pq_leaf *leaf, const pq_asm_level *levels, size_t n_levels,
                                 pq_column_values *v, int64_t num_rows, pq_darrow_nested *out, pq_error *err);

/* Array *a moved into an Arrow C array (*out; a is zeroed): buffers as
 * the layout says (validity, then values / bits / offsets / views, then
 * data, or the view buffers and their sizes; none for the null type), a
 * dictionary array's entries as out->dictionary, offset 0, and a release
 * that frees them as the context would (cudaFree on a device; on the
 * host, pq_pool_give), which works after pq_darrow_close too. PQ_ERR_NOMEM
 * (a is freed then). */
pq_status pq_darrow_array_export(pq_darrow_ctx *x, pq_darrow_array *a, struct ArrowArray *out, pq_error *err);

/* One leaf of a nested field, for pq_darrow_field_export. */
typedef struct pq_darrow_field_leaf {
    pq_darrow_nested nest;           /* pq_darrow_build_nested's: taken by the export */
    int64_t keys[PQ_ASM_MAX_LEVELS]; /* per level: the schema node it stands for (pq_arrow_leaf_levels) */
    const char *path;                /* the leaf's path, for messages */
} pq_darrow_field_leaf;

/* A nested field's leaves (n of them, in file order) joined into one Arrow
 * C array tree (*out), as pq_arrow_nested_build joins them: a level the
 * leaves share (the same key) is one node, whose leaves must agree on it
 * (its slots, their validity and a list's offsets) or PQ_ERR_CORRUPT_DATA
 * "columns 'a' and 'b' disagree on their nesting"; a struct node's
 * children are the runs of leaves that share the next level, a list node's
 * one child; its shape is checked with the host build's checks and
 * messages (a list with several elements, offsets that do not end at the
 * child's length, a struct child of another length). Each node holds its
 * validity (a struct) or validity and int32 offsets (a list), the leaves'
 * arrays are pq_darrow_array_export's, all released as one tree (as the
 * context would free them, after pq_darrow_close too). The shared levels
 * are compared on the host: their validity and offsets are downloaded, a
 * bit or 4 bytes a slot, where two leaves share them. *bytes (may be NULL)
 * gets the device bytes the tree holds. The leaves' nests are taken or
 * freed either way; on error *out is zeroed. */
pq_status pq_darrow_field_export(pq_darrow_ctx *x, pq_darrow_field_leaf *leaves, size_t n, struct ArrowArray *out,
                                 uint64_t *bytes, pq_error *err);

#endif /* PQ_PAGES_DEVICE_ARROW_H */
