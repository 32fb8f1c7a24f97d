/*
 * json_path.h — a test oracle's step into a JSON value (jansson): what the
 * writers' renderings of variants hold at a path.
 */
#ifndef PQ_TEST_JSON_PATH_H
#define PQ_TEST_JSON_PATH_H

#include <jansson.h>

/* The value at `steps` (".a[1].b": fields by name, array elements from 0)
 * of JSON value v, or NULL where the path leads nowhere. Borrowed. */
json_t *pq_test_json_at(json_t *v, const char *steps);

#endif
