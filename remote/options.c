/*
 * options.c — pq_remote_options' defaults and their checks (options.h).
 */
#include <string.h>

#include "metadata/options_size.h"
#include "remote/options.h"

void pq_remote_options_init(pq_remote_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->max_connections = 8;
    o->max_retries = 4;
    o->retry_base_ms = 50;
    o->request_timeout_ms = 30000;
    o->connect_timeout_ms = 5000;
    o->tail_bytes = 65536;
    o->verify_tls = true;
}

/* The first versioned layout of pq_remote_options (pqstep 0.1). */
#define REMOTE_OPTIONS_OLDEST_SIZE sizeof(pq_remote_options)

static pq_status options_check(const pq_remote_options *o, pq_error *err)
{
    if (o->max_connections < 1 || o->max_connections > 64)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "max_connections is %u; it must be 1 to 64",
                            o->max_connections);
    if (o->tail_bytes > (16u << 20))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "tail_bytes is %u; at most 16 MiB", o->tail_bytes);
    if (o->addressing > PQ_S3_ADDRESSING_VIRTUAL)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "unknown S3 addressing %u", o->addressing);
    if (o->max_retries > 100)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "max_retries is %u; at most 100", o->max_retries);
    return PQ_OK;
}

pq_status pq_remote_options_take(pq_remote_options *dst, const pq_remote_options *src, pq_error *err)
{
    pq_remote_options_init(dst);
    pq_status st =
        src ? pq_options_take(dst, sizeof *dst, src, REMOTE_OPTIONS_OLDEST_SIZE, "pq_remote_options", err) : PQ_OK;
    return st == PQ_OK ? options_check(dst, err) : st;
}
