/*
 * parallel.h — run n independent tasks on a few threads.
 *
 * The stages' pool: helper threads are started once for the process, on
 * first need, and wait for work between calls (starting threads per call
 * cost more than one small row group's decode). One call at a time runs
 * on them; a call that finds them busy (another reader's, or a nested
 * call) starts threads of its own and joins them before it returns. A
 * forked child starts its own. Tasks are handed out in index order from one
 * atomic counter, which balances uneven tasks (a wide string chunk next to
 * a boolean one).
 */
#ifndef PQ_READER_PARALLEL_H
#define PQ_READER_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>

/* Run task(ctx, i, worker) for every i in [0, n); `worker` (0 .. threads-1)
 * names the thread running it, for per-thread state such as codec
 * contexts (PQ_PARALLEL_MAX_THREADS at most). The task returns false to ask
 * that tasks after i be skipped (an error: their results would be thrown
 * away); tasks before i, and any already running, still complete.
 * `threads` 0 means one per online core; it is capped at n. The calling
 * thread works too, and runs everything alone when threads is 1 or a
 * thread cannot be started. Returns the number of threads used. */
#define PQ_PARALLEL_MAX_THREADS 64

/* Below this many bytes of input, a stage runs on the calling thread:
 * waking the helpers costs more than they save on a tiny row group. (It
 * was 1 MiB, from when threads were started per call; with the helpers
 * waiting, one call per 2,000-row row group of the 61-row-group sample,
 * 75 KB each, took 19.8 ms on one thread against 17.5 ms on two.) */
#define PQ_PARALLEL_MIN_BYTES (64u << 10)

unsigned pq_parallel_for(size_t n, unsigned threads, bool (*task)(void *ctx, size_t i, unsigned worker),
                         void *ctx);

/* Online CPU cores (at least 1). */
unsigned pq_parallel_cores(void);

#endif
