/*
 * cli_util.c — argument parsing, error lines, opening files, allocation
 * that cannot fail, and escaping of untrusted bytes for a terminal, for the
 * pqstep commands.
 */
#include "cli.h"
#include "pq_remote.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json_writer.h"

int cli_usage_error(const char *usage, const char *fmt, ...)
{
    va_list ap;
    fputs("pqstep: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s\n", usage);
    return CLI_EXIT_USAGE;
}

int cli_parse_file_args(int argc, char **argv, const char *usage, cli_args *out)
{
    memset(out, 0, sizeof(*out));
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        /* "-" alone is a file name (pqstep reads files by path only). */
        if (!options_done && a[0] == '-' && a[1] != '\0') {
            if (strcmp(a, "--") == 0) {
                options_done = true;
            } else if (strcmp(a, "--json") == 0) {
                out->json = true;
            } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                out->help = true;
            } else {
                return cli_usage_error(usage, "%s: unknown option '%s'", argv[0], a);
            }
            continue;
        }
        if (out->file)
            return cli_usage_error(usage, "%s: unexpected argument '%s'", argv[0], a);
        out->file = a;
    }
    if (!out->help && !out->file)
        return cli_usage_error(usage, "%s: missing FILE", argv[0]);
    return CLI_EXIT_OK;
}

int cli_file_error(const char *path, const pq_error *err)
{
    const char *msg = err->message[0] ? err->message : pq_status_name(err->code);
    /* Exactly one line, whatever bytes the file put into the message. */
    char line[PQ_ERROR_MESSAGE_SIZE];
    size_t n = strnlen(msg, sizeof(line) - 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)msg[i];
        line[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    line[n] = '\0';
    fputs("pqstep: ", stderr);
    cli_print_text(stderr, path, strlen(path));
    fprintf(stderr, ": %s\n", line);
    return CLI_EXIT_ERROR;
}

void cli_print_warnings(const char *path, const pq_metadata *md)
{
    size_t n = pq_metadata_warning_count(md);
    for (size_t i = 0; i < n; i++) {
        const char *w = pq_metadata_warning(md, i);
        fputs("pqstep: warning: ", stderr);
        cli_print_text(stderr, path, strlen(path));
        fputs(": ", stderr);
        cli_print_text(stderr, w, strlen(w));
        fputc('\n', stderr);
    }
}

pq_metadata *cli_open_metadata(const char *path, uint64_t *file_size)
{
    pq_error err = {0};
    pq_reader *r = cli_open_reader(path, NULL, &err);
    if (!r) {
        cli_file_error(path, &err);
        return NULL;
    }
    pq_metadata *md = NULL;
    if (pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err) == PQ_OK && pq_reader_metadata(r)) {
        md = pq_metadata_retain(pq_reader_metadata(r));
        *file_size = pq_reader_file_size(r);
        cli_print_warnings(path, md);
    } else {
        if (err.code == PQ_OK) {
            err.code = PQ_ERR_STAGE;
            snprintf(err.message, sizeof(err.message), "footer stage did not complete");
        }
        cli_file_error(path, &err);
    }
    pq_reader_close(r);
    return md;
}

void *cli_xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q) {
        fputs("pqstep: out of memory\n", stderr);
        exit(CLI_EXIT_ERROR);
    }
    return q;
}

/* Escape for a terminal into `out` (NULL: only count). Returns the length. */
static size_t text_escape(char *out, const uint8_t *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    size_t i = 0;
    while (i < len) {
        uint8_t c = s[i];
        size_t n = (c >= 0x20 && c != 0x7f) ? cli_utf8_seq_len(s + i, len - i) : 0;
        if (n > 0) {
            if (out)
                memcpy(out + o, s + i, n);
            o += n;
            i += n;
        } else {
            if (out) {
                out[o] = '\\';
                out[o + 1] = 'x';
                out[o + 2] = hex[c >> 4];
                out[o + 3] = hex[c & 15];
            }
            o += 4;
            i++;
        }
    }
    return o;
}

char *cli_text_dup(const void *s, size_t len)
{
    size_t n = text_escape(NULL, s, len);
    char *out = cli_xrealloc(NULL, n + 1);
    text_escape(out, s, len);
    out[n] = '\0';
    return out;
}

void cli_print_text(FILE *out, const void *s, size_t len)
{
    char *t = cli_text_dup(s, len);
    fputs(t, out);
    free(t);
}

bool cli_is_dataset(const char *const *files, size_t n)
{
    struct stat sb;
    if (n != 1) return n > 1;
    const char *f = files[0];
    if (strncmp(f, "s3://", 5) == 0) /* a prefix or a pattern is listed */
        return f[strlen(f) - 1] == '/' || strpbrk(f, "*?[") || !strchr(f + 5, '/');
    if (pq_is_url(f)) return false;
    return strpbrk(f, "*?[") || (stat(f, &sb) == 0 && S_ISDIR(sb.st_mode));
}

pq_reader *cli_open_reader(const char *location, const pq_reader_options *opts, pq_error *err)
{
    /* Keys given on the command line apply to every file. */
    pq_reader_options o;
    if (!opts) pq_reader_options_init(&o);
    else o = *opts;
    if (!o.decryption) o.decryption = cli_decryption();
    cli_keys_for_file(location);
    /* URLs take their S3 endpoint, region and credentials from AWS_*. */
    if (pq_is_url(location)) return pq_reader_open_url(location, &o, NULL, err);
    return pq_reader_open_path(location, &o, err);
}
