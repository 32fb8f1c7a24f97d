/*
 * json_writer.c — streaming, pretty-printed JSON (see json_writer.h).
 */
#include "json_writer.h"

#include <inttypes.h>
#include <string.h>

static inline bool is_cont(uint8_t b) { return (b & 0xC0) == 0x80; }

size_t cli_utf8_seq_len(const uint8_t *p, size_t n)
{
    uint8_t b = p[0];
    if (b < 0x80)
        return 1;
    /* Bounds of the second byte per lead byte exclude overlongs (E0, F0),
     * surrogates (ED) and code points above U+10FFFF (F4). */
    uint8_t lo = 0x80, hi = 0xBF;
    size_t len;
    if (b >= 0xC2 && b <= 0xDF) {
        len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        if (b == 0xE0) lo = 0xA0;
        if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        if (b == 0xF0) lo = 0x90;
        if (b == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (!is_cont(p[i]))
            return 0;
    return len;
}

void cli_json_init(cli_json *j, FILE *out)
{
    j->out = out;
    j->depth = 0;
    j->first = true;
    j->after_key = false;
}

/* Indentation stops growing at this depth, so that a deeply nested
 * document stays linear in size (whitespace is not significant in JSON). */
#define MAX_INDENT_LEVELS 64

static void newline_indent(cli_json *j)
{
    fputc('\n', j->out);
    for (int i = 0; i < j->depth && i < MAX_INDENT_LEVELS; i++)
        fputs("  ", j->out);
}

/* Called before every key and every value: separates it from the previous
 * sibling and puts it on its own line, unless it is the value of a key. */
static void before_item(cli_json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (j->depth > 0) {
        if (!j->first)
            fputc(',', j->out);
        newline_indent(j);
    }
    j->first = false;
}

static void begin(cli_json *j, char open)
{
    before_item(j);
    fputc(open, j->out);
    j->depth++;
    j->first = true;
}

static void end(cli_json *j, char close)
{
    bool empty = j->first;
    j->depth--;
    if (!empty)
        newline_indent(j);
    fputc(close, j->out);
    /* The container is itself an item of its parent. */
    j->first = false;
}

void cli_json_begin_object(cli_json *j) { begin(j, '{'); }
void cli_json_end_object(cli_json *j) { end(j, '}'); }
void cli_json_begin_array(cli_json *j) { begin(j, '['); }
void cli_json_end_array(cli_json *j) { end(j, ']'); }

static void write_escaped(FILE *out, const uint8_t *s, size_t len)
{
    fputc('"', out);
    size_t i = 0;
    while (i < len) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc(c, out);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            switch (c) {
            case '\b': fputs("\\b", out); break;
            case '\f': fputs("\\f", out); break;
            case '\n': fputs("\\n", out); break;
            case '\r': fputs("\\r", out); break;
            case '\t': fputs("\\t", out); break;
            default: fprintf(out, "\\u%04x", (unsigned)c); break;
            }
            i++;
        } else if (c < 0x80) {
            fputc(c, out);
            i++;
        } else {
            size_t n = cli_utf8_seq_len(s + i, len - i);
            if (n == 0) {
                fputs("\\ufffd", out); /* one replacement per stray byte */
                i++;
            } else {
                fwrite(s + i, 1, n, out);
                i += n;
            }
        }
    }
    fputc('"', out);
}

void cli_json_key(cli_json *j, const char *key)
{
    before_item(j);
    write_escaped(j->out, (const uint8_t *)key, strlen(key));
    fputs(": ", j->out);
    j->after_key = true;
}

void cli_json_string(cli_json *j, const void *s, size_t len)
{
    before_item(j);
    write_escaped(j->out, s, len);
}

void cli_json_cstring(cli_json *j, const char *s)
{
    if (!s) {
        cli_json_null(j);
        return;
    }
    cli_json_string(j, s, strlen(s));
}

void cli_json_int(cli_json *j, int64_t v)
{
    before_item(j);
    fprintf(j->out, "%" PRId64, v);
}

void cli_json_bool(cli_json *j, bool v)
{
    before_item(j);
    fputs(v ? "true" : "false", j->out);
}

void cli_json_null(cli_json *j)
{
    before_item(j);
    fputs("null", j->out);
}

void cli_json_finish(cli_json *j)
{
    fputc('\n', j->out);
}
