/*
 * variant_access.h — reading into a variant value: one object field, and a
 * primitive's value (what a filter on a path inside a VARIANT compares).
 */
#ifndef PQ_METADATA_VARIANT_ACCESS_H
#define PQ_METADATA_VARIANT_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

/* Field `name` (nlen bytes) of the variant (m, v): *field and *flen its
 * value's bytes inside v, or *field NULL when v is no object or has no
 * such field. The whole variant is checked first (pq_variant_validate):
 * PQ_ERR_CORRUPT_DATA as there. */
pq_status pq_variant_field(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen, const char *name, size_t nlen,
                           const uint8_t **field, size_t *flen, pq_error *err);

/* Element `index` of the variant array (m, v): *elem and *elen its bytes
 * inside v, or *elem NULL when v is no array or is shorter. Checked as
 * pq_variant_field. */
pq_status pq_variant_element(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen, uint64_t index,
                             const uint8_t **elem, size_t *elen, pq_error *err);

/* A primitive variant value, decoded. */
typedef enum pq_variant_kind {
    PQ_VK_NULL,
    PQ_VK_BOOL,      /* i: 0 or 1 */
    PQ_VK_INT,       /* i: int8..int64 */
    PQ_VK_DOUBLE,    /* d: float or double */
    PQ_VK_DECIMAL,   /* unscaled (16 bytes, little-endian two's complement) and scale */
    PQ_VK_STRING,    /* bytes, len (UTF-8) */
    PQ_VK_BINARY,    /* bytes, len */
    PQ_VK_DATE,      /* i: days since 1970-01-01 */
    PQ_VK_TIMESTAMP, /* i: ticks of unit_nanos (false: microseconds) since the epoch; utc */
    PQ_VK_TIME,      /* i: microseconds since midnight */
    PQ_VK_UUID,      /* bytes (16) */
    PQ_VK_OTHER      /* an object or an array */
} pq_variant_kind;

typedef struct pq_variant_scalar {
    pq_variant_kind kind;
    int64_t i;
    double d;
    uint8_t unscaled[16];
    int scale;
    const uint8_t *bytes;
    size_t len;
    bool utc, unit_nanos;
} pq_variant_scalar;

/* Decode the value at v (vlen bytes, checked already: from
 * pq_variant_field or a validated variant). */
void pq_variant_scalar_of(const uint8_t *v, size_t vlen, pq_variant_scalar *out);

#endif
