/*
 * xml.h — just enough XML for S3's answers (ListObjectsV2 pages and error
 * bodies): the text of an element, entities decoded. Internal. Input is
 * untrusted: every scan is bounded by the length given.
 */
#ifndef PQ_REMOTE_XML_H
#define PQ_REMOTE_XML_H

#include <stdbool.h>
#include <stddef.h>

/* Find the next <tag>...</tag> at or after *pos in xml[0, len); on success
 * *body / *body_len give what lies between the two tags and *pos moves past
 * the closing tag. An element written <tag/> has an empty body. */
bool pq_xml_next(const char *xml, size_t len, size_t *pos, const char *tag, const char **body, size_t *body_len);

/* The body of the first <tag> in xml[0, len), entities decoded, as a
 * malloc'd string; NULL when there is none (or no memory). */
char *pq_xml_text(const char *xml, size_t len, const char *tag);

/* Decode &amp; &lt; &gt; &quot; &apos; &#N; &#xH; of s[0, n) into a
 * malloc'd string (a malformed entity is kept as written). */
char *pq_xml_unescape(const char *s, size_t n);

#endif
