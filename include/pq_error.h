/*
 * pq_error.h — status codes and the error record every pqstep call fills.
 *
 * Every function that can fail takes a `pq_error *err` as its last argument.
 * On failure it returns an error status (or NULL) and, when `err` is not NULL,
 * writes the code and a one-line message into it. On success `err` is left
 * untouched. A `pq_error` is a plain value: keep it on the stack, one per
 * thread; pqstep never holds on to it.
 */
#ifndef PQ_ERROR_H
#define PQ_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the public API: the library is built with -fvisibility=hidden, so
 * only these symbols are exported from libpqstep.so. */
#if defined(__GNUC__) || defined(__clang__)
#define PQ_API __attribute__((visibility("default")))
#else
#define PQ_API
#endif

/* Status codes. PQ_OK is 0; every error is positive. */
typedef enum pq_status {
    PQ_OK = 0,
    PQ_ERR_INVALID_ARGUMENT, /* a caller passed NULL, an unknown option, an out-of-range index */
    PQ_ERR_IO,               /* open/read/stat failed; the message carries strerror() */
    PQ_ERR_NOT_PARQUET,      /* missing "PAR1" magic, or a file too short to hold a footer */
    PQ_ERR_CORRUPT_FOOTER,   /* the footer's Thrift is malformed; the message names struct and field */
    PQ_ERR_SCHEMA,           /* the schema element list does not form a valid tree */
    PQ_ERR_ENCRYPTED,        /* encrypted data whose key was not given (footer or column) */
    PQ_ERR_UNSUPPORTED,      /* a valid feature pqstep does not implement (named in the message) */
    PQ_ERR_NOMEM,            /* malloc failed */
    PQ_ERR_MEMORY_LIMIT,     /* a declared size exceeds the file size or the configured memory limit */
    PQ_ERR_NEED_DATA,        /* sans-IO: the stage needs byte ranges the caller has not supplied */
    PQ_ERR_STAGE,            /* the call does not fit the reader's current stage */
    PQ_ERR_CORRUPT_DATA,     /* pages or indexes are malformed (later stages) */
    PQ_ERR_DECRYPT,          /* an encrypted module failed authentication: a wrong key, a
                              * wrong AAD prefix, or altered or truncated bytes */
    PQ_STATUS_COUNT
} pq_status;

/* Room for the message; longer messages are cut, never overflow. */
#define PQ_ERROR_MESSAGE_SIZE 256

typedef struct pq_error {
    pq_status code;
    char message[PQ_ERROR_MESSAGE_SIZE];
} pq_error;

/* A short constant name for a status, e.g. "corrupt footer". Never NULL. */
PQ_API const char *pq_status_name(pq_status code);

#ifdef __cplusplus
}
#endif
#endif /* PQ_ERROR_H */
