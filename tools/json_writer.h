/*
 * json_writer.h — a small streaming JSON writer for the CLI.
 *
 * Output is pretty-printed (two-space indent, one member or element per
 * line; indentation stops growing after 64 levels) straight to a FILE.
 * Commas and indentation are handled by the writer, so callers only say
 * begin/key/value/end. No state grows with nesting depth. Write errors
 * are not checked here: the caller checks ferror() on the stream at the end.
 *
 * Strings are escaped so that any byte string yields valid JSON:
 *   "  \  ->  \"  \\
 *   \b \f \n \r \t  ->  their two-character escapes
 *   other bytes < 0x20 and 0x7f  ->  \u00XX
 *   well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF)  ->  as is
 *   each byte that is not part of a well-formed UTF-8 sequence  ->  \ufffd
 */
#ifndef PQ_CLI_JSON_WRITER_H
#define PQ_CLI_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct cli_json {
    FILE *out;
    int depth;       /* open containers, for indentation */
    bool first;      /* no member/element written yet in the current container */
    bool after_key;  /* a key was written; the value follows on the same line */
} cli_json;

void cli_json_init(cli_json *j, FILE *out);

void cli_json_begin_object(cli_json *j);
void cli_json_end_object(cli_json *j);
void cli_json_begin_array(cli_json *j);
void cli_json_end_array(cli_json *j);

/* An object member's key (a NUL-terminated ASCII name); the value follows. */
void cli_json_key(cli_json *j, const char *key);

void cli_json_string(cli_json *j, const void *s, size_t len);
void cli_json_cstring(cli_json *j, const char *s); /* NULL writes null */
void cli_json_int(cli_json *j, int64_t v);
void cli_json_bool(cli_json *j, bool v);
void cli_json_null(cli_json *j);

/* Finish the document with a newline. */
void cli_json_finish(cli_json *j);

/* Length of the well-formed UTF-8 sequence at p (1..4), or 0 when the bytes
 * at p do not start one. `n` is the number of bytes available (>= 1). Also
 * used by the CLI's text output. */
size_t cli_utf8_seq_len(const uint8_t *p, size_t n);

#endif
