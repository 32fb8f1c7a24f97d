/*
 * span_transport.h — Thrift c_glib transports for the reference decoder.
 *
 * PqSpanTransport: read-only, over a caller's byte span. Reading only moves a
 * cursor (no buffer edits), so a read costs O(bytes copied). It also answers
 * c_glib's "message size" checks from the span: the protocol may ask for as
 * many bytes as remain in the span, no more.
 *
 * PqSinkTransport: write-only, appends to a growable GByteArray (for
 * serializing structs with the compact protocol).
 *
 * The type macros are spelled out by hand: G_DECLARE_FINAL_TYPE would need an
 * autoptr cleanup function for ThriftTransport, which c_glib does not define.
 */
#ifndef PQ_SPAN_TRANSPORT_H
#define PQ_SPAN_TRANSPORT_H

#include <glib-object.h>
#include <stddef.h>
#include <stdint.h>
#include <thrift/c_glib/transport/thrift_transport.h>

G_BEGIN_DECLS

typedef struct _PqSpanTransport PqSpanTransport;
typedef struct _PqSpanTransportClass PqSpanTransportClass;

struct _PqSpanTransport {
    ThriftTransport parent;
    const guint8 *buf;
    gsize len;
    gsize pos;
};

struct _PqSpanTransportClass {
    ThriftTransportClass parent;
};

GType pq_span_transport_get_type(void);
#define PQ_TYPE_SPAN_TRANSPORT (pq_span_transport_get_type())
#define PQ_SPAN_TRANSPORT(obj) \
    (G_TYPE_CHECK_INSTANCE_CAST((obj), PQ_TYPE_SPAN_TRANSPORT, PqSpanTransport))
#define PQ_IS_SPAN_TRANSPORT(obj) (G_TYPE_CHECK_INSTANCE_TYPE((obj), PQ_TYPE_SPAN_TRANSPORT))

/* The span must outlive the transport. */
PqSpanTransport *pq_span_transport_new(const uint8_t *buf, size_t len);

/* Bytes consumed so far. */
size_t pq_span_transport_position(PqSpanTransport *t);

typedef struct _PqSinkTransport PqSinkTransport;
typedef struct _PqSinkTransportClass PqSinkTransportClass;

struct _PqSinkTransport {
    ThriftTransport parent;
    GByteArray *bytes;
};

struct _PqSinkTransportClass {
    ThriftTransportClass parent;
};

GType pq_sink_transport_get_type(void);
#define PQ_TYPE_SINK_TRANSPORT (pq_sink_transport_get_type())
#define PQ_SINK_TRANSPORT(obj) \
    (G_TYPE_CHECK_INSTANCE_CAST((obj), PQ_TYPE_SINK_TRANSPORT, PqSinkTransport))

PqSinkTransport *pq_sink_transport_new(void);

/* Take the written bytes (g_free them) and their length; the sink is then
 * empty again. */
uint8_t *pq_sink_transport_steal(PqSinkTransport *t, size_t *len);

G_END_DECLS

#endif
