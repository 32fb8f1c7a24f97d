/*
 * k_types.h — the plain data the decode kernels (k_levels.h, k_values.h,
 * k_delta.h, k_bytes.h) read and write: the page descriptors the host
 * builds, the per-page results and error records the kernels fill, and the
 * launch arguments. Everything is POD with fixed-width fields, the same in C and
 * CUDA C++, so a table built on the host is copied to the device as bytes.
 *
 * One block works on one page: block b reads pages[b] and writes
 * results[b] and the page's slices of the chunk's output arrays (and its
 * own slices of the scratch tables: run tables, index and length scratch,
 * miniblock tables).
 *
 * Errors. A kernel never formats a message: it records what failed and
 * where in the page's pq_kerror, and the host (device/exec.c) turns
 * the record into PQ_ERR_CORRUPT_DATA (or PQ_ERR_UNSUPPORTED for
 * PQ_KF_OVERFLOW) with the page named. A structural failure (a malformed
 * run header, a truncated length) is found by the one thread that scans
 * the section and stops the section there; a failed check on a decoded
 * value (a level above its maximum, a dictionary index past the
 * dictionary) is found by whichever thread decodes it, and the first such
 * value by position wins (pq_katomic_min_u64 on bad_index).
 */
#ifndef PQ_KERNELS_K_TYPES_H
#define PQ_KERNELS_K_TYPES_H

#include <stdint.h>

/* "No index" in pq_kerror.bad_index. */
#define PQ_KNONE 0xffffffffffffffffull

/* Longest run accepted, as in rle.c: counts are int32 in other readers. */
#define PQ_KMAX_RUN 0x7fffffffu

/* How a level section is encoded (pq_kpage.rep_enc / def_enc). */
enum {
    PQ_KLEV_NONE = 0,      /* no section: the kernel leaves these levels alone */
    PQ_KLEV_RLE = 1,       /* RLE/bit-packed hybrid runs (the v1 length prefix already stripped) */
    PQ_KLEV_BIT_PACKED = 2 /* deprecated BIT_PACKED: n values MSB first, no header */
};

/* What the values kernel does with a page (pq_kpage.op). */
enum {
    PQ_KOP_NONE = 0,        /* nothing (no non-null value, or levels only) */
    PQ_KOP_PLAIN_FIXED = 1, /* PLAIN fixed width: copy */
    PQ_KOP_PLAIN_BOOL = 2,  /* PLAIN BOOLEAN: bits to bytes 0/1 */
    PQ_KOP_DICT_FIXED = 3,  /* dictionary indices, then gather of fixed-width entries */
    PQ_KOP_PLAIN_BYTES = 4, /* PLAIN BYTE_ARRAY: lengths walked (values kernel), bytes copied (bytes kernel) */
    PQ_KOP_DICT_BYTES = 5,  /* dictionary indices, entry lengths summed (values kernel), bytes copied */
    PQ_KOP_RLE_BOOL = 6,    /* RLE BOOLEAN: a 4-byte length, runs of bit width 1, to bytes 0/1 */
    PQ_KOP_BSS = 7,         /* BYTE_STREAM_SPLIT: value i gathered from the width streams */
    PQ_KOP_DELTA = 8,       /* DELTA_BINARY_PACKED INT32 / INT64 (width 4 / 8) */
    PQ_KOP_DELTA_LENGTH = 9, /* DELTA_LENGTH_BYTE_ARRAY: lengths (k_delta.h), offsets; bytes copied */
    PQ_KOP_DELTA_BYTES = 10, /* DELTA_BYTE_ARRAY into BYTE_ARRAY offsets and data */
    PQ_KOP_DELTA_FLBA = 11,  /* DELTA_BYTE_ARRAY into FIXED_LEN_BYTE_ARRAY values (every value `width` bytes) */
    PQ_KOP_DICT_INDEX = 12,  /* dictionary indices, checked, as the values (uint32: dictionary arrays out) */
    PQ_KOP_DICT_VIEWS = 13   /* dictionary indices, checked, each value its entry's string view (views
                              * into the dictionary's bytes, variadic buffer 1) */
};

/* What failed (pq_kerror.fail). at is a byte offset in the section,
 * count and index as said. */
enum {
    PQ_KF_NONE = 0,
    PQ_KF_RUN_HEADER,    /* truncated or overlong run header at `at` */
    PQ_KF_LITERAL_COUNT, /* bit-packed run of `count` groups (0 or too many) at `at` */
    PQ_KF_LITERAL_EMPTY, /* bit-packed run at `at` has no data */
    PQ_KF_RUN_COUNT,     /* RLE run of `count` values (0 or too many) at `at` */
    PQ_KF_RUN_VALUE,     /* RLE run value at `at` is truncated */
    PQ_KF_SHORT,         /* the runs end after `count` values: fewer than the page has */
    PQ_KF_TABLE,         /* more runs than the run table holds (cannot happen: sized from the bytes) */
    PQ_KF_BIT_WIDTH,     /* dictionary indices: bit width `count` is over 32 */
    PQ_KF_EMPTY,         /* dictionary indices: no bytes at all */
    PQ_KF_FIXED_SHORT,   /* PLAIN: the values need more than the `count` bytes present */
    PQ_KF_LEN_TRUNCATED, /* PLAIN BYTE_ARRAY: value `index`'s length truncated at `at` */
    PQ_KF_LEN_PAST_END,  /* PLAIN BYTE_ARRAY: value `index` of `count` bytes at `at` runs past the end */
    PQ_KF_OVERFLOW,      /* the page's string bytes (`count`) exceed int32 offsets */
    PQ_KF_PACKED_SHORT,  /* BIT_PACKED levels: the page's values need `count` bytes, fewer present */
    /* RLE booleans (their other failures are the run failures above) */
    PQ_KF_PREFIX_SHORT,  /* `count` bytes: too short for the 4-byte length */
    PQ_KF_PREFIX_LENGTH, /* the length `count` exceeds the `index` bytes left */
    /* BYTE_STREAM_SPLIT */
    PQ_KF_BSS_SIZE,      /* `count` bytes are not the page's values times the width */
    /* DELTA_BINARY_PACKED (`at`: a byte of the stream, k_delta.h) */
    PQ_KF_DELTA_VARINT,  /* truncated or overlong varint `index` (PQ_KDELTA_FIELD_*) at `at` */
    PQ_KF_DELTA_BLOCK,   /* block size `count` is not a positive multiple of 128 */
    PQ_KF_DELTA_MINIS,   /* `count` miniblocks in a block of `index`: not multiples of 32 values */
    PQ_KF_DELTA_TOTAL,   /* `count` values, more than the page's non-null values */
    PQ_KF_DELTA_WIDTHS,  /* a block's bit widths truncated at `at` */
    PQ_KF_DELTA_WIDTH,   /* a miniblock's bit width `count` is over 64 */
    PQ_KF_DELTA_DATA,    /* the miniblock at `at` needs `count` bytes, `index` present */
    PQ_KF_DELTA_COUNT,   /* `count` values decoded, other than the page's non-null values */
    /* DELTA_LENGTH_BYTE_ARRAY (alone, or the suffixes of DELTA_BYTE_ARRAY) */
    PQ_KF_LEN_NEGATIVE,  /* value `index` has the negative length `count` (int32 bits) */
    PQ_KF_LEN_BEYOND,    /* the values up to `index` need `count` bytes, `at` present */
    /* DELTA_BYTE_ARRAY */
    PQ_KF_PREFIX_COUNTS, /* `count` prefix lengths, `index` suffixes */
    PQ_KF_PREFIX_BAD,    /* value `index`'s prefix length `count` (int32 bits) is negative or over
                          * the previous value's `at` bytes */
    PQ_KF_DBA_OVERFLOW,  /* the values exceed int32 offsets */
    PQ_KF_FLBA_WIDTH     /* value `index` is `count` bytes (int32 bits), not the width */
};

/* One section's error record. Reset by the kernel that owns the section. */
typedef struct pq_kerror {
    uint32_t fail;                /* PQ_KF_*: the structural failure, if any */
    uint32_t pad;
    unsigned long long at;        /* byte in the section */
    unsigned long long count;     /* run length, values decoded, a length, a bit width */
    unsigned long long index;     /* the value concerned (PQ_KF_LEN_*) */
    unsigned long long bad_index; /* first value whose check failed, or PQ_KNONE */
    unsigned long long bad_value; /* that value (the level or the dictionary index) */
} pq_kerror;

/* One run of the RLE/bit-packed hybrid, as scanned: output positions
 * [first, first + count) of the section (count already cut to what the page
 * needs), and either the repeated value or where the packed bits start. */
typedef struct pq_krun {
    uint32_t first;
    uint32_t count;
    uint32_t data;    /* RLE: the value; bit-packed: byte offset in the section */
    uint32_t literal; /* 1: bit-packed */
} pq_krun;

/* One miniblock of a DELTA_BINARY_PACKED stream, as walked (k_delta.h):
 * miniblock m holds the stream's values 1 + m * per_mini, ... (value 0 is
 * the header's first value), each its block's min delta plus `bw` bits
 * from byte `data` of the stream. */
typedef struct pq_kmini {
    unsigned long long min_delta;
    uint32_t data;
    uint32_t bw;
} pq_kmini;

/* A DELTA_BINARY_PACKED stream of a page, as walked: where it starts in
 * the values section, the bytes it takes, its values and its miniblocks
 * (at pq_kpage.mini_at + stream * mini_cap in pq_kargs.minis). */
typedef struct pq_kdelta {
    unsigned long long first;   /* value 0 (two's complement bits) */
    unsigned long long total;   /* values */
    uint32_t at;                /* byte of the values section where the stream starts */
    uint32_t consumed;          /* bytes it takes (the next section starts at + consumed) */
    uint32_t per_mini;          /* values a miniblock */
    uint32_t nminis;            /* miniblocks walked */
} pq_kdelta;

/* A page, as the host prepared it. Byte offsets are into the launch's
 * page bytes (pq_kargs.bytes): every page decompressed, back to back. */
typedef struct pq_kpage {
    unsigned long long rep_at, def_at, val_at; /* the sections */
    uint32_t rep_len, def_len, val_len;
    uint8_t rep_enc, def_enc; /* PQ_KLEV_* */
    uint8_t op;               /* PQ_KOP_* */
    uint8_t pad;
    uint32_t n_levels;        /* level slots: the header's num_values */
    uint32_t n_values;        /* values: the non-null count (values and bytes kernels) */
    unsigned long long level_offset, value_offset, string_offset; /* where its output goes */
    unsigned long long runs_at;                /* run table: rep_cap, then def_cap, then val_cap entries */
    uint32_t rep_cap, def_cap, val_cap;
    uint32_t pad2;
    unsigned long long idx_at;                 /* PQ_KOP_DICT_BYTES: n_values indices kept here;
                                                * DELTA_LENGTH: the lengths; DELTA_BYTES / _FLBA: the
                                                * prefix lengths, then the suffix lengths */
    unsigned long long mini_at;                /* DELTA ops: miniblock tables, mini_cap a stream */
    uint32_t mini_cap;
    uint32_t pad3;
} pq_kpage;

/* What the kernels found in a page. */
typedef struct pq_kresult {
    pq_kerror rep, def, val;
    unsigned long long n_values;     /* levels kernel: definition levels equal to max_def */
    unsigned long long string_bytes; /* values kernel, byte arrays: the page's data bytes */
    uint32_t rep_runs, def_runs, val_runs; /* runs in the tables */
    uint32_t def_covered;            /* the first definition run repeats max_def over the whole page */
    uint32_t val_covered;            /* RLE booleans: values the runs cover (a failure stops them) */
    uint32_t data_at;                /* DELTA_LENGTH / DELTA_BYTES: the value bytes' start in the section */
    uint32_t pad, pad2;
    pq_kdelta delta[2];              /* DELTA ops: the streams (prefix lengths, then suffix lengths) */
    /* Checks made in parallel on decoded lengths: the first failing value
     * of each, or PQ_KNONE (DELTA_LENGTH, DELTA_BYTES, DELTA_FLBA). */
    unsigned long long first_negative; /* a negative (suffix) length */
    unsigned long long first_beyond;   /* the (suffix) lengths so far pass the bytes present */
    unsigned long long first_prefix;   /* a prefix length negative or past the previous value */
    unsigned long long first_overflow; /* the value lengths so far pass int32 */
    unsigned long long first_width;    /* a value of another length than the FLBA width */
} pq_kresult;

/* A launch's arguments (passed by value to a __global__ function). */
typedef struct pq_kargs {
    const pq_kpage *pages;
    pq_kresult *results;
    uint32_t npages;
    int16_t max_def, max_rep;
    uint32_t width;              /* bytes a fixed-width value */
    const uint8_t *bytes;        /* the page bytes */
    int16_t *def_levels;         /* the chunk's level arrays */
    int16_t *rep_levels;
    uint8_t *values;             /* fixed width: width bytes a value */
    int32_t *offsets;            /* byte arrays: n_values + 1 entries */
    uint8_t *data;
    uint8_t *views;              /* string views out: 16 bytes a value (NULL: offsets and data out) */
    const uint8_t *dict_values;  /* the dictionary, decoded: fixed-width entries */
    const int32_t *dict_offsets; /* or offsets (dict_n + 1) and data */
    const uint8_t *dict_data;
    uint32_t dict_n;
    pq_krun *runs;               /* run tables (pq_kpage.runs_at) */
    uint32_t *idx;               /* index and length scratch (pq_kpage.idx_at) */
    pq_kmini *minis;             /* miniblock tables (pq_kpage.mini_at) */
} pq_kargs;

/* Shared scratch a decode kernel needs per block: two 8-byte slots a
 * thread (two block scans at once). */
#define PQ_KSHARED_BYTES(nthreads) ((unsigned long long)(nthreads) * 16u)

#endif /* PQ_KERNELS_K_TYPES_H */
