/*
 * prune.h — what the select stage (stage_select.c) hands its pruning steps
 * that read (prune_dict.c, prune_bloom.c, prune_pages.c) and what they hand
 * back. The steps take only what they read and return their verdicts and
 * counts; the select stage alone writes the selection and its stats.
 */
#ifndef PQ_READER_PRUNE_H
#define PQ_READER_PRUNE_H

#include <stddef.h>
#include <stdint.h>

#include "predicate/predicate.h"
#include "pq_metadata.h"
#include "reader/supplied.h"

/* Bytes [offset, offset + len) of the file into dst. */
typedef pq_status (*pq_prune_read_fn)(void *user, uint64_t offset, size_t len, void *dst, pq_error *err);

typedef struct pq_prune_input {
    const pq_expr *filter;          /* the selection's filter, bound to md */
    const pq_metadata *md;
    uint64_t data_end;              /* the data region [4, data_end) every index lies in */
    uint64_t memory_limit;          /* opts.memory_limit (0: none): the largest dictionary read */
    const pq_supplied *supplied;    /* what a sans-IO caller handed in (the bloom step's range) */
    pq_prune_read_fn read;          /* reads for the select stage, counted there */
    void *read_user;
    const pq_decryption *keys;      /* opts.decryption: an encrypted column's indexes, dictionary and
                                     * bloom filter are decrypted with its key (none: not used) */
} pq_prune_input;

/* What the steps count, for the select stage's stats. */
typedef struct pq_prune_counts {
    uint64_t warnings;              /* indexes that could not be read or were malformed */
    uint64_t pages_considered;      /* page index: pages of the filter's columns judged */
    uint64_t pages_pruned;          /* ... of which hold none of the kept rows */
    /* An encrypted index, dictionary or bloom-filter module that failed
     * authentication (the first one): altered bytes fail the read, never
     * just the pruning step. PQ_OK when none. */
    pq_status tampered;
    pq_error tampered_err;
} pq_prune_counts;

/* Record a decryption failure in *counts (the first one is kept); true
 * when `st` was one. */
static inline bool pq_prune_tampered(pq_prune_counts *counts, pq_status st, const pq_error *err)
{
    if (st != PQ_ERR_DECRYPT) return false;
    if (counts->tampered == PQ_OK) {
        counts->tampered = st;
        counts->tampered_err = *err;
    }
    return true;
}

#endif
