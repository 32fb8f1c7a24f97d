/*
 * span_transport.c — see span_transport.h.
 *
 * Why not ThriftMemoryBuffer: its read removes the consumed bytes from the
 * front of a GByteArray (a memmove of everything left), which makes decoding
 * an N-byte footer O(N^2). Thrift 0.17 also bounds every message by a
 * configured maximum (100 MB by default) through the transport's
 * checkReadBytesAvailable hook; here the bound is simply what is left of the
 * span, which is both exact and never rejects a large footer that is really
 * there.
 */
#include "span_transport.h"

#include <string.h>

/* ---------------------------------------------------------------------------
 * PqSpanTransport
 * ------------------------------------------------------------------------- */

G_DEFINE_TYPE(PqSpanTransport, pq_span_transport, THRIFT_TYPE_TRANSPORT)

static inline gsize span_left(const PqSpanTransport *t)
{
    return t->len - t->pos;
}

static gint32 span_short_read(GError **error, guint32 want, gsize left)
{
    g_set_error(error, THRIFT_TRANSPORT_ERROR, THRIFT_TRANSPORT_ERROR_RECEIVE,
                "span transport: need %u bytes, %" G_GSIZE_FORMAT " left", want, left);
    return -1;
}

static gboolean span_is_open(ThriftTransport *transport)
{
    (void)transport;
    return TRUE;
}

static gboolean span_peek(ThriftTransport *transport, GError **error)
{
    (void)error;
    return span_left(PQ_SPAN_TRANSPORT(transport)) > 0;
}

static gboolean span_noop(ThriftTransport *transport, GError **error)
{
    (void)transport;
    (void)error;
    return TRUE;
}

/* A read gives what is there (at least one byte); an empty span is an error,
 * not a 0-byte read, so that read loops cannot spin. */
static gint32 span_read(ThriftTransport *transport, gpointer buf, guint32 len, GError **error)
{
    PqSpanTransport *t = PQ_SPAN_TRANSPORT(transport);
    gsize left = span_left(t);
    if (len == 0) return 0;
    if (left == 0) return span_short_read(error, len, left);
    guint32 give = left < len ? (guint32)left : len;
    memcpy(buf, t->buf + t->pos, give);
    t->pos += give;
    return (gint32)give;
}

static gint32 span_read_all(ThriftTransport *transport, gpointer buf, guint32 len, GError **error)
{
    PqSpanTransport *t = PQ_SPAN_TRANSPORT(transport);
    gsize left = span_left(t);
    if (len > left) return span_short_read(error, len, left);
    if (len) memcpy(buf, t->buf + t->pos, len);
    t->pos += len;
    return (gint32)len;
}

static gboolean span_write(ThriftTransport *transport, const gpointer buf, const guint32 len,
                           GError **error)
{
    (void)transport;
    (void)buf;
    g_set_error(error, THRIFT_TRANSPORT_ERROR, THRIFT_TRANSPORT_ERROR_SEND,
                "span transport is read-only (write of %u bytes)", len);
    return FALSE;
}

/* The message-size hooks. The protocol asks before it sizes containers
 * (elements x minimum element size); the answer is exact for a span. */
static gboolean span_check_available(ThriftTransport *transport, glong num_bytes, GError **error)
{
    PqSpanTransport *t = PQ_SPAN_TRANSPORT(transport);
    if (num_bytes < 0 || (gsize)num_bytes > span_left(t)) {
        g_set_error(error, THRIFT_TRANSPORT_ERROR, THRIFT_TRANSPORT_ERROR_MAX_MESSAGE_SIZE_REACHED,
                    "span transport: %ld bytes announced, %" G_GSIZE_FORMAT " left", num_bytes,
                    span_left(t));
        return FALSE;
    }
    return TRUE;
}

/* The cursor is the only state: consumption is counted by reads themselves,
 * and the known size is fixed to the span length. */
static gboolean span_size_ok(ThriftTransport *transport, glong size, GError **error)
{
    (void)transport;
    (void)size;
    (void)error;
    return TRUE;
}

static void pq_span_transport_class_init(PqSpanTransportClass *klass)
{
    ThriftTransportClass *tc = THRIFT_TRANSPORT_CLASS(klass);
    tc->is_open = span_is_open;
    tc->peek = span_peek;
    tc->open = span_noop;
    tc->close = span_noop;
    tc->read = span_read;
    tc->read_all = span_read_all;
    tc->read_end = span_noop;
    tc->write = span_write;
    tc->write_end = span_noop;
    tc->flush = span_noop;
    tc->checkReadBytesAvailable = span_check_available;
    tc->updateKnownMessageSize = span_size_ok;
    tc->resetConsumedMessageSize = span_size_ok;
    tc->countConsumedMessageBytes = span_size_ok;
}

static void pq_span_transport_init(PqSpanTransport *self)
{
    self->buf = NULL;
    self->len = 0;
    self->pos = 0;
}

PqSpanTransport *pq_span_transport_new(const uint8_t *buf, size_t len)
{
    PqSpanTransport *t = g_object_new(PQ_TYPE_SPAN_TRANSPORT, NULL);
    t->buf = buf;
    t->len = buf ? len : 0;
    t->pos = 0;
    /* Keep the base class's bookkeeping truthful for anyone who reads it. */
    ThriftTransport *base = THRIFT_TRANSPORT(t);
    base->knowMessageSize_ = (glong)t->len;
    base->remainingMessageSize_ = (glong)t->len;
    return t;
}

size_t pq_span_transport_position(PqSpanTransport *t)
{
    return t->pos;
}

/* ---------------------------------------------------------------------------
 * PqSinkTransport
 * ------------------------------------------------------------------------- */

G_DEFINE_TYPE(PqSinkTransport, pq_sink_transport, THRIFT_TYPE_TRANSPORT)

static gint32 sink_read(ThriftTransport *transport, gpointer buf, guint32 len, GError **error)
{
    (void)transport;
    (void)buf;
    g_set_error(error, THRIFT_TRANSPORT_ERROR, THRIFT_TRANSPORT_ERROR_RECEIVE,
                "sink transport is write-only (read of %u bytes)", len);
    return -1;
}

static gboolean sink_write(ThriftTransport *transport, const gpointer buf, const guint32 len,
                           GError **error)
{
    (void)error;
    PqSinkTransport *t = PQ_SINK_TRANSPORT(transport);
    if (len) g_byte_array_append(t->bytes, (const guint8 *)buf, len);
    return TRUE;
}

static gboolean sink_available(ThriftTransport *transport, glong num_bytes, GError **error)
{
    (void)transport;
    (void)num_bytes;
    (void)error;
    return TRUE;
}

static void sink_finalize(GObject *obj)
{
    PqSinkTransport *t = PQ_SINK_TRANSPORT(obj);
    if (t->bytes) g_byte_array_unref(t->bytes);
    t->bytes = NULL;
    G_OBJECT_CLASS(pq_sink_transport_parent_class)->finalize(obj);
}

static void pq_sink_transport_class_init(PqSinkTransportClass *klass)
{
    ThriftTransportClass *tc = THRIFT_TRANSPORT_CLASS(klass);
    G_OBJECT_CLASS(klass)->finalize = sink_finalize;
    tc->is_open = span_is_open;
    tc->open = span_noop;
    tc->close = span_noop;
    tc->read = sink_read;
    tc->read_all = sink_read;
    tc->read_end = span_noop;
    tc->write = sink_write;
    tc->write_end = span_noop;
    tc->flush = span_noop;
    tc->checkReadBytesAvailable = sink_available;
    tc->updateKnownMessageSize = sink_available;
    tc->resetConsumedMessageSize = sink_available;
    tc->countConsumedMessageBytes = sink_available;
}

static void pq_sink_transport_init(PqSinkTransport *self)
{
    self->bytes = g_byte_array_new();
}

PqSinkTransport *pq_sink_transport_new(void)
{
    return g_object_new(PQ_TYPE_SINK_TRANSPORT, NULL);
}

uint8_t *pq_sink_transport_steal(PqSinkTransport *t, size_t *len)
{
    *len = t->bytes->len;
    uint8_t *out = g_byte_array_free(t->bytes, FALSE);
    t->bytes = g_byte_array_new();
    return out;
}
