/*
 * geo.h — what bbox_intersects needs of geometries: the envelope (x and y
 * bounds) of a WKB value, and whether two boxes meet, either of them
 * possibly across the antimeridian (xmin > xmax), as Parquet's geospatial
 * statistics write a GEOGRAPHY's box.
 */
#ifndef PQ_PREDICATE_GEO_H
#define PQ_PREDICATE_GEO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

/* Nesting of geometry collections a WKB value may have. */
#define PQ_WKB_MAX_DEPTH 32

typedef struct pq_envelope {
    double xmin, ymin, xmax, ymax;
    bool empty;                 /* no coordinate (or only NaN ones): meets no box */
} pq_envelope;

/* The envelope of the WKB (ISO or extended: Z, M and ZM, SRID) value at
 * wkb (len bytes): every coordinate's x and y, NaN ones left out (an
 * empty point is written as NaNs). Points, line strings, polygons, their
 * multi forms and collections (PQ_WKB_MAX_DEPTH deep). With `geography`
 * (a GEOGRAPHY column: longitude, latitude on the sphere) x is the
 * shortest arc of longitudes that holds every vertex, xmin > xmax when it
 * crosses the antimeridian, as the format's statistics write it; else
 * the plain minimum and maximum. PQ_ERR_CORRUPT_DATA naming the byte for
 * a value cut short, an unknown type or byte order, counts the bytes
 * cannot hold, or bytes left over; PQ_ERR_NOMEM. */
pq_status pq_wkb_envelope(const uint8_t *wkb, size_t len, bool geography, pq_envelope *env, pq_error *err);

/* Whether box (xmin, ymin, xmax, ymax) meets box b (the same order):
 * closed intervals; an x range with xmin > xmax wraps (x >= xmin or
 * x <= xmax). NaN anywhere: true (nothing is known). */
bool pq_boxes_meet(const double a[4], const double b[4]);

#endif
