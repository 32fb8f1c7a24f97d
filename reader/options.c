/*
 * options.c — the reader's default options and the taking in of a
 * caller's (see options.h).
 */
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "metadata/options_size.h"
#include "reader/options.h"

/* The first versioned layout of pq_reader_options (pqstep 0.1): every
 * later one is larger. */
#define READER_OPTIONS_OLDEST_SIZE (offsetof(pq_reader_options, device_file_size) + sizeof(uint64_t))

uint64_t pq_default_memory_limit(void)
{
    const uint64_t floor = 256ull << 20, ceiling = 1ull << 30;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return ceiling;
    uint64_t quarter = (uint64_t)pages / 4 * (uint64_t)page;
    return quarter < floor ? floor : quarter > ceiling ? ceiling : quarter;
}

void pq_reader_options_init(pq_reader_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->struct_size = sizeof *opts;
    opts->memory_limit = pq_default_memory_limit();
    opts->int96_unit = PQ_UNIT_NANOS;
    opts->follow_arrow_schema = true; /* as pyarrow reads: the writer's own types */
}

pq_status pq_reader_options_take(pq_reader_options *dst, const pq_reader_options *src, pq_error *err)
{
    pq_reader_options_init(dst);
    if (!src) return PQ_OK;
    return pq_options_take(dst, sizeof *dst, src, READER_OPTIONS_OLDEST_SIZE, "pq_reader_options", err);
}
