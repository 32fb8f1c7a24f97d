/*
 * geo.c — WKB envelopes and box tests (geo.h).
 */
#include "predicate/geo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"

typedef struct wkb_reader {
    const uint8_t *p;
    size_t len, at;
    pq_envelope *env;
    pq_error *err;
    double *lons;               /* GEOGRAPHY: every longitude, for the shortest arc */
    size_t nlons, lons_cap;
    bool failed;                /* out of memory */
} wkb_reader;

static pq_status short_value(wkb_reader *r, const char *what)
{
    return pq_error_set(r->err, PQ_ERR_CORRUPT_DATA, "WKB: %s at byte %zu runs past the value's %zu bytes", what,
                        r->at, r->len);
}

static bool read_u32(wkb_reader *r, bool le, uint32_t *v)
{
    if (r->len - r->at < 4) return false;
    const uint8_t *b = r->p + r->at;
    *v = le ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
            : (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 | (uint32_t)b[0] << 24;
    r->at += 4;
    return true;
}

static double load_f64(const uint8_t *b, bool le)
{
    uint64_t u = 0;
    for (int k = 0; k < 8; k++) u |= (uint64_t)b[le ? k : 7 - k] << (8 * k);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* n points of `dims` coordinates each, added to the envelope. */
static pq_status points(wkb_reader *r, bool le, uint32_t n, unsigned dims)
{
    size_t size = (size_t)dims * 8;
    if (n > (r->len - r->at) / size) return short_value(r, "coordinates");
    for (uint32_t k = 0; k < n; k++, r->at += size) {
        double x = load_f64(r->p + r->at, le), y = load_f64(r->p + r->at + 8, le);
        if (isnan(x) || isnan(y)) continue;
        if (r->lons) {
            if (r->nlons == r->lons_cap) {
                double *more = realloc(r->lons, r->lons_cap * 2 * sizeof *more);
                if (!more) return pq_error_set(r->err, PQ_ERR_NOMEM, "WKB: out of memory for longitudes");
                r->lons = more;
                r->lons_cap *= 2;
            }
            r->lons[r->nlons++] = x;
        }
        pq_envelope *e = r->env;
        if (e->empty) {
            e->xmin = e->xmax = x;
            e->ymin = e->ymax = y;
            e->empty = false;
            continue;
        }
        e->xmin = x < e->xmin ? x : e->xmin;
        e->xmax = x > e->xmax ? x : e->xmax;
        e->ymin = y < e->ymin ? y : e->ymin;
        e->ymax = y > e->ymax ? y : e->ymax;
    }
    return PQ_OK;
}

static pq_status geometry(wkb_reader *r, int depth)
{
    if (depth > PQ_WKB_MAX_DEPTH)
        return pq_error_set(r->err, PQ_ERR_CORRUPT_DATA, "WKB: collections nested deeper than %d at byte %zu",
                            PQ_WKB_MAX_DEPTH, r->at);
    if (r->at >= r->len) return short_value(r, "a byte order");
    uint8_t order = r->p[r->at];
    if (order > 1)
        return pq_error_set(r->err, PQ_ERR_CORRUPT_DATA, "WKB: byte order %u at byte %zu (0 or 1 expected)", order,
                            r->at);
    r->at++;
    bool le = order == 1;
    uint32_t type;
    if (!read_u32(r, le, &type)) return short_value(r, "a geometry type");
    /* Extended WKB: flags in the high bits (Z, M, SRID); ISO: thousands. */
    bool z = type & 0x80000000u, m = type & 0x40000000u;
    if (type & 0x20000000u) { /* an SRID follows */
        uint32_t srid;
        if (!read_u32(r, le, &srid)) return short_value(r, "an SRID");
    }
    type &= 0x0fffffffu;
    uint32_t base = type % 1000, iso = type / 1000;
    if (iso > 3 || base < 1 || base > 7)
        return pq_error_set(r->err, PQ_ERR_CORRUPT_DATA, "WKB: unknown geometry type %u before byte %zu", type,
                            r->at);
    z |= iso == 1 || iso == 3;
    m |= iso == 2 || iso == 3;
    unsigned dims = 2 + z + m;
    uint32_t n, rings;
    switch (base) {
    case 1: return points(r, le, 1, dims); /* Point */
    case 2:                                /* LineString */
        if (!read_u32(r, le, &n)) return short_value(r, "a point count");
        return points(r, le, n, dims);
    case 3: /* Polygon: rings of points */
        if (!read_u32(r, le, &rings)) return short_value(r, "a ring count");
        if (rings > (r->len - r->at) / 4) return short_value(r, "rings");
        for (uint32_t k = 0; k < rings; k++) {
            if (!read_u32(r, le, &n)) return short_value(r, "a point count");
            pq_status st = points(r, le, n, dims);
            if (st != PQ_OK) return st;
        }
        return PQ_OK;
    default: /* the multi forms and collections: geometries, each with its own header */
        if (!read_u32(r, le, &n)) return short_value(r, "a geometry count");
        if (n > (r->len - r->at) / 5) return short_value(r, "geometries");
        for (uint32_t k = 0; k < n; k++) {
            pq_status st = geometry(r, depth + 1);
            if (st != PQ_OK) return st;
        }
        return PQ_OK;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The shortest arc of longitudes that holds them all: the circle less its
 * widest gap between neighbouring longitudes. */
static void shortest_arc(double *lons, size_t n, pq_envelope *env)
{
    qsort(lons, n, sizeof *lons, cmp_double);
    double widest = lons[0] + 360 - lons[n - 1]; /* the gap across the antimeridian: [min, max] */
    size_t at = n;
    for (size_t k = 0; k + 1 < n; k++)
        if (lons[k + 1] - lons[k] > widest) {
            widest = lons[k + 1] - lons[k];
            at = k;
        }
    if (at == n) return; /* env's [xmin, xmax] already */
    env->xmin = lons[at + 1];
    env->xmax = lons[at];
}

pq_status pq_wkb_envelope(const uint8_t *wkb, size_t len, bool geography, pq_envelope *env, pq_error *err)
{
    memset(env, 0, sizeof *env);
    env->empty = true;
    wkb_reader r = {wkb, len, 0, env, err, NULL, 0, 0, false};
    if (geography && !(r.lons = malloc(16 * sizeof *r.lons)))
        return pq_error_set(err, PQ_ERR_NOMEM, "WKB: out of memory for longitudes");
    r.lons_cap = 16;
    pq_status st = geometry(&r, 0);
    if (st == PQ_OK && r.at != len)
        st = pq_error_set(err, PQ_ERR_CORRUPT_DATA, "WKB: %zu bytes left over after the geometry's %zu", len - r.at,
                          r.at);
    if (st == PQ_OK && geography && r.nlons > 1) shortest_arc(r.lons, r.nlons, env);
    free(r.lons);
    return st;
}

/* Whether x ranges [a0, a1] and [b0, b1] meet, a range with lo > hi wrapping. */
static bool x_meet(double a0, double a1, double b0, double b1)
{
    bool wa = a0 > a1, wb = b0 > b1;
    if (wa && wb) return true; /* both hold the antimeridian */
    if (wa) return b1 >= a0 || b0 <= a1;
    if (wb) return a1 >= b0 || a0 <= b1;
    return a0 <= b1 && b0 <= a1;
}

bool pq_boxes_meet(const double a[4], const double b[4])
{
    for (int k = 0; k < 4; k++)
        if (isnan(a[k]) || isnan(b[k])) return true;
    return x_meet(a[0], a[2], b[0], b[2]) && a[1] <= b[3] && b[1] <= a[3];
}
