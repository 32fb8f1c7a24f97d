/* file_map.c — mappings of local files kept for the next reader (file_map.h). */
#include "reader/file_map.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "pq_reader.h"

/* Entries in use and idle together; past this, a mapping is not kept. */
#define MAX_ENTRIES 64

struct pq_file_map {
    dev_t dev;
    ino_t ino;
    uint64_t size;
    int64_t mtime_ns;
    const uint8_t *map; /* NULL: a free slot */
    unsigned refs;
    uint64_t idle_since_ns;
};

static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static pq_file_map maps[MAX_ENTRIES];
static unsigned idle_limit = PQ_FILE_MAPS_DEFAULT;
static uint64_t idle_ns = PQ_FILE_MAP_IDLE_NS;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Mappings taken out of the table under the lock, unmapped after it. */
typedef struct {
    const uint8_t *map[MAX_ENTRIES];
    uint64_t size[MAX_ENTRIES];
    unsigned n;
} drop_list;

static void drop_entry(pq_file_map *e, drop_list *d)
{
    d->map[d->n] = e->map;
    d->size[d->n] = e->size;
    d->n++;
    e->map = NULL;
}

static void unmap_all(const drop_list *d)
{
    for (unsigned i = 0; i < d->n; i++) munmap((void *)d->map[i], (size_t)d->size[i]);
}

/* Under the lock: idle entries past their time dropped, then the longest
 * idle until at most `limit` are left. */
static void trim(uint64_t now, unsigned limit, drop_list *d)
{
    unsigned idle = 0;
    for (int i = 0; i < MAX_ENTRIES; i++) {
        pq_file_map *e = &maps[i];
        if (!e->map || e->refs) continue;
        if (now - e->idle_since_ns >= idle_ns) drop_entry(e, d);
        else idle++;
    }
    while (idle > limit) {
        pq_file_map *oldest = NULL;
        for (int i = 0; i < MAX_ENTRIES; i++)
            if (maps[i].map && !maps[i].refs && (!oldest || maps[i].idle_since_ns < oldest->idle_since_ns))
                oldest = &maps[i];
        drop_entry(oldest, d);
        idle--;
    }
}

static bool same_file(const pq_file_map *e, const struct stat *st)
{
    return e->dev == st->st_dev && e->ino == st->st_ino;
}

static int64_t mtime_of(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

static bool same_identity(const pq_file_map *e, const struct stat *st, uint64_t size)
{
    return same_file(e, st) && e->size == size && e->mtime_ns == mtime_of(st);
}

/* Under the lock: the kept mapping of this identity (one more holder), or
 * NULL; idle mappings of an older identity of the same file dropped. */
static pq_file_map *find(const struct stat *st, uint64_t size, drop_list *d)
{
    pq_file_map *hit = NULL;
    for (int i = 0; i < MAX_ENTRIES; i++) {
        pq_file_map *e = &maps[i];
        if (!e->map || !same_file(e, st)) continue;
        if (same_identity(e, st, size)) {
            if (!hit) hit = e;
        } else if (!e->refs) {
            drop_entry(e, d);
        }
    }
    if (hit) hit->refs++;
    return hit;
}

const uint8_t *pq_file_map_acquire(int fd, uint64_t size, pq_file_map **entry)
{
    *entry = NULL;
    struct stat st;
    if (size == 0 || size > SIZE_MAX || fstat(fd, &st) != 0 || (uint64_t)st.st_size != size) return NULL;
    drop_list d = {.n = 0};
    pthread_mutex_lock(&maps_lock);
    trim(now_ns(), idle_limit, &d);
    pq_file_map *e = idle_limit ? find(&st, size, &d) : NULL;
    pthread_mutex_unlock(&maps_lock);
    unmap_all(&d);
    if (e) {
        *entry = e;
        return e->map;
    }
    void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return NULL;
    d.n = 0;
    pthread_mutex_lock(&maps_lock);
    if (idle_limit) {
        /* Another reader may have mapped the file meanwhile: share its. */
        if ((e = find(&st, size, &d)) == NULL) {
            for (int i = 0; i < MAX_ENTRIES && !e; i++)
                if (!maps[i].map) e = &maps[i];
            if (e) {
                *e = (pq_file_map){.dev = st.st_dev, .ino = st.st_ino, .size = size, .mtime_ns = mtime_of(&st),
                                   .map = m, .refs = 1};
                m = NULL;
            }
        }
    }
    pthread_mutex_unlock(&maps_lock);
    unmap_all(&d);
    if (e) {
        if (m) munmap(m, (size_t)size); /* the shared one serves */
        *entry = e;
        return e->map;
    }
    return m; /* not kept: the caller's own */
}

void pq_file_map_release(pq_file_map *entry, const uint8_t *map, uint64_t size)
{
    if (!map) return;
    if (!entry) {
        munmap((void *)map, (size_t)size);
        return;
    }
    drop_list d = {.n = 0};
    uint64_t now = now_ns();
    pthread_mutex_lock(&maps_lock);
    if (--entry->refs == 0) entry->idle_since_ns = now;
    trim(now, idle_limit, &d);
    pthread_mutex_unlock(&maps_lock);
    unmap_all(&d);
}

/* limit or ns set (the other NULL), then the idle ones trimmed to them. */
static void set_and_trim(const unsigned *limit, const uint64_t *ns)
{
    drop_list d = {.n = 0};
    pthread_mutex_lock(&maps_lock);
    if (limit) idle_limit = *limit;
    if (ns) idle_ns = *ns;
    trim(now_ns(), idle_limit, &d);
    pthread_mutex_unlock(&maps_lock);
    unmap_all(&d);
}

void pq_file_maps_set_limit(unsigned count)
{
    set_and_trim(&count, NULL);
}

void pq_file_map_set_idle_ns(uint64_t ns)
{
    set_and_trim(NULL, &ns);
}

unsigned pq_file_maps_idle(void)
{
    unsigned n = 0;
    pthread_mutex_lock(&maps_lock);
    for (int i = 0; i < MAX_ENTRIES; i++) n += maps[i].map && !maps[i].refs;
    pthread_mutex_unlock(&maps_lock);
    return n;
}
