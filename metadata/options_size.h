/*
 * options_size.h — taking in a caller's options struct that can grow.
 *
 * Public options structs begin with `uint32_t struct_size`, set by their
 * _init function to sizeof as the caller was compiled. They grow by
 * appending fields, so a caller built against an older header passes a
 * smaller struct (the fields past it keep their defaults) and one built
 * against a newer header a larger one (accepted when it sets nothing past
 * the fields this library knows). Internal to the library.
 */
#ifndef PQ_INTERNAL_OPTIONS_SIZE_H
#define PQ_INTERNAL_OPTIONS_SIZE_H

#include <stdint.h>
#include <string.h>

#include "metadata/error.h"

/* Copy the caller's struct `src` over `dst`, which holds the defaults and
 * is `known` bytes (this library's sizeof); `oldest` is the size of the
 * struct's first versioned layout. `what` names the struct in errors.
 * PQ_ERR_INVALID_ARGUMENT for a size of 0 (a struct not made by _init) or
 * below `oldest`; PQ_ERR_UNSUPPORTED for a newer caller's struct that
 * sets a field this library does not know. dst's struct_size is `known`. */
static inline pq_status pq_options_take(void *dst, size_t known, const void *src, size_t oldest, const char *what,
                                        pq_error *err)
{
    uint32_t size;
    memcpy(&size, src, sizeof size);
    if (size == 0)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "%s.struct_size is 0: fill the struct with %s_init() before setting its fields", what,
                            what);
    if (size < oldest)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "%s.struct_size %u is smaller than any pqstep's %s (%zu)",
                            what, size, what, oldest);
    for (size_t i = known; i < size; i++)
        if (((const unsigned char *)src)[i])
            return pq_error_set(err, PQ_ERR_UNSUPPORTED,
                                "%s sets a field at byte %zu that this pqstep (whose %s is %zu bytes) does not know",
                                what, i, what, known);
    memcpy(dst, src, size < known ? size : known);
    uint32_t k = (uint32_t)known;
    memcpy(dst, &k, sizeof k);
    return PQ_OK;
}

#endif
