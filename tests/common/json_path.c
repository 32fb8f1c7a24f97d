/* json_path.c — see json_path.h. */
#include "json_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *pq_test_json_at(json_t *v, const char *steps)
{
    const char *p = steps;
    while (v && *p) {
        if (*p == '.') {
            size_t len = strcspn(p + 1, ".[");
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)len, p + 1);
            v = json_is_object(v) ? json_object_get(v, name) : NULL;
            p += 1 + len;
        } else {
            char *end;
            long i = strtol(p + 1, &end, 10);
            v = json_is_array(v) && i >= 0 ? json_array_get(v, (size_t)i) : NULL;
            p = *end ? end + 1 : end;
        }
    }
    return v;
}
