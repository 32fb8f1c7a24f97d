/*
 * exec.h — the device executor of decode plans (pages/decode_plan.h):
 * the plan's chunks decoded by the kernels of kernels/k_decode.h, run on a
 * CUDA device or, phase by phase, on the host (the same kernel code; CI has
 * no GPU and runs it that way, against the CPU executor).
 *
 * For each chunk: every page's size taken from its header and checked
 * before anything is launched, and its bytes staged to the device memory
 * (below); each page then decompressed into one buffer, back to back, and
 * split into its level and value sections (the CPU executor's layout rules
 * for DATA_PAGE and DATA_PAGE_V2: in a DATA_PAGE_V2 only the values are
 * compressed, the levels go as stored); then a table of page descriptors
 * (kernels/k_types.h) and these launches, one block per page:
 *   1. the dictionary page, if any: PQ_K_VALUES (PLAIN) and, for byte
 *      arrays, PQ_K_BYTES, into the dictionary's arrays;
 *   2. PQ_K_LEVELS over the data pages: levels into place and each page's
 *      non-null count; the host sums the counts into value offsets;
 *   3. PQ_K_VALUES over the data pages: values into place, or for byte
 *      arrays each value's length (DELTA_LENGTH_BYTE_ARRAY and
 *      DELTA_BYTE_ARRAY: their length streams decoded and checked); the
 *      host sums the pages' bytes into string offsets
 *      (pq_decode_plan_place) and allocates the data;
 *   4. PQ_K_BYTES for byte arrays: the bytes into place (and with string
 *      views out, the views of pages not dictionary-encoded).
 *
 * The result is pq_decode_plan_execute's, buffer for buffer: the same
 * pq_column_values (levels, values, offsets, data, counts, and the same
 * NULL buffers: definition levels left out of a flat leaf whose pages
 * each start with a run of max_def over the page, values NULL for an empty
 * fixed-width chunk), the plan's page counts and offsets filled in the same
 * way, and the same status for a corrupt chunk (the CPU executor's order:
 * the dictionary first, then the first failing data page), its message
 * naming the page, e.g. "page 1 (DATA_PAGE, RLE_DICTIONARY): dictionary
 * index 9 at value 3 >= dictionary size 4". Free each output with
 * pq_column_values_free.
 *
 * Decompression and transfers. Pages of SNAPPY, GZIP, ZSTD and LZ4_RAW go
 * to the device as stored and are decompressed there, one batch a chunk,
 * by nvCOMP (device/nvcomp.h: on a CUDA device, when libnvcomp loads);
 * the sizes and statuses nvCOMP reports are checked against the page
 * headers, and a page it fails is decompressed again on the host, so that
 * a corrupt page fails with the CPU executor's message (a page only
 * nvCOMP cannot read, e.g. gzip of several members, then decodes; counted
 * in decompress_fallbacks). Other codecs (BROTLI, Hadoop-framed LZ4),
 * and every codec without nvCOMP or with host_decompress, are decompressed
 * on the host and the result uploaded; UNCOMPRESSED pages are uploaded as
 * they are. Host launches run the same batch with the host codecs in
 * place of nvCOMP. Every upload goes through a staging buffer of
 * staging_bytes in two halves (pinned memory on a device, so the copies
 * are asynchronous: one half is filled while the other is in flight), on
 * a copy stream; the chunk's decompression waits for the copies by an
 * event. While a chunk decompresses, the next chunk's bytes are staged
 * (host decompression of its pages included) when they fit in
 * staging_bytes of device memory, so its upload overlaps the earlier
 * chunk's work; a chunk that does not fit waits for the one before to end
 * (a new pass, pq_device_exec_stats.passes). A page larger than the
 * staging buffer goes in pieces.
 *
 * Memory: a chunk's decode holds at most memory_limit (device memory on a
 * device: page bytes as stored and decompressed, outputs, scratch,
 * nvCOMP's scratch; host copies of host-decompressed pages), a prefetched
 * next chunk at most staging_bytes of device memory more, and the staging
 * buffer staging_bytes of pinned host memory.
 *
 * Covered: DATA_PAGE and DATA_PAGE_V2, every codec the CPU decodes, RLE and
 * BIT_PACKED levels, and every value encoding the CPU executor decodes:
 * PLAIN values of every physical type, dictionary-encoded
 * (PLAIN_DICTIONARY, RLE_DICTIONARY) values of every type, RLE booleans,
 * BYTE_STREAM_SPLIT (FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY),
 * DELTA_BINARY_PACKED (INT32, INT64), DELTA_LENGTH_BYTE_ARRAY (BYTE_ARRAY)
 * and DELTA_BYTE_ARRAY (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY), each with the CPU
 * executor's checks and messages (kernels/k_delta.h: DELTA_BINARY_PACKED in
 * parallel per miniblock and a block scan; DELTA_BYTE_ARRAY's bytes by one
 * thread a page, as each value starts with a prefix of the one before).
 * Every output of the plan: values, byte arrays as offsets and data, string
 * views (PQ_PLAN_VIEWS: a dictionary-encoded value is its entry's view, made
 * by the values kernel from the dictionary's offsets; a page not
 * dictionary-encoded is decoded as offsets and data first and viewed by the
 * bytes kernel, the same views and buffers as the CPU executor's), and
 * dictionary indices out (PQ_PLAN_CHUNK_INDICES: the checked indices as
 * uint32 values, the dictionary handed over with them).
 * Anything else makes the chunk PQ_ERR_UNSUPPORTED with a message naming it
 * ("device executor: DELTA_BINARY_PACKED values of FLOAT (page 2) are not
 * covered"), and the caller decodes it with the CPU executor: an encoding
 * not valid for the type (which the CPU executor refuses too, or skips on
 * an all-null page), and string views of a chunk whose values take more
 * than int32 offsets reach.
 *
 * Row selections (rows != NULL: required flat columns) are decoded whole
 * and compacted (device/rows.h): every data page with a selected row
 * in full, then the selected rows kept by the compaction kernels, equal to
 * the CPU executor's selection-vector decode; a chunk that fails decoded
 * whole is left to the CPU executor (PQ_ERR_UNSUPPORTED, PQ_DX_ROWS),
 * which reads the selected rows alone.
 */
#ifndef PQ_PAGES_DEVICE_EXEC_H
#define PQ_PAGES_DEVICE_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pages/codec.h"
#include "device/copies.h"
#include "pages/page_values.h"
#include "pages/decode_plan.h"
#include "pq_error.h"

/* Why a chunk was not run (pq_device_exec_stats.unsupported). */
typedef enum pq_dx_reason {
    PQ_DX_ROWS,           /* a row selection failing decoded whole (left to the CPU's selected rows) */
    PQ_DX_VALUE_ENCODING, /* a data page's value encoding not valid for the type (or unknown) */
    PQ_DX_LEVEL_ENCODING, /* a level encoding other than RLE and BIT_PACKED */
    PQ_DX_DEVICE,         /* use_cuda without a usable CUDA device, or a CUDA call failed */
    PQ_DX_REASONS
} pq_dx_reason;

/* A short name for a reason ("row selection", ...). */
const char *pq_dx_reason_name(pq_dx_reason r);

/* What a run did, added to (one struct may sum many runs). */
typedef struct pq_device_exec_stats {
    uint64_t chunks;                      /* chunks the kernels ran (decoded or failed) */
    uint64_t unsupported[PQ_DX_REASONS];  /* chunks left to the CPU executor, by reason */
    uint64_t launches;                    /* kernel launches */
    uint64_t cuda_launches;               /* of which on a CUDA device */
    /* Decompression, in pages (a DATA_PAGE_V2 counts for its values). */
    uint64_t device_decompressed_pages;   /* by nvCOMP on the device */
    uint64_t batch_decompressed_pages;    /* by the batch after staging: nvCOMP, or the host codecs on host launches */
    uint64_t host_decompressed_pages;     /* on the host, before the upload */
    uint64_t decompress_fallbacks;        /* batch failures decompressed again on the host */
    /* Transfers. */
    uint64_t staged_bytes;                /* bytes through the staging buffer */
    uint64_t staging_copies;              /* copies from it (a half each) */
    uint64_t prefetched_chunks;           /* staged while the chunk before ran */
    uint64_t passes;                      /* runs of chunks without a wait for staging room */
    uint64_t resident_chunks;             /* chunks decoded from resident bytes (options.resident) */
    uint64_t resident_bytes;              /* bytes copied from them, device to device */
} pq_device_exec_stats;

/* The default staging size: 64 MiB. */
#define PQ_DX_DEFAULT_STAGING ((uint64_t)64 << 20)

typedef struct pq_device_exec_options {
    /* Run the kernels on the CUDA device (a CUDA build with
     * pq_cuda_device_count() > 0; otherwise every chunk is
     * PQ_ERR_UNSUPPORTED, PQ_DX_DEVICE, as is a chunk during which a CUDA
     * call fails). false: on the host, through pq_klaunch_host. */
    bool use_cuda;
    /* Threads a block: 0 means 256; at most PQ_KMAX_THREADS. */
    unsigned threads;
    /* Host launches: PQ_KLAUNCH_* (tests run threads in reverse). */
    unsigned host_flags;
    /* Host launches with device memory kept apart, as on a GPU: every
     * buffer the kernels touch is a separate allocation (filled with
     * garbage, as cudaMalloc's is), the host's tables reach it only by
     * upload and come back only by download. Tests the CUDA path's data
     * movement where there is no GPU. */
    bool host_apart;
    /* Host launches: the copy stream asynchronous, as on a GPU. Its
     * copies (staging halves, resident copies) are queued and done only
     * where the CUDA path waits for them (the compute stream's wait for a
     * chunk's staging event, the wait before a staging half is refilled, a
     * free), reading their source then; so a wait the CUDA path lacks
     * shows as a wrong result here, not only on a GPU. */
    bool host_async;
    /* Caps what a chunk's decode holds at once (page bytes, outputs,
     * scratch; on a device, device memory too): 0 means no cap. Counted
     * more simply than the CPU executor does (every buffer at its size,
     * from allocation to the end of the chunk). A decompressed page is
     * never more than PQ_MAX_PAGE_SIZE. */
    uint64_t memory_limit;
    /* The staging buffer (pinned host memory on a device, in two halves),
     * also the most device memory a prefetched chunk may take: 0 means
     * PQ_DX_DEFAULT_STAGING. Any size works (pages go in pieces). */
    uint64_t staging_bytes;
    /* Decompress every page on the host, as the CPU executor does, never
     * with nvCOMP (or the batch of host launches): for pages nvCOMP should
     * not see (it checks hostile input less than the host codecs do). */
    bool host_decompress;
    /* NULL, or per plan chunk: whether its output stays in device memory.
     * outs[k]'s buffers are then the device's (cudaMalloc'd on a device, to
     * be freed with pq_device_values_free; on the host plain malloc
     * blocks, which pq_column_values_free frees as usual), its counts host
     * values (with indices out, the dictionary's struct is host memory and
     * its buffers the device's); the stream's work on them is complete on return. For a
     * consumer that keeps building there (device/arrow.h) instead of
     * copying every buffer back. A failed chunk's outs[k] is zeroed. */
    const bool *outputs_on_device;
    /* NULL, or per plan chunk: the address, in device memory (host memory
     * for host launches), of a copy of the chunk's stored bytes (the same
     * pc->len bytes as pc->bytes), or NULL. A resident chunk's pages are
     * not staged from the host: its compressed pages, uncompressed pages and
     * DATA_PAGE_V2 levels are copied device to device into their aligned
     * places (nvCOMP needs aligned inputs), and only pages decompressed on
     * the host (codecs nvCOMP lacks, host_decompress, host launches' host
     * codec pages) are uploaded. The page headers still come from
     * pc->bytes. The copy must stay allocated, unchanged and equal to
     * pc->bytes for the run (pages that differ decode to what the copy
     * holds, or fail as corrupt: every kernel checks its bounds; a page
     * nvCOMP cannot decompress is decompressed again on the host, from
     * pc->bytes, as without a copy). */
    const uint8_t *const *resident;
    /* Codec context, reused across pages; NULL: one of the run's own. */
    pq_codec_ctx *cctx;
    /* Counters, or NULL. */
    pq_device_exec_stats *stats;
} pq_device_exec_options;

/* Run `plan` (as pq_decode_plan_execute): outs[k] gets chunk k's levels and
 * values, status[k] its result and errors[k] its message on failure (outs[k]
 * zeroed then). A chunk the kernels do not cover is PQ_ERR_UNSUPPORTED with
 * nothing decoded: decode it with the CPU executor. The plan's page and
 * chunk counts and offsets are filled in. Returns the first failing chunk's
 * status (PQ_ERR_UNSUPPORTED included), or PQ_OK. */
pq_status pq_device_exec_run(const pq_device_exec_options *o, pq_decode_plan *plan, pq_column_values *outs,
                             pq_status *status, pq_error *errors);


#endif
