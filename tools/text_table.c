/*
 * text_table.c — aligned columns for the commands' text output.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void cli_table_init(cli_table *t, const char *align)
{
    memset(t, 0, sizeof(*t));
    t->align = align;
    t->ncols = strlen(align);
}

static void push(cli_table *t, char *cell)
{
    if (t->ncells == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->cells = cli_xrealloc(t->cells, t->cap * sizeof(*t->cells));
    }
    t->cells[t->ncells++] = cell;
}

void cli_table_add(cli_table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *cell = cli_xrealloc(NULL, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(cell, (size_t)n + 1, fmt, ap);
    va_end(ap);
    push(t, cell);
}

void cli_table_add_text(cli_table *t, size_t indent, const void *s, size_t len)
{
    char *text = cli_text_dup(s, len);
    size_t n = strlen(text);
    char *cell = cli_xrealloc(NULL, indent + n + 1);
    memset(cell, ' ', indent);
    memcpy(cell + indent, text, n + 1);
    free(text);
    push(t, cell);
}

/* Display width: code points, not bytes (cells hold well-formed UTF-8). */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

static void pad(FILE *out, size_t n)
{
    while (n--)
        fputc(' ', out);
}

void cli_table_print(const cli_table *t, FILE *out, const char *prefix)
{
    if (t->ncols == 0)
        return;
    size_t *w = cli_xrealloc(NULL, t->ncols * sizeof(*w));
    memset(w, 0, t->ncols * sizeof(*w));
    for (size_t i = 0; i < t->ncells; i++) {
        size_t cw = width(t->cells[i]);
        if (cw > w[i % t->ncols])
            w[i % t->ncols] = cw;
    }
    for (size_t row = 0; row * t->ncols < t->ncells; row++) {
        fputs(prefix, out);
        /* The last non-empty column of the row needs no left-aligned padding. */
        size_t end = t->ncols;
        if (row * t->ncols + end > t->ncells)
            end = t->ncells - row * t->ncols;
        for (size_t c = 0; c < end; c++) {
            const char *cell = t->cells[row * t->ncols + c];
            size_t fill = w[c] - width(cell);
            if (c > 0)
                fputs("  ", out);
            if (t->align[c] == 'r')
                pad(out, fill);
            fputs(cell, out);
            if (t->align[c] != 'r' && c + 1 < end)
                pad(out, fill);
        }
        fputc('\n', out);
    }
    free(w);
}

void cli_table_free(cli_table *t)
{
    for (size_t i = 0; i < t->ncells; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof(*t));
}
