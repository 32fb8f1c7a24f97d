/*
 * metadata_cache.c — the thread-safe, byte-bounded LRU cache of pq_cache.h.
 *
 * One mutex guards everything: a chained hash table (power-of-two buckets,
 * grows at load factor 3/4) keyed by a copy of the caller's key bytes, and an
 * intrusive doubly-linked LRU list of the entries that hold metadata.
 *
 * Single-flight loads: a miss in get_or_load inserts a placeholder entry that
 * points to a `cache_flight`, drops the lock and calls the loader. Threads
 * asking for the same key meanwhile find the placeholder and sleep on the
 * cache's condition variable until the flight is done. The flight, not the
 * placeholder, carries the result, so waiters still get it when the entry is
 * not kept (too large, erased or replaced by a put during the load).
 *
 * Metadata dropped from the cache is released after the lock is let go, so
 * that freeing a large footer never stalls other threads.
 */
#include "pq_cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "metadata/error.h"

#define CACHE_INITIAL_BUCKETS 16

typedef struct cache_flight cache_flight;

typedef struct cache_entry {
    struct cache_entry *hnext;  /* hash chain; reused to chain entries to free */
    struct cache_entry *prev;   /* LRU list, most recent first (ready entries only) */
    struct cache_entry *next;
    uint64_t hash;
    pq_metadata *md;            /* the cache's reference; NULL while loading */
    size_t bytes;               /* pq_metadata_memory_size(md) */
    cache_flight *flight;       /* non-NULL: a placeholder for a load in progress */
    size_t key_len;
    uint8_t key[];
} cache_entry;

/* One load in progress. Shared by the loading thread and its waiters; the
 * last of them to leave frees it. Fields are guarded by the cache's mutex. */
struct cache_flight {
    cache_entry *entry;  /* the placeholder; NULL once a put or erase took it */
    unsigned users;      /* the loader plus the waiters still to read the result */
    bool done;
    pq_metadata *md;     /* the result (own reference), or NULL and `err` */
    pq_error err;
};

struct pq_metadata_cache {
    pthread_mutex_t lock;
    pthread_cond_t loaded;  /* broadcast whenever a flight completes */
    cache_entry **buckets;
    size_t nbuckets;        /* a power of two */
    size_t nslots;          /* entries in the table, placeholders included */
    cache_entry *lru_head;  /* most recently used */
    cache_entry *lru_tail;  /* next victim */
    size_t max_bytes;
    uint64_t hits, misses, loads, evictions, entries, bytes;
};

/* ---------------------------------------------------------------------------
 * Hashing and the table
 * ------------------------------------------------------------------------- */

/* FNV-1a over the key, then a murmur-style finalizer so that the low bits we
 * mask with are well mixed even for keys that differ only at the end. */
static uint64_t key_hash(const uint8_t *key, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= key[i];
        h *= 0x100000001b3ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static inline size_t bucket_of(const pq_metadata_cache *c, uint64_t hash)
{
    return (size_t)hash & (c->nbuckets - 1);
}

static cache_entry *table_find(pq_metadata_cache *c, const void *key, size_t key_len,
                               uint64_t hash)
{
    for (cache_entry *e = c->buckets[bucket_of(c, hash)]; e; e = e->hnext) {
        if (e->hash == hash && e->key_len == key_len &&
            (key_len == 0 || memcmp(e->key, key, key_len) == 0))
            return e;
    }
    return NULL;
}

/* Double the bucket array. On allocation failure the table just stays
 * denser: chains get longer, nothing breaks. */
static void table_grow(pq_metadata_cache *c)
{
    size_t n = c->nbuckets * 2;
    cache_entry **nb = calloc(n, sizeof *nb);
    if (!nb) return;
    for (size_t i = 0; i < c->nbuckets; i++) {
        cache_entry *e = c->buckets[i];
        while (e) {
            cache_entry *next = e->hnext;
            size_t b = (size_t)e->hash & (n - 1);
            e->hnext = nb[b];
            nb[b] = e;
            e = next;
        }
    }
    free(c->buckets);
    c->buckets = nb;
    c->nbuckets = n;
}

static void table_insert(pq_metadata_cache *c, cache_entry *e)
{
    if (c->nslots + 1 > c->nbuckets / 4 * 3) table_grow(c);
    size_t b = bucket_of(c, e->hash);
    e->hnext = c->buckets[b];
    c->buckets[b] = e;
    c->nslots++;
}

static void table_unlink(pq_metadata_cache *c, cache_entry *e)
{
    cache_entry **pp = &c->buckets[bucket_of(c, e->hash)];
    while (*pp != e) pp = &(*pp)->hnext;
    *pp = e->hnext;
    e->hnext = NULL;
    c->nslots--;
}

static cache_entry *entry_new(const void *key, size_t key_len, uint64_t hash)
{
    cache_entry *e = calloc(1, sizeof *e + key_len);
    if (!e) return NULL;
    e->hash = hash;
    e->key_len = key_len;
    if (key_len) memcpy(e->key, key, key_len);
    return e;
}

/* ---------------------------------------------------------------------------
 * The LRU list and the byte bound
 * ------------------------------------------------------------------------- */

static void lru_unlink(pq_metadata_cache *c, cache_entry *e)
{
    if (e->prev) e->prev->next = e->next; else c->lru_head = e->next;
    if (e->next) e->next->prev = e->prev; else c->lru_tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_push_front(pq_metadata_cache *c, cache_entry *e)
{
    e->prev = NULL;
    e->next = c->lru_head;
    if (c->lru_head) c->lru_head->prev = e; else c->lru_tail = e;
    c->lru_head = e;
}

static inline void lru_touch(pq_metadata_cache *c, cache_entry *e)
{
    if (c->lru_head == e) return;
    lru_unlink(c, e);
    lru_push_front(c, e);
}

/* Take a ready entry out of the table and the list and queue it on `*dead`
 * for release once the lock is dropped. */
static void entry_drop(pq_metadata_cache *c, cache_entry *e, cache_entry **dead)
{
    table_unlink(c, e);
    lru_unlink(c, e);
    c->entries--;
    c->bytes -= e->bytes;
    e->hnext = *dead;
    *dead = e;
}

/* Make `e` (already in the table, not in the list) a ready entry holding a
 * new reference to `md`, then evict from the cold end until within bounds.
 * The caller has checked that `bytes` <= max_bytes, so `e` itself survives. */
static void entry_publish(pq_metadata_cache *c, cache_entry *e, pq_metadata *md, size_t bytes,
                          cache_entry **dead)
{
    e->md = pq_metadata_retain(md);
    e->bytes = bytes;
    lru_push_front(c, e);
    c->entries++;
    c->bytes += bytes;
    while (c->bytes > c->max_bytes && c->lru_tail != e) {
        entry_drop(c, c->lru_tail, dead);
        c->evictions++;
    }
}

/* Release what entry_drop queued. Called without the lock. */
static void free_dead(cache_entry *dead)
{
    while (dead) {
        cache_entry *next = dead->hnext;
        pq_metadata_release(dead->md);
        free(dead);
        dead = next;
    }
}

/* A put or erase takes over a placeholder: the load goes on, its waiters
 * still get its result, but it will not be stored under this key. */
static inline void flight_detach(cache_entry *e)
{
    e->flight->entry = NULL;
    e->flight = NULL;
}

/* ---------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------- */

pq_metadata_cache *pq_metadata_cache_create(size_t max_bytes, pq_error *err)
{
    pq_metadata_cache *c = calloc(1, sizeof *c);
    if (!c) goto nomem;
    c->buckets = calloc(CACHE_INITIAL_BUCKETS, sizeof *c->buckets);
    if (!c->buckets) goto nomem;
    c->nbuckets = CACHE_INITIAL_BUCKETS;
    c->max_bytes = max_bytes;
    if (pthread_mutex_init(&c->lock, NULL) != 0) goto nomem;
    if (pthread_cond_init(&c->loaded, NULL) != 0) {
        pthread_mutex_destroy(&c->lock);
        goto nomem;
    }
    return c;
nomem:
    if (c) free(c->buckets);
    free(c);
    pq_error_set(err, PQ_ERR_NOMEM, "metadata cache: out of memory");
    return NULL;
}

void pq_metadata_cache_destroy(pq_metadata_cache *c)
{
    if (!c) return;
    /* No call may race destroy, so no load is in flight and every entry in
     * the table is a ready one. */
    for (size_t i = 0; i < c->nbuckets; i++) {
        cache_entry *e = c->buckets[i];
        while (e) {
            cache_entry *next = e->hnext;
            pq_metadata_release(e->md);
            free(e);
            e = next;
        }
    }
    free(c->buckets);
    pthread_cond_destroy(&c->loaded);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

pq_metadata *pq_metadata_cache_get(pq_metadata_cache *c, const void *key, size_t key_len)
{
    if (!c || (!key && key_len)) return NULL;
    uint64_t h = key_hash(key, key_len);
    pq_metadata *md = NULL;
    pthread_mutex_lock(&c->lock);
    cache_entry *e = table_find(c, key, key_len, h);
    if (e && e->md) {
        lru_touch(c, e);
        md = pq_metadata_retain(e->md);
        c->hits++;
    } else {
        c->misses++; /* absent, or still loading: get never waits */
    }
    pthread_mutex_unlock(&c->lock);
    return md;
}

pq_status pq_metadata_cache_put(pq_metadata_cache *c, const void *key, size_t key_len,
                                pq_metadata *md, pq_error *err)
{
    if (!c || !md || (!key && key_len))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "metadata cache put: NULL cache, metadata or key");
    size_t bytes = pq_metadata_memory_size(md);
    uint64_t h = key_hash(key, key_len);
    cache_entry *dead = NULL;
    pq_metadata *old = NULL;
    pq_status st = PQ_OK;

    pthread_mutex_lock(&c->lock);
    cache_entry *e = table_find(c, key, key_len, h);
    if (e && e->flight) {
        flight_detach(e); /* a put wins over a load in progress */
    } else if (e) {
        /* Replace: the old value goes whatever happens to the new one. */
        old = e->md;
        e->md = NULL;
        lru_unlink(c, e);
        c->entries--;
        c->bytes -= e->bytes;
        e->bytes = 0;
    }
    /* Here `e` is NULL or an empty entry in the table. */
    if (bytes > c->max_bytes) {
        if (e) {
            table_unlink(c, e);
            free(e);
        }
    } else {
        if (!e) {
            e = entry_new(key, key_len, h);
            if (!e) {
                st = pq_error_set(err, PQ_ERR_NOMEM, "metadata cache put: out of memory");
                goto out;
            }
            table_insert(c, e);
        }
        entry_publish(c, e, md, bytes, &dead);
    }
out:
    pthread_mutex_unlock(&c->lock);
    pq_metadata_release(old);
    free_dead(dead);
    return st;
}

pq_metadata *pq_metadata_cache_get_or_load(pq_metadata_cache *c, const void *key,
                                           size_t key_len, pq_metadata_loader load,
                                           void *user, int *was_hit, pq_error *err)
{
    if (was_hit) *was_hit = 0;
    if (!c || !load || (!key && key_len)) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                     "metadata cache get_or_load: NULL cache, loader or key");
        return NULL;
    }
    uint64_t h = key_hash(key, key_len);
    pq_metadata *md = NULL;
    cache_entry *dead = NULL;

    pthread_mutex_lock(&c->lock);
    cache_entry *e = table_find(c, key, key_len, h);
    if (e && e->md) {
        lru_touch(c, e);
        md = pq_metadata_retain(e->md);
        c->hits++;
        pthread_mutex_unlock(&c->lock);
        if (was_hit) *was_hit = 1;
        return md;
    }

    if (e) {
        /* Someone is loading this key: wait for their result. */
        cache_flight *f = e->flight;
        c->hits++;
        f->users++;
        while (!f->done) pthread_cond_wait(&c->loaded, &c->lock);
        if (f->md) md = pq_metadata_retain(f->md);
        else if (err) *err = f->err;
        bool last = --f->users == 0;
        pthread_mutex_unlock(&c->lock);
        if (last) {
            pq_metadata_release(f->md);
            free(f);
        }
        if (was_hit) *was_hit = 1;
        return md;
    }

    /* A miss: put up a placeholder and load without the lock. */
    cache_flight *f = calloc(1, sizeof *f);
    e = f ? entry_new(key, key_len, h) : NULL;
    if (!e) {
        pthread_mutex_unlock(&c->lock);
        free(f);
        pq_error_set(err, PQ_ERR_NOMEM, "metadata cache get_or_load: out of memory");
        return NULL;
    }
    f->entry = e;
    f->users = 1;
    e->flight = f;
    table_insert(c, e);
    c->misses++;
    c->loads++;
    pthread_mutex_unlock(&c->lock);

    pq_error lerr = {PQ_OK, ""};
    md = load(user, &lerr);
    if (!md && lerr.code == PQ_OK)
        pq_error_set(&lerr, PQ_ERR_INVALID_ARGUMENT,
                     "metadata cache: the loader failed without an error");
    size_t bytes = md ? pq_metadata_memory_size(md) : 0;

    pthread_mutex_lock(&c->lock);
    e = f->entry; /* NULL when a put or erase took the placeholder meanwhile */
    if (e) {
        e->flight = NULL;
        if (md && bytes <= c->max_bytes) {
            entry_publish(c, e, md, bytes, &dead);
        } else {
            /* A failed load leaves nothing behind, so a later call retries. */
            table_unlink(c, e);
            free(e);
        }
    }
    f->entry = NULL;
    f->done = true;
    if (md) f->md = pq_metadata_retain(md);
    else f->err = lerr;
    bool last = --f->users == 0;
    if (!last) pthread_cond_broadcast(&c->loaded);
    pthread_mutex_unlock(&c->lock);

    if (last) {
        pq_metadata_release(f->md);
        free(f);
    }
    free_dead(dead);
    if (!md && err) *err = lerr;
    return md;
}

int pq_metadata_cache_erase(pq_metadata_cache *c, const void *key, size_t key_len)
{
    if (!c || (!key && key_len)) return 0;
    uint64_t h = key_hash(key, key_len);
    cache_entry *dead = NULL;
    int removed = 0;
    pthread_mutex_lock(&c->lock);
    cache_entry *e = table_find(c, key, key_len, h);
    if (e && e->flight) {
        /* The value being loaded may be what the caller wants gone (a
         * rewritten file): its waiters get it, the cache does not keep it. */
        flight_detach(e);
        table_unlink(c, e);
        free(e);
    } else if (e) {
        entry_drop(c, e, &dead);
        removed = 1;
    }
    pthread_mutex_unlock(&c->lock);
    free_dead(dead);
    return removed;
}

void pq_metadata_cache_get_stats(pq_metadata_cache *c, pq_metadata_cache_stats *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!c) return;
    pthread_mutex_lock(&c->lock);
    out->hits = c->hits;
    out->misses = c->misses;
    out->loads = c->loads;
    out->evictions = c->evictions;
    out->entries = c->entries;
    out->bytes = c->bytes;
    out->max_bytes = c->max_bytes;
    pthread_mutex_unlock(&c->lock);
}

/* ---------------------------------------------------------------------------
 * File identity keys
 * ------------------------------------------------------------------------- */

static inline uint8_t *put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
    return p + 8;
}

size_t pq_metadata_cache_key_for_path(const char *path, void *buf, size_t cap, pq_error *err)
{
    if (!path) {
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "metadata cache key: NULL path");
        return 0;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        char msg[128];
        if (strerror_r(e, msg, sizeof msg) != 0) msg[0] = '\0';
        pq_error_set(err, PQ_ERR_IO, "stat %s: %s", path, msg);
        return 0;
    }
    size_t plen = strlen(path);
    size_t need = plen + 1 + 8 + 1 + 8;
    if (!buf || cap < need) return need;

    uint64_t mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
    uint8_t *p = buf;
    memcpy(p, path, plen);
    p += plen;
    *p++ = '\0';
    p = put_le64(p, (uint64_t)st.st_size);
    *p++ = '\0';
    put_le64(p, mtime_ns);
    return need;
}
