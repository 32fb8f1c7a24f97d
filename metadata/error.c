#include "metadata/error.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const status_names[PQ_STATUS_COUNT] = {
    [PQ_OK] = "ok",
    [PQ_ERR_INVALID_ARGUMENT] = "invalid argument",
    [PQ_ERR_IO] = "I/O error",
    [PQ_ERR_NOT_PARQUET] = "not a Parquet file",
    [PQ_ERR_CORRUPT_FOOTER] = "corrupt footer",
    [PQ_ERR_SCHEMA] = "invalid schema",
    [PQ_ERR_ENCRYPTED] = "encrypted, key not given",
    [PQ_ERR_UNSUPPORTED] = "unsupported",
    [PQ_ERR_NOMEM] = "out of memory",
    [PQ_ERR_MEMORY_LIMIT] = "memory limit exceeded",
    [PQ_ERR_NEED_DATA] = "more data needed",
    [PQ_ERR_STAGE] = "wrong stage",
    [PQ_ERR_CORRUPT_DATA] = "corrupt data",
    [PQ_ERR_DECRYPT] = "decryption failed",
};

const char *pq_status_name(pq_status code)
{
    if ((unsigned)code < PQ_STATUS_COUNT && status_names[code]) return status_names[code];
    return "unknown status";
}

pq_status pq_error_set(pq_error *err, pq_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}
