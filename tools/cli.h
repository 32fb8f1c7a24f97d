/*
 * cli.h — the pqstep command-line tool: command entry points and the
 * helpers the commands share.
 *
 * A command is `int pq_cmd_<name>(int argc, char **argv)`: argv[0] is the
 * command's name, the rest its arguments. It writes its output to stdout
 * with stdio and returns the process exit status. pqstep.c lists the
 * commands in one table; adding a command is one declaration here and one
 * line there. main() flushes stdout and turns write errors into exit 1.
 */
#ifndef PQ_CLI_H
#define PQ_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pqstep.h"

/* Exit statuses. */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_ERROR = 1, /* the file could not be read, or output failed */
    CLI_EXIT_USAGE = 2  /* bad command line */
};

/* ---------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------- */

int pq_cmd_meta(int argc, char **argv);
int pq_cmd_schema(int argc, char **argv);
int pq_cmd_demo(int argc, char **argv);
int pq_cmd_pages(int argc, char **argv);
int pq_cmd_prune(int argc, char **argv);
int pq_cmd_cat(int argc, char **argv);

/* ---------------------------------------------------------------------------
 * Keys of encrypted files (cli_keys.c)
 * ------------------------------------------------------------------------- */

/* Take --footer-key KEY, --column-key PATH=KEY, --aad-prefix TEXT and
 * --kms-keys ID:KEY[,...] out of
 * argv (anywhere before "--"), leaving the rest for the command. KEY is hex,
 * base64 or @FILE. Returns CLI_EXIT_OK or CLI_EXIT_USAGE (message printed;
 * no key is ever printed). */
int cli_take_keys(int *argc, char **argv);

/* The keys taken, or NULL when none were given. */
const pq_decryption *cli_decryption(void);

/* The local file whose external key material (--kms-keys) is read: the
 * file a one-file command opens. */
void cli_keys_for_file(const char *path);

/* ---------------------------------------------------------------------------
 * Arguments, errors, allocation and escaped text (cli_util.c)
 * ------------------------------------------------------------------------- */

typedef struct cli_args {
    const char *file; /* the one positional argument */
    bool json;        /* --json */
    bool help;        /* -h / --help: the caller prints its help, exit 0 */
} cli_args;

/* Parse "[--json] [--help] [--] FILE" (options anywhere before "--").
 * Returns CLI_EXIT_OK, or CLI_EXIT_USAGE after printing the problem and
 * `usage` ("pqstep meta [--json] FILE") to stderr. */
int cli_parse_file_args(int argc, char **argv, const char *usage, cli_args *out);

/* Print "pqstep: <cmd>: <problem>" and "usage: <usage>" to stderr; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Print the one-line "pqstep: FILE: <message>" for a failed pqstep call;
 * returns CLI_EXIT_ERROR. Control characters in the message become '?'. */
int cli_file_error(const char *path, const pq_error *err);

/* Print the footer's warnings (pq_metadata_warning()) to stderr, one line
 * each: "pqstep: warning: FILE: <warning>". They never change an exit code. */
void cli_print_warnings(const char *path, const pq_metadata *md);

/* Open `path` and run the footer stage. Returns a metadata reference the
 * caller releases, and the file size in `*file_size`; on failure prints the
 * error line and returns NULL. Prints the footer's warnings
 * (cli_print_warnings). */
pq_metadata *cli_open_metadata(const char *path, uint64_t *file_size);

/* Whether the FILE arguments (n of them) are a dataset (pq_dataset.h)
 * rather than one file: several, a glob pattern, or a directory. */
bool cli_is_dataset(const char *const *files, size_t n);

/* A reader over a path or an http(s):// / s3:// URL (S3 settings from the
 * AWS_* environment variables). */
pq_reader *cli_open_reader(const char *location, const pq_reader_options *opts, pq_error *err);

/* Allocation that cannot fail: prints "pqstep: out of memory" and exits 1. */
void *cli_xrealloc(void *p, size_t size);

/* Write bytes for a human: well-formed UTF-8 as is, control characters and
 * stray bytes as \xNN. */
void cli_print_text(FILE *out, const void *s, size_t len);

/* Same escaping into a NUL-terminated malloc'd string. */
char *cli_text_dup(const void *s, size_t len);

/* ---------------------------------------------------------------------------
 * Formatting (cli_format.c)
 * ------------------------------------------------------------------------- */

/* A growable string buffer the formatters below render into. */
typedef struct cli_buf {
    char *p;
    size_t cap;
} cli_buf;

void cli_buf_free(cli_buf *b);

/* pq_logical_type_format into `b`; NULL when the kind is NONE. */
const char *cli_fmt_logical(cli_buf *b, const pq_logical_type *lt);

/* pq_arrow_type_format into `b`. */
const char *cli_fmt_arrow(cli_buf *b, const pq_arrow_type *at);

/* pq_stat_value_format into `b`; the length is stored in `*len`. */
const char *cli_fmt_stat(cli_buf *b, const pq_leaf *leaf, pq_bytes v, size_t *len);

/* "FIXED_LEN_BYTE_ARRAY(16)" or the plain physical type name, into `b`. */
const char *cli_fmt_physical(cli_buf *b, int32_t type, int32_t type_length);

/* The min and max a column chunk's statistics give for `leaf`: min_value /
 * max_value when set, else the deprecated min / max but only when the
 * column sorts as signed (see cli_sort_order_signed). A bound that is not
 * available is left with ptr NULL and *has_* false. */
void cli_stats_bounds(const pq_leaf *leaf, const pq_statistics *st, pq_bytes *min, bool *has_min,
                      pq_bytes *max, bool *has_max);

/* True when the Parquet sort order of the leaf is signed: BOOLEAN, INT32,
 * INT64, FLOAT, DOUBLE except unsigned integers. Byte arrays (strings,
 * decimals on binary), INT96 and FIXED_LEN_BYTE_ARRAY are not. */
bool cli_sort_order_signed(const pq_leaf *leaf);

/* ---------------------------------------------------------------------------
 * Aligned text tables (text_table.c)
 * ------------------------------------------------------------------------- */

typedef struct cli_table {
    const char *align; /* one 'l' or 'r' per column */
    size_t ncols;
    size_t ncells;
    size_t cap;
    char **cells;      /* row-major, malloc'd */
} cli_table;

void cli_table_init(cli_table *t, const char *align);

/* Append the next cell (rows fill left to right). */
void cli_table_add(cli_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append a cell of untrusted bytes, escaped as by cli_print_text, after
 * `indent` spaces. */
void cli_table_add_text(cli_table *t, size_t indent, const void *s, size_t len);

/* Print the rows with each column padded to its widest cell, two spaces
 * between columns, `prefix` before each row; trailing spaces are trimmed. */
void cli_table_print(const cli_table *t, FILE *out, const char *prefix);

void cli_table_free(cli_table *t);

#endif
