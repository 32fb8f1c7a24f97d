/*
 * pq_arrow.h — the Arrow C Data Interface: exporting what pqstep reads as
 * ArrowSchema (and, with the decode stage, ArrowArray) structs that any
 * Arrow implementation imports without copying.
 *
 * The two structs are the ones the Arrow specification defines
 * (https://arrow.apache.org/docs/format/CDataInterface.html), field for
 * field, under the spec's include guard: a translation unit may include
 * Arrow's own abi.h before or after this header.
 *
 * Ownership follows the spec: whoever receives a struct from pqstep owns
 * it and must call its `release` callback once (release sets `release` to
 * NULL). Each child has its own `release`, so a consumer may move a child
 * out (copy the struct, then set the original's `release` to NULL) and
 * release it separately; releasing the parent then skips that child.
 */
#ifndef PQ_ARROW_H
#define PQ_ARROW_H

#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    /* Array type description */
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;

    /* Release callback */
    void (*release)(struct ArrowSchema *);
    /* Opaque producer-specific data */
    void *private_data;
};

struct ArrowArray {
    /* Array data description */
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;

    /* Release callback */
    void (*release)(struct ArrowArray *);
    /* Opaque producer-specific data */
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

/* The Arrow C stream interface
 * (https://arrow.apache.org/docs/format/CStreamInterface.html), field for
 * field, under the spec's include guard. */
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
    /* The stream's schema (0, or an errno value and get_last_error) */
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    /* The next batch: out->release == NULL at the end of the stream */
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    /* The message of the last error, valid until the next call, or NULL */
    const char *(*get_last_error)(struct ArrowArrayStream *);
    /* Release callback */
    void (*release)(struct ArrowArrayStream *);
    /* Opaque producer-specific data */
    void *private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

/* The Arrow C device data interface
 * (https://arrow.apache.org/docs/format/CDeviceDataInterface.html), field
 * for field, under the spec's include guard. */
#ifndef ARROW_C_DEVICE_DATA_INTERFACE
#define ARROW_C_DEVICE_DATA_INTERFACE

typedef int32_t ArrowDeviceType;
#define ARROW_DEVICE_CPU 1
#define ARROW_DEVICE_CUDA 2
#define ARROW_DEVICE_CUDA_HOST 3
#define ARROW_DEVICE_OPENCL 4
#define ARROW_DEVICE_VULKAN 7
#define ARROW_DEVICE_METAL 8
#define ARROW_DEVICE_VPI 9
#define ARROW_DEVICE_ROCM 10
#define ARROW_DEVICE_ROCM_HOST 11
#define ARROW_DEVICE_EXT_DEV 12
#define ARROW_DEVICE_CUDA_MANAGED 13
#define ARROW_DEVICE_ONEAPI 14
#define ARROW_DEVICE_WEBGPU 15
#define ARROW_DEVICE_HEXAGON 16

struct ArrowDeviceArray {
    /* The array; its buffers are on the device below */
    struct ArrowArray array;
    int64_t device_id;
    ArrowDeviceType device_type;
    /* An event to wait on before reading the buffers (cudaEvent_t* for
     * CUDA), or NULL when none is needed */
    void *sync_event;
    int64_t reserved[3];
};

#endif /* ARROW_C_DEVICE_DATA_INTERFACE */

/*
 * Export the Arrow schema of a file (or of some of its columns) as an
 * ArrowSchema: a struct ("+s", unnamed, flags 0) with one child per
 * top-level field of the Parquet schema, typed as pyarrow reads the file by
 * default (ignoring any stored ARROW:schema): lists keep the Parquet name of
 * their element ("element", "item", or for legacy two-level lists the
 * repeated node's name, e.g. "array"); a map's entries struct is named after
 * the map field, as pyarrow names it, with a non-nullable "key" and a
 * "value" child; UUID and JSON columns carry the canonical extension
 * metadata (arrow.uuid over "w:16", arrow.json over "u"); fields whose
 * Parquet node has a field_id carry "PARQUET:field_id" metadata.
 * Nullability: OPTIONAL is nullable; REQUIRED and REPEATED nodes are not.
 *
 * columns: NULL exports every top-level field. Otherwise `columns_len` leaf
 * indexes (pq_schema.leaves order): only the top-level fields holding at
 * least one of them are exported, whole and in file order (duplicates and
 * order do not matter). An index out of range is PQ_ERR_INVALID_ARGUMENT.
 *
 * out: filled on success; the caller owns it and must call out->release(out).
 * The exported schema owns all its strings: it does not reference `md`,
 * which may be released before or after. On failure `*out` is left with
 * release == NULL (nothing to free) and `err` says why: PQ_ERR_UNSUPPORTED
 * for a column with no Arrow mapping, PQ_ERR_NOMEM.
 *
 * Thread-safe: `md` is only read.
 */
PQ_API pq_status pq_metadata_arrow_schema(const pq_metadata *md, const uint32_t *columns,
                                          size_t columns_len, struct ArrowSchema *out,
                                          pq_error *err);

/*
 * Write the Arrow C Data Interface format string of a non-nested type
 * (e.g. "l", "tsu:UTC", "d:10,2", "w:16") into `buf` (at most `cap` bytes
 * including the NUL). Nested types give their marker only: "+s", "+l", "+m".
 * Extension types give their storage format ("w:16" for UUID, "u" for JSON).
 * Returns PQ_OK, PQ_ERR_UNSUPPORTED for PQ_ARROW_UNSUPPORTED or an unknown
 * id, PQ_ERR_INVALID_ARGUMENT for NULL arguments or when `cap` is too small
 * (32 bytes always suffice).
 */
PQ_API pq_status pq_arrow_format(const pq_arrow_type *t, char *buf, size_t cap);

/* Memory of decoded arrays. Buffers of 128 KiB or more that pqstep makes
 * (values, offsets, string bytes, decompressed pages), once released (by an
 * ArrowArray's release callback, or by the reader dropping what it decoded),
 * are kept in a process-wide pool of up to `bytes` in all, and the next
 * decode writes into them instead of asking the system for fresh memory,
 * whose pages the kernel faults in and zeroes again (a third or more of a
 * large read's time): a file read one row group at a time, or read again,
 * reuses the same memory. A block kept unused for 10 seconds is freed by
 * the pool's next use, as allocators such as jemalloc return dirty pages,
 * so memory goes back to the system once reading stops (a process that
 * stops using pqstep altogether frees the rest with a limit of 0).
 * 0 turns the pool off and frees what it holds; a lower limit frees the
 * largest blocks until the pool fits. PQ_BUFFER_POOL_DEFAULT sets the
 * default, pq_buffer_pool_default_limit(). Thread-safe. */
#define PQ_BUFFER_POOL_DEFAULT UINT64_MAX
PQ_API void pq_buffer_pool_set_limit(uint64_t bytes);

/* The pool's default limit: an eighth of the machine's physical memory,
 * at least 64 MiB and at most 4 GiB (3 GiB on a 24 GiB machine): room to
 * keep a whole file's decoded arrays (about 1 GB for a TPC-H lineitem
 * scale factor 1 read) for the next read, which then reuses their pages
 * instead of having the kernel fault in and zero every page again (a
 * quarter of such a read's time). Kept blocks unused for 10 s are freed at
 * the next take or give, as jemalloc and mimalloc keep freed pages for a
 * decay time; set a lower limit where memory is tight. */
PQ_API uint64_t pq_buffer_pool_default_limit(void);

/* Bytes the pool holds now (blocks kept, not in use). */
PQ_API uint64_t pq_buffer_pool_bytes(void);

#ifdef __cplusplus
}
#endif
#endif /* PQ_ARROW_H */
