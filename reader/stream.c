/*
 * stream.c — pq_reader_export_stream(): an Arrow C stream over a reader's
 * choice, decoding a window of row groups at a time as the consumer pulls.
 *
 * The stream has a reader of its own (pq_reader_twin: same file, same
 * parsed footer, same options). At export its select stage runs once over
 * the whole choice, so pruning and the row range are decided as for a read
 * of everything; the stream keeps the row groups that survive and each
 * one's rows. Then get_next goes back to the select stage for the next
 * window of row groups (pq_reader_reselect, with the filter and the
 * columns, the dictionary and bloom-filter steps off: those row groups are
 * known to be kept), decodes it, and hands its rows out in batches (none
 * spans two row groups). A window is as many consecutive row groups as
 * decode to STREAM_WINDOW_BYTES of the selected columns (their
 * uncompressed pages, or the unencoded bytes SizeStatistics give for byte
 * arrays: at least one group): small row groups decode together, on every
 * thread, as in a read of the whole file, instead of one after another;
 * large ones still one at a time, which bounds the memory a stream holds.
 *
 * Decode ahead: once a window is open, the next one is decoded on a thread
 * of the stream's own, into a second twin reader, while the consumer takes
 * the current window's batches; get_next then swaps the two readers. At
 * most two windows are decoded at once (2 x STREAM_WINDOW_BYTES). The
 * readers share nothing they write (the footer is immutable, the buffer
 * pool and the helper threads take their own locks). Not with the device
 * executor or device_output (one decode at a time on a device).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/error.h"
#include "predicate/predicate.h"
#include "reader/context.h"

/* The decoded bytes of selected column chunks a window gathers. */
#define STREAM_WINDOW_BYTES ((uint64_t)64 << 20)

/* The window size streams use from their export on (tests make it small,
 * so that a small file streams in many windows). */
static _Atomic uint64_t window_bytes = STREAM_WINDOW_BYTES;

void pq_stream_set_window_bytes(uint64_t bytes)
{
    atomic_store(&window_bytes, bytes ? bytes : STREAM_WINDOW_BYTES);
}

/* Steps of a stream. */
typedef enum stream_step {
    STREAM_NEXT_WINDOW = 0, /* decode the next window of row groups (or end) */
    STREAM_IN_WINDOW,       /* the current window has batches left */
    STREAM_FAILED           /* an error was reported; get_next repeats it */
} stream_step;

/* The next window, decoded on a thread of its own into the spare reader. */
typedef struct ahead_window {
    pthread_t thread;
    bool running;          /* started and not yet joined */
    size_t from, to;       /* its row groups: groups[from, to) */
    pq_status status;
    pq_error err;
} ahead_window;

typedef struct stream_state {
    pq_reader *r;          /* the stream's own reader: the window being handed out */
    pq_reader *spare;      /* a second twin, for the window decoded ahead (made at first use) */
    bool decode_ahead;     /* CPU executor, host output */
    uint64_t window_bytes; /* decoded bytes a window gathers */
    ahead_window ahead;
    uint32_t *groups;      /* the row groups the select stage kept, in order */
    uint64_t *first;       /* ... each one's rows to deliver: [first, first + count) */
    uint64_t *count;
    size_t n, next;
    uint32_t *columns;     /* the selected columns */
    size_t ncolumns;
    bool every_column;     /* the reader names no columns: every one, and the fields with no leaf */
    pq_expr *filter;       /* the choice's filter (owned), or NULL */
    uint32_t prune_disable;
    bool row_range;        /* the choice has a row range: each row group's rows are passed on */
    uint64_t batch_rows;
    stream_step step;
    int error_code;
    char error[PQ_ERROR_MESSAGE_SIZE];
} stream_state;

static void state_free(stream_state *s)
{
    if (!s) return;
    if (s->ahead.running) pthread_join(s->ahead.thread, NULL); /* its reader is closed below */
    pq_reader_close(s->spare);
    pq_reader_close(s->r);
    free(s->groups);
    free(s->first);
    free(s->count);
    free(s->columns);
    pq_expr_free(s->filter);
    free(s);
}

/* Record an error for get_last_error; the errno value get_next returns. */
static int fail(stream_state *s, pq_status st, const pq_error *err)
{
    snprintf(s->error, sizeof s->error, "%s", err->message);
    s->error_code = st == PQ_ERR_NOMEM ? ENOMEM : st == PQ_ERR_INVALID_ARGUMENT ? EINVAL : EIO;
    s->step = STREAM_FAILED;
    return s->error_code;
}

static int stream_get_schema(struct ArrowArrayStream *stream, struct ArrowSchema *out)
{
    stream_state *s = stream->private_data;
    pq_error err;
    pq_status st = pq_reader_output_schema(s->r, out, &err);
    if (st != PQ_OK) {
        snprintf(s->error, sizeof s->error, "%s", err.message);
        return st == PQ_ERR_NOMEM ? ENOMEM : EIO;
    }
    return 0;
}

/* What chunk m decodes to, ahead of decoding it: its uncompressed pages,
 * or for byte arrays, where the writer gave SizeStatistics, the bytes of
 * its values once unencoded plus an offset a value (a dictionary-encoded
 * string column decodes to many times its pages). */
static uint64_t chunk_output_bytes(const pq_column_meta *m)
{
    uint64_t pages = m->total_uncompressed_size > 0 ? (uint64_t)m->total_uncompressed_size : 0;
    const pq_size_statistics *z = m->size_statistics;
    if (m->type != PQ_BYTE_ARRAY || !z || !(z->set & PQ_SIZE_HAS_UNENCODED_BYTES) ||
        z->unencoded_byte_array_data_bytes < 0 || m->num_values < 0)
        return pages;
    uint64_t values = (uint64_t)z->unencoded_byte_array_data_bytes + 4 * (uint64_t)m->num_values;
    return values > pages ? values : pages;
}

/* What row group g's selected chunks decode to (chunk_output_bytes). */
static uint64_t group_bytes(const stream_state *s, uint32_t g)
{
    const pq_row_group *rg = &pq_metadata_file(s->r->md)->row_groups[g];
    uint64_t bytes = 0;
    size_t n = s->every_column ? rg->columns_len : s->ncolumns;
    for (size_t c = 0; c < n; c++) {
        uint32_t leaf = s->every_column ? (uint32_t)c : s->columns[c];
        if (leaf >= rg->columns_len) continue;
        bytes += chunk_output_bytes(&rg->columns[leaf]->meta_data);
    }
    return bytes;
}

/* Whether the stream's groups end before groups[j] (or its row range did). */
static bool groups_end(const stream_state *s, size_t j)
{
    return j >= s->n || (s->row_range && s->count[j] == 0);
}

/* Where the window starting at groups[i] ends: the groups after it that
 * fit in the window's bytes (at least one). The stream's last groups join
 * it when they come to at most a quarter of a window: a window costs a
 * pass of its own (selection, plan, the threads' start and end), and the
 * last one has nothing to overlap it (a filtered TPC-H Q6 read of 70.8 MiB
 * of columns went as 62.8 + 8.0 MiB: 29.5 + 5 ms at 2 threads). */
static size_t window_end(const stream_state *s, size_t i)
{
    size_t j = i;
    uint64_t bytes = 0;
    while (!groups_end(s, j)) {
        uint64_t b = group_bytes(s, s->groups[j]);
        if (j > i && bytes + b > s->window_bytes) break;
        bytes += b;
        j++;
    }
    if (j == i) return i + 1;
    uint64_t rest = 0;
    size_t k = j;
    while (!groups_end(s, k) && rest <= s->window_bytes / 4) rest += group_bytes(s, s->groups[k++]);
    return groups_end(s, k) && rest <= s->window_bytes / 4 ? k : j;
}

/* Decode row groups groups[i, j) with reader r. Reads the stream's state
 * only (the decode-ahead thread runs it while the consumer takes batches
 * from the other reader). */
static pq_status decode_window(const stream_state *s, pq_reader *r, size_t i, size_t j, pq_error *err)
{
    const pq_file_metadata *fm = pq_metadata_file(r->md);
    /* The row range over the window, counted from its first group's first
     * row delivered to its last group's last: the groups between are whole
     * (a range is contiguous; the rows that deletions or the page index
     * took from their edges are taken again by the select stage). */
    uint64_t rows = 0;
    if (s->row_range) {
        for (size_t k = i; k + 1 < j; k++) rows += (uint64_t)fm->row_groups[s->groups[k]].num_rows;
        rows += s->first[j - 1] + s->count[j - 1] - s->first[i];
    }
    pq_selection sel = {
        .row_groups = &s->groups[i],
        .row_groups_len = j - i,
        .columns = s->every_column ? NULL : s->columns, /* NULL: every column, fields with no leaf too */
        .columns_len = s->every_column ? 0 : s->ncolumns,
        /* a row range covers its window's groups whole, but for the first's start and the last's end */
        .row_offset = s->row_range ? s->first[i] : 0,
        .row_limit = rows,
        .filter = s->filter,
        .prune_disable = s->prune_disable | PQ_PRUNE_DICTIONARY | PQ_PRUNE_BLOOM_FILTER,
    };
    pq_status st = pq_reader_reselect(r, &sel, err);
    if (st == PQ_OK) st = pq_reader_advance_to(r, PQ_STAGE_DECODE, err);
    return st;
}

static void *decode_ahead(void *arg)
{
    stream_state *s = arg;
    s->ahead.status = decode_window(s, s->spare, s->ahead.from, s->ahead.to, &s->ahead.err);
    return NULL;
}

/* The first window not yet opened, from groups[s->next]: its first group
 * (past groups the row range left empty), or s->n at the end. */
static size_t next_start(const stream_state *s)
{
    size_t i = s->next;
    while (i < s->n && s->row_range && s->count[i] == 0) i++;
    return i;
}

/* Start decoding the window after the current one on the spare reader;
 * without a spare reader or a thread, the window is decoded when it is
 * reached, as without decode-ahead. */
static void start_ahead(stream_state *s)
{
    size_t i = next_start(s);
    if (!s->decode_ahead || s->ahead.running || i >= s->n) return;
    if (!s->spare) {
        pq_error err;
        s->spare = pq_reader_twin(s->r, &err);
        if (!s->spare || pq_reader_advance_to(s->spare, PQ_STAGE_FOOTER, &err) != PQ_OK) {
            pq_reader_close(s->spare);
            s->spare = NULL;
            s->decode_ahead = false;
            return;
        }
    }
    s->ahead.from = i;
    s->ahead.to = window_end(s, i);
    s->ahead.status = PQ_OK;
    s->ahead.running = pthread_create(&s->ahead.thread, NULL, decode_ahead, s) == 0;
}

/* Open the next window: the one decoded ahead (its reader becomes the
 * stream's), or decoded now; then the one after it starts ahead. */
static pq_status open_window(stream_state *s, pq_error *err)
{
    size_t i = next_start(s);
    pq_status st;
    if (s->ahead.running && s->ahead.from == i) {
        pthread_join(s->ahead.thread, NULL);
        s->ahead.running = false;
        pq_reader *t = s->r;
        s->r = s->spare;
        s->spare = t;
        s->next = s->ahead.to;
        st = s->ahead.status;
        if (st != PQ_OK) *err = s->ahead.err;
    } else {
        size_t j = window_end(s, i);
        s->next = j;
        st = decode_window(s, s->r, i, j, err);
    }
    if (st == PQ_OK) start_ahead(s);
    return st;
}

static int stream_get_next(struct ArrowArrayStream *stream, struct ArrowArray *out)
{
    stream_state *s = stream->private_data;
    memset(out, 0, sizeof *out);
    pq_error err;
    for (;;) {
        switch (s->step) {
        case STREAM_FAILED:
            return s->error_code;
        case STREAM_NEXT_WINDOW: {
            s->next = next_start(s);
            if (s->next == s->n) return 0; /* the end: out->release stays NULL */
            pq_status st = open_window(s, &err);
            if (st != PQ_OK) return fail(s, st, &err);
            s->step = STREAM_IN_WINDOW;
            break;
        }
        case STREAM_IN_WINDOW: {
            pq_status st = pq_reader_next_batch(s->r, s->batch_rows, out, NULL, &err);
            if (st != PQ_OK) return fail(s, st, &err);
            if (!out->release) { /* the window's rows are all out */
                s->step = STREAM_NEXT_WINDOW;
                break;
            }
            if (out->length > 0) return 0;
            out->release(out); /* an empty row group: no batch */
            break;
        }
        }
    }
}

static const char *stream_get_last_error(struct ArrowArrayStream *stream)
{
    stream_state *s = stream->private_data;
    return s->error[0] ? s->error : NULL;
}

static void stream_release(struct ArrowArrayStream *stream)
{
    if (!stream || !stream->release) return;
    state_free(stream->private_data);
    stream->private_data = NULL;
    stream->release = NULL;
}

pq_status pq_reader_export_stream(const pq_reader *r, uint64_t batch_rows, struct ArrowArrayStream *out,
                                  pq_error *err)
{
    pq_error local;
    if (!err) err = &local;
    if (out) memset(out, 0, sizeof *out);
    if (!r || !out) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "reader and stream must not be NULL");
    stream_state *s = calloc(1, sizeof *s);
    if (!s) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    s->batch_rows = batch_rows;
    s->window_bytes = atomic_load(&window_bytes);
    s->r = pq_reader_twin(r, err);
    pq_status st = s->r ? pq_reader_advance_to(s->r, PQ_STAGE_SELECT, err) : err->code;
    if (st == PQ_OK) {
        const pq_reader *t = s->r;
        s->n = t->sel.row_groups_len;
        s->ncolumns = t->sel.columns_len;
        s->every_column = !t->opts.columns;
        s->row_range = t->sel.row_range;
        s->prune_disable = t->opts.prune_disable;
        s->groups = malloc((s->n ? s->n : 1) * sizeof *s->groups);
        s->first = malloc((s->n ? s->n : 1) * sizeof *s->first);
        s->count = malloc((s->n ? s->n : 1) * sizeof *s->count);
        s->columns = malloc((s->ncolumns ? s->ncolumns : 1) * sizeof *s->columns);
        if (!s->groups || !s->first || !s->count || !s->columns)
            st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    }
    if (st == PQ_OK && s->r->opts.filter && !(s->filter = pq_expr_clone(s->r->opts.filter, err))) st = err->code;
    for (size_t i = 0; st == PQ_OK && i < s->n; i++) {
        s->groups[i] = s->r->sel.row_groups[i];
        st = pq_reader_row_group_range(s->r, s->groups[i], &s->first[i], &s->count[i], err);
    }
    if (st == PQ_OK) memcpy(s->columns, s->r->sel.columns, s->ncolumns * sizeof *s->columns);
    s->decode_ahead = st == PQ_OK && s->r->opts.device == PQ_DEVICE_CPU && !s->r->opts.device_output;
    if (st != PQ_OK) {
        state_free(s);
        return st;
    }
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_get_last_error;
    out->release = stream_release;
    out->private_data = s;
    return PQ_OK;
}
