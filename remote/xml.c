#include "remote/xml.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* memmem over a bounded range without relying on GNU extensions. */
static const char *find(const char *hay, size_t n, const char *needle, size_t m)
{
    if (m == 0 || m > n) return NULL;
    for (size_t i = 0; i + m <= n; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, m) == 0) return hay + i;
    return NULL;
}

bool pq_xml_next(const char *xml, size_t len, size_t *pos, const char *tag, const char **body, size_t *body_len)
{
    size_t tl = strlen(tag);
    if (tl == 0 || tl > 64 || *pos > len) return false;
    char closing[72];
    size_t at = *pos;
    while (at < len) {
        const char *lt = find(xml + at, len - at, "<", 1);
        if (!lt) return false;
        size_t i = (size_t)(lt - xml) + 1;
        if (i + tl <= len && memcmp(xml + i, tag, tl) == 0 && i + tl < len) {
            char c = xml[i + tl];
            if (c == '/' && i + tl + 1 < len && xml[i + tl + 1] == '>') { /* <tag/> */
                *body = xml + i + tl + 2;
                *body_len = 0;
                *pos = i + tl + 2;
                return true;
            }
            if (c == '>' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                const char *gt = find(xml + i + tl, len - i - tl, ">", 1);
                if (!gt) return false;
                size_t start = (size_t)(gt - xml) + 1;
                if (gt[-1] == '/') { /* <tag attr="x"/> */
                    *body = xml + start;
                    *body_len = 0;
                    *pos = start;
                    return true;
                }
                memcpy(closing, "</", 2);
                memcpy(closing + 2, tag, tl);
                closing[tl + 2] = '>';
                const char *end = find(xml + start, len - start, closing, tl + 3);
                if (!end) return false;
                *body = xml + start;
                *body_len = (size_t)(end - (xml + start));
                *pos = (size_t)(end - xml) + tl + 3;
                return true;
            }
        }
        at = i;
    }
    return false;
}

char *pq_xml_text(const char *xml, size_t len, const char *tag)
{
    size_t pos = 0;
    const char *b;
    size_t bl;
    if (!pq_xml_next(xml, len, &pos, tag, &b, &bl)) return NULL;
    return pq_xml_unescape(b, bl);
}

static void put_utf8(char *out, size_t *o, uint32_t cp)
{
    if (cp < 0x80) {
        out[(*o)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*o)++] = (char)(0xC0 | cp >> 6);
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*o)++] = (char)(0xE0 | cp >> 12);
        out[(*o)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*o)++] = (char)(0xF0 | cp >> 18);
        out[(*o)++] = (char)(0x80 | (cp >> 12 & 0x3F));
        out[(*o)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    }
}

char *pq_xml_unescape(const char *s, size_t n)
{
    /* An entity is never shorter than what it decodes to (&#x10FFFF; -> 4 bytes). */
    char *out = malloc(n + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] != '&') {
            out[o++] = s[i++];
            continue;
        }
        const char *semi = find(s + i, n - i < 12 ? n - i : 12, ";", 1);
        size_t el = semi ? (size_t)(semi - (s + i)) + 1 : 0;
        static const struct { const char *name; char c; } named[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool done = false;
        for (size_t k = 0; el && k < sizeof named / sizeof *named; k++)
            if (strlen(named[k].name) == el && memcmp(s + i, named[k].name, el) == 0) {
                out[o++] = named[k].c;
                done = true;
            }
        if (!done && el > 3 && s[i + 1] == '#') {
            uint32_t cp = 0;
            bool hex = s[i + 2] == 'x' || s[i + 2] == 'X';
            bool ok = true;
            for (size_t k = i + 2 + hex; k < i + el - 1; k++) {
                char c = s[k];
                uint32_t d;
                if (c >= '0' && c <= '9') d = (uint32_t)(c - '0');
                else if (hex && c >= 'a' && c <= 'f') d = (uint32_t)(c - 'a' + 10);
                else if (hex && c >= 'A' && c <= 'F') d = (uint32_t)(c - 'A' + 10);
                else { ok = false; break; }
                cp = cp * (hex ? 16 : 10) + d;
                if (cp > 0x10FFFF) { ok = false; break; }
            }
            if (ok && cp && (cp < 0xD800 || cp > 0xDFFF) && el - 3 - hex > 0) {
                put_utf8(out, &o, cp);
                done = true;
            }
        }
        if (done) {
            i += el;
        } else {
            out[o++] = s[i++];
        }
    }
    out[o] = 0;
    return out;
}
