/*
 * pq_cache.h — a thread-safe, byte-bounded LRU cache of parsed footers.
 *
 * Keys are opaque byte strings. pqstep's own key for a path is
 * "path \0 size \0 mtime_ns" (pq_metadata_cache_key_for_path), so a file that
 * is rewritten in place gets a new key; a caller may use any key of its own
 * (an object-store ETag, a content hash).
 *
 * Concurrency: every function may be called from any thread. Loading through
 * pq_metadata_cache_get_or_load() is single-flight: when several threads ask
 * for the same missing key at once, one parses and the others wait for its
 * result, so a footer is never parsed twice while it stays cached.
 */
#ifndef PQ_CACHE_H
#define PQ_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pq_metadata_cache pq_metadata_cache;

typedef struct pq_metadata_cache_stats {
    uint64_t hits;       /* lookups answered from the cache (waiters on a load count as hits) */
    uint64_t misses;     /* lookups that found nothing */
    uint64_t loads;      /* loader calls made by get_or_load (failed ones too) */
    uint64_t evictions;  /* entries dropped to respect max_bytes */
    uint64_t entries;    /* entries now held */
    uint64_t bytes;      /* pq_metadata_memory_size() of the entries now held */
    uint64_t max_bytes;
} pq_metadata_cache_stats;

/* Create a cache bounded by `max_bytes` of metadata (sum of
 * pq_metadata_memory_size()). An entry of exactly max_bytes is kept; a larger
 * one is not (a put of it returns PQ_OK, drops any older value under that key
 * and does not count as an eviction).
 * Returns NULL and fills `err` on allocation failure. */
PQ_API pq_metadata_cache *pq_metadata_cache_create(size_t max_bytes, pq_error *err);

/* Destroy the cache and release its references. Metadata handed out earlier
 * stays valid for those who hold references. Must not race other calls. */
PQ_API void pq_metadata_cache_destroy(pq_metadata_cache *cache);

/* Look up `key`. On a hit, returns the metadata with a new reference the
 * caller must release, and marks the entry most recently used. NULL on a miss.
 * Never waits: a key whose load is in flight counts as a miss here. */
PQ_API pq_metadata *pq_metadata_cache_get(pq_metadata_cache *cache, const void *key, size_t key_len);

/* Insert or replace `key` -> `md`. The cache takes its own reference; the
 * caller keeps theirs. Evicts least recently used entries beyond max_bytes. */
PQ_API pq_status pq_metadata_cache_put(pq_metadata_cache *cache, const void *key, size_t key_len,
                                pq_metadata *md, pq_error *err);

/* Called by get_or_load on a miss; returns a new reference or NULL + err. */
typedef pq_metadata *(*pq_metadata_loader)(void *user, pq_error *err);

/* Look up `key`; on a miss call `load(user, err)` once (single-flight across
 * threads), insert the result and return it. Returns a new reference, or NULL
 * with the loader's error (waiters get the same error; failures are not
 * cached, so a later call retries). `*was_hit`, when not NULL, says whether
 * no parse happened for this call. A put or erase of the same key while the
 * load runs wins: waiters still get the load's result, but it is not stored.
 * The loader runs without the cache's lock held and may use the cache. */
PQ_API pq_metadata *pq_metadata_cache_get_or_load(pq_metadata_cache *cache, const void *key,
                                           size_t key_len, pq_metadata_loader load,
                                           void *user, int *was_hit, pq_error *err);

/* Drop `key` if present. Returns 1 if an entry was removed, else 0. */
PQ_API int pq_metadata_cache_erase(pq_metadata_cache *cache, const void *key, size_t key_len);

/* Counters and occupancy, read atomically together. */
PQ_API void pq_metadata_cache_get_stats(pq_metadata_cache *cache, pq_metadata_cache_stats *out);

/* Build the identity key of a file: path, size and modification time in
 * nanoseconds. Writes at most `cap` bytes to `buf` and returns the key length,
 * or 0 with PQ_ERR_IO in `err` when stat() fails, or the length needed when
 * `cap` is too small (nothing is written then). */
PQ_API size_t pq_metadata_cache_key_for_path(const char *path, void *buf, size_t cap, pq_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PQ_CACHE_H */
