/*
 * kernel_error.h — how the kernels layer reports an error: it fills the
 * caller's pq_error directly (the kernels layer sits below metadata/ and
 * cannot use metadata/error.h). Private to the .c files of kernels/.
 */
#ifndef PQ_KERNELS_KERNEL_ERROR_H
#define PQ_KERNELS_KERNEL_ERROR_H

#include <stdarg.h>
#include <stdio.h>

#include "pq_error.h"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline pq_status pq_kfail(pq_error *err, pq_status code, const char *fmt, ...)
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

#endif
